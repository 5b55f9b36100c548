//! Serialization of a struct entity straight into an item under its stored
//! attribute names, so a naming convention costs no second pass over the map.

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;
use serde::ser::{self, Impossible, SerializeStruct};

use crate::fields::FieldTable;
use crate::item::Item;
use crate::naming::NamingConvention;

/// Why [`to_item`] did not produce an item.
pub(crate) enum SerError {
    /// The entity is not a plain struct: use the general path.
    NotAStruct,
    /// Serializing the field (stored name) failed.
    Field(String, serde_dynamo::Error),
}

/// Serializes a struct entity into an item, naming each top-level attribute
/// by the field table and convention.
pub(crate) fn to_item<T: Serialize + ?Sized>(
    value: &T,
    table: Option<&FieldTable>,
    naming: NamingConvention,
) -> Result<Item, SerError> {
    match value.serialize(TopLevel { table, naming }) {
        Ok(item) => Ok(item),
        Err(Failure(e)) => Err(e),
    }
}

struct TopLevel<'t> {
    table: Option<&'t FieldTable>,
    naming: NamingConvention,
}

#[derive(Debug)]
struct Failure(SerError);

impl std::fmt::Debug for SerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SerError::NotAStruct => f.write_str("not a struct"),
            SerError::Field(name, e) => write!(f, "{name}: {e}"),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl std::error::Error for Failure {}

impl ser::Error for Failure {
    fn custom<M: std::fmt::Display>(msg: M) -> Self {
        Failure(SerError::Field(
            String::new(),
            <serde_dynamo::Error as ser::Error>::custom(msg),
        ))
    }
}

fn not_a_struct<T>() -> Result<T, Failure> {
    Err(Failure(SerError::NotAStruct))
}

struct Fields<'t> {
    item: Item,
    table: Option<&'t FieldTable>,
    naming: NamingConvention,
}

impl SerializeStruct for Fields<'_> {
    type Ok = Item;
    type Error = Failure;

    fn serialize_field<V: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), Failure> {
        let stored = match self.table {
            Some(t) => t.stored_for(key, self.naming).into_owned(),
            None => self.naming.apply(key).into_owned(),
        };
        match serde_dynamo::to_attribute_value::<_, AttributeValue>(value) {
            Ok(v) => {
                self.item.insert(stored, v);
                Ok(())
            }
            Err(e) => Err(Failure(SerError::Field(stored, e))),
        }
    }

    fn end(self) -> Result<Item, Failure> {
        Ok(self.item)
    }
}

macro_rules! unsupported {
    ($($name:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<$ret, Failure> { not_a_struct() })*
    };
}

impl<'t> ser::Serializer for TopLevel<'t> {
    type Ok = Item;
    type Error = Failure;
    type SerializeSeq = Impossible<Item, Failure>;
    type SerializeTuple = Impossible<Item, Failure>;
    type SerializeTupleStruct = Impossible<Item, Failure>;
    type SerializeTupleVariant = Impossible<Item, Failure>;
    type SerializeMap = Impossible<Item, Failure>;
    type SerializeStruct = Fields<'t>;
    type SerializeStructVariant = Impossible<Item, Failure>;

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Fields<'t>, Failure> {
        Ok(Fields {
            item: Item::with_capacity(len + 8),
            table: self.table,
            naming: self.naming,
        })
    }

    fn serialize_newtype_struct<V: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &V,
    ) -> Result<Item, Failure> {
        value.serialize(self)
    }

    fn serialize_some<V: Serialize + ?Sized>(self, _value: &V) -> Result<Item, Failure> {
        not_a_struct()
    }

    fn serialize_newtype_variant<V: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &V,
    ) -> Result<Item, Failure> {
        not_a_struct()
    }

    unsupported! {
        serialize_bool(bool) -> Item;
        serialize_i8(i8) -> Item;
        serialize_i16(i16) -> Item;
        serialize_i32(i32) -> Item;
        serialize_i64(i64) -> Item;
        serialize_u8(u8) -> Item;
        serialize_u16(u16) -> Item;
        serialize_u32(u32) -> Item;
        serialize_u64(u64) -> Item;
        serialize_f32(f32) -> Item;
        serialize_f64(f64) -> Item;
        serialize_char(char) -> Item;
        serialize_str(&str) -> Item;
        serialize_bytes(&[u8]) -> Item;
        serialize_none() -> Item;
        serialize_unit() -> Item;
        serialize_unit_struct(&'static str) -> Item;
        serialize_unit_variant(&'static str, u32, &'static str) -> Item;
        serialize_seq(Option<usize>) -> Impossible<Item, Failure>;
        serialize_tuple(usize) -> Impossible<Item, Failure>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<Item, Failure>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<Item, Failure>;
        serialize_map(Option<usize>) -> Impossible<Item, Failure>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<Item, Failure>;
    }
}
