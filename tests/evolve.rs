//! Audits (#32) on a real emulator: a table of 10,000 good items and a
//! seeded set of bad ones, read as four parallel-scan segments in small
//! runs resumed from their checkpoints; the report finds exactly the bad
//! items, and checkpoints are bound to their table, segment and secret.

use dynamodb_mapper::ItemExt;
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

// ---------------------------------------------------------------------------
// Backfills
// ---------------------------------------------------------------------------

/// An order as written before GSI1 was added to its mapper: no index keys.
fn before_the_index(id: u32) -> Item {
    let mut item = OrderMapper::to_item(&order(id)).unwrap();
    item.remove("gsi1pk");
    item.remove("gsi1sk");
    item
}

async fn table_before_the_index(
    prefix: &str,
    orders: u32,
) -> (aws_sdk_dynamodb::Client, String, Table) {
    let items: Vec<Item> = (0..orders).map(before_the_index).collect();
    let (client, name, written) = local::table_with_items(prefix, T, items).await;
    assert_eq!(written.items, orders as usize);
    let table = Table::new(&client, &name, T);
    (client, name, table)
}

/// Backfills segment `segment` of `of` in runs of `pages` pages of `size`
/// items, resumed from each run's checkpoint.
async fn backfill_segment(
    table: &Table,
    registry: &Registry<Entity>,
    segment: u32,
    of: u32,
    size: u32,
    pages: usize,
) -> dynamodb_mapper::evolve::Backfill {
    let mut report = dynamodb_mapper::evolve::Backfill::default();
    loop {
        let mut sweep = table
            .sweep(registry)
            .segment(segment, of)
            .page_size(size)
            .max_pages(pages);
        if let Some(at) = report.next.clone() {
            sweep = sweep.resume(at);
        }
        report.merge(sweep.backfill().await.unwrap());
        if report.next.is_none() {
            return report;
        }
    }
}

async fn whole_audit(table: &Table, registry: &Registry<Entity>) -> Audit {
    table.sweep(registry).audit().await.unwrap()
}

#[tokio::test]
async fn a_backfill_adds_the_index_keys_every_item_lacks_and_a_second_changes_nothing() {
    const N: u32 = 10_000;
    let (_, _, table) = table_before_the_index("backfill", N).await;
    let registry = registry();
    let before = whole_audit(&table, &registry).await;
    let missing = &before.types["Order"].findings[&Finding::MissingAttribute("gsi1pk".into())];
    assert_eq!(missing.count, u64::from(N));

    // A dry run says what it would do and writes nothing.
    let dry = table.sweep(&registry).dry_run().backfill().await.unwrap();
    assert_eq!(
        (dry.scanned, dry.changed, dry.unchanged),
        (u64::from(N), u64::from(N), 0)
    );
    assert_eq!(dry.examples.len(), 10);
    assert!(
        dry.examples[0]
            .detail
            .starts_with("sets `gsi1pk` to \"STATUS#"),
        "{}",
        dry.examples[0].detail
    );
    assert_eq!(
        whole_audit(&table, &registry).await,
        before,
        "the dry run wrote nothing"
    );

    let segments = futures_util::future::join_all(
        (0..4).map(|i| backfill_segment(&table, &registry, i, 4, 400, 2)),
    )
    .await;
    let mut report = dynamodb_mapper::evolve::Backfill::default();
    for segment in segments {
        report.merge(segment);
    }
    assert_eq!(report.scanned, u64::from(N));
    assert_eq!(report.changed, u64::from(N), "{report}");
    assert_eq!(
        (
            report.unchanged,
            report.skipped,
            report.failed.len(),
            report.conflicts
        ),
        (0, 0, 0, 0)
    );

    let after = whole_audit(&table, &registry).await;
    assert!(after.is_clean(), "{after}");
    assert_eq!(after.scanned, u64::from(N));

    let again = table.sweep(&registry).backfill().await.unwrap();
    assert_eq!(
        (again.changed, again.unchanged),
        (0, u64::from(N)),
        "{again}"
    );
}

#[tokio::test]
async fn a_backfill_with_writers_running_throughout_loses_no_write() {
    const N: u32 = 10_000;
    const WRITERS: u32 = 4;
    let (client, name, table) = table_before_the_index("backfill_live", N).await;
    let registry = registry();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Each writer owns the ids `id % WRITERS == w` and puts whole orders
    // (their index keys rendered) with a new status, until the backfill ends;
    // it remembers the last status it wrote for each id.
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (client, name, done) = (client.clone(), name.clone(), done.clone());
            tokio::spawn(async move {
                let mut rng = fastrand::Rng::with_seed(u64::from(w));
                let mut last: BTreeMap<u32, String> = BTreeMap::new();
                let mut round = 0;
                while !done.load(std::sync::atomic::Ordering::SeqCst) || round < 50 {
                    let id = rng.u32(0..N / WRITERS) * WRITERS + w;
                    let status = format!("s{w}r{round}");
                    let entity = Order {
                        status: status.clone(),
                        ..order(id)
                    };
                    local::put_item(&client, &name, OrderMapper::to_item(&entity).unwrap()).await;
                    last.insert(id, status);
                    round += 1;
                }
                last
            })
        })
        .collect();
    let segments = futures_util::future::join_all(
        (0..4).map(|i| backfill_segment(&table, &registry, i, 4, 250, 3)),
    )
    .await;
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut written: BTreeMap<u32, String> = BTreeMap::new();
    for w in writers {
        written.extend(w.await.unwrap());
    }
    let mut report = dynamodb_mapper::evolve::Backfill::default();
    for segment in segments {
        report.merge(segment);
    }
    assert!(report.failed.is_empty(), "{report}");
    assert_eq!(report.scanned, u64::from(N));
    assert_eq!(report.changed + report.unchanged, u64::from(N), "{report}");
    assert!(!written.is_empty());
    // The writers raced the backfill (about 16 conflicts a run here): each
    // conflict was read again, and the writer's item kept.
    assert!(report.conflicts > 0, "{report}");

    // Every write of the writers is there, and every item has its keys.
    let after = whole_audit(&table, &registry).await;
    assert!(after.is_clean(), "{after}");
    for (id, status) in &written {
        let key = OrderMapper::key(&order(*id)).unwrap();
        let item = local::get_item(&client, &name, key)
            .await
            .expect("the item");
        let stored = OrderMapper::from_item(item.clone()).unwrap();
        assert_eq!(
            &stored.status, status,
            "order {id}: the writer's last write kept"
        );
        assert_eq!(item["gsi1pk"], s(&format!("STATUS#{status}")));
    }
}

#[tokio::test]
async fn runs_killed_at_random_points_and_resumed_leave_every_item_changed_once() {
    const N: u32 = 10_000;
    let (_, _, table) = table_before_the_index("backfill_kill", N).await;
    let registry = registry();
    let mut rng = fastrand::Rng::with_seed(32);
    let mut checkpoint: Option<String> = None;
    let (mut completed, mut killed, mut in_a_row) = (0, 0, 0u64);
    loop {
        let mut sweep = table.sweep(&registry).page_size(250).max_pages(2);
        if let Some(at) = checkpoint.clone() {
            sweep = sweep.resume(at);
        }
        // Killed after a random time: the run's report, and its checkpoint,
        // are lost; the next run starts from the last checkpoint kept. The
        // longest time grows while runs keep being killed, so a slower
        // server still lets some finish.
        let limit = Duration::from_millis(rng.u64(1..40 + 20 * in_a_row));
        match tokio::time::timeout(limit, sweep.backfill()).await {
            Err(_) => {
                killed += 1;
                in_a_row += 1;
            }
            Ok(report) => {
                in_a_row = 0;
                let report = report.unwrap();
                assert!(report.failed.is_empty(), "{report}");
                completed += 1;
                checkpoint = report.next;
                if checkpoint.is_none() {
                    break;
                }
            }
        }
        assert!(killed < 1_000, "the runs must make progress");
    }
    assert!(
        killed > 0 && completed > 1,
        "killed {killed}, completed {completed}"
    );
    let after = whole_audit(&table, &registry).await;
    assert!(after.is_clean(), "{after}");
    assert_eq!(after.scanned, u64::from(N));
    let again = table.sweep(&registry).backfill().await.unwrap();
    assert_eq!((again.changed, again.unchanged), (0, u64::from(N)));
}

#[tokio::test]
async fn a_backfill_accounts_for_items_it_cannot_change() {
    let (table, bad) = seeded_table().await;
    let registry = registry();
    let report = table
        .sweep(&registry)
        .concurrency(16)
        .backfill()
        .await
        .unwrap();
    let total = u64::from(ORDERS + SESSIONS) + bad.len() as u64;
    assert_eq!(report.scanned, total);
    assert_eq!(
        report.changed + report.unchanged + report.skipped + report.failed.len() as u64,
        total,
        "every item counted once"
    );
    // Unknown type and no discriminator: skipped.
    assert_eq!(report.skipped, 2, "{report}");
    // Not decodable (2); not writable: an empty customer renders no key (1);
    // a table key that would change (1).
    let mut kinds: Vec<ErrorKind> = report.failed.iter().map(|f| f.error.kind()).collect();
    kinds.sort_by_key(|k| format!("{k:?}"));
    assert_eq!(
        kinds,
        [
            ErrorKind::Deserialize,
            ErrorKind::Deserialize,
            ErrorKind::InvalidKey,
            ErrorKind::InvalidKey,
        ],
        "{report}"
    );
    let moved = report
        .failed
        .iter()
        .find(|f| f.error.to_string().contains("does not move"))
        .unwrap();
    assert_eq!(moved.key["sk"], s("ORDR#100009"));
    assert!(
        moved
            .error
            .to_string()
            .contains("a backfill does not move items"),
        "{}",
        moved.error
    );
    // Stale and missing index keys (5 orders), the sparse key left behind
    // (1 session): changed.
    assert_eq!(report.changed, 6, "{report}");
    let after = whole_audit(&table, &registry).await;
    let order = &after.types["Order"].findings;
    assert!(!order.contains_key(&Finding::MissingAttribute("gsi1pk".into())));
    assert!(!order.contains_key(&Finding::StaleAttribute("gsi1pk".into())));
    assert!(
        !after.types["Session"]
            .findings
            .contains_key(&Finding::StaleAttribute("gsi1pk".into()))
    );
}

#[tokio::test]
async fn a_migration_changes_each_entity_once_with_its_keys() {
    const N: u32 = 600;
    let items: Vec<Item> = (0..N)
        .map(|id| OrderMapper::to_item(&order(id)).unwrap())
        .chain((0..50).map(|id| SessionMapper::to_item(&session(id)).unwrap()))
        .collect();
    let (client, name, _) = local::table_with_items("migrate", T, items).await;
    let table = Table::new(&client, &name, T);
    let registry = registry();
    // Open orders are closed: their status, and so their GSI1 key, change.
    let close = |o: Order| {
        if o.status == "open" {
            Order {
                status: "closed".into(),
                ..o
            }
        } else {
            o
        }
    };
    let open = (0..N).filter(|id| id.is_multiple_of(3)).count() as u64;

    let dry = table
        .sweep(&registry)
        .dry_run()
        .migrate::<OrderMapper>(close)
        .await
        .unwrap();
    assert_eq!(
        (dry.changed, dry.unchanged, dry.skipped),
        (open, u64::from(N) - open, 50)
    );
    assert!(
        dry.examples[0]
            .detail
            .contains("sets `gsi1pk` to \"STATUS#closed\""),
        "{dry}"
    );
    assert!(
        dry.examples[0]
            .detail
            .contains("sets `status` to \"closed\""),
        "{dry}"
    );

    let report = table
        .sweep(&registry)
        .segment(1, 2)
        .migrate::<OrderMapper>(close)
        .await
        .unwrap();
    let other = table
        .sweep(&registry)
        .segment(0, 2)
        .migrate::<OrderMapper>(close)
        .await
        .unwrap();
    assert_eq!(report.changed + other.changed, open, "{report}{other}");
    assert!(report.failed.is_empty() && other.failed.is_empty());
    assert_eq!(
        report.skipped + other.skipped,
        50,
        "sessions are not orders"
    );

    let after = whole_audit(&table, &registry).await;
    assert!(after.is_clean(), "{after}");
    let closed = OrderMapper::to_item(&close(order(3))).unwrap();
    let stored = local::get_item(&client, &name, T.key_of(&closed).unwrap())
        .await
        .unwrap();
    assert_eq!(
        stored, closed,
        "the whole item as the mapper writes the changed entity"
    );

    let again = table
        .sweep(&registry)
        .migrate::<OrderMapper>(close)
        .await
        .unwrap();
    assert_eq!((again.changed, again.unchanged), (0, u64::from(N)));

    // A change of the table key is refused for each item it would move.
    let moved = table
        .sweep(&registry)
        .migrate::<OrderMapper>(|o| Order {
            customer: "C-new".into(),
            ..o
        })
        .await
        .unwrap();
    assert_eq!((moved.changed, moved.failed.len()), (0, N as usize));
    assert_eq!(moved.failed[0].error.kind(), ErrorKind::InvalidKey);
}

// ---------------------------------------------------------------------------
// Shape versions
// ---------------------------------------------------------------------------

const SHAPED: TableSchema = TableSchema::new("pk").sort_key("sk").shape("shapeVersion");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct User {
    id: u32,
    email: String,
    display_name: String,
}

/// Shape 2 renamed `mail` to `email`.
fn v1_to_v2(item: &mut Item) -> dynamodb_mapper::Result<()> {
    item.rename_attribute("mail", "email");
    Ok(())
}

/// Shape 3 added a display name, the email's local part.
fn v2_to_v3(item: &mut Item) -> dynamodb_mapper::Result<()> {
    let name = match item.get("email") {
        Some(AttributeValue::S(e)) => e.split('@').next().unwrap_or_default().to_owned(),
        _ => return Err(dynamodb_mapper::Error::missing_attribute("email")),
    };
    item.insert("display_name".into(), AttributeValue::S(name));
    Ok(())
}

struct UserMapper;
impl Mapper for UserMapper {
    type Entity = User;
    const ENTITY_TYPE: &'static str = "User";
    const SCHEMA: TableSchema = SHAPED;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("USER#{id:u6}"))
            .sort(KeyPattern::sort("PROFILE"))];
    const UPGRADES: &'static [fn(&mut Item) -> dynamodb_mapper::Result<()>] = &[v1_to_v2, v2_to_v3];
}

fn user(id: u32) -> User {
    User {
        id,
        email: format!("u{id}@example.com"),
        display_name: format!("u{id}"),
    }
}

/// User `id` as shape 1 wrote it (no shape attribute, `mail`) or shape 2
/// (`email`, no display name).
fn user_of_shape(id: u32, shape: u32) -> Item {
    let mut item = UserMapper::to_item(&user(id)).unwrap();
    item.remove("display_name");
    match shape {
        1 => {
            item.remove("shapeVersion");
            let email = item.remove("email").unwrap();
            item.insert("mail".into(), email);
        }
        _ => {
            item.insert("shapeVersion".into(), AttributeValue::N(shape.to_string()));
        }
    }
    item
}

#[tokio::test]
async fn older_shapes_are_read_audited_and_written_back_at_the_current_shape() {
    let items: Vec<Item> = (0..300)
        .map(|id| user_of_shape(id, 1))
        .chain((300..500).map(|id| user_of_shape(id, 2)))
        .chain((500..600).map(|id| UserMapper::to_item(&user(id)).unwrap()))
        .collect();
    let (client, name, _) = local::table_with_items("shapes", SHAPED, items).await;
    let table = Table::new(&client, &name, SHAPED);
    let registry = Registry::builder()
        .register::<UserMapper>(|_| ())
        .build()
        .unwrap();

    // Reads run the missing steps.
    assert_eq!(UserMapper::from_item(user_of_shape(7, 1)).unwrap(), user(7));
    assert_eq!(UserMapper::from_item(user_of_shape(7, 2)).unwrap(), user(7));

    let before = table.sweep(&registry).audit().await.unwrap();
    let users = &before.types["User"];
    assert_eq!(users.shapes, BTreeMap::from([(1, 300), (2, 200), (3, 100)]));
    let shape = |f: Finding| users.findings.get(&f).map_or(0, |found| found.count);
    assert_eq!(shape(Finding::MissingAttribute("shapeVersion".into())), 300);
    assert_eq!(shape(Finding::StaleAttribute("shapeVersion".into())), 200);
    assert!(
        before
            .to_string()
            .contains("(300 of shape 1, 200 of shape 2, 100 of shape 3)"),
        "{before}"
    );

    let report = table.sweep(&registry).backfill().await.unwrap();
    assert_eq!((report.changed, report.unchanged), (500, 100), "{report}");
    assert!(report.failed.is_empty());

    let after = table.sweep(&registry).audit().await.unwrap();
    assert!(after.is_clean(), "{after}");
    assert_eq!(after.types["User"].shapes, BTreeMap::from([(3, 600)]));
    // What the steps removed is gone, and each item is what the mapper
    // writes now.
    for id in [0, 299, 300, 499] {
        let key = UserMapper::key(&user(id)).unwrap();
        let stored = local::get_item(&client, &name, key).await.unwrap();
        assert_eq!(stored, UserMapper::to_item(&user(id)).unwrap(), "user {id}");
    }
    let again = table.sweep(&registry).backfill().await.unwrap();
    assert_eq!((again.changed, again.unchanged), (0, 600));
}

#[test]
fn shapes_newer_than_the_mapper_or_not_numbers_are_errors_naming_the_attribute() {
    for (value, expected) in [
        (
            AttributeValue::N("9".into()),
            "is 9, a newer shape than this mapper reads (1 to 3): the item was written by newer code",
        ),
        (
            AttributeValue::N("0".into()),
            "is 0, not a shape version (a whole number from 1)",
        ),
        (
            AttributeValue::S("3".into()),
            "is a string (S), expected a shape version (a number)",
        ),
    ] {
        let mut item = UserMapper::to_item(&user(1)).unwrap();
        item.insert("shapeVersion".into(), value);
        let err = UserMapper::from_item(item).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidValue, "{err}");
        assert_eq!(err.attribute(), Some("shapeVersion"));
        assert!(err.to_string().contains(expected), "{err}");
        assert_eq!(err.entity_type(), Some("User"));
    }
    // A step's own error, naming what it missed.
    let mut item = user_of_shape(2, 2);
    item.remove("email");
    let err = UserMapper::from_item(item).unwrap_err();
    assert_eq!(err.attribute(), Some("email"), "{err}");

    // Steps without an attribute to keep the shape in: a mapper problem.
    struct Unshaped;
    impl Mapper for Unshaped {
        type Entity = User;
        const ENTITY_TYPE: &'static str = "User";
        const SCHEMA: TableSchema = TableSchema::new("pk");
        const KEY_PATTERNS: &'static [IndexKeys] =
            &[IndexKeys::table(KeyPattern::partition("USER#{id:u6}"))];
        const UPGRADES: &'static [fn(&mut Item) -> dynamodb_mapper::Result<()>] = &[v1_to_v2];
    }
    let err = Unshaped::check().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidMapper);
    assert!(
        err.to_string().contains("declares 1 upgrade steps (UPGRADES), but its table names no attribute for the shape version (TableSchema::shape)"),
        "{err}"
    );
    assert_eq!(
        Unshaped::to_item(&user(1)).unwrap_err().kind(),
        ErrorKind::InvalidMapper
    );
}

// ---------------------------------------------------------------------------
// Answers no emulator gives (mocks)
// ---------------------------------------------------------------------------

mod hostile {
    use aws_sdk_dynamodb::Client;
    use aws_sdk_dynamodb::operation::get_item::GetItemOutput;
    use aws_sdk_dynamodb::operation::scan::ScanOutput;
    use aws_sdk_dynamodb::operation::update_item::UpdateItemOutput;
    use aws_smithy_mocks::mock;
    use dynamodb_mapper_support::requests::mock_client;

    use super::*;

    fn one_page(item: Item) -> aws_smithy_mocks::Rule {
        mock!(Client::scan).then_output(move || ScanOutput::builder().items(item.clone()).build())
    }

    /// An update whose answer is lost is settled by reading the item: done
    /// if it holds what was asked, written again if not; never claimed
    /// without a read that shows it.
    #[tokio::test]
    async fn a_write_without_an_answer_is_settled_by_reading_the_item_again() {
        let old = before_the_index(3);
        let fixed = OrderMapper::to_item(&order(3)).unwrap();
        let registry = registry();

        // Applied after all: the read shows it.
        let scan = one_page(old.clone());
        let update = mock!(Client::update_item)
            .sequence()
            .http_status(500, None)
            .build();
        let got = fixed.clone();
        let get = mock!(Client::get_item)
            .then_output(move || GetItemOutput::builder().set_item(Some(got.clone())).build());
        let client = mock_client(&[&scan, &update, &get]);
        let report = Table::new(&client, "T", T)
            .sweep(&registry)
            .backfill()
            .await
            .unwrap();
        assert_eq!(
            (update.num_calls(), get.num_calls()),
            (1, 1),
            "sent once, read once"
        );
        assert_eq!((report.changed, report.failed.len()), (1, 0), "{report}");
        assert_eq!(report.examples[0].detail, "settled after no answer");

        // Not applied: the read shows the old item, so it is written again.
        let scan = one_page(old.clone());
        let update = mock!(Client::update_item)
            .sequence()
            .http_status(500, None)
            .output(|| UpdateItemOutput::builder().build())
            .build();
        let still = old.clone();
        let get = mock!(Client::get_item).then_output(move || {
            GetItemOutput::builder()
                .set_item(Some(still.clone()))
                .build()
        });
        let client = mock_client(&[&scan, &update, &get]);
        let report = Table::new(&client, "T", T)
            .sweep(&registry)
            .backfill()
            .await
            .unwrap();
        assert_eq!((update.num_calls(), get.num_calls()), (2, 1));
        assert_eq!((report.changed, report.failed.len()), (1, 0), "{report}");
        assert!(
            report.examples[0].detail.starts_with("sets `gsi1pk`"),
            "{report}"
        );

        // A read that answers with another item is an error for this item,
        // not a success.
        let scan = one_page(old.clone());
        let update = mock!(Client::update_item)
            .sequence()
            .http_status(500, None)
            .build();
        let other = OrderMapper::to_item(&order(4)).unwrap();
        let get = mock!(Client::get_item).then_output(move || {
            GetItemOutput::builder()
                .set_item(Some(other.clone()))
                .build()
        });
        let client = mock_client(&[&scan, &update, &get]);
        let report = Table::new(&client, "T", T)
            .sweep(&registry)
            .backfill()
            .await
            .unwrap();
        assert_eq!((report.changed, report.failed.len()), (0, 1), "{report}");
        assert_eq!(report.failed[0].error.kind(), ErrorKind::UnexpectedResponse);
        assert_eq!(report.failed[0].key, OrderMapper::key(&order(3)).unwrap());
    }

    /// A scan that answers with the key it was asked to start from would
    /// never end: an error, not a loop.
    #[tokio::test]
    async fn a_scan_that_does_not_move_on_is_an_error() {
        let registry = registry();
        let item = OrderMapper::to_item(&order(1)).unwrap();
        let key = T.key_of(&item).unwrap();
        let scan = mock!(Client::scan).then_output(move || {
            ScanOutput::builder()
                .items(item.clone())
                .set_last_evaluated_key(Some(key.clone()))
                .build()
        });
        let client = mock_client(&[&scan]);
        let err = Table::new(&client, "T", T)
            .sweep(&registry)
            .audit()
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnexpectedResponse, "{err}");
        assert_eq!(scan.num_calls(), 2);
    }

    /// A scan page that consumed `units` read units, then `next` (if any).
    fn page_of(item: Item, units: f64, next: Option<Item>) -> ScanOutput {
        ScanOutput::builder()
            .items(item)
            .set_last_evaluated_key(next)
            .consumed_capacity(
                aws_sdk_dynamodb::types::ConsumedCapacity::builder()
                    .capacity_units(units)
                    .build(),
            )
            .build()
    }

    /// A budget of 5 read units a second, pages of 10 units: after the
    /// first second's worth, each page waits for what the last one
    /// overspent, measured on the client's own clock and sleep.
    #[tokio::test]
    async fn a_budget_paces_the_scan_by_the_units_reported() {
        use aws_smithy_async::test_util::instant_time_and_sleep;
        use dynamodb_mapper::evolve::Budget;
        let registry = registry();
        let item = OrderMapper::to_item(&order(1)).unwrap();
        let key = T.key_of(&item).unwrap();
        let mut rule = mock!(Client::scan).sequence();
        for _ in 0..4 {
            let (item, key) = (item.clone(), key.clone());
            rule = rule.output(move || page_of(item.clone(), 10.0, Some(key.clone())));
        }
        let last = item.clone();
        let scan = rule
            .output(move || page_of(last.clone(), 10.0, None))
            .build();
        let (time, sleep) = instant_time_and_sleep(UNIX_EPOCH + Duration::from_secs(1_000_000));
        // The table holds 4 items: the time left is estimated from them.
        let describe = mock!(Client::describe_table).then_output(|| {
            aws_sdk_dynamodb::operation::describe_table::DescribeTableOutput::builder()
                .table(
                    aws_sdk_dynamodb::types::TableDescription::builder()
                        .item_count(4)
                        .build(),
                )
                .build()
        });
        let client = aws_smithy_mocks::mock_client!(
            aws_sdk_dynamodb,
            aws_smithy_mocks::RuleMode::MatchAny,
            [&scan, &describe],
            |c| c.time_source(time.clone()).sleep_impl(sleep.clone())
        );
        let budget = Budget::new(5.0, f64::INFINITY);
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        let result = Table::new(&client, "T", T)
            .sweep(&registry)
            .budget(&budget)
            .on_progress(move |p| log.lock().unwrap().push(p.clone()))
            .audit()
            .await;
        // The mock repeats the start key, which the sweep refuses after the
        // second page; what was paced until then is what counts here.
        let err = result.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnexpectedResponse, "{err}");
        assert_eq!(scan.num_calls(), 2);
        // 5 units to start with, 10 spent: the second page waited until one
        // unit was back, 1.2 s at 5 a second (the SDK's own short sleeps
        // aside).
        let long: Vec<Duration> = sleep
            .logs()
            .into_iter()
            .filter(|d| *d >= Duration::from_millis(500))
            .collect();
        assert_eq!(long, [Duration::from_millis(1_200)]);
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 2, "a progress report per page");
        assert_eq!((seen[0].scanned, seen[1].scanned), (1, 2));
        assert_eq!(seen[1].read_units, 20.0);
        let elapsed = seen[1].elapsed;
        assert!(elapsed >= Duration::from_millis(1_200) && elapsed < Duration::from_secs(2));
        // 2 of 4 items so far: as long again left.
        let left = seen[1].estimated_left.expect("an estimate");
        assert!(
            left.abs_diff(elapsed) < Duration::from_millis(1),
            "{left:?} {elapsed:?}"
        );
        assert!((seen[1].units_per_second - 20.0 / elapsed.as_secs_f64()).abs() < 1e-9);
    }

    /// Throttling of the scan and of a write is retried with backoff.
    #[tokio::test]
    async fn throttling_is_retried() {
        use aws_sdk_dynamodb::config::retry::RetryConfig;
        use aws_sdk_dynamodb::operation::scan::ScanError;
        use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
        use aws_sdk_dynamodb::types::error::ProvisionedThroughputExceededException;
        let registry = registry();
        let old = before_the_index(5);
        let page = old.clone();
        // With its code, as DynamoDB sends it: what the SDK's retries look at.
        let throttled = || {
            ProvisionedThroughputExceededException::builder()
                .meta(
                    aws_sdk_dynamodb::error::ErrorMetadata::builder()
                        .code("ProvisionedThroughputExceededException")
                        .build(),
                )
                .build()
        };
        let scan = mock!(Client::scan)
            .sequence()
            .error(move || ScanError::ProvisionedThroughputExceededException(throttled()))
            .output(move || ScanOutput::builder().items(page.clone()).build())
            .build();
        let update = mock!(Client::update_item)
            .sequence()
            .error(move || UpdateItemError::ProvisionedThroughputExceededException(throttled()))
            .output(|| UpdateItemOutput::builder().build())
            .build();
        let client = aws_smithy_mocks::mock_client!(
            aws_sdk_dynamodb,
            aws_smithy_mocks::RuleMode::MatchAny,
            [&scan, &update],
            |c| c.retry_config(
                RetryConfig::standard()
                    .with_max_attempts(3)
                    .with_initial_backoff(Duration::from_millis(1))
            )
        );
        let report = Table::new(&client, "T", T)
            .retry_policy(dynamodb_mapper_support::requests::fast_retry(3))
            .sweep(&registry)
            .backfill()
            .await
            .unwrap();
        assert_eq!((scan.num_calls(), update.num_calls()), (2, 2));
        assert_eq!((report.changed, report.failed.len()), (1, 0), "{report}");
    }

    /// Writes in flight at once take their estimate from the budget before
    /// they are sent: a budget of 1 write unit a second paces three
    /// one-unit writes, whatever the concurrency.
    #[tokio::test]
    async fn a_budget_paces_writes_in_flight() {
        use aws_smithy_async::test_util::instant_time_and_sleep;
        use dynamodb_mapper::evolve::Budget;
        let registry = registry();
        let items: Vec<Item> = (0..3).map(before_the_index).collect();
        let scan = mock!(Client::scan)
            .then_output(move || ScanOutput::builder().set_items(Some(items.clone())).build());
        let update = mock!(Client::update_item).then_output(|| {
            UpdateItemOutput::builder()
                .consumed_capacity(
                    aws_sdk_dynamodb::types::ConsumedCapacity::builder()
                        .capacity_units(1.0)
                        .build(),
                )
                .build()
        });
        let start = UNIX_EPOCH + Duration::from_secs(1_000_000);
        let (time, sleep) = instant_time_and_sleep(start);
        let client = aws_smithy_mocks::mock_client!(
            aws_sdk_dynamodb,
            aws_smithy_mocks::RuleMode::MatchAny,
            [&scan, &update],
            |c| c.time_source(time.clone()).sleep_impl(sleep.clone())
        );
        let report = Table::new(&client, "T", T)
            .sweep(&registry)
            .concurrency(8)
            .budget(&Budget::new(f64::INFINITY, 1.0))
            .backfill()
            .await
            .unwrap();
        assert_eq!((report.changed, report.write_units), (3, 3.0), "{report}");
        // One unit to start with, then one a second: the third write could
        // not be sent before 2 s had passed on the client's clock.
        use aws_smithy_async::time::TimeSource;
        let elapsed = time.now().duration_since(start).unwrap();
        assert!(elapsed >= Duration::from_secs(2), "{elapsed:?}");
        assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
        assert!(!sleep.logs().is_empty());
    }
}
