//! Helpers where one SDK call is not enough to be correct: batch writes and
//! gets that retry what DynamoDB leaves unprocessed, optimistic locking,
//! transactions with their cancellation reasons mapped back to entities.
//!
//! Everything starts from a [`Table`]: the SDK's own
//! [`Client`](aws_sdk_dynamodb::Client), the table's name and layout, and
//! the options every helper shares (retry policy, call bound, deadline). Each helper
//! is a method of it with one shape, `table.helper::<Mapper>(what)`, and
//! returns or accepts SDK types, so you can always drop down a level.
//!
//! # What every helper guarantees
//!
//! - **Nothing lost, nothing twice.** What a helper did plus what it hands
//!   back in its error is what it was asked to send; a request it cannot
//!   account for (sent, but no credible answer) is reported as in doubt
//!   ([`ErrorKind::MaybeApplied`](crate::ErrorKind::MaybeApplied) for one
//!   item or a transaction), never as done or as refused. Success only
//!   when the store holds what was asked.
//! - **Derived attributes never stale.** Whole items come from `to_item`,
//!   which renders every key; a raw update (`Transaction::update`,
//!   [`Table::increment`]) passes one gate that refuses a change of a
//!   derived key, or of a field a key is rendered from, unless
//!   [`Update::caller_keeps`](crate::expr::Update::caller_keeps) names it.
//!   A record read through a projection is never written whole.
//! - **Versioned entities keep their version check** on every path: the
//!   locking helpers and [`Transaction`] carry it, [`BatchWriter`] (which
//!   cannot) refuses them unless told by name that it is an
//!   [`import`](BatchWriter::import). Versions never repeat across a delete
//!   and re-create (see [`Table::put_record`]).
//! - **Bounded in time.** Every helper call returns within its
//!   [`Table::deadline`] (else 60 s), every attempt, retry
//!   and pause included; each SDK call within it is bounded by
//!   [`Table::call_timeout`], else the client's operation timeout, else
//!   30 s; retries follow the table's [`RetryPolicy`]
//!   (the client's `RetryConfig` by default). Running out is an
//!   [`ErrorKind::Timeout`](crate::ErrorKind::Timeout), or for a write
//!   that was sent, [`ErrorKind::MaybeApplied`](crate::ErrorKind::MaybeApplied).
//! - **Never a panic** on any response: one that makes no sense is an
//!   [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse).
//! - **Consumed capacity on request only.** Nothing asks DynamoDB for
//!   consumed capacity unless the table does
//!   ([`Table::return_consumed_capacity`]); then each helper reports the sum over
//!   the requests it sent ([`CapacityUsage`]) in its result where it has
//!   one and in its tracing span.

mod access;
mod batch;
mod call;
mod capacity;
mod create;
mod entity_update;
mod errors;
mod identity;
mod pages;
mod renew;
mod self_test;
mod send;
mod table;
mod tx;
mod unique;
mod version;
mod versioned;

use std::time::Duration;

pub use crate::error::{ActionInfo, ActionKind, CanceledAction, Unread, Unwritten};
pub use access::Access;
pub use batch::{BatchGetter, BatchRead, BatchSummary, BatchWriter, FailedItem};
pub(crate) use call::DEFAULT_DEADLINE;
pub use capacity::{CapacityUsage, TableCapacity};
pub use create::{CreateTable, CreatedTable};
pub use pages::Page;
pub(crate) use renew::Renewed;
pub use table::Table;
pub use tx::{Transaction, TransactionSummary};

/// Bounded exponential backoff with full jitter.
///
/// Attempt `n` (counting from 1) waits a random time between zero and
/// `min(max_delay, base_delay × 2^(n-1))` before the next try.
///
/// ```
/// use std::time::Duration;
/// use dynamodb_mapper::ops::RetryPolicy;
///
/// let policy = RetryPolicy::new(5)
///     .base_delay(Duration::from_millis(10))
///     .max_delay(Duration::from_millis(200));
/// assert_ne!(policy, RetryPolicy::new(3));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    max_attempts: u32,
    base_delay: Duration,
    max_delay: Duration,
}

impl Default for RetryPolicy {
    /// 8 attempts, 25 ms base delay, 2 s cap.
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 8,
            base_delay: Duration::from_millis(25),
            max_delay: Duration::from_secs(2),
        }
    }
}

impl RetryPolicy {
    /// The policy of the client's retry configuration (set with
    /// `aws_sdk_dynamodb::config::Builder::retry_config`, or `aws_config`'s
    /// `retry_config`): its maximum attempts, initial backoff (the base
    /// delay) and maximum backoff; [`RetryPolicy::default`] when the client
    /// has none. [`Table::new`] starts from it, so an application configures
    /// retries in one place.
    ///
    /// How the two interact: the helpers send every write as one SDK attempt
    /// (the SDK's own retries off for that request, so each answer is seen
    /// and a write whose answer was lost is never sent again blindly) and
    /// retry by this policy themselves; reads keep the SDK's own retries.
    /// A client with retries disabled (`RetryConfig::disabled()`) gets one
    /// attempt per request from the helpers too: unprocessed batch entries
    /// are then handed back at once.
    #[must_use]
    pub(crate) fn of_client(client: &aws_sdk_dynamodb::Client) -> Self {
        match client.config().retry_config() {
            Some(config) => RetryPolicy {
                max_attempts: config.max_attempts().max(1),
                base_delay: config.initial_backoff(),
                max_delay: config.max_backoff(),
            },
            None => RetryPolicy::default(),
        }
    }

    /// A policy of at most `max_attempts` attempts (at least 1) with the
    /// default delays.
    ///
    /// ```
    /// use dynamodb_mapper::ops::RetryPolicy;
    /// assert_eq!(RetryPolicy::new(0), RetryPolicy::new(1));
    /// ```
    #[must_use]
    pub fn new(max_attempts: u32) -> Self {
        RetryPolicy {
            max_attempts: max_attempts.max(1),
            ..RetryPolicy::default()
        }
    }

    /// Sets the base delay.
    ///
    /// ```
    /// # use std::time::Duration;
    /// let p = dynamodb_mapper::ops::RetryPolicy::new(3).base_delay(Duration::ZERO);
    /// # let _ = p;
    /// ```
    #[must_use]
    pub fn base_delay(mut self, delay: Duration) -> Self {
        self.base_delay = delay;
        self
    }

    /// Sets the cap on any one delay.
    ///
    /// ```
    /// # use std::time::Duration;
    /// let p = dynamodb_mapper::ops::RetryPolicy::new(30).max_delay(Duration::from_millis(5));
    /// # let _ = p;
    /// ```
    #[must_use]
    pub fn max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// The number of attempts, the first one included.
    #[must_use]
    pub(crate) fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The (random) delay after attempt `attempt` (counting from 1).
    #[must_use]
    pub(crate) fn delay(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1).min(30));
        let cap = self.base_delay.saturating_mul(factor).min(self.max_delay);
        cap.mul_f64(fastrand::f64())
    }
}

/// Whether a service error is worth retrying after a delay: throttling and
/// internal server errors.
pub(crate) fn is_retryable(err: &aws_sdk_dynamodb::Error) -> bool {
    matches!(
        err,
        aws_sdk_dynamodb::Error::ProvisionedThroughputExceededException(_)
            | aws_sdk_dynamodb::Error::ThrottlingException(_)
            | aws_sdk_dynamodb::Error::RequestLimitExceeded(_)
            | aws_sdk_dynamodb::Error::InternalServerError(_)
    )
}
