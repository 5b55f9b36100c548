//! The Lambda budget's baseline with serde_dynamo: the same five entity
//! types and the same requests as `with_mapper`, entities converted with
//! `serde_dynamo::{to_item, from_item}` (serde attributes for the camelCase
//! names and the absent `None`s the mapper writes), the keys and the
//! `entityType` discriminator inserted by hand, and a page decoded by a
//! `match` on the discriminator.
//!
//! A plain `main` (no `lambda_runtime`): it builds a client from the
//! environment, as a function's init does, and handles one event.

use std::collections::HashMap;

use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};

type Item = HashMap<String, AttributeValue>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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
#[serde(rename_all = "camelCase")]
pub struct OrderLine {
    pub sku: String,
    pub quantity: u32,
    pub unit_price_cents: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub order_id: String,
    pub customer_id: String,
    pub status: OrderStatus,
    pub total_cents: u64,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shipped_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking_number: Option<String>,
    pub lines: Vec<OrderLine>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub session_id: String,
    pub user_id: String,
    pub created_at: String,
    /// Epoch seconds.
    pub expires_at: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    pub product_id: String,
    pub category_id: String,
    pub name: String,
    pub price_cents: u64,
    pub is_archived: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductReview {
    pub review_id: String,
    pub product_id: String,
    pub user_id: String,
    pub rating: u8,
    pub comment: String,
    pub created_at: String,
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

/// A discriminator missing or naming no known entity type.
#[derive(Debug)]
pub struct UnknownEntity(Option<String>);

impl std::fmt::Display for UnknownEntity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(name) => write!(f, "entityType {name:?} names no known entity type"),
            None => f.write_str("entityType is missing or not a string"),
        }
    }
}

impl std::error::Error for UnknownEntity {}

fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

fn customer_key(customer_id: &str) -> Item {
    HashMap::from([
        ("pk".to_string(), s(format!("CUSTOMER#{customer_id}"))),
        ("sk".to_string(), s("METADATA")),
    ])
}

fn order_to_item(o: &Order) -> Result<Item, serde_dynamo::Error> {
    let mut item: Item = serde_dynamo::to_item(o)?;
    item.insert("pk".into(), s(format!("CUSTOMER#{}", o.customer_id)));
    item.insert("sk".into(), s(format!("ORDER#{}", o.order_id)));
    item.insert("entityType".into(), s("Order"));
    Ok(item)
}

/// One item of a page: the entity its discriminator names; an error for a
/// missing discriminator or an entity type this function does not know (as
/// the mapper's registry does by default).
fn decode(item: Item) -> Result<Entity, BoxError> {
    let entity_type = match item.get("entityType") {
        Some(AttributeValue::S(name)) => name.clone(),
        _ => return Err(UnknownEntity(None).into()),
    };
    Ok(match entity_type.as_str() {
        "Customer" => Entity::Customer(serde_dynamo::from_item(item)?),
        "Order" => Entity::Order(serde_dynamo::from_item(item)?),
        "Session" => Entity::Session(serde_dynamo::from_item(item)?),
        "Product" => Entity::Product(serde_dynamo::from_item(item)?),
        "ProductReview" => Entity::Review(serde_dynamo::from_item(item)?),
        _ => return Err(UnknownEntity(Some(entity_type)).into()),
    })
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
async fn handle(client: &Client, table: &str, order: &Order) -> Result<String, BoxError> {
    client
        .put_item()
        .table_name(table)
        .set_item(Some(order_to_item(order)?))
        .send()
        .await?;

    let out = client
        .get_item()
        .table_name(table)
        .set_key(Some(customer_key(&order.customer_id)))
        .send()
        .await?;
    let customer: Option<Customer> = match out.item {
        Some(item) => Some(serde_dynamo::from_item(item)?),
        None => None,
    };

    let page = client
        .query()
        .table_name(table)
        .key_condition_expression("#pk = :pk")
        .expression_attribute_names("#pk", "pk")
        .expression_attribute_values(":pk", s(format!("CUSTOMER#{}", order.customer_id)))
        .send()
        .await?;
    let entities = page
        .items
        .unwrap_or_default()
        .into_iter()
        .map(decode)
        .collect::<Result<Vec<_>, _>>()?;
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
    // Init: client once per cold start.
    let table = std::env::var("TABLE_NAME").unwrap_or_else(|_| "AppTable".into());
    let config = aws_config::defaults(BehaviorVersion::latest()).load().await;
    let client = Client::new(&config);
    // One event.
    let answer = handle(&client, &table, &order("C1", "O1")).await?;
    println!("{answer}");
    Ok(())
}
