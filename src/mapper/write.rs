//! The way out: before-hook, serialization under stored names,
//! discriminator, keys rendered from the declared patterns, after-hook, the bag merged back, then the one pass of
//! write checks.

use aws_sdk_dynamodb::types::AttributeValue;

use super::plan::{Plan, plan};
use super::{Mapper, fields, naming_needs_struct};
use crate::check::{self, RenderedKeys, WriteRules};
use crate::error::{Error, Result};
use crate::item::{Item, check_depth};
use crate::ser::{Cause, Failure, Held, SerError};

/// Hooks, serialization, renaming and discriminator; no checks yet. The
/// item has room for `extra` more attributes (a bag merged in next), so
/// adding them does not grow and rehash it.
///
/// Also notes in `rendered` the keys the plan rendered (those the hooks
/// left as rendered need not be parsed back against their patterns).
pub(super) fn build_item<M: Mapper>(
    entity: &M::Entity,
    extra: usize,
    rendered: &mut RenderedKeys,
) -> Result<(Item, &'static Plan)> {
    let ctx = |e: Error| e.with_entity_type(M::ENTITY_TYPE);
    M::before_to_item(entity).map_err(ctx)?;
    // A plan holds the field table; without one (a mapper with problems)
    // the field table's own error comes first, as it always did.
    let plan = plan::<M>();
    let table = match plan {
        Ok(plan) => plan.fields,
        Err(_) => fields::<M>()?,
    };
    if table.is_none() {
        naming_needs_struct::<M>()?;
    }
    let plan = plan?;
    // The fields the keys are rendered from stay out of the item until the
    // keys are rendered: read where they are, not looked up.
    let mut held = plan.held();
    let mut item = match crate::ser::to_item(
        entity,
        table,
        M::NAMING,
        M::NONE_AS,
        plan.owned_attribute_bound + extra,
        &mut held,
    ) {
        Ok(item) => item,
        Err(SerError::NotAStruct) => {
            held = Held::none();
            serialize::<M>(entity)?
        }
        Err(SerError::Field(stored, failure)) => {
            let path = format!("{stored}{}", failure.path());
            return Err(serialize_error::<M>(Some(path), failure));
        }
    };
    if let Some(attr) = M::SCHEMA.discriminator {
        item.insert(
            attr.to_owned(),
            AttributeValue::S(M::ENTITY_TYPE.to_owned()),
        );
    }
    if let (Some(attr), false) = (M::SCHEMA.shape, M::UPGRADES.is_empty()) {
        item.insert(
            attr.to_owned(),
            AttributeValue::N((M::UPGRADES.len() + 1).to_string()),
        );
    }
    let pending = plan.render(&mut item, &held, rendered).map_err(ctx)?;
    held.put_into(&mut item);
    M::after_to_item(entity, &mut item).map_err(ctx)?;
    // A table key that could not be rendered is an error only if the hook
    // did not write it either.
    if let Some((_, error)) = pending
        .into_iter()
        .find(|(attribute, _)| !item.contains_key(*attribute))
    {
        return Err(ctx(error));
    }
    Ok((item, plan))
}

fn serialize<M: Mapper>(entity: &M::Entity) -> Result<Item> {
    match crate::ser::entity_to_value(entity, M::NONE_AS) {
        Ok(AttributeValue::M(item)) => Ok(item),
        Ok(other) => Err(Error::serialize(
            None,
            serde::ser::Error::custom(format!(
                "the entity is {}, not a map of attributes (serialize it as a struct or a map)",
                crate::item::type_name(&other)
            )),
        )
        .with_entity_type(M::ENTITY_TYPE)),
        Err(failure) => {
            let path = failure.path();
            let path = path.strip_prefix('.').unwrap_or(&path);
            Err(serialize_error::<M>(
                (!path.is_empty()).then(|| path.to_owned()),
                failure,
            ))
        }
    }
}

/// The error for a failed serialization at `path`: a value nested too deep is
/// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (as the write
/// check says for an item built by hand), anything else
/// [`ErrorKind::Serialize`](crate::ErrorKind::Serialize).
fn serialize_error<M: Mapper>(path: Option<String>, failure: Failure) -> Error {
    match failure.cause {
        Cause::TooDeep(reason) => {
            Error::invalid_value(path.unwrap_or_else(|| "(entity)".to_owned()), reason)
                .with_entity_type(M::ENTITY_TYPE)
        }
        Cause::Serde(source) => Error::serialize(path, source).with_entity_type(M::ENTITY_TYPE),
    }
}

pub(super) fn merge_bag<M: Mapper>(item: &mut Item, bag: &Item) -> Result<()> {
    let table = fields::<M>()?;
    let owned = super::owned::owned::<M>();
    for (name, value) in bag {
        if item.contains_key(name)
            || owned.get(name).is_some()
            || table.is_some_and(|t| t.field_for(name).is_some())
        {
            continue;
        }
        // Cloning recurses: the depth is checked first (a bag can be built
        // by hand, to any depth).
        check_depth(std::iter::once((name, value)))
            .map_err(|e| e.with_entity_type(M::ENTITY_TYPE))?;
        item.insert(name.to_owned(), value.clone());
    }
    Ok(())
}

/// The write checks, in their one pass.
pub(super) fn finish<M: Mapper>(item: Item, rendered: &RenderedKeys, plan: &Plan) -> Result<Item> {
    check::write(
        &item,
        WriteRules {
            table: Some(&plan.schema),
            patterns: M::KEY_PATTERNS,
            entity_type: Some(M::ENTITY_TYPE),
            rendered: Some(rendered),
            names: Some(&plan.key_names),
        },
    )?;
    Ok(item)
}
