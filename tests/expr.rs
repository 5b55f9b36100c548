//! Expression builders: exact output, no unused placeholders, merges that
//! never clash, and applying to the SDK's request builders.

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Delete, Put, TransactWriteItem, Update,
};
use dynamodb_mapper::ItemExt;
use dynamodb_mapper::expr::{
    Apply, Attr, Condition, Expression, IntoExpression, KeyCondition, Projection, ValueType, attr,
    value,
};
use dynamodb_mapper::{
    ErrorKind, GlobalSecondaryIndex, Item, KeyAttribute, Mapper, Registry, ScalarType, TableSchema,
};
use dynamodb_mapper_support::requests::{names, offline_client};
use dynamodb_mapper_support::values::{n, s};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

fn values(pairs: &[(&str, AttributeValue)]) -> HashMap<String, AttributeValue> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

/// What a request binds: exactly `want_names` and `want_values`, and no
/// map at all where one is empty (DynamoDB rejects an empty map).
fn assert_binds(
    bound_names: &Option<HashMap<String, String>>,
    bound_values: &Option<HashMap<String, AttributeValue>>,
    want_names: &[(&str, &str)],
    want_values: &[(&str, AttributeValue)],
) {
    let want_names = (!want_names.is_empty()).then(|| names(want_names));
    let want_values = (!want_values.is_empty()).then(|| values(want_values));
    assert_eq!(bound_names, &want_names, "names");
    assert_eq!(bound_values, &want_values, "values");
}

/// The placeholders an expression text uses, each once, in order.
fn used(expression: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let chars: Vec<char> = expression.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '#' || chars[i] == ':' {
            let start = i;
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let token: String = chars[start..i].iter().collect();
            if !out.contains(&token) {
                out.push(token);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Asserts the expression binds exactly the placeholders it uses.
fn assert_exact(
    expression: &str,
    names: &HashMap<String, String>,
    values: &HashMap<String, AttributeValue>,
) {
    let mut used = used(expression);
    used.sort();
    let mut bound: Vec<String> = names.keys().chain(values.keys()).cloned().collect();
    bound.sort();
    assert_eq!(used, bound, "in {expression:?}");
}

fn check(e: &Expression) {
    assert_exact(e.expression(), e.names(), e.values());
    let again = Expression::new(e.expression(), e.names().clone(), e.values().clone()).unwrap();
    assert_eq!(&again, e);
}

/// The expression with every placeholder replaced by what it is bound to:
/// equal for two expressions that mean the same, whatever their placeholders.
fn substitute(
    expression: &str,
    names: &HashMap<String, String>,
    values: &HashMap<String, AttributeValue>,
) -> String {
    let mut out = String::new();
    let chars: Vec<char> = expression.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '#' || chars[i] == ':' {
            let start = i;
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let token: String = chars[start..i].iter().collect();
            if token.starts_with('#') {
                out.push_str(&format!("`{}`", names[&token]));
            } else {
                out.push_str(&format!("{:?}", values[&token]));
            }
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

fn meaning(e: &Expression) -> String {
    substitute(e.expression(), e.names(), e.values())
}

// ----------------------------------------------------- conditions, exactly

#[test]
fn comparisons() {
    for (c, text) in [
        (attr("status").eq("open"), "#c0 = :c0"),
        (attr("status").ne("open"), "#c0 <> :c0"),
        (attr("status").lt("open"), "#c0 < :c0"),
        (attr("status").le("open"), "#c0 <= :c0"),
        (attr("status").gt("open"), "#c0 > :c0"),
        (attr("status").ge("open"), "#c0 >= :c0"),
    ] {
        let e = c.build().unwrap();
        assert_eq!(e.expression(), text);
        assert_eq!(e.names(), &names(&[("#c0", "status")]));
        assert_eq!(e.values(), &values(&[(":c0", s("open"))]));
        check(&e);
    }
    let e = attr("total").between(10, 20.5).build().unwrap();
    assert_eq!(e.expression(), "#c0 BETWEEN :c0 AND :c1");
    assert_eq!(e.values(), &values(&[(":c0", n("10")), (":c1", n("20.5"))]));
    check(&e);

    // Attribute against attribute: names only.
    let e = attr("updatedAt").gt(attr("createdAt")).build().unwrap();
    assert_eq!(e.expression(), "#c0 > #c1");
    assert_eq!(
        e.names(),
        &names(&[("#c0", "updatedAt"), ("#c1", "createdAt")])
    );
    assert!(e.values().is_empty());
    check(&e);
}

#[test]
fn functions_and_size() {
    let cases: Vec<(Condition, &str, HashMap<String, AttributeValue>)> = vec![
        (attr("pk").exists(), "attribute_exists(#c0)", values(&[])),
        (
            attr("pk").not_exists(),
            "attribute_not_exists(#c0)",
            values(&[]),
        ),
        (
            attr("pk").begins_with("USER#"),
            "begins_with(#c0, :c0)",
            values(&[(":c0", s("USER#"))]),
        ),
        (
            attr("pk").contains("x"),
            "contains(#c0, :c0)",
            values(&[(":c0", s("x"))]),
        ),
        (
            attr("pk").has_type(ValueType::StringSet),
            "attribute_type(#c0, :c0)",
            values(&[(":c0", s("SS"))]),
        ),
        (
            attr("pk").size().between(1, 3),
            "size(#c0) BETWEEN :c0 AND :c1",
            values(&[(":c0", n("1")), (":c1", n("3"))]),
        ),
        (
            attr("pk").size().ge(attr("other").size()),
            "size(#c0) >= size(#c1)",
            values(&[]),
        ),
    ];
    for (c, text, vals) in cases {
        let e = c.build().unwrap();
        assert_eq!(e.expression(), text);
        assert_eq!(e.values(), &vals);
        check(&e);
    }
    for (t, code) in [
        (ValueType::String, "S"),
        (ValueType::NumberSet, "NS"),
        (ValueType::Binary, "B"),
        (ValueType::BinarySet, "BS"),
        (ValueType::Bool, "BOOL"),
        (ValueType::Null, "NULL"),
        (ValueType::List, "L"),
        (ValueType::Map, "M"),
    ] {
        let e = attr("x").has_type(t).build().unwrap();
        assert_eq!(e.values()[":c0"], s(code));
    }
}

#[test]
fn in_lists() {
    let e = attr("tier")
        .is_in(["gold", "silver", "bronze"])
        .build()
        .unwrap();
    assert_eq!(e.expression(), "#c0 IN (:c0, :c1, :c2)");
    assert_eq!(
        e.values(),
        &values(&[
            (":c0", s("gold")),
            (":c1", s("silver")),
            (":c2", s("bronze"))
        ])
    );
    check(&e);
    let hundred = attr("n").is_in(0..100).build().unwrap();
    assert_eq!(hundred.values().len(), 100);
    check(&hundred);
    assert_eq!(
        attr("n").is_in(0..101).build().unwrap_err().to_string(),
        "attribute `n` IN needs 1 to 100 operands, found 101"
    );
    assert_eq!(
        attr("n")
            .is_in(Vec::<i32>::new())
            .build()
            .unwrap_err()
            .to_string(),
        "attribute `n` IN needs 1 to 100 operands, found 0"
    );
}

#[test]
fn nested_paths_and_shared_name_placeholders() {
    let e = attr("address.city")
        .eq("Berlin")
        .and(attr("address.zip").begins_with("10"))
        .and(attr("lines[0].qty").gt(1))
        .and(attr("lines[12][3]").exists())
        .build()
        .unwrap();
    assert_eq!(
        e.expression(),
        "#c0.#c1 = :c0 AND begins_with(#c0.#c2, :c1) AND #c3[0].#c4 > :c2 AND attribute_exists(#c3[12][3])"
    );
    assert_eq!(
        e.names(),
        &names(&[
            ("#c0", "address"),
            ("#c1", "city"),
            ("#c2", "zip"),
            ("#c3", "lines"),
            ("#c4", "qty"),
        ])
    );
    assert_eq!(
        e.values(),
        &values(&[(":c0", s("Berlin")), (":c1", s("10")), (":c2", n("1"))])
    );
    check(&e);

    // Reserved words and odd names never appear in the text.
    let e = attr("size")
        .eq(1)
        .and(attr("name").eq("x"))
        .and(Attr::top_level("a.b[0]").exists())
        .build()
        .unwrap();
    assert_eq!(
        e.expression(),
        "#c0 = :c0 AND #c1 = :c1 AND attribute_exists(#c2)"
    );
    assert_eq!(e.names()["#c2"], "a.b[0]");
    check(&e);
}

#[test]
fn invalid_paths() {
    for (path, reason) in [
        ("", "it is empty"),
        ("a..b", "segment 2 has no name"),
        (".a", "segment 1 has no name"),
        ("a[", "segment 1 has an unclosed `[`"),
        (
            "a[-1]",
            "segment 1 has the list index `[-1]`, which is not a number",
        ),
        (
            "a[]",
            "segment 1 has the list index `[]`, which is not a number",
        ),
        ("a[1]b", "segment 1 has \"b\" after a list index"),
        ("a]", "segment 1 has a `]` without a `[`"),
    ] {
        let err = attr(path).exists().build().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidValue);
        assert_eq!(
            err.to_string(),
            format!("attribute `{path}` is not a valid attribute path: {reason}")
        );
    }
    assert_eq!(
        Attr::top_level("")
            .exists()
            .build()
            .unwrap_err()
            .to_string(),
        "attribute `` is not a valid attribute name: it is empty"
    );
    // An invalid path on the right-hand side is reported too.
    assert!(attr("a").eq(attr("b..c")).build().is_err());
}

#[test]
fn and_or_not_precedence() {
    let (a, b, c) = (attr("a").eq(1), attr("b").eq(2), attr("c").eq(3));
    let text = |cond: Condition| cond.build().unwrap().expression().to_owned();
    assert_eq!(
        text(a.clone().and(b.clone().or(c.clone()))),
        "#c0 = :c0 AND (#c1 = :c1 OR #c2 = :c2)"
    );
    assert_eq!(
        text(a.clone().or(b.clone().and(c.clone()))),
        "#c0 = :c0 OR (#c1 = :c1 AND #c2 = :c2)"
    );
    assert_eq!(
        text(a.clone().or(b.clone()).and(c.clone())),
        "(#c0 = :c0 OR #c1 = :c1) AND #c2 = :c2"
    );
    assert_eq!(
        text(!(a.clone() & b.clone())),
        "NOT (#c0 = :c0 AND #c1 = :c1)"
    );
    assert_eq!(
        text((a.clone() | b.clone()) | c.clone()),
        "#c0 = :c0 OR #c1 = :c1 OR #c2 = :c2"
    );
    assert_eq!(
        text(Condition::all([a.clone().and(b.clone()), c.clone()])),
        "(#c0 = :c0 AND #c1 = :c1) AND #c2 = :c2"
    );
    assert_eq!(text(Condition::all([a.clone()])), "#c0 = :c0");
    assert_eq!(text(Condition::any([!a.clone()])), "NOT (#c0 = :c0)");
    assert_eq!(
        Condition::any([]).build().unwrap_err().to_string(),
        "attribute `(expression)` is an `any` of no conditions"
    );
    assert_eq!(
        a.and(Condition::all([])).build().unwrap_err().to_string(),
        "attribute `(expression)` is an `all` of no conditions"
    );
}

#[test]
fn operand_values() {
    let e = attr("a")
        .eq(true)
        .and(attr("b").eq(Blob::new(vec![1u8, 2])))
        .and(attr("c").eq(-7i64))
        .and(attr("d").eq(u64::MAX))
        .and(attr("e").eq(0.25f32))
        .and(attr("f").eq(AttributeValue::Null(true)))
        .and(attr("g").eq(value(HashMap::from([("k", 1)]))))
        .and(attr("h").eq(String::from("x")))
        .build()
        .unwrap();
    assert_eq!(
        e.values(),
        &values(&[
            (":c0", AttributeValue::Bool(true)),
            (":c1", AttributeValue::B(Blob::new(vec![1u8, 2]))),
            (":c2", n("-7")),
            (":c3", n("18446744073709551615")),
            (":c4", n("0.25")),
            (":c5", AttributeValue::Null(true)),
            (
                ":c6",
                AttributeValue::M(HashMap::from([("k".to_owned(), n("1"))]))
            ),
            (":c7", s("x")),
        ])
    );
    check(&e);
}

#[test]
fn invalid_operands_name_the_attribute() {
    let msg = |c: Condition| c.build().unwrap_err().to_string();
    assert_eq!(
        msg(attr("price").eq(f64::NAN)),
        "attribute `price` operand cannot be converted: NaN is not a finite number"
    );
    assert_eq!(
        msg(attr("price").lt(f64::INFINITY)),
        "attribute `price` operand cannot be converted: inf is not a finite number"
    );
    assert_eq!(
        msg(attr("price").eq(AttributeValue::N("1".repeat(39)))),
        "attribute `price` operand has 39 significant digits, more than DynamoDB's 38"
    );
    assert_eq!(
        msg(attr("tags").contains(AttributeValue::Ss(vec![]))),
        "attribute `tags` operand is an empty string set; DynamoDB rejects empty sets"
    );
    assert_eq!(
        msg(attr("lines").eq(AttributeValue::L(vec![AttributeValue::N("x".into())]))),
        "attribute `lines[0]` operand is not a number: \"x\""
    );
    let err = attr("a.b")
        .eq(1)
        .and(attr("c").eq(f64::NAN))
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue);
    assert_eq!(err.attribute(), Some("c"));
}

#[test]
fn prefixes_are_checked() {
    assert_eq!(
        attr("a").eq(1).build_with_stem("").unwrap_err().to_string(),
        "attribute `(expression)` placeholder stem \"\" must be ASCII letters and digits, starting with a letter"
    );
    assert!(attr("a").eq(1).build_with_stem("1a").is_err());
    assert!(attr("a").eq(1).build_with_stem("a_b").is_err());
    assert_eq!(
        attr("a")
            .eq(1)
            .build_with_stem("flt2")
            .unwrap()
            .expression(),
        "#flt20 = :flt20"
    );
}

#[test]
fn hand_written_expressions_are_checked() {
    let msg = |e: &str, n: &[(&str, &str)], v: &[(&str, AttributeValue)]| {
        Expression::new(e, names(n), values(v))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(msg(" ", &[], &[]), "attribute `(expression)` is empty");
    assert_eq!(
        msg("#a = :a", &[], &[(":a", s("x"))]),
        "attribute `#a` is used in the expression but not bound in its names"
    );
    assert_eq!(
        msg("#a = :a", &[("#a", "a")], &[]),
        "attribute `:a` is used in the expression but not bound in its values"
    );
    assert_eq!(
        msg("#a = :a", &[("#a", "a")], &[(":a", s("x")), (":b", s("y"))]),
        "attribute `:b` is bound but not used in the expression; DynamoDB rejects unused placeholders"
    );
    assert_eq!(
        msg("#a = :a", &[("#a", "a"), ("a", "a")], &[(":a", s("x"))]),
        "attribute `a` is bound but is not a placeholder (`#` and ASCII letters, digits or `_`)"
    );
    let ok = Expression::new(
        "#my_name = :my_value",
        names(&[("#my_name", "n")]),
        values(&[(":my_value", s("v"))]),
    )
    .unwrap();
    check(&ok);
}

// ------------------------------------------------------------ key conditions

const GSI1: GlobalSecondaryIndex = GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk");
const BY_EMAIL: GlobalSecondaryIndex = GlobalSecondaryIndex::new("ByEmail", "email");
const BY_RATING: GlobalSecondaryIndex = GlobalSecondaryIndex::new("ByRating", "product").keys(
    KeyAttribute::new("product"),
    Some(KeyAttribute::typed("rating", ScalarType::N)),
);
const TABLE: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GSI1, BY_EMAIL, BY_RATING]);

#[test]
fn key_conditions_on_the_table() {
    let key = || KeyCondition::new(TABLE, "CUSTOMER#C1");
    for (k, text) in [
        (key(), "#k0 = :k0"),
        (
            key().and(attr("sk").eq("ORDER#1")),
            "#k0 = :k0 AND #k1 = :k1",
        ),
        (
            key().and(attr("sk").lt("ORDER#1")),
            "#k0 = :k0 AND #k1 < :k1",
        ),
        (
            key().and(attr("sk").le("ORDER#1")),
            "#k0 = :k0 AND #k1 <= :k1",
        ),
        (
            key().and(attr("sk").gt("ORDER#1")),
            "#k0 = :k0 AND #k1 > :k1",
        ),
        (
            key().and(attr("sk").ge("ORDER#1")),
            "#k0 = :k0 AND #k1 >= :k1",
        ),
        (
            key().and(attr("sk").begins_with("ORDER#1")),
            "#k0 = :k0 AND begins_with(#k1, :k1)",
        ),
    ] {
        let e = k.build().unwrap();
        assert_eq!(e.expression(), text);
        check(&e);
        let expected_values = if text == "#k0 = :k0" {
            values(&[(":k0", s("CUSTOMER#C1"))])
        } else {
            values(&[(":k0", s("CUSTOMER#C1")), (":k1", s("ORDER#1"))])
        };
        assert_eq!(e.values(), &expected_values);
    }
    let e = key()
        .and(attr("sk").between("ORDER#1", "ORDER#9"))
        .build()
        .unwrap();
    assert_eq!(e.expression(), "#k0 = :k0 AND #k1 BETWEEN :k1 AND :k2");
    assert_eq!(e.names(), &names(&[("#k0", "pk"), ("#k1", "sk")]));
    assert_eq!(
        e.values(),
        &values(&[
            (":k0", s("CUSTOMER#C1")),
            (":k1", s("ORDER#1")),
            (":k2", s("ORDER#9"))
        ])
    );
    check(&e);
}

#[test]
fn key_conditions_on_indexes() {
    let k = KeyCondition::new(TABLE, "STATUS#open")
        .on_index("GSI1")
        .and(attr("gsi1sk").begins_with("2024-"));
    let e = k.build().unwrap();
    assert_eq!(e.expression(), "#k0 = :k0 AND begins_with(#k1, :k1)");
    assert_eq!(e.names(), &names(&[("#k0", "gsi1pk"), ("#k1", "gsi1sk")]));
    check(&e);

    let e = KeyCondition::new(TABLE, "ada@example.com")
        .on_index("ByEmail")
        .build()
        .unwrap();
    assert_eq!(e.expression(), "#k0 = :k0");
    assert_eq!(e.names(), &names(&[("#k0", "email")]));

    let e = KeyCondition::new(TABLE, "P1")
        .on_index("ByRating")
        .and(attr("rating").between(3, 5))
        .build()
        .unwrap();
    assert_eq!(e.expression(), "#k0 = :k0 AND #k1 BETWEEN :k1 AND :k2");
    assert_eq!(
        e.values(),
        &values(&[(":k0", s("P1")), (":k1", n("3")), (":k2", n("5"))])
    );

    let binary = TableSchema::new("id").partition_key_type(ScalarType::B);
    let e = KeyCondition::new(binary, Blob::new(vec![0u8, 1]))
        .build()
        .unwrap();
    assert_eq!(
        e.values()[":k0"],
        AttributeValue::B(Blob::new(vec![0u8, 1]))
    );
}

#[test]
fn key_condition_errors() {
    let msg = |k: KeyCondition| k.build().unwrap_err().to_string();
    assert_eq!(
        msg(KeyCondition::new(TABLE, "A").on_index("GSI9")),
        "key attribute `GSI9` is not an index of the table (its indexes: GSI1, ByEmail, ByRating)"
    );
    assert_eq!(
        msg(KeyCondition::new(TableSchema::new("pk"), "A").on_index("GSI1")),
        "key attribute `GSI1` is not an index of the table (its indexes: none)"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "A")
            .on_index("ByEmail")
            .and(attr("sk").eq("x"))),
        "key attribute `sk` is not a key attribute of index ByEmail (its keys: `email`); compare \
         other attributes in a filter"
    );
    assert_eq!(
        msg(KeyCondition::new(TableSchema::new("pk"), "A").and(attr("sk").eq("x"))),
        "key attribute `sk` is not a key attribute of the table (its keys: `pk`); compare other \
         attributes in a filter"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "A")
            .and(attr("sk").gt("a"))
            .and(attr("sk").lt("z"))),
        "key attribute `sk` has two conditions; a key condition allows one per attribute (a range \
         from one bound to another is BETWEEN)"
    );
    // What a key condition cannot hold, said as what it is.
    assert_eq!(
        msg(KeyCondition::new(TABLE, "A").and(attr("sk").eq("a") | attr("sk").eq("b"))),
        "key attribute `(key condition)` has OR; a key condition compares key attributes with =, \
         <, <=, >, >=, BETWEEN or begins_with, joined with AND"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "A").and(attr("sk").ne("a"))),
        "key attribute `(key condition)` has <>; a key condition compares key attributes with =, \
         <, <=, >, >=, BETWEEN or begins_with, joined with AND"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "A").and(attr("sk").exists())),
        "key attribute `(key condition)` has attribute_exists; a key condition compares key \
         attributes with =, <, <=, >, >=, BETWEEN or begins_with, joined with AND"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "A").and(attr("sk.x").eq("a"))),
        "key attribute `(key condition)` compares the nested path `sk.x`; a key condition compares \
         top-level key attributes"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "A").and(attr("sk").size().gt(1))),
        "key attribute `(key condition)` compares a size; a key condition compares values"
    );
    // The partition key given twice, once by `new` and once by `and`.
    assert_eq!(
        msg(KeyCondition::new(TABLE, "A").and(attr("pk").eq("B"))),
        "key attribute `pk` has two values; a partition key attribute of the table takes one"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, 5)),
        "key attribute `pk` condition value is a number (N), expected a string (S)"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "P")
            .on_index("ByRating")
            .and(attr("rating").eq("5"))),
        "key attribute `rating` of index ByRating condition value is a string (S), expected a number (N)"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "P")
            .on_index("ByRating")
            .and(attr("rating").begins_with(5))),
        "key attribute `rating` of index ByRating is a number (N); begins_with needs a string or binary sort key"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "P")
            .on_index("ByRating")
            .and(attr("rating").eq(f64::NAN))),
        "key attribute `rating` of index ByRating condition value cannot be converted: NaN is not a finite number"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "").on_index("GSI1")),
        "key attribute `gsi1pk` of index GSI1 condition value is empty; DynamoDB rejects empty key values"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "x".repeat(2049))),
        "key attribute `pk` condition value is 2049 bytes, over the limit of 2048 bytes"
    );
    assert!(KeyCondition::new(TABLE, "x".repeat(2048)).build().is_ok());
    assert_eq!(
        msg(KeyCondition::new(TABLE, "A").and(attr("sk").begins_with("x".repeat(1025)))),
        "key attribute `sk` condition value is 1025 bytes, over the limit of 1024 bytes"
    );
    assert!(
        KeyCondition::new(TABLE, "A")
            .and(attr("sk").begins_with("x".repeat(1024)))
            .build()
            .is_ok()
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "A").and(attr("sk").between("b", "a"))),
        "key attribute `sk` condition BETWEEN has its low bound above its high bound"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, "P")
            .on_index("ByRating")
            .and(attr("rating").between(10, 9))),
        "key attribute `rating` of index ByRating condition BETWEEN has its low bound above its high bound"
    );
    assert_eq!(
        msg(KeyCondition::new(TABLE, attr("other"))),
        "key attribute `pk` condition compares with the attribute `other`; key conditions compare with values"
    );
    let err = KeyCondition::new(TABLE, "").build().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    assert_eq!(err.attribute(), Some("pk"));
}

// ------------------------------------------------------------------ merging

#[test]
fn merging_renames_only_what_clashes() {
    let a = attr("status").eq("open").build().unwrap();
    let b = attr("status")
        .ne("void")
        .and(attr("total").gt(0))
        .build()
        .unwrap();
    let both = a.clone().and(b.clone());
    assert_eq!(
        both.expression(),
        "(#c0 = :c0) AND (#c0 <> :c2 AND #c1 > :c1)"
    );
    assert_eq!(both.names(), &names(&[("#c0", "status"), ("#c1", "total")]));
    assert_eq!(
        both.values(),
        &values(&[(":c0", s("open")), (":c1", n("0")), (":c2", s("void"))])
    );
    check(&both);
    assert_eq!(
        meaning(&both),
        format!("({}) AND ({})", meaning(&a), meaning(&b))
    );

    // Same prefix, different attribute: the name placeholder is renamed too.
    let c = attr("owner").eq("open").build().unwrap();
    let either = a.clone().or(c);
    assert_eq!(either.expression(), "(#c0 = :c0) OR (#c1 = :c0)");
    assert_eq!(
        either.names(),
        &names(&[("#c0", "status"), ("#c1", "owner")])
    );
    // `:c0` is "open" in both: shared.
    assert_eq!(either.values(), &values(&[(":c0", s("open"))]));
    check(&either);

    let not = !a;
    assert_eq!(not.expression(), "NOT (#c0 = :c0)");
    check(&not);
}

// A tiny registry, for its discriminator filter (`#dmType`, `:dmType0`, ...).
#[derive(Debug, Serialize, Deserialize)]
struct Note {
    id: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct Task {
    id: String,
}

struct NoteMapper;

impl Mapper for NoteMapper {
    type Entity = Note;
    const ENTITY_TYPE: &'static str = "Note";
    const SCHEMA: TableSchema = TABLE;
    fn after_to_item(n: &Note, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("pk", format!("USER#{}", n.id));
        item.put_str("sk", format!("NOTE#{}", n.id));
        Ok(())
    }
}

struct TaskMapper;

impl Mapper for TaskMapper {
    type Entity = Task;
    const ENTITY_TYPE: &'static str = "Task";
    const ALIASES: &'static [&'static str] = &["Todo"];
    const SCHEMA: TableSchema = TABLE;
    fn after_to_item(t: &Task, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("pk", format!("USER#{}", t.id));
        item.put_str("sk", format!("TASK#{}", t.id));
        Ok(())
    }
}

#[derive(Debug)]
#[allow(dead_code)] // only the registry's filter is used here
enum Entity {
    Note(Note),
    Task(Task),
}

fn registry() -> Registry<Entity> {
    Registry::builder()
        .register::<NoteMapper>(Entity::Note)
        .register::<TaskMapper>(Entity::Task)
        .build()
        .unwrap()
}

#[test]
fn merging_with_the_discriminator_filter_never_clashes() {
    let registry = registry();
    let types = registry.filter(&["Task"]).unwrap();
    assert_eq!(types.expression(), "#dmType0 IN (:dmType0, :dmType1)");

    // Even a filter built with the same placeholder stem.
    let ours = attr("status").eq("open").build_with_stem("dmType").unwrap();
    assert_eq!(ours.expression(), "#dmType0 = :dmType0");
    let both = (&types).into_expression().unwrap().and(ours.clone());
    assert_eq!(
        both.expression(),
        "(#dmType0 IN (:dmType0, :dmType1)) AND (#dmType1 = :dmType2)"
    );
    assert_eq!(
        both.names(),
        &names(&[("#dmType0", "entityType"), ("#dmType1", "status")])
    );
    assert_eq!(
        both.values(),
        &values(&[
            (":dmType0", s("Task")),
            (":dmType1", s("Todo")),
            (":dmType2", s("open"))
        ])
    );
    check(&both);

    // The other way round: the discriminator filter's `:dmType0` moves.
    let both = ours.clone().and(types.clone().into_expression().unwrap());
    assert_eq!(
        both.expression(),
        "(#dmType0 = :dmType0) AND (#dmType1 IN (:dmType2, :dmType1))"
    );
    check(&both);
    let types_meaning = meaning(&types.clone().into_expression().unwrap());
    assert_eq!(
        meaning(&both),
        format!("({}) AND ({types_meaning})", meaning(&ours))
    );

    // On a query, in either order, with the registry's own apply too.
    let key = KeyCondition::new(TABLE, "USER#U1");
    let query = offline_client()
        .query()
        .apply(key.clone())
        .unwrap()
        .apply(&types)
        .unwrap()
        .apply(attr("status").eq("open"))
        .unwrap();
    let input = query.as_input();
    assert_eq!(
        input.get_filter_expression().as_deref(),
        Some("(#dmType0 IN (:dmType0, :dmType1)) AND (#c0 = :c0)")
    );
    assert_exact(
        &format!(
            "{} {}",
            input.get_key_condition_expression().as_deref().unwrap(),
            input.get_filter_expression().as_deref().unwrap()
        ),
        input.get_expression_attribute_names().as_ref().unwrap(),
        input.get_expression_attribute_values().as_ref().unwrap(),
    );
    let query = offline_client()
        .query()
        .apply(key)
        .unwrap()
        .apply(attr("status").eq("open"))
        .unwrap()
        .apply(&types)
        .unwrap();
    assert_eq!(
        query.get_filter_expression().as_deref(),
        Some("(#c0 = :c0) AND (#dmType0 IN (:dmType0, :dmType1))")
    );
    assert_eq!(
        query
            .get_expression_attribute_names()
            .as_ref()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        query
            .get_expression_attribute_values()
            .as_ref()
            .unwrap()
            .len(),
        4
    );
}

// --------------------------------------------------------- SDK builders

#[test]
fn query_gets_key_condition_and_filter_added_to_what_it_has() {
    let query = offline_client()
        .query()
        .table_name("AppTable")
        .projection_expression("#k0, #name")
        .expression_attribute_names("#k0", "orderId")
        .expression_attribute_names("#name", "name")
        .apply(
            KeyCondition::new(TABLE, "STATUS#open")
                .on_index("GSI1")
                .and(attr("gsi1sk").begins_with("2024-")),
        )
        .unwrap()
        .apply(attr("total").gt(100))
        .unwrap()
        .apply(attr("total").lt(1000))
        .unwrap();
    let input = query.as_input();
    assert_eq!(input.get_index_name().as_deref(), Some("GSI1"));
    // `#k0` was taken by the projection: the key condition's moved to `#k1`,
    // and its `#k1` to `#k2`.
    assert_eq!(
        input.get_key_condition_expression().as_deref(),
        Some("#k2 = :k0 AND begins_with(#k1, :k1)")
    );
    assert_eq!(
        input.get_filter_expression().as_deref(),
        Some("(#c0 > :c0) AND (#c0 < :c1)")
    );
    assert_binds(
        input.get_expression_attribute_names(),
        input.get_expression_attribute_values(),
        &[
            ("#k0", "orderId"),
            ("#name", "name"),
            ("#k1", "gsi1sk"),
            ("#k2", "gsi1pk"),
            ("#c0", "total"),
        ],
        &[
            (":k0", s("STATUS#open")),
            (":k1", s("2024-")),
            (":c0", n("100")),
            (":c1", n("1000")),
        ],
    );
}

/// Applying binds whole maps to a request that has none, adds pairs to one
/// that has some, and never sets an empty map (DynamoDB rejects one).
#[test]
fn applying_binds_maps_without_empty_ones() {
    // Names only, on a fresh request: the values stay unset.
    let put = offline_client()
        .put_item()
        .apply(attr("pk").not_exists())
        .unwrap();
    let input = put.as_input();
    assert_binds(
        input.get_expression_attribute_names(),
        input.get_expression_attribute_values(),
        &[("#c0", "pk")],
        &[],
    );
    // Values on a request with names but no values; `#c0` already means
    // `pk`, so it is shared; the second condition's values are new.
    let put = put.apply(attr("pk").ne("X")).unwrap();
    let input = put.as_input();
    assert_eq!(
        input.get_condition_expression().as_deref(),
        Some("(attribute_not_exists(#c0)) AND (#c0 <> :c0)")
    );
    assert_binds(
        input.get_expression_attribute_names(),
        input.get_expression_attribute_values(),
        &[("#c0", "pk")],
        &[(":c0", s("X"))],
    );
    // Added to maps that are there: nothing the request holds is replaced.
    let put = put.apply(attr("sk").eq("Y")).unwrap();
    let input = put.as_input();
    assert_eq!(
        input.get_condition_expression().as_deref(),
        Some("((attribute_not_exists(#c0)) AND (#c0 <> :c0)) AND (#c1 = :c1)")
    );
    assert_binds(
        input.get_expression_attribute_names(),
        input.get_expression_attribute_values(),
        &[("#c0", "pk"), ("#c1", "sk")],
        &[(":c0", s("X")), (":c1", s("Y"))],
    );
}

/// The other halves: names added to a request holding only values, a
/// partial clash renamed in the text, a projection beside a filter's
/// values, and a request whose maps the caller set empty.
#[test]
fn applying_adds_to_either_map_and_renames_only_clashes() {
    // Values but no names: the condition's names are set whole, the
    // request's values untouched.
    let put = offline_client()
        .put_item()
        .condition_expression("size(lines) > :min")
        .expression_attribute_values(":min", n("0"))
        .apply(attr("pk").exists())
        .unwrap();
    let input = put.as_input();
    assert_binds(
        input.get_expression_attribute_names(),
        input.get_expression_attribute_values(),
        &[("#c0", "pk")],
        &[(":min", n("0"))],
    );
    // `#c0` already means `pk`; the condition's `#c0` means `sk`: renamed,
    // in the text too, and its `pk` shares the request's `#c0`.
    let put = offline_client()
        .put_item()
        .condition_expression("attribute_exists(#c0)")
        .expression_attribute_names("#c0", "pk")
        .apply(attr("sk").exists() & attr("pk").exists())
        .unwrap();
    let input = put.as_input();
    assert_eq!(
        input.get_condition_expression().as_deref(),
        Some("(attribute_exists(#c0)) AND (attribute_exists(#c2) AND attribute_exists(#c1))")
    );
    assert_eq!(
        input.get_expression_attribute_names().as_ref().unwrap(),
        &names(&[("#c0", "pk"), ("#c1", "pk"), ("#c2", "sk")])
    );
    // A projection on a query with a filter: names added, values kept.
    let query = offline_client()
        .query()
        .apply(attr("total").gt(100))
        .unwrap()
        .apply(&Projection::paths([attr("total"), attr("id")]))
        .unwrap();
    let input = query.as_input();
    assert_binds(
        input.get_expression_attribute_names(),
        input.get_expression_attribute_values(),
        &[("#c0", "total"), ("#p0", "total"), ("#p1", "id")],
        &[(":c0", n("100"))],
    );
    // Maps the caller set empty are added to, not replaced by nothing.
    let put = offline_client()
        .put_item()
        .set_expression_attribute_names(Some(HashMap::new()))
        .set_expression_attribute_values(Some(HashMap::new()))
        .apply(attr("pk").ne("X"))
        .unwrap();
    let input = put.as_input();
    assert_binds(
        input.get_expression_attribute_names(),
        input.get_expression_attribute_values(),
        &[("#c0", "pk")],
        &[(":c0", s("X"))],
    );
}

#[test]
fn key_condition_conflicts_are_errors() {
    let key = || KeyCondition::new(TABLE, "A");
    let err = offline_client()
        .query()
        .key_condition_expression("pk = :pk")
        .apply(key())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "key attribute `(key condition)` cannot be added: the request already has the key condition `pk = :pk`"
    );
    let err = offline_client()
        .query()
        .index_name("GSI1")
        .apply(key())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "key attribute `(key condition)` is for the table, but the request reads index GSI1"
    );
    let err = offline_client()
        .query()
        .index_name("ByEmail")
        .apply(key().on_index("GSI1"))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "key attribute `(key condition)` is for index GSI1, but the request reads index ByEmail"
    );
    // The same index is fine.
    let query = offline_client()
        .query()
        .index_name("GSI1")
        .apply(key().on_index("GSI1"))
        .unwrap();
    assert_eq!(query.get_index_name().as_deref(), Some("GSI1"));
    // Build errors come through.
    assert_eq!(
        offline_client()
            .query()
            .apply(key().on_index("GSI9"))
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidKey
    );
}

#[test]
fn scans_get_filters_joined() {
    let scan = offline_client()
        .scan()
        .table_name("AppTable")
        .filter_expression("attribute_exists(#c0)")
        .expression_attribute_names("#c0", "email")
        .apply(attr("email").begins_with("ada"))
        .unwrap();
    assert_eq!(
        scan.get_filter_expression().as_deref(),
        Some("(attribute_exists(#c0)) AND (begins_with(#c0, :c0))")
    );
    assert_binds(
        scan.get_expression_attribute_names(),
        scan.get_expression_attribute_values(),
        &[("#c0", "email")],
        &[(":c0", s("ada"))],
    );
    let err = offline_client()
        .scan()
        .apply(attr("a[").exists())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue);
}

#[test]
fn writes_get_conditions_added() {
    let put = offline_client()
        .put_item()
        .table_name("AppTable")
        .apply(attr("pk").not_exists())
        .unwrap();
    assert_eq!(
        put.get_condition_expression().as_deref(),
        Some("attribute_not_exists(#c0)")
    );
    assert_binds(
        put.get_expression_attribute_names(),
        put.get_expression_attribute_values(),
        &[("#c0", "pk")],
        &[],
    );

    let delete = offline_client()
        .delete_item()
        .condition_expression("#v = :v")
        .expression_attribute_names("#v", "version")
        .expression_attribute_values(":v", n("3"))
        .apply(attr("status").ne("locked"))
        .unwrap();
    assert_eq!(
        delete.get_condition_expression().as_deref(),
        Some("(#v = :v) AND (#c0 <> :c0)")
    );
    assert_binds(
        delete.get_expression_attribute_names(),
        delete.get_expression_attribute_values(),
        &[("#v", "version"), ("#c0", "status")],
        &[(":v", n("3")), (":c0", s("locked"))],
    );

    let update = offline_client()
        .update_item()
        .update_expression("SET #c0 = :c0, #c1 = :c1")
        .expression_attribute_names("#c0", "status")
        .expression_attribute_names("#c1", "shippedAt")
        .expression_attribute_values(":c0", s("shipped"))
        .expression_attribute_values(":c1", s("2024-01-15"))
        .apply(attr("status").eq("paid").and(attr("version").eq(3)))
        .unwrap();
    assert_eq!(
        update.get_condition_expression().as_deref(),
        Some("#c0 = :c2 AND #c2 = :c3")
    );
    assert_binds(
        update.get_expression_attribute_names(),
        update.get_expression_attribute_values(),
        &[("#c0", "status"), ("#c1", "shippedAt"), ("#c2", "version")],
        &[
            (":c0", s("shipped")),
            (":c1", s("2024-01-15")),
            (":c2", s("paid")),
            (":c3", n("3")),
        ],
    );
    assert_exact(
        &format!(
            "{} {}",
            update.get_update_expression().as_deref().unwrap(),
            update.get_condition_expression().as_deref().unwrap()
        ),
        update.get_expression_attribute_names().as_ref().unwrap(),
        update.get_expression_attribute_values().as_ref().unwrap(),
    );
}

#[test]
fn transaction_parts_get_conditions_added() {
    let put = Put::builder()
        .table_name("AppTable")
        .item("pk", s("ORDER#O1"))
        .apply(attr("pk").not_exists())
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(
        put.condition_expression(),
        Some("attribute_not_exists(#c0)")
    );

    let delete = Delete::builder()
        .table_name("AppTable")
        .key("pk", s("CART#C1"))
        .apply(attr("items").size().eq(0))
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(delete.condition_expression(), Some("size(#c0) = :c0"));
    assert_eq!(delete.expression_attribute_values().unwrap()[":c0"], n("0"));

    let update = Update::builder()
        .table_name("AppTable")
        .key("pk", s("PRODUCT#P1"))
        .update_expression("SET #c0 = #c0 - :c0")
        .expression_attribute_names("#c0", "stock")
        .expression_attribute_values(":c0", n("2"))
        .apply(attr("stock").ge(2))
        .unwrap()
        .build()
        .unwrap();
    // `#c0` is `stock` in both; `:c0` is 2 in both: everything is shared.
    assert_eq!(update.condition_expression(), Some("#c0 >= :c0"));
    assert_eq!(update.expression_attribute_names().unwrap().len(), 1);
    assert_eq!(update.expression_attribute_values().unwrap().len(), 1);

    let check = ConditionCheck::builder()
        .table_name("AppTable")
        .key("pk", s("CUSTOMER#C1"))
        .apply(attr("status").eq("active"))
        .unwrap()
        .apply(attr("credit").gt(100))
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(check.condition_expression(), "(#c0 = :c0) AND (#c1 > :c1)");
    assert_eq!(
        check.expression_attribute_names().unwrap(),
        &names(&[("#c0", "status"), ("#c1", "credit")])
    );
    assert_eq!(
        check.expression_attribute_values().unwrap(),
        &values(&[(":c0", s("active")), (":c1", n("100"))])
    );
    let items = [
        TransactWriteItem::builder().put(put).build(),
        TransactWriteItem::builder().delete(delete).build(),
        TransactWriteItem::builder().update(update).build(),
        TransactWriteItem::builder().condition_check(check).build(),
    ];
    assert!(items.iter().all(|i| {
        i.put().is_some()
            || i.delete().is_some()
            || i.update().is_some()
            || i.condition_check().is_some()
    }));
}

// -------------------------------------------------------------- properties

fn leaf() -> impl Strategy<Value = Condition> {
    let path = prop::sample::select(vec![
        "status",
        "name",
        "size",
        "a.b",
        "a.c",
        "lines[0].qty",
        "lines[1]",
    ]);
    let operand = prop_oneof![(-50i64..50).prop_map(|v| v.to_string()), "[a-c]{0,2}",];
    (path, 0usize..9, operand.clone(), operand).prop_map(|(p, op, v, w)| match op {
        0 => attr(p).eq(v),
        1 => attr(p).ne(v),
        2 => attr(p).lt(v),
        3 => attr(p).between(v, w),
        4 => attr(p).is_in([v, w]),
        5 => attr(p).begins_with(v),
        6 => attr(p).exists(),
        7 => attr(p).size().gt(attr("a.b")),
        _ => attr(p).contains(v),
    })
}

fn condition() -> impl Strategy<Value = Condition> {
    leaf().prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| a.and(b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| a.or(b)),
            inner.clone().prop_map(|a| !a),
            proptest::collection::vec(inner, 1..3).prop_map(Condition::all),
        ]
    })
}

fn prefix() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["c", "k", "dmType", "f"])
}

proptest! {
    #[test]
    fn built_expressions_bind_exactly_what_they_use(c in condition(), p in prefix()) {
        let e = c.build_with_stem(p).unwrap();
        check(&e);
    }

    #[test]
    fn merges_keep_each_side_meaning(a in condition(), pa in prefix(), b in condition(), pb in prefix()) {
        let ea = a.build_with_stem(pa).unwrap();
        let eb = b.build_with_stem(pb).unwrap();
        let both = ea.clone().and(eb.clone());
        check(&both);
        prop_assert_eq!(meaning(&both), format!("({}) AND ({})", meaning(&ea), meaning(&eb)));
        let either = ea.clone().or(eb.clone());
        check(&either);
        prop_assert_eq!(meaning(&either), format!("({}) OR ({})", meaning(&ea), meaning(&eb)));

        // Applied to a request one after the other.
        let scan = offline_client().scan().apply(ea.clone()).unwrap().apply(eb.clone()).unwrap();
        let expression = scan.get_filter_expression().clone().unwrap();
        let names = scan.get_expression_attribute_names().clone().unwrap_or_default();
        let values = scan.get_expression_attribute_values().clone().unwrap_or_default();
        assert_exact(&expression, &names, &values);
        prop_assert_eq!(
            substitute(&expression, &names, &values),
            format!("({}) AND ({})", meaning(&ea), meaning(&eb))
        );
    }

    #[test]
    fn filters_never_disturb_a_key_condition(c in condition(), p in prefix(), pk in "[A-Z#]{1,8}", sk in "[a-z]{1,4}") {
        let key = KeyCondition::new(TABLE, pk.as_str()).and(attr("sk").begins_with(sk.as_str()));
        let key_meaning = meaning(&key.build().unwrap());
        let filter = c.build_with_stem(p).unwrap();
        let query = offline_client().query().apply(key).unwrap().apply(filter.clone()).unwrap();
        let names = query.get_expression_attribute_names().clone().unwrap_or_default();
        let values = query.get_expression_attribute_values().clone().unwrap_or_default();
        let key_text = query.get_key_condition_expression().clone().unwrap();
        let filter_text = query.get_filter_expression().clone().unwrap();
        assert_exact(&format!("{key_text} {filter_text}"), &names, &values);
        prop_assert_eq!(substitute(&key_text, &names, &values), key_meaning);
        prop_assert_eq!(substitute(&filter_text, &names, &values), meaning(&filter));
    }
}
