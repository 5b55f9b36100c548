//! Opaque pagination cursors: a query's `LastEvaluatedKey` as a URL-safe
//! token for a client to hand back, bound to the table and index it came
//! from, and optionally signed so clients cannot forge keys.
//!
//! - `token`: the token format (bytes, tag, base64), read without panics on
//!   any input.
//! - `bind`: the digest that binds a token to the query that issued it, so
//!   [`Table::query_page`](crate::ops::Table::query_page) refuses a token
//!   of another query (partition, range, filter, order).
//! - this file: [`Cursors`], which checks a key against the table's layout
//!   both ways.
//!
//! A token is opaque, not secret: anyone can decode the key values it
//! carries. Sign tokens ([`Cursors::signed_with`]) so a client cannot make
//! one up (to start a page at a key of its choosing); do not put secrets in
//! keys. The page helper is
//! [`Table::query_page`](crate::ops::Table::query_page).

mod bind;
mod token;

pub(crate) use bind::{QueryShape, digest, sweep_digest};

use std::fmt;
use std::sync::Arc;

use crate::describe::shorten;
use crate::error::{Error, Result};
use crate::item::Item;
use crate::schema::{KeyAttribute, ScalarType, TableSchema};

/// Encodes and decodes the cursors of one table (or one of its indexes).
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamodb_mapper::{cursor::Cursors, Item, TableSchema};
///
/// const T: TableSchema = TableSchema::new("pk").sort_key("sk");
/// let cursors = Cursors::new("Orders", T).signed_with(b"a secret of the server");
/// let last = Item::from([
///     ("pk".to_string(), AttributeValue::S("CUSTOMER#C1".into())),
///     ("sk".to_string(), AttributeValue::S("ORDER#O7".into())),
/// ]);
/// let token = cursors.encode(&last)?;
/// assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
/// assert_eq!(cursors.decode(&token)?, last);
///
/// // Another index, another table, another secret, or an altered token: refused.
/// let err = Cursors::new("Orders", T).signed_with(b"another").decode(&token).unwrap_err();
/// assert_eq!(err.kind(), dynamodb_mapper::ErrorKind::InvalidCursor);
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Clone)]
#[must_use]
pub struct Cursors {
    table: String,
    index: Option<String>,
    schema: TableSchema,
    secret: Option<Arc<[u8]>>,
}

impl fmt::Debug for Cursors {
    /// The table, index and whether tokens are signed; never the secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cursors")
            .field("table", &self.table)
            .field("index", &self.index)
            .field("signed", &self.secret.is_some())
            .finish_non_exhaustive()
    }
}

impl Cursors {
    /// Cursors of queries of the table `table_name`, laid out as `schema`;
    /// unsigned until [`signed_with`](Self::signed_with).
    ///
    /// ```
    /// use dynamodb_mapper::{cursor::Cursors, TableSchema};
    /// let c = Cursors::new("Orders", TableSchema::new("pk"));
    /// assert_eq!(format!("{c:?}"), r#"Cursors { table: "Orders", index: None, signed: false, .. }"#);
    /// ```
    pub fn new(table_name: impl Into<String>, schema: TableSchema) -> Self {
        Cursors {
            table: table_name.into(),
            index: None,
            schema,
            secret: None,
        }
    }

    /// Cursors of queries of the global secondary index `name` instead.
    ///
    /// ```
    /// use dynamodb_mapper::{cursor::Cursors, GlobalSecondaryIndex, TableSchema};
    /// const T: TableSchema = TableSchema::new("pk").indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk")]);
    /// let cursors = Cursors::new("Orders", T).on_index("GSI1");
    /// # let _ = cursors;
    /// ```
    pub fn on_index(mut self, name: impl Into<String>) -> Self {
        self.index = Some(name.into());
        self
    }

    /// Signs every token with HMAC-SHA256 keyed by `secret`, and refuses
    /// tokens that are unsigned, altered or signed with another secret.
    /// Use a random secret of at least 32 bytes, kept on the server.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{cursor::Cursors, Item, TableSchema};
    /// let c = Cursors::new("Orders", TableSchema::new("pk")).signed_with([7u8; 32]);
    /// let key = Item::from([("pk".to_string(), AttributeValue::S("O1".into()))]);
    /// let token = c.encode(&key)?;
    /// assert_eq!(c.decode(&token)?, key);
    /// // Another secret does not accept it.
    /// let other = Cursors::new("Orders", TableSchema::new("pk")).signed_with([8u8; 32]);
    /// assert!(other.decode(&token).is_err());
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn signed_with(mut self, secret: impl AsRef<[u8]>) -> Self {
        self.secret = Some(Arc::from(secret.as_ref()));
        self
    }

    /// The table name.
    #[must_use]
    pub(crate) fn table_name(&self) -> &str {
        &self.table
    }

    /// The index, `None` for the table.
    #[must_use]
    pub(crate) fn index_name(&self) -> Option<&str> {
        self.index.as_deref()
    }

    /// The attributes of a `LastEvaluatedKey` of this table or index: the
    /// table's key attributes, and the index's.
    fn key_attributes(&self) -> std::result::Result<Vec<KeyAttribute>, String> {
        let mut attributes = vec![self.schema.partition_key];
        attributes.extend(self.schema.sort_key);
        if let Some(name) = &self.index {
            let Some(index) = self.schema.index(name) else {
                return Err(format!(
                    "{} is not an index of table {}",
                    shorten(name),
                    shorten(&self.table)
                ));
            };
            for k in index.key_attributes() {
                if !attributes.iter().any(|a| a.name == k.name) {
                    attributes.push(k);
                }
            }
        }
        Ok(attributes)
    }

    /// Checks that `key` has exactly the key attributes, each of its type
    /// and not empty.
    fn check_key(&self, key: &Item) -> std::result::Result<(), String> {
        let attributes = self.key_attributes()?;
        for a in &attributes {
            let Some(value) = key.get(a.name) else {
                return Err(format!("it lacks the key attribute `{}`", a.name));
            };
            let (fits, empty) = match (a.scalar_type, value) {
                (ScalarType::S, aws_sdk_dynamodb::types::AttributeValue::S(s)) => {
                    (true, s.is_empty())
                }
                (ScalarType::N, aws_sdk_dynamodb::types::AttributeValue::N(n)) => {
                    (true, n.is_empty())
                }
                (ScalarType::B, aws_sdk_dynamodb::types::AttributeValue::B(b)) => {
                    (true, b.as_ref().is_empty())
                }
                _ => (false, false),
            };
            if !fits {
                return Err(format!(
                    "its key attribute `{}` is {}, expected {}",
                    a.name,
                    crate::item::type_name(value),
                    a.scalar_type.describe()
                ));
            }
            if empty {
                return Err(format!("its key attribute `{}` is empty", a.name));
            }
        }
        if let Some(extra) = key
            .keys()
            .find(|k| !attributes.iter().any(|a| a.name == k.as_str()))
        {
            return Err(format!(
                "it has `{}`, which is not a key attribute here",
                shorten(extra)
            ));
        }
        Ok(())
    }

    /// `table T` or `index I of table T`, names cut to 64 bytes (a token's
    /// names come from outside).
    fn on(&self) -> String {
        let table = shorten(&self.table);
        match &self.index {
            None => format!("table {table}"),
            Some(i) => format!("index {} of table {table}", shorten(i)),
        }
    }

    /// The token for `last_evaluated_key`, a `LastEvaluatedKey` of a query
    /// of this table (or index).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidCursor`](crate::ErrorKind::InvalidCursor) when
    /// the key does not have exactly the key attributes of the table (and
    /// index), each of its type and not empty, or when the index is not one
    /// of the table's.
    ///
    /// ```
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// use dynamodb_mapper::{cursor::Cursors, Item, TableSchema};
    /// let cursors = Cursors::new("Orders", TableSchema::new("pk"));
    /// let err = cursors.encode(&Item::from([("id".to_string(), AttributeValue::S("x".into()))])).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid pagination cursor: cannot encode a key of table Orders: it lacks the key attribute `pk`");
    /// ```
    pub fn encode(&self, last_evaluated_key: &Item) -> Result<String> {
        self.encode_for(last_evaluated_key, &[])
    }

    /// The token for `last_evaluated_key` of the query whose digest
    /// ([`digest`]) is `query` (empty: not bound to a query): only a page of
    /// that very query takes it back.
    pub(crate) fn encode_for(&self, last_evaluated_key: &Item, query: &[u8]) -> Result<String> {
        let cannot = |reason: String| {
            Error::invalid_cursor(format!("cannot encode a key of {}: {reason}", self.on()))
        };
        self.check_key(last_evaluated_key).map_err(cannot)?;
        token::encode(
            &self.table,
            self.index.as_deref(),
            query,
            last_evaluated_key,
            self.secret.as_deref(),
        )
        .map_err(cannot)
    }

    /// The `ExclusiveStartKey` a token stands for.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidCursor`](crate::ErrorKind::InvalidCursor) naming
    /// what is wrong: not URL-safe base64, cut short or with bytes after
    /// the key, another format version; unsigned when these cursors are
    /// signed, signed when they are not, a signature that does not match
    /// (altered, or another secret); issued for another table or index; a
    /// key that lacks a key attribute, has another, or has one of the wrong
    /// type.
    ///
    /// ```
    /// use dynamodb_mapper::{cursor::Cursors, GlobalSecondaryIndex, TableSchema};
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// const T: TableSchema = TableSchema::new("pk").indexes(&[GlobalSecondaryIndex::new("GSI1", "gsi1pk")]);
    /// let on_table = Cursors::new("Orders", T);
    /// let token = on_table.encode(&[("pk".to_string(), AttributeValue::S("A".into()))].into())?;
    /// let err = on_table.clone().on_index("GSI1").decode(&token).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid pagination cursor: the token is for table Orders, not index GSI1 of table Orders"
    /// );
    /// let err = on_table.decode("not a token!").unwrap_err();
    /// assert_eq!(err.to_string(), "invalid pagination cursor: the token cannot be read: it holds ' ', which is not URL-safe base64");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn decode(&self, token: &str) -> Result<Item> {
        self.decode_for(token, &[])
    }

    /// [`decode`](Self::decode) of a token that must be bound to the query
    /// of digest `query` (empty: to none).
    pub(crate) fn decode_for(&self, token: &str, query: &[u8]) -> Result<Item> {
        let contents = token::decode(token, self.secret.as_deref()).map_err(|reason| {
            Error::invalid_cursor(format!("the token cannot be read: {reason}"))
        })?;
        if contents.table != self.table || contents.index != self.index {
            let was = Cursors {
                table: contents.table,
                index: contents.index,
                schema: self.schema,
                secret: None,
            };
            return Err(Error::invalid_cursor(format!(
                "the token is for {}, not {}",
                was.on(),
                self.on()
            )));
        }
        if contents.query != query {
            let reason = match (contents.query.is_empty(), query.is_empty()) {
                (true, _) => {
                    "the token is not bound to a query, and this page's query needs one \
                              of its own (issued by Table::query_page)"
                }
                (false, true) => {
                    "the token is bound to a query: hand it back to \
                                  Table::query_page with that query"
                }
                (false, false) => {
                    "the token is for another query (its index, key condition, \
                                   filter, values or order differ): a cursor only continues the \
                                   query that issued it"
                }
            };
            return Err(Error::invalid_cursor(format!("{reason}, on {}", self.on())));
        }
        self.check_key(&contents.key).map_err(|reason| {
            Error::invalid_cursor(format!(
                "the token's key does not fit {}: {reason}",
                self.on()
            ))
        })?;
        Ok(contents.key)
    }
}

#[cfg(test)]
mod tests;
