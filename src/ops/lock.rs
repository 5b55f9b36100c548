//! Optimistic locking with a version attribute: stale writes and deletes are
//! rejected by DynamoDB, never applied.

use tracing::Instrument;

use super::Table;
use super::call::{Failed, call, call_conditional};
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
    let request = table
        .client()
        .get_item()
        .table_name(table.name())
        .set_key(Some(key))
        .consistent_read(true)
        .send();
    let out = call(table.call_bound(), "GetItem", request)
        .await
        .map_err(|f| f.into_error("GetItem"))?;
    out.item.map(M::record_from_item).transpose()
}

/// See [`Table::put_versioned`].
pub(super) async fn put_versioned<M: Mapper>(
    table: &Table,
    record: &mut Record<M::Entity>,
) -> Result<u64> {
    let put = versioned_put::<M>(record)?;
    let request = table
        .client()
        .put_item()
        .table_name(table.name())
        .set_item(Some(put.item))
        .with_condition(put.condition)?;
    let sent = call_conditional(
        table.call_bound(),
        "PutItem",
        table.retry_policy(),
        |no_retries| {
            request
                .clone()
                .customize()
                .config_override(no_retries)
                .send()
        },
    );
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

/// See [`Table::delete_versioned`].
pub(super) async fn delete_versioned<M: Mapper>(
    table: &Table,
    record: &Record<M::Entity>,
) -> Result<()> {
    let (key, condition) = versioned_delete::<M>(record)?;
    let request = table
        .client()
        .delete_item()
        .table_name(table.name())
        .set_key(Some(key.clone()))
        .with_condition(condition)?;
    let sent = call_conditional(
        table.call_bound(),
        "DeleteItem",
        table.retry_policy(),
        |no_retries| {
            request
                .clone()
                .customize()
                .config_override(no_retries)
                .send()
        },
    );
    match sent.await {
        Ok(_) => Ok(()),
        Err(Failed::Service(e)) if e.is_conditional_check_failed_exception() => {
            Err(conflict::<M>(record, &key))
        }
        Err(f) => Err(f.into_error("DeleteItem")),
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
    );
    let asked = M::TABLE
        .key_of(&key)
        .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
    let policy = table.retry_policy();
    let mut attempt = 0;
    async move {
    loop {
        attempt += 1;
        tracing::Span::current().record("attempts", attempt);
        let Some(mut record) = get_record::<M>(table, key.clone()).await? else {
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
        match put_versioned::<M>(table, &mut record).await {
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
