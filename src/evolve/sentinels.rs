//! The unique values of a sweep's page ([`Unique`](crate::Unique)): each
//! entity's sentinels, and each sentinel's owner, read back (strongly
//! consistent, in batches); an audit reports the sentinels missing, values
//! held twice and sentinels orphaned, and a backfill repairs what it can:
//! each repair is a transaction that checks the owner is still as read.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, ConditionCheck, Delete, Put, TransactWriteItem};

use super::audit::{Audit, Finding};
use crate::describe::describe_key;
use crate::error::{Error, Result};
use crate::expr::{Apply, Attr, Condition};
use crate::item::Item;
use crate::mapper::unique::{self, OWNER, Sentinel};
use crate::ops::{ActionInfo, ActionKind, Table};
use crate::registry::{Registry, Routed};
use crate::schema::TableSchema;

/// The audit's name for the sentinels of unique values (counted, not
/// decoded).
pub(super) const SENTINELS: &str = "(unique sentinels)";

/// What the unique values of a page need.
#[derive(Default)]
pub(super) struct Check {
    /// A value whose sentinel is absent.
    pub(super) missing: Vec<Held>,
    /// A value whose sentinel names another item, which it names.
    pub(super) taken: Vec<(Held, Item)>,
    /// A sentinel whose owner is gone or no longer holds its value.
    pub(super) orphans: Vec<Orphan>,
}

/// A unique value an item holds.
pub(super) struct Held {
    entity_type: &'static str,
    /// The item, as read.
    item: Item,
    owner: Item,
    /// The attributes its mapper's constraints read.
    attributes: Vec<String>,
    sentinel: Sentinel,
}

/// A sentinel nobody holds.
pub(super) struct Orphan {
    key: Item,
    owner: Item,
    /// The owner as read (`None`: gone), and the attributes its mapper's
    /// constraints read.
    found: Option<(Item, Vec<String>)>,
    why: String,
}

/// A table key as one string (unique mappers have string keys).
fn id(schema: TableSchema, key: &Item) -> String {
    let part = |name: &str| match key.get(name) {
        Some(AttributeValue::S(s)) => s.as_str(),
        _ => "",
    };
    let sk = schema.sort_key.map_or("", |k| part(k.name));
    format!("{}\u{0}{sk}", part(schema.partition_key.name))
}

/// Reads back the sentinels of `items`' unique values and the owners of the
/// sentinels among them.
///
/// # Errors
/// The batch read's ([`BatchGetter::get_items`](crate::ops::BatchGetter::get_items)).
pub(super) async fn check<T>(
    table: &Table,
    registry: &Registry<T>,
    items: &[Item],
) -> Result<Check> {
    let schema = registry.table();
    let mut held = Vec::new();
    let mut seen = Vec::new();
    // Only the items of mappers with unique values, and sentinels, cost
    // more than a look at their discriminator.
    for item in items {
        match registry.mapper_of(item) {
            Routed::Mapper(m) => {
                // An item its mapper cannot read is the audit's to report.
                let sentinels = (m.sentinels)(item).unwrap_or_default();
                if sentinels.is_empty() {
                    continue;
                }
                let Ok(key) = schema.key_of(item) else {
                    continue;
                };
                for sentinel in sentinels {
                    held.push(Held {
                        entity_type: m.entity_type,
                        item: item.clone(),
                        owner: key.clone(),
                        attributes: (m.unique_attributes)(),
                        sentinel,
                    });
                }
            }
            Routed::Sentinel => {
                if let (Some(AttributeValue::M(owner)), Ok(key)) =
                    (item.get(OWNER), schema.key_of(item))
                {
                    seen.push((key, owner.clone()));
                }
            }
            Routed::Unknown(_) | Routed::Missing(_) => {}
        }
    }
    if held.is_empty() && seen.is_empty() {
        return Ok(Check::default());
    }
    // Each key once (two items holding one value share a sentinel).
    let mut asked = std::collections::HashSet::new();
    let keys: Vec<Item> = held
        .iter()
        .map(|h| &h.sentinel.key)
        .chain(seen.iter().map(|(_, owner)| owner))
        .filter(|key| asked.insert(id(schema, key)))
        .cloned()
        .collect();
    let (found, _) = table
        .batch_getter()
        .consistent_read(true)
        .get_items(keys)
        .await?;
    let found: HashMap<String, Item> = found
        .into_iter()
        .filter_map(|item| Some((id(schema, &schema.key_of(&item).ok()?), item)))
        .collect();
    let mut out = Check::default();
    let mut missing: HashMap<String, Vec<Held>> = HashMap::new();
    for h in held {
        match found
            .get(&id(schema, &h.sentinel.key))
            .map(|s| s.get(OWNER))
        {
            None => missing
                .entry(id(schema, &h.sentinel.key))
                .or_default()
                .push(h),
            Some(Some(AttributeValue::M(owner))) if *owner == h.owner => {}
            Some(Some(AttributeValue::M(owner))) => {
                let holder = owner.clone();
                out.taken.push((h, holder));
            }
            Some(_) => out.taken.push((h, Item::new())),
        }
    }
    // A value several items of the page hold, none with its sentinel, is
    // held twice: each is reported with another holder, and none gets the
    // sentinel.
    for (_, mut holders) in missing {
        if holders.len() == 1 {
            out.missing.extend(holders);
            continue;
        }
        let first = holders.remove(0);
        let second = holders[0].owner.clone();
        for h in holders {
            out.taken.push((h, first.owner.clone()));
        }
        out.taken.push((first, second));
    }
    for (key, owner) in seen {
        let Some(item) = found.get(&id(schema, &owner)) else {
            out.orphans.push(Orphan {
                key,
                why: format!("its owner {} is gone", describe_key(&owner)),
                owner,
                found: None,
            });
            continue;
        };
        let Routed::Mapper(m) = registry.mapper_of(item) else {
            continue; // an owner of a type this registry does not read
        };
        let holds = (m.sentinels)(item)
            .unwrap_or_default()
            .iter()
            .any(|s| id(schema, &s.key) == id(schema, &key));
        if !holds {
            out.orphans.push(Orphan {
                key,
                why: format!(
                    "its owner {} no longer holds the value",
                    describe_key(&owner)
                ),
                owner,
                found: Some((item.clone(), (m.unique_attributes)())),
            });
        }
    }
    Ok(out)
}

impl Check {
    /// Adds what was found to `audit`.
    pub(super) fn report(&self, audit: &mut Audit, schema: TableSchema) {
        for h in &self.missing {
            let finding = Finding::MissingSentinel(h.sentinel.constraint.to_owned());
            audit.found(h.entity_type, finding, &schema.render_key(&h.owner), || {
                format!("the sentinel of {} is absent", h.sentinel.value)
            });
        }
        for (h, holder) in &self.taken {
            let finding = Finding::DuplicateValue(h.sentinel.constraint.to_owned());
            audit.found(h.entity_type, finding, &schema.render_key(&h.owner), || {
                format!("{} is held by {}", h.sentinel.value, describe_key(holder))
            });
        }
        for o in &self.orphans {
            audit.found(
                SENTINELS,
                Finding::OrphanedSentinel,
                &schema.render_key(&o.key),
                || o.why.clone(),
            );
        }
    }

    /// How many sentinels a repair would write and delete.
    pub(super) fn counts(&self) -> (u64, u64) {
        (self.missing.len() as u64, self.orphans.len() as u64)
    }

    /// Each value held by two items, as the violation it is, with the key
    /// of the item read.
    pub(super) fn held_twice(&self) -> Vec<(Item, Error)> {
        self.taken
            .iter()
            .map(|(h, holder)| {
                let error = Error::unique_violation(
                    describe_key(&h.owner),
                    h.sentinel.constraint,
                    h.sentinel.value.clone(),
                    Some(holder.clone()).filter(|h| !h.is_empty()),
                )
                .with_entity_type(h.entity_type);
                (h.owner.clone(), error)
            })
            .collect()
    }

    /// Writes the missing sentinels and deletes the orphaned ones, each in
    /// a transaction that checks the owner is still as read; returns how
    /// many were written and deleted, and what failed (a value held twice
    /// is left to the caller).
    pub(super) async fn repair(self, table: &Table) -> (u64, u64, Vec<(Item, Error)>) {
        let schema = table.schema();
        let (mut written, mut deleted, mut failed) = (0, 0, Vec::new());
        for h in self.missing {
            let sentinel = unique::item_of(schema, h.entity_type, &h.sentinel, &h.owner);
            let write = Repair {
                owner: (&h.owner, Some(&h.item), &h.attributes),
                entity_type: h.entity_type,
                sentinel: &h.sentinel.key,
                put: Some(sentinel),
            };
            match write.send(table).await {
                Ok(()) => written += 1,
                Err(e) => failed.push((h.owner, e)),
            }
        }
        for o in self.orphans {
            let (item, attributes) = match &o.found {
                Some((item, attributes)) => (Some(item), attributes.clone()),
                None => (None, Vec::new()),
            };
            let delete = Repair {
                owner: (&o.owner, item, &attributes),
                entity_type: SENTINELS,
                sentinel: &o.key,
                put: None,
            };
            match delete.send(table).await {
                Ok(()) => deleted += 1,
                Err(e) => failed.push((o.key, e)),
            }
        }
        (written, deleted, failed)
    }
}

/// One repair: a sentinel put where none is, or deleted if it still names
/// the owner, in a transaction that checks the owner is still as read.
struct Repair<'a> {
    /// The owner's key, the owner as read (`None`: gone), and the
    /// attributes its mapper's constraints read.
    owner: (&'a Item, Option<&'a Item>, &'a [String]),
    entity_type: &'static str,
    sentinel: &'a Item,
    /// The sentinel item to put; `None` to delete the sentinel.
    put: Option<Item>,
}

impl Repair<'_> {
    async fn send(self, table: &Table) -> Result<()> {
        let (owner, found, attributes) = self.owner;
        let check = as_read(table, owner, found, attributes)?;
        let info =
            |kind, key: &Item| ActionInfo::new(kind, table.name(), self.entity_type, key.clone());
        let (action, kind) = match self.put {
            Some(item) => {
                let free = Attr::top_level(table.schema().partition_key.name).not_exists();
                let put = Put::builder()
                    .table_name(table.name())
                    .set_item(Some(item))
                    .apply(free.build_with_stem("dmr")?)?
                    .build()
                    .map_err(|e| Error::sdk("TransactWriteItems", e))?;
                (
                    TransactWriteItem::builder().put(put).build(),
                    ActionKind::Put,
                )
            }
            None => {
                let mine = Attr::top_level(OWNER).eq(AttributeValue::M(owner.clone()));
                let delete = Delete::builder()
                    .table_name(table.name())
                    .set_key(Some(self.sentinel.clone()))
                    .apply(mine.build_with_stem("dmr")?)?
                    .build()
                    .map_err(|e| Error::sdk("TransactWriteItems", e))?;
                (
                    TransactWriteItem::builder().delete(delete).build(),
                    ActionKind::Delete,
                )
            }
        };
        table
            .transaction()
            .push(check, info(ActionKind::ConditionCheck, owner))?
            .push(action, info(kind, self.sentinel))?
            .send()
            .await
            .map(|_| ())
    }
}

/// A condition check that the item at `key` is still as read: gone when
/// `item` is `None`, else present with `attributes` as they were.
fn as_read(
    table: &Table,
    key: &Item,
    item: Option<&Item>,
    attributes: &[String],
) -> Result<TransactWriteItem> {
    let pk = Attr::top_level(table.schema().partition_key.name);
    let condition = match item {
        None => pk.not_exists(),
        Some(item) => Condition::all(std::iter::once(pk.exists()).chain(attributes.iter().map(
            |name| match item.get(name) {
                Some(v) => Attr::top_level(name).eq(v.clone()),
                None => Attr::top_level(name).not_exists(),
            },
        ))),
    };
    let check = ConditionCheck::builder()
        .table_name(table.name())
        .set_key(Some(key.clone()))
        .apply(condition.build_with_stem("dmo")?)?;
    Ok(TransactWriteItem::builder()
        .condition_check(
            check
                .build()
                .map_err(|e| Error::sdk("TransactWriteItems", e))?,
        )
        .build())
}
