//! The traits whose methods users call, in one import: the mapper traits
//! (`to_item`, `from_item`, `lookup`, ...), the typed getters of an
//! [`Item`](crate::Item), and the extensions that put expressions on the
//! SDK's request builders ([`Apply`]: key conditions,
//! filters, conditions, updates, projections). Each also lives in its own
//! module; the prelude only brings them into scope.
//!
//! ```
//! use dynamodb_mapper::prelude::*;
//! use dynamodb_mapper::expr::{Update, attr};
//! # use dynamodb_mapper_support::doc::{client, CustomerMapper, Customer};
//!
//! let item = CustomerMapper::to_item(&Customer { id: "C1".into() })?;
//! assert_eq!(item.get_str("pk")?, "CUSTOMER#C1");
//! let update = client()
//!     .update_item()
//!     .apply(Update::new().set(attr("name"), "Ada"))?;
//! # let _ = update;
//! # Ok::<(), dynamodb_mapper::Error>(())
//! ```

pub use crate::expr::Apply;
pub use crate::{ItemExt, Mapper, MapperExt};
