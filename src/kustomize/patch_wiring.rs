//! Wiring of the patch-like fields (`patchesStrategicMerge`, `patches`, `patchesJson6902`,
//! `replacements` and their plugin configs): reading the patch files, selecting targets, and
//! handing each target to the merge functions of the `patch` module.
//!
//! Not for: the merge algorithms themselves (those live in `patch`).

use std::path::Path;

use super::load::Ctx;
use super::resource::Res;
use super::Error;
use crate::yaml::Node;

type Fail<'a> = &'a dyn Fn(Option<String>, String) -> Error;

fn present(k: &Node, key: &str) -> bool {
    match k.get(key) {
        Some(Node::Sequence(s)) => !s.items.is_empty(),
        Some(n) => !n.is_null(),
        None => false,
    }
}

fn unsupported(fail: Fail, key: &str) -> Error {
    fail(
        Some(key.to_string()),
        format!("`{key}` needs the patch engine, which this build does not have yet"),
    )
}

pub fn strategic_merge_field(
    _ctx: &mut Ctx,
    _dir: &Path,
    k: &Node,
    _resources: &mut Vec<Res>,
    fail: Fail,
) -> Result<(), Error> {
    if present(k, "patchesStrategicMerge") {
        return Err(unsupported(fail, "patchesStrategicMerge"));
    }
    Ok(())
}

pub fn patches_field(
    _ctx: &mut Ctx,
    _dir: &Path,
    k: &Node,
    _resources: &mut Vec<Res>,
    fail: Fail,
) -> Result<(), Error> {
    if present(k, "patches") {
        return Err(unsupported(fail, "patches"));
    }
    Ok(())
}

pub fn json6902_field(
    _ctx: &mut Ctx,
    _dir: &Path,
    k: &Node,
    _resources: &mut Vec<Res>,
    fail: Fail,
) -> Result<(), Error> {
    if present(k, "patchesJson6902") {
        return Err(unsupported(fail, "patchesJson6902"));
    }
    Ok(())
}

pub fn replacements_field(
    _ctx: &mut Ctx,
    _dir: &Path,
    k: &Node,
    _resources: &mut Vec<Res>,
    fail: Fail,
) -> Result<(), Error> {
    if present(k, "replacements") {
        return Err(unsupported(fail, "replacements"));
    }
    Ok(())
}

pub fn plugin(
    _ctx: &mut Ctx,
    _dir: &Path,
    cfg: &Node,
    _resources: &mut Vec<Res>,
    fail: Fail,
) -> Result<(), Error> {
    let kind = cfg.get("kind").and_then(Node::as_str).unwrap_or("");
    Err(unsupported(fail, kind))
}
