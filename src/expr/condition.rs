//! [`Condition`]: the condition and filter builder: its tree, the methods of
//! [`Attr`] and [`Size`] that start one, and its rendering to an [`Expression`].

use std::ops::{BitAnd, BitOr, Not};

use aws_sdk_dynamodb::types::AttributeValue;

use super::expression::Expression;
use super::operand::{Attr, Operand, OperandKind, Size, Step, ValueType};
use super::placeholders::{Ctx, EXPRESSION, check_stem, expr_error};
use crate::error::{Error, ErrorKind, Result};
use crate::item::{check_depth, check_number, check_values};

/// DynamoDB's limit on the values of one `IN`.
const MAX_IN_VALUES: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Comparator {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Comparator {
    pub(super) const fn symbol(self) -> &'static str {
        match self {
            Comparator::Eq => "=",
            Comparator::Ne => "<>",
            Comparator::Lt => "<",
            Comparator::Le => "<=",
            Comparator::Gt => ">",
            Comparator::Ge => ">=",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Function {
    Exists,
    NotExists,
    Type,
    BeginsWith,
    Contains,
}

impl Function {
    pub(super) const fn name(self) -> &'static str {
        match self {
            Function::Exists => "attribute_exists",
            Function::NotExists => "attribute_not_exists",
            Function::Type => "attribute_type",
            Function::BeginsWith => "begins_with",
            Function::Contains => "contains",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
    Compare(Operand, Comparator, Operand),
    Between(Operand, Operand, Operand),
    In(Operand, Vec<Operand>),
    Function(Function, Attr, Option<Operand>),
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
}

/// A condition or filter expression, built from [`attr`](super::attr) and
/// combined with [`and`](Self::and), [`or`](Self::or), `!` (or `&` and
/// `|`), [`all`](Self::all) and [`any`](Self::any). [`build`](Self::build)
/// turns it into an [`Expression`]; [`Apply`](super::Apply) builds it for
/// you.
///
/// `AND` binds tighter than `OR` in DynamoDB, so `OR` groups inside `AND`
/// are parenthesized (and `AND` groups inside `OR`, for clarity).
///
/// ```
/// use dynamodb_mapper::expr::attr;
///
/// let c = attr("status").eq("open")
///     .and(attr("total").gt(100).or(attr("vip").eq(true)))
///     .and(!attr("deletedAt").exists());
/// let e = c.build()?;
/// assert_eq!(
///     e.expression(),
///     "#c0 = :c0 AND (#c1 > :c1 OR #c2 = :c2) AND NOT (attribute_exists(#c3))"
/// );
/// assert_eq!(e.names().len(), 4);
/// assert_eq!(e.values().len(), 3);
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct Condition(pub(super) Node);

impl Condition {
    /// Both conditions (nested `and`s flatten into one list).
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// let c = attr("a").eq(1).and(attr("b").eq(2)).and(attr("c").eq(3));
    /// assert_eq!(c.build()?.expression(), "#c0 = :c0 AND #c1 = :c1 AND #c2 = :c2");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn and(self, other: Condition) -> Condition {
        Condition(Node::And(flatten(self.0, other.0, true)))
    }

    /// Either condition (nested `or`s flatten into one list).
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// let c = attr("a").eq(1).or(attr("b").eq(2));
    /// assert_eq!(c.build()?.expression(), "#c0 = :c0 OR #c1 = :c1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn or(self, other: Condition) -> Condition {
        Condition(Node::Or(flatten(self.0, other.0, false)))
    }

    /// All of the conditions. Building fails when there are none.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Condition};
    /// let c = Condition::all(["a", "b"].map(|name| attr(name).exists()));
    /// assert_eq!(c.build()?.expression(), "attribute_exists(#c0) AND attribute_exists(#c1)");
    /// assert!(Condition::all([]).build().is_err());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn all(conditions: impl IntoIterator<Item = Condition>) -> Condition {
        Condition(Node::And(conditions.into_iter().map(|c| c.0).collect()))
    }

    /// Any of the conditions. Building fails when there are none.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Condition};
    /// let c = Condition::any([attr("a").eq(1), attr("a").eq(2)]);
    /// assert_eq!(c.build()?.expression(), "#c0 = :c0 OR #c0 = :c1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn any(conditions: impl IntoIterator<Item = Condition>) -> Condition {
        Condition(Node::Or(conditions.into_iter().map(|c| c.0).collect()))
    }

    /// The expression, with placeholders `#c0`, `:c0`, ...
    ///
    /// # Errors
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) naming the
    /// attribute path for an invalid path, an operand that cannot be converted
    /// or that DynamoDB would reject (a non-finite or too long number, an empty
    /// set), an `IN` with no or more than 100 operands; naming `(expression)`
    /// for an `all`/`any` of no conditions.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    ///
    /// let err = attr("lines[x].qty").gt(1).build().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "attribute `lines[x].qty` is not a valid attribute path: segment 1 has the list index `[x]`, which is not a number"
    /// );
    /// let err = attr("tier").is_in(Vec::<&str>::new()).build().unwrap_err();
    /// assert_eq!(err.to_string(), "attribute `tier` IN needs 1 to 100 operands, found 0");
    /// ```
    pub fn build(&self) -> Result<Expression> {
        self.build_with_stem("c")
    }

    /// The expression, with placeholders `#<stem>0`, `:<stem>0`, ...
    ///
    /// # Errors
    /// As [`build`](Self::build), and
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) (attribute
    /// `(expression)`) when `stem` is not ASCII letters and digits starting
    /// with a letter.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// assert_eq!(attr("a").eq(1).build_with_stem("f")?.expression(), "#f0 = :f0");
    /// assert!(attr("a").eq(1).build_with_stem("f-").is_err());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn build_with_stem(&self, stem: &str) -> Result<Expression> {
        check_stem(stem)?;
        let mut ctx = Ctx::new(stem);
        let mut out = String::new();
        ctx.node(&self.0, &mut out)?;
        Ok(Expression::rendered(out, ctx))
    }
}

fn flatten(a: Node, b: Node, and: bool) -> Vec<Node> {
    let mut out = Vec::new();
    for node in [a, b] {
        match node {
            Node::And(list) if and && !list.is_empty() => out.extend(list),
            Node::Or(list) if !and && !list.is_empty() => out.extend(list),
            other => out.push(other),
        }
    }
    out
}

impl Not for Condition {
    type Output = Condition;

    /// `NOT (condition)`.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// assert_eq!((!attr("a").eq(1)).build()?.expression(), "NOT (#c0 = :c0)");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    fn not(self) -> Condition {
        Condition(Node::Not(Box::new(self.0)))
    }
}

impl BitAnd for Condition {
    type Output = Condition;

    /// [`Condition::and`].
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// let c = attr("a").eq(1) & attr("b").eq(2);
    /// assert_eq!(c, attr("a").eq(1).and(attr("b").eq(2)));
    /// ```
    fn bitand(self, other: Condition) -> Condition {
        self.and(other)
    }
}

impl BitOr for Condition {
    type Output = Condition;

    /// [`Condition::or`].
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// let c = attr("a").eq(1) | attr("b").eq(2);
    /// assert_eq!(c, attr("a").eq(1).or(attr("b").eq(2)));
    /// ```
    fn bitor(self, other: Condition) -> Condition {
        self.or(other)
    }
}

// ------------------------------------------------- starting from an operand

/// The comparisons of an operand that starts a condition (an attribute, or
/// the size of one): the same seven methods for each, one definition.
macro_rules! comparisons {
    ($ty:ty, |$this:ident| $left:expr, $shown:literal, $receiver:literal, $rendered:literal) => {
        impl $ty {
            fn compare(self, comparator: Comparator, operand: impl Into<Operand>) -> Condition {
                let $this = self;
                Condition(Node::Compare($left, comparator, operand.into()))
            }

            #[doc = concat!("`", $shown, " = operand`; the operand is a value or another attribute.")]
            ///
            /// ```
            /// use dynamodb_mapper::expr::attr;
            #[doc = concat!("assert_eq!(", $receiver, ".eq(3).build()?.expression(), \"", $rendered, " = :c0\");")]
            #[doc = concat!("assert_eq!(", $receiver, ".eq(attr(\"b\")).build()?.expression(), \"", $rendered, " = #c1\");")]
            /// # Ok::<(), dynamodb_mapper::Error>(())
            /// ```
            pub fn eq(self, operand: impl Into<Operand>) -> Condition {
                self.compare(Comparator::Eq, operand)
            }

            #[doc = concat!("`", $shown, " <> operand`.")]
            ///
            /// ```
            /// use dynamodb_mapper::expr::attr;
            #[doc = concat!("assert_eq!(", $receiver, ".ne(3).build()?.expression(), \"", $rendered, " <> :c0\");")]
            /// # Ok::<(), dynamodb_mapper::Error>(())
            /// ```
            pub fn ne(self, operand: impl Into<Operand>) -> Condition {
                self.compare(Comparator::Ne, operand)
            }

            #[doc = concat!("`", $shown, " < operand`.")]
            ///
            /// ```
            /// use dynamodb_mapper::expr::attr;
            #[doc = concat!("assert_eq!(", $receiver, ".lt(3).build()?.expression(), \"", $rendered, " < :c0\");")]
            /// # Ok::<(), dynamodb_mapper::Error>(())
            /// ```
            pub fn lt(self, operand: impl Into<Operand>) -> Condition {
                self.compare(Comparator::Lt, operand)
            }

            #[doc = concat!("`", $shown, " <= operand`.")]
            ///
            /// ```
            /// use dynamodb_mapper::expr::attr;
            #[doc = concat!("assert_eq!(", $receiver, ".le(3).build()?.expression(), \"", $rendered, " <= :c0\");")]
            /// # Ok::<(), dynamodb_mapper::Error>(())
            /// ```
            pub fn le(self, operand: impl Into<Operand>) -> Condition {
                self.compare(Comparator::Le, operand)
            }

            #[doc = concat!("`", $shown, " > operand`.")]
            ///
            /// ```
            /// use dynamodb_mapper::expr::attr;
            #[doc = concat!("assert_eq!(", $receiver, ".gt(3).build()?.expression(), \"", $rendered, " > :c0\");")]
            /// # Ok::<(), dynamodb_mapper::Error>(())
            /// ```
            pub fn gt(self, operand: impl Into<Operand>) -> Condition {
                self.compare(Comparator::Gt, operand)
            }

            #[doc = concat!("`", $shown, " >= operand`.")]
            ///
            /// ```
            /// use dynamodb_mapper::expr::attr;
            #[doc = concat!("assert_eq!(", $receiver, ".ge(3).build()?.expression(), \"", $rendered, " >= :c0\");")]
            /// # Ok::<(), dynamodb_mapper::Error>(())
            /// ```
            pub fn ge(self, operand: impl Into<Operand>) -> Condition {
                self.compare(Comparator::Ge, operand)
            }

            #[doc = concat!("`", $shown, " BETWEEN low AND high`.")]
            ///
            /// ```
            /// use dynamodb_mapper::expr::attr;
            #[doc = concat!("assert_eq!(", $receiver, ".between(1, 9).build()?.expression(), \"", $rendered, " BETWEEN :c0 AND :c1\");")]
            /// # Ok::<(), dynamodb_mapper::Error>(())
            /// ```
            pub fn between(self, low: impl Into<Operand>, high: impl Into<Operand>) -> Condition {
                let $this = self;
                Condition(Node::Between($left, low.into(), high.into()))
            }
        }
    };
}

comparisons!(
    Attr,
    |attr| Operand(OperandKind::Path(attr)),
    "path",
    "attr(\"n\")",
    "#c0"
);
comparisons!(
    Size,
    |size| Operand(OperandKind::Size(size.0)),
    "size(path)",
    "attr(\"s\").size()",
    "size(#c0)"
);

impl Attr {
    /// `path IN (a, b, ...)`: 1 to 100 operands.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// let e = attr("tier").is_in(["gold", "silver"]).build()?;
    /// assert_eq!(e.expression(), "#c0 IN (:c0, :c1)");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn is_in<I, V>(self, operands: I) -> Condition
    where
        I: IntoIterator<Item = V>,
        V: Into<Operand>,
    {
        Condition(Node::In(
            Operand(OperandKind::Path(self)),
            operands.into_iter().map(Into::into).collect(),
        ))
    }

    /// `begins_with(path, prefix)`.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// assert_eq!(attr("sk").begins_with("ORDER#").build()?.expression(), "begins_with(#c0, :c0)");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn begins_with(self, prefix: impl Into<Operand>) -> Condition {
        Condition(Node::Function(
            Function::BeginsWith,
            self,
            Some(prefix.into()),
        ))
    }

    /// `contains(path, operand)`: a substring of a string, or an element of a
    /// set or list.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// assert_eq!(attr("tags").contains("rust").build()?.expression(), "contains(#c0, :c0)");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn contains(self, operand: impl Into<Operand>) -> Condition {
        Condition(Node::Function(
            Function::Contains,
            self,
            Some(operand.into()),
        ))
    }

    /// `attribute_exists(path)`.
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// assert_eq!(attr("pk").exists().build()?.expression(), "attribute_exists(#c0)");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn exists(self) -> Condition {
        Condition(Node::Function(Function::Exists, self, None))
    }

    /// `attribute_not_exists(path)`: for "put only if new".
    ///
    /// ```
    /// use dynamodb_mapper::expr::attr;
    /// assert_eq!(attr("pk").not_exists().build()?.expression(), "attribute_not_exists(#c0)");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn not_exists(self) -> Condition {
        Condition(Node::Function(Function::NotExists, self, None))
    }

    /// `attribute_type(path, :type)`.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::expr::{attr, ValueType};
    /// let e = attr("price").has_type(ValueType::Number).build()?;
    /// assert_eq!(e.expression(), "attribute_type(#c0, :c0)");
    /// assert_eq!(e.values()[":c0"], AttributeValue::S("N".into()));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn has_type(self, value_type: ValueType) -> Condition {
        let code = AttributeValue::S(value_type.code().to_owned());
        Condition(Node::Function(
            Function::Type,
            self,
            Some(Operand(OperandKind::Value(Ok(code)))),
        ))
    }
}

// ---------------------------------------------------------------- rendering

// Rendering a condition, allocating its placeholders through `Ctx`.
impl Ctx<'_> {
    pub(super) fn path(&mut self, attr: &Attr, out: &mut String) -> Result<()> {
        self.path_steps(&attr.steps()?, out);
        Ok(())
    }

    /// [`path`](Self::path) of a path already parsed.
    pub(super) fn path_steps(&mut self, steps: &[Step<'_>], out: &mut String) {
        use std::fmt::Write as _;
        for (i, step) in steps.iter().enumerate() {
            match step {
                Step::Name(name) => {
                    if i > 0 {
                        out.push('.');
                    }
                    self.push_name(name, out);
                }
                Step::Index(n) => {
                    let _ = write!(out, "[{n}]");
                }
            }
        }
    }

    pub(super) fn operand(
        &mut self,
        operand: &Operand,
        subject: &str,
        out: &mut String,
    ) -> Result<()> {
        match &operand.0 {
            OperandKind::Path(a) => self.path(a, out),
            OperandKind::Size(a) => {
                out.push_str("size(");
                self.path(a, out)?;
                out.push(')');
                Ok(())
            }
            OperandKind::Value(Ok(v)) => {
                // A string, binary or boolean cannot be invalid (DynamoDB
                // limits only their size, in the request); the rest is
                // checked as an item's values are. Cloning recurses: depth
                // first (a value can be built by hand, to any depth).
                match v {
                    AttributeValue::S(_) | AttributeValue::B(_) | AttributeValue::Bool(_) => {}
                    // A number alone: its spelling is all there is to check.
                    AttributeValue::N(n) => {
                        check_number(n).map_err(|reason| {
                            operand_error(Error::invalid_value(subject, reason))
                        })?;
                    }
                    _ => {
                        let name = subject.to_owned();
                        check_depth([(&name, v)]).map_err(operand_error)?;
                        check_values([(&name, v)]).map_err(operand_error)?;
                    }
                }
                self.push_value(v.clone(), out);
                Ok(())
            }
            OperandKind::Value(Err(reason)) => Err(expr_error(
                subject,
                format!("operand cannot be converted: {reason}"),
            )),
        }
    }

    fn node(&mut self, node: &Node, out: &mut String) -> Result<()> {
        let subject = subject_of(node);
        match node {
            Node::Compare(left, comparator, right) => {
                self.operand(left, &subject, out)?;
                out.push(' ');
                out.push_str(comparator.symbol());
                out.push(' ');
                self.operand(right, &subject, out)
            }
            Node::Between(operand, low, high) => {
                self.operand(operand, &subject, out)?;
                out.push_str(" BETWEEN ");
                self.operand(low, &subject, out)?;
                out.push_str(" AND ");
                self.operand(high, &subject, out)
            }
            Node::In(operand, list) => {
                if list.is_empty() || list.len() > MAX_IN_VALUES {
                    return Err(expr_error(
                        &subject,
                        format!(
                            "IN needs 1 to {MAX_IN_VALUES} operands, found {}",
                            list.len()
                        ),
                    ));
                }
                self.operand(operand, &subject, out)?;
                out.push_str(" IN (");
                for (i, item) in list.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.operand(item, &subject, out)?;
                }
                out.push(')');
                Ok(())
            }
            Node::Function(function, path, argument) => {
                out.push_str(function.name());
                out.push('(');
                self.path(path, out)?;
                if let Some(argument) = argument {
                    out.push_str(", ");
                    self.operand(argument, &subject, out)?;
                }
                out.push(')');
                Ok(())
            }
            Node::And(list) | Node::Or(list) => {
                let and = matches!(node, Node::And(_));
                if list.is_empty() {
                    return Err(expr_error(
                        EXPRESSION,
                        format!(
                            "is an `{}` of no conditions",
                            if and { "all" } else { "any" }
                        ),
                    ));
                }
                let separator = if and { " AND " } else { " OR " };
                let single = list.len() == 1;
                for (i, child) in list.iter().enumerate() {
                    if i > 0 {
                        out.push_str(separator);
                    }
                    let wrap = !single && matches!(child, Node::And(_) | Node::Or(_));
                    if wrap {
                        out.push('(');
                    }
                    self.node(child, out)?;
                    if wrap {
                        out.push(')');
                    }
                }
                Ok(())
            }
            Node::Not(inner) => {
                out.push_str("NOT (");
                self.node(inner, out)?;
                out.push(')');
                Ok(())
            }
        }
    }
}

/// An operand value DynamoDB would reject, as the condition says it.
fn operand_error(e: Error) -> Error {
    match (e.kind(), e.attribute(), e.reason()) {
        (ErrorKind::InvalidValue, Some(path), Some(reason)) => {
            expr_error(path, format!("operand {reason}"))
        }
        _ => e,
    }
}

/// The attribute path a condition is about, for errors.
fn subject_of(node: &Node) -> String {
    let found = match node {
        Node::Compare(a, _, b) => a.path().or_else(|| b.path()),
        Node::Between(a, b, c) => a.path().or_else(|| b.path()).or_else(|| c.path()),
        Node::In(a, list) => a.path().or_else(|| list.iter().find_map(Operand::path)),
        Node::Function(_, path, _) => Some(path.path()),
        Node::And(_) | Node::Or(_) | Node::Not(_) => None,
    };
    found.unwrap_or(EXPRESSION).to_owned()
}
