//! What a registry keeps per registered mapper ([`Entry`]: entity type,
//! aliases, table layout, key patterns, decoder) and per group
//! ([`GroupData`]).

use crate::error::Result;
use crate::item::Item;
use crate::key::IndexKeys;
use crate::schema::TableSchema;

use crate::expr::Expression;

/// Decodes an item read through the projection given (its attribute names),
/// if any.
pub(super) type DecodeFn<T> = Box<dyn Fn(Item, Option<&str>) -> Result<T> + Send + Sync>;

pub(super) struct Entry<T> {
    pub(super) entity_type: &'static str,
    pub(super) aliases: &'static [&'static str],
    pub(super) table: TableSchema,
    /// The problems of the mapper's own declarations
    /// ([`MapperExt::check`](crate::MapperExt::check)), each starting with
    /// the entity type.
    pub(super) problems: Vec<String>,
    /// The key patterns the mapper declares
    /// ([`Mapper::KEY_PATTERNS`](crate::Mapper::KEY_PATTERNS)).
    pub(super) key_patterns: &'static [IndexKeys],
    pub(super) decode: DecodeFn<T>,
    /// The item as the mapper writes the entity it reads from `item`.
    pub(super) rewrite: Rewrite,
    /// The write gate of the mapper, for an update rendered from its items.
    pub(super) gate: Gate,
    /// The sentinels of the mapper's unique values an item of it holds.
    pub(super) sentinels: Sentinels,
    /// The attributes its unique constraints read.
    pub(super) unique_attributes: fn() -> Vec<String>,
    /// The key patterns of its sentinels, for the overlap analysis.
    pub(super) sentinel_patterns: fn() -> &'static [IndexKeys],
    /// Its fields, for the design exports.
    pub(super) fields: fn() -> Vec<FieldInfo>,
}

/// One field of an entity, as the design exports describe it.
#[derive(Debug, Clone)]
pub(super) struct FieldInfo {
    /// The serde field name (what key pattern placeholders name).
    pub(super) name: &'static str,
    /// The attribute it is stored as.
    pub(super) stored: String,
    /// What it serializes to.
    pub(super) shape: crate::probe::Shape,
    /// `Option<_>`.
    pub(super) optional: bool,
}

/// [`Entry::fields`] with `M`: empty for an entity that is not a plain
/// struct.
pub(super) fn fields<M: crate::Mapper>() -> Vec<FieldInfo> {
    let Ok(Some(table)) = crate::fields::field_table::<M::Entity>(M::NAMING) else {
        return Vec::new();
    };
    table
        .in_order()
        .map(|name| {
            let shape = crate::probe::field_shape::<M::Entity>(name);
            FieldInfo {
                name,
                stored: table.stored_for(name, M::NAMING).into_owned(),
                shape: shape.shape,
                optional: shape.optional,
            }
        })
        .collect()
}

/// The sentinels of the unique values an item holds
/// ([`Mapper::UNIQUE`](crate::Mapper::UNIQUE)): none for a mapper without
/// constraints.
pub(crate) type Sentinels = fn(&Item) -> Result<Vec<crate::mapper::unique::Sentinel>>;

/// Marks an update made from what a mapper's `to_item` renders as rendered
/// by it, and passes it through the write gate
/// ([`check_update`](crate::expr::check_update)): no table key, version or
/// discriminator changed.
pub(crate) type Gate = fn(crate::expr::Update) -> Result<crate::expr::Update>;

/// [`Gate`] with `M`.
pub(super) fn gate<M: crate::Mapper>(update: crate::expr::Update) -> Result<crate::expr::Update> {
    // A backfill sends the sentinels its update moves (`Table::renew`).
    let update = update.rendered_by::<M>().moving_sentinels();
    crate::expr::check_update::<M>(&update, "Sweep::backfill")?;
    Ok(update)
}

/// The item as a mapper writes the entity it reads from an item: the
/// outer error when it cannot read it, the inner one when it cannot write
/// the entity back.
pub(crate) type Rewrite = fn(Item) -> Result<Result<Rewritten>>;

/// What [`Rewrite`] made of an item.
pub(crate) struct Rewritten {
    /// The item as the mapper writes the entity it read.
    pub(crate) item: Item,
    /// The attributes of the item that the mapper's upgrade steps
    /// ([`Mapper::UPGRADES`](crate::Mapper::UPGRADES)) removed.
    pub(crate) dropped: Vec<String>,
    /// The item's shape before the upgrade (1 without steps).
    pub(crate) shape: usize,
}

/// [`Rewrite`] with `M`: what every derived attribute should hold.
pub(super) fn rewrite<M: crate::Mapper>(item: Item) -> Result<Result<Rewritten>> {
    use crate::MapperExt;
    let (dropped, shape) = dropped_by_upgrades::<M>(&item)?;
    let entity = M::from_item(item)?;
    Ok(M::to_item(&entity).map(|item| Rewritten {
        item,
        dropped,
        shape,
    }))
}

/// The attributes of `item` that `M`'s upgrade steps remove, and the shape
/// it was.
///
/// # Errors
/// As [`upgrade`](crate::mapper::upgrade).
pub(crate) fn dropped_by_upgrades<M: crate::Mapper>(item: &Item) -> Result<(Vec<String>, usize)> {
    if M::UPGRADES.is_empty() {
        return Ok((Vec::new(), 1));
    }
    let mut upgraded = item.clone();
    let shape = crate::mapper::upgrade::<M>(&mut upgraded)?;
    let dropped = item
        .keys()
        .filter(|k| !upgraded.contains_key(k.as_str()))
        .cloned()
        .collect();
    Ok((dropped, shape))
}

impl<T> Entry<T> {
    pub(super) fn values(&self) -> impl Iterator<Item = &'static str> + use<T> {
        std::iter::once(self.entity_type).chain(self.aliases.iter().copied())
    }
}

pub(super) struct GroupData {
    pub(super) name: String,
    pub(super) entity_types: Vec<&'static str>,
    /// Membership by entry index.
    pub(super) members: Vec<bool>,
    pub(super) filter: Expression,
}
