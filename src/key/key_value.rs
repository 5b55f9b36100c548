//! `KeyValue`, the value of one key component (text, an integer or a point
//! in time) and its conversions. Uses nothing else in `key` (of the crate,
//! `error` and `time`); `encoding` turns these values into key text and back.

use std::borrow::Cow;
use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::time::PointInTime;

/// A value for a key component: text, an integer or a point in time.
///
/// Converts from strings, integers and [`SystemTime`], so
/// [`KeyPattern::with`](super::KeyPattern::with) takes them directly.
/// [`KeyPattern::parse`](super::KeyPattern::parse) returns values of the type
/// each placeholder declares.
///
/// ```
/// use dynamodb_mapper::key::KeyValue;
///
/// assert_eq!(KeyValue::from("C1"), KeyValue::Text("C1".into()));
/// assert_eq!(KeyValue::from(7u32), KeyValue::Unsigned(7));
/// assert_eq!(KeyValue::from(-3), KeyValue::Signed(-3));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeyValue<'a> {
    /// Text, escaped when rendered.
    Text(Cow<'a, str>),
    /// A non-negative integer.
    Unsigned(u64),
    /// A signed integer.
    Signed(i64),
    /// A point in time.
    Timestamp(SystemTime),
}

impl KeyValue<'_> {
    /// The integer, for a [`KeyValue::Unsigned`] (or a non-negative
    /// [`KeyValue::Signed`]).
    #[must_use]
    pub(crate) fn as_unsigned(&self) -> Option<u64> {
        match *self {
            KeyValue::Unsigned(v) => Some(v),
            KeyValue::Signed(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// The integer, for a [`KeyValue::Signed`] (or a [`KeyValue::Unsigned`]
    /// that fits an `i64`).
    #[must_use]
    pub(crate) fn as_signed(&self) -> Option<i64> {
        match *self {
            KeyValue::Signed(v) => Some(v),
            KeyValue::Unsigned(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }

    /// The point in time, for a [`KeyValue::Timestamp`].
    #[must_use]
    pub(crate) fn as_timestamp(&self) -> Option<SystemTime> {
        match *self {
            KeyValue::Timestamp(t) => Some(t),
            _ => None,
        }
    }

    /// A [`KeyValue::Timestamp`] of any [`PointInTime`]: a `SystemTime`, or
    /// a `chrono`, `time` or `jiff` type with its cargo feature; for
    /// [`KeyPattern::with`](super::KeyPattern::with).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) (attribute
    /// `(key component)`) when `at` is outside what a `SystemTime` holds on
    /// this platform (on Linux, macOS and Windows, every time of the years
    /// 0000 to 9999, all a key can hold, fits).
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use dynamodb_mapper::{KeyPattern, key::KeyValue};
    /// let at = UNIX_EPOCH + Duration::from_secs(86_400);
    /// let sk = KeyPattern::sort("DAY#{d:ts}").with("d", KeyValue::from_time(at)?).render()?;
    /// assert_eq!(sk, "DAY#1970-01-02T00:00:00Z");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn from_time(at: impl PointInTime) -> Result<KeyValue<'static>> {
        at.to_unix()
            .and_then(|(secs, nanos)| SystemTime::from_unix(secs, nanos))
            .map(KeyValue::Timestamp)
            .ok_or_else(|| {
                Error::invalid_key(
                    "(key component)",
                    "is a time outside the range of SystemTime on this platform",
                )
            })
    }

    /// The same value, owning its text.
    #[must_use]
    pub(crate) fn into_owned(self) -> KeyValue<'static> {
        match self {
            KeyValue::Text(t) => KeyValue::Text(Cow::Owned(t.into_owned())),
            KeyValue::Unsigned(v) => KeyValue::Unsigned(v),
            KeyValue::Signed(v) => KeyValue::Signed(v),
            KeyValue::Timestamp(t) => KeyValue::Timestamp(t),
        }
    }

    /// About how many bytes the value takes in a key.
    pub(super) fn size_hint(&self) -> usize {
        match self {
            KeyValue::Text(t) => t.len(),
            KeyValue::Unsigned(_) | KeyValue::Signed(_) => 20,
            KeyValue::Timestamp(_) => 30,
        }
    }

    pub(super) fn describe(&self) -> String {
        match self {
            KeyValue::Text(t) => format!("text {t:?}"),
            KeyValue::Unsigned(v) => v.to_string(),
            KeyValue::Signed(v) => v.to_string(),
            KeyValue::Timestamp(_) => "a timestamp".to_owned(),
        }
    }
}

impl<'a> From<&'a str> for KeyValue<'a> {
    fn from(v: &'a str) -> Self {
        KeyValue::Text(Cow::Borrowed(v))
    }
}

impl<'a> From<&'a String> for KeyValue<'a> {
    fn from(v: &'a String) -> Self {
        KeyValue::Text(Cow::Borrowed(v))
    }
}

impl From<String> for KeyValue<'_> {
    fn from(v: String) -> Self {
        KeyValue::Text(Cow::Owned(v))
    }
}

impl<'a> From<Cow<'a, str>> for KeyValue<'a> {
    fn from(v: Cow<'a, str>) -> Self {
        KeyValue::Text(v)
    }
}

impl From<SystemTime> for KeyValue<'_> {
    fn from(v: SystemTime) -> Self {
        KeyValue::Timestamp(v)
    }
}

macro_rules! key_value_from_int {
    ($variant:ident: $($t:ty),*) => {$(
        impl From<$t> for KeyValue<'_> {
            fn from(v: $t) -> Self {
                KeyValue::$variant(v.into())
            }
        }
    )*};
}
key_value_from_int!(Unsigned: u8, u16, u32, u64);
key_value_from_int!(Signed: i8, i16, i32, i64);

impl From<usize> for KeyValue<'_> {
    fn from(v: usize) -> Self {
        // usize is at most 64 bits on every platform Rust supports.
        KeyValue::Unsigned(v as u64)
    }
}

impl From<isize> for KeyValue<'_> {
    fn from(v: isize) -> Self {
        KeyValue::Signed(v as i64)
    }
}
