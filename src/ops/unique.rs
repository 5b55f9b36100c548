//! Sentinels in transactions: the conditions that keep one sentinel per
//! value, the actions a write adds for the sentinels its values change, and
//! the violation a canceled sentinel put means.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::describe::describe_key;
use crate::error::{Error, Result};
use crate::expr::{Attr, Expression};
use crate::item::Item;
use crate::mapper::Mapper;
use crate::mapper::unique::OWNER;
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
