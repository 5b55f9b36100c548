//! Sending a transaction: one SDK attempt per send, resent with its token
//! while refused for now or unanswered, and a cancellation mapped back to
//! the actions (a sentinel's put refused is a unique value taken).

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use tracing::Instrument;

use super::{Transaction, TransactionSummary};
use crate::error::{CanceledAction, Error, Result};
use crate::item::Item;
use crate::mapper::{Mapper, MapperExt};
use crate::ops::call::{Failed, Resend};
use crate::ops::capacity;

impl Transaction {
    /// Sends the transaction. An empty transaction sends nothing. What
    /// DynamoDB reported of consumed capacity, when the table asked for it,
    /// is in the [`TransactionSummary`] and the `consumed_capacity` field of
    /// the `dynamodb_mapper.transact_write` span.
    ///
    /// Each send is one SDK attempt (the SDK's own retries are off for it),
    /// so every answer is seen. A send that was throttled, canceled only
    /// for conflicts with other transactions (`TransactionConflict`:
    /// nothing applied), or that got no credible answer (a server error, a
    /// broken connection), is sent again with the same client token, up to
    /// the table's
    /// [`retry_policy`](super::Table::retry_policy): DynamoDB applies the
    /// transaction at most once and answers a resend with the outcome of
    /// the first.
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline),
    /// every attempt, retry and pause included.
    ///
    /// # Errors
    /// [`ErrorKind::UniqueViolation`](crate::ErrorKind::UniqueViolation)
    /// when a sentinel of a unique value ([`Unique`](crate::Unique)) is
    /// another item's, naming the constraint, the value and that item
    /// (nothing was written);
    /// [`ErrorKind::TransactionCanceled`](crate::ErrorKind::TransactionCanceled)
    /// with each failed action's entity type, key, code and message (nothing
    /// was written);
    /// [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse)
    /// when the cancellation reasons do not match the actions one to one
    /// (nothing was written either);
    /// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) when no answer came in
    /// time, and [`ErrorKind::Sdk`](crate::ErrorKind::Sdk) with a server
    /// error (5xx) as its source, when the last send that could tell got
    /// none (the outcome is unknown; it was applied at most once, and sending
    /// the same `Transaction` again within ten minutes cannot apply it twice);
    /// [`ErrorKind::Sdk`](crate::ErrorKind::Sdk) otherwise (refused, nothing
    /// applied).
    ///
    /// ```no_run
    /// # async fn demo(tx: dynamodb_mapper::ops::Transaction) -> dynamodb_mapper::Result<()> {
    /// tx.send().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn send(&self) -> Result<TransactionSummary> {
        let asked = self.table.get_return_consumed_capacity().cloned();
        let mut summary = TransactionSummary {
            consumed_capacity: capacity::start(capacity::asks(asked.as_ref())),
            versions: Vec::new(),
        };
        if self.actions.is_empty() {
            return Ok(summary);
        }
        let span = tracing::info_span!(
            "dynamodb_mapper.transact_write",
            table = self.table.name(),
            actions = self.actions.len(),
            entity_types = %self.entity_types(),
            consumed_capacity = tracing::field::Empty,
        );
        let infos = &self.infos;
        let request = self
            .table
            .client()
            .transact_write_items()
            .set_transact_items(Some(self.actions.clone()))
            .client_request_token(&self.token)
            .set_return_consumed_capacity(asked);
        // One SDK attempt per send, each answer seen; sent again when
        // throttled or unanswered (not when out of time): the token makes
        // DynamoDB apply it at most once, and answer a resend with the first
        // send's outcome.
        let sent = self
            .table
            .send_conditional("TransactWriteItems", Resend::RefusedOrUnanswered, |once| {
                request.clone().customize().config_override(once).send()
            })
            .instrument(span.clone());
        match sent.await {
            Ok(out) => {
                capacity::add_all(&mut summary.consumed_capacity, out.consumed_capacity());
                capacity::record(&span, summary.consumed_capacity.as_ref());
                summary.versions.clone_from(&self.versions);
                Ok(summary)
            }
            Err(Failed::Service(TransactWriteItemsError::TransactionCanceledException(e))) => {
                let reasons = e.cancellation_reasons().len();
                if reasons != 0 && reasons != infos.len() {
                    // DynamoDB gives one reason per action, in order; any
                    // other count cannot be mapped back to the actions.
                    return Err(Error::unexpected_response(
                        "TransactWriteItems",
                        format!(
                            "the transaction was canceled with {reasons} cancellation reasons for \
                             {} actions, so they cannot be told apart",
                            infos.len()
                        ),
                    ));
                }
                // A sentinel put refused for its condition: the value is
                // another item's (unless an action of the caller's own
                // failed its condition: that is the caller's to see).
                let own_failed = e.cancellation_reasons().iter().enumerate().any(|(i, r)| {
                    r.code() == Some("ConditionalCheckFailed")
                        && !self
                            .infos
                            .get(i)
                            .is_some_and(|info| is_sentinel_key(&info.key))
                });
                let violation = e
                    .cancellation_reasons()
                    .iter()
                    .enumerate()
                    .filter(|_| !own_failed)
                    .find_map(|(i, r)| {
                        let put = self.sentinels.get(i)?.as_deref()?;
                        (r.code() == Some("ConditionalCheckFailed"))
                            .then(|| put.violation(r.item()))
                    });
                if let Some(violation) = violation {
                    return Err(violation);
                }
                let canceled = e
                    .cancellation_reasons()
                    .iter()
                    .enumerate()
                    .filter_map(|(index, reason)| {
                        let code = reason.code().unwrap_or("None");
                        if code == "None" {
                            return None;
                        }
                        let action = infos.get(index)?.clone();
                        Some(CanceledAction::new(
                            index,
                            action,
                            code.to_owned(),
                            reason.message().map(str::to_owned),
                            reason.item().cloned(),
                        ))
                    })
                    .collect();
                Err(Error::transaction_canceled(
                    canceled,
                    aws_sdk_dynamodb::Error::from(
                        TransactWriteItemsError::TransactionCanceledException(e),
                    ),
                ))
            }
            Err(f) => Err(f.into_write_error(
                "TransactWriteItems",
                format!("the transaction with token {:?}", self.token),
            )),
        }
    }

    fn entity_types(&self) -> String {
        let mut types: Vec<&str> = self.infos.iter().map(|i| i.entity_type.as_str()).collect();
        types.sort_unstable();
        types.dedup();
        types.join(",")
    }
}

/// Whether `key` is a sentinel's (its partition key starts `UNIQUE#`).
fn is_sentinel_key(key: &Item) -> bool {
    key.values().any(
        |v| matches!(v, aws_sdk_dynamodb::types::AttributeValue::S(s) if s.starts_with("UNIQUE#")),
    )
}

impl CanceledAction {
    /// The item as it was when the action's condition failed, decoded
    /// through `M` (the mapper of the action's entity type): the stored
    /// state that made the transaction fail. `None` when DynamoDB returned
    /// no item (the action did not fail on its condition, or no item
    /// existed).
    ///
    /// # Errors
    /// Decoding errors, as [`MapperExt::from_item`] reports them (an item
    /// of another entity type is one).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::ops::{ActionInfo, ActionKind, CanceledAction};
    /// let stored = NoteMapper::to_item(&Note { id: 7, text: "taken".into() })?;
    /// let canceled = CanceledAction::new(
    ///     0,
    ///     ActionInfo::new(ActionKind::Put, "AppTable", "Note", NoteMapper::lookup().with("id", 7).key()?),
    ///     "ConditionalCheckFailed".into(),
    ///     None,
    ///     Some(stored),
    /// );
    /// let note = canceled.decoded::<NoteMapper>().transpose()?;
    /// assert_eq!(note.map(|n| n.text).as_deref(), Some("taken"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn decoded<M: Mapper>(&self) -> Option<Result<M::Entity>> {
        self.item.clone().map(M::from_item)
    }
}
