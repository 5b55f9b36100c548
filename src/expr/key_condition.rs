//! [`KeyCondition`]: the key condition of a `Query`, checked against the
//! table's [`TableSchema`] (index, key names, types and size limits).

use std::ops::Bound;

use aws_sdk_dynamodb::types::AttributeValue;

use super::condition::{Comparator, Condition, Function, Node};
use super::expression::Expression;
use super::operand::{Attr, Operand, OperandKind, Step, Steps};
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
/// key (`=`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `begins_with`), written as
/// any [`Condition`] is, with [`and`](Self::and).
///
/// The key attribute names and types come from the [`TableSchema`]; building
/// checks that the index exists, that it has a sort key when one is
/// compared, and that each value has the key's type, is not empty and is
/// within the key size limits.
///
/// On an index with [multi-attribute keys](crate::GlobalSecondaryIndex::multi_attribute),
/// give the first partition key attribute to [`new`](Self::new) and every
/// other one by equality with [`and`](Self::and), and sort key conditions
/// from the left: every sort key attribute but the last given is compared
/// with `=`, and attributes on the right may be left out. Building refuses
/// any other shape, as DynamoDB would.
///
/// ```
/// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
/// use dynamodb_mapper::expr::{KeyCondition, attr};
///
/// const APP_TABLE: TableSchema = TableSchema::new("pk")
///     .sort_key("sk")
///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);
///
/// let key = KeyCondition::new(APP_TABLE, "STATUS#open")
///     .on_index("GSI1")
///     .and(attr("gsi1sk").between("2024-01-01", "2024-02-01"));
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
    /// The conditions given to [`and`](Self::and), placed on the key
    /// attributes they name when building.
    named: Vec<Condition>,
}

impl KeyCondition {
    /// The partition key (of the table, or of the index chosen with
    /// [`on_index`](Self::on_index)) equals `partition`.
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
            named: Vec::new(),
        }
    }

    /// Adds `condition` on key attributes of the index queried (or the
    /// table): a sort key attribute compared with `=`, `<`, `<=`, `>`, `>=`,
    /// `BETWEEN` or `begins_with`, or a partition key attribute of a
    /// [multi-attribute](crate::GlobalSecondaryIndex::multi_attribute) index
    /// other than the first, by equality. A condition that joins such
    /// comparisons with `AND` adds each. Which attribute each is on, and
    /// anything a key condition cannot hold (another attribute, `OR`, `<>`,
    /// ...), is checked when building.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::{KeyCondition, attr}, GlobalSecondaryIndex, KeyAttribute, ScalarType, TableSchema};
    ///
    /// const T: TableSchema = TableSchema::new("pk").indexes(&[GlobalSecondaryIndex::multi_attribute(
    ///     "ByRegion",
    ///     &[KeyAttribute::new("tenant"), KeyAttribute::new("region")],
    ///     &[KeyAttribute::typed("placedAt", ScalarType::N), KeyAttribute::new("orderId")],
    /// )]);
    /// let key = KeyCondition::new(T, "acme").and(attr("region").eq("eu-west")).on_index("ByRegion");
    /// let e = key.clone().and(attr("placedAt").eq(1_700_000_000) & attr("orderId").begins_with("O1")).build()?;
    /// assert_eq!(e.expression(), "#k0 = :k0 AND #k1 = :k1 AND #k2 = :k2 AND begins_with(#k3, :k3)");
    /// assert_eq!(e.names()["#k3"], "orderId");
    ///
    /// let err = key.clone().and(attr("placedAt").gt(1_700_000_000)).and(attr("orderId").eq("O1")).build().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "key attribute `orderId` of index ByRegion has a condition after the range on \
    ///      `placedAt`; only the last sort key attribute given may have a range (compare \
    ///      `placedAt` with =)"
    /// );
    /// let err = key.clone().and(attr("status").eq("open")).build().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "key attribute `status` is not a key attribute of index ByRegion (its keys: `tenant`, \
    ///      `region`, `placedAt`, `orderId`); compare other attributes in a filter"
    /// );
    /// let err = KeyCondition::new(T, "acme").on_index("ByRegion").build().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "key attribute `region` of index ByRegion has no value; a query gives every \
    ///      partition key attribute (`tenant`, `region`) by equality"
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn and(mut self, condition: Condition) -> Self {
        self.named.push(condition);
        self
    }

    /// The next partition key attribute of a multi-attribute index equals
    /// `value` (the first is given to [`new`](Self::new)).
    pub(crate) fn and_partition(mut self, value: impl Into<Operand>) -> Self {
        self.partition.push(value.into());
        self
    }

    /// Queries the global secondary index `name` instead of the table.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::KeyCondition, GlobalSecondaryIndex, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk").indexes(&[GlobalSecondaryIndex::new("ByEmail", "email")]);
    /// let e = KeyCondition::new(T, "ada@example.com").on_index("ByEmail").build()?;
    /// assert_eq!(e.names()["#k0"], "email");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn on_index(mut self, name: impl Into<String>) -> Self {
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

    /// The next sort key attribute equals `value`.
    pub(crate) fn sort_eq(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Eq, value.into()))
    }

    /// The next sort key attribute is at most `value`.
    pub(crate) fn sort_le(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Le, value.into()))
    }

    /// The next sort key attribute is at least `value`.
    pub(crate) fn sort_ge(self, value: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Compare(Comparator::Ge, value.into()))
    }

    /// The next sort key attribute is between `low` and `high`, both included.
    pub(crate) fn sort_between(self, low: impl Into<Operand>, high: impl Into<Operand>) -> Self {
        self.sort(SortCondition::Between(low.into(), high.into()))
    }

    /// The next sort key attribute starts with `prefix`.
    pub(crate) fn sort_begins_with(self, prefix: impl Into<Operand>) -> Self {
        self.sort(SortCondition::BeginsWith(prefix.into()))
    }

    /// The expression, with placeholders `#k0`, `:k0`, ...
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey): the index does
    /// not exist (the attribute is the index name); a condition given to
    /// [`and`](Self::and) that is not a comparison of key attributes (`OR`,
    /// `<>`, a function other than `begins_with`, a nested path: attribute
    /// `(key condition)`), or that names an attribute that is not a key of
    /// the index, a partition key attribute other than by `=` or twice, a
    /// sort key attribute twice, or after one left out (attribute: the one
    /// named); a value that is an attribute path, of the wrong type, empty,
    /// over the key size limit, or a `BETWEEN` whose low bound is above its
    /// high bound (attribute: the key attribute); `begins_with` on a number
    /// sort key.
    ///
    /// ```
    /// use dynamodb_mapper::{expr::{KeyCondition, attr}, GlobalSecondaryIndex, ScalarType, TableSchema};
    ///
    /// const T: TableSchema = TableSchema::new("pk")
    ///     .typed_sort_key("at", ScalarType::N)
    ///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk")]);
    /// let err = KeyCondition::new(T, "A").on_index("GSI9").build().unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `GSI9` is not an index of the table (its indexes: GSI1)");
    /// let err = KeyCondition::new(T, "A").on_index("GSI1").and(attr("at").eq("x")).build().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "key attribute `at` is not a key attribute of index GSI1 (its keys: `gsi1pk`); compare \
    ///      other attributes in a filter"
    /// );
    /// let err = KeyCondition::new(T, "A").and(attr("at").eq("x")).build().unwrap_err();
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
        let (partition_keys, sort_keys) = self.keys()?;
        let (on, of) = match &self.index {
            None => ("the table".to_owned(), String::new()),
            Some(name) => (format!("index {name}"), format!("of index {name} ")),
        };
        let (partition, sort) = self.placed(partition_keys, sort_keys, &on)?;
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
        if partition.len() > partition_keys.len() {
            let n = partition_keys.len();
            return Err(Error::invalid_key(
                "(partition key)",
                format!(
                    "has {} values, but {on} has {n} partition key attribute{} ({})",
                    partition.len(),
                    if n == 1 { "" } else { "s" },
                    names(partition_keys)
                ),
            ));
        }
        for (i, key) in partition_keys.iter().enumerate() {
            let Some(operand) = partition.get(i) else {
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
        if sort_keys.is_empty() && !sort.is_empty() {
            return Err(Error::invalid_key(
                "(sort key)",
                format!("has a condition, but {on} has no sort key"),
            ));
        }
        if sort.len() > sort_keys.len() {
            return Err(match sort_keys {
                [key] => Error::invalid_key(
                    key.name,
                    format!(
                        "{of}has {} conditions; a key condition allows one",
                        sort.len()
                    ),
                ),
                _ => Error::invalid_key(
                    "(sort key)",
                    format!(
                        "has {} conditions, but {on} has {} sort key attributes ({}); a key \
                         condition allows one per attribute",
                        sort.len(),
                        sort_keys.len(),
                        names(sort_keys)
                    ),
                ),
            });
        }
        for (i, (condition, sort_key)) in sort.iter().zip(sort_keys).enumerate() {
            let sort_key = *sort_key;
            if i > 0 {
                let before = &sort[i - 1];
                if !matches!(before, SortRef::Compare(Comparator::Eq, _)) {
                    let ranged = sort_keys[i - 1].name;
                    return Err(Error::invalid_key(
                        sort_key.name,
                        format!(
                            "{of}has a condition after the range on `{ranged}`; only the last \
                             sort key attribute given may have a range (compare `{ranged}` \
                             with =)"
                        ),
                    ));
                }
            }
            let value = |operand: &Operand| key_value(sort_key, &of, operand, MAX_SORT_KEY_BYTES);
            let name = ctx.name(sort_key.name);
            match *condition {
                SortRef::Compare(comparator, operand) => {
                    let v = value(operand)?;
                    let v = ctx.value(v);
                    and(&mut out, &format!("{name} {} {v}", comparator.symbol()));
                }
                SortRef::Between(low, high) => {
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
                SortRef::BeginsWith(operand) => {
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
        if multi_attribute {
            return None;
        }
        let (partition_keys, sort_keys) = self.keys().ok()?;
        let (partition, sort) = self.placed(partition_keys, sort_keys, "").ok()?;
        let [partition] = partition.as_slice() else {
            return None;
        };
        fn text(operand: &Operand) -> Option<&str> {
            match &operand.0 {
                OperandKind::Value(Ok(AttributeValue::S(s))) => Some(s.as_str()),
                _ => None,
            }
        }
        let sort = match sort.as_slice() {
            [] => SortSelection::Any,
            [condition] => {
                let range = |low, high| SortSelection::Range(low, high);
                match *condition {
                    SortRef::BeginsWith(p) => {
                        text(p).map_or(SortSelection::NotText, SortSelection::Prefix)
                    }
                    SortRef::Between(low, high) => match (text(low), text(high)) {
                        (Some(low), Some(high)) => {
                            range(Bound::Included(low), Bound::Included(high))
                        }
                        _ => SortSelection::NotText,
                    },
                    SortRef::Compare(comparator, value) => match text(value) {
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

impl KeyCondition {
    /// The partition and sort key attributes of the index queried (or the
    /// table).
    fn keys(&self) -> Result<(&[KeyAttribute], &[KeyAttribute])> {
        match &self.index {
            None => Ok((
                std::slice::from_ref(&self.schema.partition_key),
                self.schema.sort_key.as_slice(),
            )),
            Some(name) => match self.schema.index(name) {
                Some(index) => Ok((index.partition_keys(), index.sort_keys())),
                None => Err(unknown_index(&self.schema, name)),
            },
        }
    }

    /// The partition key values and sort key conditions, in key order: the
    /// ones given in place, then each comparison of the conditions given to
    /// [`and`](Self::and) on the key attribute it names (`on`: the table or
    /// index, for errors).
    fn placed<'s>(
        &'s self,
        partition_keys: &[KeyAttribute],
        sort_keys: &[KeyAttribute],
        on: &str,
    ) -> Result<(Vec<&'s Operand>, Vec<SortRef<'s>>)> {
        let mut partition: Vec<Option<&Operand>> = self.partition.iter().map(Some).collect();
        let mut sort: Vec<Option<SortRef<'_>>> =
            self.sort.iter().map(|c| Some(c.as_ref())).collect();
        let all_keys = || {
            partition_keys
                .iter()
                .chain(sort_keys)
                .map(|k| format!("`{}`", k.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut place = |name: &str, part: SortRef<'s>| -> Result<()> {
            if let Some(i) = partition_keys.iter().position(|k| k.name == name) {
                let SortRef::Compare(Comparator::Eq, value) = part else {
                    return Err(Error::invalid_key(
                        name,
                        format!(
                            "is a partition key attribute of {on}; a key condition compares it \
                             with = only"
                        ),
                    ));
                };
                slot(&mut partition, i);
                if partition[i].replace(value).is_some() {
                    return Err(Error::invalid_key(
                        name,
                        format!("has two values; a partition key attribute of {on} takes one"),
                    ));
                }
            } else if let Some(i) = sort_keys.iter().position(|k| k.name == name) {
                slot(&mut sort, i);
                if sort[i].replace(part).is_some() {
                    return Err(Error::invalid_key(
                        name,
                        "has two conditions; a key condition allows one per attribute (a range \
                         from one bound to another is BETWEEN)",
                    ));
                }
            } else {
                return Err(Error::invalid_key(
                    name,
                    format!(
                        "is not a key attribute of {on} (its keys: {}); compare other attributes \
                         in a filter",
                        all_keys()
                    ),
                ));
            }
            Ok(())
        };
        for condition in &self.named {
            key_parts(&condition.0, &mut place)?;
        }
        // Sort key conditions are given from the left.
        if let Some(gap) = sort.iter().position(Option::is_none)
            && let Some(after) = sort.iter().skip(gap).position(Option::is_some)
        {
            let (missing, given) = (sort_keys[gap].name, sort_keys[gap + after].name);
            return Err(Error::invalid_key(
                given,
                format!(
                    "has a condition, but `{missing}` before it in the sort key of {on} has none; \
                     a key condition gives sort key attributes from the left"
                ),
            ));
        }
        // A missing partition key value is reported, naming it, by `build`;
        // sort key conditions have no gap now. Collected in place.
        let partition = partition.into_iter().map_while(|v| v).collect();
        Ok((partition, sort.into_iter().map_while(|v| v).collect()))
    }
}

/// Makes room in `list` for an entry at `i`.
fn slot<T: Clone>(list: &mut Vec<Option<T>>, i: usize) {
    if list.len() <= i {
        list.resize(i + 1, None);
    }
}

/// A sort key condition, borrowed from where it was given.
#[derive(Debug, Clone, Copy)]
enum SortRef<'a> {
    Compare(Comparator, &'a Operand),
    Between(&'a Operand, &'a Operand),
    BeginsWith(&'a Operand),
}

impl SortCondition {
    fn as_ref(&self) -> SortRef<'_> {
        match self {
            SortCondition::Compare(c, v) => SortRef::Compare(*c, v),
            SortCondition::Between(low, high) => SortRef::Between(low, high),
            SortCondition::BeginsWith(p) => SortRef::BeginsWith(p),
        }
    }
}

/// Hands `place` each comparison `node` joins with `AND`, as the top-level
/// attribute it compares and how; or says what keeps it out of a key
/// condition.
fn key_parts<'a>(
    node: &'a Node,
    place: &mut dyn FnMut(&'a str, SortRef<'a>) -> Result<()>,
) -> Result<()> {
    let refused = |what: String| Error::invalid_key("(key condition)", what);
    let unfit = |what: &str| {
        refused(format!(
            "has {what}; a key condition compares key attributes with =, <, <=, >, >=, BETWEEN \
             or begins_with, joined with AND"
        ))
    };
    let nested = |attr: &Attr| {
        refused(format!(
            "compares the nested path `{}`; a key condition compares top-level key attributes",
            attr.path()
        ))
    };
    let name = |operand: &'a Operand| match &operand.0 {
        OperandKind::Path(attr) => top_level_name(attr).ok_or_else(|| nested(attr)),
        OperandKind::Size(_) => Err(refused(
            "compares a size; a key condition compares values".to_owned(),
        )),
        OperandKind::Value(_) => Err(refused(
            "has a value on the left; a key condition compares an attribute with a value"
                .to_owned(),
        )),
    };
    match node {
        Node::And(nodes) => nodes.iter().try_for_each(|node| key_parts(node, place)),
        Node::Compare(_, Comparator::Ne, _) => Err(unfit("<>")),
        Node::Compare(left, comparator, right) => {
            place(name(left)?, SortRef::Compare(*comparator, right))
        }
        Node::Between(left, low, high) => place(name(left)?, SortRef::Between(low, high)),
        Node::Function(Function::BeginsWith, attr, Some(prefix)) => {
            let name = top_level_name(attr).ok_or_else(|| nested(attr))?;
            place(name, SortRef::BeginsWith(prefix))
        }
        Node::Function(function, ..) => Err(unfit(function.name())),
        Node::In(..) => Err(unfit("IN")),
        Node::Or(_) => Err(unfit("OR")),
        Node::Not(_) => Err(unfit("NOT")),
    }
}

/// The name of a top-level attribute, `None` for a nested path.
fn top_level_name(attr: &Attr) -> Option<&str> {
    match attr.steps().ok()? {
        Steps::One(Step::Name(name)) => Some(name),
        Steps::Many(steps) => match steps.as_slice() {
            [Step::Name(name)] => Some(name),
            _ => None,
        },
        Steps::One(_) => None,
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
