//! Per-item cost of the mapper on the seed-001 order (8 fields, nested lines,
//! pk/sk, 3 GSI pairs, discriminator), side by side with `serde_dynamo` plus
//! hand-inserted keys and with hand-written `AttributeValue` code (the floor),
//! and the lossless record path against the plain path.
//! Run: `cargo bench --bench mapping`.

use std::hint::black_box;

use aws_sdk_dynamodb::types::AttributeValue;
use criterion::{Criterion, criterion_group, criterion_main};
use dynamodb_mapper::expr::{Update, attr};
use dynamodb_mapper::key::encode_timestamp;
use dynamodb_mapper::{
    IndexKeys, Item, KeyCondition, KeyPattern, Mapper, MapperExt, NamingConvention, TableSchema,
};
use dynamodb_mapper_support::seed001::*;

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

/// The same mapper declaring the key patterns its hooks write (`by_hook`:
/// written once, by the hook, not also rendered), so every `to_item` also
/// checks the written keys against them.
struct OrderChecked;
impl Mapper for OrderChecked {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const TABLE: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::AsIs;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer_id}"))
            .sort(KeyPattern::sort("ORDER#{order_id}#{date}"))
            .by_hook(),
        IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
            .sort(KeyPattern::sort("{created_at}"))
            .by_hook(),
        IndexKeys::index("GSI2", KeyPattern::partition("ORDER"))
            .sort(KeyPattern::sort("{created_at}"))
            .by_hook(),
        IndexKeys::index("GSI3", KeyPattern::partition("SHIPPED"))
            .sort(KeyPattern::sort("{shipped_at}"))
            .by_hook(),
    ];
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
    item.extend(serde_dynamo_keys(o));
    item
}

/// The baseline read: check the discriminator by hand, then `serde_dynamo`.
fn serde_dynamo_from_item(item: Item) -> Order {
    assert!(matches!(item.get("entityType"), Some(AttributeValue::S(t)) if t == "Order"));
    serde_dynamo::from_item(item).expect("deserializable")
}

fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// The floor: every attribute written by hand.
fn hand_to_item(o: &Order) -> Item {
    let mut item = serde_dynamo_keys(o);
    item.insert("order_id".into(), s(o.order_id.clone()));
    item.insert("customer_id".into(), s(o.customer_id.clone()));
    item.insert("status".into(), s(o.status.name().into()));
    item.insert("total_cents".into(), n(o.total_cents));
    item.insert("created_at".into(), s(o.created_at.clone()));
    let opt = |v: &Option<String>| match v {
        Some(v) => s(v.clone()),
        None => AttributeValue::Null(true),
    };
    item.insert("shipped_at".into(), opt(&o.shipped_at));
    item.insert("tracking_number".into(), opt(&o.tracking_number));
    let lines = o
        .lines
        .iter()
        .map(|l| {
            AttributeValue::M(Item::from([
                ("sku".to_string(), s(l.sku.clone())),
                ("quantity".to_string(), n(l.quantity)),
                ("unit_price_cents".to_string(), n(l.unit_price_cents)),
            ]))
        })
        .collect();
    item.insert("lines".into(), AttributeValue::L(lines));
    item
}

fn serde_dynamo_keys(o: &Order) -> Item {
    let mut item = Item::with_capacity(20);
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

/// The floor read: every attribute taken apart by hand.
fn hand_from_item(mut item: Item) -> Order {
    assert!(matches!(item.get("entityType"), Some(AttributeValue::S(t)) if t == "Order"));
    let mut take_s = |name: &str| match item.remove(name) {
        Some(AttributeValue::S(v)) => v,
        other => panic!("{name}: {other:?}"),
    };
    let order_id = take_s("order_id");
    let customer_id = take_s("customer_id");
    let status = match take_s("status").as_str() {
        "Pending" => OrderStatus::Pending,
        "Shipped" => OrderStatus::Shipped,
        _ => OrderStatus::Delivered,
    };
    let created_at = take_s("created_at");
    let total_cents = match item.remove("total_cents") {
        Some(AttributeValue::N(v)) => v.parse().expect("number"),
        other => panic!("total_cents: {other:?}"),
    };
    let mut opt = |name: &str| match item.remove(name) {
        Some(AttributeValue::S(v)) => Some(v),
        _ => None,
    };
    let shipped_at = opt("shipped_at");
    let tracking_number = opt("tracking_number");
    let lines = match item.remove("lines") {
        Some(AttributeValue::L(lines)) => lines
            .into_iter()
            .map(|l| {
                let AttributeValue::M(mut m) = l else {
                    panic!("line")
                };
                let sku = match m.remove("sku") {
                    Some(AttributeValue::S(v)) => v,
                    other => panic!("sku: {other:?}"),
                };
                let mut num = |name: &str| match m.remove(name) {
                    Some(AttributeValue::N(v)) => v.parse::<u64>().expect("number"),
                    other => panic!("{name}: {other:?}"),
                };
                OrderLine {
                    sku,
                    quantity: num("quantity") as u32,
                    unit_price_cents: num("unit_price_cents"),
                }
            })
            .collect(),
        other => panic!("lines: {other:?}"),
    };
    Order {
        order_id,
        customer_id,
        status,
        total_cents,
        created_at,
        shipped_at,
        tracking_number,
        lines,
    }
}

fn bench(c: &mut Criterion) {
    let order = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Shipped);
    let item = OrderAsIs::to_item(&order).expect("valid");
    assert_eq!(
        item,
        serde_dynamo_to_item(&order),
        "the paths write the same item"
    );
    assert_eq!(item, hand_to_item(&order), "the floor writes the same item");
    assert_eq!(hand_from_item(item.clone()), order);
    let camel_item = OrderMapper::to_item(&order).expect("valid");
    assert_eq!(OrderChecked::to_item(&order).expect("valid"), item);
    // A stored item with attributes the mapper does not know, for the record path.
    let mut stored = item.clone();
    stored.insert("giftNote".into(), s("happy birthday".into()));
    stored.insert("loyaltyTier".into(), s("gold".into()));
    let record = OrderAsIs::record_from_item(stored.clone()).expect("valid");
    let small = criterion::BatchSize::SmallInput;

    let mut g = c.benchmark_group("to_item");
    g.bench_function("hand_written", |b| {
        b.iter(|| hand_to_item(black_box(&order)))
    });
    g.bench_function("serde_dynamo+keys", |b| {
        b.iter(|| serde_dynamo_to_item(black_box(&order)))
    });
    g.bench_function("mapper", |b| {
        b.iter(|| OrderAsIs::to_item(black_box(&order)))
    });
    g.bench_function("mapper_camel_case", |b| {
        b.iter(|| OrderMapper::to_item(black_box(&order)))
    });
    g.bench_function("mapper_key_patterns_checked", |b| {
        b.iter(|| OrderChecked::to_item(black_box(&order)))
    });
    g.bench_function("mapper_record", |b| {
        b.iter(|| OrderAsIs::record_to_item(black_box(&record)))
    });
    g.bench_function("mapper_plain_same_entity", |b| {
        b.iter(|| OrderAsIs::to_item(black_box(&record.entity)))
    });
    g.finish();

    let mut g = c.benchmark_group("from_item");
    g.bench_function("hand_written", |b| {
        b.iter_batched(|| item.clone(), hand_from_item, small)
    });
    g.bench_function("serde_dynamo+check", |b| {
        b.iter_batched(|| item.clone(), serde_dynamo_from_item, small)
    });
    g.bench_function("mapper", |b| {
        b.iter_batched(|| item.clone(), OrderAsIs::from_item, small)
    });
    g.bench_function("mapper_camel_case", |b| {
        b.iter_batched(|| camel_item.clone(), OrderMapper::from_item, small)
    });
    // The record path against the plain path, on the same stored item.
    g.bench_function("mapper_plain_stored", |b| {
        b.iter_batched(|| stored.clone(), OrderAsIs::from_item, small)
    });
    g.bench_function("mapper_record_stored", |b| {
        b.iter_batched(|| stored.clone(), OrderAsIs::record_from_item, small)
    });
    g.finish();

    // Key rendering and expression building, next to the mapping they serve.
    const CUSTOMER_PK: KeyPattern = KeyPattern::partition("CUSTOMER#{customer_id}");
    const ORDER_SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}#{created:ts3}");
    let created = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_705_314_600);
    let mut g = c.benchmark_group("keys_and_expressions");
    g.bench_function("mapper_to_item", |b| {
        b.iter(|| OrderAsIs::to_item(black_box(&order)))
    });
    g.bench_function("render_pk_and_sk", |b| {
        b.iter(|| {
            let pk = CUSTOMER_PK
                .with("customer_id", black_box("C1"))
                .render()
                .expect("renders");
            let sk = ORDER_SK
                .with("order_id", black_box("O1"))
                .with("created", created)
                .render()
                .expect("renders");
            (pk, sk)
        })
    });
    // The same two keys written by hand (no escaping), the floor.
    g.bench_function("format_pk_and_sk", |b| {
        b.iter(|| {
            let pk = format!("CUSTOMER#{}", black_box("C1"));
            let at = encode_timestamp(created, 3).expect("encodes");
            let sk = format!("ORDER#{}#{at}", black_box("O1"));
            (pk, sk)
        })
    });
    let sk = ORDER_SK
        .with("order_id", "O1")
        .with("created", created)
        .render()
        .expect("renders");
    g.bench_function("parse_sk", |b| {
        b.iter(|| ORDER_SK.parse(black_box(&sk)).expect("parses"))
    });
    g.bench_function("key_condition_begins_with", |b| {
        b.iter(|| {
            KeyCondition::new(APP_TABLE, black_box("CUSTOMER#C1"))
                .sort_begins_with(black_box("ORDER#"))
                .build()
                .expect("builds")
        })
    });
    // Updates: the builder (three actions, one a computation) next to
    // `to_item`, and the typed partial update, which writes both entities
    // (two `to_item`s) and compares them.
    g.bench_function("update_builder", |b| {
        b.iter(|| {
            Update::new()
                .set(attr("status"), black_box("Shipped"))
                .set(attr("trackingNumber"), black_box("TRK1"))
                .set(attr("totalCents"), attr("totalCents").plus(black_box(100)))
                .build()
                .expect("builds")
        })
    });
    // The same update written by hand for the SDK (text, names, values),
    // the floor.
    g.bench_function("update_hand_written", |b| {
        b.iter(|| {
            let names = std::collections::HashMap::from([
                ("#s".to_owned(), "status".to_owned()),
                ("#t".to_owned(), "trackingNumber".to_owned()),
                ("#c".to_owned(), "totalCents".to_owned()),
            ]);
            let values = std::collections::HashMap::from([
                (":s".to_owned(), s(black_box("Shipped").to_owned())),
                (":t".to_owned(), s(black_box("TRK1").to_owned())),
                (
                    ":c".to_owned(),
                    AttributeValue::N(black_box(100).to_string()),
                ),
            ]);
            (
                "SET #s = :s, #t = :t, #c = #c + :c".to_owned(),
                names,
                values,
            )
        })
    });
    let mut delivered = order.clone();
    delivered.status = OrderStatus::Delivered;
    delivered.tracking_number = Some("TRK1".into());
    g.bench_function("update_between", |b| {
        b.iter(|| {
            Update::between::<OrderAsIs>(black_box(&order), black_box(&delivered)).expect("diffs")
        })
    });
    g.bench_function("filter_condition", |b| {
        b.iter(|| {
            (attr("status").eq(black_box("Shipped")) & attr("totalCents").gt(black_box(1000)))
                .build()
                .expect("builds")
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
