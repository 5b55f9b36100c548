//! Sentinel items of unique constraints ([`Unique`](crate::Unique)): their
//! keys, rendered from an item's unique values; the sentinel item itself;
//! and which sentinels a write from one item to another puts and deletes.
//! The helpers write them (`ops/unique.rs`).

use aws_sdk_dynamodb::types::AttributeValue;

use super::{Mapper, plan};
use crate::error::{Error, Result};
use crate::item::Item;
use crate::key::{KeyFormat, KeyRole};

/// The discriminator value of a sentinel item: a registry skips it.
pub(crate) const SENTINEL_TYPE: &str = "dynamodb_mapper.Unique";
/// The first component of every sentinel's partition key.
pub(crate) const PREFIX: &str = "UNIQUE";
/// The sort key of a sentinel, when the table has one.
const SORT: &str = "UNIQUE";
/// The attribute naming the constraint: `<entity type>.<constraint>`.
pub(crate) const OF: &str = "uniqueOf";
/// The attribute holding the owner's key (a map of its key attributes).
pub(crate) const OWNER: &str = "uniqueOwner";

/// The sentinel of one constraint for one item's values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sentinel {
    /// The constraint's name.
    pub(crate) constraint: &'static str,
    /// The sentinel's key.
    pub(crate) key: Item,
    /// The values, as a person reads them (`"ada@example.com"`, or
    /// `"acme", "ada"` for several fields).
    pub(crate) value: String,
}

/// The stored names of the fields of `M`'s unique constraints (empty
/// without constraints, or when the mapper is invalid).
pub(crate) fn attributes<M: Mapper>() -> Vec<String> {
    plan::<M>()
        .map(|p| {
            p.unique
                .iter()
                .flat_map(|r| r.stored.iter().cloned())
                .collect()
        })
        .unwrap_or_default()
}

/// The sentinels of `item` (an item of `M`, as `to_item` renders it): one
/// per constraint whose fields all hold a value.
///
/// # Errors
/// [`ErrorKind::InvalidMapper`](crate::ErrorKind::InvalidMapper) as the
/// mapper's plan; [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue)
/// naming the field for a value that is not a non-empty string, an integer
/// or a boolean, or a sentinel key over DynamoDB's size limit.
pub(crate) fn sentinels<M: Mapper>(item: &Item) -> Result<Vec<Sentinel>> {
    let plan = plan::<M>()?;
    let mut out = Vec::with_capacity(plan.unique.len());
    'rules: for rule in &plan.unique {
        let mut components = vec![
            PREFIX.to_owned(),
            M::ENTITY_TYPE.to_owned(),
            rule.name.to_owned(),
        ];
        let mut shown = Vec::with_capacity(rule.stored.len());
        for stored in &rule.stored {
            let text = match item.get(stored) {
                None | Some(AttributeValue::Null(_)) => continue 'rules,
                Some(AttributeValue::S(s)) if !s.is_empty() => {
                    shown.push(format!("{s:?}"));
                    // Numbers and booleans are tagged `n:` and `b:`; a
                    // string that looks tagged is tagged `s:`, so no two
                    // values share a sentinel.
                    if ["n:", "b:", "s:"].iter().any(|t| s.starts_with(t)) {
                        format!("s:{s}")
                    } else {
                        s.clone()
                    }
                }
                Some(AttributeValue::N(n)) => {
                    let Ok(i) = n.parse::<i128>() else {
                        return Err(refused(
                            rule.name,
                            stored,
                            format!("is the number {n}, not an integer"),
                        ));
                    };
                    shown.push(i.to_string());
                    format!("n:{i}")
                }
                Some(AttributeValue::Bool(b)) => {
                    shown.push(b.to_string());
                    format!("b:{b}")
                }
                Some(AttributeValue::S(_)) => {
                    return Err(refused(rule.name, stored, "is empty".to_owned()));
                }
                Some(other) => {
                    return Err(refused(
                        rule.name,
                        stored,
                        format!("is {}", crate::describe::type_name(other)),
                    ));
                }
            };
            components.push(text);
        }
        let pk = KeyFormat::new()
            .join(KeyRole::Partition, &components)
            .map_err(|_| {
                Error::invalid_value(
                    rule.stored.join(", "),
                    format!(
                        "is too long for the sentinel of the unique constraint `{}`: its key \
                         (`UNIQUE#`, the entity type, the constraint and the values) must fit \
                         DynamoDB's 2,048-byte partition key",
                        rule.name
                    ),
                )
            })?;
        let schema = plan.schema;
        let mut key = Item::new();
        key.insert(schema.partition_key.name.to_owned(), AttributeValue::S(pk));
        if let Some(sk) = schema.sort_key {
            key.insert(sk.name.to_owned(), AttributeValue::S(SORT.to_owned()));
        }
        out.push(Sentinel {
            constraint: rule.name,
            key,
            value: shown.join(", "),
        });
    }
    Ok(out)
}

fn refused(constraint: &str, attribute: &str, what: String) -> Error {
    Error::invalid_value(
        attribute,
        format!(
            "{what}: a value of the unique constraint `{constraint}` must be a non-empty string, \
             an integer or a boolean"
        ),
    )
}

/// The attributes of `item` that `M`'s unique constraints read (`None`
/// when it has none): what a record keeps of the values it was read with.
pub(crate) fn values<M: Mapper>(item: &Item) -> Option<Item> {
    if M::UNIQUE.is_empty() {
        return None;
    }
    let plan = plan::<M>().ok()?;
    let mut out = Item::new();
    for stored in plan.unique.iter().flat_map(|r| &r.stored) {
        if let Some(v) = item.get(stored) {
            out.insert(stored.clone(), v.clone());
        }
    }
    Some(out)
}

/// The sentinel item of `sentinel`, owned by the item at `owner` (its
/// key) of `entity_type` on `schema`.
pub(crate) fn item_of(
    schema: crate::schema::TableSchema,
    entity_type: &str,
    sentinel: &Sentinel,
    owner: &Item,
) -> Item {
    let mut item = sentinel.key.clone();
    if let Some(d) = schema.discriminator {
        item.insert(d.to_owned(), AttributeValue::S(SENTINEL_TYPE.to_owned()));
    }
    item.insert(
        OF.to_owned(),
        AttributeValue::S(format!("{entity_type}.{}", sentinel.constraint)),
    );
    item.insert(OWNER.to_owned(), AttributeValue::M(owner.clone()));
    item
}

/// The sentinels a write from `old` to `new` (items of `M`; `None`: no
/// item) deletes and puts: only those of constraints whose values change.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    pub(crate) deletes: Vec<Sentinel>,
    pub(crate) puts: Vec<Sentinel>,
}

impl Changes {
    pub(crate) fn is_empty(&self) -> bool {
        self.deletes.is_empty() && self.puts.is_empty()
    }
}

/// # Errors
/// As [`sentinels`].
pub(crate) fn changes<M: Mapper>(old: Option<&Item>, new: Option<&Item>) -> Result<Changes> {
    if M::UNIQUE.is_empty() {
        return Ok(Changes::default());
    }
    // An old value no sentinel can hold (stored before the constraint was
    // declared) has none to delete.
    let old = old.and_then(|o| sentinels::<M>(o).ok()).unwrap_or_default();
    let new = new.map(sentinels::<M>).transpose()?.unwrap_or_default();
    Ok(diff(&old, &new))
}

/// The sentinels to delete and put to go from `old` to `new`.
pub(crate) fn diff(old: &[Sentinel], new: &[Sentinel]) -> Changes {
    Changes {
        deletes: old.iter().filter(|o| !new.contains(o)).cloned().collect(),
        puts: new.iter().filter(|n| !old.contains(n)).cloned().collect(),
    }
}

/// The constraint and value of a sentinel item, and its owner's key, as
/// stored (for a violation's message): `None` for an item that is no
/// sentinel.
pub(crate) fn read(item: &Item) -> Option<(String, Option<Item>)> {
    let of = match item.get(OF) {
        Some(AttributeValue::S(of)) => of.clone(),
        _ => return None,
    };
    let owner = match item.get(OWNER) {
        Some(AttributeValue::M(owner)) => Some(owner.clone()),
        _ => None,
    };
    Some((of, owner))
}

/// The key patterns of `M`'s sentinels, one per constraint
/// (`UNIQUE#<type>#<constraint>#{v0}#{v1}...`, sort key `UNIQUE`), for the
/// registry's overlap analysis: worked out once per mapper type (their
/// text is kept for the life of the process, as the analysis borrows it).
pub(crate) fn patterns<M: Mapper>() -> &'static [crate::key::IndexKeys] {
    use crate::key::{IndexKeys, KeyPattern};
    static CACHE: crate::type_cache::TypeCache<std::any::TypeId, &'static [IndexKeys]> =
        crate::type_cache::TypeCache::new();
    CACHE.get_or_insert_with(std::any::TypeId::of::<M>(), || {
        let Ok(plan) = plan::<M>() else {
            return &[];
        };
        let escape = |t: &str| KeyFormat::new().escape_text(t).unwrap_or_default();
        let patterns: Vec<IndexKeys> = plan
            .unique
            .iter()
            .map(|rule| {
                let mut template =
                    format!("{PREFIX}#{}#{}", escape(M::ENTITY_TYPE), escape(rule.name));
                for i in 0..rule.stored.len() {
                    template.push_str(&format!("#{{v{i}}}"));
                }
                let template: &'static str = Box::leak(template.into_boxed_str());
                let keys = IndexKeys::table(KeyPattern::partition(template));
                if plan.schema.sort_key.is_some() {
                    keys.sort(KeyPattern::sort(SORT))
                } else {
                    keys
                }
            })
            .collect();
        Box::leak(patterns.into_boxed_slice())
    })
}
