//! The registry on in-memory items: seed 000's tenant partition and
//! Person/Employee/Manager groups, seed 001's customer partition (the shared
//! fixtures), seed 004's invoice compound read; policies, aliases, filters and
//! every check `build` makes.

use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::ItemExt;
use dynamodb_mapper::expr::Apply;
use dynamodb_mapper::{
    Buckets, Decoded, DecodedItems, ErrorDetails, ErrorKind, GlobalSecondaryIndex, Item,
    KeyAttribute, Mapper, MapperExt, MissingPolicy, NamingConvention, RawItem, Record, Registry,
    Result, ScalarType, Skipped, TableSchema, UnknownPolicy, Unmatched,
};
use dynamodb_mapper_support::problems;
use dynamodb_mapper_support::requests::{names, offline_client};
use dynamodb_mapper_support::seed000::{self, *};
use dynamodb_mapper_support::seed001::*;
use dynamodb_mapper_support::seed004::invoices::*;
use dynamodb_mapper_support::values::s;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

fn values(pairs: &[(&str, &str)]) -> HashMap<String, AttributeValue> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), s(*v)))
        .collect()
}

// ------------------------------------------------------------------ seed 000

fn tenant_registry(unknown: UnknownPolicy) -> Registry<Tenant> {
    seed000::builder().on_unknown(unknown).build().unwrap()
}

/// Seed 000's tenant partition, in sort key order, as `Query pk = TENANT#1`
/// returns it.
fn tenant_partition() -> Vec<Item> {
    vec![
        EmployeeMapper::to_item(&employee("7")).unwrap(),
        ManagerMapper::to_item(&manager("9", 2)).unwrap(),
        TenantOrderMapper::to_item(&tenant_order("17", "2026-04-01", 2500)).unwrap(),
        TenantOrderMapper::to_item(&tenant_order("18", "2026-04-02", 990)).unwrap(),
        PersonMapper::to_item(&person("3")).unwrap(),
        UserMapper::to_item(&user("42")).unwrap(),
        UserMetadataMapper::to_item(&user_metadata("42")).unwrap(),
    ]
}

#[test]
fn tenant_partition_decodes_every_type_in_order() {
    let items = tenant_partition();
    assert_eq!(items[2]["$type"], s("Order"));
    assert_eq!(items[2]["sk"], s("ORDER#2026-04-01#17"));
    assert_eq!(items[6]["sk"], s("USER#42#METADATA"));
    assert_eq!(items[1]["managerLevel"], AttributeValue::N("2".into()));

    let out = tenant_registry(UnknownPolicy::Error)
        .decode_all(items)
        .unwrap();
    assert_eq!(
        out,
        DecodedItems {
            entities: vec![
                Tenant::Employee(employee("7")),
                Tenant::Manager(manager("9", 2)),
                Tenant::Order(tenant_order("17", "2026-04-01", 2500)),
                Tenant::Order(tenant_order("18", "2026-04-02", 990)),
                Tenant::Person(person("3")),
                Tenant::User(user("42")),
                Tenant::UserMetadata(user_metadata("42")),
            ],
            skipped: vec![],
            raw: vec![],
        }
    );
    assert!(out.is_complete());
}

#[test]
fn base_and_derived_groups_filter_like_the_seed() {
    let registry = tenant_registry(UnknownPolicy::Error);
    // Seed 000: `$type = 'Employee' OR $type = 'Manager'` for the Employee set.
    let employees = registry.group("Employee").unwrap().filter();
    assert_eq!(employees.expression(), "#dmType0 IN (:dmType0, :dmType1)");
    assert_eq!(employees.names(), &names(&[("#dmType0", "$type")]));
    assert_eq!(
        employees.values(),
        &values(&[(":dmType0", "Employee"), (":dmType1", "Manager")])
    );
    let people = registry.group("Person").unwrap().filter();
    assert_eq!(
        people.expression(),
        "#dmType0 IN (:dmType0, :dmType1, :dmType2)"
    );
    assert_eq!(
        people.values(),
        &values(&[
            (":dmType0", "Person"),
            (":dmType1", "Employee"),
            (":dmType2", "Manager")
        ])
    );
    // A derived query scopes to one value, with `=`.
    let managers = registry.filter(&["Manager"]).unwrap();
    assert_eq!(managers.expression(), "#dmType0 = :dmType0");
    assert_eq!(managers.values(), &values(&[(":dmType0", "Manager")]));
    // Asking twice for a type changes nothing.
    assert_eq!(
        registry
            .filter(&["Employee", "Manager", "Employee"])
            .unwrap(),
        employees
    );

    let group = registry.group("Employee").unwrap();
    assert_eq!(group.entity_types(), ["Employee", "Manager"]);
    assert_eq!(
        format!("{group:?}"),
        "Group { name: \"Employee\", entity_types: [\"Employee\", \"Manager\"] }"
    );
    assert!(registry.group("Person").is_ok() && registry.group("Nope").is_err());
}

#[test]
fn group_decoding_is_restricted_to_its_members() {
    let registry = tenant_registry(UnknownPolicy::Error);
    let employees = registry.group("Employee").unwrap();
    assert_eq!(
        employees
            .decode(ManagerMapper::to_item(&manager("9", 2)).unwrap())
            .unwrap(),
        Decoded::Entity(Tenant::Manager(manager("9", 2)))
    );
    let err = employees
        .decode(PersonMapper::to_item(&person("3")).unwrap())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownEntityType);
    assert_eq!(err.attribute(), Some("$type"));
    assert_eq!(err.entity_type(), None);
    assert_eq!(
        err.to_string(),
        "item (pk=\"TENANT#1\", sk=\"PERSON#3\"): discriminator `$type` is \"Person\", which no \
         mapper of group \"Employee\" reads (members: \"Employee\", \"Manager\")"
    );

    // With Skip, the base query of the whole partition keeps only the set,
    // and says what it left out.
    let registry = tenant_registry(UnknownPolicy::Skip);
    let out = registry
        .group("Employee")
        .unwrap()
        .decode_all(tenant_partition())
        .unwrap();
    assert_eq!(
        out.entities,
        vec![
            Tenant::Employee(employee("7")),
            Tenant::Manager(manager("9", 2))
        ]
    );
    let reasons: Vec<String> = out.skipped.iter().map(|s| s.reason.to_string()).collect();
    assert_eq!(
        reasons,
        [
            "unknown entity type \"Order\"",
            "unknown entity type \"Order\"",
            "unknown entity type \"Person\"",
            "unknown entity type \"User\"",
            "unknown entity type \"UserMetadata\"",
        ]
    );
    assert_eq!(
        out.skipped[2].key,
        Item::from([("pk".into(), s("TENANT#1")), ("sk".into(), s("PERSON#3"))])
    );
    assert!(out.raw.is_empty());
}

#[test]
fn filter_applies_to_query_and_scan_without_replacing_anything() {
    let registry = tenant_registry(UnknownPolicy::Error);
    let filter = registry.group("Employee").unwrap().filter();
    let query = offline_client()
        .query()
        .table_name("People")
        .key_condition_expression("#pk = :pk AND begins_with(#sk, :sk)")
        .expression_attribute_names("#pk", "pk")
        .expression_attribute_names("#sk", "sk")
        .expression_attribute_values(":pk", s("TENANT#1"))
        .expression_attribute_values(":sk", s("EMPLOYEE#"));
    let query = query.apply(&filter).unwrap();
    let input = query.as_input();
    assert_eq!(
        input.get_filter_expression().as_deref(),
        Some("#dmType0 IN (:dmType0, :dmType1)")
    );
    assert_eq!(
        input.get_expression_attribute_names().as_ref().unwrap(),
        &names(&[("#pk", "pk"), ("#sk", "sk"), ("#dmType0", "$type")])
    );
    assert_eq!(
        input.get_expression_attribute_values().as_ref().unwrap(),
        &values(&[
            (":pk", "TENANT#1"),
            (":sk", "EMPLOYEE#"),
            (":dmType0", "Employee"),
            (":dmType1", "Manager")
        ])
    );
    assert_eq!(
        input.get_key_condition_expression().as_deref(),
        Some("#pk = :pk AND begins_with(#sk, :sk)")
    );

    // An existing filter is kept, joined with AND.
    let query = offline_client()
        .query()
        .table_name("People")
        .filter_expression("department = :dept")
        .expression_attribute_values(":dept", s("Sales"));
    let query = query.apply(&filter).unwrap();
    assert_eq!(
        query.get_filter_expression().as_deref(),
        Some("(department = :dept) AND (#dmType0 IN (:dmType0, :dmType1))")
    );
    assert_eq!(
        query
            .get_expression_attribute_values()
            .as_ref()
            .unwrap()
            .len(),
        3
    );

    // Our placeholders bound to something else: ours are renamed, the
    // request's stay as they are.
    let taken = offline_client()
        .query()
        .table_name("People")
        .expression_attribute_values(":dmType1", s("Intern"))
        .apply(&filter)
        .unwrap();
    let bound = taken.get_expression_attribute_values().clone().unwrap();
    assert_eq!(bound[":dmType1"], s("Intern"));
    assert_eq!(bound.len(), 3);
    assert_eq!(
        taken.get_filter_expression().as_deref(),
        Some("#dmType0 IN (:dmType0, :dmType2)")
    );
    assert_eq!(bound[":dmType2"], s("Manager"));
    let taken = offline_client()
        .scan()
        .table_name("People")
        .expression_attribute_names("#dmType0", "kind")
        .apply(&filter)
        .unwrap();
    let names_bound = taken.get_expression_attribute_names().clone().unwrap();
    assert_eq!(names_bound["#dmType0"], "kind");
    assert_eq!(names_bound["#dmType1"], "$type");
    assert_eq!(
        taken.get_filter_expression().as_deref(),
        Some("#dmType1 IN (:dmType0, :dmType1)")
    );

    let scan = offline_client()
        .scan()
        .table_name("People")
        .apply(&filter)
        .unwrap();
    assert_eq!(
        scan.get_filter_expression().as_deref(),
        Some("#dmType0 IN (:dmType0, :dmType1)")
    );
    assert_eq!(
        scan.get_expression_attribute_names().as_ref().unwrap(),
        &names(&[("#dmType0", "$type")])
    );

    let (expression, n, v) = filter.into_parts();
    assert_eq!(expression, "#dmType0 IN (:dmType0, :dmType1)");
    assert_eq!((n.len(), v.len()), (1, 2));
}

#[test]
fn filter_errors() {
    let registry = tenant_registry(UnknownPolicy::Error);
    let err = registry.filter(&[]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidFilter);
    assert_eq!(err.attribute(), Some("$type"));
    assert_eq!(
        err.to_string(),
        "discriminator filter on `$type` names no entity type"
    );
    let err = registry.filter(&["Employee", "Intern"]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotRegistered);
    assert_eq!(err.to_string(), "entity type \"Intern\" is not registered");
    let err = registry.group("Staff").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotRegistered);
    assert_eq!(err.to_string(), "group \"Staff\" is not registered");
}

// ------------------------------------------------------------------ seed 001

#[derive(Debug, Clone, PartialEq)]
enum App {
    Customer(Customer),
    Order(Order),
}

fn customer_registry() -> Registry<App> {
    Registry::builder()
        .register::<CustomerMapper>(App::Customer)
        .register::<OrderMapper>(App::Order)
        .build()
        .unwrap()
}

#[test]
fn customer_partition_decodes_customer_and_orders() {
    let registry = customer_registry();
    let o1 = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Pending);
    let o2 = order("C1", "O2", "2024-02-20T14:45:00Z", OrderStatus::Shipped);
    // `Query pk = CUSTOMER#C1`: METADATA sorts after ORDER#...
    let items = vec![
        OrderMapper::to_item(&o1).unwrap(),
        OrderMapper::to_item(&o2).unwrap(),
        CustomerMapper::to_item(&customer("C1")).unwrap(),
    ];
    let out = registry.decode_all(items).unwrap();
    assert_eq!(
        out.entities,
        vec![
            App::Order(o1.clone()),
            App::Order(o2),
            App::Customer(customer("C1"))
        ]
    );
    assert!(out.is_complete());

    // One at a time, as `decode` gives them.
    let decoded = registry.decode(OrderMapper::to_item(&o1).unwrap()).unwrap();
    assert_eq!(decoded.into_entity(), Some(App::Order(o1)));

    // The seed's `_ => throw`: other entity types of the table are errors.
    let session = SessionMapper::to_item(&session("U1", "S1", 4_000_000_000)).unwrap();
    let err = registry.decode(session).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnknownEntityType);
    assert_eq!(
        err.to_string(),
        "item (pk=\"USER#U1\", sk=\"SESSION#S1\"): discriminator `entityType` is \"Session\", \
         which no registered mapper reads (registered: \"Customer\", \"Order\")"
    );
    assert_eq!(err.kind(), ErrorKind::UnknownEntityType, "{err}");
    assert_eq!(err.key(), Some(r#"pk="USER#U1", sk="SESSION#S1""#));
    assert_eq!(err.attribute(), Some("entityType"));
    let ErrorDetails::UnknownEntityType {
        found,
        group,
        known,
        ..
    } = err.details()
    else {
        panic!("{err:?}")
    };
    assert_eq!((found.as_str(), group), ("Session", &None));
    assert_eq!(known, &["Customer", "Order"]);
}

#[test]
fn mapper_errors_pass_through_naming_the_entity_type() {
    let registry = customer_registry();
    let mut item = OrderMapper::to_item(&order(
        "C1",
        "O1",
        "2024-01-15T10:30:00Z",
        OrderStatus::Pending,
    ))
    .unwrap();
    item.insert("totalCents".into(), s("lots"));
    let err = registry.decode(item).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Deserialize);
    assert_eq!(err.entity_type(), Some("Order"));
    assert_eq!(err.attribute(), Some("totalCents"));

    // decode_all stops at the first error.
    let mut bad = CustomerMapper::to_item(&customer("C2")).unwrap();
    bad.remove("email");
    let err = registry
        .decode_all(vec![CustomerMapper::to_item(&customer("C1")).unwrap(), bad])
        .unwrap_err();
    assert_eq!(err.entity_type(), Some("Customer"));
    assert_eq!(err.kind(), ErrorKind::MissingAttribute);
    assert_eq!(
        err.to_string(),
        "Customer (pk=\"CUSTOMER#C2\", sk=\"METADATA\"): attribute `email` is missing"
    );
}

// ------------------------------------------------------------------ policies

fn refund() -> Item {
    Item::from([
        ("pk".into(), s("CUSTOMER#C1")),
        ("sk".into(), s("REFUND#R1")),
        ("entityType".into(), s("Refund")),
        ("amount".into(), AttributeValue::N("5".into())),
    ])
}

fn untyped() -> Item {
    Item::from([
        ("pk".into(), s("CUSTOMER#C1")),
        ("sk".into(), s("NOTE#1")),
        ("text".into(), s("hello")),
    ])
}

fn numbered() -> Item {
    let mut item = untyped();
    item.insert("entityType".into(), AttributeValue::N("3".into()));
    item
}

fn registry_with(unknown: UnknownPolicy, missing: MissingPolicy) -> Registry<App> {
    Registry::builder()
        .register::<CustomerMapper>(App::Customer)
        .register::<OrderMapper>(App::Order)
        .on_unknown(unknown)
        .on_missing(missing)
        .build()
        .unwrap()
}

#[test]
fn unknown_policy_error_skip_keep() {
    let err = registry_with(UnknownPolicy::Error, MissingPolicy::Error)
        .decode(refund())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "item (pk=\"CUSTOMER#C1\", sk=\"REFUND#R1\"): discriminator `entityType` is \"Refund\", \
         which no registered mapper reads (registered: \"Customer\", \"Order\")"
    );

    let skip = registry_with(UnknownPolicy::Skip, MissingPolicy::Error);
    assert_eq!(
        skip.decode(refund()).unwrap(),
        Decoded::Skipped(Skipped {
            key: Item::from([
                ("pk".into(), s("CUSTOMER#C1")),
                ("sk".into(), s("REFUND#R1"))
            ]),
            reason: Unmatched::Unknown {
                value: "Refund".into()
            },
        })
    );

    let keep = registry_with(UnknownPolicy::Keep, MissingPolicy::Error);
    assert_eq!(
        keep.decode(refund()).unwrap(),
        Decoded::Raw(RawItem {
            item: refund(),
            reason: Unmatched::Unknown {
                value: "Refund".into()
            },
        })
    );
    // The unknown policy does not cover a missing discriminator.
    assert_eq!(
        keep.decode(untyped()).unwrap_err().to_string(),
        "item (pk=\"CUSTOMER#C1\", sk=\"NOTE#1\"): discriminator `entityType` is missing"
    );
}

#[test]
fn missing_policy_error_skip_keep() {
    let strict = registry_with(UnknownPolicy::Keep, MissingPolicy::Error);
    let err = strict.decode(untyped()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingDiscriminator);
    assert_eq!(
        err.to_string(),
        "item (pk=\"CUSTOMER#C1\", sk=\"NOTE#1\"): discriminator `entityType` is missing"
    );
    assert_eq!(
        strict.decode(numbered()).unwrap_err().to_string(),
        "item (pk=\"CUSTOMER#C1\", sk=\"NOTE#1\"): discriminator `entityType` is missing \
         (found a number (N))"
    );

    let skip = registry_with(UnknownPolicy::Error, MissingPolicy::Skip);
    assert_eq!(
        skip.decode(untyped()).unwrap(),
        Decoded::Skipped(Skipped {
            key: Item::from([("pk".into(), s("CUSTOMER#C1")), ("sk".into(), s("NOTE#1"))]),
            reason: Unmatched::Missing { found: None },
        })
    );
    assert_eq!(
        skip.decode(numbered()).unwrap(),
        Decoded::Skipped(Skipped {
            key: Item::from([("pk".into(), s("CUSTOMER#C1")), ("sk".into(), s("NOTE#1"))]),
            reason: Unmatched::Missing {
                found: Some("a number (N)")
            },
        })
    );
    // The missing policy does not cover an unknown type.
    assert_eq!(
        skip.decode(refund()).unwrap_err().kind(),
        ErrorKind::UnknownEntityType
    );

    let keep = registry_with(UnknownPolicy::Error, MissingPolicy::Keep);
    assert_eq!(
        keep.decode(numbered()).unwrap(),
        Decoded::Raw(RawItem {
            item: numbered(),
            reason: Unmatched::Missing {
                found: Some("a number (N)")
            },
        })
    );
}

#[test]
fn decode_all_returns_what_it_skipped_and_kept_beside_the_entities() {
    let registry = registry_with(UnknownPolicy::Skip, MissingPolicy::Keep);
    let items = vec![
        refund(),
        CustomerMapper::to_item(&customer("C1")).unwrap(),
        untyped(),
        numbered(),
    ];
    let out = registry.decode_all(items).unwrap();
    assert!(!out.is_complete());
    assert_eq!(out.entities, vec![App::Customer(customer("C1"))]);
    assert_eq!(
        out.skipped,
        vec![Skipped {
            key: Item::from([
                ("pk".into(), s("CUSTOMER#C1")),
                ("sk".into(), s("REFUND#R1"))
            ]),
            reason: Unmatched::Unknown {
                value: "Refund".into()
            },
        }]
    );
    assert_eq!(
        out.raw,
        vec![
            RawItem {
                item: untyped(),
                reason: Unmatched::Missing { found: None }
            },
            RawItem {
                item: numbered(),
                reason: Unmatched::Missing {
                    found: Some("a number (N)")
                }
            },
        ]
    );
    assert_eq!(
        registry.decode_all(Vec::new()).unwrap(),
        DecodedItems::default()
    );
}

// ------------------------------------------------------------------ aliases

/// The fixtures' orders, read also from items written when the type was
/// called `Purchase` or `SalesOrder`.
struct RenamedOrderMapper;

impl Mapper for RenamedOrderMapper {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const ALIASES: &'static [&'static str] = &["Purchase", "SalesOrder"];
    const SCHEMA: TableSchema = APP_TABLE;
    const NAMING: NamingConvention = NamingConvention::CamelCase;

    fn after_to_item(o: &Order, item: &mut Item) -> Result<()> {
        OrderMapper::after_to_item(o, item)
    }
}

fn with_type(mut item: Item, value: &str) -> Item {
    item.insert("entityType".into(), s(value));
    item
}

#[test]
fn aliases_route_to_their_mapper_and_are_in_the_filter() {
    let registry = Registry::builder()
        .register::<CustomerMapper>(App::Customer)
        .register::<RenamedOrderMapper>(App::Order)
        .build()
        .unwrap();
    let o1 = order("C1", "O1", "2024-01-15T10:30:00Z", OrderStatus::Pending);
    let item = RenamedOrderMapper::to_item(&o1).unwrap();
    assert_eq!(item["entityType"], s("Order")); // the first value is written
    for value in ["Order", "Purchase", "SalesOrder"] {
        assert_eq!(
            registry.decode(with_type(item.clone(), value)).unwrap(),
            Decoded::Entity(App::Order(o1.clone())),
            "{value}"
        );
        assert_eq!(registry.entity_type_of(value), Some("Order"));
    }
    assert_eq!(registry.entity_type_of("Customer"), Some("Customer"));
    assert_eq!(registry.entity_type_of("Refund"), None);

    let filter = registry.filter(&["Order"]).unwrap();
    assert_eq!(
        filter.expression(),
        "#dmType0 IN (:dmType0, :dmType1, :dmType2)"
    );
    assert_eq!(
        filter.values(),
        &values(&[
            (":dmType0", "Order"),
            (":dmType1", "Purchase"),
            (":dmType2", "SalesOrder")
        ])
    );
    let both = registry.filter(&["Order", "Customer"]).unwrap();
    assert_eq!(both.values()[":dmType3"], s("Customer"));
}

#[test]
fn many_aliases_route_through_the_sorted_table() {
    let registry = Registry::builder()
        .register::<CustomerMapper>(App::Customer)
        .register::<OrderMapper>(App::Order)
        .register::<HundredAliasesMapper>(|_| App::Customer(customer("X")))
        .build()
        .unwrap();
    let item = with_type(Item::new(), "V57");
    assert_eq!(
        registry.decode(item).unwrap(),
        Decoded::Entity(App::Customer(customer("X")))
    );
    assert_eq!(registry.entity_type_of("V00"), Some("Hundred"));
    assert_eq!(registry.entity_type_of("V99"), Some("Hundred"));
    assert_eq!(registry.entity_type_of("V100"), None);
    let customer_item = CustomerMapper::to_item(&customer("C1")).unwrap();
    assert_eq!(
        registry.decode(customer_item).unwrap(),
        Decoded::Entity(App::Customer(customer("C1")))
    );
    // The type and its 100 aliases are one value too many for IN.
    let err = registry.filter(&["Hundred"]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidFilter);
    assert_eq!(
        err.to_string(),
        "discriminator filter on `entityType` needs 101 values (entity types and aliases), \
         over DynamoDB's limit of 100 operands for IN"
    );
    assert_eq!(
        registry
            .filter(&["Customer", "Order"])
            .unwrap()
            .values()
            .len(),
        2
    );
}

#[test]
fn record_registration_keeps_unknown_attributes() {
    #[derive(Debug)]
    enum Lossless {
        Customer(Record<Customer>),
        Order(Record<Order>),
    }
    let registry = Registry::builder()
        .register_record::<CustomerMapper>(Lossless::Customer)
        .register_record::<OrderMapper>(Lossless::Order)
        .build()
        .unwrap();
    let mut item = CustomerMapper::to_item(&customer("C1")).unwrap();
    item.insert("loyaltyTier".into(), s("gold"));
    let Some(Lossless::Customer(record)) = registry.decode(item).unwrap().into_entity() else {
        panic!("not a customer record");
    };
    assert_eq!(record.entity, customer("C1"));
    assert_eq!(record.bag.get("loyaltyTier"), Some(&s("gold")));
    assert_eq!(record.bag.len(), 1);
    assert_eq!(
        CustomerMapper::record_to_item(&record).unwrap()["loyaltyTier"],
        s("gold")
    );
    let order_item = OrderMapper::to_item(&order(
        "C1",
        "O1",
        "2024-01-15T10:30:00Z",
        OrderStatus::Pending,
    ))
    .unwrap();
    let Some(Lossless::Order(record)) = registry.decode(order_item).unwrap().into_entity() else {
        panic!("not an order record");
    };
    assert_eq!(record.entity.order_id, "O1");
    assert!(record.bag.is_empty());
}

// ------------------------------------------------------------------ seed 004

#[derive(Debug, PartialEq)]
struct FullInvoice {
    invoice: Invoice,
    items: Vec<InvoiceItem>,
    status_history: Vec<InvoiceStatus>,
    summary: Option<InvoiceSummary>,
}

/// Seed 004's `ToCompoundEntityAsync`, the Rust way.
fn full_invoice(items: Vec<Item>) -> Result<FullInvoice> {
    let mut parts = Buckets::by_discriminator(items, "entityType");
    let full = FullInvoice {
        invoice: parts.one::<InvoiceMapper>()?,
        items: parts.many::<InvoiceItemMapper>()?,
        status_history: parts.many::<InvoiceStatusMapper>()?,
        summary: parts.optional::<InvoiceSummaryMapper>()?,
    };
    parts.finish()?;
    Ok(full)
}

/// `Query pk = INVOICE#123`, in sort key order.
fn invoice_partition() -> Vec<Item> {
    vec![
        InvoiceItemMapper::to_item(&invoice_item("123", 1, 2, 1250)).unwrap(),
        InvoiceItemMapper::to_item(&invoice_item("123", 2, 1, 499)).unwrap(),
        InvoiceMapper::to_item(&invoice("123")).unwrap(),
        InvoiceStatusMapper::to_item(&invoice_status("123", "Draft", "2024-03-01T09:00:00Z"))
            .unwrap(),
        InvoiceStatusMapper::to_item(&invoice_status("123", "Sent", "2024-03-02T10:00:00Z"))
            .unwrap(),
        InvoiceSummaryMapper::to_item(&invoice_summary("123")).unwrap(),
    ]
}

#[test]
fn invoice_compound_from_one_query() {
    let items = invoice_partition();
    assert_eq!(items[0]["sk"], s("ITEM#001"));
    assert_eq!(items[3]["sk"], s("STATUS#2024-03-01T09:00:00Z"));
    assert_eq!(
        full_invoice(items).unwrap(),
        FullInvoice {
            invoice: invoice("123"),
            items: vec![
                invoice_item("123", 1, 2, 1250),
                invoice_item("123", 2, 1, 499)
            ],
            status_history: vec![
                invoice_status("123", "Draft", "2024-03-01T09:00:00Z"),
                invoice_status("123", "Sent", "2024-03-02T10:00:00Z"),
            ],
            summary: Some(invoice_summary("123")),
        }
    );

    // Optional and many parts may be absent.
    let header_only = vec![InvoiceMapper::to_item(&invoice("9")).unwrap()];
    assert_eq!(
        full_invoice(header_only).unwrap(),
        FullInvoice {
            invoice: invoice("9"),
            items: vec![],
            status_history: vec![],
            summary: None,
        }
    );
}

#[test]
fn invoice_items_written_under_the_old_name_keep_their_order() {
    let mut items = invoice_partition();
    items[0] = with_type(items[0].clone(), "InvoiceLine");
    items.push(with_type(
        InvoiceItemMapper::to_item(&invoice_item("123", 3, 1, 100)).unwrap(),
        "InvoiceLine",
    ));
    let full = full_invoice(items).unwrap();
    assert_eq!(
        full.items,
        vec![
            invoice_item("123", 1, 2, 1250),
            invoice_item("123", 2, 1, 499),
            invoice_item("123", 3, 1, 100),
        ]
    );
}

#[test]
fn invoice_compound_errors() {
    // The required header is missing.
    let mut items = invoice_partition();
    items.remove(2);
    let err = full_invoice(items).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cardinality);
    assert_eq!(err.entity_type(), Some("Invoice"));
    assert_eq!(
        err.to_string(),
        "Invoice: expected exactly one item, found 0"
    );

    // The header appears twice.
    let mut items = invoice_partition();
    items.push(InvoiceMapper::to_item(&invoice("123")).unwrap());
    assert_eq!(
        full_invoice(items).unwrap_err().to_string(),
        "Invoice: expected exactly one item, found 2"
    );

    // The optional summary appears twice.
    let mut items = invoice_partition();
    items.push(InvoiceSummaryMapper::to_item(&invoice_summary("123")).unwrap());
    assert_eq!(
        full_invoice(items).unwrap_err().to_string(),
        "InvoiceSummary: expected at most one item, found 2"
    );

    // Items no part claims.
    let mut items = invoice_partition();
    items.push(refund());
    items.push(untyped());
    items.push(refund());
    let err = full_invoice(items).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnclaimedItems);
    assert_eq!(
        err.to_string(),
        "3 items were not claimed: 2 of \"Refund\", 1 without discriminator `entityType`"
    );
    let mut one_left = invoice_partition();
    one_left.push(refund());
    assert_eq!(
        full_invoice(one_left).unwrap_err().to_string(),
        "1 item was not claimed: 1 of \"Refund\""
    );

    // A part's item that its mapper rejects.
    let mut items = invoice_partition();
    items[1].insert("quantity".into(), s("two"));
    let err = full_invoice(items).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Deserialize);
    assert_eq!(err.entity_type(), Some("InvoiceItem"));
    assert_eq!(err.attribute(), Some("quantity"));
}

#[test]
fn buckets_hand_back_what_was_not_claimed() {
    let mut items = invoice_partition();
    items.insert(1, refund());
    items.push(untyped());
    let mut parts = Buckets::by_discriminator(items, "entityType");
    assert_eq!(parts.one::<InvoiceMapper>().unwrap(), invoice("123"));
    assert_eq!(parts.many::<InvoiceStatusMapper>().unwrap().len(), 2);
    let err = parts.clone().finish().unwrap_err();
    let ErrorDetails::UnclaimedItems { counts, .. } = err.details() else {
        panic!("{err}")
    };
    let counts: Vec<(Option<&str>, usize)> =
        counts.iter().map(|(t, n)| (t.as_deref(), *n)).collect();
    assert_eq!(
        counts,
        [
            (Some("InvoiceItem"), 2),
            (Some("Refund"), 1),
            (Some("InvoiceSummary"), 1),
            (None, 1)
        ]
    );
    // Taking again finds nothing.
    assert_eq!(parts.optional::<InvoiceMapper>().unwrap(), None);
    assert_eq!(parts.many::<InvoiceStatusMapper>().unwrap(), vec![]);
    let rest = parts.into_remaining();
    let sks: Vec<&AttributeValue> = rest.iter().map(|i| &i["sk"]).collect();
    assert_eq!(
        sks,
        [
            &s("ITEM#001"),
            &s("REFUND#R1"),
            &s("ITEM#002"),
            &s("SUMMARY"),
            &s("NOTE#1")
        ]
    );

    // Through a registry, sorted by its discriminator attribute.
    let registry = tenant_registry(UnknownPolicy::Error);
    let mut parts = registry.buckets(tenant_partition());
    assert_eq!(parts.many::<TenantOrderMapper>().unwrap().len(), 2);
    assert_eq!(parts.one::<UserMapper>().unwrap(), user("42"));
    assert_eq!(
        parts.optional::<UserMetadataMapper>().unwrap(),
        Some(user_metadata("42"))
    );
    assert_eq!(parts.many::<PersonMapper>().unwrap(), vec![person("3")]);
    assert_eq!(parts.one::<EmployeeMapper>().unwrap(), employee("7"));
    assert_eq!(parts.one::<ManagerMapper>().unwrap(), manager("9", 2));
    parts.finish().unwrap();
}

// ------------------------------------------------------------------ sharing

#[test]
fn registry_is_cheap_to_share_and_lists_its_types() {
    fn send_sync_clone<X: Send + Sync + Clone + 'static>() {}
    send_sync_clone::<Registry<Tenant>>();

    let registry = tenant_registry(UnknownPolicy::Skip);
    assert_eq!(
        format!("{registry:?}"),
        "Registry { attribute: \"$type\", entity_types: [\"User\", \"UserMetadata\", \"Order\", \
         \"Person\", \"Employee\", \"Manager\"], groups: [\"Person\", \"Employee\"], \
         on_unknown: Skip, on_missing: Error }"
    );
    assert_eq!(registry.table(), TENANT_TABLE);
    assert_eq!(
        registry.entity_types(),
        [
            "User",
            "UserMetadata",
            "Order",
            "Person",
            "Employee",
            "Manager"
        ]
    );

    let shared = registry.clone();
    let handle = std::thread::spawn(move || shared.decode_all(tenant_partition()).unwrap());
    let from_thread = handle.join().unwrap();
    assert_eq!(
        from_thread,
        registry.decode_all(tenant_partition()).unwrap()
    );
    assert_eq!(from_thread.entities.len(), 7);
}

// ------------------------------------------------------------------ validation

#[derive(Debug, Serialize, Deserialize)]
struct Blank {}

macro_rules! mapper {
    ($name:ident, $entity:ty, $type:literal, $table:expr $(, aliases = $aliases:expr)? $(, naming = $naming:expr)?) => {
        struct $name;
        impl Mapper for $name {
            type Entity = $entity;
            const ENTITY_TYPE: &'static str = $type;
            $(const ALIASES: &'static [&'static str] = $aliases;)?
            const SCHEMA: TableSchema = $table;
            $(const NAMING: NamingConvention = $naming;)?
            fn after_to_item(_: &$entity, item: &mut Item) -> Result<()> {
                item.put_str("pk", "X");
                Ok(())
            }
        }
    };
}

const HUNDRED: &[&str] = &[
    "V00", "V01", "V02", "V03", "V04", "V05", "V06", "V07", "V08", "V09", "V10", "V11", "V12",
    "V13", "V14", "V15", "V16", "V17", "V18", "V19", "V20", "V21", "V22", "V23", "V24", "V25",
    "V26", "V27", "V28", "V29", "V30", "V31", "V32", "V33", "V34", "V35", "V36", "V37", "V38",
    "V39", "V40", "V41", "V42", "V43", "V44", "V45", "V46", "V47", "V48", "V49", "V50", "V51",
    "V52", "V53", "V54", "V55", "V56", "V57", "V58", "V59", "V60", "V61", "V62", "V63", "V64",
    "V65", "V66", "V67", "V68", "V69", "V70", "V71", "V72", "V73", "V74", "V75", "V76", "V77",
    "V78", "V79", "V80", "V81", "V82", "V83", "V84", "V85", "V86", "V87", "V88", "V89", "V90",
    "V91", "V92", "V93", "V94", "V95", "V96", "V97", "V98", "V99",
];

mapper!(
    HundredAliasesMapper,
    Blank,
    "Hundred",
    APP_TABLE,
    aliases = HUNDRED
);

#[test]
fn no_mapper_and_no_discriminator() {
    let err = Registry::<()>::builder().build().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidRegistry);
    assert_eq!(
        err.to_string(),
        "invalid registry (1 problem): no mapper is registered"
    );

    const BARE: TableSchema = TableSchema::new("pk").without_discriminator();
    mapper!(BareA, Blank, "A", BARE);
    mapper!(BareB, Blank, "B", BARE);
    let err = Registry::<()>::builder()
        .register::<BareA>(|_| ())
        .register::<BareB>(|_| ())
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid registry (1 problem): A: table layout has no discriminator attribute, so \
         the registry cannot dispatch"
    );
    assert_eq!(err.entity_type(), None);
    assert_eq!(err.attribute(), None);
}

#[test]
fn duplicate_entity_types_and_aliases() {
    mapper!(CustomerAgain, Blank, "Customer", APP_TABLE);
    mapper!(
        Legacy,
        Blank,
        "Legacy",
        APP_TABLE,
        aliases = &["Customer", "Legacy", "Old", "Old", "Shared"]
    );
    mapper!(Other, Blank, "Other", APP_TABLE, aliases = &["Shared"]);
    let err = Registry::<()>::builder()
        .register::<CustomerMapper>(|_| ())
        .register::<CustomerAgain>(|_| ())
        .register::<Legacy>(|_| ())
        .register::<Other>(|_| ())
        .register::<CustomerMapper>(|_| ())
        .build()
        .unwrap_err();
    assert_eq!(
        problems(&err),
        [
            "entity type \"Customer\" is registered 3 times",
            "Legacy: alias \"Customer\" is also a registered entity type",
            "Legacy: alias \"Legacy\" is its own entity type",
            "Legacy: alias \"Old\" is listed 2 times",
            "alias \"Shared\" is claimed by both Legacy and Other",
        ]
    );
    assert!(
        err.to_string().starts_with(
            "invalid registry (5 problems): entity type \"Customer\" is registered 3 times; \
             Legacy: alias"
        ),
        "{err}"
    );
}

#[test]
fn table_layouts_that_disagree_name_the_part() {
    const GSI1_NUMBER: GlobalSecondaryIndex = GlobalSecondaryIndex::new("GSI1", "gsi1pk").keys(
        KeyAttribute::new("gsi1pk"),
        Some(KeyAttribute::typed("gsi1sk", ScalarType::N)),
    );
    const GSI4: GlobalSecondaryIndex = GlobalSecondaryIndex::new("GSI4", "gsi4pk");
    const ODD: TableSchema = TableSchema::new("id")
        .partition_key_type(ScalarType::N)
        .indexes(&[GSI1_NUMBER, GSI2, GSI4])
        .discriminator("type")
        .version("version");
    mapper!(OddMapper, Blank, "Odd", ODD);
    // The same indexes in another order are the same layout.
    const REORDERED: TableSchema = TableSchema::new("pk")
        .sort_key("sk")
        .indexes(&[GSI3, GSI2, GSI1])
        .ttl("ttl");
    mapper!(ReorderedMapper, Blank, "Reordered", REORDERED);

    let err = Registry::<()>::builder()
        .register::<CustomerMapper>(|_| ())
        .register::<ReorderedMapper>(|_| ())
        .register::<OddMapper>(|_| ())
        .build()
        .unwrap_err();
    assert_eq!(
        problems(&err),
        [
            "Odd: table layout differs from Customer's in the partition key: `id` (a number (N)) \
             vs `pk` (a string (S))",
            "Odd: table layout differs from Customer's in the sort key: none vs `sk` (a string (S))",
            "Odd: table layout differs from Customer's in index GSI1: keys `gsi1pk` (a string (S)) \
             and `gsi1sk` (a number (N)) vs keys `gsi1pk` (a string (S)) and `gsi1sk` (a string (S))",
            "Odd: table layout differs from Customer's in index GSI4: key `gsi4pk` (a string (S)) \
             only vs absent",
            "Odd: table layout differs from Customer's in index GSI3: absent vs keys `gsi3pk` \
             (a string (S)) and `gsi3sk` (a string (S))",
            "Odd: table layout differs from Customer's in the discriminator attribute: `type` vs \
             `entityType`",
            "Odd: table layout differs from Customer's in the TTL attribute: none vs `ttl`",
            "Odd: table layout differs from Customer's in the version attribute: `version` vs none",
        ]
    );
}

#[test]
fn discriminator_colliding_with_keys() {
    const ON_SK: TableSchema = TableSchema::new("pk")
        .sort_key("sk")
        .indexes(&[GlobalSecondaryIndex::new("ByType", "gsi1pk").sort_key("sk")])
        .discriminator("sk");
    mapper!(OnSk, Blank, "OnSk", ON_SK);
    let err = Registry::<()>::builder()
        .register::<OnSk>(|_| ())
        .build()
        .unwrap_err();
    assert_eq!(
        problems(&err),
        [
            "discriminator attribute `sk` is also the sort key",
            "discriminator attribute `sk` is also the sort key of index ByType",
        ]
    );

    const ON_PK: TableSchema = TableSchema::new("kind")
        .indexes(&[GlobalSecondaryIndex::new("ByKind", "kind")])
        .discriminator("kind");
    mapper!(OnPk, Blank, "OnPk", ON_PK);
    assert_eq!(
        problems(
            &Registry::<()>::builder()
                .register::<OnPk>(|_| ())
                .build()
                .unwrap_err()
        ),
        [
            "discriminator attribute `kind` is also the partition key",
            "discriminator attribute `kind` is also the partition key of index ByKind",
        ]
    );

    const ON_TTL: TableSchema = TableSchema::new("pk")
        .ttl("meta")
        .version("meta")
        .discriminator("meta");
    mapper!(OnTtl, Blank, "OnTtl", ON_TTL);
    assert_eq!(
        problems(
            &Registry::<()>::builder()
                .register::<OnTtl>(|_| ())
                .build()
                .unwrap_err()
        ),
        [
            "discriminator attribute `meta` is also the TTL attribute",
            "discriminator attribute `meta` is also the version attribute",
        ]
    );
}

#[test]
fn discriminator_colliding_with_a_field_after_naming() {
    #[derive(Serialize, Deserialize)]
    struct Tagged {
        entity_type: String,
        name: String,
    }
    #[derive(Serialize, Deserialize)]
    struct Clash {
        user_id: String,
        #[serde(rename = "userId")]
        other: String,
    }
    mapper!(
        CamelTagged,
        Tagged,
        "CamelTagged",
        APP_TABLE,
        naming = NamingConvention::CamelCase
    );
    // As-is, `entity_type` is not `entityType`: no problem.
    mapper!(PlainTagged, Tagged, "PlainTagged", APP_TABLE);
    const SNAKE: TableSchema = TableSchema::new("pk").discriminator("entity_type");
    mapper!(SnakeTagged, Tagged, "SnakeTagged", SNAKE);
    mapper!(
        Clashing,
        Clash,
        "Clashing",
        APP_TABLE,
        naming = NamingConvention::CamelCase
    );

    assert!(
        Registry::<()>::builder()
            .register::<PlainTagged>(|_| ())
            .build()
            .is_ok()
    );
    let err = Registry::<()>::builder()
        .register::<CamelTagged>(|_| ())
        .register::<PlainTagged>(|_| ())
        .register::<Clashing>(|_| ())
        .build()
        .unwrap_err();
    assert_eq!(
        problems(&err),
        [
            "CamelTagged: field `entity_type` is stored as `entityType`, the discriminator attribute",
            "Clashing: attribute `userId` is the camelCase name of both fields `userId` and `user_id`",
        ]
    );
    let err = Registry::<()>::builder()
        .register::<SnakeTagged>(|_| ())
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid registry (1 problem): SnakeTagged: field `entity_type` is stored as \
         `entity_type`, the discriminator attribute"
    );
}

#[test]
fn group_problems() {
    let err = Registry::<App>::builder()
        .register::<CustomerMapper>(App::Customer)
        .register::<RenamedOrderMapper>(App::Order)
        .register::<HundredAliasesMapper>(|_| App::Customer(customer("X")))
        .group("Sales", &["Order", "Customer"])
        .group("Sales", &["Order"])
        .group("Empty", &[])
        .group("Odd", &["Order", "Purchase", "Refund", "Order", "Order"])
        .group("Big", &["Hundred", "Customer"])
        .build()
        .unwrap_err();
    assert_eq!(
        problems(&err),
        [
            "group \"Sales\" is defined 2 times",
            "group \"Empty\" has no members",
            "group \"Odd\" names \"Order\" 3 times",
            "group \"Odd\" names \"Purchase\", an alias of \"Order\", not an entity type",
            "group \"Odd\" names \"Refund\", which is not a registered entity type",
            "group \"Big\"'s discriminator filter needs 102 values (entity types and aliases), \
             over DynamoDB's limit of 100 operands for IN",
        ]
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    mapper!(CustomerAgain, Blank, "Customer", APP_TABLE);
    const NO_SK: TableSchema = TableSchema::new("pk")
        .indexes(&[GSI1, GSI2, GSI3])
        .ttl("ttl");
    mapper!(NoSk, Blank, "NoSk", NO_SK);
    let err = Registry::<()>::builder()
        .register::<CustomerMapper>(|_| ())
        .register::<NoSk>(|_| ())
        .register::<CustomerAgain>(|_| ())
        .group("All", &["Customer", "Nope"])
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid registry (3 problems): NoSk: table layout differs from Customer's in the sort \
         key: none vs `sk` (a string (S)); entity type \"Customer\" is registered 2 times; \
         group \"All\" names \"Nope\", which is not a registered entity type"
    );
    assert_eq!(err.kind(), ErrorKind::InvalidRegistry);
}

#[test]
fn builder_debug_lists_what_was_registered() {
    let builder = Registry::<App>::builder()
        .register::<CustomerMapper>(App::Customer)
        .group("Just customers", &["Customer"]);
    assert_eq!(
        format!("{builder:?}"),
        "RegistryBuilder { entity_types: [\"Customer\"], groups: [\"Just customers\"], \
         on_unknown: Error, on_missing: Error }"
    );
    let registry = builder.build().unwrap();
    assert_eq!(
        registry
            .group("Just customers")
            .unwrap()
            .filter()
            .expression(),
        "#dmType0 = :dmType0"
    );
}
