//! A consistency oracle for the write helpers (#29): random sequences of
//! writes through every helper of the crate, against a real emulator, with
//! a model of what the store must hold checked after every step.
//!
//! Two layouts, each on a table of its own:
//!
//! | layout | schema | what it exercises |
//! |---|---|---|
//! | [`Player`] | [`PLAYERS`]: `pk`/`sk`, `GSI1` (`STATUS#{status}` / `SCORE#{score:u10}#{id}`), a sparse `GSI2` (`REGION#{region}`, from an `Option`), a multi-attribute `ByTeam` (`teamKey` rendered from `TEAM#{team}#{status}`, then the fields `rank` (N) and `id`), a TTL (`expires_at`) | typed and raw puts, `put_new`, `update_entity` (with the stored state as `old`, and with a stale one), `increment` (counters, a multi-attribute key field, key sources that must be refused), raw `Transaction::update` (plain fields, bag attributes, key sources with or without `Update::caller_keeps`), transactions of several actions, the batch writer, raw deletes |
//! | [`Account`] | [`ACCOUNTS`]: `pk`/`sk`, `GSI1`, a version attribute | items written raw with attributes the mapper does not own (the bag), read with `get_record`, written back with `put_record` / `update_record` / `update_with_retry` from fresh and stale records, `delete_record`, `put_new`, `increment`, versioned transactions, the batch writer (refused, and its `import`), and the helpers a versioned table refuses |
//!
//! The model holds, per key, the item the store must hold (entity, derived
//! attributes and bag) and its version where known. It moves only on what
//! a helper reported: `Ok` means applied, a refusal means nothing applied,
//! `MaybeApplied` (or a timeout, or an incomplete batch) means either, and
//! the next scan says which. Where the outcome is certain from the model
//! (an update of a missing item, a stale version, a key source updated by
//! hand), the reported outcome must be that one.
//!
//! After every step the touched table is scanned and:
//! 1. every stored item decodes with its mapper (`record_from_item`);
//! 2. its mapper-owned attributes (the item less its bag and version) are
//!    exactly what `to_item` renders from the decoded entity: table keys,
//!    GSI keys (sparse ones absent when their source is), the multi-attribute
//!    key, the discriminator, the TTL;
//! 3. the store equals the model for every key: no acknowledged write lost,
//!    nothing applied that was reported refused;
//! 4. versions only grow: each write moves a version by one, and the first
//!    version of an item is above every version the key ever had (versions
//!    never repeat across a delete and a re-create).
//!
//! Steps come from bytes ([`decode`]), so the property test (fixed seeds)
//! and the fuzz target share one driver. A violation is an `Err` carrying
//! the step list and what each step reported; the fuzz target panics on it.
#![warn(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::DisplayErrorContext;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::expr::{Attr, Update};
use dynamodb_mapper::ops::{Table, Transaction};
use dynamodb_mapper::{
    ErrorKind, GlobalSecondaryIndex, IndexKeys, Item, KeyAttribute, KeyPattern, Mapper, MapperExt,
    Record, ScalarType, TableSchema,
};
use serde::{Deserialize, Serialize};

// ------------------------------------------------------------------ layouts

/// The multi-attribute index of [`PLAYERS`]: a key rendered from two
/// fields, then two fields as they are.
const BY_TEAM: GlobalSecondaryIndex = GlobalSecondaryIndex::multi_attribute(
    "ByTeam",
    &[KeyAttribute::new("teamKey")],
    &[
        KeyAttribute::typed("rank", ScalarType::N),
        KeyAttribute::new("id"),
    ],
);

/// The players' table: two GSIs of rendered keys (the second sparse), a
/// multi-attribute GSI, a TTL.
pub const PLAYERS: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[
        GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk"),
        GlobalSecondaryIndex::new("GSI2", "gsi2pk").sort_key("gsi2sk"),
        BY_TEAM,
    ])
    .ttl("expires_at");

/// The accounts' table: one GSI and a version attribute.
pub const ACCOUNTS: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")])
    .version("version");

/// A leaderboard entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Player {
    /// The key.
    pub id: String,
    /// Feeds `gsi1pk` and `teamKey`.
    pub status: String,
    /// Feeds `gsi1sk` (ten digits: a larger score renders no key).
    pub score: u64,
    /// Feeds the sparse `gsi2pk`.
    pub region: Option<String>,
    /// Feeds `teamKey`.
    pub team: String,
    /// A key attribute of `ByTeam` as it is (a number).
    pub rank: i64,
    /// A counter no key is rendered from.
    pub wins: i64,
    /// A plain field.
    pub note: String,
    /// The TTL.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "dynamodb_mapper::time::ttl::option"
    )]
    pub expires_at: Option<SystemTime>,
}

/// The mapper of [`Player`].
#[derive(Debug)]
pub struct PlayerMapper;

impl Mapper for PlayerMapper {
    type Entity = Player;
    const ENTITY_TYPE: &'static str = "Player";
    const SCHEMA: TableSchema = PLAYERS;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("PLAYER#{id}")).sort(KeyPattern::sort("PROFILE")),
        IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
            .sort(KeyPattern::sort("SCORE#{score:u10}#{id}")),
        IndexKeys::index("GSI2", KeyPattern::partition("REGION#{region}"))
            .sort(KeyPattern::sort("PLAYER#{id}")),
        IndexKeys::part(
            "ByTeam",
            "teamKey",
            KeyPattern::partition("TEAM#{team}#{status}"),
        ),
    ];
}

/// An account of a versioned table, whose items other writers add
/// attributes to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    /// The key.
    pub id: String,
    /// Feeds `gsi1pk`.
    pub status: String,
    /// A plain number.
    pub balance: i64,
    /// A counter.
    pub hits: i64,
    /// A plain field.
    pub note: String,
}

/// The mapper of [`Account`].
#[derive(Debug)]
pub struct AccountMapper;

impl Mapper for AccountMapper {
    type Entity = Account;
    const ENTITY_TYPE: &'static str = "Account";
    const SCHEMA: TableSchema = ACCOUNTS;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("ACCOUNT#{id}")).sort(KeyPattern::sort("ACCOUNT")),
        IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
            .sort(KeyPattern::sort("ACCOUNT#{id}")),
    ];
}

/// The attributes a [`PlayerMapper`] item owns (fields and layout), as the
/// oracle understands them; everything else is bag.
const PLAYER_OWNED: &[&str] = &[
    "id",
    "status",
    "score",
    "region",
    "team",
    "rank",
    "wins",
    "note",
    "expires_at",
    "pk",
    "sk",
    "gsi1pk",
    "gsi1sk",
    "gsi2pk",
    "gsi2sk",
    "teamKey",
    "entityType",
];

/// The same for [`AccountMapper`].
const ACCOUNT_OWNED: &[&str] = &[
    "id",
    "status",
    "balance",
    "hits",
    "note",
    "pk",
    "sk",
    "gsi1pk",
    "gsi1sk",
    "entityType",
    "version",
];

/// The derived attributes of a player and the fields each is rendered from
/// (by pattern, or, for `gsi2sk`, by the pairing of a sparse index: it goes
/// and comes back with `gsi2pk`).
const PLAYER_DERIVED: &[(&str, &[&str])] = &[
    ("gsi1pk", &["status"]),
    ("gsi1sk", &["score"]),
    ("gsi2pk", &["region"]),
    ("gsi2sk", &["region"]),
    ("teamKey", &["team", "status"]),
];

// ------------------------------------------------------------------ values

/// Ids: few, so steps collide.
pub const PLAYER_IDS: [&str; 5] = ["p0", "p1", "p2", "p3", "p4"];
/// Ids of accounts.
pub const ACCOUNT_IDS: [&str; 5] = ["a0", "a1", "a2", "a3", "a4"];

/// The last one renders no key (an empty value): refused by `to_item`.
const STATUSES: [&str; 8] = [
    "open", "shipped", "closed", "open", "shipped", "closed", "open", "",
];
/// The last one has eleven digits: `{score:u10}` refuses it.
const SCORES: [u64; 8] = [0, 1, 42, 1000, 9_999_999_999, 7, 3, 10_000_000_000];
const REGIONS: [Option<&str>; 4] = [None, Some("eu"), Some("us"), None];
/// `x#y`: a delimiter inside a value, escaped in `teamKey`.
const TEAMS: [&str; 3] = ["red", "blue", "x#y"];
const RANKS: [i64; 5] = [0, -1, 3, i64::MAX, i64::MIN];
const WINS: [i64; 4] = [0, 5, i64::MAX - 1, -3];
const NOTES: [&str; 4] = ["", "n", "hello world", "#"];
/// Far in the future: the emulator never expires them.
const TTLS: [Option<u64>; 3] = [None, Some(4_000_000_000), Some(4_102_444_800)];
const BYS: [i64; 6] = [1, -1, 2, i64::MAX, i64::MIN, 1000];
const ACCOUNT_STATUSES: [&str; 3] = ["active", "frozen", "closed"];
const BALANCES: [i64; 4] = [0, 10, -5, 1_000_000];
const HITS: [i64; 3] = [0, 3, i64::MAX - 1];
/// Bag attribute names: two the mapper does not own, then owned ones (a
/// record's bag never writes over those).
const BAG_NAMES: [&str; 5] = ["legacy", "audit", "note", "version", "gsi1pk"];

fn bag_value(i: usize) -> AttributeValue {
    match i % 4 {
        0 => AttributeValue::S("v1".into()),
        1 => AttributeValue::N("7".into()),
        2 => AttributeValue::Bool(true),
        _ => AttributeValue::L(vec![AttributeValue::S("x".into()), n(1)]),
    }
}

// ------------------------------------------------------------------ steps

/// A change of one field of a [`Player`].
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum PlayerChange {
    Status(String),
    Score(u64),
    Region(Option<String>),
    Team(String),
    Rank(i64),
    Wins(i64),
    Note(String),
    ExpiresAt(Option<u64>),
}

/// A player: the base one of `id` with `changes`.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerSpec {
    /// Index into [`PLAYER_IDS`].
    pub id: usize,
    /// Applied to [`Player::base`].
    pub changes: Vec<PlayerChange>,
}

/// A counter, or an attribute an increment must not touch.
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(missing_docs)]
pub enum PlayerCounter {
    /// A plain counter.
    Wins,
    /// A key attribute of `ByTeam` as it is: no key is rendered from it.
    Rank,
    /// Feeds `gsi1sk`: refused before sending.
    Score,
    /// Feeds `gsi1pk` and `teamKey`: refused before sending.
    Status,
    /// A string: refused by the condition.
    Note,
    /// The partition key: refused before sending.
    Pk,
    /// The discriminator: refused before sending.
    EntityType,
}

/// Which derived keys a raw update of a key source keeps
/// ([`Update::caller_keeps`]), setting them right.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Keep {
    /// None: the gate must refuse it.
    Nothing,
    /// Only the first derived key of the field (`gsi1pk` for `status`,
    /// `gsi2pk` for `region`): what a caller who read one pattern would do.
    /// The gate must refuse it when the field feeds another key too
    /// (`teamKey`; `gsi2sk`, the other key of a sparse index).
    First,
    /// Every derived attribute the change moves: the gate must let it
    /// through, and the item stays consistent.
    All,
}

/// A raw `Update` of one player, sent with `Transaction::update`.
#[derive(Debug, Clone, PartialEq)]
pub enum RawPlayerUpdate {
    /// `SET note`.
    Note(String),
    /// `SET rank` (a multi-attribute key field).
    Rank(i64),
    /// `SET expires_at` (the TTL).
    ExpiresAt(u64),
    /// `SET audit`, an attribute the mapper does not own.
    SetAudit(usize),
    /// `REMOVE audit`.
    RemoveAudit,
    /// A change of a field a key is rendered from (`Status`, `Score`,
    /// `Region`, `Team`), with the derived keys it keeps.
    Source {
        /// The change.
        change: PlayerChange,
        /// The derived keys set and kept.
        keep: Keep,
    },
    /// `SET` of an attribute the helpers keep (a derived key, a table key,
    /// the discriminator) to a bogus value: refused.
    Forbidden(&'static str),
}

/// One action of a player transaction.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum PlayerTxAction {
    Put(PlayerSpec),
    PutNew(PlayerSpec),
    Delete(usize),
    /// From the stored state (or the base one) to it with `changes`.
    UpdateEntity {
        id: usize,
        changes: Vec<PlayerChange>,
    },
    Raw {
        id: usize,
        update: RawPlayerUpdate,
    },
    /// A condition check that the item exists (`true`) or not.
    Check {
        id: usize,
        exists: bool,
    },
}

/// A step on the players' table.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum PlayerStep {
    /// `to_item` and a plain `PutItem`.
    RawPut(PlayerSpec),
    PutIfAbsent(PlayerSpec),
    /// `Table::update_entity` from `old` (the stored state, or the base
    /// one; with `stale` applied when not empty) to the stored state with
    /// `changes`.
    UpdateEntity {
        id: usize,
        changes: Vec<PlayerChange>,
        stale: Vec<PlayerChange>,
    },
    Increment {
        id: usize,
        counter: PlayerCounter,
        by: i64,
    },
    Tx(Vec<PlayerTxAction>),
    BatchPut(Vec<PlayerSpec>),
    BatchDelete(Vec<usize>),
    /// A plain `DeleteItem`.
    RawDelete(usize),
}

/// A change of one field of an [`Account`].
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum AccountChange {
    Status(String),
    Balance(i64),
    Hits(i64),
    Note(String),
}

/// An account: the base one of `id` with `changes`.
#[derive(Debug, Clone, PartialEq)]
pub struct AccountSpec {
    /// Index into [`ACCOUNT_IDS`].
    pub id: usize,
    /// Applied to [`Account::base`].
    pub changes: Vec<AccountChange>,
}

/// A change of a record's bag.
#[derive(Debug, Clone, PartialEq)]
pub enum BagChange {
    /// Inserts `BAG_NAMES[name]` with the value numbered `value`.
    Set {
        /// Index into the bag names (`legacy`, `audit`, then owned ones).
        name: usize,
        /// Which value.
        value: usize,
    },
    /// Removes `BAG_NAMES[name]`.
    Remove {
        /// Index into the bag names.
        name: usize,
    },
}

/// Where the record of a versioned write comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordSource {
    /// `get_record` now (`Record::new` of the base entity when absent).
    Fresh(usize),
    /// A record read or written earlier (`age` back), perhaps stale; a
    /// fresh read when there is none.
    Cached {
        /// Index into [`ACCOUNT_IDS`].
        id: usize,
        /// How far back.
        age: usize,
    },
    /// `Record::new`: expects no item.
    New(AccountSpec),
}

/// Which number an account increment touches.
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(missing_docs)]
pub enum AccountCounter {
    Hits,
    Balance,
    /// Feeds `gsi1pk`: refused before sending.
    Status,
    /// The version attribute: refused before sending.
    Version,
    /// A string: refused by the condition.
    Note,
}

/// One action of an account transaction.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum AccountTxAction {
    PutRecord {
        source: RecordSource,
        changes: Vec<AccountChange>,
        bag: Vec<BagChange>,
    },
    UpdateRecord {
        source: RecordSource,
        changes: Vec<AccountChange>,
    },
    DeleteRecord(RecordSource),
    /// `Transaction::put` of a versioned entity: only creates.
    Put(AccountSpec),
    /// `Transaction::update` (raw): refused on a versioned table.
    RawUpdate(usize),
    /// `Transaction::delete` (unversioned): refused on a versioned table.
    Delete(usize),
    Check {
        id: usize,
        exists: bool,
    },
}

/// A step on the accounts' table.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum AccountStep {
    /// Another writer: `to_item`, plus attributes the mapper does not own,
    /// with a plain `PutItem` (no version).
    RawPut {
        spec: AccountSpec,
        bag: Vec<BagChange>,
    },
    PutVersioned {
        source: RecordSource,
        changes: Vec<AccountChange>,
        bag: Vec<BagChange>,
    },
    PutIfAbsent(AccountSpec),
    UpdateVersioned {
        source: RecordSource,
        changes: Vec<AccountChange>,
    },
    /// `update_with_retry`: `changes` and `bag` applied to the record read;
    /// `move_key` changes its id too (refused).
    UpdateWithRetry {
        id: usize,
        changes: Vec<AccountChange>,
        bag: Vec<BagChange>,
        move_key: bool,
    },
    /// `update_entity`: refused on a versioned table.
    UpdateEntity {
        id: usize,
        changes: Vec<AccountChange>,
    },
    Increment {
        id: usize,
        counter: AccountCounter,
        by: i64,
    },
    Tx(Vec<AccountTxAction>),
    /// The batch writer: refused on a versioned table unless `import`.
    Batch {
        puts: Vec<AccountSpec>,
        deletes: Vec<usize>,
        import: bool,
    },
    DeleteVersioned(RecordSource),
    RawDelete(usize),
}

/// One step of a run.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum Step {
    Player(PlayerStep),
    Account(AccountStep),
}

impl Player {
    /// The player of `PLAYER_IDS[id]` before any change.
    #[must_use]
    pub fn base(id: usize) -> Player {
        Player {
            id: PLAYER_IDS[id % PLAYER_IDS.len()].to_owned(),
            status: "open".into(),
            score: 0,
            region: None,
            team: "red".into(),
            rank: 0,
            wins: 0,
            note: String::new(),
            expires_at: None,
        }
    }

    fn apply(&mut self, changes: &[PlayerChange]) {
        for change in changes {
            match change {
                PlayerChange::Status(v) => self.status.clone_from(v),
                PlayerChange::Score(v) => self.score = *v,
                PlayerChange::Region(v) => self.region.clone_from(v),
                PlayerChange::Team(v) => self.team.clone_from(v),
                PlayerChange::Rank(v) => self.rank = *v,
                PlayerChange::Wins(v) => self.wins = *v,
                PlayerChange::Note(v) => self.note.clone_from(v),
                PlayerChange::ExpiresAt(v) => {
                    self.expires_at = v.map(|s| UNIX_EPOCH + Duration::from_secs(s));
                }
            }
        }
    }

    fn with(mut self, changes: &[PlayerChange]) -> Player {
        self.apply(changes);
        self
    }
}

impl PlayerSpec {
    /// The player.
    #[must_use]
    pub fn entity(&self) -> Player {
        Player::base(self.id).with(&self.changes)
    }
}

impl Account {
    /// The account of `ACCOUNT_IDS[id]` before any change.
    #[must_use]
    pub fn base(id: usize) -> Account {
        Account {
            id: ACCOUNT_IDS[id % ACCOUNT_IDS.len()].to_owned(),
            status: "active".into(),
            balance: 0,
            hits: 0,
            note: String::new(),
        }
    }

    fn apply(&mut self, changes: &[AccountChange]) {
        for change in changes {
            match change {
                AccountChange::Status(v) => self.status.clone_from(v),
                AccountChange::Balance(v) => self.balance = *v,
                AccountChange::Hits(v) => self.hits = *v,
                AccountChange::Note(v) => self.note.clone_from(v),
            }
        }
    }

    fn with(mut self, changes: &[AccountChange]) -> Account {
        self.apply(changes);
        self
    }
}

impl AccountSpec {
    /// The account.
    #[must_use]
    pub fn entity(&self) -> Account {
        Account::base(self.id).with(&self.changes)
    }
}

fn apply_bag(bag: &mut Item, changes: &[BagChange]) {
    for change in changes {
        match *change {
            BagChange::Set { name, value } => {
                bag.insert(
                    BAG_NAMES[name % BAG_NAMES.len()].to_owned(),
                    bag_value(value),
                );
            }
            BagChange::Remove { name } => {
                bag.remove(BAG_NAMES[name % BAG_NAMES.len()]);
            }
        }
    }
}

// ------------------------------------------------------------------ decoding

/// Bytes read one at a time; zeros once they run out.
struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
    probes: Probes,
}

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// A number below `n` (at least 1).
    fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n.max(1)
    }

    fn pick<T: Clone>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())].clone()
    }

    fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    fn done(&self) -> bool {
        self.pos >= self.data.len()
    }
}

fn player_change(b: &mut Bytes) -> PlayerChange {
    match b.below(8) {
        0 => PlayerChange::Status(b.pick(&STATUSES).to_owned()),
        1 => PlayerChange::Score(b.pick(&SCORES)),
        2 => PlayerChange::Region(b.pick(&REGIONS).map(str::to_owned)),
        3 => PlayerChange::Team(b.pick(&TEAMS).to_owned()),
        4 => PlayerChange::Rank(b.pick(&RANKS)),
        5 => PlayerChange::Wins(b.pick(&WINS)),
        6 => PlayerChange::Note(b.pick(&NOTES).to_owned()),
        _ => PlayerChange::ExpiresAt(b.pick(&TTLS)),
    }
}

fn player_changes(b: &mut Bytes, most: usize) -> Vec<PlayerChange> {
    let count = b.below(most + 1);
    (0..count).map(|_| player_change(b)).collect()
}

fn player_spec(b: &mut Bytes) -> PlayerSpec {
    PlayerSpec {
        id: b.below(PLAYER_IDS.len()),
        changes: player_changes(b, 3),
    }
}

/// A change of a key source, with values that render.
fn source_change(b: &mut Bytes) -> PlayerChange {
    match b.below(4) {
        0 => PlayerChange::Status(STATUSES[b.below(STATUSES.len() - 1)].to_owned()),
        1 => PlayerChange::Score(SCORES[b.below(SCORES.len() - 1)]),
        2 => PlayerChange::Region(b.pick(&REGIONS).map(str::to_owned)),
        _ => PlayerChange::Team(b.pick(&TEAMS).to_owned()),
    }
}

fn raw_player_update(b: &mut Bytes) -> RawPlayerUpdate {
    match b.below(9) {
        0 => RawPlayerUpdate::Note(b.pick(&NOTES).to_owned()),
        1 => RawPlayerUpdate::Rank(b.pick(&RANKS)),
        2 => RawPlayerUpdate::ExpiresAt(b.pick(&[4_000_000_000, 4_200_000_000])),
        3 => RawPlayerUpdate::SetAudit(b.below(4)),
        4 => RawPlayerUpdate::RemoveAudit,
        5 => RawPlayerUpdate::Forbidden(b.pick(&[
            "gsi1pk",
            "gsi2sk",
            "teamKey",
            "pk",
            "sk",
            "entityType",
        ])),
        _ => {
            let change = source_change(b);
            let keep = match b.pick(&[Keep::Nothing, Keep::First, Keep::All, Keep::All]) {
                Keep::First if !b.probes.partial_keeps => Keep::All,
                keep => keep,
            };
            RawPlayerUpdate::Source { change, keep }
        }
    }
}

fn player_tx_action(b: &mut Bytes) -> PlayerTxAction {
    let id = b.below(PLAYER_IDS.len());
    match b.below(7) {
        0 => PlayerTxAction::Put(player_spec(b)),
        1 => PlayerTxAction::PutNew(player_spec(b)),
        2 => PlayerTxAction::Delete(id),
        3 => PlayerTxAction::UpdateEntity {
            id,
            changes: player_changes(b, 2),
        },
        4 | 5 => PlayerTxAction::Raw {
            id,
            update: raw_player_update(b),
        },
        _ => PlayerTxAction::Check {
            id,
            exists: b.flag(),
        },
    }
}

fn player_step(b: &mut Bytes) -> PlayerStep {
    let id = b.below(PLAYER_IDS.len());
    match b.below(16) {
        0 | 1 => PlayerStep::RawPut(player_spec(b)),
        2 => PlayerStep::PutIfAbsent(player_spec(b)),
        3..=5 => PlayerStep::UpdateEntity {
            id,
            changes: player_changes(b, 3),
            stale: if b.below(4) == 0 {
                let stale = player_changes(b, 2);
                if b.probes.stale_update_entity {
                    stale
                } else {
                    Vec::new()
                }
            } else {
                Vec::new()
            },
        },
        6 | 7 => PlayerStep::Increment {
            id,
            counter: b.pick(&[
                PlayerCounter::Wins,
                PlayerCounter::Wins,
                PlayerCounter::Rank,
                PlayerCounter::Score,
                PlayerCounter::Status,
                PlayerCounter::Note,
                PlayerCounter::Pk,
                PlayerCounter::EntityType,
            ]),
            by: b.pick(&BYS),
        },
        8..=10 => PlayerStep::Tx(vec![PlayerTxAction::Raw {
            id,
            update: raw_player_update(b),
        }]),
        11 | 12 => {
            let count = 1 + b.below(3);
            PlayerStep::Tx((0..count).map(|_| player_tx_action(b)).collect())
        }
        13 => {
            let count = 1 + b.below(3);
            PlayerStep::BatchPut((0..count).map(|_| player_spec(b)).collect())
        }
        14 => {
            let count = 1 + b.below(2);
            PlayerStep::BatchDelete((0..count).map(|_| b.below(PLAYER_IDS.len())).collect())
        }
        _ => PlayerStep::RawDelete(id),
    }
}

fn account_changes(b: &mut Bytes, most: usize) -> Vec<AccountChange> {
    let count = b.below(most + 1);
    (0..count)
        .map(|_| match b.below(4) {
            0 => AccountChange::Status(b.pick(&ACCOUNT_STATUSES).to_owned()),
            1 => AccountChange::Balance(b.pick(&BALANCES)),
            2 => AccountChange::Hits(b.pick(&HITS)),
            _ => AccountChange::Note(b.pick(&NOTES).to_owned()),
        })
        .collect()
}

fn account_spec(b: &mut Bytes) -> AccountSpec {
    AccountSpec {
        id: b.below(ACCOUNT_IDS.len()),
        changes: account_changes(b, 3),
    }
}

/// Bag changes; `owned` lets them name attributes the mapper owns.
fn bag_changes(b: &mut Bytes, owned: bool) -> Vec<BagChange> {
    let count = b.below(3);
    let names = if owned { BAG_NAMES.len() } else { 2 };
    (0..count)
        .map(|_| {
            let name = b.below(names);
            if b.below(3) == 0 {
                BagChange::Remove { name }
            } else {
                BagChange::Set {
                    name,
                    value: b.below(4),
                }
            }
        })
        .collect()
}

fn record_source(b: &mut Bytes) -> RecordSource {
    let id = b.below(ACCOUNT_IDS.len());
    match b.below(5) {
        0 | 1 => RecordSource::Fresh(id),
        2 | 3 => RecordSource::Cached {
            id,
            age: b.below(4),
        },
        _ => RecordSource::New(account_spec(b)),
    }
}

fn account_tx_action(b: &mut Bytes) -> AccountTxAction {
    let id = b.below(ACCOUNT_IDS.len());
    match b.below(9) {
        0 | 1 => AccountTxAction::PutRecord {
            source: record_source(b),
            changes: account_changes(b, 2),
            bag: bag_changes(b, true),
        },
        2 | 3 => AccountTxAction::UpdateRecord {
            source: record_source(b),
            changes: account_changes(b, 2),
        },
        4 => AccountTxAction::DeleteRecord(record_source(b)),
        5 => AccountTxAction::Put(account_spec(b)),
        6 => AccountTxAction::RawUpdate(id),
        7 => AccountTxAction::Delete(id),
        _ => AccountTxAction::Check {
            id,
            exists: b.flag(),
        },
    }
}

fn account_step(b: &mut Bytes) -> AccountStep {
    let id = b.below(ACCOUNT_IDS.len());
    match b.below(18) {
        0 | 1 => AccountStep::RawPut {
            spec: account_spec(b),
            bag: bag_changes(b, false),
        },
        2..=4 => AccountStep::PutVersioned {
            source: record_source(b),
            changes: account_changes(b, 2),
            bag: bag_changes(b, true),
        },
        5 => AccountStep::PutIfAbsent(account_spec(b)),
        6..=8 => AccountStep::UpdateVersioned {
            source: record_source(b),
            changes: account_changes(b, 2),
        },
        9 | 10 => AccountStep::UpdateWithRetry {
            id,
            changes: account_changes(b, 2),
            bag: bag_changes(b, true),
            move_key: b.below(8) == 0,
        },
        11 => AccountStep::UpdateEntity {
            id,
            changes: account_changes(b, 1),
        },
        12 => AccountStep::Increment {
            id,
            counter: b.pick(&[
                AccountCounter::Hits,
                AccountCounter::Hits,
                AccountCounter::Balance,
                AccountCounter::Status,
                AccountCounter::Version,
                AccountCounter::Note,
            ]),
            by: b.pick(&BYS),
        },
        13 | 14 => {
            let count = 1 + b.below(3);
            AccountStep::Tx((0..count).map(|_| account_tx_action(b)).collect())
        }
        15 => {
            let puts = b.below(3);
            let deletes = b.below(2);
            AccountStep::Batch {
                puts: (0..puts).map(|_| account_spec(b)).collect(),
                deletes: (0..deletes).map(|_| b.below(ACCOUNT_IDS.len())).collect(),
                import: b.flag(),
            }
        }
        16 => AccountStep::DeleteVersioned(record_source(b)),
        _ => AccountStep::RawDelete(id),
    }
}

/// Steps that broke an invariant of the crate (findings of the oracle,
/// kept as tests in `tests/oracle.rs`): [`decode`] makes them only when
/// asked to, so that a finding can be parked until it is fixed while the
/// runs go on finding what is new. Both are fixed; the test and the fuzz
/// target ask for [`Probes::ALL`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Probes {
    /// Raw updates of a key source that set and keep
    /// ([`Update::caller_keeps`]) only the first key derived from it
    /// ([`Keep::First`]); without it they keep every one ([`Keep::All`]).
    pub partial_keeps: bool,
    /// `update_entity` from a stale `old` (the state before another
    /// writer's change); without it `old` is the stored state.
    pub stale_update_entity: bool,
}

impl Probes {
    /// Every probe.
    pub const ALL: Probes = Probes {
        partial_keeps: true,
        stale_update_entity: true,
    };
    /// None of them.
    pub const NONE: Probes = Probes {
        partial_keeps: false,
        stale_update_entity: false,
    };
}

/// The steps `bytes` describe, at most `max_steps`, with the `probes`
/// asked for. Any bytes decode; the same bytes decode to the same steps
/// whatever the probes, but for the probes' own.
#[must_use]
pub fn decode(bytes: &[u8], max_steps: usize, probes: Probes) -> Vec<Step> {
    let mut b = Bytes {
        data: bytes,
        pos: 0,
        probes,
    };
    let mut steps = Vec::new();
    while !b.done() && steps.len() < max_steps {
        let step = if b.byte().is_multiple_of(2) {
            Step::Player(player_step(&mut b))
        } else {
            Step::Account(account_step(&mut b))
        };
        steps.push(step);
    }
    steps
}

// ------------------------------------------------------------------ the model

/// The version the model expects.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ver {
    /// No version attribute (written raw, or an unversioned table).
    Absent,
    Known(u64),
    /// A first version: unknown until read, above every version the key
    /// ever had.
    First,
}

/// What the store must hold at a key.
#[derive(Debug, Clone, PartialEq)]
struct Expected {
    /// The item, less its version attribute.
    item: Item,
    version: Ver,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Layout {
    Players,
    Accounts,
}

/// The states a key may be in after an unknown outcome.
type Candidates = Vec<Option<Expected>>;

/// What an update may have left at a key when the helper may write more
/// than it was asked to (`update_entity` from a stale `old`: the fields a
/// re-rendered key comes from, as `new` has them): the changes asked for
/// are stored, every other attribute is as `before` or as in `new`, and
/// the item is consistent (the scan checks that on its own).
#[derive(Debug, Clone)]
struct Loose {
    before: Item,
    new: Item,
    asked: Sets,
    /// The outcome is unknown: `before` untouched is fine too.
    or_unchanged: bool,
}

impl Loose {
    /// Why `found` is not a state the update may have left.
    fn check(&self, found: &Item) -> Outcome {
        if self.or_unchanged && *found == self.before {
            return Ok(());
        }
        let mut wrong = Vec::new();
        for (name, value) in &self.asked {
            if found.get(name) != value.as_ref() {
                wrong.push(format!(
                    "`{name}` is {:?}, the update set it to {value:?}",
                    found.get(name)
                ));
            }
        }
        let names: BTreeSet<&String> = found
            .keys()
            .chain(self.before.keys())
            .chain(self.new.keys())
            .collect();
        for name in names {
            let now = found.get(name);
            if now != self.before.get(name) && now != self.new.get(name) {
                wrong.push(format!(
                    "`{name}` is {now:?}, neither {:?} (before) nor {:?} (new)",
                    self.before.get(name),
                    self.new.get(name)
                ));
            }
        }
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(wrong.join("; "))
        }
    }
}

#[derive(Debug, Default)]
struct Model {
    players: BTreeMap<usize, Expected>,
    accounts: BTreeMap<usize, Expected>,
    /// Per account, the highest version it ever had.
    max_version: BTreeMap<usize, u64>,
    /// Keys whose outcome is unknown (`MaybeApplied`): the states the
    /// store may hold, settled by the next scan.
    pending: BTreeMap<(Layout, usize), Candidates>,
    /// Keys whose state is known only in part (see [`Loose`]), settled by
    /// the next scan.
    loose: BTreeMap<(Layout, usize), Loose>,
}

impl Model {
    fn layout(&mut self, layout: Layout) -> &mut BTreeMap<usize, Expected> {
        match layout {
            Layout::Players => &mut self.players,
            Layout::Accounts => &mut self.accounts,
        }
    }
}

/// What a helper reported.
#[derive(Debug, Clone)]
enum Got {
    Applied,
    Refused(ErrorKind, String),
    /// `MaybeApplied`, a timeout, or an incomplete batch.
    Unknown(ErrorKind, String),
}

fn got<T>(result: &dynamodb_mapper::Result<T>) -> Got {
    match result {
        Ok(_) => Got::Applied,
        Err(e) => {
            let kind = e.kind();
            let text = format!("{e:#}");
            if matches!(
                kind,
                ErrorKind::MaybeApplied
                    | ErrorKind::Timeout
                    | ErrorKind::BatchWriteIncomplete
                    | ErrorKind::BatchGetIncomplete
            ) {
                Got::Unknown(kind, text)
            } else {
                Got::Refused(kind, text)
            }
        }
    }
}

impl fmt::Display for Got {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Got::Applied => f.write_str("applied"),
            Got::Refused(kind, text) => write!(f, "refused {kind:?}: {text}"),
            Got::Unknown(kind, text) => write!(f, "unknown {kind:?}: {text}"),
        }
    }
}

/// What the model says a helper must report.
#[derive(Debug, Clone, Copy)]
enum Expect {
    Applied,
    Refused(&'static [ErrorKind]),
    /// Refused, whatever the kind (a mapping error).
    RefusedAny,
    /// Either; the scan judges.
    Any,
}

fn check_expect(what: &str, expect: Expect, got: &Got) -> Result<(), String> {
    let fine = match (expect, got) {
        (_, Got::Unknown(..)) | (Expect::Any, _) => true,
        (Expect::Applied, Got::Applied) => true,
        (Expect::Refused(kinds), Got::Refused(kind, _)) => kinds.contains(kind),
        (Expect::RefusedAny, Got::Refused(..)) => true,
        _ => false,
    };
    if fine {
        Ok(())
    } else {
        Err(format!(
            "{what}: the model expects {expect:?}, the helper reported {got}"
        ))
    }
}

/// What a run did, per operation: applied, refused, unknown, skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Per operation name, `[applied, refused, unknown, skipped]`.
    pub counts: BTreeMap<&'static str, [u32; 4]>,
}

impl Summary {
    fn add(&mut self, op: &'static str, got: Option<&Got>) {
        let slot = match got {
            Some(Got::Applied) => 0,
            Some(Got::Refused(..)) => 1,
            Some(Got::Unknown(..)) => 2,
            None => 3,
        };
        self.counts.entry(op).or_default()[slot] += 1;
    }

    /// Adds the counts of `other`.
    pub fn merge(&mut self, other: &Summary) {
        for (op, counts) in &other.counts {
            let mine = self.counts.entry(op).or_default();
            for (m, o) in mine.iter_mut().zip(counts) {
                *m += o;
            }
        }
    }

    /// How many times `op` was applied.
    #[must_use]
    pub fn applied(&self, op: &str) -> u32 {
        self.counts.get(op).map_or(0, |c| c[0])
    }

    /// How many times `op` was refused.
    #[must_use]
    pub fn refused(&self, op: &str) -> u32 {
        self.counts.get(op).map_or(0, |c| c[1])
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<28} {:>8} {:>8} {:>8} {:>8}",
            "operation", "applied", "refused", "unknown", "skipped"
        )?;
        for (op, [a, r, u, s]) in &self.counts {
            writeln!(f, "{op:<28} {a:>8} {r:>8} {u:>8} {s:>8}")?;
        }
        Ok(())
    }
}

/// An invariant the store or a helper broke, with the steps that led there.
#[derive(Debug, Clone)]
pub struct Violation {
    /// The index of the step after which it was seen.
    pub step: usize,
    /// What was wrong.
    pub message: String,
    /// Each step run, with what it reported.
    pub trace: Vec<String>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "invariant violated at step {}: {}",
            self.step, self.message
        )?;
        writeln!(f, "steps:")?;
        for line in &self.trace {
            writeln!(f, "  {line}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Violation {}

// ------------------------------------------------------------------ items

fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn sdk<E: std::error::Error>(what: &str, e: E) -> String {
    format!("{what} failed: {}", DisplayErrorContext(e))
}

/// The attributes of `item` the layout does not own.
fn bag_of(item: &Item, owned: &[&str]) -> Item {
    item.iter()
        .filter(|(k, _)| !owned.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `item` with `bag`'s attributes the layout does not own added (what a
/// record's write must store).
fn with_bag(mut item: Item, bag: &Item, owned: &[&str]) -> Item {
    for (k, v) in bag.iter() {
        if !owned.contains(&k.as_str()) && !item.contains_key(k) {
            item.insert(k.to_owned(), v.clone());
        }
    }
    item
}

/// Attribute changes: `Some` sets, `None` removes.
type Sets = Vec<(String, Option<AttributeValue>)>;

/// What turns `before` into `after`, attribute by attribute (the entities
/// here have no maps): `Some` sets, `None` removes.
fn diff(before: &Item, after: &Item) -> Sets {
    let mut out: Sets = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v))
        .map(|(k, v)| (k.clone(), Some(v.clone())))
        .collect();
    out.extend(
        before
            .keys()
            .filter(|k| !after.contains_key(*k))
            .map(|k| (k.clone(), None)),
    );
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn apply_sets(item: &mut Item, sets: &[(String, Option<AttributeValue>)]) {
    for (k, v) in sets {
        match v {
            Some(v) => {
                item.insert(k.clone(), v.clone());
            }
            None => {
                item.remove(k);
            }
        }
    }
}

fn update_of(sets: &[(String, Option<AttributeValue>)], keeps: &[&str]) -> Update {
    let mut update = Update::new();
    for (k, v) in sets {
        update = match v {
            Some(v) => update.set(Attr::top_level(k.as_str()), v.clone()),
            None => update.remove(Attr::top_level(k.as_str())),
        };
    }
    for k in keeps {
        update = update.caller_keeps(k);
    }
    update
}

fn number(item: &Item, attribute: &str) -> Option<i64> {
    match item.get(attribute) {
        Some(AttributeValue::N(v)) => v.parse().ok(),
        _ => None,
    }
}

fn describe(item: &Item) -> String {
    let sorted: BTreeMap<&String, &AttributeValue> = item.iter().collect();
    format!("{sorted:?}")
}

fn differences(a: &Item, b: &Item) -> String {
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| format!("`{k}`: {:?} vs {:?}", a.get(k), b.get(k)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Whether a versioned write of `record` passes its check against `stored`.
fn record_matches(record: &Record<Account>, stored: Option<&Expected>) -> bool {
    match (record.version, record.stored) {
        (Some(v), _) => stored.is_some_and(|m| m.version == Ver::Known(v)),
        (None, true) => stored.is_some_and(|m| m.version == Ver::Absent),
        (None, false) => stored.is_none(),
    }
}

fn player_index(id: &str) -> Option<usize> {
    PLAYER_IDS.iter().position(|p| *p == id)
}

fn account_index(id: &str) -> Option<usize> {
    ACCOUNT_IDS.iter().position(|p| *p == id)
}

fn player_key(id: usize) -> Result<Item, String> {
    PlayerMapper::key(&Player::base(id)).map_err(|e| format!("player key: {e:#}"))
}

fn account_key(id: usize) -> Result<Item, String> {
    AccountMapper::key(&Account::base(id)).map_err(|e| format!("account key: {e:#}"))
}

fn render_player(p: &Player) -> Option<Item> {
    PlayerMapper::to_item(p).ok()
}

/// Whether the oracle expects `to_item` to render `p`.
fn player_renders(p: &Player) -> bool {
    !p.status.is_empty() && p.score < 10_000_000_000
}

// ------------------------------------------------------------------ the driver

/// The driver: a client and the two tables it writes.
#[derive(Debug, Clone)]
pub struct Oracle {
    client: Client,
    players: Table,
    accounts: Table,
}

/// One run: the model, the records kept for stale writes, the trace.
struct Run<'a> {
    oracle: &'a Oracle,
    model: Model,
    /// Per account, records read or written, newest last (at most four).
    records: BTreeMap<usize, Vec<Record<Account>>>,
    summary: Summary,
    /// What the current step did, for the trace.
    notes: Vec<String>,
}

type Outcome = Result<(), String>;

impl Oracle {
    /// New tables (named after `prefix`) on `client`'s server.
    ///
    /// # Panics
    /// When a table cannot be created (the emulator is not there).
    pub async fn new(client: &Client, prefix: &str) -> Oracle {
        let players = crate::local::new_table(client, &format!("{prefix}-players"), PLAYERS).await;
        let accounts =
            crate::local::new_table(client, &format!("{prefix}-accounts"), ACCOUNTS).await;
        Oracle {
            client: client.clone(),
            players: Table::new(client, players, PLAYERS),
            accounts: Table::new(client, accounts, ACCOUNTS),
        }
    }

    fn table(&self, layout: Layout) -> &Table {
        match layout {
            Layout::Players => &self.players,
            Layout::Accounts => &self.accounts,
        }
    }

    async fn scan(&self, layout: Layout) -> Result<Vec<Item>, String> {
        let mut pages = self
            .client
            .scan()
            .table_name(self.table(layout).name())
            .consistent_read(true)
            .into_paginator()
            .send();
        let mut items = Vec::new();
        while let Some(page) = pages.next().await {
            let page = page.map_err(|e| sdk("Scan", e))?;
            items.extend(page.items.unwrap_or_default());
        }
        Ok(items)
    }

    /// Deletes every item of both tables.
    ///
    /// # Errors
    /// The emulator's, as text.
    pub async fn reset(&self) -> Result<(), String> {
        for layout in [Layout::Players, Layout::Accounts] {
            let schema = self.table(layout).schema();
            for item in self.scan(layout).await? {
                let key = schema.key_of(&item).map_err(|e| format!("{e:#}"))?;
                self.client
                    .delete_item()
                    .table_name(self.table(layout).name())
                    .set_key(Some(key))
                    .send()
                    .await
                    .map_err(|e| sdk("DeleteItem", e))?;
            }
        }
        Ok(())
    }

    /// Empties the tables, then runs `steps`, checking the invariants after
    /// each.
    ///
    /// # Errors
    /// The first violation, with the steps run and what each reported.
    pub async fn run(&self, steps: &[Step]) -> Result<Summary, Violation> {
        let mut trace = Vec::new();
        if let Err(message) = self.reset().await {
            return Err(Violation {
                step: 0,
                message: format!("emulator: {message}"),
                trace,
            });
        }
        let mut run = Run {
            oracle: self,
            model: Model::default(),
            records: BTreeMap::new(),
            summary: Summary::default(),
            notes: Vec::new(),
        };
        for (i, step) in steps.iter().enumerate() {
            run.notes.clear();
            let result = run.step(step).await;
            trace.push(format!("{i:>3}: {step:?} => {}", run.notes.join("; ")));
            let layout = match step {
                Step::Player(_) => Layout::Players,
                Step::Account(_) => Layout::Accounts,
            };
            let result = match result {
                Ok(()) => run.check(layout).await,
                Err(e) => Err(e),
            };
            if let Err(message) = result {
                return Err(Violation {
                    step: i,
                    message,
                    trace,
                });
            }
        }
        Ok(run.summary)
    }
}

impl Run<'_> {
    fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }

    /// Records what `op` reported and checks it against `expect`.
    fn report(&mut self, op: &'static str, expect: Expect, got: &Got) -> Outcome {
        self.summary.add(op, Some(got));
        self.note(format!("{op}: {got}"));
        check_expect(op, expect, got)
    }

    fn skip(&mut self, op: &'static str, why: &str) {
        self.summary.add(op, None);
        self.note(format!("{op}: skipped ({why})"));
    }

    /// Marks `ids` of `layout` as either `before` or `after`, for the next
    /// scan to settle.
    fn unknown(&mut self, layout: Layout, changes: Vec<(usize, Option<Expected>)>) {
        for (id, after) in changes {
            let before = self.model.layout(layout).get(&id).cloned();
            self.model
                .pending
                .entry((layout, id))
                .or_insert_with(|| vec![before])
                .push(after);
        }
    }

    /// Sets the model of `ids` to `after`, as reported by `got`: applied,
    /// refused (nothing changes), or unknown.
    fn settle(&mut self, layout: Layout, got: &Got, changes: Vec<(usize, Option<Expected>)>) {
        match got {
            Got::Applied => {
                let map = self.model.layout(layout);
                for (id, after) in changes {
                    match after {
                        Some(e) => {
                            map.insert(id, e);
                        }
                        None => {
                            map.remove(&id);
                        }
                    }
                }
            }
            Got::Refused(..) => {}
            Got::Unknown(..) => self.unknown(layout, changes),
        }
    }

    async fn step(&mut self, step: &Step) -> Outcome {
        match step {
            Step::Player(s) => self.player(s).await,
            Step::Account(s) => self.account(s).await,
        }
    }

    // -------------------------------------------------------------- players

    fn player_now(&self, id: usize) -> Result<Option<Player>, String> {
        self.model
            .players
            .get(&id)
            .map(|e| PlayerMapper::from_item(e.item.clone()))
            .transpose()
            .map_err(|e| format!("the model's player does not decode: {e:#}"))
    }

    fn player_expected(p: &Player, bag: &Item) -> Option<Expected> {
        let mut item = render_player(p)?;
        for (k, v) in bag {
            item.entry(k.clone()).or_insert_with(|| v.clone());
        }
        Some(Expected {
            item,
            version: Ver::Absent,
        })
    }

    async fn player(&mut self, step: &PlayerStep) -> Outcome {
        let table = self.oracle.players.clone();
        match step {
            PlayerStep::RawPut(spec) => {
                let p = spec.entity();
                match PlayerMapper::to_item(&p) {
                    Err(e) => {
                        let got = got::<()>(&Err(e));
                        let expect = if player_renders(&p) {
                            Expect::Applied
                        } else {
                            Expect::RefusedAny
                        };
                        self.report("player.to_item+PutItem", expect, &got)
                    }
                    Ok(item) => {
                        if !player_renders(&p) {
                            return Err(format!("to_item rendered {p:?}, which renders no key"));
                        }
                        self.oracle
                            .client
                            .put_item()
                            .table_name(table.name())
                            .set_item(Some(item.clone()))
                            .send()
                            .await
                            .map_err(|e| sdk("PutItem of a mapped item", e))?;
                        let got = Got::Applied;
                        self.report("player.to_item+PutItem", Expect::Applied, &got)?;
                        let after = Expected {
                            item,
                            version: Ver::Absent,
                        };
                        self.settle(Layout::Players, &got, vec![(spec.id, Some(after))]);
                        Ok(())
                    }
                }
            }
            PlayerStep::PutIfAbsent(spec) => {
                let p = spec.entity();
                let absent = !self.model.players.contains_key(&spec.id);
                let r = table.put_new::<PlayerMapper>(&p).await;
                let g = got(&r);
                let expect = if player_renders(&p) {
                    Expect::Applied
                } else {
                    Expect::RefusedAny
                };
                self.report("player.put_new", expect, &g)?;
                if let Ok(written) = r {
                    if written != absent {
                        return Err(format!(
                            "put_new returned {written}, the model says absent = {absent}"
                        ));
                    }
                    if written {
                        let after = Self::player_expected(&p, &Item::new());
                        self.settle(Layout::Players, &g, vec![(spec.id, after)]);
                    }
                } else {
                    let after = Self::player_expected(&p, &Item::new());
                    self.settle(Layout::Players, &g, vec![(spec.id, after)]);
                }
                Ok(())
            }
            PlayerStep::UpdateEntity { id, changes, stale } => {
                // A fresh `old` is the stored state; a stale one is what a
                // writer read before another changed it (`stale` undoes
                // that change), and `new` is built on it.
                let from = self.player_now(*id)?.unwrap_or_else(|| Player::base(*id));
                let old = from.with(stale);
                let new = old.clone().with(changes);
                let r = table.update_entity::<PlayerMapper>(&old, &new).await;
                let g = got(&r);
                let op = if stale.is_empty() {
                    "player.update_entity"
                } else {
                    "player.update_entity(stale old)"
                };
                let (Some(before), Some(after)) = (render_player(&old), render_player(&new)) else {
                    return self.report(op, Expect::RefusedAny, &g);
                };
                let sets = diff(&before, &after);
                let present = self.model.players.get(id).cloned();
                let expect = match (&present, sets.is_empty()) {
                    (_, true) | (Some(_), false) if stale.is_empty() => Expect::Applied,
                    (None, false) if stale.is_empty() => Expect::Refused(&[ErrorKind::NotFound]),
                    // From a stale `old`, nothing is certain but that an
                    // update of a missing item is refused: the helper may
                    // write the sources of the keys it renders again, or
                    // refuse the stale state.
                    (_, true) => Expect::Applied,
                    (Some(_), false) => Expect::Any,
                    (None, false) => Expect::RefusedAny,
                };
                self.report(op, expect, &g)?;
                if let Some(mut e) = present
                    && !sets.is_empty()
                {
                    if stale.is_empty() {
                        apply_sets(&mut e.item, &sets);
                        self.settle(Layout::Players, &g, vec![(*id, Some(e))]);
                    } else if !matches!(g, Got::Refused(..)) {
                        let loose = Loose {
                            before: e.item,
                            new: after,
                            asked: sets,
                            or_unchanged: matches!(g, Got::Unknown(..)),
                        };
                        self.model.loose.insert((Layout::Players, *id), loose);
                    }
                }
                Ok(())
            }
            PlayerStep::Increment { id, counter, by } => {
                self.player_increment(&table, *id, *counter, *by).await
            }
            PlayerStep::Tx(actions) => self.player_tx(&table, actions).await,
            PlayerStep::BatchPut(specs) => {
                let entities: Vec<Player> = specs.iter().map(PlayerSpec::entity).collect();
                let r = table.batch_writer().put::<PlayerMapper>(&entities).await;
                let g = got(&r);
                let ids: BTreeSet<usize> = specs.iter().map(|s| s.id).collect();
                let expect = if !entities.iter().all(player_renders) {
                    Expect::RefusedAny
                } else if ids.len() < specs.len() {
                    Expect::Refused(&[ErrorKind::DuplicateKey])
                } else {
                    Expect::Applied
                };
                self.report("player.batch_writer.put", expect, &g)?;
                let changes = specs
                    .iter()
                    .zip(&entities)
                    .map(|(s, p)| (s.id, Self::player_expected(p, &Item::new())))
                    .collect();
                self.settle(Layout::Players, &g, changes);
                Ok(())
            }
            PlayerStep::BatchDelete(ids) => {
                let mut entities = Vec::new();
                for id in ids {
                    entities.push(self.player_now(*id)?.unwrap_or_else(|| Player::base(*id)));
                }
                let keys = entities.iter().map(PlayerMapper::key).collect();
                let r = match keys {
                    Ok(keys) => table.batch_writer().delete::<PlayerMapper>(keys).await,
                    Err(e) => Err(e),
                };
                let g = got(&r);
                let unique: BTreeSet<usize> = ids.iter().copied().collect();
                let expect = if unique.len() < ids.len() {
                    Expect::Refused(&[ErrorKind::DuplicateKey])
                } else {
                    Expect::Applied
                };
                self.report("player.batch_writer.delete", expect, &g)?;
                let changes = ids.iter().map(|id| (*id, None)).collect();
                self.settle(Layout::Players, &g, changes);
                Ok(())
            }
            PlayerStep::RawDelete(id) => {
                self.oracle
                    .client
                    .delete_item()
                    .table_name(table.name())
                    .set_key(Some(player_key(*id)?))
                    .send()
                    .await
                    .map_err(|e| sdk("DeleteItem", e))?;
                let g = Got::Applied;
                self.report("player.DeleteItem", Expect::Applied, &g)?;
                self.settle(Layout::Players, &g, vec![(*id, None)]);
                Ok(())
            }
        }
    }

    async fn player_increment(
        &mut self,
        table: &Table,
        id: usize,
        counter: PlayerCounter,
        by: i64,
    ) -> Outcome {
        let attribute = match counter {
            PlayerCounter::Wins => "wins",
            PlayerCounter::Rank => "rank",
            PlayerCounter::Score => "score",
            PlayerCounter::Status => "status",
            PlayerCounter::Note => "note",
            PlayerCounter::Pk => "pk",
            PlayerCounter::EntityType => "entityType",
        };
        let refused_before_sending = matches!(
            counter,
            PlayerCounter::Score
                | PlayerCounter::Status
                | PlayerCounter::Pk
                | PlayerCounter::EntityType
        );
        let op = if refused_before_sending {
            "player.increment(key source)"
        } else {
            "player.increment"
        };
        let stored = self.model.players.get(&id).cloned();
        if stored.is_none() && !refused_before_sending {
            // An increment creates a missing item with the counter and the
            // key only, which the mapper cannot read: not a player's way.
            self.skip(op, "no item: it would create a partial one");
            return Ok(());
        }
        let r = table
            .increment::<PlayerMapper>(player_key(id)?, attribute, by)
            .await;
        let g = got(&r);
        let sum = stored
            .as_ref()
            .and_then(|s| number(&s.item, attribute))
            .and_then(|v| v.checked_add(by));
        let expect = match counter {
            _ if refused_before_sending => Expect::Refused(&[ErrorKind::InvalidValue]),
            PlayerCounter::Note => Expect::Refused(&[ErrorKind::InvalidValue]),
            _ if sum.is_none() => Expect::Refused(&[ErrorKind::InvalidValue]),
            // `rank` is a key attribute of `ByTeam` as it is: no key is
            // rendered from it, so counting it keeps the index right; the
            // gate may still keep it for the typed paths.
            PlayerCounter::Rank => Expect::Any,
            _ => Expect::Applied,
        };
        self.report(op, expect, &g)?;
        match (&r, stored, sum) {
            (Ok(value), _, Some(sum)) if *value != sum => Err(format!(
                "increment of `{attribute}` by {by} returned {value}, the model says {sum}"
            )),
            (Ok(value), _, None) => Err(format!(
                "increment of `{attribute}` by {by} returned {value}, the model expected a refusal"
            )),
            (_, Some(mut after), Some(sum)) => {
                after.item.insert(attribute.to_owned(), n(sum));
                self.settle(Layout::Players, &g, vec![(id, Some(after))]);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The raw update of a player, whether the gate must refuse it, and
    /// the item it leaves when applied to `stored`.
    fn raw_player_update(
        &self,
        id: usize,
        raw: &RawPlayerUpdate,
    ) -> Result<(Update, Expect, Sets), String> {
        let plain = |name: &str, v: Option<AttributeValue>| {
            let sets = vec![(name.to_owned(), v)];
            (update_of(&sets, &[]), Expect::Applied, sets)
        };
        Ok(match raw {
            RawPlayerUpdate::Note(v) => plain("note", Some(AttributeValue::S(v.clone()))),
            RawPlayerUpdate::Rank(v) => {
                let (u, _, s) = plain("rank", Some(n(v)));
                (u, Expect::Any, s)
            }
            RawPlayerUpdate::ExpiresAt(v) => plain("expires_at", Some(n(v))),
            RawPlayerUpdate::SetAudit(v) => plain("audit", Some(bag_value(*v))),
            RawPlayerUpdate::RemoveAudit => plain("audit", None),
            RawPlayerUpdate::Forbidden(name) => {
                let sets = vec![((*name).to_owned(), Some(AttributeValue::S("BOGUS".into())))];
                (
                    update_of(&sets, &[]),
                    Expect::Refused(&[ErrorKind::InvalidValue]),
                    sets,
                )
            }
            RawPlayerUpdate::Source { change, keep } => {
                let from = self.player_now(id)?.unwrap_or_else(|| Player::base(id));
                let to = from.clone().with(std::slice::from_ref(change));
                let (Some(before), Some(after)) = (render_player(&from), render_player(&to)) else {
                    return Err(format!(
                        "a key source change that renders no key: {change:?}"
                    ));
                };
                let field = match change {
                    PlayerChange::Status(_) => "status",
                    PlayerChange::Score(_) => "score",
                    PlayerChange::Region(_) => "region",
                    _ => "team",
                };
                let mut sets = vec![(field.to_owned(), after.get(field).cloned())];
                let derived: Vec<&str> = PLAYER_DERIVED
                    .iter()
                    .filter(|(_, sources)| sources.contains(&field))
                    .map(|(d, _)| *d)
                    .collect();
                let (kept, expect): (Vec<&str>, Expect) = match keep {
                    Keep::Nothing => (Vec::new(), Expect::Refused(&[ErrorKind::InvalidValue])),
                    // Refused when the field feeds another key too.
                    Keep::First if derived.len() > 1 => (
                        derived.iter().take(1).copied().collect(),
                        Expect::Refused(&[ErrorKind::InvalidValue]),
                    ),
                    Keep::First => (derived.clone(), Expect::Applied),
                    Keep::All => (derived.clone(), Expect::Applied),
                };
                for d in &kept {
                    if before.get(*d) != after.get(*d) {
                        sets.push(((*d).to_owned(), after.get(*d).cloned()));
                    }
                }
                (update_of(&sets, &kept), expect, sets)
            }
        })
    }

    async fn player_tx(&mut self, table: &Table, actions: &[PlayerTxAction]) -> Outcome {
        /// What an action does to the model if the transaction goes
        /// through, and the condition it carries.
        enum Effect {
            Put(Option<Expected>),
            Update(Sets),
            Check,
        }
        let mut tx = table.transaction();
        let mut effects: Vec<(usize, Effect, bool)> = Vec::new();
        let mut pushed: BTreeSet<usize> = BTreeSet::new();
        for action in actions {
            let before = tx.actions().len();
            // The transaction with the action added, when it was accepted.
            let mut next: Option<Transaction> = None;
            let id = match action {
                PlayerTxAction::Put(s) | PlayerTxAction::PutNew(s) => s.id,
                PlayerTxAction::Delete(id)
                | PlayerTxAction::UpdateEntity { id, .. }
                | PlayerTxAction::Raw { id, .. }
                | PlayerTxAction::Check { id, .. } => *id,
            };
            let present = self.model.players.contains_key(&id);
            let dup = pushed.contains(&id);
            let dup_or = |e: Expect| match (dup, e) {
                (false, e) => e,
                // The gate may refuse it first.
                (true, Expect::Any) => {
                    Expect::Refused(&[ErrorKind::DuplicateKey, ErrorKind::InvalidValue])
                }
                (true, _) => Expect::Refused(&[ErrorKind::DuplicateKey]),
            };
            let (op, r, expect, effect): (&'static str, dynamodb_mapper::Result<()>, Expect, _) =
                match action {
                    PlayerTxAction::Put(s) => {
                        let p = s.entity();
                        let r = added(&mut next, tx.clone().put::<PlayerMapper>(&p));
                        let expect = if player_renders(&p) {
                            dup_or(Expect::Applied)
                        } else {
                            Expect::RefusedAny
                        };
                        let e = Effect::Put(Self::player_expected(&p, &Item::new()));
                        ("player.tx.put", r, expect, (e, true))
                    }
                    PlayerTxAction::PutNew(s) => {
                        let p = s.entity();
                        let r = added(&mut next, tx.clone().put_new::<PlayerMapper>(&p));
                        let expect = if player_renders(&p) {
                            dup_or(Expect::Applied)
                        } else {
                            Expect::RefusedAny
                        };
                        let e = Effect::Put(Self::player_expected(&p, &Item::new()));
                        ("player.tx.put_new", r, expect, (e, !present))
                    }
                    PlayerTxAction::Delete(id) => {
                        let r = added(
                            &mut next,
                            tx.clone().delete::<PlayerMapper>(player_key(*id)?),
                        );
                        (
                            "player.tx.delete",
                            r,
                            dup_or(Expect::Applied),
                            (Effect::Put(None), true),
                        )
                    }
                    PlayerTxAction::UpdateEntity { id, changes } => {
                        let from = self.player_now(*id)?.unwrap_or_else(|| Player::base(*id));
                        let new = from.clone().with(changes);
                        let r = added(
                            &mut next,
                            tx.clone().update_entity::<PlayerMapper>(&from, &new),
                        );
                        match (render_player(&from), render_player(&new)) {
                            (Some(a), Some(b)) => {
                                let sets = diff(&a, &b);
                                let expect = if sets.is_empty() {
                                    Expect::Applied
                                } else {
                                    dup_or(Expect::Applied)
                                };
                                (
                                    "player.tx.update_entity",
                                    r,
                                    expect,
                                    (Effect::Update(sets), present),
                                )
                            }
                            _ => (
                                "player.tx.update_entity",
                                r,
                                Expect::RefusedAny,
                                (Effect::Check, true),
                            ),
                        }
                    }
                    PlayerTxAction::Raw { id, update } => {
                        let (u, expect, sets) = self.raw_player_update(*id, update)?;
                        let r = added(
                            &mut next,
                            tx.clone().update::<PlayerMapper>(player_key(*id)?, u),
                        );
                        let expect = match expect {
                            Expect::Refused(k) => Expect::Refused(k),
                            other => dup_or(other),
                        };
                        let op = match update {
                            RawPlayerUpdate::Source {
                                keep: Keep::Nothing,
                                ..
                            } => "player.tx.update(key source)",
                            RawPlayerUpdate::Source {
                                keep: Keep::First, ..
                            } => "player.tx.update(key source, keeps one)",
                            RawPlayerUpdate::Source {
                                keep: Keep::All, ..
                            } => "player.tx.update(key source, keeps all)",
                            RawPlayerUpdate::Forbidden(_) => "player.tx.update(derived/key)",
                            _ => "player.tx.update",
                        };
                        (op, r, expect, (Effect::Update(sets), present))
                    }
                    PlayerTxAction::Check { id, exists } => {
                        let pk = Attr::top_level("pk");
                        let condition = if *exists {
                            pk.exists()
                        } else {
                            pk.not_exists()
                        };
                        let r = added(
                            &mut next,
                            tx.clone()
                                .condition_check::<PlayerMapper>(player_key(*id)?, condition),
                        );
                        (
                            "player.tx.condition_check",
                            r,
                            dup_or(Expect::Applied),
                            (Effect::Check, present == *exists),
                        )
                    }
                };
            let g = got(&r);
            self.report(op, expect, &g)?;
            // A refused action hands no transaction back: the one before it
            // is kept as it was.
            if let Some(added) = next {
                tx = added;
            }
            if tx.actions().len() > before {
                pushed.insert(id);
                effects.push((id, effect.0, effect.1));
            }
        }
        let r = tx.send().await;
        let g = got(&r);
        let holds = effects.iter().all(|(_, _, holds)| *holds);
        let expect = if holds {
            Expect::Applied
        } else {
            Expect::Refused(&[ErrorKind::TransactionCanceled])
        };
        self.report("player.tx.send", expect, &g)?;
        let mut changes = Vec::new();
        for (id, effect, _) in effects {
            match effect {
                Effect::Put(after) => changes.push((id, after)),
                Effect::Update(sets) => {
                    if let Some(mut e) = self.model.players.get(&id).cloned() {
                        apply_sets(&mut e.item, &sets);
                        changes.push((id, Some(e)));
                    }
                }
                Effect::Check => {}
            }
        }
        self.settle(Layout::Players, &g, changes);
        Ok(())
    }

    // -------------------------------------------------------------- accounts

    fn account_now(&self, id: usize) -> Result<Option<(Account, Item)>, String> {
        match self.model.accounts.get(&id) {
            None => Ok(None),
            Some(e) => {
                let account = AccountMapper::from_item(e.item.clone())
                    .map_err(|e| format!("the model's account does not decode: {e:#}"))?;
                Ok(Some((account, bag_of(&e.item, ACCOUNT_OWNED))))
            }
        }
    }

    fn account_expected(a: &Account, bag: &Item, version: Ver) -> Result<Expected, String> {
        let item = AccountMapper::to_item(a).map_err(|e| format!("account to_item: {e:#}"))?;
        Ok(Expected {
            item: with_bag(item, bag, ACCOUNT_OWNED),
            version,
        })
    }

    fn remember(&mut self, id: usize, record: &Record<Account>) {
        let kept = self.records.entry(id).or_default();
        kept.push(record.clone());
        if kept.len() > 4 {
            kept.remove(0);
        }
    }

    /// `get_record`, checked against the model.
    async fn read_account(&mut self, id: usize) -> Result<Option<Record<Account>>, String> {
        let read = self
            .oracle
            .accounts
            .get_record::<AccountMapper>(account_key(id)?)
            .await
            .map_err(|e| format!("get_record failed: {e:#}"))?;
        let model = self.model.accounts.get(&id).cloned();
        match (&read, &model) {
            (None, None) => {}
            (Some(r), Some(m)) => {
                let item = with_bag(
                    AccountMapper::to_item(&r.entity).map_err(|e| format!("{e:#}"))?,
                    &r.bag,
                    ACCOUNT_OWNED,
                );
                if item != m.item || r.bag.len() != bag_of(&m.item, ACCOUNT_OWNED).len() {
                    return Err(format!(
                        "get_record of {} read {r:?}; the model holds {}",
                        ACCOUNT_IDS[id],
                        describe(&m.item)
                    ));
                }
                let version_ok = match m.version {
                    Ver::Absent => r.version.is_none(),
                    Ver::Known(v) => r.version == Some(v),
                    Ver::First => r.version.is_some(),
                };
                if !version_ok || !r.stored || r.projection().is_some() {
                    return Err(format!(
                        "get_record of {} read version {:?} (stored {}), the model says {:?}",
                        ACCOUNT_IDS[id], r.version, r.stored, m.version
                    ));
                }
            }
            _ => {
                return Err(format!(
                    "get_record of {} read {read:?}; the model holds {model:?}",
                    ACCOUNT_IDS[id]
                ));
            }
        }
        if let Some(r) = &read {
            self.remember(id, r);
        }
        Ok(read)
    }

    async fn record_of(
        &mut self,
        source: &RecordSource,
    ) -> Result<(usize, Record<Account>), String> {
        match source {
            RecordSource::Fresh(id) => {
                let read = self.read_account(*id).await?;
                Ok((*id, read.unwrap_or_else(|| Record::new(Account::base(*id)))))
            }
            RecordSource::Cached { id, age } => {
                let kept = self.records.get(id).map(Vec::as_slice).unwrap_or_default();
                if kept.is_empty() {
                    let read = self.read_account(*id).await?;
                    return Ok((*id, read.unwrap_or_else(|| Record::new(Account::base(*id)))));
                }
                let pick = kept.len() - 1 - (age % kept.len());
                Ok((*id, kept[pick].clone()))
            }
            RecordSource::New(spec) => Ok((spec.id, Record::new(spec.entity()))),
        }
    }

    /// Checks the version a versioned write of a record at `prior` returned.
    fn check_next(&self, id: usize, prior: Option<u64>, next: u64) -> Outcome {
        match prior {
            Some(v) if next != v.saturating_add(1) => Err(format!(
                "a write of {} at version {v} returned version {next}, not {}",
                ACCOUNT_IDS[id],
                v.saturating_add(1)
            )),
            None => {
                let max = self.model.max_version.get(&id).copied().unwrap_or(0);
                if next > max {
                    Ok(())
                } else {
                    Err(format!(
                        "a first version {next} of {} is not above {max}, a version it had before \
                         (versions repeat across incarnations)",
                        ACCOUNT_IDS[id]
                    ))
                }
            }
            Some(_) => Ok(()),
        }
    }

    async fn account(&mut self, step: &AccountStep) -> Outcome {
        let table = self.oracle.accounts.clone();
        match step {
            AccountStep::RawPut { spec, bag } => {
                let a = spec.entity();
                let mut record_bag = Item::new();
                apply_bag(&mut record_bag, bag);
                let after = Self::account_expected(&a, &record_bag, Ver::Absent)?;
                self.oracle
                    .client
                    .put_item()
                    .table_name(table.name())
                    .set_item(Some(after.item.clone()))
                    .send()
                    .await
                    .map_err(|e| sdk("PutItem", e))?;
                let g = Got::Applied;
                self.report("account.PutItem(with bag)", Expect::Applied, &g)?;
                self.settle(Layout::Accounts, &g, vec![(spec.id, Some(after))]);
                Ok(())
            }
            AccountStep::PutVersioned {
                source,
                changes,
                bag,
            } => {
                let (id, mut record) = self.record_of(source).await?;
                record.entity.apply(changes);
                apply_bag(&mut record.bag, bag);
                let prior = record.version;
                let stored = self.model.accounts.get(&id).cloned();
                let expect = if record_matches(&record, stored.as_ref()) {
                    Expect::Applied
                } else {
                    Expect::Refused(&[ErrorKind::VersionConflict])
                };
                let r = table.put_record::<AccountMapper>(&mut record).await;
                let g = got(&r);
                self.report("account.put_record", expect, &g)?;
                let after = match &r {
                    Ok(next) => {
                        self.check_next(id, prior, *next)?;
                        if record.version != Some(*next) {
                            return Err(format!(
                                "put_record returned {next}, the record holds {:?}",
                                record.version
                            ));
                        }
                        self.remember(id, &record);
                        Ver::Known(*next)
                    }
                    Err(_) => Ver::First,
                };
                let after = Self::account_expected(&record.entity, &record.bag, after)?;
                self.settle(Layout::Accounts, &g, vec![(id, Some(after))]);
                Ok(())
            }
            AccountStep::PutIfAbsent(spec) => {
                let a = spec.entity();
                let absent = !self.model.accounts.contains_key(&spec.id);
                let r = table.put_new::<AccountMapper>(&a).await;
                let g = got(&r);
                self.report("account.put_new", Expect::Applied, &g)?;
                if let Ok(written) = r
                    && written != absent
                {
                    return Err(format!(
                        "put_new returned {written}, the model says absent = {absent}"
                    ));
                }
                if !matches!(r, Ok(false)) {
                    let after = Self::account_expected(&a, &Item::new(), Ver::First)?;
                    self.settle(Layout::Accounts, &g, vec![(spec.id, Some(after))]);
                }
                Ok(())
            }
            AccountStep::UpdateVersioned { source, changes } => {
                let (id, mut record) = self.record_of(source).await?;
                let new = record.entity.clone().with(changes);
                let before =
                    AccountMapper::to_item(&record.entity).map_err(|e| format!("{e:#}"))?;
                let after = AccountMapper::to_item(&new).map_err(|e| format!("{e:#}"))?;
                let sets = diff(&before, &after);
                let prior = record.version;
                let stored = self.model.accounts.get(&id).cloned();
                let no_op = sets.is_empty() && prior.is_some();
                let expect = if !no_op && !record.stored && prior.is_none() {
                    Expect::Refused(&[ErrorKind::InvalidValue])
                } else if record_matches(&record, stored.as_ref()) {
                    Expect::Applied
                } else {
                    Expect::Refused(&[ErrorKind::VersionConflict])
                };
                let r = table
                    .update_record::<AccountMapper>(&mut record, new.clone())
                    .await;
                let g = got(&r);
                self.report(
                    if no_op {
                        "account.update_record(no change)"
                    } else {
                        "account.update_record"
                    },
                    expect,
                    &g,
                )?;
                if let Ok(next) = &r {
                    if no_op {
                        if Some(*next) != prior {
                            return Err(format!(
                                "a no-op update_record at {prior:?} returned {next}"
                            ));
                        }
                    } else {
                        self.check_next(id, prior, *next)?;
                    }
                    if record.entity != new || record.version != Some(*next) {
                        return Err(format!(
                            "update_record returned {next}; the record holds {record:?}"
                        ));
                    }
                    self.remember(id, &record);
                }
                if let Some(mut e) = stored
                    && !no_op
                {
                    apply_sets(&mut e.item, &sets);
                    e.version = match &r {
                        Ok(next) => Ver::Known(*next),
                        Err(_) => Ver::First,
                    };
                    self.settle(Layout::Accounts, &g, vec![(id, Some(e))]);
                }
                Ok(())
            }
            AccountStep::UpdateWithRetry {
                id,
                changes,
                bag,
                move_key,
            } => {
                let id = *id;
                let stored = self.model.accounts.get(&id).cloned();
                let now = self.account_now(id)?;
                let r = table
                    .update_with_retry::<AccountMapper, _>(account_key(id)?, |record| {
                        record.entity.apply(changes);
                        apply_bag(&mut record.bag, bag);
                        if *move_key {
                            record.entity.id = ACCOUNT_IDS[(id + 1) % ACCOUNT_IDS.len()].to_owned();
                        }
                        Ok(())
                    })
                    .await;
                let g = got(&r);
                let expect = match (&now, *move_key) {
                    (None, _) => Expect::Refused(&[ErrorKind::NotFound]),
                    (Some(_), true) => Expect::Refused(&[ErrorKind::InvalidKey]),
                    (Some(_), false) => Expect::Applied,
                };
                self.report("account.update_with_retry", expect, &g)?;
                let (Some((account, stored_bag)), Some(stored)) = (now, stored) else {
                    return Ok(());
                };
                let entity = account.with(changes);
                let mut new_bag = stored_bag;
                apply_bag(&mut new_bag, bag);
                let after = match &r {
                    Ok(record) => {
                        let prior = match stored.version {
                            Ver::Known(v) => Some(v),
                            _ => None,
                        };
                        let next = record.version.unwrap_or(0);
                        self.check_next(id, prior, next)?;
                        if record.entity != entity
                            || bag_of(&record.bag, ACCOUNT_OWNED) != bag_of(&new_bag, ACCOUNT_OWNED)
                        {
                            return Err(format!(
                                "update_with_retry returned {record:?}; the model expects {entity:?} \
                                 with bag {new_bag:?}"
                            ));
                        }
                        self.remember(id, record);
                        Ver::Known(next)
                    }
                    Err(_) => Ver::First,
                };
                let after = Self::account_expected(&entity, &new_bag, after)?;
                self.settle(Layout::Accounts, &g, vec![(id, Some(after))]);
                Ok(())
            }
            AccountStep::UpdateEntity { id, changes } => {
                let from = self
                    .account_now(*id)?
                    .map_or_else(|| Account::base(*id), |(a, _)| a);
                let new = from.clone().with(changes);
                let r = table.update_entity::<AccountMapper>(&from, &new).await;
                let g = got(&r);
                self.report(
                    "account.update_entity",
                    Expect::Refused(&[ErrorKind::VersionCheckRequired]),
                    &g,
                )
            }
            AccountStep::Increment { id, counter, by } => {
                self.account_increment(&table, *id, *counter, *by).await
            }
            AccountStep::Tx(actions) => self.account_tx(&table, actions).await,
            AccountStep::Batch {
                puts,
                deletes,
                import,
            } => {
                let writer = if *import {
                    table.batch_writer().import()
                } else {
                    table.batch_writer()
                };
                if !puts.is_empty() {
                    let entities: Vec<Account> = puts.iter().map(AccountSpec::entity).collect();
                    let r = writer.put::<AccountMapper>(&entities).await;
                    let g = got(&r);
                    let ids: BTreeSet<usize> = puts.iter().map(|s| s.id).collect();
                    let expect = if !import {
                        Expect::Refused(&[ErrorKind::VersionCheckRequired])
                    } else if ids.len() < puts.len() {
                        Expect::Refused(&[ErrorKind::DuplicateKey])
                    } else {
                        Expect::Applied
                    };
                    let op = if *import {
                        "account.batch_writer.import.put"
                    } else {
                        "account.batch_writer.put"
                    };
                    self.report(op, expect, &g)?;
                    let mut changes = Vec::new();
                    for (s, a) in puts.iter().zip(&entities) {
                        let after = Self::account_expected(a, &Item::new(), Ver::First)?;
                        changes.push((s.id, Some(after)));
                    }
                    self.settle(Layout::Accounts, &g, changes);
                }
                if !deletes.is_empty() {
                    let entities: Vec<Account> =
                        deletes.iter().map(|id| Account::base(*id)).collect();
                    let keys = entities.iter().map(AccountMapper::key).collect();
                    let r = match keys {
                        Ok(keys) => writer.delete::<AccountMapper>(keys).await,
                        Err(e) => Err(e),
                    };
                    let g = got(&r);
                    let ids: BTreeSet<usize> = deletes.iter().copied().collect();
                    let expect = if !import {
                        Expect::Refused(&[ErrorKind::VersionCheckRequired])
                    } else if ids.len() < deletes.len() {
                        Expect::Refused(&[ErrorKind::DuplicateKey])
                    } else {
                        Expect::Applied
                    };
                    let op = if *import {
                        "account.batch_writer.import.delete"
                    } else {
                        "account.batch_writer.delete"
                    };
                    self.report(op, expect, &g)?;
                    let changes = deletes.iter().map(|id| (*id, None)).collect();
                    self.settle(Layout::Accounts, &g, changes);
                }
                Ok(())
            }
            AccountStep::DeleteVersioned(source) => {
                let (id, record) = self.record_of(source).await?;
                let stored = self.model.accounts.get(&id).cloned();
                let expect = if !record.stored && record.version.is_none() {
                    Expect::Refused(&[ErrorKind::InvalidValue])
                } else if record_matches(&record, stored.as_ref()) {
                    Expect::Applied
                } else {
                    Expect::Refused(&[ErrorKind::VersionConflict])
                };
                let r = table.delete_record::<AccountMapper>(&record).await;
                let g = got(&r);
                self.report("account.delete_record", expect, &g)?;
                self.settle(Layout::Accounts, &g, vec![(id, None)]);
                Ok(())
            }
            AccountStep::RawDelete(id) => {
                self.oracle
                    .client
                    .delete_item()
                    .table_name(table.name())
                    .set_key(Some(account_key(*id)?))
                    .send()
                    .await
                    .map_err(|e| sdk("DeleteItem", e))?;
                let g = Got::Applied;
                self.report("account.DeleteItem", Expect::Applied, &g)?;
                self.settle(Layout::Accounts, &g, vec![(*id, None)]);
                Ok(())
            }
        }
    }

    async fn account_increment(
        &mut self,
        table: &Table,
        id: usize,
        counter: AccountCounter,
        by: i64,
    ) -> Outcome {
        let attribute = match counter {
            AccountCounter::Hits => "hits",
            AccountCounter::Balance => "balance",
            AccountCounter::Status => "status",
            AccountCounter::Version => "version",
            AccountCounter::Note => "note",
        };
        let refused_before_sending =
            matches!(counter, AccountCounter::Status | AccountCounter::Version);
        let op = if refused_before_sending {
            "account.increment(key source/version)"
        } else {
            "account.increment"
        };
        let stored = self.model.accounts.get(&id).cloned();
        if stored.is_none() && !refused_before_sending {
            self.skip(op, "no item: it would create a partial one");
            return Ok(());
        }
        let r = table
            .increment::<AccountMapper>(account_key(id)?, attribute, by)
            .await;
        let g = got(&r);
        let sum = stored
            .as_ref()
            .and_then(|s| number(&s.item, attribute))
            .and_then(|v| v.checked_add(by));
        let expect = if refused_before_sending || sum.is_none() {
            Expect::Refused(&[ErrorKind::InvalidValue])
        } else {
            Expect::Applied
        };
        self.report(op, expect, &g)?;
        if let (Some(mut after), Some(sum)) = (stored, sum) {
            if let Ok(value) = r
                && value != sum
            {
                return Err(format!(
                    "increment of `{attribute}` by {by} returned {value}, the model says {sum}"
                ));
            }
            after.item.insert(attribute.to_owned(), n(sum));
            after.version = match after.version {
                Ver::Known(v) => Ver::Known(v.saturating_add(1)),
                _ => Ver::First,
            };
            self.settle(Layout::Accounts, &g, vec![(id, Some(after))]);
        }
        Ok(())
    }

    async fn account_tx(&mut self, table: &Table, actions: &[AccountTxAction]) -> Outcome {
        let mut tx = table.transaction();
        // Per action: the key, the state it leaves, whether its condition
        // holds, and the record to keep (with its version) once applied.
        let mut effects: Vec<(usize, Option<Option<Expected>>, bool)> = Vec::new();
        let mut pushed: BTreeSet<usize> = BTreeSet::new();
        // Per versioned action: the record it writes, its index in the
        // transaction and the version it was read at.
        let mut written: Vec<(usize, Record<Account>, usize, Option<u64>)> = Vec::new();
        for action in actions {
            let before = tx.actions().len();
            // The transaction with the action added, when it was accepted.
            let mut next: Option<Transaction> = None;
            // The record an action writes and the version it was read at.
            let mut keep: Option<(Record<Account>, Option<u64>)> = None;
            let (op, id, r, expect, effect, holds): (
                &'static str,
                usize,
                dynamodb_mapper::Result<()>,
                Expect,
                Option<Option<Expected>>,
                bool,
            ) = match action {
                AccountTxAction::PutRecord {
                    source,
                    changes,
                    bag,
                } => {
                    let (id, mut record) = self.record_of(source).await?;
                    record.entity.apply(changes);
                    apply_bag(&mut record.bag, bag);
                    let stored = self.model.accounts.get(&id);
                    let holds = record_matches(&record, stored);
                    let r = added(&mut next, tx.clone().put_record::<AccountMapper>(&record));
                    if r.is_ok() {
                        keep = Some((record.clone(), record.version));
                    }
                    let version = following(record.version);
                    let after = Self::account_expected(&record.entity, &record.bag, version)?;
                    (
                        "account.tx.put_record",
                        id,
                        r,
                        Expect::Applied,
                        Some(Some(after)),
                        holds,
                    )
                }
                AccountTxAction::UpdateRecord { source, changes } => {
                    let (id, record) = self.record_of(source).await?;
                    let new = record.entity.clone().with(changes);
                    let stored = self.model.accounts.get(&id).cloned();
                    let holds = record_matches(&record, stored.as_ref());
                    let r = added(
                        &mut next,
                        tx.clone().update_record::<AccountMapper>(&record, &new),
                    );
                    let expect = if !record.stored && record.version.is_none() {
                        Expect::Refused(&[ErrorKind::InvalidValue])
                    } else {
                        Expect::Applied
                    };
                    let sets = diff(
                        &AccountMapper::to_item(&record.entity).map_err(|e| format!("{e:#}"))?,
                        &AccountMapper::to_item(&new).map_err(|e| format!("{e:#}"))?,
                    );
                    let after = stored.map(|mut e| {
                        apply_sets(&mut e.item, &sets);
                        e.version = following(record.version);
                        e
                    });
                    if r.is_ok() {
                        let mut kept = record.clone();
                        kept.entity = new;
                        keep = Some((kept, record.version));
                    }
                    (
                        "account.tx.update_record",
                        id,
                        r,
                        expect,
                        Some(after),
                        holds,
                    )
                }
                AccountTxAction::DeleteRecord(source) => {
                    let (id, record) = self.record_of(source).await?;
                    let holds = record_matches(&record, self.model.accounts.get(&id));
                    let r = added(
                        &mut next,
                        tx.clone().delete_record::<AccountMapper>(&record),
                    );
                    let expect = if !record.stored && record.version.is_none() {
                        Expect::Refused(&[ErrorKind::InvalidValue])
                    } else {
                        Expect::Applied
                    };
                    ("account.tx.delete_record", id, r, expect, Some(None), holds)
                }
                AccountTxAction::Put(spec) => {
                    let a = spec.entity();
                    let r = added(&mut next, tx.clone().put::<AccountMapper>(&a));
                    let after = Self::account_expected(&a, &Item::new(), Ver::First)?;
                    let holds = !self.model.accounts.contains_key(&spec.id);
                    (
                        "account.tx.put(new)",
                        spec.id,
                        r,
                        Expect::Applied,
                        Some(Some(after)),
                        holds,
                    )
                }
                AccountTxAction::RawUpdate(id) => {
                    let update = Update::new().set(Attr::top_level("note"), "raw");
                    let r = added(
                        &mut next,
                        tx.clone()
                            .update::<AccountMapper>(account_key(*id)?, update),
                    );
                    (
                        "account.tx.update(raw)",
                        *id,
                        r,
                        Expect::Refused(&[ErrorKind::VersionCheckRequired]),
                        None,
                        true,
                    )
                }
                AccountTxAction::Delete(id) => {
                    let r = added(
                        &mut next,
                        tx.clone().delete::<AccountMapper>(account_key(*id)?),
                    );
                    (
                        "account.tx.delete(unversioned)",
                        *id,
                        r,
                        Expect::Refused(&[ErrorKind::VersionCheckRequired]),
                        None,
                        true,
                    )
                }
                AccountTxAction::Check { id, exists } => {
                    let pk = Attr::top_level("pk");
                    let condition = if *exists {
                        pk.exists()
                    } else {
                        pk.not_exists()
                    };
                    let r = added(
                        &mut next,
                        tx.clone()
                            .condition_check::<AccountMapper>(account_key(*id)?, condition),
                    );
                    let holds = self.model.accounts.contains_key(id) == *exists;
                    (
                        "account.tx.condition_check",
                        *id,
                        r,
                        Expect::Applied,
                        None,
                        holds,
                    )
                }
            };
            let expect = match expect {
                Expect::Applied if pushed.contains(&id) => {
                    Expect::Refused(&[ErrorKind::DuplicateKey])
                }
                other => other,
            };
            let g = got(&r);
            self.report(op, expect, &g)?;
            if let Some(added) = next {
                tx = added;
            }
            if tx.actions().len() > before {
                pushed.insert(id);
                effects.push((id, effect, holds));
                if let Some((record, prior)) = keep {
                    written.push((id, record, before, prior));
                }
            } else if r.is_ok() {
                return Err(format!("{op}: accepted, yet no action was added"));
            }
        }
        let r = tx.send().await;
        let g = got(&r);
        let holds = effects.iter().all(|(_, _, holds)| *holds);
        let expect = if holds {
            Expect::Applied
        } else {
            Expect::Refused(&[ErrorKind::TransactionCanceled])
        };
        self.report("account.tx.send", expect, &g)?;
        if let Ok(sent) = &r {
            if sent.versions.len() != tx.actions().len() {
                return Err(format!(
                    "account.tx.send: {} versions for {} actions",
                    sent.versions.len(),
                    tx.actions().len()
                ));
            }
            for (id, mut record, index, prior) in written {
                let Some(next) = sent.versions[index] else {
                    return Err(format!(
                        "account.tx.send: no version for the versioned action {index}"
                    ));
                };
                self.check_next(id, prior, next)?;
                // The model learns the version the store holds now.
                for (i, effect, _) in &mut effects {
                    if let (true, Some(Some(e))) = (*i == id, effect.as_mut()) {
                        e.version = Ver::Known(next);
                    }
                }
                record.version = Some(next);
                record.stored = true;
                self.remember(id, &record);
            }
        }
        let changes = effects
            .into_iter()
            .filter_map(|(id, effect, _)| effect.map(|e| (id, e)))
            .collect();
        self.settle(Layout::Accounts, &g, changes);
        Ok(())
    }

    // -------------------------------------------------------------- checks

    /// Scans `layout`'s table and checks every invariant against the model.
    async fn check(&mut self, layout: Layout) -> Outcome {
        let items = self.oracle.scan(layout).await?;
        let mut store: BTreeMap<usize, (Item, Option<u64>)> = BTreeMap::new();
        for item in items {
            let (id, version) = match layout {
                Layout::Players => check_player_item(&item)?,
                Layout::Accounts => check_account_item(&item)?,
            };
            let mut rest = item;
            rest.remove("version");
            if store.insert(id, (rest, version)).is_some() {
                return Err(format!("two items decode to id #{id}"));
            }
        }
        // Settle what was unknown: the store must hold one of the states.
        let pending: Vec<((Layout, usize), Candidates)> = {
            let keys: Vec<(Layout, usize)> = self
                .model
                .pending
                .keys()
                .filter(|(l, _)| *l == layout)
                .copied()
                .collect();
            keys.into_iter()
                .filter_map(|k| self.model.pending.remove(&k).map(|v| (k, v)))
                .collect()
        };
        for ((_, id), candidates) in pending {
            let found = store.get(&id);
            let matching = candidates.into_iter().find(|c| {
                compare(found, c.as_ref(), self.model.max_version.get(&id).copied()).is_ok()
            });
            match matching {
                Some(Some(e)) => {
                    self.model.layout(layout).insert(id, e);
                }
                Some(None) => {
                    self.model.layout(layout).remove(&id);
                }
                None => {
                    return Err(format!(
                        "after an unknown outcome, the store holds {found:?} at #{id}, none of \
                         the states the model allows"
                    ));
                }
            }
        }
        let loose: Vec<(usize, Loose)> = {
            let keys: Vec<(Layout, usize)> = self
                .model
                .loose
                .keys()
                .filter(|(l, _)| *l == layout)
                .copied()
                .collect();
            keys.into_iter()
                .filter_map(|k| self.model.loose.remove(&k).map(|v| (k.1, v)))
                .collect()
        };
        for (id, rule) in loose {
            let Some((found, version)) = store.get(&id) else {
                return Err(format!(
                    "(3) an update reported applied left no item at #{id} (an update never \
                     deletes)"
                ));
            };
            rule.check(found).map_err(|e| {
                format!(
                    "(3) the store holds a state the update could not leave at #{id}: {e}; \
                     stored {}",
                    describe(found)
                )
            })?;
            let version = version.map_or(Ver::Absent, Ver::Known);
            self.model.layout(layout).insert(
                id,
                Expected {
                    item: found.clone(),
                    version,
                },
            );
        }
        let ids: BTreeSet<usize> = store
            .keys()
            .copied()
            .chain(self.model.layout(layout).keys().copied())
            .collect();
        for id in ids {
            let found = store.get(&id);
            let max = self.model.max_version.get(&id).copied();
            let expected = self.model.layout(layout).get(&id).cloned();
            compare(found, expected.as_ref(), max).map_err(|e| {
                let name = match layout {
                    Layout::Players => PLAYER_IDS[id],
                    Layout::Accounts => ACCOUNT_IDS[id],
                };
                format!("(3) the store disagrees with the model at {name}: {e}")
            })?;
            if let Some((_, Some(v))) = found {
                // Unknown first versions are known from now on.
                if let Some(e) = self.model.layout(layout).get_mut(&id) {
                    e.version = Ver::Known(*v);
                }
                if layout == Layout::Accounts {
                    let max = self.model.max_version.entry(id).or_insert(0);
                    *max = (*max).max(*v);
                }
            }
        }
        Ok(())
    }
}

/// Checks a stored state (item less version, version) against the model's.
fn compare(
    found: Option<&(Item, Option<u64>)>,
    expected: Option<&Expected>,
    max_version: Option<u64>,
) -> Outcome {
    match (found, expected) {
        (None, None) => Ok(()),
        (Some((item, _)), None) => Err(format!(
            "an item the model says is absent (a write reported refused was applied, or a \
             delete reported done was not): {}",
            describe(item)
        )),
        (None, Some(e)) => Err(format!(
            "no item, the model holds {} (an acknowledged write was lost)",
            describe(&e.item)
        )),
        (Some((item, version)), Some(e)) => {
            if *item != e.item {
                return Err(format!(
                    "stored {} / model {}: {}",
                    describe(item),
                    describe(&e.item),
                    differences(item, &e.item)
                ));
            }
            match (e.version, version) {
                (Ver::Absent, None) => Ok(()),
                (Ver::Known(v), Some(s)) if v == *s => Ok(()),
                (Ver::First, Some(s)) if max_version.is_none_or(|m| *s > m) => Ok(()),
                (Ver::First, Some(s)) => Err(format!(
                    "(4) version {s} is a first version not above {max_version:?}, a version the \
                     key had before"
                )),
                (want, got) => Err(format!("(4) version {got:?}, the model says {want:?}")),
            }
        }
    }
}

/// Invariants 1 and 2 for a stored player; its id.
fn check_player_item(item: &Item) -> Result<(usize, Option<u64>), String> {
    let record = PlayerMapper::record_from_item(item.clone()).map_err(|e| {
        format!(
            "(1) a stored item does not decode as a Player: {e:#}; {}",
            describe(item)
        )
    })?;
    let rendered = PlayerMapper::to_item(&record.entity)
        .map_err(|e| format!("(2) a stored player does not render again: {e:#}"))?;
    let mut owned = item.clone();
    for (k, _) in record.bag.iter() {
        if PLAYER_OWNED.contains(&k.as_str()) {
            return Err(format!(
                "the bag of a player holds `{k}`, an owned attribute"
            ));
        }
        owned.remove(k);
    }
    if owned != rendered {
        return Err(format!(
            "(2) the derived attributes of a stored player disagree with its fields: {} (stored \
             vs rendered); stored {}",
            differences(&owned, &rendered),
            describe(item)
        ));
    }
    let id = player_index(&record.entity.id)
        .ok_or_else(|| format!("a player the driver never wrote: {}", describe(item)))?;
    Ok((id, None))
}

/// Invariants 1 and 2 for a stored account; its id and version.
fn check_account_item(item: &Item) -> Result<(usize, Option<u64>), String> {
    let record = AccountMapper::record_from_item(item.clone()).map_err(|e| {
        format!(
            "(1) a stored item does not decode as an Account: {e:#}; {}",
            describe(item)
        )
    })?;
    let rendered = AccountMapper::to_item(&record.entity)
        .map_err(|e| format!("(2) a stored account does not render again: {e:#}"))?;
    let mut owned = item.clone();
    owned.remove("version");
    for (k, _) in record.bag.iter() {
        if ACCOUNT_OWNED.contains(&k.as_str()) {
            return Err(format!(
                "the bag of an account holds `{k}`, an owned attribute"
            ));
        }
        owned.remove(k);
    }
    if owned != rendered {
        return Err(format!(
            "(2) the derived attributes of a stored account disagree with its fields: {} (stored \
             vs rendered); stored {}",
            differences(&owned, &rendered),
            describe(item)
        ));
    }
    let stored_version = match item.get("version") {
        None => None,
        Some(AttributeValue::N(v)) => Some(
            v.parse::<u64>()
                .map_err(|_| format!("(4) a version that is no u64: {v}"))?,
        ),
        Some(other) => return Err(format!("(4) a version that is no number: {other:?}")),
    };
    if record.version != stored_version {
        return Err(format!(
            "record_from_item read version {:?}, the item holds {stored_version:?}",
            record.version
        ));
    }
    let id = account_index(&record.entity.id)
        .ok_or_else(|| format!("an account the driver never wrote: {}", describe(item)))?;
    Ok((id, stored_version))
}

/// `r`'s transaction kept in `next` when the action was accepted.
fn added(
    next: &mut Option<Transaction>,
    r: dynamodb_mapper::Result<Transaction>,
) -> dynamodb_mapper::Result<()> {
    r.map(|tx| *next = Some(tx))
}

/// The version a versioned write of a record read at `version` gives its
/// item: the next one, or a first version (not known ahead: the crate picks
/// it) for a record without one.
fn following(version: Option<u64>) -> Ver {
    match version {
        Some(v) => Ver::Known(v.saturating_add(1)),
        None => Ver::First,
    }
}
