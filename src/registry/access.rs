//! Access patterns: [`AccessPattern`], a query of the design declared once
//! by name, and the proof [`RegistryBuilder::build`](super::RegistryBuilder::build)
//! runs on each: its query is a key condition on a declared index, with no
//! filter, that returns exactly the entity types it names, for every value
//! of its parameters (judged by the key patterns the mappers declare, as
//! the overlap analysis judges them). Calling one is in `ops/access.rs`.

use crate::key::{IndexKeys, KeyPattern, SortShape};
use crate::schema::{IndexProjection, TableSchema};

use super::entry::Entry;

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
    name: &'static str,
    entity_types: &'static [&'static str],
    index: Option<&'static str>,
    by: &'static [&'static str],
    sort_by: Option<&'static str>,
    descending: bool,
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
    /// ([`Access::sort_between`](crate::ops::Access::sort_between)). One
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
    fn shape(&self) -> SortShape<'static> {
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
fn describe_sort_plan(
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

/// Whether two key patterns render the same keys from the same values, in
/// order: the same template but for the names of the placeholders, and the
/// same format.
fn same_shape(a: KeyPattern, b: KeyPattern) -> bool {
    fn unnamed(template: &str) -> String {
        let mut out = String::with_capacity(template.len());
        let mut in_name = false;
        for c in template.chars() {
            match c {
                '{' => {
                    in_name = true;
                    out.push(c);
                }
                ':' | '}' if in_name => {
                    in_name = false;
                    out.push(c);
                }
                _ if in_name => {}
                _ => out.push(c),
            }
        }
        out
    }
    a.key_format() == b.key_format() && unnamed(a.template()) == unnamed(b.template())
}

/// Whether a placeholder name of both patterns stands at different places
/// (`T#{a}#{b}` and `T#{b}#{a}`): the values given by name would fill them
/// crosswise.
fn crossed(a: KeyPattern, b: KeyPattern) -> bool {
    let names = |p: KeyPattern| -> Vec<&'static str> {
        p.placeholders()
            .map(|l| l.into_iter().map(|(n, _)| n).collect())
            .unwrap_or_default()
    };
    let (a, b) = (names(a), names(b));
    a.iter()
        .enumerate()
        .any(|(i, n)| b.iter().position(|m| m == n).is_some_and(|j| j != i))
}

fn describe(keys: &IndexKeys) -> String {
    match keys.sort_key() {
        Some(sort) => format!("`{}` / `{}`", keys.partition_key(), sort),
        None => format!("`{}`", keys.partition_key()),
    }
}

/// The whole-key declarations `entry` has for `index` (the table: `None`).
fn declared_on<T>(entry: &Entry<T>, index: Option<&str>) -> Vec<&'static IndexKeys> {
    entry
        .key_patterns
        .iter()
        .filter(|k| k.index_name() == index && k.part_attribute().is_none())
        .collect()
}

/// Proves `pattern` against the registered `entries` on `table`: the
/// pattern and its query, or every problem found (each line naming the
/// pattern).
pub(super) fn prove<T>(
    pattern: AccessPattern,
    entries: &[Entry<T>],
    table: &TableSchema,
) -> Result<Proven, Vec<String>> {
    let label = format!("access pattern {:?} on {}", pattern.name, pattern.on());
    let mut problems: Vec<String> = Vec::new();
    macro_rules! problem {
        ($text:expr $(,)?) => {
            problems.push(format!("{label}: {}", $text))
        };
    }

    if pattern.entity_types.is_empty() {
        problem!("names no entity type".to_owned());
    }
    // The key attributes it compares.
    let attributes = match pattern.index {
        None => Some((table.partition_key.name, table.sort_key.map(|k| k.name))),
        Some(name) => match table.index(name) {
            None => {
                problem!(format!("index {name} is not in the table layout"));
                None
            }
            Some(index) if index.is_multi_attribute() => {
                problem!(format!(
                    "index {name} has multi-attribute keys, which access patterns do not read \
                     yet: query it with `Lookup::key_condition`"
                ));
                None
            }
            Some(index) => {
                if !matches!(index.projection, IndexProjection::All) {
                    problem!(format!(
                        "index {name} does not project whole items, so its results cannot be \
                         read as entities: project ALL, or query it with `Lookup`"
                    ));
                }
                index
                    .single_keys()
                    .map(|(pk, sk)| (pk.name, sk.map(|k| k.name)))
            }
        },
    };
    // Each named type and the declaration the pattern selects.
    let mut members = Vec::new();
    let mut keys: Vec<(&'static str, IndexKeys)> = Vec::new();
    for (n, wanted) in pattern.entity_types.iter().enumerate() {
        if pattern.entity_types[..n].contains(wanted) {
            problem!(format!("names {wanted} twice"));
            continue;
        }
        let Some(at) = entries.iter().position(|e| e.entity_type == *wanted) else {
            problem!(format!(
                "names {wanted}, which is not registered (registered: {})",
                entries
                    .iter()
                    .map(|e| e.entity_type)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            continue;
        };
        members.push(at);
        let declared = declared_on(&entries[at], pattern.index);
        if declared.is_empty() {
            problem!(format!(
                "{wanted} declares no key patterns for {}, so the pattern cannot render its \
                 keys: declare them in KEY_PATTERNS (`by_hook()` when a hook writes them)",
                pattern.on()
            ));
            continue;
        }
        let names = |p: Option<KeyPattern>| -> Vec<&'static str> {
            p.and_then(|p| p.placeholders().ok())
                .map(|list| list.into_iter().map(|(n, _)| n).collect())
                .unwrap_or_default()
        };
        // The first named type's keys render the query's partition key from
        // the values given; the others' partition key patterns have the
        // same shape (their placeholders may have other names).
        let first = keys
            .first()
            .map(|(_, k): &(&str, IndexKeys)| k.partition_key());
        let fits = |k: &&&IndexKeys| {
            let partition = names(Some(k.partition_key()));
            let sort = names(k.sort_key());
            if let Some(first) = first {
                return same_shape(first, k.partition_key()) && !crossed(first, k.partition_key());
            }
            partition.iter().all(|p| pattern.by.contains(p))
                && pattern
                    .by
                    .iter()
                    .all(|b| partition.contains(b) || sort.contains(b))
                && pattern.sort_by.is_none_or(|r| sort.contains(&r))
        };
        let fitting: Vec<&&IndexKeys> = declared.iter().filter(fits).collect();
        let list = || {
            declared
                .iter()
                .map(|k| describe(k))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match fitting.as_slice() {
            [one] => keys.push((wanted, ***one)),
            [] if !keys.is_empty() => problem!(format!(
                "none of {wanted}'s key patterns on it ({}) has a partition key like `{}` (the \
                 same placeholders in the same places), so one query cannot return it with {}",
                list(),
                first.map(|p| p.to_string()).unwrap_or_default(),
                pattern.entity_types[0]
            )),
            [] => problem!(format!(
                "none of {wanted}'s key patterns on it ({}) has its partition key placeholders \
                 among the pattern's ({}) and a placeholder for each of those{}{}",
                list(),
                pattern.by.join(", "),
                if pattern.sort_by.is_some() {
                    " (and the sort_by one)"
                } else {
                    ""
                },
                if pattern.entity_types.len() > 1 {
                    "; `by` names the first entity type's placeholders, the others' partition \
                     keys need only the same shape"
                } else {
                    ""
                }
            )),
            more => problem!(format!(
                "{} of {wanted}'s key patterns fit it ({}): name a placeholder only one of them \
                 has, with `by` or `sort_by`",
                more.len(),
                more.iter()
                    .map(|k| describe(k))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    let (Some(attributes), true) = (attributes, problems.is_empty()) else {
        return Err(problems);
    };
    let Some(&(_, first)) = keys.first() else {
        return Err(problems);
    };
    let partition = first.partition_key();
    // The sort key part.
    let sort = if attributes.1.is_none() {
        if let Some(r) = pattern.sort_by {
            problem!(format!(
                "sorts by `{{{r}}}`, but {} has no sort key",
                pattern.on()
            ));
        }
        SortPlan::Any
    } else {
        let sorts: Vec<Option<KeyPattern>> = keys.iter().map(|(_, k)| k.sort_key()).collect();
        let same = sorts.windows(2).all(|w| w[0] == w[1]);
        match (same, sorts.first().copied().flatten()) {
            (true, Some(p)) => {
                let placeholders: Vec<&str> = p
                    .placeholders()
                    .map(|l| l.into_iter().map(|(n, _)| n).collect())
                    .unwrap_or_default();
                let first_open = placeholders.iter().find(|n| !pattern.by.contains(n));
                if let Some(r) = pattern.sort_by
                    && first_open != Some(&r)
                {
                    problem!(format!(
                        "sorts by `{{{r}}}`, which is not the first placeholder of `{p}` it is \
                         not given{}",
                        first_open.map_or_else(String::new, |o| format!(" (`{{{o}}}`)"))
                    ));
                }
                let starts_open = p.template().starts_with('{')
                    && first_open.is_some_and(|o| placeholders.first() == Some(o));
                if first_open.is_none() {
                    SortPlan::Whole(p)
                } else if starts_open && pattern.sort_by.is_none() {
                    SortPlan::Any
                } else {
                    SortPlan::Prefix(p)
                }
            }
            (true, None) => SortPlan::Any,
            (false, _) => {
                if pattern.sort_by.is_some() {
                    problem!(
                        "sorts by a placeholder, which needs one entity type (or one sort key \
                         pattern)"
                            .to_owned(),
                    );
                }
                // The literal text every named type's sort keys start with.
                let starts: Vec<&'static str> = sorts
                    .iter()
                    .map(|s| s.and_then(|p| p.constant_prefix().ok()).unwrap_or(""))
                    .collect();
                let mut common: &'static str = starts.first().copied().unwrap_or("");
                for s in &starts[1..] {
                    let n = common
                        .char_indices()
                        .zip(s.chars())
                        .take_while(|((_, a), b)| a == b)
                        .count();
                    let end = common
                        .char_indices()
                        .nth(n)
                        .map_or(common.len(), |(i, _)| i);
                    common = &common[..end];
                }
                if common.is_empty() {
                    SortPlan::Any
                } else {
                    SortPlan::Text(common)
                }
            }
        }
    };
    // Every value given is used by the query.
    let mut used: Vec<&str> = partition
        .placeholders()
        .map(|l| l.into_iter().map(|(n, _)| n).collect())
        .unwrap_or_default();
    if let SortPlan::Whole(p) | SortPlan::Prefix(p) = &sort
        && let Ok(list) = p.placeholders()
    {
        used.extend(
            list.into_iter()
                .map(|(n, _)| n)
                .take_while(|n| pattern.by.contains(n)),
        );
    }
    for name in pattern.by {
        if !used.contains(name) {
            problem!(format!(
                "is by `{{{name}}}`, which its query `{}` cannot use{}",
                describe_sort_plan(&sort, attributes.1, pattern.by, pattern.sort_by),
                if keys.len() > 1 {
                    ": its entity types' sort keys have no placeholder in common before it; \
                     declare a pattern per entity type"
                } else {
                    ": a sort key placeholder before it is not given"
                }
            ));
        }
    }
    let get = pattern.index.is_none()
        && keys.len() == 1
        && (matches!(sort, SortPlan::Whole(_)) || attributes.1.is_none());
    let mut proven = Proven {
        pattern,
        partition,
        sort,
        members,
        keys,
        get,
        unproven: Vec::new(),
        attributes,
    };
    // What the query reaches, for every value.
    let shape = proven.shape();
    for (i, entry) in entries.iter().enumerate() {
        let named = proven.members.contains(&i);
        let declared = declared_on(entry, pattern.index);
        if declared.is_empty() {
            if !named {
                proven.unproven.push(entry.entity_type);
            }
            continue;
        }
        let mut reached = None;
        for k in &declared {
            match k.reached_by(partition, shape) {
                Ok(Some(example)) => {
                    reached = Some((**k, example));
                    break;
                }
                Ok(None) => {}
                Err(e) => problem!(e.with_entity_type(entry.entity_type).to_string()),
            }
        }
        match (named, reached) {
            (true, None) => problem!(format!(
                "its query `{}` returns no {} items (keys {})",
                proven.describe_query(),
                entry.entity_type,
                declared
                    .iter()
                    .map(|k| describe(k))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            (false, Some((k, example))) => problem!(format!(
                "its query `{}` also returns {} items (keys {}, e.g. {example:?}), expected only {}",
                proven.describe_query(),
                entry.entity_type,
                describe(&k),
                pattern.entity_types.join(", ")
            )),
            _ => {}
        }
    }
    // Sentinels of unique values live on the table.
    if pattern.index.is_none() {
        for entry in entries {
            for k in (entry.sentinel_patterns)() {
                if let Ok(Some(example)) = k.reached_by(partition, shape) {
                    problem!(format!(
                        "its query `{}` also returns {}'s unique sentinels (keys {}, e.g. \
                         {example:?})",
                        proven.describe_query(),
                        entry.entity_type,
                        describe(k)
                    ));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(proven)
    } else {
        Err(problems)
    }
}
