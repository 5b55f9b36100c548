//! How an [`Error`] prints: its message (the entity type and key in
//! front, then what was wrong), its sources after it with `{:#}`, and the
//! pieces the messages are made of (lists, counts, found/expected parts).

use std::fmt;

use super::{Error, ErrorDetails as D, Unwritten};

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
        let prefix = Maybe(entity_type, "", ": ");
        let keyed = KeyedPrefix(entity_type, self.key());
        match &self.0.details {
            D::DiscriminatorMismatch { expected, found } => {
                write!(
                    f,
                    "{keyed}discriminator `{attribute}` is {found:?}, expected "
                )?;
                let one_of = if expected.len() == 1 { "" } else { "one of " };
                write!(f, "{one_of}{}", List(expected, ", ", quoted))
            }
            D::MissingDiscriminator { found } => write!(
                f,
                "{keyed}discriminator `{attribute}` is missing{}",
                Maybe(found.as_deref(), " (found ", ")")
            ),
            D::Serialize {} => {
                write!(
                    f,
                    "{prefix}cannot serialize{}",
                    Maybe(self.attribute(), " attribute `", "`")
                )
            }
            D::Deserialize {} => {
                write!(
                    f,
                    "{keyed}cannot deserialize{}",
                    Maybe(self.attribute(), " attribute `", "`")
                )
            }
            D::InvalidKey { reason } => {
                write!(f, "{prefix}key attribute `{attribute}` {reason}")
            }
            D::ItemTooLarge {
                size,
                limit,
                largest,
            } => {
                write!(
                    f,
                    "{keyed}item is {size} bytes, over the limit of {limit} bytes"
                )?;
                if largest.is_empty() {
                    return Ok(());
                }
                let each = |(name, size): &(String, usize), f: &mut fmt::Formatter<'_>| {
                    write!(f, "`{name}` {size} bytes")
                };
                write!(f, "; largest attributes: {}", List(largest, ", ", each))
            }
            D::InvalidValue { reason } => write!(f, "{keyed}attribute `{attribute}` {reason}"),
            D::MissingAttribute { projected: false } => {
                write!(f, "{keyed}attribute `{attribute}` is missing")
            }
            D::MissingAttribute { projected: true } => write!(
                f,
                "{keyed}attribute `{attribute}` is missing: the projection does not include it \
                 (add it to the projection expression or the index's projection, or read the \
                 whole item)"
            ),
            D::WrongType { expected, found } => write!(
                f,
                "{keyed}attribute `{attribute}` is {found}, expected {expected}"
            ),
            D::Hook { hook, .. } => write!(f, "{keyed}hook `{hook}` failed"),
            D::UnknownEntityType {
                found,
                group,
                pattern,
                known,
            } => {
                write!(f, "{keyed}discriminator `{attribute}` is {found:?}, which ")?;
                match (group, pattern) {
                    (_, Some(p)) => {
                        write!(
                            f,
                            "access pattern {p:?} does not return (its entity types: "
                        )?;
                    }
                    (None, None) => f.write_str("no registered mapper reads (registered: ")?,
                    (Some(g), None) => write!(f, "no mapper of group {g:?} reads (members: ")?,
                }
                write!(f, "{})", List(known, ", ", quoted))
            }
            D::InvalidRegistry { problems } => write!(
                f,
                "invalid registry ({}): {}",
                Counted(problems.len(), "problem"),
                List(problems, "; ", |p, f| f.write_str(p))
            ),
            D::InvalidMapper { problems } => write!(
                f,
                "{prefix}invalid mapper ({}): {}",
                Counted(problems.len(), "problem"),
                List(problems, "; ", |p, f| f.write_str(p))
            ),
            D::NotRegistered { what, name } => write!(f, "{what} {name:?} is not registered"),
            D::InvalidFilter { reason } => {
                write!(f, "discriminator filter on `{attribute}` {reason}")
            }
            D::Cardinality { expected, found } => {
                write!(f, "{prefix}expected {expected} item, found {found}")
            }
            D::UnclaimedItems {
                discriminator,
                counts,
            } => {
                match counts.iter().map(|(_, c)| c).sum::<usize>() {
                    1 => f.write_str("1 item was not claimed: ")?,
                    n => write!(f, "{n} items were not claimed: ")?,
                }
                for (i, (value, count)) in counts.iter().enumerate() {
                    let sep = if i > 0 { ", " } else { "" };
                    match value {
                        Some(v) => write!(f, "{sep}{count} of {v:?}")?,
                        None => write!(f, "{sep}{count} without discriminator `{discriminator}`")?,
                    }
                }
                Ok(())
            }
            D::Sdk { operation, .. } => write!(f, "dynamodb {operation} failed"),
            D::BatchWriteIncomplete {
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
            D::BatchGetIncomplete {
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
            D::Timeout {
                operation,
                after,
                deadline: false,
            } => write!(f, "dynamodb {operation} got no answer within {after:?}"),
            D::Timeout {
                operation,
                after,
                deadline: true,
            } => write!(
                f,
                "dynamodb {operation} ran out of the helper's deadline of {after:?}"
            ),
            D::TableNotActive {
                table,
                after,
                status,
            } => write!(
                f,
                "table {table} is not active after {after:?}: it is {status}"
            ),
            D::TableExists { table, .. } => write!(f, "table {table} already exists"),
            D::ClientConfig { operation, reason } => {
                write!(f, "the client cannot run dynamodb {operation}: {reason}")
            }
            D::InvalidCursor { reason } => write!(f, "invalid pagination cursor: {reason}"),
            D::InvalidStreamRecord {
                event_id, reason, ..
            } => {
                write!(f, "stream record {event_id:?} cannot be read: {reason}")
            }
            D::UnexpectedResponse { operation, reason } => write!(
                f,
                "dynamodb {operation} returned an unexpected response: {reason}"
            ),
            D::VersionCheckRequired { operation, instead } => write!(
                f,
                "{prefix}{operation} of {key} would skip the version check on `{attribute}`; \
                 use {instead}"
            ),
            D::UniqueCheckRequired {
                operation,
                constraint,
                instead,
            } => write!(
                f,
                "{prefix}{operation} of {key} cannot keep the sentinel of the unique constraint \
                 `{constraint}` (on `{attribute}`) right; use {instead}"
            ),
            D::DuplicateKey { operation } => write!(
                f,
                "{operation} addresses the item {key} twice; nothing was sent"
            ),
            D::VersionConflict {
                expected,
                unique_values,
            } => {
                write!(f, "{prefix}version conflict on {key}: ")?;
                if *unique_values {
                    return f.write_str(
                        "expected the unique values of the entity given as the old one, but \
                         another writer changed them",
                    );
                }
                match expected {
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
            D::UniqueViolation {
                constraint,
                value,
                holder,
            } => {
                write!(
                    f,
                    "{prefix}unique constraint `{constraint}`: {value} is held by "
                )?;
                match holder {
                    Some(holder) => write!(f, "{}", crate::describe::describe_key(holder))?,
                    None => f.write_str("another item")?,
                }
                write!(f, "; {key} was not written")
            }
            D::NotFound {} => write!(f, "{prefix}no item at {key}"),
            D::PartialRecord { projection } => write!(
                f,
                "{prefix}the record of {key} was read through the projection `{projection}`, \
                 so it cannot be written whole: that would drop every attribute the projection \
                 left out; update the fields it holds (Table::update_record) or read the \
                 whole item"
            ),
            D::MaybeApplied { operation, .. } => write!(
                f,
                "{prefix}dynamodb {operation} of {key} may have been applied: no credible answer \
                 came (read the item to know)"
            ),
            D::TransactionCanceled { canceled } if canceled.is_empty() => {
                f.write_str("transaction canceled: no reason given")
            }
            D::TransactionCanceled { canceled } => write!(
                f,
                "transaction canceled: {}",
                List(canceled, "; ", |a, f| write!(f, "{a}"))
            ),
            D::Limit { what, count, limit } => write!(
                f,
                "{what} has {count} entries, more than dynamodb's limit of {limit}"
            ),
            D::InvalidKeyPattern { pattern, reason } => match self.attribute() {
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
        match &self.0.details {
            D::BatchWriteIncomplete { cause, .. } | D::BatchGetIncomplete { cause, .. } => {
                cause.as_ref().map(|c| c as _)
            }
            D::MaybeApplied { cause, .. } => Some(cause),
            _ => self.0.source.as_deref().map(|s| s as _),
        }
    }
}

impl fmt::Debug for Error {
    /// The kind, what the error is about, the kind's own data and the
    /// cause from outside the crate.
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
        out.field("data", &self.0.details);
        if let Some(source) = &self.0.source {
            out.field("source", source);
        }
        out.finish()
    }
}

/// The entity type and key in front of a message about an item.
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

/// `items`, each shown by `show`, with `sep` between them.
struct List<'a, T>(
    &'a [T],
    &'static str,
    fn(&T, &mut fmt::Formatter<'_>) -> fmt::Result,
);
impl<T> fmt::Display for List<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, item) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(self.1)?;
            }
            (self.2)(item, f)?;
        }
        Ok(())
    }
}

/// Shows a string quoted.
fn quoted(s: &String, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "{s:?}")
}

/// Shows `text` when `value` is there, with `value` in place of `{}`.
struct Maybe<'a>(Option<&'a str>, &'static str, &'static str);
impl fmt::Display for Maybe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(v) => write!(f, "{}{v}{}", self.1, self.2),
            None => Ok(()),
        }
    }
}

/// `n` and `what`, plural unless `n` is one.
struct Counted(usize, &'static str);
impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.0 == 1 { "" } else { "s" };
        write!(f, "{} {}{s}", self.0, self.1)
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
            format!("{:#}", err.source().unwrap()),
            "dynamodb BatchWriteItem failed: connection reset"
        );
    }

    #[test]
    fn debug_shows_the_kind_the_context_and_the_data() {
        let err =
            Error::version_conflict(r#"pk="A""#.to_owned(), Some(3)).with_entity_type("Counter");
        assert_eq!(
            format!("{err:?}"),
            r#"Error { kind: VersionConflict, entity_type: "Counter", key: "pk=\"A\"", data: VersionConflict { expected: Some(3), unique_values: false } }"#
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
