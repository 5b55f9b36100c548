//! Calling a declared [`AccessPattern`]: [`Registry::access`] hands out an
//! [`Access`], which takes the pattern's parameters and renders its key
//! condition, its `Query`, or reads its results as typed entities.

use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::types::AttributeValue;
use tracing::Instrument;

use super::Table;
use super::call::call_read;
use crate::error::{Error, Result};
use crate::expr::{Apply, KeyCondition, sort_range};
use crate::item::Item;
use crate::key::{KeyPattern, KeyValue, SortBounds, bounds};
use crate::mapper::{Mapper, MapperExt, SortRange};
use crate::registry::{AccessPattern, Proven, Registry, SortPlan};

/// A call of an [`AccessPattern`] of a [`Registry`], from
/// [`Registry::access`]: give a value to each of the pattern's placeholders
/// with [`with`](Self::with) (and a range of its `sort_by` placeholder, if
/// it has one), then read its results with [`fetch`](Self::fetch), or take
/// its [`query`](Self::query) to page through yourself
/// ([`Table::query_page`], [`Table::query_stream`]).
///
/// ```no_run
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::AccessPattern;
///
/// const ORDERS_OF_CUSTOMER: AccessPattern =
///     AccessPattern::new("orders of a customer", &["Order"]).by(&["customer"]);
/// # async fn demo() -> dynamodb_mapper::Result<()> {
/// let registry = Registry::builder()
///     .register::<CustomerMapper>(Entity::Customer)
///     .register::<OrderMapper>(Entity::Order)
///     .access_pattern(ORDERS_OF_CUSTOMER)
///     .build()?;
/// let orders: Vec<Entity> = registry.access(&ORDERS_OF_CUSTOMER)?.with("customer", "C1").fetch(&table()).await?;
/// # Ok(())
/// # }
/// ```
#[must_use]
pub struct Access<'r, 'a, T> {
    registry: &'r Registry<T>,
    proven: &'r Proven,
    values: Vec<(&'a str, KeyValue<'a>)>,
    range: Option<SortRange<'a>>,
}

impl<T> std::fmt::Debug for Access<'_, '_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Access")
            .field("pattern", &self.proven.pattern.name())
            .field("values", &self.values)
            .field("range", &self.range)
            .finish()
    }
}

impl<T> Registry<T> {
    /// A call of the access pattern `pattern`, declared on this registry
    /// ([`RegistryBuilder::access_pattern`](crate::RegistryBuilder::access_pattern))
    /// and proven when it was built.
    ///
    /// # Errors
    /// [`ErrorKind::NotRegistered`](crate::ErrorKind::NotRegistered) when
    /// the registry declares no access pattern of that name, or one that is
    /// not `pattern` (the same name for another declaration).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::AccessPattern;
    ///
    /// const ORDERS: AccessPattern = AccessPattern::new("orders of a customer", &["Order"]).by(&["customer"]);
    /// let registry = Registry::builder().register::<OrderMapper>(Entity::Order).access_pattern(ORDERS).build()?;
    /// let e = registry.access(&ORDERS)?.with("customer", "C1").key_condition()?.build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND begins_with(#k1, :k1)");
    /// assert_eq!(e.values()[":k1"], AttributeValue::S("ORDER#".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn access<'a>(&self, pattern: &AccessPattern) -> Result<Access<'_, 'a, T>> {
        let proven = self
            .access_pattern(pattern.name())
            .filter(|p| p.pattern == *pattern)
            .ok_or_else(|| Error::not_registered("access pattern", pattern.name()))?;
        Ok(Access {
            registry: self,
            proven,
            values: Vec::new(),
            range: None,
        })
    }
}

impl<'a, T> Access<'_, 'a, T> {
    /// Gives `value` to the pattern's placeholder `name` (one of those it
    /// is [`by`](AccessPattern::by)).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::AccessPattern;
    /// const ITEM: AccessPattern = AccessPattern::new("invoice item", &["InvoiceItem"]).by(&["invoice", "line"]);
    /// let registry = Registry::<()>::builder().register::<InvoiceItemMapper>(|_| ()).access_pattern(ITEM).build()?;
    /// let e = registry.access(&ITEM)?.with("invoice", "I1").with("line", 7).key_condition()?.build()?;
    /// assert_eq!(e.values()[":k1"], AttributeValue::S("ITEM#007".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn with(mut self, name: &'a str, value: impl Into<KeyValue<'a>>) -> Self {
        self.values.push((name, value.into()));
        self
    }

    /// Selects the results whose `sort_by` placeholder `name` lies in
    /// `range`, both ends included (`low..=high`, `low..`, `..=high`), as
    /// [`Lookup::sort_range`](crate::Lookup::sort_range) does.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::AccessPattern;
    /// const ITEMS: AccessPattern =
    ///     AccessPattern::new("items of an invoice", &["InvoiceItem"]).by(&["invoice"]).sort_by("line");
    /// let registry = Registry::<()>::builder().register::<InvoiceItemMapper>(|_| ()).access_pattern(ITEMS).build()?;
    /// let call = || registry.access(&ITEMS).map(|a| a.with("invoice", "I1"));
    /// let e = call()?.sort_range("line", 2..=5).key_condition()?.build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 BETWEEN :k1 AND :k2");
    /// assert_eq!(e.values()[":k2"], AttributeValue::S("ITEM#005".into()));
    /// let e = call()?.sort_range("line", 2..).key_condition()?.build()?;
    /// assert_eq!(e.values()[":k1"], AttributeValue::S("ITEM#002".into()));
    /// let e = call()?.sort_range("line", ..=5).key_condition()?.build()?;
    /// assert_eq!(e.values()[":k2"], AttributeValue::S("ITEM#005".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_range(mut self, name: &'a str, range: impl SortBounds<'a>) -> Self {
        let (low, high) = bounds(range);
        self.range = Some(SortRange::new(name, low, high));
        self
    }

    fn error(&self, reason: impl Into<String>) -> Error {
        Error::invalid_key(
            "(key)",
            format!(
                "of access pattern {:?} {}",
                self.proven.pattern.name(),
                reason.into()
            ),
        )
    }

    /// Every placeholder of the pattern given one value, and nothing else.
    fn check_values(&self) -> Result<()> {
        let by = self.proven.pattern.placeholders();
        for (i, (name, _)) in self.values.iter().enumerate() {
            if !by.contains(name) {
                return Err(self.error(format!(
                    "has no placeholder `{{{name}}}` (it is by {})",
                    by.join(", ")
                )));
            }
            if self.values[..i].iter().any(|(n, _)| n == name) {
                return Err(self.error(format!("is given `{{{name}}}` twice")));
            }
        }
        if let Some(missing) = by
            .iter()
            .find(|b| !self.values.iter().any(|(n, _)| n == *b))
        {
            return Err(self.error(format!("is given no value for `{{{missing}}}`")));
        }
        if let Some(SortRange { name, .. }) = &self.range
            && self.proven.pattern.sort_placeholder() != Some(*name)
        {
            return Err(self.error(match self.proven.pattern.sort_placeholder() {
                Some(r) => format!("is sorted by `{{{r}}}`, not `{{{name}}}`"),
                None => format!("has no sort_by placeholder, so no range over `{{{name}}}`"),
            }));
        }
        Ok(())
    }

    /// `pattern` with the values given for its leading placeholders: up to
    /// the first one not given, as the proof reads a prefix (a value given
    /// for a partition key placeholder that comes again later in a sort key
    /// is not part of its prefix).
    fn bound(&self, pattern: KeyPattern) -> crate::key::BoundPattern<'a> {
        let names = pattern.placeholders().unwrap_or_default();
        names
            .iter()
            .map_while(|(name, _)| self.values.iter().find(|(n, _)| n == name))
            .fold(pattern.bind(), |b, (n, v)| b.with(n, v.clone()))
    }

    /// The pattern's key condition with the values given: its partition
    /// key, and its sort key part (see [`AccessPattern`]).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) naming the
    /// pattern: a placeholder it does not have, one given twice or not at
    /// all, a range over another placeholder than its `sort_by` one;
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// for a value its placeholder's format cannot encode (empty text, a
    /// number too wide, ...); and as [`KeyCondition::build`].
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::AccessPattern;
    /// const CUSTOMER: AccessPattern = AccessPattern::new("customer with orders", &["Customer", "Order"]).by(&["id"]);
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .access_pattern(CUSTOMER)
    ///     .build()?;
    /// let e = registry.access(&CUSTOMER)?.with("id", "C1").key_condition()?.build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0");
    /// assert_eq!(e.values()[":k0"], AttributeValue::S("CUSTOMER#C1".into()));
    /// let err = registry.access(&CUSTOMER)?.key_condition().unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `(key)` of access pattern \"customer with orders\" is given no value for `{id}`");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn key_condition(&self) -> Result<KeyCondition> {
        self.check_values()?;
        let proven = self.proven;
        let partition = self.bound(proven.partition).render()?;
        let mut condition = KeyCondition::new(self.registry.table(), partition);
        if let Some(index) = proven.pattern.index_name() {
            condition = condition.on_index(index);
        }
        Ok(match &proven.sort {
            SortPlan::Any => condition,
            SortPlan::Whole(p) => condition.sort_eq(self.bound(*p).render()?),
            SortPlan::Text(t) => condition.sort_begins_with(*t),
            SortPlan::Prefix(p) => {
                let base = self.bound(*p);
                // No prefix when the pattern starts with a placeholder not
                // given (a range over it, or the whole index partition).
                let names = p.placeholders()?;
                let open = names
                    .first()
                    .is_some_and(|(n, _)| !self.values.iter().any(|(v, _)| v == n));
                let prefix = if open && p.template().starts_with('{') {
                    None
                } else {
                    Some(base.prefix()?)
                };
                match &self.range {
                    None => match prefix {
                        Some(prefix) => condition.sort_begins_with(prefix),
                        None => condition,
                    },
                    Some(range) => sort_range(condition, &base, prefix, range)?,
                }
            }
        })
    }

    /// The primary key a pattern of a whole key gives (a `GetItem`).
    pub(super) fn primary_key(&self) -> Result<Item> {
        let partition = self.bound(self.proven.partition).render()?;
        let sort = match &self.proven.sort {
            SortPlan::Whole(p) => Some(AttributeValue::S(self.bound(*p).render()?)),
            _ => None,
        };
        self.registry
            .table()
            .key(AttributeValue::S(partition), sort)
    }

    /// The pattern's `Query` of `table`: its index, its
    /// [`key_condition`](Self::key_condition), its order, and no filter
    /// (the pattern is proven to return only its entity types). It asks
    /// for consumed capacity as [`Table::query`] does. Page through it with
    /// [`Table::query_page`] or [`Table::query_stream`].
    ///
    /// # Errors
    /// As [`key_condition`](Self::key_condition).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::AccessPattern;
    /// const NEWEST: AccessPattern = AccessPattern::new("orders, newest first", &["Order"]).by(&["customer"]).descending();
    /// let registry = Registry::builder().register::<OrderMapper>(Entity::Order).access_pattern(NEWEST).build()?;
    /// let query = registry.access(&NEWEST)?.with("customer", "C1").query(&table())?;
    /// assert_eq!(query.get_scan_index_forward(), &Some(false));
    /// assert_eq!(query.get_filter_expression(), &None);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn query(&self, table: &Table) -> Result<QueryFluentBuilder> {
        let query = table.query().apply(self.key_condition()?)?;
        Ok(if self.proven.pattern.is_descending() {
            query.scan_index_forward(false)
        } else {
            query
        })
    }

    /// Reads every result of the pattern from `table`, in order, as the
    /// registry decodes them: a `GetItem` when the pattern gives the whole
    /// primary key, else its [`query`](Self::query) page by page. The whole
    /// read is bounded by the table's [`deadline`](Table::deadline); a page
    /// that gets no answer is asked for again, as every read is.
    ///
    /// An item of a type the pattern does not name (possible only when a
    /// registered type declares no key patterns for the index, so the proof
    /// could not rule it out, or when the table holds items the registry
    /// does not know) is an error, never skipped.
    ///
    /// # Errors
    /// As [`key_condition`](Self::key_condition);
    /// [`ErrorKind::UnknownEntityType`](crate::ErrorKind::UnknownEntityType)
    /// for an item of another type (or a unique sentinel), naming the
    /// pattern; decoding errors as [`Registry::decode`] reports them;
    /// [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse)
    /// for a page whose `LastEvaluatedKey` is the key it was asked from;
    /// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) and
    /// [`ErrorKind::Sdk`](crate::ErrorKind::Sdk) as for any read.
    ///
    /// ```no_run
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::AccessPattern;
    /// const INVOICE: AccessPattern = AccessPattern::new("invoice", &["Invoice"]).by(&["id"]);
    /// # async fn demo() -> dynamodb_mapper::Result<()> {
    /// let registry = Registry::builder().register::<InvoiceMapper>(|i| i).access_pattern(INVOICE).build()?;
    /// // A GetItem: the pattern gives the whole key.
    /// let found: Vec<Invoice> = registry.access(&INVOICE)?.with("id", "I1").fetch(&table()).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn fetch(&self, table: &Table) -> Result<Vec<T>> {
        let mut out = Vec::new();
        self.read(table, |item| {
            out.push(self.registry.decode_for(item, self.proven)?);
            Ok(())
        })
        .await?;
        Ok(out)
    }

    /// Reads every result of a pattern of one entity type, `M`'s, as `M`'s
    /// entities (each read with [`MapperExt::from_item`](crate::MapperExt::from_item),
    /// which checks its discriminator), as [`fetch`](Self::fetch) reads
    /// them: no registry enum to match for a pattern of one type.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) when the
    /// pattern does not return `M`'s type alone; an item of another type is
    /// `M`'s read error (a discriminator mismatch); and as
    /// [`fetch`](Self::fetch).
    ///
    /// ```no_run
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::AccessPattern;
    /// const ORDERS: AccessPattern = AccessPattern::new("orders of a customer", &["Order"]).by(&["customer"]);
    /// # async fn demo() -> dynamodb_mapper::Result<()> {
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .access_pattern(ORDERS)
    ///     .build()?;
    /// let orders: Vec<Order> = registry.access(&ORDERS)?.with("customer", "C1").fetch_as::<OrderMapper>(&table()).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn fetch_as<M: Mapper>(&self, table: &Table) -> Result<Vec<M::Entity>> {
        let types = self.proven.pattern.entity_types();
        if types != [M::ENTITY_TYPE] {
            return Err(Error::invalid_key(
                "(entity type)",
                format!(
                    "of access pattern {:?} is {}, not {} alone",
                    self.proven.pattern.name(),
                    types.join(", "),
                    M::ENTITY_TYPE
                ),
            ));
        }
        let mut out = Vec::new();
        self.read(table, |item| {
            out.push(M::from_item(item)?);
            Ok(())
        })
        .await?;
        Ok(out)
    }

    /// Reads the pattern's items from `table` as [`fetch`](Self::fetch)
    /// does, handing each to `each` as it comes (in a
    /// `dynamodb_mapper.access` span: `items`, `pages`, and the
    /// `consumed_capacity` the answers report when the table asks for it).
    pub(super) async fn read(
        &self,
        table: &Table,
        mut each: impl FnMut(Item) -> Result<()>,
    ) -> Result<()> {
        let span = tracing::info_span!(
            "dynamodb_mapper.access",
            pattern = self.proven.pattern.name(),
            table = table.name(),
            items = tracing::field::Empty,
            pages = tracing::field::Empty,
            consumed_capacity = tracing::field::Empty,
        );
        self.check_values()?;
        let bound = table.bound();
        let policy = table.get_retry_policy();
        let units = |c: Option<&aws_sdk_dynamodb::types::ConsumedCapacity>| {
            c.and_then(aws_sdk_dynamodb::types::ConsumedCapacity::capacity_units)
                .unwrap_or(0.0)
        };
        let (mut items, mut pages, mut used) = (0usize, 0usize, 0.0);
        if self.proven.get {
            let get = table
                .client()
                .get_item()
                .table_name(table.name())
                .set_key(Some(self.primary_key()?))
                .set_return_consumed_capacity(table.get_return_consumed_capacity().cloned());
            let found = call_read(&bound, "GetItem", policy, || get.clone().send())
                .instrument(span.clone())
                .await
                .map_err(|f| f.into_error("GetItem"))?;
            pages = 1;
            used += units(found.consumed_capacity());
            if let Some(item) = found.item {
                items += 1;
                each(item)?;
            }
        } else {
            let query = self.query(table)?;
            let mut start: Option<Item> = None;
            loop {
                let page = query.clone().set_exclusive_start_key(start.clone());
                let found = call_read(&bound, "Query", policy, || page.clone().send())
                    .instrument(span.clone())
                    .await
                    .map_err(|f| f.into_error("Query"))?;
                pages += 1;
                used += units(found.consumed_capacity());
                for item in found.items.unwrap_or_default() {
                    items += 1;
                    each(item)?;
                }
                match found.last_evaluated_key {
                    Some(key) if !key.is_empty() => {
                        if start.as_ref() == Some(&key) {
                            return Err(super::pages::repeated_key("Query"));
                        }
                        start = Some(key);
                    }
                    _ => break,
                }
            }
        }
        span.record("items", items);
        span.record("pages", pages);
        if table.get_return_consumed_capacity().is_some() {
            span.record("consumed_capacity", used);
        }
        Ok(())
    }
}
