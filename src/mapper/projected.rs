//! Projections: the attributes a smaller view `P` of the entity reads
//! (what [`expr::Projection::of`](crate::expr::Projection::of) asks for),
//! and the type check of a projected item that lacks the discriminator (a
//! `KEYS_ONLY` or `INCLUDE` index), by the mapper's key patterns.

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::DeserializeOwned;

use super::{Mapper, naming_needs_struct};
use crate::error::{Error, Result};
use crate::fields::field_table;
use crate::item::Item;

/// The stored names a projection for `P` must include: `P`'s fields under
/// `M`'s naming, the discriminator and the table's key attributes (so the
/// type is checked and errors name the item), each once, in that order.
pub(crate) fn projected_attributes<M: Mapper, P: DeserializeOwned + 'static>() -> Result<Vec<String>>
{
    let Some(table) =
        field_table::<P>(M::NAMING).map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?
    else {
        naming_needs_struct::<M>()?;
        return Err(Error::invalid_value(
            "(projection)",
            "cannot be listed: the projection type is not a plain struct, so its fields are not known",
        )
        .with_entity_type(M::ENTITY_TYPE));
    };
    let mut names: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    };
    for (_, stored) in table.fields() {
        add(stored);
    }
    if let Some(d) = M::SCHEMA.discriminator {
        add(d);
    }
    add(M::SCHEMA.partition_key.name);
    if let Some(sk) = M::SCHEMA.sort_key {
        add(sk.name);
    }
    Ok(names)
}

/// For a projected item without the discriminator: its keys must be keys
/// `M` writes (they match one of its declared key patterns, on the table or
/// an index), else it cannot be told to be `M`'s.
pub(super) fn check_keys<M: Mapper>(item: &Item) -> Result<()> {
    let text = |name: &str| match item.get(name) {
        Some(AttributeValue::S(s)) => Some(s.as_str()),
        _ => None,
    };
    for keys in M::KEY_PATTERNS {
        let (pk, sk) = match keys.index_name() {
            None => (
                M::SCHEMA.partition_key.name,
                M::SCHEMA.sort_key.map(|k| k.name),
            ),
            Some(index) => match M::SCHEMA.index(index) {
                Some(i) => match i.single_keys() {
                    Some((pk, sk)) => (pk.name, sk.map(|k| k.name)),
                    None => continue,
                },
                None => continue,
            },
        };
        let Some(partition) = text(pk) else { continue };
        if !keys.partition_key().matches(partition) {
            continue;
        }
        let sort_ok = match (keys.sort_key(), sk) {
            (Some(pattern), Some(attribute)) => text(attribute).is_some_and(|v| pattern.matches(v)),
            _ => true,
        };
        if sort_ok {
            return Ok(());
        }
    }
    let attribute = M::SCHEMA.discriminator.unwrap_or("(discriminator)");
    Err(Error::missing_discriminator(attribute, None))
}
