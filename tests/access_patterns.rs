//! Access patterns: the proof `build` runs (every value of the parameters,
//! judged by the declared key patterns), calls that return typed results,
//! and the self-test that runs every pattern against the emulator.

use dynamodb_mapper::ItemExt;
use dynamodb_mapper::{
    AccessPattern, ErrorKind, IndexKeys, Item, KeyPattern, Mapper, MapperExt, Registry, TableSchema,
};
use dynamodb_mapper_support::local;
use dynamodb_mapper_support::seed001::{self, AppItem};
use serde::{Deserialize, Serialize};

fn build_error<T: 'static>(builder: dynamodb_mapper::RegistryBuilder<T>) -> String {
    match builder.build() {
        Ok(_) => panic!("the design should be refused"),
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::InvalidRegistry);
            e.to_string()
        }
    }
}

// --------------------------------------------------------------- the proof

const T: TableSchema = TableSchema::new("pk").sort_key("sk");
const TENANT: KeyPattern = KeyPattern::partition("TENANT#{tenant}");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Member {
    tenant: String,
    id: String,
}

/// Users are `USER{id}`: no delimiter after the tag.
struct UserMapper;
impl Mapper for UserMapper {
    type Entity = Member;
    const ENTITY_TYPE: &'static str = "User";
    const SCHEMA: TableSchema = T;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(TENANT).sort(KeyPattern::sort("USER{id}"))];
}

struct UserGroupMapper;
impl Mapper for UserGroupMapper {
    type Entity = Member;
    const ENTITY_TYPE: &'static str = "UserGroup";
    const SCHEMA: TableSchema = T;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(TENANT).sort(KeyPattern::sort("USERGROUP#{id}"))];
}

#[test]
fn a_prefix_that_reaches_another_type_is_refused_naming_both() {
    const USERS: AccessPattern = AccessPattern::new("users of a tenant", &["User"]).by(&["tenant"]);
    let err = build_error(
        Registry::<Member>::builder()
            .register::<UserMapper>(|m| m)
            .register::<UserGroupMapper>(|m| m)
            .allow_overlap(dynamodb_mapper::key::AllowedOverlap::new(
                "User",
                "UserGroup",
            ))
            .access_pattern(USERS),
    );
    assert_eq!(
        err,
        "invalid registry (1 problem): access pattern \"users of a tenant\" on the table: its \
         query `pk = TENANT#{tenant} AND begins_with(sk, USER)` also returns UserGroup items \
         (keys `TENANT#{tenant}` / `USERGROUP#{id}`, e.g. \"USERGROUP#a\"), expected only User"
    );
}

#[test]
fn seed001_patterns_are_proven_and_describe_their_queries() {
    let registry = seed001::access_registry().unwrap_or_else(|e| panic!("{e}"));
    // One GetItem (the whole key), the rest queries.
    let get = registry
        .access(&seed001::CUSTOMER_BY_ID)
        .unwrap()
        .with("customer_id", "C1")
        .key_condition()
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(get.expression(), "#k0 = :k0 AND #k1 = :k1");
    let newest = registry
        .access(&seed001::ORDERS_NEWEST_FIRST)
        .unwrap()
        .sort_range("created_at", "2024-02-01"..)
        .key_condition()
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(newest.expression(), "#k0 = :k0 AND #k1 >= :k1");
}

#[test]
fn patterns_that_cannot_be_one_query_are_refused() {
    let seed = || {
        Registry::builder()
            .register::<seed001::CustomerMapper>(AppItem::Customer)
            .register::<seed001::OrderMapper>(AppItem::Order)
            .register::<seed001::ProductMapper>(AppItem::Product)
    };
    // Two declarations fit: name a placeholder only one has.
    let err = build_error(
        seed().access_pattern(AccessPattern::new("products", &["Product"]).on_index("GSI1")),
    );
    assert!(err.contains("2 of Product's key patterns fit it (`ACTIVE_PRODUCT` / `{name}`, `ARCHIVED_PRODUCT` / `{archived_at}`)"), "{err}");
    // A value the query cannot use.
    let err = build_error(
        seed().access_pattern(
            AccessPattern::new("an order with its customer", &["Order", "Customer"])
                .by(&["customer_id", "order_id"]),
        ),
    );
    assert_eq!(
        err,
        "invalid registry (1 problem): access pattern \"an order with its customer\" on the \
         table: is by `{order_id}`, which its query `` cannot use: its entity types' sort keys \
         have no placeholder in common before it; declare a pattern per entity type"
    );
    // A type the query does not return, one it is not registered, an index
    // the table lacks, a name twice.
    let err = build_error(
        seed()
            .access_pattern(AccessPattern::new("orders", &["Order", "Customer"]).on_index("GSI2"))
            .access_pattern(AccessPattern::new("x", &["Invoice"]))
            .access_pattern(AccessPattern::new("y", &["Order"]).on_index("GSI9"))
            .access_pattern(AccessPattern::new("x", &["Order"])),
    );
    for expected in [
        "access pattern \"orders\" on index GSI2: Customer declares no key patterns for index GSI2",
        "access pattern \"x\" on the table: names Invoice, which is not registered (registered: Customer, Order, Product)",
        "access pattern \"y\" on index GSI9: index GSI9 is not in the table layout",
        "access pattern \"x\" is declared twice",
    ] {
        assert!(err.contains(expected), "{expected:?} not in {err}");
    }
}

#[test]
fn calls_check_their_values() {
    let registry = seed001::access_registry().unwrap();
    let orders = || registry.access(&seed001::ORDERS_OF_CUSTOMER).unwrap();
    let msg = |e: dynamodb_mapper::Error| e.to_string();
    assert_eq!(
        msg(orders().key_condition().unwrap_err()),
        "key attribute `(key)` of access pattern \"orders of a customer\" is given no value for `{customer_id}`"
    );
    assert_eq!(
        msg(orders()
            .with("customer_id", "C1")
            .with("email", "x")
            .key_condition()
            .unwrap_err()),
        "key attribute `(key)` of access pattern \"orders of a customer\" has no placeholder `{email}` (it is by customer_id)"
    );
    assert_eq!(
        msg(orders()
            .with("customer_id", "C1")
            .sort_range("order_id", "O1"..)
            .key_condition()
            .unwrap_err()),
        "key attribute `(key)` of access pattern \"orders of a customer\" has no sort_by placeholder, so no range over `{order_id}`"
    );
    assert_eq!(
        msg(orders()
            .with("customer_id", "")
            .key_condition()
            .unwrap_err()),
        "key pattern `CUSTOMER#{customer_id}` value for `{customer_id}`: is empty"
    );
    // A pattern of another registry, or not declared.
    let other = AccessPattern::new("orders of a customer", &["Order"]);
    assert_eq!(
        registry.access(&other).unwrap_err().kind(),
        ErrorKind::NotRegistered
    );
}

// ---------------------------------------------------- against the emulator

/// The seed's patterns return what its hand-written queries return.
#[tokio::test]
async fn seed001_patterns_return_typed_results() {
    let (client, name) = local::client_and_table("access001", seed001::APP_TABLE).await;
    let data = seed001::data_set();
    seed001::write(&client, &name, &data).await.unwrap();
    let table = dynamodb_mapper::ops::Table::new(&client, &name, seed001::APP_TABLE);
    let registry = seed001::access_registry().unwrap();
    let run = |p: AccessPattern| registry.access(&p).unwrap();

    let customer = run(seed001::CUSTOMER_BY_ID)
        .with("customer_id", "C1")
        .fetch(&table)
        .await
        .unwrap();
    assert_eq!(customer, [AppItem::Customer(seed001::customer("C1"))]);
    let none = run(seed001::CUSTOMER_BY_ID)
        .with("customer_id", "C9")
        .fetch(&table)
        .await
        .unwrap();
    assert!(none.is_empty());

    let orders = run(seed001::ORDERS_OF_CUSTOMER)
        .with("customer_id", "C1")
        .fetch(&table)
        .await
        .unwrap();
    let expected: Vec<AppItem> = seed001::orders_of_customer(&client, &name, "C1")
        .await
        .unwrap()
        .into_iter()
        .map(AppItem::Order)
        .collect();
    assert_eq!(orders, expected);
    assert_eq!(orders.len(), 2);

    let newest = run(seed001::ORDERS_NEWEST_FIRST)
        .fetch(&table)
        .await
        .unwrap();
    let ids: Vec<&str> = newest
        .iter()
        .map(|o| match o {
            AppItem::Order(o) => o.order_id.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ids, ["O3", "O2", "O1"]);
    let since = run(seed001::ORDERS_NEWEST_FIRST)
        .sort_range("created_at", "2024-02-01"..)
        .fetch(&table)
        .await
        .unwrap();
    assert_eq!(since.len(), 2);

    // One type: its entities, no enum.
    let typed: Vec<seed001::Order> = run(seed001::ORDERS_OF_CUSTOMER)
        .with("customer_id", "C1")
        .fetch_as::<seed001::OrderMapper>(&table)
        .await
        .unwrap();
    assert_eq!(typed.len(), 2);
    let err = run(seed001::CUSTOMER_WITH_ORDERS)
        .with("customer_id", "C1")
        .fetch_as::<seed001::OrderMapper>(&table)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "key attribute `(entity type)` of access pattern \"customer with orders\" is \
         Customer, Order, not Order alone"
    );

    let archived = run(seed001::ARCHIVED_PRODUCTS).fetch(&table).await.unwrap();
    assert!(matches!(archived.as_slice(), [AppItem::Product(p)] if p.product_id == "P2"));
    let five = run(seed001::REVIEWS_WITH_RATING)
        .with("rating", 5)
        .fetch(&table)
        .await
        .unwrap();
    assert!(matches!(five.as_slice(), [AppItem::Review(r)] if r.review_id == "R1"));

    let partition = run(seed001::CUSTOMER_WITH_ORDERS)
        .with("customer_id", "C1")
        .fetch(&table)
        .await
        .unwrap();
    let expected: Vec<AppItem> = seed001::customer_partition(&client, &name, "C1")
        .await
        .unwrap()
        .into_iter()
        .map(|e| match e {
            seed001::CustomerPartition::Customer(c) => AppItem::Customer(c),
            seed001::CustomerPartition::Order(o) => AppItem::Order(o),
        })
        .collect();
    assert_eq!(partition, expected);
    assert_eq!(partition.len(), 3);
}

#[tokio::test]
async fn seed001_self_test_passes_on_the_wire() {
    let registry = seed001::access_registry().unwrap();
    let reads = dynamodb_mapper_testkit::check_access_patterns(
        &registry,
        seed001::data_set().items().unwrap(),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    // Every pattern ran, each read a Query or GetItem on its index.
    assert!(reads.iter().any(|r| r.operation() == "GetItem"));
    for index in ["GSI1", "GSI2", "GSI3"] {
        assert!(reads.iter().any(|r| r.index() == Some(index)), "{index}");
    }
    assert!(
        reads
            .iter()
            .all(|r| r.filter().is_none() && r.consumed_capacity().is_some())
    );
}

/// A note written by a hook into a customer's partition, under `ORDER#`,
/// without declared key patterns: the proof cannot see it, the self-test
/// runs into it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Note {
    customer_id: String,
    text: String,
}

struct NoteMapper;
impl Mapper for NoteMapper {
    type Entity = Note;
    const ENTITY_TYPE: &'static str = "Note";
    const SCHEMA: TableSchema = seed001::APP_TABLE;
    fn after_to_item(n: &Note, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("pk", format!("CUSTOMER#{}", n.customer_id));
        item.put_str("sk", "ORDER#NOTE#1");
        Ok(())
    }
}

#[tokio::test]
async fn an_undeclared_type_under_the_prefix_fails_the_self_test_naming_both() {
    let registry = Registry::builder()
        .register::<seed001::CustomerMapper>(|_| ())
        .register::<seed001::OrderMapper>(|_| ())
        .register::<NoteMapper>(|_| ())
        .access_pattern(seed001::ORDERS_OF_CUSTOMER)
        .build()
        .unwrap_or_else(|e| panic!("the proof cannot see Note: {e}"));
    let mut samples = seed001::data_set().items().unwrap();
    samples.push(
        NoteMapper::to_item(&Note {
            customer_id: "C1".into(),
            text: "hi".into(),
        })
        .unwrap(),
    );
    let err = dynamodb_mapper_testkit::check_access_patterns(&registry, samples)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("access pattern \"orders of a customer\" on the table: with customer_id=Text(\"C1\"): item (pk=\"CUSTOMER#C1\", sk=\"ORDER#NOTE#1\"): discriminator `entityType` is \"Note\", which access pattern \"orders of a customer\" does not return (its entity types: \"Order\")"),
        "{err}"
    );
}

#[tokio::test]
async fn a_pattern_without_samples_fails_the_self_test() {
    let registry = seed001::access_registry().unwrap();
    let only_customers = vec![seed001::CustomerMapper::to_item(&seed001::customer("C1")).unwrap()];
    let err = dynamodb_mapper_testkit::check_access_patterns(&registry, only_customers)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "access pattern \"sessions of a user\" on the table: returns no Session sample \
             (pk = USER#{user_id} AND begins_with(sk, SESSION#)): add a sample of Session"
        ),
        "{err}"
    );
    // Called with the customer's keys, the orders pattern ran and found none:
    // every pattern but the customer's own two fails.
    assert!(err.starts_with("invalid registry (13 problems)"), "{err}");
    // A pattern of two types, one of them never returned, is reported too.
    assert!(
        err.contains("\"customer with orders\" on the table: returns no Order sample"),
        "{err}"
    );
    assert!(!err.contains("\"customer by id\""), "{err}");
}

#[tokio::test]
async fn seed002_and_seed003_self_tests_pass() {
    use dynamodb_mapper_support::{seed002, seed003};
    let registry = seed002::registry().unwrap_or_else(|e| panic!("{e}"));
    let reads = dynamodb_mapper_testkit::check_access_patterns(
        &registry,
        seed002::data_set().items().unwrap(),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(reads.iter().any(|r| r.index() == Some("GSI1")));
    let registry = seed003::registry().unwrap_or_else(|e| panic!("{e}"));
    dynamodb_mapper_testkit::check_access_patterns(&registry, seed003::data_set().items().unwrap())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Seed 004's shop, with order ids that start like each other (`O1`,
/// `O10`): each order's parts are read exactly.
#[tokio::test]
async fn seed004_self_test_passes() {
    use dynamodb_mapper_support::seed004::{self, *};
    let registry = seed004::registry().unwrap_or_else(|e| panic!("{e}"));
    let mut samples = vec![
        CustomerMapper::to_item(&customer("C1")).unwrap(),
        CustomerMapper::to_item(&customer("C2")).unwrap(),
    ];
    for (c, o) in [("C1", "O1"), ("C1", "O10"), ("C2", "O2")] {
        let mut full = seed_order(c, o);
        full.shipment = Some(shipment(&full.order, "1Z999"));
        samples.push(OrderMapper::to_item(&full.order).unwrap());
        for line in &full.lines {
            samples.push(OrderLineMapper::to_item(line).unwrap());
        }
        samples.extend(
            full.payment
                .iter()
                .map(|p| PaymentMapper::to_item(p).unwrap()),
        );
        samples.extend(
            full.shipment
                .iter()
                .map(|s| ShipmentMapper::to_item(s).unwrap()),
        );
    }
    dynamodb_mapper_testkit::check_access_patterns(&registry, samples)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Seed 000's tenant partition (with the employee hierarchy, whose types
/// declare no keys: the proof leaves them to this run) and seed 004's
/// invoices.
#[tokio::test]
async fn seed000_and_invoice_self_tests_pass() {
    use dynamodb_mapper_support::seed000::{self, *};
    use dynamodb_mapper_support::seed004::invoices::{self, *};
    let registry = seed000::builder().build().unwrap_or_else(|e| panic!("{e}"));
    let samples = vec![
        UserMapper::to_item(&user("U1")).unwrap(),
        UserMapper::to_item(&user("U10")).unwrap(),
        UserMetadataMapper::to_item(&user_metadata("U1")).unwrap(),
        TenantOrderMapper::to_item(&tenant_order("O1", "2024-01-02", 500)).unwrap(),
        TenantOrderMapper::to_item(&tenant_order("O2", "2024-02-03", 700)).unwrap(),
        PersonMapper::to_item(&person("P1")).unwrap(),
        EmployeeMapper::to_item(&employee("E1")).unwrap(),
        ManagerMapper::to_item(&manager("M1", 2)).unwrap(),
    ];
    dynamodb_mapper_testkit::check_access_patterns(&registry, samples)
        .await
        .unwrap_or_else(|e| panic!("{e}"));

    let registry = invoices::registry().unwrap_or_else(|e| panic!("{e}"));
    let mut samples = Vec::new();
    for id in ["I1", "I2"] {
        samples.push(InvoiceMapper::to_item(&invoice(id)).unwrap());
        samples.push(InvoiceItemMapper::to_item(&invoice_item(id, 1, 2, 1250)).unwrap());
        samples.push(InvoiceItemMapper::to_item(&invoice_item(id, 2, 1, 499)).unwrap());
        samples.push(
            InvoiceStatusMapper::to_item(&invoice_status(id, "sent", "2024-03-01T10:00:00Z"))
                .unwrap(),
        );
        samples.push(
            InvoiceStatusMapper::to_item(&invoice_status(id, "paid", "2024-03-05T10:00:00Z"))
                .unwrap(),
        );
        samples.push(InvoiceSummaryMapper::to_item(&invoice_summary(id)).unwrap());
    }
    dynamodb_mapper_testkit::check_access_patterns(&registry, samples)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
}

/// `fetch` on a bad day: throttled and unanswered pages are asked again,
/// every result comes once; a server that never answers ends the call
/// within the table's deadline.
#[tokio::test]
async fn fetch_reads_every_result_once_through_throttles_and_silence() {
    use std::time::Duration;

    use aws_sdk_dynamodb::config::retry::RetryConfig;
    use dynamodb_mapper::ops::Table;
    use dynamodb_mapper_support::requests::fast_retry;
    use dynamodb_mapper_testkit::{Fault, Wire};

    let (plain, name) = local::client_and_table("access_faults", seed001::APP_TABLE).await;
    let mut data = seed001::data_set();
    for i in 0..40 {
        data.orders.push(seed001::order(
            "C1",
            &format!("X{i:02}"),
            "2024-04-01T00:00:00Z",
            seed001::OrderStatus::Pending,
        ));
    }
    seed001::write(&plain, &name, &data).await.unwrap();
    let registry = seed001::access_registry().unwrap();
    let wire = Wire::new()
        .seed(35)
        .fault(Fault::throttle().on("Query").times(2))
        .unwrap()
        .fault(Fault::silence().on("Query").times(1))
        .unwrap();
    let quick = aws_sdk_dynamodb::Client::from_conf(
        wire.client(&plain)
            .config()
            .to_builder()
            .retry_config(
                RetryConfig::standard()
                    .with_max_attempts(8)
                    .with_initial_backoff(Duration::from_millis(1))
                    .with_max_backoff(Duration::from_millis(5)),
            )
            .build(),
    );
    let table = Table::new(&quick, &name, seed001::APP_TABLE)
        .call_timeout(Duration::from_millis(300))
        .retry_policy(fast_retry(4));
    let orders = registry
        .access(&seed001::ORDERS_OF_CUSTOMER)
        .unwrap()
        .with("customer_id", "C1")
        .fetch(&table)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        orders.len(),
        42,
        "the seed's two orders and 40 more, each once"
    );
    let struck = wire
        .exchanges()
        .iter()
        .filter(|e| e.fault().is_some())
        .count();
    assert!(struck >= 2, "faults were struck: {struck}");

    // Never answered: a timeout within the deadline, not a hang.
    let wire = Wire::new().fault(Fault::silence().on("GetItem")).unwrap();
    let table = Table::new(&wire.client(&plain), &name, seed001::APP_TABLE)
        .call_timeout(Duration::from_millis(100))
        .deadline(Duration::from_millis(450))
        .retry_policy(fast_retry(100));
    let started = std::time::Instant::now();
    let err = registry
        .access(&seed001::CUSTOMER_BY_ID)
        .unwrap()
        .with("customer_id", "C1")
        .fetch(&table)
        .await
        .expect_err("no answer");
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

// ---- a placeholder given for the partition key that comes again in the sort key

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Login {
    org: String,
    user: String,
    /// RFC 3339 UTC, whole seconds.
    at: String,
}

/// The org is in both keys; the sort key starts with the time.
struct LoginMapper;
impl Mapper for LoginMapper {
    type Entity = Login;
    const ENTITY_TYPE: &'static str = "Login";
    const SCHEMA: TableSchema = T;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("ORG#{org}"))
            .sort(KeyPattern::sort("{at:ts}#{org}#{user}"))];
}

#[tokio::test]
async fn a_value_given_for_the_partition_is_not_bound_later_in_the_sort_key() {
    const LOGINS: AccessPattern = AccessPattern::new("logins of an org, by time", &["Login"])
        .by(&["org"])
        .sort_by("at");
    let registry = Registry::<Login>::builder()
        .register::<LoginMapper>(|l| l)
        .access_pattern(LOGINS)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let at = |s: u64| format!("2023-11-14T22:{:02}:20Z", 13 + s / 60);
    // Without a range: the whole partition, no prefix that binds `org`.
    let e = registry
        .access(&LOGINS)
        .unwrap()
        .with("org", "o1")
        .key_condition()
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(e.expression(), "#k0 = :k0");
    // From a time: every key of that second, whatever follows.
    let e = registry
        .access(&LOGINS)
        .unwrap()
        .with("org", "o1")
        .sort_range(
            "at",
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000)..,
        )
        .key_condition()
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(
        e.values()[":k1"],
        aws_sdk_dynamodb::types::AttributeValue::S("2023-11-14T22:13:20Z#".into())
    );
    let samples: Vec<Item> = [
        ("o1", "u1", 0),
        ("o1", "u2", 0),
        ("o1", "u1", 60),
        ("o2", "u1", 0),
    ]
    .into_iter()
    .map(|(org, user, s)| {
        LoginMapper::to_item(&Login {
            org: org.into(),
            user: user.into(),
            at: at(s),
        })
        .unwrap()
    })
    .collect();
    // Each kind of range over each sample's time returns exactly its logins.
    let reads = dynamodb_mapper_testkit::check_access_patterns(&registry, samples)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        reads
            .iter()
            .any(|r| r.key_condition().is_some_and(|k| k.contains("BETWEEN")))
    );
}

#[test]
fn partition_placeholders_in_other_places_are_refused() {
    #[derive(Debug, Clone, Serialize, Deserialize)]
    struct Pair {
        a: String,
        b: String,
    }
    struct AbMapper;
    impl Mapper for AbMapper {
        type Entity = Pair;
        const ENTITY_TYPE: &'static str = "Ab";
        const SCHEMA: TableSchema = T;
        const KEY_PATTERNS: &'static [IndexKeys] =
            &[IndexKeys::table(KeyPattern::partition("T#{a}#{b}")).sort(KeyPattern::sort("AB"))];
    }
    struct BaMapper;
    impl Mapper for BaMapper {
        type Entity = Pair;
        const ENTITY_TYPE: &'static str = "Ba";
        const SCHEMA: TableSchema = T;
        const KEY_PATTERNS: &'static [IndexKeys] =
            &[IndexKeys::table(KeyPattern::partition("T#{b}#{a}")).sort(KeyPattern::sort("BA"))];
    }
    let err = build_error(
        Registry::<Pair>::builder()
            .register::<AbMapper>(|p| p)
            .register::<BaMapper>(|p| p)
            .access_pattern(AccessPattern::new("both", &["Ab", "Ba"]).by(&["a", "b"])),
    );
    assert!(
        err.contains("none of Ba's key patterns on it (`T#{b}#{a}` / `BA`) has a partition key like `T#{a}#{b}` (the same placeholders in the same places)"),
        "{err}"
    );
}
