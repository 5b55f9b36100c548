//! The layout as the SDK's requests: `CreateTable` (keys, indexes, billing,
//! an optional stream) and `UpdateTimeToLive`, which enables the TTL
//! attribute (`CreateTable` cannot carry it).
//!
//! One set of functions builds every part of the request, used by the
//! fluent builders here and by the JSON documents of `export.rs`, so the
//! request sent and the document exported cannot disagree.
//!
//! The SDK's builders return `Result` when a required field is missing;
//! every required field is set unconditionally here, so the `expect`s below
//! cannot fire whatever the layout holds.

use aws_sdk_dynamodb::client::Client;
use aws_sdk_dynamodb::operation::create_table::builders::{
    CreateTableFluentBuilder, CreateTableInputBuilder,
};
use aws_sdk_dynamodb::operation::update_time_to_live::builders::UpdateTimeToLiveFluentBuilder;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex as SdkGsi, KeySchemaElement, KeyType,
    Projection, ProjectionType, StreamSpecification, StreamViewType, TimeToLiveSpecification,
};

use super::{IndexProjection, KeyAttribute, TableSchema};

/// A [`TableSchema`] as one named table of DynamoDB: the `CreateTable` and
/// `UpdateTimeToLive` requests that make it, as the SDK's fluent builders
/// (to send yourself) or as JSON documents for infrastructure tools
/// ([`create_table_json`](Self::create_table_json),
/// [`update_time_to_live_json`](Self::update_time_to_live_json)).
///
/// The table is billed on demand, every global secondary index projects all
/// attributes, and a stream is enabled only when asked
/// ([`stream`](Self::stream)). `CreateTable` cannot enable TTL: when the
/// layout declares a TTL attribute, that takes the second request,
/// `UpdateTimeToLive`, sent once the table is `ACTIVE`.
/// [`Table::create_table`](crate::ops::Table::create_table) sends both and
/// waits in between.
///
/// ```
/// use aws_sdk_dynamodb::types::StreamViewType;
/// use dynamodb_mapper::TableSchema;
/// # let client = dynamodb_mapper_support::doc::client();
///
/// const T: TableSchema = TableSchema::new("pk").sort_key("sk").ttl("expiresAt");
/// let definition = T.definition("AppTable").stream(StreamViewType::NewAndOldImages);
/// let create = definition.create_table_request(&client);
/// let stream = create.get_stream_specification().as_ref().unwrap();
/// assert_eq!(stream.stream_view_type(), Some(&StreamViewType::NewAndOldImages));
/// let ttl = definition.update_time_to_live_request(&client).unwrap();
/// let spec = ttl.get_time_to_live_specification().as_ref().unwrap();
/// assert_eq!((spec.attribute_name(), spec.enabled()), ("expiresAt", true));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub struct TableDefinition {
    /// The table's layout.
    pub schema: TableSchema,
    /// The table's name.
    pub table_name: String,
    /// The stream's view type, when a stream is enabled
    /// ([`stream`](Self::stream)).
    pub stream: Option<StreamViewType>,
}

impl TableSchema {
    /// This layout as the table `table_name`: its requests and JSON
    /// documents. See [`TableDefinition`].
    ///
    /// ```
    /// let definition = dynamodb_mapper::TableSchema::new("pk").definition("AppTable");
    /// assert_eq!(definition.table_name, "AppTable");
    /// assert!(definition.stream.is_none());
    /// ```
    pub fn definition(&self, table_name: impl Into<String>) -> TableDefinition {
        TableDefinition {
            schema: *self,
            table_name: table_name.into(),
            stream: None,
        }
    }
}

/// Fills a `CreateTable` builder (the client's fluent one, or the input
/// the JSON document is made of: the same setters, no common trait) with
/// the definition's table.
macro_rules! create_table {
    ($definition:expr, $builder:expr) => {
        $builder
            .table_name(&$definition.table_name)
            .set_attribute_definitions(Some($definition.attribute_definitions()))
            .set_key_schema(Some(key_schema(
                std::slice::from_ref(&$definition.schema.partition_key),
                $definition.schema.sort_key.as_slice(),
            )))
            .billing_mode(BillingMode::PayPerRequest)
            .set_global_secondary_indexes($definition.global_secondary_indexes())
            .set_stream_specification($definition.stream_specification())
    };
}

impl TableDefinition {
    /// Enables the table's stream with `view_type`: what each stream record
    /// holds (`KeysOnly`, `NewImage`, `OldImage` or `NewAndOldImages`).
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::StreamViewType;
    /// let definition = dynamodb_mapper::TableSchema::new("pk")
    ///     .definition("AppTable")
    ///     .stream(StreamViewType::KeysOnly);
    /// assert_eq!(definition.stream.as_ref(), Some(&StreamViewType::KeysOnly));
    /// ```
    pub fn stream(mut self, view_type: StreamViewType) -> Self {
        self.stream = Some(view_type);
        self
    }

    /// The `CreateTable` request: keys and their attribute definitions,
    /// on-demand billing, the global secondary indexes projecting all
    /// attributes, and the stream when one is enabled. Add anything else
    /// with the SDK's builder.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::{BillingMode, KeyType};
    /// # let client = dynamodb_mapper_support::doc::client();
    /// let request = dynamodb_mapper::TableSchema::new("pk")
    ///     .sort_key("sk")
    ///     .definition("AppTable")
    ///     .create_table_request(&client);
    /// assert_eq!(request.get_billing_mode(), &Some(BillingMode::PayPerRequest));
    /// let keys = request.get_key_schema().as_ref().unwrap();
    /// assert_eq!(keys[1].attribute_name(), "sk");
    /// assert_eq!(keys[1].key_type(), &KeyType::Range);
    /// assert!(request.get_stream_specification().is_none());
    /// ```
    #[must_use]
    pub fn create_table_request(&self, client: &Client) -> CreateTableFluentBuilder {
        create_table!(self, client.create_table())
    }

    /// The `UpdateTimeToLive` request that enables TTL on the layout's TTL
    /// attribute, or `None` when the layout declares none. DynamoDB accepts
    /// it only once the table is `ACTIVE`, and refuses it while TTL is
    /// already enabled.
    ///
    /// ```
    /// use dynamodb_mapper::TableSchema;
    /// # let client = dynamodb_mapper_support::doc::client();
    /// let with_ttl = TableSchema::new("pk").ttl("expiresAt").definition("Sessions");
    /// let request = with_ttl.update_time_to_live_request(&client).unwrap();
    /// assert_eq!(request.get_table_name().as_deref(), Some("Sessions"));
    /// let without = TableSchema::new("pk").definition("Sessions");
    /// assert!(without.update_time_to_live_request(&client).is_none());
    /// ```
    #[must_use]
    pub fn update_time_to_live_request(
        &self,
        client: &Client,
    ) -> Option<UpdateTimeToLiveFluentBuilder> {
        let spec = self.time_to_live_specification()?;
        Some(
            client
                .update_time_to_live()
                .table_name(&self.table_name)
                .time_to_live_specification(spec),
        )
    }

    /// The `CreateTable` input, as [`create_table_request`](Self::create_table_request)
    /// fills it, for the JSON document.
    pub(super) fn create_table_input(&self) -> CreateTableInputBuilder {
        create_table!(
            self,
            aws_sdk_dynamodb::operation::create_table::CreateTableInput::builder()
        )
    }

    /// TTL enabled on the layout's TTL attribute, if it has one.
    #[allow(clippy::expect_used)] // required fields always set
    pub(crate) fn time_to_live_specification(&self) -> Option<TimeToLiveSpecification> {
        let attribute = self.schema.ttl?;
        Some(
            TimeToLiveSpecification::builder()
                .attribute_name(attribute)
                .enabled(true)
                .build()
                .expect("ttl specification: both required fields are set"), // ok: every required field is set unconditionally above
        )
    }

    #[allow(clippy::expect_used)] // required fields always set
    fn attribute_definitions(&self) -> Vec<AttributeDefinition> {
        self.schema
            .key_attributes()
            .into_iter()
            .map(|attr| {
                AttributeDefinition::builder()
                    .attribute_name(attr.name)
                    .attribute_type(attr.scalar_type.sdk())
                    .build()
                    .expect("attribute definition: both required fields are set") // ok: every required field is set unconditionally above
            })
            .collect()
    }

    /// The indexes, or `None` for a table without any: DynamoDB rejects an
    /// empty list.
    #[allow(clippy::expect_used)] // required fields always set
    fn global_secondary_indexes(&self) -> Option<Vec<SdkGsi>> {
        if self.schema.indexes.is_empty() {
            return None;
        }
        let indexes = self.schema.indexes.iter().map(|index| {
            let projection = match index.projection {
                IndexProjection::All => Projection::builder().projection_type(ProjectionType::All),
                IndexProjection::KeysOnly => {
                    Projection::builder().projection_type(ProjectionType::KeysOnly)
                }
                IndexProjection::Include(attributes) => Projection::builder()
                    .projection_type(ProjectionType::Include)
                    .set_non_key_attributes(Some(
                        attributes.iter().map(|a| (*a).to_owned()).collect(),
                    )),
            };
            SdkGsi::builder()
                .index_name(index.name)
                .set_key_schema(Some(key_schema(index.partition_keys(), index.sort_keys())))
                .projection(projection.build())
                .build()
                .expect("gsi: name and key schema are set") // ok: every required field is set unconditionally above
        });
        Some(indexes.collect())
    }

    #[allow(clippy::expect_used)] // required fields always set
    fn stream_specification(&self) -> Option<StreamSpecification> {
        let view_type = self.stream.clone()?;
        Some(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(view_type)
                .build()
                .expect("stream specification: `stream_enabled` is set"), // ok: every required field is set unconditionally above
        )
    }
}

#[allow(clippy::expect_used)] // required fields always set
fn key_schema(partition: &[KeyAttribute], sort: &[KeyAttribute]) -> Vec<KeySchemaElement> {
    let hash = partition.iter().map(|k| (k, KeyType::Hash));
    hash.chain(sort.iter().map(|k| (k, KeyType::Range)))
        .map(|(attr, key_type)| {
            KeySchemaElement::builder()
                .attribute_name(attr.name)
                .key_type(key_type)
                .build()
                .expect("key schema element: both required fields are set") // ok: every required field is set unconditionally above
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::ScalarAttributeType;

    use super::*;
    use crate::{GlobalSecondaryIndex, KeyAttribute, ScalarType};

    fn client() -> Client {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .build();
        Client::from_conf(config)
    }

    const T: TableSchema = TableSchema::new("pk")
        .sort_key("sk")
        .indexes(&[
            GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk"),
            GlobalSecondaryIndex::new("ByRating", "sk").keys(
                KeyAttribute::new("sk"),
                Some(KeyAttribute::typed("rating", ScalarType::N)),
            ),
            GlobalSecondaryIndex::multi_attribute(
                "ByRegion",
                &[KeyAttribute::new("tenant"), KeyAttribute::new("region")],
                &[
                    KeyAttribute::typed("placedAt", ScalarType::N),
                    KeyAttribute::new("sk"),
                ],
            ),
        ])
        .ttl("ttl");

    #[test]
    fn request_and_input_agree() {
        let definition = T.definition("AppTable").stream(StreamViewType::OldImage);
        let request = definition.create_table_request(&client());
        let sent = request.as_input().clone().build().unwrap();
        let exported = definition.create_table_input().build().unwrap();
        assert_eq!(sent, exported);
        assert_eq!(
            T.definition("AppTable")
                .create_table_request(&client())
                .as_input()
                .clone()
                .build()
                .unwrap(),
            T.definition("AppTable")
                .create_table_input()
                .build()
                .unwrap()
        );
    }

    #[test]
    fn request_holds_the_layout() {
        let request = T.definition("AppTable").create_table_request(&client());
        let input = request.as_input();
        let definitions: Vec<_> = input
            .get_attribute_definitions()
            .iter()
            .flatten()
            .map(|d| (d.attribute_name(), d.attribute_type().clone()))
            .collect();
        assert_eq!(
            definitions,
            [
                ("pk", ScalarAttributeType::S),
                ("sk", ScalarAttributeType::S),
                ("gsi1pk", ScalarAttributeType::S),
                ("gsi1sk", ScalarAttributeType::S),
                ("rating", ScalarAttributeType::N),
                ("tenant", ScalarAttributeType::S),
                ("region", ScalarAttributeType::S),
                ("placedAt", ScalarAttributeType::N),
            ]
        );
        let indexes = input.get_global_secondary_indexes().as_ref().unwrap();
        assert_eq!(indexes[1].index_name(), "ByRating");
        let keys = |i: usize| -> Vec<_> {
            indexes[i]
                .key_schema()
                .iter()
                .map(|k| (k.attribute_name(), k.key_type().clone()))
                .collect()
        };
        assert_eq!(keys(1), [("sk", KeyType::Hash), ("rating", KeyType::Range)]);
        assert_eq!(
            keys(2),
            [
                ("tenant", KeyType::Hash),
                ("region", KeyType::Hash),
                ("placedAt", KeyType::Range),
                ("sk", KeyType::Range)
            ]
        );
        assert_eq!(
            indexes[0].projection().unwrap().projection_type(),
            Some(&ProjectionType::All)
        );
        assert!(input.get_stream_specification().is_none());
    }

    #[test]
    fn no_indexes_means_no_index_list() {
        let request = TableSchema::new("pk")
            .definition("AppTable")
            .create_table_request(&client());
        assert!(request.get_global_secondary_indexes().is_none());
    }

    #[test]
    fn ttl_request_only_with_a_ttl_attribute() {
        let request = T
            .definition("AppTable")
            .update_time_to_live_request(&client())
            .unwrap();
        let spec = request.get_time_to_live_specification().as_ref().unwrap();
        assert_eq!(spec.attribute_name(), "ttl");
        assert!(spec.enabled());
        assert!(
            TableSchema::new("pk")
                .definition("AppTable")
                .update_time_to_live_request(&client())
                .is_none()
        );
    }
}
