//! [`check_access_patterns`]: a registry's declared access patterns run on
//! a table of their own, with every read checked on the wire.

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{Item, Registry};

use crate::error::TestkitError;
use crate::shared::shared;
use crate::tables::unique_table_name;
use crate::wire::{Exchange, Wire};

/// Checks every [access pattern](dynamodb_mapper::AccessPattern) declared on
/// `registry` by running it against the shared server ([`shared`]): makes a
/// table of the registry's layout, writes `samples` to it (items as your
/// mappers write them; give a few of each type, with keys that share
/// partitions), and runs
/// [`Registry::check_access_patterns`](dynamodb_mapper::Registry::check_access_patterns):
/// each pattern, called with the values of every sample's keys, returns
/// exactly the samples its key condition selects, all of its own entity
/// types. On the wire (a [`Wire`] around the client) every read a pattern
/// sent is a `Query` or a `GetItem` without a filter, answered with
/// success, and its answer reports the capacity it consumed; no `Scan` or
/// other request is sent. The table is deleted afterwards.
///
/// Returns the reads, to print or to check further (their index, key
/// condition, consumed capacity).
///
/// # Errors
/// [`TestkitError::AccessPattern`] naming every pattern that failed and how
/// (an item of another entity type names both types), or the read on the
/// wire that was not what a pattern sends; the errors of [`shared`].
///
/// ```no_run
/// # use dynamodb_mapper::{AccessPattern, IndexKeys, KeyPattern, Mapper, MapperExt, Registry, TableSchema};
/// # #[derive(serde::Serialize, serde::Deserialize)] struct Order { customer_id: String, order_id: String }
/// # struct OrderMapper;
/// # impl Mapper for OrderMapper {
/// #     type Entity = Order;
/// #     const ENTITY_TYPE: &'static str = "Order";
/// #     const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk");
/// #     const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer_id}")).sort(KeyPattern::sort("ORDER#{order_id}"))];
/// # }
/// const ORDERS: AccessPattern = AccessPattern::new("orders of a customer", &["Order"]).by(&["customer_id"]);
///
/// #[tokio::test]
/// async fn access_patterns() -> Result<(), Box<dyn std::error::Error>> {
///     let registry = Registry::builder().register::<OrderMapper>(|o| o).access_pattern(ORDERS).build()?;
///     let samples = vec![OrderMapper::to_item(&Order { customer_id: "C1".into(), order_id: "O1".into() })?];
///     dynamodb_mapper_testkit::check_access_patterns(&registry, samples).await?;
///     Ok(())
/// }
/// ```
pub async fn check_access_patterns<T>(
    registry: &Registry<T>,
    samples: impl IntoIterator<Item = Item>,
) -> Result<Vec<Exchange>, TestkitError> {
    let failed = |e: dynamodb_mapper::Error| TestkitError::AccessPattern {
        reason: e.to_string(),
    };
    let plain = shared().await?.client();
    let wire = Wire::new();
    let client = wire.client(&plain);
    let name = unique_table_name("access-patterns");
    let table = Table::new(&client, &name, registry.table())
        .return_consumed_capacity(ReturnConsumedCapacity::Total);
    table.create_table().send().await.map_err(failed)?;
    wire.clear();
    let checked = registry.check_access_patterns(&table, samples).await;
    // The table goes whatever the outcome; a failure to delete it is not
    // the patterns' (the server is the test process's own).
    let _ = plain.delete_table().table_name(&name).send().await;
    checked.map_err(failed)?;
    let mut reads = Vec::new();
    for exchange in wire.exchanges() {
        match exchange.operation() {
            "PutItem" => continue,
            "Query" | "GetItem" => {}
            other => {
                return Err(TestkitError::AccessPattern {
                    reason: format!("an access pattern sent a {other}: {exchange}"),
                });
            }
        }
        let wrong = if exchange.filter().is_some() {
            Some("has a filter")
        } else if exchange.status() != Some(200) {
            Some("was not answered with success")
        } else if exchange.consumed_capacity().is_none() {
            Some("reports no consumed capacity")
        } else {
            None
        };
        if let Some(wrong) = wrong {
            return Err(TestkitError::AccessPattern {
                reason: format!("a read of an access pattern {wrong}: {exchange}"),
            });
        }
        reads.push(exchange);
    }
    Ok(reads)
}
