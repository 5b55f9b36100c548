//! [`Lookup`]: keys of one entity type built from its declared key
//! patterns and the values of their placeholders (ids), without the
//! entity. The query side (a key condition, a `Query` that reads only this
//! type) is added by `expr`.

use std::fmt;
use std::marker::PhantomData;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::get_item::builders::GetItemFluentBuilder;
use aws_sdk_dynamodb::types::AttributeValue;

use super::Mapper;
use crate::error::{Error, Result};
use crate::item::Item;
use crate::key::{IndexKeys, KeyPattern, KeyValue, SortBounds, bounds};

/// A key of the entity type `M`, from the values of its key patterns'
/// placeholders: the key of a `GetItem`, or (with [`expr`](crate::expr)) the
/// key condition of a query that reads only `M`'s items. Made by
/// [`MapperExt::lookup`](crate::MapperExt::lookup); the patterns are the
/// mapper's [`KEY_PATTERNS`](crate::Mapper::KEY_PATTERNS), so a lookup and a
/// write cannot disagree on a key.
///
/// Bind every placeholder of the partition key pattern; for a key, every
/// placeholder of the sort key pattern too. For a query, bind the leading
/// sort key placeholders you know: the sort key prefix ends right after the
/// last bound value's segment (`ORDER#O1#` never reaches `ORDER#O10`).
///
/// ```
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::MapperExt;
///
/// // InvoiceItemMapper declares `INVOICE#{invoice}` / `ITEM#{line:u3}`.
/// let key = InvoiceItemMapper::lookup().with("invoice", "I1").with("line", 7).key()?;
/// assert_eq!(key["pk"], AttributeValue::S("INVOICE#I1".into()));
/// assert_eq!(key["sk"], AttributeValue::S("ITEM#007".into()));
///
/// let items = InvoiceItemMapper::lookup().with("invoice", "I1").key_condition()?.build()?;
/// assert_eq!(items.expression(), "#k0 = :k0 AND begins_with(#k1, :k1)");
/// assert_eq!(items.values()[":k0"], AttributeValue::S("INVOICE#I1".into()));
/// assert_eq!(items.values()[":k1"], AttributeValue::S("ITEM#".into()));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[must_use]
pub struct Lookup<'a, M> {
    index: Option<&'static str>,
    values: Vec<(&'a str, KeyValue<'a>)>,
    range: Option<SortRange<'a>>,
    mapper: PhantomData<fn() -> M>,
}

/// A range over one sort key placeholder: its name and the values of its
/// bounds (either may be open).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SortRange<'a> {
    pub(crate) name: &'a str,
    pub(crate) low: Option<KeyValue<'a>>,
    pub(crate) high: Option<KeyValue<'a>>,
}

impl<'a> SortRange<'a> {
    /// The range over `name` from `low` through `high`, either open.
    pub(crate) fn new(
        name: &'a str,
        low: Option<KeyValue<'a>>,
        high: Option<KeyValue<'a>>,
    ) -> Self {
        SortRange { name, low, high }
    }
}

impl<M> Clone for Lookup<'_, M> {
    fn clone(&self) -> Self {
        Lookup {
            index: self.index,
            values: self.values.clone(),
            range: self.range.clone(),
            mapper: PhantomData,
        }
    }
}

impl<M: Mapper> fmt::Debug for Lookup<'_, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lookup")
            .field("entity_type", &M::ENTITY_TYPE)
            .field("index", &self.index)
            .field("values", &self.values)
            .field("range", &self.range)
            .finish()
    }
}

impl<'a, M: Mapper> Lookup<'a, M> {
    pub(super) fn new() -> Self {
        Lookup {
            index: None,
            values: Vec::new(),
            range: None,
            mapper: PhantomData,
        }
    }

    /// Binds `value` to the placeholder `name` (of the partition key
    /// pattern, the sort key pattern, or both).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let key = InvoiceMapper::lookup().with("id", "I1").key()?;
    /// assert_eq!(key["pk"], AttributeValue::S("INVOICE#I1".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn with(mut self, name: &'a str, value: impl Into<KeyValue<'a>>) -> Self {
        self.values.push((name, value.into()));
        self
    }

    /// Selects the items whose sort key placeholder `name` lies in `range`,
    /// both ends included: `low..=high`, `low..` (from `low`) or `..=high`
    /// (through `high`), with every item under `high`: on
    /// `DAY#{day}#EVENT#{id}`, `sort_range("day", "2025-01-02"..="2025-01-05")`
    /// reads every event of those four days, not only up to the bare
    /// `DAY#2025-01-05`. Bind the placeholders before `name` with
    /// [`with`](Self::with); `name` must be the first sort key placeholder
    /// without a value.
    ///
    /// The bounds compare keys, as DynamoDB does: byte by byte. For the
    /// order-preserving encodings (`u`, `i`, `ts`) that is value order; for
    /// text it is the order of the escaped text followed by the delimiter.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let lines = InvoiceItemMapper::lookup().with("invoice", "I1");
    /// let e = lines.clone().sort_range("line", 2..=5).key_condition()?.build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 BETWEEN :k1 AND :k2");
    /// assert_eq!(e.values()[":k1"], AttributeValue::S("ITEM#002".into()));
    /// assert_eq!(e.values()[":k2"], AttributeValue::S("ITEM#005".into()));
    /// // Open at one end: from the bound to the last line, or from the first.
    /// let from_2 = lines.clone().sort_range("line", 2..).key_condition()?.build()?;
    /// assert_eq!(from_2.expression(), "#k0 = :k0 AND #k1 BETWEEN :k1 AND :k2");
    /// let through_5 = lines.sort_range("line", ..=5).key_condition()?.build()?;
    /// assert_eq!(through_5.values()[":k1"], AttributeValue::S("ITEM#".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_range(mut self, name: &'a str, range: impl SortBounds<'a>) -> Self {
        let (low, high) = bounds(range);
        self.range = Some(SortRange::new(name, low, high));
        self
    }

    pub(crate) fn range(&self) -> Option<&SortRange<'a>> {
        self.range.as_ref()
    }

    /// Uses the key patterns the mapper declares for the global secondary
    /// index `name` instead of the table's.
    ///
    /// On an index with [multi-attribute keys](crate::GlobalSecondaryIndex::multi_attribute)
    /// the key attributes are the entity's own fields (or string parts
    /// rendered by [`IndexKeys::part`] patterns): bind the fields (by field
    /// name, or by attribute name) and the parts' placeholders, and
    /// [`key_condition`](Lookup::key_condition) compares each attribute
    /// with its value.
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, IndexKeys, KeyPattern, Mapper, MapperExt, TableSchema};
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Ticket { id: String, status: String }
    /// struct TicketMapper;
    /// impl Mapper for TicketMapper {
    ///     type Entity = Ticket;
    ///     const ENTITY_TYPE: &'static str = "Ticket";
    ///     const SCHEMA: TableSchema = TableSchema::new("pk")
    ///         .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);
    ///     const KEY_PATTERNS: &'static [IndexKeys] = &[
    ///         IndexKeys::table(KeyPattern::partition("TICKET#{id}")),
    ///         IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
    ///             .sort(KeyPattern::sort("TICKET#{id}")),
    ///     ];
    /// }
    /// let by_status = TicketMapper::lookup().on_index("GSI1").with("status", "open");
    /// let e = by_status.key_condition()?.build()?;
    /// assert_eq!(e.names()["#k0"], "gsi1pk");
    /// assert_eq!(e.values()[":k0"], AttributeValue::S("STATUS#open".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn on_index(mut self, name: &'static str) -> Self {
        self.index = Some(name);
        self
    }

    /// The index, `None` for the table.
    #[must_use]
    pub(crate) fn index_name(&self) -> Option<&'static str> {
        self.index
    }

    /// The values bound with [`with`](Self::with), in order.
    pub(crate) fn values(&self) -> &[(&'a str, KeyValue<'a>)] {
        &self.values
    }

    /// Whether a value is bound to the placeholder `name`.
    pub(crate) fn binds(&self, name: &str) -> bool {
        self.values.iter().any(|(n, _)| *n == name)
    }

    /// Every placeholder given one value: a second `with` for a name, or a
    /// `with` and a range on one name, would leave one of them unused
    /// without a word.
    pub(crate) fn bound_once(&self) -> Result<()> {
        for (i, (name, _)) in self.values.iter().enumerate() {
            if self.values.iter().take(i).any(|(n, _)| n == name) {
                return Err(self.error(format!(
                    "has two values for `{{{name}}}`; bind each placeholder once"
                )));
            }
            if self.range.as_ref().is_some_and(|r| r.name == *name) {
                return Err(self.error(format!(
                    "has both a value and a range for `{{{name}}}`; give it one or the other"
                )));
            }
        }
        Ok(())
    }

    fn error(&self, reason: impl Into<String>) -> Error {
        Error::invalid_key(self.attribute_label(), reason).with_entity_type(M::ENTITY_TYPE)
    }

    fn attribute_label(&self) -> String {
        match self.index {
            None => "(table key)".to_owned(),
            Some(i) => format!("(key of index {i})"),
        }
    }

    /// The declared keys this lookup uses: of its index, the one whose
    /// patterns have a placeholder for every bound value (a type may
    /// declare several patterns for one index).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) when the
    /// mapper declares no key patterns for the index, when none has every
    /// bound placeholder, when more than one does, or when a placeholder is
    /// given two values (or a value and a range).
    pub(crate) fn index_keys(&self) -> Result<IndexKeys> {
        self.bound_once()?;
        let declared: Vec<&IndexKeys> = M::KEY_PATTERNS
            .iter()
            .filter(|k| k.index_name() == self.index && k.part_attribute().is_none())
            .collect();
        if declared.is_empty() {
            let on = self
                .index
                .map_or_else(|| "the table".to_owned(), |i| format!("index {i}"));
            return Err(self.error(format!(
                "cannot be built: the mapper declares no key patterns for {on}"
            )));
        }
        let has = |keys: &IndexKeys, name: &str| -> bool {
            std::iter::once(keys.partition_key())
                .chain(keys.sort_key())
                .any(|p| has_placeholder(p, name))
        };
        let names = || {
            self.values
                .iter()
                .map(|(name, _)| *name)
                .chain(self.range.as_ref().map(|r| r.name))
        };
        let fitting: Vec<&&IndexKeys> = declared
            .iter()
            .filter(|k| names().all(|name| has(k, name)))
            .collect();
        match fitting.as_slice() {
            [one] => Ok(***one),
            [] => {
                let name = names()
                    .find(|name| !declared.iter().any(|k| has(k, name)))
                    .unwrap_or("");
                let list: Vec<String> = declared.iter().map(|k| describe(k)).collect();
                if name.is_empty() {
                    Err(self.error(format!(
                        "has values that no single key pattern declaration has placeholders \
                         for; declared: {}",
                        list.join(", ")
                    )))
                } else {
                    Err(self.error(format!(
                        "has no key pattern with the placeholder `{{{name}}}`; declared: {}",
                        list.join(", ")
                    )))
                }
            }
            more => {
                let list: Vec<String> = more.iter().map(|k| describe(k)).collect();
                Err(self.error(format!(
                    "is ambiguous: the values fit {} key pattern declarations ({}); bind a \
                     value only one of them has",
                    more.len(),
                    list.join(", ")
                )))
            }
        }
    }

    /// The values bound to placeholders of `pattern`.
    fn values_for(&self, pattern: KeyPattern) -> Vec<(&'a str, KeyValue<'a>)> {
        self.values
            .iter()
            .filter(|(name, _)| has_placeholder(pattern, name))
            .cloned()
            .collect()
    }

    pub(crate) fn bound(&self, pattern: KeyPattern) -> crate::key::BoundPattern<'a> {
        self.values_for(pattern)
            .into_iter()
            .fold(pattern.bind(), |b, (name, value)| b.with(name, value))
    }

    /// The partition key, rendered from the partition key pattern.
    pub(crate) fn partition(&self) -> Result<String> {
        let keys = self.index_keys()?;
        self.bound(keys.partition_key())
            .render()
            .map_err(|e| self.key_error(e, &keys, false))
    }

    /// `e`, raised rendering a key of `keys`, naming the entity type and
    /// the key attribute (`sort` or partition) it is for.
    fn key_error(&self, e: Error, keys: &IndexKeys, sort: bool) -> Error {
        let e = e.with_entity_type(M::ENTITY_TYPE);
        match super::plan::attributes_of(&M::SCHEMA, keys) {
            Ok((pk, _)) if !sort => e.of_key_attribute(pk.name),
            Ok((_, Some(sk))) => e.of_key_attribute(sk.name),
            _ => e,
        }
    }

    /// The whole sort key, every placeholder of the sort key pattern bound;
    /// `None` when the index has no sort key.
    pub(crate) fn sort(&self) -> Result<Option<String>> {
        let keys = self.index_keys()?;
        keys.sort_key()
            .map(|p| self.bound(p).render())
            .transpose()
            .map_err(|e| self.key_error(e, &keys, true))
    }

    /// The `begins_with` prefix of the sort keys this lookup selects: the
    /// sort key pattern rendered up to its first placeholder without a
    /// value (see [`BoundPattern::prefix`](crate::key::BoundPattern::prefix):
    /// it never ends inside a value, and with every placeholder bound it
    /// ends with the delimiter). `None` when the index has no sort key, or
    /// when the prefix would be empty (the pattern starts with a placeholder
    /// that has no value).
    pub(crate) fn sort_prefix(&self) -> Result<Option<String>> {
        let keys = self.index_keys()?;
        let Some(pattern) = keys.sort_key() else {
            return Ok(None);
        };
        let constant = pattern
            .constant_prefix()
            .map_err(|e| self.key_error(e, &keys, true))?;
        if constant.is_empty() && self.values_for(pattern).is_empty() {
            return Ok(None);
        }
        self.bound(pattern)
            .prefix()
            .map(Some)
            .map_err(|e| self.key_error(e, &keys, true))
    }

    /// The primary key item, for `GetItem`, `DeleteItem` or
    /// [`Table::get_record`](crate::ops::Table::get_record): every
    /// placeholder of the table's key patterns bound.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// naming the key attribute when a bound value does not fit its
    /// placeholder or one the pattern needs has no value;
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) on an index
    /// lookup (an index key does not address one item), or when a key is
    /// too long.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let key = InvoiceMapper::lookup().with("id", "I1").key()?;
    /// assert_eq!(key, InvoiceMapper::key(&Invoice { id: "I1".into() })?);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn key(&self) -> Result<Item> {
        if let Some(index) = self.index {
            return Err(self.error(format!(
                "cannot be a primary key: index {index}'s keys do not address one item; query it"
            )));
        }
        if let Some(range) = &self.range {
            return Err(self.error(format!(
                "cannot be a primary key: a range over `{{{}}}` selects many items; query it",
                range.name
            )));
        }
        let partition = self.partition()?;
        let sort = self.sort()?;
        M::SCHEMA
            .key(AttributeValue::S(partition), sort.map(AttributeValue::S))
            .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))
    }

    /// A `GetItem` of this key on the table `table_name`, to send yourself;
    /// decode what comes back with
    /// [`MapperExt::from_item`](crate::MapperExt::from_item).
    ///
    /// # Errors
    /// As [`key`](Self::key).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let get = InvoiceMapper::lookup().with("id", "I1").get_item(&client(), "AppTable")?;
    /// assert_eq!(get.get_table_name().as_deref(), Some("AppTable"));
    /// assert_eq!(get.get_key().as_ref().map(|k| k.len()), Some(2));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn get_item(
        &self,
        client: &Client,
        table_name: impl Into<String>,
    ) -> Result<GetItemFluentBuilder> {
        Ok(client
            .get_item()
            .table_name(table_name)
            .set_key(Some(self.key()?)))
    }
}

fn has_placeholder(pattern: KeyPattern, name: &str) -> bool {
    pattern
        .placeholders()
        .is_ok_and(|p| p.iter().any(|(n, _)| *n == name))
}

fn describe(keys: &IndexKeys) -> String {
    match keys.sort_key() {
        Some(sort) => format!("{} / {}", keys.partition_key(), sort),
        None => keys.partition_key().to_string(),
    }
}
