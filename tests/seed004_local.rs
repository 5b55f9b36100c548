//! Seed 004 end to end against DynamoDB Local (started by the testkit, or
//! `DYNAMODB_ENDPOINT`): an order with lines, payment and shipment written
//! in one transaction, updated in another, refused in a third, and read back
//! each time as one compound entity from one query, with exact expected
//! results.

use aws_sdk_dynamodb::types::{AttributeValue, TransactWriteItem, Update};
use dynamodb_mapper::expr::{Apply, KeyCondition, attr};
use dynamodb_mapper::ops::{ActionInfo, ActionKind, Table, Transaction};
use dynamodb_mapper::{ErrorDetails, ErrorKind, Mapper, MapperExt, PartitionView};
use dynamodb_mapper_support::requests::offline_client;
use dynamodb_mapper_support::seed004::*;
use dynamodb_mapper_support::{local, problems};
use futures_util::TryStreamExt;

/// The transaction that creates a whole order, as the seed's
/// `DynamoDbTransactions.Write...CommitAsync()`: nothing may exist yet.
fn create_order(table: &Table, full: &FullOrder) -> dynamodb_mapper::Result<Transaction> {
    let mut tx = table.transaction();
    tx = tx.put_new::<OrderMapper>(&full.order)?;
    for line in &full.lines {
        tx = tx.put_new::<OrderLineMapper>(line)?;
    }
    if let Some(p) = &full.payment {
        tx = tx.put_new::<PaymentMapper>(p)?;
    }
    if let Some(s) = &full.shipment {
        tx = tx.put_new::<ShipmentMapper>(s)?;
    }
    Ok(tx)
}

/// The seed's "update order status and create shipment atomically": the
/// order goes from pending to shipped (a raw SDK update, conditioned with
/// the crate's condition builder) and its shipment is created.
fn ship_order(
    table: &Table,
    order: &Order,
    shipment: &Shipment,
) -> dynamodb_mapper::Result<Transaction> {
    let key = OrderMapper::key(order)?;
    let update = Update::builder()
        .table_name(table.name())
        .set_key(Some(key.clone()))
        .update_expression("SET #st = :shipped")
        .expression_attribute_names("#st", "status")
        .expression_attribute_values(":shipped", AttributeValue::S("shipped".into()))
        .apply(attr("status").eq("pending"))?
        .build()
        .expect("update: table, key and expression are set");
    let mut tx = table.transaction();
    tx = tx.push(
        TransactWriteItem::builder().update(update).build(),
        ActionInfo::new(
            ActionKind::Update,
            table.name(),
            OrderMapper::ENTITY_TYPE,
            key,
        ),
    )?;
    tx = tx.put_new::<ShipmentMapper>(shipment)?;
    Ok(tx)
}

#[test]
fn the_order_hierarchy_overlaps_on_purpose() {
    // Without the acknowledgements, building reports every pair of order
    // types, both ways: 12 overlaps under `ORDER#`, and nothing else.
    let found = problems(&builder().build().unwrap_err());
    let sort_key = |t: &str| match t {
        "Order" => ORDER_SK.to_string(),
        "OrderLine" => LINE_SK.to_string(),
        "Payment" => PAYMENT_SK.to_string(),
        _ => SHIPMENT_SK.to_string(),
    };
    let mut expected = Vec::new();
    for q in ORDER_TYPES {
        for r in ORDER_TYPES.into_iter().filter(|r| *r != q) {
            expected.push(format!(
                "table: begins_with(sort key, \"ORDER#\") for {q} (sort key `{}`) also returns {r} \
                 items (sort key `{}`); their partition keys `CUSTOMER#{{customer_id}}` and \
                 `CUSTOMER#{{customer_id}}` can be equal",
                sort_key(q),
                sort_key(r)
            ));
        }
    }
    assert_eq!(found, expected);
    assert_eq!(
        found[0],
        "table: begins_with(sort key, \"ORDER#\") for Order (sort key `ORDER#{order_id}`) also \
         returns OrderLine items (sort key `ORDER#{order_id}#LINE#{line_number:u3}`); their partition \
         keys `CUSTOMER#{customer_id}` and `CUSTOMER#{customer_id}` can be equal"
    );
    // The customer profile (`PROFILE`) overlaps nothing; acknowledged, the
    // design builds.
    let registry = registry().unwrap();
    assert_eq!(
        registry.entity_types(),
        ["Customer", "Order", "OrderLine", "Payment", "Shipment"]
    );

    // Keys as the seed writes them, lines zero-padded.
    let full = seed_order("customer123", "order456");
    let item = OrderLineMapper::to_item(&full.lines[1]).unwrap();
    assert_eq!(item["pk"].as_s().unwrap(), "CUSTOMER#customer123");
    assert_eq!(item["sk"].as_s().unwrap(), "ORDER#order456#LINE#002");
}

#[test]
fn a_transaction_is_checked_before_it_is_sent() {
    let full = seed_order("customer123", "order456");
    let tx = create_order(&Table::new(&offline_client(), "Shop", SHOP_TABLE), &full).unwrap();
    assert_eq!(tx.actions().len(), 4);

    // One action per item.
    let err = tx.clone().put::<OrderMapper>(&full.order).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DuplicateKey);
    assert_eq!(
        err.to_string(),
        r#"TransactWriteItems addresses the item pk="CUSTOMER#customer123", sk="ORDER#order456" twice; nothing was sent"#
    );
    // A line number the three-digit sort key cannot hold.
    let too_far = line(&full.order, 1000, "prod1", "One too many", 1, 1);
    let err = tx.clone().put_new::<OrderLineMapper>(&too_far).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    assert_eq!(err.entity_type(), Some("OrderLine"));
    assert_eq!(
        err.to_string(),
        "OrderLine: key attribute `sk` cannot be rendered: key pattern \
         `ORDER#{order_id}#LINE#{line_number:u3}` value for `{line_number:u3}`: 1000 needs 4 \
         digits, more than the width of 3"
    );
}

#[tokio::test]
async fn an_order_written_in_one_transaction_read_back_from_one_query() {
    let (c, t) = local::client_and_table("seed004-order", SHOP_TABLE).await;
    let registry = registry().unwrap();

    // The customer and an earlier, delivered order, imported in bulk.
    let profile = customer("customer123");
    let mut earlier = seed_order("customer123", "order123");
    earlier.order.status = "delivered".into();
    earlier.lines.truncate(1);
    let mut shipped = shipment(&earlier.order, "1Z999");
    shipped.status = "delivered".into();
    shipped.delivered_at = Some("2024-01-18T11:00:00Z".into());
    earlier.shipment = Some(shipped);
    let mut items = vec![CustomerMapper::to_item(&profile).unwrap()];
    items.push(OrderMapper::to_item(&earlier.order).unwrap());
    items.push(OrderLineMapper::to_item(&earlier.lines[0]).unwrap());
    items.push(PaymentMapper::to_item(earlier.payment.as_ref().unwrap()).unwrap());
    items.push(ShipmentMapper::to_item(earlier.shipment.as_ref().unwrap()).unwrap());
    let written = Table::new(&c, &t, SHOP_TABLE)
        .batch_writer()
        .put_items(items)
        .await
        .unwrap();
    assert_eq!((written.items, written.requests), (5, 1));

    // 1. The seed's order, its two lines and its payment, in one transaction.
    let mut expected = seed_order("customer123", "order456");
    create_order(&Table::new(&c, &t, SHOP_TABLE), &expected)
        .unwrap()
        .send()
        .await
        .unwrap();
    let full = full_order(&c, &t, &registry, "customer123", "order456")
        .await
        .unwrap();
    assert_eq!(full, expected);
    assert_eq!(full.lines.len(), 2);
    assert_eq!(
        full.payment.as_ref().map(|p| p.method.as_str()),
        Some("credit_card")
    );
    assert_eq!(full.shipment, None);
    // The earlier order is its own compound entity, from its own query.
    assert_eq!(
        full_order(&c, &t, &registry, "customer123", "order123")
            .await
            .unwrap(),
        earlier
    );
    // One part alone: the line pattern's prefix with the order bound.
    let prefix = LINE_SK.with("order_id", "order456").prefix().unwrap();
    assert_eq!(prefix, "ORDER#order456#LINE#");
    let key =
        KeyCondition::new(SHOP_TABLE, "CUSTOMER#customer123").and(attr("sk").begins_with(prefix));
    let lines: Vec<OrderLine> = query_once(&c, &t, key)
        .await
        .unwrap()
        .into_iter()
        .map(|i| OrderLineMapper::from_item(i).unwrap())
        .collect();
    assert_eq!(lines, expected.lines);

    // 2. Shipping: status and shipment change together.
    let parcel = shipment(&expected.order, "TRACK123");
    ship_order(&Table::new(&c, &t, SHOP_TABLE), &expected.order, &parcel)
        .unwrap()
        .send()
        .await
        .unwrap();
    expected.order.status = "shipped".into();
    expected.shipment = Some(parcel.clone());
    let full = full_order(&c, &t, &registry, "customer123", "order456")
        .await
        .unwrap();
    assert_eq!(full, expected);

    // 3. Shipping again is refused as a whole: the order is no longer
    //    pending and the shipment exists. Each failed action is named.
    let mut again = parcel.clone();
    again.tracking_number = "TRACK999".into();
    let err = ship_order(&Table::new(&c, &t, SHOP_TABLE), &expected.order, &again)
        .unwrap()
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TransactionCanceled);
    let ErrorDetails::TransactionCanceled { canceled, .. } = err.details() else {
        panic!("{err:?}")
    };
    let reasons: Vec<(usize, ActionKind, &str, [&str; 2], &str)> = canceled
        .iter()
        .map(|c| {
            (
                c.index,
                c.action.kind,
                c.action.entity_type.as_str(),
                [&c.action.key["pk"], &c.action.key["sk"]].map(|v| v.as_s().unwrap().as_str()),
                c.code.as_str(),
            )
        })
        .collect();
    assert_eq!(
        reasons,
        [
            (
                0,
                ActionKind::Update,
                "Order",
                ["CUSTOMER#customer123", "ORDER#order456"],
                "ConditionalCheckFailed"
            ),
            (
                1,
                ActionKind::Put,
                "Shipment",
                ["CUSTOMER#customer123", "ORDER#order456#SHIPMENT"],
                "ConditionalCheckFailed"
            ),
        ]
    );
    // Nothing of it was written.
    let full = full_order(&c, &t, &registry, "customer123", "order456")
        .await
        .unwrap();
    assert_eq!(full, expected);
    assert_eq!(full.shipment.unwrap().tracking_number, "TRACK123");

    // The whole customer partition through the registry, in sort key order.
    let key = KeyCondition::new(SHOP_TABLE, "CUSTOMER#customer123");
    let q = c.query().table_name(&t).apply(key.clone()).unwrap();
    let partition: Vec<ShopItem> = Table::new(&c, &t, SHOP_TABLE)
        .query_stream(q, &registry)
        .map_ok(|d| d.into_entity().expect("an entity"))
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        partition,
        [
            ShopItem::Order(earlier.order.clone()),
            ShopItem::OrderLine(earlier.lines[0].clone()),
            ShopItem::Payment(earlier.payment.clone().unwrap()),
            ShopItem::Shipment(earlier.shipment.clone().unwrap()),
            ShopItem::Order(expected.order.clone()),
            ShopItem::OrderLine(expected.lines[0].clone()),
            ShopItem::OrderLine(expected.lines[1].clone()),
            ShopItem::Payment(expected.payment.clone().unwrap()),
            ShopItem::Shipment(expected.shipment.clone().unwrap()),
            ShopItem::Customer(profile),
        ]
    );

    // Drawn as the seed draws its hierarchy.
    let items = query_once(&c, &t, key).await.unwrap();
    let view = format!("{:.200}", PartitionView::new(&SHOP_TABLE, &items));
    println!("{view}");
    let lines: Vec<&str> = view.lines().collect();
    assert_eq!(lines.len(), 2 + 10);
    let sort_keys: Vec<&str> = lines[2..]
        .iter()
        .map(|l| l.split(" | ").nth(1).unwrap().trim_end())
        .collect();
    assert_eq!(
        sort_keys,
        [
            "ORDER#order123",
            "ORDER#order123#LINE#001",
            "ORDER#order123#PAYMENT",
            "ORDER#order123#SHIPMENT",
            "ORDER#order456",
            "ORDER#order456#LINE#001",
            "ORDER#order456#LINE#002",
            "ORDER#order456#PAYMENT",
            "ORDER#order456#SHIPMENT",
            "PROFILE",
        ]
    );
    assert_eq!(
        lines[8],
        "                     | ORDER#order456#LINE#002 | OrderLine  | customerId=customer123 lineNumber=2 orderId=order456 priceCents=9999 productId=prod101 productName=Gadget Plus quantity=1"
    );
}

#[tokio::test]
async fn order_ids_that_prefix_each_other() {
    // The seed's `StartsWith($"ORDER#{order.OrderId}")` is exact only when
    // no order id is a prefix of another: `ORDER#O1` also selects `O10`.
    let (c, t) = local::client_and_table("seed004-prefix", SHOP_TABLE).await;
    let registry = registry().unwrap();
    let o1 = seed_order("C1", "O1");
    let mut o10 = seed_order("C1", "O10");
    o10.lines.truncate(1);
    o10.payment = None;
    for full in [&o1, &o10] {
        create_order(&Table::new(&c, &t, SHOP_TABLE), full)
            .unwrap()
            .send()
            .await
            .unwrap();
    }

    // Sorted into one compound entity, the mix is an error, not a merge.
    let items = query_once(&c, &t, order_collection("C1", "O1").unwrap())
        .await
        .unwrap();
    assert_eq!(items.len(), 4 + 2);
    let err = assemble(&registry, items).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cardinality);
    assert_eq!(err.to_string(), "Order: expected exactly one item, found 2");
    // `O10` has no longer id under it, so its own read is exact.
    assert_eq!(
        full_order(&c, &t, &registry, "C1", "O10").await.unwrap(),
        o10
    );

    // Exact for any id, in two requests: the header by key, and what is
    // under it by the id's components followed by the delimiter.
    let under = ORDER_SK.with("order_id", "O1").prefix().unwrap();
    assert_eq!(under, "ORDER#O1#");
    let mut items = query_once(
        &c,
        &t,
        KeyCondition::new(SHOP_TABLE, "CUSTOMER#C1").and(attr("sk").begins_with(under)),
    )
    .await
    .unwrap();
    let header = local::get_item(&c, &t, OrderMapper::key(&o1.order).unwrap())
        .await
        .expect("the O1 header");
    items.insert(0, header);
    assert_eq!(assemble(&registry, items).unwrap(), o1);
}
