//! `.helmignore` as Helm's `pkg/ignore` reads it: one pattern a line, `#` comments, `!` negation,
//! a trailing `/` for directories only, patterns without `/` matched against the base name,
//! patterns with `/` against the path from the chart root, Go's `filepath.Match` globbing.
//!
//! Not gitignore: `**` is rejected (as Helm rejects it), and a negated rule that does *not* match
//! ignores the path, which is Helm's (surprising) evaluation order, kept for fidelity.

use offlux_go::glob::path;

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
        if !path::is_valid(&chars) {
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
                if !path::matches(&pattern.glob, &subject) {
                    return true;
                }
                continue;
            }
            if pattern.must_dir && !is_dir {
                continue;
            }
            if path::matches(&pattern.glob, &subject) {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Rules {
        let mut r = Rules::parse(text).expect("valid rules");
        r.add_defaults();
        r
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
            assert!(path::is_valid(&p), "{p:?}");
            path::matches(&p, &n.chars().collect::<Vec<_>>())
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
