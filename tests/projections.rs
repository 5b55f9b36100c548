//! Projections (#19) on a real emulator: a projection expression read into
//! a smaller type, the discriminator still checked; a KEYS_ONLY and an
//! INCLUDE index read through the mapper, the keys standing in for the
//! discriminator; a clear error for a field the projection left out.

use dynamodb_mapper::expr::{Apply, Projection};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{
    ErrorKind, GlobalSecondaryIndex, IndexKeys, KeyPattern, Mapper, MapperExt, TableSchema,
};
use dynamodb_mapper_support::local;
use serde::{Deserialize, Serialize};

const T: TableSchema = TableSchema::new("pk").sort_key("sk").indexes(&[
    GlobalSecondaryIndex::new("ByStatus", "gsi1pk")
        .sort_key("gsi1sk")
        .keys_only(),
    GlobalSecondaryIndex::new("ByCity", "gsi2pk")
        .sort_key("gsi2sk")
        .include(&["total"]),
]);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Order {
    customer_id: String,
    order_id: String,
    status: String,
    city: String,
    total: u32,
    notes: String,
}

struct OrderMapper;
impl Mapper for OrderMapper {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = T;
    const NAMING: dynamodb_mapper::NamingConvention = dynamodb_mapper::NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer_id}"))
            .sort(KeyPattern::sort("ORDER#{order_id}")),
        IndexKeys::index("ByStatus", KeyPattern::partition("STATUS#{status}"))
            .sort(KeyPattern::sort("ORDER#{order_id}")),
        IndexKeys::index("ByCity", KeyPattern::partition("CITY#{city}"))
            .sort(KeyPattern::sort("ORDER#{order_id}")),
    ];
}

/// A note in the same partition as the orders: another type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Note {
    customer_id: String,
    order_id: String,
}

struct NoteMapper;
impl Mapper for NoteMapper {
    type Entity = Note;
    const ENTITY_TYPE: &'static str = "Note";
    const SCHEMA: TableSchema = T;
    const NAMING: dynamodb_mapper::NamingConvention = dynamodb_mapper::NamingConvention::CamelCase;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[
            IndexKeys::table(KeyPattern::partition("CUSTOMER#{customer_id}"))
                .sort(KeyPattern::sort("ORDERNOTE#{order_id}")),
        ];
}

/// The view a listing needs.
#[derive(Debug, PartialEq, Deserialize)]
struct OrderSummary {
    order_id: String,
    total: u32,
}

/// The view a status index gives (keys only).
#[derive(Debug, PartialEq, Deserialize)]
struct OrderKey {}

fn order(id: &str, status: &str, city: &str, total: u32) -> Order {
    Order {
        customer_id: "C1".into(),
        order_id: id.into(),
        status: status.into(),
        city: city.into(),
        total,
        notes: "x".repeat(1000),
    }
}

#[tokio::test]
async fn projections_read_smaller_types_and_still_check_the_type() {
    let (client, table) = local::client_and_table("projections", T).await;
    for o in [
        order("O1", "open", "Lyon", 10),
        order("O2", "shipped", "Lyon", 20),
    ] {
        local::put_item(&client, &table, OrderMapper::to_item(&o).unwrap()).await;
    }
    let note = Note {
        customer_id: "C1".into(),
        order_id: "O1".into(),
    };
    local::put_item(&client, &table, NoteMapper::to_item(&note).unwrap()).await;

    // A projection expression: the summary's fields, the discriminator and
    // the keys; the long notes are not read.
    let projection = Projection::of::<OrderMapper, OrderSummary>().unwrap();
    let q = OrderMapper::lookup()
        .with("customer_id", "C1")
        .query(&Table::new(&client, &table, T))
        .unwrap()
        .apply(&projection)
        .unwrap();
    let items = local::raw_items(q).await.unwrap();
    assert_eq!(items.len(), 2, "the note is filtered out by the lookup");
    assert!(
        items
            .iter()
            .all(|i| !i.contains_key("notes") && i.contains_key("entityType"))
    );
    let summaries: Vec<OrderSummary> = items
        .into_iter()
        .map(OrderMapper::from_projected::<OrderSummary>)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        summaries,
        [
            OrderSummary {
                order_id: "O1".into(),
                total: 10
            },
            OrderSummary {
                order_id: "O2".into(),
                total: 20
            }
        ]
    );
    // The whole partition, projected: the note is another type, refused.
    let q = local::query(
        &client,
        &table,
        dynamodb_mapper::expr::KeyCondition::new(T, "CUSTOMER#C1"),
    )
    .unwrap()
    .apply(&projection)
    .unwrap();
    let items = local::raw_items(q).await.unwrap();
    let errors: Vec<ErrorKind> = items
        .into_iter()
        .filter_map(|i| OrderMapper::from_projected::<OrderSummary>(i).err())
        .map(|e| e.kind())
        .collect();
    assert_eq!(errors, [ErrorKind::DiscriminatorMismatch]);

    // KEYS_ONLY: no discriminator; the keys say the type.
    let q = OrderMapper::lookup()
        .on_index("ByStatus")
        .with("status", "open")
        .query(&Table::new(&client, &table, T))
        .unwrap();
    // No discriminator filter on an index without the discriminator.
    assert_eq!(q.get_filter_expression(), &None);
    let items = local::raw_items(q).await.unwrap();
    assert_eq!(items.len(), 1);
    assert!(!items[0].contains_key("entityType") && !items[0].contains_key("total"));
    OrderMapper::from_projected::<OrderKey>(items[0].clone()).unwrap();
    let err = OrderMapper::from_projected::<OrderSummary>(items[0].clone()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingAttribute);
    assert!(
        err.to_string()
            .contains("attribute `orderId` is missing: the projection does not include it"),
        "{err}"
    );
    // The keys of another type are not taken for this one's.
    let mut foreign = items[0].clone();
    foreign.insert(
        "sk".into(),
        aws_sdk_dynamodb::types::AttributeValue::S("ORDERNOTE#O1".into()),
    );
    foreign.insert(
        "pk".into(),
        aws_sdk_dynamodb::types::AttributeValue::S("X".into()),
    );
    foreign.insert(
        "gsi1pk".into(),
        aws_sdk_dynamodb::types::AttributeValue::S("NOPE".into()),
    );
    let err = OrderMapper::from_projected::<OrderKey>(foreign).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingDiscriminator);

    // INCLUDE: the keys and `total`.
    #[derive(Debug, PartialEq, Deserialize)]
    struct CityTotal {
        total: u32,
    }
    let q = local::query(
        &client,
        &table,
        dynamodb_mapper::expr::KeyCondition::new(T, "CITY#Lyon").on_index("ByCity"),
    )
    .unwrap();
    let items = local::raw_items(q).await.unwrap();
    let totals: Vec<u32> = items
        .into_iter()
        .map(|i| OrderMapper::from_projected::<CityTotal>(i).unwrap().total)
        .collect();
    assert_eq!(totals, [10, 20]);
}
