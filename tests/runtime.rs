//! The helpers wait with the client's own async sleep (the one the SDK uses
//! for its timeouts and retries), not with tokio's timer, so they run on a
//! runtime without one. (A client with no sleep at all, possible only
//! without the SDK's `rt-tokio` feature, gets a clear error before anything
//! is sent: a unit test of `ops::call`, since this workspace enables
//! `rt-tokio`.)

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{AsyncSleep, SharedAsyncSleep, Sleep};
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemError;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
use aws_sdk_dynamodb::types::error::ProvisionedThroughputExceededException;
use aws_smithy_mocks::{Rule, mock};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper_support::requests::{fast_retry, mock_client};
use dynamodb_mapper_support::seed001::{APP_TABLE, CustomerMapper, customer};

/// A sleep made of a thread and a channel: no tokio timer involved, and it
/// counts how often the helpers used it.
#[derive(Debug, Clone, Default)]
struct ThreadSleep {
    sleeps: Arc<AtomicUsize>,
}

impl AsyncSleep for ThreadSleep {
    fn sleep(&self, duration: Duration) -> Sleep {
        self.sleeps.fetch_add(1, Ordering::SeqCst);
        let (done, wait) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            std::thread::sleep(duration);
            let _ = done.send(());
        });
        Sleep::new(async move {
            let _ = wait.await;
        })
    }
}

fn with_sleep(client: &Client, sleep: Option<SharedAsyncSleep>) -> Client {
    let mut config = client.config().to_builder();
    config.set_sleep_impl(sleep);
    Client::from_conf(config.build())
}

/// A batch write throttled once, then accepted.
fn throttled_then_ok(calls: Arc<AtomicUsize>) -> Rule {
    mock!(Client::batch_write_item)
        .sequence()
        .error(|| {
            BatchWriteItemError::ProvisionedThroughputExceededException(
                ProvisionedThroughputExceededException::builder()
                    .message("slow down")
                    .build(),
            )
        })
        .output(move || {
            calls.fetch_add(1, Ordering::SeqCst);
            BatchWriteItemOutput::builder().build()
        })
        .build()
}

#[test]
fn helpers_run_on_a_runtime_without_tokio_timer() {
    // No `enable_time()`: tokio::time::sleep or timeout would panic here.
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let rule = throttled_then_ok(accepted.clone());
    let sleep = ThreadSleep::default();
    let client = with_sleep(
        &mock_client(&[&rule]),
        Some(SharedAsyncSleep::new(sleep.clone())),
    );
    let table = Table::new(&client, "AppTable", APP_TABLE).retry_policy(fast_retry(3));
    let summary = rt
        .block_on(
            table
                .batch_writer()
                .put::<CustomerMapper>(&[customer("C1"), customer("C2")]),
        )
        .unwrap();
    assert_eq!(summary.items, 2);
    assert_eq!(summary.retries, 1);
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
    assert_eq!(rule.num_calls(), 2);
    // The bound of each of the two attempts and the pause between them.
    assert!(sleep.sleeps.load(Ordering::SeqCst) >= 3, "{sleep:?}");
}
