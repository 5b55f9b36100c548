//! Building blocks for hooks, and the default `before_from_item`.
//!
//! The hooks of a [`Mapper`](crate::Mapper) run in this order:
//!
//! | write (`to_item`)                          | read (`from_item`)                                  |
//! |--------------------------------------------|-----------------------------------------------------|
//! | `before_to_item(&entity)`: validate         | `before_from_item(&mut item)`: check type, upgrade  |
//! | serialize, rename, add discriminator        | split off unowned attributes, deserialize           |
//! | `after_to_item(&entity, &mut item)`: keys   | `after_from_item(&mut entity, &rest)`: fix up       |
//! | check keys, values and size                 |                                                     |
//!
//! Every hook returns a [`crate::Result`], so any of them can veto.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::item::{Item, type_name};

/// Checks that the item's discriminator attribute `attribute` holds one of
/// `accepted`. This is what the default `before_from_item` does with the
/// mapper's entity type and aliases; call it from your own `before_from_item`
/// when you override it.
///
/// # Errors
/// [`Error::MissingDiscriminator`] when the attribute is absent or not a
/// string, [`Error::DiscriminatorMismatch`] when it holds another value.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::{hooks::check_discriminator, Item};
///
/// let item = Item::from([("entityType".to_string(), AttributeValue::S("Order".into()))]);
/// assert!(check_discriminator(&item, "entityType", &["Order"]).is_ok());
/// let err = check_discriminator(&item, "entityType", &["Customer"]).unwrap_err();
/// assert_eq!(err.to_string(), "discriminator `entityType` is \"Order\", expected \"Customer\"");
/// ```
pub fn check_discriminator(item: &Item, attribute: &str, accepted: &[&str]) -> Result<()> {
    match item.get(attribute) {
        Some(AttributeValue::S(found)) if accepted.contains(&found.as_str()) => Ok(()),
        Some(AttributeValue::S(found)) => Err(Error::DiscriminatorMismatch {
            entity_type: None,
            attribute: attribute.to_owned(),
            expected: accepted.iter().map(|s| (*s).to_owned()).collect(),
            found: found.clone(),
        }),
        other => Err(Error::MissingDiscriminator {
            entity_type: None,
            attribute: attribute.to_owned(),
            found: other.map(|v| type_name(v).to_owned()),
        }),
    }
}

/// Inserts a string attribute; a shorthand for keys in `after_to_item`.
///
/// ```
/// use dynamodb_mapper::{hooks::put_str, Item, ItemExt};
///
/// let mut item = Item::new();
/// put_str(&mut item, "pk", format!("CUSTOMER#{}", "C1"));
/// assert_eq!(item.get_str("pk")?, "CUSTOMER#C1");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn put_str(item: &mut Item, name: &str, value: impl Into<String>) {
    item.insert(name.to_owned(), AttributeValue::S(value.into()));
}

/// Renames an attribute in place, for upgrading an old item shape in
/// `before_from_item`. Does nothing when `from` is absent; an existing `to`
/// is replaced.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::{hooks::rename_attribute, Item};
///
/// let mut item = Item::from([("mail".to_string(), AttributeValue::S("a@b.c".into()))]);
/// rename_attribute(&mut item, "mail", "email");
/// assert!(item.contains_key("email") && !item.contains_key("mail"));
/// ```
pub fn rename_attribute(item: &mut Item, from: &str, to: &str) {
    if let Some(v) = item.remove(from) {
        item.insert(to.to_owned(), v);
    }
}
