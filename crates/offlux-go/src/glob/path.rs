//! Go's `path.Match` (and `filepath.Match` with `/` as the separator): `*` any run of characters
//! but `/`, `?` one character but `/`, `[...]` a class (`^` negates, `a-z` ranges, `\` escapes),
//! `\` makes the next character literal; a malformed pattern is an error whether or not the
//! name would have matched. Go's own algorithm, chunk by chunk, so results agree with Go's where a
//! backtracking matcher would find more, and the work stays polynomial.
//!
//! Used by `.helmignore`, `.sourceignore` and `spec.ignore` name patterns, source-watcher's copy
//! patterns, and (per segment) doublestar.

/// A pattern that is not valid in its dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadPattern;

/// `pattern` against `name`: [`matches`] after [`is_valid`], on text.
pub fn path_match(pattern: &str, name: &str) -> Result<bool, BadPattern> {
    let pattern: Vec<char> = pattern.chars().collect();
    if !is_valid(&pattern) {
        return Err(BadPattern);
    }
    let name: Vec<char> = name.chars().collect();
    Ok(matches(&pattern, &name))
}

/// Whether `text` holds any of Go's glob metacharacters (`fs.Glob`'s `hasMeta`).
pub fn has_meta(text: &str) -> bool {
    text.contains(['*', '?', '[', '\\'])
}

/// Whether a pattern is well formed for Go's `path.Match` (classes closed, escapes complete).
pub fn is_valid(pattern: &[char]) -> bool {
    let mut i = 0;
    while let Some(&c) = pattern.get(i) {
        match c {
            '\\' => {
                if pattern.get(i + 1).is_none() {
                    return false;
                }
                i += 2;
            }
            '[' => match parse_class(pattern, i + 1, None) {
                Some((_, next)) => i = next,
                None => return false,
            },
            _ => i += 1,
        }
    }
    true
}

/// Parses a character class starting after `[`; returns whether `c` is in it (false when `c` is
/// `None`) and the index after `]`, or `None` when the class is malformed.
fn parse_class(pattern: &[char], start: usize, c: Option<char>) -> Option<(bool, usize)> {
    let mut i = start;
    let negated = pattern.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut ranges = 0;
    loop {
        let &next = pattern.get(i)?;
        if next == ']' && ranges > 0 {
            i += 1;
            break;
        }
        let (lo, after) = class_char(pattern, i)?;
        i = after;
        let mut hi = lo;
        if pattern.get(i) == Some(&'-') {
            let (h, after) = class_char(pattern, i + 1)?;
            hi = h;
            i = after;
        }
        if let Some(c) = c {
            if lo <= c && c <= hi {
                matched = true;
            }
        }
        ranges += 1;
    }
    Some((matched != negated && c.is_some(), i))
}

/// One character of a class, with `\` escapes; `-` and `]` cannot start an item (Go's rule).
fn class_char(pattern: &[char], i: usize) -> Option<(char, usize)> {
    match pattern.get(i)? {
        '-' | ']' => None,
        '\\' => pattern.get(i + 1).map(|&c| (c, i + 2)),
        &c => Some((c, i + 1)),
    }
}

/// Go's `path.Match` (`filepath.Match` with `/` as the separator), on a pattern already checked by [`is_valid`]:
/// its algorithm, not only its results. The pattern is cut into chunks, each a run of `*` and
/// the text up to the next `*`; a chunk is matched at the first place it fits, never tried again
/// at a later one, so the work is at most the name's length times the pattern's (a matcher that
/// backtracks over every `*` took over a minute on `*a*a*a*a*a*a*ab`). Where this gives up
/// without trying every split, so does Go.
pub fn matches(pattern: &[char], name: &[char]) -> bool {
    let mut pattern = pattern;
    let mut name = name;
    'chunks: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            // A trailing `*` matches the rest of the name unless it has a `/`.
            return !name.contains(&'/');
        }
        if let Some(used) = match_chunk(chunk, name) {
            // The last chunk must take the whole name; otherwise a star may still place it later.
            if used == name.len() || !pattern.is_empty() {
                name = name.get(used..).unwrap_or_default();
                continue;
            }
        }
        if star {
            // Try the chunk after skipping i + 1 characters; a `*` does not cross `/`.
            let mut i = 0;
            while i < name.len() && name.get(i) != Some(&'/') {
                let tail = name.get(i + 1..).unwrap_or_default();
                if let Some(used) = match_chunk(chunk, tail) {
                    if pattern.is_empty() && used < tail.len() {
                        i += 1;
                        continue;
                    }
                    name = tail.get(used..).unwrap_or_default();
                    continue 'chunks;
                }
                i += 1;
            }
        }
        return false;
    }
    name.is_empty()
}

/// Go's `scanChunk`: the leading stars (whether there were any), the chunk up to the next `*`
/// outside a class, and the rest.
fn scan_chunk(pattern: &[char]) -> (bool, &[char], &[char]) {
    let stars = pattern.iter().take_while(|&&c| c == '*').count();
    let pattern = pattern.get(stars..).unwrap_or_default();
    let mut in_range = false;
    let mut i = 0;
    while let Some(&c) = pattern.get(i) {
        match c {
            '\\' if i + 1 < pattern.len() => i += 1,
            '[' => in_range = true,
            ']' => in_range = false,
            '*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    let (chunk, rest) = pattern.split_at(i.min(pattern.len()));
    (stars > 0, chunk, rest)
}

/// Go's `matchChunk`: how many characters of `name` the star-free `chunk` matches at its start.
fn match_chunk(chunk: &[char], name: &[char]) -> Option<usize> {
    let mut p = 0;
    let mut n = 0;
    while let Some(&c) = chunk.get(p) {
        match c {
            '[' => {
                let &got = name.get(n).filter(|&&got| got != '/')?;
                let (true, next) = parse_class(chunk, p + 1, Some(got))? else {
                    return None;
                };
                p = next;
                n += 1;
            }
            '?' => {
                name.get(n).filter(|&&got| got != '/')?;
                p += 1;
                n += 1;
            }
            '\\' => {
                let &lit = chunk.get(p + 1)?;
                (name.get(n) == Some(&lit)).then_some(())?;
                p += 2;
                n += 1;
            }
            lit => {
                (name.get(n) == Some(&lit)).then_some(())?;
                p += 1;
                n += 1;
            }
        }
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's `path/filepath` match_test.go table (the well-formed patterns).
    #[test]
    fn glob_match_follows_go_filepath_match() {
        let cases: &[(&str, &str, bool)] = &[
            ("abc", "abc", true),
            ("*", "abc", true),
            ("*c", "abc", true),
            ("a*", "a", true),
            ("a*", "abc", true),
            ("a*", "ab/c", false),
            ("a*/b", "abc/b", true),
            ("a*/b", "a/c/b", false),
            ("a*b*c*d*e*/f", "axbxcxdxe/f", true),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/f", true),
            ("a*b*c*d*e*/f", "axbxcxdxe/xxx/f", false),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/fff", false),
            ("a*b?c*x", "abxbbxdbxebxczzx", true),
            ("a*b?c*x", "abxbbxdbxebxczzy", false),
            ("ab[c]", "abc", true),
            ("ab[b-d]", "abc", true),
            ("ab[e-g]", "abc", false),
            ("ab[^c]", "abc", false),
            ("ab[^b-d]", "abc", false),
            ("ab[^e-g]", "abc", true),
            ("a\\*b", "a*b", true),
            ("a\\*b", "ab", false),
            ("a?b", "a☺b", true),
            ("a[^a]b", "a☺b", true),
            ("a???b", "a☺b", false),
            ("a[^a][^a][^a]b", "a☺b", false),
            ("[a-ζ]*", "α", true),
            ("*[a-ζ]", "A", false),
            ("a?b", "a/b", false),
            ("a*b", "a/b", false),
            ("[\\]a]", "]", true),
            ("[\\-]", "-", true),
            ("[x\\-]", "x", true),
            ("[x\\-]", "-", true),
            ("[x\\-]", "z", false),
            ("[\\-x]", "x", true),
            ("[\\-x]", "-", true),
            ("[\\-x]", "a", false),
            ("*x", "xxx", true),
        ];
        for (pattern, name, want) in cases {
            let pattern: Vec<char> = pattern.chars().collect();
            let name: Vec<char> = name.chars().collect();
            assert!(is_valid(&pattern), "{pattern:?}");
            assert_eq!(matches(&pattern, &name), *want, "{pattern:?} {name:?}");
        }
    }

    /// Issue 35: `*a*a*…*ab` against a long run of `a`s took minutes with a matcher that
    /// backtracks over every star; Go's chunk-at-a-time algorithm is polynomial.
    #[test]
    fn many_stars_match_in_polynomial_time() {
        let pattern: Vec<char> = "*a".repeat(40).chars().chain("b".chars()).collect();
        let name: Vec<char> = "a".repeat(4000).chars().collect();
        let started = std::time::Instant::now();
        assert!(!matches(&pattern, &name));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn malformed_patterns_are_errors_and_stars_stay_within_a_segment() {
        assert_eq!(path_match("*.yaml", "a.yaml"), Ok(true));
        assert_eq!(path_match("*.yaml", "d/a.yaml"), Ok(false));
        assert_eq!(path_match("**", "a"), Ok(true));
        assert_eq!(path_match("[", "x"), Err(BadPattern));
        assert_eq!(path_match("[]", "x"), Err(BadPattern));
        assert_eq!(path_match("a\\", "a"), Err(BadPattern));
        assert_eq!(path_match("x[", "y"), Err(BadPattern));
        assert_eq!(path_match("*a*b", "xaYb"), Ok(true));
    }
}
