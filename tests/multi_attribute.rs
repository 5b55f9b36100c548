//! Multi-attribute GSI keys (#19 part 1) on a real emulator: the layout
//! created with up to four partition and four sort key attributes; items
//! in the index only with every key attribute; queries built from the
//! entity's fields; every query rule the crate enforces also refused by the
//! server; `LastEvaluatedKey` of such an index round-tripped through a
//! cursor.

use aws_sdk_dynamodb::types::{AttributeValue, KeyType};
use dynamodb_mapper::ItemExt;
use dynamodb_mapper::cursor::Cursors;
use dynamodb_mapper::expr::{KeyCondition, attr};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{
    ErrorKind, GlobalSecondaryIndex, IndexKeys, Item, KeyAttribute, KeyPattern, Mapper, MapperExt,
    NamingConvention, Registry, ScalarType, TableSchema,
};
use dynamodb_mapper_support::{local, problems};
use serde::{Deserialize, Serialize};

const BY_REGION: GlobalSecondaryIndex = GlobalSecondaryIndex::multi_attribute(
    "ByRegion",
    &[KeyAttribute::new("tenant"), KeyAttribute::new("region")],
    &[
        KeyAttribute::typed("placedAt", ScalarType::N),
        KeyAttribute::new("orderId"),
    ],
);

/// Four of each: the most DynamoDB allows.
const WIDEST: GlobalSecondaryIndex = GlobalSecondaryIndex::multi_attribute(
    "Widest",
    &[
        KeyAttribute::new("tenant"),
        KeyAttribute::new("region"),
        KeyAttribute::new("status"),
        KeyAttribute::new("channel"),
    ],
    &[
        KeyAttribute::typed("priority", ScalarType::N),
        KeyAttribute::typed("placedAt", ScalarType::N),
        KeyAttribute::typed("total", ScalarType::N),
        KeyAttribute::new("orderId"),
    ],
);

/// A sparse index: only orders with a courier are in it.
const BY_COURIER: GlobalSecondaryIndex = GlobalSecondaryIndex::multi_attribute(
    "ByCourier",
    &[KeyAttribute::new("courier"), KeyAttribute::new("region")],
    &[],
);

/// A string key attribute rendered from a key pattern (`teamKey`), next to
/// typed fields.
const BY_TEAM: GlobalSecondaryIndex = GlobalSecondaryIndex::multi_attribute(
    "ByTeam",
    &[KeyAttribute::new("teamKey"), KeyAttribute::new("region")],
    &[KeyAttribute::new("rankKey")],
);

const T: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[BY_REGION, WIDEST, BY_COURIER, BY_TEAM]);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Order {
    tenant: String,
    region: String,
    order_id: String,
    placed_at: u64,
    status: String,
    channel: String,
    priority: i32,
    total: u32,
    courier: Option<String>,
}

struct OrderMapper;
impl Mapper for OrderMapper {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = T;
    const NAMING: NamingConvention = NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("TENANT#{tenant}"))
            .sort(KeyPattern::sort("ORDER#{order_id}")),
        IndexKeys::part(
            "ByTeam",
            "teamKey",
            KeyPattern::partition("TEAM#{tenant}#{channel}"),
        ),
        IndexKeys::part(
            "ByTeam",
            "rankKey",
            KeyPattern::sort("P#{priority:i1}#{order_id}"),
        ),
    ];
}

fn order(n: u32) -> Order {
    Order {
        tenant: if n % 5 == 4 { "globex" } else { "acme" }.into(),
        region: if n.is_multiple_of(2) {
            "eu-west"
        } else {
            "us-east"
        }
        .into(),
        order_id: format!("O{n:02}"),
        placed_at: 1_700_000_000 + u64::from(n / 3) * 60,
        status: if n.is_multiple_of(3) {
            "open"
        } else {
            "shipped"
        }
        .into(),
        channel: "web".into(),
        priority: i32::try_from(n % 4).unwrap() - 1,
        total: 100 + n,
        courier: (n % 4 == 1).then(|| "dhl".to_owned()),
    }
}

async fn table_of_orders() -> (Table, Vec<Order>) {
    let orders: Vec<Order> = (0..30).map(order).collect();
    let items = orders
        .iter()
        .map(|o| OrderMapper::to_item(o).unwrap())
        .collect();
    let (client, name, written) = local::table_with_items("multi_attr", T, items).await;
    assert_eq!(written.items, 30);
    (Table::new(&client, &name, T), orders)
}

async fn read(table: &Table, key: KeyCondition) -> Vec<Order> {
    local::read_all::<OrderMapper>(local::query(table.client(), table.name(), key).unwrap())
        .await
        .unwrap()
}

fn ids(orders: &[Order]) -> Vec<&str> {
    orders.iter().map(|o| o.order_id.as_str()).collect()
}

/// The orders the server should return, in index order.
fn expected(orders: &[Order], keep: impl Fn(&Order) -> bool) -> Vec<&str> {
    let mut found: Vec<&Order> = orders.iter().filter(|o| keep(o)).collect();
    found.sort_by(|a, b| (a.placed_at, &a.order_id).cmp(&(b.placed_at, &b.order_id)));
    found.iter().map(|o| o.order_id.as_str()).collect()
}

#[tokio::test]
async fn the_server_creates_the_layout_as_declared() {
    let (table, _) = table_of_orders().await;
    let described = table
        .client()
        .describe_table()
        .table_name(table.name())
        .send()
        .await
        .unwrap();
    let indexes = described.table.unwrap().global_secondary_indexes.unwrap();
    let widest = indexes
        .iter()
        .find(|i| i.index_name() == Some("Widest"))
        .unwrap();
    let keys: Vec<(&str, KeyType)> = widest
        .key_schema()
        .iter()
        .map(|k| (k.attribute_name(), k.key_type().clone()))
        .collect();
    let expected: Vec<(&str, KeyType)> = ["tenant", "region", "status", "channel"]
        .map(|name| (name, KeyType::Hash))
        .into_iter()
        .chain(["priority", "placedAt", "total", "orderId"].map(|name| (name, KeyType::Range)))
        .collect();
    assert_eq!(keys, expected);
}

#[tokio::test]
async fn lookups_from_fields_select_what_the_server_returns() {
    let (table, orders) = table_of_orders().await;
    let acme_eu = |o: &Order| o.tenant == "acme" && o.region == "eu-west";

    // Every partition attribute, no sort condition.
    let all = OrderMapper::lookup()
        .on_index("ByRegion")
        .with("tenant", "acme")
        .with("region", "eu-west");
    let found = read(&table, all.key_condition().unwrap()).await;
    assert_eq!(ids(&found), expected(&orders, acme_eu));
    assert!(found.len() > 5);

    // A range on the first sort attribute, bound by field name.
    let from = 1_700_000_000 + 60;
    let through = 1_700_000_000 + 4 * 60;
    let ranged = all.clone().sort_range("placed_at", from..=through);
    let found = read(&table, ranged.key_condition().unwrap()).await;
    assert_eq!(
        ids(&found),
        expected(&orders, |o| acme_eu(o)
            && (from..=through).contains(&o.placed_at))
    );
    assert!(!found.is_empty());

    // Equality on the first sort attribute (bound by attribute name), a
    // range on the second.
    let at = 1_700_000_000 + 2 * 60;
    let found = read(
        &table,
        all.clone()
            .with("placedAt", at)
            .sort_range("order_id", "O07"..)
            .key_condition()
            .unwrap(),
    )
    .await;
    assert_eq!(
        ids(&found),
        expected(&orders, |o| acme_eu(o)
            && o.placed_at == at
            && o.order_id.as_str() >= "O07")
    );

    // The same with the key condition written by hand, begins_with last.
    let key = KeyCondition::new(T, "acme")
        .and(attr("region").eq("eu-west"))
        .on_index("ByRegion")
        .and(attr("placedAt").eq(at) & attr("orderId").begins_with("O0"));
    let found = read(&table, key).await;
    assert_eq!(
        ids(&found),
        expected(&orders, |o| acme_eu(o)
            && o.placed_at == at
            && o.order_id.starts_with("O0"))
    );

    // Four and four: every attribute by equality.
    let one = &orders[6];
    // Given in any order: each goes to the attribute it names.
    let key = KeyCondition::new(T, one.tenant.as_str())
        .and(attr("orderId").eq(one.order_id.as_str()))
        .and(attr("status").eq(one.status.as_str()))
        .and(attr("region").eq(one.region.as_str()))
        .and(attr("channel").eq(one.channel.as_str()))
        .on_index("Widest")
        .and(attr("priority").eq(one.priority))
        .and(attr("total").eq(one.total) & attr("placedAt").eq(one.placed_at));
    assert_eq!(read(&table, key).await, std::slice::from_ref(one));
}

#[tokio::test]
async fn a_sparse_multi_attribute_index_holds_only_complete_items() {
    let (table, orders) = table_of_orders().await;
    let with_courier = OrderMapper::lookup()
        .on_index("ByCourier")
        .with("courier", "dhl")
        .with("region", "us-east");
    let found = read(&table, with_courier.key_condition().unwrap()).await;
    let mut want: Vec<&str> = orders
        .iter()
        .filter(|o| o.courier.is_some() && o.region == "us-east")
        .map(|o| o.order_id.as_str())
        .collect();
    let mut got = ids(&found);
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want);
    assert!(!got.is_empty());
    // The items without a courier hold no `courier` attribute at all.
    let item = OrderMapper::to_item(&orders[0]).unwrap();
    assert!(!item.contains_key("courier"));
}

/// An item of `order` as the crate writes it, with `change` applied.
fn raw_order(change: impl FnOnce(&mut Item)) -> Item {
    let mut item = OrderMapper::to_item(&order(3)).unwrap();
    change(&mut item);
    item
}

#[tokio::test]
async fn partial_or_mistyped_index_keys_are_refused_before_sending() {
    let (table, _) = table_of_orders().await;
    // Only some of the key attributes: the server would write the item and
    // leave it out of the index; the crate refuses the write.
    let partial = raw_order(|item| {
        item.remove("placedAt");
    });
    let err = T.check_item(&partial).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    assert_eq!(
        err.to_string(),
        "key attribute `placedAt` of index ByRegion is missing while `tenant`, `region`, \
         `orderId` are present; an item holding every partition key attribute of the index is in it \
         and needs every sort key attribute"
    );
    let err = table
        .batch_writer()
        .put_items(vec![partial.clone()])
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    // What the server does with it: writes it, outside the index.
    let sent = table
        .client()
        .put_item()
        .table_name(table.name())
        .set_item(Some(partial))
        .send()
        .await;
    assert!(sent.is_ok(), "{sent:?}");

    // A key attribute of the wrong type: both refuse it.
    let mistyped = raw_order(|item| {
        item.insert("placedAt".into(), AttributeValue::S("yesterday".into()));
    });
    let err = T.check_item(&mistyped).unwrap_err();
    assert_eq!(
        err.to_string(),
        "key attribute `placedAt` of index ByRegion is a string (S), expected a number (N)"
    );
    let sent = table
        .client()
        .put_item()
        .table_name(table.name())
        .set_item(Some(mistyped))
        .send()
        .await;
    assert!(sent.is_err(), "the server refuses a mistyped index key too");

    // An empty string key part: both refuse it.
    let empty = raw_order(|item| {
        item.insert("region".into(), AttributeValue::S(String::new()));
    });
    assert!(T.check_item(&empty).is_err());
    let sent = table
        .client()
        .put_item()
        .table_name(table.name())
        .set_item(Some(empty))
        .send()
        .await;
    assert!(sent.is_err(), "the server refuses an empty index key part");
}

/// Each shape the crate refuses, written by hand and sent raw: the server
/// refuses it too.
#[tokio::test]
async fn every_query_rule_is_the_servers() {
    let (table, _) = table_of_orders().await;
    let at = 1_700_000_060_u64;
    let refused: Vec<(KeyCondition, &str, &str)> = vec![
        (
            KeyCondition::new(T, "acme").on_index("ByRegion"),
            "key attribute `region` of index ByRegion has no value; a query gives every \
             partition key attribute (`tenant`, `region`) by equality",
            "#a = :a",
        ),
        (
            KeyCondition::new(T, "acme")
                .and(attr("region").eq("eu-west"))
                .on_index("ByRegion")
                .and(attr("placedAt").gt(at))
                .and(attr("orderId").eq("O01")),
            "key attribute `orderId` of index ByRegion has a condition after the range on \
             `placedAt`; only the last sort key attribute given may have a range (compare \
             `placedAt` with =)",
            "#a = :a AND #b = :b AND #c > :c AND #d = :d",
        ),
        (
            KeyCondition::new(T, "acme")
                .and(attr("region").eq("eu-west"))
                .and(attr("region").eq("x"))
                .on_index("ByRegion"),
            "key attribute `region` has two values; a partition key attribute of index ByRegion \
             takes one",
            "#a = :a AND #b = :b AND #b = :x",
        ),
        (
            KeyCondition::new(T, "acme")
                .and(attr("region").gt("eu"))
                .on_index("ByRegion"),
            "key attribute `region` is a partition key attribute of index ByRegion; a key \
             condition compares it with = only",
            "#a = :a AND #b > :b",
        ),
        (
            KeyCondition::new(T, "acme")
                .and(attr("region").eq("eu-west"))
                .and(attr("orderId").eq("O01"))
                .on_index("ByRegion"),
            "key attribute `orderId` has a condition, but `placedAt` before it in the sort key \
             of index ByRegion has none; a key condition gives sort key attributes from the left",
            "#a = :a AND #b = :b AND #d = :d",
        ),
        (
            KeyCondition::new(T, "acme")
                .and(attr("region").eq("eu-west"))
                .on_index("ByRegion")
                .and(attr("placedAt").eq(at) & attr("orderId").eq("O01") & attr("extra").eq("x")),
            "key attribute `extra` is not a key attribute of index ByRegion (its keys: `tenant`, \
             `region`, `placedAt`, `orderId`); compare other attributes in a filter",
            "#a = :a AND #b = :b AND #c = :c AND #d = :d AND #x = :x",
        ),
        (
            KeyCondition::new(T, "acme")
                .and(attr("region").eq("eu-west"))
                .on_index("ByRegion")
                .and(attr("placedAt").begins_with("17")),
            "key attribute `placedAt` of index ByRegion is a number (N); begins_with needs a \
             string or binary sort key",
            "#a = :a AND #b = :b AND begins_with(#c, :s)",
        ),
    ];
    // The raw form of each, for the server. `#x` is an attribute that is no
    // key of the index; `:x` and `:s` are strings.
    for (condition, message, raw) in refused {
        let err = condition.build().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidKey);
        assert_eq!(err.to_string(), message);
        refused_by_server(raw_query(&table, "ByRegion", raw, at), raw).await;
    }
    // And the accepted shapes are accepted.
    for raw in [
        "#a = :a AND #b = :b",
        "#a = :a AND #b = :b AND #c = :c",
        "#a = :a AND #b = :b AND #c = :c AND #d > :d",
        "#a = :a AND #b = :b AND #c BETWEEN :c AND :c",
    ] {
        raw_query(&table, "ByRegion", raw, at)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{raw}: {e:?}"));
    }
}

/// Sends `query`: the server refuses it as invalid.
async fn refused_by_server(
    query: aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder,
    raw: &str,
) {
    let err = match query.send().await {
        Ok(_) => panic!("the server accepted {raw}"),
        Err(e) => e,
    };
    let code = err.as_service_error().and_then(|e| {
        use aws_sdk_dynamodb::error::ProvideErrorMetadata;
        e.code().map(str::to_owned)
    });
    assert_eq!(
        code.as_deref(),
        Some("ValidationException"),
        "{raw}: {err:?}"
    );
}

/// A raw query of `index` with the names and values `raw` uses.
fn raw_query(
    table: &Table,
    index: &str,
    raw: &str,
    at: u64,
) -> aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder {
    let mut q = table
        .client()
        .query()
        .table_name(table.name())
        .index_name(index)
        .key_condition_expression(raw);
    let names = [
        ("#a", "tenant"),
        ("#b", "region"),
        ("#c", "placedAt"),
        ("#d", "orderId"),
        ("#x", "status"),
    ];
    for (placeholder, name) in names {
        if raw.contains(placeholder) {
            q = q.expression_attribute_names(placeholder, name);
        }
    }
    let values = [
        (":a", AttributeValue::S("acme".into())),
        (":b", AttributeValue::S("eu-west".into())),
        (":c", AttributeValue::N(at.to_string())),
        (":d", AttributeValue::S("O01".into())),
        (":x", AttributeValue::S("x".into())),
        (":s", AttributeValue::S("17".into())),
    ];
    for (placeholder, value) in values {
        if raw.contains(placeholder) {
            q = q.expression_attribute_values(placeholder, value);
        }
    }
    q
}

#[tokio::test]
async fn lookups_on_multi_attribute_indexes_explain_what_is_missing() {
    let err = OrderMapper::lookup()
        .on_index("ByRegion")
        .with("tenant", "acme")
        .key_condition()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Order: key attribute `region` of index ByRegion has no value; bind every partition key \
         attribute (`tenant`, `region`) with `with`"
    );
    let err = OrderMapper::lookup()
        .on_index("ByRegion")
        .with("tenant", "acme")
        .with("region", "eu-west")
        .with("order_id", "O01")
        .key_condition()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Order: key attribute `orderId` of index ByRegion has a value, but `placedAt` before it \
         has none; sort key attributes (`placedAt`, `orderId`) are given from the left"
    );
    let err = OrderMapper::lookup()
        .on_index("ByRegion")
        .with("tenant", "acme")
        .with("region", "eu-west")
        .with("total", 3)
        .key_condition()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Order: key attribute `(key)` of index ByRegion has no key attribute `total` (bound as \
         `total`); its keys are `tenant`, `region` and `placedAt`, `orderId`"
    );
    let err = OrderMapper::lookup()
        .on_index("ByRegion")
        .with("tenant", "acme")
        .with("region", "eu-west")
        .sort_range("order_id", "O1"..="O2")
        .key_condition()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("cannot take the value bound to `order_id`"),
        "{err}"
    );
    // A partition key attribute's part pattern takes every placeholder.
    let err = OrderMapper::lookup()
        .on_index("ByTeam")
        .with("tenant", "acme")
        .with("region", "eu-west")
        .key_condition()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Order: key attribute `teamKey` of index ByTeam is a partition key attribute and needs \
         its whole value, but `{channel}` of its key pattern `TEAM#{tenant}#{channel}` has no \
         value"
    );
    assert_eq!(err.kind(), ErrorKind::InvalidKey);
    // A mistyped value is reported with the attribute.
    let err = OrderMapper::lookup()
        .on_index("ByRegion")
        .with("tenant", "acme")
        .with("region", "eu-west")
        .with("placed_at", "yesterday")
        .key_condition()
        .unwrap()
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "key attribute `placedAt` of index ByRegion condition value is a string (S), expected a \
         number (N)"
    );
}

#[tokio::test]
async fn last_evaluated_keys_of_a_multi_attribute_index_round_trip() {
    let (table, orders) = table_of_orders().await;
    let registry = Registry::builder()
        .register::<OrderMapper>(|o| o)
        .build()
        .unwrap();
    let cursors = Cursors::new(table.name(), T)
        .on_index("ByRegion")
        .signed_with(b"0123456789abcdef0123456789abcdef");
    let query = || {
        OrderMapper::lookup()
            .on_index("ByRegion")
            .with("tenant", "acme")
            .with("region", "us-east")
            .query(&table)
            .unwrap()
            .limit(3)
    };
    // The raw LastEvaluatedKey holds every key attribute of the index and
    // of the table, and the cursor gives it back as it was.
    let first = query().send().await.unwrap();
    let last = first.last_evaluated_key.unwrap();
    let mut names: Vec<&str> = last.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["orderId", "pk", "placedAt", "region", "sk", "tenant"]
    );
    assert_eq!(
        cursors.decode(&cursors.encode(&last).unwrap()).unwrap(),
        last
    );

    // Paging through the index reads every item once, in index order.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = table
            .query_page(query(), &registry, &cursors, cursor.as_deref())
            .await
            .unwrap();
        seen.extend(page.items.entities.into_iter().map(|o| o.order_id));
        match page.next {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let want = expected(&orders, |o| o.tenant == "acme" && o.region == "us-east");
    assert_eq!(seen, want);
    assert!(want.len() > 6, "several pages");

    // A token of the table is refused by the index's cursors.
    let on_table = Cursors::new(table.name(), T).signed_with(b"0123456789abcdef0123456789abcdef");
    let table_key = OrderMapper::to_item(&orders[0])
        .map(|item| T.key_of(&item).unwrap())
        .unwrap();
    let token = on_table.encode(&table_key).unwrap();
    assert_eq!(
        cursors.decode(&token).unwrap_err().kind(),
        ErrorKind::InvalidCursor
    );
}

#[test]
fn key_patterns_cannot_render_a_multi_attribute_key() {
    struct Wrong;
    impl Mapper for Wrong {
        type Entity = Order;
        const ENTITY_TYPE: &'static str = "Wrong";
        const SCHEMA: TableSchema = T;
        const KEY_PATTERNS: &'static [IndexKeys] = &[
            IndexKeys::table(KeyPattern::partition("TENANT#{tenant}"))
                .sort(KeyPattern::sort("ORDER#{order_id}")),
            IndexKeys::index("ByRegion", KeyPattern::partition("{tenant}")),
        ];
    }
    let problems = problems(&Wrong::check().unwrap_err());
    assert_eq!(
        problems,
        [
            "key patterns name index ByRegion, whose keys are multi-attribute: its key attributes \
          are typed attributes the entity's fields (or its hook) write, not rendered key strings"
        ]
    );
}

#[tokio::test]
async fn key_patterns_render_string_parts_of_a_multi_attribute_key() {
    let (table, orders) = table_of_orders().await;
    // The parts are written with the item, and checked against the patterns.
    let item = OrderMapper::to_item(&orders[6]).unwrap();
    assert_eq!(item["teamKey"], AttributeValue::S("TEAM#acme#web".into()));
    assert_eq!(item["rankKey"], AttributeValue::S("P#P1#O06".into()));
    // A hook that writes the part by hand is checked against the pattern.
    struct Forging;
    impl Mapper for Forging {
        type Entity = Order;
        const ENTITY_TYPE: &'static str = "Order";
        const SCHEMA: TableSchema = T;
        const NAMING: NamingConvention = NamingConvention::CamelCase;
        const KEY_PATTERNS: &'static [IndexKeys] = OrderMapper::KEY_PATTERNS;
        fn after_to_item(_: &Order, item: &mut Item) -> dynamodb_mapper::Result<()> {
            item.put_str("teamKey", "acme");
            Ok(())
        }
    }
    let err = Forging::to_item(&orders[6]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Order: key attribute `teamKey` of index ByTeam is \"acme\", which does not match its key \
         pattern `TEAM#{tenant}#{channel}`"
    );

    // A lookup binds the parts' placeholders like fields.
    let team = OrderMapper::lookup()
        .on_index("ByTeam")
        .with("tenant", "acme")
        .with("channel", "web")
        .with("region", "eu-west");
    let mut want: Vec<&Order> = orders
        .iter()
        .filter(|o| o.tenant == "acme" && o.region == "eu-west")
        .collect();
    want.sort_by_key(|o| (o.priority, o.order_id.clone()));
    let found = read(&table, team.key_condition().unwrap()).await;
    assert_eq!(
        ids(&found),
        want.iter().map(|o| o.order_id.as_str()).collect::<Vec<_>>()
    );
    // A range over the sort part's first placeholder: priorities 0 and 1.
    let ranged = team.clone().sort_range("priority", 0..=1);
    let found = read(&table, ranged.key_condition().unwrap()).await;
    let expected: Vec<&str> = want
        .iter()
        .filter(|o| (0..=1).contains(&o.priority))
        .map(|o| o.order_id.as_str())
        .collect();
    assert_eq!(ids(&found), expected);
    assert!(!expected.is_empty() && expected.len() < want.len());
    // A range over its second placeholder, the first bound: priority 1,
    // order ids from O10 on.
    let ranged = team
        .clone()
        .with("priority", 1)
        .sort_range("order_id", "O10"..);
    let found = read(&table, ranged.key_condition().unwrap()).await;
    let expected: Vec<&str> = want
        .iter()
        .filter(|o| o.priority == 1 && o.order_id.as_str() >= "O10")
        .map(|o| o.order_id.as_str())
        .collect();
    assert_eq!(ids(&found), expected);
    assert!(!expected.is_empty());
    assert!(
        want.iter()
            .any(|o| o.priority == 1 && o.order_id.as_str() < "O10")
    );
    // Its first placeholder alone: the part up to the next one, compared
    // by begins_with (priority 1, every order id).
    let started = team.clone().with("priority", 1);
    let condition = started.key_condition().unwrap();
    let built = condition.clone().build().unwrap();
    assert!(
        built.expression().contains("begins_with("),
        "{}",
        built.expression()
    );
    let prefix = format!(
        "P#{}#",
        KeyPattern::sort("{p:i1}").with("p", 1).render().unwrap()
    );
    assert!(
        built
            .values()
            .values()
            .any(|v| *v == AttributeValue::S(prefix.clone())),
        "{built:?} has no {prefix}"
    );
    let found = read(&table, condition).await;
    let expected: Vec<&str> = want
        .iter()
        .filter(|o| o.priority == 1)
        .map(|o| o.order_id.as_str())
        .collect();
    assert_eq!(ids(&found), expected);
    assert!(!expected.is_empty() && expected.len() < want.len());
    // The whole sort part: one order.
    let one = team.with("priority", 1).with("order_id", "O02");
    let found = read(&table, one.key_condition().unwrap()).await;
    assert_eq!(ids(&found), ["O02"]);
}

#[test]
fn part_patterns_are_checked_against_the_index() {
    struct Wrong;
    impl Mapper for Wrong {
        type Entity = Order;
        const ENTITY_TYPE: &'static str = "Wrong";
        const SCHEMA: TableSchema = T;
        const KEY_PATTERNS: &'static [IndexKeys] = &[
            IndexKeys::table(KeyPattern::partition("TENANT#{tenant}"))
                .sort(KeyPattern::sort("ORDER#{order_id}")),
            IndexKeys::part("ByTeam", "rankKey", KeyPattern::partition("R#{order_id}")),
            IndexKeys::part("ByTeam", "nope", KeyPattern::partition("N#{order_id}")),
            IndexKeys::part("ByRegion", "placedAt", KeyPattern::sort("{placed_at}")),
        ];
    }
    let problems = problems(&Wrong::check().unwrap_err());
    assert_eq!(
        problems,
        [
            "key pattern `R#{order_id}` is a partition key pattern, but `rankKey` is a sort key \
             attribute of index ByTeam",
            "key pattern `N#{order_id}` renders attribute `nope`, which is not a key attribute \
             of index ByTeam (its keys: teamKey, region, rankKey)",
            "key pattern `{placed_at}` renders strings, but key attribute `placedAt` is a number \
             (N)",
        ]
    );
}

/// A sort key attribute given only the start of its part pattern is the
/// last one the key condition compares: nothing after it, by value or
/// range.
#[test]
fn a_sort_part_given_in_part_ends_the_key_condition() {
    const STAGED: GlobalSecondaryIndex = GlobalSecondaryIndex::multi_attribute(
        "Staged",
        &[KeyAttribute::new("tenant")],
        &[KeyAttribute::new("stage"), KeyAttribute::new("orderId")],
    );
    const S: TableSchema = TableSchema::new("pk").sort_key("sk").indexes(&[STAGED]);
    struct Staged;
    impl Mapper for Staged {
        type Entity = Order;
        const ENTITY_TYPE: &'static str = "Order";
        const SCHEMA: TableSchema = S;
        const NAMING: NamingConvention = NamingConvention::CamelCase;
        const KEY_PATTERNS: &'static [IndexKeys] = &[
            IndexKeys::table(KeyPattern::partition("TENANT#{tenant}"))
                .sort(KeyPattern::sort("ORDER#{order_id}")),
            IndexKeys::part("Staged", "stage", KeyPattern::sort("{status}#{channel}")),
        ];
    }
    Staged::check().unwrap();
    let lookup = Staged::lookup().on_index("Staged").with("tenant", "acme");

    let started = lookup
        .clone()
        .with("status", "open")
        .key_condition()
        .unwrap();
    let built = started.build().unwrap();
    assert_eq!(built.expression(), "#k0 = :k0 AND begins_with(#k1, :k1)");
    assert_eq!(built.names()["#k1"], "stage");
    assert_eq!(built.values()[":k1"], AttributeValue::S("open#".into()));
    // Bound whole, the part is compared by equality and the next attribute
    // may follow.
    let whole = lookup
        .clone()
        .with("status", "open")
        .with("channel", "web")
        .with("order_id", "O01")
        .key_condition()
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(whole.expression(), "#k0 = :k0 AND #k1 = :k1 AND #k2 = :k2");
    assert_eq!(whole.values()[":k1"], AttributeValue::S("open#web".into()));

    let err = lookup
        .clone()
        .with("status", "open")
        .with("order_id", "O01")
        .key_condition()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Order: key attribute `orderId` of index Staged has a value, but `stage` before it is \
         given only the start of its key pattern; sort key attributes (`stage`, `orderId`) are \
         given from the left, each whole but the last"
    );
    let err = lookup
        .clone()
        .with("status", "open")
        .sort_range("order_id", "O01"..)
        .key_condition()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("cannot take the value bound to `order_id`"),
        "{err}"
    );
    // A placeholder bound after one without a value is refused, as for a
    // table key pattern's prefix.
    let err = lookup.with("channel", "web").key_condition().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKeyPattern, "{err}");
}
