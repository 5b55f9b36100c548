//! [`PointInTime`] for `time` (cargo feature `time`):
//! `time::OffsetDateTime` and `time::UtcDateTime`.
//!
//! An `OffsetDateTime` is stored as its instant and read back with the
//! offset UTC. `time` holds the years -9999 to 9999 (without its
//! `large-dates` feature), so every time the crate stores reads back.
//!
//! ```
//! use dynamodb_mapper::hooks::Timestamps;
//! use dynamodb_mapper::{KeyPattern, key::KeyValue};
//! use dynamodb_mapper::{Item, ItemExt, Mapper, MapperExt, Record, TableSchema};
//! use serde::{Deserialize, Serialize};
//! use time::{Duration, OffsetDateTime};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! struct Session {
//!     user: String,
//!     id: String,
//!     // A Number of epoch seconds: the table's TTL.
//!     #[serde(with = "dynamodb_mapper::time::ttl")]
//!     expires_at: OffsetDateTime,
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
//! let now: OffsetDateTime = OffsetDateTime::from_unix_timestamp(1_705_314_600)?;
//! let session = Session { user: "U1".into(), id: "S1".into(), expires_at: now + Duration::days(30) };
//! let item = SessionMapper::to_item(&session)?;
//! assert_eq!(item.get_number::<u64>("expires_at")?, 1_707_906_600);
//! assert_eq!(item.get_str("sk")?, "EXPIRES#2024-02-14T10:30:00Z#S1");
//! assert_eq!(SessionMapper::from_item(item.clone())?, session);
//! assert_eq!(item.get_ttl_as::<OffsetDateTime>("expires_at")?, session.expires_at);
//!
//! // The sort key parses back into the same type.
//! let parts = EXPIRES_SK.parse(item.get_str("sk")?)?;
//! assert_eq!(parts.timestamp::<OffsetDateTime>("at")?, session.expires_at);
//!
//! // createdAt/updatedAt kept in the record's attribute bag.
//! let mut record = Record::new(session);
//! Timestamps::default().stamp(&mut record.bag, now)?;
//! assert_eq!(Timestamps::default().created_at::<OffsetDateTime>(&record.bag)?, Some(now));
//! assert_eq!(record.bag.get("createdAt").and_then(|v| v.as_s().ok()).map(String::as_str), Some("2024-01-15T10:30:00.000Z"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use time::{OffsetDateTime, UtcDateTime};

use super::PointInTime;

fn nanos_since_epoch(secs: i64, nanos: u32) -> Option<i128> {
    if nanos >= 1_000_000_000 {
        return None;
    }
    // |secs| <= 2^63, so this is below 2^93: no overflow.
    Some(i128::from(secs) * 1_000_000_000 + i128::from(nanos))
}

/// Read back with the offset UTC.
impl PointInTime for OffsetDateTime {
    fn to_unix(&self) -> Option<(i64, u32)> {
        Some((self.unix_timestamp(), self.nanosecond()))
    }

    fn from_unix(secs: i64, nanos: u32) -> Option<Self> {
        OffsetDateTime::from_unix_timestamp_nanos(nanos_since_epoch(secs, nanos)?).ok()
    }
}

impl PointInTime for UtcDateTime {
    fn to_unix(&self) -> Option<(i64, u32)> {
        Some((self.unix_timestamp(), self.nanosecond()))
    }

    fn from_unix(secs: i64, nanos: u32) -> Option<Self> {
        UtcDateTime::from_unix_timestamp_nanos(nanos_since_epoch(secs, nanos)?).ok()
    }
}
