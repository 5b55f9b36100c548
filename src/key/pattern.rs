//! `KeyPattern` and `BoundPattern`: rendering keys from named values,
//! parsing them back, and the per-thread cache of compiled templates. Builds
//! on `template`, `language` and `parts`; `overlap` uses it.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use super::encoding::Encoding;
use super::format::{
    KeyFormat, KeyRole, check_size, holds_either, last_sort_key_with_prefix, segments, split_key,
};
use super::key_value::KeyValue;
use super::language::Language;
use super::parts::KeyParts;
use super::single::single_placeholder;
use super::template::{Component, Slot, compile, constant_prefix, pattern_error};
use crate::error::{Error, Result};
use crate::type_cache::{FastMap, thread_cached};

/// A key template such as `CUSTOMER#{customer_id}` or
/// `ORDER#{order_id}#LINE#{line:u3}`: renders keys from named values, parses
/// keys back, and declares a mapper's keys for the registry's overlap
/// analysis.
///
/// Declared in `const` context; the template is checked whenever the pattern
/// is used ([`MapperExt::check`](crate::MapperExt::check) and the registry
/// check a mapper's patterns up front). The rules:
///
/// - components are separated by the format's delimiter and none is empty;
/// - a component holds at most one placeholder `{name}` or `{name:format}`,
///   with optional literal text before and after it (`v{n:u2}`);
/// - names are ASCII letters, digits and `_`, not starting with a digit, each
///   used once;
/// - formats: none (text, escaped), `u<width>` ([`Encoding::Unsigned`]),
///   `i<width>` ([`Encoding::Signed`]), `ts` or `ts<fraction digits>`
///   ([`Encoding::Timestamp`]);
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
/// use dynamodb_mapper::KeyPattern;
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
    pub(super) template: &'static str,
    role: KeyRole,
    format: KeyFormat,
    /// Worked out by the `const` constructor: for a valid template of the
    /// default format with exactly one text placeholder (`CUSTOMER#{id}`),
    /// the byte range of `{id}`. Such a key renders without compiling the
    /// template (see [`BoundPattern::render`]). A function of `template`
    /// and `format`, so it changes no comparison.
    pub(super) single: Option<(u16, u16)>,
}

impl KeyPattern {
    /// A partition key pattern (rendered keys at most 2048 bytes).
    ///
    /// ```
    /// use dynamodb_mapper::KeyPattern;
    /// const PK: KeyPattern = KeyPattern::partition("CUSTOMER#{id}");
    /// assert_eq!(PK.with("id", "C1").render()?, "CUSTOMER#C1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub const fn partition(template: &'static str) -> Self {
        KeyPattern {
            template,
            role: KeyRole::Partition,
            format: KeyFormat::new(),
            single: single_placeholder(template),
        }
    }

    /// A sort key pattern (rendered keys at most 1024 bytes).
    ///
    /// ```
    /// use dynamodb_mapper::KeyPattern;
    /// const SK: KeyPattern = KeyPattern::sort("METADATA");
    /// assert_eq!(SK.bind().render()?, "METADATA");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub const fn sort(template: &'static str) -> Self {
        KeyPattern {
            template,
            role: KeyRole::Sort,
            format: KeyFormat::new(),
            single: single_placeholder(template),
        }
    }

    /// The same pattern with another key format.
    ///
    /// ```
    /// use dynamodb_mapper::{KeyPattern, key::KeyFormat};
    /// const SK: KeyPattern = KeyPattern::sort("USER|{id}").with_format(KeyFormat::new().with_delimiter('|'));
    /// assert_eq!(SK.with("id", "a|b").render()?, r"USER|a\|b");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub const fn with_format(mut self, format: KeyFormat) -> Self {
        self.format = format;
        if !(format.delimiter == KeyFormat::new().delimiter
            && format.escape == KeyFormat::new().escape)
        {
            self.single = None;
        }
        self
    }

    /// The template as declared.
    #[must_use]
    pub(crate) const fn template(&self) -> &'static str {
        self.template
    }

    /// Whether this is a partition or a sort key pattern.
    #[must_use]
    pub(crate) const fn role(&self) -> KeyRole {
        self.role
    }

    /// The key format.
    #[must_use]
    pub(crate) const fn key_format(&self) -> KeyFormat {
        self.format
    }

    fn error(&self, reason: impl fmt::Display) -> Error {
        pattern_error(self.template, reason)
    }

    /// Checks the template and the format.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// naming the template, saying what is wrong with it.
    pub(crate) fn validate(&self) -> Result<()> {
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
        thread_cached(&COMPILED, MAX_COMPILED, key, || {
            let components: Rc<[Component]> = compile(self.template, self.format)
                .map_err(|reason| self.error(format!("is invalid: it {reason}")))?
                .into();
            Ok(components)
        })
    }

    /// The literal text before the first placeholder: what every rendered
    /// key starts with, and the `begins_with` value that selects this
    /// pattern's keys (the whole key for a pattern without placeholders).
    ///
    /// # Errors
    /// As [`validate`](Self::validate).
    pub(crate) fn constant_prefix(&self) -> Result<&'static str> {
        self.validate()?;
        Ok(constant_prefix(self.template))
    }

    /// The placeholders: name and encoding, in template order.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// when the template or its format is not valid.
    ///
    /// ```
    /// use dynamodb_mapper::{KeyPattern, key::Encoding};
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
    /// use dynamodb_mapper::KeyPattern;
    /// let pk = KeyPattern::partition("TENANT#{tenant}").with("tenant", "acme").render()?;
    /// assert_eq!(pk, "TENANT#acme");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[inline]
    pub fn with<'a>(&self, name: &'a str, value: impl Into<KeyValue<'a>>) -> BoundPattern<'a> {
        BoundPattern {
            pattern: *self,
            values: Values::One((name, value.into())),
        }
    }

    /// Starts binding values with none bound yet: for a pattern without
    /// placeholders, or to bind values in a loop.
    ///
    /// ```
    /// use dynamodb_mapper::KeyPattern;
    /// assert_eq!(KeyPattern::sort("PROFILE").bind().render()?, "PROFILE");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn bind(&self) -> BoundPattern<'static> {
        BoundPattern {
            pattern: *self,
            values: Values::None,
        }
    }

    /// Parses a key rendered from this pattern back into its values, typed
    /// by each placeholder's format.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// naming the template, when the key does not match the pattern (or the
    /// pattern is invalid).
    ///
    /// ```
    /// use dynamodb_mapper::KeyPattern;
    ///
    /// const SK: KeyPattern = KeyPattern::sort("STATUS#{at:ts}");
    /// let parts = SK.parse("STATUS#2024-01-15T10:30:00Z")?;
    /// assert_eq!(parts.iter().count(), 1);
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
    #[must_use]
    pub(crate) fn matches(&self, key: &str) -> bool {
        self.components()
            .is_ok_and(|components| self.parse_with(&components, key, |_, _| ()).is_ok())
    }

    /// Whether some values make this pattern render a key starting with
    /// `prefix`: whether `begins_with(key, prefix)` can select this
    /// pattern's keys.
    ///
    /// # Errors
    /// As [`validate`](Self::validate).
    #[cfg(test)]
    pub(crate) fn can_start_with(&self, prefix: &str) -> Result<bool> {
        Ok(self.language()?.can_start_with(prefix))
    }

    /// Whether some values make this pattern and `other` render the same key.
    ///
    /// # Errors
    /// As [`validate`](Self::validate), for either pattern.
    #[cfg(test)]
    pub(crate) fn intersects(&self, other: &KeyPattern) -> Result<bool> {
        Ok(self.language()?.intersects(&other.language()?))
    }

    /// The prefixes [`BoundPattern::prefix`] renders with values for the
    /// placeholders `bound` names (see `Language::of_prefix`).
    pub(super) fn prefix_language(&self, bound: &[&str]) -> Result<Language> {
        Ok(Language::of_prefix(
            &self.components()?,
            self.format,
            &|name| bound.contains(&name),
        ))
    }

    pub(super) fn language(&self) -> Result<Language> {
        Ok(Language::of(&self.components()?, self.format))
    }

    /// A prefix (`prefix`) or the whole key; the whole key is rendered by
    /// [`render_key`](Self::render_key).
    fn render(&self, values: &[(&str, KeyValue<'_>)], prefix: bool) -> Result<String> {
        if !prefix {
            return self.render_key(values);
        }
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
        } else if prefix {
            // Every placeholder has a value: the keys under this one, so the
            // prefix ends at a segment boundary (`ORDER#O1` would also match
            // `ORDER#O10`).
            out.push(f.delimiter);
        }
        check_size(&out, self.role).map_err(|r| self.error(format!("renders a key that {r}")))?;
        Ok(out)
    }
}

impl KeyPattern {
    /// The whole key: [`render`](Self::render) without a prefix, from the
    /// pattern compiled once per thread (its literal text worked out, the
    /// key rendered into one string of the right size). The same checks,
    /// in the same order, with the same errors.
    #[inline(never)]
    fn render_key(&self, values: &[(&str, KeyValue<'_>)]) -> Result<String> {
        let compiled = self.compiled()?;
        // The value of each of the first placeholders, found as the names
        // are checked (the rest are found by name again).
        let mut by_slot: [Option<&KeyValue<'_>>; 8] = [None; 8];
        for (k, (name, value)) in values.iter().enumerate() {
            let Some(at) = compiled
                .slots
                .iter()
                .position(|(slot, _)| slot.name == *name)
            else {
                return Err(self.error(format!("has no placeholder `{{{name}}}`")));
            };
            if values.iter().take(k).any(|(n, _)| n == name) {
                return Err(self.error(format!("was given `{{{name}}}` twice")));
            }
            if let Some(found) = by_slot.get_mut(at) {
                *found = Some(value);
            }
        }
        let values_len = values.iter().map(|(_, v)| v.size_hint()).sum();
        let value = |i: usize| {
            let slot = compiled.slots.get(i).map(|(slot, _)| slot);
            let found = match by_slot.get(i) {
                Some(found) => *found,
                None => slot
                    .and_then(|slot| values.iter().find(|(n, _)| *n == slot.name))
                    .map(|(_, value)| value),
            };
            match (found, slot) {
                (Some(value), _) => Ok(value),
                (None, Some(slot)) => Err(self.error(format!("has no value for `{}`", slot.spec))),
                (None, None) => Err(self.error(format!("has no placeholder {i}"))),
            }
        };
        compiled
            .render_with(values_len, value)
            .map_err(|failure| match failure {
                RenderFailure::Value(e) | RenderFailure::Pattern(e) => e,
            })
    }

    /// [`compile`](Self::compile), from this thread's cache after the first
    /// use.
    fn compiled(&self) -> Result<Rc<Compiled>> {
        // The role too: it sets the size limit a compiled pattern checks.
        let key = (
            (
                self.template.as_ptr().addr(),
                self.template.len(),
                self.format,
            ),
            self.role,
        );
        thread_cached(&RENDERERS, MAX_COMPILED, key, || {
            Ok(Rc::new(self.compile()?))
        })
    }
}

impl fmt::Display for KeyPattern {
    /// The template.
    ///
    /// ```
    /// use dynamodb_mapper::KeyPattern;
    /// assert_eq!(KeyPattern::sort("ORDER#{id}").to_string(), "ORDER#{id}");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.template)
    }
}

/// A pattern compiled once, kept by whoever renders it on every write (a
/// mapper's plan): its literal text worked out once, so rendering it looks
/// nothing up and builds nothing but the key, in one string of the right
/// size.
#[derive(Debug)]
pub(crate) struct Compiled {
    pattern: KeyPattern,
    /// The literal text before the first placeholder, delimiters included
    /// (the whole key of a pattern without placeholders).
    head: Box<str>,
    /// Each placeholder in template order, with the literal text after it
    /// up to the next placeholder (delimiters included).
    slots: Box<[(Slot, Box<str>)]>,
    /// The bytes of literal text and delimiters every key has.
    literal: usize,
}

/// Why [`Compiled::render_with`] rendered no key.
pub(crate) enum RenderFailure<E> {
    /// The caller's value function failed.
    Value(E),
    /// A value the pattern cannot take, or a key over the size limit.
    Pattern(Error),
}

impl KeyPattern {
    /// This pattern compiled, to render many keys.
    ///
    /// # Errors
    /// As [`validate`](Self::validate).
    pub(crate) fn compile(&self) -> Result<Compiled> {
        let components = self.components()?;
        // The text between placeholders is the components' literal text
        // joined by the delimiter, as `render` writes it.
        let mut head = String::new();
        let mut slots: Vec<(Slot, String)> = Vec::new();
        for (i, component) in components.iter().enumerate() {
            let text = slots.last_mut().map_or(&mut head, |(_, after)| after);
            if i > 0 {
                text.push(self.format.delimiter);
            }
            text.push_str(component.before);
            if let Some(slot) = component.slot {
                slots.push((slot, String::new()));
            }
            let text = slots.last_mut().map_or(&mut head, |(_, after)| after);
            text.push_str(component.after);
        }
        let literal = head.len() + slots.iter().map(|(_, after)| after.len()).sum::<usize>();
        Ok(Compiled {
            pattern: *self,
            head: head.into(),
            slots: slots
                .into_iter()
                .map(|(slot, after)| (slot, after.into()))
                .collect(),
            literal,
        })
    }
}

impl Compiled {
    /// The key with the value of placeholder `i` (counting the
    /// placeholders in template order from 0) from `value(i)`, rendered
    /// into one string sized for `values_len` bytes of values (the right
    /// size when the values need no escaping).
    pub(crate) fn render_with<'v, V: std::borrow::Borrow<KeyValue<'v>>, E>(
        &self,
        values_len: usize,
        mut value: impl FnMut(usize) -> std::result::Result<V, E>,
    ) -> std::result::Result<String, RenderFailure<E>> {
        if self.slots.is_empty() {
            // A constant key (`METADATA`): its text, within the limit or not.
            return match check_size(&self.head, self.pattern.role) {
                Ok(()) => Ok(self.head.to_string()),
                Err(r) => Err(RenderFailure::Pattern(
                    self.pattern.error(format!("renders a key that {r}")),
                )),
            };
        }
        let f = self.pattern.format;
        let mut out = String::with_capacity(self.literal + values_len);
        out.push_str(&self.head);
        for (i, (slot, after)) in self.slots.iter().enumerate() {
            let v = value(i).map_err(RenderFailure::Value)?;
            match (slot.encoding, v.borrow()) {
                // Text is itself, escaped (what `encode_reason` gives it).
                (Encoding::Text, KeyValue::Text(text)) if !text.is_empty() => {
                    f.escape_into(&mut out, text);
                }
                (encoding, v) => {
                    let encoded = encoding.encode_reason(v).map_err(|r| {
                        RenderFailure::Pattern(
                            self.pattern
                                .error(format!("value for `{}`: {r}", slot.spec)),
                        )
                    })?;
                    f.escape_into(&mut out, &encoded);
                }
            }
            if !after.is_empty() {
                out.push_str(after);
            }
        }
        check_size(&out, self.pattern.role).map_err(|r| {
            RenderFailure::Pattern(self.pattern.error(format!("renders a key that {r}")))
        })?;
        Ok(out)
    }
}

/// A template's `&'static str` (address and length) and format.
type TemplateId = (usize, usize, KeyFormat);

/// How many compiled templates a thread keeps at most.
const MAX_COMPILED: usize = 1024;

thread_local! {
    /// Compiled templates, per thread.
    static COMPILED: RefCell<FastMap<TemplateId, Rc<[Component]>>> =
        RefCell::new(FastMap::default());
    /// Patterns compiled for rendering, per thread (by template and role).
    static RENDERERS: RefCell<FastMap<(TemplateId, KeyRole), Rc<Compiled>>> =
        RefCell::new(FastMap::default());
}

/// A pattern with values bound to some of its placeholders, from
/// [`KeyPattern::with`] or [`KeyPattern::bind`].
///
/// ```
/// use dynamodb_mapper::KeyPattern;
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
    values: Values<'a>,
}

/// A bound pattern's values: one (the usual partition key) kept without an
/// allocation, more in a vector. Compared and printed as the list.
#[derive(Clone)]
enum Values<'a> {
    None,
    One((&'a str, KeyValue<'a>)),
    Many(Vec<(&'a str, KeyValue<'a>)>),
}

impl<'a> Values<'a> {
    #[inline]
    fn push(&mut self, value: (&'a str, KeyValue<'a>)) {
        if let Values::None = self {
            *self = Values::One(value);
            return;
        }
        *self = match std::mem::replace(self, Values::None) {
            Values::None => Values::One(value),
            Values::One(first) => Values::Many(vec![first, value]),
            Values::Many(mut all) => {
                all.push(value);
                Values::Many(all)
            }
        };
    }

    #[inline]
    fn as_slice(&self) -> &[(&'a str, KeyValue<'a>)] {
        match self {
            Values::None => &[],
            Values::One(one) => std::slice::from_ref(one),
            Values::Many(all) => all,
        }
    }

    fn iter(&self) -> std::slice::Iter<'_, (&'a str, KeyValue<'a>)> {
        self.as_slice().iter()
    }
}

impl PartialEq for Values<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Values<'_> {}

impl fmt::Debug for Values<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<'a> BoundPattern<'a> {
    /// Binds `value` to the placeholder `name`.
    ///
    /// ```
    /// use dynamodb_mapper::KeyPattern;
    /// let id = String::from("C1");
    /// let key = KeyPattern::partition("CUSTOMER#{id}").bind().with("id", &id).render()?;
    /// assert_eq!(key, "CUSTOMER#C1");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[inline]
    pub fn with(mut self, name: &'a str, value: impl Into<KeyValue<'a>>) -> Self {
        self.values.push((name, value.into()));
        self
    }

    /// The key, every placeholder filled.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// naming the template: a placeholder without a value, a value for a name
    /// the pattern does not have or given twice, a value its placeholder's
    /// format cannot encode (empty text, wrong type, too many digits), a key
    /// over the size limit, or an invalid pattern.
    ///
    /// ```
    /// use dynamodb_mapper::KeyPattern;
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
    #[inline]
    pub fn render(&self) -> Result<String> {
        if let Some(key) = self.render_single() {
            return Ok(key);
        }
        self.pattern.render_key(self.values.as_slice())
    }

    /// The key of a one-placeholder pattern (`CUSTOMER#{id}`) bound to one
    /// non-empty text value of that name that needs no escaping, within the
    /// size limit, without compiling the template: its text before the
    /// placeholder, the value, its text after. `None` for anything else, which
    /// [`render`](Self::render) then renders (or reports) the general way.
    #[inline]
    fn render_single(&self) -> Option<String> {
        let (open, close) = self.pattern.single?;
        let Values::One((name, KeyValue::Text(text))) = &self.values else {
            return None;
        };
        let template = self.pattern.template;
        let (open, close) = (usize::from(open), usize::from(close));
        // The name compared as bytes (`{` and `}` are ASCII, so the
        // placeholder's range is on character boundaries). A value to escape
        // goes the general way too (the default format's delimiter and
        // escape character are ASCII).
        if text.is_empty()
            || Some(name.as_bytes()) != template.as_bytes().get(open + 1..close - 1)
            || holds_either(text.as_bytes(), b'#', b'\\')
        {
            return None;
        }
        let (before, after) = (template.get(..open)?, template.get(close..)?);
        let mut out = String::with_capacity(before.len() + text.len() + after.len());
        out.push_str(before);
        out.push_str(text);
        out.push_str(after);
        (out.len() <= self.pattern.role.max_bytes()).then_some(out)
    }

    /// The `begins_with` value for keys with the bound values: the key up to
    /// the first placeholder without a value (including the literal text
    /// before that placeholder), or, when every placeholder has a value, the
    /// whole key and a delimiter (the keys under it): a prefix never ends
    /// inside a bound value, so `ORDER#O1` cannot match `ORDER#O10`. For the
    /// keys whose next value starts with some text, append that text escaped
    /// by [`KeyFormat::escape_text`] (the last example).
    ///
    /// # Errors
    /// As [`render`](Self::render) (apart from missing values), and when a
    /// placeholder after the first unbound one has a value, or the prefix
    /// would be empty.
    ///
    /// ```
    /// use dynamodb_mapper::KeyPattern;
    ///
    /// const SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}");
    /// assert_eq!(SK.bind().prefix()?, "ORDER#");
    /// assert_eq!(SK.with("order_id", "O#1").prefix()?, r"ORDER#O\#1#LINE#");
    /// assert_eq!(SK.with("order_id", "O1").with("line", 2).prefix()?, "ORDER#O1#LINE#002#");
    /// assert!(SK.with("line", 1).prefix().is_err());
    ///
    /// // Order ids starting with `O#2`: the escaped start of the value.
    /// let start = SK.bind().prefix()? + &dynamodb_mapper::key::KeyFormat::new().escape_text("O#2")?;
    /// assert_eq!(start, r"ORDER#O\#2");
    /// assert!(SK.with("order_id", "O#20").with("line", 1).render()?.starts_with(&start));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn prefix(&self) -> Result<String> {
        self.pattern.render(self.values.as_slice(), true)
    }

    /// A bound of a range over the placeholder `name`, with `value` for it
    /// (and the bound values before it).
    ///
    /// - [`RangeEnd::Low`]: the least sort key with `value`. When `name` is
    ///   the last placeholder this is the whole key; otherwise the key up to
    ///   the next placeholder, so it never sorts after a key of `value`
    ///   (`DAY#2025-01-02#` is below every `DAY#2025-01-02#...`).
    /// - [`RangeEnd::High`]: the greatest sort key with `value`, the
    ///   inclusive high bound that takes in every key of its last value
    ///   (`DAY#2025-01-05#...`, whatever follows): the whole key when `name`
    ///   is the last placeholder, otherwise the key up to the next
    ///   placeholder followed by the greatest text a sort key can hold
    ///   ([`last_sort_key_with_prefix`](super::last_sort_key_with_prefix)).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// naming the template: a partition key pattern (ranges are on sort
    /// keys); as [`prefix`](Self::prefix) with `name` bound to `value`
    /// (a placeholder before `name` without a value, one after it with a
    /// value, a value its format cannot encode).
    pub(crate) fn range_bound(
        &self,
        name: &'a str,
        value: impl Into<KeyValue<'a>>,
        end: RangeEnd,
    ) -> Result<String> {
        let value = value.into();
        let upper = end == RangeEnd::High;
        if self.pattern.role == KeyRole::Partition {
            return Err(self.pattern.error(format!(
                "is a partition key pattern; a range on `{{{name}}}` needs a sort key pattern"
            )));
        }
        let components = self.pattern.components()?;
        if !components
            .iter()
            .any(|c| c.slot.is_some_and(|s| s.name == name))
        {
            return Err(self
                .pattern
                .error(format!("has no placeholder `{{{name}}}`")));
        }
        let mut slots = components.iter().filter_map(|c| c.slot);
        for slot in slots.by_ref() {
            if slot.name == name {
                break;
            }
            if !self.values.iter().any(|(n, _)| *n == slot.name) {
                return Err(self.pattern.error(format!(
                    "has no value for `{}`, which comes before the range over `{{{name}}}`",
                    slot.spec
                )));
            }
        }
        let last = slots.next().is_none();
        let with = self.clone().with(name, value);
        if last {
            with.render()
        } else if upper {
            Ok(last_sort_key_with_prefix(&with.prefix()?))
        } else {
            with.prefix()
        }
    }
}

/// Which end of a sort key range [`BoundPattern::range_bound`] renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RangeEnd {
    /// The least key of the low value.
    Low,
    /// The greatest key of the high value.
    High,
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Templates of the characters that matter to the template syntax, so
    /// valid, invalid and one-placeholder templates all come up often.
    fn template() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::string::string_regex(r"([A-Z#\\{}:_1é]|\{id\}|\{n:u2\}|\{x_1\}|\{1a\}){0,7}")
            .expect("regex")
    }

    proptest::proptest! {
        /// The `const` analysis accepts only templates `compile` accepts,
        /// with one text placeholder at the range it gives, and the key it
        /// renders without compiling is the compiled template's, for every
        /// value (escaped), role and size.
        #[test]
        fn one_placeholder_keys_render_as_the_compiled_template_does(
            t in template(),
            value in r"[a-z#\\é]{0,6}",
            big in proptest::prelude::any::<bool>(),
            sort in proptest::prelude::any::<bool>(),
        ) {
            let t: &'static str = Box::leak(t.into_boxed_str());
            let pattern = if sort { KeyPattern::sort(t) } else { KeyPattern::partition(t) };
            let compiled = compile(t, KeyFormat::new());
            let Some((open, close)) = pattern.single else {
                return Ok(());
            };
            let components = compiled.expect("a one-placeholder template is valid");
            let slots: Vec<Slot> = components.iter().filter_map(|c| c.slot).collect();
            proptest::prop_assert_eq!(slots.len(), 1);
            proptest::prop_assert_eq!(slots[0].encoding, Encoding::Text);
            proptest::prop_assert_eq!(slots[0].spec, &t[usize::from(open)..usize::from(close)]);
            let value = if big { value.repeat(400) } else { value };
            let name = slots[0].name;
            let bound = pattern.with(name, value.as_str());
            let general = pattern.render_key(bound.values.as_slice());
            match bound.render_single() {
                Some(key) => proptest::prop_assert_eq!(Ok(key), general.map_err(|e| e.to_string())),
                // Left to the general way: an empty value, one to escape, or
                // a key over the limit.
                None => proptest::prop_assert!(
                    value.is_empty() || value.contains(['#', '\\']) || general.is_err()
                ),
            }
            // Any other binding goes the general way.
            proptest::prop_assert!(pattern.with("other", "v").render_single().is_none());
            proptest::prop_assert!(pattern.with(name, 7).render_single().is_none());
        }
    }
}
