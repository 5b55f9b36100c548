//! `IndexKeys`: what every mapper declares in `KEY_PATTERNS`, the key
//! patterns of one index (or the table). Uses `pattern`; `overlap` and the
//! mapper's plan read it.

use super::pattern::KeyPattern;

/// A mapper's key patterns for one index (or the table): the partition key
/// pattern and, when the index has a sort key, the sort key pattern.
///
/// A type that writes different patterns into one index in different states
/// (say `ACTIVE_PRODUCT` or `ARCHIVED_PRODUCT`) declares one `IndexKeys` per
/// pattern.
///
/// On an index with [multi-attribute keys](crate::GlobalSecondaryIndex::multi_attribute),
/// whose key attributes are usually the entity's own fields, a pattern may
/// render one string key attribute ([`part`](Self::part)).
///
/// ```
/// use dynamodb_mapper::{IndexKeys, KeyPattern};
///
/// const ORDER_KEYS: &[IndexKeys] = &[
///     IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer_id}"))
///         .sort(KeyPattern::sort("ORDER#{order_id}")),
///     IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
///         .sort(KeyPattern::sort("{created_at:ts}")),
/// ];
/// # let _ = ORDER_KEYS;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IndexKeys {
    pub(super) index: Option<&'static str>,
    pub(super) partition: KeyPattern,
    pub(super) sort: Option<KeyPattern>,
    pub(super) by_hook: bool,
    pub(super) part: Option<&'static str>,
}

impl IndexKeys {
    /// Keys of the table itself.
    ///
    /// ```
    /// use dynamodb_mapper::{IndexKeys, KeyPattern};
    /// const K: IndexKeys = IndexKeys::table(KeyPattern::partition("USER#{id}"));
    /// # let _ = K;
    /// ```
    #[must_use]
    pub const fn table(partition: KeyPattern) -> Self {
        IndexKeys {
            index: None,
            partition,
            sort: None,
            by_hook: false,
            part: None,
        }
    }

    /// Keys of the global secondary index `name`.
    ///
    /// ```
    /// use dynamodb_mapper::{IndexKeys, KeyPattern};
    /// const K: IndexKeys = IndexKeys::index("GSI1", KeyPattern::partition("EMAIL#{email}"));
    /// # let _ = K;
    /// ```
    #[must_use]
    pub const fn index(name: &'static str, partition: KeyPattern) -> Self {
        IndexKeys {
            index: Some(name),
            partition,
            sort: None,
            by_hook: false,
            part: None,
        }
    }

    /// A pattern that renders the one string key attribute `attribute` of
    /// the multi-attribute index `index` (a partition pattern for a
    /// partition key attribute, a sort pattern for a sort key attribute),
    /// the index's other key attributes being the entity's fields. A lookup
    /// on the index binds the pattern's placeholders like fields. Parts take
    /// no part in the overlap analysis: an index's other attributes are
    /// typed values it cannot see.
    ///
    /// ```
    /// use dynamodb_mapper::{IndexKeys, KeyPattern};
    /// const K: IndexKeys = IndexKeys::part("ByTeam", "teamKey", KeyPattern::partition("TEAM#{org}#{team}"));
    /// # let _ = K;
    /// ```
    #[must_use]
    pub const fn part(index: &'static str, attribute: &'static str, pattern: KeyPattern) -> Self {
        IndexKeys {
            index: Some(index),
            partition: pattern,
            sort: None,
            by_hook: false,
            part: Some(attribute),
        }
    }

    /// The key attribute a [`part`](Self::part) renders; `None` for keys of
    /// a whole index.
    #[must_use]
    pub(crate) const fn part_attribute(&self) -> Option<&'static str> {
        self.part
    }

    /// The same keys with a sort key pattern.
    ///
    /// ```
    /// use dynamodb_mapper::{IndexKeys, KeyPattern};
    /// const K: IndexKeys = IndexKeys::table(KeyPattern::partition("USER#{id}")).sort(KeyPattern::sort("PROFILE"));
    /// # let _ = K;
    /// ```
    #[must_use]
    pub const fn sort(mut self, sort: KeyPattern) -> Self {
        self.sort = Some(sort);
        self
    }

    /// The same keys, written by the mapper's
    /// [`after_to_item`](crate::Mapper::after_to_item) hook rather than
    /// rendered from the entity's fields.
    ///
    /// Without it, every placeholder must name a field of the entity that
    /// serializes to a key component (checked by
    /// [`MapperExt::check`](crate::MapperExt::check)), and
    /// [`to_item`](crate::MapperExt::to_item) writes the keys itself. Mark
    /// the keys `by_hook` when a placeholder is computed (not a field), when
    /// the keys are written only in some states, or when a type declares
    /// several patterns for one index. The keys the hook writes are still
    /// checked against the patterns, which still take part in the overlap
    /// analysis and in [`Lookup`](crate::Lookup)s.
    ///
    /// ```
    /// use dynamodb_mapper::{IndexKeys, KeyPattern};
    /// const K: IndexKeys = IndexKeys::index("GSI1", KeyPattern::partition("ACTIVE")).by_hook();
    /// # let _ = K;
    /// ```
    #[must_use]
    pub const fn by_hook(mut self) -> Self {
        self.by_hook = true;
        self
    }

    /// Whether the keys are written by the hook ([`by_hook`](Self::by_hook)).
    #[must_use]
    pub(crate) const fn is_by_hook(&self) -> bool {
        self.by_hook
    }

    /// The index name, `None` for the table.
    #[must_use]
    pub(crate) const fn index_name(&self) -> Option<&'static str> {
        self.index
    }

    /// The partition key pattern (for a [`part`](Self::part), the part's
    /// pattern, whichever its role).
    #[must_use]
    pub(crate) const fn partition_key(&self) -> KeyPattern {
        self.partition
    }

    /// The sort key pattern, if declared.
    #[must_use]
    pub(crate) const fn sort_key(&self) -> Option<KeyPattern> {
        self.sort
    }
}
