//! [`KeyCondition`]: the key condition of a `Query`, checked against the
//! table's [`TableSchema`] (index, key names, types and size limits).

use std::ops::Bound;

use aws_sdk_dynamodb::types::AttributeValue;

use super::condition::Comparator;
use super::expression::Expression;
use super::operand::{Operand, OperandKind};
use super::placeholders::{Ctx, check_stem};
use crate::error::{Error, ErrorKind, Result};
use crate::item::{check_depth, check_number, type_name};
use crate::key::{Selection, SortSelection};
use crate::schema::{
    KeyAttribute, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, ScalarType, TableSchema,
};

#[derive(Debug, Clone, PartialEq)]
enum SortCondition {
    Compare(Comparator, Operand),
    Between(Operand, Operand),
    BeginsWith(Operand),
}

/// A key condition for a `Query` on the table or one of its indexes: the
/// partition key equals a value, and optionally one condition on the sort
/// key (`=`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `begins_with`).
///
/// The key attribute names and types come from the [`TableSchema`]; building
/// checks that the index exists, that it has a sort key when one is
/// compared, and that each value has the key's type, is not empty and is
/// within the key size limits.
///
/// On an index with [multi-attribute keys](crate::GlobalSecondaryIndex::multi_attribute),
/// give every partition key attribute in the index's order
/// ([`and_partition`](Self::and_partition) after the first), and sort key
/// conditions from the left: each `sort_*` call applies to the next sort key
/// attribute, every one but the last given must be `sort_eq`, and
/// attributes on the right may be left out. Building refuses any other
/// shape, as DynamoDB would.
///
/// ```
/// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
/// use dynamodb_mapper::expr::KeyCondition;
///
/// const APP_TABLE: TableSchema = TableSchema::new("pk")
///     .sort_key("sk")
///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);
///
/// let key = KeyCondition::new(APP_TABLE, "STATUS#open")
///     .index("GSI1")
///     .sort_between("2024-01-01", "2024-02-01");
/// let e = key.build()?;
/// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 BETWEEN :k1 AND :k2");
/// assert_eq!(e.names()["#k0"], "gsi1pk");
/// assert_eq!(e.names()["#k1"], "gsi1sk");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct KeyCondition {
    schema: TableSchema,
    index: Option<String>,
    partition: Vec<Operand>,
    sort: Vec<SortCondition>,
}

impl KeyCondition {
    /// The partition key (of the table, or of the index chosen with
    /// [`index`](Self::index)) equals `partition`.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk"), "TENANT#acme").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn new(schema: TableSchema, partition: impl Into<Operand>) -> Self {
        KeyCondition {
            schema,
            index: None,
            partition: vec![partition.into()],
            sort: Vec::new(),
        }
    }

    /// The next partition key attribute of a
    /// [multi-attribute](crate::GlobalSecondaryIndex::multi_attribute) index
    /// equals `value` (the first is given to [`new`](Self::new)).
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, GlobalSecondaryIndex, KeyAttribute, ScalarType, TableSchema};
    ///
    /// const T: TableSchema = TableSchema::new("pk").indexes(&[GlobalSecondaryIndex::multi_attribute(
    ///     "ByRegion",
    ///     &[KeyAttribute::new("tenant"), KeyAttribute::new("region")],
    ///     &[KeyAttribute::typed("placedAt", ScalarType::N), KeyAttribute::new("orderId")],
    /// )]);
    /// let key = KeyCondition::new(T, "acme").and_partition("eu-west").index("ByRegion");
    /// let e = key.clone().sort_eq(1_700_000_000).sort_begins_with("O1").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 = :k1 AND #k2 = :k2 AND begins_with(#k3, :k3)");
    /// assert_eq!(e.names()["#k3"], "orderId");
    ///
    /// let err = key.clone().sort_gt(1_700_000_000).sort_eq("O1").build().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "key attribute `orderId` of index ByRegion has a condition after the range on \
    ///      `placedAt`; only the last sort key attribute given may have a range (compare \
    ///      `placedAt` with sort_eq)"
    /// );
    /// let err = KeyCondition::new(T, "acme").index("ByRegion").build().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "key attribute `region` of index ByRegion has no value; a query gives every \
    ///      partition key attribute (`tenant`, `region`) by equality"
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn and_partition(mut self, value: impl Into<Operand>) -> Self {
        self.partition.push(value.into());
        self
    }

    /// Queries the global secondary index `name` instead of the table.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, GlobalSecondaryIndex, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk").indexes(&[GlobalSecondaryIndex::new("ByEmail", "email")]);
    /// let e = KeyCondition::new(T, "ada@example.com").index("ByEmail").build()?;
    /// assert_eq!(e.names()["#k0"], "email");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn index(mut self, name: impl Into<String>) -> Self {
        self.index = Some(name.into());
        self
    }

    /// The index queried, `None` for the table.
    #[must_use]
    pub(crate) fn index_name(&self) -> Option<&str> {
        self.index.as_deref()
    }

    /// The table layout the condition is checked against.
    #[must_use]
    pub(crate) fn schema(&self) -> TableSchema {
        self.schema
    }

    fn sort(mut self, condition: SortCondition) -> Self {
        self.sort.push(condition);
        self
    }

    /// The sort key equals `value`.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "A").sort_eq("B").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 = :k1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_eq(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Eq, value.into()))
    }

    /// The sort key is below `value`.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "A").sort_lt("B").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 < :k1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_lt(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Lt, value.into()))
    }

    /// The sort key is at most `value`.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "A").sort_le("B").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 <= :k1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_le(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Le, value.into()))
    }

    /// The sort key is above `value`.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "A").sort_gt("B").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 > :k1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_gt(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Gt, value.into()))
    }

    /// The sort key is at least `value`.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "A").sort_ge("B").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 >= :k1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_ge(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Ge, value.into()))
    }

    /// The sort key is between `low` and `high`, both included.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, TableSchema};
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "A").sort_between("B", "C").build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 BETWEEN :k1 AND :k2");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_between(self, low: impl Into<Operand>, high: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Between(low.into(), high.into()))
    }

    /// The sort key starts with `prefix` (string and binary sort keys only).
    ///
    /// ```
    /// use dynamodb_mapper::{KeyPattern, TableSchema, expr::KeyCondition};
    /// const LINE_SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}");
    /// let prefix = LINE_SK.with("order_id", "O1").prefix()?;
    /// let e = KeyCondition::new(TableSchema::new("pk").sort_key("sk"), "CUSTOMER#C1")
    ///     .sort_begins_with(prefix)
    ///     .build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND begins_with(#k1, :k1)");
    /// assert_eq!(e.values()[":k1"].as_s().unwrap(), "ORDER#O1#LINE#");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort_begins_with(self, prefix: impl Into<Operand>) -> Self {
        self.sort(SortCondition::BeginsWith(prefix.into()))
    }

    /// The expression, with placeholders `#k0`, `:k0`, ...
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey): the index does
    /// not exist (the attribute is the index name); a sort key condition on a
    /// table or index without a sort key, or more than one (attribute `(sort
    /// key)`); a value that is an attribute path, of the wrong type, empty,
    /// over the key size limit, or a `BETWEEN` whose low bound is above its
    /// high bound (attribute: the key attribute); `begins_with` on a number
    /// sort key.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, GlobalSecondaryIndex, ScalarType, TableSchema};
    ///
    /// const T: TableSchema = TableSchema::new("pk")
    ///     .typed_sort_key("at", ScalarType::N)
    ///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk")]);
    /// let err = KeyCondition::new(T, "A").index("GSI9").build().unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `GSI9` is not an index of the table (its indexes: GSI1)");
    /// let err = KeyCondition::new(T, "A").index("GSI1").sort_eq("x").build().unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `(sort key)` has a condition, but index GSI1 has no sort key");
    /// let err = KeyCondition::new(T, "A").sort_eq("x").build().unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `at` condition value is a string (S), expected a number (N)");
    /// let err = KeyCondition::new(T, "").build().unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `pk` condition value is empty; DynamoDB rejects empty key values");
    /// ```
    pub fn build(&self) -> Result<Expression> {
        self.build_with_stem("k")
    }

    /// The expression, with placeholders `#<stem>0`, `:<stem>0`, ...
    ///
    /// # Errors
    /// As [`build`](Self::build), and
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (attribute
    /// `(expression)`) for a stem that is not ASCII letters and digits
    /// starting with a letter.
    pub(crate) fn build_with_stem(&self, stem: &str) -> Result<Expression> {
        check_stem(stem)?;
        let table_pk = self.schema.partition_key;
        let table_sk = self.schema.sort_key;
        let (partition_keys, sort_keys, on): (&[KeyAttribute], &[KeyAttribute], String) =
            match &self.index {
                None => (
                    std::slice::from_ref(&table_pk),
                    table_sk.as_slice(),
                    "the table".to_owned(),
                ),
                Some(name) => match self.schema.index(name) {
                    Some(index) => (
                        index.partition_keys(),
                        index.sort_keys(),
                        format!("index {name}"),
                    ),
                    None => return Err(unknown_index(&self.schema, name)),
                },
            };
        let of = match &self.index {
            None => String::new(),
            Some(name) => format!("of index {name} "),
        };
        let names = |keys: &[KeyAttribute]| {
            keys.iter()
                .map(|k| format!("`{}`", k.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut ctx = Ctx::new(stem);
        let mut out = String::new();
        let and = |out: &mut String, clause: &str| {
            if !out.is_empty() {
                out.push_str(" AND ");
            }
            out.push_str(clause);
        };
        if self.partition.len() > partition_keys.len() {
            let n = partition_keys.len();
            return Err(Error::invalid_key(
                "(partition key)",
                format!(
                    "has {} values, but {on} has {n} partition key attribute{} ({})",
                    self.partition.len(),
                    if n == 1 { "" } else { "s" },
                    names(partition_keys)
                ),
            ));
        }
        for (i, key) in partition_keys.iter().enumerate() {
            let Some(operand) = self.partition.get(i) else {
                return Err(Error::invalid_key(
                    key.name,
                    format!(
                        "{of}has no value; a query gives every partition key attribute ({}) \
                         by equality",
                        names(partition_keys)
                    ),
                ));
            };
            let value = key_value(*key, &of, operand, MAX_PARTITION_KEY_BYTES)?;
            let name = ctx.name(key.name);
            let value = ctx.value(value);
            and(&mut out, &format!("{name} = {value}"));
        }
        if sort_keys.is_empty() && !self.sort.is_empty() {
            return Err(Error::invalid_key(
                "(sort key)",
                format!("has a condition, but {on} has no sort key"),
            ));
        }
        if self.sort.len() > sort_keys.len() {
            return Err(match sort_keys {
                [key] => Error::invalid_key(
                    key.name,
                    format!(
                        "{of}has {} conditions; a key condition allows one",
                        self.sort.len()
                    ),
                ),
                _ => Error::invalid_key(
                    "(sort key)",
                    format!(
                        "has {} conditions, but {on} has {} sort key attributes ({}); a key \
                         condition allows one per attribute",
                        self.sort.len(),
                        sort_keys.len(),
                        names(sort_keys)
                    ),
                ),
            });
        }
        for (i, (condition, sort_key)) in self.sort.iter().zip(sort_keys).enumerate() {
            let sort_key = *sort_key;
            if i > 0 {
                let before = &self.sort[i - 1];
                if !matches!(before, SortCondition::Compare(Comparator::Eq, _)) {
                    let ranged = sort_keys[i - 1].name;
                    return Err(Error::invalid_key(
                        sort_key.name,
                        format!(
                            "{of}has a condition after the range on `{ranged}`; only the last \
                             sort key attribute given may have a range (compare `{ranged}` \
                             with sort_eq)"
                        ),
                    ));
                }
            }
            let value = |operand: &Operand| key_value(sort_key, &of, operand, MAX_SORT_KEY_BYTES);
            let name = ctx.name(sort_key.name);
            match condition {
                SortCondition::Compare(comparator, operand) => {
                    let v = value(operand)?;
                    let v = ctx.value(v);
                    and(&mut out, &format!("{name} {} {v}", comparator.symbol()));
                }
                SortCondition::Between(low, high) => {
                    let (low, high) = (value(low)?, value(high)?);
                    if bounds_reversed(&low, &high) {
                        return Err(Error::invalid_key(
                            sort_key.name,
                            format!("{of}condition BETWEEN has its low bound above its high bound"),
                        ));
                    }
                    let (low, high) = (ctx.value(low), ctx.value(high));
                    and(&mut out, &format!("{name} BETWEEN {low} AND {high}"));
                }
                SortCondition::BeginsWith(operand) => {
                    if sort_key.scalar_type == ScalarType::N {
                        return Err(Error::invalid_key(
                            sort_key.name,
                            format!(
                                "{of}is a number (N); begins_with needs a string or binary sort key"
                            ),
                        ));
                    }
                    let v = value(operand)?;
                    let v = ctx.value(v);
                    and(&mut out, &format!("begins_with({name}, {v})"));
                }
            }
        }
        Ok(Expression::rendered(out, ctx))
    }
}

impl KeyCondition {
    /// What the condition selects, in terms of string keys; `None` when it
    /// has more than one sort key condition (which [`build`](Self::build)
    /// refuses).
    pub(crate) fn selection(&self) -> Option<Selection<'_>> {
        let multi_attribute = self
            .index
            .as_deref()
            .and_then(|name| self.schema.index(name))
            .is_some_and(crate::schema::GlobalSecondaryIndex::is_multi_attribute);
        let [partition] = self.partition.as_slice() else {
            return None;
        };
        if multi_attribute {
            return None;
        }
        fn text(operand: &Operand) -> Option<&str> {
            match &operand.0 {
                OperandKind::Value(Ok(AttributeValue::S(s))) => Some(s.as_str()),
                _ => None,
            }
        }
        let sort = match self.sort.as_slice() {
            [] => SortSelection::Any,
            [condition] => {
                let range = |low, high| SortSelection::Range(low, high);
                match condition {
                    SortCondition::BeginsWith(p) => {
                        text(p).map_or(SortSelection::NotText, SortSelection::Prefix)
                    }
                    SortCondition::Between(low, high) => match (text(low), text(high)) {
                        (Some(low), Some(high)) => {
                            range(Bound::Included(low), Bound::Included(high))
                        }
                        _ => SortSelection::NotText,
                    },
                    SortCondition::Compare(comparator, value) => match text(value) {
                        None => SortSelection::NotText,
                        Some(v) => match comparator {
                            Comparator::Eq => range(Bound::Included(v), Bound::Included(v)),
                            Comparator::Lt => range(Bound::Unbounded, Bound::Excluded(v)),
                            Comparator::Le => range(Bound::Unbounded, Bound::Included(v)),
                            Comparator::Gt => range(Bound::Excluded(v), Bound::Unbounded),
                            Comparator::Ge => range(Bound::Included(v), Bound::Unbounded),
                            // Not a key condition operator; `build` cannot
                            // produce it, so it selects anything.
                            Comparator::Ne => SortSelection::Any,
                        },
                    },
                }
            }
            _ => return None,
        };
        Some(Selection {
            partition: text(partition),
            sort,
        })
    }
}

/// The error for a key condition on an index the table does not have.
fn unknown_index(schema: &TableSchema, name: &str) -> Error {
    let names: Vec<&str> = schema.indexes.iter().map(|i| i.name).collect();
    let list = if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    };
    Error::invalid_key(
        name,
        format!("is not an index of the table (its indexes: {list})"),
    )
}

fn key_value(
    attribute: KeyAttribute,
    of: &str,
    operand: &Operand,
    limit: usize,
) -> Result<AttributeValue> {
    let err = |reason: String| Error::invalid_key(attribute.name, format!("{of}{reason}"));
    let value = match &operand.0 {
        OperandKind::Value(Ok(v)) => {
            let name = attribute.name.to_owned();
            check_depth([(&name, v)]).map_err(|e| match (e.kind(), e.reason()) {
                (ErrorKind::InvalidValue, Some(reason)) => err(format!("condition value {reason}")),
                _ => e,
            })?;
            v.clone()
        }
        OperandKind::Value(Err(reason)) => {
            return Err(err(format!(
                "condition value cannot be converted: {reason}"
            )));
        }
        OperandKind::Path(a) | OperandKind::Size(a) => {
            return Err(err(format!(
                "condition compares with the attribute `{}`; key conditions compare with values",
                a.path()
            )));
        }
    };
    let len = match (attribute.scalar_type, &value) {
        (ScalarType::S, AttributeValue::S(s)) => s.len(),
        (ScalarType::B, AttributeValue::B(b)) => b.as_ref().len(),
        (ScalarType::N, AttributeValue::N(n)) => {
            check_number(n).map_err(|reason| err(format!("condition value {reason}")))?;
            n.len()
        }
        (expected, found) => {
            return Err(err(format!(
                "condition value is {}, expected {}",
                type_name(found),
                expected.describe()
            )));
        }
    };
    if len == 0 {
        return Err(err(
            "condition value is empty; DynamoDB rejects empty key values".to_owned(),
        ));
    }
    if len > limit {
        return Err(err(format!(
            "condition value is {len} bytes, over the limit of {limit} bytes"
        )));
    }
    Ok(value)
}

/// Whether `low > high` for sure (numbers compared as `f64`, which never
/// orders two numbers the wrong way round, only sometimes calls them equal).
fn bounds_reversed(low: &AttributeValue, high: &AttributeValue) -> bool {
    match (low, high) {
        (AttributeValue::S(a), AttributeValue::S(b)) => a > b,
        (AttributeValue::B(a), AttributeValue::B(b)) => a.as_ref() > b.as_ref(),
        (AttributeValue::N(a), AttributeValue::N(b)) => {
            matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(a), Ok(b)) if a > b)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reversed_bounds() {
        let n = |v: &str| AttributeValue::N(v.into());
        assert!(bounds_reversed(&n("10"), &n("9")));
        assert!(!bounds_reversed(&n("9"), &n("10")));
        assert!(!bounds_reversed(
            &n("1.00000000000000000000000000000000000002"),
            &n("1.00000000000000000000000000000000000001")
        ));
    }
}
