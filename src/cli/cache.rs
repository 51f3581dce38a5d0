//! `offlux cache`: the charts offlux downloaded and keeps across runs (`$XDG_CACHE_HOME/offlux/charts`,
//! else `~/.cache/offlux/charts`), listed, pruned or emptied. Only the archives offlux stored there
//! (`sha256/<digest>`) are ever removed; anything else in the directory is left as it is.

use std::time::{Duration, SystemTime};

use super::exit::{CliError, ExitStatus};
use super::stdout::Output;
use super::{report, Context};
use crate::helm::repo::{cached_archives, CachedArchive};

#[derive(clap::Args, Debug)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub what: CacheCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum CacheCommand {
    /// Where the cache is, and each archive in it: digest, size, age (`-o json` for a list).
    List {
        #[arg(short = 'o', long, value_enum, default_value_t = ListFormat::Table)]
        output: ListFormat,
    },
    /// Removes the oldest archives until the cache holds at most `--max-size` bytes, and every
    /// archive older than `--older-than` days.
    Gc {
        /// The most bytes the cache keeps [default: 1073741824].
        #[arg(long, value_name = "BYTES", default_value_t = 1 << 30)]
        max_size: u64,
        /// Archives stored more than this many days ago are removed too.
        #[arg(long, value_name = "DAYS")]
        older_than: Option<u64>,
    },
    /// Removes every archive offlux stored.
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
                    let value = serde_json::json!({"cache": root, "archives": list});
                    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
                }
                ListFormat::Table => {
                    let rows: Vec<Vec<String>> = archives
                        .iter()
                        .map(|a| {
                            vec![
                                a.digest.chars().take(19).collect(),
                                a.bytes.to_string(),
                                age(a, now).map_or_else(|| "?".to_owned(), days),
                            ]
                        })
                        .collect();
                    let mut text = format!(
                        "{}: {} archives, {} bytes\n",
                        root.display(),
                        archives.len(),
                        archives.iter().map(|a| a.bytes).sum::<u64>()
                    );
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
            remove(&removed)?;
            report::eprint(
                context,
                &format!(
                    "Removed {} archives ({} bytes); {} bytes kept in `{}`.\n",
                    removed.len(),
                    removed.iter().map(|a| a.bytes).sum::<u64>(),
                    kept,
                    root.display()
                ),
            );
        }
        CacheCommand::Clear => {
            let all: Vec<&CachedArchive> = archives.iter().collect();
            remove(&all)?;
            report::eprint(
                context,
                &format!(
                    "Removed {} archives from `{}`.\n",
                    all.len(),
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
