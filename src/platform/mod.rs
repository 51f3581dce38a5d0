//! What differs between operating systems, one small module per concern, each with a portable
//! fallback: the rest of the code calls these and holds no `cfg(target_os)`, no `libc` and no
//! system path of its own (`tests/architecture.rs` checks it). Not for: path spelling, where Unix
//! allows a faster comparison on bytes (`fs_facts::is_within`, `discovery::PathKey`,
//! `kustomize`'s path normalisation keep a `cfg(unix)` fast path beside the portable one).
//!
//! - `memory`: keeping the allocator off transparent huge pages (Linux).
//! - `open`: opening a file for reading without following a final symlink and without blocking
//!   on a FIFO or device (Unix); elsewhere the caller checks the file's kind first.
//! - `scratch`: a memory-backed directory for short-lived files (Linux's `/dev/shm`).
//! - `symlink`: creating a symbolic link (Unix); elsewhere none is made.

pub mod memory;
pub mod open;
pub mod scratch;
pub mod symlink;
