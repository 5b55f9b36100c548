//! [`Table`]: where every helper starts. It holds the client, the table's
//! name and layout, and the options every helper shares (retry policy, call
//! bound), so each helper is a method with the same shape:
//! `table.helper::<Mapper>(what)`.

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use futures_util::Stream;

use super::DEFAULT_DEADLINE;
use super::RetryPolicy;
use super::batch::{BatchGetter, BatchWriter};
use super::call::{Bound, call_timeout};
use super::capacity;
use super::create::CreateTable;
use super::pages::Page;
use super::tx::Transaction;
use super::{lock, pages, update};
use crate::cursor::Cursors;
use crate::error::Result;
use crate::item::Item;
use crate::mapper::Mapper;
use crate::record::Record;
use crate::registry::{Decoded, Registry};
use crate::schema::TableSchema;

/// A table and the client to reach it: the one starting point of every
/// helper of [`ops`](super).
///
/// Options are set once here and hold for every helper started from it:
/// the [`RetryPolicy`] for throttling, unprocessed batch entries and version
/// conflicts, and the bound on each SDK call. Helpers take the mapper as a
/// type parameter and then what they work on: `table.put_versioned::<M>(&mut
/// record)`, `table.batch_writer().put::<M>(&entities)`,
/// `table.transaction()`.
///
/// ```
/// # use dynamodb_mapper::doc_support::*;
/// use std::time::Duration;
/// use dynamodb_mapper::ops::{RetryPolicy, Table};
///
/// let client = client();
/// let table = Table::new(&client, "AppTable", TABLE)
///     .retry(RetryPolicy::new(5))
///     .call_timeout(Duration::from_secs(5));
/// assert_eq!(table.name(), "AppTable");
/// assert_eq!(table.call_bound(), Duration::from_secs(5));
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
    /// retries as the client's retry configuration says
    /// ([`RetryPolicy::of_client`]), each call bounded by the client's
    /// operation timeout or [`DEFAULT_CALL_TIMEOUT`](super::DEFAULT_CALL_TIMEOUT),
    /// and each helper call by [`DEFAULT_DEADLINE`](super::DEFAULT_DEADLINE).
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
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
    /// # use dynamodb_mapper::doc_support::*;
    /// use dynamodb_mapper::ops::{RetryPolicy, Table};
    /// let table = Table::new(&client(), "AppTable", TABLE).retry(RetryPolicy::new(3));
    /// assert_eq!(table.retry_policy().max_attempts(), 3);
    /// ```
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Bounds each SDK call a helper makes (the SDK's own retries
    /// included), and each page of a stream: a call that runs out is an
    /// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) error. Overrides the
    /// client's operation timeout.
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// use std::time::Duration;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "AppTable", TABLE)
    ///     .call_timeout(Duration::from_millis(500));
    /// assert_eq!(table.call_bound(), Duration::from_millis(500));
    /// ```
    pub fn call_timeout(mut self, after: Duration) -> Self {
        self.bound = self.bound.with_after(after);
        self
    }

    /// Bounds each helper call as a whole: every attempt, retry and pause
    /// of one `put_versioned`, `update_with_retry`, batch write or get (of
    /// any size), transaction, ..., and each page of a stream. An attempt
    /// still waiting when it runs out is cut short and no attempt starts
    /// after it; the helper then returns what it knows: a batch its
    /// accounting (written, handed back, in doubt), a write
    /// [`ErrorKind::MaybeApplied`](crate::ErrorKind::MaybeApplied) when an
    /// attempt went unanswered, otherwise
    /// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout).
    /// [`DEFAULT_DEADLINE`](super::DEFAULT_DEADLINE) when not set. A large
    /// batch needs a deadline in proportion to its size.
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
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
    /// `.get_record`, `.put_versioned`, `.delete_versioned`,
    /// `.update_with_retry`, `.query`, `.scan`).
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
    /// use dynamodb_mapper::ops::Table;
    ///
    /// let table = Table::new(&client(), "AppTable", TABLE);
    /// assert_eq!(table.return_consumed_capacity(), None);
    /// assert_eq!(table.query().get_return_consumed_capacity(), &None);
    ///
    /// let table = table.consumed_capacity(ReturnConsumedCapacity::Indexes);
    /// assert_eq!(table.return_consumed_capacity(), Some(&ReturnConsumedCapacity::Indexes));
    /// assert_eq!(
    ///     table.query().get_return_consumed_capacity(),
    ///     &Some(ReturnConsumedCapacity::Indexes)
    /// );
    /// ```
    pub fn consumed_capacity(mut self, mode: ReturnConsumedCapacity) -> Self {
        self.capacity = capacity::normalize(mode);
        self
    }

    /// What the helpers ask DynamoDB to report of consumed capacity (see
    /// [`consumed_capacity`](Self::consumed_capacity)); `None` by default.
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "T", TABLE)
    ///     .consumed_capacity(ReturnConsumedCapacity::Total);
    /// assert_eq!(table.return_consumed_capacity(), Some(&ReturnConsumedCapacity::Total));
    /// let none = table.consumed_capacity(ReturnConsumedCapacity::None);
    /// assert_eq!(none.return_consumed_capacity(), None);
    /// ```
    #[must_use]
    pub fn return_consumed_capacity(&self) -> Option<&ReturnConsumedCapacity> {
        self.capacity.as_ref()
    }

    /// The client.
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
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
    /// # use dynamodb_mapper::doc_support::*;
    /// assert_eq!(dynamodb_mapper::ops::Table::new(&client(), "T", TABLE).name(), "T");
    /// ```
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The table's layout.
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "T", TABLE);
    /// assert_eq!(table.schema().partition_key_attribute().name, "pk");
    /// ```
    #[must_use]
    pub fn schema(&self) -> TableSchema {
        self.schema
    }

    /// The retry policy every helper uses.
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// use dynamodb_mapper::ops::{RetryPolicy, Table};
    /// let table = Table::new(&client(), "T", TABLE);
    /// assert_eq!(table.retry_policy(), RetryPolicy::default());
    /// ```
    #[must_use]
    pub fn retry_policy(&self) -> RetryPolicy {
        self.retry
    }

    /// How long each SDK call may take.
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "T", TABLE);
    /// assert_eq!(table.call_bound(), dynamodb_mapper::ops::DEFAULT_CALL_TIMEOUT);
    /// ```
    #[must_use]
    pub fn call_bound(&self) -> Duration {
        self.bound.after()
    }

    /// The bound of a helper call starting now (or of the one this table
    /// was [`started`](Self::started) for), measured with the client's
    /// async sleep.
    pub(crate) fn bound(&self) -> Bound {
        self.bound.clone().start()
    }

    /// The bound of each call, its deadline not started (for helpers that
    /// start it themselves: each page of a stream, each batch call).
    pub(crate) fn bound_unstarted(&self) -> Bound {
        self.bound.clone()
    }

    /// This table with the deadline of a helper call started now: the
    /// helpers called through it share it (a helper made of helpers).
    pub(crate) fn started(&self) -> Table {
        Table {
            bound: self.bound(),
            ..self.clone()
        }
    }

    /// Creates this table from its layout and gets it ready to use, when
    /// the returned [`CreateTable`] is sent: `CreateTable` (on-demand, every
    /// index projecting all attributes, a stream if
    /// [`stream`](CreateTable::stream) asks for one), then `DescribeTable`
    /// until the table and its indexes are `ACTIVE` (at most
    /// [`max_wait`](CreateTable::max_wait)), then `UpdateTimeToLive` when
    /// the layout declares a TTL attribute. A table of that name that
    /// exists already is an
    /// [`ErrorKind::TableExists`](crate::ErrorKind::TableExists) error; see
    /// [`CreateTable::send`] for every error.
    ///
    /// For the plain request, to send yourself, see
    /// [`TableSchema::create_table_request`]; for the JSON documents of
    /// infrastructure tools, [`TableDefinition`](crate::TableDefinition).
    ///
    /// ```
    /// # use aws_sdk_dynamodb::Client;
    /// # use aws_sdk_dynamodb::operation::create_table::CreateTableOutput;
    /// # use aws_sdk_dynamodb::operation::describe_table::DescribeTableOutput;
    /// # use aws_sdk_dynamodb::operation::update_time_to_live::UpdateTimeToLiveOutput;
    /// # use aws_sdk_dynamodb::types::{StreamSpecification, TableDescription, TableStatus};
    /// # use aws_smithy_mocks::{RuleMode, mock, mock_client};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # // A DynamoDB that creates tables active at once, with their stream.
    /// # let create = mock!(Client::create_table).then_output(|| CreateTableOutput::builder().build());
    /// # let describe = mock!(Client::describe_table).then_output(|| {
    /// #     let stream = StreamSpecification::builder()
    /// #         .stream_enabled(true)
    /// #         .stream_view_type(aws_sdk_dynamodb::types::StreamViewType::NewAndOldImages)
    /// #         .build()
    /// #         .unwrap();
    /// #     DescribeTableOutput::builder()
    /// #         .table(
    /// #             TableDescription::builder()
    /// #                 .table_name("Sessions")
    /// #                 .table_status(TableStatus::Active)
    /// #                 .stream_specification(stream)
    /// #                 .latest_stream_arn("arn:aws:dynamodb:eu-west-1:123456789012:table/Sessions/stream/2025-01-01T00:00:00.000")
    /// #                 .build(),
    /// #         )
    /// #         .build()
    /// # });
    /// # let ttl = mock!(Client::update_time_to_live).then_compute_output(|req| {
    /// #     UpdateTimeToLiveOutput::builder()
    /// #         .set_time_to_live_specification(req.time_to_live_specification().cloned())
    /// #         .build()
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&create, &describe, &ttl]);
    /// use aws_sdk_dynamodb::types::StreamViewType;
    /// use dynamodb_mapper::{TableSchema, ops::Table};
    ///
    /// const SESSIONS: TableSchema = TableSchema::new("pk").ttl("expiresAt");
    ///
    /// let created = Table::new(&client, "Sessions", SESSIONS)
    ///     .create_table()
    ///     .stream(StreamViewType::NewAndOldImages)
    ///     .send()
    ///     .await?;
    /// assert!(created.stream_arn().is_some());
    /// assert_eq!(created.time_to_live().map(|t| t.attribute_name()), Some("expiresAt"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn create_table(&self) -> CreateTable {
        CreateTable::new(self.clone())
    }

    /// A batch writer into this table (4 batches in flight).
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// let writer = dynamodb_mapper::ops::Table::new(&client(), "T", TABLE).batch_writer();
    /// # let _ = writer;
    /// ```
    pub fn batch_writer(&self) -> BatchWriter {
        BatchWriter::new(self.clone())
    }

    /// A batch reader of this table (4 batches in flight, eventually
    /// consistent reads).
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// let getter = dynamodb_mapper::ops::Table::new(&client(), "T", TABLE)
    ///     .batch_getter()
    ///     .consistent_read(true);
    /// # let _ = getter;
    /// ```
    pub fn batch_getter(&self) -> BatchGetter {
        BatchGetter::new(self.clone())
    }

    /// An empty write transaction on this table.
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// let tx = dynamodb_mapper::ops::Table::new(&client(), "T", TABLE).transaction();
    /// assert!(tx.is_empty());
    /// ```
    pub fn transaction(&self) -> Transaction {
        Transaction::new(self.clone())
    }

    /// Reads a record with a strongly consistent `GetItem`: the entity, its
    /// attribute bag and the version to write against.
    ///
    /// # Errors
    /// [`ErrorKind::Sdk`](crate::ErrorKind::Sdk) when the request fails;
    /// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) when no answer came
    /// in time;
    /// [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse)
    /// when the answer is an item of another key (or of no valid key);
    /// decoding errors.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Table};
    /// # async fn demo<M: Mapper>(table: Table, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
    /// if let Some(record) = table.get_record::<M>(key).await? {
    ///     println!("version {:?}", record.version);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get_record<M: Mapper>(&self, key: Item) -> Result<Option<Record<M::Entity>>> {
        lock::get_record::<M>(self, key).await
    }

    /// Writes a record only if the stored item is still as it was read, with
    /// the version advanced. On success the record holds the new version.
    ///
    /// What "as it was read" means:
    /// - a record read with version `v`: the stored version is still `v`; the
    ///   item is written with `v + 1`;
    /// - a record read from an item without a version (written before the
    ///   table was versioned): the item still exists and still has no
    ///   version; it is adopted with a first version;
    /// - a record never stored ([`Record::new`]): no item exists; it is
    ///   created with a first version.
    ///
    /// First versions never repeat across a delete and re-create: they come
    /// from the clock (microseconds since the epoch × 1024 plus a random part
    /// below 1024), so a writer still holding a version of a deleted item
    /// gets a conflict from the re-created one instead of overwriting it.
    ///
    /// # Errors
    /// [`ErrorKind::VersionConflict`](crate::ErrorKind::VersionConflict)
    /// naming the item's key when another writer got there first (nothing is
    /// written); mapping errors;
    /// [`ErrorKind::MaybeApplied`](crate::ErrorKind::MaybeApplied) naming the
    /// key when no credible answer came (a timeout, a dropped connection, an
    /// internal server error; the cause says which): the outcome is unknown
    /// (read the record again); [`ErrorKind::Sdk`](crate::ErrorKind::Sdk)
    /// when DynamoDB refused the request. Throttling is retried (the table's
    /// [`RetryPolicy`]); the SDK's own retries are off for this write,
    /// because a retry of a write whose answer was lost fails its own
    /// condition and would look like a conflict.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, Record, ops::Table};
    /// # async fn demo<M: Mapper>(table: Table, entity: M::Entity) -> dynamodb_mapper::Result<()> {
    /// let mut record = Record::new(entity);
    /// let first = table.put_versioned::<M>(&mut record).await?; // creates it
    /// let second = table.put_versioned::<M>(&mut record).await?;
    /// assert_eq!(second, first + 1);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn put_versioned<M: Mapper>(&self, record: &mut Record<M::Entity>) -> Result<u64> {
        lock::put_versioned::<M>(self, record).await
    }

    /// Deletes a record's item only if the stored version is still the one
    /// it was read with.
    ///
    /// # Errors
    /// [`ErrorKind::VersionConflict`](crate::ErrorKind::VersionConflict) when
    /// the item changed (or is gone) since it was read;
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) for a
    /// record never read from the table; timeouts and SDK errors as for
    /// [`put_versioned`](Self::put_versioned) (outcome unknown when no answer
    /// came).
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Table};
    /// # async fn demo<M: Mapper>(table: Table, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
    /// if let Some(record) = table.get_record::<M>(key).await? {
    ///     table.delete_versioned::<M>(&record).await?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn delete_versioned<M: Mapper>(&self, record: &Record<M::Entity>) -> Result<()> {
        lock::delete_versioned::<M>(self, record).await
    }

    /// Read-modify-write with optimistic locking: reads the record at `key`,
    /// applies `change` to it (the entity, and the bag of attributes the
    /// mapper does not own, e.g. for
    /// [`Timestamps`](crate::hooks::Timestamps)), writes it back
    /// version-checked, and on a conflict starts over, up to the table's
    /// [`RetryPolicy`] (with its jittered backoff between attempts). Unknown
    /// attributes survive through the record's bag.
    ///
    /// # Errors
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when no item
    /// exists at `key`; [`ErrorKind::VersionConflict`](crate::ErrorKind::VersionConflict)
    /// when every attempt conflicted; [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey)
    /// naming the key attribute when `change` altered the entity's key;
    /// errors from `change`; a timeout or SDK error when a write got no
    /// answer: then it is not retried (its change may have been applied, and
    /// applying it again would apply it twice), and the caller should read
    /// the record again.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Table};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Counter { id: String, count: u64 }
    /// # async fn demo<M: Mapper<Entity = Counter>>(table: Table, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
    /// use dynamodb_mapper::hooks::Timestamps;
    /// let record = table
    ///     .update_with_retry::<M, _>(key, |r| {
    ///         r.entity.count += 1;
    ///         Timestamps::DEFAULT.stamp(&mut r.bag, std::time::SystemTime::now())
    ///     })
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn update_with_retry<M, F>(&self, key: Item, change: F) -> Result<Record<M::Entity>>
    where
        M: Mapper,
        F: FnMut(&mut Record<M::Entity>) -> Result<()>,
    {
        lock::update_with_retry::<M, F>(self, key, change).await
    }

    /// Updates the item of `old` to `new` with one `UpdateItem`: the
    /// attributes that changed (maps member by member), the attributes that
    /// became absent removed, and every attribute the mapper derives (GSI
    /// keys, TTL, timestamps, discriminator) recomputed, as
    /// [`Update::between`](crate::expr::Update::between) builds it. Nothing
    /// is sent when nothing changed. The item must exist: an update never
    /// creates a partial item.
    ///
    /// For a table without a version attribute; a versioned entity is
    /// updated with [`update_versioned`](Self::update_versioned).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) naming the key
    /// attribute when `new` has another primary key;
    /// [`ErrorKind::VersionCheckRequired`](crate::ErrorKind::VersionCheckRequired)
    /// on a versioned table; [`ErrorKind::NotFound`](crate::ErrorKind::NotFound)
    /// when no item exists at the key (nothing written); mapping errors;
    /// timeouts and SDK errors as for [`put_versioned`](Self::put_versioned)
    /// (outcome unknown when no answer came).
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Table};
    /// # #[derive(Clone, serde::Serialize, serde::Deserialize)] struct Order { id: String, status: String }
    /// # async fn demo<M: Mapper<Entity = Order>>(table: Table, order: Order) -> dynamodb_mapper::Result<()> {
    /// let mut shipped = order.clone();
    /// shipped.status = "shipped".into();
    /// table.update_entity::<M>(&order, &shipped).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn update_entity<M: Mapper>(&self, old: &M::Entity, new: &M::Entity) -> Result<()> {
        update::update_entity::<M>(self, old, new).await
    }

    /// Updates a record's item to `new` with one `UpdateItem` that carries
    /// the version check and the version increment: the partial update of
    /// [`update_entity`](Self::update_entity) with the guarantees of
    /// [`put_versioned`](Self::put_versioned) (a stale record gets a
    /// conflict, nothing is written; an item written before versioning is
    /// adopted). On success the record holds `new` and the new version,
    /// which is returned. When nothing changed, nothing is written: one
    /// strongly consistent read of the version checks that the stored item
    /// is still the one read (the record's entity is then what is stored,
    /// at the version returned); a record gone stale is a conflict, never a
    /// silent success.
    ///
    /// Unlike `put_versioned`, attributes the record's bag holds are not
    /// written back (an update leaves them as they are stored).
    ///
    /// # Errors
    /// [`ErrorKind::VersionConflict`](crate::ErrorKind::VersionConflict)
    /// naming the key when the item changed since it was read;
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) naming the key
    /// attribute when `new` has another primary key;
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) for a
    /// table without a version attribute or a record never read; mapping
    /// errors; timeouts and SDK errors as for `put_versioned`.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Table};
    /// # #[derive(Clone, serde::Serialize, serde::Deserialize)] struct Order { id: String, status: String }
    /// # async fn demo<M: Mapper<Entity = Order>>(table: Table, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
    /// if let Some(mut record) = table.get_record::<M>(key).await? {
    ///     let mut shipped = record.entity.clone();
    ///     shipped.status = "shipped".into();
    ///     let version = table.update_versioned::<M>(&mut record, shipped).await?;
    ///     assert_eq!(record.version, Some(version));
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn update_versioned<M: Mapper>(
        &self,
        record: &mut Record<M::Entity>,
        new: M::Entity,
    ) -> Result<u64> {
        update::update_versioned::<M>(self, record, new).await
    }

    /// Adds `by` (negative to subtract) to the number attribute `attribute`
    /// of the item at `key` in one atomic `UpdateItem`, and returns the new
    /// value. When no item exists, it is created with the key, `attribute =
    /// by` and the discriminator; concurrent increments are never lost. On
    /// a versioned table the version moves on too (a writer holding the
    /// old version gets a conflict instead of overwriting the count).
    ///
    /// The item created holds only those attributes: use it for counter
    /// entities whose other fields are optional or derived from the key.
    /// An existing item of another entity type is not touched.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) naming the
    /// attribute, with nothing written: before sending, when it is a key,
    /// version or discriminator attribute, or a field a key pattern renders
    /// a key from (the index would keep the old value: change it with
    /// [`update_entity`](Self::update_entity) or
    /// [`update_with_retry`](Self::update_with_retry), which render the key
    /// again); after DynamoDB's refusal, when the item at `key` is of
    /// another entity type, the stored value is not a number, or the sum
    /// would leave the 64-bit integer range;
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) for a key that
    /// does not fit the table;
    /// [`ErrorKind::MaybeApplied`](crate::ErrorKind::MaybeApplied) naming the
    /// key when no credible answer came (a timeout, a dropped connection, a
    /// server error: the increment may have been applied, and is not sent
    /// again, as it would count twice), or when the answer holds no 64-bit
    /// integer (it was applied; a stored number with a fraction). Throttling
    /// is retried.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, MapperExt, ops::Table};
    /// # async fn demo<M: Mapper>(table: Table) -> dynamodb_mapper::Result<()> {
    /// let views = table.increment::<M>(M::string_key("PAGE#home", "STATS")?, "views", 1).await?;
    /// println!("{views} views");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn increment<M: Mapper>(&self, key: Item, attribute: &str, by: i64) -> Result<i64> {
        update::increment::<M>(self, key, attribute, by).await
    }

    /// Puts `entity` only if no item exists at its key; `true` when it was
    /// written, `false` when an item was already there (left as it was).
    /// On a versioned table the new item gets a first version.
    ///
    /// # Errors
    /// Mapping errors; timeouts and SDK errors as for
    /// [`put_versioned`](Self::put_versioned) (outcome unknown when no
    /// answer came: read the item to know).
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Table};
    /// # async fn demo<M: Mapper>(table: Table, entity: M::Entity) -> dynamodb_mapper::Result<()> {
    /// if !table.put_if_absent::<M>(&entity).await? {
    ///     println!("already there");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn put_if_absent<M: Mapper>(&self, entity: &M::Entity) -> Result<bool> {
        update::put_if_absent::<M>(self, entity).await
    }

    /// One page of `query`, starting after `cursor` (a token from the
    /// previous [`Page::next`](super::Page), `None` for the first page):
    /// its items decoded through `registry`, and the cursor of the next
    /// page, for a client to hand back. `cursors` must be for the query's
    /// table and index. Each token is bound to the query that issued it
    /// (a digest of its index, key condition, filter, their names and
    /// values, and its order): a token from another table, index or query
    /// (another partition, range or filter), unsigned when `cursors` are
    /// signed, or altered is refused before anything is sent. A page may be
    /// empty and still have a next cursor (see [`Page`](super::Page)).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidCursor`](crate::ErrorKind::InvalidCursor) for a
    /// refused token, `cursors` for another table or index than the
    /// query's, or a query with the legacy `KeyConditions` or `QueryFilter`
    /// parameters (a cursor cannot be bound to them); decoding errors as
    /// [`Registry::decode_all`] reports them;
    /// [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse)
    /// when DynamoDB's `LastEvaluatedKey` does not fit the table's keys, or
    /// is the key the page was asked from (a cursor to the same page);
    /// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) and
    /// [`ErrorKind::Sdk`](crate::ErrorKind::Sdk) as for any read.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::doc_support::*;
    /// use dynamodb_mapper::cursor::Cursors;
    /// # async fn demo(registry: Registry<Entity>, token_from_client: Option<String>) -> dynamodb_mapper::Result<()> {
    /// let table = table();
    /// let cursors = Cursors::new("AppTable", TABLE).signed_with(b"a secret of the server");
    /// let query = OrderMapper::lookup().with("customer", "C1").query(table.client(), "AppTable")?.limit(20);
    /// let page = table.query_page(query, &registry, &cursors, token_from_client.as_deref()).await?;
    /// // Hand `page.items.entities` and `page.next` to the client.
    /// # Ok(())
    /// # }
    /// ```
    pub async fn query_page<T>(
        &self,
        query: QueryFluentBuilder,
        registry: &Registry<T>,
        cursors: &Cursors,
        cursor: Option<&str>,
    ) -> Result<Page<T>> {
        pages::query_page(
            query,
            registry,
            cursors,
            cursor,
            self.bound(),
            self.capacity.clone(),
        )
        .await
    }

    /// A `Query` of this table, to complete with a key condition (and pass
    /// to [`query_stream`](Self::query_stream) or send yourself). It asks
    /// for consumed capacity when the table does
    /// ([`consumed_capacity`](Self::consumed_capacity)).
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "AppTable", TABLE);
    /// assert_eq!(table.query().get_table_name().as_deref(), Some("AppTable"));
    /// ```
    pub fn query(&self) -> QueryFluentBuilder {
        self.client
            .query()
            .table_name(&self.name)
            .set_return_consumed_capacity(self.capacity.clone())
    }

    /// A `Scan` of this table (asking for consumed capacity as
    /// [`query`](Self::query) does).
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "AppTable", TABLE);
    /// assert_eq!(table.scan().get_table_name().as_deref(), Some("AppTable"));
    /// ```
    pub fn scan(&self) -> ScanFluentBuilder {
        self.client
            .scan()
            .table_name(&self.name)
            .set_return_consumed_capacity(self.capacity.clone())
    }

    /// Runs a query page by page and decodes every item through `registry`,
    /// as a stream holding one page at a time. Skipped and raw items come
    /// out as [`Decoded::Skipped`] and [`Decoded::Raw`] (per the registry's
    /// policies), never silently dropped; a failed page request ends the
    /// stream with its error. Each page request is bounded by the table's
    /// [`call_bound`](Self::call_bound): a page that does not come in time
    /// ends the stream with an [`ErrorKind::Timeout`](crate::ErrorKind::Timeout)
    /// error. A page whose `LastEvaluatedKey` is the key it was asked from
    /// (the next page would be the same one) ends the stream, after its
    /// items, with an
    /// [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse)
    /// error: the read is not complete, and never ends quietly.
    ///
    /// The stream runs in a `dynamodb_mapper.query` tracing span (`pages`,
    /// `items`). When the table asks for consumed capacity and `query` does
    /// not set `ReturnConsumedCapacity` itself, every page asks for it; the
    /// running sum of what the pages report is the span's
    /// `consumed_capacity` field.
    ///
    /// ```no_run
    /// use futures_util::{StreamExt, pin_mut};
    /// use dynamodb_mapper::expr::{KeyCondition, KeyConditionExt};
    /// # use dynamodb_mapper::{Registry, ops::Table};
    /// # async fn demo(table: Table, registry: Registry<String>) -> dynamodb_mapper::Result<()> {
    /// let query = table
    ///     .query()
    ///     .with_key_condition(KeyCondition::new(table.schema(), "CUSTOMER#C1"))?;
    /// let stream = table.query_stream(query, &registry);
    /// pin_mut!(stream);
    /// while let Some(decoded) = stream.next().await {
    ///     if let Some(entity) = decoded?.into_entity() {
    ///         println!("{entity}");
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn query_stream<T: 'static>(
        &self,
        query: QueryFluentBuilder,
        registry: &Registry<T>,
    ) -> impl Stream<Item = Result<Decoded<T>>> + use<T> {
        pages::query_stream(
            query,
            registry,
            self.bound_unstarted(),
            self.capacity.clone(),
        )
    }

    /// Runs a scan page by page and decodes every item through `registry`,
    /// as a stream, exactly as [`query_stream`](Self::query_stream) does for
    /// queries (in a `dynamodb_mapper.scan` span).
    ///
    /// ```no_run
    /// use futures_util::TryStreamExt;
    /// # use dynamodb_mapper::{Registry, ops::Table};
    /// # async fn demo(table: Table, registry: Registry<String>) -> dynamodb_mapper::Result<()> {
    /// let all: Vec<_> = table.scan_stream(table.scan(), &registry).try_collect().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn scan_stream<T: 'static>(
        &self,
        scan: ScanFluentBuilder,
        registry: &Registry<T>,
    ) -> impl Stream<Item = Result<Decoded<T>>> + use<T> {
        pages::scan_stream(
            scan,
            registry,
            self.bound_unstarted(),
            self.capacity.clone(),
        )
    }
}
