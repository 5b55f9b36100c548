//! A consistency oracle for the write helpers (#29): random sequences of
//! writes through every helper, on a real emulator, against a model of what
//! the store must hold. After every step each stored item decodes, its
//! derived attributes (keys, index keys, sparse index keys, discriminator,
//! TTL) are exactly what its mapper renders from the decoded entity, and the
//! store equals the model: no acknowledged write lost, nothing applied that
//! was reported refused, versions only moving on.
//!
//! Driven by a stream of numbers ([`Choices`]): a seeded generator for the
//! property test, the fuzzer's bytes for the fuzz target. A violation
//! panics with the steps that led to it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use aws_sdk_dynamodb::Client;
use dynamodb_mapper::expr::{Update, attr};
use dynamodb_mapper::ops::{RetryPolicy, Table};
use dynamodb_mapper::{
    ErrorKind, GlobalSecondaryIndex, IndexKeys, Item, KeyPattern, Mapper, MapperExt, Record,
    TableSchema,
};
use serde::{Deserialize, Serialize};

/// The layout with keys rendered from fields: GSI1 from two fields, a sparse
/// GSI2 from an optional one, a TTL.
pub const PLAIN: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[
        GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk"),
        GlobalSecondaryIndex::new("GSI2", "gsi2pk").sort_key("gsi2sk"),
    ])
    .ttl("expiresAt");

/// The versioned layout, an index key rendered from a field.
pub const VERSIONED: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")])
    .version("version");

/// An entity whose index keys all come from its fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub id: String,
    pub status: String,
    pub score: u32,
    pub region: Option<String>,
    pub note: String,
    #[serde(rename = "expiresAt")]
    pub expires_at: Option<u64>,
}

/// Maps [`Task`]s into [`PLAIN`].
#[derive(Debug)]
pub struct TaskMapper;
impl Mapper for TaskMapper {
    type Entity = Task;
    const ENTITY_TYPE: &'static str = "Task";
    const TABLE: TableSchema = PLAIN;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("TASK#{id}")).sort(KeyPattern::sort("TASK")),
        IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
            .sort(KeyPattern::sort("SCORE#{score:u10}#{id}")),
        IndexKeys::index("GSI2", KeyPattern::partition("REGION#{region}"))
            .sort(KeyPattern::sort("TASK#{id}")),
    ];
}

/// A versioned entity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    pub id: String,
    pub title: String,
    pub count: i64,
}

/// Maps [`Doc`]s into [`VERSIONED`].
#[derive(Debug)]
pub struct DocMapper;
impl Mapper for DocMapper {
    type Entity = Doc;
    const ENTITY_TYPE: &'static str = "Doc";
    const TABLE: TableSchema = VERSIONED;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("DOC#{id}")).sort(KeyPattern::sort("DOC")),
        IndexKeys::index("GSI1", KeyPattern::partition("TITLE#{title}"))
            .sort(KeyPattern::sort("DOC#{id}")),
    ];
}

/// Where the driver's choices come from.
pub trait Choices {
    /// A number below `n` (`n` > 0), or `None` when there are no more.
    fn below(&mut self, n: u32) -> Option<u32>;
}

/// Choices from a seeded generator, `steps` long.
#[derive(Debug)]
pub struct Seeded {
    rng: fastrand::Rng,
    left: usize,
}

impl Seeded {
    pub fn new(seed: u64, steps: usize) -> Self {
        Seeded {
            rng: fastrand::Rng::with_seed(seed),
            left: steps,
        }
    }
}

impl Choices for Seeded {
    fn below(&mut self, n: u32) -> Option<u32> {
        Some(self.rng.u32(..n.max(1)))
    }
}

impl Seeded {
    /// Whether another step is wanted.
    pub fn step(&mut self) -> bool {
        let more = self.left > 0;
        self.left = self.left.saturating_sub(1);
        more
    }
}

/// Choices from bytes (a fuzzer's input), one byte each.
#[derive(Debug)]
pub struct FromBytes<'a>(pub &'a [u8]);

impl Choices for FromBytes<'_> {
    fn below(&mut self, n: u32) -> Option<u32> {
        let (first, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(u32::from(*first) % n.max(1))
    }
}

const IDS: [&str; 4] = ["a", "b", "c", "d"];
const STATUSES: [&str; 3] = ["open", "done", "x#y"];
const REGIONS: [Option<&str>; 3] = [None, Some("eu"), Some("us")];

fn task(c: &mut dyn Choices, id: &str) -> Option<Task> {
    Some(Task {
        id: id.to_owned(),
        status: STATUSES[c.below(3)? as usize].to_owned(),
        score: c.below(1000)?,
        region: REGIONS[c.below(3)? as usize].map(str::to_owned),
        note: format!("n{}", c.below(5)?),
        expires_at: [None, Some(1_900_000_000)][c.below(2)? as usize],
    })
}

/// The model and the store of one run.
pub struct Oracle {
    client: Client,
    plain: Table,
    versioned: Table,
    tasks: BTreeMap<String, Task>,
    /// Each doc and its stored version.
    docs: BTreeMap<String, (Doc, u64)>,
    /// Records read at some point, to write back stale later.
    kept: Vec<Record<Doc>>,
    log: String,
}

impl Oracle {
    /// A run on two new tables reached through `client`.
    pub async fn new(client: Client, plain: &str, versioned: &str) -> Self {
        // Refusals the emulator never makes are not retried here: one
        // attempt each keeps a run short.
        let policy = RetryPolicy::new(1);
        Oracle {
            plain: Table::new(&client, plain, PLAIN).retry(policy),
            versioned: Table::new(&client, versioned, VERSIONED).retry(policy),
            client,
            tasks: BTreeMap::new(),
            docs: BTreeMap::new(),
            kept: Vec::new(),
            log: String::new(),
        }
    }

    /// Deletes every item of both tables: a fresh start on tables reused
    /// (by the fuzz target, which cannot make two tables per input).
    pub async fn clear(&mut self) {
        for table in [self.plain.clone(), self.versioned.clone()] {
            for item in self.scan(&table).await {
                let key = table
                    .schema()
                    .key_of(&item)
                    .unwrap_or_else(|e| self.fail(e));
                let sent = self
                    .client
                    .delete_item()
                    .table_name(table.name())
                    .set_key(Some(key))
                    .send()
                    .await;
                if let Err(e) = sent {
                    self.fail(format!("clear: {e}"));
                }
            }
        }
        self.tasks.clear();
        self.docs.clear();
        self.kept.clear();
        self.log.clear();
    }

    /// Adds `line` to the steps printed on a failure (the seed, say).
    pub fn note(&mut self, line: &str) {
        let _ = writeln!(self.log, "{line}");
    }

    fn fail(&self, what: impl std::fmt::Display) -> ! {
        panic!("consistency oracle: {what}\nsteps:\n{}", self.log)
    }

    /// One random step and the checks after it; `None` when the choices
    /// ran out.
    pub async fn step(&mut self, c: &mut dyn Choices) -> Option<()> {
        let id = IDS[c.below(4)? as usize];
        match c.below(12)? {
            0 => self.put_task(c, id).await?,
            1 => self.update_task(c, id).await?,
            2 => self.increment(c, id).await?,
            3 => self.raw_update(c, id).await?,
            4 => self.batch(c).await?,
            5 => self.tx_tasks(c, id).await?,
            6 => self.put_doc(c, id).await?,
            7 => self.update_doc(c, id).await?,
            8 => self.stale_doc(c).await?,
            9 => self.retry_doc(id).await,
            10 => self.delete_doc(c).await?,
            _ => self.read_doc(id).await,
        }
        self.check().await;
        Some(())
    }

    async fn put_task(&mut self, c: &mut dyn Choices, id: &str) -> Option<()> {
        let t = task(c, id)?;
        let _ = writeln!(self.log, "put {t:?}");
        let item = TaskMapper::to_item(&t).unwrap_or_else(|e| self.fail(e));
        let sent = self
            .client
            .put_item()
            .table_name(self.plain.name())
            .set_item(Some(item))
            .send()
            .await;
        if let Err(e) = sent {
            self.fail(format!("put: {e}"));
        }
        self.tasks.insert(id.to_owned(), t);
        Some(())
    }

    async fn update_task(&mut self, c: &mut dyn Choices, id: &str) -> Option<()> {
        let new = task(c, id)?;
        let _ = writeln!(self.log, "update_entity {new:?}");
        let Some(old) = self.tasks.get(id).cloned() else {
            let err = self.plain.update_entity::<TaskMapper>(&new, &new).await;
            // No change: nothing sent, or the item is absent.
            if err.as_ref().is_err_and(|e| e.kind() != ErrorKind::NotFound) {
                self.fail(format!("update of an absent item: {err:?}"));
            }
            return Some(());
        };
        match self.plain.update_entity::<TaskMapper>(&old, &new).await {
            Ok(()) => {
                self.tasks.insert(id.to_owned(), new);
            }
            Err(e) => self.fail(format!("update_entity: {e}")),
        }
        Some(())
    }

    async fn increment(&mut self, c: &mut dyn Choices, id: &str) -> Option<()> {
        let key = TaskMapper::lookup().with("id", id).key().ok()?;
        // `score` renders GSI1's sort key: refused; `hits` is no field.
        let attribute = ["score", "hits"][c.below(2)? as usize];
        let _ = writeln!(self.log, "increment {id} {attribute}");
        let got = self.plain.increment::<TaskMapper>(key, attribute, 1).await;
        match (attribute, got) {
            ("score", Err(e)) if e.kind() == ErrorKind::InvalidValue => {}
            ("score", other) => self.fail(format!("increment of a key source: {other:?}")),
            (_, Ok(_)) => {
                // An absent item is created with the key and the count only:
                // not a whole task; the check removes it from the store.
                if !self.tasks.contains_key(id) {
                    self.delete_raw(id).await;
                }
            }
            (_, Err(e)) => self.fail(format!("increment: {e}")),
        }
        Some(())
    }

    async fn delete_raw(&mut self, id: &str) {
        let key = TaskMapper::lookup()
            .with("id", id)
            .key()
            .unwrap_or_else(|e| self.fail(e));
        let sent = self
            .client
            .delete_item()
            .table_name(self.plain.name())
            .set_key(Some(key))
            .send()
            .await;
        if let Err(e) = sent {
            self.fail(format!("delete: {e}"));
        }
    }

    async fn raw_update(&mut self, c: &mut dyn Choices, id: &str) -> Option<()> {
        let key = TaskMapper::lookup().with("id", id).key().ok()?;
        let status = STATUSES[c.below(3)? as usize];
        // What an accepted update changes: the note, or the status.
        let sets_note = c.below(4)?;
        let (update, refused) = match sets_note {
            0 => (Update::new().set(attr("note"), "raw"), false),
            1 => (Update::new().set(attr("status"), status), true),
            2 => (Update::new().remove(attr("region")), true),
            // Kept by the caller, and kept right: allowed.
            _ => {
                let score = self.tasks.get(id).map_or(0, |t| t.score);
                let gsi1pk = KeyPattern::partition("STATUS#{status}")
                    .with("status", status)
                    .render()
                    .ok()?;
                let gsi1sk = KeyPattern::sort("SCORE#{score:u10}#{id}")
                    .with("score", u64::from(score))
                    .with("id", id)
                    .render()
                    .ok()?;
                let update = Update::new()
                    .set(attr("status"), status)
                    .set(attr("gsi1pk"), gsi1pk)
                    .set(attr("gsi1sk"), gsi1sk)
                    .caller_keeps("gsi1pk")
                    .caller_keeps("gsi1sk");
                (update, false)
            }
        };
        let _ = writeln!(self.log, "tx update {id} {update:?}");
        let mut tx = self.plain.transaction();
        match tx.update::<TaskMapper>(key, update.clone()) {
            Err(e) if refused && e.kind() == ErrorKind::InvalidValue => return Some(()),
            Err(e) => self.fail(format!("tx update refused: {e}")),
            Ok(_) if refused => {
                self.fail(format!("a stale-making update was accepted: {update:?}"))
            }
            Ok(_) => {}
        }
        match (tx.send().await, self.tasks.get_mut(id)) {
            (Ok(_), Some(t)) if sets_note == 0 => t.note = "raw".to_owned(),
            (Ok(_), Some(t)) => t.status = status.to_owned(),
            (Ok(_), None) => self.fail("an update of an absent item was applied"),
            (Err(e), None) if e.kind() == ErrorKind::TransactionCanceled => {}
            (Err(e), _) => self.fail(format!("tx update: {e}")),
        }
        Some(())
    }

    async fn batch(&mut self, c: &mut dyn Choices) -> Option<()> {
        let mut puts = Vec::new();
        let mut deletes = Vec::new();
        for id in IDS {
            match c.below(3)? {
                0 => puts.push(task(c, id)?),
                1 => deletes.push(id),
                _ => {}
            }
        }
        let _ = writeln!(self.log, "batch put {puts:?} delete {deletes:?}");
        let writer = self.plain.batch_writer();
        if let Err(e) = writer.put::<TaskMapper>(&puts).await {
            self.fail(format!("batch put: {e}"));
        }
        let keys = deletes
            .iter()
            .map(|id| TaskMapper::lookup().with("id", *id).key())
            .collect::<Result<Vec<_>, _>>()
            .ok()?;
        if let Err(e) = writer.delete_keys(keys).await {
            self.fail(format!("batch delete: {e}"));
        }
        for t in puts {
            self.tasks.insert(t.id.clone(), t);
        }
        for id in deletes {
            self.tasks.remove(id);
        }
        Some(())
    }

    async fn tx_tasks(&mut self, c: &mut dyn Choices, id: &str) -> Option<()> {
        let other = IDS[c.below(4)? as usize];
        let new = task(c, id)?;
        let mut tx = self.plain.transaction();
        let _ = writeln!(self.log, "tx put {new:?}, delete {other}");
        tx.put::<TaskMapper>(&new).unwrap_or_else(|e| self.fail(e));
        let duplicate = other == id;
        let key = TaskMapper::lookup().with("id", other).key().ok()?;
        match tx.delete::<TaskMapper>(key) {
            Err(e) if duplicate && e.kind() == ErrorKind::DuplicateKey => {}
            Err(e) => self.fail(format!("tx delete: {e}")),
            Ok(_) if duplicate => self.fail("two actions on one item accepted"),
            Ok(_) => {}
        }
        if let Err(e) = tx.send().await {
            self.fail(format!("tx: {e}"));
        }
        self.tasks.insert(id.to_owned(), new);
        if !duplicate {
            self.tasks.remove(other);
        }
        Some(())
    }

    async fn put_doc(&mut self, c: &mut dyn Choices, id: &str) -> Option<()> {
        let doc = Doc {
            id: id.to_owned(),
            title: ["t1", "t2"][c.below(2)? as usize].to_owned(),
            count: 0,
        };
        let _ = writeln!(self.log, "put_versioned new {doc:?}");
        let mut record = Record::new(doc.clone());
        match self.versioned.put_versioned::<DocMapper>(&mut record).await {
            Ok(v) if !self.docs.contains_key(id) => {
                self.docs.insert(id.to_owned(), (doc, v));
                self.kept.push(record);
            }
            Err(e) if self.docs.contains_key(id) && e.kind() == ErrorKind::VersionConflict => {}
            other => self.fail(format!("put_versioned of a new record: {other:?}")),
        }
        Some(())
    }

    async fn update_doc(&mut self, c: &mut dyn Choices, id: &str) -> Option<()> {
        let Some(mut record) = self.read(id).await else {
            return Some(());
        };
        let mut new = record.entity.clone();
        match c.below(3)? {
            0 => new.title = ["t1", "t2"][c.below(2)? as usize].to_owned(),
            1 => new.count += 1,
            _ => {} // no change
        }
        let _ = writeln!(self.log, "update_versioned {new:?}");
        match self
            .versioned
            .update_versioned::<DocMapper>(&mut record, new.clone())
            .await
        {
            Ok(v) => {
                self.docs.insert(id.to_owned(), (new, v));
                self.kept.push(record);
            }
            Err(e) => self.fail(format!("update_versioned of a fresh record: {e}")),
        }
        Some(())
    }

    async fn stale_doc(&mut self, c: &mut dyn Choices) -> Option<()> {
        if self.kept.is_empty() {
            return Some(());
        }
        let index = c.below(u32::try_from(self.kept.len()).unwrap_or(u32::MAX))? as usize;
        let mut record = self.kept.get(index)?.clone();
        let id = record.entity.id.clone();
        let same = c.below(2)? == 0;
        let mut new = record.entity.clone();
        if !same {
            new.count += 10;
        }
        let read_at = record.version;
        let _ = writeln!(self.log, "update_versioned kept at {read_at:?} -> {new:?}");
        let stored = self.docs.get(&id).map(|(_, v)| *v);
        match self
            .versioned
            .update_versioned::<DocMapper>(&mut record, new.clone())
            .await
        {
            Ok(v) if stored == read_at => {
                self.docs.insert(id, (new, v));
            }
            Ok(v) => self.fail(format!(
                "a stale record (read at {read_at:?}, stored {stored:?}) was updated to {v}"
            )),
            Err(e) if stored != read_at && e.kind() == ErrorKind::VersionConflict => {}
            Err(e) => self.fail(format!("update_versioned of a kept record: {e}")),
        }
        Some(())
    }

    async fn retry_doc(&mut self, id: &str) {
        let key = match DocMapper::lookup().with("id", id).key() {
            Ok(key) => key,
            Err(e) => self.fail(e),
        };
        let _ = writeln!(self.log, "update_with_retry {id}");
        let got = self
            .versioned
            .update_with_retry::<DocMapper, _>(key, |r| {
                r.entity.count += 1;
                Ok(())
            })
            .await;
        match got {
            Ok(record) => {
                let version = record.version.unwrap_or_else(|| self.fail("no version"));
                self.docs.insert(id.to_owned(), (record.entity, version));
            }
            Err(e) if !self.docs.contains_key(id) && e.kind() == ErrorKind::NotFound => {}
            Err(e) => self.fail(format!("update_with_retry: {e}")),
        }
    }

    async fn delete_doc(&mut self, c: &mut dyn Choices) -> Option<()> {
        if self.kept.is_empty() {
            return Some(());
        }
        let index = c.below(u32::try_from(self.kept.len()).unwrap_or(u32::MAX))? as usize;
        let record = self.kept.get(index)?.clone();
        let id = record.entity.id.clone();
        let stored = self.docs.get(&id).map(|(_, v)| *v);
        let _ = writeln!(self.log, "delete_versioned {id} at {:?}", record.version);
        match self.versioned.delete_versioned::<DocMapper>(&record).await {
            Ok(()) if stored.is_some() && stored == record.version => {
                self.docs.remove(&id);
            }
            Ok(()) => self.fail(format!(
                "a stale delete (at {:?}, stored {stored:?}) was applied",
                record.version
            )),
            Err(e) if stored != record.version && e.kind() == ErrorKind::VersionConflict => {}
            Err(e) => self.fail(format!("delete_versioned: {e}")),
        }
        Some(())
    }

    async fn read(&mut self, id: &str) -> Option<Record<Doc>> {
        let key = DocMapper::lookup().with("id", id).key().ok()?;
        match self.versioned.get_record::<DocMapper>(key).await {
            Ok(found) => found,
            Err(e) => self.fail(format!("get_record: {e}")),
        }
    }

    async fn read_doc(&mut self, id: &str) {
        if let Some(record) = self.read(id).await {
            self.kept.push(record);
        }
    }

    async fn scan(&self, table: &Table) -> Vec<Item> {
        let mut items = Vec::new();
        let mut start = None;
        loop {
            let page = self
                .client
                .scan()
                .table_name(table.name())
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send()
                .await
                .unwrap_or_else(|e| self.fail(format!("scan: {e}")));
            items.extend(page.items.unwrap_or_default());
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => return items,
            }
        }
    }

    /// The invariants, against the store itself.
    async fn check(&mut self) {
        // Counters created on absent tasks are not tasks: `increment` makes
        // them on purpose; they were deleted right after.
        let mut found = BTreeMap::new();
        for item in self.scan(&self.plain).await {
            let task = TaskMapper::from_item(item.clone())
                .unwrap_or_else(|e| self.fail(format!("a stored task does not decode: {e}")));
            same_derived::<TaskMapper>(self, &item, &task);
            found.insert(task.id.clone(), task);
        }
        if found != self.tasks {
            self.fail(format!(
                "tasks: stored {found:?}\nexpected {:?}",
                self.tasks
            ));
        }
        let mut docs = BTreeMap::new();
        for item in self.scan(&self.versioned).await {
            let record = DocMapper::record_from_item(item.clone())
                .unwrap_or_else(|e| self.fail(format!("a stored doc does not decode: {e}")));
            same_derived::<DocMapper>(self, &item, &record.entity);
            let version = record
                .version
                .unwrap_or_else(|| self.fail("a stored doc has no version"));
            docs.insert(record.entity.id.clone(), (record.entity, version));
        }
        if docs != self.docs {
            self.fail(format!("docs: stored {docs:?}\nexpected {:?}", self.docs));
        }
    }
}

/// Every attribute `M` renders for `entity` is stored exactly so, and
/// every index key the store holds is one `M` renders.
fn same_derived<M: Mapper>(oracle: &Oracle, stored: &Item, entity: &M::Entity)
where
    M::Entity: std::fmt::Debug,
{
    let rendered = M::to_item(entity).unwrap_or_else(|e| oracle.fail(e));
    let table = M::TABLE;
    let mut derived: Vec<&str> = vec![table.partition_key_attribute().name];
    derived.extend(table.sort_key_attribute().map(|k| k.name));
    derived.extend(table.discriminator_attribute());
    derived.extend(table.ttl_attribute());
    for index in table.global_indexes() {
        derived.extend(index.partition_keys().iter().map(|k| k.name));
        derived.extend(index.sort_keys().iter().map(|k| k.name));
    }
    for name in derived {
        if stored.get(name) != rendered.get(name) {
            oracle.fail(format!(
                "{} of {entity:?}: stored `{name}` is {:?}, the mapper renders {:?}",
                M::ENTITY_TYPE,
                stored.get(name),
                rendered.get(name)
            ));
        }
    }
}
