//! What one field of an entity serializes to, learned without an instance:
//! the entity's `Deserialize` impl is run against a deserializer that offers
//! exactly that field and records which `deserialize_*` method the field's
//! type asks for, then stops with an error. Used when a mapper is checked,
//! to tell whether a field can fill a key pattern's placeholder.

use serde::de::{self, Deserialize, DeserializeSeed, IntoDeserializer, Visitor};

/// The shape of a field's value, as its `Deserialize` impl asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A string or a character.
    Text,
    /// An unsigned integer.
    Unsigned,
    /// A signed integer.
    Signed,
    /// A boolean.
    Bool,
    /// An enum whose variants are all unit variants (serialized as their
    /// names).
    UnitEnum,
    /// A floating-point number.
    Float,
    /// Bytes.
    Bytes,
    /// A sequence, tuple, map or struct.
    Compound,
    /// An enum with a variant that holds data.
    DataEnum,
    /// `()` or a unit struct.
    Unit,
    /// A type that asks for `deserialize_any` (untagged enums, dynamic
    /// values): what it holds is not known before it is read.
    Any,
    /// The probe did not reach the field (not a plain struct).
    Unknown,
}

impl Shape {
    /// What a message says the field is.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Shape::Text => "a string",
            Shape::Unsigned => "an unsigned integer",
            Shape::Signed => "a signed integer",
            Shape::Bool => "a boolean",
            Shape::UnitEnum => "an enum of unit variants",
            Shape::Float => "a floating-point number",
            Shape::Bytes => "bytes",
            Shape::Compound => "a list, map or struct",
            Shape::DataEnum => "an enum with a variant that holds data",
            Shape::Unit => "a unit value",
            Shape::Any => "a self-describing value (deserialize_any)",
            Shape::Unknown => "of a shape that could not be probed",
        }
    }
}

/// A field's shape and whether it is optional (`Option<_>`: `None` is
/// written as NULL, or left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FieldShape {
    pub(crate) shape: Shape,
    pub(crate) optional: bool,
}

/// The shape of `T`'s field `field` (its serde name). Variants of an enum are
/// probed one by one: it is a [`Shape::UnitEnum`] only when every variant is
/// a unit variant.
pub(crate) fn field_shape<T>(field: &'static str) -> FieldShape
where
    T: for<'de> Deserialize<'de>,
{
    let mut record = probe::<T>(field, 0);
    if record.shape == Shape::UnitEnum && record.unit_variants {
        // Every other variant must be a unit variant too.
        record.unit_variants = (1..record.variants).all(|v| probe::<T>(field, v).unit_variants);
    }
    let shape = match record.shape {
        Shape::UnitEnum if !record.unit_variants => Shape::DataEnum,
        other => other,
    };
    FieldShape {
        shape,
        optional: record.optional,
    }
}

/// Runs `T`'s `Deserialize` impl against the probe for `field`, choosing
/// the variant `variant` of an enum.
fn probe<T>(field: &'static str, variant: u32) -> Record
where
    T: for<'de> Deserialize<'de>,
{
    let mut record = Record {
        shape: Shape::Unknown,
        optional: false,
        variants: 0,
        variant,
        unit_variants: true,
    };
    let _ = T::deserialize(StructProbe {
        field,
        record: &mut record,
    });
    record
}

struct Record {
    shape: Shape,
    optional: bool,
    /// Number of variants of the enum met, if any.
    variants: u32,
    /// The variant to choose.
    variant: u32,
    /// Whether the variant chosen was a unit variant.
    unit_variants: bool,
}

type Error = de::value::Error;

fn stop() -> Error {
    de::Error::custom("probed")
}

/// The entity: offers `field` and nothing else.
struct StructProbe<'r> {
    field: &'static str,
    record: &'r mut Record,
}

impl<'de> de::Deserializer<'de> for StructProbe<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
        Err(stop())
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_map(OneField {
            field: Some(self.field),
            record: self.record,
        })
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// The map of one key, the field; its value is the probe.
struct OneField<'r> {
    field: Option<&'static str>,
    record: &'r mut Record,
}

impl<'de> de::MapAccess<'de> for OneField<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.field.take() {
            Some(field) => seed.deserialize(field.into_deserializer()).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        seed.deserialize(ValueProbe {
            record: &mut *self.record,
        })
    }
}

/// The field's value: records what it is asked for, then stops.
struct ValueProbe<'r> {
    record: &'r mut Record,
}

impl ValueProbe<'_> {
    fn found<T>(self, shape: Shape) -> Result<T, Error> {
        self.record.shape = shape;
        Err(stop())
    }
}

macro_rules! record {
    ($($method:ident($($arg:ty),*) => $shape:expr,)*) => {$(
        fn $method<V: Visitor<'de>>(self, $(_: $arg,)* _visitor: V) -> Result<V::Value, Error> {
            self.found($shape)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for ValueProbe<'_> {
    type Error = Error;

    record! {
        deserialize_any() => Shape::Any,
        deserialize_ignored_any() => Shape::Any,
        deserialize_bool() => Shape::Bool,
        deserialize_i8() => Shape::Signed,
        deserialize_i16() => Shape::Signed,
        deserialize_i32() => Shape::Signed,
        deserialize_i64() => Shape::Signed,
        deserialize_i128() => Shape::Signed,
        deserialize_u8() => Shape::Unsigned,
        deserialize_u16() => Shape::Unsigned,
        deserialize_u32() => Shape::Unsigned,
        deserialize_u64() => Shape::Unsigned,
        deserialize_u128() => Shape::Unsigned,
        deserialize_f32() => Shape::Float,
        deserialize_f64() => Shape::Float,
        deserialize_char() => Shape::Text,
        deserialize_str() => Shape::Text,
        deserialize_string() => Shape::Text,
        deserialize_identifier() => Shape::Text,
        deserialize_bytes() => Shape::Bytes,
        deserialize_byte_buf() => Shape::Bytes,
        deserialize_unit() => Shape::Unit,
        deserialize_unit_struct(&'static str) => Shape::Unit,
        deserialize_seq() => Shape::Compound,
        deserialize_tuple(usize) => Shape::Compound,
        deserialize_tuple_struct(&'static str, usize) => Shape::Compound,
        deserialize_map() => Shape::Compound,
        deserialize_struct(&'static str, &'static [&'static str]) => Shape::Compound,
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.record.optional = true;
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.record.shape = Shape::UnitEnum;
        self.record.variants = u32::try_from(variants.len()).unwrap_or(u32::MAX);
        if variants.is_empty() {
            return Err(stop());
        }
        visitor.visit_enum(EnumProbe {
            record: self.record,
        })
    }
}

/// An enum: picks the variant asked for, and records whether it is a unit
/// variant.
struct EnumProbe<'r> {
    record: &'r mut Record,
}

impl<'de, 'r> de::EnumAccess<'de> for EnumProbe<'r> {
    type Error = Error;
    type Variant = EnumProbe<'r>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), Error> {
        let index: de::value::U32Deserializer<Error> = self.record.variant.into_deserializer();
        let value = seed.deserialize(index)?;
        Ok((value, self))
    }
}

impl EnumProbe<'_> {
    /// The variant chosen holds data: the enum is not all unit variants.
    fn holds_data<T>(self) -> Result<T, Error> {
        self.record.unit_variants = false;
        Err(stop())
    }
}

impl<'de> de::VariantAccess<'de> for EnumProbe<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Err(stop())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, _seed: S) -> Result<S::Value, Error> {
        self.holds_data()
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value, Error> {
        self.holds_data()
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Error> {
        self.holds_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize)]
    struct Id(#[allow(dead_code)] String);

    #[derive(Deserialize)]
    #[allow(dead_code)]
    enum Status {
        Open,
        Closed,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    enum Mixed {
        A,
        B(u32),
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    #[serde(untagged)]
    enum Untagged {
        A(String),
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Entity {
        text: String,
        id: Id,
        n: u16,
        i: i64,
        f: f64,
        flag: bool,
        maybe: Option<String>,
        status: Status,
        mixed: Mixed,
        untagged: Untagged,
        list: Vec<String>,
        nested: std::collections::HashMap<String, u8>,
        at: std::time::SystemTime,
        c: char,
        #[serde(rename = "Renamed")]
        renamed: u8,
    }

    fn shape(field: &'static str) -> (Shape, bool) {
        let s = field_shape::<Entity>(field);
        (s.shape, s.optional)
    }

    #[test]
    fn probes_each_field_without_an_instance() {
        assert_eq!(shape("text"), (Shape::Text, false));
        assert_eq!(shape("id"), (Shape::Text, false));
        assert_eq!(shape("n"), (Shape::Unsigned, false));
        assert_eq!(shape("i"), (Shape::Signed, false));
        assert_eq!(shape("f"), (Shape::Float, false));
        assert_eq!(shape("flag"), (Shape::Bool, false));
        assert_eq!(shape("maybe"), (Shape::Text, true));
        assert_eq!(shape("status"), (Shape::UnitEnum, false));
        assert_eq!(shape("mixed"), (Shape::DataEnum, false));
        assert_eq!(shape("untagged"), (Shape::Any, false));
        assert_eq!(shape("list"), (Shape::Compound, false));
        assert_eq!(shape("nested"), (Shape::Compound, false));
        assert_eq!(shape("at"), (Shape::Compound, false));
        assert_eq!(shape("c"), (Shape::Text, false));
        assert_eq!(shape("Renamed"), (Shape::Unsigned, false));
        // A name that is no field: the derived impl ignores it.
        assert_eq!(shape("nope"), (Shape::Any, false));
    }
}
