//! A table schema as infrastructure: `Table::create_table` (CreateTable,
//! wait until ACTIVE, UpdateTimeToLive) against the testkit's server, the
//! paths no emulator produces (a table stuck CREATING, lost answers,
//! contradicting answers) against `aws-smithy-mocks`, and the exported
//! JSON documents, checked field by field against the SDK's requests and
//! sent as they are to the server.
//!
//! Run against both backends:
//! `cargo test --test schema_infra` (embedded dynoxide) and
//! `DYNAMODB_MAPPER_BACKEND=dynamodb-local cargo test --test schema_infra`.

use std::error::Error as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::interceptors::{
    BeforeTransmitInterceptorContextMut, BeforeTransmitInterceptorContextRef,
};
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::operation::create_table::builders::CreateTableInputBuilder;
use aws_sdk_dynamodb::operation::create_table::{CreateTableError, CreateTableOutput};
use aws_sdk_dynamodb::operation::describe_table::{DescribeTableError, DescribeTableOutput};
use aws_sdk_dynamodb::operation::update_time_to_live::{
    UpdateTimeToLiveError, UpdateTimeToLiveOutput,
};
use aws_sdk_dynamodb::types::error::{
    LimitExceededException, ResourceInUseException, ResourceNotFoundException,
};
use aws_sdk_dynamodb::types::{
    BillingMode, GlobalSecondaryIndexDescription, IndexStatus, KeyType, ProjectionType,
    ScalarAttributeType, StreamSpecification, StreamViewType, TableDescription, TableStatus,
    TimeToLiveSpecification, TimeToLiveStatus,
};
use aws_smithy_mocks::{Rule, RuleMode, mock};
use dynamodb_mapper::ops::{CreatedTable, Table};
use dynamodb_mapper::{
    ErrorDetails, ErrorKind, GlobalSecondaryIndex, KeyAttribute, ScalarType, TableSchema,
};
use dynamodb_mapper_support::local;
use dynamodb_mapper_support::requests::{fast_retry, mock_client, offline_client};
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
// Seeing what a client sends.

/// Records the operation of every attempt a client sends (`CreateTable`,
/// `DescribeTable`, ...), retries included.
#[derive(Debug, Clone, Default)]
struct Sent(Arc<Mutex<Vec<String>>>);

impl Sent {
    fn operations(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

impl Intercept for Sent {
    fn name(&self) -> &'static str {
        "Sent"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let target = context
            .request()
            .headers()
            .get("x-amz-target")
            .unwrap_or_default();
        let operation = target.rsplit('.').next().unwrap_or_default();
        self.0.lock().unwrap().push(operation.to_owned());
        Ok(())
    }
}

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

/// The testkit's client, recording what it sends.
async fn recording_client() -> (Client, Sent) {
    let client = local::client().await;
    let sent = Sent::default();
    let config = client
        .config()
        .to_builder()
        .interceptor(sent.clone())
        .build();
    (Client::from_conf(config), sent)
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
// Against the testkit's server (both backends).

#[tokio::test]
async fn a_table_is_created_active_with_its_stream_and_ttl() {
    let (client, sent) = recording_client().await;
    let name = unique_table_name("infra-ready");
    let created = Table::new(&client, &name, APP)
        .create_table()
        .stream(StreamViewType::NewAndOldImages)
        .send()
        .await
        .unwrap();
    let backend = backend().await;

    assert_eq!(
        sent.operations(),
        ["CreateTable", "DescribeTable", "UpdateTimeToLive"],
        "{backend}: both emulators show the table ACTIVE on the first look"
    );
    let ttl = created.time_to_live.clone().unwrap();
    assert_eq!((ttl.attribute_name(), ttl.enabled()), ("expiresAt", true));
    assert_eq!(
        ttl_of(&client, &name).await,
        (TimeToLiveStatus::Enabled, Some("expiresAt".to_owned())),
        "{backend}"
    );

    let description = describe(&client, &name).await;
    assert_eq!(description.table_status(), Some(&TableStatus::Active));
    assert_eq!(layout_of(&description), expected_layout(), "{backend}");
    assert_eq!(
        stream_of(&description),
        Some(StreamViewType::NewAndOldImages),
        "{backend}"
    );
    let arn = created
        .description
        .latest_stream_arn()
        .expect("a stream ARN");
    assert_eq!(description.latest_stream_arn(), Some(arn), "{backend}");
    assert_eq!(created.description.table_name(), Some(name.as_str()));
    assert_eq!(
        created
            .description
            .billing_mode_summary()
            .and_then(|b| b.billing_mode()),
        Some(&BillingMode::PayPerRequest),
        "{backend}"
    );
}

#[tokio::test]
async fn every_stream_view_type_is_created_as_asked() {
    let client = local::client().await;
    let backend = backend().await;
    for view_type in VIEW_TYPES {
        let name = unique_table_name("infra-stream");
        let created = Table::new(&client, &name, NO_TTL)
            .create_table()
            .stream(view_type.clone())
            .send()
            .await
            .unwrap();
        let description = describe(&client, &name).await;
        assert_eq!(
            stream_of(&description),
            Some(view_type.clone()),
            "{backend}"
        );
        assert_eq!(
            stream_of(&created.description),
            Some(view_type),
            "{backend}"
        );
        assert!(
            created.description.latest_stream_arn().is_some(),
            "{backend}"
        );
    }
}

#[tokio::test]
async fn without_a_ttl_attribute_no_ttl_call_is_made() {
    let (client, sent) = recording_client().await;
    let name = unique_table_name("infra-nottl");
    let created = Table::new(&client, &name, NO_TTL)
        .create_table()
        .send()
        .await
        .unwrap();
    assert_eq!(sent.operations(), ["CreateTable", "DescribeTable"]);
    assert!(created.time_to_live.is_none());
    assert!(created.description.latest_stream_arn().is_none());
    assert_eq!(stream_of(&describe(&client, &name).await), None);
    assert_eq!(
        ttl_of(&client, &name).await,
        (TimeToLiveStatus::Disabled, None)
    );
}

#[tokio::test]
async fn an_existing_table_is_a_table_exists_error_and_is_left_alone() {
    let (client, sent) = recording_client().await;
    let name = unique_table_name("infra-exists");
    // Created by someone else, with the plain request: no TTL.
    APP.definition(&name)
        .create_table_request(&client)
        .send()
        .await
        .unwrap();
    let before = sent.operations().len();

    let err = Table::new(&client, &name, APP)
        .create_table()
        .stream(StreamViewType::KeysOnly)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TableExists, "{err:?}");
    assert!(matches!(err.details(), ErrorDetails::TableExists { table, .. } if *table == name));
    assert_eq!(err.to_string(), format!("table {name} already exists"));
    let source = err.source().unwrap();
    assert!(
        matches!(
            source.downcast_ref::<aws_sdk_dynamodb::Error>(),
            Some(aws_sdk_dynamodb::Error::ResourceInUseException(_))
        ),
        "{source:?}"
    );
    assert_eq!(sent.operations()[before..], ["CreateTable"], "sent once");

    // Nothing of the table changed: no stream, no TTL.
    let backend = backend().await;
    assert_eq!(
        stream_of(&describe(&client, &name).await),
        None,
        "{backend}"
    );
    assert_eq!(
        ttl_of(&client, &name).await,
        (TimeToLiveStatus::Disabled, None),
        "{backend}"
    );

    // A table the helper made is just as much there.
    let again = Table::new(&client, &name, APP).create_table().send().await;
    assert_eq!(again.unwrap_err().kind(), ErrorKind::TableExists);
}

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
// Paths no emulator produces, against a scripted service.

const TABLE: &str = "AppTable";

fn created_output() -> CreateTableOutput {
    CreateTableOutput::builder().build()
}

fn table_in(status: TableStatus) -> DescribeTableOutput {
    DescribeTableOutput::builder()
        .table(
            TableDescription::builder()
                .table_name(TABLE)
                .table_status(status)
                .build(),
        )
        .build()
}

fn active_with_index(index: IndexStatus) -> DescribeTableOutput {
    DescribeTableOutput::builder()
        .table(
            TableDescription::builder()
                .table_name(TABLE)
                .table_status(TableStatus::Active)
                .global_secondary_indexes(
                    GlobalSecondaryIndexDescription::builder()
                        .index_name("GSI1")
                        .index_status(index)
                        .build(),
                )
                .build(),
        )
        .build()
}

fn echo_ttl() -> Rule {
    mock!(Client::update_time_to_live).then_compute_output(|req| {
        UpdateTimeToLiveOutput::builder()
            .set_time_to_live_specification(req.time_to_live_specification().cloned())
            .build()
    })
}

fn create_ok() -> Rule {
    mock!(Client::create_table).then_output(created_output)
}

/// Creates `AppTable` on a mock: a retry policy without real delays, and a
/// wait of 300 ms.
async fn create_on(client: &Client, schema: TableSchema) -> dynamodb_mapper::Result<CreatedTable> {
    let sent = Table::new(client, TABLE, schema)
        .retry_policy(fast_retry(3))
        .create_table()
        .max_wait(Duration::from_millis(300))
        .send();
    // The helper can run on any task of a multi-threaded runtime.
    fn is_send<T: Send>(future: T) -> T {
        future
    }
    is_send(sent).await
}

#[tokio::test]
async fn a_table_stuck_creating_ends_in_a_timeout_at_the_bound() {
    let create = create_ok();
    let describe = mock!(Client::describe_table).then_output(|| table_in(TableStatus::Creating));
    let ttl = echo_ttl();
    let client = mock_client(&[&create, &describe, &ttl]);
    let started = Instant::now();
    let err = create_on(&client, APP).await.unwrap_err();
    let took = started.elapsed();

    assert_eq!(err.kind(), ErrorKind::TableNotActive, "{err:?}");
    let ErrorDetails::TableNotActive { table, after, .. } = err.details() else {
        panic!("{err:?}")
    };
    assert_eq!(
        (table.as_str(), *after),
        (TABLE, Duration::from_millis(300))
    );
    assert_eq!(
        err.to_string(),
        "table AppTable is not active after 300ms: it is CREATING"
    );
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    // At 0, 50, 150 and 300 ms: pauses double from 50 ms, the last one cut
    // to the bound.
    assert!(
        (3..=6).contains(&describe.num_calls()),
        "{}",
        describe.num_calls()
    );
    assert_eq!(ttl.num_calls(), 0, "no TTL on a table not active");
}

#[tokio::test]
async fn indexes_still_creating_are_waited_for() {
    let create = create_ok();
    let describe = mock!(Client::describe_table)
        .sequence()
        .output(|| table_in(TableStatus::Creating))
        .output(|| active_with_index(IndexStatus::Creating))
        .output(|| active_with_index(IndexStatus::Active))
        .build();
    let ttl = echo_ttl();
    let client = mock_client(&[&create, &describe, &ttl]);
    let created = create_on(&client, APP).await.unwrap();
    assert_eq!(describe.num_calls(), 3);
    assert_eq!(ttl.num_calls(), 1);
    assert_eq!(
        created.description.global_secondary_indexes()[0].index_status(),
        Some(&IndexStatus::Active)
    );

    // An index that stays CREATING is named when the wait runs out.
    let describe =
        mock!(Client::describe_table).then_output(|| active_with_index(IndexStatus::Creating));
    let client = mock_client(&[&create, &describe, &ttl]);
    let err = create_on(&client, APP).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "table AppTable is not active after 300ms: it is ACTIVE, index GSI1 is CREATING"
    );
}

#[tokio::test]
async fn a_table_not_found_right_after_creation_is_waited_for() {
    let create = create_ok();
    let describe = mock!(Client::describe_table)
        .sequence()
        .error(|| {
            DescribeTableError::ResourceNotFoundException(
                ResourceNotFoundException::builder().build(),
            )
        })
        .output(|| table_in(TableStatus::Active))
        .build();
    let client = mock_client(&[&create, &describe]);
    create_on(&client, NO_TTL).await.unwrap();
    assert_eq!(describe.num_calls(), 2);
}

#[tokio::test]
async fn a_table_that_cannot_become_active_is_an_unexpected_response() {
    let create = create_ok();
    let describe = mock!(Client::describe_table).then_output(|| table_in(TableStatus::Deleting));
    let ttl = echo_ttl();
    let client = mock_client(&[&create, &describe, &ttl]);
    let err = create_on(&client, APP).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnexpectedResponse, "{err:?}");
    assert_eq!(
        err.to_string(),
        "dynamodb DescribeTable returned an unexpected response: table AppTable is DELETING \
         while waiting for it to become ACTIVE"
    );
    assert_eq!((describe.num_calls(), ttl.num_calls()), (1, 0));
}

#[tokio::test]
async fn create_table_is_sent_once_even_when_its_answer_is_lost() {
    // A 500 after the table may have been created: an SDK retry would find
    // the table and report it as already there.
    let create = mock!(Client::create_table)
        .sequence()
        .http_status(500, None)
        .error(|| {
            CreateTableError::ResourceInUseException(ResourceInUseException::builder().build())
        })
        .build();
    let describe = mock!(Client::describe_table).then_output(|| table_in(TableStatus::Active));
    let client = aws_smithy_mocks::mock_client!(
        aws_sdk_dynamodb,
        RuleMode::MatchAny,
        [&create, &describe],
        |c| c.retry_config(
            RetryConfig::standard()
                .with_max_attempts(3)
                .with_initial_backoff(Duration::from_millis(1))
        )
    );
    let err = create_on(&client, APP).await.unwrap_err();
    assert_eq!(create.num_calls(), 1, "sent once");
    assert_eq!(describe.num_calls(), 0);
    assert!(
        matches!(
            err.details(),
            ErrorDetails::Sdk {
                operation: "CreateTable",
                ..
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn create_table_refused_for_now_is_retried() {
    let create = mock!(Client::create_table)
        .sequence()
        .error(|| {
            CreateTableError::LimitExceededException(LimitExceededException::builder().build())
        })
        .output(created_output)
        .build();
    let describe = mock!(Client::describe_table).then_output(|| table_in(TableStatus::Active));
    let client = mock_client(&[&create, &describe]);
    create_on(&client, NO_TTL).await.unwrap();
    assert_eq!(create.num_calls(), 2);

    // Up to the retry policy.
    let create = mock!(Client::create_table).then_error(|| {
        CreateTableError::LimitExceededException(LimitExceededException::builder().build())
    });
    let client = mock_client(&[&create, &describe]);
    let err = create_on(&client, NO_TTL).await.unwrap_err();
    assert_eq!((create.num_calls(), err.kind()), (3, ErrorKind::Sdk));
}

#[tokio::test]
async fn a_missing_stream_is_an_unexpected_response() {
    let create = create_ok();
    let describe = mock!(Client::describe_table).then_output(|| table_in(TableStatus::Active));
    let client = mock_client(&[&create, &describe]);
    let err = Table::new(&client, TABLE, NO_TTL)
        .create_table()
        .stream(StreamViewType::NewImage)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnexpectedResponse, "{err:?}");
    assert_eq!(
        err.to_string(),
        "dynamodb DescribeTable returned an unexpected response: table AppTable was created \
         with a stream (NEW_IMAGE), but it shows no stream"
    );

    // Another view type than asked.
    let describe = mock!(Client::describe_table).then_output(|| {
        let stream = StreamSpecification::builder()
            .stream_enabled(true)
            .stream_view_type(StreamViewType::KeysOnly)
            .build()
            .unwrap();
        DescribeTableOutput::builder()
            .table(
                TableDescription::builder()
                    .table_status(TableStatus::Active)
                    .stream_specification(stream)
                    .build(),
            )
            .build()
    });
    let client = mock_client(&[&create, &describe]);
    let err = Table::new(&client, TABLE, NO_TTL)
        .create_table()
        .stream(StreamViewType::NewImage)
        .send()
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .ends_with("but it shows a stream of KEYS_ONLY"),
        "{err}"
    );
}

#[tokio::test]
async fn a_ttl_answer_that_contradicts_the_request_is_an_unexpected_response() {
    let create = create_ok();
    let describe = mock!(Client::describe_table).then_output(|| table_in(TableStatus::Active));
    let other = mock!(Client::update_time_to_live).then_output(|| {
        UpdateTimeToLiveOutput::builder()
            .time_to_live_specification(
                TimeToLiveSpecification::builder()
                    .attribute_name("ttl")
                    .enabled(true)
                    .build()
                    .unwrap(),
            )
            .build()
    });
    let client = mock_client(&[&create, &describe, &other]);
    let err = create_on(&client, APP).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnexpectedResponse, "{err:?}");
    assert_eq!(
        err.to_string(),
        "dynamodb UpdateTimeToLive returned an unexpected response: asked to enable TTL on \
         `expiresAt` of table AppTable, answered enabled=true on `ttl`"
    );

    let empty = mock!(Client::update_time_to_live)
        .then_output(|| UpdateTimeToLiveOutput::builder().build());
    let client = mock_client(&[&create, &describe, &empty]);
    let err = create_on(&client, APP).await.unwrap_err();
    assert!(
        err.to_string()
            .ends_with("answered without a specification"),
        "{err}"
    );
}

#[tokio::test]
async fn a_failed_ttl_call_says_which_call_failed() {
    let create = create_ok();
    let describe = mock!(Client::describe_table).then_output(|| table_in(TableStatus::Active));
    let refused = mock!(Client::update_time_to_live).then_error(|| {
        UpdateTimeToLiveError::ResourceInUseException(ResourceInUseException::builder().build())
    });
    let client = mock_client(&[&create, &describe, &refused]);
    let err = create_on(&client, APP).await.unwrap_err();
    assert!(
        matches!(
            err.details(),
            ErrorDetails::Sdk {
                operation: "UpdateTimeToLive",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(refused.num_calls(), 1);
}

#[tokio::test]
async fn map_request_changes_are_sent_but_the_name_stays_the_tables() {
    let seen: Arc<Mutex<Vec<(String, bool, bool)>>> = Arc::default();
    let record = seen.clone();
    let create = mock!(Client::create_table).then_compute_output(move |req| {
        record.lock().unwrap().push((
            req.table_name().unwrap_or_default().to_owned(),
            req.deletion_protection_enabled() == Some(true),
            req.stream_specification().is_some(),
        ));
        created_output()
    });
    let describe = mock!(Client::describe_table).then_output(|| table_in(TableStatus::Active));
    let client = mock_client(&[&create, &describe]);
    Table::new(&client, TABLE, NO_TTL)
        .create_table()
        .map_request(|r| r.deletion_protection_enabled(true))
        .map_request(|r| r.table_name("Elsewhere"))
        .send()
        .await
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), [(TABLE.to_owned(), true, false)]);
}

#[tokio::test]
async fn no_ttl_attribute_no_ttl_call_on_the_mock_either() {
    let create = create_ok();
    let describe = mock!(Client::describe_table).then_output(|| table_in(TableStatus::Active));
    let ttl = echo_ttl();
    let client = mock_client(&[&create, &describe, &ttl]);
    let created = create_on(&client, NO_TTL).await.unwrap();
    assert_eq!(ttl.num_calls(), 0);
    assert!(created.time_to_live.is_none());
    let created = create_on(&client, APP).await.unwrap();
    assert_eq!(ttl.num_calls(), 1);
    assert!(created.time_to_live.is_some());
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
