//! Every SDK call a helper makes goes through [`call`]: bounded in time, and
//! its failure sorted by what it means for the data (refused, or outcome
//! unknown) and whether trying again can help.

use std::future::Future;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::SdkError;

use crate::error::Error;

/// How long a helper waits for one SDK call (the SDK's own retries
/// included) when neither the [`Table`](super::Table) nor the client sets a
/// bound: 30 s.
///
/// Every SDK call made by a helper of [`ops`](crate::ops) is bounded: by
/// [`Table::call_timeout`](super::Table::call_timeout) when set, else by the
/// client's operation timeout when it has one (set it with
/// `aws_sdk_dynamodb::config::Builder::timeout_config` or `aws_config`'s
/// `timeout_config`), else by this. A call that runs out returns
/// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout); for a write, its outcome
/// is then unknown.
///
/// ```
/// assert_eq!(dynamodb_mapper::ops::DEFAULT_CALL_TIMEOUT.as_secs(), 30);
/// ```
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// The default bound for one call through `client`.
pub(crate) fn call_timeout(client: &Client) -> Duration {
    client
        .config()
        .timeout_config()
        .and_then(|t| t.operation_timeout())
        .unwrap_or(DEFAULT_CALL_TIMEOUT)
}

/// Why a call did not return an output.
pub(crate) enum Failed<E> {
    /// DynamoDB refused the request with this error (a 4xx answer): nothing
    /// was applied, unless it is an internal server error.
    Service(E),
    /// No credible answer came (a timeout, a broken connection, a response
    /// that could not be read): the request may or may not have been applied.
    NoAnswer(Error),
    /// The request was never sent.
    NotSent(Error),
}

/// A failed attempt, as the retry loops see it.
pub(crate) struct Attempt {
    /// The error, as the caller will see it.
    pub(crate) error: Error,
    /// Whether trying again can help (throttling, a server error, no answer).
    pub(crate) retryable: bool,
    /// Whether the request may have been applied even so.
    pub(crate) maybe_applied: bool,
}

impl<E> Failed<E>
where
    aws_sdk_dynamodb::Error: From<E>,
{
    /// Sorts the failure of `operation` for a retry loop.
    pub(crate) fn attempt(self, operation: &'static str) -> Attempt {
        match self {
            Failed::Service(e) => {
                let e = aws_sdk_dynamodb::Error::from(e);
                let retryable = super::is_retryable(&e);
                // DynamoDB documents that a request answered with an internal
                // server error may have succeeded, whatever status carried it.
                let maybe_applied = matches!(e, aws_sdk_dynamodb::Error::InternalServerError(_));
                Attempt {
                    error: Error::sdk(operation, e),
                    retryable,
                    maybe_applied,
                }
            }
            Failed::NoAnswer(error) => Attempt {
                error,
                retryable: true,
                maybe_applied: true,
            },
            Failed::NotSent(error) => Attempt {
                error,
                retryable: false,
                maybe_applied: false,
            },
        }
    }

    /// The failure as the caller's error.
    pub(crate) fn into_error(self, operation: &'static str) -> Error {
        self.attempt(operation).error
    }
}

/// Runs one SDK call, bounded by `after`.
pub(crate) async fn call<T, E, F>(
    after: Duration,
    operation: &'static str,
    request: F,
) -> Result<T, Failed<E>>
where
    F: Future<Output = Result<T, SdkError<E, HttpResponse>>>,
    aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
{
    match tokio::time::timeout(after, request).await {
        Err(_elapsed) => Err(Failed::NoAnswer(Error::timed_out(operation, after))),
        Ok(Ok(output)) => Ok(output),
        Ok(Err(e)) => Err(classify(operation, after, e)),
    }
}

fn classify<E>(operation: &'static str, after: Duration, e: SdkError<E, HttpResponse>) -> Failed<E>
where
    aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
{
    // Only a 4xx answer is DynamoDB refusing the request: nothing applied. A
    // 5xx (modeled or not) may come after the request was applied, and an
    // error read from any other status is not an answer to trust.
    let refused = matches!(&e, SdkError::ServiceError(ctx) if ctx.raw().status().is_client_error());
    match e {
        SdkError::ServiceError(ctx) if refused => Failed::Service(ctx.into_err()),
        SdkError::TimeoutError(_) => Failed::NoAnswer(Error::timed_out(operation, after)),
        SdkError::DispatchFailure(ref d) if d.is_timeout() => {
            Failed::NoAnswer(Error::timed_out(operation, after))
        }
        SdkError::ConstructionFailure(_) => {
            Failed::NotSent(Error::sdk(operation, aws_sdk_dynamodb::Error::from(e)))
        }
        // Server faults, dispatch and response failures: sent (perhaps), no
        // credible answer read.
        other => Failed::NoAnswer(Error::sdk(operation, aws_sdk_dynamodb::Error::from(other))),
    }
}

/// Errors with which DynamoDB refuses a write without applying it, asking
/// to try again later: throttling, and an item locked by a transaction.
pub(crate) trait RefusedForNow {
    fn refused_for_now(&self) -> bool;
}

macro_rules! refused_for_now {
    ($($error:ty),*) => {$(
        impl RefusedForNow for $error {
            fn refused_for_now(&self) -> bool {
                self.is_provisioned_throughput_exceeded_exception()
                    || self.is_throttling_exception()
                    || self.is_request_limit_exceeded()
                    || self.is_transaction_conflict_exception()
            }
        }
    )*};
}

refused_for_now!(
    aws_sdk_dynamodb::operation::put_item::PutItemError,
    aws_sdk_dynamodb::operation::delete_item::DeleteItemError
);

/// Runs a conditional write: one SDK attempt per call (the SDK's own
/// retries are off for it), retried here only when DynamoDB refused it
/// without applying it (throttling, a transaction holding the item), up to
/// `policy`.
///
/// Why not let the SDK retry: when the answer to an applied write is lost
/// (a dropped connection, a 5xx after the write), the SDK sends it again,
/// the write then fails its own condition, and the helper would report a
/// version conflict for a write that happened; a read-modify-write would
/// then apply its change a second time. Without SDK retries that case is
/// reported as what it is: no answer, outcome unknown.
pub(crate) async fn call_conditional<T, E, F>(
    after: Duration,
    operation: &'static str,
    policy: super::RetryPolicy,
    send: impl Fn(aws_sdk_dynamodb::config::Builder) -> F,
) -> Result<T, Failed<E>>
where
    F: Future<Output = Result<T, SdkError<E, HttpResponse>>>,
    E: RefusedForNow,
    aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
{
    let mut attempt = 0;
    loop {
        attempt += 1;
        let no_retries = aws_sdk_dynamodb::config::Builder::default()
            .retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled());
        match call(after, operation, send(no_retries)).await {
            Err(Failed::Service(e)) if e.refused_for_now() && attempt < policy.max_attempts() => {
                tracing::debug!(attempt, operation, "throttled, retrying");
                tokio::time::sleep(policy.delay(attempt)).await;
            }
            other => return other,
        }
    }
}
