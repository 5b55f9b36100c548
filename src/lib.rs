//! # dynamodb-mapper
//!
//! Serde-based item mapping with lifecycle hooks for DynamoDB **single-table
//! design**. Not an ORM: you keep calling `aws-sdk-dynamodb` yourself; this
//! crate turns domain values into [`Item`]s and items back into domain values.
//!
//! - Domain structs stay plain `#[derive(Serialize, Deserialize)]` types.
//! - One [`Mapper`] per entity adds what exists only for persistence (pk/sk,
//!   GSI keys, the `entityType` discriminator, TTL) in its hooks, and checks
//!   what it reads.
//! - A lossless read ([`Mapper::record_from_item`]) keeps every attribute the
//!   mapper does not own in an [`AttributeBag`], and a write merges it back.
//! - The [`TableSchema`] checks every item before it is sent (keys, index key
//!   pairs, sizes, numbers, sets) and creates the table for tests.
//!
//! ```
//! use dynamodb_mapper::{hooks::put_str, GlobalSecondaryIndex, Item, Mapper, NamingConvention, TableSchema};
//! use serde::{Deserialize, Serialize};
//!
//! const APP_TABLE: TableSchema = TableSchema::new("pk")
//!     .sort_key("sk")
//!     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! struct Customer {
//!     customer_id: String,
//!     email: String,
//! }
//!
//! struct CustomerMapper;
//!
//! impl Mapper for CustomerMapper {
//!     type Entity = Customer;
//!     const ENTITY_TYPE: &'static str = "Customer";
//!     const TABLE: TableSchema = APP_TABLE;
//!     const NAMING: NamingConvention = NamingConvention::CamelCase;
//!
//!     fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
//!         put_str(item, "pk", format!("CUSTOMER#{}", c.customer_id));
//!         put_str(item, "sk", "METADATA");
//!         put_str(item, "gsi1pk", format!("EMAIL#{}", c.email));
//!         put_str(item, "gsi1sk", format!("CUSTOMER#{}", c.customer_id));
//!         Ok(())
//!     }
//! }
//!
//! let c = Customer { customer_id: "C1".into(), email: "ada@example.com".into() };
//! let item = CustomerMapper::to_item(&c)?;            // pass to PutItem
//! let key = CustomerMapper::string_key("CUSTOMER#C1", "METADATA")?; // pass to GetItem
//! assert_eq!(key.len(), 2);
//! assert_eq!(CustomerMapper::from_item(item)?, c);   // from GetItem's output
//! # Ok::<(), dynamodb_mapper::Error>(())
//! ```
#![warn(missing_docs)]
#![deny(unsafe_code)]
#![warn(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod check;
mod de;
mod error;
pub mod expr;
mod fields;
pub mod hooks;
mod item;
pub mod key;
mod mapper;
mod naming;
pub mod ops;
mod record;
mod registry;
mod schema;
mod ser;
mod view;

pub use error::{BoxError, Error, ErrorKind, Result};
pub use expr::{
    Condition, ConditionExt, Expression, FilterExt, IntoExpression, KeyCondition, KeyConditionExt,
};
pub use item::{
    Item, ItemExt, MAX_ITEM_SIZE, MAX_NUMBER_DIGITS, item_size, ttl_value, type_name, value_size,
};
pub use key::{AllowedOverlap, IndexKeys, KeyBuilder, KeyFormat, KeyPattern};
pub use mapper::Mapper;
pub use naming::NamingConvention;
pub use record::{AttributeBag, Record};
pub use registry::{
    Buckets, DISCRIMINATOR_PLACEHOLDER, Decoded, DecodedItems, DiscriminatorFilter, Group,
    MAX_FILTER_VALUES, MissingPolicy, RawItem, Registry, RegistryBuilder, Skipped, UnknownPolicy,
    Unmatched,
};
pub use schema::{
    DEFAULT_DISCRIMINATOR, GlobalSecondaryIndex, KeyAttribute, MAX_PARTITION_KEY_BYTES,
    MAX_SORT_KEY_BYTES, ScalarType, TableSchema,
};
pub use view::PartitionView;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
