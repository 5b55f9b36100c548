//! Keys: injective keys from components, the sortable encodings and key
//! patterns. The overlap analysis on the seed designs is tested inside the
//! crate (`src/key/design_tests.rs`); the registry reports it.

use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dynamodb_mapper::ErrorKind;

/// DynamoDB's key size limits, in bytes.
const MAX_PARTITION_KEY_BYTES: usize = 2048;
const MAX_SORT_KEY_BYTES: usize = 1024;
use dynamodb_mapper::{
    KeyPattern,
    key::{BoundPattern, KeyFormat, KeyValue},
};
use proptest::prelude::*;

// ------------------------------------------------- keys from components

/// The placeholder names of [`SORT_KEYS`] and [`TAGGED_KEYS`], in order.
const NAMES: [&str; 6] = ["c0", "c1", "c2", "c3", "c4", "c5"];

/// The type tag `T` and 0 to 6 text components: `SORT_KEYS[n]` renders a
/// key of `n` components.
const SORT_KEYS: [KeyPattern; 7] = [
    KeyPattern::sort("T"),
    KeyPattern::sort("T#{c0}"),
    KeyPattern::sort("T#{c0}#{c1}"),
    KeyPattern::sort("T#{c0}#{c1}#{c2}"),
    KeyPattern::sort("T#{c0}#{c1}#{c2}#{c3}"),
    KeyPattern::sort("T#{c0}#{c1}#{c2}#{c3}#{c4}"),
    KeyPattern::sort("T#{c0}#{c1}#{c2}#{c3}#{c4}#{c5}"),
];

/// A type tag given as a value and 0 to 5 text components.
const TAGGED_KEYS: [KeyPattern; 6] = [
    KeyPattern::partition("{tag}"),
    KeyPattern::partition("{tag}#{c0}"),
    KeyPattern::partition("{tag}#{c0}#{c1}"),
    KeyPattern::partition("{tag}#{c0}#{c1}#{c2}"),
    KeyPattern::partition("{tag}#{c0}#{c1}#{c2}#{c3}"),
    KeyPattern::partition("{tag}#{c0}#{c1}#{c2}#{c3}#{c4}"),
];

/// `pattern` with `parts` bound to its first placeholders `c0`, `c1`, ...
fn bound<'a>(pattern: KeyPattern, parts: &'a [impl AsRef<str>]) -> BoundPattern<'a> {
    let start: BoundPattern<'a> = pattern.bind();
    parts
        .iter()
        .zip(NAMES)
        .fold(start, |b, (part, name)| b.with(name, part.as_ref()))
}

/// `T` and `parts` as a sort key.
fn sort_key(parts: &[impl AsRef<str>]) -> String {
    bound(SORT_KEYS[parts.len()], parts).render().unwrap()
}

#[test]
fn delimiters_in_components_cannot_collide() {
    assert_eq!(sort_key(&["A#", "B"]), r"T#A\##B");
    assert_eq!(sort_key(&["A", "#B"]), r"T#A#\#B");
    assert_eq!(sort_key(&[r"A\", "B"]), r"T#A\\#B");
    assert_eq!(sort_key(&[r"A\#B"]), r"T#A\\\#B");
    assert_ne!(sort_key(&["A#", "B"]), sort_key(&["A", "#B"]));
    assert_eq!(
        KeyFormat::new().split(r"T#A\##B").unwrap(),
        ["T", "A#", "B"]
    );
    assert_eq!(
        KeyFormat::new().split(r"T#A#\#B").unwrap(),
        ["T", "A", "#B"]
    );
    assert_eq!(KeyFormat::new().split(r"T#A\\\#B").unwrap(), ["T", r"A\#B"]);
}

#[test]
fn every_short_component_list_renders_a_distinct_key() {
    // Exhaustive over components of 1 to 3 characters from an alphabet made
    // of the delimiter, the escape character and one letter, lists of 1 to 3
    // components: 39 + 39² + 39³ = 60,879 lists.
    let alphabet = ['A', '#', '\\'];
    let mut components = Vec::new();
    for len in 1..=3u32 {
        for n in 0..3usize.pow(len) {
            let mut s = String::new();
            let mut k = n;
            for _ in 0..len {
                s.push(alphabet[k % 3]);
                k /= 3;
            }
            components.push(s);
        }
    }
    assert_eq!(components.len(), 39);
    let mut seen: HashMap<String, Vec<&str>> = HashMap::new();
    let mut lists: Vec<Vec<&str>> = components.iter().map(|c| vec![c.as_str()]).collect();
    for _ in 1..3 {
        let longer: Vec<Vec<&str>> = lists
            .iter()
            .filter(|l| l.len() == lists.last().map_or(0, Vec::len))
            .flat_map(|l| {
                components.iter().map(move |c| {
                    let mut l = l.clone();
                    l.push(c.as_str());
                    l
                })
            })
            .collect();
        lists.extend(longer);
    }
    assert_eq!(lists.len(), 39 + 39 * 39 + 39 * 39 * 39);
    for list in &lists {
        let key = sort_key(list);
        if let Some(other) = seen.insert(key.clone(), list.clone()) {
            panic!("{list:?} and {other:?} both render {key:?}");
        }
        let mut expected = vec!["T"];
        expected.extend(list);
        assert_eq!(KeyFormat::new().split(&key).unwrap(), expected);
    }
}

fn component() -> impl Strategy<Value = String> {
    // Heavy on delimiters and escape characters, plus arbitrary text.
    prop_oneof!["[A#\\\\]{1,6}", "[a-z0-9#\\\\|~]{1,8}", "\\PC{1,6}",]
}

proptest! {
    #[test]
    fn distinct_component_lists_render_distinct_keys(
        a in proptest::collection::vec(component(), 0..5),
        b in proptest::collection::vec(component(), 0..5),
    ) {
        prop_assert_eq!(a == b, sort_key(&a) == sort_key(&b));
    }

    #[test]
    fn split_inverts_render(tag in "[A-Z]{1,8}", parts in proptest::collection::vec(component(), 0..6)) {
        let key = bound(TAGGED_KEYS[parts.len()], &parts).with("tag", &tag).render().unwrap();
        let mut expected = vec![tag];
        expected.extend(parts);
        prop_assert_eq!(KeyFormat::new().split(&key).unwrap(), expected);
    }

    #[test]
    fn prefixes_match_exactly_the_keys_continuing_them(
        head in proptest::collection::vec(component(), 0..3),
        tail in proptest::collection::vec(component(), 0..3),
        other in proptest::collection::vec(component(), 1..4),
    ) {
        // Every placeholder bound: the key and a delimiter.
        let prefix = bound(SORT_KEYS[head.len()], &head).prefix().unwrap();
        let mut continued = head.clone();
        continued.extend(tail.iter().cloned());
        continued.push("end".to_owned());
        prop_assert!(sort_key(&continued).starts_with(&prefix));
        // A key starts with the prefix only if its components start with `head`.
        let key = sort_key(&other);
        let continues = other.len() > head.len() && other[..head.len()] == head[..];
        prop_assert_eq!(key.starts_with(&prefix), continues);
    }

    #[test]
    fn partial_prefixes_match_components_starting_with_them(
        head in proptest::collection::vec(component(), 0..3),
        start in component(),
        rest in "[A#\\\\x]{0,4}",
        other in component(),
    ) {
        // The prefix up to the next placeholder, then the escaped start of
        // its value.
        let prefix = bound(SORT_KEYS[head.len() + 1], &head).prefix().unwrap()
            + &KeyFormat::new().escape_text(&start).unwrap();
        let mut with = head.clone();
        with.push(format!("{start}{rest}"));
        prop_assert!(sort_key(&with).starts_with(&prefix));
        let mut with_other = head.clone();
        with_other.push(other.clone());
        prop_assert_eq!(
            sort_key(&with_other).starts_with(&prefix),
            other.starts_with(&start)
        );
    }
}

#[test]
fn component_errors_name_the_pattern_and_the_problem() {
    let msg = |r: dynamodb_mapper::Result<String>| r.unwrap_err().to_string();
    assert_eq!(
        msg(KeyPattern::sort("").bind().render()),
        "key pattern `` is invalid: it is empty"
    );
    assert_eq!(
        msg(KeyPattern::partition(r"A\B").bind().render()),
        "key pattern `A\\B` is invalid: it has the escape character `\\` at byte 1; it is reserved for escaping values"
    );
    assert_eq!(
        msg(KeyPattern::sort("ORDER#{o}#{x}")
            .with("o", "O1")
            .with("x", "")
            .render()),
        "key pattern `ORDER#{o}#{x}` value for `{x}`: is empty"
    );
    // The first value that does not fit is reported.
    assert_eq!(
        msg(KeyPattern::sort("T#{d:i2}#{n:u1}")
            .with("d", -100)
            .with("n", 10)
            .render()),
        "key pattern `T#{d:i2}#{n:u1}` value for `{d:i2}`: -100 needs 3 digits, more than the width of 2"
    );
    assert_eq!(
        msg(KeyPattern::sort("T")
            .with_format(KeyFormat::new().with_escape('#'))
            .bind()
            .render()),
        "key pattern `T` is invalid: it has an invalid key format: uses `#` as both delimiter and escape character"
    );
    let err = SORT_KEYS[1].with("c0", "").render().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKeyPattern);
}

#[test]
fn keys_over_the_limits_are_errors() {
    let one = |role_pattern: KeyPattern, part: String| role_pattern.with("c0", part);
    let (sort, partition) = (SORT_KEYS[1], KeyPattern::partition("T#{c0}"));
    // "T#" + 1022 = 1024 bytes: the largest sort key.
    let at_limit = one(sort, "x".repeat(MAX_SORT_KEY_BYTES - 2));
    assert_eq!(at_limit.render().unwrap().len(), MAX_SORT_KEY_BYTES);
    assert_eq!(
        one(sort, "x".repeat(MAX_SORT_KEY_BYTES - 1))
            .render()
            .unwrap_err()
            .to_string(),
        "key pattern `T#{c0}` renders a key that is 1025 bytes, over the sort key limit of 1024 bytes"
    );
    // Escaping counts: 511 `#` become 1022 bytes.
    assert_eq!(one(sort, "#".repeat(511)).render().unwrap().len(), 1024);
    assert!(one(sort, "#".repeat(512)).render().is_err());
    assert_eq!(
        one(partition, "é".repeat(1023)).render().unwrap().len(),
        MAX_PARTITION_KEY_BYTES
    );
    assert_eq!(
        one(partition, "é".repeat(1024))
            .render()
            .unwrap_err()
            .to_string(),
        "key pattern `T#{c0}` renders a key that is 2050 bytes, over the partition key limit of 2048 bytes"
    );
    // A prefix is a key value too.
    assert!(one(sort, "x".repeat(1021)).prefix().is_ok());
    assert!(one(sort, "x".repeat(1022)).prefix().is_err());
}

#[test]
fn split_errors() {
    let msg = |key: &str| KeyFormat::new().split(key).unwrap_err().to_string();
    assert_eq!(msg(""), "key attribute `(key)` \"\" is empty");
    assert_eq!(
        msg("#A"),
        "key attribute `(key)` \"#A\" has an empty component at byte 0"
    );
    assert_eq!(
        msg("A#"),
        "key attribute `(key)` \"A#\" has an empty component at byte 2"
    );
    assert_eq!(
        msg(r"A#\x"),
        "key attribute `(key)` \"A#\\\\x\" has an unknown escape `\\x` at byte 2"
    );
    assert_eq!(
        msg(r"A\"),
        "key attribute `(key)` \"A\\\\\" ends with a lone escape character `\\`"
    );
}

#[test]
fn formats_are_checked() {
    for (format, reason) in [
        (
            KeyFormat::new().with_delimiter('a'),
            "delimiter 'a' is not an ASCII punctuation character",
        ),
        (
            KeyFormat::new().with_delimiter('é'),
            "delimiter 'é' is not an ASCII punctuation character",
        ),
        (
            KeyFormat::new().with_escape('-'),
            "escape character `-` is reserved: encodings and key patterns use `-`, `:`, `.`, `{` and `}`",
        ),
        (
            KeyFormat::new().with_delimiter('{'),
            "delimiter `{` is reserved: encodings and key patterns use `-`, `:`, `.`, `{` and `}`",
        ),
        (
            KeyFormat::new().with_delimiter('\\'),
            "uses `\\` as both delimiter and escape character",
        ),
    ] {
        let err = KeyPattern::sort("A#{x}")
            .with_format(format)
            .with("x", "y")
            .render()
            .unwrap_err();
        assert!(
            err.to_string()
                .ends_with(&format!("it has an invalid key format: {reason}")),
            "{err}"
        );
    }
    let pipes = KeyFormat::new().with_delimiter('|').with_escape('~');
    let key = KeyPattern::sort("A|{x}")
        .with_format(pipes)
        .with("x", "b|c~d#e")
        .render()
        .unwrap();
    assert_eq!(key, "A|b~|c~~d#e");
    assert_eq!(pipes.split(&key).unwrap(), ["A", "b|c~d#e"]);
}

// ------------------------------------------------------------ key patterns

const LINE_SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}");

#[test]
fn patterns_render_and_parse() {
    assert_eq!(
        LINE_SK
            .with("order_id", "O1")
            .with("line", 7u32)
            .render()
            .unwrap(),
        "ORDER#O1#LINE#007"
    );
    // Order of `with` calls does not matter.
    assert_eq!(
        LINE_SK
            .with("line", 7)
            .with("order_id", "O1")
            .render()
            .unwrap(),
        "ORDER#O1#LINE#007"
    );
    let parts = LINE_SK.parse("ORDER#O1#LINE#007").unwrap();
    assert_eq!(parts.text("order_id").unwrap(), "O1");
    assert_eq!(parts.unsigned("line").unwrap(), 7);
    assert_eq!(
        parts.iter().collect::<Vec<_>>(),
        [
            ("order_id", &KeyValue::from("O1")),
            ("line", &KeyValue::Unsigned(7))
        ]
    );

    const EVERYTHING: KeyPattern =
        KeyPattern::sort("E#{id}#v{version:u2}x#{delta:i3}#{at:ts3}#{label}");
    let at = UNIX_EPOCH + Duration::from_millis(1_705_314_600_123);
    let key = EVERYTHING
        .with("id", r"a#b\c")
        .with("version", 7)
        .with("delta", -5)
        .with("at", at)
        .with("label", "z")
        .render()
        .unwrap();
    assert_eq!(key, r"E#a\#b\\c#v07x#N995#2024-01-15T10:30:00.123Z#z");
    let parts = EVERYTHING.parse(&key).unwrap();
    assert_eq!(parts.text("id").unwrap(), r"a#b\c");
    assert_eq!(parts.unsigned("version").unwrap(), 7);
    assert_eq!(parts.signed("delta").unwrap(), -5);
    assert_eq!(parts.timestamp::<SystemTime>("at").unwrap(), at);
    assert_eq!(parts.iter().count(), 5);

    let meta = KeyPattern::sort("METADATA");
    assert_eq!(meta.bind().render().unwrap(), "METADATA");
    assert!(meta.parse("METADATA").unwrap().iter().next().is_none());
}

#[test]
fn pattern_prefixes() {
    assert_eq!(LINE_SK.bind().prefix().unwrap(), "ORDER#");
    assert_eq!(
        LINE_SK.with("order_id", "O1").prefix().unwrap(),
        "ORDER#O1#LINE#"
    );
    assert_eq!(
        LINE_SK
            .with("order_id", "O1")
            .with("line", 3)
            .prefix()
            .unwrap(),
        "ORDER#O1#LINE#003#"
    );
    // Fully bound, a prefix still ends at a segment boundary: the order
    // O1's prefix does not reach order O10.
    let o1 = KeyPattern::sort("ORDER#{id}")
        .with("id", "O1")
        .prefix()
        .unwrap();
    assert_eq!(o1, "ORDER#O1#");
    assert!(!"ORDER#O10".starts_with(&o1));
    assert_eq!(
        KeyPattern::sort("V#v{n:u2}").bind().prefix().unwrap(),
        "V#v"
    );
    assert_eq!(
        LINE_SK.with("line", 3).prefix().unwrap_err().to_string(),
        "key pattern `ORDER#{order_id}#LINE#{line:u3}` has a value for `{line}` but none for `{order_id}` before it; a prefix stops at the first placeholder without a value"
    );
    assert_eq!(
        KeyPattern::sort("{at:ts}#X")
            .bind()
            .prefix()
            .unwrap_err()
            .to_string(),
        "key pattern `{at:ts}#X` renders an empty prefix: its first placeholder `{at:ts}` has no value"
    );
}

#[test]
fn pattern_render_errors() {
    let msg = |r: dynamodb_mapper::Result<String>| r.unwrap_err().to_string();
    assert_eq!(
        msg(LINE_SK.with("order_id", "O1").render()),
        "key pattern `ORDER#{order_id}#LINE#{line:u3}` has no value for `{line:u3}`"
    );
    assert_eq!(
        msg(LINE_SK.with("order_id", "O1").with("line", 1000).render()),
        "key pattern `ORDER#{order_id}#LINE#{line:u3}` value for `{line:u3}`: 1000 needs 4 digits, more than the width of 3"
    );
    assert_eq!(
        msg(LINE_SK.with("order_id", "O1").with("line", "7").render()),
        "key pattern `ORDER#{order_id}#LINE#{line:u3}` value for `{line:u3}`: is text \"7\", expected an integer"
    );
    assert_eq!(
        msg(LINE_SK
            .with("order_id", "O1")
            .with("order_id", "O2")
            .render()),
        "key pattern `ORDER#{order_id}#LINE#{line:u3}` was given `{order_id}` twice"
    );
    assert_eq!(
        msg(KeyPattern::sort("N#{id}")
            .with("id", "x".repeat(1023))
            .render()),
        "key pattern `N#{id}` renders a key that is 1025 bytes, over the sort key limit of 1024 bytes"
    );
    assert!(
        KeyPattern::partition("N#{id}")
            .with("id", "x".repeat(1023))
            .render()
            .is_ok()
    );
}

#[test]
fn pattern_parse_errors() {
    let msg = |key: &str| LINE_SK.parse(key).unwrap_err().to_string();
    let start = "key pattern `ORDER#{order_id}#LINE#{line:u3}` cannot parse";
    assert_eq!(
        msg("ORDER#O1"),
        format!("{start} \"ORDER#O1\": it has 2 components, the pattern has 4")
    );
    assert_eq!(
        msg("ORDER#O1#ITEM#007"),
        format!("{start} \"ORDER#O1#ITEM#007\": component 3 is \"ITEM\", expected \"LINE\"")
    );
    assert_eq!(
        msg("ORDER#O1#LINE#7"),
        format!(
            "{start} \"ORDER#O1#LINE#7\": component 4 (`{{line:u3}}`): \"7\" is not exactly 3 digits"
        )
    );
    assert_eq!(
        msg("ORDER##LINE#007"),
        format!("{start} \"ORDER##LINE#007\": it has an empty component at byte 6")
    );
    assert_eq!(
        KeyPattern::sort("V#v{n:u2}x")
            .parse("V#vx")
            .unwrap_err()
            .to_string(),
        "key pattern `V#v{n:u2}x` cannot parse \"V#vx\": component 2 is \"vx\", expected `v{n:u2}x`"
    );
    let parts = LINE_SK.parse("ORDER#O1#LINE#007").unwrap();
    assert_eq!(
        parts.text("line").unwrap_err().to_string(),
        "key pattern `ORDER#{order_id}#LINE#{line:u3}` placeholder `{line}` holds 7, not text"
    );
    assert_eq!(
        parts
            .timestamp::<SystemTime>("nope")
            .unwrap_err()
            .to_string(),
        "key pattern `ORDER#{order_id}#LINE#{line:u3}` has no placeholder `{nope}`"
    );
}

#[test]
fn invalid_patterns_are_named_with_the_problem() {
    for (template, reason) in [
        ("", "is empty"),
        ("A##B", "has an empty component at byte 2"),
        ("#A", "has an empty component at byte 0"),
        ("A#", "has an empty component at byte 2"),
        ("A#{id", "has an unclosed `{` at byte 2"),
        ("A#id}", "has a `}` without a `{` at byte 4"),
        (
            "A#{x}{y}",
            "has a second placeholder in one component at byte 5; separate placeholders with `#`",
        ),
        (
            "A#{1x}",
            "has an invalid placeholder name in `{1x}`: use ASCII letters, digits and `_`, not starting with a digit",
        ),
        (
            "A#{}",
            "has an invalid placeholder name in `{}`: use ASCII letters, digits and `_`, not starting with a digit",
        ),
        (
            "A#{n:D3}",
            "has an unknown format in `{n:D3}`: use `u<width>` (1 to 20), `i<width>` (1 to 19) or `ts<fraction digits>` (0 to 9)",
        ),
        (
            "A#{n:u21}",
            "has an unknown format in `{n:u21}`: use `u<width>` (1 to 20), `i<width>` (1 to 19) or `ts<fraction digits>` (0 to 9)",
        ),
        (
            "A#{n:ts10}",
            "has an unknown format in `{n:ts10}`: use `u<width>` (1 to 20), `i<width>` (1 to 19) or `ts<fraction digits>` (0 to 9)",
        ),
        ("A#{n}#{n}", "uses the placeholder `{n}` twice"),
        (
            r"A\B",
            "has the escape character `\\` at byte 1; it is reserved for escaping values",
        ),
    ] {
        let pattern = KeyPattern::sort(template);
        let expected = format!("key pattern `{template}` is invalid: it {reason}");
        // Every use reports it.
        assert_eq!(pattern.bind().render().unwrap_err().to_string(), expected);
        assert_eq!(pattern.parse("A").unwrap_err().to_string(), expected);
    }
    let bad_format = KeyPattern::sort("A:{x}").with_format(KeyFormat::new().with_delimiter(':'));
    assert_eq!(
        bad_format.bind().render().unwrap_err().to_string(),
        "key pattern `A:{x}` is invalid: it has an invalid key format: delimiter `:` is reserved: encodings and key patterns use `-`, `:`, `.`, `{` and `}`"
    );
}

/// Seconds and nanoseconds from the epoch within the years 0000 to 9999.
fn time_in_range() -> impl Strategy<Value = (i64, u32)> {
    (-62_167_219_200i64..=253_402_300_799, 0u32..1_000_000_000)
}

fn values() -> impl Strategy<Value = (String, u64, i64, (i64, u32), String)> {
    (
        component(),
        0u64..100_000,
        -9_999i64..=9_999,
        time_in_range(),
        "[a-z#]{1,5}",
    )
}

proptest! {
    #[test]
    fn pattern_parse_inverts_render((id, n, d, (secs, nanos), label) in values()) {
        const P: KeyPattern = KeyPattern::sort("T#{id}#{n:u5}#x{d:i4}#{at:ts9}#{label}");
        let at = if secs >= 0 {
            UNIX_EPOCH + Duration::new(secs as u64, nanos)
        } else {
            UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs()) + Duration::from_nanos(u64::from(nanos))
        };
        let key = P.with("id", &id).with("n", n).with("d", d).with("at", at).with("label", &label).render().unwrap();
        let parts = P.parse(&key).unwrap();
        prop_assert_eq!(parts.text("id").unwrap(), id.as_str());
        prop_assert_eq!(parts.unsigned("n").unwrap(), n);
        prop_assert_eq!(parts.signed("d").unwrap(), d);
        prop_assert_eq!(parts.timestamp::<SystemTime>("at").unwrap(), at);
        prop_assert_eq!(parts.text("label").unwrap(), label.as_str());
        // The prefix with the first values bound is a prefix of the key.
        let prefix = P.with("id", &id).with("n", n).prefix().unwrap();
        prop_assert!(key.starts_with(&prefix));
    }

    #[test]
    fn distinct_pattern_values_render_distinct_keys(a in ("[A#\\\\]{1,4}", "[A#\\\\]{1,4}"), b in ("[A#\\\\]{1,4}", "[A#\\\\]{1,4}")) {
        const P: KeyPattern = KeyPattern::sort("{x}#{y}");
        let render = |(x, y): &(String, String)| P.with("x", x).with("y", y).render().unwrap();
        prop_assert_eq!(a == b, render(&a) == render(&b));
    }

}

#[test]
fn one_template_with_two_formats_compiles_twice() {
    // The same `&'static str` read with `#` and with `|` as delimiter: two
    // different patterns, whichever is used first.
    const TEMPLATE: &str = "A|{x}";
    let hash = KeyPattern::sort(TEMPLATE);
    let pipe = KeyPattern::sort(TEMPLATE).with_format(KeyFormat::new().with_delimiter('|'));
    for _ in 0..2 {
        assert_eq!(hash.with("x", "b|c").render().unwrap(), "A|b|c");
        assert_eq!(pipe.with("x", "b|c").render().unwrap(), r"A|b\|c");
        assert!(hash.parse("A|b").is_ok());
        assert!(pipe.parse("A|b|c").is_err());
        assert_eq!(pipe.parse(r"A|b\|c").unwrap().text("x").unwrap(), "b|c");
    }
}
