//! The data of each kind of [`Error`], read through accessors named for
//! what they return: `None` or an empty slice for an error of another kind.

use std::time::Duration;

use aws_sdk_dynamodb::types::WriteRequest;

use super::{AttributeMap, CanceledAction, Error, Repr};

/// The accounting of an incomplete batch write: what DynamoDB confirmed,
/// and what it did not certainly write (`written + unprocessed + in_doubt`
/// is every request sent). Read it with [`Error::unwritten`], take it out
/// of the error with [`Error::into_unwritten`].
///
/// ```
/// use dynamodb_mapper::{Error, ops::Unwritten};
///
/// // Resend what was certainly not written; look into what is in doubt.
/// fn to_resend(err: Error) -> Result<Unwritten, Error> {
///     err.into_unwritten()
/// }
/// assert!(to_resend(Error::missing_attribute("pk")).is_err());
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

/// What an incomplete batch get read, and the keys it did not read. Read
/// it with [`Error::unread`], take it out of the error with
/// [`Error::into_unread`].
///
/// ```
/// use dynamodb_mapper::{Error, ops::Unread};
///
/// fn leftovers(err: Error) -> Result<Unread, Error> {
///     err.into_unread()
/// }
/// assert!(leftovers(Error::missing_attribute("pk")).is_err());
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
    /// The operation that failed or was refused, where one applies: the
    /// DynamoDB operation (`PutItem`, `BatchWriteItem`, `TransactWriteItems`,
    /// ...) of a request that failed, got no answer or an unexpected one,
    /// that stopped a batch or canceled a transaction, or that addresses
    /// an item twice; what was asked (`batch put`, `transaction delete`) of
    /// a helper that would skip a version check.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::{AttributeValue, Delete, TransactWriteItem};
    /// use dynamodb_mapper::{ErrorKind, Item, ops::{ActionInfo, ActionKind, Transaction}};
    ///
    /// let key = Item::from([("pk".to_string(), AttributeValue::S("AUDIT#1".into()))]);
    /// let mut tx = dynamodb_mapper_support::doc::table().transaction();
    /// for _ in 0..2 {
    ///     let delete = Delete::builder().table_name("AppTable").set_key(Some(key.clone())).build()?;
    ///     let info = ActionInfo::new(ActionKind::Delete, "AppTable", "Audit", key.clone());
    ///     if let Err(err) = tx.push(TransactWriteItem::builder().delete(delete).build(), info) {
    ///         assert_eq!(err.kind(), ErrorKind::DuplicateKey);
    ///         assert_eq!(err.operation(), Some("TransactWriteItems"));
    ///     }
    /// }
    /// assert_eq!(dynamodb_mapper::Error::missing_attribute("pk").operation(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn operation(&self) -> Option<&'static str> {
        match &self.0.repr {
            Repr::Sdk { operation, .. }
            | Repr::Timeout { operation, .. }
            | Repr::MaybeApplied { operation, .. }
            | Repr::UnexpectedResponse { operation, .. }
            | Repr::ClientConfig { operation, .. }
            | Repr::VersionCheckRequired { operation, .. }
            | Repr::DuplicateKey { operation } => Some(operation),
            Repr::BatchWriteIncomplete { .. } => Some("BatchWriteItem"),
            Repr::BatchGetIncomplete { .. } => Some("BatchGetItem"),
            Repr::TransactionCanceled { .. } => Some("TransactWriteItems"),
            Repr::TableNotActive { .. } | Repr::TableExists { .. } => Some("CreateTable"),
            _ => None,
        }
    }

    /// What was wrong, in words, for the kinds that say it in one phrase:
    /// an invalid key, value, discriminator filter or key pattern, and an
    /// unexpected response.
    ///
    /// ```
    /// let err = dynamodb_mapper::Error::invalid_value("rating", "must be 1 to 5, found 7");
    /// assert_eq!(err.reason(), Some("must be 1 to 5, found 7"));
    /// ```
    #[must_use]
    pub fn reason(&self) -> Option<&str> {
        match &self.0.repr {
            Repr::InvalidKey { reason }
            | Repr::InvalidValue { reason }
            | Repr::InvalidFilter { reason }
            | Repr::UnexpectedResponse { reason, .. }
            | Repr::InvalidCursor { reason }
            | Repr::InvalidStreamRecord { reason, .. }
            | Repr::InvalidKeyPattern { reason, .. } => Some(reason),
            _ => None,
        }
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
    /// let record = ChangeRecord::new("e1", ChangeKind::Remove, Default::default())
    ///     .with_sequence_number("42")
    ///     .with_new_image(Default::default());
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
        match &self.0.repr {
            Repr::InvalidStreamRecord {
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
    /// let record = ChangeRecord::new("e3", ChangeKind::Modify, TABLE.key_of(&item)?)
    ///     .with_sequence_number("43")
    ///     .with_old_image(item)
    ///     .with_new_image(broken);
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

    /// The name of the hook that failed, e.g. `before_to_item`.
    ///
    /// ```
    /// let err = dynamodb_mapper::Error::hook("before_to_item", "quota exceeded");
    /// assert_eq!(err.hook_name(), Some("before_to_item"));
    /// ```
    #[must_use]
    pub fn hook_name(&self) -> Option<&'static str> {
        match &self.0.repr {
            Repr::Hook { hook, .. } => Some(hook),
            _ => None,
        }
    }

    /// The discriminator value found in the item, when it names another
    /// entity type than expected or one no registered mapper reads.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Item, hooks::check_discriminator};
    ///
    /// let item = Item::from([("entityType".to_string(), AttributeValue::S("Refund".into()))]);
    /// let err = check_discriminator(&item, "entityType", &["Order"]).unwrap_err();
    /// assert_eq!(err.discriminator_value(), Some("Refund"));
    /// ```
    #[must_use]
    pub fn discriminator_value(&self) -> Option<&str> {
        match &self.0.repr {
            Repr::DiscriminatorMismatch { found, .. } | Repr::UnknownEntityType { found, .. } => {
                Some(found)
            }
            _ => None,
        }
    }

    /// The discriminator values a mapper accepts (its entity type and
    /// aliases), when the item held another.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Item, hooks::check_discriminator};
    ///
    /// let item = Item::from([("entityType".to_string(), AttributeValue::S("Refund".into()))]);
    /// let err = check_discriminator(&item, "entityType", &["Order", "Purchase"]).unwrap_err();
    /// assert_eq!(err.expected_discriminators(), ["Order", "Purchase"]);
    /// ```
    #[must_use]
    pub fn expected_discriminators(&self) -> &[String] {
        match &self.0.repr {
            Repr::DiscriminatorMismatch { expected, .. } => expected,
            _ => &[],
        }
    }

    /// The group an item was decoded with, when no mapper of it reads the
    /// item's entity type.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize)]
    /// # struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         Ok(())
    /// #     }
    /// # }
    /// let registry = Registry::builder()
    ///     .register::<NoteMapper>(|note| note)
    ///     .group("Notes", &["Note"])
    ///     .build()?;
    /// let item = Item::from([
    ///     ("pk".to_string(), AttributeValue::S("TASK#1".into())),
    ///     ("entityType".to_string(), AttributeValue::S("Task".into())),
    /// ]);
    /// let err = registry.group("Notes")?.decode(item).unwrap_err();
    /// assert_eq!(err.group(), Some("Notes"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn group(&self) -> Option<&str> {
        match &self.0.repr {
            Repr::UnknownEntityType { group, .. } => group.as_deref(),
            _ => None,
        }
    }

    /// The entity types that can be read (of the group decoded with, if
    /// any), when an item's discriminator names none of them.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(Debug, serde::Serialize, serde::Deserialize)]
    /// # struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         Ok(())
    /// #     }
    /// # }
    /// let registry = Registry::builder().register::<NoteMapper>(|note| note).build()?;
    /// let item = Item::from([
    ///     ("pk".to_string(), AttributeValue::S("TASK#1".into())),
    ///     ("entityType".to_string(), AttributeValue::S("Task".into())),
    /// ]);
    /// let err = registry.decode(item).unwrap_err();
    /// assert_eq!(err.discriminator_value(), Some("Task"));
    /// assert_eq!(err.known_entity_types(), ["Note"]);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn known_entity_types(&self) -> &[String] {
        match &self.0.repr {
            Repr::UnknownEntityType { known, .. } => known,
            _ => &[],
        }
    }

    /// The problems an invalid registry (or an invalid mapper, see
    /// [`ErrorKind::InvalidMapper`](crate::ErrorKind::InvalidMapper)) has,
    /// one message each, in a stable order: every problem found, not just
    /// the first.
    ///
    /// ```
    /// use dynamodb_mapper::{ErrorKind, Registry};
    ///
    /// let err = Registry::<()>::builder().build().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::InvalidRegistry);
    /// assert_eq!(err.problems(), ["no mapper is registered"]);
    /// ```
    #[must_use]
    pub fn problems(&self) -> &[String] {
        match &self.0.repr {
            Repr::InvalidRegistry { problems } | Repr::InvalidMapper { problems } => problems,
            _ => &[],
        }
    }

    /// The size of an item over DynamoDB's limit, in bytes by DynamoDB's
    /// rules.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
    /// use dynamodb_mapper::{Item, ops::{ActionInfo, ActionKind, Transaction}};
    ///
    /// let item = Item::from([
    ///     ("pk".to_string(), AttributeValue::S("BLOB#1".into())),
    ///     ("data".to_string(), AttributeValue::S("x".repeat(409_600))),
    /// ]);
    /// let put = Put::builder().table_name("AppTable").set_item(Some(item.clone())).build()?;
    /// let info = ActionInfo::new(ActionKind::Put, "AppTable", "Blob", item);
    /// let err = dynamodb_mapper_support::doc::table().transaction()
    ///     .push(TransactWriteItem::builder().put(put).build(), info)
    ///     .unwrap_err();
    /// assert_eq!(err.item_size(), Some(409_612));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn item_size(&self) -> Option<usize> {
        match &self.0.repr {
            Repr::ItemTooLarge { size, .. } => Some(*size),
            _ => None,
        }
    }

    /// The largest attributes of an item over DynamoDB's size limit (at most
    /// three), largest first, each with its size (name plus value): what to
    /// shrink.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
    /// use dynamodb_mapper::{Item, ops::{ActionInfo, ActionKind, Transaction}};
    ///
    /// let item = Item::from([
    ///     ("pk".to_string(), AttributeValue::S("BLOB#1".into())),
    ///     ("data".to_string(), AttributeValue::S("x".repeat(409_600))),
    /// ]);
    /// let put = Put::builder().table_name("AppTable").set_item(Some(item.clone())).build()?;
    /// let info = ActionInfo::new(ActionKind::Put, "AppTable", "Blob", item);
    /// let err = dynamodb_mapper_support::doc::table().transaction()
    ///     .push(TransactWriteItem::builder().put(put).build(), info)
    ///     .unwrap_err();
    /// assert_eq!(err.largest_attributes()[0], ("data".to_string(), 409_604));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn largest_attributes(&self) -> &[(String, usize)] {
        match &self.0.repr {
            Repr::ItemTooLarge { largest, .. } => largest,
            _ => &[],
        }
    }

    /// The version a versioned write expected, when another writer got
    /// there first; `None` also for a conflict of a write that expected no
    /// item (the first write of a record).
    ///
    /// ```
    /// # use aws_sdk_dynamodb::Client;
    /// # use aws_sdk_dynamodb::operation::put_item::PutItemError;
    /// # use aws_sdk_dynamodb::types::error::ConditionalCheckFailedException;
    /// # use aws_smithy_mocks::{RuleMode, mock, mock_client};
    /// # use dynamodb_mapper::{Item, Mapper, Record, TableSchema, hooks::put_str, ops};
    /// # #[derive(serde::Serialize, serde::Deserialize)]
    /// # struct Counter { id: String }
    /// # struct CounterMapper;
    /// # impl Mapper for CounterMapper {
    /// #     type Entity = Counter;
    /// #     const ENTITY_TYPE: &'static str = "Counter";
    /// #     const TABLE: TableSchema = TableSchema::new("pk").version("version");
    /// #     fn after_to_item(c: &Counter, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("COUNTER#{}", c.id));
    /// #         Ok(())
    /// #     }
    /// # }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # // Another writer changed the item: DynamoDB refuses the conditional put.
    /// # let rule = mock!(Client::put_item).then_error(|| {
    /// #     PutItemError::ConditionalCheckFailedException(
    /// #         ConditionalCheckFailedException::builder().build(),
    /// #     )
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    /// let mut record = Record::new(Counter { id: "A".into() });
    /// record.version = Some(4);
    /// let err = dynamodb_mapper::ops::Table::new(&client, "AppTable", CounterMapper::TABLE).put_versioned::<CounterMapper>(&mut record)
    ///     .await
    ///     .unwrap_err();
    /// assert_eq!(err.expected_version(), Some(4));
    /// assert_eq!(err.key(), Some(r#"pk="COUNTER#A""#));
    /// # }
    /// ```
    #[must_use]
    pub fn expected_version(&self) -> Option<u64> {
        match &self.0.repr {
            Repr::VersionConflict { expected } => *expected,
            _ => None,
        }
    }

    /// How long a request waited for an answer before the helper gave up
    /// (the client's operation timeout when it has one, else
    /// [`ops::DEFAULT_CALL_TIMEOUT`](crate::ops::DEFAULT_CALL_TIMEOUT)). For
    /// a write, its outcome is unknown. For a table that did not become
    /// active, how long the helper was to wait for it
    /// ([`CreateTable::max_wait`](crate::ops::CreateTable::max_wait)).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
    /// # use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
    /// # use aws_sdk_dynamodb::{Client, Config};
    /// # use dynamodb_mapper::{ErrorKind, Item, ops};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// # // A server on this machine that accepts connections and never answers.
    /// # let silent = std::net::TcpListener::bind("127.0.0.1:0")?;
    /// # let config = Config::builder()
    /// #     .behavior_version(BehaviorVersion::latest())
    /// #     .region(Region::new("us-east-1"))
    /// #     .credentials_provider(Credentials::new("test", "test", None, None, "test"))
    /// #     .endpoint_url(format!("http://{}", silent.local_addr()?))
    /// #     .timeout_config(TimeoutConfig::builder().operation_timeout(Duration::from_millis(50)).build())
    /// #     .build();
    /// # let client = Client::from_conf(config);
    /// # let item = Item::from([("pk".to_string(), aws_sdk_dynamodb::types::AttributeValue::S("A".into()))]);
    /// let err = ops::Table::new(&client, "AppTable", dynamodb_mapper::TableSchema::new("pk")).batch_getter()
    ///     .get_items(vec![item])
    ///     .await
    ///     .unwrap_err();
    /// let cause = err.cause().unwrap();
    /// assert_eq!(cause.kind(), ErrorKind::Timeout);
    /// assert_eq!(cause.timeout(), Some(Duration::from_millis(50)));
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn timeout(&self) -> Option<Duration> {
        match &self.0.repr {
            Repr::Timeout { after, .. } | Repr::TableNotActive { after, .. } => Some(*after),
            _ => None,
        }
    }

    /// The actions of a canceled transaction that DynamoDB gave a reason
    /// for, with their entity type and key, in the order of the
    /// transaction.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::Client;
    /// # use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
    /// # use aws_sdk_dynamodb::types::error::TransactionCanceledException;
    /// # use aws_sdk_dynamodb::types::{AttributeValue, CancellationReason, Put, TransactWriteItem};
    /// # use aws_smithy_mocks::{RuleMode, mock, mock_client};
    /// # use dynamodb_mapper::{Item, ops::{ActionInfo, ActionKind, Transaction}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # // DynamoDB cancels the transaction: its one condition failed.
    /// # let rule = mock!(Client::transact_write_items).then_error(|| {
    /// #     TransactWriteItemsError::TransactionCanceledException(
    /// #         TransactionCanceledException::builder()
    /// #             .cancellation_reasons(CancellationReason::builder().code("ConditionalCheckFailed").build())
    /// #             .build(),
    /// #     )
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    /// let item = Item::from([("pk".to_string(), AttributeValue::S("ORDER#1".into()))]);
    /// let put = Put::builder()
    ///     .table_name("AppTable")
    ///     .set_item(Some(item.clone()))
    ///     .condition_expression("attribute_not_exists(pk)")
    ///     .build()?;
    /// let table = dynamodb_mapper::ops::Table::new(&client, "AppTable", dynamodb_mapper::TableSchema::new("pk"));
    /// let mut tx = table.transaction();
    /// tx.push(
    ///     TransactWriteItem::builder().put(put).build(),
    ///     ActionInfo::new(ActionKind::Put, "AppTable", "Order", item),
    /// )?;
    /// let err = tx.send().await.unwrap_err();
    /// let canceled = err.canceled();
    /// assert_eq!(canceled.len(), 1);
    /// assert_eq!(canceled[0].action.entity_type, "Order");
    /// assert_eq!(canceled[0].code, "ConditionalCheckFailed");
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn canceled(&self) -> &[CanceledAction] {
        match &self.0.repr {
            Repr::TransactionCanceled { canceled, .. } => canceled,
            _ => &[],
        }
    }

    /// The table an incomplete batch wrote to or read from; the table
    /// [`Table::create_table`](crate::ops::Table::create_table) found
    /// already there or waited for in vain.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::Client;
    /// # use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use aws_smithy_mocks::{RuleMode, mock, mock_client};
    /// # use dynamodb_mapper::{Item, TableSchema, ops::{BatchWriter, RetryPolicy}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # // DynamoDB leaves the first request of each call unprocessed.
    /// # let rule = mock!(Client::batch_write_item).then_compute_output(|req| {
    /// #     let first = req.request_items().unwrap()["Notes"][0].clone();
    /// #     BatchWriteItemOutput::builder().unprocessed_items("Notes", vec![first]).build()
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    /// # let note = |i: u32| Item::from([("pk".to_string(), AttributeValue::S(format!("NOTE#{i}")))]);
    /// let err = dynamodb_mapper::ops::Table::new(&client, "Notes", TableSchema::new("pk")).retry_policy(RetryPolicy::new(1)).batch_writer()
    ///     .put_items(vec![note(1), note(2), note(3)])
    ///     .await
    ///     .unwrap_err();
    /// assert_eq!(err.table(), Some("Notes"));
    /// # }
    /// ```
    #[must_use]
    pub fn table(&self) -> Option<&str> {
        match &self.0.repr {
            Repr::BatchWriteIncomplete { table, .. }
            | Repr::BatchGetIncomplete { table, .. }
            | Repr::TableNotActive { table, .. }
            | Repr::TableExists { table, .. } => Some(table),
            _ => None,
        }
    }

    /// The accounting of an incomplete batch write: how many requests were
    /// written, those certainly not written (left unprocessed, refused, or
    /// never sent because the batch stopped: safe to send again), and those
    /// in doubt (sent, but no credible answer came back: a timeout, a
    /// dropped connection, a response that made no sense; they may or may
    /// not have been applied, and sending them again writes the same item,
    /// as batch writes are unconditional). `None` for another kind of error.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::Client;
    /// # use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use aws_smithy_mocks::{RuleMode, mock, mock_client};
    /// # use dynamodb_mapper::{Item, TableSchema, ops::{BatchWriter, RetryPolicy}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # // DynamoDB leaves the first request of each call unprocessed.
    /// # let rule = mock!(Client::batch_write_item).then_compute_output(|req| {
    /// #     let first = req.request_items().unwrap()["Notes"][0].clone();
    /// #     BatchWriteItemOutput::builder().unprocessed_items("Notes", vec![first]).build()
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    /// # let note = |i: u32| Item::from([("pk".to_string(), AttributeValue::S(format!("NOTE#{i}")))]);
    /// let err = dynamodb_mapper::ops::Table::new(&client, "Notes", TableSchema::new("pk")).retry_policy(RetryPolicy::new(1)).batch_writer()
    ///     .put_items(vec![note(1), note(2), note(3)])
    ///     .await
    ///     .unwrap_err();
    /// let unwritten = err.unwritten().unwrap();
    /// assert_eq!(unwritten.written, 2);
    /// let [again] = &unwritten.unprocessed[..] else { panic!("{err:?}") };
    /// assert!(again.put_request().is_some());
    /// assert!(unwritten.in_doubt.is_empty());
    /// # }
    /// ```
    #[must_use]
    pub fn unwritten(&self) -> Option<&Unwritten> {
        match &self.0.repr {
            Repr::BatchWriteIncomplete { unwritten, .. } => Some(unwritten),
            _ => None,
        }
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
    /// # use dynamodb_mapper::{Item, TableSchema, ops::{BatchWriter, RetryPolicy}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> dynamodb_mapper::Result<()> {
    /// # // DynamoDB leaves the first request of each call unprocessed.
    /// # let rule = mock!(Client::batch_write_item).then_compute_output(|req| {
    /// #     let first = req.request_items().unwrap()["Notes"][0].clone();
    /// #     BatchWriteItemOutput::builder().unprocessed_items("Notes", vec![first]).build()
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    /// # let note = |i: u32| Item::from([("pk".to_string(), AttributeValue::S(format!("NOTE#{i}")))]);
    /// let writer = dynamodb_mapper::ops::Table::new(&client, "Notes", TableSchema::new("pk")).retry_policy(RetryPolicy::new(1)).batch_writer();
    /// let err = writer.put_items(vec![note(1), note(2), note(3)]).await.unwrap_err();
    /// let unwritten = err.into_unwritten()?;
    /// assert_eq!((unwritten.unprocessed.len(), unwritten.in_doubt.len()), (1, 0));
    /// // Send the rest again (here DynamoDB leaves it unprocessed once more).
    /// let again = writer.write(unwritten.unprocessed).await.unwrap_err();
    /// assert_eq!(again.unwritten().unwrap().written, 0);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// The error itself, unchanged, when it is not an incomplete batch write.
    pub fn into_unwritten(mut self) -> Result<Unwritten, Error> {
        match &mut self.0.repr {
            Repr::BatchWriteIncomplete { unwritten, .. } => Ok(std::mem::take(unwritten)),
            _ => Err(self),
        }
    }

    /// What an incomplete batch get read, and the keys it did not read
    /// (safe to ask for again). `None` for another kind of error.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::Client;
    /// # use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput;
    /// # use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};
    /// # use aws_smithy_mocks::{RuleMode, mock, mock_client};
    /// # use dynamodb_mapper::{Item, TableSchema, ops::{BatchGetter, RetryPolicy}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # // DynamoDB answers the first key of each call and leaves the others.
    /// # let rule = mock!(Client::batch_get_item).then_compute_output(|req| {
    /// #     let keys = req.request_items().unwrap()["Notes"].keys().to_vec();
    /// #     let rest = KeysAndAttributes::builder().set_keys(Some(keys[1..].to_vec())).build().unwrap();
    /// #     BatchGetItemOutput::builder()
    /// #         .responses("Notes", vec![keys[0].clone()])
    /// #         .unprocessed_keys("Notes", rest)
    /// #         .build()
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    /// # let key = |i: u32| Item::from([("pk".to_string(), AttributeValue::S(format!("NOTE#{i}")))]);
    /// let err = dynamodb_mapper::ops::Table::new(&client, "Notes", TableSchema::new("pk")).retry_policy(RetryPolicy::new(1)).batch_getter()
    ///     .get_items(vec![key(1), key(2), key(3)])
    ///     .await
    ///     .unwrap_err();
    /// let unread = err.unread().unwrap();
    /// assert_eq!((unread.read.len(), unread.unprocessed.len()), (1, 2));
    /// # }
    /// ```
    #[must_use]
    pub fn unread(&self) -> Option<&Unread> {
        match &self.0.repr {
            Repr::BatchGetIncomplete { unread, .. } => Some(unread),
            _ => None,
        }
    }

    /// Takes what an incomplete batch get read, and the keys it did not
    /// read, out of the error. An error of another kind comes back as it is.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::Client;
    /// # use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput;
    /// # use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};
    /// # use aws_smithy_mocks::{RuleMode, mock, mock_client};
    /// # use dynamodb_mapper::{Item, TableSchema, ops::{BatchGetter, RetryPolicy}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> dynamodb_mapper::Result<()> {
    /// # // DynamoDB answers the first key of each call and leaves the others.
    /// # let rule = mock!(Client::batch_get_item).then_compute_output(|req| {
    /// #     let keys = req.request_items().unwrap()["Notes"].keys().to_vec();
    /// #     let rest = KeysAndAttributes::builder().set_keys(Some(keys[1..].to_vec())).build().unwrap();
    /// #     BatchGetItemOutput::builder()
    /// #         .responses("Notes", vec![keys[0].clone()])
    /// #         .unprocessed_keys("Notes", rest)
    /// #         .build()
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    /// # let key = |i: u32| Item::from([("pk".to_string(), AttributeValue::S(format!("NOTE#{i}")))]);
    /// let getter = dynamodb_mapper::ops::Table::new(&client, "Notes", TableSchema::new("pk")).retry_policy(RetryPolicy::new(1)).batch_getter();
    /// let err = getter.get_items(vec![key(1), key(2), key(3)]).await.unwrap_err();
    /// let mut unread = err.into_unread()?;
    /// // Ask for the rest again (here DynamoDB reads one more).
    /// let more = getter.get_items(unread.unprocessed).await.unwrap_err().into_unread()?;
    /// unread.read.extend(more.read);
    /// assert_eq!((unread.read.len(), more.unprocessed.len()), (2, 1));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// The error itself, unchanged, when it is not an incomplete batch get.
    pub fn into_unread(mut self) -> Result<Unread, Error> {
        match &mut self.0.repr {
            Repr::BatchGetIncomplete { unread, .. } => Ok(std::mem::take(unread)),
            _ => Err(self),
        }
    }

    /// The most attempts an incomplete batch made for any one of its
    /// requests to DynamoDB (of 25 writes or 100 gets).
    ///
    /// ```
    /// # use aws_sdk_dynamodb::Client;
    /// # use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use aws_smithy_mocks::{RuleMode, mock, mock_client};
    /// # use dynamodb_mapper::{Item, TableSchema, ops::{BatchWriter, RetryPolicy}};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # // DynamoDB leaves the first request of each call unprocessed.
    /// # let rule = mock!(Client::batch_write_item).then_compute_output(|req| {
    /// #     let first = req.request_items().unwrap()["Notes"][0].clone();
    /// #     BatchWriteItemOutput::builder().unprocessed_items("Notes", vec![first]).build()
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    /// # let note = |i: u32| Item::from([("pk".to_string(), AttributeValue::S(format!("NOTE#{i}")))]);
    /// let err = dynamodb_mapper::ops::Table::new(&client, "Notes", TableSchema::new("pk")).retry_policy(RetryPolicy::new(1)).batch_writer()
    ///     .put_items(vec![note(1), note(2), note(3)])
    ///     .await
    ///     .unwrap_err();
    /// // Retries ran out: nothing else stopped the batch.
    /// assert_eq!(err.attempts(), Some(1));
    /// assert!(err.cause().is_none());
    /// # }
    /// ```
    #[must_use]
    pub fn attempts(&self) -> Option<u32> {
        match &self.0.repr {
            Repr::BatchWriteIncomplete { attempts, .. }
            | Repr::BatchGetIncomplete { attempts, .. } => Some(*attempts),
            _ => None,
        }
    }

    /// What stopped an incomplete batch, if something did (else its retries
    /// ran out), or why a write [may have been
    /// applied](super::ErrorKind::MaybeApplied): an error of kind
    /// [`Sdk`](super::ErrorKind::Sdk), [`Timeout`](super::ErrorKind::Timeout)
    /// or [`UnexpectedResponse`](super::ErrorKind::UnexpectedResponse). It is
    /// also the error's [`source`](std::error::Error::source).
    ///
    /// ```
    /// # use aws_sdk_dynamodb::Client;
    /// # use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use aws_smithy_mocks::{RuleMode, mock, mock_client};
    /// # use dynamodb_mapper::{ErrorKind, Item, TableSchema, ops::BatchWriter};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # // A nonsense answer: unprocessed items of a table not written to.
    /// # let rule = mock!(Client::batch_write_item).then_compute_output(|req| {
    /// #     let first = req.request_items().unwrap()["Notes"][0].clone();
    /// #     BatchWriteItemOutput::builder().unprocessed_items("Other", vec![first]).build()
    /// # });
    /// # let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule]);
    /// # let note = |i: u32| Item::from([("pk".to_string(), AttributeValue::S(format!("NOTE#{i}")))]);
    /// let err = dynamodb_mapper::ops::Table::new(&client, "Notes", TableSchema::new("pk")).batch_writer()
    ///     .put_items(vec![note(1), note(2), note(3)])
    ///     .await
    ///     .unwrap_err();
    /// let cause = err.cause().unwrap();
    /// assert_eq!(cause.kind(), ErrorKind::UnexpectedResponse);
    /// assert_eq!(cause.operation(), Some("BatchWriteItem"));
    /// # }
    /// ```
    #[must_use]
    pub fn cause(&self) -> Option<&Error> {
        match &self.0.repr {
            Repr::BatchWriteIncomplete { cause, .. } | Repr::BatchGetIncomplete { cause, .. } => {
                cause.as_ref()
            }
            Repr::MaybeApplied { cause, .. } => Some(cause),
            _ => None,
        }
    }
}
