//! The mapper's checks written by hand for the seed-001 layout, and the
//! floor reads and writes with them: a second floor for `benches/mapping.rs`
//! and `benches/instructions.rs` that tells the mapping's own cost from the
//! cost of the checks issue #20 says to keep.

use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::Item;

use super::{
    hand_customer_from_item, hand_customer_to_item, hand_from_item,
    hand_order_with_pattern_keys_to_item, hand_to_item,
};
use crate::seed001::{Customer, Order};

/// The checks the mapper keeps on every write, written by hand for the
/// seed-001 layout, as a careful hand-written writer would before sending:
/// table keys present, strings, non-empty and within DynamoDB's limits;
/// each index's keys both present or both absent; the TTL a whole number;
/// the discriminator; every name non-empty and every value valid, nested at
/// most 32 levels (31 inside a top-level attribute); the item within 400 KB. A second floor: the mapping's own
/// cost, apart from the cost of the checks issue #20 says to keep.
#[inline]
pub fn hand_check_write(item: &Item, entity_type: &str) {
    let key = |name: &str, limit: usize| match item.get(name) {
        Some(AttributeValue::S(v)) => {
            assert!(!v.is_empty() && v.len() <= limit, "{name}");
            true
        }
        None => false,
        Some(other) => panic!("{name}: {other:?}"),
    };
    assert!(key("pk", 2048) && key("sk", 1024));
    for (pk, sk) in [
        ("gsi1pk", "gsi1sk"),
        ("gsi2pk", "gsi2sk"),
        ("gsi3pk", "gsi3sk"),
    ] {
        assert_eq!(key(pk, 2048), key(sk, 1024), "{pk}/{sk}");
    }
    match item.get("ttl") {
        None => {}
        Some(AttributeValue::N(n)) => assert!(n.parse::<u64>().is_ok(), "ttl"),
        Some(other) => panic!("ttl: {other:?}"),
    }
    assert!(matches!(item.get("entityType"), Some(AttributeValue::S(t)) if t == entity_type));
    let size: usize = item
        .iter()
        .map(|(name, value)| {
            assert!(!name.is_empty() && name.len() <= 65_536, "{name}");
            name.len() + hand_value_size(value, 1)
        })
        .sum();
    assert!(size <= 400 * 1024, "{size} bytes");
}

/// A value's size as DynamoDB counts it (numbers by their text), checked
/// on the way: numbers parse as finite floats (looser than the library's
/// 38-digit decimal rule), names are not empty nor too long, sets are not
/// empty (their members are not compared: neither bench item has a set),
/// lists and maps nest at most 32 levels, every type is known.
#[inline]
fn hand_value_size(value: &AttributeValue, depth: usize) -> usize {
    let number = |n: &String| {
        assert!(n.parse::<f64>().is_ok_and(f64::is_finite), "{n}");
        n.len()
    };
    match value {
        AttributeValue::S(v) => v.len(),
        AttributeValue::N(n) => number(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::L(list) => {
            assert!(depth <= 31, "nested too deep");
            3 + list
                .iter()
                .map(|v| 1 + hand_value_size(v, depth + 1))
                .sum::<usize>()
        }
        AttributeValue::M(map) => {
            assert!(depth <= 31, "nested too deep");
            3 + map
                .iter()
                .map(|(k, v)| {
                    assert!(!k.is_empty() && k.len() <= 65_536, "{k}");
                    1 + k.len() + hand_value_size(v, depth + 1)
                })
                .sum::<usize>()
        }
        AttributeValue::Ss(set) => {
            assert!(!set.is_empty());
            set.iter().map(String::len).sum()
        }
        AttributeValue::Ns(set) => {
            assert!(!set.is_empty());
            set.iter().map(number).sum()
        }
        AttributeValue::Bs(set) => {
            assert!(!set.is_empty());
            set.iter().map(|b| b.as_ref().len()).sum()
        }
        other => panic!("unknown type {other:?}"),
    }
}

/// The checks the mapper keeps on every read before its hooks and the
/// deserializer see the item, by hand: every value of a known type, sets
/// not empty (members not compared: neither bench item has a set), lists and
/// maps nested at most 32 levels. (The discriminator is the
/// hand-written readers' own first line.)
#[inline]
pub fn hand_check_read(item: &Item) {
    #[inline]
    fn known(value: &AttributeValue, depth: usize) -> bool {
        match value {
            AttributeValue::S(_)
            | AttributeValue::N(_)
            | AttributeValue::B(_)
            | AttributeValue::Bool(_)
            | AttributeValue::Null(_) => true,
            AttributeValue::L(list) => depth <= 31 && list.iter().all(|v| known(v, depth + 1)),
            AttributeValue::M(map) => depth <= 31 && map.values().all(|v| known(v, depth + 1)),
            AttributeValue::Ss(set) => !set.is_empty(),
            AttributeValue::Ns(set) => !set.is_empty(),
            AttributeValue::Bs(set) => !set.is_empty(),
            _ => false,
        }
    }
    assert!(
        item.values().all(|v| known(v, 1)),
        "a value the reader cannot take"
    );
}

/// The floor write with the mapper's checks written by hand.
#[inline]
pub fn hand_checked_to_item(o: &Order) -> Item {
    let item = hand_to_item(o);
    hand_check_write(&item, "Order");
    item
}

/// The floor write of the order with the keys its `KEY_PATTERNS` mapper
/// renders, with the mapper's checks written by hand.
#[inline]
pub fn hand_checked_order_with_pattern_keys_to_item(o: &Order) -> Item {
    let item = hand_order_with_pattern_keys_to_item(o);
    hand_check_write(&item, "Order");
    item
}

/// The flat floor write with the mapper's checks written by hand.
#[inline]
pub fn hand_checked_customer_to_item(c: &Customer) -> Item {
    let item = hand_customer_to_item(c);
    hand_check_write(&item, "Customer");
    item
}

/// The floor read with the mapper's checks written by hand.
#[inline]
pub fn hand_checked_from_item(item: Item) -> Order {
    hand_check_read(&item);
    hand_from_item(item)
}

/// The flat floor read with the mapper's checks written by hand.
#[inline]
pub fn hand_checked_customer_from_item(item: Item) -> Customer {
    hand_check_read(&item);
    hand_customer_from_item(item)
}
