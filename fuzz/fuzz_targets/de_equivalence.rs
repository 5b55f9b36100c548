//! The crate reads entities as `serde_dynamo` does (it adds paths and better
//! messages): for arbitrary items, `from_item` of a type using every shape of
//! the serde data model succeeds exactly when `serde_dynamo::from_item`
//! does, with the same value, except where it differs on purpose: items
//! DynamoDB never stores are refused before reading (nesting, sets, unknown
//! types), numbers a float does not hold exactly are refused, and malformed
//! content the entity ignores is not looked at.
#![no_main]

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use dynamodb_mapper::{Item, Mapper, MapperExt, TableSchema};
use dynamodb_mapper_support::fuzz;
use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Unit;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Newtype(i16);

#[derive(Debug, PartialEq, Serialize, Deserialize)]
enum Shape {
    Dot,
    Circle(u8),
    Pair(u8, String),
    Rect { w: i8, h: Option<u8> },
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Inner {
    a: u32,
    b: Option<String>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Rich {
    s: Option<String>,
    n: Option<u64>,
    i: Option<i32>,
    f: Option<f64>,
    b: Option<bool>,
    c: Option<char>,
    e: Option<Vec<Shape>>,
    m: Option<BTreeMap<String, u16>>,
    k: Option<BTreeMap<u8, bool>>,
    t: Option<(u8, String)>,
    u: Option<()>,
    us: Option<Unit>,
    nt: Option<Newtype>,
    set: Option<Vec<String>>,
    nums: Option<Vec<i64>>,
    inner: Option<Vec<Inner>>,
    deep: Option<BTreeMap<String, Vec<Option<Inner>>>>,
    shape: Option<Shape>,
    required: String,
}

struct RichMapper;

impl Mapper for RichMapper {
    type Entity = Rich;
    const ENTITY_TYPE: &'static str = "Rich";
    const SCHEMA: TableSchema = TableSchema::new("pk").without_discriminator();
    fn after_to_item(_: &Rich, _: &mut Item) -> dynamodb_mapper::Result<()> {
        Ok(())
    }
}

const FIELDS: &[&str] = &[
    "s", "n", "i", "f", "b", "c", "e", "m", "k", "t", "u", "us", "nt", "set", "nums", "inner",
    "deep", "shape", "required",
];

const NAMES: &[&str] = &[
    "s", "n", "i", "f", "b", "c", "e", "m", "k", "t", "u", "us", "nt", "set", "nums", "inner",
    "deep", "shape", "required", "a", "w", "h", "Dot", "Circle", "Pair", "Rect", "1", "x",
];

fn name(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    Ok(NAMES[u.choose_index(NAMES.len())?].to_owned())
}

/// A value of the right shape for a field of `Rich` now and then, anything
/// else otherwise.
fn value(
    u: &mut Unstructured<'_>,
    depth: usize,
) -> arbitrary::Result<aws_sdk_dynamodb::types::AttributeValue> {
    use aws_sdk_dynamodb::types::AttributeValue as V;
    if depth < 4 && u.ratio(1u8, 3u8)? {
        let n = u.int_in_range(0usize..=4)?;
        return Ok(if bool::arbitrary(u)? {
            V::L(
                (0..n)
                    .map(|_| value(u, depth + 1))
                    .collect::<arbitrary::Result<_>>()?,
            )
        } else {
            let mut m = std::collections::HashMap::new();
            for _ in 0..n {
                m.insert(name(u)?, value(u, depth + 1)?);
            }
            V::M(m)
        });
    }
    fuzz::value(u, depth)
}

struct Input(Item);

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let n = u.int_in_range(0usize..=10)?;
        let mut item = Item::new();
        for _ in 0..n {
            item.insert(name(u)?, value(u, 1)?);
        }
        if u.ratio(3u8, 4u8)? {
            item.insert(
                "required".into(),
                aws_sdk_dynamodb::types::AttributeValue::S("r".into()),
            );
        }
        Ok(Input(item))
    }
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

fn has_unknown(v: &aws_sdk_dynamodb::types::AttributeValue) -> bool {
    use aws_sdk_dynamodb::types::AttributeValue as V;
    match v {
        V::L(l) => l.iter().any(has_unknown),
        V::M(m) => m.values().any(has_unknown),
        other => other.is_unknown(),
    }
}

/// Whether the crate refuses a number `serde_dynamo` reads, on purpose: one
/// a float does not hold exactly, or `NaN`/`inf` (no DynamoDB numbers).
fn rounding(e: &dynamodb_mapper::Error) -> bool {
    // The reason is in the cause, which `{:#}` prints after the message.
    let m = format!("{e:#}");
    e.kind() == dynamodb_mapper::ErrorKind::Deserialize
        && (m.contains("without rounding")
            || m.contains("within the range of f")
            || m.ends_with(", expected f64")
            || m.ends_with(", expected f32"))
}

/// Whether `v` holds what DynamoDB never returns, which `serde_dynamo`
/// fails on even where the entity ignores it (a number that is no number, a
/// NULL of `false`) and the crate does not look at.
fn malformed(v: &aws_sdk_dynamodb::types::AttributeValue) -> bool {
    use aws_sdk_dynamodb::types::AttributeValue as V;
    match v {
        V::L(l) => l.iter().any(malformed),
        V::M(m) => m.values().any(malformed),
        V::N(n) => n.parse::<f64>().is_err(),
        V::Ns(ns) => ns.iter().any(|n| n.parse::<f64>().is_err()),
        V::Null(b) => !b,
        _ => false,
    }
}

fuzz_target!(|input: Input| {
    let item = input.0;
    let ours = RichMapper::from_item(item.clone());
    // Refused before reading, on purpose: nesting past DynamoDB's 32 levels,
    // empty sets, duplicate set members, values of an unknown type in a
    // field (serde_dynamo panics on those).
    if let Err(e) = &ours
        && e.kind() == dynamodb_mapper::ErrorKind::InvalidValue
    {
        return;
    }
    // Only fields are read; other attributes are the mapper's `rest`.
    let fields: Item = item
        .into_iter()
        .filter(|(k, _)| FIELDS.contains(&k.as_str()))
        .collect();
    assert!(
        !fields.values().any(has_unknown),
        "an unknown type was read: {ours:?}"
    );
    let malformed = fields.values().any(malformed);
    let theirs: Result<Rich, _> = serde_dynamo::from_item(fields);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        (Err(_), Err(_)) => {}
        (Err(e), Ok(_)) if rounding(e) => {}
        (Ok(_), Err(_)) if malformed => {}
        _ => panic!("the crate and serde_dynamo disagree: crate {ours:?}, serde_dynamo {theirs:?}"),
    }
});
