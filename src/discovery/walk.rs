//! Listing the files Flux would see: the working tree minus `.git`, Flux's default exclusions,
//! `.sourceignore` (judged as source-controller does, see `sourceignore`), `.krmignore` and
//! `.gitignore` (ignored files are not committed, so Flux never sees them). Symlinks are followed
//! but may not lead outside the root. Directories are listed and symlinks resolved through
//! `fsio`'s backend, so a revision mounted in memory is walked as a working tree is.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::diagnostic::{Diagnostic, Location};
use crate::fs_facts::{FileKind, FsFacts};
use crate::fsio::{backend, EntryKind};

use super::sourceignore;

/// Flux source-controller's default exclusions (fluxcd/pkg `sourceignore`): VCS files, CI
/// configuration, binary media and archives, and a few tool files.
const DEFAULT_EXCLUSIONS: &[&str] = &[
    ".git/",
    ".gitignore",
    ".gitmodules",
    ".gitattributes",
    "*.jpg",
    "*.jpeg",
    "*.gif",
    "*.png",
    "*.wmv",
    "*.flv",
    "*.tar.gz",
    "*.zip",
    ".github/",
    ".circleci/",
    ".travis.yml",
    ".gitlab-ci.yml",
    "appveyor.yml",
    ".drone.yml",
    "cloudbuild.yaml",
    "codeship-services.yml",
    "codeship-steps.yml",
    "**/.goreleaser.yml",
    "**/.sops.yaml",
    "**/.flux.yaml",
];

#[derive(Clone)]
pub(crate) struct Listing {
    /// YAML files (absolute paths under the root), sorted by path components: the walk visits
    /// each directory's entries in byte order, depth first, which is that order.
    pub yaml_files: Vec<PathBuf>,
    pub diagnostics: Vec<Diagnostic>,
}

pub(super) fn is_yaml(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

/// Walks `root` (already canonical) and lists its YAML files. What each path it met is goes to
/// `facts`. As each YAML file is found, `on_yaml_file` gets its index in the listing and its path,
/// unless it lies in a Helm chart's `templates/` (Go templates, not YAML), so that reading can
/// start while the walk goes on.
pub(crate) fn list_yaml_files(
    root: &Path,
    facts: &FsFacts,
    on_yaml_file: &mut dyn FnMut(usize, &Path),
) -> Listing {
    list_yaml_files_ignoring(root, facts, Vec::new(), on_yaml_file)
}

/// `list_yaml_files` for a GitRepository with `spec.ignore`: source-controller's
/// `reconcileArtifact` appends those patterns (domain: the root) after every `.sourceignore`'s,
/// so they decide wherever they match, and `SourceIgnoreFilter` keeps only the VCS exclusions of
/// Flux's defaults once there is any pattern.
pub(crate) fn list_yaml_files_ignoring(
    root: &Path,
    facts: &FsFacts,
    spec_patterns: Vec<sourceignore::Pattern>,
    on_yaml_file: &mut dyn FnMut(usize, &Path),
) -> Listing {
    facts.record(root.to_path_buf(), FileKind::Directory, root.to_path_buf());
    let mut walker = Walker {
        root,
        facts,
        yaml_files: Vec::new(),
        on_yaml_file,
        diagnostics: Vec::new(),
        source_patterns: Vec::new(),
        has_source_patterns: !spec_patterns.is_empty(),
        spec_patterns,
        walked: std::collections::HashSet::from([root.to_path_buf()]),
        repeated_walks: 0,
    };
    let mut ignores = Vec::new();
    let mut real_ancestors = Ancestors::default();
    real_ancestors.push(root.to_path_buf());
    walker.directory(root, &mut ignores, &mut real_ancestors, false);
    debug_assert!(walker.yaml_files.is_sorted());
    Listing {
        yaml_files: walker.yaml_files,
        diagnostics: walker.diagnostics,
    }
}

/// Whether one of Flux's default exclusions matches an entry named `name`. Each is a gitignore
/// pattern on the name alone (`**/` adds nothing), so it applies at any depth: a trailing `/` limits
/// it to directories, a leading `*` makes it a suffix. Matching names directly costs a fraction of
/// a general gitignore matcher, which the walk would ask for every entry of the repository.
fn is_excluded_by_default(name: &[u8], is_dir: bool) -> bool {
    DEFAULT_EXCLUSIONS.iter().any(|pattern| {
        let pattern = pattern.strip_prefix("**/").unwrap_or(pattern);
        let (pattern, dir_only) = match pattern.strip_suffix('/') {
            Some(pattern) => (pattern, true),
            None => (pattern, false),
        };
        if dir_only && !is_dir {
            return false;
        }
        match pattern.strip_prefix('*') {
            Some(suffix) => name.ends_with(suffix.as_bytes()),
            None => name == pattern.as_bytes(),
        }
    })
}

/// The ignore files of one directory on the way down.
struct DirectoryIgnores {
    /// How many patterns this directory's `.sourceignore` pushed on the walk's stack.
    source_patterns: usize,
    krmignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
}

/// What the ignore files say about one entry.
enum Verdict {
    Keep,
    Exclude,
    /// Excluded by `.sourceignore`, but a pattern could re-include something below this
    /// directory: the walk goes in and judges each entry (as `storage.Archive` does).
    ExcludedDirectoryToSearch,
}

struct Walker<'r> {
    root: &'r Path,
    facts: &'r FsFacts,
    yaml_files: Vec<PathBuf>,
    on_yaml_file: &'r mut dyn FnMut(usize, &Path),
    diagnostics: Vec<Diagnostic>,
    /// The `.sourceignore` patterns of the directories being walked, root first: fluxcd/pkg
    /// `LoadIgnorePatterns` order (a directory's file, then its subdirectories' in name order),
    /// of which only the ancestors' can match a path below them.
    source_patterns: Vec<sourceignore::Pattern>,
    /// Whether a `.sourceignore` with a pattern was met: source-controller's `SourceIgnoreFilter`
    /// then keeps only the VCS exclusions of its defaults (`NewDefaultMatcher` is used only when
    /// there are no patterns). The root's file is read first, so this is exact whenever the
    /// repository has one; a file met deeper turns the defaults off for what follows it only.
    has_source_patterns: bool,
    /// The real (symlink-free, canonical) directories walked so far, and how many walks went
    /// into a directory already walked through another path (see [`MAX_REPEATED_WALKS`]).
    walked: std::collections::HashSet<PathBuf>,
    repeated_walks: usize,
    /// The source's `spec.ignore` patterns, after all the `.sourceignore` ones.
    spec_patterns: Vec<sourceignore::Pattern>,
}

/// How many times the walk goes into a directory it already walked through another path (a
/// symlink to a directory, or a path through one): each such path lists the files again under
/// its own name, as a tree with a symlinked directory is read; past this, a directory already
/// walked is not walked again, so a chain of directories each holding two symlinks to the next
/// costs this many walks, not 2^depth. A canonical path identifies a directory on every
/// platform and backend (a revision in memory has no inodes).
const MAX_REPEATED_WALKS: usize = 1024;

/// The symlink-free paths of the directories being walked, root first: a chain for the innermost
/// and a set for "is this an ancestor", so a walk `d` directories deep costs one hash of each
/// path, not a comparison with every ancestor (which was cubic in the depth).
#[derive(Default)]
struct Ancestors {
    chain: Vec<PathBuf>,
    set: std::collections::HashSet<PathBuf>,
}

impl Ancestors {
    fn push(&mut self, path: PathBuf) {
        self.set.insert(path.clone());
        self.chain.push(path);
    }

    fn pop(&mut self) {
        if let Some(path) = self.chain.pop() {
            self.set.remove(&path);
        }
    }

    fn last(&self) -> Option<&Path> {
        self.chain.last().map(PathBuf::as_path)
    }

    fn contains(&self, path: &Path) -> bool {
        self.set.contains(path)
    }
}

impl Walker<'_> {
    /// Lists `dir` and everything below it that is not excluded. `ignores` holds the ignore files
    /// of `dir`'s ancestors, `real_ancestors` their symlink-free paths (for loop detection).
    fn directory(
        &mut self,
        dir: &Path,
        ignores: &mut Vec<DirectoryIgnores>,
        real_ancestors: &mut Ancestors,
        in_chart_templates: bool,
    ) {
        let mut entries = match crate::fsio::backend::list(dir) {
            Ok(entries) => entries,
            Err(error) => {
                self.warn(dir, format!("cannot read directory: {error}"));
                return;
            }
        };
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let has = |name: &str| entries.iter().any(|(n, _)| n == name);
        let source_patterns = if has(".sourceignore") {
            self.read_sourceignore(dir)
        } else {
            0
        };
        let ignores_here = DirectoryIgnores {
            source_patterns,
            krmignore: has(".krmignore").then(|| self.ignore_file(dir, &[".krmignore"])),
            gitignore: has(".gitignore").then(|| self.ignore_file(dir, &[".gitignore"])),
        };
        ignores.push(ignores_here);
        let is_chart = has("Chart.yaml");
        for (name, entry_kind) in entries {
            if name == ".git" {
                continue;
            }
            let path = dir.join(&name);
            let (kind, real) = match entry_kind {
                EntryKind::Symlink => match self.resolve_symlink(&path) {
                    Some((real, kind)) => (kind, Some(real)),
                    None => continue,
                },
                EntryKind::Directory => (FileKind::Directory, None),
                EntryKind::File => (FileKind::File, None),
                EntryKind::Other => (FileKind::Other, None),
            };
            let real = real.unwrap_or_else(|| {
                let parent = real_ancestors.last().unwrap_or(self.root);
                parent.join(&name)
            });
            self.facts.record(path.clone(), kind, real.clone());
            let is_dir = kind == FileKind::Directory;
            if kind == FileKind::Other || (!is_dir && !is_yaml(&path)) {
                continue;
            }
            match self.verdict(&path, name.as_encoded_bytes(), is_dir, ignores) {
                Verdict::Exclude => continue,
                // Each entry below is judged on its own, as the archive's walk judges it.
                Verdict::Keep | Verdict::ExcludedDirectoryToSearch => {}
            }
            if !is_dir {
                if !in_chart_templates {
                    (self.on_yaml_file)(self.yaml_files.len(), &path);
                }
                self.yaml_files.push(path);
                continue;
            }
            if real_ancestors.contains(&real) {
                self.warn(&path, "symlink loop; not followed".to_owned());
                continue;
            }
            if !self.walked.insert(real.clone()) {
                self.repeated_walks += 1;
                if self.repeated_walks > MAX_REPEATED_WALKS {
                    self.warn(
                        &path,
                        format!(
                            "directory `{}` was already walked through other paths more than \
                             {MAX_REPEATED_WALKS} times; not walked again",
                            real.display()
                        ),
                    );
                    continue;
                }
            }
            real_ancestors.push(real);
            let templates = in_chart_templates || (is_chart && name == "templates");
            self.directory(&path, ignores, real_ancestors, templates);
            real_ancestors.pop();
        }
        if let Some(here) = ignores.pop() {
            let keep = self.source_patterns.len() - here.source_patterns;
            self.source_patterns.truncate(keep);
        }
    }

    /// Where a symlink leads and what is there; `None` (with a warning) when it leads outside
    /// the root or nowhere.
    fn resolve_symlink(&mut self, path: &Path) -> Option<(PathBuf, FileKind)> {
        match backend::canonicalize(path) {
            Ok(target) if target.starts_with(self.root) => match backend::kind(&target) {
                Ok(kind) => Some((target, kind)),
                Err(error) => {
                    self.warn(path, format!("cannot resolve symlink: {error}"));
                    None
                }
            },
            Ok(target) => {
                // Only what the walk would have read is worth a word: a directory or YAML.
                if backend::kind(&target).is_ok_and(|k| k == FileKind::Directory) || is_yaml(path) {
                    self.warn(
                        path,
                        format!(
                            "symlink points outside the repository root (to `{}`); not read",
                            target.display()
                        ),
                    );
                }
                None
            }
            Err(error) => {
                self.warn(path, format!("cannot resolve symlink: {error}"));
                None
            }
        }
    }

    /// One matcher from the named ignore files of `dir`, in order; a bad line is reported and
    /// the rest of the file still applies.
    fn ignore_file(&mut self, dir: &Path, names: &[&str]) -> Gitignore {
        let mut builder = GitignoreBuilder::new(dir);
        for name in names {
            // Read through `fsio`, as every file of the walk is: a revision mounted in memory
            // has no file on disk to hand the builder.
            let file = dir.join(name);
            let text = match crate::fsio::read_to_string(
                self.facts,
                &file,
                crate::fsio::Confine::within(self.root),
            ) {
                Ok(text) => text,
                Err(error) => {
                    self.warn(&file, format!("cannot read ignore file: {error}"));
                    continue;
                }
            };
            for (index, line) in text.lines().enumerate() {
                if let Err(error) = builder.add_line(Some(file.clone()), line) {
                    let located = ignore::Error::WithPath {
                        path: file.clone(),
                        err: Box::new(ignore::Error::WithLineNumber {
                            line: (index + 1) as u64,
                            err: Box::new(error),
                        }),
                    };
                    ignore_file_diagnostics(self.root, &located, &mut self.diagnostics);
                }
            }
        }
        builder.build().unwrap_or_else(|error| {
            ignore_file_diagnostics(self.root, &error, &mut self.diagnostics);
            Gitignore::empty()
        })
    }

    /// Reads `dir`'s `.sourceignore` onto the pattern stack (the patterns' domain is `dir`) and
    /// says how many it pushed.
    fn read_sourceignore(&mut self, dir: &Path) -> usize {
        let file = dir.join(".sourceignore");
        let text = match crate::fsio::read_to_string(
            self.facts,
            &file,
            crate::fsio::Confine::within(self.root),
        ) {
            Ok(text) => text,
            Err(error) => {
                self.warn(&file, format!("cannot read ignore file: {error}"));
                return 0;
            }
        };
        let domain: Vec<String> = segments(dir, self.root)
            .iter()
            .map(|s| s.to_string())
            .collect();
        let patterns = sourceignore::read_patterns(&text, &domain);
        let count = patterns.len();
        self.has_source_patterns |= count > 0;
        self.source_patterns.extend(patterns);
        count
    }

    /// What the ignore files say about an entry of the walk. `.sourceignore` patterns decide
    /// first, as source-controller's archive filter does (go-git's matcher, the last matching
    /// pattern wins); Flux's default exclusions apply only where no `.sourceignore` has a
    /// pattern; then `.krmignore` and `.gitignore` as git and the `ignore` tools decide (the
    /// nearest directory whose file says anything about the path).
    fn verdict(
        &self,
        path: &Path,
        name: &[u8],
        is_dir: bool,
        ignores: &[DirectoryIgnores],
    ) -> Verdict {
        if !self.source_patterns.is_empty() || !self.spec_patterns.is_empty() {
            let owned = segments(path, self.root);
            let segments: Vec<&str> = owned.iter().map(AsRef::as_ref).collect();
            // The last matching pattern wins, and `spec.ignore`'s come last.
            let decided = match sourceignore::matches(&self.spec_patterns, &segments, is_dir) {
                sourceignore::MatchResult::NoMatch => {
                    sourceignore::matches(&self.source_patterns, &segments, is_dir)
                }
                by_spec => by_spec,
            };
            match decided {
                sourceignore::MatchResult::Include => return Verdict::Keep,
                sourceignore::MatchResult::Exclude => {
                    let reopened = is_dir
                        && self
                            .source_patterns
                            .iter()
                            .chain(&self.spec_patterns)
                            .any(|p| p.is_inclusion() && p.could_match_below(&segments));
                    return if reopened {
                        Verdict::ExcludedDirectoryToSearch
                    } else {
                        Verdict::Exclude
                    };
                }
                sourceignore::MatchResult::NoMatch => {}
            }
        }
        if !self.has_source_patterns && is_excluded_by_default(name, is_dir) {
            return Verdict::Exclude;
        }
        let nearest = |pick: fn(&DirectoryIgnores) -> Option<&Gitignore>| {
            ignores
                .iter()
                .rev()
                .filter_map(pick)
                .map(|matcher| matcher.matched(path, is_dir))
                .find(|m| !m.is_none())
        };
        let ignored = nearest(|d| d.krmignore.as_ref())
            .or_else(|| nearest(|d| d.gitignore.as_ref()))
            .is_some_and(|m| m.is_ignore());
        if ignored {
            Verdict::Exclude
        } else {
            Verdict::Keep
        }
    }

    fn warn(&mut self, path: &Path, message: String) {
        self.diagnostics.push(
            Diagnostic::warning(message)
                .at(Location::file(super::paths::relative_to(path, self.root))),
        );
    }
}

/// `path`'s segments below `root` (none for the root itself).
fn segments<'p>(path: &'p Path, root: &Path) -> Vec<std::borrow::Cow<'p, str>> {
    path.strip_prefix(root)
        .map(|relative| {
            relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect()
        })
        .unwrap_or_default()
}

/// The problems of an ignore file, one diagnostic per bad line, at its file and line.
fn ignore_file_diagnostics(root: &Path, error: &ignore::Error, out: &mut Vec<Diagnostic>) {
    let mut path = None;
    let mut line = None;
    let mut current = error;
    let message = loop {
        match current {
            ignore::Error::Partial(errors) => {
                for error in errors {
                    ignore_file_diagnostics(root, error, out);
                }
                return;
            }
            ignore::Error::WithPath { path: p, err } => {
                path = Some(p.clone());
                current = err;
            }
            ignore::Error::WithLineNumber { line: l, err } => {
                line = u32::try_from(*l).ok();
                current = err;
            }
            ignore::Error::WithDepth { err, .. } => current = err,
            other => break other.to_string(),
        }
    };
    let diagnostic = Diagnostic::warning(format!("ignore rule not used: {message}"));
    out.push(match (path, line) {
        (Some(p), Some(line)) => diagnostic.at(Location::at(
            super::paths::relative_to(&p, root),
            crate::yaml::Pos { line, column: 1 },
        )),
        (Some(p), None) => diagnostic.at(Location::file(super::paths::relative_to(&p, root))),
        _ => diagnostic,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The name matcher agrees with a gitignore matcher built from the same patterns.
    #[test]
    fn default_exclusions_match_as_gitignore_patterns() {
        let root = Path::new("/repo");
        let mut builder = GitignoreBuilder::new(root);
        for pattern in DEFAULT_EXCLUSIONS {
            builder.add_line(None, pattern).unwrap();
        }
        let gitignore = builder.build().unwrap();
        // A name each pattern is written for (`*.png` gives `a.png`), then names near them.
        let written_for = DEFAULT_EXCLUSIONS.iter().map(|pattern| {
            let name = pattern.trim_start_matches("**/").trim_end_matches('/');
            name.replace('*', "a")
        });
        let near = [
            "tar.gz",
            ".tar.gz",
            "x.gz",
            "png",
            ".png",
            "a.PNG",
            "a.png.yaml",
            "flux.yaml",
            "kustomization.yaml",
            "github",
            ".git.yaml",
            "x.sops.yaml",
            "cloudbuild.yml",
            "apps",
        ];
        let names: Vec<String> = written_for
            .chain(near.iter().map(|n| n.to_string()))
            .collect();
        // Every pattern excludes the name it is written for (as a directory, for `dir/` ones).
        for name in &names[..DEFAULT_EXCLUSIONS.len()] {
            assert!(is_excluded_by_default(name.as_bytes(), true), "{name}");
        }
        for name in &names {
            for is_dir in [false, true] {
                for parent in ["/repo", "/repo/apps/base"] {
                    let path = Path::new(parent).join(name);
                    assert_eq!(
                        is_excluded_by_default(name.as_bytes(), is_dir),
                        gitignore.matched(&path, is_dir).is_ignore(),
                        "{} (directory: {is_dir})",
                        path.display()
                    );
                }
            }
        }
    }
}
