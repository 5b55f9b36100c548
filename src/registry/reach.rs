//! Which entity types a key condition can return:
//! [`Registry::entity_types_reached`] and
//! [`Registry::check_key_condition`], from the key patterns the registered
//! mappers declare. Catches a hand-written `begins_with` prefix that ends
//! inside a segment (`USER` also reaching `USERGROUP#...`).

use std::fmt::Write as _;

use crate::error::{Error, Result};
use crate::expr::KeyCondition;
use crate::key::{IndexKeys, Selection, SortSelection};
use crate::schema::KeyAttribute;

use super::dispatch::Registry;
use super::entry::Entry;

/// Why an entity type can be returned by a key condition.
enum Why {
    /// Its key patterns render a selected key (an example sort key, when
    /// the condition looks at the sort key).
    Pattern(IndexKeys, Option<String>),
    /// It declares no key patterns for the index, so nothing rules it out.
    Undeclared,
}

impl<T> Registry<T> {
    /// The entity types whose items `condition` can return, in registration
    /// order, judged by the key patterns each mapper declares
    /// ([`Mapper::KEY_PATTERNS`](crate::Mapper::KEY_PATTERNS)) for the
    /// condition's index: the partition key pattern renders the partition
    /// value, and the sort key pattern renders a key the sort key condition
    /// selects. A `begins_with` prefix that ends inside a segment reaches
    /// every type whose segment continues it (`USER` reaches `USERGROUP#...`).
    ///
    /// An entity type that declares no key patterns for the index is
    /// counted as reached (nothing rules it out); declare its patterns to
    /// make the answer exact.
    ///
    /// # Errors
    /// As [`KeyCondition::build`], for a condition that is not valid;
    /// [`ErrorKind::InvalidKeyPattern`](crate::ErrorKind::InvalidKeyPattern)
    /// for a declared pattern that is not valid.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::expr::{KeyCondition, attr};
    ///
    /// // Customers are `CUSTOMER#{id}` / `METADATA`, orders `CUSTOMER#{customer}` / `ORDER#{id}`.
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .build()?;
    /// let partition = KeyCondition::new(TABLE, "CUSTOMER#C1");
    /// assert_eq!(registry.entity_types_reached(&partition)?, ["Customer", "Order"]);
    /// let orders = partition.clone().and(attr("sk").begins_with("ORDER#"));
    /// assert_eq!(registry.entity_types_reached(&orders)?, ["Order"]);
    /// let from_n = partition.clone().and(attr("sk").ge("N"));
    /// assert_eq!(registry.entity_types_reached(&from_n)?, ["Order"]);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn entity_types_reached(&self, condition: &KeyCondition) -> Result<Vec<&'static str>> {
        Ok(self
            .reached(condition)?
            .into_iter()
            .map(|(entry, _)| entry.entity_type)
            .collect())
    }

    /// Checks that `condition` can return items of `entity_types` only (as
    /// [`entity_types_reached`](Self::entity_types_reached) judges it): run
    /// it on a hand-written key condition before sending it, so a prefix
    /// that also reaches another entity type's items is caught at once
    /// instead of as an unexpected item in production.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`](crate::ErrorKind::InvalidKey), attribute
    /// the sort key (or partition key) attribute, naming every other entity
    /// type the condition reaches, with its key pattern and an example key,
    /// and, for a `begins_with` prefix that does not end with the
    /// delimiter, how to fix it; an entity type in `entity_types` that is
    /// not registered; and as
    /// [`entity_types_reached`](Self::entity_types_reached).
    ///
    /// ```
    /// use dynamodb_mapper::{expr::{KeyCondition, attr}, IndexKeys, KeyPattern, Mapper, Registry, TableSchema};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct User { tenant: String, id: String }
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct UserGroup { tenant: String, id: String }
    /// const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");
    /// const TENANT: KeyPattern = KeyPattern::partition("TENANT#{tenant}");
    /// struct UserMapper;
    /// impl Mapper for UserMapper {
    ///     type Entity = User;
    ///     const ENTITY_TYPE: &'static str = "User";
    ///     const SCHEMA: TableSchema = TABLE;
    ///     const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(TENANT).sort(KeyPattern::sort("USER#{id}"))];
    /// }
    /// struct UserGroupMapper;
    /// impl Mapper for UserGroupMapper {
    ///     type Entity = UserGroup;
    ///     const ENTITY_TYPE: &'static str = "UserGroup";
    ///     const SCHEMA: TableSchema = TABLE;
    ///     const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(TENANT).sort(KeyPattern::sort("USERGROUP#{id}"))];
    /// }
    /// enum Entity { User(User), UserGroup(UserGroup) }
    /// let registry = Registry::builder()
    ///     .register::<UserMapper>(Entity::User)
    ///     .register::<UserGroupMapper>(Entity::UserGroup)
    ///     .build()?;
    ///
    /// let users = KeyCondition::new(TABLE, "TENANT#acme").and(attr("sk").begins_with("USER"));
    /// let err = registry.check_key_condition(&users, &["User"]).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "key attribute `sk` begins_with \"USER\" on the table also reaches UserGroup items \
    ///      (sort key `USERGROUP#{id}`, e.g. \"USERGROUP#a\"), expected only User; the prefix \
    ///      ends inside a segment: end it with the delimiter (\"USER#\")"
    /// );
    /// registry.check_key_condition(&KeyCondition::new(TABLE, "TENANT#acme").and(attr("sk").begins_with("USER#")), &["User"])?;
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn check_key_condition(
        &self,
        condition: &KeyCondition,
        entity_types: &[&str],
    ) -> Result<()> {
        for wanted in entity_types {
            if !self.inner.entity_types.contains(wanted) {
                return Err(Error::invalid_key(
                    "(entity type)",
                    format!(
                        "{wanted:?} is not a registered entity type (registered: {})",
                        self.inner.entity_types.join(", ")
                    ),
                ));
            }
        }
        let reached = self.reached(condition)?;
        let others: Vec<&(&Entry<T>, Why)> = reached
            .iter()
            .filter(|(entry, _)| !entity_types.contains(&entry.entity_type))
            .collect();
        if others.is_empty() {
            return Ok(());
        }
        let selection = condition.selection().unwrap_or(Selection {
            partition: None,
            sort: SortSelection::Any,
        });
        let on = condition
            .index_name()
            .map_or_else(|| "the table".to_owned(), |i| format!("index {i}"));
        let schema = condition.schema();
        let (partition_attribute, sort_attribute) = match condition.index_name() {
            None => (schema.partition_key.name, schema.sort_key.map(|k| k.name)),
            Some(name) => schema.index(name).map_or(("(partition key)", None), |i| {
                let first = |keys: &[KeyAttribute]| keys.first().map(|k| k.name);
                (
                    first(i.partition_keys()).unwrap_or("(partition key)"),
                    first(i.sort_keys()),
                )
            }),
        };
        let (attribute, what) = match selection.sort {
            SortSelection::Any | SortSelection::NotText => (
                partition_attribute,
                format!(
                    "{:?} with no sort key condition",
                    selection.partition.unwrap_or_default()
                ),
            ),
            SortSelection::Prefix(p) => (
                sort_attribute.unwrap_or("(sort key)"),
                format!("begins_with {p:?}"),
            ),
            SortSelection::Range(..) => {
                (sort_attribute.unwrap_or("(sort key)"), "range".to_owned())
            }
        };
        let mut reason = format!("{what} on {on} also reaches ");
        for (k, (entry, why)) in others.iter().enumerate() {
            if k > 0 {
                reason.push_str(if k + 1 == others.len() { " and " } else { ", " });
            }
            let _ = write!(reason, "{} items", entry.entity_type);
            match why {
                Why::Undeclared => reason.push_str(" (it declares no key patterns for it)"),
                Why::Pattern(keys, Some(example)) => {
                    if let Some(sort) = keys.sort_key() {
                        let _ = write!(reason, " (sort key `{sort}`, e.g. {example:?})");
                    }
                }
                Why::Pattern(keys, None) => {
                    let _ = write!(reason, " (partition key `{}`)", keys.partition_key());
                }
            }
        }
        if entity_types.is_empty() {
            reason.push_str(", expected none");
        } else {
            let _ = write!(reason, ", expected only {}", entity_types.join(", "));
        }
        if let SortSelection::Prefix(prefix) = selection.sort {
            let delimiter = reached
                .iter()
                .filter(|(entry, _)| entity_types.contains(&entry.entity_type))
                .chain(others.iter().copied())
                .find_map(|(_, why)| match why {
                    Why::Pattern(keys, _) => keys.sort_key().map(|p| p.key_format().delimiter()),
                    Why::Undeclared => None,
                });
            if let Some(d) = delimiter.filter(|d| !prefix.ends_with(*d)) {
                let _ = write!(
                    reason,
                    "; the prefix ends inside a segment: end it with the delimiter (\"{prefix}{d}\")"
                );
            }
        }
        Err(Error::invalid_key(attribute, reason))
    }

    /// The entries `condition` can reach, and why.
    fn reached(&self, condition: &KeyCondition) -> Result<Vec<(&Entry<T>, Why)>> {
        condition.build()?;
        // A condition on a multi-attribute index compares typed
        // attributes no key pattern renders: every type can be there.
        let Some(selection) = condition.selection() else {
            return Ok(self
                .inner
                .entries
                .iter()
                .map(|entry| (entry, Why::Undeclared))
                .collect());
        };
        let index = condition.index_name();
        let mut reached = Vec::new();
        for entry in &self.inner.entries {
            let declared: Vec<&IndexKeys> = entry
                .key_patterns
                .iter()
                .filter(|k| k.index_name() == index)
                .collect();
            if declared.is_empty() {
                reached.push((entry, Why::Undeclared));
                continue;
            }
            for keys in declared {
                let found = keys
                    .selected_example(&selection)
                    .map_err(|e| e.with_entity_type(entry.entity_type))?;
                if let Some(example) = found {
                    reached.push((entry, Why::Pattern(*keys, example)));
                    break;
                }
            }
        }
        Ok(reached)
    }
}
