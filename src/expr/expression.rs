//! [`Expression`]: a built expression (its text, names and values), checked
//! when hand-written, combined with `and`, `or` and `!`.

use std::collections::HashMap;
use std::ops::Not;

use aws_sdk_dynamodb::types::AttributeValue;

use super::placeholders::{
    Ctx, EXPRESSION, expr_error, is_placeholder, placeholder_spans, rename_map, rewrite,
};
use crate::error::Result;

/// An expression ready for a request: its text, its attribute names and its
/// attribute values, exactly the placeholders the text uses.
///
/// Built by [`Condition::build`](super::Condition::build) and
/// [`KeyCondition::build`](super::KeyCondition::build), or from
/// hand-written parts with [`Expression::new`]; combined with
/// [`and`](Self::and), [`or`](Self::or) and `!` (renaming placeholders that
/// would clash, see the [module docs](super)).
///
/// ```
/// use dynamodb_mapper::expr::attr;
///
/// let e = attr("status").eq("open").build()?;
/// assert_eq!(e.expression(), "#c0 = :c0");
/// assert_eq!(e.names()["#c0"], "status");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Expression {
    expression: String,
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

impl Expression {
    /// An expression from hand-written parts, checked: every placeholder the
    /// text uses is bound, every bound placeholder is used.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) naming the
    /// placeholder that is unbound or unused, or the bound name that is not
    /// a placeholder; or naming `(expression)` when the text is empty.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::expr::Expression;
    ///
    /// let e = Expression::new(
    ///     "#s = :s",
    ///     HashMap::from([("#s".to_string(), "status".to_string())]),
    ///     HashMap::from([(":s".to_string(), AttributeValue::S("open".into()))]),
    /// )?;
    /// assert_eq!(e.expression(), "#s = :s");
    ///
    /// let err = Expression::new(
    ///     "#s = :s",
    ///     HashMap::from([("#s".to_string(), "status".to_string()), ("#x".to_string(), "x".to_string())]),
    ///     HashMap::from([(":s".to_string(), AttributeValue::S("open".into()))]),
    /// )
    /// .unwrap_err();
    /// assert_eq!(err.to_string(), "attribute `#x` is bound but not used in the expression; DynamoDB rejects unused placeholders");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn new(
        expression: impl Into<String>,
        names: HashMap<String, String>,
        values: HashMap<String, AttributeValue>,
    ) -> Result<Self> {
        let expression = expression.into();
        if expression.trim().is_empty() {
            return Err(expr_error(EXPRESSION, "is empty"));
        }
        let mut used: Vec<&str> = placeholder_spans(&expression)
            .into_iter()
            .filter_map(|(start, end)| expression.get(start..end))
            .collect();
        used.sort_unstable();
        used.dedup();
        for token in &used {
            let bound = if token.starts_with('#') {
                names.contains_key(*token)
            } else {
                values.contains_key(*token)
            };
            if !bound {
                let map = if token.starts_with('#') {
                    "names"
                } else {
                    "values"
                };
                return Err(expr_error(
                    token,
                    format!("is used in the expression but not bound in its {map}"),
                ));
            }
        }
        let mut bound: Vec<(&String, char)> = names
            .keys()
            .map(|k| (k, '#'))
            .chain(values.keys().map(|k| (k, ':')))
            .collect();
        bound.sort_unstable();
        for (key, sigil) in bound {
            if !is_placeholder(key, sigil) {
                return Err(expr_error(
                    key,
                    format!(
                        "is bound but is not a placeholder (`{sigil}` and ASCII letters, digits or `_`)"
                    ),
                ));
            }
            if used.binary_search(&key.as_str()).is_err() {
                return Err(expr_error(
                    key,
                    "is bound but not used in the expression; DynamoDB rejects unused placeholders",
                ));
            }
        }
        Ok(Expression {
            expression,
            names,
            values,
        })
    }

    /// The expression text.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// assert_eq!(attr("deletedAt").not_exists().build()?.expression(), "attribute_not_exists(#c0)");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// The expression attribute names (`#placeholder` to attribute name).
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// let e = attr("address.city").eq("Berlin").build()?;
    /// assert_eq!(e.expression(), "#c0.#c1 = :c0");
    /// assert_eq!(e.names()["#c1"], "city");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn names(&self) -> &HashMap<String, String> {
        &self.names
    }

    /// The expression attribute values (`:placeholder` to value).
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::expr::attr;
    /// let e = attr("qty").ge(3).build()?;
    /// assert_eq!(e.values()[":c0"], AttributeValue::N("3".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn values(&self) -> &HashMap<String, AttributeValue> {
        &self.values
    }

    /// The text, names and values, for a request built by hand.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// let (text, names, values) = attr("pk").exists().build()?.into_parts();
    /// assert_eq!(text, "attribute_exists(#c0)");
    /// assert_eq!((names.len(), values.len()), (1, 0));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn into_parts(
        self,
    ) -> (
        String,
        HashMap<String, String>,
        HashMap<String, AttributeValue>,
    ) {
        (self.expression, self.names, self.values)
    }

    /// Both expressions: `(self) AND (other)`, renaming `other`'s
    /// placeholders that `self` binds to something else.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    ///
    /// let a = attr("status").eq("open").build()?;
    /// let b = attr("status").ne("void").and(attr("total").gt(0)).build()?;
    /// let both = a.and(b);
    /// // `#c0` means `status` in both and is shared; `:c0` is renamed.
    /// assert_eq!(both.expression(), "(#c0 = :c0) AND (#c0 <> :c2 AND #c1 > :c1)");
    /// assert_eq!(both.names().len(), 2);
    /// assert_eq!(both.values().len(), 3);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn and(self, other: Expression) -> Expression {
        self.join(other, "AND")
    }

    /// Either expression: `(self) OR (other)`, renaming as
    /// [`and`](Self::and) does.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// let e = attr("a").eq(1).build()?.or(attr("b").eq(2).build()?);
    /// assert_eq!(e.expression(), "(#c0 = :c0) OR (#c1 = :c1)");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn or(self, other: Expression) -> Expression {
        self.join(other, "OR")
    }

    /// The expression a builder rendered, bound to the placeholders its
    /// [`Ctx`] handed out.
    pub(super) fn rendered(expression: String, ctx: Ctx<'_>) -> Expression {
        let (names, values) = ctx.into_bound();
        Expression {
            expression,
            names,
            values,
        }
    }

    fn join(mut self, other: Expression, op: &str) -> Expression {
        let other = other.renamed_against(&self.names, &self.values);
        self.expression = format!("({}) {op} ({})", self.expression, other.expression);
        self.names.extend(other.names);
        self.values.extend(other.values);
        self
    }

    /// This expression with every placeholder that `names` or `values` bind
    /// to something else renamed to one bound nowhere.
    pub(super) fn renamed_against(
        self,
        names: &HashMap<String, String>,
        values: &HashMap<String, AttributeValue>,
    ) -> Expression {
        let mut renames = HashMap::new();
        let own_names = rename_map(self.names, names, &mut renames);
        let own_values = rename_map(self.values, values, &mut renames);
        let expression = if renames.is_empty() {
            self.expression
        } else {
            rewrite(&self.expression, &renames)
        };
        Expression {
            expression,
            names: own_names,
            values: own_values,
        }
    }
}

impl Not for Expression {
    type Output = Expression;

    /// `NOT (expression)`.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// let e = !attr("pk").exists().build()?;
    /// assert_eq!(e.expression(), "NOT (attribute_exists(#c0))");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn not(self) -> Expression {
        Expression {
            expression: format!("NOT ({})", self.expression),
            ..self
        }
    }
}
