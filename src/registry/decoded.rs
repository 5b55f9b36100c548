//! What decoding returns: [`Decoded`] for one item, [`DecodedItems`] for
//! many, and for an item a policy did not let through, [`Skipped`] (its key)
//! or [`RawItem`] (the whole item), each with its [`Unmatched`] reason.

use std::fmt;

use crate::item::Item;

/// Why an item was skipped or kept raw instead of decoded.
///
/// ```
/// use dynamodb_mapper::Unmatched;
///
/// let unknown = Unmatched::Unknown { value: "Refund".into() };
/// assert_eq!(unknown.to_string(), "unknown entity type \"Refund\"");
/// assert_eq!(Unmatched::Missing { found: None }.to_string(), "no discriminator");
/// let number = Unmatched::Missing { found: Some("a number (N)") };
/// assert_eq!(number.to_string(), "discriminator is a number (N), not a string");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Unmatched {
    /// The discriminator holds a value no mapper in scope reads (no
    /// registered mapper, or none of the group decoded with).
    Unknown {
        /// The discriminator value.
        value: String,
    },
    /// The item has no string discriminator.
    Missing {
        /// What the attribute held instead (e.g. `a number (N)`), or `None`
        /// when it is absent.
        found: Option<&'static str>,
    },
    /// The item is the sentinel of a unique value
    /// ([`Unique`](crate::Unique)), which the helpers keep: always skipped,
    /// whatever the policies say.
    Sentinel {
        /// The constraint, as `<entity type>.<constraint>`.
        of: String,
    },
}

impl fmt::Display for Unmatched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unmatched::Unknown { value } => write!(f, "unknown entity type {value:?}"),
            Unmatched::Missing { found: None } => f.write_str("no discriminator"),
            Unmatched::Missing { found: Some(t) } => {
                write!(f, "discriminator is {t}, not a string")
            }
            Unmatched::Sentinel { of } => write!(f, "the sentinel of a unique value of {of}"),
        }
    }
}

/// An item that was skipped by policy: its table key (the key attributes it
/// had) and why. Enough to log it or fetch it again.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::{Item, Skipped, Unmatched};
///
/// let skipped = Skipped {
///     key: Item::from([("pk".to_string(), AttributeValue::S("TENANT#1".into()))]),
///     reason: Unmatched::Missing { found: None },
/// };
/// assert_eq!(skipped.key.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// The table key attributes of the item (those present).
    pub key: Item,
    /// Why it was skipped.
    pub reason: Unmatched,
}

/// An item kept raw by policy: the whole item, untouched, and why.
///
/// ```
/// use dynamodb_mapper::{Item, RawItem, Unmatched};
///
/// let raw = RawItem { item: Item::new(), reason: Unmatched::Missing { found: None } };
/// assert!(raw.item.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RawItem {
    /// The item as read.
    pub item: Item,
    /// Why it was not decoded.
    pub reason: Unmatched,
}

/// The result of decoding one item through a [`Registry`](super::Registry).
///
/// ```
/// use dynamodb_mapper::{Decoded, Skipped, Item, Unmatched};
///
/// let d: Decoded<u32> = Decoded::Entity(7);
/// assert_eq!(d.into_entity(), Some(7));
/// let s: Decoded<u32> = Decoded::Skipped(Skipped { key: Item::new(), reason: Unmatched::Missing { found: None } });
/// assert_eq!(s.into_entity(), None);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded<T> {
    /// The item, decoded by its mapper.
    Entity(T),
    /// Skipped by policy ([`UnknownPolicy::Skip`](super::UnknownPolicy::Skip)
    /// or [`MissingPolicy::Skip`](super::MissingPolicy::Skip)).
    Skipped(Skipped),
    /// Kept raw by policy ([`UnknownPolicy::Keep`](super::UnknownPolicy::Keep)
    /// or [`MissingPolicy::Keep`](super::MissingPolicy::Keep)).
    Raw(RawItem),
}

impl<T> Decoded<T> {
    /// The decoded value, if the item was decoded.
    ///
    /// ```
    /// assert_eq!(dynamodb_mapper::Decoded::Entity("x").into_entity(), Some("x"));
    /// ```
    #[must_use]
    pub fn into_entity(self) -> Option<T> {
        match self {
            Decoded::Entity(t) => Some(t),
            Decoded::Skipped(_) | Decoded::Raw(_) => None,
        }
    }
}

/// The result of decoding many items: the decoded values in item order, and
/// beside them whatever the policies skipped or kept raw, so nothing vanishes
/// silently.
///
/// ```
/// use dynamodb_mapper::DecodedItems;
///
/// let out: DecodedItems<u32> = DecodedItems::default();
/// assert!(out.is_complete());
/// assert!(out.entities.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct DecodedItems<T> {
    /// The decoded values, in the order of the items.
    pub entities: Vec<T>,
    /// Items skipped by policy, in the order of the items.
    pub skipped: Vec<Skipped>,
    /// Items kept raw by policy, in the order of the items.
    pub raw: Vec<RawItem>,
}

impl<T> Default for DecodedItems<T> {
    fn default() -> Self {
        DecodedItems {
            entities: Vec::new(),
            skipped: Vec::new(),
            raw: Vec::new(),
        }
    }
}

impl<T> DecodedItems<T> {
    /// Whether every item was decoded: nothing skipped, nothing kept raw.
    ///
    /// ```
    /// let out = dynamodb_mapper::DecodedItems::<u8> { entities: vec![1], ..Default::default() };
    /// assert!(out.is_complete());
    /// ```
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.skipped.is_empty() && self.raw.is_empty()
    }

    pub(super) fn push(&mut self, decoded: Decoded<T>) {
        match decoded {
            Decoded::Entity(t) => self.entities.push(t),
            Decoded::Skipped(s) => self.skipped.push(s),
            Decoded::Raw(r) => self.raw.push(r),
        }
    }
}
