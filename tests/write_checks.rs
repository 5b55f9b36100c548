//! The one pass of write checks, on every path that writes: typed puts
//! (`to_item`), raw batch puts and raw transaction puts. An item DynamoDB
//! would reject is refused before anything is sent (the fake service counts
//! the calls).

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use aws_smithy_mocks::{RuleMode, mock, mock_client};
use dynamodb_mapper::ItemExt;
use dynamodb_mapper::ops::{ActionInfo, ActionKind, Table};
use dynamodb_mapper::{ErrorKind, Item, Mapper, MapperExt, TableSchema};
use dynamodb_mapper_support::requests::offline_client;
use serde::{Deserialize, Serialize};

const TABLE: TableSchema = TableSchema::new("pk").sort_key("sk");

#[derive(Serialize, Deserialize)]
struct Note {
    id: String,
    text: String,
}

struct NoteMapper;
impl Mapper for NoteMapper {
    type Entity = Note;
    const ENTITY_TYPE: &'static str = "Note";
    const SCHEMA: TableSchema = TABLE;
    fn after_to_item(n: &Note, item: &mut Item) -> dynamodb_mapper::Result<()> {
        item.put_str("pk", format!("NOTE#{}", n.id));
        item.put_str("sk", "METADATA");
        Ok(())
    }
}

/// A mapper whose hook overwrites the discriminator it is given.
struct Impostor;
impl Mapper for Impostor {
    type Entity = Note;
    const ENTITY_TYPE: &'static str = "Note";
    const SCHEMA: TableSchema = TABLE;
    fn after_to_item(n: &Note, item: &mut Item) -> dynamodb_mapper::Result<()> {
        NoteMapper::after_to_item(n, item)?;
        item.put_str("entityType", "Task");
        Ok(())
    }
}

fn note(id: &str) -> Item {
    NoteMapper::to_item(&Note {
        id: id.into(),
        text: "hi".into(),
    })
    .unwrap()
}

#[tokio::test]
async fn raw_batch_puts_are_checked_before_anything_is_sent() {
    let rule =
        mock!(Client::batch_write_item).then_output(|| BatchWriteItemOutput::builder().build());
    let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, [&rule], |c| c
        .retry_config(RetryConfig::disabled()));
    let writer = Table::new(&client, "AppTable", TABLE).batch_writer();

    // The bad item is the 30th: without the check, the first batch of 25
    // would be written before DynamoDB refused the second.
    type Spoil = Box<dyn Fn(&mut Item)>;
    let bad_items: Vec<(ErrorKind, &str, Spoil)> = vec![
        (
            ErrorKind::ItemTooLarge,
            "over the limit of 409600 bytes",
            Box::new(|i: &mut Item| {
                i.insert("blob".into(), AttributeValue::S("x".repeat(410_000)));
            }),
        ),
        (
            ErrorKind::InvalidValue,
            "attribute `n` is not a number",
            Box::new(|i: &mut Item| {
                i.insert("n".into(), AttributeValue::N("NaN".into()));
            }),
        ),
        (
            ErrorKind::InvalidValue,
            "attribute `tags` is an empty string set",
            Box::new(|i: &mut Item| {
                i.insert("tags".into(), AttributeValue::Ss(vec![]));
            }),
        ),
        (
            ErrorKind::InvalidKey,
            "key attribute `sk` is empty",
            Box::new(|i: &mut Item| {
                i.insert("sk".into(), AttributeValue::S(String::new()));
            }),
        ),
    ];
    for (kind, needle, spoil) in bad_items {
        let mut items: Vec<Item> = (0..40).map(|i| note(&format!("N{i:02}"))).collect();
        spoil(&mut items[29]);
        let err = writer.put_items(items).await.unwrap_err();
        assert_eq!(err.kind(), kind, "{err}");
        assert!(err.to_string().contains(needle), "{err}");
        assert_eq!(rule.num_calls(), 0, "nothing sent for: {err}");
    }
    // Valid items go through.
    let items: Vec<Item> = (0..30).map(|i| note(&format!("N{i:02}"))).collect();
    writer.put_items(items).await.unwrap();
    assert_eq!(rule.num_calls(), 2);
}

#[test]
fn raw_transaction_puts_are_checked_when_added() {
    let mut item = note("N1");
    item.insert(
        "tags".into(),
        AttributeValue::Ns(vec!["1".into(), "1.0".into()]),
    );
    let key = Item::from([
        ("pk".to_owned(), item["pk"].clone()),
        ("sk".to_owned(), item["sk"].clone()),
    ]);
    let put = Put::builder()
        .table_name("AppTable")
        .set_item(Some(item))
        .build()
        .unwrap();
    let tx = Table::new(&offline_client(), "AppTable", TABLE).transaction();
    let err = tx
        .clone()
        .push(
            TransactWriteItem::builder().put(put).build(),
            ActionInfo::new(ActionKind::Put, "AppTable", "Note", key),
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidValue, "{err}");
    assert!(err.to_string().contains("duplicate"), "{err}");
}

#[test]
fn a_hook_cannot_write_an_item_under_another_entity_type() {
    let err = Impostor::to_item(&Note {
        id: "N1".into(),
        text: "hi".into(),
    })
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DiscriminatorMismatch);
    assert_eq!(
        err.to_string(),
        "Note: discriminator `entityType` is \"Task\", expected \"Note\""
    );
}

/// Keys the mapper renders from its patterns are not parsed back (#31), but
/// a hook that overwrites one is still checked against the pattern.
#[test]
fn a_rendered_key_a_hook_overwrote_is_checked_against_its_pattern() {
    use dynamodb_mapper::{GlobalSecondaryIndex, IndexKeys, KeyPattern};
    const T: TableSchema = TableSchema::new("pk")
        .sort_key("sk")
        .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);
    #[derive(Serialize, Deserialize)]
    struct Task {
        id: String,
        owner: String,
    }
    macro_rules! task_mapper {
        ($name:ident, $gsi1pk:expr) => {
            struct $name;
            impl Mapper for $name {
                type Entity = Task;
                const ENTITY_TYPE: &'static str = "Task";
                const SCHEMA: TableSchema = T;
                const KEY_PATTERNS: &'static [IndexKeys] = &[
                    IndexKeys::table(KeyPattern::partition("TASK#{id}"))
                        .sort(KeyPattern::sort("TASK")),
                    IndexKeys::index("GSI1", KeyPattern::partition("OWNER#{owner}"))
                        .sort(KeyPattern::sort("TASK#{id}")),
                ];
                fn after_to_item(t: &Task, item: &mut Item) -> dynamodb_mapper::Result<()> {
                    if let Some(value) = $gsi1pk(t) {
                        item.put_str("gsi1pk", value);
                    }
                    Ok(())
                }
            }
        };
    }
    task_mapper!(Untouched, |_: &Task| None::<String>);
    task_mapper!(SameValue, |t: &Task| Some(format!("OWNER#{}", t.owner)));
    task_mapper!(Overwrites, |_: &Task| Some("BOGUS".to_owned()));
    let task = Task {
        id: "t1".into(),
        owner: "ada".into(),
    };
    let item = Untouched::to_item(&task).unwrap();
    assert_eq!(item["gsi1pk"], AttributeValue::S("OWNER#ada".into()));
    assert_eq!(SameValue::to_item(&task).unwrap(), item);
    let err = Overwrites::to_item(&task).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidKey, "{err}");
    assert_eq!(err.attribute(), Some("gsi1pk"));
    assert_eq!(
        err.to_string(),
        "Task: key attribute `gsi1pk` is \"BOGUS\", which matches none of the key patterns \
         declared for index GSI1: OWNER#{owner}"
    );
}
