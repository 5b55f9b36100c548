//! An item's size by DynamoDB's rules (names plus values, numbers by their
//! significant digits), measured against DynamoDB Local.

use aws_sdk_dynamodb::types::AttributeValue;

use super::Item;
use super::number::parse_decimal;
use crate::describe::shorten;

/// Size of an item by DynamoDB's rules: UTF-8 bytes of every attribute name
/// plus the size of its value.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::{Item, item_size};
///
/// let item = Item::from([("pk".to_string(), AttributeValue::S("abc".into()))]);
/// assert_eq!(item_size(&item), 5);
/// ```
#[must_use]
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(k, v)| k.len() + value_size(v)).sum()
}

/// Size of one attribute value by DynamoDB's rules.
///
/// Strings and binaries count their bytes; booleans and nulls one byte; lists
/// and maps three bytes plus one byte per element plus the elements (and, for
/// maps, the element names); sets the sum of their elements. A number counts
/// one byte per pair of digits, the pairs aligned on the decimal point (so
/// `1.5` is `01.50`, two pairs), plus one, plus one more when it is negative
/// and shorter than 20 pairs; zero is one byte. That is DynamoDB's documented
/// "one byte per two significant digits plus one", made exact by measuring
/// DynamoDB Local (`tests/limits_local.rs`).
///
/// Lists and maps are walked with an explicit stack, not recursion, so a
/// value of any depth is measured without overflowing the stack.
#[must_use]
pub(crate) fn value_size(value: &AttributeValue) -> usize {
    let mut size = 0;
    // Lists and maps still to measure; scalars are added as they are met.
    let mut pending: Vec<&AttributeValue> = Vec::new();
    let mut next = Some(value);
    while let Some(v) = next.take().or_else(|| pending.pop()) {
        match v {
            AttributeValue::L(list) => {
                size += 3 + list.len();
                for element in list {
                    match element {
                        AttributeValue::L(_) | AttributeValue::M(_) => pending.push(element),
                        scalar => size += scalar_size(scalar),
                    }
                }
            }
            AttributeValue::M(map) => {
                size += 3;
                for (name, element) in map {
                    size += 1 + name.len();
                    match element {
                        AttributeValue::L(_) | AttributeValue::M(_) => pending.push(element),
                        scalar => size += scalar_size(scalar),
                    }
                }
            }
            scalar => size += scalar_size(scalar),
        }
    }
    size
}

/// Size of a value that is not a list or map.
pub(super) fn scalar_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(s) => s.iter().map(String::len).sum(),
        AttributeValue::Ns(n) => n.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(b) => b.iter().map(|b| b.as_ref().len()).sum(),
        _ => 0,
    }
}

fn number_size(n: &str) -> usize {
    match parse_decimal(n) {
        Ok(d) => d.size(),
        Err(_) => n.len(),
    }
}

/// The `n` largest attributes of `item` by DynamoDB's size (name plus value),
/// largest first, for
/// [`ErrorKind::ItemTooLarge`](crate::ErrorKind::ItemTooLarge).
pub(crate) fn largest_attributes(item: &Item, n: usize) -> Vec<(String, usize)> {
    let mut sizes: Vec<(&String, usize)> = item
        .iter()
        .map(|(name, value)| (name, name.len() + value_size(value)))
        .collect();
    sizes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    sizes
        .into_iter()
        .take(n)
        .map(|(name, size)| (shorten(name).into_owned(), size))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use aws_sdk_dynamodb::primitives::Blob;

    use super::*;
    use crate::item::check_values;

    #[test]
    fn number_sizes_as_dynamodb_local_measures_them() {
        // (number, bytes), each measured against DynamoDB Local 3.x.
        for (n, size) in [
            ("0", 1),
            ("-0", 1),
            ("0.0", 1),
            ("1", 2),
            ("10", 2),
            ("99", 2),
            ("100", 2),
            ("101", 3),
            ("1234", 3),
            ("12345", 4),
            ("0.1", 2),
            ("0.001", 2),
            ("1.5", 3),
            ("15e-1", 3),
            ("1.5e1", 2),
            ("1.5e2", 3),
            ("12.5", 3),
            ("-1", 3),
            ("-100", 3),
            ("-123", 4),
            ("-0.1", 3),
            ("-1e-130", 3),
            ("1e125", 2),
            (&"9".repeat(38), 20),
            (&format!("-{}", "9".repeat(38)), 21),
            ("1.0000000000000000000000000000000000001", 21),
            ("-1.0000000000000000000000000000000000001", 21),
            ("-1.2345678901234567890123456789012345678", 21),
            ("0.12345678901234567890123456789012345678", 20),
        ] {
            assert_eq!(value_size(&AttributeValue::N(n.into())), size, "{n}");
        }
    }

    #[test]
    fn sizes() {
        let item = Item::from([
            ("a".to_string(), AttributeValue::S("xyz".into())),
            ("n".to_string(), AttributeValue::N("123".into())),
            ("b".to_string(), AttributeValue::B(Blob::new(vec![0; 10]))),
            (
                "m".to_string(),
                AttributeValue::M(HashMap::from([(
                    "k".to_string(),
                    AttributeValue::Null(true),
                )])),
            ),
        ]);
        // a:1+3, n:1+3, b:1+10, m:1+(3+1+1+1)
        assert_eq!(item_size(&item), 4 + 4 + 11 + 7);
        assert_eq!(check_values(&item).unwrap(), item_size(&item));
    }

    #[test]
    fn the_largest_attributes_are_named() {
        let item = Item::from([
            ("a".to_string(), AttributeValue::S("x".repeat(10))),
            ("bb".to_string(), AttributeValue::S("x".repeat(30))),
            ("c".to_string(), AttributeValue::Bool(true)),
            ("d".to_string(), AttributeValue::S("x".repeat(20))),
        ]);
        assert_eq!(
            largest_attributes(&item, 3),
            vec![
                ("bb".to_string(), 32),
                ("d".to_string(), 21),
                ("a".to_string(), 11)
            ]
        );
    }
}
