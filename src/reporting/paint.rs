//! The few ANSI styles offlux's own words are written in on a terminal (verdicts, headings), never
//! applied to repository-supplied text before `escape::terminal_line` has made it inert.

pub const RED: &str = "\x1b[31m";
pub const GREEN: &str = "\x1b[32m";
pub const YELLOW: &str = "\x1b[33m";
pub const CYAN: &str = "\x1b[36m";
pub const DIM: &str = "\x1b[2m";
pub const BOLD: &str = "\x1b[1m";
pub const RESET: &str = "\x1b[0m";
