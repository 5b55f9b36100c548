//! An entity with no fields whose mapper writes the raw attributes it
//! carries, so `to_item` runs every check of the crate on exactly that
//! item: for tests (and fuzz targets) of the item checks.

use dynamodb_mapper::Item;
use serde::{Deserialize, Serialize};

/// The attributes to write, as they are; nothing is serialized.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Raw {
    #[serde(skip)]
    pub attributes: Item,
}

/// Declares `$name`, a mapper of [`Raw`] on the table `$table` (entity type
/// `Raw`) whose `to_item` writes the entity's attributes:
/// `raw_mapper!(StringKeysMapper, STRING_KEYS);`.
#[macro_export]
macro_rules! raw_mapper {
    ($name:ident, $table:expr) => {
        struct $name;
        impl $crate::raw::__Mapper for $name {
            type Entity = $crate::raw::Raw;
            const ENTITY_TYPE: &'static str = "Raw";
            const SCHEMA: $crate::raw::__TableSchema = $table;
            fn after_to_item(
                raw: &$crate::raw::Raw,
                item: &mut $crate::raw::__Item,
            ) -> $crate::raw::__Result<()> {
                item.extend(raw.attributes.clone());
                Ok(())
            }
        }
    };
}

#[doc(hidden)]
pub use dynamodb_mapper::{
    Item as __Item, Mapper as __Mapper, Result as __Result, TableSchema as __TableSchema,
};
