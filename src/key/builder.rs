//! `KeyBuilder`: a key built in code from a type tag and components. Uses
//! `format` and `encoding`; `pattern` is the declarative alternative.

use super::encoding::{signed, timestamp, unix_parts, unsigned};
use super::format::{KeyFormat, KeyRole, check_size};
use crate::error::{Error, Result};
use crate::time::PointInTime;

/// Builds a key from a type tag and components, joined by the format's
/// delimiter, escaping delimiter and escape characters inside components (see
/// the [module docs](super)). The result parses back with
/// [`KeyFormat::split`].
///
/// Errors are kept until [`build`](Self::build) (or a prefix method) so the
/// builder chains: an empty tag or component, a tag holding the delimiter or
/// escape character, a number that does not fit its width, and a key over the
/// partition (2048 bytes) or sort (1024 bytes) key limit.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use dynamodb_mapper::key::KeyBuilder;
///
/// let pk = KeyBuilder::partition("CUSTOMER").part("C1").build()?;
/// assert_eq!(pk, "CUSTOMER#C1");
/// let at = UNIX_EPOCH + Duration::from_secs(1_705_314_600);
/// let sk = KeyBuilder::sort("EVENT").timestamp(at, 0).part("E7").build()?;
/// assert_eq!(sk, "EVENT#2024-01-15T10:30:00Z#E7");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct KeyBuilder {
    role: KeyRole,
    format: KeyFormat,
    tag: String,
    parts: Vec<String>,
    /// The first encoding error: component number and reason.
    error: Option<(usize, String)>,
}

impl KeyBuilder {
    /// A partition key starting with the type tag `tag`.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyBuilder;
    /// assert_eq!(KeyBuilder::partition("TENANT").part("acme").build()?, "TENANT#acme");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn partition(tag: impl Into<String>) -> Self {
        Self::new(KeyRole::Partition, tag.into())
    }

    /// A sort key starting with the type tag `tag`.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyBuilder;
    /// assert_eq!(KeyBuilder::sort("META").build()?, "META");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn sort(tag: impl Into<String>) -> Self {
        Self::new(KeyRole::Sort, tag.into())
    }

    fn new(role: KeyRole, tag: String) -> Self {
        KeyBuilder {
            role,
            format: KeyFormat::DEFAULT,
            tag,
            parts: Vec::new(),
            error: None,
        }
    }

    /// Uses `format` instead of the default.
    ///
    /// ```
    /// use dynamodb_mapper::key::{KeyBuilder, KeyFormat};
    /// let f = KeyFormat::new().with_delimiter('/');
    /// assert_eq!(KeyBuilder::sort("A").format(f).part("b/c").build()?, r"A/b\/c");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn format(mut self, format: KeyFormat) -> Self {
        self.format = format;
        self
    }

    /// Adds a text component (escaped when rendered; must not be empty).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyBuilder;
    /// assert_eq!(KeyBuilder::sort("A").part("x#y").build()?, r"A#x\#y");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn part(mut self, text: impl AsRef<str>) -> Self {
        self.parts.push(text.as_ref().to_owned());
        self
    }

    /// Adds a zero-padded unsigned component (see [`encode_unsigned`](super::encode_unsigned)).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyBuilder;
    /// assert_eq!(KeyBuilder::sort("ITEM").unsigned(7, 3).build()?, "ITEM#007");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn unsigned(self, value: u64, width: u8) -> Self {
        self.encoded(unsigned(value, width))
    }

    /// Adds an order-preserving signed component (see [`encode_signed`](super::encode_signed)).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyBuilder;
    /// assert_eq!(KeyBuilder::sort("DELTA").signed(-5, 2).build()?, "DELTA#N95");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn signed(self, value: i64, width: u8) -> Self {
        self.encoded(signed(value, width))
    }

    /// Adds a fixed-width UTC timestamp component (see
    /// [`encode_timestamp`](super::encode_timestamp)). `time` is any
    /// [`PointInTime`]: a `SystemTime`, or a `chrono`, `time` or `jiff` type
    /// with its cargo feature.
    ///
    /// ```
    /// use std::time::UNIX_EPOCH;
    /// use dynamodb_mapper::key::KeyBuilder;
    /// assert_eq!(KeyBuilder::sort("AT").timestamp(UNIX_EPOCH, 3).build()?, "AT#1970-01-01T00:00:00.000Z");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn timestamp(self, time: impl PointInTime, fraction_digits: u8) -> Self {
        let encoded = unix_parts(&time).and_then(|(s, n)| timestamp(s, n, fraction_digits));
        self.encoded(encoded)
    }

    fn encoded(mut self, encoded: std::result::Result<String, String>) -> Self {
        match encoded {
            Ok(text) => self.parts.push(text),
            Err(reason) => {
                if self.error.is_none() {
                    // The tag is component 1.
                    self.error = Some((self.parts.len() + 2, reason));
                }
                self.parts.push(String::new());
            }
        }
        self
    }

    /// The key.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) (attribute
    /// `(partition key)` or `(sort key)`) for an empty tag or component, a tag
    /// holding the delimiter or escape character, a number that does not fit
    /// its width, a key over the size limit, or an invalid format.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyBuilder;
    ///
    /// assert_eq!(KeyBuilder::sort("A").part("B").build()?, "A#B");
    /// let err = KeyBuilder::sort("ORDER").part("O1").part("").build().unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `(sort key)` component 3 is empty (after `ORDER#O1`)");
    /// let err = KeyBuilder::sort("ITEM").unsigned(1000, 3).build().unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `(sort key)` component 2: 1000 needs 4 digits, more than the width of 3");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn build(&self) -> Result<String> {
        self.render(None)
    }

    /// The key with a trailing delimiter: the `begins_with` value that
    /// matches every key continuing these components (and no key whose
    /// last component merely starts with the last one given).
    ///
    /// # Errors
    /// As [`build`](Self::build).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyBuilder;
    /// assert_eq!(KeyBuilder::sort("ORDER").part("O1").prefix()?, "ORDER#O1#");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn prefix(&self) -> Result<String> {
        self.render(Some(""))
    }

    /// The key, a delimiter, and the escaped `start` of one more component:
    /// the `begins_with` value for keys whose next component starts with
    /// `start`.
    ///
    /// # Errors
    /// As [`build`](Self::build).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyBuilder;
    /// assert_eq!(KeyBuilder::sort("EVENT").prefix_with("2024-01")?, "EVENT#2024-01");
    /// assert_eq!(KeyBuilder::sort("NOTE").prefix_with("a#")?, r"NOTE#a\#");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn prefix_with(&self, start: &str) -> Result<String> {
        self.render(Some(start))
    }

    fn render(&self, start: Option<&str>) -> Result<String> {
        let err = |reason: String| Error::invalid_key(self.role.attribute(), reason);
        self.format.check().map_err(err)?;
        if let Some((n, reason)) = &self.error {
            return Err(err(format!("component {n}: {reason}")));
        }
        let f = self.format;
        if self.tag.is_empty() {
            return Err(err("type tag is empty".to_owned()));
        }
        if let Some(c) = self
            .tag
            .chars()
            .find(|&c| c == f.delimiter || c == f.escape)
        {
            let what = if c == f.delimiter {
                "delimiter"
            } else {
                "escape character"
            };
            return Err(err(format!(
                "type tag {:?} contains the {what} `{c}`",
                self.tag
            )));
        }
        let mut out = self.tag.clone();
        for (i, part) in self.parts.iter().enumerate() {
            if part.is_empty() {
                return Err(err(format!("component {} is empty (after `{out}`)", i + 2)));
            }
            out.push(f.delimiter);
            f.escape_into(&mut out, part);
        }
        if let Some(start) = start {
            out.push(f.delimiter);
            f.escape_into(&mut out, start);
        }
        check_size(&out, self.role).map_err(err)?;
        Ok(out)
    }
}
