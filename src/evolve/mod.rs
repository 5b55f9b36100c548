//! Schema evolution at table scale: a [`Sweep`] reads a table, or one
//! segment of DynamoDB's parallel scan, through a registry, page by page,
//! with resumable checkpoints, so the work fans out over as many processes
//! as you have and needs no coordinator.
//!
//! - `audit`: the report ([`Audit`], [`TypeAudit`], [`Finding`], [`Found`],
//!   [`Example`]): counts and the first examples, never the items.
//! - `inspect`: the checks made of each item (private).
//! - `sweep`: [`Sweep`] and [`Table::sweep`](crate::ops::Table::sweep): the
//!   scan, segments and checkpoints.
//!
//! The map of the crate is ARCHITECTURE.md.

mod audit;
mod inspect;
mod sweep;

pub use audit::{Audit, Example, Finding, Found, TypeAudit};
pub use sweep::Sweep;
