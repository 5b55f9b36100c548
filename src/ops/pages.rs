//! Paginated reads decoded through a registry as a stream, holding one page
//! at a time, and one page at a time behind an opaque cursor ([`Page`]).

use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder;
use std::collections::HashMap;

use aws_sdk_dynamodb::types::{ConsumedCapacity, ReturnConsumedCapacity, Select};
use futures_util::Stream;
use futures_util::stream;
use tracing::Instrument;

use super::Table;
use super::call::Bound;
use super::capacity::{self, CapacityUsage};
use crate::cursor::{Cursors, QueryShape};
use crate::error::{Error, Result};
use crate::expr::Apply;
use crate::mapper::{Lookup, Mapper};
use crate::registry::{Decoded, DecodedItems, Registry};

impl<M: Mapper> Lookup<'_, M> {
    /// A `Query` of `table` that reads only this entity type: the
    /// [`key_condition`](Lookup::key_condition) (and index), and the
    /// discriminator [`filter`](Lookup::filter), so items of other types
    /// that share the partition and prefix are left out by DynamoDB (they
    /// still count towards the read capacity). It asks for consumed
    /// capacity as [`Table::query`] does. Send it yourself and decode every
    /// item with [`MapperExt::from_item`](crate::MapperExt::from_item), or
    /// pass it to [`Table::query_stream`] or [`Table::query_page`]; no
    /// registry is needed for one type. On an index whose items do not hold
    /// the discriminator (`KEYS_ONLY`, or `INCLUDE` without it) there is no
    /// filter: decode with
    /// [`MapperExt::from_projected`](crate::MapperExt::from_projected), which
    /// checks the keys against the mapper's patterns instead.
    ///
    /// # Errors
    /// As [`key_condition`](Lookup::key_condition), and as
    /// [`Apply::apply`](crate::expr::Apply::apply).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "AppTable", TABLE);
    /// let query = OrderMapper::lookup().with("customer", "C1").query(&table)?;
    /// assert_eq!(query.get_table_name().as_deref(), Some("AppTable"));
    /// assert_eq!(
    ///     query.get_key_condition_expression().as_deref(),
    ///     Some("#k0 = :k0 AND begins_with(#k1, :k1)")
    /// );
    /// assert_eq!(query.get_filter_expression().as_deref(), Some("#c0 IN (:c0, :c1)"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn query(&self, table: &Table) -> Result<QueryFluentBuilder> {
        // The expressions' own errors name the attribute; the entity type is
        // added here, where it is known.
        let typed = |e: Error| e.with_entity_type(M::ENTITY_TYPE);
        let query = table.query().apply(self.key_condition()?).map_err(typed)?;
        match self.filter() {
            Some(filter) if self.index_holds_discriminator() => query.apply(filter).map_err(typed),
            _ => Ok(query),
        }
    }
}

/// What a stream has read so far, recorded on its span after each page.
struct Tally {
    span: tracing::Span,
    pages: usize,
    items: usize,
    /// The capacity the pages reported: `None` when the requests do not ask.
    used: Option<CapacityUsage>,
    /// What the request's projection reads, if it has one: the records
    /// decoded are marked with it.
    projection: Option<String>,
}

impl Tally {
    fn new(span: tracing::Span, asked: bool, projection: Option<String>) -> Self {
        Tally {
            span,
            pages: 0,
            items: 0,
            used: capacity::start(asked),
            projection,
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
pub(super) fn repeated_key(operation: &'static str) -> Error {
    Error::unexpected_response(
        operation,
        "a page's LastEvaluatedKey is the ExclusiveStartKey it was asked with: the next page \
         would be the same, so the read cannot go on, and it is not complete"
            .to_owned(),
    )
}

/// The stream of [`Table::query_stream`] or [`Table::scan_stream`] (the two
/// request builders share their getters and setters, not a type).
macro_rules! decode_pages {
    ($table:expr, $request:expr, $registry:expr, $span:literal, $operation:literal) => {{
        let table: &Table = $table;
        let request = $request;
        let mode = mode(
            request.get_return_consumed_capacity(),
            table.get_return_consumed_capacity().cloned(),
        );
        let asked = capacity::asks(mode.as_ref());
        let request = request.set_return_consumed_capacity(mode);
        let span = tracing::info_span!(
            $span,
            table = request.get_table_name().as_deref().unwrap_or_default(),
            index = request.get_index_name().as_deref(),
            pages = tracing::field::Empty,
            items = tracing::field::Empty,
            consumed_capacity = tracing::field::Empty,
        );
        let projection = projection_of(
            request.get_projection_expression().as_deref(),
            request.get_expression_attribute_names().as_ref(),
            request.get_attributes_to_get().as_deref(),
            request.get_select().as_ref(),
        );
        let tally = Tally::new(span, asked, projection);
        let bound: Bound = table.bound_unstarted();
        let policy = table.get_retry_policy();
        // The ExclusiveStartKey of the page asked for next.
        let start: Option<crate::item::Item> = request.get_exclusive_start_key().clone();
        let state = (
            request,
            $registry.clone(),
            Vec::new().into_iter(),
            Then::Read,
            tally,
            start,
        );
        stream::unfold(
            state,
            move |(pages, registry, mut items, mut then, mut tally, mut start)| {
                // Each page has the whole deadline.
                let bound = bound.clone().start();
                async move {
                    loop {
                        if let Some(item) = items.next() {
                            let decoded = registry.decode_read(item, tally.projection.as_deref());
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
                        let send = || pages.clone().set_exclusive_start_key(start.clone()).send();
                        let page = super::call::call_read(&bound, $operation, policy, send)
                            .instrument(span)
                            .await;
                        match page {
                            Ok(page) => {
                                // The last page has no LastEvaluatedKey; one
                                // that repeats the key it was asked from
                                // would give the same page forever.
                                let next = page.last_evaluated_key.filter(|k| !k.is_empty());
                                then = match &next {
                                    None => Then::End,
                                    Some(key) if start.as_ref() == Some(key) => {
                                        Then::Fail(repeated_key($operation))
                                    }
                                    Some(_) => Then::Read,
                                };
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
                            Err(failed) => {
                                let err = failed.into_error($operation);
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

/// What a request's projection reads, as attribute names, when it reads
/// less than whole items: its projection expression with the names
/// resolved, its (legacy) attributes to get, or the attributes an index
/// projects.
fn projection_of(
    expression: Option<&str>,
    names: Option<&HashMap<String, String>>,
    attributes: Option<&[String]>,
    select: Option<&Select>,
) -> Option<String> {
    if let Some(text) = expression {
        let mut resolved = String::with_capacity(text.len());
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c != '#' {
                resolved.push(c);
                continue;
            }
            let mut end = i + 1;
            while let Some(&(j, d)) = chars.peek() {
                if !(d.is_ascii_alphanumeric() || d == '_') {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            let placeholder = text.get(i..end).unwrap_or_default();
            match names.and_then(|n| n.get(placeholder)) {
                Some(name) => resolved.push_str(name),
                None => resolved.push_str(placeholder),
            }
        }
        return Some(resolved);
    }
    if let Some(attributes) = attributes {
        return Some(attributes.join(", "));
    }
    match select {
        Some(Select::AllProjectedAttributes) => {
            Some("the attributes the index projects".to_owned())
        }
        _ => None,
    }
}

/// The mode a request sends: its own when it set one (`NONE` included),
/// else the table's.
fn mode(
    set: &Option<ReturnConsumedCapacity>,
    table: Option<ReturnConsumedCapacity>,
) -> Option<ReturnConsumedCapacity> {
    if set.is_some() { set.clone() } else { table }
}

/// One page of a query ([`Table::query_page`](super::Table::query_page)):
/// its items decoded through the registry, and the cursor of the next page.
///
/// A page can hold no items and still have a `next` cursor: DynamoDB stops
/// a page at its `Limit` or 1 MB of items read *before* the filter
/// expression, so a page whose items were all filtered out is empty. Keep
/// reading while `next` is `Some`; only `None` means the query is done.
///
/// ```no_run
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::{cursor::Cursors, ops::Page};
/// # async fn demo(registry: Registry<Entity>) -> dynamodb_mapper::Result<()> {
/// let table = table();
/// let cursors = Cursors::new("AppTable", TABLE).signed_with(b"a secret of the server");
/// let mut token = None;
/// loop {
///     let query = OrderMapper::lookup().with("customer", "C1").query(&table)?.limit(20);
///     let page: Page<Entity> = table.query_page(query, &registry, &cursors, token.as_deref()).await?;
///     println!("{} orders", page.items.entities.len());
///     let Some(next) = page.next else { break };
///     token = Some(next);
/// }
/// # Ok(())
/// # }
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

impl<T> Page<T> {}

impl Table {
    /// One page of `query`, starting after `cursor` (a token from the
    /// previous [`Page::next`](super::Page), `None` for the first page):
    /// its items decoded through `registry`, and the cursor of the next
    /// page, for a client to hand back. `cursors` must be for the query's
    /// table and index. Each token is bound to the query that issued it
    /// (a digest of its index, key condition, filter, their names and
    /// values, and its order): a token from another table, index or query
    /// (another partition, range or filter), unsigned when `cursors` are
    /// signed, or altered is refused before anything is sent. A page may be
    /// empty and still have a next cursor (see [`Page`](super::Page)).
    ///
    /// Returns within the table's [deadline](crate::ops::Table::deadline).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidCursor`](crate::ErrorKind::InvalidCursor) for a
    /// refused token, `cursors` for another table or index than the
    /// query's, or a query with the legacy `KeyConditions` or `QueryFilter`
    /// parameters (a cursor cannot be bound to them); decoding errors as
    /// [`Registry::decode_all`] reports them;
    /// [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse)
    /// when DynamoDB's `LastEvaluatedKey` does not fit the table's keys, or
    /// is the key the page was asked from (a cursor to the same page);
    /// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) and
    /// [`ErrorKind::Sdk`](crate::ErrorKind::Sdk) as for any read.
    ///
    /// ```no_run
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::cursor::Cursors;
    /// # async fn demo(registry: Registry<Entity>, token_from_client: Option<String>) -> dynamodb_mapper::Result<()> {
    /// let table = table();
    /// let cursors = Cursors::new("AppTable", TABLE).signed_with(b"a secret of the server");
    /// let query = OrderMapper::lookup().with("customer", "C1").query(&table)?.limit(20);
    /// let page = table.query_page(query, &registry, &cursors, token_from_client.as_deref()).await?;
    /// // Hand `page.items.entities` and `page.next` to the client.
    /// # Ok(())
    /// # }
    /// ```
    pub async fn query_page<T>(
        &self,
        query: QueryFluentBuilder,
        registry: &Registry<T>,
        cursors: &Cursors,
        cursor: Option<&str>,
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
        let projection = projection_of(
            query.get_projection_expression().as_deref(),
            query.get_expression_attribute_names().as_ref(),
            query.get_attributes_to_get().as_deref(),
            query.get_select().as_ref(),
        );
        let mut query = query;
        if let Some(token) = cursor {
            query = query.set_exclusive_start_key(Some(cursors.decode_for(token, &binding)?));
        }
        let start = query.get_exclusive_start_key().clone();
        let mode = mode(
            query.get_return_consumed_capacity(),
            self.get_return_consumed_capacity().cloned(),
        );
        let query = query.set_return_consumed_capacity(mode);
        let span = tracing::info_span!(
            "dynamodb_mapper.query_page",
            table = %table,
            index = index.as_deref().unwrap_or(""),
            items = tracing::field::Empty,
            consumed_capacity = tracing::field::Empty,
        );
        let policy = self.get_retry_policy();
        let out = super::call::call_read(&self.bound(), "Query", policy, || query.clone().send())
            .instrument(span.clone())
            .await
            .map_err(|f| f.into_error("Query"))?;
        let used = out.consumed_capacity().map(|c| c.capacity_units());
        span.record("consumed_capacity", tracing::field::debug(used));
        let found = out.items.unwrap_or_default();
        span.record("items", found.len());
        let items = span.in_scope(|| registry.decode_all_read(found, projection.as_deref()))?;
        let next = match out.last_evaluated_key {
            // A cursor to this very page again: a caller reading on would never
            // get past it.
            Some(key) if !key.is_empty() && start.as_ref() == Some(&key) => {
                return Err(repeated_key("Query"));
            }
            Some(key) if !key.is_empty() => {
                Some(cursors.encode_for(&key, &binding).map_err(|e| {
                    Error::unexpected_response(
                        "Query",
                        format!(
                            "its LastEvaluatedKey cannot be a cursor: {}",
                            e.reason().unwrap_or("it does not fit the table's keys")
                        ),
                    )
                })?)
            }
            _ => None,
        };
        Ok(Page { items, next })
    }

    /// A `Query` of this table, to complete with a key condition (and pass
    /// to [`query_stream`](Self::query_stream) or send yourself). It asks
    /// for consumed capacity when the table does
    /// ([`return_consumed_capacity`](Self::return_consumed_capacity)).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "AppTable", TABLE);
    /// assert_eq!(table.query().get_table_name().as_deref(), Some("AppTable"));
    /// ```
    pub fn query(&self) -> QueryFluentBuilder {
        self.client()
            .query()
            .table_name(self.name())
            .set_return_consumed_capacity(self.get_return_consumed_capacity().cloned())
    }

    /// A `Scan` of this table (asking for consumed capacity as
    /// [`query`](Self::query) does).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let table = dynamodb_mapper::ops::Table::new(&client(), "AppTable", TABLE);
    /// assert_eq!(table.scan().get_table_name().as_deref(), Some("AppTable"));
    /// ```
    pub fn scan(&self) -> ScanFluentBuilder {
        self.client()
            .scan()
            .table_name(self.name())
            .set_return_consumed_capacity(self.get_return_consumed_capacity().cloned())
    }

    /// Runs a query page by page and decodes every item through `registry`,
    /// as a stream holding one page at a time. Skipped and raw items come
    /// out as [`Decoded::Skipped`] and [`Decoded::Raw`] (per the registry's
    /// policies), never silently dropped; a failed page request ends the
    /// stream with its error. Each page request is bounded by the table's
    /// [`call_timeout`](Self::call_timeout), and asked for again (by the
    /// table's retry policy) when it got no answer: it ran out of that
    /// bound, lost its connection or met a server error. Each page, every
    /// request and the SDK's own retries included, is bounded by the
    /// table's [`deadline`](Self::deadline): a page that does not come in
    /// time ends the stream with an
    /// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) error. A page whose `LastEvaluatedKey` is the key it was asked from
    /// (the next page would be the same one) ends the stream, after its
    /// items, with an
    /// [`ErrorKind::UnexpectedResponse`](crate::ErrorKind::UnexpectedResponse)
    /// error: the read is not complete, and never ends quietly.
    ///
    /// The stream runs in a `dynamodb_mapper.query` tracing span (`pages`,
    /// `items`). When the table asks for consumed capacity and `query` does
    /// not set `ReturnConsumedCapacity` itself, every page asks for it; the
    /// running sum of what the pages report is the span's
    /// `consumed_capacity` field.
    ///
    /// ```no_run
    /// use futures_util::{StreamExt, pin_mut};
    /// use dynamodb_mapper::expr::{KeyCondition, Apply};
    /// # use dynamodb_mapper::{Registry, ops::Table};
    /// # async fn demo(table: Table, registry: Registry<String>) -> dynamodb_mapper::Result<()> {
    /// let query = table
    ///     .query()
    ///     .apply(KeyCondition::new(table.schema(), "CUSTOMER#C1"))?;
    /// let stream = table.query_stream(query, &registry);
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
        &self,
        query: QueryFluentBuilder,
        registry: &Registry<T>,
    ) -> impl Stream<Item = Result<Decoded<T>>> + use<T> {
        decode_pages!(self, query, registry, "dynamodb_mapper.query", "Query")
    }

    /// Runs a scan page by page and decodes every item through `registry`,
    /// as a stream, exactly as [`query_stream`](Self::query_stream) does for
    /// queries (in a `dynamodb_mapper.scan` span).
    ///
    /// ```no_run
    /// use futures_util::TryStreamExt;
    /// # use dynamodb_mapper::{Registry, ops::Table};
    /// # async fn demo(table: Table, registry: Registry<String>) -> dynamodb_mapper::Result<()> {
    /// let all: Vec<_> = table.scan_stream(table.scan(), &registry).try_collect().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn scan_stream<T: 'static>(
        &self,
        scan: ScanFluentBuilder,
        registry: &Registry<T>,
    ) -> impl Stream<Item = Result<Decoded<T>>> + use<T> {
        decode_pages!(self, scan, registry, "dynamodb_mapper.scan", "Scan")
    }

    /// One `Scan` page (the table's bound, the client's retries, asked
    /// again when unanswered: a read changes nothing), for the sweeps of
    /// [`evolve`](crate::evolve).
    pub(crate) async fn scan_once(
        &self,
        scan: ScanFluentBuilder,
    ) -> Result<aws_sdk_dynamodb::operation::scan::ScanOutput> {
        let policy = self.get_retry_policy();
        super::call::call_read(&self.bound(), "Scan", policy, || scan.clone().send())
            .await
            .map_err(|f| f.into_error("Scan"))
    }
}
