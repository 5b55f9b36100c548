//! The errors only a mapper raises, built here beside it: declarations that
//! do not hold together, an attribute a projection left out, a partial
//! record written whole, a key pattern that cannot render a key attribute.
//! The kinds, their data and their messages are declared once in `error/`.

use crate::error::{Error, ErrorDetails as D};

impl Error {
    /// A mapper whose declarations do not hold together (see
    /// `MapperExt::check`); the entity type is set by the caller.
    pub(crate) fn invalid_mapper(problems: Vec<String>) -> Self {
        Error::new(D::InvalidMapper { problems })
    }

    /// [`Error::missing_attribute`] of an attribute a projection left out.
    pub(crate) fn missing_projected(attribute: impl Into<String>) -> Self {
        Error::new(D::MissingAttribute { projected: true }).at(attribute)
    }

    /// A whole-item write of the record of `key`, read through
    /// `projection`.
    pub(crate) fn partial_record(key: String, projection: &str) -> Self {
        let projection = projection.to_owned();
        Error::new(D::PartialRecord { projection }).at_key(key)
    }

    /// Says the error is about the key attribute `name` (when it names no
    /// attribute yet): a key pattern that cannot render the value of `sk`.
    pub(crate) fn of_key_attribute(self, name: &str) -> Self {
        if self.attribute().is_none() {
            self.at(name)
        } else {
            self
        }
    }
}
