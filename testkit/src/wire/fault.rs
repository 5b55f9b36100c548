//! The rules of a [`Wire`](super::Wire): which fault, on which operations
//! and tables, how often, how many times, and the seeded dice that decide.

use std::time::Duration;

use crate::TestkitError;

/// One fault rule of a [`Wire`](super::Wire): what goes wrong, on which
/// requests, how often.
///
/// A rule matches the requests of its operations ([`on`](Fault::on); by
/// default every operation the fault makes sense for) on its table
/// ([`table`](Fault::table); by default any), and strikes a
/// [`rate`](Fault::rate) of them (by default all), at most
/// [`times`](Fault::times) times (by default without limit). Which of the
/// matching requests it strikes is decided by dice seeded from the wire's
/// seed, so a test that sends the same requests in the same order sees the
/// same faults.
///
/// | fault | applied? | what the client sees |
/// |---|---|---|
/// | [`throttle`](Fault::throttle) | no | `ProvisionedThroughputExceededException` (`ThrottlingException` for table operations) |
/// | [`unprocessed`](Fault::unprocessed) | the rest of the batch | a batch answer listing the entries held back (each with probability `fraction`) as `UnprocessedItems` / `UnprocessedKeys`; all of them held back: `ProvisionedThroughputExceededException`, as DynamoDB refuses such a batch |
/// | [`conflict`](Fault::conflict) | no | `TransactionCanceledException` with one `TransactionConflict` reason (`TransactionConflictException` for single-item writes) |
/// | [`error_before_apply`](Fault::error_before_apply) | no | a 500 `InternalServerError`, as for `error_after_apply` |
/// | [`error_after_apply`](Fault::error_after_apply) | yes (when the server accepted it) | a 500 `InternalServerError` |
/// | [`drop_after_apply`](Fault::drop_after_apply) | yes (when the server accepted it) | a connection closed before the answer |
/// | [`cut_answer`](Fault::cut_answer) | yes (when the server accepted it) | the answer's status and headers, then half its body, then a connection closed |
/// | [`delay`](Fault::delay) | after the delay | the real answer, late |
/// | [`silence`](Fault::silence) | no | nothing, until the client's read, attempt or operation timeout |
///
/// A batch the server would refuse whole (over 25 writes or 100 keys,
/// one key twice) is sent on untouched rather than answered partly, and a
/// request the server refuses is answered with its refusal, not with an
/// "after apply" fault: a rule strikes only where the fault can happen.
///
/// ```
/// use std::time::Duration;
/// use dynamodb_mapper_testkit::Fault;
///
/// let rule = Fault::throttle().on("PutItem").table("Orders").rate(0.25).times(3);
/// assert_eq!(rule.to_string(), "throttle on PutItem of Orders, rate 0.25, at most 3 times");
/// assert_eq!(Fault::delay(Duration::from_millis(50)).to_string(), "delay 50ms");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub(super) kind: Kind,
    pub(super) ops: Vec<String>,
    pub(super) table: Option<String>,
    pub(super) rate: f64,
    pub(super) times: Option<u64>,
}

/// What a rule does to a request it strikes.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Kind {
    Throttle,
    Unprocessed(f64),
    Conflict,
    ErrorBeforeApply,
    ErrorAfterApply,
    DropAfterApply,
    CutAnswer,
    Delay(Duration),
    Silence,
}

/// The operations that write items (a fault "after apply" is about them,
/// though it strikes reads as well if asked).
const WRITES: &[&str] = &[
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
];
const BATCHES: &[&str] = &["BatchWriteItem", "BatchGetItem"];
const TRANSACTIONS: &[&str] = &["TransactWriteItems", "TransactGetItems"];
/// Single-item writes that DynamoDB refuses while a transaction holds the item.
const CONFLICTING: &[&str] = &["PutItem", "UpdateItem", "DeleteItem"];
/// Every operation of DynamoDB (the `aws-sdk-dynamodb` client's), by the
/// name a rule gives it.
const KNOWN: &[&str] = &[
    "BatchExecuteStatement",
    "BatchGetItem",
    "BatchWriteItem",
    "CreateBackup",
    "CreateGlobalTable",
    "CreateTable",
    "DeleteBackup",
    "DeleteItem",
    "DeleteResourcePolicy",
    "DeleteTable",
    "DescribeBackup",
    "DescribeContinuousBackups",
    "DescribeContributorInsights",
    "DescribeEndpoints",
    "DescribeExport",
    "DescribeGlobalTable",
    "DescribeGlobalTableSettings",
    "DescribeImport",
    "DescribeKinesisStreamingDestination",
    "DescribeLimits",
    "DescribeTable",
    "DescribeTableReplicaAutoScaling",
    "DescribeTimeToLive",
    "DisableKinesisStreamingDestination",
    "EnableKinesisStreamingDestination",
    "ExecuteStatement",
    "ExecuteTransaction",
    "ExportTableToPointInTime",
    "GetItem",
    "GetResourcePolicy",
    "ImportTable",
    "ListBackups",
    "ListContributorInsights",
    "ListExports",
    "ListGlobalTables",
    "ListImports",
    "ListTables",
    "ListTagsOfResource",
    "PutItem",
    "PutResourcePolicy",
    "Query",
    "RestoreTableFromBackup",
    "RestoreTableToPointInTime",
    "Scan",
    "SearchVectors",
    "TagResource",
    "TransactGetItems",
    "TransactWriteItems",
    "UntagResource",
    "UpdateContinuousBackups",
    "UpdateContributorInsights",
    "UpdateGlobalTable",
    "UpdateGlobalTableSettings",
    "UpdateItem",
    "UpdateKinesisStreamingDestination",
    "UpdateTable",
    "UpdateTableReplicaAutoScaling",
    "UpdateTimeToLive",
];

impl Fault {
    fn new(kind: Kind) -> Fault {
        Fault {
            kind,
            ops: Vec::new(),
            table: None,
            rate: 1.0,
            times: None,
        }
    }

    /// Refuse the request as DynamoDB does when over its capacity: nothing
    /// is applied, and the SDK's retry policy sees a throttling error.
    ///
    /// ```
    /// let rule = dynamodb_mapper_testkit::Fault::throttle().rate(0.5);
    /// assert_eq!(rule.to_string(), "throttle, rate 0.5");
    /// ```
    #[must_use]
    pub fn throttle() -> Fault {
        Fault::new(Kind::Throttle)
    }

    /// Hand back a batch's entries unprocessed, each with probability
    /// `fraction` (0 to 1): `BatchWriteItem` applies the rest and lists
    /// these under `UnprocessedItems`; `BatchGetItem` reads the rest and
    /// lists these under `UnprocessedKeys`. When every entry is held back,
    /// the batch is refused with `ProvisionedThroughputExceededException`,
    /// as DynamoDB does. A batch of which nothing is held back goes through
    /// and does not count as struck. Only the batch operations.
    ///
    /// ```
    /// let rule = dynamodb_mapper_testkit::Fault::unprocessed(0.3);
    /// assert_eq!(rule.to_string(), "unprocessed 0.3");
    /// ```
    #[must_use]
    pub fn unprocessed(fraction: f64) -> Fault {
        Fault::new(Kind::Unprocessed(fraction))
    }

    /// Cancel the request for a conflict with another transaction, applying
    /// nothing: a transaction gets `TransactionCanceledException` with one
    /// reason per action, one of them (chosen by the dice)
    /// `TransactionConflict` and the others `None`; a `PutItem`,
    /// `UpdateItem` or `DeleteItem` gets `TransactionConflictException`.
    ///
    /// ```
    /// let rule = dynamodb_mapper_testkit::Fault::conflict().on("TransactWriteItems");
    /// assert_eq!(rule.to_string(), "conflict on TransactWriteItems");
    /// ```
    #[must_use]
    pub fn conflict() -> Fault {
        Fault::new(Kind::Conflict)
    }

    /// Apply the request on the server, then answer `500
    /// InternalServerError` instead of its answer: the in-doubt case, where
    /// the client cannot tell that the write was made. Strikes only
    /// requests the server accepted (a refusal passes through, and does not
    /// count); by default only the writes.
    ///
    /// ```
    /// let rule = dynamodb_mapper_testkit::Fault::error_after_apply().times(1);
    /// assert_eq!(rule.to_string(), "error after apply, once");
    /// ```
    #[must_use]
    pub fn error_after_apply() -> Fault {
        Fault::new(Kind::ErrorAfterApply)
    }

    /// Answer a 500 `InternalServerError` without sending the request on:
    /// nothing applied, and the client cannot tell it from
    /// [`error_after_apply`](Fault::error_after_apply). A helper that reports
    /// either as done, or as refused, is wrong one time in two. By default
    /// only the writes.
    ///
    /// ```
    /// let rule = dynamodb_mapper_testkit::Fault::error_before_apply().rate(0.1);
    /// assert_eq!(rule.to_string(), "error before apply, rate 0.1");
    /// ```
    #[must_use]
    pub fn error_before_apply() -> Fault {
        Fault::new(Kind::ErrorBeforeApply)
    }

    /// Apply the request on the server, then drop the connection instead of
    /// answering: the client gets an I/O error, the other in-doubt case.
    /// Strikes only requests the server accepted; by default only the
    /// writes.
    ///
    /// ```
    /// let rule = dynamodb_mapper_testkit::Fault::drop_after_apply().on("UpdateItem");
    /// assert_eq!(rule.to_string(), "drop after apply on UpdateItem");
    /// ```
    #[must_use]
    pub fn drop_after_apply() -> Fault {
        Fault::new(Kind::DropAfterApply)
    }

    /// Apply the request on the server, then send its answer's status and
    /// headers and half its body, and close the connection: the client has
    /// a `200` it cannot read, another in-doubt case. Strikes only requests
    /// the server accepted; by default only the writes.
    ///
    /// ```
    /// let rule = dynamodb_mapper_testkit::Fault::cut_answer().on("PutItem");
    /// assert_eq!(rule.to_string(), "cut answer on PutItem");
    /// ```
    #[must_use]
    pub fn cut_answer() -> Fault {
        Fault::new(Kind::CutAnswer)
    }

    /// Wait `delay` before sending the request on. A client that gives up
    /// sooner (an operation or attempt timeout) has sent nothing.
    ///
    /// ```
    /// use std::time::Duration;
    /// let rule = dynamodb_mapper_testkit::Fault::delay(Duration::from_secs(1)).on("Query");
    /// assert_eq!(rule.to_string(), "delay 1s on Query");
    /// ```
    #[must_use]
    pub fn delay(delay: Duration) -> Fault {
        Fault::new(Kind::Delay(delay))
    }

    /// Never answer, and apply nothing: a server that accepted the
    /// connection and went silent. Only the client's timeouts end the wait
    /// (the SDK's read, attempt or operation timeout, or a helper's own
    /// bound).
    ///
    /// ```
    /// let rule = dynamodb_mapper_testkit::Fault::silence().on("GetItem");
    /// assert_eq!(rule.to_string(), "silence on GetItem");
    /// ```
    #[must_use]
    pub fn silence() -> Fault {
        Fault::new(Kind::Silence)
    }

    /// Only requests of this operation (DynamoDB's name, e.g.
    /// `"BatchWriteItem"`); call it again to add more. The wire refuses a
    /// name it does not know, or an operation the fault cannot strike.
    ///
    /// ```
    /// let rule = dynamodb_mapper_testkit::Fault::throttle().on("Query").on("Scan");
    /// assert_eq!(rule.to_string(), "throttle on Query, Scan");
    /// ```
    #[must_use]
    pub fn on(mut self, operation: &str) -> Fault {
        self.ops.push(operation.to_owned());
        self
    }

    /// Only requests on this table (a batch or transaction matches when any
    /// of its entries is on it, and only those entries are held back).
    ///
    /// ```
    /// let rule = dynamodb_mapper_testkit::Fault::unprocessed(1.0).table("Orders");
    /// assert_eq!(rule.to_string(), "unprocessed 1 of Orders");
    /// ```
    #[must_use]
    pub fn table(mut self, name: &str) -> Fault {
        self.table = Some(name.to_owned());
        self
    }

    /// Strike this fraction (0 to 1) of the matching requests.
    ///
    /// ```
    /// let rule = dynamodb_mapper_testkit::Fault::throttle().rate(0.1);
    /// assert_eq!(rule.to_string(), "throttle, rate 0.1");
    /// ```
    #[must_use]
    pub fn rate(mut self, rate: f64) -> Fault {
        self.rate = rate;
        self
    }

    /// Strike at most `n` requests (at least one), then let every request
    /// through.
    ///
    /// ```
    /// let rule = dynamodb_mapper_testkit::Fault::silence().times(2);
    /// assert_eq!(rule.to_string(), "silence, at most 2 times");
    /// ```
    #[must_use]
    pub fn times(mut self, n: u64) -> Fault {
        self.times = Some(n);
        self
    }

    /// The operations this kind of fault can strike.
    fn applies_to(&self) -> &'static [&'static str] {
        match self.kind {
            Kind::Unprocessed(_) => BATCHES,
            Kind::Conflict => &[
                "TransactWriteItems",
                "TransactGetItems",
                "PutItem",
                "UpdateItem",
                "DeleteItem",
            ],
            _ => KNOWN,
        }
    }

    /// The operations a rule without [`on`](Fault::on) strikes: the writes
    /// for the faults "after apply" (a read answered then lost is a plain
    /// failure), else every operation the fault can strike.
    fn default_ops(&self) -> &'static [&'static str] {
        match self.kind {
            Kind::ErrorBeforeApply
            | Kind::ErrorAfterApply
            | Kind::DropAfterApply
            | Kind::CutAnswer => WRITES,
            _ => self.applies_to(),
        }
    }

    /// The rule as given, or why the wire refuses it.
    pub(super) fn checked(self) -> Result<Fault, TestkitError> {
        let refuse = |reason: String| TestkitError::InvalidFault {
            fault: self.to_string(),
            reason,
        };
        if !(0.0..=1.0).contains(&self.rate) {
            return Err(refuse(format!(
                "the rate {} is not between 0 and 1",
                self.rate
            )));
        }
        if let Kind::Unprocessed(f) = self.kind
            && !(0.0..=1.0).contains(&f)
        {
            return Err(refuse(format!("the fraction {f} is not between 0 and 1")));
        }
        if self.times == Some(0) {
            return Err(refuse("`times(0)` would never strike".to_owned()));
        }
        for op in &self.ops {
            if !KNOWN.contains(&op.as_str()) {
                return Err(refuse(format!(
                    "{op:?} is not an operation of DynamoDB (expected one of {})",
                    KNOWN.join(", ")
                )));
            }
            if !self.applies_to().contains(&op.as_str()) {
                return Err(refuse(format!(
                    "this fault cannot strike {op} (only {})",
                    self.applies_to().join(", ")
                )));
            }
        }
        Ok(self)
    }

    /// Whether the rule is about this operation.
    pub(super) fn matches_op(&self, op: &str) -> bool {
        if self.ops.is_empty() {
            self.default_ops().contains(&op)
        } else {
            self.ops.iter().any(|o| o == op)
        }
    }
}

impl Kind {
    /// The error code a refusal of `op` carries.
    pub(super) fn refusal(&self, op: &str) -> &'static str {
        match self {
            Kind::Conflict if TRANSACTIONS.contains(&op) => "TransactionCanceledException",
            Kind::Conflict if CONFLICTING.contains(&op) => "TransactionConflictException",
            Kind::Throttle if is_data_plane(op) => "ProvisionedThroughputExceededException",
            _ => "ThrottlingException",
        }
    }
}

/// Item reads and writes (throttled with `ProvisionedThroughputExceeded`),
/// as opposed to table operations.
fn is_data_plane(op: &str) -> bool {
    WRITES.contains(&op)
        || matches!(
            op,
            "GetItem" | "BatchGetItem" | "Query" | "Scan" | "TransactGetItems"
        )
        || op.contains("Statement")
        || op == "ExecuteTransaction"
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Kind::Throttle => f.write_str("throttle")?,
            Kind::Unprocessed(x) => write!(f, "unprocessed {x}")?,
            Kind::Conflict => f.write_str("conflict")?,
            Kind::ErrorBeforeApply => f.write_str("error before apply")?,
            Kind::ErrorAfterApply => f.write_str("error after apply")?,
            Kind::DropAfterApply => f.write_str("drop after apply")?,
            Kind::CutAnswer => f.write_str("cut answer")?,
            Kind::Delay(d) => write!(f, "delay {d:?}")?,
            Kind::Silence => f.write_str("silence")?,
        }
        if !self.ops.is_empty() {
            write!(f, " on {}", self.ops.join(", "))?;
        }
        if let Some(table) = &self.table {
            write!(f, " of {table}")?;
        }
        if self.rate < 1.0 {
            write!(f, ", rate {}", self.rate)?;
        }
        match self.times {
            Some(1) => f.write_str(", once")?,
            Some(n) => write!(f, ", at most {n} times")?,
            None => {}
        }
        Ok(())
    }
}

/// Dice: a counter-based generator (SplitMix64), so that the `n`-th roll of
/// a rule depends only on the seed, the rule and `n`.
#[derive(Debug, Clone)]
pub(super) struct Dice {
    state: u64,
}

impl Dice {
    pub(super) fn new(seed: u64, rule: usize, roll: u64) -> Dice {
        let mut d = Dice {
            state: seed ^ (rule as u64).wrapping_mul(0xA076_1D64_78BD_642F),
        };
        d.state ^= d.next().wrapping_add(roll);
        Dice { state: d.next() }
    }

    pub(super) fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `[0, 1)`.
    pub(super) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Whether an event of probability `p` happens (never for 0, always for 1).
    pub(super) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_the_wire_cannot_follow_are_refused_with_the_reason() {
        let bad = [
            (
                Fault::throttle().rate(1.5),
                "the rate 1.5 is not between 0 and 1",
            ),
            (
                Fault::unprocessed(-0.1),
                "the fraction -0.1 is not between 0 and 1",
            ),
            (
                Fault::throttle().on("Putitem"),
                "\"Putitem\" is not an operation",
            ),
            (
                Fault::unprocessed(0.5).on("PutItem"),
                "this fault cannot strike PutItem (only BatchWriteItem, BatchGetItem)",
            ),
            (
                Fault::conflict().on("Query"),
                "this fault cannot strike Query",
            ),
        ];
        for (fault, reason) in bad {
            let err = fault.clone().checked().expect_err("refused");
            assert!(err.to_string().contains(reason), "{err}");
            assert!(err.to_string().contains(&fault.to_string()), "{err}");
        }
        assert!(Fault::throttle().on("Query").checked().is_ok());
    }

    #[test]
    fn the_dice_depend_on_seed_rule_and_roll_only() {
        let rolls =
            |seed, rule| -> Vec<u64> { (0..50).map(|n| Dice::new(seed, rule, n).next()).collect() };
        assert_eq!(rolls(7, 0), rolls(7, 0));
        assert_ne!(rolls(7, 0), rolls(8, 0));
        assert_ne!(rolls(7, 0), rolls(7, 1));
        let hits = (0..10_000)
            .filter(|n| Dice::new(1, 0, *n).chance(0.25))
            .count();
        assert!((2_300..2_700).contains(&hits), "{hits}");
        assert!((0..1000).all(|n| !Dice::new(3, 0, n).chance(0.0)));
        assert!((0..1000).all(|n| Dice::new(3, 0, n).chance(1.0)));
    }

    #[test]
    fn each_fault_answers_with_the_error_dynamodb_uses() {
        assert_eq!(
            Kind::Throttle.refusal("PutItem"),
            "ProvisionedThroughputExceededException"
        );
        assert_eq!(
            Kind::Throttle.refusal("TransactWriteItems"),
            "ProvisionedThroughputExceededException"
        );
        assert_eq!(Kind::Throttle.refusal("CreateTable"), "ThrottlingException");
        assert_eq!(
            Kind::Throttle.refusal("UpdateTimeToLive"),
            "ThrottlingException"
        );
        assert_eq!(
            Kind::Conflict.refusal("TransactWriteItems"),
            "TransactionCanceledException"
        );
        assert_eq!(
            Kind::Conflict.refusal("UpdateItem"),
            "TransactionConflictException"
        );
    }
}
