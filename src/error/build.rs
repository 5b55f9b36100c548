//! The constructors several layers share. [`Error::new`] gives each kind
//! the context it carries (an entity type, the key of the item read); the
//! constructors below add what only the caller knows (an attribute, a fixed
//! key, a source). A constructor only one layer calls lives beside it, in
//! that layer's `errors.rs` (`ops`, `registry`, `mapper`, `stream`) or in
//! `check.rs`.

use super::{AttributeMap, BoxError, Error, ErrorDetails as D, Inner, Slot};

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

    pub(crate) fn wrong_type(attribute: &str, expected: &'static str, found: &'static str) -> Self {
        Error::new(D::WrongType { expected, found }).at(attribute)
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

    /// `what`: `entity type` or `group`.
    pub(crate) fn not_registered(what: &'static str, name: &str) -> Self {
        let name = name.to_owned();
        Error::new(D::NotRegistered { what, name })
    }

    /// A [`ErrorKind::Sdk`](super::ErrorKind::Sdk) error for `operation`.
    pub(crate) fn sdk(operation: &'static str, source: impl Into<BoxError>) -> Self {
        Error::new(D::Sdk { operation }).with_source(source)
    }

    pub(crate) fn invalid_cursor(reason: impl Into<String>) -> Self {
        Error::new(D::InvalidCursor {
            reason: reason.into(),
        })
    }

    pub(crate) fn unexpected_response(operation: &'static str, reason: String) -> Self {
        Error::new(D::UnexpectedResponse { operation, reason })
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

    pub(crate) fn invalid_key_pattern(pattern: &str, reason: String) -> Self {
        let pattern = pattern.to_owned();
        Error::new(D::InvalidKeyPattern { pattern, reason })
    }
}
