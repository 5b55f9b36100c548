//! Batch writes (25 per request) and gets (100 keys per request) that retry
//! what DynamoDB leaves unprocessed and hand back whatever could not be done.

use std::collections::HashSet;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    DeleteRequest, KeysAndAttributes, PutRequest, ReturnConsumedCapacity, WriteRequest,
};
use futures_util::stream::{self, StreamExt};
use tracing::Instrument;

use super::{RetryPolicy, is_retryable, key_fingerprint};
use crate::error::{Error, Result};
use crate::item::Item;
use crate::mapper::Mapper;
use crate::registry::{DecodedItems, Registry};
use crate::schema::TableSchema;

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

/// Writes and deletes items in batches of 25, several batches at a time,
/// retrying `UnprocessedItems` and throttling with bounded, jittered
/// exponential backoff.
///
/// Duplicate keys (which make DynamoDB reject the whole batch) are caught
/// before anything is sent. When retries run out, the error
/// ([`Error::BatchWriteIncomplete`]) carries every request that was not
/// written.
///
/// ```no_run
/// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, TableSchema, ops::BatchWriter};
/// # #[derive(serde::Serialize, serde::Deserialize)] struct Note { id: u32 }
/// # struct NoteMapper;
/// # impl Mapper for NoteMapper {
/// #     type Entity = Note;
/// #     const ENTITY_TYPE: &'static str = "Note";
/// #     const TABLE: TableSchema = TableSchema::new("pk");
/// #     fn after_to_item(n: &Note, item: &mut Item) -> dynamodb_mapper::Result<()> {
/// #         put_str(item, "pk", format!("NOTE#{}", n.id));
/// #         Ok(())
/// #     }
/// # }
/// # async fn demo(client: aws_sdk_dynamodb::Client) -> dynamodb_mapper::Result<()> {
/// let notes: Vec<Note> = (0..101).map(|id| Note { id }).collect();
/// let summary = BatchWriter::new(&client, "AppTable", NoteMapper::TABLE)
///     .put::<NoteMapper>(&notes)
///     .await?;
/// assert_eq!(summary.items, 101);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct BatchWriter {
    client: Client,
    table: String,
    schema: TableSchema,
    retry: RetryPolicy,
    concurrency: usize,
}

impl BatchWriter {
    /// A writer into `table`, laid out as `schema`; 4 concurrent batches and
    /// the default [`RetryPolicy`].
    ///
    /// ```
    /// # let conf = aws_sdk_dynamodb::Config::builder()
    /// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest()).build();
    /// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
    /// use dynamodb_mapper::{TableSchema, ops::BatchWriter};
    /// let writer = BatchWriter::new(&client, "AppTable", TableSchema::new("pk")).concurrency(8);
    /// ```
    #[must_use]
    pub fn new(client: &Client, table: impl Into<String>, schema: TableSchema) -> Self {
        BatchWriter {
            client: client.clone(),
            table: table.into(),
            schema,
            retry: RetryPolicy::default(),
            concurrency: 4,
        }
    }

    /// Sets the retry policy.
    ///
    /// ```
    /// # let conf = aws_sdk_dynamodb::Config::builder()
    /// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest()).build();
    /// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
    /// use dynamodb_mapper::{TableSchema, ops::{BatchWriter, RetryPolicy}};
    /// let writer = BatchWriter::new(&client, "T", TableSchema::new("pk")).retry(RetryPolicy::new(3));
    /// ```
    #[must_use]
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Sets how many batches are in flight at once (at least 1).
    ///
    /// ```
    /// # let conf = aws_sdk_dynamodb::Config::builder()
    /// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest()).build();
    /// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
    /// use dynamodb_mapper::{TableSchema, ops::BatchWriter};
    /// let writer = BatchWriter::new(&client, "T", TableSchema::new("pk")).concurrency(1);
    /// ```
    #[must_use]
    pub fn concurrency(mut self, batches: usize) -> Self {
        self.concurrency = batches.max(1);
        self
    }

    /// Puts entities through their mapper. Every entity is mapped (and
    /// checked) before anything is sent.
    ///
    /// # Errors
    /// Mapping errors; [`Error::DuplicateKey`]; [`Error::BatchWriteIncomplete`]
    /// with the unwritten requests.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::BatchWriter};
    /// # async fn demo<M: Mapper>(w: BatchWriter, entities: Vec<M::Entity>) -> dynamodb_mapper::Result<()> {
    /// w.put::<M>(&entities).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn put<M: Mapper>(&self, entities: &[M::Entity]) -> Result<BatchSummary> {
        let items = entities
            .iter()
            .map(M::to_item)
            .collect::<Result<Vec<_>>>()?;
        self.put_items(items).await
    }

    /// Puts items as they are.
    ///
    /// # Errors
    /// As [`BatchWriter::write`].
    ///
    /// ```no_run
    /// # async fn demo(w: dynamodb_mapper::ops::BatchWriter, items: Vec<dynamodb_mapper::Item>) -> dynamodb_mapper::Result<()> {
    /// w.put_items(items).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn put_items(&self, items: Vec<Item>) -> Result<BatchSummary> {
        let requests = items
            .into_iter()
            .map(|item| {
                PutRequest::builder()
                    .set_item(Some(item))
                    .build()
                    .map(|put| WriteRequest::builder().put_request(put).build())
                    .map_err(|e| Error::sdk("BatchWriteItem", e))
            })
            .collect::<Result<Vec<_>>>()?;
        self.write(requests).await
    }

    /// Deletes the items of these entities (their keys through the mapper).
    ///
    /// # Errors
    /// As [`BatchWriter::write`], and mapping errors.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::BatchWriter};
    /// # async fn demo<M: Mapper>(w: BatchWriter, entities: Vec<M::Entity>) -> dynamodb_mapper::Result<()> {
    /// w.delete::<M>(&entities).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn delete<M: Mapper>(&self, entities: &[M::Entity]) -> Result<BatchSummary> {
        let keys = entities.iter().map(M::key).collect::<Result<Vec<_>>>()?;
        self.delete_keys(keys).await
    }

    /// Deletes items by primary key.
    ///
    /// # Errors
    /// As [`BatchWriter::write`].
    ///
    /// ```no_run
    /// # async fn demo(w: dynamodb_mapper::ops::BatchWriter, keys: Vec<dynamodb_mapper::Item>) -> dynamodb_mapper::Result<()> {
    /// w.delete_keys(keys).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn delete_keys(&self, keys: Vec<Item>) -> Result<BatchSummary> {
        let requests = keys
            .into_iter()
            .map(|key| {
                DeleteRequest::builder()
                    .set_key(Some(key))
                    .build()
                    .map(|del| WriteRequest::builder().delete_request(del).build())
                    .map_err(|e| Error::sdk("BatchWriteItem", e))
            })
            .collect::<Result<Vec<_>>>()?;
        self.write(requests).await
    }

    /// Sends write requests (puts and deletes) in batches of 25.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] when a request lacks its key;
    /// [`Error::DuplicateKey`] when two requests address one item (nothing is
    /// sent); [`Error::BatchWriteIncomplete`] with every request not written
    /// when retries run out or DynamoDB refuses a batch.
    ///
    /// ```no_run
    /// # async fn demo(w: dynamodb_mapper::ops::BatchWriter, reqs: Vec<aws_sdk_dynamodb::types::WriteRequest>) -> dynamodb_mapper::Result<()> {
    /// let summary = w.write(reqs).await?;
    /// println!("{} items in {} requests", summary.items, summary.requests);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn write(&self, requests: Vec<WriteRequest>) -> Result<BatchSummary> {
        let span = tracing::info_span!(
            "dynamodb_mapper.batch_write",
            table = %self.table,
            items = requests.len(),
            requests = tracing::field::Empty,
            retries = tracing::field::Empty,
            consumed_capacity = tracing::field::Empty,
        );
        async move {
            let mut seen = HashSet::with_capacity(requests.len());
            for request in &requests {
                let key = match (&request.put_request, &request.delete_request) {
                    (Some(put), _) => self.schema.key_of(&put.item)?,
                    (None, Some(del)) => self.schema.key_of(&del.key)?,
                    (None, None) => {
                        return Err(Error::invalid_value(
                            "(write request)",
                            "has neither a put nor a delete request",
                        ));
                    }
                };
                if !seen.insert(key_fingerprint(&key)) {
                    return Err(Error::DuplicateKey {
                        operation: "BatchWriteItem",
                        key: super::describe_key(&key),
                    });
                }
            }
            let total = requests.len();
            let mut chunks: Vec<Vec<WriteRequest>> = Vec::new();
            let mut it = requests.into_iter().peekable();
            while it.peek().is_some() {
                chunks.push(it.by_ref().take(BATCH_WRITE_LIMIT).collect());
            }
            let outcomes: Vec<ChunkOutcome<WriteRequest>> = stream::iter(chunks)
                .map(|chunk| self.write_chunk(chunk))
                .buffer_unordered(self.concurrency)
                .collect()
                .await;
            let (summary, unprocessed, attempts, source) = merge(outcomes);
            let span = tracing::Span::current();
            span.record("requests", summary.requests);
            span.record("retries", summary.retries);
            span.record("consumed_capacity", summary.consumed_capacity);
            if unprocessed.is_empty() {
                Ok(BatchSummary {
                    items: total,
                    ..summary
                })
            } else {
                tracing::warn!(unwritten = unprocessed.len(), "batch write incomplete");
                Err(Error::BatchWriteIncomplete {
                    table: self.table.clone(),
                    written: total - unprocessed.len(),
                    unprocessed,
                    attempts,
                    source,
                })
            }
        }
        .instrument(span)
        .await
    }

    async fn write_chunk(&self, mut pending: Vec<WriteRequest>) -> ChunkOutcome<WriteRequest> {
        let mut summary = BatchSummary::default();
        let mut attempt = 0;
        loop {
            attempt += 1;
            summary.requests += 1;
            let sent = self
                .client
                .batch_write_item()
                .request_items(self.table.clone(), pending.clone())
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await;
            match sent {
                Ok(out) => {
                    summary.consumed_capacity += out
                        .consumed_capacity()
                        .iter()
                        .filter_map(|c| c.capacity_units())
                        .sum::<f64>();
                    pending = out
                        .unprocessed_items
                        .and_then(|mut m| m.remove(&self.table))
                        .unwrap_or_default();
                    if pending.is_empty() {
                        return ChunkOutcome::done(summary);
                    }
                    if attempt >= self.retry.max_attempts() {
                        return ChunkOutcome::failed(summary, pending, attempt, None);
                    }
                    tracing::debug!(
                        unprocessed = pending.len(),
                        attempt,
                        "retrying unprocessed items"
                    );
                }
                Err(err) => {
                    let err = aws_sdk_dynamodb::Error::from(err);
                    if !is_retryable(&err) || attempt >= self.retry.max_attempts() {
                        return ChunkOutcome::failed(summary, pending, attempt, Some(err));
                    }
                    tracing::debug!(error = %err, attempt, "retrying throttled batch");
                }
            }
            summary.retries += 1;
            tokio::time::sleep(self.retry.delay(attempt)).await;
        }
    }
}

struct ChunkOutcome<T> {
    summary: BatchSummary,
    unprocessed: Vec<T>,
    attempts: u32,
    source: Option<aws_sdk_dynamodb::Error>,
}

impl<T> ChunkOutcome<T> {
    fn done(summary: BatchSummary) -> Self {
        ChunkOutcome {
            summary,
            unprocessed: Vec::new(),
            attempts: 0,
            source: None,
        }
    }

    fn failed(
        summary: BatchSummary,
        unprocessed: Vec<T>,
        attempts: u32,
        source: Option<aws_sdk_dynamodb::Error>,
    ) -> Self {
        ChunkOutcome {
            summary,
            unprocessed,
            attempts,
            source,
        }
    }
}

type Merged<T> = (
    BatchSummary,
    Vec<T>,
    u32,
    Option<Box<aws_sdk_dynamodb::Error>>,
);

fn merge<T>(outcomes: Vec<ChunkOutcome<T>>) -> Merged<T> {
    let mut summary = BatchSummary::default();
    let mut unprocessed = Vec::new();
    let mut attempts = 0;
    let mut source = None;
    for o in outcomes {
        summary.add(&o.summary);
        unprocessed.extend(o.unprocessed);
        attempts = attempts.max(o.attempts);
        if source.is_none() {
            source = o.source.map(Box::new);
        }
    }
    (summary, unprocessed, attempts, source)
}

/// Reads items by key in batches of 100, several batches at a time,
/// retrying `UnprocessedKeys` and throttling with bounded, jittered backoff.
///
/// ```no_run
/// # use dynamodb_mapper::{Mapper, TableSchema, ops::BatchGetter};
/// # async fn demo<M: Mapper>(client: aws_sdk_dynamodb::Client, keys: Vec<dynamodb_mapper::Item>) -> dynamodb_mapper::Result<()> {
/// let entities = BatchGetter::new(&client, "AppTable", M::TABLE)
///     .consistent_read(true)
///     .get::<M>(keys)
///     .await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct BatchGetter {
    client: Client,
    table: String,
    schema: TableSchema,
    retry: RetryPolicy,
    concurrency: usize,
    consistent_read: bool,
}

impl BatchGetter {
    /// A reader of `table`, laid out as `schema`.
    ///
    /// ```
    /// # let conf = aws_sdk_dynamodb::Config::builder()
    /// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest()).build();
    /// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
    /// use dynamodb_mapper::{TableSchema, ops::BatchGetter};
    /// let getter = BatchGetter::new(&client, "AppTable", TableSchema::new("pk"));
    /// ```
    #[must_use]
    pub fn new(client: &Client, table: impl Into<String>, schema: TableSchema) -> Self {
        BatchGetter {
            client: client.clone(),
            table: table.into(),
            schema,
            retry: RetryPolicy::default(),
            concurrency: 4,
            consistent_read: false,
        }
    }

    /// Sets the retry policy.
    ///
    /// ```
    /// # let conf = aws_sdk_dynamodb::Config::builder()
    /// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest()).build();
    /// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
    /// use dynamodb_mapper::{TableSchema, ops::{BatchGetter, RetryPolicy}};
    /// let g = BatchGetter::new(&client, "T", TableSchema::new("pk")).retry(RetryPolicy::new(2));
    /// ```
    #[must_use]
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Sets how many batches are in flight at once (at least 1).
    ///
    /// ```
    /// # let conf = aws_sdk_dynamodb::Config::builder()
    /// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest()).build();
    /// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
    /// use dynamodb_mapper::{TableSchema, ops::BatchGetter};
    /// let g = BatchGetter::new(&client, "T", TableSchema::new("pk")).concurrency(2);
    /// ```
    #[must_use]
    pub fn concurrency(mut self, batches: usize) -> Self {
        self.concurrency = batches.max(1);
        self
    }

    /// Asks for strongly consistent reads.
    ///
    /// ```
    /// # let conf = aws_sdk_dynamodb::Config::builder()
    /// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest()).build();
    /// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
    /// use dynamodb_mapper::{TableSchema, ops::BatchGetter};
    /// let g = BatchGetter::new(&client, "T", TableSchema::new("pk")).consistent_read(true);
    /// ```
    #[must_use]
    pub fn consistent_read(mut self, yes: bool) -> Self {
        self.consistent_read = yes;
        self
    }

    /// Reads and decodes the items of `keys` through `M` (missing items are
    /// simply absent; order is not kept).
    ///
    /// # Errors
    /// As [`BatchGetter::get_items`], and decoding errors.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::BatchGetter};
    /// # async fn demo<M: Mapper>(g: BatchGetter, keys: Vec<dynamodb_mapper::Item>) -> dynamodb_mapper::Result<()> {
    /// let found: Vec<M::Entity> = g.get::<M>(keys).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get<M: Mapper>(&self, keys: Vec<Item>) -> Result<Vec<M::Entity>> {
        let (items, _) = self.get_items(keys).await?;
        items.into_iter().map(M::from_item).collect()
    }

    /// Reads the items of `keys` and decodes them through `registry`: mixed
    /// entity types in one batch, with the registry's policies for unknown or
    /// missing types (what it skipped or kept raw is in the result).
    ///
    /// # Errors
    /// As [`BatchGetter::get_items`], and decoding errors.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Registry, ops::BatchGetter};
    /// # async fn demo(g: BatchGetter, registry: Registry<String>, keys: Vec<dynamodb_mapper::Item>) -> dynamodb_mapper::Result<()> {
    /// let decoded = g.get_with(&registry, keys).await?;
    /// assert!(decoded.is_complete());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get_with<T>(
        &self,
        registry: &Registry<T>,
        keys: Vec<Item>,
    ) -> Result<DecodedItems<T>> {
        let (items, _) = self.get_items(keys).await?;
        registry.decode_all(items)
    }

    /// Reads the items of `keys` as they are, with a summary.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] for a key that does not fit the schema;
    /// [`Error::DuplicateKey`] (DynamoDB rejects duplicates; nothing is sent);
    /// [`Error::BatchGetIncomplete`] with the keys not read when retries run
    /// out or DynamoDB refuses a batch.
    ///
    /// ```no_run
    /// # async fn demo(g: dynamodb_mapper::ops::BatchGetter, keys: Vec<dynamodb_mapper::Item>) -> dynamodb_mapper::Result<()> {
    /// let (items, summary) = g.get_items(keys).await?;
    /// assert_eq!(items.len(), summary.items);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get_items(&self, keys: Vec<Item>) -> Result<(Vec<Item>, BatchSummary)> {
        let span = tracing::info_span!(
            "dynamodb_mapper.batch_get",
            table = %self.table,
            keys = keys.len(),
            requests = tracing::field::Empty,
            retries = tracing::field::Empty,
            consumed_capacity = tracing::field::Empty,
        );
        async move {
            let mut seen = HashSet::with_capacity(keys.len());
            let mut checked = Vec::with_capacity(keys.len());
            for key in keys {
                let key = self.schema.key_of(&key)?;
                if !seen.insert(key_fingerprint(&key)) {
                    return Err(Error::DuplicateKey {
                        operation: "BatchGetItem",
                        key: super::describe_key(&key),
                    });
                }
                checked.push(key);
            }
            let mut chunks: Vec<Vec<Item>> = Vec::new();
            let mut it = checked.into_iter().peekable();
            while it.peek().is_some() {
                chunks.push(it.by_ref().take(BATCH_GET_LIMIT).collect());
            }
            let results: Vec<(Vec<Item>, ChunkOutcome<Item>)> = stream::iter(chunks)
                .map(|chunk| self.get_chunk(chunk))
                .buffer_unordered(self.concurrency)
                .collect()
                .await;
            let mut items = Vec::new();
            let mut outcomes = Vec::with_capacity(results.len());
            for (found, outcome) in results {
                items.extend(found);
                outcomes.push(outcome);
            }
            let (mut summary, unprocessed, attempts, source) = merge(outcomes);
            summary.items = items.len();
            let span = tracing::Span::current();
            span.record("requests", summary.requests);
            span.record("retries", summary.retries);
            span.record("consumed_capacity", summary.consumed_capacity);
            if unprocessed.is_empty() {
                Ok((items, summary))
            } else {
                Err(Error::BatchGetIncomplete {
                    table: self.table.clone(),
                    read: items,
                    unprocessed,
                    attempts,
                    source,
                })
            }
        }
        .instrument(span)
        .await
    }

    async fn get_chunk(&self, mut pending: Vec<Item>) -> (Vec<Item>, ChunkOutcome<Item>) {
        let mut found = Vec::new();
        let mut summary = BatchSummary::default();
        let mut attempt = 0;
        loop {
            attempt += 1;
            summary.requests += 1;
            let request = match KeysAndAttributes::builder()
                .set_keys(Some(pending.clone()))
                .consistent_read(self.consistent_read)
                .build()
            {
                Ok(r) => r,
                Err(e) => {
                    // Unreachable: the only required field (keys) is set.
                    tracing::error!(error = %e, "cannot build a batch get request");
                    return (found, ChunkOutcome::failed(summary, pending, attempt, None));
                }
            };
            let sent = self
                .client
                .batch_get_item()
                .request_items(self.table.clone(), request)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send()
                .await;
            match sent {
                Ok(out) => {
                    summary.consumed_capacity += out
                        .consumed_capacity()
                        .iter()
                        .filter_map(|c| c.capacity_units())
                        .sum::<f64>();
                    if let Some(mut responses) = out.responses {
                        found.extend(responses.remove(&self.table).unwrap_or_default());
                    }
                    pending = out
                        .unprocessed_keys
                        .and_then(|mut m| m.remove(&self.table))
                        .map(|k| k.keys)
                        .unwrap_or_default();
                    if pending.is_empty() {
                        return (found, ChunkOutcome::done(summary));
                    }
                    if attempt >= self.retry.max_attempts() {
                        return (found, ChunkOutcome::failed(summary, pending, attempt, None));
                    }
                }
                Err(err) => {
                    let err = aws_sdk_dynamodb::Error::from(err);
                    if !is_retryable(&err) || attempt >= self.retry.max_attempts() {
                        return (
                            found,
                            ChunkOutcome::failed(summary, pending, attempt, Some(err)),
                        );
                    }
                }
            }
            summary.retries += 1;
            tokio::time::sleep(self.retry.delay(attempt)).await;
        }
    }
}
