//! A backfill: every item written again with the derived attributes its
//! mapper renders now ([`Sweep::backfill`]), each write conditional on the
//! item being as it was read, and what happened to every item
//! ([`Backfill`]).

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::StreamExt;

use super::audit::{EXAMPLES, Example};
use super::pace::{Budget, Progress, Units};
use super::sentinels;
use super::sweep::Sweep;
use crate::describe::describe_value;
use crate::error::{Error, ErrorKind, Result};
use crate::expr::{Attr, Condition, Update};
use crate::item::{Item, item_size};
use crate::mapper::unique::{Changes, diff};
use crate::mapper::{Mapper, MapperExt};
use crate::ops::{FailedItem, Renewed, Table};
use crate::registry::{MapperOf, Registry, Routed, dropped_by_upgrades};

/// What a backfill did ([`Sweep::backfill`]): every item read is counted in
/// exactly one of `changed`, `unchanged`, `skipped` and `failed`.
///
/// ```
/// let report = dynamodb_mapper::evolve::Backfill::default();
/// assert_eq!(report.scanned, report.changed + report.unchanged + report.skipped + report.failed.len() as u64);
/// assert_eq!(report.to_string(), "0 items scanned: 0 changed, 0 unchanged, 0 skipped, 0 failed, 0 conflicts\n");
/// ```
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Backfill {
    /// Items read.
    pub scanned: u64,
    /// Items written with what their mapper renders now (in a dry run:
    /// that would be).
    pub changed: u64,
    /// Items that already held it.
    pub unchanged: u64,
    /// Items no mapper reads (an unknown type, no discriminator) and items
    /// deleted before they could be written.
    pub skipped: u64,
    /// Items that could not be changed, each with its key and why: an item
    /// its mapper cannot read or write back, whose table key would change,
    /// that kept changing until the deadline, or whose write failed. Handed back, never
    /// dropped.
    pub failed: Vec<FailedItem>,
    /// Writes refused because the item had changed since it was read: each
    /// item was read again and its change worked out again.
    pub conflicts: u64,
    /// The first 10 changes, with what each sets and removes.
    pub examples: Vec<Example>,
    /// Read capacity units the scan consumed, as DynamoDB reported them.
    pub read_units: f64,
    /// Write capacity units the writes consumed, as DynamoDB reported them:
    /// asked for when a [budget](super::Sweep::budget) paces the sweep or
    /// the table asks ([`Table::return_consumed_capacity`](crate::ops::Table::return_consumed_capacity)),
    /// else 0.
    pub write_units: f64,
    /// The checkpoint to resume from, or `None` when the table or segment
    /// was read to its end.
    pub next: Option<String>,
    /// Sentinels of unique values ([`Unique`](crate::Unique)) written
    /// where an item's was missing (in a dry run: that would be).
    pub sentinels_written: u64,
    /// Orphaned sentinels deleted (their owner gone, or holding another
    /// value).
    pub sentinels_deleted: u64,
    /// Sentinel repairs that could not be made, each with the owner's or
    /// the sentinel's key: a value held by two items
    /// ([`ErrorKind::UniqueViolation`](crate::ErrorKind::UniqueViolation)
    /// naming the other, to settle by hand), or an owner that changed
    /// meanwhile (the next run sees it as it is then).
    pub sentinels_failed: Vec<FailedItem>,
}

impl Backfill {
    /// Adds `other` to this report (see [`Audit::merge`](super::Audit::merge)):
    /// counts add up, failures are all kept, examples up to 10; `next`
    /// becomes `other`'s.
    ///
    /// ```
    /// use dynamodb_mapper::evolve::Backfill;
    /// let mut all = Backfill::default();
    /// let mut one = Backfill::default();
    /// one.scanned = 2;
    /// one.unchanged = 2;
    /// all.merge(one);
    /// assert_eq!((all.scanned, all.unchanged), (2, 2));
    /// ```
    pub fn merge(&mut self, other: Backfill) {
        self.scanned += other.scanned;
        self.changed += other.changed;
        self.unchanged += other.unchanged;
        self.skipped += other.skipped;
        self.conflicts += other.conflicts;
        self.failed.extend(other.failed);
        let room = EXAMPLES.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
        self.read_units += other.read_units;
        self.write_units += other.write_units;
        self.next = other.next;
        self.sentinels_written += other.sentinels_written;
        self.sentinels_deleted += other.sentinels_deleted;
        self.sentinels_failed.extend(other.sentinels_failed);
    }

    /// This report's counts, for [`Progress`].
    fn progress(&self) -> Progress {
        Progress {
            scanned: self.scanned,
            changed: self.changed,
            unchanged: self.unchanged,
            skipped: self.skipped,
            failed: self.failed.len() as u64,
            conflicts: self.conflicts,
            write_units: self.write_units,
            ..Progress::default()
        }
    }

    /// Repairs the sentinels `check` found wrong (counts them in a dry
    /// run), and hands back each value held twice.
    async fn repair(&mut self, check: sentinels::Check, table: &Table, dry_run: bool) {
        for (owner, error) in check.held_twice() {
            self.sentinels_failed.push(FailedItem { key: owner, error });
        }
        if dry_run {
            let (written, deleted) = check.counts();
            self.sentinels_written += written;
            self.sentinels_deleted += deleted;
            return;
        }
        let (written, deleted, failed) = check.repair(table).await;
        self.sentinels_written += written;
        self.sentinels_deleted += deleted;
        self.sentinels_failed.extend(
            failed
                .into_iter()
                .map(|(key, error)| FailedItem { key, error }),
        );
    }

    fn count(&mut self, outcome: Outcome, key: String) {
        self.scanned += 1;
        match outcome {
            Outcome::Changed(detail) => {
                self.changed += 1;
                if self.examples.len() < EXAMPLES {
                    self.examples.push(Example { key, detail });
                }
            }
            Outcome::Unchanged => self.unchanged += 1,
            Outcome::Skipped => self.skipped += 1,
            Outcome::Failed(failed) => self.failed.push(failed),
        }
    }
}

/// Counts, then each failure and the first changes.
impl fmt::Display for Backfill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} items scanned: {} changed, {} unchanged, {} skipped, {} failed, {} conflicts",
            self.scanned,
            self.changed,
            self.unchanged,
            self.skipped,
            self.failed.len(),
            self.conflicts
        )?;
        for failed in &self.failed {
            writeln!(f, "  failed: {:#}", failed.error)?;
        }
        if self.sentinels_written + self.sentinels_deleted > 0 || !self.sentinels_failed.is_empty()
        {
            writeln!(
                f,
                "  unique sentinels: {} written, {} deleted, {} failed",
                self.sentinels_written,
                self.sentinels_deleted,
                self.sentinels_failed.len()
            )?;
        }
        for failed in &self.sentinels_failed {
            writeln!(f, "  sentinel failed: {:#}", failed.error)?;
        }
        for e in &self.examples {
            writeln!(f, "  changed {}: {}", e.key, e.detail)?;
        }
        Ok(())
    }
}

/// What became of one item.
enum Outcome {
    Changed(String),
    Unchanged,
    Skipped,
    Failed(FailedItem),
}

/// What an item should be: the item its mapper writes (from the entity it
/// reads, or changed), nothing (no mapper of the pass reads it), or why
/// there is none.
enum Target {
    /// The mapper, the item it writes, and the attributes of the stored
    /// item its upgrade steps removed.
    Item(Box<(MapperOf, Item, Vec<String>)>),
    Skip,
    Fail(Error),
}

/// [`Target`] of a backfill: the item as its mapper writes the entity it
/// reads from it.
fn rewritten<T>(registry: &Registry<T>, stored: &Item) -> Target {
    let Routed::Mapper(mapper) = registry.mapper_of(stored) else {
        return Target::Skip;
    };
    match (mapper.rewrite)(stored.clone()) {
        Ok(Ok(rewritten)) => Target::Item(Box::new((mapper, rewritten.item, rewritten.dropped))),
        Ok(Err(e)) | Err(e) => Target::Fail(e),
    }
}

/// [`Target`] of a migration of `M`: the item of `change` of the entity
/// read from an item of `M`; other items are skipped.
fn changed<T, M: Mapper>(
    registry: &Registry<T>,
    stored: &Item,
    change: &impl Fn(M::Entity) -> M::Entity,
) -> Target {
    match registry.mapper_of(stored) {
        Routed::Mapper(mapper) if mapper.entity_type == M::ENTITY_TYPE => {
            let rendered = dropped_by_upgrades::<M>(stored).and_then(|(dropped, _)| {
                let old = M::from_item(stored.clone())?;
                Ok((M::to_item(&change(old))?, dropped))
            });
            match rendered {
                Ok((rendered, dropped)) => Target::Item(Box::new((mapper, rendered, dropped))),
                Err(e) => Target::Fail(e),
            }
        }
        _ => Target::Skip,
    }
}

/// What one item needs.
enum Planned {
    /// No mapper reads it.
    Skip,
    /// It holds what its mapper renders.
    Unchanged,
    /// This update, if the item is still as read.
    Write(Box<Write>),
    Fail(Error),
}

/// An update of one item and the condition it is sent with.
struct Write {
    mapper: MapperOf,
    key: Item,
    update: Update,
    condition: Condition,
    /// The sentinels of unique values the change moves (a migration of a
    /// unique field): sent in one transaction with the update.
    moves: Changes,
    /// What it sets and removes, for the report.
    detail: String,
}

/// Works out what `stored` needs: the derived attributes its mapper renders
/// now, set where they differ and removed where the mapper renders none,
/// with the condition that the item is as it was read (its version, for a
/// versioned table; otherwise every attribute the mapper writes, and the
/// derived ones removed).
fn plan(target: &impl Fn(&Item) -> Target, stored: &Item, describe: bool) -> Planned {
    let (mapper, rendered, dropped) = match target(stored) {
        Target::Skip => return Planned::Skip,
        Target::Fail(e) => return Planned::Fail(e),
        Target::Item(target) => *target,
    };
    let typed = |e: Error| e.with_entity_type(mapper.entity_type);
    let table = mapper.table;
    let table_keys =
        std::iter::once(table.partition_key.name).chain(table.sort_key.map(|k| k.name));
    for name in table_keys {
        let (was, now) = (stored.get(name), rendered.get(name));
        if was != now {
            let show =
                |v: Option<&AttributeValue>| v.map_or_else(|| "absent".to_owned(), describe_value);
            return Planned::Fail(typed(Error::invalid_key(
                name,
                format!(
                    "is {}, the mapper renders {}: a backfill does not move items (delete the \
                     item and put the entity in one transaction)",
                    show(was),
                    show(now)
                ),
            )));
        }
    }
    let mut sets: Vec<(&str, &AttributeValue)> = rendered
        .iter()
        .filter(|(name, value)| {
            // The discriminator stays as it is (an alias reads as the type).
            table.discriminator != Some(name.as_str()) && stored.get(name.as_str()) != Some(*value)
        })
        .map(|(name, value)| (name.as_str(), value))
        .collect();
    sets.sort_unstable_by_key(|(name, _)| *name);
    // Derived attributes the mapper no longer renders, and what its upgrade
    // steps removed (never a table key, the discriminator or the version).
    let kept = |name: &str| {
        name == table.partition_key.name
            || table.sort_key.is_some_and(|k| k.name == name)
            || table.discriminator == Some(name)
            || table.version == Some(name)
    };
    let mut removes: Vec<&str> = table
        .key_attributes()
        .iter()
        .map(|k| k.name)
        .chain(table.ttl)
        .chain(table.shape)
        .chain(dropped.iter().map(String::as_str))
        .filter(|name| stored.contains_key(*name) && !rendered.contains_key(*name) && !kept(name))
        .collect();
    removes.sort_unstable();
    removes.dedup();
    if sets.is_empty() && removes.is_empty() {
        return Planned::Unchanged;
    }
    let mut update = Update::new();
    // What it sets and removes, in words: only for a report that keeps it.
    let mut detail: Vec<String> = Vec::new();
    for (name, value) in &sets {
        update = update.set(Attr::top_level(*name), (*value).clone());
        if describe {
            detail.push(format!("sets `{name}` to {}", describe_value(value)));
        }
    }
    for name in &removes {
        update = update.remove(Attr::top_level(*name));
        if describe {
            detail.push(format!("removes `{name}`"));
        }
    }
    let mut update = match (mapper.gate)(update) {
        Ok(update) => update,
        Err(e) => return Planned::Fail(typed(e)),
    };
    // A change of the entity's data (a migration, or fields stored in
    // another form) moves a versioned item to its next version, so a writer
    // holding a record read before it meets a conflict instead of writing
    // the old data back; derived attributes alone leave it as it is.
    let derived = |name: &str| {
        table.key_attributes().iter().any(|k| k.name == name)
            || table.ttl == Some(name)
            || table.shape == Some(name)
    };
    if let Some(version) = table.version
        && sets.iter().any(|(name, _)| !derived(name))
        && let Some(AttributeValue::N(n)) = stored.get(version)
        && let Some(next) = n.parse::<u64>().ok().and_then(|v| v.checked_add(1))
    {
        update = update.set(Attr::top_level(version), next);
        if describe {
            detail.push(format!("moves `{version}` to {next}"));
        }
    }
    let as_read = |name: &str| match stored.get(name) {
        Some(value) => Attr::top_level(name).eq(value.clone()),
        None => Attr::top_level(name).not_exists(),
    };
    let condition = match table.version {
        Some(version) => Condition::all([
            Attr::top_level(table.partition_key.name).exists(),
            as_read(version),
        ]),
        None => Condition::all(
            rendered
                .keys()
                .map(String::as_str)
                .chain(removes.iter().copied())
                .map(as_read),
        ),
    };
    let key = match table.key_of(stored) {
        Ok(key) => key,
        Err(e) => return Planned::Fail(typed(e)),
    };
    let moves = match ((mapper.sentinels)(stored), (mapper.sentinels)(&rendered)) {
        (Ok(old), Ok(new)) => diff(&old, &new),
        // A stored value no sentinel can hold: the new one only.
        (Err(_), Ok(new)) => diff(&[], &new),
        (_, Err(e)) => return Planned::Fail(typed(e)),
    };
    Planned::Write(Box::new(Write {
        mapper,
        key,
        update,
        condition,
        moves,
        detail: detail.join(", "),
    }))
}

impl<T> Sweep<'_, T> {
    /// Writes every item of the table (or segment) that does not hold the
    /// derived attributes its mapper renders from its fields now: the table
    /// and index keys, the TTL (set where they differ or are missing,
    /// removed where the mapper renders none, such as a sparse index key),
    /// and the fields in the form the mapper writes them. The common case:
    /// after adding a GSI or a key pattern. Each write is an `UpdateItem`
    /// through the write gate, conditional on the item being as it was read
    /// (its version where the table has one, otherwise every attribute the
    /// mapper writes), so a concurrent write is never overwritten: on a
    /// conflict the item is read again and its change worked out again,
    /// within one [deadline](crate::ops::Table::deadline) per item. Attributes the mapper does not write (the attribute
    /// bag) and the discriminator are left alone; a version is checked, not
    /// changed. A second backfill changes nothing. With
    /// [`dry_run`](Self::dry_run) nothing is written and the report says
    /// what would be. A write that got no answer is settled by reading the
    /// item again.
    ///
    /// Items are written [`concurrency`](Self::concurrency) at a time
    /// (8 by default); pages, checkpoints and segments are as for
    /// [`audit`](Self::audit). A run stopped at any point and resumed from
    /// its last checkpoint reads some items twice and changes each once:
    /// the second time, an item holds what was asked.
    ///
    /// # Errors
    /// As [`audit`](Self::audit): an error about the scan loses this run's
    /// report (run again from the last checkpoint: items already written
    /// are then unchanged). What goes wrong with one item is in
    /// [`Backfill::failed`].
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let registry = dynamodb_mapper::Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// let err = table().sweep(&registry).segment(0, 0).backfill().await.unwrap_err();
    /// assert_eq!(err.attribute(), Some("segment"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn backfill(self) -> Result<Backfill> {
        let registry = self.registry;
        self.write_all("dynamodb_mapper.backfill", &|stored: &Item| {
            rewritten(registry, stored)
        })
        .await
    }

    /// Changes every item of `M` with `change`, from the entity read to
    /// the entity written back, with what `M` renders from it (keys, index
    /// keys, TTL): a migration of the entities' data, as
    /// [`backfill`](Self::backfill) writes (an `UpdateItem` of what
    /// differs, through the write gate, conditional on the item being as
    /// read; on a conflict the item is read again and `change` applied to
    /// it again; [`dry_run`](Self::dry_run) writes nothing). Items of other
    /// types are skipped. A second run changes nothing when `change` does
    /// nothing to what it made (`change(change(e)) == change(e)`). A
    /// `change` that gives the entity another table key fails for that
    /// item: a migration does not move items.
    ///
    /// # Errors
    /// As [`backfill`](Self::backfill).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let registry = dynamodb_mapper::Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// // Every note's text trimmed (a dry run here: nothing is sent).
    /// let sweep = table().sweep(&registry).segment(0, 0).dry_run();
    /// let err = sweep
    ///     .migrate::<NoteMapper>(|note| Note { text: note.text.trim().to_owned(), ..note })
    ///     .await
    ///     .unwrap_err();
    /// assert_eq!(err.attribute(), Some("segment"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn migrate<M: Mapper>(
        self,
        change: impl Fn(M::Entity) -> M::Entity,
    ) -> Result<Backfill> {
        let registry = self.registry;
        self.write_all("dynamodb_mapper.migrate", &|stored: &Item| {
            changed::<T, M>(registry, stored, &change)
        })
        .await
    }

    /// Reads the table (or segment) and writes each item its `target`.
    async fn write_all(
        &self,
        name: &'static str,
        target: &impl Fn(&Item) -> Target,
    ) -> Result<Backfill> {
        let mut report = Backfill::default();
        // A budget needs the units each write consumed; otherwise they are
        // asked for only when the table asks (reporting them costs the
        // server: about 15% of a backfill's time on DynamoDB Local).
        let table = &match &self.budget {
            Some(_) if !self.table.asks_for_capacity() => self
                .table
                .clone()
                .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Total),
            _ => self.table.clone(),
        };
        let (dry_run, concurrency) = (self.dry_run, self.concurrency);
        let budget = self.budget.as_ref();
        let report_examples = AtomicUsize::new(0);
        let report_examples = &report_examples;
        let registry = self.registry;
        let read = self
            .pages(name, async |items: Vec<Item>| {
                let check = sentinels::check(table, registry, &items).await?;
                let mut done = futures_util::stream::iter(items)
                    .map(|item| {
                        // Examples are worded only while the report has room.
                        let describe = report_examples.load(Ordering::Relaxed) < EXAMPLES;
                        one(table, target, item, dry_run, budget, describe)
                    })
                    .buffer_unordered(concurrency);
                while let Some(one) = done.next().await {
                    report.conflicts += u64::from(one.conflicts);
                    report.write_units += one.units;
                    report.count(one.outcome, one.key);
                    report_examples.store(report.examples.len(), Ordering::Relaxed);
                }
                report.repair(check, table, dry_run).await;
                Ok(report.progress())
            })
            .await?;
        report.read_units = read.units;
        report.next = read.next;
        Ok(report)
    }
}

/// What became of one item, its key for the report, how many conflicts it
/// met, and the write units it consumed.
struct Done {
    outcome: Outcome,
    key: String,
    conflicts: u32,
    units: f64,
}

/// Writes one item its target.
async fn one(
    table: &Table,
    target: &impl Fn(&Item) -> Target,
    item: Item,
    dry_run: bool,
    budget: Option<&Budget>,
    describe: bool,
) -> Done {
    let mut done = Done {
        outcome: Outcome::Unchanged,
        key: if describe {
            table.schema().render_key(&item)
        } else {
            String::new()
        },
        conflicts: 0,
        units: 0.0,
    };
    // One deadline for everything done for this item: a conflict, or an
    // attempt without an answer, is followed by a read and another write
    // until it runs out.
    let table = &table.started();
    let mut stored = item;
    let mut in_doubt = false;
    loop {
        let write = match plan(target, &stored, describe) {
            Planned::Skip => {
                done.outcome = Outcome::Skipped;
                return done;
            }
            // After a write that got no answer, an item that holds what was
            // asked was most likely written by it: the store holds the change.
            Planned::Unchanged if in_doubt => {
                done.outcome = Outcome::Changed("settled after no answer".to_owned());
                return done;
            }
            Planned::Unchanged => return done,
            Planned::Fail(error) => {
                let key = table.schema().key_of(&stored).unwrap_or_default();
                done.outcome = Outcome::Failed(FailedItem { key, error });
                return done;
            }
            Planned::Write(write) => *write,
        };
        let Write {
            mapper,
            key,
            update,
            condition,
            moves,
            detail,
        } = write;
        if dry_run {
            done.outcome = Outcome::Changed(detail);
            return done;
        }
        let failed = |mut done: Done, error: Error| {
            done.outcome = Outcome::Failed(FailedItem {
                key: key.clone(),
                error,
            });
            done
        };
        let condition = match condition.build_with_stem("dmb") {
            Ok(condition) => condition,
            Err(e) => return failed(done, e.with_entity_type(mapper.entity_type)),
        };
        // What a write of this item costs when DynamoDB does not say: a unit
        // per KB of the item (a refused conditional write is charged too).
        // Taken from the budget before sending, so writes in flight at once
        // cannot all spend the same units; set right after.
        let estimate = (item_size(&stored).div_ceil(1024)).max(1) as f64;
        if let Some(budget) = budget {
            if let Err(e) = budget.wait(table, Units::Write).await {
                return failed(done, e);
            }
            budget.spend(table, Units::Write, estimate);
        }
        let sent = table
            .renew(key.clone(), update, condition, (mapper.entity_type, moves))
            .await;
        let reported = match &sent {
            Ok(Renewed::Applied(Some(units))) if units.is_finite() && *units >= 0.0 => Some(*units),
            _ => None,
        };
        done.units += reported.unwrap_or(0.0);
        if let Some(budget) = budget {
            budget.spend(table, Units::Write, reported.unwrap_or(estimate) - estimate);
        }
        let now = match sent {
            Ok(Renewed::Applied(_)) => {
                done.outcome = Outcome::Changed(detail);
                return done;
            }
            Ok(Renewed::Refused(now)) => {
                done.conflicts += 1;
                now
            }
            Err(e) if e.kind() == ErrorKind::MaybeApplied => {
                in_doubt = true;
                None
            }
            Err(e) => return failed(done, e),
        };
        stored = match now {
            Some(now) => now,
            None => match table.read_again(key.clone(), mapper.entity_type).await {
                Ok(Some(now)) => now,
                // Deleted since it was read: nothing to change.
                Ok(None) => {
                    done.outcome = Outcome::Skipped;
                    return done;
                }
                Err(e) => return failed(done, e),
            },
        };
    }
}
