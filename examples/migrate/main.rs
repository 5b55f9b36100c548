//! Schema evolution at table scale: a table of 20,000 orders written before
//! their status index existed gets the index, an audit shows every order
//! lacks its index keys, a backfill in four parallel-scan segments writes
//! them (each write conditional on the order being as it was read, paced by
//! a capacity budget, with a progress bar), and a second audit is clean.
//!
//! ```text
//! cargo run --example migrate                   # embedded emulator
//! DYNAMODB_MAPPER_BACKEND=dynamodb-local cargo run --example migrate
//! ```
//!
//! Files: `model.rs` (the order before and after the index), `steps.rs`
//! (what the example does). Each segment is work one process (a Lambda
//! invocation, a container) could do on its own, resuming from its
//! checkpoints: here four tasks of one process.

mod model;
mod steps;

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let mut log = Vec::new();
    let result = steps::run(steps::ORDERS, &mut log).await;
    for line in &log {
        println!("{line}");
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("migrate failed: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests;
