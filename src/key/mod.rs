//! Keys for single-table design: an injective key builder, order-preserving
//! encodings for sort keys, key patterns, and the analysis that finds entity
//! types whose key prefixes overlap.
//!
//! # How keys are encoded
//!
//! A key is a type tag and components joined by one delimiter (`#` by
//! default): `ORDER#O1#LINE#007`. To keep the encoding **injective** (no
//! component value can make two different component lists render the same
//! key), a delimiter or escape character inside a component value is escaped
//! with the escape character (`\` by default): `#` becomes `\#` and `\`
//! becomes `\\`. So `["A#", "B"]` renders `A\##B` and `["A", "#B"]` renders
//! `A#\#B`, and [`KeyFormat::split`] parses every key back into exactly the
//! components it was built from. Values without `#` or `\` render unchanged.
//!
//! Escaping works character by character, so the escaped form of a value's
//! start is the start of the value's escaped form: a `begins_with` prefix
//! built by [`KeyBuilder::prefix_with`] or [`BoundPattern::prefix`] matches
//! exactly the keys whose components start that way.
//!
//! # Sortable components
//!
//! DynamoDB compares string sort keys byte by byte. The encodings here make
//! string order equal value order: [`encode_unsigned`] (zero-padded to a fixed
//! width), [`encode_signed`] (`N` + complement for negatives, `P` for the
//! rest, fixed width), and [`encode_timestamp`] (RFC 3339 UTC with a fixed
//! number of fraction digits). Each has a `decode_` counterpart.
//!
//! # Key patterns and overlaps
//!
//! A [`KeyPattern`] such as `ORDER#{order_id}#LINE#{line:u3}` renders keys
//! from named values, parses them back, and takes part in
//! [`find_overlaps`], which reports every pair of entity types where a
//! `begins_with` query for one can return items of the other.
//!
//! ```
//! use dynamodb_mapper::key::{KeyBuilder, KeyFormat, decode_unsigned};
//!
//! let sk = KeyBuilder::sort("ORDER").part("O#1").part("LINE").unsigned(7, 3).build()?;
//! assert_eq!(sk, r"ORDER#O\#1#LINE#007");
//! let parts = KeyFormat::DEFAULT.split(&sk)?;
//! assert_eq!(parts, ["ORDER", "O#1", "LINE", "007"]);
//! assert_eq!(decode_unsigned(&parts[3], 3)?, 7);
//! # Ok::<(), dynamodb_mapper::Error>(())
//! ```
//!
//! # Where things are
//!
//! Each file's own docs say what it holds (formats and escaping, values,
//! encodings, the key builder, templates, the pattern language, parts,
//! patterns, overlaps, selections); `ARCHITECTURE.md` places this module
//! among the others.

#[cfg(test)]
mod analysis_tests;
mod builder;
mod encoding;
mod format;
mod language;
pub(crate) mod overlap;
mod parts;
pub(crate) mod pattern;
mod select;
mod template;
mod value;

pub use builder::KeyBuilder;
pub use encoding::{
    Encoding, decode_signed, decode_timestamp, decode_timestamp_as, decode_unix_timestamp,
    decode_unsigned, encode_signed, encode_timestamp, encode_unix_timestamp, encode_unsigned,
};
pub use format::{KeyFormat, KeyRole, last_sort_key_with_prefix};
pub(crate) use overlap::IndexKeys;
pub use overlap::{AllowedOverlap, KeyDeclaration, Overlap, OverlapKind, find_overlaps};
pub use parts::KeyParts;
pub use pattern::BoundPattern;
pub(crate) use pattern::KeyPattern;
pub use value::KeyValue;

pub(crate) use pattern::{Compiled, RenderFailure};
pub(crate) use select::{Selection, SortSelection};
