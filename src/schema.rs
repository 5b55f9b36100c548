//! The table layout mappers write into: key attributes, GSIs, discriminator,
//! TTL and version attribute names. Checks mapper output against it and
//! produces the `CreateTable` request for tests and examples.

use aws_sdk_dynamodb::client::Client;
use aws_sdk_dynamodb::operation::create_table::builders::CreateTableFluentBuilder;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex as SdkGsi,
    KeySchemaElement, KeyType, Projection, ProjectionType, ScalarAttributeType,
};

use crate::error::{Error, Result, write_key_part};
use crate::item::{Item, parse_number, type_name};

/// Maximum partition key size in bytes.
///
/// ```
/// assert_eq!(dynamodb_mapper::MAX_PARTITION_KEY_BYTES, 2048);
/// ```
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;

/// Maximum sort key size in bytes.
///
/// ```
/// assert_eq!(dynamodb_mapper::MAX_SORT_KEY_BYTES, 1024);
/// ```
pub const MAX_SORT_KEY_BYTES: usize = 1024;

/// The scalar type of a key attribute.
///
/// ```
/// use dynamodb_mapper::ScalarType;
///
/// assert_eq!(ScalarType::default(), ScalarType::S);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ScalarType {
    /// String.
    #[default]
    S,
    /// Number.
    N,
    /// Binary.
    B,
}

impl ScalarType {
    fn sdk(self) -> ScalarAttributeType {
        match self {
            ScalarType::S => ScalarAttributeType::S,
            ScalarType::N => ScalarAttributeType::N,
            ScalarType::B => ScalarAttributeType::B,
        }
    }

    /// The type as messages name it, e.g. `a string (S)`.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            ScalarType::S => "a string (S)",
            ScalarType::N => "a number (N)",
            ScalarType::B => "a binary (B)",
        }
    }
}

/// A key attribute: its name and scalar type.
///
/// ```
/// use dynamodb_mapper::{KeyAttribute, ScalarType};
///
/// const PK: KeyAttribute = KeyAttribute::new("pk");
/// assert_eq!(PK.name, "pk");
/// assert_eq!(PK.scalar_type, ScalarType::S);
/// assert_eq!(KeyAttribute::typed("n", ScalarType::N).scalar_type, ScalarType::N);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyAttribute {
    /// Attribute name.
    pub name: &'static str,
    /// Scalar type.
    pub scalar_type: ScalarType,
}

impl KeyAttribute {
    /// A string key attribute.
    ///
    /// ```
    /// let k = dynamodb_mapper::KeyAttribute::new("sk");
    /// assert_eq!(k.name, "sk");
    /// ```
    #[must_use]
    pub const fn new(name: &'static str) -> Self {
        KeyAttribute {
            name,
            scalar_type: ScalarType::S,
        }
    }

    /// A key attribute of the given type.
    ///
    /// ```
    /// use dynamodb_mapper::{KeyAttribute, ScalarType};
    /// let k = KeyAttribute::typed("createdAt", ScalarType::N);
    /// assert_eq!(k.scalar_type, ScalarType::N);
    /// ```
    #[must_use]
    pub const fn typed(name: &'static str, scalar_type: ScalarType) -> Self {
        KeyAttribute { name, scalar_type }
    }
}

/// A global secondary index: name, partition key and optional sort key.
///
/// ```
/// use dynamodb_mapper::GlobalSecondaryIndex;
///
/// const GSI1: GlobalSecondaryIndex = GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk");
/// assert_eq!(GSI1.name, "GSI1");
/// assert_eq!(GSI1.sort_key.unwrap().name, "gsi1sk");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GlobalSecondaryIndex {
    /// Index name.
    pub name: &'static str,
    /// Partition key attribute.
    pub partition_key: KeyAttribute,
    /// Sort key attribute, if the index has one.
    pub sort_key: Option<KeyAttribute>,
}

impl GlobalSecondaryIndex {
    /// An index with a string partition key and no sort key.
    ///
    /// ```
    /// let gsi = dynamodb_mapper::GlobalSecondaryIndex::new("ByEmail", "email");
    /// assert!(gsi.sort_key.is_none());
    /// ```
    #[must_use]
    pub const fn new(name: &'static str, partition_key: &'static str) -> Self {
        GlobalSecondaryIndex {
            name,
            partition_key: KeyAttribute::new(partition_key),
            sort_key: None,
        }
    }

    /// The same index with a string sort key.
    ///
    /// ```
    /// let gsi = dynamodb_mapper::GlobalSecondaryIndex::new("GSI2", "gsi2pk").sort_key("gsi2sk");
    /// assert!(gsi.sort_key.is_some());
    /// ```
    #[must_use]
    pub const fn sort_key(mut self, name: &'static str) -> Self {
        self.sort_key = Some(KeyAttribute::new(name));
        self
    }

    /// The same index with key attributes of the given types.
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, KeyAttribute, ScalarType};
    /// let gsi = GlobalSecondaryIndex::new("ByRating", "product")
    ///     .keys(KeyAttribute::new("product"), Some(KeyAttribute::typed("rating", ScalarType::N)));
    /// assert_eq!(gsi.sort_key.unwrap().scalar_type, ScalarType::N);
    /// ```
    #[must_use]
    pub const fn keys(
        mut self,
        partition_key: KeyAttribute,
        sort_key: Option<KeyAttribute>,
    ) -> Self {
        self.partition_key = partition_key;
        self.sort_key = sort_key;
        self
    }
}

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
/// assert_eq!(APP_TABLE.discriminator_attribute(), Some("entityType"));
/// assert!(APP_TABLE.owns("gsi2sk"));
/// assert!(!APP_TABLE.owns("email"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TableSchema {
    partition_key: KeyAttribute,
    sort_key: Option<KeyAttribute>,
    indexes: &'static [GlobalSecondaryIndex],
    discriminator: Option<&'static str>,
    ttl: Option<&'static str>,
    version: Option<&'static str>,
}

/// The default discriminator attribute name.
///
/// ```
/// assert_eq!(dynamodb_mapper::DEFAULT_DISCRIMINATOR, "entityType");
/// ```
pub const DEFAULT_DISCRIMINATOR: &str = "entityType";

impl TableSchema {
    /// A table whose partition key is the string attribute `partition_key`.
    ///
    /// ```
    /// let t = dynamodb_mapper::TableSchema::new("pk");
    /// assert_eq!(t.partition_key_attribute().name, "pk");
    /// assert!(t.sort_key_attribute().is_none());
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
        }
    }

    /// Sets the partition key's type.
    ///
    /// ```
    /// use dynamodb_mapper::{ScalarType, TableSchema};
    /// let t = TableSchema::new("id").partition_key_type(ScalarType::N);
    /// assert_eq!(t.partition_key_attribute().scalar_type, ScalarType::N);
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
    /// assert_eq!(t.sort_key_attribute().unwrap().name, "sk");
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
    /// assert_eq!(t.sort_key_attribute().unwrap().scalar_type, ScalarType::N);
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
    /// assert!(T.index("GSI1").is_some());
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
    /// assert_eq!(t.discriminator_attribute(), Some("_type"));
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
    /// assert_eq!(t.discriminator_attribute(), None);
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
    /// assert_eq!(t.ttl_attribute(), Some("expiresAt"));
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
    /// assert_eq!(t.version_attribute(), Some("version"));
    /// ```
    #[must_use]
    pub const fn version(mut self, name: &'static str) -> Self {
        self.version = Some(name);
        self
    }

    /// The partition key attribute.
    ///
    /// ```
    /// assert_eq!(dynamodb_mapper::TableSchema::new("pk").partition_key_attribute().name, "pk");
    /// ```
    #[must_use]
    pub const fn partition_key_attribute(&self) -> KeyAttribute {
        self.partition_key
    }

    /// The sort key attribute, if any.
    ///
    /// ```
    /// assert!(dynamodb_mapper::TableSchema::new("pk").sort_key_attribute().is_none());
    /// ```
    #[must_use]
    pub const fn sort_key_attribute(&self) -> Option<KeyAttribute> {
        self.sort_key
    }

    /// The global secondary indexes.
    ///
    /// ```
    /// assert!(dynamodb_mapper::TableSchema::new("pk").global_indexes().is_empty());
    /// ```
    #[must_use]
    pub const fn global_indexes(&self) -> &'static [GlobalSecondaryIndex] {
        self.indexes
    }

    /// The index called `name`.
    ///
    /// ```
    /// assert!(dynamodb_mapper::TableSchema::new("pk").index("GSI1").is_none());
    /// ```
    #[must_use]
    pub fn index(&self, name: &str) -> Option<&'static GlobalSecondaryIndex> {
        self.indexes.iter().find(|i| i.name == name)
    }

    /// The discriminator attribute name, or `None` when switched off.
    ///
    /// ```
    /// assert_eq!(dynamodb_mapper::TableSchema::new("pk").discriminator_attribute(), Some("entityType"));
    /// ```
    #[must_use]
    pub const fn discriminator_attribute(&self) -> Option<&'static str> {
        self.discriminator
    }

    /// The TTL attribute name, if any.
    ///
    /// ```
    /// assert_eq!(dynamodb_mapper::TableSchema::new("pk").ttl_attribute(), None);
    /// ```
    #[must_use]
    pub const fn ttl_attribute(&self) -> Option<&'static str> {
        self.ttl
    }

    /// The version attribute name, if any.
    ///
    /// ```
    /// assert_eq!(dynamodb_mapper::TableSchema::new("pk").version_attribute(), None);
    /// ```
    #[must_use]
    pub const fn version_attribute(&self) -> Option<&'static str> {
        self.version
    }

    /// Whether `name` is an attribute the table layout owns: a table or index
    /// key, the discriminator, the TTL or the version attribute.
    ///
    /// ```
    /// let t = dynamodb_mapper::TableSchema::new("pk").sort_key("sk").ttl("ttl");
    /// assert!(t.owns("sk") && t.owns("ttl") && t.owns("entityType"));
    /// assert!(!t.owns("name"));
    /// ```
    #[must_use]
    pub fn owns(&self, name: &str) -> bool {
        self.partition_key.name == name
            || self.sort_key.is_some_and(|k| k.name == name)
            || self.discriminator == Some(name)
            || self.ttl == Some(name)
            || self.version == Some(name)
            || self
                .indexes
                .iter()
                .any(|i| i.partition_key.name == name || i.sort_key.is_some_and(|k| k.name == name))
    }

    /// Every key attribute of the table and its indexes, each name once.
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk").sort_key("sk")
    ///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "sk").sort_key("pk")]);
    /// assert_eq!(T.key_attributes().len(), 2);
    /// ```
    #[must_use]
    pub fn key_attributes(&self) -> Vec<KeyAttribute> {
        let mut out: Vec<KeyAttribute> = Vec::new();
        let all = std::iter::once(self.partition_key)
            .chain(self.sort_key)
            .chain(
                self.indexes
                    .iter()
                    .flat_map(|i| std::iter::once(i.partition_key).chain(i.sort_key)),
            );
        for k in all {
            if !out.iter().any(|o| o.name == k.name) {
                out.push(k);
            }
        }
        out
    }

    /// Checks an item against the layout: table keys present with the right
    /// type, non-empty and within size limits; each index's keys both present
    /// or both absent, and valid when present; TTL and version numbers.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) for a key
    /// problem, [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) for
    /// a bad TTL or version attribute.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Item, TableSchema};
    ///
    /// let t = TableSchema::new("pk").sort_key("sk");
    /// let mut item = Item::from([("pk".to_string(), AttributeValue::S("A".into()))]);
    /// assert_eq!(t.check_item(&item).unwrap_err().to_string(), "key attribute `sk` is missing");
    /// item.insert("sk".into(), AttributeValue::S("B".into()));
    /// assert!(t.check_item(&item).is_ok());
    /// ```
    pub fn check_item(&self, item: &Item) -> Result<()> {
        check_key(item, self.partition_key, MAX_PARTITION_KEY_BYTES, "", true)?;
        if let Some(sk) = self.sort_key {
            check_key(item, sk, MAX_SORT_KEY_BYTES, "", true)?;
        }
        for index in self.indexes {
            let pk_present = item.contains_key(index.partition_key.name);
            if let Some(sk) = index.sort_key {
                let sk_present = item.contains_key(sk.name);
                if pk_present != sk_present {
                    let (has, lacks) = if pk_present {
                        (index.partition_key.name, sk.name)
                    } else {
                        (sk.name, index.partition_key.name)
                    };
                    return Err(Error::invalid_key(
                        lacks,
                        format!(
                            "of index {} is missing while `{has}` is present; write both or neither",
                            index.name
                        ),
                    ));
                }
                if sk_present {
                    check_key(item, sk, MAX_SORT_KEY_BYTES, index.name, false)?;
                }
            }
            if pk_present {
                check_key(
                    item,
                    index.partition_key,
                    MAX_PARTITION_KEY_BYTES,
                    index.name,
                    false,
                )?;
            }
        }
        for name in self.ttl.iter().chain(self.version.iter()) {
            match item.get(*name) {
                None | Some(AttributeValue::N(_)) => {}
                Some(other) => {
                    return Err(Error::invalid_value(
                        *name,
                        format!("is {}, expected a number (N)", type_name(other)),
                    ));
                }
            }
            if let Some(AttributeValue::N(n)) = item.get(*name)
                && n.parse::<u64>().is_err()
            {
                return Err(Error::invalid_value(
                    *name,
                    format!("is {n}, expected a whole non-negative number"),
                ));
            }
        }
        Ok(())
    }

    /// The primary key of an item: its table key attributes, checked.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) when a key
    /// attribute is missing or invalid.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Item, TableSchema};
    ///
    /// let t = TableSchema::new("pk").sort_key("sk");
    /// let item = Item::from([
    ///     ("pk".to_string(), AttributeValue::S("A".into())),
    ///     ("sk".to_string(), AttributeValue::S("B".into())),
    ///     ("name".to_string(), AttributeValue::S("Ada".into())),
    /// ]);
    /// assert_eq!(t.key_of(&item)?.len(), 2);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn key_of(&self, item: &Item) -> Result<Item> {
        let mut key = Item::with_capacity(2);
        for (attr, limit) in std::iter::once((self.partition_key, MAX_PARTITION_KEY_BYTES))
            .chain(self.sort_key.map(|k| (k, MAX_SORT_KEY_BYTES)))
        {
            check_key(item, attr, limit, "", true)?;
            if let Some(v) = item.get(attr.name) {
                key.insert(attr.name.to_owned(), v.clone());
            }
        }
        Ok(key)
    }

    /// A primary key item from key values, checked against the layout.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) when a value has
    /// the wrong type, is empty or too long, or when a sort key is given for a
    /// table without one (or missing for a table with one).
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::TableSchema;
    ///
    /// let t = TableSchema::new("pk").sort_key("sk");
    /// let key = t.key(
    ///     AttributeValue::S("CUSTOMER#C1".into()),
    ///     Some(AttributeValue::S("METADATA".into())),
    /// )?;
    /// assert_eq!(key["sk"], AttributeValue::S("METADATA".into()));
    /// assert!(t.key(AttributeValue::S("CUSTOMER#C1".into()), None).is_err());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn key(&self, partition: AttributeValue, sort: Option<AttributeValue>) -> Result<Item> {
        let mut item = Item::with_capacity(2);
        item.insert(self.partition_key.name.to_owned(), partition);
        match (self.sort_key, sort) {
            (Some(sk), Some(v)) => {
                item.insert(sk.name.to_owned(), v);
            }
            (None, Some(_)) => {
                return Err(Error::invalid_key(
                    "(sort key)",
                    "was given, but the table has no sort key",
                ));
            }
            _ => {}
        }
        self.key_of(&item)
    }

    /// A primary key item from string values, the common single-table case.
    ///
    /// # Errors
    /// As [`TableSchema::key`].
    ///
    /// ```
    /// let t = dynamodb_mapper::TableSchema::new("pk").sort_key("sk");
    /// let key = t.string_key("CUSTOMER#C1", "METADATA")?;
    /// assert_eq!(key.len(), 2);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn string_key(&self, partition: &str, sort: &str) -> Result<Item> {
        self.key(
            AttributeValue::S(partition.to_owned()),
            Some(AttributeValue::S(sort.to_owned())),
        )
    }

    /// A `CreateTable` request for this layout, on-demand billing, every index
    /// projecting all attributes. Add anything else with the SDK's builder.
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
    /// # let client = dynamodb_mapper::doc_support::client();
    ///
    /// const T: TableSchema = TableSchema::new("pk").sort_key("sk")
    ///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);
    /// let request = T.create_table(&client, "AppTable");
    /// let input = request.as_input();
    /// assert_eq!(input.get_table_name().as_deref(), Some("AppTable"));
    /// assert_eq!(input.get_attribute_definitions().as_ref().unwrap().len(), 4);
    /// assert_eq!(input.get_global_secondary_indexes().as_ref().unwrap().len(), 1);
    /// // request.send().await?;
    /// ```
    #[must_use]
    // The SDK's builders return `Result` for required fields; every required
    // field is set unconditionally here, so `build` cannot fail.
    #[allow(clippy::expect_used)]
    pub fn create_table(&self, client: &Client, table_name: &str) -> CreateTableFluentBuilder {
        let mut request = client
            .create_table()
            .table_name(table_name)
            .billing_mode(BillingMode::PayPerRequest)
            .set_key_schema(Some(key_schema(self.partition_key, self.sort_key)));
        for attr in self.key_attributes() {
            request = request.attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(attr.name)
                    .attribute_type(attr.scalar_type.sdk())
                    .build()
                    .expect("attribute definition: both required fields are set"), // ok: name and type always set
            );
        }
        for index in self.indexes {
            request = request.global_secondary_indexes(
                SdkGsi::builder()
                    .index_name(index.name)
                    .set_key_schema(Some(key_schema(index.partition_key, index.sort_key)))
                    .projection(
                        Projection::builder()
                            .projection_type(ProjectionType::All)
                            .build(),
                    )
                    .build()
                    .expect("gsi: name and key schema are set"), // ok: required fields always set
            );
        }
        request
    }

    /// The primary key of `item` rendered for messages: the table's key
    /// attributes present in the item, partition key first, as
    /// `pk="CUSTOMER#C1", sk="METADATA"` (strings quoted, numbers as they are,
    /// binaries as `<n bytes>`, a value of another type by its type). Empty
    /// when the item holds neither key attribute. Long values are cut.
    pub(crate) fn render_key(&self, item: &Item) -> String {
        let pk = self.partition_key_attribute().name;
        let sk = self.sort_key_attribute().map(|k| k.name);
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

#[allow(clippy::expect_used)] // required fields always set, see `create_table`
fn key_schema(pk: KeyAttribute, sk: Option<KeyAttribute>) -> Vec<KeySchemaElement> {
    std::iter::once((pk, KeyType::Hash))
        .chain(sk.map(|k| (k, KeyType::Range)))
        .map(|(attr, key_type)| {
            KeySchemaElement::builder()
                .attribute_name(attr.name)
                .key_type(key_type)
                .build()
                .expect("key schema element: both required fields are set") // ok: always set
        })
        .collect()
}

fn check_key(
    item: &Item,
    attr: KeyAttribute,
    limit: usize,
    index: &str,
    required: bool,
) -> Result<()> {
    let of = if index.is_empty() {
        String::new()
    } else {
        format!("of index {index} ")
    };
    let Some(value) = item.get(attr.name) else {
        return if required {
            Err(Error::invalid_key(attr.name, format!("{of}is missing")))
        } else {
            Ok(())
        };
    };
    let len = match (attr.scalar_type, value) {
        (ScalarType::S, AttributeValue::S(s)) => s.len(),
        (ScalarType::B, AttributeValue::B(b)) => b.as_ref().len(),
        (ScalarType::N, AttributeValue::N(n)) => {
            parse_number(n)
                .map_err(|reason| Error::invalid_key(attr.name, format!("{of}{reason}")))?;
            n.len()
        }
        (expected, found) => {
            return Err(Error::invalid_key(
                attr.name,
                format!(
                    "{of}is {}, expected {}",
                    type_name(found),
                    expected.describe()
                ),
            ));
        }
    };
    if len == 0 {
        return Err(Error::invalid_key(
            attr.name,
            format!("{of}is empty; DynamoDB rejects empty key values"),
        ));
    }
    if len > limit {
        return Err(Error::invalid_key(
            attr.name,
            format!("{of}is {len} bytes, over the limit of {limit} bytes"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: TableSchema = TableSchema::new("pk")
        .sort_key("sk")
        .indexes(&[
            GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk"),
            GlobalSecondaryIndex::new("GSI3", "gsi3pk"),
        ])
        .ttl("ttl")
        .version("version");

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    fn base() -> Item {
        Item::from([("pk".into(), s("P")), ("sk".into(), s("S"))])
    }

    #[test]
    fn key_limits() {
        let mut item = base();
        item.insert("pk".into(), s(&"x".repeat(2048)));
        assert!(T.check_item(&item).is_ok());
        item.insert("pk".into(), s(&"x".repeat(2049)));
        assert_eq!(
            T.check_item(&item).unwrap_err().to_string(),
            "key attribute `pk` is 2049 bytes, over the limit of 2048 bytes"
        );
        let mut item = base();
        item.insert("sk".into(), s(&"é".repeat(512)));
        assert!(T.check_item(&item).is_ok());
        item.insert("sk".into(), s(&"é".repeat(513)));
        assert!(T.check_item(&item).is_err());
        let mut item = base();
        item.insert("sk".into(), s(""));
        assert_eq!(
            T.check_item(&item).unwrap_err().to_string(),
            "key attribute `sk` is empty; DynamoDB rejects empty key values"
        );
        item.insert("sk".into(), AttributeValue::N("1".into()));
        assert_eq!(
            T.check_item(&item).unwrap_err().to_string(),
            "key attribute `sk` is a number (N), expected a string (S)"
        );
    }

    #[test]
    fn gsi_pairs_and_values() {
        let mut item = base();
        item.insert("gsi1pk".into(), s("A"));
        assert_eq!(
            T.check_item(&item).unwrap_err().to_string(),
            "key attribute `gsi1sk` of index GSI1 is missing while `gsi1pk` is present; write both or neither"
        );
        item.insert("gsi1sk".into(), AttributeValue::Null(true));
        assert_eq!(
            T.check_item(&item).unwrap_err().to_string(),
            "key attribute `gsi1sk` of index GSI1 is null (NULL), expected a string (S)"
        );
        item.insert("gsi1sk".into(), s("B"));
        assert!(T.check_item(&item).is_ok());
        item.insert("gsi3pk".into(), s(""));
        assert!(T.check_item(&item).is_err());
        item.insert("gsi3pk".into(), s("C"));
        assert!(T.check_item(&item).is_ok());
    }

    #[test]
    fn ttl_and_version_must_be_whole_numbers() {
        let mut item = base();
        item.insert("ttl".into(), s("tomorrow"));
        assert_eq!(
            T.check_item(&item).unwrap_err().to_string(),
            "attribute `ttl` is a string (S), expected a number (N)"
        );
        item.insert("ttl".into(), AttributeValue::N("1.5".into()));
        assert!(T.check_item(&item).is_err());
        item.insert("ttl".into(), AttributeValue::N("1700000000".into()));
        item.insert("version".into(), AttributeValue::N("-1".into()));
        assert!(T.check_item(&item).is_err());
    }

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
    fn keys_from_values() {
        let t = TableSchema::new("id");
        assert!(t.key(s("a"), Some(s("b"))).is_err());
        assert_eq!(t.key(s("a"), None).unwrap().len(), 1);
        assert!(T.string_key("", "x").is_err());
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
