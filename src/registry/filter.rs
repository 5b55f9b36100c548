//! The discriminator filter: a filter expression keeping only items of
//! chosen entity types and their aliases ([`DiscriminatorFilter`]), with its
//! placeholder prefix and its limit of values. It is an
//! [`Expression`] built with the crate's expression builder, so it merges
//! with any other expression without placeholder clashes.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::expr::{Attr, Expression, IntoExpression};

/// The prefix of the placeholders a [`DiscriminatorFilter`] is built with:
/// the name placeholder `#dmType0` and the value placeholders `:dmType0`,
/// `:dmType1`, and so on. Applied to a request that already uses one of
/// them for something else, the filter's placeholders are renamed (as for
/// every expression of the crate), so no placeholder is reserved.
///
/// ```
/// assert_eq!(dynamodb_mapper::DISCRIMINATOR_PLACEHOLDER, "dmType");
/// ```
pub const DISCRIMINATOR_PLACEHOLDER: &str = "dmType";

/// The most values a discriminator filter may compare against: DynamoDB's
/// `IN` takes at most 100 operands. Aliases count.
///
/// ```
/// assert_eq!(dynamodb_mapper::MAX_FILTER_VALUES, 100);
/// ```
pub const MAX_FILTER_VALUES: usize = 100;

/// A discriminator filter expression for a set of entity types (their
/// aliases included, so items written before a rename are found): the
/// expression string, its attribute names and values, exactly the
/// placeholders it uses.
///
/// One type gives `#dmType0 = :dmType0`, more give
/// `#dmType0 IN (:dmType0, :dmType1, ...)`, with `#dmType0` bound to the
/// discriminator attribute (see [`DISCRIMINATOR_PLACEHOLDER`]). It is built
/// with [`attr`](crate::expr::attr)`(..).is_in(..)` and converts into an
/// [`Expression`] ([`IntoExpression`]), so it can also be combined with
/// other conditions or added with [`FilterExt::with_filter`](crate::expr::FilterExt::with_filter). A filter runs
/// after the key condition has read the items: it narrows what is returned,
/// not what is read (or paid for).
///
/// ```
/// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, Registry, TableSchema};
/// # use serde::{Deserialize, Serialize};
/// # use dynamodb_mapper_support::doc::*;
/// use aws_sdk_dynamodb::types::AttributeValue;
///
/// let registry = Registry::builder()
///     .register::<CustomerMapper>(Entity::Customer)
///     .register::<OrderMapper>(Entity::Order)
///     .build()?;
/// let filter = registry.filter(&["Order"])?;
/// assert_eq!(filter.expression(), "#dmType0 IN (:dmType0, :dmType1)");
/// assert_eq!(filter.names()["#dmType0"], "entityType");
/// assert_eq!(filter.values()[":dmType0"], AttributeValue::S("Order".into()));
/// assert_eq!(filter.values()[":dmType1"], AttributeValue::S("Purchase".into())); // alias
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DiscriminatorFilter {
    expression: Expression,
}

impl DiscriminatorFilter {
    pub(super) fn new<'a>(
        attribute: &str,
        values: impl ExactSizeIterator<Item = &'a str>,
    ) -> Result<Self> {
        let count = values.len();
        if count == 0 {
            return Err(Error::invalid_filter(
                attribute,
                "names no entity type".to_owned(),
            ));
        }
        if count > MAX_FILTER_VALUES {
            return Err(Error::invalid_filter(attribute, too_many_values(count)));
        }
        let discriminator = Attr::top_level(attribute);
        let values: Vec<&str> = values.collect();
        let condition = match values.as_slice() {
            [one] => discriminator.eq(*one),
            many => discriminator.is_in(many.iter().copied()),
        };
        let expression = condition.build_with_prefix(DISCRIMINATOR_PLACEHOLDER)?;
        Ok(DiscriminatorFilter { expression })
    }

    /// The filter expression, e.g. `#dmType0 IN (:dmType0, :dmType1)`.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// assert_eq!(registry.filter(&["Note"])?.expression(), "#dmType0 = :dmType0");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn expression(&self) -> &str {
        self.expression.expression()
    }

    /// The expression attribute names: `#dmType0` and the discriminator
    /// attribute.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk").discriminator("$type");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// let filter = registry.filter(&["Note"])?;
    /// assert_eq!(filter.names().len(), 1);
    /// assert_eq!(filter.names()["#dmType0"], "$type");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn names(&self) -> &HashMap<String, String> {
        self.expression.names()
    }

    /// The expression attribute values: `:dmType0`, `:dmType1`, ... bound
    /// to the entity types and their aliases, in the order asked for.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// use aws_sdk_dynamodb::types::AttributeValue;
    ///
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// let filter = registry.filter(&["Note"])?;
    /// assert_eq!(filter.values().len(), 1);
    /// assert_eq!(filter.values()[":dmType0"], AttributeValue::S("Note".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn values(&self) -> &HashMap<String, AttributeValue> {
        self.expression.values()
    }

    /// The expression, names and values, for a request built by hand.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// let (expression, names, values) = registry.filter(&["Note"])?.into_parts();
    /// assert_eq!(expression, "#dmType0 = :dmType0");
    /// assert_eq!((names.len(), values.len()), (1, 1));
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
        self.expression.into_parts()
    }
}

impl IntoExpression for DiscriminatorFilter {
    fn into_expression(self) -> Result<Expression> {
        Ok(self.expression)
    }
}

impl IntoExpression for &DiscriminatorFilter {
    fn into_expression(self) -> Result<Expression> {
        Ok(self.expression.clone())
    }
}

pub(super) fn too_many_values(count: usize) -> String {
    format!(
        "needs {count} values (entity types and aliases), over DynamoDB's limit of {MAX_FILTER_VALUES} operands for IN"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::FilterExt;

    #[test]
    fn filter_of_one_and_of_many_values() {
        let one = DiscriminatorFilter::new("entityType", ["A"].into_iter()).unwrap();
        assert_eq!(one.expression(), "#dmType0 = :dmType0");
        let many = DiscriminatorFilter::new("t", ["A", "B", "C"].into_iter()).unwrap();
        assert_eq!(
            many.expression(),
            "#dmType0 IN (:dmType0, :dmType1, :dmType2)"
        );
        // A discriminator name with dots or brackets is one attribute.
        let dotted = DiscriminatorFilter::new("a.b[0]", ["A"].into_iter()).unwrap();
        assert_eq!(dotted.names()["#dmType0"], "a.b[0]");
        assert_eq!(many.values()[":dmType2"], AttributeValue::S("C".into()));
        let none = DiscriminatorFilter::new("t", std::iter::empty()).unwrap_err();
        assert_eq!(
            none.to_string(),
            "discriminator filter on `t` names no entity type"
        );
        let values: Vec<String> = (0..=100).map(|i| format!("V{i}")).collect();
        let err = DiscriminatorFilter::new("t", values.iter().map(String::as_str)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "discriminator filter on `t` needs 101 values (entity types and aliases), \
             over DynamoDB's limit of 100 operands for IN"
        );
        assert!(DiscriminatorFilter::new("t", values[..100].iter().map(String::as_str)).is_ok());
    }

    #[test]
    fn applied_filters_join_with_and_and_rename_clashing_placeholders() {
        let conf = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .build();
        let client = aws_sdk_dynamodb::Client::from_conf(conf);
        let f = DiscriminatorFilter::new("entityType", ["A"].into_iter()).unwrap();
        let q = client.query().with_filter(&f).unwrap();
        assert_eq!(
            q.get_filter_expression().as_deref(),
            Some("#dmType0 = :dmType0")
        );
        let q = client
            .query()
            .filter_expression("x = :x")
            .with_filter(&f)
            .unwrap();
        assert_eq!(
            q.get_filter_expression().as_deref(),
            Some("(x = :x) AND (#dmType0 = :dmType0)")
        );
        // The request already uses the filter's placeholders for something
        // else: the filter's are renamed, the request's stay as they are.
        let q = client
            .query()
            .filter_expression("#dmType0 = :dmType0")
            .expression_attribute_names("#dmType0", "kind")
            .expression_attribute_values(":dmType0", AttributeValue::S("B".into()))
            .with_filter(&f)
            .unwrap();
        let names = q.get_expression_attribute_names().clone().unwrap();
        let values = q.get_expression_attribute_values().clone().unwrap();
        assert_eq!(names["#dmType0"], "kind");
        assert_eq!(values[":dmType0"], AttributeValue::S("B".into()));
        let expression = q.get_filter_expression().clone().unwrap();
        let (_, ours) = expression.split_once(" AND ").unwrap();
        let ours = ours.trim_matches(|c| c == '(' || c == ')');
        let (name, value) = ours.split_once(" = ").unwrap();
        assert_eq!(names[name], "entityType");
        assert_eq!(values[value], AttributeValue::S("A".into()));
        assert_ne!((name, value), ("#dmType0", ":dmType0"));
    }
}
