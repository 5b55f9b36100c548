//! [`process_records`] and [`BatchItemFailures`]: a batch of stream records
//! handled in order, and the partial-batch response that makes Lambda retry
//! from the first record that failed.

use std::future::Future;

use serde::Serialize;

use super::change_record::ChangeRecord;
use super::decode::Change;
use crate::error::{BoxError, Error, Result};
use crate::registry::Registry;

/// One failed record of a partial-batch response: its sequence number.
///
/// ```
/// let failure = dynamodb_mapper::stream::BatchItemFailure { item_identifier: "42".into() };
/// assert_eq!(failure.item_identifier, "42");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchItemFailure {
    /// The record's sequence number; empty when the record had none, which
    /// Lambda reads as a failure of the whole batch (so the batch is retried
    /// whole and nothing is lost).
    pub item_identifier: String,
}

/// The record a batch stopped at, and why.
///
/// ```
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::stream::{process_records, ChangeKind, ChangeRecord};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let registry = Registry::builder().register::<CustomerMapper>(Entity::Customer).build()?;
/// // A removal that claims to carry the item after the change.
/// let mut odd = ChangeRecord::new("e7", ChangeKind::Remove, Default::default());
/// odd.sequence_number = Some("700".into());
/// odd.new_image = Some(Default::default());
/// let outcome = process_records(&registry, [Ok(odd)], |_| async { Ok::<(), Error>(()) }).await;
/// let failed = outcome.failed.unwrap();
/// assert_eq!(failed.event_id.as_deref(), Some("e7"));
/// assert_eq!(failed.sequence_number.as_deref(), Some("700"));
/// assert_eq!(failed.error.kind(), ErrorKind::InvalidStreamRecord);
/// # Ok::<(), dynamodb_mapper::Error>(())
/// # })?;
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct FailedRecord {
    /// Its event id, when known.
    pub event_id: Option<String>,
    /// Its sequence number, when known.
    pub sequence_number: Option<String>,
    /// What went wrong: reading the record, decoding an image, or the
    /// handler's error ([`ErrorKind::Hook`](crate::ErrorKind::Hook), hook
    /// name `stream handler`).
    pub error: Error,
}

/// The outcome of [`process_records`]: how many records were handled, and
/// the record it stopped at. Serializes as Lambda's partial-batch response,
/// `{"batchItemFailures":[{"itemIdentifier":"..."}]}`, for an event source
/// mapping with `ReportBatchItemFailures` (only
/// [`batch_item_failures`](Self::batch_item_failures) is serialized); with
/// the `lambda` feature it also converts into `aws_lambda_events`'
/// `DynamoDbEventResponse`.
///
/// ```
/// use dynamodb_mapper::stream::BatchItemFailures;
/// let none = BatchItemFailures::default();
/// assert!(none.batch_item_failures.is_empty() && none.failed.is_none());
/// assert_eq!(none.handled, 0);
/// assert_eq!(serde_json::to_string(&none).unwrap(), r#"{"batchItemFailures":[]}"#);
/// ```
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BatchItemFailures {
    /// The failures to report: none, or the record the batch stopped at.
    pub batch_item_failures: Vec<BatchItemFailure>,
    /// How many records were handled before the batch stopped (all of them
    /// when nothing failed).
    #[serde(skip)]
    pub handled: usize,
    /// The record the batch stopped at, and its error.
    #[serde(skip)]
    pub failed: Option<FailedRecord>,
}

/// Decodes each record through `registry` and hands the change to
/// `handler`, in order, stopping at the first record that cannot be read or
/// decoded or whose handler fails. That record is the one failure reported:
/// Lambda retries the batch from the lowest failed sequence number, so the
/// records after it come again, and handling them now would run them twice
/// or out of order. Records of types the registry's policies skip or keep
/// raw reach the handler as such; only errors stop the batch.
///
/// `records` are results so a record that could not be converted from its
/// source (`ChangeRecord::try_from`) fails at its place in the order; its
/// error carries its sequence number when the source had one.
///
/// A record that always fails blocks its shard until the event source
/// mapping's retry limit or the record's expiry (24 hours); choose the
/// registry's policies (and the mapping's on-failure destination) with that
/// in mind.
///
/// Return the outcome as the function's response only when the event source
/// mapping has `ReportBatchItemFailures` turned on: without it Lambda
/// ignores the response and counts the whole batch as handled, and the
/// records from the failed one on are lost. There, fail the invocation
/// instead (`if let Some(failed) = outcome.failed { return
/// Err(failed.error.into()) }`), so Lambda retries the whole batch.
///
/// ```
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::stream::{process_records, ChangeKind, ChangeRecord};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let registry = Registry::builder().register::<CustomerMapper>(Entity::Customer).build()?;
/// let insert = |seq: &str, id: &str| -> dynamodb_mapper::Result<ChangeRecord> {
///     let item = CustomerMapper::to_item(&Customer { id: id.into() })?;
///     let mut record = ChangeRecord::new(seq, ChangeKind::Insert, TABLE.key_of(&item)?);
///     record.sequence_number = Some(seq.into());
///     record.new_image = Some(item);
///     Ok(record)
/// };
/// let records = vec![insert("1", "C1"), insert("2", "C2"), insert("3", "C3")];
/// let mut seen = Vec::new();
/// let outcome = process_records(&registry, records, |change| {
///     let id = match change.new.and_then(|d| d.into_entity()) {
///         Some(Entity::Customer(c)) => c.id,
///         _ => String::new(),
///     };
///     let failed = id == "C2";
///     seen.push(id);
///     async move { if failed { Err("the mail service is down") } else { Ok(()) } }
/// })
/// .await;
/// assert_eq!(seen, ["C1", "C2"]);
/// assert_eq!(outcome.handled, 1);
/// assert_eq!(
///     serde_json::to_string(&outcome).unwrap(),
///     r#"{"batchItemFailures":[{"itemIdentifier":"2"}]}"#
/// );
/// # Ok::<(), dynamodb_mapper::Error>(())
/// # })?;
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub async fn process_records<T, I, F, Fut, E>(
    registry: &Registry<T>,
    records: I,
    mut handler: F,
) -> BatchItemFailures
where
    I: IntoIterator<Item = Result<ChangeRecord>>,
    F: FnMut(Change<T>) -> Fut,
    Fut: Future<Output = std::result::Result<(), E>>,
    E: Into<BoxError>,
{
    let mut outcome = BatchItemFailures::default();
    for record in records {
        let failed = match record {
            Err(error) => {
                let (event_id, sequence_number) = match error.stream_record() {
                    Some((id, seq)) => (Some(id.to_owned()), seq.map(str::to_owned)),
                    None => (None, None),
                };
                FailedRecord {
                    event_id,
                    sequence_number,
                    error,
                }
            }
            Ok(record) => {
                let event_id = Some(record.event_id.clone());
                let sequence_number = record.sequence_number.clone();
                let result = match registry.decode_change(record) {
                    Ok(change) => handler(change)
                        .await
                        .map_err(|e| Error::hook("stream handler", e)),
                    Err(e) => Err(e),
                };
                match result {
                    Ok(()) => {
                        outcome.handled += 1;
                        continue;
                    }
                    Err(error) => FailedRecord {
                        event_id,
                        sequence_number,
                        error,
                    },
                }
            }
        };
        tracing::warn!(
            event_id = failed.event_id.as_deref().unwrap_or(""),
            sequence_number = failed.sequence_number.as_deref().unwrap_or(""),
            error = %failed.error,
            "dynamodb_mapper: stream batch stopped at a failed record"
        );
        outcome.batch_item_failures.push(BatchItemFailure {
            item_identifier: failed.sequence_number.clone().unwrap_or_default(),
        });
        outcome.failed = Some(failed);
        break;
    }
    outcome
}
