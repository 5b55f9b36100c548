//! [`RegistryBuilder`] (from [`Registry::builder`]): mappers, policies,
//! groups and allowed overlaps, and [`build`](RegistryBuilder::build), which
//! runs the design checks and builds the registry.

use std::fmt;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::key::AllowedOverlap;
use crate::mapper::{Mapper, MapperExt};
use crate::record::Record;

use super::access::AccessPattern;
use super::checks::{duplicates, key_collisions, key_overlaps, layout_differences, resolve_groups};
use super::dispatch::{Inner, Registry};
use super::entry::{DecodeFn, Entry, GroupData};
use super::filter::discriminator_filter;
use super::policy::{MissingPolicy, UnknownPolicy};
use super::proof::prove;

/// Builds a [`Registry`]; [`build`](Self::build) checks the design.
///
/// ```
/// # use dynamodb_mapper::{Item, Mapper, TableSchema};
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::{MissingPolicy, Registry, UnknownPolicy};
///
/// let builder = Registry::builder()
///     .register::<NoteMapper>(|n| n)
///     .on_unknown(UnknownPolicy::Skip)
///     .on_missing(MissingPolicy::Keep);
/// assert_eq!(format!("{builder:?}"), "RegistryBuilder { entity_types: [\"Note\"], groups: [], \
///     on_unknown: Skip, on_missing: Keep }");
/// let registry = builder.build()?;
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[must_use]
pub struct RegistryBuilder<T> {
    entries: Vec<Entry<T>>,
    groups: Vec<(String, Vec<String>)>,
    on_unknown: UnknownPolicy,
    on_missing: MissingPolicy,
    allowed_overlaps: Vec<AllowedOverlap<'static>>,
    patterns: Vec<AccessPattern>,
}

impl<T> fmt::Debug for RegistryBuilder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let types: Vec<&str> = self.entries.iter().map(|e| e.entity_type).collect();
        let groups: Vec<&str> = self.groups.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("RegistryBuilder")
            .field("entity_types", &types)
            .field("groups", &groups)
            .field("on_unknown", &self.on_unknown)
            .field("on_missing", &self.on_missing)
            .finish()
    }
}

impl<T> Registry<T> {
    /// A builder for a registry.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::Registry;
    ///
    /// let registry = Registry::<Note>::builder().register::<NoteMapper>(|n| n).build()?;
    /// assert_eq!(registry.entity_types(), ["Note"]);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn builder() -> RegistryBuilder<T> {
        RegistryBuilder {
            entries: Vec::new(),
            groups: Vec::new(),
            on_unknown: UnknownPolicy::default(),
            on_missing: MissingPolicy::default(),
            allowed_overlaps: Vec::new(),
            patterns: Vec::new(),
        }
    }
}

impl<T: 'static> RegistryBuilder<T> {
    /// Registers a mapper: items of its entity type (or one of its aliases)
    /// are read with [`M::from_item`](crate::MapperExt::from_item) and wrapped by
    /// `into`, typically an enum variant such as `Entity::Customer`.
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::{Decoded, Registry};
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum Entity {
    ///     Note(Note),
    /// }
    /// let registry = Registry::builder().register::<NoteMapper>(Entity::Note).build()?;
    /// let item = NoteMapper::to_item(&Note { id: 1, text: "hi".into() })?;
    /// assert_eq!(registry.decode(item)?, Decoded::Entity(Entity::Note(Note { id: 1, text: "hi".into() })));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn register<M: Mapper>(
        self,
        into: impl Fn(M::Entity) -> T + Send + Sync + 'static,
    ) -> Self {
        self.push::<M>(Box::new(move |item, _| M::from_item(item).map(&into)))
    }

    /// Registers a mapper for lossless reads: items are read with
    /// [`M::record_from_item`](crate::MapperExt::record_from_item), so the attributes
    /// the mapper does not own and the version come along in the
    /// [`Record`]. A record of a projected query or scan (through
    /// [`Table::query_page`](crate::ops::Table::query_page) or the streams)
    /// is marked with its projection ([`Record::projection`]).
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Record, Registry};
    ///
    /// enum Entity {
    ///     Note(Record<Note>),
    /// }
    /// let registry = Registry::builder().register_record::<NoteMapper>(Entity::Note).build()?;
    /// let mut item = NoteMapper::to_item(&Note { id: 1, text: "hi".into() })?;
    /// item.insert("color".into(), AttributeValue::S("red".into()));
    /// let Some(Entity::Note(record)) = registry.decode(item)?.into_entity() else { panic!() };
    /// assert_eq!(record.bag.get("color"), Some(&AttributeValue::S("red".into())));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn register_record<M: Mapper>(
        self,
        into: impl Fn(Record<M::Entity>) -> T + Send + Sync + 'static,
    ) -> Self {
        self.push::<M>(Box::new(move |item, projection| {
            M::record_from_item(item)
                .map(|record| record.read_through(projection))
                .map(&into)
        }))
    }

    fn push<M: Mapper>(mut self, decode: DecodeFn<T>) -> Self {
        self.entries.push(Entry {
            entity_type: M::ENTITY_TYPE,
            aliases: M::ALIASES,
            table: M::SCHEMA,
            problems: crate::mapper::problems::<M>()
                .into_iter()
                .map(|p| format!("{}: {p}", M::ENTITY_TYPE))
                .collect(),
            key_patterns: M::KEY_PATTERNS,
            decode,
            rewrite: super::entry::rewrite::<M>,
            gate: super::entry::gate::<M>,
            sentinels: crate::mapper::unique::sentinels::<M>,
            unique_attributes: crate::mapper::unique::attributes::<M>,
            sentinel_patterns: crate::mapper::unique::patterns::<M>,
            fields: super::entry::fields::<M>,
        });
        self
    }
}

impl<T> RegistryBuilder<T> {
    /// Acknowledges an intended key overlap, so [`build`](Self::build) does
    /// not report it (see [`AllowedOverlap`]; table key collisions are always
    /// reported). The discriminator keeps reads of an overlapping query
    /// type-safe.
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, IndexKeys, Item, KeyPattern, Mapper, Registry, TableSchema};
    /// use dynamodb_mapper::key::AllowedOverlap;
    /// # const T: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// # const PK: KeyPattern = KeyPattern::partition("ORDER#{order_id}");
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Order { order_id: String }
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Line { order_id: String, line: u32 }
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const SCHEMA: TableSchema = T;
    /// #     const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(PK).sort(KeyPattern::sort("ORDER"))];
    /// #     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         item.put_str("pk", PK.with("order_id", &o.order_id).render()?);
    /// #         item.put_str("sk", "ORDER");
    /// #         Ok(())
    /// #     }
    /// # }
    /// # struct LineMapper;
    /// # impl Mapper for LineMapper {
    /// #     type Entity = Line;
    /// #     const ENTITY_TYPE: &'static str = "OrderLine";
    /// #     const SCHEMA: TableSchema = T;
    /// #     const KEY_PATTERNS: &'static [IndexKeys] =
    /// #         &[IndexKeys::table(PK).sort(KeyPattern::sort("ORDERLINE#{line:u3}"))];
    /// #     fn after_to_item(l: &Line, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         item.put_str("pk", PK.with("order_id", &l.order_id).render()?);
    /// #         item.put_str("sk", format!("ORDERLINE#{:03}", l.line));
    /// #         Ok(())
    /// #     }
    /// # }
    /// // `begins_with(sk, "ORDER")` on an order's partition also returns its lines.
    /// let err = Registry::<()>::builder()
    ///     .register::<OrderMapper>(|_| ())
    ///     .register::<LineMapper>(|_| ())
    ///     .build()
    ///     .unwrap_err();
    /// assert!(err.to_string().contains("OrderLine"), "{err}");
    ///
    /// let registry = Registry::<()>::builder()
    ///     .register::<OrderMapper>(|_| ())
    ///     .register::<LineMapper>(|_| ())
    ///     .allow_overlap(AllowedOverlap::new("Order", "OrderLine"))
    ///     .build()?;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn allow_overlap(mut self, allowed: AllowedOverlap<'static>) -> Self {
        self.allowed_overlaps.push(allowed);
        self
    }

    /// Declares an access pattern of the design, which
    /// [`build`](Self::build) proves (see [`AccessPattern`]) and
    /// [`Registry::access`] calls.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::AccessPattern;
    ///
    /// const LINES: AccessPattern = AccessPattern::new("items of an invoice", &["InvoiceItem"]).by(&["invoice"]);
    /// let registry = Registry::<()>::builder()
    ///     .register::<InvoiceMapper>(|_| ())
    ///     .register::<InvoiceItemMapper>(|_| ())
    ///     .access_pattern(LINES)
    ///     .build()?;
    /// # let _ = registry;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn access_pattern(mut self, pattern: AccessPattern) -> Self {
        self.patterns.push(pattern);
        self
    }

    /// Sets the policy for discriminator values no registered mapper reads
    /// (default [`UnknownPolicy::Error`]).
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::UnknownPolicy;
    ///
    /// let registry = Registry::builder()
    ///     .register::<NoteMapper>(|n| n)
    ///     .on_unknown(UnknownPolicy::Keep)
    ///     .build()?;
    /// # let _ = registry;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn on_unknown(mut self, policy: UnknownPolicy) -> Self {
        self.on_unknown = policy;
        self
    }

    /// Sets the policy for items without a (string) discriminator (default
    /// [`MissingPolicy::Error`]).
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::{Decoded, MissingPolicy};
    ///
    /// let registry = Registry::builder()
    ///     .register::<NoteMapper>(|n| n)
    ///     .on_missing(MissingPolicy::Skip)
    ///     .build()?;
    /// assert!(matches!(registry.decode(Item::new())?, Decoded::Skipped(_)));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn on_missing(mut self, policy: MissingPolicy) -> Self {
        self.on_missing = policy;
        self
    }

    /// Names a set of registered entity types, for base/derived queries
    /// (a `Person` group of `Person`, `Employee` and `Manager`): see
    /// [`Registry::group`]. Checked by [`build`](Self::build).
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// let registry = Registry::builder()
    ///     .register::<NoteMapper>(|n| n)
    ///     .group("Documents", &["Note"])
    ///     .build()?;
    /// assert_eq!(registry.group("Documents")?.entity_types(), ["Note"]);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn group(mut self, name: impl Into<String>, entity_types: &[&str]) -> Self {
        self.groups.push((
            name.into(),
            entity_types.iter().map(|s| (*s).to_owned()).collect(),
        ));
        self
    }

    /// Checks the design and builds the registry.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidRegistry`](crate::ErrorKind::InvalidRegistry)
    /// listing every problem found, not just the first:
    /// - no mapper registered; a table layout without a discriminator
    ///   attribute (the registry cannot dispatch);
    /// - an entity type registered more than once; an alias that is also an
    ///   entity type, the mapper's own entity type, listed twice, or claimed
    ///   by two mappers;
    /// - mappers whose table layouts disagree, one problem per part that
    ///   differs (partition key, sort key, each index, discriminator, TTL and
    ///   version attributes), each compared with the first mapper's;
    /// - a discriminator attribute that is also a key, index key, TTL or
    ///   version attribute;
    /// - every problem of each mapper's own declarations, as
    ///   [`MapperExt::check`](crate::MapperExt::check) reports them (a
    ///   field stored under an attribute the mapper writes itself, such as
    ///   the discriminator; key pattern placeholders that name no field);
    /// - a group defined twice, without members, naming an entity type
    ///   twice or one that is not registered, or whose filter would need
    ///   more than 100 values (DynamoDB's limit on the operands of `IN`);
    /// - an [access pattern](AccessPattern) declared twice, or that its
    ///   proof refutes: no index of that name, one that is multi-attribute
    ///   or does not project whole items; an entity type not registered, or
    ///   without key patterns for the index that fit its placeholders (or
    ///   with several); a query that does not return one of its types, or
    ///   also returns another registered type's items (or a unique
    ///   sentinel), with the keys and an example key.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Order { entity_type: String }
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// #     const NAMING: dynamodb_mapper::NamingConvention = dynamodb_mapper::NamingConvention::CamelCase;
    /// #     fn after_to_item(_: &Order, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Invoice {}
    /// # struct InvoiceMapper;
    /// # impl Mapper for InvoiceMapper {
    /// #     type Entity = Invoice;
    /// #     const ENTITY_TYPE: &'static str = "Invoice";
    /// #     const SCHEMA: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Invoice, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// // `Order` has a field `entity_type`, stored as `entityType` (camelCase);
    /// // `Invoice` writes a table without a sort key.
    /// let err = Registry::<()>::builder()
    ///     .register::<OrderMapper>(|_| ())
    ///     .register::<InvoiceMapper>(|_| ())
    ///     .build()
    ///     .unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid registry (2 problems): Invoice: table layout differs from Order's in the \
    ///      sort key: none vs `sk` (a string (S)); Order: field `entity_type` is stored as \
    ///      `entityType`, the discriminator attribute"
    /// );
    /// ```
    pub fn build(self) -> Result<Registry<T>> {
        let mut problems = Vec::new();
        let Some(first) = self.entries.first() else {
            return Err(Error::invalid_registry(vec![
                "no mapper is registered".to_owned(),
            ]));
        };
        let table = first.table;
        let attribute = table.discriminator;
        match attribute {
            None => problems.push(format!(
                "{}: table layout has no discriminator attribute, so the registry cannot dispatch",
                first.entity_type
            )),
            Some(attr) => key_collisions(&table, attr, &mut problems),
        }
        for entry in self.entries.iter().skip(1) {
            layout_differences(entry, first, &mut problems);
        }
        for entry in &self.entries {
            problems.extend(entry.problems.iter().cloned());
        }
        duplicates(&self.entries, &mut problems);
        key_overlaps(&self.entries, &table, &self.allowed_overlaps, &mut problems);
        let resolved = resolve_groups(&self.entries, &self.groups, &mut problems);
        let mut patterns = Vec::with_capacity(self.patterns.len());
        for (i, pattern) in self.patterns.iter().enumerate() {
            if self.patterns[..i]
                .iter()
                .any(|p| p.name() == pattern.name())
            {
                problems.push(format!(
                    "access pattern {:?} is declared twice",
                    pattern.name()
                ));
                continue;
            }
            match prove(*pattern, &self.entries, &table) {
                Ok(proven) => patterns.push(proven),
                Err(found) => problems.extend(found),
            }
        }
        // A mapper's own check and the design checks can find one problem
        // (an index the table lacks, an invalid pattern): report it once,
        // where the design checks put it.
        let mut i = 0;
        while i < problems.len() {
            if problems[i + 1..].contains(&problems[i]) {
                problems.remove(i);
            } else {
                i += 1;
            }
        }

        let Some(attribute) = attribute.filter(|_| problems.is_empty()) else {
            return Err(Error::invalid_registry(problems));
        };
        let mut routes: Vec<(&'static str, usize)> = self
            .entries
            .iter()
            .enumerate()
            .flat_map(|(i, e)| e.values().map(move |v| (v, i)))
            .collect();
        routes.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut groups = Vec::with_capacity(resolved.len());
        for (name, members) in resolved {
            let mut mask = vec![false; self.entries.len()];
            let mut entity_types = Vec::with_capacity(members.len());
            let mut values = Vec::new();
            for i in members {
                if let (Some(slot), Some(entry)) = (mask.get_mut(i), self.entries.get(i)) {
                    *slot = true;
                    entity_types.push(entry.entity_type);
                    values.extend(entry.values());
                }
            }
            groups.push(GroupData {
                name,
                entity_types,
                members: mask,
                filter: discriminator_filter(attribute, values.into_iter())?,
            });
        }
        let entity_types = self.entries.iter().map(|e| e.entity_type).collect();
        Ok(Registry {
            inner: Arc::new(Inner {
                attribute,
                table,
                entries: self.entries,
                entity_types,
                routes,
                groups,
                patterns,
                on_unknown: self.on_unknown,
                on_missing: self.on_missing,
            }),
        })
    }
}
