//! What an audit reports: [`Audit`], per entity type a [`TypeAudit`], and
//! per [`Finding`] a count and its first [`Example`]s ([`Found`]). Counts
//! and a bounded number of examples, never the items themselves, so a
//! report of any table fits in memory; reports of segments and of resumed
//! runs add up with [`Audit::merge`].

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

/// How many examples a report keeps per entity type and finding.
pub(crate) const EXAMPLES: usize = 10;

/// What an audit of a table, or of a segment of it, found
/// ([`Sweep::audit`](super::Sweep::audit)). Printed (`{}`) as a table;
/// serialized (it implements `Serialize`) as JSON or anything serde writes.
///
/// ```
/// use dynamodb_mapper::evolve::Audit;
/// let report = Audit::default();
/// assert_eq!(report.scanned, 0);
/// assert!(report.is_clean());
/// assert_eq!(report.to_string(), "0 items scanned, nothing found\n");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Audit {
    /// Items read.
    pub scanned: u64,
    /// What was found, by entity type: the discriminator value for items
    /// of an unknown type, `""` for items without one.
    pub types: BTreeMap<String, TypeAudit>,
    /// Read capacity units the scan consumed, as DynamoDB reported them.
    pub read_units: f64,
    /// The checkpoint to resume from (for
    /// [`Sweep::resume`](super::Sweep::resume)), or `None` when the table or
    /// segment was read to its end.
    pub next: Option<String>,
}

/// What an audit found for one entity type.
///
/// ```
/// let t = dynamodb_mapper::evolve::TypeAudit::default();
/// assert_eq!(t.items, 0);
/// assert!(t.findings.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TypeAudit {
    /// Items of this type read.
    pub items: u64,
    /// Each finding, with how many items have it and the first of them.
    pub findings: BTreeMap<Finding, Found>,
    /// How many items of each shape version the type's items hold, read
    /// before their upgrade steps ([`Mapper::UPGRADES`](crate::Mapper::UPGRADES));
    /// empty when the table names no shape attribute.
    pub shapes: BTreeMap<u64, u64>,
}

/// Something wrong with an item, as an audit reports it.
///
/// ```
/// use dynamodb_mapper::evolve::Finding;
/// assert_eq!(Finding::MissingAttribute("gsi1pk".into()).to_string(), "missing `gsi1pk`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Finding {
    /// The discriminator names no registered entity type.
    UnknownEntityType,
    /// The item has no discriminator, or one that is not a string.
    MissingDiscriminator,
    /// The mapper cannot read the item (the example says why).
    Undecodable,
    /// The mapper reads the item but cannot write the entity back (a key it
    /// renders is invalid, a hook refuses it, ...).
    Unwritable,
    /// A derived attribute the mapper renders (a key, an index key, the
    /// discriminator, the TTL) is absent: an index key after the index was
    /// added, for example.
    MissingAttribute(String),
    /// A derived attribute holds something else than what the mapper
    /// renders from the item's fields, or is there where the mapper renders
    /// none (a sparse index key left behind).
    StaleAttribute(String),
    /// A key attribute that the mapper's key pattern for it does not parse.
    UnparsedKey(String),
    /// The item is within 10% of DynamoDB's 400 KB limit.
    NearSizeLimit,
    /// The TTL attribute is not plausible epoch seconds: not a number, not
    /// an integer, negative, or so large it is likely milliseconds.
    ImplausibleTtl,
    /// The item holds a value of this unique constraint
    /// ([`Unique`](crate::Unique)) whose sentinel is absent (items written
    /// before the constraint was declared, say): a
    /// [backfill](super::Sweep::backfill) writes it.
    MissingSentinel(String),
    /// The item holds a value of this unique constraint that another item
    /// holds too (its sentinel names that one): to be settled by hand.
    DuplicateValue(String),
    /// A sentinel whose owner is gone or no longer holds its value: a
    /// backfill deletes it.
    OrphanedSentinel,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::UnknownEntityType => f.write_str("unknown entity type"),
            Finding::MissingDiscriminator => f.write_str("no discriminator"),
            Finding::Undecodable => f.write_str("does not decode"),
            Finding::Unwritable => f.write_str("decodes but cannot be written back"),
            Finding::MissingAttribute(a) => write!(f, "missing `{a}`"),
            Finding::StaleAttribute(a) => write!(f, "stale `{a}`"),
            Finding::UnparsedKey(a) => write!(f, "`{a}` fits no key pattern"),
            Finding::NearSizeLimit => f.write_str("within 10% of the 400 KB limit"),
            Finding::ImplausibleTtl => f.write_str("implausible TTL"),
            Finding::MissingSentinel(c) => write!(f, "no sentinel for unique `{c}`"),
            Finding::DuplicateValue(c) => write!(f, "unique `{c}` held twice"),
            Finding::OrphanedSentinel => f.write_str("orphaned sentinel"),
        }
    }
}

/// Serialized as its text, so a report's findings are the keys of a JSON
/// object.
impl Serialize for Finding {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// How many items have a finding, and the first of them.
///
/// ```
/// let found = dynamodb_mapper::evolve::Found::default();
/// assert_eq!((found.count, found.examples.len()), (0, 0));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Found {
    /// Items with the finding.
    pub count: u64,
    /// The first items found with it, at most 10.
    pub examples: Vec<Example>,
}

/// One item with a finding.
///
/// ```
/// let e = dynamodb_mapper::evolve::Example::default();
/// assert!(e.key.is_empty() && e.detail.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Example {
    /// The item's primary key, as `pk="ORDER#1", sk="LINE#2"`.
    pub key: String,
    /// What is wrong, e.g. `holds "STATUS#old", renders "STATUS#open"`.
    pub detail: String,
}

impl Audit {
    /// Whether nothing was found.
    ///
    /// ```
    /// assert!(dynamodb_mapper::evolve::Audit::default().is_clean());
    /// ```
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.types.values().all(|t| t.findings.is_empty())
    }

    /// Adds `other`'s counts and examples (up to 10 per finding) to this
    /// report: the reports of several segments, or of the runs of one
    /// segment, make the report of all of them. `next` becomes `other`'s,
    /// so merging the runs of one segment in order leaves its latest
    /// checkpoint.
    ///
    /// ```
    /// use dynamodb_mapper::evolve::Audit;
    /// let mut all = Audit::default();
    /// let mut one = Audit::default();
    /// one.scanned = 3;
    /// all.merge(one.clone());
    /// all.merge(one);
    /// assert_eq!(all.scanned, 6);
    /// ```
    pub fn merge(&mut self, other: Audit) {
        self.scanned += other.scanned;
        self.read_units += other.read_units;
        self.next = other.next;
        for (name, theirs) in other.types {
            let ours = self.types.entry(name).or_default();
            ours.items += theirs.items;
            for (shape, n) in theirs.shapes {
                *ours.shapes.entry(shape).or_default() += n;
            }
            for (finding, found) in theirs.findings {
                let kept = ours.findings.entry(finding).or_default();
                kept.count += found.count;
                let room = EXAMPLES.saturating_sub(kept.examples.len());
                kept.examples.extend(found.examples.into_iter().take(room));
            }
        }
    }

    /// Counts an item of `entity_type`.
    pub(super) fn item(&mut self, entity_type: &str) {
        self.scanned += 1;
        self.type_mut(entity_type).items += 1;
    }

    /// Counts an item of `entity_type` of shape `shape`.
    pub(super) fn shape(&mut self, entity_type: &str, shape: usize) {
        *self
            .type_mut(entity_type)
            .shapes
            .entry(shape as u64)
            .or_default() += 1;
    }

    /// Records a finding of an item of `entity_type`.
    pub(super) fn found(
        &mut self,
        entity_type: &str,
        finding: Finding,
        key: &str,
        detail: impl FnOnce() -> String,
    ) {
        let found = self
            .type_mut(entity_type)
            .findings
            .entry(finding)
            .or_default();
        found.count += 1;
        if found.examples.len() < EXAMPLES {
            found.examples.push(Example {
                key: key.to_owned(),
                detail: detail(),
            });
        }
    }

    fn type_mut(&mut self, entity_type: &str) -> &mut TypeAudit {
        self.types.entry(entity_type.to_owned()).or_default()
    }
}

/// A table: each entity type with its item count, then each finding with
/// its count and first example.
impl fmt::Display for Audit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let found: u64 = self
            .types
            .values()
            .flat_map(|t| t.findings.values())
            .map(|found| found.count)
            .sum();
        if found == 0 {
            writeln!(f, "{} items scanned, nothing found", self.scanned)?;
        } else {
            writeln!(f, "{} items scanned, {found} findings", self.scanned)?;
        }
        for (name, t) in &self.types {
            let name = if name.is_empty() {
                "(no discriminator)"
            } else {
                name
            };
            write!(f, "{name:<24} {:>10} items", t.items)?;
            if !t.shapes.is_empty() {
                let shapes: Vec<String> = t
                    .shapes
                    .iter()
                    .map(|(shape, n)| format!("{n} of shape {shape}"))
                    .collect();
                write!(f, " ({})", shapes.join(", "))?;
            }
            writeln!(f)?;
            for (finding, found) in &t.findings {
                write!(f, "  {:<40} {:>10}", finding.to_string(), found.count)?;
                if let Some(e) = found.examples.first() {
                    write!(f, "  e.g. {}: {}", e.key, e.detail)?;
                }
                writeln!(f)?;
            }
        }
        Ok(())
    }
}
