//! Values nested deeper than DynamoDB allows (32 levels) get a typed error
//! from every entry point that takes an item or an entity, never a stack
//! overflow (which aborts the whole process): each case runs on a thread
//! with a 2 MiB stack, in a debug build, at depths 33, 257, 1,000 and
//! 100,000.
//!
//! Building and dropping a value 100,000 levels deep is itself recursive in
//! Rust (the derived `Drop` of `AttributeValue`, of a `Box` chain) and
//! overflows such a stack, in the test as it would in the crate. The test
//! builds its values with loops and frees the ones it keeps with [`free`],
//! which takes them apart without recursion; the crate frees the ones it is
//! given the same way (an item it refuses, the items a registry or
//! `Buckets` drops).

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::ItemExt;
use dynamodb_mapper::{
    Buckets, Decoded, Error, ErrorKind, Item, Mapper, MapperExt, MissingPolicy, Record, Registry,
    TableSchema, UnknownPolicy, item_size,
};
use serde::{Deserialize, Serialize};

const DEPTHS: [usize; 4] = [33, 257, 1_000, 100_000];

/// A tree: `{"m": {"m": … {"m": null}}}` as an item value.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct Tree {
    m: Option<Box<Tree>>,
}

impl Tree {
    /// A chain of `levels` trees, built without recursion.
    fn deep(levels: usize) -> Tree {
        let mut tree = Tree::default();
        for _ in 1..levels {
            tree = Tree {
                m: Some(Box::new(tree)),
            };
        }
        tree
    }

    /// Frees the chain without recursion (its derived `Drop` recurses).
    fn free(mut self) {
        let mut next = self.m.take();
        while let Some(mut tree) = next {
            next = tree.m.take();
        }
    }
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Doc {
    id: String,
    data: Option<Tree>,
}

const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");

struct DocMapper;

impl Mapper for DocMapper {
    type Entity = Doc;
    const ENTITY_TYPE: &'static str = "Doc";
    const SCHEMA: TableSchema = TABLE;
    fn after_to_item(d: &Doc, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("pk", format!("DOC#{}", d.id));
        item.put_str("sk", "DOC");
        Ok(())
    }
}

#[derive(Debug)]
enum App {
    Doc(Doc),
}

/// `levels` nested maps, `{"m": {"m": … {"m": null}}}`, built without
/// recursion.
fn deep_map(levels: usize) -> AttributeValue {
    let mut v = AttributeValue::Null(true);
    for _ in 0..levels {
        v = AttributeValue::M(HashMap::from([("m".to_string(), v)]));
    }
    v
}

/// `levels` nested lists, `[[…[null]…]]`.
fn deep_list(levels: usize) -> AttributeValue {
    let mut v = AttributeValue::Null(true);
    for _ in 0..levels {
        v = AttributeValue::L(vec![v]);
    }
    v
}

/// Frees a value without recursion.
fn free(value: AttributeValue) {
    let mut pending = vec![value];
    while let Some(v) = pending.pop() {
        match v {
            AttributeValue::L(list) => pending.extend(list),
            AttributeValue::M(map) => pending.extend(map.into_values()),
            _ => {}
        }
    }
}

fn free_item(item: Item) {
    item.into_values().for_each(free);
}

/// A stored `Doc` item with `value` as the attribute `name`.
fn doc_item(name: &str, value: AttributeValue) -> Item {
    let mut item = DocMapper::to_item(&Doc {
        id: "D1".into(),
        data: None,
    })
    .unwrap();
    item.insert(name.to_owned(), value);
    item
}

/// Runs `f` on a thread with a 2 MiB stack; a stack overflow aborts the
/// test process.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

/// The path of the first list or map too deep inside attribute `name`
/// (the 32nd level: DynamoDB allows 31 inside a top-level attribute).
fn deep_path(name: &str, step: &str) -> String {
    format!("{name}{}", step.repeat(31))
}

fn assert_too_deep(e: &Error, entity_type: Option<&str>, path: &str) {
    assert_eq!(e.kind(), ErrorKind::InvalidValue, "{e}");
    assert_eq!(e.entity_type(), entity_type, "{e}");
    assert_eq!(e.attribute(), Some(path), "{e}");
    assert!(
        e.to_string()
            .ends_with("nests lists and maps 32 or more levels deep; DynamoDB allows 31 (values at most 32 levels deep)"),
        "{e}"
    );
}

fn expect_err<T>(result: dynamodb_mapper::Result<T>) -> Error {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

#[test]
fn from_item_refuses_deep_fields_and_other_attributes() {
    for depth in DEPTHS {
        on_small_stack(move || {
            for (name, value, step) in [
                ("data", deep_map(depth), ".m"),
                ("extra", deep_map(depth), ".m"),
                ("data", deep_list(depth), "[0]"),
                ("extra", deep_list(depth), "[0]"),
            ] {
                let e = expect_err(DocMapper::from_item(doc_item(name, value)));
                assert_too_deep(&e, Some("Doc"), &deep_path(name, step));
                assert_eq!(e.key(), Some(r#"pk="DOC#D1", sk="DOC""#));
                assert!(
                    e.to_string().starts_with(&format!(
                        "Doc (pk=\"DOC#D1\", sk=\"DOC\"): attribute `{name}"
                    )),
                    "{e}"
                );
            }
        });
    }
}

#[test]
fn record_from_item_refuses_deep_values() {
    for depth in DEPTHS {
        on_small_stack(move || {
            for name in ["data", "extra"] {
                let e = expect_err(DocMapper::record_from_item(doc_item(name, deep_map(depth))));
                assert_too_deep(&e, Some("Doc"), &deep_path(name, ".m"));
            }
        });
    }
}

#[test]
fn writing_a_deep_bag_is_refused() {
    for depth in DEPTHS {
        on_small_stack(move || {
            let doc = Doc {
                id: "D1".into(),
                data: None,
            };
            let mut bag = Item::new();
            bag.insert("extra".into(), deep_list(depth));
            let e = expect_err(DocMapper::to_item_with_bag(&doc, &bag));
            assert_too_deep(&e, Some("Doc"), &deep_path("extra", "[0]"));

            let mut record = Record::new(doc);
            record.bag = bag;
            let e = expect_err(DocMapper::record_to_item(&record));
            assert_too_deep(&e, Some("Doc"), &deep_path("extra", "[0]"));
            free_item(record.bag);
        });
    }
}

#[test]
fn writing_a_deep_entity_is_refused() {
    for depth in DEPTHS {
        on_small_stack(move || {
            let doc = Doc {
                id: "D1".into(),
                data: Some(Tree::deep(depth)),
            };
            let e = expect_err(DocMapper::to_item(&doc));
            // `data` is depth 1; the 32nd map is 31 `m`s below it.
            assert_too_deep(&e, Some("Doc"), &deep_path("data", ".m"));
            // The key helper serializes too.
            let e = expect_err(DocMapper::key(&doc));
            assert_too_deep(&e, Some("Doc"), &deep_path("data", ".m"));
            if let Some(tree) = doc.data {
                tree.free();
            }
        });
    }
}

#[test]
fn expression_values_that_nest_deep_are_refused() {
    for depth in DEPTHS {
        on_small_stack(move || {
            let tree = Tree::deep(depth);
            let e = expect_err(
                dynamodb_mapper::expr::attr("data")
                    .eq(dynamodb_mapper::expr::value(&tree))
                    .build(),
            );
            assert!(
                e.to_string()
                    .contains("nests lists and maps 32 or more levels deep"),
                "{e}"
            );
            tree.free();
        });
    }
}

#[test]
fn sizes_of_deep_values_are_measured_without_recursion() {
    for depth in DEPTHS {
        on_small_stack(move || {
            let value = deep_list(depth);
            // The name `d`: 1 byte; each list: 3 bytes plus 1 per element;
            // the null: 1 byte.
            let item = Item::from([("d".to_string(), value)]);
            assert_eq!(item_size(&item), 1 + 4 * depth + 1);
            free_item(item);
        });
    }
}

fn registry(unknown: UnknownPolicy, missing: MissingPolicy) -> Registry<App> {
    Registry::builder()
        .register::<DocMapper>(App::Doc)
        .on_unknown(unknown)
        .on_missing(missing)
        .group("docs", &["Doc"])
        .build()
        .unwrap()
}

#[test]
fn registry_decoding_refuses_deep_items_on_every_route() {
    for depth in DEPTHS {
        on_small_stack(move || {
            for (unknown, missing) in [
                (UnknownPolicy::Error, MissingPolicy::Error),
                (UnknownPolicy::Skip, MissingPolicy::Skip),
                (UnknownPolicy::Keep, MissingPolicy::Keep),
            ] {
                let registry = registry(unknown, missing);
                // Read by a mapper: the mapper's error.
                let e = expect_err(registry.decode(doc_item("data", deep_map(depth))));
                assert_too_deep(&e, Some("Doc"), &deep_path("data", ".m"));
                let group = registry.group("docs").unwrap();
                let e = expect_err(group.decode(doc_item("extra", deep_map(depth))));
                assert_too_deep(&e, Some("Doc"), &deep_path("extra", ".m"));

                // No mapper reads it (unknown or missing discriminator): not
                // kept, trimmed or dropped whole, whatever the policy.
                let mut unknown_item = doc_item("extra", deep_map(depth));
                unknown_item.insert("entityType".into(), AttributeValue::S("Refund".into()));
                let e = expect_err(registry.decode(unknown_item));
                assert_too_deep(&e, None, &deep_path("extra", ".m"));
                assert_eq!(e.key(), Some(r#"pk="DOC#D1", sk="DOC""#));
                assert!(
                    e.to_string()
                        .starts_with("item (pk=\"DOC#D1\", sk=\"DOC\"): attribute `extra.m"),
                    "{e}"
                );
                let mut missing_item = doc_item("extra", deep_list(depth));
                missing_item.remove("entityType");
                let e = expect_err(registry.decode(missing_item));
                assert_too_deep(&e, None, &deep_path("extra", "[0]"));

                // `decode_all` stops at the first, and drops the rest (as
                // deep) without recursion.
                let items = vec![
                    doc_item("data", AttributeValue::Null(true)),
                    doc_item("data", deep_map(depth)),
                    doc_item("extra", deep_list(depth)),
                ];
                let e = expect_err(registry.decode_all(items));
                assert_too_deep(&e, Some("Doc"), &deep_path("data", ".m"));
            }
        });
    }
}

#[test]
fn buckets_refuse_deep_items_and_drop_them_without_recursion() {
    for depth in DEPTHS {
        on_small_stack(move || {
            let mut parts =
                Buckets::by_discriminator(vec![doc_item("data", deep_map(depth))], "entityType");
            let e = expect_err(parts.one::<DocMapper>());
            assert_too_deep(&e, Some("Doc"), &deep_path("data", ".m"));

            let mut parts = Buckets::by_discriminator(
                vec![
                    doc_item("data", deep_map(depth)),
                    doc_item("extra", deep_list(depth)),
                ],
                "entityType",
            );
            let e = expect_err(parts.many::<DocMapper>());
            assert_too_deep(&e, Some("Doc"), &deep_path("data", ".m"));

            // Two deep items for `one`: a cardinality error, both dropped.
            let mut parts = Buckets::by_discriminator(
                vec![
                    doc_item("data", deep_map(depth)),
                    doc_item("data", deep_list(depth)),
                ],
                "entityType",
            );
            assert_eq!(
                expect_err(parts.one::<DocMapper>()).kind(),
                ErrorKind::Cardinality
            );

            // Unclaimed deep items: reported, then dropped.
            let unclaimed = || {
                let mut item = doc_item("extra", deep_map(depth));
                item.insert("entityType".into(), AttributeValue::S("Refund".into()));
                item
            };
            let parts = Buckets::by_discriminator(vec![unclaimed()], "entityType");
            assert_eq!(expect_err(parts.finish()).kind(), ErrorKind::UnclaimedItems);
            // Dropped unread.
            drop(Buckets::by_discriminator(vec![unclaimed()], "entityType"));
        });
    }
}

#[test]
fn decoded_entities_within_the_limit_still_read() {
    on_small_stack(|| {
        // 31 nested maps in an attribute: the most DynamoDB stores.
        let item = doc_item("data", deep_map(31));
        let doc = DocMapper::from_item(item).unwrap();
        let mut depth = 0;
        let mut tree = doc.data.as_ref();
        while let Some(t) = tree {
            depth += 1;
            tree = t.m.as_deref();
        }
        assert_eq!(depth, 31);
        let item = DocMapper::to_item(&doc).unwrap();
        assert_eq!(DocMapper::from_item(item).unwrap(), doc);
        match registry(UnknownPolicy::Error, MissingPolicy::Error)
            .decode(doc_item("extra", deep_list(31)))
            .unwrap()
        {
            Decoded::Entity(App::Doc(d)) => assert_eq!(d.id, "D1"),
            other => panic!("{other:?}"),
        }
    });
}
