//! Times both backends: start-up until the first `ListTables` answers, then
//! `PutItem` and `GetItem` round trips one after the other, then stopping.
//! Each round starts a fresh server (so every round of DynamoDB Local is a
//! cold JVM); DynamoDB Local is provisioned before the first round and that
//! is timed separately.
//!
//! ```text
//! cargo run -p dynamodb-mapper-testkit --example timings [--release] -- [ROUNDS] [REQUESTS] [BACKEND...]
//! ```
//!
//! Defaults: 3 rounds, 200 requests of each kind, both backends
//! (`embedded`, `dynamodb-local`).

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType,
};
use dynamodb_mapper_testkit::{Backend, TestServer, provision, wait_for_table_active};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), BoxError> {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(3);
    let requests: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(200);
    let mut backends = args
        .map(|a| a.parse::<Backend>())
        .collect::<Result<Vec<_>, _>>()?;
    if backends.is_empty() {
        backends = Backend::ALL.to_vec();
    }
    println!(
        "profile: {}; {rounds} rounds of {requests} PutItem + {requests} GetItem",
        if cfg!(debug_assertions) {
            "dev (unoptimized)"
        } else {
            "release"
        }
    );

    for backend in backends {
        if backend == Backend::DynamoDbLocal {
            let started = Instant::now();
            let dir = tokio::task::spawn_blocking(provision).await??;
            println!(
                "\n{backend}: provisioned {} in {}",
                dir.display(),
                ms(started.elapsed())
            );
        } else {
            println!("\n{backend}:");
        }
        println!("  round  start    1st ListTables  PutItem/req  GetItem/req  stop");
        for round in 1..=rounds {
            let started = Instant::now();
            let db = TestServer::start_backend(backend).await?;
            let start = started.elapsed();
            let client = db.client();

            let started = Instant::now();
            client.list_tables().send().await?;
            let first = started.elapsed();

            let table = dynamodb_mapper_testkit::unique_table_name("timings");
            create_table(&client, &table).await?;
            let (put, get) = round_trips(&client, &table, requests).await?;

            let started = Instant::now();
            drop(client);
            drop(db);
            let stop = started.elapsed();
            println!(
                "  {round:>5}  {:>7}  {:>14}  {:>11}  {:>11}  {:>6}",
                ms(start),
                ms(first),
                ms(put / requests as u32),
                ms(get / requests as u32),
                ms(stop)
            );
        }
    }
    Ok(())
}

/// `requests` puts, then as many consistent gets, each awaited before the
/// next; returns the total time of each kind.
async fn round_trips(
    client: &Client,
    table: &str,
    requests: usize,
) -> Result<(Duration, Duration), BoxError> {
    let started = Instant::now();
    for i in 0..requests {
        client
            .put_item()
            .table_name(table)
            .item("pk", AttributeValue::S(format!("user#{i}")))
            .item("name", AttributeValue::S(format!("name {i}")))
            .item("n", AttributeValue::N(i.to_string()))
            .send()
            .await?;
    }
    let put = started.elapsed();
    let started = Instant::now();
    for i in 0..requests {
        let item = client
            .get_item()
            .table_name(table)
            .key("pk", AttributeValue::S(format!("user#{i}")))
            .consistent_read(true)
            .send()
            .await?;
        assert!(item.item().is_some(), "user#{i} was just put");
    }
    Ok((put, started.elapsed()))
}

async fn create_table(client: &Client, table: &str) -> Result<(), BoxError> {
    client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()?,
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(KeyType::Hash)
                .build()?,
        )
        .send()
        .await?;
    wait_for_table_active(client, table).await?;
    Ok(())
}

/// Milliseconds with two decimals.
fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}
