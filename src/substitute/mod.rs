//! Flux post-build variable substitution, with the semantics of fluxcd/pkg `envsubst` (a fork of
//! drone/envsubst) and of fluxcd/pkg `kustomize.SubstituteVariables`.
//!
//! Supported: `${var}`; `${#var}`; `${var:pos}`, `${var:pos:len}` (bytes, negative values count
//! from the end); case `${var^}`, `${var^^}`, `${var,}`, `${var,,}`; removal `#`, `##`, `%`, `%%`
//! with shell patterns; replacement `/`, `//`, `/#`, `/%`; defaults `${var=w}`, `${var:=w}`,
//! `${var:-w}`, `${var:+w}`, `${var:?w}` (all of which yield the value when non-empty, else the
//! word, as upstream does); nesting in arguments; the `$$` escape; strict mode.
//! Not supported, as upstream: bare `$var` (left as text), `${var-w}` and `${var+w}` (errors).
//! Known difference: a byte offset (`${v:1}` on `é`) that splits a character yields U+FFFD where Go
//! would emit the raw bytes; Unicode tables may differ in version from Go's.
//!
//! Not for: reading Kustomizations, ConfigMaps or Secrets; the controller gathers the variables.

mod document;
mod error;
mod eval;
mod parse;

pub use document::{
    envsubst, is_substitution_disabled, is_valid_var_name, substitute_document, Options,
    DISABLED_VALUE, DISABLE_KEY, REDACTED,
};
pub use error::{Error, ErrorKind};
