//! The wire over a real server: each fault makes the answer it promises,
//! and what the server holds afterwards is what the fault says was
//! applied. Runs on the backend `DYNAMODB_MAPPER_BACKEND` chooses.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{
    AttributeValue, KeysAndAttributes, Put, PutRequest, ReturnConsumedCapacity, TransactWriteItem,
    WriteRequest,
};
use dynamodb_mapper_testkit::{Fault, Wire, shared, unique_table_name};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

async fn table(name: &str) -> (Client, String) {
    let db = shared().await.expect("server");
    let client = db.client();
    let table = unique_table_name(name);
    common::create_table(&client, &table).await;
    (client, table)
}

/// `client` with the SDK's retries off: each call is one attempt.
fn once(client: &Client) -> Client {
    Client::from_conf(
        client
            .config()
            .to_builder()
            .retry_config(RetryConfig::disabled())
            .build(),
    )
}

/// `client` sending each call once, with `timeouts`.
fn timing_out(
    client: &Client,
    timeouts: aws_sdk_dynamodb::config::timeout::TimeoutConfigBuilder,
) -> Client {
    Client::from_conf(
        client
            .config()
            .to_builder()
            .retry_config(RetryConfig::disabled())
            .timeout_config(timeouts.build())
            .build(),
    )
}

/// `client` retrying 3 times without waiting long.
fn retrying(client: &Client) -> Client {
    Client::from_conf(
        client
            .config()
            .to_builder()
            .retry_config(
                RetryConfig::standard()
                    .with_max_attempts(3)
                    .with_initial_backoff(Duration::from_millis(1)),
            )
            .build(),
    )
}

fn code<E: ProvideErrorMetadata, R>(err: &SdkError<E, R>) -> Option<String> {
    err.as_service_error()
        .and_then(|e| e.code())
        .map(str::to_owned)
}

/// The `pk`s the table holds, read past the wire.
async fn stored(client: &Client, table: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(table)
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("scan");
        for item in page.items() {
            if let Some(AttributeValue::S(pk)) = item.get("pk") {
                out.insert(pk.clone());
            }
        }
        start = page.last_evaluated_key().cloned();
        if start.is_none() {
            return out;
        }
    }
}

async fn put(client: &Client, table: &str, pk: &str) -> Result<(), String> {
    client
        .put_item()
        .table_name(table)
        .item("pk", s(pk))
        .send()
        .await
        .map(|_| ())
        .map_err(|e| format!("{}", aws_sdk_dynamodb::error::DisplayErrorContext(e)))
}

#[tokio::test]
async fn a_throttled_request_is_refused_with_dynamodbs_error_and_not_applied() {
    let (plain, t) = table("wire_throttle").await;
    let wire = Wire::new().fault(Fault::throttle().on("PutItem")).unwrap();
    let err = once(&wire.client(&plain))
        .put_item()
        .table_name(&t)
        .item("pk", s("a"))
        .send()
        .await
        .expect_err("throttled");
    assert_eq!(
        code(&err).as_deref(),
        Some("ProvisionedThroughputExceededException")
    );
    assert!(stored(&plain, &t).await.is_empty(), "nothing applied");

    // Once only: the SDK's retry goes through and the item is there.
    let wire = Wire::new()
        .fault(Fault::throttle().on("PutItem").times(1))
        .unwrap();
    put(&retrying(&wire.client(&plain)), &t, "b").await.unwrap();
    assert_eq!(stored(&plain, &t).await, BTreeSet::from(["b".to_owned()]));
    let sent = wire.exchanges();
    assert_eq!(sent.len(), 2, "{sent:#?}");
    assert_eq!(sent[0].fault(), Some("throttle on PutItem, once"));
    assert_eq!(sent[0].status(), Some(400));
    assert_eq!(
        sent[0].error_code(),
        Some("ProvisionedThroughputExceededException")
    );
    assert_eq!((sent[1].fault(), sent[1].status()), (None, Some(200)));
}

#[tokio::test]
async fn a_partial_batch_write_applies_exactly_what_it_does_not_hand_back() {
    let (plain, t) = table("wire_batch_write").await;
    let wire = Wire::new().seed(3).fault(Fault::unprocessed(0.4)).unwrap();
    let sent: BTreeSet<String> = (0..25).map(|i| format!("p{i:02}")).collect();
    let requests: Vec<WriteRequest> = sent
        .iter()
        .map(|pk| {
            WriteRequest::builder()
                .put_request(PutRequest::builder().item("pk", s(pk)).build().unwrap())
                .build()
        })
        .collect();
    let out = once(&wire.client(&plain))
        .batch_write_item()
        .request_items(&t, requests.clone())
        .send()
        .await
        .expect("answered");
    let handed_back: BTreeSet<String> = out
        .unprocessed_items()
        .and_then(|u| u.get(&t))
        .map(|list| {
            list.iter()
                .filter_map(|w| w.put_request()?.item().get("pk")?.as_s().ok().cloned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        !handed_back.is_empty() && handed_back.len() < 25,
        "{handed_back:?}"
    );
    let applied = stored(&plain, &t).await;
    assert_eq!(
        applied,
        sent.difference(&handed_back).cloned().collect(),
        "the store holds exactly what was not handed back"
    );

    // Everything held back: DynamoDB refuses such a batch as throttled.
    let wire = Wire::new().fault(Fault::unprocessed(1.0)).unwrap();
    let err = once(&wire.client(&plain))
        .batch_write_item()
        .request_items(&t, requests)
        .send()
        .await
        .expect_err("refused");
    assert_eq!(
        code(&err).as_deref(),
        Some("ProvisionedThroughputExceededException")
    );
    assert_eq!(stored(&plain, &t).await, applied, "nothing more applied");
}

#[tokio::test]
async fn a_partial_batch_get_reads_the_rest_from_the_store() {
    let (plain, t) = table("wire_batch_get").await;
    for i in 0..30 {
        plain
            .put_item()
            .table_name(&t)
            .item("pk", s(&format!("k{i:02}")))
            .item("n", AttributeValue::N(i.to_string()))
            .send()
            .await
            .unwrap();
    }
    let wire = Wire::new()
        .seed(9)
        .fault(Fault::unprocessed(0.5).on("BatchGetItem"))
        .unwrap();
    let keys = (0..30)
        .map(|i| [("pk".to_owned(), s(&format!("k{i:02}")))].into())
        .collect();
    let out = once(&wire.client(&plain))
        .batch_get_item()
        .request_items(
            &t,
            KeysAndAttributes::builder()
                .set_keys(Some(keys))
                .consistent_read(true)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("answered");
    let mut seen = BTreeSet::new();
    for item in out
        .responses()
        .and_then(|r| r.get(&t))
        .into_iter()
        .flatten()
    {
        let pk = item["pk"].as_s().unwrap().clone();
        let n: usize = item["n"].as_n().unwrap().parse().unwrap();
        assert_eq!(pk, format!("k{n:02}"), "a real item, as stored");
        assert!(seen.insert(pk));
    }
    let back = out
        .unprocessed_keys()
        .and_then(|u| u.get(&t))
        .expect("some keys handed back");
    assert_eq!(
        back.consistent_read(),
        Some(true),
        "handed back with the read's options"
    );
    for key in back.keys() {
        assert!(
            seen.insert(key["pk"].as_s().unwrap().clone()),
            "read and handed back"
        );
    }
    assert_eq!(seen.len(), 30, "read + handed back = asked");
}

#[tokio::test]
async fn a_conflict_cancels_a_transaction_and_refuses_a_write_applying_nothing() {
    let (plain, t) = table("wire_conflict").await;
    let wire = Wire::new().fault(Fault::conflict()).unwrap();
    let client = once(&wire.client(&plain));
    let actions: Vec<TransactWriteItem> = ["a", "b", "c"]
        .iter()
        .map(|pk| {
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(&t)
                        .item("pk", s(pk))
                        .build()
                        .unwrap(),
                )
                .build()
        })
        .collect();
    let err = client
        .transact_write_items()
        .set_transact_items(Some(actions))
        .send()
        .await
        .expect_err("canceled");
    let canceled = err.as_service_error().and_then(|e| match e {
        aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(c) => Some(c),
        _ => None,
    });
    let codes: Vec<&str> = canceled
        .expect("TransactionCanceledException")
        .cancellation_reasons()
        .iter()
        .map(|r| r.code().unwrap_or("None"))
        .collect();
    assert_eq!(codes.len(), 3);
    assert_eq!(
        codes
            .iter()
            .filter(|c| **c == "TransactionConflict")
            .count(),
        1,
        "{codes:?}"
    );
    assert_eq!(
        codes.iter().filter(|c| **c == "None").count(),
        2,
        "{codes:?}"
    );
    let err = put(&client, &t, "d").await.expect_err("refused");
    assert!(err.contains("TransactionConflictException"), "{err}");
    assert!(stored(&plain, &t).await.is_empty(), "nothing applied");
}

#[tokio::test]
async fn a_server_error_before_apply_looks_the_same_and_leaves_nothing() {
    let (plain, t) = table("wire_error_before").await;
    let wire = Wire::new()
        .fault(Fault::error_before_apply().on("PutItem"))
        .unwrap();
    let err = put(&once(&wire.client(&plain)), &t, "a")
        .await
        .expect_err("500");
    assert!(err.contains("InternalServerError"), "{err}");
    assert!(stored(&plain, &t).await.is_empty(), "nothing applied");
    let sent = wire.exchanges();
    assert_eq!(sent[0].status(), Some(500));
    assert_eq!(sent[0].fault(), Some("error before apply on PutItem"));
}

#[tokio::test]
async fn a_write_applied_then_its_answer_cut_in_the_middle_is_an_error_and_in_the_store() {
    let (plain, t) = table("wire_cut_answer").await;
    let wire = Wire::new()
        .fault(Fault::cut_answer().on("PutItem"))
        .unwrap();
    let err = put(&once(&wire.client(&plain)), &t, "a")
        .await
        .expect_err("an answer the client cannot read");
    assert!(err.contains("closed in the middle of the answer"), "{err}");
    assert_eq!(
        stored(&plain, &t).await,
        BTreeSet::from(["a".to_owned()]),
        "applied"
    );
    let sent = wire.exchanges();
    assert_eq!(sent[0].fault(), Some("cut answer on PutItem"));
    assert_eq!(sent[0].status(), None, "no answer the client could read");
}

#[tokio::test]
async fn a_write_applied_then_answered_with_a_server_error_is_in_the_store() {
    let (plain, t) = table("wire_error_after").await;
    let wire = Wire::new()
        .fault(Fault::error_after_apply().on("PutItem"))
        .unwrap();
    let err = put(&once(&wire.client(&plain)), &t, "a")
        .await
        .expect_err("500");
    assert!(err.contains("InternalServerError"), "{err}");
    assert_eq!(
        stored(&plain, &t).await,
        BTreeSet::from(["a".to_owned()]),
        "applied"
    );
    assert_eq!(wire.exchanges()[0].status(), Some(500));

    // Why it matters: the SDK retries a 500, so an increment whose answer
    // was lost is applied twice.
    let wire = Wire::new()
        .fault(Fault::error_after_apply().on("UpdateItem").times(1))
        .unwrap();
    retrying(&wire.client(&plain))
        .update_item()
        .table_name(&t)
        .key("pk", s("a"))
        .update_expression("ADD n :one")
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .send()
        .await
        .expect("the retry answers");
    let item = plain
        .get_item()
        .table_name(&t)
        .key("pk", s("a"))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    assert_eq!(
        item.item().unwrap()["n"].as_n().unwrap(),
        "2",
        "applied once per send"
    );
}

#[tokio::test]
async fn a_write_applied_then_cut_off_is_an_io_error_and_in_the_store() {
    let (plain, t) = table("wire_drop_after").await;
    let wire = Wire::new().fault(Fault::drop_after_apply()).unwrap();
    let client = once(&wire.client(&plain));
    let err = client
        .put_item()
        .table_name(&t)
        .item("pk", s("a"))
        .send()
        .await
        .expect_err("cut off");
    assert!(matches!(err, SdkError::DispatchFailure(_)), "{err:?}");
    assert_eq!(
        stored(&plain, &t).await,
        BTreeSet::from(["a".to_owned()]),
        "applied"
    );
    let sent = wire.exchanges();
    assert_eq!(sent[0].status(), None);
    assert!(sent[0].to_string().contains("no answer: "), "{}", sent[0]);
}

#[tokio::test]
async fn silence_and_long_delays_end_with_the_clients_timeout_applying_nothing() {
    let (plain, t) = table("wire_silence").await;
    let with_timeout = |c: &Client| {
        timing_out(
            c,
            TimeoutConfig::builder().operation_timeout(Duration::from_millis(300)),
        )
    };
    let wire = Wire::new()
        .fault(Fault::silence().on("PutItem").times(1))
        .unwrap()
        .fault(Fault::delay(Duration::from_secs(30)).on("PutItem").times(1))
        .unwrap()
        .fault(Fault::delay(Duration::from_millis(20)).on("PutItem"))
        .unwrap();
    let client = with_timeout(&wire.client(&plain));
    for pk in ["silenced", "delayed"] {
        let err = client
            .put_item()
            .table_name(&t)
            .item("pk", s(pk))
            .send()
            .await
            .expect_err("timed out");
        assert!(matches!(err, SdkError::TimeoutError(_)), "{err:?}");
    }
    put(&client, &t, "late")
        .await
        .expect("a short delay is only late");
    assert_eq!(
        stored(&plain, &t).await,
        BTreeSet::from(["late".to_owned()])
    );
    let sent = wire.exchanges();
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[0].fault(), Some("silence on PutItem, once"));
    assert_eq!(
        sent[0].to_string().lines().last(),
        Some("  ← no answer: the client stopped waiting (a timeout, or the call was dropped)")
    );
    assert_eq!(sent[2].status(), Some(200));
}

#[tokio::test]
async fn the_same_seed_strikes_the_same_requests() {
    let (plain, t) = table("wire_seed").await;
    let pattern = |seed: u64| {
        let plain = plain.clone();
        let t = t.clone();
        async move {
            let wire = Wire::new()
                .seed(seed)
                .fault(Fault::throttle().on("GetItem").rate(0.5))
                .unwrap();
            let client = once(&wire.client(&plain));
            let mut hits = Vec::new();
            for _ in 0..40 {
                let r = client
                    .get_item()
                    .table_name(&t)
                    .key("pk", s("x"))
                    .send()
                    .await;
                hits.push(r.is_err());
            }
            hits
        }
    };
    let a = pattern(17).await;
    assert_eq!(a, pattern(17).await);
    assert_ne!(a, pattern(18).await);
    let struck = a.iter().filter(|h| **h).count();
    assert!((8..=32).contains(&struck), "about half: {struck}");
}

#[tokio::test]
async fn a_rule_on_one_table_leaves_the_others_alone() {
    let (plain, t) = table("wire_table_a").await;
    let (_, other) = table("wire_table_b").await;
    let wire = Wire::new().fault(Fault::throttle().table(&t)).unwrap();
    let client = once(&wire.client(&plain));
    assert!(put(&client, &t, "a").await.is_err());
    put(&client, &other, "a").await.expect("not its table");
}

#[tokio::test]
async fn every_request_is_recorded_with_its_expressions_resolved() {
    let (plain, t) = table("wire_capture").await;
    let watched = Arc::new(Mutex::new(Vec::new()));
    let w = watched.clone();
    let wire = Wire::new().watch(move |e| w.lock().unwrap().push(e.operation().to_owned()));
    let client = wire.client(&plain);
    client
        .put_item()
        .table_name(&t)
        .item("pk", s("CUSTOMER#42"))
        .item("status", s("open"))
        .condition_expression("attribute_not_exists(#pk)")
        .expression_attribute_names("#pk", "pk")
        .send()
        .await
        .unwrap();
    client
        .query()
        .table_name(&t)
        .key_condition_expression("#pk = :pk")
        .filter_expression("#s = :s")
        .expression_attribute_names("#pk", "pk")
        .expression_attribute_names("#s", "status")
        .expression_attribute_values(":pk", s("CUSTOMER#42"))
        .expression_attribute_values(":s", s("open"))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .unwrap();
    let sent = wire.exchanges();
    assert_eq!(sent.len(), 2);
    assert_eq!(
        sent[0].condition().as_deref(),
        Some("attribute_not_exists(pk)")
    );
    assert_eq!(sent[0].table(), Some(t.as_str()));
    let q = &sent[1];
    assert_eq!((q.operation(), q.index()), ("Query", None));
    assert_eq!(q.key_condition().as_deref(), Some(r#"pk = "CUSTOMER#42""#));
    assert_eq!(q.filter().as_deref(), Some(r#"status = "open""#));
    assert_eq!(q.answer().map(|a| a["Count"].clone()), Some(1.into()));
    assert!(q.consumed_capacity().is_some_and(|c| c > 0.0), "{q}");
    let shown = q.to_string();
    assert!(
        shown.starts_with(&format!(
            "→ Query {t}\n    key condition: pk = \"CUSTOMER#42\"\n"
        )),
        "{shown}"
    );
    assert!(shown.contains("← 200, 1 items"), "{shown}");
    assert!(!sent.iter().any(|e| e.operation() == "Scan"));
    assert_eq!(*watched.lock().unwrap(), ["PutItem", "Query"]);
}

#[tokio::test]
async fn times_holds_for_concurrent_requests() {
    let (plain, t) = table("wire_times").await;
    let wire = Wire::new()
        .fault(Fault::throttle().on("PutItem").times(3))
        .unwrap();
    let client = once(&wire.client(&plain));
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let (client, t) = (client.clone(), t.clone());
            tokio::spawn(async move { put(&client, &t, &format!("p{i}")).await })
        })
        .collect();
    let mut refused = 0;
    for task in tasks {
        if task.await.unwrap().is_err() {
            refused += 1;
        }
    }
    assert_eq!(refused, 3);
    assert_eq!(stored(&plain, &t).await.len(), 13, "the others applied");
    assert_eq!(
        wire.exchanges()
            .iter()
            .filter(|e| e.fault().is_some())
            .count(),
        3
    );
}

#[tokio::test]
async fn a_partial_batch_never_hides_a_refusal_the_server_would_give() {
    let (plain, t) = table("wire_batch_refused").await;
    let wire = Wire::new().fault(Fault::unprocessed(0.5)).unwrap();
    let client = once(&wire.client(&plain));
    let put = |pk: &str| {
        WriteRequest::builder()
            .put_request(PutRequest::builder().item("pk", s(pk)).build().unwrap())
            .build()
    };
    let too_many: Vec<WriteRequest> = (0..26).map(|i| put(&format!("p{i}"))).collect();
    let twice = vec![put("x"), put("x")];
    for batch in [too_many, twice] {
        let err = client
            .batch_write_item()
            .request_items(&t, batch)
            .send()
            .await
            .expect_err("refused by the server");
        assert_eq!(
            code(&err).as_deref(),
            Some("ValidationException"),
            "{err:?}"
        );
    }
    assert!(stored(&plain, &t).await.is_empty());
    assert!(
        wire.exchanges().iter().all(|e| e.fault().is_none()),
        "no fault claimed"
    );
}

#[tokio::test]
async fn a_strike_that_changes_nothing_is_given_back() {
    let (plain, t) = table("wire_give_back").await;
    // One entry per batch, held back with probability 0.3, once: the first
    // batch that loses its entry is the one labelled, and only it.
    let wire = Wire::new()
        .seed(1)
        .fault(Fault::unprocessed(0.3).times(1))
        .unwrap();
    let client = once(&wire.client(&plain));
    for i in 0..20 {
        let request = WriteRequest::builder()
            .put_request(
                PutRequest::builder()
                    .item("pk", s(&format!("p{i}")))
                    .build()
                    .unwrap(),
            )
            .build();
        let _ = client
            .batch_write_item()
            .request_items(&t, vec![request])
            .send()
            .await;
    }
    let struck: Vec<_> = wire
        .exchanges()
        .into_iter()
        .filter(|e| e.fault().is_some())
        .collect();
    assert_eq!(struck.len(), 1, "{struck:#?}");
    assert_eq!(
        struck[0].error_code(),
        Some("ProvisionedThroughputExceededException")
    );
    assert_eq!(
        stored(&plain, &t).await.len(),
        19,
        "every other batch applied"
    );

    // A write the server refuses is not "applied then lost".
    let wire = Wire::new()
        .fault(Fault::error_after_apply().times(1))
        .unwrap();
    let client = once(&wire.client(&plain));
    let err = client
        .put_item()
        .table_name(&t)
        .item("pk", s("p0"))
        .condition_expression("attribute_not_exists(pk)")
        .send()
        .await
        .expect_err("p0 exists");
    assert_eq!(
        code(&err).as_deref(),
        Some("ConditionalCheckFailedException")
    );
    put(&client, &t, "fresh")
        .await
        .expect_err("the strike is still there");
    let sent = wire.exchanges();
    assert_eq!(sent[0].fault(), None);
    assert_eq!(sent[1].fault(), Some("error after apply, once"));
    assert_eq!(
        stored(&plain, &t).await.len(),
        20,
        "19 batches and fresh, as the fault says"
    );
}

#[tokio::test]
async fn clones_with_rules_of_their_own_strike_independently() {
    let (plain, t) = table("wire_clones").await;
    let base = Wire::new();
    let a = base
        .clone()
        .fault(Fault::throttle().on("PutItem").times(1))
        .unwrap();
    let b = base
        .clone()
        .fault(Fault::throttle().on("PutItem").times(1))
        .unwrap();
    assert!(put(&once(&a.client(&plain)), &t, "a").await.is_err());
    assert!(
        put(&once(&b.client(&plain)), &t, "b").await.is_err(),
        "b's rule has its own count"
    );
    assert!(put(&once(&a.client(&plain)), &t, "a").await.is_ok());
    assert_eq!(base.exchanges().len(), 3, "the clones share the log");
}

#[tokio::test]
async fn a_read_timeout_ends_a_silence_and_a_client_giving_up_is_recorded() {
    let (plain, t) = table("wire_read_timeout").await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let w = seen.clone();
    let wire = Wire::new()
        .watch(move |e| w.lock().unwrap().push(e.to_string()))
        .fault(Fault::silence().on("GetItem").times(1))
        .unwrap()
        .fault(Fault::delay(Duration::from_secs(30)).on("PutItem").times(1))
        .unwrap();
    let reading = timing_out(
        &wire.client(&plain),
        TimeoutConfig::builder().read_timeout(Duration::from_millis(200)),
    );
    let err = reading
        .get_item()
        .table_name(&t)
        .key("pk", s("x"))
        .send()
        .await
        .expect_err("silent");
    assert!(
        matches!(
            err,
            SdkError::TimeoutError(_) | SdkError::DispatchFailure(_)
        ),
        "{err:?}"
    );
    let giving_up = timing_out(
        &wire.client(&plain),
        TimeoutConfig::builder().operation_timeout(Duration::from_millis(200)),
    );
    wire.clear(); // while nothing is under way; the next one ends after it
    let err = put(&giving_up, &t, "late").await.expect_err("gave up");
    assert!(
        err.contains("timeout") || err.contains("timed out"),
        "{err}"
    );
    let sent = wire.exchanges();
    assert_eq!(sent.len(), 1);
    assert!(
        sent[0].to_string().ends_with(
            "no answer: the client stopped waiting (a timeout, or the call was dropped)"
        ),
        "{}",
        sent[0]
    );
    let seen = seen.lock().unwrap().clone();
    assert!(seen.iter().any(|e| e.contains("read timeout")), "{seen:#?}");
    assert!(
        seen.last()
            .is_some_and(|e| e.contains("the client stopped waiting")),
        "{seen:#?}"
    );
    assert!(stored(&plain, &t).await.is_empty());
}

#[tokio::test]
async fn a_conflict_cancels_a_transactional_read() {
    let (plain, t) = table("wire_tx_get").await;
    put(&plain, &t, "a").await.unwrap();
    let wire = Wire::new()
        .fault(Fault::conflict().on("TransactGetItems"))
        .unwrap();
    let get = aws_sdk_dynamodb::types::TransactGetItem::builder()
        .get(
            aws_sdk_dynamodb::types::Get::builder()
                .table_name(&t)
                .key("pk", s("a"))
                .build()
                .unwrap(),
        )
        .build();
    let err = once(&wire.client(&plain))
        .transact_get_items()
        .transact_items(get)
        .send()
        .await
        .expect_err("canceled");
    let reasons = match err.as_service_error() {
        Some(aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsError::TransactionCanceledException(c)) => {
            c.cancellation_reasons().iter().filter_map(|r| r.code().map(str::to_owned)).collect::<Vec<_>>()
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(reasons, ["TransactionConflict"]);
}
