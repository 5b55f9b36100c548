//! Where the tour runs. By default on the testkit's server: the embedded
//! emulator, or DynamoDB Local with `DYNAMODB_MAPPER_BACKEND=dynamodb-local`,
//! or any running endpoint given as `DYNAMODB_ENDPOINT`. With `--aws`, on
//! DynamoDB itself, configured the way the AWS CLI is (`aws-config`:
//! environment, `~/.aws/config` and `credentials`, `AWS_PROFILE`, SSO,
//! `AWS_REGION`), in a table of its own that it deletes at the end.

use std::time::{SystemTime, UNIX_EPOCH};

use aws_config::ConfigLoader;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::BoxError;

use crate::show::{self, Out};
use crate::steps;

/// The tour on the testkit's server.
pub async fn on_test_server(out: &Out) -> Result<(), BoxError> {
    let server = dynamodb_mapper_testkit::shared().await?;
    let backend = server
        .backend()
        .map_or_else(|| "a running endpoint".to_owned(), |b| b.to_string());
    out.line(format!("Server: {backend} at {}", server.endpoint()));
    let client = show::showing(&server.client(), out);
    let table = dynamodb_mapper_testkit::unique_table_name("tour");
    steps::run(&client, &table, out).await
}

/// The tour on DynamoDB in the account and region `loader` resolves
/// (`aws_config::defaults(..)` in `main`; the tests hand it a profile file
/// and a recording HTTP client instead).
pub async fn on_aws(loader: ConfigLoader, out: &Out) -> Result<(), BoxError> {
    let config = loader.load().await;
    let region = config
        .region()
        .ok_or("no AWS region: set AWS_REGION, or a region in your profile (AWS_PROFILE)")?;
    let table = aws_table_name();
    out.line(format!("Server: DynamoDB in {region}, table {table}"));
    out.line(
        "   on-demand capacity: under a hundred request units (a fraction of a cent);\n   \
         the table is deleted at the end (if the tour is interrupted, delete it with\n   \
         `aws dynamodb delete-table --table-name <name>`)",
    );
    let client = show::showing(&Client::new(&config), out);
    steps::run(&client, &table, out).await
}

/// `dynamodb-mapper-tour-<unix seconds>-<random>`: unique, and easy to find.
fn aws_table_name() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!("dynamodb-mapper-tour-{secs}-{:04x}", fastrand::u16(..))
}
