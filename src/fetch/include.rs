//! GitRepository `spec.include`, as source-controller's `reconcileInclude` applies it: after the
//! checkout, each included GitRepository's artifact (its `fromPath`, default the root) is copied
//! to `toPath` (default the included repository's name) in the includer's tree, so the
//! includer's ignore rules see the included files too. An included repository must be fetched in
//! the same batch; one that is not (or failed) makes the includer wait, as Flux's
//! `IncludeUnavailable` does: SKIPPED (or failed with it) here. Includes of includes are applied
//! first; a cycle is refused.

use std::collections::BTreeMap;

use super::{Attempt, Unpacked};
use crate::controllers::source::SourceFetch;
use crate::model::ResourceId;

type Key = (ResourceId, String);

/// `batch` with each GitRepository's includes copied into its files.
pub(super) fn apply(
    batch: Vec<(Key, Result<Unpacked, Attempt>)>,
) -> Vec<(Key, Result<Unpacked, Attempt>)> {
    let mut by_id: BTreeMap<ResourceId, (Key, Result<Unpacked, Attempt>)> = batch
        .into_iter()
        .map(|(key, result)| (key.0.clone(), (key, result)))
        .collect();
    let ids: Vec<ResourceId> = by_id.keys().cloned().collect();
    for id in &ids {
        let mut visiting = Vec::new();
        resolve(id, &mut by_id, &mut visiting);
    }
    by_id.into_values().collect()
}

/// Applies `id`'s includes (after their own), leaving a failure in its place when one cannot be.
fn resolve(
    id: &ResourceId,
    by_id: &mut BTreeMap<ResourceId, (Key, Result<Unpacked, Attempt>)>,
    visiting: &mut Vec<ResourceId>,
) {
    let includes = match by_id.get(id) {
        Some((_, Ok(unpacked))) if !unpacked.includes.is_empty() => unpacked.includes.clone(),
        _ => return,
    };
    if visiting.contains(id) {
        set_failure(
            by_id,
            id,
            SourceFetch::Failed(format!(
                "the includes form a cycle: {}",
                visiting
                    .iter()
                    .chain([id])
                    .map(|i| i.name.as_str())
                    .collect::<Vec<_>>()
                    .join(" -> ")
            )),
        );
        return;
    }
    visiting.push(id.clone());
    let mut added: Vec<(String, Vec<u8>)> = Vec::new();
    let mut added_dirs: Vec<String> = Vec::new();
    for include in &includes {
        // Any version of the included GitRepository: ids differ in their apiVersion only.
        let included = by_id
            .keys()
            .find(|i| i.kind == id.kind && i.namespace == id.namespace && i.name == include.name)
            .cloned()
            .unwrap_or_else(|| {
                ResourceId::new(
                    "source.toolkit.fluxcd.io/v1",
                    &id.kind,
                    &id.namespace,
                    &include.name,
                )
            });
        resolve(&included, by_id, visiting);
        let label = format!("GitRepository/{}/{}", id.namespace, include.name);
        let (files, dirs) = match by_id.get(&included) {
            Some((_, Ok(unpacked))) if unpacked.includes.is_empty() => {
                (unpacked.files.clone(), unpacked.dirs.clone())
            }
            Some((_, Err(Attempt::Record(SourceFetch::Failed(why))))) => {
                set_failure(
                    by_id,
                    id,
                    SourceFetch::Failed(format!("included {label} failed: {why}")),
                );
                visiting.pop();
                return;
            }
            _ => {
                set_failure(
                    by_id,
                    id,
                    SourceFetch::Skipped(format!(
                        "included {label} is not fetched here (defined nowhere in the repository, or not at hand)"
                    )),
                );
                visiting.pop();
                return;
            }
        };
        let from = if include.from.is_empty() {
            String::new()
        } else {
            format!("{}/", include.from)
        };
        let to = if include.to.is_empty() {
            String::new()
        } else {
            format!("{}/", include.to)
        };
        if !include.from.is_empty() && !dirs.contains(&include.from) {
            set_failure(
                by_id,
                id,
                SourceFetch::Failed(format!(
                    "include of {label}: `fromPath` {} does not exist in its artifact",
                    include.from
                )),
            );
            visiting.pop();
            return;
        }
        if !include.to.is_empty() {
            let mut parent = String::new();
            for part in include.to.split('/') {
                parent = if parent.is_empty() {
                    part.to_owned()
                } else {
                    format!("{parent}/{part}")
                };
                added_dirs.push(parent.clone());
            }
        }
        for (path, bytes) in files {
            if let Some(rest) = path.strip_prefix(&from) {
                added.push((format!("{to}{rest}"), bytes));
            }
        }
        for dir in dirs {
            if let Some(rest) = dir.strip_prefix(&from) {
                added_dirs.push(format!("{to}{rest}"));
            }
        }
    }
    visiting.pop();
    if let Some((_, Ok(unpacked))) = by_id.get_mut(id) {
        // The included files replace what the checkout had at those paths.
        let replaced: std::collections::BTreeSet<&String> = added.iter().map(|(p, _)| p).collect();
        unpacked.files.retain(|(p, _)| !replaced.contains(p));
        unpacked.files.extend(added);
        unpacked.dirs.extend(added_dirs);
        unpacked.dirs.sort();
        unpacked.dirs.dedup();
        unpacked.includes.clear();
        let names: Vec<&str> = includes.iter().map(|i| i.name.as_str()).collect();
        unpacked
            .summary
            .push_str(&format!(", including {}", names.join(", ")));
    }
}

fn set_failure(
    by_id: &mut BTreeMap<ResourceId, (Key, Result<Unpacked, Attempt>)>,
    id: &ResourceId,
    record: SourceFetch,
) {
    if let Some((_, result)) = by_id.get_mut(id) {
        *result = Err(Attempt::Record(record));
    }
}
