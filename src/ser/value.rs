//! One value: scalars, sets (serialized as `serde_dynamo` marks them),
//! lists, maps and enum variants, bounded in depth so a deep value cannot
//! overflow the stack.

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;
use serde::ser;

use super::NoneAs;
use super::failure::{Cause, Failure, MAX_SERDE_DEPTH, PathStep};
use super::key::map_key;
use crate::item::{Item, MAX_NESTING};

/// `serde_dynamo`'s markers for its set codecs (`serde_dynamo::string_set`
/// etc.): a newtype with one of these names is written as a set.
const STRING_SET: &str = "\u{037E}STRINGSET\u{037E}";

const NUMBER_SET: &str = "\u{037E}NUMBERSET\u{037E}";

const BINARY_SET: &str = "\u{037E}BYTESSET\u{037E}";

/// Serializes one value into an [`AttributeValue`], as `serde_dynamo` does.
#[derive(Clone, Copy)]
pub(super) struct ValueSerializer {
    /// How deep a list or map made here would be (a top-level attribute's
    /// own value is 1).
    pub(super) depth: usize,
    /// How many values (of any kind) enclose this one.
    pub(super) serde: usize,
    /// Whether this is the value of a struct field (where `None` is left
    /// out under [`NoneAs::Absent`]).
    pub(super) field: bool,
    /// How a struct field's `None` is written.
    pub(super) none: NoneAs,
}

/// What `serialize_none` returns for a struct field's `None` to be left
/// out: a `NULL` of `false`, which no serializer produces otherwise (and
/// DynamoDB never accepts), seen only by the struct field that asked.
const ABSENT: AttributeValue = AttributeValue::Null(false);

impl ValueSerializer {
    /// The serializer for the value of a top-level attribute (depth 1).
    pub(super) fn attribute(none: NoneAs) -> ValueSerializer {
        ValueSerializer {
            depth: 1,
            serde: 1,
            field: false,
            none,
        }
    }

    /// Serializes the value of a struct field into `map` under `key`,
    /// unless it is a `None` to be left out (under [`NoneAs::Absent`]). On
    /// failure the key is handed back with the error, to say where.
    #[inline]
    pub(super) fn insert_field<K: Into<String>, T: Serialize + ?Sized>(
        self,
        map: &mut Item,
        key: K,
        value: &T,
    ) -> Result<(), (K, Failure)> {
        let field = ValueSerializer {
            field: true,
            ..self
        };
        match value.serialize(field) {
            Ok(v) if v == ABSENT => Ok(()),
            Ok(v) => {
                map.insert(key.into(), v);
                Ok(())
            }
            Err(e) => Err((key, e)),
        }
    }

    /// Serializes the value of a struct field: `None` when it is a `None`
    /// to be left out (under [`NoneAs::Absent`]), as
    /// [`insert_field`](Self::insert_field) leaves it out.
    #[inline]
    pub(super) fn field_value<T: Serialize + ?Sized>(
        self,
        value: &T,
    ) -> Result<Option<AttributeValue>, Failure> {
        let field = ValueSerializer {
            field: true,
            ..self
        };
        match value.serialize(field) {
            Ok(v) if v == ABSENT => Ok(None),
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(e),
        }
    }

    /// The serializer for a value inside this one: `nests` when this one is
    /// a list or map.
    fn inner(self, nests: bool) -> Result<ValueSerializer, Failure> {
        let inner = ValueSerializer {
            depth: self.depth + usize::from(nests),
            serde: self.serde + 1,
            field: false,
            none: self.none,
        };
        if inner.serde > MAX_SERDE_DEPTH {
            return Err(Failure::new(Cause::TooDeep(format!(
                "nests values (options, newtypes, lists, maps) more than {MAX_SERDE_DEPTH} \
                 levels deep"
            ))));
        }
        Ok(inner)
    }

    /// Checks that a list or map may be made at this depth.
    fn nest(self) -> Result<ValueSerializer, Failure> {
        if self.depth > MAX_NESTING {
            return Err(Failure::new(Cause::TooDeep(format!(
                "nests lists and maps {} or more levels deep; DynamoDB allows {MAX_NESTING} \
                 (values at most 32 levels deep)",
                MAX_NESTING + 1
            ))));
        }
        self.inner(true)
    }

    /// The fields of an enum variant, opened by `open` one level down (the
    /// variant's map) and wrapped in `{variant: fields}` at the end.
    fn variant<S>(
        self,
        variant: &'static str,
        open: impl FnOnce(ValueSerializer) -> Result<S, Failure>,
    ) -> Result<VariantSerializer<S>, Failure> {
        let fields = open(self.nest()?).map_err(|e| e.at(PathStep::Key(variant.to_owned())))?;
        Ok(VariantSerializer { variant, fields })
    }
}

/// `{variant: value}`, the map an enum variant with content is written as.
fn variant_map(variant: &str, value: AttributeValue) -> AttributeValue {
    AttributeValue::M(Item::from([(variant.to_owned(), value)]))
}

fn number(n: impl ToString) -> Result<AttributeValue, Failure> {
    Ok(AttributeValue::N(n.to_string()))
}

impl ser::Serializer for ValueSerializer {
    type Ok = AttributeValue;
    type Error = Failure;
    type SerializeSeq = SeqSerializer;
    type SerializeTuple = SeqSerializer;
    type SerializeTupleStruct = SeqSerializer;
    type SerializeTupleVariant = VariantSerializer<SeqSerializer>;
    type SerializeMap = MapSerializer;
    type SerializeStruct = MapSerializer;
    type SerializeStructVariant = VariantSerializer<MapSerializer>;

    fn serialize_bool(self, v: bool) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<AttributeValue, Failure> {
        number(v)
    }
    fn serialize_i16(self, v: i16) -> Result<AttributeValue, Failure> {
        number(v)
    }
    fn serialize_i32(self, v: i32) -> Result<AttributeValue, Failure> {
        number(v)
    }
    fn serialize_i64(self, v: i64) -> Result<AttributeValue, Failure> {
        number(v)
    }
    fn serialize_i128(self, v: i128) -> Result<AttributeValue, Failure> {
        number(v)
    }
    fn serialize_u8(self, v: u8) -> Result<AttributeValue, Failure> {
        number(v)
    }
    fn serialize_u16(self, v: u16) -> Result<AttributeValue, Failure> {
        number(v)
    }
    fn serialize_u32(self, v: u32) -> Result<AttributeValue, Failure> {
        number(v)
    }
    fn serialize_u64(self, v: u64) -> Result<AttributeValue, Failure> {
        number(v)
    }
    fn serialize_u128(self, v: u128) -> Result<AttributeValue, Failure> {
        number(v)
    }
    // The shortest representation that reads back as the same float; NaN
    // and infinities are written as `NaN`/`inf` and refused by the write
    // check.
    fn serialize_f32(self, v: f32) -> Result<AttributeValue, Failure> {
        number(v)
    }
    fn serialize_f64(self, v: f64) -> Result<AttributeValue, Failure> {
        number(v)
    }
    fn serialize_char(self, v: char) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::S(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::S(v.to_owned()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::B(Blob::new(v)))
    }
    fn serialize_none(self) -> Result<AttributeValue, Failure> {
        Ok(if self.field && self.none == NoneAs::Absent {
            ABSENT
        } else {
            AttributeValue::Null(true)
        })
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<AttributeValue, Failure> {
        value.serialize(self.inner(false)?)
    }
    fn serialize_unit(self) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::Null(true))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::Null(true))
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::S(variant.to_owned()))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<AttributeValue, Failure> {
        let inner = match name {
            // A set's members are not nested values; the set is read as a
            // list only to be converted.
            STRING_SET | NUMBER_SET | BINARY_SET => ValueSerializer {
                depth: 1,
                ..self.inner(false)?
            },
            _ => self.inner(false)?,
        };
        let value = value.serialize(inner)?;
        match name {
            STRING_SET => into_set(value, "string", |v| match v {
                AttributeValue::S(s) => Ok(s),
                other => Err(other),
            })
            .map(AttributeValue::Ss),
            NUMBER_SET => into_set(value, "number", |v| match v {
                AttributeValue::N(n) => Ok(n),
                other => Err(other),
            })
            .map(AttributeValue::Ns),
            BINARY_SET => into_set(value, "binary", |v| match v {
                AttributeValue::B(b) => Ok(b),
                other => Err(other),
            })
            .map(AttributeValue::Bs),
            _ => Ok(value),
        }
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<AttributeValue, Failure> {
        // `{variant: value}`: a map.
        let inner = self.nest()?;
        let value = value
            .serialize(inner)
            .map_err(|e| e.at(PathStep::Key(variant.to_owned())))?;
        Ok(variant_map(variant, value))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSerializer, Failure> {
        Ok(SeqSerializer {
            list: Vec::with_capacity(len.unwrap_or(0)),
            inner: self.nest()?,
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<SeqSerializer, Failure> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<SeqSerializer, Failure> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantSerializer<SeqSerializer>, Failure> {
        // `{variant: [fields]}`.
        self.variant(variant, |inner| inner.serialize_seq(Some(len)))
    }

    fn serialize_map(self, len: Option<usize>) -> Result<MapSerializer, Failure> {
        Ok(MapSerializer {
            map: Item::with_capacity(len.unwrap_or(0)),
            key: None,
            inner: self.nest()?,
        })
    }

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<MapSerializer, Failure> {
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantSerializer<MapSerializer>, Failure> {
        // `{variant: {fields}}`.
        self.variant(variant, |inner| inner.serialize_map(Some(len)))
    }
}

/// A list serialized for a set codec, as a set of the members `member`
/// takes; any other member, or a value that is not a list, is an error.
fn into_set<T>(
    value: AttributeValue,
    kind: &str,
    member: impl Fn(AttributeValue) -> Result<T, AttributeValue>,
) -> Result<Vec<T>, Failure> {
    let AttributeValue::L(list) = value else {
        return Err(ser::Error::custom(format!(
            "a {kind} set must serialize as a sequence"
        )));
    };
    list.into_iter()
        .enumerate()
        .map(|(i, v)| {
            member(v).map_err(|other| {
                Failure::new(Cause::Serde(ser::Error::custom(format!(
                    "a {kind} set member is {}, not a {kind}",
                    crate::item::type_name(&other)
                ))))
                .at(PathStep::Index(i))
            })
        })
        .collect()
}

pub(crate) struct SeqSerializer {
    list: Vec<AttributeValue>,
    /// The serializer for the elements.
    inner: ValueSerializer,
}

impl SeqSerializer {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
        let i = self.list.len();
        let v = value
            .serialize(self.inner)
            .map_err(|e| e.at(PathStep::Index(i)))?;
        self.list.push(v);
        Ok(())
    }
}

/// A sequence, a tuple and a tuple struct are all written as a list; serde
/// names the method that adds an element differently for each.
macro_rules! list {
    ($($serialize:ident::$element:ident),*) => {$(
        impl ser::$serialize for SeqSerializer {
            type Ok = AttributeValue;
            type Error = Failure;
            fn $element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
                self.push(value)
            }
            fn end(self) -> Result<AttributeValue, Failure> {
                Ok(AttributeValue::L(self.list))
            }
        }
    )*};
}

list!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

pub(crate) struct MapSerializer {
    map: Item,
    /// A key given without its value yet.
    key: Option<String>,
    /// The serializer for the values.
    inner: ValueSerializer,
}

impl MapSerializer {
    /// A struct field: left out when its value is a `None` to be absent.
    fn insert_field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Failure> {
        self.inner
            .insert_field(&mut self.map, key, value)
            .map_err(|(key, e)| e.at(PathStep::Key(key.to_owned())))
    }

    fn insert<T: Serialize + ?Sized>(&mut self, key: String, value: &T) -> Result<(), Failure> {
        match value.serialize(self.inner) {
            Ok(v) => {
                self.map.insert(key, v);
                Ok(())
            }
            Err(e) => Err(e.at(PathStep::Key(key))),
        }
    }
}

impl ser::SerializeMap for MapSerializer {
    type Ok = AttributeValue;
    type Error = Failure;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Failure> {
        self.key = Some(map_key(key)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
        let Some(key) = self.key.take() else {
            return Err(ser::Error::custom("a map value was given before its key"));
        };
        self.insert(key, value)
    }

    fn serialize_entry<K: Serialize + ?Sized, V: Serialize + ?Sized>(
        &mut self,
        key: &K,
        value: &V,
    ) -> Result<(), Failure> {
        let key = map_key(key)?;
        self.insert(key, value)
    }

    fn end(self) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::M(self.map))
    }
}

impl ser::SerializeStruct for MapSerializer {
    type Ok = AttributeValue;
    type Error = Failure;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Failure> {
        self.insert_field(key, value)
    }

    fn end(self) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::M(self.map))
    }
}

/// The fields of an enum variant, wrapped in `{variant: fields}` at the end.
pub(crate) struct VariantSerializer<S> {
    variant: &'static str,
    fields: S,
}

impl ser::SerializeTupleVariant for VariantSerializer<SeqSerializer> {
    type Ok = AttributeValue;
    type Error = Failure;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
        let variant = self.variant;
        self.fields
            .push(value)
            .map_err(|e| e.at(PathStep::Key(variant.to_owned())))
    }

    fn end(self) -> Result<AttributeValue, Failure> {
        Ok(variant_map(
            self.variant,
            AttributeValue::L(self.fields.list),
        ))
    }
}

impl ser::SerializeStructVariant for VariantSerializer<MapSerializer> {
    type Ok = AttributeValue;
    type Error = Failure;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Failure> {
        let variant = self.variant;
        self.fields
            .insert_field(key, value)
            .map_err(|e| e.at(PathStep::Key(variant.to_owned())))
    }

    fn end(self) -> Result<AttributeValue, Failure> {
        Ok(variant_map(
            self.variant,
            AttributeValue::M(self.fields.map),
        ))
    }
}
