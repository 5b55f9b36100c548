//! How an [`Error`] prints: its message (the entity type and key in
//! front, then what was wrong), its sources after it with `{:#}`, and the
//! pieces the messages are made of (lists, counts, found/expected parts).

use std::fmt;

use super::{CanceledAction, Error, Repr, Unwritten};

impl fmt::Display for Error {
    /// This error's message; with `{:#}`, followed by each of its sources,
    /// joined with `: `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(at) = &self.0.image {
            write!(f, "stream record {:?}, {} image: ", at.event_id, at.image)?;
        }
        self.message(f)?;
        if f.alternate() {
            let mut source = std::error::Error::source(self);
            while let Some(cause) = source {
                write!(f, ": {cause}")?;
                source = cause.source();
            }
        }
        Ok(())
    }
}

impl Error {
    /// The message: never a source's text (that is the source's own).
    fn message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entity_type = self.entity_type();
        let key = self.key().unwrap_or_default();
        let attribute = self.attribute().unwrap_or_default();
        let prefix = Prefix(entity_type);
        let keyed = KeyedPrefix(entity_type, self.key());
        match &self.0.repr {
            Repr::DiscriminatorMismatch { expected, found } => write!(
                f,
                "{keyed}discriminator `{attribute}` is {found:?}, expected {}",
                Expected(expected)
            ),
            Repr::MissingDiscriminator { found } => write!(
                f,
                "{keyed}discriminator `{attribute}` is missing{}",
                Found(found.as_deref())
            ),
            Repr::Serialize(_) => {
                write!(f, "{prefix}cannot serialize{}", At(self.attribute()))
            }
            Repr::Deserialize(_) => {
                write!(f, "{keyed}cannot deserialize{}", At(self.attribute()))
            }
            Repr::InvalidKey { reason } => {
                write!(f, "{prefix}key attribute `{attribute}` {reason}")
            }
            Repr::ItemTooLarge {
                size,
                limit,
                largest,
            } => write!(
                f,
                "{keyed}item is {size} bytes, over the limit of {limit} bytes{}",
                Largest(largest)
            ),
            Repr::InvalidValue { reason } => write!(f, "{keyed}attribute `{attribute}` {reason}"),
            Repr::MissingAttribute { projected: false } => {
                write!(f, "{keyed}attribute `{attribute}` is missing")
            }
            Repr::MissingAttribute { projected: true } => write!(
                f,
                "{keyed}attribute `{attribute}` is missing: the projection does not include it \
                 (add it to the projection expression or the index's projection, or read the \
                 whole item)"
            ),
            Repr::WrongType { expected, found } => write!(
                f,
                "{keyed}attribute `{attribute}` is {found}, expected {expected}"
            ),
            Repr::Hook { hook, .. } => write!(f, "{keyed}hook `{hook}` failed"),
            Repr::UnknownEntityType {
                found,
                group,
                known,
            } => write!(
                f,
                "{keyed}discriminator `{attribute}` is {found:?}, which {}",
                NoReader(group.as_deref(), known)
            ),
            Repr::InvalidRegistry { problems } => write!(
                f,
                "invalid registry ({}): {}",
                Counted(problems.len(), "problem"),
                Joined(problems)
            ),
            Repr::InvalidMapper { problems } => write!(
                f,
                "{prefix}invalid mapper ({}): {}",
                Counted(problems.len(), "problem"),
                Joined(problems)
            ),
            Repr::NotRegistered { what, name } => write!(f, "{what} {name:?} is not registered"),
            Repr::InvalidFilter { reason } => {
                write!(f, "discriminator filter on `{attribute}` {reason}")
            }
            Repr::Cardinality { expected, found } => {
                write!(f, "{prefix}expected {expected} item, found {found}")
            }
            Repr::UnclaimedItems {
                discriminator,
                counts,
            } => write!(
                f,
                "{} not claimed: {}",
                Unclaimed(counts),
                UnclaimedList(counts, discriminator)
            ),
            Repr::Sdk { operation, .. } => write!(f, "dynamodb {operation} failed"),
            Repr::BatchWriteIncomplete {
                table,
                unwritten:
                    Unwritten {
                        written,
                        unprocessed,
                        in_doubt,
                    },
                attempts,
                ..
            } => write!(
                f,
                "batch write to {table} wrote {written} of {} requests: {} not written, {} in \
                 doubt, after {attempts} attempts",
                written + unprocessed.len() + in_doubt.len(),
                unprocessed.len(),
                in_doubt.len()
            ),
            Repr::BatchGetIncomplete {
                table,
                unread,
                attempts,
                ..
            } => write!(
                f,
                "batch get from {table} left {} keys unread ({} items read) after {attempts} \
                 attempts",
                unread.unprocessed.len(),
                unread.read.len()
            ),
            Repr::Timeout {
                operation,
                after,
                deadline: false,
            } => write!(f, "dynamodb {operation} got no answer within {after:?}"),
            Repr::Timeout {
                operation,
                after,
                deadline: true,
            } => write!(
                f,
                "dynamodb {operation} ran out of the helper's deadline of {after:?}"
            ),
            Repr::TableNotActive {
                table,
                after,
                status,
            } => write!(
                f,
                "table {table} is not active after {after:?}: it is {status}"
            ),
            Repr::TableExists { table, .. } => write!(f, "table {table} already exists"),
            Repr::ClientConfig { operation, reason } => {
                write!(f, "the client cannot run dynamodb {operation}: {reason}")
            }
            Repr::InvalidCursor { reason } => write!(f, "invalid pagination cursor: {reason}"),
            Repr::InvalidStreamRecord {
                event_id, reason, ..
            } => {
                write!(f, "stream record {event_id:?} cannot be read: {reason}")
            }
            Repr::UnexpectedResponse { operation, reason } => write!(
                f,
                "dynamodb {operation} returned an unexpected response: {reason}"
            ),
            Repr::VersionCheckRequired { operation, instead } => write!(
                f,
                "{prefix}{operation} of {key} would skip the version check on `{attribute}`; \
                 use {instead}"
            ),
            Repr::DuplicateKey { operation } => write!(
                f,
                "{operation} addresses the item {key} twice; nothing was sent"
            ),
            Repr::VersionConflict { expected } => write!(
                f,
                "{prefix}version conflict on {key}: {}",
                Expected2(*expected)
            ),
            Repr::NotFound => write!(f, "{prefix}no item at {key}"),
            Repr::PartialRecord { projection } => write!(
                f,
                "{prefix}the record of {key} was read through the projection `{projection}`, \
                 so it cannot be written whole: that would drop every attribute the projection \
                 left out; update the fields it holds (Table::update_versioned) or read the \
                 whole item"
            ),
            Repr::MaybeApplied { operation, .. } => write!(
                f,
                "{prefix}dynamodb {operation} of {key} may have been applied: no credible answer \
                 came (read the item to know)"
            ),
            Repr::TransactionCanceled { canceled, .. } => {
                write!(f, "transaction canceled: {}", Canceled(canceled))
            }
            Repr::Limit { what, count, limit } => write!(
                f,
                "{what} has {count} entries, more than dynamodb's limit of {limit}"
            ),
            Repr::InvalidKeyPattern { pattern, reason } => match self.attribute() {
                Some(attribute) => write!(
                    f,
                    "{prefix}key attribute `{attribute}`: key pattern `{pattern}` {reason}"
                ),
                None => write!(f, "{prefix}key pattern `{pattern}` {reason}"),
            },
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.repr {
            Repr::Serialize(source) | Repr::Deserialize(source) => Some(source),
            Repr::Hook { source, .. } | Repr::Sdk { source, .. } => Some(&**source),
            Repr::TransactionCanceled { source, .. } | Repr::TableExists { source, .. } => {
                Some(&**source)
            }
            Repr::BatchWriteIncomplete { cause, .. } | Repr::BatchGetIncomplete { cause, .. } => {
                cause.as_ref().map(|c| c as _)
            }
            Repr::MaybeApplied { cause, .. } => Some(cause),
            _ => None,
        }
    }
}

impl fmt::Debug for Error {
    /// The kind, what the error is about, and the kind's own data.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("Error");
        out.field("kind", &self.kind());
        if let Some(entity_type) = self.entity_type() {
            out.field("entity_type", &entity_type);
        }
        if let Some(key) = self.key() {
            out.field("key", &key);
        }
        if let Some(attribute) = self.attribute() {
            out.field("attribute", &attribute);
        }
        out.field("data", &self.0.repr).finish()
    }
}

struct Prefix<'a>(Option<&'a str>);
impl fmt::Display for Prefix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(t) => write!(f, "{t}: "),
            None => Ok(()),
        }
    }
}

/// The entity type and the item's key: `Customer (pk="C#1", sk="M"): `, or
/// `item (pk="C#1"): ` without an entity type.
struct KeyedPrefix<'a>(Option<&'a str>, Option<&'a str>);
impl fmt::Display for KeyedPrefix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0, self.1) {
            (Some(t), Some(k)) => write!(f, "{t} ({k}): "),
            (Some(t), None) => write!(f, "{t}: "),
            (None, Some(k)) => write!(f, "item ({k}): "),
            (None, None) => Ok(()),
        }
    }
}

struct Largest<'a>(&'a [(String, usize)]);
impl fmt::Display for Largest<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, size)) in self.0.iter().enumerate() {
            let lead = if i == 0 {
                "; largest attributes: "
            } else {
                ", "
            };
            write!(f, "{lead}`{name}` {size} bytes")?;
        }
        Ok(())
    }
}

struct At<'a>(Option<&'a str>);
impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, " attribute `{p}`"),
            None => Ok(()),
        }
    }
}

struct Found<'a>(Option<&'a str>);
impl fmt::Display for Found<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, " (found {p})"),
            None => Ok(()),
        }
    }
}

struct Expected2(Option<u64>);
impl fmt::Display for Expected2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(v) => write!(
                f,
                "expected version {v}, another writer changed or deleted the item"
            ),
            None => f.write_str(
                "expected no item (or, for a record read, an item without a version), \
                 but another writer got there first",
            ),
        }
    }
}

struct Canceled<'a>(&'a [CanceledAction]);
impl fmt::Display for Canceled<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("no reason given");
        }
        for (i, action) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{action}")?;
        }
        Ok(())
    }
}

struct Expected<'a>(&'a [String]);
impl fmt::Display for Expected<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [one] => write!(f, "{one:?}"),
            many => {
                f.write_str("one of ")?;
                for (i, v) in many.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v:?}")?;
                }
                Ok(())
            }
        }
    }
}

struct NoReader<'a>(Option<&'a str>, &'a [String]);
impl fmt::Display for NoReader<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("no registered mapper reads (registered: ")?,
            Some(g) => write!(f, "no mapper of group {g:?} reads (members: ")?,
        }
        for (i, v) in self.1.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{v:?}")?;
        }
        f.write_str(")")
    }
}

struct Counted(usize, &'static str);
impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.0 == 1 { "" } else { "s" };
        write!(f, "{} {}{s}", self.0, self.1)
    }
}

struct Joined<'a>(&'a [String]);
impl fmt::Display for Joined<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            f.write_str(p)?;
        }
        Ok(())
    }
}

struct Unclaimed<'a>(&'a [(Option<String>, usize)]);
impl fmt::Display for Unclaimed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n: usize = self.0.iter().map(|(_, c)| c).sum();
        if n == 1 {
            f.write_str("1 item was")
        } else {
            write!(f, "{n} items were")
        }
    }
}

struct UnclaimedList<'a>(&'a [(Option<String>, usize)], &'a str);
impl fmt::Display for UnclaimedList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (value, count)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match value {
                Some(v) => write!(f, "{count} of {v:?}")?,
                None => write!(f, "{count} without discriminator `{}`", self.1)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::super::{Error, Unwritten};

    #[test]
    fn a_batch_prints_its_cause_once_and_the_cause_its_own() {
        let sdk = Error::sdk("BatchWriteItem", "connection reset");
        let err = Error::batch_write_incomplete(
            "AppTable".to_owned(),
            Unwritten::default(),
            1,
            Some(sdk),
        );
        let own = "batch write to AppTable wrote 0 of 0 requests: 0 not written, 0 in doubt, \
                   after 1 attempts";
        assert_eq!(err.to_string(), own);
        let cause = err.source().unwrap();
        assert_eq!(cause.to_string(), "dynamodb BatchWriteItem failed");
        assert_eq!(
            format!("{err:#}"),
            format!("{own}: dynamodb BatchWriteItem failed: connection reset")
        );
        assert_eq!(
            format!("{:#}", err.cause().unwrap()),
            "dynamodb BatchWriteItem failed: connection reset"
        );
    }

    #[test]
    fn debug_shows_the_kind_the_context_and_the_data() {
        let err =
            Error::version_conflict(r#"pk="A""#.to_owned(), Some(3)).with_entity_type("Counter");
        assert_eq!(
            format!("{err:?}"),
            r#"Error { kind: VersionConflict, entity_type: "Counter", key: "pk=\"A\"", data: VersionConflict { expected: Some(3) } }"#
        );
    }

    #[test]
    fn context_goes_only_where_the_kind_carries_it() {
        // A request-level error names no entity type; a conflict keeps the
        // key it was built with; an invalid key error has no item key.
        let limit = Error::limit("transaction", 101, 100).with_entity_type("Order");
        assert_eq!(limit.entity_type(), None);
        let conflict = Error::version_conflict("pk=1".to_owned(), None)
            .with_key(|| "pk=2".to_owned())
            .with_entity_type("Order");
        assert_eq!(
            (conflict.key(), conflict.entity_type()),
            (Some("pk=1"), Some("Order"))
        );
        let missing = Error::missing_attribute("a").with_key(String::new);
        assert_eq!(missing.key(), None, "an empty key is no key");
        let missing = missing.with_key(|| "pk=3".to_owned());
        assert_eq!(missing.key(), Some("pk=3"));
        let invalid_key = Error::invalid_key("pk", "is empty").with_key(|| "pk=4".to_owned());
        assert_eq!(invalid_key.key(), None);
    }
}
