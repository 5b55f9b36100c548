//! Items and what the crate knows about them: typed getters, size by
//! DynamoDB's rules, value checks and TTL values.

use std::collections::HashMap;
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};

/// An item, exactly as the SDK has it: what `GetItem` returns and `PutItem` takes.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::Item;
///
/// let mut item = Item::new();
/// item.insert("pk".into(), AttributeValue::S("CUSTOMER#C1".into()));
/// assert_eq!(item.len(), 1);
/// ```
pub type Item = HashMap<String, AttributeValue>;

/// DynamoDB's maximum item size in bytes (400 KB).
///
/// ```
/// assert_eq!(dynamodb_mapper::MAX_ITEM_SIZE, 409_600);
/// ```
pub const MAX_ITEM_SIZE: usize = 409_600;

/// The most significant digits a DynamoDB number may have.
///
/// ```
/// assert_eq!(dynamodb_mapper::MAX_NUMBER_DIGITS, 38);
/// ```
pub const MAX_NUMBER_DIGITS: usize = 38;

/// A short name for the type of an attribute value, used in error messages.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
///
/// assert_eq!(dynamodb_mapper::type_name(&AttributeValue::N("1".into())), "a number (N)");
/// ```
#[must_use]
pub fn type_name(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "a string (S)",
        AttributeValue::N(_) => "a number (N)",
        AttributeValue::B(_) => "a binary (B)",
        AttributeValue::Bool(_) => "a boolean (BOOL)",
        AttributeValue::Null(_) => "null (NULL)",
        AttributeValue::L(_) => "a list (L)",
        AttributeValue::M(_) => "a map (M)",
        AttributeValue::Ss(_) => "a string set (SS)",
        AttributeValue::Ns(_) => "a number set (NS)",
        AttributeValue::Bs(_) => "a binary set (BS)",
        _ => "a value of a type unknown to this SDK version",
    }
}

/// Typed, non-panicking getters on an [`Item`].
///
/// Each getter returns [`Error::MissingAttribute`] when the attribute is absent
/// and [`Error::WrongType`] when it has another type; number getters return
/// [`Error::InvalidValue`] when the number does not fit the requested type.
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
    /// The attribute, or [`Error::MissingAttribute`].
    ///
    /// # Errors
    /// When the attribute is absent.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, ItemExt};
    /// assert!(Item::new().get_attr("pk").is_err());
    /// ```
    fn get_attr(&self, name: &str) -> Result<&AttributeValue>;

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
    /// When the attribute is absent, not a number, or not whole non-negative seconds.
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
}

fn wrong_type(name: &str, expected: &'static str, found: &AttributeValue) -> Error {
    Error::WrongType {
        entity_type: None,
        attribute: name.to_owned(),
        expected,
        found: type_name(found),
    }
}

impl ItemExt for Item {
    fn get_attr(&self, name: &str) -> Result<&AttributeValue> {
        self.get(name).ok_or_else(|| Error::missing_attribute(name))
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
        let secs: u64 = self.get_number(name).map_err(|e| match e {
            Error::InvalidValue { path, .. } => {
                Error::invalid_value(path, "is not whole non-negative epoch seconds")
            }
            other => other,
        })?;
        Ok(UNIX_EPOCH + Duration::from_secs(secs))
    }
}

/// The TTL value for `at`: a Number of whole epoch seconds, as DynamoDB's TTL
/// requires (fractions of a second are dropped).
///
/// # Errors
/// [`Error::InvalidValue`] when `at` is before the Unix epoch.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use aws_sdk_dynamodb::types::AttributeValue;
///
/// let v = dynamodb_mapper::ttl_value(UNIX_EPOCH + Duration::from_millis(1_500))?;
/// assert_eq!(v, AttributeValue::N("1".into()));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn ttl_value(at: SystemTime) -> Result<AttributeValue> {
    let secs = at
        .duration_since(UNIX_EPOCH)
        .map_err(|_| Error::invalid_value("ttl", "is before the unix epoch"))?
        .as_secs();
    Ok(AttributeValue::N(secs.to_string()))
}

/// Size of an item by DynamoDB's rules: UTF-8 bytes of every attribute name
/// plus the size of its value (see [`value_size`]).
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::{Item, item_size};
///
/// let item = Item::from([("pk".to_string(), AttributeValue::S("abc".into()))]);
/// assert_eq!(item_size(&item), 5);
/// ```
#[must_use]
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(k, v)| k.len() + value_size(v)).sum()
}

/// Size of one attribute value by DynamoDB's rules.
///
/// Strings and binaries count their bytes; numbers one byte per two significant
/// digits plus one; booleans and nulls one byte; lists and maps three bytes plus
/// one byte per element plus the elements (and, for maps, the element names);
/// sets the sum of their elements.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::value_size;
///
/// assert_eq!(value_size(&AttributeValue::N("12345".into())), 4);
/// assert_eq!(value_size(&AttributeValue::L(vec![AttributeValue::Bool(true)])), 5);
/// ```
#[must_use]
pub fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::L(l) => 3 + l.iter().map(|v| 1 + value_size(v)).sum::<usize>(),
        AttributeValue::M(m) => {
            3 + m
                .iter()
                .map(|(k, v)| 1 + k.len() + value_size(v))
                .sum::<usize>()
        }
        AttributeValue::Ss(s) => s.iter().map(String::len).sum(),
        AttributeValue::Ns(n) => n.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(b) => b.iter().map(|b| b.as_ref().len()).sum(),
        _ => 0,
    }
}

fn number_size(n: &str) -> usize {
    match parse_number(n) {
        Ok(digits) => digits.div_ceil(2) + 1,
        Err(_) => n.len(),
    }
}

/// Checks a DynamoDB number string and returns its count of significant digits.
///
/// Accepts an optional sign, digits with an optional fraction, and an optional
/// exponent; rejects `NaN`, infinities, more than 38 significant digits and
/// magnitudes outside 1E-130 ..= 9.99…E+125.
pub(crate) fn parse_number(n: &str) -> std::result::Result<usize, String> {
    let bytes = n.as_bytes();
    let mut i = 0;
    if matches!(bytes.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    let mut digits: Vec<u8> = Vec::new();
    let mut int_len = 0usize;
    let mut seen_dot = false;
    while let Some(&c) = bytes.get(i) {
        match c {
            b'0'..=b'9' => {
                digits.push(c);
                if !seen_dot {
                    int_len += 1;
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            _ => break,
        }
        i += 1;
    }
    if digits.is_empty() {
        return Err(format!("is not a number: {n:?}"));
    }
    let mut exp: i64 = 0;
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let rest = &n[i + 1..];
        let unsigned = rest.strip_prefix(['-', '+']).unwrap_or(rest);
        if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("is not a number: {n:?}"));
        }
        // Exponents this long are out of range anyway; avoid overflow.
        exp = if unsigned.len() > 6 {
            if rest.starts_with('-') {
                -1_000_000
            } else {
                1_000_000
            }
        } else {
            rest.parse::<i64>()
                .map_err(|_| format!("is not a number: {n:?}"))?
        };
        i = bytes.len();
    }
    if i != bytes.len() {
        return Err(format!("is not a number: {n:?}"));
    }
    let Some(first) = digits.iter().position(|&d| d != b'0') else {
        return Ok(0); // zero
    };
    let last = digits.iter().rposition(|&d| d != b'0').unwrap_or(first);
    let significant = last - first + 1;
    if significant > MAX_NUMBER_DIGITS {
        return Err(format!(
            "has {significant} significant digits, more than DynamoDB's {MAX_NUMBER_DIGITS}"
        ));
    }
    // value = d.ddd × 10^adjusted
    let adjusted = int_len as i64 - first as i64 - 1 + exp;
    if adjusted > 125 {
        return Err(format!(
            "is {n}, larger in magnitude than DynamoDB's 1E+126"
        ));
    }
    if adjusted < -130 {
        return Err(format!(
            "is {n}, smaller in magnitude than DynamoDB's 1E-130"
        ));
    }
    Ok(significant)
}

/// Checks every value of an item as DynamoDB would and returns the item size.
///
/// Rejects invalid numbers (NaN, infinity, more than 38 significant digits, out
/// of range), empty sets, sets with duplicates, and values of a type this SDK
/// version does not know. Errors name the attribute path.
pub(crate) fn check_values(item: &Item) -> Result<usize> {
    let mut size = 0;
    for (name, value) in item {
        size += name.len();
        size += check_value(value).map_err(|(mut path, reason)| {
            path.insert_str(0, name);
            Error::invalid_value(path, reason)
        })?;
    }
    Ok(size)
}

type PathError = (String, String);

fn check_value(value: &AttributeValue) -> std::result::Result<usize, PathError> {
    let at = |reason: String| (String::new(), reason);
    Ok(match value {
        AttributeValue::N(n) => parse_number(n).map_err(at)?.div_ceil(2) + 1,
        AttributeValue::Ns(set) => {
            if set.is_empty() {
                return Err(at(
                    "is an empty number set; DynamoDB rejects empty sets".into()
                ));
            }
            let mut size = 0;
            for n in set {
                size += parse_number(n).map_err(at)?.div_ceil(2) + 1;
            }
            check_unique(set.iter().map(|n| normalize_number(n)).collect()).map_err(at)?;
            size
        }
        AttributeValue::Ss(set) => {
            if set.is_empty() {
                return Err(at(
                    "is an empty string set; DynamoDB rejects empty sets".into()
                ));
            }
            check_unique(set.iter().map(String::as_str).collect()).map_err(at)?;
            set.iter().map(String::len).sum()
        }
        AttributeValue::Bs(set) => {
            if set.is_empty() {
                return Err(at(
                    "is an empty binary set; DynamoDB rejects empty sets".into()
                ));
            }
            check_unique(set.iter().map(|b| b.as_ref()).collect()).map_err(at)?;
            set.iter().map(|b| b.as_ref().len()).sum()
        }
        AttributeValue::L(list) => {
            let mut size = 3;
            for (i, v) in list.iter().enumerate() {
                size += 1 + check_value(v)
                    .map_err(|(path, reason)| (format!("[{i}]{path}"), reason))?;
            }
            size
        }
        AttributeValue::M(map) => {
            let mut size = 3;
            for (k, v) in map {
                size += 1
                    + k.len()
                    + check_value(v).map_err(|(path, reason)| (format!(".{k}{path}"), reason))?;
            }
            size
        }
        AttributeValue::S(_)
        | AttributeValue::B(_)
        | AttributeValue::Bool(_)
        | AttributeValue::Null(_) => value_size(value),
        _ => return Err(at(UNKNOWN_TYPE.into())),
    })
}

pub(crate) const UNKNOWN_TYPE: &str =
    "has a type this SDK version does not know (AttributeValue::Unknown)";

fn normalize_number(n: &str) -> String {
    // Good enough to catch textual duplicates like "1" and "1.0".
    let t = n.trim_start_matches('+');
    if t.contains(['e', 'E']) {
        return t.to_ascii_lowercase();
    }
    if t.contains('.') {
        let t = t.trim_end_matches('0').trim_end_matches('.');
        return t.to_owned();
    }
    t.to_owned()
}

fn check_unique<T: Ord + std::fmt::Debug>(mut v: Vec<T>) -> std::result::Result<(), String> {
    v.sort_unstable();
    match v.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(format!(
            "is a set with the duplicate value {:?}; DynamoDB rejects duplicates in sets",
            w[0]
        )),
        None => Ok(()),
    }
}

/// Finds a value of a type this SDK version does not know, anywhere inside
/// `value`, and returns its path relative to `value`.
///
/// `serde_dynamo` panics on such values, so every value is checked before it
/// is handed to the deserializer.
pub(crate) fn find_unknown(value: &AttributeValue) -> Option<String> {
    match value {
        AttributeValue::L(list) => list
            .iter()
            .enumerate()
            .find_map(|(i, v)| find_unknown(v).map(|p| format!("[{i}]{p}"))),
        AttributeValue::M(map) => map
            .iter()
            .find_map(|(k, v)| find_unknown(v).map(|p| format!(".{k}{p}"))),
        AttributeValue::S(_)
        | AttributeValue::N(_)
        | AttributeValue::B(_)
        | AttributeValue::Bool(_)
        | AttributeValue::Null(_)
        | AttributeValue::Ss(_)
        | AttributeValue::Ns(_)
        | AttributeValue::Bs(_) => None,
        _ => Some(String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::primitives::Blob;

    #[test]
    fn numbers() {
        assert_eq!(parse_number("0"), Ok(0));
        assert_eq!(parse_number("-0.000"), Ok(0));
        assert_eq!(parse_number("123.4500"), Ok(5));
        assert_eq!(parse_number("00120"), Ok(2));
        assert_eq!(parse_number("1e5"), Ok(1));
        assert_eq!(parse_number(&"9".repeat(38)), Ok(38));
        assert!(
            parse_number(&"9".repeat(39))
                .unwrap_err()
                .contains("39 significant")
        );
        assert!(parse_number("NaN").is_err());
        assert!(parse_number("inf").is_err());
        assert!(parse_number("-").is_err());
        assert!(parse_number("1.2.3").is_err());
        assert!(parse_number("1e").is_err());
        assert!(parse_number("1e126").is_err());
        assert_eq!(parse_number("9.9e125"), Ok(2));
        assert_eq!(parse_number("1e-130"), Ok(1));
        assert!(parse_number("1e-131").is_err());
        assert!(parse_number("1e99999999999999999999").is_err());
        assert_eq!(parse_number("0e99999999999999999999"), Ok(0));
    }

    #[test]
    fn sizes() {
        let item = Item::from([
            ("a".to_string(), AttributeValue::S("xyz".into())),
            ("n".to_string(), AttributeValue::N("123".into())),
            ("b".to_string(), AttributeValue::B(Blob::new(vec![0; 10]))),
            (
                "m".to_string(),
                AttributeValue::M(HashMap::from([(
                    "k".to_string(),
                    AttributeValue::Null(true),
                )])),
            ),
        ]);
        // a:1+3, n:1+3, b:1+10, m:1+(3+1+1+1)
        assert_eq!(item_size(&item), 4 + 4 + 11 + 7);
        assert_eq!(check_values(&item).unwrap(), item_size(&item));
    }

    #[test]
    fn value_checks_name_the_path() {
        let item = Item::from([(
            "lines".to_string(),
            AttributeValue::L(vec![AttributeValue::M(HashMap::from([(
                "tags".to_string(),
                AttributeValue::Ss(vec![]),
            )]))]),
        )]);
        let err = check_values(&item).unwrap_err();
        assert_eq!(
            err.to_string(),
            "attribute `lines[0].tags` is an empty string set; DynamoDB rejects empty sets"
        );
        let item = Item::from([(
            "x".to_string(),
            AttributeValue::Ns(vec!["1".into(), "1.0".into()]),
        )]);
        assert!(
            check_values(&item)
                .unwrap_err()
                .to_string()
                .contains("duplicate")
        );
        let item = Item::from([("x".to_string(), AttributeValue::N("NaN".into()))]);
        assert_eq!(
            check_values(&item).unwrap_err().to_string(),
            "attribute `x` is not a number: \"NaN\""
        );
    }

    #[test]
    fn ttl_before_epoch_is_an_error() {
        let err = ttl_value(UNIX_EPOCH - Duration::from_secs(1)).unwrap_err();
        assert_eq!(err.to_string(), "attribute `ttl` is before the unix epoch");
    }
}
