//! [`ItemExt`]: typed getters on an item that return errors instead of
//! panicking, and [`ttl_value`] for TTL attributes.

use std::str::FromStr;
use std::time::SystemTime;

use aws_sdk_dynamodb::types::AttributeValue;

use super::Item;
use crate::describe::type_name;
use crate::error::{Error, ErrorKind, Result};
use crate::time::{PointInTime, ttl_seconds};

/// Typed, non-panicking getters on an [`Item`].
///
/// Each getter returns
/// [`ErrorKind::MissingAttribute`](crate::ErrorKind::MissingAttribute) when the
/// attribute is absent and
/// [`ErrorKind::WrongType`](crate::ErrorKind::WrongType) when it has another
/// type; number getters return
/// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) when the number
/// does not fit the requested type.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::{Item, ItemExt};
///
/// let item = Item::from([
///     ("name".to_string(), AttributeValue::S("Ada".into())),
///     ("age".to_string(), AttributeValue::N("36".into())),
/// ]);
/// assert_eq!(item.get_str("name")?, "Ada");
/// assert_eq!(item.get_number::<u8>("age")?, 36);
/// assert!(item.get_str("age").is_err());
/// assert_eq!(item.get_opt_str("nickname")?, None);
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub trait ItemExt {
    /// The attribute, or
    /// [`ErrorKind::MissingAttribute`](crate::ErrorKind::MissingAttribute).
    ///
    /// # Errors
    /// When the attribute is absent.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, ItemExt};
    /// assert!(Item::new().get_attr("pk").is_err());
    /// ```
    fn get_attr(&self, name: &str) -> Result<&AttributeValue>;

    /// Inserts the string attribute `name`; a shorthand for keys in
    /// `after_to_item`.
    ///
    /// ```
    /// use dynamodb_mapper::{Item, ItemExt};
    ///
    /// let mut item = Item::new();
    /// item.put_str("pk", format!("CUSTOMER#{}", "C1"));
    /// assert_eq!(item.get_str("pk")?, "CUSTOMER#C1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn put_str(&mut self, name: &str, value: impl Into<String>);

    /// Renames the attribute `from` to `to`, for upgrading an old item shape
    /// (in an upgrade step or `before_from_item`). Does nothing when `from`
    /// is absent; an existing `to` is replaced.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Item, ItemExt};
    ///
    /// let mut item = Item::from([("mail".to_string(), AttributeValue::S("a@b.c".into()))]);
    /// item.rename_attribute("mail", "email");
    /// assert!(item.contains_key("email") && !item.contains_key("mail"));
    /// ```
    fn rename_attribute(&mut self, from: &str, to: &str);

    /// A string (`S`) attribute.
    ///
    /// # Errors
    /// When the attribute is absent or not a string.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use dynamodb_mapper::{Item, ItemExt};
    /// let item = Item::from([("pk".to_string(), AttributeValue::S("A".into()))]);
    /// assert_eq!(item.get_str("pk")?, "A");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn get_str(&self, name: &str) -> Result<&str>;

    /// A string attribute that may be absent.
    ///
    /// # Errors
    /// When the attribute is present but not a string.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, ItemExt};
    /// assert_eq!(Item::new().get_opt_str("gsi1pk")?, None);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn get_opt_str(&self, name: &str) -> Result<Option<&str>>;

    /// A number (`N`) attribute parsed into `T`.
    ///
    /// # Errors
    /// When the attribute is absent, not a number, or does not parse as `T`.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use dynamodb_mapper::{Item, ItemExt};
    /// let item = Item::from([("version".to_string(), AttributeValue::N("300".into()))]);
    /// assert_eq!(item.get_number::<u64>("version")?, 300);
    /// assert!(item.get_number::<u8>("version").is_err());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn get_number<T: FromStr>(&self, name: &str) -> Result<T>;

    /// A boolean (`BOOL`) attribute.
    ///
    /// # Errors
    /// When the attribute is absent or not a boolean.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use dynamodb_mapper::{Item, ItemExt};
    /// let item = Item::from([("archived".to_string(), AttributeValue::Bool(true))]);
    /// assert!(item.get_bool("archived")?);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn get_bool(&self, name: &str) -> Result<bool>;

    /// A binary (`B`) attribute.
    ///
    /// # Errors
    /// When the attribute is absent or not binary.
    ///
    /// ```
    /// # use aws_sdk_dynamodb::{primitives::Blob, types::AttributeValue};
    /// # use dynamodb_mapper::{Item, ItemExt};
    /// let item = Item::from([("blob".to_string(), AttributeValue::B(Blob::new(vec![1, 2])))]);
    /// assert_eq!(item.get_bytes("blob")?, &[1, 2]);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn get_bytes(&self, name: &str) -> Result<&[u8]>;

    /// A TTL attribute (a Number of epoch seconds) as a [`SystemTime`].
    ///
    /// # Errors
    /// When the attribute is absent, not a number, not whole non-negative
    /// seconds, or too far in the future for a [`SystemTime`].
    ///
    /// ```
    /// # use std::time::{Duration, UNIX_EPOCH};
    /// # use dynamodb_mapper::{Item, ItemExt, ttl_value};
    /// let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    /// let item = Item::from([("ttl".to_string(), ttl_value(at)?)]);
    /// assert_eq!(item.get_ttl("ttl")?, at);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn get_ttl(&self, name: &str) -> Result<SystemTime>;

    /// A TTL attribute (a Number of epoch seconds) as a time of type `T`:
    /// [`get_ttl`](ItemExt::get_ttl) for any [`PointInTime`], such as a
    /// `chrono`, `time` or `jiff` type with its cargo feature.
    ///
    /// # Errors
    /// When the attribute is absent, not a number, not whole non-negative
    /// seconds, or outside what `T` holds.
    ///
    /// ```
    /// # use std::time::{Duration, SystemTime, UNIX_EPOCH};
    /// # use dynamodb_mapper::{Item, ItemExt, ttl_value};
    /// let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    /// let item = Item::from([("ttl".to_string(), ttl_value(at)?)]);
    /// assert_eq!(item.get_ttl_as::<SystemTime>("ttl")?, at);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn get_ttl_as<T: PointInTime>(&self, name: &str) -> Result<T> {
        let secs: u64 = self.get_number(name).map_err(|e| match e.kind() {
            ErrorKind::InvalidValue => Error::invalid_value(
                e.attribute().unwrap_or(name),
                "is not whole non-negative epoch seconds",
            ),
            _ => e,
        })?;
        // Past `i64` or what `T` holds: an error, not a wrapped value or a
        // panic.
        i64::try_from(secs)
            .ok()
            .and_then(|s| T::from_unix(s, 0))
            .ok_or_else(|| {
                Error::invalid_value(name, format!("is {secs}, too far in the future for a time"))
            })
    }
}

fn wrong_type(name: &str, expected: &'static str, found: &AttributeValue) -> Error {
    Error::wrong_type(name, expected, type_name(found))
}

impl ItemExt for Item {
    fn get_attr(&self, name: &str) -> Result<&AttributeValue> {
        self.get(name).ok_or_else(|| Error::missing_attribute(name))
    }

    fn put_str(&mut self, name: &str, value: impl Into<String>) {
        self.insert(name.to_owned(), AttributeValue::S(value.into()));
    }

    fn rename_attribute(&mut self, from: &str, to: &str) {
        if let Some(v) = self.remove(from) {
            self.insert(to.to_owned(), v);
        }
    }

    fn get_str(&self, name: &str) -> Result<&str> {
        match self.get_attr(name)? {
            AttributeValue::S(s) => Ok(s),
            other => Err(wrong_type(name, "a string (S)", other)),
        }
    }

    fn get_opt_str(&self, name: &str) -> Result<Option<&str>> {
        match self.get(name) {
            None => Ok(None),
            Some(AttributeValue::S(s)) => Ok(Some(s)),
            Some(other) => Err(wrong_type(name, "a string (S)", other)),
        }
    }

    fn get_number<T: FromStr>(&self, name: &str) -> Result<T> {
        match self.get_attr(name)? {
            AttributeValue::N(n) => n.parse().map_err(|_| {
                Error::invalid_value(
                    name,
                    format!("is {n}, which does not fit {}", std::any::type_name::<T>()),
                )
            }),
            other => Err(wrong_type(name, "a number (N)", other)),
        }
    }

    fn get_bool(&self, name: &str) -> Result<bool> {
        match self.get_attr(name)? {
            AttributeValue::Bool(b) => Ok(*b),
            other => Err(wrong_type(name, "a boolean (BOOL)", other)),
        }
    }

    fn get_bytes(&self, name: &str) -> Result<&[u8]> {
        match self.get_attr(name)? {
            AttributeValue::B(b) => Ok(b.as_ref()),
            other => Err(wrong_type(name, "a binary (B)", other)),
        }
    }

    fn get_ttl(&self, name: &str) -> Result<SystemTime> {
        self.get_ttl_as(name)
    }
}

/// The TTL value for `at`: a Number of whole epoch seconds, as DynamoDB's TTL
/// requires (fractions of a second are dropped). `at` is any
/// [`PointInTime`]: a [`SystemTime`], or a `chrono`, `time` or `jiff` type
/// with its cargo feature (see [`time`](crate::time)).
///
/// # Errors
/// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (attribute
/// `ttl`) when `at` is before the Unix epoch or after 9999-12-31T23:59:59Z
/// (9999-12-31T23:59:59Z).
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use aws_sdk_dynamodb::types::AttributeValue;
///
/// let v = dynamodb_mapper::ttl_value(UNIX_EPOCH + Duration::from_millis(1_500))?;
/// assert_eq!(v, AttributeValue::N("1".into()));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn ttl_value(at: impl PointInTime) -> Result<AttributeValue> {
    let secs =
        ttl_seconds(&at).map_err(|reason| Error::invalid_value("ttl", reason.to_string()))?;
    Ok(AttributeValue::N(secs.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn ttl_before_epoch_is_an_error() {
        let err = ttl_value(UNIX_EPOCH - Duration::from_secs(1)).unwrap_err();
        assert_eq!(err.to_string(), "attribute `ttl` is before the unix epoch");
        // Even by a nanosecond.
        assert!(ttl_value(UNIX_EPOCH - Duration::from_nanos(1)).is_err());
    }

    #[test]
    fn ttl_after_year_9999_is_an_error() {
        let last = UNIX_EPOCH + Duration::new(253_402_300_799, 999_999_999);
        assert_eq!(
            ttl_value(last).unwrap(),
            AttributeValue::N("253402300799".into())
        );
        let err = ttl_value(last + Duration::from_nanos(1)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "attribute `ttl` is after 9999-12-31T23:59:59Z, the latest ttl"
        );
    }
}
