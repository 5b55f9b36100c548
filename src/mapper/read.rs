//! The way in: the received item checked before any hook or recursive code
//! sees it, the read hooks, then deserialization of the entity's fields (or
//! of a projection type's); every error names the entity type and, when the
//! item holds it, its key.

use serde::de::DeserializeOwned;

use super::{Mapper, MapperExt, fields, naming_needs_struct};
use crate::de::FieldsError;
use crate::error::{Error, Result};
use crate::fields::{FieldTable, field_table};
use crate::item::{Item, check_received, drop_item};

fn non_root(path: String) -> Option<String> {
    (path != "." && !path.is_empty()).then_some(path)
}

/// What [`decode`] read: the value, the attributes it did not consume, and
/// the item's key rendered before deserialization consumed it (when it had
/// to be).
struct Read<T> {
    value: T,
    rest: Item,
    early_key: Option<String>,
}

impl<T> Read<T> {
    fn key<M: Mapper>(&self) -> String {
        self.early_key
            .clone()
            .unwrap_or_else(|| M::SCHEMA.render_key(&self.rest))
    }
}

/// Read hooks and deserialization; returns the entity and the attributes
/// deserialization did not consume. Every error names the entity type and,
/// when the item holds it, the item's key.
pub(super) fn read<M: Mapper>(item: Item) -> Result<(M::Entity, Item)> {
    let mut read = decode::<M, M::Entity>(item, fields::<M>()?, false)?;
    M::after_from_item(&mut read.value, &read.rest).map_err(|e| {
        e.with_entity_type(M::ENTITY_TYPE)
            .with_key(|| read.key::<M>())
    })?;
    Ok((read.value, read.rest))
}

/// A projection type `P` of `M`'s items (see
/// [`MapperExt::from_projected`]).
pub(super) fn read_projected<M: Mapper, P: DeserializeOwned + 'static>(item: Item) -> Result<P> {
    let table = field_table::<P>(M::NAMING).map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
    decode::<M, P>(item, table, true).map(|read| read.value)
}

/// The checks, the `before_from_item` hook (for a projection without the
/// discriminator: the key patterns instead) and deserialization of `T`
/// through `table`, its field table under `M`'s naming.
fn decode<M: Mapper, T: DeserializeOwned>(
    mut item: Item,
    table: Option<&'static FieldTable>,
    projected: bool,
) -> Result<Read<T>> {
    let ctx = |e: Error| e.with_entity_type(M::ENTITY_TYPE);
    if table.is_none() {
        // A design error, not the item's: no key in the error.
        naming_needs_struct::<M>()?;
    }
    let is_field = |name: &str| match table {
        Some(t) => t.field_for(name).is_some(),
        None => !M::owns_attribute(name),
    };
    // First, before any hook or recursive code sees the item: depth (without
    // recursion), sets, types. An item refused here may be nested too deep
    // for the recursive `Drop` of `AttributeValue`: it is taken apart
    // without recursion.
    if let Err(e) = check_received(&item, is_field) {
        let e = ctx(e).with_key(|| M::SCHEMA.render_key(&item));
        drop_item(item);
        return Err(e);
    }
    let unlabelled = projected
        && M::SCHEMA
            .discriminator
            .is_some_and(|d| !item.contains_key(d));
    // Upgrade steps read whole items: a projection reads the attributes it
    // names as they are stored.
    let checked = if unlabelled {
        super::projected::check_keys::<M>(&item)
    } else if projected {
        M::before_from_item(&mut item).and_then(|()| super::check_type::<M>(&item))
    } else {
        M::before_from_item(&mut item)
            .and_then(|()| super::check_type::<M>(&item))
            .and_then(|()| upgrade::<M>(&mut item).map(|_| ()))
    };
    if let Err(e) = checked {
        return Err(ctx(e).with_key(|| M::SCHEMA.render_key(&item)));
    }
    // The key for errors is rendered from what deserialization leaves; only
    // when it consumes a key attribute (an entity field named like one) is it
    // rendered up front.
    let key_is_field = std::iter::once(M::SCHEMA.partition_key.name)
        .chain(M::SCHEMA.sort_key.map(|k| k.name))
        .any(is_field);
    let early_key = key_is_field.then(|| M::SCHEMA.render_key(&item));
    // The fields leave `item` for the deserializer and what stays is the
    // rest (one pass, nothing hashed again); an entity without a field
    // table reads the whole map, so its rest is taken out instead.
    let (read, rest) = match table {
        Some(t) => {
            let read = crate::de::from_fields(&mut item, t)
                .map_err(|e| deserialize_error::<M>(e, t, projected));
            (read, item)
        }
        None => {
            let mut rest = Item::with_capacity(item.keys().filter(|k| !is_field(k)).count());
            rest.extend(item.extract_if(|k, _| !is_field(k)));
            crate::de::clear_failed_path();
            let read = T::deserialize(crate::de::Value::item(item)).map_err(|e| {
                let path = non_root(crate::de::take_failed_path());
                Error::deserialize(path, e).with_entity_type(M::ENTITY_TYPE)
            });
            (read, rest)
        }
    };
    let key = || {
        early_key
            .clone()
            .unwrap_or_else(|| M::SCHEMA.render_key(&rest))
    };
    let value: T = read.map_err(|e| e.with_key(key))?;
    Ok(Read {
        value,
        rest,
        early_key,
    })
}

/// Runs the upgrade steps ([`Mapper::UPGRADES`]) an item of an older shape
/// misses, in order; returns the shape it was. Nothing for a mapper
/// without steps.
///
/// # Errors
/// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) naming the
/// shape attribute when it holds no shape (not a whole number from 1) or a
/// newer shape than the mapper's; [`ErrorKind::InvalidMapper`](crate::ErrorKind::InvalidMapper)
/// when the table names no shape attribute; what a step returns.
pub(crate) fn upgrade<M: Mapper>(item: &mut Item) -> Result<usize> {
    use aws_sdk_dynamodb::types::AttributeValue;
    let steps = M::UPGRADES;
    if steps.is_empty() {
        return Ok(1);
    }
    let Some(attr) = M::SCHEMA.shape else {
        // Refused by the plan's checks first; said here too.
        return Err(super::plan::plan::<M>().err().unwrap_or_else(|| {
            Error::invalid_value("(shape)", "the table names no shape attribute")
        }));
    };
    let current = steps.len() + 1;
    let stored = match item.get(attr) {
        None => 1,
        Some(AttributeValue::N(n)) => match n.parse::<usize>() {
            Ok(v) if v >= 1 => v,
            _ => {
                return Err(Error::invalid_value(
                    attr,
                    format!("is {n}, not a shape version (a whole number from 1)"),
                ));
            }
        },
        Some(other) => {
            return Err(Error::invalid_value(
                attr,
                format!(
                    "is {}, expected a shape version (a number)",
                    crate::item::type_name(other)
                ),
            ));
        }
    };
    if stored > current {
        return Err(Error::invalid_value(
            attr,
            format!(
                "is {stored}, a newer shape than this mapper reads (1 to {current}): the item was \
                 written by newer code"
            ),
        ));
    }
    for step in steps.get(stored - 1..).unwrap_or_default() {
        step(item)?;
    }
    Ok(stored)
}

/// The error for a failed deserialization: a missing field becomes
/// [`ErrorKind::MissingAttribute`](crate::ErrorKind::MissingAttribute) under
/// its stored name (saying the projection lacks it, for a projection);
/// anything else is [`ErrorKind::Deserialize`](crate::ErrorKind::Deserialize)
/// with the attribute path.
fn deserialize_error<M: Mapper>(error: FieldsError, table: &FieldTable, projected: bool) -> Error {
    match error {
        FieldsError::MissingField(field) => {
            let stored = table.stored_for(field, M::NAMING);
            if projected {
                Error::missing_projected(stored)
            } else {
                Error::missing_attribute(stored)
            }
        }
        FieldsError::Other(source, path) => Error::deserialize(path, source),
    }
    .with_entity_type(M::ENTITY_TYPE)
}
