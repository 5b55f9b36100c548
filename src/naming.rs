//! Naming conventions for top-level attribute names.

use std::borrow::Cow;

use heck::{ToKebabCase, ToLowerCamelCase, ToSnakeCase, ToUpperCamelCase};

/// How a mapper names the top-level attributes of its entity's fields.
///
/// The domain struct keeps its Rust names; the mapper renames on write and maps
/// back on read. Nested maps keep the names serde gives them.
///
/// ```
/// use dynamodb_mapper::{IndexKeys, KeyPattern, Mapper, MapperExt, NamingConvention, TableSchema};
///
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Order { order_id: String, customer_id: String }
/// struct OrderMapper;
/// impl Mapper for OrderMapper {
///     type Entity = Order;
///     const ENTITY_TYPE: &'static str = "Order";
///     const SCHEMA: TableSchema = TableSchema::new("pk");
///     const NAMING: NamingConvention = NamingConvention::CamelCase; // or PascalCase, KebabCase, SnakeCase, AsIs
///     const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(KeyPattern::partition("ORDER#{order_id}"))];
/// }
/// let item = OrderMapper::to_item(&Order { order_id: "O1".into(), customer_id: "C1".into() })?;
/// assert!(item.contains_key("orderId") && item.contains_key("customerId"));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum NamingConvention {
    /// Names as serde produces them (the default).
    #[default]
    AsIs,
    /// `customerId`.
    CamelCase,
    /// `CustomerId`.
    PascalCase,
    /// `customer_id`.
    SnakeCase,
    /// `customer-id`.
    KebabCase,
}

impl NamingConvention {
    /// The stored attribute name for a field name.
    #[must_use]
    pub(crate) fn apply<'a>(&self, name: &'a str) -> Cow<'a, str> {
        match self {
            NamingConvention::AsIs => Cow::Borrowed(name),
            NamingConvention::CamelCase => Cow::Owned(name.to_lower_camel_case()),
            NamingConvention::PascalCase => Cow::Owned(name.to_upper_camel_case()),
            NamingConvention::SnakeCase => Cow::Owned(name.to_snake_case()),
            NamingConvention::KebabCase => Cow::Owned(name.to_kebab_case()),
        }
    }

    /// The convention's name as used in messages (`camelCase`, ...).
    #[must_use]
    pub(crate) fn name(&self) -> &'static str {
        match self {
            NamingConvention::AsIs => "as-is",
            NamingConvention::CamelCase => "camelCase",
            NamingConvention::PascalCase => "PascalCase",
            NamingConvention::SnakeCase => "snake_case",
            NamingConvention::KebabCase => "kebab-case",
        }
    }
}
