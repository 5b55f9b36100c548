//! Orders by region and what happens to them: a multi-attribute GSI queried
//! from the entity's fields, and the table's stream decoded through the
//! registry, by the same handler a Lambda function would run.
//!
//! ```text
//! cargo run --example order_events                   # embedded emulator
//! DYNAMODB_MAPPER_BACKEND=dynamodb-local cargo run --example order_events
//! ```
//!
//! Files: `model.rs` (the order, its table and index), `handler.rs` (the
//! change handler and the Lambda-style function), `steps.rs` (what the
//! example does).

mod handler;
mod model;
mod steps;

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let mut log = Vec::new();
    let result = steps::run(&mut log).await;
    for line in &log {
        println!("{line}");
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("order_events failed: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests;
