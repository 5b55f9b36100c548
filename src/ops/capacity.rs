//! Consumed capacity, asked for only when the caller opts in
//! ([`Table::return_consumed_capacity`](super::Table::return_consumed_capacity)) and then
//! summed over every request a helper sent.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{ConsumedCapacity, ReturnConsumedCapacity};

/// The capacity DynamoDB reported as consumed by what a helper sent, summed
/// over every request (retries and pages included).
///
/// A helper fills it only when its [`Table`](super::Table) asked for consumed
/// capacity ([`Table::return_consumed_capacity`](super::Table::return_consumed_capacity));
/// otherwise the result holds `None`, which tells "not asked" apart from a
/// request that consumed nothing. With [`ReturnConsumedCapacity::Total`]
/// DynamoDB reports each table's units; with
/// [`ReturnConsumedCapacity::Indexes`] also the table's own share and each
/// secondary index's.
///
/// Requests DynamoDB refused (throttling, a failed condition, a canceled
/// transaction) carry no report, so what they consumed is not in here.
/// Values that are no capacity (negative, NaN, infinite) are ignored.
///
/// ```
/// use aws_sdk_dynamodb::types::{Capacity, ConsumedCapacity};
/// use dynamodb_mapper::ops::CapacityUsage;
///
/// let page = |units| {
///     ConsumedCapacity::builder()
///         .table_name("AppTable")
///         .capacity_units(units)
///         .table(Capacity::builder().capacity_units(units - 0.5).build())
///         .global_secondary_indexes("GSI1", Capacity::builder().capacity_units(0.5).build())
///         .build()
/// };
/// let mut usage = CapacityUsage::default();
/// usage.add(&page(1.5));
/// usage.add(&page(2.5));
/// assert_eq!(usage.total, 4.0);
/// let table = &usage.tables["AppTable"];
/// assert_eq!((table.total, table.table), (4.0, Some(3.0)));
/// assert_eq!(table.indexes["GSI1"], 1.0);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct CapacityUsage {
    /// Capacity units consumed in all: every table and index, every request.
    pub total: f64,
    /// What each table consumed (its indexes included), by table name. A
    /// helper of one [`Table`](super::Table) reports one table here, except
    /// a [`Transaction`](super::Transaction) with raw actions on others.
    pub tables: BTreeMap<String, TableCapacity>,
}

/// What one table consumed, within a [`CapacityUsage`].
///
/// ```
/// let t = dynamodb_mapper::ops::TableCapacity::default();
/// assert_eq!((t.total, t.table), (0.0, None));
/// assert!(t.indexes.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct TableCapacity {
    /// Capacity units the table consumed, its indexes included.
    pub total: f64,
    /// The table's own share, without its indexes: reported with
    /// [`ReturnConsumedCapacity::Indexes`] only (else `None`).
    pub table: Option<f64>,
    /// Each secondary index's share (global and local), by index name:
    /// reported with [`ReturnConsumedCapacity::Indexes`] only.
    pub indexes: BTreeMap<String, f64>,
}

impl CapacityUsage {
    /// Adds one of DynamoDB's reports. A report without a table name counts
    /// in [`total`](Self::total) only.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::ConsumedCapacity;
    /// let mut usage = dynamodb_mapper::ops::CapacityUsage::default();
    /// usage.add(&ConsumedCapacity::builder().table_name("T").capacity_units(2.0).build());
    /// usage.add(&ConsumedCapacity::builder().capacity_units(1.0).build());
    /// assert_eq!((usage.total, usage.tables["T"].total), (3.0, 2.0));
    /// ```
    pub fn add(&mut self, report: &ConsumedCapacity) {
        let total = units(report.capacity_units());
        self.total += total.unwrap_or(0.0);
        let Some(name) = report.table_name() else {
            return;
        };
        let table = self.tables.entry(name.to_owned()).or_default();
        table.total += total.unwrap_or(0.0);
        if let Some(own) = report.table().and_then(|c| units(c.capacity_units())) {
            *table.table.get_or_insert(0.0) += own;
        }
        let indexes = report
            .global_secondary_indexes()
            .into_iter()
            .chain(report.local_secondary_indexes())
            .flatten();
        for (index, capacity) in indexes {
            if let Some(share) = units(capacity.capacity_units()) {
                *table.indexes.entry(index.clone()).or_default() += share;
            }
        }
    }

    /// Adds what another helper consumed, as if one helper had sent both.
    pub(crate) fn merge(&mut self, other: &CapacityUsage) {
        self.total += other.total;
        for (name, theirs) in &other.tables {
            let ours = self.tables.entry(name.clone()).or_default();
            ours.total += theirs.total;
            if let Some(own) = theirs.table {
                *ours.table.get_or_insert(0.0) += own;
            }
            for (index, share) in &theirs.indexes {
                *ours.indexes.entry(index.clone()).or_default() += share;
            }
        }
    }
}

/// A capacity value worth adding: finite and not negative.
fn units(value: Option<f64>) -> Option<f64> {
    value.filter(|v| v.is_finite() && *v >= 0.0)
}

/// The mode a table keeps: `None` asks for nothing (the request field stays
/// absent), as does [`ReturnConsumedCapacity::None`].
pub(crate) fn normalize(mode: ReturnConsumedCapacity) -> Option<ReturnConsumedCapacity> {
    (mode != ReturnConsumedCapacity::None).then_some(mode)
}

/// Whether a request with this mode asks DynamoDB for a report.
pub(crate) fn asks(mode: Option<&ReturnConsumedCapacity>) -> bool {
    mode.is_some_and(|m| *m != ReturnConsumedCapacity::None)
}

/// A usage to fill when `asked`, `None` otherwise.
pub(crate) fn start(asked: bool) -> Option<CapacityUsage> {
    asked.then(CapacityUsage::default)
}

/// Adds `reports` to `usage` when it was asked for.
pub(crate) fn add_all<'a>(
    usage: &mut Option<CapacityUsage>,
    reports: impl IntoIterator<Item = &'a ConsumedCapacity>,
) {
    if let Some(usage) = usage {
        for report in reports {
            usage.add(report);
        }
    }
}

/// Adds `other` to `usage`; `None` (not asked) on both sides stays `None`.
pub(crate) fn merge(usage: &mut Option<CapacityUsage>, other: Option<&CapacityUsage>) {
    match (usage.as_mut(), other) {
        (Some(ours), Some(theirs)) => ours.merge(theirs),
        (None, Some(theirs)) => *usage = Some(theirs.clone()),
        (_, None) => {}
    }
}

/// Records the total on the current span's `consumed_capacity` field, when
/// it was asked for.
pub(crate) fn record(span: &tracing::Span, usage: Option<&CapacityUsage>) {
    if let Some(usage) = usage {
        span.record("consumed_capacity", usage.total);
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::Capacity;

    use super::*;

    fn units_of(v: f64) -> Capacity {
        Capacity::builder().capacity_units(v).build()
    }

    fn usage_of(reports: &[ConsumedCapacity]) -> CapacityUsage {
        let mut usage = CapacityUsage::default();
        for r in reports {
            usage.add(r);
        }
        usage
    }

    #[test]
    fn nonsense_values_are_ignored() {
        let reports = [f64::NAN, f64::INFINITY, -1.0, 0.5].map(|v| {
            ConsumedCapacity::builder()
                .table_name("T")
                .capacity_units(v)
                .table(units_of(v))
                .global_secondary_indexes("G", units_of(v))
                .build()
        });
        let usage = usage_of(&reports);
        assert_eq!(usage.total, 0.5);
        let t = &usage.tables["T"];
        assert_eq!((t.total, t.table, t.indexes["G"]), (0.5, Some(0.5), 0.5));
    }

    #[test]
    fn local_and_global_indexes_and_tables_are_kept_apart() {
        let a = ConsumedCapacity::builder()
            .table_name("A")
            .capacity_units(3.0)
            .table(units_of(1.0))
            .global_secondary_indexes("G", units_of(1.0))
            .local_secondary_indexes("L", units_of(1.0))
            .build();
        let b = ConsumedCapacity::builder()
            .table_name("B")
            .capacity_units(1.0)
            .build();
        let usage = usage_of(&[a.clone(), b, a]);
        assert_eq!(usage.total, 7.0);
        assert_eq!(usage.tables["A"].indexes.len(), 2);
        assert_eq!(usage.tables["A"].indexes["L"], 2.0);
        assert_eq!(usage.tables["A"].table, Some(2.0));
        assert_eq!(
            (usage.tables["B"].total, usage.tables["B"].table),
            (1.0, None)
        );
    }

    #[test]
    fn not_asked_stays_none_and_asked_starts_at_zero() {
        let mut none = start(false);
        add_all(
            &mut none,
            &[ConsumedCapacity::builder().capacity_units(1.0).build()],
        );
        merge(&mut none, None);
        assert_eq!(none, None);
        let mut zero = start(true);
        assert_eq!(zero.as_ref().map(|u| u.total), Some(0.0));
        merge(
            &mut zero,
            Some(&CapacityUsage {
                total: 2.0,
                ..CapacityUsage::default()
            }),
        );
        assert_eq!(zero.map(|u| u.total), Some(2.0));
        assert_eq!(normalize(ReturnConsumedCapacity::None), None);
        assert!(!asks(Some(&ReturnConsumedCapacity::None)));
        assert!(asks(Some(&ReturnConsumedCapacity::Indexes)));
    }
}
