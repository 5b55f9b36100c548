//! Expression building (`dynamodb_mapper::expr`) from arbitrary attribute
//! paths, values and combinations: never a panic, and every expression built
//! is well-formed by the crate's own checked constructor (every placeholder
//! used is bound, every bound one is used), also after `and`, `or` and `!`.
#![no_main]

use arbitrary::{Arbitrary, Result, Unstructured};
use dynamodb_mapper::expr::{Attr, Condition, Expression, KeyCondition, Operand, ValueType, attr};
use dynamodb_mapper::{GlobalSecondaryIndex, ScalarType, TableSchema};
use dynamodb_mapper_support::fuzz;
use libfuzzer_sys::fuzz_target;

const PATHS: &[&str] = &[
    "a",
    "status",
    "name",
    "size",
    "a.b",
    "lines[0].qty",
    "m.k[3][4].z",
    "",
    ".",
    "a.",
    ".a",
    "a..b",
    "[0]",
    "a[",
    "a[x]",
    "a[]",
    "a[-1]",
    "a[99999999999999999999]",
    "#x",
    ":v",
    "a b",
    "é",
    "a\u{0}b",
    "#c0",
    ":c0",
    "dmType",
    "pk",
    "sk",
    "gsi1pk",
];

const PREFIXES: &[&str] = &["c", "k", "x", "", "#", ":", "c0", "dmType", "a b", "é"];

const TABLES: [TableSchema; 3] = [
    TableSchema::new("pk").sort_key("sk"),
    TableSchema::new("pk"),
    TableSchema::new("id")
        .partition_key_type(ScalarType::N)
        .typed_sort_key("at", ScalarType::B)
        .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]),
];

fn path(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(if u.ratio(3u8, 4u8)? {
        PATHS[u.choose_index(PATHS.len())?].to_owned()
    } else {
        String::arbitrary(u)?
    })
}

fn an_attr(u: &mut Unstructured<'_>) -> Result<Attr> {
    let p = path(u)?;
    Ok(if u.ratio(1u8, 4u8)? {
        Attr::top_level(p)
    } else {
        attr(p)
    })
}

fn operand(u: &mut Unstructured<'_>) -> Result<Operand> {
    Ok(match u.int_in_range(0u8..=5)? {
        0 => an_attr(u)?.into(),
        1 => an_attr(u)?.size().into(),
        2 => path(u)?.into(),
        3 => bool::arbitrary(u)?.into(),
        _ => fuzz::value(u, 2)?.into(),
    })
}

const TYPES: [ValueType; 10] = [
    ValueType::String,
    ValueType::StringSet,
    ValueType::Number,
    ValueType::NumberSet,
    ValueType::Binary,
    ValueType::BinarySet,
    ValueType::Bool,
    ValueType::Null,
    ValueType::List,
    ValueType::Map,
];

fn condition(u: &mut Unstructured<'_>, depth: usize) -> Result<Condition> {
    let leaf = depth >= 4 || u.ratio(1u8, 2u8)?;
    if !leaf {
        return Ok(match u.int_in_range(0u8..=4)? {
            0 => condition(u, depth + 1)?.and(condition(u, depth + 1)?),
            1 => condition(u, depth + 1)?.or(condition(u, depth + 1)?),
            2 => !condition(u, depth + 1)?,
            3 => Condition::all(
                (0..u.int_in_range(0usize..=3)?)
                    .map(|_| condition(u, depth + 1))
                    .collect::<Result<Vec<_>>>()?,
            ),
            _ => Condition::any(
                (0..u.int_in_range(0usize..=3)?)
                    .map(|_| condition(u, depth + 1))
                    .collect::<Result<Vec<_>>>()?,
            ),
        });
    }
    let a = an_attr(u)?;
    Ok(match u.int_in_range(0u8..=15)? {
        0 => a.eq(operand(u)?),
        1 => a.ne(operand(u)?),
        2 => a.lt(operand(u)?),
        3 => a.le(operand(u)?),
        4 => a.gt(operand(u)?),
        5 => a.ge(operand(u)?),
        6 => a.between(operand(u)?, operand(u)?),
        7 => {
            // Up to past DynamoDB's 100 values of one IN.
            let n = if u.ratio(1u8, 8u8)? {
                u.int_in_range(95usize..=105)?
            } else {
                u.int_in_range(0usize..=4)?
            };
            a.is_in((0..n).map(|_| operand(u)).collect::<Result<Vec<_>>>()?)
        }
        8 => a.begins_with(operand(u)?),
        9 => a.contains(operand(u)?),
        10 => a.exists(),
        11 => a.not_exists(),
        12 => a.has_type(TYPES[u.choose_index(TYPES.len())?]),
        13 => a.size().eq(operand(u)?),
        14 => a.size().between(operand(u)?, operand(u)?),
        _ => a.size().ge(operand(u)?),
    })
}

fn key_condition(u: &mut Unstructured<'_>) -> Result<KeyCondition> {
    let mut k = KeyCondition::new(TABLES[u.choose_index(TABLES.len())?], operand(u)?);
    if u.ratio(1u8, 4u8)? {
        k = k.on_index(["GSI1", "GSI9", ""][u.choose_index(3)?]);
    }
    for _ in 0..u.int_in_range(0u8..=2)? {
        // Key attributes of the tables, and attributes that are not.
        let sk = ["sk", "gsi1sk", "at", "pk", "gsi1pk", "other", "a.b"][u.choose_index(7)?];
        k = match u.int_in_range(0u8..=7)? {
            0 => k.and(attr(sk).eq(operand(u)?)),
            1 => k.and(attr(sk).lt(operand(u)?)),
            2 => k.and(attr(sk).le(operand(u)?)),
            3 => k.and(attr(sk).gt(operand(u)?)),
            4 => k.and(attr(sk).ge(operand(u)?)),
            5 => k.and(attr(sk).between(operand(u)?, operand(u)?)),
            6 => k.and(attr(sk).begins_with(operand(u)?)),
            // Anything a condition can be, most of which a key condition refuses.
            _ => k.and(condition(u, 0)?),
        };
    }
    Ok(k)
}

/// Checked by the crate's own constructor: every placeholder in the text is
/// bound and every bound one appears.
fn well_formed(e: &Expression) {
    let (text, names, values) = e.clone().into_parts();
    let checked = Expression::new(text.clone(), names.clone(), values.clone())
        .unwrap_or_else(|err| panic!("{text:?} {names:?} {values:?}: {err}"));
    assert_eq!(&checked, e);
}

fn prefix(u: &mut Unstructured<'_>) -> Result<&'static str> {
    Ok(PREFIXES[u.choose_index(PREFIXES.len())?])
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let mut built = Vec::new();
    for _ in 0..u.int_in_range(1u8..=3)? {
        let e = if bool::arbitrary(u)? {
            let c = condition(u, 0)?;
            if bool::arbitrary(u)? {
                c.build()
            } else {
                c.build_with_stem(prefix(u)?)
            }
        } else {
            key_condition(u)?.build()
        };
        match e {
            Ok(e) => {
                well_formed(&e);
                built.push(e);
            }
            Err(err) => {
                let _ = err.to_string();
            }
        }
    }
    // Merging renames clashing placeholders and shares equal ones.
    if let [a, b, ..] = built.as_slice() {
        well_formed(&a.clone().and(b.clone()));
        well_formed(&a.clone().or(b.clone()));
        well_formed(&!a.clone());
        well_formed(&(!a.clone()).and(a.clone()).or(b.clone()));
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});
