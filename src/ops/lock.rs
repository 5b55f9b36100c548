//! Optimistic locking with a version attribute: stale writes and deletes are
//! rejected by DynamoDB, never applied.

use tracing::Instrument;

use super::Table;
use super::call::{Failed, call, send_conditional};
use super::capacity::{self, CapacityUsage};
use super::describe_key;
use super::identity::KeyId;
use super::version::{conflict, versioned_delete, versioned_put};
use crate::error::{Error, ErrorKind, Result};
use crate::expr::ConditionExt;
use crate::item::Item;
use crate::mapper::{Mapper, MapperExt};
use crate::record::Record;

/// See [`Table::get_record`].
pub(super) async fn get_record<M: Mapper>(
    table: &Table,
    key: Item,
) -> Result<Option<Record<M::Entity>>> {
    read::<M>(table, key).await.map(|(record, _)| record)
}

/// [`get_record`], with the capacity it consumed (when asked).
async fn read<M: Mapper>(table: &Table, key: Item) -> Result<(Option<Record<M::Entity>>, Used)> {
    let span = tracing::info_span!(
        "dynamodb_mapper.get_record",
        table = table.name(),
        entity_type = M::ENTITY_TYPE,
        key = %describe_key(&key),
        consumed_capacity = tracing::field::Empty,
    );
    let mode = table.return_consumed_capacity().cloned();
    let mut used = capacity::start(capacity::asks(mode.as_ref()));
    let request = table
        .client()
        .get_item()
        .table_name(table.name())
        .set_key(Some(key.clone()))
        .consistent_read(true)
        .set_return_consumed_capacity(mode)
        .send();
    let out = call(&table.bound(), "GetItem", request)
        .instrument(span.clone())
        .await
        .map_err(|f| f.into_error("GetItem"))?;
    capacity::add_all(&mut used, out.consumed_capacity());
    capacity::record(&span, used.as_ref());
    if let Some(item) = &out.item {
        // A record of another item would carry that item's version: a
        // versioned write from it would pass its check and land elsewhere.
        let other = match M::TABLE.key_of(item) {
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
            )
            .with_entity_type(M::ENTITY_TYPE));
        }
    }
    let record = span.in_scope(|| out.item.map(M::record_from_item).transpose())?;
    Ok((record, used))
}

/// What a call consumed: `None` when the table did not ask.
type Used = Option<CapacityUsage>;

/// Records `key` on a versioned write's span (rendered only when the span
/// is recorded at all).
fn record_key(span: &tracing::Span, key: &Item) {
    if !span.is_disabled() {
        span.record("key", tracing::field::display(describe_key(key)));
    }
}

/// See [`Table::put_versioned`].
pub(super) async fn put_versioned<M: Mapper>(
    table: &Table,
    record: &mut Record<M::Entity>,
) -> Result<u64> {
    put::<M>(table, record).await.map(|(version, _)| version)
}

/// [`put_versioned`], with the capacity it consumed (when asked).
async fn put<M: Mapper>(table: &Table, record: &mut Record<M::Entity>) -> Result<(u64, Used)> {
    let put = versioned_put::<M>(record)?;
    let span = tracing::info_span!(
        "dynamodb_mapper.put_versioned",
        table = table.name(),
        entity_type = M::ENTITY_TYPE,
        key = tracing::field::Empty,
        consumed_capacity = tracing::field::Empty,
    );
    record_key(&span, &put.key);
    let mode = table.return_consumed_capacity().cloned();
    let mut used = capacity::start(capacity::asks(mode.as_ref()));
    let request = table
        .client()
        .put_item()
        .table_name(table.name())
        .set_item(Some(put.item))
        .set_return_consumed_capacity(mode)
        .with_condition(put.condition)?;
    let sent = send_conditional!(table, "PutItem", request);
    match sent.instrument(span.clone()).await {
        Ok(out) => {
            capacity::add_all(&mut used, out.consumed_capacity());
            capacity::record(&span, used.as_ref());
            record.version = Some(put.next);
            record.stored = true;
            Ok((put.next, used))
        }
        Err(Failed::Service(e)) if e.is_conditional_check_failed_exception() => {
            Err(conflict::<M>(record, &put.key))
        }
        Err(f) => Err(f
            .into_write_error("PutItem", describe_key(&put.key))
            .with_entity_type(M::ENTITY_TYPE)),
    }
}

/// See [`Table::delete_versioned`].
pub(super) async fn delete_versioned<M: Mapper>(
    table: &Table,
    record: &Record<M::Entity>,
) -> Result<()> {
    let (key, condition) = versioned_delete::<M>(record)?;
    let span = tracing::info_span!(
        "dynamodb_mapper.delete_versioned",
        table = table.name(),
        entity_type = M::ENTITY_TYPE,
        key = tracing::field::Empty,
        consumed_capacity = tracing::field::Empty,
    );
    record_key(&span, &key);
    let mode = table.return_consumed_capacity().cloned();
    let mut used = capacity::start(capacity::asks(mode.as_ref()));
    let request = table
        .client()
        .delete_item()
        .table_name(table.name())
        .set_key(Some(key.clone()))
        .set_return_consumed_capacity(mode)
        .with_condition(condition)?;
    let sent = send_conditional!(table, "DeleteItem", request);
    match sent.instrument(span.clone()).await {
        Ok(out) => {
            capacity::add_all(&mut used, out.consumed_capacity());
            capacity::record(&span, used.as_ref());
            Ok(())
        }
        Err(Failed::Service(e)) if e.is_conditional_check_failed_exception() => {
            Err(conflict::<M>(record, &key))
        }
        Err(f) => Err(f
            .into_write_error("DeleteItem", describe_key(&key))
            .with_entity_type(M::ENTITY_TYPE)),
    }
}

/// See [`Table::update_with_retry`].
pub(super) async fn update_with_retry<M, F>(
    table: &Table,
    key: Item,
    mut change: F,
) -> Result<Record<M::Entity>>
where
    M: Mapper,
    F: FnMut(&mut Record<M::Entity>) -> Result<()>,
{
    let span = tracing::info_span!(
        "dynamodb_mapper.update_with_retry",
        table = table.name(),
        entity_type = M::ENTITY_TYPE,
        key = %describe_key(&key),
        attempts = tracing::field::Empty,
        consumed_capacity = tracing::field::Empty,
    );
    let asked = M::TABLE
        .key_of(&key)
        .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
    let policy = table.retry_policy();
    // Every read, write and pause shares one deadline.
    let table = &table.started();
    let mut attempt = 0;
    // What every read and write consumed, the conflicting ones included.
    let mut used = capacity::start(capacity::asks(table.return_consumed_capacity()));
    let recorder = span.clone();
    async move {
    loop {
        attempt += 1;
        let span = &recorder;
        span.record("attempts", attempt);
        let (found, read_used) = read::<M>(table, key.clone()).await?;
        capacity::merge(&mut used, read_used.as_ref());
        capacity::record(span, used.as_ref());
        let Some(mut record) = found else {
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
        match put::<M>(table, &mut record).await {
            Ok((_, put_used)) => {
                capacity::merge(&mut used, put_used.as_ref());
                capacity::record(span, used.as_ref());
                return Ok(record);
            }
            Err(e) if e.kind() == ErrorKind::VersionConflict && attempt < policy.max_attempts() => {
                tracing::debug!(attempt, "version conflict, retrying");
                table.bound().pause("PutItem", policy.delay(attempt)).await?;
            }
            Err(e) => return Err(e),
        }
    }
    }
    .instrument(span)
    .await
}
