//! The proof [`RegistryBuilder::build`](super::RegistryBuilder::build) runs
//! on each [`AccessPattern`]: its query is a key condition on a declared
//! index, with no filter, that returns exactly the entity types it names,
//! for every value of its parameters (judged by the key patterns the
//! mappers declare, as the overlap analysis judges them).

use crate::key::{IndexKeys, KeyPattern};
use crate::schema::{IndexProjection, TableSchema};

use super::access::{AccessPattern, Proven, SortPlan, describe_sort_plan};
use super::entry::Entry;

/// Whether two key patterns render the same keys from the same values, in
/// order: the same template but for the names of the placeholders, and the
/// same format.
fn same_shape(a: KeyPattern, b: KeyPattern) -> bool {
    fn unnamed(template: &str) -> String {
        let mut out = String::with_capacity(template.len());
        let mut in_name = false;
        for c in template.chars() {
            match c {
                '{' => {
                    in_name = true;
                    out.push(c);
                }
                ':' | '}' if in_name => {
                    in_name = false;
                    out.push(c);
                }
                _ if in_name => {}
                _ => out.push(c),
            }
        }
        out
    }
    a.key_format() == b.key_format() && unnamed(a.template()) == unnamed(b.template())
}

/// Whether a placeholder name of both patterns stands at different places
/// (`T#{a}#{b}` and `T#{b}#{a}`): the values given by name would fill them
/// crosswise.
fn crossed(a: KeyPattern, b: KeyPattern) -> bool {
    let names = |p: KeyPattern| -> Vec<&'static str> {
        p.placeholders()
            .map(|l| l.into_iter().map(|(n, _)| n).collect())
            .unwrap_or_default()
    };
    let (a, b) = (names(a), names(b));
    a.iter()
        .enumerate()
        .any(|(i, n)| b.iter().position(|m| m == n).is_some_and(|j| j != i))
}

fn describe(keys: &IndexKeys) -> String {
    match keys.sort_key() {
        Some(sort) => format!("`{}` / `{}`", keys.partition_key(), sort),
        None => format!("`{}`", keys.partition_key()),
    }
}

/// The whole-key declarations `entry` has for `index` (the table: `None`).
fn declared_on<T>(entry: &Entry<T>, index: Option<&str>) -> Vec<&'static IndexKeys> {
    entry
        .key_patterns
        .iter()
        .filter(|k| k.index_name() == index && k.part_attribute().is_none())
        .collect()
}

/// Proves `pattern` against the registered `entries` on `table`: the
/// pattern and its query, or every problem found (each line naming the
/// pattern).
pub(super) fn prove<T>(
    pattern: AccessPattern,
    entries: &[Entry<T>],
    table: &TableSchema,
) -> Result<Proven, Vec<String>> {
    let label = format!("access pattern {:?} on {}", pattern.name, pattern.on());
    let mut problems: Vec<String> = Vec::new();
    macro_rules! problem {
        ($text:expr $(,)?) => {
            problems.push(format!("{label}: {}", $text))
        };
    }

    if pattern.entity_types.is_empty() {
        problem!("names no entity type".to_owned());
    }
    // The key attributes it compares.
    let attributes = match pattern.index {
        None => Some((table.partition_key.name, table.sort_key.map(|k| k.name))),
        Some(name) => match table.index(name) {
            None => {
                problem!(format!("index {name} is not in the table layout"));
                None
            }
            Some(index) if index.is_multi_attribute() => {
                problem!(format!(
                    "index {name} has multi-attribute keys, which access patterns do not read \
                     yet: query it with `Lookup::key_condition`"
                ));
                None
            }
            Some(index) => {
                if !matches!(index.projection, IndexProjection::All) {
                    problem!(format!(
                        "index {name} does not project whole items, so its results cannot be \
                         read as entities: project ALL, or query it with `Lookup`"
                    ));
                }
                index
                    .single_keys()
                    .map(|(pk, sk)| (pk.name, sk.map(|k| k.name)))
            }
        },
    };
    // Each named type and the declaration the pattern selects.
    let mut members = Vec::new();
    let mut keys: Vec<(&'static str, IndexKeys)> = Vec::new();
    for (n, wanted) in pattern.entity_types.iter().enumerate() {
        if pattern.entity_types[..n].contains(wanted) {
            problem!(format!("names {wanted} twice"));
            continue;
        }
        let Some(at) = entries.iter().position(|e| e.entity_type == *wanted) else {
            problem!(format!(
                "names {wanted}, which is not registered (registered: {})",
                entries
                    .iter()
                    .map(|e| e.entity_type)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            continue;
        };
        members.push(at);
        let declared = declared_on(&entries[at], pattern.index);
        if declared.is_empty() {
            problem!(format!(
                "{wanted} declares no key patterns for {}, so the pattern cannot render its \
                 keys: declare them in KEY_PATTERNS (`by_hook()` when a hook writes them)",
                pattern.on()
            ));
            continue;
        }
        let names = |p: Option<KeyPattern>| -> Vec<&'static str> {
            p.and_then(|p| p.placeholders().ok())
                .map(|list| list.into_iter().map(|(n, _)| n).collect())
                .unwrap_or_default()
        };
        // The first named type's keys render the query's partition key from
        // the values given; the others' partition key patterns have the
        // same shape (their placeholders may have other names).
        let first = keys
            .first()
            .map(|(_, k): &(&str, IndexKeys)| k.partition_key());
        let fits = |k: &&&IndexKeys| {
            let partition = names(Some(k.partition_key()));
            let sort = names(k.sort_key());
            if let Some(first) = first {
                return same_shape(first, k.partition_key()) && !crossed(first, k.partition_key());
            }
            partition.iter().all(|p| pattern.by.contains(p))
                && pattern
                    .by
                    .iter()
                    .all(|b| partition.contains(b) || sort.contains(b))
                && pattern.sort_by.is_none_or(|r| sort.contains(&r))
        };
        let fitting: Vec<&&IndexKeys> = declared.iter().filter(fits).collect();
        let list = || {
            declared
                .iter()
                .map(|k| describe(k))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match fitting.as_slice() {
            [one] => keys.push((wanted, ***one)),
            [] if !keys.is_empty() => problem!(format!(
                "none of {wanted}'s key patterns on it ({}) has a partition key like `{}` (the \
                 same placeholders in the same places), so one query cannot return it with {}",
                list(),
                first.map(|p| p.to_string()).unwrap_or_default(),
                pattern.entity_types[0]
            )),
            [] => problem!(format!(
                "none of {wanted}'s key patterns on it ({}) has its partition key placeholders \
                 among the pattern's ({}) and a placeholder for each of those{}{}",
                list(),
                pattern.by.join(", "),
                if pattern.sort_by.is_some() {
                    " (and the sort_by one)"
                } else {
                    ""
                },
                if pattern.entity_types.len() > 1 {
                    "; `by` names the first entity type's placeholders, the others' partition \
                     keys need only the same shape"
                } else {
                    ""
                }
            )),
            more => problem!(format!(
                "{} of {wanted}'s key patterns fit it ({}): name a placeholder only one of them \
                 has, with `by` or `sort_by`",
                more.len(),
                more.iter()
                    .map(|k| describe(k))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    let (Some(attributes), true) = (attributes, problems.is_empty()) else {
        return Err(problems);
    };
    let Some(&(_, first)) = keys.first() else {
        return Err(problems);
    };
    let partition = first.partition_key();
    // The sort key part.
    let sort = if attributes.1.is_none() {
        if let Some(r) = pattern.sort_by {
            problem!(format!(
                "sorts by `{{{r}}}`, but {} has no sort key",
                pattern.on()
            ));
        }
        SortPlan::Any
    } else {
        let sorts: Vec<Option<KeyPattern>> = keys.iter().map(|(_, k)| k.sort_key()).collect();
        let same = sorts.windows(2).all(|w| w[0] == w[1]);
        match (same, sorts.first().copied().flatten()) {
            (true, Some(p)) => {
                let placeholders: Vec<&str> = p
                    .placeholders()
                    .map(|l| l.into_iter().map(|(n, _)| n).collect())
                    .unwrap_or_default();
                let first_open = placeholders.iter().find(|n| !pattern.by.contains(n));
                if let Some(r) = pattern.sort_by
                    && first_open != Some(&r)
                {
                    problem!(format!(
                        "sorts by `{{{r}}}`, which is not the first placeholder of `{p}` it is \
                         not given{}",
                        first_open.map_or_else(String::new, |o| format!(" (`{{{o}}}`)"))
                    ));
                }
                let starts_open = p.template().starts_with('{')
                    && first_open.is_some_and(|o| placeholders.first() == Some(o));
                if first_open.is_none() {
                    SortPlan::Whole(p)
                } else if starts_open && pattern.sort_by.is_none() {
                    SortPlan::Any
                } else {
                    SortPlan::Prefix(p)
                }
            }
            (true, None) => SortPlan::Any,
            (false, _) => {
                if pattern.sort_by.is_some() {
                    problem!(
                        "sorts by a placeholder, which needs one entity type (or one sort key \
                         pattern)"
                            .to_owned(),
                    );
                }
                // The literal text every named type's sort keys start with.
                let starts: Vec<&'static str> = sorts
                    .iter()
                    .map(|s| s.and_then(|p| p.constant_prefix().ok()).unwrap_or(""))
                    .collect();
                let mut common: &'static str = starts.first().copied().unwrap_or("");
                for s in &starts[1..] {
                    let n = common
                        .char_indices()
                        .zip(s.chars())
                        .take_while(|((_, a), b)| a == b)
                        .count();
                    let end = common
                        .char_indices()
                        .nth(n)
                        .map_or(common.len(), |(i, _)| i);
                    common = &common[..end];
                }
                if common.is_empty() {
                    SortPlan::Any
                } else {
                    SortPlan::Text(common)
                }
            }
        }
    };
    // Every value given is used by the query.
    let mut used: Vec<&str> = partition
        .placeholders()
        .map(|l| l.into_iter().map(|(n, _)| n).collect())
        .unwrap_or_default();
    if let SortPlan::Whole(p) | SortPlan::Prefix(p) = &sort
        && let Ok(list) = p.placeholders()
    {
        used.extend(
            list.into_iter()
                .map(|(n, _)| n)
                .take_while(|n| pattern.by.contains(n)),
        );
    }
    for name in pattern.by {
        if !used.contains(name) {
            problem!(format!(
                "is by `{{{name}}}`, which its query `{}` cannot use{}",
                describe_sort_plan(&sort, attributes.1, pattern.by, pattern.sort_by),
                if keys.len() > 1 {
                    ": its entity types' sort keys have no placeholder in common before it; \
                     declare a pattern per entity type"
                } else {
                    ": a sort key placeholder before it is not given"
                }
            ));
        }
    }
    let get = pattern.index.is_none()
        && keys.len() == 1
        && (matches!(sort, SortPlan::Whole(_)) || attributes.1.is_none());
    let mut proven = Proven {
        pattern,
        partition,
        sort,
        members,
        keys,
        get,
        unproven: Vec::new(),
        attributes,
    };
    // What the query reaches, for every value.
    let shape = proven.shape();
    for (i, entry) in entries.iter().enumerate() {
        let named = proven.members.contains(&i);
        let declared = declared_on(entry, pattern.index);
        if declared.is_empty() {
            if !named {
                proven.unproven.push(entry.entity_type);
            }
            continue;
        }
        let mut reached = None;
        for k in &declared {
            match k.reached_by(partition, shape) {
                Ok(Some(example)) => {
                    reached = Some((**k, example));
                    break;
                }
                Ok(None) => {}
                Err(e) => problem!(e.with_entity_type(entry.entity_type).to_string()),
            }
        }
        match (named, reached) {
            (true, None) => problem!(format!(
                "its query `{}` returns no {} items (keys {})",
                proven.describe_query(),
                entry.entity_type,
                declared
                    .iter()
                    .map(|k| describe(k))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            (false, Some((k, example))) => problem!(format!(
                "its query `{}` also returns {} items (keys {}, e.g. {example:?}), expected only {}",
                proven.describe_query(),
                entry.entity_type,
                describe(&k),
                pattern.entity_types.join(", ")
            )),
            _ => {}
        }
    }
    // Sentinels of unique values live on the table.
    if pattern.index.is_none() {
        for entry in entries {
            for k in (entry.sentinel_patterns)() {
                if let Ok(Some(example)) = k.reached_by(partition, shape) {
                    problem!(format!(
                        "its query `{}` also returns {}'s unique sentinels (keys {}, e.g. \
                         {example:?})",
                        proven.describe_query(),
                        entry.entity_type,
                        describe(k)
                    ));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(proven)
    } else {
        Err(problems)
    }
}
