//! Map keys: attribute names are strings, read as numbers when the map's
//! key type asks for one.

use serde::de::{self, IntoDeserializer, Unexpected, Visitor};

use super::SdError;

/// A map key: a string, read as `serde_dynamo` reads keys (as a string, a
/// unit variant, an integer or a boolean). Borrowed: the map keeps the key
/// to name it in the path of an error in its value.
pub(super) struct Key<'k>(pub(super) &'k str);

macro_rules! integer_key {
    ($($method:ident => $visit:ident: $ty:ty,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
            match self.0.parse::<$ty>() {
                Ok(v) => visitor.$visit(v),
                Err(_) => Err(de::Error::invalid_value(Unexpected::Str(self.0), &visitor)),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key<'_> {
    type Error = SdError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SdError> {
        visitor.visit_str(self.0)
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
