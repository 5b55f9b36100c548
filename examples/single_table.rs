//! The tour: seed 001's single-table design end to end.
//!
//! Creates a table (pk/sk, GSI1, GSI2, and a sparse GSI3), writes customers,
//! orders, sessions, products and reviews through their mappers, runs every
//! access pattern with the plain SDK and prints what it found, reads a mixed
//! partition through the registry, does a lossless read-modify-write, and
//! prints the table.
//!
//! ```text
//! cargo run --example single_table
//! ```
//!
//! With no configuration it starts DynamoDB Local through the testkit (Java 17+
//! and npm needed); `DYNAMODB_ENDPOINT=http://localhost:8000` points it at a
//! running endpoint instead. Exits non-zero on any failure.

use std::process::ExitCode;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::{MapperExt, PartitionView};
// The domain structs and mappers, the data set and the access patterns come
// from the test support crate (support/src/seed001/), shared with the
// integration tests, which assert exactly what this tour prints.
use dynamodb_mapper_support::BoxError;
use dynamodb_mapper_support::local;
use dynamodb_mapper_support::seed001::{self, *};

#[tokio::main]
async fn main() -> ExitCode {
    match tour().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tour failed: {e}");
            let mut source = e.source();
            while let Some(cause) = source {
                eprintln!("  caused by: {cause}");
                source = cause.source();
            }
            ExitCode::FAILURE
        }
    }
}

fn list<T>(things: &[T], f: impl Fn(&T) -> String) -> String {
    things.iter().map(f).collect::<Vec<_>>().join(", ")
}

async fn tour() -> Result<(), BoxError> {
    if std::env::var_os("DYNAMODB_ENDPOINT").is_none() {
        println!("Starting DynamoDB Local (set DYNAMODB_ENDPOINT to use a running one)...");
    }
    let local = dynamodb_mapper_testkit::shared().await?;
    println!("DynamoDB endpoint: {}", local.endpoint());
    let c = local.client();
    let t = dynamodb_mapper_testkit::unique_table_name("tour");

    local::create_table(&c, &t, APP_TABLE).await?;
    println!("Created table {t} with GSI1, GSI2 and GSI3 (on-demand)\n");

    let data = seed001::data_set();
    let written = seed001::write(&c, &t, &data).await?;
    println!("Wrote {written} items through their mappers\n");

    println!("Access patterns");
    let ada = seed001::customer_by_id(&c, &t, "C1")
        .await?
        .ok_or("customer C1 not found")?;
    println!(
        "  1. customer by id C1:          {} <{}>",
        ada.name, ada.email
    );
    let orders = seed001::orders_of_customer(&c, &t, "C1").await?;
    println!(
        "  2. orders of C1:               {}",
        list(&orders, |o| format!(
            "{} ({:?}, {} cents)",
            o.order_id, o.status, o.total_cents
        ))
    );
    let by_email = seed001::customer_by_email(&c, &t, "c2@example.com").await?;
    println!(
        "  3. customer by email (GSI1):   {}",
        list(&by_email, |c| c.customer_id.clone())
    );
    let shipped = seed001::orders_by_status(&c, &t, OrderStatus::Shipped).await?;
    println!(
        "  4. shipped orders (GSI1):      {}",
        list(&shipped, |o| o.order_id.clone())
    );
    let all = seed001::all_orders_newest_first(&c, &t).await?;
    println!(
        "  5. all orders, newest first:   {}",
        list(&all, |o| format!("{} {}", o.order_id, o.created_at))
    );
    let sessions = seed001::sessions_of_user(&c, &t, "U1").await?;
    let active = seed001::active_sessions(&c, &t).await?;
    println!(
        "  6. sessions of U1:             {} (active via sparse GSI1: {})",
        list(&sessions, |s| format!(
            "{} ttl={}",
            s.session_id, s.expires_at
        )),
        list(&active, |s| s.session_id.clone())
    );
    let books = seed001::products_in_category(&c, &t, "BOOKS").await?;
    let reviews = seed001::reviews_of_product(&c, &t, "P1").await?;
    let by_u1 = seed001::reviews_by_user(&c, &t, "U1").await?;
    let fives = seed001::reviews_with_rating(&c, &t, 5).await?;
    println!(
        "  7. products in BOOKS:          {}",
        list(&books, |p| p.name.clone())
    );
    println!(
        "     reviews of P1:              {}",
        list(&reviews, |r| format!("{} {}*", r.review_id, r.rating))
    );
    println!(
        "     reviews by U1 (GSI1):       {}",
        list(&by_u1, |r| r.review_id.clone())
    );
    println!(
        "     5-star reviews (GSI2):      {}",
        list(&fives, |r| r.review_id.clone())
    );
    let active_products = seed001::products_in_state(&c, &t, false).await?;
    let archived = seed001::products_in_state(&c, &t, true).await?;
    println!(
        "  8. active products (GSI1):     {}",
        list(&active_products, |p| p.name.clone())
    );
    println!(
        "     archived products (GSI1):   {}",
        list(&archived, |p| format!(
            "{} at {}",
            p.name,
            p.archived_at.as_deref().unwrap_or("?")
        ))
    );
    let shipped_idx = seed001::shipped_orders(&c, &t).await?;
    println!(
        "  9. sparse shipped index (GSI3): {}",
        list(&shipped_idx, |o| format!(
            "{} {}",
            o.order_id,
            o.tracking_number.as_deref().unwrap_or("")
        ))
    );
    let partition = seed001::customer_partition(&c, &t, "C1").await?;
    println!(
        " 10. mixed partition CUSTOMER#C1: {}",
        list(&partition, |e| match e {
            CustomerPartition::Customer(c) => format!("Customer {}", c.customer_id),
            CustomerPartition::Order(o) => format!("Order {}", o.order_id),
        })
    );

    println!("\nLossless read-modify-write");
    let key = OrderMapper::key(&data.orders[1])?;
    c.update_item()
        .table_name(&t)
        .set_key(Some(key.clone()))
        .update_expression("SET giftNote = :g")
        .expression_attribute_values(":g", AttributeValue::S("happy birthday".into()))
        .send()
        .await?;
    let stored = c
        .get_item()
        .table_name(&t)
        .set_key(Some(key))
        .send()
        .await?
        .item
        .ok_or("order O2 not found")?;
    let mut record = OrderMapper::record_from_item(stored)?;
    println!(
        "  read O2 with unknown attributes kept: {:?}",
        record.bag.iter().map(|(k, _)| k).collect::<Vec<_>>()
    );
    record.entity.status = OrderStatus::Pending;
    record.entity.shipped_at = None;
    record.entity.tracking_number = None;
    c.put_item()
        .table_name(&t)
        .set_item(Some(OrderMapper::record_to_item(&record)?))
        .send()
        .await?;
    let shipped_idx = seed001::shipped_orders(&c, &t).await?;
    println!(
        "  O2 back to Pending: giftNote kept, left the sparse shipped index (now: {})",
        list(&shipped_idx, |o| o.order_id.clone())
    );

    println!("\nThe table");
    let mut items = Vec::new();
    let mut pages = c.scan().table_name(&t).into_paginator().send();
    while let Some(page) = pages.next().await {
        items.extend(page?.items.unwrap_or_default());
    }
    print!("{}", PartitionView::new(&APP_TABLE, &items).max_width(48));

    c.delete_table().table_name(&t).send().await?;
    println!("\nDeleted table {t}. Tour complete.");
    Ok(())
}
