//! Top-level fields kept out of the item while it is built, for a caller
//! that reads them before they go in (a mapper's plan renders its keys from
//! them): read where they are, without looking each up in the item.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::item::Item;

/// The most fields one serialization holds; more are put in the item as
/// usual (and looked up there).
pub(crate) const MAX_HELD: usize = 8;

/// A held field, as serialization left it.
#[derive(Debug, Default)]
pub(crate) enum HeldValue {
    /// Not held: serialized into the item, or not serialized at all.
    #[default]
    Unknown,
    /// Serialized as absent (a `None` left out): not in the item either.
    Absent,
    /// The field's stored name and value, to go into the item.
    Value(String, AttributeValue),
}

/// The fields [`to_item`](super::to_item) holds out of the item, each in
/// the slot the caller chose for its position in the entity's declaration
/// order, until [`put_into`](Self::put_into) puts them in.
///
/// Only fields serialized in declaration order are held (what a derived
/// `Serialize` does). The first field out of that order puts every held
/// field into the item at once and ends the holding, so the item is the
/// one serialization without holding builds (a name serialized twice keeps
/// its last value).
#[derive(Debug)]
pub(crate) struct Held<'w> {
    /// For each field position in declaration order, its slot, if held.
    wanted: &'w [Option<u8>],
    slots: [HeldValue; MAX_HELD],
    holding: bool,
}

impl<'w> Held<'w> {
    /// Holds the fields at the positions `wanted` gives a slot (slots past
    /// [`MAX_HELD`] are not held).
    pub(crate) fn new(wanted: &'w [Option<u8>]) -> Self {
        Held {
            wanted,
            slots: Default::default(),
            holding: !wanted.is_empty(),
        }
    }

    /// Nothing held.
    pub(crate) fn none() -> Held<'static> {
        Held::new(&[])
    }

    /// The slot of the field at `position`, while holding.
    pub(super) fn slot_of(&self, position: usize) -> Option<usize> {
        if !self.holding {
            return None;
        }
        let slot = usize::from((*self.wanted.get(position)?)?);
        (slot < MAX_HELD).then_some(slot)
    }

    /// Holds a field in `slot`.
    pub(super) fn hold(&mut self, slot: usize, value: HeldValue) {
        if let Some(s) = self.slots.get_mut(slot) {
            *s = value;
        }
    }

    /// Whether fields are being held.
    pub(super) fn holding(&self) -> bool {
        self.holding
    }

    /// Puts every held field into `item` and holds no more.
    pub(crate) fn put_into(&mut self, item: &mut Item) {
        self.holding = false;
        for slot in &mut self.slots {
            if let HeldValue::Value(name, value) = std::mem::take(slot) {
                item.insert(name, value);
            }
        }
    }

    /// The field held in `slot`: `Some(None)` when it was serialized as
    /// absent, `None` when it is not held (then it is in the item, if
    /// anywhere).
    pub(crate) fn get(&self, slot: usize) -> Option<Option<&AttributeValue>> {
        match self.slots.get(slot)? {
            HeldValue::Unknown => None,
            HeldValue::Absent => Some(None),
            HeldValue::Value(_, value) => Some(Some(value)),
        }
    }
}
