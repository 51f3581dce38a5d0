//! `offlux render`: everything that would be applied, on stdout or as a tree of files, one per
//! producer (`DIR/<Kind>/<namespace>/<name>.yaml`), written so that a failed run never leaves a
//! half-written tree and files of producers that no longer exist are removed (only inside DIR).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::objects::{self, documents, join, ObjectFormat, SkipArgs};
use super::run_args::RunArgs;
use super::{exit, report, test, usage_error, Context};
use crate::model::{Object, ResourceId};

#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub skip: SkipArgs,
    /// Write one file per producer under this directory instead of printing.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ObjectFormat::Yaml)]
    pub output: ObjectFormat,
}

pub fn run(args: &RenderArgs, context: &Context) -> u8 {
    let (repository, report) = match args.run.run() {
        Ok(result) => result,
        Err(message) => return usage_error(&message, None),
    };
    if report.cancelled {
        eprintln!("error: interrupted; nothing was written");
        return exit::FAILURES;
    }
    let mut diagnostics = repository.diagnostics.clone();
    diagnostics.extend(report.diagnostics.iter().cloned());
    report::print_diagnostics(&diagnostics, &repository.root, context);
    let rows = test::rows(&report);
    let errors: String = rows
        .iter()
        .filter(|r| matches!(r.result, test::Verdict::Fail | test::Verdict::Blocked))
        .map(|row| {
            format!(
                "error: {}/{}/{}: {}\n",
                row.kind, row.namespace, row.name, row.message
            )
        })
        .collect();
    eprint!("{errors}");
    let failed = rows
        .iter()
        .any(|r| matches!(r.result, test::Verdict::Fail | test::Verdict::Blocked));
    let producers: Vec<(&ResourceId, Vec<&Object>)> = report
        .rendered
        .iter()
        .map(|(id, objects)| (id, objects.iter().filter(|o| args.skip.keeps(o)).collect()))
        .collect();
    let all: Vec<&Object> = producers
        .iter()
        .flat_map(|(_, objects)| objects.iter().copied())
        .collect();
    match &args.out {
        None => {
            objects::print(&all, args.output);
        }
        Some(dir) => {
            let extension = match args.output {
                ObjectFormat::Yaml => "yaml",
                ObjectFormat::Json => "json",
            };
            // Formatted as one run over all objects, so the cores share the work evenly.
            let mut documents = documents(&all, args.output).into_iter();
            let files: Vec<(PathBuf, String)> = producers
                .iter()
                .map(|(id, objects)| {
                    let own: Vec<String> = documents.by_ref().take(objects.len()).collect();
                    (producer_file(id, extension), join(&own, args.output))
                })
                .collect();
            match write_tree(dir, &files, extension) {
                Ok(written) => eprintln!("Wrote {written} files under `{}`.", dir.display()),
                Err(error) => {
                    eprintln!("error: writing `{}`: {error}", dir.display());
                    return exit::FAILURES;
                }
            }
        }
    }
    exit::leave_to_exit((repository, report));
    if failed {
        exit::FAILURES
    } else {
        exit::SUCCESS
    }
}

/// `<Kind>/<namespace>/<name>.<ext>`; names are Kubernetes names, but a path separator or `..` in
/// one must never lead outside the tree.
fn producer_file(id: &ResourceId, extension: &str) -> PathBuf {
    let clean = |part: &str| {
        let cleaned: String = part
            .chars()
            .map(|c| if c == '/' || c == '\\' { '_' } else { c })
            .collect();
        if cleaned.is_empty() || cleaned == "." || cleaned == ".." {
            format!("_{cleaned}")
        } else {
            cleaned
        }
    };
    let namespace = if id.namespace.is_empty() {
        "_cluster".to_owned()
    } else {
        clean(&id.namespace)
    };
    PathBuf::from(clean(&id.kind))
        .join(namespace)
        .join(format!("{}.{extension}", clean(&id.name)))
}

/// Writes every file into a staging directory beside `dir`, then moves each into place (a rename,
/// atomic per file), then removes the files of producers that are gone. Until the moves start, `dir`
/// is untouched; a failure while staging leaves it as it was.
fn write_tree(dir: &Path, files: &[(PathBuf, String)], extension: &str) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let staging = tempfile::Builder::new()
        .prefix(".offlux-render-")
        .tempdir_in(parent)?;
    for (relative, text) in files {
        let path = staging.path().join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
    }
    let wanted: BTreeSet<&PathBuf> = files.iter().map(|(p, _)| p).collect();
    for relative in &wanted {
        let target = dir.join(relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::rename(staging.path().join(relative), target)?;
    }
    // Stale producer files: `<Kind>/<namespace>/<name>.<ext>`, exactly three levels deep.
    for kind in read_dirs(dir)? {
        for namespace in read_dirs(&kind)? {
            for entry in std::fs::read_dir(&namespace)?.flatten() {
                let path = entry.path();
                let relative = path
                    .strip_prefix(dir)
                    .map(Path::to_path_buf)
                    .unwrap_or_default();
                let ours = path.extension().is_some_and(|e| e == extension) && path.is_file();
                if ours && !wanted.contains(&relative) {
                    std::fs::remove_file(&path)?;
                }
            }
            let _ = std::fs::remove_dir(&namespace);
        }
        let _ = std::fs::remove_dir(&kind);
    }
    Ok(files.len())
}

fn read_dirs(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    dirs.sort();
    Ok(dirs)
}
