//! A registry's design as the documents other tools read
//! ([`Registry::export`]): a Markdown table of the access patterns for
//! design reviews, a NoSQL Workbench data model, the data-model
//! `schema.json` of AWS's DynamoDB data-modelling tools, and the table as a
//! CloudFormation or Terraform resource. Written from the registry's
//! entries, key patterns and proven access patterns, and from the table
//! layout's own `CreateTable` input (`schema/export.rs`).

use std::fmt::Write as _;

use crate::key::{Encoding, IndexKeys, KeyPattern};
use crate::probe::Shape;
use crate::schema::json::Json;
use crate::schema::{GlobalSecondaryIndex, IndexProjection, KeyAttribute};

use super::access::{Proven, SortPlan};
use super::dispatch::Registry;
use super::entry::FieldInfo;

/// The documents [`Registry::export`] writes.
///
/// ```
/// use dynamodb_mapper::DesignExport;
/// assert_ne!(DesignExport::Markdown, DesignExport::Terraform);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DesignExport {
    /// The access patterns as a Markdown table (pattern, request, index,
    /// key condition, entity types), then each entity type's key patterns:
    /// for design reviews.
    Markdown,
    /// A NoSQL Workbench data model (format version 3.0) to import: the
    /// table, its key attributes and GSIs (single-attribute keys: the
    /// format has no multi-attribute ones), and a facet per entity type
    /// whose key aliases are its table key patterns.
    NoSqlWorkbench,
    /// The `schema.json` of AWS's DynamoDB data-modelling tools: the table,
    /// its GSIs, and per entity type its key templates (this crate's own
    /// `PREFIX#{field}` syntax), GSI mappings, fields and access patterns.
    DataModel,
    /// A CloudFormation template with the table as an
    /// `AWS::DynamoDB::Table` resource (keys, GSIs, billing mode, TTL).
    CloudFormation,
    /// The table as a Terraform `aws_dynamodb_table` resource.
    Terraform,
}

impl<T> Registry<T> {
    /// The design of this registry's table (named `table_name`) as the
    /// document `format` (see [`DesignExport`]). The access patterns are
    /// the ones the registry proved when it was built.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::{AccessPattern, DesignExport};
    ///
    /// const ORDERS: AccessPattern = AccessPattern::new("orders of a customer", &["Order"]).by(&["customer"]);
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .access_pattern(ORDERS)
    ///     .build()?;
    /// let review = registry.export(DesignExport::Markdown, "AppTable");
    /// assert!(review.contains(
    ///     "| orders of a customer | Query | table | `pk = CUSTOMER#{customer} AND begins_with(sk, ORDER#)` | Order |"
    /// ));
    /// let terraform = registry.export(DesignExport::Terraform, "AppTable");
    /// assert!(terraform.starts_with("resource \"aws_dynamodb_table\" \"AppTable\" {\n"));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn export(&self, format: DesignExport, table_name: &str) -> String {
        let inner = &*self.inner;
        let definition = inner.table.definition(table_name);
        match format {
            DesignExport::Markdown => self.markdown(table_name),
            DesignExport::NoSqlWorkbench => self.workbench(table_name),
            DesignExport::DataModel => self.data_model(table_name),
            DesignExport::CloudFormation => definition.cloudformation_json(
                &logical_id(table_name),
                &format!("The DynamoDB table {table_name}, as its registry declares it"),
            ),
            DesignExport::Terraform => definition.terraform(&terraform_name(table_name)),
        }
    }

    fn markdown(&self, table_name: &str) -> String {
        let inner = &*self.inner;
        let mut out = format!("# {table_name}: access patterns\n\n");
        if inner.patterns.is_empty() {
            out.push_str("No access pattern is declared.\n");
        } else {
            out.push_str(
                "| access pattern | request | index | key condition | entity types |\n\
                 |---|---|---|---|---|\n",
            );
            for p in &inner.patterns {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} |",
                    cell(p.pattern.name()),
                    if p.get { "GetItem" } else { "Query" },
                    cell(p.pattern.index_name().unwrap_or("table")),
                    code(&p.describe_query()),
                    cell(&p.pattern.entity_types().join(", ")),
                );
            }
            let unproven: Vec<&Proven> = inner
                .patterns
                .iter()
                .filter(|p| !p.unproven.is_empty())
                .collect();
            if !unproven.is_empty() {
                out.push_str(
                    "\nNot ruled out by the proof (these types declare no key patterns for the \
                     index; the self-test runs the pattern instead):\n\n",
                );
                for p in unproven {
                    let _ = writeln!(
                        out,
                        "- {}: {}",
                        cell(p.pattern.name()),
                        p.unproven.join(", ")
                    );
                }
            }
        }
        out.push_str("\n## Entity types\n\n| entity type | index | partition key | sort key |\n|---|---|---|---|\n");
        for entry in &inner.entries {
            for keys in entry
                .key_patterns
                .iter()
                .filter(|k| k.part_attribute().is_none())
            {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    cell(entry.entity_type),
                    cell(keys.index_name().unwrap_or("table")),
                    code(keys.partition_key().template()),
                    keys.sort_key()
                        .map_or_else(String::new, |s| code(s.template())),
                );
            }
        }
        out
    }

    fn workbench(&self, table_name: &str) -> String {
        let inner = &*self.inner;
        let table = &inner.table;
        let key_attributes = |pk: KeyAttribute, sk: Option<KeyAttribute>| {
            let mut keys = vec![(
                "PartitionKey",
                attribute(pk.name, pk.scalar_type.sdk().as_str()),
            )];
            if let Some(sk) = sk {
                keys.push(("SortKey", attribute(sk.name, sk.scalar_type.sdk().as_str())));
            }
            Json::obj(keys)
        };
        // Every attribute an item can hold that is not a table key.
        let is_table_key = |name: &str| {
            name == table.partition_key.name || table.sort_key.is_some_and(|k| k.name == name)
        };
        let mut non_key: Vec<(String, String)> = Vec::new();
        let mut add = |name: &str, kind: &str| {
            if !is_table_key(name) && !non_key.iter().any(|(n, _)| n == name) {
                non_key.push((name.to_owned(), kind.to_owned()));
            }
        };
        for index in table.indexes {
            for key in index.key_attributes() {
                add(key.name, key.scalar_type.sdk().as_str());
            }
        }
        add(inner.attribute, "S");
        if let Some(ttl) = table.ttl {
            add(ttl, "N");
        }
        if let Some(version) = table.version {
            add(version, "N");
        }
        let mut facets = Vec::new();
        for entry in &inner.entries {
            let fields = (entry.fields)();
            for f in &fields {
                add(&f.stored, workbench_type(f.shape));
            }
            let Some(keys) = entry
                .key_patterns
                .iter()
                .find(|k| k.index_name().is_none() && k.part_attribute().is_none())
            else {
                continue;
            };
            let mut alias = vec![(
                "PartitionKeyAlias",
                Json::str(keys.partition_key().template()),
            )];
            if let Some(sort) = keys.sort_key() {
                alias.push(("SortKeyAlias", Json::str(sort.template())));
            }
            let mut names: Vec<Json> = vec![Json::str(inner.attribute)];
            names.extend(
                fields
                    .iter()
                    .filter(|f| !is_table_key(&f.stored))
                    .map(|f| Json::str(&f.stored)),
            );
            facets.push(Json::obj(vec![
                ("FacetName", Json::str(entry.entity_type)),
                ("KeyAttributeAlias", Json::obj(alias)),
                ("TableData", Json::Array(Vec::new())),
                ("NonKeyAttributes", Json::Array(names)),
                (
                    "DataAccess",
                    Json::obj(vec![("MySql", Json::obj(Vec::new()))]),
                ),
            ]));
        }
        let indexes: Vec<Json> = table
            .indexes
            .iter()
            .filter_map(|index| {
                let (pk, sk) = index.single_keys()?;
                Some(Json::obj(vec![
                    ("IndexName", Json::str(index.name)),
                    ("KeyAttributes", key_attributes(pk, sk)),
                    ("Projection", projection(index)),
                ]))
            })
            .collect();
        let skipped: Vec<&str> = table
            .indexes
            .iter()
            .filter(|i| i.is_multi_attribute())
            .map(|i| i.name)
            .collect();
        let mut description = format!(
            "{} entity types and {} access patterns, exported by dynamodb-mapper.",
            inner.entries.len(),
            inner.patterns.len()
        );
        if !skipped.is_empty() {
            let _ = write!(
                description,
                " Left out (multi-attribute keys, which the format cannot hold): {}.",
                skipped.join(", ")
            );
        }
        let mut model = vec![
            ("TableName", Json::str(table_name)),
            (
                "KeyAttributes",
                key_attributes(table.partition_key, table.sort_key),
            ),
            (
                "NonKeyAttributes",
                Json::Array(non_key.iter().map(|(n, k)| attribute(n, k)).collect()),
            ),
            ("TableFacets", Json::Array(facets)),
        ];
        if !indexes.is_empty() {
            model.push(("GlobalSecondaryIndexes", Json::Array(indexes)));
        }
        model.push((
            "DataAccess",
            Json::obj(vec![("MySql", Json::obj(Vec::new()))]),
        ));
        model.push(("BillingMode", Json::str("PAY_PER_REQUEST")));
        Json::obj(vec![
            ("ModelName", Json::str(table_name)),
            (
                "ModelMetadata",
                Json::obj(vec![
                    ("Author", Json::str("dynamodb-mapper")),
                    ("DateCreated", Json::str("")),
                    ("DateLastModified", Json::str("")),
                    ("Description", Json::Str(description)),
                    ("AWSService", Json::str("Amazon DynamoDB")),
                    ("Version", Json::str("3.0")),
                ]),
            ),
            ("DataModel", Json::Array(vec![Json::obj(model)])),
        ])
        .document()
    }

    fn data_model(&self, table_name: &str) -> String {
        let inner = &*self.inner;
        let table = &inner.table;
        let mut config = vec![
            ("table_name", Json::str(table_name)),
            ("partition_key", Json::str(table.partition_key.name)),
        ];
        if let Some(sk) = table.sort_key {
            config.push(("sort_key", Json::str(sk.name)));
        }
        let names = |keys: &[KeyAttribute]| match keys {
            [one] => Json::str(one.name),
            more => Json::Array(more.iter().map(|k| Json::str(k.name)).collect()),
        };
        let gsis: Vec<Json> = table
            .indexes
            .iter()
            .map(|index| {
                let mut gsi = vec![
                    ("name", Json::str(index.name)),
                    ("partition_key", names(index.partition_keys())),
                ];
                if !index.sort_keys().is_empty() {
                    gsi.push(("sort_key", names(index.sort_keys())));
                }
                match index.projection {
                    IndexProjection::All => gsi.push(("projection", Json::str("ALL"))),
                    IndexProjection::KeysOnly => gsi.push(("projection", Json::str("KEYS_ONLY"))),
                    IndexProjection::Include(attributes) => {
                        gsi.push(("projection", Json::str("INCLUDE")));
                        let list = attributes.iter().map(|a| Json::str(a)).collect();
                        gsi.push(("included_attributes", Json::Array(list)));
                    }
                }
                Json::obj(gsi)
            })
            .collect();
        let mut entities = Vec::new();
        let mut next_id = 1u64;
        for (i, entry) in inner.entries.iter().enumerate() {
            let mut entity = vec![("entity_type", Json::str(entry.entity_type))];
            let whole = |k: &&IndexKeys| k.part_attribute().is_none();
            if let Some(keys) = entry
                .key_patterns
                .iter()
                .filter(whole)
                .find(|k| k.index_name().is_none())
            {
                entity.push(("pk_template", Json::Str(plain(keys.partition_key()))));
                if let Some(sort) = keys.sort_key() {
                    entity.push(("sk_template", Json::Str(plain(sort))));
                }
            }
            // One mapping per index: the first declaration (the format
            // has one per index).
            let mut mappings: Vec<Json> = Vec::new();
            let mut mapped: Vec<&str> = Vec::new();
            for keys in entry.key_patterns.iter().filter(whole) {
                let Some(index) = keys.index_name() else {
                    continue;
                };
                if mapped.contains(&index) {
                    continue;
                }
                mapped.push(index);
                let mut mapping = vec![
                    ("name", Json::str(index)),
                    ("pk_template", Json::Str(plain(keys.partition_key()))),
                ];
                if let Some(sort) = keys.sort_key() {
                    mapping.push(("sk_template", Json::Str(plain(sort))));
                }
                mappings.push(Json::obj(mapping));
            }
            if !mappings.is_empty() {
                entity.push(("gsi_mappings", Json::Array(mappings)));
            }
            let fields = (entry.fields)();
            entity.push((
                "fields",
                Json::Array(fields.iter().map(data_model_field).collect()),
            ));
            let patterns: Vec<Json> = inner
                .patterns
                .iter()
                .filter(|p| p.members.first() == Some(&i))
                .map(|p| {
                    let id = next_id;
                    next_id += 1;
                    data_model_pattern(p, id)
                })
                .collect();
            entity.push(("access_patterns", Json::Array(patterns)));
            entities.push((entry.entity_type.to_owned(), Json::obj(entity)));
        }
        let mut table_json = vec![("table_config", Json::obj(config))];
        if !gsis.is_empty() {
            table_json.push(("gsi_list", Json::Array(gsis)));
        }
        table_json.push(("entities", Json::Object(entities)));
        Json::obj(vec![("tables", Json::Array(vec![Json::obj(table_json)]))]).document()
    }
}

/// A key pattern's template without its placeholders' encodings
/// (`{line:u3}` as `{line}`): the data-modelling tools take names only.
fn plain(pattern: KeyPattern) -> String {
    let mut out = String::with_capacity(pattern.template().len());
    let mut skipping = false;
    for c in pattern.template().chars() {
        match c {
            ':' if !skipping && out.rfind('{') > out.rfind('}') => skipping = true,
            '}' => {
                skipping = false;
                out.push(c);
            }
            _ if skipping => {}
            _ => out.push(c),
        }
    }
    out
}

/// `text` in a Markdown table cell: `|` escaped, on one line.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// `text` as code in a Markdown table cell: in a code span long enough
/// for the backticks it holds.
fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if longest > 0 { " " } else { "" };
    format!("{fence}{pad}{}{pad}{fence}", cell(text))
}

fn attribute(name: &str, kind: &str) -> Json {
    Json::obj(vec![
        ("AttributeName", Json::str(name)),
        ("AttributeType", Json::str(kind)),
    ])
}

fn projection(index: &GlobalSecondaryIndex) -> Json {
    match index.projection {
        IndexProjection::All => Json::obj(vec![("ProjectionType", Json::str("ALL"))]),
        IndexProjection::KeysOnly => Json::obj(vec![("ProjectionType", Json::str("KEYS_ONLY"))]),
        IndexProjection::Include(names) => Json::obj(vec![
            ("ProjectionType", Json::str("INCLUDE")),
            (
                "NonKeyAttributes",
                Json::Array(names.iter().map(|n| Json::str(n)).collect()),
            ),
        ]),
    }
}

/// The DynamoDB type a field is stored as, for NoSQL Workbench.
fn workbench_type(shape: Shape) -> &'static str {
    match shape {
        Shape::Unsigned | Shape::Signed | Shape::Float => "N",
        Shape::Bool => "BOOL",
        Shape::Bytes => "B",
        Shape::Compound | Shape::DataEnum => "M",
        Shape::Unit => "NULL",
        Shape::Text | Shape::UnitEnum | Shape::Any | Shape::Unknown => "S",
    }
}

fn data_model_type(shape: Shape) -> &'static str {
    match shape {
        Shape::Unsigned | Shape::Signed => "integer",
        Shape::Float => "decimal",
        Shape::Bool => "boolean",
        Shape::Compound | Shape::DataEnum => "object",
        Shape::Text
        | Shape::UnitEnum
        | Shape::Bytes
        | Shape::Unit
        | Shape::Any
        | Shape::Unknown => "string",
    }
}

fn data_model_field(f: &FieldInfo) -> Json {
    Json::obj(vec![
        ("name", Json::str(f.name)),
        ("type", Json::str(data_model_type(f.shape))),
        ("required", Json::Bool(!f.optional)),
    ])
}

fn data_model_pattern(p: &Proven, id: u64) -> Json {
    let pattern = &p.pattern;
    let mut out = vec![
        ("pattern_id", Json::Num(id)),
        ("name", Json::str(pattern.name())),
        ("description", Json::Str(p.describe_query())),
        (
            "operation",
            Json::str(if p.get { "GetItem" } else { "Query" }),
        ),
    ];
    if let Some(index) = pattern.index_name() {
        out.push(("index_name", Json::str(index)));
    }
    // A range the caller gives is `between` two parameters after the
    // partition key's; a prefix the pattern fixes is no range condition of
    // the format's (its parameters are the caller's). The format has no
    // range on a constant partition key (`ORDER`): the description keeps it.
    let ranged = matches!(p.sort, SortPlan::Prefix(_))
        && pattern.sort_placeholder().is_some()
        && p.partition.placeholders().is_ok_and(|l| !l.is_empty());
    if ranged {
        out.push(("range_condition", Json::str("between")));
    }
    // Each parameter typed by the placeholder it fills.
    let encoding_of = |name: &str| -> Option<Encoding> {
        let patterns: Vec<KeyPattern> = p
            .keys
            .iter()
            .flat_map(|(_, k)| std::iter::once(k.partition_key()).chain(k.sort_key()))
            .collect();
        patterns.iter().find_map(|pattern| {
            pattern
                .placeholders()
                .ok()?
                .into_iter()
                .find(|(n, _)| *n == name)
                .map(|(_, e)| e)
        })
    };
    let parameter = |name: &str, of: &str| {
        let kind = match encoding_of(of) {
            Some(Encoding::Unsigned { .. } | Encoding::Signed { .. }) => "integer",
            _ => "string",
        };
        Json::obj(vec![("name", Json::str(name)), ("type", Json::str(kind))])
    };
    let mut parameters: Vec<Json> = pattern
        .placeholders()
        .iter()
        .map(|name| parameter(name, name))
        .collect();
    if let Some(r) = pattern.sort_placeholder().filter(|_| ranged) {
        parameters.push(parameter(&format!("{r}_from"), r));
        parameters.push(parameter(&format!("{r}_to"), r));
    }
    out.push(("parameters", Json::Array(parameters)));
    let returns = if p.get {
        "single_entity"
    } else if p.members.len() > 1 {
        "mixed_data"
    } else {
        "entity_list"
    };
    out.push(("return_type", Json::str(returns)));
    Json::obj(out)
}

/// A CloudFormation logical id: the table name's letters and digits
/// (`Table` when it has none).
fn logical_id(table_name: &str) -> String {
    let id: String = table_name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    if id.is_empty() {
        "Table".to_owned()
    } else {
        id
    }
}

/// A Terraform resource name: letters, digits, `_` and `-`, not starting
/// with a digit or `-`.
fn terraform_name(table_name: &str) -> String {
    let name: String = table_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    match name.chars().next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => name,
        _ => format!("table_{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fit_their_tools() {
        assert_eq!(logical_id("app-table.v2"), "apptablev2");
        assert_eq!(logical_id("--"), "Table");
        assert_eq!(terraform_name("app.table"), "app_table");
        assert_eq!(terraform_name("1st"), "table_1st");
        assert_eq!(cell("a|b\nc"), "a\\|b c");
        assert_eq!(code("A#{x}"), "`A#{x}`");
        assert_eq!(code("a`b"), "`` a`b ``");
        assert_eq!(plain(KeyPattern::sort("A#{line:u3}#{b}")), "A#{line}#{b}");
    }

    #[test]
    fn field_types_follow_the_shapes() {
        assert_eq!(workbench_type(Shape::Unsigned), "N");
        assert_eq!(workbench_type(Shape::UnitEnum), "S");
        assert_eq!(data_model_type(Shape::Float), "decimal");
        assert_eq!(data_model_type(Shape::Compound), "object");
    }
}
