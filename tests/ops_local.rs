//! Operations against DynamoDB Local: batches, optimistic locking under
//! contention, transactions, paginated decoding.

use std::collections::BTreeSet;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::expr::attr;
use dynamodb_mapper::ops::{RetryPolicy, Table};
use dynamodb_mapper::{
    ErrorDetails, ErrorKind, Item, ItemExt, Mapper, MapperExt, Record, Registry,
};
use dynamodb_mapper_support::local;
use dynamodb_mapper_support::seed001::*;
use futures_util::TryStreamExt;

async fn exists(client: &Client, table: &str, key: Item) -> bool {
    local::get_item(client, table, key).await.is_some()
}

#[tokio::test]
async fn batch_put_and_get_101_items() {
    let (client, t) = local::client_and_table("batch", APP_TABLE).await;
    let list = customers(101);
    let written = Table::new(&client, &t, APP_TABLE)
        .batch_writer()
        .put::<CustomerMapper>(&list)
        .await
        .unwrap();
    assert_eq!(written.items, 101);
    assert_eq!(
        written.requests, 5,
        "25 + 25 + 25 + 25 + 1, no retries on Local"
    );

    let keys: Vec<Item> = list
        .iter()
        .map(|c| CustomerMapper::key(c).unwrap())
        .collect();
    let getter = Table::new(&client, &t, APP_TABLE)
        .batch_getter()
        .consistent_read(true);
    let (items, summary) = getter.get_items(keys.clone()).await.unwrap();
    assert_eq!((items.len(), summary.requests), (101, 2));
    let mut read = getter
        .get::<CustomerMapper>(keys.clone())
        .await
        .unwrap()
        .into_entities()
        .unwrap();
    read.sort_by(|a, b| a.customer_id.cmp(&b.customer_id));
    assert_eq!(read, list);

    // Mixed entity types in one batch get, decoded through a registry.
    let order = order("C000", "O1", "2024-01-15T10:30:00Z", OrderStatus::Pending);
    Table::new(&client, &t, APP_TABLE)
        .batch_writer()
        .put::<OrderMapper>(std::slice::from_ref(&order))
        .await
        .unwrap();
    let registry = Registry::<Shop>::builder()
        .register::<CustomerMapper>(Shop::Customer)
        .register::<OrderMapper>(Shop::Order)
        .build()
        .unwrap();
    let mixed = getter
        .get_with(
            &registry,
            vec![keys[0].clone(), OrderMapper::key(&order).unwrap()],
        )
        .await
        .unwrap();
    assert!(mixed.is_complete());
    assert_eq!(mixed.entities.len(), 2);
    assert!(mixed.entities.contains(&Shop::Order(order.clone())));
    assert!(mixed.entities.contains(&Shop::Customer(list[0].clone())));

    // One item that does not decode and one of a type the registry does not
    // know: the rest still decode, the broken one is reported with its key
    // and the unknown one is kept raw, as the policy says.
    let mut broken = CustomerMapper::to_item(&list[1]).unwrap();
    broken.remove("email");
    let stranger_key = Item::from([
        ("pk".to_owned(), AttributeValue::S("STRANGER#1".into())),
        ("sk".to_owned(), AttributeValue::S("X".into())),
    ]);
    let mut stranger = stranger_key.clone();
    stranger.insert("entityType".into(), AttributeValue::S("Stranger".into()));
    for item in [broken, stranger] {
        local::put_item(&client, &t, item).await;
    }
    let keeping = Registry::<Shop>::builder()
        .register::<CustomerMapper>(Shop::Customer)
        .register::<OrderMapper>(Shop::Order)
        .on_unknown(dynamodb_mapper::UnknownPolicy::Keep)
        .build()
        .unwrap();
    let partial = getter
        .get_with(
            &keeping,
            vec![
                keys[1].clone(),
                OrderMapper::key(&order).unwrap(),
                stranger_key,
            ],
        )
        .await
        .unwrap();
    assert!(!partial.is_complete());
    assert_eq!(partial.entities, vec![Shop::Order(order)]);
    assert_eq!(partial.failed.len(), 1);
    assert_eq!(partial.failed[0].key, keys[1]);
    assert_eq!(partial.failed[0].error.kind(), ErrorKind::MissingAttribute);
    assert_eq!(partial.raw.len(), 1);
    assert_eq!(partial.summary.items, 3);

    let deleted = Table::new(&client, &t, APP_TABLE)
        .batch_writer()
        .delete_keys(keys[..60].to_vec())
        .await
        .unwrap();
    assert_eq!(deleted.items, 60);
    let (left, _) = getter.get_items(keys).await.unwrap();
    assert_eq!(left.len(), 41);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_tasks_increment_one_counter_a_thousand_times_without_losing_one() {
    let (client, t) = local::client_and_table("counter", APP_TABLE).await;
    let mut record = Record::new(counter("hits", 0));
    Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap();
    let first = record.version.expect("a version after the first write");
    let key = CounterMapper::key(&record.entity).unwrap();

    let policy = RetryPolicy::new(10_000)
        .base_delay(Duration::from_millis(1))
        .max_delay(Duration::from_millis(20));
    let attempts = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for task in 0..16 {
        let (client, t, key) = (client.clone(), t.clone(), key.clone());
        let attempts = attempts.clone();
        let increments = if task < 8 { 63 } else { 62 };
        tasks.push(tokio::spawn(async move {
            for _ in 0..increments {
                Table::new(&client, &t, CounterMapper::SCHEMA)
                    .retry_policy(policy)
                    .update_with_retry::<CounterMapper, _>(key.clone(), |r| {
                        attempts.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        r.entity.count += 1;
                        Ok(())
                    })
                    .await
                    .unwrap();
            }
            increments
        }));
    }
    let mut total = 0;
    for task in tasks {
        total += task.await.unwrap();
    }
    assert_eq!(total, 1000);
    let stored = Table::new(&client, &t, CounterMapper::SCHEMA)
        .get_record::<CounterMapper>(key)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.entity.count, 1000);
    assert_eq!(stored.version, Some(first + 1000));
    let attempts = attempts.load(std::sync::atomic::Ordering::Relaxed);
    assert!(attempts >= 1000);
    println!(
        "1000 increments took {attempts} attempts: {} conflicts retried",
        attempts - 1000
    );
}

#[tokio::test]
async fn stale_writes_and_deletes_are_rejected() {
    let (client, t) = local::client_and_table("stale", APP_TABLE).await;
    let mut mine = Record::new(counter("c", 0));
    let v1 = Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut mine)
        .await
        .unwrap();
    let key = CounterMapper::key(&mine.entity).unwrap();

    // Creating it again is a conflict, not an overwrite.
    let mut again = Record::new(counter("c", 99));
    let err = Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut again)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionConflict);

    // Someone else updates it.
    let mut theirs = Table::new(&client, &t, CounterMapper::SCHEMA)
        .get_record::<CounterMapper>(key.clone())
        .await
        .unwrap()
        .unwrap();
    theirs.entity.count = 5;
    Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut theirs)
        .await
        .unwrap();
    assert_eq!(theirs.version, Some(v1 + 1));

    // My copy is stale: neither a write nor a delete goes through.
    mine.entity.count = 1;
    let err = Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut mine)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionConflict);
    let err = Table::new(&client, &t, CounterMapper::SCHEMA)
        .delete_record::<CounterMapper>(&mine)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionConflict);
    assert_eq!(
        err.to_string(),
        format!(
            r#"Counter: version conflict on pk="COUNTER#c", sk="COUNTER": expected version {v1}, another writer changed or deleted the item"#
        )
    );
    let stored = Table::new(&client, &t, CounterMapper::SCHEMA)
        .get_record::<CounterMapper>(key.clone())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((stored.entity.count, stored.version), (5, Some(v1 + 1)));

    // The fresh copy deletes.
    Table::new(&client, &t, CounterMapper::SCHEMA)
        .delete_record::<CounterMapper>(&stored)
        .await
        .unwrap();
    assert!(!exists(&client, &t, key).await);
}

#[tokio::test]
async fn a_transaction_whose_condition_fails_writes_nothing() {
    let (client, t) = local::client_and_table("tx", APP_TABLE).await;
    let o1 = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Pending);

    let mut tx = Table::new(&client, &t, APP_TABLE).transaction();
    tx = tx.put_new::<OrderMapper>(&o1).unwrap();
    tx = tx
        .put::<ProductMapper>(&product("BOOKS", "P1", "Rust in Action", 3999))
        .unwrap();
    tx = tx
        .condition_check::<CustomerMapper>(
            CustomerMapper::string_key("CUSTOMER#C1", "METADATA").unwrap(),
            attr("pk").exists(),
        )
        .unwrap();
    let err = tx.send().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TransactionCanceled);
    let ErrorDetails::TransactionCanceled { canceled, .. } = err.details() else {
        panic!("{err:?}")
    };
    assert_eq!(canceled.len(), 1);
    assert_eq!(
        (
            canceled[0].index,
            canceled[0].action.entity_type.as_str(),
            canceled[0].code.as_str()
        ),
        (2, "Customer", "ConditionalCheckFailed")
    );
    assert!(!exists(&client, &t, OrderMapper::key(&o1).unwrap()).await);
    assert!(
        !exists(
            &client,
            &t,
            ProductMapper::string_key("CATEGORY#BOOKS", "PRODUCT#P1").unwrap()
        )
        .await
    );

    // With the customer in place the same transaction goes through.
    local::put_item(
        &client,
        &t,
        CustomerMapper::to_item(&customer("C1")).unwrap(),
    )
    .await;
    let mut tx = Table::new(&client, &t, APP_TABLE).transaction();
    tx = tx.put_new::<OrderMapper>(&o1).unwrap();
    tx = tx
        .condition_check::<CustomerMapper>(
            CustomerMapper::string_key("CUSTOMER#C1", "METADATA").unwrap(),
            attr("pk").exists(),
        )
        .unwrap();
    tx.send().await.unwrap();
    assert!(exists(&client, &t, OrderMapper::key(&o1).unwrap()).await);
    // Sent again with its token (as after a lost answer) it is not applied a
    // second time: DynamoDB answers as before instead of failing `put_new`'s
    // condition on the order it wrote.
    tx.send().await.unwrap();
    let fresh = Table::new(&client, &t, APP_TABLE)
        .transaction()
        .put_new::<OrderMapper>(&o1)
        .unwrap();
    let err = fresh.send().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TransactionCanceled, "{err}");

    // A versioned put inside a transaction holds the version check too.
    let mut record = Record::new(counter("tx", 0));
    Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap();
    let stale = record.clone();
    record.entity.count = 1;
    Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap();
    let mut tx = Table::new(&client, &t, APP_TABLE).transaction();
    tx = tx.put_record::<CounterMapper>(&stale).unwrap();
    let err = tx.send().await.unwrap_err();
    assert!(err.to_string().contains("ConditionalCheckFailed"), "{err}");
    let sent = Table::new(&client, &t, APP_TABLE)
        .transaction()
        .put_record::<CounterMapper>(&record)
        .unwrap()
        .send()
        .await
        .unwrap();
    assert_eq!(sent.versions, [record.version.map(|v| v + 1)]);
}

#[derive(Debug, Clone, PartialEq)]
enum Shop {
    Customer(Customer),
    Order(Order),
}

#[tokio::test]
async fn paginated_query_decodes_every_item_once_through_the_registry() {
    let (client, t) = local::client_and_table("pages", APP_TABLE).await;
    let mut orders = Vec::new();
    for i in 0..70 {
        orders.push(order(
            "C1",
            &format!("O{i:03}"),
            "2024-01-15T10:30:00Z",
            OrderStatus::Pending,
        ));
    }
    Table::new(&client, &t, APP_TABLE)
        .batch_writer()
        .put::<OrderMapper>(&orders)
        .await
        .unwrap();
    Table::new(&client, &t, APP_TABLE)
        .batch_writer()
        .put::<CustomerMapper>(&[customer("C1")])
        .await
        .unwrap();

    let registry = Registry::<Shop>::builder()
        .register::<CustomerMapper>(Shop::Customer)
        .register::<OrderMapper>(Shop::Order)
        .build()
        .unwrap();
    let query = client
        .query()
        .table_name(&t)
        .key_condition_expression("pk = :pk")
        .expression_attribute_values(":pk", AttributeValue::S("CUSTOMER#C1".into()))
        .limit(20); // 71 items: 4 pages
    let decoded: Vec<_> = Table::new(&client, &t, APP_TABLE)
        .query_stream(query, &registry)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(decoded.len(), 71);
    let mut seen = BTreeSet::new();
    let mut customers = 0;
    for d in decoded {
        match d.into_entity().expect("every item is a registered entity") {
            Shop::Customer(c) => {
                assert_eq!(c, customer("C1"));
                customers += 1;
            }
            Shop::Order(o) => assert!(seen.insert(o.order_id.clone()), "{} twice", o.order_id),
        }
    }
    assert_eq!(customers, 1);
    let expected: BTreeSet<String> = orders.iter().map(|o| o.order_id.clone()).collect();
    assert_eq!(seen, expected);
}

#[tokio::test]
async fn item_getters_work_on_what_dynamodb_returns() {
    let (client, t) = local::client_and_table("getters", APP_TABLE).await;
    let o = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Shipped);
    local::put_item(&client, &t, OrderMapper::to_item(&o).unwrap()).await;
    let item = local::get_item(&client, &t, OrderMapper::key(&o).unwrap())
        .await
        .unwrap();
    assert_eq!(item.get_number::<u64>("totalCents").unwrap(), 2999);
    assert_eq!(item.get_str("gsi3pk").unwrap(), "SHIPPED");
    assert_eq!(OrderMapper::from_item(item).unwrap(), o);
}

#[tokio::test]
async fn timestamps_keep_created_at_and_move_updated_at() {
    use dynamodb_mapper::hooks::Timestamps;
    let (client, t) = local::client_and_table("stamps", APP_TABLE).await;
    let t0 = std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let mut record = Record::new(counter("s", 0));
    Timestamps::default().stamp(&mut record.bag, t0).unwrap();
    Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap();
    let key = CounterMapper::key(&record.entity).unwrap();

    let mut later = t0;
    for _ in 0..2 {
        later += Duration::from_secs(90);
        let now = later;
        Table::new(&client, &t, CounterMapper::SCHEMA)
            .retry_policy(RetryPolicy::new(3))
            .update_with_retry::<CounterMapper, _>(key.clone(), |r| {
                r.entity.count += 1;
                Timestamps::default().stamp(&mut r.bag, now)
            })
            .await
            .unwrap();
    }
    let raw = local::get_item(&client, &t, key).await.unwrap();
    assert_eq!(
        raw.get_str("createdAt").unwrap(),
        "2023-11-14T22:13:20.000Z"
    );
    assert_eq!(
        raw.get_str("updatedAt").unwrap(),
        "2023-11-14T22:16:20.000Z"
    );
    assert_eq!(raw.get_number::<u64>("count").unwrap(), 2);
    let first = record.version.unwrap();
    assert_eq!(raw.get_number::<u64>("version").unwrap(), first + 2);
}

#[tokio::test]
async fn a_stale_writer_loses_against_a_recreated_item() {
    let (client, t) = local::client_and_table("aba", APP_TABLE).await;
    let mut created = Record::new(counter("aba", 1));
    Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut created)
        .await
        .unwrap();
    let key = CounterMapper::key(&created.entity).unwrap();
    // A writer reads the item and is slow.
    let mut stale = Table::new(&client, &t, CounterMapper::SCHEMA)
        .get_record::<CounterMapper>(key.clone())
        .await
        .unwrap()
        .unwrap();
    // Meanwhile the item is deleted and created again.
    let current = Table::new(&client, &t, CounterMapper::SCHEMA)
        .get_record::<CounterMapper>(key.clone())
        .await
        .unwrap()
        .unwrap();
    Table::new(&client, &t, CounterMapper::SCHEMA)
        .delete_record::<CounterMapper>(&current)
        .await
        .unwrap();
    let mut recreated = Record::new(counter("aba", 100));
    Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut recreated)
        .await
        .unwrap();
    assert_ne!(recreated.version, stale.version, "versions do not restart");
    // The stale writer must not overwrite the new item, nor delete it.
    stale.entity.count = 2;
    let err = Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut stale)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionConflict);
    assert!(
        err.to_string()
            .contains(r#"pk="COUNTER#aba", sk="COUNTER""#),
        "{err}"
    );
    let err = Table::new(&client, &t, CounterMapper::SCHEMA)
        .delete_record::<CounterMapper>(&stale)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionConflict);
    let stored = Table::new(&client, &t, CounterMapper::SCHEMA)
        .get_record::<CounterMapper>(key)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (stored.entity.count, stored.version),
        (100, recreated.version)
    );
}

#[tokio::test]
async fn items_written_before_versioning_are_adopted_not_stuck() {
    let (client, t) = local::client_and_table("adopt", APP_TABLE).await;
    // Written by a raw put, before the table had a version attribute.
    let legacy = CounterMapper::to_item(&counter("old", 7)).unwrap();
    assert!(!legacy.contains_key("version"));
    local::put_item(&client, &t, legacy).await;
    let key = CounterMapper::key(&counter("old", 7)).unwrap();
    // A brand-new record at that key must not overwrite it...
    let mut blind = Record::new(counter("old", 0));
    let err = Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut blind)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionConflict);
    // ...but a read-modify-write adopts it and gives it a version.
    let record = Table::new(&client, &t, CounterMapper::SCHEMA)
        .retry_policy(RetryPolicy::new(3))
        .update_with_retry::<CounterMapper, _>(key.clone(), |r| {
            r.entity.count += 1;
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(record.entity.count, 8);
    let stored = Table::new(&client, &t, CounterMapper::SCHEMA)
        .get_record::<CounterMapper>(key.clone())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.version, record.version);
    assert!(stored.version.is_some());
    // A second unversioned read of the old item is stale now.
    let mut stale = stored.clone();
    stale.version = None;
    let err = Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut stale)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionConflict);
    // And so is a versioned delete of the unversioned read.
    let err = Table::new(&client, &t, CounterMapper::SCHEMA)
        .delete_record::<CounterMapper>(&stale)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionConflict);
}

#[tokio::test]
async fn versioned_entities_keep_their_check_in_transactions_and_imports() {
    let (client, t) = local::client_and_table("txver", APP_TABLE).await;
    let mut record = Record::new(counter("t", 1));
    Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap();
    record.entity.count = 2;
    Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap();
    // A transaction put of the bare entity must not overwrite version 2.
    let mut tx = Table::new(&client, &t, APP_TABLE).transaction();
    tx = tx.put::<CounterMapper>(&counter("t", 99)).unwrap();
    let err = tx.send().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TransactionCanceled);
    let key = CounterMapper::key(&record.entity).unwrap();
    let stored = Table::new(&client, &t, CounterMapper::SCHEMA)
        .get_record::<CounterMapper>(key.clone())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((stored.entity.count, stored.version), (2, record.version));
    // A transaction put of a new entity writes a version the locking helpers use.
    let mut tx = Table::new(&client, &t, APP_TABLE).transaction();
    tx = tx.put::<CounterMapper>(&counter("fresh", 1)).unwrap();
    tx.send().await.unwrap();
    Table::new(&client, &t, CounterMapper::SCHEMA)
        .retry_policy(RetryPolicy::new(2))
        .update_with_retry::<CounterMapper, _>(
            CounterMapper::key(&counter("fresh", 1)).unwrap(),
            |r| {
                r.entity.count += 1;
                Ok(())
            },
        )
        .await
        .unwrap();
    // An import loads data with versions the locking helpers accept, and a
    // writer holding a version from before the import conflicts.
    Table::new(&client, &t, VERSIONED_TABLE)
        .batch_writer()
        .import()
        .put::<CounterMapper>(&[counter("t", 50), counter("u", 1)])
        .await
        .unwrap();
    let err = Table::new(&client, &t, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionConflict);
    let updated = Table::new(&client, &t, CounterMapper::SCHEMA)
        .retry_policy(RetryPolicy::new(2))
        .update_with_retry::<CounterMapper, _>(key, |r| {
            r.entity.count += 1;
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(updated.entity.count, 51);
}
