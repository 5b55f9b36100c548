//! The guide of the testkit's README, "Testing your code on DynamoDB's bad
//! days", as a test that runs: a handler of your own, under throttling and
//! partial batches, checked against the store and the captured requests.

use std::error::Error;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, PutRequest,
    ScalarAttributeType, WriteRequest,
};
use dynamodb_mapper_testkit::{Fault, Wire, shared, unique_table_name, wait_for_table_active};

type BoxError = Box<dyn Error + Send + Sync>;

/// The code under test: saves a cart's lines in batches of 25, sending
/// again what DynamoDB hands back unprocessed, or refuses as throttled, ten
/// times at most.
async fn save_lines(client: &Client, table: &str, skus: &[&str]) -> Result<(), BoxError> {
    for chunk in skus.chunks(25) {
        let mut pending: Vec<WriteRequest> = chunk
            .iter()
            .map(|sku| {
                let put = PutRequest::builder()
                    .item("pk", AttributeValue::S("CART#1".into()))
                    .item("sku", AttributeValue::S((*sku).into()))
                    .build()?;
                Ok(WriteRequest::builder().put_request(put).build())
            })
            .collect::<Result<_, BoxError>>()?;
        for _attempt in 0..10 {
            let sent = client
                .batch_write_item()
                .request_items(table, pending.clone())
                .send()
                .await;
            match sent {
                Ok(out) => {
                    pending = out
                        .unprocessed_items()
                        .and_then(|u| u.get(table))
                        .cloned()
                        .unwrap_or_default();
                }
                // A batch of which nothing could be written is refused as
                // throttled (once the SDK's own retries are spent): again.
                Err(e)
                    if e.as_service_error()
                        .is_some_and(|e| e.is_provisioned_throughput_exceeded_exception()) => {}
                Err(e) => return Err(e.into()),
            }
            if pending.is_empty() {
                break;
            }
        }
        if !pending.is_empty() {
            return Err(format!("{} lines not saved", pending.len()).into());
        }
    }
    Ok(())
}

async fn cart_table(client: &Client) -> Result<String, BoxError> {
    let table = unique_table_name("cart");
    let attribute = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
    };
    let key = |name: &str, kind| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
    };
    client
        .create_table()
        .table_name(&table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute("pk")?)
        .attribute_definitions(attribute("sku")?)
        .key_schema(key("pk", KeyType::Hash)?)
        .key_schema(key("sku", KeyType::Range)?)
        .send()
        .await?;
    wait_for_table_active(client, &table).await?;
    Ok(table)
}

#[tokio::test]
async fn save_lines_survives_throttling_and_partial_batches() -> Result<(), BoxError> {
    let db = shared().await?;
    let plain = db.client(); // straight to the server: set-up and checks
    let table = cart_table(&plain).await?;

    // Half of each batch handed back unprocessed, a fifth of the batches
    // throttled (the SDK retries those by itself).
    let wire = Wire::new()
        .fault(Fault::unprocessed(0.5).table(&table))?
        .fault(Fault::throttle().on("BatchWriteItem").rate(0.2))?;
    let client = wire.client(&plain);

    let skus: Vec<String> = (0..60).map(|i| format!("SKU-{i:02}")).collect();
    let skus: Vec<&str> = skus.iter().map(String::as_str).collect();
    save_lines(&client, &table, &skus).await?;

    // The store holds every line, read past the wire.
    let stored = plain
        .query()
        .table_name(&table)
        .key_condition_expression("pk = :pk")
        .expression_attribute_values(":pk", AttributeValue::S("CART#1".into()))
        .consistent_read(true)
        .send()
        .await?;
    assert_eq!(stored.count(), 60);

    // The handler sent batch writes only, and met the faults.
    let sent = wire.exchanges();
    assert!(sent.iter().all(|e| e.operation() == "BatchWriteItem"));
    assert!(
        sent.iter()
            .any(|e| e.fault().is_some_and(|f| f.starts_with("unprocessed")))
    );
    for exchange in &sent {
        println!("{exchange}"); // shown when the test fails
    }
    Ok(())
}

/// The README shows this test: every line of its code block is here.
#[test]
fn the_readme_shows_this_test() {
    let readme = include_str!("../README.md");
    let this = include_str!("guide.rs");
    let section = readme
        .split("## Testing your code on DynamoDB's bad days")
        .nth(1)
        .expect("the guide's section");
    let block = section
        .split("```rust\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("its first code block");
    // Compared without whitespace: rustfmt may wrap a line the README keeps whole.
    let bare = |s: &str| s.split_whitespace().collect::<String>();
    let this = bare(this);
    for line in block.lines() {
        let line = line.split(" // your handler").next().unwrap_or(line);
        assert!(
            this.contains(&bare(line)),
            "the README's line {line:?} is not in tests/guide.rs"
        );
    }
}
