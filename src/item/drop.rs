//! Dropping items and values without recursion: the derived `Drop` of a
//! deeply nested `AttributeValue` would overflow the stack.

use aws_sdk_dynamodb::types::AttributeValue;

use super::Item;

/// Drops an item without recursion: lists and maps are taken apart with an
/// explicit stack, so an item nested arbitrarily deep (one the depth check
/// refused) is freed without overflowing the stack, as the derived `Drop`
/// of `AttributeValue` would.
pub(crate) fn drop_item(item: Item) {
    let mut pending: Vec<AttributeValue> = Vec::new();
    for (_, value) in item {
        drop_value(value, &mut pending);
    }
}

/// Drops `value` as [`drop_item`] does; `pending` is scratch space, empty on
/// return.
pub(super) fn drop_value(value: AttributeValue, pending: &mut Vec<AttributeValue>) {
    pending.push(value);
    while let Some(value) = pending.pop() {
        match value {
            AttributeValue::L(list) => pending.extend(
                list.into_iter()
                    .filter(|v| matches!(v, AttributeValue::L(_) | AttributeValue::M(_))),
            ),
            AttributeValue::M(map) => pending.extend(
                map.into_values()
                    .filter(|v| matches!(v, AttributeValue::L(_) | AttributeValue::M(_))),
            ),
            // Not a list or map: nothing nested to overflow on.
            _ => {}
        }
    }
}
