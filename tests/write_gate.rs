//! The write gate (#29) on a real emulator: raw updates that would leave a
//! derived key stale are refused before sending, the typed paths keep
//! working, a stale no-op versioned update is a conflict, and an increment
//! that DynamoDB would refuse or overflow is refused with nothing written.

use aws_sdk_dynamodb::types::AttributeValue;
use dynamodb_mapper::expr::{Update, attr};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{
    ErrorDetails, ErrorKind, GlobalSecondaryIndex, IndexKeys, Item, KeyPattern, Mapper, MapperExt,
    Record, TableSchema,
};
use dynamodb_mapper_support::local;
use serde::{Deserialize, Serialize};

const T: TableSchema = TableSchema::new("pk").sort_key("sk").indexes(&[
    GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk"),
    GlobalSecondaryIndex::new("GSI2", "gsi2pk").sort_key("gsi2sk"),
]);
const VERSIONED: TableSchema = TableSchema::new("pk").sort_key("sk").version("version");

/// A leaderboard entry: GSI1 ranks players by score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Player {
    player_id: String,
    score: u64,
    nickname: String,
    wins: i64,
}

struct PlayerMapper;
impl Mapper for PlayerMapper {
    type Entity = Player;
    const ENTITY_TYPE: &'static str = "Player";
    const SCHEMA: TableSchema = T;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("PLAYER#{player_id}"))
            .sort(KeyPattern::sort("PROFILE")),
        IndexKeys::index("GSI1", KeyPattern::partition("LEADERBOARD"))
            .sort(KeyPattern::sort("SCORE#{score:u10}#PLAYER#{player_id}")),
    ];
}

/// An order: GSI1 by status, a sparse GSI2 by region.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Order {
    order_id: String,
    status: String,
    region: Option<String>,
    note: String,
}

struct OrderMapper;
impl Mapper for OrderMapper {
    type Entity = Order;
    const ENTITY_TYPE: &'static str = "Order";
    const SCHEMA: TableSchema = T;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("ORDER#{order_id}")).sort(KeyPattern::sort("ORDER")),
        IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
            .sort(KeyPattern::sort("ORDER#{order_id}")),
        IndexKeys::index("GSI2", KeyPattern::partition("REGION#{region}"))
            .sort(KeyPattern::sort("ORDER#{order_id}")),
    ];
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Counter {
    id: String,
    count: i64,
}

struct CounterMapper;
impl Mapper for CounterMapper {
    type Entity = Counter;
    const ENTITY_TYPE: &'static str = "Counter";
    const SCHEMA: TableSchema = VERSIONED;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("COUNTER#{id}")).sort(KeyPattern::sort("C"))];
}

async fn stored(client: &aws_sdk_dynamodb::Client, table: &str, key: Item) -> Item {
    local::get_item(client, table, key)
        .await
        .expect("the item is stored")
}

fn s(item: &Item, name: &str) -> Option<String> {
    match item.get(name) {
        Some(AttributeValue::S(v)) => Some(v.clone()),
        Some(AttributeValue::N(v)) => Some(v.clone()),
        _ => None,
    }
}

#[tokio::test]
async fn an_increment_of_a_field_a_key_is_rendered_from_is_refused_before_sending() {
    let (client, name) = local::client_and_table("gate-incr", T).await;
    let table = Table::new(&client, &name, T);
    let ada = Player {
        player_id: "ada".into(),
        score: 5,
        nickname: "Ada".into(),
        wins: 0,
    };
    local::put_item(&client, &name, PlayerMapper::to_item(&ada).unwrap()).await;
    let key = PlayerMapper::key(&ada).unwrap();

    let err = table
        .increment::<PlayerMapper>(key.clone(), "score", 10)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue, "{err}");
    assert_eq!(err.attribute(), Some("score"));
    assert_eq!(
        err.to_string(),
        "Player: attribute `score` cannot be updated by hand: `gsi1sk` is rendered from it (key \
         pattern `SCORE#{score:u10}#PLAYER#{player_id}`) and would be left stale; use \
         Table::update_entity or Table::update_with_retry, which renders it again, or name \
         `gsi1sk` in Update::caller_keeps and keep it right in the same update"
    );
    let item = stored(&client, &name, key.clone()).await;
    assert_eq!(s(&item, "score").as_deref(), Some("5"), "nothing was sent");
    assert_eq!(
        s(&item, "gsi1sk").as_deref(),
        Some("SCORE#0000000005#PLAYER#ada")
    );

    // A field no key is rendered from stays a counter.
    assert_eq!(
        table
            .increment::<PlayerMapper>(key.clone(), "wins", 1)
            .await
            .unwrap(),
        1
    );
    // The typed way moves the leaderboard key with the score.
    let better = Player {
        score: 15,
        ..ada.clone()
    };
    table
        .update_entity::<PlayerMapper>(&ada, &better)
        .await
        .unwrap();
    let item = stored(&client, &name, key).await;
    assert_eq!(
        s(&item, "gsi1sk").as_deref(),
        Some("SCORE#0000000015#PLAYER#ada")
    );
}

#[tokio::test]
async fn a_raw_transaction_update_cannot_leave_an_index_key_stale() {
    let (client, name) = local::client_and_table("gate-tx", T).await;
    let table = Table::new(&client, &name, T);
    let placed = Order {
        order_id: "O1".into(),
        status: "placed".into(),
        region: Some("eu".into()),
        note: "n".into(),
    };
    local::put_item(&client, &name, OrderMapper::to_item(&placed).unwrap()).await;
    let key = OrderMapper::key(&placed).unwrap();

    let refused = [
        (
            Update::new().set(attr("status"), "shipped"),
            "status",
            "gsi1pk",
        ),
        (
            Update::new().set(attr("gsi1pk"), "STATUS#bogus"),
            "gsi1pk",
            "gsi1pk",
        ),
        (Update::new().remove(attr("region")), "region", "gsi2pk"),
        (Update::new().set(attr("gsi2sk"), "X"), "gsi2sk", "gsi2sk"),
        // A path inside a source is a change of the source.
        (Update::new().set(attr("status.x"), 1), "status", "gsi1pk"),
    ];
    for (update, attribute, derived) in refused {
        let tx = table.transaction();
        let err = tx
            .clone()
            .update::<OrderMapper>(key.clone(), update)
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidValue, "{err}");
        assert_eq!(err.attribute(), Some(attribute), "{err}");
        let message = err.to_string();
        assert!(message.contains(&format!("`{derived}`")), "{message}");
        assert!(message.contains("Transaction::update_entity"), "{message}");
    }
    let item = stored(&client, &name, key.clone()).await;
    assert_eq!(s(&item, "gsi1pk").as_deref(), Some("STATUS#placed"));

    // Fields no key is rendered from are updatable as before.
    let mut tx = table.transaction();
    tx = tx
        .update::<OrderMapper>(key.clone(), Update::new().set(attr("note"), "m"))
        .unwrap();
    tx.send().await.unwrap();

    // The caller may take over a derived key, by name, for one update.
    let mut tx = table.transaction();
    tx = tx
        .update::<OrderMapper>(
            key.clone(),
            Update::new()
                .set(attr("status"), "packed")
                .set(attr("gsi1pk"), "STATUS#packed")
                .caller_keeps("gsi1pk"),
        )
        .unwrap();
    tx.send().await.unwrap();
    let item = stored(&client, &name, key.clone()).await;
    assert_eq!(s(&item, "gsi1pk").as_deref(), Some("STATUS#packed"));
    // Keeping one derived key does not let another go stale.
    let tx = table.transaction();
    let err = tx
        .clone()
        .update::<OrderMapper>(
            key.clone(),
            Update::new().remove(attr("region")).caller_keeps("gsi1pk"),
        )
        .unwrap_err();
    assert!(err.to_string().contains("`gsi2pk`"), "{err}");

    // The typed update renders every derived key: moved and removed.
    let packed = Order {
        status: "packed".into(),
        note: "m".into(),
        ..placed.clone()
    };
    let shipped = Order {
        status: "shipped".into(),
        region: None,
        ..packed.clone()
    };
    let mut tx = table.transaction();
    tx = tx.update_entity::<OrderMapper>(&packed, &shipped).unwrap();
    tx.send().await.unwrap();
    let item = stored(&client, &name, key.clone()).await;
    assert_eq!(s(&item, "gsi1pk").as_deref(), Some("STATUS#shipped"));
    assert_eq!(s(&item, "gsi2pk"), None, "the sparse key went with region");
    assert_eq!(s(&item, "gsi2sk"), None);
    // A typed update with a hand-made action added is raw again.
    let tx = table.transaction();
    let mixed = Update::between::<OrderMapper>(&shipped, &packed)
        .unwrap()
        .set(attr("note"), "x");
    let err = tx.clone().update::<OrderMapper>(key, mixed).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue, "{err}");
}

#[tokio::test]
async fn a_no_op_versioned_update_of_a_stale_record_is_a_conflict() {
    let (client, name) = local::client_and_table("gate-noop", VERSIONED).await;
    let table = Table::new(&client, &name, VERSIONED);
    let mut record = Record::new(Counter {
        id: "a".into(),
        count: 0,
    });
    table
        .put_record::<CounterMapper>(&mut record)
        .await
        .unwrap();
    let key = CounterMapper::key(&record.entity).unwrap();
    let mut stale = table
        .get_record::<CounterMapper>(key.clone())
        .await
        .unwrap()
        .unwrap();
    let read_at = stale.version;

    // Another writer moves the item on.
    let mut other = table
        .get_record::<CounterMapper>(key.clone())
        .await
        .unwrap()
        .unwrap();
    let moved = Counter {
        count: 41,
        ..other.entity.clone()
    };
    table
        .update_record::<CounterMapper>(&mut other, moved)
        .await
        .unwrap();

    // "Reset" to the value first read: nothing to write, but the stored
    // item is not that state, so it is a conflict, not a success.
    let reset = stale.entity.clone();
    let err = table
        .update_record::<CounterMapper>(&mut stale, reset.clone())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionConflict, "{err}");
    assert!(
        matches!(err.details(), ErrorDetails::VersionConflict { expected, .. } if *expected == read_at),
        "{err:?}"
    );
    let now = table
        .get_record::<CounterMapper>(key.clone())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(now.entity.count, 41);

    // The same no-op on a fresh record is a success at its version.
    let mut fresh = now.clone();
    let v = table
        .update_record::<CounterMapper>(&mut fresh, now.entity.clone())
        .await
        .unwrap();
    assert_eq!(Some(v), now.version);
    // And on a record whose item was deleted: a conflict.
    table.delete_record::<CounterMapper>(&fresh).await.unwrap();
    let err = table
        .update_record::<CounterMapper>(&mut fresh, now.entity.clone())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::VersionConflict, "{err}");
}

#[tokio::test]
async fn an_increment_dynamodb_would_refuse_or_overflow_writes_nothing() {
    let (client, name) = local::client_and_table("gate-incr-odd", T).await;
    let table = Table::new(&client, &name, T);
    let key = Item::from([
        ("pk".to_string(), AttributeValue::S("PLAYER#bob".into())),
        ("sk".to_string(), AttributeValue::S("PROFILE".into())),
    ]);
    let bob = Player {
        player_id: "bob".into(),
        score: 1,
        nickname: "Bob".into(),
        wins: i64::MAX - 1,
    };
    local::put_item(&client, &name, PlayerMapper::to_item(&bob).unwrap()).await;

    // A string attribute: a typed error naming it, nothing written.
    let err = table
        .increment::<PlayerMapper>(key.clone(), "nickname", 1)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue, "{err}");
    assert_eq!(err.attribute(), Some("nickname"));
    assert!(
        err.to_string()
            .contains("it holds a string (S), not a number"),
        "{err}"
    );
    assert!(err.to_string().contains("nothing was written"), "{err}");

    // Past i64::MAX: refused before it is applied.
    let err = table
        .increment::<PlayerMapper>(key.clone(), "wins", 2)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue, "{err}");
    assert_eq!(err.attribute(), Some("wins"));
    assert!(err.to_string().contains("64-bit integer range"), "{err}");
    let item = stored(&client, &name, key.clone()).await;
    assert_eq!(s(&item, "wins"), Some((i64::MAX - 1).to_string()));
    assert_eq!(s(&item, "nickname").as_deref(), Some("Bob"));
    // Up to the limit, it counts; and down past i64::MIN is refused too.
    assert_eq!(
        table
            .increment::<PlayerMapper>(key.clone(), "wins", 1)
            .await
            .unwrap(),
        i64::MAX
    );
    table
        .increment::<PlayerMapper>(key.clone(), "losses", i64::MIN)
        .await
        .unwrap();
    let err = table
        .increment::<PlayerMapper>(key.clone(), "losses", -1)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue, "{err}");
    // An item of another entity type is not touched.
    let err = table
        .increment::<OrderMapper>(key, "wins", 1)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("entity type \"Player\""), "{err}");
}

/// A profile whose bio a listing does not read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Profile {
    id: String,
    name: String,
    bio: Option<String>,
}

struct ProfileMapper;
impl Mapper for ProfileMapper {
    type Entity = Profile;
    const ENTITY_TYPE: &'static str = "Profile";
    const SCHEMA: TableSchema = VERSIONED;
    const KEY_PATTERNS: &'static [IndexKeys] =
        &[IndexKeys::table(KeyPattern::partition("TEAM#t1"))
            .sort(KeyPattern::sort("PROFILE#{id}"))];
}

#[tokio::test]
async fn a_record_read_through_a_projection_is_never_written_whole() {
    use dynamodb_mapper::cursor::Cursors;
    use dynamodb_mapper::expr::{Apply, Projection};
    use dynamodb_mapper::{Record, Registry};

    let (client, name) = local::client_and_table("gate-partial", VERSIONED).await;
    let table = Table::new(&client, &name, VERSIONED);
    let mut record = Record::new(Profile {
        id: "p1".into(),
        name: "Ada".into(),
        bio: Some("wrote the first program".into()),
    });
    let none_before = record
        .bag
        .insert("legacyFlag".into(), AttributeValue::Bool(true));
    assert_eq!(none_before, None);
    table
        .put_record::<ProfileMapper>(&mut record)
        .await
        .unwrap();
    let key = ProfileMapper::key(&record.entity).unwrap();

    // A listing reads names only (and what a versioned update needs).
    let listing = Projection::paths([
        attr("pk"),
        attr("sk"),
        attr("entityType"),
        attr("version"),
        attr("id"),
        attr("name"),
    ]);
    let registry = Registry::builder()
        .register_record::<ProfileMapper>(|r| r)
        .build()
        .unwrap();
    let query = ProfileMapper::lookup()
        .query(&table)
        .unwrap()
        .apply(&listing)
        .unwrap();
    let page = table
        .query_page(query, &registry, &Cursors::new(&name, VERSIONED), None)
        .await
        .unwrap();
    let mut listed = page.items.entities.into_iter().next().unwrap();
    assert_eq!(
        listed.projection(),
        Some("pk, sk, entityType, version, id, name")
    );
    assert_eq!(listed.entity.bio, None, "not read");

    // Written whole, it would drop the bio and the bag: refused, nothing sent.
    let err = table
        .put_record::<ProfileMapper>(&mut listed.clone())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PartialRecord, "{err}");
    assert_eq!(
        err.to_string(),
        "Profile: the record of pk=\"TEAM#t1\", sk=\"PROFILE#p1\" was read through the \
         projection `pk, sk, entityType, version, id, name`, so it cannot be written whole: \
         that would drop every attribute the projection left out; update the fields it holds \
         (Table::update_record) or read the whole item"
    );
    let tx = table.transaction();
    let err = tx.clone().put_record::<ProfileMapper>(&listed).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PartialRecord, "{err}");

    // Updating the fields it holds stays possible, and keeps the rest.
    let renamed = Profile {
        name: "Ada Lovelace".into(),
        ..listed.entity.clone()
    };
    table
        .update_record::<ProfileMapper>(&mut listed, renamed)
        .await
        .unwrap();
    let stored = table
        .get_record::<ProfileMapper>(key)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.projection(), None, "a whole item");
    assert_eq!(stored.entity.name, "Ada Lovelace");
    assert_eq!(
        stored.entity.bio.as_deref(),
        Some("wrote the first program")
    );
    assert_eq!(
        stored.bag.get("legacyFlag"),
        Some(&AttributeValue::Bool(true))
    );
}

/// A field feeding keys of two indexes (found by the oracle): a player's
/// status ranks them in GSI1 and groups them by team in GSI2.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Member {
    id: String,
    status: String,
    team: String,
    region: Option<String>,
}

struct MemberMapper;
impl Mapper for MemberMapper {
    type Entity = Member;
    const ENTITY_TYPE: &'static str = "Member";
    const SCHEMA: TableSchema = T;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("MEMBER#{id}")).sort(KeyPattern::sort("MEMBER")),
        IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
            .sort(KeyPattern::sort("TEAM#{team}#{status}")),
        IndexKeys::index("GSI2", KeyPattern::partition("REGION#{region}"))
            .sort(KeyPattern::sort("MEMBER#{id}")),
    ];
}

#[tokio::test]
async fn keeping_one_derived_key_never_hides_another() {
    let (client, name) = local::client_and_table("gate-findings", T).await;
    let table = Table::new(&client, &name, T);
    let open = Member {
        id: "m1".into(),
        status: "open".into(),
        team: "red".into(),
        region: None,
    };
    local::put_item(&client, &name, MemberMapper::to_item(&open).unwrap()).await;
    let key = MemberMapper::key(&open).unwrap();

    // `status` feeds gsi1pk and gsi1sk: keeping one is not enough.
    let tx = table.transaction();
    let err = tx
        .clone()
        .update::<MemberMapper>(
            key.clone(),
            Update::new()
                .set(attr("status"), "done")
                .set(attr("gsi1pk"), "STATUS#done")
                .caller_keeps("gsi1pk"),
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("`gsi1sk` is rendered from it"),
        "{err}"
    );

    // A sparse index's keys come and go together: setting `region` and
    // keeping only gsi2pk would leave an item with half a key.
    let err = tx
        .clone()
        .update::<MemberMapper>(
            key.clone(),
            Update::new()
                .set(attr("region"), "eu")
                .set(attr("gsi2pk"), "REGION#eu")
                .caller_keeps("gsi2pk"),
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("`gsi2sk` is rendered from it"),
        "{err}"
    );

    // An update from a stale `old` (it says `done`; the item says `open`)
    // that changes only the team still stores keys that agree with the
    // item: the status it renders them from is written too.
    let stale = Member {
        status: "done".into(),
        ..open.clone()
    };
    let blue = Member {
        team: "blue".into(),
        ..stale.clone()
    };
    table
        .update_entity::<MemberMapper>(&stale, &blue)
        .await
        .unwrap();
    let item = stored(&client, &name, key).await;
    let decoded = MemberMapper::from_item(item.clone()).unwrap();
    assert_eq!(decoded, blue);
    let rendered = MemberMapper::to_item(&decoded).unwrap();
    for derived in ["gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"] {
        assert_eq!(item.get(derived), rendered.get(derived), "{derived}");
    }
    assert_eq!(s(&item, "gsi1sk").as_deref(), Some("TEAM#blue#done"));
}
