//! Paginated reads decoded through a registry as a stream, holding one page
//! at a time.

use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder;
use aws_sdk_dynamodb::types::{ConsumedCapacity, ReturnConsumedCapacity};
use futures_util::Stream;
use futures_util::stream;
use tracing::Instrument;

use super::call::Bound;
use super::capacity::{self, CapacityUsage};
use crate::error::{Error, Result};
use crate::registry::{Decoded, Registry};

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

macro_rules! decode_pages {
    ($pages:expr, $registry:expr, $bound:expr, $operation:literal, $tally:expr) => {{
        let bound: Bound = $bound;
        let state = (
            $pages,
            $registry.clone(),
            Vec::new().into_iter(),
            false,
            $tally,
        );
        stream::unfold(
            state,
            move |(mut pages, registry, mut items, failed, mut tally)| {
                let bound = bound.clone();
                async move {
                    loop {
                        if let Some(item) = items.next() {
                            let decoded = registry.decode(item);
                            return Some((decoded, (pages, registry, items, failed, tally)));
                        }
                        if failed {
                            return None;
                        }
                        let span = tally.span.clone();
                        let page = bound.run($operation, pages.next()).instrument(span).await;
                        let page = match page {
                            Ok(page) => page,
                            Err(err) => {
                                return Some((Err(err), (pages, registry, items, true, tally)));
                            }
                        };
                        match page {
                            None => return None,
                            Some(Ok(page)) => {
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
                                return Some((Err(err), (pages, registry, items, true, tally)));
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
    decode_pages!(
        query.into_paginator().send(),
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
    decode_pages!(scan.into_paginator().send(), registry, bound, "Scan", tally)
}
