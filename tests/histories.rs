//! Histories (#45): several clients at once under seeded faults and
//! cancellation, in a deterministic world over the embedded emulator;
//! every outcome judged against what the emulator applied
//! (`dynamodb_mapper_support::histories`).
//!
//! `HISTORIES_SEEDS` sets how many seeds (2,000 by default) and
//! `HISTORIES_BASE` the first one (printed); `HISTORIES_SEED` replays one
//! (`HISTORIES_PRINT` prints its history).

use dynamodb_mapper_support::histories::{judge::judge, run};

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// Runs `seed`, judges it, and for every `every`-th seed runs it again and
/// compares the two wire logs.
fn check(seed: u64, twice: bool) -> Result<(), String> {
    let history = run(seed)?;
    if std::env::var_os("HISTORIES_PRINT").is_some() {
        eprintln!("{}", history.render());
    }
    let broken = judge(&history);
    if !broken.is_empty() {
        return Err(format!(
            "seed {seed} (replay with HISTORIES_SEED={seed}):\n{}\n\n{}",
            broken.join("\n"),
            history.render()
        ));
    }
    if twice {
        let again = run(seed)?;
        if again.wire != history.wire {
            let at = history
                .wire
                .lines()
                .zip(again.wire.lines())
                .position(|(a, b)| a != b);
            return Err(format!(
                "seed {seed}: two runs gave different wire logs (first difference at line {at:?}):\n{}\n---\n{}",
                history.wire, again.wire
            ));
        }
    }
    Ok(())
}

/// Seeds kept for what they found, replayed first (`seed  # why` lines).
const KEPT: &str = include_str!("fixtures/histories_seeds.txt");

#[test]
fn histories_kept_for_what_they_found_still_pass_twice_alike() {
    for line in KEPT.lines() {
        let seed = line.split('#').next().unwrap_or_default().trim();
        if seed.is_empty() {
            continue;
        }
        let seed: u64 = seed
            .parse()
            .unwrap_or_else(|_| panic!("not a seed: {line:?}"));
        if let Err(e) = check(seed, true) {
            panic!("{e}");
        }
    }
}

#[test]
fn histories_keep_every_promise_under_concurrency_faults_and_cancellation() {
    if let Some(seed) = env_u64("HISTORIES_SEED") {
        if let Err(e) = check(seed, true) {
            panic!("{e}");
        }
        return;
    }
    let count = env_u64("HISTORIES_SEEDS").unwrap_or(2_000);
    let base = env_u64("HISTORIES_BASE").unwrap_or(0x4845_0000);
    eprintln!("histories: {count} seeds from {base} (HISTORIES_BASE={base})");
    // Two threads (the machine's cores), each its own worlds.
    let workers = 2;
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..workers)
            .map(|k| {
                scope.spawn(move || {
                    let mut failures = Vec::new();
                    for seed in (base + k..base + count).step_by(workers as usize) {
                        if let Err(e) = check(seed, seed % 50 == 0) {
                            failures.push(e);
                            if failures.len() >= 2 {
                                break;
                            }
                        }
                    }
                    failures
                })
            })
            .collect();
        runs.into_iter()
            .flat_map(|r| {
                r.join()
                    .unwrap_or_else(|_| vec!["a worker panicked".into()])
            })
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
