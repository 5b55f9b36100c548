//! Key rendering and parsing (`dynamodb_mapper::key`) on arbitrary formats,
//! components, key strings and patterns: never a panic, and what is built
//! parses back into exactly what it was built from (injectivity), encoded
//! numbers and timestamps decode to their value and sort as their value.
#![no_main]

use std::collections::HashSet;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use arbitrary::{Arbitrary, Result, Unstructured};
use dynamodb_mapper::time::PointInTime;
use dynamodb_mapper::{
    KeyPattern,
    key::{BoundPattern, Encoding, KeyFormat, KeyValue},
};
use libfuzzer_sys::fuzz_target;

/// Templates: the ones the tests use, edge cases, and malformed ones.
const TEMPLATES: &[&str] = &[
    "CUSTOMER#{id}",
    "ORDER#{order_id}#LINE#{line:u3}",
    "E#{id}#v{version:u2}x#{delta:i3}#{at:ts3}#{label}",
    "METADATA",
    "{id}",
    "V#v{n:u2}",
    "{at:ts}#X",
    "N#{id}",
    "V#v{n:u2}x",
    "T#{id}#{n:u5}#x{d:i4}#{at:ts9}#{label}",
    "{x}#{y}",
    "USERGROUP#{group_id}",
    "K#{x}",
    "K#{y:u3}",
    "{a:u20}",
    "{a:i19}",
    "{a:ts0}",
    "",
    "#",
    "{",
    "}",
    "{}",
    "{x",
    "x}",
    "{x:}",
    "{x:u0}",
    "{x:u21}",
    "{x:i20}",
    "{x:ts10}",
    "{x:q}",
    "{x}{y}",
    "{x}#{x}",
    "A\\#{x}",
    "{x:u3}{y:u3}",
    "a#b#c",
    "{:u3}",
    "{x:u3",
    "é#{x}",
];

const CHARS: &[char] = &[
    '#', '|', '\\', '/', '!', '~', '-', ':', '.', '{', '}', 'a', ' ', '\u{0}', 'é',
];

fn text(u: &mut Unstructured<'_>) -> Result<String> {
    // Mostly short strings of the characters that matter.
    if u.ratio(2u8, 3u8)? {
        let len = u.int_in_range(0usize..=8)?;
        (0..len)
            .map(|_| Ok(CHARS[u.choose_index(CHARS.len())?]))
            .collect()
    } else {
        String::arbitrary(u)
    }
}

/// A key format and its delimiter.
fn format(u: &mut Unstructured<'_>) -> Result<(KeyFormat, char)> {
    Ok(if u.ratio(1u8, 2u8)? {
        (KeyFormat::new(), '#')
    } else {
        let delimiter = CHARS[u.choose_index(CHARS.len())?];
        let format = KeyFormat::new()
            .with_delimiter(delimiter)
            .with_escape(CHARS[u.choose_index(CHARS.len())?]);
        (format, delimiter)
    })
}

/// A `&'static str` for a generated template: each distinct one is leaked
/// once and kept in a global set, so LeakSanitizer sees it as reachable.
/// Generated templates come from a 16-bit seed (see [`template`]), so there
/// are at most 65,536 of them (and 17 per delimiter from
/// [`components_template`]) and the set stays a few megabytes however long
/// the fuzzer runs.
fn intern(t: String) -> &'static str {
    static SEEN: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(PoisonError::into_inner);
    let set = seen.get_or_insert_with(HashSet::new);
    if let Some(&known) = set.get(t.as_str()) {
        return known;
    }
    let leaked: &'static str = Box::leak(t.into_boxed_str());
    set.insert(leaked);
    leaked
}

/// The template a seed stands for: up to four fragments of the characters
/// that matter, each maybe followed by a placeholder, drawn from bytes the
/// seed expands to (splitmix64), so a seed always gives the same template.
fn seeded_template(seed: u16) -> String {
    let mut state = u64::from(seed);
    let mut bytes = [0u8; 64];
    for chunk in bytes.chunks_mut(8) {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    let mut u = Unstructured::new(&bytes);
    let mut t = String::new();
    // Running out of seed bytes ends the template early; that is a template
    // too.
    let _ = (|| -> Result<()> {
        for _ in 0..u.int_in_range(0usize..=4)? {
            for _ in 0..u.int_in_range(0usize..=6)? {
                t.push(CHARS[u.choose_index(CHARS.len())?]);
            }
            if bool::arbitrary(&mut u)? {
                t.push('{');
                t.push_str(
                    ["x", "y", "x:u3", "y:i2", "z:ts3", "w:ts", "v:u20"][u.choose_index(7)?],
                );
                t.push('}');
            }
        }
        Ok(())
    })();
    t
}

fn template(u: &mut Unstructured<'_>) -> Result<&'static str> {
    if u.ratio(1u8, 16u8)? {
        // A generated template now and then; patterns hold `&'static str`.
        Ok(intern(seeded_template(u16::arbitrary(u)?)))
    } else {
        Ok(TEMPLATES[u.choose_index(TEMPLATES.len())?])
    }
}

/// The template of a type tag and `n` components, all placeholders (`{t}`,
/// `{c0}`, ...), joined by `delimiter`; interned, so at most one per
/// delimiter and length.
fn components_template(delimiter: char, n: usize) -> &'static str {
    let mut t = "{t}".to_owned();
    for name in &NAMES[..n] {
        t.push(delimiter);
        t.push('{');
        t.push_str(name);
        t.push('}');
    }
    intern(t)
}

/// The placeholder names of [`components_template`], in order.
const NAMES: [&str; 16] = [
    "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10", "c11", "c12", "c13", "c14",
    "c15",
];

/// `pattern` with the tag and `values` bound to `{t}`, `{c0}`, ...
fn bind<'a>(pattern: KeyPattern, tag: &'a str, values: &'a [String]) -> BoundPattern<'a> {
    let mut b = pattern.with("t", tag);
    for (name, v) in NAMES.iter().zip(values) {
        b = b.with(name, v.as_str());
    }
    b
}

/// A key of a type tag and `parts`, each escaped, as a pattern of all
/// placeholders renders it; prefixes through `BoundPattern::prefix` and
/// `KeyFormat::escape_text`.
fn components_round_trip(u: &mut Unstructured<'_>) -> Result<()> {
    let (fmt, delimiter) = format(u)?;
    let tag = text(u)?;
    let parts: Vec<String> = (0..u.int_in_range(0usize..=4)?)
        .map(|_| text(u))
        .collect::<Result<_>>()?;
    let partition = bool::arbitrary(u)?;
    let pattern = |n: usize| {
        let t = components_template(delimiter, n);
        if partition {
            KeyPattern::partition(t)
        } else {
            KeyPattern::sort(t)
        }
        .with_format(fmt)
    };
    if let Ok(key) = bind(pattern(parts.len()), &tag, &parts).render() {
        let mut expected = vec![tag.clone()];
        expected.extend(parts.iter().cloned());
        assert_eq!(fmt.split(&key).unwrap(), expected, "{key:?}");
    }
    // The prefix up to one more component and the escaped `start` is the
    // `begins_with` value for the keys whose next component starts with
    // `start`.
    let start = text(u)?;
    let rest = text(u)?;
    let mut longer = parts.clone();
    longer.push(format!("{start}{rest}"));
    if let (Ok(prefix), Ok(escaped), Ok(longer)) = (
        bind(pattern(longer.len()), &tag, &parts).prefix(),
        fmt.escape_text(&start),
        bind(pattern(longer.len()), &tag, &longer).render(),
    ) {
        let prefix = prefix + &escaped;
        assert!(longer.starts_with(&prefix), "{longer:?} {prefix:?}");
    }
    // Any string: split never panics; what it splits renders into a key
    // that splits the same.
    let key = text(u)?;
    let _ = fmt.escape_text(&key);
    if let Ok(parts) = fmt.split(&key)
        && let Some((tag, rest)) = parts.split_first()
        && rest.len() <= NAMES.len()
        && let Ok(again) = bind(pattern(rest.len()), tag, rest).render()
    {
        assert_eq!(fmt.split(&again).unwrap(), parts);
    }
    Ok(())
}

/// The time `(secs, nanos)` as a key value, when a `SystemTime` holds it.
fn at((secs, nanos): (i64, u32)) -> Option<KeyValue<'static>> {
    SystemTime::from_unix(secs, nanos).map(KeyValue::Timestamp)
}

/// A decoded time as epoch seconds and nanoseconds.
fn unix(value: &KeyValue<'_>) -> Option<(i64, u32)> {
    match value {
        KeyValue::Timestamp(t) => t.to_unix(),
        _ => None,
    }
}

/// The pattern `{v:<encoding>}` (a sort key of that one placeholder), made
/// once per encoding: encodings are reached through key patterns.
fn pattern_of(encoding: Encoding) -> KeyPattern {
    thread_local! {
        static PATTERNS: std::cell::RefCell<std::collections::HashMap<Encoding, KeyPattern>> =
            std::cell::RefCell::default();
    }
    PATTERNS.with(|all| {
        *all.borrow_mut().entry(encoding).or_insert_with(|| {
            // At most 23 + 23 + 11 templates: leaked once each.
            let template: &'static str = Box::leak(format!("{{v:{encoding}}}").into_boxed_str());
            KeyPattern::sort(template)
        })
    })
}

/// `value` as the component text of `encoding`.
fn encode(encoding: Encoding, value: KeyValue<'static>) -> dynamodb_mapper::Result<String> {
    pattern_of(encoding).with("v", value).render()
}

/// The value `text` holds under `encoding`.
fn decode(encoding: Encoding, text: &str) -> dynamodb_mapper::Result<KeyValue<'static>> {
    let parts = pattern_of(encoding).parse(text)?;
    parts
        .get("v")
        .cloned()
        .ok_or_else(|| dynamodb_mapper::Error::missing_attribute("v"))
}

fn encodings(u: &mut Unstructured<'_>) -> Result<()> {
    let width = u.int_in_range(0u8..=22)?;
    let unsigned = Encoding::Unsigned { width };
    let (a, b) = (u64::arbitrary(u)?, u64::arbitrary(u)?);
    if let (Ok(ea), Ok(eb)) = (
        encode(unsigned, KeyValue::Unsigned(a)),
        encode(unsigned, KeyValue::Unsigned(b)),
    ) {
        assert_eq!(decode(unsigned, &ea).unwrap(), KeyValue::Unsigned(a));
        assert_eq!(a.cmp(&b), ea.cmp(&eb), "{ea} {eb}");
    }
    let signed = Encoding::Signed { width };
    let (a, b) = (i64::arbitrary(u)?, i64::arbitrary(u)?);
    if let (Ok(ea), Ok(eb)) = (
        encode(signed, KeyValue::Signed(a)),
        encode(signed, KeyValue::Signed(b)),
    ) {
        assert_eq!(decode(signed, &ea).unwrap(), KeyValue::Signed(a));
        assert_eq!(a.cmp(&b), ea.cmp(&eb), "{ea} {eb}");
    }
    let frac = u.int_in_range(0u8..=10)?;
    let timestamp = Encoding::Timestamp {
        fraction_digits: frac,
    };
    let t = |u: &mut Unstructured<'_>| -> Result<(i64, u32)> {
        Ok((
            u.int_in_range(-70_000_000_000i64..=260_000_000_000)?,
            u.int_in_range(0u32..=1_000_000_000)?,
        ))
    };
    let ((sa, na), (sb, nb)) = (t(u)?, t(u)?);
    if let (Some(va), Some(vb)) = (at((sa, na)), at((sb, nb)))
        && let (Ok(ea), Ok(eb)) = (encode(timestamp, va), encode(timestamp, vb))
    {
        let unit = 10u32.pow(9 - u32::from(frac));
        let (da, db) = ((sa, na - na % unit), (sb, nb - nb % unit));
        assert_eq!(unix(&decode(timestamp, &ea).unwrap()), Some(da), "{ea}");
        assert_eq!(da.cmp(&db), ea.cmp(&eb), "{ea} {eb}");
    }
    // Decoding any text never panics.
    let s = text(u)?;
    let _ = decode(unsigned, &s);
    let _ = decode(signed, &s);
    let _ = decode(timestamp, &s);
    Ok(())
}

fn value_for(u: &mut Unstructured<'_>, encoding: Encoding) -> Result<KeyValue<'static>> {
    Ok(match encoding {
        Encoding::Text => KeyValue::Text(text(u)?.into()),
        Encoding::Unsigned { .. } => KeyValue::Unsigned(u64::arbitrary(u)? % 100_000),
        Encoding::Signed { .. } => KeyValue::Signed(i64::arbitrary(u)? % 1000),
        Encoding::Timestamp { .. } => KeyValue::Timestamp(
            UNIX_EPOCH
                + Duration::new(
                    u.int_in_range(0u64..=4_000_000_000)?,
                    u.int_in_range(0u32..=999_999_999)?,
                ),
        ),
    })
}

fn patterns(u: &mut Unstructured<'_>) -> Result<()> {
    let t = template(u)?;
    let (fmt, _) = format(u)?;
    let pattern = if bool::arbitrary(u)? {
        KeyPattern::partition(t)
    } else {
        KeyPattern::sort(t)
    }
    .with_format(fmt);
    let key = text(u)?;
    if let Ok(parts) = pattern.parse(&key) {
        // What parses renders into a key that parses the same.
        let mut bound = pattern.bind();
        for (name, value) in parts.iter() {
            bound = bound.with(name, value.clone());
        }
        if let Ok(again) = bound.render() {
            let reparsed = pattern.parse(&again).unwrap();
            assert_eq!(
                reparsed.iter().collect::<Vec<_>>(),
                parts.iter().collect::<Vec<_>>()
            );
        }
    }
    if let Ok(slots) = pattern.placeholders() {
        let mut values = Vec::new();
        for (name, encoding) in slots {
            values.push((name, value_for(u, encoding)?));
        }
        let mut bound = pattern.bind();
        for (name, value) in &values {
            bound = bound.with(name, value.clone());
        }
        let _ = bound.prefix();
        if let Ok(key) = bound.render() {
            let parts = pattern.parse(&key).unwrap();
            for (name, value) in &values {
                let got = parts.get(name).unwrap();
                match (value, got) {
                    // Timestamps keep the pattern's fraction digits only.
                    (KeyValue::Timestamp(_), KeyValue::Timestamp(_)) => {}
                    _ => assert_eq!(got, value, "{name} in {key:?}"),
                }
            }
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = match u.int_in_range(0u8..=2) {
        Ok(0) => components_round_trip(&mut u),
        Ok(1) => encodings(&mut u),
        _ => patterns(&mut u),
    };
});
