//! The registry: polymorphic dispatch of mixed query results by
//! discriminator, discriminator filter expressions for chosen sets of entity
//! types, compound reads into typed buckets, and the checks of the table
//! design as a whole that run when a registry is built.
//!
//! One file per concept; each uses only files listed above it:
//! - `policy`: [`UnknownPolicy`], [`MissingPolicy`]: what decoding does with
//!   an item no mapper reads.
//! - `decoded`: what decoding returns: [`Decoded`], [`DecodedItems`],
//!   [`Skipped`], [`RawItem`], [`Unmatched`].
//! - `filter`: the discriminator filter, [`DISCRIMINATOR_PLACEHOLDER`],
//!   [`MAX_FILTER_VALUES`].
//! - `buckets`: [`Buckets`], compound reads sorted by discriminator value.
//! - `entry`: what a registry keeps per mapper and per group (private).
//! - `checks`: the whole-design checks `build` runs (private).
//! - `access`: [`AccessPattern`], and what the proof makes of one (the
//!   query it sends); calling one is `ops::Access`.
//! - `proof`: the proof `build` runs on each access pattern.
//! - `dispatch`: [`Registry`] and its inner dispatch of items to mappers.
//! - `group`: [`Group`] and `Registry::group`.
//! - `reach`: which entity types a key condition can return
//!   (`Registry::entity_types_reached`, `Registry::check_key_condition`).
//! - `export`: [`DesignExport`] and `Registry::export`, the design as
//!   the documents other tools read.
//! - `builder`: [`RegistryBuilder`], `Registry::builder` and `build`.

mod access;
mod buckets;
mod builder;
mod checks;
mod decoded;
mod dispatch;
mod entry;
mod errors;
mod export;
mod filter;
mod group;
mod policy;
mod proof;
mod reach;

pub use access::AccessPattern;
pub(crate) use access::{Proven, SortPlan};
pub use buckets::Buckets;
pub use builder::RegistryBuilder;
pub use decoded::{Decoded, DecodedItems, RawItem, Skipped, Unmatched};
pub use dispatch::Registry;
pub(crate) use dispatch::{MapperOf, Routed};
pub(crate) use entry::dropped_by_upgrades;
pub use export::DesignExport;
pub use group::Group;
pub use policy::{MissingPolicy, UnknownPolicy};
