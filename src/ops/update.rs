//! Updates through the helpers: typed partial updates
//! ([`Table::update_entity`], version-checked [`Table::update_versioned`]),
//! atomic counters ([`Table::increment`]) and set-if-absent
//! ([`Table::put_if_absent`]); and the check every raw [`Update`] a helper
//! sends goes through.

use aws_sdk_dynamodb::operation::update_item::UpdateItemOutput;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};
use tracing::Instrument;

use super::Table;
use super::call::{Failed, send_conditional};
use super::describe_key;
use super::version::{conflict, first_version, version_attribute, versioned_new, versioned_update};
use crate::error::{Error, Result};
use crate::expr::{Attr, Condition, ConditionExt, Expression, Update, UpdateExt};
use crate::item::Item;
use crate::mapper::{Mapper, MapperExt};
use crate::record::Record;

/// Refuses a hand-built update of `M`'s items that changes an attribute
/// the helpers keep: the table's key attributes (an update cannot move an
/// item), the version attribute (set by the versioned helpers only) and the
/// discriminator (the mapper writes it: an item whose type changes, or goes,
/// reads back as another entity type, or as none).
pub(crate) fn check_raw_update<M: Mapper>(update: &Update) -> Result<()> {
    let table = M::TABLE;
    for name in update.top_level_names() {
        let role = if name == table.partition_key_attribute().name {
            "the partition key; an update cannot move an item: delete it and put the new one in one transaction"
        } else if table.sort_key_attribute().is_some_and(|k| k.name == name) {
            "the sort key; an update cannot move an item: delete it and put the new one in one transaction"
        } else if table.version_attribute() == Some(name) {
            "the version attribute, which only the versioned helpers set"
        } else if table.discriminator_attribute() == Some(name) {
            "the discriminator, which the mapper writes; an update cannot change an item's entity type"
        } else {
            continue;
        };
        return Err(
            Error::invalid_value(name, format!("cannot be updated: it is {role}"))
                .with_entity_type(M::ENTITY_TYPE),
        );
    }
    Ok(())
}

/// The condition that the item at the key exists.
fn exists<M: Mapper>() -> Result<Expression> {
    Attr::top_level(M::TABLE.partition_key_attribute().name)
        .exists()
        .build_with_prefix("dme")
}

/// Sends one conditional `UpdateItem` (no SDK retries: see
/// `call_conditional`).
async fn send(
    table: &Table,
    key: Item,
    update: Update,
    condition: Option<Expression>,
    return_values: Option<ReturnValue>,
    span: &tracing::Span,
) -> Result<UpdateItemOutput, Failed<aws_sdk_dynamodb::operation::update_item::UpdateItemError>> {
    let mut request = table
        .client()
        .update_item()
        .table_name(table.name())
        .set_key(Some(key))
        .set_return_values(return_values)
        .set_return_consumed_capacity(table.return_consumed_capacity().cloned())
        .with_update(update)
        .map_err(Failed::NotSent)?;
    if let Some(condition) = condition {
        request = request.with_condition(condition).map_err(Failed::NotSent)?;
    }
    send_conditional!(table, "UpdateItem", request)
        .instrument(span.clone())
        .await
}

fn span<M: Mapper>(name: &'static str, table: &Table, key: &Item) -> tracing::Span {
    match name {
        "increment" => tracing::info_span!(
            "dynamodb_mapper.increment",
            table = table.name(),
            entity_type = M::ENTITY_TYPE,
            key = %describe_key(key),
        ),
        "put_if_absent" => tracing::info_span!(
            "dynamodb_mapper.put_if_absent",
            table = table.name(),
            entity_type = M::ENTITY_TYPE,
            key = %describe_key(key),
        ),
        _ => tracing::info_span!(
            "dynamodb_mapper.update",
            table = table.name(),
            entity_type = M::ENTITY_TYPE,
            key = %describe_key(key),
        ),
    }
}

/// See [`Table::update_entity`].
pub(super) async fn update_entity<M: Mapper>(
    table: &Table,
    old: &M::Entity,
    new: &M::Entity,
) -> Result<()> {
    let key = M::key(new)?;
    if let Some(attribute) = M::TABLE.version_attribute() {
        return Err(Error::version_check_required(
            describe_key(&key),
            "update",
            attribute,
            "Table::update_versioned with the record read",
        )
        .with_entity_type(M::ENTITY_TYPE));
    }
    let update = Update::between::<M>(old, new)?;
    if update.is_empty() {
        return Ok(());
    }
    let span = span::<M>("update", table, &key);
    match send(
        table,
        key.clone(),
        update,
        Some(exists::<M>()?),
        None,
        &span,
    )
    .await
    {
        Ok(_) => Ok(()),
        Err(Failed::Service(e)) if e.is_conditional_check_failed_exception() => {
            Err(Error::not_found(describe_key(&key)).with_entity_type(M::ENTITY_TYPE))
        }
        Err(f) => Err(f.into_error("UpdateItem")),
    }
}

/// See [`Table::update_versioned`].
pub(super) async fn update_versioned<M: Mapper>(
    table: &Table,
    record: &mut Record<M::Entity>,
    new: M::Entity,
) -> Result<u64> {
    version_attribute::<M>()?;
    let update = Update::between::<M>(&record.entity, &new)?;
    if update.is_empty()
        && let Some(v) = record.version
    {
        record.entity = new;
        return Ok(v);
    }
    let versioned = versioned_update::<M>(record, update)?;
    let span = span::<M>("update", table, &versioned.key);
    let sent = send(
        table,
        versioned.key.clone(),
        versioned.update,
        Some(versioned.condition),
        None,
        &span,
    )
    .await;
    match sent {
        Ok(_) => {
            record.entity = new;
            record.version = Some(versioned.next);
            record.stored = true;
            Ok(versioned.next)
        }
        Err(Failed::Service(e)) if e.is_conditional_check_failed_exception() => {
            Err(conflict::<M>(record, &versioned.key))
        }
        Err(f) => Err(f.into_error("UpdateItem")),
    }
}

/// See [`Table::increment`].
pub(super) async fn increment<M: Mapper>(
    table: &Table,
    key: Item,
    attribute: &str,
    by: i64,
) -> Result<i64> {
    let key = M::TABLE
        .key_of(&key)
        .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
    let mut update = Update::new().add(Attr::top_level(attribute), by);
    check_raw_update::<M>(&update)?;
    let discriminator = M::TABLE.discriminator_attribute();
    let mut condition = None;
    if let Some(d) = discriminator {
        // A new item gets the type; an existing one must be of it.
        update = update.set(
            Attr::top_level(d),
            Attr::top_level(d).if_not_exists(M::ENTITY_TYPE),
        );
        let types = std::iter::once(M::ENTITY_TYPE).chain(M::ALIASES.iter().copied());
        let pk = Attr::top_level(M::TABLE.partition_key_attribute().name);
        condition =
            Some((pk.not_exists() | Attr::top_level(d).is_in(types)).build_with_prefix("dmi")?);
    }
    if let Some(v) = M::TABLE.version_attribute() {
        // A counter change is a change: the version moves on, so a writer
        // holding the old version cannot overwrite the new count.
        update = update.set(
            Attr::top_level(v),
            Attr::top_level(v).if_not_exists(first_version()).plus(1),
        );
    }
    let span = span::<M>("increment", table, &key);
    let out = match send(
        table,
        key.clone(),
        update,
        condition,
        Some(ReturnValue::UpdatedNew),
        &span,
    )
    .await
    {
        Ok(out) => out,
        Err(Failed::Service(e)) if e.is_conditional_check_failed_exception() => {
            return Err(Error::invalid_value(
                attribute,
                format!(
                    "cannot be incremented: the item at {} is not of this entity type",
                    describe_key(&key)
                ),
            )
            .with_entity_type(M::ENTITY_TYPE));
        }
        Err(f) => return Err(f.into_error("UpdateItem")),
    };
    let value = out.attributes().and_then(|a| a.get(attribute));
    match value {
        Some(AttributeValue::N(n)) => n.parse::<i64>().map_err(|_| {
            Error::unexpected_response(
                "UpdateItem",
                format!("the new value of `{attribute}` is {n}, which is not a 64-bit integer"),
            )
        }),
        other => Err(Error::unexpected_response(
            "UpdateItem",
            format!(
                "the answer holds no number for `{attribute}` (found {})",
                other.map_or("nothing", crate::item::type_name)
            ),
        )),
    }
}

/// See [`Table::put_if_absent`].
pub(super) async fn put_if_absent<M: Mapper>(table: &Table, entity: &M::Entity) -> Result<bool> {
    let (item, condition) = if M::TABLE.version_attribute().is_some() {
        let put = versioned_new::<M>(entity)?;
        (put.item, put.condition)
    } else {
        let item = M::to_item(entity)?;
        let pk = Attr::top_level(M::TABLE.partition_key_attribute().name);
        (item, Condition::build_with_prefix(&pk.not_exists(), "dmn")?)
    };
    let key = M::TABLE
        .key_of(&item)
        .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
    let span = span::<M>("put_if_absent", table, &key);
    let request = table
        .client()
        .put_item()
        .table_name(table.name())
        .set_item(Some(item))
        .set_return_consumed_capacity(table.return_consumed_capacity().cloned())
        .with_condition(condition)?;
    let sent = send_conditional!(table, "PutItem", request);
    match sent.instrument(span).await {
        Ok(_) => Ok(true),
        Err(Failed::Service(e)) if e.is_conditional_check_failed_exception() => Ok(false),
        Err(f) => Err(f.into_error("PutItem")),
    }
}
