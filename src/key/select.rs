//! What a key condition selects, in terms of string keys, and whether a
//! declaration's keys can be among the selected: the base of
//! [`Registry::entity_types_reached`](crate::Registry::entity_types_reached).
//! Uses `pattern` and `overlap`.

use std::ops::Bound;

use super::index_keys::IndexKeys;
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
