//! Paginated reads decoded through a registry as a stream, holding one page
//! at a time.

use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder;
use futures_util::Stream;
use futures_util::stream;

use super::DEFAULT_CALL_TIMEOUT;
use crate::error::{Error, Result};
use crate::registry::{Decoded, Registry};

macro_rules! decode_pages {
    ($pages:expr, $registry:expr, $operation:literal) => {{
        let state = ($pages, $registry.clone(), Vec::new().into_iter(), false);
        stream::unfold(
            state,
            |(mut pages, registry, mut items, failed)| async move {
                loop {
                    if let Some(item) = items.next() {
                        let decoded = registry.decode(item);
                        return Some((decoded, (pages, registry, items, failed)));
                    }
                    if failed {
                        return None;
                    }
                    let page = tokio::time::timeout(DEFAULT_CALL_TIMEOUT, pages.next()).await;
                    let Ok(page) = page else {
                        let err = Error::timed_out($operation, DEFAULT_CALL_TIMEOUT);
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

/// Runs a query page by page and decodes every item through `registry`, as a
/// stream. Only one page is held at a time. Skipped and raw items come out as
/// [`Decoded::Skipped`] and [`Decoded::Raw`] (per the registry's policies),
/// never silently dropped; a failed page request ends the stream with
/// [`ErrorKind::Sdk`](crate::ErrorKind::Sdk). Each page request is bounded by
/// [`DEFAULT_CALL_TIMEOUT`]: a page that does not come in that time ends the
/// stream with [`ErrorKind::Timeout`](crate::ErrorKind::Timeout). An operation
/// timeout set on the client applies too (the SDK enforces it); when it is
/// shorter, the stream ends with the SDK's timeout error in
/// [`ErrorKind::Sdk`](crate::ErrorKind::Sdk). A client timeout longer than
/// [`DEFAULT_CALL_TIMEOUT`] does not lengthen the bound.
///
/// ```no_run
/// use futures_util::{StreamExt, pin_mut};
/// # use dynamodb_mapper::{Registry, ops::query_stream};
/// # async fn demo(client: aws_sdk_dynamodb::Client, registry: Registry<String>) -> dynamodb_mapper::Result<()> {
/// let query = client
///     .query()
///     .table_name("AppTable")
///     .key_condition_expression("pk = :pk")
///     .expression_attribute_values(":pk", aws_sdk_dynamodb::types::AttributeValue::S("CUSTOMER#C1".into()));
/// let stream = query_stream(query, &registry);
/// pin_mut!(stream);
/// while let Some(decoded) = stream.next().await {
///     if let Some(entity) = decoded?.into_entity() {
///         println!("{entity}");
///     }
/// }
/// # Ok(())
/// # }
/// ```
pub fn query_stream<T: 'static>(
    query: QueryFluentBuilder,
    registry: &Registry<T>,
) -> impl Stream<Item = Result<Decoded<T>>> + use<T> {
    decode_pages!(query.into_paginator().send(), registry, "Query")
}

/// Runs a scan page by page and decodes every item through `registry`, as a
/// stream, exactly as [`query_stream`] does for queries.
///
/// ```no_run
/// use futures_util::TryStreamExt;
/// # use dynamodb_mapper::{Registry, ops::scan_stream};
/// # async fn demo(client: aws_sdk_dynamodb::Client, registry: Registry<String>) -> dynamodb_mapper::Result<()> {
/// let all: Vec<_> = scan_stream(client.scan().table_name("AppTable"), &registry)
///     .try_collect()
///     .await?;
/// # Ok(())
/// # }
/// ```
pub fn scan_stream<T: 'static>(
    scan: ScanFluentBuilder,
    registry: &Registry<T>,
) -> impl Stream<Item = Result<Decoded<T>>> + use<T> {
    decode_pages!(scan.into_paginator().send(), registry, "Scan")
}
