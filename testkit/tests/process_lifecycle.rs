//! The DynamoDB Local backend: no java process, and no temporary directory
//! of one, outlives its owner, and missing tools give helpful errors.

#![cfg(unix)]

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::{
    CHILD_MODE, ChildTest, assert_dir_gone_within, assert_gone_within, assert_java_temp_dir,
    fresh_dir, is_running, java_on_path,
};
use dynamodb_mapper_testkit::{BACKEND_ENV, TestServer, TestkitError, shared};

#[tokio::test]
#[ignore = "starts DynamoDB Local (Java 17; npm once): cargo test -p dynamodb-mapper-testkit -- --ignored"]
async fn drop_stops_owned_instance() {
    let db = TestServer::start_dynamodb_local().await.unwrap();
    let pid = db.java_pid().expect("an owned instance has a java process");
    assert!(is_running(pid));
    let temp_dir = db.temp_dir().expect("a java process has one").to_path_buf();
    // Tables make DynamoDB Local use sqlite.
    let table = dynamodb_mapper_testkit::unique_table_name("drop");
    common::create_table(&db.client(), &table).await;
    common::put_and_get(&db.client(), &table, "k", "v").await;
    assert_java_temp_dir(&temp_dir);
    let endpoint = db.endpoint().to_string();
    drop(db);
    // Drop waits until java is gone, and removes its temp dir.
    assert!(!is_running(pid), "java pid {pid} still running after drop");
    assert!(!temp_dir.exists(), "{} left after drop", temp_dir.display());
    // And the port no longer answers.
    let client = TestServer::connect(endpoint).unwrap().client();
    assert!(client.list_tables().send().await.is_err());
}

#[tokio::test]
#[ignore = "starts DynamoDB Local (Java 17; npm once): cargo test -p dynamodb-mapper-testkit -- --ignored"]
async fn owned_instances_are_independent() {
    let a = TestServer::start_dynamodb_local().await.unwrap();
    let b = TestServer::start_dynamodb_local().await.unwrap();
    assert_ne!(a.endpoint(), b.endpoint());
    assert_ne!(a.java_pid(), b.java_pid());
    assert_ne!(a.temp_dir(), b.temp_dir());
    let table = dynamodb_mapper_testkit::unique_table_name("independent");
    common::create_table(&a.client(), &table).await;
    let b_tables = b.client().list_tables().send().await.unwrap();
    assert!(!b_tables.table_names().contains(&table));
}

/// A child test process holding a `shared()` DynamoDB Local; returns it,
/// java's pid and java's temporary directory, both checked to be there.
fn shared_server_child(
    mode: &str,
    configure: impl FnOnce(&mut Command),
) -> (ChildTest, u32, PathBuf) {
    let mut child = ChildTest::spawn(mode, |c| {
        c.env_remove("DYNAMODB_ENDPOINT")
            .env(BACKEND_ENV, "dynamodb-local");
        configure(c);
    });
    let pid: u32 = child.wait_for_line("JAVA_PID=").trim().parse().unwrap();
    let temp_dir = PathBuf::from(child.wait_for_line("TEMP_DIR=").trim());
    assert!(is_running(pid), "java {pid} is not running");
    assert_java_temp_dir(&temp_dir);
    // Only now may a child that ends by itself (exit, panic) go on: before,
    // it could stop java before these checks ran.
    child.go_on();
    (child, pid, temp_dir)
}

#[test]
#[ignore = "starts DynamoDB Local (Java 17; npm once): cargo test -p dynamodb-mapper-testkit -- --ignored"]
fn sigkill_of_test_process_stops_java() {
    let (mut child, pid, temp_dir) = shared_server_child("shared-then-sleep", |_| {});
    child.child.kill().unwrap(); // SIGKILL: no destructor, no atexit, nothing
    child.child.wait().unwrap();
    assert_gone_within(pid, Duration::from_secs(5), "SIGKILL of the test process");
    assert_dir_gone_within(
        &temp_dir,
        Duration::from_secs(5),
        "SIGKILL of the test process",
    );
}

/// Ctrl-C in a terminal: SIGINT to the whole process group, so also to the
/// wrapper shell; java and the watchdog ignore it.
#[test]
#[ignore = "starts DynamoDB Local (Java 17; npm once): cargo test -p dynamodb-mapper-testkit -- --ignored"]
fn sigint_to_the_process_group_stops_java() {
    let (mut child, pid, temp_dir) = shared_server_child("shared-then-sleep", |c| {
        std::os::unix::process::CommandExt::process_group(c, 0);
    });
    let group = format!("-{}", child.child.id());
    let sent = Command::new("kill")
        .args(["-INT", "--", &group])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.child.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(2),
        "{status}"
    );
    assert_gone_within(pid, Duration::from_secs(5), "SIGINT to the process group");
    assert_dir_gone_within(
        &temp_dir,
        Duration::from_secs(5),
        "SIGINT to the process group",
    );
}

#[test]
#[ignore = "starts DynamoDB Local (Java 17; npm once): cargo test -p dynamodb-mapper-testkit -- --ignored"]
fn panicking_test_process_stops_java() {
    let (child, pid, temp_dir) = shared_server_child("shared-then-panic", |_| {});
    let (status, output) = child.finish();
    assert!(!status.success(), "{output}");
    assert!(output.contains("child panics on purpose"), "{output}");
    assert_gone_within(pid, Duration::from_secs(5), "a panicking test process");
    assert_dir_gone_within(
        &temp_dir,
        Duration::from_secs(5),
        "a panicking test process",
    );
}

#[test]
#[ignore = "starts DynamoDB Local (Java 17; npm once): cargo test -p dynamodb-mapper-testkit -- --ignored"]
fn normal_exit_of_test_process_stops_java() {
    // The shared instance lives in a static, which Rust never drops.
    let (child, pid, temp_dir) = shared_server_child("shared-then-exit", |_| {});
    let (status, output) = child.finish();
    assert!(status.success(), "{output}");
    assert_gone_within(pid, Duration::from_secs(5), "the test process exited");
    assert_dir_gone_within(&temp_dir, Duration::from_secs(5), "the test process exited");
}

#[test]
fn missing_java_is_an_error_that_says_what_to_install() {
    let empty = fresh_dir("no-java");
    let child = ChildTest::spawn("start-error", |c| {
        c.env("PATH", &empty)
            .env_remove("DYNAMODB_ENDPOINT")
            .env_remove("DYNAMODB_LOCAL_DIR");
    });
    let (status, output) = child.finish();
    assert!(status.success(), "{output}");
    assert!(
        output.contains(
            "ERROR=java not found on PATH: install a Java 17+ runtime (e.g. `apt-get install \
             openjdk-17-jre-headless`; on macOS `brew install --cask temurin@17`, or `brew install \
             openjdk@17` and then `export PATH=\"$(brew --prefix openjdk@17)/bin:$PATH\"` because \
             that formula is keg-only) and make sure `java` is on PATH"
        ),
        "{output}"
    );
    let _ = std::fs::remove_dir_all(empty);
}

#[test]
#[ignore = "starts DynamoDB Local (Java 17; npm once): cargo test -p dynamodb-mapper-testkit -- --ignored"]
fn missing_npm_is_an_error_that_says_what_to_install() {
    let dir = fresh_dir("no-npm");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(java_on_path(), bin.join("java")).unwrap();
    let child = ChildTest::spawn("start-error", |c| {
        c.env("PATH", &bin)
            // An empty cache, so an install is needed.
            .env("DYNAMODB_LOCAL_CACHE", dir.join("cache"))
            .env_remove("DYNAMODB_ENDPOINT")
            .env_remove("DYNAMODB_LOCAL_DIR");
    });
    let (status, output) = child.finish();
    assert!(status.success(), "{output}");
    assert!(
        output.contains("ERROR=npm not found on PATH: install Node.js with npm"),
        "{output}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
#[ignore = "starts DynamoDB Local (Java 17; npm once): cargo test -p dynamodb-mapper-testkit -- --ignored"]
fn dynamodb_local_dir_must_contain_the_jar() {
    let dir = fresh_dir("bad-local-dir");
    let child = ChildTest::spawn("start-error", |c| {
        c.env("DYNAMODB_LOCAL_DIR", &dir)
            .env_remove("DYNAMODB_ENDPOINT");
    });
    let (status, output) = child.finish();
    assert!(status.success(), "{output}");
    assert!(
        output.contains("is not a DynamoDB Local directory: DynamoDBLocal.jar is missing"),
        "{output}"
    );
    let _ = std::fs::remove_dir_all(dir);
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
            "shared-then-sleep" | "shared-then-panic" | "shared-then-exit" => {
                let db = shared().await.unwrap();
                db.client().list_tables().send().await.unwrap();
                println!("JAVA_PID={}", db.java_pid().unwrap());
                println!("TEMP_DIR={}", db.temp_dir().unwrap().display());
                if mode != "shared-then-sleep" {
                    // Wait for the test to have checked java and its
                    // directory (a line on stdin, or its end).
                    let mut go = String::new();
                    let _ = std::io::stdin().read_line(&mut go);
                }
                match mode.as_str() {
                    "shared-then-sleep" => tokio::time::sleep(Duration::from_secs(300)).await,
                    "shared-then-panic" => panic!("child panics on purpose"),
                    _ => {}
                }
            }
            "start-error" => {
                let err: TestkitError = TestServer::start_dynamodb_local().await.unwrap_err();
                println!("ERROR={err}");
            }
            other => panic!("unknown child mode {other}"),
        }
    });
}
