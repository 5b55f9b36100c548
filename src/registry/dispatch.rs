//! The [`Registry`] and its dispatch: an item's discriminator routes it to
//! its mapper, or to a policy. (`Registry::builder` is in `builder.rs`,
//! `Registry::group` in `group.rs`.)

use std::fmt;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::expr::Expression;
use crate::item::{Item, check_depth, drop_item, type_name};
use crate::mapper::unique::SENTINEL_TYPE;
use crate::schema::TableSchema;

use super::buckets::Buckets;
use super::decoded::{Decoded, DecodedItems, RawItem, Skipped, Unmatched};
use super::entry::{Entry, GroupData};
use super::filter::discriminator_filter;
use super::policy::{Action, MissingPolicy, UnknownPolicy};

pub(super) struct Inner<T> {
    pub(super) attribute: &'static str,
    pub(super) table: TableSchema,
    pub(super) entries: Vec<Entry<T>>,
    pub(super) entity_types: Vec<&'static str>,
    /// Every discriminator value (entity types and aliases) with its entry
    /// index, sorted by value for a binary search.
    pub(super) routes: Vec<(&'static str, usize)>,
    pub(super) groups: Vec<GroupData>,
    /// The access patterns, proven.
    pub(super) patterns: Vec<super::access::Proven>,
    pub(super) on_unknown: UnknownPolicy,
    pub(super) on_missing: MissingPolicy,
}

/// Polymorphic dispatch of mixed items into one user type, usually an enum
/// with a variant per entity type.
///
/// Register a mapper per entity type with the function that wraps its entity;
/// [`decode`](Self::decode) reads an item's discriminator, finds the mapper (by
/// entity type or by one of its [`ALIASES`](crate::Mapper::ALIASES), so items
/// written before a rename are still read) and runs its
/// [`from_item`](crate::MapperExt::from_item). Items of an entity type no mapper
/// reads, or without a discriminator, are handled by policy ([`UnknownPolicy`],
/// [`MissingPolicy`]): an error by default, or skipped, or kept raw, and always
/// reported, never dropped silently.
///
/// [`build`](super::RegistryBuilder::build) checks the table design as a whole
/// and reports every problem at once (see
/// [`RegistryBuilder::build`](super::RegistryBuilder::build)).
///
/// A registry is built once and shared: it is `Send + Sync`, and `Clone` is
/// an `Arc` clone.
///
/// ```
/// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
/// # use serde::{Deserialize, Serialize};
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::{Registry, UnknownPolicy};
///
/// #[derive(Debug, PartialEq)]
/// enum Entity {
///     Customer(Customer),
///     Order(Order),
/// }
///
/// let registry = Registry::builder()
///     .register::<CustomerMapper>(Entity::Customer)
///     .register::<OrderMapper>(Entity::Order)
///     .on_unknown(UnknownPolicy::Skip)
///     .build()?;
///
/// // The items of one partition, as a Query returns them.
/// let c1 = Customer { id: "C1".into() };
/// let o1 = Order { id: "O1".into(), customer: "C1".into() };
/// let items = vec![CustomerMapper::to_item(&c1)?, OrderMapper::to_item(&o1)?];
///
/// let out = registry.decode_all(items)?;
/// assert_eq!(out.entities, vec![Entity::Customer(c1), Entity::Order(o1)]);
/// assert!(out.is_complete());
/// assert_eq!(format!("{registry:?}"), "Registry { attribute: \"entityType\", \
///     entity_types: [\"Customer\", \"Order\"], groups: [], on_unknown: Skip, on_missing: Error }");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub struct Registry<T> {
    pub(super) inner: Arc<Inner<T>>,
}

impl<T> Clone for Registry<T> {
    fn clone(&self) -> Self {
        Registry {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T> fmt::Debug for Registry<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let groups: Vec<&str> = self.inner.groups.iter().map(|g| g.name.as_str()).collect();
        f.debug_struct("Registry")
            .field("attribute", &self.inner.attribute)
            .field("entity_types", &self.inner.entity_types)
            .field("groups", &groups)
            .field("on_unknown", &self.inner.on_unknown)
            .field("on_missing", &self.inner.on_missing)
            .finish()
    }
}

/// Where an item goes.
enum Route {
    Entry(usize),
    Unknown,
    Missing(Option<&'static str>),
    /// The sentinel of a unique value.
    Sentinel,
}

/// Where an item's discriminator leads, for an audit
/// ([`Registry::mapper_of`]).
pub(crate) enum Routed<'a> {
    /// A registered mapper.
    Mapper(MapperOf),
    /// A discriminator value no mapper reads.
    Unknown(&'a str),
    /// No discriminator (or, named, what type the attribute had instead).
    Missing(Option<&'static str>),
    /// The sentinel of a unique value.
    Sentinel,
}

/// What the registry knows of one mapper, without its decoder.
#[derive(Clone, Copy)]
pub(crate) struct MapperOf {
    pub(crate) entity_type: &'static str,
    pub(crate) table: TableSchema,
    pub(crate) key_patterns: &'static [crate::key::IndexKeys],
    /// The item as the mapper writes the entity it reads from an item.
    pub(crate) rewrite: super::entry::Rewrite,
    /// The mapper's write gate.
    pub(crate) gate: super::entry::Gate,
    /// The sentinels of the unique values its items hold.
    pub(crate) sentinels: super::entry::Sentinels,
    /// The attributes its unique constraints read.
    pub(crate) unique_attributes: fn() -> Vec<String>,
}

impl<T> Registry<T> {
    /// The access pattern declared as `name`, proven.
    pub(crate) fn access_pattern(&self, name: &str) -> Option<&super::access::Proven> {
        self.inner
            .patterns
            .iter()
            .find(|p| p.pattern.name() == name)
    }

    /// The access patterns, proven, in declaration order.
    pub(crate) fn access_patterns(&self) -> &[super::access::Proven] {
        &self.inner.patterns
    }

    /// `item` decoded by its mapper, which must be one of the entity types
    /// of the access pattern `proven`: any other item (another type, a
    /// sentinel, no discriminator) is an error naming the pattern, whatever
    /// the registry's policies.
    pub(crate) fn decode_for(&self, item: Item, proven: &super::access::Proven) -> Result<T> {
        let inner = &*self.inner;
        let member = match item.get(inner.attribute) {
            Some(AttributeValue::S(value)) if value != SENTINEL_TYPE => inner
                .lookup(value)
                .filter(|i| proven.members.contains(i))
                .and_then(|i| inner.entries.get(i)),
            _ => None,
        };
        let Some(entry) = member else {
            let found = match item.get(inner.attribute) {
                Some(AttributeValue::S(v)) => v.clone(),
                Some(other) => format!("(a {})", type_name(other)),
                None => "(missing)".to_owned(),
            };
            let e = Error::unknown_entity_type(
                inner.attribute,
                found,
                None,
                proven
                    .pattern
                    .entity_types()
                    .iter()
                    .map(|s| (*s).to_owned())
                    .collect(),
            )
            .in_access_pattern(proven.pattern.name())
            .with_key(|| inner.table.render_key(&item));
            drop_item(item);
            return Err(e);
        };
        (entry.decode)(item, None)
    }

    /// The mapper `item`'s discriminator names, whatever the policies.
    pub(crate) fn mapper_of<'i>(&self, item: &'i Item) -> Routed<'i> {
        self.inner.mapper_of(item)
    }

    /// The table layout every registered mapper writes into.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// assert_eq!(registry.table(), NoteMapper::SCHEMA);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn table(&self) -> TableSchema {
        self.inner.table
    }

    /// The registered entity types, in registration order.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// assert_eq!(registry.entity_types(), ["Note"]);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn entity_types(&self) -> &[&'static str] {
        &self.inner.entity_types
    }

    /// The entity type a discriminator value is read as: the value itself
    /// for a registered entity type, the mapper's entity type for an alias,
    /// `None` for a value no mapper reads.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// let registry = Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// assert_eq!(registry.entity_type_of("Purchase"), Some("Order"));
    /// assert_eq!(registry.entity_type_of("Order"), Some("Order"));
    /// assert_eq!(registry.entity_type_of("Refund"), None);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn entity_type_of(&self, value: &str) -> Option<&'static str> {
        self.inner
            .lookup(value)
            .and_then(|i| self.inner.entries.get(i))
            .map(|e| e.entity_type)
    }

    /// Decodes one item with the mapper its discriminator names.
    ///
    /// # Errors
    /// The mapper's own errors (they name its entity type);
    /// [`ErrorKind::UnknownEntityType`](crate::ErrorKind::UnknownEntityType) or
    /// [`ErrorKind::MissingDiscriminator`](crate::ErrorKind::MissingDiscriminator)
    /// when the policy is [`UnknownPolicy::Error`] or [`MissingPolicy::Error`].
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # use dynamodb_mapper_support::doc::*;
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Decoded, Registry};
    ///
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .build()?;
    ///
    /// // An item written before `Order` was renamed from `Purchase`.
    /// let mut old = OrderMapper::to_item(&Order { id: "O1".into(), customer: "C1".into() })?;
    /// old.insert("entityType".into(), AttributeValue::S("Purchase".into()));
    /// assert_eq!(
    ///     registry.decode(old)?,
    ///     Decoded::Entity(Entity::Order(Order { id: "O1".into(), customer: "C1".into() }))
    /// );
    ///
    /// let mut refund = Item::new();
    /// refund.insert("entityType".into(), AttributeValue::S("Refund".into()));
    /// assert_eq!(
    ///     registry.decode(refund).unwrap_err().to_string(),
    ///     "discriminator `entityType` is \"Refund\", which no registered mapper reads \
    ///      (registered: \"Customer\", \"Order\")"
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn decode(&self, item: Item) -> Result<Decoded<T>> {
        self.inner.decode(item, None, None)
    }

    /// Decodes many items (a page of a `Query` or `Scan`), in order. What the
    /// policies skipped or kept raw is returned beside the decoded values.
    ///
    /// # Errors
    /// The first error [`decode`](Self::decode) returns.
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # use dynamodb_mapper_support::doc::*;
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Registry, Unmatched, UnknownPolicy};
    ///
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .on_unknown(UnknownPolicy::Skip)
    ///     .build()?;
    /// let mut refund = Item::new();
    /// refund.insert("pk".into(), AttributeValue::S("CUSTOMER#C1".into()));
    /// refund.insert("sk".into(), AttributeValue::S("REFUND#R1".into()));
    /// refund.insert("entityType".into(), AttributeValue::S("Refund".into()));
    /// let items = vec![CustomerMapper::to_item(&Customer { id: "C1".into() })?, refund];
    ///
    /// let out = registry.decode_all(items)?;
    /// assert_eq!(out.entities, vec![Entity::Customer(Customer { id: "C1".into() })]);
    /// assert_eq!(out.skipped.len(), 1);
    /// assert_eq!(out.skipped[0].reason, Unmatched::Unknown { value: "Refund".into() });
    /// assert_eq!(out.skipped[0].key["sk"], AttributeValue::S("REFUND#R1".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn decode_all(&self, items: impl IntoIterator<Item = Item>) -> Result<DecodedItems<T>> {
        self.inner.decode_all(items, None, None)
    }

    /// [`decode`](Self::decode) of an item read through `projection` (its
    /// attribute names), when there was one: records are marked with it.
    pub(crate) fn decode_read(&self, item: Item, projection: Option<&str>) -> Result<Decoded<T>> {
        self.inner.decode(item, None, projection)
    }

    /// [`decode_all`](Self::decode_all) of items read through `projection`.
    pub(crate) fn decode_all_read(
        &self,
        items: impl IntoIterator<Item = Item>,
        projection: Option<&str>,
    ) -> Result<DecodedItems<T>> {
        self.inner.decode_all(items, None, projection)
    }

    /// A filter expression that keeps only items of the given entity types
    /// (and of their aliases), for a `Query` or `Scan` of a base set.
    ///
    /// # Errors
    /// [`ErrorKind::NotRegistered`](crate::ErrorKind::NotRegistered) for a name
    /// that is not a registered entity type;
    /// [`ErrorKind::InvalidFilter`](crate::ErrorKind::InvalidFilter) when no
    /// type is given or the types and their aliases are more than 100
    /// (DynamoDB's limit on the operands of `IN`).
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::Registry;
    ///
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .build()?;
    /// let filter = registry.filter(&["Customer", "Order"])?;
    /// assert_eq!(filter.expression(), "#dmType0 IN (:dmType0, :dmType1, :dmType2)");
    /// assert_eq!(
    ///     registry.filter(&["Refund"]).unwrap_err().to_string(),
    ///     "entity type \"Refund\" is not registered"
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn filter(&self, entity_types: &[&str]) -> Result<Expression> {
        let mut chosen: Vec<&Entry<T>> = Vec::with_capacity(entity_types.len());
        for name in entity_types {
            let Some(entry) = self.inner.entries.iter().find(|e| e.entity_type == *name) else {
                return Err(Error::not_registered("entity type", name));
            };
            if !chosen.iter().any(|c| c.entity_type == entry.entity_type) {
                chosen.push(entry);
            }
        }
        let values: Vec<&'static str> = chosen.iter().flat_map(|e| e.values()).collect();
        discriminator_filter(self.inner.attribute, values.into_iter())
    }

    /// Sorts items into [`Buckets`] by this registry's discriminator
    /// attribute, for a compound read.
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, Registry, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// let note = Note { id: 1, text: "hi".into() };
    /// let mut parts = registry.buckets(vec![NoteMapper::to_item(&note)?]);
    /// assert_eq!(parts.one::<NoteMapper>()?, note);
    /// parts.finish()?;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn buckets(&self, items: impl IntoIterator<Item = Item>) -> Buckets {
        Buckets::by_discriminator(items, self.inner.attribute)
    }
}

impl<T> Inner<T> {
    /// What an audit needs of the mapper `item`'s discriminator names.
    pub(super) fn mapper_of<'i>(&self, item: &'i Item) -> Routed<'i> {
        match self.route(item, None) {
            Route::Entry(i) => match self.entries.get(i) {
                Some(e) => Routed::Mapper(MapperOf {
                    entity_type: e.entity_type,
                    table: e.table,
                    key_patterns: e.key_patterns,
                    rewrite: e.rewrite,
                    gate: e.gate,
                    sentinels: e.sentinels,
                    unique_attributes: e.unique_attributes,
                }),
                None => Routed::Missing(None),
            },
            Route::Unknown => match item.get(self.attribute) {
                Some(AttributeValue::S(value)) => Routed::Unknown(value),
                _ => Routed::Missing(None),
            },
            Route::Missing(found) => Routed::Missing(found),
            Route::Sentinel => Routed::Sentinel,
        }
    }

    pub(super) fn lookup(&self, value: &str) -> Option<usize> {
        self.routes
            .binary_search_by(|(v, _)| (*v).cmp(value))
            .ok()
            .and_then(|i| self.routes.get(i))
            .map(|(_, entry)| *entry)
    }

    fn route(&self, item: &Item, scope: Option<&GroupData>) -> Route {
        match item.get(self.attribute) {
            Some(AttributeValue::S(value)) if value == SENTINEL_TYPE => Route::Sentinel,
            Some(AttributeValue::S(value)) => match self.lookup(value) {
                Some(i) if scope.is_none_or(|g| g.members.get(i).copied().unwrap_or(false)) => {
                    Route::Entry(i)
                }
                _ => Route::Unknown,
            },
            None => Route::Missing(None),
            Some(other) => Route::Missing(Some(type_name(other))),
        }
    }

    pub(super) fn decode(
        &self,
        item: Item,
        scope: Option<&GroupData>,
        projection: Option<&str>,
    ) -> Result<Decoded<T>> {
        let route = self.route(&item, scope);
        // A mapper's read checks the item first; an item no mapper reads is
        // checked here, before it is dropped, trimmed or handed back: an
        // item nested deeper than DynamoDB allows cannot be stored, and
        // dropping one can overflow the stack (it is taken apart without
        // recursion instead).
        let entry = match route {
            Route::Entry(i) => self.entries.get(i),
            Route::Unknown | Route::Missing(_) | Route::Sentinel => None,
        };
        if entry.is_none()
            && let Err(e) = check_depth(&item)
        {
            let e = e.with_key(|| self.table.render_key(&item));
            drop_item(item);
            return Err(e);
        }
        match route {
            Route::Entry(_) => match entry {
                Some(entry) => (entry.decode)(item, projection).map(Decoded::Entity),
                None => self.unknown(item, scope),
            },
            Route::Unknown => self.unknown(item, scope),
            Route::Sentinel => {
                let of = match item.get(crate::mapper::unique::OF) {
                    Some(AttributeValue::S(of)) => of.clone(),
                    _ => String::new(),
                };
                self.unmatched(item, Unmatched::Sentinel { of }, Action::Skip, || {
                    Error::invalid_value("(sentinel)", "is skipped")
                })
            }
            Route::Missing(found) => self.unmatched(
                item,
                Unmatched::Missing { found },
                self.on_missing.into(),
                || Error::missing_discriminator(self.attribute, found.map(str::to_owned)),
            ),
        }
    }

    fn unknown(&self, item: Item, scope: Option<&GroupData>) -> Result<Decoded<T>> {
        let value = match item.get(self.attribute) {
            Some(AttributeValue::S(v)) => v.clone(),
            _ => String::new(),
        };
        let error = || {
            Error::unknown_entity_type(
                self.attribute,
                value.clone(),
                scope.map(|g| g.name.clone()),
                scope
                    .map_or(&self.entity_types, |g| &g.entity_types)
                    .iter()
                    .map(|s| (*s).to_owned())
                    .collect(),
            )
        };
        let reason = Unmatched::Unknown {
            value: value.clone(),
        };
        self.unmatched(item, reason, self.on_unknown.into(), error)
    }

    fn unmatched(
        &self,
        mut item: Item,
        reason: Unmatched,
        action: Action,
        error: impl FnOnce() -> Error,
    ) -> Result<Decoded<T>> {
        match action {
            Action::Error => Err(error().with_key(|| self.table.render_key(&item))),
            Action::Keep => Ok(Decoded::Raw(RawItem { item, reason })),
            Action::Skip => {
                let pk = self.table.partition_key.name;
                let sk = self.table.sort_key.map(|k| k.name);
                item.retain(|name, _| name == pk || Some(name.as_str()) == sk);
                Ok(Decoded::Skipped(Skipped { key: item, reason }))
            }
        }
    }

    pub(super) fn decode_all(
        &self,
        items: impl IntoIterator<Item = Item>,
        scope: Option<&GroupData>,
        projection: Option<&str>,
    ) -> Result<DecodedItems<T>> {
        let mut items = items.into_iter();
        let mut out = DecodedItems {
            entities: Vec::with_capacity(items.size_hint().0),
            skipped: Vec::new(),
            raw: Vec::new(),
        };
        while let Some(item) = items.next() {
            match self.decode(item, scope, projection) {
                Ok(decoded) => out.push(decoded),
                Err(e) => {
                    // The items not decoded are dropped without recursion
                    // (any of them may be nested too deep).
                    items.for_each(drop_item);
                    return Err(e);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<X: Send + Sync>() {}

    #[test]
    fn registry_is_send_and_sync_for_any_t() {
        assert_send_sync::<Registry<std::rc::Rc<u8>>>();
        assert_send_sync::<Buckets>();
        assert_send_sync::<Expression>();
    }
}
