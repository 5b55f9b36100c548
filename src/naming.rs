//! Naming conventions for top-level attribute names.

use std::borrow::Cow;

use heck::{ToKebabCase, ToLowerCamelCase, ToSnakeCase, ToUpperCamelCase};

/// How a mapper names the top-level attributes of its entity's fields.
///
/// The domain struct keeps its Rust names; the mapper renames on write and maps
/// back on read. Nested maps keep the names serde gives them.
///
/// ```
/// use dynamodb_mapper::NamingConvention;
///
/// assert_eq!(NamingConvention::CamelCase.apply("customer_id"), "customerId");
/// assert_eq!(NamingConvention::PascalCase.apply("customer_id"), "CustomerId");
/// assert_eq!(NamingConvention::KebabCase.apply("customer_id"), "customer-id");
/// assert_eq!(NamingConvention::SnakeCase.apply("customerId"), "customer_id");
/// assert_eq!(NamingConvention::AsIs.apply("customer_id"), "customer_id");
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
    ///
    /// ```
    /// use dynamodb_mapper::NamingConvention;
    ///
    /// assert_eq!(NamingConvention::CamelCase.apply("created_at"), "createdAt");
    /// ```
    #[must_use]
    pub fn apply<'a>(&self, name: &'a str) -> Cow<'a, str> {
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
