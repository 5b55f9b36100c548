//! Serialization of entities straight into the SDK's `AttributeValue`: the
//! values `serde_dynamo` writes, without its intermediate value type, and
//! with what it lacks for this crate:
//!
//! - the attribute path of a failure, tracked as the error unwinds (no
//!   second, path-tracking pass);
//! - `i128`/`u128` numbers (DynamoDB numbers hold 38 digits; the write
//!   check rejects more);
//! - a bound on nesting: lists and maps deeper than DynamoDB allows, or
//!   options and newtypes nested absurdly deep, are an error before the
//!   serializer recurses further, so a deep (or cyclic-looking) entity
//!   cannot overflow the stack while it is serialized;
//! - map keys `serde_dynamo` panics on (`unreachable!`: a sequence, a map or
//!   bytes as a key) are errors naming what the key was.
//!
//! A struct entity is serialized under its stored attribute names (the
//! naming convention applied through its field table) in one pass.

use std::fmt;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;
use serde::ser::{self, Impossible};

use crate::fields::FieldTable;
use crate::item::{Item, MAX_NESTING};
use crate::naming::NamingConvention;

/// How deep options, newtypes, lists and maps may nest in one attribute, all
/// counted (lists and maps alone are bounded by [`MAX_NESTING`]). Far more
/// than any real entity needs; it bounds the serializer's recursion for
/// values that nest without producing lists or maps (`Some(Some(…))`).
const MAX_SERDE_DEPTH: usize = 256;

/// Why [`to_item`] did not produce an item.
pub(crate) enum SerError {
    /// The entity is not a plain struct: use the general path.
    NotAStruct,
    /// Serializing the field (stored name) failed.
    Field(String, Failure),
}

/// A failed serialization: why, and where inside the value.
pub(crate) struct Failure {
    /// Why.
    pub(crate) cause: Cause,
    /// Where, innermost step first (pushed as the error unwinds).
    steps: Vec<PathStep>,
}

/// Why a serialization failed.
pub(crate) enum Cause {
    /// The value cannot be written (the serializer's or the value's error).
    Serde(serde_dynamo::Error),
    /// The value nests deeper than allowed; the reason says how.
    TooDeep(String),
}

enum PathStep {
    Index(usize),
    Key(String),
}

impl Failure {
    fn new(cause: Cause) -> Self {
        Failure {
            cause,
            steps: Vec::new(),
        }
    }

    fn at(mut self, step: PathStep) -> Self {
        self.steps.push(step);
        self
    }

    /// The path inside the value serialized: `[2].price`, `.address.city`
    /// (a leading `.` for a map entry); empty for the value itself.
    pub(crate) fn path(&self) -> String {
        use fmt::Write as _;
        let mut out = String::new();
        for step in self.steps.iter().rev() {
            let _ = match step {
                PathStep::Index(i) => write!(out, "[{i}]"),
                PathStep::Key(k) => write!(out, ".{k}"),
            };
        }
        out
    }
}

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self} at {:?}", self.path())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.cause {
            Cause::Serde(e) => e.fmt(f),
            Cause::TooDeep(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for Failure {}

impl ser::Error for Failure {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        Failure::new(Cause::Serde(<serde_dynamo::Error as ser::Error>::custom(
            msg,
        )))
    }
}

impl fmt::Debug for SerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SerError::NotAStruct => f.write_str("not a struct"),
            SerError::Field(name, e) => write!(f, "{name}: {e:?}"),
        }
    }
}

/// Serializes a whole entity into one attribute value (its own map is depth
/// 0: the item).
pub(crate) fn entity_to_value<T: Serialize + ?Sized>(value: &T) -> Result<AttributeValue, Failure> {
    value.serialize(ValueSerializer { depth: 0, serde: 0 })
}

/// Serializes a value into an attribute value, as the value of a top-level
/// attribute (depth 1).
pub(crate) fn to_attribute_value<T: Serialize + ?Sized>(
    value: &T,
) -> Result<AttributeValue, Failure> {
    value.serialize(ValueSerializer { depth: 1, serde: 1 })
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
        Err(TopFailure(e)) => Err(e),
    }
}

struct TopLevel<'t> {
    table: Option<&'t FieldTable>,
    naming: NamingConvention,
}

#[derive(Debug)]
struct TopFailure(SerError);

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

struct Fields<'t> {
    item: Item,
    table: Option<&'t FieldTable>,
    naming: NamingConvention,
}

impl ser::SerializeStruct for Fields<'_> {
    type Ok = Item;
    type Error = TopFailure;

    fn serialize_field<V: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), TopFailure> {
        let stored = match self.table {
            Some(t) => t.stored_for(key, self.naming).into_owned(),
            None => self.naming.apply(key).into_owned(),
        };
        // A top-level attribute's own value is depth 1.
        match value.serialize(ValueSerializer { depth: 1, serde: 1 }) {
            Ok(v) => {
                self.item.insert(stored, v);
                Ok(())
            }
            Err(e) => Err(TopFailure(SerError::Field(stored, e))),
        }
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

impl<'t> ser::Serializer for TopLevel<'t> {
    type Ok = Item;
    type Error = TopFailure;
    type SerializeSeq = Impossible<Item, TopFailure>;
    type SerializeTuple = Impossible<Item, TopFailure>;
    type SerializeTupleStruct = Impossible<Item, TopFailure>;
    type SerializeTupleVariant = Impossible<Item, TopFailure>;
    type SerializeMap = Impossible<Item, TopFailure>;
    type SerializeStruct = Fields<'t>;
    type SerializeStructVariant = Impossible<Item, TopFailure>;

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Fields<'t>, TopFailure> {
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

/// `serde_dynamo`'s markers for its set codecs (`serde_dynamo::string_set`
/// etc.): a newtype with one of these names is written as a set.
const STRING_SET: &str = "\u{037E}STRINGSET\u{037E}";
const NUMBER_SET: &str = "\u{037E}NUMBERSET\u{037E}";
const BINARY_SET: &str = "\u{037E}BYTESSET\u{037E}";

/// Serializes one value into an [`AttributeValue`], as `serde_dynamo` does.
#[derive(Clone, Copy)]
struct ValueSerializer {
    /// How deep a list or map made here would be (a top-level attribute's
    /// own value is 1).
    depth: usize,
    /// How many values (of any kind) enclose this one.
    serde: usize,
}

impl ValueSerializer {
    /// The serializer for a value inside this one: `nests` when this one is
    /// a list or map.
    fn inner(self, nests: bool) -> Result<ValueSerializer, Failure> {
        let inner = ValueSerializer {
            depth: self.depth + usize::from(nests),
            serde: self.serde + 1,
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
        Ok(AttributeValue::Null(true))
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
        Ok(AttributeValue::M(Item::from([(variant.to_owned(), value)])))
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
        let inner = self.nest()?;
        let fields = inner
            .serialize_seq(Some(len))
            .map_err(|e| e.at(PathStep::Key(variant.to_owned())))?;
        Ok(VariantSerializer { variant, fields })
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
        let inner = self.nest()?;
        let fields = inner
            .serialize_map(Some(len))
            .map_err(|e| e.at(PathStep::Key(variant.to_owned())))?;
        Ok(VariantSerializer { variant, fields })
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

impl ser::SerializeSeq for SeqSerializer {
    type Ok = AttributeValue;
    type Error = Failure;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
        self.push(value)
    }
    fn end(self) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::L(self.list))
    }
}

impl ser::SerializeTuple for SeqSerializer {
    type Ok = AttributeValue;
    type Error = Failure;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
        self.push(value)
    }
    fn end(self) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::L(self.list))
    }
}

impl ser::SerializeTupleStruct for SeqSerializer {
    type Ok = AttributeValue;
    type Error = Failure;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Failure> {
        self.push(value)
    }
    fn end(self) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::L(self.list))
    }
}

pub(crate) struct MapSerializer {
    map: Item,
    /// A key given without its value yet.
    key: Option<String>,
    /// The serializer for the values.
    inner: ValueSerializer,
}

impl MapSerializer {
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
        self.insert(key.to_owned(), value)
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

impl VariantSerializer<SeqSerializer> {
    fn wrap(self, fields: AttributeValue) -> AttributeValue {
        AttributeValue::M(Item::from([(self.variant.to_owned(), fields)]))
    }
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

    fn end(mut self) -> Result<AttributeValue, Failure> {
        let list = std::mem::take(&mut self.fields.list);
        Ok(self.wrap(AttributeValue::L(list)))
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
            .insert(key.to_owned(), value)
            .map_err(|e| e.at(PathStep::Key(variant.to_owned())))
    }

    fn end(self) -> Result<AttributeValue, Failure> {
        Ok(AttributeValue::M(Item::from([(
            self.variant.to_owned(),
            AttributeValue::M(self.fields.map),
        )])))
    }
}

/// A map key as `serde_dynamo` writes it: a string, an integer, a boolean,
/// a character or a unit variant (also inside a newtype); anything else is
/// an error naming what the key was.
fn map_key<T: Serialize + ?Sized>(key: &T) -> Result<String, Failure> {
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

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet, HashMap};

    use serde::{Deserialize, Serialize};

    use crate::{ErrorKind, Item, Mapper, TableSchema};

    type MapKeyed = BTreeMap<BTreeMap<u8, u8>, u8>;

    /// Map keys `serde_dynamo` panicked on (`unreachable!`): a sequence, a
    /// map or bytes, at any depth. Each is now an error naming the attribute.
    #[derive(Default, Serialize, Deserialize)]
    struct Keys {
        id: String,
        by_bytes: HashMap<Vec<u8>, u8>,
        nested: Option<Vec<BTreeMap<BTreeSet<String>, u8>>>,
        by_map: Vec<HashMap<String, MapKeyed>>,
    }

    struct KeysMapper;

    impl Mapper for KeysMapper {
        type Entity = Keys;
        const ENTITY_TYPE: &'static str = "Keys";
        const TABLE: TableSchema = TableSchema::new("pk");
        fn after_to_item(k: &Keys, item: &mut Item) -> crate::Result<()> {
            crate::hooks::put_str(item, "pk", k.id.clone());
            Ok(())
        }
    }

    #[test]
    fn map_keys_serde_dynamo_panics_on_are_errors() {
        let base = || Keys {
            id: "K".into(),
            ..Keys::default()
        };
        let cases = [
            (
                Keys {
                    by_bytes: HashMap::from([(vec![1], 1)]),
                    ..base()
                },
                "Keys: cannot serialize attribute `by_bytes`: a map key is a sequence; map keys \
                 must be strings, integers, booleans, characters or unit variants",
            ),
            (
                Keys {
                    nested: Some(vec![
                        BTreeMap::new(),
                        BTreeMap::from([(BTreeSet::new(), 1)]),
                    ]),
                    ..base()
                },
                "Keys: cannot serialize attribute `nested[1]`: a map key is a sequence; map keys \
                 must be strings, integers, booleans, characters or unit variants",
            ),
            (
                Keys {
                    by_map: vec![HashMap::from([(
                        "a".to_string(),
                        BTreeMap::from([(BTreeMap::new(), 1)]),
                    )])],
                    ..base()
                },
                "Keys: cannot serialize attribute `by_map[0].a`: a map key is a map; map keys \
                 must be strings, integers, booleans, characters or unit variants",
            ),
        ];
        for (keys, message) in cases {
            let err = KeysMapper::to_item(&keys).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Serialize);
            assert_eq!(err.to_string(), message);
        }
        // Keys serde_dynamo writes still work, unchanged.
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Fine {
            id: String,
            by_number: BTreeMap<u32, bool>,
            by_flag: BTreeMap<bool, String>,
        }
        struct FineMapper;
        impl Mapper for FineMapper {
            type Entity = Fine;
            const ENTITY_TYPE: &'static str = "Fine";
            const TABLE: TableSchema = TableSchema::new("id").without_discriminator();
            fn after_to_item(_: &Fine, _: &mut Item) -> crate::Result<()> {
                Ok(())
            }
        }
        let fine = Fine {
            id: "F".into(),
            by_number: BTreeMap::from([(7, true)]),
            by_flag: BTreeMap::from([(false, "no".to_string())]),
        };
        let item = FineMapper::to_item(&fine).unwrap();
        assert_eq!(item, serde_dynamo::to_item::<_, Item>(&fine).unwrap());
        assert_eq!(FineMapper::from_item(item).unwrap(), fine);
    }

    #[test]
    fn an_entity_that_is_not_a_map_is_an_error() {
        struct NumberMapper;
        impl Mapper for NumberMapper {
            type Entity = u32;
            const ENTITY_TYPE: &'static str = "Number";
            const TABLE: TableSchema = TableSchema::new("pk");
            fn after_to_item(_: &u32, _: &mut Item) -> crate::Result<()> {
                Ok(())
            }
        }
        assert_eq!(
            NumberMapper::to_item(&7).unwrap_err().to_string(),
            "Number: cannot serialize: the entity is a number (N), not a map of attributes \
             (serialize it as a struct or a map)"
        );
    }

    #[derive(Debug, Clone, Serialize)]
    struct Unit;

    #[derive(Debug, Clone, Serialize)]
    struct Newtype(i16);

    #[derive(Debug, Clone, Serialize)]
    enum Shape {
        Dot,
        Circle(u8),
        Pair(u8, String),
        Rect { w: i8, h: Option<u8> },
    }

    #[derive(Debug, Clone, Serialize)]
    struct Inner {
        a: u32,
        b: Option<String>,
    }

    /// Every shape of the serde data model `serde_dynamo` writes.
    #[derive(Debug, Clone, Serialize)]
    struct Rich {
        s: String,
        n: Option<u64>,
        i: i32,
        f: f64,
        g: f32,
        b: bool,
        c: char,
        e: Vec<Shape>,
        m: BTreeMap<String, u16>,
        k: BTreeMap<u8, bool>,
        t: (u8, String),
        u: (),
        us: Unit,
        nt: Newtype,
        bytes: Vec<u8>,
        inner: Vec<Inner>,
        #[serde(with = "serde_dynamo::string_set")]
        tags: Vec<String>,
        #[serde(with = "serde_dynamo::number_set")]
        numbers: Vec<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        maybe: Option<Box<Rich>>,
    }

    fn rich() -> impl proptest::strategy::Strategy<Value = Rich> {
        use proptest::prelude::*;
        let shape = prop_oneof![
            Just(Shape::Dot),
            any::<u8>().prop_map(Shape::Circle),
            (any::<u8>(), ".{0,4}").prop_map(|(a, b)| Shape::Pair(a, b)),
            (any::<i8>(), any::<Option<u8>>()).prop_map(|(w, h)| Shape::Rect { w, h }),
        ];
        let inner =
            (any::<u32>(), proptest::option::of(".{0,4}")).prop_map(|(a, b)| Inner { a, b });
        (
            (
                ".{0,8}",
                any::<Option<u64>>(),
                any::<i32>(),
                any::<f64>(),
                any::<f32>(),
            ),
            (
                any::<bool>(),
                any::<char>(),
                proptest::collection::vec(shape, 0..4),
            ),
            (
                proptest::collection::btree_map(".{0,4}", any::<u16>(), 0..3),
                proptest::collection::btree_map(any::<u8>(), any::<bool>(), 0..3),
                (any::<u8>(), ".{0,4}"),
                any::<i16>(),
            ),
            (
                proptest::collection::vec(any::<u8>(), 0..4),
                proptest::collection::vec(inner, 0..3),
                proptest::collection::vec(".{0,4}", 0..3),
                proptest::collection::vec(any::<i64>(), 0..3),
            ),
        )
            .prop_map(
                |((s, n, i, f, g), (b, c, e), (m, k, t, nt), (bytes, inner, tags, numbers))| Rich {
                    s,
                    n,
                    i,
                    f,
                    g,
                    b,
                    c,
                    e,
                    m,
                    k,
                    t,
                    u: (),
                    us: Unit,
                    nt: Newtype(nt),
                    bytes,
                    inner,
                    tags,
                    numbers,
                    maybe: None,
                },
            )
            .prop_recursive(2, 4, 1, |inner| {
                (inner.clone(), inner).prop_map(|(mut outer, nested)| {
                    outer.maybe = Some(Box::new(nested));
                    outer
                })
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// The crate's serializer writes exactly what `serde_dynamo` writes.
        #[test]
        fn writes_what_serde_dynamo_writes(r in rich()) {
            let ours = super::to_attribute_value(&r).unwrap();
            let theirs: aws_sdk_dynamodb::types::AttributeValue =
                serde_dynamo::to_attribute_value(&r).unwrap();
            proptest::prop_assert_eq!(ours, theirs);
        }
    }
}
