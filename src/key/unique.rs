//! The declaration of a unique constraint ([`Unique`]); the sentinel items
//! that keep it are rendered by the mapper (`mapper/unique.rs`) and written
//! by the helpers (`ops/unique.rs`).

/// A unique constraint: no two items of the mapper's entity type hold the
/// same values in `fields` (the entity's field names, as key patterns name
/// them). Declared in [`Mapper::UNIQUE`](crate::Mapper::UNIQUE).
///
/// DynamoDB guarantees uniqueness only for the primary key. For each
/// constraint, an item holding values `v1, v2, ...` in its fields has a
/// sentinel at `pk = UNIQUE#<entity type>#<constraint>#v1#v2...` (sort key
/// `UNIQUE` when the table has one), rendered with the key patterns'
/// injective escaping, so a value holding `#` cannot collide with another.
/// The sentinel names its owner's key. Every helper that writes the entity
/// keeps the sentinels right, in one transaction with the entity write:
///
/// | write | sentinels |
/// |---|---|
/// | create ([`Table::put_new`](crate::ops::Table::put_new), [`put_record`](crate::ops::Table::put_record) of a new record, [`Transaction::put_new`](crate::ops::Transaction::put_new)) | each put only if no sentinel exists |
/// | update that changes a unique value ([`update_record`](crate::ops::Table::update_record), [`update_entity`](crate::ops::Table::update_entity), [`update_with_retry`](crate::ops::Table::update_with_retry), [`put_record`](crate::ops::Table::put_record) of a record read, and the transaction's `update_entity`, `update_record`, `put_record`) | the old one deleted if it is this item's, the new one put if free |
/// | delete ([`delete_record`](crate::ops::Table::delete_record), [`Transaction::delete_record`](crate::ops::Transaction::delete_record)) | deleted if it is this item's |
/// | update that changes no unique value | none: one request, as without constraints |
///
/// A value held by another item is an
/// [`ErrorKind::UniqueViolation`](crate::ErrorKind::UniqueViolation)
/// naming the constraint, the value and the item that holds it; nothing was
/// written. Writes that cannot keep sentinels right are refused before
/// sending, naming the helper to use: batch writes, unconditional puts and
/// deletes by key (which do not know the values they replace), and raw
/// updates of a unique field. A value that is absent (`None`) takes no
/// sentinel: the constraint holds among the items that have one, as SQL's
/// `UNIQUE` does with `NULL`. Values are compared exactly: normalize them
/// (lowercase an email) before writing. A value is a non-empty string, an
/// integer or a boolean, and the sentinel's key must fit DynamoDB's
/// 2,048-byte partition key; a table with a TTL attribute cannot declare
/// constraints (an expired item's sentinels would stay).
///
/// A record remembers the unique values it was read with; a versioned
/// write of it is conditioned on the item still holding them, so a record
/// whose values went stale (written by a transaction since: read it again)
/// meets a conflict, never moves the wrong sentinels. The raw paths
/// ([`Transaction::push`](crate::ops::Transaction::push), and a batch
/// writer's `put_items`, `delete_keys` and `write`, which take items and
/// keys, not entities) know no mapper and write no sentinels: they are the
/// caller's to keep right. A shape upgrade
/// ([`Mapper::UPGRADES`](crate::Mapper::UPGRADES)) that renames a unique
/// field or changes its values is not seen by the records' check: migrate
/// the items ([`Sweep::migrate`](crate::evolve::Sweep::migrate), which
/// moves the sentinels) before writing them through the helpers.
///
/// Sentinels are items of the table: a [`Registry`](crate::Registry)
/// skips them ([`Unmatched::Sentinel`](crate::Unmatched::Sentinel)), and
/// the registry's key checks include their `UNIQUE#` partition.
///
/// Several fields make one combined value: `Unique::new("name_in_tenant",
/// &["tenant_id", "name"])` lets two tenants use one name, never one tenant
/// twice. A field holds a string, an integer or a boolean.
///
/// ```
/// # use dynamodb_mapper::ItemExt;
/// use dynamodb_mapper::{Mapper, TableSchema, Unique};
/// # #[derive(serde::Serialize, serde::Deserialize)]
/// # struct User { id: String, tenant_id: String, email: String }
///
/// struct UserMapper;
///
/// impl Mapper for UserMapper {
///     type Entity = User;
///     const ENTITY_TYPE: &'static str = "User";
///     const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk");
///     const UNIQUE: &'static [Unique] = &[Unique::new("email", &["tenant_id", "email"])];
/// #   fn after_to_item(u: &User, item: &mut dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
/// #       item.put_str("pk", format!("USER#{}", u.id));
/// #       item.put_str("sk", "USER");
/// #       Ok(())
/// #   }
/// }
/// assert_eq!(UserMapper::UNIQUE[0].fields, ["tenant_id", "email"]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Unique {
    /// The constraint's name: part of each sentinel's key, and named by a
    /// violation.
    pub name: &'static str,
    /// The entity's fields whose values, together, are unique.
    pub fields: &'static [&'static str],
}

impl Unique {
    /// A constraint named `name` on `fields`.
    ///
    /// ```
    /// const EMAIL: dynamodb_mapper::Unique = dynamodb_mapper::Unique::new("email", &["email"]);
    /// assert_eq!(EMAIL.name, "email");
    /// ```
    #[must_use]
    pub const fn new(name: &'static str, fields: &'static [&'static str]) -> Unique {
        Unique { name, fields }
    }
}
