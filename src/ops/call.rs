//! Every SDK call a helper makes goes through [`call`]: bounded in time, and
//! its failure sorted by what it means for the data (refused, or outcome
//! unknown) and whether trying again can help.

use std::future::Future;
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::config::{AsyncSleep, SharedAsyncSleep};
use aws_sdk_dynamodb::error::SdkError;
use aws_smithy_async::time::SharedTimeSource;
use futures_util::future::{Either, select};

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
pub(crate) const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// How long one helper call may take in all when the
/// [`Table`](super::Table) sets no deadline: 60 s.
///
/// Every helper of [`ops`](crate::ops) returns within its deadline
/// ([`Table::deadline`](super::Table::deadline)), every attempt, retry and
/// pause included, each page of a stream counted on its own: an attempt
/// still waiting when it runs out is cut short, no attempt starts after it,
/// and the helper returns what it has: a batch its accounting (written,
/// handed back, in doubt), a write
/// [`ErrorKind::MaybeApplied`](crate::ErrorKind::MaybeApplied) when an
/// attempt was sent, else [`ErrorKind::Timeout`](crate::ErrorKind::Timeout).
pub(crate) const DEFAULT_DEADLINE: Duration = Duration::from_secs(60);

/// The default bound for one call through `client`.
pub(crate) fn call_timeout(client: &Client) -> Duration {
    client
        .config()
        .timeout_config()
        .and_then(|t| t.operation_timeout())
        .unwrap_or(DEFAULT_CALL_TIMEOUT)
}

/// How long one call may take, measured with the client's own async sleep
/// (the one the SDK uses for its timeouts and retries), so the helpers run
/// on whatever runtime the application gave the SDK and need no timer of
/// their own.
///
/// A bound also carries the deadline of the helper call it serves: made
/// with [`Bound::new`], it starts counting at [`Bound::start`] (the helper
/// call's start); every call and pause after that ends by then.
#[derive(Clone, Debug)]
pub(crate) struct Bound {
    after: Duration,
    sleep: Option<SharedAsyncSleep>,
    /// The helper call's whole budget.
    deadline: Duration,
    /// When it ends, once started.
    until: Option<SystemTime>,
    time: SharedTimeSource,
}

/// What a client without an async sleep lacks.
const NO_SLEEP: &str = "it has no async sleep implementation, which the helpers need to bound \
                        their calls and wait between retries: enable the `rt-tokio` feature of \
                        aws-sdk-dynamodb, or set one with `sleep_impl` on the client's config";

impl Bound {
    /// `after` for calls through `client`, measured with the sleep the
    /// client was given, else the one the SDK would use itself (tokio's when
    /// the SDK's `rt-tokio` feature is on).
    pub(crate) fn new(client: &Client, after: Duration, deadline: Duration) -> Self {
        Bound {
            after,
            sleep: client
                .config()
                .sleep_impl()
                .or_else(aws_smithy_async::rt::sleep::default_async_sleep),
            deadline,
            until: None,
            time: client.config().time_source().unwrap_or_default(),
        }
    }

    /// Each call bounded by `after`.
    pub(crate) fn with_after(mut self, after: Duration) -> Self {
        self.after = after;
        self
    }

    /// Each helper call bounded by `deadline` in all.
    pub(crate) fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// This bound with its deadline counting from now (kept when it already
    /// counts: a helper built on another shares its deadline).
    pub(crate) fn start(mut self) -> Self {
        if self.until.is_none() {
            self.until = self.time.now().checked_add(self.deadline);
        }
        self
    }

    /// What is left of the deadline (all of it before [`start`](Self::start)).
    fn left(&self) -> Duration {
        match self.until {
            None => self.deadline,
            Some(until) => until
                .duration_since(self.time.now())
                .unwrap_or(Duration::ZERO),
        }
    }

    /// Waits `pause` (between retries) before `operation` is sent again.
    pub(crate) async fn pause(
        &self,
        operation: &'static str,
        pause: Duration,
    ) -> Result<(), Error> {
        match &self.sleep {
            // A pause that would end past the deadline leaves no time to
            // send again: stop now rather than after a useless wait.
            Some(_) if pause >= self.left() => {
                Err(Error::deadline_passed(operation, self.deadline))
            }
            Some(sleep) => {
                sleep.sleep(pause).await;
                Ok(())
            }
            None => Err(Error::client_config(operation, NO_SLEEP)),
        }
    }

    /// Waits `pause`, whatever the deadline (pacing between calls, not a
    /// retry); an error when the client has no sleep.
    pub(crate) async fn sleep(&self, pause: Duration) -> Result<(), Error> {
        match &self.sleep {
            Some(sleep) => {
                sleep.sleep(pause).await;
                Ok(())
            }
            None => Err(Error::client_config("(pacing)", NO_SLEEP)),
        }
    }

    /// The time now, from the client's time source.
    pub(crate) fn now(&self) -> SystemTime {
        self.time.now()
    }

    /// Runs `work` for `operation` within the bound: `Err` with a timeout
    /// error when it runs out, or with the client's configuration error
    /// before anything runs when the client has no sleep.
    pub(crate) async fn run<F: Future>(
        &self,
        operation: &'static str,
        work: F,
    ) -> Result<F::Output, Error> {
        let Some(sleep) = &self.sleep else {
            return Err(Error::client_config(operation, NO_SLEEP));
        };
        let left = self.left();
        let (wait, out_of_time) = if left < self.after {
            (left, Error::deadline_passed(operation, self.deadline))
        } else {
            (self.after, Error::timed_out(operation, self.after))
        };
        let work = std::pin::pin!(work);
        let timer = sleep.sleep(wait);
        match select(work, timer).await {
            Either::Left((output, _)) => Ok(output),
            Either::Right(((), _)) => Err(out_of_time),
        }
    }
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

    /// The failure of a write to the item `key` (rendered) as the caller's
    /// error: a [`MaybeApplied`](crate::ErrorKind::MaybeApplied) one when
    /// the write may have been applied.
    pub(crate) fn into_write_error(self, operation: &'static str, key: String) -> Error {
        let attempt = self.attempt(operation);
        if attempt.maybe_applied {
            Error::maybe_applied(operation, key, attempt.error)
        } else {
            attempt.error
        }
    }
}

/// Runs one SDK call within `bound`.
///
/// The failure is sorted by the answer of the SDK's *last* attempt, so a
/// write must be sent with the SDK's own retries off ([`one_attempt`]):
/// with them on, an attempt answered with a server error (perhaps applied)
/// followed by one refused with throttling would read as refused, nothing
/// applied. Reads may keep the SDK's retries.
pub(crate) async fn call<T, E, F>(
    bound: &Bound,
    operation: &'static str,
    request: F,
) -> Result<T, Failed<E>>
where
    F: Future<Output = Result<T, SdkError<E, HttpResponse>>>,
    aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
{
    if bound.sleep.is_none() {
        return Err(Failed::NotSent(Error::client_config(operation, NO_SLEEP)));
    }
    if bound.left().is_zero() {
        return Err(Failed::NotSent(Error::deadline_passed(
            operation,
            bound.deadline,
        )));
    }
    match bound.run(operation, request).await {
        Err(timed_out) => Err(Failed::NoAnswer(timed_out)),
        Ok(Ok(output)) => Ok(output),
        Ok(Err(e)) => Err(classify(operation, bound.after, e)),
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

/// The configuration override that sends a request once: the SDK's own
/// retries off, so that [`call`] sees the answer of every attempt. Every
/// write a helper sends carries it; the helper retries by its own
/// [`RetryPolicy`](super::RetryPolicy), knowing what each attempt meant.
pub(crate) fn one_attempt() -> aws_sdk_dynamodb::config::Builder {
    aws_sdk_dynamodb::config::Builder::default()
        .retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled())
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
    aws_sdk_dynamodb::operation::delete_item::DeleteItemError,
    aws_sdk_dynamodb::operation::update_item::UpdateItemError
);

/// A transaction is refused for now when throttled, when an earlier
/// attempt with its token is still being applied (which only a resend
/// meets: asked again later, DynamoDB answers with that attempt's outcome),
/// or when it was canceled only for conflicts with other transactions on
/// its items (every reason `None`, `TransactionConflict` or
/// `ThrottlingError`): nothing was applied, and DynamoDB asks for a retry.
impl RefusedForNow for aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError {
    fn refused_for_now(&self) -> bool {
        let conflict_only = |e: &aws_sdk_dynamodb::types::error::TransactionCanceledException| {
            let codes = || {
                e.cancellation_reasons()
                    .iter()
                    .map(|r| r.code().unwrap_or("None"))
            };
            codes().any(|c| c != "None")
                && codes().all(|c| matches!(c, "None" | "TransactionConflict" | "ThrottlingError"))
        };
        self.is_provisioned_throughput_exceeded_exception()
            || self.is_throttling_exception()
            || self.is_request_limit_exceeded()
            || self.is_transaction_in_progress_exception()
            || matches!(self, Self::TransactionCanceledException(e) if conflict_only(e))
    }
}

/// Which failures [`call_conditional`] sends again.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resend {
    /// Only a request DynamoDB refused for now: an unanswered one may have
    /// been applied, and applying it again is not safe.
    Refused,
    /// Also a request that got no credible answer (a server error, a broken
    /// connection; not one that ran out of the call bound): only for a
    /// request DynamoDB applies at most once whatever the number of sends (a
    /// transaction with its client token, within ten minutes).
    RefusedOrUnanswered,
}

/// Runs a conditional write: one SDK attempt per call (the SDK's own
/// retries are off for it, see [`one_attempt`]), sent again only as
/// `resend` allows, up to `policy`.
///
/// Why not let the SDK retry: when the answer to an applied write is lost
/// (a dropped connection, a 5xx after the write), the SDK sends it again,
/// the write then fails its own condition, and the helper would report a
/// version conflict for a write that happened; a read-modify-write would
/// then apply its change a second time. Without SDK retries that case is
/// reported as what it is: no answer, outcome unknown.
///
/// Once an attempt went unanswered, the outcome stays unknown unless a
/// later attempt answers for it (a success, or a refusal that holds for
/// every send): running out of attempts on a refusal for now, or failing to
/// pause, returns that attempt's no-answer failure.
pub(crate) async fn call_conditional<T, E, F>(
    bound: &Bound,
    operation: &'static str,
    policy: super::RetryPolicy,
    resend: Resend,
    send: impl Fn(aws_sdk_dynamodb::config::Builder) -> F,
) -> Result<T, Failed<E>>
where
    F: Future<Output = Result<T, SdkError<E, HttpResponse>>>,
    E: RefusedForNow,
    aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
{
    let mut attempt = 0;
    let mut unanswered: Option<Error> = None;
    loop {
        attempt += 1;
        let more = attempt < policy.max_attempts();
        match call(bound, operation, send(one_attempt())).await {
            Err(Failed::Service(e)) if e.refused_for_now() => {
                if !more {
                    return Err(unanswered.map_or(Failed::Service(e), Failed::NoAnswer));
                }
                tracing::debug!(attempt, operation, "refused for now, retrying");
            }
            // Not after running out of the call bound: that is the caller's
            // budget for the call, not a fault a resend gets past.
            Err(Failed::NoAnswer(e))
                if resend == Resend::RefusedOrUnanswered
                    && more
                    && e.kind() != crate::ErrorKind::Timeout =>
            {
                tracing::debug!(attempt, operation, error = %e, "no answer, sending again");
                unanswered = Some(e);
            }
            other => return other,
        }
        if let Err(e) = bound.pause(operation, policy.delay(attempt)).await {
            return Err(unanswered.map_or(Failed::NotSent(e), Failed::NoAnswer));
        }
    }
}

/// Runs a read: the request `send` makes, within `bound`, sent again (by
/// `policy`, within the bound's deadline) when it got no answer: a read
/// changes nothing, so a page or item whose request ran out of the call
/// bound, lost its connection or met a server error is asked for again,
/// as the batches do. A refusal is the SDK's to retry (throttling) or the
/// caller's to see.
pub(crate) async fn call_read<T, E, F>(
    bound: &Bound,
    operation: &'static str,
    policy: super::RetryPolicy,
    send: impl Fn() -> F,
) -> Result<T, Failed<E>>
where
    F: Future<Output = Result<T, SdkError<E, HttpResponse>>>,
    aws_sdk_dynamodb::Error: From<SdkError<E, HttpResponse>>,
{
    let mut attempt = 0;
    loop {
        attempt += 1;
        let unanswered = match call(bound, operation, send()).await {
            Err(Failed::NoAnswer(e)) if attempt < policy.max_attempts() => e,
            other => return other,
        };
        tracing::debug!(attempt, operation, error = %unanswered, "no answer to a read, asking again");
        if bound.pause(operation, policy.delay(attempt)).await.is_err() {
            return Err(Failed::NoAnswer(unanswered));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use aws_sdk_dynamodb::operation::get_item::{GetItemError, GetItemOutput};

    use super::*;
    use crate::{ErrorDetails, ErrorKind};

    /// A client whose SDK has no sleep (no `rt-tokio`, none set) cannot be
    /// bounded: the call is refused before its request is even polled.
    #[tokio::test]
    async fn without_a_sleep_nothing_is_sent() {
        let bound = Bound {
            after: Duration::from_secs(1),
            sleep: None,
            deadline: Duration::from_secs(1),
            until: None,
            time: SharedTimeSource::default(),
        };
        let polled = AtomicBool::new(false);
        let request = async {
            polled.store(true, Ordering::SeqCst);
            Ok::<_, SdkError<GetItemError, HttpResponse>>(GetItemOutput::builder().build())
        };
        let Err(Failed::NotSent(e)) = call(&bound, "GetItem", request).await else {
            panic!("a call without a sleep was not refused before sending");
        };
        assert!(!polled.load(Ordering::SeqCst));
        assert_eq!(e.kind(), ErrorKind::ClientConfig);
        assert!(matches!(
            e.details(),
            ErrorDetails::ClientConfig {
                operation: "GetItem",
                ..
            }
        ));
        assert_eq!(
            e.to_string(),
            "the client cannot run dynamodb GetItem: it has no async sleep implementation, \
             which the helpers need to bound their calls and wait between retries: enable the \
             `rt-tokio` feature of aws-sdk-dynamodb, or set one with `sleep_impl` on the \
             client's config"
        );
        let paused = bound.pause("PutItem", Duration::ZERO).await;
        assert_eq!(paused.map_err(|e| e.kind()), Err(ErrorKind::ClientConfig));
    }
}
