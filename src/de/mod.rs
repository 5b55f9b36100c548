//! Deserialization of an entity's attributes with attribute paths in errors,
//! at (nearly) the cost of plain `serde_dynamo`.
//!
//! The top level is our own `MapAccess`: it hands each attribute to the
//! entity under its field name (undoing the naming convention without
//! rebuilding the map) and remembers which attribute it is on, so a failure in
//! a scalar attribute is located for free. Below the top level, [`Value`]
//! walks lists and maps itself so every failure says what was expected and
//! what was found, and where: each level records its step only when its
//! element fails (`path.rs`), so a read that succeeds copies no key.
//!
//! - `mod.rs`: the top level, [`from_fields`], and why it failed
//!   ([`FieldsError`]: a missing field is told apart from serde's other
//!   errors by serde's own `missing_field` call, not by its message).
//! - `value.rs`: [`Value`], the deserializer for one attribute value.
//! - `key.rs`: map keys (strings, read as numbers when asked).
//! - `path.rs`: the path of a failure below the top level, recorded on the
//!   way out.

use std::cell::Cell;
use std::fmt;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};

use crate::fields::{FieldTable, newtype_then_any};
use crate::item::Item;

mod key;
mod path;
#[cfg(test)]
mod tests;
mod value;

pub(crate) use path::{clear as clear_failed_path, take as take_failed_path};
pub(crate) use value::Value;

/// The integer `deserialize_*` methods of a deserializer (a value, a map
/// key): each hands the `visit_*` method of its type to the deserializer's
/// own `integer`, which reads the integer or says why not.
macro_rules! integers {
    () => {
        $crate::de::integers! {
            deserialize_i8 => visit_i8,
            deserialize_i16 => visit_i16,
            deserialize_i32 => visit_i32,
            deserialize_i64 => visit_i64,
            deserialize_i128 => visit_i128,
            deserialize_u8 => visit_u8,
            deserialize_u16 => visit_u16,
            deserialize_u32 => visit_u32,
            deserialize_u64 => visit_u64,
            deserialize_u128 => visit_u128,
        }
    };
    ($($method:ident => $visit:ident,)*) => {$(
        fn $method<V: ::serde::de::Visitor<'de>>(
            self,
            visitor: V,
        ) -> Result<V::Value, $crate::de::SdError> {
            self.integer(visitor, V::$visit)
        }
    )*};
}
use integers;

/// The error of the value deserializer: `serde_dynamo`'s, so messages read
/// as they always have.
type SdError = serde_dynamo::Error;

/// Why [`from_fields`] failed.
#[derive(Debug)]
pub(crate) enum FieldsError {
    /// A field the entity requires has no attribute: serde called
    /// `missing_field` with the field's name (as the entity spells it).
    MissingField(&'static str),
    /// Anything else, with the attribute path when known.
    Other(SdError, Option<String>),
}

/// The top level's own error type: serde's `missing_field` is kept as what
/// it is instead of being turned into text, so the mapper can report the
/// missing attribute by its stored name without reading a message.
#[derive(Debug)]
enum TopError {
    MissingField(&'static str),
    Other(SdError),
}

impl fmt::Display for TopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TopError::MissingField(field) => write!(f, "missing field `{field}`"),
            TopError::Other(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for TopError {}

impl de::Error for TopError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        TopError::Other(SdError::custom(msg))
    }

    fn missing_field(field: &'static str) -> Self {
        TopError::MissingField(field)
    }
}

impl From<SdError> for TopError {
    fn from(e: SdError) -> Self {
        TopError::Other(e)
    }
}

/// An attribute that is a field of the entity: the field's name (as the
/// entity spells it), the attribute's stored name and its value.
type Field = (&'static str, String, AttributeValue);

/// Deserializes `T` from the attributes of `item` that are fields of
/// `table`, its field table, taking each out of `item` as the deserializer
/// asks for it, paired with its field's name; what stays in `item` is the
/// rest. One pass and nothing hashed again: the fields leave the map in
/// place, nothing is collected first, and the rest stays where it is. A
/// field the entity's `Deserialize` did not ask for (one that stops early)
/// is taken out all the same, so after a successful read the rest holds no
/// field (after a failed one, the fields not yet read stay in it).
///
/// # Errors
/// [`FieldsError::MissingField`] for a required field without an attribute;
/// else `serde_dynamo`'s error and the attribute path, when known.
pub(crate) fn from_fields<T>(item: &mut Item, table: &FieldTable) -> Result<T, FieldsError>
where
    T: de::DeserializeOwned,
{
    // `extract_if` yields an entry right after its predicate accepted it,
    // so the name the predicate found is the yielded entry's.
    let found = Cell::new("");
    let fields = item
        .extract_if(|stored, _| table.field_for(stored).map(|f| found.set(f)).is_some())
        .map(|(stored, value)| (found.get(), stored, value));
    let mut access = TopLevel {
        iter: fields,
        pending: None,
        current: None,
        nested: None,
    };
    match T::deserialize(TopLevelDeserializer(&mut access)) {
        Ok(t) => {
            access.iter.for_each(drop);
            Ok(t)
        }
        Err(TopError::MissingField(field)) => Err(FieldsError::MissingField(field)),
        Err(TopError::Other(e)) => {
            let path = access.current.map(|top| match access.nested.as_deref() {
                None | Some(".") | Some("") => top,
                Some(n) if n.starts_with('[') => format!("{top}{n}"),
                Some(n) => format!("{top}.{n}"),
            });
            Err(FieldsError::Other(e, path))
        }
    }
}

struct TopLevel<I> {
    iter: I,
    pending: Option<AttributeValue>,
    /// Stored name of the attribute being deserialized.
    current: Option<String>,
    /// Path inside it, when the failure was nested.
    nested: Option<String>,
}

impl<'de, I: Iterator<Item = Field>> MapAccess<'de> for TopLevel<I> {
    type Error = TopError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((field, stored, value)) = self.iter.next() else {
            self.current = None;
            return Ok(None);
        };
        self.pending = Some(value);
        self.current = Some(stored);
        let field: de::value::StrDeserializer<'_, TopError> = field.into_deserializer();
        seed.deserialize(field).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let Some(value) = self.pending.take() else {
            return Err(de::Error::custom("value requested before key"));
        };
        let nested = matches!(
            value,
            AttributeValue::L(_)
                | AttributeValue::M(_)
                | AttributeValue::Ss(_)
                | AttributeValue::Ns(_)
                | AttributeValue::Bs(_)
        );
        let de = Value::attribute(value);
        if !nested {
            return Ok(seed.deserialize(de)?);
        }
        path::clear();
        let result = seed.deserialize(de);
        if result.is_err() {
            self.nested = Some(path::take());
        }
        Ok(result?)
    }
}

struct TopLevelDeserializer<'a, I>(&'a mut TopLevel<I>);

impl<'de, I: Iterator<Item = Field>> de::Deserializer<'de> for TopLevelDeserializer<'_, I> {
    type Error = TopError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(self.0)
    }

    newtype_then_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}
