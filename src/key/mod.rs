//! Keys for single-table design: key patterns that render injective keys,
//! order-preserving encodings for sort keys, and the analysis that finds
//! entity types whose key prefixes overlap.
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
//! built by [`BoundPattern::prefix`] (followed, for a prefix that ends inside
//! a value, by [`KeyFormat::escape_text`] of the value's start) matches
//! exactly the keys whose components start that way.
//!
//! # Sortable components
//!
//! DynamoDB compares string sort keys byte by byte. The encodings here make
//! string order equal value order: [`Encoding::Unsigned`] (zero-padded to a
//! fixed width), [`Encoding::Signed`] (`N` + complement for negatives, `P`
//! for the rest, fixed width), and [`Encoding::Timestamp`] (RFC 3339 UTC with
//! a fixed number of fraction digits). A pattern's placeholders use them
//! (`{line:u3}`, `{delta:i5}`, `{at:ts3}`) to turn one [`KeyValue`] into its
//! text and back.
//!
//! # Key patterns and overlaps
//!
//! A [`KeyPattern`] such as `ORDER#{order_id}#LINE#{line:u3}` renders keys
//! from named values, parses them back, and takes part in the overlap
//! analysis the [`Registry`](crate::Registry) runs when it is built, which
//! reports every pair of entity types where a `begins_with` query for one
//! can return items of the other.
//!
//! ```
//! use dynamodb_mapper::KeyPattern;
//! use dynamodb_mapper::key::{KeyFormat, KeyValue};
//!
//! const LINE_SK: KeyPattern = KeyPattern::sort("ORDER#{order_id}#LINE#{line:u3}");
//! let sk = LINE_SK.with("order_id", "O#1").with("line", 7).render()?;
//! assert_eq!(sk, r"ORDER#O\#1#LINE#007");
//! assert_eq!(LINE_SK.parse(&sk)?.text("order_id")?, "O#1");
//! let parts = KeyFormat::new().split(&sk)?;
//! assert_eq!(parts, ["ORDER", "O#1", "LINE", "007"]);
//! assert_eq!(LINE_SK.parse(&sk)?.get("line"), Some(&KeyValue::Unsigned(7)));
//! # Ok::<(), dynamodb_mapper::Error>(())
//! ```
//!
//! # Where things are
//!
//! Each file's own docs say what it holds (formats and escaping, values,
//! encodings, templates, the pattern language, parts, patterns, overlaps,
//! selections); `ARCHITECTURE.md` places this module among the others.

#[cfg(test)]
mod analysis_tests;
mod bounds;
#[cfg(test)]
mod design_tests;
mod encoding;
#[cfg(test)]
mod encoding_tests;
mod format;
pub(crate) mod index_keys;
mod key_value;
mod language;
pub(crate) mod overlap;
mod parts;
pub(crate) mod pattern;
mod select;
mod single;
mod template;
pub(crate) mod unique;

pub use bounds::SortBounds;
pub(crate) use bounds::bounds;
pub use encoding::Encoding;
pub(crate) use encoding::{decode_timestamp, decode_unix_timestamp, encode_timestamp};
pub use format::KeyFormat;
pub(crate) use format::KeyRole;
pub(crate) use format::last_sort_key_with_prefix;
pub(crate) use index_keys::IndexKeys;
pub use key_value::KeyValue;
pub use overlap::AllowedOverlap;
pub(crate) use overlap::{KeyDeclaration, find_overlaps};
pub use parts::KeyParts;
pub use pattern::BoundPattern;
pub(crate) use pattern::KeyPattern;

pub(crate) use pattern::{Compiled, RangeEnd, RenderFailure};
pub(crate) use select::{Selection, SortSelection, SortShape};
