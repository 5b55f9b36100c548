//! Schema evolution at table scale: a [`Sweep`] reads a table, or one
//! segment of DynamoDB's parallel scan, through a registry, page by page,
//! with resumable checkpoints, so the work fans out over as many processes
//! as you have and needs no coordinator.
//!
//! - `audit`: the report ([`Audit`], [`TypeAudit`], [`Finding`], [`Found`],
//!   [`Example`]): counts and the first examples, never the items.
//! - `inspect`: the checks made of each item, and [`Audit::add`].
//! - `backfill`: [`Sweep::backfill`] and its report ([`Backfill`]): each
//!   item written again with what its mapper renders now, conditional on
//!   it being as read.
//! - `sweep`: [`Sweep`] and [`Table::sweep`](crate::ops::Table::sweep): the
//!   scan, segments and checkpoints, [`Sweep::audit`].
//! - `pace`: [`Budget`] and [`Progress`].
//!
//! # Fanning out
//!
//! Each segment is independent work: give segment `i` of `n` to its own
//! process (a Lambda invocation, a container, a task) with the checkpoint it
//! stopped at, and store what it hands back. A Step Functions `Map` state
//! over `0..n`, each iteration looping while `next` is set, is a whole
//! backfill with no coordinator of the crate's; so is a queue of
//! `{segment, of, checkpoint}` messages, each worker re-queueing its next
//! checkpoint. A run killed anywhere is resumed from the last checkpoint
//! stored: the items it changed since are found unchanged the second time.
//! Sign checkpoints ([`Sweep::checkpoints`]) when they travel through hands
//! you do not trust.
//!
//! ```no_run
//! use dynamodb_mapper::evolve::Backfill;
//! use dynamodb_mapper::ops::Table;
//! use dynamodb_mapper::Registry;
//!
//! /// What one invocation receives and hands back.
//! struct Slice { segment: u32, of: u32, checkpoint: Option<String> }
//!
//! /// One invocation: at most 50 pages of its segment (well within a
//! /// Lambda's 15 minutes), then the checkpoint for the next one, or `None`
//! /// when the segment is done.
//! async fn handler<T>(table: &Table, registry: &Registry<T>, slice: Slice) -> dynamodb_mapper::Result<Option<String>> {
//!     let mut sweep = table.sweep(registry).segment(slice.segment, slice.of).max_pages(50);
//!     if let Some(at) = slice.checkpoint {
//!         sweep = sweep.resume(at);
//!     }
//!     let report: Backfill = sweep.backfill().await?;
//!     for failed in &report.failed {
//!         eprintln!("{:#}", failed.error); // names the item's key
//!     }
//!     Ok(report.next)
//! }
//! ```
//!
//! Writes go through `ops` (`ops/renew.rs`: one conditional update, one
//! consistent read) and the write gate (`expr/gate.rs`).
//!
//! The map of the crate is ARCHITECTURE.md.

mod audit;
mod backfill;
mod inspect;
mod pace;
mod sentinels;
mod sweep;

pub use audit::{Audit, Example, Finding, Found, TypeAudit};
pub use backfill::Backfill;
pub use pace::{Budget, Progress};
pub use sweep::Sweep;
