//! Function libraries callable from templates: Sprig's text functions and Helm's additions.
//! Functions here are plain: they receive evaluated arguments and a deterministic environment.
//! Functions that need the executor (`include`, `tpl`, `template`) live with the executor.

use super::value::Value;

/// What a function may draw on besides its arguments: a seeded random source and a fixed clock, so
/// that the same chart and values always render the same bytes.
#[derive(Clone, Debug)]
pub struct FuncEnv {
    /// State of the deterministic random generator, seeded by the caller (Helm: release name + namespace).
    pub rng_state: u64,
    /// The fixed "now", in seconds since the Unix epoch (UTC).
    pub now_unix: i64,
}

/// An error from a function call; the executor wraps it as Go does: `error calling NAME: MESSAGE`.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncError(pub String);

pub type Function = fn(&mut FuncEnv, &[Value]) -> Result<Value, FuncError>;
