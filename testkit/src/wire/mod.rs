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
//! faults. The seed is printed when the first rule is added (the test
//! harness shows it when a test fails), and `DYNAMODB_MAPPER_SEED`
//! ([`SEED_ENV`]) replays it.

mod exchange;
mod fault;
mod inject;

use std::sync::{Arc, Mutex, PoisonError};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::HttpClient;
use aws_smithy_runtime_api::client::http::{SharedHttpConnector, http_client_fn};

pub use exchange::Exchange;
pub use fault::Fault;

use crate::TestkitError;
use exchange::Answer;
use fault::Dice;

/// The variable that sets the seed of every [`Wire`] (`Wire::new` reads
/// it), to replay the faults of a failed run.
pub const SEED_ENV: &str = "DYNAMODB_MAPPER_SEED";

/// Records what a client sends and gets, and injects faults into it.
///
/// Make one per test, add [`fault`](Wire::fault) rules, wrap a client with
/// [`client`](Wire::client), run the code under test, then compare what it
/// reported with what the server holds, and look at the
/// [`exchanges`](Wire::exchanges).
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
    /// `DYNAMODB_MAPPER_SEED` when it is set but not a number: the first
    /// rule added is refused with it, rather than dice nobody can replay.
    bad_seed: Option<String>,
    rules: Vec<Fault>,
    shared: Arc<Shared>,
}

/// What every client of one wire shares: the log and the rules' counters.
#[derive(Default)]
pub(crate) struct Shared {
    log: Mutex<Log>,
    /// Per rule: requests it matched, requests it struck.
    counts: Mutex<Vec<(u64, u64)>>,
    watch: Mutex<Option<Arc<Watch>>>,
}

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

impl Wire {
    /// A wire without faults, recording, with its seed from
    /// `DYNAMODB_MAPPER_SEED` ([`SEED_ENV`]) or else a random one.
    ///
    /// ```
    /// let wire = dynamodb_mapper_testkit::Wire::new();
    /// assert!(wire.exchanges().is_empty());
    /// ```
    #[must_use]
    pub fn new() -> Wire {
        let (seed, bad_seed) = seed_from(std::env::var(SEED_ENV).ok());
        Wire {
            seed,
            bad_seed,
            rules: Vec::new(),
            shared: Arc::default(),
        }
    }

    /// Sets the seed (the one printed by a failed run, to replay it).
    ///
    /// ```
    /// let wire = dynamodb_mapper_testkit::Wire::new().seed(42);
    /// assert_eq!(wire.get_seed(), 42);
    /// ```
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Wire {
        self.seed = seed;
        self.bad_seed = None;
        self
    }

    /// The seed the dice of this wire use.
    ///
    /// ```
    /// let a = dynamodb_mapper_testkit::Wire::new();
    /// let b = a.clone().seed(a.get_seed());
    /// assert_eq!(a.get_seed(), b.get_seed());
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
    /// an operation name DynamoDB does not have, or an operation the fault
    /// cannot strike (`unprocessed` on anything but the batch operations,
    /// `conflict` on reads), and for a `DYNAMODB_MAPPER_SEED` that is not a
    /// number (unless [`seed`](Wire::seed) set one).
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
        if self.rules.is_empty() {
            eprintln!(
                "testkit wire: seed {seed} (replay with {SEED_ENV}={seed})",
                seed = self.seed
            );
        }
        self.rules.push(rule);
        Ok(self)
    }

    /// Calls `watch` with each exchange once answered (and with a request
    /// the wire leaves unanswered as it is sent): to print what a program
    /// does, as the tour does.
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
    /// credentials, retries and timeouts, its HTTP client wrapped (the
    /// SDK's default one when it has none of its own).
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
        let config = client.config();
        #[allow(deprecated)] // the SDK's own default HTTP client today (hyper 0.14, rustls)
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
            })
        });
        Client::from_conf(config.to_builder().http_client(http).build())
    }

    /// Every exchange so far, in the order the requests were sent (an
    /// exchange still under way shows no answer yet).
    ///
    /// ```
    /// assert!(dynamodb_mapper_testkit::Wire::new().exchanges().is_empty());
    /// ```
    #[must_use]
    pub fn exchanges(&self) -> Vec<Exchange> {
        lock(&self.shared.log).exchanges.clone()
    }

    /// Forgets the exchanges so far (the rules' counts stay).
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
        f.debug_struct("Wire")
            .field("seed", &self.seed)
            .field("rules", &self.rules)
            .field("exchanges", &lock(&self.shared.log).exchanges.len())
            .finish()
    }
}

impl Shared {
    /// Whether rule `index` (of `rate`, at most `times` strikes) strikes
    /// the next request it matches, and the dice that go on deciding the
    /// details; counted under one lock, so `times` holds for concurrent
    /// requests too.
    fn strike(&self, seed: u64, index: usize, rate: f64, times: Option<u64>) -> Option<Dice> {
        let mut counts = lock(&self.counts);
        if counts.len() <= index {
            counts.resize(index + 1, (0, 0));
        }
        let (matched, struck) = &mut counts[index];
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

    fn begin(&self, exchange: Exchange) -> usize {
        let mut log = lock(&self.log);
        log.exchanges.push(exchange);
        log.cleared + log.exchanges.len() - 1
    }

    /// Records the answer of exchange `id` and shows it to the watcher.
    fn end(&self, id: usize, answer: Answer) {
        let done = {
            let mut log = lock(&self.log);
            log.get_mut(id).map(|e| {
                e.answer = answer;
                e.clone()
            })
        };
        if let Some(done) = done {
            self.show(&done);
        }
    }

    /// Shows exchange `id` as it is (for a request left unanswered).
    fn watched(&self, id: usize) {
        let now = lock(&self.log).get_mut(id).map(|e| e.clone());
        if let Some(now) = now {
            self.show(&now);
        }
    }

    fn show(&self, exchange: &Exchange) {
        let watch = lock(&self.watch).clone();
        if let Some(watch) = watch {
            watch(exchange);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The seed `DYNAMODB_MAPPER_SEED` gives (`value`), or a random one when it
/// is unset or empty, with the value when it is not a number.
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
