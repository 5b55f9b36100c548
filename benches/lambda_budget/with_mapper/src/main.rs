//! The Lambda budget's function with dynamodb-mapper: five entity types of
//! the seed-001 design (shapes from `support/src/seed001`), each with a
//! mapper declaring its table keys in `KEY_PATTERNS`; one `PutItem` of an
//! encoded order, one `GetItem` of a customer decoded, and one `Query` page
//! of the customer's partition decoded through a `Registry`.
//!
//! A plain `main` (no `lambda_runtime`): it builds a client from the
//! environment, as a function's init does, and handles one event.

use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::Client;
use dynamodb_mapper::expr::Apply;
use dynamodb_mapper::prelude::*;
use dynamodb_mapper::{IndexKeys, KeyPattern, NamingConvention, Registry, TableSchema};
use serde::{Deserialize, Serialize};

const APP_TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Customer {
    pub customer_id: String,
    pub email: String,
    pub name: String,
    pub created_at: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OrderStatus {
    Pending,
    Shipped,
    Delivered,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderLine {
    pub sku: String,
    pub quantity: u32,
    pub unit_price_cents: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub order_id: String,
    pub customer_id: String,
    pub status: OrderStatus,
    pub total_cents: u64,
    pub created_at: String,
    pub shipped_at: Option<String>,
    pub tracking_number: Option<String>,
    pub lines: Vec<OrderLine>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub session_id: String,
    pub user_id: String,
    pub created_at: String,
    /// Epoch seconds.
    pub expires_at: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Product {
    pub product_id: String,
    pub category_id: String,
    pub name: String,
    pub price_cents: u64,
    pub is_archived: bool,
    pub archived_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProductReview {
    pub review_id: String,
    pub product_id: String,
    pub user_id: String,
    pub rating: u8,
    pub comment: String,
    pub created_at: String,
}

pub struct CustomerMapper;

impl Mapper for CustomerMapper {
    type Entity = Customer;
    const ENTITY_TYPE: &'static str = "Customer";
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[
            IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer_id}"))
                .sort(KeyPattern::sort("METADATA")),
        ];
}

pub struct OrderMapper;

impl Mapper for OrderMapper {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[
            IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer_id}"))
                .sort(KeyPattern::sort("ORDER#{order_id}")),
        ];
}

pub struct SessionMapper;

impl Mapper for SessionMapper {
    type Entity = Session;
    const ENTITY_TYPE: &'static str = "Session";
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("USER#{user_id}"))
            .sort(KeyPattern::sort("SESSION#{session_id}"))];
}

pub struct ProductMapper;

impl Mapper for ProductMapper {
    type Entity = Product;
    const ENTITY_TYPE: &'static str = "Product";
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[
            IndexKeys::table(KeyPattern::partition("CATEGORY#{category_id}"))
                .sort(KeyPattern::sort("PRODUCT#{product_id}")),
        ];
}

pub struct ProductReviewMapper;

impl Mapper for ProductReviewMapper {
    type Entity = ProductReview;
    const ENTITY_TYPE: &'static str = "ProductReview";
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[
            IndexKeys::table(KeyPattern::partition("PRODUCT#{product_id}"))
                .sort(KeyPattern::sort("REVIEW#{review_id}")),
        ];
}

/// What a page of the table decodes into.
#[derive(Debug)]
pub enum Entity {
    Customer(Customer),
    Order(Order),
    Session(Session),
    Product(Product),
    Review(ProductReview),
}

fn registry() -> dynamodb_mapper::Result<Registry<Entity>> {
    Registry::builder()
        .register::<CustomerMapper>(Entity::Customer)
        .register::<OrderMapper>(Entity::Order)
        .register::<SessionMapper>(Entity::Session)
        .register::<ProductMapper>(Entity::Product)
        .register::<ProductReviewMapper>(Entity::Review)
        .build()
}

/// The event: an order placed by a customer.
fn order(customer_id: &str, order_id: &str) -> Order {
    Order {
        order_id: order_id.into(),
        customer_id: customer_id.into(),
        status: OrderStatus::Pending,
        total_cents: 2 * 1250 + 499,
        created_at: "2024-01-01T09:00:00Z".into(),
        shipped_at: None,
        tracking_number: None,
        lines: vec![
            OrderLine {
                sku: "SKU-1".into(),
                quantity: 2,
                unit_price_cents: 1250,
            },
            OrderLine {
                sku: "SKU-2".into(),
                quantity: 1,
                unit_price_cents: 499,
            },
        ],
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Handles one event: writes the order, reads its customer, reads the
/// customer's partition (one page) and counts what it holds.
async fn handle(
    client: &Client,
    table: &str,
    registry: &Registry<Entity>,
    order: &Order,
) -> Result<String, BoxError> {
    client
        .put_item()
        .table_name(table)
        .set_item(Some(OrderMapper::to_item(order)?))
        .send()
        .await?;

    let lookup = CustomerMapper::lookup().with("customer_id", order.customer_id.as_str());
    let out = client
        .get_item()
        .table_name(table)
        .set_key(Some(lookup.key()?))
        .send()
        .await?;
    let customer = match out.item {
        Some(item) => Some(CustomerMapper::from_item(item)?),
        None => None,
    };

    // The partition: the customer and their orders (the key condition is
    // the partition key alone, from the order's pattern).
    let partition = OrderMapper::lookup().with("customer_id", order.customer_id.as_str());
    let page = client
        .query()
        .table_name(table)
        .apply(dynamodb_mapper::expr::KeyCondition::new(
            APP_TABLE,
            partition.partition()?,
        ))?
        .send()
        .await?;
    // Unknown or missing discriminators are errors (the registry's default
    // policies), so every item of the page is an entity.
    let entities = registry
        .decode_all(page.items.unwrap_or_default())?
        .entities;
    let (mut orders, mut others) = (0usize, 0usize);
    for entity in &entities {
        match entity {
            Entity::Order(_) => orders += 1,
            Entity::Customer(_) | Entity::Session(_) | Entity::Product(_) | Entity::Review(_) => {
                others += 1;
            }
        }
    }
    Ok(format!(
        "customer: {:?}; partition: {orders} orders, {others} others",
        customer.map(|c| c.name)
    ))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), BoxError> {
    // Init: client and registry once per cold start.
    let table = std::env::var("TABLE_NAME").unwrap_or_else(|_| "AppTable".into());
    let config = aws_config::defaults(BehaviorVersion::latest()).load().await;
    let client = Client::new(&config);
    let registry = registry()?;
    // One event.
    let answer = handle(&client, &table, &registry, &order("C1", "O1")).await?;
    println!("{answer}");
    Ok(())
}
