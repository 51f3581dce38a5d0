//! Shell completion. Static scripts (`offlux completions SHELL`, generated from the clap definition;
//! the committed copies under `completions/` are checked by a test to be current) complete verbs and
//! flags. Dynamic completion (`source <(COMPLETE=bash offlux)`, clap_complete's engine) also
//! completes the names in the repository: `build ks|hr <TAB>` offers its Kustomizations or
//! HelmReleases, `explain <TAB>` the finding codes.

use std::ffi::{OsStr, OsString};
use std::path::Path;

use clap::FromArgMatches as _;
use clap_complete::engine::{ArgValueCandidates, ArgValueCompleter, CompletionCandidate};
use clap_complete::Shell;

use crate::model::FluxKind;
use crate::validate::Code;

use super::exit::{CliError, ExitStatus};
use super::stdout::Output;

#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to generate for.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub(super) fn run(args: &CompletionsArgs, out: &mut Output) -> Result<ExitStatus, CliError> {
    let mut command = super::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "offlux", &mut script);
    out.write_bytes(&script)?;
    Ok(ExitStatus::Success)
}

/// Generates every shell's script into `dir` (used to refresh `completions/`).
pub fn write_all_completions(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut written = Vec::new();
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::Elvish,
        Shell::PowerShell,
    ] {
        let mut command = super::command();
        written.push(clap_complete::generate_to(
            shell,
            &mut command,
            "offlux",
            dir,
        )?);
    }
    Ok(written)
}

/// Answers a dynamic completion request (the `COMPLETE` environment variable is set by the
/// registration script) and says whether it did; otherwise the run goes on as usual.
pub(super) fn answer_dynamic_request() -> Result<bool, clap::Error> {
    clap_complete::CompleteEnv::with_factory(super::command)
        .try_complete(std::env::args_os(), std::env::current_dir().ok().as_deref())
}

/// `build ks|hr NAME`, `diff ks|hr NAME`: the names of that kind's objects in the repository the command line points
/// at (its `--path`, `--root` and `.offlux.yaml`), as discovery reads them without reconciling.
pub(super) fn object_names() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let Some(current) = current.to_str() else {
            return Vec::new();
        };
        object_name_candidates(&words_before_cursor(), current)
    })
}

/// `explain CODE`: every finding code, with its name as help.
pub(super) fn finding_codes() -> ArgValueCandidates {
    ArgValueCandidates::new(|| {
        Code::ALL
            .iter()
            .map(|code| CompletionCandidate::new(code.as_str()).help(Some(code.name().into())))
            .collect()
    })
}

/// The words of the command line being completed before the one under the cursor. The
/// registration scripts run `offlux -- WORDS...`; bash, zsh and elvish say which word the cursor
/// is in (`_CLAP_COMPLETE_INDEX`), the others pass the words up to the cursor.
fn words_before_cursor() -> Vec<OsString> {
    let mut words: Vec<OsString> = std::env::args_os()
        .skip_while(|word| word != "--")
        .skip(1)
        .collect();
    let cursor = std::env::var("_CLAP_COMPLETE_INDEX")
        .ok()
        .and_then(|index| index.parse::<usize>().ok())
        .unwrap_or(words.len().saturating_sub(1));
    words.truncate(cursor);
    words
}

fn object_name_candidates(words: &[OsString], current: &str) -> Vec<CompletionCandidate> {
    // The line so far, parsed as a run would parse it; a line that does not parse yet offers nothing.
    let Ok(matches) = super::command().try_get_matches_from(words) else {
        return Vec::new();
    };
    let Ok(mut cli) = super::Cli::from_arg_matches(&matches) else {
        return Vec::new();
    };
    // The file's `path` applies as it would to the run; a broken file leaves the flags as they are.
    let _ = super::config::apply_to(&mut cli.command, &matches);
    // The kind word as typed (`ks`, `hr` or an alias), read from the matches so that this module
    // need not name the verbs' own types.
    let what = matches
        .subcommand()
        .and_then(|(_, verb)| verb.get_raw("what"))
        .and_then(|mut values| values.next())
        .and_then(OsStr::to_str)
        .unwrap_or_default();
    let kind = match what {
        "hr" | "helmrelease" => FluxKind::HelmRelease,
        "ks" | "kustomization" | "all" => FluxKind::Kustomization,
        _ => return Vec::new(),
    };
    let (repo, namespace) = match &cli.command {
        super::Command::Build(build) => (&build.run.repo, build.namespace.as_deref()),
        super::Command::Diff(diff) => (&diff.run.repo, diff.namespace.as_deref()),
        _ => return Vec::new(),
    };
    let Ok(repository) = repo.discover() else {
        return Vec::new();
    };
    let mut names: Vec<(String, String)> = repository
        .flux_objects
        .iter()
        .filter(|flux| flux.kind == kind)
        .filter(|flux| namespace.is_none_or(|namespace| flux.object.id.namespace == namespace))
        .map(|flux| {
            (
                flux.object.id.name.to_string(),
                flux.object.id.namespace.to_string(),
            )
        })
        .filter(|(name, _)| name.starts_with(current))
        .collect();
    names.sort();
    names.dedup_by(|a, b| a.0 == b.0);
    names
        .into_iter()
        .map(|(name, namespace)| {
            let help = (!namespace.is_empty()).then(|| namespace.into());
            CompletionCandidate::new(name).help(help)
        })
        .collect()
}
