//! Histories (#45): several clients at once, seeded faults at the wire and
//! callers that give up, in a deterministic world; every outcome judged
//! against what the emulator applied.
//!
//! One seed fixes the workload (4 to 8 clients, each a few helper calls on
//! at most 3 keys of each of 3 entity types), the faults of the wire and
//! the interleaving: the world ([`world`]) runs every client on one thread
//! over a paused clock, and each request reaches the emulator and comes
//! back before any other client moves. [`run`] runs a seed and returns its
//! [`History`]; [`judge`] checks it.
#![warn(clippy::unwrap_used, clippy::expect_used)]

pub mod judge;
pub mod model;
pub mod workload;
pub mod world;

use std::cell::{Cell, RefCell};
use std::fmt::Write as _;
use std::rc::Rc;
use std::time::Duration;

use dynamodb_mapper::ops::Table;
use dynamodb_mapper_testkit::{Fault, Wire};
use serde_json::Value;

use model::{ACCOUNTS, PLAYERS};
use workload::{Op, Reported};
use world::{Applied, CALL, Doorway};

/// Each helper call's deadline (`Table::deadline`).
pub const DEADLINE: Duration = Duration::from_secs(8);
/// Each SDK call's bound: the clients' operation timeout.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(3);

/// One helper call and what it reported.
#[derive(Debug, Clone)]
pub struct Call {
    /// Its number, which tags its requests in the doorway's log.
    pub id: usize,
    /// The client that made it.
    pub client: usize,
    /// What it was.
    pub op: Op,
    /// When it started and ended, in virtual time from the start.
    pub started: Duration,
    /// See `started`.
    pub ended: Duration,
    /// What it reported.
    pub reported: Reported,
}

/// Everything one seed did.
#[derive(Debug, Clone)]
pub struct History {
    /// The seed.
    pub seed: u64,
    /// The fault rules of its wire.
    pub faults: Vec<String>,
    /// Every helper call, in the order they ended.
    pub calls: Vec<Call>,
    /// What the emulator answered, in order.
    pub log: Vec<Applied>,
    /// The wire's exchanges, canonical (keys sorted), one per line: two
    /// runs of a seed must give the same text.
    pub wire: String,
}

impl History {
    /// The history as a person reads it: faults, then each call with its
    /// requests.
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = format!("seed {}\nfaults: {}\n", self.seed, self.faults.join("; "));
        for call in &self.calls {
            let _ = writeln!(
                out,
                "#{} client {} {:?} [{:?} .. {:?}] -> {}",
                call.id, call.client, call.op, call.started, call.ended, call.reported
            );
            for a in self.log.iter().filter(|a| a.call == Some(call.id)) {
                let _ = writeln!(out, "    {} -> {}", a.operation, a.status);
            }
        }
        out
    }
}

/// The faults of a seed: each kind on or off, at a rate drawn from it.
fn faults(rng: &mut fastrand::Rng) -> Vec<Fault> {
    let mut rules = Vec::new();
    let mut maybe = |rule: Fault, rng: &mut fastrand::Rng| {
        if rng.bool() {
            let rate = [0.05, 0.1, 0.2][rng.usize(..3)];
            rules.push(rule.rate(rate));
        }
    };
    maybe(Fault::throttle(), rng);
    maybe(Fault::unprocessed(0.4), rng);
    maybe(Fault::conflict(), rng);
    maybe(Fault::error_before_apply(), rng);
    maybe(Fault::error_after_apply(), rng);
    maybe(Fault::drop_after_apply(), rng);
    maybe(Fault::cut_answer(), rng);
    maybe(Fault::delay(Duration::from_millis(1500)), rng);
    maybe(Fault::silence(), rng);
    rules
}

/// Runs seed `seed` in a world of its own.
///
/// # Errors
/// When the world cannot be built (the emulator, a table, a fault rule).
pub fn run(seed: u64) -> Result<History, String> {
    fastrand::seed(seed);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .map_err(|e| format!("no runtime: {e}"))?;
    runtime.block_on(world_of(seed))
}

async fn world_of(seed: u64) -> Result<History, String> {
    let door = Doorway::open()?;
    let names = [format!("acc{seed:x}"), format!("pl{seed:x}")];
    for (name, schema) in names.iter().zip([ACCOUNTS, PLAYERS]) {
        let json = schema.definition(name.as_str()).create_table_json();
        let _ = door.raw(
            "DeleteTable",
            format!("{{\"TableName\":\"{name}\"}}").as_bytes(),
        );
        match door.raw("CreateTable", json.as_bytes())? {
            (200, _) => {}
            (status, body) => {
                return Err(format!(
                    "CreateTable {name}: {status} {}",
                    String::from_utf8_lossy(&body)
                ));
            }
        }
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    let rules = faults(&mut rng);
    let described: Vec<String> = rules.iter().map(ToString::to_string).collect();
    let mut wire = Wire::new().seed(seed);
    for rule in rules {
        wire = wire.fault(rule).map_err(|e| e.to_string())?;
    }
    let start = tokio::time::Instant::now();
    let base = door.client(start);
    let calls = Rc::new(RefCell::new(Vec::new()));
    let next = Rc::new(Cell::new(0usize));
    let clients = rng.usize(4..=8);
    let runs = (0..clients).map(|client| {
        let client_rng = fastrand::Rng::with_seed(rng.u64(..));
        let sdk = wire.client(&base);
        let tables = (
            Table::new(&sdk, names[0].as_str(), ACCOUNTS).deadline(DEADLINE),
            Table::new(&sdk, names[1].as_str(), PLAYERS).deadline(DEADLINE),
        );
        let (calls, next) = (calls.clone(), next.clone());
        async move {
            let mut rng = client_rng;
            for _ in 0..rng.usize(2..=6) {
                let op = Op::draw(&mut rng, 3);
                let cancel = (rng.u8(..4) == 0).then(|| Duration::from_millis(rng.u64(..6000)));
                let id = next.replace(next.get() + 1);
                let started = start.elapsed();
                let call = CALL.scope(id, op.run(&tables.0, &tables.1));
                let reported = match cancel {
                    None => call.await,
                    Some(after) => tokio::select! {
                        biased;
                        reported = call => reported,
                        () = tokio::time::sleep(after) => Reported::Cancelled,
                    },
                };
                calls.borrow_mut().push(Call {
                    id,
                    client,
                    op,
                    started,
                    ended: start.elapsed(),
                    reported,
                });
            }
        }
    });
    futures_util::future::join_all(runs).await;
    let log = door.log();
    for name in &names {
        let _ = door.raw(
            "DeleteTable",
            format!("{{\"TableName\":\"{name}\"}}").as_bytes(),
        );
    }
    let mut text = String::new();
    for e in wire.exchanges() {
        let _ = writeln!(
            text,
            "{} {:?} {} -> {:?} {}",
            e.operation(),
            e.fault(),
            canonical(e.request()),
            e.status(),
            e.answer().map(canonical).unwrap_or_default()
        );
    }
    let calls = calls.borrow().clone();
    for call in &calls {
        let _ = writeln!(text, "#{} {:?} -> {}", call.id, call.op, call.reported);
    }
    Ok(History {
        seed,
        faults: described,
        calls,
        log,
        wire: text,
    })
}

/// JSON with every object's keys sorted: the same value prints the same
/// whatever order a hash map gave its attributes.
#[must_use]
pub fn canonical(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&map[k])))
                        .collect(),
                )
            }
            Value::Array(list) => Value::Array(list.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}
