//! The checks of the table design as a whole that
//! [`RegistryBuilder::build`](super::RegistryBuilder::build) runs: field
//! names, layouts, duplicates, key patterns and overlaps, groups.

use crate::key::{AllowedOverlap, KeyDeclaration, find_overlaps};
use crate::schema::{GlobalSecondaryIndex, KeyAttribute, TableSchema};

use super::entry::Entry;
use super::filter::{MAX_FILTER_VALUES, too_many_values};

fn describe_key_attribute(k: Option<KeyAttribute>) -> String {
    match k {
        None => "none".to_owned(),
        Some(k) => format!("`{}` ({})", k.name, k.scalar_type.describe()),
    }
}

fn describe_name(n: Option<&str>) -> String {
    match n {
        None => "none".to_owned(),
        Some(n) => format!("`{n}`"),
    }
}

fn describe_index(i: Option<&GlobalSecondaryIndex>) -> String {
    match i {
        None => "absent".to_owned(),
        Some(i) => {
            let list = |keys: &[KeyAttribute]| {
                keys.iter()
                    .map(|k| describe_key_attribute(Some(*k)))
                    .collect::<Vec<_>>()
                    .join(" + ")
            };
            match i.sort_keys() {
                [] => format!("key {} only", list(i.partition_keys())),
                sort => format!("keys {} and {}", list(i.partition_keys()), list(sort)),
            }
        }
    }
}

/// Where the discriminator attribute is also a key, TTL or version attribute.
pub(super) fn key_collisions(table: &TableSchema, attr: &str, problems: &mut Vec<String>) {
    let mut roles = Vec::new();
    if table.partition_key.name == attr {
        roles.push("the partition key".to_owned());
    }
    if table.sort_key.is_some_and(|k| k.name == attr) {
        roles.push("the sort key".to_owned());
    }
    for index in table.indexes {
        if index.partition_keys().iter().any(|k| k.name == attr) {
            roles.push(format!("the partition key of index {}", index.name));
        }
        if index.sort_keys().iter().any(|k| k.name == attr) {
            roles.push(format!("the sort key of index {}", index.name));
        }
    }
    if table.ttl == Some(attr) {
        roles.push("the TTL attribute".to_owned());
    }
    if table.version == Some(attr) {
        roles.push("the version attribute".to_owned());
    }
    for role in roles {
        problems.push(format!("discriminator attribute `{attr}` is also {role}"));
    }
}

/// One problem per part of `entry`'s table layout that differs from
/// `reference`'s.
pub(super) fn layout_differences<T>(
    entry: &Entry<T>,
    reference: &Entry<T>,
    problems: &mut Vec<String>,
) {
    let (this, other) = (&entry.table, &reference.table);
    if this == other {
        return;
    }
    let mut report = |part: String, mine: String, theirs: String| {
        problems.push(format!(
            "{}: table layout differs from {}'s in {part}: {mine} vs {theirs}",
            entry.entity_type, reference.entity_type
        ));
    };
    if this.partition_key != other.partition_key {
        report(
            "the partition key".to_owned(),
            describe_key_attribute(Some(this.partition_key)),
            describe_key_attribute(Some(other.partition_key)),
        );
    }
    if this.sort_key != other.sort_key {
        report(
            "the sort key".to_owned(),
            describe_key_attribute(this.sort_key),
            describe_key_attribute(other.sort_key),
        );
    }
    let names = this
        .indexes
        .iter()
        .chain(
            other
                .indexes
                .iter()
                .filter(|i| this.index(i.name).is_none()),
        )
        .map(|i| i.name);
    for name in names {
        let (mine, theirs) = (this.index(name), other.index(name));
        if mine != theirs {
            report(
                format!("index {name}"),
                describe_index(mine),
                describe_index(theirs),
            );
        }
    }
    for (part, mine, theirs) in [
        (
            "the discriminator attribute",
            this.discriminator,
            other.discriminator,
        ),
        ("the TTL attribute", this.ttl, other.ttl),
        ("the version attribute", this.version, other.version),
    ] {
        if mine != theirs {
            report(part.to_owned(), describe_name(mine), describe_name(theirs));
        }
    }
}

/// Entity types registered twice, and aliases that clash.
pub(super) fn duplicates<T>(entries: &[Entry<T>], problems: &mut Vec<String>) {
    let first_of_type =
        |i: usize, e: &Entry<T>| !entries[..i].iter().any(|o| o.entity_type == e.entity_type);
    for (i, entry) in entries.iter().enumerate() {
        let names = || std::iter::once(&entry.entity_type).chain(entry.aliases);
        if names().any(|n| *n == crate::mapper::unique::SENTINEL_TYPE) {
            problems.push(format!(
                "{}: the discriminator value {:?} marks the sentinels of unique values; \
                 choose another entity type or alias",
                entry.entity_type,
                crate::mapper::unique::SENTINEL_TYPE
            ));
        }
        if !first_of_type(i, entry) {
            continue;
        }
        let n = entries
            .iter()
            .filter(|o| o.entity_type == entry.entity_type)
            .count();
        if n > 1 {
            problems.push(format!(
                "entity type {:?} is registered {n} times",
                entry.entity_type
            ));
        }
    }
    for (i, entry) in entries.iter().enumerate() {
        if !first_of_type(i, entry) {
            continue; // a repeated registration: reported above
        }
        let me = entry.entity_type;
        for (j, &alias) in entry.aliases.iter().enumerate() {
            if entry.aliases[..j].contains(&alias) {
                continue;
            }
            let n = entry.aliases.iter().filter(|a| **a == alias).count();
            if n > 1 {
                problems.push(format!("{me}: alias {alias:?} is listed {n} times"));
            }
            if alias == me {
                problems.push(format!("{me}: alias {alias:?} is its own entity type"));
            } else if entries.iter().any(|o| o.entity_type == alias) {
                problems.push(format!(
                    "{me}: alias {alias:?} is also a registered entity type"
                ));
            }
            for (k, other) in entries.iter().enumerate().skip(i + 1) {
                if other.entity_type != me
                    && first_of_type(k, other)
                    && other.aliases.contains(&alias)
                {
                    problems.push(format!(
                        "alias {alias:?} is claimed by both {me} and {}",
                        other.entity_type
                    ));
                }
            }
        }
    }
}

/// Checks the declared key patterns against the table layout (the index
/// exists; a sort key pattern exactly where the table or index has a sort
/// key; valid templates), then reports every overlap between entity types
/// that no `allow_overlap` acknowledges.
pub(super) fn key_overlaps<T>(
    entries: &[Entry<T>],
    table: &TableSchema,
    allowed: &[AllowedOverlap<'static>],
    problems: &mut Vec<String>,
) {
    let before = problems.len();
    let mut declarations = Vec::new();
    for entry in entries {
        for keys in entry.key_patterns {
            if keys.part_attribute().is_some() {
                // A part of a multi-attribute key: checked by the mapper's
                // own check, outside the overlap analysis.
                if let Err(e) = keys.partition_key().validate() {
                    problems.push(e.with_entity_type(entry.entity_type).to_string());
                }
                continue;
            }
            let (on, has_sort) = match keys.index_name() {
                None => ("the table".to_owned(), table.sort_key.is_some()),
                Some(name) => match table.index(name) {
                    Some(index) if index.is_multi_attribute() => {
                        problems.push(format!(
                            "{}: key patterns name index {name}, whose keys are \
                             multi-attribute: its key attributes are typed attributes the \
                             entity's fields (or its hook) write, not rendered key strings",
                            entry.entity_type
                        ));
                        continue;
                    }
                    Some(index) => (format!("index {name}"), !index.sort_keys().is_empty()),
                    None => {
                        problems.push(format!(
                            "{}: key patterns name index {name}, which the table does not have",
                            entry.entity_type
                        ));
                        continue;
                    }
                },
            };
            match (has_sort, keys.sort_key()) {
                (true, None) => problems.push(format!(
                    "{}: key patterns for {on} declare no sort key pattern, but {on} has a sort key",
                    entry.entity_type
                )),
                (false, Some(p)) => problems.push(format!(
                    "{}: key patterns for {on} declare the sort key pattern `{p}`, but {on} has no sort key",
                    entry.entity_type
                )),
                _ => {}
            }
            for pattern in std::iter::once(keys.partition_key()).chain(keys.sort_key()) {
                if let Err(e) = pattern.validate() {
                    problems.push(e.with_entity_type(entry.entity_type).to_string());
                }
            }
            declarations.push(KeyDeclaration::new(entry.entity_type, *keys));
        }
    }
    if problems.len() > before {
        return;
    }
    // The sentinels of unique values are items of the table too.
    let labels: Vec<String> = entries
        .iter()
        .map(|e| format!("{}'s unique sentinels", e.entity_type))
        .collect();
    for (entry, label) in entries.iter().zip(&labels) {
        for keys in (entry.sentinel_patterns)() {
            declarations.push(KeyDeclaration::new(label, *keys));
        }
    }
    match find_overlaps(&declarations, allowed) {
        Ok(found) => problems.extend(found.iter().map(ToString::to_string)),
        Err(e) => problems.push(e.to_string()),
    }
}

/// Checks the groups; returns each (first-defined) group's name and member
/// entry indices.
pub(super) fn resolve_groups<T>(
    entries: &[Entry<T>],
    groups: &[(String, Vec<String>)],
    problems: &mut Vec<String>,
) -> Vec<(String, Vec<usize>)> {
    let mut resolved = Vec::with_capacity(groups.len());
    for (gi, (name, members)) in groups.iter().enumerate() {
        if groups[..gi].iter().any(|(n, _)| n == name) {
            continue;
        }
        let defined = groups.iter().filter(|(n, _)| n == name).count();
        if defined > 1 {
            problems.push(format!("group {name:?} is defined {defined} times"));
        }
        if members.is_empty() {
            problems.push(format!("group {name:?} has no members"));
            continue;
        }
        let mut indices = Vec::with_capacity(members.len());
        for (mi, member) in members.iter().enumerate() {
            if members[..mi].contains(member) {
                continue;
            }
            let n = members.iter().filter(|m| *m == member).count();
            if n > 1 {
                problems.push(format!("group {name:?} names {member:?} {n} times"));
            }
            if let Some(i) = entries.iter().position(|e| e.entity_type == member) {
                indices.push(i);
            } else if let Some(owner) = entries.iter().find(|e| e.aliases.contains(&&**member)) {
                problems.push(format!(
                    "group {name:?} names {member:?}, an alias of {:?}, not an entity type",
                    owner.entity_type
                ));
            } else {
                problems.push(format!(
                    "group {name:?} names {member:?}, which is not a registered entity type"
                ));
            }
        }
        let count: usize = indices
            .iter()
            .filter_map(|&i| entries.get(i))
            .map(|e| 1 + e.aliases.len())
            .sum();
        if count > MAX_FILTER_VALUES {
            problems.push(format!(
                "group {name:?}'s discriminator filter {}",
                too_many_values(count)
            ));
        }
        resolved.push((name.clone(), indices));
    }
    resolved
}
