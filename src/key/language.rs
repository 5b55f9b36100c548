//! The set of keys a compiled template can render, as a small NFA over
//! characters: whether a key can start with a prefix, and whether two
//! patterns can render the same key. Built from `template` components.

use std::collections::HashSet;

use super::encoding::Encoding;
use super::format::KeyFormat;
use super::template::Component;

/// One step of a pattern's rendered form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Atom {
    /// Exactly this character.
    Lit(char),
    /// One ASCII digit.
    Digit,
    /// `N` or `P`.
    Sign,
    /// One or more escaped text characters: any character but the delimiter
    /// and the escape character, or the escape character followed by one of
    /// them.
    Text { delimiter: char, escape: char },
}

/// NFA state: atom index and sub-state (0: at the atom's start; for text,
/// 1: after an escape character, 2: at least one character read).
type State = (usize, u8);

/// The set of strings a pattern renders, as a small NFA over characters.
/// Digit positions of timestamps accept any digit, so it is a superset of
/// the valid renderings there (the analysis may only err towards reporting).
#[derive(Debug)]
pub(super) struct Language {
    atoms: Vec<Atom>,
}

impl Language {
    pub(super) fn of(components: &[Component], format: KeyFormat) -> Language {
        let mut atoms = Vec::new();
        for (i, component) in components.iter().enumerate() {
            if i > 0 {
                atoms.push(Atom::Lit(format.delimiter));
            }
            atoms.extend(component.before.chars().map(Atom::Lit));
            if let Some(slot) = component.slot {
                match slot.encoding {
                    Encoding::Text => atoms.push(Atom::Text {
                        delimiter: format.delimiter,
                        escape: format.escape,
                    }),
                    Encoding::Unsigned { width } => {
                        atoms.extend(std::iter::repeat_n(Atom::Digit, usize::from(width)));
                    }
                    Encoding::Signed { width } => {
                        atoms.push(Atom::Sign);
                        atoms.extend(std::iter::repeat_n(Atom::Digit, usize::from(width)));
                    }
                    Encoding::Timestamp { fraction_digits } => {
                        for c in "dddd-dd-ddTdd:dd:dd".chars() {
                            atoms.push(if c == 'd' { Atom::Digit } else { Atom::Lit(c) });
                        }
                        if fraction_digits > 0 {
                            atoms.push(Atom::Lit('.'));
                            atoms.extend(std::iter::repeat_n(
                                Atom::Digit,
                                usize::from(fraction_digits),
                            ));
                        }
                        atoms.push(Atom::Lit('Z'));
                    }
                }
            }
            atoms.extend(component.after.chars().map(Atom::Lit));
        }
        Language { atoms }
    }

    fn close(&self, states: &mut Vec<State>) {
        let mut i = 0;
        while let Some(&(atom, sub)) = states.get(i) {
            if sub == 2 && !states.contains(&(atom + 1, 0)) {
                states.push((atom + 1, 0));
            }
            i += 1;
        }
    }

    fn start(&self) -> Vec<State> {
        let mut states = vec![(0, 0)];
        self.close(&mut states);
        states
    }

    fn step(&self, (atom, sub): State, c: char, out: &mut Vec<State>) {
        let mut push = |s: State| {
            if !out.contains(&s) {
                out.push(s);
            }
        };
        match (self.atoms.get(atom), sub) {
            (Some(Atom::Lit(x)), 0) if c == *x => push((atom + 1, 0)),
            (Some(Atom::Digit), 0) if c.is_ascii_digit() => push((atom + 1, 0)),
            (Some(Atom::Sign), 0) if c == 'N' || c == 'P' => push((atom + 1, 0)),
            (Some(Atom::Text { delimiter, escape }), 0 | 2) => {
                if c == *escape {
                    push((atom, 1));
                } else if c != *delimiter {
                    push((atom, 2));
                }
            }
            (Some(Atom::Text { delimiter, escape }), 1) if c == *delimiter || c == *escape => {
                push((atom, 2));
            }
            _ => {}
        }
    }

    fn advance(&self, states: &[State], c: char) -> Vec<State> {
        let mut out = Vec::new();
        for &s in states {
            self.step(s, c, &mut out);
        }
        self.close(&mut out);
        out
    }

    fn accepts(&self, state: State) -> bool {
        state == (self.atoms.len(), 0)
    }

    /// Whether some string of the language starts with `prefix`. Every atom
    /// accepts some string, so any live state can be completed.
    pub(super) fn can_start_with(&self, prefix: &str) -> bool {
        let mut states = self.start();
        for c in prefix.chars() {
            states = self.advance(&states, c);
            if states.is_empty() {
                return false;
            }
        }
        true
    }

    /// Characters that stand for every class of characters the atoms of
    /// either language tell apart.
    fn alphabet(&self, other: &Language) -> Vec<char> {
        let mut chars: Vec<char> = ('0'..='9').chain(['N', 'P']).collect();
        for atom in self.atoms.iter().chain(&other.atoms) {
            match *atom {
                Atom::Lit(c) => chars.push(c),
                Atom::Text { delimiter, escape } => chars.extend([delimiter, escape]),
                Atom::Digit | Atom::Sign => {}
            }
        }
        chars.sort_unstable();
        chars.dedup();
        // One character none of the atoms singles out.
        if let Some(fresh) = ('a'..='z')
            .chain('A'..='Z')
            .chain('\u{E000}'..='\u{F8FF}')
            .find(|c| chars.binary_search(c).is_err())
        {
            chars.push(fresh);
        }
        chars
    }

    /// Whether the two languages share a string.
    pub(super) fn intersects(&self, other: &Language) -> bool {
        let alphabet = self.alphabet(other);
        let mut seen: HashSet<(State, State)> = HashSet::new();
        let mut queue: Vec<(State, State)> = Vec::new();
        for a in self.start() {
            for b in other.start() {
                if seen.insert((a, b)) {
                    queue.push((a, b));
                }
            }
        }
        while let Some((a, b)) = queue.pop() {
            if self.accepts(a) && other.accepts(b) {
                return true;
            }
            for &c in &alphabet {
                let next_a = self.advance(&[a], c);
                if next_a.is_empty() {
                    continue;
                }
                let next_b = other.advance(&[b], c);
                for &na in &next_a {
                    for &nb in &next_b {
                        if seen.insert((na, nb)) {
                            queue.push((na, nb));
                        }
                    }
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::template::compile;

    #[test]
    fn languages() {
        // What `KeyPattern::sort(t).language()` builds, without the layer above.
        let lang = |t: &'static str| {
            Language::of(&compile(t, KeyFormat::DEFAULT).unwrap(), KeyFormat::DEFAULT)
        };
        assert!(lang("ORDER#{id}").can_start_with("ORDER#"));
        assert!(lang("ORDER#{id}").can_start_with(r"ORDER#a\#"));
        assert!(!lang("ORDER#{id}").can_start_with(r"ORDER#a\x"));
        assert!(!lang("ORDER#{id}").can_start_with("ORDER##"));
        assert!(lang("A#{n:i2}").can_start_with("A#N9"));
        assert!(!lang("A#{n:i2}").can_start_with("A#-"));
        assert!(lang("{at:ts3}").intersects(&lang("2024-{x}")));
        assert!(!lang("{at:ts3}").intersects(&lang("2024-{x}#y")));
        assert!(lang("v{n:u2}x").intersects(&lang("{a}")));
        assert!(!lang("v{n:u2}x").intersects(&lang("v{a}y")));
        assert!(lang("{a}").intersects(&lang("Zzz")));
    }
}
