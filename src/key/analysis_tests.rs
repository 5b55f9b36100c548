//! Property tests of the key analysis (prefixes, intersections, ranges,
//! overlaps, what a key condition selects) against brute force: every key
//! rendered from a small domain of values is checked by plain string
//! comparison and by the parser (`KeyPattern::matches`), which shares no
//! code with the analysis's automaton.

use std::ops::Bound;

use proptest::prelude::*;

use super::index_keys::IndexKeys;
use super::key_value::KeyValue;
use super::overlap::{KeyDeclaration, find_overlaps, starts_diverge};
use super::pattern::{KeyPattern, RangeEnd};
use super::select::{Selection, SortSelection};
use super::template::constant_prefix;

/// One component of a generated template.
#[derive(Debug, Clone)]
enum Part {
    Literal(&'static str),
    /// A placeholder with literal text before and after it in its
    /// component, and an encoding spec (`""` for text).
    Slot(&'static str, &'static str, &'static str),
}

const LITERALS: &[&str] = &["A", "AB", "B", "O", "ORDER"];
const AROUND: &[&str] = &["", "", "", "A", "v"];
const SPECS: &[&str] = &["", "", ":u1", ":u2", ":i1"];

fn part() -> impl Strategy<Value = Part> {
    prop_oneof![
        prop::sample::select(LITERALS).prop_map(Part::Literal),
        (
            prop::sample::select(AROUND),
            prop::sample::select(SPECS),
            prop::sample::select(AROUND)
        )
            .prop_map(|(b, s, a)| Part::Slot(b, s, a)),
    ]
}

/// A template of 1 to 3 components, leaked to get the `'static` a
/// `KeyPattern` holds, with the specs of its placeholders `x0`, `x1`, ...
fn template(parts: &[Part]) -> (&'static str, Vec<&'static str>) {
    let mut text = String::new();
    let mut specs = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            text.push('#');
        }
        match p {
            Part::Literal(l) => text.push_str(l),
            Part::Slot(before, spec, after) => {
                text.push_str(&format!("{before}{{x{}{spec}}}{after}", specs.len()));
                specs.push(*spec);
            }
        }
    }
    (Box::leak(text.into_boxed_str()), specs)
}

fn pattern_strategy() -> impl Strategy<Value = (KeyPattern, Vec<&'static str>)> {
    prop::collection::vec(part(), 1..=3).prop_map(|parts| {
        let (t, specs) = template(&parts);
        (KeyPattern::sort(t), specs)
    })
}

/// The small domain of values for a placeholder of `spec`: enough to make
/// texts that contain the delimiter, the escape character and the
/// literals, and numbers at both ends of their width.
fn domain(spec: &str) -> Vec<KeyValue<'static>> {
    match spec {
        ":u1" => [0u64, 1, 9].map(KeyValue::from).to_vec(),
        ":u2" => [0u64, 10, 99].map(KeyValue::from).to_vec(),
        ":i1" => [-9i64, 0, 9].map(KeyValue::from).to_vec(),
        _ => ["A", "B", "AB", "#", "\\", "A#B", "N", "0"]
            .map(KeyValue::from)
            .to_vec(),
    }
}

/// `pattern` bound every way the domain allows, for its first `count`
/// placeholders.
fn bindings(
    pattern: KeyPattern,
    specs: &[&str],
    count: usize,
) -> Vec<super::pattern::BoundPattern<'static>> {
    let mut bound = vec![pattern.bind()];
    for (i, spec) in specs.iter().enumerate().take(count) {
        let name: &'static str = Box::leak(format!("x{i}").into_boxed_str());
        bound = bound
            .into_iter()
            .flat_map(|b| {
                domain(spec)
                    .into_iter()
                    .map(move |v| b.clone().with(name, v))
            })
            .collect();
    }
    bound
}

/// Every key `pattern` renders from the domain's values (at most 8^3).
fn rendered(pattern: KeyPattern, specs: &[&str]) -> Vec<String> {
    bindings(pattern, specs, specs.len())
        .iter()
        .filter_map(|b| b.render().ok())
        .collect()
}

/// Partition key patterns from a small set, so that types often share a
/// partition.
fn shared_partition() -> impl Strategy<Value = (KeyPattern, Vec<&'static str>)> {
    const SHARED: &[(&str, &[&str])] = &[
        ("T#{x0}", &[""]),
        ("T#{x0:u1}", &[":u1"]),
        ("A", &[]),
        ("{x0}", &[""]),
    ];
    prop::sample::select(SHARED).prop_map(|(t, specs)| (KeyPattern::sort(t), specs.to_vec()))
}

fn query_text() -> impl Strategy<Value = String> {
    "[AB#\\\\OvNP0-9a]{0,6}"
}

fn in_range(key: &str, low: Bound<&str>, high: Bound<&str>) -> bool {
    (match low {
        Bound::Included(l) => key >= l,
        Bound::Excluded(l) => key > l,
        Bound::Unbounded => true,
    }) && (match high {
        Bound::Included(h) => key <= h,
        Bound::Excluded(h) => key < h,
        Bound::Unbounded => true,
    })
}

/// A bound near the rendered keys: a key, cut short or continued.
fn bound_near(keys: &[String], pick: usize, cut: usize, tail: &str, kind: u8) -> Bound<String> {
    let Some(key) = keys.get(pick % keys.len().max(1)) else {
        return Bound::Unbounded;
    };
    let chars: Vec<char> = key.chars().collect();
    let mut text: String = chars[..chars.len().saturating_sub(cut % 3)]
        .iter()
        .collect();
    text.push_str(tail);
    match kind % 3 {
        0 => Bound::Included(text),
        1 => Bound::Excluded(text),
        _ => Bound::Unbounded,
    }
}

fn as_ref(b: &Bound<String>) -> Bound<&str> {
    match b {
        Bound::Included(s) => Bound::Included(s),
        Bound::Excluded(s) => Bound::Excluded(s),
        Bound::Unbounded => Bound::Unbounded,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// `can_start_with` is true for every start of every rendered key, and
    /// its example for any text is a key of the pattern that starts with
    /// it; when there is none, no rendered key starts with the text.
    #[test]
    fn prefix_analysis_agrees_with_rendered_keys((pattern, specs) in pattern_strategy(), text in query_text()) {
        let keys = rendered(pattern, &specs);
        prop_assert!(!keys.is_empty());
        let language = pattern.language().unwrap();
        for key in &keys {
            for (end, _) in key.char_indices().chain([(key.len(), ' ')]) {
                prop_assert!(pattern.can_start_with(&key[..end]).unwrap(), "{} {:?}", pattern, &key[..end]);
            }
        }
        match language.example_with_prefix(&text) {
            Some(example) => {
                prop_assert!(example.starts_with(&text));
                prop_assert!(pattern.matches(&example), "{} {:?}", pattern, example);
                prop_assert!(pattern.can_start_with(&text).unwrap());
            }
            None => {
                prop_assert!(!pattern.can_start_with(&text).unwrap());
                prop_assert!(!keys.iter().any(|k| k.starts_with(&text)), "{} {:?}", pattern, text);
            }
        }
    }

    /// Patterns whose constant starts diverge never share a key, so the
    /// overlap analysis may skip comparing their automata.
    #[test]
    fn diverging_starts_never_intersect(
        (a, _) in pattern_strategy(),
        (b, _) in pattern_strategy(),
    ) {
        if starts_diverge(constant_prefix(a.template), constant_prefix(b.template)) {
            prop_assert!(!a.intersects(&b).unwrap(), "{} {}", a, b);
        }
    }

    /// Two patterns intersect exactly when the analysis finds a common key:
    /// its example parses with both; without one, no rendered key of either
    /// parses with the other.
    #[test]
    fn intersection_agrees_with_rendered_keys(
        (a, specs_a) in pattern_strategy(),
        (b, specs_b) in pattern_strategy(),
    ) {
        let (la, lb) = (a.language().unwrap(), b.language().unwrap());
        let example = la.common_example(&lb);
        prop_assert_eq!(example.is_some(), a.intersects(&b).unwrap());
        match example {
            Some(key) => {
                prop_assert!(a.matches(&key) && b.matches(&key), "{} {} {:?}", a, b, key);
            }
            None => {
                for key in rendered(a, &specs_a) {
                    prop_assert!(!b.matches(&key), "{} {} {:?}", a, b, key);
                }
                for key in rendered(b, &specs_b) {
                    prop_assert!(!a.matches(&key), "{} {} {:?}", a, b, key);
                }
            }
        }
    }

    /// The range analysis: an example is a key of the pattern within the
    /// bounds; without one, no rendered key is within them.
    #[test]
    fn range_analysis_agrees_with_rendered_keys(
        (pattern, specs) in pattern_strategy(),
        picks in (any::<usize>(), any::<usize>(), any::<usize>(), any::<usize>()),
        tails in ("[#A\\\\0-9\u{10FFFF}]{0,2}", "[#A\\\\0-9\u{10FFFF}]{0,2}"),
        kinds in (any::<u8>(), any::<u8>()),
    ) {
        let keys = rendered(pattern, &specs);
        let low = bound_near(&keys, picks.0, picks.1, &tails.0, kinds.0);
        let high = bound_near(&keys, picks.2, picks.3, &tails.1, kinds.1);
        let language = pattern.language().unwrap();
        match language.example_in_range(as_ref(&low), as_ref(&high)) {
            Some(example) => {
                prop_assert!(pattern.matches(&example), "{} {:?}", pattern, example);
                prop_assert!(in_range(&example, as_ref(&low), as_ref(&high)), "{:?} {:?} {:?}", example, low, high);
            }
            None => {
                for key in &keys {
                    prop_assert!(!in_range(key, as_ref(&low), as_ref(&high)), "{} {:?} {:?} {:?}", pattern, key, low, high);
                }
            }
        }
    }

    /// `range_bound` at either end over a placeholder take in exactly the
    /// rendered keys whose earlier values are bound and whose value lies
    /// between the bounds' values in key order: every key of the high
    /// value is included, whatever follows it.
    #[test]
    fn range_bounds_take_in_every_key_of_their_values(
        (pattern, specs) in pattern_strategy(),
        picks in (any::<usize>(), any::<usize>()),
    ) {
        prop_assume!(!specs.is_empty());
        let name = "x0";
        let values = domain(specs[0]);
        let (lo, hi) = (&values[picks.0 % values.len()], &values[picks.1 % values.len()]);
        let (low, high) = match (pattern.bind().range_bound(name, lo.clone(), RangeEnd::Low), pattern.bind().range_bound(name, hi.clone(), RangeEnd::High)) {
            (Ok(l), Ok(h)) => (l, h),
            // A value its placeholder cannot encode (covered elsewhere).
            _ => return Ok(()),
        };
        prop_assert!(high.len() <= crate::schema::MAX_SORT_KEY_BYTES);
        // A value's place in key order: its lower bound (the key up to
        // the next placeholder), which no other value's keys start with.
        let first_of = |v: &KeyValue<'static>| pattern.bind().range_bound(name, v.clone(), RangeEnd::Low).unwrap();
        for key in rendered(pattern, &specs) {
            let parts = pattern.parse(&key).unwrap();
            let value = parts.get(name).unwrap().clone();
            let selected = key.as_str() >= low.as_str() && key.as_str() <= high.as_str();
            let between = first_of(lo) <= first_of(&value) && first_of(&value) <= first_of(hi);
            prop_assert_eq!(selected, between, "{} {:?} in [{:?}, {:?}]", pattern, key, low, high);
        }
    }

    /// Whatever brute force finds among rendered keys (equal partition
    /// keys, and a sort key starting with the queried type's constant
    /// prefix), `find_overlaps` reports.
    #[test]
    fn overlaps_cover_every_rendered_collision(
        types in prop::collection::vec((shared_partition(), pattern_strategy()), 2..=3),
    ) {
        let names = ["T0", "T1", "T2"];
        let declarations: Vec<KeyDeclaration<'_>> = types
            .iter()
            .zip(names)
            .map(|(((pk, _), (sk, _)), name)| {
                let pk = KeyPattern::partition(pk.template());
                KeyDeclaration::new(name, IndexKeys::index("GSI1", pk).sort(*sk))
            })
            .collect();
        let found = find_overlaps(&declarations, &[]).unwrap();
        let keys: Vec<(Vec<String>, Vec<String>)> = types
            .iter()
            .map(|((pk, pks), (sk, sks))| (rendered(*pk, pks), rendered(*sk, sks)))
            .collect();
        for (q, (qpk, _)) in keys.iter().enumerate() {
            let prefix = types[q].1.0.constant_prefix().unwrap();
            for (r, (rpk, rsk)) in keys.iter().enumerate() {
                if q == r {
                    continue;
                }
                let shares_partition = qpk.iter().any(|k| rpk.contains(k));
                let reaches = rsk.iter().any(|k| k.starts_with(prefix));
                if shares_partition && reaches {
                    prop_assert!(
                        found.iter().any(|o| o.queried == names[q] && o.returned == names[r]),
                        "{:?} misses {} -> {}", declarations, names[q], names[r]
                    );
                }
            }
        }
    }

    /// What a key condition selects: a declaration is selected exactly
    /// when one of its rendered keys is (checked both ways through its
    /// example), for a partition value and a prefix or range taken near
    /// the rendered keys.
    #[test]
    fn selection_agrees_with_rendered_keys(
        ((pk, pks), (sk, sks)) in (pattern_strategy(), pattern_strategy()),
        picks in (any::<usize>(), any::<usize>(), any::<usize>(), any::<usize>()),
        text in query_text(),
        kinds in (any::<u8>(), any::<u8>(), 0u8..3),
    ) {
        let pk = KeyPattern::partition(pk.template());
        let keys = IndexKeys::table(pk).sort(sk);
        let partitions = rendered(pk, &pks);
        let sorts = rendered(sk, &sks);
        let partition = partitions[picks.0 % partitions.len()].clone();
        let partition = if kinds.2 == 0 { format!("{partition}x") } else { partition };
        let low = bound_near(&sorts, picks.1, picks.2, "", kinds.0);
        let high = bound_near(&sorts, picks.3, picks.2, "\u{10FFFF}", kinds.1);
        let sort = match kinds.2 {
            0 | 1 => SortSelection::Prefix(&text),
            _ => SortSelection::Range(as_ref(&low), as_ref(&high)),
        };
        let selects = |key: &str| match sort {
            SortSelection::Prefix(p) => key.starts_with(p),
            SortSelection::Range(l, h) => in_range(key, l, h),
            SortSelection::Any => true,
            SortSelection::NotText => false,
        };
        let selection = Selection { partition: Some(&partition), sort };
        let partition_matches = partitions.contains(&partition);
        match keys.selected_example(&selection).unwrap() {
            Some(Some(example)) => {
                prop_assert!(pk.matches(&partition));
                prop_assert!(sk.matches(&example) && selects(&example), "{} {:?}", sk, example);
            }
            Some(None) => prop_assert!(false, "a sort key condition needs an example"),
            None => {
                let any = partition_matches && sorts.iter().any(|k| selects(k));
                prop_assert!(!any, "{} {} {:?} {:?}", pk, sk, partition, selection);
            }
        }
    }
}

#[test]
fn a_prefix_inside_a_segment_reaches_the_longer_segment() {
    let user = KeyPattern::sort("USER#{id}");
    let group = KeyPattern::sort("USERGROUP#{id}");
    let pk = KeyPattern::partition("TENANT#{t}");
    let reached = |p: KeyPattern, sort: SortSelection<'_>| {
        let selection = Selection {
            partition: Some("TENANT#acme"),
            sort,
        };
        IndexKeys::table(pk)
            .sort(p)
            .selected_example(&selection)
            .unwrap()
    };
    assert!(reached(group, SortSelection::Prefix("USER")).is_some());
    assert!(reached(user, SortSelection::Prefix("USER")).is_some());
    assert!(reached(group, SortSelection::Prefix("USER#")).is_none());
    // A range ending at `USER#~` reaches no group.
    let range = SortSelection::Range(Bound::Included("USER#"), Bound::Included("USER#~"));
    assert!(reached(group, range).is_none());
    assert!(reached(user, range).is_some());
    // Another tenant's partition is not reached.
    let other = Selection {
        partition: Some("TENANT"),
        sort: SortSelection::Any,
    };
    assert!(
        IndexKeys::table(pk)
            .sort(user)
            .selected_example(&other)
            .unwrap()
            .is_none()
    );
}

#[test]
fn the_last_key_with_a_prefix_is_above_every_key_with_it() {
    use super::format::last_sort_key_with_prefix;
    for prefix in [
        "",
        "A#",
        "DAY#2025-01-05#",
        &"x".repeat(1021),
        &"x".repeat(1022),
        &"x".repeat(1023),
    ] {
        let last = last_sort_key_with_prefix(prefix);
        assert_eq!(last.len(), 1024, "{prefix:?}");
        assert!(last.starts_with(prefix));
        let room = 1024 - prefix.len();
        // The greatest keys of each shape that fit.
        for tail in [
            "\u{10FFFF}".repeat(room / 4) + &"\u{7F}".repeat(room % 4),
            "\u{10FFFF}".repeat(room / 4),
            "\u{FFFF}".repeat(room / 3),
            "\u{7FF}".repeat(room / 2),
            "\u{7F}".repeat(room),
        ] {
            let key = format!("{prefix}{tail}");
            assert!(key.len() <= 1024);
            assert!(key <= last, "{prefix:?} {tail:?}");
        }
    }
    // Over the limit: returned as it is.
    let long = "y".repeat(1030);
    assert_eq!(last_sort_key_with_prefix(&long), long);
}

/// Every prefix `pattern` renders (`BoundPattern::prefix`) with values
/// from the domain for its first `bound` placeholders.
fn rendered_prefixes(pattern: KeyPattern, specs: &[&str], bound: usize) -> Vec<String> {
    bindings(pattern, specs, bound)
        .iter()
        .filter_map(|b| b.prefix().ok())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// An access pattern's query (a `begins_with` on the prefix a pattern
    /// renders with its first placeholders bound, for any values) reaches
    /// another pattern's keys whenever some rendered prefix starts some
    /// rendered key; its example is always a key of that pattern.
    #[test]
    fn a_prefix_shape_reaches_what_its_prefixes_select(
        (query, query_specs) in pattern_strategy(),
        (other, other_specs) in pattern_strategy(),
        bound in 0usize..4,
    ) {
        let names: Vec<&'static str> = (0..bound.min(query_specs.len()))
            .map(|i| &*Box::leak(format!("x{i}").into_boxed_str()))
            .collect();
        let reached = other
            .language()
            .unwrap()
            .example_starting_with(&query.prefix_language(&names).unwrap());
        let prefixes = rendered_prefixes(query, &query_specs, names.len());
        let keys = rendered(other, &other_specs);
        let brute = prefixes.iter().any(|p| keys.iter().any(|k| k.starts_with(p.as_str())));
        if brute {
            prop_assert!(reached.is_some(), "{prefixes:?} start keys of {other:?} but the shape says no");
        }
        if let Some(example) = reached {
            prop_assert!(other.matches(&example), "{example:?} is not a key of {other:?}");
        }
    }
}
