//! Opaque cursors (#19) on a real emulator: every item read exactly once
//! across pages, pages emptied by a filter still lead on, and tokens bound
//! to their table, index, secret and query (#29).

use dynamodb_mapper::cursor::Cursors;
use dynamodb_mapper::expr::{Apply, attr};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{
    ErrorKind, GlobalSecondaryIndex, IndexKeys, KeyPattern, Mapper, MapperExt, Registry,
    TableSchema,
};
use dynamodb_mapper_support::local;
use serde::{Deserialize, Serialize};

const T: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").sort_key("gsi1sk")]);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Event {
    stream: String,
    seq: u32,
    kind: String,
}

struct EventMapper;
impl Mapper for EventMapper {
    type Entity = Event;
    const ENTITY_TYPE: &'static str = "Event";
    const SCHEMA: TableSchema = T;
    const KEY_PATTERNS: &'static [IndexKeys] = &[
        IndexKeys::table(KeyPattern::partition("STREAM#{stream}"))
            .sort(KeyPattern::sort("SEQ#{seq:u4}")),
        IndexKeys::index("GSI1", KeyPattern::partition("KIND#{kind}"))
            .sort(KeyPattern::sort("SEQ#{seq:u4}")),
    ];
}

const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

async fn table_of_events() -> (Table, Registry<Event>) {
    let events: Vec<Event> = (0..25)
        .map(|seq| Event {
            stream: "s1".into(),
            seq,
            kind: if seq < 10 { "a".into() } else { "b".into() },
        })
        .collect();
    let items = events
        .iter()
        .map(|e| EventMapper::to_item(e).unwrap())
        .collect();
    let (client, name, written) = local::table_with_items("cursors", T, items).await;
    assert_eq!(written.items, 25);
    let registry = Registry::builder()
        .register::<EventMapper>(|e| e)
        .build()
        .unwrap();
    (Table::new(&client, &name, T), registry)
}

#[tokio::test]
async fn every_item_is_read_once_across_pages_even_through_empty_pages() {
    let (table, registry) = table_of_events().await;
    let cursors = Cursors::new(table.name(), T).signed_with(SECRET);
    let query = || {
        EventMapper::lookup()
            .with("stream", "s1")
            .query(&table)
            .unwrap()
            .limit(10)
    };
    let mut seen = Vec::new();
    let mut sizes = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = table
            .query_page(query(), &registry, &cursors, cursor.as_deref())
            .await
            .unwrap();
        sizes.push(page.items.entities.len());
        seen.extend(page.items.entities.into_iter().map(|e| e.seq));
        match page.next {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, (0..25).collect::<Vec<u32>>());
    assert_eq!(&sizes[..3], [10, 10, 5]);

    // A filter that empties the first page: it comes back empty with a
    // cursor, and the next pages hold the rest.
    let filtered = || query().apply(attr("kind").eq("b")).unwrap();
    let first = table
        .query_page(filtered(), &registry, &cursors, None)
        .await
        .unwrap();
    assert!(first.items.entities.is_empty());
    let mut cursor = first.next.clone();
    assert!(cursor.is_some(), "an empty page still leads on");
    let mut rest = Vec::new();
    while let Some(token) = cursor {
        let page = table
            .query_page(filtered(), &registry, &cursors, Some(&token))
            .await
            .unwrap();
        rest.extend(page.items.entities.into_iter().map(|e| e.seq));
        cursor = page.next;
    }
    assert_eq!(rest, (10..25).collect::<Vec<u32>>());
}

#[tokio::test]
async fn tokens_from_elsewhere_are_refused_before_sending() {
    let (table, registry) = table_of_events().await;
    let on_table = Cursors::new(table.name(), T).signed_with(SECRET);
    let on_index = on_table.clone().on_index("GSI1");
    let by_kind = || {
        EventMapper::lookup()
            .on_index("GSI1")
            .with("kind", "b")
            .query(&table)
            .unwrap()
            .limit(4)
    };
    let index_page = table
        .query_page(by_kind(), &registry, &on_index, None)
        .await
        .unwrap();
    let index_token = index_page.next.unwrap();
    // The next index page follows on.
    let next = table
        .query_page(by_kind(), &registry, &on_index, Some(&index_token))
        .await
        .unwrap();
    let seqs: Vec<u32> = next.items.entities.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [14, 15, 16, 17]);

    let stream = || {
        EventMapper::lookup()
            .with("stream", "s1")
            .query(&table)
            .unwrap()
            .limit(4)
    };
    // An index token on the table query.
    let err = table
        .query_page(stream(), &registry, &on_table, Some(&index_token))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidCursor);
    assert!(err.to_string().contains("is for index GSI1"), "{err}");
    // Cursors for the index on a table query.
    let err = table
        .query_page(stream(), &registry, &on_index, None)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "invalid pagination cursor: the query reads table {0}, the cursors are for index \
             GSI1 of table {0}",
            table.name()
        )
    );
    // A token altered by the client.
    let mut forged = index_token.clone();
    let last = forged.pop().unwrap();
    forged.push(if last == 'A' { 'B' } else { 'A' });
    let err = table
        .query_page(by_kind(), &registry, &on_index, Some(&forged))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidCursor);
    // An unsigned token where signed ones are expected.
    let item = EventMapper::to_item(&Event {
        stream: "s1".into(),
        seq: 13,
        kind: "b".into(),
    })
    .unwrap();
    let key = ["pk", "sk", "gsi1pk", "gsi1sk"]
        .into_iter()
        .map(|a| (a.to_owned(), item[a].clone()))
        .collect();
    let unsigned = Cursors::new(table.name(), T)
        .on_index("GSI1")
        .encode(&key)
        .unwrap();
    let err = table
        .query_page(by_kind(), &registry, &on_index, Some(&unsigned))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not signed"), "{err}");
}

#[tokio::test]
async fn a_cursor_continues_only_the_query_that_issued_it() {
    let (table, registry) = table_of_events().await;
    let cursors = Cursors::new(table.name(), T)
        .on_index("GSI1")
        .signed_with(SECRET);
    let by_kind = |kind: &str| {
        EventMapper::lookup()
            .on_index("GSI1")
            .with("kind", kind)
            .query(&table)
            .unwrap()
            .limit(3)
    };
    let first = table
        .query_page(by_kind("b"), &registry, &cursors, None)
        .await
        .unwrap();
    let token = first.next.unwrap();
    // Correctly signed, same table and index, but another partition,
    // another filter, another order: refused before anything is sent.
    let other_queries = [
        by_kind("a"),
        by_kind("b").apply(attr("seq").gt(20)).unwrap(),
        by_kind("b").scan_index_forward(false),
    ];
    for query in other_queries {
        let err = table
            .query_page(query, &registry, &cursors, Some(&token))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidCursor, "{err}");
        assert_eq!(
            err.to_string(),
            format!(
                "invalid pagination cursor: the token is for another query (its index, key \
                 condition, filter, values or order differ): a cursor only continues the query \
                 that issued it, on index GSI1 of table {}",
                table.name()
            )
        );
    }
    // The same query, built again, continues.
    let next = table
        .query_page(by_kind("b"), &registry, &cursors, Some(&token))
        .await
        .unwrap();
    let seqs: Vec<u32> = next.items.entities.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [13, 14, 15]);
    // A bound token is not a bare key, and a bare key's token does not
    // continue a query.
    let err = cursors.decode(&token).unwrap_err();
    assert!(err.to_string().contains("bound to a query"), "{err}");
    let bare = cursors
        .encode(
            &EventMapper::to_item(&first.items.entities[2])
                .map(|item| {
                    ["pk", "sk", "gsi1pk", "gsi1sk"]
                        .into_iter()
                        .map(|a| (a.to_owned(), item[a].clone()))
                        .collect()
                })
                .unwrap(),
        )
        .unwrap();
    let err = table
        .query_page(by_kind("b"), &registry, &cursors, Some(&bare))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not bound to a query"), "{err}");
}
