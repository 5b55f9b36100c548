//! The helpers end to end on a real emulator with faults injected by the
//! testkit's wire: throttles, partial batches, conflicts, answers lost after
//! the write was applied, silence. Every test checks what the helper
//! reported against what the store holds afterwards: done + handed back =
//! sent, nothing applied twice, success only when the store holds it. The
//! answers no real server gives stay in `ops_hostile.rs` (mocks).

use std::collections::BTreeSet;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use dynamodb_mapper::expr::{Apply, KeyCondition};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{ErrorDetails, ErrorKind, Item, ItemExt, MapperExt, Record, Registry};
use dynamodb_mapper_support::requests::{fast_retry, put_pk};
use dynamodb_mapper_support::seed001::*;
use dynamodb_mapper_support::{local, unread, unwritten};
use dynamodb_mapper_testkit::{Fault, Wire};
use futures_util::TryStreamExt;

/// The `pk`s the table holds, read past the wire.
async fn stored(client: &Client, table: &str) -> BTreeSet<String> {
    let items = local::scan_all(client, table).await;
    items
        .iter()
        .filter_map(|i| i.get_str("pk").ok().map(str::to_owned))
        .collect()
}

/// `client` with the SDK's read retries quick (the helpers' own writes
/// retry by the table's policy).
fn quick(client: &Client) -> Client {
    Client::from_conf(
        client
            .config()
            .to_builder()
            .retry_config(
                RetryConfig::standard()
                    .with_max_attempts(6)
                    .with_initial_backoff(Duration::from_millis(1))
                    .with_max_backoff(Duration::from_millis(5)),
            )
            .build(),
    )
}

fn pks(list: &[Customer]) -> BTreeSet<String> {
    list.iter()
        .map(|c| format!("CUSTOMER#{}", c.customer_id))
        .collect()
}

fn struck(wire: &Wire) -> usize {
    wire.exchanges()
        .iter()
        .filter(|e| e.fault().is_some())
        .count()
}

#[tokio::test]
async fn a_batch_write_through_throttles_and_partial_answers_writes_every_item_once() {
    let (plain, t) = local::client_and_table("faults_batch_write", APP_TABLE).await;
    let wire = Wire::new()
        .fault(Fault::throttle().on("BatchWriteItem").rate(0.2))
        .unwrap()
        .fault(Fault::unprocessed(0.5))
        .unwrap();
    let list = customers(200);
    let written = Table::new(&wire.client(&plain), &t, APP_TABLE)
        .retry_policy(fast_retry(40))
        .batch_writer()
        .put::<CustomerMapper>(&list)
        .await
        .expect("every item written in the end");
    assert_eq!(written.items, 200);
    assert_eq!(
        stored(&plain, &t).await,
        pks(&list),
        "the store holds each item"
    );
    let sent = wire.exchanges();
    assert!(struck(&wire) > 8, "faults were injected: {}", struck(&wire));
    assert_eq!(
        written.requests,
        sent.iter()
            .filter(|e| e.operation() == "BatchWriteItem")
            .count(),
        "the summary counts every request sent"
    );
}

#[tokio::test]
async fn a_batch_write_that_cannot_finish_hands_back_exactly_what_the_store_lacks() {
    let (plain, t) = local::client_and_table("faults_batch_give_up", APP_TABLE).await;
    let wire = Wire::new().seed(21).fault(Fault::unprocessed(0.7)).unwrap();
    let list = customers(60);
    let err = Table::new(&wire.client(&plain), &t, APP_TABLE)
        .retry_policy(fast_retry(2))
        .batch_writer()
        .put::<CustomerMapper>(&list)
        .await
        .expect_err("gives up");
    let u = unwritten(&err).expect("BatchWriteIncomplete");
    assert!(u.in_doubt.is_empty(), "every answer came: {err}");
    assert_eq!(
        u.written + u.unprocessed.len(),
        60,
        "done + handed back = sent ({err})"
    );
    let handed_back: BTreeSet<String> = u.unprocessed.iter().map(put_pk).collect();
    assert_eq!(
        handed_back.len(),
        u.unprocessed.len(),
        "each handed back once"
    );
    let held = stored(&plain, &t).await;
    assert_eq!(held.len(), u.written);
    assert_eq!(
        held,
        pks(&list)
            .difference(&handed_back)
            .cloned()
            .collect::<BTreeSet<_>>()
    );
}

#[tokio::test]
async fn a_batch_write_whose_answers_are_lost_is_resent_and_never_claims_what_it_cannot_know() {
    let (plain, t) = local::client_and_table("faults_batch_in_doubt", APP_TABLE).await;
    let list = customers(40);
    for fault in [Fault::error_after_apply(), Fault::drop_after_apply()] {
        // One answer lost: the puts are sent again (a put of the same item
        // twice leaves what one leaves), and the batch completes.
        let wire = Wire::new()
            .fault(fault.clone().on("BatchWriteItem").times(1))
            .unwrap();
        let written = Table::new(&wire.client(&plain), &t, APP_TABLE)
            .retry_policy(fast_retry(5))
            .batch_writer()
            .put::<CustomerMapper>(&list)
            .await
            .unwrap_or_else(|e| panic!("{fault}: {e}"));
        assert_eq!((written.items, written.retries), (40, 1), "{fault}");
        assert_eq!(written.requests, wire.exchanges().len(), "{fault}");
        assert_eq!(stored(&plain, &t).await, pks(&list), "{fault}");

        // Every answer lost: what was sent is handed back in doubt, never
        // as unwritten, and the store has it (this wire applies them all).
        let (plain2, t2) = local::client_and_table("faults_batch_in_doubt", APP_TABLE).await;
        let wire = Wire::new()
            .fault(fault.clone().on("BatchWriteItem"))
            .unwrap();
        let err = Table::new(&wire.client(&plain2), &t2, APP_TABLE)
            .retry_policy(fast_retry(3))
            .batch_writer()
            .put::<CustomerMapper>(&list)
            .await
            .expect_err("no answer ever");
        let u = unwritten(&err).expect("BatchWriteIncomplete");
        assert_eq!(
            u.written + u.unprocessed.len() + u.in_doubt.len(),
            40,
            "{err}"
        );
        assert_eq!((u.written, u.unprocessed.len()), (0, 0), "{fault}: {err}");
        let held = stored(&plain2, &t2).await;
        let in_doubt: BTreeSet<String> = u.in_doubt.iter().map(put_pk).collect();
        assert_eq!(held, in_doubt, "{fault}: in doubt, and applied");
    }
}

#[tokio::test]
async fn a_batch_get_through_throttles_and_partial_answers_reads_every_item_once() {
    let list = customers(150);
    let items: Vec<Item> = list
        .iter()
        .map(|c| CustomerMapper::to_item(c).unwrap())
        .collect();
    let (plain, t, _) = local::table_with_items("faults_batch_get", APP_TABLE, items).await;
    let wire = Wire::new()
        .fault(Fault::throttle().on("BatchGetItem").rate(0.2))
        .unwrap()
        .fault(Fault::unprocessed(0.5))
        .unwrap();
    let keys: Vec<Item> = list
        .iter()
        .map(|c| CustomerMapper::key(c).unwrap())
        .collect();
    let mut read = Table::new(&quick(&wire.client(&plain)), &t, APP_TABLE)
        .retry_policy(fast_retry(40))
        .batch_getter()
        .get::<CustomerMapper>(keys.clone())
        .await
        .expect("every item read in the end")
        .into_entities()
        .unwrap();
    read.sort_by(|a, b| a.customer_id.cmp(&b.customer_id));
    assert_eq!(read, list, "each item once, as stored");
    assert!(struck(&wire) > 4, "{}", struck(&wire));

    // Giving up: read + handed back = asked, and what was read is real.
    let wire = Wire::new().seed(4).fault(Fault::unprocessed(0.8)).unwrap();
    let err = Table::new(&quick(&wire.client(&plain)), &t, APP_TABLE)
        .retry_policy(fast_retry(2))
        .batch_getter()
        .get_items(keys)
        .await
        .expect_err("gives up");
    let u = unread(&err).expect("BatchGetIncomplete");
    assert_eq!(u.read.len() + u.unprocessed.len(), 150, "{err}");
    for item in &u.read {
        let c = CustomerMapper::from_item(item.clone()).unwrap();
        assert!(list.contains(&c));
    }
}

#[tokio::test]
async fn a_transaction_is_applied_once_through_throttles_and_a_lost_answer() {
    let (plain, t) = local::client_and_table("faults_tx", APP_TABLE).await;
    let faults = [
        Fault::throttle().on("TransactWriteItems").times(2),
        Fault::error_after_apply().on("TransactWriteItems").times(1),
        Fault::drop_after_apply().on("TransactWriteItems").times(1),
    ];
    for (n, fault) in faults.into_iter().enumerate() {
        let wire = Wire::new().fault(fault.clone()).unwrap();
        let table = Table::new(&wire.client(&plain), &t, APP_TABLE).retry_policy(fast_retry(5));
        let a = customer(&format!("T{n}A"));
        let b = customer(&format!("T{n}B"));
        // put_new: a second application would fail its condition and
        // cancel the transaction, so success proves it applied once.
        table
            .transaction()
            .put_new::<CustomerMapper>(&a)
            .unwrap()
            .put_new::<CustomerMapper>(&b)
            .unwrap()
            .send()
            .await
            .unwrap_or_else(|e| panic!("{fault}: {e}"));
        let held = stored(&plain, &t).await;
        assert!(held.is_superset(&pks(&[a, b])), "{fault}");
        let sends = wire.exchanges();
        let tokens: BTreeSet<&str> = sends
            .iter()
            .filter_map(|e| e.request()["ClientRequestToken"].as_str())
            .collect();
        assert_eq!(
            tokens.len(),
            1,
            "every send carries the same token ({fault})"
        );
        assert!(sends.len() >= 2, "{fault}: {sends:#?}");
    }
}

#[tokio::test]
async fn a_conflict_cancels_the_transaction_naming_the_action_and_applies_nothing() {
    let (plain, t) = local::client_and_table("faults_tx_conflict", APP_TABLE).await;
    let wire = Wire::new().fault(Fault::conflict()).unwrap();
    let table = Table::new(&wire.client(&plain), &t, APP_TABLE);
    let err = table
        .transaction()
        .put_new::<CustomerMapper>(&customer("X1"))
        .unwrap()
        .put_new::<CustomerMapper>(&customer("X2"))
        .unwrap()
        .send()
        .await
        .expect_err("canceled");
    assert_eq!(err.kind(), ErrorKind::TransactionCanceled);
    let ErrorDetails::TransactionCanceled { canceled, .. } = err.details() else {
        panic!("{err:?}");
    };
    assert_eq!(canceled.len(), 1, "{err}");
    assert_eq!(canceled[0].code, "TransactionConflict");
    assert_eq!(canceled[0].action.entity_type, "Customer");
    assert!(stored(&plain, &t).await.is_empty());
}

#[tokio::test]
async fn a_versioned_write_whose_answer_is_lost_says_maybe_applied_and_the_store_has_one_version() {
    let (plain, t) = local::client_and_table("faults_versioned", VERSIONED_TABLE).await;
    let direct = Table::new(&plain, &t, VERSIONED_TABLE);
    let mut record = Record::new(counter("c", 0));
    direct
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap();
    let key = CounterMapper::key(&record.entity).unwrap();
    for fault in [Fault::error_after_apply(), Fault::drop_after_apply()] {
        let wire = Wire::new().fault(fault.on("PutItem").times(1)).unwrap();
        let table =
            Table::new(&wire.client(&plain), &t, VERSIONED_TABLE).retry_policy(fast_retry(5));
        let before = direct
            .get_record::<CounterMapper>(key.clone())
            .await
            .unwrap()
            .unwrap();
        let mut next = before.clone();
        next.entity.count += 1;
        let err = table
            .put_record::<CounterMapper>(&mut next)
            .await
            .expect_err("lost answer");
        assert_eq!(err.kind(), ErrorKind::MaybeApplied, "{err}");
        let after = direct
            .get_record::<CounterMapper>(key.clone())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            after.entity.count,
            before.entity.count + 1,
            "applied once, not twice"
        );
        assert_eq!(after.version, before.version.map(|v| v + 1));
    }
}

#[tokio::test]
async fn read_modify_writes_and_increments_under_lost_answers_never_count_twice() {
    let (plain, t) = local::client_and_table("faults_rmw", VERSIONED_TABLE).await;
    let direct = Table::new(&plain, &t, VERSIONED_TABLE);
    direct
        .put_record::<CounterMapper>(&mut Record::new(counter("c", 0)))
        .await
        .unwrap();
    let key = CounterMapper::key(&counter("c", 0)).unwrap();
    let wire = Wire::new()
        .seed(5)
        .fault(Fault::error_after_apply().on("PutItem").rate(0.3))
        .unwrap()
        .fault(Fault::throttle().rate(0.2))
        .unwrap();
    let table =
        Table::new(&quick(&wire.client(&plain)), &t, VERSIONED_TABLE).retry_policy(fast_retry(20));
    let (mut ok, mut in_doubt) = (0u64, 0u64);
    for _ in 0..30 {
        match table
            .update_with_retry::<CounterMapper, _>(key.clone(), |r| {
                r.entity.count += 1;
                Ok(())
            })
            .await
        {
            Ok(_) => ok += 1,
            Err(e) if e.kind() == ErrorKind::MaybeApplied => in_doubt += 1,
            Err(e) => panic!("{e}"),
        }
    }
    let count = direct
        .get_record::<CounterMapper>(key.clone())
        .await
        .unwrap()
        .unwrap()
        .entity
        .count;
    assert!(in_doubt > 0 && ok > 0, "ok {ok}, in doubt {in_doubt}");
    // Every success counted once; an in-doubt call at most once (this wire
    // applies every one of them, so exactly once); nothing twice.
    assert_eq!(count, ok + in_doubt, "ok {ok}, in doubt {in_doubt}");

    let hits_key = CustomerMapper::key(&customer("H")).unwrap();
    let wire = Wire::new()
        .fault(Fault::error_after_apply().on("UpdateItem").times(1))
        .unwrap();
    let table = Table::new(&wire.client(&plain), &t, APP_TABLE).retry_policy(fast_retry(5));
    let err = table
        .increment::<CustomerMapper>(hits_key.clone(), "hits", 1)
        .await
        .expect_err("lost");
    assert_eq!(err.kind(), ErrorKind::MaybeApplied, "{err}");
    let now = table
        .increment::<CustomerMapper>(hits_key, "hits", 1)
        .await
        .unwrap();
    assert_eq!(
        now, 2,
        "the lost increment was applied once, and not sent again"
    );
}

#[tokio::test]
async fn a_stream_of_pages_through_throttles_and_a_silent_page_reads_each_item_once() {
    let orders: Vec<Order> = (0..120)
        .map(|i| {
            order(
                "C1",
                &format!("O{i:03}"),
                "2024-01-15T10:30:00Z",
                OrderStatus::Pending,
            )
        })
        .collect();
    let items: Vec<Item> = orders
        .iter()
        .map(|o| OrderMapper::to_item(o).unwrap())
        .collect();
    let (plain, t, _) = local::table_with_items("faults_pages", APP_TABLE, items).await;
    let registry = Registry::<Order>::builder()
        .register::<OrderMapper>(std::convert::identity)
        .build()
        .unwrap();
    let wire = Wire::new()
        .seed(11)
        .fault(Fault::throttle().on("Query").rate(0.3))
        .unwrap()
        .fault(Fault::silence().on("Query").times(1))
        .unwrap();
    let table = Table::new(&quick(&wire.client(&plain)), &t, APP_TABLE)
        .call_timeout(Duration::from_millis(300));
    let query = table
        .query()
        .limit(7)
        .apply(KeyCondition::new(APP_TABLE, "CUSTOMER#C1"))
        .unwrap();
    let read: Vec<Order> = table
        .query_stream(query, &registry)
        .map_ok(|d| d.into_entity().expect("an order"))
        .try_collect()
        .await
        .expect("every page read in the end");
    let mut want = orders.clone();
    want.sort_by(|a, b| a.order_id.cmp(&b.order_id));
    assert_eq!(read, want, "each item once, in key order");
    assert!(struck(&wire) > 3);
}

#[tokio::test]
async fn a_read_left_unanswered_is_asked_again_within_the_deadline() {
    let (plain, t) = local::client_and_table("faults_read_again", VERSIONED_TABLE).await;
    let mut record = Record::new(counter("r", 7));
    Table::new(&plain, &t, VERSIONED_TABLE)
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap();
    let key = CounterMapper::key(&record.entity).unwrap();
    for fault in [
        Fault::silence(),
        Fault::drop_after_apply(),
        Fault::error_after_apply(),
    ] {
        let wire = Wire::new()
            .fault(fault.clone().on("GetItem").times(1))
            .unwrap();
        let table = Table::new(&wire.client(&plain), &t, VERSIONED_TABLE)
            .call_timeout(Duration::from_millis(200))
            .retry_policy(fast_retry(3));
        let read = table.get_record::<CounterMapper>(key.clone()).await;
        let read = read
            .unwrap_or_else(|e| panic!("{fault}: {e}"))
            .expect("stored");
        assert_eq!(read.entity.count, 7, "{fault}");
        assert_eq!(wire.exchanges().len(), 2, "{fault}: asked twice");
    }
    // A server that never answers: the deadline ends it, with a timeout.
    let wire = Wire::new().fault(Fault::silence().on("GetItem")).unwrap();
    let table = Table::new(&wire.client(&plain), &t, VERSIONED_TABLE)
        .call_timeout(Duration::from_millis(100))
        .deadline(Duration::from_millis(450))
        .retry_policy(fast_retry(100));
    let err = table
        .get_record::<CounterMapper>(key)
        .await
        .expect_err("no answer");
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    let asked = wire.exchanges().len();
    assert!(
        (2..=5).contains(&asked),
        "asked again until the deadline: {asked}"
    );
}

#[tokio::test]
async fn typed_updates_whose_answer_is_lost_say_maybe_applied_and_apply_once() {
    let (plain, t) = local::client_and_table("faults_updates", VERSIONED_TABLE).await;
    let direct = Table::new(&plain, &t, VERSIONED_TABLE);
    direct
        .put_record::<CounterMapper>(&mut Record::new(counter("u", 1)))
        .await
        .unwrap();
    let key = CounterMapper::key(&counter("u", 1)).unwrap();
    for fault in [Fault::error_after_apply(), Fault::drop_after_apply()] {
        let wire = Wire::new()
            .fault(fault.clone().on("UpdateItem").times(1))
            .unwrap();
        let table =
            Table::new(&wire.client(&plain), &t, VERSIONED_TABLE).retry_policy(fast_retry(5));
        let mut record = direct
            .get_record::<CounterMapper>(key.clone())
            .await
            .unwrap()
            .unwrap();
        let before = record.clone();
        let mut new = record.entity.clone();
        new.count += 10;
        let err = table
            .update_record::<CounterMapper>(&mut record, new)
            .await
            .expect_err("lost answer");
        assert_eq!(err.kind(), ErrorKind::MaybeApplied, "{fault}: {err}");
        assert_eq!(wire.exchanges().len(), 1, "{fault}: not sent again");
        let after = direct
            .get_record::<CounterMapper>(key.clone())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            after.entity.count,
            before.entity.count + 10,
            "{fault}: applied once"
        );
        assert_eq!(after.version, before.version.map(|v| v + 1), "{fault}");
    }
    // update_entity (unversioned mapper): the same, through throttles first.
    let c = customer("U1");
    local::put_item(&plain, &t, CustomerMapper::to_item(&c).unwrap()).await;
    let wire = Wire::new()
        .fault(Fault::throttle().on("UpdateItem").times(2))
        .unwrap()
        .fault(Fault::error_after_apply().on("UpdateItem").times(1))
        .unwrap();
    let table = Table::new(&wire.client(&plain), &t, APP_TABLE).retry_policy(fast_retry(5));
    let mut renamed = c.clone();
    renamed.name = "Renamed".into();
    let err = table
        .update_entity::<CustomerMapper>(&c, &renamed)
        .await
        .expect_err("lost answer");
    assert_eq!(err.kind(), ErrorKind::MaybeApplied, "{err}");
    assert_eq!(wire.exchanges().len(), 3, "two throttled, one lost");
    let stored = local::get_item(&plain, &t, CustomerMapper::key(&c).unwrap())
        .await
        .expect("stored");
    assert_eq!(
        CustomerMapper::from_item(stored).unwrap(),
        renamed,
        "applied once"
    );
}
