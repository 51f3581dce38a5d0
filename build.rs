//! Embeds what `offlux --version` says of the build: the commit it was built from (read from the
//! checkout's `.git`, without a `git` binary; "unknown" outside a checkout, as in a packaged crate)
//! and the build date (`SOURCE_DATE_EPOCH` when set, for reproducible builds; else today, UTC).

#![allow(
    clippy::print_stdout,
    clippy::disallowed_methods,
    reason = "a build script speaks to cargo on stdout and reads what cargo sets in its environment"
)]

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    let commit = git_dir(Path::new(".git"))
        .and_then(|dir| {
            let head = dir.join("HEAD");
            println!("cargo:rerun-if-changed={}", head.display());
            let text = std::fs::read_to_string(&head).ok()?;
            let text = text.trim();
            match text.strip_prefix("ref: ") {
                Some(name) => {
                    let loose = dir.join(name);
                    println!("cargo:rerun-if-changed={}", loose.display());
                    let packed = common_dir(&dir).join("packed-refs");
                    println!("cargo:rerun-if-changed={}", packed.display());
                    std::fs::read_to_string(common_dir(&dir).join(name))
                        .ok()
                        .map(|s| s.trim().to_owned())
                        .or_else(|| {
                            std::fs::read_to_string(packed)
                                .ok()?
                                .lines()
                                .find_map(|line| {
                                    let (hash, refname) = line.split_once(' ')?;
                                    (refname == name).then(|| hash.to_owned())
                                })
                        })
                }
                None => Some(text.to_owned()),
            }
        })
        .filter(|hash| hash.len() >= 12 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        .map_or_else(|| "unknown".to_owned(), |hash| hash[..12].to_owned());
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    println!("cargo:rustc-env=OFFLUX_COMMIT={commit}");
    println!(
        "cargo:rustc-env=OFFLUX_BUILD_DATE={}",
        civil_date(seconds / 86_400)
    );
}

/// The git directory: `.git` itself, or the one a worktree's `.git` file points to.
fn git_dir(dot_git: &Path) -> Option<PathBuf> {
    if dot_git.is_dir() {
        return Some(dot_git.to_path_buf());
    }
    let text = std::fs::read_to_string(dot_git).ok()?;
    text.trim().strip_prefix("gitdir: ").map(PathBuf::from)
}

/// Where a worktree's branches live: the main git directory (`commondir`), else `dir` itself.
fn common_dir(dir: &Path) -> PathBuf {
    match std::fs::read_to_string(dir.join("commondir")) {
        Ok(text) => dir.join(text.trim()),
        Err(_) => dir.to_path_buf(),
    }
}

/// `YYYY-MM-DD` of a count of days since 1970-01-01 (the proleptic Gregorian calendar).
fn civil_date(days: u64) -> String {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
