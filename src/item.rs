//! Items and what the crate knows about them: typed getters, size by
//! DynamoDB's rules, value checks and TTL values.

use std::collections::HashMap;
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::types::AttributeValue;

pub use crate::error::type_name;
use crate::error::{Error, Result, shown, write_key_part};

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
}

fn wrong_type(name: &str, expected: &'static str, found: &AttributeValue) -> Error {
    Error::WrongType {
        key: None,
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
        // A u64 of seconds can be past what `SystemTime` holds: an error,
        // not the panic of `+`.
        UNIX_EPOCH
            .checked_add(Duration::from_secs(secs))
            .ok_or_else(|| {
                Error::invalid_value(name, format!("is {secs}, too far in the future for a time"))
            })
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
/// Strings and binaries count their bytes; booleans and nulls one byte; lists
/// and maps three bytes plus one byte per element plus the elements (and, for
/// maps, the element names); sets the sum of their elements. A number counts
/// one byte per pair of digits, the pairs aligned on the decimal point (so
/// `1.5` is `01.50`, two pairs), plus one, plus one more when it is negative
/// and shorter than 20 pairs; zero is one byte. That is DynamoDB's documented
/// "one byte per two significant digits plus one", made exact by measuring
/// DynamoDB Local (`tests/limits_local.rs`).
///
/// Lists and maps are walked with an explicit stack, not recursion, so a
/// value of any depth is measured without overflowing the stack.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::value_size;
///
/// assert_eq!(value_size(&AttributeValue::N("12345".into())), 4);
/// assert_eq!(value_size(&AttributeValue::N("1.5".into())), 3);
/// assert_eq!(value_size(&AttributeValue::N("-12".into())), 3);
/// assert_eq!(value_size(&AttributeValue::L(vec![AttributeValue::Bool(true)])), 5);
/// ```
#[must_use]
pub fn value_size(value: &AttributeValue) -> usize {
    let mut size = 0;
    // Lists and maps still to measure; scalars are added as they are met.
    let mut pending: Vec<&AttributeValue> = Vec::new();
    let mut next = Some(value);
    while let Some(v) = next.take().or_else(|| pending.pop()) {
        match v {
            AttributeValue::L(list) => {
                size += 3 + list.len();
                for element in list {
                    match element {
                        AttributeValue::L(_) | AttributeValue::M(_) => pending.push(element),
                        scalar => size += scalar_size(scalar),
                    }
                }
            }
            AttributeValue::M(map) => {
                size += 3;
                for (name, element) in map {
                    size += 1 + name.len();
                    match element {
                        AttributeValue::L(_) | AttributeValue::M(_) => pending.push(element),
                        scalar => size += scalar_size(scalar),
                    }
                }
            }
            scalar => size += scalar_size(scalar),
        }
    }
    size
}

/// Size of a value that is not a list or map.
fn scalar_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(s) => s.iter().map(String::len).sum(),
        AttributeValue::Ns(n) => n.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(b) => b.iter().map(|b| b.as_ref().len()).sum(),
        _ => 0,
    }
}

fn number_size(n: &str) -> usize {
    match parse_decimal(n) {
        Ok(d) => d.size(),
        Err(_) => n.len(),
    }
}

/// A DynamoDB number, reduced to what identifies its value.
struct Decimal {
    negative: bool,
    /// Significant digits (ASCII), no leading or trailing zeros; empty for zero.
    digits: Vec<u8>,
    /// The power of ten of the first significant digit: value =
    /// d.ddd × 10^adjusted.
    adjusted: i64,
}

impl Decimal {
    /// Stored size, measured against DynamoDB Local (see
    /// `tests/limits_local.rs`): the digits in base-100 pairs aligned on the
    /// decimal point, plus one byte of exponent, plus one for a negative
    /// number shorter than 20 pairs; zero is one byte. The documented "one
    /// byte per two significant digits plus one" is this rounded down.
    fn size(&self) -> usize {
        let Some(len) = i64::try_from(self.digits.len()).ok().filter(|&l| l > 0) else {
            return 1; // zero
        };
        let last = self.adjusted - (len - 1);
        let pairs = usize::try_from(self.adjusted.div_euclid(2) - last.div_euclid(2) + 1)
            .unwrap_or(usize::MAX / 2);
        1 + pairs + usize::from(self.negative && pairs < 20)
    }

    /// One spelling per value, to find duplicates in number sets (`1`,
    /// `1.0`, `1e0` and `+01` are one value to DynamoDB).
    fn canonical(&self) -> String {
        if self.digits.is_empty() {
            return "0".to_owned();
        }
        let sign = if self.negative { "-" } else { "" };
        let digits = String::from_utf8_lossy(&self.digits);
        format!("{sign}{digits}e{}", self.adjusted)
    }
}

/// Parses a number the way DynamoDB reads it (Java's `BigDecimal`, ASCII
/// digits only): an optional sign, digits with an optional point, an
/// optional exponent of at most ten digits after leading zeros that fits a
/// 32-bit integer; at most 38 significant digits, magnitude within
/// 1E-130 ..= 9.99…E+125.
fn parse_decimal(n: &str) -> std::result::Result<Decimal, String> {
    let d = parse_decimal_syntax(n)?;
    let significant = d.digits.len();
    if significant > MAX_NUMBER_DIGITS {
        return Err(format!(
            "has {significant} significant digits, more than DynamoDB's {MAX_NUMBER_DIGITS}"
        ));
    }
    if significant > 0 && d.adjusted > 125 {
        return Err(format!(
            "is {}, larger in magnitude than DynamoDB's 1E+126",
            shown(n)
        ));
    }
    if significant > 0 && d.adjusted < -130 {
        return Err(format!(
            "is {}, smaller in magnitude than DynamoDB's 1E-130",
            shown(n)
        ));
    }
    Ok(d)
}

/// The syntax of [`parse_decimal`] without DynamoDB's limits on digits and
/// magnitude.
fn parse_decimal_syntax(n: &str) -> std::result::Result<Decimal, String> {
    let shown = shown(n);
    let not_a_number = || format!("is not a number: {shown:?}");
    let bytes = n.as_bytes();
    let mut i = 0;
    let negative = bytes.first() == Some(&b'-');
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
        return Err(not_a_number());
    }
    let frac_len = digits.len() - int_len;
    let mut exp: i64 = 0;
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let rest = n.get(i + 1..).unwrap_or("");
        let unsigned = rest.strip_prefix(['-', '+']).unwrap_or(rest);
        if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
            return Err(not_a_number());
        }
        let significant = unsigned.trim_start_matches('0');
        if significant.len() > 10 {
            return Err(format!("{}, its exponent is out of range", not_a_number()));
        }
        let magnitude: i64 = if significant.is_empty() {
            0
        } else {
            significant.parse().map_err(|_| not_a_number())?
        };
        exp = if rest.starts_with('-') {
            -magnitude
        } else {
            magnitude
        };
        // `BigDecimal`: the exponent and the scale (fraction digits minus
        // exponent) are 32-bit integers.
        let scale = i64::try_from(frac_len).unwrap_or(i64::MAX) - exp;
        if i32::try_from(exp).is_err() || i32::try_from(scale).is_err() {
            return Err(format!("{}, its exponent is out of range", not_a_number()));
        }
        i = bytes.len();
    }
    if i != bytes.len() {
        return Err(not_a_number());
    }
    let Some(first) = digits.iter().position(|&d| d != b'0') else {
        return Ok(Decimal {
            negative: false,
            digits: Vec::new(),
            adjusted: 0,
        });
    };
    let last = digits.iter().rposition(|&d| d != b'0').unwrap_or(first);
    // value = d.ddd × 10^adjusted
    let adjusted = int_len as i64 - first as i64 - 1 + exp;
    digits.truncate(last + 1);
    digits.drain(..first);
    Ok(Decimal {
        negative,
        digits,
        adjusted,
    })
}

/// Checks a DynamoDB number string and returns its count of significant digits.
///
/// Accepts an optional sign, digits with an optional fraction, and an optional
/// exponent; rejects `NaN`, infinities, more than 38 significant digits,
/// magnitudes outside 1E-130 ..= 9.99…E+125 and exponents DynamoDB cannot
/// read.
pub(crate) fn parse_number(n: &str) -> std::result::Result<usize, String> {
    parse_decimal(n).map(|d| d.digits.len())
}

/// One spelling per numeric value (`1`, `1.0`, `1E0` and `01` give the same
/// string), or `None` when `n` is not a number DynamoDB accepts.
pub(crate) fn canonical_number(n: &str) -> Option<String> {
    parse_decimal(n).ok().map(|d| d.canonical())
}

/// The longest attribute name DynamoDB documents (64 KB).
const MAX_NAME_BYTES: usize = 65_536;

/// How deep lists and maps may nest inside a top-level attribute: DynamoDB
/// documents "nested attributes up to 32 levels deep", and rejects a 32nd
/// nested list or map (measured against DynamoDB Local).
pub(crate) const MAX_NESTING: usize = 31;

/// Checks every value of an item as DynamoDB would and returns the item size.
///
/// Rejects invalid numbers (NaN, infinity, more than 38 significant digits, out
/// of range), empty sets, sets with duplicates, empty or over-long attribute
/// names, lists and maps nested too deep, and values of a type this SDK
/// version does not know. Errors name the attribute path. Walks the item
/// without recursion (see [`walk`]), so any depth is safe.
pub(crate) fn check_values(item: &Item) -> Result<usize> {
    let mut size = 0;
    let mut frames = Frames::new();
    for (name, value) in item {
        check_name(name).map_err(|reason| Error::invalid_value(shorten(name), reason))?;
        size += name.len();
        walk(&mut frames, name, value, |value, step| {
            size += match step {
                Step::Attribute => 0,
                Step::Index(_) => 1,
                Step::Name(k) => {
                    check_name(k)?;
                    1 + k.len()
                }
            };
            size += match value {
                AttributeValue::L(_) | AttributeValue::M(_) => 3,
                AttributeValue::N(n) => parse_decimal(n)?.size(),
                AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_) => {
                    check_set(value)?
                }
                AttributeValue::S(_)
                | AttributeValue::B(_)
                | AttributeValue::Bool(_)
                | AttributeValue::Null(_) => scalar_size(value),
                _ => return Err(UNKNOWN_TYPE.into()),
            };
            Ok(())
        })
        .map_err(|(path, reason)| Error::invalid_value(path, reason))?;
    }
    Ok(size)
}

/// Checks an item as it was received, before anything else looks at it:
/// lists and maps nested at most [`MAX_NESTING`] deep (checked without
/// recursion, so later recursive code only ever sees bounded depth), and
/// sets as DynamoDB keeps them: not empty, valid numbers, no duplicate
/// members (numbers compared by value). In the attributes `read` says will
/// be deserialized, also no value of a type this SDK version does not know
/// (other attributes may keep one, as DynamoDB may add types). Numbers
/// outside sets are checked when they are read, against the type they are
/// read into.
pub(crate) fn check_received(item: &Item, read: impl Fn(&str) -> bool) -> Result<()> {
    let mut frames = Frames::new();
    for (name, value) in item {
        walk(&mut frames, name, value, |value, _| match value {
            AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_) => {
                check_set(value).map(drop)
            }
            AttributeValue::S(_)
            | AttributeValue::N(_)
            | AttributeValue::B(_)
            | AttributeValue::Bool(_)
            | AttributeValue::Null(_)
            | AttributeValue::L(_)
            | AttributeValue::M(_) => Ok(()),
            _ if read(name) => Err(UNKNOWN_TYPE.into()),
            _ => Ok(()),
        })
        .map_err(|(path, reason)| Error::invalid_value(path, reason))?;
    }
    Ok(())
}

/// Checks only that lists and maps in `item` nest at most [`MAX_NESTING`]
/// deep, without recursion.
pub(crate) fn check_depth<'a>(
    item: impl IntoIterator<Item = (&'a String, &'a AttributeValue)>,
) -> Result<()> {
    let mut frames = Frames::new();
    for (name, value) in item {
        walk(&mut frames, name, value, |_, _| Ok(()))
            .map_err(|(path, reason)| Error::invalid_value(path, reason))?;
    }
    Ok(())
}

fn check_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() {
        return Err("has an empty name; DynamoDB rejects empty attribute names".into());
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(format!(
            "has a name of {} bytes, over DynamoDB's limit of {MAX_NAME_BYTES} bytes",
            name.len()
        ));
    }
    Ok(())
}

/// A name for an error path: over-long names are cut to their first 64
/// bytes (at a character boundary) and an ellipsis.
fn shorten(name: &str) -> std::borrow::Cow<'_, str> {
    if name.len() <= 64 {
        return name.into();
    }
    let mut end = 64;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &name[..end]).into()
}

/// (attribute path, reason)
type PathError = (String, String);

/// How the walk reached a value.
#[derive(Clone, Copy)]
enum Step<'a> {
    /// The top-level attribute's own value.
    Attribute,
    /// An element of a list.
    Index(usize),
    /// An entry of a map, by its name.
    Name(&'a str),
}

/// The walk's stack: the lists and maps it is inside, and how it got there.
type Frames<'a> = Vec<(Children<'a>, Step<'a>)>;

/// The elements of a list or map still to visit.
enum Children<'a> {
    List(std::iter::Enumerate<std::slice::Iter<'a, AttributeValue>>),
    Map(std::collections::hash_map::Iter<'a, String, AttributeValue>),
}

fn too_deep() -> String {
    format!(
        "nests lists and maps {} or more levels deep; DynamoDB allows {MAX_NESTING} \
         (values at most 32 levels deep)",
        MAX_NESTING + 1
    )
}

/// Visits `value` (the attribute `name`) and everything inside it, depth
/// first, with an explicit stack of at most [`MAX_NESTING`] frames instead of
/// recursion: a list or map nested deeper is an error before anything inside
/// it is visited, so a value of any depth (a hand-built item 100,000 levels
/// deep) is refused without overflowing the stack. `visit` sees each value
/// and how it was reached; its error, and the depth error, come back with
/// the value's attribute path (`lines[2].price`).
///
/// `frames` is scratch space (reused across attributes: one allocation per
/// item at most), empty when the walk succeeds.
fn walk<'a>(
    frames: &mut Frames<'a>,
    name: &'a str,
    value: &'a AttributeValue,
    mut visit: impl FnMut(&'a AttributeValue, Step<'a>) -> std::result::Result<(), String>,
) -> std::result::Result<(), PathError> {
    frames.clear();
    let mut next = Some((value, Step::Attribute));
    loop {
        if let Some((value, step)) = next.take() {
            // A top-level attribute's own value is depth 1.
            let depth = frames.len() + 1;
            let children = match value {
                AttributeValue::L(list) => Some(Children::List(list.iter().enumerate())),
                AttributeValue::M(map) => Some(Children::Map(map.iter())),
                _ => None,
            };
            let checked = if children.is_some() && depth > MAX_NESTING {
                Err(too_deep())
            } else {
                visit(value, step)
            };
            if let Err(reason) = checked {
                return Err((path_of(name, frames, step), reason));
            }
            if let Some(children) = children {
                frames.push((children, step));
            }
        }
        let Some((children, _)) = frames.last_mut() else {
            return Ok(());
        };
        next = match children {
            Children::List(iter) => iter.next().map(|(i, v)| (v, Step::Index(i))),
            Children::Map(iter) => iter.next().map(|(k, v)| (v, Step::Name(k.as_str()))),
        };
        if next.is_none() {
            frames.pop();
        }
    }
}

/// The attribute path of a value the walk reached by `last`.
fn path_of(name: &str, frames: &[(Children<'_>, Step<'_>)], last: Step<'_>) -> String {
    use std::fmt::Write as _;
    let mut path = shorten(name).into_owned();
    for step in frames.iter().map(|(_, step)| *step).chain([last]) {
        let _ = match step {
            Step::Attribute => Ok(()),
            Step::Index(i) => write!(path, "[{i}]"),
            Step::Name(k) => write!(path, ".{}", shorten(k)),
        };
    }
    path
}

/// Checks a set (`SS`, `NS`, `BS`) as DynamoDB does and returns its size:
/// not empty, valid numbers, no duplicate members (numbers compared by
/// value, so `1` and `1.0` are duplicates).
fn check_set(value: &AttributeValue) -> std::result::Result<usize, String> {
    match value {
        AttributeValue::Ns(set) => {
            if set.is_empty() {
                return Err("is an empty number set; DynamoDB rejects empty sets".into());
            }
            let mut size = 0;
            let mut canonical = Vec::with_capacity(set.len());
            for n in set {
                let d = parse_decimal(n)?;
                size += d.size();
                canonical.push((d.canonical(), n.as_str()));
            }
            canonical.sort_unstable();
            if let Some(w) = canonical.windows(2).find(|w| w[0].0 == w[1].0) {
                let (a, b) = (shown(w[0].1), shown(w[1].1));
                return Err(if a == b {
                    format!(
                        "is a set with the duplicate value {a}; DynamoDB rejects duplicates in sets"
                    )
                } else {
                    format!(
                        "is a set with the duplicate value {a} (also as {b}); DynamoDB rejects \
                         duplicates in sets"
                    )
                });
            }
            Ok(size)
        }
        AttributeValue::Ss(set) => {
            if set.is_empty() {
                return Err("is an empty string set; DynamoDB rejects empty sets".into());
            }
            check_unique(set.iter().map(String::as_str).collect())?;
            Ok(set.iter().map(String::len).sum())
        }
        AttributeValue::Bs(set) => {
            if set.is_empty() {
                return Err("is an empty binary set; DynamoDB rejects empty sets".into());
            }
            check_unique(set.iter().map(|b| b.as_ref()).collect())?;
            Ok(set.iter().map(|b| b.as_ref().len()).sum())
        }
        _ => Ok(0),
    }
}

pub(crate) const UNKNOWN_TYPE: &str =
    "has a type this SDK version does not know (AttributeValue::Unknown)";

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

/// Drops an item without recursion: lists and maps are taken apart with an
/// explicit stack, so an item nested arbitrarily deep (one the depth check
/// refused) is freed without overflowing the stack, as the derived `Drop`
/// of `AttributeValue` would.
pub(crate) fn drop_item(item: Item) {
    let mut pending: Vec<AttributeValue> = Vec::new();
    for (_, value) in item {
        drop_value(value, &mut pending);
    }
}

/// Drops `value` as [`drop_item`] does; `pending` is scratch space, empty on
/// return.
pub(crate) fn drop_value(value: AttributeValue, pending: &mut Vec<AttributeValue>) {
    pending.push(value);
    while let Some(value) = pending.pop() {
        match value {
            AttributeValue::L(list) => pending.extend(
                list.into_iter()
                    .filter(|v| matches!(v, AttributeValue::L(_) | AttributeValue::M(_))),
            ),
            AttributeValue::M(map) => pending.extend(
                map.into_values()
                    .filter(|v| matches!(v, AttributeValue::L(_) | AttributeValue::M(_))),
            ),
            // Not a list or map: nothing nested to overflow on.
            _ => {}
        }
    }
}

/// The primary key of `item` rendered for messages: the table's key
/// attributes present in the item, partition key first, as
/// `pk="CUSTOMER#C1", sk="METADATA"` (strings quoted, numbers as they are,
/// binaries as `<n bytes>`, a value of another type by its type). Empty
/// when the item holds neither key attribute. Long values are cut.
pub(crate) fn describe_key(item: &Item, schema: &crate::schema::TableSchema) -> String {
    let pk = schema.partition_key_attribute().name;
    let sk = schema.sort_key_attribute().map(|k| k.name);
    let mut out = String::new();
    for name in std::iter::once(pk).chain(sk) {
        let Some(value) = item.get(name) else {
            continue;
        };
        if !out.is_empty() {
            out.push_str(", ");
        }
        write_key_part(&mut out, name, value);
    }
    out
}

/// The `n` largest attributes of `item` by DynamoDB's size (name plus
/// value), largest first, for [`Error::ItemTooLarge`].
pub(crate) fn largest_attributes(item: &Item, n: usize) -> Vec<(String, usize)> {
    let mut sizes: Vec<(&String, usize)> = item
        .iter()
        .map(|(name, value)| (name, name.len() + value_size(value)))
        .collect();
    sizes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    sizes
        .into_iter()
        .take(n)
        .map(|(name, size)| (shorten(name).into_owned(), size))
        .collect()
}

/// A float type numbers are read into (see [`read_float`]).
pub(crate) trait Float: Copy + FromStr + std::fmt::Display + std::fmt::LowerExp {
    /// Significant decimal digits every normal value of the type keeps.
    const DIGITS: usize;
    /// The type's name, for messages.
    const NAME: &'static str;
    /// Neither infinite nor NaN.
    fn finite(self) -> bool;
    /// Not zero, subnormal, infinite or NaN.
    fn normal(self) -> bool;
}

impl Float for f64 {
    const DIGITS: usize = f64::DIGITS as usize;
    const NAME: &'static str = "f64";
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn normal(self) -> bool {
        self.is_normal()
    }
}

impl Float for f32 {
    const DIGITS: usize = f32::DIGITS as usize;
    const NAME: &'static str = "f32";
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn normal(self) -> bool {
        self.is_normal()
    }
}

/// Reads the number `n` into the float type `F` only when no digit is lost.
///
/// The rule: with `d` the number's significant digits (trailing zeros
/// dropped), the nearest `F`, rounded back to `d` significant digits, must
/// be the number itself. So every number of at most 15 significant digits
/// (`f32`: 6) within the type's normal range reads, as does every float's
/// shortest representation (what this crate writes) and every integer the
/// type holds exactly (`2^60`); `9007199254740993` (2^53 + 1, which `f64`
/// holds as ...992), a 39-digit integer, or `0.1234567890123456789` into
/// `f64` do not, nor do numbers beyond the type's range or lost in its
/// underflow.
///
/// On error returns what to say was expected instead.
pub(crate) fn read_float<F: Float>(n: &str) -> std::result::Result<F, String> {
    let plain = || F::NAME.to_owned();
    let Ok(d) = parse_decimal_syntax(n) else {
        return Err(plain());
    };
    let Ok(x) = n.parse::<F>() else {
        return Err(plain());
    };
    if !x.finite() {
        return Err(format!("a number within the range of {}", F::NAME));
    }
    if d.digits.is_empty() || (d.digits.len() <= F::DIGITS && x.normal()) {
        return Ok(x);
    }
    let back = format!("{:.*e}", d.digits.len() - 1, x);
    match parse_decimal_syntax(&back) {
        Ok(b) if b.negative == d.negative && b.adjusted == d.adjusted && b.digits == d.digits => {
            Ok(x)
        }
        _ => {
            let nearest = if (-7..21).contains(&d.adjusted) {
                x.to_string()
            } else {
                format!("{x:e}")
            };
            Err(format!(
                "{} without rounding (the nearest {} is {nearest})",
                F::NAME,
                F::NAME
            ))
        }
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
        // DynamoDB reads numbers with Java's BigDecimal: the exponent must
        // fit 32 bits (after leading zeros), even for zero.
        assert!(parse_number("0e99999999999999999999").is_err());
        assert!(parse_number("0e2147483648").is_err());
        assert!(parse_number("0e-2147483648").is_err());
        assert_eq!(parse_number("0e2147483647"), Ok(0));
        assert_eq!(parse_number("1e0000000000000005"), Ok(1));
        assert_eq!(
            parse_number("1e+0000000000000000000000000000000000000001"),
            Ok(1)
        );
        assert!(
            parse_number("1e2147483648")
                .unwrap_err()
                .contains("exponent")
        );
        // ASCII digits only (DynamoDB Local also takes other Unicode digits).
        assert!(parse_number("\u{661}").is_err());
        // A long number is cut in messages (a serialized `1e300_f64`).
        assert_eq!(
            parse_number(&format!("1{}", "0".repeat(300))).unwrap_err(),
            format!(
                "is 1{}…, larger in magnitude than DynamoDB's 1E+126",
                "0".repeat(47)
            )
        );
    }

    #[test]
    fn number_sizes_as_dynamodb_local_measures_them() {
        // (number, bytes), each measured against DynamoDB Local 3.x.
        for (n, size) in [
            ("0", 1),
            ("-0", 1),
            ("0.0", 1),
            ("1", 2),
            ("10", 2),
            ("99", 2),
            ("100", 2),
            ("101", 3),
            ("1234", 3),
            ("12345", 4),
            ("0.1", 2),
            ("0.001", 2),
            ("1.5", 3),
            ("15e-1", 3),
            ("1.5e1", 2),
            ("1.5e2", 3),
            ("12.5", 3),
            ("-1", 3),
            ("-100", 3),
            ("-123", 4),
            ("-0.1", 3),
            ("-1e-130", 3),
            ("1e125", 2),
            (&"9".repeat(38), 20),
            (&format!("-{}", "9".repeat(38)), 21),
            ("1.0000000000000000000000000000000000001", 21),
            ("-1.0000000000000000000000000000000000001", 21),
            ("-1.2345678901234567890123456789012345678", 21),
            ("0.12345678901234567890123456789012345678", 20),
        ] {
            assert_eq!(value_size(&AttributeValue::N(n.into())), size, "{n}");
        }
    }

    #[test]
    fn number_set_duplicates_compare_values() {
        for dup in [
            ["1", "1e0"],
            ["10", "1e1"],
            ["0", "-0"],
            ["01", "1"],
            ["1.50", "1.5"],
            ["+1", "1"],
            ["100", "1e2"],
            ["0.0", "0e5"],
            ["0.001", "1e-3"],
            ["1e2", "10e1"],
        ] {
            let item = Item::from([(
                "x".to_string(),
                AttributeValue::Ns(dup.iter().map(|s| (*s).to_owned()).collect()),
            )]);
            let err = check_values(&item).unwrap_err().to_string();
            assert!(err.contains("duplicate"), "{dup:?}: {err}");
        }
        let item = Item::from([(
            "x".to_string(),
            AttributeValue::Ns(vec!["-1".into(), "1".into(), "0.1".into(), "1e-2".into()]),
        )]);
        assert!(check_values(&item).is_ok());
    }

    #[test]
    fn names_and_nesting() {
        let nested = |levels: usize| {
            let mut v = AttributeValue::L(vec![]);
            for _ in 1..levels {
                v = AttributeValue::L(vec![v]);
            }
            Item::from([("d".to_string(), v)])
        };
        assert!(check_values(&nested(31)).is_ok());
        assert_eq!(
            check_values(&nested(32)).unwrap_err().to_string(),
            format!(
                "attribute `d{}` nests lists and maps 32 or more levels deep; DynamoDB allows 31 \
                 (values at most 32 levels deep)",
                "[0]".repeat(31)
            )
        );
        let empty = Item::from([(String::new(), AttributeValue::Bool(true))]);
        assert_eq!(
            check_values(&empty).unwrap_err().to_string(),
            "attribute `` has an empty name; DynamoDB rejects empty attribute names"
        );
        let empty_key = Item::from([(
            "m".to_string(),
            AttributeValue::M(HashMap::from([(String::new(), AttributeValue::Bool(true))])),
        )]);
        assert_eq!(
            check_values(&empty_key).unwrap_err().to_string(),
            "attribute `m.` has an empty name; DynamoDB rejects empty attribute names"
        );
        let long = Item::from([("é".repeat(32_769), AttributeValue::Bool(true))]);
        assert_eq!(
            check_values(&long).unwrap_err().to_string(),
            format!(
                "attribute `{}…` has a name of 65538 bytes, over DynamoDB's limit of 65536 bytes",
                "é".repeat(32)
            )
        );
        let max = Item::from([("x".repeat(65_536), AttributeValue::Bool(true))]);
        assert_eq!(check_values(&max).unwrap(), 65_537);
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
    fn received_items_are_checked_without_recursion() {
        let read_all = |_: &str| true;
        // Sets as DynamoDB never stores them.
        for (value, message) in [
            (
                AttributeValue::Ss(vec![]),
                "attribute `x` is an empty string set; DynamoDB rejects empty sets",
            ),
            (
                AttributeValue::Ns(vec!["1".into(), "1.0".into()]),
                "attribute `x` is a set with the duplicate value 1 (also as 1.0); DynamoDB \
                 rejects duplicates in sets",
            ),
            (
                AttributeValue::Bs(vec![Blob::new(vec![1]), Blob::new(vec![1])]),
                "attribute `x` is a set with the duplicate value [1]; DynamoDB rejects \
                 duplicates in sets",
            ),
        ] {
            let item = Item::from([("x".to_string(), value)]);
            assert_eq!(
                check_received(&item, read_all).unwrap_err().to_string(),
                message
            );
        }
        // Deep inside lists and maps, with the path.
        let item = Item::from([(
            "m".to_string(),
            AttributeValue::M(HashMap::from([(
                "k".to_string(),
                AttributeValue::L(vec![AttributeValue::Null(true), AttributeValue::Ns(vec![])]),
            )])),
        )]);
        assert_eq!(
            check_received(&item, read_all).unwrap_err().attribute(),
            Some("m.k[1]")
        );
        // (A type this SDK does not know: `tests/mapper.rs`, which can make one.)
        // Depth, whatever it is, in constant stack: 200,000 levels.
        let mut deep = AttributeValue::Null(true);
        for _ in 0..200_000 {
            deep = AttributeValue::L(vec![deep]);
        }
        let item = Item::from([("d".to_string(), deep)]);
        let err = check_received(&item, read_all).unwrap_err();
        assert_eq!(
            err.attribute(),
            Some(format!("d{}", "[0]".repeat(31)).as_str())
        );
        assert_eq!(value_size(&item["d"]), 4 * 200_000 + 1);
        drop_item(item); // the derived `Drop` would overflow
    }

    #[test]
    fn keys_are_described_for_messages() {
        use crate::schema::{ScalarType, TableSchema};
        const T: TableSchema = TableSchema::new("pk").sort_key("sk");
        let item = Item::from([
            ("sk".to_string(), AttributeValue::N("7".into())),
            (
                "pk".to_string(),
                AttributeValue::S("CUSTOMER#\"C1\"".into()),
            ),
            ("other".to_string(), AttributeValue::S("x".into())),
        ]);
        assert_eq!(describe_key(&item, &T), r#"pk="CUSTOMER#\"C1\"", sk=7"#);
        let binary = Item::from([("pk".to_string(), AttributeValue::B(Blob::new(vec![0; 3])))]);
        assert_eq!(describe_key(&binary, &T), "pk=<3 bytes>");
        let odd = Item::from([("sk".to_string(), AttributeValue::Bool(true))]);
        assert_eq!(describe_key(&odd, &T), "sk=<a boolean (BOOL)>");
        assert_eq!(describe_key(&Item::new(), &T), "");
        let long = Item::from([("pk".to_string(), AttributeValue::S("x".repeat(100)))]);
        assert_eq!(describe_key(&long, &T), format!("pk={:?}…", "x".repeat(64)));
        const N: TableSchema = TableSchema::new("id").partition_key_type(ScalarType::N);
        let item = Item::from([("id".to_string(), AttributeValue::N("42".into()))]);
        assert_eq!(describe_key(&item, &N), "id=42");
    }

    #[test]
    fn the_largest_attributes_are_named() {
        let item = Item::from([
            ("a".to_string(), AttributeValue::S("x".repeat(10))),
            ("bb".to_string(), AttributeValue::S("x".repeat(30))),
            ("c".to_string(), AttributeValue::Bool(true)),
            ("d".to_string(), AttributeValue::S("x".repeat(20))),
        ]);
        assert_eq!(
            largest_attributes(&item, 3),
            vec![
                ("bb".to_string(), 32),
                ("d".to_string(), 21),
                ("a".to_string(), 11)
            ]
        );
    }

    #[test]
    fn ttl_before_epoch_is_an_error() {
        let err = ttl_value(UNIX_EPOCH - Duration::from_secs(1)).unwrap_err();
        assert_eq!(err.to_string(), "attribute `ttl` is before the unix epoch");
    }
}
