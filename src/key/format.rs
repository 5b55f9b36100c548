//! The key format (delimiter and escape character): escaping component text
//! and splitting a key back into its components; also `KeyRole` and the key
//! size limits. Uses nothing else in `key`; `template` and `pattern` build
//! on it.

use std::borrow::Cow;

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
/// use dynamodb_mapper::{KeyPattern, key::KeyFormat};
///
/// const PIPES: KeyFormat = KeyFormat::new().with_delimiter('|');
/// const TENANT_PK: KeyPattern = KeyPattern::partition("TENANT|{id}").with_format(PIPES);
/// let key = TENANT_PK.with("id", "acme").render()?;
/// assert_eq!(key, "TENANT|acme");
/// assert_eq!(PIPES.split(&key)?, ["TENANT", "acme"]);
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyFormat {
    pub(super) delimiter: char,
    pub(super) escape: char,
}

impl Default for KeyFormat {
    /// [`KeyFormat::new()`].
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyFormat;
    /// assert_eq!(KeyFormat::default(), KeyFormat::new());
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl KeyFormat {
    /// The default format: `#` as delimiter, `\` as escape character.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyFormat;
    /// const F: KeyFormat = KeyFormat::new();
    /// assert_eq!(F.escape_text("b#c")?, r"b\#c");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        KeyFormat {
            delimiter: '#',
            escape: '\\',
        }
    }

    /// The same format with another delimiter.
    ///
    /// ```
    /// use dynamodb_mapper::{KeyPattern, key::KeyFormat};
    /// const SK: KeyPattern = KeyPattern::sort("A|{x}").with_format(KeyFormat::new().with_delimiter('|'));
    /// assert_eq!(SK.with("x", "b|c#d").render()?, r"A|b\|c#d");
    /// # Ok::<(), dynamodb_mapper::Error>(())
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
    /// assert_eq!(KeyFormat::new().with_escape('~').escape_text("b#c")?, "b~#c");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub const fn with_escape(mut self, escape: char) -> Self {
        self.escape = escape;
        self
    }

    /// The delimiter between components.
    #[must_use]
    pub(crate) const fn delimiter(&self) -> char {
        self.delimiter
    }

    /// Checks the delimiter and escape character.
    pub(crate) fn validate(&self) -> Result<()> {
        self.check()
            .map_err(|reason| Error::invalid_key("(key format)", reason))
    }

    pub(super) fn check(&self) -> std::result::Result<(), String> {
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
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) when the format
    /// is invalid: the delimiter and escape character equal, not ASCII
    /// punctuation, or reserved (`-`, `:`, `.`, `{`, `}`).
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyFormat;
    /// assert_eq!(KeyFormat::new().escape_text(r"a#b\c")?, r"a\#b\\c");
    /// assert_eq!(KeyFormat::new().escape_text("plain")?, "plain");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn escape_text(&self, text: &str) -> Result<String> {
        self.validate()?;
        let mut out = String::with_capacity(text.len());
        self.escape_into(&mut out, text);
        Ok(out)
    }

    #[inline]
    pub(super) fn escape_into(&self, out: &mut String, text: &str) {
        // Most values hold neither character: copied whole.
        if self.delimiter.is_ascii()
            && self.escape.is_ascii()
            && !holds_either(text.as_bytes(), self.delimiter as u8, self.escape as u8)
        {
            out.push_str(text);
            return;
        }
        self.escape_each(out, text);
    }

    /// [`escape_into`](Self::escape_into) of text that holds a delimiter or
    /// escape character (or of a format with a character that is not
    /// ASCII): character by character.
    fn escape_each(&self, out: &mut String, text: &str) {
        for c in text.chars() {
            if c == self.delimiter || c == self.escape {
                out.push(self.escape);
            }
            out.push(c);
        }
    }

    /// Joins components into a key: each escaped, then joined with the
    /// delimiter. For keys whose shape is only known at run time (a tag or a
    /// number of components chosen then); a key of a known shape is a
    /// [`KeyPattern`](crate::KeyPattern). [`split`](Self::split) gives the
    /// components back.
    pub(crate) fn join<S: AsRef<str>>(&self, role: KeyRole, components: &[S]) -> Result<String> {
        self.validate()?;
        let invalid = |reason: String| Error::invalid_key("(key)", reason);
        if components.is_empty() {
            return Err(invalid(format!("a {} needs a component", role.describe())));
        }
        let mut key = String::new();
        for (i, component) in components.iter().enumerate() {
            let component = component.as_ref();
            if component.is_empty() {
                return Err(invalid(format!(
                    "component {i} is empty; DynamoDB rejects empty key values and it would \
                     not split back"
                )));
            }
            if i > 0 {
                key.push(self.delimiter);
            }
            self.escape_into(&mut key, component);
        }
        check_size(&key, role).map_err(|reason| invalid(format!("{key:?} {reason}")))?;
        Ok(key)
    }

    /// Splits a key into its components, undoing the escaping: the inverse of
    /// a pattern's
    /// [`render`](super::BoundPattern::render) (the pattern's literal text
    /// counts as components too).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) (attribute
    /// `(key)`) when the key is empty, has an empty component, an escape
    /// character not followed by the delimiter or the escape character, or when
    /// the format is invalid.
    ///
    /// ```
    /// use dynamodb_mapper::key::KeyFormat;
    ///
    /// assert_eq!(KeyFormat::new().split(r"A\##B")?, ["A#", "B"]);
    /// assert_eq!(KeyFormat::new().split(r"A#\#B")?, ["A", "#B"]);
    /// let err = KeyFormat::new().split("A##B").unwrap_err();
    /// assert_eq!(err.to_string(), "key attribute `(key)` \"A##B\" has an empty component at byte 2");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn split(&self, key: &str) -> Result<Vec<String>> {
        self.validate()?;
        split_key(key, *self)
            .map_err(|reason| Error::invalid_key("(key)", format!("{key:?} {reason}")))
    }
}

pub(super) fn split_key(key: &str, format: KeyFormat) -> std::result::Result<Vec<String>, String> {
    segments(key, format)
        .map(|segment| segment.map(Cow::into_owned))
        .collect()
}

/// The components of `key`, unescaped, in order; borrowed from the key
/// where they hold no escape. Yields the first problem (an empty key or
/// component, an unknown or lone escape) as its last item.
pub(super) fn segments(key: &str, format: KeyFormat) -> Segments<'_> {
    Segments {
        key,
        start: 0,
        format,
        done: false,
    }
}

pub(super) struct Segments<'k> {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum KeyRole {
    /// A partition (hash) key: at most 2048 bytes.
    Partition,
    /// A sort (range) key: at most 1024 bytes.
    Sort,
}

impl KeyRole {
    /// DynamoDB's size limit for this kind of key, in bytes.
    #[must_use]
    pub(crate) const fn max_bytes(self) -> usize {
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
}

/// Whether `bytes` holds the byte `a` or `b`, eight bytes at a time: a
/// word holds a byte equal to `a` when the word XOR `a` in every byte
/// holds a zero byte, which `(x - 0x01..01) & !x & 0x80..80` tells
/// exactly (nonzero iff some byte of `x` is zero).
#[inline(always)]
pub(super) fn holds_either(bytes: &[u8], a: u8, b: u8) -> bool {
    // A short value (most ids) is quicker to look at byte by byte, here
    // rather than through a call.
    if bytes.len() < 8 {
        return bytes.iter().any(|&c| c == a || c == b);
    }
    holds_either_by_words(bytes, a, b)
}

/// [`holds_either`] a word (8 bytes) at a time.
fn holds_either_by_words(bytes: &[u8], a: u8, b: u8) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS != 0;
    let (wa, wb) = (ONES * u64::from(a), ONES * u64::from(b));
    let mut chunks = bytes.chunks_exact(8);
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_ne_bytes(word);
        if has_zero(w ^ wa) || has_zero(w ^ wb) {
            return true;
        }
    }
    chunks.remainder().iter().any(|&c| c == a || c == b)
}

pub(super) fn check_size(key: &str, role: KeyRole) -> std::result::Result<(), String> {
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

/// The greatest string sort key that starts with `prefix`: `prefix`
/// followed by the greatest UTF-8 text that fits the sort key size limit
/// ([`MAX_SORT_KEY_BYTES`], 1,024 bytes), so `BETWEEN low AND
/// last_sort_key_with_prefix(p)` includes every key starting with `p`.
///
/// DynamoDB compares strings by their UTF-8 bytes. The text is `U+10FFFF`
/// (bytes `F4 8F BF BF`, the greatest a character can start with) repeated,
/// then the greatest character of the remaining length (`U+FFFF`, `U+07FF`
/// or `U+007F`); no valid key of at most 1,024 bytes that starts with
/// `prefix` sorts after it. A `prefix` already at or over the limit is
/// returned as it is (a key condition then reports its size).
#[must_use]
pub(crate) fn last_sort_key_with_prefix(prefix: &str) -> String {
    let room = MAX_SORT_KEY_BYTES.saturating_sub(prefix.len());
    let mut out = String::with_capacity(prefix.len() + room);
    out.push_str(prefix);
    out.extend(std::iter::repeat_n('\u{10FFFF}', room / 4));
    match room % 4 {
        3 => out.push('\u{FFFF}'),
        2 => out.push('\u{07FF}'),
        1 => out.push('\u{007F}'),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_refuses_what_would_not_be_a_key_or_not_split_back() {
        let f = KeyFormat::new();
        let none: [&str; 0] = [];
        for (components, reason) in [
            (&none[..], "needs a component"),
            (&["ORDER", ""][..], "component 1 is empty"),
        ] {
            let err = f.join(KeyRole::Partition, components).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidKey);
            assert!(err.to_string().contains(reason), "{err}");
        }
        let long = "x".repeat(MAX_SORT_KEY_BYTES);
        let err = f.join(KeyRole::Sort, &["T", &long]).unwrap_err();
        assert!(
            err.to_string()
                .contains("over the sort key limit of 1024 bytes"),
            "{err}"
        );
        // The same key fits a partition key.
        assert!(f.join(KeyRole::Partition, &["T", &long]).is_ok());
    }

    /// The word-at-a-time search finds what a byte-by-byte one finds, at
    /// every position of texts of every length around a word, next to bytes
    /// one away from the sought ones and bytes of multi-byte characters.
    #[test]
    fn holds_either_finds_what_a_byte_search_finds() {
        let fill = [
            b'a',
            b'#' - 1,
            b'#' + 1,
            b'\\' + 1,
            0x80,
            0xC3,
            0xFF,
            0x00,
            0x01,
        ];
        for len in 0..20 {
            for at in 0..=len {
                for &f in &fill {
                    for needle in [None, Some(b'#'), Some(b'\\')] {
                        let mut bytes = vec![f; len];
                        if let (Some(n), Some(slot)) = (needle, bytes.get_mut(at)) {
                            *slot = n;
                        }
                        let naive = bytes.iter().any(|&c| c == b'#' || c == b'\\');
                        assert_eq!(holds_either(&bytes, b'#', b'\\'), naive, "{bytes:?}");
                    }
                }
            }
        }
    }
}
