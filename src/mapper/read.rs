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
    let checked = if unlabelled {
        super::projected::check_keys::<M>(&item)
    } else {
        M::before_from_item(&mut item)
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
