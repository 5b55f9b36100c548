//! A text view of items grouped by partition key, drawn the way single-table
//! design guides draw their tables. For examples, tests and debugging.

use std::fmt;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::item::Item;
use crate::schema::TableSchema;

/// Items rendered as a table: partition key (once per partition), sort key,
/// entity type, then the other attributes as `name=value`, abbreviated.
///
/// Rows are sorted by partition key, then sort key (as text).
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::{Item, PartitionView, TableSchema};
///
/// const T: TableSchema = TableSchema::new("pk").sort_key("sk");
/// let s = |v: &str| AttributeValue::S(v.into());
/// let items = vec![
///     Item::from([("pk".into(), s("CUSTOMER#C1")), ("sk".into(), s("ORDER#O1")),
///                 ("entityType".into(), s("Order")), ("total".into(), AttributeValue::N("25".into()))]),
///     Item::from([("pk".into(), s("CUSTOMER#C1")), ("sk".into(), s("METADATA")),
///                 ("entityType".into(), s("Customer")), ("name".into(), s("Ada"))]),
/// ];
/// let text = PartitionView::new(&T, &items).to_string();
/// assert_eq!(text, "\
/// pk          | sk       | entityType | attributes
/// ------------+----------+------------+-----------
/// CUSTOMER#C1 | METADATA | Customer   | name=Ada
///             | ORDER#O1 | Order      | total=25
/// ");
/// ```
#[derive(Debug, Clone)]
pub struct PartitionView<'a> {
    schema: &'a TableSchema,
    items: &'a [Item],
}

impl<'a> PartitionView<'a> {
    /// A view of `items` laid out by `schema`'s key and discriminator names.
    ///
    /// ```
    /// # use dynamodb_mapper::{PartitionView, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk");
    /// let view = PartitionView::new(&T, &[]);
    /// assert_eq!(view.to_string(), "pk | entityType | attributes\n---+------------+-----------\n");
    /// ```
    #[must_use]
    pub fn new(schema: &'a TableSchema, items: &'a [Item]) -> Self {
        PartitionView { schema, items }
    }
}

/// A compact rendering of a value: strings and numbers as they are, lists and
/// maps by size.
fn compact(value: &AttributeValue) -> String {
    match value {
        AttributeValue::S(s) => s.clone(),
        AttributeValue::N(n) => n.clone(),
        AttributeValue::Bool(b) => b.to_string(),
        AttributeValue::Null(_) => "null".into(),
        AttributeValue::B(b) => format!("<{} bytes>", b.as_ref().len()),
        AttributeValue::L(l) => format!("[{} items]", l.len()),
        AttributeValue::M(m) => format!("{{{} keys}}", m.len()),
        AttributeValue::Ss(s) => format!("<{} strings>", s.len()),
        AttributeValue::Ns(n) => format!("<{} numbers>", n.len()),
        AttributeValue::Bs(b) => format!("<{} binaries>", b.len()),
        _ => "<unknown>".into(),
    }
}

fn abbreviate(text: String, width: usize) -> String {
    if text.chars().count() <= width {
        return text;
    }
    let mut out: String = text.chars().take(width - 1).collect();
    out.push('…');
    out
}

impl fmt::Display for PartitionView<'_> {
    /// The table, each cell abbreviated to at most 60 characters, or to
    /// the precision given (at least 2).
    ///
    /// ```
    /// # use aws_sdk_dynamodb::types::AttributeValue;
    /// # use dynamodb_mapper::{Item, PartitionView, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk").without_discriminator();
    /// let items = [Item::from([("pk".into(), AttributeValue::S("ABCDEFGHIJ".into()))])];
    /// let text = format!("{:.5}", PartitionView::new(&T, &items));
    /// assert!(text.contains("ABCD…"));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = f.precision().unwrap_or(60).max(2);
        let pk = self.schema.partition_key.name;
        let sk = self.schema.sort_key.map(|k| k.name);
        let disc = self.schema.discriminator.unwrap_or("entityType");
        let mut header = vec![pk];
        header.extend(sk);
        header.push(disc);
        header.push("attributes");

        let cell = |item: &Item, name: &str| item.get(name).map(compact).unwrap_or_default();
        let mut rows: Vec<(String, String, Vec<String>)> = self
            .items
            .iter()
            .map(|item| {
                let mut others: Vec<(&String, &AttributeValue)> = item
                    .iter()
                    .filter(|(k, _)| {
                        k.as_str() != pk && Some(k.as_str()) != sk && k.as_str() != disc
                    })
                    .collect();
                others.sort_by(|a, b| a.0.cmp(b.0));
                let attrs = others
                    .iter()
                    .map(|(k, v)| format!("{k}={}", compact(v)))
                    .collect::<Vec<_>>()
                    .join(" ");
                let mut cells = Vec::with_capacity(4);
                let pk_value = cell(item, pk);
                let sk_value = sk.map(|s| cell(item, s)).unwrap_or_default();
                cells.push(abbreviate(pk_value.clone(), width));
                if sk.is_some() {
                    cells.push(abbreviate(sk_value.clone(), width));
                }
                cells.push(abbreviate(cell(item, disc), width));
                cells.push(abbreviate(attrs, width));
                (pk_value, sk_value, cells)
            })
            .collect();
        rows.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        // The partition key is shown once per partition.
        for i in (1..rows.len()).rev() {
            if rows[i].0 == rows[i - 1].0 {
                rows[i].2[0].clear();
            }
        }

        let columns = header.len();
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
        for (_, _, cells) in &rows {
            for (w, c) in widths.iter_mut().zip(cells) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |f: &mut fmt::Formatter<'_>, cells: &[&str]| -> fmt::Result {
            for (i, c) in cells.iter().enumerate() {
                if i + 1 == columns {
                    writeln!(f, "{c}")?;
                } else {
                    write!(f, "{c:<w$} | ", w = widths[i])?;
                }
            }
            Ok(())
        };
        line(f, &header)?;
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        writeln!(f, "{}", rule.join("-+-"))?;
        for (_, _, cells) in &rows {
            let refs: Vec<&str> = cells.iter().map(String::as_str).collect();
            // Trailing spaces of an empty last cell are trimmed by `line`.
            line(f, &refs)?;
        }
        Ok(())
    }
}
