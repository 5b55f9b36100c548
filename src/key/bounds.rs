//! [`SortBounds`]: the ranges a sort key range takes (`low..=high`, `low..`,
//! `..=high`), both ends included; sealed, so only those three.

use std::ops::{RangeFrom, RangeInclusive, RangeToInclusive};

use super::KeyValue;

/// The inclusive ranges of placeholder values that
/// [`Lookup::sort_range`](crate::Lookup::sort_range) and
/// [`Access::sort_range`](crate::ops::Access::sort_range) take: `low..=high`,
/// `low..` (from `low`) and `..=high` (through `high`, every key under it
/// included). Implemented for these three only: a sort range always
/// includes its ends.
///
/// ```
/// # use dynamodb_mapper_support::doc::*;
/// let lines = InvoiceItemMapper::lookup().with("invoice", "I1");
/// let from_2 = lines.clone().sort_range("line", 2..).key_condition()?.build()?;
/// assert_eq!(from_2.values()[":k1"], AttributeValue::S("ITEM#002".into()));
/// let through_5 = lines.sort_range("line", ..=5).key_condition()?.build()?;
/// assert_eq!(through_5.values()[":k2"], AttributeValue::S("ITEM#005".into()));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub trait SortBounds<'a>: sealed::Bounds<'a> {}

impl<'a, T: sealed::Bounds<'a>> SortBounds<'a> for T {}

/// The bounds themselves, out of the users' reach so that no other range
/// can be a `SortBounds`.
mod sealed {
    use super::{KeyValue, RangeFrom, RangeInclusive, RangeToInclusive};

    // Public in a private module: nameable by the public trait above, by no
    // one outside the crate.
    #[allow(unreachable_pub)]
    pub trait Bounds<'a> {
        /// The low and high values, `None` for an open end.
        fn bounds(self) -> (Option<KeyValue<'a>>, Option<KeyValue<'a>>);
    }

    impl<'a, V: Into<KeyValue<'a>>> Bounds<'a> for RangeInclusive<V> {
        fn bounds(self) -> (Option<KeyValue<'a>>, Option<KeyValue<'a>>) {
            let (low, high) = self.into_inner();
            (Some(low.into()), Some(high.into()))
        }
    }

    impl<'a, V: Into<KeyValue<'a>>> Bounds<'a> for RangeFrom<V> {
        fn bounds(self) -> (Option<KeyValue<'a>>, Option<KeyValue<'a>>) {
            (Some(self.start.into()), None)
        }
    }

    impl<'a, V: Into<KeyValue<'a>>> Bounds<'a> for RangeToInclusive<V> {
        fn bounds(self) -> (Option<KeyValue<'a>>, Option<KeyValue<'a>>) {
            (None, Some(self.end.into()))
        }
    }
}

/// The low and high values of `range`.
pub(crate) fn bounds<'a>(
    range: impl SortBounds<'a>,
) -> (Option<KeyValue<'a>>, Option<KeyValue<'a>>) {
    sealed::Bounds::bounds(range)
}
