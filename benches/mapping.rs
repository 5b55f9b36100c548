//! Per-item overhead of the mapper against `serde_dynamo` plus hand-inserted
//! keys, on the seed-001 order (8 fields, nested lines, pk/sk, 3 GSI pairs,
//! discriminator). Run: `cargo bench --bench mapping`.

#[path = "../tests/fixtures/mod.rs"]
mod fixtures;

use std::hint::black_box;

use aws_sdk_dynamodb::types::AttributeValue;
use criterion::{Criterion, criterion_group, criterion_main};
use dynamodb_mapper::{Item, Mapper, NamingConvention, TableSchema};
use fixtures::*;

/// The order mapper with serde's own names, so its items match what plain
/// `serde_dynamo` produces.
struct OrderAsIs;
impl Mapper for OrderAsIs {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const TABLE: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::AsIs;
    fn before_to_item(o: &Order) -> dynamodb_mapper::Result<()> {
        OrderMapper::before_to_item(o)
    }
    fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
        OrderMapper::after_to_item(o, item)
    }
}

fn s(v: String) -> AttributeValue {
    AttributeValue::S(v)
}

/// The baseline: `serde_dynamo::to_item` and the same keys inserted by hand.
fn serde_dynamo_to_item(o: &Order) -> Item {
    let mut item: Item = serde_dynamo::to_item(o).expect("serializable");
    let date = o.created_at.get(..10).unwrap_or(&o.created_at);
    item.insert("pk".into(), s(format!("CUSTOMER#{}", o.customer_id)));
    item.insert("sk".into(), s(format!("ORDER#{}#{date}", o.order_id)));
    item.insert("entityType".into(), s("Order".into()));
    item.insert("gsi1pk".into(), s(format!("STATUS#{}", o.status.name())));
    item.insert("gsi1sk".into(), s(o.created_at.clone()));
    item.insert("gsi2pk".into(), s("ORDER".into()));
    item.insert("gsi2sk".into(), s(o.created_at.clone()));
    if let (Some(at), Some(_)) = (&o.shipped_at, &o.tracking_number) {
        item.insert("gsi3pk".into(), s("SHIPPED".into()));
        item.insert("gsi3sk".into(), s(at.clone()));
    }
    item
}

/// The baseline read: check the discriminator by hand, then `serde_dynamo`.
fn serde_dynamo_from_item(item: Item) -> Order {
    assert!(matches!(item.get("entityType"), Some(AttributeValue::S(t)) if t == "Order"));
    serde_dynamo::from_item(item).expect("deserializable")
}

fn bench(c: &mut Criterion) {
    let order = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Shipped);
    let item = OrderAsIs::to_item(&order).expect("valid");
    assert_eq!(
        item,
        serde_dynamo_to_item(&order),
        "the two paths write the same item"
    );
    let camel_item = OrderMapper::to_item(&order).expect("valid");

    let mut g = c.benchmark_group("to_item");
    g.bench_function("serde_dynamo+keys", |b| {
        b.iter(|| serde_dynamo_to_item(black_box(&order)))
    });
    g.bench_function("mapper", |b| {
        b.iter(|| OrderAsIs::to_item(black_box(&order)))
    });
    g.bench_function("mapper_camel_case", |b| {
        b.iter(|| OrderMapper::to_item(black_box(&order)))
    });
    g.finish();

    let mut g = c.benchmark_group("from_item");
    g.bench_function("serde_dynamo+check", |b| {
        b.iter_batched(
            || item.clone(),
            serde_dynamo_from_item,
            criterion::BatchSize::SmallInput,
        )
    });
    g.bench_function("serde_dynamo+path_to_error", |b| {
        b.iter_batched(
            || item.clone(),
            |item| {
                let de = serde_dynamo::Deserializer::from_attribute_value(
                    serde_dynamo::AttributeValue::M(serde_dynamo::Item::from(item).into()),
                );
                let o: Order = serde_path_to_error::deserialize(de).expect("ok");
                o
            },
            criterion::BatchSize::SmallInput,
        )
    });
    g.bench_function("mapper", |b| {
        b.iter_batched(
            || item.clone(),
            OrderAsIs::from_item,
            criterion::BatchSize::SmallInput,
        )
    });
    g.bench_function("mapper_camel_case", |b| {
        b.iter_batched(
            || camel_item.clone(),
            OrderMapper::from_item,
            criterion::BatchSize::SmallInput,
        )
    });
    g.bench_function("mapper_record", |b| {
        b.iter_batched(
            || item.clone(),
            OrderAsIs::record_from_item,
            criterion::BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
