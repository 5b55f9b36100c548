//! Paginated reads decoded through a registry as a stream, holding one page
//! at a time, and one page at a time behind an opaque cursor ([`Page`]).

use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder;
use aws_sdk_dynamodb::types::{ConsumedCapacity, ReturnConsumedCapacity};
use futures_util::Stream;
use futures_util::stream;
use tracing::Instrument;

use super::call::Bound;
use super::capacity::{self, CapacityUsage};
use crate::cursor::{Cursors, QueryShape};
use crate::error::{Error, Result};
use crate::registry::{Decoded, DecodedItems, Registry};

/// What a stream has read so far, recorded on its span after each page.
struct Tally {
    span: tracing::Span,
    pages: usize,
    items: usize,
    /// The capacity the pages reported: `None` when the requests do not ask.
    used: Option<CapacityUsage>,
}

impl Tally {
    fn new(span: tracing::Span, asked: bool) -> Self {
        Tally {
            span,
            pages: 0,
            items: 0,
            used: capacity::start(asked),
        }
    }

    /// Counts a page of `items` and the capacity it reported.
    fn page(&mut self, items: usize, report: Option<&ConsumedCapacity>) {
        self.pages += 1;
        self.items += items;
        capacity::add_all(&mut self.used, report);
        self.span.record("pages", self.pages);
        self.span.record("items", self.items);
        capacity::record(&self.span, self.used.as_ref());
    }
}

/// How a stream goes on once the items it holds are handed out.
enum Then {
    /// Read the next page.
    Read,
    /// Hand out this error, then end.
    Fail(Error),
    /// End.
    End,
}

/// The error of a page whose `LastEvaluatedKey` is the `ExclusiveStartKey`
/// it was asked with: reading on would return the same page forever, and
/// the SDK's paginator would end the stream as if the read were complete.
fn repeated_key(operation: &'static str) -> Error {
    Error::unexpected_response(
        operation,
        "a page's LastEvaluatedKey is the ExclusiveStartKey it was asked with: the next page \
         would be the same, so the read cannot go on, and it is not complete"
            .to_owned(),
    )
}

macro_rules! decode_pages {
    ($pages:expr, $start:expr, $registry:expr, $bound:expr, $operation:literal, $tally:expr) => {{
        let bound: Bound = $bound;
        // The ExclusiveStartKey of the page asked for next.
        let start: Option<crate::item::Item> = $start;
        let state = (
            $pages,
            $registry.clone(),
            Vec::new().into_iter(),
            Then::Read,
            $tally,
            start,
        );
        stream::unfold(
            state,
            move |(mut pages, registry, mut items, mut then, mut tally, mut start)| {
                // Each page has the whole deadline.
                let bound = bound.clone().start();
                async move {
                    loop {
                        if let Some(item) = items.next() {
                            let decoded = registry.decode(item);
                            return Some((decoded, (pages, registry, items, then, tally, start)));
                        }
                        match then {
                            Then::Read => {}
                            Then::End => return None,
                            Then::Fail(err) => {
                                let state = (pages, registry, items, Then::End, tally, start);
                                return Some((Err(err), state));
                            }
                        }
                        let span = tally.span.clone();
                        let page = bound.run($operation, pages.next()).instrument(span).await;
                        let page = match page {
                            Ok(page) => page,
                            Err(err) => {
                                let state = (pages, registry, items, Then::End, tally, start);
                                return Some((Err(err), state));
                            }
                        };
                        match page {
                            None => return None,
                            Some(Ok(page)) => {
                                // The paginator ends quietly on a repeated
                                // key (after this page): said here instead.
                                let next = page.last_evaluated_key.filter(|k| !k.is_empty());
                                if next.is_some() && next == start {
                                    then = Then::Fail(repeated_key($operation));
                                }
                                start = next;
                                let page_items = page.items.unwrap_or_default();
                                tally.page(page_items.len(), page.consumed_capacity.as_ref());
                                tally.span.in_scope(|| {
                                    tracing::debug!(
                                        operation = $operation,
                                        items = page_items.len(),
                                        consumed_capacity = page
                                            .consumed_capacity
                                            .as_ref()
                                            .and_then(|c| c.capacity_units()),
                                        "decoding page"
                                    )
                                });
                                items = page_items.into_iter();
                            }
                            Some(Err(e)) => {
                                let err = Error::sdk($operation, aws_sdk_dynamodb::Error::from(e));
                                let state = (pages, registry, items, Then::End, tally, start);
                                return Some((Err(err), state));
                            }
                        }
                    }
                }
            },
        )
    }};
}

/// The mode a request sends: its own when it set one (`NONE` included),
/// else the table's.
fn mode(
    set: &Option<ReturnConsumedCapacity>,
    table: Option<ReturnConsumedCapacity>,
) -> Option<ReturnConsumedCapacity> {
    if set.is_some() { set.clone() } else { table }
}

/// See [`Table::query_stream`](super::Table::query_stream).
pub(super) fn query_stream<T: 'static>(
    query: QueryFluentBuilder,
    registry: &Registry<T>,
    bound: Bound,
    table_mode: Option<ReturnConsumedCapacity>,
) -> impl Stream<Item = Result<Decoded<T>>> + use<T> {
    let mode = mode(query.get_return_consumed_capacity(), table_mode);
    let asked = capacity::asks(mode.as_ref());
    let query = query.set_return_consumed_capacity(mode);
    let span = tracing::info_span!(
        "dynamodb_mapper.query",
        table = query.get_table_name().as_deref().unwrap_or_default(),
        index = query.get_index_name().as_deref(),
        pages = tracing::field::Empty,
        items = tracing::field::Empty,
        consumed_capacity = tracing::field::Empty,
    );
    let tally = Tally::new(span, asked);
    let start = query.get_exclusive_start_key().clone();
    decode_pages!(
        query.into_paginator().send(),
        start,
        registry,
        bound,
        "Query",
        tally
    )
}

/// See [`Table::scan_stream`](super::Table::scan_stream).
pub(super) fn scan_stream<T: 'static>(
    scan: ScanFluentBuilder,
    registry: &Registry<T>,
    bound: Bound,
    table_mode: Option<ReturnConsumedCapacity>,
) -> impl Stream<Item = Result<Decoded<T>>> + use<T> {
    let mode = mode(scan.get_return_consumed_capacity(), table_mode);
    let asked = capacity::asks(mode.as_ref());
    let scan = scan.set_return_consumed_capacity(mode);
    let span = tracing::info_span!(
        "dynamodb_mapper.scan",
        table = scan.get_table_name().as_deref().unwrap_or_default(),
        index = scan.get_index_name().as_deref(),
        pages = tracing::field::Empty,
        items = tracing::field::Empty,
        consumed_capacity = tracing::field::Empty,
    );
    let tally = Tally::new(span, asked);
    let start = scan.get_exclusive_start_key().clone();
    decode_pages!(
        scan.into_paginator().send(),
        start,
        registry,
        bound,
        "Scan",
        tally
    )
}

/// One page of a query ([`Table::query_page`](super::Table::query_page)):
/// its items decoded through the registry, and the cursor of the next page.
///
/// A page can hold no items and still have a `next` cursor: DynamoDB stops
/// a page at its `Limit` or 1 MB of items read *before* the filter
/// expression, so a page whose items were all filtered out is empty. Keep
/// reading while `next` is `Some`; only `None` means the query is done.
///
/// ```
/// # use dynamodb_mapper::doc_support::*;
/// use dynamodb_mapper::ops::Page;
/// let page: Page<Entity> = Page::new(Default::default(), Some("token".into()));
/// assert!(page.items.entities.is_empty() && page.next.is_some());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Page<T> {
    /// The page's items, decoded (and what the registry's policies skipped
    /// or kept raw).
    pub items: DecodedItems<T>,
    /// The cursor of the next page, `None` after the last one.
    pub next: Option<String>,
}

impl<T> Page<T> {
    /// A page of `items` followed by `next`.
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// let page = dynamodb_mapper::ops::Page::<Entity>::new(Default::default(), None);
    /// assert!(page.next.is_none());
    /// ```
    pub fn new(items: DecodedItems<T>, next: Option<String>) -> Self {
        Page { items, next }
    }
}

/// See [`Table::query_page`](super::Table::query_page).
pub(super) async fn query_page<T>(
    query: QueryFluentBuilder,
    registry: &Registry<T>,
    cursors: &Cursors,
    cursor: Option<&str>,
    bound: Bound,
    table_mode: Option<ReturnConsumedCapacity>,
) -> Result<Page<T>> {
    let Some(table) = query.get_table_name().clone() else {
        return Err(Error::invalid_cursor(format!(
            "the query has no table name; the cursors are for table {}",
            cursors.table_name()
        )));
    };
    let index = query.get_index_name().clone();
    if table != cursors.table_name() || index.as_deref() != cursors.index_name() {
        let on = |t: &str, i: Option<&str>| match i {
            None => format!("table {t}"),
            Some(i) => format!("index {i} of table {t}"),
        };
        return Err(Error::invalid_cursor(format!(
            "the query reads {}, the cursors are for {}",
            on(&table, index.as_deref()),
            on(cursors.table_name(), cursors.index_name())
        )));
    }
    if query.get_key_conditions().is_some() || query.get_query_filter().is_some() {
        // The legacy parameters are not part of a cursor's binding.
        return Err(Error::invalid_cursor(
            "the query uses the legacy KeyConditions or QueryFilter parameters, which a \
             cursor cannot be bound to: use a key condition and filter expression"
                .to_owned(),
        ));
    }
    // The cursor is bound to everything that decides which items come in
    // which order: a token of another query is refused before sending.
    let binding = crate::cursor::digest(&QueryShape {
        index: query.get_index_name().as_deref(),
        key_condition: query.get_key_condition_expression().as_deref(),
        filter: query.get_filter_expression().as_deref(),
        names: query.get_expression_attribute_names().as_ref(),
        values: query.get_expression_attribute_values().as_ref(),
        forward: *query.get_scan_index_forward(),
    });
    let mut query = query;
    if let Some(token) = cursor {
        query = query.set_exclusive_start_key(Some(cursors.decode_for(token, &binding)?));
    }
    let start = query.get_exclusive_start_key().clone();
    let mode = mode(query.get_return_consumed_capacity(), table_mode);
    let query = query.set_return_consumed_capacity(mode);
    let span = tracing::info_span!(
        "dynamodb_mapper.query_page",
        table = %table,
        index = index.as_deref().unwrap_or(""),
        items = tracing::field::Empty,
        consumed_capacity = tracing::field::Empty,
    );
    let out = super::call::call(&bound, "Query", query.send())
        .instrument(span.clone())
        .await
        .map_err(|f| f.into_error("Query"))?;
    let used = out.consumed_capacity().map(|c| c.capacity_units());
    span.record("consumed_capacity", tracing::field::debug(used));
    let found = out.items.unwrap_or_default();
    span.record("items", found.len());
    let items = span.in_scope(|| registry.decode_all(found))?;
    let next = match out.last_evaluated_key {
        // A cursor to this very page again: a caller reading on would never
        // get past it.
        Some(key) if !key.is_empty() && start.as_ref() == Some(&key) => {
            return Err(repeated_key("Query"));
        }
        Some(key) if !key.is_empty() => Some(cursors.encode_for(&key, &binding).map_err(|e| {
            Error::unexpected_response(
                "Query",
                format!(
                    "its LastEvaluatedKey cannot be a cursor: {}",
                    e.reason().unwrap_or("it does not fit the table's keys")
                ),
            )
        })?),
        _ => None,
    };
    Ok(Page { items, next })
}
