//! A table schema as infrastructure: the exported JSON documents, checked
//! field by field against the SDK's requests and sent as they are to the
//! testkit's server.
//!
//! Run against both backends:
//! `cargo test --test schema_infra` (embedded dynoxide) and
//! `DYNAMODB_MAPPER_BACKEND=dynamodb-local cargo test --test schema_infra`.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::operation::create_table::builders::CreateTableInputBuilder;
use aws_sdk_dynamodb::types::{
    BillingMode, KeyType, ProjectionType, ScalarAttributeType, StreamViewType, TableDescription,
    TimeToLiveStatus,
};
use dynamodb_mapper::{GlobalSecondaryIndex, KeyAttribute, ScalarType, TableSchema};
use dynamodb_mapper_support::local;
use dynamodb_mapper_support::requests::offline_client;
use dynamodb_mapper_testkit::unique_table_name;
use proptest::prelude::*;
use serde_json::{Value, json};

/// A single-table layout with every kind of key and a TTL attribute.
const APP: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[
        GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk"),
        GlobalSecondaryIndex::new("ByScore", "gsi2pk").keys(
            KeyAttribute::new("gsi2pk"),
            Some(KeyAttribute::typed("score", ScalarType::N)),
        ),
    ])
    .ttl("expiresAt")
    .version("version");

/// The same without a TTL attribute.
const NO_TTL: TableSchema = TableSchema::new("pk").sort_key("sk");

const VIEW_TYPES: [StreamViewType; 4] = [
    StreamViewType::KeysOnly,
    StreamViewType::NewImage,
    StreamViewType::OldImage,
    StreamViewType::NewAndOldImages,
];

// ---------------------------------------------------------------------------
// Changing what a client sends.

/// Replaces the body of the request it sees with a document, before the
/// request is signed: the server then receives that document as the
/// operation's input, exactly as an infrastructure tool would send it.
#[derive(Debug)]
struct Body(String);

impl Intercept for Body {
    fn name(&self) -> &'static str {
        "Body"
    }

    fn modify_before_signing(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let request = context.request_mut();
        request
            .headers_mut()
            .insert("content-length", self.0.len().to_string());
        *request.body_mut() = self.0.clone().into();
        Ok(())
    }
}

/// The testkit's client, sending `document` as the body of its next
/// request.
async fn client_sending(document: String) -> Client {
    let client = local::client().await;
    let config = client
        .config()
        .to_builder()
        .interceptor(Body(document))
        .build();
    Client::from_conf(config)
}

async fn backend() -> String {
    let server = dynamodb_mapper_testkit::shared().await.unwrap();
    server.backend().map_or_else(
        || format!("endpoint {}", server.endpoint()),
        |b| b.name().to_owned(),
    )
}

// ---------------------------------------------------------------------------
// What the server says about a table.

async fn describe(client: &Client, table: &str) -> TableDescription {
    client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .unwrap()
        .table
        .unwrap()
}

async fn ttl_of(client: &Client, table: &str) -> (TimeToLiveStatus, Option<String>) {
    let described = client
        .describe_time_to_live()
        .table_name(table)
        .send()
        .await
        .unwrap()
        .time_to_live_description
        .unwrap();
    (
        described.time_to_live_status.unwrap(),
        described.attribute_name,
    )
}

fn stream_of(description: &TableDescription) -> Option<StreamViewType> {
    description
        .stream_specification()
        .filter(|s| s.stream_enabled())
        .and_then(|s| s.stream_view_type().cloned())
}

/// The table's keys, attribute definitions and indexes, sorted, as
/// comparable text.
fn layout_of(description: &TableDescription) -> Vec<String> {
    let keys = |keys: &[aws_sdk_dynamodb::types::KeySchemaElement]| {
        keys.iter()
            .map(|k| format!("{}:{}", k.attribute_name(), k.key_type().as_str()))
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut out: Vec<String> = description
        .attribute_definitions()
        .iter()
        .map(|d| {
            format!(
                "attr {}:{}",
                d.attribute_name(),
                d.attribute_type().as_str()
            )
        })
        .collect();
    out.push(format!("table {}", keys(description.key_schema())));
    for index in description.global_secondary_indexes() {
        out.push(format!(
            "index {} {} {}",
            index.index_name().unwrap_or_default(),
            keys(index.key_schema()),
            index
                .projection()
                .and_then(|p| p.projection_type())
                .map_or("", |p| p.as_str())
        ));
    }
    out.sort();
    out
}

fn expected_layout() -> Vec<String> {
    let mut out: Vec<String> = [
        "attr pk:S",
        "attr sk:S",
        "attr gsi1pk:S",
        "attr gsi1sk:S",
        "attr gsi2pk:S",
        "attr score:N",
        "table pk:HASH,sk:RANGE",
        "index GSI1 gsi1pk:HASH,gsi1sk:RANGE ALL",
        "index ByScore gsi2pk:HASH,score:RANGE ALL",
    ]
    .map(str::to_owned)
    .into();
    out.sort();
    out
}

// ---------------------------------------------------------------------------
// Sent to the testkit's server (both backends).

#[tokio::test]
async fn the_exported_documents_are_accepted_as_they_are() {
    let name = unique_table_name("infra-json");
    let definition = APP.definition(&name).stream(StreamViewType::NewImage);
    let backend = backend().await;

    // CreateTable with the exported document as its whole input: the
    // request built here only carries it (its own fields are replaced).
    let client = client_sending(definition.create_table_json()).await;
    let answer = client
        .create_table()
        .table_name("placeholder")
        .send()
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{backend}: {}",
                aws_sdk_dynamodb::error::DisplayErrorContext(&e)
            )
        });
    let answered = answer.table_description.unwrap();
    assert_eq!(answered.table_name(), Some(name.as_str()), "{backend}");

    let plain = local::client().await;
    dynamodb_mapper_testkit::wait_for_table_active(&plain, &name)
        .await
        .unwrap();
    let description = describe(&plain, &name).await;
    assert_eq!(layout_of(&description), expected_layout(), "{backend}");
    assert_eq!(
        stream_of(&description),
        Some(StreamViewType::NewImage),
        "{backend}"
    );
    assert_eq!(
        description
            .billing_mode_summary()
            .and_then(|b| b.billing_mode()),
        Some(&BillingMode::PayPerRequest),
        "{backend}"
    );

    // Then UpdateTimeToLive with the second document.
    let client = client_sending(definition.update_time_to_live_json().unwrap()).await;
    client
        .update_time_to_live()
        .table_name("placeholder")
        .send()
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{backend}: {}",
                aws_sdk_dynamodb::error::DisplayErrorContext(&e)
            )
        });
    assert_eq!(
        ttl_of(&plain, &name).await,
        (TimeToLiveStatus::Enabled, Some("expiresAt".to_owned())),
        "{backend}"
    );
}

// ---------------------------------------------------------------------------
// The JSON documents against the SDK's requests, field by field.

/// The `CreateTable` document DynamoDB's API takes for `input`, written
/// with `serde_json` from the SDK's own values.
fn expected_create_table(input: &CreateTableInputBuilder) -> Value {
    let keys = |keys: &[aws_sdk_dynamodb::types::KeySchemaElement]| -> Value {
        keys.iter()
            .map(|k| json!({"AttributeName": k.attribute_name(), "KeyType": k.key_type().as_str()}))
            .collect()
    };
    let mut doc = serde_json::Map::new();
    doc.insert(
        "TableName".into(),
        json!(input.get_table_name().as_ref().unwrap()),
    );
    doc.insert(
        "AttributeDefinitions".into(),
        input
            .get_attribute_definitions()
            .iter()
            .flatten()
            .map(|d| {
                json!({
                    "AttributeName": d.attribute_name(),
                    "AttributeType": d.attribute_type().as_str(),
                })
            })
            .collect(),
    );
    doc.insert(
        "KeySchema".into(),
        keys(input.get_key_schema().as_deref().unwrap()),
    );
    doc.insert(
        "BillingMode".into(),
        json!(input.get_billing_mode().as_ref().unwrap().as_str()),
    );
    if let Some(indexes) = input.get_global_secondary_indexes() {
        let indexes: Value = indexes
            .iter()
            .map(|i| {
                let projection = i.projection().unwrap().projection_type().unwrap();
                json!({
                    "IndexName": i.index_name(),
                    "KeySchema": keys(i.key_schema()),
                    "Projection": {"ProjectionType": projection.as_str()},
                })
            })
            .collect();
        doc.insert("GlobalSecondaryIndexes".into(), indexes);
    }
    if let Some(stream) = input.get_stream_specification() {
        doc.insert(
            "StreamSpecification".into(),
            json!({
                "StreamEnabled": stream.stream_enabled(),
                "StreamViewType": stream.stream_view_type().unwrap().as_str(),
            }),
        );
    }
    Value::Object(doc)
}

fn check_documents(schema: TableSchema, name: &str, stream: Option<StreamViewType>) {
    let mut definition = schema.definition(name);
    if let Some(view_type) = stream {
        definition = definition.stream(view_type);
    }
    let client = offline_client();
    let request = definition.create_table_request(&client);
    let json = definition.create_table_json();
    assert!(json.ends_with("}\n"), "{json}");
    let parsed: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(parsed, expected_create_table(request.as_input()), "{json}");

    let ttl = definition.update_time_to_live_json();
    match definition.update_time_to_live_request(&client) {
        None => assert_eq!(ttl, None),
        Some(request) => {
            let ttl = ttl.unwrap();
            let parsed: Value = serde_json::from_str(&ttl).unwrap_or_else(|e| panic!("{e}: {ttl}"));
            let spec = request.get_time_to_live_specification().as_ref().unwrap();
            assert_eq!(
                parsed,
                json!({
                    "TableName": request.get_table_name().as_ref().unwrap(),
                    "TimeToLiveSpecification": {
                        "Enabled": spec.enabled(),
                        "AttributeName": spec.attribute_name(),
                    },
                })
            );
        }
    }
}

#[test]
fn the_documents_match_the_requests_field_by_field() {
    check_documents(APP, "AppTable", None);
    for view_type in VIEW_TYPES {
        check_documents(APP, "AppTable", Some(view_type));
    }
    check_documents(NO_TTL, "plain", None);
    const TYPED: TableSchema = TableSchema::new("id")
        .partition_key_type(ScalarType::B)
        .typed_sort_key("at", ScalarType::N)
        .indexes(&[GlobalSecondaryIndex::new("ById", "id")]);
    check_documents(TYPED, "typed", None);
    // Names a CLI user could not type without escaping.
    const ODD: TableSchema = TableSchema::new("p\"k\\1")
        .sort_key("s\nk\t\u{1}")
        .indexes(&[GlobalSecondaryIndex::new("índex ✓", "\u{7f}\u{2028}")])
        .ttl("ttl \"quoted\"");
    check_documents(ODD, "t\"a\\b\u{0}le", Some(StreamViewType::KeysOnly));
}

#[test]
fn the_create_table_document_has_the_api_field_names() {
    let json = APP.definition("AppTable").create_table_json();
    let parsed: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(parsed["TableName"], "AppTable");
    assert_eq!(parsed["BillingMode"], "PAY_PER_REQUEST");
    assert_eq!(
        parsed["KeySchema"][1],
        json!({"AttributeName": "sk", "KeyType": "RANGE"})
    );
    assert_eq!(
        parsed["AttributeDefinitions"][5],
        json!({"AttributeName": "score", "AttributeType": "N"})
    );
    let index = &parsed["GlobalSecondaryIndexes"][1];
    assert_eq!(index["IndexName"], "ByScore");
    assert_eq!(index["Projection"], json!({"ProjectionType": "ALL"}));
    assert!(parsed.get("StreamSpecification").is_none());
    assert!(parsed.get("TimeToLiveSpecification").is_none());
    // Exactly what the SDK names these values.
    assert_eq!(KeyType::Hash.as_str(), "HASH");
    assert_eq!(ScalarAttributeType::N.as_str(), "N");
    assert_eq!(ProjectionType::All.as_str(), "ALL");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_names_make_documents_that_parse_to_the_request(
        pk in "\\PC{1,12}|[\\x00-\\x1f\"\\\\]{1,6}",
        sk in "\\PC{1,12}",
        index in "[A-Za-z0-9_.-]{3,12}",
        ttl in "\\PC{1,12}",
        table in "\\PC{1,20}",
    ) {
        // `TableSchema` holds `&'static str`: leak the few bytes of a case.
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let indexes: &'static [GlobalSecondaryIndex] =
            Box::leak(Box::new([GlobalSecondaryIndex::new(leak(index), leak(sk.clone()))]));
        let schema = TableSchema::new(leak(pk))
            .sort_key(leak(sk))
            .indexes(indexes)
            .ttl(leak(ttl));
        check_documents(schema, &table, Some(StreamViewType::NewAndOldImages));
    }
}
