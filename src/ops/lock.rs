//! Optimistic locking with a version attribute: stale writes and deletes are
//! rejected by DynamoDB, never applied.

use aws_sdk_dynamodb::Client;
use tracing::Instrument;

use super::RetryPolicy;
use super::call::{Failed, call, call_conditional};
use super::describe_key;
use super::identity::KeyId;
use super::version::{conflict, versioned_delete, versioned_put};
use crate::error::{Error, ErrorKind, Result};
use crate::expr::ConditionExt;
use crate::item::Item;
use crate::mapper::Mapper;
use crate::record::Record;

/// Reads a record with a strongly consistent `GetItem`: the entity, its
/// attribute bag and the version to write against.
///
/// # Errors
/// [`ErrorKind::Sdk`](crate::ErrorKind::Sdk) when the request fails;
/// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) when no answer came in
/// time; decoding errors.
///
/// ```no_run
/// # use dynamodb_mapper::{Mapper, ops::get_record};
/// # async fn demo<M: Mapper>(client: aws_sdk_dynamodb::Client, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
/// if let Some(record) = get_record::<M>(&client, "AppTable", key).await? {
///     println!("version {:?}", record.version);
/// }
/// # Ok(())
/// # }
/// ```
pub async fn get_record<M: Mapper>(
    client: &Client,
    table: &str,
    key: Item,
) -> Result<Option<Record<M::Entity>>> {
    let request = client
        .get_item()
        .table_name(table)
        .set_key(Some(key))
        .consistent_read(true)
        .send();
    let out = call(client, "GetItem", request)
        .await
        .map_err(|f| f.into_error("GetItem"))?;
    out.item.map(M::record_from_item).transpose()
}

/// Writes a record only if the stored item is still as it was read, with the
/// version advanced. On success the record holds the new version.
///
/// What "as it was read" means:
/// - a record read with version `v`: the stored version is still `v`; the
///   item is written with `v + 1`;
/// - a record read from an item without a version (written before the table
///   was versioned): the item still exists and still has no version; it is
///   adopted with a first version;
/// - a record never stored ([`Record::new`]): no item exists; it is created
///   with a first version.
///
/// First versions never repeat across a delete and re-create: they come from
/// the clock (microseconds since the epoch × 1024 plus a random part below
/// 1024), so a writer still holding a version of a deleted item gets a
/// conflict from the re-created one instead of overwriting it.
///
/// # Errors
/// [`ErrorKind::VersionConflict`](crate::ErrorKind::VersionConflict) naming the
/// item's key when another writer got there first (nothing is written); mapping
/// errors; [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) when no answer
/// came in time, and [`ErrorKind::Sdk`](crate::ErrorKind::Sdk) for a dropped
/// connection or an internal server error: then the outcome is unknown (read
/// the record again). Throttling is retried (the default [`RetryPolicy`]); the
/// SDK's own retries are off for this write, because a retry of a write whose
/// answer was lost fails its own condition and would look like a conflict.
///
/// ```no_run
/// # use dynamodb_mapper::{Mapper, Record, ops::put_versioned};
/// # async fn demo<M: Mapper>(client: aws_sdk_dynamodb::Client, entity: M::Entity) -> dynamodb_mapper::Result<()> {
/// let mut record = Record::new(entity);
/// let first = put_versioned::<M>(&client, "AppTable", &mut record).await?; // creates it
/// let second = put_versioned::<M>(&client, "AppTable", &mut record).await?;
/// assert_eq!(second, first + 1);
/// # Ok(())
/// # }
/// ```
pub async fn put_versioned<M: Mapper>(
    client: &Client,
    table: &str,
    record: &mut Record<M::Entity>,
) -> Result<u64> {
    let put = versioned_put::<M>(record)?;
    let request = client
        .put_item()
        .table_name(table)
        .set_item(Some(put.item))
        .with_condition(put.condition)?;
    let sent = call_conditional(client, "PutItem", RetryPolicy::default(), |no_retries| {
        request
            .clone()
            .customize()
            .config_override(no_retries)
            .send()
    });
    match sent.await {
        Ok(_) => {
            record.version = Some(put.next);
            record.stored = true;
            Ok(put.next)
        }
        Err(Failed::Service(e)) if e.is_conditional_check_failed_exception() => {
            Err(conflict::<M>(record, &put.key))
        }
        Err(f) => Err(f.into_error("PutItem")),
    }
}

/// Deletes a record's item only if the stored version is still the one it
/// was read with.
///
/// # Errors
/// [`ErrorKind::VersionConflict`](crate::ErrorKind::VersionConflict) when the
/// item changed (or is gone) since it was read;
/// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) for a record
/// never read from the table; [`ErrorKind::Timeout`](crate::ErrorKind::Timeout)
/// and [`ErrorKind::Sdk`](crate::ErrorKind::Sdk) as for [`put_versioned`]
/// (outcome unknown when no answer came).
///
/// ```no_run
/// # use dynamodb_mapper::{Mapper, ops::{delete_versioned, get_record}};
/// # async fn demo<M: Mapper>(client: aws_sdk_dynamodb::Client, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
/// if let Some(record) = get_record::<M>(&client, "AppTable", key).await? {
///     delete_versioned::<M>(&client, "AppTable", &record).await?;
/// }
/// # Ok(())
/// # }
/// ```
pub async fn delete_versioned<M: Mapper>(
    client: &Client,
    table: &str,
    record: &Record<M::Entity>,
) -> Result<()> {
    let (key, condition) = versioned_delete::<M>(record)?;
    let request = client
        .delete_item()
        .table_name(table)
        .set_key(Some(key.clone()))
        .with_condition(condition)?;
    let sent = call_conditional(client, "DeleteItem", RetryPolicy::default(), |no_retries| {
        request
            .clone()
            .customize()
            .config_override(no_retries)
            .send()
    });
    match sent.await {
        Ok(_) => Ok(()),
        Err(Failed::Service(e)) if e.is_conditional_check_failed_exception() => {
            Err(conflict::<M>(record, &key))
        }
        Err(f) => Err(f.into_error("DeleteItem")),
    }
}

/// Read-modify-write with optimistic locking: reads the record at `key`,
/// applies `change` to it (the entity, and the bag of attributes the mapper
/// does not own, e.g. for [`Timestamps`](crate::hooks::Timestamps)), writes it
/// back version-checked, and on a
/// conflict starts over, up to `policy.max_attempts()` times (with the
/// policy's jittered backoff between attempts). Unknown attributes survive
/// through the record's bag.
///
/// # Errors
/// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when no item exists at
/// `key`; [`ErrorKind::VersionConflict`](crate::ErrorKind::VersionConflict)
/// when every attempt conflicted;
/// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) naming the key
/// attribute when `change` altered the entity's key; errors from `change`;
/// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) or
/// [`ErrorKind::Sdk`](crate::ErrorKind::Sdk) when a write got no answer: then
/// it is not retried (its change may have been applied, and applying it again
/// would apply it twice), and the caller should read the record again.
///
/// ```no_run
/// # use dynamodb_mapper::{Mapper, ops::{update_with_retry, RetryPolicy}};
/// # #[derive(serde::Serialize, serde::Deserialize)] struct Counter { id: String, count: u64 }
/// # async fn demo<M: Mapper<Entity = Counter>>(client: aws_sdk_dynamodb::Client, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
/// use dynamodb_mapper::hooks::Timestamps;
/// let record = update_with_retry::<M, _>(&client, "AppTable", key, RetryPolicy::new(20), |r| {
///     r.entity.count += 1;
///     Timestamps::DEFAULT.stamp(&mut r.bag, std::time::SystemTime::now())
/// })
/// .await?;
/// # Ok(())
/// # }
/// ```
pub async fn update_with_retry<M, F>(
    client: &Client,
    table: &str,
    key: Item,
    policy: RetryPolicy,
    mut change: F,
) -> Result<Record<M::Entity>>
where
    M: Mapper,
    F: FnMut(&mut Record<M::Entity>) -> Result<()>,
{
    let span = tracing::info_span!(
        "dynamodb_mapper.update_with_retry",
        table,
        entity_type = M::ENTITY_TYPE,
        key = %describe_key(&key),
        attempts = tracing::field::Empty,
    );
    let asked = M::TABLE
        .key_of(&key)
        .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
    let mut attempt = 0;
    async move {
    loop {
        attempt += 1;
        tracing::Span::current().record("attempts", attempt);
        let Some(mut record) = get_record::<M>(client, table, key.clone()).await? else {
            return Err(Error::not_found(describe_key(&key)).with_entity_type(M::ENTITY_TYPE));
        };
        change(&mut record).map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
        let now = M::key(&record.entity)?;
        if KeyId::of(&now) != KeyId::of(&asked) {
            // Name the key attribute that moved.
            let moved = asked
                .iter()
                .find(|(name, value)| {
                    now.get(*name).is_none_or(|v| {
                        KeyId::of(&Item::from([((*name).clone(), v.clone())]))
                            != KeyId::of(&Item::from([((*name).clone(), (*value).clone())]))
                    })
                })
                .map_or(M::TABLE.partition_key_attribute().name, |(name, _)| name.as_str());
            return Err(Error::invalid_key(
                moved,
                format!(
                    "changed during the update (was {}, now {}); a read-modify-write must not move the item",
                    describe_key(&asked),
                    describe_key(&now)
                ),
            )
            .with_entity_type(M::ENTITY_TYPE));
        }
        match put_versioned::<M>(client, table, &mut record).await {
            Ok(_) => return Ok(record),
            Err(e) if e.kind() == ErrorKind::VersionConflict && attempt < policy.max_attempts() => {
                tracing::debug!(attempt, "version conflict, retrying");
                tokio::time::sleep(policy.delay(attempt)).await;
            }
            Err(e) => return Err(e),
        }
    }
    }
    .instrument(span.clone())
    .await
}
