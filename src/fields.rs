//! The field names of an entity type, learned from its `Deserialize` impl and
//! cached per type: which attributes deserialization consumes, and how the
//! naming convention maps them.

use std::any::TypeId;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::de::{self, Deserialize, Visitor};

use crate::error::{Error, Result};
use crate::names::ByLength;
use crate::naming::NamingConvention;
use crate::type_cache::TypeCache;

/// Field names of a struct entity under a naming convention.
#[derive(Debug)]
pub(crate) struct FieldTable {
    /// (stored attribute name, serde field name), sorted by stored name.
    by_stored: Vec<(String, &'static str)>,
    /// (serde field name, stored attribute name), sorted by field name; only
    /// fields the convention renames. Binary search over a few short strings
    /// beats hashing them (measured in `benches/mapping.rs`).
    by_field: Vec<(&'static str, String)>,
    /// `by_stored` again, looked up by length (see `names.rs`).
    by_len: ByLength<&'static str>,
    /// (serde field name, stored name), in the order the entity declares
    /// its fields: the order a derived `Serialize` writes them in.
    in_order: Vec<(&'static str, String)>,
    /// For each field of `in_order`, the address of the last name
    /// [`stored_in_order`](Self::stored_in_order) matched it with (0 before
    /// any): a `Serialize` impl passes the same `&'static str` on every call.
    matched: Vec<AtomicUsize>,
}

impl FieldTable {
    /// The serde field name for a stored attribute, if the attribute is a field.
    pub(crate) fn field_for(&self, stored: &str) -> Option<&'static str> {
        self.by_len.get(stored).copied()
    }

    /// The stored name of `field`, serialized after the field at
    /// `*position` in declaration order: found at once when fields come in
    /// the order the entity declares them (skipped ones are passed over),
    /// else by [`stored_for`](Self::stored_for). Moves `*position` past it.
    pub(crate) fn stored_in_order(
        &self,
        position: &mut usize,
        field: &'static str,
        naming: NamingConvention,
    ) -> std::borrow::Cow<'_, str> {
        // A name is compared by address first: the address its declared
        // field was last matched with (a `&'static str` at an address never
        // changes, so the same address and length is the same name), or the
        // declared name's own (often the very string a derived `Serialize`
        // passes); byte by byte only when neither is it, and the address
        // is then remembered.
        let address = field.as_ptr().addr();
        let same = |i: usize, f: &str| {
            let matched = self.matched.get(i);
            if f.len() == field.len()
                && (f.as_ptr().addr() == address
                    || matched.is_some_and(|m| m.load(Ordering::Relaxed) == address))
            {
                return true;
            }
            let same = f == field;
            if let (true, Some(m)) = (same, matched) {
                m.store(address, Ordering::Relaxed);
            }
            same
        };
        let found = self.in_order.get(*position..).and_then(|rest| {
            rest.iter()
                .enumerate()
                .position(|(offset, (f, _))| same(*position + offset, f))
                .map(|offset| *position + offset)
        });
        match found.and_then(|i| self.in_order.get(i).map(|(_, stored)| (i, stored))) {
            Some((i, stored)) => {
                *position = i + 1;
                std::borrow::Cow::Borrowed(stored.as_str())
            }
            None => self.stored_for(field, naming),
        }
    }

    /// How many fields the entity has.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.by_stored.len()
    }

    /// The entity's fields (serde names) and their stored names, in stored
    /// name order.
    pub(crate) fn fields(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.by_stored
            .iter()
            .map(|(stored, field)| (*field, stored.as_str()))
    }

    /// The serde field names in the order the entity declares them: a
    /// field's index is its position for [`stored_in_order`](Self::stored_in_order).
    pub(crate) fn in_order(&self) -> impl Iterator<Item = &'static str> {
        self.in_order.iter().map(|(field, _)| *field)
    }

    /// The stored name of a serialized top-level attribute.
    pub(crate) fn stored_for<'a>(
        &'a self,
        field: &'a str,
        naming: NamingConvention,
    ) -> std::borrow::Cow<'a, str> {
        match self.by_field.binary_search_by(|(f, _)| (*f).cmp(field)) {
            Ok(i) => std::borrow::Cow::Borrowed(self.by_field[i].1.as_str()),
            Err(_) if gets_convention(field) => naming.apply(field),
            Err(_) => std::borrow::Cow::Borrowed(field),
        }
    }
}

/// The field table of `T` under `naming`, or `None` when `T` is not a plain
/// struct (an enum, a map, a struct with `#[serde(flatten)]`).
pub(crate) fn field_table<T>(naming: NamingConvention) -> Result<Option<&'static FieldTable>>
where
    T: for<'de> Deserialize<'de> + 'static,
{
    static CACHE: TypeCache<(TypeId, NamingConvention), Option<FieldTable>> = TypeCache::new();
    let table = CACHE.get_or_try_insert_with((TypeId::of::<T>(), naming), || {
        capture_fields::<T>()
            .map(|fields| build(fields, naming))
            .transpose()
    })?;
    Ok(table.as_ref())
}

/// Whether `field` reads as a Rust field name (`snake_case`: ASCII lowercase
/// letters, digits and `_`): such a name gets the naming convention. Any
/// other name (`Email`, `e-mail`, `userID`) was given by
/// `#[serde(rename = "...")]` or `rename_all` and is kept as written, so an
/// explicit rename always wins over the mapper's convention.
pub(crate) fn gets_convention(field: &str) -> bool {
    field
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// The stored name of `field` under `naming` (see [`gets_convention`]).
fn stored_name(field: &'static str, naming: NamingConvention) -> std::borrow::Cow<'static, str> {
    if gets_convention(field) {
        naming.apply(field)
    } else {
        std::borrow::Cow::Borrowed(field)
    }
}

fn build(fields: &'static [&'static str], naming: NamingConvention) -> Result<FieldTable> {
    let in_order: Vec<(&'static str, String)> = fields
        .iter()
        .map(|&field| (field, stored_name(field, naming).into_owned()))
        .collect();
    let mut by_stored: Vec<(String, &'static str)> = in_order
        .iter()
        .map(|(field, stored)| (stored.clone(), *field))
        .collect();
    by_stored.sort_unstable();
    if let Some(pair) = by_stored.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::invalid_value(
            pair[0].0.clone(),
            format!(
                "is the {} name of both fields `{}` and `{}`",
                naming.name(),
                pair[0].1,
                pair[1].1
            ),
        ));
    }
    let mut by_field: Vec<(&'static str, String)> = by_stored
        .iter()
        .filter(|(stored, field)| stored != field)
        .map(|(stored, field)| (*field, stored.clone()))
        .collect();
    by_field.sort_unstable();
    let by_len = ByLength::new(
        by_stored
            .iter()
            .map(|(stored, field)| (Box::from(stored.as_str()), *field)),
    );
    Ok(FieldTable {
        by_stored,
        by_field,
        matched: in_order.iter().map(|_| AtomicUsize::new(0)).collect(),
        in_order,
        by_len,
    })
}

/// Runs `T`'s `Deserialize` impl against a deserializer that only records the
/// field list passed to `deserialize_struct`.
fn capture_fields<T>() -> Option<&'static [&'static str]>
where
    T: for<'de> Deserialize<'de>,
{
    let mut capture = Capture(None);
    let _ = T::deserialize(&mut capture);
    capture.0
}

struct Capture(Option<&'static [&'static str]>);

impl<'de> de::Deserializer<'de> for &mut Capture {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = Some(fields);
        Err(de::Error::custom("fields captured"))
    }

    newtype_then_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// In a `Deserializer` of a whole entity: a newtype struct is read as what
/// it wraps, and the other methods listed go to `deserialize_any`.
macro_rules! newtype_then_any {
    ($($method:ident)*) => {
        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            visitor.visit_newtype_struct(self)
        }

        serde::forward_to_deserialize_any! { $($method)* }
    };
}
pub(crate) use newtype_then_any;

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Plain {
        customer_id: String,
        created_at: u64,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Wrapper(Plain);

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Clash {
        user_id: String,
        #[serde(rename = "userId")]
        other: String,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    enum NotAStruct {
        A,
    }

    #[test]
    fn captures_struct_and_newtype_fields() {
        let t = field_table::<Plain>(NamingConvention::CamelCase)
            .unwrap()
            .unwrap();
        assert_eq!(t.field_for("customerId"), Some("customer_id"));
        assert_eq!(t.field_for("customer_id"), None);
        let t = field_table::<Wrapper>(NamingConvention::AsIs)
            .unwrap()
            .unwrap();
        assert_eq!(t.field_for("created_at"), Some("created_at"));
        assert!(
            field_table::<NotAStruct>(NamingConvention::AsIs)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn clashing_names_are_an_error() {
        let err = field_table::<Clash>(NamingConvention::CamelCase).unwrap_err();
        assert_eq!(
            err.to_string(),
            "attribute `userId` is the camelCase name of both fields `userId` and `user_id`"
        );
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Mixed {
        a: u8,
        b: u8,
        ab: u8,
        ba: u8,
        status: u8,
        totals: u8,
        tracking_number: u8,
        #[serde(rename = "")]
        empty: u8,
        #[serde(rename = "héllo")]
        accented: u8,
    }

    /// The length-indexed lookup finds exactly the names a scan of every
    /// field finds: same lengths, other lengths, longer than any field,
    /// empty, and multi-byte names.
    #[test]
    fn lookup_agrees_with_a_scan_of_every_field() {
        for naming in [NamingConvention::AsIs, NamingConvention::CamelCase] {
            let t = field_table::<Mixed>(naming).unwrap().unwrap();
            let all: Vec<(&'static str, String)> =
                t.fields().map(|(f, s)| (f, s.to_owned())).collect();
            let mut probes: Vec<String> = all.iter().map(|(_, s)| s.clone()).collect();
            probes.extend(
                [
                    "",
                    "c",
                    "aa",
                    "abc",
                    "statuz",
                    "trackingNumber",
                    "tracking_number",
                    "tracking_numbers",
                    "héllo",
                    "hello",
                    "a-very-long-name-longer-than-any-field",
                ]
                .map(String::from),
            );
            for probe in &probes {
                let scanned = all.iter().find(|(_, s)| s == probe).map(|(f, _)| *f);
                assert_eq!(t.field_for(probe), scanned, "{probe:?} under {naming:?}");
            }
            assert_eq!(t.len(), 9);
        }
    }

    /// Looking names up in declaration order gives what `stored_for` gives,
    /// whatever order the names come in: in order, with fields skipped, out
    /// of order, repeated, or not fields at all.
    #[test]
    fn in_order_lookup_agrees_with_stored_for() {
        for naming in [NamingConvention::AsIs, NamingConvention::CamelCase] {
            let t = field_table::<Mixed>(naming).unwrap().unwrap();
            let declared: Vec<&'static str> = t.in_order.iter().map(|(f, _)| *f).collect();
            let mut sequences: Vec<Vec<&'static str>> = vec![
                declared.clone(),
                declared.iter().copied().step_by(2).collect(),
                declared.iter().rev().copied().collect(),
                vec![
                    "status",
                    "status",
                    "a",
                    "no_such_field",
                    "tracking_number",
                    "b",
                ],
            ];
            sequences.push(
                declared
                    .iter()
                    .copied()
                    .skip(3)
                    .chain(["ab", "zz"])
                    .collect(),
            );
            for sequence in sequences {
                let mut position = 0;
                for field in &sequence {
                    assert_eq!(
                        t.stored_in_order(&mut position, field, naming),
                        t.stored_for(field, naming),
                        "{field} in {sequence:?} under {naming:?}"
                    );
                }
            }
        }
    }
}
