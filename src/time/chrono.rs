//! [`PointInTime`] for `chrono` (cargo feature `chrono`):
//! `chrono::DateTime<Utc>` and `chrono::DateTime<FixedOffset>`.
//!
//! A `DateTime<FixedOffset>` is stored as its instant and read back with
//! the offset `+00:00`; a `DateTime<Local>` converts with
//! `.with_timezone(&Utc)`. A leap second (`23:59:60.5`) is taken as the
//! last nanosecond of the second before it.
//!
//! ```
//! use dynamodb_mapper::hooks::Timestamps;
//! use dynamodb_mapper::{KeyPattern, key::KeyValue};
//! use dynamodb_mapper::{Item, ItemExt, Mapper, MapperExt, Record, TableSchema};
//! use serde::{Deserialize, Serialize};
//! use chrono::{DateTime, Duration, Utc};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! struct Session {
//!     user: String,
//!     id: String,
//!     // A Number of epoch seconds: the table's TTL.
//!     #[serde(with = "dynamodb_mapper::time::ttl")]
//!     expires_at: DateTime<Utc>,
//! }
//!
//! const USER_PK: KeyPattern = KeyPattern::partition("USER#{user}");
//! // A user's sessions sorted by expiry.
//! const EXPIRES_SK: KeyPattern = KeyPattern::sort("EXPIRES#{at:ts}#{id}");
//!
//! struct SessionMapper;
//! impl Mapper for SessionMapper {
//!     type Entity = Session;
//!     const ENTITY_TYPE: &'static str = "Session";
//!     const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk").ttl("expires_at");
//!     fn after_to_item(s: &Session, item: &mut Item) -> dynamodb_mapper::Result<()> {
//!         item.put_str("pk", USER_PK.with("user", &s.user).render()?);
//!         let at = KeyValue::from_time(s.expires_at)?;
//!         item.put_str("sk", EXPIRES_SK.with("at", at).with("id", &s.id).render()?);
//!         Ok(())
//!     }
//! }
//!
//! let now: DateTime<Utc> = "2024-01-15T10:30:00Z".parse()?;
//! let session = Session { user: "U1".into(), id: "S1".into(), expires_at: now + Duration::days(30) };
//! let item = SessionMapper::to_item(&session)?;
//! assert_eq!(item.get_number::<u64>("expires_at")?, 1_707_906_600);
//! assert_eq!(item.get_str("sk")?, "EXPIRES#2024-02-14T10:30:00Z#S1");
//! assert_eq!(SessionMapper::from_item(item.clone())?, session);
//! assert_eq!(item.get_ttl_as::<DateTime<Utc>>("expires_at")?, session.expires_at);
//!
//! // The sort key parses back into the same type.
//! let parts = EXPIRES_SK.parse(item.get_str("sk")?)?;
//! assert_eq!(parts.timestamp::<DateTime<Utc>>("at")?, session.expires_at);
//!
//! // createdAt/updatedAt kept in the record's attribute bag.
//! let mut record = Record::new(session);
//! Timestamps::default().stamp(&mut record.bag, now)?;
//! assert_eq!(Timestamps::default().created_at::<DateTime<Utc>>(&record.bag)?, Some(now));
//! assert_eq!(record.bag.get("createdAt").and_then(|v| v.as_s().ok()).map(String::as_str), Some("2024-01-15T10:30:00.000Z"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use chrono::{DateTime, FixedOffset, Utc};

use super::PointInTime;

/// The epoch parts of a chrono time; a leap second's nanoseconds (1e9 and
/// up) become the last nanosecond of the second.
fn parts<Tz: chrono::TimeZone>(t: &DateTime<Tz>) -> (i64, u32) {
    (t.timestamp(), t.timestamp_subsec_nanos().min(999_999_999))
}

fn utc(secs: i64, nanos: u32) -> Option<DateTime<Utc>> {
    if nanos >= 1_000_000_000 {
        return None;
    }
    DateTime::from_timestamp(secs, nanos)
}

impl PointInTime for DateTime<Utc> {
    fn to_unix(&self) -> Option<(i64, u32)> {
        Some(parts(self))
    }

    fn from_unix(secs: i64, nanos: u32) -> Option<Self> {
        utc(secs, nanos)
    }
}

/// Read back with the offset `+00:00`.
impl PointInTime for DateTime<FixedOffset> {
    fn to_unix(&self) -> Option<(i64, u32)> {
        Some(parts(self))
    }

    fn from_unix(secs: i64, nanos: u32) -> Option<Self> {
        utc(secs, nanos).map(|t| t.fixed_offset())
    }
}
