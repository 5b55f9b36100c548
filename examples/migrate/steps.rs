//! What the example does: create the table as it was, write the orders of
//! the old shape, add the status index, audit, backfill in four segments
//! with a progress bar, audit again, and query the new index.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, CreateGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate,
    KeySchemaElement, KeyType, Projection, ProjectionType, ScalarAttributeType,
};
use dynamodb_mapper::Registry;
use dynamodb_mapper::evolve::{Audit, Backfill, Budget, Progress};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::prelude::*;
use futures_util::StreamExt;

use crate::model::{Order, OrderBefore, OrderMapper, TABLE, TABLE_BEFORE, order};

/// How many orders `cargo run --example migrate` writes.
pub const ORDERS: u32 = 20_000;

/// Parallel-scan segments, each run by its own task here.
const SEGMENTS: u32 = 4;

pub async fn run(orders: u32, log: &mut Vec<String>) -> Result<(), BoxError> {
    let server = dynamodb_mapper_testkit::shared().await?;
    let client = server.client();
    let name = dynamodb_mapper_testkit::unique_table_name("migrate");
    TABLE_BEFORE
        .definition(&name)
        .create_table_request(&client)
        .send()
        .await?;
    dynamodb_mapper_testkit::wait_for_table_active(&client, &name).await?;
    log.push(format!(
        "1. Created {name}: orders by customer, no other index"
    ));

    let all: Vec<Order> = (0..orders).map(order).collect();
    let written = Table::new(&client, &name, TABLE_BEFORE)
        .batch_writer()
        .put::<OrderBefore>(&all)
        .await?;
    log.push(format!(
        "2. Wrote {} orders of the old shape in {} BatchWriteItem requests",
        written.items, written.requests
    ));

    // The new access pattern: orders by status. The SDK's own request.
    let key = |name: &str, key_type: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(key_type)
            .build()
    };
    let attribute = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
    };
    client
        .update_table()
        .table_name(&name)
        .attribute_definitions(attribute("gsi1pk")?)
        .attribute_definitions(attribute("gsi1sk")?)
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder()
                .create(
                    CreateGlobalSecondaryIndexAction::builder()
                        .index_name("ByStatus")
                        .key_schema(key("gsi1pk", KeyType::Hash)?)
                        .key_schema(key("gsi1sk", KeyType::Range)?)
                        .projection(
                            Projection::builder()
                                .projection_type(ProjectionType::All)
                                .build(),
                        )
                        .build()?,
                )
                .build(),
        )
        .send()
        .await?;
    dynamodb_mapper_testkit::wait_for_table_active(&client, &name).await?;
    log.push("3. Added index ByStatus (gsi1pk, gsi1sk) with UpdateTable; it is ACTIVE".into());

    let table = Table::new(&client, &name, TABLE);
    let registry = Registry::builder().register::<OrderMapper>(|o| o).build()?;
    let before = audit(&table, &registry).await?;
    log.push(format!("4. Audit, {SEGMENTS} segments:"));
    log.extend(before.to_string().lines().map(|l| format!("   {l}")));

    let budget = Budget::new(f64::INFINITY, 100_000.0);
    let (report, bar) = backfill(&table, &registry, &budget, orders).await?;
    log.push(format!(
        "5. Backfill, {SEGMENTS} segments, each write conditional on the order as read:"
    ));
    log.extend(bar.into_iter().map(|l| format!("   {l}")));
    log.push(format!(
        "   {}",
        report.to_string().lines().next().unwrap_or_default()
    ));
    if !report.failed.is_empty() {
        return Err(format!(
            "the backfill could not change {} orders:\n{report}",
            report.failed.len()
        )
        .into());
    }

    let after = audit(&table, &registry).await?;
    log.push("6. Audit again:".into());
    log.extend(after.to_string().lines().map(|l| format!("   {l}")));

    let query = OrderMapper::lookup()
        .on_index("ByStatus")
        .with("status", "open")
        .query(&table)?;
    let open = table
        .query_stream(query, &registry)
        .filter_map(|d| async move { d.ok().and_then(|d| d.into_entity()) })
        .count()
        .await;
    log.push(format!("7. Query ByStatus for open orders: {open}"));
    log.push(format!(
        "8. Capacity units: audits {:.0} + {:.0} read; backfill {:.0} read, {:.0} write",
        before.read_units, after.read_units, report.read_units, report.write_units
    ));
    Ok(())
}

/// Audits the table in its segments at once and merges their reports.
async fn audit(table: &Table, registry: &Registry<Order>) -> Result<Audit, BoxError> {
    let runs = (0..SEGMENTS).map(|i| table.sweep(registry).segment(i, SEGMENTS).audit());
    let mut report = Audit::default();
    for run in futures_util::future::join_all(runs).await {
        report.merge(run?);
    }
    Ok(report)
}

/// Backfills the table in its segments at once within `budget`, drawing a
/// progress bar from their reports; returns the merged report and the
/// bar at each quarter.
async fn backfill(
    table: &Table,
    registry: &Registry<Order>,
    budget: &Budget,
    expected: u32,
) -> Result<(Backfill, Vec<String>), BoxError> {
    let progress: Arc<Mutex<Vec<Progress>>> =
        Arc::new(Mutex::new(vec![Progress::default(); SEGMENTS as usize]));
    let quarters: Arc<Mutex<Vec<String>>> = Arc::default();
    let runs = (0..SEGMENTS).map(|i| {
        let (progress, quarters) = (progress.clone(), quarters.clone());
        table
            .sweep(registry)
            .segment(i, SEGMENTS)
            .page_size(500)
            .concurrency(16)
            .budget(budget)
            .on_progress(move |p| {
                let Ok(mut all) = progress.lock() else { return };
                all[i as usize] = p.clone();
                let scanned: u64 = all.iter().map(|p| p.scanned).sum();
                let changed: u64 = all.iter().map(|p| p.changed).sum();
                let per_second: f64 = all.iter().map(|p| p.units_per_second).sum();
                let done = (scanned * 20 / u64::from(expected.max(1))).min(20) as usize;
                let bar = format!(
                    "[{}{}] {scanned}/{expected} orders, {changed} changed, {per_second:.0} units/s",
                    "#".repeat(done),
                    "-".repeat(20 - done)
                );
                eprint!("\r{bar}");
                if let Ok(mut lines) = quarters.lock() {
                    let quarter = scanned * 4 / u64::from(expected.max(1));
                    if quarter as usize > lines.len() {
                        lines.push(bar);
                    }
                }
            })
            .backfill()
    });
    let mut report = Backfill::default();
    for run in futures_util::future::join_all(runs).await {
        report.merge(run?);
    }
    eprintln!();
    let lines = quarters.lock().map(|l| l.clone()).unwrap_or_default();
    Ok((report, lines))
}
