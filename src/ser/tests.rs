//! The serializer against `serde_dynamo`, and on what it adds: paths,
//! 128-bit numbers, depth bounds, map keys.

use crate::item::ItemExt;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::{ErrorKind, Item, Mapper, MapperExt, TableSchema};

type MapKeyed = BTreeMap<BTreeMap<u8, u8>, u8>;

/// Map keys `serde_dynamo` panicked on (`unreachable!`): a sequence, a
/// map or bytes, at any depth. Each is now an error naming the attribute.
#[derive(Default, Serialize, Deserialize)]
struct Keys {
    id: String,
    by_bytes: HashMap<Vec<u8>, u8>,
    nested: Option<Vec<BTreeMap<BTreeSet<String>, u8>>>,
    by_map: Vec<HashMap<String, MapKeyed>>,
}

struct KeysMapper;

impl Mapper for KeysMapper {
    type Entity = Keys;
    const ENTITY_TYPE: &'static str = "Keys";
    const SCHEMA: TableSchema = TableSchema::new("pk");
    fn after_to_item(k: &Keys, item: &mut Item) -> crate::Result<()> {
        item.put_str("pk", k.id.clone());
        Ok(())
    }
}

#[test]
fn map_keys_serde_dynamo_panics_on_are_errors() {
    let base = || Keys {
        id: "K".into(),
        ..Keys::default()
    };
    let cases = [
        (
            Keys {
                by_bytes: HashMap::from([(vec![1], 1)]),
                ..base()
            },
            "Keys: cannot serialize attribute `by_bytes`: a map key is a sequence; map keys \
             must be strings, integers, booleans, characters or unit variants",
        ),
        (
            Keys {
                nested: Some(vec![
                    BTreeMap::new(),
                    BTreeMap::from([(BTreeSet::new(), 1)]),
                ]),
                ..base()
            },
            "Keys: cannot serialize attribute `nested[1]`: a map key is a sequence; map keys \
             must be strings, integers, booleans, characters or unit variants",
        ),
        (
            Keys {
                by_map: vec![HashMap::from([(
                    "a".to_string(),
                    BTreeMap::from([(BTreeMap::new(), 1)]),
                )])],
                ..base()
            },
            "Keys: cannot serialize attribute `by_map[0].a`: a map key is a map; map keys \
             must be strings, integers, booleans, characters or unit variants",
        ),
    ];
    for (keys, message) in cases {
        let err = KeysMapper::to_item(&keys).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Serialize);
        assert_eq!(format!("{err:#}"), message);
    }
    // Keys serde_dynamo writes still work, unchanged.
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Fine {
        id: String,
        by_number: BTreeMap<u32, bool>,
        by_flag: BTreeMap<bool, String>,
    }
    struct FineMapper;
    impl Mapper for FineMapper {
        type Entity = Fine;
        const ENTITY_TYPE: &'static str = "Fine";
        const SCHEMA: TableSchema = TableSchema::new("id").without_discriminator();
    }
    let fine = Fine {
        id: "F".into(),
        by_number: BTreeMap::from([(7, true)]),
        by_flag: BTreeMap::from([(false, "no".to_string())]),
    };
    let item = FineMapper::to_item(&fine).unwrap();
    assert_eq!(item, serde_dynamo::to_item::<_, Item>(&fine).unwrap());
    assert_eq!(FineMapper::from_item(item).unwrap(), fine);
}

#[test]
fn an_entity_that_is_not_a_map_is_an_error() {
    struct NumberMapper;
    impl Mapper for NumberMapper {
        type Entity = u32;
        const ENTITY_TYPE: &'static str = "Number";
        const SCHEMA: TableSchema = TableSchema::new("pk");
    }
    assert_eq!(
        format!("{:#}", NumberMapper::to_item(&7).unwrap_err()),
        "Number: cannot serialize: the entity is a number (N), not a map of attributes \
         (serialize it as a struct or a map)"
    );
}

#[derive(Debug, Clone, Serialize)]
struct Unit;

#[derive(Debug, Clone, Serialize)]
struct Newtype(i16);

#[derive(Debug, Clone, Serialize)]
enum Shape {
    Dot,
    Circle(u8),
    Pair(u8, String),
    Rect { w: i8, h: Option<u8> },
}

#[derive(Debug, Clone, Serialize)]
struct Inner {
    a: u32,
    b: Option<String>,
}

/// Every shape of the serde data model `serde_dynamo` writes.
#[derive(Debug, Clone, Serialize)]
struct Rich {
    s: String,
    n: Option<u64>,
    i: i32,
    f: f64,
    g: f32,
    b: bool,
    c: char,
    e: Vec<Shape>,
    m: BTreeMap<String, u16>,
    k: BTreeMap<u8, bool>,
    t: (u8, String),
    u: (),
    us: Unit,
    nt: Newtype,
    bytes: Vec<u8>,
    inner: Vec<Inner>,
    #[serde(with = "serde_dynamo::string_set")]
    tags: Vec<String>,
    #[serde(with = "serde_dynamo::number_set")]
    numbers: Vec<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    maybe: Option<Box<Rich>>,
}

fn rich() -> impl proptest::strategy::Strategy<Value = Rich> {
    use proptest::prelude::*;
    let shape = prop_oneof![
        Just(Shape::Dot),
        any::<u8>().prop_map(Shape::Circle),
        (any::<u8>(), ".{0,4}").prop_map(|(a, b)| Shape::Pair(a, b)),
        (any::<i8>(), any::<Option<u8>>()).prop_map(|(w, h)| Shape::Rect { w, h }),
    ];
    let inner = (any::<u32>(), proptest::option::of(".{0,4}")).prop_map(|(a, b)| Inner { a, b });
    (
        (
            ".{0,8}",
            any::<Option<u64>>(),
            any::<i32>(),
            any::<f64>(),
            any::<f32>(),
        ),
        (
            any::<bool>(),
            any::<char>(),
            proptest::collection::vec(shape, 0..4),
        ),
        (
            proptest::collection::btree_map(".{0,4}", any::<u16>(), 0..3),
            proptest::collection::btree_map(any::<u8>(), any::<bool>(), 0..3),
            (any::<u8>(), ".{0,4}"),
            any::<i16>(),
        ),
        (
            proptest::collection::vec(any::<u8>(), 0..4),
            proptest::collection::vec(inner, 0..3),
            proptest::collection::vec(".{0,4}", 0..3),
            proptest::collection::vec(any::<i64>(), 0..3),
        ),
    )
        .prop_map(
            |((s, n, i, f, g), (b, c, e), (m, k, t, nt), (bytes, inner, tags, numbers))| Rich {
                s,
                n,
                i,
                f,
                g,
                b,
                c,
                e,
                m,
                k,
                t,
                u: (),
                us: Unit,
                nt: Newtype(nt),
                bytes,
                inner,
                tags,
                numbers,
                maybe: None,
            },
        )
        .prop_recursive(2, 4, 1, |inner| {
            (inner.clone(), inner).prop_map(|(mut outer, nested)| {
                outer.maybe = Some(Box::new(nested));
                outer
            })
        })
}

/// `v` without the `NULL`s of the `Option` fields of [`Rich`], [`Inner`]
/// and `Shape::Rect` (`n`, `b`, `h`): what leaving `None` fields out
/// changes. The unit fields (`u`, `us`) keep their `NULL`.
fn without_none_fields(
    v: aws_sdk_dynamodb::types::AttributeValue,
) -> aws_sdk_dynamodb::types::AttributeValue {
    use aws_sdk_dynamodb::types::AttributeValue as V;
    match v {
        V::M(map) => V::M(
            map.into_iter()
                .filter(|(k, v)| !(matches!(k.as_str(), "n" | "b" | "h") && *v == V::Null(true)))
                .map(|(k, v)| (k, without_none_fields(v)))
                .collect(),
        ),
        V::L(list) => V::L(list.into_iter().map(without_none_fields).collect()),
        other => other,
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

    /// With `None`s written as `NULL`, the crate's serializer writes exactly
    /// what `serde_dynamo` writes; by default it writes the same without
    /// the struct fields whose value is `None` (and nothing else differs:
    /// unit values and `None`s inside lists and maps stay `NULL`).
    #[test]
    fn writes_what_serde_dynamo_writes(r in rich()) {
        use super::NoneAs;
        let ours = super::to_attribute_value_with(&r, NoneAs::Null).unwrap();
        let theirs: aws_sdk_dynamodb::types::AttributeValue =
            serde_dynamo::to_attribute_value(&r).unwrap();
        proptest::prop_assert_eq!(&ours, &theirs);
        let absent = super::to_attribute_value(&r).unwrap();
        proptest::prop_assert_eq!(absent, without_none_fields(theirs));
    }
}

/// The fields keys are rendered from are held out of the item while it is
/// serialized; whatever order a `Serialize` impl writes its fields in, the
/// item and its keys are what they were without holding.
mod held {
    use aws_sdk_dynamodb::types::AttributeValue;
    use serde::ser::SerializeStruct;
    use serde::{Deserialize, Serialize, Serializer};

    use crate::{IndexKeys, Item, KeyPattern, Mapper, MapperExt, TableSchema};

    /// Declares `a, id, b`; serializes the fields in `order` (an `id`
    /// twice: the second with `again`).
    #[derive(Deserialize)]
    struct Odd {
        a: String,
        id: String,
        b: String,
        #[serde(skip)]
        order: Vec<&'static str>,
        #[serde(skip)]
        again: String,
    }

    impl Serialize for Odd {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut st = s.serialize_struct("Odd", self.order.len())?;
            let mut ids = 0;
            for &field in &self.order {
                match field {
                    "a" => st.serialize_field("a", &self.a)?,
                    "b" => st.serialize_field("b", &self.b)?,
                    _ => {
                        ids += 1;
                        let id = if ids > 1 { &self.again } else { &self.id };
                        st.serialize_field("id", id)?;
                    }
                }
            }
            st.end()
        }
    }

    struct OddMapper;
    impl Mapper for OddMapper {
        type Entity = Odd;
        const ENTITY_TYPE: &'static str = "Odd";
        const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk");
        const KEY_PATTERNS: &'static [IndexKeys] =
            &[IndexKeys::table(KeyPattern::partition("ODD#{id}"))
                .sort(KeyPattern::sort("B#{b}#ID#{id}"))];
    }

    fn odd(order: &[&'static str]) -> Odd {
        Odd {
            a: "x".into(),
            id: "1".into(),
            b: "y".into(),
            order: order.to_vec(),
            again: "2".into(),
        }
    }

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    fn expected(id: &str) -> Item {
        Item::from([
            ("a".into(), s("x")),
            ("id".into(), s(id)),
            ("b".into(), s("y")),
            ("pk".into(), s(&format!("ODD#{id}"))),
            ("sk".into(), s(&format!("B#y#ID#{id}"))),
            ("entityType".into(), s("Odd")),
        ])
    }

    #[test]
    fn fields_in_any_order_render_the_same_keys() {
        for order in [
            &["a", "id", "b"][..],
            &["id", "a", "b"],
            &["b", "id", "a"],
            &["a", "b", "id"],
        ] {
            let item = OddMapper::to_item(&odd(order)).unwrap();
            assert_eq!(item, expected("1"), "{order:?}");
        }
    }

    #[test]
    fn a_field_written_twice_keeps_its_last_value_in_the_item_and_the_keys() {
        for order in [
            &["a", "id", "b", "id"][..],
            &["id", "id", "a", "b"],
            &["a", "id", "id", "b"],
        ] {
            let item = OddMapper::to_item(&odd(order)).unwrap();
            assert_eq!(item, expected("2"), "{order:?}");
        }
    }

    #[test]
    fn a_source_not_written_is_absent() {
        let err = OddMapper::to_item(&odd(&["a", "b"])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Odd: key attribute `pk` cannot be rendered from key pattern `ODD#{id}`: field \
             `id` is absent (or null), and the table's keys are required"
        );
    }

    /// One field in two placeholders of other encodings, and an optional
    /// field of a sparse index.
    #[derive(Serialize, Deserialize)]
    struct Line {
        n: u32,
        tag: Option<String>,
    }

    struct LineMapper;
    impl Mapper for LineMapper {
        type Entity = Line;
        const ENTITY_TYPE: &'static str = "Line";
        const SCHEMA: TableSchema = TableSchema::new("pk")
            .sort_key("sk")
            .indexes(&[crate::GlobalSecondaryIndex::new("GSI1", "g1pk").sort_key("g1sk")]);
        const KEY_PATTERNS: &'static [IndexKeys] = &[
            IndexKeys::table(KeyPattern::partition("LINE#{n}")).sort(KeyPattern::sort("N#{n:u3}")),
            IndexKeys::index("GSI1", KeyPattern::partition("TAG#{tag}"))
                .sort(KeyPattern::sort("{n:u5}")),
        ];
    }

    #[test]
    fn one_field_renders_in_several_encodings_and_an_absent_one_leaves_its_index_out() {
        let item = LineMapper::to_item(&Line {
            n: 7,
            tag: Some("t".into()),
        })
        .unwrap();
        assert_eq!(item["pk"], s("LINE#7"));
        assert_eq!(item["sk"], s("N#007"));
        assert_eq!(item["g1pk"], s("TAG#t"));
        assert_eq!(item["g1sk"], s("00007"));
        assert_eq!(item["n"], AttributeValue::N("7".into()));
        assert_eq!(item["tag"], s("t"));
        let item = LineMapper::to_item(&Line { n: 7, tag: None }).unwrap();
        assert_eq!(item.len(), 4, "{item:?}"); // n, pk, sk, entityType
        assert!(!item.contains_key("g1pk") && !item.contains_key("g1sk"));
    }
}
