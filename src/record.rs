//! Lossless records: an entity together with the attributes its mapper does
//! not own, so a read-modify-write keeps what the mapper does not know.

use crate::item::Item;

/// An entity read losslessly: the entity, the bag of attributes
/// its mapper does not own, and the version read (when the table has a
/// version attribute).
///
/// Produced by [`MapperExt::record_from_item`](crate::MapperExt::record_from_item)
/// and written back by [`MapperExt::record_to_item`](crate::MapperExt::record_to_item).
///
/// ```
/// use dynamodb_mapper::Record;
///
/// let record = Record::new("an entity");
/// assert!(record.bag.is_empty());
/// assert_eq!(record.version, None);
/// assert!(!record.stored);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Record<E> {
    /// The entity.
    pub entity: E,
    /// The bag: the attributes of the stored item that its mapper does not
    /// own. A mapper owns its entity's fields (after renaming), the table's
    /// key and index attributes, the discriminator, TTL and version
    /// attributes, and those it declares in
    /// [`Mapper::OWNED_ATTRIBUTES`](crate::Mapper::OWNED_ATTRIBUTES).
    /// Everything else, such as attributes written by a newer version of
    /// the service, lands here on a lossless read and is merged back on
    /// write; the mapper's own attributes always win, and owned attributes
    /// never come back through the bag.
    pub bag: Item,
    /// The version attribute as read, if the table has one and the item held it.
    pub version: Option<u64>,
    /// Whether the record was read from the table (an item existed). A
    /// versioned write of a record that was read but holds no version (an
    /// item written before the table was versioned) adopts the item: it
    /// expects the item to exist still without a version, and gives it one.
    /// A record that was not read expects no item at all.
    pub stored: bool,
    /// The projection the record was read through, if any: it lacks what
    /// the projection left out, so it is never written back whole.
    projection: Option<Box<str>>,
    /// The values of the mapper's unique constraints as read (their stored
    /// attributes only), when it has any: the sentinels a write of the
    /// record replaces.
    unique: Option<Box<Item>>,
}

impl<E> Record<E> {
    /// A record of a new entity: empty bag, no version, not stored.
    ///
    /// ```
    /// let r = dynamodb_mapper::Record::new(5_u8);
    /// assert_eq!(r.entity, 5);
    /// ```
    #[must_use]
    pub fn new(entity: E) -> Self {
        Record {
            entity,
            bag: Item::new(),
            version: None,
            stored: false,
            projection: None,
            unique: None,
        }
    }

    /// A record as read from the table: the entity, its bag and the version
    /// read (if any), marked as stored. [`MapperExt::record_from_item`](crate::MapperExt::record_from_item)
    /// builds records this way.
    #[must_use]
    pub(crate) fn stored(entity: E, bag: Item, version: Option<u64>) -> Self {
        Record {
            entity,
            bag,
            version,
            stored: true,
            projection: None,
            unique: None,
        }
    }

    /// The projection the record was read through (its attribute names,
    /// as read), `None` for a whole item. Such a record holds only what the
    /// projection asked for: a whole-item write of it
    /// ([`record_to_item`](crate::MapperExt::record_to_item), and so
    /// [`Table::put_record`](crate::ops::Table::put_record) and
    /// [`Transaction::put_record`](crate::ops::Transaction::put_record)) is
    /// refused with [`ErrorKind::PartialRecord`](crate::ErrorKind::PartialRecord),
    /// as it would drop the rest. Update the fields it holds with
    /// [`Table::update_record`](crate::ops::Table::update_record), or
    /// read the whole item.
    ///
    /// ```
    /// let record = dynamodb_mapper::Record::new("e");
    /// assert_eq!(record.projection(), None);
    /// ```
    #[must_use]
    pub fn projection(&self) -> Option<&str> {
        self.projection.as_deref()
    }

    /// The record, with the values of its unique constraints as read.
    pub(crate) fn with_unique(mut self, values: Item) -> Self {
        self.unique = Some(Box::new(values));
        self
    }

    /// Sets the values of the unique constraints the stored item holds
    /// (after a write of the record).
    pub(crate) fn set_unique(&mut self, values: Option<Item>) {
        self.unique = values.map(Box::new);
    }

    /// The values of the unique constraints as read (`None`: not read, or
    /// no constraints).
    pub(crate) fn unique_read(&self) -> Option<&Item> {
        self.unique.as_deref()
    }

    /// The record, read through `projection` when there was one.
    pub(crate) fn read_through(mut self, projection: Option<&str>) -> Self {
        self.projection = projection.map(Into::into);
        if self.projection.is_some() {
            // What a projection left out is unknown, unique values included:
            // a write that would move their sentinels is refused.
            self.unique = None;
        }
        self
    }
}
