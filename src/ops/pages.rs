//! Paginated reads decoded through a registry as a stream, holding one page
//! at a time.

use std::time::Duration;

use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder;
use futures_util::Stream;
use futures_util::stream;

use crate::error::{Error, Result};
use crate::registry::{Decoded, Registry};

macro_rules! decode_pages {
    ($pages:expr, $registry:expr, $bound:expr, $operation:literal) => {{
        let bound: std::time::Duration = $bound;
        let state = ($pages, $registry.clone(), Vec::new().into_iter(), false);
        stream::unfold(
            state,
            move |(mut pages, registry, mut items, failed)| async move {
                loop {
                    if let Some(item) = items.next() {
                        let decoded = registry.decode(item);
                        return Some((decoded, (pages, registry, items, failed)));
                    }
                    if failed {
                        return None;
                    }
                    let page = tokio::time::timeout(bound, pages.next()).await;
                    let Ok(page) = page else {
                        let err = Error::timed_out($operation, bound);
                        return Some((Err(err), (pages, registry, items, true)));
                    };
                    match page {
                        None => return None,
                        Some(Ok(page)) => {
                            let page_items = page.items.unwrap_or_default();
                            tracing::debug!(
                                operation = $operation,
                                items = page_items.len(),
                                "decoding page"
                            );
                            items = page_items.into_iter();
                        }
                        Some(Err(e)) => {
                            let err = Error::sdk($operation, aws_sdk_dynamodb::Error::from(e));
                            return Some((Err(err), (pages, registry, items, true)));
                        }
                    }
                }
            },
        )
    }};
}

/// See [`Table::query_stream`](super::Table::query_stream).
pub(super) fn query_stream<T: 'static>(
    query: QueryFluentBuilder,
    registry: &Registry<T>,
    bound: Duration,
) -> impl Stream<Item = Result<Decoded<T>>> + use<T> {
    decode_pages!(query.into_paginator().send(), registry, bound, "Query")
}

/// See [`Table::scan_stream`](super::Table::scan_stream).
pub(super) fn scan_stream<T: 'static>(
    scan: ScanFluentBuilder,
    registry: &Registry<T>,
    bound: Duration,
) -> impl Stream<Item = Result<Decoded<T>>> + use<T> {
    decode_pages!(scan.into_paginator().send(), registry, bound, "Scan")
}
