//! Applying expressions to the SDK: [`IntoExpression`] and [`Apply`], which
//! adds an expression to a request builder, merging placeholders.

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
/// discriminator filter. What [`Apply`] takes as a filter or condition.
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

/// Adds an expression to an SDK request builder, in the part of the request
/// its type says, merging placeholders: its names and values are added to
/// those already set, none is replaced, a placeholder the request already
/// binds to the same name or value is shared and one bound to something
/// else is renamed.
///
/// | expression | requests | sets |
/// |---|---|---|
/// | [`KeyCondition`] | `Query` | the key condition (and the index name, for an index) |
/// | [`Condition`], [`Expression`] (anything [`IntoExpression`]) | `Query`, `Scan` | the filter, joined with `AND` to one already set |
/// | the same | `PutItem`, `DeleteItem`, `UpdateItem`; a transaction's `Put`, `Delete`, `Update`, `ConditionCheck` | the condition, joined with `AND` to one already set |
/// | [`Update`] | `UpdateItem`; a transaction's `Update` | the update expression |
/// | `&`[`Projection`] | `GetItem`, `Query`, `Scan`; a batch get's `KeysAndAttributes` | the projection |
///
/// ```
/// use aws_sdk_dynamodb::types::{ConditionCheck, TransactWriteItem};
/// use dynamodb_mapper::expr::{Apply, KeyCondition, Projection, Update, attr};
/// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
/// # let client = dynamodb_mapper_support::doc::client();
///
/// const T: TableSchema = TableSchema::new("pk").sort_key("sk")
///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);
/// let query = client
///     .query()
///     .table_name("AppTable")
///     .apply(KeyCondition::new(T, "STATUS#open").on_index("GSI1").and(attr("gsi1sk").ge("2024-06")))?
///     .apply(attr("total").gt(100))?
///     .apply(&Projection::paths([attr("id"), attr("total")]))?;
/// assert_eq!(query.get_index_name().as_deref(), Some("GSI1"));
/// assert_eq!(query.get_key_condition_expression().as_deref(), Some("#k0 = :k0 AND #k1 >= :k1"));
/// assert_eq!(query.get_filter_expression().as_deref(), Some("#c0 > :c0"));
/// assert_eq!(query.get_projection_expression().as_deref(), Some("#p0, #p1"));
///
/// let update = client
///     .update_item()
///     .table_name("AppTable")
///     .apply(Update::new().set(attr("status"), "shipped").add(attr("version"), 1))?
///     .apply(attr("status").eq("paid"))?;
/// assert_eq!(update.get_update_expression().as_deref(), Some("SET #u0 = :u0 ADD #u1 :u1"));
/// // The update's `#u`/`:u` placeholders and the condition's `#c`/`:c` live side by side.
/// assert_eq!(update.get_condition_expression().as_deref(), Some("#c0 = :c0"));
///
/// let check = ConditionCheck::builder()
///     .table_name("AppTable")
///     .key("pk", aws_sdk_dynamodb::types::AttributeValue::S("PRODUCT#P1".into()))
///     .apply(attr("stock").ge(2))?
///     .build()
///     .unwrap();
/// assert_eq!(check.condition_expression(), "#c0 >= :c0");
/// # let _ = TransactWriteItem::builder().condition_check(check).build();
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub trait Apply<E>: Sized {
    /// Adds `expression` to the request (see the table above).
    ///
    /// # Errors
    /// What building the expression returns; for a key condition,
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) (attribute `(key
    /// condition)`) when the request already has one or reads another index;
    /// for an update or projection,
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) naming
    /// `(expression)` when the request already has one (join updates with
    /// [`Update::and`] instead).
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::expr::{Apply, KeyCondition, Projection, Update, attr};
    /// use dynamodb_mapper::TableSchema;
    /// # let client = dynamodb_mapper_support::doc::client();
    /// let query = client
    ///     .query()
    ///     .key_condition_expression("pk = :c0")
    ///     .expression_attribute_values(":c0", AttributeValue::S("TENANT#acme".into()))
    ///     .apply(attr("status").eq("open"))?;
    /// // `:c0` was taken, so the filter's value became `:c1`.
    /// assert_eq!(query.get_filter_expression().as_deref(), Some("#c0 = :c1"));
    /// let err = query.apply(KeyCondition::new(TableSchema::new("pk"), "A")).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "key attribute `(key condition)` cannot be added: the request already has the key condition `pk = :c0`"
    /// );
    ///
    /// let request = client.update_item().apply(Update::new().set(attr("a"), 1))?;
    /// let err = request.apply(Update::new().set(attr("b"), 2)).unwrap_err();
    /// assert!(err.to_string().contains("already has an update expression"));
    /// let get = client.get_item().apply(&Projection::paths([attr("a")]))?;
    /// assert!(get.apply(&Projection::paths([attr("b")])).is_err());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn apply(self, expression: E) -> Result<Self>;
}

impl Apply<KeyCondition> for QueryFluentBuilder {
    fn apply(self, key: KeyCondition) -> Result<Self> {
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

/// Implements [`Apply`] for anything [`IntoExpression`], merging it into one
/// slot of a request (its filter or its condition expression).
macro_rules! impl_apply_expression {
    ($get:ident, $set:ident, [$($builder:ty),* $(,)?]) => {$(
        impl<E: IntoExpression> Apply<E> for $builder {
            fn apply(self, expression: E) -> Result<Self> {
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
impl_apply_expression!(
    get_filter_expression,
    filter_expression,
    [QueryFluentBuilder, ScanFluentBuilder]
);
impl_apply_expression!(
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

macro_rules! impl_apply_update {
    ($($builder:ty),*) => {$(
        impl Apply<Update> for $builder {
            fn apply(self, update: Update) -> Result<Self> {
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
impl_apply_update!(UpdateItemFluentBuilder, UpdateBuilder);

macro_rules! impl_apply_projection {
    ($($builder:ty),*) => {$(
        impl Apply<&Projection> for $builder {
            fn apply(self, projection: &Projection) -> Result<Self> {
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
impl_apply_projection!(
    GetItemFluentBuilder,
    QueryFluentBuilder,
    ScanFluentBuilder,
    KeysAndAttributesBuilder
);
