//! Function libraries callable from templates: Sprig's text functions and Helm's additions.
//! Functions here are plain: they receive evaluated arguments and a deterministic environment.
//! Functions that need the executor (`include`, `tpl`, `required`, `template`) live with it.
//!
//! The facade: [`sprig_functions`], [`helm_functions`], [`sprig_methods`] (methods on values
//! Sprig returns, for `Set::with_methods`) and [`mutates_first_arg`]. Behaviour follows Sprig v3.3
//! and Helm v4 as checked against their tests and the Helm v4 oracle; random values come from
//! `FuncEnv::rng_state`, so they are reproducible but differ from Go's.
//!
//! Keys, certificates and password hashes (`genPrivateKey`, `genCA`, `genSelfSignedCert`,
//! `genSignedCert` and their `WithKey` forms, `buildCustomCert`, `bcrypt`, `htpasswd`,
//! `derivePassword`) are generated from the same seeded source, in Sprig's formats; DSA keys are
//! refused. Not supported: Sprig's `getHostByName` (no DNS; Helm's returns "").
//!
//! Go's maps are references, so `set`, `unset`, `merge`, `mergeOverwrite` and their `must` forms
//! change their first argument in Go. Here values are owned: those functions return the changed
//! map, and [`mutates_first_arg`] names them so the executor can store the result back where the
//! first argument came from.
//!
//! Time values are represented as `Value::Int` seconds since the Unix epoch (UTC), since `Value`
//! has no time variant; `now` returns `FuncEnv::now_unix`. So `typeOf now` says `int`, and every
//! zone of `dateInZone`/`htmlDateInZone` is treated as UTC (no zone database is read). Strings are
//! UTF-8, so `b64dec` of bytes that are not UTF-8 gives replacement characters where Go keeps raw
//! bytes.

mod args;
mod cipher;
mod crypto;
mod dates;
mod defaults;
mod dicts;
mod encoding;
mod helm;
mod lists;
mod math;
mod paths;
mod random;
mod regexes;
mod semver;
mod strings;
mod toml;

/// Masterminds semver (versions, constraints), shared with chart dependency and kubeVersion checks.
pub mod semver_api {
    pub use super::semver::{compare, parse_version, satisfies, Version};
}

use super::gofmt;
use super::value::Value;

/// What a function may draw on besides its arguments: a seeded random source and a fixed clock, so
/// that the same chart and values always render the same bytes.
#[derive(Clone, Debug)]
pub struct FuncEnv {
    /// State of the deterministic random generator, seeded by the caller (Helm: release name + namespace).
    pub rng_state: u64,
    /// The fixed "now", in seconds since the Unix epoch (UTC).
    pub now_unix: i64,
    /// How many times Helm's `lookup` was called. Without a cluster it answers an empty map, so a
    /// caller can tell a failure that may be the want of the objects it asked for.
    pub lookups: u32,
    /// The run whose budgets functions charge (`fromYaml`'s alias expansion to
    /// `Resource::AliasNodes`); an execution sets it from `ExecOptions::run` when unset.
    pub run: Option<std::sync::Arc<offlux_budget::RunBudget>>,
}

/// An error from a function call; the executor wraps it as Go does: `error calling NAME: MESSAGE`.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncError(pub String);

pub type Function = fn(&mut FuncEnv, &[Value]) -> Result<Value, FuncError>;

/// Sprig's `TxtFuncMap`, except `env` and `expandenv` (a render must not read the environment).
pub fn sprig_functions() -> Vec<(&'static str, Function)> {
    let mut all = Vec::new();
    all.extend_from_slice(strings::FUNCTIONS);
    all.extend_from_slice(math::FUNCTIONS);
    all.extend_from_slice(lists::FUNCTIONS);
    all.extend_from_slice(dicts::FUNCTIONS);
    all.extend_from_slice(defaults::FUNCTIONS);
    all.extend_from_slice(regexes::FUNCTIONS);
    all.extend_from_slice(semver::FUNCTIONS);
    all.extend_from_slice(dates::FUNCTIONS);
    all.extend_from_slice(encoding::FUNCTIONS);
    all.extend_from_slice(crypto::FUNCTIONS);
    all.extend_from_slice(cipher::FUNCTIONS);
    all.extend_from_slice(random::FUNCTIONS);
    all.extend_from_slice(paths::FUNCTIONS);
    all
}

/// Helm's function map: Sprig's (without `env`/`expandenv`) overlaid with Helm's own functions.
/// `include`, `tpl` and `required` need the executor (or, for `required` in lint mode, the
/// engine) and come from `Set::with_helm_builtins`.
pub fn helm_functions() -> Vec<(&'static str, Function)> {
    let mut all = sprig_functions();
    for (name, f) in helm::FUNCTIONS {
        match all.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = *f,
            None => all.push((name, *f)),
        }
    }
    all
}

/// Methods on values Sprig's functions return, for `Set::with_methods`: the `*semver.Version`
/// methods (`(semver "1.2.3").Compare $other`) on what `semver` returns. `None` when `recv` is not
/// such a value or has no such method; a caller with methods of its own tries them first.
pub fn sprig_methods(
    _env: &mut FuncEnv,
    recv: &Value,
    name: &str,
    args: &[Value],
) -> Option<Result<Value, FuncError>> {
    semver::version_method(recv, name, args)
}

/// Whether Go's version of the function changes the map passed as its first argument.
pub(crate) fn mutates_first_arg(name: &str) -> bool {
    matches!(
        name,
        "set" | "unset" | "merge" | "mustMerge" | "mergeOverwrite" | "mustMergeOverwrite"
    )
}

#[cfg(test)]
mod tests;
