//! Keys for single-table design: an injective key builder, order-preserving
//! encodings for sort keys, key patterns, and the analysis that finds entity
//! types whose key prefixes overlap.
//!
//! # How keys are encoded
//!
//! A key is a type tag and components joined by one delimiter (`#` by
//! default): `ORDER#O1#LINE#007`. To keep the encoding **injective** (no
//! component value can make two different component lists render the same
//! key), a delimiter or escape character inside a component value is escaped
//! with the escape character (`\` by default): `#` becomes `\#` and `\`
//! becomes `\\`. So `["A#", "B"]` renders `A\##B` and `["A", "#B"]` renders
//! `A#\#B`, and [`KeyFormat::split`] parses every key back into exactly the
//! components it was built from. Values without `#` or `\` render unchanged.
//!
//! Escaping works character by character, so the escaped form of a value's
//! start is the start of the value's escaped form: a `begins_with` prefix
//! built by [`KeyBuilder::prefix_with`] or [`BoundPattern::prefix`] matches
//! exactly the keys whose components start that way.
//!
//! # Sortable components
//!
//! DynamoDB compares string sort keys byte by byte. The encodings here make
//! string order equal value order: [`encode_unsigned`] (zero-padded to a fixed
//! width), [`encode_signed`] (`N` + complement for negatives, `P` for the
//! rest, fixed width), and [`encode_timestamp`] (RFC 3339 UTC with a fixed
//! number of fraction digits). Each has a `decode_` counterpart.
//!
//! # Key patterns and overlaps
//!
//! A [`KeyPattern`] such as `ORDER#{order_id}#LINE#{line:u3}` renders keys
//! from named values, parses them back, and takes part in
//! [`find_overlaps`], which reports every pair of entity types where a
//! `begins_with` query for one can return items of the other.
//!
//! ```
//! use dynamodb_mapper::key::{KeyBuilder, KeyFormat, decode_unsigned};
//!
//! let sk = KeyBuilder::sort("ORDER").part("O#1").part("LINE").unsigned(7, 3).build()?;
//! assert_eq!(sk, r"ORDER#O\#1#LINE#007");
//! let parts = KeyFormat::DEFAULT.split(&sk)?;
//! assert_eq!(parts, ["ORDER", "O#1", "LINE", "007"]);
//! assert_eq!(decode_unsigned(&parts[3], 3)?, 7);
//! # Ok::<(), dynamodb_mapper::Error>(())
//! ```

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::rc::Rc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{Error, Result};
use crate::schema::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};

/// Characters the encodings and pattern syntax use, which therefore cannot
/// be a delimiter or an escape character.
const RESERVED: &[char] = &['-', ':', '.', '{', '}'];

/// The delimiter and escape character keys are built with.
///
/// The default is `#` as delimiter and `\` as escape character. Both must be
/// distinct ASCII punctuation characters other than `-`, `:`, `.`, `{` and
/// `}` (the encodings and the pattern syntax use those); this is checked
/// whenever the format is used.
///
/// ```
/// use dynamodb_mapper::key::{KeyBuilder, KeyFormat};
///
/// const PIPES: KeyFormat = KeyFormat::new().with_delimiter('|');
/// let key = KeyBuilder::partition("TENANT").format(PIPES).part("acme").build()?;
/// assert_eq!(key, "TENANT|acme");
/// assert_eq!(PIPES.split(&key)?, ["TENANT", "acme"]);
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyFormat {
    delimiter: char,
    escape: char,
}

impl Default for KeyFormat {
    /// [`KeyFormat::DEFAULT`].
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyFormat;
    /// assert_eq!(KeyFormat::default(), KeyFormat::DEFAULT);
    /// ```
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl KeyFormat {
    /// `#` as delimiter, `\` as escape character.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyFormat;
    /// assert_eq!(KeyFormat::DEFAULT.delimiter(), '#');
    /// assert_eq!(KeyFormat::DEFAULT.escape(), '\\');
    /// ```
    pub const DEFAULT: KeyFormat = KeyFormat {
        delimiter: '#',
        escape: '\\',
    };

    /// The default format, for `const` chains.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyFormat;
    /// const F: KeyFormat = KeyFormat::new();
    /// assert_eq!(F, KeyFormat::DEFAULT);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self::DEFAULT
    }

    /// The same format with another delimiter.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyFormat;
    /// assert_eq!(KeyFormat::new().with_delimiter('|').delimiter(), '|');
    /// ```
    #[must_use]
    pub const fn with_delimiter(mut self, delimiter: char) -> Self {
        self.delimiter = delimiter;
        self
    }

    /// The same format with another escape character.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyFormat;
    /// assert_eq!(KeyFormat::new().with_escape('~').escape(), '~');
    /// ```
    #[must_use]
    pub const fn with_escape(mut self, escape: char) -> Self {
        self.escape = escape;
        self
    }

    /// The delimiter between components.
    ///
    /// ```
    /// assert_eq!(dynamodb_mapper::key::KeyFormat::DEFAULT.delimiter(), '#');
    /// ```
    #[must_use]
    pub const fn delimiter(&self) -> char {
        self.delimiter
    }

    /// The escape character.
    ///
    /// ```
    /// assert_eq!(dynamodb_mapper::key::KeyFormat::DEFAULT.escape(), '\\');
    /// ```
    #[must_use]
    pub const fn escape(&self) -> char {
        self.escape
    }

    /// Checks the delimiter and escape character.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] (attribute `(key format)`) when they are equal,
    /// not ASCII punctuation, or reserved (`-`, `:`, `.`, `{`, `}`).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyFormat;
    ///
    /// assert!(KeyFormat::DEFAULT.validate().is_ok());
    /// let err = KeyFormat::new().with_delimiter(':').validate().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "key attribute `(key format)` delimiter `:` is reserved: encodings and key patterns use `-`, `:`, `.`, `{` and `}`"
    /// );
    /// ```
    pub fn validate(&self) -> Result<()> {
        self.check()
            .map_err(|reason| Error::invalid_key("(key format)", reason))
    }

    fn check(&self) -> std::result::Result<(), String> {
        for (what, c) in [
            ("delimiter", self.delimiter),
            ("escape character", self.escape),
        ] {
            if !c.is_ascii_punctuation() {
                return Err(format!(
                    "{what} {c:?} is not an ASCII punctuation character"
                ));
            }
            if RESERVED.contains(&c) {
                return Err(format!(
                    "{what} `{c}` is reserved: encodings and key patterns use `-`, `:`, `.`, `{{` and `}}`"
                ));
            }
        }
        if self.delimiter == self.escape {
            return Err(format!(
                "uses `{}` as both delimiter and escape character",
                self.delimiter
            ));
        }
        Ok(())
    }

    /// The escaped form of `text`, as it appears inside a key: the delimiter
    /// and the escape character are preceded by the escape character. Use it
    /// for a `begins_with` value that ends inside a component.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] when the format is invalid (see
    /// [`validate`](Self::validate)).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyFormat;
    /// assert_eq!(KeyFormat::DEFAULT.escape_text(r"a#b\c")?, r"a\#b\\c");
    /// assert_eq!(KeyFormat::DEFAULT.escape_text("plain")?, "plain");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn escape_text(&self, text: &str) -> Result<String> {
        self.validate()?;
        let mut out = String::with_capacity(text.len());
        self.escape_into(&mut out, text);
        Ok(out)
    }

    fn escape_into(&self, out: &mut String, text: &str) {
        for c in text.chars() {
            if c == self.delimiter || c == self.escape {
                out.push(self.escape);
            }
            out.push(c);
        }
    }

    /// Splits a key into its components, undoing the escaping: the inverse of
    /// [`KeyBuilder::build`] (the type tag is the first component).
    ///
    /// # Errors
    /// [`Error::InvalidKey`] (attribute `(key)`) when the key is empty, has an
    /// empty component, an escape character not followed by the delimiter or
    /// the escape character, or when the format is invalid.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyFormat;
    ///
    /// assert_eq!(KeyFormat::DEFAULT.split(r"A\##B")?, ["A#", "B"]);
    /// assert_eq!(KeyFormat::DEFAULT.split(r"A#\#B")?, ["A", "#B"]);
    /// let err = KeyFormat::DEFAULT.split("A##B").unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `(key)` \"A##B\" has an empty component at byte 2");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn split(&self, key: &str) -> Result<Vec<String>> {
        self.validate()?;
        split_key(key, *self)
            .map_err(|reason| Error::invalid_key("(key)", format!("{key:?} {reason}")))
    }
}

fn split_key(key: &str, format: KeyFormat) -> std::result::Result<Vec<String>, String> {
    segments(key, format)
        .map(|segment| segment.map(Cow::into_owned))
        .collect()
}

/// The components of `key`, unescaped, in order; borrowed from the key
/// where they hold no escape. Yields the first problem (an empty key or
/// component, an unknown or lone escape) as its last item.
fn segments(key: &str, format: KeyFormat) -> Segments<'_> {
    Segments {
        key,
        start: 0,
        format,
        done: false,
    }
}

struct Segments<'k> {
    key: &'k str,
    /// Byte index where the next component starts.
    start: usize,
    format: KeyFormat,
    done: bool,
}

impl<'k> Iterator for Segments<'k> {
    type Item = std::result::Result<Cow<'k, str>, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.key.is_empty() {
            self.done = true;
            return Some(Err("is empty".to_owned()));
        }
        let start = self.start;
        let rest = self.key.get(start..).unwrap_or("");
        let format = self.format;
        // Only a component with an escape in it is copied.
        let mut unescaped: Option<String> = None;
        let mut chars = rest.char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            if c == format.escape {
                match chars.next() {
                    Some((_, next)) if next == format.delimiter || next == format.escape => {
                        unescaped
                            .get_or_insert_with(|| rest.get(..i).unwrap_or("").to_owned())
                            .push(next);
                    }
                    Some((_, next)) => {
                        self.done = true;
                        return Some(Err(format!(
                            "has an unknown escape `{}{next}` at byte {}",
                            format.escape,
                            start + i
                        )));
                    }
                    None => {
                        self.done = true;
                        return Some(Err(format!(
                            "ends with a lone escape character `{}`",
                            format.escape
                        )));
                    }
                }
            } else if c == format.delimiter {
                end = Some(i);
                self.start = start + i + c.len_utf8();
                break;
            } else if let Some(text) = &mut unescaped {
                text.push(c);
            }
        }
        let raw = match end {
            Some(i) => rest.get(..i).unwrap_or(""),
            None => {
                self.done = true;
                rest
            }
        };
        if raw.is_empty() {
            self.done = true;
            return Some(Err(format!("has an empty component at byte {start}")));
        }
        Some(Ok(match unescaped {
            Some(text) => Cow::Owned(text),
            None => Cow::Borrowed(raw),
        }))
    }
}

/// Whether a key is a partition key or a sort key: decides the size limit.
///
/// ```
/// use dynamodb_mapper::key::KeyRole;
/// assert_eq!(KeyRole::Partition.max_bytes(), 2048);
/// assert_eq!(KeyRole::Sort.max_bytes(), 1024);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyRole {
    /// A partition (hash) key: at most 2048 bytes.
    Partition,
    /// A sort (range) key: at most 1024 bytes.
    Sort,
}

impl KeyRole {
    /// DynamoDB's size limit for this kind of key, in bytes.
    ///
    /// ```
    /// use dynamodb_mapper::{key::KeyRole, MAX_SORT_KEY_BYTES};
    /// assert_eq!(KeyRole::Sort.max_bytes(), MAX_SORT_KEY_BYTES);
    /// ```
    #[must_use]
    pub const fn max_bytes(self) -> usize {
        match self {
            KeyRole::Partition => MAX_PARTITION_KEY_BYTES,
            KeyRole::Sort => MAX_SORT_KEY_BYTES,
        }
    }

    const fn describe(self) -> &'static str {
        match self {
            KeyRole::Partition => "partition key",
            KeyRole::Sort => "sort key",
        }
    }

    const fn attribute(self) -> &'static str {
        match self {
            KeyRole::Partition => "(partition key)",
            KeyRole::Sort => "(sort key)",
        }
    }
}

// ------------------------------------------------------------------ values

/// A value for a key component: text, an integer or a point in time.
///
/// Converts from strings, integers and [`SystemTime`], so
/// [`KeyPattern::with`] takes them directly. [`KeyPattern::parse`] returns
/// values of the type each placeholder declares.
///
/// ```
/// use dynamodb_mapper::key::KeyValue;
///
/// assert_eq!(KeyValue::from("C1").as_text(), Some("C1"));
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
    /// The text, for a [`KeyValue::Text`].
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyValue;
    /// assert_eq!(KeyValue::from("x").as_text(), Some("x"));
    /// assert_eq!(KeyValue::from(1u8).as_text(), None);
    /// ```
    #[must_use]
    pub fn as_text(&self) -> Option<&str> {
        match self {
            KeyValue::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The integer, for a [`KeyValue::Unsigned`] (or a non-negative
    /// [`KeyValue::Signed`]).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyValue;
    /// assert_eq!(KeyValue::Unsigned(7).as_unsigned(), Some(7));
    /// assert_eq!(KeyValue::Signed(-7).as_unsigned(), None);
    /// ```
    #[must_use]
    pub fn as_unsigned(&self) -> Option<u64> {
        match *self {
            KeyValue::Unsigned(v) => Some(v),
            KeyValue::Signed(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// The integer, for a [`KeyValue::Signed`] (or a [`KeyValue::Unsigned`]
    /// that fits an `i64`).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyValue;
    /// assert_eq!(KeyValue::Signed(-7).as_signed(), Some(-7));
    /// assert_eq!(KeyValue::Unsigned(u64::MAX).as_signed(), None);
    /// ```
    #[must_use]
    pub fn as_signed(&self) -> Option<i64> {
        match *self {
            KeyValue::Signed(v) => Some(v),
            KeyValue::Unsigned(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }

    /// The point in time, for a [`KeyValue::Timestamp`].
    ///
    /// ```
    /// use std::time::UNIX_EPOCH;
    /// use dynamodb_mapper::key::KeyValue;
    /// assert_eq!(KeyValue::from(UNIX_EPOCH).as_timestamp(), Some(UNIX_EPOCH));
    /// ```
    #[must_use]
    pub fn as_timestamp(&self) -> Option<SystemTime> {
        match *self {
            KeyValue::Timestamp(t) => Some(t),
            _ => None,
        }
    }

    /// The same value, owning its text.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyValue;
    /// let owned: KeyValue<'static> = KeyValue::from(&String::from("x")).into_owned();
    /// assert_eq!(owned.as_text(), Some("x"));
    /// ```
    #[must_use]
    pub fn into_owned(self) -> KeyValue<'static> {
        match self {
            KeyValue::Text(t) => KeyValue::Text(Cow::Owned(t.into_owned())),
            KeyValue::Unsigned(v) => KeyValue::Unsigned(v),
            KeyValue::Signed(v) => KeyValue::Signed(v),
            KeyValue::Timestamp(t) => KeyValue::Timestamp(t),
        }
    }

    /// About how many bytes the value takes in a key.
    fn size_hint(&self) -> usize {
        match self {
            KeyValue::Text(t) => t.len(),
            KeyValue::Unsigned(_) | KeyValue::Signed(_) => 20,
            KeyValue::Timestamp(_) => 30,
        }
    }

    fn describe(&self) -> String {
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

// --------------------------------------------------------------- encodings

/// How a key component is encoded.
///
/// In key patterns: `{name}` is [`Text`](Encoding::Text), `{name:u3}`
/// [`Unsigned`](Encoding::Unsigned) of width 3, `{name:i5}`
/// [`Signed`](Encoding::Signed) of width 5, `{name:ts3}`
/// [`Timestamp`](Encoding::Timestamp) with 3 fraction digits (`{name:ts}` is
/// `ts0`).
///
/// ```
/// use dynamodb_mapper::key::{Encoding, KeyValue};
///
/// let e = Encoding::Unsigned { width: 3 };
/// assert_eq!(e.encode(&KeyValue::Unsigned(42))?, "042");
/// assert_eq!(e.decode("042")?, KeyValue::Unsigned(42));
/// assert_eq!(e.to_string(), "u3");
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
    /// Encodes `value`. Text is returned as given (the key format escapes
    /// it); integers convert between signed and unsigned when they fit.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] (attribute `(key component)`) when the value
    /// has the wrong type, does not fit the width, is empty text, or is a
    /// time outside the years 0000 to 9999.
    ///
    /// ```
    /// use dynamodb_mapper::key::{Encoding, KeyValue};
    ///
    /// assert_eq!(Encoding::Signed { width: 3 }.encode(&KeyValue::Signed(-1))?, "N999");
    /// let err = Encoding::Unsigned { width: 2 }.encode(&KeyValue::Unsigned(100)).unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `(key component)` 100 needs 3 digits, more than the width of 2");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn encode(&self, value: &KeyValue<'_>) -> Result<String> {
        self.encode_reason(value)
            .map(Cow::into_owned)
            .map_err(|reason| Error::invalid_key(COMPONENT, reason))
    }

    /// Decodes a component this encoding produced.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] (attribute `(key component)`) when `text` is not
    /// exactly what this encoding produces for some value.
    ///
    /// ```
    /// use dynamodb_mapper::key::{Encoding, KeyValue};
    ///
    /// assert_eq!(Encoding::Signed { width: 3 }.decode("N999")?, KeyValue::Signed(-1));
    /// assert!(Encoding::Unsigned { width: 3 }.decode("42").is_err());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn decode(&self, text: &str) -> Result<KeyValue<'static>> {
        self.decode_reason(text)
            .map(KeyValue::into_owned)
            .map_err(|reason| Error::invalid_key(COMPONENT, reason))
    }

    /// The encoded text; a text value is borrowed, not copied.
    fn encode_reason<'v>(
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
                    let (secs, nanos) = unix_parts(*t)?;
                    timestamp(secs, nanos, fraction_digits)
                }
                other => Err(format!("is {}, expected a timestamp", other.describe())),
            },
        };
        text.map(Cow::Owned)
    }

    fn decode_reason<'t>(&self, text: &'t str) -> std::result::Result<KeyValue<'t>, String> {
        match *self {
            Encoding::Text if text.is_empty() => Err("is empty".to_owned()),
            Encoding::Text => Ok(KeyValue::Text(Cow::Borrowed(text))),
            Encoding::Unsigned { width } => parse_unsigned(text, width).map(KeyValue::Unsigned),
            Encoding::Signed { width } => parse_signed(text, width).map(KeyValue::Signed),
            Encoding::Timestamp { fraction_digits } => {
                let (secs, nanos) = parse_timestamp(text, fraction_digits)?;
                system_time(secs, nanos).map(KeyValue::Timestamp)
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

fn unix_parts(t: SystemTime) -> std::result::Result<(i64, u32), String> {
    let out_of_range = || "is outside the years 0000 to 9999".to_owned();
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => Ok((
            i64::try_from(d.as_secs()).map_err(|_| out_of_range())?,
            d.subsec_nanos(),
        )),
        Err(before) => {
            let d = before.duration();
            let secs = i64::try_from(d.as_secs()).map_err(|_| out_of_range())?;
            match d.subsec_nanos() {
                0 => Ok((-secs, 0)),
                n => Ok((-secs - 1, 1_000_000_000 - n)),
            }
        }
    }
}

fn system_time(secs: i64, nanos: u32) -> std::result::Result<SystemTime, String> {
    let t = if secs >= 0 {
        UNIX_EPOCH.checked_add(Duration::new(secs.unsigned_abs(), nanos))
    } else {
        UNIX_EPOCH
            .checked_sub(Duration::from_secs(secs.unsigned_abs()))
            .and_then(|t| t.checked_add(Duration::from_nanos(u64::from(nanos))))
    };
    t.ok_or_else(|| "is outside the range of SystemTime on this platform".to_owned())
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

/// `value` zero-padded to exactly `width` digits (1 to 20): string order is
/// numeric order for values encoded with the same width.
///
/// # Errors
/// [`Error::InvalidKey`] (attribute `(key component)`) when `value` needs
/// more than `width` digits or `width` is out of range.
///
/// ```
/// use dynamodb_mapper::key::encode_unsigned;
///
/// assert_eq!(encode_unsigned(7, 3)?, "007");
/// assert!(encode_unsigned(2, 3)? < encode_unsigned(10, 3)?);
/// assert!(encode_unsigned(1000, 3).is_err());
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn encode_unsigned(value: u64, width: u8) -> Result<String> {
    unsigned(value, width).map_err(|reason| Error::invalid_key(COMPONENT, reason))
}

/// Decodes [`encode_unsigned`]'s output: exactly `width` digits.
///
/// # Errors
/// [`Error::InvalidKey`] (attribute `(key component)`) when `text` is not
/// exactly `width` ASCII digits or exceeds `u64`.
///
/// ```
/// use dynamodb_mapper::key::decode_unsigned;
///
/// assert_eq!(decode_unsigned("007", 3)?, 7);
/// let err = decode_unsigned("7", 3).unwrap_err();
/// assert_eq!(err.to_string(), "key attribute `(key component)` \"7\" is not exactly 3 digits");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn decode_unsigned(text: &str, width: u8) -> Result<u64> {
    parse_unsigned(text, width).map_err(|reason| Error::invalid_key(COMPONENT, reason))
}

/// `value` as a fixed-width string whose order is numeric order: `P` and
/// the value zero-padded to `width` digits for zero and above, `N` and
/// `10^width + value` (zero-padded) below zero. `width` is 1 to 19, and
/// `|value|` must be below `10^width`.
///
/// # Errors
/// [`Error::InvalidKey`] (attribute `(key component)`) when `|value|` needs
/// more than `width` digits or `width` is out of range.
///
/// ```
/// use dynamodb_mapper::key::encode_signed;
///
/// assert_eq!(encode_signed(42, 3)?, "P042");
/// assert_eq!(encode_signed(-42, 3)?, "N958");
/// assert!(encode_signed(-42, 3)? < encode_signed(-1, 3)?);
/// assert!(encode_signed(-1, 3)? < encode_signed(0, 3)?);
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn encode_signed(value: i64, width: u8) -> Result<String> {
    signed(value, width).map_err(|reason| Error::invalid_key(COMPONENT, reason))
}

/// Decodes [`encode_signed`]'s output.
///
/// # Errors
/// [`Error::InvalidKey`] (attribute `(key component)`) when `text` is not
/// `N` or `P` followed by exactly `width` digits, or is out of range.
///
/// ```
/// use dynamodb_mapper::key::decode_signed;
///
/// assert_eq!(decode_signed("N958", 3)?, -42);
/// assert_eq!(decode_signed("P000", 3)?, 0);
/// assert!(decode_signed("-042", 3).is_err());
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn decode_signed(text: &str, width: u8) -> Result<i64> {
    parse_signed(text, width).map_err(|reason| Error::invalid_key(COMPONENT, reason))
}

/// `time` as an RFC 3339 UTC timestamp with exactly `fraction_digits` (0 to
/// 9) digits of fraction, truncated: `2024-01-15T10:30:00.123Z`. Every
/// timestamp of one width has the same length, so string order is time
/// order. Years 0000 to 9999.
///
/// # Errors
/// [`Error::InvalidKey`] (attribute `(key component)`) when `time` is
/// outside the years 0000 to 9999 or `fraction_digits` is above 9.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use dynamodb_mapper::key::encode_timestamp;
///
/// let t = UNIX_EPOCH + Duration::from_millis(1_705_314_600_123);
/// assert_eq!(encode_timestamp(t, 3)?, "2024-01-15T10:30:00.123Z");
/// assert_eq!(encode_timestamp(t, 0)?, "2024-01-15T10:30:00Z");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn encode_timestamp(time: SystemTime, fraction_digits: u8) -> Result<String> {
    Encoding::Timestamp { fraction_digits }.encode(&KeyValue::Timestamp(time))
}

/// Decodes [`encode_timestamp`]'s output (the fraction it kept).
///
/// # Errors
/// [`Error::InvalidKey`] (attribute `(key component)`) when `text` is not
/// exactly that format, or is not a valid date and time.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use dynamodb_mapper::key::decode_timestamp;
///
/// let t = decode_timestamp("2024-01-15T10:30:00.123Z", 3)?;
/// assert_eq!(t, UNIX_EPOCH + Duration::from_millis(1_705_314_600_123));
/// assert!(decode_timestamp("2024-02-30T00:00:00Z", 0).is_err());
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn decode_timestamp(text: &str, fraction_digits: u8) -> Result<SystemTime> {
    let (secs, nanos) = decode_unix_timestamp(text, fraction_digits)?;
    system_time(secs, nanos).map_err(|reason| Error::invalid_key(COMPONENT, reason))
}

/// [`encode_timestamp`] for a time given as unix seconds (negative before
/// 1970) and nanoseconds within that second.
///
/// # Errors
/// [`Error::InvalidKey`] (attribute `(key component)`) when the time is
/// outside the years 0000 to 9999, `nanos` is not below 1,000,000,000, or
/// `fraction_digits` is above 9.
///
/// ```
/// use dynamodb_mapper::key::encode_unix_timestamp;
///
/// assert_eq!(encode_unix_timestamp(0, 0, 0)?, "1970-01-01T00:00:00Z");
/// assert_eq!(encode_unix_timestamp(-1, 500_000_000, 1)?, "1969-12-31T23:59:59.5Z");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn encode_unix_timestamp(secs: i64, nanos: u32, fraction_digits: u8) -> Result<String> {
    timestamp(secs, nanos, fraction_digits).map_err(|reason| Error::invalid_key(COMPONENT, reason))
}

/// Decodes [`encode_unix_timestamp`]'s output into unix seconds and
/// nanoseconds.
///
/// # Errors
/// As [`decode_timestamp`].
///
/// ```
/// use dynamodb_mapper::key::decode_unix_timestamp;
///
/// assert_eq!(decode_unix_timestamp("1969-12-31T23:59:59.5Z", 1)?, (-1, 500_000_000));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn decode_unix_timestamp(text: &str, fraction_digits: u8) -> Result<(i64, u32)> {
    parse_timestamp(text, fraction_digits).map_err(|reason| Error::invalid_key(COMPONENT, reason))
}

// ------------------------------------------------------------- key builder

/// Builds a key from a type tag and components, joined by the format's
/// delimiter, escaping delimiter and escape characters inside components (see
/// the [module docs](self)). The result parses back with
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

    /// Adds a zero-padded unsigned component (see [`encode_unsigned`]).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyBuilder;
    /// assert_eq!(KeyBuilder::sort("ITEM").unsigned(7, 3).build()?, "ITEM#007");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn unsigned(self, value: u64, width: u8) -> Self {
        self.encoded(unsigned(value, width))
    }

    /// Adds an order-preserving signed component (see [`encode_signed`]).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyBuilder;
    /// assert_eq!(KeyBuilder::sort("DELTA").signed(-5, 2).build()?, "DELTA#N95");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn signed(self, value: i64, width: u8) -> Self {
        self.encoded(signed(value, width))
    }

    /// Adds a fixed-width UTC timestamp component (see [`encode_timestamp`]).
    ///
    /// ```
    /// use std::time::UNIX_EPOCH;
    /// use dynamodb_mapper::key::KeyBuilder;
    /// assert_eq!(KeyBuilder::sort("AT").timestamp(UNIX_EPOCH, 3).build()?, "AT#1970-01-01T00:00:00.000Z");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn timestamp(self, time: SystemTime, fraction_digits: u8) -> Self {
        let encoded = unix_parts(time).and_then(|(s, n)| timestamp(s, n, fraction_digits));
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
    /// [`Error::InvalidKey`] (attribute `(partition key)` or `(sort key)`) for
    /// an empty tag or component, a tag holding the delimiter or escape
    /// character, a number that does not fit its width, a key over the size
    /// limit, or an invalid format.
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

fn check_size(key: &str, role: KeyRole) -> std::result::Result<(), String> {
    let max = role.max_bytes();
    if key.len() > max {
        return Err(format!(
            "is {} bytes, over the {} limit of {max} bytes",
            key.len(),
            role.describe()
        ));
    }
    Ok(())
}

// ------------------------------------------------------------ key patterns

/// A key template such as `CUSTOMER#{customer_id}` or
/// `ORDER#{order_id}#LINE#{line:u3}`: renders keys from named values, parses
/// keys back, and declares a mapper's keys for [`find_overlaps`].
///
/// Declared in `const` context; the template is checked whenever the pattern
/// is used ([`validate`](Self::validate) checks it up front). The rules:
///
/// - components are separated by the format's delimiter and none is empty;
/// - a component holds at most one placeholder `{name}` or `{name:format}`,
///   with optional literal text before and after it (`v{n:u2}`);
/// - names are ASCII letters, digits and `_`, not starting with a digit, each
///   used once;
/// - formats: none (text, escaped), `u<width>` ([`encode_unsigned`]),
///   `i<width>` ([`encode_signed`]), `ts` or `ts<fraction digits>`
///   ([`encode_timestamp`]);
/// - literal text holds no `{`, `}` or escape character.
///
/// Each placeholder owns a whole component (apart from its literal text),
/// and text values are escaped, so rendering is injective and
/// [`parse`](Self::parse) inverts it.
///
/// A template is compiled the first time a thread uses it and kept for the
/// thread's lifetime, so rendering a `const` pattern costs little more than
/// formatting the key by hand (see BENCHMARKS.md).
///
/// ```
/// use dynamodb_mapper::key::KeyPattern;
///
/// const LINE_SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}");
///
/// let sk = LINE_SK.with("order_id", "O1").with("line", 7).render()?;
/// assert_eq!(sk, "ORDER#O1#LINE#007");
/// let parsed = LINE_SK.parse(&sk)?;
/// assert_eq!(parsed.text("order_id")?, "O1");
/// assert_eq!(parsed.unsigned("line")?, 7);
/// assert_eq!(LINE_SK.with("order_id", "O1").prefix()?, "ORDER#O1#LINE#");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyPattern {
    template: &'static str,
    role: KeyRole,
    format: KeyFormat,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    name: &'static str,
    encoding: Encoding,
    /// The placeholder as written, e.g. `{line:u3}`.
    spec: &'static str,
}

#[derive(Debug, Clone, Copy)]
struct Component {
    before: &'static str,
    slot: Option<Slot>,
    after: &'static str,
}

impl KeyPattern {
    /// A partition key pattern (rendered keys at most 2048 bytes).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// const PK: KeyPattern = KeyPattern::partition("CUSTOMER#{id}");
    /// assert_eq!(PK.with("id", "C1").render()?, "CUSTOMER#C1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub const fn partition(template: &'static str) -> Self {
        KeyPattern {
            template,
            role: KeyRole::Partition,
            format: KeyFormat::DEFAULT,
        }
    }

    /// A sort key pattern (rendered keys at most 1024 bytes).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// const SK: KeyPattern = KeyPattern::sort("METADATA");
    /// assert_eq!(SK.bind().render()?, "METADATA");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub const fn sort(template: &'static str) -> Self {
        KeyPattern {
            template,
            role: KeyRole::Sort,
            format: KeyFormat::DEFAULT,
        }
    }

    /// The same pattern with another key format.
    ///
    /// ```
    /// use dynamodb_mapper::key::{KeyFormat, KeyPattern};
    /// const SK: KeyPattern = KeyPattern::sort("USER|{id}").with_format(KeyFormat::new().with_delimiter('|'));
    /// assert_eq!(SK.with("id", "a|b").render()?, r"USER|a\|b");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub const fn with_format(mut self, format: KeyFormat) -> Self {
        self.format = format;
        self
    }

    /// The template as declared.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// assert_eq!(KeyPattern::sort("ORDER#{id}").template(), "ORDER#{id}");
    /// ```
    #[must_use]
    pub const fn template(&self) -> &'static str {
        self.template
    }

    /// Whether this is a partition or a sort key pattern.
    ///
    /// ```
    /// use dynamodb_mapper::key::{KeyPattern, KeyRole};
    /// assert_eq!(KeyPattern::sort("A").role(), KeyRole::Sort);
    /// ```
    #[must_use]
    pub const fn role(&self) -> KeyRole {
        self.role
    }

    /// The key format.
    ///
    /// ```
    /// use dynamodb_mapper::key::{KeyFormat, KeyPattern};
    /// assert_eq!(KeyPattern::sort("A").key_format(), KeyFormat::DEFAULT);
    /// ```
    #[must_use]
    pub const fn key_format(&self) -> KeyFormat {
        self.format
    }

    fn error(&self, reason: impl fmt::Display) -> Error {
        pattern_error(self.template, reason)
    }

    /// Checks the template and the format.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] whose attribute is the template, saying what is
    /// wrong with it.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    ///
    /// assert!(KeyPattern::sort("ORDER#{id}#LINE#{n:u3}").validate().is_ok());
    /// let err = KeyPattern::sort("ORDER#{id").validate().unwrap_err();
    /// assert_eq!(err.to_string(), "key pattern `ORDER#{id` is invalid: it has an unclosed `{` at byte 6");
    /// let err = KeyPattern::sort("A#{x}{y}").validate().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "key pattern `A#{x}{y}` is invalid: it has a second placeholder in one component at byte 5; separate placeholders with `#`"
    /// );
    /// ```
    pub fn validate(&self) -> Result<()> {
        self.components().map(|_| ())
    }

    /// The compiled template, from this thread's cache after the first use
    /// (patterns are usually consts, rendered and matched on every write).
    fn components(&self) -> Result<Rc<[Component]>> {
        // A `&'static str` never changes, so its address and length identify
        // the template.
        let key = (
            self.template.as_ptr().addr(),
            self.template.len(),
            self.format,
        );
        let cached = COMPILED
            .try_with(|cache| cache.borrow().get(&key).cloned())
            .ok()
            .flatten();
        if let Some(components) = cached {
            return Ok(components);
        }
        let components: Rc<[Component]> = compile(self.template, self.format)
            .map_err(|reason| self.error(format!("is invalid: it {reason}")))?
            .into();
        // Unavailable only while the thread is being torn down: then the
        // pattern is compiled on each use.
        let _ = COMPILED.try_with(|cache| {
            let mut cache = cache.borrow_mut();
            // A program's patterns are a handful of consts; a program that
            // makes templates at run time (leaking them) must not grow the
            // cache without bound, so it starts over past a cap.
            if cache.len() >= MAX_COMPILED {
                cache.clear();
            }
            cache.insert(key, Rc::clone(&components));
        });
        Ok(components)
    }

    /// The literal text before the first placeholder: what every rendered
    /// key starts with, and the `begins_with` value that selects this
    /// pattern's keys (the whole key for a pattern without placeholders).
    ///
    /// # Errors
    /// As [`validate`](Self::validate).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// assert_eq!(KeyPattern::sort("USER#{id}#METADATA").constant_prefix()?, "USER#");
    /// assert_eq!(KeyPattern::sort("SUMMARY").constant_prefix()?, "SUMMARY");
    /// assert_eq!(KeyPattern::sort("{at:ts3}").constant_prefix()?, "");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn constant_prefix(&self) -> Result<&'static str> {
        self.validate()?;
        Ok(constant_prefix(self.template))
    }

    /// The placeholders: name and encoding, in template order.
    ///
    /// # Errors
    /// As [`validate`](Self::validate).
    ///
    /// ```
    /// use dynamodb_mapper::key::{Encoding, KeyPattern};
    /// let p = KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}");
    /// assert_eq!(p.placeholders()?, [("order_id", Encoding::Text), ("line", Encoding::Unsigned { width: 3 })]);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn placeholders(&self) -> Result<Vec<(&'static str, Encoding)>> {
        Ok(self
            .components()?
            .iter()
            .filter_map(|c| c.slot.map(|s| (s.name, s.encoding)))
            .collect())
    }

    /// Starts binding values: `name` gets `value`. Chain more
    /// [`with`](BoundPattern::with) calls, then
    /// [`render`](BoundPattern::render) or [`prefix`](BoundPattern::prefix).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// let pk = KeyPattern::partition("TENANT#{tenant}").with("tenant", "acme").render()?;
    /// assert_eq!(pk, "TENANT#acme");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn with<'a>(&self, name: &'a str, value: impl Into<KeyValue<'a>>) -> BoundPattern<'a> {
        self.bind().with(name, value)
    }

    /// Starts binding values with none bound yet: for a pattern without
    /// placeholders, or to bind values in a loop.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// assert_eq!(KeyPattern::sort("PROFILE").bind().render()?, "PROFILE");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn bind(&self) -> BoundPattern<'static> {
        BoundPattern {
            pattern: *self,
            values: Vec::new(),
        }
    }

    /// Parses a key rendered from this pattern back into its values, typed
    /// by each placeholder's format.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] whose attribute is the template, when the key
    /// does not match the pattern (or the pattern is invalid).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    ///
    /// const SK: KeyPattern = KeyPattern::sort("STATUS#{at:ts}");
    /// let parts = SK.parse("STATUS#2024-01-15T10:30:00Z")?;
    /// assert_eq!(parts.len(), 1);
    /// let err = SK.parse("ITEM#001").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "key pattern `STATUS#{at:ts}` cannot parse \"ITEM#001\": component 1 is \"ITEM\", expected \"STATUS\""
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn parse(&self, key: &str) -> Result<KeyParts> {
        let components = self.components()?;
        let mut values = Vec::with_capacity(components.len());
        self.parse_with(&components, key, |name, value| {
            values.push((name, value.into_owned()));
        })
        .map_err(|reason| self.error(format!("cannot parse {key:?}: {reason}")))?;
        Ok(KeyParts {
            template: self.template,
            values,
        })
    }

    /// Parses `key`, handing each placeholder's value to `found`; the values
    /// borrow from the key where they can, so matching allocates nothing.
    /// The reason a key does not parse is worked out only when it does not.
    fn parse_with(
        &self,
        components: &[Component],
        key: &str,
        mut found: impl FnMut(&'static str, KeyValue<'_>),
    ) -> std::result::Result<(), String> {
        let mut parts = segments(key, self.format);
        for component in components {
            let Some(Ok(part)) = parts.next() else {
                return Err(self.mismatch(components, key));
            };
            match component.slot {
                None if part == component.before => {}
                Some(slot) => {
                    let value = part
                        .strip_prefix(component.before)
                        .and_then(|rest| rest.strip_suffix(component.after))
                        .filter(|m| !m.is_empty())
                        .and_then(|middle| slot.encoding.decode_reason(middle).ok());
                    match value {
                        Some(value) => found(slot.name, value),
                        None => return Err(self.mismatch(components, key)),
                    }
                }
                None => return Err(self.mismatch(components, key)),
            }
        }
        match parts.next() {
            None => Ok(()),
            Some(_) => Err(self.mismatch(components, key)),
        }
    }

    /// Why `key` does not parse: the first problem in reading it as a key,
    /// else its number of components, else the first component that does
    /// not fit the pattern.
    fn mismatch(&self, components: &[Component], key: &str) -> String {
        let parts = match split_key(key, self.format) {
            Ok(parts) => parts,
            Err(reason) => return format!("it {reason}"),
        };
        if parts.len() != components.len() {
            return format!(
                "it has {} components, the pattern has {}",
                parts.len(),
                components.len()
            );
        }
        for (i, (component, part)) in components.iter().zip(&parts).enumerate() {
            let n = i + 1;
            let Some(slot) = component.slot else {
                if *part != component.before {
                    return format!("component {n} is {part:?}, expected {:?}", component.before);
                }
                continue;
            };
            let Some(middle) = part
                .strip_prefix(component.before)
                .and_then(|rest| rest.strip_suffix(component.after))
                .filter(|m| !m.is_empty())
            else {
                return format!(
                    "component {n} is {part:?}, expected `{}{}{}`",
                    component.before, slot.spec, component.after
                );
            };
            if let Err(reason) = slot.encoding.decode_reason(middle) {
                return format!("component {n} (`{}`): {reason}", slot.spec);
            }
        }
        "it does not fit the pattern".to_owned()
    }

    /// Whether `key` parses with this pattern.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// let p = KeyPattern::sort("ITEM#{n:u3}");
    /// assert!(p.matches("ITEM#001"));
    /// assert!(!p.matches("ITEM#1"));
    /// assert!(!p.matches("SUMMARY"));
    /// ```
    #[must_use]
    pub fn matches(&self, key: &str) -> bool {
        self.components()
            .is_ok_and(|components| self.parse_with(&components, key, |_, _| ()).is_ok())
    }

    /// Whether some values make this pattern render a key starting with
    /// `prefix`: whether `begins_with(key, prefix)` can select this
    /// pattern's keys.
    ///
    /// # Errors
    /// As [`validate`](Self::validate).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// let lines = KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}");
    /// assert!(lines.can_start_with("ORDER#")?);
    /// assert!(lines.can_start_with("ORDER#O1#LINE#0")?);
    /// assert!(!lines.can_start_with("ORDER#O1#PAYMENT")?);
    /// assert!(!lines.can_start_with("ORDERS")?);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn can_start_with(&self, prefix: &str) -> Result<bool> {
        Ok(self.language()?.can_start_with(prefix))
    }

    /// Whether some values make this pattern and `other` render the same key.
    ///
    /// # Errors
    /// As [`validate`](Self::validate), for either pattern.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// let user = KeyPattern::partition("USER#{id}");
    /// assert!(user.intersects(&KeyPattern::partition("USER#{name}"))?);
    /// assert!(user.intersects(&KeyPattern::partition("{anything}#admin"))?);
    /// // A text value cannot hold an unescaped delimiter:
    /// assert!(!user.intersects(&KeyPattern::partition("{anything}"))?);
    /// assert!(!user.intersects(&KeyPattern::partition("USER#{n:u3}#X"))?);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn intersects(&self, other: &KeyPattern) -> Result<bool> {
        Ok(self.language()?.intersects(&other.language()?))
    }

    fn language(&self) -> Result<Language> {
        Ok(Language::of(&self.components()?, self.format))
    }

    fn render(&self, values: &[(&str, KeyValue<'_>)], prefix: bool) -> Result<String> {
        let components = self.components()?;
        let slot_index = |name: &str| {
            components
                .iter()
                .position(|c| c.slot.is_some_and(|s| s.name == name))
        };
        for (k, (name, _)) in values.iter().enumerate() {
            if slot_index(name).is_none() {
                return Err(self.error(format!("has no placeholder `{{{name}}}`")));
            }
            if values.iter().take(k).any(|(n, _)| n == name) {
                return Err(self.error(format!("was given `{{{name}}}` twice")));
            }
        }
        let f = self.format;
        let mut out = String::with_capacity(
            self.template.len() + values.iter().map(|(_, v)| v.size_hint()).sum::<usize>(),
        );
        let mut missing: Option<(usize, Slot)> = None;
        for (i, component) in components.iter().enumerate() {
            if i > 0 {
                out.push(f.delimiter);
            }
            out.push_str(component.before);
            if let Some(slot) = component.slot {
                let Some((_, value)) = values.iter().find(|(n, _)| *n == slot.name) else {
                    if prefix {
                        missing = Some((i, slot));
                        break;
                    }
                    return Err(self.error(format!("has no value for `{}`", slot.spec)));
                };
                let encoded = slot
                    .encoding
                    .encode_reason(value)
                    .map_err(|r| self.error(format!("value for `{}`: {r}", slot.spec)))?;
                f.escape_into(&mut out, &encoded);
            }
            out.push_str(component.after);
        }
        if let Some((at, slot)) = missing {
            for (name, _) in values {
                if slot_index(name).is_some_and(|j| j > at) {
                    return Err(self.error(format!(
                        "has a value for `{{{name}}}` but none for `{}` before it; a prefix stops at the first placeholder without a value",
                        slot.spec
                    )));
                }
            }
            if out.is_empty() {
                return Err(self.error(format!(
                    "renders an empty prefix: its first placeholder `{}` has no value",
                    slot.spec
                )));
            }
        }
        check_size(&out, self.role).map_err(|r| self.error(format!("renders a key that {r}")))?;
        Ok(out)
    }
}

impl fmt::Display for KeyPattern {
    /// The template.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// assert_eq!(KeyPattern::sort("ORDER#{id}").to_string(), "ORDER#{id}");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.template)
    }
}

/// The error for a problem with the key pattern `template`, or with a key or
/// value that does not fit it.
fn pattern_error(template: &str, reason: impl fmt::Display) -> Error {
    Error::InvalidKeyPattern {
        entity_type: None,
        pattern: template.to_owned(),
        reason: reason.to_string(),
    }
}

fn constant_prefix(template: &'static str) -> &'static str {
    match template.find('{') {
        Some(i) => template.get(..i).unwrap_or(""),
        None => template,
    }
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn parse_spec(spec: Option<&str>) -> Option<Encoding> {
    let Some(spec) = spec else {
        return Some(Encoding::Text);
    };
    let digits = |s: &str| -> Option<u8> {
        if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    if spec == "ts" {
        return Some(Encoding::Timestamp { fraction_digits: 0 });
    }
    if let Some(n) = spec.strip_prefix("ts") {
        return digits(n)
            .filter(|d| *d <= 9)
            .map(|fraction_digits| Encoding::Timestamp { fraction_digits });
    }
    if let Some(n) = spec.strip_prefix('u') {
        return digits(n)
            .filter(|w| (1..=20).contains(w))
            .map(|width| Encoding::Unsigned { width });
    }
    if let Some(n) = spec.strip_prefix('i') {
        return digits(n)
            .filter(|w| (1..=19).contains(w))
            .map(|width| Encoding::Signed { width });
    }
    None
}

/// A template's `&'static str` (address and length) and format.
type TemplateId = (usize, usize, KeyFormat);

/// How many compiled templates a thread keeps at most.
const MAX_COMPILED: usize = 1024;

thread_local! {
    /// Compiled templates, per thread.
    static COMPILED: RefCell<HashMap<TemplateId, Rc<[Component]>>> =
        RefCell::new(HashMap::new());
}

fn compile(
    template: &'static str,
    format: KeyFormat,
) -> std::result::Result<Vec<Component>, String> {
    format
        .check()
        .map_err(|r| format!("has an invalid key format: {r}"))?;
    if template.is_empty() {
        return Err("is empty".to_owned());
    }
    let mut components = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let mut start = 0;
    // The component's placeholder: slot, byte index of `{`, byte index after `}`.
    let mut slot: Option<(Slot, usize, usize)> = None;
    let mut skip_to = 0;
    for (i, c) in template.char_indices() {
        if i < skip_to {
            continue;
        }
        if c == format.delimiter {
            components.push(finish(template, start, i, slot.take())?);
            start = i + c.len_utf8();
        } else if c == '{' {
            if slot.is_some() {
                return Err(format!(
                    "has a second placeholder in one component at byte {i}; separate placeholders with `{}`",
                    format.delimiter
                ));
            }
            let rest = template.get(i + 1..).unwrap_or("");
            let Some(close) = rest.find('}') else {
                return Err(format!("has an unclosed `{{` at byte {i}"));
            };
            let end = i + 1 + close + 1;
            let spec = template.get(i..end).unwrap_or("");
            let inner = rest.get(..close).unwrap_or("");
            let (name, format_spec) = match inner.split_once(':') {
                Some((name, f)) => (name, Some(f)),
                None => (inner, None),
            };
            if !valid_name(name) {
                return Err(format!(
                    "has an invalid placeholder name in `{spec}`: use ASCII letters, digits and `_`, not starting with a digit"
                ));
            }
            let Some(encoding) = parse_spec(format_spec) else {
                return Err(format!(
                    "has an unknown format in `{spec}`: use `u<width>` (1 to 20), `i<width>` (1 to 19) or `ts<fraction digits>` (0 to 9)"
                ));
            };
            if names.contains(&name) {
                return Err(format!("uses the placeholder `{{{name}}}` twice"));
            }
            names.push(name);
            slot = Some((
                Slot {
                    name,
                    encoding,
                    spec,
                },
                i,
                end,
            ));
            skip_to = end;
        } else if c == '}' {
            return Err(format!("has a `}}` without a `{{` at byte {i}"));
        } else if c == format.escape {
            return Err(format!(
                "has the escape character `{c}` at byte {i}; it is reserved for escaping values"
            ));
        }
    }
    components.push(finish(template, start, template.len(), slot)?);
    Ok(components)
}

fn finish(
    template: &'static str,
    start: usize,
    end: usize,
    slot: Option<(Slot, usize, usize)>,
) -> std::result::Result<Component, String> {
    match slot {
        None => {
            let literal = template.get(start..end).unwrap_or("");
            if literal.is_empty() {
                return Err(format!("has an empty component at byte {start}"));
            }
            Ok(Component {
                before: literal,
                slot: None,
                after: "",
            })
        }
        Some((slot, open, close)) => Ok(Component {
            before: template.get(start..open).unwrap_or(""),
            slot: Some(slot),
            after: template.get(close..end).unwrap_or(""),
        }),
    }
}

/// A pattern with values bound to some of its placeholders, from
/// [`KeyPattern::with`] or [`KeyPattern::bind`].
///
/// ```
/// use dynamodb_mapper::key::KeyPattern;
///
/// const SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}");
/// let bound = SK.with("order_id", "O1");
/// assert_eq!(bound.prefix()?, "ORDER#O1#LINE#");
/// assert_eq!(bound.with("line", 12).render()?, "ORDER#O1#LINE#012");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct BoundPattern<'a> {
    pattern: KeyPattern,
    values: Vec<(&'a str, KeyValue<'a>)>,
}

impl<'a> BoundPattern<'a> {
    /// Binds `value` to the placeholder `name`.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// let id = String::from("C1");
    /// let key = KeyPattern::partition("CUSTOMER#{id}").bind().with("id", &id).render()?;
    /// assert_eq!(key, "CUSTOMER#C1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn with(mut self, name: &'a str, value: impl Into<KeyValue<'a>>) -> Self {
        self.values.push((name, value.into()));
        self
    }

    /// The key, every placeholder filled.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] whose attribute is the template: a placeholder
    /// without a value, a value for a name the pattern does not have or given
    /// twice, a value its placeholder's format cannot encode (empty text,
    /// wrong type, too many digits), a key over the size limit, or an invalid
    /// pattern.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    ///
    /// const SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}");
    /// assert_eq!(SK.with("order_id", "A#B").with("line", 1).render()?, r"ORDER#A\#B#LINE#001");
    /// let err = SK.with("order_id", "O1").render().unwrap_err();
    /// assert_eq!(err.to_string(), "key pattern `ORDER#{order_id}#LINE#{line:u3}` has no value for `{line:u3}`");
    /// let err = SK.with("order_id", "O1").with("lien", 1).render().unwrap_err();
    /// assert_eq!(err.to_string(), "key pattern `ORDER#{order_id}#LINE#{line:u3}` has no placeholder `{lien}`");
    /// let err = SK.with("order_id", "").with("line", 1).render().unwrap_err();
    /// assert_eq!(err.to_string(), "key pattern `ORDER#{order_id}#LINE#{line:u3}` value for `{order_id}`: is empty");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn render(&self) -> Result<String> {
        self.pattern.render(&self.values, false)
    }

    /// The `begins_with` value for keys with the bound values: the key up to
    /// the first placeholder without a value (including the literal text
    /// before that placeholder), or the whole key when every placeholder has
    /// a value.
    ///
    /// # Errors
    /// As [`render`](Self::render) (apart from missing values), and when a
    /// placeholder after the first unbound one has a value, or the prefix
    /// would be empty.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    ///
    /// const SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}");
    /// assert_eq!(SK.bind().prefix()?, "ORDER#");
    /// assert_eq!(SK.with("order_id", "O#1").prefix()?, r"ORDER#O\#1#LINE#");
    /// assert!(SK.with("line", 1).prefix().is_err());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn prefix(&self) -> Result<String> {
        self.pattern.render(&self.values, true)
    }
}

/// The values parsed from a key by [`KeyPattern::parse`], by placeholder
/// name, typed by each placeholder's format.
///
/// ```
/// use dynamodb_mapper::key::{KeyPattern, KeyValue};
///
/// let parts = KeyPattern::sort("DELTA#{d:i3}#{label}").parse("DELTA#N995#x")?;
/// assert_eq!(parts.signed("d")?, -5);
/// assert_eq!(parts.get("label"), Some(&KeyValue::from("x")));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyParts {
    template: &'static str,
    values: Vec<(&'static str, KeyValue<'static>)>,
}

impl KeyParts {
    /// The value of placeholder `name`.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// let parts = KeyPattern::sort("TAG#{tag}").parse("TAG#rust")?;
    /// assert_eq!(parts.get("tag").and_then(|v| v.as_text()), Some("rust"));
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
    /// [`Error::InvalidKey`] (attribute: the template) when there is no such
    /// placeholder or it is not text.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
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
    /// [`Error::InvalidKey`] (attribute: the template) when there is no such
    /// placeholder or it is not an integer that fits.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
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
    /// [`Error::InvalidKey`] (attribute: the template) when there is no such
    /// placeholder or it is not an integer that fits.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// let parts = KeyPattern::sort("T#{t:i2}").parse("T#N99")?;
    /// assert_eq!(parts.signed("t")?, -1);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn signed(&self, name: &str) -> Result<i64> {
        self.typed(name, "a signed integer", KeyValue::as_signed)
    }

    /// The point in time of placeholder `name`.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] (attribute: the template) when there is no such
    /// placeholder or it is not a timestamp.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use dynamodb_mapper::key::KeyPattern;
    /// let parts = KeyPattern::sort("AT#{at:ts3}").parse("AT#1970-01-01T00:00:01.500Z")?;
    /// assert_eq!(parts.timestamp("at")?, UNIX_EPOCH + Duration::from_millis(1500));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn timestamp(&self, name: &str) -> Result<SystemTime> {
        self.typed(name, "a timestamp", KeyValue::as_timestamp)
    }

    /// Placeholder names and values, in template order.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// let parts = KeyPattern::sort("{a}#{b}").parse("x#y")?;
    /// let names: Vec<&str> = parts.iter().map(|(n, _)| n).collect();
    /// assert_eq!(names, ["a", "b"]);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &KeyValue<'static>)> {
        self.values.iter().map(|(n, v)| (*n, v))
    }

    /// How many placeholders the key had.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// assert_eq!(KeyPattern::sort("META").parse("META")?.len(), 0);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the pattern had no placeholders.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyPattern;
    /// assert!(KeyPattern::sort("META").parse("META")?.is_empty());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

// ------------------------------------------------- pattern languages (NFA)

/// One step of a pattern's rendered form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Atom {
    /// Exactly this character.
    Lit(char),
    /// One ASCII digit.
    Digit,
    /// `N` or `P`.
    Sign,
    /// One or more escaped text characters: any character but the delimiter
    /// and the escape character, or the escape character followed by one of
    /// them.
    Text { delimiter: char, escape: char },
}

/// NFA state: atom index and sub-state (0: at the atom's start; for text,
/// 1: after an escape character, 2: at least one character read).
type State = (usize, u8);

/// The set of strings a pattern renders, as a small NFA over characters.
/// Digit positions of timestamps accept any digit, so it is a superset of
/// the valid renderings there (the analysis may only err towards reporting).
#[derive(Debug)]
struct Language {
    atoms: Vec<Atom>,
}

impl Language {
    fn of(components: &[Component], format: KeyFormat) -> Language {
        let mut atoms = Vec::new();
        for (i, component) in components.iter().enumerate() {
            if i > 0 {
                atoms.push(Atom::Lit(format.delimiter));
            }
            atoms.extend(component.before.chars().map(Atom::Lit));
            if let Some(slot) = component.slot {
                match slot.encoding {
                    Encoding::Text => atoms.push(Atom::Text {
                        delimiter: format.delimiter,
                        escape: format.escape,
                    }),
                    Encoding::Unsigned { width } => {
                        atoms.extend(std::iter::repeat_n(Atom::Digit, usize::from(width)));
                    }
                    Encoding::Signed { width } => {
                        atoms.push(Atom::Sign);
                        atoms.extend(std::iter::repeat_n(Atom::Digit, usize::from(width)));
                    }
                    Encoding::Timestamp { fraction_digits } => {
                        for c in "dddd-dd-ddTdd:dd:dd".chars() {
                            atoms.push(if c == 'd' { Atom::Digit } else { Atom::Lit(c) });
                        }
                        if fraction_digits > 0 {
                            atoms.push(Atom::Lit('.'));
                            atoms.extend(std::iter::repeat_n(
                                Atom::Digit,
                                usize::from(fraction_digits),
                            ));
                        }
                        atoms.push(Atom::Lit('Z'));
                    }
                }
            }
            atoms.extend(component.after.chars().map(Atom::Lit));
        }
        Language { atoms }
    }

    fn close(&self, states: &mut Vec<State>) {
        let mut i = 0;
        while let Some(&(atom, sub)) = states.get(i) {
            if sub == 2 && !states.contains(&(atom + 1, 0)) {
                states.push((atom + 1, 0));
            }
            i += 1;
        }
    }

    fn start(&self) -> Vec<State> {
        let mut states = vec![(0, 0)];
        self.close(&mut states);
        states
    }

    fn step(&self, (atom, sub): State, c: char, out: &mut Vec<State>) {
        let mut push = |s: State| {
            if !out.contains(&s) {
                out.push(s);
            }
        };
        match (self.atoms.get(atom), sub) {
            (Some(Atom::Lit(x)), 0) if c == *x => push((atom + 1, 0)),
            (Some(Atom::Digit), 0) if c.is_ascii_digit() => push((atom + 1, 0)),
            (Some(Atom::Sign), 0) if c == 'N' || c == 'P' => push((atom + 1, 0)),
            (Some(Atom::Text { delimiter, escape }), 0 | 2) => {
                if c == *escape {
                    push((atom, 1));
                } else if c != *delimiter {
                    push((atom, 2));
                }
            }
            (Some(Atom::Text { delimiter, escape }), 1) if c == *delimiter || c == *escape => {
                push((atom, 2));
            }
            _ => {}
        }
    }

    fn advance(&self, states: &[State], c: char) -> Vec<State> {
        let mut out = Vec::new();
        for &s in states {
            self.step(s, c, &mut out);
        }
        self.close(&mut out);
        out
    }

    fn accepts(&self, state: State) -> bool {
        state == (self.atoms.len(), 0)
    }

    /// Whether some string of the language starts with `prefix`. Every atom
    /// accepts some string, so any live state can be completed.
    fn can_start_with(&self, prefix: &str) -> bool {
        let mut states = self.start();
        for c in prefix.chars() {
            states = self.advance(&states, c);
            if states.is_empty() {
                return false;
            }
        }
        true
    }

    /// Characters that stand for every class of characters the atoms of
    /// either language tell apart.
    fn alphabet(&self, other: &Language) -> Vec<char> {
        let mut chars: Vec<char> = ('0'..='9').chain(['N', 'P']).collect();
        for atom in self.atoms.iter().chain(&other.atoms) {
            match *atom {
                Atom::Lit(c) => chars.push(c),
                Atom::Text { delimiter, escape } => chars.extend([delimiter, escape]),
                Atom::Digit | Atom::Sign => {}
            }
        }
        chars.sort_unstable();
        chars.dedup();
        // One character none of the atoms singles out.
        if let Some(fresh) = ('a'..='z')
            .chain('A'..='Z')
            .chain('\u{E000}'..='\u{F8FF}')
            .find(|c| chars.binary_search(c).is_err())
        {
            chars.push(fresh);
        }
        chars
    }

    /// Whether the two languages share a string.
    fn intersects(&self, other: &Language) -> bool {
        let alphabet = self.alphabet(other);
        let mut seen: HashSet<(State, State)> = HashSet::new();
        let mut queue: Vec<(State, State)> = Vec::new();
        for a in self.start() {
            for b in other.start() {
                if seen.insert((a, b)) {
                    queue.push((a, b));
                }
            }
        }
        while let Some((a, b)) = queue.pop() {
            if self.accepts(a) && other.accepts(b) {
                return true;
            }
            for &c in &alphabet {
                let next_a = self.advance(&[a], c);
                if next_a.is_empty() {
                    continue;
                }
                let next_b = other.advance(&[b], c);
                for &na in &next_a {
                    for &nb in &next_b {
                        if seen.insert((na, nb)) {
                            queue.push((na, nb));
                        }
                    }
                }
            }
        }
        false
    }
}

// ------------------------------------------------------- overlap analysis

/// A mapper's key patterns for one index (or the table): the partition key
/// pattern and, when the index has a sort key, the sort key pattern.
///
/// A type that writes different patterns into one index in different states
/// (say `ACTIVE_PRODUCT` or `ARCHIVED_PRODUCT`) declares one `IndexKeys` per
/// pattern.
///
/// ```
/// use dynamodb_mapper::key::{IndexKeys, KeyPattern};
///
/// const ORDER_KEYS: &[IndexKeys] = &[
///     IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer_id}"))
///         .sort(KeyPattern::sort("ORDER#{order_id}")),
///     IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
///         .sort(KeyPattern::sort("{created_at:ts}")),
/// ];
/// assert_eq!(ORDER_KEYS[1].index_name(), Some("GSI1"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IndexKeys {
    index: Option<&'static str>,
    partition: KeyPattern,
    sort: Option<KeyPattern>,
}

impl IndexKeys {
    /// Keys of the table itself.
    ///
    /// ```
    /// use dynamodb_mapper::key::{IndexKeys, KeyPattern};
    /// const K: IndexKeys = IndexKeys::table(KeyPattern::partition("USER#{id}"));
    /// assert_eq!(K.index_name(), None);
    /// ```
    #[must_use]
    pub const fn table(partition: KeyPattern) -> Self {
        IndexKeys {
            index: None,
            partition,
            sort: None,
        }
    }

    /// Keys of the global secondary index `name`.
    ///
    /// ```
    /// use dynamodb_mapper::key::{IndexKeys, KeyPattern};
    /// const K: IndexKeys = IndexKeys::index("GSI1", KeyPattern::partition("EMAIL#{email}"));
    /// assert_eq!(K.index_name(), Some("GSI1"));
    /// ```
    #[must_use]
    pub const fn index(name: &'static str, partition: KeyPattern) -> Self {
        IndexKeys {
            index: Some(name),
            partition,
            sort: None,
        }
    }

    /// The same keys with a sort key pattern.
    ///
    /// ```
    /// use dynamodb_mapper::key::{IndexKeys, KeyPattern};
    /// const K: IndexKeys = IndexKeys::table(KeyPattern::partition("USER#{id}")).sort(KeyPattern::sort("PROFILE"));
    /// assert_eq!(K.sort_key().map(|p| p.template()), Some("PROFILE"));
    /// ```
    #[must_use]
    pub const fn sort(mut self, sort: KeyPattern) -> Self {
        self.sort = Some(sort);
        self
    }

    /// The index name, `None` for the table.
    ///
    /// ```
    /// use dynamodb_mapper::key::{IndexKeys, KeyPattern};
    /// assert_eq!(IndexKeys::table(KeyPattern::partition("A")).index_name(), None);
    /// ```
    #[must_use]
    pub const fn index_name(&self) -> Option<&'static str> {
        self.index
    }

    /// The partition key pattern.
    ///
    /// ```
    /// use dynamodb_mapper::key::{IndexKeys, KeyPattern};
    /// assert_eq!(IndexKeys::table(KeyPattern::partition("A#{x}")).partition_key().template(), "A#{x}");
    /// ```
    #[must_use]
    pub const fn partition_key(&self) -> KeyPattern {
        self.partition
    }

    /// The sort key pattern, if declared.
    ///
    /// ```
    /// use dynamodb_mapper::key::{IndexKeys, KeyPattern};
    /// assert!(IndexKeys::table(KeyPattern::partition("A")).sort_key().is_none());
    /// ```
    #[must_use]
    pub const fn sort_key(&self) -> Option<KeyPattern> {
        self.sort
    }
}

/// One entity type's keys on one index: the input of [`find_overlaps`].
///
/// ```
/// use dynamodb_mapper::key::{IndexKeys, KeyDeclaration, KeyPattern};
///
/// const PK: KeyPattern = KeyPattern::partition("TENANT#{tenant}");
/// let d = KeyDeclaration::new("User", IndexKeys::table(PK).sort(KeyPattern::sort("USER#{id}")));
/// assert_eq!(d.entity_type, "User");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyDeclaration<'a> {
    /// The entity type (discriminator value).
    pub entity_type: &'a str,
    /// Its key patterns on one index.
    pub keys: IndexKeys,
}

impl<'a> KeyDeclaration<'a> {
    /// `entity_type` writes `keys`.
    ///
    /// ```
    /// use dynamodb_mapper::key::{IndexKeys, KeyDeclaration, KeyPattern};
    /// let d = KeyDeclaration::new("Tenant", IndexKeys::table(KeyPattern::partition("TENANT#{id}")));
    /// assert_eq!(d.keys.index_name(), None);
    /// ```
    #[must_use]
    pub const fn new(entity_type: &'a str, keys: IndexKeys) -> Self {
        KeyDeclaration { entity_type, keys }
    }
}

/// Why two entity types overlap.
///
/// ```
/// use dynamodb_mapper::key::OverlapKind;
/// assert_ne!(OverlapKind::Prefix, OverlapKind::SameKey);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OverlapKind {
    /// The returned type's sort key pattern can start with the queried
    /// type's constant sort key prefix.
    Prefix,
    /// The queried type's sort key pattern has no constant prefix (or it
    /// declares no sort key), so a query for it reads the whole partition.
    NoPrefix,
    /// Both types can write the same primary key on the table: one item
    /// overwrites the other. Never acknowledged away.
    SameKey,
}

/// An overlap found by [`find_overlaps`]: on `index`, a `begins_with` query
/// on `queried`'s constant sort key prefix can return `returned`'s items,
/// because their partition key patterns can render the same value.
///
/// Its `Display` says all of that in one line.
///
/// ```
/// use dynamodb_mapper::key::{find_overlaps, IndexKeys, KeyDeclaration, KeyPattern, OverlapKind};
///
/// const PK: KeyPattern = KeyPattern::partition("CUSTOMER#{customer_id}");
/// let found = find_overlaps(&[
///     KeyDeclaration::new("Order", IndexKeys::table(PK).sort(KeyPattern::sort("ORDER"))),
///     KeyDeclaration::new("OrderLine", IndexKeys::table(PK).sort(KeyPattern::sort("ORDERLINE#{line:u3}"))),
/// ], &[])?;
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].kind, OverlapKind::Prefix);
/// assert_eq!((found[0].queried.as_str(), found[0].returned.as_str()), ("Order", "OrderLine"));
/// assert_eq!(
///     found[0].to_string(),
///     "table: begins_with(sort key, \"ORDER\") for Order (sort key `ORDER`) also returns OrderLine items \
///      (sort key `ORDERLINE#{line:u3}`); their partition keys `CUSTOMER#{customer_id}` and \
///      `CUSTOMER#{customer_id}` can be equal"
/// );
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Overlap {
    /// Why.
    pub kind: OverlapKind,
    /// The index, `None` for the table.
    pub index: Option<String>,
    /// The entity type whose query returns the other's items (for
    /// [`OverlapKind::SameKey`], the one declared first).
    pub queried: String,
    /// The entity type whose items are returned.
    pub returned: String,
    /// The queried type's constant sort key prefix (empty when it has none).
    pub prefix: String,
    /// The queried type's partition key pattern.
    pub queried_partition: String,
    /// The queried type's sort key pattern.
    pub queried_sort: Option<String>,
    /// The returned type's partition key pattern.
    pub returned_partition: String,
    /// The returned type's sort key pattern.
    pub returned_sort: Option<String>,
}

impl fmt::Display for Overlap {
    /// One line naming the index, both types, the prefix and the patterns.
    ///
    /// ```
    /// use dynamodb_mapper::key::{find_overlaps, IndexKeys, KeyDeclaration, KeyPattern};
    ///
    /// const PK: KeyPattern = KeyPattern::partition("EMAIL#{email}");
    /// let found = find_overlaps(&[
    ///     KeyDeclaration::new("Customer", IndexKeys::index("ByEmail", PK)),
    ///     KeyDeclaration::new("Admin", IndexKeys::index("ByEmail", PK)),
    /// ], &[])?;
    /// assert_eq!(
    ///     found[0].to_string(),
    ///     "index ByEmail: Customer declares no sort key, so a query for it returns every Admin item \
    ///      of the same partition; their partition keys `EMAIL#{email}` and `EMAIL#{email}` can be equal"
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.index {
            None => f.write_str("table: ")?,
            Some(i) => write!(f, "index {i}: ")?,
        }
        let (q, r) = (&self.queried, &self.returned);
        let sort = |s: &Option<String>| match s {
            Some(s) => format!("sort key `{s}`"),
            None => "no sort key".to_owned(),
        };
        match (self.kind, &self.queried_sort) {
            (OverlapKind::SameKey, _) => write!(
                f,
                "{q} ({}) and {r} ({}) can write the same primary key, so one overwrites the other",
                sort(&self.queried_sort),
                sort(&self.returned_sort)
            )?,
            (OverlapKind::NoPrefix, None) => write!(
                f,
                "{q} declares no sort key, so a query for it returns every {r} item of the same partition"
            )?,
            (OverlapKind::NoPrefix, Some(s)) => write!(
                f,
                "the sort key `{s}` of {q} has no constant prefix, so a query for it also returns {r} items ({})",
                sort(&self.returned_sort)
            )?,
            (OverlapKind::Prefix, _) => write!(
                f,
                "begins_with(sort key, {:?}) for {q} ({}) also returns {r} items ({})",
                self.prefix,
                sort(&self.queried_sort),
                sort(&self.returned_sort)
            )?,
        }
        write!(
            f,
            "; their partition keys `{}` and `{}` can be equal",
            self.queried_partition, self.returned_partition
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Scope<'a> {
    Any,
    Table,
    Index(&'a str),
}

/// Acknowledges an intended overlap so [`find_overlaps`] does not report it:
/// a `begins_with` query for `queried` may return `returned`'s items (say a
/// header query that also reads its lines, on purpose). Table key collisions
/// ([`OverlapKind::SameKey`]) are always reported.
///
/// ```
/// use dynamodb_mapper::key::AllowedOverlap;
///
/// const ALLOWED: &[AllowedOverlap] = &[
///     AllowedOverlap::new("User", "UserMetadata").both_ways(),
///     AllowedOverlap::new("Order", "OrderLine").on_table(),
/// ];
/// assert_eq!(ALLOWED.len(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AllowedOverlap<'a> {
    queried: &'a str,
    returned: &'a str,
    scope: Scope<'a>,
    both_ways: bool,
}

impl<'a> AllowedOverlap<'a> {
    /// Queries for `queried` may return `returned`'s items, on every index.
    ///
    /// ```
    /// use dynamodb_mapper::key::AllowedOverlap;
    /// const A: AllowedOverlap = AllowedOverlap::new("Order", "Payment");
    /// # let _ = A;
    /// ```
    #[must_use]
    pub const fn new(queried: &'a str, returned: &'a str) -> Self {
        AllowedOverlap {
            queried,
            returned,
            scope: Scope::Any,
            both_ways: false,
        }
    }

    /// Only on the table.
    ///
    /// ```
    /// use dynamodb_mapper::key::AllowedOverlap;
    /// const A: AllowedOverlap = AllowedOverlap::new("Order", "Payment").on_table();
    /// # let _ = A;
    /// ```
    #[must_use]
    pub const fn on_table(mut self) -> Self {
        self.scope = Scope::Table;
        self
    }

    /// Only on the index `name`.
    ///
    /// ```
    /// use dynamodb_mapper::key::AllowedOverlap;
    /// const A: AllowedOverlap = AllowedOverlap::new("Order", "Payment").on_index("GSI1");
    /// # let _ = A;
    /// ```
    #[must_use]
    pub const fn on_index(mut self, name: &'a str) -> Self {
        self.scope = Scope::Index(name);
        self
    }

    /// Also queries for `returned` may return `queried`'s items.
    ///
    /// ```
    /// use dynamodb_mapper::key::AllowedOverlap;
    /// const A: AllowedOverlap = AllowedOverlap::new("User", "UserMetadata").both_ways();
    /// # let _ = A;
    /// ```
    #[must_use]
    pub const fn both_ways(mut self) -> Self {
        self.both_ways = true;
        self
    }

    /// Whether this acknowledges `overlap` (never a [`OverlapKind::SameKey`]).
    ///
    /// ```
    /// use dynamodb_mapper::key::{find_overlaps, AllowedOverlap, IndexKeys, KeyDeclaration, KeyPattern};
    ///
    /// const PK: KeyPattern = KeyPattern::partition("TENANT#{tenant}");
    /// let found = find_overlaps(&[
    ///     KeyDeclaration::new("User", IndexKeys::table(PK).sort(KeyPattern::sort("USER#{id}"))),
    ///     KeyDeclaration::new("UserMetadata", IndexKeys::table(PK).sort(KeyPattern::sort("USER#{id}#METADATA"))),
    /// ], &[])?;
    /// assert_eq!(found.len(), 2);
    /// assert!(AllowedOverlap::new("User", "UserMetadata").allows(&found[0]));
    /// assert!(!AllowedOverlap::new("User", "UserMetadata").allows(&found[1]));
    /// assert!(AllowedOverlap::new("User", "UserMetadata").both_ways().allows(&found[1]));
    /// assert!(!AllowedOverlap::new("User", "UserMetadata").on_index("GSI1").allows(&found[0]));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn allows(&self, overlap: &Overlap) -> bool {
        if overlap.kind == OverlapKind::SameKey {
            return false;
        }
        let index_ok = match self.scope {
            Scope::Any => true,
            Scope::Table => overlap.index.is_none(),
            Scope::Index(name) => overlap.index.as_deref() == Some(name),
        };
        let forward = overlap.queried == self.queried && overlap.returned == self.returned;
        let backward = overlap.queried == self.returned && overlap.returned == self.queried;
        index_ok && (forward || (self.both_ways && backward))
    }
}

struct Prepared {
    partition: Language,
    sort: Option<(Language, &'static str)>,
}

/// Finds every pair of entity types whose keys overlap, per index (the table
/// and each GSI separately), among declarations whose partition key patterns
/// can render the same value (so their items can share a partition):
///
/// - [`OverlapKind::Prefix`]: a `begins_with` query on the queried type's
///   constant sort key prefix (the literal text before its first
///   placeholder, see [`KeyPattern::constant_prefix`]) can return the other
///   type's items: `USER#{id}` and `USER#{id}#METADATA` (both ways),
///   `ORDER` and `ORDERLINE#{n}` (one way);
/// - [`OverlapKind::NoPrefix`]: the queried type's sort key pattern starts
///   with a placeholder, or it declares none, so its query reads the whole
///   partition;
/// - [`OverlapKind::SameKey`]: on the table, both types can write the same
///   primary key.
///
/// Values are assumed to be rendered through the patterns (so text values
/// are escaped and cannot hold a bare delimiter). Overlaps that `allowed`
/// acknowledges are left out, except [`OverlapKind::SameKey`]. The result is
/// ordered: the table first, then indexes in order of first declaration;
/// within an index by declaration order of the queried, then the returned
/// type.
///
/// # Errors
/// The first invalid pattern, as [`KeyPattern::validate`] reports it, with
/// the entity type that declared it.
///
/// ```
/// use dynamodb_mapper::key::{find_overlaps, AllowedOverlap, IndexKeys, KeyDeclaration, KeyPattern};
///
/// const PK: KeyPattern = KeyPattern::partition("CUSTOMER#{customer_id}");
/// let design = [
///     KeyDeclaration::new("Customer", IndexKeys::table(PK).sort(KeyPattern::sort("PROFILE"))),
///     KeyDeclaration::new("Order", IndexKeys::table(PK).sort(KeyPattern::sort("ORDER#{order_id}"))),
///     KeyDeclaration::new("Payment", IndexKeys::table(PK).sort(KeyPattern::sort("ORDER#{order_id}#PAYMENT"))),
/// ];
/// let found = find_overlaps(&design, &[])?;
/// let pairs: Vec<(&str, &str)> = found.iter().map(|o| (o.queried.as_str(), o.returned.as_str())).collect();
/// assert_eq!(pairs, [("Order", "Payment"), ("Payment", "Order")]);
///
/// let allowed = [AllowedOverlap::new("Order", "Payment").both_ways()];
/// assert!(find_overlaps(&design, &allowed)?.is_empty());
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn find_overlaps(
    declarations: &[KeyDeclaration<'_>],
    allowed: &[AllowedOverlap<'_>],
) -> Result<Vec<Overlap>> {
    let mut prepared = Vec::with_capacity(declarations.len());
    for d in declarations {
        let with_type = |e: Error| e.with_entity_type(d.entity_type);
        let partition = d.keys.partition.language().map_err(with_type)?;
        let sort = match d.keys.sort {
            Some(p) => Some((
                p.language().map_err(with_type)?,
                constant_prefix(p.template),
            )),
            None => None,
        };
        prepared.push(Prepared { partition, sort });
    }
    let mut indexes: Vec<Option<&str>> = Vec::new();
    for d in declarations {
        if !indexes.contains(&d.keys.index) {
            indexes.push(d.keys.index);
        }
    }
    indexes.sort_by_key(Option::is_some);

    let mut found: Vec<Overlap> = Vec::new();
    let declared = declarations.iter().zip(&prepared).enumerate();
    for index in indexes {
        let members: Vec<(usize, &KeyDeclaration<'_>, &Prepared)> = declared
            .clone()
            .filter(|(_, (d, _))| d.keys.index == index)
            .map(|(i, (d, p))| (i, d, p))
            .collect();
        for &(i, qd, qp) in &members {
            for &(j, rd, rp) in &members {
                if i == j || qd.entity_type == rd.entity_type {
                    continue;
                }
                if !qp.partition.intersects(&rp.partition) {
                    continue;
                }
                let overlap = |kind: OverlapKind, prefix: &str| Overlap {
                    kind,
                    index: index.map(str::to_owned),
                    queried: qd.entity_type.to_owned(),
                    returned: rd.entity_type.to_owned(),
                    prefix: prefix.to_owned(),
                    queried_partition: qd.keys.partition.template.to_owned(),
                    queried_sort: qd.keys.sort.map(|p| p.template.to_owned()),
                    returned_partition: rd.keys.partition.template.to_owned(),
                    returned_sort: rd.keys.sort.map(|p| p.template.to_owned()),
                };
                if index.is_none() {
                    let same_key = match (&qp.sort, &rp.sort) {
                        (None, None) => true,
                        (Some((a, _)), Some((b, _))) => a.intersects(b),
                        _ => false,
                    };
                    if same_key {
                        if i < j {
                            found.push(overlap(
                                OverlapKind::SameKey,
                                qp.sort.as_ref().map_or("", |(_, p)| p),
                            ));
                        }
                        continue;
                    }
                }
                match (&qp.sort, &rp.sort) {
                    (None, _) => found.push(overlap(OverlapKind::NoPrefix, "")),
                    (Some((_, "")), _) => found.push(overlap(OverlapKind::NoPrefix, "")),
                    (Some((_, prefix)), Some((returned, _))) => {
                        if returned.can_start_with(prefix) {
                            found.push(overlap(OverlapKind::Prefix, prefix));
                        }
                    }
                    // An item without the index's sort key is not in it.
                    (Some(_), None) => {}
                }
            }
        }
    }
    let mut unique: Vec<Overlap> = Vec::with_capacity(found.len());
    for o in found {
        if !unique.contains(&o) && !allowed.iter().any(|a| a.allows(&o)) {
            unique.push(o);
        }
    }
    Ok(unique)
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

    #[test]
    fn languages() {
        let lang = |t: &'static str| KeyPattern::sort(t).language().unwrap();
        assert!(lang("ORDER#{id}").can_start_with("ORDER#"));
        assert!(lang("ORDER#{id}").can_start_with(r"ORDER#a\#"));
        assert!(!lang("ORDER#{id}").can_start_with(r"ORDER#a\x"));
        assert!(!lang("ORDER#{id}").can_start_with("ORDER##"));
        assert!(lang("A#{n:i2}").can_start_with("A#N9"));
        assert!(!lang("A#{n:i2}").can_start_with("A#-"));
        assert!(lang("{at:ts3}").intersects(&lang("2024-{x}")));
        assert!(!lang("{at:ts3}").intersects(&lang("2024-{x}#y")));
        assert!(lang("v{n:u2}x").intersects(&lang("{a}")));
        assert!(!lang("v{n:u2}x").intersects(&lang("v{a}y")));
        assert!(lang("{a}").intersects(&lang("Zzz")));
    }

    #[test]
    fn the_compiled_template_cache_stays_bounded() {
        for i in 0..(MAX_COMPILED * 3) {
            let template: &'static str = Box::leak(format!("T{i}#{{id}}").into_boxed_str());
            let pattern = KeyPattern::sort(template);
            assert!(pattern.matches(&format!("T{i}#x")));
            let cached = COMPILED.with(|c| c.borrow().len());
            assert!(cached <= MAX_COMPILED, "{cached}");
        }
    }
}
