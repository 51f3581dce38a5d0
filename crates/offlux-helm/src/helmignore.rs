//! `.helmignore` as Helm's `pkg/ignore` reads it: one pattern a line, `#` comments, `!` negation,
//! a trailing `/` for directories only, patterns without `/` matched against the base name,
//! patterns with `/` against the path from the chart root, Go's `filepath.Match` globbing.
//!
//! Not gitignore: `**` is rejected (as Helm rejects it), and a negated rule that does *not* match
//! ignores the path, which is Helm's (surprising) evaluation order, kept for fidelity.

/// The file's name inside a chart directory.
pub(crate) const HELMIGNORE: &str = ".helmignore";

#[derive(Clone, Debug)]
struct Pattern {
    glob: Vec<char>,
    negate: bool,
    must_dir: bool,
    /// No `/` in the pattern: match the base name only.
    base_only: bool,
}

/// A `.helmignore` rule Helm refuses, in Helm's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("double-star (**) syntax is not supported")]
    DoubleStar,
    #[error("syntax error in pattern {0:?}")]
    Syntax(String),
}

/// A parsed rule set, evaluated in order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rules {
    patterns: Vec<Pattern>,
}

impl Rules {
    /// Parses a `.helmignore` file's text; errors carry Helm's wording.
    pub(crate) fn parse(text: &str) -> Result<Rules, RuleError> {
        let mut rules = Rules::default();
        for line in text.lines() {
            rules.add(line)?;
        }
        Ok(rules)
    }

    /// Helm's `AddDefaults`: dotfiles under `templates/` are never templates.
    pub(crate) fn add_defaults(&mut self) {
        // The default rule is valid, so this cannot fail.
        let _ = self.add("templates/.?*");
    }

    fn add(&mut self, line: &str) -> Result<(), RuleError> {
        let rule = line.trim();
        if rule.is_empty() || rule.starts_with('#') {
            return Ok(());
        }
        if rule.contains("**") {
            return Err(RuleError::DoubleStar);
        }
        let chars: Vec<char> = rule.chars().collect();
        if !valid_glob(&chars) {
            return Err(RuleError::Syntax(rule.to_string()));
        }
        let mut rule = rule;
        let negate = rule.starts_with('!');
        if negate {
            rule = &rule[1..];
        }
        let must_dir = rule.ends_with('/');
        if must_dir {
            rule = &rule[..rule.len() - 1];
        }
        let base_only = !rule.contains('/');
        let rule = rule.strip_prefix('/').unwrap_or(rule);
        self.patterns.push(Pattern {
            glob: rule.chars().collect(),
            negate,
            must_dir,
            base_only,
        });
        Ok(())
    }

    /// Whether `path` (relative to the chart root, `/`-separated, no trailing slash) is ignored.
    pub(crate) fn ignore(&self, path: &str, is_dir: bool) -> bool {
        if path.is_empty() || path == "." || path == "./" {
            return false;
        }
        for pattern in &self.patterns {
            let subject = if pattern.base_only {
                path.rsplit('/').next().unwrap_or(path)
            } else {
                path
            };
            let subject: Vec<char> = subject.chars().collect();
            if pattern.negate {
                if pattern.must_dir && !is_dir {
                    return true;
                }
                if !glob_match(&pattern.glob, &subject) {
                    return true;
                }
                continue;
            }
            if pattern.must_dir && !is_dir {
                continue;
            }
            if glob_match(&pattern.glob, &subject) {
                return true;
            }
        }
        false
    }
}

/// Whether a pattern is well formed for Go's `filepath.Match` (classes closed, escapes complete).
fn valid_glob(pattern: &[char]) -> bool {
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

/// Go's `filepath.Match` with `/` as the separator, on a pattern already checked by `valid_glob`:
/// its algorithm, not only its results. The pattern is cut into chunks, each a run of `*` and
/// the text up to the next `*`; a chunk is matched at the first place it fits, never tried again
/// at a later one, so the work is at most the name's length times the pattern's (a matcher that
/// backtracks over every `*` took over a minute on `*a*a*a*a*a*a*ab`). Where this gives up
/// without trying every split, so does Go.
fn glob_match(pattern: &[char], name: &[char]) -> bool {
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

    fn rules(text: &str) -> Rules {
        let mut r = Rules::parse(text).expect("valid rules");
        r.add_defaults();
        r
    }

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
            assert!(valid_glob(&pattern), "{pattern:?}");
            assert_eq!(glob_match(&pattern, &name), *want, "{pattern:?} {name:?}");
        }
    }

    /// Issue 35: `*a*a*…*ab` against a long run of `a`s took minutes with a matcher that
    /// backtracks over every star; Go's chunk-at-a-time algorithm is polynomial.
    #[test]
    fn many_stars_match_in_polynomial_time() {
        let pattern: Vec<char> = "*a".repeat(40).chars().chain("b".chars()).collect();
        let name: Vec<char> = "a".repeat(4000).chars().collect();
        let started = std::time::Instant::now();
        assert!(!glob_match(&pattern, &name));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn helmignore_base_name_patterns_match_at_any_depth() {
        let r = rules("*.bak\n# comment\n\nOWNERS\n");
        assert!(r.ignore("a.bak", false));
        assert!(r.ignore("templates/x/a.bak", false));
        assert!(r.ignore("files/OWNERS", false));
        assert!(!r.ignore("templates/a.yaml", false));
    }

    #[test]
    fn helmignore_slash_patterns_match_from_the_root() {
        let r = rules("templates/crds/README.md\n/Makefile\nci/*\n");
        assert!(r.ignore("templates/crds/README.md", false));
        assert!(!r.ignore("sub/templates/crds/README.md", false));
        assert!(r.ignore("Makefile", false));
        assert!(!r.ignore("files/Makefile", false));
        assert!(r.ignore("ci/values.yaml", false));
        assert!(!r.ignore("ci/deep/values.yaml", false));
    }

    #[test]
    fn helmignore_trailing_slash_matches_directories_only() {
        let r = rules(".git/\ntests/\n");
        assert!(r.ignore(".git", true));
        assert!(!r.ignore(".git", false));
        assert!(r.ignore("charts/sub/tests", true));
    }

    #[test]
    fn helmignore_negation_follows_helm() {
        // Helm ignores every path that a negated rule does not match.
        let r = Rules::parse("!keep.txt\n").expect("valid");
        assert!(!r.ignore("keep.txt", false));
        assert!(r.ignore("other.txt", false));
        // A negated rule reached after a match never runs.
        let r = Rules::parse("*.txt\n!keep.txt\n").expect("valid");
        assert!(r.ignore("keep.txt", false));
    }

    #[test]
    fn helmignore_defaults_hide_template_dotfiles() {
        let r = rules("");
        assert!(r.ignore("templates/.hidden.yaml", false));
        assert!(!r.ignore("templates/shown.yaml", false));
        assert!(!r.ignore(".helmignore", false));
        assert!(!r.ignore("", true));
    }

    #[test]
    fn helmignore_rejects_double_star_and_bad_patterns() {
        let error = Rules::parse("a/**/b\n").err();
        assert_eq!(error, Some(RuleError::DoubleStar));
        assert_eq!(
            error.map(|e| e.to_string()).as_deref(),
            Some("double-star (**) syntax is not supported")
        );
        assert_eq!(
            Rules::parse("[abc\n").err(),
            Some(RuleError::Syntax("[abc".into()))
        );
        assert_eq!(
            Rules::parse("a\\\n")
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("syntax error in pattern \"a\\\\\"")
        );
    }

    #[test]
    fn glob_classes_and_escapes() {
        let m = |p: &str, n: &str| {
            let p: Vec<char> = p.chars().collect();
            assert!(valid_glob(&p), "{p:?}");
            glob_match(&p, &n.chars().collect::<Vec<_>>())
        };
        assert!(m("[a-c]x", "bx"));
        assert!(!m("[^a-c]x", "bx"));
        assert!(m("\\*", "*"));
        assert!(!m("\\*", "a"));
        assert!(m("a?c", "abc"));
        assert!(!m("a?c", "a/c"));
        assert!(!m("a*", "ab/c"));
        assert!(m("*.y*ml", "values.yaml"));
    }
}
