//! Deserialization of an entity's attributes with attribute paths in errors,
//! at (nearly) the cost of plain `serde_dynamo`.
//!
//! The top level is our own `MapAccess`: it hands each attribute to the
//! entity under its field name (undoing the naming convention without
//! rebuilding the map) and remembers which attribute it is on, so a failure in
//! a scalar attribute is located for free. Only list and map attributes, where
//! a failure can sit deeper, go through `serde_path_to_error`.

use std::collections::hash_map;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};

use crate::fields::FieldTable;
use crate::item::Item;

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
        let nested = matches!(value, AttributeValue::L(_) | AttributeValue::M(_));
        let de = serde_dynamo::Deserializer::from_attribute_value(value.into());
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
