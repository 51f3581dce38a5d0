//! A Kustomization's health checks (`spec.wait`, `spec.healthChecks`), as kustomize-controller's
//! `KustomizationReconciler.checkHealth` runs them after the apply: with `wait` every object
//! applied is checked, else the objects `healthChecks` names; the Kustomization itself is left
//! out ("guard against deadlock"); the Kustomization is Ready only once all are, and a check that
//! fails marks it Ready=False (`HealthCheckFailedReason`) with what it applied left applied.
//! Its dependants see it not ready meanwhile (`checkDependencies`), so they wait for the checks.
//!
//! Offline, the health of the Flux objects the run reconciles is known: their own outcome. The
//! health of everything else (Deployments, Jobs, custom resources) is what only the cluster
//! holds, and is taken as healthy; an object skipped offline or suspended is taken as healthy with
//! a note on the row, and so is one that fails on what offline cannot have (a source, a chart, a
//! remote base), itself or down its chain, whose own row says why. An object that fails on its
//! own, or is blocked by one that does, fails the checks.

use std::sync::Arc;

use offlux_sync::MutexExt as _;

use super::{is_reconcilable, label_of, Runtime};
use crate::model::{FluxKind, FluxObject, Kustomization, Object, ResourceId};
use crate::schedule::{DrainLevel, Outcome};
use crate::selection::scope::ScopeKind;
use crate::store::{Ready, Status, StatusRecord};
use crate::validate::builtin_is_namespaced;
use crate::yaml::Node;

/// How every note of a health check begins.
const HEALTH_NOTE: &str = "health check of ";

/// A Kustomization that applied its objects and waits for their health: the object it started
/// from (a changed object is built again) and the ids it checks.
pub(super) struct HealthWait {
    started: Arc<Node>,
    checked: Vec<ResourceId>,
}

/// The ids of the objects `spec` health-checks among those it applied (`applied`): those of the
/// kinds this run reconciles, and those kustomize-controller can never find.
pub(super) fn checked_ids(
    flux: &FluxObject,
    spec: &Kustomization,
    applied: &[Object],
) -> Vec<ResourceId> {
    let own = &flux.object.id;
    let is_self = |id: &ResourceId| {
        id.kind == FluxKind::Kustomization.as_str()
            && id.name == own.name
            && id.namespace == own.namespace
    };
    let mut ids: Vec<ResourceId> = if spec.wait {
        (applied.iter())
            .map(|object| object.id.clone())
            .filter(is_reconcilable)
            .collect()
    } else {
        (spec.health_checks.iter())
            .map(reference_id)
            .filter(|id| is_reconcilable(id) || never_found(id).is_some())
            .collect()
    };
    ids.retain(|id| !is_self(id));
    ids.sort();
    ids.dedup();
    ids
}

/// What kustomize-controller's `inventory.ReferenceToObjMetadataSet` makes of a `healthChecks`
/// entry: `apps/v1` when no `apiVersion` is written, and the namespace as written (none is
/// defaulted).
fn reference_id(reference: &crate::model::CrossRef) -> ResourceId {
    let api_version = match reference.api_version.as_deref() {
        None | Some("") => "apps/v1",
        Some(written) => written,
    };
    ResourceId {
        group: crate::model::split_api_version(api_version).0.into(),
        version: Default::default(),
        kind: reference.kind.as_str().into(),
        namespace: reference.namespace.as_str().into(),
        name: reference.name.as_str().into(),
    }
}

/// Why kustomize-controller never finds the object `id` names, whatever is applied: an
/// apiVersion `ParseGroupVersion` refuses (more than one `/`), a kind the core group, `apps` (the
/// group taken when no `apiVersion` is written) or a Flux group does not serve, or a namespaced
/// kind named without a namespace (looked up with none, it is not found).
fn never_found(id: &ResourceId) -> Option<String> {
    if id.group.contains('/') {
        return Some(format!(
            "`{}/…` is no apiVersion (kustomize-controller's `ParseGroupVersion` refuses it)",
            id.group
        ));
    }
    let flux_group = FluxKind::ALL.iter().any(|kind| kind.group() == id.group);
    let served = match id.group.as_str() {
        "" | "apps" => builtin_is_namespaced(&id.group, &id.kind).is_some(),
        _ if flux_group => FluxKind::from_group_kind(&id.group, &id.kind).is_some(),
        _ => true,
    };
    if !served {
        let group = if id.group.is_empty() {
            "the core group (`v1`)".to_owned()
        } else {
            format!("`{}`", id.group)
        };
        return Some(format!(
            "there is no kind `{}` in {group}{}",
            id.kind,
            if id.group == "apps" {
                ", the group kustomize-controller takes when no apiVersion is written"
            } else {
                ""
            }
        ));
    }
    let namespaced = FluxKind::from_group_kind(&id.group, &id.kind).is_some()
        || builtin_is_namespaced(&id.group, &id.kind) == Some(true);
    (namespaced && id.namespace.is_empty()).then(|| {
        format!(
            "no namespace is written, and kustomize-controller does not default one: a namespaced `{}` looked up without one is not found",
            id.kind
        )
    })
}

/// The note of health checks a scoped run did not make: of `ids`, in a run of `kind`.
fn not_made_note(ids: &[ResourceId], kind: ScopeKind) -> String {
    const NAMED: usize = 3;
    let mut names: Vec<String> = ids.iter().take(NAMED).map(label_of).collect();
    if ids.len() > NAMED {
        names.push(format!("{} more", ids.len() - NAMED));
    }
    let (count, them) = match ids.len() {
        1 => ("1 checked object".to_owned(), "it"),
        n => (format!("{n} checked objects"), "them"),
    };
    let why = match kind {
        ScopeKind::Change => {
            format!("the change does not reach {them} (--changed-only; a full run judges {them})")
        }
        ScopeKind::Named => format!("this scoped run does not reconcile {them}"),
    };
    format!("{HEALTH_NOTE}{count} not made: {why}: {}", names.join(", "))
}

impl Runtime<'_> {
    /// Whether `flux` already applied its objects from this very object and waits for their
    /// health: then only the checks run again.
    pub(super) fn waiting_for_health(&self, flux: &FluxObject) -> Option<Vec<ResourceId>> {
        let waits = self.health.locked();
        let wait = waits.get(&flux.object.id)?;
        Arc::ptr_eq(&wait.started, &flux.object.node).then(|| wait.checked.clone())
    }

    /// Records that `flux` applied its objects and checks `checked`, then checks them.
    pub(super) fn start_health_checks(
        &self,
        flux: &FluxObject,
        checked: Vec<ResourceId>,
        drain: DrainLevel,
    ) -> Outcome<ResourceId> {
        {
            let mut waits = self.health.locked();
            waits.insert(
                flux.object.id.clone(),
                HealthWait {
                    started: Arc::clone(&flux.object.node),
                    checked: checked.clone(),
                },
            );
        }
        self.check_health(&flux.object.id, &checked, drain)
    }

    /// Forgets `id`'s health checks: it is built again.
    pub(super) fn stop_health_checks(&self, id: &ResourceId) {
        self.health.locked().remove(id);
        self.health_not_made.locked().remove(id);
    }

    /// Whether `id` is a Kustomization that waits for its objects' health (what it applied
    /// stays applied whatever the checks find).
    pub(super) fn in_health_checks(&self, id: &ResourceId) -> bool {
        self.health.locked().contains_key(id)
    }

    /// Why `child`, which failed, may be ready in the cluster after all: it failed on what
    /// offline cannot have, or is blocked only by objects that did (or that passed, were
    /// skipped or never came). `None` when a real failure (its own, or a root cause's) decides.
    fn offline_cause(&self, child: &ResourceId, blocked_by: &[ResourceId]) -> Option<String> {
        let offline = self.offline_unknown.locked();
        if offline.contains(child) {
            return Some("it depends on what offline cannot have".to_owned());
        }
        if blocked_by.is_empty() {
            return None;
        }
        let roots = self.root_causes(blocked_by);
        let failed_for_real = |root: &ResourceId| {
            !offline.contains(root)
                && self
                    .store
                    .status(root)
                    .is_some_and(|record| matches!(record.status, Status::Failed(_)))
        };
        if roots.iter().any(failed_for_real) {
            return None;
        }
        let cause = roots.first().or(blocked_by.first())?;
        Some(format!("it is blocked by {}", label_of(cause)))
    }

    /// The outcome of `id`'s health checks of `checked`: waits while one of them has not
    /// ended; then Ready, or failed naming the first that is not ready.
    pub(super) fn check_health(
        &self,
        id: &ResourceId,
        checked: &[ResourceId],
        drain: DrainLevel,
    ) -> Outcome<ResourceId> {
        let file_of = |id: &ResourceId| self.store.get(id).map(|object| object.file.clone());
        // A Kustomization whose outcome nothing reads (needed only to create what the command
        // is about, or reported by `--changed-only`): what it checks that the run did not need
        // is not made.
        let unread = || {
            self.scope
                .as_ref()
                .is_some_and(|scope| !scope.outcome_is_needed(id, file_of(id)))
        };
        // Judged again: whether some are not made is decided anew.
        self.health_not_made.locked().remove(id);
        let mut waiting = Vec::new();
        // Ready, but with health checks of their own not made.
        let mut not_made = Vec::new();
        let mut unhealthy: Vec<(&ResourceId, String)> = Vec::new();
        let mut notes = Vec::new();
        for child in checked {
            let record = self.store.status(child);
            if let (None, Some(why)) = (&record, never_found(child)) {
                // Not the object's health: the entry names nothing kustomize-controller finds.
                let group = match child.group.as_str() {
                    "" => "the core group".to_owned(),
                    group => format!("group `{group}`"),
                };
                let text = format!(
                    "health check failed: the `healthChecks` entry {} `{}` (read as {group}, namespace `{}`) is never found: {why}",
                    child.kind, child.name, child.namespace
                );
                self.store.set(id.clone(), Status::failed(text));
                return Outcome::Decided(checked.to_vec());
            }
            match record.as_ref().map(|r| &r.status) {
                Some(Status::Ready(Ready::Reconciled))
                    if self.health_not_made.locked().contains(child) =>
                {
                    // Its outcome is read now: it makes its checks (woken when it is needed).
                    if unread() {
                        not_made.push(child.clone());
                    } else {
                        waiting.push(child.clone());
                    }
                }
                Some(Status::Ready(Ready::Reconciled)) => {}
                Some(Status::Ready(Ready::Skipped(reason))) => notes.push(format!(
                    "{HEALTH_NOTE}{} not known offline (skipped: {reason}); taken as healthy",
                    label_of(child)
                )),
                Some(Status::Ready(Ready::Suspended)) => notes.push(format!(
                    "{HEALTH_NOTE}{}: suspended, taken as healthy as the cluster last saw it",
                    label_of(child)
                )),
                Some(Status::Failed(message)) => {
                    let blocked_by = record.as_ref().map_or(&[][..], |r| &r.blocked_by[..]);
                    match self.offline_cause(child, blocked_by) {
                        // It fails on what offline cannot have (a source, a chart, a remote
                        // base), itself or down its chain: its own row says why; whether it
                        // would be ready in the cluster is not known here.
                        Some(cause) => notes.push(format!(
                            "{HEALTH_NOTE}{} not known offline: {cause}",
                            label_of(child)
                        )),
                        None => unhealthy.push((child, message.clone())),
                    }
                }
                // One this run never had (the bootstrap's own objects, one an unrendered chart
                // would make, one of another repository): the cluster may hold it.
                None if drain != DrainLevel::None => notes.push(format!(
                    "{HEALTH_NOTE}{}: not in this run, so not known offline; taken as healthy",
                    label_of(child)
                )),
                Some(Status::Pending) | None => waiting.push(child.clone()),
            }
        }
        if !waiting.is_empty() && unhealthy.is_empty() {
            if drain != DrainLevel::Force {
                return Outcome::Blocked(waiting);
            }
            if unread() {
                not_made.append(&mut waiting);
            }
        }
        if !waiting.is_empty() && unhealthy.is_empty() {
            let names: Vec<String> = waiting.iter().map(label_of).collect();
            let message = format!(
                "health check failed: timeout waiting for: {}",
                names.join(", ")
            );
            self.store.set_status(
                id.clone(),
                StatusRecord::new(Status::failed(message), waiting.clone()),
            );
            return Outcome::Decided(checked.to_vec());
        }
        if let Some((child, message)) = unhealthy.first() {
            let more = match unhealthy.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            let text = format!(
                "health check failed: {} is not ready{more}: {message}",
                label_of(child)
            );
            self.store.set(id.clone(), Status::failed(text));
            return Outcome::Decided(checked.to_vec());
        }
        // An earlier evaluation's notes go (a checked object's outcome may be overtaken).
        {
            let mut rows = self.notes.locked();
            if let Some(row) = rows.get_mut(id) {
                row.retain(|note| !note.starts_with(HEALTH_NOTE));
            }
        }
        if let (Some(scope), false) = (self.scope.as_ref(), not_made.is_empty()) {
            not_made.sort();
            notes.push(not_made_note(&not_made, scope.kind()));
            self.health_not_made.locked().insert(id.clone());
        }
        for note in notes {
            self.note_row(id, note);
        }
        self.store.set(id.clone(), Status::ready());
        Outcome::Decided(checked.to_vec())
    }
}
