//! The version scheme every helper that writes a versioned entity shares
//! (`put_record`, `delete_record`, `update_with_retry`,
//! `update_record`, `put_new` in `version.rs`, and the
//! `Transaction`'s versioned actions): what a versioned put, delete and
//! update send, with their conditions, and the conflict a refused one means.
//! Stale writes and deletes are rejected by DynamoDB, never applied.
//!
//! # Versions never repeat across incarnations of an item
//!
//! A version that restarted at 1 after a delete would let a writer holding
//! version 1 of the deleted item overwrite the re-created one (the ABA
//! problem). So the first version of every item incarnation is taken from
//! the client's clock (its time source): microseconds since the Unix epoch
//! times 1,024, plus a random number below 1,024; each write then adds one.
//! An item re-created by a write built after the delete starts above every
//! version its predecessor reached (a DynamoDB item takes at most about one
//! write per millisecond, so no item counts up a thousand versions per
//! microsecond), and the random part separates incarnations created in the
//! same microsecond by clocks that disagree. A write built before the
//! delete and sent again after it (a throttled or conflicting attempt
//! retried, a transaction resent with its token) carries the first version
//! it was built with, which can be below the predecessor's: still not one
//! the key had, unless it falls within the few versions an earlier
//! incarnation counted up from the same microsecond (the histories test,
//! `tests/histories.rs`, checks that no incarnation starts at a version
//! the key had before).
//! Versions stay below 2^63 until the year 2255, so they fit an `i64` as
//! well as the `u64` the crate uses.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::describe::describe_key;
use crate::error::{Error, Result};
use crate::expr::{Attr, Condition, Expression, Update, value};
use crate::item::Item;
use crate::mapper::{Mapper, MapperExt};
use crate::record::Record;

use super::unique::record_guard;

const PREFIX: &str = "dmv";

/// The version attribute of `M`'s table, or an error naming the entity.
pub(crate) fn version_attribute<M: Mapper>() -> Result<&'static str> {
    M::SCHEMA.version.ok_or_else(|| {
        Error::invalid_value(
            "(version)",
            "cannot be checked: the table schema declares no version attribute",
        )
        .with_entity_type(M::ENTITY_TYPE)
    })
}

/// The first version of a new incarnation of an item (see the module docs),
/// from `now` (the client's time source, so a client with a test clock
/// writes the same versions on every run).
pub(crate) fn first_version(now: SystemTime) -> u64 {
    let micros = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros());
    // Clamped so that the result fits an i64 (2^53 µs is the year 2255).
    let micros = u64::try_from(micros).unwrap_or(u64::MAX).min((1 << 53) - 1);
    (micros << 10) | fastrand::u64(..1024)
}

/// What the stored item must look like for a versioned write of a record
/// read as `stored` with `version`.
fn expected_state<M: Mapper>(stored: bool, version: Option<u64>, attr: &str) -> Condition {
    let pk = Attr::top_level(M::SCHEMA.partition_key.name);
    let attribute = Attr::top_level(attr);
    match (stored, version) {
        (_, Some(v)) => attribute.eq(value(v)),
        // Read from the table, but written before the table was versioned:
        // adopt it, as long as nobody else has in the meantime.
        (true, None) => pk.exists() & attribute.not_exists(),
        (false, None) => pk.not_exists(),
    }
}

/// A versioned put of a record: the item to put (with the next version), the
/// condition that the stored item is still as it was read, and the next
/// version.
pub(crate) struct VersionedPut {
    pub(crate) item: Item,
    pub(crate) key: Item,
    pub(crate) condition: Expression,
    pub(crate) next: u64,
}

/// A versioned put of `record`.
pub(crate) fn versioned_put<M: Mapper>(
    record: &Record<M::Entity>,
    now: SystemTime,
) -> Result<VersionedPut> {
    version_attribute::<M>()?;
    let item = M::record_to_item(record)?;
    let key = M::SCHEMA
        .key_of(&item)
        .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
    let guard = record_guard::<M>(record, &key, "versioned put")?;
    versioned_item::<M>(item, record.stored, record.version, guard, now)
}

/// A versioned put of a new entity (never stored): only if no item exists.
pub(crate) fn versioned_new<M: Mapper>(
    entity: &M::Entity,
    now: SystemTime,
) -> Result<VersionedPut> {
    version_attribute::<M>()?;
    let item = M::to_item(entity)?;
    versioned_item::<M>(item, false, None, None, now)
}

fn versioned_item<M: Mapper>(
    mut item: Item,
    stored: bool,
    version: Option<u64>,
    guard: Option<Condition>,
    now: SystemTime,
) -> Result<VersionedPut> {
    let attr = version_attribute::<M>()?;
    let next = match version {
        None => first_version(now),
        Some(v) => v.checked_add(1).ok_or_else(|| {
            Error::invalid_value(attr, "cannot be incremented past u64::MAX")
                .with_entity_type(M::ENTITY_TYPE)
        })?,
    };
    item.insert(
        attr.to_owned(),
        aws_sdk_dynamodb::types::AttributeValue::N(next.to_string()),
    );
    let key = M::SCHEMA
        .key_of(&item)
        .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
    // `to_item` checked the item without its version number.
    crate::check::size(&item).map_err(|e| {
        e.with_entity_type(M::ENTITY_TYPE)
            .with_key(|| crate::describe::describe_key(&key))
    })?;
    let condition = guarded(expected_state::<M>(stored, version, attr), guard)?;
    Ok(VersionedPut {
        item,
        key,
        condition,
        next,
    })
}

/// The version attribute of `M`'s table, for a versioned `what` of a
/// record that was read (a record never read has no version to check).
fn read_before<M: Mapper>(record: &Record<M::Entity>, what: &str) -> Result<&'static str> {
    let attr = version_attribute::<M>()?;
    if !record.stored && record.version.is_none() {
        return Err(Error::invalid_value(
            attr,
            format!("is unknown: read the record from the table before a versioned {what}"),
        )
        .with_entity_type(M::ENTITY_TYPE));
    }
    Ok(attr)
}

/// The key of `record`'s item and the condition that it is still as read:
/// its version, and its unique values.
fn read_condition<M: Mapper>(
    record: &Record<M::Entity>,
    attr: &str,
    operation: &'static str,
) -> Result<(Item, Expression)> {
    let key = M::key(&record.entity)?;
    let guard = record_guard::<M>(record, &key, operation)?;
    let condition = guarded(
        expected_state::<M>(record.stored, record.version, attr),
        guard,
    )?;
    Ok((key, condition))
}

/// A versioned delete of a record: its key and the condition that the stored
/// item is still as it was read.
pub(crate) fn versioned_delete<M: Mapper>(
    record: &Record<M::Entity>,
) -> Result<(Item, Expression)> {
    let attr = read_before::<M>(record, "delete")?;
    read_condition::<M>(record, attr, "versioned delete")
}

/// The version condition, with the unique values' guard when there is one.
fn guarded(condition: Condition, guard: Option<Condition>) -> Result<Expression> {
    match guard {
        Some(guard) => (condition & guard).build_with_stem(PREFIX),
        None => condition.build_with_stem(PREFIX),
    }
}

/// The conflict error for a versioned write of `record` at `key`.
/// An update with its version check and increment: what
/// [`Table::update_record`](super::Table::update_record) and
/// [`Transaction::update_record`](super::Transaction::update_record) send.
pub(crate) struct VersionedUpdate {
    pub(crate) key: Item,
    pub(crate) update: Update,
    pub(crate) condition: Expression,
    pub(crate) next: u64,
}

/// `update` of `record`'s item, checked against the version read and
/// setting the next one, in the same request.
pub(crate) fn versioned_update<M: Mapper>(
    record: &Record<M::Entity>,
    update: Update,
    now: SystemTime,
) -> Result<VersionedUpdate> {
    let attr = read_before::<M>(record, "update")?;
    let next = match record.version {
        None => first_version(now),
        Some(v) => v.checked_add(1).ok_or_else(|| {
            Error::invalid_value(attr, "cannot be incremented past u64::MAX")
                .with_entity_type(M::ENTITY_TYPE)
        })?,
    };
    let (key, condition) = read_condition::<M>(record, attr, "versioned update")?;
    Ok(VersionedUpdate {
        key,
        update: update.set(Attr::top_level(attr), next),
        condition,
        next,
    })
}

pub(crate) fn conflict<M: Mapper>(record: &Record<M::Entity>, key: &Item) -> Error {
    Error::version_conflict(describe_key(key), record.version).with_entity_type(M::ENTITY_TYPE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_versions_are_large_distinct_and_fit_an_i64() {
        let a = first_version(SystemTime::now());
        let b = first_version(SystemTime::now());
        assert!(a > 1 << 50, "{a}");
        assert!(i64::try_from(a).is_ok());
        // Later incarnations start higher, except within one microsecond.
        std::thread::sleep(std::time::Duration::from_millis(2));
        let c = first_version(SystemTime::now());
        assert!(c > a.max(b) + 1000, "{a} {b} {c}");
    }
}
