//! End to end on DynamoDB Local (the testkit's reference server, started
//! whatever `DYNAMODB_MAPPER_BACKEND` says, or `DYNAMODB_ENDPOINT`; its JIT
//! as `DYNAMODB_LOCAL_JIT` says, `full` for benchmarks): writing 10,000
//! items with the batch helper against sequential `PutItem`, concurrent
//! `PutItem` and a hand-written `BatchWriteItem` loop with as many requests
//! in flight as the helper, reading them back by key with the batch getter
//! against a hand-written `BatchGetItem` loop, and through a paginated,
//! registry-decoded query; and backfilling the index keys of 10,000 items
//! that lack them with `Sweep::backfill` (4 segments, 8 writes in flight
//! each) against a hand-written parallel scan whose writes are the same
//! conditional `UpdateItem`s with the same concurrency, and a blind
//! `BatchWriteItem` of the re-rendered items (what the safety costs). Also
//! measures the peak heap of the paginated read
//! for several page sizes and the client's share of the batch write's time,
//! written to `target/criterion/e2e_memory.json` and `e2e_profile.json`.
//! Run: `cargo bench --bench e2e`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use criterion::{Criterion, criterion_group, criterion_main};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{Item, MapperExt, Registry};
use dynamodb_mapper_support::bench::OrderCamel;
use dynamodb_mapper_support::local;
use dynamodb_mapper_support::seed001::*;
use futures_util::StreamExt;

/// Counts live heap bytes and their peak, to show the paginated read holds
/// one page at a time.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: delegates to the system allocator; only adds atomic counters.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const N: usize = 10_000;

fn orders() -> Vec<Item> {
    (0..N)
        .map(|i| {
            OrderCamel::to_item(&order(
                "BENCH",
                &format!("O{i:05}"),
                "2024-01-15T10:30:00Z",
                OrderStatus::Shipped,
            ))
            .expect("valid")
        })
        .collect()
}

fn registry() -> Registry<Order> {
    Registry::<Order>::builder()
        .register::<OrderCamel>(|o| o)
        .build()
        .expect("valid design")
}

fn partition_query(
    client: &Client,
    table: &str,
    page: i32,
) -> aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder {
    client
        .query()
        .table_name(table)
        .key_condition_expression("pk = :pk")
        .expression_attribute_values(":pk", AttributeValue::S("CUSTOMER#BENCH".into()))
        .limit(page)
}

async fn read_all(client: &Client, table: &str, page: i32, registry: &Registry<Order>) -> usize {
    let stream = Table::new(client, table, APP_TABLE)
        .query_stream(partition_query(client, table, page), registry);
    futures_util::pin_mut!(stream);
    let mut n = 0;
    while let Some(decoded) = stream.next().await {
        let order = decoded.expect("decodes").into_entity().expect("an order");
        std::hint::black_box(order);
        n += 1;
    }
    n
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    // DynamoDB Local, whatever backend the tests use: the figures in
    // BENCHMARKS.md are measured on it.
    let client = rt.block_on(async {
        dynamodb_mapper_testkit::reference_client()
            .await
            .unwrap_or_else(|e| panic!("the e2e bench runs on DynamoDB Local: {e}"))
    });
    let table = rt.block_on(local::new_table(&client, "bench", APP_TABLE));
    let items = orders();
    let registry = registry();

    let mut g = c.benchmark_group("write_10000");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(1));
    g.measurement_time(Duration::from_secs(60));
    g.bench_function("sequential_put_item", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    for item in &items {
                        client
                            .put_item()
                            .table_name(&table)
                            .set_item(Some(item.clone()))
                            .send()
                            .await
                            .expect("put");
                    }
                }
                start.elapsed()
            })
        })
    });
    g.bench_function("concurrent_put_item", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let written = futures_util::stream::iter(&items)
                        .map(|item| {
                            client
                                .put_item()
                                .table_name(&table)
                                .set_item(Some(item.clone()))
                                .send()
                        })
                        .buffer_unordered(PUT_IN_FLIGHT)
                        .fold(0, |n, sent| async move {
                            sent.expect("put");
                            n + 1
                        })
                        .await;
                    assert_eq!(written, N);
                }
                start.elapsed()
            })
        })
    });
    g.bench_function("hand_batch_write_item", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    assert_eq!(hand_batch_write(&client, &table, &items).await, N);
                }
                start.elapsed()
            })
        })
    });
    g.bench_function("batch_writer", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let writer = Table::new(&client, &table, APP_TABLE).batch_writer();
                let start = Instant::now();
                for _ in 0..iters {
                    let summary = writer.put_items(items.clone()).await.expect("batch");
                    assert_eq!(summary.items, N, "every item written");
                }
                start.elapsed()
            })
        })
    });
    g.finish();

    // Backfilling the index keys of 10,000 items that lack them. Each
    // iteration writes the old items again first (not timed).
    let old = before_the_indexes(&items);
    let reset = || {
        rt.block_on(
            Table::new(&client, &table, APP_TABLE)
                .batch_writer()
                .put_items(old.clone()),
        )
        .expect("batch");
    };
    let mut g = c.benchmark_group("backfill_10000");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(1));
    g.measurement_time(Duration::from_secs(60));
    g.bench_function("sweep_backfill", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                reset();
                spent += rt.block_on(async {
                    let table = Table::new(&client, &table, APP_TABLE);
                    let start = Instant::now();
                    let runs = (0..SEGMENTS as u32).map(|i| {
                        table
                            .sweep(&registry)
                            .segment(i, SEGMENTS as u32)
                            .concurrency(WRITES_IN_FLIGHT)
                            .backfill()
                    });
                    let changed: u64 = futures_util::future::join_all(runs)
                        .await
                        .into_iter()
                        .map(|r| r.expect("backfill").changed)
                        .sum();
                    assert_eq!(changed, N as u64);
                    start.elapsed()
                });
            }
            spent
        })
    });
    g.bench_function("hand_parallel_scan_conditional_update", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                reset();
                spent += rt.block_on(async {
                    let start = Instant::now();
                    assert_eq!(hand_backfill(&client, &table).await, N);
                    start.elapsed()
                });
            }
            spent
        })
    });
    g.bench_function("blind_batch_write_item", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                reset();
                spent += rt.block_on(async {
                    let start = Instant::now();
                    assert_eq!(blind_backfill(&client, &table).await, N);
                    start.elapsed()
                });
            }
            spent
        })
    });
    g.finish();

    // Reading the same 10,000 items back by key: the batch getter against
    // the best hand-written `BatchGetItem` loop (raw items on both sides).
    let keys: Vec<Item> = items
        .iter()
        .map(|item| APP_TABLE.key_of(item).expect("a key"))
        .collect();
    // Written once more, so the items are there however the groups are
    // filtered.
    rt.block_on(
        Table::new(&client, &table, APP_TABLE)
            .batch_writer()
            .put_items(items.clone()),
    )
    .expect("batch");
    let mut g = c.benchmark_group("get_10000");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(1));
    g.measurement_time(Duration::from_secs(30));
    g.bench_function("hand_batch_get_item", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    assert_eq!(hand_batch_get(&client, &table, &keys).await, N);
                }
                start.elapsed()
            })
        })
    });
    g.bench_function("batch_getter", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let getter = Table::new(&client, &table, APP_TABLE).batch_getter();
                let start = Instant::now();
                for _ in 0..iters {
                    let (found, _) = getter.get_items(keys.clone()).await.expect("batch get");
                    assert_eq!(found.len(), N, "every item read");
                }
                start.elapsed()
            })
        })
    });
    g.finish();

    let mut g = c.benchmark_group("read_10000");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    g.bench_function("query_stream_registry", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    assert_eq!(read_all(&client, &table, 1000, &registry).await, N);
                }
                start.elapsed()
            })
        })
    });
    g.finish();

    // Where the batch write's time goes: this process's CPU time against wall
    // time for one more 10,000-item batch write (the rest is the server).
    let cpu0 = process_cpu_seconds();
    let start = Instant::now();
    rt.block_on(
        Table::new(&client, &table, APP_TABLE)
            .batch_writer()
            .put_items(items.clone()),
    )
    .expect("batch");
    let wall = start.elapsed().as_secs_f64();
    let cpu = process_cpu_seconds().map(|c| c - cpu0.unwrap_or(c));
    let profile = format!(
        "{{\n  \"batch_wall_seconds\": {wall:.3},\n  \"batch_client_cpu_seconds\": {},\n  \"jit\": \"{}\"\n}}\n",
        cpu.map_or("null".to_owned(), |c| format!("{c:.3}")),
        dynamodb_mapper_testkit::dynamodb_local_jit()
    );
    println!("batch write profile: {profile}");

    // Peak heap above the baseline while streaming all 10,000 items, by page
    // size, against collecting every item first.
    let mut rows = Vec::new();
    for page in [100, 500, 2000] {
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let n = rt.block_on(read_all(&client, &table, page, &registry));
        assert_eq!(n, N);
        rows.push((
            format!("stream, page {page}"),
            PEAK.load(Ordering::Relaxed) - base,
        ));
    }
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let all: Vec<Order> = rt.block_on(async {
        let mut out = Vec::new();
        let mut pages = partition_query(&client, &table, 1000)
            .into_paginator()
            .send();
        while let Some(page) = pages.next().await {
            for item in page.expect("page").items.unwrap_or_default() {
                out.push(OrderCamel::from_item(item).expect("decodes"));
            }
        }
        out
    });
    assert_eq!(all.len(), N);
    rows.push((
        "collect all".to_string(),
        PEAK.load(Ordering::Relaxed) - base,
    ));
    drop(all);
    // A sweep holds a page per segment: its peak grows with the page size
    // and the segments run at once, not with the table.
    let sweeping = Table::new(&client, &table, APP_TABLE);
    for page in [100, 1000] {
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let runs = (0..SEGMENTS as u32).map(|i| {
            sweeping
                .sweep(&registry)
                .segment(i, SEGMENTS as u32)
                .page_size(page)
                .audit()
        });
        let scanned: u64 = rt
            .block_on(futures_util::future::join_all(runs))
            .into_iter()
            .map(|r| r.expect("audit").scanned)
            .sum();
        assert_eq!(scanned, N as u64);
        rows.push((
            format!("audit, {SEGMENTS} segments, page {page}"),
            PEAK.load(Ordering::Relaxed) - base,
        ));
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let runs = (0..SEGMENTS as u32).map(|i| {
            sweeping
                .sweep(&registry)
                .segment(i, SEGMENTS as u32)
                .page_size(page)
                .dry_run()
                .backfill()
        });
        let scanned: u64 = rt
            .block_on(futures_util::future::join_all(runs))
            .into_iter()
            .map(|r| r.expect("backfill").scanned)
            .sum();
        assert_eq!(scanned, N as u64);
        rows.push((
            format!("backfill (dry run), {SEGMENTS} segments, page {page}"),
            PEAK.load(Ordering::Relaxed) - base,
        ));
    }
    let json = rows
        .iter()
        .map(|(k, v)| format!("  {k:?}: {v}"))
        .collect::<Vec<_>>()
        .join(",\n");
    println!("peak heap during the read (bytes above baseline):\n{json}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/criterion");
    let _ = std::fs::create_dir_all(&dir);
    std::fs::write(dir.join("e2e_memory.json"), format!("{{\n{json}\n}}\n"))
        .expect("write memory report");
    std::fs::write(dir.join("e2e_profile.json"), profile).expect("write profile");
}

/// Parallel-scan segments and writes in flight per segment, in the
/// backfill group, for the helper and the hand-written loop alike.
const SEGMENTS: i32 = 4;
const WRITES_IN_FLIGHT: usize = 8;

/// The orders as written before their mapper rendered index keys.
fn before_the_indexes(items: &[Item]) -> Vec<Item> {
    items
        .iter()
        .map(|item| {
            let mut item = item.clone();
            item.retain(|name, _| !name.starts_with("gsi"));
            item
        })
        .collect()
}

/// The hand-written backfill: each segment scanned page by page, each item
/// read and written back through the mapper, and the attributes that
/// differ set by an `UpdateItem` whose condition is every attribute the
/// mapper writes as read (what `Sweep::backfill` sends), `WRITES_IN_FLIGHT`
/// at a time. Returns the items written.
async fn hand_backfill(client: &Client, table: &str) -> usize {
    let segments = (0..SEGMENTS).map(|segment| async move {
        let mut written = 0;
        let mut pages = client
            .scan()
            .table_name(table)
            .segment(segment)
            .total_segments(SEGMENTS)
            .into_paginator()
            .send();
        while let Some(page) = pages.next().await {
            let items = page.expect("scan").items.unwrap_or_default();
            written += futures_util::stream::iter(items)
                .map(|stored| async move {
                    let rendered = OrderCamel::to_item(
                        &OrderCamel::from_item(stored.clone()).expect("an order"),
                    )
                    .expect("renders");
                    let mut request = client
                        .update_item()
                        .table_name(table)
                        .set_key(Some(APP_TABLE.key_of(&stored).expect("a key")));
                    let mut sets = Vec::new();
                    let mut conditions = Vec::new();
                    for (i, (name, value)) in rendered.iter().enumerate() {
                        request = request.expression_attribute_names(format!("#a{i}"), name);
                        match stored.get(name) {
                            Some(was) => {
                                conditions.push(format!("#a{i} = :w{i}"));
                                request = request
                                    .expression_attribute_values(format!(":w{i}"), was.clone());
                            }
                            None => conditions.push(format!("attribute_not_exists(#a{i})")),
                        }
                        if stored.get(name) != Some(value) && name != "entityType" {
                            sets.push(format!("#a{i} = :v{i}"));
                            request = request
                                .expression_attribute_values(format!(":v{i}"), value.clone());
                        }
                    }
                    if sets.is_empty() {
                        return 0;
                    }
                    request
                        .update_expression(format!("SET {}", sets.join(", ")))
                        .condition_expression(conditions.join(" AND "))
                        .send()
                        .await
                        .expect("update");
                    1
                })
                .buffer_unordered(WRITES_IN_FLIGHT)
                .fold(0, |n, w| async move { n + w })
                .await;
        }
        written
    });
    futures_util::future::join_all(segments)
        .await
        .into_iter()
        .sum()
}

/// The blind way: each segment scanned, its items re-rendered and written
/// whole with `BatchWriteItem`, no condition (a concurrent write can be
/// lost). Returns the items written.
async fn blind_backfill(client: &Client, table: &str) -> usize {
    let segments = (0..SEGMENTS).map(|segment| async move {
        let mut written = 0;
        let mut pages = client
            .scan()
            .table_name(table)
            .segment(segment)
            .total_segments(SEGMENTS)
            .into_paginator()
            .send();
        while let Some(page) = pages.next().await {
            let rendered: Vec<Item> = page
                .expect("scan")
                .items
                .unwrap_or_default()
                .into_iter()
                .map(|stored| {
                    OrderCamel::to_item(&OrderCamel::from_item(stored).expect("an order"))
                        .expect("renders")
                })
                .collect();
            written += hand_batch_write(client, table, &rendered).await;
        }
        written
    });
    futures_util::future::join_all(segments)
        .await
        .into_iter()
        .sum()
}

/// `PutItem` requests in flight in `concurrent_put_item`.
const PUT_IN_FLIGHT: usize = 16;

/// `BatchWriteItem` requests in flight in the hand-written loop: as many as
/// the batch writer's default concurrency.
const BATCHES_IN_FLIGHT: usize = 4;

/// The best plain-SDK batch write: chunks of 25, `BATCHES_IN_FLIGHT` at a
/// time, each request's `UnprocessedItems` sent again until none is left;
/// no consumed capacity asked for. Returns the items written.
async fn hand_batch_write(client: &Client, table: &str, items: &[Item]) -> usize {
    use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
    futures_util::stream::iter(items.chunks(25))
        .map(|chunk| async move {
            let mut requests: Vec<WriteRequest> = chunk
                .iter()
                .map(|item| {
                    WriteRequest::builder()
                        .put_request(
                            PutRequest::builder()
                                .set_item(Some(item.clone()))
                                .build()
                                .expect("put request"),
                        )
                        .build()
                })
                .collect();
            let n = requests.len();
            while !requests.is_empty() {
                let out = client
                    .batch_write_item()
                    .request_items(table, requests)
                    .send()
                    .await
                    .expect("batch write");
                requests = out
                    .unprocessed_items
                    .and_then(|mut u| u.remove(table))
                    .unwrap_or_default();
            }
            n
        })
        .buffer_unordered(BATCHES_IN_FLIGHT)
        .fold(0, |total, n| async move { total + n })
        .await
}

/// The best plain-SDK batch get: chunks of 100 keys, `BATCHES_IN_FLIGHT` at
/// a time, each request's `UnprocessedKeys` asked again until none is left;
/// no consumed capacity asked for. Returns the items read.
async fn hand_batch_get(client: &Client, table: &str, keys: &[Item]) -> usize {
    use aws_sdk_dynamodb::types::KeysAndAttributes;
    futures_util::stream::iter(keys.chunks(100))
        .map(|chunk| async move {
            let mut pending = Some(
                KeysAndAttributes::builder()
                    .set_keys(Some(chunk.to_vec()))
                    .build()
                    .expect("keys"),
            );
            let mut read = 0;
            while let Some(request) = pending.take() {
                let out = client
                    .batch_get_item()
                    .request_items(table, request)
                    .send()
                    .await
                    .expect("batch get");
                read += out
                    .responses
                    .and_then(|mut r| r.remove(table))
                    .map_or(0, |items| items.len());
                pending = out
                    .unprocessed_keys
                    .and_then(|mut u| u.remove(table))
                    .filter(|k| !k.keys.is_empty());
            }
            read
        })
        .buffer_unordered(BATCHES_IN_FLIGHT)
        .fold(0, |total, n| async move { total + n })
        .await
}

/// User + system CPU seconds of this process (Linux `/proc/self/stat`).
fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

criterion_group!(benches, bench);
criterion_main!(benches);
