//! Which key templates render without being compiled: the `const`
//! analysis that finds, in a template of the default format with exactly
//! one text placeholder (`CUSTOMER#{id}`), where the placeholder sits.
//! Uses nothing; `pattern` runs it in `KeyPattern`'s constructors.

/// For a template of the default format with exactly one text placeholder
/// that [`compile`](super::template::compile) accepts, the byte range of
/// the placeholder (`{` to `}` inclusive of both, as `open..close`); `None`
/// for any other template (a valid one then renders through its compiled
/// form). Accepts a subset of what `compile` accepts: components separated by
/// `#`, none empty; exactly one `{name}` with a valid name and no format;
/// no other `{`, no `}` outside it and no escape character (`\`).
pub(super) const fn single_placeholder(template: &str) -> Option<(u16, u16)> {
    let b = template.as_bytes();
    if b.is_empty() || b.len() > u16::MAX as usize {
        return None;
    }
    let mut open = None;
    let mut close = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => {
                if open.is_some() {
                    return None;
                }
                open = Some(i);
                // The name: a letter or `_`, then letters, digits or `_`.
                let mut j = i + 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                if j == i + 1 || b[i + 1].is_ascii_digit() || j >= b.len() || b[j] != b'}' {
                    return None;
                }
                close = Some(j + 1);
                i = j + 1;
                continue;
            }
            b'}' | b'\\' => return None,
            // No empty component: no `#` first, last, or after another.
            b'#' if i == 0 || i + 1 == b.len() || b[i - 1] == b'#' => return None,
            _ => {}
        }
        i += 1;
    }
    match (open, close) {
        (Some(open), Some(close)) => Some((open as u16, close as u16)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_const_analysis_finds_the_placeholder_or_declines() {
        assert_eq!(
            crate::KeyPattern::partition("CUSTOMER#{id}").single,
            Some((9, 13))
        );
        assert_eq!(crate::KeyPattern::sort("{id}").single, Some((0, 4)));
        assert_eq!(crate::KeyPattern::sort("A#v{id}x#B").single, Some((3, 7)));
        for declined in [
            "",
            "A",
            "A#{id}#{b}",
            "{n:u2}",
            "#{id}",
            "{id}#",
            "A##{id}",
            "{1a}",
            "{}",
            "A\\#{id}",
            "{id}}",
            "{id",
        ] {
            assert_eq!(crate::KeyPattern::sort(declined).single, None, "{declined}");
        }
        let other = crate::key::KeyFormat::new().with_delimiter('|');
        assert_eq!(
            crate::KeyPattern::sort("A|{id}").with_format(other).single,
            None
        );
        assert_eq!(
            crate::KeyPattern::sort("A#{id}")
                .with_format(crate::key::KeyFormat::new())
                .single,
            Some((2, 6))
        );
    }
}
