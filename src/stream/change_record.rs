//! [`ChangeRecord`]: one stream record, whichever source it came from,
//! before its images are decoded.

use std::fmt;
use std::str::FromStr;
use std::time::SystemTime;

use crate::error::Error;
use crate::item::Item;

/// Declares an enum of the names DynamoDB writes in stream records: each
/// variant with its name, `as_str`, `Display` (the name) and `FromStr`
/// (exactly the name, case included; any other text is an `InvalidValue`
/// of the record's attribute, listing the names).
macro_rules! names {
    (
        $(#[doc = $doc:literal])*
        enum $name:ident in $attribute:literal {
            $( $(#[doc = $vdoc:literal])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[doc = $vdoc])* $variant, )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub(super) const ALL: &[$name] = &[$($name::$variant),+];

            #[doc = concat!("The `", $attribute, "` name of this value.")]
            #[must_use]
            pub(crate) fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }
        }

        impl fmt::Display for $name {
            #[doc = concat!("The `", $attribute, "` name of this value.")]
            ///
            #[doc = concat!(
                "```\nuse dynamodb_mapper::stream::", stringify!($name), ";\n",
                $( "assert_eq!(", stringify!($name), "::", stringify!($variant),
                   ".to_string(), \"", $text, "\");\n", )+
                "```"
            )]
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = Error;

            #[doc = concat!("The value a `", $attribute, "` names (exactly, case included).")]
            ///
            /// # Errors
            #[doc = concat!(
                "[`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (attribute `",
                $attribute, "`) for any other text."
            )]
            fn from_str(name: &str) -> Result<Self, Error> {
                $name::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str() == name)
                    .ok_or_else(|| {
                        let names: Vec<&str> = $name::ALL.iter().map(|v| v.as_str()).collect();
                        Error::invalid_value(
                            $attribute,
                            format!("is {name:?}; expected {}", one_of(&names)),
                        )
                    })
            }
        }
    };
}

/// `A, B or C`.
fn one_of(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

names! {
    /// What happened to the item (the record's `eventName`). It parses from
    /// and displays as that name: `INSERT`, `MODIFY`, `REMOVE`.
    ///
    /// ```
    /// use dynamodb_mapper::stream::ChangeKind;
    /// assert_eq!("MODIFY".parse::<ChangeKind>()?, ChangeKind::Modify);
    /// assert!("modify".parse::<ChangeKind>().is_err());
    /// assert_eq!(
    ///     "UPSERT".parse::<ChangeKind>().unwrap_err().to_string(),
    ///     "attribute `eventName` is \"UPSERT\"; expected INSERT, MODIFY or REMOVE"
    /// );
    /// assert_eq!(ChangeKind::Remove.to_string(), "REMOVE");
    /// assert_eq!(ChangeKind::Insert.to_string(), "INSERT");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    enum ChangeKind in "eventName" {
        /// A new item was written (`INSERT`).
        Insert = "INSERT",
        /// An existing item was changed (`MODIFY`).
        Modify = "MODIFY",
        /// The item was deleted, by a user or by TTL expiry (`REMOVE`).
        Remove = "REMOVE",
    }
}

names! {
    /// What a stream's records carry besides the keys (`StreamViewType`). It
    /// parses from and displays as that name: `KEYS_ONLY`, `NEW_IMAGE`,
    /// `OLD_IMAGE`, `NEW_AND_OLD_IMAGES`.
    ///
    /// ```
    /// use dynamodb_mapper::stream::ViewType;
    /// assert_eq!("NEW_IMAGE".parse::<ViewType>()?, ViewType::NewImage);
    /// assert!("keys_only".parse::<ViewType>().is_err());
    /// assert_eq!(ViewType::OldImage.to_string(), "OLD_IMAGE");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    enum ViewType in "StreamViewType" {
        /// The keys only (`KEYS_ONLY`).
        KeysOnly = "KEYS_ONLY",
        /// The item as it is after the change (`NEW_IMAGE`).
        NewImage = "NEW_IMAGE",
        /// The item as it was before the change (`OLD_IMAGE`).
        OldImage = "OLD_IMAGE",
        /// Both (`NEW_AND_OLD_IMAGES`).
        NewAndOldImages = "NEW_AND_OLD_IMAGES",
    }
}

impl ViewType {
    /// Whether records of this view carry the item after the change.
    #[must_use]
    pub(crate) fn has_new(self) -> bool {
        matches!(self, ViewType::NewImage | ViewType::NewAndOldImages)
    }

    /// Whether records of this view carry the item before the change.
    #[must_use]
    pub(crate) fn has_old(self) -> bool {
        matches!(self, ViewType::OldImage | ViewType::NewAndOldImages)
    }
}

/// The principal of a removal made by DynamoDB's TTL process (the record's
/// `userIdentity.principalId`, with `userIdentity.type` `Service`): what a
/// test sets on a [`ChangeRecord`] to stand for an expiry.
pub(crate) const TTL_PRINCIPAL: &str = "dynamodb.amazonaws.com";

/// One stream record before its images are decoded: from the Streams API
/// (`ChangeRecord::try_from(record)`, feature `streams`), from a Lambda
/// event (feature `lambda`), or made with [`new`](Self::new) and its
/// optional fields set (tests, other sources).
///
/// ```
/// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
/// use dynamodb_mapper::Item;
///
/// let mut record = ChangeRecord::new("e1", ChangeKind::Remove, Item::new());
/// record.user_identity = Some(("Service".into(), "dynamodb.amazonaws.com".into()));
/// record.sequence_number = Some("100".into());
/// assert!(record.removed_by_ttl());
/// assert_eq!(record.event_id, "e1");
/// assert!(record.old_image.is_none() && record.view_type.is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ChangeRecord {
    /// The record's event id (unique per record).
    pub event_id: String,
    /// What happened to the item.
    pub kind: ChangeKind,
    /// The item's primary key.
    pub keys: Item,
    /// The item before the change, when the record carries it.
    pub old_image: Option<Item>,
    /// The item after the change, when the record carries it.
    pub new_image: Option<Item>,
    /// The stream's view type, when the record says it; decoding then
    /// checks that the images it promises are there.
    pub view_type: Option<ViewType>,
    /// The record's sequence number, when known (the identifier of a
    /// partial-batch failure).
    pub sequence_number: Option<String>,
    /// Who made the change: `userIdentity`'s `type` and `principalId`, in
    /// that order; present on removals by TTL.
    pub user_identity: Option<(String, String)>,
    /// The approximate time of the change, when known.
    pub created_at: Option<SystemTime>,
}

impl ChangeRecord {
    /// A record of `kind` for the item with the primary key `keys`, without
    /// images or any other optional part.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord, ViewType};
    /// let mut record = ChangeRecord::new("e1", ChangeKind::Insert, Default::default());
    /// assert!(record.new_image.is_none() && record.sequence_number.is_none());
    /// record.new_image = Some(Default::default());
    /// record.view_type = Some(ViewType::NewImage);
    /// record.created_at = Some(std::time::UNIX_EPOCH);
    /// ```
    #[must_use]
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

    /// Whether DynamoDB's TTL process removed the item (rather than a
    /// user's delete): a removal whose `userIdentity` is of type `Service`
    /// with the principal `dynamodb.amazonaws.com`.
    ///
    /// ```
    /// use dynamodb_mapper::stream::{ChangeKind, ChangeRecord};
    /// let mut record = ChangeRecord::new("e", ChangeKind::Remove, Default::default());
    /// assert!(!record.removed_by_ttl());
    /// record.user_identity = Some(("Service".into(), "dynamodb.amazonaws.com".into()));
    /// assert!(record.removed_by_ttl());
    /// ```
    #[must_use]
    pub fn removed_by_ttl(&self) -> bool {
        self.kind == ChangeKind::Remove
            && self
                .user_identity
                .as_ref()
                .is_some_and(|(t, p)| t == "Service" && p == TTL_PRINCIPAL)
    }
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
        Some(name) => name.parse().map_err(|e: Error| {
            which.error(format!("its event name {}", e.reason().unwrap_or_default()))
        }),
        None => Err(which.error("it has no event name")),
    }
}

/// The view type a name names, or the error for the record.
#[cfg(any(feature = "streams", feature = "lambda"))]
pub(super) fn view_type_of(which: Which<'_>, name: &str) -> crate::Result<ViewType> {
    name.parse().map_err(|e: Error| {
        which.error(format!("its view type {}", e.reason().unwrap_or_default()))
    })
}
