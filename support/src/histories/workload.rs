//! What the clients do: each step is one helper call on a few contended
//! keys, drawn from the seed, and what it reported.

use std::fmt;

use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{Error, ErrorDetails, ErrorKind, Item, Record};

use super::model::{
    Account, AccountMapper, Player, PlayerMapper, Tag, TagMapper, account_key, player_key, tag_key,
};

/// One helper call a client makes.
#[derive(Debug, Clone)]
pub enum Op {
    /// `put_record` of a new account (a unique email).
    Create { id: u8, email: u8 },
    /// `get_record`, then `put_record` with another note and email.
    Rewrite { id: u8, email: u8, note: u8 },
    /// `get_record`, then `update_record` with another note and email.
    Update { id: u8, email: u8, note: u8 },
    /// `get_record`, then `delete_record`.
    Delete { id: u8 },
    /// `put_new` of an account.
    PutNewAccount { id: u8, email: u8 },
    /// `increment` of an account's balance (moves its version).
    Deposit { id: u8 },
    /// A transaction creating two accounts (`Transaction::put_new`).
    TwoAccounts {
        a: u8,
        b: u8,
        email_a: u8,
        email_b: u8,
    },
    /// `put_new` of a player.
    PutNewPlayer { id: u8, status: u8 },
    /// `get_record`, then `update_entity` with another status.
    Promote { id: u8, status: u8 },
    /// `increment` of a player's wins.
    Win { id: u8 },
    /// The batch writer: players put.
    BatchPut { players: Vec<(u8, u8)> },
    /// The batch writer: tags put.
    BatchTag { tags: Vec<(u8, u8)> },
    /// The batch writer: tags deleted.
    BatchDelete { tags: Vec<u8> },
    /// The batch getter: players read.
    BatchGet { players: Vec<u8> },
    /// A transaction deleting a player (`Transaction::delete`).
    RemovePlayer { id: u8 },
}

/// What a call reported.
#[derive(Debug, Clone)]
pub enum Reported {
    /// Done; the version written where there is one.
    Done(Option<u64>),
    /// Nothing to do, or a definite "no" the helper reports as a value
    /// (`put_new` that found the item): nothing may have been written.
    Nothing,
    /// A batch done: how many requests it wrote or read.
    Batch(usize),
    /// An error: its kind, and for an incomplete batch write its accounting.
    Failed(ErrorKind, Option<Accounting>, String),
    /// The caller dropped the future.
    Cancelled,
}

/// An incomplete batch write's accounting, by key.
#[derive(Debug, Clone)]
pub struct Accounting {
    /// Confirmed written.
    pub written: usize,
    /// Certainly not written.
    pub unprocessed: Vec<String>,
    /// Unknown.
    pub in_doubt: Vec<String>,
}

impl Op {
    /// A random call over at most `keys` ids of each kind.
    pub fn draw(rng: &mut fastrand::Rng, keys: u8) -> Op {
        let mut id = || rng.u8(..keys);
        let (a, b, c, d) = (id(), id(), id(), id());
        let list = |rng: &mut fastrand::Rng| -> Vec<u8> {
            let mut v: Vec<u8> = (0..keys).filter(|_| rng.bool()).collect();
            if v.is_empty() {
                v.push(rng.u8(..keys));
            }
            v
        };
        match rng.u8(..15) {
            0 => Op::Create { id: a, email: b },
            1 => Op::Rewrite {
                id: a,
                email: b,
                note: c,
            },
            2 => Op::Update {
                id: a,
                email: b,
                note: c,
            },
            3 => Op::Delete { id: a },
            4 => Op::PutNewAccount { id: a, email: b },
            5 => Op::Deposit { id: a },
            6 => Op::TwoAccounts {
                a,
                b: (a + 1) % keys,
                email_a: c,
                email_b: d,
            },
            7 => Op::PutNewPlayer { id: a, status: b },
            8 => Op::Promote { id: a, status: b },
            9 => Op::Win { id: a },
            10 => Op::BatchPut {
                players: list(rng).into_iter().map(|p| (p, rng.u8(..3))).collect(),
            },
            14 => Op::BatchTag {
                tags: list(rng).into_iter().map(|t| (t, rng.u8(..3))).collect(),
            },
            11 => Op::BatchDelete { tags: list(rng) },
            12 => Op::BatchGet { players: list(rng) },
            _ => Op::RemovePlayer { id: a },
        }
    }

    /// The versioned key this call writes, if it returns a version.
    pub fn account(&self) -> Option<u8> {
        match self {
            Op::Create { id, .. }
            | Op::Rewrite { id, .. }
            | Op::Update { id, .. }
            | Op::Deposit { id } => Some(*id),
            _ => None,
        }
    }

    /// Whether it adds to a counter: applied twice, it counts twice.
    pub fn counts(&self) -> bool {
        matches!(self, Op::Deposit { .. } | Op::Win { .. })
    }

    /// Whether it is a batch write.
    pub fn is_batch_write(&self) -> bool {
        matches!(
            self,
            Op::BatchPut { .. } | Op::BatchTag { .. } | Op::BatchDelete { .. }
        )
    }

    /// How many requests a batch write sends.
    pub fn batch_size(&self) -> usize {
        match self {
            Op::BatchPut { players } => players.len(),
            Op::BatchTag { tags } => tags.len(),
            Op::BatchDelete { tags } => tags.len(),
            _ => 0,
        }
    }

    /// Whether it only reads.
    pub fn is_read(&self) -> bool {
        matches!(self, Op::BatchGet { .. })
    }

    /// Runs the call on `accounts` / `players` (the two tables).
    pub async fn run(&self, accounts: &Table, players: &Table) -> Reported {
        match self.call(accounts, players).await {
            Ok(reported) => reported,
            Err(e) => failed(&e),
        }
    }

    async fn call(&self, acc: &Table, pl: &Table) -> Result<Reported, Error> {
        let account = |id: u8, email: u8, note: u8| Account {
            id: format!("a{id}"),
            email: format!("e{email}@example.com"),
            note: format!("n{note}"),
            balance: 0,
        };
        let player = |id: u8, status: u8| Player {
            id: format!("p{id}"),
            status: format!("s{status}"),
            wins: 0,
        };
        Ok(match self {
            Op::Create { id, email } => {
                let mut record = Record::new(account(*id, *email, 0));
                Reported::Done(Some(acc.put_record::<AccountMapper>(&mut record).await?))
            }
            Op::Rewrite { id, email, note } => {
                let Some(mut record) = acc
                    .get_record::<AccountMapper>(account_key(&format!("a{id}")))
                    .await?
                else {
                    return Ok(Reported::Nothing);
                };
                record.entity.email = format!("e{email}@example.com");
                record.entity.note = format!("n{note}");
                Reported::Done(Some(acc.put_record::<AccountMapper>(&mut record).await?))
            }
            Op::Update { id, email, note } => {
                let Some(mut record) = acc
                    .get_record::<AccountMapper>(account_key(&format!("a{id}")))
                    .await?
                else {
                    return Ok(Reported::Nothing);
                };
                let mut new = record.entity.clone();
                new.email = format!("e{email}@example.com");
                new.note = format!("n{note}");
                if new == record.entity {
                    return Ok(Reported::Nothing);
                }
                Reported::Done(Some(
                    acc.update_record::<AccountMapper>(&mut record, new).await?,
                ))
            }
            Op::Delete { id } => {
                let Some(record) = acc
                    .get_record::<AccountMapper>(account_key(&format!("a{id}")))
                    .await?
                else {
                    return Ok(Reported::Nothing);
                };
                acc.delete_record::<AccountMapper>(&record).await?;
                Reported::Done(None)
            }
            Op::PutNewAccount { id, email } => {
                if acc
                    .put_new::<AccountMapper>(&account(*id, *email, 0))
                    .await?
                {
                    Reported::Done(None)
                } else {
                    Reported::Nothing
                }
            }
            Op::Deposit { id } => {
                let key = account_key(&format!("a{id}"));
                acc.increment::<AccountMapper>(key, "balance", 1).await?;
                Reported::Done(None)
            }
            Op::TwoAccounts {
                a,
                b,
                email_a,
                email_b,
            } => {
                acc.transaction()
                    .put_new::<AccountMapper>(&account(*a, *email_a, 0))?
                    .put_new::<AccountMapper>(&account(*b, *email_b, 1))?
                    .send()
                    .await?;
                Reported::Done(None)
            }
            Op::PutNewPlayer { id, status } => {
                if pl.put_new::<PlayerMapper>(&player(*id, *status)).await? {
                    Reported::Done(None)
                } else {
                    Reported::Nothing
                }
            }
            Op::Promote { id, status } => {
                let Some(record) = pl
                    .get_record::<PlayerMapper>(player_key(&format!("p{id}")))
                    .await?
                else {
                    return Ok(Reported::Nothing);
                };
                let mut new = record.entity.clone();
                new.status = format!("s{status}");
                if new == record.entity {
                    return Ok(Reported::Nothing);
                }
                pl.update_entity::<PlayerMapper>(&record.entity, &new)
                    .await?;
                Reported::Done(None)
            }
            Op::Win { id } => {
                pl.increment::<PlayerMapper>(player_key(&format!("p{id}")), "wins", 1)
                    .await?;
                Reported::Done(None)
            }
            Op::BatchPut { players } => {
                let players: Vec<Player> = players.iter().map(|(i, s)| player(*i, *s)).collect();
                Reported::Batch(pl.batch_writer().put::<PlayerMapper>(&players).await?.items)
            }
            Op::BatchTag { tags } => {
                let tags: Vec<Tag> = tags
                    .iter()
                    .map(|(i, l)| Tag {
                        id: format!("t{i}"),
                        label: format!("l{l}"),
                    })
                    .collect();
                Reported::Batch(pl.batch_writer().put::<TagMapper>(&tags).await?.items)
            }
            Op::BatchDelete { tags } => {
                let keys: Vec<Item> = tags.iter().map(|t| tag_key(&format!("t{t}"))).collect();
                Reported::Batch(pl.batch_writer().delete::<TagMapper>(keys).await?.items)
            }
            Op::BatchGet { players } => {
                let keys: Vec<Item> = players
                    .iter()
                    .map(|p| player_key(&format!("p{p}")))
                    .collect();
                let read = pl.batch_getter().get::<PlayerMapper>(keys).await?;
                Reported::Batch(read.entities.len())
            }
            Op::RemovePlayer { id } => {
                pl.transaction()
                    .delete::<PlayerMapper>(player_key(&format!("p{id}")))?
                    .send()
                    .await?;
                Reported::Done(None)
            }
        })
    }
}

fn failed(e: &Error) -> Reported {
    let accounting = match e.details() {
        ErrorDetails::BatchWriteIncomplete { unwritten, .. } => Some(Accounting {
            written: unwritten.written,
            unprocessed: unwritten.unprocessed.iter().map(request_key).collect(),
            in_doubt: unwritten.in_doubt.iter().map(request_key).collect(),
        }),
        _ => None,
    };
    Reported::Failed(e.kind(), accounting, format!("{e:#}"))
}

/// `pk|sk` of a batch write request.
fn request_key(w: &aws_sdk_dynamodb::types::WriteRequest) -> String {
    let key = w
        .put_request
        .as_ref()
        .map(|p| &p.item)
        .or_else(|| w.delete_request.as_ref().map(|d| &d.key));
    key.map(|k| key_text(k.iter())).unwrap_or_default()
}

/// `pk|sk` of an item's attributes.
pub fn key_text<'a>(
    attrs: impl Iterator<Item = (&'a String, &'a aws_sdk_dynamodb::types::AttributeValue)>,
) -> String {
    let (mut pk, mut sk) = (String::new(), String::new());
    for (name, value) in attrs {
        let text = value.as_s().cloned().unwrap_or_default();
        match name.as_str() {
            "pk" => pk = text,
            "sk" => sk = text,
            _ => {}
        }
    }
    format!("{pk}|{sk}")
}

impl fmt::Display for Reported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reported::Done(Some(v)) => write!(f, "ok, version {v}"),
            Reported::Done(None) => f.write_str("ok"),
            Reported::Nothing => f.write_str("nothing to do"),
            Reported::Batch(n) => write!(f, "ok, {n} items"),
            Reported::Failed(kind, _, message) => write!(f, "{kind:?}: {message}"),
            Reported::Cancelled => f.write_str("cancelled"),
        }
    }
}
