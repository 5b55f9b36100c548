//! Optimistic locking helpers of [`Table`]: `put_record`,
//! `delete_record`, `update_with_retry`, `update_record` and
//! `put_new`, built on the version scheme of `versioned.rs`. No helper
//! returns success unless the item stored is the state asked for at the
//! version returned; an entity with unique values has its sentinels written
//! in one transaction with it when they move.

use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::AttributeValue;

use super::Table;
use tracing::Instrument;

use super::call::Failed;
use super::identity::KeyId;
use super::send::{HelperCall, item_span, send_update};
use super::versioned::{
    VersionedPut, conflict, version_attribute, versioned_delete, versioned_new, versioned_put,
    versioned_update,
};
use crate::describe::describe_key;
use crate::error::{Error, ErrorKind, Result};
use crate::expr::{Apply, Attr, Condition, Update};
use crate::item::Item;
use crate::mapper::{Mapper, MapperExt};
use crate::record::Record;

impl Table {
    /// Reads a record with a strongly consistent `GetItem`: the entity, its
    /// attribute bag and the version to write against.
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
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
        let mut call = HelperCall::new(
            self,
            item_span!("dynamodb_mapper.get_record", self, M::ENTITY_TYPE, &key),
        );
        read::<M>(&mut call, key).await
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
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// [`ErrorKind::UniqueViolation`](crate::ErrorKind::UniqueViolation)
    /// when a unique value ([`Unique`](crate::Unique)) it takes is another
    /// item's (nothing written);
    /// [`ErrorKind::VersionConflict`](crate::ErrorKind::VersionConflict)
    /// naming the item's key when another writer got there first (nothing is
    /// written); [`ErrorKind::PartialRecord`](crate::ErrorKind::PartialRecord)
    /// for a record read through a projection (writing it whole would drop
    /// what the projection left out: update its fields with
    /// [`update_record`](Self::update_record)); other mapping errors;
    /// [`ErrorKind::MaybeApplied`](crate::ErrorKind::MaybeApplied) naming the
    /// key when no credible answer came (a timeout, a dropped connection, an
    /// internal server error; the cause says which): the outcome is unknown
    /// (read the record again); [`ErrorKind::Sdk`](crate::ErrorKind::Sdk)
    /// when DynamoDB refused the request. Throttling is retried (the table's
    /// [`RetryPolicy`](super::RetryPolicy)); the SDK's own retries are off for this write,
    /// because a retry of a write whose answer was lost fails its own
    /// condition and would look like a conflict.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, Record, ops::Table};
    /// # async fn demo<M: Mapper>(table: Table, entity: M::Entity) -> dynamodb_mapper::Result<()> {
    /// let mut record = Record::new(entity);
    /// let first = table.put_record::<M>(&mut record).await?; // creates it
    /// let second = table.put_record::<M>(&mut record).await?;
    /// assert_eq!(second, first + 1);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn put_record<M: Mapper>(&self, record: &mut Record<M::Entity>) -> Result<u64> {
        let put = versioned_put::<M>(record, self.now())?;
        let span = item_span!("dynamodb_mapper.put_record", self, M::ENTITY_TYPE, &put.key);
        send_versioned_put::<M>(&mut HelperCall::new(self, span), record, put).await
    }

    /// The write of `record` (as `put`) with the sentinels it moves, in one
    /// transaction, when it moves any (`None` otherwise).
    async fn put_with_sentinels<M: Mapper>(
        table: &Table,
        record: &mut Record<M::Entity>,
        put: &VersionedPut,
    ) -> Option<Result<u64>> {
        if M::UNIQUE.is_empty() {
            return None;
        }
        let new = crate::mapper::unique::values::<M>(&put.item);
        let old = record.stored.then(|| record.unique_read()).flatten();
        match super::unique::moves::<M>(old, new.as_ref()) {
            Ok(false) => return None,
            Err(e) => return Some(Err(e.with_entity_type(M::ENTITY_TYPE))),
            Ok(true) => {}
        }
        let sent = match table.transaction().put_record::<M>(record) {
            Ok(tx) => tx.send().await,
            Err(e) => return Some(Err(e)),
        };
        Some(settle_sentinels::<M>(sent, record, &put.key, put.next, new))
    }

    /// Deletes a record's item only if the stored version is still the one
    /// it was read with.
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// [`ErrorKind::VersionConflict`](crate::ErrorKind::VersionConflict) when
    /// the item changed (or is gone) since it was read;
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) for a
    /// record never read from the table; timeouts and SDK errors as for
    /// [`put_record`](Self::put_record) (outcome unknown when no answer
    /// came).
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Table};
    /// # async fn demo<M: Mapper>(table: Table, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
    /// if let Some(record) = table.get_record::<M>(key).await? {
    ///     table.delete_record::<M>(&record).await?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn delete_record<M: Mapper>(&self, record: &Record<M::Entity>) -> Result<()> {
        let (key, condition) = versioned_delete::<M>(record)?;
        if super::unique::moves::<M>(record.unique_read(), None)? {
            let sent = self
                .started()
                .transaction()
                .delete_record::<M>(record)?
                .send()
                .await;
            return match sent {
                Ok(_) => Ok(()),
                Err(e) if super::unique::entity_refused(&e) => Err(conflict::<M>(record, &key)),
                Err(e) => Err(e.with_entity_type(M::ENTITY_TYPE)),
            };
        }
        let span = item_span!("dynamodb_mapper.delete_record", self, M::ENTITY_TYPE, &key);
        let mut call = HelperCall::new(self, span);
        let request = self
            .client()
            .delete_item()
            .table_name(self.name())
            .set_key(Some(key.clone()))
            .set_return_consumed_capacity(self.get_return_consumed_capacity().cloned())
            .apply(condition)?;
        let sent = call
            .write("DeleteItem", |once| {
                request.clone().customize().config_override(once).send()
            })
            .await;
        match sent {
            Ok(_) => Ok(()),
            Err(Failed::Service(e)) if e.is_conditional_check_failed_exception() => {
                Err(conflict::<M>(record, &key))
            }
            Err(f) => Err(f
                .into_write_error("DeleteItem", describe_key(&key))
                .with_entity_type(M::ENTITY_TYPE)),
        }
    }

    /// Read-modify-write with optimistic locking: reads the record at `key`,
    /// applies `change` to it (the entity, and the bag of attributes the
    /// mapper does not own, e.g. for
    /// [`Timestamps`](crate::hooks::Timestamps)), writes it back
    /// version-checked, and on a conflict starts over, up to the table's
    /// [`RetryPolicy`](super::RetryPolicy) (with its jittered backoff between attempts). Unknown
    /// attributes survive through the record's bag.
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// [`ErrorKind::UniqueViolation`](crate::ErrorKind::UniqueViolation)
    /// when a unique value ([`Unique`](crate::Unique)) it takes is another
    /// item's (nothing written);
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when no item
    /// exists at `key`; [`ErrorKind::VersionConflict`](crate::ErrorKind::VersionConflict)
    /// when every attempt conflicted; [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey)
    /// naming the key attribute when `change` altered the entity's key;
    /// errors from `change`;
    /// [`ErrorKind::MaybeApplied`](crate::ErrorKind::MaybeApplied) naming the
    /// key when a write got no credible answer: it is not retried (its change
    /// may have been applied, and applying it again would apply it twice),
    /// and the caller should read the record again.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Table};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Counter { id: String, count: u64 }
    /// # async fn demo<M: Mapper<Entity = Counter>>(table: Table, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
    /// use dynamodb_mapper::hooks::Timestamps;
    /// let record = table
    ///     .update_with_retry::<M, _>(key, |r| {
    ///         r.entity.count += 1;
    ///         Timestamps::default().stamp(&mut r.bag, std::time::SystemTime::now())
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
        let asked = M::SCHEMA
            .key_of(&key)
            .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
        let span = item_span!(
            "dynamodb_mapper.update_with_retry",
            self,
            M::ENTITY_TYPE,
            &key,
            attempts
        );
        // Every read, write and pause shares one deadline, and the capacity
        // of every request (the conflicting ones included) is summed.
        let mut call = HelperCall::new(self, span.clone());
        let policy = self.get_retry_policy();
        let mut change = change;
        let mut attempt = 0;
        async move {
            loop {
                attempt += 1;
                call.span().record("attempts", attempt);
                // Each read and write has a span of its own, inside this one.
                let table = call.table();
                let mut get = call.child(item_span!(
                    "dynamodb_mapper.get_record",
                    table,
                    M::ENTITY_TYPE,
                    &key
                ));
                let found = read::<M>(&mut get, key.clone()).await;
                call.absorb(get);
                let Some(mut record) = found? else {
                    return Err(
                        Error::not_found(describe_key(&key)).with_entity_type(M::ENTITY_TYPE)
                    );
                };
                change(&mut record).map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
                let now = M::key(&record.entity)?;
                if KeyId::of(&now) != KeyId::of(&asked) {
                    return Err(moved::<M>(&asked, &now));
                }
                let put = versioned_put::<M>(&record, call.table().now())?;
                let table = call.table();
                let mut write = call.child(item_span!(
                    "dynamodb_mapper.put_record",
                    table,
                    M::ENTITY_TYPE,
                    &put.key
                ));
                let written = send_versioned_put::<M>(&mut write, &mut record, put).await;
                call.absorb(write);
                match written {
                    Ok(_) => return Ok(record),
                    Err(e)
                        if e.kind() == ErrorKind::VersionConflict
                            && attempt < policy.max_attempts() =>
                    {
                        tracing::debug!(attempt, "version conflict, retrying");
                        call.table()
                            .bound()
                            .pause("PutItem", policy.delay(attempt))
                            .await?;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        .instrument(span)
        .await
    }

    /// Updates a record's item to `new` with one `UpdateItem` that carries
    /// the version check and the version increment: the partial update of
    /// [`update_entity`](Self::update_entity) with the guarantees of
    /// [`put_record`](Self::put_record) (a stale record gets a
    /// conflict, nothing is written; an item written before versioning is
    /// adopted). On success the record holds `new` and the new version,
    /// which is returned. When nothing changed, nothing is written: one
    /// strongly consistent read of the version checks that the stored item
    /// is still the one read (the record's entity is then what is stored,
    /// at the version returned); a record gone stale is a conflict, never a
    /// silent success.
    ///
    /// Unlike `put_record`, attributes the record's bag holds are not
    /// written back (an update leaves them as they are stored).
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// [`ErrorKind::UniqueViolation`](crate::ErrorKind::UniqueViolation)
    /// when a unique value ([`Unique`](crate::Unique)) it takes is another
    /// item's (nothing written);
    /// [`ErrorKind::VersionConflict`](crate::ErrorKind::VersionConflict)
    /// naming the key when the item changed since it was read;
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) naming the key
    /// attribute when `new` has another primary key;
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) for a
    /// table without a version attribute or a record never read; mapping
    /// errors; timeouts and SDK errors as for `put_record`.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Table};
    /// # #[derive(Clone, serde::Serialize, serde::Deserialize)] struct Order { id: String, status: String }
    /// # async fn demo<M: Mapper<Entity = Order>>(table: Table, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
    /// if let Some(mut record) = table.get_record::<M>(key).await? {
    ///     let mut shipped = record.entity.clone();
    ///     shipped.status = "shipped".into();
    ///     let version = table.update_record::<M>(&mut record, shipped).await?;
    ///     assert_eq!(record.version, Some(version));
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn update_record<M: Mapper>(
        &self,
        record: &mut Record<M::Entity>,
        new: M::Entity,
    ) -> Result<u64> {
        let attribute = version_attribute::<M>()?;
        let update = Update::between::<M>(&record.entity, &new)?;
        let key = M::key(&new)?;
        let mut call = HelperCall::new(
            self,
            item_span!("dynamodb_mapper.update", self, M::ENTITY_TYPE, &key),
        );
        if update.is_empty()
            && let Some(v) = record.version
        {
            // Nothing to write, but the record may be stale: `new` is the
            // stored state only if the item is still at the version read.
            if stored_version(&mut call, key.clone(), attribute).await? != Some(v) {
                return Err(conflict::<M>(record, &key));
            }
            record.entity = new;
            return Ok(v);
        }
        if !M::UNIQUE.is_empty() {
            let old = match record.unique_read() {
                Some(values) => values.clone(),
                None => M::to_item(&record.entity)?,
            };
            let new_item = M::to_item(&new)?;
            if super::unique::moves::<M>(Some(&old), Some(&new_item))? {
                let versioned = versioned_update::<M>(record, update, self.now())?;
                let sent = self
                    .started()
                    .transaction()
                    .update_record::<M>(record, &new)?
                    .send()
                    .await;
                let values = crate::mapper::unique::values::<M>(&new_item);
                let next =
                    settle_sentinels::<M>(sent, record, &versioned.key, versioned.next, values)?;
                record.entity = new;
                return Ok(next);
            }
        }
        let versioned = versioned_update::<M>(record, update, self.now())?;
        let sent = send_update(
            &mut call,
            versioned.key.clone(),
            versioned.update,
            Some(versioned.condition),
            None,
        )
        .await;
        let refused = |e: &UpdateItemError| e.is_conditional_check_failed_exception();
        let next = settle::<M, _, _>(
            ("UpdateItem", sent),
            refused,
            record,
            &versioned.key,
            versioned.next,
        )?;
        record.entity = new;
        Ok(next)
    }

    /// Puts `entity` only if no item exists at its key; `true` when it was
    /// written, `false` when an item was already there (left as it was).
    /// On a versioned table the new item gets a first version.
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// [`ErrorKind::UniqueViolation`](crate::ErrorKind::UniqueViolation)
    /// when a unique value ([`Unique`](crate::Unique)) it takes is another
    /// item's (nothing written);
    /// Mapping errors; timeouts and SDK errors as for
    /// [`put_record`](Self::put_record) (outcome unknown when no
    /// answer came: read the item to know).
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Table};
    /// # async fn demo<M: Mapper>(table: Table, entity: M::Entity) -> dynamodb_mapper::Result<()> {
    /// if !table.put_new::<M>(&entity).await? {
    ///     println!("already there");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn put_new<M: Mapper>(&self, entity: &M::Entity) -> Result<bool> {
        let (item, condition) = if M::SCHEMA.version.is_some() {
            let put = versioned_new::<M>(entity, self.now())?;
            (put.item, put.condition)
        } else {
            let item = M::to_item(entity)?;
            let pk = Attr::top_level(M::SCHEMA.partition_key.name);
            (item, Condition::build_with_stem(&pk.not_exists(), "dmn")?)
        };
        let key = M::SCHEMA
            .key_of(&item)
            .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
        let values = crate::mapper::unique::values::<M>(&item);
        if super::unique::moves::<M>(None, values.as_ref())? {
            let sent = self
                .started()
                .transaction()
                .put_new::<M>(entity)?
                .send()
                .await;
            return match sent {
                Ok(_) => Ok(true),
                Err(e) if super::unique::entity_refused(&e) => Ok(false),
                Err(e) => Err(e.with_entity_type(M::ENTITY_TYPE)),
            };
        }
        let span = item_span!("dynamodb_mapper.put_new", self, M::ENTITY_TYPE, &key);
        let mut call = HelperCall::new(self, span);
        let request = self
            .client()
            .put_item()
            .table_name(self.name())
            .set_item(Some(item))
            .set_return_consumed_capacity(self.get_return_consumed_capacity().cloned())
            .apply(condition)?;
        let sent = call
            .write("PutItem", |once| {
                request.clone().customize().config_override(once).send()
            })
            .await;
        match sent {
            Ok(_) => Ok(true),
            Err(Failed::Service(PutItemError::ConditionalCheckFailedException(_))) => Ok(false),
            Err(f) => Err(f
                .into_write_error("PutItem", describe_key(&key))
                .with_entity_type(M::ENTITY_TYPE)),
        }
    }
}

/// Reads a record with a strongly consistent `GetItem` as part of `call`.
async fn read<M: Mapper>(call: &mut HelperCall, key: Item) -> Result<Option<Record<M::Entity>>> {
    // A record of another item would carry that item's version: a
    // versioned write from it would pass its check and land elsewhere; the
    // read refuses an answer at another key.
    let item = read_item(call, key, M::SCHEMA)
        .await
        .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
    call.span()
        .in_scope(|| item.map(M::record_from_item).transpose())
}

/// The item at `key`, read with a strongly consistent `GetItem` as part of
/// `call`; an answer with an item at another key (per `schema`) is an
/// [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse).
pub(super) async fn read_item(
    call: &mut HelperCall,
    key: Item,
    schema: crate::TableSchema,
) -> Result<Option<Item>> {
    let table = call.table();
    let request = table
        .client()
        .get_item()
        .table_name(table.name())
        .set_key(Some(key.clone()))
        .consistent_read(true)
        .set_return_consumed_capacity(table.get_return_consumed_capacity().cloned());
    let out = call
        .read("GetItem", || request.clone().send())
        .await
        .map_err(|f| f.into_error("GetItem"))?;
    if let Some(item) = &out.item {
        let other = match schema.key_of(item) {
            Ok(found) if KeyId::of(&found) == KeyId::of(&key) => None,
            Ok(found) => Some(format!("the item at {}", describe_key(&found))),
            Err(e) => Some(format!("an item without a valid key ({e})")),
        };
        if let Some(other) = other {
            return Err(Error::unexpected_response(
                "GetItem",
                format!(
                    "asked for the item at {}, it answered with {other}",
                    describe_key(&key)
                ),
            ));
        }
    }
    Ok(out.item)
}

/// Sends `put`, the versioned put of `record`, as part of `call`; on
/// success the record holds the new version, which is returned.
async fn send_versioned_put<M: Mapper>(
    call: &mut HelperCall,
    record: &mut Record<M::Entity>,
    put: VersionedPut,
) -> Result<u64> {
    let table = call.table();
    if let Some(done) = Table::put_with_sentinels::<M>(table, record, &put).await {
        return done;
    }
    let values = crate::mapper::unique::values::<M>(&put.item);
    let request = table
        .client()
        .put_item()
        .table_name(table.name())
        .set_item(Some(put.item))
        .set_return_consumed_capacity(table.get_return_consumed_capacity().cloned())
        .apply(put.condition)?;
    let sent = call
        .write("PutItem", |once| {
            request.clone().customize().config_override(once).send()
        })
        .await;
    let refused = |e: &PutItemError| e.is_conditional_check_failed_exception();
    let next = settle::<M, _, _>(("PutItem", sent), refused, record, &put.key, put.next)?;
    record.set_unique(values);
    Ok(next)
}

/// What the answer to a versioned write sent as a transaction with its
/// sentinels means: on success the record is stored at `next` with the
/// unique `values`; the entity's own condition refused is a conflict; a
/// sentinel refused is the violation the transaction reports.
fn settle_sentinels<M: Mapper>(
    sent: Result<super::TransactionSummary>,
    record: &mut Record<M::Entity>,
    key: &Item,
    next: u64,
    values: Option<Item>,
) -> Result<u64> {
    match sent {
        Ok(summary) => {
            // The version the transaction wrote (a first version is drawn
            // when the action is built).
            let next = summary.versions.first().copied().flatten().unwrap_or(next);
            record.version = Some(next);
            record.stored = true;
            record.set_unique(values);
            Ok(next)
        }
        Err(e) if super::unique::entity_refused(&e) => Err(conflict::<M>(record, key)),
        Err(e) => Err(e.with_entity_type(M::ENTITY_TYPE)),
    }
}

/// What the answer to a versioned write (`operation`) of `record` at `key` means: on
/// success the record is stored at `next`, which is returned; a refused
/// version check (`refused`) is a conflict; anything else is the write's
/// error, [`MaybeApplied`](crate::ErrorKind::MaybeApplied) when no
/// credible answer came.
fn settle<M: Mapper, T, E>(
    (operation, sent): (&'static str, std::result::Result<T, Failed<E>>),
    refused: impl Fn(&E) -> bool,
    record: &mut Record<M::Entity>,
    key: &Item,
    next: u64,
) -> Result<u64>
where
    aws_sdk_dynamodb::Error: From<E>,
{
    match sent {
        Ok(_) => {
            record.version = Some(next);
            record.stored = true;
            Ok(next)
        }
        Err(Failed::Service(e)) if refused(&e) => Err(conflict::<M>(record, key)),
        Err(f) => Err(f
            .into_write_error(operation, describe_key(key))
            .with_entity_type(M::ENTITY_TYPE)),
    }
}

/// The version of the item at `key` as stored now (a strongly consistent
/// read of that one attribute): `None` when there is no item or it has no
/// version a `u64` holds.
async fn stored_version(call: &mut HelperCall, key: Item, attribute: &str) -> Result<Option<u64>> {
    let table = call.table();
    let request = table
        .client()
        .get_item()
        .table_name(table.name())
        .set_key(Some(key))
        .consistent_read(true)
        .projection_expression("#v")
        .expression_attribute_names("#v", attribute)
        .set_return_consumed_capacity(table.get_return_consumed_capacity().cloned());
    let out = call
        .read("GetItem", || request.clone().send())
        .await
        .map_err(|f| f.into_error("GetItem"))?;
    Ok(match out.item().and_then(|item| item.get(attribute)) {
        Some(AttributeValue::N(n)) => n.parse().ok(),
        _ => None,
    })
}

/// The error for a read-modify-write whose change moved the item from
/// `asked` to `now`, naming the key attribute that moved.
fn moved<M: Mapper>(asked: &Item, now: &Item) -> Error {
    let moved = asked
        .iter()
        .find(|(name, value)| {
            now.get(*name).is_none_or(|v| {
                KeyId::of(&Item::from([((*name).clone(), v.clone())]))
                    != KeyId::of(&Item::from([((*name).clone(), (*value).clone())]))
            })
        })
        .map_or(M::SCHEMA.partition_key.name, |(name, _)| name.as_str());
    Error::invalid_key(
        moved,
        format!(
            "changed during the update (was {}, now {}); a read-modify-write must not move the \
             item",
            describe_key(asked),
            describe_key(now)
        ),
    )
    .with_entity_type(M::ENTITY_TYPE)
}
