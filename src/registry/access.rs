//! Access patterns: [`AccessPattern`], a query of the design declared once
//! by name, and what the proof makes of it ([`Proven`]: the query it sends,
//! as a key condition and as text). The proof is `proof.rs`; calling a
//! pattern is in `ops/access.rs`.

use crate::key::{IndexKeys, KeyPattern, SortShape};

/// An access pattern of the design ("orders of a customer, newest first"),
/// declared once: its name, the entity types it returns, the index it reads
/// (the table by default), the placeholders of their key patterns its
/// caller gives ([`by`](Self::by)), and optionally the placeholder its
/// results are ordered and ranged by ([`sort_by`](Self::sort_by)) and a
/// descending order.
///
/// Register it with
/// [`RegistryBuilder::access_pattern`](super::RegistryBuilder::access_pattern);
/// [`build`](super::RegistryBuilder::build) proves it: its query is a key
/// condition on the index (never a scan, never a filter) rendered from the
/// key patterns the named types declare
/// ([`Mapper::KEY_PATTERNS`](crate::Mapper::KEY_PATTERNS)), and it returns
/// items of every named type and of no other registered type, whatever the
/// values given. Call it with [`Registry::access`](super::Registry::access).
///
/// The query: the partition key rendered from the `by` values (every
/// placeholder of the partition key pattern is one of them); the sort key
/// equal to the whole key when every placeholder of the sort key pattern is
/// given (a `GetItem` on the table), else beginning with the key up to the
/// first one not given, or in a range over the `sort_by` placeholder. Several
/// entity types share one query: their partition key patterns are the same,
/// and their sort keys are selected by the same prefix (their sort key
/// patterns given the same values, or the literal text they start with in
/// common).
///
/// ```
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::AccessPattern;
///
/// // Customers are `CUSTOMER#{id}` / `METADATA`, orders `CUSTOMER#{customer}` / `ORDER#{id}`.
/// const ORDERS_OF_CUSTOMER: AccessPattern =
///     AccessPattern::new("orders of a customer", &["Order"]).by(&["customer"]).descending();
/// const CUSTOMER_WITH_ORDERS: AccessPattern =
///     AccessPattern::new("customer with orders", &["Customer", "Order"]).by(&["id"]);
///
/// let registry = Registry::builder()
///     .register::<CustomerMapper>(Entity::Customer)
///     .register::<OrderMapper>(Entity::Order)
///     .access_pattern(ORDERS_OF_CUSTOMER)
///     .access_pattern(CUSTOMER_WITH_ORDERS)
///     .build()?;
/// # let _ = registry;
///
/// // An order's partition key is rendered from `customer`, not `id`.
/// let err = Registry::builder()
///     .register::<CustomerMapper>(Entity::Customer)
///     .register::<OrderMapper>(Entity::Order)
///     .access_pattern(AccessPattern::new("orders", &["Order"]).by(&["id"]))
///     .build()
///     .unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "invalid registry (1 problem): access pattern \"orders\" on the table: none of Order's \
///      key patterns on it (`CUSTOMER#{customer}` / `ORDER#{id}`) has its partition key \
///      placeholders among the pattern's (id) and a placeholder for each of those"
/// );
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AccessPattern {
    pub(super) name: &'static str,
    pub(super) entity_types: &'static [&'static str],
    pub(super) index: Option<&'static str>,
    pub(super) by: &'static [&'static str],
    pub(super) sort_by: Option<&'static str>,
    pub(super) descending: bool,
}

impl AccessPattern {
    /// The access pattern `name`, returning items of `entity_types`, on the
    /// table, with no parameters (add them with [`by`](Self::by)).
    ///
    /// ```
    /// use dynamodb_mapper::AccessPattern;
    /// const ALL_ORDERS: AccessPattern = AccessPattern::new("all orders", &["Order"]).on_index("GSI2");
    /// assert_eq!(ALL_ORDERS.name(), "all orders");
    /// ```
    #[must_use]
    pub const fn new(name: &'static str, entity_types: &'static [&'static str]) -> Self {
        AccessPattern {
            name,
            entity_types,
            index: None,
            by: &[],
            sort_by: None,
            descending: false,
        }
    }

    /// Reads the global secondary index `name` instead of the table.
    ///
    /// ```
    /// use dynamodb_mapper::AccessPattern;
    /// const BY_EMAIL: AccessPattern =
    ///     AccessPattern::new("customer by email", &["Customer"]).on_index("GSI1").by(&["email"]);
    /// # let _ = BY_EMAIL;
    /// ```
    #[must_use]
    pub const fn on_index(mut self, name: &'static str) -> Self {
        self.index = Some(name);
        self
    }

    /// The placeholders of the key patterns the caller gives values for,
    /// with [`Access::with`](crate::ops::Access::with): every placeholder of
    /// the partition key pattern, then, from the left, any of the sort key
    /// pattern's.
    ///
    /// ```
    /// use dynamodb_mapper::AccessPattern;
    /// const LINES: AccessPattern =
    ///     AccessPattern::new("lines of an order", &["OrderLine"]).by(&["customer_id", "order_id"]);
    /// # let _ = LINES;
    /// ```
    #[must_use]
    pub const fn by(mut self, placeholders: &'static [&'static str]) -> Self {
        self.by = placeholders;
        self
    }

    /// Orders the results by the sort key placeholder `placeholder` (the
    /// first one not given [`by`](Self::by) the caller), and lets a call
    /// select a range of it
    /// ([`Access::sort_range`](crate::ops::Access::sort_range)). One
    /// entity type only.
    ///
    /// ```
    /// use dynamodb_mapper::AccessPattern;
    /// const BY_STATUS: AccessPattern = AccessPattern::new("orders by status", &["Order"])
    ///     .on_index("GSI1")
    ///     .by(&["status"])
    ///     .sort_by("created_at");
    /// # let _ = BY_STATUS;
    /// ```
    #[must_use]
    pub const fn sort_by(mut self, placeholder: &'static str) -> Self {
        self.sort_by = Some(placeholder);
        self
    }

    /// Returns the results in descending sort key order (newest first, for
    /// a sort key that ends with a time).
    ///
    /// ```
    /// use dynamodb_mapper::AccessPattern;
    /// const NEWEST: AccessPattern = AccessPattern::new("orders", &["Order"]).on_index("GSI2").descending();
    /// # let _ = NEWEST;
    /// ```
    #[must_use]
    pub const fn descending(mut self) -> Self {
        self.descending = true;
        self
    }

    /// The name.
    ///
    /// ```
    /// use dynamodb_mapper::AccessPattern;
    /// assert_eq!(AccessPattern::new("orders", &["Order"]).name(), "orders");
    /// ```
    #[must_use]
    pub const fn name(&self) -> &'static str {
        self.name
    }

    pub(crate) const fn entity_types(&self) -> &'static [&'static str] {
        self.entity_types
    }

    pub(crate) const fn index_name(&self) -> Option<&'static str> {
        self.index
    }

    pub(crate) const fn placeholders(&self) -> &'static [&'static str] {
        self.by
    }

    pub(crate) const fn sort_placeholder(&self) -> Option<&'static str> {
        self.sort_by
    }

    pub(crate) const fn is_descending(&self) -> bool {
        self.descending
    }

    /// Where it reads, for messages: `the table` or `index GSI1`.
    pub(crate) fn on(&self) -> String {
        self.index
            .map_or_else(|| "the table".to_owned(), |i| format!("index {i}"))
    }
}

/// The sort key part of a proven pattern's query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SortPlan {
    /// No sort key condition.
    Any,
    /// `=` the whole key of the pattern, rendered from the values given.
    Whole(KeyPattern),
    /// `begins_with` the pattern rendered up to its first placeholder
    /// without a value (or a range over the `sort_by` placeholder).
    Prefix(KeyPattern),
    /// `begins_with` this literal text.
    Text(&'static str),
}

/// A pattern proven by `build`: the query it sends, and what it reads.
#[derive(Debug, Clone)]
pub(crate) struct Proven {
    pub(crate) pattern: AccessPattern,
    /// The partition key pattern the query's partition key is rendered from.
    pub(crate) partition: KeyPattern,
    pub(crate) sort: SortPlan,
    /// Entry index of each named entity type, in the pattern's order.
    pub(crate) members: Vec<usize>,
    /// The key patterns of each named type the query selects.
    pub(crate) keys: Vec<(&'static str, IndexKeys)>,
    /// A `GetItem`: one entity type, the whole primary key given.
    pub(crate) get: bool,
    /// Registered types that declare no key patterns for the index, so the
    /// proof cannot rule them out (a self-test runs the pattern instead).
    pub(crate) unproven: Vec<&'static str>,
    /// The key attributes the query compares: partition, sort (if any).
    pub(crate) attributes: (&'static str, Option<&'static str>),
}

impl Proven {
    /// The sort key part as the proof reads it.
    pub(super) fn shape(&self) -> SortShape<'static> {
        match &self.sort {
            SortPlan::Any => SortShape::Any,
            SortPlan::Whole(p) => SortShape::Whole(*p),
            SortPlan::Prefix(p) => SortShape::Prefix(*p, self.pattern.by),
            SortPlan::Text(t) => SortShape::Text(t),
        }
    }

    /// The query, as a design review reads it: `pk = CUSTOMER#{customer_id}
    /// AND begins_with(sk, ORDER#)`.
    pub(crate) fn describe_query(&self) -> String {
        let (pk, sk) = self.attributes;
        let sort = describe_sort_plan(&self.sort, sk, self.pattern.by, self.pattern.sort_by);
        if sort.is_empty() {
            format!("{pk} = {}", self.partition)
        } else {
            format!("{pk} = {} AND {sort}", self.partition)
        }
    }
}

/// The sort key part of a query, as [`Proven::describe_query`] shows it
/// (empty when there is none).
pub(super) fn describe_sort_plan(
    sort: &SortPlan,
    attribute: Option<&str>,
    by: &[&str],
    sort_by: Option<&str>,
) -> String {
    let sk = attribute.unwrap_or("(sort key)");
    match sort {
        SortPlan::Any => String::new(),
        SortPlan::Whole(p) => format!("{sk} = {p}"),
        SortPlan::Prefix(p) => {
            let shown = prefix_template(*p, by, sort_by);
            match (sort_by, shown.is_empty()) {
                (Some(r), true) => format!("{sk} in a range of {{{r}}}, if given"),
                (Some(r), false) => {
                    format!("begins_with({sk}, {shown}), or a range of {{{r}}} under it")
                }
                (None, _) => format!("begins_with({sk}, {shown})"),
            }
        }
        SortPlan::Text(t) => format!("begins_with({sk}, {t})"),
    }
}

/// The template of the prefix a pattern renders with the placeholders `by`
/// given: up to the first one not given (`ORDER#{order_id}#`), or the whole
/// template and a delimiter.
fn prefix_template(pattern: KeyPattern, by: &[&str], stop: Option<&str>) -> String {
    let template = pattern.template();
    let mut rest = template;
    let mut out = String::new();
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let spec = &rest[open + 1..open + close];
        let name = spec.split(':').next().unwrap_or(spec);
        if !by.contains(&name) || stop == Some(name) {
            out.push_str(&rest[..open]);
            return out;
        }
        out.push_str(&rest[..=open + close]);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out.push(pattern.key_format().delimiter());
    out
}
