//! The seed-001 order's and customer's baselines, shared by the benches
//! that compare against them (`benches/mapping.rs`, `request.rs`,
//! `instructions.rs`): each mapper with serde's own names, the same item
//! written and read by hand (the floor) and with `serde_dynamo` plus
//! hand-inserted keys. The order has a nested list of maps; the customer is
//! flat (strings only). The floors with the mapper's checks written by hand
//! are in [`checked`].
//!
//! Every function here and in [`checked`] is `#[inline]`, so it is compiled
//! into the bench that calls it, as when these files were a module of each
//! bench (`benches/common/`): the floors' instruction counts under
//! callgrind (`scripts/instructions.sh`) stay what they were. Without it the
//! write floors cost about 100 instructions more per call.

use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::{
    IndexKeys, Item, ItemExt, KeyPattern, Mapper, NamingConvention, TableSchema,
};

use crate::seed001::*;

pub mod checked;

/// The order mapper with serde's own names, so its items match what plain
/// `serde_dynamo` produces.
pub struct OrderAsIs;
impl Mapper for OrderAsIs {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::AsIs;
    #[inline]
    fn before_to_item(o: &Order) -> dynamodb_mapper::Result<()> {
        OrderMapper::before_to_item(o)
    }
    #[inline]
    fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
        order_hook(o, item)
    }
}

/// The seed-001 order's hook as the benches have always measured it: keys
/// built with `format!`, values not escaped. (The seed's `OrderMapper` now
/// renders them through its declared key patterns, which escape a delimiter
/// inside a value; the "hook mapper" rows keep measuring the hook they were
/// measured with.) Not `#[inline]`: a call into this crate, as the seed's
/// hook was.
pub fn order_hook(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
    let date = o.created_at.get(..10).unwrap_or(&o.created_at);
    item.put_str("pk", format!("CUSTOMER#{}", o.customer_id));
    item.put_str("sk", format!("ORDER#{}#{date}", o.order_id));
    item.put_str("gsi1pk", format!("STATUS#{}", o.status.name()));
    item.put_str("gsi1sk", o.created_at.clone());
    item.put_str("gsi2pk", "ORDER");
    item.put_str("gsi2sk", o.created_at.clone());
    if let (Some(at), Some(tracking)) = (&o.shipped_at, &o.tracking_number)
        && !tracking.is_empty()
    {
        item.put_str("gsi3pk", "SHIPPED");
        item.put_str("gsi3sk", at.clone());
    }
    Ok(())
}

/// The seed-001 customer's hook as the benches measure it (see
/// [`order_hook`]).
pub fn customer_hook(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
    use dynamodb_mapper::ItemExt;
    item.put_str("pk", format!("CUSTOMER#{}", c.customer_id));
    item.put_str("sk", "METADATA");
    item.put_str("recordType", "Customer");
    item.put_str("gsi1pk", format!("EMAIL#{}", c.email));
    item.put_str("gsi1sk", format!("CUSTOMER#{}", c.customer_id));
    Ok(())
}

/// The seed-001 order mapper as the benches measure it: camelCase names and
/// the seed's hooks, no declared key patterns (the seed's `OrderMapper`
/// also declares its keys, `by_hook`, for its access patterns: a check of
/// the written keys per write that the "hook mapper" rows never had).
pub struct OrderCamel;
impl Mapper for OrderCamel {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    #[inline]
    fn before_to_item(o: &Order) -> dynamodb_mapper::Result<()> {
        OrderMapper::before_to_item(o)
    }
    #[inline]
    fn after_to_item(o: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
        order_hook(o, item)
    }
}

#[inline]
pub fn s(v: String) -> AttributeValue {
    AttributeValue::S(v)
}

/// The baseline: `serde_dynamo::to_item` and the same keys inserted by hand.
#[inline]
pub fn serde_dynamo_to_item(o: &Order) -> Item {
    let mut item: Item = serde_dynamo::to_item(o).expect("serializable");
    item.extend(serde_dynamo_keys(o));
    item
}

/// The baseline read: check the discriminator by hand, then `serde_dynamo`.
#[inline]
pub fn serde_dynamo_from_item(item: Item) -> Order {
    assert!(matches!(item.get("entityType"), Some(AttributeValue::S(t)) if t == "Order"));
    serde_dynamo::from_item(item).expect("deserializable")
}

#[inline]
pub fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// The floor: every attribute written by hand.
#[inline]
pub fn hand_to_item(o: &Order) -> Item {
    let mut item = serde_dynamo_keys(o);
    order_fields(o, &mut item);
    item
}

/// The order's own attributes (its fields), by hand.
#[inline]
pub fn order_fields(o: &Order, item: &mut Item) {
    item.insert("order_id".into(), s(o.order_id.clone()));
    item.insert("customer_id".into(), s(o.customer_id.clone()));
    item.insert("status".into(), s(o.status.name().into()));
    item.insert("total_cents".into(), n(o.total_cents));
    item.insert("created_at".into(), s(o.created_at.clone()));
    let opt = |v: &Option<String>| match v {
        Some(v) => s(v.clone()),
        None => AttributeValue::Null(true),
    };
    item.insert("shipped_at".into(), opt(&o.shipped_at));
    item.insert("tracking_number".into(), opt(&o.tracking_number));
    let lines = o
        .lines
        .iter()
        .map(|l| {
            AttributeValue::M(Item::from([
                ("sku".to_string(), s(l.sku.clone())),
                ("quantity".to_string(), n(l.quantity)),
                ("unit_price_cents".to_string(), n(l.unit_price_cents)),
            ]))
        })
        .collect();
    item.insert("lines".into(), AttributeValue::L(lines));
}

#[inline]
pub fn serde_dynamo_keys(o: &Order) -> Item {
    let mut item = Item::with_capacity(20);
    let date = o.created_at.get(..10).unwrap_or(&o.created_at);
    item.insert("pk".into(), s(format!("CUSTOMER#{}", o.customer_id)));
    item.insert("sk".into(), s(format!("ORDER#{}#{date}", o.order_id)));
    item.insert("entityType".into(), s("Order".into()));
    item.insert("gsi1pk".into(), s(format!("STATUS#{}", o.status.name())));
    item.insert("gsi1sk".into(), s(o.created_at.clone()));
    item.insert("gsi2pk".into(), s("ORDER".into()));
    item.insert("gsi2sk".into(), s(o.created_at.clone()));
    if let (Some(at), Some(_)) = (&o.shipped_at, &o.tracking_number) {
        item.insert("gsi3pk".into(), s("SHIPPED".into()));
        item.insert("gsi3sk".into(), s(at.clone()));
    }
    item
}

/// The order's keys as a mapper declaring them in `KEY_PATTERNS` renders
/// them (`benches/instructions.rs`, the nested variant), built by hand with
/// `format!`, and the discriminator: pk `CUSTOMER#{customer_id}`, sk
/// `ORDER#{order_id}`, GSI1 `STATUS#{status}` / `{created_at}`, GSI2 `ORDER`
/// / `{created_at}`, GSI3 (sparse) `SHIPPED` / `{shipped_at}`.
#[inline]
pub fn order_pattern_keys(o: &Order, item: &mut Item) {
    item.insert("pk".into(), s(format!("CUSTOMER#{}", o.customer_id)));
    item.insert("sk".into(), s(format!("ORDER#{}", o.order_id)));
    item.insert("entityType".into(), s("Order".into()));
    item.insert("gsi1pk".into(), s(format!("STATUS#{}", o.status.name())));
    item.insert("gsi1sk".into(), s(o.created_at.clone()));
    item.insert("gsi2pk".into(), s("ORDER".into()));
    item.insert("gsi2sk".into(), s(o.created_at.clone()));
    if let Some(at) = &o.shipped_at {
        item.insert("gsi3pk".into(), s("SHIPPED".into()));
        item.insert("gsi3sk".into(), s(at.clone()));
    }
}

/// The floor of the order with the keys of [`order_pattern_keys`]: every
/// attribute written by hand.
#[inline]
pub fn hand_order_with_pattern_keys_to_item(o: &Order) -> Item {
    let mut item = Item::with_capacity(20);
    order_pattern_keys(o, &mut item);
    order_fields(o, &mut item);
    item
}

/// The floor read: every attribute taken apart by hand.
#[inline]
pub fn hand_from_item(mut item: Item) -> Order {
    assert!(matches!(item.get("entityType"), Some(AttributeValue::S(t)) if t == "Order"));
    let mut take_s = |name: &str| match item.remove(name) {
        Some(AttributeValue::S(v)) => v,
        other => panic!("{name}: {other:?}"),
    };
    let order_id = take_s("order_id");
    let customer_id = take_s("customer_id");
    let status = match take_s("status").as_str() {
        "Pending" => OrderStatus::Pending,
        "Shipped" => OrderStatus::Shipped,
        _ => OrderStatus::Delivered,
    };
    let created_at = take_s("created_at");
    let total_cents = match item.remove("total_cents") {
        Some(AttributeValue::N(v)) => v.parse().expect("number"),
        other => panic!("total_cents: {other:?}"),
    };
    let mut opt = |name: &str| match item.remove(name) {
        Some(AttributeValue::S(v)) => Some(v),
        _ => None,
    };
    let shipped_at = opt("shipped_at");
    let tracking_number = opt("tracking_number");
    let lines = match item.remove("lines") {
        Some(AttributeValue::L(lines)) => lines
            .into_iter()
            .map(|l| {
                let AttributeValue::M(mut m) = l else {
                    panic!("line")
                };
                let sku = match m.remove("sku") {
                    Some(AttributeValue::S(v)) => v,
                    other => panic!("sku: {other:?}"),
                };
                let mut num = |name: &str| match m.remove(name) {
                    Some(AttributeValue::N(v)) => v.parse::<u64>().expect("number"),
                    other => panic!("{name}: {other:?}"),
                };
                OrderLine {
                    sku,
                    quantity: num("quantity") as u32,
                    unit_price_cents: num("unit_price_cents"),
                }
            })
            .collect(),
        other => panic!("lines: {other:?}"),
    };
    Order {
        order_id,
        customer_id,
        status,
        total_cents,
        created_at,
        shipped_at,
        tracking_number,
        lines,
    }
}

/// The customer mapper with serde's own names, as [`OrderAsIs`].
pub struct CustomerAsIs;
impl Mapper for CustomerAsIs {
    type Entity = Customer;
    const ENTITY_TYPE: &'static str = "Customer";
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::AsIs;
    const OWNED_ATTRIBUTES: &'static [&'static str] = CustomerMapper::OWNED_ATTRIBUTES;
    #[inline]
    fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
        customer_hook(c, item)
    }
}

/// The customer's keys and derived attributes, by hand.
#[inline]
pub fn customer_keys(c: &Customer, item: &mut Item) {
    item.insert("pk".into(), s(format!("CUSTOMER#{}", c.customer_id)));
    item.insert("sk".into(), s("METADATA".into()));
    item.insert("recordType".into(), s("Customer".into()));
    item.insert("gsi1pk".into(), s(format!("EMAIL#{}", c.email)));
    item.insert("gsi1sk".into(), s(format!("CUSTOMER#{}", c.customer_id)));
    item.insert("entityType".into(), s("Customer".into()));
}

/// The floor: the customer written by hand.
#[inline]
pub fn hand_customer_to_item(c: &Customer) -> Item {
    let mut item = Item::with_capacity(10);
    customer_keys(c, &mut item);
    item.insert("customer_id".into(), s(c.customer_id.clone()));
    item.insert("email".into(), s(c.email.clone()));
    item.insert("name".into(), s(c.name.clone()));
    item.insert("created_at".into(), s(c.created_at.clone()));
    item
}

/// The floor read: the customer taken apart by hand.
#[inline]
pub fn hand_customer_from_item(mut item: Item) -> Customer {
    assert!(matches!(item.get("entityType"), Some(AttributeValue::S(t)) if t == "Customer"));
    let mut take_s = |name: &str| match item.remove(name) {
        Some(AttributeValue::S(v)) => v,
        other => panic!("{name}: {other:?}"),
    };
    Customer {
        customer_id: take_s("customer_id"),
        email: take_s("email"),
        name: take_s("name"),
        created_at: take_s("created_at"),
    }
}

#[inline]
pub fn serde_dynamo_customer_to_item(c: &Customer) -> Item {
    let mut item: Item = serde_dynamo::to_item(c).expect("serializable");
    customer_keys(c, &mut item);
    item
}

#[inline]
pub fn serde_dynamo_customer_from_item(item: Item) -> Customer {
    assert!(matches!(item.get("entityType"), Some(AttributeValue::S(t)) if t == "Customer"));
    serde_dynamo::from_item(item).expect("deserializable")
}

/// The customer mapper the README's way: its keys declared once in
/// `KEY_PATTERNS`, rendered by the crate (the headline of `mapping.rs` and
/// `instructions.rs`).
pub struct CustomerPatterns;
impl Mapper for CustomerPatterns {
    type Entity = Customer;
    const ENTITY_TYPE: &'static str = "Customer";
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::AsIs;
    const OWNED_ATTRIBUTES: &'static [&'static str] = CustomerMapper::OWNED_ATTRIBUTES;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer_id}"))
            .sort(KeyPattern::sort("METADATA")),
        IndexKeys::index("GSI1", KeyPattern::partition("EMAIL#{email}"))
            .sort(KeyPattern::sort("CUSTOMER#{customer_id}")),
    ];
    #[inline]
    fn after_to_item(_: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("recordType", "Customer");
        Ok(())
    }
}

/// The nested order the README's way: its keys declared once, rendered by
/// the crate (GSI3 is sparse: an order not shipped has no `shipped_at`).
pub struct OrderPatterns;
impl Mapper for OrderPatterns {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::AsIs;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer_id}"))
            .sort(KeyPattern::sort("ORDER#{order_id}")),
        IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
            .sort(KeyPattern::sort("{created_at}")),
        IndexKeys::index("GSI2", KeyPattern::partition("ORDER"))
            .sort(KeyPattern::sort("{created_at}")),
        IndexKeys::index("GSI3", KeyPattern::partition("SHIPPED"))
            .sort(KeyPattern::sort("{shipped_at}")),
    ];
}
