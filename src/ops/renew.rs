//! What a table-scale pass ([`evolve`](crate::evolve)) sends for one item:
//! an update applied only if the item is still as it was read, and a
//! strongly consistent read of the item again after a conflict or an
//! attempt that got no answer.

use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::TransactWriteItem;

use super::Table;
use super::call::Failed;
use super::identity::KeyId;
use super::send::{HelperCall, item_span, send_update};
use super::version::read_item;
use crate::describe::describe_key;
use crate::error::{ActionInfo, ActionKind, Error, Result};
use crate::expr::{Apply, Expression, Update};
use crate::item::Item;
use crate::mapper::unique::Changes;

/// What [`Table::renew`] found.
pub(crate) enum Renewed {
    /// The update was applied; the write units it consumed, when DynamoDB
    /// said.
    Applied(Option<f64>),
    /// The condition did not hold: the item as it is now, when DynamoDB
    /// said (`None`: read it again to know).
    Refused(Option<Item>),
}

impl Table {
    /// Sends `update` of the item at `key` if `condition` holds: one
    /// attempt per send, resent per the table's retry policy when refused
    /// for now, within the table's bound; the write gate has passed it.
    ///
    /// When the update moves sentinels of unique values (`moves`), it is
    /// sent as one transaction with them: a refused condition of the item
    /// is `Refused(None)`, a value another item holds a
    /// [`UniqueViolation`](crate::ErrorKind::UniqueViolation).
    pub(crate) async fn renew(
        &self,
        key: Item,
        update: Update,
        condition: Expression,
        (entity_type, moves): (&'static str, Changes),
    ) -> Result<Renewed> {
        if !moves.is_empty() {
            let action = aws_sdk_dynamodb::types::Update::builder()
                .table_name(self.name())
                .set_key(Some(key.clone()))
                .apply(update)?
                .apply(condition)?
                .build()
                .map_err(|e| Error::sdk("TransactWriteItems", e))?;
            let info = ActionInfo::new(ActionKind::Update, self.name(), entity_type, key.clone());
            let sent = self
                .started()
                .transaction()
                .push(TransactWriteItem::builder().update(action).build(), info)?
                .with_sentinels(self.schema(), entity_type, moves, &key)?
                .send()
                .await;
            return match sent {
                Ok(summary) => Ok(Renewed::Applied(summary.consumed_capacity.map(|c| c.total))),
                Err(e) if super::unique::entity_refused(&e) => Ok(Renewed::Refused(None)),
                Err(e) => Err(e.with_entity_type(entity_type)),
            };
        }
        let span = item_span!("dynamodb_mapper.renew", self, entity_type, &key);
        let mut call = HelperCall::new(self, span);
        match send_update(&mut call, key.clone(), update, Some(condition), None).await {
            Ok(out) => Ok(Renewed::Applied(
                out.consumed_capacity().and_then(|c| c.capacity_units()),
            )),
            Err(Failed::Service(UpdateItemError::ConditionalCheckFailedException(e))) => {
                // The item as it is, if it is the one asked about.
                let now = e.item.filter(|item| self.is_at(item, &key));
                Ok(Renewed::Refused(now))
            }
            Err(f) => Err(f
                .into_write_error("UpdateItem", describe_key(&key))
                .with_entity_type(entity_type)),
        }
    }

    /// The item at `key`, read strongly consistent; `None` when there is
    /// none.
    ///
    /// # Errors
    /// What sending a `GetItem` returns;
    /// [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse)
    /// when the answer is an item at another key.
    pub(crate) async fn read_again(
        &self,
        key: Item,
        entity_type: &'static str,
    ) -> Result<Option<Item>> {
        let span = item_span!("dynamodb_mapper.read_again", self, entity_type, &key);
        let mut call = HelperCall::new(self, span);
        read_item(&mut call, key, self.schema())
            .await
            .map_err(|e| e.with_entity_type(entity_type))
    }

    /// The number of items DynamoDB says the table holds (updated about
    /// every six hours), for a progress estimate; `None` when it does not
    /// say or the call fails (an estimate is not worth failing for).
    pub(crate) async fn item_count(&self) -> Option<u64> {
        let request = self
            .client()
            .describe_table()
            .table_name(self.name())
            .send();
        let out = super::call::call(&self.bound(), "DescribeTable", request)
            .await
            .ok()?;
        out.table?.item_count.and_then(|n| u64::try_from(n).ok())
    }

    /// Whether `item` is the item at `key`.
    fn is_at(&self, item: &Item, key: &Item) -> bool {
        self.schema()
            .key_of(item)
            .is_ok_and(|found| KeyId::of(&found) == KeyId::of(key))
    }
}
