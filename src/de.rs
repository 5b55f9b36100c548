//! Deserialization of an entity's attributes with attribute paths in errors,
//! at (nearly) the cost of plain `serde_dynamo`.
//!
//! The top level is our own `MapAccess`: it hands each attribute to the
//! entity under its field name (undoing the naming convention without
//! rebuilding the map) and remembers which attribute it is on, so a failure in
//! a scalar attribute is located for free. Only lists, maps and sets, where
//! a failure can sit deeper, go through `serde_path_to_error`. Below the top
//! level, [`Value`] walks lists and maps itself so every failure says what
//! was expected and what was found.

use std::collections::{HashMap, hash_map};

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::{
    self, DeserializeSeed, EnumAccess, Expected, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, VariantAccess, Visitor,
};

use crate::fields::FieldTable;
use crate::item::{Item, MAX_NESTING, read_float, type_name};

/// Deserializes `T` from the attributes in `item` (all of them fields of `T`).
///
/// On error returns serde_dynamo's error and the attribute path, when known.
pub(crate) fn from_fields<T>(
    item: Item,
    table: &FieldTable,
) -> Result<T, (serde_dynamo::Error, Option<String>)>
where
    T: de::DeserializeOwned,
{
    let mut access = TopLevel {
        iter: item.into_iter(),
        table,
        pending: None,
        current: None,
        nested: None,
    };
    match T::deserialize(TopLevelDeserializer(&mut access)) {
        Ok(t) => Ok(t),
        Err(e) => {
            let path = access.current.map(|top| match access.nested.as_deref() {
                None | Some(".") | Some("") => top,
                Some(n) if n.starts_with('[') => format!("{top}{n}"),
                Some(n) => format!("{top}.{n}"),
            });
            Err((e, path))
        }
    }
}

struct TopLevel<'t> {
    iter: hash_map::IntoIter<String, AttributeValue>,
    table: &'t FieldTable,
    pending: Option<AttributeValue>,
    /// Stored name of the attribute being deserialized.
    current: Option<String>,
    /// Path inside it, when the failure was nested.
    nested: Option<String>,
}

impl<'de> MapAccess<'de> for TopLevel<'_> {
    type Error = serde_dynamo::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((stored, value)) = self.iter.next() else {
            self.current = None;
            return Ok(None);
        };
        let field = self.table.field_for(&stored).unwrap_or("");
        self.pending = Some(value);
        self.current = Some(stored);
        seed.deserialize(field.into_deserializer()).map(Some)
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
        if nested {
            let mut track = serde_path_to_error::Track::new();
            let result = seed.deserialize(serde_path_to_error::Deserializer::new(de, &mut track));
            if result.is_err() {
                self.nested = Some(track.path().to_string());
            }
            result
        } else {
            seed.deserialize(de)
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct TopLevelDeserializer<'a, 't>(&'a mut TopLevel<'t>);

impl<'de> de::Deserializer<'de> for TopLevelDeserializer<'_, '_> {
    type Error = serde_dynamo::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(self.0)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

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

    /// The error for a list or map nested too deep, if this one is.
    fn too_deep(&self) -> Option<SdError> {
        (self.depth > MAX_NESTING).then(|| {
            de::Error::custom(format!(
                "lists and maps nest {} or more levels deep; DynamoDB allows {MAX_NESTING}",
                MAX_NESTING + 1
            ))
        })
    }
}

type SdError = serde_dynamo::Error;

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

macro_rules! integer {
    ($($method:ident => $visit:ident: $ty:ty,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
            // As `serde_dynamo`: the number string parsed as the type asked for.
            match self.value {
                AttributeValue::N(ref n) => match n.parse::<$ty>() {
                    Ok(v) => visitor.$visit(v),
                    Err(_) => Err(invalid_value(&self.value, &visitor)),
                },
                ref other => Err(invalid_type(other, &visitor)),
            }
        }
    )*};
}

macro_rules! float {
    ($($method:ident => $visit:ident: $ty:ty,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
            match self.value {
                AttributeValue::N(ref n) => match read_float::<$ty>(n) {
                    Ok(v) => visitor.$visit(v),
                    Err(expected) => Err(invalid_value(&self.value, &expected.as_str())),
                },
                ref other => Err(invalid_type(other, &visitor)),
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
                    match read_float::<f64>(n) {
                        Ok(v) => visitor.visit_f64(v),
                        Err(expected) => Err(invalid_value(&self.value, &expected.as_str())),
                    }
                }
            }
            ref other => Err(invalid_type(other, &visitor)),
        }
    }

    integer! {
        deserialize_i8 => visit_i8: i8,
        deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32,
        deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128,
        deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64,
        deserialize_u128 => visit_u128: u128,
    }

    float! {
        deserialize_f32 => visit_f32: f32,
        deserialize_f64 => visit_f64: f64,
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        match self.value {
            AttributeValue::Bool(b) => visitor.visit_bool(b),
            other => Err(invalid_type(&other, &visitor)),
        }
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

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        match self.value {
            AttributeValue::S(s) => visitor.visit_string(s),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        self.deserialize_string(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        match self.value {
            AttributeValue::B(b) => visitor.visit_byte_buf(b.into_inner()),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        match self.value {
            AttributeValue::Null(true) => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        match self.value {
            AttributeValue::Null(true) => visitor.visit_unit(),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, SdError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, SdError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        if let Some(e) = self
            .too_deep()
            .filter(|_| matches!(self.value, AttributeValue::L(_)))
        {
            return Err(e);
        }
        let depth = self.depth + 1;
        match self.value {
            AttributeValue::L(list) => visitor.visit_seq(Seq {
                iter: list.into_iter(),
                depth,
            }),
            // A set's members, each read as a value of its type.
            AttributeValue::Ss(set) => visitor.visit_seq(Seq {
                iter: set.into_iter().map(AttributeValue::S),
                depth,
            }),
            AttributeValue::Ns(set) => visitor.visit_seq(Seq {
                iter: set.into_iter().map(AttributeValue::N),
                depth,
            }),
            // As `serde_dynamo` (its members read as bytes by whatever asks,
            // a string included); converting a set does not recurse.
            AttributeValue::Bs(set) => serde_dynamo::Deserializer::from_attribute_value(
                serde_dynamo::AttributeValue::from(AttributeValue::Bs(set)),
            )
            .deserialize_seq(visitor),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, SdError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, SdError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        if let Some(e) = self
            .too_deep()
            .filter(|_| matches!(self.value, AttributeValue::M(_)))
        {
            return Err(e);
        }
        let depth = self.depth + 1;
        match self.value {
            AttributeValue::M(map) => visitor.visit_map(Map {
                iter: map.into_iter(),
                value: None,
                depth,
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
        if let Some(e) = self
            .too_deep()
            .filter(|_| matches!(self.value, AttributeValue::M(_)))
        {
            return Err(e);
        }
        let depth = self.depth + 1;
        match self.value {
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
}

impl<'de, I: ExactSizeIterator<Item = AttributeValue>> SeqAccess<'de> for Seq<I> {
    type Error = SdError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, SdError> {
        match self.iter.next() {
            Some(value) => seed
                .deserialize(Value {
                    value,
                    depth: self.depth,
                })
                .map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// The entries of a map.
struct Map {
    iter: hash_map::IntoIter<String, AttributeValue>,
    value: Option<AttributeValue>,
    /// Depth of the values.
    depth: usize,
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
                seed.deserialize(Key(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, SdError> {
        match self.value.take() {
            Some(value) => seed.deserialize(Value {
                value,
                depth: self.depth,
            }),
            None => Err(de::Error::custom("value requested before key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// A map key: a string, read as `serde_dynamo` reads keys (as a string, a
/// unit variant, an integer or a boolean).
struct Key(String);

macro_rules! integer_key {
    ($($method:ident => $visit:ident: $ty:ty,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
            match self.0.parse::<$ty>() {
                Ok(v) => visitor.$visit(v),
                Err(_) => Err(de::Error::invalid_value(Unexpected::Str(&self.0), &visitor)),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key {
    type Error = SdError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        visitor.visit_string(self.0)
    }

    integer_key! {
        deserialize_i8 => visit_i8: i8,
        deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32,
        deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128,
        deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64,
        deserialize_u128 => visit_u128: u128,
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        match self.0.as_str() {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            _ => Err(de::Error::invalid_value(Unexpected::Str(&self.0), &visitor)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, SdError> {
        visitor.visit_enum(self.0.into_deserializer())
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, SdError> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        f32 f64 char str string bytes byte_buf option unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
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
    type Variant = Value;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Value), SdError> {
        let Some((name, value)) = self.map.into_iter().next() else {
            return Err(de::Error::invalid_length(
                0,
                &"a map with one entry, the enum variant",
            ));
        };
        let variant = seed.deserialize(name.into_deserializer())?;
        Ok((
            variant,
            Value {
                value,
                depth: self.depth,
            },
        ))
    }
}

impl<'de> VariantAccess<'de> for Value {
    type Error = SdError;

    fn unit_variant(self) -> Result<(), SdError> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, SdError> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, SdError> {
        de::Deserializer::deserialize_seq(self, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, SdError> {
        de::Deserializer::deserialize_map(self, visitor)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use proptest::prelude::*;
    use serde::Deserialize;
    use serde_dynamo::AttributeValue as SdValue;

    use super::*;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Unit;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Newtype(i16);

    #[derive(Debug, PartialEq, Deserialize)]
    enum Shape {
        Dot,
        Circle(u8),
        Pair(u8, String),
        Rect { w: i8, h: Option<u8> },
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Inner {
        a: u32,
        b: Option<String>,
    }

    /// Every shape of the serde data model `serde_dynamo` reads.
    #[derive(Debug, PartialEq, Deserialize)]
    struct Rich {
        s: Option<String>,
        n: Option<u64>,
        i: Option<i32>,
        f: Option<f64>,
        b: Option<bool>,
        c: Option<char>,
        e: Option<Vec<Shape>>,
        m: Option<BTreeMap<String, u16>>,
        k: Option<BTreeMap<u8, bool>>,
        bk: Option<BTreeMap<bool, String>>,
        t: Option<(u8, String)>,
        u: Option<()>,
        us: Option<Unit>,
        nt: Option<Newtype>,
        set: Option<Vec<String>>,
        nums: Option<Vec<i64>>,
        bytes: Option<Vec<u8>>,
        inner: Option<Vec<Inner>>,
        deep: Option<BTreeMap<String, Vec<Option<Inner>>>>,
        any: Option<Vec<serde::de::IgnoredAny>>,
    }

    fn ours<T: de::DeserializeOwned>(v: SdValue) -> Result<T, SdError> {
        T::deserialize(Value::attribute(v.into()))
    }

    fn theirs<T: de::DeserializeOwned>(v: SdValue) -> Result<T, SdError> {
        serde_dynamo::from_attribute_value(v)
    }

    fn s(v: &str) -> SdValue {
        SdValue::S(v.into())
    }

    fn n(v: &str) -> SdValue {
        SdValue::N(v.into())
    }

    #[test]
    fn messages_say_what_was_expected_and_found() {
        let cases: Vec<(Result<(), SdError>, &str)> = vec![
            (
                ours::<u32>(s("two")).map(drop),
                "invalid type: a string (S) \"two\", expected u32",
            ),
            (
                ours::<u8>(n("300")).map(drop),
                "invalid value: a number (N) 300, expected u8",
            ),
            (
                ours::<u64>(n("-1")).map(drop),
                "invalid value: a number (N) -1, expected u64",
            ),
            (
                ours::<String>(SdValue::Null(true)).map(drop),
                "invalid type: null (NULL), expected a string",
            ),
            (
                ours::<Vec<u8>>(SdValue::M(HashMap::new())).map(drop),
                "invalid type: a map (M), expected a sequence",
            ),
            (
                ours::<Inner>(SdValue::Bool(true)).map(drop),
                "invalid type: a boolean (BOOL) true, expected struct Inner",
            ),
            (
                ours::<Shape>(n("1")).map(drop),
                "invalid type: a number (N) 1, expected enum Shape",
            ),
            (
                ours::<Shape>(SdValue::M(HashMap::from([
                    ("Dot".to_string(), SdValue::Null(true)),
                    ("Circle".to_string(), n("1")),
                ])))
                .map(drop),
                "invalid length 2, expected a map with one entry, the enum variant",
            ),
            (
                ours::<char>(s("ab")).map(drop),
                "invalid value: a string (S) \"ab\", expected a character",
            ),
            (
                ours::<BTreeMap<u8, bool>>(SdValue::M(HashMap::from([(
                    "x".to_string(),
                    SdValue::Bool(true),
                )])))
                .map(drop),
                "invalid value: string \"x\", expected u8",
            ),
            (
                ours::<u32>(s(&"é".repeat(70)))
                    .map(drop)
                    .map_err(|e| de::Error::custom(e.to_string().replace(&"é".repeat(64), "<64>"))),
                "invalid type: a string (S) \"<64>\"…, expected u32",
            ),
        ];
        for (result, expected) in cases {
            assert_eq!(result.unwrap_err().to_string(), expected);
        }
        // What `serde_dynamo` itself answers, for comparison.
        assert_eq!(
            theirs::<u32>(s("two")).unwrap_err().to_string(),
            "Expected num"
        );
    }

    #[test]
    fn integers_of_128_bits() {
        let big = "99999999999999999999999999999999999999"; // 38 digits
        assert_eq!(ours::<u128>(n(big)).unwrap(), big.parse::<u128>().unwrap());
        assert_eq!(
            ours::<i128>(n(&format!("-{big}"))).unwrap(),
            -big.parse::<i128>().unwrap()
        );
        assert_eq!(ours::<u128>(n("18446744073709551616")).unwrap(), 1 << 64);
        assert_eq!(
            ours::<u128>(n("-1")).unwrap_err().to_string(),
            "invalid value: a number (N) -1, expected u128"
        );
        // Map keys too.
        let m = SdValue::M(HashMap::from([(big.to_string(), SdValue::Bool(true))]));
        let read: BTreeMap<u128, bool> = ours(m).unwrap();
        assert_eq!(read.keys().next().copied(), big.parse().ok());
        // A self-describing target gets the exact integer, never a float
        // that rounds it (`serde_json::Value` refuses integers past u64).
        let any: serde_json::Value = ours(n("18446744073709551615")).unwrap();
        assert_eq!(any.to_string(), "18446744073709551615");
        assert!(ours::<serde_json::Value>(n("18446744073709551616")).is_err());
        let any: serde_json::Value = theirs(n("18446744073709551616")).unwrap();
        assert_eq!(any.to_string(), "1.8446744073709552e+19");
        // `serde_dynamo` reads no 128-bit integers.
        assert!(theirs::<u128>(n("1")).is_err());
    }

    #[test]
    fn floats_are_read_only_without_rounding() {
        // Fine: decimals of up to 15 digits (f32: 6), shortest
        // representations, integers the type holds exactly.
        for (text, value) in [
            ("0.1", 0.1),
            ("-0", -0.0),
            ("0", 0.0),
            ("1.5e3", 1500.0),
            ("123456789012345", 123_456_789_012_345.0),
            ("0.30000000000000004", 0.1 + 0.2),
            ("9007199254740992", 9_007_199_254_740_992.0), // 2^53
            ("1152921504606846976", 1_152_921_504_606_846_976.0), // 2^60
            ("1e125", 1e125),
            ("1e-130", 1e-130),
            ("5e-324", 5e-324), // the smallest subnormal, exactly as written
        ] {
            assert_eq!(ours::<f64>(n(text)).unwrap(), value, "{text}");
            assert_eq!(
                ours::<f64>(n(text)).unwrap().to_bits(),
                f64::to_bits(value),
                "{text}"
            );
        }
        assert_eq!(ours::<f32>(n("0.1")).unwrap(), 0.1_f32);
        assert_eq!(ours::<f32>(n("16777216")).unwrap(), 16_777_216.0_f32);
        // Every f64 written by this crate reads back.
        for v in [f64::MAX, f64::MIN_POSITIVE, 1.0 / 3.0, -2.5e-300, 123.456] {
            assert_eq!(ours::<f64>(n(&v.to_string())).unwrap(), v);
        }
        // Refused: digits f64 does not hold.
        for (text, message) in [
            (
                "9007199254740993",
                "invalid value: a number (N) 9007199254740993, expected f64 without rounding \
                 (the nearest f64 is 9007199254740992)",
            ),
            (
                "99999999999999999999999999999999999999",
                "invalid value: a number (N) 99999999999999999999999999999999999999, expected \
                 f64 without rounding (the nearest f64 is 1e38)",
            ),
            (
                "0.12345678901234567890123",
                "invalid value: a number (N) 0.12345678901234567890123, expected f64 without \
                 rounding (the nearest f64 is 0.12345678901234568)",
            ),
            (
                "1e-400",
                "invalid value: a number (N) 1e-400, expected f64 without rounding (the nearest \
                 f64 is 0e0)",
            ),
            (
                "1e400",
                "invalid value: a number (N) 1e400, expected a number within the range of f64",
            ),
            ("NaN", "invalid value: a number (N) NaN, expected f64"),
            ("inf", "invalid value: a number (N) inf, expected f64"),
        ] {
            assert_eq!(
                ours::<f64>(n(text)).unwrap_err().to_string(),
                message,
                "{text}"
            );
        }
        assert_eq!(
            ours::<f32>(n("16777217")).unwrap_err().to_string(),
            "invalid value: a number (N) 16777217, expected f32 without rounding (the nearest \
             f32 is 16777216)"
        );
        assert!(ours::<f32>(n("1e39")).is_err());
        // In sets and self-describing targets too.
        assert!(ours::<Vec<f64>>(SdValue::Ns(vec!["9007199254740993".into()])).is_err());
        assert!(ours::<serde_json::Value>(n("0.12345678901234567890123")).is_err());
    }

    #[test]
    fn ignored_values_are_not_looked_at() {
        #[derive(Debug, Deserialize)]
        struct Small {
            a: u8,
        }
        let v = SdValue::M(HashMap::from([
            ("a".to_string(), n("1")),
            ("b".to_string(), n("not a number")),
            ("c".to_string(), SdValue::Null(false)),
        ]));
        assert_eq!(ours::<Small>(v.clone()).unwrap().a, 1);
        assert!(theirs::<Small>(v).is_err());
    }

    #[test]
    fn reads_what_serde_dynamo_reads() {
        let v = SdValue::M(HashMap::from([
            ("s".to_string(), s("x")),
            ("n".to_string(), n("7")),
            ("f".to_string(), n("1.5")),
            ("c".to_string(), s("é")),
            (
                "e".to_string(),
                SdValue::L(vec![
                    s("Dot"),
                    SdValue::M(HashMap::from([("Circle".to_string(), n("3"))])),
                    SdValue::M(HashMap::from([(
                        "Pair".to_string(),
                        SdValue::L(vec![n("1"), s("p")]),
                    )])),
                    SdValue::M(HashMap::from([(
                        "Rect".to_string(),
                        SdValue::M(HashMap::from([("w".to_string(), n("-2"))])),
                    )])),
                ]),
            ),
            (
                "k".to_string(),
                SdValue::M(HashMap::from([("5".to_string(), SdValue::Bool(true))])),
            ),
            (
                "bk".to_string(),
                SdValue::M(HashMap::from([("true".to_string(), s("yes"))])),
            ),
            ("t".to_string(), SdValue::L(vec![n("1"), s("one")])),
            ("u".to_string(), SdValue::Null(true)),
            ("nt".to_string(), n("-3")),
            ("set".to_string(), SdValue::Ss(vec!["a".into()])),
            (
                "nums".to_string(),
                SdValue::Ns(vec!["-1".into(), "2".into()]),
            ),
            (
                "bytes".to_string(),
                SdValue::Ns(vec!["1".into(), "2".into()]),
            ),
            (
                "inner".to_string(),
                SdValue::L(vec![SdValue::L(vec![n("1"), s("b")])]),
            ),
            (
                "any".to_string(),
                SdValue::L(vec![SdValue::Bs(vec![vec![1]]), n("1")]),
            ),
        ]));
        let a = ours::<Rich>(v.clone()).unwrap();
        let b = theirs::<Rich>(v).unwrap();
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert_eq!(a.e.as_ref().map(Vec::len), Some(4));
        assert_eq!(a.bytes, Some(vec![1, 2]));
        assert_eq!(a.u, None);
    }

    /// Values as `serde_dynamo` knows them; with `malformed`, also what
    /// DynamoDB never returns (`NaN` and other strings that are no number,
    /// `NULL` of `false`).
    fn value(malformed: bool) -> impl Strategy<Value = SdValue> {
        let names = prop_oneof![
            Just("s"),
            Just("n"),
            Just("i"),
            Just("f"),
            Just("b"),
            Just("c"),
            Just("e"),
            Just("m"),
            Just("k"),
            Just("bk"),
            Just("t"),
            Just("u"),
            Just("us"),
            Just("nt"),
            Just("set"),
            Just("nums"),
            Just("bytes"),
            Just("inner"),
            Just("deep"),
            Just("any"),
            Just("a"),
            Just("w"),
            Just("h"),
            Just("Dot"),
            Just("Circle"),
            Just("Pair"),
            Just("Rect"),
            Just("1"),
            Just("true"),
            Just("x"),
        ]
        .prop_map(str::to_owned);
        let numbers: &'static [&'static str] = if malformed {
            &[
                "1",
                "-3",
                "300",
                "1.5",
                "NaN",
                "1e3",
                "18446744073709551616",
                "",
                "x",
            ]
        } else {
            &[
                "1",
                "-3",
                "300",
                "1.5",
                "1e3",
                "18446744073709551616",
                "-0.25",
            ]
        };
        let null = if malformed {
            any::<bool>().boxed()
        } else {
            Just(true).boxed()
        };
        let leaf = prop_oneof![
            prop_oneof![
                Just("x"),
                Just("é"),
                Just("Dot"),
                Just("Circle"),
                Just(""),
                Just("ab")
            ]
            .prop_map(|v| SdValue::S(v.into())),
            proptest::sample::select(numbers).prop_map(|v| SdValue::N(v.into())),
            any::<bool>().prop_map(SdValue::Bool),
            null.prop_map(SdValue::Null),
            proptest::collection::vec(any::<u8>(), 0..3).prop_map(SdValue::B),
            proptest::collection::vec("[a-c1]", 0..3).prop_map(SdValue::Ss),
            proptest::collection::vec("-?[0-9]{1,3}", 0..3).prop_map(SdValue::Ns),
            proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..2), 0..2)
                .prop_map(SdValue::Bs),
        ];
        leaf.prop_recursive(4, 48, 5, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(SdValue::L),
                proptest::collection::hash_map(names.clone(), inner, 0..5).prop_map(SdValue::M),
            ]
        })
    }

    fn has_nan(v: &SdValue) -> bool {
        match v {
            SdValue::N(n) => n == "NaN",
            SdValue::L(l) => l.iter().any(has_nan),
            SdValue::M(m) => m.values().any(has_nan),
            _ => false,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// On what DynamoDB returns, the same values and the same failures
        /// as `serde_dynamo`; only the messages differ.
        #[test]
        fn same_results_as_serde_dynamo(v in value(false)) {
            let a = ours::<Rich>(v.clone()).map(|r| format!("{r:?}"));
            let b = theirs::<Rich>(v.clone()).map(|r| format!("{r:?}"));
            prop_assert_eq!(a.is_ok(), b.is_ok(), "ours {:?}, serde_dynamo {:?}", a, b);
            if let (Ok(a), Ok(b)) = (a, b) {
                prop_assert_eq!(a, b);
            }
            let a = ours::<Vec<Shape>>(v.clone()).map(|r| format!("{r:?}")).ok();
            let b = theirs::<Vec<Shape>>(v).map(|r| format!("{r:?}")).ok();
            prop_assert_eq!(a, b);
        }

        /// With malformed values too: whatever `serde_dynamo` reads is read
        /// the same, except `NaN` (no DynamoDB number; refused for a float).
        /// The other way round, malformed content the entity ignores does not
        /// fail the read here as it does in `serde_dynamo`.
        #[test]
        fn reads_what_serde_dynamo_reads_from_malformed_values(v in value(true)) {
            let b = theirs::<Rich>(v.clone()).map(|r| format!("{r:?}"));
            if let Ok(b) = b && !has_nan(&v) {
                let a = ours::<Rich>(v.clone()).map(|r| format!("{r:?}"));
                prop_assert_eq!(a.as_ref().ok(), Some(&b), "ours {:?}", a);
            }
        }
    }
}
