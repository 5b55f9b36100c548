//! What an error is: its [`ErrorKind`], and what it is about (entity type,
//! attribute, key), read the same way whatever the variant.

use super::Error;

/// What went wrong, as a value: the variants of [`Error`] without their data.
///
/// ```
/// use dynamodb_mapper::{Error, ErrorKind};
///
/// let err = Error::missing_attribute("pk");
/// assert_eq!(err.kind(), ErrorKind::MissingAttribute);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The discriminator attribute holds another entity type.
    DiscriminatorMismatch,
    /// The discriminator attribute is absent (or not a string).
    MissingDiscriminator,
    /// The entity could not be serialized into an item.
    Serialize,
    /// The item could not be deserialized into the entity.
    Deserialize,
    /// A key attribute is missing, has the wrong type, is empty or too long.
    InvalidKey,
    /// The item is larger than DynamoDB's 400 KB limit.
    ItemTooLarge,
    /// A value DynamoDB would reject (bad number, empty set, unknown type).
    InvalidValue,
    /// An attribute that must be present is absent.
    MissingAttribute,
    /// An attribute has another type than the one asked for.
    WrongType,
    /// A user hook vetoed the operation.
    Hook,
    /// An item's discriminator names an entity type no registered mapper reads.
    UnknownEntityType,
    /// Building a registry found problems in the table design.
    InvalidRegistry,
    /// An entity type or group asked for is not registered.
    NotRegistered,
    /// A discriminator filter cannot be built or applied.
    InvalidFilter,
    /// A compound read found too few or too many items of an entity type.
    Cardinality,
    /// A compound read left items that no part claimed.
    UnclaimedItems,
    /// A DynamoDB request failed (the SDK's error is the source).
    Sdk,
    /// A batch operation could not write or read everything; the error
    /// carries what is left.
    BatchIncomplete,
    /// Two requests of one batch or transaction address the same item.
    DuplicateKey,
    /// An optimistic-locking check failed: the item changed since it was read.
    VersionConflict,
    /// No item exists at the key.
    NotFound,
    /// A transaction was canceled; the reasons are mapped to its actions.
    TransactionCanceled,
    /// A request is over one of DynamoDB's count limits.
    Limit,
    /// A key pattern is invalid, or a key or value does not fit it.
    InvalidKeyPattern,
    /// A request got no answer in time.
    Timeout,
    /// DynamoDB returned a response that makes no sense for the request.
    UnexpectedResponse,
    /// A versioned entity would have been written without its version check.
    VersionCheckRequired,
}

impl Error {
    /// What kind of error this is.
    ///
    /// ```
    /// use dynamodb_mapper::{Error, ErrorKind};
    ///
    /// assert_eq!(Error::invalid_value("n", "is NaN").kind(), ErrorKind::InvalidValue);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::DiscriminatorMismatch { .. } => ErrorKind::DiscriminatorMismatch,
            Error::MissingDiscriminator { .. } => ErrorKind::MissingDiscriminator,
            Error::Serialize { .. } => ErrorKind::Serialize,
            Error::Deserialize { .. } => ErrorKind::Deserialize,
            Error::InvalidKey { .. } => ErrorKind::InvalidKey,
            Error::ItemTooLarge { .. } => ErrorKind::ItemTooLarge,
            Error::InvalidValue { .. } => ErrorKind::InvalidValue,
            Error::MissingAttribute { .. } => ErrorKind::MissingAttribute,
            Error::WrongType { .. } => ErrorKind::WrongType,
            Error::Hook { .. } => ErrorKind::Hook,
            Error::UnknownEntityType { .. } => ErrorKind::UnknownEntityType,
            Error::InvalidRegistry { .. } => ErrorKind::InvalidRegistry,
            Error::NotRegistered { .. } => ErrorKind::NotRegistered,
            Error::InvalidFilter { .. } => ErrorKind::InvalidFilter,
            Error::Cardinality { .. } => ErrorKind::Cardinality,
            Error::UnclaimedItems { .. } => ErrorKind::UnclaimedItems,
            Error::Sdk { .. } => ErrorKind::Sdk,
            Error::BatchWriteIncomplete { .. } | Error::BatchGetIncomplete { .. } => {
                ErrorKind::BatchIncomplete
            }
            Error::DuplicateKey { .. } => ErrorKind::DuplicateKey,
            Error::VersionConflict { .. } => ErrorKind::VersionConflict,
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::TransactionCanceled { .. } => ErrorKind::TransactionCanceled,
            Error::Limit { .. } => ErrorKind::Limit,
            Error::InvalidKeyPattern { .. } => ErrorKind::InvalidKeyPattern,
            Error::Timeout { .. } => ErrorKind::Timeout,
            Error::UnexpectedResponse { .. } => ErrorKind::UnexpectedResponse,
            Error::VersionCheckRequired { .. } => ErrorKind::VersionCheckRequired,
        }
    }

    /// The entity type the error happened for, when known.
    ///
    /// ```
    /// use dynamodb_mapper::Error;
    ///
    /// assert_eq!(Error::missing_attribute("sk").entity_type(), None);
    /// ```
    #[must_use]
    pub fn entity_type(&self) -> Option<&str> {
        match self {
            Error::DiscriminatorMismatch { entity_type, .. }
            | Error::MissingDiscriminator { entity_type, .. }
            | Error::Serialize { entity_type, .. }
            | Error::Deserialize { entity_type, .. }
            | Error::InvalidKey { entity_type, .. }
            | Error::ItemTooLarge { entity_type, .. }
            | Error::InvalidValue { entity_type, .. }
            | Error::MissingAttribute { entity_type, .. }
            | Error::WrongType { entity_type, .. }
            | Error::Hook { entity_type, .. }
            | Error::Cardinality { entity_type, .. }
            | Error::VersionConflict { entity_type, .. }
            | Error::NotFound { entity_type, .. }
            | Error::InvalidKeyPattern { entity_type, .. }
            | Error::VersionCheckRequired { entity_type, .. } => entity_type.as_deref(),
            Error::UnknownEntityType { .. }
            | Error::InvalidRegistry { .. }
            | Error::NotRegistered { .. }
            | Error::InvalidFilter { .. }
            | Error::UnclaimedItems { .. }
            | Error::Sdk { .. }
            | Error::BatchWriteIncomplete { .. }
            | Error::BatchGetIncomplete { .. }
            | Error::DuplicateKey { .. }
            | Error::TransactionCanceled { .. }
            | Error::Limit { .. }
            | Error::Timeout { .. }
            | Error::UnexpectedResponse { .. } => None,
        }
    }

    /// The attribute or attribute path the error is about, when known.
    ///
    /// ```
    /// use dynamodb_mapper::Error;
    ///
    /// let err = Error::invalid_value("lines[0].qty", "is NaN");
    /// assert_eq!(err.attribute(), Some("lines[0].qty"));
    /// ```
    #[must_use]
    pub fn attribute(&self) -> Option<&str> {
        match self {
            Error::DiscriminatorMismatch { attribute, .. }
            | Error::MissingDiscriminator { attribute, .. }
            | Error::InvalidKey { attribute, .. }
            | Error::MissingAttribute { attribute, .. }
            | Error::WrongType { attribute, .. }
            | Error::UnknownEntityType { attribute, .. }
            | Error::InvalidFilter { attribute, .. } => Some(attribute),
            Error::InvalidValue { path, .. } => Some(path),
            Error::Serialize { path, .. } | Error::Deserialize { path, .. } => path.as_deref(),
            Error::ItemTooLarge { .. }
            | Error::Hook { .. }
            | Error::InvalidRegistry { .. }
            | Error::NotRegistered { .. }
            | Error::Cardinality { .. }
            | Error::UnclaimedItems { .. }
            | Error::Sdk { .. }
            | Error::BatchWriteIncomplete { .. }
            | Error::BatchGetIncomplete { .. }
            | Error::DuplicateKey { .. }
            | Error::VersionConflict { .. }
            | Error::NotFound { .. }
            | Error::TransactionCanceled { .. }
            | Error::Limit { .. }
            | Error::InvalidKeyPattern { .. }
            | Error::Timeout { .. }
            | Error::UnexpectedResponse { .. } => None,
            Error::VersionCheckRequired { attribute, .. } => Some(attribute),
        }
    }

    /// Sets the entity type if the error does not name one yet.
    ///
    /// The mapper calls this on every error a hook or helper returns, so errors
    /// built inside hooks need not repeat the entity type.
    ///
    /// ```
    /// use dynamodb_mapper::Error;
    ///
    /// let err = Error::missing_attribute("pk").with_entity_type("Order").with_entity_type("Other");
    /// assert_eq!(err.entity_type(), Some("Order"));
    /// ```
    #[must_use]
    pub fn with_entity_type(mut self, name: &str) -> Self {
        let slot = match &mut self {
            Error::DiscriminatorMismatch { entity_type, .. }
            | Error::MissingDiscriminator { entity_type, .. }
            | Error::Serialize { entity_type, .. }
            | Error::Deserialize { entity_type, .. }
            | Error::InvalidKey { entity_type, .. }
            | Error::ItemTooLarge { entity_type, .. }
            | Error::InvalidValue { entity_type, .. }
            | Error::MissingAttribute { entity_type, .. }
            | Error::WrongType { entity_type, .. }
            | Error::Hook { entity_type, .. }
            | Error::Cardinality { entity_type, .. }
            | Error::VersionConflict { entity_type, .. }
            | Error::NotFound { entity_type, .. }
            | Error::InvalidKeyPattern { entity_type, .. }
            | Error::VersionCheckRequired { entity_type, .. } => entity_type,
            // Registry- and request-level errors are about no single entity type.
            Error::UnknownEntityType { .. }
            | Error::InvalidRegistry { .. }
            | Error::NotRegistered { .. }
            | Error::InvalidFilter { .. }
            | Error::UnclaimedItems { .. }
            | Error::Sdk { .. }
            | Error::BatchWriteIncomplete { .. }
            | Error::BatchGetIncomplete { .. }
            | Error::DuplicateKey { .. }
            | Error::TransactionCanceled { .. }
            | Error::Limit { .. }
            | Error::Timeout { .. }
            | Error::UnexpectedResponse { .. } => return self,
        };
        if slot.is_none() {
            *slot = Some(name.to_owned());
        }
        self
    }

    /// The primary key of the item the error is about, rendered as
    /// `pk="CUSTOMER#C1", sk="METADATA"`: set on the errors of reading an
    /// item (`from_item`, `record_from_item`, registry decoding) when the
    /// item holds its key.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Item, Mapper, TableSchema};
    ///
    /// #[derive(Debug, serde::Serialize, serde::Deserialize)]
    /// struct Note {
    ///     text: String,
    /// }
    /// struct NoteMapper;
    /// impl Mapper for NoteMapper {
    ///     type Entity = Note;
    ///     const ENTITY_TYPE: &'static str = "Note";
    ///     const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
    ///     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> {
    ///         Ok(())
    ///     }
    /// }
    /// let item = Item::from([
    ///     ("pk".to_string(), AttributeValue::S("NOTE#1".into())),
    ///     ("sk".to_string(), AttributeValue::N("7".into())),
    ///     ("entityType".to_string(), AttributeValue::S("Note".into())),
    /// ]);
    /// let err = NoteMapper::from_item(item).unwrap_err();
    /// assert_eq!(err.key(), Some(r#"pk="NOTE#1", sk=7"#));
    /// assert_eq!(err.to_string(), r#"Note (pk="NOTE#1", sk=7): attribute `text` is missing"#);
    /// assert_eq!(dynamodb_mapper::Error::missing_attribute("text").key(), None);
    /// ```
    #[must_use]
    pub fn key(&self) -> Option<&str> {
        match self {
            Error::DiscriminatorMismatch { key, .. }
            | Error::MissingDiscriminator { key, .. }
            | Error::Deserialize { key, .. }
            | Error::InvalidValue { key, .. }
            | Error::MissingAttribute { key, .. }
            | Error::WrongType { key, .. }
            | Error::Hook { key, .. }
            | Error::UnknownEntityType { key, .. } => key.as_deref(),
            Error::VersionConflict { key, .. }
            | Error::NotFound { key, .. }
            | Error::DuplicateKey { key, .. }
            | Error::VersionCheckRequired { key, .. } => Some(key),
            Error::Serialize { .. }
            | Error::InvalidKey { .. }
            | Error::ItemTooLarge { .. }
            | Error::InvalidRegistry { .. }
            | Error::NotRegistered { .. }
            | Error::InvalidFilter { .. }
            | Error::Cardinality { .. }
            | Error::UnclaimedItems { .. }
            | Error::Sdk { .. }
            | Error::BatchWriteIncomplete { .. }
            | Error::BatchGetIncomplete { .. }
            | Error::TransactionCanceled { .. }
            | Error::Limit { .. }
            | Error::InvalidKeyPattern { .. }
            | Error::Timeout { .. }
            | Error::UnexpectedResponse { .. } => None,
        }
    }

    /// Sets the item's key (rendered by `item::describe_key`) on an error of
    /// reading an item, if it names none yet; an empty key is no key.
    pub(crate) fn with_key(mut self, rendered: impl FnOnce() -> String) -> Self {
        let slot = match &mut self {
            Error::DiscriminatorMismatch { key, .. }
            | Error::MissingDiscriminator { key, .. }
            | Error::Deserialize { key, .. }
            | Error::InvalidValue { key, .. }
            | Error::MissingAttribute { key, .. }
            | Error::WrongType { key, .. }
            | Error::Hook { key, .. }
            | Error::UnknownEntityType { key, .. } => key,
            _ => return self,
        };
        if slot.is_none() {
            let k = rendered();
            if !k.is_empty() {
                *slot = Some(k.into_boxed_str());
            }
        }
        self
    }
}
