//! The core mapping path on the seed-001 mappers, with in-memory items.

use std::collections::HashMap;
use std::error::Error as _;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::{
    Error, ErrorDetails, ErrorKind, IndexKeys, Item, ItemExt, Mapper, MapperExt, NamingConvention,
    Record, TableSchema,
};
use dynamodb_mapper_support::seed001::*;
use dynamodb_mapper_support::values::{n, s, unknown_value};
use serde::{Deserialize, Serialize};

#[test]
fn customer_keys_gsi1_discriminator_and_camel_case() {
    let item = CustomerMapper::to_item(&customer("C1")).unwrap();
    let expected = Item::from([
        ("pk".into(), s("CUSTOMER#C1")),
        ("sk".into(), s("METADATA")),
        ("entityType".into(), s("Customer")),
        ("recordType".into(), s("Customer")),
        ("gsi1pk".into(), s("EMAIL#c1@example.com")),
        ("gsi1sk".into(), s("CUSTOMER#C1")),
        ("customerId".into(), s("C1")),
        ("email".into(), s("c1@example.com")),
        ("name".into(), s("Customer C1")),
        ("createdAt".into(), s("2024-01-01T09:00:00Z")),
    ]);
    assert_eq!(item, expected);
    assert_eq!(CustomerMapper::from_item(item).unwrap(), customer("C1"));
}

#[test]
fn order_keys_gsi1_gsi2_and_nested_lines() {
    let o = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Pending);
    let item = OrderMapper::to_item(&o).unwrap();
    assert_eq!(item.get_str("pk").unwrap(), "CUSTOMER#C1");
    assert_eq!(item.get_str("sk").unwrap(), "ORDER#O1#2024-01-15");
    assert_eq!(item.get_str("gsi1pk").unwrap(), "STATUS#Pending");
    assert_eq!(item.get_str("gsi1sk").unwrap(), "2024-01-15T10:30:00Z");
    assert_eq!(item.get_str("gsi2pk").unwrap(), "ORDER");
    assert_eq!(item.get_str("gsi2sk").unwrap(), "2024-01-15T10:30:00Z");
    assert_eq!(item.get_str("status").unwrap(), "Pending");
    assert_eq!(item.get_number::<u64>("totalCents").unwrap(), 2999);
    let AttributeValue::L(lines) = &item["lines"] else {
        panic!("lines is not a list: {:?}", item["lines"]);
    };
    assert_eq!(lines.len(), 2);
    // Nested maps keep serde's names: the convention is top-level only.
    let AttributeValue::M(first) = &lines[0] else {
        panic!("line is not a map");
    };
    assert!(first.contains_key("unit_price_cents"));
    assert_eq!(OrderMapper::from_item(item).unwrap(), o);
}

#[test]
fn sparse_shipped_index_only_for_shipped_orders() {
    let pending = OrderMapper::to_item(&order(
        "C1",
        "O1",
        "2024-01-15T10:30:00Z",
        OrderStatus::Pending,
    ))
    .unwrap();
    assert!(!pending.contains_key("gsi3pk") && !pending.contains_key("gsi3sk"));
    let shipped = OrderMapper::to_item(&order(
        "C1",
        "O2",
        "2024-02-20T14:45:00Z",
        OrderStatus::Shipped,
    ))
    .unwrap();
    assert_eq!(shipped.get_str("gsi3pk").unwrap(), "SHIPPED");
    assert_eq!(shipped.get_str("gsi3sk").unwrap(), "2024-02-20T14:45:00Z");
}

#[test]
fn conditional_keys_active_vs_archived_product() {
    let active = product("BOOKS", "P1", "Rust in Action", 3999);
    let item = ProductMapper::to_item(&active).unwrap();
    assert_eq!(item.get_str("gsi1pk").unwrap(), "ACTIVE_PRODUCT");
    assert_eq!(item.get_str("gsi1sk").unwrap(), "Rust in Action");
    assert_eq!(item.get_str("gsi2sk").unwrap(), "000000003999");

    let mut archived = active.clone();
    archived.is_archived = true;
    archived.archived_at = Some("2024-05-01T00:00:00Z".into());
    let item = ProductMapper::to_item(&archived).unwrap();
    assert_eq!(item.get_str("gsi1pk").unwrap(), "ARCHIVED_PRODUCT");
    assert_eq!(item.get_str("gsi1sk").unwrap(), "2024-05-01T00:00:00Z");
    assert_eq!(ProductMapper::from_item(item).unwrap(), archived);

    archived.archived_at = None;
    let err = ProductMapper::to_item(&archived).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue);
    assert_eq!(
        err.to_string(),
        "Product: attribute `archivedAt` is missing on an archived product"
    );
}

#[test]
fn review_keys_and_hook_veto() {
    let r = review("P1", "R1", "U1", 5, "2024-06-01T12:00:00Z");
    let item = ProductReviewMapper::to_item(&r).unwrap();
    assert_eq!(item.get_str("pk").unwrap(), "PRODUCT#P1");
    assert_eq!(item.get_str("sk").unwrap(), "REVIEW#R1#2024-06-01");
    assert_eq!(item.get_str("gsi1pk").unwrap(), "USER#U1");
    assert_eq!(item.get_str("gsi2sk").unwrap(), "5#2024-06-01T12:00:00Z");
    let err = ProductReviewMapper::to_item(&review("P1", "R2", "U1", 9, "2024-06-01T12:00:00Z"))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "ProductReview: attribute `rating` must be 1 to 5, found 9"
    );
}

#[test]
fn session_ttl_and_sparse_active_index() {
    let live = session("U1", "S1", 4_000_000_000);
    let item = SessionMapper::to_item(&live).unwrap();
    assert_eq!(item["ttl"], n("4000000000"));
    assert_eq!(item.get_str("gsi1pk").unwrap(), "ACTIVE_SESSION");
    assert_eq!(
        item.get_ttl("ttl").unwrap(),
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(4_000_000_000)
    );
    let expired = SessionMapper::to_item(&session("U1", "S0", 1_000)).unwrap();
    assert_eq!(expired["ttl"], n("1000"));
    assert!(!expired.contains_key("gsi1pk") && !expired.contains_key("gsi1sk"));
    assert_eq!(SessionMapper::from_item(item).unwrap(), live);
}

#[test]
fn type_validation_on_read() {
    let item = CustomerMapper::to_item(&customer("C1")).unwrap();
    let err = OrderMapper::from_item(item.clone()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DiscriminatorMismatch);
    assert_eq!(err.entity_type(), Some("Order"));
    assert_eq!(
        err.to_string(),
        "Order (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): discriminator `entityType` is \"Customer\", expected \"Order\""
    );

    let mut missing = item.clone();
    missing.remove("entityType");
    let err = CustomerMapper::from_item(missing.clone()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingDiscriminator);
    assert_eq!(
        err.to_string(),
        "Customer (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): discriminator `entityType` is missing"
    );

    missing.insert("entityType".into(), n("1"));
    assert_eq!(
        CustomerMapper::from_item(missing).unwrap_err().to_string(),
        "Customer (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): discriminator `entityType` is missing (found a number (N))"
    );
}

struct LegacyCustomerMapper;
impl Mapper for LegacyCustomerMapper {
    type Entity = Customer;
    const ENTITY_TYPE: &'static str = "Customer";
    const ALIASES: &'static [&'static str] = &["customer", "CustomerV1"];
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] = CustomerMapper::KEY_PATTERNS;
    fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
        CustomerMapper::after_to_item(c, item)
    }
}

#[test]
fn aliases_are_accepted_on_read_and_never_written() {
    let mut item = LegacyCustomerMapper::to_item(&customer("C1")).unwrap();
    assert_eq!(item["entityType"], s("Customer"));
    item.insert("entityType".into(), s("CustomerV1"));
    assert_eq!(
        LegacyCustomerMapper::from_item(item.clone()).unwrap(),
        customer("C1")
    );
    item.insert("entityType".into(), s("Client"));
    assert_eq!(
        LegacyCustomerMapper::from_item(item)
            .unwrap_err()
            .to_string(),
        "Customer (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): discriminator `entityType` is \"Client\", expected one of \"Customer\", \"customer\", \"CustomerV1\""
    );
}

#[test]
fn bag_round_trip_keeps_unknown_attributes() {
    let o = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Shipped);
    let mut stored = OrderMapper::to_item(&o).unwrap();
    stored.insert("giftWrap".into(), AttributeValue::Bool(true));
    stored.insert(
        "loyalty".into(),
        AttributeValue::M(HashMap::from([("tier".into(), s("gold"))])),
    );

    let mut record = OrderMapper::record_from_item(stored.clone()).unwrap();
    assert_eq!(record.entity, o);
    let bag_names: std::collections::BTreeSet<_> = record.bag.keys().cloned().collect();
    assert_eq!(bag_names, ["giftWrap", "loyalty"].map(String::from).into());

    // Unchanged write-back reproduces the stored item exactly.
    assert_eq!(OrderMapper::record_to_item(&record).unwrap(), stored);

    // The order is no longer shipped: the sparse GSI3 key must not come back
    // through the bag, the unknown attributes must.
    record.entity.status = OrderStatus::Pending;
    record.entity.shipped_at = None;
    record.entity.tracking_number = None;
    let written = OrderMapper::record_to_item(&record).unwrap();
    assert!(!written.contains_key("gsi3pk") && !written.contains_key("gsi3sk"));
    assert_eq!(written["giftWrap"], AttributeValue::Bool(true));
    assert_eq!(written.get_str("gsi1pk").unwrap(), "STATUS#Pending");
    assert_eq!(written.get_str("status").unwrap(), "Pending");
}

#[test]
fn bag_never_overrides_owned_attributes() {
    let mut bag = Item::new();
    bag.insert("gsi3pk".into(), s("SHIPPED"));
    bag.insert("gsi3sk".into(), s("2020-01-01"));
    bag.insert("status".into(), s("Delivered")); // an entity field
    bag.insert("recordType".into(), s("Nope")); // declared owned by CustomerMapper
    bag.insert("note".into(), s("kept"));
    let o = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Pending);
    let item = OrderMapper::to_item_with_bag(&o, &bag).unwrap();
    assert!(!item.contains_key("gsi3pk"));
    assert_eq!(item.get_str("status").unwrap(), "Pending");
    assert_eq!(item.get_str("note").unwrap(), "kept");
    let item = CustomerMapper::to_item_with_bag(&customer("C1"), &bag).unwrap();
    assert_eq!(item.get_str("recordType").unwrap(), "Customer");
    // A field that is absent (its `None` left out) still is not taken from
    // the bag: the field is the mapper's.
    let mut bag = Item::new();
    bag.insert("trackingNumber".into(), s("TRK-OLD"));
    let item = OrderMapper::to_item_with_bag(&o, &bag).unwrap();
    assert_eq!(item.get("trackingNumber"), None);
}

#[test]
fn after_from_item_sees_keys_not_the_whole_item() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Line {
        #[serde(skip)]
        order_id: String,
        sku: String,
    }
    struct LineMapper;
    impl Mapper for LineMapper {
        type Entity = Line;
        const ENTITY_TYPE: &'static str = "Line";
        const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk");
        fn after_to_item(l: &Line, item: &mut Item) -> dynamodb_mapper::Result<()> {
            item.put_str("pk", format!("ORDER#{}", l.order_id));
            item.put_str("sk", format!("LINE#{}", l.sku));
            Ok(())
        }
        fn after_from_item(l: &mut Line, rest: &Item) -> dynamodb_mapper::Result<()> {
            assert!(!rest.contains_key("sku"), "consumed fields are not in rest");
            let pk = rest.get_str("pk")?;
            l.order_id = pk
                .strip_prefix("ORDER#")
                .ok_or_else(|| {
                    Error::invalid_key("pk", format!("{pk:?} does not start with ORDER#"))
                })?
                .to_owned();
            Ok(())
        }
    }
    let line = Line {
        order_id: "O1".into(),
        sku: "A".into(),
    };
    let item = LineMapper::to_item(&line).unwrap();
    assert_eq!(LineMapper::from_item(item.clone()).unwrap(), line);
    let mut bad = item;
    bad.insert("pk".into(), s("CUSTOMER#1"));
    assert_eq!(
        LineMapper::from_item(bad).unwrap_err().to_string(),
        "Line: key attribute `pk` \"CUSTOMER#1\" does not start with ORDER#"
    );
}

#[test]
fn deny_unknown_fields_entities_still_read_items_with_keys() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        id: String,
    }
    struct StrictMapper;
    impl Mapper for StrictMapper {
        type Entity = Strict;
        const ENTITY_TYPE: &'static str = "Strict";
        const SCHEMA: TableSchema = TableSchema::new("pk");
        fn after_to_item(e: &Strict, item: &mut Item) -> dynamodb_mapper::Result<()> {
            item.put_str("pk", format!("STRICT#{}", e.id));
            Ok(())
        }
    }
    let e = Strict { id: "1".into() };
    let mut item = StrictMapper::to_item(&e).unwrap();
    item.insert("extra".into(), s("x"));
    assert_eq!(StrictMapper::from_item(item).unwrap(), e);
}

#[test]
fn deserialization_errors_name_entity_and_path() {
    let o = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Pending);
    let mut item = OrderMapper::to_item(&o).unwrap();
    let AttributeValue::L(lines) = item.get_mut("lines").unwrap() else {
        unreachable!()
    };
    let AttributeValue::M(line) = &mut lines[1] else {
        unreachable!()
    };
    line.insert("quantity".into(), s("two"));
    let err = OrderMapper::from_item(item.clone()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Deserialize);
    assert_eq!(err.attribute(), Some("lines[1].quantity"));
    assert!(
        format!("{err:#}")
            .starts_with("Order (pk=\"CUSTOMER#C1\", sk=\"ORDER#O1#2024-01-15\"): cannot deserialize attribute `lines[1].quantity`: "),
        "{err:#}"
    );
    assert!(err.source().is_some());

    // Top-level paths are reported with the stored (renamed) name.
    item.insert("totalCents".into(), s("a lot"));
    item.remove("lines");
    let err = OrderMapper::from_item(item).unwrap_err();
    assert_eq!(err.attribute(), Some("totalCents"), "{err}");
}

#[test]
fn a_missing_field_is_a_missing_attribute_under_its_stored_name() {
    let mut item = CustomerMapper::to_item(&customer("C1")).unwrap();
    item.remove("createdAt");
    let err = CustomerMapper::from_item(item).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingAttribute);
    assert_eq!(
        err.to_string(),
        "Customer (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): attribute `createdAt` is missing"
    );
}

#[test]
fn unknown_sdk_values_are_errors_not_panics() {
    let o = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Pending);
    let mut item = OrderMapper::to_item(&o).unwrap();
    let AttributeValue::L(lines) = item.get_mut("lines").unwrap() else {
        unreachable!()
    };
    lines.push(unknown_value());
    let err = OrderMapper::from_item(item.clone()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Order (pk=\"CUSTOMER#C1\", sk=\"ORDER#O1#2024-01-15\"): attribute `lines[2]` has a type this SDK version does not know (AttributeValue::Unknown)"
    );
    // Unknown values in attributes the entity does not consume go to the bag untouched.
    let mut item = OrderMapper::to_item(&o).unwrap();
    item.insert("future".into(), unknown_value());
    let record = OrderMapper::record_from_item(item).unwrap();
    assert_eq!(record.bag.get("future"), Some(&unknown_value()));
    // ...but writing one is refused, naming it.
    let err = OrderMapper::record_to_item(&record).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue);
    assert_eq!(err.attribute(), Some("future"));
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Blob {
    id: String,
    data: String,
    ratio: f64,
    tags: Option<std::collections::BTreeSet<String>>,
}

struct BlobMapper;
impl Mapper for BlobMapper {
    type Entity = Blob;
    const ENTITY_TYPE: &'static str = "Blob";
    const SCHEMA: TableSchema = TableSchema::new("pk");
    fn after_to_item(b: &Blob, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("pk", format!("BLOB#{}", b.id));
        if let Some(tags) = &b.tags {
            item.insert(
                "tagSet".into(),
                AttributeValue::Ss(tags.iter().cloned().collect()),
            );
        }
        Ok(())
    }
}

#[test]
fn writes_dynamodb_would_reject_are_refused() {
    let ok = Blob {
        id: "1".into(),
        data: String::new(),
        ratio: 0.5,
        tags: None,
    };
    // The item's size: the data string is what grows.
    let base = dynamodb_mapper::item_size(&BlobMapper::to_item(&ok).unwrap());
    let fits = Blob {
        data: "x".repeat(409_600 - base),
        ..ok.clone()
    };
    assert_eq!(
        dynamodb_mapper::item_size(&BlobMapper::to_item(&fits).unwrap()),
        409_600
    );
    let over = Blob {
        data: "x".repeat(409_601 - base),
        ..ok.clone()
    };
    let err = BlobMapper::to_item(&over).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ItemTooLarge);
    assert_eq!(
        err.to_string(),
        "Blob: item is 409601 bytes, over the limit of 409600 bytes; largest attributes: \
         `data` 409569 bytes, `entityType` 14 bytes, `pk` 8 bytes"
    );
    assert_eq!(err.kind(), ErrorKind::ItemTooLarge);
    let ErrorDetails::ItemTooLarge { size, largest, .. } = err.details() else {
        panic!("{err:?}")
    };
    assert_eq!(*size, 409_601);
    // The `None` tags are not written (5 bytes for `tags` and a NULL).
    assert_eq!(largest[0], ("data".to_string(), 409_569));
    assert_eq!(largest.len(), 3);

    let err = BlobMapper::to_item(&Blob {
        ratio: f64::INFINITY,
        ..ok.clone()
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Blob: attribute `ratio` is not a number: \"inf\""
    );

    let err = BlobMapper::to_item(&Blob {
        tags: Some(Default::default()),
        ..ok.clone()
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Blob: attribute `tagSet` is an empty string set; DynamoDB rejects empty sets"
    );

    let err = BlobMapper::to_item(&Blob {
        id: "y".repeat(2048),
        ..ok.clone()
    })
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    assert_eq!(
        err.to_string(),
        "Blob: key attribute `pk` is 2053 bytes, over the limit of 2048 bytes"
    );

    let err = CustomerMapper::to_item(&Customer {
        customer_id: "z".repeat(1020),
        ..customer("C")
    })
    .map(|_| ())
    .unwrap_err();
    assert_eq!(err.attribute(), Some("gsi1sk"), "{err}");
}

#[test]
fn hook_errors_keep_the_users_error_as_source() {
    #[derive(Debug, thiserror::Error)]
    #[error("quota exceeded for tenant {0}")]
    struct Quota(String);

    #[derive(Serialize, Deserialize)]
    struct Doc {
        tenant: String,
    }
    struct DocMapper;
    impl Mapper for DocMapper {
        type Entity = Doc;
        const ENTITY_TYPE: &'static str = "Doc";
        const SCHEMA: TableSchema = TableSchema::new("pk");
        fn before_to_item(d: &Doc) -> dynamodb_mapper::Result<()> {
            Err(Error::hook("before_to_item", Quota(d.tenant.clone())))
        }
        fn after_to_item(_: &Doc, _: &mut Item) -> dynamodb_mapper::Result<()> {
            Ok(())
        }
    }
    let err = DocMapper::to_item(&Doc {
        tenant: "T1".into(),
    })
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Hook);
    assert_eq!(
        format!("{err:#}"),
        "Doc: hook `before_to_item` failed: quota exceeded for tenant T1"
    );
    let source = err.source().unwrap();
    assert!(source.downcast_ref::<Quota>().is_some());
}

#[test]
fn missing_keys_are_reported_before_sending() {
    #[derive(Serialize, Deserialize)]
    struct NoKeys {
        a: u8,
    }
    struct NoKeysMapper;
    impl Mapper for NoKeysMapper {
        type Entity = NoKeys;
        const ENTITY_TYPE: &'static str = "NoKeys";
        const SCHEMA: TableSchema = TableSchema::new("pk").sort_key("sk");
        fn after_to_item(_: &NoKeys, item: &mut Item) -> dynamodb_mapper::Result<()> {
            item.put_str("pk", "X");
            Ok(())
        }
    }
    assert_eq!(
        NoKeysMapper::to_item(&NoKeys { a: 1 })
            .unwrap_err()
            .to_string(),
        "NoKeys: key attribute `sk` is missing"
    );
}

#[test]
fn naming_conventions_rename_on_write_and_reverse_on_read() {
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Profile {
        user_id: String,
        display_name: String,
        login_count: u32,
    }
    macro_rules! profile_mapper {
        ($name:ident, $conv:expr, $expected:expr) => {
            struct $name;
            impl Mapper for $name {
                type Entity = Profile;
                const ENTITY_TYPE: &'static str = "Profile";
                const SCHEMA: TableSchema = TableSchema::new("pk").without_discriminator();
                const NAMING: NamingConvention = $conv;
                fn after_to_item(p: &Profile, item: &mut Item) -> dynamodb_mapper::Result<()> {
                    item.put_str("pk", format!("USER#{}", p.user_id));
                    Ok(())
                }
            }
            let p = Profile {
                user_id: "U1".into(),
                display_name: "Ada".into(),
                login_count: 3,
            };
            let item = $name::to_item(&p).unwrap();
            let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
            names.sort_unstable();
            let mut expected: Vec<&str> = $expected.to_vec();
            expected.push("pk");
            expected.sort_unstable();
            assert_eq!(names, expected, "{:?}", $conv);
            assert_eq!($name::from_item(item).unwrap(), p);
        };
    }
    profile_mapper!(
        AsIs,
        NamingConvention::AsIs,
        ["user_id", "display_name", "login_count"]
    );
    profile_mapper!(
        Camel,
        NamingConvention::CamelCase,
        ["userId", "displayName", "loginCount"]
    );
    profile_mapper!(
        Pascal,
        NamingConvention::PascalCase,
        ["UserId", "DisplayName", "LoginCount"]
    );
    profile_mapper!(
        Snake,
        NamingConvention::SnakeCase,
        ["user_id", "display_name", "login_count"]
    );
    profile_mapper!(
        Kebab,
        NamingConvention::KebabCase,
        ["user-id", "display-name", "login-count"]
    );
}

#[test]
fn without_discriminator_nothing_is_written_or_checked() {
    struct Plain;
    impl Mapper for Plain {
        type Entity = Customer;
        const ENTITY_TYPE: &'static str = "Customer";
        const SCHEMA: TableSchema = TableSchema::new("pk").without_discriminator();
        fn after_to_item(c: &Customer, item: &mut Item) -> dynamodb_mapper::Result<()> {
            item.put_str("pk", &c.customer_id);
            Ok(())
        }
    }
    let item = Plain::to_item(&customer("C1")).unwrap();
    assert!(!item.contains_key("entityType"));
    assert_eq!(Plain::from_item(item).unwrap(), customer("C1"));
}

#[test]
fn key_helpers_match_what_to_item_writes() {
    let o = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Pending);
    let key = OrderMapper::key(&o).unwrap();
    assert_eq!(
        key,
        Item::from([
            ("pk".into(), s("CUSTOMER#C1")),
            ("sk".into(), s("ORDER#O1#2024-01-15"))
        ])
    );
    assert_eq!(
        CustomerMapper::string_key("CUSTOMER#C1", "METADATA").unwrap(),
        CustomerMapper::key(&customer("C1")).unwrap()
    );
    let err = CustomerMapper::string_key("CUSTOMER#C1", "").unwrap_err();
    assert_eq!(
        err.to_string(),
        "Customer: key attribute `sk` is empty; DynamoDB rejects empty key values"
    );
}

#[test]
fn record_version_is_read_and_carried() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Counter {
        id: String,
        value: u64,
    }
    struct CounterMapper;
    impl Mapper for CounterMapper {
        type Entity = Counter;
        const ENTITY_TYPE: &'static str = "Counter";
        const SCHEMA: TableSchema = TableSchema::new("pk").version("version");
        fn after_to_item(c: &Counter, item: &mut Item) -> dynamodb_mapper::Result<()> {
            item.put_str("pk", format!("COUNTER#{}", c.id));
            Ok(())
        }
    }
    let mut item = CounterMapper::to_item(&Counter {
        id: "a".into(),
        value: 1,
    })
    .unwrap();
    item.insert("version".into(), n("7"));
    let record: Record<Counter> = CounterMapper::record_from_item(item).unwrap();
    assert_eq!(record.version, Some(7));
    assert!(!record.bag.contains_key("version"));
    assert_eq!(
        CounterMapper::record_to_item(&record).unwrap()["version"],
        n("7")
    );
    let mut item = CounterMapper::to_item(&Counter {
        id: "a".into(),
        value: 1,
    })
    .unwrap();
    item.insert("version".into(), s("seven"));
    assert_eq!(
        CounterMapper::record_from_item(item)
            .unwrap_err()
            .to_string(),
        "Counter (pk=\"COUNTER#a\"): attribute `version` is a string (S), expected a number (N)"
    );
}

#[test]
fn serialization_errors_name_the_attribute_path() {
    #[derive(Deserialize)]
    struct Part(u8);
    impl Serialize for Part {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            if self.0 == 0 {
                return Err(serde::ser::Error::custom("part 0 is reserved"));
            }
            s.serialize_u8(self.0)
        }
    }
    #[derive(Serialize, Deserialize)]
    struct Assembly {
        assembly_id: String,
        spare_parts: Vec<Part>,
    }
    struct AssemblyMapper;
    impl Mapper for AssemblyMapper {
        type Entity = Assembly;
        const ENTITY_TYPE: &'static str = "Assembly";
        const SCHEMA: TableSchema = TableSchema::new("pk");
        const NAMING: NamingConvention = NamingConvention::CamelCase;
        fn after_to_item(a: &Assembly, item: &mut Item) -> dynamodb_mapper::Result<()> {
            item.put_str("pk", &a.assembly_id);
            Ok(())
        }
    }
    let a = Assembly {
        assembly_id: "A1".into(),
        spare_parts: vec![Part(3), Part(0)],
    };
    let err = AssemblyMapper::to_item(&a).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Serialize);
    assert_eq!(err.attribute(), Some("spareParts[1]"));
    assert!(
        format!("{err:#}").starts_with("Assembly: cannot serialize attribute `spareParts[1]`: "),
        "{err:#}"
    );
    assert!(format!("{err:#}").contains("part 0 is reserved"), "{err:#}");
}

#[test]
fn flattened_and_enum_entities_take_the_general_path() {
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Audit {
        audit_id: String,
        #[serde(flatten)]
        extra: std::collections::BTreeMap<String, String>,
    }
    struct AuditMapper;
    impl Mapper for AuditMapper {
        type Entity = Audit;
        const ENTITY_TYPE: &'static str = "Audit";
        const SCHEMA: TableSchema = TableSchema::new("pk");
        fn after_to_item(a: &Audit, item: &mut Item) -> dynamodb_mapper::Result<()> {
            item.put_str("pk", format!("AUDIT#{}", a.audit_id));
            Ok(())
        }
    }
    let a = Audit {
        audit_id: "A1".into(),
        extra: [("actor".to_string(), "ada".to_string())].into(),
    };
    let item = AuditMapper::to_item(&a).unwrap();
    assert_eq!(item.get_str("actor").unwrap(), "ada");
    // Owned attributes (pk, entityType) are not handed to the flattened map.
    assert_eq!(AuditMapper::from_item(item).unwrap(), a);

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "kind")]
    enum Event {
        Login { user: String },
        Logout { user: String, seconds: u64 },
    }
    macro_rules! event_mapper {
        ($name:ident, $naming:expr) => {
            struct $name;
            impl Mapper for $name {
                type Entity = Event;
                const ENTITY_TYPE: &'static str = "Event";
                const SCHEMA: TableSchema = TableSchema::new("pk");
                const NAMING: NamingConvention = $naming;
                fn after_to_item(e: &Event, item: &mut Item) -> dynamodb_mapper::Result<()> {
                    let (Event::Login { user } | Event::Logout { user, .. }) = e;
                    item.put_str("pk", format!("EVENT#{user}"));
                    Ok(())
                }
            }
        };
    }
    event_mapper!(EventMapper, NamingConvention::AsIs);
    event_mapper!(PascalEventMapper, NamingConvention::PascalCase);
    for e in [
        Event::Login { user: "u1".into() },
        Event::Logout {
            user: "u1".into(),
            seconds: 30,
        },
    ] {
        let item = EventMapper::to_item(&e).unwrap();
        assert!(
            item.contains_key("kind") && item.contains_key("user"),
            "{item:?}"
        );
        assert_eq!(EventMapper::from_item(item.clone()).unwrap(), e);
        // A convention could not be reversed on read: refused both ways, clearly.
        let err = PascalEventMapper::to_item(&e).unwrap_err();
        assert!(
            err.to_string().starts_with(
                "Event: attribute `(entity)` cannot use the PascalCase naming convention: the entity is not a plain struct"
            ),
            "{err}"
        );
        assert_eq!(
            PascalEventMapper::from_item(item).unwrap_err().to_string(),
            err.to_string()
        );
    }
}

#[test]
fn keys_written_must_match_the_declared_key_patterns() {
    use dynamodb_mapper::{IndexKeys, KeyPattern};

    #[derive(Debug, Serialize, Deserialize)]
    struct User {
        user_id: String,
        active: bool,
    }
    const PK: KeyPattern = KeyPattern::partition("TENANT#{tenant}");
    const SK: KeyPattern = KeyPattern::sort("USER#{user_id}");
    const GSI_PK: KeyPattern = KeyPattern::partition("ACTIVE");
    const GSI_SK: KeyPattern = KeyPattern::sort("USER#{user_id}");
    const T: TableSchema = TableSchema::new("pk").sort_key("sk").indexes(&[
        dynamodb_mapper::GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk"),
    ]);

    macro_rules! user_mapper {
        ($name:ident, $sk:expr, $gsi_pk:expr) => {
            struct $name;
            impl Mapper for $name {
                type Entity = User;
                const ENTITY_TYPE: &'static str = "User";
                const SCHEMA: TableSchema = T;
                // Computed (`{tenant}` is no field) and sparse by state: the
                // hook writes these keys.
                const KEY_PATTERNS: &'static [IndexKeys] = &[
                    IndexKeys::table(PK).sort(SK).by_hook(),
                    IndexKeys::index("GSI1", GSI_PK).sort(GSI_SK).by_hook(),
                ];
                fn after_to_item(u: &User, item: &mut Item) -> dynamodb_mapper::Result<()> {
                    item.put_str("pk", "TENANT#acme");
                    item.put_str("sk", format!($sk, u.user_id));
                    if u.active {
                        item.put_str("gsi1pk", $gsi_pk);
                        item.put_str("gsi1sk", format!("USER#{}", u.user_id));
                    }
                    Ok(())
                }
            }
        };
    }
    user_mapper!(Good, "USER#{}", "ACTIVE");
    user_mapper!(Typo, "USERS#{}", "ACTIVE");
    user_mapper!(BadIndex, "USER#{}", "ACTIVE_USERS");

    let active = User {
        user_id: "u1".into(),
        active: true,
    };
    let inactive = User {
        user_id: "u2".into(),
        active: false,
    };
    assert!(Good::to_item(&active).is_ok());
    assert!(
        Good::to_item(&inactive).is_ok(),
        "an absent index key is a sparse index"
    );
    let err = Typo::to_item(&active).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    assert_eq!(
        err.to_string(),
        "User: key attribute `sk` is \"USERS#u1\", which matches none of the key patterns declared for the table: USER#{user_id}"
    );
    assert_eq!(
        BadIndex::to_item(&active).unwrap_err().to_string(),
        "User: key attribute `gsi1pk` is \"ACTIVE_USERS\", which matches none of the key patterns declared for index GSI1: ACTIVE"
    );
    assert!(BadIndex::to_item(&inactive).is_ok());
}

#[test]
fn integers_of_128_bits_round_trip_up_to_38_digits() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Ledger {
        id: String,
        balance: i128,
        total: u128,
        history: Vec<u128>,
        by_account: std::collections::BTreeMap<u128, i128>,
    }
    struct LedgerMapper;
    impl Mapper for LedgerMapper {
        type Entity = Ledger;
        const ENTITY_TYPE: &'static str = "Ledger";
        const SCHEMA: TableSchema = TableSchema::new("pk");
        fn after_to_item(l: &Ledger, item: &mut Item) -> dynamodb_mapper::Result<()> {
            item.put_str("pk", format!("LEDGER#{}", l.id));
            Ok(())
        }
    }
    let max38: u128 = "9".repeat(38).parse().unwrap();
    let ledger = Ledger {
        id: "L1".into(),
        balance: -(max38 as i128),
        total: max38,
        history: vec![0, u128::from(u64::MAX) + 1, max38],
        by_account: [(max38, -1), (1 << 100, i128::from(i64::MIN) - 1)].into(),
    };
    let item = LedgerMapper::to_item(&ledger).unwrap();
    assert_eq!(item["total"], n("9".repeat(38)));
    assert_eq!(item["balance"], n(format!("-{}", "9".repeat(38))));
    assert_eq!(LedgerMapper::from_item(item).unwrap(), ledger);

    // Past DynamoDB's 38 digits: refused on write, naming the attribute.
    let err = LedgerMapper::to_item(&Ledger {
        total: u128::MAX,
        ..ledger
    })
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue);
    assert_eq!(
        err.to_string(),
        "Ledger: attribute `total` has 39 significant digits, more than DynamoDB's 38"
    );
}
