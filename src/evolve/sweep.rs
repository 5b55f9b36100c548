//! [`Sweep`]: one pass over a table, or over one segment of DynamoDB's
//! parallel scan, page by page, stopping and resuming at checkpoints.

use std::fmt;
use std::time::Duration;

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use tracing::Instrument;

use super::audit::Audit;
use super::pace::{Budget, OnProgress, Progress, Units};
use super::sentinels;
use crate::cursor::Cursors;
use crate::error::{Error, Result};
use crate::item::Item;
use crate::ops::Table;
use crate::registry::Registry;

/// Items a backfill writes at once, by default.
const DEFAULT_CONCURRENCY: usize = 8;

/// DynamoDB's most segments for one parallel scan.
const MAX_SEGMENTS: u32 = 1_000_000;

/// A pass over a table, or one segment of it, that reads every item
/// through a registry: [`audit`](Self::audit) reports what is wrong with
/// the items. Made by [`Table::sweep`].
///
/// Each segment of DynamoDB's parallel scan ([`segment`](Self::segment))
/// is independent work for one process: run segment `i` of `n` in `n`
/// Lambda invocations, containers or tasks, and [`Audit::merge`] their
/// reports. A run can stop after some pages ([`max_pages`](Self::max_pages))
/// and hand back a checkpoint ([`Audit::next`]); a later run, anywhere,
/// [`resume`](Self::resume)s from it. A checkpoint is one of the crate's
/// cursors ([`Cursors`]), bound to its table and segment; sign it with
/// [`checkpoints`](Self::checkpoints) when it travels through hands you do
/// not trust.
///
/// ```no_run
/// # async fn run(table: dynamodb_mapper::ops::Table, registry: dynamodb_mapper::Registry<()>) -> dynamodb_mapper::Result<()> {
/// use dynamodb_mapper::evolve::Audit;
///
/// // Segment 2 of 4, 10 pages per run, resumed until it is done.
/// let mut report = Audit::default();
/// let mut checkpoint: Option<String> = None;
/// loop {
///     let mut sweep = table.sweep(&registry).segment(2, 4).max_pages(10);
///     if let Some(at) = checkpoint.take() {
///         sweep = sweep.resume(at);
///     }
///     report.merge(sweep.audit().await?);
///     match &report.next {
///         Some(next) => checkpoint = Some(next.clone()), // store it anywhere
///         None => break,
///     }
/// }
/// println!("{report}");
/// # Ok(())
/// # }
/// ```
#[must_use]
pub struct Sweep<'r, T> {
    pub(super) table: Table,
    pub(super) registry: &'r Registry<T>,
    segment: Option<(u32, u32)>,
    resume: Option<String>,
    max_pages: Option<usize>,
    page_size: Option<i32>,
    cursors: Cursors,
    pub(super) dry_run: bool,
    pub(super) concurrency: usize,
    pub(super) budget: Option<Budget>,
    on_progress: Option<OnProgress>,
}

impl<T> Clone for Sweep<'_, T> {
    fn clone(&self) -> Self {
        Sweep {
            table: self.table.clone(),
            registry: self.registry,
            segment: self.segment,
            resume: self.resume.clone(),
            max_pages: self.max_pages,
            page_size: self.page_size,
            cursors: self.cursors.clone(),
            dry_run: self.dry_run,
            concurrency: self.concurrency,
            budget: self.budget.clone(),
            on_progress: self.on_progress.clone(),
        }
    }
}

impl<T> fmt::Debug for Sweep<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sweep")
            .field("table", &self.table.name())
            .field("segment", &self.segment)
            .field("resume", &self.resume.is_some())
            .field("max_pages", &self.max_pages)
            .field("page_size", &self.page_size)
            .field("dry_run", &self.dry_run)
            .field("concurrency", &self.concurrency)
            .field("budget", &self.budget)
            .field("on_progress", &self.on_progress.is_some())
            .finish_non_exhaustive()
    }
}

impl Table {
    /// A pass over this table that reads every item through `registry`.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let registry = dynamodb_mapper::Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// let sweep = table().sweep(&registry).segment(0, 4);
    /// # let _ = sweep;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sweep<'r, T>(&self, registry: &'r Registry<T>) -> Sweep<'r, T> {
        Sweep {
            table: self.clone(),
            registry,
            segment: None,
            resume: None,
            max_pages: None,
            page_size: None,
            dry_run: false,
            concurrency: DEFAULT_CONCURRENCY,
            budget: None,
            on_progress: None,
            cursors: Cursors::new(self.name(), self.schema()),
        }
    }
}

impl<T> Sweep<'_, T> {
    /// Reads only segment `segment` of `of` (counting from 0) of DynamoDB's
    /// parallel scan; the segments of one `of` cover the table once.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// # let registry = dynamodb_mapper::Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// let last = table().sweep(&registry).segment(3, 4);
    /// # let _ = last;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn segment(mut self, segment: u32, of: u32) -> Self {
        self.segment = Some((segment, of));
        self
    }

    /// Starts where the run that returned `checkpoint` ([`Audit::next`])
    /// stopped.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// # let registry = dynamodb_mapper::Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// # let stored = String::new();
    /// let sweep = table().sweep(&registry).segment(1, 4).resume(stored);
    /// # let _ = sweep;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn resume(mut self, checkpoint: impl Into<String>) -> Self {
        self.resume = Some(checkpoint.into());
        self
    }

    /// Stops after `pages` pages (at least 1; a page is up to 1 MB of
    /// items), so one run fits a Lambda invocation; the report's
    /// [`next`](Audit::next) then says where to resume.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// # let registry = dynamodb_mapper::Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// let sweep = table().sweep(&registry).max_pages(20);
    /// # let _ = sweep;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn max_pages(mut self, pages: usize) -> Self {
        self.max_pages = Some(pages.max(1));
        self
    }

    /// Reads at most `items` items a page (DynamoDB's `Limit`, at least 1;
    /// a page also ends at 1 MB): smaller pages make finer checkpoints.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// # let registry = dynamodb_mapper::Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// let sweep = table().sweep(&registry).page_size(500).max_pages(4);
    /// # let _ = sweep;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn page_size(mut self, items: u32) -> Self {
        self.page_size = Some(i32::try_from(items).unwrap_or(i32::MAX).max(1));
        self
    }

    /// Writes nothing: [`backfill`](Self::backfill) reports what it would
    /// change.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// # let registry = dynamodb_mapper::Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// let preview = table().sweep(&registry).dry_run();
    /// # let _ = preview;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn dry_run(mut self) -> Self {
        self.dry_run = true;
        self
    }

    /// How many items a [`backfill`](Self::backfill) writes at once (at
    /// least 1; 8 by default), as [`BatchWriter::concurrency`](crate::ops::BatchWriter::concurrency)
    /// sets batches in flight.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// # let registry = dynamodb_mapper::Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// let sweep = table().sweep(&registry).concurrency(32);
    /// # let _ = sweep;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn concurrency(mut self, items: usize) -> Self {
        self.concurrency = items.max(1);
        self
    }

    /// Paces this sweep's scan and writes within `budget`, which other
    /// sweeps of this process may share (the segments it runs at once).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// # let registry = dynamodb_mapper::Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// use dynamodb_mapper::evolve::Budget;
    /// let budget = Budget::new(100.0, 50.0);
    /// let first = table().sweep(&registry).segment(0, 2).budget(&budget);
    /// let second = table().sweep(&registry).segment(1, 2).budget(&budget);
    /// # let _ = (first, second);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn budget(mut self, budget: &Budget) -> Self {
        self.budget = Some(budget.clone());
        self
    }

    /// Calls `report` after each page with how the run is going
    /// ([`Progress`]); the same counts are recorded on the run's tracing
    /// span (`dynamodb_mapper.sweep`).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// # let registry = dynamodb_mapper::Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// let sweep = table().sweep(&registry).on_progress(|p| eprintln!("{p}"));
    /// # let _ = sweep;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn on_progress(mut self, report: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(std::sync::Arc::new(report));
        self
    }

    /// Encodes and reads checkpoints with `cursors` (for this table, not
    /// an index), e.g. signed ones ([`Cursors::signed_with`]); unsigned
    /// cursors of the table by default.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// # let registry = dynamodb_mapper::Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// use dynamodb_mapper::cursor::Cursors;
    /// let signed = Cursors::new("AppTable", TABLE).signed_with(b"a secret of 32 bytes or more....");
    /// let sweep = table().sweep(&registry).checkpoints(signed);
    /// # let _ = sweep;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn checkpoints(mut self, cursors: Cursors) -> Self {
        self.cursors = cursors;
        self
    }

    /// Reads the table (or segment) from the start or the checkpoint, to
    /// its end or for [`max_pages`](Self::max_pages) pages, and reports
    /// what is wrong with the items ([`Audit`]): items of unknown types or
    /// without a discriminator, items their mapper cannot read or write
    /// back, derived attributes (keys, index keys, discriminator, TTL)
    /// missing or not what the mapper renders from the fields now, keys no
    /// pattern of their mapper parses, items within 10% of the size limit,
    /// TTL values that are not epoch seconds. Writes nothing. Each page has
    /// the table's deadline ([`Table::deadline`]) and the client's retries.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (attribute
    /// `segment`) for a segment not below its count, or a count over
    /// 1,000,000; [`ErrorKind::InvalidCursor`](crate::ErrorKind::InvalidCursor)
    /// for a checkpoint of another table or segment, or forged;
    /// what sending a `Scan` returns. An error loses this run's report:
    /// run again from the last checkpoint you kept.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let registry = dynamodb_mapper::Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// // Checked before anything is sent.
    /// let err = table().sweep(&registry).segment(4, 4).audit().await.unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "attribute `segment` is 4 of 4: the count must be 1 to 1000000 and the segment below it"
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// # }).unwrap();
    /// ```
    pub async fn audit(self) -> Result<Audit> {
        let mut audit = Audit::default();
        let registry = self.registry;
        let table = &self.table;
        let read = self
            .pages("dynamodb_mapper.audit", async |items: Vec<Item>| {
                sentinels::check(table, registry, &items)
                    .await?
                    .report(&mut audit, registry.table());
                for item in items {
                    audit.add(registry, item);
                }
                Ok(Progress {
                    scanned: audit.scanned,
                    ..Progress::default()
                })
            })
            .await?;
        audit.read_units = read.units;
        audit.next = read.next;
        Ok(audit)
    }

    /// Reads the table (or segment) from the start or the checkpoint, to
    /// its end or for [`max_pages`](Self::max_pages) pages, handing each
    /// page's items to `page`.
    pub(super) async fn pages(
        &self,
        name: &'static str,
        mut page: impl AsyncFnMut(Vec<Item>) -> Result<Progress>,
    ) -> Result<Read> {
        let binding = self.binding()?;
        let mut scan = self
            .table
            .scan()
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .set_limit(self.page_size);
        if let Some((segment, of)) = self.segment {
            scan = scan
                .segment(segment_i32(segment)?)
                .total_segments(segment_i32(of)?);
        }
        let mut start = match &self.resume {
            Some(token) => Some(self.cursors.decode_for(token, &binding)?),
            None => None,
        };
        let span = tracing::info_span!(
            "dynamodb_mapper.sweep",
            kind = name,
            table = self.table.name(),
            segment = ?self.segment,
            items = tracing::field::Empty,
            changed = tracing::field::Empty,
            failed = tracing::field::Empty,
            conflicts = tracing::field::Empty,
        );
        let mut read = Read::default();
        let mut pages = 0;
        let mut items = 0;
        let started = self.table.now();
        // What the segment holds, to estimate the time left of a run that
        // starts at its beginning.
        let expected = match (&self.on_progress, &self.resume) {
            (Some(_), None) => self
                .table
                .item_count()
                .await
                .map(|n| n / u64::from(self.segment.map_or(1, |(_, of)| of.max(1)))),
            _ => None,
        };
        loop {
            if let Some(budget) = &self.budget {
                budget.wait(&self.table, Units::Read).await?;
            }
            let out = self
                .table
                .scan_once(scan.clone().set_exclusive_start_key(start.clone()))
                .instrument(span.clone())
                .await?;
            pages += 1;
            let units = out
                .consumed_capacity()
                .and_then(|c| c.capacity_units())
                .filter(|u| u.is_finite() && *u >= 0.0)
                .unwrap_or(0.0);
            read.units += units;
            if let Some(budget) = &self.budget {
                budget.spend(&self.table, Units::Read, units);
            }
            let found = out.items.unwrap_or_default();
            items += found.len();
            span.record("items", items);
            let mut progress = page(found).instrument(span.clone()).await?;
            span.record("changed", progress.changed);
            span.record("failed", progress.failed);
            span.record("conflicts", progress.conflicts);
            if let Some(report) = &self.on_progress {
                progress.read_units = read.units;
                progress.elapsed = self
                    .table
                    .now()
                    .duration_since(started)
                    .unwrap_or(Duration::ZERO);
                let seconds = progress.elapsed.as_secs_f64();
                if seconds > 0.0 {
                    progress.units_per_second =
                        (progress.read_units + progress.write_units) / seconds;
                    let per_second = progress.scanned as f64 / seconds;
                    progress.estimated_left = expected
                        .filter(|_| per_second > 0.0)
                        .map(|n| n.saturating_sub(progress.scanned) as f64 / per_second)
                        .and_then(|left| Duration::try_from_secs_f64(left).ok());
                }
                report(&progress);
            }
            let next = out.last_evaluated_key.filter(|k| !k.is_empty());
            if next.is_some() && next == start {
                return Err(Error::unexpected_response(
                    "Scan",
                    "a page's LastEvaluatedKey is the ExclusiveStartKey it was asked with: the \
                     scan cannot go on"
                        .to_owned(),
                ));
            }
            start = next;
            let Some(key) = &start else {
                return Ok(read);
            };
            if self.max_pages.is_some_and(|max| pages >= max) {
                read.next = Some(self.cursors.encode_for(key, &binding).map_err(|e| {
                    Error::unexpected_response(
                        "Scan",
                        format!(
                            "its LastEvaluatedKey cannot be a checkpoint: {}",
                            e.reason().unwrap_or("it does not fit the table's keys")
                        ),
                    )
                })?);
                return Ok(read);
            }
        }
    }

    /// What a checkpoint is bound to: the segment (and so the table, by
    /// the cursors).
    fn binding(&self) -> Result<Vec<u8>> {
        if self.cursors.index_name().is_some() || self.cursors.table_name() != self.table.name() {
            return Err(Error::invalid_cursor(format!(
                "the checkpoints are for {}{}, the sweep reads table {}",
                self.cursors.table_name(),
                self.cursors
                    .index_name()
                    .map(|i| format!(" index {i}"))
                    .unwrap_or_default(),
                self.table.name()
            )));
        }
        Ok(crate::cursor::sweep_digest(&match self.segment {
            None => "the whole table".to_owned(),
            Some((segment, of)) => {
                if of == 0 || of > MAX_SEGMENTS || segment >= of {
                    return Err(Error::invalid_value(
                        "segment",
                        format!(
                            "is {segment} of {of}: the count must be 1 to {MAX_SEGMENTS} and the \
                             segment below it"
                        ),
                    ));
                }
                format!("segment {segment} of {of}")
            }
        }))
    }
}

/// What a run read: the capacity it consumed and where to resume.
#[derive(Default)]
pub(super) struct Read {
    pub(super) units: f64,
    pub(super) next: Option<String>,
}

/// A segment number as the SDK takes it (checked below 1,000,000 first).
fn segment_i32(n: u32) -> Result<i32> {
    i32::try_from(n).map_err(|_| Error::invalid_value("segment", format!("{n} is too large")))
}
