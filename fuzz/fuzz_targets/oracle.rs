//! The consistency oracle (#29, point 9) driven by the fuzzer's bytes: each
//! input decodes to a sequence of writes through every write helper
//! (`dynamodb_mapper_support::oracle::decode`), run on the embedded
//! emulator with the store checked against the model after every step. A
//! violated invariant panics with the steps and what each reported.
//!
//! The emulator, a current-thread runtime and the two tables are made once
//! per process; `Oracle::run` empties the tables before each input, so runs
//! are independent. Every probe is on (`Probes::ALL`): a finding parked in
//! `tests/oracle.rs` is turned off here too until it is fixed.
#![no_main]

use std::sync::OnceLock;

use dynamodb_mapper_support::local;
use dynamodb_mapper_support::oracle::{self, Oracle, Probes};
use libfuzzer_sys::fuzz_target;

/// Steps per input, at most: an input runs in well under a second.
const MAX_STEPS: usize = 64;

struct Env {
    runtime: tokio::runtime::Runtime,
    oracle: Oracle,
}

fn env() -> &'static Env {
    static ENV: OnceLock<Env> = OnceLock::new();
    ENV.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let oracle = runtime.block_on(async {
            let client = local::client().await;
            Oracle::new(&client, "fuzz-oracle").await
        });
        Env { runtime, oracle }
    })
}

fuzz_target!(|data: &[u8]| {
    let env = env();
    let steps = oracle::decode(data, MAX_STEPS, Probes::ALL);
    if let Err(violation) = env.runtime.block_on(env.oracle.run(&steps)) {
        panic!("{violation}");
    }
});
