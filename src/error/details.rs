//! The kinds of error, declared once: each becomes a variant of
//! [`ErrorDetails`] (with the data only that kind has) and of [`ErrorKind`]
//! (to tell errors apart), so the two never drift.

use std::time::Duration;

use aws_sdk_dynamodb::types::WriteRequest;

use super::{AttributeMap, CanceledAction, Error};

/// Declares [`ErrorDetails`], [`ErrorKind`] and the map from one to the
/// other, from one list of kinds, the context each carries (`[entity,
/// read]`: an entity type, the key of the item being read) and their fields.
macro_rules! kinds {
    ($(
        $(#[doc = $doc:literal])*
        $kind:ident [$($carries:ident),*]
        { $( $(#[doc = $fdoc:literal])* $field:ident: $ty:ty ),* $(,)? }
    )*) => {
        /// What an error says beyond its kind: the data of each kind, read
        /// with [`Error::details`] and a `match`. Every variant is
        /// non-exhaustive, so a pattern ends with `..` and new data can come
        /// without breaking your code.
        ///
        /// ```
        /// use dynamodb_mapper::{Error, ErrorDetails};
        ///
        /// let err = Error::invalid_value("rating", "must be 1 to 5");
        /// match err.details() {
        ///     ErrorDetails::InvalidValue { reason, .. } => assert_eq!(reason, "must be 1 to 5"),
        ///     other => panic!("{other:?}"),
        /// }
        /// ```
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum ErrorDetails {
            $( $(#[doc = $doc])* #[non_exhaustive] $kind { $( $(#[doc = $fdoc])* $field: $ty ),* }, )*
        }

        /// What went wrong, as a value: how to tell [`Error`]s apart. Each
        /// kind's data is the [`ErrorDetails`] variant of the same name.
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
            $( $(#[doc = $doc])* $kind, )*
        }

        impl ErrorDetails {
            fn kind(&self) -> ErrorKind {
                match self {
                    $( ErrorDetails::$kind { .. } => ErrorKind::$kind, )*
                }
            }

            /// Which context the kind carries: (an entity type, the key of
            /// the item being read), as its `[...]` in the list says.
            pub(super) fn context(&self) -> (bool, bool) {
                match self {
                    $( ErrorDetails::$kind { .. } => (
                        false $(|| carries!(entity, $carries))*,
                        false $(|| carries!(read, $carries))*,
                    ), )*
                }
            }
        }
    };
}

/// Whether a kind's context list names `$want`; a name other than `entity`
/// or `read` in a list does not compile.
macro_rules! carries {
    (entity, entity) => {
        true
    };
    (read, read) => {
        true
    };
    ($want:ident, entity) => {
        false
    };
    ($want:ident, read) => {
        false
    };
}

kinds! {
    /// The discriminator attribute holds another entity type.
    DiscriminatorMismatch [entity, read] {
        /// The values the mapper accepts (its entity type and aliases).
        expected: Vec<String>,
        /// The value found.
        found: String,
    }
    /// The discriminator attribute is absent (or not a string).
    MissingDiscriminator [entity, read] {
        /// What was there instead, if anything (e.g. `a number (N)`).
        found: Option<String>,
    }
    /// The entity could not be serialized into an item (the serializer's
    /// error is the source).
    Serialize [entity] {}
    /// The item could not be deserialized into the entity (the
    /// deserializer's error is the source).
    Deserialize [entity, read] {}
    /// A key attribute is missing, has the wrong type, is empty or too long.
    InvalidKey [entity] {
        /// What is wrong with it.
        reason: String,
    }
    /// The item is larger than DynamoDB's 400 KB limit.
    ItemTooLarge [entity, read] {
        /// The item's size in bytes, as DynamoDB counts it.
        size: usize,
        /// The limit in bytes.
        limit: usize,
        /// The largest attributes (at most three, largest first) and their sizes.
        largest: Vec<(String, usize)>,
    }
    /// A value DynamoDB would reject (bad number, empty set, unknown type).
    InvalidValue [entity, read] {
        /// What is wrong with it.
        reason: String,
    }
    /// An attribute that must be present is absent.
    MissingAttribute [entity, read] {
        /// The item was read through a projection that leaves it out.
        projected: bool,
    }
    /// An attribute has another type than the one asked for.
    WrongType [entity, read] {
        /// The type asked for, e.g. `a string (S)`.
        expected: &'static str,
        /// The type found.
        found: &'static str,
    }
    /// A user hook vetoed the operation (the hook's own error is the source).
    Hook [entity, read] {
        /// The hook's name, e.g. `before_to_item`.
        hook: &'static str,
    }
    /// An item's discriminator names an entity type no registered mapper reads.
    UnknownEntityType [read] {
        /// The discriminator value found.
        found: String,
        /// The group read through, if any.
        group: Option<String>,
        /// The access pattern read through, if any.
        pattern: Option<String>,
        /// The entity types that can be read (of the group or access
        /// pattern, if any).
        known: Vec<String>,
    }
    /// Building a registry found problems in the table design.
    InvalidRegistry [] {
        /// One line per problem.
        problems: Vec<String>,
    }
    /// A mapper's declarations do not hold together: key patterns that name
    /// no field (or a field that cannot be a key component), fields stored
    /// under an attribute the mapper writes itself, clashing names. Found by
    /// [`MapperExt::check`](crate::MapperExt::check), before any write.
    InvalidMapper [entity] {
        /// One line per problem.
        problems: Vec<String>,
    }
    /// An entity type or group asked for is not registered.
    NotRegistered [] {
        /// `entity type` or `group`.
        what: &'static str,
        /// The name asked for.
        name: String,
    }
    /// A discriminator filter cannot be built or applied.
    InvalidFilter [] {
        /// What is wrong.
        reason: String,
    }
    /// A compound read found too few or too many items of an entity type.
    Cardinality [entity] {
        /// `exactly one` or `at most one`.
        expected: &'static str,
        /// How many items were found.
        found: usize,
    }
    /// A compound read left items that no part claimed.
    UnclaimedItems [] {
        /// The discriminator attribute.
        discriminator: String,
        /// Each discriminator value (`None`: absent or not a string) and how
        /// many items with it were left, in the order first seen.
        counts: Vec<(Option<String>, usize)>,
    }
    /// A DynamoDB request failed (the SDK's error is the source).
    Sdk [] {
        /// The request, e.g. `PutItem`.
        operation: &'static str,
    }
    /// A batch write could not write everything; `unwritten` says what is
    /// left ([`Error::into_unwritten`] takes it).
    BatchWriteIncomplete [] {
        /// The table written to.
        table: String,
        /// What was written, what was not, and what may have been.
        unwritten: Unwritten,
        /// How many `BatchWriteItem` rounds were sent.
        attempts: u32,
        /// What stopped the batch, if an error did (also the source).
        cause: Option<Error>,
    }
    /// A batch get could not read everything; `unread` says what is left
    /// ([`Error::into_unread`] takes it).
    BatchGetIncomplete [] {
        /// The table read from.
        table: String,
        /// What was read and the keys left unread.
        unread: Unread,
        /// How many `BatchGetItem` rounds were sent.
        attempts: u32,
        /// What stopped the batch, if an error did (also the source).
        cause: Option<Error>,
    }
    /// Two requests of one batch or transaction address the same item
    /// ([`Error::key`] names it). Nothing was sent.
    DuplicateKey [] {
        /// The request, e.g. `BatchWriteItem`.
        operation: &'static str,
    }
    /// An optimistic-locking check failed: the item changed since it was
    /// read ([`Error::key`] names it).
    VersionConflict [entity] {
        /// The version the write expected (`None`: no item, or an item
        /// without a version).
        expected: Option<u64>,
        /// For an entity without versions: the write expected the item to
        /// hold the unique values it was given, and another writer changed
        /// them.
        unique_values: bool,
    }
    /// A unique constraint ([`Mapper::UNIQUE`](crate::Mapper::UNIQUE)):
    /// another item holds the value already ([`Error::key`] names the item
    /// being written). Nothing was written.
    UniqueViolation [entity] {
        /// The constraint's name.
        constraint: &'static str,
        /// The value, as a person reads it (several fields: joined with `, `).
        value: String,
        /// The key of the item that holds it, when the sentinel names one.
        holder: Option<AttributeMap>,
    }
    /// No item exists at the key ([`Error::key`]).
    NotFound [entity] {}
    /// A record read through a projection
    /// ([`Record::projection`](crate::Record::projection)) would be written
    /// whole, dropping what the projection left out. [`Error::key`] names
    /// the item. Nothing was sent.
    PartialRecord [entity] {
        /// The projection's attribute names, as read.
        projection: String,
    }
    /// A write to one item got no credible answer (it ran out of time, the
    /// connection broke, the server failed, or the answer cannot be read or
    /// makes no sense): it may have been applied, or was, when the message
    /// says so. [`Error::key`] names the item. Sending it again may apply
    /// it twice: read the item to know.
    MaybeApplied [entity] {
        /// The request, e.g. `UpdateItem`.
        operation: &'static str,
        /// Why no credible answer came (also the source).
        cause: Error,
    }
    /// A transaction was canceled; the reasons are mapped to its actions
    /// (the SDK's error is the source).
    TransactionCanceled [] {
        /// The actions DynamoDB gave a reason for, in request order.
        canceled: Vec<CanceledAction>,
    }
    /// A request is over one of DynamoDB's count limits.
    Limit [] {
        /// What is over the limit, e.g. `transaction`.
        what: &'static str,
        /// How many entries it has.
        count: usize,
        /// The limit.
        limit: usize,
    }
    /// A key pattern is invalid, or a key or value does not fit it.
    InvalidKeyPattern [entity] {
        /// The pattern's template.
        pattern: String,
        /// What is wrong.
        reason: String,
    }
    /// A request got no answer in time.
    Timeout [] {
        /// The request, e.g. `GetItem`.
        operation: &'static str,
        /// The bound that ran out.
        after: Duration,
        /// The helper's whole deadline ran out (else one call's bound).
        deadline: bool,
    }
    /// A table created by [`Table::create_table`](crate::ops::Table::create_table)
    /// did not become active in time.
    TableNotActive [] {
        /// The table's name.
        table: String,
        /// How long the helper waited.
        after: Duration,
        /// What the last `DescribeTable` said, e.g. `CREATING`.
        status: String,
    }
    /// DynamoDB returned a response that makes no sense for the request.
    UnexpectedResponse [] {
        /// The request, e.g. `Query`.
        operation: &'static str,
        /// What makes no sense.
        reason: String,
    }
    /// A versioned entity would have been written without its version
    /// check ([`Error::key`] names the item). Nothing was sent.
    VersionCheckRequired [entity] {
        /// What was asked, e.g. `batch put`.
        operation: &'static str,
        /// The helper to use instead.
        instead: &'static str,
    }
    /// A write of an entity with unique constraints that cannot keep their
    /// sentinels right (a batch write, a put or delete that does not know
    /// the values it replaces): refused before sending, naming the helper
    /// to use ([`Error::key`] the item, [`Error::attribute`] a field of the
    /// constraint).
    UniqueCheckRequired [entity] {
        /// What was asked, e.g. `batch put`.
        operation: &'static str,
        /// The constraint.
        constraint: &'static str,
        /// The helper to use instead.
        instead: &'static str,
    }
    /// `CreateTable` found a table of that name already, in any state (the
    /// SDK's `ResourceInUseException` is the source).
    TableExists [] {
        /// The table's name.
        table: String,
    }
    /// A pagination cursor was refused: not a token of this table and
    /// index, not signed with the expected secret, altered, or malformed.
    /// Nothing was sent.
    InvalidCursor [] {
        /// Which of those.
        reason: String,
    }
    /// A DynamoDB Streams record (from the Streams API or a Lambda event)
    /// that cannot be read: an unknown event name, an image deeper than
    /// DynamoDB allows or holding an attribute type this crate does not
    /// know, an image the stream's view type does not carry.
    InvalidStreamRecord [] {
        /// The record's event ID.
        event_id: String,
        /// The record's sequence number, when it has one.
        sequence_number: Option<String>,
        /// Which of those.
        reason: String,
    }
    /// The SDK client lacks something a helper needs: an async sleep
    /// implementation, to bound its calls and wait between retries.
    /// Nothing was sent.
    ClientConfig [] {
        /// The request the helper was to send.
        operation: &'static str,
        /// What is missing.
        reason: &'static str,
    }
}

/// The accounting of an incomplete batch write: what DynamoDB confirmed,
/// and what it did not certainly write (`written + unprocessed + in_doubt`
/// is every request sent). The data of
/// [`ErrorDetails::BatchWriteIncomplete`], taken out of the error by
/// [`Error::into_unwritten`].
///
/// ```
/// let left = dynamodb_mapper::ops::Unwritten::default();
/// assert_eq!(left.written + left.unprocessed.len() + left.in_doubt.len(), 0);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Unwritten {
    /// How many requests DynamoDB confirmed as written.
    pub written: usize,
    /// Requests that were certainly not written (left unprocessed, refused,
    /// or never sent because the batch stopped): safe to send again.
    pub unprocessed: Vec<WriteRequest>,
    /// Requests whose outcome is unknown: sent, but no credible answer came
    /// back (a timeout, a dropped connection, a response that made no
    /// sense). They may or may not have been applied; sending them again
    /// writes the same item (batch writes are unconditional).
    pub in_doubt: Vec<WriteRequest>,
}

/// What an incomplete batch get left: the data of
/// [`ErrorDetails::BatchGetIncomplete`], taken whole by
/// [`Error::into_unread`].
///
/// ```
/// let left = dynamodb_mapper::ops::Unread::default();
/// assert!(left.read.is_empty() && left.unprocessed.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Unread {
    /// Items that were read.
    pub read: Vec<AttributeMap>,
    /// Keys that were not read: safe to ask for again.
    pub unprocessed: Vec<AttributeMap>,
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
        self.0.details.kind()
    }

    /// What was wrong, in words, for the kinds that say it in one phrase.
    pub(crate) fn reason(&self) -> Option<&str> {
        match &self.0.details {
            ErrorDetails::InvalidKey { reason, .. }
            | ErrorDetails::InvalidValue { reason, .. }
            | ErrorDetails::InvalidFilter { reason, .. }
            | ErrorDetails::UnexpectedResponse { reason, .. }
            | ErrorDetails::InvalidCursor { reason, .. }
            | ErrorDetails::InvalidStreamRecord { reason, .. }
            | ErrorDetails::InvalidKeyPattern { reason, .. } => Some(reason),
            _ => None,
        }
    }

    /// The data of this error's kind.
    ///
    /// ```
    /// use dynamodb_mapper::{Error, ErrorDetails};
    ///
    /// let err = Error::hook("before_to_item", "quota exceeded");
    /// assert!(matches!(err.details(), ErrorDetails::Hook { hook: "before_to_item", .. }));
    /// ```
    #[must_use]
    pub fn details(&self) -> &ErrorDetails {
        &self.0.details
    }

    /// Takes what an incomplete batch write did not certainly write out of
    /// the error: the requests to send again and those in doubt. An error
    /// of another kind comes back as it is.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::Client;
    /// # use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use aws_smithy_mocks::{RuleMode, mock, mock_client};
    /// # use dynamodb_mapper::{Item, TableSchema, ops::{RetryPolicy, Table}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> dynamodb_mapper::Result<()> {
    /// # // DynamoDB leaves the first request of each call unprocessed.
    /// # let rule = mock!(Client::batch_write_item).then_compute_output(|req| {
    /// #     let first = req.request_items().unwrap()["Notes"][0].clone();
    /// #     BatchWriteItemOutput::builder().unprocessed_items("Notes", vec![first]).build()
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    /// # let note = |i: u32| Item::from([("pk".to_string(), AttributeValue::S(format!("NOTE#{i}")))]);
    /// let table = Table::new(&client, "Notes", TableSchema::new("pk")).retry_policy(RetryPolicy::new(1));
    /// let err = table.batch_writer().put_items(vec![note(1), note(2), note(3)]).await.unwrap_err();
    /// let unwritten = err.into_unwritten()?;
    /// assert_eq!(unwritten.written, 2);
    /// assert_eq!((unwritten.unprocessed.len(), unwritten.in_doubt.len()), (1, 0));
    /// // Send the rest again (here DynamoDB leaves it unprocessed once more).
    /// let again = table.batch_writer().write(unwritten.unprocessed).await.unwrap_err();
    /// assert_eq!(again.into_unwritten()?.written, 0);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// The error itself, unchanged, when it is not a
    /// [`BatchWriteIncomplete`](ErrorKind::BatchWriteIncomplete).
    pub fn into_unwritten(mut self) -> Result<Unwritten, Error> {
        match &mut self.0.details {
            ErrorDetails::BatchWriteIncomplete { unwritten, .. } => Ok(std::mem::take(unwritten)),
            _ => Err(self),
        }
    }

    /// Takes what an incomplete batch get left: the items read and the
    /// keys not read; any other error comes back unchanged.
    ///
    /// # Errors
    ///
    /// The error itself, when it is not a
    /// [`BatchGetIncomplete`](ErrorKind::BatchGetIncomplete).
    ///
    /// ```
    /// let err = dynamodb_mapper::Error::missing_attribute("pk");
    /// assert!(err.into_unread().is_err());
    /// ```
    pub fn into_unread(mut self) -> Result<Unread, Error> {
        match &mut self.0.details {
            ErrorDetails::BatchGetIncomplete { unread, .. } => Ok(std::mem::take(unread)),
            _ => Err(self),
        }
    }
}
