//! The tour's steps, in the order a new user meets the crate. Each step
//! says what it shows; the requests it sends are printed by `show`.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::BoxError;
use dynamodb_mapper::expr::{KeyCondition, Update, attr};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::prelude::*;
use dynamodb_mapper::{AccessPattern, ErrorKind, Item, PartitionView, Record, Registry};
use futures_util::TryStreamExt;

use crate::model::*;
use crate::show::{self, Out};

/// Runs every step on a table named `name` that does not exist yet, and
/// deletes the table at the end, also when a step failed.
pub async fn run(client: &Client, name: &str, out: &Out) -> Result<(), BoxError> {
    let table = Table::new(client, name, SHOP);
    create(&table, out).await?;
    let result = steps(&table, out).await;
    out.line("\n== Clean-up");
    let deleted = client.delete_table().table_name(name).send().await;
    result?;
    deleted?;
    out.line(format!("   table {name} deleted"));
    Ok(())
}

async fn steps(table: &Table, out: &Out) -> Result<(), BoxError> {
    first_write(table, out).await?;
    batch_load(table, out).await?;
    key_conditions(table, out).await?;
    registry_query(table, out).await?;
    access_patterns(table, out).await?;
    transaction(table, out).await?;
    optimistic_locking(table, out).await?;
    lossless_update(table, out).await?;
    partial_update(table, out).await?;
    partition_view(table, out).await?;
    Ok(())
}

async fn create(table: &Table, out: &Out) -> Result<(), BoxError> {
    out.line("\n== 0. The table, from its schema");
    // Creates the table, waits until it and its indexes are ACTIVE (a real
    // table takes some seconds; emulators are quick), and enables TTL when
    // the schema declares a TTL attribute.
    table.create_table().send().await?;
    out.line(format!("   table {} is ACTIVE", table.name()));
    Ok(())
}

async fn first_write(table: &Table, out: &Out) -> Result<(), BoxError> {
    out.line("\n== 1. A mapper makes the item; a versioned put writes it");
    let ada = customer("C1", "Ada");
    out.line(format!("   {ada:?}"));
    let item = CustomerMapper::to_item(&ada)?;
    out.line(format!("   to_item → {}", show::item(&item)));
    let mut record = Record::new(ada);
    let version = table.put_record::<CustomerMapper>(&mut record).await?;
    out.line(format!(
        "   written as version {version}: the crate added the version and the condition \
         that no item exists yet"
    ));
    Ok(())
}

async fn batch_load(table: &Table, out: &Out) -> Result<(), BoxError> {
    out.line("\n== 2. The batch writer loads data, retrying what DynamoDB leaves unprocessed");
    let orders = vec![
        order("C1", "O1", "2025-01-15", Status::Shipped),
        order("C1", "O2", "2025-02-10", Status::Pending),
        order("C2", "O3", "2025-02-20", Status::Shipped),
    ];
    // A batch cannot carry a condition, so it cannot check versions: the
    // writer refuses versioned entities unless told, by name, that this is
    // a load of new data.
    match table.batch_writer().put::<OrderMapper>(&orders).await {
        Err(e) if e.kind() == ErrorKind::VersionCheckRequired => {
            out.line(format!("   without import(): refused before sending: {e}"));
        }
        other => {
            return Err(format!("a batch of versioned entities was not refused: {other:?}").into());
        }
    }
    let writer = table.batch_writer().import();
    let addresses = [("home", "Berlin"), ("work", "Paris")].map(|(label, city)| Address {
        customer_id: "C1".into(),
        label: label.into(),
        city: city.into(),
    });
    let summaries = [
        writer.put::<OrderMapper>(&orders).await?,
        writer.put::<AddressMapper>(&addresses).await?,
        writer
            .put::<CustomerMapper>(&[customer("C2", "Grace")])
            .await?,
    ];
    let items: usize = summaries.iter().map(|s| s.items).sum();
    let requests: usize = summaries.iter().map(|s| s.requests).sum();
    out.line(format!(
        "   with import(): {items} items written in {requests} BatchWriteItem requests"
    ));
    Ok(())
}

async fn key_conditions(table: &Table, out: &Out) -> Result<(), BoxError> {
    out.line("\n== 3. Key patterns render keys and prefixes; key conditions query them");
    // The pattern's constant prefix, "ORDER#", selects the orders of the
    // partition and nothing else (it ends at a segment boundary).
    let condition = OrderMapper::lookup()
        .with("customer_id", "C1")
        .key_condition()?;
    let answer = table.query().apply(condition)?.send().await?;
    let orders = decode_orders(answer.items.unwrap_or_default())?;
    out.line(format!("   C1's orders: {}", list(&orders)));

    out.line("   Shipped orders since February, on GSI1:");
    let shipped = OrderMapper::lookup()
        .on_index("GSI1")
        .with("status", Status::Shipped.name());
    let condition = shipped
        .key_condition()?
        .and(attr("gsi1sk").ge("2025-02-01"));
    let answer = table.query().apply(condition)?.send().await?;
    let shipped = decode_orders(answer.items.unwrap_or_default())?;
    out.line(format!("   shipped since 2025-02-01: {}", list(&shipped)));
    Ok(())
}

fn decode_orders(items: Vec<Item>) -> dynamodb_mapper::Result<Vec<Order>> {
    // `from_item` checks each item's entityType before decoding it.
    items.into_iter().map(OrderMapper::from_item).collect()
}

fn list(orders: &[Order]) -> String {
    let each: Vec<_> = orders
        .iter()
        .map(|o| format!("{} ({}, {})", o.order_id, o.created_on, o.status.name()))
        .collect();
    each.join(", ")
}

fn registry() -> dynamodb_mapper::Result<Registry<Entity>> {
    // Building the registry checks the design as a whole: one layout, no
    // two types with one discriminator, no key patterns that overlap.
    registry_with(&[])
}

async fn registry_query(table: &Table, out: &Out) -> Result<(), BoxError> {
    out.line("\n== 4. One query, several entity types: the registry decodes each item by its type");
    let registry = registry()?;
    let query = table
        .query()
        .apply(KeyCondition::new(SHOP, c1_partition()?))?;
    let decoded: Vec<_> = table.query_stream(query, &registry).try_collect().await?;
    for item in decoded {
        match item.into_entity() {
            Some(Entity::Customer(c)) => out.line(format!("   Customer {} <{}>", c.name, c.email)),
            Some(Entity::Address(a)) => out.line(format!("   Address {}: {}", a.label, a.city)),
            Some(Entity::Order(o)) => {
                out.line(format!("   Order {} {} cents", o.order_id, o.total_cents))
            }
            None => out.line("   (an item of no registered type)"),
        }
    }
    out.line("   Only some types, filtered by the server:");
    let query = table
        .query()
        .apply(KeyCondition::new(SHOP, c1_partition()?))?
        .apply(registry.filter(&["Address"])?)?;
    let addresses: Vec<_> = table.query_stream(query, &registry).try_collect().await?;
    out.line(format!("   {} addresses", addresses.len()));
    Ok(())
}

/// The shop's access patterns, declared once.
const ORDERS_OF_CUSTOMER: AccessPattern =
    AccessPattern::new("orders of a customer, newest first", &["Order"])
        .by(&["customer_id"])
        .descending();
const ORDERS_BY_STATUS: AccessPattern = AccessPattern::new("orders by status", &["Order"])
    .on_index("GSI1")
    .by(&["status"])
    .sort_by("created_on");
const CUSTOMER_PAGE: AccessPattern =
    AccessPattern::new("customer page", &["Customer", "Address", "Order"]).by(&["customer_id"]);

async fn access_patterns(table: &Table, out: &Out) -> Result<(), BoxError> {
    out.line("\n== 5. Access patterns: declared once, proven when the registry is built");
    // Naming only the customer and its orders is refused: a query of the
    // customer's partition also returns its addresses.
    let wrong =
        AccessPattern::new("customer with orders", &["Customer", "Order"]).by(&["customer_id"]);
    if let Err(e) = registry_with(&[wrong]) {
        out.line(format!("   refused: {e}"));
    }
    let registry = registry_with(&[ORDERS_OF_CUSTOMER, ORDERS_BY_STATUS, CUSTOMER_PAGE])?;
    let newest: Vec<Order> = registry
        .access(&ORDERS_OF_CUSTOMER)?
        .with("customer_id", "C1")
        .fetch_as::<OrderMapper>(table)
        .await?;
    out.line(format!("   C1's orders, newest first: {}", list(&newest)));
    let shipped: Vec<Order> = registry
        .access(&ORDERS_BY_STATUS)?
        .with("status", Status::Shipped.name())
        .sort_range("created_on", "2025-02-01"..)
        .fetch_as::<OrderMapper>(table)
        .await?;
    out.line(format!("   shipped since 2025-02-01: {}", list(&shipped)));
    let page = registry
        .access(&CUSTOMER_PAGE)?
        .with("customer_id", "C1")
        .fetch(table)
        .await?;
    out.line(format!("   C1's page: {} items in one query", page.len()));
    Ok(())
}

/// The registry of the shop's mappers, with `patterns` declared.
fn registry_with(patterns: &[AccessPattern]) -> dynamodb_mapper::Result<Registry<Entity>> {
    patterns
        .iter()
        .fold(
            Registry::builder()
                .register::<CustomerMapper>(Entity::Customer)
                .register::<AddressMapper>(Entity::Address)
                .register::<OrderMapper>(Entity::Order),
            |b, p| b.access_pattern(*p),
        )
        .build()
}

async fn transaction(table: &Table, out: &Out) -> Result<(), BoxError> {
    out.line("\n== 6. A transaction: a new order, only if its customer exists");
    let customer_key = CustomerMapper::lookup().with("customer_id", "C1").key()?;
    table
        .transaction()
        .put_new::<OrderMapper>(&order("C1", "O4", "2025-03-01", Status::Pending))?
        .condition_check::<CustomerMapper>(customer_key, attr("pk").exists())?
        .send()
        .await?;
    out.line("   committed: O4 placed");

    out.line("   The same order again, for a customer that does not exist:");
    let missing = CustomerMapper::lookup().with("customer_id", "C9").key()?;
    let tx = table
        .transaction()
        .put_new::<OrderMapper>(&order("C9", "O4", "2025-03-01", Status::Pending))?
        .condition_check::<CustomerMapper>(missing, attr("pk").exists())?;
    match tx.send().await {
        Err(e) if e.kind() == ErrorKind::TransactionCanceled => {
            out.line(format!("   canceled: {e}"));
        }
        other => return Err(format!("the transaction was not canceled: {other:?}").into()),
    }
    Ok(())
}

async fn optimistic_locking(table: &Table, out: &Out) -> Result<(), BoxError> {
    out.line("\n== 7. Optimistic locking: two writers read the same version, the second loses");
    let key = CustomerMapper::lookup().with("customer_id", "C1").key()?;
    let read = |key: Item| async move {
        table
            .get_record::<CustomerMapper>(key)
            .await?
            .ok_or_else(|| BoxError::from("customer C1 is missing"))
    };
    let mut first = read(key.clone()).await?;
    let mut second = read(key.clone()).await?;
    first.entity.name = "Ada Lovelace".into();
    let version = table.put_record::<CustomerMapper>(&mut first).await?;
    out.line(format!("   first writer: version {version}"));
    second.entity.name = "Ada L.".into();
    match table.put_record::<CustomerMapper>(&mut second).await {
        Err(e) if e.kind() == ErrorKind::VersionConflict => {
            out.line(format!("   second writer: {e}"));
        }
        other => return Err(format!("a stale write was not refused: {other:?}").into()),
    }
    Ok(())
}

async fn lossless_update(table: &Table, out: &Out) -> Result<(), BoxError> {
    out.line("\n== 8. A lossless read-modify-write keeps attributes this code does not know");
    let key = CustomerMapper::lookup().with("customer_id", "C1").key()?;
    // A newer service adds an attribute our Customer struct does not have.
    table
        .client()
        .update_item()
        .table_name(table.name())
        .set_key(Some(key.clone()))
        .apply(Update::new().set(attr("loyaltyTier"), "gold"))?
        .send()
        .await?;
    let stored = get(table, &key).await?;
    let naive = CustomerMapper::to_item(&CustomerMapper::from_item(stored.clone())?)?;
    let mut dropped: Vec<_> = stored.keys().filter(|k| !naive.contains_key(*k)).collect();
    dropped.retain(|k| *k != "version"); // the versioned write adds it again
    out.line(format!(
        "   a plain from_item → to_item round trip would drop: {dropped:?}"
    ));
    let record = table
        .update_with_retry::<CustomerMapper, _>(key.clone(), |r| {
            r.entity.email = "ada@lovelace.example".into();
            Ok(())
        })
        .await?;
    out.line(format!(
        "   update_with_retry: version {:?}, bag {:?}",
        record.version,
        record.bag.keys().collect::<Vec<_>>()
    ));
    let after = get(table, &key).await?;
    out.line(format!("   stored: {}", show::item(&after)));
    Ok(())
}

async fn partial_update(table: &Table, out: &Out) -> Result<(), BoxError> {
    out.line("\n== 9. A partial update sends only what changed, version-checked");
    let key = CustomerMapper::lookup().with("customer_id", "C1").key()?;
    let mut record = table
        .get_record::<CustomerMapper>(key.clone())
        .await?
        .ok_or_else(|| BoxError::from("customer C1 is missing"))?;
    let renamed = Customer {
        name: "Augusta Ada King".into(),
        ..record.entity.clone()
    };
    // What changed, and every attribute the mapper derives from it.
    let update = Update::between::<CustomerMapper>(&record.entity, &renamed)?;
    out.line(format!(
        "   Update::between → {}",
        update.build()?.expression()
    ));
    // The same change, with the version check and increment in one UpdateItem.
    let version = table
        .update_record::<CustomerMapper>(&mut record, renamed)
        .await?;
    let after = get(table, &key).await?;
    out.line(format!("   update_record: version {version}"));
    out.line(format!("   stored: {}", show::item(&after)));
    Ok(())
}

async fn get(table: &Table, key: &Item) -> Result<Item, BoxError> {
    let answer = table
        .client()
        .get_item()
        .table_name(table.name())
        .set_key(Some(key.clone()))
        .send()
        .await?;
    answer.item.ok_or_else(|| "the item is missing".into())
}

async fn partition_view(table: &Table, out: &Out) -> Result<(), BoxError> {
    out.line("\n== 10. The partition, drawn like a single-table design diagram");
    let query = table
        .query()
        .apply(KeyCondition::new(SHOP, c1_partition()?))?;
    let items = query.send().await?.items.unwrap_or_default();
    let schema = SHOP;
    out.line(format!("{:.100}", PartitionView::new(&schema, &items)));
    Ok(())
}

/// C1's partition key, from the customer's key pattern.
fn c1_partition() -> dynamodb_mapper::Result<String> {
    CUSTOMER_PK.with("customer_id", "C1").render()
}
