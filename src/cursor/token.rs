//! The token format: the key's bytes, bound to a table and index, with an
//! optional HMAC-SHA256 tag, in URL-safe base64 without padding.
//!
//! Layout (before base64): version `2`, flags (bit 0: signed), the table
//! name, the index name (a presence byte, then the name), the digest of the
//! query the token is bound to (empty when unbound), the number of
//! attributes, and per attribute its name, its type (`S`, `N` or `B`) and
//! its value; every string and value is a 4-byte little-endian length and
//! the bytes. A signed token ends with the 32-byte tag over everything
//! before it. Reading is bounded: every length is checked against what is
//! left, so no input can make it allocate more than the token's size or
//! panic.

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::item::Item;

const VERSION: u8 = 2;
/// The length of a query digest (SHA-256).
const DIGEST_BYTES: usize = 32;
const SIGNED: u8 = 1;
const TAG_BYTES: usize = 32;
/// The most attributes a key of a table and an index can have.
const MAX_ATTRIBUTES: usize = 16;
/// The longest token read: far above the largest key (a few attributes of
/// at most 2,048 bytes), far below anything that costs to decode.
pub(super) const MAX_TOKEN_CHARS: usize = 64 * 1024;

/// What a token holds.
pub(super) struct Contents {
    pub(super) table: String,
    pub(super) index: Option<String>,
    /// The digest of the query it is bound to; empty when unbound.
    pub(super) query: Vec<u8>,
    pub(super) key: Item,
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) -> Result<(), String> {
    let len = u32::try_from(bytes.len()).map_err(|_| "a value is over 4 GiB".to_owned())?;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(bytes);
    Ok(())
}

/// HMAC-SHA256 keyed with `secret` (HMAC takes a key of any length, so
/// this does not fail; the error is only what the API allows for).
fn mac(secret: &[u8]) -> Result<Hmac<Sha256>, String> {
    <Hmac<Sha256> as KeyInit>::new_from_slice(secret)
        .map_err(|_| "the secret cannot key HMAC-SHA256".to_owned())
}

/// The token for `key` (its attributes in name order, so one key always
/// gives one token).
pub(super) fn encode(
    table: &str,
    index: Option<&str>,
    query: &[u8],
    key: &Item,
    secret: Option<&[u8]>,
) -> Result<String, String> {
    let mut out = Vec::with_capacity(64);
    out.push(VERSION);
    out.push(if secret.is_some() { SIGNED } else { 0 });
    put_bytes(&mut out, table.as_bytes())?;
    match index {
        None => out.push(0),
        Some(i) => {
            out.push(1);
            put_bytes(&mut out, i.as_bytes())?;
        }
    }
    put_bytes(&mut out, query)?;
    if key.len() > MAX_ATTRIBUTES {
        return Err(format!("the key has {} attributes", key.len()));
    }
    out.push(u8::try_from(key.len()).map_err(|_| "too many attributes".to_owned())?);
    let mut names: Vec<&String> = key.keys().collect();
    names.sort();
    for name in names {
        put_bytes(&mut out, name.as_bytes())?;
        match &key[name] {
            AttributeValue::S(s) => {
                out.push(b'S');
                put_bytes(&mut out, s.as_bytes())?;
            }
            AttributeValue::N(n) => {
                out.push(b'N');
                put_bytes(&mut out, n.as_bytes())?;
            }
            AttributeValue::B(b) => {
                out.push(b'B');
                put_bytes(&mut out, b.as_ref())?;
            }
            other => {
                return Err(format!(
                    "key attribute `{name}` is {}, not a key type (S, N or B)",
                    crate::item::type_name(other)
                ));
            }
        }
    }
    if let Some(secret) = secret {
        let mut mac = mac(secret)?;
        mac.update(&out);
        out.extend_from_slice(&mac.finalize().into_bytes());
    }
    Ok(url_safe(&aws_smithy_types::base64::encode(&out)))
}

/// Standard base64 to its URL-safe form without padding.
fn url_safe(standard: &str) -> String {
    standard
        .trim_end_matches('=')
        .chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect()
}

/// The token's bytes, from its URL-safe base64.
fn bytes_of(token: &str) -> Result<Vec<u8>, String> {
    if token.len() > MAX_TOKEN_CHARS {
        return Err(format!(
            "it is {} characters long, over the {MAX_TOKEN_CHARS} a cursor can be",
            token.len()
        ));
    }
    if token.is_empty() {
        return Err("it is empty".to_owned());
    }
    let mut standard = String::with_capacity(token.len() + 3);
    for c in token.chars() {
        standard.push(match c {
            '-' => '+',
            '_' => '/',
            'A'..='Z' | 'a'..='z' | '0'..='9' => c,
            other => return Err(format!("it holds {other:?}, which is not URL-safe base64")),
        });
    }
    while !standard.len().is_multiple_of(4) {
        standard.push('=');
    }
    aws_smithy_types::base64::decode(&standard).map_err(|_| "it is not valid base64".to_owned())
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.bytes.len() {
            return Err("it is cut short".to_owned());
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn sized(&mut self) -> Result<&'a [u8], String> {
        let len = self.take(4)?;
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
        let len = usize::try_from(len).map_err(|_| "it is cut short".to_owned())?;
        self.take(len)
    }

    fn text(&mut self) -> Result<String, String> {
        String::from_utf8(self.sized()?.to_vec())
            .map_err(|_| "it holds text that is not UTF-8".to_owned())
    }
}

/// Reads a token, checking its tag with `secret` when it is signed.
pub(super) fn decode(token: &str, secret: Option<&[u8]>) -> Result<Contents, String> {
    let bytes = bytes_of(token)?;
    let mut head = Reader { bytes: &bytes };
    let version = head.byte()?;
    if version != VERSION {
        return Err(format!("it has format version {version}, not {VERSION}"));
    }
    let flags = head.byte()?;
    if flags & !SIGNED != 0 {
        return Err(format!("it has unknown flags {flags:#04x}"));
    }
    let signed = flags & SIGNED != 0;
    let body = if signed {
        let Some(split) = bytes.len().checked_sub(TAG_BYTES) else {
            return Err("it is cut short".to_owned());
        };
        let (body, tag) = bytes.split_at(split);
        let Some(secret) = secret else {
            return Err("it is signed, but no secret was given to check it".to_owned());
        };
        let mut mac = mac(secret)?;
        mac.update(body);
        mac.verify_slice(tag).map_err(|_| {
            "its signature does not match: it was altered, or signed with another secret".to_owned()
        })?;
        body
    } else {
        if secret.is_some() {
            return Err("it is not signed, and these cursors must be".to_owned());
        }
        &bytes[..]
    };
    let mut r = Reader { bytes: body };
    r.take(2)?;
    let table = r.text()?;
    let index = match r.byte()? {
        0 => None,
        1 => Some(r.text()?),
        other => return Err(format!("it has an index marker {other}")),
    };
    let query = r.sized()?.to_vec();
    if !query.is_empty() && query.len() != DIGEST_BYTES {
        return Err(format!("it has a query digest of {} bytes", query.len()));
    }
    let count = usize::from(r.byte()?);
    if count > MAX_ATTRIBUTES {
        return Err(format!("it holds {count} key attributes"));
    }
    let mut key = Item::with_capacity(count);
    for _ in 0..count {
        let name = r.text()?;
        let value = match r.byte()? {
            b'S' => AttributeValue::S(r.text()?),
            b'N' => AttributeValue::N(r.text()?),
            b'B' => AttributeValue::B(Blob::new(r.sized()?.to_vec())),
            other => return Err(format!("it has an unknown value type {other:#04x}")),
        };
        if key.insert(name, value).is_some() {
            return Err("it names a key attribute twice".to_owned());
        }
    }
    if !r.bytes.is_empty() {
        return Err(format!("it has {} bytes after the key", r.bytes.len()));
    }
    Ok(Contents {
        table,
        index,
        query,
        key,
    })
}
