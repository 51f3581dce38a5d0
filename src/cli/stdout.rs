//! Writing rendered data to stdout. A reader that goes away (`offlux render | head -1`) ends the
//! process quietly with success, as ripgrep does: the output was wanted only in part, and Rust's
//! `print!` would panic. Any other write error ends it with a message and the failure code.

use std::io::Write;

/// Writes `text` to stdout, or ends the process if stdout cannot be written.
pub fn write(text: &str) {
    write_bytes(text.as_bytes());
}

/// Writes `bytes` to stdout, or ends the process if stdout cannot be written.
pub fn write_bytes(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    if let Err(error) = out.write_all(bytes).and_then(|()| out.flush()) {
        end(&error);
    }
}

fn end(error: &std::io::Error) -> ! {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(i32::from(super::exit::SUCCESS));
    }
    eprintln!("error: writing to stdout: {error}");
    std::process::exit(i32::from(super::exit::FAILURES));
}
