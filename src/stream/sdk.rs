//! Records of the DynamoDB Streams API (`aws-sdk-dynamodbstreams`, feature
//! `streams`) as [`ChangeRecord`]s.

use std::time::SystemTime;

use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodbstreams::types::{AttributeValue as StreamValue, Record};

use super::change_record::{ChangeRecord, Which, kind_of, view_type_of};
use super::foreign_value::{Opened, SourceValue, item_of, keys_of};
use crate::error::{Error, Result};

impl SourceValue for StreamValue {
    fn open(self) -> std::result::Result<Opened<Self>, String> {
        Ok(Opened::Value(match self {
            StreamValue::S(s) => AttributeValue::S(s),
            StreamValue::N(n) => AttributeValue::N(n),
            StreamValue::B(b) => AttributeValue::B(b),
            StreamValue::Bool(b) => AttributeValue::Bool(b),
            StreamValue::Null(b) => AttributeValue::Null(b),
            StreamValue::Ss(v) => AttributeValue::Ss(v),
            StreamValue::Ns(v) => AttributeValue::Ns(v),
            StreamValue::Bs(v) => AttributeValue::Bs(v),
            StreamValue::L(list) => return Ok(Opened::List(list)),
            StreamValue::M(map) => return Ok(Opened::Map(map)),
            _ => return Err("is of a type this version of the SDK does not know".to_owned()),
        }))
    }
}

/// A Streams API record, read.
///
/// # Errors
/// [`ErrorKind::InvalidStreamRecord`](crate::ErrorKind::InvalidStreamRecord):
/// no event id or `dynamodb` part, an unknown event name or view type, an
/// image or key holding a value of an unknown type or nested deeper than
/// DynamoDB allows.
///
/// ```
/// use aws_sdk_dynamodbstreams::types::{AttributeValue, OperationType, Record, StreamRecord, StreamViewType};
/// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord, ViewType};
///
/// let record = Record::builder()
///     .event_id("e1")
///     .event_name(OperationType::Insert)
///     .dynamodb(
///         StreamRecord::builder()
///             .keys("pk", AttributeValue::S("CUSTOMER#C1".into()))
///             .new_image("pk", AttributeValue::S("CUSTOMER#C1".into()))
///             .sequence_number("100")
///             .stream_view_type(StreamViewType::NewImage)
///             .build(),
///     )
///     .build();
/// let change = ChangeRecord::try_from(record)?;
/// assert_eq!(change.kind, ChangeKind::Insert);
/// assert_eq!(change.view_type, Some(ViewType::NewImage));
/// assert_eq!(change.sequence_number.as_deref(), Some("100"));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
impl TryFrom<Record> for ChangeRecord {
    type Error = Error;

    fn try_from(record: Record) -> Result<Self> {
        let event_id = record.event_id.unwrap_or_default();
        let change = record.dynamodb;
        let sequence_number = change.as_ref().and_then(|c| c.sequence_number.clone());
        let which = Which {
            event_id: &event_id,
            sequence_number: sequence_number.as_deref(),
        };
        if event_id.is_empty() {
            return Err(which.error("it has no event id"));
        }
        let kind = kind_of(which, record.event_name.as_ref().map(|n| n.as_str()))?;
        let Some(change) = change else {
            return Err(which.error("it has no `dynamodb` part (keys and images)"));
        };
        let keys = keys_of(change.keys.unwrap_or_default(), which)?;
        let mut out = ChangeRecord::new(event_id.clone(), kind, keys);
        if let Some(image) = change.old_image {
            out.old_image = Some(item_of(image, "old image's", which)?);
        }
        if let Some(image) = change.new_image {
            out.new_image = Some(item_of(image, "new image's", which)?);
        }
        if let Some(view) = change.stream_view_type {
            out.view_type = Some(view_type_of(which, view.as_str())?);
        }
        out.sequence_number = sequence_number;
        out.user_identity = record.user_identity.map(|identity| {
            (
                identity.r#type.unwrap_or_default(),
                identity.principal_id.unwrap_or_default(),
            )
        });
        out.created_at = change
            .approximate_creation_date_time
            .and_then(|at| SystemTime::try_from(at).ok());
        Ok(out)
    }
}
