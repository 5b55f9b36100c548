//! What a key condition selects, in terms of string keys, and whether a
//! declaration's keys can be among the selected: the base of
//! [`Registry::entity_types_reached`](crate::Registry::entity_types_reached).
//! Uses `pattern` and `overlap`.

use std::ops::Bound;

use super::index_keys::IndexKeys;
use super::language::Language;
use super::overlap::starts_diverge;
use super::pattern::KeyPattern;
use super::template::constant_prefix;
use crate::error::Result;

/// The sort key part of a key condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortSelection<'a> {
    /// No sort key condition.
    Any,
    /// `begins_with(sort key, prefix)`.
    Prefix(&'a str),
    /// `=`, `<`, `<=`, `>`, `>=` or `BETWEEN`, as bounds (`=` is both
    /// bounds included).
    Range(Bound<&'a str>, Bound<&'a str>),
    /// A condition on a value that is not a string: no key pattern renders
    /// it.
    NotText,
}

/// A key condition in terms of string keys: the partition key value (`None`
/// when it is not a string) and the sort key part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Selection<'a> {
    pub(crate) partition: Option<&'a str>,
    pub(crate) sort: SortSelection<'a>,
}

/// Why a declaration's keys can be selected: an example sort key its sort
/// key pattern renders (`None` when the selection does not look at the sort
/// key).
pub(crate) type Example = Option<String>;

impl IndexKeys {
    /// Whether the keys these patterns render can be selected: the partition
    /// key pattern renders the partition value, and the sort key pattern
    /// renders a key the sort key part selects (for which an example is
    /// returned).
    ///
    /// The analysis is exact for the keys the patterns render from values
    /// (text escaped; digits of timestamps are taken as any digits, so it
    /// may only err towards "can").
    pub(crate) fn selected_example(&self, selection: &Selection<'_>) -> Result<Option<Example>> {
        let Some(partition) = selection.partition else {
            return Ok(None);
        };
        if !self.partition_key().matches(partition) {
            self.partition_key().validate()?;
            return Ok(None);
        }
        let Some(sort) = self.sort_key() else {
            // An index without a sort key: only "any" can be asked of it.
            return Ok((selection.sort == SortSelection::Any).then_some(None));
        };
        let language = sort.language()?;
        Ok(match selection.sort {
            SortSelection::Any => Some(None),
            SortSelection::NotText => None,
            SortSelection::Prefix(prefix) => language.example_with_prefix(prefix).map(Some),
            SortSelection::Range(low, high) => language.example_in_range(low, high).map(Some),
        })
    }
}

/// The sort key part of the query of an access pattern, for every value of
/// its placeholders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortShape<'a> {
    /// No sort key condition.
    Any,
    /// `begins_with` a prefix rendered from the pattern with values for the
    /// placeholders named (see [`BoundPattern::prefix`](super::BoundPattern::prefix)).
    Prefix(KeyPattern, &'a [&'a str]),
    /// `=` a key of the pattern, every placeholder bound.
    Whole(KeyPattern),
    /// `begins_with` this text.
    Text(&'a str),
}

impl IndexKeys {
    /// Whether a query whose partition key is a key of `partition` and
    /// whose sort key part is `sort` can select the keys these patterns
    /// render, for some values of both: an example sort key (or partition
    /// key, when the query does not look at the sort key) when it can.
    ///
    /// Exact for text and numbers, as the overlap analysis is (digits of
    /// timestamps are taken as any digits, so it may only err towards
    /// "can").
    pub(crate) fn reached_by(
        &self,
        partition: KeyPattern,
        sort: SortShape<'_>,
    ) -> Result<Option<String>> {
        let mine = self.partition_key();
        if starts_diverge(
            constant_prefix(mine.template()),
            constant_prefix(partition.template()),
        ) {
            mine.validate()?;
            partition.validate()?;
            return Ok(None);
        }
        let Some(partition_example) = mine.language()?.common_example(&partition.language()?)
        else {
            return Ok(None);
        };
        let sort_language = match self.sort_key() {
            Some(p) => Some(p.language()?),
            None => None,
        };
        Ok(match (sort, sort_language) {
            (SortShape::Any, _) => Some(partition_example),
            // An item without the index's sort key is not in it.
            (_, None) => None,
            (SortShape::Whole(p), Some(l)) => l.common_example(&p.language()?),
            (SortShape::Prefix(p, bound), Some(l)) => {
                l.example_starting_with(&p.prefix_language(bound)?)
            }
            (SortShape::Text(t), Some(l)) => l.example_starting_with(&Language::literal(t)),
        })
    }
}
