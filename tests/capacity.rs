//! Consumed capacity on request: no helper asks DynamoDB for it unless the
//! table opts in; then every helper asks on every request (retries and
//! pages included), reports the sum in its result where it has one, and
//! records it on its tracing span. Mocks check the requests and the sums;
//! the emulator checks that a real server's reports come through.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemOutput;
use aws_sdk_dynamodb::operation::get_item::GetItemOutput;
use aws_sdk_dynamodb::operation::put_item::{PutItemError, PutItemOutput};
use aws_sdk_dynamodb::operation::query::QueryOutput;
use aws_sdk_dynamodb::operation::scan::ScanOutput;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsOutput;
use aws_sdk_dynamodb::types::error::{
    ConditionalCheckFailedException, ProvisionedThroughputExceededException,
};
use aws_sdk_dynamodb::types::{
    AttributeValue, Capacity, ConsumedCapacity, Delete, KeysAndAttributes, ReturnConsumedCapacity,
    TransactWriteItem,
};
use aws_smithy_mocks::{MockResponse, mock};
use dynamodb_mapper::ops::{ActionInfo, ActionKind, BatchSummary, CapacityUsage, Table};
use dynamodb_mapper::{Item, MapperExt, Record, Registry};
use dynamodb_mapper_support::requests::{fast_retry, mock_client, sent_keys, sent_writes};
use dynamodb_mapper_support::seed001::*;
use futures_util::TryStreamExt;

const TABLE: &str = "AppTable";

/// The table settings tried on every helper, with the request field each
/// must produce: nothing by default, nothing for `NONE`, else the mode.
fn settings() -> [(
    Option<ReturnConsumedCapacity>,
    Option<ReturnConsumedCapacity>,
); 4] {
    use ReturnConsumedCapacity::{Indexes, None as Nothing, Total};
    [
        (None, None),
        (Some(Total), Some(Total)),
        (Some(Indexes), Some(Indexes)),
        (Some(Nothing), None),
    ]
}

/// `Table` of `schema` on `client` with `setting` applied (if any).
fn table(
    client: &Client,
    schema: dynamodb_mapper::TableSchema,
    setting: &Option<ReturnConsumedCapacity>,
) -> Table {
    let table = Table::new(client, TABLE, schema).retry_policy(fast_retry(5));
    match setting {
        Some(mode) => table.return_consumed_capacity(mode.clone()),
        None => table,
    }
}

/// A report of `units` on `table`, a quarter of it on GSI1: what DynamoDB
/// answers with `INDEXES` (the mocks answer it whatever was asked, so a
/// helper that did not ask must ignore it).
fn report(table: &str, units: f64) -> ConsumedCapacity {
    let capacity = |units| Capacity::builder().capacity_units(units).build();
    ConsumedCapacity::builder()
        .table_name(table)
        .capacity_units(units)
        .table(capacity(units * 0.75))
        .global_secondary_indexes("GSI1", capacity(units * 0.25))
        .build()
}

/// Checks `used` against the sum of `units` reported on [`TABLE`], when
/// `asked`; `None` otherwise.
#[track_caller]
fn assert_sum(used: Option<&CapacityUsage>, asked: bool, units: &[f64]) {
    if !asked {
        assert_eq!(used, None, "nothing asked, nothing reported");
        return;
    }
    let used = used.expect("asked, so reported");
    let total: f64 = units.iter().sum();
    assert_eq!(used.total, total);
    let table = &used.tables[TABLE];
    assert_eq!(
        (table.total, table.table, table.indexes.get("GSI1").copied()),
        (total, Some(total * 0.75), Some(total * 0.25))
    );
    let reports: Vec<_> = units.iter().map(|u| report(TABLE, *u)).collect();
    let mut expected = CapacityUsage::default();
    for r in &reports {
        expected.add(r);
    }
    assert_eq!(*used, expected);
}

/// Checks the span `name` recorded `total` as its consumed capacity (or
/// nothing when not `asked`).
#[track_caller]
fn assert_span(spans: &capture::Spans, name: &str, asked: bool, total: f64) {
    let recorded = spans.field(name, "consumed_capacity");
    assert_eq!(recorded, asked.then_some(total), "span {name}");
}

// ------------------------------------------------------------ batches

#[tokio::test]
async fn batch_write_asks_only_when_opted_in_and_sums_every_attempt() {
    for (setting, field) in settings() {
        let asked = field.is_some();
        let (spans, _guard) = capture::spans();
        let calls = Arc::new(AtomicUsize::new(0));
        let count = calls.clone();
        let want = field.clone();
        // First attempt: 3 units, two items left unprocessed; the retry: 2.
        let rule = mock!(Client::batch_write_item)
            .match_requests(move |r| r.return_consumed_capacity() == want.as_ref())
            .then_compute_output(move |req| {
                let sent = sent_writes(req, TABLE);
                if count.fetch_add(1, Ordering::SeqCst) == 0 {
                    BatchWriteItemOutput::builder()
                        .unprocessed_items(TABLE, vec![sent[2].clone(), sent[4].clone()])
                        .consumed_capacity(report(TABLE, 3.0))
                        .build()
                } else {
                    BatchWriteItemOutput::builder()
                        .consumed_capacity(report(TABLE, 2.0))
                        .build()
                }
            });
        let client = mock_client(&[&rule]);
        let summary = table(&client, APP_TABLE, &setting)
            .batch_writer()
            .put::<CustomerMapper>(&customers(5))
            .await
            .unwrap();
        assert_eq!(
            (rule.num_calls(), summary.items, summary.retries),
            (2, 5, 1)
        );
        assert_sum(summary.consumed_capacity.as_ref(), asked, &[3.0, 2.0]);
        assert_span(&spans, "dynamodb_mapper.batch_write", asked, 5.0);
    }
}

#[tokio::test]
async fn batch_write_sums_every_chunk() {
    let calls = Arc::new(AtomicUsize::new(0));
    let count = calls.clone();
    let rule = mock!(Client::batch_write_item)
        .match_requests(|r| r.return_consumed_capacity() == Some(&ReturnConsumedCapacity::Total))
        .then_compute_output(move |req| {
            count.fetch_add(1, Ordering::SeqCst);
            let n = sent_writes(req, TABLE).len() as f64;
            BatchWriteItemOutput::builder()
                .consumed_capacity(report(TABLE, n))
                .build()
        });
    let client = mock_client(&[&rule]);
    let summary = table(&client, APP_TABLE, &Some(ReturnConsumedCapacity::Total))
        .batch_writer()
        .put::<CustomerMapper>(&customers(60))
        .await
        .unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 3, "25 + 25 + 10");
    assert_sum(
        summary.consumed_capacity.as_ref(),
        true,
        &[25.0, 25.0, 10.0],
    );
}

#[tokio::test]
async fn an_empty_batch_reports_zero_when_asked_and_none_otherwise() {
    let client = mock_client(&[]);
    for (setting, field) in settings() {
        let t = table(&client, APP_TABLE, &setting);
        let written = t.batch_writer().put_items(Vec::new()).await.unwrap();
        let (_, read) = t.batch_getter().get_items(Vec::new()).await.unwrap();
        let sent = t.transaction().send().await.unwrap();
        let zero = field.is_some().then(CapacityUsage::default);
        assert_eq!(written.consumed_capacity, zero);
        assert_eq!(read.consumed_capacity, zero);
        assert_eq!(sent.consumed_capacity, zero);
    }
    assert_eq!(BatchSummary::default().consumed_capacity, None);
}

#[tokio::test]
async fn batch_get_asks_only_when_opted_in_and_sums_every_attempt() {
    for (setting, field) in settings() {
        let asked = field.is_some();
        let (spans, _guard) = capture::spans();
        let calls = Arc::new(AtomicUsize::new(0));
        let count = calls.clone();
        let want = field.clone();
        // First attempt: 1.5 units, two keys left unprocessed; the retry: 0.5.
        let rule = mock!(Client::batch_get_item)
            .match_requests(move |r| r.return_consumed_capacity() == want.as_ref())
            .then_compute_output(move |req| {
                let keys = sent_keys(req, TABLE);
                let first = count.fetch_add(1, Ordering::SeqCst) == 0;
                let (answer, left) = keys.split_at(if first { keys.len() - 2 } else { keys.len() });
                let items: Vec<Item> = answer
                    .iter()
                    .map(|k| CustomerMapper::to_item(&customer_with_key(k)).unwrap())
                    .collect();
                let mut out = BatchGetItemOutput::builder()
                    .responses(TABLE, items)
                    .consumed_capacity(report(TABLE, if first { 1.5 } else { 0.5 }));
                if !left.is_empty() {
                    let left = KeysAndAttributes::builder()
                        .set_keys(Some(left.to_vec()))
                        .build()
                        .unwrap();
                    out = out.unprocessed_keys(TABLE, left);
                }
                out.build()
            });
        let client = mock_client(&[&rule]);
        let keys: Vec<Item> = customers(10)
            .iter()
            .map(|c| CustomerMapper::key(c).unwrap())
            .collect();
        let read = table(&client, APP_TABLE, &setting)
            .batch_getter()
            .get::<CustomerMapper>(keys)
            .await
            .unwrap();
        assert_eq!((rule.num_calls(), read.entities.len()), (2, 10));
        assert_sum(read.summary.consumed_capacity.as_ref(), asked, &[1.5, 0.5]);
        assert_span(&spans, "dynamodb_mapper.batch_get", asked, 2.0);
    }
}

// ------------------------------------------------------------ transactions

#[tokio::test]
async fn transactions_ask_only_when_opted_in_and_report_every_table() {
    for (setting, field) in settings() {
        let asked = field.is_some();
        let (spans, _guard) = capture::spans();
        let want = field.clone();
        let rule = mock!(Client::transact_write_items)
            .match_requests(move |r| r.return_consumed_capacity() == want.as_ref())
            .then_output(|| {
                TransactWriteItemsOutput::builder()
                    .consumed_capacity(report(TABLE, 4.0))
                    .consumed_capacity(
                        ConsumedCapacity::builder()
                            .table_name("Audit")
                            .capacity_units(2.0)
                            .build(),
                    )
                    .build()
            });
        let client = mock_client(&[&rule]);
        let mut tx = table(&client, APP_TABLE, &setting).transaction();
        tx = tx.put::<CustomerMapper>(&customer("C1")).unwrap();
        let key = Item::from([("pk".to_owned(), AttributeValue::S("AUDIT#1".into()))]);
        let delete = Delete::builder()
            .table_name("Audit")
            .set_key(Some(key.clone()))
            .build()
            .unwrap();
        tx = tx
            .push(
                TransactWriteItem::builder().delete(delete).build(),
                ActionInfo::new(ActionKind::Delete, "Audit", "Audit", key),
            )
            .unwrap();
        let sent = tx.send().await.unwrap();
        assert_eq!(rule.num_calls(), 1);
        assert_span(&spans, "dynamodb_mapper.transact_write", asked, 6.0);
        let Some(used) = sent.consumed_capacity else {
            assert!(!asked, "asked, so reported");
            continue;
        };
        assert!(asked, "not asked, yet reported: {used:?}");
        assert_eq!(used.total, 6.0);
        assert_eq!(used.tables[TABLE].indexes["GSI1"], 1.0);
        assert_eq!(
            (used.tables["Audit"].total, used.tables["Audit"].table),
            (2.0, None)
        );
    }
}

// ------------------------------------------------------------ locking

/// A stored counter item at version 7.
fn stored_counter() -> Item {
    let mut item = CounterMapper::to_item(&counter("A", 1)).unwrap();
    item.insert("version".into(), AttributeValue::N("7".into()));
    item
}

#[tokio::test]
async fn get_record_asks_only_when_opted_in() {
    for (setting, field) in settings() {
        let asked = field.is_some();
        let (spans, _guard) = capture::spans();
        let want = field.clone();
        let rule = mock!(Client::get_item)
            .match_requests(move |r| r.return_consumed_capacity() == want.as_ref())
            .then_output(|| {
                GetItemOutput::builder()
                    .set_item(Some(stored_counter()))
                    .consumed_capacity(report(TABLE, 0.5))
                    .build()
            });
        let client = mock_client(&[&rule]);
        let key = CounterMapper::key(&counter("A", 1)).unwrap();
        let record = table(&client, VERSIONED_TABLE, &setting)
            .get_record::<CounterMapper>(key)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((rule.num_calls(), record.version), (1, Some(7)));
        assert_span(&spans, "dynamodb_mapper.get_record", asked, 0.5);
    }
}

#[tokio::test]
async fn put_versioned_asks_on_every_attempt_and_reports_the_applied_one() {
    for (setting, field) in settings() {
        let asked = field.is_some();
        let (spans, _guard) = capture::spans();
        let want = field.clone();
        // Throttled once (no report comes with a refusal), then written.
        let rule = mock!(Client::put_item)
            .match_requests(move |r| r.return_consumed_capacity() == want.as_ref())
            .sequence()
            .error(|| {
                PutItemError::ProvisionedThroughputExceededException(
                    ProvisionedThroughputExceededException::builder()
                        .message("slow")
                        .build(),
                )
            })
            .output(|| {
                PutItemOutput::builder()
                    .consumed_capacity(report(TABLE, 1.0))
                    .build()
            })
            .build();
        let client = mock_client(&[&rule]);
        let mut record = Record::new(counter("A", 1));
        table(&client, VERSIONED_TABLE, &setting)
            .put_record::<CounterMapper>(&mut record)
            .await
            .unwrap();
        assert_eq!(rule.num_calls(), 2);
        assert_span(&spans, "dynamodb_mapper.put_record", asked, 1.0);
    }
}

#[tokio::test]
async fn delete_versioned_asks_only_when_opted_in() {
    for (setting, field) in settings() {
        let asked = field.is_some();
        let (spans, _guard) = capture::spans();
        let want = field.clone();
        let rule = mock!(Client::delete_item)
            .match_requests(move |r| r.return_consumed_capacity() == want.as_ref())
            .then_output(|| {
                DeleteItemOutput::builder()
                    .consumed_capacity(report(TABLE, 1.0))
                    .build()
            });
        let client = mock_client(&[&rule]);
        let record = CounterMapper::record_from_item(stored_counter()).unwrap();
        table(&client, VERSIONED_TABLE, &setting)
            .delete_record::<CounterMapper>(&record)
            .await
            .unwrap();
        assert_eq!(rule.num_calls(), 1);
        assert_span(&spans, "dynamodb_mapper.delete_record", asked, 1.0);
    }
}

#[tokio::test]
async fn update_with_retry_sums_every_read_and_write() {
    for (setting, field) in settings() {
        let asked = field.is_some();
        let (spans, _guard) = capture::spans();
        let want = field.clone();
        let get = mock!(Client::get_item)
            .match_requests(move |r| r.return_consumed_capacity() == want.as_ref())
            .then_output(|| {
                GetItemOutput::builder()
                    .set_item(Some(stored_counter()))
                    .consumed_capacity(report(TABLE, 0.5))
                    .build()
            });
        let want = field.clone();
        // A conflict (its capacity is not reported), then the write.
        let put = mock!(Client::put_item)
            .match_requests(move |r| r.return_consumed_capacity() == want.as_ref())
            .then_compute_response({
                let calls = AtomicUsize::new(0);
                move |_| {
                    if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                        MockResponse::Error(PutItemError::ConditionalCheckFailedException(
                            ConditionalCheckFailedException::builder()
                                .message("stale")
                                .build(),
                        ))
                    } else {
                        MockResponse::Output(
                            PutItemOutput::builder()
                                .consumed_capacity(report(TABLE, 2.0))
                                .build(),
                        )
                    }
                }
            });
        let client = mock_client(&[&get, &put]);
        let key = CounterMapper::key(&counter("A", 1)).unwrap();
        let record = table(&client, VERSIONED_TABLE, &setting)
            .update_with_retry::<CounterMapper, _>(key, |r| {
                r.entity.count += 1;
                Ok(())
            })
            .await
            .unwrap();
        assert_eq!(
            (get.num_calls(), put.num_calls(), record.version),
            (2, 2, Some(8))
        );
        assert_span(&spans, "dynamodb_mapper.update_with_retry", asked, 3.0);
        // Each read and write is its own span too.
        let reads = spans.all("dynamodb_mapper.get_record", "consumed_capacity");
        assert_eq!(reads, [asked.then_some(0.5), asked.then_some(0.5)]);
        let writes = spans.all("dynamodb_mapper.put_record", "consumed_capacity");
        assert_eq!(writes, [None, asked.then_some(2.0)]);
    }
}

// ------------------------------------------------------------ streams

/// Customers by id.
fn by_id() -> Registry<String> {
    Registry::builder()
        .register::<CustomerMapper>(|c| c.customer_id)
        .build()
        .unwrap()
}

/// Page 1 (LastEvaluatedKey set) reports 0.5 units, page 2 1.5.
fn page(first: bool) -> (Vec<Item>, Option<Item>, ConsumedCapacity) {
    let id = if first { "C1" } else { "C2" };
    let item = CustomerMapper::to_item(&customer(id)).unwrap();
    let next = first.then(|| CustomerMapper::key(&customer(id)).unwrap());
    (
        vec![item],
        next,
        report(TABLE, if first { 0.5 } else { 1.5 }),
    )
}

#[tokio::test]
async fn query_stream_asks_on_every_page_and_records_the_sum() {
    for (setting, field) in settings() {
        let asked = field.is_some();
        let (spans, _guard) = capture::spans();
        let want = field.clone();
        let rule = mock!(Client::query)
            .match_requests(move |r| r.return_consumed_capacity() == want.as_ref())
            .then_compute_output(|req| {
                let (items, next, used) = page(req.exclusive_start_key().is_none());
                QueryOutput::builder()
                    .set_items(Some(items))
                    .set_last_evaluated_key(next)
                    .consumed_capacity(used)
                    .build()
            });
        let client = mock_client(&[&rule]);
        let t = table(&client, APP_TABLE, &setting);
        assert_eq!(t.query().get_return_consumed_capacity(), &field);
        let query = t
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", AttributeValue::S("CUSTOMER#C1".into()));
        let decoded: Vec<_> = t.query_stream(query, &by_id()).try_collect().await.unwrap();
        let ids: Vec<String> = decoded
            .into_iter()
            .filter_map(|d| d.into_entity())
            .collect();
        assert_eq!(
            (rule.num_calls(), ids),
            (2, vec!["C1".to_owned(), "C2".to_owned()])
        );
        assert_span(&spans, "dynamodb_mapper.query", asked, 2.0);
        assert_eq!(spans.field("dynamodb_mapper.query", "pages"), Some(2.0));
        assert_eq!(spans.field("dynamodb_mapper.query", "items"), Some(2.0));
    }
}

#[tokio::test]
async fn a_stream_follows_the_table_unless_the_request_says_otherwise() {
    use ReturnConsumedCapacity::{Indexes, None as Nothing, Total};
    // (table, request's own, sent)
    let cases = [
        (None, None, None),
        (Some(Total), None, Some(Total)),
        (None, Some(Indexes), Some(Indexes)),
        (Some(Total), Some(Indexes), Some(Indexes)),
        (Some(Total), Some(Nothing), Some(Nothing)),
    ];
    for (setting, own, sent) in cases {
        let asked = sent.as_ref().is_some_and(|m| *m != Nothing);
        let (spans, _guard) = capture::spans();
        let want = sent.clone();
        let rule = mock!(Client::scan)
            .match_requests(move |r| r.return_consumed_capacity() == want.as_ref())
            .then_compute_output(|req| {
                let (items, next, used) = page(req.exclusive_start_key().is_none());
                ScanOutput::builder()
                    .set_items(Some(items))
                    .set_last_evaluated_key(next)
                    .consumed_capacity(used)
                    .build()
            });
        let client = mock_client(&[&rule]);
        let t = table(&client, APP_TABLE, &setting);
        // A scan built by hand, not through the table: only the stream sets it.
        let scan = client
            .scan()
            .table_name(TABLE)
            .set_return_consumed_capacity(own);
        let decoded: Vec<_> = t.scan_stream(scan, &by_id()).try_collect().await.unwrap();
        let ids: Vec<String> = decoded
            .into_iter()
            .filter_map(|d| d.into_entity())
            .collect();
        assert_eq!(
            (rule.num_calls(), ids),
            (2, vec!["C1".to_owned(), "C2".to_owned()])
        );
        assert_span(&spans, "dynamodb_mapper.scan", asked, 2.0);
    }
}

// ------------------------------------------------------------ the emulator

/// Against the testkit's server (embedded by default, DynamoDB Local with
/// `DYNAMODB_MAPPER_BACKEND=dynamodb-local`): the server's own reports come
/// through, and nothing is reported when nothing was asked.
#[tokio::test]
async fn a_real_server_reports_capacity_only_when_asked() {
    use dynamodb_mapper_support::local;
    let (client, t) = local::client_and_table("capacity", APP_TABLE).await;
    let plain = Table::new(&client, &t, APP_TABLE);
    let list = customers(30);
    let written = plain
        .batch_writer()
        .put::<CustomerMapper>(&list)
        .await
        .unwrap();
    assert_eq!((written.items, written.consumed_capacity), (30, None));

    let total = plain
        .clone()
        .return_consumed_capacity(ReturnConsumedCapacity::Total);
    let written = total
        .batch_writer()
        .put::<CustomerMapper>(&list)
        .await
        .unwrap();
    let used = written.consumed_capacity.expect("asked, so reported");
    assert!(used.total > 0.0, "{used:?}");
    assert_eq!(used.tables[&t].total, used.total, "{used:?}");

    let keys: Vec<Item> = list
        .iter()
        .map(|c| CustomerMapper::key(c).unwrap())
        .collect();
    let (_, read) = plain.batch_getter().get_items(keys.clone()).await.unwrap();
    assert_eq!(read.consumed_capacity, None);
    let (items, read) = total.batch_getter().get_items(keys).await.unwrap();
    assert_eq!(items.len(), 30);
    let used = read.consumed_capacity.expect("asked, so reported");
    assert!(used.total > 0.0, "{used:?}");

    // With INDEXES, the write's share on GSI1 (customers by email) shows.
    let indexes = plain
        .clone()
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
    let mut tx = indexes.transaction();
    tx = tx.put::<CustomerMapper>(&customer("C100")).unwrap();
    let used = tx
        .send()
        .await
        .unwrap()
        .consumed_capacity
        .expect("asked, so reported");
    let share = &used.tables[&t];
    assert!(
        share.total > 0.0 && share.table.is_some_and(|u| u > 0.0),
        "{used:?}"
    );
    assert!(
        share.indexes.get("GSI1").is_some_and(|u| *u > 0.0),
        "{used:?}"
    );
    let mut tx = plain.transaction();
    tx = tx.put::<CustomerMapper>(&customer("C101")).unwrap();
    assert_eq!(tx.send().await.unwrap().consumed_capacity, None);
}

/// A minimal subscriber that keeps every span's numeric fields (the crate
/// depends on `tracing` only, not on `tracing-subscriber`).
mod capture {
    use std::collections::HashMap;
    use std::fmt;
    use std::sync::{Arc, Mutex};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::subscriber::DefaultGuard;
    use tracing::{Event, Metadata, Subscriber};

    struct Span {
        name: &'static str,
        numbers: HashMap<&'static str, f64>,
    }

    /// The spans opened on this thread while the guard lives.
    #[derive(Clone, Default)]
    pub struct Spans(Arc<Mutex<Vec<Span>>>);

    /// Captures the spans of this thread until the guard is dropped.
    pub fn spans() -> (Spans, DefaultGuard) {
        let spans = Spans::default();
        let guard = tracing::subscriber::set_default(spans.clone());
        (spans, guard)
    }

    impl Spans {
        /// `field` of every span `name`, in the order they were opened.
        pub fn all(&self, name: &str, field: &str) -> Vec<Option<f64>> {
            let spans = self.0.lock().unwrap();
            spans
                .iter()
                .filter(|s| s.name == name)
                .map(|s| s.numbers.get(field).copied())
                .collect()
        }

        /// `field` of the one span `name` (panics unless there is one).
        #[track_caller]
        pub fn field(&self, name: &str, field: &str) -> Option<f64> {
            let all = self.all(name, field);
            assert_eq!(all.len(), 1, "one span {name}");
            all[0]
        }
    }

    struct Numbers<'a>(&'a mut HashMap<&'static str, f64>);

    impl Visit for Numbers<'_> {
        fn record_f64(&mut self, field: &Field, value: f64) {
            self.0.insert(field.name(), value);
        }
        fn record_u64(&mut self, field: &Field, value: u64) {
            self.0.insert(field.name(), value as f64);
        }
        fn record_i64(&mut self, field: &Field, value: i64) {
            self.0.insert(field.name(), value as f64);
        }
        fn record_debug(&mut self, _: &Field, _: &dyn fmt::Debug) {}
    }

    impl Subscriber for Spans {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, span: &Attributes<'_>) -> Id {
            let mut spans = self.0.lock().unwrap();
            let mut numbers = HashMap::new();
            span.record(&mut Numbers(&mut numbers));
            spans.push(Span {
                name: span.metadata().name(),
                numbers,
            });
            Id::from_u64(spans.len() as u64)
        }
        fn record(&self, id: &Id, values: &Record<'_>) {
            let mut spans = self.0.lock().unwrap();
            let index = usize::try_from(id.into_u64() - 1).unwrap();
            values.record(&mut Numbers(&mut spans[index].numbers));
        }
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {}
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }
}
