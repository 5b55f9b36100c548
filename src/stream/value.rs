//! Attribute values of the stream sources' own types (the Streams SDK's,
//! serde_dynamo's in Lambda events) as the DynamoDB SDK's, with nesting
//! bounded so no input can exhaust the stack.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::record::Which;
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

/// A whole image (or key) of a source type as an [`Item`].
///
/// # Errors
/// [`ErrorKind::InvalidStreamRecord`](crate::ErrorKind::InvalidStreamRecord)
/// for a value of an unknown type, or lists and maps nested deeper than
/// DynamoDB allows; the message names the image and the attribute.
pub(super) fn item_of<V: SourceValue>(
    image: HashMap<String, V>,
    what: &str,
    which: Which<'_>,
) -> Result<Item> {
    let mut out = Item::with_capacity(image.len());
    for (name, value) in image {
        let converted = convert(value, 0)
            .map_err(|reason| which.error(format!("its {what}'s attribute `{name}` {reason}")))?;
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
    item_of(keys, "keys", which)
}

fn convert<V: SourceValue>(value: V, depth: usize) -> std::result::Result<AttributeValue, String> {
    let opened = value.open()?;
    let nested = |children_depth: usize| {
        if children_depth > MAX_NESTING {
            Err(format!(
                "nests lists and maps {} or more levels deep; DynamoDB allows {MAX_NESTING}",
                MAX_NESTING + 1
            ))
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
                    .map(|v| convert(v, depth))
                    .collect::<std::result::Result<_, _>>()?,
            )
        }
        Opened::Map(map) => {
            let depth = nested(depth + 1)?;
            AttributeValue::M(
                map.into_iter()
                    .map(|(k, v)| convert(v, depth).map(|v| (k, v)))
                    .collect::<std::result::Result<_, _>>()?,
            )
        }
    })
}
