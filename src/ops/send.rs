//! The one path of the single-item requests a helper sends: the helper's
//! tracing span (table, entity type, key, consumed capacity), the call
//! bound and the helper's deadline, writes sent as one SDK attempt each and
//! retried by the table's policy (see `call`), the failure sorted by what it
//! means for the data, and the consumed capacity summed over every request
//! of the helper call and recorded on its span.
//!
//! Batches (`batch/run.rs`), transactions (`tx.rs`) and streams of pages
//! (`pages.rs`) keep loops of their own, built on the same `call`.

use std::future::Future;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::update_item::{UpdateItemError, UpdateItemOutput};
use aws_sdk_dynamodb::types::{ConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure};
use tracing::Instrument;

use super::Table;
use super::call::{Failed, RefusedForNow, Resend, call_read};
use super::capacity::{self, CapacityUsage};
use crate::expr::{Apply, Expression, Update};
use crate::item::Item;

/// The span of a helper call about one item of `$entity_type` at `$key`:
/// `table`, `entity_type`, `key` (rendered only when the span is recorded)
/// and `consumed_capacity`, plus any extra fields.
macro_rules! item_span {
    ($name:literal, $table:expr, $entity_type:expr, $key:expr $(, $field:ident)*) => {
        tracing::info_span!(
            $name,
            table = $table.name(),
            entity_type = $entity_type,
            key = %$crate::describe::describe_key($key),
            consumed_capacity = tracing::field::Empty,
            $($field = tracing::field::Empty,)*
        )
    };
}
pub(super) use item_span;

/// An SDK output that may report the capacity its request consumed.
pub(crate) trait Consumed {
    fn consumed(&self) -> Option<&ConsumedCapacity>;
}

macro_rules! consumed {
    ($($output:ty),*) => {$(
        impl Consumed for $output {
            fn consumed(&self) -> Option<&ConsumedCapacity> {
                self.consumed_capacity()
            }
        }
    )*};
}

consumed!(
    aws_sdk_dynamodb::operation::get_item::GetItemOutput,
    aws_sdk_dynamodb::operation::put_item::PutItemOutput,
    aws_sdk_dynamodb::operation::delete_item::DeleteItemOutput,
    aws_sdk_dynamodb::operation::update_item::UpdateItemOutput
);

/// One helper call in progress: the table with its deadline started, the
/// helper's span, and the capacity its requests consumed so far.
pub(crate) struct HelperCall {
    table: Table,
    span: tracing::Span,
    used: Option<CapacityUsage>,
}

impl HelperCall {
    /// A helper call on `table` starting now (or within the deadline of
    /// the helper call `table` was started for), traced in `span`.
    pub(crate) fn new(table: &Table, span: tracing::Span) -> Self {
        let table = table.started();
        let used = capacity::start(capacity::asks(table.get_return_consumed_capacity()));
        HelperCall { table, span, used }
    }

    /// The table, its deadline started: helpers called through it share it.
    pub(crate) fn table(&self) -> &Table {
        &self.table
    }

    /// The helper's span.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// A call of its own within this one (same deadline), traced in
    /// `span`; [`absorb`](Self::absorb) adds what it consumed to this call.
    pub(crate) fn child(&self, span: tracing::Span) -> HelperCall {
        HelperCall {
            table: self.table.clone(),
            span,
            used: capacity::start(capacity::asks(self.table.get_return_consumed_capacity())),
        }
    }

    /// Adds what `child` consumed to this call.
    pub(crate) fn absorb(&mut self, child: HelperCall) {
        capacity::merge(&mut self.used, child.used.as_ref());
        capacity::record(&self.span, self.used.as_ref());
    }

    fn count<T: Consumed>(&mut self, output: &T) {
        capacity::add_all(&mut self.used, output.consumed());
        capacity::record(&self.span, self.used.as_ref());
    }

    /// Sends a conditional write of `operation`: one SDK attempt per send
    /// (`send` gets the override that turns the SDK's retries off), sent
    /// again only when DynamoDB refused it for now, up to the table's
    /// retry policy, within the deadline.
    pub(crate) async fn write<T, E, F>(
        &mut self,
        operation: &'static str,
        send: impl Fn(aws_sdk_dynamodb::config::Builder) -> F,
    ) -> Result<T, Failed<E>>
    where
        T: Consumed,
        F: Future<Output = Result<T, SdkError<E, HttpResponse>>>,
        E: RefusedForNow,
        aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
    {
        let out = self
            .table
            .send_conditional(operation, Resend::Refused, send)
            .instrument(self.span.clone())
            .await?;
        self.count(&out);
        Ok(out)
    }

    /// Sends a read of `operation` made by `send` (the SDK's own retries
    /// kept; asked again when unanswered, see `call_read`), within the
    /// deadline.
    pub(crate) async fn read<T, E, F>(
        &mut self,
        operation: &'static str,
        send: impl Fn() -> F,
    ) -> Result<T, Failed<E>>
    where
        T: Consumed,
        F: Future<Output = Result<T, SdkError<E, HttpResponse>>>,
        aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
    {
        let policy = self.table.get_retry_policy();
        let out = call_read(&self.table.bound(), operation, policy, send)
            .instrument(self.span.clone())
            .await?;
        self.count(&out);
        Ok(out)
    }
}

/// Sends one conditional `UpdateItem` as part of `call`; a refusal of the
/// condition comes back with the item as it was, to say why.
pub(crate) async fn send_update(
    call: &mut HelperCall,
    key: Item,
    update: Update,
    condition: Option<Expression>,
    return_values: Option<ReturnValue>,
) -> Result<UpdateItemOutput, Failed<UpdateItemError>> {
    let table = call.table();
    let mut request = table
        .client()
        .update_item()
        .table_name(table.name())
        .set_key(Some(key))
        .set_return_values(return_values)
        .set_return_consumed_capacity(table.get_return_consumed_capacity().cloned())
        .apply(update)
        .map_err(Failed::NotSent)?;
    if let Some(condition) = condition {
        request = request
            .apply(condition)
            .map_err(Failed::NotSent)?
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
    }
    call.write("UpdateItem", |once| {
        request.clone().customize().config_override(once).send()
    })
    .await
}
