//! How a command ends. Every verb returns `Result<ExitStatus, CliError>`; [`code`] turns that into
//! the process's exit code, in one place, as the README's table says:
//!
//! | code | when |
//! |---|---|
//! | 0 | success, and a reader of stdout that went away (`offlux render \| head`) |
//! | 1 | the repository has failures ([`ExitStatus::Failures`]), or the command failed partway ([`CliError::Failed`], a write to stdout that failed) |
//! | 2 | usage or input error ([`CliError::Usage`]: a bad flag, a path that does not exist) |
//! | 130, 143 | interrupted by SIGINT (Ctrl-C) or SIGTERM ([`CliError::Interrupted`]: 128 + the signal's number, as a shell reports a process the signal ended) |

/// How a command that ran to its end came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
    /// The repository has failures (errors in objects, files or renders), a Flux object failed or
    /// is blocked, or (`diff`) the two sides differ.
    Failures,
}

impl ExitStatus {
    /// `Failures` when `failed`, else `Success`.
    pub(crate) fn failures_if(failed: bool) -> Self {
        if failed {
            ExitStatus::Failures
        } else {
            ExitStatus::Success
        }
    }
}

/// Why a command did not run to its end. `report::print_error` says it on stderr.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad usage or unusable input: a path that does not exist, a value offlux refuses.
    #[error("{message}")]
    Usage {
        message: String,
        hint: Option<String>,
    },
    /// The command failed partway for a reason that is not the repository's (writing a file,
    /// an interrupt).
    #[error("{message}")]
    Failed { message: String },
    /// stdout could not be written.
    #[error("writing to stdout: {0}")]
    Stdout(#[source] std::io::Error),
    /// A signal asked the process to stop (SIGINT 2, SIGTERM 15); what was under way was
    /// cancelled and no result printed.
    #[error("interrupted (signal {signal}); no result")]
    Interrupted { signal: i32 },
}

impl CliError {
    pub fn usage(message: impl Into<String>, hint: Option<&str>) -> Self {
        CliError::Usage {
            message: message.into(),
            hint: hint.map(str::to_owned),
        }
    }

    pub fn failed(message: impl Into<String>) -> Self {
        CliError::Failed {
            message: message.into(),
        }
    }

    /// A reader that went away: the output was wanted only in part, and the command ends
    /// quietly with success, as ripgrep does.
    pub(crate) fn is_closed_stdout(&self) -> bool {
        matches!(self, CliError::Stdout(error) if error.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

pub(crate) const SUCCESS: u8 = 0;
pub(crate) const FAILURES: u8 = 1;
pub(crate) const USAGE: u8 = 2;

/// The process's exit code for a command's result.
pub fn code(result: &Result<ExitStatus, CliError>) -> u8 {
    match result {
        Ok(ExitStatus::Success) => SUCCESS,
        Ok(ExitStatus::Failures) => FAILURES,
        Err(CliError::Usage { .. }) => USAGE,
        Err(error) if error.is_closed_stdout() => SUCCESS,
        Err(CliError::Failed { .. } | CliError::Stdout(_)) => FAILURES,
        Err(CliError::Interrupted { signal }) => interrupted(*signal),
    }
}

/// 128 + the signal's number, as a shell reports a process the signal ended.
fn interrupted(signal: i32) -> u8 {
    u8::try_from(signal)
        .ok()
        .and_then(|n| n.checked_add(128))
        .unwrap_or(FAILURES)
}

/// Leaves `value` to the operating system, for a command that is about to return its exit
/// code: freeing a run's trees node by node is a noticeable part of a whole render, and the
/// process's memory goes back whole anyway.
pub(crate) fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_result_has_the_code_the_readme_gives() {
        let broken = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let full = std::io::Error::from(std::io::ErrorKind::StorageFull);
        let cases = [
            (Ok(ExitStatus::Success), 0),
            (Ok(ExitStatus::Failures), 1),
            (Err(CliError::usage("bad", None)), 2),
            (Err(CliError::failed("writing")), 1),
            (Err(CliError::Stdout(broken)), 0),
            (Err(CliError::Stdout(full)), 1),
            (Err(CliError::Interrupted { signal: 2 }), 130),
            (Err(CliError::Interrupted { signal: 15 }), 143),
        ];
        for (result, expected) in cases {
            assert_eq!(code(&result), expected, "{result:?}");
        }
    }
}
