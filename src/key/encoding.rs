//! `Encoding` and the order-preserving encodings of key components
//! (zero-padded unsigned, signed, RFC 3339 timestamps): `Encoding::encode`
//! and `Encoding::decode`, and the timestamp functions the crate's
//! `createdAt`/`updatedAt` stamps share. Builds on `key_value`; the patterns use
//! it.

use std::borrow::Cow;
use std::fmt;
use std::time::SystemTime;

use super::key_value::KeyValue;
use crate::error::{Error, Result};
use crate::time::PointInTime;

/// How a key component is encoded.
///
/// In key patterns: `{name}` is [`Text`](Encoding::Text), `{name:u3}`
/// [`Unsigned`](Encoding::Unsigned) of width 3, `{name:i5}`
/// [`Signed`](Encoding::Signed) of width 5, `{name:ts3}`
/// [`Timestamp`](Encoding::Timestamp) with 3 fraction digits (`{name:ts}` is
/// `ts0`).
///
/// A pattern's placeholder turns one [`KeyValue`] into component text and
/// back with its encoding. The text of one encoding sorts as the values do. A time of any
/// [`PointInTime`] type goes in through [`KeyValue::from_time`] and comes
/// back through [`KeyValue::Timestamp`] (a `SystemTime`, which
/// [`PointInTime::to_unix`] and [`PointInTime::from_unix`] turn into any
/// other type).
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use dynamodb_mapper::KeyPattern;
/// use dynamodb_mapper::key::{Encoding, KeyValue};
/// use dynamodb_mapper::time::PointInTime;
///
/// // `{n:u3}`: unsigned, three digits.
/// const N: KeyPattern = KeyPattern::sort("N#{n:u3}");
/// assert_eq!(N.with("n", KeyValue::Unsigned(42)).render()?, "N#042");
/// assert_eq!(N.parse("N#042")?.get("n"), Some(&KeyValue::Unsigned(42)));
/// assert_eq!(Encoding::Unsigned { width: 3 }.to_string(), "u3");
///
/// // `{d:i3}`: `N` and the complement below zero, `P` from zero up: string
/// // order is numeric order.
/// const D: KeyPattern = KeyPattern::sort("{d:i3}");
/// let [a, b, c] = [-42, -1, 0].map(|v| D.with("d", KeyValue::Signed(v)).render());
/// let (a, b, c) = (a?, b?, c?);
/// assert_eq!(a, "N958");
/// assert!(a < b && b < c);
///
/// // `{t:ts3}`: RFC 3339 UTC with a fixed number of fraction digits, truncated.
/// const T: KeyPattern = KeyPattern::sort("{t:ts3}");
/// let t = UNIX_EPOCH + Duration::from_nanos(1_705_314_600_123_999_999);
/// assert_eq!(T.with("t", KeyValue::from_time(t)?).render()?, "2024-01-15T10:30:00.123Z");
/// let parts = T.parse("1969-12-31T23:59:59.500Z")?;
/// let Some(KeyValue::Timestamp(back)) = parts.get("t") else { panic!() };
/// assert_eq!(back.to_unix(), Some((-1, 500_000_000)));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Text as given (escaped by the key format); must not be empty.
    Text,
    /// A non-negative integer, zero-padded to exactly `width` digits (1 to 20).
    Unsigned {
        /// Number of digits.
        width: u8,
    },
    /// A signed integer as `N` or `P` and exactly `width` digits (1 to 19):
    /// `P` and the value for zero and above, `N` and `10^width + value` below
    /// zero, so string order is numeric order.
    Signed {
        /// Number of digits after the sign letter.
        width: u8,
    },
    /// An RFC 3339 UTC timestamp, `YYYY-MM-DDTHH:MM:SS[.fff]Z`, with exactly
    /// `fraction_digits` (0 to 9) digits of fraction (truncated), years 0000
    /// to 9999.
    Timestamp {
        /// Digits after the decimal point of the seconds; 0 leaves out the point.
        fraction_digits: u8,
    },
}

impl fmt::Display for Encoding {
    /// The pattern spelling: `text`, `u3`, `i5`, `ts3`.
    ///
    /// ```
    /// use dynamodb_mapper::key::Encoding;
    /// assert_eq!(Encoding::Timestamp { fraction_digits: 3 }.to_string(), "ts3");
    /// assert_eq!(Encoding::Text.to_string(), "text");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Encoding::Text => f.write_str("text"),
            Encoding::Unsigned { width } => write!(f, "u{width}"),
            Encoding::Signed { width } => write!(f, "i{width}"),
            Encoding::Timestamp { fraction_digits } => write!(f, "ts{fraction_digits}"),
        }
    }
}

const COMPONENT: &str = "(key component)";

impl Encoding {
    /// The encoded text; a text value is borrowed, not copied.
    pub(super) fn encode_reason<'v>(
        &self,
        value: &'v KeyValue<'_>,
    ) -> std::result::Result<Cow<'v, str>, String> {
        let text = match *self {
            Encoding::Text => match value {
                KeyValue::Text(t) if t.is_empty() => Err("is empty".to_owned()),
                KeyValue::Text(t) => return Ok(Cow::Borrowed(t)),
                KeyValue::Unsigned(v) => Ok(v.to_string()),
                KeyValue::Signed(v) => Ok(v.to_string()),
                KeyValue::Timestamp(_) => Err(
                    "is a timestamp; give the placeholder a timestamp encoding such as `ts3`"
                        .to_owned(),
                ),
            },
            Encoding::Unsigned { width } => {
                let v = match value {
                    KeyValue::Unsigned(v) => *v,
                    KeyValue::Signed(v) => u64::try_from(*v).map_err(|_| {
                        format!("{v} is negative; an unsigned encoding cannot hold it")
                    })?,
                    other => return Err(format!("is {}, expected an integer", other.describe())),
                };
                unsigned(v, width)
            }
            Encoding::Signed { width } => {
                let v = match value {
                    KeyValue::Signed(v) => *v,
                    KeyValue::Unsigned(v) => i64::try_from(*v)
                        .map_err(|_| format!("{v} is too large for a signed encoding"))?,
                    other => return Err(format!("is {}, expected an integer", other.describe())),
                };
                signed(v, width)
            }
            Encoding::Timestamp { fraction_digits } => match value {
                KeyValue::Timestamp(t) => {
                    let (secs, nanos) = unix_parts(t)?;
                    timestamp(secs, nanos, fraction_digits)
                }
                other => Err(format!("is {}, expected a timestamp", other.describe())),
            },
        };
        text.map(Cow::Owned)
    }

    pub(super) fn decode_reason<'t>(
        &self,
        text: &'t str,
    ) -> std::result::Result<KeyValue<'t>, String> {
        match *self {
            Encoding::Text if text.is_empty() => Err("is empty".to_owned()),
            Encoding::Text => Ok(KeyValue::Text(Cow::Borrowed(text))),
            Encoding::Unsigned { width } => parse_unsigned(text, width).map(KeyValue::Unsigned),
            Encoding::Signed { width } => parse_signed(text, width).map(KeyValue::Signed),
            Encoding::Timestamp { fraction_digits } => {
                let (secs, nanos) = parse_timestamp(text, fraction_digits)?;
                from_unix(secs, nanos).map(KeyValue::Timestamp)
            }
        }
    }
}

fn digits_of(v: u128) -> u32 {
    v.checked_ilog10().map_or(1, |d| d + 1)
}

fn unsigned(v: u64, width: u8) -> std::result::Result<String, String> {
    if !(1..=20).contains(&width) {
        return Err(format!("width {width} is out of range 1 to 20"));
    }
    let needed = digits_of(u128::from(v));
    if needed > u32::from(width) {
        return Err(format!(
            "{v} needs {needed} digits, more than the width of {width}"
        ));
    }
    Ok(format!("{v:0w$}", w = usize::from(width)))
}

fn parse_unsigned(text: &str, width: u8) -> std::result::Result<u64, String> {
    if !(1..=20).contains(&width) {
        return Err(format!("width {width} is out of range 1 to 20"));
    }
    if text.len() != usize::from(width) || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{text:?} is not exactly {width} digits"));
    }
    text.parse::<u64>()
        .map_err(|_| format!("{text:?} is larger than the largest unsigned 64-bit integer"))
}

fn signed(v: i64, width: u8) -> std::result::Result<String, String> {
    if !(1..=19).contains(&width) {
        return Err(format!("width {width} is out of range 1 to 19"));
    }
    let limit = 10i128.pow(u32::from(width));
    let value = i128::from(v);
    let needed = digits_of(value.unsigned_abs());
    if value.abs() >= limit {
        return Err(format!(
            "{v} needs {needed} digits, more than the width of {width}"
        ));
    }
    let w = usize::from(width);
    Ok(if value < 0 {
        format!("N{:0w$}", limit + value)
    } else {
        format!("P{value:0w$}")
    })
}

fn parse_signed(text: &str, width: u8) -> std::result::Result<i64, String> {
    if !(1..=19).contains(&width) {
        return Err(format!("width {width} is out of range 1 to 19"));
    }
    let bad = || format!("{text:?} is not `N` or `P` followed by exactly {width} digits");
    let (negative, digits) = if let Some(d) = text.strip_prefix('N') {
        (true, d)
    } else if let Some(d) = text.strip_prefix('P') {
        (false, d)
    } else {
        return Err(bad());
    };
    if digits.len() != usize::from(width) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n: i128 = digits.parse().map_err(|_| bad())?;
    let value = if negative {
        if n == 0 {
            return Err(format!(
                "{text:?} is out of range: the smallest value of width {width} is N{:0>w$}",
                1,
                w = usize::from(width)
            ));
        }
        n - 10i128.pow(u32::from(width))
    } else {
        n
    };
    i64::try_from(value).map_err(|_| format!("{text:?} is outside the range of a 64-bit integer"))
}

/// 0000-01-01T00:00:00Z in unix seconds.
const MIN_UNIX_SECS: i64 = -62_167_219_200;
/// 9999-12-31T23:59:59Z in unix seconds.
const MAX_UNIX_SECS: i64 = 253_402_300_799;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // day is 1..=31 and month 1..=12 by construction.
    (year, month as u32, day as u32)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 31,
    }
}

fn unix_parts(t: &impl PointInTime) -> std::result::Result<(i64, u32), String> {
    t.to_unix()
        .ok_or_else(|| "is outside the years 0000 to 9999".to_owned())
}

fn from_unix<T: PointInTime>(secs: i64, nanos: u32) -> std::result::Result<T, String> {
    T::from_unix(secs, nanos)
        .ok_or_else(|| format!("is outside the range of {}", std::any::type_name::<T>()))
}

fn timestamp_example(fraction_digits: u8) -> String {
    let mut s = "2024-01-15T10:30:00".to_owned();
    if fraction_digits > 0 {
        s.push('.');
        s.extend(std::iter::repeat_n('0', usize::from(fraction_digits)));
    }
    s.push('Z');
    s
}

fn timestamp(secs: i64, nanos: u32, fraction_digits: u8) -> std::result::Result<String, String> {
    if fraction_digits > 9 {
        return Err(format!(
            "fraction digits {fraction_digits} is out of range 0 to 9"
        ));
    }
    if nanos >= 1_000_000_000 {
        return Err(format!("nanoseconds {nanos} is not below 1000000000"));
    }
    if !(MIN_UNIX_SECS..=MAX_UNIX_SECS).contains(&secs) {
        return Err(format!(
            "{secs} seconds from the unix epoch is outside the years 0000 to 9999"
        ));
    }
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    let mut s = format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    );
    if fraction_digits > 0 {
        let fraction = format!("{nanos:09}");
        s.push('.');
        s.push_str(
            fraction
                .get(..usize::from(fraction_digits))
                .unwrap_or(&fraction),
        );
    }
    s.push('Z');
    Ok(s)
}

fn number(bytes: &[u8], from: usize, to: usize) -> Option<u32> {
    let digits = bytes.get(from..to)?;
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        digits
            .iter()
            .fold(0u32, |n, d| n * 10 + u32::from(d - b'0')),
    )
}

fn parse_timestamp(text: &str, fraction_digits: u8) -> std::result::Result<(i64, u32), String> {
    if fraction_digits > 9 {
        return Err(format!(
            "fraction digits {fraction_digits} is out of range 0 to 9"
        ));
    }
    let bad = || {
        format!(
            "{text:?} is not an RFC 3339 UTC timestamp with {fraction_digits} fraction digits (like {})",
            timestamp_example(fraction_digits)
        )
    };
    let b = text.as_bytes();
    let fd = usize::from(fraction_digits);
    let len = if fd > 0 { 21 + fd } else { 20 };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    if b.len() != len
        || !at(4, b'-')
        || !at(7, b'-')
        || !at(10, b'T')
        || !at(13, b':')
        || !at(16, b':')
        || !at(len - 1, b'Z')
        || (fd > 0 && !at(19, b'.'))
    {
        return Err(bad());
    }
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        number(b, 0, 4),
        number(b, 5, 7),
        number(b, 8, 10),
        number(b, 11, 13),
        number(b, 14, 16),
        number(b, 17, 19),
    ) else {
        return Err(bad());
    };
    let fraction = if fd > 0 {
        number(b, 20, 20 + fd).ok_or_else(bad)?
    } else {
        0
    };
    let year = i64::from(year);
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return Err(format!("{text:?} is not a valid date"));
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!("{text:?} is not a valid time of day"));
    }
    let secs = days_from_civil(year, month, day) * 86_400
        + i64::from(hour) * 3600
        + i64::from(minute) * 60
        + i64::from(second);
    let nanos = fraction * 10u32.pow(9 - u32::from(fraction_digits));
    Ok((secs, nanos))
}

// The crate's own timestamps outside keys (`hooks::Timestamps`, a mapper's
// fields read as key components) use the key encoding through these; the
// public way is `Encoding::Timestamp { .. }` with a `KeyValue`.

/// `time` as [`Encoding::Timestamp`] text with `fraction_digits` digits.
///
/// # Errors
/// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) (attribute `(key
/// component)`) when `time` is outside the years 0000 to 9999 or
/// `fraction_digits` is above 9.
pub(crate) fn encode_timestamp(time: impl PointInTime, fraction_digits: u8) -> Result<String> {
    unix_parts(&time)
        .and_then(|(secs, nanos)| timestamp(secs, nanos, fraction_digits))
        .map_err(|reason| Error::invalid_key(COMPONENT, reason))
}

/// Decodes [`encode_timestamp`]'s output into a [`SystemTime`].
///
/// # Errors
/// As [`decode_unix_timestamp`], and when a `SystemTime` cannot hold the
/// time.
pub(crate) fn decode_timestamp(text: &str, fraction_digits: u8) -> Result<SystemTime> {
    let (secs, nanos) = decode_unix_timestamp(text, fraction_digits)?;
    from_unix(secs, nanos).map_err(|reason| Error::invalid_key(COMPONENT, reason))
}

/// Decodes [`encode_timestamp`]'s output into unix seconds and nanoseconds.
///
/// # Errors
/// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) (attribute `(key
/// component)`) when `text` is not exactly that format, or is not a valid date
/// and time.
pub(crate) fn decode_unix_timestamp(text: &str, fraction_digits: u8) -> Result<(i64, u32)> {
    parse_timestamp(text, fraction_digits).map_err(|reason| Error::invalid_key(COMPONENT, reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_conversions_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(0, 1, 1) * 86_400, MIN_UNIX_SECS);
        assert_eq!(
            days_from_civil(9999, 12, 31) * 86_400 + 86_399,
            MAX_UNIX_SECS
        );
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        for days in [-719_528, -1, 0, 1, 11_016, 11_017, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn timestamp_edges() {
        assert_eq!(
            timestamp(MIN_UNIX_SECS, 0, 0).unwrap(),
            "0000-01-01T00:00:00Z"
        );
        assert_eq!(
            timestamp(MAX_UNIX_SECS, 999_999_999, 9).unwrap(),
            "9999-12-31T23:59:59.999999999Z"
        );
        assert!(timestamp(MAX_UNIX_SECS + 1, 0, 0).is_err());
        assert!(timestamp(MIN_UNIX_SECS - 1, 0, 0).is_err());
        assert_eq!(
            parse_timestamp("0000-01-01T00:00:00Z", 0).unwrap(),
            (MIN_UNIX_SECS, 0)
        );
        assert_eq!(
            parse_timestamp("2000-02-29T12:00:00.5Z", 1).unwrap(),
            (951_825_600, 500_000_000)
        );
        assert!(parse_timestamp("1900-02-29T12:00:00Z", 0).is_err());
        assert!(parse_timestamp("2024-01-15T24:00:00Z", 0).is_err());
        assert!(parse_timestamp("2024-01-15T10:30:00.12Z", 3).is_err());
        assert!(parse_timestamp("2024-01-15 10:30:00Z", 0).is_err());
        assert!(parse_timestamp("2024-01-15T10:30:00", 0).is_err());
        assert!(parse_timestamp("+024-01-15T10:30:00Z", 0).is_err());
    }

    #[test]
    fn signed_edges() {
        assert_eq!(signed(i64::MIN, 19).unwrap(), "N0776627963145224192");
        assert_eq!(parse_signed("N0776627963145224192", 19).unwrap(), i64::MIN);
        assert_eq!(signed(i64::MAX, 19).unwrap(), "P9223372036854775807");
        assert!(parse_signed("P9999999999999999999", 19).is_err());
        assert!(parse_signed("N000", 3).is_err());
        assert_eq!(signed(-999, 3).unwrap(), "N001");
        assert!(signed(-1000, 3).is_err());
        assert!(signed(1, 0).is_err());
        assert!(signed(1, 20).is_err());
    }

    #[test]
    fn unsigned_edges() {
        assert_eq!(unsigned(u64::MAX, 20).unwrap(), "18446744073709551615");
        assert!(parse_unsigned("99999999999999999999", 20).is_err());
        assert_eq!(unsigned(0, 1).unwrap(), "0");
        assert!(unsigned(10, 1).is_err());
        assert!(unsigned(1, 21).is_err());
    }
}
