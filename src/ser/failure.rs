//! Why serialization failed: serde's error or a value nested too deep,
//! and the attribute path, built step by step as the error unwinds.

use std::fmt;

use serde::ser;

/// How deep options, newtypes, lists and maps may nest in one attribute, all
/// counted (lists and maps alone are bounded by `MAX_NESTING`). Far more
/// than any real entity needs; it bounds the serializer's recursion for
/// values that nest without producing lists or maps (`Some(Some(…))`).
pub(super) const MAX_SERDE_DEPTH: usize = 256;

/// A failed serialization: why, and where inside the value.
pub(crate) struct Failure {
    /// Why.
    pub(crate) cause: Cause,
    /// Where, innermost step first (pushed as the error unwinds).
    steps: Vec<PathStep>,
}

/// Why a serialization failed.
pub(crate) enum Cause {
    /// The value cannot be written (the serializer's or the value's error).
    Serde(serde_dynamo::Error),
    /// The value nests deeper than allowed; the reason says how.
    TooDeep(String),
}

pub(super) enum PathStep {
    Index(usize),
    Key(String),
}

impl Failure {
    pub(super) fn new(cause: Cause) -> Self {
        Failure {
            cause,
            steps: Vec::new(),
        }
    }

    pub(super) fn at(mut self, step: PathStep) -> Self {
        self.steps.push(step);
        self
    }

    /// The path inside the value serialized: `[2].price`, `.address.city`
    /// (a leading `.` for a map entry); empty for the value itself.
    pub(crate) fn path(&self) -> String {
        use fmt::Write as _;
        let mut out = String::new();
        for step in self.steps.iter().rev() {
            let _ = match step {
                PathStep::Index(i) => write!(out, "[{i}]"),
                PathStep::Key(k) => write!(out, ".{k}"),
            };
        }
        out
    }
}

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self} at {:?}", self.path())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.cause {
            Cause::Serde(e) => e.fmt(f),
            Cause::TooDeep(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for Failure {}

impl ser::Error for Failure {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        Failure::new(Cause::Serde(<serde_dynamo::Error as ser::Error>::custom(
            msg,
        )))
    }
}
