//! The query side of [`Lookup`]: the key condition its key patterns and
//! values select, and a `Query` that reads only its entity type, without a
//! registry.

use aws_sdk_dynamodb::types::AttributeValue;

use super::condition::Condition;
use super::key_condition::KeyCondition;
use super::operand::attr;
use crate::error::{Error, Result};
use crate::fields::field_table;
use crate::item::check_number;
use crate::key::last_sort_key_with_prefix;
use crate::key::{BoundPattern, KeyPattern, KeyValue, RangeEnd};
use crate::mapper::{Lookup, Mapper, SortRange};
use crate::schema::{GlobalSecondaryIndex, IndexProjection, KeyAttribute, ScalarType};

impl<M: Mapper> Lookup<'_, M> {
    /// The key condition this lookup selects, on its index: the partition
    /// key equals the rendered partition key; the sort key equals the whole
    /// sort key when every sort key placeholder has a value (or the pattern
    /// has none), else begins with the sort key pattern rendered up to its
    /// first placeholder without a value (no sort key condition when that
    /// prefix would be empty). The prefix
    /// ends at a segment boundary, so it never reaches a longer value
    /// (`ORDER#O1#` does not select `ORDER#O10#...`).
    ///
    /// On a [multi-attribute](crate::GlobalSecondaryIndex::multi_attribute)
    /// index, each key attribute is compared with the value bound to its
    /// field (or to the attribute's name), or with its
    /// [part pattern](crate::IndexKeys::part) rendered from the bound
    /// placeholders (a range over one of them uses the pattern's bounds):
    /// every partition key attribute by
    /// equality, then the bound sort key attributes from the left by
    /// equality, and a range ([`Lookup::sort_range`]) on the next one. A
    /// sort key attribute whose part
    /// pattern has only its first placeholders bound is compared by
    /// `begins_with` with the part up to the first unbound one (ending at a
    /// segment boundary), and is the last one
    /// compared. Numbers bind as numbers, text as text (or as a number when
    /// the attribute is a Number), times as unix seconds.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// naming the key attribute when a bound value does not fit its
    /// placeholder or a placeholder the pattern needs has no value, and a
    /// placeholder given two values (or a value and a range). On a
    /// multi-attribute index: a partition key attribute without a value, or
    /// whose part pattern has a placeholder without one; a value bound to
    /// something that is not a key attribute of the index, or to a sort key
    /// attribute after one left without a value, given only in part, or
    /// after the range (all
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey)); a part
    /// pattern with a placeholder bound after one without a value
    /// ([`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern));
    /// and as [`KeyCondition::build`].
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
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
        self.bound_once()?;
        if let Some(index) = self.index_name().and_then(|name| M::SCHEMA.index(name))
            && index.is_multi_attribute()
        {
            return self.multi_attribute_condition(index);
        }
        let keys = self.index_keys()?;
        let mut condition = KeyCondition::new(M::SCHEMA, self.partition()?);
        if let Some(index) = self.index_name() {
            condition = condition.on_index(index);
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
            let prefix = self.sort_prefix()?;
            return sort_range(condition, &self.bound(sort), prefix, range)
                .map_err(|e| e.with_entity_type(M::ENTITY_TYPE));
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

    /// The key condition on a multi-attribute index: the bound values of its
    /// key attributes (a field's value, or a part pattern rendered from its
    /// placeholders).
    fn multi_attribute_condition(&self, index: &GlobalSecondaryIndex) -> Result<KeyCondition> {
        let fields = field_table::<M::Entity>(M::NAMING)?;
        // The attribute a bound name stands for: a field's stored name, or
        // the name itself.
        let attribute_of = |name: &str| -> String {
            fields
                .and_then(|f| f.fields().find(|(field, _)| *field == name))
                .map_or_else(|| name.to_owned(), |(_, stored)| stored.to_owned())
        };
        let error = |attribute: &str, reason: String| {
            Error::invalid_key(attribute, format!("of index {} {reason}", index.name))
                .with_entity_type(M::ENTITY_TYPE)
        };
        let part_of = |key: &KeyAttribute| {
            M::KEY_PATTERNS
                .iter()
                .find(|k| {
                    k.index_name() == Some(index.name) && k.part_attribute() == Some(key.name)
                })
                .map(crate::key::IndexKeys::partition_key)
        };
        // Whether the bound name `name` gives `key`'s value: its field, or a
        // placeholder of its part pattern.
        let targets = |key: &KeyAttribute, name: &str| {
            attribute_of(name) == key.name
                || part_of(key).is_some_and(|p| {
                    p.placeholders()
                        .is_ok_and(|list| list.iter().any(|(n, _)| *n == name))
                })
        };
        let list = |keys: &[KeyAttribute]| {
            keys.iter()
                .map(|k| format!("`{}`", k.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        // The bound names that are placeholders of `pattern`.
        let bound_in = |pattern: KeyPattern| -> Result<Vec<&str>> {
            let placeholders = pattern.placeholders()?;
            Ok(self
                .values()
                .iter()
                .map(|(name, _)| *name)
                .filter(|name| placeholders.iter().any(|(p, _)| p == name))
                .collect())
        };
        // What is bound for `key`, and the bound names it takes; `None` when
        // nothing is bound for it, or when the range is over one of its
        // part pattern's placeholders (the range takes the bound ones).
        let given_for = |key: &KeyAttribute| -> Result<Option<(Given, Vec<&str>)>> {
            if let Some(pattern) = part_of(key) {
                let placeholders = pattern.placeholders()?;
                let bound = bound_in(pattern)?;
                let ranged = self
                    .range()
                    .is_some_and(|r| placeholders.iter().any(|(p, _)| *p == r.name));
                if ranged || (bound.is_empty() && !placeholders.is_empty()) {
                    return Ok(None);
                }
                let of_type = |e: Error| e.with_entity_type(M::ENTITY_TYPE);
                let values = self.bound(pattern);
                if bound.len() == placeholders.len() {
                    let rendered = values.render().map_err(of_type)?;
                    return Ok(Some((Given::Value(AttributeValue::S(rendered)), bound)));
                }
                // Some placeholders bound: the part up to the first unbound
                // one, which a sort key attribute is compared with by
                // `begins_with` (a partition key attribute cannot be).
                if index.partition_keys().iter().any(|k| k.name == key.name) {
                    let missing: Vec<String> = placeholders
                        .iter()
                        .filter(|(p, _)| !bound.contains(p))
                        .map(|(p, _)| format!("`{{{p}}}`"))
                        .collect();
                    return Err(error(
                        key.name,
                        format!(
                            "is a partition key attribute and needs its whole value, but {} of its \
                             key pattern `{}` {} no value",
                            missing.join(", "),
                            pattern.template(),
                            if missing.len() == 1 { "has" } else { "have" },
                        ),
                    ));
                }
                let prefix = values.prefix().map_err(of_type)?;
                return Ok(Some((Given::Prefix(prefix), bound)));
            }
            Ok(self
                .values()
                .iter()
                .find(|(name, _)| attribute_of(name) == key.name)
                .map(|(name, value)| (Given::Value(attribute_value(key, value)), vec![*name])))
        };
        let mut used: Vec<&str> = Vec::new();
        let mut partition = Vec::new();
        for key in index.partition_keys() {
            let Some((Given::Value(value), names)) = given_for(key)? else {
                return Err(error(
                    key.name,
                    format!(
                        "has no value; bind every partition key attribute ({}) with `with`",
                        list(index.partition_keys())
                    ),
                ));
            };
            used.extend(names);
            partition.push(value);
        }
        let mut values = partition.into_iter();
        let Some(first) = values.next() else {
            return Err(error(
                "(partition key)",
                "has no partition key attribute".to_owned(),
            ));
        };
        let mut condition = values.fold(
            KeyCondition::new(M::SCHEMA, first).on_index(index.name),
            KeyCondition::and_partition,
        );
        let range = self.range();
        let mut range_used = false;
        let mut open: Option<&str> = None; // the first sort attribute without a value
        let mut prefixed: Option<&str> = None; // the sort attribute given a prefix
        for key in index.sort_keys() {
            if let Some((given, names)) = given_for(key)? {
                if let Some(before) = prefixed {
                    return Err(error(
                        key.name,
                        format!(
                            "has a value, but `{before}` before it is given only the start of \
                             its key pattern; sort key attributes ({}) are given from the left, \
                             each whole but the last",
                            list(index.sort_keys())
                        ),
                    ));
                }
                if let Some(gap) = open {
                    return Err(error(
                        key.name,
                        format!(
                            "has a value, but `{gap}` before it has none; sort key attributes \
                             ({}) are given from the left",
                            list(index.sort_keys())
                        ),
                    ));
                }
                used.extend(names);
                condition = match given {
                    Given::Value(value) => condition.sort_eq(value),
                    Given::Prefix(prefix) => {
                        prefixed = Some(key.name);
                        condition.sort_begins_with(prefix)
                    }
                };
                continue;
            }
            let ranged =
                range.filter(|r| open.is_none() && prefixed.is_none() && targets(key, r.name));
            if let Some(r) = ranged {
                let (low, high) = match part_of(key) {
                    Some(pattern) => {
                        // The placeholders before the ranged one are bound.
                        used.extend(bound_in(pattern)?);
                        let base = self.bound(pattern);
                        let of_type = |e: Error| e.with_entity_type(M::ENTITY_TYPE);
                        let low = r
                            .low
                            .as_ref()
                            .map(|v| base.range_bound(r.name, v.clone(), RangeEnd::Low));
                        let high = r
                            .high
                            .as_ref()
                            .map(|v| base.range_bound(r.name, v.clone(), RangeEnd::High));
                        let text = |b: Option<Result<String>>| -> Result<Option<AttributeValue>> {
                            b.transpose()
                                .map(|b| b.map(AttributeValue::S))
                                .map_err(of_type)
                        };
                        (text(low)?, text(high)?)
                    }
                    None => (
                        r.low.as_ref().map(|v| attribute_value(key, v)),
                        r.high.as_ref().map(|v| attribute_value(key, v)),
                    ),
                };
                condition = match (low, high) {
                    (Some(low), Some(high)) => condition.sort_between(low, high),
                    (Some(low), None) => condition.sort_ge(low),
                    (None, Some(high)) => condition.sort_le(high),
                    (None, None) => condition,
                };
                range_used = true;
            }
            open.get_or_insert(key.name);
        }
        let unused_value = self
            .values()
            .iter()
            .map(|(name, _)| *name)
            .find(|name| !used.contains(name));
        let unused = unused_value.or(range.filter(|_| !range_used).map(|r| r.name));
        if let Some(name) = unused {
            let attribute = attribute_of(name);
            let is_key = index
                .key_attributes()
                .any(|k| k.name == attribute || targets(&k, name));
            let reason = if is_key {
                format!(
                    "cannot take the value bound to `{name}`: sort key attributes ({}) are \
                     given from the left by equality, with at most one range after them",
                    list(index.sort_keys())
                )
            } else {
                format!(
                    "has no key attribute `{attribute}` (bound as `{name}`); its keys are {} \
                     and {}",
                    list(index.partition_keys()),
                    list(index.sort_keys())
                )
            };
            return Err(error("(key)", reason));
        }
        Ok(condition)
    }

    /// The discriminator filter that keeps only this entity type's items
    /// (its type and aliases), when the table has a discriminator.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// let filter = OrderMapper::lookup().filter().unwrap().build()?;
    /// assert_eq!(filter.expression(), "#c0 IN (:c0, :c1)");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn filter(&self) -> Option<Condition> {
        let attribute = M::SCHEMA.discriminator?;
        Some(if M::ALIASES.is_empty() {
            attr(attribute).eq(M::ENTITY_TYPE)
        } else {
            attr(attribute).is_in(std::iter::once(M::ENTITY_TYPE).chain(M::ALIASES.iter().copied()))
        })
    }

    /// Whether the items of the lookup's index hold the discriminator (the
    /// table's do; an index's unless it projects `KEYS_ONLY`, or `INCLUDE`
    /// without it).
    pub(crate) fn index_holds_discriminator(&self) -> bool {
        let (Some(index), Some(discriminator)) = (self.index_name(), M::SCHEMA.discriminator)
        else {
            return true;
        };
        match M::SCHEMA.index(index).map(|i| i.projection) {
            Some(IndexProjection::KeysOnly) => false,
            Some(IndexProjection::Include(attributes)) => attributes.contains(&discriminator),
            _ => true,
        }
    }
}

/// `condition` with the sort key range `range` over a placeholder of
/// `base` (its pattern with the values before the placeholder): each given
/// end rendered as [`BoundPattern::range_bound`](crate::key::BoundPattern)
/// renders it, an open end at the edge of the keys under `prefix` (no
/// bound at all without one). Shared by lookups and access patterns.
pub(crate) fn sort_range<'a>(
    condition: KeyCondition,
    base: &BoundPattern<'a>,
    prefix: Option<String>,
    range: &SortRange<'a>,
) -> Result<KeyCondition> {
    let low = match &range.low {
        Some(v) => Some(base.range_bound(range.name, v.clone(), RangeEnd::Low)?),
        None => prefix.clone(),
    };
    let high = match &range.high {
        Some(v) => Some(base.range_bound(range.name, v.clone(), RangeEnd::High)?),
        None => prefix.as_deref().map(last_sort_key_with_prefix),
    };
    Ok(match (low, high) {
        (Some(low), Some(high)) => condition.sort_between(low, high),
        (Some(low), None) => condition.sort_ge(low),
        (None, Some(high)) => condition.sort_le(high),
        (None, None) => condition,
    })
}

/// What a lookup gives a key attribute of a multi-attribute index.
enum Given {
    /// Its whole value, compared by equality.
    Value(AttributeValue),
    /// The start of its part pattern, up to the first placeholder without a
    /// value (a sort key attribute, compared by `begins_with`).
    Prefix(String),
}

/// A bound value as the attribute value of a typed key attribute: numbers as
/// numbers, text as text (or as a number for a Number attribute, when it is
/// one), times as unix seconds. A value of the wrong type is left for
/// [`KeyCondition::build`] to report with the attribute's name.
fn attribute_value(key: &KeyAttribute, value: &KeyValue<'_>) -> AttributeValue {
    match value {
        KeyValue::Text(t) if key.scalar_type == ScalarType::N && check_number(t).is_ok() => {
            AttributeValue::N(t.to_string())
        }
        KeyValue::Text(t) => AttributeValue::S(t.to_string()),
        KeyValue::Unsigned(n) => AttributeValue::N(n.to_string()),
        KeyValue::Signed(n) => AttributeValue::N(n.to_string()),
        KeyValue::Timestamp(at) => AttributeValue::N(unix_seconds(*at)),
    }
}

/// Whole unix seconds of a time, negative before 1970.
fn unix_seconds(at: std::time::SystemTime) -> String {
    match at.duration_since(std::time::UNIX_EPOCH) {
        Ok(after) => after.as_secs().to_string(),
        Err(before) => format!("-{}", before.duration().as_secs()),
    }
}
