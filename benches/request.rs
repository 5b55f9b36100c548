//! The whole request path, measured as the Java v2 Enhanced Client's own
//! benchmarks measure it: an SDK client whose HTTP client answers at once
//! with a canned response (no network, no server), so each figure is the
//! mapping plus the SDK's request serialization, signing, response parsing
//! and orchestration.
//!
//! Three items: tiny (a seed-001 customer, 10 attributes), small (the seed-001
//! order with two lines, 17 attributes) and large (the same order with
//! thousands of lines, about 350 KB). Each is written (`PutItem`) and read
//! (`GetItem`) four ways: hand-written `AttributeValue` code with the plain
//! SDK (the floor), `serde_dynamo` plus hand-inserted keys, modyne, and this
//! crate's mapper. Hand-written, `serde_dynamo` and the mapper send the same
//! item (checked before measuring); modyne sends its own layout (`PK`, `SK`,
//! `GSI1PK`, ..., `entity_type`) of the same entity.
//!
//! Run: `cargo bench --bench request`.

use std::hint::black_box;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use dynamodb_mapper::{Item, Mapper, MapperExt, item_size};
use dynamodb_mapper_support::bench::*;
use dynamodb_mapper_support::requests::canned_client;
use dynamodb_mapper_support::seed001::*;

const TABLE: &str = "AppTable";

/// Lines in the large order: about 350 KB of item.
const LARGE_LINES: usize = 7_150;

/// The same entities through modyne: its table (`PK`/`SK`, `GSI1`..`GSI3`)
/// and an `Entity` implementation per entity, on newtypes (the entities and
/// modyne's traits are both foreign here).
mod with_modyne {
    use aws_sdk_dynamodb::Client;
    use dynamodb_mapper_support::seed001::{Customer, Order};
    use modyne::{Entity, EntityDef, EntityTypeNameRef, Table, keys};
    use serde::{Deserialize, Serialize};

    pub struct AppTable(pub Client);

    impl Table for AppTable {
        type PrimaryKey = keys::Primary;
        type IndexKeys = (keys::Gsi1, keys::Gsi2, keys::Gsi3);
        fn table_name(&self) -> &str {
            super::TABLE
        }
        fn client(&self) -> &Client {
            &self.0
        }
    }

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(transparent)]
    pub struct ModyneCustomer(pub Customer);

    impl EntityDef for ModyneCustomer {
        const ENTITY_TYPE: &'static EntityTypeNameRef = EntityTypeNameRef::from_static("Customer");
    }

    impl Entity for ModyneCustomer {
        type KeyInput<'a> = &'a str;
        type Table = AppTable;
        type IndexKeys = keys::Gsi1;
        fn primary_key(customer_id: &str) -> keys::Primary {
            keys::Primary {
                hash: format!("CUSTOMER#{customer_id}"),
                range: "METADATA".into(),
            }
        }
        fn full_key(&self) -> keys::FullKey<keys::Primary, keys::Gsi1> {
            keys::FullKey {
                primary: Self::primary_key(&self.0.customer_id),
                indexes: keys::Gsi1 {
                    hash: format!("EMAIL#{}", self.0.email),
                    range: format!("CUSTOMER#{}", self.0.customer_id),
                },
            }
        }
    }

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(transparent)]
    pub struct ModyneOrder(pub Order);

    impl EntityDef for ModyneOrder {
        const ENTITY_TYPE: &'static EntityTypeNameRef = EntityTypeNameRef::from_static("Order");
    }

    /// (customer id, order id, date).
    type OrderKey<'a> = (&'a str, &'a str, &'a str);

    impl Entity for ModyneOrder {
        type KeyInput<'a> = OrderKey<'a>;
        type Table = AppTable;
        type IndexKeys = (keys::Gsi1, keys::Gsi2, Option<keys::Gsi3>);
        fn primary_key((customer_id, order_id, date): OrderKey<'_>) -> keys::Primary {
            keys::Primary {
                hash: format!("CUSTOMER#{customer_id}"),
                range: format!("ORDER#{order_id}#{date}"),
            }
        }
        fn full_key(&self) -> keys::FullKey<keys::Primary, Self::IndexKeys> {
            let o = &self.0;
            let date = o.created_at.get(..10).unwrap_or(&o.created_at);
            let shipped = match (&o.shipped_at, &o.tracking_number) {
                (Some(at), Some(tracking)) if !tracking.is_empty() => Some(keys::Gsi3 {
                    hash: "SHIPPED".into(),
                    range: at.clone(),
                }),
                _ => None,
            };
            keys::FullKey {
                primary: Self::primary_key((&o.customer_id, &o.order_id, date)),
                indexes: (
                    keys::Gsi1 {
                        hash: format!("STATUS#{}", o.status.name()),
                        range: o.created_at.clone(),
                    },
                    keys::Gsi2 {
                        hash: "ORDER".into(),
                        range: o.created_at.clone(),
                    },
                    shipped,
                ),
            }
        }
    }
}
use with_modyne::{AppTable, ModyneCustomer, ModyneOrder};

/// DynamoDB's JSON for a value, as a `GetItem` response carries it.
fn wire(v: &AttributeValue) -> serde_json::Value {
    use serde_json::json;
    match v {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(_) => json!({ "NULL": true }),
        AttributeValue::L(l) => json!({ "L": l.iter().map(wire).collect::<Vec<_>>() }),
        AttributeValue::M(m) => json!({ "M": wire_map(m) }),
        AttributeValue::Ss(s) => json!({ "SS": s }),
        AttributeValue::Ns(s) => json!({ "NS": s }),
        other => panic!("the bench items hold no {other:?}"),
    }
}

fn wire_map(item: &Item) -> serde_json::Map<String, serde_json::Value> {
    item.iter().map(|(k, v)| (k.clone(), wire(v))).collect()
}

/// A client answering every `GetItem` with `item`.
fn answering(item: &Item) -> Client {
    canned_client(bytes::Bytes::from(
        serde_json::json!({ "Item": wire_map(item) }).to_string(),
    ))
}

/// One entity's way through each library: how to write it, read it and
/// address it.
struct Case<E> {
    size: &'static str,
    entity: E,
    hand_to_item: fn(&E) -> Item,
    hand_from_item: fn(Item) -> E,
    serde_dynamo_to_item: fn(&E) -> Item,
    serde_dynamo_from_item: fn(Item) -> E,
    key: fn(&E) -> Item,
}

/// What the bench needs of the mapper and modyne types of an entity.
trait Peers: Clone + PartialEq + std::fmt::Debug + 'static {
    type Mapper: Mapper<Entity = Self>;
    type Modyne: modyne::Entity + serde::Serialize + for<'de> serde::Deserialize<'de>;
    fn modyne(self) -> Self::Modyne;
    fn from_modyne(m: Self::Modyne) -> Self;
    /// A `GetItem` of the entity through modyne.
    fn modyne_get(&self) -> modyne::model::Get;
}

impl Peers for Customer {
    type Mapper = CustomerAsIs;
    type Modyne = ModyneCustomer;
    fn modyne(self) -> ModyneCustomer {
        ModyneCustomer(self)
    }
    fn from_modyne(m: ModyneCustomer) -> Self {
        m.0
    }
    fn modyne_get(&self) -> modyne::model::Get {
        use modyne::EntityExt;
        ModyneCustomer::get(&self.customer_id)
    }
}

impl Peers for Order {
    type Mapper = OrderAsIs;
    type Modyne = ModyneOrder;
    fn modyne(self) -> ModyneOrder {
        ModyneOrder(self)
    }
    fn from_modyne(m: ModyneOrder) -> Self {
        m.0
    }
    fn modyne_get(&self) -> modyne::model::Get {
        use modyne::EntityExt;
        let date = self.created_at.get(..10).unwrap_or(&self.created_at);
        ModyneOrder::get((&self.customer_id, &self.order_id, date))
    }
}

fn bench_case<E: Peers>(c: &mut Criterion, rt: &tokio::runtime::Runtime, case: &Case<E>) {
    use modyne::{EntityExt, ProjectionExt};
    let entity = &case.entity;
    let item = E::Mapper::to_item(entity).expect("valid");
    assert_eq!(
        item,
        (case.hand_to_item)(entity),
        "the floor writes the mapper's item"
    );
    assert_eq!(
        item,
        (case.serde_dynamo_to_item)(entity),
        "serde_dynamo too"
    );
    let modyne_item = entity.clone().modyne().into_item();
    println!(
        "{}: {} attributes, {} bytes (modyne's layout: {} bytes)",
        case.size,
        item.len(),
        item_size(&item),
        item_size(&modyne_item)
    );
    let writes = canned_client("{}");
    let modyne_writes = AppTable(writes.clone());
    let reads = answering(&item);
    let modyne_reads = AppTable(answering(&modyne_item));
    let key = (case.key)(entity);

    // Each read way reads the entity back from its canned answer.
    let get = || {
        rt.block_on(
            reads
                .get_item()
                .table_name(TABLE)
                .set_key(Some(key.clone()))
                .send(),
        )
        .expect("canned")
        .item
        .expect("an item")
    };
    assert_eq!(&(case.hand_from_item)(get()), entity);
    assert_eq!(&(case.serde_dynamo_from_item)(get()), entity);
    assert_eq!(&E::Mapper::from_item(get()).expect("valid"), entity);
    let read_modyne = || {
        let out = rt
            .block_on(entity.modyne_get().execute(&modyne_reads))
            .expect("canned");
        E::from_modyne(E::Modyne::from_item(out.item.expect("an item")).expect("valid"))
    };
    assert_eq!(&read_modyne(), entity);

    let mut g = c.benchmark_group(format!("put_{}", case.size));
    let put = |item: Item| {
        rt.block_on(
            writes
                .put_item()
                .table_name(TABLE)
                .set_item(Some(item))
                .send(),
        )
        .expect("canned")
    };
    let setup = || entity.clone();
    g.bench_function("hand_written", |b| {
        b.iter_batched(
            setup,
            |e| put((case.hand_to_item)(black_box(&e))),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("serde_dynamo+keys", |b| {
        b.iter_batched(
            setup,
            |e| put((case.serde_dynamo_to_item)(black_box(&e))),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("modyne", |b| {
        b.iter_batched(
            setup,
            |e| {
                rt.block_on(black_box(e).modyne().put().execute(&modyne_writes))
                    .expect("canned")
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function("mapper", |b| {
        b.iter_batched(
            setup,
            |e| put(E::Mapper::to_item(black_box(&e)).expect("valid")),
            BatchSize::SmallInput,
        )
    });
    g.finish();

    let mut g = c.benchmark_group(format!("get_{}", case.size));
    let get = || {
        rt.block_on(
            reads
                .get_item()
                .table_name(TABLE)
                .set_key(Some((case.key)(black_box(entity))))
                .send(),
        )
        .expect("canned")
        .item
        .expect("an item")
    };
    g.bench_function("hand_written", |b| b.iter(|| (case.hand_from_item)(get())));
    g.bench_function("serde_dynamo+check", |b| {
        b.iter(|| (case.serde_dynamo_from_item)(get()))
    });
    g.bench_function("modyne", |b| b.iter(read_modyne));
    g.bench_function("mapper", |b| {
        b.iter(|| E::Mapper::from_item(get()).expect("valid"))
    });
    g.finish();
}

fn customer_key(c: &Customer) -> Item {
    Item::from([
        ("pk".to_owned(), s(format!("CUSTOMER#{}", c.customer_id))),
        ("sk".to_owned(), s("METADATA".to_owned())),
    ])
}

fn order_key(o: &Order) -> Item {
    let date = o.created_at.get(..10).unwrap_or(&o.created_at);
    Item::from([
        ("pk".to_owned(), s(format!("CUSTOMER#{}", o.customer_id))),
        ("sk".to_owned(), s(format!("ORDER#{}#{date}", o.order_id))),
    ])
}

fn order_case(size: &'static str, entity: Order) -> Case<Order> {
    Case {
        size,
        entity,
        hand_to_item,
        hand_from_item,
        serde_dynamo_to_item,
        serde_dynamo_from_item,
        key: order_key,
    }
}

/// The seed order with `lines` lines (the total kept right).
fn large_order(lines: usize) -> Order {
    let mut o = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Shipped);
    o.lines = (0..lines)
        .map(|i| OrderLine {
            sku: format!("SKU-{i:06}"),
            quantity: 1 + (i % 5) as u32,
            unit_price_cents: 100 + i as u64,
        })
        .collect();
    o.total_cents = o
        .lines
        .iter()
        .map(|l| u64::from(l.quantity) * l.unit_price_cents)
        .sum();
    o
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let tiny = Case {
        size: "tiny",
        entity: Customer {
            customer_id: "C1".into(),
            email: "ada@example.com".into(),
            name: "Ada".into(),
            created_at: "2024-01-15T10:30:00Z".into(),
        },
        hand_to_item: hand_customer_to_item,
        hand_from_item: hand_customer_from_item,
        serde_dynamo_to_item: serde_dynamo_customer_to_item,
        serde_dynamo_from_item: serde_dynamo_customer_from_item,
        key: customer_key,
    };
    bench_case(c, &rt, &tiny);
    let small = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Shipped);
    bench_case(c, &rt, &order_case("small", small));
    bench_case(c, &rt, &order_case("large", large_order(LARGE_LINES)));
}

criterion_group!(benches, bench);
criterion_main!(benches);
