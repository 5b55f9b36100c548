#![doc = include_str!("../README.md")]
//!
//! ## Where things are
//!
//! Every public name has one path. The names every mapper needs are here
//! at the root; the rest live in the public modules [`key`], [`cursor`],
//! [`hooks`], [`expr`], [`ops`], [`stream`] and [`time`]. The
//! [`prelude`] brings the traits whose methods you call into scope with one
//! import (`use dynamodb_mapper::prelude::*;`). How the crate is layered, and what each layer keeps
//! true, is in `ARCHITECTURE.md` at the repository's root, the one map of
//! the code.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![forbid(unsafe_code)]
#![warn(missing_debug_implementations, unreachable_pub)]
#![warn(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod check;
pub mod cursor;
mod de;
mod describe;
mod error;
pub mod evolve;
pub mod expr;
mod fields;
pub mod hooks;
mod item;
pub mod key;
mod mapper;
mod names;
mod naming;
pub mod ops;
pub mod prelude;
mod probe;
mod record;
mod registry;
mod schema;
mod ser;
pub mod stream;
pub mod time;
mod type_cache;
mod view;

pub use error::{Error, ErrorDetails, ErrorKind, Result};
pub use item::{Item, ItemExt, item_size, ttl_value};
pub use key::index_keys::IndexKeys;
pub use key::pattern::KeyPattern;
pub use key::unique::Unique;
pub use mapper::{Lookup, Mapper, MapperExt};
pub use naming::NamingConvention;
pub use record::Record;
pub use registry::{
    AccessPattern, Buckets, Decoded, DecodedItems, DesignExport, Group, MissingPolicy, RawItem,
    Registry, RegistryBuilder, Skipped, UnknownPolicy, Unmatched,
};
pub use schema::{GlobalSecondaryIndex, KeyAttribute, ScalarType, TableDefinition, TableSchema};
pub use ser::NoneAs;
pub use view::PartitionView;
