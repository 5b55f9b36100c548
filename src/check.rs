//! The one pass every outgoing item goes through before any helper sends
//! it: the table layout (keys present, typed, non-empty and within size;
//! index keys complete or absent; TTL and version numbers), the mapper's
//! declared key patterns, its discriminator, every value as DynamoDB checks
//! it (numbers, sets, names, nesting) and the item size. `to_item` (and so
//! every typed helper), raw batch puts and raw transaction puts all call
//! [`write`]; the read side's counterpart is the mapper's read pass, which
//! checks a received item before any hook or deserializer sees it.

use std::cell::Cell;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::item::{Item, MAX_ITEM_SIZE, check_values, item_size, largest_attributes};
use crate::key::IndexKeys;
use crate::schema::{KeyNames, KeyValues, TableSchema};

/// What an outgoing item is checked against.
#[derive(Clone, Copy)]
pub(crate) struct WriteRules<'a> {
    /// The table's layout, when known (a raw action of a transaction names
    /// only its table).
    pub(crate) table: Option<&'a TableSchema>,
    /// The key patterns the mapper declares (none for a raw item).
    pub(crate) patterns: &'a [IndexKeys],
    /// The entity type written (none for a raw item): named in every error,
    /// and the value the discriminator attribute must hold.
    pub(crate) entity_type: Option<&'a str>,
    /// The key values the mapper rendered from its own patterns: a key
    /// attribute still holding exactly that is not parsed back against them.
    pub(crate) rendered: Option<&'a RenderedKeys>,
    /// The names of the table's key attributes (and the discriminator),
    /// worked out once: found in one pass over the item, not looked up one
    /// by one.
    pub(crate) names: Option<&'a KeyNames>,
}

/// The most rendered keys a write keeps track of (a table and five indexes'
/// partition and sort keys); more are checked against their patterns.
const TRACKED: usize = 12;

/// The most bytes of rendered keys a write keeps track of, all keys
/// together; a key that does not fit is checked against its pattern.
const TRACKED_BYTES: usize = 256;

/// The keys a mapper's plan rendered into an item. After the hooks, a key
/// attribute whose value is still exactly what was rendered need not be
/// parsed back against the pattern it was rendered from; the write checks
/// compare the values they look up anyway, so keeping track costs no lookup.
/// The keys are copied into a buffer of their own (no allocation).
#[derive(Debug)]
pub(crate) struct RenderedKeys {
    /// Every rendered key, one after the other.
    text: [u8; TRACKED_BYTES],
    /// Each key's attribute and where its value is in `text`.
    keys: [(&'static str, u16, u16); TRACKED],
    len: usize,
    /// Where the next key asked about most likely is in `keys` (the checks
    /// ask in the order the keys were rendered in).
    next: Cell<usize>,
}

impl RenderedKeys {
    pub(crate) fn new() -> Self {
        RenderedKeys {
            text: [0; TRACKED_BYTES],
            keys: [("", 0, 0); TRACKED],
            len: 0,
            next: Cell::new(0),
        }
    }

    /// Notes that `attribute` was rendered as `value`.
    pub(crate) fn add(&mut self, attribute: &'static str, value: &str) {
        let start = self
            .keys
            .get(..self.len)
            .and_then(<[_]>::last)
            .map_or(0, |k| k.2);
        let end = usize::from(start) + value.len();
        let (Some(slot), Some(text), Ok(end)) = (
            self.keys.get_mut(self.len),
            self.text.get_mut(usize::from(start)..end),
            u16::try_from(end),
        ) else {
            return; // checked against its pattern instead
        };
        text.copy_from_slice(value.as_bytes());
        *slot = (attribute, start, end);
        self.len += 1;
    }

    /// Whether `attribute` was rendered as exactly `value` (by any of the
    /// patterns that render it).
    #[inline]
    fn holds(&self, attribute: &str, value: &str) -> bool {
        let keys = self.keys.get(..self.len).unwrap_or_default();
        // The attribute is the plan's own `&'static str` (the layout's, as
        // the checks read it) most of the time, compared by address; lengths
        // before text.
        let holds = |&(a, start, end): &(&str, u16, u16)| {
            usize::from(end - start) == value.len()
                && ((a.as_ptr() == attribute.as_ptr() && a.len() == attribute.len())
                    || a == attribute)
                && self.text.get(usize::from(start)..usize::from(end)) == Some(value.as_bytes())
        };
        let at = self.next.get();
        if keys.get(at).is_some_and(holds) {
            self.next.set(at + 1);
            return true;
        }
        keys.iter().any(holds)
    }
}

impl<'a> WriteRules<'a> {
    /// The rules for a raw item of a table laid out as `table`.
    pub(crate) fn raw(table: &'a TableSchema) -> Self {
        WriteRules {
            table: Some(table),
            patterns: &[],
            entity_type: None,
            rendered: None,
            names: None,
        }
    }

    /// The rules for a raw item whose table layout is unknown: values and
    /// size only.
    pub(crate) const VALUES_ONLY: WriteRules<'static> = WriteRules {
        table: None,
        patterns: &[],
        entity_type: None,
        rendered: None,
        names: None,
    };
}

/// Checks `item` against `rules`; the error names the entity type, when
/// there is one.
pub(crate) fn write(item: &Item, rules: WriteRules<'_>) -> Result<()> {
    let named = |e: Error| match rules.entity_type {
        Some(t) => e.with_entity_type(t),
        None => e,
    };
    if let Some(table) = rules.table {
        let discriminator_attribute = table.discriminator.filter(|_| rules.entity_type.is_some());
        let mut keys = match rules.names {
            Some(names) => KeyValues::gather(item, names),
            None => KeyValues::new(item),
        };
        table.check_item_keeping_keys(&mut keys).map_err(named)?;
        key_patterns(item, &keys, table, rules.patterns, rules.rendered).map_err(named)?;
        if let (Some(attribute), Some(entity_type)) = (discriminator_attribute, rules.entity_type) {
            discriminator(keys.get(attribute), attribute, entity_type).map_err(named)?;
        }
    }
    let size = check_values(item).map_err(named)?;
    within_size(item, size).map_err(named)
}

/// Checks the size of an item that passed [`write`] and then got an
/// attribute of the crate's own (a version number): the one attribute the
/// pass could not see.
pub(crate) fn size(item: &Item) -> Result<()> {
    within_size(item, item_size(item))
}

fn within_size(item: &Item, size: usize) -> Result<()> {
    if size > MAX_ITEM_SIZE {
        return Err(Error::item_too_large(
            size,
            MAX_ITEM_SIZE,
            largest_attributes(item, 3),
        ));
    }
    Ok(())
}

/// The discriminator a mapper writes must still name its entity type after
/// the hooks ran: an item written under another type would be read back as
/// that type, or refused.
fn discriminator(found: Option<&AttributeValue>, attribute: &str, entity_type: &str) -> Result<()> {
    match found {
        Some(AttributeValue::S(found)) if found == entity_type => Ok(()),
        Some(AttributeValue::S(found)) => Err(Error::discriminator_mismatch(
            attribute,
            vec![entity_type.to_owned()],
            found.clone(),
        )),
        other => Err(Error::missing_discriminator(
            attribute,
            other.map(|v| crate::item::type_name(v).to_owned()),
        )),
    }
}

/// A string key attribute of a multi-attribute index that a part pattern
/// renders: when present, it must match the pattern.
fn part_pattern(item: &Item, keys: &IndexKeys, attribute: &str) -> Result<()> {
    let Some(AttributeValue::S(value)) = item.get(attribute) else {
        return Ok(()); // absent (sparse) or not a string (checked by the schema)
    };
    let pattern = keys.partition_key();
    if pattern.matches(value) {
        return Ok(());
    }
    Err(Error::invalid_key(
        attribute,
        format!(
            "of index {} is {value:?}, which does not match its key pattern `{pattern}`",
            keys.index_name().unwrap_or_default()
        ),
    ))
}

/// Checks that the string keys the hooks wrote match the key patterns the
/// mapper declares (for each index it declares patterns for; an absent index
/// key is a sparse index and fine), so the design the registry checked is the
/// design in the table.
fn key_patterns(
    item: &Item,
    found: &KeyValues<'_>,
    table: &TableSchema,
    patterns: &[IndexKeys],
    rendered: Option<&RenderedKeys>,
) -> Result<()> {
    for (i, keys) in patterns.iter().enumerate() {
        if let Some(attribute) = keys.part_attribute() {
            part_pattern(item, keys, attribute)?;
            continue;
        }
        let index = keys.index_name();
        let whole = |k: &&IndexKeys| k.part_attribute().is_none() && k.index_name() == index;
        if patterns.iter().take(i).any(|k| whole(&k)) {
            continue; // checked with the first declaration for this index
        }
        let (pk_attr, sk_attr) = match index {
            None => (table.partition_key.name, table.sort_key.map(|k| k.name)),
            // An undeclared index is reported when the registry is built.
            // Multi-attribute indexes have no patterns (the mapper's check
            // says so).
            Some(name) => match table.index(name).and_then(|i| i.single_keys()) {
                Some((pk, sk)) => (pk.name, sk.map(|k| k.name)),
                None => continue,
            },
        };
        let Some(AttributeValue::S(pk)) = found.get(pk_attr) else {
            continue; // absent (sparse) or not a string (checked by the schema)
        };
        let sk = sk_attr.and_then(|a| match found.get(a) {
            Some(AttributeValue::S(v)) => Some(v.as_str()),
            _ => None,
        });
        // Rendered from these very patterns, and left as rendered.
        if let Some(rendered) = rendered
            && rendered.holds(pk_attr, pk)
            && sk_attr.is_none_or(|a| sk.is_some_and(|v| rendered.holds(a, v)))
        {
            continue;
        }
        let candidates = || patterns.iter().filter(whole);
        let fits = candidates().any(|k| {
            k.partition_key().matches(pk)
                && match (k.sort_key(), sk) {
                    (Some(pattern), Some(v)) => pattern.matches(v),
                    (None, _) => true,
                    (Some(_), None) => sk_attr.is_none(),
                }
        });
        if fits {
            continue;
        }
        // What did not fit, for the error.
        let pk_matches: Vec<_> = candidates()
            .filter(|k| k.partition_key().matches(pk))
            .collect();
        let on = index.map_or_else(|| "the table".to_owned(), |i| format!("index {i}"));
        let (attr, value, patterns): (&str, &str, Vec<String>) = if pk_matches.is_empty() {
            (
                pk_attr,
                pk,
                candidates()
                    .map(|k| k.partition_key().to_string())
                    .collect(),
            )
        } else {
            (
                sk_attr.unwrap_or(pk_attr),
                sk.unwrap_or(""),
                pk_matches
                    .iter()
                    .filter_map(|k| k.sort_key().map(|p| p.to_string()))
                    .collect(),
            )
        };
        return Err(Error::invalid_key(
            attr,
            format!(
                "is {value:?}, which matches none of the key patterns declared for {on}: {}",
                patterns.join(", ")
            ),
        ));
    }
    Ok(())
}

impl Error {
    /// An item over DynamoDB's size limit: `largest` are its largest
    /// attributes (at most three, largest first).
    pub(crate) fn item_too_large(size: usize, limit: usize, largest: Vec<(String, usize)>) -> Self {
        Error::new(crate::error::ErrorDetails::ItemTooLarge {
            size,
            limit,
            largest,
        })
    }
}
