//! Batch gets: 100 keys per `BatchGetItem`, several in flight, with
//! unprocessed keys and throttling retried and every key accounted for.

use std::collections::{HashMap, HashSet};
use std::future::Future;

use aws_sdk_dynamodb::operation::batch_get_item::{BatchGetItemError, BatchGetItemOutput};
use aws_sdk_dynamodb::types::KeysAndAttributes;
use tracing::Instrument;

use super::run::{Batch, Job, Listing, Sorted, locate, run};
use super::{BATCH_GET_LIMIT, BatchSummary, Entry};
use crate::describe::describe_key;
use crate::error::{Error, Result, Unread};
use crate::item::Item;
use crate::mapper::{Mapper, MapperExt};
use crate::ops::Table;
use crate::ops::call::{Failed, call, one_attempt};
use crate::ops::identity::KeyId;
use crate::registry::{Decoded, RawItem, Registry, Skipped};
use crate::schema::TableSchema;

const OPERATION: &str = "BatchGetItem";

/// What [`BatchGetter::get`] or [`BatchGetter::get_with`] read: the
/// entities that decoded, each item that did not (with its key and why) and,
/// through a registry, what its policies skipped or kept raw. Nothing read is
/// left out.
///
/// ```
/// let read = dynamodb_mapper::ops::BatchRead::<String>::default();
/// assert!(read.entities.is_empty() && read.is_complete());
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct BatchRead<E> {
    /// The entities read and decoded (order not kept).
    pub entities: Vec<E>,
    /// Items that were read but did not decode.
    pub failed: Vec<FailedItem>,
    /// Items a registry's policies skipped (always empty for
    /// [`BatchGetter::get`]).
    pub skipped: Vec<Skipped>,
    /// Items a registry's policies kept raw (always empty for
    /// [`BatchGetter::get`]).
    pub raw: Vec<RawItem>,
    /// Requests, retries and capacity.
    pub summary: BatchSummary,
}

impl<E> Default for BatchRead<E> {
    fn default() -> Self {
        BatchRead {
            entities: Vec::new(),
            failed: Vec::new(),
            skipped: Vec::new(),
            raw: Vec::new(),
            summary: BatchSummary::default(),
        }
    }
}

impl<E> BatchRead<E> {
    /// Whether every item read decoded: nothing failed, skipped or kept raw.
    ///
    /// ```
    /// assert!(dynamodb_mapper::ops::BatchRead::<u8>::default().is_complete());
    /// ```
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty() && self.skipped.is_empty() && self.raw.is_empty()
    }

    /// The entities, or the first decoding error. What a registry's policies
    /// skipped or kept raw is dropped here; read the fields to keep it.
    ///
    /// # Errors
    /// The error of the first item that did not decode.
    ///
    /// ```
    /// let read = dynamodb_mapper::ops::BatchRead::<u8>::default();
    /// assert!(read.into_entities()?.is_empty());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn into_entities(self) -> Result<Vec<E>> {
        match self.failed.into_iter().next() {
            Some(failed) => Err(failed.error),
            None => Ok(self.entities),
        }
    }
}

/// An item a helper could not do its work on, with its key and why: read
/// but not decoded ([`BatchRead::failed`]), or not changed by a
/// [backfill](crate::evolve::Backfill::failed).
///
/// ```
/// use dynamodb_mapper::{Error, Item, ops::FailedItem};
/// let f = FailedItem { key: Item::new(), error: Error::missing_attribute("email") };
/// assert_eq!(f.error.to_string(), "attribute `email` is missing");
/// ```
#[derive(Debug)]
pub struct FailedItem {
    /// The item's primary key.
    pub key: Item,
    /// Why it failed: it did not decode (a batch get), or could not be
    /// changed (a [backfill](crate::evolve::Sweep::backfill)).
    pub error: Error,
}

/// Reads items by key in batches of 100, several batches at a time,
/// retrying `UnprocessedKeys` and throttling with bounded, jittered backoff.
///
/// What it guarantees: keys are checked and deduplicated (as DynamoDB compares
/// them) before anything is sent; every item returned is matched to a key asked
/// for, every unprocessed key DynamoDB hands back to a key sent, and a response
/// that lists anything else stops the batch with
/// [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse) as
/// the cause; every key ends up read, absent from the table, or handed back in
/// the [`ErrorKind::BatchGetIncomplete`](crate::ErrorKind::BatchGetIncomplete) error
/// ([`Unread`]); every call is bounded in time.
///
/// ```no_run
/// # use dynamodb_mapper::{Mapper, TableSchema, ops::BatchGetter};
/// # async fn demo<M: Mapper>(client: aws_sdk_dynamodb::Client, keys: Vec<dynamodb_mapper::Item>) -> dynamodb_mapper::Result<()> {
/// let read = dynamodb_mapper::ops::Table::new(&client, "AppTable", M::SCHEMA).batch_getter()
///     .consistent_read(true)
///     .get::<M>(keys)
///     .await?;
/// for failed in &read.failed {
///     eprintln!("{}", failed.error); // names the item's key
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct BatchGetter {
    batch: Batch,
    consistent_read: bool,
}

impl Table {
    /// A batch reader of this table (4 batches in flight, eventually
    /// consistent reads).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let getter = dynamodb_mapper::ops::Table::new(&client(), "T", TABLE)
    ///     .batch_getter()
    ///     .consistent_read(true);
    /// # let _ = getter;
    /// ```
    pub fn batch_getter(&self) -> BatchGetter {
        BatchGetter {
            batch: Batch::of(self),
            consistent_read: false,
        }
    }
}

impl BatchGetter {
    /// Sets how many batches are in flight at once (at least 1).
    ///
    /// ```
    /// # let client = dynamodb_mapper_support::doc::client();
    /// use dynamodb_mapper::{TableSchema, ops::BatchGetter};
    /// let g = dynamodb_mapper::ops::Table::new(&client, "T", TableSchema::new("pk")).batch_getter().concurrency(2);
    /// ```
    #[must_use]
    pub fn concurrency(mut self, batches: usize) -> Self {
        self.batch.concurrency = batches.max(1);
        self
    }

    /// Asks for strongly consistent reads.
    ///
    /// ```
    /// # let client = dynamodb_mapper_support::doc::client();
    /// use dynamodb_mapper::{TableSchema, ops::BatchGetter};
    /// let g = dynamodb_mapper::ops::Table::new(&client, "T", TableSchema::new("pk")).batch_getter().consistent_read(true);
    /// ```
    #[must_use]
    pub fn consistent_read(mut self, yes: bool) -> Self {
        self.consistent_read = yes;
        self
    }

    /// Reads the items of `keys` and decodes each through `M` (missing items
    /// are simply absent; order is not kept). An item that does not decode
    /// does not spoil the rest: it is reported in [`BatchRead::failed`] with
    /// its key and error.
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// As [`get_items`](Self::get_items).
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::BatchGetter};
    /// # async fn demo<M: Mapper>(g: BatchGetter, keys: Vec<dynamodb_mapper::Item>) -> dynamodb_mapper::Result<()> {
    /// let found: Vec<M::Entity> = g.get::<M>(keys).await?.into_entities()?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get<M: Mapper>(&self, keys: Vec<Item>) -> Result<BatchRead<M::Entity>> {
        self.read_and_decode(keys, |item| M::from_item(item).map(Decoded::Entity))
            .await
    }

    /// Reads the items of `keys` and decodes them through `registry`: mixed
    /// entity types in one batch, with the registry's policies for unknown or
    /// missing types (what they skipped or kept raw is in the result). As
    /// with [`get`](Self::get), an item that does not decode is reported in
    /// [`BatchRead::failed`] and does not spoil the rest.
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// As [`get_items`](Self::get_items).
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Registry, ops::BatchGetter};
    /// # async fn demo(g: BatchGetter, registry: Registry<String>, keys: Vec<dynamodb_mapper::Item>) -> dynamodb_mapper::Result<()> {
    /// let read = g.get_with(&registry, keys).await?;
    /// assert!(read.is_complete(), "{:?} did not decode", read.failed);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get_with<T>(
        &self,
        registry: &Registry<T>,
        keys: Vec<Item>,
    ) -> Result<BatchRead<T>> {
        self.read_and_decode(keys, |item| registry.decode(item))
            .await
    }

    /// Reads `keys` and decodes each item on its own, so one bad item is
    /// reported with its key instead of failing the rest.
    async fn read_and_decode<T>(
        &self,
        keys: Vec<Item>,
        decode: impl Fn(Item) -> Result<Decoded<T>>,
    ) -> Result<BatchRead<T>> {
        let (items, summary) = self.get_items(keys).await?;
        let mut read = BatchRead {
            entities: Vec::with_capacity(items.len()),
            summary,
            ..BatchRead::default()
        };
        for item in items {
            // The key is taken before decoding consumes the item; it was
            // checked when the item was matched to the key asked for.
            let key = self.batch.table.schema().key_of(&item).unwrap_or_default();
            match decode(item) {
                Ok(Decoded::Entity(entity)) => read.entities.push(entity),
                Ok(Decoded::Skipped(skipped)) => read.skipped.push(skipped),
                Ok(Decoded::Raw(raw)) => read.raw.push(raw),
                Err(error) => read.failed.push(FailedItem { key, error }),
            }
        }
        Ok(read)
    }

    /// Reads the items of `keys` as they are, with a summary.
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// Before anything is sent:
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) for a key that
    /// does not fit the schema;
    /// [`ErrorKind::DuplicateKey`](crate::ErrorKind::DuplicateKey) (DynamoDB
    /// rejects duplicates). After:
    /// [`ErrorKind::BatchGetIncomplete`](crate::ErrorKind::BatchGetIncomplete) with
    /// the items read and the keys not read, and the cause (see
    /// [`Error::into_unread`]).
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
            table = self.batch.table.name(),
            keys = keys.len(),
            requests = tracing::field::Empty,
            retries = tracing::field::Empty,
            consumed_capacity = tracing::field::Empty,
        );
        let recorder = span.clone();
        async move {
            let mut seen = HashSet::with_capacity(keys.len());
            let mut entries = Vec::with_capacity(keys.len());
            for key in keys {
                let key = self.batch.table.schema().key_of(&key)?;
                let id = KeyId::of(&key);
                if !seen.insert(id.clone()) {
                    return Err(Error::duplicate_key(OPERATION, describe_key(&key)));
                }
                entries.push(Entry {
                    request: key,
                    id,
                    maybe_applied: false,
                });
            }
            // The deadline counts from here, for every chunk and retry.
            let job = Self {
                batch: self.batch.started(),
                ..self.clone()
            };
            let out = run(&job, entries, &recorder).await;
            let mut summary = out.summary;
            summary.items = out.found.len();
            // A read in doubt is simply not read.
            let mut unprocessed = out.unprocessed;
            unprocessed.extend(out.in_doubt);
            if unprocessed.is_empty() {
                return Ok((out.found, summary));
            }
            let unread = Unread {
                read: out.found,
                unprocessed,
            };
            Err(Error::batch_get_incomplete(
                self.batch.table.name().to_owned(),
                unread,
                out.attempts,
                out.cause,
            ))
        }
        .instrument(span)
        .await
    }
}

impl Job for BatchGetter {
    type Request = Item;
    type Error = BatchGetItemError;
    type Response = BatchGetItemOutput;
    const OPERATION: &'static str = OPERATION;
    const CHUNK: usize = BATCH_GET_LIMIT;

    fn batch(&self) -> &Batch {
        &self.batch
    }

    fn send(
        &self,
        keys: Vec<Item>,
    ) -> impl Future<Output = std::result::Result<BatchGetItemOutput, Failed<BatchGetItemError>>> + Send
    {
        let request = KeysAndAttributes::builder()
            .set_keys(Some(keys))
            .consistent_read(self.consistent_read)
            .build()
            .map(|keys| {
                self.batch
                    .table
                    .client()
                    .batch_get_item()
                    .request_items(self.batch.table.name(), keys)
                    .set_return_consumed_capacity(
                        self.batch.table.get_return_consumed_capacity().cloned(),
                    )
                    // One SDK attempt per send: the runner retries by the
                    // table's policy, and counts every request it makes.
                    .customize()
                    .config_override(one_attempt())
                    .send()
            });
        let bound = self.batch.table.bound();
        async move {
            match request {
                Ok(request) => call(&bound, OPERATION, request).await,
                // Unreachable (the only required field is set), but not a panic.
                Err(e) => Err(Failed::NotSent(Error::sdk(OPERATION, e))),
            }
        }
    }

    fn sort(
        &self,
        pending: &[Entry<Item>],
        mut response: BatchGetItemOutput,
    ) -> std::result::Result<Sorted, String> {
        let capacity = response.consumed_capacity.take().unwrap_or_default();
        let (found, again) = sort(
            self.batch.table.name(),
            &self.batch.table.schema(),
            pending,
            response.responses,
            response.unprocessed_keys,
        )?;
        Ok(Sorted {
            again,
            found,
            capacity,
        })
    }
}

/// The items of the response matched to `pending`, and which of `pending`
/// it lists as unprocessed; or what makes the response nonsense.
fn sort(
    table: &str,
    schema: &TableSchema,
    pending: &[Entry<Item>],
    responses: Option<HashMap<String, Vec<Item>>>,
    unprocessed: Option<HashMap<String, KeysAndAttributes>>,
) -> std::result::Result<(Vec<Item>, Vec<bool>), String> {
    const RESPONSES: Listing = Listing {
        field: "Responses holds",
        entries: "items",
        does: "read",
    };
    const UNPROCESSED: Listing = Listing {
        field: "UnprocessedKeys lists",
        entries: "keys",
        does: "read",
    };
    let read = locate(responses, table, schema, pending, &RESPONSES, |s, item| {
        s.key_of(item)
    })?;
    let unprocessed = unprocessed.map(|lists| {
        lists
            .into_iter()
            .map(|(name, keys)| (name, keys.keys))
            .collect::<HashMap<_, _>>()
    });
    let again = locate(
        unprocessed,
        table,
        schema,
        pending,
        &UNPROCESSED,
        |s, key| s.key_of(key),
    )?;
    let mut found = vec![false; pending.len()];
    for (i, _, _) in &read {
        found[*i] = true;
    }
    let mut unread = vec![false; pending.len()];
    for (i, key, _) in again {
        if found[i] {
            return Err(format!(
                "UnprocessedKeys lists the key {}, whose item was also returned",
                describe_key(&key)
            ));
        }
        unread[i] = true;
    }
    Ok((read.into_iter().map(|(_, _, item)| item).collect(), unread))
}
