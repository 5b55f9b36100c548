//! The table layout mappers write into: key attributes, GSIs, discriminator,
//! TTL and version attribute names.
//!
//! - `mod.rs`: [`TableSchema`], built in `const` context, and what it says.
//! - `index.rs`: [`ScalarType`], [`KeyAttribute`], [`GlobalSecondaryIndex`].
//! - `layout.rs`: mapper output checked against the layout; primary keys.
//! - `problems.rs`: the layout itself checked (index key counts, names,
//!   one type per attribute).
//! - `definition.rs`: the layout as the SDK's `CreateTable` and
//!   `UpdateTimeToLive` requests ([`TableDefinition`]).
//! - `json.rs`: the small JSON writer of the exported documents.
//! - `export.rs`: the same requests as JSON documents for infrastructure
//!   tools, and the table as a CloudFormation resource and a Terraform
//!   resource (for a registry's design exports).

mod definition;
mod export;
mod index;
pub(crate) mod json;
mod layout;
mod problems;

pub use definition::TableDefinition;
pub(crate) use index::IndexProjection;
pub(crate) use index::MAX_INDEX_KEY_ATTRIBUTES;
pub use index::{GlobalSecondaryIndex, KeyAttribute, ScalarType};
pub(crate) use layout::{KeyNames, KeyValues};
pub(crate) use layout::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};

use crate::describe::write_key_part;
use crate::item::Item;

/// The layout of a table: what every mapper writing into it must agree on.
///
/// Built in a `const` so mappers can share it at no cost. By default the
/// partition key is `pk` (string), there is no sort key, no index, the
/// discriminator attribute is `entityType`, and there is no TTL or version
/// attribute.
///
/// ```
/// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
///
/// const APP_TABLE: TableSchema = TableSchema::new("pk")
///     .sort_key("sk")
///     .indexes(&[
///         GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk"),
///         GlobalSecondaryIndex::new("GSI2", "gsi2pk").sort_key("gsi2sk"),
///     ])
///     .ttl("ttl");
///
/// assert_eq!(APP_TABLE.discriminator, Some("entityType"));
/// assert_eq!(APP_TABLE.indexes[1].name, "GSI2");
/// ```
///
/// The fields say what was declared; the builder methods of the same names
/// set them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct TableSchema {
    /// The partition key attribute.
    pub partition_key: KeyAttribute,
    /// The sort key attribute, if any.
    pub sort_key: Option<KeyAttribute>,
    /// The global secondary indexes.
    pub indexes: &'static [GlobalSecondaryIndex],
    /// The discriminator attribute name, or `None` when switched off.
    pub discriminator: Option<&'static str>,
    /// The TTL attribute name, if any.
    pub ttl: Option<&'static str>,
    /// The version attribute name, if any.
    pub version: Option<&'static str>,
    /// The attribute that holds an item's shape version, if any
    /// ([`Mapper::UPGRADES`](crate::Mapper::UPGRADES)).
    pub shape: Option<&'static str>,
}

/// The default discriminator attribute name.
const DEFAULT_DISCRIMINATOR: &str = "entityType";

impl TableSchema {
    /// A table whose partition key is the string attribute `partition_key`.
    ///
    /// ```
    /// let t = dynamodb_mapper::TableSchema::new("pk");
    /// assert_eq!(t.partition_key.name, "pk");
    /// assert!(t.sort_key.is_none());
    /// ```
    #[must_use]
    pub const fn new(partition_key: &'static str) -> Self {
        TableSchema {
            partition_key: KeyAttribute::new(partition_key),
            sort_key: None,
            indexes: &[],
            discriminator: Some(DEFAULT_DISCRIMINATOR),
            ttl: None,
            version: None,
            shape: None,
        }
    }

    /// Sets the partition key's type.
    ///
    /// ```
    /// use dynamodb_mapper::{ScalarType, TableSchema};
    /// let t = TableSchema::new("id").partition_key_type(ScalarType::N);
    /// assert_eq!(t.partition_key.scalar_type, ScalarType::N);
    /// ```
    #[must_use]
    pub const fn partition_key_type(mut self, scalar_type: ScalarType) -> Self {
        self.partition_key.scalar_type = scalar_type;
        self
    }

    /// Adds a string sort key.
    ///
    /// ```
    /// let t = dynamodb_mapper::TableSchema::new("pk").sort_key("sk");
    /// assert_eq!(t.sort_key.unwrap().name, "sk");
    /// ```
    #[must_use]
    pub const fn sort_key(mut self, name: &'static str) -> Self {
        self.sort_key = Some(KeyAttribute::new(name));
        self
    }

    /// Adds a sort key of the given type.
    ///
    /// ```
    /// use dynamodb_mapper::{ScalarType, TableSchema};
    /// let t = TableSchema::new("pk").typed_sort_key("at", ScalarType::N);
    /// assert_eq!(t.sort_key.unwrap().scalar_type, ScalarType::N);
    /// ```
    #[must_use]
    pub const fn typed_sort_key(mut self, name: &'static str, scalar_type: ScalarType) -> Self {
        self.sort_key = Some(KeyAttribute::typed(name, scalar_type));
        self
    }

    /// Sets the global secondary indexes.
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk").indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk")]);
    /// assert!(T.definition("T").create_table_json().contains(r#""IndexName": "GSI1""#));
    /// ```
    #[must_use]
    pub const fn indexes(mut self, indexes: &'static [GlobalSecondaryIndex]) -> Self {
        self.indexes = indexes;
        self
    }

    /// Names the discriminator attribute (default `entityType`).
    ///
    /// ```
    /// let t = dynamodb_mapper::TableSchema::new("pk").discriminator("_type");
    /// assert_eq!(t.discriminator, Some("_type"));
    /// ```
    #[must_use]
    pub const fn discriminator(mut self, name: &'static str) -> Self {
        self.discriminator = Some(name);
        self
    }

    /// Writes and checks no discriminator: for a table whose keys already
    /// separate entity types.
    ///
    /// ```
    /// let t = dynamodb_mapper::TableSchema::new("pk").without_discriminator();
    /// assert_eq!(t.discriminator, None);
    /// ```
    #[must_use]
    pub const fn without_discriminator(mut self) -> Self {
        self.discriminator = None;
        self
    }

    /// Names the TTL attribute (a top-level Number of epoch seconds).
    ///
    /// ```
    /// let t = dynamodb_mapper::TableSchema::new("pk").ttl("expiresAt");
    /// assert_eq!(t.ttl, Some("expiresAt"));
    /// ```
    #[must_use]
    pub const fn ttl(mut self, name: &'static str) -> Self {
        self.ttl = Some(name);
        self
    }

    /// Names the version attribute used for optimistic locking (a Number).
    ///
    /// ```
    /// let t = dynamodb_mapper::TableSchema::new("pk").version("version");
    /// assert_eq!(t.version, Some("version"));
    /// ```
    #[must_use]
    pub const fn version(mut self, name: &'static str) -> Self {
        self.version = Some(name);
        self
    }

    /// Names the attribute that holds an item's shape version (a Number),
    /// written by the mappers that declare
    /// [`UPGRADES`](crate::Mapper::UPGRADES) and read to upgrade older items.
    ///
    /// ```
    /// let t = dynamodb_mapper::TableSchema::new("pk").shape("shapeVersion");
    /// assert_eq!(t.shape, Some("shapeVersion"));
    /// ```
    #[must_use]
    pub const fn shape(mut self, name: &'static str) -> Self {
        self.shape = Some(name);
        self
    }

    /// The index called `name`.
    #[must_use]
    pub(crate) fn index(&self, name: &str) -> Option<&'static GlobalSecondaryIndex> {
        self.indexes.iter().find(|i| i.name == name)
    }

    /// Whether `name` is an attribute the table layout owns: a table or index
    /// key, the discriminator, the TTL or the version attribute.
    #[cfg(test)]
    pub(crate) fn owns(&self, name: &str) -> bool {
        self.partition_key.name == name
            || self.sort_key.is_some_and(|k| k.name == name)
            || self.discriminator == Some(name)
            || self.ttl == Some(name)
            || self.version == Some(name)
            || self.shape == Some(name)
            || self
                .indexes
                .iter()
                .any(|i| i.key_attributes().any(|k| k.name == name))
    }

    /// At most how many attributes the layout adds to an item: its key
    /// attributes (counted once per index that names them), discriminator,
    /// TTL and version. Room reserved in a new item for them.
    pub(crate) fn owned_attribute_bound(&self) -> usize {
        let indexes: usize = self
            .indexes
            .iter()
            .map(|i| i.key_attributes().count())
            .sum();
        1 + usize::from(self.sort_key.is_some())
            + usize::from(self.discriminator.is_some())
            + usize::from(self.ttl.is_some())
            + usize::from(self.version.is_some())
            + usize::from(self.shape.is_some())
            + indexes
    }

    /// Every key attribute of the table and its indexes, each name once.
    pub(crate) fn key_attributes(&self) -> Vec<KeyAttribute> {
        let mut out: Vec<KeyAttribute> = Vec::new();
        let all = std::iter::once(self.partition_key)
            .chain(self.sort_key)
            .chain(
                self.indexes
                    .iter()
                    .flat_map(GlobalSecondaryIndex::key_attributes),
            );
        for k in all {
            if !out.iter().any(|o| o.name == k.name) {
                out.push(k);
            }
        }
        out
    }

    /// The primary key of `item` rendered for messages: the table's key
    /// attributes present in the item, partition key first, as
    /// `pk="CUSTOMER#C1", sk="METADATA"` (strings quoted, numbers as they are,
    /// binaries as `<n bytes>`, a value of another type by its type). Empty
    /// when the item holds neither key attribute. Long values are cut.
    pub(crate) fn render_key(&self, item: &Item) -> String {
        let pk = self.partition_key.name;
        let sk = self.sort_key.map(|k| k.name);
        let mut out = String::new();
        for name in std::iter::once(pk).chain(sk) {
            let Some(value) = item.get(name) else {
                continue;
            };
            if !out.is_empty() {
                out.push_str(", ");
            }
            write_key_part(&mut out, name, value);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::AttributeValue;

    use super::*;

    /// The layout the schema's tests share.
    pub(super) const T: TableSchema = TableSchema::new("pk")
        .sort_key("sk")
        .indexes(&[
            GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk"),
            GlobalSecondaryIndex::new("GSI3", "gsi3pk"),
        ])
        .ttl("ttl")
        .version("version");

    #[test]
    fn owned_attributes() {
        for name in [
            "pk",
            "sk",
            "gsi1pk",
            "gsi1sk",
            "gsi3pk",
            "ttl",
            "version",
            "entityType",
        ] {
            assert!(T.owns(name), "{name}");
        }
        assert!(!T.owns("gsi2pk"));
        assert!(!T.without_discriminator().owns("entityType"));
    }

    #[test]
    fn keys_are_described_for_messages() {
        const T: TableSchema = TableSchema::new("pk").sort_key("sk");
        let item = Item::from([
            ("sk".to_string(), AttributeValue::N("7".into())),
            (
                "pk".to_string(),
                AttributeValue::S("CUSTOMER#\"C1\"".into()),
            ),
            ("other".to_string(), AttributeValue::S("x".into())),
        ]);
        assert_eq!(T.render_key(&item), r#"pk="CUSTOMER#\"C1\"", sk=7"#);
        let binary = Item::from([(
            "pk".to_string(),
            AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(vec![0; 3])),
        )]);
        assert_eq!(T.render_key(&binary), "pk=<3 bytes>");
        let odd = Item::from([("sk".to_string(), AttributeValue::Bool(true))]);
        assert_eq!(T.render_key(&odd), "sk=<a boolean (BOOL)>");
        assert_eq!(T.render_key(&Item::new()), "");
        let long = Item::from([("pk".to_string(), AttributeValue::S("x".repeat(100)))]);
        assert_eq!(T.render_key(&long), format!("pk={:?}…", "x".repeat(64)));
        const N: TableSchema = TableSchema::new("id").partition_key_type(ScalarType::N);
        let item = Item::from([("id".to_string(), AttributeValue::N("42".into()))]);
        assert_eq!(N.render_key(&item), "id=42");
    }
}
