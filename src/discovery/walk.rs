//! Listing the files Flux would see: the working tree minus `.git`, Flux's default exclusions,
//! `.sourceignore`, `.krmignore` and `.gitignore` (ignored files are not committed, so Flux never
//! sees them). Symlinks are followed but may not lead outside the root.

use std::path::{Path, PathBuf};

use ignore::overrides::OverrideBuilder;
use ignore::WalkBuilder;

use crate::diagnostic::{Diagnostic, Location};

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

pub struct Listing {
    /// YAML files (absolute paths under the root), sorted.
    pub yaml_files: Vec<PathBuf>,
    pub diagnostics: Vec<Diagnostic>,
}

pub fn is_yaml(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

/// Walks `root` (already canonical) and lists its YAML files.
pub fn list_yaml_files(root: &Path) -> Listing {
    let mut diagnostics = Vec::new();
    let mut overrides = OverrideBuilder::new(root);
    for pattern in DEFAULT_EXCLUSIONS {
        // A `!` glob in an override set excludes what it matches.
        let _ = overrides.add(&format!("!{pattern}"));
    }
    let mut builder = WalkBuilder::new(root);
    builder
        .standard_filters(false)
        .git_ignore(true)
        .require_git(false)
        .parents(false)
        .follow_links(true)
        .add_custom_ignore_filename(".sourceignore")
        .add_custom_ignore_filename(".krmignore")
        .sort_by_file_name(|a, b| a.cmp(b));
    if let Ok(overrides) = overrides.build() {
        builder.overrides(overrides);
    }
    let mut yaml_files = Vec::new();
    for entry in builder.build() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                diagnostics.push(walk_error_diagnostic(root, &error));
                continue;
            }
        };
        if entry.depth() > 0 && entry.file_name() == ".git" {
            continue;
        }
        let path = entry.path();
        if !entry.file_type().is_some_and(|t| t.is_file()) || !is_yaml(path) {
            continue;
        }
        if entry.path_is_symlink() {
            match path.canonicalize() {
                Ok(target) if target.starts_with(root) => {}
                Ok(target) => {
                    diagnostics.push(
                        Diagnostic::warning(format!(
                            "symlink points outside the repository root (to `{}`); not read",
                            target.display()
                        ))
                        .at(Location::file(super::paths::relative_to(path, root))),
                    );
                    continue;
                }
                Err(error) => {
                    diagnostics.push(
                        Diagnostic::warning(format!("cannot resolve symlink: {error}"))
                            .at(Location::file(super::paths::relative_to(path, root))),
                    );
                    continue;
                }
            }
        }
        yaml_files.push(path.to_path_buf());
    }
    yaml_files.sort();
    Listing {
        yaml_files,
        diagnostics,
    }
}

fn walk_error_diagnostic(root: &Path, error: &ignore::Error) -> Diagnostic {
    let mut path = None;
    let mut current = error;
    let message = loop {
        match current {
            ignore::Error::WithPath { path: p, err } => {
                path = Some(p.clone());
                current = err;
            }
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                current = err;
            }
            ignore::Error::Loop { child, .. } => {
                path = Some(child.clone());
                break "symlink loop; not followed".to_owned();
            }
            other => break other.to_string(),
        }
    };
    let diagnostic = Diagnostic::warning(message);
    match path {
        Some(p) => diagnostic.at(Location::file(super::paths::relative_to(&p, root))),
        None => diagnostic,
    }
}
