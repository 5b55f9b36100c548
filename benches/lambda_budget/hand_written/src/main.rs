//! The Lambda budget's baseline without a mapping library: the same five
//! entity types and the same requests as `with_mapper`, every item written
//! and read with hand-written `AttributeValue` code, and a page decoded by a
//! `match` on the `entityType` discriminator. Writes the same attributes as
//! the mapper does (camelCase names, `pk`/`sk` rendered from the same
//! patterns, `None` left out).
//!
//! A plain `main` (no `lambda_runtime`): it builds a client from the
//! environment, as a function's init does, and handles one event.

use std::collections::HashMap;
use std::fmt;

use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;

type Item = HashMap<String, AttributeValue>;

#[derive(Debug, Clone, PartialEq)]
pub struct Customer {
    pub customer_id: String,
    pub email: String,
    pub name: String,
    pub created_at: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderStatus {
    Pending,
    Shipped,
    Delivered,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OrderLine {
    pub sku: String,
    pub quantity: u32,
    pub unit_price_cents: u64,
}

#[derive(Debug, Clone, PartialEq)]
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

#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub session_id: String,
    pub user_id: String,
    pub created_at: String,
    /// Epoch seconds.
    pub expires_at: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Product {
    pub product_id: String,
    pub category_id: String,
    pub name: String,
    pub price_cents: u64,
    pub is_archived: bool,
    pub archived_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
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

/// A read that went wrong: which entity type, which attribute, what.
#[derive(Debug)]
pub struct ReadError {
    entity: &'static str,
    attribute: String,
    problem: &'static str,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: attribute `{}` {}",
            self.entity, self.attribute, self.problem
        )
    }
}

impl std::error::Error for ReadError {}

fn err(entity: &'static str, attribute: &str, problem: &'static str) -> ReadError {
    ReadError {
        entity,
        attribute: attribute.into(),
        problem,
    }
}

/// Reads the attributes of one entity type.
struct Reader<'a> {
    entity: &'static str,
    item: &'a Item,
}

impl Reader<'_> {
    fn string(&self, name: &str) -> Result<String, ReadError> {
        match self.item.get(name) {
            Some(AttributeValue::S(s)) => Ok(s.clone()),
            Some(_) => Err(err(self.entity, name, "is not a string")),
            None => Err(err(self.entity, name, "is missing")),
        }
    }

    fn opt_string(&self, name: &str) -> Result<Option<String>, ReadError> {
        match self.item.get(name) {
            None | Some(AttributeValue::Null(_)) => Ok(None),
            Some(AttributeValue::S(s)) => Ok(Some(s.clone())),
            Some(_) => Err(err(self.entity, name, "is not a string")),
        }
    }

    fn number<T: std::str::FromStr>(&self, name: &str) -> Result<T, ReadError> {
        number(self.entity, name, self.item.get(name))
    }

    fn boolean(&self, name: &str) -> Result<bool, ReadError> {
        match self.item.get(name) {
            Some(AttributeValue::Bool(b)) => Ok(*b),
            Some(_) => Err(err(self.entity, name, "is not a boolean")),
            None => Err(err(self.entity, name, "is missing")),
        }
    }
}

fn number<T: std::str::FromStr>(
    entity: &'static str,
    name: &str,
    value: Option<&AttributeValue>,
) -> Result<T, ReadError> {
    match value {
        Some(AttributeValue::N(n)) => n
            .parse()
            .map_err(|_| err(entity, name, "does not fit its type")),
        Some(_) => Err(err(entity, name, "is not a number")),
        None => Err(err(entity, name, "is missing")),
    }
}

fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

fn customer_key(customer_id: &str) -> Item {
    HashMap::from([
        ("pk".to_string(), s(format!("CUSTOMER#{customer_id}"))),
        ("sk".to_string(), s("METADATA")),
    ])
}

fn status_name(status: OrderStatus) -> &'static str {
    match status {
        OrderStatus::Pending => "Pending",
        OrderStatus::Shipped => "Shipped",
        OrderStatus::Delivered => "Delivered",
    }
}

fn order_to_item(o: &Order) -> Item {
    let mut item = Item::new();
    item.insert("pk".into(), s(format!("CUSTOMER#{}", o.customer_id)));
    item.insert("sk".into(), s(format!("ORDER#{}", o.order_id)));
    item.insert("entityType".into(), s("Order"));
    item.insert("orderId".into(), s(&o.order_id));
    item.insert("customerId".into(), s(&o.customer_id));
    item.insert("status".into(), s(status_name(o.status)));
    item.insert("totalCents".into(), n(o.total_cents));
    item.insert("createdAt".into(), s(&o.created_at));
    if let Some(at) = &o.shipped_at {
        item.insert("shippedAt".into(), s(at));
    }
    if let Some(tracking) = &o.tracking_number {
        item.insert("trackingNumber".into(), s(tracking));
    }
    let lines = o
        .lines
        .iter()
        .map(|l| {
            AttributeValue::M(HashMap::from([
                ("sku".to_string(), s(&l.sku)),
                ("quantity".to_string(), n(l.quantity)),
                ("unitPriceCents".to_string(), n(l.unit_price_cents)),
            ]))
        })
        .collect();
    item.insert("lines".into(), AttributeValue::L(lines));
    item
}

fn customer_from_item(item: &Item) -> Result<Customer, ReadError> {
    let r = Reader {
        entity: "Customer",
        item,
    };
    Ok(Customer {
        customer_id: r.string("customerId")?,
        email: r.string("email")?,
        name: r.string("name")?,
        created_at: r.string("createdAt")?,
    })
}

fn order_from_item(item: &Item) -> Result<Order, ReadError> {
    let r = Reader {
        entity: "Order",
        item,
    };
    let status = match r.string("status")?.as_str() {
        "Pending" => OrderStatus::Pending,
        "Shipped" => OrderStatus::Shipped,
        "Delivered" => OrderStatus::Delivered,
        _ => return Err(err("Order", "status", "is not an order status")),
    };
    let lines = match item.get("lines") {
        Some(AttributeValue::L(lines)) => lines
            .iter()
            .map(|line| match line {
                AttributeValue::M(line) => {
                    let r = Reader {
                        entity: "Order",
                        item: line,
                    };
                    Ok(OrderLine {
                        sku: r.string("sku")?,
                        quantity: r.number("quantity")?,
                        unit_price_cents: r.number("unitPriceCents")?,
                    })
                }
                _ => Err(err("Order", "lines", "holds something other than a map")),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(err("Order", "lines", "is not a list")),
        None => return Err(err("Order", "lines", "is missing")),
    };
    Ok(Order {
        order_id: r.string("orderId")?,
        customer_id: r.string("customerId")?,
        status,
        total_cents: r.number("totalCents")?,
        created_at: r.string("createdAt")?,
        shipped_at: r.opt_string("shippedAt")?,
        tracking_number: r.opt_string("trackingNumber")?,
        lines,
    })
}

fn session_from_item(item: &Item) -> Result<Session, ReadError> {
    let r = Reader {
        entity: "Session",
        item,
    };
    Ok(Session {
        session_id: r.string("sessionId")?,
        user_id: r.string("userId")?,
        created_at: r.string("createdAt")?,
        expires_at: r.number("expiresAt")?,
    })
}

fn product_from_item(item: &Item) -> Result<Product, ReadError> {
    let r = Reader {
        entity: "Product",
        item,
    };
    Ok(Product {
        product_id: r.string("productId")?,
        category_id: r.string("categoryId")?,
        name: r.string("name")?,
        price_cents: r.number("priceCents")?,
        is_archived: r.boolean("isArchived")?,
        archived_at: r.opt_string("archivedAt")?,
    })
}

fn review_from_item(item: &Item) -> Result<ProductReview, ReadError> {
    let r = Reader {
        entity: "ProductReview",
        item,
    };
    Ok(ProductReview {
        review_id: r.string("reviewId")?,
        product_id: r.string("productId")?,
        user_id: r.string("userId")?,
        rating: r.number("rating")?,
        comment: r.string("comment")?,
        created_at: r.string("createdAt")?,
    })
}

/// One item of a page: the entity its discriminator names; an error for a
/// missing discriminator or an entity type this function does not know (as
/// the mapper's registry does by default).
fn decode(item: &Item) -> Result<Entity, ReadError> {
    let Some(AttributeValue::S(entity_type)) = item.get("entityType") else {
        return Err(err("(unknown)", "entityType", "is missing or not a string"));
    };
    Ok(match entity_type.as_str() {
        "Customer" => Entity::Customer(customer_from_item(item)?),
        "Order" => Entity::Order(order_from_item(item)?),
        "Session" => Entity::Session(session_from_item(item)?),
        "Product" => Entity::Product(product_from_item(item)?),
        "ProductReview" => Entity::Review(review_from_item(item)?),
        _ => return Err(err("(unknown)", "entityType", "names no known entity type")),
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
        .set_item(Some(order_to_item(order)))
        .send()
        .await?;

    let out = client
        .get_item()
        .table_name(table)
        .set_key(Some(customer_key(&order.customer_id)))
        .send()
        .await?;
    let customer = match &out.item {
        Some(item) => Some(customer_from_item(item)?),
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
        .items()
        .iter()
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
