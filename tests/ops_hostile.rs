//! The helpers against a service that misbehaves: responses that list what
//! was never sent, more than was sent, duplicates; errors that must stop a
//! batch; keys that are one item to DynamoDB but spelled differently;
//! versioned entities on paths that cannot check versions; a server that
//! accepts the connection and never answers. DynamoDB Local produces none of
//! these, so they are driven through `aws-smithy-mocks` and a silent TCP
//! listener.

use std::collections::HashSet;

/// DynamoDB's item size limit, in bytes.
const MAX_ITEM_SIZE: usize = 400 * 1024;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput;
use aws_sdk_dynamodb::operation::batch_write_item::{BatchWriteItemError, BatchWriteItemOutput};
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
use aws_sdk_dynamodb::types::error::ResourceNotFoundException;
use aws_sdk_dynamodb::types::{
    AttributeValue, KeysAndAttributes, ScalarAttributeType, WriteRequest,
};
use aws_smithy_mocks::{RuleMode, mock};
use dynamodb_mapper::ops::{self, Table};
use dynamodb_mapper::{
    Error, ErrorDetails, ErrorKind, Item, ItemExt, Mapper, MapperExt, Record, ScalarType,
    TableSchema,
};
use dynamodb_mapper_support::requests::{
    delete_request, fast_retry, mock_client, offline_client, put_pk, put_request, sent_keys,
    sent_writes,
};
use dynamodb_mapper_support::seed001::*;
use dynamodb_mapper_support::{attempts, cause, unread, unwritten};

const TABLE: &str = "AppTable";

/// The parts of a `BatchWriteIncomplete`, checked for the accounting
/// invariant: written + not written + in doubt = sent, each request once.
fn incomplete(err: &Error, sent: usize) -> (usize, Vec<String>, Vec<String>, Option<&Error>) {
    let Some(unwritten) = unwritten(err) else {
        panic!("expected BatchWriteIncomplete, got {err:?}");
    };
    let (written, unprocessed, in_doubt) = (
        unwritten.written,
        &unwritten.unprocessed,
        &unwritten.in_doubt,
    );
    assert_eq!(
        written + unprocessed.len() + in_doubt.len(),
        sent,
        "done + handed back = sent ({err})"
    );
    let unprocessed: Vec<String> = unprocessed.iter().map(put_pk).collect();
    let in_doubt: Vec<String> = in_doubt.iter().map(put_pk).collect();
    let mut all: HashSet<&String> = HashSet::new();
    for pk in unprocessed.iter().chain(&in_doubt) {
        assert!(all.insert(pk), "{pk} handed back twice");
    }
    (written, unprocessed, in_doubt, cause(err))
}

/// A batch write whose first answer lists `odd` as unprocessed (computed
/// from what was sent), and whose later answers are clean.
async fn write_with_odd_answer(
    odd: impl Fn(&[WriteRequest]) -> BatchWriteItemOutput + Send + Sync + 'static,
) -> (Error, usize) {
    let first = Arc::new(Mutex::new(true));
    let rule = mock!(Client::batch_write_item).then_compute_output(move |req| {
        let sent = sent_writes(req, TABLE);
        let mut first = first.lock().unwrap();
        if std::mem::take(&mut *first) {
            odd(&sent)
        } else {
            BatchWriteItemOutput::builder().build()
        }
    });
    let client = mock_client(&[&rule]);
    let err = Table::new(&client, TABLE, APP_TABLE)
        .retry_policy(fast_retry(5))
        .batch_writer()
        .concurrency(1)
        .put::<CustomerMapper>(&customers(30))
        .await
        .expect_err("a nonsense answer must not end in Ok");
    (err, rule.num_calls())
}

fn assert_unexpected(cause: Option<&Error>, needle: &str) {
    let cause = cause.expect("a cause");
    assert_eq!(cause.kind(), ErrorKind::UnexpectedResponse, "{cause}");
    assert!(cause.to_string().contains(needle), "{cause}");
}

#[tokio::test]
async fn unprocessed_items_of_a_table_not_written_stop_the_batch_and_lose_nothing() {
    let (err, calls) = write_with_odd_answer(|sent| {
        BatchWriteItemOutput::builder()
            .unprocessed_items("OtherTable", vec![sent[0].clone()])
            .build()
    })
    .await;
    // Old behaviour: the entry was dropped and the call returned Ok.
    assert_eq!(calls, 1, "nothing more is sent after a nonsense answer");
    let (written, unprocessed, in_doubt, cause) = incomplete(&err, 30);
    assert_eq!(written, 0);
    assert_eq!(in_doubt.len(), 25, "the 25 sent are in doubt");
    assert_eq!(unprocessed.len(), 5, "the 5 never sent are not written");
    assert_unexpected(cause, r#"table "OtherTable""#);
}

#[tokio::test]
async fn unprocessed_items_with_a_key_not_sent_stop_the_batch() {
    let (err, _) = write_with_odd_answer(|_| {
        let foreign = CustomerMapper::to_item(&customer("NOT-SENT")).unwrap();
        BatchWriteItemOutput::builder()
            .unprocessed_items(TABLE, vec![put_request(foreign)])
            .build()
    })
    .await;
    let (_, _, in_doubt, cause) = incomplete(&err, 30);
    assert_eq!(in_doubt.len(), 25);
    assert_unexpected(cause, r#"pk="CUSTOMER#NOT-SENT""#);
}

#[tokio::test]
async fn more_unprocessed_items_than_sent_is_an_error_not_a_panic() {
    // Old behaviour: `total - unprocessed.len()` underflowed and panicked.
    let (err, _) = write_with_odd_answer(|sent| {
        let mut listed = sent.to_vec();
        listed.extend(sent.iter().take(5).cloned());
        BatchWriteItemOutput::builder()
            .unprocessed_items(TABLE, listed)
            .build()
    })
    .await;
    let (written, _, _, cause) = incomplete(&err, 30);
    assert_eq!(written, 0);
    assert_unexpected(cause, "twice");
}

#[tokio::test]
async fn an_unprocessed_delete_for_a_put_sent_is_nonsense() {
    let (err, _) = write_with_odd_answer(|sent| {
        let key = APP_TABLE
            .key_of(&sent[3].put_request.as_ref().unwrap().item)
            .unwrap();
        BatchWriteItemOutput::builder()
            .unprocessed_items(TABLE, vec![delete_request(key)])
            .build()
    })
    .await;
    let (_, _, _, cause) = incomplete(&err, 30);
    assert_unexpected(cause, "lists a delete");
}

#[tokio::test]
async fn an_unprocessed_entry_without_a_key_is_nonsense() {
    let (err, _) = write_with_odd_answer(|_| {
        let keyless = Item::from([("name".to_string(), AttributeValue::S("x".into()))]);
        BatchWriteItemOutput::builder()
            .unprocessed_items(TABLE, vec![put_request(keyless)])
            .build()
    })
    .await;
    let (_, _, _, cause) = incomplete(&err, 30);
    assert_unexpected(cause, "without a usable key");
}

#[tokio::test]
async fn an_empty_list_under_another_table_is_harmless() {
    let rule = mock!(Client::batch_write_item).then_output(|| {
        BatchWriteItemOutput::builder()
            .unprocessed_items("OtherTable", vec![])
            .build()
    });
    let client = mock_client(&[&rule]);
    let summary = Table::new(&client, TABLE, APP_TABLE)
        .batch_writer()
        .put::<CustomerMapper>(&customers(3))
        .await
        .unwrap();
    assert_eq!(summary.items, 3);
}

#[tokio::test]
async fn a_non_retryable_error_stops_the_batch_and_reports_what_was_written() {
    let calls = Arc::new(Mutex::new(0));
    let seen = calls.clone();
    let ok = mock!(Client::batch_write_item)
        .match_requests(move |_| {
            let mut n = seen.lock().unwrap();
            *n += 1;
            *n == 1
        })
        .then_output(|| BatchWriteItemOutput::builder().build());
    let refused = mock!(Client::batch_write_item).then_error(|| {
        BatchWriteItemError::ResourceNotFoundException(
            ResourceNotFoundException::builder()
                .message("Requested resource not found")
                .build(),
        )
    });
    let client = mock_client(&[&ok, &refused]);
    let err = Table::new(&client, TABLE, APP_TABLE)
        .retry_policy(fast_retry(5))
        .batch_writer()
        .concurrency(1)
        .put::<CustomerMapper>(&customers(80))
        .await
        .unwrap_err();
    assert_eq!(
        ok.num_calls() + refused.num_calls(),
        2,
        "no attempt after the refusal"
    );
    let (written, unprocessed, in_doubt, cause) = incomplete(&err, 80);
    assert_eq!((written, unprocessed.len(), in_doubt.len()), (25, 55, 0));
    assert_eq!(cause.map(Error::kind), Some(ErrorKind::Sdk));
    assert_eq!(
        err.to_string(),
        "batch write to AppTable wrote 25 of 80 requests: 55 not written, 0 in doubt, after 1 attempts"
    );
}

#[tokio::test]
async fn unprocessed_entries_spelled_differently_still_match_what_was_sent() {
    // A numeric key table: the service may spell the number its own way.
    const NUMBERED: TableSchema = TableSchema::new("id")
        .partition_key_type(ScalarType::N)
        .without_discriminator();
    let first = Arc::new(Mutex::new(true));
    let rule = mock!(Client::batch_write_item).then_compute_output(move |req| {
        let sent = sent_writes(req, TABLE);
        if std::mem::take(&mut *first.lock().unwrap()) {
            let mut item = sent[0].put_request.as_ref().unwrap().item.clone();
            item.insert("id".into(), AttributeValue::N("1.0E0".into()));
            BatchWriteItemOutput::builder()
                .unprocessed_items(TABLE, vec![put_request(item)])
                .build()
        } else {
            assert_eq!(sent.len(), 1);
            // What is retried is what was sent, not the service's copy.
            assert_eq!(
                sent[0].put_request.as_ref().unwrap().item["id"],
                AttributeValue::N("1".into())
            );
            BatchWriteItemOutput::builder().build()
        }
    });
    let client = mock_client(&[&rule]);
    let items: Vec<Item> = (1..=3)
        .map(|i| Item::from([("id".to_string(), AttributeValue::N(i.to_string()))]))
        .collect();
    let summary = Table::new(&client, TABLE, NUMBERED)
        .retry_policy(fast_retry(3))
        .batch_writer()
        .put_items(items)
        .await
        .unwrap();
    assert_eq!((summary.items, rule.num_calls()), (3, 2));
}

#[tokio::test]
async fn keys_that_are_one_item_to_dynamodb_are_duplicates_everywhere() {
    const NUMBERED: TableSchema = TableSchema::new("id")
        .partition_key_type(ScalarType::N)
        .without_discriminator();
    let write =
        mock!(Client::batch_write_item).then_output(|| BatchWriteItemOutput::builder().build());
    let get = mock!(Client::batch_get_item).then_output(|| BatchGetItemOutput::builder().build());
    let client = mock_client(&[&write, &get]);
    let key = |n: &str| Item::from([("id".to_string(), AttributeValue::N(n.into()))]);
    for (a, b) in [
        ("1", "1.0"),
        ("1", "1E0"),
        ("1", "01"),
        ("100", "1e2"),
        ("0", "-0.0"),
    ] {
        let err = Table::new(&client, TABLE, NUMBERED)
            .batch_writer()
            .put_items(vec![key(a), key(b)])
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DuplicateKey, "{a} {b}: {err}");
        let err = Table::new(&client, TABLE, NUMBERED)
            .batch_writer()
            .delete_keys(vec![key(a), key(b)])
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DuplicateKey, "{a} {b}: {err}");
        let err = Table::new(&client, TABLE, NUMBERED)
            .batch_getter()
            .get_items(vec![key(a), key(b)])
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DuplicateKey, "{a} {b}: {err}");
        let mut tx = Table::new(&client, TABLE, APP_TABLE).transaction();
        let delete = |k: Item| {
            aws_sdk_dynamodb::types::TransactWriteItem::builder()
                .delete(
                    aws_sdk_dynamodb::types::Delete::builder()
                        .table_name(TABLE)
                        .set_key(Some(k))
                        .build()
                        .unwrap(),
                )
                .build()
        };
        let info = |k: Item| ops::ActionInfo::new(ops::ActionKind::Delete, TABLE, "N", k);
        tx = tx.push(delete(key(a)), info(key(a))).unwrap();
        let err = tx
            .clone()
            .push(delete(key(b)), info(key(b)))
            .map(|_| ())
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DuplicateKey, "{a} {b}: {err}");
    }
    assert_eq!(write.num_calls() + get.num_calls(), 0, "nothing was sent");
    // Strings and binaries compare by bytes: these are different items.
    let s = |v: &str| Item::from([("pk".to_string(), AttributeValue::S(v.into()))]);
    const STRINGS: TableSchema = TableSchema::new("pk").without_discriminator();
    Table::new(&client, TABLE, STRINGS)
        .batch_writer()
        .put_items(vec![s("a"), s("A"), s("a "), s("1"), s("1.0")])
        .await
        .unwrap();
    let _ = ScalarAttributeType::S; // the SDK's own names for the key types
}

#[tokio::test]
async fn batch_get_answers_that_make_no_sense_hand_every_key_back() {
    let keys: Vec<Item> = customers(10)
        .iter()
        .map(|c| CustomerMapper::key(c).unwrap())
        .collect();
    type Odd = fn(&[Item]) -> BatchGetItemOutput;
    let cases: [(&str, Odd); 5] = [
        ("table \"OtherTable\"", |k| {
            BatchGetItemOutput::builder()
                .responses("OtherTable", vec![k[0].clone()])
                .build()
        }),
        ("which was not in the request", |_| {
            BatchGetItemOutput::builder()
                .responses(
                    TABLE,
                    vec![CustomerMapper::to_item(&customer("ZZZ")).unwrap()],
                )
                .build()
        }),
        ("twice", |k| {
            let item = |i: usize| CustomerMapper::to_item(&customer_with_key(&k[i])).unwrap();
            BatchGetItemOutput::builder()
                .responses(TABLE, vec![item(1), item(1)])
                .build()
        }),
        ("also returned", |k| {
            BatchGetItemOutput::builder()
                .responses(
                    TABLE,
                    vec![CustomerMapper::to_item(&customer_with_key(&k[2])).unwrap()],
                )
                .unprocessed_keys(
                    TABLE,
                    KeysAndAttributes::builder()
                        .keys(k[2].clone())
                        .build()
                        .unwrap(),
                )
                .build()
        }),
        ("UnprocessedKeys lists the key", |_| {
            BatchGetItemOutput::builder()
                .unprocessed_keys(
                    TABLE,
                    KeysAndAttributes::builder()
                        .keys(CustomerMapper::key(&customer("ZZZ")).unwrap())
                        .build()
                        .unwrap(),
                )
                .build()
        }),
    ];
    for (needle, odd) in cases {
        let rule = mock!(Client::batch_get_item).then_compute_output(move |req| {
            let sent = sent_keys(req, TABLE);
            odd(&sent)
        });
        let client = mock_client(&[&rule]);
        let err = Table::new(&client, TABLE, APP_TABLE)
            .retry_policy(fast_retry(3))
            .batch_getter()
            .get_items(keys.clone())
            .await
            .unwrap_err();
        assert_eq!(
            err.kind(),
            ErrorKind::BatchGetIncomplete,
            "{needle}: {err:?}"
        );
        assert!(
            unread(&err).is_some_and(|u| u.read.is_empty()),
            "{needle}: nothing of a nonsense answer is trusted"
        );
        assert_eq!(
            unread(&err).map(|u| u.unprocessed.len()),
            Some(10),
            "{needle}: every key handed back"
        );
        assert_eq!(rule.num_calls(), 1, "{needle}: no retry after nonsense");
        assert_unexpected(cause(&err), needle);
    }
}

#[tokio::test]
async fn batch_get_decodes_what_it_can_and_names_each_item_that_does_not() {
    let rule = mock!(Client::batch_get_item).then_compute_output(|req| {
        let keys = sent_keys(req, TABLE);
        let items = keys
            .iter()
            .map(|k| {
                let c = customer_with_key(k);
                let mut item = CustomerMapper::to_item(&c).unwrap();
                if c.customer_id == "C001" {
                    item.remove("email");
                }
                item
            })
            .collect();
        BatchGetItemOutput::builder()
            .responses(TABLE, items)
            .build()
    });
    let client = mock_client(&[&rule]);
    let keys: Vec<Item> = customers(3)
        .iter()
        .map(|c| CustomerMapper::key(c).unwrap())
        .collect();
    let read = Table::new(&client, TABLE, APP_TABLE)
        .batch_getter()
        .get::<CustomerMapper>(keys)
        .await
        .unwrap();
    assert_eq!(read.entities.len(), 2);
    assert_eq!(read.failed.len(), 1);
    assert_eq!(read.failed[0].key.get_str("pk").unwrap(), "CUSTOMER#C001");
    assert_eq!(read.failed[0].error.kind(), ErrorKind::MissingAttribute);
    assert!(!read.is_complete());
    assert!(read.into_entities().is_err());
}

#[tokio::test]
async fn versioned_entities_are_refused_by_batch_writes_unless_imported() {
    let rule = mock!(Client::batch_write_item).then_compute_output(|req| {
        for w in sent_writes(req, TABLE) {
            if let Some(put) = &w.put_request {
                assert!(
                    put.item.contains_key("version"),
                    "an import writes a version"
                );
            }
        }
        BatchWriteItemOutput::builder().build()
    });
    let client = mock_client(&[&rule]);
    let counters = vec![counter("a", 1), counter("b", 2)];
    let writer = Table::new(&client, TABLE, VERSIONED_TABLE).batch_writer();
    let err = writer.put::<CounterMapper>(&counters).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionCheckRequired);
    assert_eq!(
        err.to_string(),
        r#"Counter: batch put of pk="COUNTER#a", sk="COUNTER" would skip the version check on `version`; use Table::put_record or Transaction::put_record (or BatchWriter::import to load data)"#
    );
    let keys = counters
        .iter()
        .map(|c| CounterMapper::key(c).unwrap())
        .collect();
    let err = writer.delete::<CounterMapper>(keys).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionCheckRequired);
    // Through a writer whose schema does not say so, the mapper still does.
    let err = Table::new(&client, TABLE, APP_TABLE)
        .batch_writer()
        .put::<CounterMapper>(&counters)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionCheckRequired);
    // Raw items into a versioned table are refused as well.
    let raw = CounterMapper::to_item(&counters[0]).unwrap();
    let err = writer.put_items(vec![raw]).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionCheckRequired);
    assert_eq!(rule.num_calls(), 0, "nothing was sent");

    let summary = writer
        .import()
        .put::<CounterMapper>(&counters)
        .await
        .unwrap();
    assert_eq!((summary.items, rule.num_calls()), (2, 1));
}

#[tokio::test]
async fn transactions_keep_the_version_check_of_versioned_entities() {
    let mut tx = Table::new(&offline_client(), TABLE, APP_TABLE).transaction();
    tx = tx.put::<CounterMapper>(&counter("a", 1)).unwrap();
    let put = tx.actions()[0].put.as_ref().unwrap();
    assert_eq!(
        put.condition_expression(),
        Some("attribute_not_exists(#dmv0)"),
        "a versioned put of a bare entity only creates"
    );
    assert!(put.item().contains_key("version"));
    let err = tx
        .clone()
        .delete::<CounterMapper>(CounterMapper::key(&counter("b", 1)).unwrap())
        .map(|_| ())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionCheckRequired);
    assert!(
        err.to_string().contains("Transaction::delete_record"),
        "{err}"
    );
    let mut read = Record::new(counter("c", 1));
    read.version = Some(41);
    let tx = tx.put_record::<CounterMapper>(&read).unwrap();
    let put = tx.actions().last().and_then(|a| a.put()).unwrap();
    assert_eq!(put.item()["version"], AttributeValue::N("42".into()));
}

/// A TCP listener that accepts connections and never answers; the count
/// of connections it accepted (a request sent again opens a new one: the
/// unanswered one is still busy).
fn silent_server() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            held.push(stream); // keep it open, say nothing
        }
    });
    (format!("http://{addr}"), accepted)
}

fn silent_client(operation_timeout: Option<Duration>) -> Client {
    silent_client_at(&silent_server().0, operation_timeout)
}

fn silent_client_at(url: &str, operation_timeout: Option<Duration>) -> Client {
    client_at(url, operation_timeout, RetryConfig::disabled())
}

fn client_at(url: &str, operation_timeout: Option<Duration>, retry: RetryConfig) -> Client {
    let mut timeouts = aws_sdk_dynamodb::config::timeout::TimeoutConfig::builder();
    if let Some(t) = operation_timeout {
        timeouts = timeouts.operation_timeout(t);
    }
    let conf = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
            "test", "test", None, None, "test",
        ))
        .endpoint_url(url)
        .retry_config(retry)
        .timeout_config(timeouts.build())
        .build();
    Client::from_conf(conf)
}

fn is_timeout(err: &Error) -> bool {
    err.kind() == ErrorKind::Timeout || cause(err).is_some_and(is_timeout)
}

/// A client that retries generously and bounds no call of its own: only
/// the helper's deadline stops the waiting (issue #29: a batch against a
/// silent server did not return for minutes).
fn patient_silent_client(url: &str) -> Client {
    client_at(url, None, RetryConfig::standard().with_max_attempts(10))
}

#[tokio::test]
async fn the_deadline_bounds_each_helper_call_with_its_accounting() {
    let (url, _) = silent_server();
    let client = patient_silent_client(&url);
    let deadline = Duration::from_millis(800);
    let table = Table::new(&client, TABLE, APP_TABLE).deadline(deadline);
    assert_eq!(
        client.config().retry_config().map(|r| r.max_attempts()),
        Some(10),
        "the client's retries"
    );
    let within = |started: Instant, helper: &str| {
        let took = started.elapsed();
        assert!(
            took >= deadline && took < deadline * 3,
            "{helper} took {took:?} for a deadline of {deadline:?}"
        );
    };

    // 200 puts in 8 requests, 4 in flight: the first 4 were sent and never
    // answered (in doubt), the other 4 never sent (handed back), written 0.
    let started = Instant::now();
    let err = table
        .batch_writer()
        .concurrency(4)
        .put::<CustomerMapper>(&customers(200))
        .await
        .unwrap_err();
    within(started, "batch write");
    let (written, unprocessed, in_doubt, cause) = incomplete(&err, 200);
    assert_eq!(
        (written, unprocessed.len(), in_doubt.len()),
        (0, 100, 100),
        "{err}"
    );
    let cause = cause.expect("the deadline stopped it");
    assert_eq!(cause.kind(), ErrorKind::Timeout, "{cause}");
    assert_eq!(
        cause.to_string(),
        "dynamodb BatchWriteItem ran out of the helper's deadline of 800ms"
    );

    // A batch get: every key handed back unread.
    let keys: Vec<Item> = customers(150)
        .iter()
        .map(|c| CustomerMapper::key(c).unwrap())
        .collect();
    let started = Instant::now();
    let err = table.batch_getter().get_items(keys).await.unwrap_err();
    within(started, "batch get");
    assert_eq!(
        unread(&err).map(|u| u.unprocessed.len()),
        Some(150),
        "{err}"
    );

    // A single write: may have been applied, named by its key.
    let versioned = Table::new(&client, TABLE, CounterMapper::SCHEMA).deadline(deadline);
    let mut record = Record::new(counter("d", 1));
    let started = Instant::now();
    let err = versioned
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap_err();
    within(started, "put_record");
    assert_eq!(err.kind(), ErrorKind::MaybeApplied, "{err}");
    assert!(err.key().is_some_and(|k| k.contains("COUNTER#d")), "{err}");
    assert!(is_timeout(&err), "{err:?}");

    // A helper made of helpers shares one deadline.
    let started = Instant::now();
    let err = versioned
        .update_with_retry::<CounterMapper, _>(
            CounterMapper::key(&counter("d", 1)).unwrap(),
            |_| Ok(()),
        )
        .await
        .unwrap_err();
    within(started, "update_with_retry");
    assert!(is_timeout(&err), "{err:?}");

    // A transaction: may have been applied, named by its token.
    let mut tx = table.transaction();
    tx = tx.put::<CustomerMapper>(&customer("T1")).unwrap();
    let started = Instant::now();
    let err = tx.send().await.unwrap_err();
    within(started, "transaction");
    assert_eq!(err.kind(), ErrorKind::MaybeApplied, "{err}");
    assert!(err.key().is_some_and(|k| k.contains(tx.token())), "{err}");
}

#[tokio::test]
async fn every_helper_returns_in_bounded_time_from_a_silent_server() {
    let client = silent_client(Some(Duration::from_millis(300)));
    let started = Instant::now();
    let key = CounterMapper::key(&counter("a", 1)).unwrap();
    let mut record = Record::new(counter("a", 1));
    let mut errors = vec![
        (
            "get_record",
            Table::new(&client, TABLE, CounterMapper::SCHEMA)
                .get_record::<CounterMapper>(key.clone())
                .await
                .map(|_| ())
                .unwrap_err(),
        ),
        (
            "put_record",
            Table::new(&client, TABLE, CounterMapper::SCHEMA)
                .put_record::<CounterMapper>(&mut record)
                .await
                .map(|_| ())
                .unwrap_err(),
        ),
        (
            "update_with_retry",
            Table::new(&client, TABLE, CounterMapper::SCHEMA)
                .retry_policy(fast_retry(2))
                .update_with_retry::<CounterMapper, _>(key.clone(), |_| Ok(()))
                .await
                .map(|_| ())
                .unwrap_err(),
        ),
    ];
    // A transaction is sent again after a server error, not after running
    // out of its call bound: one connection, whatever the retry policy.
    let (url, accepted) = silent_server();
    let tx_client = silent_client_at(&url, Some(Duration::from_millis(300)));
    let mut tx = Table::new(&tx_client, TABLE, APP_TABLE).transaction();
    tx = tx.put::<CustomerMapper>(&customer("C1")).unwrap();
    errors.push(("transaction", tx.send().await.unwrap_err()));
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 1);
    let err = Table::new(&client, TABLE, APP_TABLE)
        .retry_policy(fast_retry(2))
        .batch_writer()
        .put::<CustomerMapper>(&customers(30))
        .await
        .unwrap_err();
    let (written, unprocessed, in_doubt, _) = incomplete(&err, 30);
    assert_eq!(
        (written, unprocessed.len(), in_doubt.len()),
        (0, 0, 30),
        "sent, unanswered: in doubt"
    );
    errors.push(("batch write", err));
    let keys = vec![CustomerMapper::key(&customer("C1")).unwrap()];
    errors.push((
        "batch get",
        Table::new(&client, TABLE, APP_TABLE)
            .retry_policy(fast_retry(2))
            .batch_getter()
            .get_items(keys)
            .await
            .unwrap_err(),
    ));
    for (helper, err) in &errors {
        assert!(is_timeout(err), "{helper}: {err:?}");
    }
    // Each waited 300 ms per attempt, at most two attempts each.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        errors[0].1.to_string(),
        "dynamodb GetItem got no answer within 300ms"
    );
}

#[tokio::test]
async fn the_tables_call_bound_holds_for_every_call_and_every_page_of_a_stream() {
    use futures_util::StreamExt;
    // The client has no timeout of its own: only the table's bound stops
    // the waiting, for single calls and for each page of a stream alike.
    let client = silent_client(None);
    let table = Table::new(&client, TABLE, APP_TABLE).call_timeout(Duration::from_millis(300));
    let started = Instant::now();
    let key = CustomerMapper::key(&customer("C1")).unwrap();
    let err = table
        .get_record::<CustomerMapper>(key)
        .await
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        format!("{err:#}"),
        "dynamodb GetItem got no answer within 300ms"
    );
    let registry = dynamodb_mapper::Registry::<Customer>::builder()
        .register::<CustomerMapper>(|c| c)
        .build()
        .unwrap();
    for (what, stream) in [
        (
            "query",
            table.query_stream(table.query(), &registry).boxed(),
        ),
        ("scan", table.scan_stream(table.scan(), &registry).boxed()),
    ] {
        let items: Vec<_> = stream.collect().await;
        assert_eq!(items.len(), 1, "{what}: one error, then the stream ends");
        let err = items.into_iter().next().unwrap().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout, "{what}: {err:#}");
        assert!(
            matches!(err.details(), ErrorDetails::Timeout { after, .. } if *after == Duration::from_millis(300)),
            "{what}: {err:?}"
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(start_paused = true)]
async fn without_a_client_timeout_the_default_bound_applies() {
    let client = silent_client(None);
    let key = CounterMapper::key(&counter("a", 1)).unwrap();
    let err = Table::new(&client, TABLE, CounterMapper::SCHEMA)
        .get_record::<CounterMapper>(key)
        .await
        .map(|_| ())
        .unwrap_err();
    assert!(is_timeout(&err), "{err:?}");
    assert_eq!(
        err.to_string(),
        "dynamodb GetItem got no answer within 30s",
        "the default bound"
    );
}

fn retrying_client(rule: &aws_smithy_mocks::Rule) -> Client {
    aws_smithy_mocks::mock_client!(aws_sdk_dynamodb, RuleMode::Sequential, [rule], |c| c
        .retry_config(
            RetryConfig::standard()
                .with_max_attempts(3)
                .with_initial_backoff(Duration::from_millis(1))
        ))
}

#[tokio::test]
async fn a_conditional_write_whose_answer_is_lost_is_not_resent_by_the_sdk() {
    use aws_sdk_dynamodb::operation::put_item::{PutItemError, PutItemOutput};
    use aws_sdk_dynamodb::types::error::ConditionalCheckFailedException;
    // The write is applied, the answer lost (a 500); an SDK retry would fail
    // its own condition and be reported as a conflict.
    let rule = mock!(Client::put_item)
        .sequence()
        .http_status(500, None)
        .error(|| {
            PutItemError::ConditionalCheckFailedException(
                ConditionalCheckFailedException::builder().build(),
            )
        })
        .build();
    let client = retrying_client(&rule);
    let mut record = Record::new(counter("lost", 1));
    record.version = Some(10);
    record.stored = true;
    let err = Table::new(&client, TABLE, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap_err();
    assert_eq!(rule.num_calls(), 1, "sent once");
    assert_ne!(err.kind(), ErrorKind::VersionConflict, "{err}");
    assert_eq!(record.version, Some(10), "not claimed as written");

    // Throttling, refused without being applied, is retried.
    let rule = mock!(Client::put_item)
        .sequence()
        .error(|| {
            PutItemError::ProvisionedThroughputExceededException(
                aws_sdk_dynamodb::types::error::ProvisionedThroughputExceededException::builder()
                    .build(),
            )
        })
        .output(|| PutItemOutput::builder().build())
        .build();
    let client = retrying_client(&rule);
    Table::new(&client, TABLE, CounterMapper::SCHEMA)
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap();
    assert_eq!((rule.num_calls(), record.version), (2, Some(11)));
}

#[tokio::test]
async fn a_read_modify_write_whose_answer_is_lost_applies_its_change_once() {
    use aws_sdk_dynamodb::operation::get_item::GetItemOutput;
    let mut stored = CounterMapper::to_item(&counter("rmw", 5)).unwrap();
    stored.insert("version".into(), AttributeValue::N("7".into()));
    let get = mock!(Client::get_item).then_output(move || {
        GetItemOutput::builder()
            .set_item(Some(stored.clone()))
            .build()
    });
    let put = mock!(Client::put_item)
        .sequence()
        .http_status(500, None)
        .repeatedly()
        .build();
    let client =
        aws_smithy_mocks::mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&get, &put], |c| c
            .retry_config(
                RetryConfig::standard()
                    .with_max_attempts(3)
                    .with_initial_backoff(Duration::from_millis(1))
            ));
    let changes = Arc::new(Mutex::new(0));
    let counted = changes.clone();
    let key = CounterMapper::key(&counter("rmw", 5)).unwrap();
    let err = Table::new(&client, TABLE, CounterMapper::SCHEMA)
        .retry_policy(fast_retry(5))
        .update_with_retry::<CounterMapper, _>(key, |r| {
            *counted.lock().unwrap() += 1;
            r.entity.count += 1;
            Ok(())
        })
        .await
        .unwrap_err();
    assert_eq!(*changes.lock().unwrap(), 1, "the change ran once: {err}");
    assert_eq!(put.num_calls(), 1);
}

#[tokio::test]
async fn a_read_modify_write_that_moves_the_item_names_the_key_attribute() {
    use aws_sdk_dynamodb::operation::get_item::GetItemOutput;
    let mut stored = CounterMapper::to_item(&counter("here", 5)).unwrap();
    stored.insert("version".into(), AttributeValue::N("7".into()));
    let get = mock!(Client::get_item).then_output(move || {
        GetItemOutput::builder()
            .set_item(Some(stored.clone()))
            .build()
    });
    let client = mock_client(&[&get]);
    let key = CounterMapper::key(&counter("here", 5)).unwrap();
    let err = Table::new(&client, TABLE, CounterMapper::SCHEMA)
        .retry_policy(fast_retry(2))
        .update_with_retry::<CounterMapper, _>(key, |r| {
            r.entity.counter_id = "there".into();
            Ok(())
        })
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    assert_eq!(err.attribute(), Some("pk"));
    assert!(
        err.to_string().contains(r#"now pk="COUNTER#there""#),
        "{err}"
    );
}

#[tokio::test]
async fn cancellation_reasons_that_do_not_match_the_actions_are_an_unexpected_response() {
    use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
    use aws_sdk_dynamodb::types::CancellationReason;
    use aws_sdk_dynamodb::types::error::TransactionCanceledException;
    let rule = mock!(Client::transact_write_items).then_error(|| {
        TransactWriteItemsError::TransactionCanceledException(
            TransactionCanceledException::builder()
                .cancellation_reasons(CancellationReason::builder().code("None").build())
                .cancellation_reasons(
                    CancellationReason::builder()
                        .code("ConditionalCheckFailed")
                        .build(),
                )
                .cancellation_reasons(
                    CancellationReason::builder()
                        .code("ConditionalCheckFailed")
                        .build(),
                )
                .build(),
        )
    });
    let client = mock_client(&[&rule]);
    let mut tx = Table::new(&client, TABLE, APP_TABLE).transaction();
    tx = tx.put::<CustomerMapper>(&customer("C1")).unwrap();
    tx = tx.put::<CustomerMapper>(&customer("C2")).unwrap();
    let err = tx.send().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnexpectedResponse, "{err}");
    assert!(
        err.to_string()
            .contains("3 cancellation reasons for 2 actions"),
        "{err}"
    );
}

/// The client request tokens a rule was asked with, in order.
type Tokens = Arc<Mutex<Vec<Option<String>>>>;

/// The tokens of the transactions a rule is asked for, and the request
/// matcher that records them.
fn recorded_tokens() -> (
    Tokens,
    impl Fn(&TransactWriteItemsInput) -> bool + Send + Sync,
) {
    let tokens = Tokens::default();
    let seen = Arc::clone(&tokens);
    let record = move |req: &TransactWriteItemsInput| {
        seen.lock()
            .unwrap()
            .push(req.client_request_token().map(str::to_owned));
        true
    };
    (tokens, record)
}

#[tokio::test]
async fn a_transaction_sent_again_after_a_lost_answer_carries_the_same_token() {
    use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsOutput;
    // The first answer is lost (a 500, and one attempt allowed: the outcome
    // is unknown); the caller sending the same transaction again must reuse
    // its token, so DynamoDB applies it at most once.
    let (tokens, record) = recorded_tokens();
    let rule = mock!(Client::transact_write_items)
        .match_requests(record)
        .sequence()
        .http_status(500, None)
        .output(|| TransactWriteItemsOutput::builder().build())
        .build();
    let client = mock_client(&[&rule]);
    let mut tx = Table::new(&client, TABLE, APP_TABLE)
        .retry_policy(fast_retry(1))
        .transaction();
    tx = tx.put_new::<CustomerMapper>(&customer("C001")).unwrap();
    let err = tx.send().await.unwrap_err();
    assert_ne!(err.kind(), ErrorKind::TransactionCanceled, "{err}");
    tx.send().await.unwrap();
    let tokens = tokens.lock().unwrap().clone();
    assert_eq!(tokens.len(), 2);
    assert_eq!(tokens[0].as_deref(), Some(tx.token()));
    assert_eq!(tokens[0], tokens[1], "one token for both sends");

    // Each new transaction has its own token; a chosen one is sent as is.
    assert_ne!(
        Table::new(&client, TABLE, APP_TABLE).transaction().token(),
        tx.token()
    );
    let chosen = Table::new(&client, TABLE, APP_TABLE)
        .transaction()
        .with_token("checkout-O1")
        .unwrap();
    assert_eq!(chosen.token(), "checkout-O1");
    for bad in [String::new(), "x".repeat(37)] {
        let err = Table::new(&client, TABLE, APP_TABLE)
            .transaction()
            .with_token(bad)
            .unwrap_err();
        assert!(err.to_string().contains("1 to 36 characters"), "{err}");
    }
}

#[tokio::test]
async fn helpers_can_run_on_spawned_tasks() {
    let rule =
        mock!(Client::batch_write_item).then_output(|| BatchWriteItemOutput::builder().build());
    let get = mock!(Client::batch_get_item).then_output(|| BatchGetItemOutput::builder().build());
    let client = mock_client(&[&rule, &get]);
    let writer = Table::new(&client, TABLE, APP_TABLE).batch_writer();
    let getter = Table::new(&client, TABLE, APP_TABLE).batch_getter();
    let written = tokio::spawn(async move { writer.put::<CustomerMapper>(&customers(30)).await });
    let keys = vec![CustomerMapper::key(&customer("C1")).unwrap()];
    let read = tokio::spawn(async move { getter.get::<CustomerMapper>(keys).await });
    assert_eq!(written.await.unwrap().unwrap().items, 30);
    assert!(read.await.unwrap().unwrap().entities.is_empty());
}

/// Three customers put through a client answered by `rule`, two attempts:
/// the error the batch ends with.
async fn put_three(rule: &aws_smithy_mocks::Rule) -> Error {
    let client = mock_client(&[rule]);
    Table::new(&client, TABLE, APP_TABLE)
        .retry_policy(fast_retry(2))
        .batch_writer()
        .put::<CustomerMapper>(&customers(3))
        .await
        .expect_err("the batch cannot complete")
}

#[tokio::test]
async fn server_faults_and_unreadable_answers_leave_writes_in_doubt_not_unwritten() {
    // Found by the `ops` fuzz target: a 5xx without an error code was taken
    // for a refusal, and its requests handed back as certainly not written.
    for (status, body) in [
        (500, None),
        (503, None),
        (
            500,
            Some(r#"{"__type":"com.amazon.coral#SomethingNew","message":"?"}"#),
        ),
        (200, Some("this is not json")),
    ] {
        let rule = mock!(Client::batch_write_item)
            .sequence()
            .http_status(status, body.map(str::to_owned))
            .repeatedly()
            .build();
        let err = put_three(&rule).await;
        let (written, unprocessed, in_doubt, _) = incomplete(&err, 3);
        assert_eq!(
            (written, unprocessed.len(), in_doubt.len()),
            (0, 0, 3),
            "{status} {body:?}: {err}"
        );
    }
    // A modeled internal server error may have been applied, whatever
    // status carried it (the mocks carry modeled errors on a 418).
    let rule = mock!(Client::batch_write_item).then_error(|| {
        BatchWriteItemError::InternalServerError(
            aws_sdk_dynamodb::types::error::InternalServerError::builder()
                .message("oops")
                .build(),
        )
    });
    let err = put_three(&rule).await;
    let (written, unprocessed, in_doubt, _) = incomplete(&err, 3);
    assert_eq!(
        (written, unprocessed.len(), in_doubt.len()),
        (0, 0, 3),
        "{err}"
    );
    // A 4xx refusal applied nothing: handed back as not written.
    let rule = mock!(Client::batch_write_item)
        .sequence()
        .http_status(
            400,
            Some(r#"{"__type":"com.amazonaws.dynamodb.v20120810#ValidationException","message":"no"}"#.to_owned()),
        )
        .repeatedly()
        .build();
    let err = put_three(&rule).await;
    let (written, unprocessed, in_doubt, _) = incomplete(&err, 3);
    assert_eq!(
        (written, unprocessed.len(), in_doubt.len()),
        (0, 3, 0),
        "{err}"
    );
}

/// An `UpdateItem` rule answering with `attributes` (or none).
fn update_answer(
    attributes: Option<Vec<(&'static str, AttributeValue)>>,
) -> aws_smithy_mocks::Rule {
    use aws_sdk_dynamodb::operation::update_item::UpdateItemOutput;
    mock!(Client::update_item).then_output(move || {
        UpdateItemOutput::builder()
            .set_attributes(
                attributes
                    .clone()
                    .map(|a| a.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()),
            )
            .build()
    })
}

#[tokio::test]
async fn an_increment_whose_answer_is_lost_is_sent_once_and_odd_answers_are_errors() {
    use aws_sdk_dynamodb::operation::update_item::{UpdateItemError, UpdateItemOutput};
    let key = CounterMapper::key(&counter("c", 0)).unwrap();
    // Lost answer: not sent again (it would count twice), reported unknown.
    let rule = mock!(Client::update_item)
        .sequence()
        .http_status(500, None)
        .output(|| UpdateItemOutput::builder().build())
        .build();
    let client = retrying_client(&rule);
    let err = Table::new(&client, TABLE, CounterMapper::SCHEMA)
        .increment::<CounterMapper>(key.clone(), "count", 1)
        .await
        .unwrap_err();
    assert_eq!(rule.num_calls(), 1, "sent once");
    assert_eq!(err.kind(), ErrorKind::MaybeApplied, "{err}");
    assert_eq!(err.key(), Some(r#"pk="COUNTER#c", sk="COUNTER""#), "{err}");
    assert_eq!(cause(&err).map(Error::kind), Some(ErrorKind::Sdk), "{err}");

    // Throttled: refused without being applied, so retried.
    let rule = mock!(Client::update_item)
        .sequence()
        .error(|| {
            UpdateItemError::ProvisionedThroughputExceededException(
                aws_sdk_dynamodb::types::error::ProvisionedThroughputExceededException::builder()
                    .build(),
            )
        })
        .output(|| {
            UpdateItemOutput::builder()
                .attributes("count", AttributeValue::N("8".into()))
                .build()
        })
        .build();
    let client = retrying_client(&rule);
    let n = Table::new(&client, TABLE, CounterMapper::SCHEMA)
        .retry_policy(fast_retry(3))
        .increment::<CounterMapper>(key.clone(), "count", 1)
        .await
        .unwrap();
    assert_eq!((rule.num_calls(), n), (2, 8));

    // Answers that hold no 64-bit integer for the counter.
    for (attributes, expected) in [
        (
            None,
            "the answer holds no number for `count` (found nothing)",
        ),
        (
            Some(vec![("count", AttributeValue::S("8".into()))]),
            "the answer holds no number for `count` (found a string (S))",
        ),
        (
            Some(vec![("count", AttributeValue::N("1.5".into()))]),
            "the new value of `count` is 1.5, which is not a 64-bit integer",
        ),
        (
            Some(vec![(
                "count",
                AttributeValue::N("99999999999999999999".into()),
            )]),
            "the new value of `count` is 99999999999999999999, which is not a 64-bit integer",
        ),
    ] {
        let rule = update_answer(attributes);
        let client = mock_client(&[&rule]);
        let err = Table::new(&client, TABLE, CounterMapper::SCHEMA)
            .increment::<CounterMapper>(key.clone(), "count", 1)
            .await
            .unwrap_err();
        // The answer came: the increment was applied, and the error says so.
        assert_eq!(err.kind(), ErrorKind::MaybeApplied, "{err:#}");
        let cause = cause(&err).unwrap();
        assert_eq!(cause.kind(), ErrorKind::UnexpectedResponse);
        assert!(cause.to_string().contains(expected), "{err:#}");
        assert!(
            cause.to_string().contains("the increment was applied"),
            "{err:#}"
        );
    }
}

#[tokio::test]
async fn a_versioned_update_whose_answer_is_lost_is_not_claimed() {
    let mut record = Record::new(counter("v", 1));
    record.version = Some(10);
    record.stored = true;
    let rule = mock!(Client::update_item)
        .sequence()
        .http_status(500, None)
        .repeatedly()
        .build();
    let client = retrying_client(&rule);
    let err = Table::new(&client, TABLE, CounterMapper::SCHEMA)
        .update_record::<CounterMapper>(&mut record, counter("v", 2))
        .await
        .unwrap_err();
    assert_eq!(rule.num_calls(), 1, "sent once");
    assert_ne!(err.kind(), ErrorKind::VersionConflict, "{err}");
    assert_eq!(
        (record.version, record.entity.count),
        (Some(10), 1),
        "not claimed as written"
    );
}

/// A 400 answer with DynamoDB's error `code` (a refusal, nothing applied).
fn refused(code: &str) -> String {
    format!(r#"{{"__type":"com.amazonaws.dynamodb.v20120810#{code}","message":"refused"}}"#)
}

#[tokio::test]
async fn an_attempt_that_may_have_applied_a_batch_write_is_never_hidden_by_a_later_refusal() {
    // Found by review: with the SDK's own retries on (any default client),
    // an attempt answered with a 500 (perhaps applied) then a throttled one
    // read as "throttled": the writes came back as certainly not written.
    // Each runner attempt is now one SDK attempt, so every answer is seen.
    for later in ["ThrottlingException", "ValidationException"] {
        let rule = mock!(Client::batch_write_item)
            .sequence()
            .http_status(500, None)
            .http_status(400, Some(refused(later)))
            .repeatedly()
            .build();
        let client = retrying_client(&rule);
        let err = Table::new(&client, TABLE, APP_TABLE)
            .retry_policy(fast_retry(2))
            .batch_writer()
            .put::<CustomerMapper>(&customers(3))
            .await
            .unwrap_err();
        assert_eq!(
            rule.num_calls(),
            2,
            "{later}: one SDK attempt per runner attempt"
        );
        let (written, unprocessed, in_doubt, _) = incomplete(&err, 3);
        assert_eq!(
            (written, unprocessed.len(), in_doubt.len()),
            (0, 0, 3),
            "{later}: {err:#}"
        );
        assert_eq!(attempts(&err), Some(2), "{err:#}");
    }
}

#[tokio::test]
async fn a_batch_get_counts_every_request_it_sends() {
    use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput;
    // The SDK's hidden retries made `requests` and `retries` undercount.
    let rule = mock!(Client::batch_get_item)
        .sequence()
        .http_status(500, None)
        .output(|| BatchGetItemOutput::builder().build())
        .build();
    let client = retrying_client(&rule);
    let keys = vec![CustomerMapper::key(&customer("C1")).unwrap()];
    let got = Table::new(&client, TABLE, APP_TABLE)
        .retry_policy(fast_retry(3))
        .batch_getter()
        .get::<CustomerMapper>(keys)
        .await
        .unwrap();
    assert_eq!(rule.num_calls(), 2);
    assert_eq!((got.summary.requests, got.summary.retries), (2, 1));
}

#[tokio::test]
async fn a_transaction_resends_unanswered_and_throttled_sends_with_its_token() {
    use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsOutput;
    let send = |rule: &aws_smithy_mocks::Rule, attempts: u32| {
        let client = retrying_client(rule);
        async move {
            let mut tx = Table::new(&client, TABLE, APP_TABLE)
                .retry_policy(fast_retry(attempts))
                .transaction();
            tx = tx.put_new::<CustomerMapper>(&customer("C001")).unwrap();
            tx.send().await
        }
    };
    let (tokens, record) = recorded_tokens();
    // Unanswered, then in progress (the first send still being applied),
    // then throttled, then applied: four sends of one token.
    let rule = mock!(Client::transact_write_items)
        .match_requests(record)
        .sequence()
        .http_status(500, None)
        .http_status(400, Some(refused("TransactionInProgressException")))
        .http_status(400, Some(refused("ThrottlingException")))
        .output(|| TransactWriteItemsOutput::builder().build())
        .build();
    send(&rule, 4).await.unwrap();
    let tokens = tokens.lock().unwrap().clone();
    assert_eq!(tokens.len(), 4, "one SDK attempt per send");
    assert!(
        tokens.iter().all(|t| t.is_some() && *t == tokens[0]),
        "{tokens:?}"
    );

    // Out of attempts on a refusal for now after an unanswered send: the
    // outcome is unknown, so the error is the unanswered send's, not the
    // refusal's (which would say nothing was applied).
    let rule = mock!(Client::transact_write_items)
        .sequence()
        .http_status(500, None)
        .http_status(400, Some(refused("ThrottlingException")))
        .repeatedly()
        .build();
    let err = send(&rule, 2).await.unwrap_err();
    assert_eq!(rule.num_calls(), 2);
    assert_eq!(err.kind(), ErrorKind::MaybeApplied, "{err:#}");
    assert_eq!(
        cause(&err).map(Error::kind),
        Some(ErrorKind::Sdk),
        "{err:#}"
    );
    assert!(
        !format!("{err:#}").contains("ThrottlingException"),
        "{err:#}"
    );
    // Throttled from the start: refused, nothing applied, said as such.
    let rule = mock!(Client::transact_write_items)
        .sequence()
        .http_status(400, Some(refused("ThrottlingException")))
        .repeatedly()
        .build();
    let err = send(&rule, 2).await.unwrap_err();
    assert_eq!(rule.num_calls(), 2);
    assert!(
        format!("{err:#}").contains("ThrottlingException"),
        "{err:#}"
    );
    // A cancellation answers for every send of the token: nothing applied.
    let rule = mock!(Client::transact_write_items)
        .sequence()
        .http_status(500, None)
        .http_status(
            400,
            Some(
                r#"{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"canceled","CancellationReasons":[{"Code":"ConditionalCheckFailed"}]}"#
                    .to_owned(),
            ),
        )
        .build();
    let err = send(&rule, 3).await.unwrap_err();
    assert_eq!(rule.num_calls(), 2);
    assert_eq!(err.kind(), ErrorKind::TransactionCanceled, "{err:#}");
}

/// An item of exactly DynamoDB's size limit, without a version number.
fn item_at_the_limit() -> Item {
    let mut item = CustomerMapper::key(&customer("C1")).unwrap();
    item.insert("blob".into(), AttributeValue::S(String::new()));
    let room = MAX_ITEM_SIZE - dynamodb_mapper::item_size(&item);
    item.insert("blob".into(), AttributeValue::S("x".repeat(room)));
    assert_eq!(dynamodb_mapper::item_size(&item), MAX_ITEM_SIZE);
    item
}

#[tokio::test]
async fn a_version_number_that_takes_an_item_over_the_limit_is_refused_before_sending() {
    // Found by review: the version went in after the size check, so an item
    // at the limit was sent 18 bytes over it.
    let sent =
        mock!(Client::batch_write_item).then_output(|| BatchWriteItemOutput::builder().build());
    let put = mock!(Client::put_item)
        .then_output(|| aws_sdk_dynamodb::operation::put_item::PutItemOutput::builder().build());
    let tx = mock!(Client::transact_write_items).then_output(|| {
        aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsOutput::builder()
            .build()
    });
    let client = mock_client(&[&sent, &put, &tx]);
    let table = Table::new(&client, TABLE, VERSIONED_TABLE);

    // Imported raw, and imported typed (a record whose bag fills the item).
    let err = table
        .batch_writer()
        .import()
        .put_items(vec![item_at_the_limit()])
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ItemTooLarge, "{err:#}");
    assert!(err.to_string().contains("pk="), "names the key: {err}");
    let mut record = Record::new(counter("big", 1));
    let base = dynamodb_mapper::item_size(&CounterMapper::record_to_item(&record).unwrap());
    let room = MAX_ITEM_SIZE - base - "blob".len();
    record
        .bag
        .insert("blob".into(), AttributeValue::S("x".repeat(room)));
    let item = CounterMapper::record_to_item(&record).unwrap();
    assert_eq!(dynamodb_mapper::item_size(&item), MAX_ITEM_SIZE);
    let err = table
        .batch_writer()
        .import()
        .put_items(vec![item])
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ItemTooLarge, "{err:#}");

    // Versioned put, and a versioned put in a transaction.
    let err = table
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ItemTooLarge, "{err:#}");
    assert_eq!(err.entity_type(), Some("Counter"), "{err:#}");
    let transaction = table.transaction();
    let err = transaction
        .put_record::<CounterMapper>(&record)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ItemTooLarge, "{err:#}");
    assert_eq!(
        (sent.num_calls(), put.num_calls(), tx.num_calls()),
        (0, 0, 0),
        "nothing sent"
    );
    // One byte less, and the versioned item fits: sent.
    record
        .bag
        .insert("blob".into(), AttributeValue::S("x".repeat(room - 18)));
    table
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap();
    assert_eq!(put.num_calls(), 1);
}

/// A query rule that answers every page with one item and the key `again`
/// as its `LastEvaluatedKey`.
fn repeating_pages(again: Item) -> aws_smithy_mocks::Rule {
    use aws_sdk_dynamodb::operation::query::QueryOutput;
    mock!(Client::query).then_compute_output(move |req| {
        let id = if req.exclusive_start_key().is_some() {
            "C002"
        } else {
            "C001"
        };
        QueryOutput::builder()
            .items(CustomerMapper::to_item(&customer(id)).unwrap())
            .last_evaluated_key_from(&again)
            .build()
    })
}

trait LastKey {
    fn last_evaluated_key_from(self, key: &Item) -> Self;
}
impl LastKey for aws_sdk_dynamodb::operation::query::builders::QueryOutputBuilder {
    fn last_evaluated_key_from(self, key: &Item) -> Self {
        self.set_last_evaluated_key(Some(key.clone()))
    }
}

#[tokio::test]
async fn a_read_whose_next_page_is_the_same_page_fails_instead_of_ending_quietly() {
    use futures_util::StreamExt;
    // Found by review: the SDK's paginator ends without an error when a
    // page's LastEvaluatedKey is the key it was asked from, so the stream
    // ended as if the read were complete.
    let again = CustomerMapper::key(&customer("C001")).unwrap();
    let rule = repeating_pages(again.clone());
    let client = mock_client(&[&rule]);
    let table = Table::new(&client, TABLE, APP_TABLE);
    let registry = dynamodb_mapper::Registry::<Customer>::builder()
        .register::<CustomerMapper>(|c| c)
        .build()
        .unwrap();
    let query = table.query().key_condition_expression("pk = :p");
    let out: Vec<_> = table.query_stream(query, &registry).collect().await;
    let ids: Vec<String> = out
        .iter()
        .filter_map(|r| match r {
            Ok(dynamodb_mapper::Decoded::Entity(c)) => Some(c.customer_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(ids, ["C001", "C002"], "every item read is handed out");
    let last = out.last().unwrap().as_ref().unwrap_err();
    assert_eq!(last.kind(), ErrorKind::UnexpectedResponse, "{last:#}");
    assert!(last.to_string().contains("LastEvaluatedKey"), "{last}");
    assert_eq!(rule.num_calls(), 2);

    // Asked from the key it answers with: the first page already repeats.
    let query = table
        .query()
        .key_condition_expression("pk = :p")
        .set_exclusive_start_key(Some(again.clone()));
    let out: Vec<_> = table.query_stream(query, &registry).collect().await;
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(out[0].is_ok() && out[1].is_err(), "{out:?}");

    // Page at a time: the cursor would lead back to the same page.
    let cursors = dynamodb_mapper::cursor::Cursors::new(TABLE, APP_TABLE);
    let first = table
        .query_page(
            table.query().key_condition_expression("pk = :p"),
            &registry,
            &cursors,
            None,
        )
        .await
        .unwrap();
    let next = first.next.expect("a next page");
    let err = table
        .query_page(
            table.query().key_condition_expression("pk = :p"),
            &registry,
            &cursors,
            Some(&next),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnexpectedResponse, "{err:#}");
}

#[tokio::test]
async fn a_record_read_answered_with_another_item_is_refused() {
    use aws_sdk_dynamodb::operation::get_item::GetItemOutput;
    // Found by review: a record of another key carries that item's version,
    // so a versioned write from it would pass its check on the wrong item.
    let other = CounterMapper::to_item(&counter("other", 1)).unwrap();
    let rule = mock!(Client::get_item).then_output(move || {
        GetItemOutput::builder()
            .set_item(Some(other.clone()))
            .build()
    });
    let client = mock_client(&[&rule]);
    let table = Table::new(&client, TABLE, VERSIONED_TABLE);
    let asked = CounterMapper::key(&counter("mine", 1)).unwrap();
    let err = table.get_record::<CounterMapper>(asked).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnexpectedResponse, "{err:#}");
    assert!(err.to_string().contains("other"), "names what came: {err}");
    // The same key spelled the same way is the item asked for.
    let mine = CounterMapper::to_item(&counter("mine", 1)).unwrap();
    let rule = mock!(Client::get_item).then_output(move || {
        GetItemOutput::builder()
            .set_item(Some(mine.clone()))
            .build()
    });
    let client = mock_client(&[&rule]);
    let record = Table::new(&client, TABLE, VERSIONED_TABLE)
        .get_record::<CounterMapper>(CounterMapper::key(&counter("mine", 1)).unwrap())
        .await
        .unwrap();
    assert_eq!(record.unwrap().entity.counter_id, "mine");
}
