//! The loop both batch kinds share: chunks in flight, attempt after attempt,
//! and every entry accounted for. What differs between writes and gets (the
//! request sent, how an answer is matched to it) is a [`Job`].

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};

use aws_sdk_dynamodb::types::ConsumedCapacity;
use futures_util::stream::{self, StreamExt};

use super::{BatchSummary, Entry};
use crate::describe::describe_key;
use crate::error::{Error, Result as CrateResult};
use crate::item::Item;
use crate::ops::call::{Bound, Failed};
use crate::ops::capacity;
use crate::ops::identity::KeyId;
use crate::ops::{RetryPolicy, Table};
use crate::schema::TableSchema;

/// What both batch kinds hold: the table (its deadline started only while
/// a call runs) and how many requests may be in flight at once.
#[derive(Debug, Clone)]
pub(super) struct Batch {
    pub(super) table: Table,
    pub(super) concurrency: usize,
}

impl Batch {
    /// A batch of `table`, four requests in flight.
    pub(super) fn of(table: &Table) -> Self {
        Batch {
            table: table.clone(),
            concurrency: 4,
        }
    }

    /// This batch with its table's deadline counting from now.
    pub(super) fn started(&self) -> Self {
        Batch {
            table: self.table.started(),
            concurrency: self.concurrency,
        }
    }
}

/// One kind of batch request.
pub(super) trait Job {
    /// What one entry sends: a write request, or a key.
    type Request: Clone;
    /// The SDK's error for the operation.
    type Error;
    /// The SDK's output for the operation.
    type Response;
    /// The operation, for errors and traces.
    const OPERATION: &'static str;
    /// Entries per request.
    const CHUNK: usize;

    /// The table the batch reads or writes, with its options, and how many
    /// requests may be in flight at once.
    fn batch(&self) -> &Batch;

    /// Whether the requests ask DynamoDB for consumed capacity.
    fn asks_capacity(&self) -> bool {
        capacity::asks(self.batch().table.get_return_consumed_capacity())
    }

    /// The bound of each attempt (and the batch call's deadline), whose
    /// sleep also paces the retries.
    fn bound(&self) -> Bound {
        self.batch().table.bound()
    }

    /// Sends one attempt (bounded in time, see `ops::call`).
    fn send(
        &self,
        requests: Vec<Self::Request>,
    ) -> impl Future<Output = Result<Self::Response, Failed<Self::Error>>> + Send;

    /// Matches an answer to the entries sent, or says what makes it nonsense.
    fn sort(
        &self,
        pending: &[Entry<Self::Request>],
        response: Self::Response,
    ) -> Result<Sorted, String>;
}

/// An answer matched to the entries sent.
pub(super) struct Sorted {
    /// Per entry sent: whether DynamoDB handed it back to send again.
    pub(super) again: Vec<bool>,
    /// Items read (gets).
    pub(super) found: Vec<Item>,
    /// Capacity the answer reported.
    pub(super) capacity: Vec<ConsumedCapacity>,
}

/// What a whole batch did. `done + unprocessed + in_doubt` is every entry.
pub(super) struct Outcome<T> {
    pub(super) summary: BatchSummary,
    /// Entries DynamoDB confirmed (written, or read or found absent).
    pub(super) done: usize,
    /// Items read (gets).
    pub(super) found: Vec<Item>,
    /// Entries certainly not done: handed back, refused, or never sent.
    pub(super) unprocessed: Vec<T>,
    /// Entries sent without a credible answer: they may have been done.
    pub(super) in_doubt: Vec<T>,
    /// Most attempts of any one chunk.
    pub(super) attempts: u32,
    /// What stopped the batch, if something did.
    pub(super) cause: Option<Error>,
}

impl<T> Outcome<T> {
    /// Nothing done yet; capacity counted from zero when `asked`.
    fn new(asked: bool) -> Self {
        Outcome {
            summary: BatchSummary {
                consumed_capacity: capacity::start(asked),
                ..BatchSummary::default()
            },
            done: 0,
            found: Vec::new(),
            unprocessed: Vec::new(),
            in_doubt: Vec::new(),
            attempts: 0,
            cause: None,
        }
    }

    /// Ends a chunk with `pending` not confirmed.
    fn finish(mut self, pending: Vec<Entry<T>>, cause: Option<Error>) -> Self {
        for entry in pending {
            if entry.maybe_applied {
                self.in_doubt.push(entry.request);
            } else {
                self.unprocessed.push(entry.request);
            }
        }
        self.cause = cause;
        self
    }

    fn add(&mut self, other: Outcome<T>) {
        self.summary.add(&other.summary);
        self.done += other.done;
        self.found.extend(other.found);
        self.unprocessed.extend(other.unprocessed);
        self.in_doubt.extend(other.in_doubt);
        self.attempts = self.attempts.max(other.attempts);
        // Chunks that stopped because another did have no cause of their own.
        if self.cause.is_none() {
            self.cause = other.cause;
        }
    }
}

/// Runs `entries` in chunks, the job's `concurrency` at a time, retrying
/// as its table's policy says. The first error that retrying cannot fix, or
/// an answer that makes no sense, stops the batch: nothing more is sent
/// after it. The counts (requests, retries, capacity) are recorded on
/// `span`, the batch call's.
pub(super) async fn run<J>(
    job: &J,
    entries: Vec<Entry<J::Request>>,
    span: &tracing::Span,
) -> Outcome<J::Request>
where
    J: Job,
    aws_sdk_dynamodb::Error: From<J::Error>,
{
    let retry = job.batch().table.get_retry_policy();
    let concurrency = job.batch().concurrency;
    let stop = AtomicBool::new(false);
    let outcomes: Vec<Outcome<J::Request>> = stream::iter(chunks(entries, J::CHUNK))
        .map(|chunk| run_chunk(job, chunk, retry, &stop))
        .buffer_unordered(concurrency.max(1))
        .collect()
        .await;
    let mut total = Outcome::new(job.asks_capacity());
    for outcome in outcomes {
        total.add(outcome);
    }
    total.summary.items = total.done;
    span.record("requests", total.summary.requests);
    span.record("retries", total.summary.retries);
    capacity::record(span, total.summary.consumed_capacity.as_ref());
    total
}

async fn run_chunk<J>(
    job: &J,
    mut pending: Vec<Entry<J::Request>>,
    retry: RetryPolicy,
    stop: &AtomicBool,
) -> Outcome<J::Request>
where
    J: Job,
    aws_sdk_dynamodb::Error: From<J::Error>,
{
    let mut out = Outcome::new(job.asks_capacity());
    loop {
        if stop.load(Ordering::SeqCst) {
            // Another chunk met an error that retrying cannot fix.
            return out.finish(pending, None);
        }
        out.attempts += 1;
        out.summary.requests += 1;
        let requests = pending.iter().map(|e| e.request.clone()).collect();
        let mut cause = None;
        match job.send(requests).await {
            Ok(response) => match job.sort(&pending, response) {
                Ok(sorted) => {
                    capacity::add_all(&mut out.summary.consumed_capacity, &sorted.capacity);
                    out.found.extend(sorted.found);
                    let mut left = Vec::new();
                    for (entry, again) in pending.into_iter().zip(sorted.again) {
                        if again {
                            left.push(entry);
                        } else {
                            out.done += 1;
                        }
                    }
                    pending = left;
                    if pending.is_empty() {
                        return out;
                    }
                    tracing::debug!(
                        unprocessed = pending.len(),
                        attempt = out.attempts,
                        operation = J::OPERATION,
                        "retrying unprocessed entries"
                    );
                }
                Err(reason) => {
                    // Nothing in the answer is trusted: whatever was sent may
                    // or may not have been done.
                    for entry in &mut pending {
                        entry.maybe_applied = true;
                    }
                    stop.store(true, Ordering::SeqCst);
                    let cause = Error::unexpected_response(J::OPERATION, reason);
                    return out.finish(pending, Some(cause));
                }
            },
            Err(failed) => {
                let attempt = failed.attempt(J::OPERATION);
                if attempt.maybe_applied {
                    for entry in &mut pending {
                        entry.maybe_applied = true;
                    }
                }
                if !attempt.retryable {
                    stop.store(true, Ordering::SeqCst);
                    return out.finish(pending, Some(attempt.error));
                }
                tracing::debug!(
                    error = %format_args!("{:#}", attempt.error),
                    attempt = out.attempts,
                    "retrying batch"
                );
                cause = Some(attempt.error);
            }
        }
        if out.attempts >= retry.max_attempts() {
            return out.finish(pending, cause);
        }
        out.summary.retries += 1;
        if let Err(e) = job
            .bound()
            .pause(J::OPERATION, retry.delay(out.attempts))
            .await
        {
            return out.finish(pending, Some(e));
        }
    }
}

/// Splits `items` into chunks of at most `size`.
fn chunks<T>(items: Vec<T>, size: usize) -> Vec<Vec<T>> {
    let size = size.max(1);
    let mut out = Vec::with_capacity(items.len().div_ceil(size));
    let mut it = items.into_iter().peekable();
    while it.peek().is_some() {
        out.push(it.by_ref().take(size).collect());
    }
    out
}

/// How a field of a batch answer names what it lists, for the errors of
/// [`locate`].
pub(super) struct Listing {
    /// The field and its verb, e.g. `UnprocessedItems lists`.
    pub(super) field: &'static str,
    /// What it lists, e.g. `requests`.
    pub(super) entries: &'static str,
    /// What the batch does with its table, e.g. `write to`.
    pub(super) does: &'static str,
}

/// The entries a field of the answer lists for `table`, each with its key
/// and the position in `pending` of the entry sent with that key; or what
/// makes the answer nonsense: entries for another table, one without a
/// usable key (`key_of`), a key that was not sent, or one listed twice.
pub(super) fn locate<T, L>(
    lists: Option<HashMap<String, Vec<L>>>,
    table: &str,
    schema: &TableSchema,
    pending: &[Entry<T>],
    listing: &Listing,
    key_of: impl Fn(&TableSchema, &L) -> CrateResult<Item>,
) -> Result<Vec<(usize, Item, L)>, String> {
    let Listing {
        field,
        entries,
        does,
    } = listing;
    let index: HashMap<&KeyId, usize> = pending
        .iter()
        .enumerate()
        .map(|(i, e)| (&e.id, i))
        .collect();
    let mut seen = vec![false; pending.len()];
    let mut located = Vec::new();
    for (name, list) in lists.unwrap_or_default() {
        if list.is_empty() {
            continue;
        }
        if name != table {
            return Err(format!(
                "{field} {} {entries} for table {name:?}, which this batch did not {does}",
                list.len()
            ));
        }
        for entry in list {
            let key = key_of(schema, &entry)
                .map_err(|e| format!("{field} an entry without a usable key ({e})"))?;
            let Some(&i) = index.get(&KeyId::of(&key)) else {
                return Err(format!(
                    "{field} the key {}, which was not in the request",
                    describe_key(&key)
                ));
            };
            if std::mem::replace(&mut seen[i], true) {
                return Err(format!("{field} the key {} twice", describe_key(&key)));
            }
            located.push((i, key, entry));
        }
    }
    Ok(located)
}
