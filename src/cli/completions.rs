//! `offlux completions SHELL`: shell completion scripts, generated from the clap definition. The
//! committed copies under `completions/` are checked by a test to be current.

use std::path::Path;

use clap_complete::Shell;

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
