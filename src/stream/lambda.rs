//! DynamoDB stream events of AWS Lambda (`aws_lambda_events`, feature
//! `lambda`) as [`ChangeRecord`]s, and the partial-batch response.

use std::time::{Duration, UNIX_EPOCH};

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use serde_dynamo::AttributeValue as LambdaValue;

use super::batch::BatchItemFailures;
use super::change_record::{ChangeRecord, Which, kind_of, view_type_of};
use super::foreign_value::{Opened, SourceValue, item_of, keys_of};
use crate::error::{Error, Result};

impl SourceValue for LambdaValue {
    fn open(self) -> std::result::Result<Opened<Self>, String> {
        Ok(Opened::Value(match self {
            LambdaValue::S(s) => AttributeValue::S(s),
            LambdaValue::N(n) => AttributeValue::N(n),
            LambdaValue::B(b) => AttributeValue::B(Blob::new(b)),
            LambdaValue::Bool(b) => AttributeValue::Bool(b),
            LambdaValue::Null(b) => AttributeValue::Null(b),
            LambdaValue::Ss(v) => AttributeValue::Ss(v),
            LambdaValue::Ns(v) => AttributeValue::Ns(v),
            LambdaValue::Bs(v) => AttributeValue::Bs(v.into_iter().map(Blob::new).collect()),
            LambdaValue::L(list) => return Ok(Opened::List(list)),
            LambdaValue::M(map) => return Ok(Opened::Map(map)),
        }))
    }
}

/// A Lambda event record, read. Lambda gives an absent image as an empty
/// one; an empty image is read as absent (DynamoDB never writes an item
/// without its keys).
///
/// # Errors
/// [`ErrorKind::InvalidStreamRecord`](crate::ErrorKind::InvalidStreamRecord):
/// no event id, an unknown event name or view type, an image or key nested
/// deeper than DynamoDB allows.
///
/// ```
/// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
///
/// let event: aws_lambda_events::event::dynamodb::Event = serde_json::from_str(r#"{"Records": [{
///     "eventID": "e1", "eventName": "REMOVE", "awsRegion": "us-east-1",
///     "userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"},
///     "dynamodb": {"Keys": {"pk": {"S": "SESSION#1"}}, "SequenceNumber": "7",
///                  "SizeBytes": 20, "StreamViewType": "KEYS_ONLY"}
/// }]}"#).unwrap();
/// let record = ChangeRecord::try_from(event.records[0].clone())?;
/// assert_eq!(record.kind, ChangeKind::Remove);
/// assert!(record.removed_by_ttl());
/// assert!(record.old_image.is_none());
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
impl TryFrom<EventRecord> for ChangeRecord {
    type Error = Error;

    fn try_from(record: EventRecord) -> Result<Self> {
        let change = record.change;
        let which = Which {
            event_id: &record.event_id,
            sequence_number: change.sequence_number.as_deref(),
        };
        if record.event_id.is_empty() {
            return Err(which.error("it has no event id"));
        }
        let kind = kind_of(which, Some(&record.event_name))?;
        let keys = keys_of(change.keys.into_inner(), which)?;
        let mut out = ChangeRecord::new(record.event_id.clone(), kind, keys);
        let old = change.old_image.into_inner();
        if !old.is_empty() {
            out.old_image = Some(item_of(old, "old image's", which)?);
        }
        let new = change.new_image.into_inner();
        if !new.is_empty() {
            out.new_image = Some(item_of(new, "new image's", which)?);
        }
        if let Some(view) = change.stream_view_type {
            out.view_type = Some(view_type_of(which, &view.to_string())?);
        }
        out.sequence_number = change.sequence_number;
        out.user_identity = record
            .user_identity
            .map(|identity| (identity.type_, identity.principal_id));
        let at = change.approximate_creation_date_time;
        // Lambda leaves the time out at times; the default is the epoch.
        if let Ok(millis) = u64::try_from(at.timestamp_millis())
            && millis > 0
            && let Some(at) = UNIX_EPOCH.checked_add(Duration::from_millis(millis))
        {
            out.created_at = Some(at);
        }
        Ok(out)
    }
}

/// The records of a Lambda event, each read with
/// `ChangeRecord::try_from`, in order: the input of
/// [`process_records`](super::process_records).
///
/// ```
/// let event: aws_lambda_events::event::dynamodb::Event = serde_json::from_str(r#"{"Records": []}"#).unwrap();
/// assert_eq!(dynamodb_mapper::stream::lambda_records(event).count(), 0);
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "lambda")))]
pub fn lambda_records(event: Event) -> impl Iterator<Item = Result<ChangeRecord>> {
    event.records.into_iter().map(ChangeRecord::try_from)
}

/// The partial-batch response of `aws_lambda_events` for the record a batch
/// stopped at (none when every record was handled).
///
/// ```
/// use aws_lambda_events::event::streams::DynamoDbEventResponse;
/// let response = DynamoDbEventResponse::from(dynamodb_mapper::stream::BatchItemFailures::default());
/// assert!(response.batch_item_failures.is_empty());
/// ```
impl From<BatchItemFailures> for DynamoDbEventResponse {
    fn from(outcome: BatchItemFailures) -> Self {
        let mut response = DynamoDbEventResponse::default();
        response.batch_item_failures = outcome
            .batch_item_failures
            .into_iter()
            .map(|f| {
                let mut failure = DynamoDbBatchItemFailure::default();
                failure.item_identifier = Some(f.item_identifier);
                failure
            })
            .collect();
        response
    }
}
