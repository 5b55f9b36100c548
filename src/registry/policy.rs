//! The policies for items no registered mapper decodes: [`UnknownPolicy`]
//! (a discriminator no mapper reads) and [`MissingPolicy`] (no string
//! discriminator), and the [`Action`] both come down to.

/// What decoding does with an item whose discriminator names an entity type
/// no registered mapper reads.
///
/// ```
/// use dynamodb_mapper::UnknownPolicy;
///
/// assert_eq!(UnknownPolicy::default(), UnknownPolicy::Error);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UnknownPolicy {
    /// Fail with
    /// [`ErrorKind::UnknownEntityType`](crate::ErrorKind::UnknownEntityType)
    /// (the default).
    #[default]
    Error,
    /// Return [`Decoded::Skipped`](super::Decoded::Skipped): the item's key and
    /// discriminator value, not the item.
    Skip,
    /// Return [`Decoded::Raw`](super::Decoded::Raw): the whole item, untouched.
    Keep,
}

/// What decoding does with an item that has no discriminator attribute, or
/// one that is not a string.
///
/// ```
/// use dynamodb_mapper::MissingPolicy;
///
/// assert_eq!(MissingPolicy::default(), MissingPolicy::Error);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MissingPolicy {
    /// Fail with
    /// [`ErrorKind::MissingDiscriminator`](crate::ErrorKind::MissingDiscriminator)
    /// (the default).
    #[default]
    Error,
    /// Return [`Decoded::Skipped`](super::Decoded::Skipped): the item's key,
    /// not the item.
    Skip,
    /// Return [`Decoded::Raw`](super::Decoded::Raw): the whole item, untouched.
    Keep,
}

#[derive(Clone, Copy)]
pub(super) enum Action {
    Error,
    Skip,
    Keep,
}

impl From<UnknownPolicy> for Action {
    fn from(p: UnknownPolicy) -> Self {
        match p {
            UnknownPolicy::Error => Action::Error,
            UnknownPolicy::Skip => Action::Skip,
            UnknownPolicy::Keep => Action::Keep,
        }
    }
}

impl From<MissingPolicy> for Action {
    fn from(p: MissingPolicy) -> Self {
        match p {
            MissingPolicy::Error => Action::Error,
            MissingPolicy::Skip => Action::Skip,
            MissingPolicy::Keep => Action::Keep,
        }
    }
}
