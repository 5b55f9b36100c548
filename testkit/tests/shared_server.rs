//! The process-wide shared server (the backend DYNAMODB_MAPPER_BACKEND
//! chooses, embedded by default), used from several tests, each
//! with its own tokio runtime.

mod common;

use common::{CHILD_MODE, ChildTest, create_table, put_and_get};
use dynamodb_mapper_testkit::{shared, unique_table_name};

#[tokio::test]
async fn shared_server_put_and_get() {
    let client = shared().await.unwrap().client();
    let table = unique_table_name("shared_put_get");
    create_table(&client, &table).await;
    put_and_get(&client, &table, "user#1", "alice").await;
}

#[tokio::test]
async fn shared_server_second_test_same_server() {
    let db = shared().await.unwrap();
    let client = db.client();
    let table = unique_table_name("shared_second");
    create_table(&client, &table).await;
    for i in 0..5 {
        put_and_get(&client, &table, &format!("user#{i}"), "bob").await;
    }
    // Same instance for every caller.
    assert!(std::ptr::eq(db, shared().await.unwrap()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_server_multi_thread_runtime() {
    let client = dynamodb_mapper_testkit::client().await.unwrap();
    let table = unique_table_name("shared_multi");
    create_table(&client, &table).await;
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let client = client.clone();
            let table = table.clone();
            tokio::spawn(async move {
                put_and_get(&client, &table, &format!("k{i}"), &format!("v{i}")).await
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
}

/// Plain #[test] with its own runtimes, one after the other: clients must not
/// be tied to a runtime that is gone.
#[test]
fn shared_server_from_successive_runtimes() {
    let table = unique_table_name("shared_runtimes");
    for round in 0..3 {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let client = shared().await.unwrap().client();
            if round == 0 {
                create_table(&client, &table).await;
            }
            put_and_get(&client, &table, "round", &round.to_string()).await;
        });
    }
}

/// With DYNAMODB_ENDPOINT set, `shared()` starts nothing and uses the endpoint.
#[cfg(unix)]
#[tokio::test]
async fn dynamodb_endpoint_env_var_is_used() {
    let db = shared().await.unwrap();
    let client = db.client();
    let table = unique_table_name("endpoint_env");
    create_table(&client, &table).await;

    let endpoint = db.endpoint().to_string();
    let child = ChildTest::spawn("endpoint", |c| {
        c.env("DYNAMODB_ENDPOINT", &endpoint)
            // Proves nothing is started: java is not even findable.
            .env("PATH", "/nonexistent");
    });
    let (status, output) = tokio::task::spawn_blocking(|| child.finish())
        .await
        .unwrap();
    assert!(status.success(), "child failed:\n{output}");
    assert!(output.contains("JAVA_PID=None"), "{output}");
    assert!(output.contains(&format!("ENDPOINT={endpoint}")), "{output}");
    assert!(
        output.contains(&format!("TABLE={table}")),
        "child did not see table {table}:\n{output}"
    );
}

/// Entry point of the child processes (does nothing in a normal test run).
#[test]
fn child_process_entry() {
    let Ok(mode) = std::env::var(CHILD_MODE) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        match mode.as_str() {
            "endpoint" => {
                let db = shared().await.unwrap();
                println!("JAVA_PID={:?}", db.java_pid());
                println!("ENDPOINT={}", db.endpoint());
                let tables = db.client().list_tables().send().await.unwrap();
                for table in tables.table_names() {
                    println!("TABLE={table}");
                }
            }
            other => panic!("unknown child mode {other}"),
        }
    });
}
