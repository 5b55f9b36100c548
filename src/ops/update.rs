//! Updates through the helpers: typed partial updates
//! ([`Table::update_entity`], version-checked [`Table::update_versioned`]),
//! atomic counters ([`Table::increment`]) and set-if-absent
//! ([`Table::put_if_absent`]); and the check every raw [`Update`] a helper
//! sends goes through.

use aws_sdk_dynamodb::operation::update_item::{UpdateItemError, UpdateItemOutput};
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue, ReturnValuesOnConditionCheckFailure};
use tracing::Instrument;

use super::Table;
use super::call::{Failed, call, send_conditional};
use super::describe_key;
use super::gate::check_update;
use super::version::{conflict, first_version, version_attribute, versioned_new, versioned_update};
use crate::error::{Error, Result};
use crate::expr::{Attr, Condition, ConditionExt, Expression, Update, UpdateExt, ValueType};
use crate::item::Item;
use crate::mapper::{Mapper, MapperExt};
use crate::record::Record;

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
) -> Result<UpdateItemOutput, Failed<UpdateItemError>> {
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
        // The item as it was comes back with a refusal, to say why.
        request = request
            .with_condition(condition)
            .map_err(Failed::NotSent)?
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
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
        Err(f) => Err(f
            .into_write_error("UpdateItem", describe_key(&key))
            .with_entity_type(M::ENTITY_TYPE)),
    }
}

/// See [`Table::update_versioned`].
pub(super) async fn update_versioned<M: Mapper>(
    table: &Table,
    record: &mut Record<M::Entity>,
    new: M::Entity,
) -> Result<u64> {
    let attribute = version_attribute::<M>()?;
    let update = Update::between::<M>(&record.entity, &new)?;
    if update.is_empty()
        && let Some(v) = record.version
    {
        // Nothing to write, but the record may be stale: `new` is the
        // stored state only if the item is still at the version read.
        let key = M::key(&new)?;
        let span = span::<M>("update", table, &key);
        let stored = stored_version(table, key.clone(), attribute)
            .instrument(span)
            .await?;
        if stored != Some(v) {
            return Err(conflict::<M>(record, &key));
        }
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
        Err(f) => Err(f
            .into_write_error("UpdateItem", describe_key(&versioned.key))
            .with_entity_type(M::ENTITY_TYPE)),
    }
}

/// The version of the item at `key` as stored now (a strongly consistent
/// read of that one attribute): `None` when there is no item or it has no
/// version a `u64` holds.
async fn stored_version(table: &Table, key: Item, attribute: &str) -> Result<Option<u64>> {
    let request = table
        .client()
        .get_item()
        .table_name(table.name())
        .set_key(Some(key))
        .consistent_read(true)
        .projection_expression("#v")
        .expression_attribute_names("#v", attribute)
        .set_return_consumed_capacity(table.return_consumed_capacity().cloned())
        .send();
    let out = call(&table.bound(), "GetItem", request)
        .await
        .map_err(|f| f.into_error("GetItem"))?;
    Ok(match out.item().and_then(|item| item.get(attribute)) {
        Some(AttributeValue::N(n)) => n.parse().ok(),
        _ => None,
    })
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
    check_update::<M>(&update, "Table::update_entity or Table::update_with_retry")?;
    // Applied only to a number whose sum stays a 64-bit integer (or to no
    // value yet): DynamoDB would add to any number and refuse a string
    // only after the request, and a sum out of range would be stored but
    // could not be returned.
    let counter = Attr::top_level(attribute);
    let (low, high) = if by >= 0 {
        (i64::MIN, i64::MAX - by)
    } else {
        (i64::MIN - by, i64::MAX)
    };
    let mut condition = counter.clone().not_exists()
        | (counter.clone().has_type(ValueType::Number) & counter.between(low, high));
    if let Some(d) = M::TABLE.discriminator_attribute() {
        // A new item gets the type; an existing one must be of it.
        update = update.set(
            Attr::top_level(d),
            Attr::top_level(d).if_not_exists(M::ENTITY_TYPE),
        );
        let types = std::iter::once(M::ENTITY_TYPE).chain(M::ALIASES.iter().copied());
        let pk = Attr::top_level(M::TABLE.partition_key_attribute().name);
        condition = (pk.not_exists() | Attr::top_level(d).is_in(types)) & condition;
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
        Some(condition.build_with_prefix("dmi")?),
        Some(ReturnValue::UpdatedNew),
        &span,
    )
    .await
    {
        Ok(out) => out,
        Err(Failed::Service(UpdateItemError::ConditionalCheckFailedException(e))) => {
            let reason = refusal::<M>(e.item(), attribute, by);
            return Err(Error::invalid_value(
                attribute,
                format!(
                    "cannot be incremented by {by} at {}: {reason}; nothing was written",
                    describe_key(&key)
                ),
            )
            .with_entity_type(M::ENTITY_TYPE));
        }
        Err(f) => {
            return Err(f
                .into_write_error("UpdateItem", describe_key(&key))
                .with_entity_type(M::ENTITY_TYPE));
        }
    };
    let value = out.attributes().and_then(|a| a.get(attribute));
    let applied = |reason: String| {
        Error::maybe_applied(
            "UpdateItem",
            describe_key(&key),
            Error::unexpected_response("UpdateItem", reason),
        )
        .with_entity_type(M::ENTITY_TYPE)
    };
    match value {
        Some(AttributeValue::N(n)) => n.parse::<i64>().map_err(|_| {
            applied(format!(
                "the increment was applied, but the new value of `{attribute}` is {n}, which is \
                 not a 64-bit integer"
            ))
        }),
        other => Err(applied(format!(
            "the increment was applied, but the answer holds no number for `{attribute}` \
             (found {})",
            other.map_or("nothing", crate::item::type_name)
        ))),
    }
}

/// Why an increment's condition failed, from the item as it was (DynamoDB
/// hands it back with the refusal).
fn refusal<M: Mapper>(item: Option<&Item>, attribute: &str, by: i64) -> String {
    let Some(item) = item else {
        return "dynamodb refused it without saying why".to_owned();
    };
    if let Some(d) = M::TABLE.discriminator_attribute() {
        let ours = |t: &str| t == M::ENTITY_TYPE || M::ALIASES.contains(&t);
        match item.get(d) {
            Some(AttributeValue::S(t)) if ours(t) => {}
            Some(AttributeValue::S(t)) => {
                return format!("the item there is of entity type {t:?}, not of this one");
            }
            _ => return "the item there has no entity type of this mapper".to_owned(),
        }
    }
    match item.get(attribute) {
        Some(AttributeValue::N(n)) => format!(
            "it holds {n}, and the sum would leave the 64-bit integer range ({}..={})",
            i64::MIN,
            i64::MAX
        ),
        Some(other) => format!("it holds {}, not a number", crate::item::type_name(other)),
        None => format!("dynamodb refused adding {by} to an absent value"),
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
        Err(f) => Err(f
            .into_write_error("PutItem", describe_key(&key))
            .with_entity_type(M::ENTITY_TYPE)),
    }
}
