//! The example's one entity: an order, in a table whose `ByRegion` index
//! has multi-attribute keys (tenant + region, then placedAt + orderId), all
//! of them the order's own fields.

use dynamodb_mapper::prelude::*;
use dynamodb_mapper::{
    GlobalSecondaryIndex, IndexKeys, KeyAttribute, KeyPattern, NamingConvention, ScalarType,
    TableSchema,
};
use serde::{Deserialize, Serialize};

/// Orders of a tenant by region, in the order they were placed: no
/// concatenated key strings, each key attribute a typed field.
pub const BY_REGION: GlobalSecondaryIndex = GlobalSecondaryIndex::multi_attribute(
    "ByRegion",
    &[KeyAttribute::new("tenant"), KeyAttribute::new("region")],
    &[
        KeyAttribute::typed("placedAt", ScalarType::N),
        KeyAttribute::new("orderId"),
    ],
);

pub const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk").indexes(&[BY_REGION]);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub tenant: String,
    pub region: String,
    pub order_id: String,
    /// Unix seconds.
    pub placed_at: u64,
    pub status: String,
    pub total_cents: u64,
}

pub struct OrderMapper;

impl Mapper for OrderMapper {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("TENANT#{tenant}"))
            .sort(KeyPattern::sort("ORDER#{order_id}"))];
}

pub fn order(id: &str, region: &str, placed_at: u64, total_cents: u64) -> Order {
    Order {
        tenant: "acme".into(),
        region: region.into(),
        order_id: id.into(),
        placed_at,
        status: "pending".into(),
        total_cents,
    }
}
