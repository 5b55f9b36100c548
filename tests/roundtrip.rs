//! Property tests: `from_item(to_item(x)) == x` for every fixture entity,
//! attributes a mapper does not know survive a read, change and write, and
//! reads (by a mapper or a registry) never panic on arbitrary items.

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::{Decoded, Item, Mapper, MapperExt, MissingPolicy, Registry, UnknownPolicy};
use dynamodb_mapper_support::seed000::*;
use dynamodb_mapper_support::seed001::*;
use dynamodb_mapper_support::seed004::invoices::*;
use dynamodb_mapper_support::values::unknown_value;
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

prop_compose! {
    fn arb_counter()(counter_id in text(), count in any::<u64>()) -> Counter {
        Counter { counter_id, count }
    }
}

prop_compose! {
    fn arb_tenant()(tenant_id in text(), id in text(), name in ".*", extra in ".*", level in any::<u8>())
        -> (User, UserMetadata, TenantOrder, Person, Employee, Manager) {
        (
            User { tenant_id: tenant_id.clone(), user_id: id.clone(), name: name.clone() },
            UserMetadata { tenant_id: tenant_id.clone(), user_id: id.clone(), theme: extra.clone() },
            // A key component: never empty.
            TenantOrder { tenant_id: tenant_id.clone(), order_id: id.clone(), date: format!("D{extra}"), total_cents: u64::from(level) },
            Person { tenant_id: tenant_id.clone(), person_id: id.clone(), name: name.clone() },
            Employee { tenant_id: tenant_id.clone(), person_id: id.clone(), name: name.clone(), department: extra.clone() },
            Manager { tenant_id, person_id: id, name, department: extra, manager_level: level },
        )
    }
}

prop_compose! {
    fn arb_invoice()(invoice_id in text(), other in text(), text_ in ".*", line in any::<u32>(), n in any::<u64>(), q in any::<u32>())
        -> (Invoice, InvoiceItem, InvoiceStatus, InvoiceSummary) {
        (
            Invoice { invoice_id: invoice_id.clone(), customer_id: other.clone(), invoice_date: text_.clone(), total_cents: n },
            InvoiceItem { invoice_id: invoice_id.clone(), line_number: line, product_id: other.clone(), description: text_.clone(), quantity: q, unit_price_cents: n },
            InvoiceStatus { invoice_id: invoice_id.clone(), status: text_.clone(), timestamp: other.clone(), changed_by: text_ },
            InvoiceSummary { invoice_id, total_cents: n, item_count: q },
        )
    }
}

/// `from_item(to_item(x)) == x`, and the lossless path is the identity on
/// an unchanged record.
fn round_trips<M: Mapper>(entity: &M::Entity) -> Result<(), TestCaseError>
where
    M::Entity: PartialEq + std::fmt::Debug,
{
    let item = M::to_item(entity).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&M::from_item(item.clone()).unwrap(), entity);
    let record = M::record_from_item(item.clone()).unwrap();
    prop_assert_eq!(M::record_to_item(&record).unwrap(), item);
    Ok(())
}

/// A received item with a set DynamoDB never stores (empty, duplicate or
/// invalid members) among `extra` is refused on read, naming the attribute.
fn refused_on_read(
    e: &dynamodb_mapper::Error,
    extra: &HashMap<String, AttributeValue>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(e.kind(), dynamodb_mapper::ErrorKind::InvalidValue);
    prop_assert!(
        e.attribute()
            .is_some_and(|a| extra.keys().any(|k| a.starts_with(k.as_str()))),
        "{}",
        e
    );
    prop_assert!(e.to_string().contains(" set"), "{}", e);
    Ok(())
}

/// Attributes the mapper does not know survive read, change, write; values
/// DynamoDB would reject are refused, naming the attribute.
fn bag_survives<M: Mapper>(
    entity: &M::Entity,
    extra: &HashMap<String, AttributeValue>,
    change: impl FnOnce(&mut M::Entity),
) -> Result<(), TestCaseError> {
    let mut stored = M::to_item(entity).map_err(|e| TestCaseError::fail(e.to_string()))?;
    stored.extend(extra.clone());
    let mut record = match M::record_from_item(stored) {
        Ok(record) => record,
        Err(e) => return refused_on_read(&e, extra),
    };
    for (k, v) in extra {
        prop_assert_eq!(record.bag.get(k), Some(v));
    }
    change(&mut record.entity);
    match M::record_to_item(&record) {
        Ok(written) => {
            for (k, v) in extra {
                prop_assert_eq!(written.get(k), Some(v));
            }
            // ...and a second read-write keeps them again.
            let again = M::record_to_item(&M::record_from_item(written.clone()).unwrap()).unwrap();
            prop_assert_eq!(again, written);
        }
        Err(e) => prop_assert!(
            e.attribute()
                .is_some_and(|a| extra.keys().any(|k| a.starts_with(k.as_str()))),
            "{}",
            e
        ),
    }
    Ok(())
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
    fn bag_survives_read_change_write(o in arb_order(), extra in proptest::collection::hash_map("x[a-z]{1,8}", arb_value(), 1..4)) {
        let mut stored = OrderMapper::to_item(&o).unwrap();
        stored.extend(extra.clone());
        let mut record = match OrderMapper::record_from_item(stored) {
            Ok(record) => record,
            Err(e) => return refused_on_read(&e, &extra),
        };
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
    fn counter_round_trips(c in arb_counter()) {
        round_trips::<CounterMapper>(&c)?;
    }

    #[test]
    fn seed000_entities_round_trip((u, m, o, p, e, mgr) in arb_tenant()) {
        round_trips::<UserMapper>(&u)?;
        round_trips::<UserMetadataMapper>(&m)?;
        round_trips::<TenantOrderMapper>(&o)?;
        round_trips::<PersonMapper>(&p)?;
        round_trips::<EmployeeMapper>(&e)?;
        round_trips::<ManagerMapper>(&mgr)?;
    }

    #[test]
    fn seed004_entities_round_trip((i, line, status, summary) in arb_invoice()) {
        round_trips::<InvoiceMapper>(&i)?;
        round_trips::<InvoiceItemMapper>(&line)?;
        round_trips::<InvoiceStatusMapper>(&status)?;
        round_trips::<InvoiceSummaryMapper>(&summary)?;
    }

    #[test]
    fn every_seed001_entity_round_trips_losslessly(
        c in arb_customer(), o in arb_order(), p in arb_product(), r in arb_review(), s in arb_session(),
    ) {
        round_trips::<CustomerMapper>(&c)?;
        round_trips::<OrderMapper>(&o)?;
        round_trips::<ProductMapper>(&p)?;
        round_trips::<ProductReviewMapper>(&r)?;
        round_trips::<SessionMapper>(&s)?;
    }

    #[test]
    fn bags_survive_for_every_kind_of_entity(
        c in arb_customer(), k in arb_counter(), (u, ..) in arb_tenant(), (_, line, ..) in arb_invoice(),
        extra in proptest::collection::hash_map("x[a-zA-Z0-9_]{1,8}", arb_value(), 1..4),
    ) {
        bag_survives::<CustomerMapper>(&c, &extra, |c| c.name.push('!'))?;
        bag_survives::<CounterMapper>(&k, &extra, |k| k.count = k.count.wrapping_add(1))?;
        bag_survives::<UserMapper>(&u, &extra, |u| u.name.clear())?;
        bag_survives::<InvoiceItemMapper>(&line, &extra, |l| l.quantity = l.quantity.wrapping_mul(3))?;
    }

    #[test]
    fn a_bag_never_overrides_what_the_mapper_owns(
        o in arb_order(), stale in proptest::collection::hash_map(
            prop_oneof![Just("gsi3pk"), Just("gsi3sk"), Just("entityType"), Just("status"), Just("pk"), Just("ttl")]
                .prop_map(str::to_owned),
            arb_value(), 1..4),
    ) {
        // Attributes the mapper owns or reads as fields never enter the bag,
        // so they cannot come back from it (a sparse index key the hook stops
        // writing stays gone).
        let bag = stale.clone();
        if let Ok(item) = OrderMapper::to_item_with_bag(&o, &bag) {
            prop_assert_eq!(item, OrderMapper::to_item(&o).unwrap());
        }
    }

    #[test]
    fn reads_never_panic(item in arb_item()) {
        let _ = OrderMapper::from_item(item.clone());
        let _ = CustomerMapper::record_from_item(item.clone());
        let _ = SessionMapper::from_item(item.clone());
        let _ = ProductMapper::record_from_item(item.clone());
        let _ = ProductReviewMapper::from_item(item.clone());
        let _ = CounterMapper::record_from_item(item.clone());
        let _ = UserMapper::from_item(item.clone());
        let _ = ManagerMapper::record_from_item(item.clone());
        let _ = InvoiceItemMapper::from_item(item);
    }

    #[test]
    fn registry_decoding_never_panics(items in proptest::collection::vec(arb_item(), 0..6), policy in 0usize..3) {
        let (unknown, missing) = [
            (UnknownPolicy::Error, MissingPolicy::Error),
            (UnknownPolicy::Skip, MissingPolicy::Skip),
            (UnknownPolicy::Keep, MissingPolicy::Keep),
        ][policy];
        let registry = Registry::builder()
            .register::<CustomerMapper>(CustomerPartition::Customer)
            .register::<OrderMapper>(CustomerPartition::Order)
            .group("Orders", &["Order"])
            .on_unknown(unknown)
            .on_missing(missing)
            .build()
            .unwrap();
        let mut any_error = false;
        for item in &items {
            match registry.decode(item.clone()) {
                Ok(Decoded::Entity(_) | Decoded::Skipped(_) | Decoded::Raw(_)) => {}
                Err(e) => {
                    any_error = true;
                    prop_assert!(!e.to_string().is_empty());
                }
            }
        }
        let all = registry.decode_all(items.clone());
        prop_assert_eq!(all.is_err(), any_error);
        if let Ok(out) = all {
            prop_assert_eq!(out.entities.len() + out.skipped.len() + out.raw.len(), items.len());
        }
        let _ = registry.group("Orders").unwrap().decode_all(items.clone());
        let mut buckets = registry.buckets(items);
        let _ = buckets.optional::<CustomerMapper>();
        let _ = buckets.many::<OrderMapper>();
        let _ = buckets.finish();
    }

    #[test]
    fn writes_never_panic_and_accepted_items_read_back(c in arb_customer(), extra in proptest::collection::hash_map("[a-z]{1,8}", arb_value(), 0..4)) {
        let bag = extra;
        if let Ok(item) = CustomerMapper::to_item_with_bag(&c, &bag) {
            prop_assert_eq!(CustomerMapper::from_item(item).unwrap(), c);
        }
    }
}
