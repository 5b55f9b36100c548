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
mod held;
mod key;
#[cfg(test)]
mod tests;
mod top;
mod value;

pub(crate) use failure::{Cause, Failure};
pub(crate) use held::{Held, MAX_HELD};
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

/// How a struct field whose value is `None` is written: left out (the
/// default) or as `NULL`. Chosen per mapper with
/// [`Mapper::NONE_AS`](crate::Mapper::NONE_AS); applies to the fields of
/// the entity and of every struct nested in it (not to `None`s inside lists
/// or maps, which keep their place as `NULL`).
///
/// Left out, a `None` is absent as DynamoDB means it: `attribute_not_exists`
/// sees it, a sparse index leaves the item out, and a partial update
/// removes the attribute. Either way it reads back as `None`.
///
/// ```
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::NoneAs;
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Profile { id: u32, nickname: Option<String> }
/// struct ProfileMapper;
/// impl Mapper for ProfileMapper {
///     type Entity = Profile;
///     const ENTITY_TYPE: &'static str = "Profile";
///     const SCHEMA: TableSchema = TableSchema::new("pk");
///     const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(KeyPattern::partition("PROFILE#{id}"))];
/// }
/// struct LegacyProfileMapper;
/// impl Mapper for LegacyProfileMapper {
///     type Entity = Profile;
///     const ENTITY_TYPE: &'static str = "Profile";
///     const SCHEMA: TableSchema = TableSchema::new("pk");
///     const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(KeyPattern::partition("PROFILE#{id}"))];
///     const NONE_AS: NoneAs = NoneAs::Null;
/// }
/// let p = Profile { id: 1, nickname: None };
/// assert!(!ProfileMapper::to_item(&p)?.contains_key("nickname"));
/// assert_eq!(LegacyProfileMapper::to_item(&p)?["nickname"], AttributeValue::Null(true));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum NoneAs {
    /// The attribute is not written.
    #[default]
    Absent,
    /// The attribute is written as `NULL` (this crate's 0.1 behaviour, and
    /// `serde_dynamo`'s).
    Null,
}

/// Serializes a whole entity into one attribute value (its own map is depth
/// 0: the item).
pub(crate) fn entity_to_value<T: Serialize + ?Sized>(
    value: &T,
    none: NoneAs,
) -> Result<AttributeValue, Failure> {
    value.serialize(ValueSerializer {
        depth: 0,
        serde: 0,
        field: false,
        none,
    })
}

/// Serializes a value into an attribute value, as the value of a top-level
/// attribute (depth 1); `None`s of struct fields inside it are left out.
pub(crate) fn to_attribute_value<T: Serialize + ?Sized>(
    value: &T,
) -> Result<AttributeValue, Failure> {
    to_attribute_value_with(value, NoneAs::Absent)
}

/// [`to_attribute_value`], with struct fields' `None`s written as `none`
/// says.
pub(crate) fn to_attribute_value_with<T: Serialize + ?Sized>(
    value: &T,
    none: NoneAs,
) -> Result<AttributeValue, Failure> {
    value.serialize(ValueSerializer::attribute(none))
}

/// Serializes a struct entity into an item, naming each top-level attribute
/// by the field table and convention; the fields `held` asks for are kept in
/// it instead, for the caller to put in.
pub(crate) fn to_item<T: Serialize + ?Sized>(
    value: &T,
    table: Option<&FieldTable>,
    naming: NamingConvention,
    none: NoneAs,
    extra: usize,
    held: &mut Held<'_>,
) -> Result<Item, SerError> {
    match value.serialize(TopLevel {
        table,
        naming,
        none,
        extra,
        held,
    }) {
        Ok(item) => Ok(item),
        Err(TopFailure(e)) => Err(e),
    }
}
