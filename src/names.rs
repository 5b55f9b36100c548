//! A fixed set of attribute names looked up without hashing: the names are
//! kept sorted by length, with where each length starts, so a lookup
//! compares only names of its own length (one or two, mostly), and their
//! first byte before the rest. Built once per type and cached by its users:
//! an entity's fields (`fields.rs`) and the attributes a mapper owns
//! (`mapper/owned.rs`). A SipHash of a short name costs more than the whole
//! lookup.

/// Names of one set, each with a value.
#[derive(Debug)]
pub(crate) struct ByLength<V> {
    /// (name, value), sorted by (length, name).
    entries: Vec<(Box<str>, V)>,
    /// `starts[n]..starts[n + 1]` is the range of `entries` holding the
    /// names of `n` bytes; a name longer than every one is none.
    starts: Vec<usize>,
}

impl<V> ByLength<V> {
    /// The set of `entries`; a name given twice keeps its first value.
    pub(crate) fn new(entries: impl IntoIterator<Item = (Box<str>, V)>) -> Self {
        let mut entries: Vec<(Box<str>, V)> = entries.into_iter().collect();
        // Stable: of a name given twice, the first stays first.
        entries.sort_by(|(a, _), (b, _)| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        entries.dedup_by(|later, first| later.0 == first.0);
        let longest = entries.last().map_or(0, |(s, _)| s.len());
        let starts = (0..=longest + 1)
            .map(|n| entries.partition_point(|(s, _)| s.len() < n))
            .collect();
        ByLength { entries, starts }
    }

    /// The value of `name`, if the set holds it.
    pub(crate) fn get(&self, name: &str) -> Option<&V> {
        let n = name.len();
        let (Some(&start), Some(&end)) = (self.starts.get(n), self.starts.get(n + 1)) else {
            return None;
        };
        // Names of one length mostly differ in their first byte: compared
        // before the call that compares the rest.
        let first = name.as_bytes().first();
        self.entries
            .get(start..end)?
            .iter()
            .find(|(s, _)| s.as_bytes().first() == first && s.as_bytes() == name.as_bytes())
            .map(|(_, value)| value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name of the set is found with its value, and no other name,
    /// whatever its length or bytes: a lookup agrees with a scan.
    #[test]
    fn finds_what_a_scan_finds() {
        let names = [
            "pk",
            "sk",
            "gsi1pk",
            "gsi1sk",
            "gsi2pk",
            "entityType",
            "recordType",
            "ttl",
            "héllo",
            "",
        ];
        let set = ByLength::new(names.iter().enumerate().map(|(i, n)| (Box::from(*n), i)));
        let probes = names.iter().copied().chain([
            "p",
            "pkk",
            "gsi3pk",
            "gsi1p",
            "hello",
            "héllO",
            "entitytype",
            "a-very-long-name",
        ]);
        for probe in probes {
            let scanned = names.iter().position(|n| *n == probe);
            assert_eq!(set.get(probe).copied(), scanned, "{probe:?}");
        }
    }

    /// A name given twice keeps its first value; an empty set finds nothing.
    #[test]
    fn keeps_the_first_of_a_repeated_name() {
        let set = ByLength::new([("b", 1), ("a", 2), ("b", 3)].map(|(n, v)| (Box::from(n), v)));
        assert_eq!((set.get("a"), set.get("b")), (Some(&2), Some(&1)));
        let empty = ByLength::<()>::new([]);
        assert_eq!((empty.get(""), empty.get("a")), (None, None));
    }
}
