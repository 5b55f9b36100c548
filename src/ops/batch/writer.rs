//! Batch writes: 25 requests per `BatchWriteItem`, several in flight, with
//! unprocessed items and throttling retried and everything accounted for.

use std::collections::{HashMap, HashSet};
use std::future::Future;

use aws_sdk_dynamodb::error::BuildError;
use aws_sdk_dynamodb::operation::batch_write_item::{BatchWriteItemError, BatchWriteItemOutput};
use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest, PutRequest, WriteRequest};
use tracing::Instrument;

use super::run::{Batch, Job, Listing, Sorted, locate, run};
use super::{BATCH_WRITE_LIMIT, BatchSummary, Entry};
use crate::check::{self, WriteRules};
use crate::describe::describe_key;
use crate::error::{Error, Result, Unwritten};
use crate::item::Item;
use crate::mapper::{Mapper, MapperExt};
use crate::ops::Table;
use crate::ops::call::{Failed, call, one_attempt};
use crate::ops::identity::KeyId;
use crate::ops::unique::unique_refusal;
use crate::ops::versioned::first_version;
use crate::schema::TableSchema;

const OPERATION: &str = "BatchWriteItem";

/// What to use instead of a batch for an entity with unique constraints.
const UNIQUE_INSTEAD: &str = "a transaction (Transaction::put_new, put_record, delete_record) or \
                              the locking helpers, which write the sentinels with the entity";

/// Writes and deletes items in batches of 25, several batches at a time,
/// retrying `UnprocessedItems` and throttling with bounded, jittered
/// exponential backoff.
///
/// What it guarantees:
/// - Every request is checked before anything is sent: its key fits the
///   schema, and no two requests address one item (keys compared as
///   DynamoDB compares them: `N("1")` and `N("1.0")` are one item).
/// - Every entry DynamoDB hands back as unprocessed is matched to a request
///   sent (by table and full key) and retried; an entry that matches none stops
///   the batch with
///   [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse) as
///   the cause.
/// - It stops sending at the first error that retrying cannot fix, and its
///   [`ErrorKind::BatchWriteIncomplete`](crate::ErrorKind::BatchWriteIncomplete) error
///   accounts for every request ([`Unwritten`]): written, certainly
///   not written (unprocessed), or in doubt (sent, no credible answer).
/// - Every call is bounded in time (see
///   [`Table::deadline`](crate::ops::Table::deadline)).
///
/// What it refuses: entities of a table with a version attribute. A batch
/// write cannot carry a condition, so it would overwrite newer versions
/// unchecked; use [`Table::put_record`](crate::ops::Table::put_record) or a
/// [`Transaction`](crate::ops::Transaction), or opt out by name with
/// [`import`](Self::import) to load data.
///
/// ```no_run
/// # use dynamodb_mapper_support::doc::*;
/// # use dynamodb_mapper::ops::BatchWriter;
/// # async fn demo(client: aws_sdk_dynamodb::Client) -> dynamodb_mapper::Result<()> {
/// let notes: Vec<Note> = (0..101).map(|id| Note { id, text: "hi".into() }).collect();
/// let summary = dynamodb_mapper::ops::Table::new(&client, "AppTable", NoteMapper::SCHEMA).batch_writer()
///     .put::<NoteMapper>(&notes)
///     .await?;
/// assert_eq!(summary.items, 101);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct BatchWriter {
    batch: Batch,
    import: bool,
}

impl Table {
    /// A batch writer into this table (4 batches in flight).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let writer = dynamodb_mapper::ops::Table::new(&client(), "T", TABLE).batch_writer();
    /// # let _ = writer;
    /// ```
    pub fn batch_writer(&self) -> BatchWriter {
        BatchWriter {
            batch: Batch::of(self),
            import: false,
        }
    }
}

impl BatchWriter {
    /// Sets how many batches are in flight at once (at least 1).
    ///
    /// ```
    /// # let client = dynamodb_mapper_support::doc::client();
    /// use dynamodb_mapper::{TableSchema, ops::BatchWriter};
    /// let writer = dynamodb_mapper::ops::Table::new(&client, "T", TableSchema::new("pk")).batch_writer().concurrency(1);
    /// ```
    #[must_use]
    pub fn concurrency(mut self, batches: usize) -> Self {
        self.batch.concurrency = batches.max(1);
        self
    }

    /// Opts out of the version check, by name: this writer loads data into a
    /// table with a version attribute, overwriting and deleting whatever is
    /// stored at the keys it writes. Each put item that holds no version gets
    /// a first version (a new incarnation: a writer holding a version read
    /// before the import gets a version conflict, never overwrites it).
    ///
    /// ```
    /// # let client = dynamodb_mapper_support::doc::client();
    /// use dynamodb_mapper::{TableSchema, ops::BatchWriter};
    /// let schema = TableSchema::new("pk").version("version");
    /// let loader = dynamodb_mapper::ops::Table::new(&client, "AppTable", schema).batch_writer().import();
    /// ```
    #[must_use]
    pub fn import(mut self) -> Self {
        self.import = true;
        self
    }

    /// Puts entities through their mapper. Every entity is mapped (and
    /// checked) before anything is sent.
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// Mapping errors;
    /// [`ErrorKind::VersionCheckRequired`](crate::ErrorKind::VersionCheckRequired)
    /// for a versioned entity (unless [`import`](Self::import));
    /// [`ErrorKind::UniqueCheckRequired`](crate::ErrorKind::UniqueCheckRequired)
    /// for an entity with unique constraints (a batch cannot keep their
    /// sentinels: use transactions); as [`write`](Self::write).
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, MapperExt, ops::BatchWriter};
    /// # async fn demo<M: Mapper>(w: BatchWriter, entities: Vec<M::Entity>) -> dynamodb_mapper::Result<()> {
    /// w.put::<M>(&entities).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn put<M: Mapper>(&self, entities: &[M::Entity]) -> Result<BatchSummary> {
        let versioned = M::SCHEMA.version.is_some();
        let items = entities
            .iter()
            .map(|e| {
                let item = M::to_item(e)?;
                if let Some(refused) = unique_refusal::<M>(&item, "batch put", UNIQUE_INSTEAD) {
                    return Err(refused);
                }
                if versioned && !self.import {
                    let key = M::SCHEMA.key_of(&item)?;
                    return Err(self
                        .refusal(&key, "batch put", M::SCHEMA)
                        .with_entity_type(M::ENTITY_TYPE));
                }
                Ok(item)
            })
            .collect::<Result<Vec<_>>>()?;
        // `to_item` ran the write checks.
        self.write_requests(put_requests(items)?, true).await
    }

    /// Puts items as they are (after the write checks, see
    /// [`write`](Self::write)).
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// As [`write`](Self::write).
    ///
    /// ```no_run
    /// # async fn demo(w: dynamodb_mapper::ops::BatchWriter, items: Vec<dynamodb_mapper::Item>) -> dynamodb_mapper::Result<()> {
    /// w.put_items(items).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn put_items(&self, items: Vec<Item>) -> Result<BatchSummary> {
        self.write(put_requests(items)?).await
    }

    /// Deletes the items at these primary keys, as `M`'s items (the same
    /// argument as [`Transaction::delete`](crate::ops::Transaction::delete):
    /// build a key with [`MapperExt::key`](crate::MapperExt::key) or a
    /// [`Lookup`](crate::Lookup)).
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// [`ErrorKind::VersionCheckRequired`](crate::ErrorKind::VersionCheckRequired)
    /// for a versioned entity (unless [`import`](Self::import));
    /// [`ErrorKind::UniqueCheckRequired`](crate::ErrorKind::UniqueCheckRequired)
    /// for an entity with unique constraints; as [`write`](Self::write).
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, MapperExt, ops::BatchWriter};
    /// # async fn demo<M: Mapper>(w: BatchWriter, entities: Vec<M::Entity>) -> dynamodb_mapper::Result<()> {
    /// let keys = entities.iter().map(M::key).collect::<dynamodb_mapper::Result<Vec<_>>>()?;
    /// w.delete::<M>(keys).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn delete<M: Mapper>(&self, keys: Vec<Item>) -> Result<BatchSummary> {
        if let Some(refused) = keys
            .first()
            .and_then(|key| unique_refusal::<M>(key, "batch delete", UNIQUE_INSTEAD))
        {
            return Err(refused);
        }
        if M::SCHEMA.version.is_some()
            && !self.import
            && let Some(key) = keys.first()
        {
            return Err(self
                .refusal(key, "batch delete", M::SCHEMA)
                .with_entity_type(M::ENTITY_TYPE));
        }
        self.delete_keys(keys).await
    }

    /// Deletes items by primary key.
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// As [`write`](Self::write).
    ///
    /// ```no_run
    /// # async fn demo(w: dynamodb_mapper::ops::BatchWriter, keys: Vec<dynamodb_mapper::Item>) -> dynamodb_mapper::Result<()> {
    /// w.delete_keys(keys).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn delete_keys(&self, keys: Vec<Item>) -> Result<BatchSummary> {
        let requests = requests(keys, |key| {
            let delete = DeleteRequest::builder().set_key(Some(key)).build()?;
            Ok(WriteRequest::builder().delete_request(delete).build())
        })?;
        self.write(requests).await
    }

    /// Sends write requests (puts and deletes) in batches of 25.
    ///
    /// Every put's item goes through the write checks first (the table
    /// layout of the writer's schema, values as DynamoDB checks them, item
    /// size), so an item DynamoDB would reject cannot fail a batch after
    /// other batches were written.
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// Before anything is sent:
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) when a request
    /// lacks its key, holds neither a put nor a delete, or a put's item does
    /// not fit the schema's keys;
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) or
    /// [`ErrorKind::ItemTooLarge`](crate::ErrorKind::ItemTooLarge) for a put's
    /// item DynamoDB would reject;
    /// [`ErrorKind::DuplicateKey`](crate::ErrorKind::DuplicateKey) when two
    /// requests address one item;
    /// [`ErrorKind::VersionCheckRequired`](crate::ErrorKind::VersionCheckRequired)
    /// when the schema has a version attribute (unless
    /// [`import`](Self::import)). After:
    /// [`ErrorKind::BatchWriteIncomplete`](crate::ErrorKind::BatchWriteIncomplete) with
    /// every request not written, or in doubt, and the cause (see
    /// [`Error::into_unwritten`]).
    ///
    /// ```no_run
    /// # async fn demo(w: dynamodb_mapper::ops::BatchWriter, reqs: Vec<aws_sdk_dynamodb::types::WriteRequest>) -> dynamodb_mapper::Result<()> {
    /// let summary = w.write(reqs).await?;
    /// println!("{} items in {} requests", summary.items, summary.requests);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn write(&self, requests: Vec<WriteRequest>) -> Result<BatchSummary> {
        self.write_requests(requests, false).await
    }

    /// [`write`](Self::write), with the put items' write checks skipped when
    /// `items_checked` (they came from `to_item`).
    async fn write_requests(
        &self,
        requests: Vec<WriteRequest>,
        items_checked: bool,
    ) -> Result<BatchSummary> {
        let span = tracing::info_span!(
            "dynamodb_mapper.batch_write",
            table = self.batch.table.name(),
            items = requests.len(),
            requests = tracing::field::Empty,
            retries = tracing::field::Empty,
            consumed_capacity = tracing::field::Empty,
        );
        let recorder = span.clone();
        async move {
            let entries = self.check(requests, items_checked)?;
            // The deadline counts from here, for every chunk and retry.
            let job = Self {
                batch: self.batch.started(),
                ..self.clone()
            };
            let out = run(&job, entries, &recorder).await;
            if out.unprocessed.is_empty() && out.in_doubt.is_empty() {
                return Ok(out.summary);
            }
            tracing::warn!(
                unwritten = out.unprocessed.len(),
                in_doubt = out.in_doubt.len(),
                "batch write incomplete"
            );
            let unwritten = Unwritten {
                written: out.done,
                unprocessed: out.unprocessed,
                in_doubt: out.in_doubt,
            };
            Err(Error::batch_write_incomplete(
                self.batch.table.name().to_owned(),
                unwritten,
                out.attempts,
                out.cause,
            ))
        }
        .instrument(span)
        .await
    }

    /// The one pass every request goes through before anything is sent:
    /// the write checks of a put's item (unless `items_checked`), key,
    /// duplicates, version policy (and, importing, a first version).
    fn check(
        &self,
        requests: Vec<WriteRequest>,
        items_checked: bool,
    ) -> Result<Vec<Entry<WriteRequest>>> {
        let mut seen = HashSet::with_capacity(requests.len());
        let mut entries = Vec::with_capacity(requests.len());
        for mut request in requests {
            let key = request_key(&self.batch.table.schema(), &request)?;
            if !self.import && self.batch.table.schema().version.is_some() {
                let operation = if request.put_request.is_some() {
                    "batch put"
                } else {
                    "batch delete"
                };
                return Err(self.refusal(&key, operation, self.batch.table.schema()));
            }
            // Importing, the first version goes in before the checks: the
            // item sent is the item checked.
            let mut versioned = false;
            if let (Some(attr), Some(put)) = (
                self.batch.table.schema().version,
                request.put_request.as_mut(),
            ) && !put.item.contains_key(attr)
            {
                put.item.insert(
                    attr.to_owned(),
                    AttributeValue::N(first_version(self.batch.table.now()).to_string()),
                );
                versioned = true;
            }
            if let Some(put) = &request.put_request {
                let checked = match (items_checked, versioned) {
                    (false, _) => {
                        check::write(&put.item, WriteRules::raw(&self.batch.table.schema()))
                    }
                    // Checked by `to_item`; only the version is new.
                    (true, true) => check::size(&put.item),
                    (true, false) => Ok(()),
                };
                checked.map_err(|e| e.with_key(|| describe_key(&key)))?;
            }
            let id = KeyId::of(&key);
            if !seen.insert(id.clone()) {
                return Err(Error::duplicate_key(OPERATION, describe_key(&key)));
            }
            entries.push(Entry {
                request,
                id,
                maybe_applied: false,
            });
        }
        Ok(entries)
    }

    fn refusal(&self, key: &Item, operation: &'static str, schema: TableSchema) -> Error {
        let instead = if operation == "batch put" {
            "Table::put_record or Transaction::put_record (or BatchWriter::import to load data)"
        } else {
            "Table::delete_record or Transaction::delete_record (or BatchWriter::import)"
        };
        let attribute = schema.version.unwrap_or_default();
        Error::version_check_required(describe_key(key), operation, attribute, instead)
    }
}

impl Job for BatchWriter {
    type Request = WriteRequest;
    type Error = BatchWriteItemError;
    type Response = BatchWriteItemOutput;
    const OPERATION: &'static str = OPERATION;
    const CHUNK: usize = BATCH_WRITE_LIMIT;

    fn batch(&self) -> &Batch {
        &self.batch
    }

    fn send(
        &self,
        requests: Vec<WriteRequest>,
    ) -> impl Future<Output = std::result::Result<BatchWriteItemOutput, Failed<BatchWriteItemError>>>
    + Send {
        let request = self
            .batch
            .table
            .client()
            .batch_write_item()
            .request_items(self.batch.table.name(), requests)
            .set_return_consumed_capacity(self.batch.table.get_return_consumed_capacity().cloned())
            // One SDK attempt per send: the runner retries, and marks the
            // requests in doubt after any attempt that may have applied them.
            .customize()
            .config_override(one_attempt())
            .send();
        let bound = self.batch.table.bound();
        async move { call(&bound, OPERATION, request).await }
    }

    fn sort(
        &self,
        pending: &[Entry<WriteRequest>],
        mut response: BatchWriteItemOutput,
    ) -> std::result::Result<Sorted, String> {
        let capacity = response.consumed_capacity.take().unwrap_or_default();
        let again = listed(
            self.batch.table.name(),
            &self.batch.table.schema(),
            pending,
            response.unprocessed_items,
        )?;
        Ok(Sorted {
            again,
            found: Vec::new(),
            capacity,
        })
    }
}

/// Put requests for `items`.
fn put_requests(items: Vec<Item>) -> Result<Vec<WriteRequest>> {
    requests(items, |item| {
        let put = PutRequest::builder().set_item(Some(item)).build()?;
        Ok(WriteRequest::builder().put_request(put).build())
    })
}

/// A write request made by `make` of each of `items` (a put of an item, a
/// delete of a key).
fn requests(
    items: Vec<Item>,
    make: fn(Item) -> std::result::Result<WriteRequest, BuildError>,
) -> Result<Vec<WriteRequest>> {
    items
        .into_iter()
        .map(|item| make(item).map_err(|e| Error::sdk(OPERATION, e)))
        .collect()
}

/// The key of a write request, checked against the schema.
fn request_key(schema: &TableSchema, request: &WriteRequest) -> Result<Item> {
    match (&request.put_request, &request.delete_request) {
        (Some(put), None) => schema.key_of(&put.item),
        (None, Some(delete)) => schema.key_of(&delete.key),
        (Some(_), Some(_)) => Err(Error::invalid_key(
            schema.partition_key.name,
            "cannot be checked: the write request holds both a put and a delete",
        )),
        (None, None) => Err(Error::invalid_key(
            schema.partition_key.name,
            "cannot be checked: the write request holds neither a put nor a delete",
        )),
    }
}

/// Which of `pending` the response lists as unprocessed, or what makes the
/// response nonsense.
fn listed(
    table: &str,
    schema: &TableSchema,
    pending: &[Entry<WriteRequest>],
    unprocessed: Option<HashMap<String, Vec<WriteRequest>>>,
) -> std::result::Result<Vec<bool>, String> {
    const UNPROCESSED: Listing = Listing {
        field: "UnprocessedItems lists",
        entries: "requests",
        does: "write to",
    };
    let mut listed = vec![false; pending.len()];
    for (i, key, request) in locate(
        unprocessed,
        table,
        schema,
        pending,
        &UNPROCESSED,
        request_key,
    )? {
        let sent_put = pending[i].request.put_request.is_some();
        if sent_put != request.put_request.is_some() {
            return Err(format!(
                "UnprocessedItems lists a {} of {}, but the request held a {}",
                if sent_put { "delete" } else { "put" },
                describe_key(&key),
                if sent_put { "put" } else { "delete" },
            ));
        }
        listed[i] = true;
    }
    Ok(listed)
}
