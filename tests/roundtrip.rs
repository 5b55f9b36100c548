//! Property tests: `from_item(to_item(x)) == x` for every fixture entity, and
//! reads never panic on arbitrary items.

mod fixtures;

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::{Item, Mapper};
use fixtures::*;
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    // Any Unicode, including the key delimiter, but never empty (ids end up in keys).
    "\\PC{1,24}"
}

fn timestamp() -> impl Strategy<Value = String> {
    (2000u32..2100, 1u32..13, 1u32..29, 0u32..24, 0u32..60)
        .prop_map(|(y, mo, d, h, mi)| format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:00Z"))
}

fn status() -> impl Strategy<Value = OrderStatus> {
    prop_oneof![
        Just(OrderStatus::Pending),
        Just(OrderStatus::Shipped),
        Just(OrderStatus::Delivered)
    ]
}

prop_compose! {
    fn arb_customer()(customer_id in text(), email in text(), name in ".*", created_at in timestamp()) -> Customer {
        Customer { customer_id, email, name, created_at }
    }
}

prop_compose! {
    fn arb_order()(
        order_id in text(), customer_id in text(), status in status(), created_at in timestamp(),
        shipped_at in proptest::option::of(timestamp()), tracking_number in proptest::option::of(".*"),
        lines in proptest::collection::vec((text(), 0u32..1000, 0u64..1_000_000), 0..8),
    ) -> Order {
        let lines: Vec<OrderLine> = lines.into_iter().map(|(sku, quantity, unit_price_cents)| OrderLine { sku, quantity, unit_price_cents }).collect();
        let total_cents = lines.iter().map(|l| u64::from(l.quantity) * l.unit_price_cents).sum();
        Order { order_id, customer_id, status, total_cents, created_at, shipped_at, tracking_number, lines }
    }
}

prop_compose! {
    fn arb_product()(product_id in text(), category_id in text(), name in text(), price_cents in any::<u64>(), archived_at in proptest::option::of(timestamp())) -> Product {
        Product { product_id, category_id, name, price_cents, is_archived: archived_at.is_some(), archived_at }
    }
}

prop_compose! {
    fn arb_review()(review_id in text(), product_id in text(), user_id in text(), rating in 1u8..=5, comment in ".*", created_at in timestamp()) -> ProductReview {
        ProductReview { review_id, product_id, user_id, rating, comment, created_at }
    }
}

prop_compose! {
    fn arb_session()(session_id in text(), user_id in text(), created_at in timestamp(), expires_at in 0u64..8_000_000_000) -> Session {
        Session { session_id, user_id, created_at, expires_at }
    }
}

fn arb_value() -> impl Strategy<Value = AttributeValue> {
    let leaf = prop_oneof![
        ".*".prop_map(AttributeValue::S),
        prop_oneof![
            any::<i64>().prop_map(|n| n.to_string()),
            "[-+]?[0-9]{0,45}(\\.[0-9]{0,5})?(e[-+]?[0-9]{1,4})?",
            Just("NaN".to_string()),
        ]
        .prop_map(AttributeValue::N),
        any::<bool>().prop_map(AttributeValue::Bool),
        Just(AttributeValue::Null(true)),
        proptest::collection::vec(any::<u8>(), 0..8).prop_map(|b| AttributeValue::B(Blob::new(b))),
        proptest::collection::vec(".*", 0..3).prop_map(AttributeValue::Ss),
        proptest::collection::vec("[0-9]{1,3}", 0..3).prop_map(AttributeValue::Ns),
        Just(()).prop_map(|()| unknown_value()),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(AttributeValue::L),
            proptest::collection::hash_map("[a-zA-Z_]{1,12}", inner, 0..4)
                .prop_map(AttributeValue::M),
        ]
    })
}

fn arb_item() -> impl Strategy<Value = Item> {
    let names = prop_oneof![
        Just("pk".to_string()),
        Just("sk".to_string()),
        Just("entityType".to_string()),
        Just("orderId".to_string()),
        Just("customerId".to_string()),
        Just("status".to_string()),
        Just("totalCents".to_string()),
        Just("createdAt".to_string()),
        Just("lines".to_string()),
        Just("email".to_string()),
        Just("name".to_string()),
        Just("expiresAt".to_string()),
        "[a-zA-Z]{1,10}",
    ];
    let discriminator = prop_oneof![
        Just(AttributeValue::S("Order".into())),
        Just(AttributeValue::S("Customer".into())),
        Just(AttributeValue::S("Session".into())),
        arb_value(),
    ];
    (
        proptest::collection::hash_map(names, arb_value(), 0..12),
        proptest::option::of(discriminator),
    )
        .prop_map(|(mut item, d): (HashMap<String, AttributeValue>, _)| {
            if let Some(d) = d {
                item.insert("entityType".into(), d);
            }
            item
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn customer_round_trips(c in arb_customer()) {
        let item = CustomerMapper::to_item(&c);
        // Keys can exceed DynamoDB's limits only through huge ids; these are short.
        prop_assert_eq!(CustomerMapper::from_item(item.unwrap()).unwrap(), c);
    }

    #[test]
    fn order_round_trips(o in arb_order()) {
        let item = OrderMapper::to_item(&o).unwrap();
        let back = OrderMapper::from_item(item.clone()).unwrap();
        prop_assert_eq!(&back, &o);
        // and the lossless path is the identity on an unchanged record
        let record = OrderMapper::record_from_item(item.clone()).unwrap();
        prop_assert_eq!(OrderMapper::record_to_item(&record).unwrap(), item);
    }

    #[test]
    fn product_round_trips(p in arb_product()) {
        prop_assert_eq!(ProductMapper::from_item(ProductMapper::to_item(&p).unwrap()).unwrap(), p);
    }

    #[test]
    fn review_round_trips(r in arb_review()) {
        prop_assert_eq!(ProductReviewMapper::from_item(ProductReviewMapper::to_item(&r).unwrap()).unwrap(), r);
    }

    #[test]
    fn session_round_trips(s in arb_session()) {
        prop_assert_eq!(SessionMapper::from_item(SessionMapper::to_item(&s).unwrap()).unwrap(), s);
    }

    #[test]
    fn bag_survives_read_change_write(o in arb_order(), extra in proptest::collection::hash_map("x[a-z]{1,8}", arb_value(), 1..4)) {
        let mut stored = OrderMapper::to_item(&o).unwrap();
        stored.extend(extra.clone());
        let mut record = OrderMapper::record_from_item(stored).unwrap();
        record.entity.total_cents = record.entity.total_cents.wrapping_add(0);
        record.entity.lines.clear();
        record.entity.total_cents = 1;
        match OrderMapper::record_to_item(&record) {
            Ok(written) => {
                for (k, v) in &extra {
                    prop_assert_eq!(written.get(k), Some(v));
                }
            }
            // Extra values DynamoDB would reject (NaN, empty sets, Unknown) are refused, naming the attribute.
            Err(e) => prop_assert!(e.attribute().is_some_and(|a| extra.keys().any(|k| a.starts_with(k.as_str()))), "{}", e),
        }
    }

    #[test]
    fn reads_never_panic(item in arb_item()) {
        let _ = OrderMapper::from_item(item.clone());
        let _ = CustomerMapper::record_from_item(item.clone());
        let _ = SessionMapper::from_item(item);
    }

    #[test]
    fn writes_never_panic_and_accepted_items_read_back(c in arb_customer(), extra in proptest::collection::hash_map("[a-z]{1,8}", arb_value(), 0..4)) {
        let bag = dynamodb_mapper::AttributeBag::from(extra);
        if let Ok(item) = CustomerMapper::to_item_with_bag(&c, &bag) {
            prop_assert_eq!(CustomerMapper::from_item(item).unwrap(), c);
        }
    }
}
