//! The layout as the SDK's `CreateTable` request: keys and their attribute
//! definitions, on-demand billing, every index projecting all attributes.

use aws_sdk_dynamodb::client::Client;
use aws_sdk_dynamodb::operation::create_table::builders::CreateTableFluentBuilder;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex as SdkGsi, KeySchemaElement, KeyType,
    Projection, ProjectionType,
};

use super::{KeyAttribute, TableSchema};

impl TableSchema {
    /// A `CreateTable` request for this layout, on-demand billing, every index
    /// projecting all attributes. Add anything else with the SDK's builder.
    ///
    /// ```
    /// use dynamodb_mapper::{GlobalSecondaryIndex, TableSchema};
    /// # let client = dynamodb_mapper::doc_support::client();
    ///
    /// const T: TableSchema = TableSchema::new("pk").sort_key("sk")
    ///     .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);
    /// let request = T.create_table(&client, "AppTable");
    /// let input = request.as_input();
    /// assert_eq!(input.get_table_name().as_deref(), Some("AppTable"));
    /// assert_eq!(input.get_attribute_definitions().as_ref().unwrap().len(), 4);
    /// assert_eq!(input.get_global_secondary_indexes().as_ref().unwrap().len(), 1);
    /// // request.send().await?;
    /// ```
    #[must_use]
    // The SDK's builders return `Result` for required fields; every required
    // field is set unconditionally here, so `build` cannot fail.
    #[allow(clippy::expect_used)]
    pub fn create_table(&self, client: &Client, table_name: &str) -> CreateTableFluentBuilder {
        let mut request = client
            .create_table()
            .table_name(table_name)
            .billing_mode(BillingMode::PayPerRequest)
            .set_key_schema(Some(key_schema(self.partition_key, self.sort_key)));
        for attr in self.key_attributes() {
            request = request.attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(attr.name)
                    .attribute_type(attr.scalar_type.sdk())
                    .build()
                    .expect("attribute definition: both required fields are set"), // ok: name and type always set
            );
        }
        for index in self.indexes {
            request = request.global_secondary_indexes(
                SdkGsi::builder()
                    .index_name(index.name)
                    .set_key_schema(Some(key_schema(index.partition_key, index.sort_key)))
                    .projection(
                        Projection::builder()
                            .projection_type(ProjectionType::All)
                            .build(),
                    )
                    .build()
                    .expect("gsi: name and key schema are set"), // ok: required fields always set
            );
        }
        request
    }
}

#[allow(clippy::expect_used)] // required fields always set, see `create_table`
fn key_schema(pk: KeyAttribute, sk: Option<KeyAttribute>) -> Vec<KeySchemaElement> {
    std::iter::once((pk, KeyType::Hash))
        .chain(sk.map(|k| (k, KeyType::Range)))
        .map(|(attr, key_type)| {
            KeySchemaElement::builder()
                .attribute_name(attr.name)
                .key_type(key_type)
                .build()
                .expect("key schema element: both required fields are set") // ok: always set
        })
        .collect()
}
