//! Requests a test builds, sends to a mock, or looks into: clients that
//! never reach a server, a retry policy that does not make a test wait, and
//! what a batch request carried.

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::BehaviorVersion;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemInput;
use aws_sdk_dynamodb::types::{DeleteRequest, PutRequest, WriteRequest};
use aws_smithy_mocks::{Rule, RuleMode, mock_client};
use dynamodb_mapper::ops::RetryPolicy;
use dynamodb_mapper::{Item, ItemExt};

/// A client that is never sent anything: for building requests and looking
/// at what they hold.
pub fn offline_client() -> Client {
    let conf = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .build();
    Client::from_conf(conf)
}

/// A client whose every request is answered at once with a 200 carrying
/// `body` (cloned for each request: give `bytes::Bytes` to share it without
/// a copy), in a region and with test credentials: for answers no emulator
/// gives, and for measuring the request path without a network.
pub fn canned_client<B>(body: B) -> Client
where
    B: Clone + Into<aws_smithy_types::body::SdkBody> + Send + Sync + 'static,
{
    use aws_sdk_dynamodb::config::{Credentials, Region};
    let http = aws_smithy_http_client::test_util::infallible_client_fn(move |_request| {
        http::Response::builder()
            .status(200)
            .body(body.clone())
            .expect("a canned response")
    });
    let conf = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "canned"))
        .http_client(http)
        .build();
    Client::from_conf(conf)
}

/// A client whose requests `rules` answer (whichever rule matches, in any
/// order), with the SDK's own retries off: every attempt a test counts is
/// the crate's.
pub fn mock_client(rules: &[&Rule]) -> Client {
    mock_client!(
        aws_sdk_dynamodb,
        RuleMode::MatchAny,
        rules.iter().copied(),
        |c| c.retry_config(RetryConfig::disabled())
    )
}

/// Expression attribute names (or any string map) from pairs.
pub fn names(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// A retry policy of `attempts` attempts with millisecond delays, for tests.
pub fn fast_retry(attempts: u32) -> RetryPolicy {
    RetryPolicy::new(attempts)
        .base_delay(Duration::from_millis(1))
        .max_delay(Duration::from_millis(2))
}

/// A put request of a batch write.
pub fn put_request(item: Item) -> WriteRequest {
    let put = PutRequest::builder()
        .set_item(Some(item))
        .build()
        .expect("a put request with an item");
    WriteRequest::builder().put_request(put).build()
}

/// A delete request of a batch write.
pub fn delete_request(key: Item) -> WriteRequest {
    let delete = DeleteRequest::builder()
        .set_key(Some(key))
        .build()
        .expect("a delete request with a key");
    WriteRequest::builder().delete_request(delete).build()
}

/// The `pk` of a put request (empty for anything else).
pub fn put_pk(r: &WriteRequest) -> String {
    r.put_request
        .as_ref()
        .and_then(|p| p.item.get_str("pk").ok().map(str::to_owned))
        .unwrap_or_default()
}

/// The write requests a `BatchWriteItem` sent to `table`.
pub fn sent_writes(req: &BatchWriteItemInput, table: &str) -> Vec<WriteRequest> {
    req.request_items()
        .and_then(|m| m.get(table))
        .cloned()
        .unwrap_or_default()
}

/// The keys a `BatchGetItem` asked `table` for.
pub fn sent_keys(req: &BatchGetItemInput, table: &str) -> Vec<Item> {
    req.request_items()
        .and_then(|m| m.get(table))
        .map(|k| k.keys().to_vec())
        .unwrap_or_default()
}
