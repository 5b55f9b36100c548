//! Seed 004's invoices: a partition per invoice holding the `Invoice`
//! header, its `InvoiceItem`s, its `InvoiceStatus` history and an optional
//! `InvoiceSummary`, read back as one compound entity (the registry tests
//! assemble it with `Buckets`).
//!
//! | entity         | pk             | sk                     |
//! |----------------|----------------|------------------------|
//! | Invoice        | `INVOICE#<id>` | `METADATA`             |
//! | InvoiceItem    | `INVOICE#<id>` | `ITEM#<nnn>`           |
//! | InvoiceStatus  | `INVOICE#<id>` | `STATUS#<timestamp>`   |
//! | InvoiceSummary | `INVOICE#<id>` | `SUMMARY`              |

use dynamodb_mapper::ItemExt;
use dynamodb_mapper::{
    AccessPattern, IndexKeys, Item, KeyPattern, Mapper, NamingConvention, Registry, Result,
    TableSchema,
};
use serde::{Deserialize, Serialize};

/// Seed 004's invoice table: `pk = INVOICE#<id>`, `sk` per item kind.
pub const INVOICE_TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");

pub fn invoice_pk(invoice_id: &str) -> String {
    format!("INVOICE#{invoice_id}")
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Invoice {
    pub invoice_id: String,
    pub customer_id: String,
    pub invoice_date: String,
    pub total_cents: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoiceItem {
    pub invoice_id: String,
    pub line_number: u32,
    pub product_id: String,
    pub description: String,
    pub quantity: u32,
    pub unit_price_cents: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoiceStatus {
    pub invoice_id: String,
    pub status: String,
    pub timestamp: String,
    pub changed_by: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvoiceSummary {
    pub invoice_id: String,
    pub total_cents: u64,
    pub item_count: u32,
}

const INVOICE_PK: KeyPattern = KeyPattern::partition("INVOICE#{invoice_id}");
/// Line numbers zero-padded to three digits, longer ones as they are.
const ITEM_SK: KeyPattern = KeyPattern::sort("ITEM#{line_number}");

/// `sk = METADATA`.
pub struct InvoiceMapper;

impl Mapper for InvoiceMapper {
    type Entity = Invoice;
    const ENTITY_TYPE: &'static str = "Invoice";
    const SCHEMA: TableSchema = INVOICE_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(INVOICE_PK).sort(KeyPattern::sort("METADATA"))];
}

/// `sk = ITEM#<line, 3 digits>` (written by the hook: the padding is not
/// a key encoding); items written before the rename say `InvoiceLine`.
pub struct InvoiceItemMapper;

impl Mapper for InvoiceItemMapper {
    type Entity = InvoiceItem;
    const ENTITY_TYPE: &'static str = "InvoiceItem";
    const ALIASES: &'static [&'static str] = &["InvoiceLine"];
    const SCHEMA: TableSchema = INVOICE_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(INVOICE_PK).sort(ITEM_SK).by_hook()];

    fn after_to_item(i: &InvoiceItem, item: &mut Item) -> Result<()> {
        let pk = INVOICE_PK.with("invoice_id", i.invoice_id.as_str());
        item.put_str("pk", pk.render()?);
        let line = format!("{:03}", i.line_number);
        item.put_str("sk", ITEM_SK.with("line_number", line.as_str()).render()?);
        Ok(())
    }
}

/// `sk = STATUS#<timestamp>`.
pub struct InvoiceStatusMapper;

impl Mapper for InvoiceStatusMapper {
    type Entity = InvoiceStatus;
    const ENTITY_TYPE: &'static str = "InvoiceStatus";
    const SCHEMA: TableSchema = INVOICE_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(INVOICE_PK).sort(KeyPattern::sort("STATUS#{timestamp}"))];
}

/// `sk = SUMMARY`.
pub struct InvoiceSummaryMapper;

impl Mapper for InvoiceSummaryMapper {
    type Entity = InvoiceSummary;
    const ENTITY_TYPE: &'static str = "InvoiceSummary";
    const SCHEMA: TableSchema = INVOICE_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(INVOICE_PK).sort(KeyPattern::sort("SUMMARY"))];
}

/// One item of an invoice's partition.
#[derive(Debug, Clone, PartialEq)]
pub enum InvoicePart {
    Invoice(Invoice),
    Item(InvoiceItem),
    Status(InvoiceStatus),
    Summary(InvoiceSummary),
}

/// The invoice reads, proven when [`registry`] is built.
pub const ACCESS_PATTERNS: [AccessPattern; 5] = [
    AccessPattern::new("invoice", &["Invoice"]).by(&["invoice_id"]),
    AccessPattern::new("items of an invoice", &["InvoiceItem"]).by(&["invoice_id"]),
    AccessPattern::new(
        "status history of an invoice, newest first",
        &["InvoiceStatus"],
    )
    .by(&["invoice_id"])
    .sort_by("timestamp")
    .descending(),
    AccessPattern::new("summary of an invoice", &["InvoiceSummary"]).by(&["invoice_id"]),
    AccessPattern::new(
        "whole invoice",
        &["Invoice", "InvoiceItem", "InvoiceStatus", "InvoiceSummary"],
    )
    .by(&["invoice_id"]),
];

/// The invoice mappers and their access patterns.
pub fn registry() -> Result<Registry<InvoicePart>> {
    ACCESS_PATTERNS
        .iter()
        .fold(
            Registry::builder()
                .register::<InvoiceMapper>(InvoicePart::Invoice)
                .register::<InvoiceItemMapper>(InvoicePart::Item)
                .register::<InvoiceStatusMapper>(InvoicePart::Status)
                .register::<InvoiceSummaryMapper>(InvoicePart::Summary),
            |b, p| b.access_pattern(*p),
        )
        .build()
}

pub fn invoice(id: &str) -> Invoice {
    Invoice {
        invoice_id: id.into(),
        customer_id: "C1".into(),
        invoice_date: "2024-03-01".into(),
        total_cents: 2 * 1250 + 499,
    }
}

pub fn invoice_item(
    invoice_id: &str,
    line: u32,
    quantity: u32,
    unit_price_cents: u64,
) -> InvoiceItem {
    InvoiceItem {
        invoice_id: invoice_id.into(),
        line_number: line,
        product_id: format!("P{line}"),
        description: format!("Product {line}"),
        quantity,
        unit_price_cents,
    }
}

pub fn invoice_status(invoice_id: &str, status: &str, timestamp: &str) -> InvoiceStatus {
    InvoiceStatus {
        invoice_id: invoice_id.into(),
        status: status.into(),
        timestamp: timestamp.into(),
        changed_by: "system".into(),
    }
}

pub fn invoice_summary(invoice_id: &str) -> InvoiceSummary {
    InvoiceSummary {
        invoice_id: invoice_id.into(),
        total_cents: 2 * 1250 + 499,
        item_count: 2,
    }
}
