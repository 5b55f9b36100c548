//! Helpers shared by the integration tests.
//!
//! Some tests re-execute their own test binary as a child process running
//! only the `child_process_entry` test, with `TESTKIT_CHILD_MODE` saying what
//! to do. Without that variable the entry test does nothing.

#![allow(dead_code)] // not every test binary uses every helper

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType,
};

pub const CHILD_MODE: &str = "TESTKIT_CHILD_MODE";

/// Creates a table with a string hash key `pk` and waits until it is active.
pub async fn create_table(client: &Client, table: &str) {
    client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    dynamodb_mapper_testkit::wait_for_table_active(client, table)
        .await
        .unwrap();
}

/// Puts `{pk, value}` and reads it back.
pub async fn put_and_get(client: &Client, table: &str, pk: &str, value: &str) {
    client
        .put_item()
        .table_name(table)
        .item("pk", AttributeValue::S(pk.into()))
        .item("value", AttributeValue::S(value.into()))
        .send()
        .await
        .unwrap();
    let item = client
        .get_item()
        .table_name(table)
        .key("pk", AttributeValue::S(pk.into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .expect("item was just put");
    assert_eq!(item.get("value"), Some(&AttributeValue::S(value.into())));
}

/// A child process running this test binary's `child_process_entry` test.
/// Killed when dropped, so a failing test does not leak it.
pub struct ChildTest {
    pub child: Child,
    lines: mpsc::Receiver<String>,
    pub output: Vec<String>,
    /// The child's stdin: a line on it lets a child that waits for the
    /// test go on (see [`go_on`](Self::go_on)).
    stdin: Option<std::process::ChildStdin>,
}

impl ChildTest {
    /// `configure` sets the environment (mode, PATH, …).
    pub fn spawn(mode: &str, configure: impl FnOnce(&mut Command)) -> ChildTest {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args([
                "--exact",
                "child_process_entry",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_MODE, mode)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        configure(&mut command);
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take();
        let (tx, lines) = mpsc::channel();
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        ChildTest {
            child,
            lines,
            output: Vec::new(),
            stdin,
        }
    }

    /// Lets a child waiting on its stdin go on (a child that never reads
    /// it, or is gone, is not disturbed): the test has checked what it
    /// needed while the child was still there.
    pub fn go_on(&mut self) {
        use std::io::Write as _;
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"go\n");
        }
    }

    /// Waits (bounded: a first run may have to install DynamoDB Local) for a
    /// line containing `prefix` and returns what follows it.
    pub fn wait_for_line(&mut self, prefix: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    // libtest may have printed "test name ... " on the same line.
                    let rest = line
                        .find(prefix)
                        .map(|at| line[at + prefix.len()..].to_string());
                    self.output.push(line);
                    if let Some(rest) = rest {
                        return rest;
                    }
                }
                Err(_) => panic!(
                    "child never printed {prefix:?}; its output:\n{}",
                    self.output.join("\n")
                ),
            }
        }
    }

    /// Waits for the child to exit and returns all its output.
    pub fn finish(mut self) -> (std::process::ExitStatus, String) {
        self.go_on();
        let status = self.child.wait().unwrap();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(10)) {
            self.output.push(line);
        }
        (status, self.output.join("\n"))
    }
}

impl Drop for ChildTest {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `pid` is a live process (zombies count as dead).
pub fn is_running(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            // The state follows the parenthesised command name.
            Ok(stat) => stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
            Err(_) => false,
        }
    } else {
        let output = Command::new("ps")
            .args(["-o", "stat=", "-p", &pid.to_string()])
            .output()
            .unwrap();
        let stat = String::from_utf8_lossy(&output.stdout);
        let stat = stat.trim();
        !stat.is_empty() && !stat.starts_with('Z')
    }
}

/// Waits up to `timeout` for `pid` to be gone; kills it and fails otherwise.
pub fn assert_gone_within(pid: u32, timeout: Duration, what: &str) {
    let deadline = Instant::now() + timeout;
    while is_running(pid) {
        if Instant::now() >= deadline {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("java pid {pid} still running {timeout:?} after {what}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits up to `timeout` for the directory `dir` to be gone; fails otherwise.
pub fn assert_dir_gone_within(dir: &Path, timeout: Duration, what: &str) {
    let deadline = Instant::now() + timeout;
    while dir.exists() {
        if Instant::now() >= deadline {
            let entries: Vec<_> = std::fs::read_dir(dir)
                .map(|entries| entries.filter_map(|e| Some(e.ok()?.file_name())).collect())
                .unwrap_or_default();
            panic!(
                "{} still there {timeout:?} after {what}, containing {entries:?}",
                dir.display()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Checks a running DynamoDB Local's temporary directory: a directory of
/// the testkit's in the system temp dir, without a copy of the sqlite4java
/// native library (DynamoDB Local loads the installed one).
pub fn assert_java_temp_dir(dir: &Path) {
    assert!(dir.is_dir(), "{} is not a directory", dir.display());
    assert_eq!(dir.parent(), Some(std::env::temp_dir().as_path()));
    let name = dir.file_name().unwrap().to_string_lossy();
    assert!(
        name.starts_with("dynamodb-mapper-testkit-java-"),
        "{}",
        dir.display()
    );
    let entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !entries.iter().any(|e| e.contains("sqlite4java")),
        "DynamoDB Local copied its native library into {}: {entries:?}",
        dir.display()
    );
}

/// A fresh, empty directory under cargo's per-test-target temp dir.
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("testkit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `java` executable on the current PATH.
pub fn java_on_path() -> PathBuf {
    let path = std::env::var_os("PATH").expect("PATH is set");
    std::env::split_paths(&path)
        .map(|dir| dir.join("java"))
        .find(|p| p.is_file())
        .expect("java on PATH for this test")
}
