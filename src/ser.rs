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
        match to_attribute_value(value) {
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

/// A value serialized with every map key checked first, at any depth.
///
/// `serde_dynamo` panics (`unreachable!`) on a map key that serializes as a
/// sequence, a map or bytes (a `HashMap<Vec<u8>, _>` that is not empty), and
/// answers other keys it cannot write with an error in capitals. Wrapped in
/// this, such a key is a lowercase error naming what the key was.
pub(crate) struct Guarded<'a, T: ?Sized>(pub(crate) &'a T);

impl<T: Serialize + ?Sized> Serialize for Guarded<'_, T> {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Guard(serializer))
    }
}

/// `serde_dynamo::to_attribute_value` through [`Guarded`].
pub(crate) fn to_attribute_value<T: Serialize + ?Sized>(
    value: &T,
) -> Result<AttributeValue, serde_dynamo::Error> {
    serde_dynamo::to_attribute_value(Guarded(value))
}

/// A serializer passing everything to `S`, with the values inside compound
/// values wrapped in [`Guarded`] and map keys checked.
struct Guard<S>(S);

macro_rules! forward {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        $(fn $name(self, $($arg: $ty),*) -> Result<S::Ok, S::Error> {
            self.0.$name($($arg),*)
        })*
    };
}

impl<S: ser::Serializer> ser::Serializer for Guard<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Guard<S::SerializeSeq>;
    type SerializeTuple = Guard<S::SerializeTuple>;
    type SerializeTupleStruct = Guard<S::SerializeTupleStruct>;
    type SerializeTupleVariant = Guard<S::SerializeTupleVariant>;
    type SerializeMap = Guard<S::SerializeMap>;
    type SerializeStruct = Guard<S::SerializeStruct>;
    type SerializeStructVariant = Guard<S::SerializeStructVariant>;

    forward! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_i128(v: i128);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_u128(v: u128);
        serialize_f32(v: f32);
        serialize_f64(v: f64);
        serialize_char(v: char);
        serialize_str(v: &str);
        serialize_bytes(v: &[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(&Guarded(value))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, &Guarded(value))
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0
            .serialize_newtype_variant(name, index, variant, &Guarded(value))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.0.serialize_seq(len).map(Guard)
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.0.serialize_tuple(len).map(Guard)
    }

    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.0.serialize_tuple_struct(name, len).map(Guard)
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.0
            .serialize_tuple_variant(name, index, variant, len)
            .map(Guard)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.0.serialize_map(len).map(Guard)
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        self.0.serialize_struct(name, len).map(Guard)
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.0
            .serialize_struct_variant(name, index, variant, len)
            .map(Guard)
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! guard_elements {
    ($($trait:ident::$method:ident;)*) => {$(
        impl<S: ser::$trait> ser::$trait for Guard<S> {
            type Ok = S::Ok;
            type Error = S::Error;

            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), S::Error> {
                self.0.$method(&Guarded(value))
            }

            fn end(self) -> Result<S::Ok, S::Error> {
                self.0.end()
            }
        }
    )*};
}

guard_elements! {
    SerializeSeq::serialize_element;
    SerializeTuple::serialize_element;
    SerializeTupleStruct::serialize_field;
    SerializeTupleVariant::serialize_field;
}

impl<S: ser::SerializeStruct> ser::SerializeStruct for Guard<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), S::Error> {
        self.0.serialize_field(key, &Guarded(value))
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.0.skip_field(key)
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

impl<S: ser::SerializeStructVariant> ser::SerializeStructVariant for Guard<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), S::Error> {
        self.0.serialize_field(key, &Guarded(value))
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.0.skip_field(key)
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

impl<S: ser::SerializeMap> ser::SerializeMap for Guard<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), S::Error> {
        self.0.serialize_key(&CheckedKey(key))
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), S::Error> {
        self.0.serialize_value(&Guarded(value))
    }

    fn serialize_entry<K: Serialize + ?Sized, V: Serialize + ?Sized>(
        &mut self,
        key: &K,
        value: &V,
    ) -> Result<(), S::Error> {
        self.0.serialize_entry(&CheckedKey(key), &Guarded(value))
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

/// A map key, checked before it is serialized: it must be a key
/// `serde_dynamo` writes (a string, an integer, a boolean, a character or a
/// unit variant, also inside a newtype). Checked inside the map's
/// serialization, so a path-tracking serializer sees where it failed.
struct CheckedKey<'a, T: ?Sized>(&'a T);

impl<T: Serialize + ?Sized> Serialize for CheckedKey<'_, T> {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Err(BadKey(what)) = self.0.serialize(KeyCheck) {
            return Err(ser::Error::custom(format!(
                "a map key is {what}; map keys must be strings, integers, booleans, characters \
                 or unit variants"
            )));
        }
        self.0.serialize(Guard(serializer))
    }
}

struct KeyCheck;

#[derive(Debug)]
struct BadKey(&'static str);

impl std::fmt::Display for BadKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for BadKey {}

impl ser::Error for BadKey {
    fn custom<M: std::fmt::Display>(_msg: M) -> Self {
        BadKey("not a string")
    }
}

macro_rules! key_ok {
    ($($name:ident($($ty:ty),*);)*) => {
        $(fn $name(self, $(_: $ty),*) -> Result<(), BadKey> { Ok(()) })*
    };
}

macro_rules! key_bad {
    ($($name:ident($($ty:ty),*) -> $ret:ty = $what:literal;)*) => {
        $(fn $name(self, $(_: $ty),*) -> Result<$ret, BadKey> { Err(BadKey($what)) })*
    };
}

impl ser::Serializer for KeyCheck {
    type Ok = ();
    type Error = BadKey;
    type SerializeSeq = Impossible<(), BadKey>;
    type SerializeTuple = Impossible<(), BadKey>;
    type SerializeTupleStruct = Impossible<(), BadKey>;
    type SerializeTupleVariant = Impossible<(), BadKey>;
    type SerializeMap = Impossible<(), BadKey>;
    type SerializeStruct = Impossible<(), BadKey>;
    type SerializeStructVariant = Impossible<(), BadKey>;

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
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    key_bad! {
        serialize_f32(f32) -> () = "a floating-point number";
        serialize_f64(f64) -> () = "a floating-point number";
        serialize_bytes(&[u8]) -> () = "bytes";
        serialize_none() -> () = "an option";
        serialize_unit() -> () = "a unit";
        serialize_unit_struct(&'static str) -> () = "a unit struct";
        serialize_seq(Option<usize>) -> Impossible<(), BadKey> = "a sequence";
        serialize_tuple(usize) -> Impossible<(), BadKey> = "a tuple";
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), BadKey> = "a tuple struct";
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), BadKey> = "an enum variant with fields";
        serialize_map(Option<usize>) -> Impossible<(), BadKey> = "a map";
        serialize_struct(&'static str, usize) -> Impossible<(), BadKey> = "a struct";
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), BadKey> = "an enum variant with fields";
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), BadKey> {
        Err(BadKey("an option"))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), BadKey> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), BadKey> {
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
                // (`serde_path_to_error` does not follow into an `Option`.)
                "Keys: cannot serialize attribute `nested`: a map key is a sequence; map keys \
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
}
