//! The registry: polymorphic dispatch of mixed query results by
//! discriminator, discriminator filter expressions for chosen sets of entity
//! types, compound reads into typed buckets, and the checks of the table
//! design as a whole that run when a registry is built.

mod buckets;
mod checks;
mod decoded;
mod entry;
mod filter;
mod policy;

pub use buckets::Buckets;
pub use decoded::{Decoded, DecodedItems, RawItem, Skipped, Unmatched};
pub use filter::{DISCRIMINATOR_PLACEHOLDER, DiscriminatorFilter, MAX_FILTER_VALUES};
pub use policy::{MissingPolicy, UnknownPolicy};

use std::fmt;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::item::{self, Item, check_depth, drop_item, type_name};
use crate::key::AllowedOverlap;
use crate::mapper::Mapper;
use crate::record::Record;
use crate::schema::TableSchema;

use checks::{
    duplicates, field_problem, key_collisions, key_overlaps, layout_differences, resolve_groups,
};
use entry::{DecodeFn, Entry, GroupData};
use policy::Action;

struct Inner<T> {
    attribute: &'static str,
    table: TableSchema,
    entries: Vec<Entry<T>>,
    entity_types: Vec<&'static str>,
    /// Every discriminator value (entity types and aliases) with its entry
    /// index, sorted by value for a binary search.
    routes: Vec<(&'static str, usize)>,
    groups: Vec<GroupData>,
    on_unknown: UnknownPolicy,
    on_missing: MissingPolicy,
}

/// Polymorphic dispatch of mixed items into one user type, usually an enum
/// with a variant per entity type.
///
/// Register a mapper per entity type with the function that wraps its
/// entity; [`decode`](Self::decode) reads an item's discriminator, finds the
/// mapper (by entity type or by one of its [`ALIASES`](Mapper::ALIASES), so
/// items written before a rename are still read) and runs its
/// [`from_item`](Mapper::from_item). Items of an entity type no mapper reads,
/// or without a discriminator, are handled by policy ([`UnknownPolicy`],
/// [`MissingPolicy`]): an error by default, or skipped, or kept raw, and
/// always reported, never dropped silently.
///
/// [`build`](RegistryBuilder::build) checks the table design as a whole and
/// reports every problem at once (see [`RegistryBuilder::build`]).
///
/// A registry is built once and shared: it is `Send + Sync`, and `Clone` is
/// an `Arc` clone.
///
/// ```
/// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, TableSchema};
/// # use serde::{Deserialize, Serialize};
/// # const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
/// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Customer { id: String }
/// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Order { id: String, customer: String }
/// # struct CustomerMapper;
/// # impl Mapper for CustomerMapper {
/// #     type Entity = Customer;
/// #     const ENTITY_TYPE: &'static str = "Customer";
/// #     const TABLE: TableSchema = TABLE;
/// #     fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
/// #         put_str(item, "pk", format!("CUSTOMER#{}", c.id));
/// #         put_str(item, "sk", "METADATA");
/// #         Ok(())
/// #     }
/// # }
/// # struct OrderMapper;
/// # impl Mapper for OrderMapper {
/// #     type Entity = Order;
/// #     const ENTITY_TYPE: &'static str = "Order";
/// #     const ALIASES: &'static [&'static str] = &["Purchase"];
/// #     const TABLE: TableSchema = TABLE;
/// #     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
/// #         put_str(item, "pk", format!("CUSTOMER#{}", o.customer));
/// #         put_str(item, "sk", format!("ORDER#{}", o.id));
/// #         Ok(())
/// #     }
/// # }
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
    inner: Arc<Inner<T>>,
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
}

impl<T> Registry<T> {
    /// A builder for a registry.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
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
        }
    }

    /// The discriminator attribute the registry dispatches on.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk").discriminator("$type");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// assert_eq!(registry.attribute(), "$type");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn attribute(&self) -> &'static str {
        self.inner.attribute
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
    /// #     const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// assert_eq!(registry.table(), NoteMapper::TABLE);
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
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
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
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Order {}
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const ALIASES: &'static [&'static str] = &["Purchase"];
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Order, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
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

    /// The policy for unknown discriminator values.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema, UnknownPolicy};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// assert_eq!(registry.unknown_policy(), UnknownPolicy::Error);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn unknown_policy(&self) -> UnknownPolicy {
        self.inner.on_unknown
    }

    /// The policy for items without a (string) discriminator.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, MissingPolicy, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder()
    ///     .register::<NoteMapper>(|n| n)
    ///     .on_missing(MissingPolicy::Keep)
    ///     .build()?;
    /// assert_eq!(registry.missing_policy(), MissingPolicy::Keep);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn missing_policy(&self) -> MissingPolicy {
        self.inner.on_missing
    }

    /// Decodes one item with the mapper its discriminator names.
    ///
    /// # Errors
    /// The mapper's own errors (they name its entity type);
    /// [`Error::UnknownEntityType`] or [`Error::MissingDiscriminator`] when
    /// the policy is [`UnknownPolicy::Error`] or [`MissingPolicy::Error`].
    ///
    /// ```
    /// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Customer { id: String }
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Order { id: String, customer: String }
    /// # struct CustomerMapper;
    /// # impl Mapper for CustomerMapper {
    /// #     type Entity = Customer;
    /// #     const ENTITY_TYPE: &'static str = "Customer";
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", c.id));
    /// #         put_str(item, "sk", "METADATA");
    /// #         Ok(())
    /// #     }
    /// # }
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const ALIASES: &'static [&'static str] = &["Purchase"];
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", o.customer));
    /// #         put_str(item, "sk", format!("ORDER#{}", o.id));
    /// #         Ok(())
    /// #     }
    /// # }
    /// # #[derive(Debug, PartialEq)] enum Entity { Customer(Customer), Order(Order) }
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
        self.inner.decode(item, None)
    }

    /// Decodes many items (a page of a `Query` or `Scan`), in order. What the
    /// policies skipped or kept raw is returned beside the decoded values.
    ///
    /// # Errors
    /// The first error [`decode`](Self::decode) returns.
    ///
    /// ```
    /// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Customer { id: String }
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Order { id: String, customer: String }
    /// # struct CustomerMapper;
    /// # impl Mapper for CustomerMapper {
    /// #     type Entity = Customer;
    /// #     const ENTITY_TYPE: &'static str = "Customer";
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", c.id));
    /// #         put_str(item, "sk", "METADATA");
    /// #         Ok(())
    /// #     }
    /// # }
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const ALIASES: &'static [&'static str] = &["Purchase"];
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", o.customer));
    /// #         put_str(item, "sk", format!("ORDER#{}", o.id));
    /// #         Ok(())
    /// #     }
    /// # }
    /// # #[derive(Debug, PartialEq)] enum Entity { Customer(Customer), Order(Order) }
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
        self.inner.decode_all(items, None)
    }

    /// A filter expression that keeps only items of the given entity types
    /// (and of their aliases), for a `Query` or `Scan` of a base set.
    ///
    /// # Errors
    /// [`Error::NotRegistered`] for a name that is not a registered entity
    /// type; [`Error::InvalidFilter`] when no type is given or the types and
    /// their aliases are more than [`MAX_FILTER_VALUES`].
    ///
    /// ```
    /// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Customer { id: String }
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Order { id: String, customer: String }
    /// # struct CustomerMapper;
    /// # impl Mapper for CustomerMapper {
    /// #     type Entity = Customer;
    /// #     const ENTITY_TYPE: &'static str = "Customer";
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", c.id));
    /// #         put_str(item, "sk", "METADATA");
    /// #         Ok(())
    /// #     }
    /// # }
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const ALIASES: &'static [&'static str] = &["Purchase"];
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", o.customer));
    /// #         put_str(item, "sk", format!("ORDER#{}", o.id));
    /// #         Ok(())
    /// #     }
    /// # }
    /// # #[derive(Debug, PartialEq)] enum Entity { Customer(Customer), Order(Order) }
    /// use dynamodb_mapper::Registry;
    ///
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .build()?;
    /// let filter = registry.filter(&["Customer", "Order"])?;
    /// assert_eq!(filter.expression(), "#dmType IN (:dmType0, :dmType1, :dmType2)");
    /// assert_eq!(
    ///     registry.filter(&["Refund"]).unwrap_err().to_string(),
    ///     "entity type \"Refund\" is not registered"
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn filter(&self, entity_types: &[&str]) -> Result<DiscriminatorFilter> {
        let mut chosen: Vec<&Entry<T>> = Vec::with_capacity(entity_types.len());
        for name in entity_types {
            let Some(entry) = self.inner.entries.iter().find(|e| e.entity_type == *name) else {
                return Err(Error::NotRegistered {
                    what: "entity type",
                    name: (*name).to_owned(),
                });
            };
            if !chosen.iter().any(|c| c.entity_type == entry.entity_type) {
                chosen.push(entry);
            }
        }
        let values: Vec<&'static str> = chosen.iter().flat_map(|e| e.values()).collect();
        DiscriminatorFilter::new(self.inner.attribute, values.into_iter())
    }

    /// The group called `name` (see [`RegistryBuilder::group`]): its filter,
    /// and decoding restricted to its members.
    ///
    /// # Errors
    /// [`Error::NotRegistered`] when no group has that name.
    ///
    /// ```
    /// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Customer { id: String }
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Order { id: String, customer: String }
    /// # struct CustomerMapper;
    /// # impl Mapper for CustomerMapper {
    /// #     type Entity = Customer;
    /// #     const ENTITY_TYPE: &'static str = "Customer";
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", c.id));
    /// #         put_str(item, "sk", "METADATA");
    /// #         Ok(())
    /// #     }
    /// # }
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const ALIASES: &'static [&'static str] = &["Purchase"];
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", o.customer));
    /// #         put_str(item, "sk", format!("ORDER#{}", o.id));
    /// #         Ok(())
    /// #     }
    /// # }
    /// # #[derive(Debug, PartialEq)] enum Entity { Customer(Customer), Order(Order) }
    /// use dynamodb_mapper::Registry;
    ///
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .group("Sales", &["Order"])
    ///     .build()?;
    /// let sales = registry.group("Sales")?;
    /// assert_eq!(sales.entity_types(), ["Order"]);
    /// assert_eq!(registry.group("Admins").unwrap_err().to_string(), "group \"Admins\" is not registered");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn group(&self, name: &str) -> Result<Group<'_, T>> {
        match self.inner.groups.iter().position(|g| g.name == name) {
            Some(index) => Ok(Group {
                registry: self,
                index,
            }),
            None => Err(Error::NotRegistered {
                what: "group",
                name: name.to_owned(),
            }),
        }
    }

    /// The names of the groups, in definition order.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder()
    ///     .register::<NoteMapper>(|n| n)
    ///     .group("Everything", &["Note"])
    ///     .build()?;
    /// assert_eq!(registry.group_names().collect::<Vec<_>>(), ["Everything"]);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn group_names(&self) -> impl Iterator<Item = &str> {
        self.inner.groups.iter().map(|g| g.name.as_str())
    }

    /// Sorts items into [`Buckets`] by this registry's discriminator
    /// attribute, for a compound read.
    ///
    /// ```
    /// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, Registry, TableSchema};
    /// # #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)] struct Note { text: String }
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(n: &Note, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("NOTE#{}", n.text));
    /// #         Ok(())
    /// #     }
    /// # }
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// let note = Note { text: "hi".into() };
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
    fn lookup(&self, value: &str) -> Option<usize> {
        self.routes
            .binary_search_by(|(v, _)| (*v).cmp(value))
            .ok()
            .and_then(|i| self.routes.get(i))
            .map(|(_, entry)| *entry)
    }

    fn route(&self, item: &Item, scope: Option<&GroupData>) -> Route {
        match item.get(self.attribute) {
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

    fn decode(&self, item: Item, scope: Option<&GroupData>) -> Result<Decoded<T>> {
        let route = self.route(&item, scope);
        // A mapper's read checks the item first; an item no mapper reads is
        // checked here, before it is dropped, trimmed or handed back: an
        // item nested deeper than DynamoDB allows cannot be stored, and
        // dropping one can overflow the stack (it is taken apart without
        // recursion instead).
        let entry = match route {
            Route::Entry(i) => self.entries.get(i),
            Route::Unknown | Route::Missing(_) => None,
        };
        if entry.is_none()
            && let Err(e) = check_depth(&item)
        {
            let e = e.with_key(|| item::describe_key(&item, &self.table));
            drop_item(item);
            return Err(e);
        }
        match route {
            Route::Entry(_) => match entry {
                Some(entry) => (entry.decode)(item).map(Decoded::Entity),
                None => self.unknown(item, scope),
            },
            Route::Unknown => self.unknown(item, scope),
            Route::Missing(found) => self.unmatched(
                item,
                Unmatched::Missing { found },
                self.on_missing.into(),
                || Error::MissingDiscriminator {
                    key: None,
                    entity_type: None,
                    attribute: self.attribute.to_owned(),
                    found: found.map(str::to_owned),
                },
            ),
        }
    }

    fn unknown(&self, item: Item, scope: Option<&GroupData>) -> Result<Decoded<T>> {
        let value = match item.get(self.attribute) {
            Some(AttributeValue::S(v)) => v.clone(),
            _ => String::new(),
        };
        let error = || Error::UnknownEntityType {
            key: None,
            attribute: self.attribute.to_owned(),
            found: value.clone(),
            group: scope.map(|g| g.name.clone()),
            known: scope
                .map_or(&self.entity_types, |g| &g.entity_types)
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
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
            Action::Error => Err(error().with_key(|| item::describe_key(&item, &self.table))),
            Action::Keep => Ok(Decoded::Raw(RawItem { item, reason })),
            Action::Skip => {
                let pk = self.table.partition_key_attribute().name;
                let sk = self.table.sort_key_attribute().map(|k| k.name);
                item.retain(|name, _| name == pk || Some(name.as_str()) == sk);
                Ok(Decoded::Skipped(Skipped { key: item, reason }))
            }
        }
    }

    fn decode_all(
        &self,
        items: impl IntoIterator<Item = Item>,
        scope: Option<&GroupData>,
    ) -> Result<DecodedItems<T>> {
        let mut items = items.into_iter();
        let mut out = DecodedItems {
            entities: Vec::with_capacity(items.size_hint().0),
            skipped: Vec::new(),
            raw: Vec::new(),
        };
        while let Some(item) = items.next() {
            match self.decode(item, scope) {
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

/// A named set of entity types of a [`Registry`], for base/derived queries:
/// its discriminator filter, and decoding restricted to its members (an item
/// of another type is handled by the [`UnknownPolicy`]).
///
/// ```
/// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, TableSchema};
/// # use serde::{Deserialize, Serialize};
/// # const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
/// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Customer { id: String }
/// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Order { id: String, customer: String }
/// # struct CustomerMapper;
/// # impl Mapper for CustomerMapper {
/// #     type Entity = Customer;
/// #     const ENTITY_TYPE: &'static str = "Customer";
/// #     const TABLE: TableSchema = TABLE;
/// #     fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
/// #         put_str(item, "pk", format!("CUSTOMER#{}", c.id));
/// #         put_str(item, "sk", "METADATA");
/// #         Ok(())
/// #     }
/// # }
/// # struct OrderMapper;
/// # impl Mapper for OrderMapper {
/// #     type Entity = Order;
/// #     const ENTITY_TYPE: &'static str = "Order";
/// #     const ALIASES: &'static [&'static str] = &["Purchase"];
/// #     const TABLE: TableSchema = TABLE;
/// #     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
/// #         put_str(item, "pk", format!("CUSTOMER#{}", o.customer));
/// #         put_str(item, "sk", format!("ORDER#{}", o.id));
/// #         Ok(())
/// #     }
/// # }
/// # #[derive(Debug, PartialEq)] enum Entity { Customer(Customer), Order(Order) }
/// use dynamodb_mapper::Registry;
///
/// let registry = Registry::builder()
///     .register::<CustomerMapper>(Entity::Customer)
///     .register::<OrderMapper>(Entity::Order)
///     .group("Sales", &["Order"])
///     .build()?;
/// let sales = registry.group("Sales")?;
/// assert_eq!(sales.filter().expression(), "#dmType IN (:dmType0, :dmType1)");
///
/// let customer = CustomerMapper::to_item(&Customer { id: "C1".into() })?;
/// assert_eq!(
///     sales.decode(customer).unwrap_err().to_string(),
///     "item (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): discriminator `entityType` is \"Customer\", \
///      which no mapper of group \"Sales\" reads (members: \"Order\")"
/// );
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub struct Group<'r, T> {
    registry: &'r Registry<T>,
    index: usize,
}

impl<T> Clone for Group<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Group<'_, T> {}

impl<T> fmt::Debug for Group<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Group")
            .field("name", &self.name())
            .field("entity_types", &self.entity_types())
            .finish()
    }
}

impl<'r, T> Group<'r, T> {
    fn data(&self) -> Option<&'r GroupData> {
        self.registry.inner.groups.get(self.index)
    }

    /// The group's name.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).group("All", &["Note"]).build()?;
    /// assert_eq!(registry.group("All")?.name(), "All");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn name(&self) -> &'r str {
        self.data().map_or("", |g| g.name.as_str())
    }

    /// The member entity types, in the order the group names them.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).group("All", &["Note"]).build()?;
    /// assert_eq!(registry.group("All")?.entity_types(), ["Note"]);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn entity_types(&self) -> &'r [&'static str] {
        self.data().map_or(&[], |g| g.entity_types.as_slice())
    }

    /// Whether a discriminator value (an entity type or an alias) belongs to
    /// the group.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Order {}
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const ALIASES: &'static [&'static str] = &["Purchase"];
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Order, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder().register::<OrderMapper>(|o| o).group("Sales", &["Order"]).build()?;
    /// let sales = registry.group("Sales")?;
    /// assert!(sales.contains("Purchase") && sales.contains("Order"));
    /// assert!(!sales.contains("Refund"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn contains(&self, value: &str) -> bool {
        match (self.data(), self.registry.inner.lookup(value)) {
            (Some(g), Some(i)) => g.members.get(i).copied().unwrap_or(false),
            _ => false,
        }
    }

    /// The group's discriminator filter: its members and their aliases.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Order {}
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const ALIASES: &'static [&'static str] = &["Purchase"];
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Order, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder().register::<OrderMapper>(|o| o).group("Sales", &["Order"]).build()?;
    /// let filter = registry.group("Sales")?.filter();
    /// assert_eq!(filter, registry.filter(&["Order"])?);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn filter(&self) -> DiscriminatorFilter {
        match self.data() {
            Some(g) => g.filter.clone(),
            // Unreachable: a group is only handed out for an existing index.
            None => DiscriminatorFilter::empty(self.registry.inner.attribute),
        }
    }

    /// Decodes one item, if its entity type is a member of the group; an
    /// item of another type is handled by the registry's [`UnknownPolicy`].
    ///
    /// # Errors
    /// As [`Registry::decode`]; [`Error::UnknownEntityType`] names the group.
    ///
    /// ```
    /// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Customer { id: String }
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Order { id: String, customer: String }
    /// # struct CustomerMapper;
    /// # impl Mapper for CustomerMapper {
    /// #     type Entity = Customer;
    /// #     const ENTITY_TYPE: &'static str = "Customer";
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", c.id));
    /// #         put_str(item, "sk", "METADATA");
    /// #         Ok(())
    /// #     }
    /// # }
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const ALIASES: &'static [&'static str] = &["Purchase"];
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", o.customer));
    /// #         put_str(item, "sk", format!("ORDER#{}", o.id));
    /// #         Ok(())
    /// #     }
    /// # }
    /// # #[derive(Debug, PartialEq)] enum Entity { Customer(Customer), Order(Order) }
    /// use dynamodb_mapper::{Decoded, Registry, Unmatched, UnknownPolicy};
    ///
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .group("Sales", &["Order"])
    ///     .on_unknown(UnknownPolicy::Skip)
    ///     .build()?;
    /// let sales = registry.group("Sales")?;
    /// let order = Order { id: "O1".into(), customer: "C1".into() };
    /// let decoded = sales.decode(OrderMapper::to_item(&order)?)?;
    /// assert_eq!(decoded, Decoded::Entity(Entity::Order(order)));
    /// let customer = sales.decode(CustomerMapper::to_item(&Customer { id: "C1".into() })?)?;
    /// let Decoded::Skipped(skipped) = customer else { panic!("not skipped") };
    /// assert_eq!(skipped.reason, Unmatched::Unknown { value: "Customer".into() });
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn decode(&self, item: Item) -> Result<Decoded<T>> {
        self.registry.inner.decode(item, self.data())
    }

    /// Decodes many items restricted to the group, as
    /// [`Registry::decode_all`] does.
    ///
    /// # Errors
    /// The first error [`decode`](Self::decode) returns.
    ///
    /// ```
    /// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Customer { id: String }
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Order { id: String, customer: String }
    /// # struct CustomerMapper;
    /// # impl Mapper for CustomerMapper {
    /// #     type Entity = Customer;
    /// #     const ENTITY_TYPE: &'static str = "Customer";
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", c.id));
    /// #         put_str(item, "sk", "METADATA");
    /// #         Ok(())
    /// #     }
    /// # }
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const ALIASES: &'static [&'static str] = &["Purchase"];
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", o.customer));
    /// #         put_str(item, "sk", format!("ORDER#{}", o.id));
    /// #         Ok(())
    /// #     }
    /// # }
    /// # #[derive(Debug, PartialEq)] enum Entity { Customer(Customer), Order(Order) }
    /// use dynamodb_mapper::{Registry, UnknownPolicy};
    ///
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .group("Sales", &["Order"])
    ///     .on_unknown(UnknownPolicy::Keep)
    ///     .build()?;
    /// let items = vec![
    ///     CustomerMapper::to_item(&Customer { id: "C1".into() })?,
    ///     OrderMapper::to_item(&Order { id: "O1".into(), customer: "C1".into() })?,
    /// ];
    /// let out = registry.group("Sales")?.decode_all(items)?;
    /// assert_eq!(out.entities.len(), 1);
    /// assert_eq!(out.raw.len(), 1); // the customer, kept whole
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn decode_all(&self, items: impl IntoIterator<Item = Item>) -> Result<DecodedItems<T>> {
        self.registry.inner.decode_all(items, self.data())
    }
}

/// Builds a [`Registry`]; [`build`](Self::build) checks the design.
///
/// ```
/// # use dynamodb_mapper::{Item, Mapper, TableSchema};
/// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
/// # struct NoteMapper;
/// # impl Mapper for NoteMapper {
/// #     type Entity = Note;
/// #     const ENTITY_TYPE: &'static str = "Note";
/// #     const TABLE: TableSchema = TableSchema::new("pk");
/// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
/// # }
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

impl<T: 'static> RegistryBuilder<T> {
    /// Registers a mapper: items of its entity type (or one of its aliases)
    /// are read with [`M::from_item`](Mapper::from_item) and wrapped by
    /// `into`, typically an enum variant such as `Entity::Customer`.
    ///
    /// ```
    /// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, TableSchema};
    /// # #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)] struct Note { text: String }
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(n: &Note, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("NOTE#{}", n.text));
    /// #         Ok(())
    /// #     }
    /// # }
    /// use dynamodb_mapper::{Decoded, Registry};
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum Entity {
    ///     Note(Note),
    /// }
    /// let registry = Registry::builder().register::<NoteMapper>(Entity::Note).build()?;
    /// let item = NoteMapper::to_item(&Note { text: "hi".into() })?;
    /// assert_eq!(registry.decode(item)?, Decoded::Entity(Entity::Note(Note { text: "hi".into() })));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn register<M: Mapper>(
        self,
        into: impl Fn(M::Entity) -> T + Send + Sync + 'static,
    ) -> Self {
        self.push::<M>(Box::new(move |item| M::from_item(item).map(&into)))
    }

    /// Registers a mapper for lossless reads: items are read with
    /// [`M::record_from_item`](Mapper::record_from_item), so the attributes
    /// the mapper does not own and the version come along in the
    /// [`Record`].
    ///
    /// ```
    /// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, TableSchema};
    /// # #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)] struct Note { text: String }
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(n: &Note, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("NOTE#{}", n.text));
    /// #         Ok(())
    /// #     }
    /// # }
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Record, Registry};
    ///
    /// enum Entity {
    ///     Note(Record<Note>),
    /// }
    /// let registry = Registry::builder().register_record::<NoteMapper>(Entity::Note).build()?;
    /// let mut item = NoteMapper::to_item(&Note { text: "hi".into() })?;
    /// item.insert("color".into(), AttributeValue::S("red".into()));
    /// let Some(Entity::Note(record)) = registry.decode(item)?.into_entity() else { panic!() };
    /// assert_eq!(record.bag.get("color"), Some(&AttributeValue::S("red".into())));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn register_record<M: Mapper>(
        self,
        into: impl Fn(Record<M::Entity>) -> T + Send + Sync + 'static,
    ) -> Self {
        self.push::<M>(Box::new(move |item| M::record_from_item(item).map(&into)))
    }

    fn push<M: Mapper>(mut self, decode: DecodeFn<T>) -> Self {
        self.entries.push(Entry {
            entity_type: M::ENTITY_TYPE,
            aliases: M::ALIASES,
            table: M::TABLE,
            field_problem: field_problem::<M>(),
            key_patterns: M::KEY_PATTERNS,
            decode,
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
    /// # use dynamodb_mapper::{hooks::put_str, IndexKeys, Item, KeyPattern, Mapper, Registry, TableSchema};
    /// use dynamodb_mapper::AllowedOverlap;
    /// # const T: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// # const PK: KeyPattern = KeyPattern::partition("ORDER#{order_id}");
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Order { order_id: String }
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Line { order_id: String, line: u32 }
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const TABLE: TableSchema = T;
    /// #     const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(PK).sort(KeyPattern::sort("ORDER"))];
    /// #     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", PK.with("order_id", &o.order_id).render()?);
    /// #         put_str(item, "sk", "ORDER");
    /// #         Ok(())
    /// #     }
    /// # }
    /// # struct LineMapper;
    /// # impl Mapper for LineMapper {
    /// #     type Entity = Line;
    /// #     const ENTITY_TYPE: &'static str = "OrderLine";
    /// #     const TABLE: TableSchema = T;
    /// #     const KEY_PATTERNS: &'static [IndexKeys] =
    /// #         &[IndexKeys::table(PK).sort(KeyPattern::sort("ORDERLINE#{line:u3}"))];
    /// #     fn after_to_item(l: &Line, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", PK.with("order_id", &l.order_id).render()?);
    /// #         put_str(item, "sk", format!("ORDERLINE#{:03}", l.line));
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

    /// Sets the policy for discriminator values no registered mapper reads
    /// (default [`UnknownPolicy::Error`]).
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// use dynamodb_mapper::UnknownPolicy;
    ///
    /// let registry = Registry::builder()
    ///     .register::<NoteMapper>(|n| n)
    ///     .on_unknown(UnknownPolicy::Keep)
    ///     .build()?;
    /// assert_eq!(registry.unknown_policy(), UnknownPolicy::Keep);
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
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
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
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
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
    /// [`Error::InvalidRegistry`] listing every problem found, not just the
    /// first:
    /// - no mapper registered; a table layout without a discriminator
    ///   attribute (the registry cannot dispatch);
    /// - an entity type registered more than once; an alias that is also an
    ///   entity type, the mapper's own entity type, listed twice, or claimed
    ///   by two mappers;
    /// - mappers whose table layouts disagree, one problem per part that
    ///   differs (partition key, sort key, each index, discriminator, TTL and
    ///   version attributes), each compared with the first mapper's;
    /// - a discriminator attribute that is also a key, index key, TTL or
    ///   version attribute, or the stored name (after the mapper's naming
    ///   convention) of one of a struct entity's fields;
    /// - a group defined twice, without members, naming an entity type
    ///   twice or one that is not registered, or whose filter would need
    ///   more than [`MAX_FILTER_VALUES`] values.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Order { entity_type: String }
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// #     const NAMING: dynamodb_mapper::NamingConvention = dynamodb_mapper::NamingConvention::CamelCase;
    /// #     fn after_to_item(_: &Order, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Invoice {}
    /// # struct InvoiceMapper;
    /// # impl Mapper for InvoiceMapper {
    /// #     type Entity = Invoice;
    /// #     const ENTITY_TYPE: &'static str = "Invoice";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
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
            return Err(Error::InvalidRegistry {
                problems: vec!["no mapper is registered".to_owned()],
            });
        };
        let table = first.table;
        let attribute = table.discriminator_attribute();
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
            if let Some(p) = &entry.field_problem {
                problems.push(p.clone());
            }
        }
        duplicates(&self.entries, &mut problems);
        key_overlaps(&self.entries, &table, &self.allowed_overlaps, &mut problems);
        let resolved = resolve_groups(&self.entries, &self.groups, &mut problems);

        let Some(attribute) = attribute.filter(|_| problems.is_empty()) else {
            return Err(Error::InvalidRegistry { problems });
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
                filter: DiscriminatorFilter::new(attribute, values.into_iter())?,
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
                on_unknown: self.on_unknown,
                on_missing: self.on_missing,
            }),
        })
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
        assert_send_sync::<DiscriminatorFilter>();
    }
}
