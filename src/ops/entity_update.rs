//! Updates through the helpers: typed partial updates
//! ([`Table::update_entity`]) and atomic counters ([`Table::increment`]).
//! The version-checked update lives with the other versioned helpers, in
//! `version.rs`; raw updates pass the gate (`expr/gate.rs`).

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use super::Table;
use super::call::Failed;
use super::send::{HelperCall, item_span, send_update};
use super::versioned::first_version;
use crate::describe::describe_key;
use crate::error::{Error, Result};
use crate::expr::check_update;
use crate::expr::{Attr, Expression, Update, ValueType};
use crate::item::Item;
use crate::mapper::{Mapper, MapperExt};

/// The condition that the item at the key exists.
fn exists<M: Mapper>() -> Result<Expression> {
    Attr::top_level(M::SCHEMA.partition_key.name)
        .exists()
        .build_with_stem("dme")
}

impl Table {
    /// Updates the item of `old` to `new` with one `UpdateItem`: the
    /// attributes that changed (maps member by member), the attributes that
    /// became absent removed, and every attribute the mapper derives (GSI
    /// keys, TTL, timestamps, discriminator) recomputed, as
    /// [`Update::between`](crate::expr::Update::between) builds it. Nothing
    /// is sent when nothing changed. The item must exist: an update never
    /// creates a partial item.
    ///
    /// For a table without a version attribute; a versioned entity is
    /// updated with [`update_record`](Self::update_record).
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// [`ErrorKind::UniqueViolation`](crate::ErrorKind::UniqueViolation)
    /// when a unique value ([`Unique`](crate::Unique)) it takes is another
    /// item's (nothing written);
    /// [`ErrorKind::VersionConflict`](crate::ErrorKind::VersionConflict)
    /// when the update writes unique fields and the item no longer holds
    /// `old`'s values (another writer changed them: nothing written);
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) naming the key
    /// attribute when `new` has another primary key;
    /// [`ErrorKind::VersionCheckRequired`](crate::ErrorKind::VersionCheckRequired)
    /// on a versioned table; [`ErrorKind::NotFound`](crate::ErrorKind::NotFound)
    /// when no item exists at the key (nothing written); mapping errors;
    /// timeouts and SDK errors as for [`put_record`](Self::put_record)
    /// (outcome unknown when no answer came).
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Table};
    /// # #[derive(Clone, serde::Serialize, serde::Deserialize)] struct Order { id: String, status: String }
    /// # async fn demo<M: Mapper<Entity = Order>>(table: Table, order: Order) -> dynamodb_mapper::Result<()> {
    /// let mut shipped = order.clone();
    /// shipped.status = "shipped".into();
    /// table.update_entity::<M>(&order, &shipped).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn update_entity<M: Mapper>(&self, old: &M::Entity, new: &M::Entity) -> Result<()> {
        let key = M::key(new)?;
        if let Some(attribute) = M::SCHEMA.version {
            return Err(Error::version_check_required(
                describe_key(&key),
                "update",
                attribute,
                "Table::update_record with the record read",
            )
            .with_entity_type(M::ENTITY_TYPE));
        }
        let update = Update::between::<M>(old, new)?;
        if update.is_empty() {
            return Ok(());
        }
        // An update that writes unique fields is sent only if the item still
        // holds `old`'s values: in one transaction with the sentinels that
        // move, or alone when none does.
        let unique = crate::mapper::unique::attributes::<M>();
        let touches = update
            .top_level_names()
            .iter()
            .any(|n| unique.iter().any(|u| u == n));
        let old_item = if touches {
            Some(M::to_item(old)?)
        } else {
            None
        };
        let expected = match &old_item {
            Some(item) => super::unique::still_holds::<M>(Some(item), &key)?,
            None => exists::<M>()?,
        };
        if let Some(old_item) = &old_item
            && super::unique::moves::<M>(Some(old_item), Some(&M::to_item(new)?))?
        {
            // The sentinels move with the update, in one transaction.
            let sent = self
                .started()
                .transaction()
                .update_entity::<M>(old, new)?
                .send()
                .await;
            return match sent {
                Ok(_) => Ok(()),
                Err(e) if super::unique::entity_refused(&e) => {
                    let crate::ErrorDetails::TransactionCanceled { canceled, .. } = e.details()
                    else {
                        return Err(e);
                    };
                    if canceled.iter().any(|c| c.index == 0 && c.item.is_none()) {
                        Err(Error::not_found(describe_key(&key)).with_entity_type(M::ENTITY_TYPE))
                    } else {
                        Err(stale_unique::<M>(&key))
                    }
                }
                Err(e) => Err(e.with_entity_type(M::ENTITY_TYPE)),
            };
        }
        let span = item_span!("dynamodb_mapper.update", self, M::ENTITY_TYPE, &key);
        let mut call = HelperCall::new(self, span);
        match send_update(&mut call, key.clone(), update, Some(expected), None).await {
            Ok(_) => Ok(()),
            Err(Failed::Service(UpdateItemError::ConditionalCheckFailedException(e)))
                if e.item.is_none() =>
            {
                Err(Error::not_found(describe_key(&key)).with_entity_type(M::ENTITY_TYPE))
            }
            Err(Failed::Service(UpdateItemError::ConditionalCheckFailedException(_))) => {
                Err(stale_unique::<M>(&key))
            }
            Err(f) => Err(f
                .into_write_error("UpdateItem", describe_key(&key))
                .with_entity_type(M::ENTITY_TYPE)),
        }
    }

    /// Adds `by` (negative to subtract) to the number attribute `attribute`
    /// of the item at `key` in one atomic `UpdateItem`, and returns the new
    /// value. When no item exists, it is created with the key, `attribute =
    /// by` and the discriminator; concurrent increments are never lost. On
    /// a versioned table the version moves on too (a writer holding the
    /// old version gets a conflict instead of overwriting the count).
    ///
    /// The item created holds only those attributes: use it for counter
    /// entities whose other fields are optional or derived from the key.
    /// An existing item of another entity type is not touched.
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) naming the
    /// attribute, with nothing written: before sending, when it is a key,
    /// version or discriminator attribute, or a field a key pattern renders
    /// a key from (the index would keep the old value: change it with
    /// [`update_entity`](Self::update_entity) or
    /// [`update_with_retry`](Self::update_with_retry), which render the key
    /// again); after DynamoDB's refusal, when the item at `key` is of
    /// another entity type, the stored value is not a number, or the sum
    /// would leave the 64-bit integer range;
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) for a key that
    /// does not fit the table;
    /// [`ErrorKind::MaybeApplied`](crate::ErrorKind::MaybeApplied) naming the
    /// key when no credible answer came (a timeout, a dropped connection, a
    /// server error: the increment may have been applied, and is not sent
    /// again, as it would count twice), or when the answer holds no 64-bit
    /// integer (it was applied; a stored number with a fraction). Throttling
    /// is retried.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, MapperExt, ops::Table};
    /// # async fn demo<M: Mapper>(table: Table) -> dynamodb_mapper::Result<()> {
    /// let views = table.increment::<M>(M::string_key("PAGE#home", "STATS")?, "views", 1).await?;
    /// println!("{views} views");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn increment<M: Mapper>(&self, key: Item, attribute: &str, by: i64) -> Result<i64> {
        let key = M::SCHEMA
            .key_of(&key)
            .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
        let mut update = Update::new().add(Attr::top_level(attribute), by);
        check_update::<M>(&update, "Table::update_entity or Table::update_with_retry")?;
        // Applied only to a number whose sum stays a 64-bit integer (or to no
        // value yet): DynamoDB would add to any number and refuse a string
        // only after the request, and a sum out of range would be stored but
        // could not be returned.
        let counter = Attr::top_level(attribute);
        let (low, high) = if by >= 0 {
            (i64::MIN, i64::MAX - by)
        } else {
            (i64::MIN - by, i64::MAX)
        };
        let mut condition = counter.clone().not_exists()
            | (counter.clone().has_type(ValueType::Number) & counter.between(low, high));
        if let Some(d) = M::SCHEMA.discriminator {
            // A new item gets the type; an existing one must be of it.
            update = update.set(
                Attr::top_level(d),
                Attr::top_level(d).if_not_exists(M::ENTITY_TYPE),
            );
            let types = std::iter::once(M::ENTITY_TYPE).chain(M::ALIASES.iter().copied());
            let pk = Attr::top_level(M::SCHEMA.partition_key.name);
            condition = (pk.not_exists() | Attr::top_level(d).is_in(types)) & condition;
        }
        if let Some(v) = M::SCHEMA.version {
            // A counter change is a change: the version moves on, so a writer
            // holding the old version cannot overwrite the new count.
            update = update.set(
                Attr::top_level(v),
                Attr::top_level(v)
                    .if_not_exists(first_version(self.now()))
                    .plus(1),
            );
        }
        let span = item_span!("dynamodb_mapper.increment", self, M::ENTITY_TYPE, &key);
        let mut call = HelperCall::new(self, span);
        let out = match send_update(
            &mut call,
            key.clone(),
            update,
            Some(condition.build_with_stem("dmi")?),
            Some(ReturnValue::UpdatedNew),
        )
        .await
        {
            Ok(out) => out,
            Err(Failed::Service(UpdateItemError::ConditionalCheckFailedException(e))) => {
                let reason = refusal::<M>(e.item(), attribute, by);
                return Err(Error::invalid_value(
                    attribute,
                    format!(
                        "cannot be incremented by {by} at {}: {reason}; nothing was written",
                        describe_key(&key)
                    ),
                )
                .with_entity_type(M::ENTITY_TYPE));
            }
            Err(f) => {
                return Err(f
                    .into_write_error("UpdateItem", describe_key(&key))
                    .with_entity_type(M::ENTITY_TYPE));
            }
        };
        let value = out.attributes().and_then(|a| a.get(attribute));
        let applied = |reason: String| {
            Error::maybe_applied(
                "UpdateItem",
                describe_key(&key),
                Error::unexpected_response("UpdateItem", reason),
            )
            .with_entity_type(M::ENTITY_TYPE)
        };
        match value {
            Some(AttributeValue::N(n)) => n.parse::<i64>().map_err(|_| {
                applied(format!(
                    "the increment was applied, but the new value of `{attribute}` is {n}, which is \
                     not a 64-bit integer"
                ))
            }),
            other => Err(applied(format!(
                "the increment was applied, but the answer holds no number for `{attribute}` \
                 (found {})",
                other.map_or("nothing", crate::item::type_name)
            ))),
        }
    }
}

/// Why an increment's condition failed, from the item as it was (DynamoDB
/// hands it back with the refusal).
fn refusal<M: Mapper>(item: Option<&Item>, attribute: &str, by: i64) -> String {
    let Some(item) = item else {
        return "dynamodb refused it without saying why".to_owned();
    };
    if let Some(d) = M::SCHEMA.discriminator {
        let ours = |t: &str| t == M::ENTITY_TYPE || M::ALIASES.contains(&t);
        match item.get(d) {
            Some(AttributeValue::S(t)) if ours(t) => {}
            Some(AttributeValue::S(t)) => {
                return format!("the item there is of entity type {t:?}, not of this one");
            }
            _ => return "the item there has no entity type of this mapper".to_owned(),
        }
    }
    match item.get(attribute) {
        Some(AttributeValue::N(n)) => format!(
            "it holds {n}, and the sum would leave the 64-bit integer range ({}..={})",
            i64::MIN,
            i64::MAX
        ),
        Some(other) => format!("it holds {}, not a number", crate::item::type_name(other)),
        None => format!("dynamodb refused adding {by} to an absent value"),
    }
}

/// The error of an `update_entity` whose item no longer holds the unique
/// values of the `old` it was given (another writer changed them): nothing
/// was written.
fn stale_unique<M: Mapper>(key: &Item) -> Error {
    Error::unique_values_changed(describe_key(key)).with_entity_type(M::ENTITY_TYPE)
}
