//! Seed 001's access patterns end to end against DynamoDB Local (started by
//! the testkit, or `DYNAMODB_ENDPOINT`), with exact expected results.

use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::{ItemExt, MapperExt};
use dynamodb_mapper_support::local;
use dynamodb_mapper_support::seed001::{self, *};

async fn setup(prefix: &str) -> (aws_sdk_dynamodb::Client, String, DataSet) {
    let (client, table) = local::client_and_table(prefix, APP_TABLE).await;
    let data = seed001::data_set();
    let written = seed001::write(&client, &table, &data)
        .await
        .expect("write data set");
    assert_eq!(written, 13);
    (client, table, data)
}

fn ids<T>(v: &[T], f: impl Fn(&T) -> &str) -> Vec<String> {
    v.iter().map(|x| f(x).to_owned()).collect()
}

#[tokio::test]
async fn every_seed001_access_pattern() {
    let (c, t, data) = setup("seed001").await;

    // 1. customer by id
    assert_eq!(
        seed001::customer_by_id(&c, &t, "C1").await.unwrap(),
        Some(customer("C1"))
    );
    assert_eq!(seed001::customer_by_id(&c, &t, "C9").await.unwrap(), None);

    // 2. orders of a customer, in sort-key order
    let orders = seed001::orders_of_customer(&c, &t, "C1").await.unwrap();
    assert_eq!(orders, data.orders[..2].to_vec());

    // 3. customer by email (GSI1)
    assert_eq!(
        seed001::customer_by_email(&c, &t, "c2@example.com")
            .await
            .unwrap(),
        vec![customer("C2")]
    );

    // 4. orders by status (GSI1)
    let shipped = seed001::orders_by_status(&c, &t, OrderStatus::Shipped)
        .await
        .unwrap();
    assert_eq!(ids(&shipped, |o| &o.order_id), ["O2"]);
    let pending = seed001::orders_by_status(&c, &t, OrderStatus::Pending)
        .await
        .unwrap();
    assert_eq!(ids(&pending, |o| &o.order_id), ["O1"]);

    // 5. all orders by date, newest first (GSI2)
    let all = seed001::all_orders_newest_first(&c, &t).await.unwrap();
    assert_eq!(ids(&all, |o| &o.order_id), ["O3", "O2", "O1"]);

    // 6. sessions with TTL, and the sparse active-session index
    let sessions = seed001::sessions_of_user(&c, &t, "U1").await.unwrap();
    assert_eq!(ids(&sessions, |s| &s.session_id), ["S0", "S1"]);
    let active = seed001::active_sessions(&c, &t).await.unwrap();
    assert_eq!(ids(&active, |s| &s.session_id), ["S1"]);

    // 7. products under a category; reviews under a product, by user (GSI1), by rating (GSI2)
    let books = seed001::products_in_category(&c, &t, "BOOKS")
        .await
        .unwrap();
    assert_eq!(ids(&books, |p| &p.product_id), ["P1", "P2"]);
    let reviews = seed001::reviews_of_product(&c, &t, "P1").await.unwrap();
    assert_eq!(reviews, data.reviews[..2].to_vec());
    let by_u1 = seed001::reviews_by_user(&c, &t, "U1").await.unwrap();
    assert_eq!(ids(&by_u1, |r| &r.review_id), ["R1", "R3"]);
    let fives = seed001::reviews_with_rating(&c, &t, 5).await.unwrap();
    assert_eq!(ids(&fives, |r| &r.review_id), ["R1"]);

    // 8. conditional keys: active by name, archived by date
    let active = seed001::products_in_state(&c, &t, false).await.unwrap();
    assert_eq!(ids(&active, |p| &p.name), ["Hammer", "Rust in Action"]);
    let archived = seed001::products_in_state(&c, &t, true).await.unwrap();
    assert_eq!(archived, vec![data.products[1].clone()]);

    // 9. sparse shipped-orders index: only shipped orders have GSI3 keys
    let shipped = seed001::shipped_orders(&c, &t).await.unwrap();
    assert_eq!(ids(&shipped, |o| &o.order_id), ["O2", "O3"]);

    // 10. polymorphic partition: Customer and Orders in one query
    let partition = seed001::customer_partition(&c, &t, "C1").await.unwrap();
    assert_eq!(
        partition,
        vec![
            CustomerPartition::Customer(customer("C1")),
            CustomerPartition::Order(data.orders[0].clone()),
            CustomerPartition::Order(data.orders[1].clone()),
        ]
    );
}

#[tokio::test]
async fn lossless_read_modify_write_through_dynamodb() {
    let (c, t, data) = setup("lossless").await;
    let o2 = &data.orders[1];
    let key = OrderMapper::key(o2).unwrap();
    // Another service version adds an attribute this mapper does not know.
    c.update_item()
        .table_name(&t)
        .set_key(Some(key.clone()))
        .update_expression("SET giftNote = :g")
        .expression_attribute_values(":g", AttributeValue::S("happy birthday".into()))
        .send()
        .await
        .unwrap();

    let stored = local::get_item(&c, &t, key.clone()).await.unwrap();
    let mut record = OrderMapper::record_from_item(stored).unwrap();
    assert_eq!(&record.entity, o2);
    assert_eq!(
        record.bag.get("giftNote"),
        Some(&AttributeValue::S("happy birthday".into()))
    );

    // The order goes back to pending: it leaves the sparse shipped index.
    record.entity.status = OrderStatus::Pending;
    record.entity.shipped_at = None;
    record.entity.tracking_number = None;
    let item = OrderMapper::record_to_item(&record).unwrap();
    local::put_item(&c, &t, item).await;

    let raw = local::get_item(&c, &t, key).await.unwrap();
    assert_eq!(raw.get_str("giftNote").unwrap(), "happy birthday");
    assert!(!raw.contains_key("gsi3pk") && !raw.contains_key("gsi3sk"));
    assert_eq!(raw.get_str("gsi1pk").unwrap(), "STATUS#Pending");
    let shipped = seed001::shipped_orders(&c, &t).await.unwrap();
    assert_eq!(
        shipped
            .iter()
            .map(|o| o.order_id.as_str())
            .collect::<Vec<_>>(),
        ["O3"]
    );
}
