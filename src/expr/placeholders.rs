//! Placeholders: every builder in `expr` allocates its `#c0`, `:c0`, ...
//! through [`Ctx`] here, and merging expressions renames clashing ones here.
//! Also the error helpers every file of `expr` shares (this is the lowest).

use std::collections::{HashMap, HashSet};

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};

/// Attribute named in errors about an expression as a whole.
pub(super) const EXPRESSION: &str = "(expression)";

pub(super) fn expr_error(path: &str, reason: impl Into<String>) -> Error {
    Error::invalid_value(path, reason)
}

// ------------------------------------------------------------- allocating

pub(super) fn check_stem(stem: &str) -> Result<()> {
    let mut chars = stem.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(expr_error(
            EXPRESSION,
            format!(
                "placeholder stem {stem:?} must be ASCII letters and digits, starting with a letter"
            ),
        ))
    }
}

/// Placeholders handed out while rendering one expression, straight into
/// the request's maps. A name already handed out is found by scanning the
/// names map (an expression names few attributes, so a scan beats a second
/// map from name to placeholder); values are always new placeholders.
pub(super) struct Ctx<'p> {
    stem: &'p str,
    /// placeholder → attribute name.
    names: HashMap<String, String>,
    /// placeholder → value.
    values: HashMap<String, AttributeValue>,
}

impl<'p> Ctx<'p> {
    pub(super) fn new(stem: &'p str) -> Self {
        Ctx {
            stem,
            names: HashMap::new(),
            values: HashMap::new(),
        }
    }

    /// `sigil`, the stem and `n` (digits written without `fmt`).
    fn placeholder(&self, sigil: char, n: usize) -> String {
        let mut p = String::with_capacity(1 + self.stem.len() + 3);
        p.push(sigil);
        p.push_str(self.stem);
        push_decimal(&mut p, n);
        p
    }

    /// Appends the placeholder of the attribute `name` (the same one each
    /// time the name comes back).
    pub(super) fn push_name(&mut self, name: &str, out: &mut String) {
        if let Some((p, _)) = self.names.iter().find(|(_, n)| *n == name) {
            out.push_str(p);
            return;
        }
        let p = self.placeholder('#', self.names.len());
        out.push_str(&p);
        self.names.insert(p, name.to_owned());
    }

    /// Appends a new placeholder for the value `v`.
    pub(super) fn push_value(&mut self, v: AttributeValue, out: &mut String) {
        let p = self.placeholder(':', self.values.len());
        out.push_str(&p);
        self.values.insert(p, v);
    }

    pub(super) fn name(&mut self, name: &str) -> String {
        let mut out = String::new();
        self.push_name(name, &mut out);
        out
    }

    pub(super) fn value(&mut self, v: AttributeValue) -> String {
        let mut out = String::new();
        self.push_value(v, &mut out);
        out
    }

    /// The names and values handed out, to make the expression with.
    pub(super) fn into_bound(self) -> (HashMap<String, String>, HashMap<String, AttributeValue>) {
        (self.names, self.values)
    }
}

/// Appends the decimal digits of `n`.
fn push_decimal(out: &mut String, n: usize) {
    if n < 10 {
        // `n` is one digit, so the addition cannot overflow a byte.
        out.push(char::from(b'0' + n as u8));
        return;
    }
    push_decimal(out, n / 10);
    out.push(char::from(b'0' + (n % 10) as u8));
}

// --------------------------------------------------------- renaming on merge

pub(super) fn is_placeholder(key: &str, sigil: char) -> bool {
    key.strip_prefix(sigil).is_some_and(|rest| {
        !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// Byte ranges of the placeholders (`#name`, `:name`) in an expression.
/// DynamoDB expressions have no string literals, so every `#` or `:` starts
/// a placeholder.
pub(super) fn placeholder_spans(expression: &str) -> Vec<(usize, usize)> {
    let bytes = expression.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'#' || b == b':' {
            let start = i;
            i += 1;
            while bytes
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
            {
                i += 1;
            }
            if i > start + 1 {
                spans.push((start, i));
            }
        } else {
            i += 1;
        }
    }
    spans
}

pub(super) fn rewrite(expression: &str, renames: &HashMap<String, String>) -> String {
    let mut out = String::with_capacity(expression.len() + 8);
    let mut last = 0;
    for (start, end) in placeholder_spans(expression) {
        out.push_str(expression.get(last..start).unwrap_or(""));
        let token = expression.get(start..end).unwrap_or("");
        out.push_str(renames.get(token).map_or(token, String::as_str));
        last = end;
    }
    out.push_str(expression.get(last..).unwrap_or(""));
    out
}

/// Keeps `own`'s placeholders that `taken` leaves free or binds to the same
/// thing; renames the others (recording it in `renames`) to the first
/// `<sigil><stem><n>` bound nowhere.
pub(super) fn rename_map<V: PartialEq>(
    own: HashMap<String, V>,
    taken: &HashMap<String, V>,
    renames: &mut HashMap<String, String>,
) -> HashMap<String, V> {
    if !own
        .iter()
        .any(|(key, value)| taken.get(key).is_some_and(|bound| bound != value))
    {
        // Nothing clashes (the common case): kept as it is.
        return own;
    }
    let mut entries: Vec<(String, V)> = own.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let own_keys: HashSet<String> = entries.iter().map(|(k, _)| k.clone()).collect();
    let mut out: HashMap<String, V> = HashMap::with_capacity(entries.len());
    for (key, value) in entries {
        match taken.get(&key) {
            Some(bound) if *bound != value => {
                let fresh = fresh_placeholder(&key, |c| {
                    taken.contains_key(c) || own_keys.contains(c) || out.contains_key(c)
                });
                renames.insert(key, fresh.clone());
                out.insert(fresh, value);
            }
            _ => {
                out.insert(key, value);
            }
        }
    }
    out
}

fn fresh_placeholder(key: &str, taken: impl Fn(&str) -> bool) -> String {
    let sigil = key.get(..1).unwrap_or("#");
    let stem = key
        .get(1..)
        .unwrap_or("")
        .trim_end_matches(|c: char| c.is_ascii_digit());
    let mut n: u64 = 0;
    loop {
        let candidate = format!("{sigil}{stem}{n}");
        if !taken(&candidate) {
            return candidate;
        }
        n = n.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_scanning() {
        assert_eq!(
            placeholder_spans("#a.#b[0] = :v_1 AND size(#c) > :x"),
            [(0, 2), (3, 5), (11, 15), (25, 27), (31, 33)]
        );
        assert!(placeholder_spans("# : a").is_empty());
    }

    #[test]
    fn fresh_placeholders_skip_taken_ones() {
        let taken = ["#c0", "#c1", "#c2"];
        assert_eq!(fresh_placeholder("#c0", |c| taken.contains(&c)), "#c3");
        assert_eq!(fresh_placeholder(":dmType", |_| false), ":dmType0");
        assert_eq!(fresh_placeholder(":7", |c| c == ":0"), ":1");
    }
}
