//! The crate's one public error type.
//!
//! Every error names the entity type it happened for (when one is known), the
//! key of the item read (for errors of reading an item), the attribute or
//! attribute path involved, and what was wrong. Causes from
//! `serde_dynamo` and from user hooks are kept as [`std::error::Error::source`].
//!
//! This is the crate's bottom layer: it depends on the SDK's types and
//! nothing else of the crate, so every other module can use it.
//!
//! - `mod.rs`: [`Error`], [`Result`], [`BoxError`] and the constructors.
//! - `kind.rs`: [`ErrorKind`], and what an error is about (entity type,
//!   attribute, key).
//! - `transaction.rs`: the actions of a canceled transaction
//!   ([`CanceledAction`]), as [`Error::TransactionCanceled`] reports them.
//! - `describe.rs`: how keys and values are shown in messages.
//! - `display.rs`: the pieces the messages are made of.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

mod describe;
mod display;
mod kind;
mod transaction;

pub use describe::{describe_key, type_name};
pub(crate) use describe::{shorten, shown, write_key_part};
use display::{
    At, Canceled, Counted, Expected, Expected2, Found, Joined, KeyedPrefix, Largest, NoReader,
    Prefix, Unclaimed, UnclaimedList,
};
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

/// A boxed error from user code (a hook), kept as the source of [`Error::Hook`].
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The crate's error type.
///
/// Messages are lowercase and start with the entity type when it is known
/// and, for errors of reading an item, the item's key (`Customer
/// (pk="CUSTOMER#C1", sk="METADATA"): ...`, or `item (pk=...): ...` when no
/// entity type applies), then the attribute (path), then what was wrong:
///
/// ```
/// use dynamodb_mapper::Error;
///
/// let err = Error::missing_attribute("pk").with_entity_type("Customer");
/// assert_eq!(err.to_string(), "Customer: attribute `pk` is missing");
/// assert_eq!(err.entity_type(), Some("Customer"));
/// assert_eq!(err.attribute(), Some("pk"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The item's discriminator names another entity type.
    #[error("{}discriminator `{attribute}` is {found:?}, expected {}", KeyedPrefix(.entity_type, .key), Expected(.expected))]
    DiscriminatorMismatch {
        /// Entity type of the mapper that read the item.
        entity_type: Option<String>,
        /// The item's primary key, rendered (`pk="CUSTOMER#C1", sk="METADATA"`).
        key: Option<Box<str>>,
        /// Name of the discriminator attribute.
        attribute: String,
        /// Values the mapper accepts (its entity type and aliases).
        expected: Vec<String>,
        /// Value found in the item.
        found: String,
    },
    /// The item has no (string) discriminator attribute.
    #[error("{}discriminator `{attribute}` is missing{}", KeyedPrefix(.entity_type, .key), Found(.found))]
    MissingDiscriminator {
        /// Entity type of the mapper that read the item.
        entity_type: Option<String>,
        /// The item's primary key, rendered.
        key: Option<Box<str>>,
        /// Name of the discriminator attribute.
        attribute: String,
        /// Description of what was there instead, if anything (e.g. `a number`).
        found: Option<String>,
    },
    /// Serializing the entity failed.
    #[error("{}cannot serialize{}: {source}", Prefix(.entity_type), At(.path))]
    Serialize {
        /// Entity type being written.
        entity_type: Option<String>,
        /// Attribute path where serialization failed, when known.
        path: Option<String>,
        /// The serializer's error.
        #[source]
        source: serde_dynamo::Error,
    },
    /// Deserializing the item failed.
    #[error("{}cannot deserialize{}: {source}", KeyedPrefix(.entity_type, .key), At(.path))]
    Deserialize {
        /// Entity type being read.
        entity_type: Option<String>,
        /// The item's primary key, rendered.
        key: Option<Box<str>>,
        /// Attribute path where deserialization failed, when known.
        path: Option<String>,
        /// The deserializer's error.
        #[source]
        source: serde_dynamo::Error,
    },
    /// A key attribute is missing, mistyped, empty or too long.
    #[error("{}key attribute `{attribute}` {reason}", Prefix(.entity_type))]
    InvalidKey {
        /// Entity type whose item or key was checked.
        entity_type: Option<String>,
        /// The key attribute.
        attribute: String,
        /// What was wrong.
        reason: String,
    },
    /// The item is over DynamoDB's size limit.
    #[error("{}item is {size} bytes, over the limit of {limit} bytes{}", Prefix(.entity_type), Largest(.largest))]
    ItemTooLarge {
        /// Entity type whose item was checked.
        entity_type: Option<String>,
        /// Size by DynamoDB's rules.
        size: usize,
        /// The limit (409,600 bytes).
        limit: usize,
        /// The largest attributes (at most three), largest first, each with
        /// its size (name plus value): what to shrink.
        largest: Vec<(String, usize)>,
    },
    /// A value DynamoDB would reject.
    #[error("{}attribute `{path}` {reason}", KeyedPrefix(.entity_type, .key))]
    InvalidValue {
        /// Entity type whose item was checked.
        entity_type: Option<String>,
        /// The key of the item read, rendered (not set on write).
        key: Option<Box<str>>,
        /// Attribute path, e.g. `lines[2].price`.
        path: String,
        /// What was wrong.
        reason: String,
    },
    /// An attribute that must be present is absent.
    #[error("{}attribute `{attribute}` is missing", KeyedPrefix(.entity_type, .key))]
    MissingAttribute {
        /// Entity type whose item was read.
        entity_type: Option<String>,
        /// The item's primary key, rendered.
        key: Option<Box<str>>,
        /// The missing attribute.
        attribute: String,
    },
    /// An attribute has an unexpected type.
    #[error("{}attribute `{attribute}` is {found}, expected {expected}", KeyedPrefix(.entity_type, .key))]
    WrongType {
        /// Entity type whose item was read.
        entity_type: Option<String>,
        /// The item's primary key, rendered.
        key: Option<Box<str>>,
        /// The attribute.
        attribute: String,
        /// The type asked for (e.g. `a string (S)`).
        expected: &'static str,
        /// The type found.
        found: &'static str,
    },
    /// A user hook returned an error.
    #[error("{}hook `{hook}` failed: {source}", KeyedPrefix(.entity_type, .key))]
    Hook {
        /// Entity type the hook ran for.
        entity_type: Option<String>,
        /// The key of the item read, rendered (not set on write).
        key: Option<Box<str>>,
        /// Name of the hook, e.g. `before_to_item`.
        hook: &'static str,
        /// The hook's own error.
        #[source]
        source: BoxError,
    },
    /// The item's discriminator names an entity type that no registered
    /// mapper (of the group decoded with, if any) reads.
    #[error("{}discriminator `{attribute}` is {found:?}, which {}", KeyedPrefix(&None, .key), NoReader(.group, .known))]
    UnknownEntityType {
        /// The item's primary key, rendered.
        key: Option<Box<str>>,
        /// Name of the discriminator attribute.
        attribute: String,
        /// Value found in the item.
        found: String,
        /// The group decoded with, if any.
        group: Option<String>,
        /// The entity types that can be read (of the group, if any).
        known: Vec<String>,
    },
    /// Building a registry found problems in the table design; every problem
    /// found is listed, not just the first.
    #[error("invalid registry ({}): {}", Counted(.problems.len(), "problem"), Joined(.problems))]
    InvalidRegistry {
        /// One message per problem, in a stable order.
        problems: Vec<String>,
    },
    /// An entity type or group asked for by name is not registered.
    #[error("{what} {name:?} is not registered")]
    NotRegistered {
        /// What was asked for: `entity type` or `group`.
        what: &'static str,
        /// The name asked for.
        name: String,
    },
    /// A discriminator filter cannot be built or applied.
    #[error("discriminator filter on `{attribute}` {reason}")]
    InvalidFilter {
        /// Name of the discriminator attribute.
        attribute: String,
        /// What was wrong.
        reason: String,
    },
    /// A compound read found too few or too many items of an entity type.
    #[error("{}expected {expected} item, found {found}", Prefix(.entity_type))]
    Cardinality {
        /// Entity type of the part.
        entity_type: Option<String>,
        /// How many were expected: `exactly one` or `at most one`.
        expected: &'static str,
        /// How many items were found.
        found: usize,
    },
    /// A compound read left items that no part claimed.
    #[error("{} not claimed: {}", Unclaimed(.counts), UnclaimedList(.counts, .attribute))]
    UnclaimedItems {
        /// Name of the discriminator attribute.
        attribute: String,
        /// Discriminator value (`None`: absent or not a string) and how many
        /// items with it were left, in the order first seen.
        counts: Vec<(Option<String>, usize)>,
    },
    /// A DynamoDB request failed; the SDK's error is the source.
    #[error("dynamodb {operation} failed: {source}")]
    Sdk {
        /// The operation, e.g. `PutItem`.
        operation: &'static str,
        /// The SDK's error (usually an [`aws_sdk_dynamodb::Error`]).
        #[source]
        source: BoxError,
    },
    /// A batch write could not write everything: it ran out of retries, met
    /// an error it must not retry (then it stopped sending), or got a
    /// response that made no sense. Every request sent is accounted for:
    /// `written + unprocessed.len() + in_doubt.len()` is the number sent.
    #[error(
        "batch write to {table} wrote {written} of {} requests: {} not written, {} in doubt, after {attempts} attempts",
        .written + .unprocessed.len() + .in_doubt.len(),
        .unprocessed.len(),
        .in_doubt.len()
    )]
    BatchWriteIncomplete {
        /// Table written to.
        table: String,
        /// Requests DynamoDB confirmed as written.
        written: usize,
        /// Requests that were certainly not written (left unprocessed, refused,
        /// or never sent because the batch stopped): safe to send again.
        unprocessed: Vec<aws_sdk_dynamodb::types::WriteRequest>,
        /// Requests whose outcome is unknown: sent, but no credible answer came
        /// back (a timeout, a dropped connection, a response that made no
        /// sense). They may or may not have been applied; sending them again
        /// writes the same item (batch writes are unconditional).
        in_doubt: Vec<aws_sdk_dynamodb::types::WriteRequest>,
        /// Most attempts made for any one batch of 25.
        attempts: u32,
        /// What stopped it, if something did (else retries ran out).
        #[source]
        cause: Option<Box<Error>>,
    },
    /// A batch get could not read every key: the items read and the keys not
    /// read are here. Every key asked for is accounted for: it is in `read`,
    /// absent from the table, or in `unprocessed`.
    #[error(
        "batch get from {table} left {} keys unread ({} items read) after {attempts} attempts",
        .unprocessed.len(),
        .read.len()
    )]
    BatchGetIncomplete {
        /// Table read from.
        table: String,
        /// Items that were read.
        read: Vec<HashMap<String, AttributeValue>>,
        /// Keys that were not read (safe to ask for again).
        unprocessed: Vec<HashMap<String, AttributeValue>>,
        /// Most attempts made for any one batch of 100.
        attempts: u32,
        /// What stopped it, if something did (else retries ran out).
        #[source]
        cause: Option<Box<Error>>,
    },
    /// A request to DynamoDB got no answer in time: the helper gave up
    /// waiting. For a write, its outcome is unknown.
    #[error("dynamodb {operation} got no answer within {after:?}")]
    Timeout {
        /// The operation, e.g. `PutItem`.
        operation: &'static str,
        /// How long it waited (the client's operation timeout when it has
        /// one, else `ops::DEFAULT_CALL_TIMEOUT`).
        after: std::time::Duration,
    },
    /// DynamoDB (or whatever answered in its place) returned a response that
    /// makes no sense for the request sent, e.g. unprocessed items of a table
    /// or key that was not in the request. Nothing in it was trusted.
    #[error("dynamodb {operation} returned an unexpected response: {reason}")]
    UnexpectedResponse {
        /// The operation, e.g. `BatchWriteItem`.
        operation: &'static str,
        /// What was odd.
        reason: String,
    },
    /// A write of a versioned entity was asked of a helper that cannot carry
    /// the version check; nothing was sent.
    #[error("{}{operation} of {key} would skip the version check on `{attribute}`; use {instead}", Prefix(.entity_type))]
    VersionCheckRequired {
        /// Entity type written, when known.
        entity_type: Option<String>,
        /// The item's key, rendered.
        key: String,
        /// What was asked, e.g. `batch put`.
        operation: &'static str,
        /// The table's version attribute.
        attribute: String,
        /// The helper to use instead.
        instead: &'static str,
    },
    /// Two requests address the same item; DynamoDB would reject the whole
    /// request, so nothing was sent.
    #[error("{operation} addresses the item {key} twice; nothing was sent")]
    DuplicateKey {
        /// The operation, e.g. `BatchWriteItem`.
        operation: &'static str,
        /// The key, rendered.
        key: String,
    },
    /// The item changed (or appeared, or vanished) since it was read; nothing
    /// was written.
    #[error("{}version conflict on {key}: {}", Prefix(.entity_type), Expected2(.expected))]
    VersionConflict {
        /// Entity type written.
        entity_type: Option<String>,
        /// The item's key, rendered.
        key: String,
        /// The version the write expected (`None`: expected no item).
        expected: Option<u64>,
    },
    /// No item exists at the key.
    #[error("{}no item at {key}", Prefix(.entity_type))]
    NotFound {
        /// Entity type looked for.
        entity_type: Option<String>,
        /// The key, rendered.
        key: String,
    },
    /// A transaction was canceled; nothing of it was written.
    #[error("transaction canceled: {}", Canceled(.canceled))]
    TransactionCanceled {
        /// The actions DynamoDB gave a reason for, with entity type and key.
        canceled: Vec<CanceledAction>,
        /// The SDK's error.
        #[source]
        source: Box<aws_sdk_dynamodb::Error>,
    },
    /// A request is over one of DynamoDB's count limits; nothing was sent.
    #[error("{what} has {count} entries, more than dynamodb's limit of {limit}")]
    Limit {
        /// What is over the limit, e.g. `transaction`.
        what: &'static str,
        /// How many there are.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A key pattern is invalid, or a key or value does not fit it.
    #[error("{}key pattern `{pattern}` {reason}", Prefix(.entity_type))]
    InvalidKeyPattern {
        /// Entity type that declared or used the pattern, when known.
        entity_type: Option<String>,
        /// The pattern's template.
        pattern: String,
        /// What was wrong.
        reason: String,
    },
}

impl Error {
    /// An [`Error::Sdk`] for `operation`.
    pub(crate) fn sdk(operation: &'static str, source: impl Into<BoxError>) -> Self {
        Error::Sdk {
            operation,
            source: source.into(),
        }
    }

    /// An [`Error::MissingAttribute`] for `attribute`.
    ///
    /// ```
    /// let err = dynamodb_mapper::Error::missing_attribute("email");
    /// assert_eq!(err.to_string(), "attribute `email` is missing");
    /// ```
    #[must_use]
    pub fn missing_attribute(attribute: impl Into<String>) -> Self {
        Error::MissingAttribute {
            entity_type: None,
            key: None,
            attribute: attribute.into(),
        }
    }

    /// An [`Error::InvalidValue`] for the attribute `path`, saying `reason`.
    ///
    /// ```
    /// let err = dynamodb_mapper::Error::invalid_value("rating", "must be 1 to 5, found 7");
    /// assert_eq!(err.to_string(), "attribute `rating` must be 1 to 5, found 7");
    /// ```
    #[must_use]
    pub fn invalid_value(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidValue {
            entity_type: None,
            key: None,
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// An [`Error::InvalidKey`] for the key attribute `attribute`, saying `reason`.
    ///
    /// ```
    /// let err = dynamodb_mapper::Error::invalid_key("pk", "is empty");
    /// assert_eq!(err.to_string(), "key attribute `pk` is empty");
    /// ```
    #[must_use]
    pub fn invalid_key(attribute: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidKey {
            entity_type: None,
            attribute: attribute.into(),
            reason: reason.into(),
        }
    }

    /// An [`Error::Hook`] wrapping a user error from the hook named `hook`.
    ///
    /// Hooks may also return any other [`Error`] directly; use this to veto
    /// with an error of your own type, which stays available as the source.
    ///
    /// ```
    /// use std::error::Error as _;
    ///
    /// let err = dynamodb_mapper::Error::hook("before_to_item", "total must not be negative");
    /// assert_eq!(err.to_string(), "hook `before_to_item` failed: total must not be negative");
    /// assert!(err.source().is_some());
    /// ```
    #[must_use]
    pub fn hook(hook: &'static str, source: impl Into<BoxError>) -> Self {
        Error::Hook {
            entity_type: None,
            key: None,
            hook,
            source: source.into(),
        }
    }
}
