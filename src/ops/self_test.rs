//! The access patterns checked by running them:
//! [`Registry::check_access_patterns`] writes sample items, calls every
//! declared pattern with the values of each sample's keys, and compares what
//! comes back with what the pattern's key condition selects among the
//! samples. The testkit's `check_access_patterns` runs it on a fresh table
//! of an emulator, and checks the requests on the wire.

use std::collections::BTreeSet;
use std::ops::Bound;

use aws_sdk_dynamodb::types::AttributeValue;

use super::Table;
use super::call::call_read;
use crate::error::{Error, Result};
use crate::item::Item;
use crate::key::{KeyValue, SortSelection};
use crate::registry::{Proven, Registry};

impl<T> Registry<T> {
    /// Checks every declared [access pattern](crate::AccessPattern) by
    /// running it on `table`: writes `samples` (items as the mappers write
    /// them, with `PutItem`; items of types the registry does not know are
    /// welcome, they are what a leak would return), then calls each pattern
    /// with the values of every sample's keys it can read them from, and
    /// checks that
    ///
    /// - it returns exactly the samples its key condition selects (the
    ///   partition key, then the sort key as the pattern's query compares
    ///   it, on the pattern's index), no more and no fewer;
    /// - every item it returns is of one of its entity types and decodes
    ///   (an item of another type is the overlap the proof could not rule
    ///   out, named with both types);
    /// - each pattern returns at least one sample (a sample of its types
    ///   has keys on its index), so no check is vacuous.
    ///
    /// Use a table that holds nothing else (the testkit's
    /// `check_access_patterns` makes one on an emulator).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidRegistry`](crate::ErrorKind::InvalidRegistry)
    /// listing every pattern that failed and how; as
    /// [`Access::fetch`](super::Access::fetch) for a read that fails, and
    /// [`ErrorKind::Sdk`](crate::ErrorKind::Sdk) or
    /// [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) for a sample that
    /// cannot be written.
    ///
    /// ```no_run
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::AccessPattern;
    /// const ORDERS: AccessPattern = AccessPattern::new("orders of a customer", &["Order"]).by(&["customer"]);
    /// # async fn demo() -> dynamodb_mapper::Result<()> {
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .access_pattern(ORDERS)
    ///     .build()?;
    /// let samples = vec![
    ///     CustomerMapper::to_item(&Customer { id: "C1".into() })?,
    ///     OrderMapper::to_item(&Order { id: "O1".into(), customer: "C1".into() })?,
    /// ];
    /// registry.check_access_patterns(&table(), samples).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn check_access_patterns(
        &self,
        table: &Table,
        samples: impl IntoIterator<Item = Item>,
    ) -> Result<()> {
        let samples: Vec<Item> = samples.into_iter().collect();
        let policy = table.get_retry_policy();
        for item in &samples {
            // Putting the same whole item again changes nothing: safe to
            // ask again when unanswered.
            let put = table
                .client()
                .put_item()
                .table_name(table.name())
                .set_item(Some(item.clone()));
            call_read(&table.bound(), "PutItem", policy, || put.clone().send())
                .await
                .map_err(|f| f.into_error("PutItem"))?;
        }
        let mut problems = Vec::new();
        for proven in self.access_patterns() {
            let label = format!(
                "access pattern {:?} on {}",
                proven.pattern.name(),
                proven.pattern.on()
            );
            let mut returned = 0;
            let mut failed = false;
            for values in &calls_of(proven, &samples) {
                match self.check_call(table, proven, values, &samples).await {
                    Ok(n) => returned += n,
                    Err(problem) => {
                        problems.push(format!("{label}: {problem}"));
                        failed = true;
                        break;
                    }
                }
            }
            if !failed && returned == 0 {
                problems.push(format!(
                    "{label}: returns none of the samples ({}): add a sample of {}",
                    proven.describe_query(),
                    proven.pattern.entity_types().join(" or ")
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::invalid_registry(problems))
        }
    }

    /// One call of `proven` with `values`: what it returns against what its
    /// key condition selects among `samples`: how many it returned, or the
    /// problem.
    async fn check_call(
        &self,
        table: &Table,
        proven: &Proven,
        values: &[(&'static str, KeyValue<'static>)],
        samples: &[Item],
    ) -> std::result::Result<usize, String> {
        let shown = values
            .iter()
            .map(|(n, v)| format!("{n}={v:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        let access = values.iter().fold(
            self.access(&proven.pattern).map_err(|e| e.to_string())?,
            |a, (n, v)| a.with(n, v.clone()),
        );
        let condition = access.key_condition().map_err(|e| e.to_string())?;
        let Some(selection) = condition.selection() else {
            return Err(format!(
                "with {shown}: its key condition compares no string keys"
            ));
        };
        let (pk, sk) = proven.attributes;
        let selected = |item: &Item| -> bool {
            let text = |name: &str| match item.get(name) {
                Some(AttributeValue::S(s)) => Some(s.as_str()),
                _ => None,
            };
            if text(pk) != selection.partition {
                return false;
            }
            let Some(sk) = sk else { return true };
            let Some(value) = text(sk) else {
                // Not in an index without its sort key.
                return false;
            };
            match selection.sort {
                SortSelection::Any => true,
                SortSelection::NotText => false,
                SortSelection::Prefix(p) => value.starts_with(p),
                SortSelection::Range(low, high) => {
                    let above = match low {
                        Bound::Included(l) => value >= l,
                        Bound::Excluded(l) => value > l,
                        Bound::Unbounded => true,
                    };
                    let below = match high {
                        Bound::Included(h) => value <= h,
                        Bound::Excluded(h) => value < h,
                        Bound::Unbounded => true,
                    };
                    above && below
                }
            }
        };
        let schema = self.table();
        let key = |item: &Item| schema.render_key(item);
        let expected: BTreeSet<String> = samples.iter().filter(|i| selected(i)).map(key).collect();

        // What the store returns, read as the pattern reads it.
        let mut returned = Vec::new();
        access
            .read(table, |item| {
                returned.push(item);
                Ok(())
            })
            .await
            .map_err(|e| format!("with {shown}: {e}"))?;
        let got: BTreeSet<String> = returned.iter().map(key).collect();
        for item in returned {
            self.decode_for(item, proven)
                .map_err(|e| format!("with {shown}: {e}"))?;
        }
        if got != expected {
            let missing: Vec<&String> = expected.difference(&got).collect();
            let extra: Vec<&String> = got.difference(&expected).collect();
            return Err(format!(
                "with {shown}: returned {} items, expected {}{}{}",
                got.len(),
                expected.len(),
                if missing.is_empty() {
                    String::new()
                } else {
                    format!("; missing {missing:?}")
                },
                if extra.is_empty() {
                    String::new()
                } else {
                    format!("; not selected by its key condition {extra:?}")
                },
            ));
        }
        // The pattern's own read returns as many, decoded.
        let fetched = access
            .fetch(table)
            .await
            .map_err(|e| format!("with {shown}: {e}"))?;
        if fetched.len() != got.len() {
            return Err(format!(
                "with {shown}: `fetch` returned {} items, the same query {}",
                fetched.len(),
                got.len()
            ));
        }
        Ok(got.len())
    }
}

/// The values each sample of one of the pattern's types gives its
/// placeholders, read from the sample's keys on the pattern's index (once
/// per distinct set).
fn calls_of(proven: &Proven, samples: &[Item]) -> Vec<Vec<(&'static str, KeyValue<'static>)>> {
    let (pk, sk) = proven.attributes;
    let Some(&(_, keys)) = proven.keys.first() else {
        return Vec::new();
    };
    let by = proven.pattern.placeholders();
    let mut calls: Vec<Vec<(&'static str, KeyValue<'static>)>> = Vec::new();
    for item in samples {
        let text = |name: &str| match item.get(name) {
            Some(AttributeValue::S(s)) => Some(s.as_str()),
            _ => None,
        };
        let Some(partition) = text(pk).and_then(|v| keys.partition_key().parse(v).ok()) else {
            continue;
        };
        let sort = sk
            .and_then(text)
            .zip(keys.sort_key())
            .and_then(|(v, p)| p.parse(v).ok());
        let mut values = Vec::with_capacity(by.len());
        for name in by {
            match partition
                .get(name)
                .or_else(|| sort.as_ref().and_then(|s| s.get(name)))
            {
                Some(v) => values.push((*name, v.clone())),
                None => break,
            }
        }
        if values.len() == by.len() && !calls.contains(&values) {
            calls.push(values);
        }
    }
    calls
}
