//! The example's order, as its mapper was before the status index
//! (`OrderBefore`, which wrote the 20,000 orders) and as it is now
//! (`OrderMapper`, whose index keys the backfill writes).

use dynamodb_mapper::prelude::*;
use dynamodb_mapper::{GlobalSecondaryIndex, IndexKeys, KeyPattern, TableSchema};
use serde::{Deserialize, Serialize};

/// The table as it was created: orders by customer only.
pub const TABLE_BEFORE: TableSchema = TableSchema::new("pk").sort_key("sk");

/// The index the new access pattern needs: orders by status, oldest first.
pub const BY_STATUS: GlobalSecondaryIndex =
    GlobalSecondaryIndex::new("ByStatus", "gsi1pk").sort_key("gsi1sk");

/// The table with the index.
pub const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk").indexes(&[BY_STATUS]);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub customer: String,
    pub id: u32,
    pub status: String,
    pub total_cents: u64,
    /// Unix seconds.
    pub placed_at: u64,
}

/// The order's mapper before the index: its table keys only.
pub struct OrderBefore;

impl Mapper for OrderBefore {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = TABLE_BEFORE;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[
            IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer}"))
                .sort(KeyPattern::sort("ORDER#{id:u6}")),
        ];
}

/// The order's mapper now: the same item, and the status index's keys.
pub struct OrderMapper;

impl Mapper for OrderMapper {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = TABLE;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer}"))
            .sort(KeyPattern::sort("ORDER#{id:u6}")),
        IndexKeys::index("ByStatus", KeyPattern::partition("STATUS#{status}"))
            .sort(KeyPattern::sort("PLACED#{placed_at:u10}#{id:u6}")),
    ];
}

/// Order `id` of the seeded set: 97 customers, one order in five open.
pub fn order(id: u32) -> Order {
    Order {
        customer: format!("C{:02}", id % 97),
        id,
        status: if id.is_multiple_of(5) {
            "open"
        } else {
            "shipped"
        }
        .to_owned(),
        total_cents: u64::from(id % 1000) * 100 + 99,
        placed_at: 1_764_000_000 + u64::from(id) * 60,
    }
}
