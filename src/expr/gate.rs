//! The write gate for raw updates: every [`Update`] a helper sends that was
//! not rendered by the mapper itself passes [`check_update`], which knows
//! which attributes the mapper derives (keys, index keys rendered from key
//! patterns or written by a hook, discriminator, version) and from which
//! fields, and refuses what would leave one of them stale or moved.
//!
//! Whole items need no such gate: they are rendered by `to_item` (or, raw,
//! checked by `check::write`), derived attributes included.

use super::update::Update;
use crate::error::{Error, Result};
use crate::mapper::{Mapper, derivation};

/// Refuses an update of `M`'s items, sent by `helper`, that changes an
/// attribute the helpers keep: the table's key attributes (an update cannot
/// move an item), the version attribute (set by the versioned helpers
/// only), the discriminator (an item whose type changes, or goes, reads back
/// as another entity type, or as none), and, unless the update was rendered
/// by `M`'s `to_item` or the caller keeps it ([`Update::caller_keeps`]), a
/// derived key or a field it is rendered from. `fix` names the helper that
/// keeps the derived keys right.
pub(crate) fn check_update<M: Mapper>(update: &Update, fix: &str) -> Result<()> {
    let table = M::SCHEMA;
    let rendered = update.is_rendered_by::<M>();
    // Rendered or not, an update of a unique field leaves its sentinel
    // behind unless the helper sending it moves the sentinel.
    let unique = if M::UNIQUE.is_empty() || update.moves_sentinels() {
        Vec::new()
    } else {
        crate::mapper::unique::attributes::<M>()
    };
    for name in update.top_level_names() {
        let refusal = if name == table.partition_key.name
            || table.sort_key.is_some_and(|k| k.name == name)
        {
            let which = if name == table.partition_key.name {
                "partition"
            } else {
                "sort"
            };
            format!(
                "cannot be updated: it is the {which} key; an update cannot move an item: delete \
                 it and put the new one in one transaction"
            )
        } else if table.version == Some(name) {
            "cannot be updated: it is the version attribute, which only the versioned helpers \
             set"
            .to_owned()
        } else if table.discriminator == Some(name) {
            "cannot be updated: it is the discriminator, which the mapper writes; an update \
             cannot change an item's entity type"
                .to_owned()
        } else if unique.iter().any(|u| u == name) {
            let constraint = derivation::<M>(name)?.unique.unwrap_or_default();
            format!(
                "cannot be updated by hand: it is a field of the unique constraint \
                 `{constraint}`, whose sentinel would be left behind; use \
                 Table::update_entity, Table::update_record or Transaction::update_entity, \
                 which move the sentinel in the same transaction"
            )
        } else if rendered {
            continue;
        } else {
            // The derived attributes at stake, and what keeps them from
            // being updated by hand.
            let derivation = derivation::<M>(name)?;
            if derivation.is_free() {
                continue;
            }
            let why = if let Some(pattern) = derivation.rendered.filter(|_| !update.keeps(name)) {
                (
                    name,
                    format!("the mapper renders it from key pattern `{pattern}`"),
                )
            } else if derivation.by_hook && !update.keeps(name) {
                (
                    name,
                    "it is an index key the mapper's `after_to_item` writes".to_owned(),
                )
            } else if let Some((derived, pattern)) = derivation
                .feeds
                .iter()
                .find(|(derived, _)| !update.keeps(derived))
            {
                (
                    *derived,
                    format!(
                        "`{derived}` is rendered from it (key pattern `{pattern}`) and would be \
                         left stale"
                    ),
                )
            } else {
                continue;
            };
            let (kept, why) = why;
            format!(
                "cannot be updated by hand: {why}; use {fix}, which renders it again, or name \
                 `{kept}` in Update::caller_keeps and keep it right in the same update"
            )
        };
        return Err(Error::invalid_value(name, refusal).with_entity_type(M::ENTITY_TYPE));
    }
    Ok(())
}
