//! The crate's one public error type.
//!
//! Every error names the entity type it happened for (when one is known), the
//! key of the item read (for errors of reading an item), the attribute or
//! attribute path involved, and what was wrong. Causes from
//! `serde_dynamo`, from user hooks and from the SDK are kept as
//! [`std::error::Error::source`], and printed only there.
//!
//! This is the crate's bottom layer: it depends on the SDK's types and
//! nothing else of the crate, so every other module can use it (see
//! `ARCHITECTURE.md`). Each file's own docs say what it holds.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

mod build;
mod details;
mod display;
mod transaction;

pub use details::{ErrorDetails, ErrorKind, Unread, Unwritten};
pub use transaction::{ActionInfo, ActionKind, CanceledAction};

/// Result alias used throughout the crate.
///
/// ```
/// fn check(n: u32) -> dynamodb_mapper::Result<u32> {
///     Ok(n)
/// }
/// assert_eq!(check(3).unwrap(), 3);
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A boxed error from outside the crate (a hook's, the SDK's), kept as
/// the source of an error: the same type as the SDK's
/// `aws_sdk_dynamodb::error::BoxError`.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The crate's error type.
///
/// Tell errors apart by [`kind`](Error::kind) (an [`ErrorKind`]); read
/// what an error is about with [`entity_type`](Error::entity_type),
/// [`key`](Error::key) and [`attribute`](Error::attribute), whatever its
/// kind, and the data only its kind has with [`details`](Error::details)
/// (an [`ErrorDetails`]). Both enums are non-exhaustive, so new kinds and
/// new data can come without breaking your code.
///
/// Messages are lowercase and start with the entity type when it is known
/// and, for errors of reading an item, the item's key (`Customer
/// (pk="CUSTOMER#C1", sk="METADATA"): ...`, or `item (pk=...): ...` when no
/// entity type applies), then the attribute (path), then what was wrong:
///
/// ```
/// use dynamodb_mapper::{Error, ErrorKind};
///
/// let err = Error::missing_attribute("pk");
/// assert_eq!(err.to_string(), "attribute `pk` is missing");
/// assert_eq!(err.kind(), ErrorKind::MissingAttribute);
/// assert_eq!(err.entity_type(), None);
/// assert_eq!(err.attribute(), Some("pk"));
/// ```
///
/// # Printing the cause
///
/// An error caused by another (a serializer's error, a hook's own error,
/// the SDK's error, what stopped a batch) keeps it as
/// [`source`](std::error::Error::source) and does not repeat it in its own
/// message, so a reporter that walks the sources (`anyhow`'s `{:#}`,
/// `std::error::Report`) prints each cause once. `{err}` prints this error
/// only; `{err:#}` prints it followed by each of its sources, joined with
/// `: `, on one line:
///
/// ```
/// use std::error::Error as _;
///
/// let err = dynamodb_mapper::Error::hook("before_to_item", "quota exceeded");
/// assert_eq!(err.to_string(), "hook `before_to_item` failed");
/// assert_eq!(err.source().unwrap().to_string(), "quota exceeded");
/// assert_eq!(format!("{err:#}"), "hook `before_to_item` failed: quota exceeded");
/// ```
pub struct Error(Box<Inner>);

/// What an error is about, stored once whatever its kind, beside the data
/// only its kind has.
#[derive(Debug)]
struct Inner {
    details: ErrorDetails,
    /// The cause from outside the crate (a serializer's, a hook's, the
    /// SDK's), when there is one; a cause of this crate's own is in
    /// `details`.
    source: Option<BoxError>,
    /// The entity type, for the kinds that name one.
    entity_type: Slot<String>,
    /// The item's key, rendered: for the errors of reading an item (open
    /// until the mapper fills it) and for the errors about one key (set).
    key: Slot<Box<str>>,
    /// The attribute or attribute path, when known.
    attribute: Option<String>,
    /// The stream record and image the error was raised in, when decoding
    /// one ([`Error::in_stream_image`]).
    image: Option<Box<StreamImage>>,
}

/// Which stream record's image an error was raised in.
#[derive(Debug)]
struct StreamImage {
    event_id: String,
    sequence_number: Option<String>,
    /// `old` or `new`.
    image: &'static str,
}

/// A piece of context an error kind may carry.
#[derive(Debug)]
enum Slot<T> {
    /// The kind is not about such a thing; it is never set.
    Never,
    /// The kind can carry it, and nothing has set it yet.
    Open,
    /// Set.
    Set(T),
}

impl<T> Slot<T> {
    fn get(&self) -> Option<&T> {
        match self {
            Slot::Set(v) => Some(v),
            Slot::Never | Slot::Open => None,
        }
    }

    /// Sets the slot if it is open and `value` gives something.
    fn fill(&mut self, value: impl FnOnce() -> Option<T>) {
        if let Slot::Open = self
            && let Some(v) = value()
        {
            *self = Slot::Set(v);
        }
    }
}

/// An item or key, as the SDK has them.
type AttributeMap = HashMap<String, AttributeValue>;

impl Error {
    /// A [`ErrorKind::MissingAttribute`] error for `attribute`.
    ///
    /// ```
    /// let err = dynamodb_mapper::Error::missing_attribute("email");
    /// assert_eq!(err.to_string(), "attribute `email` is missing");
    /// ```
    #[must_use]
    pub fn missing_attribute(attribute: impl Into<String>) -> Self {
        Error::new(ErrorDetails::MissingAttribute { projected: false }).at(attribute)
    }

    /// A [`ErrorKind::InvalidValue`] error for the attribute `path`, saying
    /// `reason`.
    ///
    /// ```
    /// let err = dynamodb_mapper::Error::invalid_value("rating", "must be 1 to 5, found 7");
    /// assert_eq!(err.to_string(), "attribute `rating` must be 1 to 5, found 7");
    /// ```
    #[must_use]
    pub fn invalid_value(path: impl Into<String>, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Error::new(ErrorDetails::InvalidValue { reason }).at(path)
    }

    /// A [`ErrorKind::InvalidKey`] error for the key attribute `attribute`,
    /// saying `reason`.
    ///
    /// ```
    /// let err = dynamodb_mapper::Error::invalid_key("pk", "is empty");
    /// assert_eq!(err.to_string(), "key attribute `pk` is empty");
    /// ```
    #[must_use]
    pub fn invalid_key(attribute: impl Into<String>, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Error::new(ErrorDetails::InvalidKey { reason }).at(attribute)
    }

    /// A [`ErrorKind::Hook`] error wrapping a user error from the hook named
    /// `hook`.
    ///
    /// Hooks may also return any other [`Error`] directly; use this to veto
    /// with an error of your own type, which stays available as the source
    /// (and is printed by `{:#}`, not by `{}`).
    ///
    /// ```
    /// use std::error::Error as _;
    ///
    /// let err = dynamodb_mapper::Error::hook("before_to_item", "total must not be negative");
    /// assert_eq!(err.to_string(), "hook `before_to_item` failed");
    /// assert_eq!(
    ///     format!("{err:#}"),
    ///     "hook `before_to_item` failed: total must not be negative"
    /// );
    /// assert!(err.source().is_some());
    /// ```
    #[must_use]
    pub fn hook(hook: &'static str, source: impl Into<BoxError>) -> Self {
        Error::new(ErrorDetails::Hook { hook }).with_source(source)
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
    #[must_use]
    pub(crate) fn with_entity_type(mut self, name: &str) -> Self {
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
    ///     const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk");
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
    /// The event id and sequence number (when known) of the stream record
    /// an [`InvalidStreamRecord`](crate::ErrorKind::InvalidStreamRecord)
    /// error is about.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// use dynamodb_mapper::Registry;
    /// # use dynamodb_mapper_support::doc::*;
    /// let registry = Registry::builder().register::<CustomerMapper>(Entity::Customer).build()?;
    /// // A removal cannot carry the item as it is after the change.
    /// let mut record = ChangeRecord::new("e1", ChangeKind::Remove, Default::default());
    /// record.sequence_number = Some("42".into());
    /// record.new_image = Some(Default::default());
    /// let err = registry.decode_change(record).unwrap_err();
    /// assert_eq!(err.stream_record(), Some(("e1", Some("42"))));
    /// assert_eq!(dynamodb_mapper::Error::invalid_value("n", "x").stream_record(), None);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn stream_record(&self) -> Option<(&str, Option<&str>)> {
        if let Some(at) = &self.0.image {
            return Some((&at.event_id, at.sequence_number.as_deref()));
        }
        match &self.0.details {
            ErrorDetails::InvalidStreamRecord {
                event_id,
                sequence_number,
                ..
            } => Some((event_id, sequence_number.as_deref())),
            _ => None,
        }
    }

    /// Which image of a stream record (`"old"` or `"new"`) could not be
    /// decoded, for an error raised decoding one; the error itself says
    /// what was wrong with it (its kind, entity type, key and attribute).
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// # use dynamodb_mapper_support::doc::*;
    /// let registry = Registry::builder().register::<CustomerMapper>(Entity::Customer).build()?;
    /// let item = CustomerMapper::to_item(&Customer { id: "C1".into() })?;
    /// let mut broken = item.clone();
    /// broken.insert("entityType".into(), AttributeValue::N("7".into()));
    /// let mut record = ChangeRecord::new("e3", ChangeKind::Modify, TABLE.key_of(&item)?);
    /// record.sequence_number = Some("43".into());
    /// record.old_image = Some(item);
    /// record.new_image = Some(broken);
    /// let err = registry.decode_change(record).unwrap_err();
    /// assert_eq!(err.stream_image(), Some("new"));
    /// assert_eq!(err.stream_record(), Some(("e3", Some("43"))));
    /// assert!(err.to_string().starts_with("stream record \"e3\", new image: "));
    /// assert_eq!(dynamodb_mapper::Error::invalid_value("n", "x").stream_image(), None);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn stream_image(&self) -> Option<&'static str> {
        self.0.image.as_ref().map(|at| at.image)
    }
}
