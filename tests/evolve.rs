//! Audits (#32) on a real emulator: a table of 10,000 good items and a
//! seeded set of bad ones, read as four parallel-scan segments in small
//! runs resumed from their checkpoints; the report finds exactly the bad
//! items, and checkpoints are bound to their table, segment and secret.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::cursor::Cursors;
use dynamodb_mapper::evolve::{Audit, Finding};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{
    ErrorKind, GlobalSecondaryIndex, IndexKeys, Item, KeyPattern, Mapper, MapperExt, Registry,
    TableSchema,
};
use dynamodb_mapper_support::local;
use serde::{Deserialize, Serialize};

const T: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")])
    .ttl("expiresAt");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Order {
    customer: String,
    id: u32,
    status: String,
    total: u32,
}

struct OrderMapper;
impl Mapper for OrderMapper {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = T;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer}"))
            .sort(KeyPattern::sort("ORDER#{id:u6}")),
        IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
            .sort(KeyPattern::sort("ORDER#{id:u6}")),
    ];
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Session {
    user: String,
    id: u32,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "dynamodb_mapper::time::ttl::option"
    )]
    expires_at: Option<SystemTime>,
}

struct SessionMapper;
impl Mapper for SessionMapper {
    type Entity = Session;
    const ENTITY_TYPE: &'static str = "Session";
    const SCHEMA: TableSchema = T;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("USER#{user}"))
            .sort(KeyPattern::sort("SESSION#{id:u6}"))];
}

/// What the registry decodes to does not matter to an audit.
type Entity = ();

fn registry() -> Registry<Entity> {
    Registry::builder()
        .register::<OrderMapper>(|_| ())
        .register::<SessionMapper>(|_| ())
        .build()
        .unwrap()
}

const ORDERS: u32 = 8_000;
const SESSIONS: u32 = 2_000;

fn order(id: u32) -> Order {
    Order {
        customer: format!("C{}", id % 97),
        id,
        status: if id.is_multiple_of(3) {
            "open"
        } else {
            "shipped"
        }
        .into(),
        total: id * 7,
    }
}

fn session(id: u32) -> Session {
    Session {
        user: format!("U{}", id % 31),
        id,
        expires_at: Some(UNIX_EPOCH + Duration::from_secs(1_900_000_000 + u64::from(id))),
    }
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn key_of(item: &Item) -> String {
    let AttributeValue::S(pk) = &item["pk"] else {
        panic!()
    };
    let AttributeValue::S(sk) = &item["sk"] else {
        panic!()
    };
    format!("pk={pk:?}, sk={sk:?}")
}

/// The bad items, each with what the audit must say of it: (entity type,
/// finding) for every finding the item has.
fn bad_items() -> Vec<(Item, Vec<(&'static str, Finding)>)> {
    let stale = |a: &str| Finding::StaleAttribute(a.into());
    let missing = |a: &str| Finding::MissingAttribute(a.into());
    let mut out = Vec::new();
    let order_item = |id: u32| OrderMapper::to_item(&order(id)).unwrap();

    let mut unknown = order_item(100_001);
    unknown.insert("entityType".into(), s("Refund"));
    out.push((unknown, vec![("Refund", Finding::UnknownEntityType)]));

    let mut untyped = order_item(100_002);
    untyped.remove("entityType");
    out.push((untyped, vec![("", Finding::MissingDiscriminator)]));

    for id in [100_003, 100_004] {
        let mut old_status = order_item(id);
        old_status.insert("gsi1pk".into(), s("STATUS#old"));
        out.push((old_status, vec![("Order", stale("gsi1pk"))]));
    }

    for id in [100_005, 100_006, 100_007] {
        let mut before_the_index = order_item(id);
        before_the_index.remove("gsi1pk");
        before_the_index.remove("gsi1sk");
        out.push((
            before_the_index,
            vec![("Order", missing("gsi1pk")), ("Order", missing("gsi1sk"))],
        ));
    }

    let mut undecodable = order_item(100_008);
    undecodable.insert("total".into(), s("a lot"));
    out.push((undecodable, vec![("Order", Finding::Undecodable)]));

    let mut misspelt = order_item(100_009);
    misspelt.insert("sk".into(), s("ORDR#100009"));
    out.push((
        misspelt,
        vec![
            ("Order", Finding::UnparsedKey("sk".into())),
            ("Order", stale("sk")),
        ],
    ));

    // Reads, but an empty customer renders no key: cannot be written back.
    let mut keyless = order_item(100_013);
    keyless.insert("customer".into(), s(""));
    keyless.insert("pk".into(), s("CUSTOMER#"));
    out.push((
        keyless,
        vec![
            ("Order", Finding::Unwritable),
            ("Order", Finding::UnparsedKey("pk".into())),
        ],
    ));

    let mut large = order_item(100_010);
    large.insert("notes".into(), s(&"n".repeat(380_000)));
    out.push((large, vec![("Order", Finding::NearSizeLimit)]));

    let mut in_millis = SessionMapper::to_item(&session(100_011)).unwrap();
    in_millis.insert(
        "expiresAt".into(),
        AttributeValue::N("1900000000000".into()),
    );
    out.push((
        in_millis,
        vec![
            ("Session", Finding::ImplausibleTtl),
            ("Session", Finding::Undecodable),
        ],
    ));

    let mut left_behind = SessionMapper::to_item(&session(100_012)).unwrap();
    left_behind.insert("gsi1pk".into(), s("STATUS#open"));
    out.push((left_behind, vec![("Session", stale("gsi1pk"))]));
    out
}

async fn seeded_table() -> (Table, Vec<(Item, Vec<(&'static str, Finding)>)>) {
    let items: Vec<Item> = (0..ORDERS)
        .map(|id| OrderMapper::to_item(&order(id)).unwrap())
        .chain((0..SESSIONS).map(|id| SessionMapper::to_item(&session(id)).unwrap()))
        .collect();
    let (client, name, written) = local::table_with_items("audit", T, items).await;
    assert_eq!(written.items, (ORDERS + SESSIONS) as usize);
    let bad = bad_items();
    for (item, _) in &bad {
        local::put_item(&client, &name, item.clone()).await;
    }
    (Table::new(&client, &name, T), bad)
}

/// Runs segment `segment` of `of` to its end, `pages` pages of `size` items
/// per run, each run resumed from the last one's checkpoint; returns the
/// merged report and how many runs it took.
async fn audit_segment(
    table: &Table,
    registry: &Registry<Entity>,
    segment: u32,
    of: u32,
    size: u32,
    pages: usize,
) -> (Audit, usize) {
    let mut report = Audit::default();
    let mut runs = 0;
    loop {
        let mut sweep = table
            .sweep(registry)
            .segment(segment, of)
            .page_size(size)
            .max_pages(pages);
        if let Some(at) = report.next.clone() {
            sweep = sweep.resume(at);
        }
        report.merge(sweep.audit().await.unwrap());
        runs += 1;
        if report.next.is_none() {
            return (report, runs);
        }
    }
}

#[tokio::test]
async fn an_audit_in_resumed_segments_finds_exactly_the_seeded_bad_items() {
    let (table, bad) = seeded_table().await;
    let registry = registry();
    let segments = futures_util::future::join_all(
        (0..4).map(|i| audit_segment(&table, &registry, i, 4, 250, 3)),
    )
    .await;
    let mut report = Audit::default();
    for (segment, runs) in segments {
        assert!(runs > 1, "each segment is resumed at least once");
        report.merge(segment);
    }
    assert_eq!(report.next, None);

    let total = u64::from(ORDERS + SESSIONS) + bad.len() as u64;
    assert_eq!(report.scanned, total, "every item read once");
    assert!(report.read_units > 0.0);
    let items: BTreeMap<&str, u64> = report
        .types
        .iter()
        .map(|(k, t)| (k.as_str(), t.items))
        .collect();
    assert_eq!(
        items,
        BTreeMap::from([
            ("", 1),
            ("Order", u64::from(ORDERS) + 9),
            ("Refund", 1),
            ("Session", u64::from(SESSIONS) + 2),
        ])
    );

    // Every finding, with exactly the keys of the items seeded with it.
    let mut expected: BTreeMap<(String, Finding), BTreeSet<String>> = BTreeMap::new();
    for (item, findings) in &bad {
        for (entity_type, finding) in findings {
            expected
                .entry(((*entity_type).to_owned(), finding.clone()))
                .or_default()
                .insert(key_of(item));
        }
    }
    let mut found: BTreeMap<(String, Finding), BTreeSet<String>> = BTreeMap::new();
    for (entity_type, t) in &report.types {
        for (finding, f) in &t.findings {
            assert_eq!(
                f.count,
                f.examples.len() as u64,
                "{finding}: under 10, all kept"
            );
            found.insert(
                (entity_type.clone(), finding.clone()),
                f.examples.iter().map(|e| e.key.clone()).collect(),
            );
        }
    }
    assert_eq!(found, expected, "\n{report}");

    // The details say what is wrong.
    let order = &report.types["Order"].findings;
    let stale = &order[&Finding::StaleAttribute("gsi1pk".into())].examples[0];
    // Orders 100003 and 100004 are shipped.
    assert_eq!(
        stale.detail,
        r#"holds "STATUS#old", renders "STATUS#shipped""#
    );
    let missing = &order[&Finding::MissingAttribute("gsi1sk".into())].examples[0];
    assert!(
        missing.detail.starts_with(r#"renders "ORDER#1000"#),
        "{}",
        missing.detail
    );
    let ttl = &report.types["Session"].findings[&Finding::ImplausibleTtl].examples[0];
    assert_eq!(
        ttl.detail,
        "is 1900000000000, after the year 9999, likely milliseconds"
    );
    let left = &report.types["Session"].findings[&Finding::StaleAttribute("gsi1pk".into())];
    assert_eq!(
        left.examples[0].detail,
        r#"holds "STATUS#open", renders none"#
    );

    let undecodable = &order[&Finding::Undecodable].examples[0];
    assert!(
        undecodable
            .detail
            .starts_with("cannot deserialize attribute `total`: "),
        "the cause, without the key shown beside it: {}",
        undecodable.detail
    );

    let unwritable = &order[&Finding::Unwritable].examples[0];
    assert!(
        unwritable.detail.contains("is empty"),
        "{}",
        unwritable.detail
    );

    // Printable and serializable.
    let text = report.to_string();
    assert!(
        text.starts_with(&format!("{total} items scanned, 19 findings\n")),
        "{text}"
    );
    assert!(text.contains("(no discriminator)"), "{text}");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        json["types"]["Order"]["findings"]["missing `gsi1pk`"]["count"],
        serde_json::json!(3)
    );
}

#[tokio::test]
async fn a_clean_table_audits_clean_in_one_run() {
    let items: Vec<Item> = (0..300)
        .map(|id| OrderMapper::to_item(&order(id)).unwrap())
        .collect();
    let (client, name, _) = local::table_with_items("audit_clean", T, items).await;
    let table = Table::new(&client, &name, T);
    let registry = registry();
    let report = table.sweep(&registry).audit().await.unwrap();
    assert!(report.is_clean(), "{report}");
    assert_eq!((report.scanned, report.next.clone()), (300, None));
    assert_eq!(
        report.to_string().lines().next(),
        Some("300 items scanned, nothing found")
    );
}

#[tokio::test]
async fn checkpoints_are_bound_to_their_table_segment_and_secret() {
    let items: Vec<Item> = (0..200)
        .map(|id| OrderMapper::to_item(&order(id)).unwrap())
        .collect();
    let (client, name, _) = local::table_with_items("audit_cp", T, items).await;
    let table = Table::new(&client, &name, T);
    let registry = registry();
    let first = table
        .sweep(&registry)
        .segment(0, 2)
        .page_size(10)
        .max_pages(1)
        .audit()
        .await
        .unwrap();
    assert_eq!(first.scanned, 10);
    let checkpoint = first.next.clone().expect("more to read");

    // Another segment refuses it, before anything is sent.
    let err = table
        .sweep(&registry)
        .segment(1, 2)
        .resume(checkpoint.clone())
        .audit()
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidCursor, "{err}");

    // The same segment goes on from it: the two runs read the segment once.
    let rest = table
        .sweep(&registry)
        .segment(0, 2)
        .resume(checkpoint)
        .audit()
        .await
        .unwrap();
    let whole = table.sweep(&registry).segment(0, 2).audit().await.unwrap();
    assert_eq!(first.scanned + rest.scanned, whole.scanned);

    // Signed checkpoints: another secret, or none, refuses them.
    let signed = |secret: &[u8]| Cursors::new(name.as_str(), T).signed_with(secret);
    let run = table
        .sweep(&registry)
        .page_size(10)
        .max_pages(1)
        .checkpoints(signed(b"0123456789abcdef0123456789abcdef"))
        .audit()
        .await
        .unwrap();
    let token = run.next.unwrap();
    for other in [
        table
            .sweep(&registry)
            .checkpoints(signed(b"fedcba9876543210fedcba9876543210")),
        table.sweep(&registry),
    ] {
        let err = other.resume(token.clone()).audit().await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidCursor, "{err}");
    }

    // Checkpoints of another table, and impossible segments.
    let err = table
        .sweep(&registry)
        .checkpoints(Cursors::new("Other", T))
        .audit()
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidCursor, "{err}");
    for (segment, of) in [(2, 2), (0, 0), (0, 1_000_001)] {
        let err = table
            .sweep(&registry)
            .segment(segment, of)
            .audit()
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidValue, "{err}");
        assert_eq!(err.attribute(), Some("segment"));
    }
}
