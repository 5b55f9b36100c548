//! `KeyParts`, the typed values `KeyPattern::parse` reads back from a key.
//! Builds on `key_value` and `template`; `pattern` creates it.

use super::key_value::KeyValue;
use super::template::pattern_error;
use crate::error::{Error, Result};
use crate::time::PointInTime;

/// The values parsed from a key by [`KeyPattern::parse`](super::KeyPattern::parse), by placeholder
/// name, typed by each placeholder's format.
///
/// ```
/// use dynamodb_mapper::{KeyPattern, key::KeyValue};
///
/// let parts = KeyPattern::sort("DELTA#{d:i3}#{label}").parse("DELTA#N995#x")?;
/// assert_eq!(parts.signed("d")?, -5);
/// assert_eq!(parts.get("label"), Some(&KeyValue::from("x")));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyParts {
    pub(super) template: &'static str,
    pub(super) values: Vec<(&'static str, KeyValue<'static>)>,
}

impl KeyParts {
    /// The value of placeholder `name`.
    ///
    /// ```
    /// use dynamodb_mapper::{KeyPattern, key::KeyValue};
    /// let parts = KeyPattern::sort("TAG#{tag}").parse("TAG#rust")?;
    /// assert_eq!(parts.get("tag"), Some(&KeyValue::Text("rust".into())));
    /// assert!(parts.get("other").is_none());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&KeyValue<'static>> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    fn no_placeholder(&self, name: &str) -> Error {
        pattern_error(self.template, format!("has no placeholder `{{{name}}}`"))
    }

    fn typed<T>(
        &self,
        name: &str,
        what: &str,
        pick: impl Fn(&KeyValue<'static>) -> Option<T>,
    ) -> Result<T> {
        let value = self.get(name).ok_or_else(|| self.no_placeholder(name))?;
        pick(value).ok_or_else(|| {
            pattern_error(
                self.template,
                format!(
                    "placeholder `{{{name}}}` holds {}, not {what}",
                    value.describe()
                ),
            )
        })
    }

    /// The text of placeholder `name`.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// (naming the template) when there is no such placeholder or it is not
    /// text.
    ///
    /// ```
    /// use dynamodb_mapper::KeyPattern;
    /// let parts = KeyPattern::partition("USER#{id}").parse(r"USER#a\#b")?;
    /// assert_eq!(parts.text("id")?, "a#b");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn text(&self, name: &str) -> Result<&str> {
        match self.get(name) {
            Some(KeyValue::Text(t)) => Ok(t),
            Some(other) => Err(pattern_error(
                self.template,
                format!(
                    "placeholder `{{{name}}}` holds {}, not text",
                    other.describe()
                ),
            )),
            None => Err(self.no_placeholder(name)),
        }
    }

    /// The unsigned integer of placeholder `name`.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// (naming the template) when there is no such placeholder or it is not an
    /// integer that fits.
    ///
    /// ```
    /// use dynamodb_mapper::KeyPattern;
    /// let parts = KeyPattern::sort("ITEM#{n:u3}").parse("ITEM#042")?;
    /// assert_eq!(parts.unsigned("n")?, 42);
    /// assert!(parts.text("n").is_err());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn unsigned(&self, name: &str) -> Result<u64> {
        self.typed(name, "an unsigned integer", KeyValue::as_unsigned)
    }

    /// The signed integer of placeholder `name`.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// (naming the template) when there is no such placeholder or it is not an
    /// integer that fits.
    ///
    /// ```
    /// use dynamodb_mapper::KeyPattern;
    /// let parts = KeyPattern::sort("T#{t:i2}").parse("T#N99")?;
    /// assert_eq!(parts.signed("t")?, -1);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn signed(&self, name: &str) -> Result<i64> {
        self.typed(name, "a signed integer", KeyValue::as_signed)
    }

    /// The point in time of placeholder `name` as a `T`: a `SystemTime`, or
    /// a `chrono`, `time` or `jiff` type with its cargo feature.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// (naming the template) when there is no such placeholder, it is not a
    /// timestamp, or `T` cannot hold it.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime, UNIX_EPOCH};
    /// use dynamodb_mapper::KeyPattern;
    /// let parts = KeyPattern::sort("AT#{at:ts3}").parse("AT#1970-01-01T00:00:01.500Z")?;
    /// let at: SystemTime = parts.timestamp("at")?;
    /// assert_eq!(at, UNIX_EPOCH + Duration::from_millis(1500));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn timestamp<T: PointInTime>(&self, name: &str) -> Result<T> {
        let what = format!(
            "a timestamp within the range of {}",
            std::any::type_name::<T>()
        );
        self.typed(name, &what, |v| {
            v.as_timestamp()
                .as_ref()
                .and_then(PointInTime::to_unix)
                .and_then(|(s, n)| T::from_unix(s, n))
        })
    }

    /// Placeholder names and values, in template order.
    ///
    /// ```
    /// use dynamodb_mapper::KeyPattern;
    /// let parts = KeyPattern::sort("{a}#{b}").parse("x#y")?;
    /// let names: Vec<&str> = parts.iter().map(|(n, _)| n).collect();
    /// assert_eq!(names, ["a", "b"]);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &KeyValue<'static>)> {
        self.values.iter().map(|(n, v)| (*n, v))
    }
}
