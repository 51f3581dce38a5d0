//! What differs between operating systems, one small module per concern, each with a portable
//! fallback: the rest of the code calls these and holds no `cfg(target_os)`, no `libc` and no
//! system path of its own (`tests/it/architecture.rs` checks it). Not for: path spelling, where Unix
//! allows a faster comparison on bytes (`fs_facts::is_within`, `discovery::PathKey`,
//! `kustomize`'s path normalisation keep a `cfg(unix)` fast path beside the portable one).
//!
//! - `memory`: keeping the allocator off transparent huge pages (Linux).
//! - `nofollow`: steps inside a directory (open, make, remove, rename, read) that never follow a
//!   symbolic link (`openat` and its kin on Unix; checked paths elsewhere).
//! - `open`: opening a file for reading without following a final symlink and without blocking
//!   on a FIFO or device (Unix); elsewhere the caller checks the file's kind first.
//! - `signals`: SIGINT and SIGTERM, each told with its number (Unix); elsewhere the console's
//!   Ctrl-C, through `ctrlc`.

#![deny(unreachable_pub)]

pub mod memory;
pub mod nofollow;
pub mod open;
pub mod signals;
