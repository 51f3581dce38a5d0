//! `offlux init`: a first `.offlux.yaml` for the repository, from the clusters offlux finds in it
//! (`discovery::clusters`), and on request a GitHub workflow and a pre-commit configuration that
//! run offlux. It writes only at the repository root, and never over a file that is there unless
//! `--force` says so.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::exit::{CliError, ExitStatus};
use super::repo_args::RepoArgs;
use super::stdout::Output;

#[derive(clap::Args, Debug)]
pub struct InitArgs {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// Also write `.github/workflows/offlux.yml`: `offlux validate` on every pull request and a
    /// `diff` comment.
    #[arg(long)]
    pub github_workflow: bool,
    /// Also write `.pre-commit-config.yaml` with the offlux hooks.
    #[arg(long)]
    pub pre_commit: bool,
    /// Replace files that are already there.
    #[arg(long)]
    pub force: bool,
}

pub(super) fn run(args: &InitArgs, out: &mut Output) -> Result<ExitStatus, CliError> {
    let repository = args
        .repo
        .discover()
        .map_err(|e| CliError::usage(e.to_string(), None))?;
    let root = repository.root.clone();
    let (clusters, _) = crate::orchestrator::clusters::clusters_of(&repository);
    let entries: Vec<String> = clusters.iter().map(|c| shown(&c.entry)).collect();
    let mut files: Vec<(PathBuf, String)> =
        vec![(root.join(crate::config_file::FILE), config(&entries))];
    if args.github_workflow {
        files.push((
            root.join(".github/workflows/offlux.yml"),
            workflow(&entries),
        ));
    }
    if args.pre_commit {
        files.push((root.join(".pre-commit-config.yaml"), pre_commit()));
    }
    // Without --force a file already there is kept (a repository's own pre-commit configuration
    // holds other hooks) and the others are written; with nothing left to write, that is an error.
    let mut said = String::new();
    if !args.force {
        let (kept, missing): (Vec<_>, Vec<_>) =
            files.into_iter().partition(|(path, _)| path.exists());
        if missing.is_empty() {
            let names: Vec<String> = kept
                .iter()
                .map(|(path, _)| format!("`{}`", path.display()))
                .collect();
            return Err(CliError::usage(
                format!("{} already there", names.join(" and ")),
                Some("pass --force to replace it"),
            ));
        }
        for (path, _) in &kept {
            let _ = writeln!(
                said,
                "kept {} (already there: merge offlux's part by hand, or pass --force to replace it)",
                path.display()
            );
        }
        files = missing;
    }
    // A link on the way (`.github` pointing elsewhere) would write outside the repository.
    for (path, _) in &files {
        let mut at = root.clone();
        for part in path.strip_prefix(&root).unwrap_or(path).components() {
            at.push(part);
            if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(CliError::usage(
                    format!(
                        "`{}` is a link: offlux init writes only inside the repository",
                        at.display()
                    ),
                    None,
                ));
            }
        }
    }
    for (path, text) in &files {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| CliError::usage(format!("`{}`: {e}", dir.display()), None))?;
        }
        std::fs::write(path, text)
            .map_err(|e| CliError::usage(format!("`{}`: {e}", path.display()), None))?;
        let _ = writeln!(said, "wrote {}", path.display());
    }
    let _ = match entries.as_slice() {
        [] => writeln!(
            said,
            "no cluster entry point found: `path` is left for you to set"
        ),
        [one] => writeln!(said, "one cluster, at `{one}`"),
        several => writeln!(said, "{} clusters: {}", several.len(), several.join(", ")),
    };
    said.push_str("check it with `offlux config show`, then run `offlux test`\n");
    out.write(&said)?;
    Ok(ExitStatus::Success)
}

/// A path relative to the root as `.offlux.yaml` writes it (`.` for the root itself).
fn shown(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    if text.is_empty() {
        ".".to_owned()
    } else {
        text
    }
}

/// The configuration for the clusters at `entries`: one is the run's `path`; several are each
/// run on their own from the root, and each is an entry point for the orphan checks.
fn config(entries: &[String]) -> String {
    let mut text = String::from(
        "# offlux's settings for this repository (docs/configuration.md of offlux; flags win).\n",
    );
    match entries {
        [] => text.push_str("# path: clusters/prod      # the directory a run starts from\n"),
        [one] => {
            let _ = writeln!(text, "path: {}", yaml_string(one));
        }
        several => {
            text.push_str("# Several clusters: a run from the root reconciles each on its own.\n");
            text.push_str("validate:\n  orphans:\n    entry-points:\n");
            for entry in several {
                let _ = writeln!(text, "      - {}", yaml_string(entry));
            }
        }
    }
    text.push_str(
        "# offline: true            # never fetch charts; what needs them is SKIPPED\n\
         # allow-missing-sources: true\n\
         # chart-cache: charts       # a directory of charts in this repository\n",
    );
    text
}

/// `text` as a YAML string that reads back as itself.
fn yaml_string(text: &str) -> String {
    if crate::yaml::scalar_needs_quoting(text) {
        serde_json::Value::String(text.to_owned()).to_string()
    } else {
        text.to_owned()
    }
}

fn workflow(entries: &[String]) -> String {
    let path = match entries {
        [one] => one.clone(),
        _ => ".".to_owned(),
    };
    format!(
        "# offlux on every pull request: validate the rendered repository, and comment what the\n\
         # change does to the cluster. Replace OWNER/offlux@v0 with the Action's release.\n\
         name: offlux\n\
         on: pull_request\n\
         permissions: {{ contents: read, pull-requests: write }}\n\
         jobs:\n\
         \x20 offlux:\n\
         \x20   runs-on: ubuntu-latest\n\
         \x20   steps:\n\
         \x20     - uses: actions/checkout@v4\n\
         \x20       with: {{ fetch-depth: 0 }}\n\
         \x20     - uses: OWNER/offlux@v0\n\
         \x20       with: {{ command: validate, path: {path} }}\n\
         \x20     - uses: OWNER/offlux@v0\n\
         \x20       with: {{ command: diff, path: {path}, comment: true, args: --exit-zero }}\n",
        path = yaml_string(&path)
    )
}

/// Hooks that install offlux's wheel into pre-commit's own environment (`language: python`), so a
/// hook starts in seconds; the hooks of this project's `.pre-commit-hooks.yaml` build from source.
fn pre_commit() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let hook = |verb: &str| {
        format!(
            "      - id: offlux-{verb}\n\
             \x20       name: offlux {verb}\n\
             \x20       entry: offlux {verb} --offline --allow-missing-sources\n\
             \x20       language: python\n\
             \x20       additional_dependencies: [\"offlux=={version}\"]\n\
             \x20       pass_filenames: false\n\
             \x20       files: \\.(ya?ml|json|tpl|tgz|env)$\n"
        )
    };
    format!(
        "# offlux's hooks: reconcile offline and check the rendered repository before each commit.\n\
         # pre-commit installs offlux's wheel from PyPI into the hooks' environment once (seconds, no\n\
         # Rust toolchain); before a release is there, put the path of a wheel file in\n\
         # `additional_dependencies`. `repo: https://github.com/OWNER/offlux` with the same ids\n\
         # builds offlux from source instead.\n\
         repos:\n\
         \x20 - repo: local\n\
         \x20   hooks:\n{}{}",
        hook("test"),
        hook("validate")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cluster_is_the_path_several_are_entry_points() {
        assert!(config(&["clusters/prod".into()]).contains("\npath: clusters/prod\n"));
        let several = config(&["clusters/a".into(), "clusters/b".into()]);
        assert!(several.contains("    entry-points:\n      - clusters/a\n      - clusters/b\n"));
        assert!(config(&[]).contains("# path:"));
    }
}
