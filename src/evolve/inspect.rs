//! The checks an audit makes of one item: what its discriminator names,
//! whether its mapper reads it and writes it back, whether each derived
//! attribute holds what the mapper renders now, whether its keys fit the
//! mapper's patterns, its size and its TTL.

use aws_sdk_dynamodb::types::AttributeValue;

use super::audit::{Audit, Finding};
use super::sentinels::SENTINELS;
use crate::describe::{describe_value, type_name};
use crate::item::{Item, MAX_ITEM_SIZE, item_size};
use crate::key::IndexKeys;
use crate::registry::{MapperOf, Registry, Routed};
use crate::schema::TableSchema;
use crate::time::MAX_TTL_SECONDS;

impl Audit {
    /// Checks `item` as an audit does and adds it, and what was found, to
    /// this report: for items you read yourself (a table export, a stream,
    /// your own scan) rather than through a [`Sweep`](super::Sweep).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::evolve::{Audit, Finding};
    /// use dynamodb_mapper::{MapperExt, Registry};
    ///
    /// let registry = Registry::builder().register::<OrderMapper>(|o| o).build()?;
    /// let order = Order { id: "O1".into(), customer: "C1".into() };
    /// let mut stale = OrderMapper::to_item(&order)?;
    /// stale.insert("pk".into(), AttributeValue::S("CUSTOMER#C0".into()));
    ///
    /// let mut report = Audit::default();
    /// report.add(&registry, OrderMapper::to_item(&order)?);
    /// report.add(&registry, stale);
    /// let found = &report.types["Order"].findings[&Finding::StaleAttribute("pk".into())];
    /// assert_eq!((report.scanned, found.count), (2, 1));
    /// assert_eq!(found.examples[0].detail, r#"holds "CUSTOMER#C0", renders "CUSTOMER#C1""#);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn add<T>(&mut self, registry: &crate::Registry<T>, item: crate::Item) {
        inspect(self, registry, item);
    }
}

/// Items this large or larger are within 10% of the limit.
const NEAR_SIZE_LIMIT: usize = MAX_ITEM_SIZE - MAX_ITEM_SIZE / 10;

/// Checks `item` and adds it, and what was found, to `audit`.
pub(super) fn inspect<T>(audit: &mut Audit, registry: &Registry<T>, item: Item) {
    let table = registry.table();
    let key = table.render_key(&item);
    let mapper = match registry.mapper_of(&item) {
        Routed::Mapper(mapper) => mapper,
        Routed::Unknown(value) => {
            let value = value.to_owned();
            audit.item(&value);
            audit.found(&value, Finding::UnknownEntityType, &key, || {
                format!("`{}` is {value:?}", table.discriminator.unwrap_or_default())
            });
            common(audit, &value, table, &key, &item);
            return;
        }
        Routed::Sentinel => {
            audit.item(SENTINELS);
            common(audit, SENTINELS, table, &key, &item);
            return;
        }
        Routed::Missing(found) => {
            audit.item("");
            audit.found("", Finding::MissingDiscriminator, &key, || match found {
                None => "absent".to_owned(),
                Some(t) => format!("is {t}"),
            });
            common(audit, "", table, &key, &item);
            return;
        }
    };
    audit.item(mapper.entity_type);
    common(audit, mapper.entity_type, table, &key, &item);
    unparsed_keys(audit, &mapper, &key, &item);
    derived(audit, mapper, &key, item);
}

/// The checks of every item, whatever its type: size and TTL.
fn common(audit: &mut Audit, entity_type: &str, table: TableSchema, key: &str, item: &Item) {
    let size = item_size(item);
    if size >= NEAR_SIZE_LIMIT {
        audit.found(entity_type, Finding::NearSizeLimit, key, || {
            format!("{size} bytes of {MAX_ITEM_SIZE}")
        });
    }
    if let Some(why) = table
        .ttl
        .and_then(|name| item.get(name))
        .and_then(implausible_ttl)
    {
        audit.found(entity_type, Finding::ImplausibleTtl, key, || why);
    }
}

/// Why a TTL value is not plausible epoch seconds, if it is not.
fn implausible_ttl(value: &AttributeValue) -> Option<String> {
    let AttributeValue::N(n) = value else {
        return Some(format!(
            "is {}, not a number (DynamoDB ignores it)",
            type_name(value)
        ));
    };
    let Ok(secs) = n.parse::<u64>() else {
        return Some(format!(
            "is {n}, not a whole number of seconds at or after 1970"
        ));
    };
    if secs > MAX_TTL_SECONDS {
        let likely = if secs / 1000 <= MAX_TTL_SECONDS {
            ", likely milliseconds"
        } else {
            ""
        };
        return Some(format!("is {n}, after the year 9999{likely}"));
    }
    None
}

/// The stored key attributes the mapper's patterns do not parse.
fn unparsed_keys(audit: &mut Audit, mapper: &MapperOf, key: &str, item: &Item) {
    for keys in mapper.key_patterns {
        for (attribute, pattern) in attributes_of(&mapper.table, keys) {
            let Some(AttributeValue::S(stored)) = item.get(attribute) else {
                continue;
            };
            if let Err(e) = pattern.parse(stored) {
                audit.found(
                    mapper.entity_type,
                    Finding::UnparsedKey(attribute.to_owned()),
                    key,
                    || e.to_string(),
                );
            }
        }
    }
}

/// Each attribute a declaration of `keys` renders, with its pattern.
fn attributes_of(
    table: &TableSchema,
    keys: &IndexKeys,
) -> Vec<(&'static str, crate::key::KeyPattern)> {
    // The mapper's own rule for which attributes its patterns render (a
    // declaration it refuses renders none).
    let Ok((partition, sort)) = crate::mapper::attributes_of(table, keys) else {
        return Vec::new();
    };
    let mut out = vec![(partition.name, keys.partition_key())];
    if let (Some(a), Some(p)) = (sort, keys.sort_key()) {
        out.push((a.name, p));
    }
    out
}

/// Reads the item with its mapper, writes the entity back, and compares
/// each derived attribute with what is stored.
fn derived(audit: &mut Audit, mapper: MapperOf, key: &str, item: Item) {
    let table = mapper.table;
    let mut names: Vec<&'static str> = table.key_attributes().iter().map(|k| k.name).collect();
    names.extend(table.discriminator);
    names.extend(table.ttl);
    names.extend(table.shape);
    let stored: Vec<Option<AttributeValue>> = names.iter().map(|n| item.get(*n).cloned()).collect();
    let rendered = match (mapper.rewrite)(item) {
        Ok(Ok(rewritten)) => {
            if table.shape.is_some() {
                audit.shape(mapper.entity_type, rewritten.shape);
            }
            rewritten.item
        }
        Ok(Err(e)) => {
            audit.found(mapper.entity_type, Finding::Unwritable, key, || {
                cause(&e, mapper.entity_type, key)
            });
            return;
        }
        Err(e) => {
            audit.found(mapper.entity_type, Finding::Undecodable, key, || {
                cause(&e, mapper.entity_type, key)
            });
            return;
        }
    };
    for (name, stored) in names.iter().zip(stored) {
        match (stored, rendered.get(*name)) {
            (None, Some(r)) => audit.found(
                mapper.entity_type,
                Finding::MissingAttribute((*name).to_owned()),
                key,
                || format!("renders {}", describe_value(r)),
            ),
            (Some(s), Some(r)) if &s != r => audit.found(
                mapper.entity_type,
                Finding::StaleAttribute((*name).to_owned()),
                key,
                || {
                    format!(
                        "holds {}, renders {}",
                        describe_value(&s),
                        describe_value(r)
                    )
                },
            ),
            (Some(s), None) => audit.found(
                mapper.entity_type,
                Finding::StaleAttribute((*name).to_owned()),
                key,
                || format!("holds {}, renders none", describe_value(&s)),
            ),
            _ => {}
        }
    }
}

/// The error with its causes, without the entity type and key the report
/// already shows.
fn cause(e: &crate::Error, entity_type: &str, key: &str) -> String {
    let text = format!("{e:#}");
    let context = format!("{entity_type} ({key}): ");
    match text.strip_prefix(&context) {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}
