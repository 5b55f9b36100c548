//! The set of keys a compiled template can render, as a small NFA over
//! characters: whether a key can start with a prefix, and whether two
//! patterns can render the same key. Built from `template` components.

use std::collections::HashSet;
use std::ops::Bound;

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
    /// A signed number of `width` digits: `P` and any digits, or `N` and
    /// digits that are not all zero (see `encoding::signed`).
    Signed { width: u8 },
    /// One or more escaped text characters: any character but the delimiter
    /// and the escape character, or the escape character followed by one of
    /// them.
    Text { delimiter: char, escape: char },
}

/// NFA state: atom index and sub-state (0: at the atom's start; for text,
/// 1: after an escape character, 2: at least one character read; for a
/// signed number, [`signed_state`] after its sign).
type State = (usize, u8);

/// The sub-state of a signed number after its sign: `read` digits read,
/// whether it is negative and whether a digit so far was not zero.
fn signed_state(read: u8, negative: bool, nonzero: bool) -> u8 {
    1 + read * 4 + u8::from(negative) * 2 + u8::from(nonzero)
}

/// The parts of a [`signed_state`].
fn signed_parts(sub: u8) -> (u8, bool, bool) {
    let n = sub.saturating_sub(1);
    (n / 4, n & 2 != 0, n & 1 != 0)
}

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
                    Encoding::Signed { width } => atoms.push(Atom::Signed { width }),
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

    /// The keys a `begins_with` on a prefix rendered from the pattern of
    /// `components` selects, as [`BoundPattern::prefix`](super::BoundPattern::prefix)
    /// renders it with values for the placeholders `bound` names: the
    /// pattern up to its first placeholder without a value (the literal
    /// text before it included), or, every placeholder bound, the whole key
    /// and a delimiter. The keys selected are those that start with a
    /// string of this language.
    pub(super) fn of_prefix(
        components: &[Component],
        format: KeyFormat,
        bound: &dyn Fn(&str) -> bool,
    ) -> Language {
        let mut end = components.len();
        let mut cut = None;
        for (i, component) in components.iter().enumerate() {
            if let Some(slot) = component.slot
                && !bound(slot.name)
            {
                end = i;
                cut = Some(component.before);
                break;
            }
        }
        let mut language = Language::of(components.get(..end).unwrap_or_default(), format);
        match cut {
            Some(before) => {
                if end > 0 {
                    language.atoms.push(Atom::Lit(format.delimiter));
                }
                language.atoms.extend(before.chars().map(Atom::Lit));
            }
            None => language.atoms.push(Atom::Lit(format.delimiter)),
        }
        language
    }

    /// The one string `text`.
    pub(super) fn literal(text: &str) -> Language {
        Language {
            atoms: text.chars().map(Atom::Lit).collect(),
        }
    }

    /// Whether the atom of `state` has read a whole value (text: at least
    /// one character; a signed number: all its digits, not all zero after
    /// `N`), so the next atom may start.
    fn finished(&self, (atom, sub): State) -> bool {
        match self.atoms.get(atom) {
            Some(Atom::Text { .. }) => sub == 2,
            Some(Atom::Signed { width }) if sub > 0 => {
                let (read, negative, nonzero) = signed_parts(sub);
                read == *width && (!negative || nonzero)
            }
            _ => false,
        }
    }

    fn close(&self, states: &mut Vec<State>) {
        let mut i = 0;
        while let Some(&(atom, sub)) = states.get(i) {
            if self.finished((atom, sub)) && !states.contains(&(atom + 1, 0)) {
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
            (Some(Atom::Signed { .. }), 0) if c == 'N' || c == 'P' => {
                push((atom, signed_state(0, c == 'N', false)));
            }
            (Some(Atom::Signed { width }), sub) if sub > 0 && c.is_ascii_digit() => {
                let (read, negative, nonzero) = signed_parts(sub);
                let nonzero = nonzero || c != '0';
                // A negative number's digits are never all zero (`N00` is no
                // value): its last digit leads nowhere if they would be, so
                // no prefix ending in that dead end counts as a key's start.
                if read < *width && !(read + 1 == *width && negative && !nonzero) {
                    push((atom, signed_state(read + 1, negative, nonzero)));
                }
            }
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
                Atom::Digit | Atom::Signed { .. } => {}
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
        self.common_example(other).is_some()
    }
}

/// The characters a search tries at one position: both bounds' characters
/// (to stay on a bound), and characters strictly between them that some
/// atom may accept (the literals, digits, signs, delimiter and escape
/// characters of the pattern, and the neighbours of each bound, which
/// stand for "any other character" of a text atom).
fn successor(c: char) -> Option<char> {
    (u32::from(c) + 1..=0x10_FFFF).find_map(char::from_u32)
}

fn predecessor(c: char) -> Option<char> {
    (0..u32::from(c)).rev().find_map(char::from_u32)
}

impl Language {
    /// The characters of the atoms: literals, delimiter and escape
    /// characters, digits and signs.
    fn own_chars(&self) -> Vec<char> {
        let mut chars: Vec<char> = ('0'..='9').chain(['N', 'P']).collect();
        for atom in &self.atoms {
            match *atom {
                Atom::Lit(c) => chars.push(c),
                Atom::Text { delimiter, escape } => chars.extend([delimiter, escape]),
                Atom::Digit | Atom::Signed { .. } => {}
            }
        }
        chars
    }

    /// A shortest string that takes `states` to acceptance (breadth first
    /// over a representative alphabet); `None` when no state is live.
    fn completion(&self, states: &[State]) -> Option<String> {
        // Lowercase letters first: examples read `USERGROUP#a`, not `#0`.
        let mut alphabet = self.alphabet(self);
        alphabet.sort_by_key(|c| !c.is_ascii_lowercase());
        let mut seen: Vec<Vec<State>> = Vec::new();
        let mut queue: std::collections::VecDeque<(Vec<State>, String)> =
            std::collections::VecDeque::new();
        let mut first = states.to_vec();
        first.sort_unstable();
        seen.push(first.clone());
        queue.push_back((first, String::new()));
        while let Some((states, text)) = queue.pop_front() {
            if states.iter().any(|&s| self.accepts(s)) {
                return Some(text);
            }
            for &c in &alphabet {
                let mut next = self.advance(&states, c);
                if next.is_empty() {
                    continue;
                }
                next.sort_unstable();
                if !seen.contains(&next) {
                    seen.push(next.clone());
                    let mut longer = text.clone();
                    longer.push(c);
                    queue.push_back((next, longer));
                }
            }
        }
        None
    }

    /// A string of the language that starts with `prefix`, if there is one:
    /// the example behind a "can start with" answer.
    pub(super) fn example_with_prefix(&self, prefix: &str) -> Option<String> {
        let mut states = self.start();
        for c in prefix.chars() {
            states = self.advance(&states, c);
            if states.is_empty() {
                return None;
            }
        }
        self.completion(&states)
            .map(|rest| format!("{prefix}{rest}"))
    }

    /// A string both languages contain, if there is one: the example behind
    /// an `intersects` answer.
    pub(super) fn common_example(&self, other: &Language) -> Option<String> {
        self.search_with(other, |a, b| self.accepts(a) && other.accepts(b))
            .map(|(text, _)| text)
    }

    /// The shortest string both languages read (breadth first over the
    /// pairs of their states) after which `done` holds, and the pair.
    fn search_with(
        &self,
        other: &Language,
        done: impl Fn(State, State) -> bool,
    ) -> Option<(String, (State, State))> {
        let alphabet = self.alphabet(other);
        let mut seen: HashSet<(State, State)> = HashSet::new();
        let mut queue: std::collections::VecDeque<((State, State), String)> =
            std::collections::VecDeque::new();
        for a in self.start() {
            for b in other.start() {
                if seen.insert((a, b)) {
                    queue.push_back(((a, b), String::new()));
                }
            }
        }
        while let Some(((a, b), text)) = queue.pop_front() {
            if done(a, b) {
                return Some((text, (a, b)));
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
                            let mut longer = text.clone();
                            longer.push(c);
                            queue.push_back(((na, nb), longer));
                        }
                    }
                }
            }
        }
        None
    }

    /// A string of this language that starts with a string of `starts`,
    /// if there is one: whether a `begins_with` on some prefix of `starts`
    /// can select this language's keys, and the example behind the answer.
    pub(super) fn example_starting_with(&self, starts: &Language) -> Option<String> {
        let (text, (a, _)) = self.search_with(starts, |_, b| starts.accepts(b))?;
        // Every live state of this language completes to a key.
        self.completion(&[a]).map(|rest| format!("{text}{rest}"))
    }

    /// A string of the language within the bounds (compared as DynamoDB
    /// compares strings, by UTF-8 bytes, which is code point order), if
    /// there is one.
    ///
    /// A depth-first walk along the bounds: while the string read so far
    /// equals a bound's start, the next character may not cross it; once it
    /// is strictly inside both bounds, any completion will do. Each step
    /// either stays on a bound or leaves it, so the walk is linear in the
    /// bounds' length.
    pub(super) fn example_in_range(&self, low: Bound<&str>, high: Bound<&str>) -> Option<String> {
        let chars = |b: Bound<&str>| match b {
            Bound::Included(s) => Some((s.chars().collect::<Vec<char>>(), true)),
            Bound::Excluded(s) => Some((s.chars().collect::<Vec<char>>(), false)),
            Bound::Unbounded => None,
        };
        let walk = RangeWalk {
            language: self,
            low: chars(low),
            high: chars(high),
            own: self.own_chars(),
        };
        let mut text = String::new();
        let tight_low = walk.low.is_some();
        let tight_high = walk.high.is_some();
        walk.search(self.start(), &mut text, 0, tight_low, tight_high)
            .then_some(text)
    }
}

/// The bounds of [`Language::example_in_range`] as characters, each with
/// whether it is included.
struct RangeWalk<'l> {
    language: &'l Language,
    low: Option<(Vec<char>, bool)>,
    high: Option<(Vec<char>, bool)>,
    own: Vec<char>,
}

impl RangeWalk<'_> {
    /// Whether `text` (read so far, leading to `states`) extends to a string
    /// of the language within the bounds; on success `text` is that string.
    /// `on_low`/`on_high`: `text` equals the bound's first `pos` characters.
    fn search(
        &self,
        states: Vec<State>,
        text: &mut String,
        pos: usize,
        on_low: bool,
        on_high: bool,
    ) -> bool {
        if states.is_empty() {
            return false;
        }
        let (low, low_included) = self
            .low
            .as_ref()
            .map_or((&[][..], true), |(c, i)| (&c[..], *i));
        let (high, high_included) = self
            .high
            .as_ref()
            .map_or((&[][..], true), |(c, i)| (&c[..], *i));
        let at_low_end = on_low && pos == low.len();
        let at_high_end = on_high && pos == high.len();
        let accepting = states.iter().any(|&s| self.language.accepts(s));
        // `text` itself: below `low` while it is a proper start of it.
        let low_ok = !on_low || (at_low_end && low_included);
        let high_ok = !on_high || !at_high_end || high_included;
        if accepting && low_ok && high_ok {
            return true;
        }
        if at_high_end {
            // Anything longer is above `high`.
            return false;
        }
        // Anything longer than `low` itself is above it; `text` equal to an
        // excluded `low` must grow by a character first.
        let must_grow = at_low_end && !low_included;
        let on_low = on_low && !at_low_end;
        if !on_low && !on_high {
            if !must_grow {
                if let Some(rest) = self.language.completion(&states) {
                    text.push_str(&rest);
                    return true;
                }
                return false;
            }
            for c in self.language.alphabet(self.language) {
                let next = self.language.advance(&states, c);
                if let Some(rest) = (!next.is_empty())
                    .then(|| self.language.completion(&next))
                    .flatten()
                {
                    text.push(c);
                    text.push_str(&rest);
                    return true;
                }
            }
            return false;
        }
        let floor = if on_low { low.get(pos).copied() } else { None };
        let ceiling = if on_high {
            high.get(pos).copied()
        } else {
            None
        };
        // Strictly between the bounds: then any completion will do.
        let mut inside: Vec<char> = self.own.clone();
        for bound in [floor, ceiling].into_iter().flatten() {
            let mut up = Some(bound);
            let mut down = Some(bound);
            for _ in 0..3 {
                up = up.and_then(successor);
                down = down.and_then(predecessor);
                inside.extend(up);
                inside.extend(down);
            }
        }
        inside.extend(['\0', 'a', char::MAX]);
        inside.sort_unstable();
        inside.dedup();
        let between = |c: char| floor.is_none_or(|f| c > f) && ceiling.is_none_or(|h| c < h);
        for c in inside.into_iter().filter(|&c| between(c)) {
            let next = self.language.advance(&states, c);
            if next.is_empty() {
                continue;
            }
            let len = text.len();
            text.push(c);
            if self.search(next, text, pos + 1, false, false) {
                return true;
            }
            text.truncate(len);
        }
        // Along a bound.
        for (c, stays_low, stays_high) in [
            floor
                .filter(|f| ceiling.is_none_or(|h| *f <= h))
                .map(|f| (f, true, ceiling == Some(f))),
            ceiling
                .filter(|h| floor.is_none_or(|f| f < *h))
                .map(|h| (h, false, true)),
        ]
        .into_iter()
        .flatten()
        {
            let next = self.language.advance(&states, c);
            let len = text.len();
            text.push(c);
            if self.search(next, text, pos + 1, stays_low, stays_high) {
                return true;
            }
            text.truncate(len);
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
            Language::of(&compile(t, KeyFormat::new()).unwrap(), KeyFormat::new())
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
