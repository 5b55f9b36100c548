//! The actions of a transaction, as [`Error::canceled`] reports the ones
//! DynamoDB gave a cancellation reason for (re-exported by `ops`, which
//! builds them).
//!
//! [`Error::canceled`]: super::Error::canceled

use std::collections::HashMap;
use std::fmt;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::describe::describe_key;

/// What an action of a transaction does.
///
/// ```
/// assert_eq!(dynamodb_mapper::ops::ActionKind::Put.to_string(), "put");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ActionKind {
    /// `Put`.
    Put,
    /// `Delete`.
    Delete,
    /// `ConditionCheck`.
    ConditionCheck,
    /// `Update`.
    Update,
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ActionKind::Put => "put",
            ActionKind::Delete => "delete",
            ActionKind::ConditionCheck => "condition check",
            ActionKind::Update => "update",
        })
    }
}

/// What the crate knows of one action: kind, table, entity type and key.
///
/// ```
/// use dynamodb_mapper::{Item, ops::{ActionInfo, ActionKind}};
/// let info = ActionInfo::new(ActionKind::Delete, "AppTable", "Order", Item::new());
/// assert_eq!(info.entity_type, "Order");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ActionInfo {
    /// What the action does.
    pub kind: ActionKind,
    /// The table it addresses.
    pub table: String,
    /// The entity type it is for.
    pub entity_type: String,
    /// The primary key of its item.
    pub key: HashMap<String, AttributeValue>,
}

impl ActionInfo {
    /// Describes an action added with `ops::Transaction::push`.
    ///
    /// ```
    /// use dynamodb_mapper::{Item, ops::{ActionInfo, ActionKind}};
    /// let info = ActionInfo::new(ActionKind::Put, "T", "Audit", Item::new());
    /// assert_eq!(info.kind, ActionKind::Put);
    /// ```
    #[must_use]
    pub fn new(
        kind: ActionKind,
        table: impl Into<String>,
        entity_type: impl Into<String>,
        key: HashMap<String, AttributeValue>,
    ) -> Self {
        ActionInfo {
            kind,
            table: table.into(),
            entity_type: entity_type.into(),
            key,
        }
    }
}

/// One action DynamoDB gave a cancellation reason for.
///
/// ```
/// use dynamodb_mapper::{Item, ops::{ActionInfo, ActionKind, CanceledAction}};
/// let c = CanceledAction::new(
///     1,
///     ActionInfo::new(ActionKind::Put, "T", "Order", Item::new()),
///     "ConditionalCheckFailed".into(),
///     None,
///     None,
/// );
/// assert_eq!(c.to_string(), "action 1 (put Order ): ConditionalCheckFailed");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CanceledAction {
    /// Position of the action in the transaction.
    pub index: usize,
    /// The action.
    pub action: ActionInfo,
    /// DynamoDB's code, e.g. `ConditionalCheckFailed`, `TransactionConflict`.
    pub code: String,
    /// DynamoDB's message, if any.
    pub message: Option<String>,
    /// The item as it was when the action's condition failed, when the
    /// action asked for it (every conditional action the crate builds
    /// does) and the item existed; decode it through its mapper with
    /// `CanceledAction::decoded`.
    pub item: Option<HashMap<String, AttributeValue>>,
}

impl CanceledAction {
    /// A cancellation reason for the action `index`: what the crate reads
    /// from DynamoDB's answer, and what a test of code that handles
    /// cancellations builds.
    ///
    /// ```
    /// use dynamodb_mapper::{Item, ops::{ActionInfo, ActionKind, CanceledAction}};
    /// let c = CanceledAction::new(0, ActionInfo::new(ActionKind::Delete, "T", "Order", Item::new()), "TransactionConflict".into(), None, None);
    /// assert_eq!(c.code, "TransactionConflict");
    /// ```
    #[must_use]
    pub fn new(
        index: usize,
        action: ActionInfo,
        code: String,
        message: Option<String>,
        item: Option<HashMap<String, AttributeValue>>,
    ) -> Self {
        CanceledAction {
            index,
            action,
            code,
            message,
            item,
        }
    }
}

impl fmt::Display for CanceledAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "action {} ({} {} {}): {}",
            self.index,
            self.action.kind,
            self.action.entity_type,
            describe_key(&self.action.key),
            self.code
        )?;
        if let Some(m) = &self.message {
            write!(f, " ({m})")?;
        }
        Ok(())
    }
}
