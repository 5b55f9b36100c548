//! Where a nested value failed, recorded only when it fails: each list,
//! map and enum level that sees its element fail adds its step on the way
//! out, so a read that succeeds copies no key and keeps no path.
//!
//! The steps go to a per-thread log: the deserializer's types stay as serde
//! wants them (no lifetime for a shared log), and one read runs on one
//! thread. A list or map drops what was recorded since it was opened before
//! each element and after each element that succeeds (a failure something
//! caught and recovered from), so only the failure that ends the read is
//! left.

use std::cell::RefCell;

/// One step of a path.
pub(super) enum Step {
    /// An element of a list or set.
    Index(usize),
    /// An entry of a map, or an enum variant's content.
    Key(String),
}

thread_local! {
    /// The steps of the failure being reported, innermost first.
    static FAILED_AT: RefCell<Vec<Step>> = const { RefCell::new(Vec::new()) };
}

/// How many steps are recorded: a level's base, to [`forget_since`].
pub(super) fn mark() -> usize {
    FAILED_AT.with(|log| log.borrow().len())
}

/// Drops the steps recorded since `mark`.
pub(super) fn forget_since(mark: usize) {
    FAILED_AT.with(|log| {
        let mut log = log.borrow_mut();
        if log.len() > mark {
            log.truncate(mark);
        }
    });
}

/// Reads one element of a list or map opened at `base`: what earlier
/// elements recorded is dropped first (they recovered, or the read would
/// have stopped), and after a success; a failure records `step`.
pub(super) fn element<T, E>(
    base: usize,
    read: impl FnOnce() -> Result<T, E>,
    step: impl FnOnce() -> Step,
) -> Result<T, E> {
    forget_since(base);
    match read() {
        Ok(v) => {
            forget_since(base);
            Ok(v)
        }
        Err(e) => {
            record(step());
            Err(e)
        }
    }
}

/// Records that the element at `step` failed.
pub(super) fn record(step: Step) {
    FAILED_AT.with(|log| log.borrow_mut().push(step));
}

/// Starts a new read: no step recorded.
pub(crate) fn clear() {
    FAILED_AT.with(|log| log.borrow_mut().clear());
}

/// The recorded path, outermost first (`a.b[0].c`, `[1].qty`; empty when
/// the value itself failed), and a new read started.
pub(crate) fn take() -> String {
    use std::fmt::Write as _;
    let steps = FAILED_AT.with(|log| std::mem::take(&mut *log.borrow_mut()));
    let mut out = String::new();
    for step in steps.iter().rev() {
        match step {
            Step::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_written_outermost_first_and_forgotten_on_success() {
        clear();
        record(Step::Key("qty".into()));
        record(Step::Index(1));
        assert_eq!(take(), "[1].qty");
        assert_eq!(take(), "");
        record(Step::Index(0));
        let m = mark();
        record(Step::Key("recovered".into()));
        forget_since(m);
        record(Step::Key("tags".into()));
        assert_eq!(take(), "tags[0]");
    }
}
