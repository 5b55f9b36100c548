//! A mapper's plan, worked out once per mapper type and cached: the checks
//! of its declarations (key patterns against the table layout and the
//! entity's fields, field names against the attributes the mapper writes
//! itself), and for each index whose keys are rendered from fields, where
//! each placeholder's value comes from. `to_item` renders the keys with it;
//! `MapperExt::check` reports its problems.

use std::any::TypeId;
use std::time::{Duration, UNIX_EPOCH};

use aws_sdk_dynamodb::types::AttributeValue;

use super::Mapper;
use crate::check::RenderedKeys;
use crate::error::{Error, ErrorDetails, Result};
use crate::fields::{FieldTable, field_table};
use crate::item::{Item, type_name};
use crate::key::{
    Compiled, Encoding, IndexKeys, KeyPattern, KeyRole, KeyValue, RenderFailure, decode_timestamp,
};
use crate::probe::{Shape, field_shape};
use crate::schema::{KeyAttribute, KeyNames, ScalarType, TableSchema};
use crate::ser::{Held, MAX_HELD};
use crate::type_cache::TypeCache;

/// Where placeholders' values come from: the entity's field, stored under
/// `stored`.
#[derive(Debug)]
struct Source {
    field: &'static str,
    /// An `Option` field: when it is `None`, a sparse index's keys are not
    /// written at all.
    optional: bool,
    stored: String,
}

/// One key attribute rendered from a pattern.
#[derive(Debug)]
struct Target {
    attribute: &'static str,
    pattern: KeyPattern,
    /// The pattern compiled once: a write renders without looking it up.
    compiled: Compiled,
    /// One per placeholder, in the template's order: the index of its
    /// source in [`Plan::sources`], and its encoding.
    sources: Vec<(usize, Encoding)>,
}

/// The keys of one index (or the table) rendered from fields.
#[derive(Debug)]
struct Rendered {
    table: bool,
    partition: Target,
    sort: Option<Target>,
}

/// A unique constraint with the stored names of its fields.
#[derive(Debug)]
pub(crate) struct UniqueRule {
    pub(crate) name: &'static str,
    pub(crate) stored: Vec<String>,
}

/// What [`plan`] found for a mapper type.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The mapper's unique constraints ([`Mapper::UNIQUE`]).
    pub(crate) unique: Vec<UniqueRule>,
    rendered: Vec<Rendered>,
    /// Every field a key is rendered from, once each (a field in two keys
    /// is read once per write). A source's index is its slot in [`Held`].
    sources: Vec<Source>,
    /// For each field position in the entity's declaration order, the slot
    /// it is held in while the item is serialized, if it is a source.
    held: Vec<Option<u8>>,
    /// The room a new item keeps for the attributes the layout adds.
    pub(crate) owned_attribute_bound: usize,
    /// The mapper's layout, one copy for every write: its names are the
    /// same `&'static str`s wherever the checks read them (each use of
    /// `M::SCHEMA` may carry its own copies), so they compare by address.
    pub(crate) schema: TableSchema,
    /// The names of the layout's key attributes and discriminator, for the
    /// write checks to find in one pass over an item.
    pub(crate) key_names: KeyNames,
    /// The entity's field table (`None`: not a plain struct), as
    /// [`fields`](super::fields) finds it: a write looks one cache up, not
    /// two.
    pub(crate) fields: Option<&'static FieldTable>,
}

impl Plan {
    /// The fields to hold out of the item while it is serialized: the
    /// sources of the rendered keys, read from there.
    pub(crate) fn held(&self) -> Held<'_> {
        Held::new(&self.held)
    }
}

type Checked = std::result::Result<Plan, Vec<String>>;

/// The plan of `M`, worked out on first use and cached.
///
/// # Errors
/// [`ErrorKind::InvalidMapper`](crate::ErrorKind::InvalidMapper) listing
/// every problem of the mapper's declarations.
pub(crate) fn plan<M: Mapper>() -> Result<&'static Plan> {
    static CACHE: TypeCache<TypeId, Checked> = TypeCache::new();
    let checked = CACHE.get_or_insert_with(TypeId::of::<M>(), work_out::<M>);
    match checked {
        Ok(plan) => Ok(plan),
        Err(problems) => {
            Err(Error::invalid_mapper(problems.clone()).with_entity_type(M::ENTITY_TYPE))
        }
    }
}

/// The problems of `M`'s declarations, each a lowercase message without the
/// entity type (empty when there are none).
pub(crate) fn problems<M: Mapper>() -> Vec<String> {
    match plan::<M>() {
        Ok(_) => Vec::new(),
        Err(e) => match e.details() {
            ErrorDetails::InvalidMapper { problems, .. } => problems.clone(),
            _ => vec![e.to_string()],
        },
    }
}

/// The key attributes of `keys`' index (or the table): partition and sort.
///
/// # Errors
/// The problem, when the table has no such index or its keys are
/// multi-attribute (no key pattern renders those).
pub(crate) fn attributes_of(
    table: &TableSchema,
    keys: &IndexKeys,
) -> std::result::Result<(KeyAttribute, Option<KeyAttribute>), String> {
    let Some(name) = keys.index_name() else {
        return Ok((table.partition_key, table.sort_key));
    };
    let Some(index) = table.index(name) else {
        return Err(format!(
            "key patterns name index {name}, which the table does not have"
        ));
    };
    if let Some(attribute) = keys.part_attribute() {
        return part_attribute(index, attribute, keys.partition_key()).map(|a| (a, None));
    }
    index.single_keys().ok_or_else(|| {
        format!(
            "key patterns name index {name}, whose keys are multi-attribute: its key \
             attributes are typed attributes the entity's fields (or its hook) write, not \
             rendered key strings"
        )
    })
}

/// The key attribute a part pattern renders: a string key attribute of a
/// multi-attribute index, of the pattern's role.
fn part_attribute(
    index: &crate::schema::GlobalSecondaryIndex,
    attribute: &str,
    pattern: KeyPattern,
) -> std::result::Result<KeyAttribute, String> {
    let name = index.name;
    if !index.is_multi_attribute() {
        return Err(format!(
            "key pattern `{pattern}` renders attribute `{attribute}` of index {name}, whose \
             keys are single attributes: declare them with `IndexKeys::index`"
        ));
    }
    let partition = index.partition_keys().iter().find(|k| k.name == attribute);
    let sort = index.sort_keys().iter().find(|k| k.name == attribute);
    let (key, role) = match (partition, sort) {
        (Some(k), _) => (*k, KeyRole::Partition),
        (None, Some(k)) => (*k, KeyRole::Sort),
        (None, None) => {
            let list: Vec<&str> = index.key_attributes().map(|k| k.name).collect();
            return Err(format!(
                "key pattern `{pattern}` renders attribute `{attribute}`, which is not a key \
                 attribute of index {name} (its keys: {})",
                list.join(", ")
            ));
        }
    };
    if pattern.role() != role {
        let what = |r: KeyRole| match r {
            KeyRole::Partition => "partition",
            KeyRole::Sort => "sort",
        };
        return Err(format!(
            "key pattern `{pattern}` is a {} key pattern, but `{attribute}` is a {} key \
             attribute of index {name}",
            what(pattern.role()),
            what(role)
        ));
    }
    Ok(key)
}

/// Where `on` is named in messages.
fn on(keys: &IndexKeys) -> String {
    match (keys.index_name(), keys.part_attribute()) {
        (None, _) => "the table".to_owned(),
        (Some(i), None) => format!("index {i}"),
        (Some(i), Some(a)) => format!("attribute `{a}` of index {i}"),
    }
}

/// What the attribute `name` is to the mapper, if it writes it itself: the
/// discriminator and version attributes, its
/// [`OWNED_ATTRIBUTES`](Mapper::OWNED_ATTRIBUTES), and the key attributes of
/// the table and each index it declares key patterns for. (A key attribute
/// of an index without declared patterns may be a field: a natural key such
/// as a table keyed by `id`. So may the TTL attribute: an entity's own
/// expiry, stored as epoch seconds with `time::ttl`, is the usual way to
/// write it; a hook that writes the TTL itself overwrites the field.)
fn role_of<M: Mapper>(name: &str) -> Option<String> {
    let t = &M::SCHEMA;
    let declared = |index: Option<&str>| M::KEY_PATTERNS.iter().any(|k| k.index_name() == index);
    if declared(None) {
        if t.partition_key.name == name {
            return Some("the partition key attribute its key patterns write".to_owned());
        }
        if t.sort_key.is_some_and(|k| k.name == name) {
            return Some("the sort key attribute its key patterns write".to_owned());
        }
    }
    let rendered = |i: &&crate::schema::GlobalSecondaryIndex| {
        declared(Some(i.name)) && !i.is_multi_attribute()
    };
    for index in t.indexes.iter().filter(rendered) {
        if index.partition_keys().iter().any(|k| k.name == name) {
            return Some(format!(
                "the partition key attribute of index {} its key patterns write",
                index.name
            ));
        }
        if index.sort_keys().iter().any(|k| k.name == name) {
            return Some(format!(
                "the sort key attribute of index {} its key patterns write",
                index.name
            ));
        }
    }
    if let Some(keys) = M::KEY_PATTERNS
        .iter()
        .find(|k| k.part_attribute() == Some(name))
    {
        return Some(format!(
            "the key attribute of index {} its key pattern `{}` writes",
            keys.index_name().unwrap_or_default(),
            keys.partition_key()
        ));
    }
    if t.discriminator == Some(name) {
        return Some("the discriminator attribute".to_owned());
    }
    if t.version == Some(name) {
        return Some("the version attribute".to_owned());
    }
    if t.shape == Some(name) {
        return Some("the shape version attribute".to_owned());
    }
    if M::OWNED_ATTRIBUTES.contains(&name) {
        return Some("an attribute the mapper owns (OWNED_ATTRIBUTES)".to_owned());
    }
    None
}

/// Whether a field of `shape` can fill a placeholder of `encoding`; the
/// reason when it cannot.
fn fits(shape: Shape, encoding: Encoding) -> std::result::Result<(), String> {
    let ok = match encoding {
        Encoding::Text => matches!(
            shape,
            Shape::Text | Shape::Unsigned | Shape::Signed | Shape::Bool | Shape::UnitEnum
        ),
        Encoding::Unsigned { .. } => shape == Shape::Unsigned,
        Encoding::Signed { .. } => matches!(shape, Shape::Signed | Shape::Unsigned),
        Encoding::Timestamp { .. } => {
            matches!(shape, Shape::Text | Shape::Signed | Shape::Unsigned)
        }
    };
    if ok {
        return Ok(());
    }
    let hint = match (shape, encoding) {
        (Shape::Signed, Encoding::Unsigned { .. }) => {
            "; use a signed placeholder (`i<width>`) or an unsigned field"
        }
        (_, Encoding::Unsigned { .. } | Encoding::Signed { .. }) => {
            "; a number placeholder needs an integer field"
        }
        (_, Encoding::Timestamp { .. }) => {
            "; a timestamp placeholder needs an RFC 3339 string or unix seconds"
        }
        _ => "; a key component is text, an integer, a boolean or a unit enum",
    };
    Err(format!("is {}{hint}", shape.describe()))
}

fn work_out<M: Mapper>() -> Checked {
    // One copy of the layout: the attribute names the plan renders and the
    // checks read are the same `&'static str`s.
    let schema = M::SCHEMA;
    let mut problems = schema.problems();
    if !M::UPGRADES.is_empty() && schema.shape.is_none() {
        problems.push(format!(
            "declares {} upgrade steps (UPGRADES), but its table names no attribute for the \
             shape version (TableSchema::shape)",
            M::UPGRADES.len()
        ));
    }
    let fields = match field_table::<M::Entity>(M::NAMING) {
        Ok(fields) => fields,
        Err(e) => {
            problems.push(e.to_string());
            None
        }
    };
    // Fields stored under an attribute the mapper writes itself.
    if let Some(fields) = fields {
        for (field, stored) in fields.fields() {
            if let Some(role) = role_of::<M>(stored) {
                problems.push(format!("field `{field}` is stored as `{stored}`, {role}"));
            }
        }
    }
    let unique = unique_rules::<M>(fields, &mut problems);
    let mut rendered = Vec::new();
    let mut all_sources: Vec<Source> = Vec::new();
    for (i, keys) in M::KEY_PATTERNS.iter().enumerate() {
        let on = on(keys);
        let (pk, sk) = match attributes_of(&schema, keys) {
            Ok(keys) => keys,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        match (sk, keys.sort_key()) {
            (Some(_), None) => problems.push(format!(
                "key patterns for {on} declare no sort key pattern, but {on} has a sort key"
            )),
            (None, Some(p)) => problems.push(format!(
                "key patterns for {on} declare the sort key pattern `{p}`, but {on} has no sort key"
            )),
            _ => {}
        }
        let mut valid = true;
        for (attribute, pattern) in std::iter::once((Some(pk), keys.partition_key()))
            .chain(keys.sort_key().map(|p| (sk, p)))
        {
            if let Err(e) = pattern.validate() {
                problems.push(e.to_string());
                valid = false;
            }
            if let Some(a) = attribute.filter(|a| a.scalar_type != ScalarType::S) {
                problems.push(format!(
                    "key pattern `{pattern}` renders strings, but key attribute `{}` is {}",
                    a.name,
                    a.scalar_type.describe()
                ));
                valid = false;
            }
        }
        if keys.is_by_hook() || !valid {
            continue;
        }
        let same_target = |k: &&IndexKeys| {
            (k.index_name(), k.part_attribute()) == (keys.index_name(), keys.part_attribute())
        };
        let same_index = M::KEY_PATTERNS.iter().filter(same_target).count();
        if same_index > 1 {
            if M::KEY_PATTERNS.iter().position(|k| same_target(&k)) == Some(i) {
                problems.push(format!(
                    "declares {same_index} key patterns for {on}; which one applies depends on \
                     state only the hook knows: mark them `.by_hook()` and write the keys in \
                     `after_to_item`"
                ));
            }
            continue;
        }
        let mut target = |attribute: &'static str, pattern: KeyPattern| -> Option<Target> {
            let placeholders = pattern.placeholders().ok()?;
            let mut sources = Vec::with_capacity(placeholders.len());
            let mut complete = true;
            for (placeholder, encoding) in placeholders {
                let Some(fields) = fields else {
                    problems.push(format!(
                        "key pattern `{pattern}` names `{{{placeholder}}}`, but the entity is \
                         not a plain struct, so it has no fields to fill it from; mark the keys \
                         for {on} `.by_hook()` and write them in `after_to_item`"
                    ));
                    return None;
                };
                let Some((field, stored)) = fields.fields().find(|(f, _)| *f == placeholder) else {
                    let mut names: Vec<&str> = fields.fields().map(|(f, _)| f).collect();
                    names.sort_unstable();
                    problems.push(format!(
                        "key pattern `{pattern}` names `{{{placeholder}}}`, which is not a field \
                         of the entity (its fields: {}); mark the keys for {on} `.by_hook()` if \
                         the hook computes it",
                        names.join(", ")
                    ));
                    complete = false;
                    continue;
                };
                let shape = field_shape::<M::Entity>(field);
                if let Err(reason) = fits(shape.shape, encoding) {
                    problems.push(format!(
                        "key pattern `{pattern}` names `{{{placeholder}}}`, but field `{field}` \
                         {reason}"
                    ));
                    complete = false;
                    continue;
                }
                let known = all_sources.iter().position(|s| s.field == field);
                sources.push((known.unwrap_or(all_sources.len()), encoding));
                if known.is_none() {
                    all_sources.push(Source {
                        field,
                        optional: shape.optional,
                        stored: stored.to_owned(),
                    });
                }
            }
            let compiled = pattern.compile().ok()?;
            complete.then_some(Target {
                attribute,
                pattern,
                compiled,
                sources,
            })
        };
        let partition = target(pk.name, keys.partition_key());
        let sort = match (sk, keys.sort_key()) {
            (Some(a), Some(p)) => target(a.name, p).map(Some),
            _ => Some(None),
        };
        if let (Some(partition), Some(sort)) = (partition, sort) {
            rendered.push(Rendered {
                table: keys.index_name().is_none(),
                partition,
                sort,
            });
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    // Each source is held in the slot of its index, the first `MAX_HELD`.
    let mut held = Vec::new();
    if let Some(fields) = fields {
        held = fields
            .in_order()
            .map(|field| {
                all_sources
                    .iter()
                    .position(|s| s.field == field)
                    .filter(|&slot| slot < MAX_HELD)
                    .and_then(|slot| u8::try_from(slot).ok())
            })
            .collect();
    }
    Ok(Plan {
        unique,
        rendered,
        sources: all_sources,
        held,
        owned_attribute_bound: schema.owned_attribute_bound(),
        schema,
        key_names: KeyNames::new(&schema, schema.discriminator),
        fields,
    })
}

/// The unique constraints of `M`, their fields resolved to stored names;
/// what is wrong with them goes to `problems`.
fn unique_rules<M: Mapper>(
    fields: Option<&'static FieldTable>,
    problems: &mut Vec<String>,
) -> Vec<UniqueRule> {
    if M::UNIQUE.is_empty() {
        return Vec::new();
    }
    let schema = M::SCHEMA;
    let string_key = |k: KeyAttribute| k.scalar_type == ScalarType::S;
    if !string_key(schema.partition_key) || schema.sort_key.is_some_and(|k| !string_key(k)) {
        problems.push(
            "declares unique constraints, whose sentinel items need string table keys; this \
             table's keys are not both strings"
                .to_owned(),
        );
    }
    if let Some(ttl) = schema.ttl {
        problems.push(format!(
            "declares unique constraints on a table with a TTL attribute (`{ttl}`): when \
             DynamoDB expires an item, its sentinels would stay and hold its values forever"
        ));
    }
    if schema.discriminator.is_none() {
        problems.push(
            "declares unique constraints, whose sentinel items are marked by the discriminator, \
             but the table has none (TableSchema::discriminator)"
                .to_owned(),
        );
    }
    let Some(fields) = fields else {
        problems.push(
            "declares unique constraints, but the entity is not a plain struct, so it has no \
             fields to take their values from"
                .to_owned(),
        );
        return Vec::new();
    };
    let mut out: Vec<UniqueRule> = Vec::new();
    for constraint in M::UNIQUE {
        if constraint.name.is_empty() || constraint.fields.is_empty() {
            problems.push(format!(
                "unique constraint `{}` needs a name and at least one field",
                constraint.name
            ));
            continue;
        }
        if out.iter().any(|r| r.name == constraint.name) {
            problems.push(format!(
                "declares the unique constraint `{}` twice",
                constraint.name
            ));
            continue;
        }
        let mut stored = Vec::with_capacity(constraint.fields.len());
        for field in constraint.fields {
            match fields.fields().find(|(f, _)| f == field) {
                Some((_, name)) => stored.push(name.to_owned()),
                None => {
                    let mut names: Vec<&str> = fields.fields().map(|(f, _)| f).collect();
                    names.sort_unstable();
                    problems.push(format!(
                        "unique constraint `{}` names `{field}`, which is not a field of the \
                         entity (its fields: {})",
                        constraint.name,
                        names.join(", ")
                    ));
                }
            }
        }
        out.push(UniqueRule {
            name: constraint.name,
            stored,
        });
    }
    out
}

/// How an attribute takes part in a mapper's derived attributes: what a
/// raw change of it would leave stale.
#[derive(Debug, Clone, Default)]
pub(crate) struct Derivation {
    /// It is a key attribute the mapper renders from this pattern.
    pub(crate) rendered: Option<KeyPattern>,
    /// The key attributes rendered from it, each with its pattern (both
    /// keys of a sparse index: they come and go together).
    pub(crate) feeds: Vec<(&'static str, KeyPattern)>,
    /// It is a key attribute of an index whose keys `after_to_item` writes
    /// (`by_hook()`): what it is derived from only the hook knows.
    pub(crate) by_hook: bool,
    /// It is a field of this unique constraint: its sentinel follows it.
    pub(crate) unique: Option<&'static str>,
}

impl Derivation {
    /// Whether a raw change of the attribute touches nothing derived.
    pub(crate) fn is_free(&self) -> bool {
        self.rendered.is_none() && self.feeds.is_empty() && !self.by_hook && self.unique.is_none()
    }
}

/// What a raw change of the top-level attribute `name` of `M`'s items
/// touches among the derived attributes.
///
/// # Errors
/// As [`plan`].
pub(crate) fn derivation<M: Mapper>(name: &str) -> Result<Derivation> {
    let plan = plan::<M>()?;
    let mut out = Derivation::default();
    for keys in &plan.rendered {
        let targets = || std::iter::once(&keys.partition).chain(keys.sort.as_ref());
        for target in targets() {
            if target.attribute == name {
                out.rendered = Some(target.pattern);
            }
        }
        // An index whose keys come and go with an optional field (a sparse
        // index) has its keys written together or not at all: a source of
        // one is a source of both.
        let sources = |t: &'static Target| plan.sources_of(t);
        let sparse = !keys.table && targets().any(|t| sources(t).any(|s| s.optional));
        let feeds = |t: &&'static Target| sources(t).any(|s| s.stored == name);
        if targets().any(|t| feeds(&t)) {
            out.feeds.extend(
                targets()
                    .filter(|t| sparse || feeds(t))
                    .map(|t| (t.attribute, t.pattern)),
            );
        }
    }
    for keys in M::KEY_PATTERNS.iter().filter(|k| k.is_by_hook()) {
        if let Ok((pk, sk)) = attributes_of(&M::SCHEMA, keys)
            && (pk.name == name || sk.is_some_and(|k| k.name == name))
        {
            out.by_hook = true;
        }
    }
    out.unique = plan
        .unique
        .iter()
        .find(|r| r.stored.iter().any(|s| s == name))
        .map(|r| r.name);
    Ok(out)
}

/// The stored names of every field the keys of `attribute`'s index are
/// rendered from (both keys of the index), when `attribute` is a key the
/// plan renders.
///
/// # Errors
/// As [`plan`].
pub(crate) fn sources_of<M: Mapper>(attribute: &str) -> Result<Vec<&'static str>> {
    let plan = plan::<M>()?;
    let mut out = Vec::new();
    for keys in &plan.rendered {
        let targets = || std::iter::once(&keys.partition).chain(keys.sort.as_ref());
        if targets().any(|t| t.attribute == attribute) {
            for source in targets().flat_map(|t| plan.sources_of(t)) {
                if !out.contains(&source.stored.as_str()) {
                    out.push(source.stored.as_str());
                }
            }
        }
    }
    Ok(out)
}

/// Why a key was not rendered.
enum Missing {
    /// A field is absent or NULL.
    Absent(&'static str),
    /// It could not be rendered: the error.
    Failed(Error),
}

impl Plan {
    /// The sources of `target`'s placeholders, in the template's order.
    fn sources_of<'p>(&'p self, target: &'p Target) -> impl Iterator<Item = &'p Source> {
        target
            .sources
            .iter()
            .filter_map(|&(source, _)| self.sources.get(source))
    }

    /// Renders the keys of every index whose keys come from fields into
    /// `item`, which holds the entity's attributes but those `held` holds
    /// (the sources, read there without a lookup; the caller puts them in
    /// after). A global secondary index whose key fields are absent (or
    /// NULL) gets no keys (a sparse index). For the table keys, an absent
    /// field is an error unless the hook writes the key itself: the error is
    /// handed back, to be raised after the hook ran if the key is still
    /// missing.
    pub(crate) fn render(
        &self,
        item: &mut Item,
        held: &Held<'_>,
        rendered: &mut RenderedKeys,
    ) -> Result<Vec<(&'static str, Error)>> {
        let mut pending = Vec::new();
        for keys in &self.rendered {
            let partition = self.render_one(&keys.partition, item, held);
            let sort = keys.sort.as_ref().map(|t| self.render_one(t, item, held));
            let (partition, sort) = match (partition, sort) {
                (Ok(pk), None) => (pk, None),
                (Ok(pk), Some(Ok(sk))) => (pk, Some(sk)),
                (Err(Missing::Failed(e)), _) | (_, Some(Err(Missing::Failed(e)))) => {
                    return Err(e);
                }
                (Err(Missing::Absent(field)), sort) => {
                    let sort = sort.and_then(std::result::Result::ok);
                    let missing = (keys.partition.attribute, field);
                    pending.extend(absent(keys, item, None, sort, missing));
                    continue;
                }
                (Ok(pk), Some(Err(Missing::Absent(field)))) => {
                    let attribute = keys.sort.as_ref().map_or("", |t| t.attribute);
                    pending.extend(absent(keys, item, Some(pk), None, (attribute, field)));
                    continue;
                }
            };
            rendered.add(keys.partition.attribute, &partition);
            item.insert(
                keys.partition.attribute.to_owned(),
                AttributeValue::S(partition),
            );
            if let (Some(target), Some(sort)) = (&keys.sort, sort) {
                rendered.add(target.attribute, &sort);
                item.insert(target.attribute.to_owned(), AttributeValue::S(sort));
            }
        }
        Ok(pending)
    }

    /// The key of `target`, from the fields `held` holds and the others in
    /// `item`.
    fn render_one(
        &self,
        target: &Target,
        item: &Item,
        held: &Held<'_>,
    ) -> std::result::Result<String, Missing> {
        // Held fields first: their sizes size the key (a field in the item
        // would cost a lookup more).
        let values_len = target
            .sources
            .iter()
            .map(|&(source, _)| match held.get(source) {
                Some(Some(AttributeValue::S(s) | AttributeValue::N(s))) => s.len(),
                _ => 16,
            })
            .sum();
        let value = |i: usize| {
            let Some((slot, source, encoding)) = target
                .sources
                .get(i)
                .and_then(|&(slot, encoding)| Some((slot, self.sources.get(slot)?, encoding)))
            else {
                return Err(Missing::Failed(Error::invalid_key(
                    target.attribute,
                    format!(
                        "cannot be rendered from key pattern `{}`: placeholder {i} has no field",
                        target.pattern
                    ),
                )));
            };
            let found = match held.get(slot) {
                Some(found) => found,
                None => item.get(&source.stored),
            };
            match found {
                None | Some(AttributeValue::Null(_)) => Err(Missing::Absent(source.field)),
                Some(v) => key_value(v, encoding).map_err(|reason| {
                    Missing::Failed(Error::invalid_key(
                        target.attribute,
                        format!(
                            "cannot be rendered from key pattern `{}`: field `{}` {reason}",
                            target.pattern, source.field
                        ),
                    ))
                }),
            }
        };
        target
            .compiled
            .render_with(values_len, value)
            .map_err(|failure| match failure {
                RenderFailure::Value(missing) => missing,
                RenderFailure::Pattern(e) => Missing::Failed(Error::invalid_key(
                    target.attribute,
                    format!("cannot be rendered: {e}"),
                )),
            })
    }
}

/// An index of which a key could not be rendered, the field `missing`
/// being absent: a sparse index gets no keys; the table gets the key
/// that was rendered (the hook may write the other one), and the error
/// for the other, to raise if the hook does not.
fn absent(
    keys: &Rendered,
    item: &mut Item,
    partition: Option<String>,
    sort: Option<String>,
    (attribute, field): (&'static str, &'static str),
) -> Option<(&'static str, Error)> {
    if !keys.table {
        return None; // sparse index
    }
    if let Some(value) = partition {
        item.insert(
            keys.partition.attribute.to_owned(),
            AttributeValue::S(value),
        );
    }
    if let (Some(target), Some(value)) = (&keys.sort, sort) {
        item.insert(target.attribute.to_owned(), AttributeValue::S(value));
    }
    let pattern = if attribute == keys.partition.attribute {
        keys.partition.pattern
    } else {
        keys.sort
            .as_ref()
            .map_or(keys.partition.pattern, |t| t.pattern)
    };
    Some((
        attribute,
        Error::invalid_key(
            attribute,
            format!(
                "cannot be rendered from key pattern `{pattern}`: field `{field}` is absent \
                 (or null), and the table's keys are required"
            ),
        ),
    ))
}

/// A field's serialized value as a key component for `encoding`.
#[inline]
fn key_value(
    value: &AttributeValue,
    encoding: Encoding,
) -> std::result::Result<KeyValue<'_>, String> {
    match (value, encoding) {
        (AttributeValue::S(s), Encoding::Text) => Ok(KeyValue::Text(s.as_str().into())),
        (AttributeValue::S(s), Encoding::Timestamp { fraction_digits }) => {
            std::iter::once(fraction_digits)
                .chain(0..=9)
                .find_map(|digits| decode_timestamp(s, digits).ok())
                .map(KeyValue::Timestamp)
                .ok_or_else(|| {
                    format!("is {s:?}, not an RFC 3339 UTC time such as 2024-01-15T10:30:00Z")
                })
        }
        (AttributeValue::N(n), Encoding::Text) => Ok(KeyValue::Text(n.as_str().into())),
        (AttributeValue::N(n), Encoding::Unsigned { .. }) => n
            .parse::<u64>()
            .map(KeyValue::Unsigned)
            .map_err(|_| format!("is {n}, not an unsigned integer of at most 64 bits")),
        (AttributeValue::N(n), Encoding::Signed { .. }) => n
            .parse::<i64>()
            .map(KeyValue::Signed)
            .map_err(|_| format!("is {n}, not a signed integer of at most 64 bits")),
        (AttributeValue::N(n), Encoding::Timestamp { .. }) => {
            let secs: i64 = n
                .parse()
                .map_err(|_| format!("is {n}, not whole unix seconds"))?;
            let at = if secs >= 0 {
                UNIX_EPOCH.checked_add(Duration::from_secs(secs.unsigned_abs()))
            } else {
                UNIX_EPOCH.checked_sub(Duration::from_secs(secs.unsigned_abs()))
            };
            at.map(KeyValue::Timestamp)
                .ok_or_else(|| format!("is {n}, out of range for a time"))
        }
        (AttributeValue::Bool(b), Encoding::Text) => {
            Ok(KeyValue::Text(if *b { "true" } else { "false" }.into()))
        }
        (other, _) => Err(format!(
            "is {}, which cannot fill this placeholder",
            type_name(other)
        )),
    }
}
