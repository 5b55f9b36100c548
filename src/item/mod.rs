//! Items and what the crate knows about them: typed getters, size by
//! DynamoDB's rules, value checks and TTL values.
//!
//! - `mod.rs`: the [`Item`] type and DynamoDB's item limits.
//! - `ext.rs`: [`ItemExt`], typed getters that never panic, and
//!   [`ttl_value`].
//! - `number.rs`: DynamoDB numbers: parsing, canonical form, size, reading
//!   into floats without rounding.
//! - `size.rs`: an item's size by DynamoDB's rules.
//! - `check.rs`: the value checks DynamoDB applies (numbers, sets, names,
//!   nesting), walking an item without recursion.
//! - `drop.rs`: dropping deeply nested values without recursion.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

mod check;
mod drop;
mod ext;
mod number;
mod size;

pub use crate::error::type_name;
use crate::error::write_key_part;
pub(crate) use check::{MAX_NESTING, check_depth, check_received, check_values};
pub(crate) use drop::drop_item;
pub use ext::{ItemExt, ttl_value};
pub(crate) use number::{canonical_number, parse_number, read_float};
pub(crate) use size::largest_attributes;
pub use size::{item_size, value_size};

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
///
/// ```
/// assert_eq!(dynamodb_mapper::MAX_ITEM_SIZE, 409_600);
/// ```
pub const MAX_ITEM_SIZE: usize = 409_600;

/// The most significant digits a DynamoDB number may have.
///
/// ```
/// assert_eq!(dynamodb_mapper::MAX_NUMBER_DIGITS, 38);
/// ```
pub const MAX_NUMBER_DIGITS: usize = 38;

/// The primary key of `item` rendered for messages: the table's key
/// attributes present in the item, partition key first, as
/// `pk="CUSTOMER#C1", sk="METADATA"` (strings quoted, numbers as they are,
/// binaries as `<n bytes>`, a value of another type by its type). Empty
/// when the item holds neither key attribute. Long values are cut.
pub(crate) fn describe_key(item: &Item, schema: &crate::schema::TableSchema) -> String {
    let pk = schema.partition_key_attribute().name;
    let sk = schema.sort_key_attribute().map(|k| k.name);
    let mut out = String::new();
    for name in std::iter::once(pk).chain(sk) {
        let Some(value) = item.get(name) else {
            continue;
        };
        if !out.is_empty() {
            out.push_str(", ");
        }
        write_key_part(&mut out, name, value);
    }
    out
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::primitives::Blob;

    use super::*;

    #[test]
    fn keys_are_described_for_messages() {
        use crate::schema::{ScalarType, TableSchema};
        const T: TableSchema = TableSchema::new("pk").sort_key("sk");
        let item = Item::from([
            ("sk".to_string(), AttributeValue::N("7".into())),
            (
                "pk".to_string(),
                AttributeValue::S("CUSTOMER#\"C1\"".into()),
            ),
            ("other".to_string(), AttributeValue::S("x".into())),
        ]);
        assert_eq!(describe_key(&item, &T), r#"pk="CUSTOMER#\"C1\"", sk=7"#);
        let binary = Item::from([("pk".to_string(), AttributeValue::B(Blob::new(vec![0; 3])))]);
        assert_eq!(describe_key(&binary, &T), "pk=<3 bytes>");
        let odd = Item::from([("sk".to_string(), AttributeValue::Bool(true))]);
        assert_eq!(describe_key(&odd, &T), "sk=<a boolean (BOOL)>");
        assert_eq!(describe_key(&Item::new(), &T), "");
        let long = Item::from([("pk".to_string(), AttributeValue::S("x".repeat(100)))]);
        assert_eq!(describe_key(&long, &T), format!("pk={:?}…", "x".repeat(64)));
        const N: TableSchema = TableSchema::new("id").partition_key_type(ScalarType::N);
        let item = Item::from([("id".to_string(), AttributeValue::N("42".into()))]);
        assert_eq!(describe_key(&item, &N), "id=42");
    }
}
