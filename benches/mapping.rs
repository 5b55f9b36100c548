//! Per-item cost of the mapper on the seed-001 order (8 fields, nested lines,
//! pk/sk, 3 GSI pairs, discriminator) and on the flat seed-001 customer (4
//! string fields, pk/sk, 1 GSI pair, discriminator), side by side with
//! `serde_dynamo` plus hand-inserted keys and with hand-written
//! `AttributeValue` code (the floor), and the lossless record path against
//! the plain path. The README's mapper (keys in `KEY_PATTERNS`) heads each
//! group against hand-written code with the same keys and checks.
//!
//! Every output is dropped outside the measurement (`iter_with_large_drop`
//! for writes, `iter_batched` for reads), for every variant alike; the
//! callgrind bench (`instructions.rs`) counts the drop inside instead.
//! Run: `cargo bench --bench mapping`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use aws_sdk_dynamodb::types::AttributeValue;
use criterion::{Criterion, criterion_group, criterion_main};
use dynamodb_mapper::expr::{Apply, Update, attr};
use dynamodb_mapper::{
    IndexKeys, Item, KeyPattern, Mapper, MapperExt, NamingConvention, TableSchema,
    expr::KeyCondition,
};
use dynamodb_mapper_support::bench::checked::*;
use dynamodb_mapper_support::bench::*;
use dynamodb_mapper_support::seed001::*;

/// Counts heap allocations (and reallocations) while [`COUNTING`] is on, so
/// each benchmark's count per call is reported next to its time; off while
/// criterion measures time, so the count costs the timings nothing but a
/// relaxed load.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

fn count_one() {
    if COUNTING.load(Ordering::Relaxed) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed to the system allocator unchanged; the
// wrapper only counts.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded as received.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: forwarded as received.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocations one call of `f` on an input from `setup` makes (the
/// input made and the result dropped outside the count), the median of 5
/// calls.
fn allocations<I, R>(mut setup: impl FnMut() -> I, mut f: impl FnMut(I) -> R) -> u64 {
    let mut counts: Vec<u64> = (0..5)
        .map(|_| {
            let input = setup();
            COUNTING.store(true, Ordering::Relaxed);
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            let out = black_box(f(input));
            let after = ALLOCATIONS.load(Ordering::Relaxed);
            COUNTING.store(false, Ordering::Relaxed);
            drop(out);
            after - before
        })
        .collect();
    counts.sort_unstable();
    counts[2]
}

/// Allocation counts per call, written to
/// `target/criterion/allocations-mapping.json` for the report.
#[derive(Default)]
struct Counts(Vec<(String, u64)>);

impl Counts {
    fn add<R>(&mut self, id: &str, mut f: impl FnMut() -> R) {
        self.0.push((id.to_owned(), allocations(|| (), |()| f())));
    }

    fn add_batched<I, R>(&mut self, id: &str, setup: impl FnMut() -> I, f: impl FnMut(I) -> R) {
        self.0.push((id.to_owned(), allocations(setup, f)));
    }

    fn write(&self) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/criterion");
        let body: Vec<String> = self
            .0
            .iter()
            .map(|(id, n)| format!("  {id:?}: {n}"))
            .collect();
        let json = format!("{{\n{}\n}}\n", body.join(",\n"));
        if std::fs::create_dir_all(&dir).is_ok() {
            let _ = std::fs::write(dir.join("allocations-mapping.json"), json);
        }
        for (id, n) in &self.0 {
            println!("allocations per call: {id}: {n}");
        }
    }
}

/// The same mapper declaring the key patterns its hooks write (`by_hook`:
/// written once, by the hook, not also rendered), so every `to_item` also
/// checks the written keys against them.
struct OrderChecked;
impl Mapper for OrderChecked {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::AsIs;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer_id}"))
            .sort(KeyPattern::sort("ORDER#{order_id}#{date}"))
            .by_hook(),
        IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
            .sort(KeyPattern::sort("{created_at}"))
            .by_hook(),
        IndexKeys::index("GSI2", KeyPattern::partition("ORDER"))
            .sort(KeyPattern::sort("{created_at}"))
            .by_hook(),
        IndexKeys::index("GSI3", KeyPattern::partition("SHIPPED"))
            .sort(KeyPattern::sort("{shipped_at}"))
            .by_hook(),
    ];
    fn before_to_item(o: &Order) -> dynamodb_mapper::Result<()> {
        OrderMapper::before_to_item(o)
    }
    fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
        order_hook(o, item)
    }
}

type Group<'a> = criterion::BenchmarkGroup<'a, criterion::measurement::WallTime>;

/// Benchmarks `f` as `id` (`group/name`) and counts its allocations.
fn run<R>(g: &mut Group<'_>, counts: &mut Counts, id: &str, mut f: impl FnMut() -> R) {
    counts.add(id, &mut f);
    let name = id.rsplit('/').next().unwrap_or(id);
    g.bench_function(name, |b| b.iter_with_large_drop(&mut f));
}

/// Benchmarks `f` on inputs made by `setup` (outside the measurement, and
/// outside the count).
fn run_batched<I, R>(
    g: &mut Group<'_>,
    counts: &mut Counts,
    id: &str,
    mut setup: impl FnMut() -> I,
    mut f: impl FnMut(I) -> R,
) {
    counts.add_batched(id, &mut setup, &mut f);
    let name = id.rsplit('/').next().unwrap_or(id);
    g.bench_function(name, |b| {
        b.iter_batched(&mut setup, &mut f, criterion::BatchSize::SmallInput)
    });
}

fn bench(c: &mut Criterion) {
    let mut counts = Counts::default();
    let order = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Shipped);
    let item = OrderAsIs::to_item(&order).expect("valid");
    assert_eq!(
        item,
        serde_dynamo_to_item(&order),
        "the paths write the same item"
    );
    assert_eq!(item, hand_to_item(&order), "the floor writes the same item");
    assert_eq!(hand_from_item(item.clone()), order);
    let camel_item = OrderCamel::to_item(&order).expect("valid");
    // The README's way (keys in KEY_PATTERNS) writes what its checked floor
    // writes, keys built with `format!`.
    let pattern_item = OrderPatterns::to_item(&order).expect("valid");
    assert_eq!(
        pattern_item,
        hand_checked_order_with_pattern_keys_to_item(&order)
    );
    assert_eq!(hand_checked_from_item(pattern_item.clone()), order);
    assert_eq!(OrderChecked::to_item(&order).expect("valid"), item);
    // A stored item with attributes the mapper does not know, for the record path.
    let mut stored = item.clone();
    stored.insert("giftNote".into(), s("happy birthday".into()));
    stored.insert("loyaltyTier".into(), s("gold".into()));
    let record = OrderAsIs::record_from_item(stored.clone()).expect("valid");
    let customer = Customer {
        customer_id: "C1".into(),
        email: "ada@example.com".into(),
        name: "Ada".into(),
        created_at: "2024-01-15T10:30:00Z".into(),
    };
    let customer_item = CustomerAsIs::to_item(&customer).expect("valid");
    let customer_pattern_item = CustomerPatterns::to_item(&customer).expect("valid");
    assert_eq!(
        customer_pattern_item,
        hand_checked_customer_to_item(&customer)
    );
    assert_eq!(customer_item, hand_customer_to_item(&customer));
    assert_eq!(customer_item, serde_dynamo_customer_to_item(&customer));
    assert_eq!(hand_customer_from_item(customer_item.clone()), customer);
    // The hand-written checks pass what the mapper writes and refuse what
    // its layout check refuses: they are checks, not a no-op.
    hand_check_write(&item, "Order");
    hand_check_read(&item);
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for broken in ["sk", "gsi1sk", "entityType"] {
        let mut bad = item.clone();
        bad.remove(broken);
        let refused = std::panic::catch_unwind(|| hand_check_write(&bad, "Order")).is_err();
        assert!(refused, "the hand check passes an item without {broken}");
    }
    let mut deep = AttributeValue::S("x".into());
    for _ in 0..40 {
        deep = AttributeValue::L(vec![deep]);
    }
    let mut bad = item.clone();
    bad.insert("deep".into(), deep);
    assert!(std::panic::catch_unwind(|| hand_check_write(&bad, "Order")).is_err());
    assert!(std::panic::catch_unwind(|| hand_check_read(&bad)).is_err());
    std::panic::set_hook(quiet);

    let mut g = c.benchmark_group("to_item");
    // The headline: the README's mapper against hand-written code with the
    // same keys and checks, nested and flat.
    run(&mut g, &mut counts, "to_item/mapper_key_patterns", || {
        OrderPatterns::to_item(black_box(&order))
    });
    run(
        &mut g,
        &mut counts,
        "to_item/hand_written_pattern_keys_checked",
        || hand_checked_order_with_pattern_keys_to_item(black_box(&order)),
    );
    run(
        &mut g,
        &mut counts,
        "to_item/flat_mapper_key_patterns",
        || CustomerPatterns::to_item(black_box(&customer)),
    );
    run(&mut g, &mut counts, "to_item/hand_written", || {
        hand_to_item(black_box(&order))
    });
    run(&mut g, &mut counts, "to_item/hand_written_checked", || {
        hand_checked_to_item(black_box(&order))
    });
    run(&mut g, &mut counts, "to_item/serde_dynamo+keys", || {
        serde_dynamo_to_item(black_box(&order))
    });
    run(&mut g, &mut counts, "to_item/mapper", || {
        OrderAsIs::to_item(black_box(&order))
    });
    run(&mut g, &mut counts, "to_item/mapper_camel_case", || {
        OrderCamel::to_item(black_box(&order))
    });
    run(
        &mut g,
        &mut counts,
        "to_item/mapper_key_patterns_checked",
        || OrderChecked::to_item(black_box(&order)),
    );
    run(&mut g, &mut counts, "to_item/mapper_record", || {
        OrderAsIs::record_to_item(black_box(&record))
    });
    run(
        &mut g,
        &mut counts,
        "to_item/mapper_plain_same_entity",
        || OrderAsIs::to_item(black_box(&record.entity)),
    );
    // The flat entity (strings only, no nesting), the same three ways.
    run(&mut g, &mut counts, "to_item/flat_hand_written", || {
        hand_customer_to_item(black_box(&customer))
    });
    run(
        &mut g,
        &mut counts,
        "to_item/flat_hand_written_checked",
        || hand_checked_customer_to_item(black_box(&customer)),
    );
    run(
        &mut g,
        &mut counts,
        "to_item/flat_serde_dynamo+keys",
        || serde_dynamo_customer_to_item(black_box(&customer)),
    );
    run(&mut g, &mut counts, "to_item/flat_mapper", || {
        CustomerAsIs::to_item(black_box(&customer))
    });
    g.finish();

    let mut g = c.benchmark_group("from_item");
    run_batched(
        &mut g,
        &mut counts,
        "from_item/mapper_key_patterns",
        || pattern_item.clone(),
        OrderPatterns::from_item,
    );
    run_batched(
        &mut g,
        &mut counts,
        "from_item/hand_written_pattern_keys_checked",
        || pattern_item.clone(),
        hand_checked_from_item,
    );
    run_batched(
        &mut g,
        &mut counts,
        "from_item/flat_mapper_key_patterns",
        || customer_pattern_item.clone(),
        CustomerPatterns::from_item,
    );
    run_batched(
        &mut g,
        &mut counts,
        "from_item/hand_written",
        || item.clone(),
        hand_from_item,
    );
    run_batched(
        &mut g,
        &mut counts,
        "from_item/hand_written_checked",
        || item.clone(),
        hand_checked_from_item,
    );
    run_batched(
        &mut g,
        &mut counts,
        "from_item/serde_dynamo+check",
        || item.clone(),
        serde_dynamo_from_item,
    );
    run_batched(
        &mut g,
        &mut counts,
        "from_item/mapper",
        || item.clone(),
        OrderAsIs::from_item,
    );
    run_batched(
        &mut g,
        &mut counts,
        "from_item/mapper_camel_case",
        || camel_item.clone(),
        OrderCamel::from_item,
    );
    // The record path against the plain path, on the same stored item.
    run_batched(
        &mut g,
        &mut counts,
        "from_item/mapper_plain_stored",
        || stored.clone(),
        OrderAsIs::from_item,
    );
    run_batched(
        &mut g,
        &mut counts,
        "from_item/mapper_record_stored",
        || stored.clone(),
        OrderAsIs::record_from_item,
    );
    run_batched(
        &mut g,
        &mut counts,
        "from_item/flat_hand_written",
        || customer_item.clone(),
        hand_customer_from_item,
    );
    run_batched(
        &mut g,
        &mut counts,
        "from_item/flat_hand_written_checked",
        || customer_item.clone(),
        hand_checked_customer_from_item,
    );
    run_batched(
        &mut g,
        &mut counts,
        "from_item/flat_serde_dynamo+check",
        || customer_item.clone(),
        serde_dynamo_customer_from_item,
    );
    run_batched(
        &mut g,
        &mut counts,
        "from_item/flat_mapper",
        || customer_item.clone(),
        CustomerAsIs::from_item,
    );
    g.finish();

    // Key rendering and expression building, next to the mapping they serve.
    const CUSTOMER_PK: KeyPattern = KeyPattern::partition("CUSTOMER#{customer_id}");
    const ORDER_SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}#{created:ts3}");
    let created = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_705_314_600);
    let mut g = c.benchmark_group("keys_and_expressions");
    run(
        &mut g,
        &mut counts,
        "keys_and_expressions/mapper_to_item",
        || OrderAsIs::to_item(black_box(&order)),
    );
    run(
        &mut g,
        &mut counts,
        "keys_and_expressions/render_pk_and_sk",
        || {
            let pk = CUSTOMER_PK
                .with("customer_id", black_box("C1"))
                .render()
                .expect("renders");
            let sk = ORDER_SK
                .with("order_id", black_box("O1"))
                .with("created", created)
                .render()
                .expect("renders");
            (pk, sk)
        },
    );
    // The same two keys written by hand (no escaping), the floor.
    run(
        &mut g,
        &mut counts,
        "keys_and_expressions/format_pk_and_sk",
        || {
            let pk = format!("CUSTOMER#{}", black_box("C1"));
            let at = iso_millis(black_box(created));
            let sk = format!("ORDER#{}#{at}", black_box("O1"));
            (pk, sk)
        },
    );
    let sk = ORDER_SK
        .with("order_id", "O1")
        .with("created", created)
        .render()
        .expect("renders");
    run(&mut g, &mut counts, "keys_and_expressions/parse_sk", || {
        ORDER_SK.parse(black_box(&sk)).expect("parses")
    });
    run(
        &mut g,
        &mut counts,
        "keys_and_expressions/key_condition_begins_with",
        || {
            KeyCondition::new(APP_TABLE, black_box("CUSTOMER#C1"))
                .and(attr("sk").begins_with(black_box("ORDER#")))
                .build()
                .expect("builds")
        },
    );
    // Updates: the builder (three actions, one a computation) next to
    // `to_item`, and the typed partial update, which writes both entities
    // (two `to_item`s) and compares them.
    run(
        &mut g,
        &mut counts,
        "keys_and_expressions/update_builder",
        || {
            Update::new()
                .set(attr("status"), black_box("Shipped"))
                .set(attr("trackingNumber"), black_box("TRK1"))
                .set(attr("totalCents"), attr("totalCents").plus(black_box(100)))
                .build()
                .expect("builds")
        },
    );
    // The same update written by hand for the SDK (text, names, values),
    // the floor.
    run(
        &mut g,
        &mut counts,
        "keys_and_expressions/update_hand_written",
        || {
            let names = std::collections::HashMap::from([
                ("#s".to_owned(), "status".to_owned()),
                ("#t".to_owned(), "trackingNumber".to_owned()),
                ("#c".to_owned(), "totalCents".to_owned()),
            ]);
            let values = std::collections::HashMap::from([
                (":s".to_owned(), s(black_box("Shipped").to_owned())),
                (":t".to_owned(), s(black_box("TRK1").to_owned())),
                (
                    ":c".to_owned(),
                    AttributeValue::N(black_box(100).to_string()),
                ),
            ]);
            (
                "SET #s = :s, #t = :t, #c = #c + :c".to_owned(),
                names,
                values,
            )
        },
    );
    // The same update as a user sends it: on an `UpdateItem` request, with
    // `apply`, against the SDK's own setters with hand-written text,
    // names and values. No request is sent.
    let client = dynamodb_mapper_support::doc::client();
    run(
        &mut g,
        &mut counts,
        "keys_and_expressions/update_request",
        || {
            client
                .update_item()
                .apply(
                    Update::new()
                        .set(attr("status"), black_box("Shipped"))
                        .set(attr("trackingNumber"), black_box("TRK1"))
                        .set(attr("totalCents"), attr("totalCents").plus(black_box(100))),
                )
                .expect("builds")
        },
    );
    run(
        &mut g,
        &mut counts,
        "keys_and_expressions/update_request_hand_written",
        || {
            client
                .update_item()
                .update_expression("SET #s = :s, #t = :t, #c = #c + :c")
                .expression_attribute_names("#s", "status")
                .expression_attribute_names("#t", "trackingNumber")
                .expression_attribute_names("#c", "totalCents")
                .expression_attribute_values(":s", s(black_box("Shipped").to_owned()))
                .expression_attribute_values(":t", s(black_box("TRK1").to_owned()))
                .expression_attribute_values(":c", AttributeValue::N(black_box(100).to_string()))
        },
    );
    let mut delivered = order.clone();
    delivered.status = OrderStatus::Delivered;
    delivered.tracking_number = Some("TRK1".into());
    run(
        &mut g,
        &mut counts,
        "keys_and_expressions/update_between",
        || Update::between::<OrderAsIs>(black_box(&order), black_box(&delivered)).expect("diffs"),
    );
    run(
        &mut g,
        &mut counts,
        "keys_and_expressions/filter_condition",
        || {
            (attr("status").eq(black_box("Shipped")) & attr("totalCents").gt(black_box(1000)))
                .build()
                .expect("builds")
        },
    );
    g.finish();
    counts.write();
}

criterion_group!(benches, bench);
criterion_main!(benches);

/// `at` as `YYYY-MM-DDTHH:MM:SS.mmmZ`, written by hand as a user without a
/// time crate would (days to civil date: Howard Hinnant's algorithm), for
/// the hand-written key floor. Times before the epoch are not needed here.
fn iso_millis(at: std::time::SystemTime) -> String {
    let since = at.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600,
        rest / 60 % 60,
        rest % 60,
        since.subsec_millis()
    )
}
