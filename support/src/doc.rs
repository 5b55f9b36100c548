//! The set-up the library's documentation examples share, so each example
//! shows what it is about instead of repeating the same mappers. Here, with
//! the other fixtures, rather than in the library: not part of its API.
//!
//! An example starts with `# use dynamodb_mapper_support::doc::*;` and then
//! has the crate's main names, these entities and their mappers, and
//! [`client`] in scope.

use serde::{Deserialize, Serialize};

pub use aws_sdk_dynamodb::types::AttributeValue;
pub use dynamodb_mapper::{
    Error, ErrorKind, IndexKeys, Item, ItemExt, KeyPattern, Mapper, MapperExt, Record, Registry,
    Result, TableSchema,
};

/// A table with a partition and a sort key, `pk` and `sk`.
pub const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");

/// A note: one item per note in a table with a partition key only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    /// Its number: the key is `NOTE#{id}`.
    pub id: u32,
    /// Its text.
    pub text: String,
}

/// Maps [`Note`]s into a table keyed by `pk` only (`NOTE#{id}`).
#[derive(Debug)]
pub struct NoteMapper;

impl Mapper for NoteMapper {
    type Entity = Note;
    const ENTITY_TYPE: &'static str = "Note";
    const SCHEMA: TableSchema = TableSchema::new("pk");
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("NOTE#{id}"))];
}

/// A customer of the shop: `CUSTOMER#{id}` / `METADATA` in [`TABLE`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Customer {
    /// Its id.
    pub id: String,
}

/// An order of a customer: `CUSTOMER#{customer}` / `ORDER#{id}` in
/// [`TABLE`], so a customer and their orders share a partition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    /// Its id.
    pub id: String,
    /// The customer's id.
    pub customer: String,
}

/// Maps [`Customer`]s.
#[derive(Debug)]
pub struct CustomerMapper;

impl Mapper for CustomerMapper {
    type Entity = Customer;
    const ENTITY_TYPE: &'static str = "Customer";
    const SCHEMA: TableSchema = TABLE;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("CUSTOMER#{id}"))
            .sort(KeyPattern::sort("METADATA"))];
}

/// Maps [`Order`]s; items written as `Purchase` (an older name) are read as
/// orders too.
#[derive(Debug)]
pub struct OrderMapper;

impl Mapper for OrderMapper {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const ALIASES: &'static [&'static str] = &["Purchase"];
    const SCHEMA: TableSchema = TABLE;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[
            IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer}"))
                .sort(KeyPattern::sort("ORDER#{id}")),
        ];
}

/// The shop's entities as one type, for a [`Registry`].
#[derive(Debug, Clone, PartialEq)]
pub enum Entity {
    /// A customer.
    Customer(Customer),
    /// An order.
    Order(Order),
}

/// An invoice: `INVOICE#{id}` / `METADATA` in [`TABLE`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Invoice {
    /// Its id.
    pub id: String,
}

/// A line of an invoice: `INVOICE#{invoice}` / `ITEM#{line:u3}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoiceItem {
    /// The invoice's id.
    pub invoice: String,
    /// Its line number.
    pub line: u32,
}

/// Maps [`Invoice`]s.
#[derive(Debug)]
pub struct InvoiceMapper;

impl Mapper for InvoiceMapper {
    type Entity = Invoice;
    const ENTITY_TYPE: &'static str = "Invoice";
    const SCHEMA: TableSchema = TABLE;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("INVOICE#{id}"))
            .sort(KeyPattern::sort("METADATA"))];
}

/// Maps [`InvoiceItem`]s.
#[derive(Debug)]
pub struct InvoiceItemMapper;

impl Mapper for InvoiceItemMapper {
    type Entity = InvoiceItem;
    const ENTITY_TYPE: &'static str = "InvoiceItem";
    const SCHEMA: TableSchema = TABLE;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("INVOICE#{invoice}"))
            .sort(KeyPattern::sort("ITEM#{line:u3}"))];
}

/// A client for examples that build requests without sending them (no
/// endpoint, no credentials needed).
#[must_use]
pub fn client() -> aws_sdk_dynamodb::Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

/// A [`Table`](dynamodb_mapper::ops::Table) `AppTable` laid out as [`TABLE`], on
/// [`client`].
pub fn table() -> dynamodb_mapper::ops::Table {
    dynamodb_mapper::ops::Table::new(&client(), "AppTable", TABLE)
}

/// What [`Table::create_table`](dynamodb_mapper::ops::Table::create_table)
/// returns for a table `Sessions-…` created with a stream of new and old
/// images and TTL on `expiresAt`, on the test server (the embedded emulator
/// by default, see [`crate::local`]).
///
/// # Panics
/// When the server cannot be started or the table not created.
#[must_use]
pub fn created_table() -> dynamodb_mapper::ops::CreatedTable {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("a tokio runtime: {e}"));
    runtime.block_on(async {
        let client = crate::local::client().await;
        let name = dynamodb_mapper_testkit::unique_table_name("Sessions");
        dynamodb_mapper::ops::Table::new(&client, name, TableSchema::new("pk").ttl("expiresAt"))
            .create_table()
            .stream(aws_sdk_dynamodb::types::StreamViewType::NewAndOldImages)
            .send()
            .await
            .unwrap_or_else(|e| panic!("create table: {e}"))
    })
}
