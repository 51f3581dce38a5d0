//! The two glob dialects source-watcher uses: Go's `path.Match` (segment-wise, `*` and `?` never
//! cross `/`, `**` is just `*`), which `fs.Glob` applies to copy patterns, and doublestar's
//! (`**` as a whole segment spans any number of segments, `{a,b}` alternatives), which exclude
//! patterns and `Extract` globs use.

/// A pattern that is not valid in its dialect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadPattern;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Char(char),
    /// `?`: one character other than `/`.
    Any,
    /// `*`: any run of characters other than `/`.
    Star,
    /// `[...]`: one character (other than `/`) in (or, negated, not in) the ranges.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

/// Whether `text` holds any of Go's glob metacharacters (`fs.Glob`'s `hasMeta`).
pub(crate) fn has_meta(text: &str) -> bool {
    text.contains(['*', '?', '[', '\\'])
}

/// Whether a copy pattern is a glob, as the builder decides it (`* ? [ ]`).
pub(crate) fn is_glob(text: &str) -> bool {
    text.contains(['*', '?', '[', ']'])
}

fn tokens(pattern: &str) -> Result<Vec<Token>, BadPattern> {
    let mut out = Vec::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => out.push(Token::Star),
            '?' => out.push(Token::Any),
            '\\' => out.push(Token::Char(chars.next().ok_or(BadPattern)?)),
            '[' => {
                let negated = chars.next_if_eq(&'^').is_some();
                let mut ranges = Vec::new();
                loop {
                    let Some(c) = chars.next() else {
                        return Err(BadPattern);
                    };
                    if c == ']' && !ranges.is_empty() {
                        break;
                    }
                    let escaped =
                        |c: char, chars: &mut std::iter::Peekable<std::str::Chars>| match c {
                            '\\' => chars.next().ok_or(BadPattern),
                            '-' | ']' => Err(BadPattern),
                            c => Ok(c),
                        };
                    let low = escaped(c, &mut chars)?;
                    let high = if chars.next_if_eq(&'-').is_some() {
                        let c = chars.next().ok_or(BadPattern)?;
                        escaped(c, &mut chars)?
                    } else {
                        low
                    };
                    ranges.push((low, high));
                }
                out.push(Token::Class { negated, ranges });
            }
            c => out.push(Token::Char(c)),
        }
    }
    Ok(out)
}

fn matches_one(token: &Token, c: char) -> bool {
    match token {
        Token::Char(want) => *want == c,
        Token::Any => c != '/',
        Token::Star => false,
        Token::Class { negated, ranges } => {
            c != '/' && ranges.iter().any(|(lo, hi)| *lo <= c && c <= *hi) != *negated
        }
    }
}

fn match_tokens(tokens: &[Token], text: &[char]) -> bool {
    // Iterative matching with one backtrack point per star, as a shell matcher does.
    let (mut t, mut s) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while s < text.len() {
        match tokens.get(t) {
            Some(Token::Star) => {
                star = Some((t, s));
                t += 1;
            }
            Some(token) if text.get(s).is_some_and(|c| matches_one(token, *c)) => {
                t += 1;
                s += 1;
            }
            _ => match star {
                Some((star_t, star_s)) if text.get(star_s).is_some_and(|c| *c != '/') => {
                    star = Some((star_t, star_s + 1));
                    t = star_t + 1;
                    s = star_s + 1;
                }
                _ => return false,
            },
        }
    }
    tokens
        .get(t..)
        .is_some_and(|rest| rest.iter().all(|t| *t == Token::Star))
}

/// Go's `path.Match`: `*` and `?` never match `/`; a malformed pattern is an error.
pub fn go_match(pattern: &str, name: &str) -> Result<bool, BadPattern> {
    let tokens = tokens(pattern)?;
    let text: Vec<char> = name.chars().collect();
    Ok(match_tokens(&tokens, &text))
}

/// Checks a doublestar pattern's syntax (brackets, braces, escapes).
pub(crate) fn doublestar_valid(pattern: &str) -> bool {
    expand_braces(pattern).is_ok_and(|alternatives| {
        alternatives
            .iter()
            .all(|p| p.split('/').all(|segment| tokens(segment).is_ok()))
    })
}

/// Doublestar's `Match`: `**` as a whole segment matches zero or more segments (so `a/**` matches
/// `a` itself); `{a,b}` alternatives; otherwise `path.Match` per segment.
pub fn doublestar_match(pattern: &str, name: &str) -> bool {
    let Ok(alternatives) = expand_braces(pattern) else {
        return false;
    };
    let parts: Vec<&str> = if name.is_empty() {
        Vec::new()
    } else {
        name.split('/').collect()
    };
    alternatives.iter().any(|alternative| {
        let segments: Vec<&str> = alternative.split('/').collect();
        match_segments(&segments, &parts)
    })
}

/// Whether `pattern`'s segments match `parts`, `**` taking any number of them. A table over
/// (pattern segment, part) filled from the end: each segment is tried against each part once,
/// so `**/**/**/…` costs segments times parts, not parts to the power of the stars.
fn match_segments(pattern: &[&str], parts: &[&str]) -> bool {
    // `next[j]`: the pattern after segment i matches `parts[j..]`.
    let mut next: Vec<bool> = (0..=parts.len()).map(|j| j == parts.len()).collect();
    for segment in pattern.iter().rev() {
        let mut here = vec![false; parts.len() + 1];
        if *segment == "**" {
            let mut any = false;
            for j in (0..=parts.len()).rev() {
                any |= next.get(j).copied().unwrap_or(false);
                if let Some(slot) = here.get_mut(j) {
                    *slot = any;
                }
            }
        } else {
            for (j, part) in parts.iter().enumerate() {
                if next.get(j + 1).copied().unwrap_or(false)
                    && go_match(segment, part).unwrap_or(false)
                {
                    if let Some(slot) = here.get_mut(j) {
                        *slot = true;
                    }
                }
            }
        }
        next = here;
    }
    next.first().copied().unwrap_or(false)
}

/// The most alternatives a pattern's braces may expand to: `{a,b}` twenty times over is a
/// million patterns, built before anything is matched.
const MAX_BRACE_ALTERNATIVES: usize = 1024;

/// `{a,b}c` → `ac`, `bc`, nested braces included; an unbalanced brace is an error.
fn expand_braces(pattern: &str) -> Result<Vec<String>, BadPattern> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut depth = 0usize;
    let mut open = None;
    let mut escaped = false;
    for (i, c) in chars.iter().enumerate() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '{' => {
                if depth == 0 {
                    open = Some(i);
                }
                depth += 1;
            }
            '}' => {
                depth = depth.checked_sub(1).ok_or(BadPattern)?;
                if depth == 0 {
                    let start = open.ok_or(BadPattern)?;
                    let head: String = chars.get(..start).unwrap_or_default().iter().collect();
                    let inner: Vec<char> = chars.get(start + 1..i).unwrap_or_default().to_vec();
                    let tail: String = chars.get(i + 1..).unwrap_or_default().iter().collect();
                    let mut out = Vec::new();
                    for alternative in split_top_level(&inner) {
                        for rest in expand_braces(&format!("{alternative}{tail}"))? {
                            out.push(format!("{head}{rest}"));
                            if out.len() > MAX_BRACE_ALTERNATIVES {
                                return Err(BadPattern);
                            }
                        }
                    }
                    return Ok(out);
                }
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(BadPattern);
    }
    Ok(vec![pattern.to_string()])
}

fn split_top_level(chars: &[char]) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut depth = 0usize;
    for c in chars {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = parts.last_mut() {
            last.push(*c);
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 35: globs that used to take exponential time or memory.
    #[test]
    fn many_double_stars_and_braces_are_bounded() {
        let started = std::time::Instant::now();
        let pattern = format!("{}x", "**/".repeat(30));
        let deep = "d/".repeat(200);
        assert!(!doublestar_match(&pattern, &format!("{deep}y")));
        assert!(doublestar_match(&pattern, &format!("{deep}x")));
        assert!(doublestar_match("a/**/b/**/c", "a/x/b/y/z/c"));
        assert!(!doublestar_match("a/**/b/**/c", "a/x/c/y/z/b"));
        assert!(doublestar_match("a/**", "a"));
        let stars = format!("{}b", "*a".repeat(40));
        assert_eq!(go_match(&stars, &"a".repeat(4000)), Ok(false));
        let braces = "{a,b}".repeat(20);
        assert!(!doublestar_valid(&braces));
        assert!(!doublestar_match(&braces, "ab"));
        assert!(doublestar_match("{a,b}{c,d}", "bc"));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn go_stars_stay_within_a_segment() {
        assert_eq!(go_match("*.yaml", "a.yaml"), Ok(true));
        assert_eq!(go_match("*.yaml", "d/a.yaml"), Ok(false));
        assert_eq!(go_match("**", "a"), Ok(true));
        assert_eq!(go_match("[a-c]x", "bx"), Ok(true));
        assert_eq!(go_match("[^a-c]x", "bx"), Ok(false));
        assert_eq!(go_match("[", "x"), Err(BadPattern));
        assert_eq!(go_match("[]", "x"), Err(BadPattern));
        assert_eq!(go_match("a\\", "a"), Err(BadPattern));
        assert_eq!(go_match("*a*b", "xaYb"), Ok(true));
    }

    #[test]
    fn doublestar_spans_segments_and_matches_its_own_directory() {
        assert!(doublestar_match("a/**", "a"));
        assert!(doublestar_match("a/**", "a/b/c"));
        assert!(doublestar_match("**/testdata/**", "testdata"));
        assert!(doublestar_match("**/testdata/**", "x/testdata/y.yaml"));
        assert!(!doublestar_match(
            "descheduler/**",
            "controllers/descheduler"
        ));
        assert!(doublestar_match("*.{md,txt}", "README.md"));
        assert!(!doublestar_valid("{a"));
        assert!(!doublestar_valid("[a"));
    }
}
