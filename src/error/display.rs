//! The pieces [`Error`](super::Error)'s messages are made of: the entity
//! type and key in front, lists, counts and the found/expected parts.

use std::fmt;

use super::CanceledAction;

pub(super) struct Prefix<'a>(pub(super) &'a Option<String>);
impl fmt::Display for Prefix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(t) => write!(f, "{t}: "),
            None => Ok(()),
        }
    }
}

/// The entity type and the item's key: `Customer (pk="C#1", sk="M"): `, or
/// `item (pk="C#1"): ` without an entity type.
pub(super) struct KeyedPrefix<'a>(
    pub(super) &'a Option<String>,
    pub(super) &'a Option<Box<str>>,
);
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

pub(super) struct Largest<'a>(pub(super) &'a [(String, usize)]);
impl fmt::Display for Largest<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, size)) in self.0.iter().enumerate() {
            let lead = if i == 0 {
                "; largest attributes: "
            } else {
                ", "
            };
            write!(f, "{lead}`{name}` {size} bytes")?;
        }
        Ok(())
    }
}

pub(super) struct At<'a>(pub(super) &'a Option<String>);
impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, " attribute `{p}`"),
            None => Ok(()),
        }
    }
}

pub(super) struct Found<'a>(pub(super) &'a Option<String>);
impl fmt::Display for Found<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, " (found {p})"),
            None => Ok(()),
        }
    }
}

pub(super) struct Expected2<'a>(pub(super) &'a Option<u64>);
impl fmt::Display for Expected2<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
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
}

pub(super) struct Canceled<'a>(pub(super) &'a [CanceledAction]);
impl fmt::Display for Canceled<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("no reason given");
        }
        for (i, action) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{action}")?;
        }
        Ok(())
    }
}

pub(super) struct Expected<'a>(pub(super) &'a [String]);
impl fmt::Display for Expected<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [one] => write!(f, "{one:?}"),
            many => {
                f.write_str("one of ")?;
                for (i, v) in many.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v:?}")?;
                }
                Ok(())
            }
        }
    }
}

pub(super) struct NoReader<'a>(pub(super) &'a Option<String>, pub(super) &'a [String]);
impl fmt::Display for NoReader<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("no registered mapper reads (registered: ")?,
            Some(g) => write!(f, "no mapper of group {g:?} reads (members: ")?,
        }
        for (i, v) in self.1.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{v:?}")?;
        }
        f.write_str(")")
    }
}

pub(super) struct Counted(pub(super) usize, pub(super) &'static str);
impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.0 == 1 { "" } else { "s" };
        write!(f, "{} {}{s}", self.0, self.1)
    }
}

pub(super) struct Joined<'a>(pub(super) &'a [String]);
impl fmt::Display for Joined<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            f.write_str(p)?;
        }
        Ok(())
    }
}

pub(super) struct Unclaimed<'a>(pub(super) &'a [(Option<String>, usize)]);
impl fmt::Display for Unclaimed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n: usize = self.0.iter().map(|(_, c)| c).sum();
        if n == 1 {
            f.write_str("1 item was")
        } else {
            write!(f, "{n} items were")
        }
    }
}

pub(super) struct UnclaimedList<'a>(pub(super) &'a [(Option<String>, usize)], pub(super) &'a str);
impl fmt::Display for UnclaimedList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (value, count)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match value {
                Some(v) => write!(f, "{count} of {v:?}")?,
                None => write!(f, "{count} without discriminator `{}`", self.1)?,
            }
        }
        Ok(())
    }
}
