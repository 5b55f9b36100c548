//! Instruction counts of the mapping path the README tells users to write
//! (keys declared once in `KEY_PATTERNS`) beside the same mapper writing its
//! keys in a hook, and beside hand-written `AttributeValue` code with and
//! without the mapper's checks (the floors), on the flat seed-001 customer
//! (four string fields, pk/sk, one GSI pair, discriminator) and on the
//! nested seed-001 order (eight fields with a list of maps, pk/sk, three GSI
//! pairs, discriminator); and one key rendered from a `const` pattern beside
//! the same key built with `format!`. Each call's output is dropped inside
//! the measured loop, for every variant alike.
//!
//! Not a criterion bench: `scripts/instructions.sh` runs it under
//! `valgrind --tool=callgrind` twice per variant (no calls, then 2,000) and
//! prints the difference per call, which does not move with the machine's
//! load. By hand: `cargo bench --bench instructions -- <variant> <calls>
//! <prepared inputs>`.

use std::hint::black_box;

use dynamodb_mapper::{Item, KeyPattern, MapperExt};
// The baselines shared with the other benches; this one uses the
// customer's part.
use dynamodb_mapper_support::bench::checked::*;
use dynamodb_mapper_support::bench::*;
use dynamodb_mapper_support::seed001::*;

/// The key the key-rendering variants build: the customer's partition key.
const CUSTOMER_PK: KeyPattern = KeyPattern::partition("CUSTOMER#{customer_id}");

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let variant = args.next().unwrap_or_default();
    let calls: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    // The from_item variants' inputs, cloned before counting starts: the
    // script asks for as many in the run without calls as in the run with
    // them, and what is left is never dropped, so the difference between
    // the runs is the calls alone (each with every drop it does).
    let prepared: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    let customer = Customer {
        customer_id: "C123".into(),
        email: "ada@example.com".into(),
        name: "Ada Lovelace".into(),
        created_at: "2024-01-15T10:30:00Z".into(),
    };
    let order = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Shipped);
    // The same item every way, and each way run once before counting (the
    // per-type caches are filled on first use).
    let floor = hand_customer_to_item(&customer);
    assert_eq!(CustomerPatterns::to_item(&customer).expect("valid"), floor);
    assert_eq!(CustomerAsIs::to_item(&customer).expect("valid"), floor);
    assert_eq!(hand_checked_customer_to_item(&customer), floor);
    let nested_floor = hand_order_with_pattern_keys_to_item(&order);
    assert_eq!(OrderPatterns::to_item(&order).expect("valid"), nested_floor);
    assert_eq!(
        hand_checked_order_with_pattern_keys_to_item(&order),
        nested_floor
    );
    assert_eq!(
        OrderPatterns::from_item(nested_floor.clone()).expect("valid"),
        order
    );
    assert_eq!(hand_checked_from_item(nested_floor.clone()), order);
    assert_eq!(hand_from_item(nested_floor.clone()), order);
    assert_eq!(serde_dynamo_from_item(nested_floor.clone()), order);
    let key = format!("CUSTOMER#{}", customer.customer_id);
    let rendered = CUSTOMER_PK
        .with("customer_id", &customer.customer_id)
        .render();
    assert_eq!(rendered.expect("renders"), key);
    let source = if variant.contains("nested") {
        &nested_floor
    } else {
        &floor
    };
    let mut inputs: Vec<Item> = (0..=prepared).map(|_| source.clone()).collect();
    let mut input = || inputs.pop().unwrap_or_else(|| source.clone());
    let mut one = |variant: &str| -> usize {
        match variant {
            "to_item/patterns" => CustomerPatterns::to_item(black_box(&customer))
                .expect("valid")
                .len(),
            "to_item/hook" => CustomerAsIs::to_item(black_box(&customer))
                .expect("valid")
                .len(),
            "to_item/checked_floor" => hand_checked_customer_to_item(black_box(&customer)).len(),
            "to_item/floor" => hand_customer_to_item(black_box(&customer)).len(),
            "from_item/patterns" => CustomerPatterns::from_item(black_box(input()))
                .expect("valid")
                .name
                .len(),
            "from_item/checked_floor" => hand_checked_customer_from_item(black_box(input()))
                .name
                .len(),
            "to_item/nested_patterns" => OrderPatterns::to_item(black_box(&order))
                .expect("valid")
                .len(),
            "to_item/nested_checked_floor" => {
                hand_checked_order_with_pattern_keys_to_item(black_box(&order)).len()
            }
            "from_item/nested_patterns" => OrderPatterns::from_item(black_box(input()))
                .expect("valid")
                .lines
                .len(),
            "from_item/nested_checked_floor" => {
                hand_checked_from_item(black_box(input())).lines.len()
            }
            // The serde_dynamo read baseline of BENCHMARKS.md's criterion
            // table, counted here as an independent measurement.
            "from_item/nested_floor" => hand_from_item(black_box(input())).lines.len(),
            "from_item/nested_serde_dynamo" => {
                serde_dynamo_from_item(black_box(input())).lines.len()
            }
            "key/pattern" => CUSTOMER_PK
                .with("customer_id", black_box(&customer.customer_id))
                .render()
                .expect("renders")
                .len(),
            "key/format" => format!("CUSTOMER#{}", black_box(&customer.customer_id)).len(),
            other => panic!(
                "unknown variant {other:?}: to_item/patterns, to_item/hook, to_item/checked_floor, \
                 to_item/floor, from_item/patterns, from_item/checked_floor, \
                 to_item/nested_patterns, to_item/nested_checked_floor, \
                 from_item/nested_patterns, from_item/nested_checked_floor, from_item/nested_floor, \
                 from_item/nested_serde_dynamo, key/pattern, key/format"
            ),
        }
    };
    if variant.is_empty() {
        return; // `cargo bench` runs every bench binary: nothing to do here
    }
    black_box(one(&variant));
    for _ in 0..calls {
        black_box(one(&variant));
    }
    std::mem::forget(inputs);
}
