//! The errors only a registry raises, built here beside it: an entity type
//! no mapper reads, a discriminator filter that cannot be built, a compound
//! read's counts. The kinds, their data and their messages are declared once
//! in `error/`.

use crate::error::{Error, ErrorDetails as D};

impl Error {
    pub(crate) fn unknown_entity_type(
        attribute: &str,
        found: String,
        group: Option<String>,
        known: Vec<String>,
    ) -> Self {
        Error::new(D::UnknownEntityType {
            found,
            group,
            pattern: None,
            known,
        })
        .at(attribute)
    }

    pub(crate) fn invalid_filter(attribute: &str, reason: String) -> Self {
        Error::new(D::InvalidFilter { reason }).at(attribute)
    }

    /// `expected`: `exactly one` or `at most one`.
    pub(crate) fn cardinality(expected: &'static str, found: usize) -> Self {
        Error::new(D::Cardinality { expected, found })
    }

    pub(crate) fn unclaimed_items(
        discriminator: String,
        counts: Vec<(Option<String>, usize)>,
    ) -> Self {
        Error::new(D::UnclaimedItems {
            discriminator,
            counts,
        })
    }
}
