//! Which server the testkit starts: [`Backend`] and the variable that
//! chooses it.

use std::ffi::OsStr;
use std::fmt;
use std::str::FromStr;

use crate::error::TestkitError;

/// The environment variable that chooses the [`Backend`] of
/// [`shared`](crate::shared), [`client`](crate::client()) and
/// [`TestServer::start`](crate::TestServer::start).
///
/// Unset or empty means [`Backend::Embedded`]; the allowed values are the
/// [names](Backend::name) of the backends, `embedded` and `dynamodb-local`.
/// Any other value is an error ([`TestkitError::UnknownBackend`]), never a
/// silent fallback.
///
/// ```
/// assert_eq!(dynamodb_mapper_testkit::BACKEND_ENV, "DYNAMODB_MAPPER_BACKEND");
/// ```
pub const BACKEND_ENV: &str = "DYNAMODB_MAPPER_BACKEND";

/// A kind of server the testkit can start.
///
/// ```
/// use dynamodb_mapper_testkit::Backend;
///
/// assert_eq!(Backend::default(), Backend::Embedded);
/// assert_eq!("dynamodb-local".parse::<Backend>()?, Backend::DynamoDbLocal);
/// assert_eq!(Backend::Embedded.to_string(), "embedded");
/// let err = "java".parse::<Backend>().unwrap_err();
/// assert!(err.to_string().contains(r#"use "embedded" (the default"#));
/// assert!(err.to_string().contains(r#"or "dynamodb-local" (AWS DynamoDB Local"#));
/// # Ok::<(), dynamodb_mapper_testkit::TestkitError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Backend {
    /// The default: [dynoxide](https://crates.io/crates/dynoxide-rs), a
    /// DynamoDB emulator on SQLite, serving HTTP from a thread of the test
    /// process. Needs nothing installed; starts in milliseconds.
    #[default]
    Embedded,
    /// AWS DynamoDB Local, the reference: a java process. Needs Java 17+,
    /// and npm for the first run (see [`provision`](crate::provision)).
    DynamoDbLocal,
}

impl Backend {
    /// Every backend, the default first.
    pub const ALL: [Backend; 2] = [Backend::Embedded, Backend::DynamoDbLocal];

    /// The value of [`BACKEND_ENV`] that selects this backend.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Embedded => "embedded",
            Backend::DynamoDbLocal => "dynamodb-local",
        }
    }

    /// The backend [`BACKEND_ENV`] selects: the default when it is unset or
    /// empty.
    ///
    /// # Errors
    ///
    /// [`TestkitError::UnknownBackend`] for any other value than the
    /// backends' [names](Backend::name).
    pub fn from_env() -> Result<Backend, TestkitError> {
        Backend::from_env_value(std::env::var_os(BACKEND_ENV).as_deref())
    }

    /// [`Backend::from_env`] for a given value of the variable.
    pub(crate) fn from_env_value(value: Option<&OsStr>) -> Result<Backend, TestkitError> {
        match value.filter(|v| !v.is_empty()) {
            None => Ok(Backend::default()),
            Some(value) => value.to_string_lossy().parse(),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = TestkitError;

    /// Exactly one of the [names](Backend::name); no case folding or
    /// trimming, so a typo is an error rather than a guess.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Backend::ALL
            .into_iter()
            .find(|backend| backend.name() == s)
            .ok_or_else(|| TestkitError::UnknownBackend {
                value: s.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_or_empty_is_embedded() {
        assert_eq!(Backend::from_env_value(None).unwrap(), Backend::Embedded);
        assert_eq!(
            Backend::from_env_value(Some(OsStr::new(""))).unwrap(),
            Backend::Embedded
        );
    }

    #[test]
    fn names_select_their_backend() {
        for backend in Backend::ALL {
            let value = OsStr::new(backend.name());
            assert_eq!(Backend::from_env_value(Some(value)).unwrap(), backend);
        }
    }

    #[test]
    fn anything_else_is_an_error_naming_the_allowed_values() {
        for bad in ["local", "Embedded", " embedded", "dynamodb_local", "java"] {
            let err = Backend::from_env_value(Some(OsStr::new(bad))).unwrap_err();
            assert!(
                matches!(&err, TestkitError::UnknownBackend { value } if value == bad),
                "{bad}: {err:?}"
            );
            let msg = err.to_string();
            assert!(
                msg.starts_with(&format!("{BACKEND_ENV}={bad:?} is not a testkit backend")),
                "{msg}"
            );
            for backend in Backend::ALL {
                assert!(msg.contains(&format!("{:?} (", backend.name())), "{msg}");
            }
            assert!(msg.contains("\"embedded\" (the default"), "{msg}");
        }
    }
}
