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
//!
//! Every java process gets a private temporary directory ([`PrivateTempDir`]):
//! its `java.io.tmpdir` and working directory. Whoever sees java gone removes
//! it: the wrapper once `wait` returns, the watchdog after killing java (for
//! when the wrapper itself was killed, e.g. by a Ctrl-C sent to the process
//! group, which the watchdog and java ignore as background jobs of a
//! non-interactive shell), and [`JavaProcess::stop`] once the wrapper is
//! gone. DynamoDB Local 3.x otherwise copies its sqlite4java native library
//! (0.9 MB) into the system temp dir under a new name at every start and
//! only deletes it on a normal JVM exit, which a killed java never reaches;
//! [`JavaProcess::spawn`] also points it at the installed copy of that
//! library so that nothing needs to be copied at all.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
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

/// Start of the names of the private temporary directories:
/// `<system temp dir>/dynamodb-mapper-testkit-java-<pid>-<n>-<nanos>`.
pub(crate) const TEMP_DIR_PREFIX: &str = "dynamodb-mapper-testkit-java-";

/// `$1` is java's private temporary directory, removed once java is gone;
/// the rest is the java command line. See the module docs.
///
/// The watchdog ignores SIGHUP, SIGINT and SIGTERM (so does java, as a
/// background job, for SIGINT) so that it outlives the wrapper when a signal
/// hits the whole process group; the wrapper therefore ends it with SIGKILL.
/// Before removing the directory it waits until java is no longer running (a
/// killed process may still finish the file operation it was in): until
/// `kill -0` fails, or on Linux until java is a zombie, since an orphan may
/// never be reaped where pid 1 is not an init; at most 10 s, in case the pid
/// was reused.
#[cfg(unix)]
const WRAPPER: &str = r#"dir=$1
shift
exec 3<&0 </dev/null
"$@" 3<&- &
java_pid=$!
echo "dynamodb-mapper-testkit java pid $java_pid"
(
  trap '' HUP INT TERM
  read -r _ <&3
  kill -9 "$java_pid" 2>/dev/null
  n=0
  while [ "$n" -lt 100 ] && kill -0 "$java_pid" 2>/dev/null; do
    stat=
    { read -r stat <"/proc/$java_pid/stat"; } 2>/dev/null
    case ${stat##*") "} in Z*|X*) break ;; esac
    sleep 0.1
    n=$((n + 1))
  done
  rm -rf "$dir"
) &
watchdog_pid=$!
exec 3<&-
wait "$java_pid"
status=$?
rm -rf "$dir"
kill -9 "$watchdog_pid" 2>/dev/null
exit "$status"
"#;

/// A directory of its own for one java process, created empty and private
/// (mode 0700 on Unix) in the system temp dir, removed on drop.
#[derive(Debug)]
pub(crate) struct PrivateTempDir {
    path: PathBuf,
}

impl PrivateTempDir {
    /// Creates `<system temp dir>/dynamodb-mapper-testkit-java-<pid>-<n>-<nanos>`.
    /// The name is new; should it exist anyway (a leftover of a process that
    /// had the same pid), the next one is tried, never an existing directory
    /// reused.
    pub(crate) fn create() -> Result<Self, TestkitError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        // java resolves a relative java.io.tmpdir against its own working
        // directory, which is this directory.
        let base = std::path::absolute(&base).unwrap_or(base);
        let mut last_error = None;
        for _ in 0..16 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let path = base.join(format!(
                "{TEMP_DIR_PREFIX}{}-{}-{nanos:09}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            match builder.create(&path) {
                Ok(()) => return Ok(PrivateTempDir { path }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_error = Some(e),
                Err(e) => return Err(Self::create_error(&base, e)),
            }
        }
        let e = last_error.unwrap_or_else(|| io::Error::from(io::ErrorKind::AlreadyExists));
        Err(Self::create_error(&base, e))
    }

    fn create_error(base: &Path, e: io::Error) -> TestkitError {
        TestkitError::io(
            format!(
                "failed to create a temporary directory for dynamodb local in {} \
                 (set TMPDIR to a writable directory)",
                base.display()
            ),
            e,
        )
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the directory and everything in it; already gone is fine.
    /// Only call this once java is gone.
    fn remove(&self) {
        match std::fs::remove_dir_all(&self.path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            // Nothing to report to from `Drop`; the name says who left it.
            Err(_) => {}
        }
    }
}

impl Drop for PrivateTempDir {
    fn drop(&mut self) {
        self.remove();
    }
}

/// File name of the sqlite4java native library for this platform in
/// `DynamoDBLocal_lib`, or `None` where DynamoDB Local ships none. It is
/// the same file DynamoDB Local's jar contains for the platform.
fn sqlite_native_library() -> Option<&'static str> {
    use std::env::consts::{ARCH, OS};
    Some(match (OS, ARCH) {
        ("linux", "x86_64") => "libsqlite4java-linux-amd64.so",
        ("linux", "aarch64") => "libsqlite4java-linux-aarch64.so",
        ("linux", "x86") => "libsqlite4java-linux-i386.so",
        ("macos", "x86_64") => "libsqlite4java-osx-x86_64.dylib",
        ("macos", "aarch64") => "libsqlite4java-osx-aarch64.dylib",
        ("windows", "x86_64") => "sqlite4java-win32-x64.dll",
        ("windows", "x86") => "sqlite4java-win32-x86.dll",
        _ => return None,
    })
}

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
    /// java's `java.io.tmpdir` and working directory. Declared last: dropped
    /// (removed) after `Drop` has stopped java.
    temp_dir: PrivateTempDir,
}

/// `-D<name>=<value>`.
/// The variable that chooses DynamoDB Local's JIT: `full` for the JVM's
/// default tiered compilation (C1, then C2 for hot code: what a long
/// benchmark should measure), anything else or unset for C1 only.
pub const JIT_ENV: &str = "DYNAMODB_LOCAL_JIT";

/// The JIT options for the value of [`JIT_ENV`]: C1 only by default, which
/// starts about 30 % faster (1.7 s instead of 2.5 s here) and suits a test
/// server, which never runs long enough for C2 to pay off; none (the JVM's
/// default) for `full`.
fn jit_args(value: Option<&std::ffi::OsStr>) -> Vec<OsString> {
    if value.is_some_and(|v| v == "full") {
        Vec::new()
    } else {
        vec!["-XX:TieredStopAtLevel=1".into()]
    }
}

/// Which JIT [`JIT_ENV`] asks DynamoDB Local for: `"full"` or `"c1"`.
///
/// ```
/// // Unset in the doc tests: C1 only.
/// # if std::env::var_os("DYNAMODB_LOCAL_JIT").is_none() {
/// assert_eq!(dynamodb_mapper_testkit::dynamodb_local_jit(), "c1");
/// # }
/// ```
#[must_use]
pub fn dynamodb_local_jit() -> &'static str {
    if jit_args(std::env::var_os(JIT_ENV).as_deref()).is_empty() {
        "full"
    } else {
        "c1"
    }
}

fn system_property(name: &str, value: &Path) -> OsString {
    let mut arg = OsString::from(format!("-D{name}="));
    arg.push(value);
    arg
}

impl JavaProcess {
    /// Creates a [`PrivateTempDir`] and starts, in it, `java -XX:TieredStopAtLevel=1`
    /// (left out with `DYNAMODB_LOCAL_JIT=full`) `-Djava.io.tmpdir=<temp dir> -Djava.library.path=<dir>/DynamoDBLocal_lib
    /// [-Dorg.sqlite.lib.path=<dir>/DynamoDBLocal_lib -Dorg.sqlite.lib.name=<library>]
    /// -jar <dir>/DynamoDBLocal.jar -inMemory -sharedDb -disableTelemetry -port <port>`.
    pub(crate) fn spawn(java: &Path, dir: &Path, port: u16) -> Result<Self, TestkitError> {
        // java runs in the temp dir: relative paths would point elsewhere.
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let lib_dir = dir.join(LIB_DIR);
        let temp_dir = PrivateTempDir::create()?;
        let mut java_args: Vec<OsString> = jit_args(std::env::var_os(JIT_ENV).as_deref());
        java_args.extend([
            // Where anything java writes to "the temp dir" lands; removed
            // with the process.
            system_property("java.io.tmpdir", temp_dir.path()),
            system_property("java.library.path", &lib_dir),
        ]);
        // DynamoDB Local 3.x loads sqlite4java's native library from
        // `org.sqlite.lib.path`/`org.sqlite.lib.name` when they name an
        // existing file; otherwise it copies the library out of its jar into
        // `java.io.tmpdir` (never reading `java.library.path`, which is only
        // its fallback). Loading the installed copy saves that copy.
        if let Some(library) = sqlite_native_library().filter(|l| lib_dir.join(l).is_file()) {
            java_args.push(system_property("org.sqlite.lib.path", &lib_dir));
            java_args.push(format!("-Dorg.sqlite.lib.name={library}").into());
        }
        java_args.extend([
            "-jar".into(),
            dir.join(JAR_FILE).into(),
            "-inMemory".into(),
            "-sharedDb".into(),
            "-disableTelemetry".into(),
            "-port".into(),
            port.to_string().into(),
        ]);

        #[cfg(unix)]
        let mut command = {
            let mut command = Command::new("/bin/sh");
            command
                .arg("-c")
                .arg(WRAPPER)
                .arg("dynamodb-local-wrapper")
                .arg(temp_dir.path())
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
            .current_dir(temp_dir.path())
            .stdin(if cfg!(unix) {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            // On failure `temp_dir` is dropped, which removes it.
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
            temp_dir,
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

    /// java's private temporary directory; gone once [`JavaProcess::stop`]
    /// returns.
    pub(crate) fn temp_dir(&self) -> &Path {
        self.temp_dir.path()
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

    /// Stops java, waits (bounded) until it is gone and removes its
    /// temporary directory. Idempotent.
    pub(crate) fn stop(&self) {
        self.stop_process();
        // On Unix the wrapper has normally removed it already.
        self.temp_dir.remove();
    }

    fn stop_process(&self) {
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
    fn the_jit_is_c1_only_unless_full_is_asked_for() {
        let c1: Vec<OsString> = vec!["-XX:TieredStopAtLevel=1".into()];
        assert_eq!(jit_args(None), c1);
        assert_eq!(jit_args(Some("c1".as_ref())), c1);
        assert_eq!(jit_args(Some("FULL".as_ref())), c1);
        assert!(jit_args(Some("full".as_ref())).is_empty());
    }

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

    #[test]
    fn private_temp_dirs_are_new_private_and_removed_on_drop() {
        let a = PrivateTempDir::create().unwrap();
        let b = PrivateTempDir::create().unwrap();
        assert_ne!(a.path(), b.path());
        for dir in [&a, &b] {
            assert!(dir.path().is_dir(), "{}", dir.path().display());
            assert!(dir.path().is_absolute());
            let name = dir.path().file_name().unwrap().to_str().unwrap();
            assert!(name.starts_with(TEMP_DIR_PREFIX), "{name}");
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(a.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        // What java leaves there goes with it.
        std::fs::create_dir(a.path().join("sub")).unwrap();
        std::fs::write(a.path().join("sub").join("lib.so"), b"x").unwrap();
        let (a_path, b_path) = (a.path().to_path_buf(), b.path().to_path_buf());
        drop(a);
        assert!(!a_path.exists());
        assert!(b_path.is_dir());
        // Removing twice (stop, then drop) is fine.
        b.remove();
        assert!(!b_path.exists());
        drop(b);
    }

    #[test]
    fn sqlite_native_library_matches_this_platform() {
        let name = sqlite_native_library();
        if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            assert_eq!(name, Some("libsqlite4java-linux-amd64.so"));
        }
        if cfg!(all(target_os = "macos", target_arch = "aarch64")) {
            assert_eq!(name, Some("libsqlite4java-osx-aarch64.dylib"));
        }
        if cfg!(any(
            target_os = "linux",
            target_os = "macos",
            target_os = "windows"
        )) {
            assert!(name.is_some_and(|n| n.contains("sqlite4java")), "{name:?}");
        }
    }

    /// Whether `pid` is running; a zombie is not (Linux).
    #[cfg(target_os = "linux")]
    fn is_running(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X']))
        })
    }

    /// Polls `done` for up to 5 s.
    #[cfg(target_os = "linux")]
    fn within_5s(mut done: impl FnMut() -> bool) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !done() {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    /// Runs the wrapper with a fake "java" in `dir`; returns the wrapper,
    /// the fake java's pid and the wrapper's remaining stdout.
    #[cfg(target_os = "linux")]
    fn spawn_wrapper(
        dir: &Path,
        java: &[&str],
        configure: impl FnOnce(&mut Command),
    ) -> (Child, u32, BufReader<std::process::ChildStdout>) {
        let mut command = Command::new("/bin/sh");
        command
            .args(["-c", WRAPPER, "wrapper"])
            .arg(dir)
            .args(java)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        configure(&mut command);
        let mut child = command.spawn().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let pid: u32 = line.trim().strip_prefix(PID_LINE).unwrap().parse().unwrap();
        (child, pid, stdout)
    }

    /// Reads `stream` to its end in a thread; `true` if that happened within
    /// 5 s, that is once every process holding its write end (the wrapper,
    /// java, the watchdog) is gone.
    #[cfg(target_os = "linux")]
    fn reaches_eof_within_5s(mut stream: impl Read + Send + 'static) -> bool {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut rest = Vec::new();
            let _ = stream.read_to_end(&mut rest);
            let _ = tx.send(());
        });
        rx.recv_timeout(Duration::from_secs(5)).is_ok()
    }

    /// A file like the one java leaves in its temp dir.
    #[cfg(target_os = "linux")]
    fn fill(dir: &Path) {
        std::fs::write(dir.join("sqlite-392-x-libsqlite4java.so"), b"x").unwrap();
    }

    /// The wrapper with a fake "java" (`sleep`): closing the lifeline kills
    /// it, and the wrapper removes the temp dir before it exits.
    #[cfg(target_os = "linux")]
    #[test]
    fn wrapper_kills_java_when_lifeline_closes() {
        let dir = PrivateTempDir::create().unwrap();
        fill(dir.path());
        let (mut child, pid, stdout) = spawn_wrapper(dir.path(), &["sleep", "60"], |_| {});
        assert!(Path::new(&format!("/proc/{pid}")).exists());
        drop(child.stdin.take());
        let status = child.wait().unwrap();
        // The wrapper exits with java's status: killed by signal 9.
        assert_eq!(status.code(), Some(137));
        // The wrapper reaped java before exiting.
        assert!(!Path::new(&format!("/proc/{pid}")).exists());
        // And removed the temp dir, also before exiting.
        assert!(!dir.path().exists());
        // The watchdog is gone too.
        assert!(reaches_eof_within_5s(stdout));
    }

    /// java exits by itself (a failed start): the wrapper removes the temp
    /// dir, ends the watchdog and exits with java's status.
    #[cfg(target_os = "linux")]
    #[test]
    fn wrapper_cleans_up_when_java_exits_by_itself() {
        let dir = PrivateTempDir::create().unwrap();
        let fake_java = [
            "sh",
            "-c",
            "echo x > sqlite-392-y-libsqlite4java.so; exit 3",
        ];
        let (mut child, _pid, stdout) = spawn_wrapper(dir.path(), &fake_java, |c| {
            c.current_dir(dir.path());
        });
        // Kept open: `Child::wait` would close it.
        let lifeline = child.stdin.take();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(3));
        assert!(!dir.path().exists());
        // The lifeline is still open, yet the watchdog has gone.
        assert!(reaches_eof_within_5s(stdout));
        drop(lifeline);
    }

    /// A Ctrl-C in a terminal sends SIGINT to the whole process group: the
    /// test process and the wrapper die of it, java and the watchdog (as
    /// background jobs of a non-interactive shell) ignore it. The watchdog
    /// sees the lifeline close, kills java and removes the temp dir itself.
    #[cfg(target_os = "linux")]
    #[test]
    fn watchdog_cleans_up_when_the_wrapper_dies_with_the_test_process() {
        use std::os::unix::process::{CommandExt, ExitStatusExt};
        let dir = PrivateTempDir::create().unwrap();
        fill(dir.path());
        let (mut child, pid, stdout) = spawn_wrapper(dir.path(), &["sleep", "60"], |c| {
            c.process_group(0);
        });
        // Until both children of the wrapper ignore SIGINT, a SIGINT could
        // still kill them between fork and the shell setting that up.
        let ignores_sigint = |pid: &str| {
            std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|status| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix("SigIgn:"))
                    .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
                    .is_some_and(|mask| mask & (1 << (2 - 1)) != 0)
            })
        };
        let wrapper = child.id().to_string();
        let children_ready = || {
            let children: Vec<String> = std::fs::read_dir("/proc")
                .unwrap()
                .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
                .filter(|pid| {
                    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                        stat.rsplit_once(')')
                            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                            == Some(wrapper.as_str())
                    })
                })
                .collect();
            children.len() == 2 && children.iter().all(|pid| ignores_sigint(pid))
        };
        assert!(
            within_5s(children_ready),
            "java and the watchdog never started"
        );
        let group = format!("-{wrapper}");
        let sent = Command::new("kill")
            .args(["-INT", "--", &group])
            .status()
            .unwrap();
        assert!(sent.success());
        // Kept open until the test process "dies": `Child::wait` would close it.
        let lifeline = child.stdin.take();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(2), "{status}");
        // java survived the SIGINT; its directory is still there.
        assert!(is_running(pid));
        assert!(dir.path().is_dir());
        // The test process is gone: its end of the lifeline closes.
        drop(lifeline);
        assert!(within_5s(|| !is_running(pid)), "java {pid} still running");
        assert!(
            within_5s(|| !dir.path().exists()),
            "{} still there",
            dir.path().display()
        );
        assert!(reaches_eof_within_5s(stdout));
    }
}
