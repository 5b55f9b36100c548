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
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;

mod access;
mod build;
mod describe;
mod display;
mod kind;
mod transaction;

pub use access::{Unread, Unwritten};
pub use describe::{describe_key, type_name};
pub(crate) use describe::{describe_value, shorten, shown, write_key_part};
pub use kind::ErrorKind;
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

/// A boxed error from user code (a hook), kept as the source of a
/// [`ErrorKind::Hook`] error.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The crate's error type.
///
/// Tell errors apart by [`kind`](Error::kind) (an [`ErrorKind`]), and read
/// their data through the accessors: [`entity_type`](Error::entity_type),
/// [`key`](Error::key) and [`attribute`](Error::attribute) for what an error
/// is about, and one accessor per piece of data of a kind (such as
/// [`canceled`](Error::canceled), [`unwritten`](Error::unwritten)
/// or [`expected_version`](Error::expected_version)). The representation is
/// private, so new kinds and new data can come without breaking your code.
///
/// Messages are lowercase and start with the entity type when it is known
/// and, for errors of reading an item, the item's key (`Customer
/// (pk="CUSTOMER#C1", sk="METADATA"): ...`, or `item (pk=...): ...` when no
/// entity type applies), then the attribute (path), then what was wrong:
///
/// ```
/// use dynamodb_mapper::{Error, ErrorKind};
///
/// let err = Error::missing_attribute("pk").with_entity_type("Customer");
/// assert_eq!(err.to_string(), "Customer: attribute `pk` is missing");
/// assert_eq!(err.kind(), ErrorKind::MissingAttribute);
/// assert_eq!(err.entity_type(), Some("Customer"));
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
    repr: Repr,
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

/// The kinds of error, each with the data only it has (see
/// [`Error`]'s accessors and [`ErrorKind`] for what each means).
#[derive(Debug)]
enum Repr {
    DiscriminatorMismatch {
        /// Values the mapper accepts (its entity type and aliases).
        expected: Vec<String>,
        found: String,
    },
    MissingDiscriminator {
        /// What was there instead, if anything (e.g. `a number (N)`).
        found: Option<String>,
    },
    Serialize(serde_dynamo::Error),
    Deserialize(serde_dynamo::Error),
    InvalidKey {
        reason: String,
    },
    ItemTooLarge {
        size: usize,
        limit: usize,
        /// At most three, largest first, each with its size.
        largest: Vec<(String, usize)>,
    },
    InvalidValue {
        reason: String,
    },
    MissingAttribute {
        /// The item was a projection that does not include the attribute.
        projected: bool,
    },
    WrongType {
        expected: &'static str,
        found: &'static str,
    },
    Hook {
        hook: &'static str,
        source: BoxError,
    },
    UnknownEntityType {
        found: String,
        group: Option<String>,
        /// The entity types that can be read (of the group, if any).
        known: Vec<String>,
    },
    InvalidRegistry {
        problems: Vec<String>,
    },
    InvalidMapper {
        problems: Vec<String>,
    },
    NotRegistered {
        /// `entity type` or `group`.
        what: &'static str,
        name: String,
    },
    InvalidFilter {
        reason: String,
    },
    Cardinality {
        /// `exactly one` or `at most one`.
        expected: &'static str,
        found: usize,
    },
    UnclaimedItems {
        /// The discriminator attribute (not what the error is about: no
        /// [`Error::attribute`]).
        discriminator: String,
        /// Discriminator value (`None`: absent or not a string) and how many
        /// items with it were left, in the order first seen.
        counts: Vec<(Option<String>, usize)>,
    },
    Sdk {
        operation: &'static str,
        source: BoxError,
    },
    BatchWriteIncomplete {
        table: String,
        unwritten: Unwritten,
        attempts: u32,
        cause: Option<Error>,
    },
    BatchGetIncomplete {
        table: String,
        unread: Unread,
        attempts: u32,
        cause: Option<Error>,
    },
    Timeout {
        operation: &'static str,
        after: Duration,
        /// The helper's whole deadline ran out (else one call's bound).
        deadline: bool,
    },
    TableNotActive {
        table: String,
        /// How long the helper was to wait.
        after: Duration,
        /// What the last `DescribeTable` said, e.g. `CREATING`.
        status: String,
    },
    TableExists {
        table: String,
        source: Box<aws_sdk_dynamodb::Error>,
    },
    ClientConfig {
        operation: &'static str,
        reason: &'static str,
    },
    UnexpectedResponse {
        operation: &'static str,
        reason: String,
    },
    InvalidCursor {
        reason: String,
    },
    InvalidStreamRecord {
        event_id: String,
        sequence_number: Option<String>,
        reason: String,
    },
    VersionCheckRequired {
        /// What was asked, e.g. `batch put`.
        operation: &'static str,
        /// The helper to use instead.
        instead: &'static str,
    },
    DuplicateKey {
        operation: &'static str,
    },
    VersionConflict {
        /// `None`: the write expected no item.
        expected: Option<u64>,
    },
    NotFound,
    PartialRecord {
        /// The projection's attribute names, as read.
        projection: String,
    },
    MaybeApplied {
        operation: &'static str,
        /// Why no credible answer came: a timeout, a broken connection, a
        /// server error, an answer that cannot be read or makes no sense.
        cause: Error,
    },
    TransactionCanceled {
        canceled: Vec<CanceledAction>,
        source: Box<aws_sdk_dynamodb::Error>,
    },
    Limit {
        /// What is over the limit, e.g. `transaction`.
        what: &'static str,
        count: usize,
        limit: usize,
    },
    InvalidKeyPattern {
        pattern: String,
        reason: String,
    },
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
        Error::from_repr(Repr::MissingAttribute { projected: false })
            .of_entity()
            .of_item()
            .at(attribute)
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
        Error::from_repr(Repr::InvalidValue { reason })
            .of_entity()
            .of_item()
            .at(path)
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
        Error::from_repr(Repr::InvalidKey { reason })
            .of_entity()
            .at(attribute)
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
        let source = source.into();
        Error::from_repr(Repr::Hook { hook, source })
            .of_entity()
            .of_item()
    }
}
