//! When two keys address the same item: DynamoDB's rules, in one place.
//!
//! Every duplicate check (batch write, batch get, transactions) and every
//! match of a service answer back to what was sent goes through
//! [`KeyId`]: strings compare by bytes, binaries by bytes, numbers by value
//! (`1`, `1.0`, `1E0` and `01` are one key).

use aws_sdk_dynamodb::types::AttributeValue;

use crate::item::{Item, canonical_number};

/// The identity of a primary key: its attributes, sorted by name, with
/// numbers reduced to one spelling per value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct KeyId(Vec<(String, Part)>);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Part {
    S(String),
    /// The canonical spelling of a valid number; the text itself for an
    /// invalid one (DynamoDB rejects it anyway).
    N(String),
    B(Vec<u8>),
    /// Not a key type: compared by its debug text, so that it is at least
    /// never equal to a valid key.
    Other(String),
}

impl KeyId {
    /// The identity of `key` (all its attributes are taken as key
    /// attributes; pass the output of `TableSchema::key_of`).
    pub(crate) fn of(key: &Item) -> KeyId {
        let mut parts: Vec<(String, Part)> = key
            .iter()
            .map(|(name, value)| {
                let part = match value {
                    AttributeValue::S(s) => Part::S(s.clone()),
                    AttributeValue::N(n) => {
                        Part::N(canonical_number(n).unwrap_or_else(|| n.clone()))
                    }
                    AttributeValue::B(b) => Part::B(b.as_ref().to_vec()),
                    other => Part::Other(format!("{other:?}")),
                };
                (name.clone(), part)
            })
            .collect();
        parts.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        KeyId(parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::primitives::Blob;

    fn key(pk: AttributeValue, sk: AttributeValue) -> Item {
        Item::from([("pk".to_string(), pk), ("sk".to_string(), sk)])
    }

    #[test]
    fn numbers_compare_by_value() {
        let s = || AttributeValue::S("A".into());
        let one = KeyId::of(&key(s(), AttributeValue::N("1".into())));
        for spelling in ["1.0", "1E0", "01", "+1", "10e-1", "0.1e1", "1.000"] {
            assert_eq!(
                KeyId::of(&key(s(), AttributeValue::N(spelling.into()))),
                one,
                "{spelling}"
            );
        }
        for other in ["2", "-1", "1.01", "10", "0"] {
            assert_ne!(
                KeyId::of(&key(s(), AttributeValue::N(other.into()))),
                one,
                "{other}"
            );
        }
        assert_eq!(
            KeyId::of(&key(s(), AttributeValue::N("0".into()))),
            KeyId::of(&key(s(), AttributeValue::N("-0.00".into())))
        );
    }

    #[test]
    fn strings_and_binaries_compare_by_bytes_and_types_differ() {
        let n = || AttributeValue::N("7".into());
        let s = KeyId::of(&key(AttributeValue::S("A".into()), n()));
        assert_eq!(s, KeyId::of(&key(AttributeValue::S("A".into()), n())));
        assert_ne!(s, KeyId::of(&key(AttributeValue::S("a".into()), n())));
        assert_ne!(s, KeyId::of(&key(AttributeValue::S("A ".into()), n())));
        let b = KeyId::of(&key(AttributeValue::B(Blob::new(b"A".to_vec())), n()));
        assert_ne!(s, b, "S and B are different keys");
        assert_eq!(
            b,
            KeyId::of(&key(AttributeValue::B(Blob::new(b"A".to_vec())), n()))
        );
        // "1" the string is not 1 the number.
        let one_s = KeyId::of(&key(AttributeValue::S("1".into()), n()));
        let one_n = KeyId::of(&key(AttributeValue::N("1".into()), n()));
        assert_ne!(one_s, one_n);
    }

    #[test]
    fn attribute_names_are_part_of_the_identity() {
        let a = Item::from([("pk".to_string(), AttributeValue::S("A".into()))]);
        let b = Item::from([("id".to_string(), AttributeValue::S("A".into()))]);
        assert_ne!(KeyId::of(&a), KeyId::of(&b));
    }
}
