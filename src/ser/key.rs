//! Map keys: attribute names are strings; numbers, chars and unit variants
//! are written as their text, anything else (a sequence, a map, bytes) is an
//! error naming what the key was.

use std::fmt;

use serde::Serialize;
use serde::ser::{self, Impossible};

use super::failure::{Failure, MAX_SERDE_DEPTH};

/// A map key as `serde_dynamo` writes it: a string, an integer, a boolean,
/// a character or a unit variant (also inside a newtype); anything else is
/// an error naming what the key was.
pub(super) fn map_key<T: Serialize + ?Sized>(key: &T) -> Result<String, Failure> {
    key.serialize(KeySerializer(0)).map_err(|BadKey(what)| {
        ser::Error::custom(format!(
            "a map key is {what}; map keys must be strings, integers, booleans, characters \
             or unit variants"
        ))
    })
}

/// Serializes a map key; counts the newtypes it is inside.
struct KeySerializer(usize);

#[derive(Debug)]
struct BadKey(&'static str);

impl fmt::Display for BadKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for BadKey {}

impl ser::Error for BadKey {
    fn custom<M: fmt::Display>(_msg: M) -> Self {
        BadKey("not a string")
    }
}

macro_rules! key_ok {
    ($($name:ident($ty:ty);)*) => {
        $(fn $name(self, v: $ty) -> Result<String, BadKey> { Ok(v.to_string()) })*
    };
}

macro_rules! key_bad {
    ($($name:ident($($ty:ty),*) -> $ret:ty = $what:literal;)*) => {
        $(fn $name(self, $(_: $ty),*) -> Result<$ret, BadKey> { Err(BadKey($what)) })*
    };
}

impl ser::Serializer for KeySerializer {
    type Ok = String;
    type Error = BadKey;
    type SerializeSeq = Impossible<String, BadKey>;
    type SerializeTuple = Impossible<String, BadKey>;
    type SerializeTupleStruct = Impossible<String, BadKey>;
    type SerializeTupleVariant = Impossible<String, BadKey>;
    type SerializeMap = Impossible<String, BadKey>;
    type SerializeStruct = Impossible<String, BadKey>;
    type SerializeStructVariant = Impossible<String, BadKey>;

    key_ok! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_i128(i128);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_u128(u128);
        serialize_char(char);
        serialize_str(&str);
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<String, BadKey> {
        Ok(variant.to_owned())
    }

    key_bad! {
        serialize_f32(f32) -> String = "a floating-point number";
        serialize_f64(f64) -> String = "a floating-point number";
        serialize_bytes(&[u8]) -> String = "bytes";
        serialize_none() -> String = "an option";
        serialize_unit() -> String = "a unit";
        serialize_unit_struct(&'static str) -> String = "a unit struct";
        serialize_seq(Option<usize>) -> Impossible<String, BadKey> = "a sequence";
        serialize_tuple(usize) -> Impossible<String, BadKey> = "a tuple";
        serialize_tuple_struct(&'static str, usize) -> Impossible<String, BadKey> = "a tuple struct";
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<String, BadKey> = "an enum variant with fields";
        serialize_map(Option<usize>) -> Impossible<String, BadKey> = "a map";
        serialize_struct(&'static str, usize) -> Impossible<String, BadKey> = "a struct";
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<String, BadKey> = "an enum variant with fields";
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<String, BadKey> {
        Err(BadKey("an option"))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<String, BadKey> {
        // A newtype of a newtype of … a key: bounded like values are.
        if self.0 >= MAX_SERDE_DEPTH {
            return Err(BadKey("a newtype nested too deep"));
        }
        value.serialize(KeySerializer(self.0 + 1))
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<String, BadKey> {
        Err(BadKey("an enum variant with fields"))
    }
}
