//! The parts a table layout is made of: key attributes with their scalar
//! types, and global secondary indexes.

use aws_sdk_dynamodb::types::ScalarAttributeType;

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
    pub(crate) fn sdk(self) -> ScalarAttributeType {
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

/// A global secondary index: name, key attributes and projection.
///
/// An index has one partition key attribute and at most one sort key
/// attribute, or (DynamoDB's multi-attribute keys, [`multi_attribute`])
/// up to four of each, every one a native typed attribute of the item.
///
/// [`multi_attribute`]: GlobalSecondaryIndex::multi_attribute
///
/// ```
/// use dynamodb_mapper::expr::{KeyCondition, attr};
/// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
///
/// const GSI1: GlobalSecondaryIndex = GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk");
/// assert_eq!(GSI1.name, "GSI1");
/// const T: TableSchema = TableSchema::new("pk").indexes(&[GSI1]);
/// let e = KeyCondition::new(T, "STATUS#open").on_index("GSI1").and(attr("gsi1sk").begins_with("2024")).build()?;
/// assert_eq!((e.names()["#k0"].as_str(), e.names()["#k1"].as_str()), ("gsi1pk", "gsi1sk"));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GlobalSecondaryIndex {
    /// Index name.
    pub name: &'static str,
    partition: Attributes,
    sort: Attributes,
    /// The attributes the index holds besides the keys.
    pub(crate) projection: IndexProjection,
}

/// The key attributes of one kind (partition or sort) of an index: none,
/// one, or a declared list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Attributes {
    None,
    One(KeyAttribute),
    Many(&'static [KeyAttribute]),
}

impl Attributes {
    fn as_slice(&self) -> &[KeyAttribute] {
        match self {
            Attributes::None => &[],
            Attributes::One(k) => std::slice::from_ref(k),
            Attributes::Many(list) => list,
        }
    }
}

/// The most key attributes of one kind (partition or sort) an index may
/// have.
pub(crate) const MAX_INDEX_KEY_ATTRIBUTES: usize = 4;

/// Which attributes a global secondary index holds: what its queries can
/// return ([`GlobalSecondaryIndex::keys_only`],
/// [`GlobalSecondaryIndex::include`]; all by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) enum IndexProjection {
    /// Every attribute of the item (the default).
    #[default]
    All,
    /// The table's and the index's key attributes only.
    KeysOnly,
    /// The keys and these attributes (as stored).
    Include(&'static [&'static str]),
}

impl GlobalSecondaryIndex {
    /// An index with a string partition key and no sort key.
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk").indexes(&[GlobalSecondaryIndex::new("ByEmail", "email")]);
    /// assert!(T.definition("T").create_table_json().contains(r#""IndexName": "ByEmail""#));
    /// ```
    #[must_use]
    pub const fn new(name: &'static str, partition_key: &'static str) -> Self {
        GlobalSecondaryIndex {
            name,
            partition: Attributes::One(KeyAttribute::new(partition_key)),
            sort: Attributes::None,
            projection: IndexProjection::All,
        }
    }

    /// The same index holding the keys only (`KEYS_ONLY`). Read such an
    /// index into a smaller type with
    /// [`MapperExt::from_projected`](crate::MapperExt::from_projected).
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk").indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").keys_only()]);
    /// assert!(T.definition("T").create_table_json().contains(r#""ProjectionType": "KEYS_ONLY""#));
    /// ```
    #[must_use]
    pub const fn keys_only(mut self) -> Self {
        self.projection = IndexProjection::KeysOnly;
        self
    }

    /// The same index holding the keys and `attributes` (`INCLUDE`), as
    /// stored.
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk")
    ///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").include(&["status", "total"])]);
    /// let json = T.definition("T").create_table_json();
    /// assert!(json.contains(r#""ProjectionType": "INCLUDE""#), "{json}");
    /// ```
    #[must_use]
    pub const fn include(mut self, attributes: &'static [&'static str]) -> Self {
        self.projection = IndexProjection::Include(attributes);
        self
    }

    /// The same index with a string sort key.
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk").indexes(&[GlobalSecondaryIndex::new("GSI2", "gsi2pk").sort_key("gsi2sk")]);
    /// assert!(T.definition("T").create_table_json().contains(r#""AttributeName": "gsi2sk""#));
    /// ```
    #[must_use]
    pub const fn sort_key(mut self, name: &'static str) -> Self {
        self.sort = Attributes::One(KeyAttribute::new(name));
        self
    }

    /// The same index with key attributes of the given types.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{KeyCondition, attr};
    /// use dynamodb_mapper::{GlobalSecondaryIndex, KeyAttribute, ScalarType, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk").indexes(&[GlobalSecondaryIndex::new("ByRating", "product")
    ///     .keys(KeyAttribute::new("product"), Some(KeyAttribute::typed("rating", ScalarType::N)))]);
    /// let by_rating = KeyCondition::new(T, "P1").on_index("ByRating");
    /// assert!(by_rating.clone().and(attr("rating").ge(4)).build().is_ok());
    /// let err = by_rating.and(attr("rating").ge("4")).build().unwrap_err();
    /// assert!(err.to_string().ends_with("is a string (S), expected a number (N)"), "{err}");
    /// ```
    #[must_use]
    pub const fn keys(
        mut self,
        partition_key: KeyAttribute,
        sort_key: Option<KeyAttribute>,
    ) -> Self {
        self.partition = Attributes::One(partition_key);
        self.sort = match sort_key {
            Some(k) => Attributes::One(k),
            None => Attributes::None,
        };
        self
    }

    /// An index with multi-attribute keys: up to four partition key
    /// attributes and up to four sort key attributes, each a typed attribute the item
    /// already holds (no concatenated key strings). Their order is the
    /// index's: a query gives every partition attribute by equality, and
    /// sort attributes from the left (see
    /// [`KeyCondition`](crate::expr::KeyCondition)).
    ///
    /// An item is in the index when it holds every key attribute. The
    /// attributes are usually fields other indexes share, so an item lacking
    /// a partition key attribute is simply not in the index (a sparse
    /// index), while one holding every partition key attribute but not every
    /// sort key attribute is refused by
    /// [`TableSchema::check_item`](crate::TableSchema::check_item) (DynamoDB
    /// would leave it out without a word). The counts and names are checked
    /// with the mapper's ([`MapperExt::check`](crate::MapperExt::check)) and
    /// when a registry is built.
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, KeyAttribute, ScalarType, TableSchema};
    ///
    /// const BY_REGION: GlobalSecondaryIndex = GlobalSecondaryIndex::multi_attribute(
    ///     "ByRegion",
    ///     &[KeyAttribute::new("tenant"), KeyAttribute::new("region")],
    ///     &[KeyAttribute::typed("placedAt", ScalarType::N), KeyAttribute::new("orderId")],
    /// );
    /// const T: TableSchema = TableSchema::new("pk").sort_key("sk").indexes(&[BY_REGION]);
    /// let json = T.definition("Orders").create_table_json();
    /// assert!(json.contains(r#""AttributeName": "region""#), "{json}");
    /// ```
    #[must_use]
    pub const fn multi_attribute(
        name: &'static str,
        partition_keys: &'static [KeyAttribute],
        sort_keys: &'static [KeyAttribute],
    ) -> Self {
        GlobalSecondaryIndex {
            name,
            partition: Attributes::Many(partition_keys),
            sort: Attributes::Many(sort_keys),
            projection: IndexProjection::All,
        }
    }

    /// The partition key attributes, in the index's order (one unless the
    /// index is [`multi_attribute`](Self::multi_attribute)).
    #[must_use]
    pub(crate) fn partition_keys(&self) -> &[KeyAttribute] {
        self.partition.as_slice()
    }

    /// The sort key attributes, in the index's order: empty for an index
    /// without a sort key.
    #[must_use]
    pub(crate) fn sort_keys(&self) -> &[KeyAttribute] {
        self.sort.as_slice()
    }

    /// Whether the index was declared with
    /// [`multi_attribute`](Self::multi_attribute): its key attributes are
    /// the item's own typed attributes, with that declaration's rules (an
    /// item without every partition key attribute is not in the index),
    /// however many there are on each side.
    #[must_use]
    pub(crate) fn is_multi_attribute(&self) -> bool {
        matches!(self.partition, Attributes::Many(_)) || matches!(self.sort, Attributes::Many(_))
    }

    /// The single partition key attribute and optional single sort key
    /// attribute of an index that is not multi-attribute; `None` for one
    /// that is. The key patterns of the keys issue render these.
    pub(crate) fn single_keys(&self) -> Option<(KeyAttribute, Option<KeyAttribute>)> {
        if self.is_multi_attribute() {
            return None;
        }
        match (self.partition_keys(), self.sort_keys()) {
            ([pk], []) => Some((*pk, None)),
            ([pk], [sk]) => Some((*pk, Some(*sk))),
            _ => None,
        }
    }

    /// Every key attribute, partition attributes first.
    pub(crate) fn key_attributes(&self) -> impl Iterator<Item = KeyAttribute> + '_ {
        self.partition_keys()
            .iter()
            .chain(self.sort_keys())
            .copied()
    }
}
