//! Items and what the crate knows about them: typed getters, size by
//! DynamoDB's rules, value checks and TTL values.
//!
//! - `mod.rs`: the [`Item`] type and DynamoDB's item limits.
//! - `ext.rs`: [`ItemExt`], typed getters that never panic, and
//!   [`ttl_value`].
//! - `number.rs`: DynamoDB numbers: parsing, canonical form, size, reading
//!   into floats without rounding.
//! - `size.rs`: an item's size by DynamoDB's rules.
//! - `valid.rs`: the value checks DynamoDB applies (numbers, sets, names,
//!   nesting), walking an item without recursion.
//! - `drop.rs`: dropping deeply nested values without recursion.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

mod drop;
mod ext;
mod number;
mod size;
mod valid;

pub(crate) use crate::describe::type_name;
pub(crate) use drop::drop_item;
pub use ext::{ItemExt, ttl_value};
pub(crate) use number::{canonical_number, check_number, read_float};
pub use size::item_size;
pub(crate) use size::largest_attributes;
pub(crate) use valid::{MAX_NESTING, check_depth, check_name, check_received, check_values};

/// An item, exactly as the SDK has it: what `GetItem` returns and `PutItem` takes.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::Item;
///
/// let mut item = Item::new();
/// item.insert("pk".into(), AttributeValue::S("CUSTOMER#C1".into()));
/// assert_eq!(item.len(), 1);
/// ```
pub type Item = HashMap<String, AttributeValue>;

/// DynamoDB's maximum item size in bytes (400 KB).
pub(crate) const MAX_ITEM_SIZE: usize = 409_600;

/// The most significant digits a DynamoDB number may have.
pub(crate) const MAX_NUMBER_DIGITS: usize = 38;
