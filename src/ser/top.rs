//! The top level of a struct entity: each field serialized under its
//! stored attribute name (the naming convention applied through the field
//! table) straight into the item, in one pass.

use std::fmt;

use serde::Serialize;
use serde::ser::{self, Impossible};

use super::NoneAs;
use super::SerError;
use super::held::{Held, HeldValue};
use super::value::ValueSerializer;
use crate::fields::FieldTable;
use crate::item::Item;
use crate::naming::NamingConvention;

pub(super) struct TopLevel<'t, 'h, 'w> {
    pub(super) table: Option<&'t FieldTable>,
    pub(super) naming: NamingConvention,
    pub(super) none: NoneAs,
    /// Room for the attributes added after the fields (keys, discriminator,
    /// ...), so the item is allocated once, never grown.
    pub(super) extra: usize,
    /// The fields kept out of the item for now.
    pub(super) held: &'h mut Held<'w>,
}

#[derive(Debug)]
pub(super) struct TopFailure(pub(super) SerError);

impl fmt::Display for TopFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl std::error::Error for TopFailure {}

impl ser::Error for TopFailure {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        TopFailure(SerError::Field(String::new(), ser::Error::custom(msg)))
    }
}

fn not_a_struct<T>() -> Result<T, TopFailure> {
    Err(TopFailure(SerError::NotAStruct))
}

pub(super) struct Fields<'t, 'h, 'w> {
    item: Item,
    table: Option<&'t FieldTable>,
    naming: NamingConvention,
    none: NoneAs,
    /// Where the next field is expected in the table's declaration order.
    position: usize,
    held: &'h mut Held<'w>,
}

impl ser::SerializeStruct for Fields<'_, '_, '_> {
    type Ok = Item;
    type Error = TopFailure;

    fn serialize_field<V: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), TopFailure> {
        let before = self.position;
        let stored = match self.table {
            Some(t) => t
                .stored_in_order(&mut self.position, key, self.naming)
                .into_owned(),
            None => self.naming.apply(key).into_owned(),
        };
        if self.held.holding() {
            // Found in declaration order exactly when the position moved
            // past it.
            if self.position == before {
                self.held.put_into(&mut self.item);
            } else if let Some(slot) = self.held.slot_of(self.position - 1) {
                let held = match ValueSerializer::attribute(self.none).field_value(value) {
                    Ok(Some(v)) => HeldValue::Value(stored, v),
                    Ok(None) => HeldValue::Absent,
                    Err(e) => return Err(TopFailure(SerError::Field(stored, e))),
                };
                self.held.hold(slot, held);
                return Ok(());
            }
        }
        ValueSerializer::attribute(self.none)
            .insert_field(&mut self.item, stored, value)
            .map_err(|(stored, e)| TopFailure(SerError::Field(stored, e)))
    }

    fn end(self) -> Result<Item, TopFailure> {
        Ok(self.item)
    }
}

macro_rules! unsupported {
    ($($name:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<$ret, TopFailure> { not_a_struct() })*
    };
}

impl<'t, 'h, 'w> ser::Serializer for TopLevel<'t, 'h, 'w> {
    type Ok = Item;
    type Error = TopFailure;
    type SerializeSeq = Impossible<Item, TopFailure>;
    type SerializeTuple = Impossible<Item, TopFailure>;
    type SerializeTupleStruct = Impossible<Item, TopFailure>;
    type SerializeTupleVariant = Impossible<Item, TopFailure>;
    type SerializeMap = Impossible<Item, TopFailure>;
    type SerializeStruct = Fields<'t, 'h, 'w>;
    type SerializeStructVariant = Impossible<Item, TopFailure>;

    fn serialize_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Fields<'t, 'h, 'w>, TopFailure> {
        Ok(Fields {
            item: Item::with_capacity(len + self.extra),
            table: self.table,
            naming: self.naming,
            none: self.none,
            position: 0,
            held: self.held,
        })
    }

    fn serialize_newtype_struct<V: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &V,
    ) -> Result<Item, TopFailure> {
        value.serialize(self)
    }

    fn serialize_some<V: Serialize + ?Sized>(self, _value: &V) -> Result<Item, TopFailure> {
        not_a_struct()
    }

    fn serialize_newtype_variant<V: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &V,
    ) -> Result<Item, TopFailure> {
        not_a_struct()
    }

    unsupported! {
        serialize_bool(bool) -> Item;
        serialize_i8(i8) -> Item;
        serialize_i16(i16) -> Item;
        serialize_i32(i32) -> Item;
        serialize_i64(i64) -> Item;
        serialize_i128(i128) -> Item;
        serialize_u8(u8) -> Item;
        serialize_u16(u16) -> Item;
        serialize_u32(u32) -> Item;
        serialize_u64(u64) -> Item;
        serialize_u128(u128) -> Item;
        serialize_f32(f32) -> Item;
        serialize_f64(f64) -> Item;
        serialize_char(char) -> Item;
        serialize_str(&str) -> Item;
        serialize_bytes(&[u8]) -> Item;
        serialize_none() -> Item;
        serialize_unit() -> Item;
        serialize_unit_struct(&'static str) -> Item;
        serialize_unit_variant(&'static str, u32, &'static str) -> Item;
        serialize_seq(Option<usize>) -> Impossible<Item, TopFailure>;
        serialize_tuple(usize) -> Impossible<Item, TopFailure>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<Item, TopFailure>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<Item, TopFailure>;
        serialize_map(Option<usize>) -> Impossible<Item, TopFailure>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<Item, TopFailure>;
    }
}
