//! The sortable encodings, exactly: what each writes and reads back, the
//! errors at their edges, and order kept (property tests). Key patterns
//! reach them through placeholders (`tests/keys.rs`).

use std::borrow::Cow;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use proptest::prelude::*;

use super::{Encoding, KeyValue};
use crate::KeyPattern;
use crate::error::Error;
use crate::time::PointInTime;

const fn unsigned(width: u8) -> Encoding {
    Encoding::Unsigned { width }
}

const fn signed(width: u8) -> Encoding {
    Encoding::Signed { width }
}

const fn timestamp(fraction_digits: u8) -> Encoding {
    Encoding::Timestamp { fraction_digits }
}

/// The time `secs` seconds and `nanos` nanoseconds from the epoch.
fn at(secs: i64, nanos: u32) -> KeyValue<'static> {
    KeyValue::Timestamp(SystemTime::from_unix(secs, nanos).unwrap())
}

/// A decoded time as seconds and nanoseconds from the epoch.
fn unix(value: KeyValue<'_>) -> (i64, u32) {
    match value {
        KeyValue::Timestamp(t) => t.to_unix(),
        _ => None,
    }
    .unwrap_or_else(|| panic!("{value:?}"))
}

fn encode(encoding: Encoding, value: impl Into<KeyValue<'static>>) -> String {
    encoding.encode(&value.into()).unwrap()
}

fn encode_err(encoding: Encoding, value: impl Into<KeyValue<'static>>) -> String {
    encoding.encode(&value.into()).unwrap_err().to_string()
}

fn decode_err(encoding: Encoding, text: &str) -> String {
    encoding.decode(text).unwrap_err().to_string()
}

#[test]
fn encodings_exact_outputs() {
    assert_eq!(encode(unsigned(3), 0u64), "000");
    assert_eq!(encode(unsigned(3), 999u64), "999");
    assert_eq!(encode(unsigned(20), u64::MAX), "18446744073709551615");
    assert_eq!(unsigned(3).decode("042").unwrap(), KeyValue::Unsigned(42));

    assert_eq!(encode(signed(2), 0i64), "P00");
    assert_eq!(encode(signed(2), 99i64), "P99");
    assert_eq!(encode(signed(2), -1i64), "N99");
    assert_eq!(encode(signed(2), -99i64), "N01");
    assert_eq!(signed(2).decode("N01").unwrap(), KeyValue::Signed(-99));

    let t = UNIX_EPOCH + Duration::new(1_705_314_600, 123_456_789);
    assert_eq!(encode(timestamp(0), t), "2024-01-15T10:30:00Z");
    assert_eq!(encode(timestamp(3), t), "2024-01-15T10:30:00.123Z");
    assert_eq!(encode(timestamp(9), t), "2024-01-15T10:30:00.123456789Z");
    assert_eq!(
        timestamp(3).decode("2024-01-15T10:30:00.123Z").unwrap(),
        KeyValue::Timestamp(UNIX_EPOCH + Duration::from_millis(1_705_314_600_123))
    );
    // Before 1970 and the edges of the four-digit years.
    assert_eq!(encode(timestamp(0), at(-1, 0)), "1969-12-31T23:59:59Z");
    assert_eq!(
        encode(timestamp(0), at(-62_167_219_200, 0)),
        "0000-01-01T00:00:00Z"
    );
    assert_eq!(
        encode(timestamp(3), at(253_402_300_799, 999_999_999)),
        "9999-12-31T23:59:59.999Z"
    );
    assert_eq!(
        unix(timestamp(1).decode("1600-02-29T23:59:59.9Z").unwrap()),
        (-11_670_912_001, 900_000_000)
    );
    assert_eq!(
        encode(timestamp(1), at(-11_670_912_001, 900_000_000)),
        "1600-02-29T23:59:59.9Z"
    );
    // The errors at the edges, each as the message says it.
    for (got, want) in [
        (
            encode_err(unsigned(3), 1000u64),
            "key attribute `(key component)` 1000 needs 4 digits, more than the width of 3",
        ),
        (
            encode_err(unsigned(0), 1u64),
            "key attribute `(key component)` width 0 is out of range 1 to 20",
        ),
        (
            decode_err(unsigned(3), "04a"),
            "key attribute `(key component)` \"04a\" is not exactly 3 digits",
        ),
        (
            encode_err(signed(2), -100i64),
            "key attribute `(key component)` -100 needs 3 digits, more than the width of 2",
        ),
        (
            decode_err(signed(2), "N00"),
            "key attribute `(key component)` \"N00\" is out of range: the smallest value of width 2 is N01",
        ),
        (
            decode_err(signed(2), "+01"),
            "key attribute `(key component)` \"+01\" is not `N` or `P` followed by exactly 2 digits",
        ),
        (
            decode_err(timestamp(3), "2024-01-15T10:30:00Z"),
            "key attribute `(key component)` \"2024-01-15T10:30:00Z\" is not an RFC 3339 UTC timestamp with 3 fraction digits (like 2024-01-15T10:30:00.000Z)",
        ),
        (
            decode_err(timestamp(0), "2023-02-29T00:00:00Z"),
            "key attribute `(key component)` \"2023-02-29T00:00:00Z\" is not a valid date",
        ),
        (
            encode_err(timestamp(10), t),
            "key attribute `(key component)` fraction digits 10 is out of range 0 to 9",
        ),
        (
            encode_err(timestamp(0), at(253_402_300_800, 0)),
            "key attribute `(key component)` 253402300800 seconds from the unix epoch is outside the years 0000 to 9999",
        ),
    ] {
        assert_eq!(got, want);
    }
}

#[test]
fn encoding_values_convert_only_when_they_fit() {
    let u3 = Encoding::Unsigned { width: 3 };
    assert_eq!(u3.encode(&KeyValue::Signed(5)).unwrap(), "005");
    assert_eq!(
        u3.encode(&KeyValue::Signed(-5)).unwrap_err().to_string(),
        "key attribute `(key component)` -5 is negative; an unsigned encoding cannot hold it"
    );
    assert_eq!(
        u3.encode(&KeyValue::from("5")).unwrap_err().to_string(),
        "key attribute `(key component)` is text \"5\", expected an integer"
    );
    let i3 = Encoding::Signed { width: 3 };
    assert_eq!(
        i3.encode(&KeyValue::Unsigned(u64::MAX))
            .unwrap_err()
            .to_string(),
        "key attribute `(key component)` 18446744073709551615 is too large for a signed encoding"
    );
    assert_eq!(
        Encoding::Text
            .encode(&KeyValue::Timestamp(UNIX_EPOCH))
            .unwrap_err()
            .to_string(),
        "key attribute `(key component)` is a timestamp; give the placeholder a timestamp encoding such as `ts3`"
    );
    assert_eq!(Encoding::Text.encode(&KeyValue::Signed(-7)).unwrap(), "-7");
    assert_eq!(
        Encoding::Timestamp { fraction_digits: 0 }
            .decode("1970-01-01T00:00:00Z")
            .unwrap(),
        KeyValue::Timestamp(UNIX_EPOCH)
    );
}

fn time_in_range() -> impl Strategy<Value = (i64, u32)> {
    (-62_167_219_200i64..=253_402_300_799, 0u32..1_000_000_000)
}

proptest! {
    #[test]
    fn unsigned_order_is_numeric_order(a in any::<u64>(), b in any::<u64>()) {
        let (ea, eb) = (encode(unsigned(20), a), encode(unsigned(20), b));
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
        prop_assert_eq!(unsigned(20).decode(&ea).unwrap(), KeyValue::Unsigned(a));
    }

    #[test]
    fn narrow_unsigned_order_is_numeric_order(a in 0u64..1000, b in 0u64..1000) {
        let (ea, eb) = (encode(unsigned(3), a), encode(unsigned(3), b));
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
        prop_assert_eq!(unsigned(3).decode(&ea).unwrap(), KeyValue::Unsigned(a));
    }

    #[test]
    fn signed_order_is_numeric_order(a in any::<i64>(), b in any::<i64>()) {
        let (ea, eb) = (encode(signed(19), a), encode(signed(19), b));
        prop_assert_eq!(ea.len(), 20);
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
        prop_assert_eq!(signed(19).decode(&ea).unwrap(), KeyValue::Signed(a));
    }

    #[test]
    fn narrow_signed_order_is_numeric_order(a in -999i64..=999, b in -999i64..=999) {
        let (ea, eb) = (encode(signed(3), a), encode(signed(3), b));
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
        prop_assert_eq!(signed(3).decode(&ea).unwrap(), KeyValue::Signed(a));
    }

    #[test]
    fn timestamp_order_is_time_order(a in time_in_range(), b in time_in_range(), digits in 0u8..=9) {
        let (ea, eb) = (
            encode(timestamp(digits), at(a.0, a.1)),
            encode(timestamp(digits), at(b.0, b.1)),
        );
        prop_assert_eq!(ea.len(), if digits == 0 { 20 } else { 21 + usize::from(digits) });
        // The fraction is truncated to `digits`: compare the truncated times.
        let unit = 10u32.pow(9 - u32::from(digits));
        let (ta, tb) = ((a.0, a.1 / unit * unit), (b.0, b.1 / unit * unit));
        prop_assert_eq!(ea.cmp(&eb), ta.cmp(&tb));
        prop_assert_eq!(unix(timestamp(digits).decode(&ea).unwrap()), ta);
    }

    #[test]
    fn system_times_round_trip(secs in -62_167_219_200i64..=253_402_300_799, nanos in 0u32..1_000_000_000) {
        let t = if secs >= 0 {
            UNIX_EPOCH + Duration::new(secs as u64, nanos)
        } else {
            UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs()) + Duration::from_nanos(u64::from(nanos))
        };
        let text = encode(timestamp(9), t);
        prop_assert_eq!(&text, &encode(timestamp(9), at(secs, nanos)));
        prop_assert_eq!(timestamp(9).decode(&text).unwrap(), KeyValue::Timestamp(t));
    }
}

#[test]
fn times_outside_four_digit_years_are_errors() {
    let before_year_0 = UNIX_EPOCH - Duration::from_secs(62_167_219_201);
    assert_eq!(
        encode_err(timestamp(0), before_year_0),
        "key attribute `(key component)` -62167219201 seconds from the unix epoch is outside the years 0000 to 9999"
    );
    let far: SystemTime = UNIX_EPOCH + Duration::from_secs(253_402_300_800);
    assert!(timestamp(0).encode(&KeyValue::from(far)).is_err());
    assert!(
        KeyPattern::sort("AT#{at:ts}")
            .with("at", far)
            .render()
            .is_err()
    );
}

impl Encoding {
    fn encode(&self, value: &KeyValue<'_>) -> crate::Result<String> {
        self.encode_reason(value)
            .map(Cow::into_owned)
            .map_err(|reason| Error::invalid_key("(key component)", reason))
    }

    fn decode(&self, text: &str) -> crate::Result<KeyValue<'static>> {
        self.decode_reason(text)
            .map(KeyValue::into_owned)
            .map_err(|reason| Error::invalid_key("(key component)", reason))
    }
}
