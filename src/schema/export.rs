//! A [`TableDefinition`] as the JSON documents infrastructure tools take:
//! the `CreateTable` input and the `UpdateTimeToLive` input, in the shape of
//! DynamoDB's API (what `aws dynamodb create-table --cli-input-json` reads).
//!
//! The documents are rendered from the same SDK input the fluent builders
//! send (`definition.rs`), by a writer small enough to check by reading: the
//! values are strings and booleans only, and every string is escaped as
//! JSON requires.

use std::fmt::Write as _;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, GlobalSecondaryIndex, KeySchemaElement, Projection, StreamSpecification,
    TimeToLiveSpecification,
};

use super::TableDefinition;

impl TableDefinition {
    /// The `CreateTable` input as a JSON document, in the shape of
    /// DynamoDB's API: `TableName`, `AttributeDefinitions`, `KeySchema`,
    /// `BillingMode`, and `GlobalSecondaryIndexes` (each with its
    /// `Projection`) and `StreamSpecification` when the table has them.
    /// It is what [`create_table_request`](Self::create_table_request)
    /// sends, field for field, for
    /// `aws dynamodb create-table --cli-input-json file://table.json`,
    /// CloudFormation or Terraform. Pretty-printed, ending with a newline.
    ///
    /// TTL is not in it (`CreateTable` cannot carry it): see
    /// [`update_time_to_live_json`](Self::update_time_to_live_json).
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::StreamViewType;
    /// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
    ///
    /// const T: TableSchema = TableSchema::new("pk")
    ///     .sort_key("sk")
    ///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk")]);
    /// let json = T.definition("AppTable").stream(StreamViewType::NewImage).create_table_json();
    /// assert_eq!(json, r#"{
    ///   "TableName": "AppTable",
    ///   "AttributeDefinitions": [
    ///     {
    ///       "AttributeName": "pk",
    ///       "AttributeType": "S"
    ///     },
    ///     {
    ///       "AttributeName": "sk",
    ///       "AttributeType": "S"
    ///     },
    ///     {
    ///       "AttributeName": "gsi1pk",
    ///       "AttributeType": "S"
    ///     }
    ///   ],
    ///   "KeySchema": [
    ///     {
    ///       "AttributeName": "pk",
    ///       "KeyType": "HASH"
    ///     },
    ///     {
    ///       "AttributeName": "sk",
    ///       "KeyType": "RANGE"
    ///     }
    ///   ],
    ///   "BillingMode": "PAY_PER_REQUEST",
    ///   "GlobalSecondaryIndexes": [
    ///     {
    ///       "IndexName": "GSI1",
    ///       "KeySchema": [
    ///         {
    ///           "AttributeName": "gsi1pk",
    ///           "KeyType": "HASH"
    ///         }
    ///       ],
    ///       "Projection": {
    ///         "ProjectionType": "ALL"
    ///       }
    ///     }
    ///   ],
    ///   "StreamSpecification": {
    ///     "StreamEnabled": true,
    ///     "StreamViewType": "NEW_IMAGE"
    ///   }
    /// }
    /// "#);
    /// ```
    #[must_use]
    pub fn create_table_json(&self) -> String {
        let input = self.create_table_input();
        let mut fields = Vec::with_capacity(6);
        if let Some(name) = input.get_table_name() {
            fields.push(("TableName", Json::str(name)));
        }
        if let Some(definitions) = input.get_attribute_definitions() {
            let definitions = definitions.iter().map(attribute_definition).collect();
            fields.push(("AttributeDefinitions", Json::Array(definitions)));
        }
        if let Some(keys) = input.get_key_schema() {
            fields.push(("KeySchema", key_schema(keys)));
        }
        if let Some(billing) = input.get_billing_mode() {
            fields.push(("BillingMode", Json::str(billing.as_str())));
        }
        if let Some(indexes) = input.get_global_secondary_indexes() {
            let indexes = indexes.iter().map(global_secondary_index).collect();
            fields.push(("GlobalSecondaryIndexes", Json::Array(indexes)));
        }
        if let Some(stream) = input.get_stream_specification() {
            fields.push(("StreamSpecification", stream_specification(stream)));
        }
        Json::Object(fields).document()
    }

    /// The `UpdateTimeToLive` input that enables TTL on the layout's TTL
    /// attribute, as a JSON document
    /// (`{"TableName": …, "TimeToLiveSpecification": {"Enabled": true,
    /// "AttributeName": …}}`, pretty-printed, ending with a newline), or
    /// `None` when the layout declares no TTL attribute. For
    /// `aws dynamodb update-time-to-live --cli-input-json file://ttl.json`
    /// once the table is `ACTIVE`; CloudFormation and Terraform take the
    /// same two fields in their table resource.
    ///
    /// ```
    /// use dynamodb_mapper::TableSchema;
    ///
    /// let json = TableSchema::new("pk").ttl("expiresAt").definition("Sessions").update_time_to_live_json();
    /// assert_eq!(json.as_deref(), Some(r#"{
    ///   "TableName": "Sessions",
    ///   "TimeToLiveSpecification": {
    ///     "Enabled": true,
    ///     "AttributeName": "expiresAt"
    ///   }
    /// }
    /// "#));
    /// assert_eq!(TableSchema::new("pk").definition("Sessions").update_time_to_live_json(), None);
    /// ```
    #[must_use]
    pub fn update_time_to_live_json(&self) -> Option<String> {
        let spec = self.time_to_live_specification()?;
        let document = Json::Object(vec![
            ("TableName", Json::str(&self.table_name)),
            ("TimeToLiveSpecification", time_to_live_specification(&spec)),
        ]);
        Some(document.document())
    }
}

fn attribute_definition(definition: &AttributeDefinition) -> Json {
    Json::Object(vec![
        ("AttributeName", Json::str(definition.attribute_name())),
        (
            "AttributeType",
            Json::str(definition.attribute_type().as_str()),
        ),
    ])
}

fn key_schema(keys: &[KeySchemaElement]) -> Json {
    let keys = keys
        .iter()
        .map(|key| {
            Json::Object(vec![
                ("AttributeName", Json::str(key.attribute_name())),
                ("KeyType", Json::str(key.key_type().as_str())),
            ])
        })
        .collect();
    Json::Array(keys)
}

fn global_secondary_index(index: &GlobalSecondaryIndex) -> Json {
    let mut fields = vec![
        ("IndexName", Json::str(index.index_name())),
        ("KeySchema", key_schema(index.key_schema())),
    ];
    if let Some(projection) = index.projection() {
        fields.push(("Projection", self::projection(projection)));
    }
    Json::Object(fields)
}

fn projection(projection: &Projection) -> Json {
    let mut fields = Vec::with_capacity(2);
    if let Some(kind) = projection.projection_type() {
        fields.push(("ProjectionType", Json::str(kind.as_str())));
    }
    if !projection.non_key_attributes().is_empty() {
        let names = projection.non_key_attributes().iter().map(|n| Json::str(n));
        fields.push(("NonKeyAttributes", Json::Array(names.collect())));
    }
    Json::Object(fields)
}

fn stream_specification(stream: &StreamSpecification) -> Json {
    let mut fields = vec![("StreamEnabled", Json::Bool(stream.stream_enabled()))];
    if let Some(view_type) = stream.stream_view_type() {
        fields.push(("StreamViewType", Json::str(view_type.as_str())));
    }
    Json::Object(fields)
}

fn time_to_live_specification(spec: &TimeToLiveSpecification) -> Json {
    Json::Object(vec![
        ("Enabled", Json::Bool(spec.enabled())),
        ("AttributeName", Json::str(spec.attribute_name())),
    ])
}

/// The JSON these documents are made of: no numbers, no nulls.
enum Json {
    Str(String),
    Bool(bool),
    Array(Vec<Json>),
    Object(Vec<(&'static str, Json)>),
}

impl Json {
    fn str(s: &str) -> Json {
        Json::Str(s.to_owned())
    }

    /// The value as a document: pretty-printed with two spaces, ending with
    /// a newline.
    fn document(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        match self {
            Json::Str(s) => write_string(out, s),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
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
fn write_string(out: &mut String, s: &str) {
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
        let doc = Json::Object(vec![
            ("A", Json::Array(vec![])),
            ("B", Json::Object(vec![])),
        ]);
        assert_eq!(doc.document(), "{\n  \"A\": [],\n  \"B\": {}\n}\n");
    }
}
