//! The attribute-value deserializer against `serde_dynamo` and on the
//! cases where it differs on purpose.

use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;
use serde::Deserialize;
use serde_dynamo::AttributeValue as SdValue;

use super::*;

#[derive(Debug, PartialEq, Deserialize)]
struct Unit;

#[derive(Debug, PartialEq, Deserialize)]
struct Newtype(i16);

#[derive(Debug, PartialEq, Deserialize)]
enum Shape {
    Dot,
    Circle(u8),
    Pair(u8, String),
    Rect { w: i8, h: Option<u8> },
}

#[derive(Debug, PartialEq, Deserialize)]
struct Inner {
    a: u32,
    b: Option<String>,
}

/// Every shape of the serde data model `serde_dynamo` reads.
#[derive(Debug, PartialEq, Deserialize)]
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
    bk: Option<BTreeMap<bool, String>>,
    t: Option<(u8, String)>,
    u: Option<()>,
    us: Option<Unit>,
    nt: Option<Newtype>,
    set: Option<Vec<String>>,
    nums: Option<Vec<i64>>,
    bytes: Option<Vec<u8>>,
    inner: Option<Vec<Inner>>,
    deep: Option<BTreeMap<String, Vec<Option<Inner>>>>,
    any: Option<Vec<serde::de::IgnoredAny>>,
}

fn ours<T: de::DeserializeOwned>(v: SdValue) -> Result<T, SdError> {
    T::deserialize(Value::attribute(v.into()))
}

fn theirs<T: de::DeserializeOwned>(v: SdValue) -> Result<T, SdError> {
    serde_dynamo::from_attribute_value(v)
}

fn s(v: &str) -> SdValue {
    SdValue::S(v.into())
}

fn n(v: &str) -> SdValue {
    SdValue::N(v.into())
}

#[test]
fn messages_say_what_was_expected_and_found() {
    let cases: Vec<(Result<(), SdError>, &str)> = vec![
        (
            ours::<u32>(s("two")).map(drop),
            "invalid type: a string (S) \"two\", expected u32",
        ),
        (
            ours::<u8>(n("300")).map(drop),
            "invalid value: a number (N) 300, expected u8",
        ),
        (
            ours::<u64>(n("-1")).map(drop),
            "invalid value: a number (N) -1, expected u64",
        ),
        (
            ours::<String>(SdValue::Null(true)).map(drop),
            "invalid type: null (NULL), expected a string",
        ),
        (
            ours::<Vec<u8>>(SdValue::M(HashMap::new())).map(drop),
            "invalid type: a map (M), expected a sequence",
        ),
        (
            ours::<Inner>(SdValue::Bool(true)).map(drop),
            "invalid type: a boolean (BOOL) true, expected struct Inner",
        ),
        (
            ours::<Shape>(n("1")).map(drop),
            "invalid type: a number (N) 1, expected enum Shape",
        ),
        (
            ours::<Shape>(SdValue::M(HashMap::from([
                ("Dot".to_string(), SdValue::Null(true)),
                ("Circle".to_string(), n("1")),
            ])))
            .map(drop),
            "invalid length 2, expected a map with one entry, the enum variant",
        ),
        (
            ours::<char>(s("ab")).map(drop),
            "invalid value: a string (S) \"ab\", expected a character",
        ),
        (
            ours::<BTreeMap<u8, bool>>(SdValue::M(HashMap::from([(
                "x".to_string(),
                SdValue::Bool(true),
            )])))
            .map(drop),
            "invalid value: string \"x\", expected u8",
        ),
        (
            ours::<u32>(s(&"é".repeat(70)))
                .map(drop)
                .map_err(|e| de::Error::custom(e.to_string().replace(&"é".repeat(64), "<64>"))),
            "invalid type: a string (S) \"<64>\"…, expected u32",
        ),
    ];
    for (result, expected) in cases {
        assert_eq!(result.unwrap_err().to_string(), expected);
    }
    // What `serde_dynamo` itself answers, for comparison.
    assert_eq!(
        theirs::<u32>(s("two")).unwrap_err().to_string(),
        "Expected num"
    );
}

#[test]
fn integers_of_128_bits() {
    let big = "99999999999999999999999999999999999999"; // 38 digits
    assert_eq!(ours::<u128>(n(big)).unwrap(), big.parse::<u128>().unwrap());
    assert_eq!(
        ours::<i128>(n(&format!("-{big}"))).unwrap(),
        -big.parse::<i128>().unwrap()
    );
    assert_eq!(ours::<u128>(n("18446744073709551616")).unwrap(), 1 << 64);
    assert_eq!(
        ours::<u128>(n("-1")).unwrap_err().to_string(),
        "invalid value: a number (N) -1, expected u128"
    );
    // Map keys too.
    let m = SdValue::M(HashMap::from([(big.to_string(), SdValue::Bool(true))]));
    let read: BTreeMap<u128, bool> = ours(m).unwrap();
    assert_eq!(read.keys().next().copied(), big.parse().ok());
    // A self-describing target gets the exact integer, never a float
    // that rounds it (`serde_json::Value` refuses integers past u64).
    let any: serde_json::Value = ours(n("18446744073709551615")).unwrap();
    assert_eq!(any.to_string(), "18446744073709551615");
    assert!(ours::<serde_json::Value>(n("18446744073709551616")).is_err());
    let any: serde_json::Value = theirs(n("18446744073709551616")).unwrap();
    assert_eq!(any.to_string(), "1.8446744073709552e+19");
    // `serde_dynamo` reads no 128-bit integers.
    assert!(theirs::<u128>(n("1")).is_err());
}

#[test]
fn floats_are_read_only_without_rounding() {
    // Fine: decimals of up to 15 digits (f32: 6), shortest
    // representations, integers the type holds exactly.
    for (text, value) in [
        ("0.1", 0.1),
        ("-0", -0.0),
        ("0", 0.0),
        ("1.5e3", 1500.0),
        ("123456789012345", 123_456_789_012_345.0),
        ("0.30000000000000004", 0.1 + 0.2),
        ("9007199254740992", 9_007_199_254_740_992.0), // 2^53
        ("1152921504606846976", 1_152_921_504_606_846_976.0), // 2^60
        ("1e125", 1e125),
        ("1e-130", 1e-130),
        ("5e-324", 5e-324), // the smallest subnormal, exactly as written
    ] {
        assert_eq!(ours::<f64>(n(text)).unwrap(), value, "{text}");
        assert_eq!(
            ours::<f64>(n(text)).unwrap().to_bits(),
            f64::to_bits(value),
            "{text}"
        );
    }
    assert_eq!(ours::<f32>(n("0.1")).unwrap(), 0.1_f32);
    assert_eq!(ours::<f32>(n("16777216")).unwrap(), 16_777_216.0_f32);
    // Every f64 written by this crate reads back.
    for v in [f64::MAX, f64::MIN_POSITIVE, 1.0 / 3.0, -2.5e-300, 123.456] {
        assert_eq!(ours::<f64>(n(&v.to_string())).unwrap(), v);
    }
    // Refused: digits f64 does not hold.
    for (text, message) in [
        (
            "9007199254740993",
            "invalid value: a number (N) 9007199254740993, expected f64 without rounding \
             (the nearest f64 is 9007199254740992)",
        ),
        (
            "99999999999999999999999999999999999999",
            "invalid value: a number (N) 99999999999999999999999999999999999999, expected \
             f64 without rounding (the nearest f64 is 1e38)",
        ),
        (
            "0.12345678901234567890123",
            "invalid value: a number (N) 0.12345678901234567890123, expected f64 without \
             rounding (the nearest f64 is 0.12345678901234568)",
        ),
        (
            "1e-400",
            "invalid value: a number (N) 1e-400, expected f64 without rounding (the nearest \
             f64 is 0e0)",
        ),
        (
            "1e400",
            "invalid value: a number (N) 1e400, expected a number within the range of f64",
        ),
        ("NaN", "invalid value: a number (N) NaN, expected f64"),
        ("inf", "invalid value: a number (N) inf, expected f64"),
    ] {
        assert_eq!(
            ours::<f64>(n(text)).unwrap_err().to_string(),
            message,
            "{text}"
        );
    }
    assert_eq!(
        ours::<f32>(n("16777217")).unwrap_err().to_string(),
        "invalid value: a number (N) 16777217, expected f32 without rounding (the nearest \
         f32 is 16777216)"
    );
    assert!(ours::<f32>(n("1e39")).is_err());
    // In sets and self-describing targets too.
    assert!(ours::<Vec<f64>>(SdValue::Ns(vec!["9007199254740993".into()])).is_err());
    assert!(ours::<serde_json::Value>(n("0.12345678901234567890123")).is_err());
}

#[test]
fn ignored_values_are_not_looked_at() {
    #[derive(Debug, Deserialize)]
    struct Small {
        a: u8,
    }
    let v = SdValue::M(HashMap::from([
        ("a".to_string(), n("1")),
        ("b".to_string(), n("not a number")),
        ("c".to_string(), SdValue::Null(false)),
    ]));
    assert_eq!(ours::<Small>(v.clone()).unwrap().a, 1);
    assert!(theirs::<Small>(v).is_err());
}

#[test]
fn reads_what_serde_dynamo_reads() {
    let v = SdValue::M(HashMap::from([
        ("s".to_string(), s("x")),
        ("n".to_string(), n("7")),
        ("f".to_string(), n("1.5")),
        ("c".to_string(), s("é")),
        (
            "e".to_string(),
            SdValue::L(vec![
                s("Dot"),
                SdValue::M(HashMap::from([("Circle".to_string(), n("3"))])),
                SdValue::M(HashMap::from([(
                    "Pair".to_string(),
                    SdValue::L(vec![n("1"), s("p")]),
                )])),
                SdValue::M(HashMap::from([(
                    "Rect".to_string(),
                    SdValue::M(HashMap::from([("w".to_string(), n("-2"))])),
                )])),
            ]),
        ),
        (
            "k".to_string(),
            SdValue::M(HashMap::from([("5".to_string(), SdValue::Bool(true))])),
        ),
        (
            "bk".to_string(),
            SdValue::M(HashMap::from([("true".to_string(), s("yes"))])),
        ),
        ("t".to_string(), SdValue::L(vec![n("1"), s("one")])),
        ("u".to_string(), SdValue::Null(true)),
        ("nt".to_string(), n("-3")),
        ("set".to_string(), SdValue::Ss(vec!["a".into()])),
        (
            "nums".to_string(),
            SdValue::Ns(vec!["-1".into(), "2".into()]),
        ),
        (
            "bytes".to_string(),
            SdValue::Ns(vec!["1".into(), "2".into()]),
        ),
        (
            "inner".to_string(),
            SdValue::L(vec![SdValue::L(vec![n("1"), s("b")])]),
        ),
        (
            "any".to_string(),
            SdValue::L(vec![SdValue::Bs(vec![vec![1]]), n("1")]),
        ),
    ]));
    let a = ours::<Rich>(v.clone()).unwrap();
    let b = theirs::<Rich>(v).unwrap();
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert_eq!(a.e.as_ref().map(Vec::len), Some(4));
    assert_eq!(a.bytes, Some(vec![1, 2]));
    assert_eq!(a.u, None);
}

/// Values as `serde_dynamo` knows them; with `malformed`, also what
/// DynamoDB never returns (`NaN` and other strings that are no number,
/// `NULL` of `false`).
fn value(malformed: bool) -> impl Strategy<Value = SdValue> {
    let names = prop_oneof![
        Just("s"),
        Just("n"),
        Just("i"),
        Just("f"),
        Just("b"),
        Just("c"),
        Just("e"),
        Just("m"),
        Just("k"),
        Just("bk"),
        Just("t"),
        Just("u"),
        Just("us"),
        Just("nt"),
        Just("set"),
        Just("nums"),
        Just("bytes"),
        Just("inner"),
        Just("deep"),
        Just("any"),
        Just("a"),
        Just("w"),
        Just("h"),
        Just("Dot"),
        Just("Circle"),
        Just("Pair"),
        Just("Rect"),
        Just("1"),
        Just("true"),
        Just("x"),
    ]
    .prop_map(str::to_owned);
    let numbers: &'static [&'static str] = if malformed {
        &[
            "1",
            "-3",
            "300",
            "1.5",
            "NaN",
            "1e3",
            "18446744073709551616",
            "",
            "x",
        ]
    } else {
        &[
            "1",
            "-3",
            "300",
            "1.5",
            "1e3",
            "18446744073709551616",
            "-0.25",
        ]
    };
    let null = if malformed {
        any::<bool>().boxed()
    } else {
        Just(true).boxed()
    };
    let leaf = prop_oneof![
        prop_oneof![
            Just("x"),
            Just("é"),
            Just("Dot"),
            Just("Circle"),
            Just(""),
            Just("ab")
        ]
        .prop_map(|v| SdValue::S(v.into())),
        proptest::sample::select(numbers).prop_map(|v| SdValue::N(v.into())),
        any::<bool>().prop_map(SdValue::Bool),
        null.prop_map(SdValue::Null),
        proptest::collection::vec(any::<u8>(), 0..3).prop_map(SdValue::B),
        proptest::collection::vec("[a-c1]", 0..3).prop_map(SdValue::Ss),
        proptest::collection::vec("-?[0-9]{1,3}", 0..3).prop_map(SdValue::Ns),
        proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..2), 0..2)
            .prop_map(SdValue::Bs),
    ];
    leaf.prop_recursive(4, 48, 5, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(SdValue::L),
            proptest::collection::hash_map(names.clone(), inner, 0..5).prop_map(SdValue::M),
        ]
    })
}

fn has_nan(v: &SdValue) -> bool {
    match v {
        SdValue::N(n) => n == "NaN",
        SdValue::L(l) => l.iter().any(has_nan),
        SdValue::M(m) => m.values().any(has_nan),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// On what DynamoDB returns, the same values and the same failures
    /// as `serde_dynamo`; only the messages differ.
    #[test]
    fn same_results_as_serde_dynamo(v in value(false)) {
        let a = ours::<Rich>(v.clone()).map(|r| format!("{r:?}"));
        let b = theirs::<Rich>(v.clone()).map(|r| format!("{r:?}"));
        prop_assert_eq!(a.is_ok(), b.is_ok(), "ours {:?}, serde_dynamo {:?}", a, b);
        if let (Ok(a), Ok(b)) = (a, b) {
            prop_assert_eq!(a, b);
        }
        let a = ours::<Vec<Shape>>(v.clone()).map(|r| format!("{r:?}")).ok();
        let b = theirs::<Vec<Shape>>(v).map(|r| format!("{r:?}")).ok();
        prop_assert_eq!(a, b);
    }

    /// With malformed values too: whatever `serde_dynamo` reads is read
    /// the same, except `NaN` (no DynamoDB number; refused for a float).
    /// The other way round, malformed content the entity ignores does not
    /// fail the read here as it does in `serde_dynamo`.
    #[test]
    fn reads_what_serde_dynamo_reads_from_malformed_values(v in value(true)) {
        let b = theirs::<Rich>(v.clone()).map(|r| format!("{r:?}"));
        if let Ok(b) = b && !has_nan(&v) {
            let a = ours::<Rich>(v.clone()).map(|r| format!("{r:?}"));
            prop_assert_eq!(a.as_ref().ok(), Some(&b), "ours {:?}", a);
        }
    }
}

/// The path of a failure below the top level, as `from_fields` reports it.
fn failed_path<T: de::DeserializeOwned + std::fmt::Debug + 'static>(item: Item) -> Option<String> {
    let table = crate::fields::field_table::<T>(crate::NamingConvention::AsIs)
        .unwrap()
        .unwrap();
    let mut item = item;
    match from_fields::<T>(&mut item, table) {
        Err(FieldsError::Other(_, path)) => path,
        other => panic!("expected a failure, got {other:?}"),
    }
}

/// Reads numbers, and zero for an element that is not one: it recovers
/// from its elements' failures and goes on.
fn lenient<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
    struct Lenient;
    impl<'de> serde::de::Visitor<'de> for Lenient {
        type Value = Vec<u32>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u32>, A::Error> {
            let mut out = Vec::new();
            loop {
                match seq.next_element::<u32>() {
                    Ok(Some(n)) => out.push(n),
                    Ok(None) => return Ok(out),
                    Err(_) => out.push(0),
                }
            }
        }
    }
    d.deserialize_seq(Lenient)
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Paths {
    shapes: Vec<Shape>,
    by_name: Option<HashMap<String, Vec<Inner>>>,
    #[serde(default, deserialize_with = "lenient")]
    lenient: Vec<u32>,
    strict: Option<Vec<Inner>>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Wrapper {
    #[serde(deserialize_with = "lenient")]
    l: Vec<u32>,
    x: u32,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Wrapped {
    w: Vec<Wrapper>,
}

#[derive(Debug, Deserialize)]
struct Lenient {
    #[serde(deserialize_with = "lenient")]
    lenient: Vec<u32>,
}

#[test]
fn failure_paths_name_every_step_and_only_the_failure() {
    let av = |v: SdValue| aws_sdk_dynamodb::types::AttributeValue::from(v);
    let shapes = |inner: SdValue| {
        (
            "shapes".to_owned(),
            av(SdValue::L(vec![
                SdValue::S("Dot".into()),
                SdValue::M(HashMap::from([("Rect".to_owned(), inner)])),
            ])),
        )
    };
    let bad_rect = SdValue::M(HashMap::from([
        ("w".to_owned(), n("1")),
        ("h".to_owned(), s("tall")),
    ]));
    // Inside a struct variant: the variant's name is a step.
    let item = Item::from([shapes(bad_rect)]);
    assert_eq!(
        failed_path::<Paths>(item).as_deref(),
        Some("shapes[1].Rect.h")
    );

    // Inside a map keyed by data, then a list, then a struct.
    let good_rect = SdValue::M(HashMap::from([("w".to_owned(), n("1"))]));
    let by_name = SdValue::M(HashMap::from([(
        "alice".to_owned(),
        SdValue::L(vec![SdValue::M(HashMap::from([("a".to_owned(), s("x"))]))]),
    )]));
    let item = Item::from([
        shapes(good_rect.clone()),
        ("by_name".to_owned(), av(by_name)),
    ]);
    assert_eq!(
        failed_path::<Paths>(item).as_deref(),
        Some("by_name.alice[0].a")
    );

    // A failure something recovered from leaves no step behind: the next
    // failure's path is its own, in the same list or after it.
    let item = Item::from([(
        "lenient".to_owned(),
        av(SdValue::L(vec![s("no"), n("3"), s("no")])),
    )]);
    let table = crate::fields::field_table::<Lenient>(crate::NamingConvention::AsIs)
        .unwrap()
        .unwrap();
    let mut item = item;
    let read: Lenient = from_fields(&mut item, table).unwrap();
    assert_eq!(read.lenient, [0, 3, 0]);
    let lenient = SdValue::L(vec![s("not a number"), n("3")]);
    let strict = SdValue::L(vec![
        SdValue::M(HashMap::from([("a".to_owned(), n("1"))])),
        SdValue::M(HashMap::from([("a".to_owned(), s("no"))])),
    ]);
    let item = Item::from([
        shapes(good_rect),
        ("lenient".to_owned(), av(lenient)),
        ("strict".to_owned(), av(strict)),
    ]);
    assert_eq!(failed_path::<Paths>(item).as_deref(), Some("strict[1].a"));

    // In one struct: a field that recovered from a failure, then a field
    // that fails (in whichever order the map gives them).
    let wrapper = SdValue::M(HashMap::from([
        ("l".to_owned(), SdValue::L(vec![s("no"), n("1")])),
        ("x".to_owned(), s("not a number")),
    ]));
    let item = Item::from([("w".to_owned(), av(SdValue::L(vec![wrapper])))]);
    assert_eq!(failed_path::<Wrapped>(item).as_deref(), Some("w[0].x"));
}

/// An entity whose `Deserialize` reads the first field it is given and
/// stops: `from_fields` still takes its other field out of the item, so
/// what stays is only what is not a field (the rest a record keeps).
#[test]
fn takes_out_the_fields_a_deserializer_stops_before() {
    #[derive(Debug)]
    struct First(String);
    impl<'de> Deserialize<'de> for First {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> de::Visitor<'de> for V {
                type Value = First;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a map")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<First, A::Error> {
                    let (_, value): (String, String) = map
                        .next_entry()?
                        .ok_or_else(|| de::Error::custom("empty"))?;
                    Ok(First(value))
                }
            }
            d.deserialize_struct("First", &["a", "b"], V)
        }
    }
    let table = crate::fields::field_table::<First>(crate::NamingConvention::AsIs)
        .unwrap()
        .unwrap();
    let text = |v: &str| AttributeValue::S(v.to_owned());
    let mut item = Item::from([
        ("a".to_owned(), text("1")),
        ("b".to_owned(), text("2")),
        ("other".to_owned(), text("kept")),
    ]);
    let read: First = from_fields(&mut item, table).unwrap();
    assert!(read.0 == "1" || read.0 == "2", "{read:?}");
    assert_eq!(item, Item::from([("other".to_owned(), text("kept"))]));
}
