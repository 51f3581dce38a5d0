//! Go's glob dialects, one matcher each, for the tools offlux reproduces:
//!
//! - [`path`]: Go's `path.Match` / `filepath.Match` (`.helmignore`, `.sourceignore`, copy
//!   patterns), and `fs.Glob`'s `hasMeta`;
//! - [`doublestar`]: bmatcuk/doublestar (`**` spans segments, `{a,b}`), which source-watcher's
//!   exclude patterns and `Extract` use;
//! - [`gobwas`]: gobwas/glob with `/` as the separator, Helm's `.Files.Glob`;
//! - [`envsubst`]: the shell patterns of Flux's envsubst (`${var#pattern}`), `path.Match`'s syntax
//!   with a `*` that crosses `/`.
//!
//! Each bounds its work: no pattern backtracks exponentially.

pub mod doublestar;
pub mod envsubst;
pub mod gobwas;
pub mod path;
