//! Keys declared once (#17): patterns render keys, checks before the first
//! write, lookups by id, names that cannot collide silently.

use dynamodb_mapper::ItemExt;
use dynamodb_mapper::expr::attr;
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{
    ErrorKind, GlobalSecondaryIndex, IndexKeys, Item, KeyPattern, Mapper, MapperExt,
    NamingConvention, Registry, TableSchema,
};
use dynamodb_mapper_support::{local, problems};
use serde::{Deserialize, Serialize};

const T: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")])
    .version("version");

const CUSTOMER_PK: KeyPattern = KeyPattern::partition("CUSTOMER#{customer_id}");
const ORDER_SK: KeyPattern = KeyPattern::sort("ORDER#{placed_on:ts}#{line:u3}");
const STATUS_PK: KeyPattern = KeyPattern::partition("STATUS#{status}");
const STATUS_SK: KeyPattern = KeyPattern::sort("{customer_id}#{line:u3}");

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
enum Status {
    Open,
    Shipped,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Order {
    customer_id: String,
    placed_on: String,
    line: u16,
    status: Option<Status>,
}

struct OrderMapper;
impl Mapper for OrderMapper {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = T;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(CUSTOMER_PK).sort(ORDER_SK),
        IndexKeys::index("GSI1", STATUS_PK).sort(STATUS_SK),
    ];
}

fn order(customer: &str, line: u16, status: Option<Status>) -> Order {
    Order {
        customer_id: customer.into(),
        placed_on: "2025-01-02T03:04:05Z".into(),
        line,
        status,
    }
}

fn s(item: &Item, name: &str) -> Option<String> {
    item.get(name).and_then(|v| v.as_s().ok()).cloned()
}

#[test]
fn patterns_render_every_key_from_the_fields() {
    OrderMapper::check().unwrap();
    let item = OrderMapper::to_item(&order("C#1", 7, Some(Status::Shipped))).unwrap();
    assert_eq!(s(&item, "pk").as_deref(), Some(r"CUSTOMER#C\#1"));
    assert_eq!(
        s(&item, "sk").as_deref(),
        Some("ORDER#2025-01-02T03:04:05Z#007")
    );
    assert_eq!(s(&item, "gsi1pk").as_deref(), Some("STATUS#Shipped"));
    assert_eq!(s(&item, "gsi1sk").as_deref(), Some(r"C\#1#007"));
    // The keys round-trip through the patterns: what a lookup builds.
    let key = OrderMapper::lookup()
        .with("customer_id", "C#1")
        .with("placed_on", jan_2_2025())
        .with("line", 7)
        .key()
        .unwrap();
    assert_eq!(key, OrderMapper::key(&order("C#1", 7, None)).unwrap());
}

#[test]
fn a_none_field_makes_the_index_sparse_and_the_table_key_an_error() {
    // `Option::None` serializes as NULL: treated as absent.
    let item = OrderMapper::to_item(&order("C1", 1, None)).unwrap();
    assert!(item.contains_key("pk") && item.contains_key("sk"));
    assert!(!item.contains_key("gsi1pk") && !item.contains_key("gsi1sk"));

    #[derive(Serialize, Deserialize)]
    struct Maybe {
        id: Option<String>,
    }
    struct MaybeMapper;
    impl Mapper for MaybeMapper {
        type Entity = Maybe;
        const ENTITY_TYPE: &'static str = "Maybe";
        const SCHEMA: TableSchema = TableSchema::new("pk");
        const KEY_PATTERNS: &'static [IndexKeys] =
            &[IndexKeys::table(KeyPattern::partition("MAYBE#{id}"))];
    }
    let err = MaybeMapper::to_item(&Maybe { id: None }).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    assert_eq!(
        err.to_string(),
        "Maybe: key attribute `pk` cannot be rendered from key pattern `MAYBE#{id}`: field `id` \
         is absent (or null), and the table's keys are required"
    );
    let item = MaybeMapper::to_item(&Maybe {
        id: Some("x".into()),
    })
    .unwrap();
    assert_eq!(s(&item, "pk").as_deref(), Some("MAYBE#x"));
}

#[test]
fn the_hook_may_override_a_rendered_key_and_must_still_match_a_pattern() {
    #[derive(Serialize, Deserialize)]
    struct Doc {
        id: String,
        archived: bool,
    }
    const ACTIVE: KeyPattern = KeyPattern::partition("DOC#{id}");
    struct DocMapper;
    impl Mapper for DocMapper {
        type Entity = Doc;
        const ENTITY_TYPE: &'static str = "Doc";
        const SCHEMA: TableSchema = TableSchema::new("pk");
        const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(ACTIVE)];
        fn after_to_item(d: &Doc, item: &mut Item) -> dynamodb_mapper::Result<()> {
            if d.archived {
                item.put_str("pk", format!("OLD#{}", d.id));
            }
            Ok(())
        }
    }
    let doc = |archived| Doc {
        id: "d1".into(),
        archived,
    };
    assert_eq!(
        s(&DocMapper::to_item(&doc(false)).unwrap(), "pk").as_deref(),
        Some("DOC#d1")
    );
    let err = DocMapper::to_item(&doc(true)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    assert!(
        err.to_string().contains("matches none of the key patterns"),
        "{err}"
    );
}

#[test]
fn misspelled_placeholders_and_unkeyable_fields_are_reported_before_any_write() {
    #[derive(Serialize, Deserialize)]
    struct Reading {
        sensor_id: String,
        value: f64,
        tags: Vec<String>,
        at: i64,
    }
    struct ReadingMapper;
    impl Mapper for ReadingMapper {
        type Entity = Reading;
        const ENTITY_TYPE: &'static str = "Reading";
        const SCHEMA: TableSchema = T;
        const KEY_PATTERNS: &'static [IndexKeys] = &[
            IndexKeys::table(KeyPattern::partition("SENSOR#{sensr_id}"))
                .sort(KeyPattern::sort("{value}#{at:u10}")),
            IndexKeys::index("GSI1", KeyPattern::partition("TAG#{tags}"))
                .sort(KeyPattern::sort("{at:ts}")),
            IndexKeys::index("GSI9", KeyPattern::partition("X")),
        ];
    }
    let err = ReadingMapper::check().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidMapper);
    assert_eq!(err.entity_type(), Some("Reading"));
    assert_eq!(
        problems(&err),
        [
            "key pattern `SENSOR#{sensr_id}` names `{sensr_id}`, which is not a field of the \
             entity (its fields: at, sensor_id, tags, value); mark the keys for the table \
             `.by_hook()` if the hook computes it",
            "key pattern `{value}#{at:u10}` names `{value}`, but field `value` is a \
             floating-point number; a key component is text, an integer, a boolean or a unit enum",
            "key pattern `{value}#{at:u10}` names `{at}`, but field `at` is a signed integer; use \
             a signed placeholder (`i<width>`) or an unsigned field",
            "key pattern `TAG#{tags}` names `{tags}`, but field `tags` is a list, map or struct; \
             a key component is text, an integer, a boolean or a unit enum",
            "key patterns name index GSI9, which the table does not have",
        ]
    );
    // The write refuses too, with the same error, and nothing is rendered.
    let reading = Reading {
        sensor_id: "s".into(),
        value: 1.0,
        tags: vec![],
        at: 1,
    };
    assert_eq!(
        ReadingMapper::to_item(&reading).unwrap_err().to_string(),
        err.to_string()
    );
    // And the registry reports them with the design's problems.
    let err = Registry::<()>::builder()
        .register::<ReadingMapper>(|_| ())
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidRegistry);
    assert!(
        problems(&err)
            .iter()
            .any(|p| p.starts_with("Reading: key pattern `SENSOR#{sensr_id}` names")),
        "{err}"
    );
    assert_eq!(
        problems(&err).iter().filter(|p| p.contains("GSI9")).count(),
        1,
        "{err}"
    );
}

#[test]
fn several_patterns_for_one_index_must_be_written_by_the_hook() {
    #[derive(Serialize, Deserialize)]
    struct Product {
        id: String,
        archived: bool,
    }
    const ACTIVE: KeyPattern = KeyPattern::partition("PRODUCT#{id}");
    const ARCHIVED: KeyPattern = KeyPattern::partition("ARCHIVED#{id}");
    const S: TableSchema = TableSchema::new("pk");
    struct Rendered;
    impl Mapper for Rendered {
        type Entity = Product;
        const ENTITY_TYPE: &'static str = "Product";
        const SCHEMA: TableSchema = S;
        const KEY_PATTERNS: &'static [IndexKeys] =
            &[IndexKeys::table(ACTIVE), IndexKeys::table(ARCHIVED)];
    }
    assert_eq!(
        problems(&Rendered::check().unwrap_err()),
        [
            "declares 2 key patterns for the table; which one applies depends on state only the \
             hook knows: mark them `.by_hook()` and write the keys in `after_to_item`"
        ]
    );
    struct ByHook;
    impl Mapper for ByHook {
        type Entity = Product;
        const ENTITY_TYPE: &'static str = "Product";
        const SCHEMA: TableSchema = S;
        const KEY_PATTERNS: &'static [IndexKeys] = &[
            IndexKeys::table(ACTIVE).by_hook(),
            IndexKeys::table(ARCHIVED).by_hook(),
        ];
        fn after_to_item(p: &Product, item: &mut Item) -> dynamodb_mapper::Result<()> {
            let pattern = if p.archived { ARCHIVED } else { ACTIVE };
            item.put_str("pk", pattern.with("id", &p.id).render()?);
            Ok(())
        }
    }
    ByHook::check().unwrap();
    let item = ByHook::to_item(&Product {
        id: "p1".into(),
        archived: true,
    })
    .unwrap();
    assert_eq!(s(&item, "pk").as_deref(), Some("ARCHIVED#p1"));
    // A lookup picks the declaration by what is bound; both have `{id}`.
    let err = ByHook::lookup().with("id", "p1").key().unwrap_err();
    assert!(err.to_string().contains("is ambiguous"), "{err}");
}

#[test]
fn fields_stored_as_attributes_the_mapper_writes_are_refused() {
    #[derive(Serialize, Deserialize)]
    struct Clash {
        id: String,
        gsi1pk: String,
        entity_type: String,
        version: u64,
    }
    struct ClashMapper;
    impl Mapper for ClashMapper {
        type Entity = Clash;
        const ENTITY_TYPE: &'static str = "Clash";
        const SCHEMA: TableSchema = T;
        const NAMING: NamingConvention = NamingConvention::CamelCase;
        const KEY_PATTERNS: &'static [IndexKeys] = &[
            IndexKeys::table(KeyPattern::partition("CLASH#{id}")).sort(KeyPattern::sort("A")),
            IndexKeys::index("GSI1", KeyPattern::partition("G")).sort(KeyPattern::sort("{id}")),
        ];
    }
    assert_eq!(
        problems(&ClashMapper::check().unwrap_err()),
        [
            "field `entity_type` is stored as `entityType`, the discriminator attribute",
            "field `gsi1pk` is stored as `gsi1pk`, the partition key attribute of index GSI1 its \
             key patterns write",
            "field `version` is stored as `version`, the version attribute",
        ]
    );
}

#[test]
fn an_explicit_rename_is_kept_under_the_naming_convention() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Person {
        person_id: String,
        #[serde(rename = "EMail")]
        email: String,
        #[serde(rename = "home-town")]
        town: String,
    }
    struct PersonMapper;
    impl Mapper for PersonMapper {
        type Entity = Person;
        const ENTITY_TYPE: &'static str = "Person";
        const SCHEMA: TableSchema = TableSchema::new("pk");
        const NAMING: NamingConvention = NamingConvention::CamelCase;
        const KEY_PATTERNS: &'static [IndexKeys] = &[IndexKeys::table(KeyPattern::partition(
            "PERSON#{person_id}#{EMail}",
        ))];
    }
    let p = Person {
        person_id: "p1".into(),
        email: "a@b.c".into(),
        town: "Oslo".into(),
    };
    let item = PersonMapper::to_item(&p).unwrap();
    let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["EMail", "entityType", "home-town", "personId", "pk"]
    );
    assert_eq!(s(&item, "pk").as_deref(), Some("PERSON#p1#a@b.c"));
    assert_eq!(PersonMapper::from_item(item).unwrap(), p);
}

#[test]
fn lookups_build_prefixes_that_end_at_a_segment() {
    // The `begins_with` value of the lookup's key condition.
    let prefix = |l: &dynamodb_mapper::Lookup<'_, OrderMapper>| {
        let e = l.key_condition().unwrap().build().unwrap();
        assert!(
            e.expression().ends_with("begins_with(#k1, :k1)"),
            "{}",
            e.expression()
        );
        e.values()[":k1"].as_s().unwrap().clone()
    };
    let l = OrderMapper::lookup().with("customer_id", "C1");
    assert_eq!(prefix(&l), "ORDER#");
    let at = jan_2_2025();
    let l = l.with("placed_on", at);
    assert_eq!(prefix(&l), "ORDER#2025-01-02T03:04:05Z#");
    // An index lookup is no primary key.
    let err = OrderMapper::lookup()
        .on_index("GSI1")
        .with("status", "Open")
        .key()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    // A misspelled placeholder names the declarations.
    let err = OrderMapper::lookup()
        .with("customer", "C1")
        .key()
        .unwrap_err();
    assert!(err.to_string().contains("`{customer}`"), "{err}");
}

#[tokio::test]
async fn a_one_type_query_reads_only_that_type_without_a_registry() {
    let (client, table) = local::client_and_table("keys-once", T).await;
    #[derive(Debug, Serialize, Deserialize)]
    struct Note {
        customer_id: String,
        text: String,
    }
    struct NoteMapper;
    impl Mapper for NoteMapper {
        type Entity = Note;
        const ENTITY_TYPE: &'static str = "Note";
        const SCHEMA: TableSchema = T;
        const KEY_PATTERNS: &'static [IndexKeys] =
            &[IndexKeys::table(CUSTOMER_PK).sort(KeyPattern::sort("ORDERNOTE#{text}"))];
    }
    let mut items = vec![
        OrderMapper::to_item(&order("C1", 1, Some(Status::Open))).unwrap(),
        OrderMapper::to_item(&order("C1", 2, Some(Status::Shipped))).unwrap(),
        OrderMapper::to_item(&order("C2", 1, None)).unwrap(),
    ];
    // A note whose sort key a hand-written `ORDER` prefix would reach.
    items.push(
        NoteMapper::to_item(&Note {
            customer_id: "C1".into(),
            text: "hi".into(),
        })
        .unwrap(),
    );
    for item in items {
        client
            .put_item()
            .table_name(&table)
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
    }
    let out = OrderMapper::lookup()
        .with("customer_id", "C1")
        .query(&Table::new(&client, &table, T))
        .unwrap()
        .send()
        .await
        .unwrap();
    let orders: Vec<Order> = out
        .items
        .unwrap_or_default()
        .into_iter()
        .map(OrderMapper::from_item)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(orders.iter().map(|o| o.line).collect::<Vec<_>>(), [1, 2]);

    // GetItem by id.
    let at = jan_2_2025();
    let got = OrderMapper::lookup()
        .with("customer_id", "C1")
        .with("placed_on", at)
        .with("line", 2)
        .get_item(&client, &table)
        .unwrap()
        .send()
        .await
        .unwrap();
    let found = OrderMapper::from_item(got.item.unwrap()).unwrap();
    assert_eq!(found.status, Some(Status::Shipped));

    // On the index: only shipped orders.
    let out = OrderMapper::lookup()
        .on_index("GSI1")
        .with("status", "Shipped")
        .query(&Table::new(&client, &table, T))
        .unwrap()
        .send()
        .await
        .unwrap();
    assert_eq!(out.items.unwrap_or_default().len(), 1);
}

/// Events of a tenant by day: `TENANT#{tenant}` / `DAY#{day}#EVENT#{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Event {
    tenant: String,
    day: String,
    id: String,
}

struct EventMapper;
impl Mapper for EventMapper {
    type Entity = Event;
    const ENTITY_TYPE: &'static str = "Event";
    const SCHEMA: TableSchema = T;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("TENANT#{tenant}"))
            .sort(KeyPattern::sort("DAY#{day}#EVENT#{id}"))];
}

/// Ids that sort high: the greatest characters of each UTF-8 length, and
/// the longest id a sort key can hold.
fn high_ids() -> Vec<String> {
    let room = 1024 - "DAY#2025-01-05#EVENT#".len();
    vec![
        "a".into(),
        "zzz".into(),
        "~".into(),
        "\u{7F}".into(),
        "\u{7FF}".into(),
        "\u{FFFD}".into(),
        "\u{FFFF}".into(),
        "\u{10000}".into(),
        "\u{10FFFF}".into(),
        "\u{10FFFF}".repeat(room / 4),
    ]
}

#[tokio::test]
async fn a_range_over_a_composite_sort_key_includes_every_item_of_its_last_day() {
    let (client, table) = local::client_and_table("keys-range", T).await;
    let days = [
        "2025-01-01",
        "2025-01-02",
        "2025-01-03",
        "2025-01-05",
        "2025-01-06",
    ];
    let mut written = Vec::new();
    for day in days {
        for id in high_ids() {
            let event = Event {
                tenant: "t1".into(),
                day: day.into(),
                id,
            };
            local::put_item(&client, &table, EventMapper::to_item(&event).unwrap()).await;
            written.push(event);
        }
    }
    // Another tenant's events on the same days are never read.
    let other = Event {
        tenant: "t2".into(),
        day: "2025-01-03".into(),
        id: "a".into(),
    };
    local::put_item(&client, &table, EventMapper::to_item(&other).unwrap()).await;

    let read = |lookup: dynamodb_mapper::Lookup<'static, EventMapper>| {
        let q = lookup.query(&Table::new(&client, &table, T)).unwrap();
        async move {
            let mut events = local::read_all::<EventMapper>(q).await.unwrap();
            events.sort_by(|a, b| (&a.day, &a.id).cmp(&(&b.day, &b.id)));
            events
        }
    };
    let expect = |from: &str, through: &str| {
        let mut e: Vec<Event> = written
            .iter()
            .filter(|e| e.day.as_str() >= from && e.day.as_str() <= through)
            .cloned()
            .collect();
        e.sort_by(|a, b| (&a.day, &a.id).cmp(&(&b.day, &b.id)));
        e
    };
    let t1 = || EventMapper::lookup().with("tenant", "t1");
    let got = read(t1().sort_range("day", "2025-01-02"..="2025-01-05")).await;
    assert_eq!(got.len(), 3 * high_ids().len());
    assert_eq!(got, expect("2025-01-02", "2025-01-05"));
    // A day without items as a bound.
    let got = read(t1().sort_range("day", "2025-01-04"..="2025-01-04")).await;
    assert!(got.is_empty());
    let got = read(t1().sort_range("day", "2025-01-03"..)).await;
    assert_eq!(got, expect("2025-01-03", "9999"));
    let got = read(t1().sort_range("day", ..="2025-01-02")).await;
    assert_eq!(got, expect("0000", "2025-01-02"));

    // What the plain bounds would have missed: every event of the last day.
    let plain = dynamodb_mapper::expr::KeyCondition::new(T, "TENANT#t1")
        .and(attr("sk").between("DAY#2025-01-02", "DAY#2025-01-05"));
    use dynamodb_mapper::expr::Apply;
    let q = client.query().table_name(&table).apply(plain).unwrap();
    let naive = local::read_all::<EventMapper>(q).await.unwrap();
    assert_eq!(naive.len(), 2 * high_ids().len());
}

#[test]
fn a_range_needs_its_earlier_placeholders_and_a_sort_key() {
    // `day` is bound by the range, `tenant` is not bound: the partition
    // cannot be rendered.
    let err = EventMapper::lookup()
        .sort_range("day", "a"..="b")
        .key_condition()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Event: key attribute `pk`: key pattern `TENANT#{tenant}` has no value for `{tenant}`"
    );
    // A range on a placeholder after an unbound one.
    let err = EventMapper::lookup()
        .with("tenant", "t1")
        .sort_range("id", "a"..="b")
        .key_condition()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Event: key pattern `DAY#{day}#EVENT#{id}` has no value for `{day}`, which comes before \
         the range over `{id}`"
    );
    // Not a primary key.
    let err = EventMapper::lookup()
        .with("tenant", "t1")
        .sort_range("day", "a"..="b")
        .key()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    assert!(
        err.to_string()
            .contains("a range over `{day}` selects many items"),
        "{err}"
    );
    // An unknown placeholder.
    let err = EventMapper::lookup()
        .with("tenant", "t1")
        .sort_range("dya", "a"..="b")
        .key_condition()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("has no key pattern with the placeholder `{dya}`"),
        "{err}"
    );
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct User {
    tenant: String,
    id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct UserGroup {
    tenant: String,
    id: String,
}

const TENANT_PK: KeyPattern = KeyPattern::partition("TENANT#{tenant}");

struct UserMapper;
impl Mapper for UserMapper {
    type Entity = User;
    const ENTITY_TYPE: &'static str = "User";
    const SCHEMA: TableSchema = T;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(TENANT_PK).sort(KeyPattern::sort("USER#{id}"))];
}

struct UserGroupMapper;
impl Mapper for UserGroupMapper {
    type Entity = UserGroup;
    const ENTITY_TYPE: &'static str = "UserGroup";
    const SCHEMA: TableSchema = T;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(TENANT_PK).sort(KeyPattern::sort("USERGROUP#{id}"))];
}

#[derive(Debug, PartialEq)]
enum Tenant {
    User(User),
    UserGroup(UserGroup),
    Event(Event),
}

#[tokio::test]
async fn a_hand_written_prefix_is_checked_against_the_registry_and_the_server_agrees() {
    use dynamodb_mapper::expr::{Apply, KeyCondition};
    let registry = Registry::builder()
        .register::<UserMapper>(Tenant::User)
        .register::<UserGroupMapper>(Tenant::UserGroup)
        .register::<EventMapper>(Tenant::Event)
        .build()
        .unwrap();
    let (client, table) = local::client_and_table("keys-reach", T).await;
    let user = |id: &str| User {
        tenant: "acme".into(),
        id: id.into(),
    };
    for item in [
        UserMapper::to_item(&user("ada")).unwrap(),
        UserMapper::to_item(&user("bob")).unwrap(),
        UserGroupMapper::to_item(&UserGroup {
            tenant: "acme".into(),
            id: "admins".into(),
        })
        .unwrap(),
        EventMapper::to_item(&Event {
            tenant: "acme".into(),
            day: "2025-01-01".into(),
            id: "e1".into(),
        })
        .unwrap(),
    ] {
        local::put_item(&client, &table, item).await;
    }
    let types_returned = |condition: KeyCondition| {
        let q = client.query().table_name(&table).apply(condition).unwrap();
        async move {
            let mut types: Vec<String> = local::raw_items(q)
                .await
                .unwrap()
                .iter()
                .filter_map(|i| i.get("entityType").and_then(|v| v.as_s().ok()).cloned())
                .collect();
            types.sort();
            types.dedup();
            types
        }
    };
    let acme = || KeyCondition::new(T, "TENANT#acme");

    // `USER` ends inside a segment: it reaches the groups too, and the
    // server returns them.
    let users = acme().and(attr("sk").begins_with("USER"));
    assert_eq!(
        registry.entity_types_reached(&users).unwrap(),
        ["User", "UserGroup"]
    );
    assert_eq!(types_returned(users.clone()).await, ["User", "UserGroup"]);
    let err = registry.check_key_condition(&users, &["User"]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    assert_eq!(
        err.to_string(),
        "key attribute `sk` begins_with \"USER\" on the table also reaches UserGroup items \
         (sort key `USERGROUP#{id}`, e.g. \"USERGROUP#a\"), expected only User; the prefix \
         ends inside a segment: end it with the delimiter (\"USER#\")"
    );
    // Ended at the segment, it reaches users only, and so does the server.
    let users = acme().and(attr("sk").begins_with("USER#"));
    registry.check_key_condition(&users, &["User"]).unwrap();
    assert_eq!(types_returned(users).await, ["User"]);
    // A range over both.
    let range = acme().and(attr("sk").between("USER#a", "USERGROUP#b"));
    assert_eq!(
        registry.entity_types_reached(&range).unwrap(),
        ["User", "UserGroup"]
    );
    assert_eq!(types_returned(range).await, ["User", "UserGroup"]);
    // The whole partition: every type, an unchecked expectation names them.
    let err = registry
        .check_key_condition(&acme(), &["User", "UserGroup"])
        .unwrap_err();
    assert!(
        err.to_string().contains("also reaches Event items"),
        "{err}"
    );
    assert_eq!(types_returned(acme()).await, ["Event", "User", "UserGroup"]);
    // Another partition shape reaches nothing.
    let none = KeyCondition::new(T, "USER#ada");
    assert!(registry.entity_types_reached(&none).unwrap().is_empty());
    // An unregistered type in the expectation.
    let err = registry.check_key_condition(&none, &["Usr"]).unwrap_err();
    assert!(
        err.to_string()
            .contains("\"Usr\" is not a registered entity type"),
        "{err}"
    );
}

/// 2025-01-02T03:04:05Z.
fn jan_2_2025() -> std::time::SystemTime {
    std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_735_787_045)
}
