//! The tour's model: a shop's customers, their addresses and their orders,
//! in one table. The domain structs are plain serde types; each mapper says
//! where its entity lives (key patterns), and the keys are rendered from the
//! entity's fields: no hook code.
//!
//! ```text
//! pk             sk                          entity    GSI1 (gsi1pk / gsi1sk)
//! CUSTOMER#C1    PROFILE                     Customer
//! CUSTOMER#C1    ADDRESS#home                Address
//! CUSTOMER#C1    ORDER#2025-01-15#O1         Order     STATUS#Shipped / 2025-01-15#O1
//! ```

use dynamodb_mapper::prelude::*;
use dynamodb_mapper::{GlobalSecondaryIndex, IndexKeys, KeyPattern, NamingConvention, TableSchema};
use serde::{Deserialize, Serialize};

/// GSI1: orders by status, newest last.
pub const GSI1: GlobalSecondaryIndex =
    GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk");

/// The one table. Every item carries a `version` attribute: the crate's
/// writes check it (optimistic locking), and no helper writes an entity
/// without that check unless told so by name.
pub const SHOP: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GSI1])
    .version("version");

/// Everything about a customer lives in the customer's partition.
pub const CUSTOMER_PK: KeyPattern = KeyPattern::partition("CUSTOMER#{customer_id}");
pub const PROFILE_SK: KeyPattern = KeyPattern::sort("PROFILE");
pub const ADDRESS_SK: KeyPattern = KeyPattern::sort("ADDRESS#{label}");
/// Dates first, so a customer's orders come back in date order.
pub const ORDER_SK: KeyPattern = KeyPattern::sort("ORDER#{created_on}#{order_id}");
pub const STATUS_PK: KeyPattern = KeyPattern::partition("STATUS#{status}");
pub const STATUS_SK: KeyPattern = KeyPattern::sort("{created_on}#{order_id}");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Customer {
    pub customer_id: String,
    pub name: String,
    pub email: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Address {
    pub customer_id: String,
    pub label: String,
    pub city: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    Pending,
    Shipped,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Pending => "Pending",
            Status::Shipped => "Shipped",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub sku: String,
    pub quantity: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
    /// `YYYY-MM-DD`
    pub created_on: String,
    pub status: Status,
    pub total_cents: u64,
    pub lines: Vec<Line>,
}

pub struct CustomerMapper;

impl Mapper for CustomerMapper {
    type Entity = Customer;
    const ENTITY_TYPE: &'static str = "Customer";
    const SCHEMA: TableSchema = SHOP;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(CUSTOMER_PK).sort(PROFILE_SK)];
}

pub struct AddressMapper;

impl Mapper for AddressMapper {
    type Entity = Address;
    const ENTITY_TYPE: &'static str = "Address";
    const SCHEMA: TableSchema = SHOP;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(CUSTOMER_PK).sort(ADDRESS_SK)];
}

pub struct OrderMapper;

impl Mapper for OrderMapper {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = SHOP;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(CUSTOMER_PK).sort(ORDER_SK),
        IndexKeys::index("GSI1", STATUS_PK).sort(STATUS_SK),
    ];
}

/// What a query over a customer's partition can hold.
#[derive(Debug, Clone, PartialEq)]
pub enum Entity {
    Customer(Customer),
    Address(Address),
    Order(Order),
}

pub fn customer(id: &str, name: &str) -> Customer {
    Customer {
        customer_id: id.into(),
        name: name.into(),
        email: format!("{}@example.com", name.to_lowercase()),
    }
}

pub fn order(customer_id: &str, order_id: &str, created_on: &str, status: Status) -> Order {
    Order {
        customer_id: customer_id.into(),
        order_id: order_id.into(),
        created_on: created_on.into(),
        status,
        total_cents: 4200,
        lines: vec![Line {
            sku: "BOOK-1".into(),
            quantity: 2,
        }],
    }
}
