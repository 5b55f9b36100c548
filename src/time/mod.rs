//! Points in time from the crates you already use: [`PointInTime`], taken
//! and returned wherever the crate handles a time, and [`ttl`], serde
//! helpers that store a time field as a DynamoDB TTL.
//!
//! [`PointInTime`] is implemented for [`std::time::SystemTime`] always, and,
//! behind the cargo feature of the same name, for the types of `chrono`,
//! `time` and `jiff` (the modules `chrono`, `time`, `jiff` and `jiff_02`
//! here, each with its feature, say more and show an example):
//!
//! | feature   | types                                                    |
//! |-----------|----------------------------------------------------------|
//! | (none)    | `std::time::SystemTime`                                  |
//! | `chrono`  | `chrono::DateTime<Utc>`, `chrono::DateTime<FixedOffset>` |
//! | `time`    | `time::OffsetDateTime`, `time::UtcDateTime`              |
//! | `jiff`    | `jiff::Timestamp`, `jiff::ZonedDateTime` (jiff 1)        |
//! | `jiff-02` | `jiff::Timestamp`, `jiff::Zoned` (jiff 0.2)              |
//!
//! Where it takes a time, the crate accepts any of them (`impl PointInTime`);
//! where it gives one back, a `_as::<T>` form returns the type you ask for:
//!
//! - TTL: [`ttl_value`](crate::ttl_value),
//!   [`ItemExt::get_ttl_as`](crate::ItemExt::get_ttl_as), and the serde
//!   helpers [`ttl`] and [`ttl::option`] for entity fields;
//! - `createdAt`/`updatedAt`: [`Timestamps::stamp`](crate::hooks::Timestamps::stamp),
//!   [`created_at`](crate::hooks::Timestamps::created_at),
//!   [`updated_at`](crate::hooks::Timestamps::updated_at);
//! - keys: [`KeyValue::from_time`](crate::key::KeyValue::from_time), for
//!   [`KeyPattern::with`](crate::KeyPattern::with);
//!   [`KeyParts::timestamp`](crate::key::KeyParts::timestamp).
//!
//! # Precision and range
//!
//! - **TTL** is whole epoch seconds (a Number, as DynamoDB's TTL requires):
//!   the fraction of a second is dropped on write (`12:00:00.999` is stored
//!   as `12:00:00`). The crate writes and, through [`ttl`], reads TTLs from
//!   1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z (253,402,300,799); a
//!   time before the epoch or after that is an error, never a panic or a
//!   wrapped value. (A TTL read past year 9999 is most often epoch
//!   *milliseconds* written by mistake: such an item would never expire.)
//! - **Key and `createdAt`/`updatedAt` timestamps** are RFC 3339 UTC text
//!   with a fixed number of fraction digits (0 to 9), truncated; years 0000
//!   to 9999.
//! - **Offsets and zones** are not stored: a time is an instant. Read back as
//!   `DateTime<FixedOffset>`, `OffsetDateTime` or a zoned jiff type, it comes
//!   back in UTC, equal as an instant to what was written.
//! - **Leap seconds** (`chrono` can hold `23:59:60`) are read as the last
//!   nanosecond of the second before, so order is kept.
//!
//! # Example
//!
//! An entity with a TTL field: with `TableSchema::ttl` naming it, the
//! write checks make sure it is stored as whole epoch seconds.
//!
//! ```
//! use std::time::{Duration, SystemTime, UNIX_EPOCH};
//! use aws_sdk_dynamodb::types::AttributeValue;
//! use dynamodb_mapper::{ItemExt, Item, Mapper, MapperExt, TableSchema};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! struct Session {
//!     id: String,
//!     #[serde(with = "dynamodb_mapper::time::ttl")]
//!     expires_at: SystemTime,
//! }
//!
//! struct SessionMapper;
//! impl Mapper for SessionMapper {
//!     type Entity = Session;
//!     const ENTITY_TYPE: &'static str = "Session";
//!     const SCHEMA: TableSchema = TableSchema::new("pk").ttl("expires_at");
//!     fn after_to_item(s: &Session, item: &mut Item) -> dynamodb_mapper::Result<()> {
//!         item.put_str("pk", format!("SESSION#{}", s.id));
//!         Ok(())
//!     }
//! }
//!
//! let session = Session {
//!     id: "S1".into(),
//!     expires_at: UNIX_EPOCH + Duration::from_secs(1_700_000_000),
//! };
//! let item = SessionMapper::to_item(&session)?;
//! assert_eq!(item["expires_at"], AttributeValue::N("1700000000".into()));
//! assert_eq!(SessionMapper::from_item(item)?, session);
//! # Ok::<(), dynamodb_mapper::Error>(())
//! ```
//!
//! # Your own time type
//!
//! Implement [`PointInTime`] for it (two conversions to and from epoch
//! seconds and nanoseconds) and every function above takes it.

// Uses nothing else of the crate: the callers turn the reasons given here
// into errors naming the attribute, which only they know.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub mod ttl;

/// A point in time the crate can take and give back: anything that converts
/// to and from seconds and nanoseconds since the Unix epoch
/// (1970-01-01T00:00:00Z).
///
/// Implemented for [`SystemTime`], and with the cargo features `chrono`,
/// `time`, `jiff` and `jiff-02` for those crates' instant types (see the
/// [module docs](self)).
///
/// ```
/// use std::time::{Duration, SystemTime, UNIX_EPOCH};
/// use dynamodb_mapper::time::PointInTime;
///
/// let t = UNIX_EPOCH - Duration::from_millis(1_500);
/// assert_eq!(t.to_unix(), Some((-2, 500_000_000)));
/// assert_eq!(SystemTime::from_unix(-2, 500_000_000), Some(t));
/// assert_eq!(SystemTime::from_unix(0, 1_000_000_000), None);
/// ```
pub trait PointInTime: Sized {
    /// This time as whole seconds since the Unix epoch (negative before it)
    /// and the nanoseconds, `0..1_000_000_000`, past that second: the floor
    /// of the epoch time and what is left over, so `1969-12-31T23:59:59.5Z`
    /// is `(-1, 500_000_000)`.
    ///
    /// `None` when the seconds do not fit an `i64`.
    fn to_unix(&self) -> Option<(i64, u32)>;

    /// The time `secs` seconds and `nanos` nanoseconds after the Unix epoch,
    /// in UTC where the type has an offset or a time zone.
    ///
    /// `None` when the type cannot hold that time or `nanos` is not below
    /// 1,000,000,000. Implementations must not panic on any input.
    fn from_unix(secs: i64, nanos: u32) -> Option<Self>;
}

const NANOS_PER_SEC: u32 = 1_000_000_000;

impl PointInTime for SystemTime {
    fn to_unix(&self) -> Option<(i64, u32)> {
        match self.duration_since(UNIX_EPOCH) {
            Ok(d) => Some((i64::try_from(d.as_secs()).ok()?, d.subsec_nanos())),
            Err(before) => {
                let d = before.duration();
                let secs = 0i64.checked_sub_unsigned(d.as_secs())?;
                match d.subsec_nanos() {
                    0 => Some((secs, 0)),
                    n => Some((secs.checked_sub(1)?, NANOS_PER_SEC - n)),
                }
            }
        }
    }

    fn from_unix(secs: i64, nanos: u32) -> Option<Self> {
        if nanos >= NANOS_PER_SEC {
            return None;
        }
        if secs >= 0 {
            UNIX_EPOCH.checked_add(Duration::new(secs.unsigned_abs(), nanos))
        } else {
            UNIX_EPOCH
                .checked_sub(Duration::from_secs(secs.unsigned_abs()))?
                .checked_add(Duration::from_nanos(u64::from(nanos)))
        }
    }
}

/// 9999-12-31T23:59:59Z in epoch seconds: the latest TTL the crate writes
/// ([`ttl_value`](crate::ttl_value), [`ttl`]) or reads through [`ttl`]. The
/// years 0000 to 9999 are also the range of the crate's text timestamps.
///
/// A Unix time in *milliseconds* of any date after 1978 is above it, so a
/// TTL written in milliseconds by mistake is refused, not stored as an
/// expiry that never comes.
pub(crate) const MAX_TTL_SECONDS: u64 = 253_402_300_799;

/// Why a time cannot be a TTL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TtlRange {
    BeforeEpoch,
    AfterMax,
}

impl std::fmt::Display for TtlRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TtlRange::BeforeEpoch => "is before the unix epoch",
            TtlRange::AfterMax => "is after 9999-12-31T23:59:59Z, the latest ttl",
        })
    }
}

/// `at` as TTL seconds: whole seconds since the epoch, the fraction
/// dropped, from the epoch to [`MAX_TTL_SECONDS`].
pub(crate) fn ttl_seconds(at: &impl PointInTime) -> Result<u64, TtlRange> {
    match at.to_unix() {
        // Only a time after year 292 billion has seconds beyond `i64`.
        None => Err(TtlRange::AfterMax),
        Some((secs, _)) => match u64::try_from(secs) {
            Err(_) => Err(TtlRange::BeforeEpoch),
            Ok(secs) if secs > MAX_TTL_SECONDS => Err(TtlRange::AfterMax),
            Ok(secs) => Ok(secs),
        },
    }
}

/// The time `T` of `secs` epoch seconds, or why not; `secs` is checked
/// against [`MAX_TTL_SECONDS`] first.
pub(crate) fn from_ttl_seconds<T: PointInTime>(secs: u64) -> Result<T, String> {
    if secs > MAX_TTL_SECONDS {
        return Err(format!(
            "is {secs}, after 9999-12-31T23:59:59Z ({MAX_TTL_SECONDS}), the latest ttl: \
             epoch milliseconds instead of seconds?"
        ));
    }
    // At most MAX_TTL_SECONDS, so it fits an i64.
    let signed = i64::try_from(secs).map_err(|_| format!("is {secs}, out of range"))?;
    T::from_unix(signed, 0).ok_or_else(|| {
        format!(
            "is {secs}, outside the range of {}",
            std::any::type_name::<T>()
        )
    })
}

/// The implementations for one major version of jiff (the types are the
/// same in 0.2 and 1 but for the name of the zoned one).
#[cfg(any(feature = "jiff", feature = "jiff-02"))]
macro_rules! jiff_impls {
    ($jiff:ident, $zoned:ident) => {
        impl $crate::time::PointInTime for ::$jiff::Timestamp {
            fn to_unix(&self) -> Option<(i64, u32)> {
                let secs = self.as_second();
                // Same sign as the seconds: -0.5 s is (0, -500_000_000).
                let nanos = self.subsec_nanosecond();
                match u32::try_from(nanos) {
                    Ok(n) => Some((secs, n)),
                    // jiff's range is about ±3e11 s: no overflow.
                    Err(_) => Some((secs - 1, (nanos + 1_000_000_000).unsigned_abs())),
                }
            }

            fn from_unix(secs: i64, nanos: u32) -> Option<Self> {
                if nanos >= 1_000_000_000 {
                    return None;
                }
                let nanos = i32::try_from(nanos).ok()?;
                ::$jiff::Timestamp::new(secs, nanos).ok()
            }
        }

        impl $crate::time::PointInTime for ::$jiff::$zoned {
            fn to_unix(&self) -> Option<(i64, u32)> {
                <::$jiff::Timestamp as $crate::time::PointInTime>::to_unix(&self.timestamp())
            }

            fn from_unix(secs: i64, nanos: u32) -> Option<Self> {
                let t = <::$jiff::Timestamp as $crate::time::PointInTime>::from_unix(secs, nanos)?;
                Some(::$jiff::$zoned::new(t, ::$jiff::tz::TimeZone::UTC))
            }
        }
    };
}

#[cfg(feature = "chrono")]
#[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
pub mod chrono;
#[cfg(feature = "jiff")]
#[cfg_attr(docsrs, doc(cfg(feature = "jiff")))]
pub mod jiff;
#[cfg(feature = "jiff-02")]
#[cfg_attr(docsrs, doc(cfg(feature = "jiff-02")))]
pub mod jiff_02;
#[cfg(feature = "time")]
#[cfg_attr(docsrs, doc(cfg(feature = "time")))]
#[allow(clippy::module_inception)] // named after the `time` crate, as its siblings are
pub mod time;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_time_round_trips_around_the_epoch() {
        for (secs, nanos) in [
            (0, 0),
            (-1, 0),
            (-1, 1),
            (-1, 999_999_999),
            (1, 5),
            (-62_167_219_200, 0),
        ] {
            let t = SystemTime::from_unix(secs, nanos).unwrap();
            assert_eq!(t.to_unix(), Some((secs, nanos)), "{secs} {nanos}");
        }
        assert_eq!(SystemTime::from_unix(5, 1_000_000_000), None);
        assert_eq!(SystemTime::from_unix(-5, u32::MAX), None);
    }

    /// Linux's `SystemTime` holds any `i64` of seconds: the extremes
    /// convert both ways.
    #[cfg(target_os = "linux")]
    #[test]
    fn system_time_extremes() {
        for (secs, nanos) in [(i64::MAX, 999_999_999), (i64::MIN, 0), (i64::MIN + 1, 1)] {
            let t = SystemTime::from_unix(secs, nanos).unwrap();
            assert_eq!(t.to_unix(), Some((secs, nanos)), "{secs} {nanos}");
        }
        assert_eq!(
            SystemTime::from_unix(i64::MIN, 1).unwrap().to_unix(),
            Some((i64::MIN, 1))
        );
    }

    #[test]
    fn ttl_seconds_limits() {
        let at = |s| SystemTime::from_unix(s, 999_999_999).unwrap();
        assert_eq!(ttl_seconds(&at(0)), Ok(0));
        assert_eq!(ttl_seconds(&at(-1)), Err(TtlRange::BeforeEpoch));
        assert_eq!(ttl_seconds(&at(253_402_300_799)), Ok(MAX_TTL_SECONDS));
        assert_eq!(ttl_seconds(&at(253_402_300_800)), Err(TtlRange::AfterMax));
        assert_eq!(
            from_ttl_seconds::<SystemTime>(MAX_TTL_SECONDS),
            Ok(at(253_402_300_799) - Duration::from_nanos(999_999_999))
        );
        assert!(
            from_ttl_seconds::<SystemTime>(MAX_TTL_SECONDS + 1)
                .unwrap_err()
                .contains("milliseconds")
        );
    }
}
