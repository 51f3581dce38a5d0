//! `.sourceignore` and `spec.ignore` as source-controller applies them when it archives an
//! artifact: go-git v5's gitignore patterns (fluxcd/pkg `sourceignore/gitignore`, copied from
//! go-git v5.16.4 `plumbing/format/gitignore`), judged file by file.
//!
//! The rules differ from git's own, and the difference decides what is in the artifact:
//! - every pattern has a domain (the directory of its `.sourceignore`, the root for `spec.ignore`)
//!   and matches only paths below it (`pattern.Match`);
//! - the last pattern that matches decides (`matcher.Match`), whatever matched a parent directory:
//!   `storage.Archive` walks into excluded directories (its filter returns nil, never
//!   `filepath.SkipDir`), so `!/a/b/keep.yaml` re-includes a file under an excluded `/a/`;
//! - a pattern matching a directory matches everything below it (`globMatch` stops once the
//!   pattern is used up, whatever path is left), so `!/kubernetes` re-includes the whole tree;
//! - names are matched with Go's `filepath.Match` (`*` never crosses `/`; a malformed pattern
//!   matches nothing), `**` only as a whole segment.
//!
//! Not for: `.gitignore` (git's rules decide what is committed) or `.helmignore` (Helm's own).

use crate::golang::glob::path::path_match as go_match;

/// How one pattern judges a path (go-git's `MatchResult`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MatchResult {
    NoMatch,
    Exclude,
    Include,
}

/// One gitignore line with its domain (go-git's `pattern`, from `ParsePattern`).
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    domain: Vec<String>,
    segments: Vec<String>,
    inclusion: bool,
    dir_only: bool,
    /// The pattern holds a `/` (after a trailing one is removed): it is anchored at its domain
    /// and matched segment by segment; otherwise it matches any one name on the path.
    is_glob: bool,
}

impl Pattern {
    /// go-git's `ParsePattern`.
    pub(crate) fn parse(line: &str, domain: &[String]) -> Pattern {
        let mut p = line;
        let inclusion = match p.strip_prefix('!') {
            Some(rest) => {
                p = rest;
                true
            }
            None => false,
        };
        if !p.ends_with("\\ ") {
            p = p.trim_end_matches(' ');
        }
        let dir_only = match p.strip_suffix('/') {
            Some(rest) => {
                p = rest;
                true
            }
            None => false,
        };
        Pattern {
            domain: domain.to_vec(),
            segments: p.split('/').map(str::to_owned).collect(),
            inclusion,
            dir_only,
            is_glob: p.contains('/'),
        }
    }

    pub(crate) fn is_inclusion(&self) -> bool {
        self.inclusion
    }

    /// go-git's `pattern.Match`: `path` is the path's segments from the source's root.
    pub(crate) fn matches(&self, path: &[&str], is_dir: bool) -> MatchResult {
        if path.len() <= self.domain.len() {
            return MatchResult::NoMatch;
        }
        if self.domain.iter().zip(path).any(|(d, p)| d != p) {
            return MatchResult::NoMatch;
        }
        let path = &path[self.domain.len()..];
        let matched = if self.is_glob {
            self.glob_match(path, is_dir)
        } else {
            self.simple_name_match(path, is_dir)
        };
        match (matched, self.inclusion) {
            (false, _) => MatchResult::NoMatch,
            (true, true) => MatchResult::Include,
            (true, false) => MatchResult::Exclude,
        }
    }

    fn simple_name_match(&self, path: &[&str], is_dir: bool) -> bool {
        let Some(pattern) = self.segments.first() else {
            return false;
        };
        for (i, name) in path.iter().enumerate() {
            match go_match(pattern, name) {
                Err(_) => return false,
                Ok(false) => continue,
                Ok(true) => {}
            }
            if self.dir_only && !is_dir && i == path.len() - 1 {
                return false;
            }
            return true;
        }
        false
    }

    fn glob_match(&self, mut path: &[&str], is_dir: bool) -> bool {
        let mut matched = false;
        let mut can_traverse = false;
        for (i, pattern) in self.segments.iter().enumerate() {
            if pattern.is_empty() {
                can_traverse = false;
                continue;
            }
            if pattern == "**" {
                if i == self.segments.len() - 1 {
                    break;
                }
                can_traverse = true;
                continue;
            }
            if pattern.contains("**") {
                return false;
            }
            if path.is_empty() {
                return false;
            }
            if can_traverse {
                can_traverse = false;
                while let Some((first, rest)) = path.split_first() {
                    path = rest;
                    match go_match(pattern, first) {
                        Err(_) => return false,
                        Ok(true) => {
                            matched = true;
                            break;
                        }
                        Ok(false) if path.is_empty() => matched = false,
                        Ok(false) => {}
                    }
                }
            } else {
                if !go_match(pattern, path[0]).unwrap_or(false) {
                    return false;
                }
                matched = true;
                path = &path[1..];
            }
        }
        if matched && self.dir_only && !is_dir && path.is_empty() {
            matched = false;
        }
        matched
    }

    /// Whether this pattern could match something strictly below the directory `dir` (segments
    /// from the root): the walk goes into an excluded directory only then, since nothing else
    /// can bring back what lies below it. Conservative: `true` unless the pattern's domain or
    /// its leading literal segments rule `dir` out.
    pub(crate) fn could_match_below(&self, dir: &[&str]) -> bool {
        let shared = self.domain.len().min(dir.len());
        if self.domain[..shared]
            .iter()
            .zip(&dir[..shared])
            .any(|(d, p)| d != p)
        {
            return false;
        }
        if self.domain.len() >= dir.len() || !self.is_glob {
            return true;
        }
        let mut rest = &dir[self.domain.len()..];
        for pattern in &self.segments {
            if pattern.is_empty() {
                continue;
            }
            if pattern.contains("**") {
                return true;
            }
            let Some((first, tail)) = rest.split_first() else {
                return true;
            };
            if !go_match(pattern, first).unwrap_or(false) {
                return false;
            }
            rest = tail;
        }
        true
    }
}

/// Patterns in increasing priority (go-git's `NewMatcher`): the last that matches decides.
pub(crate) fn matches(patterns: &[Pattern], path: &[&str], is_dir: bool) -> MatchResult {
    patterns
        .iter()
        .rev()
        .map(|p| p.matches(path, is_dir))
        .find(|m| *m != MatchResult::NoMatch)
        .unwrap_or(MatchResult::NoMatch)
}

/// fluxcd/pkg `sourceignore.ReadPatterns`: one pattern per line that is neither blank nor a
/// comment (a line starting with `#`).
pub(crate) fn read_patterns(text: &str, domain: &[String]) -> Vec<Pattern> {
    text.lines()
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| Pattern::parse(line, domain))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(path: &str) -> Vec<&str> {
        path.split('/').collect()
    }

    /// Whether the matcher built from `lines` (root domain) excludes `path`.
    fn excluded(lines: &str, path: &str, is_dir: bool) -> bool {
        matches(&read_patterns(lines, &[]), &split(path), is_dir) == MatchResult::Exclude
    }

    // Cases from go-git v5's `pattern_test.go` (the same functions source-controller runs).
    #[test]
    fn simple_names_match_at_any_depth() {
        let p = Pattern::parse("vul?ano", &[]);
        assert_eq!(
            p.matches(&split("value/vulkano/tail"), false),
            MatchResult::Exclude
        );
        let p = Pattern::parse("!vul?ano", &[]);
        assert_eq!(
            p.matches(&split("value/vulkano/tail"), false),
            MatchResult::Include
        );
        let p = Pattern::parse("vul?ano/", &[]);
        assert_eq!(
            p.matches(&split("value/vulkano"), false),
            MatchResult::NoMatch
        );
        assert_eq!(
            p.matches(&split("value/vulkano"), true),
            MatchResult::Exclude
        );
        assert_eq!(
            p.matches(&split("value/vulkano/tail"), false),
            MatchResult::Exclude
        );
        let p = Pattern::parse("vul?ano", &["value".to_owned()]);
        assert_eq!(
            p.matches(&split("value/vulkano"), false),
            MatchResult::Exclude
        );
        assert_eq!(
            p.matches(&split("other/vulkano"), false),
            MatchResult::NoMatch
        );
        assert_eq!(p.matches(&split("value"), true), MatchResult::NoMatch);
    }

    #[test]
    fn globs_are_anchored_and_match_what_lies_below() {
        let p = Pattern::parse("/value/vul?ano", &[]);
        assert_eq!(
            p.matches(&split("value/vulkano"), false),
            MatchResult::Exclude
        );
        assert_eq!(
            p.matches(&split("value/vulkano/tail"), false),
            MatchResult::Exclude
        );
        assert_eq!(
            p.matches(&split("head/value/vulkano"), false),
            MatchResult::NoMatch
        );
        let p = Pattern::parse("value/vul?ano", &[]);
        assert_eq!(
            p.matches(&split("head/value/vulkano"), false),
            MatchResult::NoMatch
        );
        let p = Pattern::parse("/value/vul?ano/", &[]);
        assert_eq!(
            p.matches(&split("value/vulkano"), false),
            MatchResult::NoMatch
        );
        assert_eq!(
            p.matches(&split("value/vulkano"), true),
            MatchResult::Exclude
        );
        assert_eq!(
            p.matches(&split("value/vulkano/tail"), false),
            MatchResult::Exclude
        );
        let p = Pattern::parse("**/vulkano", &[]);
        assert_eq!(
            p.matches(&split("value/vulkano"), false),
            MatchResult::Exclude
        );
        assert_eq!(p.matches(&split("vulkano"), false), MatchResult::Exclude);
        let p = Pattern::parse("/**/vulkano", &[]);
        assert_eq!(
            p.matches(&split("head/value/vulkano/tail"), false),
            MatchResult::Exclude
        );
        let p = Pattern::parse("/value/**/vulkano", &[]);
        assert_eq!(
            p.matches(&split("value/vulkano"), false),
            MatchResult::Exclude
        );
        assert_eq!(p.matches(&split("value/a"), false), MatchResult::NoMatch);
        assert_eq!(
            p.matches(&split("value/a/b/vulkano"), false),
            MatchResult::Exclude
        );
        let p = Pattern::parse("/value/**", &[]);
        assert_eq!(
            p.matches(&split("value/vulkano"), false),
            MatchResult::Exclude
        );
        // A segment with `**` but not `**` alone never matches (go-git v5).
        let p = Pattern::parse("/value/**v", &[]);
        assert_eq!(p.matches(&split("value/v"), false), MatchResult::NoMatch);
        // A file does not match a glob whose segments outnumber its own.
        let p = Pattern::parse("/value/vulkano/tail", &[]);
        assert_eq!(
            p.matches(&split("value/vulkano"), true),
            MatchResult::NoMatch
        );
        // A malformed pattern matches nothing.
        let p = Pattern::parse("/value/[", &[]);
        assert_eq!(p.matches(&split("value/["), false), MatchResult::NoMatch);
    }

    #[test]
    fn the_last_matching_pattern_wins() {
        let lines = "/*\n!/kubernetes\n/kubernetes/clusters/**/secrets/\n\
                     !/kubernetes/clusters/**/secrets/cluster-config.yaml\n";
        assert!(excluded(lines, "README.md", false));
        assert!(excluded(lines, "docs/a.yaml", false));
        assert!(!excluded(lines, "kubernetes/apps/web.yaml", false));
        assert!(excluded(lines, "kubernetes/clusters/a/secrets", true));
        assert!(excluded(
            lines,
            "kubernetes/clusters/a/secrets/other.yaml",
            false
        ));
        assert!(!excluded(
            lines,
            "kubernetes/clusters/a/secrets/cluster-config.yaml",
            false
        ));
        // git would keep everything under an excluded directory out; go-git re-includes.
        let lines = "/*\n!/kubernetes/cluster-0\n";
        assert!(excluded(lines, "kubernetes", true));
        assert!(!excluded(lines, "kubernetes/cluster-0/apps/a.yaml", false));
        assert!(excluded(lines, "kubernetes/cluster-1/apps/a.yaml", false));
    }

    #[test]
    fn comments_and_blank_lines_are_no_patterns() {
        let patterns = read_patterns("# c\n\n   \nfoo  \nbar\\ \r\n", &[]);
        assert_eq!(patterns.len(), 2);
        assert_eq!(patterns[0].segments, ["foo"]);
        assert_eq!(patterns[1].segments, ["bar\\ "]);
    }

    #[test]
    fn only_patterns_that_can_reach_below_a_directory_open_it() {
        let p = Pattern::parse("!/kubernetes/clusters/**/secrets/x.yaml", &[]);
        assert!(p.could_match_below(&split("kubernetes/clusters/a/secrets")));
        assert!(p.could_match_below(&split("kubernetes")));
        assert!(!p.could_match_below(&split("docs")));
        assert!(!p.could_match_below(&split("kubernetes/apps")));
        let p = Pattern::parse("!keep.yaml", &["a".to_owned(), "b".to_owned()]);
        assert!(p.could_match_below(&split("a")));
        assert!(p.could_match_below(&split("a/b/c")));
        assert!(!p.could_match_below(&split("c")));
    }
}
