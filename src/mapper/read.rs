//! The way in: the received item checked before any hook or recursive code
//! sees it, the read hooks, then deserialization of the entity's fields;
//! every error names the entity type and, when the item holds it, its key.

use super::{Mapper, MapperExt, fields, naming_needs_struct};
use crate::de::FieldsError;
use crate::error::{Error, Result};
use crate::fields::FieldTable;
use crate::item::{Item, check_received, drop_item};

fn non_root(path: String) -> Option<String> {
    (path != "." && !path.is_empty()).then_some(path)
}

/// Read hooks and deserialization; returns the entity and the attributes
/// deserialization did not consume. Every error names the entity type and,
/// when the item holds it, the item's key.
pub(super) fn read<M: Mapper>(mut item: Item) -> Result<(M::Entity, Item)> {
    let ctx = |e: Error| e.with_entity_type(M::ENTITY_TYPE);
    let table = fields::<M>()?;
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
        let e = ctx(e).with_key(|| M::TABLE.render_key(&item));
        drop_item(item);
        return Err(e);
    }
    if let Err(e) = M::before_from_item(&mut item) {
        return Err(ctx(e).with_key(|| M::TABLE.render_key(&item)));
    }
    // The key for errors is rendered from what deserialization leaves; only
    // when it consumes a key attribute (an entity field named like one) is it
    // rendered up front.
    let key_is_field = std::iter::once(M::TABLE.partition_key_attribute().name)
        .chain(M::TABLE.sort_key_attribute().map(|k| k.name))
        .any(is_field);
    let early_key = key_is_field.then(|| M::TABLE.render_key(&item));
    // `item` keeps what the entity consumes, `rest` gets the others.
    let rest = item.extract_if(|k, _| !is_field(k)).collect::<Item>();
    let key = || {
        early_key
            .clone()
            .unwrap_or_else(|| M::TABLE.render_key(&rest))
    };
    let read = match table {
        Some(t) => crate::de::from_fields(item, t).map_err(|e| deserialize_error::<M>(e, t)),
        None => serde_path_to_error::deserialize(crate::de::Value::item(item)).map_err(|e| {
            let path = non_root(e.path().to_string());
            Error::deserialize(path, e.into_inner()).with_entity_type(M::ENTITY_TYPE)
        }),
    };
    let mut entity: M::Entity = read.map_err(|e| e.with_key(key))?;
    M::after_from_item(&mut entity, &rest).map_err(|e| ctx(e).with_key(key))?;
    Ok((entity, rest))
}

/// The error for a failed deserialization: a missing field becomes
/// [`ErrorKind::MissingAttribute`](crate::ErrorKind::MissingAttribute) under
/// its stored name; anything else is
/// [`ErrorKind::Deserialize`](crate::ErrorKind::Deserialize) with the attribute
/// path.
fn deserialize_error<M: Mapper>(error: FieldsError, table: &FieldTable) -> Error {
    match error {
        FieldsError::MissingField(field) => {
            Error::missing_attribute(table.stored_for(field, M::NAMING))
        }
        FieldsError::Other(source, path) => Error::deserialize(path, source),
    }
    .with_entity_type(M::ENTITY_TYPE)
}
