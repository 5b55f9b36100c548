//! Starts the backend `DYNAMODB_MAPPER_BACKEND` chooses (embedded by
//! default), runs one request and prints timings.
//!
//! ```text
//! cargo run -p dynamodb-mapper-testkit --example start
//! DYNAMODB_MAPPER_BACKEND=dynamodb-local cargo run -p dynamodb-mapper-testkit --example start
//! ```

use std::time::Instant;

use dynamodb_mapper_testkit::{Backend, TestServer, provision};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = Backend::from_env()?;
    println!("backend:     {backend}");
    if backend == Backend::DynamoDbLocal {
        let started = Instant::now();
        let dir = tokio::task::spawn_blocking(provision).await??;
        println!("provisioned: {} ({:.2?})", dir.display(), started.elapsed());
    }

    let started = Instant::now();
    let db = TestServer::start_backend(backend).await?;
    println!(
        "started:     {} java pid {:?} ({:.2?})",
        db.endpoint(),
        db.java_pid(),
        started.elapsed()
    );

    let started = Instant::now();
    let tables = db.client().list_tables().send().await?;
    println!(
        "list_tables: {:?} ({:.2?})",
        tables.table_names(),
        started.elapsed()
    );

    let started = Instant::now();
    drop(db);
    println!("stopped:     ({:.2?})", started.elapsed());
    Ok(())
}
