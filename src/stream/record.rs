//! [`ChangeRecord`]: one stream record, whichever source it came from,
//! before its images are decoded.

use std::fmt;
use std::str::FromStr;
use std::time::SystemTime;

use crate::error::Error;
use crate::item::Item;

/// What happened to the item (the record's `eventName`). It parses from
/// and displays as that name: `INSERT`, `MODIFY`, `REMOVE`.
///
/// ```
/// use dynamodb_mapper::stream::ChangeKind;
/// assert_eq!("MODIFY".parse::<ChangeKind>()?, ChangeKind::Modify);
/// assert!("modify".parse::<ChangeKind>().is_err());
/// assert_eq!(ChangeKind::Remove.as_str(), "REMOVE");
/// assert_eq!(ChangeKind::Insert.to_string(), "INSERT");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// A new item was written (`INSERT`).
    Insert,
    /// An existing item was changed (`MODIFY`).
    Modify,
    /// The item was deleted, by a user or by TTL expiry (`REMOVE`).
    Remove,
}

/// The event names, for errors.
const EVENT_NAMES: &str = "INSERT, MODIFY or REMOVE";

impl ChangeKind {
    /// The `eventName` of this kind.
    ///
    /// ```
    /// assert_eq!(dynamodb_mapper::stream::ChangeKind::Insert.as_str(), "INSERT");
    /// ```
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Insert => "INSERT",
            ChangeKind::Modify => "MODIFY",
            ChangeKind::Remove => "REMOVE",
        }
    }
}

impl fmt::Display for ChangeKind {
    /// The `eventName`, as [`as_str`](ChangeKind::as_str).
    ///
    /// ```
    /// assert_eq!(dynamodb_mapper::stream::ChangeKind::Modify.to_string(), "MODIFY");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ChangeKind {
    type Err = Error;

    /// The kind an `eventName` names (exactly, case included).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (attribute
    /// `eventName`) for any other text.
    ///
    /// ```
    /// use dynamodb_mapper::stream::ChangeKind;
    /// assert_eq!("INSERT".parse::<ChangeKind>()?, ChangeKind::Insert);
    /// assert_eq!(
    ///     "UPSERT".parse::<ChangeKind>().unwrap_err().to_string(),
    ///     "attribute `eventName` is \"UPSERT\"; expected INSERT, MODIFY or REMOVE"
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn from_str(name: &str) -> Result<Self, Error> {
        match name {
            "INSERT" => Ok(ChangeKind::Insert),
            "MODIFY" => Ok(ChangeKind::Modify),
            "REMOVE" => Ok(ChangeKind::Remove),
            _ => Err(Error::invalid_value(
                "eventName",
                format!("is {name:?}; expected {EVENT_NAMES}"),
            )),
        }
    }
}

/// What a stream's records carry besides the keys (`StreamViewType`). It
/// parses from and displays as that name: `KEYS_ONLY`, `NEW_IMAGE`,
/// `OLD_IMAGE`, `NEW_AND_OLD_IMAGES`.
///
/// ```
/// use dynamodb_mapper::stream::ViewType;
/// assert!(ViewType::NewAndOldImages.has_old() && ViewType::NewAndOldImages.has_new());
/// assert!(!ViewType::KeysOnly.has_new());
/// assert_eq!("NEW_IMAGE".parse::<ViewType>()?, ViewType::NewImage);
/// assert_eq!(ViewType::OldImage.to_string(), "OLD_IMAGE");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewType {
    /// The keys only (`KEYS_ONLY`).
    KeysOnly,
    /// The item as it is after the change (`NEW_IMAGE`).
    NewImage,
    /// The item as it was before the change (`OLD_IMAGE`).
    OldImage,
    /// Both (`NEW_AND_OLD_IMAGES`).
    NewAndOldImages,
}

/// The view type names, for errors.
const VIEW_TYPE_NAMES: &str = "KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES";

impl ViewType {
    /// The `StreamViewType` name of this view type.
    ///
    /// ```
    /// use dynamodb_mapper::stream::ViewType;
    /// assert_eq!(ViewType::NewAndOldImages.as_str(), "NEW_AND_OLD_IMAGES");
    /// ```
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ViewType::KeysOnly => "KEYS_ONLY",
            ViewType::NewImage => "NEW_IMAGE",
            ViewType::OldImage => "OLD_IMAGE",
            ViewType::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }

    /// Whether records of this view carry the item after the change.
    ///
    /// ```
    /// assert!(dynamodb_mapper::stream::ViewType::NewImage.has_new());
    /// ```
    #[must_use]
    pub fn has_new(self) -> bool {
        matches!(self, ViewType::NewImage | ViewType::NewAndOldImages)
    }

    /// Whether records of this view carry the item before the change.
    ///
    /// ```
    /// assert!(dynamodb_mapper::stream::ViewType::OldImage.has_old());
    /// ```
    #[must_use]
    pub fn has_old(self) -> bool {
        matches!(self, ViewType::OldImage | ViewType::NewAndOldImages)
    }
}

impl fmt::Display for ViewType {
    /// The `StreamViewType` name, as [`as_str`](ViewType::as_str).
    ///
    /// ```
    /// assert_eq!(dynamodb_mapper::stream::ViewType::KeysOnly.to_string(), "KEYS_ONLY");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ViewType {
    type Err = Error;

    /// The view type a `StreamViewType` name names (exactly, case
    /// included).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (attribute
    /// `StreamViewType`) for any other text.
    ///
    /// ```
    /// use dynamodb_mapper::stream::ViewType;
    /// assert_eq!("KEYS_ONLY".parse::<ViewType>()?, ViewType::KeysOnly);
    /// assert_eq!(
    ///     "keys_only".parse::<ViewType>().unwrap_err().kind(),
    ///     dynamodb_mapper::ErrorKind::InvalidValue
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn from_str(name: &str) -> Result<Self, Error> {
        match name {
            "KEYS_ONLY" => Ok(ViewType::KeysOnly),
            "NEW_IMAGE" => Ok(ViewType::NewImage),
            "OLD_IMAGE" => Ok(ViewType::OldImage),
            "NEW_AND_OLD_IMAGES" => Ok(ViewType::NewAndOldImages),
            _ => Err(Error::invalid_value(
                "StreamViewType",
                format!("is {name:?}; expected {VIEW_TYPE_NAMES}"),
            )),
        }
    }
}

/// The principal of a removal made by DynamoDB's TTL process (the record's
/// `userIdentity.principalId`, with `userIdentity.type` `Service`).
///
/// ```
/// assert_eq!(dynamodb_mapper::stream::TTL_PRINCIPAL, "dynamodb.amazonaws.com");
/// ```
pub const TTL_PRINCIPAL: &str = "dynamodb.amazonaws.com";

/// One stream record before its images are decoded: from the Streams API
/// (`ChangeRecord::try_from(record)`, feature `streams`), from a Lambda
/// event (feature `lambda`), or built with [`new`](Self::new) and the
/// `with_*` methods (tests, other sources).
///
/// ```
/// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
/// use dynamodb_mapper::Item;
///
/// let record = ChangeRecord::new("e1", ChangeKind::Remove, Item::new())
///     .with_user_identity("Service", "dynamodb.amazonaws.com")
///     .with_sequence_number("100");
/// assert!(record.removed_by_ttl());
/// assert_eq!(record.sequence_number(), Some("100"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct ChangeRecord {
    event_id: String,
    kind: ChangeKind,
    keys: Item,
    old_image: Option<Item>,
    new_image: Option<Item>,
    view_type: Option<ViewType>,
    sequence_number: Option<String>,
    user_identity: Option<(String, String)>,
    created_at: Option<SystemTime>,
}

impl ChangeRecord {
    /// A record of `kind` for the item with the primary key `keys`, without
    /// images.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// let record = ChangeRecord::new("e1", ChangeKind::Insert, Default::default());
    /// assert_eq!(record.event_id(), "e1");
    /// assert!(record.new_image().is_none());
    /// ```
    pub fn new(event_id: impl Into<String>, kind: ChangeKind, keys: Item) -> Self {
        ChangeRecord {
            event_id: event_id.into(),
            kind,
            keys,
            old_image: None,
            new_image: None,
            view_type: None,
            sequence_number: None,
            user_identity: None,
            created_at: None,
        }
    }

    /// The same record with the item as it was before the change.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// let r = ChangeRecord::new("e1", ChangeKind::Remove, Default::default()).with_old_image(Default::default());
    /// assert!(r.old_image().is_some());
    /// ```
    pub fn with_old_image(mut self, image: Item) -> Self {
        self.old_image = Some(image);
        self
    }

    /// The same record with the item as it is after the change.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// let r = ChangeRecord::new("e1", ChangeKind::Insert, Default::default()).with_new_image(Default::default());
    /// assert!(r.new_image().is_some());
    /// ```
    pub fn with_new_image(mut self, image: Item) -> Self {
        self.new_image = Some(image);
        self
    }

    /// The same record with the stream's view type; decoding then checks
    /// that the images it promises are there.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord, ViewType};
    /// let r = ChangeRecord::new("e1", ChangeKind::Insert, Default::default()).with_view_type(ViewType::KeysOnly);
    /// assert_eq!(r.view_type(), Some(ViewType::KeysOnly));
    /// ```
    pub fn with_view_type(mut self, view_type: ViewType) -> Self {
        self.view_type = Some(view_type);
        self
    }

    /// The same record with its sequence number (the identifier of a
    /// partial-batch failure).
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// let r = ChangeRecord::new("e1", ChangeKind::Insert, Default::default()).with_sequence_number("7");
    /// assert_eq!(r.sequence_number(), Some("7"));
    /// ```
    pub fn with_sequence_number(mut self, sequence_number: impl Into<String>) -> Self {
        self.sequence_number = Some(sequence_number.into());
        self
    }

    /// The same record with who made the change (`userIdentity`: its
    /// `type` and `principalId`).
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// let r = ChangeRecord::new("e1", ChangeKind::Remove, Default::default())
    ///     .with_user_identity("Service", "dynamodb.amazonaws.com");
    /// assert_eq!(r.user_identity(), Some(("Service", "dynamodb.amazonaws.com")));
    /// ```
    pub fn with_user_identity(
        mut self,
        identity_type: impl Into<String>,
        principal_id: impl Into<String>,
    ) -> Self {
        self.user_identity = Some((identity_type.into(), principal_id.into()));
        self
    }

    /// The same record with the approximate time of the change.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// let at = std::time::UNIX_EPOCH;
    /// let r = ChangeRecord::new("e1", ChangeKind::Insert, Default::default()).with_created_at(at);
    /// assert_eq!(r.created_at(), Some(at));
    /// ```
    pub fn with_created_at(mut self, at: SystemTime) -> Self {
        self.created_at = Some(at);
        self
    }

    /// The record's event id (unique per record).
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// assert_eq!(ChangeRecord::new("e9", ChangeKind::Insert, Default::default()).event_id(), "e9");
    /// ```
    #[must_use]
    pub fn event_id(&self) -> &str {
        &self.event_id
    }

    /// What happened to the item.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// assert_eq!(ChangeRecord::new("e", ChangeKind::Modify, Default::default()).kind(), ChangeKind::Modify);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ChangeKind {
        self.kind
    }

    /// The item's primary key.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// assert!(ChangeRecord::new("e", ChangeKind::Insert, Default::default()).keys().is_empty());
    /// ```
    #[must_use]
    pub fn keys(&self) -> &Item {
        &self.keys
    }

    /// The item before the change, when the record carries it.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// assert!(ChangeRecord::new("e", ChangeKind::Insert, Default::default()).old_image().is_none());
    /// ```
    #[must_use]
    pub fn old_image(&self) -> Option<&Item> {
        self.old_image.as_ref()
    }

    /// The item after the change, when the record carries it.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// assert!(ChangeRecord::new("e", ChangeKind::Remove, Default::default()).new_image().is_none());
    /// ```
    #[must_use]
    pub fn new_image(&self) -> Option<&Item> {
        self.new_image.as_ref()
    }

    /// The stream's view type, when the record says it.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// assert_eq!(ChangeRecord::new("e", ChangeKind::Insert, Default::default()).view_type(), None);
    /// ```
    #[must_use]
    pub fn view_type(&self) -> Option<ViewType> {
        self.view_type
    }

    /// The record's sequence number, when known.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// assert_eq!(ChangeRecord::new("e", ChangeKind::Insert, Default::default()).sequence_number(), None);
    /// ```
    #[must_use]
    pub fn sequence_number(&self) -> Option<&str> {
        self.sequence_number.as_deref()
    }

    /// Who made the change: `userIdentity`'s `type` and `principalId`,
    /// present on removals by TTL.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// assert_eq!(ChangeRecord::new("e", ChangeKind::Remove, Default::default()).user_identity(), None);
    /// ```
    #[must_use]
    pub fn user_identity(&self) -> Option<(&str, &str)> {
        self.user_identity
            .as_ref()
            .map(|(t, p)| (t.as_str(), p.as_str()))
    }

    /// The approximate time of the change, when known.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// assert_eq!(ChangeRecord::new("e", ChangeKind::Insert, Default::default()).created_at(), None);
    /// ```
    #[must_use]
    pub fn created_at(&self) -> Option<SystemTime> {
        self.created_at
    }

    /// Whether DynamoDB's TTL process removed the item (rather than a
    /// user's delete): a removal whose `userIdentity` is of type `Service`
    /// with the principal [`TTL_PRINCIPAL`].
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// let deleted = ChangeRecord::new("e", ChangeKind::Remove, Default::default());
    /// assert!(!deleted.removed_by_ttl());
    /// assert!(deleted.with_user_identity("Service", "dynamodb.amazonaws.com").removed_by_ttl());
    /// ```
    #[must_use]
    pub fn removed_by_ttl(&self) -> bool {
        self.kind == ChangeKind::Remove
            && self
                .user_identity()
                .is_some_and(|(t, p)| t == "Service" && p == TTL_PRINCIPAL)
    }

    /// The parts, for decoding.
    pub(super) fn into_parts(self) -> Parts {
        let removed_by_ttl = self.removed_by_ttl();
        Parts {
            event_id: self.event_id,
            kind: self.kind,
            keys: self.keys,
            old_image: self.old_image,
            new_image: self.new_image,
            view_type: self.view_type,
            sequence_number: self.sequence_number,
            removed_by_ttl,
            created_at: self.created_at,
        }
    }
}

/// A record taken apart.
pub(super) struct Parts {
    pub(super) event_id: String,
    pub(super) kind: ChangeKind,
    pub(super) keys: Item,
    pub(super) old_image: Option<Item>,
    pub(super) new_image: Option<Item>,
    pub(super) view_type: Option<ViewType>,
    pub(super) sequence_number: Option<String>,
    pub(super) removed_by_ttl: bool,
    pub(super) created_at: Option<SystemTime>,
}

/// Which record an error is about: its event id and sequence number.
#[derive(Debug, Clone, Copy)]
pub(super) struct Which<'a> {
    pub(super) event_id: &'a str,
    pub(super) sequence_number: Option<&'a str>,
}

impl Which<'_> {
    pub(super) fn error(self, reason: impl Into<String>) -> Error {
        Error::invalid_stream_record(self.event_id, self.sequence_number, reason)
    }
}

/// The kind an event name names, or the error for the record.
#[cfg(any(feature = "streams", feature = "lambda"))]
pub(super) fn kind_of(which: Which<'_>, name: Option<&str>) -> crate::Result<ChangeKind> {
    match name {
        Some(name) => name.parse().map_err(|_| {
            which.error(format!(
                "its event name is {name:?}; expected {EVENT_NAMES}"
            ))
        }),
        None => Err(which.error("it has no event name")),
    }
}

/// The view type a name names, or the error for the record.
#[cfg(any(feature = "streams", feature = "lambda"))]
pub(super) fn view_type_of(which: Which<'_>, name: &str) -> crate::Result<ViewType> {
    name.parse().map_err(|_| {
        which.error(format!(
            "its view type is {name:?}; expected {VIEW_TYPE_NAMES}"
        ))
    })
}
