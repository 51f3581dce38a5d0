//! bmatcuk/doublestar's `Match`, as source-watcher uses it for exclude patterns and `Extract`
//! globs: a `**` segment spans any number of segments (so `a/**` matches `a` itself), `{a,b}`
//! alternatives, and otherwise Go's `path.Match` per segment.

use super::path::{self, BadPattern};

/// Checks a doublestar pattern's syntax (brackets, braces, escapes).
pub fn is_valid(pattern: &str) -> bool {
    expand_braces(pattern).is_ok_and(|alternatives| {
        alternatives.iter().all(|p| {
            p.split('/')
                .all(|segment| path::is_valid(&segment.chars().collect::<Vec<_>>()))
        })
    })
}

/// Doublestar's `Match`: `**` as a whole segment matches zero or more segments (so `a/**` matches
/// `a` itself); `{a,b}` alternatives; otherwise `path.Match` per segment.
pub fn matches(pattern: &str, name: &str) -> bool {
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
                    && path::path_match(segment, part).unwrap_or(false)
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
        assert!(!matches(&pattern, &format!("{deep}y")));
        assert!(matches(&pattern, &format!("{deep}x")));
        assert!(matches("a/**/b/**/c", "a/x/b/y/z/c"));
        assert!(!matches("a/**/b/**/c", "a/x/c/y/z/b"));
        assert!(matches("a/**", "a"));
        let braces = "{a,b}".repeat(20);
        assert!(!is_valid(&braces));
        assert!(!matches(&braces, "ab"));
        assert!(matches("{a,b}{c,d}", "bc"));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn doublestar_spans_segments_and_matches_its_own_directory() {
        assert!(matches("a/**", "a"));
        assert!(matches("a/**", "a/b/c"));
        assert!(matches("**/testdata/**", "testdata"));
        assert!(matches("**/testdata/**", "x/testdata/y.yaml"));
        assert!(!matches("descheduler/**", "controllers/descheduler"));
        assert!(matches("*.{md,txt}", "README.md"));
        assert!(!is_valid("{a"));
        assert!(!is_valid("[a"));
    }
}
