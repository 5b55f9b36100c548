//! The discriminator filter: a filter expression keeping only items of
//! chosen entity types and their aliases ([`DiscriminatorFilter`]), with its
//! placeholder stem and its limit of values.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};

/// The stem of the placeholders a [`DiscriminatorFilter`] uses: the name
/// placeholder `#dmType` and the value placeholders `:dmType0`, `:dmType1`,
/// and so on. Placeholders starting with `dmType` are reserved for the
/// discriminator filter; choose others for your own expressions.
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
/// One type gives `#dmType = :dmType0`, more give
/// `#dmType IN (:dmType0, :dmType1, ...)`, with `#dmType` bound to the
/// discriminator attribute (see [`DISCRIMINATOR_PLACEHOLDER`]). A filter runs
/// after the key condition has read the items: it narrows what is returned,
/// not what is read (or paid for).
///
/// ```
/// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, Registry, TableSchema};
/// # use serde::{Deserialize, Serialize};
/// # const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
/// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Customer { id: String }
/// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Order { id: String, customer: String }
/// # struct CustomerMapper;
/// # impl Mapper for CustomerMapper {
/// #     type Entity = Customer;
/// #     const ENTITY_TYPE: &'static str = "Customer";
/// #     const TABLE: TableSchema = TABLE;
/// #     fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
/// #         put_str(item, "pk", format!("CUSTOMER#{}", c.id));
/// #         put_str(item, "sk", "METADATA");
/// #         Ok(())
/// #     }
/// # }
/// # struct OrderMapper;
/// # impl Mapper for OrderMapper {
/// #     type Entity = Order;
/// #     const ENTITY_TYPE: &'static str = "Order";
/// #     const ALIASES: &'static [&'static str] = &["Purchase"];
/// #     const TABLE: TableSchema = TABLE;
/// #     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
/// #         put_str(item, "pk", format!("CUSTOMER#{}", o.customer));
/// #         put_str(item, "sk", format!("ORDER#{}", o.id));
/// #         Ok(())
/// #     }
/// # }
/// # #[derive(Debug, PartialEq)] enum Entity { Customer(Customer), Order(Order) }
/// use aws_sdk_dynamodb::types::AttributeValue;
///
/// let registry = Registry::builder()
///     .register::<CustomerMapper>(Entity::Customer)
///     .register::<OrderMapper>(Entity::Order)
///     .build()?;
/// let filter = registry.filter(&["Order"])?;
/// assert_eq!(filter.expression(), "#dmType IN (:dmType0, :dmType1)");
/// assert_eq!(filter.names()["#dmType"], "entityType");
/// assert_eq!(filter.values()[":dmType0"], AttributeValue::S("Order".into()));
/// assert_eq!(filter.values()[":dmType1"], AttributeValue::S("Purchase".into())); // alias
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DiscriminatorFilter {
    attribute: String,
    expression: String,
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

impl DiscriminatorFilter {
    pub(super) fn new<'a>(
        attribute: &str,
        values: impl ExactSizeIterator<Item = &'a str>,
    ) -> Result<Self> {
        let count = values.len();
        if count == 0 {
            return Err(Error::InvalidFilter {
                attribute: attribute.to_owned(),
                reason: "names no entity type".to_owned(),
            });
        }
        if count > MAX_FILTER_VALUES {
            return Err(Error::InvalidFilter {
                attribute: attribute.to_owned(),
                reason: too_many_values(count),
            });
        }
        let name = format!("#{DISCRIMINATOR_PLACEHOLDER}");
        let mut placeholders = Vec::with_capacity(count);
        let mut map = HashMap::with_capacity(count);
        for (i, value) in values.enumerate() {
            let placeholder = format!(":{DISCRIMINATOR_PLACEHOLDER}{i}");
            map.insert(placeholder.clone(), AttributeValue::S(value.to_owned()));
            placeholders.push(placeholder);
        }
        let expression = match placeholders.as_slice() {
            [one] => format!("{name} = {one}"),
            many => format!("{name} IN ({})", many.join(", ")),
        };
        Ok(DiscriminatorFilter {
            attribute: attribute.to_owned(),
            expression,
            names: HashMap::from([(name, attribute.to_owned())]),
            values: map,
        })
    }

    /// A filter with no expression, names or values, on `attribute`: what a
    /// [`Group`](super::Group) hands out when its data is missing
    /// (unreachable).
    pub(super) fn empty(attribute: &str) -> Self {
        DiscriminatorFilter {
            attribute: attribute.to_owned(),
            expression: String::new(),
            names: HashMap::new(),
            values: HashMap::new(),
        }
    }

    /// The filter expression, e.g. `#dmType IN (:dmType0, :dmType1)`.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// assert_eq!(registry.filter(&["Note"])?.expression(), "#dmType = :dmType0");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// The expression attribute names: `#dmType` and the discriminator
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
    /// assert_eq!(filter.names()["#dmType"], "$type");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn names(&self) -> &HashMap<String, String> {
        &self.names
    }

    /// The expression attribute values: `:dmType0`, `:dmType1`, ... bound
    /// to the entity types and their aliases, in the order asked for.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
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
        &self.values
    }

    /// The expression, names and values, for a request built by hand.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// let (expression, names, values) = registry.filter(&["Note"])?.into_parts();
    /// assert_eq!(expression, "#dmType = :dmType0");
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
        (self.expression, self.names, self.values)
    }

    /// Adds the filter to a `Query`: sets the filter expression (joined with
    /// `AND` to one already set) and adds its names and values to those
    /// already set, replacing none.
    ///
    /// # Errors
    /// [`Error::InvalidFilter`] when the request already binds one of the
    /// filter's placeholders to something else.
    ///
    /// ```
    /// # use dynamodb_mapper::{hooks::put_str, Item, Mapper, Registry, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Customer { id: String }
    /// # #[derive(Debug, PartialEq, Serialize, Deserialize)] struct Order { id: String, customer: String }
    /// # struct CustomerMapper;
    /// # impl Mapper for CustomerMapper {
    /// #     type Entity = Customer;
    /// #     const ENTITY_TYPE: &'static str = "Customer";
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", c.id));
    /// #         put_str(item, "sk", "METADATA");
    /// #         Ok(())
    /// #     }
    /// # }
    /// # struct OrderMapper;
    /// # impl Mapper for OrderMapper {
    /// #     type Entity = Order;
    /// #     const ENTITY_TYPE: &'static str = "Order";
    /// #     const ALIASES: &'static [&'static str] = &["Purchase"];
    /// #     const TABLE: TableSchema = TABLE;
    /// #     fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         put_str(item, "pk", format!("CUSTOMER#{}", o.customer));
    /// #         put_str(item, "sk", format!("ORDER#{}", o.id));
    /// #         Ok(())
    /// #     }
    /// # }
    /// # #[derive(Debug, PartialEq)] enum Entity { Customer(Customer), Order(Order) }
    /// # let conf = aws_sdk_dynamodb::Config::builder()
    /// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
    /// #     .build();
    /// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
    /// use aws_sdk_dynamodb::types::AttributeValue;
    ///
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .build()?;
    /// let query = client
    ///     .query()
    ///     .table_name("AppTable")
    ///     .key_condition_expression("pk = :pk")
    ///     .expression_attribute_values(":pk", AttributeValue::S("CUSTOMER#C1".into()));
    /// let query = registry.filter(&["Order"])?.apply_to_query(query)?;
    /// let input = query.as_input();
    /// assert_eq!(input.get_filter_expression().as_deref(), Some("#dmType IN (:dmType0, :dmType1)"));
    /// assert_eq!(input.get_expression_attribute_values().as_ref().unwrap().len(), 3);
    /// // let output = query.send().await?;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn apply_to_query(&self, query: QueryFluentBuilder) -> Result<QueryFluentBuilder> {
        let expression = self.merge(
            query.get_filter_expression().as_deref(),
            query.get_expression_attribute_names().as_ref(),
            query.get_expression_attribute_values().as_ref(),
        )?;
        let mut query = query.filter_expression(expression);
        for (k, v) in &self.names {
            query = query.expression_attribute_names(k.clone(), v.clone());
        }
        for (k, v) in &self.values {
            query = query.expression_attribute_values(k.clone(), v.clone());
        }
        Ok(query)
    }

    /// Adds the filter to a `Scan`, as [`apply_to_query`](Self::apply_to_query)
    /// does to a `Query`.
    ///
    /// # Errors
    /// [`Error::InvalidFilter`] when the request already binds one of the
    /// filter's placeholders to something else.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Note {}
    /// # struct NoteMapper;
    /// # impl Mapper for NoteMapper {
    /// #     type Entity = Note;
    /// #     const ENTITY_TYPE: &'static str = "Note";
    /// #     const TABLE: TableSchema = TableSchema::new("pk");
    /// #     fn after_to_item(_: &Note, _: &mut Item) -> dynamodb_mapper::Result<()> { Ok(()) }
    /// # }
    /// # let conf = aws_sdk_dynamodb::Config::builder()
    /// #     .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
    /// #     .build();
    /// # let client = aws_sdk_dynamodb::Client::from_conf(conf);
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).build()?;
    /// let scan = client.scan().table_name("AppTable").filter_expression("attribute_exists(body)");
    /// let scan = registry.filter(&["Note"])?.apply_to_scan(scan)?;
    /// assert_eq!(
    ///     scan.get_filter_expression().as_deref(),
    ///     Some("(attribute_exists(body)) AND (#dmType = :dmType0)")
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn apply_to_scan(&self, scan: ScanFluentBuilder) -> Result<ScanFluentBuilder> {
        let expression = self.merge(
            scan.get_filter_expression().as_deref(),
            scan.get_expression_attribute_names().as_ref(),
            scan.get_expression_attribute_values().as_ref(),
        )?;
        let mut scan = scan.filter_expression(expression);
        for (k, v) in &self.names {
            scan = scan.expression_attribute_names(k.clone(), v.clone());
        }
        for (k, v) in &self.values {
            scan = scan.expression_attribute_values(k.clone(), v.clone());
        }
        Ok(scan)
    }

    /// The combined filter expression, after checking that the request binds
    /// none of the filter's placeholders to something else.
    fn merge(
        &self,
        existing: Option<&str>,
        names: Option<&HashMap<String, String>>,
        values: Option<&HashMap<String, AttributeValue>>,
    ) -> Result<String> {
        let taken = |placeholder: &str, bound: &str| Error::InvalidFilter {
            attribute: self.attribute.clone(),
            reason: format!(
                "cannot be applied: the request already binds `{placeholder}` to {bound}"
            ),
        };
        for (k, v) in &self.names {
            if let Some(other) = names.and_then(|m| m.get(k))
                && other != v
            {
                return Err(taken(k, &format!("`{other}`")));
            }
        }
        let mut sorted: Vec<_> = self.values.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        for (k, v) in sorted {
            if let Some(other) = values.and_then(|m| m.get(k))
                && other != v
            {
                return Err(taken(k, "another value"));
            }
        }
        Ok(match existing {
            Some(e) if !e.trim().is_empty() => format!("({e}) AND ({})", self.expression),
            _ => self.expression.clone(),
        })
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

    #[test]
    fn filter_of_one_and_of_many_values() {
        let one = DiscriminatorFilter::new("entityType", ["A"].into_iter()).unwrap();
        assert_eq!(one.expression(), "#dmType = :dmType0");
        let many = DiscriminatorFilter::new("t", ["A", "B", "C"].into_iter()).unwrap();
        assert_eq!(
            many.expression(),
            "#dmType IN (:dmType0, :dmType1, :dmType2)"
        );
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
    fn merge_joins_with_and_and_rejects_rebound_placeholders() {
        let f = DiscriminatorFilter::new("entityType", ["A"].into_iter()).unwrap();
        assert_eq!(f.merge(None, None, None).unwrap(), "#dmType = :dmType0");
        assert_eq!(
            f.merge(Some("  "), None, None).unwrap(),
            "#dmType = :dmType0"
        );
        assert_eq!(
            f.merge(Some("x = :x"), None, None).unwrap(),
            "(x = :x) AND (#dmType = :dmType0)"
        );
        let same = HashMap::from([("#dmType".to_owned(), "entityType".to_owned())]);
        assert!(f.merge(None, Some(&same), None).is_ok());
        let other = HashMap::from([("#dmType".to_owned(), "kind".to_owned())]);
        assert_eq!(
            f.merge(None, Some(&other), None).unwrap_err().to_string(),
            "discriminator filter on `entityType` cannot be applied: the request already \
             binds `#dmType` to `kind`"
        );
        let value = HashMap::from([(":dmType0".to_owned(), AttributeValue::S("B".into()))]);
        assert_eq!(
            f.merge(None, None, Some(&value)).unwrap_err().to_string(),
            "discriminator filter on `entityType` cannot be applied: the request already \
             binds `:dmType0` to another value"
        );
    }
}
