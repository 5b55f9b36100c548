//! Applying expressions to the SDK: [`IntoExpression`] and the extension
//! traits that add an expression to a request builder, merging placeholders.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemFluentBuilder;
use aws_sdk_dynamodb::operation::get_item::builders::GetItemFluentBuilder;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemFluentBuilder;
use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::types::builders::{
    ConditionCheckBuilder, DeleteBuilder, KeysAndAttributesBuilder, PutBuilder, UpdateBuilder,
};

use super::condition::Condition;
use super::expression::Expression;
use super::key_condition::KeyCondition;
use super::projection::Projection;
use super::update::Update;
use crate::error::{Error, Result};

/// Turns something into an [`Expression`]: an expression, a [`Condition`]
/// (built with its default placeholder stem `c`), or the registry's
/// discriminator filter. What the extension traits accept.
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

impl IntoExpression for &Expression {
    fn into_expression(self) -> Result<Expression> {
        Ok(self.clone())
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

/// What applying an expression adds to a request.
struct Merged {
    expression: String,
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

/// Renames `ours`' placeholders the request binds to something else and
/// joins the expression with the request's existing one (`(existing) AND
/// (ours)`). Its names and values may repeat pairs the request already
/// holds (binding one again changes nothing).
fn merge(
    existing: Option<&str>,
    names: Option<&HashMap<String, String>>,
    values: Option<&HashMap<String, AttributeValue>>,
    ours: Expression,
) -> Merged {
    let ours = match (names, values) {
        (None, None) => ours,
        (names, values) => {
            let no_names = HashMap::new();
            let no_values = HashMap::new();
            ours.renamed_against(names.unwrap_or(&no_names), values.unwrap_or(&no_values))
        }
    };
    let (expression, names, values) = ours.into_parts();
    let expression = match existing {
        Some(e) if !e.trim().is_empty() => format!("({e}) AND ({expression})"),
        _ => expression,
    };
    Merged {
        expression,
        names,
        values,
    }
}

/// Adds a map of names or values to a request builder (`$get`, `$set` and
/// `$add` are the builder's methods for that map): the map itself when the
/// request has none yet (no copy, no rehash), else each pair; never an
/// empty map, which DynamoDB rejects.
macro_rules! bind_map {
    ($builder:expr, $map:expr, $get:ident, $set:ident, $add:ident) => {{
        let builder = $builder;
        let map = $map;
        if map.is_empty() {
            builder
        } else if builder.$get().is_none() {
            builder.$set(Some(map))
        } else {
            map.into_iter().fold(builder, |b, (k, v)| b.$add(k, v))
        }
    }};
}

/// Adds names to a request builder (see [`bind_map`]).
macro_rules! bind_names {
    ($builder:expr, $names:expr) => {
        bind_map!(
            $builder,
            $names,
            get_expression_attribute_names,
            set_expression_attribute_names,
            expression_attribute_names
        )
    };
}

/// Adds names and values (a [`Merged`]'s) to a request builder (see
/// [`bind_map`]).
macro_rules! bind {
    ($builder:expr, $names:expr, $values:expr) => {
        bind_map!(
            bind_names!($builder, $names),
            $values,
            get_expression_attribute_values,
            set_expression_attribute_values,
            expression_attribute_values
        )
    };
}

/// Adds a key condition to a `Query`.
///
/// ```
/// use dynamodb_mapper::expr::{KeyCondition, KeyConditionExt};
/// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
/// # let client = dynamodb_mapper_support::doc::client();
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
    /// What [`KeyCondition::build`] returns;
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) (attribute `(key
    /// condition)`) when the request already has a key condition expression, or
    /// reads another index than the key condition.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{KeyCondition, KeyConditionExt};
    /// use dynamodb_mapper::TableSchema;
    /// # let client = dynamodb_mapper_support::doc::client();
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
        Ok(bind!(query, merged.names, merged.values))
    }
}

/// Adds a filter expression to a `Query` or `Scan`.
///
/// ```
/// use dynamodb_mapper::expr::{attr, FilterExt};
/// # let client = dynamodb_mapper_support::doc::client();
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
    /// # let client = dynamodb_mapper_support::doc::client();
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

/// Implements an extension trait whose one method merges an expression
/// into one slot of a request (its filter or its condition expression).
macro_rules! impl_expression_ext {
    ($trait:ident :: $method:ident, $get:ident, $set:ident, [$($builder:ty),* $(,)?]) => {$(
        impl $trait for $builder {
            fn $method(self, expression: impl IntoExpression) -> Result<Self> {
                let merged = merge(
                    self.$get().as_deref(),
                    self.get_expression_attribute_names().as_ref(),
                    self.get_expression_attribute_values().as_ref(),
                    expression.into_expression()?,
                );
                Ok(bind!(self.$set(merged.expression), merged.names, merged.values))
            }
        }
    )*};
}
impl_expression_ext!(
    FilterExt::with_filter,
    get_filter_expression,
    filter_expression,
    [QueryFluentBuilder, ScanFluentBuilder]
);

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
    /// # let client = dynamodb_mapper_support::doc::client();
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

impl_expression_ext!(
    ConditionExt::with_condition,
    get_condition_expression,
    condition_expression,
    [
        PutItemFluentBuilder,
        DeleteItemFluentBuilder,
        UpdateItemFluentBuilder,
        PutBuilder,
        DeleteBuilder,
        UpdateBuilder,
        ConditionCheckBuilder
    ]
);

/// Sets the update expression of an `UpdateItem` request, or of the
/// `Update` part of a `TransactWriteItem`, from an [`Update`], adding its
/// names and values to those already set (by a condition, say): a
/// placeholder the request already binds to something else is renamed.
///
/// ```
/// use dynamodb_mapper::expr::{attr, ConditionExt, Update, UpdateExt};
/// # let client = dynamodb_mapper_support::doc::client();
/// let request = client
///     .update_item()
///     .table_name("AppTable")
///     .with_update(Update::new().set(attr("status"), "shipped").add(attr("version"), 1))?
///     .with_condition(attr("status").eq("paid"))?;
/// assert_eq!(request.get_update_expression().as_deref(), Some("SET #u0 = :u0 ADD #u1 :u1"));
/// assert_eq!(request.get_condition_expression().as_deref(), Some("#c0 = :c0"));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub trait UpdateExt: Sized {
    /// Sets the update expression.
    ///
    /// # Errors
    /// What [`Update::build`] returns;
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) naming
    /// `(expression)` when the request already has an update expression
    /// (join the updates with [`Update::and`] instead).
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update, UpdateExt};
    /// # let client = dynamodb_mapper_support::doc::client();
    /// let request = client.update_item().with_update(Update::new().set(attr("a"), 1))?;
    /// let err = request.with_update(Update::new().set(attr("b"), 2)).unwrap_err();
    /// assert!(err.to_string().contains("already has an update expression"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn with_update(self, update: Update) -> Result<Self>;
}

macro_rules! impl_update_ext {
    ($($builder:ty),*) => {$(
        impl UpdateExt for $builder {
            fn with_update(self, update: Update) -> Result<Self> {
                if let Some(existing) = self.get_update_expression() {
                    return Err(Error::invalid_value(
                        "(expression)",
                        format!(
                            "cannot be set: the request already has an update expression \
                             ({existing:?}); join the updates with Update::and"
                        ),
                    ));
                }
                let merged = merge(
                    None,
                    self.get_expression_attribute_names().as_ref(),
                    self.get_expression_attribute_values().as_ref(),
                    update.build()?,
                );
                Ok(bind!(
                    self.update_expression(merged.expression),
                    merged.names,
                    merged.values
                ))
            }
        }
    )*};
}
impl_update_ext!(UpdateItemFluentBuilder, UpdateBuilder);

/// Sets the projection expression of a `GetItem`, `Query` or `Scan` (or of
/// a batch get's `KeysAndAttributes`) from a [`Projection`], adding its
/// names to those already set (a placeholder bound to something else is
/// renamed).
///
/// ```
/// use dynamodb_mapper::expr::{attr, FilterExt, Projection, ProjectionExt};
/// # let client = dynamodb_mapper_support::doc::client();
/// let scan = client
///     .scan()
///     .table_name("AppTable")
///     .with_filter(attr("status").eq("open"))?
///     .with_projection(&Projection::paths([attr("status"), attr("id")]))?;
/// // The filter's `#c0` and the projection's `#p0, #p1` live side by side.
/// assert_eq!(scan.get_projection_expression().as_deref(), Some("#p0, #p1"));
/// assert_eq!(scan.get_expression_attribute_names().as_ref().map(|n| n.len()), Some(3));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub trait ProjectionExt: Sized {
    /// Sets the projection expression.
    ///
    /// # Errors
    /// What [`Projection::build`] returns;
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) naming
    /// `(expression)` when the request already has one.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Projection, ProjectionExt};
    /// # let client = dynamodb_mapper_support::doc::client();
    /// let get = client.get_item().with_projection(&Projection::paths([attr("a")]))?;
    /// assert!(get.with_projection(&Projection::paths([attr("b")])).is_err());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn with_projection(self, projection: &Projection) -> Result<Self>;
}

macro_rules! impl_projection_ext {
    ($($builder:ty),*) => {$(
        impl ProjectionExt for $builder {
            fn with_projection(self, projection: &Projection) -> Result<Self> {
                if let Some(existing) = self.get_projection_expression() {
                    return Err(Error::invalid_value(
                        "(expression)",
                        format!(
                            "cannot be set: the request already has a projection expression \
                             ({existing:?})"
                        ),
                    ));
                }
                let merged = merge(
                    None,
                    self.get_expression_attribute_names().as_ref(),
                    None,
                    projection.build()?,
                );
                // A projection binds names only.
                Ok(bind_names!(self.projection_expression(merged.expression), merged.names))
            }
        }
    )*};
}
impl_projection_ext!(
    GetItemFluentBuilder,
    QueryFluentBuilder,
    ScanFluentBuilder,
    KeysAndAttributesBuilder
);
