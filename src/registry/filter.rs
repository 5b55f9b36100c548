//! The discriminator filter: a filter expression keeping only items of
//! chosen entity types and their aliases, with its
//! placeholder stem and its limit of values. It is an
//! [`Expression`] built with the crate's expression builder, so it merges
//! with any other expression without placeholder clashes.

use crate::error::{Error, Result};
use crate::expr::{Attr, Expression};

/// The prefix of the placeholders a discriminator filter ([`Registry::filter`](crate::Registry::filter)) is built with:
/// the name placeholder `#dmType0` and the value placeholders `:dmType0`,
/// `:dmType1`, and so on. Applied to a request that already uses one of
/// them for something else, the filter's placeholders are renamed (as for
/// every expression of the crate), so no placeholder is reserved.
pub(crate) const DISCRIMINATOR_PLACEHOLDER: &str = "dmType";

/// The most values a discriminator filter may compare against: DynamoDB's
/// `IN` takes at most 100 operands. Aliases count.
pub(crate) const MAX_FILTER_VALUES: usize = 100;

/// The filter expression keeping only items whose discriminator
/// `attribute` holds one of `values`, with placeholders prefixed
/// [`DISCRIMINATOR_PLACEHOLDER`].
pub(super) fn discriminator_filter<'a>(
    attribute: &str,
    values: impl ExactSizeIterator<Item = &'a str>,
) -> Result<Expression> {
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
    condition.build_with_stem(DISCRIMINATOR_PLACEHOLDER)
}

pub(super) fn too_many_values(count: usize) -> String {
    format!(
        "needs {count} values (entity types and aliases), over DynamoDB's limit of {MAX_FILTER_VALUES} operands for IN"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    use crate::expr::Apply;

    #[test]
    fn filter_of_one_and_of_many_values() {
        let one = discriminator_filter("entityType", ["A"].into_iter()).unwrap();
        assert_eq!(one.expression(), "#dmType0 = :dmType0");
        let many = discriminator_filter("t", ["A", "B", "C"].into_iter()).unwrap();
        assert_eq!(
            many.expression(),
            "#dmType0 IN (:dmType0, :dmType1, :dmType2)"
        );
        // A discriminator name with dots or brackets is one attribute.
        let dotted = discriminator_filter("a.b[0]", ["A"].into_iter()).unwrap();
        assert_eq!(dotted.names()["#dmType0"], "a.b[0]");
        assert_eq!(many.values()[":dmType2"], AttributeValue::S("C".into()));
        let none = discriminator_filter("t", std::iter::empty()).unwrap_err();
        assert_eq!(
            none.to_string(),
            "discriminator filter on `t` names no entity type"
        );
        let values: Vec<String> = (0..=100).map(|i| format!("V{i}")).collect();
        let err = discriminator_filter("t", values.iter().map(String::as_str)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "discriminator filter on `t` needs 101 values (entity types and aliases), \
             over DynamoDB's limit of 100 operands for IN"
        );
        assert!(discriminator_filter("t", values[..100].iter().map(String::as_str)).is_ok());
    }

    #[test]
    fn applied_filters_join_with_and_and_rename_clashing_placeholders() {
        let conf = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .build();
        let client = aws_sdk_dynamodb::Client::from_conf(conf);
        let f = discriminator_filter("entityType", ["A"].into_iter()).unwrap();
        for (before, after) in [
            (None, "#dmType0 = :dmType0"),
            (Some("x = :x"), "(x = :x) AND (#dmType0 = :dmType0)"),
        ] {
            let q = client
                .query()
                .set_filter_expression(before.map(str::to_owned))
                .apply(&f)
                .unwrap();
            assert_eq!(q.get_filter_expression().as_deref(), Some(after));
        }
        // The request already uses the filter's placeholders for something
        // else: the filter's are renamed, the request's stay as they are.
        let q = client
            .query()
            .filter_expression("#dmType0 = :dmType0")
            .expression_attribute_names("#dmType0", "kind")
            .expression_attribute_values(":dmType0", AttributeValue::S("B".into()))
            .apply(&f)
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
