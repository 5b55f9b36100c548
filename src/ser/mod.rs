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
//!
//! - `mod.rs`: the entry points ([`to_item`] for a struct entity,
//!   [`entity_to_value`] and [`to_attribute_value`] otherwise).
//! - `failure.rs`: why serialization failed, with the attribute path built
//!   as the error unwinds.
//! - `top.rs`: the top level of a struct entity, under stored names.
//! - `value.rs`: one value: scalars, sets, lists, maps, enum variants.
//! - `key.rs`: map keys, which must be strings.

use std::fmt;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

use crate::fields::FieldTable;
use crate::item::Item;
use crate::naming::NamingConvention;

mod failure;
mod key;
#[cfg(test)]
mod tests;
mod top;
mod value;

pub(crate) use failure::{Cause, Failure};
use top::{TopFailure, TopLevel};
use value::ValueSerializer;

/// Why [`to_item`] did not produce an item.
pub(crate) enum SerError {
    /// The entity is not a plain struct: use the general path.
    NotAStruct,
    /// Serializing the field (stored name) failed.
    Field(String, Failure),
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
