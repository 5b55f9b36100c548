//! The change handler: what the application does for each change, and the
//! Lambda-style function around it. Deployed, `function_handler` is what
//! `lambda_runtime::run(service_fn(..))` calls with the event's payload.

use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use dynamodb_mapper::stream::{Change, ChangeKind, lambda_records, process_records};
use dynamodb_mapper::{Decoded, Registry};

use crate::model::Order;

/// A Lambda function for the table's stream, with `ReportBatchItemFailures`
/// on its event source mapping: handles the records in order and reports
/// the one it stopped at, so Lambda retries from there and nothing is lost.
pub async fn function_handler(
    registry: &Registry<Order>,
    event: Event,
    log: &mut Vec<String>,
) -> DynamoDbEventResponse {
    let outcome = process_records(registry, lambda_records(event), |change| {
        let line = format!("   {}", describe(&change));
        log.push(line);
        async { Ok::<(), std::convert::Infallible>(()) }
    })
    .await;
    if let Some(failed) = &outcome.failed {
        log.push(format!(
            "   stopped at record {}: {}",
            failed.sequence_number.as_deref().unwrap_or("?"),
            failed.error
        ));
    }
    outcome.into()
}

/// What a change means to the shop.
pub fn describe(change: &Change<Order>) -> String {
    let order = |d: &Option<Decoded<Order>>| match d {
        Some(Decoded::Entity(o)) => Some(o.clone()),
        _ => None,
    };
    match (change.kind, order(&change.old), order(&change.new)) {
        (ChangeKind::Insert, _, Some(new)) => format!(
            "{} placed in {} ({} cents): send the confirmation",
            new.order_id, new.region, new.total_cents
        ),
        (ChangeKind::Modify, Some(old), Some(new)) if old.status != new.status => format!(
            "{} went from {} to {}: notify the customer",
            new.order_id, old.status, new.status
        ),
        (ChangeKind::Modify, _, Some(new)) => format!("{} changed", new.order_id),
        (ChangeKind::Remove, Some(old), _) if change.removed_by_ttl => {
            format!("{} expired (TTL): archive it", old.order_id)
        }
        (ChangeKind::Remove, Some(old), _) => format!("{} cancelled by a user", old.order_id),
        (kind, _, _) => format!("{kind} of something else: {:?}", change.keys),
    }
}
