//! Attribute values of the stream sources' own types (the Streams SDK's,
//! serde_dynamo's in Lambda events) as the DynamoDB SDK's, with nesting
//! bounded so no input can exhaust the stack.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::change_record::Which;
use crate::error::Result;
use crate::item::{Item, MAX_NESTING};

/// One value of a source type, opened one level: a scalar or set already
/// converted, or a list or map whose members are still of the source type.
pub(super) enum Opened<V> {
    Value(AttributeValue),
    List(Vec<V>),
    Map(HashMap<String, V>),
}

/// A source's attribute value type.
pub(super) trait SourceValue: Sized {
    /// The value opened one level, or what it is when this crate does not
    /// know its type.
    fn open(self) -> std::result::Result<Opened<Self>, String>;
}

/// A whole image (or key) of a source type as an [`Item`]; `whose` names it
/// in errors (`new image's`, `keys'`).
///
/// # Errors
/// [`ErrorKind::InvalidStreamRecord`](crate::ErrorKind::InvalidStreamRecord)
/// for a value of an unknown type, or lists and maps nested deeper than
/// DynamoDB allows; the message names the image and the attribute path
/// (`meta.tags[1]`).
pub(super) fn item_of<V: SourceValue>(
    image: HashMap<String, V>,
    whose: &str,
    which: Which<'_>,
) -> Result<Item> {
    let mut out = Item::with_capacity(image.len());
    for (name, value) in image {
        let converted = convert(value, 0).map_err(|f| {
            which.error(format!(
                "its {whose} attribute `{name}{}` {}",
                f.below, f.reason
            ))
        })?;
        out.insert(name, converted);
    }
    Ok(out)
}

/// A record's keys, converted as [`item_of`] converts an image; a record
/// without them (DynamoDB sends them with every record, whatever the view
/// type) is
/// [`ErrorKind::InvalidStreamRecord`](crate::ErrorKind::InvalidStreamRecord):
/// its change could not be told to be any item's.
pub(super) fn keys_of<V: SourceValue>(keys: HashMap<String, V>, which: Which<'_>) -> Result<Item> {
    if keys.is_empty() {
        return Err(which.error("it has no keys"));
    }
    item_of(keys, "keys'", which)
}

/// Why a value could not be converted, and where below its attribute
/// (`[2].tags`), the path built on the way out of the failure only.
struct Failure {
    below: String,
    reason: String,
}

impl Failure {
    fn new(reason: String) -> Self {
        Failure {
            below: String::new(),
            reason,
        }
    }

    /// The failure one level up: `step` (`[i]` or `.key`) in front.
    fn under(mut self, step: std::fmt::Arguments<'_>) -> Self {
        self.below.insert_str(0, &step.to_string());
        self
    }
}

fn convert<V: SourceValue>(value: V, depth: usize) -> std::result::Result<AttributeValue, Failure> {
    let opened = value.open().map_err(Failure::new)?;
    let nested = |children_depth: usize| {
        if children_depth > MAX_NESTING {
            Err(Failure::new(format!(
                "nests lists and maps {} or more levels deep; DynamoDB allows {MAX_NESTING}",
                MAX_NESTING + 1
            )))
        } else {
            Ok(children_depth)
        }
    };
    Ok(match opened {
        Opened::Value(v) => v,
        Opened::List(list) => {
            let depth = nested(depth + 1)?;
            AttributeValue::L(
                list.into_iter()
                    .enumerate()
                    .map(|(i, v)| convert(v, depth).map_err(|f| f.under(format_args!("[{i}]"))))
                    .collect::<std::result::Result<_, _>>()?,
            )
        }
        Opened::Map(map) => {
            let depth = nested(depth + 1)?;
            AttributeValue::M(
                map.into_iter()
                    .map(|(k, v)| match convert(v, depth) {
                        Ok(v) => Ok((k, v)),
                        Err(f) => Err(f.under(format_args!(".{k}"))),
                    })
                    .collect::<std::result::Result<_, _>>()?,
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source type with a value this crate cannot convert.
    enum Fake {
        S(&'static str),
        L(Vec<Fake>),
        M(Vec<(&'static str, Fake)>),
        Unknown,
    }

    impl SourceValue for Fake {
        fn open(self) -> std::result::Result<Opened<Self>, String> {
            match self {
                Fake::S(s) => Ok(Opened::Value(AttributeValue::S(s.into()))),
                Fake::L(l) => Ok(Opened::List(l)),
                Fake::M(m) => Ok(Opened::Map(
                    m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
                )),
                Fake::Unknown => Err("is of a type this crate does not know".into()),
            }
        }
    }

    /// The error names the whole path down to the value, through lists
    /// and maps.
    #[test]
    fn an_unknown_value_is_named_by_its_path() {
        let which = Which {
            event_id: "e1",
            sequence_number: Some("7"),
        };
        let image = HashMap::from([
            ("ok".to_owned(), Fake::S("fine")),
            (
                "meta".to_owned(),
                Fake::M(vec![(
                    "tags",
                    Fake::L(vec![Fake::S("a"), Fake::M(vec![("x", Fake::Unknown)])]),
                )]),
            ),
        ]);
        let err = item_of(image, "new image's", which).unwrap_err();
        assert_eq!(
            err.to_string(),
            "stream record \"e1\" cannot be read: its new image's attribute `meta.tags[1].x` \
             is of a type this crate does not know"
        );
        // At the top level, the attribute alone.
        let image = HashMap::from([("odd".to_owned(), Fake::Unknown)]);
        let err = item_of(image, "keys'", which).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("its keys' attribute `odd` is of a type this crate does not know"),
            "{err}"
        );
    }
}
