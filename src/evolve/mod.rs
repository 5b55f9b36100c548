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
//!
//! Writes go through `ops` (`ops/renew.rs`: one conditional update, one
//! consistent read) and the write gate (`expr/gate.rs`).
//!
//! The map of the crate is ARCHITECTURE.md.

mod audit;
mod backfill;
mod inspect;
mod pace;
mod sweep;

pub use audit::{Audit, Example, Finding, Found, TypeAudit};
pub use backfill::Backfill;
pub use pace::{Budget, Progress};
pub use sweep::Sweep;
