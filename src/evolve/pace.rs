//! Pacing and progress of a sweep: a [`Budget`] of capacity units per
//! second that the scans and writes of one process share, and the
//! [`Progress`] a sweep reports after each page.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::error::Result;
use crate::ops::Table;

/// Capacity units per second for the sweeps that share it (clone it, or
/// pass it to each): before each scan page and each write a sweep waits
/// until the budget has units left, and after it takes what DynamoDB
/// reported the request consumed. Up to one second of units can be spent
/// at once. Give it a share of the table's capacity, and leave the rest to
/// the application; throttling is retried with backoff on top of it.
///
/// A rate that is not a positive, finite number sets no limit.
///
/// ```
/// use dynamodb_mapper::evolve::Budget;
/// // 200 read and 100 write units a second for all the segments of this process.
/// let budget = Budget::new(200.0, 100.0);
/// let shared = budget.clone();
/// # let _ = shared;
/// ```
#[derive(Clone)]
#[must_use]
pub struct Budget(Arc<Mutex<Buckets>>);

struct Buckets {
    read: Bucket,
    write: Bucket,
}

/// A token bucket refilled at `rate` units a second, up to one second's
/// worth; spending may take it below zero, and the next spender waits.
struct Bucket {
    rate: Option<f64>,
    balance: f64,
    at: Option<SystemTime>,
}

impl fmt::Debug for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (read, write) = match self.0.lock() {
            Ok(b) => (b.read.rate, b.write.rate),
            Err(_) => (None, None),
        };
        f.debug_struct("Budget")
            .field("read_units_per_second", &read)
            .field("write_units_per_second", &write)
            .finish()
    }
}

impl Bucket {
    fn new(rate: f64) -> Bucket {
        let rate = (rate.is_finite() && rate > 0.0).then_some(rate);
        Bucket {
            rate,
            balance: rate.unwrap_or(0.0),
            at: None,
        }
    }

    fn refill(&mut self, rate: f64, now: SystemTime) {
        let elapsed = match self.at {
            Some(at) => now.duration_since(at).unwrap_or(Duration::ZERO),
            None => Duration::ZERO,
        };
        self.balance = (self.balance + elapsed.as_secs_f64() * rate).min(rate);
        self.at = Some(now);
    }

    /// How long to wait before the next request: until a unit is left (or
    /// a second's worth, for a rate under one unit a second).
    fn wait(&mut self, now: SystemTime) -> Duration {
        let Some(rate) = self.rate else {
            return Duration::ZERO;
        };
        self.refill(rate, now);
        let need = rate.min(1.0);
        if self.balance >= need {
            return Duration::ZERO;
        }
        Duration::try_from_secs_f64((need - self.balance) / rate).unwrap_or(Duration::from_secs(1))
    }

    /// Takes `units` (gives them back when negative: an estimate taken
    /// beforehand that came out higher than what was used). The debt is
    /// kept to an hour's worth, so no report (a server's, however odd)
    /// makes a wait longer than an hour.
    fn spend(&mut self, units: f64, now: SystemTime) {
        if let Some(rate) = self.rate {
            self.refill(rate, now);
            if units.is_finite() {
                self.balance = (self.balance - units).clamp(-rate * MAX_DEBT_SECONDS, rate);
            }
        }
    }
}

/// The longest a budget makes a sweep wait after one request, in seconds.
const MAX_DEBT_SECONDS: f64 = 3600.0;

/// Which units a request spends.
#[derive(Clone, Copy)]
pub(super) enum Units {
    Read,
    Write,
}

impl Budget {
    /// A budget of `read` and `write` capacity units per second.
    ///
    /// ```
    /// let unlimited_writes = dynamodb_mapper::evolve::Budget::new(50.0, f64::INFINITY);
    /// # let _ = unlimited_writes;
    /// ```
    pub fn new(read: f64, write: f64) -> Budget {
        Budget(Arc::new(Mutex::new(Buckets {
            read: Bucket::new(read),
            write: Bucket::new(write),
        })))
    }

    fn with<R>(&self, units: Units, f: impl FnOnce(&mut Bucket) -> R) -> Option<R> {
        let mut buckets = self.0.lock().ok()?;
        Some(f(match units {
            Units::Read => &mut buckets.read,
            Units::Write => &mut buckets.write,
        }))
    }

    /// Waits until the budget has `units` left, with `table`'s client's
    /// sleep and time.
    pub(super) async fn wait(&self, table: &Table, units: Units) -> Result<()> {
        loop {
            let pause = self
                .with(units, |b| b.wait(table.now()))
                .unwrap_or(Duration::ZERO);
            if pause.is_zero() {
                return Ok(());
            }
            table.pause_for(pause).await?;
        }
    }

    /// Takes `spent` units (gives them back when negative).
    pub(super) fn spend(&self, table: &Table, units: Units, spent: f64) {
        self.with(units, |b| b.spend(spent, table.now()));
    }
}

/// How a sweep is going, after each page of a run ([`Sweep::on_progress`](super::Sweep::on_progress)):
/// the counts of this run so far.
///
/// ```
/// let p = dynamodb_mapper::evolve::Progress::default();
/// assert_eq!((p.scanned, p.estimated_left), (0, None));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// Items read.
    pub scanned: u64,
    /// Items written (a backfill or migration; in a dry run, that would be).
    pub changed: u64,
    /// Items that held what was asked already.
    pub unchanged: u64,
    /// Items no mapper of the sweep reads.
    pub skipped: u64,
    /// Items that could not be changed.
    pub failed: u64,
    /// Writes refused because the item had changed, each worked out again.
    pub conflicts: u64,
    /// Read capacity units consumed.
    pub read_units: f64,
    /// Write capacity units consumed, when asked for (see
    /// [`Backfill::write_units`](super::Backfill::write_units)).
    pub write_units: f64,
    /// Time since the run started.
    pub elapsed: Duration,
    /// Capacity units (read and write) per second since the run started.
    pub units_per_second: f64,
    /// The time left at this run's pace for the items the table holds (its
    /// `ItemCount`, which DynamoDB updates about every six hours, over the
    /// segments), when known: for a run started at the beginning, not
    /// resumed.
    pub estimated_left: Option<Duration>,
}

impl fmt::Display for Progress {
    /// One line, for a log or a progress bar.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} scanned, {} changed, {} unchanged, {} skipped, {} failed, {} conflicts, {:.1} units/s",
            self.scanned,
            self.changed,
            self.unchanged,
            self.skipped,
            self.failed,
            self.conflicts,
            self.units_per_second
        )?;
        if let Some(left) = self.estimated_left {
            write!(f, ", about {}s left", left.as_secs())?;
        }
        Ok(())
    }
}

/// A progress callback.
pub(super) type OnProgress = Arc<dyn Fn(&Progress) + Send + Sync>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_makes_spenders_wait_for_what_they_overspent() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let mut b = Bucket::new(10.0);
        assert_eq!(b.wait(t0), Duration::ZERO, "a second's worth to start with");
        b.spend(30.0, t0);
        // 20 units over: until one unit is back, at 10 a second.
        assert_eq!(b.wait(t0), Duration::from_millis(2_100));
        let t1 = t0 + Duration::from_secs(1);
        assert_eq!(b.wait(t1), Duration::from_millis(1_100));
        // A refund of an estimate too high.
        b.spend(-11.0, t1);
        assert_eq!(b.wait(t1), Duration::ZERO);
        b.spend(11.0, t1);
        let t3 = t0 + Duration::from_secs(30);
        assert_eq!(b.wait(t3), Duration::ZERO);
        assert!(
            (b.balance - 10.0).abs() < 1e-9,
            "at most one second's worth kept"
        );
        // A clock that goes back refills nothing and never panics.
        b.spend(5.0, t0);
        assert_eq!(b.wait(t0), Duration::ZERO);
    }

    #[test]
    fn no_report_makes_a_wait_unbounded() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let mut b = Bucket::new(2.0);
        for _ in 0..3 {
            b.spend(f64::MAX, t0);
        }
        b.spend(f64::INFINITY, t0);
        b.spend(f64::NAN, t0);
        let wait = b.wait(t0);
        assert!(wait <= Duration::from_secs(3601), "{wait:?}");
        assert!(b.balance.is_finite());
        // And it ends: an hour later a unit is back.
        assert_eq!(b.wait(t0 + Duration::from_secs(3601)), Duration::ZERO);
    }

    #[test]
    fn rates_that_are_not_positive_numbers_set_no_limit() {
        for rate in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let mut b = Bucket::new(rate);
            b.spend(1e9, SystemTime::UNIX_EPOCH);
            assert_eq!(b.wait(SystemTime::UNIX_EPOCH), Duration::ZERO, "{rate}");
        }
    }
}
