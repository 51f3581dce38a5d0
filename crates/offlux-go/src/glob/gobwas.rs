//! The glob patterns of `.Files.Glob`: Helm compiles them with gobwas/glob and `/` as the
//! separator. `*` is any run of characters but `/`, `**` any run at all (so `**.yaml` reaches
//! into subdirectories and `a/**/b` needs at least one directory between), `?` one character
//! but `/`, `[abc]`, `[a-z]` and `[!…]` one character of (or not of) a class, `{x,y}` one of
//! several patterns, and `\` makes the next character literal.
//!
//! Matching tracks the set of text positions each part can end at, so no pattern backtracks
//! exponentially.

use std::collections::BTreeSet;

const SEPARATOR: char = '/';

#[derive(Clone, Debug, PartialEq)]
enum Item {
    Char(char),
    /// `*`: any run without a separator.
    Star,
    /// `**`: any run.
    Super,
    /// `?`: one character that is not a separator.
    Single,
    /// `[...]`: one character in (or, negated, not in) the ranges.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    /// `{...,...}`: one of the alternatives.
    Any(Vec<Vec<Item>>),
}

/// A compiled pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct Glob {
    items: Vec<Item>,
}

/// A pattern gobwas/glob refuses (an unclosed `[` or `{`, an empty class, a trailing `\`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("invalid glob pattern {pattern:?}: {reason}")]
pub struct GlobError {
    pub pattern: String,
    pub reason: &'static str,
}

impl Glob {
    pub fn new(pattern: &str) -> Result<Glob, GlobError> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut at = 0;
        let error = |reason| GlobError {
            pattern: pattern.to_string(),
            reason,
        };
        let items = parse(&chars, &mut at, false).map_err(error)?;
        if at < chars.len() {
            return Err(error("unexpected `}` or `,`"));
        }
        Ok(Glob { items })
    }

    /// `**`: every path.
    pub fn everything() -> Glob {
        Glob {
            items: vec![Item::Super],
        }
    }

    pub fn is_match(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        ends(&self.items, &chars, BTreeSet::from([0])).contains(&chars.len())
    }
}

/// Items up to the end, or (inside braces) up to an unconsumed `,` or `}`.
fn parse(chars: &[char], at: &mut usize, in_braces: bool) -> Result<Vec<Item>, &'static str> {
    let mut items = Vec::new();
    while let Some(&c) = chars.get(*at) {
        match c {
            ',' | '}' if in_braces => return Ok(items),
            '*' => {
                *at += 1;
                if chars.get(*at) == Some(&'*') {
                    while chars.get(*at) == Some(&'*') {
                        *at += 1;
                    }
                    items.push(Item::Super);
                } else {
                    items.push(Item::Star);
                }
            }
            '?' => {
                *at += 1;
                items.push(Item::Single);
            }
            '\\' => {
                let escaped = chars.get(*at + 1).ok_or("a trailing `\\`")?;
                items.push(Item::Char(*escaped));
                *at += 2;
            }
            '[' => {
                *at += 1;
                items.push(parse_class(chars, at)?);
            }
            '{' => {
                *at += 1;
                let mut alternatives = Vec::new();
                loop {
                    alternatives.push(parse(chars, at, true)?);
                    match chars.get(*at) {
                        Some(',') => *at += 1,
                        Some('}') => {
                            *at += 1;
                            break;
                        }
                        _ => return Err("an unclosed `{`"),
                    }
                }
                items.push(Item::Any(alternatives));
            }
            _ => {
                *at += 1;
                items.push(Item::Char(c));
            }
        }
    }
    Ok(items)
}

/// A class after its `[`, through its `]`.
fn parse_class(chars: &[char], at: &mut usize) -> Result<Item, &'static str> {
    let negated = chars.get(*at) == Some(&'!');
    if negated {
        *at += 1;
    }
    let mut ranges = Vec::new();
    loop {
        let c = *chars.get(*at).ok_or("an unclosed `[`")?;
        *at += 1;
        match c {
            ']' if ranges.is_empty() => return Err("an empty `[]`"),
            ']' => return Ok(Item::Class { negated, ranges }),
            _ if chars.get(*at) == Some(&'-') && chars.get(*at + 1).is_some_and(|&e| e != ']') => {
                let end = *chars.get(*at + 1).ok_or("an unclosed `[`")?;
                *at += 2;
                ranges.push((c, end));
            }
            _ => ranges.push((c, c)),
        }
    }
}

/// The positions `items` can end at, starting from any of `starts`.
fn ends(items: &[Item], text: &[char], starts: BTreeSet<usize>) -> BTreeSet<usize> {
    let mut positions = starts;
    for item in items {
        let mut next = BTreeSet::new();
        for &p in &positions {
            match item {
                Item::Char(c) => {
                    if text.get(p) == Some(c) {
                        next.insert(p + 1);
                    }
                }
                Item::Single => {
                    if text.get(p).is_some_and(|&c| c != SEPARATOR) {
                        next.insert(p + 1);
                    }
                }
                Item::Class { negated, ranges } => {
                    if let Some(&c) = text.get(p) {
                        let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                        if inside != *negated {
                            next.insert(p + 1);
                        }
                    }
                }
                Item::Star => {
                    let run = text
                        .get(p..)
                        .unwrap_or_default()
                        .iter()
                        .take_while(|&&c| c != SEPARATOR)
                        .count();
                    next.extend(p..=p + run);
                }
                Item::Super => next.extend(p..=text.len()),
                Item::Any(alternatives) => {
                    for alternative in alternatives {
                        next.extend(ends(alternative, text, BTreeSet::from([p])));
                    }
                }
            }
        }
        if next.is_empty() {
            return next;
        }
        positions = next;
    }
    positions
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        Glob::new(pattern).unwrap().is_match(text)
    }

    #[test]
    fn b5_files_glob_doublestar_follows_gobwas() {
        // helm template on files/dashboards/{top.yaml,generated/a.yaml}
        assert!(matches(
            "files/dashboards/**.yaml",
            "files/dashboards/top.yaml"
        ));
        assert!(matches(
            "files/dashboards/**.yaml",
            "files/dashboards/generated/a.yaml"
        ));
        assert!(!matches(
            "files/dashboards/**/*.yaml",
            "files/dashboards/top.yaml"
        ));
        assert!(matches(
            "files/dashboards/**/*.yaml",
            "files/dashboards/generated/a.yaml"
        ));
        assert!(!matches(
            "files/dashboards/*.yaml",
            "files/dashboards/generated/a.yaml"
        ));
        assert!(matches("**", "a/b/c"));
        assert!(matches("files/**", "files/a/b"));
    }

    #[test]
    fn classes_alternatives_and_escapes() {
        assert!(matches("f?le", "file"));
        assert!(!matches("a?b", "a/b"));
        assert!(matches("[a-c]x", "bx"));
        assert!(!matches("[!a-c]x", "bx"));
        assert!(matches("[!a-c]x", "dx"));
        assert!(matches("{conf,data}/*.{yaml,json}", "data/x.json"));
        assert!(!matches("{conf,data}/*.{yaml,json}", "data/x.txt"));
        assert!(matches("{a,b/**}.txt", "b/c/d.txt"));
        assert!(matches("\\*", "*"));
        assert!(!matches("\\*", "x"));
        for bad in ["[", "[]", "{a,b", "a\\"] {
            assert!(Glob::new(bad).is_err(), "{bad}");
        }
    }
}
