//! The `Mapper` trait: one implementation per entity type, carrying everything
//! persistence-specific in hooks.
//!
//! - `mod.rs`: the [`Mapper`] trait, its hooks and the conversions it provides.
//! - `write.rs`: the way out: hooks, serialization, discriminator, the bag
//!   merged back, then the write checks.
//! - `plan.rs`: the mapper's declarations checked once per type, and the
//!   keys rendered from its key patterns.
//! - `lookup.rs`: [`Lookup`], keys from ids without an entity.
//! - `owned.rs`: the attributes the mapper owns, as a set cached per type.
//! - `read.rs`: the way in: the received item checked, read hooks, then
//!   deserialization, every error naming the item's key.

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::check::RenderedKeys;
use crate::error::{Error, Result};
use crate::fields::{FieldTable, field_table};
use crate::hooks::check_discriminator;
use crate::item::Item;
use crate::key::IndexKeys;
use crate::key::unique::Unique;
use crate::naming::NamingConvention;
use crate::record::Record;
use crate::schema::TableSchema;
use crate::ser::NoneAs;

mod errors;
mod lookup;
mod owned;
mod plan;
mod projected;
mod read;
pub(crate) mod unique;
mod write;

pub use lookup::Lookup;
pub(crate) use lookup::SortRange;
pub(crate) use plan::{attributes_of, derivation, plan, problems, sources_of};

pub(crate) use projected::projected_attributes;
pub(crate) use read::upgrade;
use read::{read, read_projected};
use write::{build_item, finish, merge_bag};

/// Maps one entity type to and from items.
///
/// Implement it on a unit struct per entity. The domain struct stays a plain
/// serde type; the mapper declares where the entity lives
/// ([`KEY_PATTERNS`](Mapper::KEY_PATTERNS): the keys are rendered from the
/// entity's fields), and adds what patterns cannot say (TTL, computed keys)
/// in [`after_to_item`](Mapper::after_to_item). The discriminator is
/// written and checked for you.
///
/// ```
/// # use dynamodb_mapper::MapperExt;
/// use dynamodb_mapper::{IndexKeys, KeyPattern, Mapper, NamingConvention, TableSchema};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Debug, PartialEq, Serialize, Deserialize)]
/// struct Customer {
///     customer_id: String,
///     email: String,
///     name: String,
/// }
///
/// const APP_TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
///
/// struct CustomerMapper;
///
/// impl Mapper for CustomerMapper {
///     type Entity = Customer;
///     const ENTITY_TYPE: &'static str = "Customer";
///     const SCHEMA: TableSchema = APP_TABLE;
///     const NAMING: NamingConvention = NamingConvention::CamelCase;
///     const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(
///         KeyPattern::partition("CUSTOMER#{customer_id}"),
///     )
///     .sort(KeyPattern::sort("METADATA"))];
/// }
///
/// let ada = Customer { customer_id: "C1".into(), email: "ada@example.com".into(), name: "Ada".into() };
/// let item = CustomerMapper::to_item(&ada)?;
/// assert_eq!(item["pk"].as_s().unwrap(), "CUSTOMER#C1");
/// assert!(item.contains_key("customerId") && item.contains_key("entityType"));
/// assert_eq!(CustomerMapper::from_item(item)?, ada);
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub trait Mapper: Sized + 'static {
    /// The domain type.
    type Entity: Serialize + DeserializeOwned + 'static;

    /// The discriminator value written for this entity type.
    const ENTITY_TYPE: &'static str;

    /// Older discriminator values accepted on read (migrations); never written.
    const ALIASES: &'static [&'static str] = &[];

    /// The table layout this mapper writes into.
    const SCHEMA: TableSchema;

    /// Naming convention for the entity's top-level attribute names.
    const NAMING: NamingConvention = NamingConvention::AsIs;

    /// How a field whose value is `None` is written: left out by default
    /// ([`NoneAs::Absent`], so `attribute_not_exists` and sparse indexes
    /// see it as absent), or as `NULL` ([`NoneAs::Null`]). Reads accept
    /// both.
    const NONE_AS: NoneAs = NoneAs::Absent;

    /// Attributes the hooks write besides the table layout's own (for example
    /// a `recordType` copy of the discriminator). They never enter the
    /// bag ([`Record::bag`](crate::Record::bag)), and never come back from it.
    const OWNED_ATTRIBUTES: &'static [&'static str] = &[];

    /// Unique constraints: values no two items of this entity type may
    /// hold, kept by a sentinel item per value that every helper writes in
    /// one transaction with the entity ([`Unique`](crate::Unique) says
    /// which helper does what). None by default.
    ///
    /// ```
    /// # use dynamodb_mapper::ItemExt;
    /// use dynamodb_mapper::{Mapper, TableSchema, Unique};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct User { id: String, email: String }
    /// struct UserMapper;
    /// impl Mapper for UserMapper {
    ///     type Entity = User;
    ///     const ENTITY_TYPE: &'static str = "User";
    ///     const SCHEMA: TableSchema = TableSchema::new("pk");
    ///     const UNIQUE: &'static [Unique] = &[Unique::new("email", &["email"])];
    /// #   fn after_to_item(u: &User, item: &mut dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
    /// #       item.put_str("pk", format!("USER#{}", u.id));
    /// #       Ok(())
    /// #   }
    /// }
    /// assert_eq!(UserMapper::UNIQUE.len(), 1);
    /// ```
    const UNIQUE: &'static [Unique] = &[];

    /// The key patterns this mapper writes: one [`IndexKeys`] per index (the
    /// table included). They are the one place a key is stated:
    ///
    /// - **Writes render them.** Each placeholder names a field of the
    ///   entity (its serde name); [`to_item`](MapperExt::to_item) fills it
    ///   from the field's serialized value and writes the key attributes the
    ///   [`SCHEMA`](Mapper::SCHEMA) layout names, before
    ///   [`after_to_item`](Mapper::after_to_item) runs (which may still
    ///   overwrite them). Text placeholders take strings, integers, booleans
    ///   and unit enum variants; `u<width>` unsigned integers; `i<width>`
    ///   integers; `ts` RFC 3339 UTC strings or unix seconds. A field that is
    ///   absent or `None` (NULL) leaves a global secondary index's keys
    ///   unwritten (a sparse index); for the table's keys it is an error
    ///   naming the key attribute and the field, unless the hook writes the
    ///   key. Keys that are computed, or written only in some states, or one
    ///   of several patterns for an index, are marked
    ///   [`by_hook`](IndexKeys::by_hook): the hook writes them.
    /// - **Checks run before the first write.**
    ///   [`MapperExt::check`] (also run by the first `to_item` and by
    ///   [`RegistryBuilder::build`](crate::RegistryBuilder::build)) reports a
    ///   placeholder that names no field, a field that cannot be a key
    ///   component (a float, a list, a struct...), an index the table does
    ///   not have, and a sort key pattern where the layout has none (or the
    ///   reverse).
    /// - **Writes are checked against them.** Every string key written for
    ///   a declared index must match one of its patterns
    ///   ([`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey)
    ///   otherwise), so the design the registry checked (every overlap
    ///   between entity types)
    ///   is the design in the table.
    /// - **Reads by id use them:** [`MapperExt::lookup`].
    ///
    /// Default: none, so the mapper's hook writes every key.
    ///
    /// ```
    /// # use dynamodb_mapper::MapperExt;
    /// use dynamodb_mapper::{IndexKeys, KeyPattern, Mapper, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Order { customer_id: String, order_id: String }
    /// const CUSTOMER_PK: KeyPattern = KeyPattern::partition("CUSTOMER#{customer_id}");
    /// const ORDER_SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}");
    ///
    /// struct OrderMapper;
    /// impl Mapper for OrderMapper {
    ///     type Entity = Order;
    ///     const ENTITY_TYPE: &'static str = "Order";
    ///     const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk");
    ///     const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(CUSTOMER_PK).sort(ORDER_SK)];
    /// }
    /// let item = OrderMapper::to_item(&Order { customer_id: "C1".into(), order_id: "O#1".into() })?;
    /// assert_eq!(item["pk"].as_s().unwrap(), "CUSTOMER#C1");
    /// assert_eq!(item["sk"].as_s().unwrap(), r"ORDER#O\#1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    const KEY_PATTERNS: &'static [IndexKeys] = &[];

    /// The steps that upgrade older shapes of the item, oldest first: step
    /// `i` turns an item of shape `i + 1` into one of shape `i + 2`, so the
    /// current shape is `UPGRADES.len() + 1`. Items written before any step
    /// (without the attribute) are shape 1. With steps, `to_item` writes the
    /// current shape in the table's shape attribute
    /// ([`TableSchema::shape`]); reads of an older item run its missing
    /// steps in order on the raw item before anything else reads it (after
    /// the discriminator check), and a newer one is an error. Projections
    /// ([`MapperExt::from_projected`]) read the attributes they name as
    /// stored, without the steps. A
    /// [backfill](crate::evolve::Sweep::backfill) writes older items back
    /// at the current shape, removing what the steps removed; an
    /// [audit](crate::evolve::Sweep::audit) counts each shape. Default: none.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{ItemExt, IndexKeys, Item, KeyPattern, Mapper, MapperExt, TableSchema};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Debug, PartialEq, Serialize, Deserialize)]
    /// struct User { id: String, email: String, display_name: String }
    ///
    /// // Shape 2 renamed `mail`; shape 3 added a display name.
    /// fn v1_to_v2(item: &mut Item) -> dynamodb_mapper::Result<()> {
    ///     item.rename_attribute("mail", "email");
    ///     Ok(())
    /// }
    /// fn v2_to_v3(item: &mut Item) -> dynamodb_mapper::Result<()> {
    ///     let name = item.get("email").and_then(|e| e.as_s().ok()).and_then(|e| e.split('@').next()).unwrap_or_default().to_owned();
    ///     item.insert("display_name".into(), AttributeValue::S(name));
    ///     Ok(())
    /// }
    ///
    /// struct UserMapper;
    /// impl Mapper for UserMapper {
    ///     type Entity = User;
    ///     const ENTITY_TYPE: &'static str = "User";
    ///     const SCHEMA: TableSchema = TableSchema::new("pk").shape("shapeVersion");
    ///     const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(KeyPattern::partition("USER#{id}"))];
    ///     const UPGRADES: &'static [fn(&mut Item) -> dynamodb_mapper::Result<()>] = &[v1_to_v2, v2_to_v3];
    /// }
    ///
    /// // An item written before shapes existed.
    /// let old = Item::from([
    ///     ("pk".to_string(), AttributeValue::S("USER#1".into())),
    ///     ("entityType".to_string(), AttributeValue::S("User".into())),
    ///     ("id".to_string(), AttributeValue::S("1".into())),
    ///     ("mail".to_string(), AttributeValue::S("ada@example.com".into())),
    /// ]);
    /// let user = UserMapper::from_item(old)?;
    /// assert_eq!(user.display_name, "ada");
    /// assert_eq!(UserMapper::to_item(&user)?["shapeVersion"], AttributeValue::N("3".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    const UPGRADES: &'static [fn(&mut Item) -> Result<()>] = &[];

    /// Validates the entity before it is serialized. Default: accepts it.
    ///
    /// # Errors
    /// Return an error to veto the write.
    ///
    /// ```
    /// # use dynamodb_mapper::ItemExt;
    /// # use dynamodb_mapper::MapperExt;
    /// # use dynamodb_mapper::{Error, Item, Mapper, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Order { total: i64 }
    /// struct OrderMapper;
    /// impl Mapper for OrderMapper {
    ///     type Entity = Order;
    ///     const ENTITY_TYPE: &'static str = "Order";
    ///     const SCHEMA: TableSchema = TableSchema::new("pk");
    ///     fn before_to_item(o: &Order) -> dynamodb_mapper::Result<()> {
    ///         if o.total < 0 {
    ///             return Err(Error::invalid_value("total", "must not be negative"));
    ///         }
    ///         Ok(())
    ///     }
    ///     fn after_to_item(_: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
    ///         item.put_str("pk", "ORDER#1");
    ///         Ok(())
    ///     }
    /// }
    /// let err = OrderMapper::to_item(&Order { total: -1 }).unwrap_err();
    /// assert_eq!(err.to_string(), "Order: attribute `total` must not be negative");
    /// ```
    fn before_to_item(entity: &Self::Entity) -> Result<()> {
        let _ = entity;
        Ok(())
    }

    /// Adds what exists only for persistence and the key patterns cannot
    /// say: keys of [`by_hook`](IndexKeys::by_hook) patterns (computed
    /// values, keys written only in some states), TTL. The item already holds
    /// the entity's attributes, the discriminator and the keys rendered from
    /// [`KEY_PATTERNS`](Mapper::KEY_PATTERNS); the hook may overwrite or
    /// remove them. Default: nothing.
    ///
    /// # Errors
    /// Return an error to veto the write.
    ///
    /// ```
    /// # use dynamodb_mapper::MapperExt;
    /// # use dynamodb_mapper::{ItemExt, ttl_value, Item, Mapper, TableSchema};
    /// # use std::time::{Duration, UNIX_EPOCH};
    /// # #[derive(serde::Serialize, serde::Deserialize)]
    /// # struct Session { session_id: String, user_id: String, expires_at: u64 }
    /// struct SessionMapper;
    /// impl Mapper for SessionMapper {
    ///     type Entity = Session;
    ///     const ENTITY_TYPE: &'static str = "Session";
    ///     const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk").ttl("ttl");
    ///     fn after_to_item(s: &Session, item: &mut Item) -> dynamodb_mapper::Result<()> {
    ///         item.put_str("pk", format!("USER#{}", s.user_id));
    ///         item.put_str("sk", format!("SESSION#{}", s.session_id));
    ///         item.insert("ttl".into(), ttl_value(UNIX_EPOCH + Duration::from_secs(s.expires_at))?);
    ///         Ok(())
    ///     }
    /// }
    /// let s = Session { session_id: "S1".into(), user_id: "U1".into(), expires_at: 60 };
    /// assert!(SessionMapper::to_item(&s)?.contains_key("ttl"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn after_to_item(entity: &Self::Entity, item: &mut Item) -> Result<()> {
        let _ = (entity, item);
        Ok(())
    }

    /// Runs first on read, with the item mutable: reject it, or fix up what
    /// an old writer stored (a legacy discriminator value, say). Right after
    /// it, whatever it does, the read checks the discriminator against
    /// [`ENTITY_TYPE`](Mapper::ENTITY_TYPE) and [`ALIASES`](Mapper::ALIASES)
    /// (nothing to check when the table has no discriminator): overriding
    /// the hook never turns the check off. Default: nothing.
    ///
    /// # Errors
    /// What your hook returns; the check after it returns
    /// [`ErrorKind::MissingDiscriminator`](crate::ErrorKind::MissingDiscriminator)
    /// or
    /// [`ErrorKind::DiscriminatorMismatch`](crate::ErrorKind::DiscriminatorMismatch).
    ///
    /// ```
    /// # use dynamodb_mapper::ItemExt;
    /// # use dynamodb_mapper::MapperExt;
    /// # use dynamodb_mapper::{hooks, Item, Mapper, TableSchema};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize)] struct Customer { email: String }
    /// struct CustomerMapper;
    /// impl Mapper for CustomerMapper {
    ///     type Entity = Customer;
    ///     const ENTITY_TYPE: &'static str = "Customer";
    ///     const SCHEMA: TableSchema = TableSchema::new("pk");
    ///     fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
    ///         item.put_str("pk", format!("EMAIL#{}", c.email));
    ///         Ok(())
    ///     }
    ///     fn before_from_item(item: &mut Item) -> dynamodb_mapper::Result<()> {
    ///         item.rename_attribute("mail", "email"); // v1 items said `mail`
    ///         Ok(())
    ///     }
    /// }
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// let old = Item::from([
    ///     ("pk".to_string(), AttributeValue::S("EMAIL#a@b.c".into())),
    ///     ("entityType".to_string(), AttributeValue::S("Customer".into())),
    ///     ("mail".to_string(), AttributeValue::S("a@b.c".into())),
    /// ]);
    /// assert_eq!(CustomerMapper::from_item(old)?.email, "a@b.c");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn before_from_item(item: &mut Item) -> Result<()> {
        let _ = item;
        Ok(())
    }

    /// Runs last on read: fixes up the entity. `rest` holds the attributes
    /// deserialization did not consume (keys, index keys, discriminator,
    /// unknown attributes), without a copy of the whole item. Default: nothing.
    ///
    /// # Errors
    /// Return an error to reject the item.
    ///
    /// ```
    /// # use dynamodb_mapper::MapperExt;
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// struct Order {
    ///     #[serde(skip)]
    ///     customer_id: String, // lives only in the key
    ///     total: u32,
    /// }
    /// struct OrderMapper;
    /// impl Mapper for OrderMapper {
    ///     type Entity = Order;
    ///     const ENTITY_TYPE: &'static str = "Order";
    ///     const SCHEMA: TableSchema = TableSchema::new("pk");
    ///     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
    ///         item.put_str("pk", format!("CUSTOMER#{}", o.customer_id));
    ///         Ok(())
    ///     }
    ///     fn after_from_item(o: &mut Order, rest: &Item) -> dynamodb_mapper::Result<()> {
    ///         let pk = rest.get_str("pk")?;
    ///         o.customer_id = pk.strip_prefix("CUSTOMER#").unwrap_or(pk).to_owned();
    ///         Ok(())
    ///     }
    /// }
    /// let item = OrderMapper::to_item(&Order { customer_id: "C1".into(), total: 5 })?;
    /// assert_eq!(OrderMapper::from_item(item)?.customer_id, "C1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn after_from_item(entity: &mut Self::Entity, rest: &Item) -> Result<()> {
        let _ = (entity, rest);
        Ok(())
    }
}

/// The conversions every [`Mapper`] gets: implemented once for all mappers,
/// so none can override them and skip a check. Bring it into scope with the
/// trait (`use dynamodb_mapper::{Mapper, MapperExt};`).
///
/// ```
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::MapperExt;
/// let item = NoteMapper::to_item(&Note { id: 1, text: "hi".into() })?;
/// assert_eq!(NoteMapper::from_item(item)?.text, "hi");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub trait MapperExt: Mapper {
    /// Checks the mapper's declarations without writing anything: its key
    /// patterns against the table layout (the index exists, a sort key
    /// pattern exactly where there is a sort key, string keys, valid
    /// templates) and against the entity's fields (every placeholder of keys
    /// not marked [`by_hook`](IndexKeys::by_hook) names a field that
    /// serializes to a key component, one such declaration per index), and
    /// the entity's stored attribute names against the attributes the
    /// mapper writes itself (keys, index keys, discriminator, TTL, version,
    /// [`OWNED_ATTRIBUTES`](Mapper::OWNED_ATTRIBUTES)) and each other.
    ///
    /// The result is worked out once per mapper type; `to_item` relies on it
    /// (a mapper that fails it writes nothing) and
    /// [`RegistryBuilder::build`](crate::RegistryBuilder::build) reports its
    /// problems with the design's. Call it in a test, or at start-up.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidMapper`](crate::ErrorKind::InvalidMapper) naming
    /// the entity type, with every problem found (in its [`ErrorDetails`](crate::ErrorDetails)).
    ///
    /// ```
    /// use dynamodb_mapper::{ErrorDetails, IndexKeys, KeyPattern, Mapper, MapperExt, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)]
    /// # struct Order { customer_id: String, order_id: String, version: u64 }
    /// struct OrderMapper;
    /// impl Mapper for OrderMapper {
    ///     type Entity = Order;
    ///     const ENTITY_TYPE: &'static str = "Order";
    ///     const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk").version("version");
    ///     const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(
    ///         KeyPattern::partition("CUSTOMER#{custmer_id}"),
    ///     )
    ///     .sort(KeyPattern::sort("ORDER#{order_id}"))];
    /// }
    /// let err = OrderMapper::check().unwrap_err();
    /// let ErrorDetails::InvalidMapper { problems, .. } = err.details() else { panic!() };
    /// assert_eq!(problems, &[
    ///     "field `version` is stored as `version`, the version attribute",
    ///     "key pattern `CUSTOMER#{custmer_id}` names `{custmer_id}`, which is not a field of \
    ///      the entity (its fields: customer_id, order_id, version); mark the keys for the \
    ///      table `.by_hook()` if the hook computes it",
    /// ]);
    /// assert!(err.to_string().starts_with("Order: invalid mapper (2 problems): field `version`"));
    /// ```
    fn check() -> Result<()> {
        fields::<Self>()?;
        plan::plan::<Self>().map(|_| ())
    }

    /// A key of this entity type from the values of its key patterns'
    /// placeholders, without an entity: for `GetItem`
    /// ([`Lookup::key`], [`Lookup::get_item`]) or a query that reads only
    /// this type ([`Lookup::query`]).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let key = CustomerMapper::lookup().with("id", "C1").key()?;
    /// assert_eq!(key, CustomerMapper::string_key("CUSTOMER#C1", "METADATA")?);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn lookup<'a>() -> Lookup<'a, Self> {
        Lookup::new()
    }

    /// Whether the mapper owns the attribute `name`: one of the table layout's
    /// attributes or of [`OWNED_ATTRIBUTES`](Mapper::OWNED_ATTRIBUTES).
    /// (Entity fields are owned too; they are checked separately.)
    ///
    /// ```
    /// # use dynamodb_mapper::MapperExt;
    /// # use dynamodb_mapper::{Item, Mapper, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct E {}
    /// struct M;
    /// impl Mapper for M {
    ///     type Entity = E;
    ///     const ENTITY_TYPE: &'static str = "E";
    ///     const SCHEMA: TableSchema = TableSchema::new("pk");
    ///     const OWNED_ATTRIBUTES: &'static [&'static str] = &["recordType"];
    ///     fn after_to_item(_: &E, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// }
    /// assert!(M::owns_attribute("recordType") && M::owns_attribute("pk"));
    /// assert!(!M::owns_attribute("note"));
    /// ```
    fn owns_attribute(name: &str) -> bool {
        owned::owns::<Self>(name)
    }

    /// The item for an entity: runs the write hooks, adds the discriminator,
    /// and checks the result (keys against the table layout, numbers, sets,
    /// size).
    ///
    /// The entity is serialized as `serde_dynamo` would, plus `i128`/`u128`
    /// (numbers of at most DynamoDB's 38 digits), and with a bound on
    /// nesting: serialization stops with an error at a list or map 32 levels
    /// deep (or at options and newtypes nested more than 256 deep), so a
    /// deep entity cannot overflow the stack while it is serialized. (The
    /// entity's own `Drop` and `Serialize` are the user's: a recursive type
    /// 100,000 levels deep overflows in its derived `Drop` wherever it is
    /// dropped.)
    ///
    /// # Errors
    /// Hook errors; [`ErrorKind::Serialize`](crate::ErrorKind::Serialize);
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey),
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (also for
    /// nesting too deep) or
    /// [`ErrorKind::ItemTooLarge`](crate::ErrorKind::ItemTooLarge) (naming the
    /// three largest attributes) when DynamoDB would reject the item. Every
    /// error names the entity type.
    ///
    /// ```
    /// # use dynamodb_mapper::MapperExt;
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Reading { value: f64 }
    /// # struct ReadingMapper;
    /// # impl Mapper for ReadingMapper {
    /// #     type Entity = Reading;
    /// #     const ENTITY_TYPE: &'static str = "Reading";
    /// #     const SCHEMA: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Reading, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         item.put_str("pk", "R#1");
    /// #         Ok(())
    /// #     }
    /// # }
    /// assert!(ReadingMapper::to_item(&Reading { value: 1.5 }).is_ok());
    /// let err = ReadingMapper::to_item(&Reading { value: f64::NAN }).unwrap_err();
    /// assert_eq!(err.to_string(), "Reading: attribute `value` is not a number: \"NaN\"");
    /// ```
    fn to_item(entity: &Self::Entity) -> Result<Item> {
        let mut rendered = RenderedKeys::new();
        let (item, plan) = build_item::<Self>(entity, 0, &mut rendered)?;
        finish::<Self>(item, &rendered, plan)
    }

    /// The item for an entity with the attributes of `bag` merged in: the
    /// mapper's attributes win, and attributes the mapper owns never come back
    /// from the bag (a sparse index key the hook stopped writing stays gone).
    ///
    /// # Errors
    /// As [`to_item`](MapperExt::to_item); the size check includes the bag.
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use dynamodb_mapper_support::doc::*;
    /// let mut bag = Item::new();
    /// bag.insert("color".into(), AttributeValue::S("red".into()));
    /// bag.insert("pk".into(), AttributeValue::S("stale".into())); // owned: ignored
    /// let item = NoteMapper::to_item_with_bag(&Note { id: 1, text: "hi".into() }, &bag)?;
    /// assert_eq!(item["color"], AttributeValue::S("red".into()));
    /// assert_eq!(item["pk"], AttributeValue::S("NOTE#1".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn to_item_with_bag(entity: &Self::Entity, bag: &Item) -> Result<Item> {
        let mut rendered = RenderedKeys::new();
        let (mut item, plan) = build_item::<Self>(entity, bag.len(), &mut rendered)?;
        merge_bag::<Self>(&mut item, bag)?;
        finish::<Self>(item, &rendered, plan)
    }

    /// The item for a record: its entity, its bag merged back (as
    /// [`to_item_with_bag`](MapperExt::to_item_with_bag)), and its version
    /// carried through unchanged unless a hook wrote one.
    ///
    /// # Errors
    /// As [`to_item`](MapperExt::to_item);
    /// [`ErrorKind::PartialRecord`](crate::ErrorKind::PartialRecord) for a
    /// record read through a projection ([`Record::projection`]).
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use dynamodb_mapper_support::doc::*;
    /// let mut stored = NoteMapper::to_item(&Note { id: 1, text: "v1".into() })?;
    /// stored.insert("addedByV2".into(), AttributeValue::Bool(true));
    ///
    /// let mut record = NoteMapper::record_from_item(stored)?;
    /// record.entity.text = "v2".into();
    /// let written = NoteMapper::record_to_item(&record)?;
    /// assert_eq!(written["addedByV2"], AttributeValue::Bool(true));
    /// assert_eq!(written["text"], AttributeValue::S("v2".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn record_to_item(record: &Record<Self::Entity>) -> Result<Item> {
        if let Some(projection) = record.projection() {
            let key = Self::key(&record.entity)
                .map(|k| crate::describe::describe_key(&k))
                .unwrap_or_default();
            return Err(Error::partial_record(key, projection).with_entity_type(Self::ENTITY_TYPE));
        }
        // The layout's bound already has room for the version.
        let mut rendered = RenderedKeys::new();
        let (mut item, plan) = build_item::<Self>(&record.entity, record.bag.len(), &mut rendered)?;
        if let (Some(attr), Some(v)) = (Self::SCHEMA.version, record.version) {
            item.entry(attr.to_owned())
                .or_insert_with(|| AttributeValue::N(v.to_string()));
        }
        merge_bag::<Self>(&mut item, &record.bag)?;
        finish::<Self>(item, &rendered, plan)
    }

    /// The entity for an item: runs the read hooks and deserializes the
    /// entity's fields. Attributes that are not fields are handed to
    /// [`after_from_item`](Mapper::after_from_item) and then dropped; use
    /// [`record_from_item`](MapperExt::record_from_item) to keep them.
    ///
    /// Before anything else (hooks included) looks at it, the item is checked
    /// as DynamoDB would have stored it: lists and maps nested at most 32
    /// levels (31 inside a top-level attribute), checked without recursion so
    /// an item of any depth gets an error rather than a stack overflow; sets
    /// neither empty nor holding duplicates (numbers compared by value, so
    /// `1` and `1.0` are duplicates).
    ///
    /// Numbers are read only when they fit their target exactly: integers
    /// (`i8` to `i128`, `u8` to `u128`) when in range and written as
    /// integers; `f32`/`f64` when no digit is lost. The float rule: with `d`
    /// the number's significant digits, the nearest float, rounded back to
    /// `d` significant digits, must be the number itself. So `0.1`, every
    /// number of at most 15 significant digits (`f32`: 6) in the type's
    /// normal range, every float's shortest representation (what
    /// [`to_item`](MapperExt::to_item) writes) and every integer the type holds
    /// exactly (`1152921504606846976`, 2^60) read; `9007199254740993`
    /// (2^53 + 1, which `f64` holds as ...992), a 38-digit integer, or a
    /// number beyond the type's range or lost in its underflow do not.
    /// Self-describing targets (`serde_json::Value`, untagged enums) get
    /// integers exactly and other numbers as `f64` by the same rule. A value
    /// the entity ignores (a map key it has no field for) is not looked at.
    ///
    /// # Errors
    /// Every error names the entity type and the item's key when the item holds
    /// it (`Note (pk="NOTE#1"): ...`, see [`Error::key`]):
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) with the
    /// attribute path for values nested too deep, bad sets, and values of a
    /// type the SDK does not know; hook errors (by default
    /// [`ErrorKind::MissingDiscriminator`](crate::ErrorKind::MissingDiscriminator)
    /// and
    /// [`ErrorKind::DiscriminatorMismatch`](crate::ErrorKind::DiscriminatorMismatch));
    /// [`ErrorKind::MissingAttribute`](crate::ErrorKind::MissingAttribute);
    /// [`ErrorKind::Deserialize`](crate::ErrorKind::Deserialize) with the
    /// attribute path, also for a number that does not fit its type. Never
    /// panics.
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema, ErrorKind};
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use dynamodb_mapper_support::doc::*;
    /// let item = NoteMapper::to_item(&Note { id: 1, text: "hi".into() })?;
    /// assert_eq!(NoteMapper::from_item(item)?.text, "hi");
    ///
    /// let order = Item::from([
    ///     ("pk".to_string(), AttributeValue::S("ORDER#1".into())),
    ///     ("entityType".to_string(), AttributeValue::S("Order".into())),
    /// ]);
    /// let err = NoteMapper::from_item(order).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::DiscriminatorMismatch);
    /// assert_eq!(
    ///     err.to_string(),
    ///     "Note (pk=\"ORDER#1\"): discriminator `entityType` is \"Order\", expected \"Note\""
    /// );
    ///
    /// // Sets DynamoDB never stores, and nesting deeper than it allows.
    /// let mut item = NoteMapper::to_item(&Note { id: 1, text: "hi".into() })?;
    /// item.insert("tags".into(), AttributeValue::Ns(vec!["1".into(), "1.0".into()]));
    /// assert_eq!(
    ///     NoteMapper::from_item(item).unwrap_err().to_string(),
    ///     "Note (pk=\"NOTE#1\"): attribute `tags` is a set with the duplicate value 1 \
    ///      (also as 1.0); DynamoDB rejects duplicates in sets"
    /// );
    /// let mut deep = AttributeValue::Null(true);
    /// for _ in 0..1_000 {
    ///     deep = AttributeValue::L(vec![deep]);
    /// }
    /// let mut item = NoteMapper::to_item(&Note { id: 1, text: "hi".into() })?;
    /// item.insert("text".into(), deep);
    /// let err = NoteMapper::from_item(item).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::InvalidValue);
    /// assert_eq!(err.attribute(), Some(format!("text{}", "[0]".repeat(31)).as_str()));
    /// assert!(err.to_string().ends_with("nests lists and maps 32 or more levels deep; \
    ///     DynamoDB allows 31 (values at most 32 levels deep)"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn from_item(item: Item) -> Result<Self::Entity> {
        read::<Self>(item).map(|(entity, _)| entity)
    }

    /// Reads `P`, a smaller view of the entity (a struct with some of its
    /// fields, under the same names), from a projected item: a `Query` or
    /// `GetItem` with a projection expression
    /// ([`expr::Projection::of`](crate::expr::Projection::of)), or an index
    /// that projects `KEYS_ONLY` or `INCLUDE`. The type is checked as for
    /// [`from_item`](Self::from_item) when the item holds the
    /// discriminator; when the projection left it out, the item's keys must
    /// match one of [`KEY_PATTERNS`](Mapper::KEY_PATTERNS) instead.
    /// `after_from_item` does not run (it takes the whole entity).
    ///
    /// # Errors
    /// [`ErrorKind::MissingAttribute`](crate::ErrorKind::MissingAttribute)
    /// naming the attribute `P` needs and the projection did not include;
    /// [`ErrorKind::DiscriminatorMismatch`](crate::ErrorKind::DiscriminatorMismatch)
    /// for an item of another type;
    /// [`ErrorKind::MissingDiscriminator`](crate::ErrorKind::MissingDiscriminator)
    /// for an item without the discriminator whose keys are not this type's;
    /// decoding errors as for `from_item`.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// #[derive(Debug, PartialEq, serde::Deserialize)]
    /// struct OrderRef { id: String }
    ///
    /// let item = OrderMapper::to_item(&Order { id: "O1".into(), customer: "C1".into() })?;
    /// let mut projected = item.clone();
    /// projected.remove("customer");
    /// assert_eq!(OrderMapper::from_projected::<OrderRef>(projected)?, OrderRef { id: "O1".into() });
    ///
    /// // Keys only (an index projecting KEYS_ONLY): the keys say the type.
    /// let keys_only: Item = item.iter().filter(|(k, _)| *k == "pk" || *k == "sk")
    ///     .map(|(k, v)| (k.clone(), v.clone())).collect();
    /// #[derive(Debug, serde::Deserialize)]
    /// struct Nothing {}
    /// OrderMapper::from_projected::<Nothing>(keys_only.clone())?;
    /// let err = OrderMapper::from_projected::<OrderRef>(keys_only).unwrap_err();
    /// assert!(err.to_string().ends_with(
    ///     "attribute `id` is missing: the projection does not include it (add it to the \
    ///      projection expression or the index's projection, or read the whole item)"
    /// ), "{err}");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn from_projected<P: DeserializeOwned + 'static>(item: Item) -> Result<P> {
        read_projected::<Self, P>(item)
    }

    /// The entity for an item plus the bag ([`Record::bag`](crate::Record::bag)) of every attribute the
    /// mapper does not own, and the version read: a lossless read.
    ///
    /// The split between entity and bag uses the entity's field list, which a
    /// plain struct has. An entity that is not one (an enum, a struct with
    /// `#[serde(flatten)]`) is handed every attribute the mapper does not
    /// own, and its bag stays empty: give such an entity a flattened map
    /// field if it must keep what it does not know.
    ///
    /// # Errors
    /// As [`from_item`](MapperExt::from_item);
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) when the
    /// version attribute is not a whole non-negative number.
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use dynamodb_mapper_support::doc::*;
    /// let mut item = NoteMapper::to_item(&Note { id: 1, text: "hi".into() })?;
    /// item.insert("color".into(), AttributeValue::S("red".into()));
    /// let record = NoteMapper::record_from_item(item)?;
    /// assert_eq!(record.bag.len(), 1); // pk, entityType, id and text are owned
    /// assert_eq!(record.bag.get("color"), Some(&AttributeValue::S("red".into())));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn record_from_item(item: Item) -> Result<Record<Self::Entity>> {
        let unique = unique::values::<Self>(&item);
        let (entity, mut rest) = read::<Self>(item)?;
        let version = match Self::SCHEMA
            .version
            .and_then(|v| rest.get(v).map(|a| (v, a)))
        {
            None => None,
            Some((name, AttributeValue::N(n))) => Some(n.parse::<u64>().map_err(|_| {
                Error::invalid_value(
                    name,
                    format!("is {n}, expected a whole non-negative version number"),
                )
                .with_entity_type(Self::ENTITY_TYPE)
                .with_key(|| Self::SCHEMA.render_key(&rest))
            })?),
            Some((name, other)) => {
                return Err(
                    Error::wrong_type(name, "a number (N)", crate::item::type_name(other))
                        .with_entity_type(Self::ENTITY_TYPE)
                        .with_key(|| Self::SCHEMA.render_key(&rest)),
                );
            }
        };
        let owned = owned::owned::<Self>();
        rest.retain(|name, _| owned.get(name).is_none());
        let record = Record::stored(entity, rest, version);
        Ok(match unique {
            Some(values) => record.with_unique(values),
            None => record,
        })
    }

    /// The primary key item of an entity, for `GetItem`/`DeleteItem`: the
    /// table key attributes exactly as [`to_item`](MapperExt::to_item) writes them.
    ///
    /// # Errors
    /// As [`to_item`](MapperExt::to_item)'s hooks and serialization, and
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey).
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// let key = NoteMapper::key(&Note { id: 7, text: "hi".into() })?;
    /// assert_eq!(key.len(), 1);
    /// assert!(key.contains_key("pk"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn key(entity: &Self::Entity) -> Result<Item> {
        let (item, _) = build_item::<Self>(entity, 0, &mut RenderedKeys::new())?;
        Self::SCHEMA
            .key_of(&item)
            .map_err(|e| e.with_entity_type(Self::ENTITY_TYPE))
    }

    /// A primary key item from string key values (the common single-table
    /// case), checked against the table layout.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) when a value is
    /// empty or too long, or the table's keys are not strings.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let key = CustomerMapper::string_key("CUSTOMER#C1", "METADATA")?;
    /// assert_eq!(key.len(), 2);
    /// assert!(CustomerMapper::string_key("", "METADATA").is_err());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn string_key(partition: &str, sort: &str) -> Result<Item> {
        Self::SCHEMA
            .string_key(partition, sort)
            .map_err(|e| e.with_entity_type(Self::ENTITY_TYPE))
    }
}

impl<M: Mapper> MapperExt for M {}

pub(super) fn fields<M: Mapper>() -> Result<Option<&'static FieldTable>> {
    field_table::<M::Entity>(M::NAMING).map_err(|e| e.with_entity_type(M::ENTITY_TYPE))
}

/// A naming convention is reversed on read through the entity's field list,
/// which only a plain struct has: refuse it for other entities rather than
/// write names that cannot be read back.
pub(super) fn naming_needs_struct<M: Mapper>() -> Result<()> {
    if M::NAMING == NamingConvention::AsIs {
        return Ok(());
    }
    Err(Error::invalid_value(
        "(entity)",
        format!(
            "cannot use the {} naming convention: the entity is not a plain struct (an enum, \
             or a struct with #[serde(flatten)]), so its names could not be read back; \
             use #[serde(rename_all = \"...\")] on the type instead",
            M::NAMING.name()
        ),
    )
    .with_entity_type(M::ENTITY_TYPE))
}

/// Checks that `item`'s discriminator names `M`'s entity type or one of its
/// aliases (nothing to check when the table has no discriminator): what
/// every read runs right after [`Mapper::before_from_item`].
pub(crate) fn check_type<M: Mapper>(item: &Item) -> Result<()> {
    match M::SCHEMA.discriminator {
        None => Ok(()),
        Some(attr) if M::ALIASES.is_empty() => check_discriminator(item, attr, &[M::ENTITY_TYPE]),
        Some(attr) => {
            let mut accepted = Vec::with_capacity(1 + M::ALIASES.len());
            accepted.push(M::ENTITY_TYPE);
            accepted.extend_from_slice(M::ALIASES);
            check_discriminator(item, attr, &accepted)
        }
    }
}
