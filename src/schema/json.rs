//! A small JSON writer for the documents the crate exports (the table's
//! `CreateTable` input, a registry's design): values are written in the
//! order given, pretty-printed with two spaces, every string escaped as
//! JSON requires. Small enough to check by reading.

use std::fmt::Write as _;

/// The JSON the exported documents are made of: strings, booleans, whole
/// numbers, arrays and objects (no nulls, no fractions).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Str(String),
    Bool(bool),
    Num(u64),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    pub(crate) fn str(s: &str) -> Json {
        Json::Str(s.to_owned())
    }

    /// An object of these fields, in this order.
    pub(crate) fn obj(fields: Vec<(&str, Json)>) -> Json {
        Json::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    }

    /// The value as a document: pretty-printed with two spaces, ending with
    /// a newline.
    pub(crate) fn document(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        match self {
            Json::Str(s) => write_string(out, s),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Num(n) => {
                let _ = write!(out, "{n}");
            }
            Json::Array(items) => {
                write_seq(out, depth, '[', ']', items.iter(), |out, item| {
                    item.write(out, depth + 1);
                });
            }
            Json::Object(fields) => {
                write_seq(out, depth, '{', '}', fields.iter(), |out, (name, value)| {
                    write_string(out, name);
                    out.push_str(": ");
                    value.write(out, depth + 1);
                });
            }
        }
    }
}

/// `open`, each item on a line of its own one level deeper, `close`; `[]`
/// or `{}` when empty.
fn write_seq<T>(
    out: &mut String,
    depth: usize,
    open: char,
    close: char,
    items: impl ExactSizeIterator<Item = T>,
    mut write_item: impl FnMut(&mut String, T),
) {
    out.push(open);
    let empty = items.len() == 0;
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        newline(out, depth + 1);
        write_item(out, item);
    }
    if !empty {
        newline(out, depth);
    }
    out.push(close);
}

fn newline(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// `s` as a JSON string: quoted, with `"`, `\` and the control characters
/// escaped (everything else is valid in JSON as it is).
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                // Writing to a `String` cannot fail.
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(s: &str) -> String {
        let mut out = String::new();
        write_string(&mut out, s);
        out
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string("plain"), r#""plain""#);
        assert_eq!(string(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(string("\n\r\t\u{0}\u{1f}"), r#""\n\r\t\u0000\u001f""#);
        assert_eq!(string("é\u{7f}\u{2028}"), "\"é\u{7f}\u{2028}\"");
    }

    #[test]
    fn empty_containers_stay_on_one_line() {
        let doc = Json::obj(vec![("A", Json::Array(vec![])), ("B", Json::obj(vec![]))]);
        assert_eq!(doc.document(), "{\n  \"A\": [],\n  \"B\": {}\n}\n");
        assert_eq!(Json::Array(vec![Json::Num(7)]).document(), "[\n  7\n]\n");
    }
}
