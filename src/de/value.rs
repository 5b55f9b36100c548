//! [`Value`]: the deserializer for one attribute value, on the SDK's own
//! type, with what was expected and what was found in every error.

use std::collections::{HashMap, hash_map};
use std::str::FromStr;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::{
    self, DeserializeSeed, EnumAccess, Expected, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, VariantAccess, Visitor,
};

use super::SdError;
use super::key::Key;
use super::path::{self, Step};
use crate::item::{Item, MAX_NESTING, read_float, type_name};

/// A deserializer for one attribute value, on the SDK's own type (no
/// conversion into `serde_dynamo`'s): `serde_dynamo`'s behaviour, with every
/// value of the wrong type or out of range, at any depth, reported with
/// what was expected and what was found (`invalid type: a string (S) "two",
/// expected u32`) rather than `serde_dynamo`'s bare `Expected num`.
///
/// Differences from `serde_dynamo`, all on purpose: numbers are read into
/// `i128`/`u128`; a number is read into `f32`/`f64` only when no digit is
/// lost (see [`read_float`]), also for self-describing targets (integers are
/// read exactly there); members of a set are read as values of their type
/// are; a value the entity ignores is not looked at (`serde_dynamo` fails on
/// a malformed number or a `NULL` of `false` there); lists and maps nested
/// more than [`MAX_NESTING`] deep are an error (reading recurses; the
/// mapper checks depth first, this bounds it again for items a hook
/// changed); a value of a type this SDK version does not know is an error,
/// not a panic.
pub(crate) struct Value {
    value: AttributeValue,
    /// How deep `value` is: a top-level attribute's own value is 1.
    depth: usize,
}

impl Value {
    /// The value of a top-level attribute.
    pub(crate) fn attribute(value: AttributeValue) -> Self {
        Value { value, depth: 1 }
    }

    /// A whole item, as one map (for entities that are not plain structs).
    pub(crate) fn item(item: Item) -> Self {
        Value {
            value: AttributeValue::M(item),
            depth: 0,
        }
    }

    /// A number, read as an integer of the type `visit` takes (as
    /// `serde_dynamo` reads it: the number string parsed as that type).
    fn integer<'de, T: FromStr, V: Visitor<'de>>(
        self,
        visitor: V,
        visit: impl FnOnce(V, T) -> Result<V::Value, SdError>,
    ) -> Result<V::Value, SdError> {
        match self.value {
            AttributeValue::N(ref n) => match n.parse::<T>() {
                Ok(v) => visit(visitor, v),
                Err(_) => Err(invalid_value(&self.value, &visitor)),
            },
            ref other => Err(invalid_type(other, &visitor)),
        }
    }

    /// A number, read as a float by `read` (which says what was expected
    /// when a digit would be lost).
    fn float<'de, T, V: Visitor<'de>>(
        self,
        visitor: V,
        read: impl FnOnce(&str) -> Result<T, String>,
        visit: impl FnOnce(V, T) -> Result<V::Value, SdError>,
    ) -> Result<V::Value, SdError> {
        match self.value {
            AttributeValue::N(ref n) => match read(n) {
                Ok(v) => visit(visitor, v),
                Err(expected) => Err(invalid_value(&self.value, &expected.as_str())),
            },
            ref other => Err(invalid_type(other, &visitor)),
        }
    }
}

/// The error for a list or map nested too deep.
fn too_deep() -> SdError {
    de::Error::custom(format!(
        "lists and maps nest {} or more levels deep; DynamoDB allows {MAX_NESTING}",
        MAX_NESTING + 1
    ))
}

/// What a value is, for an error message: its type and, for scalars, the
/// value itself (long values cut).
fn describe(value: &AttributeValue) -> String {
    fn cut(s: &str) -> &str {
        match s.char_indices().nth(64) {
            Some((end, _)) => &s[..end],
            None => s,
        }
    }
    match value {
        AttributeValue::S(s) if s.chars().count() > 64 => format!("a string (S) {:?}…", cut(s)),
        AttributeValue::S(s) => format!("a string (S) {s:?}"),
        AttributeValue::N(n) if n.chars().count() > 64 => format!("a number (N) {}…", cut(n)),
        AttributeValue::N(n) => format!("a number (N) {n}"),
        AttributeValue::Bool(b) => format!("a boolean (BOOL) {b}"),
        AttributeValue::Null(true) => "null (NULL)".into(),
        AttributeValue::Null(false) => "null (NULL) false".into(),
        other => type_name(other).into(),
    }
}

fn invalid_type(value: &AttributeValue, expected: &dyn Expected) -> SdError {
    de::Error::invalid_type(Unexpected::Other(&describe(value)), expected)
}

fn invalid_value(value: &AttributeValue, expected: &dyn Expected) -> SdError {
    de::Error::invalid_value(Unexpected::Other(&describe(value)), expected)
}

/// Methods that read as another does.
macro_rules! read_as {
    ($($method:ident($($arg:ty),*) => $other:ident,)*) => {$(
        fn $method<V: Visitor<'de>>(self, $(_: $arg,)* visitor: V) -> Result<V::Value, SdError> {
            self.$other(visitor)
        }
    )*};
}

/// Methods that take one type of attribute value (any other is an invalid
/// type): its pattern, and what the visitor is given.
macro_rules! one_type {
    ($($method:ident: $type:ident $fields:tt => $visit:ident($($arg:expr)?),)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
            match self.value {
                AttributeValue::$type $fields => visitor.$visit($($arg)?),
                other => Err(invalid_type(&other, &visitor)),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Value {
    type Error = SdError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        match self.value {
            AttributeValue::L(_)
            | AttributeValue::Ss(_)
            | AttributeValue::Ns(_)
            | AttributeValue::Bs(_) => self.deserialize_seq(visitor),
            AttributeValue::M(_) => self.deserialize_map(visitor),
            AttributeValue::S(s) => visitor.visit_string(s),
            AttributeValue::B(b) => visitor.visit_byte_buf(b.into_inner()),
            AttributeValue::Bool(b) => visitor.visit_bool(b),
            AttributeValue::Null(true) => visitor.visit_unit(),
            AttributeValue::N(ref n) => {
                // Integers exactly (`serde_dynamo` reads those beyond 64
                // bits as floats), other numbers as `f64` when no digit
                // is lost.
                if let Ok(v) = n.parse::<i64>() {
                    visitor.visit_i64(v)
                } else if let Ok(v) = n.parse::<u64>() {
                    visitor.visit_u64(v)
                } else if let Ok(v) = n.parse::<i128>() {
                    visitor.visit_i128(v)
                } else if let Ok(v) = n.parse::<u128>() {
                    visitor.visit_u128(v)
                } else {
                    self.float(visitor, read_float, V::visit_f64)
                }
            }
            ref other => Err(invalid_type(other, &visitor)),
        }
    }

    super::integers!();

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        self.float(visitor, read_float, V::visit_f32)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        self.float(visitor, read_float, V::visit_f64)
    }

    one_type! {
        deserialize_bool: Bool(b) => visit_bool(b),
        deserialize_string: S(s) => visit_string(s),
        deserialize_bytes: B(b) => visit_byte_buf(b.into_inner()),
        deserialize_unit: Null(true) => visit_unit(),
    }

    read_as! {
        deserialize_str() => deserialize_string,
        deserialize_identifier() => deserialize_string,
        deserialize_byte_buf() => deserialize_bytes,
        deserialize_unit_struct(&'static str) => deserialize_unit,
        deserialize_tuple(usize) => deserialize_seq,
        deserialize_tuple_struct(&'static str, usize) => deserialize_seq,
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        match self.value {
            AttributeValue::S(ref s) => {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => visitor.visit_char(c),
                    _ => Err(invalid_value(&self.value, &visitor)),
                }
            }
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        match self.value {
            AttributeValue::Null(true) => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, SdError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        let depth = self.depth + 1;
        match self.value {
            AttributeValue::L(_) if self.depth > MAX_NESTING => Err(too_deep()),
            AttributeValue::L(list) => visitor.visit_seq(Seq::new(list.into_iter(), depth)),
            // A set's members, each read as a value of its type.
            AttributeValue::Ss(set) => {
                visitor.visit_seq(Seq::new(set.into_iter().map(AttributeValue::S), depth))
            }
            AttributeValue::Ns(set) => {
                visitor.visit_seq(Seq::new(set.into_iter().map(AttributeValue::N), depth))
            }
            // As `serde_dynamo` (its members read as bytes by whatever asks,
            // a string included); converting a set does not recurse.
            AttributeValue::Bs(set) => serde_dynamo::Deserializer::from_attribute_value(
                serde_dynamo::AttributeValue::from(AttributeValue::Bs(set)),
            )
            .deserialize_seq(visitor),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        let depth = self.depth + 1;
        match self.value {
            AttributeValue::M(_) if self.depth > MAX_NESTING => Err(too_deep()),
            AttributeValue::M(map) => visitor.visit_map(Map {
                iter: map.into_iter(),
                key: None,
                value: None,
                depth,
                base: path::mark(),
            }),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, SdError> {
        // As `serde_dynamo`: a struct from a map, or from a list (in order).
        match self.value {
            AttributeValue::L(_) => self.deserialize_seq(visitor),
            _ => self.deserialize_map(visitor),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, SdError> {
        let depth = self.depth + 1;
        match self.value {
            AttributeValue::M(_) if self.depth > MAX_NESTING => Err(too_deep()),
            // A unit variant is its name; any other variant a map of one entry.
            AttributeValue::S(s) => visitor.visit_enum(s.into_deserializer()),
            AttributeValue::M(map) if map.len() == 1 => visitor.visit_enum(Enum { map, depth }),
            AttributeValue::M(map) => Err(de::Error::invalid_length(
                map.len(),
                &"a map with one entry, the enum variant",
            )),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    /// A value the entity ignores (a map key it has no field for) is not
    /// looked at: nothing in it can fail the read.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        visitor.visit_unit()
    }
}

/// The elements of a list (or the members of a set).
struct Seq<I> {
    iter: I,
    /// Depth of the elements.
    depth: usize,
    /// Index of the next element, for the path of an error.
    index: usize,
    /// The steps recorded when the list was opened: what an element's
    /// recovered failure recorded beyond them is dropped.
    base: usize,
}

impl<I> Seq<I> {
    /// The elements `iter` yields, of depth `depth`, from the first.
    fn new(iter: I, depth: usize) -> Self {
        Seq {
            iter,
            depth,
            index: 0,
            base: path::mark(),
        }
    }
}

impl<'de, I: ExactSizeIterator<Item = AttributeValue>> SeqAccess<'de> for Seq<I> {
    type Error = SdError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, SdError> {
        let Some(value) = self.iter.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        let value = Value {
            value,
            depth: self.depth,
        };
        path::element(self.base, || seed.deserialize(value), || Step::Index(index)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// The entries of a map.
struct Map {
    iter: hash_map::IntoIter<String, AttributeValue>,
    /// The key of the entry being read, for the path of an error.
    key: Option<String>,
    value: Option<AttributeValue>,
    /// Depth of the values.
    depth: usize,
    /// The steps recorded when the map was opened (see [`Seq`]).
    base: usize,
}

impl<'de> MapAccess<'de> for Map {
    type Error = SdError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, SdError> {
        match self.iter.next() {
            Some((key, value)) => {
                self.value = Some(value);
                let key = self.key.insert(key);
                seed.deserialize(Key(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, SdError> {
        let Some(value) = self.value.take() else {
            return Err(de::Error::custom("value requested before key"));
        };
        let value = Value {
            value,
            depth: self.depth,
        };
        let key = &mut self.key;
        path::element(
            self.base,
            || seed.deserialize(value),
            || Step::Key(key.take().unwrap_or_default()),
        )
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An enum variant other than a unit variant: a map of one entry.
struct Enum {
    map: HashMap<String, AttributeValue>,
    /// Depth of the variant's value.
    depth: usize,
}

impl<'de> EnumAccess<'de> for Enum {
    type Error = SdError;
    type Variant = Variant;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Variant), SdError> {
        let Some((name, value)) = self.map.into_iter().next() else {
            return Err(de::Error::invalid_length(
                0,
                &"a map with one entry, the enum variant",
            ));
        };
        let variant = seed.deserialize(name.as_str().into_deserializer())?;
        Ok((
            variant,
            Variant {
                name,
                value: Value {
                    value,
                    depth: self.depth,
                },
            },
        ))
    }
}

/// A variant's content, and its name for the path of an error in it.
struct Variant {
    name: String,
    value: Value,
}

impl Variant {
    /// `read`'s result; on failure the variant's name is a step of the path.
    fn named<T>(name: String, read: Result<T, SdError>) -> Result<T, SdError> {
        read.inspect_err(|_| path::record(Step::Key(name)))
    }
}

impl<'de> VariantAccess<'de> for Variant {
    type Error = SdError;

    fn unit_variant(self) -> Result<(), SdError> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, SdError> {
        Variant::named(self.name, seed.deserialize(self.value))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, SdError> {
        Variant::named(
            self.name,
            de::Deserializer::deserialize_seq(self.value, visitor),
        )
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, SdError> {
        Variant::named(
            self.name,
            de::Deserializer::deserialize_map(self.value, visitor),
        )
    }
}
