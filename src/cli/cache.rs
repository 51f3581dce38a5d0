//! `offlux cache`: what offlux downloaded and keeps across runs (`$XDG_CACHE_HOME/offlux/charts`,
//! else `~/.cache/offlux/charts`): chart archives and OCI artifacts by digest (`sha256/<digest>`),
//! the bare Git repositories of fetched GitRepositories (`git/<sha256 of the URL>/`) and the refs
//! and tags last resolved (`refs/`, `tags/`), listed, pruned or emptied. Only entries offlux
//! stored, named as it names them, are ever removed; anything else is left as it is.

use std::time::{Duration, SystemTime};

use super::exit::{CliError, ExitStatus};
use super::stdout::Output;
use super::{report, Context};
use crate::fetch::CachedEntry;
use crate::helm::repo::{cached_archives, CachedArchive};

#[derive(clap::Args, Debug)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub what: CacheCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum CacheCommand {
    /// Where the cache is, and each archive and repository in it: digest, size, age (`-o json`
    /// for a list).
    List {
        #[arg(short = 'o', long, value_enum, default_value_t = ListFormat::Table)]
        output: ListFormat,
    },
    /// Removes the oldest archives and Git repositories until the cache holds at most
    /// `--max-size` bytes, and every one older than `--older-than` days.
    Gc {
        /// The most bytes the cache keeps [default: 1073741824].
        #[arg(long, value_name = "BYTES", default_value_t = 1 << 30)]
        max_size: u64,
        /// Archives stored more than this many days ago are removed too.
        #[arg(long, value_name = "DAYS")]
        older_than: Option<u64>,
    },
    /// Removes every archive, Git repository and remembered ref offlux stored.
    Clear,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    Table,
    Json,
}

pub(super) fn run(
    args: &CacheArgs,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    let Some(root) = super::run_args::download_cache() else {
        report::eprint(
            context,
            "No download cache: neither XDG_CACHE_HOME nor HOME names an absolute directory, so downloads are not kept.\n",
        );
        return Ok(ExitStatus::Success);
    };
    let archives = cached_archives(&root).map_err(|e| {
        CliError::failed(format!("cannot list the cache `{}`: {e}", root.display()))
    })?;
    let entries = crate::fetch::cached_entries(&root).map_err(|e| {
        CliError::failed(format!("cannot list the cache `{}`: {e}", root.display()))
    })?;
    let repositories: Vec<&CachedEntry> = entries.iter().filter(|e| e.is_dir()).collect();
    let renders: Vec<&CachedEntry> = entries.iter().filter(|e| e.kind == "render").collect();
    let now = SystemTime::now();
    match &args.what {
        CacheCommand::List { output } => {
            let text = match output {
                ListFormat::Json => {
                    let list: Vec<serde_json::Value> = archives
                        .iter()
                        .map(|a| {
                            serde_json::json!({
                                "digest": a.digest,
                                "path": a.path,
                                "bytes": a.bytes,
                                "ageSeconds": age(a, now).map(|d| d.as_secs()),
                            })
                        })
                        .collect();
                    let repos: Vec<serde_json::Value> = repositories
                        .iter()
                        .map(|r| {
                            serde_json::json!({
                                "name": r.name,
                                "url": r.url,
                                "path": r.path,
                                "bytes": r.bytes,
                                "ageSeconds": r.stored.and_then(|s| now.duration_since(s).ok()).map(|d| d.as_secs()),
                            })
                        })
                        .collect();
                    let value = serde_json::json!({"cache": root, "archives": list, "gitRepositories": repos});
                    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
                }
                ListFormat::Table => {
                    let mut rows: Vec<Vec<String>> = archives
                        .iter()
                        .map(|a| {
                            vec![
                                a.digest.chars().take(19).collect(),
                                a.bytes.to_string(),
                                age(a, now).map_or_else(|| "?".to_owned(), days),
                            ]
                        })
                        .collect();
                    rows.extend(repositories.iter().map(|r| {
                        vec![
                            r.url
                                .clone()
                                .unwrap_or_else(|| format!("git:{}", &r.name[..12])),
                            r.bytes.to_string(),
                            r.stored
                                .and_then(|s| now.duration_since(s).ok())
                                .map_or_else(|| "?".to_owned(), days),
                        ]
                    }));
                    let mut text = format!(
                        "{}: {} archives, {} bytes\n",
                        root.display(),
                        archives.len(),
                        archives.iter().map(|a| a.bytes).sum::<u64>()
                    );
                    if !renders.is_empty() {
                        text.push_str(&format!(
                            "{} rendered releases, {} bytes\n",
                            renders.len(),
                            renders.iter().map(|r| r.bytes).sum::<u64>()
                        ));
                    }
                    if !repositories.is_empty() {
                        text.push_str(&format!(
                            "{} Git repositories (named by URL), {} bytes\n",
                            repositories.len(),
                            repositories.iter().map(|r| r.bytes).sum::<u64>()
                        ));
                    }
                    if !rows.is_empty() {
                        text.push_str(&crate::reporting::table::render(
                            &["DIGEST", "BYTES", "AGE"],
                            &rows,
                        ));
                    }
                    context.human(text)
                }
            };
            out.write(&text)?;
        }
        CacheCommand::Gc {
            max_size,
            older_than,
        } => {
            let limit = older_than.map(|d| Duration::from_secs(d.saturating_mul(86_400)));
            let mut kept: u64 = archives.iter().map(|a| a.bytes).sum();
            let mut removed = Vec::new();
            // Oldest first: what is over the size goes in the order it came.
            for archive in &archives {
                let too_old = limit.zip(age(archive, now)).is_some_and(|(l, a)| a > l);
                if kept > *max_size || too_old {
                    kept -= archive.bytes;
                    removed.push(archive);
                }
            }
            // Git repositories and rendered releases go by age as archives do.
            let prunable: Vec<&CachedEntry> = entries.iter().filter(|e| e.kind != "ref").collect();
            kept += prunable.iter().map(|r| r.bytes).sum::<u64>();
            let mut removed_repositories = Vec::new();
            for repository in &prunable {
                let age = repository.stored.and_then(|s| now.duration_since(s).ok());
                let too_old = limit.zip(age).is_some_and(|(l, a)| a > l);
                if kept > *max_size || too_old {
                    kept -= repository.bytes;
                    removed_repositories.push(*repository);
                }
            }
            remove(&removed)?;
            remove_entries(&removed_repositories)?;
            let repositories_note = if removed_repositories.is_empty() {
                String::new()
            } else {
                format!(
                    " and {} Git repositories or rendered releases",
                    removed_repositories.len()
                )
            };
            report::eprint(
                context,
                &format!(
                    "Removed {} archives{repositories_note} ({} bytes); {} bytes kept in `{}`.\n",
                    removed.len(),
                    removed.iter().map(|a| a.bytes).sum::<u64>()
                        + removed_repositories.iter().map(|r| r.bytes).sum::<u64>(),
                    kept,
                    root.display()
                ),
            );
        }
        CacheCommand::Clear => {
            let all: Vec<&CachedArchive> = archives.iter().collect();
            remove(&all)?;
            let others: Vec<&CachedEntry> = entries.iter().collect();
            remove_entries(&others)?;
            report::eprint(
                context,
                &format!(
                    "Removed {} archives, {} Git repositories, {} rendered releases and {} remembered refs from `{}`.\n",
                    all.len(),
                    repositories.len(),
                    renders.len(),
                    entries.len() - repositories.len() - renders.len(),
                    root.display()
                ),
            );
        }
    }
    Ok(ExitStatus::Success)
}

/// How long ago `archive` was stored.
fn age(archive: &CachedArchive, now: SystemTime) -> Option<Duration> {
    now.duration_since(archive.stored?).ok()
}

/// `3 d`, `0 d`.
fn days(age: Duration) -> String {
    format!("{} d", age.as_secs() / 86_400)
}

/// Removes Git repositories (whole directories offlux made) and remembered refs.
fn remove_entries(entries: &[&CachedEntry]) -> Result<(), CliError> {
    for entry in entries {
        let removed = if entry.is_dir() {
            std::fs::remove_dir_all(&entry.path)
        } else {
            std::fs::remove_file(&entry.path)
        };
        match removed {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(CliError::failed(format!(
                    "cannot remove `{}`: {error}",
                    entry.path.display()
                )))
            }
        }
    }
    Ok(())
}

fn remove(archives: &[&CachedArchive]) -> Result<(), CliError> {
    for archive in archives {
        match std::fs::remove_file(&archive.path) {
            Ok(()) => {}
            // Removed meanwhile (another run's gc): what was asked is done.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(CliError::failed(format!(
                    "cannot remove `{}`: {error}",
                    archive.path.display()
                )))
            }
        }
    }
    Ok(())
}
