//! Optimistic locking with a version attribute: stale writes and deletes are
//! rejected by DynamoDB, never applied.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::AttributeValue;
use tracing::Instrument;

use super::{RetryPolicy, describe_key};
use crate::error::{Error, Result};
use crate::item::Item;
use crate::mapper::Mapper;
use crate::record::Record;

/// Placeholder names used by the version condition. They start with `#dmv`
/// and `:dmv`, a prefix no other builder of the crate generates.
pub(crate) const VERSION_NAME: &str = "#dmv_version";
pub(crate) const VERSION_VALUE: &str = ":dmv_expected";
pub(crate) const PK_NAME: &str = "#dmv_pk";

/// The version attribute of `M`'s table, or an error naming the entity.
pub(crate) fn version_attribute<M: Mapper>() -> Result<&'static str> {
    M::TABLE.version_attribute().ok_or_else(|| {
        Error::invalid_value(
            "(version)",
            "cannot be checked: the table schema declares no version attribute",
        )
        .with_entity_type(M::ENTITY_TYPE)
    })
}

/// A versioned write of a record: the item to put (with the next version),
/// the condition that the stored version is still the one read, and the
/// next version.
pub(crate) struct VersionedPut {
    pub(crate) item: Item,
    pub(crate) condition: Condition,
    pub(crate) next: u64,
}

/// A condition expression with its placeholders.
pub(crate) struct Condition {
    pub(crate) expression: String,
    pub(crate) names: Vec<(String, String)>,
    pub(crate) values: Vec<(String, AttributeValue)>,
}

pub(crate) fn versioned_put<M: Mapper>(record: &Record<M::Entity>) -> Result<VersionedPut> {
    let attr = version_attribute::<M>()?;
    let next = match record.version {
        None => 1,
        Some(v) => v.checked_add(1).ok_or_else(|| {
            Error::invalid_value(attr, "cannot be incremented past u64::MAX")
                .with_entity_type(M::ENTITY_TYPE)
        })?,
    };
    let mut item = M::record_to_item(record)?;
    item.insert(attr.to_owned(), AttributeValue::N(next.to_string()));
    let condition = version_condition::<M>(record.version, attr);
    Ok(VersionedPut {
        item,
        condition,
        next,
    })
}

/// `attribute_not_exists(pk)` for a record never stored, else
/// `version = :expected`.
pub(crate) fn version_condition<M: Mapper>(expected: Option<u64>, attr: &str) -> Condition {
    match expected {
        None => Condition {
            expression: format!("attribute_not_exists({PK_NAME})"),
            names: vec![(
                PK_NAME.to_owned(),
                M::TABLE.partition_key_attribute().name.to_owned(),
            )],
            values: Vec::new(),
        },
        Some(v) => Condition {
            expression: format!("{VERSION_NAME} = {VERSION_VALUE}"),
            names: vec![(VERSION_NAME.to_owned(), attr.to_owned())],
            values: vec![(VERSION_VALUE.to_owned(), AttributeValue::N(v.to_string()))],
        },
    }
}

/// Reads a record with a strongly consistent `GetItem`: the entity, its
/// attribute bag and the version to write against.
///
/// # Errors
/// [`Error::Sdk`] when the request fails; decoding errors.
///
/// ```no_run
/// # use dynamodb_mapper::{Mapper, ops::get_record};
/// # async fn demo<M: Mapper>(client: aws_sdk_dynamodb::Client, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
/// if let Some(record) = get_record::<M>(&client, "AppTable", key).await? {
///     println!("version {:?}", record.version);
/// }
/// # Ok(())
/// # }
/// ```
pub async fn get_record<M: Mapper>(
    client: &Client,
    table: &str,
    key: Item,
) -> Result<Option<Record<M::Entity>>> {
    let out = client
        .get_item()
        .table_name(table)
        .set_key(Some(key))
        .consistent_read(true)
        .send()
        .await
        .map_err(|e| Error::sdk("GetItem", aws_sdk_dynamodb::Error::from(e)))?;
    out.item.map(M::record_from_item).transpose()
}

/// Writes a record only if the stored version is still the one it was read
/// with (or, for a record never stored, only if no item exists), with the
/// version incremented. On success the record holds the new version.
///
/// # Errors
/// [`Error::VersionConflict`] when another writer got there first (nothing
/// is written); mapping errors; [`Error::Sdk`].
///
/// ```no_run
/// # use dynamodb_mapper::{Mapper, Record, ops::put_versioned};
/// # async fn demo<M: Mapper>(client: aws_sdk_dynamodb::Client, entity: M::Entity) -> dynamodb_mapper::Result<()> {
/// let mut record = Record::new(entity);
/// put_versioned::<M>(&client, "AppTable", &mut record).await?; // creates, version 1
/// put_versioned::<M>(&client, "AppTable", &mut record).await?; // version 2
/// # Ok(())
/// # }
/// ```
pub async fn put_versioned<M: Mapper>(
    client: &Client,
    table: &str,
    record: &mut Record<M::Entity>,
) -> Result<u64> {
    let put = versioned_put::<M>(record)?;
    let key = M::TABLE.key_of(&put.item)?;
    let mut request = client
        .put_item()
        .table_name(table)
        .set_item(Some(put.item))
        .condition_expression(put.condition.expression);
    for (k, v) in put.condition.names {
        request = request.expression_attribute_names(k, v);
    }
    for (k, v) in put.condition.values {
        request = request.expression_attribute_values(k, v);
    }
    match request.send().await {
        Ok(_) => {
            record.version = Some(put.next);
            Ok(put.next)
        }
        Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
            Err(Error::VersionConflict {
                entity_type: Some(M::ENTITY_TYPE.to_owned()),
                key: describe_key(&key),
                expected: record.version,
            })
        }
        Err(e) => Err(Error::sdk("PutItem", aws_sdk_dynamodb::Error::from(e))),
    }
}

/// Deletes a record's item only if the stored version is still the one it
/// was read with.
///
/// # Errors
/// [`Error::VersionConflict`] when the item changed (or is gone) since it
/// was read; [`Error::InvalidValue`] for a record without a version (never
/// read from the table); [`Error::Sdk`].
///
/// ```no_run
/// # use dynamodb_mapper::{Mapper, ops::{delete_versioned, get_record}};
/// # async fn demo<M: Mapper>(client: aws_sdk_dynamodb::Client, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
/// if let Some(record) = get_record::<M>(&client, "AppTable", key).await? {
///     delete_versioned::<M>(&client, "AppTable", &record).await?;
/// }
/// # Ok(())
/// # }
/// ```
pub async fn delete_versioned<M: Mapper>(
    client: &Client,
    table: &str,
    record: &Record<M::Entity>,
) -> Result<()> {
    let attr = version_attribute::<M>()?;
    let Some(expected) = record.version else {
        return Err(Error::invalid_value(
            attr,
            "is unknown: read the record from the table before a versioned delete",
        )
        .with_entity_type(M::ENTITY_TYPE));
    };
    let key = M::key(&record.entity)?;
    let condition = version_condition::<M>(Some(expected), attr);
    let mut request = client
        .delete_item()
        .table_name(table)
        .set_key(Some(key.clone()))
        .condition_expression(condition.expression);
    for (k, v) in condition.names {
        request = request.expression_attribute_names(k, v);
    }
    for (k, v) in condition.values {
        request = request.expression_attribute_values(k, v);
    }
    match request.send().await {
        Ok(_) => Ok(()),
        Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
            Err(Error::VersionConflict {
                entity_type: Some(M::ENTITY_TYPE.to_owned()),
                key: describe_key(&key),
                expected: Some(expected),
            })
        }
        Err(e) => Err(Error::sdk("DeleteItem", aws_sdk_dynamodb::Error::from(e))),
    }
}

/// Read-modify-write with optimistic locking: reads the record at `key`,
/// applies `change` to it (the entity, and the bag of attributes the mapper
/// does not own, e.g. for [`Timestamps`](crate::hooks::Timestamps)), writes it
/// back version-checked, and on a
/// conflict starts over, up to `policy.max_attempts()` times (with the
/// policy's jittered backoff between attempts). Unknown attributes survive
/// through the record's bag.
///
/// # Errors
/// [`Error::NotFound`] when no item exists at `key`; [`Error::VersionConflict`]
/// when every attempt conflicted; [`Error::InvalidKey`] when `change` altered
/// the entity's key; errors from `change`; [`Error::Sdk`].
///
/// ```no_run
/// # use dynamodb_mapper::{Mapper, ops::{update_with_retry, RetryPolicy}};
/// # #[derive(serde::Serialize, serde::Deserialize)] struct Counter { id: String, count: u64 }
/// # async fn demo<M: Mapper<Entity = Counter>>(client: aws_sdk_dynamodb::Client, key: dynamodb_mapper::Item) -> dynamodb_mapper::Result<()> {
/// use dynamodb_mapper::hooks::Timestamps;
/// let record = update_with_retry::<M, _>(&client, "AppTable", key, RetryPolicy::new(20), |r| {
///     r.entity.count += 1;
///     Timestamps::DEFAULT.stamp(&mut r.bag, std::time::SystemTime::now())
/// })
/// .await?;
/// # Ok(())
/// # }
/// ```
pub async fn update_with_retry<M, F>(
    client: &Client,
    table: &str,
    key: Item,
    policy: RetryPolicy,
    mut change: F,
) -> Result<Record<M::Entity>>
where
    M: Mapper,
    F: FnMut(&mut Record<M::Entity>) -> Result<()>,
{
    let span = tracing::info_span!(
        "dynamodb_mapper.update_with_retry",
        table,
        entity_type = M::ENTITY_TYPE,
        key = %describe_key(&key),
        attempts = tracing::field::Empty,
    );
    let mut attempt = 0;
    async move {
    loop {
        attempt += 1;
        tracing::Span::current().record("attempts", attempt);
        let Some(mut record) = get_record::<M>(client, table, key.clone()).await? else {
            return Err(Error::NotFound {
                entity_type: Some(M::ENTITY_TYPE.to_owned()),
                key: describe_key(&key),
            });
        };
        change(&mut record).map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
        if M::key(&record.entity)? != key {
            return Err(Error::invalid_key(
                M::TABLE.partition_key_attribute().name,
                format!(
                    "changed during the update (was {}); a read-modify-write must not move the item",
                    describe_key(&key)
                ),
            )
            .with_entity_type(M::ENTITY_TYPE));
        }
        match put_versioned::<M>(client, table, &mut record).await {
            Ok(_) => return Ok(record),
            Err(Error::VersionConflict { .. }) if attempt < policy.max_attempts() => {
                tracing::debug!(attempt, "version conflict, retrying");
                tokio::time::sleep(policy.delay(attempt)).await;
            }
            Err(e) => return Err(e),
        }
    }
    }
    .instrument(span.clone())
    .await
}
