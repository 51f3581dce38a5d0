//! Shell-style patterns for the prefix and suffix removal operators (`#`, `##`, `%`, `%%`).
//!
//! The syntax is Go's `path.Match` syntax, with the difference upstream's fork makes: `*` matches
//! any run of characters, `/` included (so `${f##*/}` strips a whole directory part). `?` matches
//! one character, `[...]` a class (`^` negates, `a-z` ranges), and `\` escapes the next character.
//! A malformed pattern is an error, which the callers turn into "leave the value alone".

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Star,
    AnyChar,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    Lit(char),
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    toks: Vec<Tok>,
}

/// The pattern is malformed (an unclosed or empty class, a dangling `\`, a bad range).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadPattern;

impl Pattern {
    pub fn compile(pattern: &str) -> Result<Pattern, BadPattern> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut toks = Vec::new();
        let mut i = 0;
        while let Some(&c) = chars.get(i) {
            i += 1;
            match c {
                '*' => toks.push(Tok::Star),
                '?' => toks.push(Tok::AnyChar),
                '\\' => {
                    let &e = chars.get(i).ok_or(BadPattern)?;
                    i += 1;
                    toks.push(Tok::Lit(e));
                }
                '[' => {
                    let (tok, next) = class(&chars, i)?;
                    toks.push(tok);
                    i = next;
                }
                c => toks.push(Tok::Lit(c)),
            }
        }
        Ok(Pattern { toks })
    }

    /// Whether the whole of `name` matches.
    pub fn matches(&self, name: &[char]) -> bool {
        // Classic two-pointer matching with one backtrack point: every token but `*` consumes
        // exactly one character, so retrying from the most recent star is enough.
        let (mut p, mut n) = (0, 0);
        let mut backtrack: Option<(usize, usize)> = None;
        while n < name.len() {
            match self.toks.get(p) {
                Some(Tok::Star) => {
                    backtrack = Some((p, n));
                    p += 1;
                    continue;
                }
                Some(tok) if name.get(n).is_some_and(|&c| single(tok, c)) => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
            match backtrack {
                Some((sp, sn)) => {
                    backtrack = Some((sp, sn + 1));
                    p = sp + 1;
                    n = sn + 1;
                }
                None => return false,
            }
        }
        self.toks
            .get(p..)
            .is_some_and(|rest| rest.iter().all(|t| *t == Tok::Star))
    }
}

fn single(tok: &Tok, c: char) -> bool {
    match tok {
        Tok::Star => false,
        Tok::AnyChar => true,
        Tok::Lit(l) => *l == c,
        Tok::Class { negated, ranges } => {
            ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
        }
    }
}

/// Reads a class whose `[` is just before `start`; returns it and the index after its `]`.
fn class(chars: &[char], start: usize) -> Result<(Tok, usize), BadPattern> {
    let mut i = start;
    let negated = chars.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    loop {
        match chars.get(i) {
            Some(']') if !ranges.is_empty() => return Ok((Tok::Class { negated, ranges }, i + 1)),
            None => return Err(BadPattern),
            Some(_) => {
                let (lo, next) = class_char(chars, i)?;
                i = next;
                let mut hi = lo;
                if chars.get(i) == Some(&'-') {
                    let (h, next) = class_char(chars, i + 1)?;
                    hi = h;
                    i = next;
                }
                ranges.push((lo, hi));
            }
        }
    }
}

/// One character of a class: `-` and `]` must be escaped there.
fn class_char(chars: &[char], i: usize) -> Result<(char, usize), BadPattern> {
    match chars.get(i) {
        None | Some('-' | ']') => Err(BadPattern),
        Some('\\') => chars.get(i + 1).map(|&c| (c, i + 2)).ok_or(BadPattern),
        Some(&c) => Ok((c, i + 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, name: &str) -> bool {
        let chars: Vec<char> = name.chars().collect();
        Pattern::compile(pattern).unwrap().matches(&chars)
    }

    #[test]
    fn star_crosses_slashes() {
        assert!(m("*/", "path/to/"));
        assert!(m("*.txt", "a/b.txt"));
        assert!(!m("*.txt", "a/b.txt2"));
    }

    #[test]
    fn classes_ranges_and_escapes() {
        assert!(m("[a-c]x", "bx"));
        assert!(!m("[^a-c]x", "bx"));
        assert!(m(r"\*", "*"));
        assert!(!m(r"\*", "a"));
        assert!(m("a?c", "abc"));
        // A reversed range is accepted and matches nothing, as in Go.
        assert!(!m("[z-a]", "b"));
    }

    #[test]
    fn malformed_patterns_are_rejected() {
        for bad in ["[", "[]", "[a-", "a\\", "[-a]"] {
            assert_eq!(Pattern::compile(bad).unwrap_err(), BadPattern, "{bad}");
        }
    }
}
