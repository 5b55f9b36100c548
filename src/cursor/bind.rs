//! What binds a cursor to its query: a SHA-256 digest of everything that
//! decides which items a query returns and in what order (index, key
//! condition, filter, their names and values, direction). A token issued
//! for one query is refused by another, before anything is sent: another
//! partition, another range, another filter.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use sha2::{Digest, Sha256};

/// The parts of a query a cursor is bound to.
pub(crate) struct QueryShape<'a> {
    pub(crate) index: Option<&'a str>,
    pub(crate) key_condition: Option<&'a str>,
    pub(crate) filter: Option<&'a str>,
    pub(crate) names: Option<&'a HashMap<String, String>>,
    pub(crate) values: Option<&'a HashMap<String, AttributeValue>>,
    pub(crate) forward: Option<bool>,
}

/// Feeds `bytes` with its length, so no two sequences of parts collide.
fn part(hash: &mut Sha256, bytes: &[u8]) {
    hash.update((bytes.len() as u64).to_le_bytes());
    hash.update(bytes);
}

fn optional(hash: &mut Sha256, text: Option<&str>) {
    match text {
        None => hash.update([0]),
        Some(t) => {
            hash.update([1]);
            part(hash, t.as_bytes());
        }
    }
}

/// Feeds a value in one canonical form: map members and set members
/// sorted, each with a type tag and lengths. Walks with an explicit stack,
/// so a value of any depth is fed without recursion.
fn value(hash: &mut Sha256, value: &AttributeValue) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            AttributeValue::S(s) => {
                hash.update(b"S");
                part(hash, s.as_bytes());
            }
            AttributeValue::N(n) => {
                hash.update(b"N");
                part(hash, n.as_bytes());
            }
            AttributeValue::B(b) => {
                hash.update(b"B");
                part(hash, b.as_ref());
            }
            AttributeValue::Bool(b) => hash.update(if *b { b"T" } else { b"F" }),
            AttributeValue::Null(_) => hash.update(b"0"),
            AttributeValue::Ss(set) | AttributeValue::Ns(set) => {
                hash.update(if matches!(v, AttributeValue::Ss(_)) {
                    b"s"
                } else {
                    b"n"
                });
                let mut members: Vec<&String> = set.iter().collect();
                members.sort();
                hash.update((members.len() as u64).to_le_bytes());
                for m in members {
                    part(hash, m.as_bytes());
                }
            }
            AttributeValue::Bs(set) => {
                hash.update(b"b");
                let mut members: Vec<&[u8]> = set.iter().map(AsRef::as_ref).collect();
                members.sort();
                hash.update((members.len() as u64).to_le_bytes());
                for m in members {
                    part(hash, m);
                }
            }
            AttributeValue::L(list) => {
                hash.update(b"L");
                hash.update((list.len() as u64).to_le_bytes());
                stack.extend(list.iter().rev());
            }
            AttributeValue::M(map) => {
                hash.update(b"M");
                let mut members: Vec<(&String, &AttributeValue)> = map.iter().collect();
                members.sort_by(|a, b| a.0.cmp(b.0));
                hash.update((members.len() as u64).to_le_bytes());
                // Names now, values as the stack unwinds, in the same order.
                for (name, _) in &members {
                    part(hash, name.as_bytes());
                }
                stack.extend(members.iter().rev().map(|(_, v)| *v));
            }
            // A type this crate does not know: its debug text is all there is.
            other => {
                hash.update(b"?");
                part(hash, format!("{other:?}").as_bytes());
            }
        }
    }
}

/// The digest a cursor of `query` carries.
/// The digest that binds a checkpoint to a sweep (`what` names the segment):
/// a domain of its own, so no query's digest equals it.
pub(crate) fn sweep_digest(what: &str) -> Vec<u8> {
    let mut hash = Sha256::new();
    hash.update(b"dynamodb-mapper sweep v1");
    part(&mut hash, what.as_bytes());
    hash.finalize().to_vec()
}

pub(crate) fn digest(query: &QueryShape<'_>) -> Vec<u8> {
    let mut hash = Sha256::new();
    hash.update(b"dynamodb-mapper query v1");
    optional(&mut hash, query.index);
    optional(&mut hash, query.key_condition);
    optional(&mut hash, query.filter);
    let mut names: Vec<(&String, &String)> = query.names.into_iter().flatten().collect();
    names.sort();
    hash.update((names.len() as u64).to_le_bytes());
    for (placeholder, name) in names {
        part(&mut hash, placeholder.as_bytes());
        part(&mut hash, name.as_bytes());
    }
    let mut values: Vec<(&String, &AttributeValue)> = query.values.into_iter().flatten().collect();
    values.sort_by(|a, b| a.0.cmp(b.0));
    hash.update((values.len() as u64).to_le_bytes());
    for (placeholder, v) in values {
        part(&mut hash, placeholder.as_bytes());
        value(&mut hash, v);
    }
    hash.update([match query.forward {
        None => 0,
        Some(true) => 1,
        Some(false) => 2,
    }]);
    hash.finalize().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape<'a>(
        key_condition: &'a str,
        values: &'a HashMap<String, AttributeValue>,
    ) -> QueryShape<'a> {
        QueryShape {
            index: None,
            key_condition: Some(key_condition),
            filter: None,
            names: None,
            values: Some(values),
            forward: None,
        }
    }

    #[test]
    fn one_query_one_digest_and_any_change_another() {
        let map = |pairs: &[(&str, &str)]| {
            AttributeValue::M(
                pairs
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), AttributeValue::S((*v).to_owned())))
                    .collect(),
            )
        };
        // Built twice, in other orders: hash maps iterate differently.
        let a = HashMap::from([
            (":p".to_owned(), AttributeValue::S("CUSTOMER#C1".into())),
            (":m".to_owned(), map(&[("a", "1"), ("b", "2"), ("c", "3")])),
        ]);
        let b = HashMap::from([
            (":m".to_owned(), map(&[("c", "3"), ("a", "1"), ("b", "2")])),
            (":p".to_owned(), AttributeValue::S("CUSTOMER#C1".into())),
        ]);
        assert_eq!(digest(&shape("pk = :p", &a)), digest(&shape("pk = :p", &b)));
        let other = HashMap::from([
            (":p".to_owned(), AttributeValue::S("CUSTOMER#C2".into())),
            (":m".to_owned(), map(&[("a", "1"), ("b", "2"), ("c", "3")])),
        ]);
        assert_ne!(
            digest(&shape("pk = :p", &a)),
            digest(&shape("pk = :p", &other))
        );
        assert_ne!(digest(&shape("pk = :p", &a)), digest(&shape("pk = :q", &a)));
        let mut reversed = shape("pk = :p", &a);
        reversed.forward = Some(false);
        assert_ne!(digest(&shape("pk = :p", &a)), digest(&reversed));
        // A list and a map of the same strings differ.
        let list = HashMap::from([(
            ":m".to_owned(),
            AttributeValue::L(vec![AttributeValue::S("a".into())]),
        )]);
        let set = HashMap::from([(":m".to_owned(), AttributeValue::Ss(vec!["a".into()]))]);
        assert_ne!(digest(&shape("x", &list)), digest(&shape("x", &set)));
    }

    #[test]
    fn a_deep_value_is_fed_without_recursion() {
        let mut v = AttributeValue::S("x".into());
        for _ in 0..100_000 {
            v = AttributeValue::L(vec![v]);
        }
        let values = HashMap::from([(":v".to_owned(), v)]);
        assert_eq!(digest(&shape("k", &values)).len(), 32);
        crate::item::drop_item(values);
    }
}
