//! [`PointInTime`](super::PointInTime) for jiff 1 (cargo feature `jiff`):
//! `jiff::Timestamp` and `jiff::ZonedDateTime`.
//!
//! A `ZonedDateTime` is stored as its instant and read back in the time zone
//! UTC; pass a `ZonedDateTime` by value (or its `.timestamp()`). jiff holds
//! the years -9999 to 9999 but for the last 26 hours of 9999
//! (`Timestamp::MAX` is 9999-12-30T22:00:00.999999999Z): a later key
//! timestamp or TTL reads back as an error.
//!
//! ```
//! use dynamodb_mapper::hooks::Timestamps;
//! use dynamodb_mapper::{KeyPattern, key::KeyValue};
//! use dynamodb_mapper::{Item, ItemExt, Mapper, MapperExt, Record, TableSchema};
//! use serde::{Deserialize, Serialize};
//! use jiff::{Timestamp, ToSpan};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! struct Session {
//!     user: String,
//!     id: String,
//!     // A Number of epoch seconds: the table's TTL.
//!     #[serde(with = "dynamodb_mapper::time::ttl")]
//!     expires_at: Timestamp,
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
//! let now: Timestamp = "2024-01-15T10:30:00Z".parse()?;
//! let session = Session { user: "U1".into(), id: "S1".into(), expires_at: now + 720.hours() };
//! let item = SessionMapper::to_item(&session)?;
//! assert_eq!(item.get_number::<u64>("expires_at")?, 1_707_906_600);
//! assert_eq!(item.get_str("sk")?, "EXPIRES#2024-02-14T10:30:00Z#S1");
//! assert_eq!(SessionMapper::from_item(item.clone())?, session);
//! assert_eq!(item.get_ttl_as::<Timestamp>("expires_at")?, session.expires_at);
//!
//! // The sort key parses back into the same type.
//! let parts = EXPIRES_SK.parse(item.get_str("sk")?)?;
//! assert_eq!(parts.timestamp::<Timestamp>("at")?, session.expires_at);
//!
//! // createdAt/updatedAt kept in the record's attribute bag.
//! let mut record = Record::new(session);
//! Timestamps::default().stamp(&mut record.bag, now)?;
//! assert_eq!(Timestamps::default().created_at::<Timestamp>(&record.bag)?, Some(now));
//! assert_eq!(record.bag.get("createdAt").and_then(|v| v.as_s().ok()).map(String::as_str), Some("2024-01-15T10:30:00.000Z"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

jiff_impls!(jiff, ZonedDateTime);
