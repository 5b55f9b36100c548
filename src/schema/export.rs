//! A [`TableDefinition`] as the JSON documents infrastructure tools take:
//! the `CreateTable` input and the `UpdateTimeToLive` input, in the shape of
//! DynamoDB's API (what `aws dynamodb create-table --cli-input-json` reads).
//!
//! The documents are rendered from the same SDK input the fluent builders
//! send (`definition.rs`), by a writer small enough to check by reading: the
//! values are strings and booleans only, and every string is escaped as
//! JSON requires.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, GlobalSecondaryIndex, KeySchemaElement, Projection, StreamSpecification,
    TimeToLiveSpecification,
};

use std::fmt::Write as _;

use super::TableDefinition;
use super::json::{Json, write_string};

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
        Json::obj(self.table_fields(false)).document()
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
        let document = Json::obj(vec![
            ("TableName", Json::str(&self.table_name)),
            ("TimeToLiveSpecification", time_to_live_specification(&spec)),
        ]);
        Some(document.document())
    }
}

impl TableDefinition {
    /// The table's fields as `CreateTable` takes them, or, for
    /// CloudFormation, as its table resource does (a stream as its view
    /// type only, and the TTL setting).
    fn table_fields(&self, cloudformation: bool) -> Vec<(&'static str, Json)> {
        let input = self.create_table_input();
        let mut fields = Vec::with_capacity(8);
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
        match input.get_stream_specification() {
            Some(stream) if !cloudformation => {
                fields.push(("StreamSpecification", stream_specification(stream)));
            }
            Some(stream) => {
                if let Some(view) = stream.stream_view_type() {
                    let spec = Json::obj(vec![("StreamViewType", Json::str(view.as_str()))]);
                    fields.push(("StreamSpecification", spec));
                }
            }
            None => {}
        }
        if let Some(spec) = self.time_to_live_specification().filter(|_| cloudformation) {
            fields.push(("TimeToLiveSpecification", time_to_live_specification(&spec)));
        }
        fields
    }

    /// The table as a CloudFormation template of one `AWS::DynamoDB::Table`
    /// resource, named `logical_id`: the [`create_table_json`](Self::create_table_json)
    /// fields as its properties (a stream as `StreamViewType` only), and the
    /// TTL setting (`TimeToLiveSpecification`) when the layout has one.
    pub(crate) fn cloudformation_json(&self, logical_id: &str, description: &str) -> String {
        let properties = self.table_fields(true);
        let resource = Json::obj(vec![
            ("Type", Json::str("AWS::DynamoDB::Table")),
            ("Properties", Json::obj(properties)),
        ]);
        Json::obj(vec![
            ("AWSTemplateFormatVersion", Json::str("2010-09-09")),
            ("Description", Json::str(description)),
            (
                "Resources",
                Json::Object(vec![(logical_id.to_owned(), resource)]),
            ),
        ])
        .document()
    }

    /// The table as a Terraform `aws_dynamodb_table` resource named
    /// `resource_name`: keys, attributes, indexes (a single-attribute key
    /// as `hash_key`/`range_key`, a multi-attribute key as `key_schema`
    /// blocks), billing mode, TTL and stream.
    pub(crate) fn terraform(&self, resource_name: &str) -> String {
        let input = self.create_table_input();
        let quote = |s: &str| {
            let mut out = String::new();
            write_hcl_string(&mut out, s);
            out
        };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "resource \"aws_dynamodb_table\" {} {{",
            quote(resource_name)
        );
        let _ = writeln!(out, "  name         = {}", quote(&self.table_name));
        if let Some(billing) = input.get_billing_mode() {
            let _ = writeln!(out, "  billing_mode = {}", quote(billing.as_str()));
        }
        for key in input.get_key_schema().iter().flatten() {
            let field = if key.key_type().as_str() == "HASH" {
                "hash_key "
            } else {
                "range_key"
            };
            let _ = writeln!(out, "  {field}    = {}", quote(key.attribute_name()));
        }
        for definition in input.get_attribute_definitions().iter().flatten() {
            let _ = write!(
                out,
                "\n  attribute {{\n    name = {}\n    type = {}\n  }}\n",
                quote(definition.attribute_name()),
                quote(definition.attribute_type().as_str())
            );
        }
        for index in input.get_global_secondary_indexes().iter().flatten() {
            let _ = write!(
                out,
                "\n  global_secondary_index {{\n    name            = {}\n",
                quote(index.index_name())
            );
            let keys = index.key_schema();
            let single = keys
                .iter()
                .filter(|k| k.key_type().as_str() == "HASH")
                .count()
                <= 1
                && keys
                    .iter()
                    .filter(|k| k.key_type().as_str() == "RANGE")
                    .count()
                    <= 1;
            for key in keys {
                if single {
                    let field = if key.key_type().as_str() == "HASH" {
                        "hash_key "
                    } else {
                        "range_key"
                    };
                    let _ = writeln!(out, "    {field}       = {}", quote(key.attribute_name()));
                } else {
                    let _ = write!(
                        out,
                        "    key_schema {{\n      attribute_name = {}\n      key_type       = {}\n    }}\n",
                        quote(key.attribute_name()),
                        quote(key.key_type().as_str())
                    );
                }
            }
            if let Some(projection) = index.projection() {
                if let Some(kind) = projection.projection_type() {
                    let _ = writeln!(out, "    projection_type = {}", quote(kind.as_str()));
                }
                if !projection.non_key_attributes().is_empty() {
                    let names: Vec<String> = projection
                        .non_key_attributes()
                        .iter()
                        .map(|n| quote(n))
                        .collect();
                    let _ = writeln!(out, "    non_key_attributes = [{}]", names.join(", "));
                }
            }
            out.push_str("  }\n");
        }
        if let Some(spec) = self.time_to_live_specification() {
            let _ = write!(
                out,
                "\n  ttl {{\n    attribute_name = {}\n    enabled        = true\n  }}\n",
                quote(spec.attribute_name())
            );
        }
        if let Some(view) = input
            .get_stream_specification()
            .as_ref()
            .and_then(|s| s.stream_view_type())
        {
            let _ = write!(
                out,
                "\n  stream_enabled   = true\n  stream_view_type = {}\n",
                quote(view.as_str())
            );
        }
        out.push_str("}\n");
        out
    }
}

/// `s` as an HCL string: as a JSON string (HCL escapes the same way), with
/// the template sequences `${` and `%{` escaped as `$${` and `%%{`.
fn write_hcl_string(out: &mut String, s: &str) {
    write_string(out, &s.replace("${", "$${").replace("%{", "%%{"));
}

fn attribute_definition(definition: &AttributeDefinition) -> Json {
    Json::obj(vec![
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
            Json::obj(vec![
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
    Json::obj(fields)
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
    Json::obj(fields)
}

fn stream_specification(stream: &StreamSpecification) -> Json {
    let mut fields = vec![("StreamEnabled", Json::Bool(stream.stream_enabled()))];
    if let Some(view_type) = stream.stream_view_type() {
        fields.push(("StreamViewType", Json::str(view_type.as_str())));
    }
    Json::obj(fields)
}

fn time_to_live_specification(spec: &TimeToLiveSpecification) -> Json {
    Json::obj(vec![
        ("Enabled", Json::Bool(spec.enabled())),
        ("AttributeName", Json::str(spec.attribute_name())),
    ])
}
