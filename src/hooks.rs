//! Building blocks for hooks, and the discriminator check every read runs.
//!
//! The hooks of a [`Mapper`](crate::Mapper) run in this order:
//!
//! | write (`to_item`)                          | read (`from_item`)                                  |
//! |--------------------------------------------|-----------------------------------------------------|
//! | `before_to_item(&entity)`: validate         | `before_from_item(&mut item)`: fix up; type checked |
//! | serialize, rename, add discriminator        | split off unowned attributes, deserialize           |
//! | `after_to_item(&entity, &mut item)`: keys   | `after_from_item(&mut entity, &rest)`: fix up       |
//! | check keys, values and size                 |                                                     |
//!
//! Every hook returns a [`crate::Result`], so any of them can veto.

use std::time::SystemTime;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::item::{Item, type_name};
use crate::time::PointInTime;

/// Checks that the item's discriminator attribute `attribute` holds one of
/// `accepted`: what every read does with the mapper's entity type and
/// aliases, right after `before_from_item`.
pub(crate) fn check_discriminator(item: &Item, attribute: &str, accepted: &[&str]) -> Result<()> {
    match item.get(attribute) {
        Some(AttributeValue::S(found)) if accepted.contains(&found.as_str()) => Ok(()),
        Some(AttributeValue::S(found)) => Err(Error::discriminator_mismatch(
            attribute,
            accepted.iter().map(|s| (*s).to_owned()).collect(),
            found.clone(),
        )),
        other => Err(Error::missing_discriminator(
            attribute,
            other.map(|v| type_name(v).to_owned()),
        )),
    }
}

/// `createdAt`/`updatedAt` bookkeeping that survives read-modify-write.
///
/// The two attributes are not entity fields and not owned by the mapper, so
/// a lossless read ([`MapperExt::record_from_item`](crate::MapperExt::record_from_item))
/// keeps them in the record's bag ([`Record::bag`](crate::Record::bag)).
/// [`stamp`](Timestamps::stamp) keeps the stored creation time (or sets it
/// for a new record) and sets the update time; the record's write merges both
/// back. Values are fixed-width RFC 3339 UTC strings, so they sort by time.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use dynamodb_mapper::{hooks::Timestamps, Record};
///
/// let mut record = Record::new("a new entity");
/// let t1 = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
/// Timestamps::default().stamp(&mut record.bag, t1)?;
/// let t2 = t1 + Duration::from_secs(60);
/// Timestamps::default().stamp(&mut record.bag, t2)?;
/// assert_eq!(Timestamps::default().created_at(&record.bag)?, Some(t1));
/// assert_eq!(Timestamps::default().updated_at(&record.bag)?, Some(t2));
/// assert_eq!(
///     record.bag.get("createdAt").and_then(|v| v.as_s().ok()).map(String::as_str),
///     Some("2023-11-14T22:13:20.000Z")
/// );
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamps {
    created: &'static str,
    updated: &'static str,
    fraction_digits: u8,
}

impl Default for Timestamps {
    /// `createdAt` and `updatedAt`, millisecond precision.
    ///
    /// ```
    /// use dynamodb_mapper::hooks::Timestamps;
    /// assert_eq!(Timestamps::default(), Timestamps::new("createdAt", "updatedAt"));
    /// ```
    fn default() -> Self {
        Timestamps::new("createdAt", "updatedAt")
    }
}

impl Timestamps {
    /// Timestamps in the attributes `created` and `updated`, millisecond
    /// precision.
    ///
    /// ```
    /// use std::time::UNIX_EPOCH;
    /// let t = dynamodb_mapper::hooks::Timestamps::new("created", "modified");
    /// let mut bag = dynamodb_mapper::Item::new();
    /// t.stamp(&mut bag, UNIX_EPOCH)?;
    /// assert!(bag.contains_key("created") && bag.contains_key("modified"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub const fn new(created: &'static str, updated: &'static str) -> Self {
        Timestamps {
            created,
            updated,
            fraction_digits: 3,
        }
    }

    /// The same timestamps with `digits` fraction digits (0 to 9).
    ///
    /// ```
    /// let t = dynamodb_mapper::hooks::Timestamps::default().fraction_digits(0);
    /// # let _ = t;
    /// ```
    #[must_use]
    pub const fn fraction_digits(mut self, digits: u8) -> Self {
        self.fraction_digits = digits;
        self
    }

    /// Keeps the creation time in `bag` (sets it to `now` when absent) and
    /// sets the update time to `now`. `now` is any [`PointInTime`]: a
    /// `SystemTime`, or a `chrono`, `time` or `jiff` type with its cargo
    /// feature.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) when `now`
    /// is outside years 0000 to 9999, the fraction digits are over 9, or a
    /// stored creation time is not a timestamp (it is then left as it is).
    ///
    /// ```
    /// use std::time::SystemTime;
    /// use dynamodb_mapper::{hooks::Timestamps, Item};
    /// let mut bag = Item::new();
    /// Timestamps::default().stamp(&mut bag, SystemTime::now())?;
    /// assert!(bag.get("createdAt").is_some() && bag.get("updatedAt").is_some());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn stamp(&self, bag: &mut crate::Item, now: impl PointInTime) -> Result<()> {
        let encoded = crate::key::encode_timestamp(now, self.fraction_digits).map_err(|e| {
            Error::invalid_value(self.updated, e.reason().unwrap_or("is not a valid time"))
        })?;
        if bag.get(self.created).is_none() {
            bag.insert(self.created.to_owned(), AttributeValue::S(encoded.clone()));
        } else {
            self.created_at::<SystemTime>(bag)?;
        }
        bag.insert(self.updated.to_owned(), AttributeValue::S(encoded));
        Ok(())
    }

    /// The creation time in `bag`, if there is one, as any [`PointInTime`]
    /// type `T` (a `SystemTime`, or a `chrono`, `time` or `jiff` type with
    /// its cargo feature).
    ///
    /// # Errors
    /// [`ErrorKind::WrongType`](crate::ErrorKind::WrongType) or
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) when the
    /// attribute is not a timestamp string, or `T` cannot hold the time.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime, UNIX_EPOCH};
    /// use dynamodb_mapper::{hooks::Timestamps, Item};
    /// let mut bag = Item::new();
    /// let t = UNIX_EPOCH + Duration::from_secs(60);
    /// Timestamps::default().stamp(&mut bag, t)?;
    /// assert_eq!(Timestamps::default().created_at::<SystemTime>(&bag)?, Some(t));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn created_at<T: PointInTime>(&self, bag: &crate::Item) -> Result<Option<T>> {
        self.read(bag, self.created)
    }

    /// The update time in `bag`, if there is one, as any [`PointInTime`]
    /// type `T`.
    ///
    /// # Errors
    /// As [`Timestamps::created_at`].
    ///
    /// ```
    /// use std::time::SystemTime;
    /// use dynamodb_mapper::{hooks::Timestamps, Item};
    /// let none = Timestamps::default().updated_at::<SystemTime>(&Item::new())?;
    /// assert_eq!(none, None);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn updated_at<T: PointInTime>(&self, bag: &crate::Item) -> Result<Option<T>> {
        self.read(bag, self.updated)
    }

    fn read<T: PointInTime>(&self, bag: &crate::Item, name: &str) -> Result<Option<T>> {
        match bag.get(name) {
            None => Ok(None),
            Some(AttributeValue::S(s)) => {
                let (secs, nanos) = crate::key::decode_unix_timestamp(s, self.fraction_digits)
                    .map_err(|_| {
                        Error::invalid_value(
                            name,
                            format!(
                                "is {s:?}, not an RFC 3339 UTC timestamp with {} fraction digits",
                                self.fraction_digits
                            ),
                        )
                    })?;
                T::from_unix(secs, nanos).map(Some).ok_or_else(|| {
                    Error::invalid_value(
                        name,
                        format!(
                            "is {s:?}, outside the range of {}",
                            std::any::type_name::<T>()
                        ),
                    )
                })
            }
            Some(other) => Err(Error::wrong_type(name, "a string (S)", type_name(other))),
        }
    }
}
