//! The consistency oracle (#29) driven by the fuzzer's bytes: each input is
//! a sequence of writes through the helpers on the embedded emulator, the
//! store checked against the model after every step
//! (`dynamodb_mapper_support::consistency`). The emulator and its two
//! tables are started once per process and emptied before each input.
#![no_main]

use std::sync::OnceLock;

use aws_sdk_dynamodb::Client;
use dynamodb_mapper_support::consistency::{FromBytes, Oracle, PLAIN, VERSIONED};
use dynamodb_mapper_support::local;
use libfuzzer_sys::fuzz_target;

struct Env {
    runtime: tokio::runtime::Runtime,
    client: Client,
    plain: String,
    versioned: String,
}

static ENV: OnceLock<Env> = OnceLock::new();

fn env() -> &'static Env {
    ENV.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let (client, plain, versioned) = runtime.block_on(async {
            let client = local::client().await;
            let plain = local::new_table(&client, "fuzz-plain", PLAIN).await;
            let versioned = local::new_table(&client, "fuzz-versioned", VERSIONED).await;
            (client, plain, versioned)
        });
        Env {
            runtime,
            client,
            plain,
            versioned,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let env = env();
    env.runtime.block_on(async {
        let mut oracle = Oracle::new(env.client.clone(), &env.plain, &env.versioned).await;
        oracle.clear().await;
        let mut choices = FromBytes(data);
        while oracle.step(&mut choices).await.is_some() {}
    });
});
