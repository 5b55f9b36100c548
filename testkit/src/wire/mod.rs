//! A wire between a client and its server, for testing code on DynamoDB's
//! bad days: it records every request and answer ([`Exchange`]) and injects
//! the [`Fault`]s its rules say, over the real server, so what was applied
//! is what the server holds.
//!
//! The wire is an HTTP client wrapped around the client's own, put in
//! through the SDK's `http_client` setting: the SDK signs, retries and
//! times out as usual, and sees throttles, partial batches, conflicts and
//! lost answers the way DynamoDB sends them. Requests the wire sends on are
//! changed only where a fault needs it (a batch it answers partly goes to
//! the server without the entries it hands back), which the emulators
//! accept; do not point a wire with faults at DynamoDB itself, whose
//! signature check would refuse those.
//!
//! Which requests a rule strikes is decided by dice seeded from the wire's
//! [seed](Wire::seed): the same requests in the same order meet the same
//! faults. The wires made on one thread (one test) draw their seeds from
//! one base seed, printed when the first wire with faults makes a client
//! (the test harness shows it when a test fails); `DYNAMODB_MAPPER_SEED`
//! ([`SEED_ENV`]) set to it replays every wire of the test.

mod exchange;
mod fault;
mod inject;

use std::cell::RefCell;
use std::sync::{Arc, Mutex, PoisonError};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::HttpClient;
use aws_smithy_runtime_api::client::http::{SharedHttpConnector, http_client_fn};

pub use exchange::Exchange;
pub use fault::Fault;

use crate::TestkitError;
use fault::Dice;

/// The variable that sets the base seed of the wires of a test
/// (`Wire::new` reads it), to replay the faults of a failed run.
pub const SEED_ENV: &str = "DYNAMODB_MAPPER_SEED";

/// Records what a client sends and gets, and injects faults into it.
///
/// Make one per test (or several: they draw their seeds from one base),
/// add [`fault`](Wire::fault) rules, wrap a client with
/// [`client`](Wire::client), run the code under test, then compare what it
/// reported with what the server holds, and look at the
/// [`exchanges`](Wire::exchanges). A clone shares the log, the watcher and
/// the counts of the rules it has; rules added to a clone are its own.
///
/// ```
/// # #[tokio::main]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use dynamodb_mapper_testkit::{Fault, Wire, shared};
///
/// let db = shared().await?;
/// let wire = Wire::new()
///     .fault(Fault::throttle().on("PutItem").rate(0.5))?
///     .fault(Fault::unprocessed(0.3))?;
/// let client = wire.client(&db.client());
/// // ... run the code under test with `client`, e.g.:
/// client.list_tables().send().await?;
/// let sent = wire.exchanges();
/// assert_eq!((sent[0].operation(), sent[0].status()), ("ListTables", Some(200)));
/// assert_eq!(sent[0].fault(), None, "no rule is about ListTables");
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Wire {
    seed: u64,
    /// The base seed of this thread's wires, `None` when the seed was set in
    /// code: printed when a client with faults is made.
    base: Option<u64>,
    /// `DYNAMODB_MAPPER_SEED` when it is set but not a number: the first
    /// rule added is refused with it, rather than dice nobody can replay.
    bad_seed: Option<String>,
    rules: Vec<(Fault, Arc<Counter>)>,
    shared: Arc<Shared>,
}

/// What every client and clone of one wire shares: the log and the watcher.
#[derive(Default)]
struct Shared {
    log: Mutex<Log>,
    watch: Mutex<Option<Arc<Watch>>>,
}

/// One rule's counts: requests it matched, requests it struck.
#[derive(Default, Debug)]
struct Counter(Mutex<(u64, u64)>);

type Watch = dyn Fn(&Exchange) + Send + Sync;

/// The exchanges since the last [`Wire::clear`], and how many came before
/// (so an exchange under way during a clear is not confused with another).
#[derive(Default)]
struct Log {
    cleared: usize,
    exchanges: Vec<Exchange>,
}

impl Log {
    fn get_mut(&mut self, id: usize) -> Option<&mut Exchange> {
        let at = id.checked_sub(self.cleared)?;
        self.exchanges.get_mut(at)
    }
}

/// The seeds of the wires made on this thread: a base (from
/// `DYNAMODB_MAPPER_SEED`, else random), and how many wires drew from it.
struct ThreadSeeds {
    base: u64,
    bad: Option<String>,
    made: u64,
    printed: bool,
}

thread_local! {
    static SEEDS: RefCell<Option<ThreadSeeds>> = const { RefCell::new(None) };
}

impl Wire {
    /// A wire without faults, recording. Its seed comes from this thread's
    /// base seed (`DYNAMODB_MAPPER_SEED`, [`SEED_ENV`], or else a random
    /// one) and the number of wires made on the thread before it.
    ///
    /// ```
    /// let wire = dynamodb_mapper_testkit::Wire::new();
    /// assert!(wire.exchanges().is_empty());
    /// ```
    #[must_use]
    pub fn new() -> Wire {
        let (seed, base, bad_seed) = SEEDS.with(|cell| {
            let mut cell = cell.borrow_mut();
            let seeds = cell.get_or_insert_with(|| {
                let (base, bad) = seed_from(std::env::var(SEED_ENV).ok());
                ThreadSeeds {
                    base,
                    bad,
                    made: 0,
                    printed: false,
                }
            });
            let n = seeds.made;
            seeds.made += 1;
            (derive(seeds.base, n), seeds.base, seeds.bad.clone())
        });
        Wire {
            seed,
            base: Some(base),
            bad_seed,
            rules: Vec::new(),
            shared: Arc::default(),
        }
    }

    /// Sets the seed in code (to pin the faults a test meets); it is not
    /// printed, and `DYNAMODB_MAPPER_SEED` does not change it.
    ///
    /// ```
    /// let wire = dynamodb_mapper_testkit::Wire::new().seed(42);
    /// assert_eq!(wire.get_seed(), 42);
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Wire {
        self.seed = seed;
        self.base = None;
        self.bad_seed = None;
        self
    }

    /// The seed the dice of this wire use.
    ///
    /// ```
    /// let a = dynamodb_mapper_testkit::Wire::new();
    /// let b = dynamodb_mapper_testkit::Wire::new();
    /// assert_ne!(a.get_seed(), b.get_seed(), "each wire of a test has its own");
    /// ```
    #[must_use]
    pub fn get_seed(&self) -> u64 {
        self.seed
    }

    /// Adds a fault rule; the first rule that strikes a request decides
    /// what happens to it. Clients made before keep their rules.
    ///
    /// # Errors
    /// [`TestkitError::InvalidFault`] for a rate or fraction outside 0..=1,
    /// `times(0)`, an operation name DynamoDB does not have, or an
    /// operation the fault cannot strike (`unprocessed` on anything but the
    /// batch operations, `conflict` on single-item reads), and for a
    /// `DYNAMODB_MAPPER_SEED` that is not a number (unless
    /// [`seed`](Wire::seed) set one).
    ///
    /// ```
    /// use dynamodb_mapper_testkit::{Fault, Wire};
    /// let err = Wire::new().fault(Fault::throttle().on("Putitem")).unwrap_err();
    /// assert!(err.to_string().contains("\"Putitem\" is not an operation"));
    /// ```
    pub fn fault(mut self, rule: Fault) -> Result<Wire, TestkitError> {
        if let Some(value) = &self.bad_seed {
            return Err(TestkitError::InvalidFault {
                fault: rule.to_string(),
                reason: format!("{SEED_ENV}={value:?} is not a seed (a number from 0 to 2^64-1)"),
            });
        }
        let rule = rule.checked()?;
        self.rules.push((rule, Arc::default()));
        Ok(self)
    }

    /// Calls `watch` with each exchange once answered (or once the client
    /// stopped waiting, and with a request the wire leaves unanswered as
    /// it is sent): to print what a program does, as the tour does.
    ///
    /// ```
    /// let wire = dynamodb_mapper_testkit::Wire::new().watch(|e| println!("{e}"));
    /// # let _ = wire;
    /// ```
    #[must_use]
    pub fn watch(self, watch: impl Fn(&Exchange) + Send + Sync + 'static) -> Wire {
        *lock(&self.shared.watch) = Some(Arc::new(watch));
        self
    }

    /// `client` with this wire between it and its server: same endpoint,
    /// credentials, retries and timeouts, its HTTP client wrapped. A client
    /// without an HTTP client of its own gets the one `aws-sdk-dynamodb`
    /// makes with the features the testkit builds it with (hyper 0.14 and
    /// rustls); one that has its own keeps it.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// let db = dynamodb_mapper_testkit::shared().await?;
    /// let wire = dynamodb_mapper_testkit::Wire::new();
    /// let client = wire.client(&db.client());
    /// # let _ = client;
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn client(&self, client: &Client) -> Client {
        if let Some(base) = self.base.filter(|_| !self.rules.is_empty()) {
            let first = SEEDS.with(|cell| {
                cell.borrow_mut()
                    .as_mut()
                    .is_some_and(|s| s.base == base && !std::mem::replace(&mut s.printed, true))
            });
            if first {
                eprintln!("testkit wire: seed {base} (replay with {SEED_ENV}={base})");
            }
        }
        let config = client.config();
        #[allow(deprecated)] // the SDK's default HTTP client with the testkit's features
        let inner = config
            .http_client()
            .or_else(aws_smithy_http_client::hyper_014::default_client);
        let injector = Arc::new(inject::Injector {
            seed: self.seed,
            rules: self.rules.clone(),
            shared: self.shared.clone(),
        });
        let http = http_client_fn(move |settings, components| {
            let inner = match &inner {
                Some(inner) => inner.http_connector(settings, components),
                None => SharedHttpConnector::new(inject::Unavailable),
            };
            SharedHttpConnector::new(inject::Connector {
                inner,
                injector: injector.clone(),
                sleep: components.sleep_impl(),
                read_timeout: settings.read_timeout(),
            })
        });
        Client::from_conf(config.to_builder().http_client(http).build())
    }

    /// Every exchange so far, in the order the requests reached the wire
    /// (an exchange still under way shows no answer yet).
    ///
    /// ```
    /// assert!(dynamodb_mapper_testkit::Wire::new().exchanges().is_empty());
    /// ```
    #[must_use]
    pub fn exchanges(&self) -> Vec<Exchange> {
        lock(&self.shared.log).exchanges.clone()
    }

    /// Forgets the exchanges so far (the rules' counts stay; an exchange
    /// under way is still shown to the watcher when it ends).
    ///
    /// ```
    /// let wire = dynamodb_mapper_testkit::Wire::new();
    /// wire.clear();
    /// assert!(wire.exchanges().is_empty());
    /// ```
    pub fn clear(&self) {
        let mut log = lock(&self.shared.log);
        log.cleared += log.exchanges.len();
        log.exchanges.clear();
    }
}

impl Default for Wire {
    fn default() -> Wire {
        Wire::new()
    }
}

impl std::fmt::Debug for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rules: Vec<&Fault> = self.rules.iter().map(|(r, _)| r).collect();
        f.debug_struct("Wire")
            .field("seed", &self.seed)
            .field("rules", &rules)
            .field("exchanges", &lock(&self.shared.log).exchanges.len())
            .finish()
    }
}

impl Counter {
    /// Whether the rule (number `index`, of `rate`, at most `times`
    /// strikes) strikes the next request it matches, and the dice that go
    /// on deciding the details; counted under one lock, so `times` holds
    /// for concurrent requests too.
    fn strike(&self, seed: u64, index: usize, rate: f64, times: Option<u64>) -> Option<Dice> {
        let mut counts = lock(&self.0);
        let (matched, struck) = &mut *counts;
        if times.is_some_and(|n| *struck >= n) {
            return None;
        }
        let mut dice = Dice::new(seed, index, *matched);
        *matched += 1;
        if !dice.chance(rate) {
            return None;
        }
        *struck += 1;
        Some(dice)
    }

    /// Gives a strike back: the fault could not happen to the request.
    fn unstrike(&self) {
        let mut counts = lock(&self.0);
        counts.1 = counts.1.saturating_sub(1);
    }
}

impl Shared {
    fn begin(&self, exchange: Exchange) -> usize {
        let mut log = lock(&self.log);
        log.exchanges.push(exchange);
        log.cleared + log.exchanges.len() - 1
    }

    /// Records what exchange `id` is now (`now`, the caller's copy) and,
    /// when `show`, shows it to the watcher (even when a clear forgot it).
    fn update(&self, id: usize, now: &Exchange, show: bool) {
        if let Some(e) = lock(&self.log).get_mut(id) {
            *e = now.clone();
        }
        if show {
            let watch = lock(&self.watch).clone();
            if let Some(watch) = watch {
                watch(now);
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The seed of the `n`-th wire made from `base` (the first has `base`).
fn derive(base: u64, n: u64) -> u64 {
    if n == 0 {
        base
    } else {
        Dice::new(base, 0, n).next()
    }
}

/// The base seed `DYNAMODB_MAPPER_SEED` gives (`value`), or a random one
/// when it is unset or empty, with the value when it is not a number.
fn seed_from(value: Option<String>) -> (u64, Option<String>) {
    match value {
        Some(v) if !v.trim().is_empty() => match v.trim().parse() {
            Ok(seed) => (seed, None),
            Err(_) => (random_seed(), Some(v)),
        },
        _ => (random_seed(), None),
    }
}

/// A seed nobody chose: the standard library's per-process random hash keys.
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wires_of_a_thread_draw_their_seeds_from_one_base() {
        let seeds_with_base = |base: u64| {
            std::thread::spawn(move || {
                SEEDS.with(|cell| {
                    *cell.borrow_mut() = Some(ThreadSeeds {
                        base,
                        bad: None,
                        made: 0,
                        printed: false,
                    });
                });
                (0..3).map(|_| Wire::new().get_seed()).collect::<Vec<_>>()
            })
            .join()
            .unwrap_or_default()
        };
        let first = seeds_with_base(77);
        assert_eq!(first[0], 77, "the first wire has the base itself");
        assert_eq!(
            first,
            seeds_with_base(77),
            "a replay gives every wire its seed again"
        );
        assert_ne!(first[1], first[2]);
    }

    #[test]
    fn the_seed_variable_replays_a_seed_and_a_bad_one_is_an_error() {
        assert_eq!(seed_from(Some(" 42 ".into())), (42, None));
        assert_eq!(seed_from(Some("18446744073709551615".into())).0, u64::MAX);
        assert!(seed_from(Some(String::new())).1.is_none());
        assert!(seed_from(None).1.is_none());
        let (_, bad) = seed_from(Some("0x2a".into()));
        assert_eq!(bad.as_deref(), Some("0x2a"));
        let wire = Wire {
            bad_seed: bad,
            ..Wire::new()
        };
        assert_eq!(derive(9, 0), 9);
        assert_ne!(derive(9, 1), derive(9, 2));
        let err = wire.clone().fault(Fault::throttle()).expect_err("refused");
        assert_eq!(
            err.to_string(),
            "the wire cannot follow the fault rule \"throttle\": DYNAMODB_MAPPER_SEED=\"0x2a\" is \
             not a seed (a number from 0 to 2^64-1)"
        );
        assert!(
            wire.seed(7).fault(Fault::throttle()).is_ok(),
            "an explicit seed wins"
        );
    }
}
