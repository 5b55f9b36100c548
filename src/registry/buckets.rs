//! Compound reads: [`Buckets`] sorts the items of one query by
//! discriminator value, so each entity type is taken as its own type, and
//! checks that none is left unclaimed.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Result};
use crate::item::{Item, drop_item};
use crate::mapper::{Mapper, MapperExt};

/// Items sorted by discriminator value, for a compound read: from one query
/// of a partition, take the one `Invoice`, all its `InvoiceItem`s, its
/// optional summary, each as its own type, then check nothing is left.
///
/// Each take claims the items of the mapper's entity type and of its
/// aliases (in item order); [`finish`](Self::finish) fails if any item was
/// not claimed, and [`into_remaining`](Self::into_remaining) hands them back.
///
/// ```
/// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
/// # use serde::{Deserialize, Serialize};
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::Buckets;
///
/// struct FullInvoice {
///     invoice: Invoice,
///     items: Vec<InvoiceItem>,
/// }
///
/// // What `Query pk = INVOICE#123` returns, in sort key order.
/// let items = vec![
///     InvoiceItemMapper::to_item(&InvoiceItem { invoice: "123".into(), line: 1 })?,
///     InvoiceItemMapper::to_item(&InvoiceItem { invoice: "123".into(), line: 2 })?,
///     InvoiceMapper::to_item(&Invoice { id: "123".into() })?,
/// ];
/// let mut parts = Buckets::by_discriminator(items, "entityType");
/// let full = FullInvoice {
///     invoice: parts.one::<InvoiceMapper>()?,
///     items: parts.many::<InvoiceItemMapper>()?,
/// };
/// parts.finish()?;
/// assert_eq!(full.invoice.id, "123");
/// assert_eq!(full.items.len(), 2);
///
/// let mut empty = Buckets::by_discriminator(Vec::new(), "entityType");
/// assert_eq!(
///     empty.one::<InvoiceMapper>().unwrap_err().to_string(),
///     "Invoice: expected exactly one item, found 0"
/// );
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct Buckets {
    attribute: String,
    buckets: Vec<Bucket>,
}

#[derive(Debug, Clone, PartialEq)]
struct Bucket {
    value: Option<String>,
    /// Items with their position in the input.
    items: Vec<(usize, Item)>,
}

/// The items left are dropped without recursion: they were never checked,
/// and one nested deeper than DynamoDB allows would overflow the stack in
/// the derived `Drop`.
impl Drop for Buckets {
    fn drop(&mut self) {
        for bucket in self.buckets.drain(..) {
            drop_items(bucket.items);
        }
    }
}

fn drop_items(items: Vec<(usize, Item)>) {
    for (_, item) in items {
        drop_item(item);
    }
}

impl Buckets {
    /// Sorts items by the string value of their `attribute` (items without
    /// it, or with a non-string value, go together), keeping their order.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Buckets, ErrorDetails, Item};
    ///
    /// let item = |t: &str| Item::from([("entityType".to_string(), AttributeValue::S(t.into()))]);
    /// let parts = Buckets::by_discriminator(vec![item("A"), item("B"), item("A"), Item::new()], "entityType");
    /// let err = parts.finish().unwrap_err(); // nothing was claimed
    /// let ErrorDetails::UnclaimedItems { counts, .. } = err.details() else { panic!("{err}") };
    /// assert_eq!(counts, &[(Some("A".into()), 2), (Some("B".into()), 1), (None, 1)]);
    /// ```
    pub fn by_discriminator(items: impl IntoIterator<Item = Item>, attribute: &str) -> Self {
        let mut buckets: Vec<Bucket> = Vec::new();
        for (seq, item) in items.into_iter().enumerate() {
            let (position, new_value) = {
                let value = match item.get(attribute) {
                    Some(AttributeValue::S(s)) => Some(s.as_str()),
                    _ => None,
                };
                let position = buckets.iter().position(|b| b.value.as_deref() == value);
                (position, value.map(str::to_owned))
            };
            match position.and_then(|p| buckets.get_mut(p)) {
                Some(bucket) => bucket.items.push((seq, item)),
                None => buckets.push(Bucket {
                    value: new_value,
                    items: vec![(seq, item)],
                }),
            }
        }
        Buckets {
            attribute: attribute.to_owned(),
            buckets,
        }
    }

    /// Takes the items of `M`'s entity type and aliases, in input order.
    fn take<M: Mapper>(&mut self) -> Vec<Item> {
        let mut taken: Vec<(usize, Item)> = Vec::new();
        let mut sources = 0;
        self.buckets.retain_mut(|b| {
            let mine = b
                .value
                .as_deref()
                .is_some_and(|v| v == M::ENTITY_TYPE || M::ALIASES.contains(&v));
            if mine {
                sources += 1;
                taken.append(&mut b.items);
            }
            !mine
        });
        if sources > 1 {
            taken.sort_by_key(|(seq, _)| *seq);
        }
        taken.into_iter().map(|(_, item)| item).collect()
    }

    /// Takes the one item of `M`'s entity type (or an alias) and reads it.
    ///
    /// # Errors
    /// [`ErrorKind::Cardinality`](crate::ErrorKind::Cardinality) when there is
    /// none or more than one; the mapper's errors.
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::Buckets;
    ///
    /// let invoice = InvoiceMapper::to_item(&Invoice { id: "1".into() })?;
    /// let mut parts = Buckets::by_discriminator(vec![invoice.clone(), invoice], "entityType");
    /// assert_eq!(
    ///     parts.one::<InvoiceMapper>().unwrap_err().to_string(),
    ///     "Invoice: expected exactly one item, found 2"
    /// );
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn one<M: Mapper>(&mut self) -> Result<M::Entity> {
        let mut items = self.take::<M>();
        let found = items.len();
        match (items.pop(), found) {
            (Some(item), 1) => M::from_item(item),
            (last, _) => {
                items.extend(last);
                items.into_iter().for_each(drop_item);
                Err(Error::cardinality("exactly one", found).with_entity_type(M::ENTITY_TYPE))
            }
        }
    }

    /// Takes the item of `M`'s entity type (or an alias), if there is one,
    /// and reads it.
    ///
    /// # Errors
    /// [`ErrorKind::Cardinality`](crate::ErrorKind::Cardinality) when there is
    /// more than one; the mapper's errors.
    ///
    /// ```
    /// # use dynamodb_mapper::MapperExt;
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)] struct Summary { total: u32 }
    /// # struct SummaryMapper;
    /// # impl Mapper for SummaryMapper {
    /// #     type Entity = Summary;
    /// #     const ENTITY_TYPE: &'static str = "InvoiceSummary";
    /// #     const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// #     fn after_to_item(_: &Summary, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         item.put_str("pk", "INVOICE#1");
    /// #         item.put_str("sk", "SUMMARY");
    /// #         Ok(())
    /// #     }
    /// # }
    /// use dynamodb_mapper::Buckets;
    ///
    /// let mut parts = Buckets::by_discriminator(Vec::new(), "entityType");
    /// assert_eq!(parts.optional::<SummaryMapper>()?, None);
    /// let summary = SummaryMapper::to_item(&Summary { total: 3 })?;
    /// let mut parts = Buckets::by_discriminator(vec![summary], "entityType");
    /// assert_eq!(parts.optional::<SummaryMapper>()?, Some(Summary { total: 3 }));
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn optional<M: Mapper>(&mut self) -> Result<Option<M::Entity>> {
        let mut items = self.take::<M>();
        let found = items.len();
        match (items.pop(), found) {
            (None, _) => Ok(None),
            (Some(item), 1) => M::from_item(item).map(Some),
            (Some(last), _) => {
                items.push(last);
                items.into_iter().for_each(drop_item);
                Err(Error::cardinality("at most one", found).with_entity_type(M::ENTITY_TYPE))
            }
        }
    }

    /// Takes every item of `M`'s entity type (or an alias), in input order,
    /// and reads them.
    ///
    /// # Errors
    /// The mapper's errors.
    ///
    /// ```
    /// # use dynamodb_mapper::MapperExt;
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)] struct Line { n: u32 }
    /// # struct LineMapper;
    /// # impl Mapper for LineMapper {
    /// #     type Entity = Line;
    /// #     const ENTITY_TYPE: &'static str = "InvoiceItem";
    /// #     const ALIASES: &'static [&'static str] = &["InvoiceLine"];
    /// #     const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// #     fn after_to_item(l: &Line, item: &mut Item) -> dynamodb_mapper::Result<()> {
    /// #         item.put_str("pk", "INVOICE#1");
    /// #         item.put_str("sk", format!("ITEM#{:03}", l.n));
    /// #         Ok(())
    /// #     }
    /// # }
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::Buckets;
    ///
    /// let mut old = LineMapper::to_item(&Line { n: 1 })?;
    /// old.insert("entityType".into(), AttributeValue::S("InvoiceLine".into())); // alias
    /// let new = LineMapper::to_item(&Line { n: 2 })?;
    /// let mut parts = Buckets::by_discriminator(vec![old, new], "entityType");
    /// assert_eq!(parts.many::<LineMapper>()?, vec![Line { n: 1 }, Line { n: 2 }]);
    /// parts.finish()?; // every item was claimed
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn many<M: Mapper>(&mut self) -> Result<Vec<M::Entity>> {
        let mut items = self.take::<M>().into_iter();
        let mut entities = Vec::with_capacity(items.len());
        while let Some(item) = items.next() {
            match M::from_item(item) {
                Ok(entity) => entities.push(entity),
                Err(e) => {
                    // The rest unread, dropped without recursion.
                    items.for_each(drop_item);
                    return Err(e);
                }
            }
        }
        Ok(entities)
    }

    /// Whether every item has been claimed.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.buckets.iter().all(|b| b.items.is_empty())
    }

    /// Checks that every item was claimed.
    ///
    /// # Errors
    /// [`ErrorKind::UnclaimedItems`](crate::ErrorKind::UnclaimedItems) with the
    /// unclaimed items by discriminator value.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{Buckets, Item};
    ///
    /// let note = Item::from([("entityType".to_string(), AttributeValue::S("Note".into()))]);
    /// let parts = Buckets::by_discriminator(vec![note, Item::new()], "entityType");
    /// assert_eq!(
    ///     parts.finish().unwrap_err().to_string(),
    ///     "2 items were not claimed: 1 of \"Note\", 1 without discriminator `entityType`"
    /// );
    /// ```
    pub fn finish(mut self) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        let mut counts = Vec::new();
        for bucket in std::mem::take(&mut self.buckets) {
            if !bucket.items.is_empty() {
                counts.push((bucket.value, bucket.items.len()));
                drop_items(bucket.items);
            }
        }
        Err(Error::unclaimed_items(
            std::mem::take(&mut self.attribute),
            counts,
        ))
    }

    /// The unclaimed items, in input order.
    ///
    /// ```
    /// use dynamodb_mapper::{Buckets, Item};
    ///
    /// let parts = Buckets::by_discriminator(vec![Item::new()], "entityType");
    /// assert_eq!(parts.into_remaining(), vec![Item::new()]);
    /// ```
    #[must_use]
    pub fn into_remaining(mut self) -> Vec<Item> {
        let mut all: Vec<(usize, Item)> = std::mem::take(&mut self.buckets)
            .into_iter()
            .flat_map(|b| b.items)
            .collect();
        all.sort_by_key(|(seq, _)| *seq);
        all.into_iter().map(|(_, item)| item).collect()
    }
}
