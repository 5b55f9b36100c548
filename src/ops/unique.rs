//! Sentinels in transactions: the conditions that keep one sentinel per
//! value, the actions a write adds for the sentinels its values change, and
//! the violation a canceled sentinel put means.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::describe::describe_key;
use crate::error::{Error, Result};
use crate::expr::{Attr, Condition, Expression};
use crate::item::Item;
use crate::mapper::Mapper;
use crate::mapper::unique::{self, OWNER, Sentinel};
use crate::record::Record;
use crate::schema::TableSchema;

/// The condition of a sentinel's put and delete: there is none (a put
/// where none exists, a delete of one already gone), or it is `owner`'s (a
/// write sent again, a sentinel repaired, a value this item leaves).
pub(crate) fn free_or_mine(schema: TableSchema, owner: &Item) -> Result<Expression> {
    let free = Attr::top_level(schema.partition_key.name).not_exists();
    let mine = Attr::top_level(OWNER).eq(AttributeValue::M(owner.clone()));
    (free | mine).build_with_stem("dmu")
}

/// The refusal of `operation` on an item of `M` when `M` has unique
/// constraints (`None` when it has none).
pub(crate) fn unique_refusal<M: Mapper>(
    key: &Item,
    operation: &'static str,
    instead: &'static str,
) -> Option<Error> {
    let constraint = M::UNIQUE.first()?;
    let field = constraint.fields.first().copied().unwrap_or_default();
    Some(
        Error::unique_check_required(
            describe_key(key),
            operation,
            constraint.name,
            field,
            instead,
        )
        .with_entity_type(M::ENTITY_TYPE),
    )
}

/// Whether `err` is a transaction canceled because the action at index 0
/// (a helper's entity write, ahead of its sentinels) failed its condition:
/// the helper's own conflict, not a violation.
pub(crate) fn entity_refused(err: &Error) -> bool {
    matches!(
        err.details(),
        crate::ErrorDetails::TransactionCanceled { canceled, .. }
            if canceled.iter().any(|c| c.index == 0 && c.code == "ConditionalCheckFailed")
    )
}

/// Whether a write of `M`'s item from `old` to `new` moves sentinels (the
/// helper then sends it as a transaction with them).
///
/// # Errors
/// As the sentinels' rendering.
pub(crate) fn moves<M: Mapper>(old: Option<&Item>, new: Option<&Item>) -> Result<bool> {
    Ok(!crate::mapper::unique::changes::<M>(old, new)?.is_empty())
}

/// A sentinel put of a transaction: a cancellation of it for its condition
/// is a [`UniqueViolation`](crate::ErrorKind::UniqueViolation).
#[derive(Debug, Clone)]
pub(crate) struct SentinelPut {
    pub(crate) sentinel: Sentinel,
    pub(crate) entity_type: &'static str,
    pub(crate) owner: Item,
}

impl SentinelPut {
    /// The violation its cancellation means, naming the holder the
    /// sentinel as it was (`found`) names.
    pub(crate) fn violation(&self, found: Option<&Item>) -> Error {
        let holder = found.and_then(unique::read).and_then(|(_, owner)| owner);
        Error::unique_violation(
            describe_key(&self.owner),
            self.sentinel.constraint,
            self.sentinel.value.clone(),
            holder,
        )
        .with_entity_type(self.entity_type)
    }
}

/// The unique values `record` was read with, for a write that replaces
/// them: `None` for a record never read (no item, no sentinels), an error
/// for one marked stored without them (built by hand).
pub(crate) fn read_values<'r, M: Mapper>(
    record: &'r Record<M::Entity>,
    key: &Item,
    operation: &'static str,
) -> Result<Option<&'r Item>> {
    if M::UNIQUE.is_empty() || (!record.stored && record.version.is_none()) {
        return Ok(None);
    }
    match record.unique_read() {
        Some(values) => Ok(Some(values)),
        None => Err(unique_refusal::<M>(
            key,
            operation,
            "a record read from the table (get_record, without a projection that leaves out \
             its unique fields), which knows the values it replaces",
        )
        .unwrap_or_else(|| Error::invalid_value("(record)", "holds no unique values"))),
    }
}

/// The condition that an item exists and still holds `values` in the
/// attributes of `M`'s unique constraints (absent where `values` has none).
///
/// # Errors
/// As the mapper's plan.
pub(crate) fn holds<M: Mapper>(values: Option<&Item>) -> Result<Condition> {
    let mut condition = Attr::top_level(M::SCHEMA.partition_key.name).exists();
    for stored in crate::mapper::unique::attributes::<M>() {
        let attr = Attr::top_level(&stored);
        condition = condition
            & match values.and_then(|v| v.get(&stored)) {
                Some(v) => attr.eq(v.clone()),
                None => attr.not_exists(),
            };
    }
    Ok(condition)
}

/// [`holds`], built, for the item at `key`.
pub(crate) fn still_holds<M: Mapper>(values: Option<&Item>, key: &Item) -> Result<Expression> {
    holds::<M>(values)?
        .build_with_stem("dmq")
        .map_err(|e| e.with_key(|| describe_key(key)))
}

/// What a versioned write of `record` adds to its condition for `M`'s
/// unique constraints: that the stored item still holds the values the
/// record was read with, so a record whose values are stale (written by a
/// transaction since, say) meets a conflict instead of moving the wrong
/// sentinels. `None` for a mapper without constraints or a new record.
///
/// # Errors
/// [`UniqueCheckRequired`](crate::ErrorKind::UniqueCheckRequired) for a
/// record with a version or marked stored but without the values read (not
/// read with `get_record`, or read through a projection that left them
/// out).
pub(crate) fn record_guard<M: Mapper>(
    record: &Record<M::Entity>,
    key: &Item,
    operation: &'static str,
) -> Result<Option<Condition>> {
    if M::UNIQUE.is_empty() || (!record.stored && record.version.is_none()) {
        return Ok(None);
    }
    match read_values::<M>(record, key, operation)? {
        Some(values) => holds::<M>(Some(values)).map(Some),
        None => Ok(None),
    }
}
