//! The key pattern template syntax: compiling a template such as
//! `ORDER#{id}#LINE#{n:u3}` into components (literal text and placeholders).
//! Builds on `format` and `encoding`; `language`, `pattern` and `overlap` use it.

use std::fmt;

use super::encoding::Encoding;
use super::format::KeyFormat;
use crate::error::Error;

#[derive(Debug, Clone, Copy)]
pub(super) struct Slot {
    pub(super) name: &'static str,
    pub(super) encoding: Encoding,
    /// The placeholder as written, e.g. `{line:u3}`.
    pub(super) spec: &'static str,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Component {
    pub(super) before: &'static str,
    pub(super) slot: Option<Slot>,
    pub(super) after: &'static str,
}

/// The error for a problem with the key pattern `template`, or with a key or
/// value that does not fit it.
pub(super) fn pattern_error(template: &str, reason: impl fmt::Display) -> Error {
    Error::invalid_key_pattern(template, reason.to_string())
}

pub(super) fn constant_prefix(template: &'static str) -> &'static str {
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

pub(super) fn compile(
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
