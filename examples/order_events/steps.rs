//! What the example does, step by step: create the table with its
//! multi-attribute index and a stream, write orders, query a region over a
//! time range, change and cancel orders, then read the stream back and
//! handle it; last, the same handler on a Lambda event with a TTL expiry and
//! a record it cannot handle.

use aws_lambda_events::event::dynamodb::Event;
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::types::StreamViewType;
use dynamodb_mapper::Registry;
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::prelude::*;
use dynamodb_mapper::stream::{ChangeRecord, process_records};

use crate::handler::{describe, function_handler};
use crate::model::{Order, OrderMapper, TABLE, order};

const T0: u64 = 1_764_064_800; // 2025-11-25T10:00:00Z

pub async fn run(log: &mut Vec<String>) -> Result<(), BoxError> {
    let server = dynamodb_mapper_testkit::shared().await?;
    let client = server.client();
    let name = dynamodb_mapper_testkit::unique_table_name("order_events");
    log.push(format!("1. Create {name}: index ByRegion on tenant + region, placedAt + orderId; a stream of new and old images"));
    TABLE
        .definition(&name)
        .stream(StreamViewType::NewAndOldImages)
        .create_table_request(&client)
        .send()
        .await?;
    dynamodb_mapper_testkit::wait_for_table_active(&client, &name).await?;
    let table = Table::new(&client, &name, TABLE);

    let orders = [
        order("O1", "eu-west", T0, 1200),
        order("O2", "eu-west", T0 + 1800, 4500),
        order("O3", "eu-west", T0 + 1800, 900),
        order("O4", "us-east", T0 + 2400, 3000),
        order("O5", "eu-west", T0 + 7200, 700),
    ];
    let items = orders
        .iter()
        .map(OrderMapper::to_item)
        .collect::<Result<Vec<_>, _>>()?;
    for item in items {
        client
            .put_item()
            .table_name(&name)
            .set_item(Some(item))
            .send()
            .await?;
    }
    log.push(format!("2. Wrote {} orders, one put each", orders.len()));

    // The key condition comes from the fields: no key strings to build.
    let lookup = OrderMapper::lookup()
        .on_index("ByRegion")
        .with("tenant", "acme")
        .with("region", "eu-west")
        .sort_range("placed_at", T0..=T0 + 3600);
    let key = lookup.key_condition()?.build()?;
    log.push(format!("3. Query ByRegion: {}", key.expression()));
    let page = lookup.query(&table)?.send().await?;
    let found = page
        .items
        .unwrap_or_default()
        .into_iter()
        .map(|item| OrderMapper::from_item(item).map(|o| o.order_id))
        .collect::<Result<Vec<_>, _>>()?;
    log.push(format!(
        "   acme in eu-west, placed 10:00 to 11:00: {}",
        found.join(", ")
    ));

    let shipped = Order {
        status: "shipped".into(),
        ..orders[1].clone()
    };
    table
        .update_entity::<OrderMapper>(&orders[1], &shipped)
        .await?;
    let cancelled = table.schema().key_of(&OrderMapper::to_item(&orders[2])?)?;
    client
        .delete_item()
        .table_name(&name)
        .set_key(Some(cancelled))
        .send()
        .await?;
    log.push("4. Shipped O2 (a partial update), cancelled O3 (a delete)".to_owned());

    let registry = Registry::builder().register::<OrderMapper>(|o| o).build()?;
    let records =
        dynamodb_mapper_testkit::stream_records(&client, &server.streams_client(), &name).await?;
    log.push(format!("5. The stream holds {} records:", records.len()));
    let records = records.into_iter().map(ChangeRecord::try_from);
    let mut lines = Vec::new();
    let outcome = process_records(&registry, records, |change| {
        lines.push(format!("   {}", describe(&change)));
        async { Ok::<(), std::convert::Infallible>(()) }
    })
    .await;
    log.extend(lines);
    log.push(format!(
        "   handled {}, failed {}",
        outcome.handled,
        outcome.batch_item_failures.len()
    ));

    log.push("6. A Lambda event: a TTL expiry, then a record of a type no mapper reads".to_owned());
    let event: Event = serde_json::from_str(LAMBDA_EVENT)?;
    let response = function_handler(&registry, event, log).await;
    log.push(format!(
        "   response: {}",
        serde_json::to_string(&response)?
    ));
    client.delete_table().table_name(&name).send().await?;
    Ok(())
}

/// A Lambda event as the service delivers it: an order removed by TTL
/// (`userIdentity` is DynamoDB's service principal), then an item of a type
/// the registry does not know, which stops the batch.
const LAMBDA_EVENT: &str = r#"{"Records": [
  {"eventID": "1", "eventName": "REMOVE", "awsRegion": "eu-west-1",
   "userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"},
   "dynamodb": {"SequenceNumber": "100", "SizeBytes": 120, "StreamViewType": "NEW_AND_OLD_IMAGES",
     "Keys": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "ORDER#O9"}},
     "OldImage": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "ORDER#O9"}, "entityType": {"S": "Order"},
       "tenant": {"S": "acme"}, "region": {"S": "eu-west"}, "orderId": {"S": "O9"},
       "placedAt": {"N": "1764000000"}, "status": {"S": "pending"}, "totalCents": {"N": "100"}}}},
  {"eventID": "2", "eventName": "INSERT", "awsRegion": "eu-west-1",
   "dynamodb": {"SequenceNumber": "101", "SizeBytes": 80, "StreamViewType": "NEW_AND_OLD_IMAGES",
     "Keys": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "INVOICE#I1"}},
     "NewImage": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "INVOICE#I1"}, "entityType": {"S": "Invoice"}}}},
  {"eventID": "3", "eventName": "INSERT", "awsRegion": "eu-west-1",
   "dynamodb": {"SequenceNumber": "102", "SizeBytes": 80, "StreamViewType": "NEW_AND_OLD_IMAGES",
     "Keys": {"pk": {"S": "TENANT#acme"}, "sk": {"S": "ORDER#O10"}}}}
]}"#;
