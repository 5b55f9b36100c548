//! Expression builders: key conditions, condition and filter expressions,
//! and extension traits that add them to the SDK's request builders.
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
//! conditions, `#c0`, `:c0`, ... for conditions and filters (`build_with_prefix`
//! chooses another). Whenever two expressions meet ([`Expression::and`], or
//! applying one to a request that already holds names and values), each
//! placeholder of the incoming expression that is already bound to something
//! else is renamed (`:c0` becomes `:c1`, ...), and one bound to the same thing
//! is shared. So merging never clashes, whatever prefixes were used: a filter
//! built here merges with the registry's discriminator filter (`#dmType`,
//! `:dmType0`, ...) or with hand-written placeholders, in any order.
//!
//! ```
//! use dynamodb_mapper::expr::{attr, FilterExt, KeyCondition, KeyConditionExt};
//! use dynamodb_mapper::TableSchema;
//! # let conf = aws_sdk_dynamodb::Config::builder()
//! #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
//! #     .build();
//! # let client = aws_sdk_dynamodb::Client::from_conf(conf);
//!
//! const APP_TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
//!
//! let query = client
//!     .query()
//!     .table_name("AppTable")
//!     .with_key_condition(KeyCondition::new(APP_TABLE, "CUSTOMER#C1").sort_begins_with("ORDER#"))?
//!     .with_filter(attr("status").eq("open").and(attr("lines").size().gt(2)))?;
//! let input = query.as_input();
//! assert_eq!(input.get_key_condition_expression().as_deref(), Some("#k0 = :k0 AND begins_with(#k1, :k1)"));
//! assert_eq!(input.get_filter_expression().as_deref(), Some("#c0 = :c0 AND size(#c1) > :c1"));
//! assert_eq!(input.get_expression_attribute_names().as_ref().unwrap().len(), 4);
//! assert_eq!(input.get_expression_attribute_values().as_ref().unwrap().len(), 4);
//! // let output = query.send().await?;
//! # Ok::<(), dynamodb_mapper::Error>(())
//! ```

mod condition;
mod expression;
mod operand;
mod placeholders;

pub use condition::Condition;
pub use expression::Expression;
pub use operand::{Attr, Operand, Size, ValueType, attr, value};

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemFluentBuilder;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemFluentBuilder;
use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::types::builders::{
    ConditionCheckBuilder, DeleteBuilder, PutBuilder, UpdateBuilder,
};

use crate::error::{Error, Result};
use crate::item::{check_depth, parse_number, type_name};
use crate::registry::DiscriminatorFilter;
use crate::schema::{
    KeyAttribute, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, ScalarType, TableSchema,
};
use condition::Comparator;
use operand::OperandKind;
use placeholders::{Ctx, check_prefix};

#[derive(Debug, Clone, PartialEq)]
enum SortCondition {
    Compare(Comparator, Operand),
    Between(Operand, Operand),
    BeginsWith(Operand),
}

/// A key condition for a `Query` on the table or one of its indexes: the
/// partition key equals a value, and optionally one condition on the sort
/// key (`=`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `begins_with`).
///
/// The key attribute names and types come from the [`TableSchema`]; building
/// checks that the index exists, that it has a sort key when one is
/// compared, and that each value has the key's type, is not empty and is
/// within the key size limits.
///
/// ```
/// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
/// use dynamodb_mapper::expr::KeyCondition;
///
/// const APP_TABLE: TableSchema = TableSchema::new("pk")
///     .sort_key("sk")
///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);
///
/// let key = KeyCondition::new(APP_TABLE, "STATUS#open")
///     .index("GSI1")
///     .sort_between("2024-01-01", "2024-02-01");
/// let e = key.build()?;
/// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 BETWEEN :k1 AND :k2");
/// assert_eq!(e.names()["#k0"], "gsi1pk");
/// assert_eq!(e.names()["#k1"], "gsi1sk");
/// assert_eq!(key.index_name(), Some("GSI1"));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct KeyCondition {
    schema: TableSchema,
    index: Option<String>,
    partition: Operand,
    sort: Vec<SortCondition>,
}

impl KeyCondition {
    /// The partition key (of the table, or of the index chosen with
    /// [`index`](Self::index)) equals `partition`.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk"), "TENANT#acme").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn new(schema: TableSchema, partition: impl Into<Operand>) -> Self {
        KeyCondition {
            schema,
            index: None,
            partition: partition.into(),
            sort: Vec::new(),
        }
    }

    /// Queries the global secondary index `name` instead of the table.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, GlobalSecondaryIndex, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk").indexes(&[GlobalSecondaryIndex::new("ByEmail", "email")]);
    /// let e = KeyCondition::new(T, "ada@example.com").index("ByEmail").build()?;
    /// assert_eq!(e.names()["#k0"], "email");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn index(mut self, name: impl Into<String>) -> Self {
        self.index = Some(name.into());
        self
    }

    /// The index queried, `None` for the table.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// assert_eq!(KeyCondition::new(TableSchema::new("pk"), "A").index_name(), None);
    /// ```
    #[must_use]
    pub fn index_name(&self) -> Option<&str> {
        self.index.as_deref()
    }

    fn sort(mut self, condition: SortCondition) -> Self {
        self.sort.push(condition);
        self
    }

    /// The sort key equals `value`.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "A").sort_eq("B").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 = :k1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_eq(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Eq, value.into()))
    }

    /// The sort key is below `value`.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "A").sort_lt("B").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 < :k1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_lt(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Lt, value.into()))
    }

    /// The sort key is at most `value`.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "A").sort_le("B").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 <= :k1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_le(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Le, value.into()))
    }

    /// The sort key is above `value`.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "A").sort_gt("B").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 > :k1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_gt(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Gt, value.into()))
    }

    /// The sort key is at least `value`.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "A").sort_ge("B").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 >= :k1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_ge(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Ge, value.into()))
    }

    /// The sort key is between `low` and `high`, both included.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "A").sort_between("B", "C").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 BETWEEN :k1 AND :k2");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_between(self, low: impl Into<Operand>, high: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Between(low.into(), high.into()))
    }

    /// The sort key starts with `prefix` (string and binary sort keys only).
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, key::KeyPattern, TableSchema};
    /// const LINE_SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}");
    /// let prefix = LINE_SK.with("order_id", "O1").prefix()?;
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "CUSTOMER#C1")
    ///     .sort_begins_with(prefix)
    ///     .build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND begins_with(#k1, :k1)");
    /// assert_eq!(e.values()[":k1"].as_s().unwrap(), "ORDER#O1#LINE#");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_begins_with(self, prefix: impl Into<Operand>) -> Self {
        self.sort(SortCondition::BeginsWith(prefix.into()))
    }

    /// The expression, with placeholders `#k0`, `:k0`, ...
    ///
    /// # Errors
    /// [`Error::InvalidKey`]: the index does not exist (the attribute is the
    /// index name); a sort key condition on a table or index without a sort
    /// key, or more than one (attribute `(sort key)`); a value that is an
    /// attribute path, of the wrong type, empty, over the key size limit, or
    /// a `BETWEEN` whose low bound is above its high bound (attribute: the key
    /// attribute); `begins_with` on a number sort key.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, GlobalSecondaryIndex, ScalarType, TableSchema};
    ///
    /// const T: TableSchema = TableSchema::new("pk")
    ///     .typed_sort_key("at", ScalarType::N)
    ///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk")]);
    /// let err = KeyCondition::new(T, "A").index("GSI9").build().unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `GSI9` is not an index of the table (its indexes: GSI1)");
    /// let err = KeyCondition::new(T, "A").index("GSI1").sort_eq("x").build().unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `(sort key)` has a condition, but index GSI1 has no sort key");
    /// let err = KeyCondition::new(T, "A").sort_eq("x").build().unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `at` condition value is a string (S), expected a number (N)");
    /// let err = KeyCondition::new(T, "").build().unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `pk` condition value is empty; DynamoDB rejects empty key values");
    /// ```
    pub fn build(&self) -> Result<Expression> {
        self.build_with_prefix("k")
    }

    /// The expression, with placeholders `#<prefix>0`, `:<prefix>0`, ...
    ///
    /// # Errors
    /// As [`build`](Self::build), and [`Error::InvalidValue`] (attribute
    /// `(expression)`) for a prefix that is not ASCII letters and digits
    /// starting with a letter.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk"), "A").build_with_prefix("key")?;
    /// assert_eq!(e.expression(), "#key0 = :key0");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn build_with_prefix(&self, prefix: &str) -> Result<Expression> {
        check_prefix(prefix)?;
        let (partition_key, sort_key, on) = match &self.index {
            None => (
                self.schema.partition_key_attribute(),
                self.schema.sort_key_attribute(),
                "the table".to_owned(),
            ),
            Some(name) => match self.schema.index(name) {
                Some(index) => (index.partition_key, index.sort_key, format!("index {name}")),
                None => {
                    let names: Vec<&str> = self
                        .schema
                        .global_indexes()
                        .iter()
                        .map(|i| i.name)
                        .collect();
                    let list = if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    };
                    return Err(Error::invalid_key(
                        name.as_str(),
                        format!("is not an index of the table (its indexes: {list})"),
                    ));
                }
            },
        };
        let of = match &self.index {
            None => String::new(),
            Some(name) => format!("of index {name} "),
        };
        let mut ctx = Ctx::new(prefix);
        let value = key_value(partition_key, &of, &self.partition, MAX_PARTITION_KEY_BYTES)?;
        let name = ctx.name(partition_key.name);
        let value = ctx.value(value);
        let mut out = format!("{name} = {value}");
        match self.sort.as_slice() {
            [] => {}
            [condition] => {
                let Some(sort_key) = sort_key else {
                    return Err(Error::invalid_key(
                        "(sort key)",
                        format!("has a condition, but {on} has no sort key"),
                    ));
                };
                let value =
                    |operand: &Operand| key_value(sort_key, &of, operand, MAX_SORT_KEY_BYTES);
                let name = ctx.name(sort_key.name);
                match condition {
                    SortCondition::Compare(comparator, operand) => {
                        let v = value(operand)?;
                        let v = ctx.value(v);
                        out.push_str(&format!(" AND {name} {} {v}", comparator.symbol()));
                    }
                    SortCondition::Between(low, high) => {
                        let (low, high) = (value(low)?, value(high)?);
                        if bounds_reversed(&low, &high) {
                            return Err(Error::invalid_key(
                                sort_key.name,
                                format!(
                                    "{of}condition BETWEEN has its low bound above its high bound"
                                ),
                            ));
                        }
                        let (low, high) = (ctx.value(low), ctx.value(high));
                        out.push_str(&format!(" AND {name} BETWEEN {low} AND {high}"));
                    }
                    SortCondition::BeginsWith(operand) => {
                        if sort_key.scalar_type == ScalarType::N {
                            return Err(Error::invalid_key(
                                sort_key.name,
                                format!(
                                    "{of}is a number (N); begins_with needs a string or binary sort key"
                                ),
                            ));
                        }
                        let v = value(operand)?;
                        let v = ctx.value(v);
                        out.push_str(&format!(" AND begins_with({name}, {v})"));
                    }
                }
            }
            more => {
                let attribute = sort_key.map_or("(sort key)", |k| k.name);
                return Err(Error::invalid_key(
                    attribute,
                    format!(
                        "{of}has {} conditions; a key condition allows one",
                        more.len()
                    ),
                ));
            }
        }
        Ok(Expression::rendered(out, ctx))
    }
}

fn describe(scalar_type: ScalarType) -> &'static str {
    match scalar_type {
        ScalarType::S => "a string (S)",
        ScalarType::N => "a number (N)",
        ScalarType::B => "a binary (B)",
    }
}

fn key_value(
    attribute: KeyAttribute,
    of: &str,
    operand: &Operand,
    limit: usize,
) -> Result<AttributeValue> {
    let err = |reason: String| Error::invalid_key(attribute.name, format!("{of}{reason}"));
    let value = match &operand.0 {
        OperandKind::Value(Ok(v)) => {
            let name = attribute.name.to_owned();
            check_depth([(&name, v)]).map_err(|e| match e {
                Error::InvalidValue { reason, .. } => err(format!("condition value {reason}")),
                other => other,
            })?;
            v.clone()
        }
        OperandKind::Value(Err(reason)) => {
            return Err(err(format!(
                "condition value cannot be converted: {reason}"
            )));
        }
        OperandKind::Path(a) | OperandKind::Size(a) => {
            return Err(err(format!(
                "condition compares with the attribute `{}`; key conditions compare with values",
                a.path()
            )));
        }
    };
    let len = match (attribute.scalar_type, &value) {
        (ScalarType::S, AttributeValue::S(s)) => s.len(),
        (ScalarType::B, AttributeValue::B(b)) => b.as_ref().len(),
        (ScalarType::N, AttributeValue::N(n)) => {
            parse_number(n).map_err(|reason| err(format!("condition value {reason}")))?;
            n.len()
        }
        (expected, found) => {
            return Err(err(format!(
                "condition value is {}, expected {}",
                type_name(found),
                describe(expected)
            )));
        }
    };
    if len == 0 {
        return Err(err(
            "condition value is empty; DynamoDB rejects empty key values".to_owned(),
        ));
    }
    if len > limit {
        return Err(err(format!(
            "condition value is {len} bytes, over the limit of {limit} bytes"
        )));
    }
    Ok(value)
}

/// Whether `low > high` for sure (numbers compared as `f64`, which never
/// orders two numbers the wrong way round, only sometimes calls them equal).
fn bounds_reversed(low: &AttributeValue, high: &AttributeValue) -> bool {
    match (low, high) {
        (AttributeValue::S(a), AttributeValue::S(b)) => a > b,
        (AttributeValue::B(a), AttributeValue::B(b)) => a.as_ref() > b.as_ref(),
        (AttributeValue::N(a), AttributeValue::N(b)) => {
            matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(a), Ok(b)) if a > b)
        }
        _ => false,
    }
}

/// Turns something into an [`Expression`]: an expression, a [`Condition`]
/// (built with its default placeholder prefix `c`), or the registry's
/// [`DiscriminatorFilter`]. What the extension traits accept.
///
/// ```
/// use dynamodb_mapper::expr::{attr, IntoExpression};
/// let e = attr("a").eq(1).into_expression()?;
/// assert_eq!(e.expression(), "#c0 = :c0");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub trait IntoExpression {
    /// The expression.
    ///
    /// # Errors
    /// What building the condition returns.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, IntoExpression};
    /// assert!(attr("a..b").exists().into_expression().is_err());
    /// ```
    fn into_expression(self) -> Result<Expression>;
}

impl IntoExpression for Expression {
    fn into_expression(self) -> Result<Expression> {
        Ok(self)
    }
}

impl IntoExpression for Condition {
    fn into_expression(self) -> Result<Expression> {
        self.build()
    }
}

impl IntoExpression for &Condition {
    fn into_expression(self) -> Result<Expression> {
        self.build()
    }
}

impl IntoExpression for DiscriminatorFilter {
    fn into_expression(self) -> Result<Expression> {
        let (expression, names, values) = self.into_parts();
        Expression::new(expression, names, values)
    }
}

impl IntoExpression for &DiscriminatorFilter {
    fn into_expression(self) -> Result<Expression> {
        Expression::new(
            self.expression(),
            self.names().clone(),
            self.values().clone(),
        )
    }
}

/// What applying an expression adds to a request.
struct Merged {
    expression: String,
    names: Vec<(String, String)>,
    values: Vec<(String, AttributeValue)>,
}

/// Renames `ours`' placeholders the request binds to something else, joins
/// the expression with the request's existing one (`(existing) AND (ours)`),
/// and lists the names and values the request does not hold yet.
fn merge(
    existing: Option<&str>,
    names: Option<&HashMap<String, String>>,
    values: Option<&HashMap<String, AttributeValue>>,
    ours: Expression,
) -> Merged {
    let no_names = HashMap::new();
    let no_values = HashMap::new();
    let names = names.unwrap_or(&no_names);
    let values = values.unwrap_or(&no_values);
    let (ours_expression, ours_names, ours_values) =
        ours.renamed_against(names, values).into_parts();
    let expression = match existing {
        Some(e) if !e.trim().is_empty() => format!("({e}) AND ({ours_expression})"),
        _ => ours_expression,
    };
    let mut new_names: Vec<(String, String)> = ours_names
        .into_iter()
        .filter(|(k, v)| names.get(k) != Some(v))
        .collect();
    new_names.sort();
    let mut new_values: Vec<(String, AttributeValue)> = ours_values
        .into_iter()
        .filter(|(k, v)| values.get(k) != Some(v))
        .collect();
    new_values.sort_by(|a, b| a.0.cmp(&b.0));
    Merged {
        expression,
        names: new_names,
        values: new_values,
    }
}

/// Adds a key condition to a `Query`.
///
/// ```
/// use dynamodb_mapper::expr::{KeyCondition, KeyConditionExt};
/// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
/// # let conf = aws_sdk_dynamodb::Config::builder()
/// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
/// #     .build();
/// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
///
/// const T: TableSchema = TableSchema::new("pk").sort_key("sk")
///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);
/// let query = client
///     .query()
///     .table_name("AppTable")
///     .with_key_condition(KeyCondition::new(T, "STATUS#open").index("GSI1").sort_ge("2024-06"))?;
/// assert_eq!(query.get_index_name().as_deref(), Some("GSI1"));
/// assert_eq!(query.get_key_condition_expression().as_deref(), Some("#k0 = :k0 AND #k1 >= :k1"));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub trait KeyConditionExt: Sized {
    /// Sets the key condition expression (and the index name, for an index),
    /// adding its names and values to those already set: none is replaced;
    /// a placeholder the request already binds to something else is renamed.
    ///
    /// # Errors
    /// What [`KeyCondition::build`] returns; [`Error::InvalidKey`]
    /// (attribute `(key condition)`) when the request already has a key
    /// condition expression, or reads another index than the key condition.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{KeyCondition, KeyConditionExt};
    /// use dynamodb_mapper::TableSchema;
    /// # let conf = aws_sdk_dynamodb::Config::builder()
    /// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
    /// #     .build();
    /// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
    /// let query = client.query().key_condition_expression("pk = :pk");
    /// let err = query.with_key_condition(KeyCondition::new(TableSchema::new("pk"), "A")).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "key attribute `(key condition)` cannot be added: the request already has the key condition `pk = :pk`"
    /// );
    /// ```
    fn with_key_condition(self, key: KeyCondition) -> Result<Self>;
}

impl KeyConditionExt for QueryFluentBuilder {
    fn with_key_condition(self, key: KeyCondition) -> Result<Self> {
        let expression = key.build()?;
        if let Some(existing) = self
            .get_key_condition_expression()
            .as_deref()
            .filter(|e| !e.trim().is_empty())
        {
            return Err(Error::invalid_key(
                "(key condition)",
                format!("cannot be added: the request already has the key condition `{existing}`"),
            ));
        }
        match (self.get_index_name().as_deref(), key.index_name()) {
            (Some(reads), Some(ours)) if reads != ours => {
                return Err(Error::invalid_key(
                    "(key condition)",
                    format!("is for index {ours}, but the request reads index {reads}"),
                ));
            }
            (Some(reads), None) => {
                return Err(Error::invalid_key(
                    "(key condition)",
                    format!("is for the table, but the request reads index {reads}"),
                ));
            }
            _ => {}
        }
        let merged = merge(
            None,
            self.get_expression_attribute_names().as_ref(),
            self.get_expression_attribute_values().as_ref(),
            expression,
        );
        let mut query = self.key_condition_expression(merged.expression);
        if let Some(index) = key.index_name() {
            query = query.index_name(index);
        }
        for (k, v) in merged.names {
            query = query.expression_attribute_names(k, v);
        }
        for (k, v) in merged.values {
            query = query.expression_attribute_values(k, v);
        }
        Ok(query)
    }
}

/// Adds a filter expression to a `Query` or `Scan`.
///
/// ```
/// use dynamodb_mapper::expr::{attr, FilterExt};
/// # let conf = aws_sdk_dynamodb::Config::builder()
/// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
/// #     .build();
/// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
/// let scan = client.scan().table_name("AppTable").with_filter(attr("status").eq("open"))?;
/// assert_eq!(scan.get_filter_expression().as_deref(), Some("#c0 = :c0"));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub trait FilterExt: Sized {
    /// Sets the filter expression, joined with `AND` to one already set, and
    /// adds its names and values to those already set: none is replaced; a
    /// placeholder the request already binds to something else is renamed.
    ///
    /// # Errors
    /// What building the filter returns ([`IntoExpression`]).
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::expr::{attr, FilterExt};
    /// # let conf = aws_sdk_dynamodb::Config::builder()
    /// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
    /// #     .build();
    /// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
    /// let query = client
    ///     .query()
    ///     .key_condition_expression("pk = :c0")
    ///     .expression_attribute_values(":c0", AttributeValue::S("TENANT#acme".into()))
    ///     .with_filter(attr("status").eq("open"))?;
    /// // `:c0` was taken, so the filter's value became `:c1`.
    /// assert_eq!(query.get_filter_expression().as_deref(), Some("#c0 = :c1"));
    /// assert_eq!(query.get_expression_attribute_values().as_ref().unwrap().len(), 2);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn with_filter(self, filter: impl IntoExpression) -> Result<Self>;
}

macro_rules! impl_filter_ext {
    ($($builder:ty),*) => {$(
        impl FilterExt for $builder {
            fn with_filter(self, filter: impl IntoExpression) -> Result<Self> {
                let merged = merge(
                    self.get_filter_expression().as_deref(),
                    self.get_expression_attribute_names().as_ref(),
                    self.get_expression_attribute_values().as_ref(),
                    filter.into_expression()?,
                );
                let mut builder = self.filter_expression(merged.expression);
                for (k, v) in merged.names {
                    builder = builder.expression_attribute_names(k, v);
                }
                for (k, v) in merged.values {
                    builder = builder.expression_attribute_values(k, v);
                }
                Ok(builder)
            }
        }
    )*};
}
impl_filter_ext!(QueryFluentBuilder, ScanFluentBuilder);

/// Adds a condition expression to a `PutItem`, `DeleteItem` or `UpdateItem`
/// request, or to the `Put`, `Delete`, `Update` and `ConditionCheck` parts of
/// a `TransactWriteItem`.
///
/// ```
/// use aws_sdk_dynamodb::types::{ConditionCheck, TransactWriteItem};
/// use dynamodb_mapper::expr::{attr, ConditionExt};
///
/// let check = ConditionCheck::builder()
///     .table_name("AppTable")
///     .key("pk", aws_sdk_dynamodb::types::AttributeValue::S("PRODUCT#P1".into()))
///     .with_condition(attr("stock").ge(2))?
///     .build()
///     .unwrap();
/// assert_eq!(check.condition_expression(), "#c0 >= :c0");
/// let item = TransactWriteItem::builder().condition_check(check).build();
/// # let _ = item;
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub trait ConditionExt: Sized {
    /// Sets the condition expression, joined with `AND` to one already set,
    /// and adds its names and values to those already set (by an update
    /// expression, say): none is replaced; a placeholder the request already
    /// binds to something else is renamed.
    ///
    /// # Errors
    /// What building the condition returns ([`IntoExpression`]).
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::expr::{attr, ConditionExt};
    /// # let conf = aws_sdk_dynamodb::Config::builder()
    /// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
    /// #     .build();
    /// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
    /// let update = client
    ///     .update_item()
    ///     .table_name("AppTable")
    ///     .update_expression("SET #c0 = :c0")
    ///     .expression_attribute_names("#c0", "status")
    ///     .expression_attribute_values(":c0", AttributeValue::S("shipped".into()))
    ///     .with_condition(attr("status").eq("paid"))?;
    /// // `#c0` already means `status`: shared. `:c0` is taken: renamed.
    /// assert_eq!(update.get_condition_expression().as_deref(), Some("#c0 = :c1"));
    /// assert_eq!(update.get_expression_attribute_names().as_ref().unwrap().len(), 1);
    /// assert_eq!(update.get_expression_attribute_values().as_ref().unwrap().len(), 2);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn with_condition(self, condition: impl IntoExpression) -> Result<Self>;
}

macro_rules! impl_condition_ext {
    ($($builder:ty),*) => {$(
        impl ConditionExt for $builder {
            fn with_condition(self, condition: impl IntoExpression) -> Result<Self> {
                let merged = merge(
                    self.get_condition_expression().as_deref(),
                    self.get_expression_attribute_names().as_ref(),
                    self.get_expression_attribute_values().as_ref(),
                    condition.into_expression()?,
                );
                let mut builder = self.condition_expression(merged.expression);
                for (k, v) in merged.names {
                    builder = builder.expression_attribute_names(k, v);
                }
                for (k, v) in merged.values {
                    builder = builder.expression_attribute_values(k, v);
                }
                Ok(builder)
            }
        }
    )*};
}
impl_condition_ext!(
    PutItemFluentBuilder,
    DeleteItemFluentBuilder,
    UpdateItemFluentBuilder,
    PutBuilder,
    DeleteBuilder,
    UpdateBuilder,
    ConditionCheckBuilder
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reversed_bounds() {
        let n = |v: &str| AttributeValue::N(v.into());
        assert!(bounds_reversed(&n("10"), &n("9")));
        assert!(!bounds_reversed(&n("9"), &n("10")));
        assert!(!bounds_reversed(
            &n("1.00000000000000000000000000000000000002"),
            &n("1.00000000000000000000000000000000000001")
        ));
    }
}
