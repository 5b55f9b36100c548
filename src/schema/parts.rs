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
    pub(super) fn sdk(self) -> ScalarAttributeType {
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
    /// The attributes the index holds besides the keys ([`IndexProjection`]).
    pub projection: IndexProjection,
}

/// Which attributes a global secondary index holds: what its queries can
/// return. Read a `KeysOnly` or `Include` index into a smaller type with
/// [`MapperExt::from_projected`](crate::MapperExt::from_projected).
///
/// ```
/// use dynamodb_mapper::{GlobalSecondaryIndex, IndexProjection};
/// const GSI: GlobalSecondaryIndex = GlobalSecondaryIndex::new("ByStatus", "status").include(&["total"]);
/// assert_eq!(GSI.projection, IndexProjection::Include(&["total"]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IndexProjection {
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
    /// let gsi = dynamodb_mapper::GlobalSecondaryIndex::new("ByEmail", "email");
    /// assert!(gsi.sort_key.is_none());
    /// ```
    #[must_use]
    pub const fn new(name: &'static str, partition_key: &'static str) -> Self {
        GlobalSecondaryIndex {
            name,
            partition_key: KeyAttribute::new(partition_key),
            sort_key: None,
            projection: IndexProjection::All,
        }
    }

    /// The same index holding the keys only (`KEYS_ONLY`).
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, IndexProjection};
    /// let gsi = GlobalSecondaryIndex::new("GSI1", "gsi1pk").keys_only();
    /// assert_eq!(gsi.projection, IndexProjection::KeysOnly);
    /// ```
    #[must_use]
    pub const fn keys_only(mut self) -> Self {
        self.projection = IndexProjection::KeysOnly;
        self
    }

    /// The same index holding the keys and `attributes` (`INCLUDE`).
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, IndexProjection};
    /// let gsi = GlobalSecondaryIndex::new("GSI1", "gsi1pk").include(&["status", "total"]);
    /// assert_eq!(gsi.projection, IndexProjection::Include(&["status", "total"]));
    /// ```
    #[must_use]
    pub const fn include(mut self, attributes: &'static [&'static str]) -> Self {
        self.projection = IndexProjection::Include(attributes);
        self
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
