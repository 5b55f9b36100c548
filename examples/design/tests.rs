//! The committed exports are what the example writes, and each document
//! holds what its tool requires: NoSQL Workbench's model (as its files and
//! import errors show it), the data-modelling tools' `schema.json` (the
//! required fields and values their validator checks), and CloudFormation's
//! `AWS::DynamoDB::Table` resource schema (property names, required
//! properties, key schema shape).

use serde_json::Value;

use super::*;

fn export(file: &str) -> Value {
    let all = exports().expect("the seed's design builds");
    let (_, text) = all.iter().find(|(f, _)| *f == file).expect("exported");
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{file} is not JSON: {e}"))
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn has(v: &Value, fields: &[&str], what: &str) {
    for f in fields {
        assert!(v.get(f).is_some(), "{what} lacks `{f}`: {v}");
    }
}

#[test]
fn the_committed_exports_are_current() {
    for (file, text) in exports().expect("the seed's design builds") {
        let path = committed().join(file);
        let found = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            found == text,
            "{} is stale: run `cargo run --example design` and commit it",
            path.display()
        );
    }
}

#[test]
fn the_review_table_lists_every_pattern() {
    let all = exports().expect("builds");
    let (_, md) = all
        .iter()
        .find(|(f, _)| *f == "AppTable.md")
        .expect("exported");
    for pattern in seed001::ACCESS_PATTERNS {
        assert!(
            md.contains(&format!("| {} |", pattern.name())),
            "{}",
            pattern.name()
        );
    }
    assert!(md.contains(
        "| customer by id | GetItem | table | `pk = CUSTOMER#{customer_id} AND sk = METADATA` | Customer |"
    ));
}

#[test]
fn the_workbench_model_holds_what_workbench_reads() {
    let model = export("AppTable.workbench.json");
    has(
        &model,
        &["ModelName", "ModelMetadata", "DataModel"],
        "the model",
    );
    let meta = &model["ModelMetadata"];
    // Workbench refuses a model without these ("Invalid version").
    assert_eq!(meta["AWSService"], "Amazon DynamoDB");
    assert_eq!(meta["Version"], "3.0");
    let table = &model["DataModel"][0];
    has(
        table,
        &["TableName", "KeyAttributes", "NonKeyAttributes"],
        "the table",
    );
    assert_eq!(
        table["KeyAttributes"]["PartitionKey"]["AttributeName"],
        "pk"
    );
    let declared: Vec<&str> = table["NonKeyAttributes"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|a| {
            has(a, &["AttributeName", "AttributeType"], "an attribute");
            a["AttributeName"].as_str().expect("a name")
        })
        .collect();
    let facets = table["TableFacets"].as_array().expect("facets");
    assert_eq!(facets.len(), 5);
    for facet in facets {
        has(
            facet,
            &[
                "FacetName",
                "KeyAttributeAlias",
                "TableData",
                "NonKeyAttributes",
                "DataAccess",
            ],
            "a facet",
        );
        // Every attribute a facet uses is declared on the table.
        for name in strings(&facet["NonKeyAttributes"]) {
            assert!(
                declared.contains(&name),
                "{name} is not in the table's NonKeyAttributes"
            );
        }
    }
    let order = facets
        .iter()
        .find(|f| f["FacetName"] == "Order")
        .expect("Order");
    assert_eq!(
        order["KeyAttributeAlias"]["SortKeyAlias"],
        "ORDER#{order_id}#{date}"
    );
    for index in table["GlobalSecondaryIndexes"].as_array().expect("GSIs") {
        has(
            index,
            &["IndexName", "KeyAttributes", "Projection"],
            "a GSI",
        );
        assert!(
            ["ALL", "KEYS_ONLY", "INCLUDE"]
                .contains(&index["Projection"]["ProjectionType"].as_str().unwrap_or(""))
        );
    }
}

#[test]
fn the_schema_json_holds_what_the_data_modelling_tools_validate() {
    let doc = export("AppTable.schema.json");
    let table = &doc["tables"][0];
    has(table, &["table_config", "entities"], "the table");
    has(
        &table["table_config"],
        &["table_name", "partition_key"],
        "table_config",
    );
    let gsis: Vec<&str> = table["gsi_list"]
        .as_array()
        .expect("GSIs")
        .iter()
        .map(|g| {
            has(g, &["name", "partition_key"], "a GSI");
            g["name"].as_str().expect("a name")
        })
        .collect();
    let placeholder = |template: &str| -> Vec<String> {
        template
            .split('{')
            .skip(1)
            .filter_map(|rest| rest.split(['}', ':']).next())
            .map(str::to_owned)
            .collect()
    };
    let mut ids = Vec::new();
    let entities = table["entities"]
        .as_object()
        .expect("an object keyed by name");
    assert_eq!(entities.len(), 5);
    for (name, entity) in entities {
        has(entity, &["entity_type", "pk_template", "fields"], name);
        let fields: Vec<&str> = entity["fields"]
            .as_array()
            .expect("fields")
            .iter()
            .map(|f| {
                has(f, &["name", "type", "required"], "a field");
                let kind = f["type"].as_str().unwrap_or("");
                assert!(
                    [
                        "string", "integer", "decimal", "boolean", "array", "object", "uuid"
                    ]
                    .contains(&kind),
                    "{kind}"
                );
                f["name"].as_str().expect("a name")
            })
            .collect();
        // Every template placeholder names a field, but for the sort keys'
        // `{date}`, which the seed's hooks compute (the first ten
        // characters of `created_at`): the tools' validator would refuse it.
        let mut templates = vec![entity["pk_template"].as_str().unwrap_or("").to_owned()];
        templates.extend(entity["sk_template"].as_str().map(str::to_owned));
        for mapping in entity["gsi_mappings"].as_array().into_iter().flatten() {
            has(mapping, &["name", "pk_template"], "a GSI mapping");
            assert!(gsis.contains(&mapping["name"].as_str().unwrap_or("")));
            templates.push(mapping["pk_template"].as_str().unwrap_or("").to_owned());
            templates.extend(mapping["sk_template"].as_str().map(str::to_owned));
        }
        for t in &templates {
            for p in placeholder(t) {
                let computed = p == "date" && ["Order", "ProductReview"].contains(&name.as_str());
                assert!(
                    computed || fields.contains(&p.as_str()),
                    "{name}: `{{{p}}}` in {t} is not a field"
                );
            }
        }
        for pattern in entity["access_patterns"].as_array().expect("patterns") {
            has(
                pattern,
                &[
                    "pattern_id",
                    "name",
                    "description",
                    "operation",
                    "return_type",
                    "parameters",
                ],
                "a pattern",
            );
            ids.push(pattern["pattern_id"].as_u64().expect("a number"));
            assert!(["GetItem", "Query"].contains(&pattern["operation"].as_str().unwrap_or("")));
            assert!(
                ["single_entity", "entity_list", "mixed_data"]
                    .contains(&pattern["return_type"].as_str().unwrap_or(""))
            );
            if let Some(index) = pattern["index_name"].as_str() {
                assert!(gsis.contains(&index), "{index}");
            }
            for p in pattern["parameters"].as_array().expect("parameters") {
                has(p, &["name", "type"], "a parameter");
            }
        }
    }
    ids.sort_unstable();
    assert_eq!(
        ids,
        (1..=15).collect::<Vec<u64>>(),
        "one id per pattern, unique"
    );
}

#[test]
fn the_cloudformation_template_fits_the_table_resource_schema() {
    let template = export("AppTable.cloudformation.json");
    let resource = &template["Resources"]["AppTable"];
    assert_eq!(resource["Type"], "AWS::DynamoDB::Table");
    let properties = resource["Properties"].as_object().expect("properties");
    // The resource schema allows no other property names than its own.
    const ALLOWED: &[&str] = &[
        "TableName",
        "AttributeDefinitions",
        "KeySchema",
        "BillingMode",
        "GlobalSecondaryIndexes",
        "LocalSecondaryIndexes",
        "StreamSpecification",
        "TimeToLiveSpecification",
        "ProvisionedThroughput",
        "OnDemandThroughput",
        "WarmThroughput",
        "Tags",
        "TableClass",
        "SSESpecification",
        "PointInTimeRecoverySpecification",
        "DeletionProtectionEnabled",
        "ContributorInsightsSpecification",
        "KinesisStreamSpecification",
        "ImportSourceSpecification",
        "ResourcePolicy",
    ];
    for name in properties.keys() {
        assert!(ALLOWED.contains(&name.as_str()), "{name}");
    }
    let key_schema = |keys: &Value| -> Vec<String> {
        let keys = keys.as_array().expect("a key schema");
        assert!(!keys.is_empty());
        assert_eq!(keys[0]["KeyType"], "HASH", "HASH first");
        keys.iter()
            .map(|k| k["AttributeName"].as_str().expect("a name").to_owned())
            .collect()
    };
    let mut used = key_schema(&properties["KeySchema"]);
    assert!(used.len() <= 2);
    for index in properties["GlobalSecondaryIndexes"]
        .as_array()
        .expect("GSIs")
    {
        has(index, &["IndexName", "KeySchema", "Projection"], "a GSI");
        used.extend(key_schema(&index["KeySchema"]));
    }
    // Exactly the key attributes are defined.
    let mut defined: Vec<String> = properties["AttributeDefinitions"]
        .as_array()
        .expect("definitions")
        .iter()
        .map(|d| {
            assert!(["S", "N", "B"].contains(&d["AttributeType"].as_str().unwrap_or("")));
            d["AttributeName"].as_str().expect("a name").to_owned()
        })
        .collect();
    used.sort();
    used.dedup();
    defined.sort();
    assert_eq!(defined, used);
    assert_eq!(properties["BillingMode"], "PAY_PER_REQUEST");
    assert_eq!(properties["TimeToLiveSpecification"]["Enabled"], true);
    assert_eq!(
        properties["TimeToLiveSpecification"]["AttributeName"],
        "ttl"
    );
}

#[test]
fn the_terraform_resource_declares_the_keys_and_indexes() {
    let all = exports().expect("builds");
    let (_, tf) = all
        .iter()
        .find(|(f, _)| *f == "AppTable.tf")
        .expect("exported");
    assert!(tf.starts_with("resource \"aws_dynamodb_table\" \"AppTable\" {\n"));
    for line in [
        "  hash_key     = \"pk\"",
        "  range_key    = \"sk\"",
        "    name            = \"GSI3\"",
        "    attribute_name = \"ttl\"",
    ] {
        assert!(tf.contains(line), "{line:?} not in\n{tf}");
    }
    assert_eq!(tf.matches("global_secondary_index {").count(), 3);
    assert_eq!(tf.matches('{').count(), tf.matches('}').count());
}
