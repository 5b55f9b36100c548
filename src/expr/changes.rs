//! Typed partial updates: [`Update::between`], the update that turns one
//! entity's stored item into another's, derived attributes included.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::operand::Attr;
use super::update::Update;
use crate::describe::describe_value;
use crate::error::{Error, Result};
use crate::mapper::{Mapper, MapperExt, sources_of};

impl Update {
    /// The update that turns the item of `old` into the item of `new`, both
    /// as [`MapperExt::to_item`] writes them: every attribute the mapper
    /// derives (GSI keys, TTL, discriminator, what the hooks add) is
    /// recomputed from `new`, so a partial update never leaves a GSI key
    /// stale; an attribute that became absent (a sparse index key, a
    /// skipped field) is removed. The fields a changed key is rendered from
    /// are written too, changed or not, so the key agrees with the item even
    /// when `old` is stale. Maps present on both sides are updated
    /// member by member (`SET address.city`), so members the entity does
    /// not know are kept; lists and sets are replaced whole. Attributes
    /// outside the mapper's items (the attribute bag) are untouched. Empty
    /// when nothing changed.
    ///
    /// Send it with the key of `new` ([`MapperExt::key`]), with
    /// [`Table::update_entity`](crate::ops::Table::update_entity), or
    /// version-checked with
    /// [`Table::update_record`](crate::ops::Table::update_record).
    ///
    /// # Errors
    /// Mapping errors of either entity;
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey) naming the
    /// table's key attribute when `new` has another primary key than `old`
    /// (an update cannot move an item: delete and put it in one
    /// transaction).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::expr::Update;
    ///
    /// let old = Order { id: "O1".into(), customer: "C1".into() };
    /// let moved = Order { id: "O1".into(), customer: "C2".into() };
    /// let err = Update::between::<OrderMapper>(&old, &moved).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "Order: key attribute `pk` changes from \"CUSTOMER#C1\" to \"CUSTOMER#C2\"; an update \
    ///      cannot move an item: delete it and put the new one in one transaction"
    /// );
    /// assert!(Update::between::<OrderMapper>(&old, &old.clone())?.is_empty());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn between<M: Mapper>(old: &M::Entity, new: &M::Entity) -> Result<Update> {
        changes::<M>(old, new)
    }
}

fn changes<M: Mapper>(old: &M::Entity, new: &M::Entity) -> Result<Update> {
    let before = M::to_item(old)?;
    let after = M::to_item(new)?;
    let table = M::SCHEMA;
    let keys = std::iter::once(table.partition_key.name).chain(table.sort_key.map(|k| k.name));
    for key in keys {
        let (was, now) = (before.get(key), after.get(key));
        if was != now {
            let show =
                |v: Option<&AttributeValue>| v.map_or_else(|| "absent".to_owned(), describe_value);
            return Err(Error::invalid_key(
                key,
                format!(
                    "changes from {} to {}; an update cannot move an item: delete it and put the \
                     new one in one transaction",
                    show(was),
                    show(now)
                ),
            )
            .with_entity_type(M::ENTITY_TYPE));
        }
    }
    let mut update = Update::new();
    diff(&before, &after, &mut Vec::new(), &mut update);
    // A key re-rendered from `new` is right only if the item holds the
    // fields it is rendered from as `new` has them, and a field written is
    // right only if every key rendered from it is written too: `old` may be
    // stale (the item changed since it was read), so the update is closed
    // over both, changed or not, until nothing more is reached.
    let touched: Vec<String> = update
        .top_level_names()
        .into_iter()
        .map(str::to_owned)
        .collect();
    let mut reached: Vec<&str> = touched.iter().map(String::as_str).collect();
    let mut added: Vec<&str> = Vec::new();
    let mut next = 0;
    while let Some(name) = reached.get(next).copied() {
        next += 1;
        let keys = crate::mapper::derivation::<M>(name)?.feeds;
        for linked in sources_of::<M>(name)?
            .into_iter()
            .chain(keys.into_iter().map(|(key, _)| key))
        {
            // The table's keys are equal on both sides (checked above) and
            // cannot be in an update.
            let table_key = linked == table.partition_key.name
                || table.sort_key.is_some_and(|k| k.name == linked);
            if !table_key && !reached.contains(&linked) {
                reached.push(linked);
                added.push(linked);
            }
        }
    }
    added.sort_unstable();
    for name in added {
        update = match after.get(name) {
            Some(value) => update.set(Attr::top_level(name), value.clone()),
            None => update.remove(Attr::top_level(name)),
        };
    }
    Ok(update.rendered_by::<M>())
}

/// Adds to `update` what turns the map `before` into `after`, at `path`,
/// in name order (so the same change always renders the same expression).
/// Only the names whose values differ are sorted and copied: most
/// attributes of an update's two items are equal.
fn diff(
    before: &HashMap<String, AttributeValue>,
    after: &HashMap<String, AttributeValue>,
    path: &mut Vec<String>,
    update: &mut Update,
) {
    let mut changed: Vec<&String> = Vec::new();
    let mut kept = 0;
    for (name, now) in after {
        match before.get(name) {
            Some(was) => {
                kept += 1;
                if was != now {
                    changed.push(name);
                }
            }
            None => changed.push(name),
        }
    }
    // Names only `before` has (removed), looked for only when there are.
    if kept < before.len() {
        changed.extend(before.keys().filter(|name| !after.contains_key(*name)));
    }
    changed.sort_unstable();
    for name in changed {
        path.push(name.clone());
        match (before.get(name), after.get(name)) {
            // Items are at most 32 levels deep (checked by `to_item`), so
            // this recursion is bounded.
            (Some(AttributeValue::M(was)), Some(AttributeValue::M(now))) => {
                diff(was, now, path, update);
            }
            (_, Some(now)) => {
                *update = std::mem::take(update).set(Attr::of_names(path.clone()), now.clone());
            }
            (Some(_), None) => {
                *update = std::mem::take(update).remove(Attr::of_names(path.clone()));
            }
            (None, None) => {}
        }
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};

    use super::*;
    use crate::TableSchema;
    use crate::item::Item;
    use crate::item::ItemExt;

    #[derive(Debug, Clone, Serialize, Deserialize)]
    struct Doc {
        id: String,
        a: Option<String>,
        b: Option<String>,
        c: Option<String>,
        address: BTreeMap<String, String>,
    }

    struct DocMapper;
    impl Mapper for DocMapper {
        type Entity = Doc;
        const ENTITY_TYPE: &'static str = "Doc";
        const SCHEMA: TableSchema = TableSchema::new("pk");
        fn after_to_item(d: &Doc, item: &mut Item) -> Result<()> {
            item.put_str("pk", format!("DOC#{}", d.id));
            Ok(())
        }
    }

    fn doc(a: Option<&str>, b: Option<&str>, c: Option<&str>, address: &[(&str, &str)]) -> Doc {
        Doc {
            id: "D1".into(),
            a: a.map(Into::into),
            b: b.map(Into::into),
            c: c.map(Into::into),
            address: address
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        }
    }

    /// Same number of attributes, one name swapped for another (`b` gone,
    /// `c` new), and a nested map with a member swapped too: every change
    /// is found, in name order, members of the map one by one.
    #[test]
    fn swapped_names_are_removed_and_set_in_name_order() {
        let old = doc(
            Some("1"),
            Some("2"),
            None,
            &[("city", "Lyon"), ("zip", "69001")],
        );
        let new = doc(
            Some("1"),
            None,
            Some("3"),
            &[("city", "Lyon"), ("floor", "3")],
        );
        let e = Update::between::<DocMapper>(&old, &new)
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(
            e.expression(),
            "SET #u0.#u1 = :u0, #u2 = :u1 REMOVE #u0.#u3, #u4"
        );
        let names: Vec<(&str, &str)> = ["#u0", "#u1", "#u2", "#u3", "#u4"]
            .into_iter()
            .map(|p| (p, e.names()[p].as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("#u0", "address"),
                ("#u1", "floor"),
                ("#u2", "c"),
                ("#u3", "zip"),
                ("#u4", "b")
            ]
        );
        // Nothing when nothing changed.
        assert!(
            Update::between::<DocMapper>(&new, &new.clone())
                .unwrap()
                .is_empty()
        );
    }
}
