//! Times from `std` and, each with its cargo feature, from `chrono`, `time`
//! and jiff (1 and 0.2): the conversions of `PointInTime` over the whole
//! range the crate stores, key and `createdAt`/`updatedAt` timestamps, TTL
//! values, the `ttl` serde helpers through a mapper, and a round trip through
//! the testkit's DynamoDB.
//!
//! Run everything: `cargo test --all-features --test time_crates`.

use std::fmt::Debug;
use std::marker::PhantomData;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::hooks::Timestamps;
use dynamodb_mapper::time::PointInTime;

/// 9999-12-31T23:59:59Z: the latest TTL the crate accepts.
const MAX_TTL_SECONDS: u64 = 253_402_300_799;
use dynamodb_mapper::{
    ErrorKind, Item, ItemExt, Mapper, MapperExt, NamingConvention, TableSchema, ttl_value,
};
use dynamodb_mapper::{KeyPattern, Result as MapperResult, key::KeyValue};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

/// 0000-01-01T00:00:00Z, the earliest key timestamp.
const MIN_KEY_SECS: i64 = -62_167_219_200;
/// 9999-12-31T23:59:59Z, the latest key timestamp and TTL.
const MAX_KEY_SECS: i64 = 253_402_300_799;

fn at<T: PointInTime>(secs: i64, nanos: u32) -> T {
    T::from_unix(secs, nanos).unwrap_or_else(|| panic!("{secs} s {nanos} ns"))
}

/// One sort key pattern per number of fraction digits, holding only the time.
const TIME_KEYS: [KeyPattern; 10] = [
    KeyPattern::sort("{t:ts0}"),
    KeyPattern::sort("{t:ts1}"),
    KeyPattern::sort("{t:ts2}"),
    KeyPattern::sort("{t:ts3}"),
    KeyPattern::sort("{t:ts4}"),
    KeyPattern::sort("{t:ts5}"),
    KeyPattern::sort("{t:ts6}"),
    KeyPattern::sort("{t:ts7}"),
    KeyPattern::sort("{t:ts8}"),
    KeyPattern::sort("{t:ts9}"),
];

/// `t` as key timestamp text with `fraction_digits` digits, the public way:
/// a key pattern holding only the time, rendered.
fn timestamp_text(t: impl PointInTime, fraction_digits: u8) -> MapperResult<String> {
    TIME_KEYS[usize::from(fraction_digits)]
        .with("t", KeyValue::from_time(t)?)
        .render()
}

/// Key timestamp text read back as a `T`: parsed, then converted through
/// its epoch parts (`None` when `T` cannot hold it).
fn time_from_text<T: PointInTime>(text: &str, fraction_digits: u8) -> Option<T> {
    let parts = TIME_KEYS[usize::from(fraction_digits)].parse(text).unwrap();
    let Some(KeyValue::Timestamp(at)) = parts.get("t") else {
        return None;
    };
    let (secs, nanos) = at.to_unix()?;
    T::from_unix(secs, nanos)
}

// ------------------------------------------------------- generic checks

/// Every way a time goes into the crate and comes back, for one type at one
/// instant it holds: the epoch parts, key encodings (all fraction digits
/// kept, and truncated), key patterns, `Timestamps`.
fn check_round_trip<T>(secs: i64, nanos: u32) -> Result<(), TestCaseError>
where
    T: PointInTime + PartialEq + Debug + Clone,
{
    let t: T = at(secs, nanos);
    prop_assert_eq!(t.to_unix(), Some((secs, nanos)));

    let text = timestamp_text(t.clone(), 9).unwrap();
    let std_time: SystemTime = at(secs, nanos);
    prop_assert_eq!(&text, &timestamp_text(std_time, 9).unwrap());
    prop_assert_eq!(&time_from_text::<T>(&text, 9).unwrap(), &t);
    // Three digits: truncated to the millisecond, never rounded up.
    let millis = timestamp_text(t.clone(), 3).unwrap();
    let truncated: T = at(secs, nanos / 1_000_000 * 1_000_000);
    prop_assert_eq!(time_from_text::<T>(&millis, 3).unwrap(), truncated);

    let sk = KeyPattern::sort("AT#{at:ts9}#{id}")
        .with("at", KeyValue::from_time(t.clone()).unwrap())
        .with("id", "x")
        .render()
        .unwrap();
    prop_assert_eq!(&sk, &format!("AT#{text}#x"));
    let parts = KeyPattern::sort("AT#{at:ts9}#{id}").parse(&sk).unwrap();
    prop_assert_eq!(&parts.timestamp::<T>("at").unwrap(), &t);

    let stamps = Timestamps::default().fraction_digits(9);
    let mut bag = Item::new();
    stamps.stamp(&mut bag, t.clone()).unwrap();
    prop_assert_eq!(stamps.created_at::<T>(&bag).unwrap(), Some(t.clone()));
    prop_assert_eq!(stamps.updated_at::<T>(&bag).unwrap(), Some(t));
    Ok(())
}

/// A TTL of one type: whole seconds written, the fraction dropped, read
/// back by `get_ttl_as` and through a mapper's `ttl` field.
fn check_ttl<T>(secs: i64, nanos: u32) -> Result<(), TestCaseError>
where
    T: PointInTime + PartialEq + Debug + Clone + 'static,
{
    let t: T = at(secs, nanos);
    let whole: T = at(secs, 0);
    let value = ttl_value(t.clone()).unwrap();
    prop_assert_eq!(&value, &AttributeValue::N(secs.to_string()));
    let item = Item::from([("ttl".to_string(), value)]);
    prop_assert_eq!(&item.get_ttl_as::<T>("ttl").unwrap(), &whole);

    let entity = Expiring {
        id: "E1".into(),
        expires_at: t,
        delete_at: None,
    };
    let item = ExpiringMapper::<T>::to_item(&entity).unwrap();
    prop_assert_eq!(&item["expiresAt"], &AttributeValue::N(secs.to_string()));
    let read = ExpiringMapper::<T>::from_item(item).unwrap();
    prop_assert_eq!(read.expires_at, whole);
    Ok(())
}

// --------------------------------------------- an entity with a ttl field

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(serialize = "T: PointInTime", deserialize = "T: PointInTime"))]
struct Expiring<T> {
    id: String,
    #[serde(with = "dynamodb_mapper::time::ttl")]
    expires_at: T,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "dynamodb_mapper::time::ttl::option"
    )]
    delete_at: Option<T>,
}

/// The stored TTL attribute name: `expires_at` under camelCase.
const TABLE: TableSchema = TableSchema::new("pk").ttl("expiresAt");

struct ExpiringMapper<T>(PhantomData<T>);

impl<T: PointInTime + 'static> Mapper for ExpiringMapper<T> {
    type Entity = Expiring<T>;
    const ENTITY_TYPE: &'static str = "Expiring";
    const SCHEMA: TableSchema = TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;

    fn after_to_item(e: &Expiring<T>, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("pk", format!("EXPIRING#{}", e.id));
        Ok(())
    }
}

type StdMapper = ExpiringMapper<SystemTime>;

fn expiring(secs: u64) -> Expiring<SystemTime> {
    Expiring {
        id: "E1".into(),
        expires_at: UNIX_EPOCH + Duration::from_secs(secs),
        delete_at: None,
    }
}

/// A stored item of [`StdMapper`] with `expiresAt` set to `value`.
fn item_with_ttl(value: AttributeValue) -> Item {
    let mut item = StdMapper::to_item(&expiring(1)).unwrap();
    item.insert("expiresAt".into(), value);
    item
}

// ------------------------------------------------------ SystemTime (std)

proptest! {
    #[test]
    fn system_time_round_trips(secs in MIN_KEY_SECS..=MAX_KEY_SECS, nanos in 0u32..1_000_000_000) {
        check_round_trip::<SystemTime>(secs, nanos)?;
    }

    #[test]
    fn system_time_ttls(secs in 0..=MAX_KEY_SECS, nanos in 0u32..1_000_000_000) {
        check_ttl::<SystemTime>(secs, nanos)?;
    }
}

#[test]
fn ttl_edges_for_system_time() {
    check_ttl::<SystemTime>(0, 0).unwrap();
    check_ttl::<SystemTime>(0, 999_999_999).unwrap();
    check_ttl::<SystemTime>(MAX_KEY_SECS, 999_999_999).unwrap();
    assert_eq!(MAX_TTL_SECONDS, MAX_KEY_SECS as u64);

    let before = UNIX_EPOCH - Duration::from_nanos(1);
    let err = ttl_value(before).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue);
    assert_eq!(err.to_string(), "attribute `ttl` is before the unix epoch");
    let after = UNIX_EPOCH + Duration::from_secs(MAX_TTL_SECONDS + 1);
    assert_eq!(
        ttl_value(after).unwrap_err().to_string(),
        "attribute `ttl` is after 9999-12-31T23:59:59Z, the latest ttl"
    );
}

#[test]
fn a_ttl_field_is_whole_epoch_seconds_in_the_item() {
    let mut e = expiring(1_700_000_000);
    e.expires_at += Duration::from_millis(999);
    e.delete_at = Some(UNIX_EPOCH + Duration::from_secs(1_800_000_000));
    let item = StdMapper::to_item(&e).unwrap();
    assert_eq!(item["expiresAt"], AttributeValue::N("1700000000".into()));
    assert_eq!(item["deleteAt"], AttributeValue::N("1800000000".into()));
    let read = StdMapper::from_item(item).unwrap();
    // The 999 ms are dropped: TTL is whole seconds.
    assert_eq!(
        read.expires_at,
        UNIX_EPOCH + Duration::from_secs(1_700_000_000)
    );
    assert_eq!(read.delete_at, e.delete_at);
}

#[test]
fn an_optional_ttl_field_is_absent_when_none() {
    let e = expiring(60);
    let item = StdMapper::to_item(&e).unwrap();
    assert!(!item.contains_key("deleteAt"));
    assert_eq!(StdMapper::from_item(item.clone()).unwrap(), e);
    let mut with_null = item;
    with_null.insert("deleteAt".into(), AttributeValue::Null(true));
    assert_eq!(StdMapper::from_item(with_null).unwrap(), e);
}

#[test]
fn a_ttl_field_before_the_epoch_is_refused_on_write() {
    let mut e = expiring(0);
    e.expires_at = UNIX_EPOCH - Duration::from_secs(1);
    let err = StdMapper::to_item(&e).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Serialize);
    assert_eq!(err.entity_type(), Some("Expiring"));
    assert_eq!(err.attribute(), Some("expiresAt"));
    assert_eq!(
        format!("{err:#}"),
        "Expiring: cannot serialize attribute `expiresAt`: is before the unix epoch"
    );

    let mut e = expiring(0);
    e.delete_at = Some(UNIX_EPOCH + Duration::from_secs(MAX_TTL_SECONDS + 1));
    let err = StdMapper::to_item(&e).unwrap_err();
    assert_eq!(err.attribute(), Some("deleteAt"));
    assert!(
        format!("{err:#}").ends_with("`deleteAt`: is after 9999-12-31T23:59:59Z, the latest ttl"),
        "{err:#}"
    );
}

#[test]
fn bad_stored_ttls_are_refused_naming_the_attribute() {
    let cases = [
        (AttributeValue::N("1.5".into()), "1.5"),
        (AttributeValue::N("-5".into()), "-5"),
        (AttributeValue::N("1700000000000".into()), "milliseconds"),
        (
            AttributeValue::N("99999999999999999999999".into()),
            "99999999999999999999999",
        ),
        (AttributeValue::S("1700000000".into()), "string"),
    ];
    for (value, says) in cases {
        let err = StdMapper::from_item(item_with_ttl(value.clone())).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Deserialize, "{value:?}: {err}");
        assert_eq!(err.entity_type(), Some("Expiring"), "{err}");
        assert_eq!(err.attribute(), Some("expiresAt"), "{err}");
        println!("{err:#}");
        assert!(format!("{err:#}").contains(says), "{value:?}: {err:#}");
    }
    // The last TTL there is, and the epoch, read back.
    let last = StdMapper::from_item(item_with_ttl(AttributeValue::N(
        MAX_TTL_SECONDS.to_string(),
    )));
    assert_eq!(
        last.unwrap().expires_at,
        UNIX_EPOCH + Duration::from_secs(MAX_TTL_SECONDS)
    );
    let first = StdMapper::from_item(item_with_ttl(AttributeValue::N("0".into())));
    assert_eq!(first.unwrap().expires_at, UNIX_EPOCH);
}

// ------------------------------------------------------------------ chrono

#[cfg(feature = "chrono")]
mod chrono_types {
    use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone, Utc};

    use super::*;

    proptest! {
        #[test]
        fn round_trips(secs in MIN_KEY_SECS..=MAX_KEY_SECS, nanos in 0u32..1_000_000_000) {
            check_round_trip::<DateTime<Utc>>(secs, nanos)?;
            check_round_trip::<DateTime<FixedOffset>>(secs, nanos)?;
        }

        #[test]
        fn ttls(secs in 0..=MAX_KEY_SECS, nanos in 0u32..1_000_000_000) {
            check_ttl::<DateTime<Utc>>(secs, nanos)?;
            check_ttl::<DateTime<FixedOffset>>(secs, nanos)?;
        }

        /// The same instant in any offset converts the same, and reads
        /// back in UTC.
        #[test]
        fn offsets_are_not_stored(secs in MIN_KEY_SECS + 86_400..=MAX_KEY_SECS - 86_400, offset in -86_399i32..86_400) {
            let utc: DateTime<Utc> = at(secs, 0);
            let zoned = utc.with_timezone(&FixedOffset::east_opt(offset).unwrap());
            prop_assert_eq!(zoned.to_unix(), Some((secs, 0)));
            let back = DateTime::<FixedOffset>::from_unix(secs, 0).unwrap();
            prop_assert_eq!(back.offset().local_minus_utc(), 0);
            prop_assert_eq!(back, zoned);
        }
    }

    #[test]
    fn epoch_and_the_nanosecond_before() {
        let epoch = DateTime::<Utc>::UNIX_EPOCH;
        assert_eq!(epoch.to_unix(), Some((0, 0)));
        assert_eq!(ttl_value(epoch).unwrap(), AttributeValue::N("0".into()));
        let before = epoch - chrono::Duration::nanoseconds(1);
        assert_eq!(before.to_unix(), Some((-1, 999_999_999)));
        assert_eq!(
            ttl_value(before).unwrap_err().to_string(),
            "attribute `ttl` is before the unix epoch"
        );
        assert_eq!(
            timestamp_text(before, 3).unwrap(),
            "1969-12-31T23:59:59.999Z"
        );
    }

    #[test]
    fn beyond_year_9999_is_an_error_not_a_panic() {
        let far = Utc.with_ymd_and_hms(10_000, 1, 1, 0, 0, 0).unwrap();
        assert_eq!(
            ttl_value(far).unwrap_err().to_string(),
            "attribute `ttl` is after 9999-12-31T23:59:59Z, the latest ttl"
        );
        let err = timestamp_text(far, 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidKeyPattern);
        assert!(
            err.to_string()
                .ends_with("is outside the years 0000 to 9999"),
            "{err}"
        );
        let err = KeyPattern::sort("AT#{at:ts}")
            .with("at", KeyValue::from_time(far).unwrap())
            .render()
            .unwrap_err();
        assert!(
            err.to_string()
                .ends_with("is outside the years 0000 to 9999"),
            "{err}"
        );
        let err = Timestamps::default()
            .stamp(&mut Item::new(), far)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "attribute `updatedAt` 253402300800 seconds from the unix epoch is outside the years 0000 to 9999"
        );
        // chrono's own limits: no time there.
        assert_eq!(DateTime::<Utc>::from_unix(i64::MAX, 0), None);
        assert_eq!(DateTime::<Utc>::from_unix(0, 1_000_000_000), None);
        assert!(DateTime::<Utc>::MAX_UTC.to_unix().is_some());
        let item = Item::from([("ttl".to_string(), AttributeValue::N(u64::MAX.to_string()))]);
        assert_eq!(
            item.get_ttl_as::<DateTime<Utc>>("ttl")
                .unwrap_err()
                .to_string(),
            "attribute `ttl` is 18446744073709551615, too far in the future for a time"
        );
    }

    /// chrono holds a leap second as 23:59:59 with 1e9 ns and more: it is
    /// taken as the last nanosecond of 23:59:59, after every other time of
    /// that second.
    #[test]
    fn a_leap_second_is_the_end_of_the_second_before() {
        let leap = NaiveDate::from_ymd_opt(2016, 12, 31)
            .unwrap()
            .and_hms_nano_opt(23, 59, 59, 1_500_000_000)
            .unwrap()
            .and_utc();
        let before = NaiveDate::from_ymd_opt(2016, 12, 31)
            .unwrap()
            .and_hms_nano_opt(23, 59, 59, 999_999_998)
            .unwrap()
            .and_utc();
        assert_eq!(leap.to_unix(), Some((1_483_228_799, 999_999_999)));
        assert!(timestamp_text(before, 9).unwrap() < timestamp_text(leap, 9).unwrap());
        assert_eq!(timestamp_text(leap, 3).unwrap(), "2016-12-31T23:59:59.999Z");
        assert_eq!(
            ttl_value(leap).unwrap(),
            AttributeValue::N("1483228799".into())
        );
    }

    #[test]
    fn an_entity_with_a_chrono_ttl_through_a_mapper() {
        type M = ExpiringMapper<DateTime<Utc>>;
        let expires_at: DateTime<Utc> = "2024-02-14T10:30:00.750Z".parse().unwrap();
        let e = Expiring {
            id: "E1".into(),
            expires_at,
            delete_at: Some("2025-01-01T00:00:00Z".parse().unwrap()),
        };
        let item = M::to_item(&e).unwrap();
        assert_eq!(item.get_number::<u64>("expiresAt").unwrap(), 1_707_906_600);
        assert_eq!(item.get_number::<u64>("deleteAt").unwrap(), 1_735_689_600);
        let read = M::from_item(item).unwrap();
        assert_eq!(read.expires_at, expires_at.with_nanosecond(0).unwrap());
        assert_eq!(read.delete_at, e.delete_at);

        let early = Expiring {
            expires_at: "1969-07-20T20:17:40Z".parse().unwrap(),
            ..e
        };
        let err = M::to_item(&early).unwrap_err();
        assert_eq!(err.attribute(), Some("expiresAt"));
        assert_eq!(
            format!("{err:#}"),
            "Expiring: cannot serialize attribute `expiresAt`: is before the unix epoch"
        );
    }

    use chrono::Timelike;
}

// -------------------------------------------------------------------- time

#[cfg(feature = "time")]
mod time_types {
    use time::{OffsetDateTime, UtcDateTime, UtcOffset};

    use super::*;

    proptest! {
        #[test]
        fn round_trips(secs in MIN_KEY_SECS..=MAX_KEY_SECS, nanos in 0u32..1_000_000_000) {
            check_round_trip::<OffsetDateTime>(secs, nanos)?;
            check_round_trip::<UtcDateTime>(secs, nanos)?;
        }

        #[test]
        fn ttls(secs in 0..=MAX_KEY_SECS, nanos in 0u32..1_000_000_000) {
            check_ttl::<OffsetDateTime>(secs, nanos)?;
            check_ttl::<UtcDateTime>(secs, nanos)?;
        }

        #[test]
        fn offsets_are_not_stored(secs in MIN_KEY_SECS + 86_400..=MAX_KEY_SECS - 86_400, offset in -86_399i32..86_400) {
            let utc: OffsetDateTime = at(secs, 0);
            let zoned = utc.to_offset(UtcOffset::from_whole_seconds(offset).unwrap());
            prop_assert_eq!(zoned.to_unix(), Some((secs, 0)));
            let back = OffsetDateTime::from_unix(secs, 0).unwrap();
            prop_assert_eq!(back.offset(), UtcOffset::UTC);
            prop_assert_eq!(back, zoned);
        }
    }

    #[test]
    fn epoch_and_the_nanosecond_before() {
        let epoch = OffsetDateTime::UNIX_EPOCH;
        assert_eq!(epoch.to_unix(), Some((0, 0)));
        assert_eq!(ttl_value(epoch).unwrap(), AttributeValue::N("0".into()));
        let before = epoch - time::Duration::nanoseconds(1);
        assert_eq!(before.to_unix(), Some((-1, 999_999_999)));
        assert!(ttl_value(before).is_err());
        assert_eq!(
            timestamp_text(before, 9).unwrap(),
            "1969-12-31T23:59:59.999999999Z"
        );
    }

    /// `time` holds the years -9999 to 9999: the last TTL reads back, and a
    /// time past `time`'s range is an error on read.
    #[test]
    fn the_edges_of_the_range() {
        let last = OffsetDateTime::from_unix(MAX_KEY_SECS, 999_999_999).unwrap();
        assert_eq!(
            ttl_value(last).unwrap(),
            AttributeValue::N("253402300799".into())
        );
        assert_eq!(timestamp_text(last, 0).unwrap(), "9999-12-31T23:59:59Z");
        assert_eq!(OffsetDateTime::from_unix(MAX_KEY_SECS + 1, 0), None);
        assert_eq!(UtcDateTime::from_unix(i64::MIN, 0), None);
        let item = Item::from([("ttl".to_string(), AttributeValue::N("253402300800".into()))]);
        let err = item.get_ttl_as::<OffsetDateTime>("ttl").unwrap_err();
        assert_eq!(
            err.to_string(),
            "attribute `ttl` is 253402300800, too far in the future for a time"
        );
        // Year 10000 in a key is not a key of ours; nor in a `SystemTime`.
        let item = item_with_ttl(AttributeValue::N("253402300800".into()));
        assert!(ExpiringMapper::<OffsetDateTime>::from_item(item).is_err());
    }

    #[test]
    fn an_entity_with_a_time_ttl_through_a_mapper() {
        type M = ExpiringMapper<OffsetDateTime>;
        let expires_at = OffsetDateTime::from_unix_timestamp(1_707_906_600)
            .unwrap()
            .to_offset(UtcOffset::from_hms(5, 30, 0).unwrap());
        let e = Expiring {
            id: "E1".into(),
            expires_at: expires_at + time::Duration::milliseconds(250),
            delete_at: None,
        };
        let item = M::to_item(&e).unwrap();
        assert_eq!(item.get_number::<u64>("expiresAt").unwrap(), 1_707_906_600);
        assert!(!item.contains_key("deleteAt"));
        let read = M::from_item(item).unwrap();
        assert_eq!(read.expires_at, expires_at);
        assert_eq!(read.expires_at.offset(), UtcOffset::UTC);
    }
}

// -------------------------------------------------------- jiff 1 and 0.2

/// The same tests for both major versions of jiff (their types differ only
/// in the zoned type's name).
macro_rules! jiff_tests {
    ($module:ident, $feature:literal, $jiff:ident, $zoned:ident) => {
        #[cfg(feature = $feature)]
        mod $module {
            use $jiff::tz::{Offset, TimeZone};
            use $jiff::{$zoned, Timestamp};

            use super::*;

            proptest! {
                #[test]
                fn round_trips(secs in MIN_KEY_SECS..=MAX_KEY_SECS, nanos in 0u32..1_000_000_000) {
                    // jiff's latest instant is 9999-12-30T22:00:00.999999999Z.
                    prop_assume!((secs, nanos) <= Timestamp::MAX.to_unix().unwrap());
                    check_round_trip::<Timestamp>(secs, nanos)?;
                    let t: Timestamp = at(secs, nanos);
                    let zoned: $zoned = at(secs, nanos);
                    prop_assert_eq!(zoned.timestamp(), t);
                    prop_assert_eq!(zoned.time_zone(), &TimeZone::UTC);
                    prop_assert_eq!(
                        timestamp_text(zoned.clone(), 9).unwrap(),
                        timestamp_text(t, 9).unwrap()
                    );
                    let back: $zoned = time_from_text(&timestamp_text(t, 9).unwrap(), 9).unwrap();
                    prop_assert_eq!(back.timestamp(), t);
                }

                #[test]
                fn ttls(secs in 0..=MAX_KEY_SECS, nanos in 0u32..1_000_000_000) {
                    prop_assume!((secs, nanos) <= Timestamp::MAX.to_unix().unwrap());
                    check_ttl::<Timestamp>(secs, nanos)?;
                }

                /// jiff gives a time before the epoch negative nanoseconds;
                /// the crate's parts are floor seconds and positive nanos.
                #[test]
                fn negative_fractions_are_normalized(nanos in -999_999_999i128..0, secs in -1_000_000i64..0) {
                    let t = Timestamp::from_nanosecond(i128::from(secs) * 1_000_000_000 + nanos).unwrap();
                    let (s, n) = t.to_unix().unwrap();
                    prop_assert!(n < 1_000_000_000);
                    prop_assert_eq!(i128::from(s) * 1_000_000_000 + i128::from(n), t.as_nanosecond());
                    prop_assert_eq!(Timestamp::from_unix(s, n), Some(t));
                }

                #[test]
                fn zones_are_not_stored(secs in MIN_KEY_SECS + 86_400..=MAX_KEY_SECS - 86_400, hours in -25i8..=25) {
                    let t: Timestamp = at(secs, 0);
                    let zoned = $zoned::new(t, TimeZone::fixed(Offset::constant(hours)));
                    prop_assert_eq!(zoned.to_unix(), Some((secs, 0)));
                    let back = $zoned::from_unix(secs, 0).unwrap();
                    prop_assert_eq!(back.timestamp(), t);
                    prop_assert_eq!(back.time_zone(), &TimeZone::UTC);
                }
            }

            #[test]
            fn epoch_and_the_nanosecond_before() {
                assert_eq!(Timestamp::UNIX_EPOCH.to_unix(), Some((0, 0)));
                assert_eq!(ttl_value(Timestamp::UNIX_EPOCH).unwrap(), AttributeValue::N("0".into()));
                let before = Timestamp::new(0, -1).unwrap();
                assert_eq!(before.to_unix(), Some((-1, 999_999_999)));
                assert_eq!(
                    ttl_value(before).unwrap_err().to_string(),
                    "attribute `ttl` is before the unix epoch"
                );
                assert_eq!(timestamp_text(before, 1).unwrap(), "1969-12-31T23:59:59.9Z");
            }

            /// jiff ends 26 hours before the crate's range does: what lies
            /// between is an error when read, never a panic.
            #[test]
            fn the_last_day_of_9999_is_past_jiff() {
                assert_eq!(Timestamp::MAX.to_unix(), Some((253_402_207_200, 999_999_999)));
                assert_eq!(Timestamp::from_unix(MAX_KEY_SECS, 0), None);
                assert_eq!(Timestamp::MIN.to_unix(), Some((-377_705_023_201, 0)));
                assert_eq!(time_from_text::<Timestamp>("9999-12-31T23:59:59Z", 0), None);
                let parts = KeyPattern::sort("AT#{at:ts}").parse("AT#9999-12-31T23:59:59Z").unwrap();
                let err = parts.timestamp::<Timestamp>("at").unwrap_err();
                assert_eq!(err.kind(), ErrorKind::InvalidKeyPattern);
                assert_eq!(
                    err.to_string(),
                    "key pattern `AT#{at:ts}` placeholder `{at}` holds a timestamp, not a timestamp within the range of jiff::timestamp::Timestamp"
                );
                let item = Item::from([("ttl".to_string(), AttributeValue::N(MAX_TTL_SECONDS.to_string()))]);
                assert!(item.get_ttl_as::<Timestamp>("ttl").is_err());
                let item = item_with_ttl(AttributeValue::N(MAX_TTL_SECONDS.to_string()));
                let err = ExpiringMapper::<Timestamp>::from_item(item).unwrap_err();
                assert_eq!(err.attribute(), Some("expiresAt"));
                assert!(
                    format!("{err:#}").ends_with("is 253402300799, outside the range of jiff::timestamp::Timestamp"),
                    "{err:#}"
                );
            }

            #[test]
            fn an_entity_with_a_jiff_ttl_through_a_mapper() {
                type M = ExpiringMapper<$zoned>;
                let expires_at: Timestamp = "2024-02-14T10:30:00Z".parse().unwrap();
                let in_paris = $zoned::new(
                    Timestamp::new(1_707_906_600, 123_456_789).unwrap(),
                    TimeZone::fixed(Offset::constant(1)),
                );
                let e = Expiring { id: "E1".into(), expires_at: in_paris, delete_at: None };
                let item = M::to_item(&e).unwrap();
                assert_eq!(item.get_number::<u64>("expiresAt").unwrap(), 1_707_906_600);
                let read = M::from_item(item).unwrap();
                assert_eq!(read.expires_at.timestamp(), expires_at);
            }
        }
    };
}

jiff_tests!(jiff_1, "jiff", jiff, ZonedDateTime);
jiff_tests!(jiff_02_types, "jiff-02", jiff_02, Zoned);

// ------------------------------------------------- through the emulator

/// Writes an entity whose TTL is of type `T` with a plain `PutItem`, reads
/// it back with `GetItem` and decodes it.
async fn through_dynamodb<T>(client: &aws_sdk_dynamodb::Client, table: &str, id: &str, secs: i64)
where
    T: PointInTime + PartialEq + Debug + Clone + 'static,
{
    let e = Expiring {
        id: id.into(),
        expires_at: at::<T>(secs, 0),
        delete_at: Some(at::<T>(secs + 60, 0)),
    };
    let item = ExpiringMapper::<T>::to_item(&e).unwrap();
    client
        .put_item()
        .table_name(table)
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
    let got = client
        .get_item()
        .table_name(table)
        .set_key(Some(ExpiringMapper::<T>::key(&e).unwrap()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap_or_else(|| panic!("{id} was not found"));
    assert_eq!(
        got["expiresAt"],
        AttributeValue::N(secs.to_string()),
        "{id}"
    );
    assert_eq!(
        got.get_ttl_as::<T>("expiresAt").unwrap(),
        e.expires_at,
        "{id}"
    );
    assert_eq!(ExpiringMapper::<T>::from_item(got).unwrap(), e, "{id}");
}

/// Entities with a TTL of every enabled type, on a table whose TTL is
/// switched on: stored as epoch seconds and read back.
#[tokio::test]
async fn ttl_entities_through_dynamodb() {
    use aws_sdk_dynamodb::types::TimeToLiveSpecification;

    let (client, table) = dynamodb_mapper_support::local::client_and_table("ttl", TABLE).await;
    client
        .update_time_to_live()
        .table_name(&table)
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .enabled(true)
                .attribute_name("expiresAt")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    // A day from now: nothing expires while the test runs.
    let now = SystemTime::now().to_unix().unwrap().0;
    let secs = now + 86_400;
    through_dynamodb::<SystemTime>(&client, &table, "std", secs).await;
    #[cfg(feature = "chrono")]
    through_dynamodb::<chrono::DateTime<chrono::Utc>>(&client, &table, "chrono", secs).await;
    #[cfg(feature = "time")]
    through_dynamodb::<time::OffsetDateTime>(&client, &table, "time", secs).await;
    #[cfg(feature = "jiff")]
    through_dynamodb::<jiff::Timestamp>(&client, &table, "jiff", secs).await;
    #[cfg(feature = "jiff-02")]
    through_dynamodb::<jiff_02::Zoned>(&client, &table, "jiff-02", secs).await;
}
