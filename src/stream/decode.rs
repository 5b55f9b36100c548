//! [`Change`]: a stream record with its images decoded through a
//! [`Registry`], by [`Registry::decode_change`].

use std::time::SystemTime;

use super::change_record::{ChangeKind, ChangeRecord, Which};
use crate::error::Result;
use crate::item::Item;
use crate::registry::{Decoded, Registry};

/// A stream record decoded: what happened, to which item, and the item
/// before and after as the registry decodes them (an entity, or skipped or
/// kept raw by its policies). `old` and `new` are `None` when the record
/// does not carry that image: a `KEYS_ONLY` stream, the old image of an
/// insert, the new image of a removal.
///
/// ```
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord, ViewType};
///
/// let registry = Registry::builder().register::<CustomerMapper>(Entity::Customer).build()?;
/// let item = CustomerMapper::to_item(&Customer { id: "C1".into() })?;
/// let mut expired = ChangeRecord::new("e2", ChangeKind::Remove, TABLE.key_of(&item)?);
/// expired.view_type = Some(ViewType::OldImage);
/// expired.old_image = Some(item);
/// expired.user_identity = Some(("Service".into(), "dynamodb.amazonaws.com".into()));
/// let change = registry.decode_change(expired)?;
/// assert!(change.removed_by_ttl);
/// assert_eq!(change.old.unwrap().into_entity(), Some(Entity::Customer(Customer { id: "C1".into() })));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Change<T> {
    /// The record's event id.
    pub event_id: String,
    /// Insert, modify or remove.
    pub kind: ChangeKind,
    /// The item's primary key.
    pub keys: Item,
    /// The item before the change, decoded, when the record carries it.
    pub old: Option<Decoded<T>>,
    /// The item after the change, decoded, when the record carries it.
    pub new: Option<Decoded<T>>,
    /// Whether DynamoDB's TTL process removed the item (not a user).
    pub removed_by_ttl: bool,
    /// The record's sequence number, when known.
    pub sequence_number: Option<String>,
    /// The approximate time of the change, when known.
    pub created_at: Option<SystemTime>,
}

impl<T> Registry<T> {
    /// Decodes a stream record's images with the registered mappers, under
    /// the registry's policies for unknown and missing discriminators, as
    /// [`decode`](Registry::decode) does for a query's item.
    ///
    /// The record's view type, when it says one, is respected: the images
    /// it promises must be there (an insert has no old image, a removal no
    /// new one). Without a view type, the images present are decoded.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidStreamRecord`](crate::ErrorKind::InvalidStreamRecord)
    /// for an old image on an insert, a new image on a removal, or an image
    /// the view type promises and the record lacks (or carries though the
    /// view type leaves it out); else the errors of
    /// [`decode`](Registry::decode) for each image (they name the entity
    /// type, the item's key and the attribute).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord, ViewType};
    ///
    /// let registry = Registry::builder().register::<CustomerMapper>(Entity::Customer).build()?;
    /// let mut keys_only = ChangeRecord::new("e3", ChangeKind::Modify, Default::default());
    /// keys_only.view_type = Some(ViewType::KeysOnly);
    /// let change = registry.decode_change(keys_only)?;
    /// assert!(change.old.is_none() && change.new.is_none());
    ///
    /// let mut lacking = ChangeRecord::new("e4", ChangeKind::Modify, Default::default());
    /// lacking.view_type = Some(ViewType::NewAndOldImages);
    /// assert_eq!(
    ///     registry.decode_change(lacking).unwrap_err().to_string(),
    ///     "stream record \"e4\" cannot be read: its view type NEW_AND_OLD_IMAGES carries the \
    ///      old image of MODIFY records, but the record has none"
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn decode_change(&self, record: ChangeRecord) -> Result<Change<T>> {
        let removed_by_ttl = record.removed_by_ttl();
        let ChangeRecord {
            event_id,
            kind,
            keys,
            old_image,
            new_image,
            view_type,
            sequence_number,
            user_identity: _,
            created_at,
        } = record;
        let which = Which {
            event_id: &event_id,
            sequence_number: sequence_number.as_deref(),
        };
        let can_have_old = kind != ChangeKind::Insert;
        let can_have_new = kind != ChangeKind::Remove;
        let images = [
            ("old", can_have_old, old_image.is_some()),
            ("new", can_have_new, new_image.is_some()),
        ];
        for (which_image, possible, present) in images {
            if present && !possible {
                return Err(which.error(format!(
                    "it carries the {which_image} image, which {kind} records never have"
                )));
            }
            let Some(view) = view_type else {
                continue;
            };
            let promised = possible
                && if which_image == "old" {
                    view.has_old()
                } else {
                    view.has_new()
                };
            if promised && !present {
                return Err(which.error(format!(
                    "its view type {view} carries the {which_image} image of {kind} records, \
                     but the record has none"
                )));
            }
            if present && !promised {
                return Err(which.error(format!(
                    "it carries the {which_image} image, which its view type {view} leaves out"
                )));
            }
        }
        let decode = |image: Option<Item>, name: &'static str| {
            image
                .map(|i| self.decode(i))
                .transpose()
                .map_err(|e| e.in_stream_image(which.event_id, which.sequence_number, name))
        };
        let old = decode(old_image, "old")?;
        let new = decode(new_image, "new")?;
        Ok(Change {
            event_id,
            kind,
            keys,
            old,
            new,
            removed_by_ttl,
            sequence_number,
            created_at,
        })
    }
}
