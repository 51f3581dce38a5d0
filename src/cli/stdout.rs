//! Writing rendered data to stdout, through one locked, buffered writer that `main` makes and
//! hands to the verb. Each `write` is passed on at once, so stdout and stderr interleave as they
//! were written; a long output (`objects::print`) is written in parts and passed on when done. A
//! write that fails returns [`CliError::Stdout`]; a reader that went away ends the command
//! quietly with success (`exit::code`), where Rust's `print!` would panic.

use std::io::{BufWriter, StdoutLock, Write};

use super::exit::CliError;

pub(super) struct Output {
    out: BufWriter<StdoutLock<'static>>,
}

impl Output {
    /// Locks stdout for the rest of the process.
    pub(super) fn lock() -> Self {
        Output {
            out: BufWriter::with_capacity(64 * 1024, std::io::stdout().lock()),
        }
    }

    /// Writes `text` and passes it on.
    pub(super) fn write(&mut self, text: &str) -> Result<(), CliError> {
        self.write_bytes(text.as_bytes())
    }

    /// Writes `bytes` and passes them on.
    pub(crate) fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), CliError> {
        self.write_part(bytes)?;
        self.flush()
    }

    /// Writes part of a longer output; the next `flush` or `write` passes it on.
    pub(crate) fn write_part(&mut self, bytes: &[u8]) -> Result<(), CliError> {
        self.out.write_all(bytes).map_err(CliError::Stdout)
    }

    pub(super) fn flush(&mut self) -> Result<(), CliError> {
        self.out.flush().map_err(CliError::Stdout)
    }
}
