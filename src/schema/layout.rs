//! Items checked against the layout: keys present, typed, non-empty and
//! within DynamoDB's size limits, index keys in pairs, TTL and version
//! attributes whole numbers; primary keys taken from items or built from
//! values.

use std::cell::Cell;

use aws_sdk_dynamodb::types::AttributeValue;

use super::{GlobalSecondaryIndex, KeyAttribute, ScalarType, TableSchema};
use crate::error::{Error, Result};
use crate::item::{Item, check_number, type_name};

/// Maximum partition key size in bytes.
pub(crate) const MAX_PARTITION_KEY_BYTES: usize = 2048;

/// Maximum sort key size in bytes.
pub(crate) const MAX_SORT_KEY_BYTES: usize = 1024;

impl TableSchema {
    /// Checks an item against the layout: table keys present with the right
    /// type, non-empty and within size limits; TTL and version numbers; and
    /// for each index, its key attributes valid where present, and complete
    /// when the item is in the index. An item is in an index when it holds
    /// every partition key attribute (else it is left out: a sparse index),
    /// and then it must hold every sort key attribute too, or DynamoDB would
    /// leave it out without a word.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) for a key
    /// problem, [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) for
    /// a bad TTL or version attribute.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Item, TableSchema};
    ///
    /// let t = TableSchema::new("pk").sort_key("sk");
    /// let mut item = Item::from([("pk".to_string(), AttributeValue::S("A".into()))]);
    /// assert_eq!(t.check_item(&item).unwrap_err().to_string(), "key attribute `sk` is missing");
    /// item.insert("sk".into(), AttributeValue::S("B".into()));
    /// assert!(t.check_item(&item).is_ok());
    /// ```
    pub fn check_item(&self, item: &Item) -> Result<()> {
        self.check_item_keeping_keys(&mut KeyValues::new(item))
    }

    /// [`check_item`](Self::check_item) of the item of `seen`, which keeps
    /// the key attributes it looked up, so that the checks after it need
    /// not look them up again.
    pub(crate) fn check_item_keeping_keys(&self, seen: &mut KeyValues<'_>) -> Result<()> {
        check_key(seen, self.partition_key, MAX_PARTITION_KEY_BYTES, "", true)?;
        if let Some(sk) = self.sort_key {
            check_key(seen, sk, MAX_SORT_KEY_BYTES, "", true)?;
        }
        for index in self.indexes {
            check_index_keys(seen, index)?;
        }
        for name in self
            .ttl
            .iter()
            .chain(self.version.iter())
            .chain(self.shape.iter())
        {
            match seen.get(name) {
                None => {}
                Some(AttributeValue::N(n)) if n.parse::<u64>().is_err() => {
                    return Err(Error::invalid_value(
                        *name,
                        format!("is {n}, expected a whole non-negative number"),
                    ));
                }
                Some(AttributeValue::N(_)) => {}
                Some(other) => {
                    return Err(Error::invalid_value(
                        *name,
                        format!("is {}, expected a number (N)", type_name(other)),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The primary key of an item: its table key attributes, checked.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) when a key
    /// attribute is missing or invalid.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Item, TableSchema};
    ///
    /// let t = TableSchema::new("pk").sort_key("sk");
    /// let item = Item::from([
    ///     ("pk".to_string(), AttributeValue::S("A".into())),
    ///     ("sk".to_string(), AttributeValue::S("B".into())),
    ///     ("name".to_string(), AttributeValue::S("Ada".into())),
    /// ]);
    /// assert_eq!(t.key_of(&item)?.len(), 2);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn key_of(&self, item: &Item) -> Result<Item> {
        let mut key = Item::with_capacity(2);
        let mut seen = KeyValues::new(item);
        for (attr, limit) in std::iter::once((self.partition_key, MAX_PARTITION_KEY_BYTES))
            .chain(self.sort_key.map(|k| (k, MAX_SORT_KEY_BYTES)))
        {
            check_key(&mut seen, attr, limit, "", true)?;
            if let Some(v) = item.get(attr.name) {
                key.insert(attr.name.to_owned(), v.clone());
            }
        }
        Ok(key)
    }

    /// A primary key item from key values, checked against the layout.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) when a value has
    /// the wrong type, is empty or too long, or when a sort key is given for a
    /// table without one (or missing for a table with one).
    pub(crate) fn key(
        &self,
        partition: AttributeValue,
        sort: Option<AttributeValue>,
    ) -> Result<Item> {
        let mut item = Item::with_capacity(2);
        item.insert(self.partition_key.name.to_owned(), partition);
        match (self.sort_key, sort) {
            (Some(sk), Some(v)) => {
                item.insert(sk.name.to_owned(), v);
            }
            (None, Some(_)) => {
                return Err(Error::invalid_key(
                    "(sort key)",
                    "was given, but the table has no sort key",
                ));
            }
            _ => {}
        }
        self.key_of(&item)
    }

    /// A primary key item from string values, the common single-table case.
    ///
    /// # Errors
    /// As [`TableSchema::key`].
    pub(crate) fn string_key(&self, partition: &str, sort: &str) -> Result<Item> {
        self.key(
            AttributeValue::S(partition.to_owned()),
            Some(AttributeValue::S(sort.to_owned())),
        )
    }
}

/// The most key attributes [`KeyValues`] remembers (the table's two, five
/// indexes' two, TTL, version, discriminator and a few more); more are
/// looked up again.
const REMEMBERED: usize = 16;

/// How many attributes of an item per attribute name to find
/// [`KeyValues::gather`] goes through rather than looking each name up: a
/// lookup hashes the name (SipHash, over a hundred instructions), passing
/// over an attribute whose name is of no wanted length costs a few.
const GATHER_PER_NAME: usize = 8;

/// The names of a layout's key attributes, TTL, version and one more (the
/// discriminator), worked out once (a mapper's plan keeps them), so that
/// [`KeyValues::gather`] finds them all in one pass over an item.
#[derive(Debug)]
pub(crate) struct KeyNames {
    /// At most [`REMEMBERED`] names; the rest are looked up.
    names: Vec<&'static str>,
    /// Each name's [`head_of`].
    heads: Vec<u64>,
    /// One bit per name length (the last for 63 bytes and more): most
    /// attributes are passed over on their length alone.
    lengths: u64,
    /// For each [`bucket_of`] a head, one bit per name in it.
    buckets: [u16; 64],
}

impl KeyNames {
    pub(crate) fn new(table: &TableSchema, also: Option<&'static str>) -> Self {
        let mut names: Vec<&'static str> = Vec::new();
        let all = std::iter::once(table.partition_key)
            .chain(table.sort_key)
            .chain(table.indexes.iter().flat_map(|i| i.key_attributes()))
            .map(|k| k.name)
            .chain(table.ttl)
            .chain(table.version)
            .chain(table.shape)
            .chain(also);
        for name in all {
            if !names.contains(&name) && names.len() < REMEMBERED {
                names.push(name);
            }
        }
        let heads: Vec<u64> = names.iter().map(|n| head_of(n)).collect();
        let mut lengths = 0u64;
        let mut buckets = [0u16; 64];
        for (i, (name, &head)) in names.iter().zip(&heads).enumerate() {
            lengths |= 1 << name.len().min(63);
            if let Some(bits) = buckets.get_mut(bucket_of(head)) {
                *bits |= 1 << i;
            }
        }
        KeyNames {
            names,
            heads,
            lengths,
            buckets,
        }
    }
}

/// The key attributes of an item as the schema checks looked them up
/// (present or absent), so the checks after them reuse the lookups: each
/// costs hashing the attribute name.
#[derive(Debug)]
pub(crate) struct KeyValues<'i> {
    item: &'i Item,
    seen: [(&'static str, Option<&'i AttributeValue>); REMEMBERED],
    len: usize,
    /// Whether `seen` holds every name of a [`KeyNames`], found in one
    /// pass, rather than the names looked up so far.
    gathered: bool,
    /// Where the next name the checks ask for most likely is in `seen`
    /// (they ask in the order the names were gathered in).
    next: Cell<usize>,
}

impl<'i> KeyValues<'i> {
    pub(crate) fn new(item: &'i Item) -> Self {
        KeyValues {
            item,
            seen: [("", None); REMEMBERED],
            len: 0,
            gathered: false,
            next: Cell::new(0),
        }
    }

    /// The attributes `names` names, found in one pass over `item` rather
    /// than a lookup each, when the item is small enough for the pass to
    /// cost less; else as [`new`](Self::new). The values are the item's
    /// either way: the checks see the same.
    pub(crate) fn gather(item: &'i Item, names: &KeyNames) -> Self {
        let mut keys = KeyValues::new(item);
        if item.len() > names.names.len() * GATHER_PER_NAME {
            return keys;
        }
        for (slot, name) in keys.seen.iter_mut().zip(&names.names) {
            *slot = (name, None);
        }
        keys.len = names.names.len();
        keys.gathered = true;
        for (name, value) in item {
            if names.lengths & (1 << name.len().min(63)) == 0 {
                continue; // most attributes: no wanted name is this long
            }
            let head = head_of(name);
            let mut bits = names.buckets.get(bucket_of(head)).copied().unwrap_or(0);
            // A name may be wanted twice over (an attribute of two indexes).
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if names.heads.get(i) == Some(&head)
                    && let Some((wanted, found)) = keys.seen.get_mut(i)
                    && *wanted == name.as_str()
                {
                    *found = Some(value);
                }
            }
        }
        keys
    }

    /// What the checks found for `name`: `Some(None)` when they found it
    /// absent, `None` when they did not look.
    #[inline]
    fn remembered(&self, name: &str) -> Option<Option<&'i AttributeValue>> {
        let seen = self.seen.get(..self.len).unwrap_or_default();
        // The same `&'static str` of the schema most of the time: compared
        // by address first, where the last name found leads.
        let same = |seen: &str| seen.as_ptr() == name.as_ptr() && seen.len() == name.len();
        let at = self.next.get();
        let found = match seen.get(at) {
            Some(&(s, _)) if same(s) => Some(at),
            _ => seen
                .iter()
                .position(|(s, _)| same(s))
                .or_else(|| seen.iter().position(|(s, _)| *s == name)),
        };
        let at = found?;
        self.next.set(at + 1);
        seen.get(at).map(|&(_, value)| value)
    }

    /// Looks `name` up in the item (unless it was gathered), remembering
    /// what it found.
    fn look_up(&mut self, name: &'static str) -> Option<&'i AttributeValue> {
        if self.gathered
            && let Some(value) = self.remembered(name)
        {
            return value;
        }
        let value = self.item.get(name);
        if let Some(slot) = self.seen.get_mut(self.len) {
            *slot = (name, value);
            self.len += 1;
        }
        value
    }

    /// The value of the attribute `name`, without a second lookup when the
    /// checks looked it up already.
    #[inline]
    pub(crate) fn get(&self, name: &str) -> Option<&'i AttributeValue> {
        match self.remembered(name) {
            Some(value) => value,
            None => self.item.get(name),
        }
    }
}

/// Which of 64 buckets a [`head_of`] falls in: names that differ in length
/// or in one of the bytes the head holds mostly fall in different ones.
fn bucket_of(head: u64) -> usize {
    let mixed = head.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> 58) as usize
}

/// The length of `name` and four of its bytes (first, middle, last but one,
/// last) as one number: two names with other numbers differ, without
/// comparing them byte by byte.
fn head_of(name: &str) -> u64 {
    let b = name.as_bytes();
    let at = |i: usize| u64::from(b.get(i).copied().unwrap_or(0));
    let len = b.len();
    (len as u64) << 32
        | at(0) << 24
        | at(len / 2) << 16
        | at(len.wrapping_sub(2)) << 8
        | at(len.wrapping_sub(1))
}

/// An index's key attributes: valid where present, and complete when the
/// item is in the index. A single-attribute index's keys are its own
/// attributes: both present or both absent. A multi-attribute index's are
/// the item's fields, often shared with other indexes: the item is in it
/// when it holds every partition key attribute, and then it needs every
/// sort key attribute.
fn check_index_keys(seen: &mut KeyValues<'_>, index: &GlobalSecondaryIndex) -> Result<()> {
    let item = seen.item;
    let holds = |k: &KeyAttribute| item.contains_key(k.name);
    // One lookup per key attribute: each is checked and counted.
    let mut held = |keys: &[KeyAttribute], limit: usize| -> Result<usize> {
        let mut n = 0;
        for key in keys {
            n += usize::from(check_key(seen, *key, limit, index.name, false)?);
        }
        Ok(n)
    };
    let partition_held = held(index.partition_keys(), MAX_PARTITION_KEY_BYTES)?;
    let sort_held = held(index.sort_keys(), MAX_SORT_KEY_BYTES)?;
    let partitions = index.partition_keys().len();
    let in_index = if index.is_multi_attribute() {
        partition_held == partitions
    } else {
        partition_held + sort_held > 0
    };
    if !in_index || partition_held + sort_held == partitions + index.sort_keys().len() {
        return Ok(());
    }
    let (present, absent): (Vec<KeyAttribute>, Vec<KeyAttribute>) =
        index.key_attributes().partition(holds);
    if let Some(lacks) = absent.first() {
        let names = |keys: &[KeyAttribute]| {
            keys.iter()
                .map(|k| format!("`{}`", k.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (has, verb) = match present.as_slice() {
            [_] => (names(&present), "is"),
            _ => (names(&present), "are"),
        };
        let also = match &absent[1..] {
            [] => String::new(),
            more => format!(" (and {})", names(more)),
        };
        return Err(Error::invalid_key(
            lacks.name,
            format!(
                "of index {} is missing{also} while {has} {verb} present; {}",
                index.name,
                if index.is_multi_attribute() {
                    "an item holding every partition key attribute of the index is in it and \
                     needs every sort key attribute"
                } else {
                    "write every key attribute of the index or none"
                }
            ),
        ));
    }
    Ok(())
}

/// Checks the key attribute `attr` of `item` (missing is an error when
/// `required`); whether the item holds it.
#[inline]
fn check_key(
    seen: &mut KeyValues<'_>,
    attr: KeyAttribute,
    limit: usize,
    index: &str,
    required: bool,
) -> Result<bool> {
    match seen.look_up(attr.name) {
        // The usual key, a string within its limit: nothing else to see.
        Some(AttributeValue::S(s))
            if attr.scalar_type == ScalarType::S && !s.is_empty() && s.len() <= limit =>
        {
            Ok(true)
        }
        None if !required => Ok(false),
        found => check_key_value(attr, found, limit, index).map(|()| true),
    }
}

/// [`check_key`] of any other value (or a missing one): a number or binary
/// key, or the error.
#[cold]
fn check_key_value(
    attr: KeyAttribute,
    found: Option<&AttributeValue>,
    limit: usize,
    index: &str,
) -> Result<()> {
    // Only an error names the index: nothing is formatted for a valid key.
    let of = || {
        if index.is_empty() {
            String::new()
        } else {
            format!("of index {index} ")
        }
    };
    let Some(value) = found else {
        return Err(Error::invalid_key(attr.name, format!("{}is missing", of())));
    };
    let len = match (attr.scalar_type, value) {
        (ScalarType::S, AttributeValue::S(s)) => s.len(),
        (ScalarType::B, AttributeValue::B(b)) => b.as_ref().len(),
        (ScalarType::N, AttributeValue::N(n)) => {
            check_number(n)
                .map_err(|reason| Error::invalid_key(attr.name, format!("{}{reason}", of())))?;
            n.len()
        }
        (expected, found) => {
            return Err(Error::invalid_key(
                attr.name,
                format!(
                    "{}is {}, expected {}",
                    of(),
                    type_name(found),
                    expected.describe()
                ),
            ));
        }
    };
    if len == 0 {
        return Err(Error::invalid_key(
            attr.name,
            format!("{}is empty; DynamoDB rejects empty key values", of()),
        ));
    }
    if len > limit {
        return Err(Error::invalid_key(
            attr.name,
            format!("{}is {len} bytes, over the limit of {limit} bytes", of()),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::tests::T;

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    /// Why `T` refuses `item`.
    fn refusal(item: &Item) -> String {
        T.check_item(item).unwrap_err().to_string()
    }

    fn base() -> Item {
        Item::from([("pk".into(), s("P")), ("sk".into(), s("S"))])
    }

    #[test]
    fn key_limits() {
        let mut item = base();
        item.insert("pk".into(), s(&"x".repeat(2048)));
        assert!(T.check_item(&item).is_ok());
        item.insert("pk".into(), s(&"x".repeat(2049)));
        assert_eq!(
            refusal(&item),
            "key attribute `pk` is 2049 bytes, over the limit of 2048 bytes"
        );
        let mut item = base();
        item.insert("sk".into(), s(&"é".repeat(512)));
        assert!(T.check_item(&item).is_ok());
        item.insert("sk".into(), s(&"é".repeat(513)));
        assert!(T.check_item(&item).is_err());
    }

    #[test]
    fn refusals_name_the_attribute_and_the_problem() {
        let null = AttributeValue::Null(true);
        for (changes, expected) in [
            (
                vec![("sk", s(""))],
                "key attribute `sk` is empty; DynamoDB rejects empty key values",
            ),
            (
                vec![("sk", AttributeValue::N("1".into()))],
                "key attribute `sk` is a number (N), expected a string (S)",
            ),
            (
                vec![("gsi1pk", s("A"))],
                "key attribute `gsi1sk` of index GSI1 is missing while `gsi1pk` is present; \
                 write every key attribute of the index or none",
            ),
            (
                vec![("gsi1pk", s("A")), ("gsi1sk", null)],
                "key attribute `gsi1sk` of index GSI1 is null (NULL), expected a string (S)",
            ),
            (
                vec![("ttl", s("tomorrow"))],
                "attribute `ttl` is a string (S), expected a number (N)",
            ),
        ] {
            let mut item = base();
            for (name, value) in changes {
                item.insert(name.into(), value);
            }
            assert_eq!(refusal(&item), expected);
        }
    }

    #[test]
    fn gsi_pairs_and_values() {
        let mut item = base();
        item.insert("gsi1pk".into(), s("A"));
        assert!(T.check_item(&item).is_err());
        item.insert("gsi1sk".into(), s("B"));
        assert!(T.check_item(&item).is_ok());
        item.insert("gsi3pk".into(), s(""));
        assert!(T.check_item(&item).is_err());
        item.insert("gsi3pk".into(), s("C"));
        assert!(T.check_item(&item).is_ok());
    }

    #[test]
    fn ttl_and_version_must_be_whole_numbers() {
        let mut item = base();
        item.insert("ttl".into(), AttributeValue::N("1.5".into()));
        assert!(T.check_item(&item).is_err());
        item.insert("ttl".into(), AttributeValue::N("1700000000".into()));
        item.insert("version".into(), AttributeValue::N("-1".into()));
        assert!(T.check_item(&item).is_err());
    }

    #[test]
    fn keys_from_values() {
        let t = TableSchema::new("id");
        assert!(t.key(s("a"), Some(s("b"))).is_err());
        assert_eq!(t.key(s("a"), None).unwrap().len(), 1);
        assert!(T.string_key("", "x").is_err());
    }

    /// An index declared multi-attribute keeps that declaration's rules with
    /// one attribute a side: an item without its partition key attribute is
    /// not in it, one with it needs the sort key attribute.
    #[test]
    fn a_multi_attribute_index_of_one_attribute_a_side_keeps_its_rules() {
        use crate::KeyAttribute;
        const M: TableSchema = TableSchema::new("pk").sort_key("sk").indexes(&[
            GlobalSecondaryIndex::multi_attribute(
                "ByTenant",
                &[KeyAttribute::new("tenant")],
                &[KeyAttribute::new("createdAt")],
            ),
        ]);
        let index = &M.indexes[0];
        assert!(index.is_multi_attribute());
        assert!(index.single_keys().is_none());
        assert!(M.problems().is_empty());
        let mut item = base();
        item.insert("createdAt".into(), s("2025-01-01"));
        assert!(
            M.check_item(&item).is_ok(),
            "without `tenant` it is not in the index"
        );
        item.remove("createdAt");
        item.insert("tenant".into(), s("t1"));
        let err = M.check_item(&item).unwrap_err().to_string();
        assert!(
            err.contains("`createdAt` of index ByTenant is missing"),
            "{err}"
        );
        item.insert("createdAt".into(), s("2025-01-01"));
        assert!(M.check_item(&item).is_ok());
    }

    /// Gathering the key attributes in one pass finds what looking each up
    /// finds: the checks pass and fail alike, with the same errors, and
    /// every name reads the same value.
    #[test]
    fn gathered_keys_are_the_looked_up_keys() {
        use crate::KeyAttribute;
        const SHARED: TableSchema = TableSchema::new("pk").sort_key("sk").indexes(&[
            GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("sk"),
            GlobalSecondaryIndex::multi_attribute(
                "ByTenant",
                &[KeyAttribute::new("tenant"), KeyAttribute::new("gsi1pk")],
                &[KeyAttribute::new("createdAt")],
            ),
        ]);
        let values = [
            None,
            Some(s("v")),
            Some(s("")),
            Some(s(&"x".repeat(1025))),
            Some(AttributeValue::N("1".into())),
            Some(AttributeValue::Null(true)),
        ];
        for table in [T, SHARED] {
            let names = KeyNames::new(&table, Some("entityType"));
            let mut wanted: Vec<&str> = table.key_attributes().iter().map(|k| k.name).collect();
            wanted.extend(["ttl", "version", "entityType"]);
            for (i, name) in wanted.iter().enumerate() {
                for value in &values {
                    let mut item = base();
                    // Names of the same lengths and heads as the wanted ones.
                    item.insert("gsi1pz".into(), s("noise"));
                    item.insert("xk".into(), s("noise"));
                    item.insert("entityTypf".into(), s("noise"));
                    if let Some(other) = wanted.get(i + 1) {
                        item.insert((*other).to_owned(), s("w"));
                    }
                    match value {
                        Some(v) => item.insert((*name).to_owned(), v.clone()),
                        None => item.remove(*name),
                    };
                    let mut gathered = KeyValues::gather(&item, &names);
                    assert!(gathered.gathered, "{item:?}");
                    let mut looked_up = KeyValues::new(&item);
                    let a = table.check_item_keeping_keys(&mut gathered);
                    let b = table.check_item_keeping_keys(&mut looked_up);
                    assert_eq!(
                        a.map_err(|e| e.to_string()),
                        b.map_err(|e| e.to_string()),
                        "{item:?}"
                    );
                    for n in &wanted {
                        assert_eq!(gathered.get(n), item.get(*n), "{n}");
                        assert_eq!(looked_up.get(n), item.get(*n), "{n}");
                    }
                }
            }
        }
        // An item too large for a pass to pay is looked up, alike.
        let names = KeyNames::new(&T, None);
        let mut item = base();
        for i in 0..200 {
            item.insert(format!("a{i}"), s("x"));
        }
        let mut keys = KeyValues::gather(&item, &names);
        assert!(!keys.gathered);
        assert!(T.check_item_keeping_keys(&mut keys).is_ok());
        assert_eq!(keys.get("pk"), Some(&s("P")));
    }
}
