//! The errors only the helpers raise, built here beside them: batches left
//! incomplete, time bounds, table creation, refused writes, version and
//! unique-value conflicts, transactions. The kinds, their data and their
//! messages are declared once in `error/`.

use std::time::Duration;

use crate::error::{CanceledAction, Error, ErrorDetails as D, Unread, Unwritten};

impl Error {
    pub(crate) fn batch_write_incomplete(
        table: String,
        unwritten: Unwritten,
        attempts: u32,
        cause: Option<Error>,
    ) -> Self {
        Error::new(D::BatchWriteIncomplete {
            table,
            unwritten,
            attempts,
            cause,
        })
    }

    pub(crate) fn batch_get_incomplete(
        table: String,
        unread: Unread,
        attempts: u32,
        cause: Option<Error>,
    ) -> Self {
        Error::new(D::BatchGetIncomplete {
            table,
            unread,
            attempts,
            cause,
        })
    }

    pub(crate) fn timed_out(operation: &'static str, after: Duration) -> Self {
        Error::new(D::Timeout {
            operation,
            after,
            deadline: false,
        })
    }

    /// The helper's deadline of `after` ran out during (or before)
    /// `operation`.
    pub(crate) fn deadline_passed(operation: &'static str, after: Duration) -> Self {
        Error::new(D::Timeout {
            operation,
            after,
            deadline: true,
        })
    }

    /// `table` was not active after waiting `after`; `status`: what the
    /// last `DescribeTable` said.
    pub(crate) fn table_not_active(table: &str, after: Duration, status: String) -> Self {
        let table = table.to_owned();
        Error::new(D::TableNotActive {
            table,
            after,
            status,
        })
    }

    /// `CreateTable` of `table` was refused: a table of that name exists.
    pub(crate) fn table_exists(table: &str, source: aws_sdk_dynamodb::Error) -> Self {
        let table = table.to_owned();
        Error::new(D::TableExists { table }).with_source(source)
    }

    /// The client cannot run `operation` for a helper: `reason`.
    pub(crate) fn client_config(operation: &'static str, reason: &'static str) -> Self {
        Error::new(D::ClientConfig { operation, reason })
    }

    /// `operation`: what was asked, e.g. `batch put`; `attribute`: the
    /// table's version attribute; `instead`: the helper to use.
    pub(crate) fn version_check_required(
        key: String,
        operation: &'static str,
        attribute: &str,
        instead: &'static str,
    ) -> Self {
        Error::new(D::VersionCheckRequired { operation, instead })
            .at_key(key)
            .at(attribute)
    }

    /// `operation` of an entity with the unique constraint `constraint`
    /// (on `attribute`, among others) cannot keep its sentinels: `instead`.
    pub(crate) fn unique_check_required(
        key: String,
        operation: &'static str,
        constraint: &'static str,
        attribute: &str,
        instead: &'static str,
    ) -> Self {
        Error::new(D::UniqueCheckRequired {
            operation,
            constraint,
            instead,
        })
        .at_key(key)
        .at(attribute)
    }

    pub(crate) fn duplicate_key(operation: &'static str, key: String) -> Self {
        Error::new(D::DuplicateKey { operation }).at_key(key)
    }

    /// `expected`: the version the write expected (`None`: no item).
    pub(crate) fn version_conflict(key: String, expected: Option<u64>) -> Self {
        Error::new(D::VersionConflict {
            expected,
            unique_values: false,
        })
        .at_key(key)
    }

    /// An update of an unversioned entity whose item no longer holds the
    /// unique values of the entity it was given.
    pub(crate) fn unique_values_changed(key: String) -> Self {
        Error::new(D::VersionConflict {
            expected: None,
            unique_values: true,
        })
        .at_key(key)
    }

    /// `operation` on the item at `key` got no credible answer (`cause`):
    /// it may have been applied.
    pub(crate) fn maybe_applied(operation: &'static str, key: String, cause: Error) -> Self {
        Error::new(D::MaybeApplied { operation, cause }).at_key(key)
    }

    pub(crate) fn not_found(key: String) -> Self {
        Error::new(D::NotFound {}).at_key(key)
    }

    pub(crate) fn transaction_canceled(
        canceled: Vec<CanceledAction>,
        source: aws_sdk_dynamodb::Error,
    ) -> Self {
        Error::new(D::TransactionCanceled { canceled }).with_source(source)
    }

    /// `what`: what is over the limit, e.g. `transaction`.
    pub(crate) fn limit(what: &'static str, count: usize, limit: usize) -> Self {
        Error::new(D::Limit { what, count, limit })
    }
}
