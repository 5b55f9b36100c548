//! The access patterns checked by running them:
//! [`Registry::check_access_patterns`] writes sample items, calls every
//! declared pattern with the values of each sample's keys, and compares what
//! comes back with what the pattern's key condition selects among the
//! samples. The testkit's `check_access_patterns` runs it on a fresh table
//! of an emulator, and checks the requests on the wire.

use std::collections::BTreeSet;
use std::fmt::Write as _;
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
    /// - each pattern returns at least one sample of each of its entity
    ///   types, so no check is vacuous;
    /// - for a pattern with a `sort_by` placeholder, the same holds of each
    ///   kind of range over the value a sample gives it (one value, from
    ///   it, through it).
    ///
    /// A sample with the key of an earlier one replaces it, as in the
    /// table.
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
        // A later sample with the key of an earlier one replaces it, in the
        // table and here.
        let schema = self.table();
        let mut samples: Vec<Item> = samples.into_iter().collect();
        let keys: Vec<String> = samples.iter().map(|i| schema.render_key(i)).collect();
        let mut index = 0;
        samples.retain(|_| {
            index += 1;
            !keys[index..].contains(&keys[index - 1])
        });
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
            // The entity types the calls returned.
            let mut seen: Vec<&str> = Vec::new();
            let mut failed = false;
            for call in &calls_of(proven, &samples) {
                match self.check_call(table, proven, call, &samples).await {
                    Ok(types) => seen.extend(types),
                    Err(problem) => {
                        problems.push(format!("{label}: {problem}"));
                        failed = true;
                        break;
                    }
                }
            }
            let unseen: Vec<&str> = proven
                .pattern
                .entity_types()
                .iter()
                .copied()
                .filter(|t| !seen.contains(t))
                .collect();
            if !failed && !unseen.is_empty() {
                problems.push(format!(
                    "{label}: returns no {} sample ({}): add a sample of {}",
                    unseen.join(" or "),
                    proven.describe_query(),
                    unseen.join(" and ")
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::invalid_registry(problems))
        }
    }

    /// One call of `proven`: what it returns against what its key condition
    /// selects among `samples`: the entity types it returned, or the
    /// problem.
    async fn check_call(
        &self,
        table: &Table,
        proven: &Proven,
        call: &Call,
        samples: &[Item],
    ) -> std::result::Result<Vec<&'static str>, String> {
        let mut shown = call
            .values
            .iter()
            .map(|(n, v)| format!("{n}={v:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut access = call.values.iter().fold(
            self.access(&proven.pattern).map_err(|e| e.to_string())?,
            |a, (n, v)| a.with(n, v.clone()),
        );
        if let (Some(range), Some(r)) = (&call.range, proven.pattern.sort_placeholder()) {
            let _ = write!(shown, "{}{r} ", if shown.is_empty() { "" } else { ", " });
            access = match range {
                Range::Only(v) => {
                    let _ = write!(shown, "= {v:?}");
                    access.sort_range(r, v.clone()..=v.clone())
                }
                Range::From(v) => {
                    let _ = write!(shown, ">= {v:?}");
                    access.sort_range(r, v.clone()..)
                }
                Range::Through(v) => {
                    let _ = write!(shown, "<= {v:?}");
                    access.sort_range(r, ..=v.clone())
                }
            };
        }
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
        let mut types = Vec::new();
        for item in returned {
            if let Some(AttributeValue::S(value)) =
                item.get(self.table().discriminator.unwrap_or_default())
            {
                types.extend(self.entity_type_of(value));
            }
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
        Ok(types)
    }
}

/// A range of a pattern's `sort_by` placeholder a self-test call asks for.
#[derive(Debug, Clone, PartialEq)]
enum Range {
    /// `sort_range(v..=v)`: the one value.
    Only(KeyValue<'static>),
    /// `sort_range(v..)`.
    From(KeyValue<'static>),
    /// `sort_range(..=v)`.
    Through(KeyValue<'static>),
}

/// One call of a pattern: the values of its placeholders, and a range.
#[derive(Debug, Clone, PartialEq)]
struct Call {
    values: Vec<(&'static str, KeyValue<'static>)>,
    range: Option<Range>,
}

/// The calls to check a pattern with: the values each sample of one of the
/// pattern's types gives its placeholders, read from the sample's keys on
/// the pattern's index (once per distinct set), and for a pattern with a
/// `sort_by` placeholder, each of its ranges over the value the sample
/// gives it.
fn calls_of(proven: &Proven, samples: &[Item]) -> Vec<Call> {
    let (pk, sk) = proven.attributes;
    let Some(&(_, keys)) = proven.keys.first() else {
        return Vec::new();
    };
    let by = proven.pattern.placeholders();
    let mut calls: Vec<Call> = Vec::new();
    let mut push = |call: Call| {
        if !calls.contains(&call) {
            calls.push(call);
        }
    };
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
        let value_of = |name: &str| {
            partition
                .get(name)
                .or_else(|| sort.as_ref().and_then(|s| s.get(name)))
                .cloned()
        };
        let values: Vec<(&'static str, KeyValue<'static>)> = by
            .iter()
            .map_while(|name| value_of(name).map(|v| (*name, v)))
            .collect();
        if values.len() != by.len() {
            continue;
        }
        push(Call {
            values: values.clone(),
            range: None,
        });
        if let Some(v) = proven.pattern.sort_placeholder().and_then(value_of) {
            for range in [
                Range::Only(v.clone()),
                Range::From(v.clone()),
                Range::Through(v),
            ] {
                push(Call {
                    values: values.clone(),
                    range: Some(range),
                });
            }
        }
    }
    calls
}
