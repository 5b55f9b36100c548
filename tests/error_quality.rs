//! Error quality, table-driven: for each kind of malformed input, the full
//! message (entity type, attribute path, what was expected, what was found),
//! the error kind, and the entity type and attribute the error reports.
//! Messages are lowercase after the entity type prefix.

use std::collections::HashMap;
use std::error::Error as _;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::{
    Error, ErrorKind, GlobalSecondaryIndex, Item, ItemExt, Mapper, MapperExt, NamingConvention,
    Registry, TableSchema,
};
use dynamodb_mapper_support::seed000;
use dynamodb_mapper_support::seed001::*;
use dynamodb_mapper_support::seed004::invoices;
use dynamodb_mapper_support::values::{n, s, unknown_value};
use serde::{Deserialize, Serialize};

fn m<const N: usize>(entries: [(&str, AttributeValue); N]) -> AttributeValue {
    AttributeValue::M(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

fn shipped_order() -> Item {
    OrderMapper::to_item(&order(
        "C1",
        "O1",
        "2024-01-15T10:30:00Z",
        OrderStatus::Shipped,
    ))
    .unwrap()
}

fn customer_item() -> Item {
    CustomerMapper::to_item(&customer("C1")).unwrap()
}

/// Replaces the value at `path` (attribute names and list indexes).
fn set(item: &mut Item, path: &[&str], value: AttributeValue) {
    let (first, rest) = path.split_first().unwrap();
    let mut slot = item.get_mut(*first).unwrap();
    for step in rest {
        slot = match slot {
            AttributeValue::L(list) => &mut list[step.parse::<usize>().unwrap()],
            AttributeValue::M(map) => map.get_mut(*step).unwrap(),
            other => panic!("cannot step into {other:?}"),
        };
    }
    *slot = value;
}

fn with(mut item: Item, path: &[&str], value: AttributeValue) -> Item {
    set(&mut item, path, value);
    item
}

fn without(mut item: Item, name: &str) -> Item {
    item.remove(name);
    item
}

// ------------------------------------------------------------ test entities

/// Maps nested three deep, a map of lists, floats, sets: for paths deep
/// inside an attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Profile {
    user_id: String,
    address: Address,
    scores: HashMap<String, Vec<u32>>,
    ratio: f64,
    tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Address {
    city: String,
    geo: Geo,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Geo {
    lat: f64,
    lon: f64,
    source: Source,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
enum Source {
    Gps,
    Manual,
}

const PROFILE_TABLE: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);

struct ProfileMapper;

impl Mapper for ProfileMapper {
    type Entity = Profile;
    const ENTITY_TYPE: &'static str = "Profile";
    const SCHEMA: TableSchema = PROFILE_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;

    fn after_to_item(p: &Profile, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("pk", format!("USER#{}", p.user_id));
        item.put_str("sk", "PROFILE");
        if !p.tags.is_empty() {
            // A string set of the tags; empty tags make it an empty set.
            item.insert(
                "tagSet".into(),
                AttributeValue::Ss(p.tags.iter().filter(|t| !t.is_empty()).cloned().collect()),
            );
        }
        // The city as an index key: sparse, and only when there is a city.
        if p.address.city != "-" {
            item.put_str("gsi1pk", format!("CITY#{}", p.address.city));
            item.put_str("gsi1sk", p.user_id.clone());
        }
        Ok(())
    }
}

fn profile() -> Profile {
    Profile {
        user_id: "U1".into(),
        address: Address {
            city: "Lisbon".into(),
            geo: Geo {
                lat: 38.7,
                lon: -9.1,
                source: Source::Gps,
            },
        },
        scores: HashMap::from([("alice".to_string(), vec![1, 2, 3])]),
        ratio: 0.5,
        tags: vec!["a".into()],
    }
}

fn profile_item() -> Item {
    ProfileMapper::to_item(&profile()).unwrap()
}

/// A mapper whose key hook takes its key components from the entity as they
/// are: an empty or overlong component makes an invalid key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Note {
    folder: String,
    title: String,
}

struct NoteMapper;

impl Mapper for NoteMapper {
    type Entity = Note;
    const ENTITY_TYPE: &'static str = "Note";
    const SCHEMA: TableSchema = TableSchema::new("pk")
        .sort_key("sk")
        .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);

    fn after_to_item(note: &Note, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("pk", note.folder.clone());
        item.put_str("sk", note.title.clone());
        match note.title.as_str() {
            // A hook bug: half an index key pair.
            "half" => item.put_str("gsi1pk", "X"),
            // A hook bug: an index key of the wrong type.
            "number" => {
                item.put_str("gsi1sk", "X");
                item.insert("gsi1pk".into(), n("1"));
            }
            _ => {}
        }
        Ok(())
    }
}

fn note(folder: &str, title: &str) -> Note {
    Note {
        folder: folder.into(),
        title: title.into(),
    }
}

#[derive(Debug, PartialEq)]
enum Tenant {
    User(seed000::User),
    Person(seed000::Person),
}

// ------------------------------------------------------------------ the table

struct Case {
    /// What is malformed.
    what: &'static str,
    error: Error,
    kind: ErrorKind,
    entity_type: Option<&'static str>,
    attribute: Option<&'static str>,
    message: &'static str,
}

macro_rules! case {
    ($what:literal, $result:expr, $kind:ident, $entity:expr, $attribute:expr, $message:expr $(,)?) => {
        Case {
            what: $what,
            error: match $result {
                Ok(v) => panic!("{}: expected an error, got {:?}", $what, v),
                Err(e) => e,
            },
            kind: ErrorKind::$kind,
            entity_type: $entity,
            attribute: $attribute,
            message: $message,
        }
    };
}

fn cases() -> Vec<Case> {
    let mut huge = profile();
    huge.tags = vec!["x".repeat(409_600)];
    vec![
        // ---- discriminator
        case!(
            "wrong discriminator",
            CustomerMapper::from_item(shipped_order()),
            DiscriminatorMismatch,
            Some("Customer"),
            Some("entityType"),
            "Customer (pk=\"CUSTOMER#C1\", sk=\"ORDER#O1#2024-01-15\"): discriminator `entityType` is \"Order\", expected \"Customer\"",
        ),
        case!(
            "wrong discriminator, mapper with an alias",
            invoices::InvoiceItemMapper::from_item(with(
                invoices::InvoiceItemMapper::to_item(&invoices::invoice_item("I1", 1, 2, 5))
                    .unwrap(),
                &["entityType"],
                s("InvoiceStatus"),
            )),
            DiscriminatorMismatch,
            Some("InvoiceItem"),
            Some("entityType"),
            "InvoiceItem (pk=\"INVOICE#I1\", sk=\"ITEM#001\"): discriminator `entityType` is \"InvoiceStatus\", expected one of \"InvoiceItem\", \"InvoiceLine\"",
        ),
        case!(
            "no discriminator",
            CustomerMapper::from_item(without(customer_item(), "entityType")),
            MissingDiscriminator,
            Some("Customer"),
            Some("entityType"),
            "Customer (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): discriminator `entityType` is missing",
        ),
        case!(
            "discriminator of the wrong type",
            CustomerMapper::from_item(with(customer_item(), &["entityType"], n("1"))),
            MissingDiscriminator,
            Some("Customer"),
            Some("entityType"),
            "Customer (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): discriminator `entityType` is missing (found a number (N))",
        ),
        case!(
            "unknown discriminator in a registry",
            Registry::builder()
                .register::<CustomerMapper>(CustomerPartition::Customer)
                .register::<OrderMapper>(CustomerPartition::Order)
                .build()
                .unwrap()
                .decode(with(customer_item(), &["entityType"], s("Refund"))),
            UnknownEntityType,
            None,
            Some("entityType"),
            "item (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): discriminator `entityType` is \"Refund\", which no registered mapper reads (registered: \"Customer\", \"Order\")",
        ),
        case!(
            "registry: the mapper's own error names its entity type",
            Registry::<Tenant>::builder()
                .register::<seed000::UserMapper>(Tenant::User)
                .register::<seed000::PersonMapper>(Tenant::Person)
                .build()
                .unwrap()
                .decode(with(
                    seed000::PersonMapper::to_item(&seed000::person("3")).unwrap(),
                    &["name"],
                    n("7"),
                )),
            Deserialize,
            Some("Person"),
            Some("name"),
            "Person (pk=\"TENANT#1\", sk=\"PERSON#3\"): cannot deserialize attribute `name`: invalid type: a number (N) 7, expected a string",
        ),
        // ---- missing attributes
        case!(
            "missing attribute",
            CustomerMapper::from_item(without(customer_item(), "createdAt")),
            MissingAttribute,
            Some("Customer"),
            Some("createdAt"),
            "Customer (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): attribute `createdAt` is missing",
        ),
        case!(
            "missing attribute inside a list of maps",
            OrderMapper::from_item({
                let mut item = shipped_order();
                let AttributeValue::L(lines) = item.get_mut("lines").unwrap() else {
                    unreachable!()
                };
                let AttributeValue::M(line) = &mut lines[1] else {
                    unreachable!()
                };
                line.remove("quantity");
                item
            }),
            Deserialize,
            Some("Order"),
            Some("lines[1]"),
            "Order (pk=\"CUSTOMER#C1\", sk=\"ORDER#O1#2024-01-15\"): cannot deserialize attribute `lines[1]`: missing field `quantity`",
        ),
        case!(
            "missing attribute three maps deep",
            ProfileMapper::from_item(with(
                profile_item(),
                &["address", "geo"],
                m([("lat", n("1")), ("source", s("Gps"))]),
            )),
            Deserialize,
            Some("Profile"),
            Some("address.geo"),
            "Profile (pk=\"USER#U1\", sk=\"PROFILE\"): cannot deserialize attribute `address.geo`: missing field `lon`",
        ),
        // ---- wrong types
        case!(
            "wrong type, top level",
            CustomerMapper::from_item(with(customer_item(), &["email"], n("42"))),
            Deserialize,
            Some("Customer"),
            Some("email"),
            "Customer (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): cannot deserialize attribute `email`: invalid type: a number (N) 42, expected a string",
        ),
        case!(
            "wrong type in a list of maps",
            OrderMapper::from_item(with(shipped_order(), &["lines", "1", "quantity"], s("two"))),
            Deserialize,
            Some("Order"),
            Some("lines[1].quantity"),
            "Order (pk=\"CUSTOMER#C1\", sk=\"ORDER#O1#2024-01-15\"): cannot deserialize attribute `lines[1].quantity`: invalid type: a string (S) \"two\", expected u32",
        ),
        case!(
            "wrong type deep in nested maps",
            ProfileMapper::from_item(with(profile_item(), &["address", "geo", "lat"], s("north"))),
            Deserialize,
            Some("Profile"),
            Some("address.geo.lat"),
            "Profile (pk=\"USER#U1\", sk=\"PROFILE\"): cannot deserialize attribute `address.geo.lat`: invalid type: a string (S) \"north\", expected f64",
        ),
        case!(
            "wrong type in a list in a map",
            ProfileMapper::from_item(with(
                profile_item(),
                &["scores", "alice", "2"],
                AttributeValue::Bool(true)
            )),
            Deserialize,
            Some("Profile"),
            Some("scores.alice[2]"),
            "Profile (pk=\"USER#U1\", sk=\"PROFILE\"): cannot deserialize attribute `scores.alice[2]`: invalid type: a boolean (BOOL) true, expected u32",
        ),
        case!(
            "a map where a list belongs",
            OrderMapper::from_item(with(shipped_order(), &["lines"], m([("0", s("x"))]))),
            Deserialize,
            Some("Order"),
            Some("lines"),
            "Order (pk=\"CUSTOMER#C1\", sk=\"ORDER#O1#2024-01-15\"): cannot deserialize attribute `lines`: invalid type: a map (M), expected a sequence",
        ),
        case!(
            "a string where a struct belongs",
            OrderMapper::from_item(with(shipped_order(), &["lines", "0"], s("SKU-1 x2"))),
            Deserialize,
            Some("Order"),
            Some("lines[0]"),
            "Order (pk=\"CUSTOMER#C1\", sk=\"ORDER#O1#2024-01-15\"): cannot deserialize attribute `lines[0]`: invalid type: a string (S) \"SKU-1 x2\", expected struct OrderLine",
        ),
        case!(
            "null where a string belongs",
            CustomerMapper::from_item(with(customer_item(), &["name"], AttributeValue::Null(true))),
            Deserialize,
            Some("Customer"),
            Some("name"),
            "Customer (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): cannot deserialize attribute `name`: invalid type: null (NULL), expected a string",
        ),
        case!(
            "a number set where a list of strings belongs",
            ProfileMapper::from_item(with(
                profile_item(),
                &["tags"],
                AttributeValue::Ns(vec!["1".into()])
            )),
            Deserialize,
            Some("Profile"),
            Some("tags[0]"),
            "Profile (pk=\"USER#U1\", sk=\"PROFILE\"): cannot deserialize attribute `tags[0]`: invalid type: a number (N) 1, expected a string",
        ),
        case!(
            "unknown enum variant",
            OrderMapper::from_item(with(shipped_order(), &["status"], s("Cancelled"))),
            Deserialize,
            Some("Order"),
            Some("status"),
            "Order (pk=\"CUSTOMER#C1\", sk=\"ORDER#O1#2024-01-15\"): cannot deserialize attribute `status`: unknown variant `Cancelled`, expected one of `Pending`, `Shipped`, `Delivered`",
        ),
        case!(
            "unknown enum variant deep",
            ProfileMapper::from_item(with(
                profile_item(),
                &["address", "geo", "source"],
                s("Wifi")
            )),
            Deserialize,
            Some("Profile"),
            Some("address.geo.source"),
            "Profile (pk=\"USER#U1\", sk=\"PROFILE\"): cannot deserialize attribute `address.geo.source`: unknown variant `Wifi`, expected `Gps` or `Manual`",
        ),
        case!(
            "a value of a type this SDK does not know, deep",
            OrderMapper::from_item(with(
                shipped_order(),
                &["lines", "1", "sku"],
                unknown_value()
            )),
            InvalidValue,
            Some("Order"),
            Some("lines[1].sku"),
            "Order (pk=\"CUSTOMER#C1\", sk=\"ORDER#O1#2024-01-15\"): attribute `lines[1].sku` has a type this SDK version does not know (AttributeValue::Unknown)",
        ),
        case!(
            "version attribute of the wrong type",
            CounterMapper::record_from_item(with(
                {
                    let mut item = CounterMapper::to_item(&counter("K1", 1)).unwrap();
                    item.insert("version".into(), n("0"));
                    item
                },
                &["version"],
                s("7"),
            )),
            WrongType,
            Some("Counter"),
            Some("version"),
            "Counter (pk=\"COUNTER#K1\", sk=\"COUNTER\"): attribute `version` is a string (S), expected a number (N)",
        ),
        case!(
            "typed getter of the wrong type",
            customer_item().get_bool("email"),
            WrongType,
            None,
            Some("email"),
            "attribute `email` is a string (S), expected a boolean (BOOL)",
        ),
        // ---- bad numbers
        case!(
            "a fraction for an integer",
            OrderMapper::from_item(with(shipped_order(), &["totalCents"], n("12.5"))),
            Deserialize,
            Some("Order"),
            Some("totalCents"),
            "Order (pk=\"CUSTOMER#C1\", sk=\"ORDER#O1#2024-01-15\"): cannot deserialize attribute `totalCents`: invalid value: a number (N) 12.5, expected u64",
        ),
        case!(
            "a negative number for an unsigned integer",
            OrderMapper::from_item(with(
                shipped_order(),
                &["lines", "0", "unit_price_cents"],
                n("-1")
            )),
            Deserialize,
            Some("Order"),
            Some("lines[0].unit_price_cents"),
            "Order (pk=\"CUSTOMER#C1\", sk=\"ORDER#O1#2024-01-15\"): cannot deserialize attribute `lines[0].unit_price_cents`: invalid value: a number (N) -1, expected u64",
        ),
        case!(
            "a number too large for its type",
            ProductReviewMapper::from_item(with(
                ProductReviewMapper::to_item(&review("P1", "R1", "U1", 5, "2024-06-01T12:00:00Z"))
                    .unwrap(),
                &["rating"],
                n("300"),
            )),
            Deserialize,
            Some("ProductReview"),
            Some("rating"),
            "ProductReview (pk=\"PRODUCT#P1\", sk=\"REVIEW#R1#2024-06-01\"): cannot deserialize attribute `rating`: invalid value: a number (N) 300, expected u8",
        ),
        case!(
            "not a number on write (a float NaN)",
            ProfileMapper::to_item(&Profile {
                ratio: f64::NAN,
                ..profile()
            }),
            InvalidValue,
            Some("Profile"),
            Some("ratio"),
            "Profile: attribute `ratio` is not a number: \"NaN\"",
        ),
        case!(
            "an infinite float deep on write",
            ProfileMapper::to_item(&{
                let mut p = profile();
                p.address.geo.lon = f64::NEG_INFINITY;
                p
            }),
            InvalidValue,
            Some("Profile"),
            Some("address.geo.lon"),
            "Profile: attribute `address.geo.lon` is not a number: \"-inf\"",
        ),
        case!(
            "39 significant digits in an unknown attribute on write",
            CustomerMapper::to_item_with_bag(
                &customer("C1"),
                &Item::from(Item::from([(
                    "legacyBalance".to_string(),
                    m([("cents", n("9".repeat(39)))]),
                )])),
            ),
            InvalidValue,
            Some("Customer"),
            Some("legacyBalance.cents"),
            "Customer: attribute `legacyBalance.cents` has 39 significant digits, more than DynamoDB's 38",
        ),
        case!(
            "a number out of range in a number set on write",
            CustomerMapper::to_item_with_bag(
                &customer("C1"),
                &Item::from(Item::from([(
                    "limits".to_string(),
                    AttributeValue::Ns(vec!["1".into(), "1e126".into()]),
                )])),
            ),
            InvalidValue,
            Some("Customer"),
            Some("limits"),
            "Customer: attribute `limits` is 1e126, larger in magnitude than DynamoDB's 1E+126",
        ),
        case!(
            "typed getter: a number that does not fit",
            Item::from([("count".to_string(), n("-1"))]).get_number::<u32>("count"),
            InvalidValue,
            None,
            Some("count"),
            "attribute `count` is -1, which does not fit u32",
        ),
        // ---- values DynamoDB rejects, on write
        case!(
            "an empty set",
            ProfileMapper::to_item(&Profile {
                tags: vec![String::new()],
                ..profile()
            }),
            InvalidValue,
            Some("Profile"),
            Some("tagSet"),
            "Profile: attribute `tagSet` is an empty string set; DynamoDB rejects empty sets",
        ),
        case!(
            "an empty attribute name in a map",
            ProfileMapper::to_item(&Profile {
                scores: HashMap::from([(String::new(), vec![1])]),
                ..profile()
            }),
            InvalidValue,
            Some("Profile"),
            Some("scores."),
            "Profile: attribute `scores.` has an empty name; DynamoDB rejects empty attribute names",
        ),
        // ---- what DynamoDB never returns, on read
        case!(
            "an empty set on read",
            CustomerMapper::from_item(with(
                {
                    let mut item = customer_item();
                    item.insert("tags".into(), s("x"));
                    item
                },
                &["tags"],
                AttributeValue::Ss(vec![]),
            )),
            InvalidValue,
            Some("Customer"),
            Some("tags"),
            "Customer (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): attribute `tags` is an empty string set; DynamoDB rejects empty sets",
        ),
        case!(
            "numbers equal by value in a number set on read",
            ProfileMapper::record_from_item(with(
                profile_item(),
                &["scores", "alice"],
                AttributeValue::Ns(vec!["2".into(), "1".into(), "1.0".into()]),
            )),
            InvalidValue,
            Some("Profile"),
            Some("scores.alice"),
            "Profile (pk=\"USER#U1\", sk=\"PROFILE\"): attribute `scores.alice` is a set with the duplicate value 1 (also as 1.0); DynamoDB rejects duplicates in sets",
        ),
        case!(
            "an integer a float does not hold exactly",
            ProfileMapper::from_item(with(profile_item(), &["ratio"], n("9007199254740993"))),
            Deserialize,
            Some("Profile"),
            Some("ratio"),
            "Profile (pk=\"USER#U1\", sk=\"PROFILE\"): cannot deserialize attribute `ratio`: invalid value: a number (N) 9007199254740993, expected f64 without rounding (the nearest f64 is 9007199254740992)",
        ),
        case!(
            "38 digits for a float",
            ProfileMapper::from_item(with(
                profile_item(),
                &["address", "geo", "lat"],
                n("1".repeat(38)),
            )),
            Deserialize,
            Some("Profile"),
            Some("address.geo.lat"),
            "Profile (pk=\"USER#U1\", sk=\"PROFILE\"): cannot deserialize attribute `address.geo.lat`: invalid value: a number (N) 11111111111111111111111111111111111111, expected f64 without rounding (the nearest f64 is 1.111111111111111e37)",
        ),
        case!(
            "lists and maps nested too deep on read",
            ProfileMapper::from_item(with(profile_item(), &["address", "geo"], {
                let mut v = AttributeValue::Null(true);
                for _ in 0..40 {
                    v = AttributeValue::L(vec![v]);
                }
                v
            })),
            InvalidValue,
            Some("Profile"),
            Some(
                "address.geo[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"
            ),
            "Profile (pk=\"USER#U1\", sk=\"PROFILE\"): attribute `address.geo[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]` nests lists and maps 32 or more levels deep; DynamoDB allows 31 (values at most 32 levels deep)",
        ),
        case!(
            "lists nested too deep in an item without a discriminator a registry reads",
            Registry::builder()
                .register::<CustomerMapper>(CustomerPartition::Customer)
                .register::<OrderMapper>(CustomerPartition::Order)
                .on_missing(dynamodb_mapper::MissingPolicy::Keep)
                .build()
                .unwrap()
                .decode(Item::from([
                    ("pk".to_string(), s("CUSTOMER#C9")),
                    ("sk".to_string(), s("NOTE")),
                    ("body".to_string(), {
                        let mut v = AttributeValue::Null(true);
                        for _ in 0..32 {
                            v = AttributeValue::M(HashMap::from([("k".to_string(), v)]));
                        }
                        v
                    }),
                ])),
            InvalidValue,
            None,
            Some("body.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k"),
            "item (pk=\"CUSTOMER#C9\", sk=\"NOTE\"): attribute `body.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k` nests lists and maps 32 or more levels deep; DynamoDB allows 31 (values at most 32 levels deep)",
        ),
        case!(
            "an oversize item",
            ProfileMapper::to_item(&huge),
            ItemTooLarge,
            Some("Profile"),
            None,
            "Profile: item is 819369 bytes, over the limit of 409600 bytes; largest attributes: `tags` 409608 bytes, `tagSet` 409606 bytes, `address` 53 bytes",
        ),
        case!(
            "a map key that is not a string",
            CustomerMapper::to_item_with_bag(&customer("C1"), &Item::new()).and_then(|_| {
                #[derive(Serialize, Deserialize)]
                struct Grid {
                    id: String,
                    cells: std::collections::BTreeMap<(u8, u8), String>,
                }
                struct GridMapper;
                impl Mapper for GridMapper {
                    type Entity = Grid;
                    const ENTITY_TYPE: &'static str = "Grid";
                    const SCHEMA: TableSchema = TableSchema::new("pk");
                    fn after_to_item(g: &Grid, item: &mut Item) -> dynamodb_mapper::Result<()> {
                        item.put_str("pk", g.id.clone());
                        Ok(())
                    }
                }
                GridMapper::to_item(&Grid {
                    id: "G1".into(),
                    cells: [((0, 0), "x".to_string())].into(),
                })
            }),
            Serialize,
            Some("Grid"),
            Some("cells"),
            "Grid: cannot serialize attribute `cells`: a map key is a tuple; map keys must be strings, integers, booleans, characters or unit variants",
        ),
        // ---- bad key components from a mapper hook
        case!(
            "empty partition key",
            NoteMapper::to_item(&note("", "todo")),
            InvalidKey,
            Some("Note"),
            Some("pk"),
            "Note: key attribute `pk` is empty; DynamoDB rejects empty key values",
        ),
        case!(
            "sort key one byte too long",
            NoteMapper::to_item(&note("inbox", &format!("{}x", "é".repeat(512)))),
            InvalidKey,
            Some("Note"),
            Some("sk"),
            "Note: key attribute `sk` is 1025 bytes, over the limit of 1024 bytes",
        ),
        case!(
            "partition key too long, from a GetItem key helper",
            NoteMapper::key(&note(&"p".repeat(2049), "todo")),
            InvalidKey,
            Some("Note"),
            Some("pk"),
            "Note: key attribute `pk` is 2049 bytes, over the limit of 2048 bytes",
        ),
        case!(
            "empty key from string_key",
            CustomerMapper::string_key("CUSTOMER#C1", ""),
            InvalidKey,
            Some("Customer"),
            Some("sk"),
            "Customer: key attribute `sk` is empty; DynamoDB rejects empty key values",
        ),
        case!(
            "half an index key pair",
            NoteMapper::to_item(&note("inbox", "half")),
            InvalidKey,
            Some("Note"),
            Some("gsi1sk"),
            "Note: key attribute `gsi1sk` of index GSI1 is missing while `gsi1pk` is present; write every key attribute of the index or none",
        ),
        case!(
            "index key of the wrong type",
            NoteMapper::to_item(&note("inbox", "number")),
            InvalidKey,
            Some("Note"),
            Some("gsi1pk"),
            "Note: key attribute `gsi1pk` of index GSI1 is a number (N), expected a string (S)",
        ),
        case!(
            "index key too long from the entity",
            ProfileMapper::to_item(&{
                let mut p = profile();
                p.user_id = "u".repeat(1025);
                p
            }),
            InvalidKey,
            Some("Profile"),
            Some("gsi1sk"),
            "Profile: key attribute `gsi1sk` of index GSI1 is 1025 bytes, over the limit of 1024 bytes",
        ),
        case!(
            "a binary key of the wrong type",
            TableSchema::new("pk").key_of(&Item::from([(
                "pk".to_owned(),
                AttributeValue::B(Blob::new(vec![1]))
            )])),
            InvalidKey,
            None,
            Some("pk"),
            "key attribute `pk` is a binary (B), expected a string (S)",
        ),
        // ---- hooks
        case!(
            "a hook veto",
            OrderMapper::to_item(&{
                let mut o = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Pending);
                o.total_cents = 1;
                o
            }),
            InvalidValue,
            Some("Order"),
            Some("totalCents"),
            "Order: attribute `totalCents` is 1, but the lines add up to 2999",
        ),
    ]
}

#[test]
fn every_malformed_input_gets_a_full_message() {
    let mut failures = Vec::new();
    for case in cases() {
        let e = &case.error;
        let got = (e.kind(), e.entity_type(), e.attribute(), format!("{e:#}"));
        let want = (
            case.kind,
            case.entity_type,
            case.attribute,
            case.message.to_owned(),
        );
        if got != want {
            failures.push(format!(
                "{}:\n    got  {got:?}\n    want {want:?}",
                case.what
            ));
        }
        // Lowercase after the prefix: the entity type and the item's key
        // (`Customer (pk="C#1", sk="M"): `, `item (pk="C#1"): `).
        let prefix = match (case.entity_type, e.key()) {
            (Some(t), Some(k)) => format!("{t} ({k}): "),
            (Some(t), None) => format!("{t}: "),
            (None, Some(k)) => format!("item ({k}): "),
            (None, None) => String::new(),
        };
        let rest = e.to_string().strip_prefix(&prefix).map(str::to_owned);
        if !rest.is_some_and(|r| r.starts_with(|c: char| !c.is_uppercase())) {
            failures.push(format!(
                "{}: not lowercase after the prefix: {e}",
                case.what
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn each_cause_is_printed_once() {
    // `{}` is the error's own message; its source is not repeated there, and
    // `{:#}` adds each source once, joined with `: `.
    let mut causes = 0;
    for case in cases() {
        let e = &case.error;
        let message = e.to_string();
        let mut chain = message.clone();
        let mut source = e.source();
        while let Some(cause) = source {
            causes += 1;
            let text = cause.to_string();
            assert!(
                !message.contains(&text),
                "{}: the message repeats its source: {message}",
                case.what
            );
            chain = format!("{chain}: {text}");
            source = cause.source();
        }
        assert_eq!(format!("{e:#}"), chain, "{}", case.what);
    }
    assert!(causes > 0, "the table has errors with a source");
}

#[test]
fn deserialize_errors_keep_serde_dynamos_error_as_source() {
    let err = OrderMapper::from_item(with(shipped_order(), &["lines", "1", "quantity"], s("two")))
        .unwrap_err();
    let source = err.source().unwrap();
    assert!(source.downcast_ref::<serde_dynamo::Error>().is_some());
    assert_eq!(
        source.to_string(),
        "invalid type: a string (S) \"two\", expected u32"
    );
}

/// A lookup whose value a key pattern cannot render names the key
/// attribute it was rendering, partition or sort (#29).
#[test]
fn a_key_a_lookup_cannot_render_names_its_key_attribute() {
    use dynamodb_mapper_support::seed004::{CustomerMapper, OrderLineMapper};
    let err = OrderLineMapper::lookup()
        .with("customer_id", "C1")
        .with("order_id", "O1")
        .with("line_number", "two")
        .key()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKeyPattern);
    assert_eq!(err.entity_type(), Some("OrderLine"));
    assert_eq!(err.attribute(), Some("sk"), "{err}");
    assert!(
        err.to_string()
            .starts_with("OrderLine: key attribute `sk`: key pattern `"),
        "{err}"
    );
    let err = CustomerMapper::lookup().key().unwrap_err();
    assert_eq!(err.attribute(), Some("pk"), "{err}");
}
