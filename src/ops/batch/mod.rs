//! Batch writes (25 per request) and gets (100 keys per request) that retry
//! what DynamoDB leaves unprocessed and hand back whatever could not be done.
//!
//! # Accounting
//!
//! Every request sent is matched back by table name and full key
//! ([`KeyId`]): an entry DynamoDB lists as unprocessed is retried only if it
//! is one that was sent in that attempt, once. A response that lists a table
//! or key that was not sent, a key twice, or an entry without a key makes no
//! sense; nothing in it is trusted, the batch stops, and
//! [`Error::UnexpectedResponse`] says what was odd. For writes,
//! `written + unprocessed + in doubt = sent`; for gets, every key is read,
//! absent from the table, or handed back.

mod get;
mod write;

use std::sync::atomic::{AtomicBool, Ordering};

use super::identity::KeyId;
use crate::error::Error;

pub use get::{BatchGetter, BatchRead, FailedItem};
pub use write::BatchWriter;

/// DynamoDB's limit of write requests in one `BatchWriteItem`.
pub const BATCH_WRITE_LIMIT: usize = 25;
/// DynamoDB's limit of keys in one `BatchGetItem`.
pub const BATCH_GET_LIMIT: usize = 100;

/// What a batch operation did.
///
/// ```
/// let s = dynamodb_mapper::ops::BatchSummary::default();
/// assert_eq!(s.items, 0);
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
    /// Capacity units consumed, as reported by DynamoDB.
    pub consumed_capacity: f64,
}

impl BatchSummary {
    fn add(&mut self, other: &BatchSummary) {
        self.items += other.items;
        self.requests += other.requests;
        self.retries += other.retries;
        self.consumed_capacity += other.consumed_capacity;
    }
}

/// One request of a batch and what is known of it.
struct Entry<T> {
    request: T,
    id: KeyId,
    /// Sent in an attempt whose outcome is unknown: it may have been applied.
    maybe_applied: bool,
}

/// The state shared by the chunks of one batch: the first error that must
/// stop it. Chunks look at it before every attempt, so nothing more is sent
/// once it is set.
#[derive(Default)]
struct Stop {
    stopped: AtomicBool,
}

impl Stop {
    fn set(&self) {
        self.stopped.store(true, Ordering::SeqCst);
    }

    fn is_set(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }
}

/// The first cause among the chunks' (chunks that stopped on their own error
/// come before those that stopped because another did).
fn first_cause(causes: impl IntoIterator<Item = Option<Error>>) -> Option<Box<Error>> {
    causes.into_iter().flatten().next().map(Box::new)
}

/// Splits `items` into chunks of at most `size`.
fn chunks<T>(items: Vec<T>, size: usize) -> Vec<Vec<T>> {
    let mut out = Vec::with_capacity(items.len().div_ceil(size.max(1)));
    let mut it = items.into_iter().peekable();
    while it.peek().is_some() {
        out.push(it.by_ref().take(size.max(1)).collect());
    }
    out
}
