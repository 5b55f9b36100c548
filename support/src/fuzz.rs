//! Arbitrary items from fuzz bytes: a small recursive `AttributeValue`
//! generator with bounded depth (plus, now and then, a chain of lists and
//! maps up to 2,000 deep and a value past the 400 KB item limit), biased
//! towards what the fixture mappers
//! read (their attribute names, entity types, numbers at the edges of every
//! integer type and of DynamoDB's 38 digits), plus mutated valid items so
//! deserialization gets deep.
//!
//! The fuzz targets' input (`fuzz/`, through [`FuzzItem`], [`FuzzItems`]
//! and [`value`]); behind the `fuzz` feature, which the fuzz crate enables,
//! so the tests and benches do not build `arbitrary`.

use std::collections::HashMap;
use std::sync::OnceLock;

use arbitrary::{Arbitrary, Result, Unstructured};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::{Item, MapperExt};

use crate::seed000::*;
use crate::seed001::*;
use crate::seed004::invoices::{self, *};
use crate::values::unknown_value;

/// How deep the recursive generator nests lists and maps (DynamoDB allows 32
/// levels; the crate's code paths are the same from 2 on, and 40 also covers
/// the nesting check). Deeper values come from [`deep_chain`].
const MAX_DEPTH: usize = 40;

/// How deep [`deep_chain`] goes: past 1,000 now and then, where a recursive
/// walk over the item would overflow a small stack. Built and dropped by the
/// harnesses with the recursive `Clone`/`Drop` of `AttributeValue`, which
/// 2,000 levels stay well within on the fuzzer's main-thread stack (with
/// AddressSanitizer's larger frames too).
const MAX_CHAIN: usize = 2_000;

/// How large [`huge_value`] gets: past DynamoDB's 400 KB item limit, one
/// such value per item at most, so memory stays bounded (a page of 8 items
/// holds at most 4 MB of them).
const MAX_HUGE: usize = 500_000;

/// Attribute names the fixtures read or write, and a few they do not.
pub const NAMES: &[&str] = &[
    "pk",
    "sk",
    "gsi1pk",
    "gsi1sk",
    "gsi2pk",
    "gsi2sk",
    "gsi3pk",
    "gsi3sk",
    "ttl",
    "version",
    "entityType",
    "$type",
    "recordType",
    "customerId",
    "email",
    "name",
    "createdAt",
    "orderId",
    "status",
    "totalCents",
    "shippedAt",
    "trackingNumber",
    "lines",
    "sku",
    "quantity",
    "unitPriceCents",
    "sessionId",
    "userId",
    "expiresAt",
    "productId",
    "categoryId",
    "priceCents",
    "isArchived",
    "archivedAt",
    "reviewId",
    "rating",
    "comment",
    "counterId",
    "count",
    "tenantId",
    "theme",
    "date",
    "personId",
    "department",
    "managerLevel",
    "invoiceId",
    "invoiceDate",
    "lineNumber",
    "description",
    "timestamp",
    "changedBy",
    "itemCount",
    "customer_id",
    "giftNote",
    "",
    "a.b",
    "x[0]",
    "Pending",
];

/// Discriminator values: every fixture entity type, an alias, unknown ones.
pub const ENTITY_TYPES: &[&str] = &[
    "Customer",
    "Order",
    "Session",
    "Product",
    "ProductReview",
    "Counter",
    "User",
    "UserMetadata",
    "Person",
    "Employee",
    "Manager",
    "Invoice",
    "InvoiceItem",
    "InvoiceLine",
    "InvoiceStatus",
    "InvoiceSummary",
    "Refund",
    "",
    "customer",
    "Order ",
];

const STRINGS: &[&str] = &[
    "Pending",
    "Shipped",
    "Delivered",
    "Cancelled",
    "2024-01-15T10:30:00Z",
    "CUSTOMER#C1",
    "METADATA",
    "",
    "#",
    "\u{0}",
    "é€😀",
    "1",
    "true",
    "null",
];

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "1.5",
    "-1.5",
    "5",
    "255",
    "256",
    "-129",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "1e2",
    "1e-2",
    "1E+2",
    "NaN",
    "inf",
    "-Infinity",
    "99999999999999999999999999999999999999",
    "999999999999999999999999999999999999999",
    "-99999999999999999999999999999999999999",
    "1.0000000000000000000000000000000000001",
    "9.9999999999999999999999999999999999999e125",
    "1e125",
    "1e126",
    "1e-130",
    "1e-131",
    "0e2147483647",
    "0e2147483648",
    "0e-2147483648",
    "1e2147483648",
    "1e0000000000000005",
    ".5",
    "5.",
    "+5",
    "",
    " ",
    "1e",
    "-",
    ".",
    "e5",
    "\u{661}",
    "0x10",
    "1_000",
    "00.00100",
];

fn pick<'a>(u: &mut Unstructured<'_>, from: &[&'a str]) -> Result<&'a str> {
    Ok(from[u.choose_index(from.len())?])
}

fn string(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 | 1 => pick(u, STRINGS)?.to_owned(),
        2 => pick(u, ENTITY_TYPES)?.to_owned(),
        _ => String::arbitrary(u)?,
    })
}

/// A name: mostly one the fixtures know, sometimes anything.
pub fn name(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(if u.ratio(3u8, 4u8)? {
        pick(u, NAMES)?.to_owned()
    } else {
        String::arbitrary(u)?
    })
}

/// A number string: well-formed, at the edges, or garbage.
pub fn number(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0u8..=6)? {
        0 => pick(u, NUMBERS)?.to_owned(),
        1 => i64::arbitrary(u)?.to_string(),
        2 => u64::arbitrary(u)?.to_string(),
        3 => f64::arbitrary(u)?.to_string(),
        4 => i128::arbitrary(u)?.to_string(),
        5 => {
            // Sign, up to 45 digits, a point, an exponent.
            let mut s = String::new();
            match u.int_in_range(0u8..=3)? {
                0 => s.push('-'),
                1 => s.push('+'),
                _ => {}
            }
            let len = u.int_in_range(0usize..=45)?;
            let point = u.int_in_range(0usize..=len + 1)?;
            for i in 0..len {
                if i == point {
                    s.push('.');
                }
                s.push(char::from(b'0' + u.int_in_range(0u8..=9)?));
            }
            if u.ratio(1u8, 3u8)? {
                s.push(if bool::arbitrary(u)? { 'e' } else { 'E' });
                match u.int_in_range(0u8..=2)? {
                    0 => s.push('-'),
                    1 => s.push('+'),
                    _ => {}
                }
                let exp = if bool::arbitrary(u)? {
                    u.int_in_range(0u64..=300)?
                } else {
                    u64::arbitrary(u)?
                };
                s.push_str(&"0".repeat(u.int_in_range(0usize..=12)?));
                s.push_str(&exp.to_string());
            }
            s
        }
        _ => String::arbitrary(u)?,
    })
}

fn bytes(u: &mut Unstructured<'_>) -> Result<Blob> {
    let len = u.int_in_range(0usize..=8)?;
    Ok(Blob::new(u.bytes(len)?.to_vec()))
}

fn count(u: &mut Unstructured<'_>, max: usize) -> Result<usize> {
    u.int_in_range(0usize..=max)
}

/// Lists and maps nested `levels` deep in a chain, mostly just past
/// DynamoDB's 32 levels, sometimes past 1,000 (up to `MAX_CHAIN`), built
/// with a loop (the generator's own recursion stays bounded).
pub fn deep_chain(u: &mut Unstructured<'_>) -> Result<AttributeValue> {
    let levels = match u.int_in_range(0u8..=3)? {
        0 => u.int_in_range(30usize..=34)?,
        1 => u.int_in_range(35usize..=300)?,
        2 => u.int_in_range(300usize..=1_200)?,
        _ => u.int_in_range(1_001usize..=MAX_CHAIN)?,
    };
    // One byte of pattern picks lists or maps level by level (cycled), so a
    // chain costs a few bytes of input whatever its depth.
    let pattern = u8::arbitrary(u)?;
    let key = name(u)?;
    let mut v = value(u, MAX_DEPTH)?;
    for level in 0..levels {
        v = if pattern & (1 << (level % 8)) == 0 {
            AttributeValue::L(vec![v])
        } else {
            AttributeValue::M(HashMap::from([(key.clone(), v)]))
        };
    }
    Ok(v)
}

/// A string or binary of 300 KB to `MAX_HUGE` bytes: alone past most of
/// DynamoDB's 400 KB item limit, with a few more attributes past it. Made
/// by repetition, not from input bytes.
pub fn huge_value(u: &mut Unstructured<'_>) -> Result<AttributeValue> {
    let len = u.int_in_range(300_000usize..=MAX_HUGE)?;
    Ok(if bool::arbitrary(u)? {
        AttributeValue::S("x".repeat(len))
    } else {
        AttributeValue::B(Blob::new(vec![7u8; len]))
    })
}

/// An attribute value for an item: the recursive generator, a deep chain
/// (1 in 16) or a huge value (1 in 32).
fn attribute(u: &mut Unstructured<'_>) -> Result<AttributeValue> {
    match u.int_in_range(0u8..=31)? {
        0 | 1 => deep_chain(u),
        2 => huge_value(u),
        _ => value(u, 1),
    }
}

/// An arbitrary value; lists and maps only while `depth` is below the bound.
pub fn value(u: &mut Unstructured<'_>, depth: usize) -> Result<AttributeValue> {
    let kinds = if depth >= MAX_DEPTH { 10 } else { 12 };
    Ok(match u.choose_index(kinds)? {
        0 | 1 => AttributeValue::S(string(u)?),
        2 | 3 => AttributeValue::N(number(u)?),
        4 => AttributeValue::B(bytes(u)?),
        5 => AttributeValue::Bool(bool::arbitrary(u)?),
        6 => AttributeValue::Null(bool::arbitrary(u)?),
        7 => {
            let n = count(u, 4)?;
            AttributeValue::Ss((0..n).map(|_| string(u)).collect::<Result<_>>()?)
        }
        8 => {
            let n = count(u, 4)?;
            AttributeValue::Ns((0..n).map(|_| number(u)).collect::<Result<_>>()?)
        }
        9 => {
            if u.ratio(1u8, 4u8)? {
                // The SDK's `Unknown` (a type newer than this SDK version),
                // made as the tests make it: from a canned response.
                unknown_value()
            } else {
                let n = count(u, 3)?;
                AttributeValue::Bs((0..n).map(|_| bytes(u)).collect::<Result<_>>()?)
            }
        }
        10 => {
            let n = count(u, 5)?;
            AttributeValue::L((0..n).map(|_| value(u, depth + 1)).collect::<Result<_>>()?)
        }
        _ => {
            let n = count(u, 5)?;
            let mut map = HashMap::with_capacity(n);
            for _ in 0..n {
                map.insert(name(u)?, value(u, depth + 1)?);
            }
            AttributeValue::M(map)
        }
    })
}

/// Valid items of every fixture mapper, made once.
fn valid_items() -> &'static [Item] {
    static ITEMS: OnceLock<Vec<Item>> = OnceLock::new();
    ITEMS.get_or_init(|| {
        let mut archived = product("BOOKS", "P2", "Old Manual", 1500);
        archived.is_archived = true;
        archived.archived_at = Some("2024-05-01T00:00:00Z".into());
        vec![
            CustomerMapper::to_item(&customer("C1")).unwrap(),
            OrderMapper::to_item(&order(
                "C1",
                "O1",
                "2024-01-15T10:30:00Z",
                OrderStatus::Pending,
            ))
            .unwrap(),
            OrderMapper::to_item(&order(
                "C1",
                "O2",
                "2024-02-20T14:45:00Z",
                OrderStatus::Shipped,
            ))
            .unwrap(),
            SessionMapper::to_item(&session("U1", "S1", 4_000_000_000)).unwrap(),
            ProductMapper::to_item(&product("BOOKS", "P1", "Rust in Action", 3999)).unwrap(),
            ProductMapper::to_item(&archived).unwrap(),
            ProductReviewMapper::to_item(&review("P1", "R1", "U1", 5, "2024-06-01T12:00:00Z"))
                .unwrap(),
            CounterMapper::to_item(&counter("K1", 3)).unwrap(),
            UserMapper::to_item(&user("42")).unwrap(),
            UserMetadataMapper::to_item(&user_metadata("42")).unwrap(),
            TenantOrderMapper::to_item(&tenant_order("17", "2026-04-01", 2500)).unwrap(),
            PersonMapper::to_item(&person("3")).unwrap(),
            EmployeeMapper::to_item(&employee("7")).unwrap(),
            ManagerMapper::to_item(&manager("9", 2)).unwrap(),
            InvoiceMapper::to_item(&invoice("I1")).unwrap(),
            InvoiceItemMapper::to_item(&invoice_item("I1", 1, 2, 1250)).unwrap(),
            InvoiceStatusMapper::to_item(&invoice_status("I1", "PAID", "2024-03-02")).unwrap(),
            InvoiceSummaryMapper::to_item(&invoices::invoice_summary("I1")).unwrap(),
        ]
    })
}

/// Names of an item in a stable order (a `HashMap`'s order changes from
/// run to run; a fuzz input must mean the same item every time).
fn sorted_names(item: &HashMap<String, AttributeValue>) -> Vec<String> {
    let mut names: Vec<String> = item.keys().cloned().collect();
    names.sort();
    names
}

/// Replaces a value somewhere inside `v` (or `v` itself).
fn mutate_inside(u: &mut Unstructured<'_>, v: &mut AttributeValue, depth: usize) -> Result<()> {
    let descend = u.ratio(2u8, 3u8)?;
    match v {
        AttributeValue::L(list) if descend && !list.is_empty() => {
            let i = u.choose_index(list.len())?;
            mutate_inside(u, &mut list[i], depth + 1)
        }
        AttributeValue::M(map) if descend && !map.is_empty() => {
            let names = sorted_names(map);
            let k = &names[u.choose_index(names.len())?];
            match map.get_mut(k) {
                Some(inner) => mutate_inside(u, inner, depth + 1),
                None => Ok(()),
            }
        }
        _ => {
            *v = value(u, depth)?;
            Ok(())
        }
    }
}

/// A valid fixture item with a few changes.
fn mutated(u: &mut Unstructured<'_>) -> Result<Item> {
    let items = valid_items();
    let mut item = items[u.choose_index(items.len())?].clone();
    for _ in 0..u.int_in_range(0u8..=4)? {
        let names = sorted_names(&item);
        match u.int_in_range(0u8..=4)? {
            0 if !names.is_empty() => {
                item.remove(&names[u.choose_index(names.len())?]);
            }
            1 if !names.is_empty() => {
                let k = &names[u.choose_index(names.len())?];
                if let Some(v) = item.get_mut(k) {
                    mutate_inside(u, v, 1)?;
                }
            }
            2 => {
                item.insert(name(u)?, attribute(u)?);
            }
            3 => {
                let attr = if bool::arbitrary(u)? {
                    "entityType"
                } else {
                    "$type"
                };
                item.insert(
                    attr.into(),
                    AttributeValue::S(pick(u, ENTITY_TYPES)?.into()),
                );
            }
            _ => {}
        }
    }
    Ok(item)
}

/// An arbitrary item: a valid fixture item mutated, or made from scratch
/// (with a discriminator naming a fixture entity type most of the time).
pub fn item(u: &mut Unstructured<'_>) -> Result<Item> {
    if u.ratio(1u8, 2u8)? {
        return mutated(u);
    }
    let n = count(u, 12)?;
    let mut item = Item::with_capacity(n + 1);
    for _ in 0..n {
        item.insert(name(u)?, attribute(u)?);
    }
    if u.ratio(3u8, 4u8)? {
        let attr = if u.ratio(3u8, 4u8)? {
            "entityType"
        } else {
            "$type"
        };
        let d = if u.ratio(7u8, 8u8)? {
            AttributeValue::S(pick(u, ENTITY_TYPES)?.into())
        } else {
            value(u, 1)?
        };
        item.insert(attr.into(), d);
    }
    Ok(item)
}

/// One arbitrary item.
#[derive(Debug, Clone)]
pub struct FuzzItem(pub Item);

impl<'a> Arbitrary<'a> for FuzzItem {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        item(u).map(FuzzItem)
    }
}

/// Up to 8 arbitrary items (a page of a query).
#[derive(Debug, Clone)]
pub struct FuzzItems(pub Vec<Item>);

impl<'a> Arbitrary<'a> for FuzzItems {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let n = count(u, 8)?;
        (0..n)
            .map(|_| item(u))
            .collect::<Result<_>>()
            .map(FuzzItems)
    }
}
