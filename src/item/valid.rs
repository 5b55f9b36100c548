//! The checks DynamoDB applies to every value (numbers, sets, attribute
//! names, nesting depth), on items written and items received, walking the
//! item without recursion so any depth is safe.

use aws_sdk_dynamodb::types::AttributeValue;

use super::number::{checked_number_size, parse_decimal};
use super::size::scalar_size;
use super::{Item, MAX_ITEM_SIZE};
use crate::describe::{shorten, shown};
use crate::error::{Error, Result};

/// The longest attribute name DynamoDB documents (64 KB).
const MAX_NAME_BYTES: usize = 65_536;

/// How deep lists and maps may nest inside a top-level attribute: DynamoDB
/// documents "nested attributes up to 32 levels deep", and rejects a 32nd
/// nested list or map (measured against DynamoDB Local).
pub(crate) const MAX_NESTING: usize = 31;

/// Checks every value of an item as DynamoDB would and returns the item size.
///
/// Rejects invalid numbers (NaN, infinity, more than 38 significant digits, out
/// of range), empty sets, sets with duplicates, empty or over-long attribute
/// names, lists and maps nested too deep, and values of a type this SDK
/// version does not know. Errors name the attribute path. Walks the item
/// without recursion (see [`walk`]), so any depth is safe.
pub(crate) fn check_values<'a, I>(item: I) -> Result<usize>
where
    I: IntoIterator<Item = (&'a String, &'a AttributeValue)> + Clone,
{
    // Most items pass: a quick look sizes them without building any path;
    // only an item it doubts is walked, to say where and why.
    let quick = item.clone().into_iter().try_fold(0, |size, (name, value)| {
        check_name(name).ok()?;
        // Strings, most attributes, are sized without a call.
        let value_size = match value {
            AttributeValue::S(s) => s.len(),
            _ => quick_size(value, 1)?,
        };
        Some(size + name.len() + value_size)
    });
    match quick {
        Some(size) => Ok(size),
        None => walk_values(item),
    }
}

/// The size of `value`, at `depth` (a top-level attribute's own value is
/// 1), when it certainly passes [`check_values`]: `None` is "walk it". It
/// recurses, but never below a list or map deeper than [`MAX_NESTING`], so
/// no value can exhaust the stack. Sizes as [`walk_values`] counts them.
fn quick_size(value: &AttributeValue, depth: usize) -> Option<usize> {
    Some(match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::B(_) | AttributeValue::Bool(_) | AttributeValue::Null(_) => {
            scalar_size(value)
        }
        AttributeValue::N(n) => checked_number_size(n).ok()?,
        AttributeValue::L(list) => {
            if depth > MAX_NESTING {
                return None;
            }
            list.iter()
                .try_fold(3, |size, v| Some(size + 1 + quick_size(v, depth + 1)?))?
        }
        AttributeValue::M(map) => {
            if depth > MAX_NESTING {
                return None;
            }
            map.iter().try_fold(3, |size, (k, v)| {
                check_name(k).ok()?;
                Some(size + 1 + k.len() + quick_size(v, depth + 1)?)
            })?
        }
        AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_) => {
            check_set(value).ok()?
        }
        _ => return None,
    })
}

/// [`check_values`] by the walk alone, which builds the path of what it
/// finds wrong.
fn walk_values<'a>(
    item: impl IntoIterator<Item = (&'a String, &'a AttributeValue)>,
) -> Result<usize> {
    let mut size = 0;
    let mut frames = Frames::new();
    for (name, value) in item {
        check_name(name).map_err(|reason| Error::invalid_value(shorten(name), reason))?;
        size += name.len();
        walk(&mut frames, name, value, |value, step| {
            size += match step {
                Step::Attribute => 0,
                Step::Index(_) => 1,
                Step::Name(k) => {
                    check_name(k)?;
                    1 + k.len()
                }
            };
            size += match value {
                AttributeValue::L(_) | AttributeValue::M(_) => 3,
                AttributeValue::N(n) => checked_number_size(n)?,
                AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_) => {
                    check_set(value)?
                }
                AttributeValue::S(_)
                | AttributeValue::B(_)
                | AttributeValue::Bool(_)
                | AttributeValue::Null(_) => scalar_size(value),
                _ => return Err(UNKNOWN_TYPE.into()),
            };
            Ok(())
        })
        .map_err(|(path, reason)| Error::invalid_value(path, reason))?;
    }
    Ok(size)
}

/// Checks an item as it was received, before anything else looks at it:
/// lists and maps nested at most [`MAX_NESTING`] deep (checked without
/// recursion, so later recursive code only ever sees bounded depth), and
/// sets as DynamoDB keeps them: not empty, valid numbers, no duplicate
/// members (numbers compared by value); no string or binary value larger
/// than a whole item can be (409,600 bytes). In the attributes `read` says will
/// be deserialized, also no value of a type this SDK version does not know
/// (other attributes may keep one, as DynamoDB may add types). Numbers
/// outside sets are checked when they are read, against the type they are
/// read into.
pub(crate) fn check_received(item: &Item, read: impl Fn(&str) -> bool) -> Result<()> {
    // Most items pass: a quick look says so without building any path; only
    // an item it doubts is walked, to say where and why (or to find that an
    // unknown type sits where nothing reads it).
    // Scalars, most attributes, pass without a call.
    let passes = |value: &AttributeValue| match value {
        AttributeValue::S(s) => s.len() <= MAX_ITEM_SIZE,
        AttributeValue::B(b) => b.as_ref().len() <= MAX_ITEM_SIZE,
        AttributeValue::N(_) | AttributeValue::Bool(_) | AttributeValue::Null(_) => true,
        _ => passes_received(value, 1),
    };
    if item.values().all(passes) {
        return Ok(());
    }
    walk_received(item, read)
}

/// Why a received value of `len` bytes cannot be: no item DynamoDB stores
/// holds it.
fn too_large(what: &str, len: usize) -> String {
    format!(
        "is a {what} of {len} bytes, more than an item of at most {MAX_ITEM_SIZE} bytes can \
         hold: no item DynamoDB stores has it"
    )
}

/// [`check_received`] by the walk alone, which builds the path of what it
/// finds wrong.
fn walk_received(item: &Item, read: impl Fn(&str) -> bool) -> Result<()> {
    let mut frames = Frames::new();
    for (name, value) in item {
        walk(&mut frames, name, value, |value, _| match value {
            AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_) => {
                check_set(value).map(drop)
            }
            AttributeValue::S(s) if s.len() > MAX_ITEM_SIZE => Err(too_large("string", s.len())),
            AttributeValue::B(b) if b.as_ref().len() > MAX_ITEM_SIZE => {
                Err(too_large("binary value", b.as_ref().len()))
            }
            AttributeValue::S(_)
            | AttributeValue::N(_)
            | AttributeValue::B(_)
            | AttributeValue::Bool(_)
            | AttributeValue::Null(_)
            | AttributeValue::L(_)
            | AttributeValue::M(_) => Ok(()),
            _ if read(name) => Err(UNKNOWN_TYPE.into()),
            _ => Ok(()),
        })
        .map_err(|(path, reason)| Error::invalid_value(path, reason))?;
    }
    Ok(())
}

/// Whether `value`, at `depth` (a top-level attribute's own value is 1),
/// certainly passes [`check_received`]: lists and maps at most
/// [`MAX_NESTING`] deep, sets valid, every type known. It recurses, but
/// never below a list or map deeper than [`MAX_NESTING`], so no value can
/// exhaust the stack. `false` is "walk it": a value of an unknown type may
/// still pass where nothing reads it.
fn passes_received(value: &AttributeValue, depth: usize) -> bool {
    match value {
        AttributeValue::S(s) => s.len() <= MAX_ITEM_SIZE,
        AttributeValue::B(b) => b.as_ref().len() <= MAX_ITEM_SIZE,
        AttributeValue::N(_) | AttributeValue::Bool(_) | AttributeValue::Null(_) => true,
        AttributeValue::L(list) => {
            depth <= MAX_NESTING && list.iter().all(|v| passes_received(v, depth + 1))
        }
        AttributeValue::M(map) => {
            depth <= MAX_NESTING && map.values().all(|v| passes_received(v, depth + 1))
        }
        AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_) => {
            check_set(value).is_ok()
        }
        _ => false,
    }
}

/// Checks only that lists and maps in `item` nest at most [`MAX_NESTING`]
/// deep, without recursion.
pub(crate) fn check_depth<'a>(
    item: impl IntoIterator<Item = (&'a String, &'a AttributeValue)>,
) -> Result<()> {
    let mut frames = Frames::new();
    for (name, value) in item {
        walk(&mut frames, name, value, |_, _| Ok(()))
            .map_err(|(path, reason)| Error::invalid_value(path, reason))?;
    }
    Ok(())
}

pub(crate) fn check_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() {
        return Err("has an empty name; DynamoDB rejects empty attribute names".into());
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(format!(
            "has a name of {} bytes, over DynamoDB's limit of {MAX_NAME_BYTES} bytes",
            name.len()
        ));
    }
    Ok(())
}

/// (attribute path, reason)
type PathError = (String, String);

/// How the walk reached a value.
#[derive(Clone, Copy)]
enum Step<'a> {
    /// The top-level attribute's own value.
    Attribute,
    /// An element of a list.
    Index(usize),
    /// An entry of a map, by its name.
    Name(&'a str),
}

/// The walk's stack: the lists and maps it is inside, and how it got there.
type Frames<'a> = Vec<(Children<'a>, Step<'a>)>;

/// The elements of a list or map still to visit.
enum Children<'a> {
    List(std::iter::Enumerate<std::slice::Iter<'a, AttributeValue>>),
    Map(std::collections::hash_map::Iter<'a, String, AttributeValue>),
}

fn too_deep() -> String {
    format!(
        "nests lists and maps {} or more levels deep; DynamoDB allows {MAX_NESTING} \
         (values at most 32 levels deep)",
        MAX_NESTING + 1
    )
}

/// Visits `value` (the attribute `name`) and everything inside it, depth
/// first, with an explicit stack of at most [`MAX_NESTING`] frames instead of
/// recursion: a list or map nested deeper is an error before anything inside
/// it is visited, so a value of any depth (a hand-built item 100,000 levels
/// deep) is refused without overflowing the stack. `visit` sees each value
/// and how it was reached; its error, and the depth error, come back with
/// the value's attribute path (`lines[2].price`).
///
/// `frames` is scratch space (reused across attributes: one allocation per
/// item at most), empty when the walk succeeds.
fn walk<'a>(
    frames: &mut Frames<'a>,
    name: &'a str,
    value: &'a AttributeValue,
    mut visit: impl FnMut(&'a AttributeValue, Step<'a>) -> std::result::Result<(), String>,
) -> std::result::Result<(), PathError> {
    frames.clear();
    let mut next = Some((value, Step::Attribute));
    loop {
        if let Some((value, step)) = next.take() {
            // A top-level attribute's own value is depth 1.
            let depth = frames.len() + 1;
            let children = match value {
                AttributeValue::L(list) => Some(Children::List(list.iter().enumerate())),
                AttributeValue::M(map) => Some(Children::Map(map.iter())),
                _ => None,
            };
            let checked = if children.is_some() && depth > MAX_NESTING {
                Err(too_deep())
            } else {
                visit(value, step)
            };
            if let Err(reason) = checked {
                return Err((path_of(name, frames, step), reason));
            }
            if let Some(children) = children {
                frames.push((children, step));
            }
        }
        let Some((children, _)) = frames.last_mut() else {
            return Ok(());
        };
        next = match children {
            Children::List(iter) => iter.next().map(|(i, v)| (v, Step::Index(i))),
            Children::Map(iter) => iter.next().map(|(k, v)| (v, Step::Name(k.as_str()))),
        };
        if next.is_none() {
            frames.pop();
        }
    }
}

/// The attribute path of a value the walk reached by `last`.
fn path_of(name: &str, frames: &[(Children<'_>, Step<'_>)], last: Step<'_>) -> String {
    use std::fmt::Write as _;
    let mut path = shorten(name).into_owned();
    for step in frames.iter().map(|(_, step)| *step).chain([last]) {
        let _ = match step {
            Step::Attribute => Ok(()),
            Step::Index(i) => write!(path, "[{i}]"),
            Step::Name(k) => write!(path, ".{}", shorten(k)),
        };
    }
    path
}

/// Checks a set (`SS`, `NS`, `BS`) as DynamoDB does and returns its size:
/// not empty, valid numbers, no duplicate members (numbers compared by
/// value, so `1` and `1.0` are duplicates).
fn check_set(value: &AttributeValue) -> std::result::Result<usize, String> {
    match value {
        AttributeValue::Ns(set) => {
            if set.is_empty() {
                return Err("is an empty number set; DynamoDB rejects empty sets".into());
            }
            let mut size = 0;
            let mut canonical = Vec::with_capacity(set.len());
            for n in set {
                let d = parse_decimal(n)?;
                size += d.size();
                canonical.push((d.canonical(), n.as_str()));
            }
            canonical.sort_unstable();
            if let Some(w) = canonical.windows(2).find(|w| w[0].0 == w[1].0) {
                let (a, b) = (shown(w[0].1), shown(w[1].1));
                return Err(if a == b {
                    format!(
                        "is a set with the duplicate value {a}; DynamoDB rejects duplicates in sets"
                    )
                } else {
                    format!(
                        "is a set with the duplicate value {a} (also as {b}); DynamoDB rejects \
                         duplicates in sets"
                    )
                });
            }
            Ok(size)
        }
        AttributeValue::Ss(set) => {
            if set.is_empty() {
                return Err("is an empty string set; DynamoDB rejects empty sets".into());
            }
            check_unique(set.iter().map(String::as_str).collect())?;
            Ok(set.iter().map(String::len).sum())
        }
        AttributeValue::Bs(set) => {
            if set.is_empty() {
                return Err("is an empty binary set; DynamoDB rejects empty sets".into());
            }
            check_unique(set.iter().map(|b| b.as_ref()).collect())?;
            Ok(set.iter().map(|b| b.as_ref().len()).sum())
        }
        _ => Ok(0),
    }
}

pub(crate) const UNKNOWN_TYPE: &str =
    "has a type this SDK version does not know (AttributeValue::Unknown)";

fn check_unique<T: Ord + std::fmt::Debug>(mut v: Vec<T>) -> std::result::Result<(), String> {
    v.sort_unstable();
    match v.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(format!(
            "is a set with the duplicate value {:?}; DynamoDB rejects duplicates in sets",
            w[0]
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::item::drop_item;
    use crate::item::size::value_size;
    use aws_sdk_dynamodb::primitives::Blob;

    #[test]
    fn number_set_duplicates_compare_values() {
        for dup in [
            ["1", "1e0"],
            ["10", "1e1"],
            ["0", "-0"],
            ["01", "1"],
            ["1.50", "1.5"],
            ["+1", "1"],
            ["100", "1e2"],
            ["0.0", "0e5"],
            ["0.001", "1e-3"],
            ["1e2", "10e1"],
        ] {
            let item = Item::from([(
                "x".to_string(),
                AttributeValue::Ns(dup.iter().map(|s| (*s).to_owned()).collect()),
            )]);
            let err = check_values(&item).unwrap_err().to_string();
            assert!(err.contains("duplicate"), "{dup:?}: {err}");
        }
        let item = Item::from([(
            "x".to_string(),
            AttributeValue::Ns(vec!["-1".into(), "1".into(), "0.1".into(), "1e-2".into()]),
        )]);
        assert!(check_values(&item).is_ok());
    }

    #[test]
    fn names_and_nesting() {
        let nested = |levels: usize| {
            let mut v = AttributeValue::L(vec![]);
            for _ in 1..levels {
                v = AttributeValue::L(vec![v]);
            }
            Item::from([("d".to_string(), v)])
        };
        assert!(check_values(&nested(31)).is_ok());
        assert_eq!(
            check_values(&nested(32)).unwrap_err().to_string(),
            format!(
                "attribute `d{}` nests lists and maps 32 or more levels deep; DynamoDB allows 31 \
                 (values at most 32 levels deep)",
                "[0]".repeat(31)
            )
        );
        let empty = Item::from([(String::new(), AttributeValue::Bool(true))]);
        assert_eq!(
            check_values(&empty).unwrap_err().to_string(),
            "attribute `` has an empty name; DynamoDB rejects empty attribute names"
        );
        let empty_key = Item::from([(
            "m".to_string(),
            AttributeValue::M(HashMap::from([(String::new(), AttributeValue::Bool(true))])),
        )]);
        assert_eq!(
            check_values(&empty_key).unwrap_err().to_string(),
            "attribute `m.` has an empty name; DynamoDB rejects empty attribute names"
        );
        let long = Item::from([("é".repeat(32_769), AttributeValue::Bool(true))]);
        assert_eq!(
            check_values(&long).unwrap_err().to_string(),
            format!(
                "attribute `{}…` has a name of 65538 bytes, over DynamoDB's limit of 65536 bytes",
                "é".repeat(32)
            )
        );
        let max = Item::from([("x".repeat(65_536), AttributeValue::Bool(true))]);
        assert_eq!(check_values(&max).unwrap(), 65_537);
    }

    #[test]
    fn value_checks_name_the_path() {
        let item = Item::from([(
            "lines".to_string(),
            AttributeValue::L(vec![AttributeValue::M(HashMap::from([(
                "tags".to_string(),
                AttributeValue::Ss(vec![]),
            )]))]),
        )]);
        let err = check_values(&item).unwrap_err();
        assert_eq!(
            err.to_string(),
            "attribute `lines[0].tags` is an empty string set; DynamoDB rejects empty sets"
        );
        let item = Item::from([(
            "x".to_string(),
            AttributeValue::Ns(vec!["1".into(), "1.0".into()]),
        )]);
        assert!(
            check_values(&item)
                .unwrap_err()
                .to_string()
                .contains("duplicate")
        );
        let item = Item::from([("x".to_string(), AttributeValue::N("NaN".into()))]);
        assert_eq!(
            check_values(&item).unwrap_err().to_string(),
            "attribute `x` is not a number: \"NaN\""
        );
    }

    #[test]
    fn received_items_are_checked_without_recursion() {
        let read_all = |_: &str| true;
        // Sets as DynamoDB never stores them.
        for (value, message) in [
            (
                AttributeValue::Ss(vec![]),
                "attribute `x` is an empty string set; DynamoDB rejects empty sets",
            ),
            (
                AttributeValue::Ns(vec!["1".into(), "1.0".into()]),
                "attribute `x` is a set with the duplicate value 1 (also as 1.0); DynamoDB \
                 rejects duplicates in sets",
            ),
            (
                AttributeValue::Bs(vec![Blob::new(vec![1]), Blob::new(vec![1])]),
                "attribute `x` is a set with the duplicate value [1]; DynamoDB rejects \
                 duplicates in sets",
            ),
        ] {
            let item = Item::from([("x".to_string(), value)]);
            assert_eq!(
                check_received(&item, read_all).unwrap_err().to_string(),
                message
            );
        }
        // Deep inside lists and maps, with the path.
        let item = Item::from([(
            "m".to_string(),
            AttributeValue::M(HashMap::from([(
                "k".to_string(),
                AttributeValue::L(vec![AttributeValue::Null(true), AttributeValue::Ns(vec![])]),
            )])),
        )]);
        assert_eq!(
            check_received(&item, read_all).unwrap_err().attribute(),
            Some("m.k[1]")
        );
        // A string or binary value no stored item can hold (#29), at the top
        // and inside a map; one of exactly the limit passes.
        let big = "x".repeat(MAX_ITEM_SIZE + 1);
        for (item, path, what) in [
            (
                Item::from([("s".to_string(), AttributeValue::S(big.clone()))]),
                "s",
                "string",
            ),
            (
                Item::from([(
                    "m".to_string(),
                    AttributeValue::M(HashMap::from([(
                        "b".to_string(),
                        AttributeValue::B(Blob::new(big.clone().into_bytes())),
                    )])),
                )]),
                "m.b",
                "binary value",
            ),
        ] {
            assert_eq!(
                check_received(&item, read_all).unwrap_err().to_string(),
                format!(
                    "attribute `{path}` is a {what} of 409601 bytes, more than an item of at \
                     most 409600 bytes can hold: no item DynamoDB stores has it"
                )
            );
        }
        let item = Item::from([("s".to_string(), AttributeValue::S(big[1..].to_owned()))]);
        assert!(check_received(&item, read_all).is_ok());
        // (A type this SDK does not know: `tests/mapper.rs`, which can make one.)
        // Depth, whatever it is, in constant stack: 200,000 levels.
        let mut deep = AttributeValue::Null(true);
        for _ in 0..200_000 {
            deep = AttributeValue::L(vec![deep]);
        }
        let item = Item::from([("d".to_string(), deep)]);
        let err = check_received(&item, read_all).unwrap_err();
        assert_eq!(
            err.attribute(),
            Some(format!("d{}", "[0]".repeat(31)).as_str())
        );
        assert_eq!(value_size(&item["d"]), 4 * 200_000 + 1);
        drop_item(item); // the derived `Drop` would overflow
    }

    /// Items holding `leaf` under `depth` lists or maps (beside a scalar at
    /// each level), for every leaf, both ways, at the depths around the
    /// nesting limit: `(depth, leaf, in a map, item)`.
    fn around_the_limit(
        leaves: &[AttributeValue],
    ) -> impl Iterator<Item = (usize, &AttributeValue, bool, Item)> {
        (0..=MAX_NESTING + 2).flat_map(move |depth| {
            leaves.iter().flat_map(move |leaf| {
                [false, true].into_iter().map(move |in_map| {
                    let mut value = leaf.clone();
                    for _ in 0..depth {
                        value = if in_map {
                            AttributeValue::M(HashMap::from([
                                ("key".to_string(), value),
                                ("n".to_string(), AttributeValue::N("10".into())),
                            ]))
                        } else {
                            AttributeValue::L(vec![AttributeValue::S("x".into()), value])
                        };
                    }
                    let item = Item::from([
                        ("a".to_string(), AttributeValue::N("42".into())),
                        ("v".to_string(), value),
                    ]);
                    (depth, leaf, in_map, item)
                })
            })
        })
    }

    /// The quick look never passes what the walk refuses, at the depths
    /// around the limit, with sets valid and not, in lists and maps.
    #[test]
    fn the_quick_look_agrees_with_the_walk() {
        let read_all = |_: &str| true;
        let leaves = [
            AttributeValue::Null(true),
            AttributeValue::Ns(vec!["1".into(), "2".into()]),
            AttributeValue::Ns(vec!["1".into(), "1.0".into()]),
            AttributeValue::Ss(vec![]),
            AttributeValue::L(vec![]),
            AttributeValue::M(HashMap::new()),
        ];
        for (depth, leaf, in_map, item) in around_the_limit(&leaves) {
            let walked = walk_received(&item, read_all);
            let quick = item.values().all(|v| passes_received(v, 1));
            assert!(
                !quick || walked.is_ok(),
                "depth {depth}, {leaf:?}, in_map {in_map}: quick look passed {walked:?}"
            );
            assert_eq!(
                check_received(&item, read_all).map_err(|e| e.to_string()),
                walked.map_err(|e| e.to_string())
            );
            // Valid items at any depth the limit allows pass quickly.
            let valid = !matches!(leaf, AttributeValue::Ns(n) if n.len() == 2 && n[1] == "1.0")
                && !matches!(leaf, AttributeValue::Ss(s) if s.is_empty());
            let leaf_is_container = matches!(leaf, AttributeValue::L(_) | AttributeValue::M(_));
            if valid && depth + usize::from(leaf_is_container) <= MAX_NESTING {
                assert!(
                    quick,
                    "depth {depth}, {leaf:?}: a valid item takes the walk"
                );
            }
        }
    }

    /// The quick look sizes every item as the walk does, and passes nothing
    /// the walk refuses: depths around the limit, numbers, sets, names.
    #[test]
    fn the_quick_size_agrees_with_the_walk() {
        let leaves = [
            AttributeValue::S("text".into()),
            AttributeValue::N("-1200".into()),
            AttributeValue::N("3.25e-7".into()),
            AttributeValue::N("NaN".into()),
            AttributeValue::N("9".repeat(39)),
            AttributeValue::B(Blob::new(vec![1, 2, 3])),
            AttributeValue::Bool(true),
            AttributeValue::Null(true),
            AttributeValue::Ns(vec!["1".into(), "2.5".into()]),
            AttributeValue::Ns(vec!["1".into(), "1.0".into()]),
            AttributeValue::Ss(vec![]),
            AttributeValue::Bs(vec![Blob::new(vec![1])]),
            AttributeValue::L(vec![]),
            AttributeValue::M(HashMap::new()),
            AttributeValue::M(HashMap::from([(String::new(), AttributeValue::Null(true))])),
        ];
        for (depth, leaf, in_map, item) in around_the_limit(&leaves) {
            let walked = walk_values(&item).map_err(|e| e.to_string());
            let quick: Option<usize> = item
                .iter()
                .map(|(name, value)| Some(name.len() + quick_size(value, 1)?))
                .sum();
            assert_eq!(
                quick.is_some(),
                walked.is_ok(),
                "depth {depth}, {leaf:?}, in_map {in_map}: the quick look declines only what the walk refuses"
            );
            if let Some(size) = quick {
                assert_eq!(Ok(size), walked, "depth {depth}, {leaf:?}, in_map {in_map}");
            }
            assert_eq!(check_values(&item).map_err(|e| e.to_string()), walked);
        }
        // An empty or over-long top-level name is the walk's to report.
        for name in [String::new(), "n".repeat(MAX_NAME_BYTES + 1)] {
            let item = Item::from([(name, AttributeValue::Null(true))]);
            assert!(check_values(&item).is_err());
        }
    }
}
