//! Cursors round-trip every key, and refuse every altered signed token,
//! without panicking on any input.

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use proptest::prelude::*;

use super::Cursors;
use crate::ErrorKind;
use crate::item::Item;
use crate::schema::{GlobalSecondaryIndex, KeyAttribute, ScalarType, TableSchema};

const T: TableSchema = TableSchema::new("pk")
    .sort_key("sk")
    .indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk").keys(
        KeyAttribute::new("gsi1pk"),
        Some(KeyAttribute::typed("gsi1sk", ScalarType::N)),
    )]);
const BINARY: TableSchema = TableSchema::new("id").partition_key_type(ScalarType::B);

fn key_strategy(on_index: bool) -> impl Strategy<Value = Item> {
    (".{1,40}", ".{1,40}", ".{1,40}", any::<i64>()).prop_map(move |(pk, sk, gpk, n)| {
        let mut key = Item::from([
            ("pk".to_string(), AttributeValue::S(pk)),
            ("sk".to_string(), AttributeValue::S(sk)),
        ]);
        if on_index {
            key.insert("gsi1pk".into(), AttributeValue::S(gpk));
            key.insert("gsi1sk".into(), AttributeValue::N(n.to_string()));
        }
        key
    })
}

fn cursors(on_index: bool, secret: Option<&[u8]>) -> Cursors {
    let mut c = Cursors::new("Orders", T);
    if on_index {
        c = c.on_index("GSI1");
    }
    if let Some(s) = secret {
        c = c.signed_with(s);
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_key_round_trips(
        (on_index, key) in any::<bool>().prop_flat_map(|i| (Just(i), key_strategy(i))),
        signed in any::<bool>(),
    ) {
        let secret: Option<&[u8]> = signed.then_some(b"0123456789abcdef0123456789abcdef".as_slice());
        let c = cursors(on_index, secret);
        let token = c.encode(&key).unwrap();
        prop_assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        prop_assert_eq!(c.decode(&token).unwrap(), key);
    }

    #[test]
    fn binary_keys_round_trip(bytes in proptest::collection::vec(any::<u8>(), 1..64)) {
        let c = Cursors::new("Blobs", BINARY).signed_with(b"k");
        let key = Item::from([("id".to_string(), AttributeValue::B(Blob::new(bytes)))]);
        prop_assert_eq!(c.decode(&c.encode(&key).unwrap()).unwrap(), key);
    }

    /// Any change to a signed token is refused: a character replaced, the
    /// token cut or extended.
    #[test]
    fn altered_signed_tokens_are_refused(
        key in key_strategy(false),
        at in any::<prop::sample::Index>(),
        with in "[A-Za-z0-9_-]",
        cut in 1usize..8,
        tail in "[A-Za-z0-9_-]{1,8}",
    ) {
        let c = cursors(false, Some(b"secret"));
        let token = c.encode(&key).unwrap();
        let i = at.index(token.len());
        let mut replaced = token.clone();
        replaced.replace_range(i..=i, &with);
        let cut_short = token[..token.len().saturating_sub(cut)].to_owned();
        let extended = format!("{token}{tail}");
        for altered in [replaced, cut_short, extended] {
            if altered == token {
                continue;
            }
            match c.decode(&altered) {
                Err(e) => prop_assert_eq!(e.kind(), ErrorKind::InvalidCursor),
                // A change in the last character's padding bits only can
                // decode to the same bytes: the very same key, not a forged one.
                Ok(k) => prop_assert_eq!(k, key.clone()),
            }
        }
    }

    /// No input makes decoding panic; whatever decodes fits the layout.
    #[test]
    fn any_text_decodes_or_is_refused(text in ".{0,200}", b64 in "[A-Za-z0-9_-]{0,200}", signed in any::<bool>()) {
        let secret: Option<&[u8]> = signed.then_some(b"s".as_slice());
        for c in [cursors(false, secret), cursors(true, secret)] {
            for t in [&text, &b64] {
                match c.decode(t) {
                    Ok(key) => prop_assert!(c.check_key(&key).is_ok()),
                    Err(e) => prop_assert_eq!(e.kind(), ErrorKind::InvalidCursor),
                }
            }
        }
    }
}

#[test]
fn tokens_are_bound_to_their_table_index_and_secret() {
    let key = Item::from([
        ("pk".to_string(), AttributeValue::S("A".into())),
        ("sk".to_string(), AttributeValue::S("B".into())),
    ]);
    let unsigned = cursors(false, None).encode(&key).unwrap();
    let signed = cursors(false, Some(b"one")).encode(&key).unwrap();
    let msg = |c: Cursors, t: &str| c.decode(t).unwrap_err().to_string();
    assert_eq!(
        msg(cursors(false, Some(b"one")), &unsigned),
        "invalid pagination cursor: the token cannot be read: it is not signed, and these cursors must be"
    );
    assert_eq!(
        msg(cursors(false, None), &signed),
        "invalid pagination cursor: the token cannot be read: it is signed, but no secret was given to check it"
    );
    assert_eq!(
        msg(cursors(false, Some(b"two")), &signed),
        "invalid pagination cursor: the token cannot be read: its signature does not match: it was \
         altered, or signed with another secret"
    );
    assert_eq!(
        msg(Cursors::new("Other", T).signed_with(b"one"), &signed),
        "invalid pagination cursor: the token is for table Orders, not table Other"
    );
    // A key of the wrong shape, from the service or a client.
    let mut index_key = key.clone();
    index_key.insert("gsi1pk".into(), AttributeValue::S("G".into()));
    index_key.insert("gsi1sk".into(), AttributeValue::S("not a number".into()));
    assert_eq!(
        cursors(true, None)
            .encode(&index_key)
            .unwrap_err()
            .to_string(),
        "invalid pagination cursor: cannot encode a key of index GSI1 of table Orders: its key \
         attribute `gsi1sk` is a string (S), expected a number (N)"
    );
    assert_eq!(
        Cursors::new("Orders", T)
            .on_index("GSI9")
            .encode(&key)
            .unwrap_err()
            .to_string(),
        "invalid pagination cursor: cannot encode a key of index GSI9 of table Orders: GSI9 is \
         not an index of table Orders"
    );
    let mut extra = key.clone();
    extra.insert("note".into(), AttributeValue::S("x".into()));
    assert!(
        cursors(false, None)
            .encode(&extra)
            .unwrap_err()
            .to_string()
            .contains("`note`, which is not a key attribute")
    );
    // Debug never shows the secret.
    assert!(!format!("{:?}", cursors(false, Some(b"hunter2"))).contains("hunter2"));
}
