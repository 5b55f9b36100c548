//! Expression builders: key conditions, condition and filter expressions,
//! updates, projections, and [`Apply`], which adds them to the SDK's request
//! builders.
//!
//! Every builder produces an [`Expression`]: the expression text with its
//! `ExpressionAttributeNames` and `ExpressionAttributeValues`, holding
//! exactly the placeholders the text uses (DynamoDB rejects unused ones).
//! Every attribute name goes through a `#` placeholder, so reserved words
//! (`status`, `name`, `size`, ...) and names with odd characters need no care.
//! Attribute paths may be nested: `address.city`, `lines[0].qty`.
//!
//! # Placeholders never clash
//!
//! A builder numbers its placeholders from a prefix: `#k0`, `:k0`, ... for key
//! conditions, `#c0`, `:c0`, ... for conditions and filters
//! ([`Condition::build_with_stem`] chooses another). Whenever two expressions
//! meet ([`Expression::and`], or
//! applying one to a request that already holds names and values), each
//! placeholder of the incoming expression that is already bound to something
//! else is renamed (`:c0` becomes `:c1`, ...), and one bound to the same thing
//! is shared. So merging never clashes, whatever prefixes were used: a filter
//! built here merges with the registry's discriminator filter (`#dmType0`,
//! `:dmType0`, ...) or with hand-written placeholders, in any order.
//!
//! ```
//! use dynamodb_mapper::expr::{attr, Apply, KeyCondition};
//! use dynamodb_mapper::TableSchema;
//! # let client = dynamodb_mapper_support::doc::client();
//!
//! const APP_TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
//!
//! let query = client
//!     .query()
//!     .table_name("AppTable")
//!     .apply(KeyCondition::new(APP_TABLE, "CUSTOMER#C1").and(attr("sk").begins_with("ORDER#")))?
//!     .apply(attr("status").eq("open").and(attr("lines").size().gt(2)))?;
//! let input = query.as_input();
//! assert_eq!(input.get_key_condition_expression().as_deref(), Some("#k0 = :k0 AND begins_with(#k1, :k1)"));
//! assert_eq!(input.get_filter_expression().as_deref(), Some("#c0 = :c0 AND size(#c1) > :c1"));
//! assert_eq!(input.get_expression_attribute_names().as_ref().unwrap().len(), 4);
//! assert_eq!(input.get_expression_attribute_values().as_ref().unwrap().len(), 4);
//! // let output = query.send().await?;
//! # Ok::<(), dynamodb_mapper::Error>(())
//! ```
//!
//! # Module map
//!
//! - `placeholders.rs`: how every builder allocates placeholders (`#c0`,
//!   `:c0`, ...) and how clashing ones are renamed when expressions merge.
//! - `expression.rs`: [`Expression`], the built expression, checked when
//!   hand-written, combined with `and`, `or` and `!`.
//! - `operand.rs`: operands: [`attr`], [`Attr`], [`Size`], [`value`],
//!   [`Operand`], [`ValueType`], and attribute path parsing.
//! - `condition.rs`: [`Condition`], the condition and filter builder (with
//!   the [`Attr`] and [`Size`] methods that start one) and its rendering.
//! - `key_condition.rs`: [`KeyCondition`], the key condition of a `Query`,
//!   checked against a [`TableSchema`](crate::TableSchema).
//! - `update.rs`: [`Update`], the update expression builder (`SET`,
//!   `REMOVE`, `ADD`, `DELETE`), and [`UpdateValue`] with [`list_append`]
//!   for what `SET` assigns.
//! - `projection.rs`: [`Projection`], the attributes a read returns (for a
//!   smaller view of an entity, [`Projection::of`]).
//! - `changes.rs`: [`Update::between`], the typed partial update from two
//!   entities.
//! - `gate.rs`: the write gate every raw update a helper sends passes
//!   (`check_update`: no derived attribute left stale, no key moved).
//! - `apply.rs`: [`IntoExpression`] and [`Apply`], which adds an expression
//!   to an SDK request builder, in the part of the request its type says.

mod apply;
mod changes;
mod condition;
mod expression;
mod from_lookup;
mod gate;
mod key_condition;
mod operand;
mod placeholders;
mod projection;
mod update;

pub use apply::{Apply, IntoExpression};
pub use condition::Condition;
pub use expression::Expression;
pub use key_condition::KeyCondition;
pub use operand::{Attr, Operand, Size, ValueType, attr, value};
pub use projection::Projection;
pub use update::{Update, UpdateValue, list_append};

pub(crate) use from_lookup::sort_range;
pub(crate) use gate::check_update;
