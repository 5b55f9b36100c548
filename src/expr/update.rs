//! [`Update`]: the update expression builder (`SET`, `REMOVE`, `ADD`,
//! `DELETE`), with [`UpdateValue`] for what `SET` assigns (values, paths,
//! `if_not_exists`, `list_append`, `+` and `-`), rendered to an
//! [`Expression`] through the same placeholders as conditions.

use std::any::TypeId;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use super::expression::Expression;
use super::operand::{Attr, Operand, OperandKind, Step, Steps};
use super::placeholders::{Ctx, EXPRESSION, check_stem, expr_error};
use crate::error::Result;

/// DynamoDB's limit on the nesting of a document path.
const MAX_PATH_DEPTH: usize = 32;

/// What `SET` assigns to a path: a value, another attribute, or a
/// computation of them.
///
/// Made from anything an [`Operand`] is made from (values, [`attr`](super::attr)
/// paths, [`value`](super::value) for any `Serialize`), and combined with
/// [`Attr::if_not_exists`], [`list_append`], [`plus`](Self::plus) and
/// [`minus`](Self::minus).
///
/// ```
/// use dynamodb_mapper::expr::{attr, Update, UpdateValue};
///
/// let next = attr("count").if_not_exists(0).plus(1);
/// let e = Update::new().set(attr("count"), next).build()?;
/// assert_eq!(e.expression(), "SET #u0 = if_not_exists(#u0, :u0) + :u1");
/// # let _ = UpdateValue::from(3);
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct UpdateValue(ValueNode);

#[derive(Debug, Clone, PartialEq)]
enum ValueNode {
    Operand(Operand),
    IfNotExists(Attr, Box<ValueNode>),
    ListAppend(Box<(ValueNode, ValueNode)>),
    Plus(Box<(ValueNode, ValueNode)>),
    Minus(Box<(ValueNode, ValueNode)>),
}

impl ValueNode {
    /// The operand this node is, when it is one.
    fn operand(&self) -> Option<&Operand> {
        match self {
            ValueNode::Operand(operand) => Some(operand),
            _ => None,
        }
    }
}

impl UpdateValue {
    /// `self + other`: numbers (a value, an attribute, or `if_not_exists`).
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let e = Update::new().set(attr("total"), attr("price").plus(attr("tax"))).build()?;
    /// assert_eq!(e.expression(), "SET #u0 = #u1 + #u2");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn plus(self, other: impl Into<UpdateValue>) -> UpdateValue {
        UpdateValue(ValueNode::Plus(Box::new((self.0, other.into().0))))
    }

    /// `self - other`, as [`plus`](Self::plus).
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let e = Update::new().set(attr("stock"), attr("stock").minus(2)).build()?;
    /// assert_eq!(e.expression(), "SET #u0 = #u0 - :u0");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn minus(self, other: impl Into<UpdateValue>) -> UpdateValue {
        UpdateValue(ValueNode::Minus(Box::new((self.0, other.into().0))))
    }
}

/// `list_append(first, second)`: the two lists joined, `first`'s elements
/// first. Append with `list_append(attr("l"), value(new))`, prepend with
/// `list_append(value(new), attr("l"))`.
///
/// ```
/// use dynamodb_mapper::expr::{attr, list_append, value, Update};
/// let e = Update::new().set(attr("events"), list_append(attr("events"), value(["shipped"]))).build()?;
/// assert_eq!(e.expression(), "SET #u0 = list_append(#u0, :u0)");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub fn list_append(first: impl Into<UpdateValue>, second: impl Into<UpdateValue>) -> UpdateValue {
    UpdateValue(ValueNode::ListAppend(Box::new((
        first.into().0,
        second.into().0,
    ))))
}

impl Attr {
    /// `if_not_exists(self, default)`: the attribute's value, or `default`
    /// when the item does not have it.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let e = Update::new().set(attr("created"), attr("created").if_not_exists("2025-01-01")).build()?;
    /// assert_eq!(e.expression(), "SET #u0 = if_not_exists(#u0, :u0)");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn if_not_exists(self, default: impl Into<UpdateValue>) -> UpdateValue {
        UpdateValue(ValueNode::IfNotExists(self, Box::new(default.into().0)))
    }

    /// `self + other`, as [`UpdateValue::plus`].
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let e = Update::new().set(attr("views"), attr("views").plus(1)).build()?;
    /// assert_eq!(e.expression(), "SET #u0 = #u0 + :u0");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn plus(self, other: impl Into<UpdateValue>) -> UpdateValue {
        UpdateValue::from(self).plus(other)
    }

    /// `self - other`, as [`UpdateValue::minus`].
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let e = Update::new().set(attr("stock"), attr("stock").minus(1)).build()?;
    /// assert_eq!(e.expression(), "SET #u0 = #u0 - :u0");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn minus(self, other: impl Into<UpdateValue>) -> UpdateValue {
        UpdateValue::from(self).minus(other)
    }
}

impl From<Operand> for UpdateValue {
    /// The operand as it is.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{value, UpdateValue};
    /// let _ = UpdateValue::from(value(vec![1, 2]));
    /// ```
    fn from(v: Operand) -> Self {
        UpdateValue(ValueNode::Operand(v))
    }
}

/// `UpdateValue` from each type an `Operand` is made from.
macro_rules! update_value_from {
    ($($t:ty),*) => {$(
        impl From<$t> for UpdateValue {
            fn from(v: $t) -> Self {
                UpdateValue(ValueNode::Operand(Operand::from(v)))
            }
        }
    )*};
}
update_value_from!(
    AttributeValue,
    &str,
    String,
    &String,
    bool,
    Blob,
    Attr,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    f32,
    f64
);

/// One action of an update expression.
#[derive(Debug, Clone, PartialEq)]
enum Action {
    Set(Attr, ValueNode),
    Remove(Attr),
    Add(Attr, Operand),
    Delete(Attr, Operand),
}

impl Action {
    fn path(&self) -> &Attr {
        match self {
            Action::Set(a, _) | Action::Remove(a) | Action::Add(a, _) | Action::Delete(a, _) => a,
        }
    }

    /// Its clause, in DynamoDB's order: SET, REMOVE, ADD, DELETE.
    fn clause(&self) -> usize {
        match self {
            Action::Set(..) => 0,
            Action::Remove(_) => 1,
            Action::Add(..) => 2,
            Action::Delete(..) => 3,
        }
    }
}

/// An update expression: `SET`, `REMOVE`, `ADD` and `DELETE` actions, each
/// on its own attribute path, rendered with placeholders `#u0`, `:u0`, ...
/// (so reserved words need no care) into one [`Expression`], which merges
/// with a condition into one request without clashes (see
/// [`Apply`](super::Apply)).
///
/// Building checks every path (not empty, at most 32 levels, no two
/// actions on one path or on a path and a part of it, which DynamoDB
/// rejects as overlapping) and every value (as conditions do; `ADD` takes a
/// number or a set, `DELETE` a set).
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::expr::{attr, list_append, value, Update};
///
/// let update = Update::new()
///     .set(attr("status"), "shipped")
///     .set(attr("address.city"), "Lyon")
///     .set(attr("lines[0].qty"), 3)
///     .set(attr("events"), list_append(attr("events"), value(["shipped"])))
///     .remove(attr("cart"))
///     .add(attr("tags"), AttributeValue::Ss(vec!["gift".into()]))
///     .delete(attr("flags"), AttributeValue::Ss(vec!["new".into()]));
/// let e = update.build()?;
/// assert_eq!(
///     e.expression(),
///     "SET #u0 = :u0, #u1.#u2 = :u1, #u3[0].#u4 = :u2, #u5 = list_append(#u5, :u3) \
///      REMOVE #u6 ADD #u7 :u4 DELETE #u8 :u5"
/// );
/// assert_eq!(e.names()["#u0"], "status");
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct Update {
    actions: Vec<Action>,
    /// The mapper whose `to_item` rendered every action (set by
    /// [`between`](Self::between)): its derived attributes are right by
    /// construction. Any action added by hand clears it.
    rendered_by: Option<TypeId>,
    /// Derived attributes the caller keeps right (see
    /// [`caller_keeps`](Self::caller_keeps)).
    kept: Vec<String>,
    /// Set by a helper that sends the update with the sentinels of the
    /// unique values it changes (or conditioned on them not changing): the
    /// write gate lets it change unique fields. Any action added clears it.
    moves_sentinels: bool,
}

/// Two updates are equal when they have the same actions (in the same
/// order): what the expression says, not who built it or which derived
/// keys the caller keeps.
impl PartialEq for Update {
    fn eq(&self, other: &Self) -> bool {
        self.actions == other.actions
    }
}

impl Update {
    /// An update with no actions yet.
    ///
    /// ```
    /// use dynamodb_mapper::expr::Update;
    /// assert!(Update::new().is_empty());
    /// ```
    pub fn new() -> Self {
        Update::default()
    }

    /// Whether the update has no actions.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update};
    /// assert!(!Update::new().remove(attr("x")).is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// `SET path = value`.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let e = Update::new().set(attr("status"), "open").build()?;
    /// assert_eq!(e.expression(), "SET #u0 = :u0");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn set(mut self, path: Attr, value: impl Into<UpdateValue>) -> Self {
        self.actions.push(Action::Set(path, value.into().0));
        self.rendered_by = None;
        self.moves_sentinels = false;
        self
    }

    /// `REMOVE path`: the attribute, or a list element (the elements after
    /// it move down).
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let e = Update::new().remove(attr("lines[2]")).build()?;
    /// assert_eq!(e.expression(), "REMOVE #u0[2]");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn remove(mut self, path: Attr) -> Self {
        self.actions.push(Action::Remove(path));
        self.rendered_by = None;
        self.moves_sentinels = false;
        self
    }

    /// `ADD path value`: adds a number to a number attribute (created as
    /// the number when absent), or the members of a set to a set attribute
    /// (created when absent). `path` must be a top-level attribute.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let e = Update::new().add(attr("views"), 1).build()?;
    /// assert_eq!(e.expression(), "ADD #u0 :u0");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn add(mut self, path: Attr, value: impl Into<Operand>) -> Self {
        self.actions.push(Action::Add(path, value.into()));
        self.rendered_by = None;
        self.moves_sentinels = false;
        self
    }

    /// `DELETE path set`: removes the members of `set` from a set
    /// attribute (a top-level one).
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let e = Update::new().delete(attr("tags"), AttributeValue::Ss(vec!["old".into()])).build()?;
    /// assert_eq!(e.expression(), "DELETE #u0 :u0");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn delete(mut self, path: Attr, set: impl Into<Operand>) -> Self {
        self.actions.push(Action::Delete(path, set.into()));
        self.rendered_by = None;
        self.moves_sentinels = false;
        self
    }

    /// Every action of `other` after this update's.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let e = Update::new().set(attr("a"), 1).and(Update::new().remove(attr("b"))).build()?;
    /// assert_eq!(e.expression(), "SET #u0 = :u0 REMOVE #u1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn and(mut self, other: Update) -> Self {
        self.rendered_by = match (self.actions.is_empty(), other.actions.is_empty()) {
            (true, _) => other.rendered_by,
            (false, true) => self.rendered_by,
            (false, false) => self.rendered_by.filter(|by| other.rendered_by == Some(*by)),
        };
        self.moves_sentinels = self.moves_sentinels && other.moves_sentinels;
        self.actions.extend(other.actions);
        self.kept.extend(other.kept);
        self
    }

    /// Lets this update change `attribute`, a key the mapper derives from
    /// fields (a GSI key rendered from a key pattern, or written by a
    /// hook), or a field such a key is rendered from, when it is sent
    /// through a helper ([`Transaction::update`](crate::ops::Transaction::update)).
    /// Without it a helper refuses an update that would leave a derived key
    /// stale, because the index would then find the item under a value it
    /// no longer has; with it, keeping `attribute` right is the caller's
    /// job (typically by setting it in the same update). Typed updates
    /// ([`between`](Self::between), `update_entity`) render derived keys
    /// themselves and need no such leave.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update};
    /// // `status` feeds `gsi1pk = STATUS#{status}`: set both, in one update.
    /// let update = Update::new()
    ///     .set(attr("status"), "shipped")
    ///     .set(attr("gsi1pk"), "STATUS#shipped")
    ///     .caller_keeps("gsi1pk");
    /// assert_eq!(update.build()?.expression(), "SET #u0 = :u0, #u1 = :u1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn caller_keeps(mut self, attribute: &str) -> Self {
        self.kept.push(attribute.to_owned());
        self
    }

    /// Whether the caller keeps `attribute` right ([`caller_keeps`](Self::caller_keeps)).
    pub(crate) fn keeps(&self, attribute: &str) -> bool {
        self.kept.iter().any(|k| k == attribute)
    }

    /// Marks the update as sent with the sentinels of the unique values it
    /// changes (see the field).
    pub(crate) fn moving_sentinels(mut self) -> Self {
        self.moves_sentinels = true;
        self
    }

    /// Whether it is sent with the sentinels of the unique values it changes.
    pub(crate) fn moves_sentinels(&self) -> bool {
        self.moves_sentinels
    }

    /// Marks every action as rendered by `M`'s `to_item`.
    pub(crate) fn rendered_by<M: 'static>(mut self) -> Self {
        self.rendered_by = Some(TypeId::of::<M>());
        self
    }

    /// Whether every action was rendered by `M`'s `to_item`.
    pub(crate) fn is_rendered_by<M: 'static>(&self) -> bool {
        self.rendered_by == Some(TypeId::of::<M>())
    }

    /// The expression, with placeholders `#u0`, `:u0`, ...
    ///
    /// # Errors
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) naming the
    /// attribute path: a path that is empty, malformed or deeper than 32
    /// levels, or holds a name DynamoDB rejects (empty, or over 65,536
    /// bytes, as an item's names are checked); two actions on one path or on
    /// a path and a part of it; `ADD`
    /// or `DELETE` of a nested path; a
    /// value DynamoDB rejects (an empty set, a string set with duplicates, a
    /// value nested deeper than 32 levels, ...) or that cannot be converted;
    /// `ADD` of something other than a number or a set, `DELETE` of
    /// something other than a set, `+`/`-` on a value that is not a number,
    /// `list_append` of a value that is not a list. Naming `(expression)`:
    /// an update with no actions.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Update};
    /// let err = Update::new().set(attr("a.b"), 1).remove(attr("a")).build().unwrap_err();
    /// assert_eq!(err.to_string(), "attribute `a` is changed by two actions of one update (`a.b` and `a`); DynamoDB rejects overlapping paths");
    /// let err = Update::new().add(attr("name"), "x").build().unwrap_err();
    /// assert_eq!(err.to_string(), "attribute `name` ADD needs a number or a set, found a string (S)");
    /// let err = Update::new().build().unwrap_err();
    /// assert_eq!(err.to_string(), "attribute `(expression)` is an update with no actions");
    /// ```
    pub fn build(&self) -> Result<Expression> {
        self.build_with_stem("u")
    }

    /// The expression, with placeholders `#<stem>0`, `:<stem>0`, ...
    ///
    /// # Errors
    /// As [`build`](Self::build), and for a stem that is not ASCII
    /// letters and digits starting with a letter.
    pub(crate) fn build_with_stem(&self, stem: &str) -> Result<Expression> {
        check_stem(stem)?;
        if self.actions.is_empty() {
            return Err(expr_error(EXPRESSION, "is an update with no actions"));
        }
        let parsed = self.check_paths()?;
        let mut ctx = Ctx::new(stem);
        // The clauses in DynamoDB's order, each action in its clause in the
        // order given: `SET a = :a, b = :b REMOVE c`.
        let mut text = String::with_capacity(24 * self.actions.len());
        for (clause, keyword) in ["SET ", "REMOVE ", "ADD ", "DELETE "]
            .into_iter()
            .enumerate()
        {
            let mut first = true;
            for (action, (subject, steps)) in self.actions.iter().zip(&parsed) {
                if action.clause() != clause {
                    continue;
                }
                if first {
                    if !text.is_empty() {
                        text.push(' ');
                    }
                    text.push_str(keyword);
                    first = false;
                } else {
                    text.push_str(", ");
                }
                let out = &mut text;
                ctx.path_steps(steps, out);
                match action {
                    Action::Set(_, value) => {
                        out.push_str(" = ");
                        ctx.update_value(value, subject, out)?;
                    }
                    Action::Remove(_) => {}
                    Action::Add(_, operand) | Action::Delete(_, operand) => {
                        let add = matches!(action, Action::Add(..));
                        let (keyword, expected) = if add {
                            ("ADD", "a number or a set")
                        } else {
                            ("DELETE", "a set")
                        };
                        check_literal(operand, subject, keyword, expected, |v| match v {
                            AttributeValue::N(_) => add,
                            AttributeValue::Ss(_)
                            | AttributeValue::Ns(_)
                            | AttributeValue::Bs(_) => true,
                            _ => false,
                        })?;
                        out.push(' ');
                        ctx.operand(operand, subject, out)?;
                    }
                }
            }
        }
        Ok(Expression::rendered(text, ctx))
    }

    /// The top-level attribute each action changes (of the paths that
    /// parse; [`build`](Self::build) reports the others).
    pub(crate) fn top_level_names(&self) -> Vec<&str> {
        self.actions
            .iter()
            .filter_map(|a| match a.path().steps().ok()?.first()? {
                Step::Name(name) => Some(*name),
                Step::Index(_) => None,
            })
            .collect()
    }

    /// Every path valid, at most 32 levels deep, and no two actions on
    /// overlapping paths; the paths parsed, in action order.
    fn check_paths(&self) -> Result<Vec<(&str, Steps<'_>)>> {
        let mut seen: Vec<(&str, Steps<'_>)> = Vec::with_capacity(self.actions.len());
        for action in &self.actions {
            let attr = action.path();
            let steps = attr.steps()?;
            // Names as DynamoDB takes them (not empty, at most 65,535
            // bytes), as an item's names are checked.
            for step in steps.iter() {
                if let Step::Name(name) = step {
                    crate::item::check_name(name).map_err(|reason| {
                        expr_error(&crate::describe::shorten(attr.path()), reason)
                    })?;
                }
            }
            if steps.len() > MAX_PATH_DEPTH {
                return Err(expr_error(
                    attr.path(),
                    format!(
                        "is a path {} levels deep; DynamoDB allows {MAX_PATH_DEPTH}",
                        steps.len()
                    ),
                ));
            }
            if let Some((other, _)) = seen.iter().find(|(_, s)| {
                let n = s.len().min(steps.len());
                s.get(..n) == steps.get(..n)
            }) {
                let shorter = if other.len() <= attr.path().len() {
                    *other
                } else {
                    attr.path()
                };
                return Err(expr_error(
                    shorter,
                    format!(
                        "is changed by two actions of one update (`{other}` and `{}`); DynamoDB \
                         rejects overlapping paths",
                        attr.path()
                    ),
                ));
            }
            if let Action::Add(..) | Action::Delete(..) = action
                && steps.len() > 1
            {
                let keyword = if matches!(action, Action::Add(..)) {
                    "ADD"
                } else {
                    "DELETE"
                };
                return Err(expr_error(
                    attr.path(),
                    format!(
                        "is a nested path; DynamoDB's {keyword} works on top-level attributes \
                         only (use SET with + or - for a nested number)"
                    ),
                ));
            }
            seen.push((attr.path(), steps));
        }
        Ok(seen)
    }
}

// Rendering what `SET` assigns.
impl Ctx<'_> {
    fn update_value(&mut self, node: &ValueNode, subject: &str, out: &mut String) -> Result<()> {
        match node {
            ValueNode::Operand(operand) => {
                if let OperandKind::Size(_) = &operand.0 {
                    return Err(expr_error(
                        subject,
                        "SET cannot assign size(); size() is only for conditions",
                    ));
                }
                self.operand(operand, subject, out)
            }
            ValueNode::IfNotExists(path, default) => {
                out.push_str("if_not_exists(");
                self.path(path, out)?;
                out.push_str(", ");
                self.update_value(default, subject, out)?;
                out.push(')');
                Ok(())
            }
            ValueNode::ListAppend(pair) => {
                let (a, b) = &**pair;
                for side in [a, b].into_iter().filter_map(ValueNode::operand) {
                    check_literal(side, subject, "list_append", "a list", |v| {
                        matches!(v, AttributeValue::L(_))
                    })?;
                }
                out.push_str("list_append(");
                self.update_value(a, subject, out)?;
                out.push_str(", ");
                self.update_value(b, subject, out)?;
                out.push(')');
                Ok(())
            }
            ValueNode::Plus(pair) | ValueNode::Minus(pair) => {
                let (a, b) = &**pair;
                for side in [a, b] {
                    if let Some(operand) = side.operand() {
                        check_literal(operand, subject, "+ and -", "numbers", |v| {
                            matches!(v, AttributeValue::N(_))
                        })?;
                    }
                    if matches!(
                        side,
                        ValueNode::Plus(..) | ValueNode::Minus(..) | ValueNode::ListAppend(..)
                    ) {
                        return Err(expr_error(
                            subject,
                            "+ and - take a value, a path or if_not_exists on each side, not another computation",
                        ));
                    }
                }
                self.update_value(a, subject, out)?;
                out.push_str(if matches!(node, ValueNode::Plus(..)) {
                    " + "
                } else {
                    " - "
                });
                self.update_value(b, subject, out)
            }
        }
    }
}

/// A literal value of `operand` must pass `ok` (paths are the server's to
/// check), and it may not be `size()`: `action` needs `expected`.
fn check_literal(
    operand: &Operand,
    subject: &str,
    action: &str,
    expected: &str,
    ok: impl Fn(&AttributeValue) -> bool,
) -> Result<()> {
    match &operand.0 {
        OperandKind::Value(Ok(v)) if !ok(v) => Err(expr_error(
            subject,
            format!(
                "{action} needs {expected}, found {}",
                crate::item::type_name(v)
            ),
        )),
        OperandKind::Size(_) => Err(expr_error(
            subject,
            format!("{action} needs {expected}, found size(); size() is only for conditions"),
        )),
        _ => Ok(()),
    }
}
