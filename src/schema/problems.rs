//! The layout itself checked: what DynamoDB's `CreateTable` would refuse
//! (index key counts and order, duplicate names, one attribute declared with
//! two types), found before any request.

use super::{GlobalSecondaryIndex, KeyAttribute, MAX_INDEX_KEY_ATTRIBUTES, TableSchema};

impl TableSchema {
    /// What is wrong with the layout, one lowercase message per problem:
    /// empty when nothing is. Checked: every attribute and index name is
    /// non-empty; index names are distinct; each index has 1 to 4
    /// partition key attributes and at most as
    /// many sort key attributes, none named twice in one index; an attribute
    /// used as a key by the table and several indexes has one type
    /// everywhere. [`MapperExt::check`](crate::MapperExt::check) reports
    /// these for every mapper of the table, and
    /// [`TableDefinition`](crate::TableDefinition)'s requests are only
    /// meaningful for a layout without problems.
    #[must_use]
    pub(crate) fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let table = std::iter::once(self.partition_key).chain(self.sort_key);
        for key in table.clone() {
            if key.name.is_empty() {
                out.push("the table has a key attribute with an empty name".to_owned());
            }
        }
        for (i, index) in self.indexes.iter().enumerate() {
            index_problems(index, &mut out);
            if self.indexes[..i].iter().any(|o| o.name == index.name) {
                out.push(format!("index {} is declared twice", index.name));
            }
        }
        // One type per attribute name, wherever it is a key.
        let mut seen: Vec<(KeyAttribute, String)> = Vec::new();
        let all = table.map(|k| (k, "the table".to_owned())).chain(
            self.indexes
                .iter()
                .flat_map(|i| i.key_attributes().map(|k| (k, format!("index {}", i.name)))),
        );
        for (key, on) in all {
            match seen.iter().find(|(k, _)| k.name == key.name) {
                Some((k, first)) if k.scalar_type != key.scalar_type => out.push(format!(
                    "key attribute `{}` is {} in {first} and {} in {on}",
                    key.name,
                    k.scalar_type.describe(),
                    key.scalar_type.describe()
                )),
                Some(_) => {}
                None => seen.push((key, on)),
            }
        }
        out
    }
}

fn index_problems(index: &GlobalSecondaryIndex, out: &mut Vec<String>) {
    let name = index.name;
    if name.is_empty() {
        out.push("an index has an empty name".to_owned());
    }
    let max = MAX_INDEX_KEY_ATTRIBUTES;
    match index.partition_keys().len() {
        0 => out.push(format!(
            "index {name} has no partition key attribute; an index has 1 to {max}"
        )),
        n if n > max => out.push(format!(
            "index {name} has {n} partition key attributes; an index has 1 to {max}"
        )),
        _ => {}
    }
    let sorts = index.sort_keys().len();
    if sorts > max {
        out.push(format!(
            "index {name} has {sorts} sort key attributes; an index has at most {max}"
        ));
    }
    let keys: Vec<KeyAttribute> = index.key_attributes().collect();
    for (i, key) in keys.iter().enumerate() {
        if key.name.is_empty() {
            out.push(format!(
                "index {name} has a key attribute with an empty name"
            ));
        } else if keys[..i].iter().any(|k| k.name == key.name) {
            out.push(format!(
                "index {name} names key attribute `{}` twice",
                key.name
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{GlobalSecondaryIndex, KeyAttribute, ScalarType, TableSchema};

    const K: KeyAttribute = KeyAttribute::new("a");

    #[test]
    fn a_sound_layout_has_no_problems() {
        const T: TableSchema = TableSchema::new("pk").sort_key("sk").indexes(&[
            GlobalSecondaryIndex::new("GSI1", "sk").sort_key("pk"),
            GlobalSecondaryIndex::multi_attribute(
                "M",
                &[
                    K,
                    KeyAttribute::new("b"),
                    KeyAttribute::new("c"),
                    KeyAttribute::new("d"),
                ],
                &[
                    KeyAttribute::typed("e", ScalarType::N),
                    KeyAttribute::new("f"),
                    KeyAttribute::new("g"),
                    KeyAttribute::typed("h", ScalarType::B),
                ],
            ),
        ]);
        assert!(T.problems().is_empty(), "{:?}", T.problems());
    }

    #[test]
    fn every_layout_problem_is_reported() {
        const FIVE: &[KeyAttribute] = &[
            KeyAttribute::new("a"),
            KeyAttribute::new("b"),
            KeyAttribute::new("c"),
            KeyAttribute::new("d"),
            KeyAttribute::new("e"),
        ];
        const T: TableSchema = TableSchema::new("").indexes(&[
            GlobalSecondaryIndex::multi_attribute("X", FIVE, FIVE),
            GlobalSecondaryIndex::multi_attribute("X", &[K, K], &[]),
            GlobalSecondaryIndex::new("", "x").keys(KeyAttribute::typed("a", ScalarType::N), None),
        ]);
        let problems = T.problems();
        for expected in [
            "the table has a key attribute with an empty name",
            "index X has 5 partition key attributes; an index has 1 to 4",
            "index X has 5 sort key attributes; an index has at most 4",
            "index X names key attribute `a` twice",
            "index X is declared twice",
            "an index has an empty name",
            "key attribute `a` is a string (S) in index X and a number (N) in index ",
        ] {
            assert!(
                problems.iter().any(|p| p.starts_with(expected)),
                "{expected:?} not in {problems:#?}"
            );
        }
    }
}
