//! Batch writes (25 per request) and gets (100 keys per request) that retry
//! what DynamoDB leaves unprocessed and hand back whatever could not be done.
//!
//! # Accounting
//!
//! Every request sent is matched back by table name and full key ([`KeyId`]):
//! an entry DynamoDB lists as unprocessed is retried only if it is one that was
//! sent in that attempt, once. A response that lists a table or key that was
//! not sent, a key twice, or an entry without a key makes no sense; nothing in
//! it is trusted, the batch stops, and
//! [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse) says
//! what was odd. For writes, `written + unprocessed + in doubt = sent`; for
//! gets, every key is read, absent from the table, or handed back.

mod getter;
mod run;
mod writer;

use super::capacity::{self, CapacityUsage};
use super::identity::KeyId;

pub use getter::{BatchGetter, BatchRead, FailedItem};
pub use writer::BatchWriter;

/// DynamoDB's limit of write requests in one `BatchWriteItem`.
pub(crate) const BATCH_WRITE_LIMIT: usize = 25;
/// DynamoDB's limit of keys in one `BatchGetItem`.
pub(crate) const BATCH_GET_LIMIT: usize = 100;

/// What a batch operation did.
///
/// ```
/// let s = dynamodb_mapper::ops::BatchSummary::default();
/// assert_eq!(s.items, 0);
/// assert_eq!(s.consumed_capacity, None);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct BatchSummary {
    /// Items written, deleted or read.
    pub items: usize,
    /// SDK requests sent, retries included.
    pub requests: usize,
    /// Requests that were retries (of unprocessed items or throttling).
    pub retries: usize,
    /// The capacity DynamoDB reported, summed over every request (retries
    /// included): `None` unless the [`Table`](super::Table) asked for it
    /// ([`Table::return_consumed_capacity`](super::Table::return_consumed_capacity)).
    ///
    /// ```no_run
    /// # use dynamodb_mapper_support::doc::*;
    /// # async fn demo(client: aws_sdk_dynamodb::Client, notes: Vec<Note>) -> dynamodb_mapper::Result<()> {
    /// use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
    /// let summary = dynamodb_mapper::ops::Table::new(&client, "AppTable", NoteMapper::SCHEMA)
    ///     .return_consumed_capacity(ReturnConsumedCapacity::Total)
    ///     .batch_writer()
    ///     .put::<NoteMapper>(&notes)
    ///     .await?;
    /// if let Some(used) = &summary.consumed_capacity {
    ///     println!("{} write units", used.total);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub consumed_capacity: Option<CapacityUsage>,
}

impl BatchSummary {
    fn add(&mut self, other: &BatchSummary) {
        self.items += other.items;
        self.requests += other.requests;
        self.retries += other.retries;
        capacity::merge(
            &mut self.consumed_capacity,
            other.consumed_capacity.as_ref(),
        );
    }
}

/// One request of a batch and what is known of it.
struct Entry<T> {
    request: T,
    id: KeyId,
    /// Sent in an attempt whose outcome is unknown: it may have been applied.
    maybe_applied: bool,
}
