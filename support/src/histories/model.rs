//! The entities the histories contend on: versioned accounts with a
//! unique email on one table; players and tags, unversioned, on another.
//! Every key attribute beyond the table's is rendered from a field, so a
//! stale one is visible in any snapshot.

use dynamodb_mapper::{
    GlobalSecondaryIndex, IndexKeys, Item, ItemExt, KeyPattern, Mapper, TableSchema, Unique,
};
use serde::{Deserialize, Serialize};

/// The accounts' table: `GSI1` from the note, a version attribute.
pub const ACCOUNTS: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")])
    .version("version");

/// The players' and tags' table: `GSI1` from the status or label.
pub const PLAYERS: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);

/// A versioned account; one account per email.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    /// The key.
    pub id: String,
    /// Unique across accounts.
    pub email: String,
    /// Feeds `gsi1pk`.
    pub note: String,
    /// A counter (`increment`).
    pub balance: i64,
}

/// The mapper of [`Account`].
#[derive(Debug)]
pub struct AccountMapper;

impl Mapper for AccountMapper {
    type Entity = Account;
    const ENTITY_TYPE: &'static str = "Account";
    const SCHEMA: TableSchema = ACCOUNTS;
    const UNIQUE: &'static [Unique] = &[Unique::new("email", &["email"])];
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("ACCOUNT#{id}")).sort(KeyPattern::sort("ACCOUNT")),
        IndexKeys::index("GSI1", KeyPattern::partition("NOTE#{note}"))
            .sort(KeyPattern::sort("ACCOUNT#{id}")),
    ];
}

/// A player.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Player {
    /// The key.
    pub id: String,
    /// Feeds `gsi1pk`.
    pub status: String,
    /// A counter (`increment`).
    pub wins: i64,
}

/// The mapper of [`Player`].
#[derive(Debug)]
pub struct PlayerMapper;

impl Mapper for PlayerMapper {
    type Entity = Player;
    const ENTITY_TYPE: &'static str = "Player";
    const SCHEMA: TableSchema = PLAYERS;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("PLAYER#{id}")).sort(KeyPattern::sort("PROFILE")),
        IndexKeys::index("GSI1", KeyPattern::partition("STATUS#{status}"))
            .sort(KeyPattern::sort("PLAYER#{id}")),
    ];
}

/// A tag, written and deleted in batches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tag {
    /// The key.
    pub id: String,
    /// Feeds `gsi1pk`.
    pub label: String,
}

/// The mapper of [`Tag`].
#[derive(Debug)]
pub struct TagMapper;

impl Mapper for TagMapper {
    type Entity = Tag;
    const ENTITY_TYPE: &'static str = "Tag";
    const SCHEMA: TableSchema = PLAYERS;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("TAG#{id}")).sort(KeyPattern::sort("TAG")),
        IndexKeys::index("GSI1", KeyPattern::partition("LABEL#{label}"))
            .sort(KeyPattern::sort("TAG#{id}")),
    ];
}

/// The key of the account `id`.
pub fn account_key(id: &str) -> Item {
    key("ACCOUNT#", id, "ACCOUNT")
}

/// The key of the player `id`.
pub fn player_key(id: &str) -> Item {
    key("PLAYER#", id, "PROFILE")
}

/// The key of the tag `id`.
pub fn tag_key(id: &str) -> Item {
    key("TAG#", id, "TAG")
}

fn key(prefix: &str, id: &str, sk: &str) -> Item {
    let mut item = Item::new();
    item.put_str("pk", format!("{prefix}{id}"));
    item.put_str("sk", sk);
    item
}
