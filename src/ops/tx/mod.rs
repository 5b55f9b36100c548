//! Transactions built from mappers, checked before sending (at most 100
//! actions, one action per item), with cancellation reasons mapped back to
//! each action's entity type and key. Building is here; sending, and what
//! a cancellation means, in `send.rs`.

use std::collections::HashSet;

use aws_sdk_dynamodb::types::{
    ConditionCheck, Delete, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem,
};

mod send;

use super::Table;
use super::capacity::CapacityUsage;
use super::identity::KeyId;
use super::unique::{SentinelPut, read_values, still_holds, unique_refusal};
use super::versioned::{versioned_delete, versioned_new, versioned_put, versioned_update};
use crate::check::{self, WriteRules};
use crate::describe::describe_key;
use crate::error::{ActionInfo, ActionKind};
use crate::error::{Error, Result};
use crate::expr::check_update;
use crate::expr::{Apply, Attr, Expression, IntoExpression, Update};
use crate::item::Item;
use crate::mapper::unique;
use crate::mapper::{Mapper, MapperExt};
use crate::record::Record;

/// Every conditional action asks for the item as it was when its
/// condition failed, to hand it back in the error.
const ALL_OLD: ReturnValuesOnConditionCheckFailure = ReturnValuesOnConditionCheckFailure::AllOld;

/// DynamoDB's limit of actions in one transaction.
pub(crate) const TRANSACTION_LIMIT: usize = 100;

/// What [`Transaction::send`] did.
///
/// ```
/// let s = dynamodb_mapper::ops::TransactionSummary::default();
/// assert_eq!(s.consumed_capacity, None);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct TransactionSummary {
    /// The capacity DynamoDB reported for the transaction: `None` unless the
    /// [`Table`] asked for it
    /// ([`Table::return_consumed_capacity`](super::Table::return_consumed_capacity));
    /// zero for an empty transaction, which sends nothing.
    ///
    /// ```no_run
    /// # use dynamodb_mapper_support::doc::*;
    /// # async fn demo(client: aws_sdk_dynamodb::Client, order: Order) -> dynamodb_mapper::Result<()> {
    /// use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
    /// let table = dynamodb_mapper::ops::Table::new(&client, "AppTable", TABLE)
    ///     .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
    /// let sent = table.transaction().put::<OrderMapper>(&order)?.send().await?;
    /// let used = sent.consumed_capacity.unwrap_or_default();
    /// println!("{} units; on AppTable: {:?}", used.total, used.tables.get("AppTable"));
    /// # Ok(())
    /// # }
    /// ```
    pub consumed_capacity: Option<CapacityUsage>,
    /// The version each action's item has now, in the order the actions
    /// were added (a sentinel's action included, with `None`): `Some` for
    /// the actions that write a version
    /// ([`Transaction::put_record`], [`Transaction::update_record`], and a
    /// put of a versioned entity, which creates its first version), `None`
    /// for the others. Set it on the records you keep.
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, Record};
    /// # async fn demo<M: Mapper>(table: dynamodb_mapper::ops::Table, mut record: Record<M::Entity>, new: M::Entity) -> dynamodb_mapper::Result<()> {
    /// let sent = table.transaction().update_record::<M>(&record, &new)?.send().await?;
    /// record.entity = new;
    /// record.version = sent.versions[0];
    /// # Ok(())
    /// # }
    /// ```
    pub versions: Vec<Option<u64>>,
}

/// A write transaction on one table, built from mappers: each method adds
/// one action (and, for an entity with unique values, the actions of the
/// sentinels it moves, right after it) and hands the transaction back (a
/// consuming builder, as every request of the crate is), or the error that
/// refused the action.
///
/// What it guarantees:
/// - Each action is checked as it is added: at most 100 actions, and one
///   action per item (DynamoDB rejects a transaction that touches an item
///   twice; keys are compared as DynamoDB compares them, so `N("1")` and
///   `N("1.0")` are one item).
/// - An entity whose table has a version attribute is never written without
///   its version check: [`put_record`](Self::put_record) and
///   [`delete_record`](Self::delete_record) carry the same condition as
///   [`Table::put_record`](super::Table::put_record), [`put`](Self::put) of such an
///   entity only creates it, and [`delete`](Self::delete) of one is refused.
/// - An entity with unique constraints ([`Unique`](crate::Unique)) has
///   its sentinels written in the same transaction, after its own action:
///   [`put_new`](Self::put_new), [`put_record`](Self::put_record),
///   [`update_entity`](Self::update_entity), [`update_record`](Self::update_record)
///   and [`delete_record`](Self::delete_record) add them; [`put`](Self::put)
///   and [`delete`](Self::delete) of one are refused (they do not know the
///   values they replace), as is an [`update`](Self::update) of a unique
///   field.
/// - When DynamoDB cancels the transaction,
///   [`ErrorKind::TransactionCanceled`](crate::ErrorKind::TransactionCanceled)
///   names each failed action's entity type and key with DynamoDB's code and
///   message; nothing was written.
/// - [`send`](Self::send) is bounded in time and carries the transaction's
///   idempotency token ([`token`](Self::token)): the SDK's retries, and
///   sending the same `Transaction` again within ten minutes (after a
///   timeout, say), are applied at most once.
///
/// ```no_run
/// # use dynamodb_mapper::{Mapper, ops::Transaction};
/// # async fn demo<O: Mapper, L: Mapper>(table: dynamodb_mapper::ops::Table, order: O::Entity, lines: Vec<L::Entity>) -> dynamodb_mapper::Result<()> {
/// let mut tx = table.transaction().put_new::<O>(&order)?;
/// for line in &lines {
///     tx = tx.put::<L>(line)?;
/// }
/// tx.send().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Transaction {
    table: Table,
    actions: Vec<TransactWriteItem>,
    infos: Vec<ActionInfo>,
    /// The version each action's item has once the transaction succeeds,
    /// for the actions that write one.
    versions: Vec<Option<u64>>,
    seen: HashSet<(String, KeyId)>,
    /// For each action that puts a sentinel of a unique constraint: the
    /// sentinel, whose owner's key and entity type a violation names.
    sentinels: Vec<Option<Box<SentinelPut>>>,
    token: String,
}

/// The longest idempotency token DynamoDB accepts.
const MAX_TOKEN_LEN: usize = 36;

impl Table {
    /// An empty write transaction on this table.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let tx = dynamodb_mapper::ops::Table::new(&client(), "T", TABLE).transaction();
    /// assert!(tx.actions().is_empty());
    /// ```
    pub fn transaction(&self) -> Transaction {
        Transaction {
            table: self.clone(),
            actions: Vec::new(),
            infos: Vec::new(),
            versions: Vec::new(),
            seen: HashSet::new(),
            sentinels: Vec::new(),
            token: format!("{:032x}", fastrand::u128(..)),
        }
    }
}

impl Transaction {
    /// The idempotency token sent with the transaction: random (128 bits) for
    /// each new `Transaction`, or the one given to
    /// [`with_token`](Self::with_token). DynamoDB applies requests with one
    /// token at most once within ten minutes, so a transaction whose outcome is
    /// unknown (an [`ErrorKind::Timeout`](crate::ErrorKind::Timeout)) can be
    /// sent again safely in that time.
    ///
    /// ```
    /// let tx = dynamodb_mapper_support::doc::table().transaction();
    /// assert_eq!(tx.token().len(), 32);
    /// assert_ne!(tx.token(), dynamodb_mapper_support::doc::table().transaction().token());
    /// ```
    #[must_use]
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Uses `token` as the idempotency token, for a transaction that must be
    /// applied at most once across processes (derive it from the business
    /// operation, e.g. an order id). Sending different actions with a token
    /// already used within ten minutes is refused by DynamoDB
    /// (`IdempotentParameterMismatchException`).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) when `token`
    /// is empty or longer than 36 characters (DynamoDB's limits).
    ///
    /// ```
    /// let tx = dynamodb_mapper_support::doc::table().transaction().with_token("order-O1-checkout")?;
    /// assert_eq!(tx.token(), "order-O1-checkout");
    /// assert!(dynamodb_mapper_support::doc::table().transaction().with_token("").is_err());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn with_token(mut self, token: impl Into<String>) -> Result<Self> {
        let token = token.into();
        let len = token.chars().count();
        if len == 0 || len > MAX_TOKEN_LEN {
            return Err(Error::invalid_value(
                "ClientRequestToken",
                format!(
                    "must have 1 to {MAX_TOKEN_LEN} characters (a transaction's idempotency \
                     token), `{token}` has {len}"
                ),
            ));
        }
        self.token = token;
        Ok(self)
    }

    /// The actions, as the SDK's types.
    ///
    /// ```
    /// assert!(dynamodb_mapper_support::doc::table().transaction().actions().is_empty());
    /// ```
    #[must_use]
    pub fn actions(&self) -> &[TransactWriteItem] {
        &self.actions
    }

    /// Adds a raw SDK action, described by `info` (its key is used for the
    /// one-action-per-item check and for error messages).
    ///
    /// A put's item goes through the write checks that need no table layout
    /// (values as DynamoDB checks them, item size) before it is accepted.
    ///
    /// # Errors
    /// [`ErrorKind::Limit`](crate::ErrorKind::Limit) past 100 actions;
    /// [`ErrorKind::DuplicateKey`](crate::ErrorKind::DuplicateKey) when the
    /// item already has an action;
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) or
    /// [`ErrorKind::ItemTooLarge`](crate::ErrorKind::ItemTooLarge) for a put's
    /// item DynamoDB would reject.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::{AttributeValue, Delete, TransactWriteItem};
    /// use dynamodb_mapper::{Item, ops::{ActionInfo, ActionKind}};
    ///
    /// let key = Item::from([("pk".to_string(), AttributeValue::S("AUDIT#1".into()))]);
    /// let delete = Delete::builder().table_name("Audit").set_key(Some(key.clone())).build()?;
    /// let tx = dynamodb_mapper_support::doc::table().transaction().push(
    ///     TransactWriteItem::builder().delete(delete).build(),
    ///     ActionInfo::new(ActionKind::Delete, "Audit", "Audit", key.clone()),
    /// )?;
    /// assert_eq!(tx.actions().len(), 1);
    /// let again = Delete::builder().table_name("Audit").set_key(Some(key.clone())).build()?;
    /// assert!(tx.push(
    ///     TransactWriteItem::builder().delete(again).build(),
    ///     ActionInfo::new(ActionKind::Delete, "Audit", "Audit", key),
    /// ).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push(mut self, action: TransactWriteItem, info: ActionInfo) -> Result<Self> {
        if let Some(put) = action.put() {
            check::write(put.item(), WriteRules::VALUES_ONLY)
                .map_err(|e| e.with_key(|| describe_key(&info.key)))?;
        }
        self.push_checked(action, info, None)?;
        Ok(self)
    }

    /// [`push`](Self::push) of an action whose item, if any, went through
    /// the write checks already (it came from `to_item`), with the version
    /// its item will have (for a versioned write).
    fn push_checked(
        &mut self,
        action: TransactWriteItem,
        info: ActionInfo,
        version: Option<u64>,
    ) -> Result<()> {
        if self.actions.len() >= TRANSACTION_LIMIT {
            return Err(Error::limit(
                "transaction",
                self.actions.len() + 1,
                TRANSACTION_LIMIT,
            ));
        }
        if !self.seen.insert((info.table.clone(), KeyId::of(&info.key))) {
            return Err(Error::duplicate_key(
                "TransactWriteItems",
                describe_key(&info.key),
            ));
        }
        self.actions.push(action);
        self.infos.push(info);
        self.versions.push(version);
        self.sentinels.push(None);
        Ok(())
    }

    /// Adds the sentinel actions of a write of `M`'s item at `owner` whose
    /// unique values go from `old` to `new` (items, or the values as read;
    /// `None`: no item): the sentinels of values it leaves deleted if they
    /// are this item's, those of values it takes put if free.
    fn add_sentinels<M: Mapper>(
        self,
        old: Option<&Item>,
        new: Option<&Item>,
        owner: &Item,
    ) -> Result<Self> {
        let changes = unique::changes::<M>(old, new).map_err(|e| {
            e.with_entity_type(M::ENTITY_TYPE)
                .with_key(|| describe_key(owner))
        })?;
        self.with_sentinels(M::SCHEMA, M::ENTITY_TYPE, changes, owner)
    }

    /// Adds the actions of `changes` to the sentinels of the item of
    /// `entity_type` (on `schema`) at `owner`.
    pub(crate) fn with_sentinels(
        mut self,
        schema: crate::TableSchema,
        entity_type: &'static str,
        changes: unique::Changes,
        owner: &Item,
    ) -> Result<Self> {
        let table = self.table.name().to_owned();
        let info = |kind, key| ActionInfo::new(kind, &table, entity_type, key);
        let mut actions = Vec::new();
        for sentinel in changes.deletes {
            let delete = Delete::builder()
                .table_name(&table)
                .set_key(Some(sentinel.key.clone()))
                .apply(super::unique::free_or_mine(schema, owner)?)?
                .return_values_on_condition_check_failure(ALL_OLD)
                .build()
                .map_err(|e| Error::sdk("TransactWriteItems", e))?;
            let info = info(ActionKind::Delete, sentinel.key);
            actions.push((
                TransactWriteItem::builder().delete(delete).build(),
                info,
                None,
            ));
        }
        for sentinel in changes.puts {
            let put = Put::builder()
                .table_name(&table)
                .set_item(Some(unique::item_of(schema, entity_type, &sentinel, owner)))
                .apply(super::unique::free_or_mine(schema, owner)?)?
                .return_values_on_condition_check_failure(ALL_OLD)
                .build()
                .map_err(|e| Error::sdk("TransactWriteItems", e))?;
            let info = info(ActionKind::Put, sentinel.key.clone());
            let violation = SentinelPut {
                sentinel,
                entity_type,
                owner: owner.clone(),
            };
            actions.push((
                TransactWriteItem::builder().put(put).build(),
                info,
                Some(violation),
            ));
        }
        for (action, info, violation) in actions {
            // Two entities of one transaction taking one value.
            if let Some(taker) = &violation
                && let Some(first) = self
                    .sentinels
                    .iter()
                    .flatten()
                    .find(|p| KeyId::of(&p.sentinel.key) == KeyId::of(&taker.sentinel.key))
            {
                return Err(Error::unique_violation(
                    describe_key(owner),
                    taker.sentinel.constraint,
                    taker.sentinel.value.clone(),
                    Some(first.owner.clone()),
                )
                .with_entity_type(entity_type));
            }
            self.push_checked(action, info, None)?;
            if let (Some(last), Some(violation)) = (self.sentinels.last_mut(), violation) {
                *last = Some(Box::new(violation));
            }
        }
        Ok(self)
    }

    fn info<M: Mapper>(&self, kind: ActionKind, key: Item) -> ActionInfo {
        ActionInfo::new(kind, self.table.name(), M::ENTITY_TYPE, key)
    }

    fn add_put<M: Mapper>(
        mut self,
        item: Item,
        condition: Option<Expression>,
        version: Option<u64>,
    ) -> Result<Self> {
        let key = M::SCHEMA
            .key_of(&item)
            .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
        let mut put = Put::builder()
            .table_name(self.table.name())
            .set_item(Some(item));
        if let Some(condition) = condition {
            put = put
                .apply(condition)?
                .return_values_on_condition_check_failure(ALL_OLD);
        }
        let put = put
            .build()
            .map_err(|e| Error::sdk("TransactWriteItems", e))?;
        let info = self.info::<M>(ActionKind::Put, key);
        self.push_checked(TransactWriteItem::builder().put(put).build(), info, version)?;
        Ok(self)
    }

    fn add_delete<M: Mapper>(mut self, key: Item, condition: Option<Expression>) -> Result<Self> {
        let mut delete = Delete::builder()
            .table_name(self.table.name())
            .set_key(Some(key.clone()));
        if let Some(condition) = condition {
            delete = delete
                .apply(condition)?
                .return_values_on_condition_check_failure(ALL_OLD);
        }
        let delete = delete
            .build()
            .map_err(|e| Error::sdk("TransactWriteItems", e))?;
        let info = self.info::<M>(ActionKind::Delete, key);
        self.push_checked(
            TransactWriteItem::builder().delete(delete).build(),
            info,
            None,
        )?;
        Ok(self)
    }

    /// Puts an entity. Unconditional, except for an entity whose table has a
    /// version attribute: that is never written without its version check,
    /// so it is put as a new item (as [`put_record`](Self::put_record) of
    /// [`Record::new`] would: only if no item exists, with a first version).
    /// To overwrite a stored versioned item, read it and use `put_record`.
    ///
    /// # Errors
    /// Mapping errors; as [`Transaction::push`].
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Transaction};
    /// # fn demo<M: Mapper>(tx: Transaction, e: &M::Entity) -> dynamodb_mapper::Result<()> {
    /// let tx = tx.put::<M>(e)?;
    /// # let _ = tx;
    /// # Ok(())
    /// # }
    /// ```
    pub fn put<M: Mapper>(self, entity: &M::Entity) -> Result<Self> {
        if M::SCHEMA.version.is_some() {
            return self.put_new::<M>(entity);
        }
        let item = M::to_item(entity)?;
        if let Some(refused) = unique_refusal::<M>(
            &item,
            "transaction put",
            "Transaction::put_new for a new item, or put_record or update_entity for a stored one",
        ) {
            return Err(refused);
        }
        self.add_put::<M>(item, None, None)
    }

    /// Puts an entity only if no item exists at its key.
    ///
    /// # Errors
    /// Mapping errors; as [`Transaction::push`].
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, ops::Transaction};
    /// # fn demo<M: Mapper>(tx: Transaction, e: &M::Entity) -> dynamodb_mapper::Result<()> {
    /// let tx = tx.put_new::<M>(e)?;
    /// # let _ = tx;
    /// # Ok(())
    /// # }
    /// ```
    pub fn put_new<M: Mapper>(self, entity: &M::Entity) -> Result<Self> {
        let (item, condition, version) = if M::SCHEMA.version.is_some() {
            let put = versioned_new::<M>(entity, self.table.now())?;
            (put.item, put.condition, Some(put.next))
        } else {
            let item = M::to_item(entity)?;
            let pk = M::SCHEMA.partition_key.name;
            let condition = Attr::top_level(pk).not_exists().build_with_stem("dmn")?;
            (item, condition, None)
        };
        let owner = M::SCHEMA.key_of(&item)?;
        let new = unique::values::<M>(&item);
        self.add_put::<M>(item, Some(condition), version)?
            .add_sentinels::<M>(None, new.as_ref(), &owner)
    }

    /// Puts a record version-checked, exactly as
    /// [`Table::put_record`](super::Table::put_record) would. The
    /// version the item has once the transaction succeeds is in
    /// [`TransactionSummary::versions`]: set it on the record then.
    ///
    /// # Errors
    /// [`ErrorKind::PartialRecord`](crate::ErrorKind::PartialRecord) for a
    /// record read through a projection (put whole, it would drop what the
    /// projection left out); other mapping errors; a table without a version
    /// attribute; as [`Transaction::push`].
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, Record, ops::Transaction};
    /// # async fn demo<M: Mapper>(table: dynamodb_mapper::ops::Table, mut record: Record<M::Entity>) -> dynamodb_mapper::Result<()> {
    /// let sent = table.transaction().put_record::<M>(&record)?.send().await?;
    /// record.version = sent.versions[0];
    /// # Ok(())
    /// # }
    /// ```
    pub fn put_record<M: Mapper>(self, record: &Record<M::Entity>) -> Result<Self> {
        let put = versioned_put::<M>(record, self.table.now())?;
        let owner = M::SCHEMA.key_of(&put.item)?;
        let old = read_values::<M>(record, &owner, "transaction put_record")?;
        let new = unique::values::<M>(&put.item);
        self.add_put::<M>(put.item, Some(put.condition), Some(put.next))?
            .add_sentinels::<M>(old, new.as_ref(), &owner)
    }

    /// Deletes the item at `key` (unconditionally).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) for a key that
    /// does not fit `M`'s table;
    /// [`ErrorKind::VersionCheckRequired`](crate::ErrorKind::VersionCheckRequired)
    /// when `M`'s table has a version attribute (use
    /// [`delete_record`](Self::delete_record)); as [`Transaction::push`].
    ///
    /// ```no_run
    /// # use dynamodb_mapper::MapperExt;
    /// # use dynamodb_mapper::{Mapper, ops::Transaction};
    /// # fn demo<M: Mapper>(tx: Transaction) -> dynamodb_mapper::Result<()> {
    /// let tx = tx.delete::<M>(M::string_key("CUSTOMER#C1", "ORDER#O1")?)?;
    /// # let _ = tx;
    /// # Ok(())
    /// # }
    /// ```
    pub fn delete<M: Mapper>(self, key: Item) -> Result<Self> {
        let key = unversioned_key::<M>(
            &key,
            "transaction delete",
            "Transaction::delete_record with the record read",
        )?;
        if let Some(refused) = unique_refusal::<M>(
            &key,
            "transaction delete",
            "Transaction::delete_record with the record read",
        ) {
            return Err(refused);
        }
        self.add_delete::<M>(key, None)
    }

    /// Deletes a record's item only if its version is still the one read.
    ///
    /// # Errors
    /// A record without a version; a table without a version attribute;
    /// mapping errors; as [`Transaction::push`].
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, Record, ops::Transaction};
    /// # fn demo<M: Mapper>(tx: Transaction, record: &Record<M::Entity>) -> dynamodb_mapper::Result<()> {
    /// let tx = tx.delete_record::<M>(record)?;
    /// # let _ = tx;
    /// # Ok(())
    /// # }
    /// ```
    pub fn delete_record<M: Mapper>(self, record: &Record<M::Entity>) -> Result<Self> {
        if M::SCHEMA.version.is_none() && !M::UNIQUE.is_empty() {
            // No version to check: the item must still hold the values
            // whose sentinels go with it.
            let key = M::key(&record.entity)?;
            let old = read_values::<M>(record, &key, "transaction delete_record")?;
            let condition = still_holds::<M>(old, &key)?;
            return self
                .add_delete::<M>(key.clone(), Some(condition))?
                .add_sentinels::<M>(old, None, &key);
        }
        let (key, condition) = versioned_delete::<M>(record)?;
        let old = read_values::<M>(record, &key, "transaction delete_record")?;
        self.add_delete::<M>(key.clone(), Some(condition))?
            .add_sentinels::<M>(old, None, &key)
    }

    /// Checks a condition on the item at `key` without writing it, for
    /// example that a referenced item exists.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) for a key that
    /// does not fit `M`'s table; errors building the condition; as
    /// [`Transaction::push`].
    ///
    /// ```no_run
    /// # use dynamodb_mapper::MapperExt;
    /// # use dynamodb_mapper::{Mapper, ops::Transaction};
    /// use dynamodb_mapper::expr::attr;
    /// # fn demo<M: Mapper>(tx: Transaction) -> dynamodb_mapper::Result<()> {
    /// let tx = tx.condition_check::<M>(
    ///     M::string_key("CUSTOMER#C1", "METADATA")?,
    ///     attr("pk").exists() & attr("status").eq("ACTIVE"),
    /// )?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn condition_check<M: Mapper>(
        self,
        key: Item,
        condition: impl IntoExpression,
    ) -> Result<Self> {
        let key = M::SCHEMA.key_of(&key)?;
        let check = ConditionCheck::builder()
            .table_name(self.table.name())
            .set_key(Some(key.clone()))
            .apply(condition)?
            .return_values_on_condition_check_failure(ALL_OLD)
            .build()
            .map_err(|e| Error::sdk("TransactWriteItems", e))?;
        let info = self.info::<M>(ActionKind::ConditionCheck, key);
        self.push(
            TransactWriteItem::builder().condition_check(check).build(),
            info,
        )
    }

    fn add_update<M: Mapper>(
        mut self,
        key: Item,
        update: Update,
        condition: Expression,
        version: Option<u64>,
    ) -> Result<Self> {
        let update = aws_sdk_dynamodb::types::Update::builder()
            .table_name(self.table.name())
            .set_key(Some(key.clone()))
            .apply(update)?
            .apply(condition)?
            .return_values_on_condition_check_failure(ALL_OLD)
            .build()
            .map_err(|e| Error::sdk("TransactWriteItems", e))?;
        let info = self.info::<M>(ActionKind::Update, key);
        self.push_checked(
            TransactWriteItem::builder().update(update).build(),
            info,
            version,
        )?;
        Ok(self)
    }

    /// Updates the item at `key` with `update`, only if the item exists (an
    /// update never creates a partial item).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) for a key that
    /// does not fit `M`'s table;
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) for an
    /// update that changes a key attribute, the version attribute or the
    /// discriminator, or that does not build ([`Update::build`]); and for
    /// one that changes an index key the mapper derives (rendered from a key
    /// pattern, or written by `after_to_item`) or a field a key pattern
    /// renders from, unless [`Update::caller_keeps`] names that key: the
    /// index would find the item under a value it no longer has. Use
    /// [`update_entity`](Self::update_entity), which renders derived keys
    /// again. Keys a hook derives from fields are the caller's to keep
    /// right: the crate cannot know which fields they come from;
    /// [`ErrorKind::VersionCheckRequired`](crate::ErrorKind::VersionCheckRequired)
    /// when `M`'s table has a version attribute (use
    /// [`update_record`](Self::update_record)); as [`Transaction::push`].
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let key = NoteMapper::lookup().with("id", 7).key()?;
    /// let tx = table().transaction().update::<NoteMapper>(key, Update::new().set(attr("text"), "hello"))?;
    /// let update = tx.actions()[0].update().unwrap();
    /// assert_eq!(update.update_expression(), "SET #u0 = :u0");
    /// assert_eq!(update.condition_expression(), Some("attribute_exists(#dme0)"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn update<M: Mapper>(self, key: Item, update: Update) -> Result<Self> {
        self.update_if::<M>(key, update, None::<Expression>)
    }

    /// Updates the item at `key` with `update`, only if it exists and
    /// `condition` holds on it (when given).
    ///
    /// # Errors
    /// As [`update`](Self::update); errors building the condition.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let key = NoteMapper::lookup().with("id", 7).key()?;
    /// let tx = table().transaction()
    ///     .update_if::<NoteMapper>(key, Update::new().set(attr("text"), "b"), Some(attr("text").eq("a")))?;
    /// let update = tx.actions()[0].update().unwrap();
    /// assert_eq!(update.condition_expression(), Some("(attribute_exists(#dme0)) AND (#c0 = :c0)"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn update_if<M: Mapper>(
        self,
        key: Item,
        update: Update,
        condition: Option<impl IntoExpression>,
    ) -> Result<Self> {
        let key = unversioned_key::<M>(
            &key,
            "transaction update",
            "Transaction::update_record with the record read",
        )?;
        check_update::<M>(&update, "Transaction::update_entity")?;
        let mut expected = Attr::top_level(M::SCHEMA.partition_key.name)
            .exists()
            .build_with_stem("dme")?;
        if let Some(condition) = condition {
            expected = expected.and(condition.into_expression()?);
        }
        self.add_update::<M>(key, update, expected, None)
    }

    /// Updates the item of `old` to `new` as
    /// [`Table::update_entity`](super::Table::update_entity) does (changed
    /// attributes, derived attributes recomputed, only if the item exists);
    /// nothing is added when nothing changed.
    ///
    /// # Errors
    /// As [`Update::between`] and [`update`](Self::update).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let old = Note { id: 1, text: "a".into() };
    /// let tx = table().transaction()
    ///     .update_entity::<NoteMapper>(&old, &Note { id: 1, text: "b".into() })?
    ///     .update_entity::<NoteMapper>(&old, &old)?; // no change: no action
    /// assert_eq!(tx.actions().len(), 1);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn update_entity<M: Mapper>(self, old: &M::Entity, new: &M::Entity) -> Result<Self> {
        let key = M::key(new)?;
        let update = Update::between::<M>(old, new)?;
        if update.is_empty() && M::SCHEMA.version.is_none() {
            return Ok(self);
        }
        let unique = unique::attributes::<M>();
        if !update
            .top_level_names()
            .iter()
            .any(|n| unique.iter().any(|u| u == n))
        {
            return self.update::<M>(key, update);
        }
        // It writes unique fields: only if the item still holds `old`'s
        // values, with the sentinels of those that change moved.
        let (old, new) = (M::to_item(old)?, M::to_item(new)?);
        let condition = still_holds::<M>(Some(&old), &key)?;
        self.update_if::<M>(key.clone(), update.moving_sentinels(), Some(condition))?
            .add_sentinels::<M>(Some(&old), Some(&new), &key)
    }

    /// Updates a record's item to `new` version-checked, as
    /// [`Table::update_record`](super::Table::update_record) does.
    /// The version the item has once the transaction succeeds is in
    /// [`TransactionSummary::versions`]: set it, and `new`, on the record
    /// then.
    ///
    /// # Errors
    /// As [`Update::between`]; a table without a version attribute or a
    /// record never read; as [`Transaction::push`].
    ///
    /// ```no_run
    /// # use dynamodb_mapper::{Mapper, Record, ops::Transaction};
    /// # fn demo<M: Mapper>(tx: Transaction, record: &Record<M::Entity>, new: M::Entity) -> dynamodb_mapper::Result<()> {
    /// let tx = tx.update_record::<M>(record, &new)?;
    /// # let _ = tx;
    /// # Ok(())
    /// # }
    /// ```
    pub fn update_record<M: Mapper>(
        self,
        record: &Record<M::Entity>,
        new: &M::Entity,
    ) -> Result<Self> {
        let mut update = Update::between::<M>(&record.entity, new)?;
        let moved = if M::UNIQUE.is_empty() {
            None
        } else {
            let read = match record.unique_read() {
                Some(values) => values.clone(),
                None => M::to_item(&record.entity)?,
            };
            let new = M::to_item(new)?;
            if !unique::changes::<M>(Some(&read), Some(&new))?.is_empty() {
                // The item stores the values whose sentinels it takes, even
                // those the entity read already had (an upgrade step that
                // changed them, say).
                update = with_unique_fields::<M>(update, &new);
            }
            Some((read, new))
        };
        let versioned = versioned_update::<M>(record, update, self.table.now())?;
        let key = versioned.key.clone();
        let tx = self.add_update::<M>(
            versioned.key,
            versioned.update,
            versioned.condition,
            Some(versioned.next),
        )?;
        match moved {
            None => Ok(tx),
            Some((read, new)) => tx.add_sentinels::<M>(Some(&read), Some(&new), &key),
        }
    }
}

/// `update` with every attribute of `M`'s unique constraints it does not
/// write set as `new` holds it (removed where `new` has none).
fn with_unique_fields<M: Mapper>(update: Update, new: &Item) -> Update {
    let written: Vec<String> = update
        .top_level_names()
        .iter()
        .map(|n| (*n).to_owned())
        .collect();
    let mut extra = Update::new();
    for name in unique::attributes::<M>() {
        if written.contains(&name) {
            continue;
        }
        extra = match new.get(&name) {
            Some(v) => extra.set(Attr::top_level(&name), v.clone()),
            None => extra.remove(Attr::top_level(&name)),
        };
    }
    update.and(extra.rendered_by::<M>())
}

/// `key`, checked against `M`'s table, for an action that carries no
/// version check: refused when the table has a version attribute (naming
/// the helper to use `instead`).
fn unversioned_key<M: Mapper>(
    key: &Item,
    operation: &'static str,
    instead: &'static str,
) -> Result<Item> {
    let key = M::SCHEMA
        .key_of(key)
        .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
    match M::SCHEMA.version {
        Some(attribute) => {
            Err(
                Error::version_check_required(describe_key(&key), operation, attribute, instead)
                    .with_entity_type(M::ENTITY_TYPE),
            )
        }
        None => Ok(key),
    }
}
