//! Map keys: attribute names are strings, read as numbers when the map's
//! key type asks for one.

use std::str::FromStr;

use serde::de::{self, IntoDeserializer, Unexpected, Visitor};

use super::SdError;

/// A map key: a string, read as `serde_dynamo` reads keys (as a string, a
/// unit variant, an integer or a boolean). Borrowed: the map keeps the key
/// to name it in the path of an error in its value.
pub(super) struct Key<'k>(pub(super) &'k str);

impl Key<'_> {
    /// The key, read as an integer of the type `visit` takes.
    fn integer<'de, T: FromStr, V: Visitor<'de>>(
        self,
        visitor: V,
        visit: impl FnOnce(V, T) -> Result<V::Value, SdError>,
    ) -> Result<V::Value, SdError> {
        match self.0.parse::<T>() {
            Ok(v) => visit(visitor, v),
            Err(_) => Err(de::Error::invalid_value(Unexpected::Str(self.0), &visitor)),
        }
    }
}

impl<'de> de::Deserializer<'de> for Key<'_> {
    type Error = SdError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        visitor.visit_str(self.0)
    }

    super::integers!();

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        match self.0 {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            _ => Err(de::Error::invalid_value(Unexpected::Str(self.0), &visitor)),
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
