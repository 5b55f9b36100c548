//! The DynamoDB Local java process, its output and its watchdog.
//!
//! On Unix java is started through a tiny `/bin/sh` wrapper:
//!
//! * the wrapper's stdin is a pipe whose only write end lives in the test
//!   process (the "lifeline");
//! * a watchdog subshell blocks reading that pipe. `read` returns as soon as
//!   the write end is closed, which the kernel does when the test process
//!   exits for whatever reason: normal exit (statics are never dropped), a
//!   panic, `SIGKILL`. The watchdog then `kill -9`s java;
//! * [`JavaProcess::stop`] (called from `Drop`) closes the lifeline itself and
//!   waits until the wrapper, and with it java, is gone.
//!
//! Unlike `PR_SET_PDEATHSIG` this does not depend on the spawning *thread*
//! staying alive (test threads end after each test) and works on macOS too.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::TestkitError;
use crate::provision::{JAR_FILE, LIB_DIR};

/// How many lines of java output are kept for error messages.
const TAIL_LINES: usize = 40;
/// Prefix of the line the wrapper prints with java's pid.
#[cfg(unix)]
const PID_LINE: &str = "dynamodb-mapper-testkit java pid ";

/// `$@` is the java command line. See the module docs.
#[cfg(unix)]
const WRAPPER: &str = r#"exec 3<&0 </dev/null
"$@" 3<&- &
java_pid=$!
echo "dynamodb-mapper-testkit java pid $java_pid"
( read -r _ <&3; kill -9 "$java_pid" 2>/dev/null ) &
watchdog_pid=$!
exec 3<&-
wait "$java_pid"
status=$?
kill "$watchdog_pid" 2>/dev/null
exit "$status"
"#;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The last lines java printed on stdout and stderr.
#[derive(Debug, Default)]
struct OutputTail {
    lines: Mutex<VecDeque<String>>,
}

impl OutputTail {
    fn push(&self, line: String) {
        let mut lines = lock(&self.lines);
        if lines.len() == TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    fn text(&self) -> String {
        let lines = lock(&self.lines);
        let mut text = String::new();
        for line in lines.iter() {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(line);
        }
        text
    }
}

/// The pid from the wrapper's pid line.
#[cfg(unix)]
fn parse_pid_line(line: &str) -> Option<u32> {
    line.strip_prefix(PID_LINE)?.trim().parse().ok()
}

#[cfg(not(unix))]
fn parse_pid_line(_line: &str) -> Option<u32> {
    None
}

/// Reads `stream` line by line into `tail` until EOF. Lines starting with the
/// pid marker are sent to `pid_tx` instead.
fn spawn_reader(
    name: &str,
    stream: impl Read + Send + 'static,
    tail: Arc<OutputTail>,
    pid_tx: Option<mpsc::Sender<u32>>,
) -> Result<JoinHandle<()>, TestkitError> {
    std::thread::Builder::new()
        .name(format!("dynamodb-local-{name}"))
        .spawn(move || {
            let mut reader = BufReader::new(stream);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                if let (Some(tx), Some(pid)) = (&pid_tx, parse_pid_line(&line)) {
                    let _ = tx.send(pid);
                    continue;
                }
                tail.push(line);
            }
            drop(pid_tx);
        })
        .map_err(|e| TestkitError::io("failed to spawn an output reader thread", e))
}

/// A running DynamoDB Local. Stopped on drop.
#[derive(Debug)]
pub(crate) struct JavaProcess {
    /// The `/bin/sh` wrapper on Unix, java itself elsewhere.
    child: Mutex<Child>,
    /// Closing it makes the watchdog kill java (Unix only).
    lifeline: Mutex<Option<ChildStdin>>,
    java_pid: u32,
    tail: Arc<OutputTail>,
    readers: Mutex<Vec<JoinHandle<()>>>,
}

impl JavaProcess {
    /// Starts `java -XX:TieredStopAtLevel=1 -Djava.library.path=<dir>/DynamoDBLocal_lib
    /// -jar <dir>/DynamoDBLocal.jar -inMemory -sharedDb -disableTelemetry -port <port>`.
    pub(crate) fn spawn(java: &Path, dir: &Path, port: u16) -> Result<Self, TestkitError> {
        let mut library_path = OsString::from("-Djava.library.path=");
        library_path.push(dir.join(LIB_DIR));
        let mut java_args: Vec<OsString> = vec![
            // C1 only: starts about 30 % faster (1.7 s instead of 2.5 s
            // here), and a test server never runs long enough for C2 to pay off.
            "-XX:TieredStopAtLevel=1".into(),
            library_path,
            "-jar".into(),
            dir.join(JAR_FILE).into(),
            "-inMemory".into(),
            "-sharedDb".into(),
            "-disableTelemetry".into(),
            "-port".into(),
        ];
        java_args.push(port.to_string().into());

        #[cfg(unix)]
        let mut command = {
            let mut command = Command::new("/bin/sh");
            command
                .arg("-c")
                .arg(WRAPPER)
                .arg("dynamodb-local-wrapper")
                .arg(java)
                .args(&java_args);
            command
        };
        #[cfg(not(unix))]
        let mut command = {
            let mut command = Command::new(java);
            command.args(&java_args);
            command
        };
        let mut child = command
            .current_dir(std::env::temp_dir())
            .stdin(if cfg!(unix) {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| TestkitError::io(format!("failed to start {}", java.display()), e))?;

        let lifeline = child.stdin.take();
        let tail = Arc::new(OutputTail::default());
        let (pid_tx, pid_rx) = mpsc::channel();
        let mut readers = Vec::new();
        let spawn_readers = || -> Result<(), TestkitError> {
            if let Some(stdout) = child.stdout.take() {
                readers.push(spawn_reader("stdout", stdout, tail.clone(), Some(pid_tx))?);
            }
            if let Some(stderr) = child.stderr.take() {
                readers.push(spawn_reader("stderr", stderr, tail.clone(), None)?);
            }
            Ok(())
        };
        let readers_result = spawn_readers();

        let mut process = JavaProcess {
            java_pid: child.id(),
            child: Mutex::new(child),
            lifeline: Mutex::new(lifeline),
            tail,
            readers: Mutex::new(readers),
        };
        // On failure `process` is dropped here, which stops the wrapper.
        readers_result?;
        if cfg!(unix) {
            // The wrapper prints java's pid right after forking it.
            match pid_rx.recv_timeout(Duration::from_secs(30)) {
                Ok(pid) => process.java_pid = pid,
                Err(_) => {
                    return Err(TestkitError::Startup {
                        reason: "the java wrapper shell did not report the java pid".into(),
                        output: process.output_after_exit(),
                    });
                }
            }
        }
        Ok(process)
    }

    pub(crate) fn java_pid(&self) -> u32 {
        self.java_pid
    }

    /// `Some` once the process (java; on Unix its wrapper, which exits with
    /// java's status) has exited.
    pub(crate) fn exit_status(&self) -> Option<ExitStatus> {
        lock(&self.child).try_wait().ok().flatten()
    }

    /// The last lines of output; if the process has exited, waits briefly for
    /// the reader threads to drain the pipes first.
    pub(crate) fn output_after_exit(&self) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline && !lock(&self.readers).iter().all(JoinHandle::is_finished)
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        self.tail.text()
    }

    /// The last lines of output so far.
    pub(crate) fn output(&self) -> String {
        self.tail.text()
    }

    /// Stops java and waits (bounded) until it is gone. Idempotent.
    pub(crate) fn stop(&self) {
        let mut child = lock(&self.child);
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        // Unix: closing the lifeline makes the watchdog `kill -9` java, then
        // the wrapper exits. Elsewhere: kill java directly.
        drop(lock(&self.lifeline).take());
        if cfg!(not(unix)) {
            let _ = child.kill();
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) if Instant::now() >= deadline => break,
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
        // Should not happen; make sure anyway.
        #[cfg(unix)]
        {
            let _ = Command::new("kill")
                .args(["-9", &self.java_pid.to_string()])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for JavaProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_last_lines() {
        let tail = OutputTail::default();
        for i in 0..100 {
            tail.push(format!("line {i}"));
        }
        let text = tail.text();
        assert_eq!(text.lines().count(), TAIL_LINES);
        assert!(text.starts_with("line 60\n"));
        assert!(text.ends_with("line 99"));
    }

    /// The wrapper with a fake "java" (`sleep`): closing the lifeline kills it.
    #[cfg(target_os = "linux")]
    #[test]
    fn wrapper_kills_java_when_lifeline_closes() {
        let mut child = Command::new("/bin/sh")
            .args(["-c", WRAPPER, "wrapper", "sleep", "60"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let pid: u32 = line.trim().strip_prefix(PID_LINE).unwrap().parse().unwrap();
        assert!(Path::new(&format!("/proc/{pid}")).exists());
        drop(child.stdin.take());
        let status = child.wait().unwrap();
        // The wrapper exits with java's status: killed by signal 9.
        assert_eq!(status.code(), Some(137));
        // The wrapper reaped java before exiting.
        assert!(!Path::new(&format!("/proc/{pid}")).exists());
    }
}
