//! The helpers that move data (`BatchWriter`, `BatchGetter::get_items`,
//! `Transaction::send`) against a scripted fake DynamoDB: the SDK's own
//! client, answered by `aws-smithy-mocks` with modeled outputs, modeled
//! errors and raw HTTP responses chosen by the fuzz input, one per call.
//!
//! The fake records what it applied (per key, how often) and when its
//! answer left the caller unable to know (an internal server error, a
//! response that cannot be read, one that makes no sense). The crate's
//! promises are checked against that record:
//! - writes: done + handed back = sent; nothing in `unprocessed` was
//!   applied; everything applied and not in doubt is counted as written;
//!   nothing applied twice unless an answer about it was ambiguous; nothing
//!   sent again once the fake confirmed it;
//! - gets: nothing read twice, nothing read that was not asked for or is
//!   not stored, every stored key asked for is read or handed back;
//! - transactions: `Ok` only after a success answer, and each canceled
//!   action is the one DynamoDB gave the reason for;
//! - never a panic, never a hang, and nothing but a refusal before sending
//!   (with no call made) outside the incomplete-batch errors.
#![no_main]

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use arbitrary::{Arbitrary, Result, Unstructured};
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::operation::batch_get_item::{
    BatchGetItemError, BatchGetItemInput, BatchGetItemOutput,
};
use aws_sdk_dynamodb::operation::batch_write_item::{
    BatchWriteItemError, BatchWriteItemInput, BatchWriteItemOutput,
};
use aws_sdk_dynamodb::operation::transact_write_items::{
    TransactWriteItemsError, TransactWriteItemsInput, TransactWriteItemsOutput,
};
use aws_sdk_dynamodb::types::error::{
    InternalServerError, ProvisionedThroughputExceededException, ResourceNotFoundException,
    TransactionCanceledException,
};
use aws_sdk_dynamodb::types::{
    AttributeValue, CancellationReason, DeleteRequest, KeysAndAttributes, PutRequest, WriteRequest,
};
use aws_smithy_mocks::{MockResponse, RuleMode, mock, mock_client};
use aws_smithy_types::body::SdkBody;
use dynamodb_mapper::ops::{ActionKind, RetryPolicy, Table};
use dynamodb_mapper::{
    Error, ErrorDetails, ErrorKind, Item, Mapper, MapperExt, ScalarType, TableSchema,
};
use dynamodb_mapper_support::requests::{delete_request, put_request};
use dynamodb_mapper_support::seed001::{APP_TABLE, Customer, CustomerMapper, customer};
use libfuzzer_sys::fuzz_target;

const TABLE: &str = "AppTable";
const OTHER_TABLE: &str = "OtherTable";
/// Index of a key never sent (every case has fewer items).
const FOREIGN: usize = 1000;
const MAX_ITEMS: usize = 120;
const MAX_SCRIPT: usize = 32;
/// A numeric-key table: the fake may spell the numbers its own way.
const NUMBERED: TableSchema = TableSchema::new("id")
    .partition_key_type(ScalarType::N)
    .without_discriminator();

// ---------------------------------------------------------------- the case

#[derive(Debug, Clone, Copy, PartialEq)]
enum Layout {
    /// The fixtures' table (`pk`, `sk`), customers through `CustomerMapper`.
    App,
    /// `id` (N) only, raw items.
    Numbered,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Put,
    DeleteKeys,
    /// `BatchWriter::write` of puts and deletes mixed (bit i of the mask:
    /// item i is a put).
    Mixed(u128),
    Get,
    Transact,
}

/// Which of the requests of one call an answer lists (by position).
#[derive(Debug, Clone, Copy)]
enum Subset {
    All,
    Nothing,
    First(u8),
    EveryOther,
    Mask(u128),
}

impl Subset {
    fn pick(self, len: usize) -> Vec<bool> {
        (0..len)
            .map(|i| match self {
                Subset::All => true,
                Subset::Nothing => false,
                Subset::First(k) => i < usize::from(k),
                Subset::EveryOther => i % 2 == 1,
                Subset::Mask(m) => i < 128 && m & (1 << i) != 0,
            })
            .collect()
    }
}

/// Raw HTTP bodies, with what the SDK makes of each.
const BODIES: &[(&str, Body)] = &[
    ("not json", Body::Garbage),
    // Wrong types, for a field each operation reads.
    (
        r#"{"ConsumedCapacity": 5, "UnprocessedItems": 5, "UnprocessedKeys": 5, "Responses": 5}"#,
        Body::Garbage,
    ),
    (r#"{"UnprocessedItems": {"AppTable": ["#, Body::Garbage),
    ("", Body::Empty),
    ("<html><body>502 Bad Gateway</body></html>", Body::Garbage),
    ("{}", Body::Empty),
    (
        r#"{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"boom"}"#,
        Body::Internal,
    ),
    (
        r#"{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow down"}"#,
        Body::Throttled,
    ),
    (
        r#"{"__type":"com.amazonaws.dynamodb.v20120810#ServiceUnavailable","message":"?"}"#,
        Body::UnknownCode,
    ),
    (
        r#"{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"canceled","CancellationReasons":[{"Code":"None"},{"Code":"ConditionalCheckFailed","Message":"no"}]}"#,
        Body::Canceled,
    ),
];
const STATUSES: &[u16] = &[200, 400, 413, 500, 502, 503];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Body {
    /// Not a readable answer.
    Garbage,
    /// `{}`.
    Empty,
    /// A modeled error code (read as that error when the status is not 200).
    Internal,
    Throttled,
    UnknownCode,
    Canceled,
}

/// What an HTTP answer means to the fake: whether it applied the request.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Meaning {
    /// A readable success: applied.
    Success,
    /// A refusal (4xx, throttling): not applied.
    Refused,
    /// The caller cannot know: applied or not, as the script says.
    Ambiguous,
}

fn meaning(status: u16, body: Body) -> Meaning {
    match (status, body) {
        // A 200 is read as the output, whatever error it names; one that
        // cannot be read is still a 200: the SDK reports it as a service
        // error (`Unhandled`), yet the request was (perhaps) applied.
        (200, Body::Garbage) => Meaning::Ambiguous,
        (200, _) => Meaning::Success,
        (400..=499, _) | (_, Body::Throttled) => Meaning::Refused,
        (_, Body::Internal) => Meaning::Ambiguous,
        // A 5xx without a modeled error code: the SDK reports a service
        // error (`Unhandled`), yet nothing says the request was not applied.
        _ => Meaning::Ambiguous,
    }
}

/// One answer of the fake.
#[derive(Debug, Clone)]
enum Answer {
    /// Everything applied (read).
    Clean,
    /// `subset` listed as unprocessed, the rest applied (read); `respell`
    /// spells listed numbers differently; `empty_other` adds empty lists
    /// under another table (harmless).
    Unprocessed {
        subset: Subset,
        respell: u8,
        empty_other: bool,
    },
    /// As `Unprocessed`, plus something that makes no sense (`odd` picks
    /// what, per operation).
    Odd {
        subset: Subset,
        odd: u8,
    },
    Throttled,
    Internal {
        applied: bool,
    },
    NotFound,
    Http {
        status: u16,
        body: u8,
        applied: bool,
    },
}

impl Answer {
    fn decode(u: &mut Unstructured<'_>) -> Result<Answer> {
        Ok(match u.int_in_range(0..=11u8)? {
            0..=2 => Answer::Clean,
            3..=4 => Answer::Unprocessed {
                subset: decode_subset(u)?,
                respell: u.arbitrary()?,
                empty_other: u.arbitrary()?,
            },
            5..=6 => Answer::Odd {
                subset: decode_subset(u)?,
                odd: u.arbitrary()?,
            },
            7 => Answer::Throttled,
            8 => Answer::Internal {
                applied: u.arbitrary()?,
            },
            9 => Answer::NotFound,
            _ => Answer::Http {
                status: STATUSES[u.choose_index(STATUSES.len())?],
                body: u.int_in_range(0..=(BODIES.len() - 1) as u8)?,
                applied: u.arbitrary()?,
            },
        })
    }
}

fn decode_subset(u: &mut Unstructured<'_>) -> Result<Subset> {
    Ok(match u.int_in_range(0..=4u8)? {
        0 => Subset::All,
        1 => Subset::Nothing,
        2 => Subset::First(u.arbitrary()?),
        3 => Subset::EveryOther,
        _ => Subset::Mask(u.arbitrary()?),
    })
}

/// The answer to a transaction.
#[derive(Debug, Clone)]
enum TxAnswer {
    Ok,
    /// Canceled with these reasons: (code index into `CODES`, message).
    Canceled(Vec<(u8, bool)>),
    Throttled,
    Internal,
    NotFound,
    Http {
        status: u16,
        body: u8,
    },
}

/// Cancellation codes; index 0 is no code at all.
const CODES: &[Option<&str>] = &[
    None,
    Some("None"),
    Some("ConditionalCheckFailed"),
    Some("TransactionConflict"),
    Some("ThrottlingError"),
    Some("ValidationError"),
    Some(""),
];

#[derive(Debug, Clone, Copy)]
enum TxAction {
    Put,
    Delete,
    Check,
}

#[derive(Debug, Clone)]
struct Case {
    op: Op,
    layout: Layout,
    items: usize,
    concurrency: usize,
    attempts: u32,
    /// Asks for key 0 twice (spelled differently in `Numbered`): refused
    /// before anything is sent.
    duplicate_input: bool,
    /// Gets: the fake stores key i when (7 i + 3) mod 4 < `stored`.
    stored: u8,
    script: Vec<Answer>,
    tx_actions: Vec<TxAction>,
    tx_answer: TxAnswer,
}

impl<'a> Arbitrary<'a> for Case {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let op = match u.int_in_range(0..=4u8)? {
            0 => Op::Put,
            1 => Op::DeleteKeys,
            2 => Op::Mixed(u.arbitrary()?),
            3 => Op::Get,
            _ => Op::Transact,
        };
        let layout = if op != Op::Transact && u.arbitrary()? {
            Layout::Numbered
        } else {
            Layout::App
        };
        let items = u.int_in_range(0..=MAX_ITEMS - 1)?;
        let concurrency = u.int_in_range(1..=5)?;
        let attempts = u.int_in_range(1..=6)?;
        let duplicate_input = u.ratio(1, 16)?;
        let stored = u.int_in_range(0..=4)?;
        let mut script = Vec::new();
        let mut tx_actions = Vec::new();
        let mut tx_answer = TxAnswer::Ok;
        if op == Op::Transact {
            for _ in 0..items.min(101) {
                tx_actions.push(match u.int_in_range(0..=2u8)? {
                    0 => TxAction::Put,
                    1 => TxAction::Delete,
                    _ => TxAction::Check,
                });
            }
            tx_answer = match u.int_in_range(0..=6u8)? {
                0 => TxAnswer::Ok,
                1 | 2 => {
                    let n = u.int_in_range(0..=tx_actions.len() + 2)?;
                    let mut reasons = Vec::with_capacity(n);
                    for _ in 0..n {
                        reasons.push((u.choose_index(CODES.len())? as u8, u.arbitrary()?));
                    }
                    TxAnswer::Canceled(reasons)
                }
                3 => TxAnswer::Throttled,
                4 => TxAnswer::Internal,
                5 => TxAnswer::NotFound,
                _ => TxAnswer::Http {
                    status: STATUSES[u.choose_index(STATUSES.len())?],
                    body: u.int_in_range(0..=(BODIES.len() - 1) as u8)?,
                },
            };
        } else {
            let len = u.int_in_range(0..=MAX_SCRIPT)?;
            for _ in 0..len {
                script.push(Answer::decode(u)?);
            }
        }
        Ok(Case {
            op,
            layout,
            items,
            concurrency,
            attempts,
            duplicate_input,
            stored,
            script,
            tx_actions,
            tx_answer,
        })
    }
}

impl Case {
    fn is_put(&self, i: usize) -> bool {
        match self.op {
            Op::Put => true,
            Op::Mixed(mask) => i >= 128 || mask & (1 << i) != 0,
            _ => false,
        }
    }

    fn stores(&self, i: usize) -> bool {
        (7 * i + 3) % 4 < usize::from(self.stored)
    }
}

// ------------------------------------------------------- keys and items

fn customer_id(i: usize) -> String {
    format!("C{i:03}")
}

/// The numbers the fake may spell a key `i` with; one value each.
fn spell(i: usize, how: u8) -> String {
    match how % 6 {
        0 => i.to_string(),
        1 => format!("{i}.0"),
        2 => format!("{i}E0"),
        3 => format!("0{i}"),
        4 => format!("{i}.00e0"),
        _ => format!("{i}0E-1"),
    }
}

fn key(layout: Layout, i: usize, how: u8) -> Item {
    match layout {
        Layout::App => Item::from([
            (
                "pk".to_string(),
                AttributeValue::S(format!("CUSTOMER#{}", customer_id(i))),
            ),
            ("sk".to_string(), AttributeValue::S("METADATA".into())),
        ]),
        Layout::Numbered => Item::from([("id".to_string(), AttributeValue::N(spell(i, how)))]),
    }
}

/// The item the case writes (and the fake stores) at key `i`.
fn item(layout: Layout, i: usize) -> Item {
    static APP: OnceLock<Vec<Item>> = OnceLock::new();
    match layout {
        Layout::App if i < MAX_ITEMS => APP.get_or_init(|| {
            (0..MAX_ITEMS)
                .map(|i| CustomerMapper::to_item(&customer(&customer_id(i))).unwrap())
                .collect()
        })[i]
            .clone(),
        Layout::App => CustomerMapper::to_item(&customer(&customer_id(i))).unwrap(),
        Layout::Numbered => Item::from([
            ("id".to_string(), AttributeValue::N(i.to_string())),
            ("v".to_string(), AttributeValue::S(format!("value {i}"))),
        ]),
    }
}

/// `item`, its key spelled as `how` says.
fn respelled_item(layout: Layout, i: usize, how: u8) -> Item {
    let mut it = item(layout, i);
    it.extend(key(layout, i, how));
    it
}

/// The index of the key of `attrs` (an item or a key), or `None` when it
/// is not a key of this layout.
fn index_of(layout: Layout, attrs: &Item) -> Option<usize> {
    match layout {
        Layout::App => {
            let AttributeValue::S(pk) = attrs.get("pk")? else {
                return None;
            };
            if attrs.get("sk") != Some(&AttributeValue::S("METADATA".into())) {
                return None;
            }
            pk.strip_prefix("CUSTOMER#C")?.parse().ok()
        }
        Layout::Numbered => {
            let AttributeValue::N(n) = attrs.get("id")? else {
                return None;
            };
            let v: f64 = n.parse().ok()?;
            (v >= 0.0 && v.fract() == 0.0 && v < 1e6).then_some(v as usize)
        }
    }
}

fn keys_and_attributes(keys: Vec<Item>) -> KeysAndAttributes {
    KeysAndAttributes::builder()
        .set_keys(Some(keys))
        .build()
        .unwrap()
}

fn http(status: u16, body: &str) -> HttpResponse {
    let response = http::Response::builder()
        .status(status)
        .header("content-type", "application/x-amz-json-1.0")
        .body(SdkBody::from(body.to_owned()))
        .unwrap();
    HttpResponse::try_from(response).unwrap()
}

// ---------------------------------------------------------------- the fake

/// The fake service and its record of one case.
struct Fake {
    case: Case,
    next: usize,
    calls: usize,
    /// Writes: how many times the fake applied the request of key i.
    applied: Vec<u32>,
    /// Writes: key i was in an attempt whose answer left the caller unable
    /// to know whether it was applied.
    ambiguous: Vec<bool>,
    /// Writes: key i was applied and the answer said so, credibly.
    confirmed: Vec<bool>,
    /// Gets: a credible answer returned key i or said nothing of it (absent).
    settled: Vec<bool>,
}

static FAKE: Mutex<Option<Fake>> = Mutex::new(None);

fn fake() -> MutexGuard<'static, Option<Fake>> {
    FAKE.lock().unwrap_or_else(PoisonError::into_inner)
}

fn with_fake<T>(f: impl FnOnce(&mut Fake) -> T) -> T {
    let mut guard = fake();
    f(guard.as_mut().expect("a case is running"))
}

impl Fake {
    fn new(case: Case) -> Fake {
        let n = case.items;
        Fake {
            case,
            next: 0,
            calls: 0,
            applied: vec![0; n],
            ambiguous: vec![false; n],
            confirmed: vec![false; n],
            settled: vec![false; n],
        }
    }

    fn next_answer(&mut self) -> Answer {
        self.calls += 1;
        assert!(self.calls <= 1000, "the crate keeps calling");
        let answer = self.case.script.get(self.next).cloned();
        self.next += 1;
        answer.unwrap_or(Answer::Clean)
    }

    fn layout(&self) -> Layout {
        self.case.layout
    }

    /// The index of a write request sent, checked: a key asked for, of the
    /// kind asked for, with the item asked for.
    fn sent_write(&self, request: &WriteRequest) -> usize {
        let layout = self.layout();
        let (i, is_put) = match (&request.put_request, &request.delete_request) {
            (Some(p), None) => {
                let i = index_of(layout, &p.item).expect("a put of a key never asked for");
                assert!(i < self.case.items, "a put of key {i}, never asked for");
                assert_eq!(p.item, item(layout, i), "the put sent is the item given");
                (i, true)
            }
            (None, Some(d)) => {
                let i = index_of(layout, &d.key).expect("a delete of a key never asked for");
                assert!(i < self.case.items, "a delete of key {i}, never asked for");
                assert_eq!(d.key, key(layout, i, 0), "the delete sent is the key given");
                (i, false)
            }
            _ => panic!("a write request without one action: {request:?}"),
        };
        assert_eq!(
            is_put,
            self.case.is_put(i),
            "key {i} sent as the wrong kind"
        );
        i
    }

    fn apply(&mut self, i: usize) {
        assert!(
            self.applied[i] == 0 || self.ambiguous[i],
            "key {i} applied twice, though every answer about it was credible"
        );
        self.applied[i] += 1;
    }

    fn write(
        &mut self,
        input: &BatchWriteItemInput,
    ) -> MockResponse<BatchWriteItemOutput, BatchWriteItemError> {
        let layout = self.layout();
        let tables = input.request_items().expect("request items");
        assert_eq!(tables.len(), 1, "one table per batch: {:?}", tables.keys());
        let sent = tables.get(TABLE).expect("requests for the table");
        assert!(
            (1..=25).contains(&sent.len()),
            "{} requests in one batch",
            sent.len()
        );
        let idx: Vec<usize> = sent.iter().map(|r| self.sent_write(r)).collect();
        let distinct: BTreeSet<usize> = idx.iter().copied().collect();
        assert_eq!(distinct.len(), idx.len(), "a key twice in one batch");
        for &i in &idx {
            assert!(
                !self.confirmed[i],
                "key {i} sent again after it was confirmed"
            );
        }
        let answer = self.next_answer();
        match answer {
            Answer::Clean => {
                for &i in &idx {
                    self.apply(i);
                    self.confirmed[i] = true;
                }
                MockResponse::Output(BatchWriteItemOutput::builder().build())
            }
            Answer::Unprocessed {
                subset,
                respell,
                empty_other,
            } => {
                let listed = subset.pick(idx.len());
                let mut unprocessed = Vec::new();
                for (k, &i) in idx.iter().enumerate() {
                    if listed[k] {
                        let how = respell.wrapping_add(k as u8);
                        unprocessed.push(if self.case.is_put(i) {
                            put_request(respelled_item(layout, i, how))
                        } else {
                            delete_request(key(layout, i, how))
                        });
                    } else {
                        self.apply(i);
                        self.confirmed[i] = true;
                    }
                }
                let mut out = BatchWriteItemOutput::builder().unprocessed_items(TABLE, unprocessed);
                if empty_other {
                    out = out.unprocessed_items(OTHER_TABLE, Vec::new());
                }
                MockResponse::Output(out.build())
            }
            Answer::Odd { subset, odd } => {
                let listed = subset.pick(idx.len());
                let mut unprocessed = Vec::new();
                for (k, &i) in idx.iter().enumerate() {
                    if listed[k] {
                        unprocessed.push(sent[k].clone());
                    } else {
                        self.apply(i);
                    }
                }
                for &i in &idx {
                    self.ambiguous[i] = true;
                }
                let first = idx[0];
                let first_put = self.case.is_put(first);
                let mut out = BatchWriteItemOutput::builder();
                match odd % 8 {
                    0 => out = out.unprocessed_items(OTHER_TABLE, vec![sent[0].clone()]),
                    1 => unprocessed.push(if first_put {
                        put_request(item(layout, FOREIGN))
                    } else {
                        delete_request(key(layout, FOREIGN, 0))
                    }),
                    2 => {
                        // Listed once more than once.
                        if !listed[0] {
                            unprocessed.push(sent[0].clone());
                        }
                        unprocessed.push(sent[0].clone());
                    }
                    3 => unprocessed.push(if first_put {
                        delete_request(key(layout, first, 0))
                    } else {
                        put_request(item(layout, first))
                    }),
                    4 => {
                        let mut keyless = item(layout, first);
                        keyless.remove(if layout == Layout::App { "sk" } else { "id" });
                        unprocessed.push(put_request(keyless));
                    }
                    5 => unprocessed.push(WriteRequest::builder().build()),
                    6 => {
                        let mut wrong = key(layout, first, 0);
                        let name = if layout == Layout::App { "pk" } else { "id" };
                        wrong.insert(name.into(), AttributeValue::Bool(true));
                        unprocessed.push(delete_request(wrong));
                    }
                    _ => {
                        let both = WriteRequest::builder()
                            .put_request(
                                PutRequest::builder()
                                    .set_item(Some(item(layout, first)))
                                    .build()
                                    .unwrap(),
                            )
                            .delete_request(
                                DeleteRequest::builder()
                                    .set_key(Some(key(layout, first, 0)))
                                    .build()
                                    .unwrap(),
                            )
                            .build();
                        unprocessed.push(both);
                    }
                }
                MockResponse::Output(out.unprocessed_items(TABLE, unprocessed).build())
            }
            Answer::Throttled => {
                MockResponse::Error(BatchWriteItemError::ProvisionedThroughputExceededException(
                    ProvisionedThroughputExceededException::builder()
                        .message("slow down")
                        .build(),
                ))
            }
            Answer::Internal { applied } => {
                for &i in &idx {
                    if applied {
                        self.apply(i);
                    }
                    self.ambiguous[i] = true;
                }
                MockResponse::Error(BatchWriteItemError::InternalServerError(
                    InternalServerError::builder().message("boom").build(),
                ))
            }
            Answer::NotFound => {
                MockResponse::Error(BatchWriteItemError::ResourceNotFoundException(
                    ResourceNotFoundException::builder()
                        .message("Requested resource not found")
                        .build(),
                ))
            }
            Answer::Http {
                status,
                body,
                applied,
            } => {
                let (text, kind) = BODIES[usize::from(body)];
                match meaning(status, kind) {
                    Meaning::Success => {
                        for &i in &idx {
                            self.apply(i);
                            self.confirmed[i] = true;
                        }
                    }
                    Meaning::Refused => {}
                    Meaning::Ambiguous => {
                        for &i in &idx {
                            if applied {
                                self.apply(i);
                            }
                            self.ambiguous[i] = true;
                        }
                    }
                }
                MockResponse::Http(http(status, text))
            }
        }
    }

    fn get(
        &mut self,
        input: &BatchGetItemInput,
    ) -> MockResponse<BatchGetItemOutput, BatchGetItemError> {
        let layout = self.layout();
        let tables = input.request_items().expect("request items");
        assert_eq!(tables.len(), 1, "one table per batch: {:?}", tables.keys());
        let asked = tables.get(TABLE).expect("keys of the table").keys();
        assert!(
            (1..=100).contains(&asked.len()),
            "{} keys in one batch",
            asked.len()
        );
        let idx: Vec<usize> = asked
            .iter()
            .map(|k| {
                let i = index_of(layout, k).expect("a key never asked for");
                assert!(i < self.case.items, "key {i}, never asked for");
                assert_eq!(*k, key(layout, i, 0), "the key sent is the key given");
                assert!(
                    !self.settled[i],
                    "key {i} asked for again after it was read (or found absent)"
                );
                i
            })
            .collect();
        let distinct: BTreeSet<usize> = idx.iter().copied().collect();
        assert_eq!(distinct.len(), idx.len(), "a key twice in one batch");
        let mut answer = self.next_answer();
        if let Answer::Http { status, body, .. } = answer
            && meaning(status, BODIES[usize::from(body)].1) == Meaning::Success
            && idx.iter().any(|&i| self.case.stores(i))
        {
            // A readable body holds no item, which says every key asked for
            // is absent: a lie when one is stored. Answer truly instead.
            answer = Answer::Clean;
        }
        let stored = |i: usize| self.case.stores(i);
        match answer {
            Answer::Clean => {
                let items = idx
                    .iter()
                    .filter(|&&i| stored(i))
                    .map(|&i| item(layout, i))
                    .collect();
                for &i in &idx {
                    self.settled[i] = true;
                }
                MockResponse::Output(
                    BatchGetItemOutput::builder()
                        .responses(TABLE, items)
                        .build(),
                )
            }
            Answer::Unprocessed {
                subset,
                respell,
                empty_other,
            } => {
                let listed = subset.pick(idx.len());
                let mut items = Vec::new();
                let mut keys = Vec::new();
                for (k, &i) in idx.iter().enumerate() {
                    let how = respell.wrapping_add(k as u8);
                    if listed[k] {
                        keys.push(key(layout, i, how));
                    } else {
                        if stored(i) {
                            items.push(respelled_item(layout, i, how));
                        }
                        self.settled[i] = true;
                    }
                }
                let mut out = BatchGetItemOutput::builder()
                    .responses(TABLE, items)
                    .unprocessed_keys(TABLE, keys_and_attributes(keys));
                if empty_other {
                    out = out
                        .responses(OTHER_TABLE, Vec::new())
                        .unprocessed_keys(OTHER_TABLE, keys_and_attributes(Vec::new()));
                }
                MockResponse::Output(out.build())
            }
            Answer::Odd { subset, odd } => {
                let listed = subset.pick(idx.len());
                let mut items = Vec::new();
                let mut keys = Vec::new();
                for (k, &i) in idx.iter().enumerate() {
                    if listed[k] {
                        keys.push(key(layout, i, 0));
                    } else if stored(i) {
                        items.push(item(layout, i));
                    }
                }
                let first = idx[0];
                let mut out = BatchGetItemOutput::builder();
                match odd % 9 {
                    0 => out = out.responses(OTHER_TABLE, vec![item(layout, first)]),
                    1 => items.push(item(layout, FOREIGN)),
                    2 => {
                        // Returned more than once.
                        if listed[0] || !stored(first) {
                            items.push(item(layout, first));
                        }
                        items.push(item(layout, first));
                    }
                    3 => {
                        let mut keyless = item(layout, first);
                        keyless.remove(if layout == Layout::App { "pk" } else { "id" });
                        items.push(keyless);
                    }
                    4 => keys.push(key(layout, FOREIGN, 0)),
                    5 => {
                        // Returned and listed as unprocessed.
                        if listed[0] || !stored(first) {
                            items.push(item(layout, first));
                        }
                        if !listed[0] {
                            keys.push(key(layout, first, 0));
                        }
                    }
                    6 => {
                        if !listed[0] {
                            keys.push(key(layout, first, 0));
                        }
                        keys.push(key(layout, first, 1));
                    }
                    7 => {
                        out = out.unprocessed_keys(
                            OTHER_TABLE,
                            keys_and_attributes(vec![key(layout, first, 0)]),
                        )
                    }
                    _ => {
                        let mut wrong = key(layout, first, 0);
                        let name = if layout == Layout::App { "sk" } else { "id" };
                        wrong.insert(name.into(), AttributeValue::Bool(true));
                        keys.push(wrong);
                    }
                }
                MockResponse::Output(
                    out.responses(TABLE, items)
                        .unprocessed_keys(TABLE, keys_and_attributes(keys))
                        .build(),
                )
            }
            Answer::Throttled => {
                MockResponse::Error(BatchGetItemError::ProvisionedThroughputExceededException(
                    ProvisionedThroughputExceededException::builder()
                        .message("slow down")
                        .build(),
                ))
            }
            Answer::Internal { .. } => MockResponse::Error(BatchGetItemError::InternalServerError(
                InternalServerError::builder().message("boom").build(),
            )),
            Answer::NotFound => MockResponse::Error(BatchGetItemError::ResourceNotFoundException(
                ResourceNotFoundException::builder()
                    .message("Requested resource not found")
                    .build(),
            )),
            Answer::Http { status, body, .. } => {
                let (text, kind) = BODIES[usize::from(body)];
                if meaning(status, kind) == Meaning::Success {
                    for &i in &idx {
                        self.settled[i] = true;
                    }
                }
                MockResponse::Http(http(status, text))
            }
        }
    }

    fn transact(
        &mut self,
        input: &TransactWriteItemsInput,
    ) -> MockResponse<TransactWriteItemsOutput, TransactWriteItemsError> {
        self.calls += 1;
        let actions = input.transact_items();
        assert_eq!(
            actions.len(),
            self.case.tx_actions.len().min(100),
            "the transaction sent has the actions added"
        );
        match self.case.tx_answer.clone() {
            TxAnswer::Ok => MockResponse::Output(TransactWriteItemsOutput::builder().build()),
            TxAnswer::Canceled(reasons) => {
                let reasons = reasons
                    .into_iter()
                    .map(|(code, message)| {
                        CancellationReason::builder()
                            .set_code(CODES[usize::from(code)].map(str::to_owned))
                            .set_message(message.then(|| "why".to_owned()))
                            .build()
                    })
                    .collect();
                MockResponse::Error(TransactWriteItemsError::TransactionCanceledException(
                    TransactionCanceledException::builder()
                        .message("canceled")
                        .set_cancellation_reasons(Some(reasons))
                        .build(),
                ))
            }
            TxAnswer::Throttled => MockResponse::Error(
                TransactWriteItemsError::ProvisionedThroughputExceededException(
                    ProvisionedThroughputExceededException::builder().build(),
                ),
            ),
            TxAnswer::Internal => {
                MockResponse::Error(TransactWriteItemsError::InternalServerError(
                    InternalServerError::builder().build(),
                ))
            }
            TxAnswer::NotFound => {
                MockResponse::Error(TransactWriteItemsError::ResourceNotFoundException(
                    ResourceNotFoundException::builder().build(),
                ))
            }
            TxAnswer::Http { status, body } => {
                MockResponse::Http(http(status, BODIES[usize::from(body)].0))
            }
        }
    }
}

// --------------------------------------------------------------- running

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
    })
}

/// One client for every run (its rules read the case from `FAKE`), with the
/// SDK's own retries off: the crate's are under test.
fn client() -> &'static Client {
    static CLIENT: OnceLock<Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        let write = mock!(Client::batch_write_item)
            .then_compute_response(|input| with_fake(|f| f.write(input)));
        let get = mock!(Client::batch_get_item)
            .then_compute_response(|input| with_fake(|f| f.get(input)));
        let transact = mock!(Client::transact_write_items)
            .then_compute_response(|input| with_fake(|f| f.transact(input)));
        mock_client!(
            aws_sdk_dynamodb,
            RuleMode::MatchAny,
            [&write, &get, &transact],
            |c| c.retry_config(RetryConfig::disabled())
        )
    })
}

enum Outcome {
    Write(dynamodb_mapper::Result<dynamodb_mapper::ops::BatchSummary>),
    Get(dynamodb_mapper::Result<(Vec<Item>, dynamodb_mapper::ops::BatchSummary)>),
    Transact(
        dynamodb_mapper::Result<dynamodb_mapper::ops::TransactionSummary>,
        Vec<(ActionKind, usize)>,
    ),
}

fn run(case: &Case) -> Outcome {
    let client = client();
    let layout = case.layout;
    let n = case.items;
    let policy = RetryPolicy::new(case.attempts).base_delay(Duration::ZERO);
    let schema = match layout {
        Layout::App => APP_TABLE,
        Layout::Numbered => NUMBERED,
    };
    let mut keys: Vec<Item> = (0..n).map(|i| key(layout, i, 0)).collect();
    let mut items: Vec<Item> = (0..n).map(|i| item(layout, i)).collect();
    let mut customers: Vec<Customer> = (0..n).map(|i| customer(&customer_id(i))).collect();
    if case.duplicate_input && n > 0 {
        keys.push(key(layout, 0, 1));
        items.push(respelled_item(layout, 0, 1));
        customers.push(customers[0].clone());
    }
    let writer = Table::new(client, TABLE, schema)
        .retry_policy(policy)
        .batch_writer()
        .concurrency(case.concurrency);
    let getter = Table::new(client, TABLE, schema)
        .retry_policy(policy)
        .batch_getter()
        .concurrency(case.concurrency);
    let bound = Duration::from_secs(5);
    runtime().block_on(async {
        match case.op {
            Op::Put => {
                let done = match layout {
                    Layout::App => {
                        tokio::time::timeout(bound, writer.put::<CustomerMapper>(&customers)).await
                    }
                    Layout::Numbered => tokio::time::timeout(bound, writer.put_items(items)).await,
                };
                Outcome::Write(done.unwrap_or_else(|_| hang("BatchWriter::put")))
            }
            Op::DeleteKeys => Outcome::Write(
                tokio::time::timeout(bound, writer.delete_keys(keys))
                    .await
                    .unwrap_or_else(|_| hang("BatchWriter::delete_keys")),
            ),
            Op::Mixed(_) => {
                let requests = keys
                    .into_iter()
                    .zip(items)
                    .enumerate()
                    .map(|(i, (k, it))| {
                        if case.is_put(i) {
                            put_request(it)
                        } else {
                            delete_request(k)
                        }
                    })
                    .collect();
                Outcome::Write(
                    tokio::time::timeout(bound, writer.write(requests))
                        .await
                        .unwrap_or_else(|_| hang("BatchWriter::write")),
                )
            }
            Op::Get => Outcome::Get(
                tokio::time::timeout(bound, getter.get_items(keys))
                    .await
                    .unwrap_or_else(|_| hang("BatchGetter::get_items")),
            ),
            Op::Transact => {
                let mut tx = Table::new(&client, TABLE, APP_TABLE).transaction();
                let mut added = Vec::new();
                for (i, action) in case.tx_actions.iter().enumerate() {
                    let c = &customers[i];
                    // A refused action hands nothing back: the transaction
                    // before it is kept.
                    let before = tx.clone();
                    let pushed = match action {
                        TxAction::Put => before
                            .put::<CustomerMapper>(c)
                            .map(|t| (t, ActionKind::Put)),
                        TxAction::Delete => before
                            .delete::<CustomerMapper>(key(Layout::App, i, 0))
                            .map(|t| (t, ActionKind::Delete)),
                        TxAction::Check => before
                            .condition_check::<CustomerMapper>(
                                key(Layout::App, i, 0),
                                dynamodb_mapper::expr::attr("pk").exists(),
                            )
                            .map(|t| (t, ActionKind::ConditionCheck)),
                    };
                    match pushed {
                        Ok((next, kind)) => {
                            tx = next;
                            added.push((kind, i));
                        }
                        Err(e) => {
                            assert!(i >= 100, "action {i} refused: {e}");
                            assert_eq!(e.kind(), dynamodb_mapper::ErrorKind::Limit, "{e}");
                        }
                    }
                }
                let result = tokio::time::timeout(bound, tx.send())
                    .await
                    .unwrap_or_else(|_| hang("Transaction::send"));
                Outcome::Transact(result, added)
            }
        }
    })
}

fn hang(what: &str) -> ! {
    panic!("{what} did not return within 5 s")
}

// ---------------------------------------------------------------- oracle

/// The index of a write request handed back, and that it is one sent.
fn handed_back(case: &Case, request: &WriteRequest) -> usize {
    let layout = case.layout;
    let (attrs, is_put) = match (&request.put_request, &request.delete_request) {
        (Some(p), None) => (&p.item, true),
        (None, Some(d)) => (&d.key, false),
        _ => panic!("handed back a request without one action: {request:?}"),
    };
    let i = index_of(layout, attrs).expect("handed back a request never given");
    assert!(i < case.items, "handed back key {i}, never given");
    assert_eq!(
        is_put,
        case.is_put(i),
        "handed back key {i} as the wrong kind"
    );
    if is_put {
        assert_eq!(*attrs, item(layout, i), "handed back a put changed");
    } else {
        assert_eq!(*attrs, key(layout, i, 0), "handed back a delete changed");
    }
    i
}

fn check_refusal(case: &Case, fake: &Fake, err: &Error) {
    assert_eq!(
        fake.calls, 0,
        "an error other than an incomplete batch after a call: {err:?}"
    );
    assert!(
        case.duplicate_input,
        "valid input refused before sending: {err:?}"
    );
    assert_eq!(
        err.kind(),
        dynamodb_mapper::ErrorKind::DuplicateKey,
        "{err:?}"
    );
}

fn check_write(
    case: &Case,
    fake: &Fake,
    result: &dynamodb_mapper::Result<dynamodb_mapper::ops::BatchSummary>,
) {
    let n = case.items;
    for i in 0..n {
        assert!(
            fake.applied[i] <= 1 || fake.ambiguous[i],
            "key {i} applied {} times without an ambiguous answer",
            fake.applied[i]
        );
    }
    match result {
        Ok(summary) => {
            assert!(
                !(case.duplicate_input && n > 0),
                "a duplicate key was accepted"
            );
            assert_eq!(summary.items, n, "Ok, but {} of {n} items", summary.items);
            for i in 0..n {
                assert!(fake.applied[i] > 0, "Ok, but key {i} was never applied");
            }
        }
        Err(err) if err.kind() == ErrorKind::BatchWriteIncomplete => {
            let ErrorDetails::BatchWriteIncomplete { unwritten, .. } = err.details() else {
                unreachable!("the kind says so")
            };
            let (written, unprocessed, in_doubt) = (
                unwritten.written,
                &unwritten.unprocessed[..],
                &unwritten.in_doubt[..],
            );
            assert!(!case.duplicate_input, "a duplicate key was accepted");
            assert!(fake.calls > 0, "incomplete without a call");
            assert_eq!(
                written + unprocessed.len() + in_doubt.len(),
                n,
                "written {written} + unprocessed {} + in doubt {} != sent {n}",
                unprocessed.len(),
                in_doubt.len()
            );
            let mut back = vec![0u8; n];
            for r in unprocessed {
                let i = handed_back(case, r);
                assert_eq!(
                    fake.applied[i], 0,
                    "key {i} handed back as not written, but the fake applied it {} times",
                    fake.applied[i]
                );
                back[i] += 1;
            }
            for r in in_doubt {
                let i = handed_back(case, r);
                back[i] += 1;
            }
            for i in 0..n {
                assert!(back[i] <= 1, "key {i} handed back twice");
                if back[i] == 0 {
                    assert!(
                        fake.applied[i] > 0,
                        "key {i} counted as written, but the fake never applied it"
                    );
                }
            }
        }
        Err(err) => check_refusal(case, fake, err),
    }
}

fn check_get(
    case: &Case,
    fake: &Fake,
    result: &dynamodb_mapper::Result<(Vec<Item>, dynamodb_mapper::ops::BatchSummary)>,
) {
    let n = case.items;
    let layout = case.layout;
    let read = |items: &[Item]| -> Vec<u8> {
        let mut seen = vec![0u8; n];
        for it in items {
            let i = index_of(layout, it).expect("read an item of a key never asked for");
            assert!(i < n, "read key {i}, never asked for");
            assert!(case.stores(i), "read key {i}, which the fake does not hold");
            assert!(seen[i] == 0, "read key {i} twice");
            seen[i] = 1;
        }
        seen
    };
    match result {
        Ok((items, summary)) => {
            assert!(
                !(case.duplicate_input && n > 0),
                "a duplicate key was accepted"
            );
            assert_eq!(summary.items, items.len());
            let seen = read(items);
            for i in 0..n {
                assert!(
                    !case.stores(i) || seen[i] == 1,
                    "Ok, but stored key {i} was neither read nor handed back"
                );
            }
        }
        Err(err) if err.kind() == ErrorKind::BatchGetIncomplete => {
            let ErrorDetails::BatchGetIncomplete { unread, .. } = err.details() else {
                unreachable!("the kind says so")
            };
            let (items, unprocessed) = (&unread.read[..], &unread.unprocessed[..]);
            assert!(!case.duplicate_input, "a duplicate key was accepted");
            assert!(fake.calls > 0, "incomplete without a call");
            let mut seen = read(items);
            for k in unprocessed {
                let i = index_of(layout, k).expect("handed back a key never asked for");
                assert!(i < n, "handed back key {i}, never asked for");
                assert_eq!(*k, key(layout, i, 0), "handed back key {i} changed");
                assert!(
                    seen[i] == 0,
                    "key {i} read and handed back, or handed back twice"
                );
                seen[i] = 1;
            }
            for i in 0..n {
                assert!(
                    !case.stores(i) || seen[i] == 1,
                    "stored key {i} was neither read nor handed back"
                );
            }
        }
        Err(err) => check_refusal(case, fake, err),
    }
}

fn check_transact(
    case: &Case,
    fake: &Fake,
    result: &dynamodb_mapper::Result<dynamodb_mapper::ops::TransactionSummary>,
    added: &[(ActionKind, usize)],
) {
    let sent = !added.is_empty();
    assert_eq!(fake.calls, usize::from(sent), "one call per transaction");
    let success = match &case.tx_answer {
        TxAnswer::Ok => true,
        TxAnswer::Http { status, body } => {
            meaning(*status, BODIES[usize::from(*body)].1) == Meaning::Success
        }
        _ => false,
    };
    match result {
        Ok(summary) => {
            assert!(
                !sent || success,
                "Ok after a failure answer: {:?}",
                case.tx_answer
            );
            // The table never asks, so nothing the service says is reported.
            assert_eq!(summary.consumed_capacity, None);
        }
        Err(err) if err.kind() == ErrorKind::TransactionCanceled => {
            let ErrorDetails::TransactionCanceled { canceled, .. } = err.details() else {
                unreachable!("the kind says so")
            };
            assert!(!success, "canceled after a success answer");
            let reasons: Vec<(Option<&str>, bool)> = match &case.tx_answer {
                TxAnswer::Canceled(reasons) => reasons
                    .iter()
                    .map(|&(c, m)| (CODES[usize::from(c)], m))
                    .collect(),
                TxAnswer::Http { .. } => vec![
                    (Some("None"), false),
                    (Some("ConditionalCheckFailed"), true),
                ],
                other => panic!("canceled after {other:?}"),
            };
            let mut last = None;
            for c in canceled {
                assert!(
                    last < Some(c.index),
                    "canceled actions out of order or twice"
                );
                last = Some(c.index);
                let (kind, i) = *added
                    .get(c.index)
                    .unwrap_or_else(|| panic!("canceled action {} of {}", c.index, added.len()));
                let (code, message) = reasons
                    .get(c.index)
                    .copied()
                    .unwrap_or_else(|| panic!("canceled action {} without a reason", c.index));
                assert_eq!(c.code, code.unwrap_or("None"), "code of action {}", c.index);
                assert_ne!(
                    c.code, "None",
                    "an action that did not fail reported canceled"
                );
                assert_eq!(
                    c.message.is_some(),
                    message,
                    "message of action {}",
                    c.index
                );
                assert_eq!(c.action.kind, kind);
                assert_eq!(c.action.table, TABLE);
                assert_eq!(c.action.entity_type, CustomerMapper::ENTITY_TYPE);
                assert_eq!(c.action.key, key(Layout::App, i, 0));
            }
            if reasons.len() == added.len() {
                let failed = reasons
                    .iter()
                    .filter(|(c, _)| c.unwrap_or("None") != "None")
                    .count();
                assert_eq!(canceled.len(), failed, "every failed action is reported");
            }
        }
        Err(err) => assert!(sent && !success, "{err:?} after {:?}", case.tx_answer),
    }
}

fuzz_target!(|case: Case| {
    *fake() = Some(Fake::new(case.clone()));
    let outcome = run(&case);
    let fake = fake().take().expect("the case's fake");
    match &outcome {
        Outcome::Write(result) => check_write(&case, &fake, result),
        Outcome::Get(result) => check_get(&case, &fake, result),
        Outcome::Transact(result, added) => check_transact(&case, &fake, result, added),
    }
});
