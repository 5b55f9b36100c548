//! How keys and values are shown in messages: a value by its type name,
//! never its contents (which could be deep or large); a key as
//! `pk="A", sk=7`, long strings and numbers cut.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

/// A short name for the type of an attribute value, used in error messages.
#[must_use]
pub(crate) fn type_name(value: &AttributeValue) -> &'static str {
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

/// A number as an error message shows it: cut after 48 characters (a
/// serialized `1e300_f64` has 301 digits).
pub(crate) fn shown(n: &str) -> std::borrow::Cow<'_, str> {
    match n.char_indices().nth(48) {
        Some((end, _)) => format!("{}…", &n[..end]).into(),
        None => n.into(),
    }
}

/// Appends `name=value` for a key attribute as messages show it: strings
/// quoted (cut after 64 characters), numbers as they are (cut), binaries as
/// `<n bytes>`, a value of another type by its type (never its contents,
/// which could be deep).
pub(crate) fn write_key_part(out: &mut String, name: &str, value: &AttributeValue) {
    out.push_str(name);
    out.push('=');
    write_value(out, value);
}

/// A key value as [`write_key_part`] shows it, without the name.
pub(crate) fn describe_value(value: &AttributeValue) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &AttributeValue) {
    use std::fmt::Write as _;
    let _ = match value {
        AttributeValue::S(s) => match s.char_indices().nth(64) {
            Some((end, _)) => write!(out, "{:?}…", &s[..end]),
            None => write!(out, "{s:?}"),
        },
        AttributeValue::N(n) => write!(out, "{}", shown(n)),
        AttributeValue::B(b) => write!(out, "<{} bytes>", b.as_ref().len()),
        other => write!(out, "<{}>", type_name(other)),
    };
}

/// A key rendered for messages: `pk="A", sk="B"`, attributes sorted.
#[must_use]
pub(crate) fn describe_key(key: &HashMap<String, AttributeValue>) -> String {
    let mut names: Vec<&String> = key.keys().collect();
    names.sort();
    let mut out = String::new();
    for (i, name) in names.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_key_part(&mut out, name, &key[name]);
    }
    out
}

/// A name for an error path: over-long names are cut to their first 64
/// bytes (at a character boundary) and an ellipsis.
pub(crate) fn shorten(name: &str) -> std::borrow::Cow<'_, str> {
    if name.len() <= 64 {
        return name.into();
    }
    let mut end = 64;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &name[..end]).into()
}
