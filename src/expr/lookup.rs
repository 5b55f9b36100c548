//! The query side of [`Lookup`]: the key condition its key patterns and
//! values select, and a `Query` that reads only its entity type, without a
//! registry.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;

use super::apply::{FilterExt, KeyConditionExt};
use super::condition::Condition;
use super::key_condition::KeyCondition;
use super::operand::attr;
use crate::error::{Error, Result};
use crate::key::last_sort_key_with_prefix;
use crate::mapper::{Lookup, Mapper};
use crate::schema::IndexProjection;

impl<M: Mapper> Lookup<'_, M> {
    /// The key condition this lookup selects, on its index: the partition
    /// key equals the rendered partition key; the sort key equals the whole
    /// sort key when every sort key placeholder has a value (or the pattern
    /// has none), else begins with [`sort_prefix`](Lookup::sort_prefix)
    /// (no sort key condition when that prefix would be empty). The prefix
    /// ends at a segment boundary, so it never reaches a longer value
    /// (`ORDER#O1#` does not select `ORDER#O10#...`).
    ///
    /// # Errors
    /// As [`Lookup::partition`] and [`Lookup::sort_prefix`].
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// let e = InvoiceItemMapper::lookup().with("invoice", "I1").key_condition()?.build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND begins_with(#k1, :k1)");
    /// assert_eq!(e.values()[":k0"], AttributeValue::S("INVOICE#I1".into()));
    /// assert_eq!(e.values()[":k1"], AttributeValue::S("ITEM#".into()));
    ///
    /// let e = InvoiceMapper::lookup().with("id", "I1").key_condition()?.build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 = :k1");
    /// assert_eq!(e.values()[":k1"], AttributeValue::S("METADATA".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn key_condition(&self) -> Result<KeyCondition> {
        let keys = self.keys()?;
        let mut condition = KeyCondition::new(M::TABLE, self.partition()?);
        if let Some(index) = self.index_name() {
            condition = condition.index(index);
        }
        let Some(sort) = keys.sort_key() else {
            if let Some(range) = self.range() {
                return Err(Error::invalid_key_pattern(
                    keys.partition_key().template(),
                    format!(
                        "has no sort key pattern beside it for a range over `{{{}}}`",
                        range.name
                    ),
                )
                .with_entity_type(M::ENTITY_TYPE));
            }
            return Ok(condition);
        };
        if let Some(range) = self.range() {
            let of_type = |e: Error| e.with_entity_type(M::ENTITY_TYPE);
            let base = self.bound(sort);
            let low = match &range.low {
                Some(v) => Some(base.lower_bound(range.name, v.clone()).map_err(of_type)?),
                None => self.sort_prefix()?,
            };
            let high = match &range.high {
                Some(v) => Some(base.upper_bound(range.name, v.clone()).map_err(of_type)?),
                None => self.sort_prefix()?.map(|p| last_sort_key_with_prefix(&p)),
            };
            return Ok(match (low, high) {
                (Some(low), Some(high)) => condition.sort_between(low, high),
                (Some(low), None) => condition.sort_ge(low),
                (None, Some(high)) => condition.sort_le(high),
                (None, None) => condition,
            });
        }
        let unbound = sort
            .placeholders()?
            .iter()
            .any(|(name, _)| !self.binds(name));
        if unbound {
            Ok(match self.sort_prefix()? {
                Some(prefix) => condition.sort_begins_with(prefix),
                None => condition,
            })
        } else {
            Ok(match self.sort()? {
                Some(sort) => condition.sort_eq(sort),
                None => condition,
            })
        }
    }

    /// The discriminator filter that keeps only this entity type's items
    /// (its type and aliases), when the table has a discriminator.
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// let filter = OrderMapper::lookup().filter().unwrap().build()?;
    /// assert_eq!(filter.expression(), "#c0 IN (:c0, :c1)");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn filter(&self) -> Option<Condition> {
        let attribute = M::TABLE.discriminator_attribute()?;
        Some(if M::ALIASES.is_empty() {
            attr(attribute).eq(M::ENTITY_TYPE)
        } else {
            attr(attribute).is_in(std::iter::once(M::ENTITY_TYPE).chain(M::ALIASES.iter().copied()))
        })
    }

    /// Whether the items of the lookup's index hold the discriminator (the
    /// table's do; an index's unless it projects `KEYS_ONLY`, or `INCLUDE`
    /// without it).
    fn index_holds_discriminator(&self) -> bool {
        let (Some(index), Some(discriminator)) =
            (self.index_name(), M::TABLE.discriminator_attribute())
        else {
            return true;
        };
        match M::TABLE.index(index).map(|i| i.projection) {
            Some(IndexProjection::KeysOnly) => false,
            Some(IndexProjection::Include(attributes)) => attributes.contains(&discriminator),
            _ => true,
        }
    }

    /// A `Query` of the table `table_name` that reads only this entity type:
    /// the [`key_condition`](Lookup::key_condition) (and index), and the
    /// discriminator [`filter`](Lookup::filter), so items of other types
    /// that share the partition and prefix are left out by DynamoDB (they
    /// still count towards the read capacity). Send it yourself and decode
    /// every item with [`MapperExt::from_item`](crate::MapperExt::from_item);
    /// no registry is needed. On an index whose items do not hold the
    /// discriminator (`KEYS_ONLY`, or `INCLUDE` without it) there is no
    /// filter: decode with
    /// [`MapperExt::from_projected`](crate::MapperExt::from_projected), which
    /// checks the keys against the mapper's patterns instead.
    ///
    /// # Errors
    /// As [`key_condition`](Lookup::key_condition), and as
    /// [`KeyConditionExt::with_key_condition`].
    ///
    /// ```
    /// # use dynamodb_mapper::doc_support::*;
    /// let query = OrderMapper::lookup().with("customer", "C1").query(&client(), "AppTable")?;
    /// assert_eq!(
    ///     query.get_key_condition_expression().as_deref(),
    ///     Some("#k0 = :k0 AND begins_with(#k1, :k1)")
    /// );
    /// assert_eq!(query.get_filter_expression().as_deref(), Some("#c0 IN (:c0, :c1)"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn query(
        &self,
        client: &Client,
        table_name: impl Into<String>,
    ) -> Result<QueryFluentBuilder> {
        let query = client
            .query()
            .table_name(table_name)
            .with_key_condition(self.key_condition()?)?;
        match self.filter() {
            Some(filter) if self.index_holds_discriminator() => query.with_filter(filter),
            _ => Ok(query),
        }
    }
}
