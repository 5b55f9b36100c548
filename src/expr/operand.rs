//! Operands: attribute paths ([`attr`], [`Attr`], [`Size`]) and values
//! ([`value`], [`Operand`], [`ValueType`]) that conditions compare.

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

use super::placeholders::expr_error;
use crate::error::Result;

/// An attribute path: `status`, `address.city`, `lines[0].qty`. Start
/// conditions from it.
///
/// Paths are parsed when the condition is built: names separated by `.`,
/// each followed by any number of `[index]`. For a top-level attribute whose
/// name holds `.` or `[`, use [`Attr::top_level`].
///
/// ```
/// use dynamodb_mapper::expr::attr;
/// let e = attr("lines[0].qty").gt(1).build()?;
/// assert_eq!(e.expression(), "#c0[0].#c1 > :c0");
/// assert_eq!(e.names()["#c0"], "lines");
/// assert_eq!(e.names()["#c1"], "qty");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Attr {
    text: String,
    top_level: bool,
    /// Map keys taken literally, from [`Attr::of_names`].
    names: Option<Vec<String>>,
}

/// The attribute at `path` (see [`Attr`]).
///
/// ```
/// use dynamodb_mapper::expr::attr;
/// let e = attr("address.city").eq("Paris").build()?;
/// assert_eq!(e.expression(), "#c0.#c1 = :c0");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn attr(path: impl Into<String>) -> Attr {
    Attr::new(path)
}

/// A value operand from anything serde can serialize (lists, maps, structs),
/// converted with `serde_dynamo`. Plain strings, numbers, booleans, blobs
/// and `AttributeValue`s convert without it.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::expr::{attr, value};
///
/// let e = attr("tags").eq(value(vec!["a", "b"])).build()?;
/// assert_eq!(
///     e.values()[":c0"],
///     AttributeValue::L(vec![AttributeValue::S("a".into()), AttributeValue::S("b".into())])
/// );
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn value(v: impl Serialize) -> Operand {
    Operand(OperandKind::Value(
        crate::ser::to_attribute_value(&v).map_err(|e| {
            let path = e.path();
            match path.strip_prefix('.').unwrap_or(&path) {
                "" => e.to_string(),
                at => format!("{e} (at `{at}`)"),
            }
        }),
    ))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step<'a> {
    Name(&'a str),
    Index(u64),
}

/// A parsed path: most are one plain name, kept without a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Steps<'a> {
    One(Step<'a>),
    Many(Vec<Step<'a>>),
}

impl<'a> std::ops::Deref for Steps<'a> {
    type Target = [Step<'a>];

    fn deref(&self) -> &[Step<'a>] {
        match self {
            Steps::One(step) => std::slice::from_ref(step),
            Steps::Many(steps) => steps,
        }
    }
}

fn parse_path(path: &str) -> std::result::Result<Steps<'_>, String> {
    if path.is_empty() {
        return Err("it is empty".to_owned());
    }
    // Most paths are one plain name.
    if !path.bytes().any(|b| matches!(b, b'.' | b'[' | b']')) {
        return Ok(Steps::One(Step::Name(path)));
    }
    let mut steps = Vec::new();
    for (k, segment) in path.split('.').enumerate() {
        let n = k + 1;
        let (name, mut rest) = match segment.find('[') {
            Some(i) => (
                segment.get(..i).unwrap_or(""),
                segment.get(i..).unwrap_or(""),
            ),
            None => (segment, ""),
        };
        if name.is_empty() {
            return Err(format!("segment {n} has no name"));
        }
        if name.contains(']') {
            return Err(format!("segment {n} has a `]` without a `[`"));
        }
        steps.push(Step::Name(name));
        while !rest.is_empty() {
            let Some(inside) = rest.strip_prefix('[') else {
                return Err(format!("segment {n} has {rest:?} after a list index"));
            };
            let Some((digits, after)) = inside.split_once(']') else {
                return Err(format!("segment {n} has an unclosed `[`"));
            };
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!(
                    "segment {n} has the list index `[{digits}]`, which is not a number"
                ));
            }
            let index = digits.parse::<u64>().map_err(|_| {
                format!("segment {n} has the list index `[{digits}]`, which is too large")
            })?;
            steps.push(Step::Index(index));
            rest = after;
        }
    }
    Ok(Steps::Many(steps))
}

impl Attr {
    /// The attribute at `path`, the same as [`attr`].
    pub(crate) fn new(path: impl Into<String>) -> Self {
        Attr {
            text: path.into(),
            top_level: false,
            names: None,
        }
    }

    /// The top-level attribute called `name`, taken literally (a name holding
    /// `.` or `[` is not split).
    ///
    /// ```
    /// use dynamodb_mapper::expr::Attr;
    /// let e = Attr::top_level("a.b").exists().build()?;
    /// assert_eq!(e.expression(), "attribute_exists(#c0)");
    /// assert_eq!(e.names()["#c0"], "a.b");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn top_level(name: impl Into<String>) -> Self {
        Attr {
            text: name.into(),
            top_level: true,
            names: None,
        }
    }

    /// The nested attribute reached through the map keys `names`, each
    /// taken literally (a key holding `.` or `[` is not split): the path
    /// of a value inside maps whose keys are data.
    ///
    /// ```
    /// use dynamodb_mapper::expr::Attr;
    /// let e = Attr::of_names(["prices", "EUR.retail"]).exists().build()?;
    /// assert_eq!(e.expression(), "attribute_exists(#c0.#c1)");
    /// assert_eq!(e.names()["#c1"], "EUR.retail");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn of_names<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        Attr {
            text: names.join("."),
            top_level: false,
            names: Some(names),
        }
    }

    /// The path as written.
    #[must_use]
    pub(crate) fn path(&self) -> &str {
        &self.text
    }

    pub(super) fn steps(&self) -> Result<Steps<'_>> {
        if let Some(names) = &self.names {
            if names.is_empty() || names.iter().any(String::is_empty) {
                return Err(expr_error(
                    &self.text,
                    "is not a valid attribute path: it has an empty name",
                ));
            }
            return Ok(Steps::Many(names.iter().map(|n| Step::Name(n)).collect()));
        }
        if self.top_level {
            if self.text.is_empty() {
                return Err(expr_error(
                    &self.text,
                    "is not a valid attribute name: it is empty",
                ));
            }
            return Ok(Steps::One(Step::Name(&self.text)));
        }
        parse_path(&self.text).map_err(|reason| {
            expr_error(
                &self.text,
                format!("is not a valid attribute path: {reason}"),
            )
        })
    }

    // The methods that start a condition from an attribute (`eq`,
    // `between`, `exists`, ...) are in condition.rs, next to `Condition`.

    /// `size(path)`, to compare.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// assert_eq!(attr("lines").size().gt(0).build()?.expression(), "size(#c0) > :c0");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn size(self) -> Size {
        Size(self)
    }
}

/// `size(path)`: the length of a string or binary, or the number of
/// elements of a set, list or map. Compare it, or use it as an operand.
///
/// ```
/// use dynamodb_mapper::expr::attr;
/// let e = attr("a").lt(attr("b").size()).build()?;
/// assert_eq!(e.expression(), "#c0 < size(#c1)");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Size(pub(super) Attr);

// `Size`'s comparisons are in condition.rs, next to `Condition`.

/// The right-hand side of a comparison: a value (strings, numbers,
/// booleans, [`Blob`]s, `AttributeValue`s, or anything serde serializes via
/// [`value`]), an attribute ([`Attr`]) or a [`Size`].
///
/// Numbers must be finite and within DynamoDB's 38 digits; this and any
/// conversion error is reported when the condition is built.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::expr::{attr, Operand};
///
/// let e = attr("flag").eq(Operand::from(true)).build()?;
/// assert_eq!(e.values()[":c0"], AttributeValue::Bool(true));
/// assert!(attr("x").eq(f64::NAN).build().is_err());
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Operand(pub(super) OperandKind);

#[derive(Debug, Clone, PartialEq)]
pub(super) enum OperandKind {
    Path(Attr),
    Size(Attr),
    Value(std::result::Result<AttributeValue, String>),
}

impl Operand {
    pub(super) fn path(&self) -> Option<&str> {
        match &self.0 {
            OperandKind::Path(a) | OperandKind::Size(a) => Some(&a.text),
            OperandKind::Value(_) => None,
        }
    }
}

impl From<AttributeValue> for Operand {
    fn from(v: AttributeValue) -> Self {
        Operand(OperandKind::Value(Ok(v)))
    }
}

/// `From` a plain value: the attribute value it is, as `make` builds it.
macro_rules! operand_from_value {
    ($($t:ty => $make:expr),* $(,)?) => {$(
        impl From<$t> for Operand {
            fn from(v: $t) -> Self {
                let make: fn($t) -> AttributeValue = $make;
                make(v).into()
            }
        }
    )*};
}

operand_from_value!(
    &str => |v| AttributeValue::S(v.to_owned()),
    String => AttributeValue::S,
    &String => |v| AttributeValue::S(v.clone()),
    bool => AttributeValue::Bool,
    Blob => AttributeValue::B,
);

impl From<Attr> for Operand {
    fn from(v: Attr) -> Self {
        Operand(OperandKind::Path(v))
    }
}

impl From<Size> for Operand {
    fn from(v: Size) -> Self {
        Operand(OperandKind::Size(v.0))
    }
}

macro_rules! operand_from_number {
    ($($t:ty),*) => {$(
        impl From<$t> for Operand {
            fn from(v: $t) -> Self {
                AttributeValue::N(v.to_string()).into()
            }
        }
    )*};
}
operand_from_number!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

macro_rules! operand_from_float {
    ($($t:ty),*) => {$(
        impl From<$t> for Operand {
            fn from(v: $t) -> Self {
                Operand(OperandKind::Value(if v.is_finite() {
                    Ok(AttributeValue::N(v.to_string()))
                } else {
                    Err(format!("{v} is not a finite number"))
                }))
            }
        }
    )*};
}
operand_from_float!(f32, f64);

/// A DynamoDB type, for [`Attr::has_type`] (`attribute_type`).
///
/// ```
/// use dynamodb_mapper::expr::ValueType;
/// assert_ne!(ValueType::String, ValueType::StringSet);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// `S`.
    String,
    /// `SS`.
    StringSet,
    /// `N`.
    Number,
    /// `NS`.
    NumberSet,
    /// `B`.
    Binary,
    /// `BS`.
    BinarySet,
    /// `BOOL`.
    Bool,
    /// `NULL`.
    Null,
    /// `L`.
    List,
    /// `M`.
    Map,
}

impl ValueType {
    pub(super) const fn code(self) -> &'static str {
        match self {
            ValueType::String => "S",
            ValueType::StringSet => "SS",
            ValueType::Number => "N",
            ValueType::NumberSet => "NS",
            ValueType::Binary => "B",
            ValueType::BinarySet => "BS",
            ValueType::Bool => "BOOL",
            ValueType::Null => "NULL",
            ValueType::List => "L",
            ValueType::Map => "M",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(
            parse_path("plain").unwrap(),
            Steps::One(Step::Name("plain"))
        );
        assert_eq!(
            *parse_path("a[1][22].b").unwrap(),
            [
                Step::Name("a"),
                Step::Index(1),
                Step::Index(22),
                Step::Name("b")
            ]
        );
        for (bad, reason) in [
            ("", "it is empty"),
            ("a.", "segment 2 has no name"),
            ("[0]", "segment 1 has no name"),
            ("a[0", "segment 1 has an unclosed `[`"),
            ("a[0]x", "segment 1 has \"x\" after a list index"),
            ("a]", "segment 1 has a `]` without a `[`"),
            (
                "a[99999999999999999999]",
                "segment 1 has the list index `[99999999999999999999]`, which is too large",
            ),
        ] {
            assert_eq!(parse_path(bad).unwrap_err(), reason, "{bad}");
        }
    }
}
