//! Overlap analysis: `KeyDeclaration`, `AllowedOverlap` and
//! `find_overlaps`, which reports entity types whose `begins_with` queries can
//! return each other's items. The top of `key`: uses `index_keys`, `pattern`,
//! `language` and `template`.

use std::fmt;

use super::index_keys::IndexKeys;
use super::language::Language;
use super::template::constant_prefix;
use crate::error::{Error, Result};

/// One entity type's keys on one index: the input of [`find_overlaps`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct KeyDeclaration<'a> {
    /// The entity type (discriminator value).
    pub(crate) entity_type: &'a str,
    /// Its key patterns on one index.
    pub(crate) keys: IndexKeys,
}

impl<'a> KeyDeclaration<'a> {
    /// `entity_type` writes `keys`.
    #[must_use]
    pub(crate) const fn new(entity_type: &'a str, keys: IndexKeys) -> Self {
        KeyDeclaration { entity_type, keys }
    }
}

/// Why two entity types overlap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub(crate) enum OverlapKind {
    /// The returned type's sort key pattern can start with the queried
    /// type's constant sort key prefix.
    Prefix,
    /// The queried type's sort key pattern has no constant prefix (or it
    /// declares no sort key), so a query for it reads the whole partition.
    NoPrefix,
    /// Both types can write the same primary key on the table: one item
    /// overwrites the other. Never acknowledged away.
    SameKey,
}

/// An overlap found by [`find_overlaps`]: on `index`, a `begins_with` query
/// on `queried`'s constant sort key prefix can return `returned`'s items,
/// because their partition key patterns can render the same value.
///
/// Its `Display` says all of that in one line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub(crate) struct Overlap {
    /// Why.
    pub(crate) kind: OverlapKind,
    /// The index, `None` for the table.
    pub(crate) index: Option<String>,
    /// The entity type whose query returns the other's items (for
    /// [`OverlapKind::SameKey`], the one declared first).
    pub(crate) queried: String,
    /// The entity type whose items are returned.
    pub(crate) returned: String,
    /// The queried type's constant sort key prefix (empty when it has none).
    pub(crate) prefix: String,
    /// The queried type's partition key pattern.
    pub(crate) queried_partition: String,
    /// The queried type's sort key pattern.
    pub(crate) queried_sort: Option<String>,
    /// The returned type's partition key pattern.
    pub(crate) returned_partition: String,
    /// The returned type's sort key pattern.
    pub(crate) returned_sort: Option<String>,
}

impl fmt::Display for Overlap {
    /// One line naming the index, both types, the prefix and the patterns.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.index {
            None => f.write_str("table: ")?,
            Some(i) => write!(f, "index {i}: ")?,
        }
        let (q, r) = (&self.queried, &self.returned);
        let sort = |s: &Option<String>| match s {
            Some(s) => format!("sort key `{s}`"),
            None => "no sort key".to_owned(),
        };
        match (self.kind, &self.queried_sort) {
            (OverlapKind::SameKey, _) => write!(
                f,
                "{q} ({}) and {r} ({}) can write the same primary key, so one overwrites the other",
                sort(&self.queried_sort),
                sort(&self.returned_sort)
            )?,
            (OverlapKind::NoPrefix, None) => write!(
                f,
                "{q} declares no sort key, so a query for it returns every {r} item of the same partition"
            )?,
            (OverlapKind::NoPrefix, Some(s)) => write!(
                f,
                "the sort key `{s}` of {q} has no constant prefix, so a query for it also returns {r} items ({})",
                sort(&self.returned_sort)
            )?,
            (OverlapKind::Prefix, _) => write!(
                f,
                "begins_with(sort key, {:?}) for {q} ({}) also returns {r} items ({})",
                self.prefix,
                sort(&self.queried_sort),
                sort(&self.returned_sort)
            )?,
        }
        write!(
            f,
            "; their partition keys `{}` and `{}` can be equal",
            self.queried_partition, self.returned_partition
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Scope<'a> {
    Any,
    Table,
    Index(&'a str),
}

/// Acknowledges an intended overlap so the registry does not report it
/// ([`RegistryBuilder::allow_overlap`](crate::RegistryBuilder::allow_overlap)):
/// a `begins_with` query for `queried` may return `returned`'s items (say a
/// header query that also reads its lines, on purpose). Table key collisions
/// (two types that can write the same primary key) are always reported.
///
/// ```
/// use dynamodb_mapper::key::AllowedOverlap;
///
/// const ALLOWED: &[AllowedOverlap] = &[
///     AllowedOverlap::new("User", "UserMetadata").both_ways(),
///     AllowedOverlap::new("Order", "OrderLine").on_table(),
/// ];
/// assert_eq!(ALLOWED.len(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AllowedOverlap<'a> {
    queried: &'a str,
    returned: &'a str,
    scope: Scope<'a>,
    both_ways: bool,
}

impl<'a> AllowedOverlap<'a> {
    /// Queries for `queried` may return `returned`'s items, on every index.
    ///
    /// ```
    /// use dynamodb_mapper::key::AllowedOverlap;
    /// const A: AllowedOverlap = AllowedOverlap::new("Order", "Payment");
    /// # let _ = A;
    /// ```
    #[must_use]
    pub const fn new(queried: &'a str, returned: &'a str) -> Self {
        AllowedOverlap {
            queried,
            returned,
            scope: Scope::Any,
            both_ways: false,
        }
    }

    /// Only on the table.
    ///
    /// ```
    /// use dynamodb_mapper::key::AllowedOverlap;
    /// const A: AllowedOverlap = AllowedOverlap::new("Order", "Payment").on_table();
    /// # let _ = A;
    /// ```
    #[must_use]
    pub const fn on_table(mut self) -> Self {
        self.scope = Scope::Table;
        self
    }

    /// Only on the index `name`.
    ///
    /// ```
    /// use dynamodb_mapper::key::AllowedOverlap;
    /// const A: AllowedOverlap = AllowedOverlap::new("Order", "Payment").on_index("GSI1");
    /// # let _ = A;
    /// ```
    #[must_use]
    pub const fn on_index(mut self, name: &'a str) -> Self {
        self.scope = Scope::Index(name);
        self
    }

    /// Also queries for `returned` may return `queried`'s items.
    ///
    /// ```
    /// use dynamodb_mapper::key::AllowedOverlap;
    /// const A: AllowedOverlap = AllowedOverlap::new("User", "UserMetadata").both_ways();
    /// # let _ = A;
    /// ```
    #[must_use]
    pub const fn both_ways(mut self) -> Self {
        self.both_ways = true;
        self
    }

    /// Whether this acknowledges `overlap` (never a [`OverlapKind::SameKey`]).
    #[must_use]
    pub(crate) fn allows(&self, overlap: &Overlap) -> bool {
        if overlap.kind == OverlapKind::SameKey {
            return false;
        }
        let index_ok = match self.scope {
            Scope::Any => true,
            Scope::Table => overlap.index.is_none(),
            Scope::Index(name) => overlap.index.as_deref() == Some(name),
        };
        let forward = overlap.queried == self.queried && overlap.returned == self.returned;
        let backward = overlap.queried == self.returned && overlap.returned == self.queried;
        index_ok && (forward || (self.both_ways && backward))
    }
}

struct Prepared {
    partition: Language,
    /// The partition key's constant start, every key of the pattern begins
    /// with it.
    partition_start: &'static str,
    sort: Option<(Language, &'static str)>,
}

/// Whether keys starting with `a` and keys starting with `b` can never be
/// equal: neither start is a start of the other. Every key of a pattern
/// begins with its constant start, so two partition key patterns whose
/// starts diverge share no key, and the automata need not be compared: on
/// a design whose types are told apart by a type tag (the common case) this
/// is what keeps a registry's build cheap.
pub(super) fn starts_diverge(a: &str, b: &str) -> bool {
    !a.starts_with(b) && !b.starts_with(a)
}

/// Finds every pair of entity types whose keys overlap, per index (the table
/// and each GSI separately), among declarations whose partition key patterns
/// can render the same value (so their items can share a partition):
///
/// - [`OverlapKind::Prefix`]: a `begins_with` query on the queried type's
///   constant sort key prefix (the literal text before its first
///   placeholder, see [`KeyPattern::constant_prefix`](crate::KeyPattern::constant_prefix)) can return the other
///   type's items: `USER#{id}` and `USER#{id}#METADATA` (both ways),
///   `ORDER` and `ORDERLINE#{n}` (one way);
/// - [`OverlapKind::NoPrefix`]: the queried type's sort key pattern starts
///   with a placeholder, or it declares none, so its query reads the whole
///   partition;
/// - [`OverlapKind::SameKey`]: on the table, both types can write the same
///   primary key.
///
/// Values are assumed to be rendered through the patterns (so text values
/// are escaped and cannot hold a bare delimiter). Overlaps that `allowed`
/// acknowledges are left out, except [`OverlapKind::SameKey`]. The result is
/// ordered: the table first, then indexes in order of first declaration;
/// within an index by declaration order of the queried, then the returned
/// type.
///
/// # Errors
/// The first invalid pattern, as [`KeyPattern::validate`](crate::KeyPattern::validate) reports it, with
/// the entity type that declared it.
pub(crate) fn find_overlaps(
    declarations: &[KeyDeclaration<'_>],
    allowed: &[AllowedOverlap<'_>],
) -> Result<Vec<Overlap>> {
    if declarations.iter().any(|d| d.keys.part.is_some()) {
        let whole: Vec<KeyDeclaration<'_>> = declarations
            .iter()
            .filter(|d| d.keys.part.is_none())
            .copied()
            .collect();
        return find_overlaps(&whole, allowed);
    }
    let mut prepared = Vec::with_capacity(declarations.len());
    for d in declarations {
        let with_type = |e: Error| e.with_entity_type(d.entity_type);
        let partition = d.keys.partition.language().map_err(with_type)?;
        let sort = match d.keys.sort {
            Some(p) => Some((
                p.language().map_err(with_type)?,
                constant_prefix(p.template),
            )),
            None => None,
        };
        let partition_start = constant_prefix(d.keys.partition.template);
        prepared.push(Prepared {
            partition,
            partition_start,
            sort,
        });
    }
    let mut indexes: Vec<Option<&str>> = Vec::new();
    for d in declarations {
        if !indexes.contains(&d.keys.index) {
            indexes.push(d.keys.index);
        }
    }
    indexes.sort_by_key(Option::is_some);

    let mut found: Vec<Overlap> = Vec::new();
    let declared = declarations.iter().zip(&prepared).enumerate();
    for index in indexes {
        let members: Vec<(usize, &KeyDeclaration<'_>, &Prepared)> = declared
            .clone()
            .filter(|(_, (d, _))| d.keys.index == index)
            .map(|(i, (d, p))| (i, d, p))
            .collect();
        for &(i, qd, qp) in &members {
            for &(j, rd, rp) in &members {
                if i == j || qd.entity_type == rd.entity_type {
                    continue;
                }
                if starts_diverge(qp.partition_start, rp.partition_start)
                    || !qp.partition.intersects(&rp.partition)
                {
                    continue;
                }
                let overlap = |kind: OverlapKind, prefix: &str| Overlap {
                    kind,
                    index: index.map(str::to_owned),
                    queried: qd.entity_type.to_owned(),
                    returned: rd.entity_type.to_owned(),
                    prefix: prefix.to_owned(),
                    queried_partition: qd.keys.partition.template.to_owned(),
                    queried_sort: qd.keys.sort.map(|p| p.template.to_owned()),
                    returned_partition: rd.keys.partition.template.to_owned(),
                    returned_sort: rd.keys.sort.map(|p| p.template.to_owned()),
                };
                if index.is_none() {
                    let same_key = match (&qp.sort, &rp.sort) {
                        (None, None) => true,
                        (Some((a, pa)), Some((b, pb))) => {
                            !starts_diverge(pa, pb) && a.intersects(b)
                        }
                        _ => false,
                    };
                    if same_key {
                        if i < j {
                            found.push(overlap(
                                OverlapKind::SameKey,
                                qp.sort.as_ref().map_or("", |(_, p)| p),
                            ));
                        }
                        continue;
                    }
                }
                match (&qp.sort, &rp.sort) {
                    (None, _) => found.push(overlap(OverlapKind::NoPrefix, "")),
                    (Some((_, "")), _) => found.push(overlap(OverlapKind::NoPrefix, "")),
                    (Some((_, prefix)), Some((returned, _))) => {
                        if returned.can_start_with(prefix) {
                            found.push(overlap(OverlapKind::Prefix, prefix));
                        }
                    }
                    // An item without the index's sort key is not in it.
                    (Some(_), None) => {}
                }
            }
        }
    }
    let mut unique: Vec<Overlap> = Vec::with_capacity(found.len());
    for o in found {
        if !unique.contains(&o) && !allowed.iter().any(|a| a.allows(&o)) {
            unique.push(o);
        }
    }
    Ok(unique)
}
