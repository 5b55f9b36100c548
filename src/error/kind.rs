//! What an error is: its [`ErrorKind`], and what it is about (entity type,
//! attribute, key), read the same way whatever the kind.

use super::{Error, Repr};

/// What went wrong, as a value: how to tell [`Error`]s apart. The data of
/// each kind is read through [`Error`]'s accessors.
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
    /// The discriminator attribute holds another entity type
    /// ([`Error::discriminator_value`], [`Error::expected_discriminators`]).
    DiscriminatorMismatch,
    /// The discriminator attribute is absent (or not a string).
    MissingDiscriminator,
    /// The entity could not be serialized into an item.
    Serialize,
    /// The item could not be deserialized into the entity.
    Deserialize,
    /// A key attribute is missing, has the wrong type, is empty or too long.
    InvalidKey,
    /// The item is larger than DynamoDB's 400 KB limit ([`Error::item_size`],
    /// [`Error::largest_attributes`]).
    ItemTooLarge,
    /// A value DynamoDB would reject (bad number, empty set, unknown type).
    InvalidValue,
    /// An attribute that must be present is absent.
    MissingAttribute,
    /// An attribute has another type than the one asked for.
    WrongType,
    /// A user hook vetoed the operation ([`Error::hook_name`]; the hook's
    /// own error is the source).
    Hook,
    /// An item's discriminator names an entity type no registered mapper reads
    /// ([`Error::discriminator_value`], [`Error::group`],
    /// [`Error::known_entity_types`]).
    UnknownEntityType,
    /// Building a registry found problems in the table design
    /// ([`Error::problems`]).
    InvalidRegistry,
    /// A mapper's declarations do not hold together: key patterns that name
    /// no field (or a field that cannot be a key component), fields stored
    /// under an attribute the mapper writes itself, clashing names
    /// ([`Error::problems`]). Found by
    /// [`MapperExt::check`](crate::MapperExt::check), before any write.
    InvalidMapper,
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
    /// carries what is left: for writes [`Error::unwritten`] and
    /// [`Error::into_unwritten`], for gets [`Error::unread`] and
    /// [`Error::into_unread`], and for both [`Error::attempts`] and
    /// [`Error::cause`].
    BatchIncomplete,
    /// Two requests of one batch or transaction address the same item.
    DuplicateKey,
    /// An optimistic-locking check failed: the item changed since it was read
    /// ([`Error::key`], [`Error::expected_version`]).
    VersionConflict,
    /// No item exists at the key.
    NotFound,
    /// A record read through a projection ([`Record::projection`](crate::Record::projection))
    /// would be written whole, dropping what the projection left out.
    /// [`Error::key`] names the item. Nothing was sent.
    PartialRecord,
    /// A write to one item got no credible answer (it ran out of time, the
    /// connection broke, the server failed, or the answer cannot be read or
    /// makes no sense): it may have been applied, or was, when the
    /// message says so. [`Error::key`] names the item,
    /// [`Error::operation`] the request; the cause is the source. Sending
    /// it again may apply it twice: read the item to know.
    MaybeApplied,
    /// A transaction was canceled; the reasons are mapped to its actions
    /// ([`Error::canceled`]).
    TransactionCanceled,
    /// A request is over one of DynamoDB's count limits.
    Limit,
    /// A key pattern is invalid, or a key or value does not fit it.
    InvalidKeyPattern,
    /// A request got no answer in time, or a table created by
    /// [`Table::create_table`](crate::ops::Table::create_table) did not
    /// become active in time ([`Error::operation`], [`Error::timeout`],
    /// and for a table [`Error::table`]).
    Timeout,
    /// DynamoDB returned a response that makes no sense for the request.
    UnexpectedResponse,
    /// A versioned entity would have been written without its version check.
    VersionCheckRequired,
    /// `CreateTable` found a table of that name already, in any state
    /// ([`Error::table`]; the SDK's `ResourceInUseException` is the source).
    TableExists,
    /// A pagination cursor was refused: not a token of this table and
    /// index, not signed with the expected secret, altered, or malformed
    /// ([`Error::reason`] says which). Nothing was sent.
    InvalidCursor,
    /// A DynamoDB Streams record (from the Streams API or a Lambda event)
    /// that cannot be read: an unknown event name, an image deeper than
    /// DynamoDB allows or holding an attribute type this crate does not
    /// know, an image the stream's view type does not carry
    /// ([`Error::reason`] says which, [`Error::stream_record`] names the
    /// record).
    InvalidStreamRecord,
    /// The SDK client lacks something a helper needs ([`Error::operation`]
    /// says for which request): an async sleep implementation, to bound its
    /// calls and wait between retries. Nothing was sent.
    ClientConfig,
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
        match &self.0.repr {
            Repr::DiscriminatorMismatch { .. } => ErrorKind::DiscriminatorMismatch,
            Repr::MissingDiscriminator { .. } => ErrorKind::MissingDiscriminator,
            Repr::Serialize(_) => ErrorKind::Serialize,
            Repr::Deserialize(_) => ErrorKind::Deserialize,
            Repr::InvalidKey { .. } => ErrorKind::InvalidKey,
            Repr::ItemTooLarge { .. } => ErrorKind::ItemTooLarge,
            Repr::InvalidValue { .. } => ErrorKind::InvalidValue,
            Repr::MissingAttribute { .. } => ErrorKind::MissingAttribute,
            Repr::WrongType { .. } => ErrorKind::WrongType,
            Repr::Hook { .. } => ErrorKind::Hook,
            Repr::UnknownEntityType { .. } => ErrorKind::UnknownEntityType,
            Repr::InvalidRegistry { .. } => ErrorKind::InvalidRegistry,
            Repr::InvalidMapper { .. } => ErrorKind::InvalidMapper,
            Repr::NotRegistered { .. } => ErrorKind::NotRegistered,
            Repr::InvalidFilter { .. } => ErrorKind::InvalidFilter,
            Repr::Cardinality { .. } => ErrorKind::Cardinality,
            Repr::UnclaimedItems { .. } => ErrorKind::UnclaimedItems,
            Repr::Sdk { .. } => ErrorKind::Sdk,
            Repr::BatchWriteIncomplete { .. } | Repr::BatchGetIncomplete { .. } => {
                ErrorKind::BatchIncomplete
            }
            Repr::DuplicateKey { .. } => ErrorKind::DuplicateKey,
            Repr::VersionConflict { .. } => ErrorKind::VersionConflict,
            Repr::MaybeApplied { .. } => ErrorKind::MaybeApplied,
            Repr::PartialRecord { .. } => ErrorKind::PartialRecord,
            Repr::NotFound => ErrorKind::NotFound,
            Repr::TransactionCanceled { .. } => ErrorKind::TransactionCanceled,
            Repr::Limit { .. } => ErrorKind::Limit,
            Repr::InvalidKeyPattern { .. } => ErrorKind::InvalidKeyPattern,
            Repr::Timeout { .. } | Repr::TableNotActive { .. } => ErrorKind::Timeout,
            Repr::UnexpectedResponse { .. } => ErrorKind::UnexpectedResponse,
            Repr::VersionCheckRequired { .. } => ErrorKind::VersionCheckRequired,
            Repr::TableExists { .. } => ErrorKind::TableExists,
            Repr::ClientConfig { .. } => ErrorKind::ClientConfig,
            Repr::InvalidCursor { .. } => ErrorKind::InvalidCursor,
            Repr::InvalidStreamRecord { .. } => ErrorKind::InvalidStreamRecord,
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
        self.0.entity_type.get().map(String::as_str)
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
        self.0.attribute.as_deref()
    }

    /// Sets the entity type if the error does not name one yet.
    ///
    /// The mapper calls this on every error a hook or helper returns, so errors
    /// built inside hooks need not repeat the entity type. Errors about no
    /// single entity type (of a registry, of a request) stay without one.
    ///
    /// ```
    /// use dynamodb_mapper::Error;
    ///
    /// let err = Error::missing_attribute("pk").with_entity_type("Order").with_entity_type("Other");
    /// assert_eq!(err.entity_type(), Some("Order"));
    /// ```
    #[must_use]
    pub fn with_entity_type(mut self, name: &str) -> Self {
        self.0.entity_type.fill(|| Some(name.to_owned()));
        self
    }

    /// The primary key of the item the error is about, rendered as
    /// `pk="CUSTOMER#C1", sk="METADATA"`: set on the errors of reading an
    /// item (`from_item`, `record_from_item`, registry decoding) when the
    /// item holds its key, and on the errors about one item (a version
    /// conflict, no item found, a key addressed twice, a version check
    /// skipped).
    ///
    /// ```
    /// # use dynamodb_mapper::MapperExt;
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
        self.0.key.get().map(|k| &**k)
    }

    /// Sets the item's key (rendered by `item::describe_key`) on an error of
    /// reading an item, if it names none yet; an empty key is no key.
    pub(crate) fn with_key(mut self, rendered: impl FnOnce() -> String) -> Self {
        self.0.key.fill(|| {
            Some(rendered())
                .filter(|k| !k.is_empty())
                .map(String::into_boxed_str)
        });
        self
    }
}
