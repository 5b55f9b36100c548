//! Serde helpers that store a time field as a DynamoDB TTL: a Number of
//! whole seconds since the Unix epoch.
//!
//! For a field of any [`PointInTime`] type (`SystemTime`, or a `chrono`,
//! `time` or `jiff` type with its feature):
//! `#[serde(with = "dynamodb_mapper::time::ttl")]`; for an `Option` of one,
//! [`ttl::option`](option) with `default` and `skip_serializing_if`, so
//! that `None` leaves the attribute out (a NULL is not a TTL, and the write
//! checks refuse it) and an item without it reads as `None`:
//!
//! ```text
//! #[serde(default, skip_serializing_if = "Option::is_none", with = "dynamodb_mapper::time::ttl::option")]
//! ```
//!
//! **Writing** drops the fraction of a second and refuses a time before the
//! epoch or after 9999-12-31T23:59:59Z
//! (253,402,300,799, 9999-12-31T23:59:59Z). **Reading** accepts whole
//! numbers from 0 to that, and
//! refuses a fraction, a negative number, a larger number (such as epoch
//! milliseconds) and any other type. Through a [`Mapper`](crate::Mapper),
//! the error is an [`ErrorKind::Deserialize`](crate::ErrorKind::Deserialize)
//! naming the attribute.
//!
//! Name the attribute as the table's TTL with
//! [`TableSchema::ttl`](crate::TableSchema::ttl) (the stored name, after the
//! mapper's naming convention): every write is then checked to hold it as a
//! whole number.
//!
//! ```
//! use std::time::{Duration, SystemTime, UNIX_EPOCH};
//! use aws_sdk_dynamodb::types::AttributeValue;
//! use dynamodb_mapper::{ItemExt, ErrorKind, Item, Mapper, MapperExt, TableSchema};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! struct Invite {
//!     code: String,
//!     #[serde(
//!         default,
//!         skip_serializing_if = "Option::is_none",
//!         with = "dynamodb_mapper::time::ttl::option"
//!     )]
//!     expires_at: Option<SystemTime>,
//! }
//!
//! struct InviteMapper;
//! impl Mapper for InviteMapper {
//!     type Entity = Invite;
//!     const ENTITY_TYPE: &'static str = "Invite";
//!     const SCHEMA: TableSchema = TableSchema::new("pk").ttl("expires_at");
//!     fn after_to_item(i: &Invite, item: &mut Item) -> dynamodb_mapper::Result<()> {
//!         item.put_str("pk", format!("INVITE#{}", i.code));
//!         Ok(())
//!     }
//! }
//!
//! let forever = Invite { code: "A".into(), expires_at: None };
//! let item = InviteMapper::to_item(&forever)?;
//! assert!(!item.contains_key("expires_at"));
//! assert_eq!(InviteMapper::from_item(item)?, forever);
//!
//! // 1.7e12 is a time in milliseconds: refused, naming the attribute.
//! let mut item = InviteMapper::to_item(&forever)?;
//! item.insert("expires_at".into(), AttributeValue::N("1700000000000".into()));
//! let err = InviteMapper::from_item(item).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Deserialize);
//! assert_eq!(err.attribute(), Some("expires_at"));
//! assert_eq!(
//!     format!("{err:#}"),
//!     "Invite (pk=\"INVITE#A\"): cannot deserialize attribute `expires_at`: is 1700000000000, \
//!      after 9999-12-31T23:59:59Z (253402300799), the latest ttl: epoch milliseconds instead of seconds?"
//! );
//! # Ok::<(), dynamodb_mapper::Error>(())
//! ```

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{self, Serializer};

use super::{PointInTime, from_ttl_seconds, ttl_seconds};

/// Serializes `at` as whole epoch seconds (`u64`).
///
/// # Errors
/// The serializer's error when `at` is before the Unix epoch or after
/// 9999-12-31T23:59:59Z.
pub fn serialize<T: PointInTime, S: Serializer>(at: &T, serializer: S) -> Result<S::Ok, S::Error> {
    let secs = ttl_seconds(at).map_err(ser::Error::custom)?;
    serializer.serialize_u64(secs)
}

/// Deserializes whole epoch seconds into a `T`.
///
/// # Errors
/// The deserializer's error when the value is not a whole number from 0 to
/// 9999-12-31T23:59:59Z, or `T` cannot hold it.
pub fn deserialize<'de, T: PointInTime, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    deserializer.deserialize_u64(TtlVisitor(PhantomData))
}

struct TtlVisitor<T>(PhantomData<T>);

impl<T: PointInTime> Visitor<'_> for TtlVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a ttl: whole epoch seconds from 0 to 253402300799")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        from_ttl_seconds(v).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::custom(format_args!(
                "is {v}, before the unix epoch: not a ttl"
            ))),
        }
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<T, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::custom(format_args!(
                "is {v}, after 9999-12-31T23:59:59Z: not a ttl"
            ))),
        }
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<T, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) if v < 0 => Err(E::custom(format_args!(
                "is {v}, before the unix epoch: not a ttl"
            ))),
            Err(_) => Err(E::custom(format_args!(
                "is {v}, after 9999-12-31T23:59:59Z: not a ttl"
            ))),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Err(E::custom(format_args!(
            "is {v}, not whole epoch seconds: not a ttl"
        )))
    }
}

/// [`ttl`](super::ttl) for an `Option` field. `None` serializes as a null:
/// add `skip_serializing_if = "Option::is_none"` to leave the attribute out
/// instead (the table's TTL attribute must be a Number when present), and
/// `default` so that an absent attribute reads as `None`. A NULL reads as
/// `None` too.
///
/// ```
/// use std::time::{Duration, SystemTime, UNIX_EPOCH};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize)]
/// struct Upload {
///     #[serde(
///         default,
///         skip_serializing_if = "Option::is_none",
///         with = "dynamodb_mapper::time::ttl::option"
///     )]
///     delete_at: Option<SystemTime>,
/// }
/// let u = Upload { delete_at: Some(UNIX_EPOCH + Duration::from_secs(60)) };
/// assert_eq!(serde_json::to_string(&u)?, r#"{"delete_at":60}"#);
/// let none = Upload { delete_at: None };
/// assert_eq!(serde_json::to_string(&none)?, "{}");
/// let u: Upload = serde_json::from_str("{}")?;
/// assert_eq!(u.delete_at, None);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub mod option {
    use std::fmt;
    use std::marker::PhantomData;

    use serde::de::{Deserializer, Visitor};
    use serde::ser::Serializer;

    use super::super::PointInTime;

    /// Serializes `Some(at)` as [`ttl::serialize`](super::serialize) does,
    /// `None` as none.
    ///
    /// # Errors
    /// As [`ttl::serialize`](super::serialize).
    pub fn serialize<T: PointInTime, S: Serializer>(
        at: &Option<T>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match at {
            Some(at) => serializer.serialize_some(&Secs(at)),
            None => serializer.serialize_none(),
        }
    }

    /// Deserializes a TTL as [`ttl::deserialize`](super::deserialize) does,
    /// or a null as `None`.
    ///
    /// # Errors
    /// As [`ttl::deserialize`](super::deserialize).
    pub fn deserialize<'de, T: PointInTime, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<T>, D::Error> {
        deserializer.deserialize_option(OptionVisitor(PhantomData))
    }

    struct Secs<'a, T>(&'a T);

    impl<T: PointInTime> serde::Serialize for Secs<'_, T> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            super::serialize(self.0, serializer)
        }
    }

    struct OptionVisitor<T>(PhantomData<T>);

    impl<'de, T: PointInTime> Visitor<'de> for OptionVisitor<T> {
        type Value = Option<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a ttl (whole epoch seconds) or null")
        }

        fn visit_none<E: serde::de::Error>(self) -> Result<Option<T>, E> {
            Ok(None)
        }

        fn visit_unit<E: serde::de::Error>(self) -> Result<Option<T>, E> {
            Ok(None)
        }

        fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<T>, D::Error> {
            super::deserialize(deserializer).map(Some)
        }
    }
}
