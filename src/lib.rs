#![doc = include_str!("../README.md")]
//!
//! ## Module map
//!
//! From the bottom up; a module uses only those above it (see
//! `ARCHITECTURE.md` for what each keeps true):
//!
//! - `error`: [`Error`], [`ErrorKind`], [`Result`]; `naming`:
//!   [`NamingConvention`]; [`time`]: [`PointInTime`], the times of `std`,
//!   `chrono`, `time` and `jiff` (cargo features), and TTL serde helpers.
//! - `item`: [`Item`], [`ItemExt`], sizes and the value checks DynamoDB
//!   applies.
//! - `schema`: [`TableSchema`], [`GlobalSecondaryIndex`], [`TableDefinition`]
//!   (the `CreateTable` and `UpdateTimeToLive` requests and JSON documents).
//! - [`key`]: key formats, encodings, [`KeyBuilder`], [`KeyPattern`] and
//!   their overlap analysis.
//! - [`cursor`]: opaque, optionally signed pagination cursors bound to a
//!   table and index.
//! - `fields`, [`hooks`], `record` ([`Record`], [`AttributeBag`]), `view`
//!   ([`PartitionView`]).
//! - `names`: sets of attribute names looked up by length, without hashing
//!   (an entity's fields, a mapper's own attributes).
//! - `type_cache`: what is worked out once per type and kept (an entity's
//!   fields, a mapper's key plan and own attributes).
//! - `ser`, `de`: serde straight to and from the SDK's `AttributeValue`.
//! - `check`: the one pass of write checks every outgoing item goes through.
//! - `mapper`: the [`Mapper`] trait, its write path and its read path.
//! - [`expr`]: [`Expression`], [`Condition`], [`KeyCondition`] and the SDK
//!   builder extensions.
//! - `registry`: [`Registry`], its design checks, [`DiscriminatorFilter`],
//!   [`Buckets`].
//! - [`ops`]: batches, optimistic locking, transactions, paged streams,
//!   table creation.
//! - [`stream`]: DynamoDB Streams records and Lambda events decoded
//!   through the registry, and Lambda's partial-batch response.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![forbid(unsafe_code)]
#![warn(missing_debug_implementations, unreachable_pub)]
#![warn(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod check;
pub mod cursor;
mod de;
#[doc(hidden)]
pub mod doc_support;
mod error;
pub mod expr;
mod fields;
pub mod hooks;
mod item;
pub mod key;
mod mapper;
mod names;
mod naming;
pub mod ops;
mod probe;
mod record;
mod registry;
mod schema;
mod ser;
pub mod stream;
pub mod time;
mod type_cache;
mod view;

pub use self::time::PointInTime;
pub use error::{BoxError, Error, ErrorKind, Result};
pub use expr::{
    Condition, ConditionExt, Expression, FilterExt, IntoExpression, KeyCondition, KeyConditionExt,
    Update, UpdateExt,
};
pub use item::{
    Item, ItemExt, MAX_ITEM_SIZE, MAX_NUMBER_DIGITS, item_size, ttl_value, type_name, value_size,
};
pub use key::{AllowedOverlap, IndexKeys, KeyBuilder, KeyFormat, KeyPattern};
pub use mapper::{Lookup, Mapper, MapperExt};
pub use naming::NamingConvention;
pub use record::{AttributeBag, Record};
pub use registry::{
    Buckets, DISCRIMINATOR_PLACEHOLDER, Decoded, DecodedItems, DiscriminatorFilter, Group,
    MAX_FILTER_VALUES, MissingPolicy, RawItem, Registry, RegistryBuilder, Skipped, UnknownPolicy,
    Unmatched,
};
pub use schema::{
    DEFAULT_DISCRIMINATOR, GlobalSecondaryIndex, IndexProjection, KeyAttribute,
    MAX_INDEX_KEY_ATTRIBUTES, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, ScalarType,
    TableDefinition, TableSchema,
};
pub use ser::NoneAs;
pub use view::PartitionView;
