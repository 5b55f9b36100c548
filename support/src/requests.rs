//! Helpers for tests of `dynamodb_mapper::ops`: a retry policy that does not
//! make a test wait, and what a request carried.

use std::time::Duration;

use aws_sdk_dynamodb::types::WriteRequest;
use dynamodb_mapper::ItemExt;
use dynamodb_mapper::ops::RetryPolicy;

/// A retry policy of `attempts` attempts with millisecond delays, for tests.
pub fn fast_retry(attempts: u32) -> RetryPolicy {
    RetryPolicy::new(attempts)
        .base_delay(Duration::from_millis(1))
        .max_delay(Duration::from_millis(2))
}

/// The `pk` of a put request (empty for anything else).
pub fn put_pk(r: &WriteRequest) -> String {
    r.put_request
        .as_ref()
        .and_then(|p| p.item.get_str("pk").ok().map(str::to_owned))
        .unwrap_or_default()
}
