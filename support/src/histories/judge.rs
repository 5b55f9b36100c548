//! The checks of a [`History`]: each outcome against the requests of its
//! call the emulator applied, and every table as it stood after each
//! applied write.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::{ErrorKind, Mapper, MapperExt};
use serde_json::Value;

use super::model::{AccountMapper, PlayerMapper, TagMapper};
use super::workload::{Reported, key_text};
use super::world::{Applied, item_of, tables_of};
use super::{CALL_TIMEOUT, Call, DEADLINE, History};

/// The promises a history broke, each in a sentence (empty: none).
#[must_use]
pub fn judge(history: &History) -> Vec<String> {
    let mut broken = Vec::new();
    let mut versions: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for call in &history.calls {
        let applied: Vec<&Applied> = history
            .log
            .iter()
            .filter(|a| a.call == Some(call.id) && a.after.is_some())
            .collect();
        for problem in outcome(call, &applied) {
            broken.push(format!("#{} {:?}: {problem}", call.id, call.op));
        }
        if let (Reported::Done(Some(v)), Some(id)) = (&call.reported, call.op.account()) {
            versions.entry(format!("a{id}")).or_default().push(*v);
        }
    }
    for (key, mut written) in versions {
        let n = written.len();
        written.sort_unstable();
        written.dedup();
        if written.len() != n {
            broken.push(format!(
                "two writes of {key} both succeeded with one version"
            ));
        }
    }
    broken.extend(snapshots(&history.log));
    broken
}

/// Kinds that say the outcome is unknown.
fn in_doubt(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::MaybeApplied | ErrorKind::Timeout | ErrorKind::UnexpectedResponse
    )
}

/// What `call` reported against the writes of it the emulator applied.
fn outcome(call: &Call, applied: &[&Applied]) -> Vec<String> {
    let mut broken = Vec::new();
    if call.ended.saturating_sub(call.started) > DEADLINE + CALL_TIMEOUT {
        broken.push(format!(
            "took {:?}, past its deadline {DEADLINE:?} and one call timeout",
            call.ended - call.started
        ));
    }
    let wrote = !applied.is_empty();
    if call.op.counts() && applied.len() > 1 {
        broken.push(format!("an increment applied {} times", applied.len()));
    }
    match &call.reported {
        Reported::Cancelled => {}
        Reported::Done(version) if !call.op.is_read() => {
            if !wrote {
                broken.push("reported done, but the emulator applied none of its writes".into());
            }
            if let (Some(v), Some(id)) = (version, call.op.account()) {
                let key = format!("ACCOUNT#a{id}|ACCOUNT");
                let held = applied.iter().any(|a| version_in(a, &key) == Some(*v));
                if !held {
                    broken.push(format!(
                        "reported version {v}, which no write of it left in the store"
                    ));
                }
            }
        }
        Reported::Nothing if wrote => {
            broken.push("reported nothing written, but the emulator applied a write".into());
        }
        Reported::Batch(n) if call.op.is_batch_write() => {
            let keys = batch_keys(applied);
            if *n != call.op.batch_size() || keys.len() != *n {
                broken.push(format!(
                    "reported {n} of {} written, the emulator applied {}",
                    call.op.batch_size(),
                    keys.len()
                ));
            }
        }
        Reported::Failed(ErrorKind::BatchWriteIncomplete, Some(left), _) => {
            let keys = batch_keys(applied);
            let total = left.written + left.unprocessed.len() + left.in_doubt.len();
            if total != call.op.batch_size() {
                broken.push(format!(
                    "written {} + handed back {} + in doubt {} != sent {}",
                    left.written,
                    left.unprocessed.len(),
                    left.in_doubt.len(),
                    call.op.batch_size()
                ));
            }
            if left.written > keys.len() {
                broken.push(format!(
                    "reported {} written, the emulator applied {}",
                    left.written,
                    keys.len()
                ));
            }
            if let Some(k) = left.unprocessed.iter().find(|k| keys.contains(*k)) {
                broken.push(format!(
                    "handed back {k} as not written, but it was applied"
                ));
            }
        }
        Reported::Failed(kind, _, message) if wrote && !in_doubt(*kind) => {
            broken.push(format!(
                "reported a definite {kind:?} ({message}), but the emulator applied a write"
            ));
        }
        _ => {}
    }
    broken
}

/// The version `key` (`pk|sk`) had just after `applied`.
fn version_in(applied: &Applied, key: &str) -> Option<u64> {
    applied.after.as_ref()?.iter().find_map(|item| {
        let item = item_of(item);
        if key_text(item.iter()) != key {
            return None;
        }
        item.get("version")?.as_n().ok()?.parse().ok()
    })
}

/// The keys the emulator wrote for the batch requests in `applied`: each
/// request sent less what the answer left unprocessed.
fn batch_keys(applied: &[&Applied]) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for a in applied.iter().filter(|a| a.operation == "BatchWriteItem") {
        let left: BTreeSet<String> = entries(&a.answer["UnprocessedItems"]).collect();
        keys.extend(entries(&a.sent["RequestItems"]).filter(|k| !left.contains(k)));
    }
    keys
}

fn entries(tables: &Value) -> impl Iterator<Item = String> + '_ {
    tables
        .as_object()
        .into_iter()
        .flat_map(|m| m.values())
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|w| {
            let item = w
                .pointer("/PutRequest/Item")
                .or_else(|| w.pointer("/DeleteRequest/Key"))?;
            Some(key_text(item_of(item).iter()))
        })
}

/// Every table after every applied write: items decode, derived keys agree
/// with the fields, one sentinel per email and none without its owner,
/// versions of a key only grow.
fn snapshots(log: &[Applied]) -> Vec<String> {
    let mut broken = Vec::new();
    let mut versions = Versions::default();
    for (at, applied) in log.iter().enumerate() {
        let Some(items) = &applied.after else {
            continue;
        };
        let mut now: Vec<(String, u64)> = Vec::new();
        let mut emails: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut sentinels: BTreeMap<String, String> = BTreeMap::new();
        for json in items {
            let item: HashMap<String, AttributeValue> = item_of(json).into_iter().collect();
            let key = key_text(item.iter());
            let kind = item.get("entityType").and_then(|v| v.as_s().ok()).cloned();
            let problem = match kind.as_deref() {
                Some("Account") => {
                    if let Some(email) = item.get("email").and_then(|v| v.as_s().ok()) {
                        emails.entry(email.clone()).or_default().push(key.clone());
                    }
                    match item
                        .get("version")
                        .and_then(|v| v.as_n().ok()?.parse().ok())
                    {
                        Some(v) => now.push((key.clone(), v)),
                        None => broken.push(format!("after log entry {at}: {key} has no version")),
                    }
                    derived::<AccountMapper>(&item)
                }
                Some("Player") => derived::<PlayerMapper>(&item),
                Some("Tag") => derived::<TagMapper>(&item),
                Some("dynamodb_mapper.Unique") => {
                    let owner = item
                        .get("uniqueOwner")
                        .and_then(|v| v.as_m().ok())
                        .map(|m| key_text(m.iter()));
                    let value = key.trim_start_matches("UNIQUE#Account#email#").to_owned();
                    sentinels.insert(
                        value.split('|').next().unwrap_or_default().to_owned(),
                        owner.unwrap_or_default(),
                    );
                    None
                }
                other => Some(format!("an item with discriminator {other:?}")),
            };
            if let Some(p) = problem {
                broken.push(format!(
                    "after log entry {at} ({}): {key}: {p}",
                    applied.operation
                ));
            }
        }
        if tables_of(&applied.sent)
            .iter()
            .any(|t| t.starts_with("acc"))
        {
            for problem in versions.next(now) {
                broken.push(format!(
                    "after log entry {at} ({}): {problem}",
                    applied.operation
                ));
            }
        }
        for (email, holders) in &emails {
            match (holders.as_slice(), sentinels.get(email)) {
                ([one], Some(owner)) if owner == one => {}
                (holders, owner) => broken.push(format!(
                    "after log entry {at} ({}): email {email} held by {holders:?}, sentinel owned by {owner:?}",
                    applied.operation
                )),
            }
        }
        for (email, owner) in &sentinels {
            if !emails.contains_key(email) {
                broken.push(format!(
                    "after log entry {at} ({}): a sentinel of {email} (owner {owner}) with no account holding it",
                    applied.operation
                ));
            }
        }
    }
    broken
}

/// The versions of the accounts, snapshot after snapshot.
#[derive(Default)]
struct Versions {
    /// Each key's version in the last snapshot (absent: no item).
    last: HashMap<String, u64>,
    /// Every version each key ever had.
    seen: HashMap<String, BTreeSet<u64>>,
}

impl Versions {
    /// The next snapshot's versions: a write moves a version by exactly one;
    /// a new incarnation never starts at a version the key had before.
    fn next(&mut self, now: Vec<(String, u64)>) -> Vec<String> {
        let mut broken = Vec::new();
        let mut last = HashMap::new();
        for (key, v) in now {
            let seen = self.seen.entry(key.clone()).or_default();
            match self.last.get(&key) {
                Some(&l) if v == l || Some(v) == l.checked_add(1) => {}
                Some(&l) => {
                    broken.push(format!("{key} moved from version {l} to {v} in one write"))
                }
                None if seen.contains(&v) => broken.push(format!(
                    "{key} was created again at version {v}, which an earlier incarnation had"
                )),
                None => {}
            }
            seen.insert(v);
            last.insert(key, v);
        }
        self.last = last;
        broken
    }
}

/// The attributes of an item `increment` created.
const COUNTER_ITEM: &[&str] = &["pk", "sk", "entityType", "version", "wins", "balance"];

/// Whether `item`'s keys and discriminator are what `to_item` renders from
/// the entity it decodes to.
fn derived<M: Mapper>(item: &HashMap<String, AttributeValue>) -> Option<String> {
    let entity = match M::from_item(item.clone()) {
        Ok(e) => e,
        // `increment` of a missing key creates an item of the key, the
        // discriminator, the counter (and version) only, as documented.
        Err(_) if item.keys().all(|k| COUNTER_ITEM.contains(&k.as_str())) => return None,
        Err(e) => return Some(format!("does not decode: {e:#}")),
    };
    let rendered = match M::to_item(&entity) {
        Ok(r) => r,
        Err(e) => return Some(format!("does not render: {e:#}")),
    };
    for name in ["pk", "sk", "gsi1pk", "gsi1sk", "entityType"] {
        if rendered.get(name) != item.get(name) {
            return Some(format!(
                "{name} is {:?}, its fields render {:?}",
                item.get(name),
                rendered.get(name)
            ));
        }
    }
    None
}
