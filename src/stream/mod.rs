//! DynamoDB Streams and Lambda events, decoded through a [`Registry`]:
//! inserts, modifications and removals as typed [`Change`]s.
//!
//! A stream record reaches an application two ways: from the Streams API
//! (`GetRecords` of `aws-sdk-dynamodbstreams`, cargo feature `streams`), or
//! in a Lambda event (`aws_lambda_events`, cargo feature `lambda`). Both
//! become a [`ChangeRecord`] (the event's kind, keys, images, view type and
//! who made the change), and [`Registry::decode_change`] reads its images
//! with the same mappers and policies as a query's items: an image of a type
//! no mapper reads is an error, skipped or kept raw as the registry says. A
//! removal by TTL expiry is told apart from a user's delete
//! ([`ChangeRecord::removed_by_ttl`]).
//!
//! For a Lambda handler, [`process_records`] decodes and handles the records
//! in order and stops at the first that fails; its [`BatchItemFailures`] is
//! the partial-batch response (`ReportBatchItemFailures`), so Lambda retries
//! from that record and nothing after it is lost or handled out of order.
//!
//! - `change_record.rs`: [`ChangeRecord`], [`ChangeKind`], [`ViewType`].
//! - `decode.rs`: [`Change`] and [`Registry::decode_change`].
//! - `batch.rs`: [`process_records`], [`BatchItemFailures`].
//! - `foreign_value.rs`: attribute values of other crates' types as the SDK's,
//!   depth-bounded.
//! - `sdk.rs` (feature `streams`), `lambda.rs` (feature `lambda`): the two
//!   sources.
//!
//! ```
//! # use dynamodb_mapper_support::doc::*;
//! use dynamodb_mapper::stream::{ChangeKind, ChangeRecord, ViewType};
//!
//! let registry = Registry::builder().register::<CustomerMapper>(Entity::Customer).build()?;
//! let item = CustomerMapper::to_item(&Customer { id: "C1".into() })?;
//! let mut record = ChangeRecord::new("event-1", ChangeKind::Insert, TABLE.key_of(&item)?);
//! record.view_type = Some(ViewType::NewAndOldImages);
//! record.new_image = Some(item);
//! let change = registry.decode_change(record)?;
//! assert_eq!(change.kind, ChangeKind::Insert);
//! assert_eq!(
//!     change.new.and_then(|d| d.into_entity()),
//!     Some(Entity::Customer(Customer { id: "C1".into() }))
//! );
//! assert!(change.old.is_none());
//! # Ok::<(), dynamodb_mapper::Error>(())
//! ```
//!
//! [`Registry`]: crate::Registry
//! [`Registry::decode_change`]: crate::Registry::decode_change

mod batch;
mod change_record;
mod decode;
mod errors;
#[cfg(any(feature = "streams", feature = "lambda"))]
mod foreign_value;
#[cfg(feature = "lambda")]
mod lambda;
#[cfg(feature = "streams")]
mod sdk;
#[cfg(test)]
mod tests;

pub use batch::{BatchItemFailure, BatchItemFailures, FailedRecord, process_records};
pub use change_record::{ChangeKind, ChangeRecord, ViewType};
pub use decode::Change;
#[cfg(feature = "lambda")]
pub use lambda::lambda_records;
