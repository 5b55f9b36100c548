//! The record rules that need no source: images against kinds and view
//! types, TTL removals, and the batch stopping at its first failure.

use aws_sdk_dynamodb::types::AttributeValue;

use serde::{Deserialize, Serialize};

use super::*;
use crate::{
    ErrorKind, IndexKeys, Item, KeyPattern, Mapper, MapperExt, Registry, TableSchema, UnknownPolicy,
};

const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Customer {
    id: String,
}

struct CustomerMapper;

impl Mapper for CustomerMapper {
    type Entity = Customer;
    const ENTITY_TYPE: &'static str = "Customer";
    const SCHEMA: TableSchema = TABLE;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("CUSTOMER#{id}"))
            .sort(KeyPattern::sort("METADATA"))];
}

#[derive(Debug, Clone, PartialEq)]
enum Entity {
    Customer(Customer),
}

fn registry(policy: UnknownPolicy) -> Registry<Entity> {
    Registry::builder()
        .register::<CustomerMapper>(Entity::Customer)
        .on_unknown(policy)
        .build()
        .unwrap()
}

fn customer(id: &str) -> Item {
    CustomerMapper::to_item(&Customer { id: id.into() }).unwrap()
}

fn record(kind: ChangeKind, view: ViewType, old: Option<Item>, new: Option<Item>) -> ChangeRecord {
    let mut r = ChangeRecord::new("e", kind, Item::new());
    r.view_type = Some(view);
    r.old_image = old;
    r.new_image = new;
    r
}

#[test]
fn every_kind_and_view_type_combination() {
    let registry = registry(UnknownPolicy::Error);
    let views = [
        ViewType::KeysOnly,
        ViewType::NewImage,
        ViewType::OldImage,
        ViewType::NewAndOldImages,
    ];
    let kinds = [ChangeKind::Insert, ChangeKind::Modify, ChangeKind::Remove];
    for kind in kinds {
        for view in views {
            for old in [false, true] {
                for new in [false, true] {
                    let expect_old = kind != ChangeKind::Insert && view.has_old();
                    let expect_new = kind != ChangeKind::Remove && view.has_new();
                    let r = record(
                        kind,
                        view,
                        old.then(|| customer("A")),
                        new.then(|| customer("B")),
                    );
                    let decoded = registry.decode_change(r);
                    let valid = old == expect_old && new == expect_new;
                    match decoded {
                        Ok(change) => {
                            assert!(valid, "{kind:?} {view:?} old={old} new={new} accepted");
                            assert_eq!(change.old.is_some(), old);
                            assert_eq!(change.new.is_some(), new);
                        }
                        Err(e) => {
                            assert!(!valid, "{kind:?} {view:?} old={old} new={new}: {e}");
                            assert_eq!(e.kind(), ErrorKind::InvalidStreamRecord);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn without_a_view_type_the_images_present_are_decoded() {
    let registry = registry(UnknownPolicy::Error);
    let mut r = ChangeRecord::new("e", ChangeKind::Modify, Item::new());
    r.old_image = Some(customer("A"));
    r.new_image = Some(customer("B"));
    let change = registry.decode_change(r).unwrap();
    assert_eq!(
        change.new.unwrap().into_entity(),
        Some(Entity::Customer(Customer { id: "B".into() }))
    );
    let mut insert_with_old = ChangeRecord::new("e", ChangeKind::Insert, Item::new());
    insert_with_old.old_image = Some(customer("A"));
    assert_eq!(
        registry
            .decode_change(insert_with_old)
            .unwrap_err()
            .to_string(),
        "stream record \"e\" cannot be read: it carries the old image, which INSERT records never have"
    );
}

#[test]
fn ttl_removals_are_told_apart_from_deletes() {
    let remove = ChangeRecord::new("e", ChangeKind::Remove, Item::new());
    assert!(!remove.clone().removed_by_ttl());
    for (t, p, ttl) in [
        ("Service", super::change_record::TTL_PRINCIPAL, true),
        ("Service", "other.amazonaws.com", false),
        ("User", super::change_record::TTL_PRINCIPAL, false),
    ] {
        let mut r = remove.clone();
        r.user_identity = Some((t.to_owned(), p.to_owned()));
        assert_eq!(r.removed_by_ttl(), ttl, "{t} {p}");
        let change = registry(UnknownPolicy::Error).decode_change(r).unwrap();
        assert_eq!(change.removed_by_ttl, ttl);
    }
    // Only a removal is a TTL expiry.
    let mut modify = ChangeRecord::new("e", ChangeKind::Modify, Item::new());
    modify.user_identity = Some((
        "Service".to_owned(),
        super::change_record::TTL_PRINCIPAL.to_owned(),
    ));
    assert!(!modify.removed_by_ttl());
}

#[test]
fn unknown_types_follow_the_registry_policy() {
    let mut refund = customer("A");
    refund.insert("entityType".into(), AttributeValue::S("Refund".into()));
    let r = || {
        let mut r = ChangeRecord::new("e", ChangeKind::Insert, Item::new());
        r.view_type = Some(ViewType::NewImage);
        r.new_image = Some(refund.clone());
        r
    };
    let err = registry(UnknownPolicy::Error)
        .decode_change(r())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownEntityType);
    let skipped = registry(UnknownPolicy::Skip).decode_change(r()).unwrap();
    assert!(matches!(skipped.new, Some(crate::Decoded::Skipped(_))));
    let kept = registry(UnknownPolicy::Keep).decode_change(r()).unwrap();
    assert!(matches!(kept.new, Some(crate::Decoded::Raw(_))));
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

fn insert(seq: Option<&str>, id: &str) -> crate::Result<ChangeRecord> {
    let item = customer(id);
    let mut r = ChangeRecord::new(format!("e-{id}"), ChangeKind::Insert, TABLE.key_of(&item)?);
    r.new_image = Some(item);
    r.sequence_number = seq.map(str::to_owned);
    Ok(r)
}

#[test]
fn a_batch_stops_at_its_first_failure_and_reports_only_it() {
    let registry = registry(UnknownPolicy::Error);
    let mut refund = customer("R");
    refund.insert("entityType".into(), AttributeValue::S("Refund".into()));
    let mut bad_image = ChangeRecord::new("e-bad", ChangeKind::Insert, Item::new());
    bad_image.sequence_number = Some("3".to_owned());
    bad_image.new_image = Some(refund);
    let bad_image = Ok(bad_image);
    let unreadable = Err(crate::Error::invalid_stream_record(
        "e-unreadable",
        Some("2"),
        "its event name is \"UPSERT\"",
    ));
    // A failure of each kind: an unreadable record, an image of an
    // unknown type, a handler error; the records after it are not handled.
    /// Records, the identifier reported, how many were handled, the event
    /// id of the failed record.
    type Case = (
        Vec<crate::Result<ChangeRecord>>,
        &'static str,
        usize,
        Option<&'static str>,
    );
    let cases: Vec<Case> = vec![
        (
            vec![insert(Some("1"), "A"), unreadable, insert(Some("3"), "C")],
            "2",
            1,
            Some("e-unreadable"),
        ),
        (
            vec![insert(Some("1"), "A"), insert(Some("2"), "B"), bad_image],
            "3",
            2,
            Some("e-bad"),
        ),
        (
            vec![
                insert(Some("1"), "A"),
                insert(Some("2"), "FAIL"),
                insert(Some("3"), "C"),
            ],
            "2",
            1,
            Some("e-FAIL"),
        ),
        // No sequence number: an empty identifier, the whole batch again.
        (
            vec![insert(None, "FAIL"), insert(Some("3"), "C")],
            "",
            0,
            Some("e-FAIL"),
        ),
    ];
    for (records, identifier, handled, event_id) in cases {
        let mut seen = Vec::new();
        let outcome = block_on(process_records(&registry, records, |change| {
            let id = match change.new.and_then(crate::Decoded::into_entity) {
                Some(Entity::Customer(c)) => c.id,
                _ => String::new(),
            };
            let fail = id == "FAIL";
            seen.push(id);
            async move { if fail { Err("handler failed") } else { Ok(()) } }
        }));
        assert_eq!(outcome.handled, handled);
        assert_eq!(seen.iter().filter(|id| *id != "FAIL").count(), handled);
        assert_eq!(
            outcome.batch_item_failures,
            [BatchItemFailure {
                item_identifier: identifier.to_owned()
            }]
        );
        let failed = outcome.failed.unwrap();
        assert_eq!(failed.event_id.as_deref(), event_id);
    }
    // Nothing fails: nothing to report, every record handled.
    let records = vec![insert(Some("1"), "A"), insert(Some("2"), "B")];
    let outcome = block_on(process_records(&registry, records, |_| async {
        Ok::<(), crate::error::BoxError>(())
    }));
    assert_eq!(outcome.handled, 2);
    assert!(outcome.batch_item_failures.is_empty() && outcome.failed.is_none());
}

/// The names parse back to what displays them, exactly (case included);
/// any other text is an `InvalidValue` naming the attribute and the names.
#[test]
fn kinds_and_view_types_parse_from_their_names() {
    fn round_trip<T>(all: &[T], as_str: fn(&T) -> &'static str)
    where
        T: std::str::FromStr<Err = crate::Error> + std::fmt::Display + PartialEq + std::fmt::Debug,
    {
        for value in all {
            assert_eq!(value.to_string(), as_str(value));
            assert_eq!(&as_str(value).parse::<T>().unwrap(), value);
            let lower = as_str(value).to_lowercase();
            assert!(lower.parse::<T>().is_err(), "{lower}");
        }
    }
    round_trip(ChangeKind::ALL, |k| k.as_str());
    round_trip(ViewType::ALL, |v| v.as_str());
    let err = "UPSERT".parse::<ChangeKind>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue);
    assert_eq!(
        err.to_string(),
        "attribute `eventName` is \"UPSERT\"; expected INSERT, MODIFY or REMOVE"
    );
    let err = "".parse::<ViewType>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue);
    assert_eq!(
        err.to_string(),
        "attribute `StreamViewType` is \"\"; expected KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or \
         NEW_AND_OLD_IMAGES"
    );
}
