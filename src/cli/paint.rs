//! The few ANSI styles offlux's own words are written in on a terminal (verdicts, headings), never
//! applied to repository-supplied text before `escape::terminal_line` has made it inert.

pub(super) const RED: &str = "\x1b[31m";
pub(super) const GREEN: &str = "\x1b[32m";
pub(super) const YELLOW: &str = "\x1b[33m";
pub(super) const CYAN: &str = "\x1b[36m";
pub(super) const DIM: &str = "\x1b[2m";
pub(super) const BOLD: &str = "\x1b[1m";
pub(super) const RESET: &str = "\x1b[0m";
