//! DynamoDB Streams and Lambda events through the registry (#19 part 2):
//! recorded Lambda event fixtures (insert, modify, remove, TTL removal, an
//! unknown type, a malformed image), hostile records (too deep, unknown
//! event names), the partial-batch response, and a live stream on the
//! emulator read back with the Streams API and decoded.

use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use aws_sdk_dynamodb::types::{AttributeValue, StreamViewType};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::stream::{
    ChangeKind, ChangeRecord, ViewType, lambda_records, process_records,
};
use dynamodb_mapper::{
    Decoded, ErrorKind, IndexKeys, KeyPattern, Mapper, MapperExt, NamingConvention, Registry,
    TableSchema, UnknownPolicy,
};
use dynamodb_mapper_support::local;
use serde::{Deserialize, Serialize};

const T: TableSchema = TableSchema::new("pk").sort_key("sk").ttl("expiresAt");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Session {
    user_id: String,
    session_id: String,
    device: String,
    scopes: Vec<String>,
    expires_at: u64,
}

struct SessionMapper;
impl Mapper for SessionMapper {
    type Entity = Session;
    const ENTITY_TYPE: &'static str = "Session";
    const SCHEMA: TableSchema = T;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("USER#{user_id}"))
            .sort(KeyPattern::sort("SESSION#{session_id}"))];
}

fn registry(policy: UnknownPolicy) -> Registry<Session> {
    Registry::builder()
        .register::<SessionMapper>(|s| s)
        .on_unknown(policy)
        .build()
        .unwrap()
}

fn fixture(name: &str) -> Event {
    let path = format!(
        "{}/tests/fixtures/streams/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn one_record(name: &str) -> ChangeRecord {
    let mut records: Vec<_> = lambda_records(fixture(name)).collect();
    assert_eq!(records.len(), 1);
    records.remove(0).unwrap()
}

fn session(user: &str, id: &str, device: &str, scopes: &[&str], expires_at: u64) -> Session {
    Session {
        user_id: user.into(),
        session_id: id.into(),
        device: device.into(),
        scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
        expires_at,
    }
}

fn entity(decoded: Option<Decoded<Session>>) -> Option<Session> {
    decoded.and_then(Decoded::into_entity)
}

#[test]
fn an_insert_carries_the_new_item() {
    let record = one_record("insert");
    assert_eq!(record.view_type, Some(ViewType::NewAndOldImages));
    assert_eq!(
        record.sequence_number.as_deref(),
        Some("111100000000000000001")
    );
    assert!(record.created_at.is_some());
    let change = registry(UnknownPolicy::Error)
        .decode_change(record)
        .unwrap();
    assert_eq!(change.kind, ChangeKind::Insert);
    assert_eq!(change.keys["pk"], AttributeValue::S("USER#u1".into()));
    assert!(change.old.is_none());
    assert_eq!(
        entity(change.new),
        Some(session(
            "u1",
            "s1",
            "phone",
            &["read", "write"],
            1_732_533_600
        ))
    );
    assert!(!change.removed_by_ttl);
}

#[test]
fn a_modify_carries_both_images() {
    let change = registry(UnknownPolicy::Error)
        .decode_change(one_record("modify"))
        .unwrap();
    assert_eq!(change.kind, ChangeKind::Modify);
    assert_eq!(
        entity(change.old),
        Some(session(
            "u1",
            "s1",
            "phone",
            &["read", "write"],
            1_732_533_600
        ))
    );
    assert_eq!(
        entity(change.new),
        Some(session("u1", "s1", "laptop", &["read"], 1_732_537_200))
    );
}

#[test]
fn a_delete_and_a_ttl_expiry_are_told_apart() {
    let registry = registry(UnknownPolicy::Error);
    let deleted = registry.decode_change(one_record("remove")).unwrap();
    assert_eq!(deleted.kind, ChangeKind::Remove);
    assert!(!deleted.removed_by_ttl);
    assert!(deleted.new.is_none());
    assert_eq!(entity(deleted.old).unwrap().device, "laptop");

    let expired = registry.decode_change(one_record("ttl_remove")).unwrap();
    assert_eq!(expired.kind, ChangeKind::Remove);
    assert!(expired.removed_by_ttl);
    assert_eq!(entity(expired.old).unwrap().session_id, "s2");
}

#[test]
fn an_unknown_type_follows_the_registry_policy() {
    let err = registry(UnknownPolicy::Error)
        .decode_change(one_record("unknown_type"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownEntityType);
    assert!(err.to_string().contains("\"AuditEntry\""), "{err}");

    let skipped = registry(UnknownPolicy::Skip)
        .decode_change(one_record("unknown_type"))
        .unwrap();
    let Some(Decoded::Skipped(skipped)) = skipped.new else {
        panic!("skipped expected")
    };
    assert_eq!(
        skipped.key["sk"],
        AttributeValue::S("AUDIT#2024-11-25T10:03:00Z".into())
    );

    let kept = registry(UnknownPolicy::Keep)
        .decode_change(one_record("unknown_type"))
        .unwrap();
    let Some(Decoded::Raw(raw)) = kept.new else {
        panic!("raw expected")
    };
    // The whole image, nested list with a NULL included, as it was.
    let meta = raw.item["meta"].as_m().unwrap();
    assert_eq!(
        meta["tags"],
        AttributeValue::L(vec![
            AttributeValue::S("a".into()),
            AttributeValue::Null(true)
        ])
    );
}

#[test]
fn a_malformed_image_names_the_type_the_key_and_the_attribute() {
    let err = registry(UnknownPolicy::Error)
        .decode_change(one_record("malformed_image"))
        .unwrap_err();
    let message = err.to_string();
    assert_eq!(err.entity_type(), Some("Session"));
    for part in ["Session", "USER#u3", "device"] {
        assert!(message.contains(part), "{part} not in {message}");
    }
    // And which record and which of its images.
    assert_eq!(err.stream_image(), Some("new"));
    assert_eq!(
        err.stream_record(),
        Some((
            "1679091c5a880faf6fb5e6087eb1b2dc",
            Some("111100000000000000006")
        ))
    );
    assert!(
        message.starts_with("stream record \"1679091c5a880faf6fb5e6087eb1b2dc\", new image: "),
        "{message}"
    );
}

/// A Lambda event record with `image` as its new image.
fn event_with_image(image: serde_json::Value) -> Event {
    serde_json::from_value(serde_json::json!({"Records": [{
        "eventID": "deep", "eventName": "INSERT", "awsRegion": "eu-west-1",
        "dynamodb": {"Keys": {"pk": {"S": "USER#x"}}, "NewImage": image,
                     "SequenceNumber": "9", "SizeBytes": 1, "StreamViewType": "NEW_IMAGE"}
    }]}))
    .unwrap()
}

#[test]
fn hostile_records_are_errors_not_crashes() {
    // Nested deeper than DynamoDB allows (serde_json parses up to 128).
    let mut value = serde_json::json!({"S": "leaf"});
    for _ in 0..40 {
        value = serde_json::json!({"L": [value]});
    }
    let event = event_with_image(serde_json::json!({ "deep": value }));
    let err = lambda_records(event).next().unwrap().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidStreamRecord);
    assert_eq!(err.stream_record(), Some(("deep", Some("9"))));
    // The path goes down to the list that is one level too deep.
    let path = format!("deep{}", "[0]".repeat(31));
    assert!(
        err.to_string().contains(&format!(
            "new image's attribute `{path}` nests lists and maps 32 or more"
        )),
        "{err}"
    );

    // 31 levels is fine.
    let mut value = serde_json::json!({"S": "leaf"});
    for _ in 0..31 {
        value = serde_json::json!({"M": {"m": value}});
    }
    let event = event_with_image(serde_json::json!({ "deep": value }));
    assert!(lambda_records(event).next().unwrap().is_ok());

    // Unknown event names and view types, no event id.
    for (patch, expected) in [
        (
            serde_json::json!({"eventName": "UPSERT"}),
            "its event name is \"UPSERT\"; expected INSERT, MODIFY or REMOVE",
        ),
        (serde_json::json!({"eventID": ""}), "it has no event id"),
    ] {
        let mut record = serde_json::json!({
            "eventID": "e", "eventName": "INSERT", "awsRegion": "eu-west-1",
            "dynamodb": {"Keys": {"pk": {"S": "USER#x"}}, "SequenceNumber": "5", "SizeBytes": 1}
        });
        for (k, v) in patch.as_object().unwrap() {
            record[k] = v.clone();
        }
        let event: Event =
            serde_json::from_value(serde_json::json!({ "Records": [record] })).unwrap();
        let err = lambda_records(event).next().unwrap().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidStreamRecord);
        assert!(err.to_string().ends_with(expected), "{err}");
    }

    // A record without keys could not be told to be any item's: refused,
    // whether `Keys` is empty or absent.
    for dynamodb in [
        serde_json::json!({"Keys": {}, "SequenceNumber": "6", "SizeBytes": 1}),
        serde_json::json!({"SequenceNumber": "6", "SizeBytes": 1}),
    ] {
        let event: Event = serde_json::from_value(serde_json::json!({"Records": [{
            "eventID": "no-keys", "eventName": "REMOVE", "awsRegion": "eu-west-1",
            "dynamodb": dynamodb
        }]}))
        .unwrap();
        let err = lambda_records(event).next().unwrap().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidStreamRecord);
        assert_eq!(err.stream_record(), Some(("no-keys", Some("6"))));
        assert!(err.to_string().ends_with("it has no keys"), "{err}");
    }

    // Records of the Streams API: deep values and unknown names too.
    use aws_sdk_dynamodbstreams::types::{
        AttributeValue as V, OperationType, Record, StreamRecord,
    };
    let mut deep = V::S("leaf".into());
    for _ in 0..10_000 {
        deep = V::L(vec![deep]);
    }
    let record = Record::builder()
        .event_id("sdk-deep")
        .event_name(OperationType::Insert)
        .dynamodb(
            StreamRecord::builder()
                .keys("pk", V::S("USER#x".into()))
                .new_image("deep", deep)
                .sequence_number("11")
                .build(),
        )
        .build();
    let err = ChangeRecord::try_from(record).unwrap_err();
    assert_eq!(err.stream_record(), Some(("sdk-deep", Some("11"))));
    let record = Record::builder()
        .event_id("sdk-name")
        .event_name(OperationType::from("UPSERT"))
        .dynamodb(StreamRecord::builder().build())
        .build();
    assert!(
        ChangeRecord::try_from(record)
            .unwrap_err()
            .to_string()
            .contains("\"UPSERT\"")
    );
    let record = Record::builder()
        .event_id("sdk-no-keys")
        .event_name(OperationType::Remove)
        .dynamodb(StreamRecord::builder().sequence_number("12").build())
        .build();
    let err = ChangeRecord::try_from(record).unwrap_err();
    assert_eq!(err.stream_record(), Some(("sdk-no-keys", Some("12"))));
    assert!(err.to_string().ends_with("it has no keys"), "{err}");
    let record = Record::builder()
        .event_id("sdk-none")
        .event_name(OperationType::Insert)
        .build();
    assert!(
        ChangeRecord::try_from(record)
            .unwrap_err()
            .to_string()
            .contains("no `dynamodb` part")
    );
}

#[tokio::test]
async fn a_lambda_batch_reports_the_record_it_stopped_at() {
    // The fixtures as one batch: insert, modify, unknown type, remove, TTL
    // removal. With UnknownPolicy::Error the unknown type stops the batch
    // there; Lambda retries from it, so the records after it are not handled.
    let mut event = Event::default();
    for name in ["insert", "modify", "unknown_type", "remove", "ttl_remove"] {
        event.records.extend(fixture(name).records);
    }
    let registry = registry(UnknownPolicy::Error);
    let mut handled = Vec::new();
    let outcome = process_records(&registry, lambda_records(event.clone()), |change| {
        handled.push(change.kind);
        async { Ok::<(), std::io::Error>(()) }
    })
    .await;
    assert_eq!(handled, [ChangeKind::Insert, ChangeKind::Modify]);
    assert_eq!(outcome.handled, 2);
    assert_eq!(
        serde_json::to_value(&outcome).unwrap(),
        serde_json::json!({"batchItemFailures": [{"itemIdentifier": "111100000000000000005"}]})
    );
    let failed = outcome.failed.as_ref().unwrap();
    assert_eq!(failed.error.kind(), ErrorKind::UnknownEntityType);
    let response = DynamoDbEventResponse::from(outcome);
    assert_eq!(
        response.batch_item_failures[0].item_identifier.as_deref(),
        Some("111100000000000000005")
    );

    // Skipping unknown types, the whole batch goes through.
    let registry = self::registry(UnknownPolicy::Skip);
    let mut kinds = Vec::new();
    let outcome = process_records(&registry, lambda_records(event), |change| {
        kinds.push((change.kind, change.removed_by_ttl, change.new.is_some()));
        async { Ok::<(), std::io::Error>(()) }
    })
    .await;
    assert!(outcome.batch_item_failures.is_empty());
    assert_eq!(
        kinds,
        [
            (ChangeKind::Insert, false, true),
            (ChangeKind::Modify, false, true),
            (ChangeKind::Insert, false, true),
            (ChangeKind::Remove, false, false),
            (ChangeKind::Remove, true, false),
        ]
    );
}

#[tokio::test]
async fn a_live_stream_is_read_back_and_decoded() {
    let client = local::client().await;
    let name = dynamodb_mapper_testkit::unique_table_name("streams");
    T.definition(&name)
        .stream(StreamViewType::NewAndOldImages)
        .create_table_request(&client)
        .send()
        .await
        .unwrap();
    dynamodb_mapper_testkit::wait_for_table_active(&client, &name)
        .await
        .unwrap();
    let table = Table::new(&client, &name, T);

    // Write, update, write another, delete the first, and an item of a type
    // no mapper reads.
    let first = session("u1", "s1", "phone", &["read"], 1_900_000_000);
    let changed = Session {
        device: "laptop".into(),
        ..first.clone()
    };
    let second = session("u1", "s2", "tablet", &["read", "write"], 1_900_000_100);
    local::put_item(&client, &name, SessionMapper::to_item(&first).unwrap()).await;
    table
        .update_entity::<SessionMapper>(&first, &changed)
        .await
        .unwrap();
    local::put_item(&client, &name, SessionMapper::to_item(&second).unwrap()).await;
    let first_key = T.key_of(&SessionMapper::to_item(&first).unwrap()).unwrap();
    client
        .delete_item()
        .table_name(&name)
        .set_key(Some(first_key.clone()))
        .send()
        .await
        .unwrap();
    let mut audit = first_key.clone();
    audit.insert("sk".into(), AttributeValue::S("AUDIT#1".into()));
    audit.insert("entityType".into(), AttributeValue::S("AuditEntry".into()));
    local::put_item(&client, &name, audit).await;

    let server = dynamodb_mapper_testkit::shared().await.unwrap();
    let records = dynamodb_mapper_testkit::stream_records(&client, &server.streams_client(), &name)
        .await
        .unwrap();
    assert_eq!(records.len(), 5, "{records:#?}");
    let registry = registry(UnknownPolicy::Keep);
    let changes: Vec<_> = records
        .into_iter()
        .map(|r| {
            registry
                .decode_change(ChangeRecord::try_from(r).unwrap())
                .unwrap()
        })
        .collect();
    let kinds: Vec<ChangeKind> = changes.iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        [
            ChangeKind::Insert,
            ChangeKind::Modify,
            ChangeKind::Insert,
            ChangeKind::Remove,
            ChangeKind::Insert
        ]
    );
    let mut changes = changes.into_iter();
    let insert = changes.next().unwrap();
    assert_eq!(insert.keys, first_key);
    assert!(insert.old.is_none());
    assert_eq!(entity(insert.new), Some(first.clone()));
    let modify = changes.next().unwrap();
    assert_eq!(entity(modify.old), Some(first.clone()));
    assert_eq!(entity(modify.new), Some(changed.clone()));
    assert_eq!(entity(changes.next().unwrap().new), Some(second));
    let remove = changes.next().unwrap();
    assert!(!remove.removed_by_ttl, "a user's delete");
    assert!(remove.new.is_none());
    assert_eq!(entity(remove.old), Some(changed));
    let unknown = changes.next().unwrap();
    let Some(Decoded::Raw(raw)) = unknown.new else {
        panic!("kept raw")
    };
    assert_eq!(
        raw.item["entityType"],
        AttributeValue::S("AuditEntry".into())
    );
}
