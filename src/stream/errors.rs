//! The error only the stream module raises, built here beside it: a record
//! that cannot be read. The kind, its data and its message are declared once
//! in `error/`.

use crate::error::{Error, ErrorDetails as D};

impl Error {
    pub(crate) fn invalid_stream_record(
        event_id: &str,
        sequence_number: Option<&str>,
        reason: impl Into<String>,
    ) -> Self {
        Error::new(D::InvalidStreamRecord {
            event_id: event_id.to_owned(),
            sequence_number: sequence_number.map(str::to_owned),
            reason: reason.into(),
        })
    }
}
