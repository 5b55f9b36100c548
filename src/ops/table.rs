//! [`Table`]: where every helper starts. It holds the client, the table's
//! name and layout, and the options every helper shares (retry policy, call
//! bound, deadline, consumed capacity), so each helper is a method with the
//! same shape: `table.helper::<Mapper>(what)`. The helpers themselves are
//! methods of `impl Table` blocks in the files that hold their logic:
//! `version.rs` (locking), `entity_update.rs`, `pages.rs`, `create.rs`,
//! `tx.rs`, `batch/`.

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

use std::future::Future;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::SdkError;

use super::call::{Bound, Failed, RefusedForNow, Resend, call_conditional, call_timeout};
use super::capacity;
use super::{DEFAULT_DEADLINE, RetryPolicy};
use crate::schema::TableSchema;

/// A table and the client to reach it: the one starting point of every
/// helper of [`ops`](super).
///
/// Options are set once here and hold for every helper started from it:
/// the [`RetryPolicy`] for throttling, unprocessed batch entries and version
/// conflicts, and the bound on each SDK call. Helpers take the mapper as a
/// type parameter and then what they work on: `table.put_record::<M>(&mut
/// record)`, `table.batch_writer().put::<M>(&entities)`,
/// `table.transaction()`.
///
/// ```
/// # use dynamodb_mapper_support::doc::*;
/// use std::time::Duration;
/// use dynamodb_mapper::ops::{RetryPolicy, Table};
///
/// let client = client();
/// let table = Table::new(&client, "AppTable", TABLE)
///     .retry_policy(RetryPolicy::new(5))
///     .call_timeout(Duration::from_secs(5));
/// assert_eq!(table.name(), "AppTable");
/// let writer = table.batch_writer().concurrency(8);
/// let tx = table.transaction();
/// # let _ = (writer, tx);
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Table {
    client: Client,
    name: String,
    schema: TableSchema,
    retry: RetryPolicy,
    /// Each call's bound and the deadline of each helper call (counting
    /// from the call's start, or shared when started: see `started`).
    bound: Bound,
    capacity: Option<ReturnConsumedCapacity>,
}

impl Table {
    /// The table `name`, laid out as `schema`, reached through `client`;
    /// retries as the client's retry configuration says (its maximum
    /// attempts, initial and maximum backoff), each call bounded by the client's
    /// operation timeout or 30 s, and each helper call by 60 s (see
    /// [`call_timeout`](Self::call_timeout) and [`deadline`](Self::deadline)).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "AppTable", TABLE);
    /// assert_eq!(table.schema(), TABLE);
    /// ```
    pub fn new(client: &Client, name: impl Into<String>, schema: TableSchema) -> Self {
        Table {
            client: client.clone(),
            name: name.into(),
            schema,
            retry: RetryPolicy::of_client(client),
            bound: Bound::new(client, call_timeout(client), DEFAULT_DEADLINE),
            capacity: None,
        }
    }

    /// Sets the retry policy every helper uses.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::ops::{RetryPolicy, Table};
    /// let table = Table::new(&client(), "AppTable", TABLE).retry_policy(RetryPolicy::new(3));
    /// # let _ = table;
    /// ```
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Bounds each SDK call a helper makes (the SDK's own retries
    /// included), and each page request of a stream. A read that runs out
    /// is asked for again, by the [retry policy](Self::retry_policy) and
    /// within the [deadline](Self::deadline) (it changes nothing), and so
    /// are a batch write's entries (a put or delete applied twice leaves
    /// what one leaves); any other write that runs out is not sent again
    /// and is reported as maybe applied. Overrides the client's operation
    /// timeout; with neither, 30 s.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use std::time::Duration;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "AppTable", TABLE)
    ///     .call_timeout(Duration::from_millis(500));
    /// # let _ = table;
    /// ```
    pub fn call_timeout(mut self, after: Duration) -> Self {
        self.bound = self.bound.with_after(after);
        self
    }

    /// Bounds each helper call as a whole: every attempt, retry and pause
    /// of one `put_record`, `update_with_retry`, batch write or get (of
    /// any size), transaction, ..., and each page of a stream. An attempt
    /// still waiting when it runs out is cut short and no attempt starts
    /// after it; the helper then returns what it knows: a batch its
    /// accounting (written, handed back, in doubt), a write
    /// [`ErrorKind::MaybeApplied`](crate::ErrorKind::MaybeApplied) when an
    /// attempt went unanswered, otherwise
    /// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout).
    /// 60 s when not set. A large
    /// batch needs a deadline in proportion to its size.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use std::time::Duration;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "AppTable", TABLE)
    ///     .call_timeout(Duration::from_secs(2))
    ///     .deadline(Duration::from_secs(10));
    /// # let _ = table;
    /// ```
    pub fn deadline(mut self, after: Duration) -> Self {
        self.bound = self.bound.with_deadline(after);
        self
    }

    /// Asks DynamoDB to report the capacity each request consumes, for every
    /// helper started from this table: batch writes and gets, transactions,
    /// the locking helpers, [`query`](Self::query) and [`scan`](Self::scan)
    /// and their streams. `Total` reports each table's units; `Indexes` adds
    /// the table's own share and each secondary index's;
    /// [`ReturnConsumedCapacity::None`] asks for nothing (as if never set).
    ///
    /// By default nothing is asked: the requests leave
    /// `ReturnConsumedCapacity` out, and DynamoDB does not spend the time to
    /// compute a report. When asked, the sum over every request a helper sent
    /// (retries and pages included) is in its result where it has one
    /// ([`BatchSummary::consumed_capacity`](super::BatchSummary::consumed_capacity),
    /// [`TransactionSummary::consumed_capacity`](super::TransactionSummary::consumed_capacity))
    /// and always in the `consumed_capacity` field of its tracing span
    /// (`dynamodb_mapper.batch_write`, `.batch_get`, `.transact_write`,
    /// `.get_record`, `.put_record`, `.delete_record`,
    /// `.update_with_retry`, `.update`, `.increment`, `.put_new`,
    /// `.query`, `.query_page`, `.scan`).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
    /// use dynamodb_mapper::ops::Table;
    ///
    /// let table = Table::new(&client(), "AppTable", TABLE);
    /// assert_eq!(table.query().get_return_consumed_capacity(), &None);
    ///
    /// let table = table.return_consumed_capacity(ReturnConsumedCapacity::Indexes);
    /// assert_eq!(
    ///     table.query().get_return_consumed_capacity(),
    ///     &Some(ReturnConsumedCapacity::Indexes)
    /// );
    /// ```
    pub fn return_consumed_capacity(mut self, mode: ReturnConsumedCapacity) -> Self {
        self.capacity = capacity::normalize(mode);
        self
    }

    /// Whether the helpers ask DynamoDB to report consumed capacity.
    pub(crate) fn asks_for_capacity(&self) -> bool {
        self.capacity.is_some()
    }

    /// What the helpers ask DynamoDB to report of consumed capacity (see
    /// [`return_consumed_capacity`](Self::return_consumed_capacity)); `None` by default.
    #[must_use]
    pub(crate) fn get_return_consumed_capacity(&self) -> Option<&ReturnConsumedCapacity> {
        self.capacity.as_ref()
    }

    /// The client.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "AppTable", TABLE);
    /// let request = table.client().get_item().table_name(table.name());
    /// # let _ = request;
    /// ```
    #[must_use]
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The table's name.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// assert_eq!(dynamodb_mapper::ops::Table::new(&client(), "T", TABLE).name(), "T");
    /// ```
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The table's layout.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "T", TABLE);
    /// assert_eq!(table.schema().partition_key.name, "pk");
    /// ```
    #[must_use]
    pub fn schema(&self) -> TableSchema {
        self.schema
    }

    /// The retry policy every helper uses.
    #[must_use]
    pub(crate) fn get_retry_policy(&self) -> RetryPolicy {
        self.retry
    }

    /// The bound of a helper call starting now (or of the one this table
    /// was [`started`](Self::started) for), measured with the client's
    /// async sleep.
    pub(crate) fn bound(&self) -> Bound {
        self.bound.clone().start()
    }

    /// Sends a request that may change the table, by `send` (one SDK
    /// attempt each), again when `resend` says so, within this table's bound
    /// and retry policy (see [`call_conditional`]).
    pub(crate) async fn send_conditional<T, E, F>(
        &self,
        operation: &'static str,
        resend: Resend,
        send: impl Fn(aws_sdk_dynamodb::config::Builder) -> F,
    ) -> std::result::Result<T, Failed<E>>
    where
        F: Future<Output = std::result::Result<T, SdkError<E, HttpResponse>>>,
        E: RefusedForNow,
        aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
    {
        let bound = self.bound();
        call_conditional(&bound, operation, self.get_retry_policy(), resend, send).await
    }

    /// The bound of each call, its deadline not started (for helpers that
    /// start it themselves: each page of a stream, each batch call).
    pub(crate) fn bound_unstarted(&self) -> Bound {
        self.bound.clone()
    }

    /// Waits `pause` with the client's sleep (pacing, not a retry).
    pub(crate) async fn pause_for(&self, pause: Duration) -> crate::Result<()> {
        self.bound.sleep(pause).await
    }

    /// The time now, from the client's time source.
    pub(crate) fn now(&self) -> std::time::SystemTime {
        self.bound.now()
    }

    /// This table with the deadline of a helper call started now: the
    /// helpers called through it share it (a helper made of helpers).
    pub(crate) fn started(&self) -> Table {
        Table {
            bound: self.bound(),
            ..self.clone()
        }
    }
}
