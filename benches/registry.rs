//! Registry decoding of a mixed 1,000-item partition against a hand-written
//! `match` on the discriminator followed by the same `from_item`.
//! Run: `cargo bench --bench registry`.

use std::hint::black_box;

use aws_sdk_dynamodb::types::AttributeValue;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use dynamodb_mapper::{Item, MapperExt, Registry};
use dynamodb_mapper_support::seed001::*;

#[derive(Debug)]
#[allow(dead_code)]
enum Entity {
    Customer(Customer),
    Order(Order),
    Session(Session),
    Product(Product),
    Review(ProductReview),
}

fn partition() -> Vec<Item> {
    let mut items = Vec::with_capacity(1000);
    for i in 0..200 {
        let id = format!("{i:04}");
        items.push(CustomerMapper::to_item(&customer(&id)).expect("valid"));
        items.push(
            OrderMapper::to_item(&order(
                "C1",
                &id,
                "2024-01-15T10:30:00Z",
                OrderStatus::Shipped,
            ))
            .expect("valid"),
        );
        items.push(SessionMapper::to_item(&session("U1", &id, 4_000_000_000)).expect("valid"));
        items.push(ProductMapper::to_item(&product("BOOKS", &id, "Book", 1999)).expect("valid"));
        items.push(
            ProductReviewMapper::to_item(&review("P1", &id, "U1", 4, "2024-06-01T12:00:00Z"))
                .expect("valid"),
        );
    }
    items
}

/// What a user writes without the registry.
fn hand_match(item: Item) -> dynamodb_mapper::Result<Entity> {
    let t = match item.get("entityType") {
        Some(AttributeValue::S(t)) => t.as_str(),
        _ => return Err(dynamodb_mapper::Error::missing_attribute("entityType")),
    };
    Ok(match t {
        "Customer" => Entity::Customer(CustomerMapper::from_item(item)?),
        "Order" => Entity::Order(OrderMapper::from_item(item)?),
        "Session" => Entity::Session(SessionMapper::from_item(item)?),
        "Product" => Entity::Product(ProductMapper::from_item(item)?),
        "ProductReview" => Entity::Review(ProductReviewMapper::from_item(item)?),
        other => return Err(dynamodb_mapper::Error::invalid_value("entityType", other)),
    })
}

fn bench(c: &mut Criterion) {
    let items = partition();
    let registry = Registry::<Entity>::builder()
        .register::<CustomerMapper>(Entity::Customer)
        .register::<OrderMapper>(Entity::Order)
        .register::<SessionMapper>(Entity::Session)
        .register::<ProductMapper>(Entity::Product)
        .register::<ProductReviewMapper>(Entity::Review)
        .build()
        .expect("valid design");
    let decoded = registry.decode_all(items.clone()).expect("decodes");
    assert_eq!(decoded.entities.len(), 1000);

    let mut g = c.benchmark_group("decode_1000_mixed");
    g.bench_function("hand_match", |b| {
        b.iter_batched(
            || items.clone(),
            |items| {
                items
                    .into_iter()
                    .map(hand_match)
                    .collect::<dynamodb_mapper::Result<Vec<_>>>()
                    .expect("decodes")
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("registry", |b| {
        b.iter_batched(
            || items.clone(),
            |items| black_box(registry.decode_all(items).expect("decodes")),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
