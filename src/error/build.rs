//! The crate's own constructors. [`Error::new`] gives each kind the
//! context it carries (an entity type, the key of the item read); the
//! constructors below add what only the caller knows (an attribute, a
//! fixed key, a source).

use std::time::Duration;

use super::{
    AttributeMap, BoxError, CanceledAction, Error, ErrorDetails as D, Inner, Slot, Unread,
    Unwritten,
};

impl Error {
    /// An error of `details`: its entity type and item key open to be
    /// filled ([`Error::with_entity_type`], `Error::with_key`) where its
    /// kind is about an entity or raised reading an item.
    pub(crate) fn new(details: D) -> Self {
        let (entity, read) = details.context();
        Error(Box::new(Inner {
            details,
            source: None,
            entity_type: if entity { Slot::Open } else { Slot::Never },
            key: if read { Slot::Open } else { Slot::Never },
            attribute: None,
            image: None,
        }))
    }

    /// With `source` as the cause from outside the crate.
    pub(crate) fn with_source(mut self, source: impl Into<BoxError>) -> Self {
        self.0.source = Some(source.into());
        self
    }

    /// Says the error was raised decoding the `image` (`old` or `new`) of
    /// the stream record `event_id`: its message starts with the record and
    /// the image, and [`stream_record`](Error::stream_record) and
    /// [`stream_image`](Error::stream_image) return them.
    pub(crate) fn in_stream_image(
        mut self,
        event_id: &str,
        sequence_number: Option<&str>,
        image: &'static str,
    ) -> Self {
        self.0.image = Some(Box::new(super::StreamImage {
            event_id: event_id.to_owned(),
            sequence_number: sequence_number.map(str::to_owned),
            image,
        }));
        self
    }

    /// About the attribute (path) `attribute`.
    pub(crate) fn at(self, attribute: impl Into<String>) -> Self {
        self.at_path(Some(attribute.into()))
    }

    /// About the attribute path `path`, when known.
    fn at_path(mut self, path: Option<String>) -> Self {
        self.0.attribute = path;
        self
    }

    /// About the item at `key` (rendered).
    pub(crate) fn at_key(mut self, key: String) -> Self {
        self.0.key = Slot::Set(key.into_boxed_str());
        self
    }

    pub(crate) fn discriminator_mismatch(
        attribute: &str,
        expected: Vec<String>,
        found: String,
    ) -> Self {
        Error::new(D::DiscriminatorMismatch { expected, found }).at(attribute)
    }

    pub(crate) fn missing_discriminator(attribute: &str, found: Option<String>) -> Self {
        Error::new(D::MissingDiscriminator { found }).at(attribute)
    }

    /// `path`: where serialization failed, when known.
    pub(crate) fn serialize(path: Option<String>, source: serde_dynamo::Error) -> Self {
        Error::new(D::Serialize {})
            .with_source(source)
            .at_path(path)
    }

    /// `path`: where deserialization failed, when known.
    pub(crate) fn deserialize(path: Option<String>, source: serde_dynamo::Error) -> Self {
        Error::new(D::Deserialize {})
            .with_source(source)
            .at_path(path)
    }

    pub(crate) fn item_too_large(size: usize, limit: usize, largest: Vec<(String, usize)>) -> Self {
        Error::new(D::ItemTooLarge {
            size,
            limit,
            largest,
        })
    }

    pub(crate) fn wrong_type(attribute: &str, expected: &'static str, found: &'static str) -> Self {
        Error::new(D::WrongType { expected, found }).at(attribute)
    }

    pub(crate) fn unknown_entity_type(
        attribute: &str,
        found: String,
        group: Option<String>,
        known: Vec<String>,
    ) -> Self {
        Error::new(D::UnknownEntityType {
            found,
            group,
            pattern: None,
            known,
        })
        .at(attribute)
    }

    /// An [`unknown_entity_type`](Self::unknown_entity_type) error, read
    /// through the access pattern `name`.
    pub(crate) fn in_access_pattern(mut self, name: &str) -> Self {
        if let D::UnknownEntityType { pattern, .. } = &mut self.0.details {
            *pattern = Some(name.to_owned());
        }
        self
    }

    pub(crate) fn invalid_registry(problems: Vec<String>) -> Self {
        Error::new(D::InvalidRegistry { problems })
    }

    /// A mapper whose declarations do not hold together (see
    /// `MapperExt::check`); the entity type is set by the caller.
    pub(crate) fn invalid_mapper(problems: Vec<String>) -> Self {
        Error::new(D::InvalidMapper { problems })
    }

    /// `what`: `entity type` or `group`.
    pub(crate) fn not_registered(what: &'static str, name: &str) -> Self {
        let name = name.to_owned();
        Error::new(D::NotRegistered { what, name })
    }

    pub(crate) fn invalid_filter(attribute: &str, reason: String) -> Self {
        Error::new(D::InvalidFilter { reason }).at(attribute)
    }

    /// `expected`: `exactly one` or `at most one`.
    pub(crate) fn cardinality(expected: &'static str, found: usize) -> Self {
        Error::new(D::Cardinality { expected, found })
    }

    pub(crate) fn unclaimed_items(
        discriminator: String,
        counts: Vec<(Option<String>, usize)>,
    ) -> Self {
        Error::new(D::UnclaimedItems {
            discriminator,
            counts,
        })
    }

    /// A [`ErrorKind::Sdk`](super::ErrorKind::Sdk) error for `operation`.
    pub(crate) fn sdk(operation: &'static str, source: impl Into<BoxError>) -> Self {
        Error::new(D::Sdk { operation }).with_source(source)
    }

    pub(crate) fn batch_write_incomplete(
        table: String,
        unwritten: Unwritten,
        attempts: u32,
        cause: Option<Error>,
    ) -> Self {
        Error::new(D::BatchWriteIncomplete {
            table,
            unwritten,
            attempts,
            cause,
        })
    }

    pub(crate) fn batch_get_incomplete(
        table: String,
        unread: Unread,
        attempts: u32,
        cause: Option<Error>,
    ) -> Self {
        Error::new(D::BatchGetIncomplete {
            table,
            unread,
            attempts,
            cause,
        })
    }

    pub(crate) fn timed_out(operation: &'static str, after: Duration) -> Self {
        Error::new(D::Timeout {
            operation,
            after,
            deadline: false,
        })
    }

    /// The helper's deadline of `after` ran out during (or before)
    /// `operation`.
    pub(crate) fn deadline_passed(operation: &'static str, after: Duration) -> Self {
        Error::new(D::Timeout {
            operation,
            after,
            deadline: true,
        })
    }

    /// `table` was not active after waiting `after`; `status`: what the
    /// last `DescribeTable` said.
    pub(crate) fn table_not_active(table: &str, after: Duration, status: String) -> Self {
        let table = table.to_owned();
        Error::new(D::TableNotActive {
            table,
            after,
            status,
        })
    }

    /// `CreateTable` of `table` was refused: a table of that name exists.
    pub(crate) fn table_exists(table: &str, source: aws_sdk_dynamodb::Error) -> Self {
        let table = table.to_owned();
        Error::new(D::TableExists { table }).with_source(source)
    }

    /// The client cannot run `operation` for a helper: `reason`.
    pub(crate) fn client_config(operation: &'static str, reason: &'static str) -> Self {
        Error::new(D::ClientConfig { operation, reason })
    }

    /// [`Error::missing_attribute`] of an attribute a projection left out.
    pub(crate) fn missing_projected(attribute: impl Into<String>) -> Self {
        Error::new(D::MissingAttribute { projected: true }).at(attribute)
    }

    pub(crate) fn invalid_cursor(reason: impl Into<String>) -> Self {
        Error::new(D::InvalidCursor {
            reason: reason.into(),
        })
    }

    pub(crate) fn invalid_stream_record(
        event_id: &str,
        sequence_number: Option<&str>,
        reason: impl Into<String>,
    ) -> Self {
        Error::new(D::InvalidStreamRecord {
            event_id: event_id.to_owned(),
            sequence_number: sequence_number.map(str::to_owned),
            reason: reason.into(),
        })
    }

    pub(crate) fn unexpected_response(operation: &'static str, reason: String) -> Self {
        Error::new(D::UnexpectedResponse { operation, reason })
    }

    /// `operation`: what was asked, e.g. `batch put`; `attribute`: the
    /// table's version attribute; `instead`: the helper to use.
    pub(crate) fn version_check_required(
        key: String,
        operation: &'static str,
        attribute: &str,
        instead: &'static str,
    ) -> Self {
        Error::new(D::VersionCheckRequired { operation, instead })
            .at_key(key)
            .at(attribute)
    }

    /// `operation` of an entity with the unique constraint `constraint`
    /// (on `attribute`, among others) cannot keep its sentinels: `instead`.
    pub(crate) fn unique_check_required(
        key: String,
        operation: &'static str,
        constraint: &'static str,
        attribute: &str,
        instead: &'static str,
    ) -> Self {
        Error::new(D::UniqueCheckRequired {
            operation,
            constraint,
            instead,
        })
        .at_key(key)
        .at(attribute)
    }

    pub(crate) fn duplicate_key(operation: &'static str, key: String) -> Self {
        Error::new(D::DuplicateKey { operation }).at_key(key)
    }

    /// `expected`: the version the write expected (`None`: no item).
    pub(crate) fn version_conflict(key: String, expected: Option<u64>) -> Self {
        Error::new(D::VersionConflict {
            expected,
            unique_values: false,
        })
        .at_key(key)
    }

    /// An update of an unversioned entity whose item no longer holds the
    /// unique values of the entity it was given.
    pub(crate) fn unique_values_changed(key: String) -> Self {
        Error::new(D::VersionConflict {
            expected: None,
            unique_values: true,
        })
        .at_key(key)
    }

    /// Says the error is about the key attribute `name` (when it names no
    /// attribute yet): a key pattern that cannot render the value of `sk`.
    pub(crate) fn of_key_attribute(mut self, name: &str) -> Self {
        if self.0.attribute.is_none() {
            self.0.attribute = Some(name.to_owned());
        }
        self
    }

    /// A whole-item write of the record of `key`, read through
    /// `projection`.
    pub(crate) fn partial_record(key: String, projection: &str) -> Self {
        let projection = projection.to_owned();
        Error::new(D::PartialRecord { projection }).at_key(key)
    }

    /// `operation` on the item at `key` got no credible answer (`cause`):
    /// it may have been applied.
    pub(crate) fn maybe_applied(operation: &'static str, key: String, cause: Error) -> Self {
        Error::new(D::MaybeApplied { operation, cause }).at_key(key)
    }

    /// `value` of the constraint `constraint` is held by `holder`.
    pub(crate) fn unique_violation(
        key: String,
        constraint: &'static str,
        value: String,
        holder: Option<AttributeMap>,
    ) -> Self {
        Error::new(D::UniqueViolation {
            constraint,
            value,
            holder,
        })
        .at_key(key)
    }

    pub(crate) fn not_found(key: String) -> Self {
        Error::new(D::NotFound {}).at_key(key)
    }

    pub(crate) fn transaction_canceled(
        canceled: Vec<CanceledAction>,
        source: aws_sdk_dynamodb::Error,
    ) -> Self {
        Error::new(D::TransactionCanceled { canceled }).with_source(source)
    }

    /// `what`: what is over the limit, e.g. `transaction`.
    pub(crate) fn limit(what: &'static str, count: usize, limit: usize) -> Self {
        Error::new(D::Limit { what, count, limit })
    }

    pub(crate) fn invalid_key_pattern(pattern: &str, reason: String) -> Self {
        let pattern = pattern.to_owned();
        Error::new(D::InvalidKeyPattern { pattern, reason })
    }
}
