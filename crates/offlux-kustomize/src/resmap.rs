//! The resource map: the accumulated resources of a kustomization in input order, with
//! kustomize's rules for adding one (`append`: ids are unique), for absorbing a generated one
//! (`absorb`: by its behaviour) and its legacy output order.
//!
//! Not for: changing resources (transformers do).

use super::resource::{Behavior, Gvk, Res};

/// Adds a resource, refusing a second one with the same id.
pub(super) fn append(resources: &mut Vec<Res>, res: Res) -> Result<(), String> {
    let name = res.name();
    let existing = resources
        .iter()
        .find(|r| r.name() == name && r.same_id(&res));
    refuse_duplicate(existing, &res)?;
    resources.push(res);
    Ok(())
}

fn refuse_duplicate(existing: Option<&Res>, res: &Res) -> Result<(), String> {
    match existing {
        Some(existing) if existing.behavior.is_none() || res.behavior.is_none() => Err(format!(
            "may not add resource with an already registered id: {}",
            res.id_string()
        )),
        _ => Ok(()),
    }
}

/// `append` for many resources into one list: the list's resources by name, so that each new one
/// is checked against those of its name only, not against every resource (reading each one's
/// name again).
pub(crate) struct Appender {
    by_name: foldhash::HashMap<String, Vec<usize>>,
}

impl Appender {
    pub(super) fn new(resources: &[Res]) -> Self {
        let mut by_name: foldhash::HashMap<String, Vec<usize>> = foldhash::HashMap::default();
        for (i, r) in resources.iter().enumerate() {
            by_name.entry(r.name().to_owned()).or_default().push(i);
        }
        Appender { by_name }
    }

    /// `append(resources, res)`, for the `resources` this was made for and added to since.
    pub(super) fn append(&mut self, resources: &mut Vec<Res>, res: Res) -> Result<(), String> {
        let same_name = self.by_name.entry(res.name().to_owned()).or_default();
        let existing = same_name
            .iter()
            .map(|&i| &resources[i])
            .find(|r| r.same_id(&res));
        refuse_duplicate(existing, &res)?;
        same_name.push(resources.len());
        resources.push(res);
        Ok(())
    }
}

/// Adds a generated resource according to its behaviour.
pub(crate) fn absorb(
    resources: &mut Vec<Res>,
    res: Res,
    merge: &dyn Fn(&mut Res, &Res),
) -> Result<(), String> {
    let behavior = res.behavior.unwrap_or(Behavior::Create);
    let name = res.name().to_string();
    let gvk = res.gvk();
    let ns = res.effective_namespace().to_string();
    let found: Vec<usize> = resources
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            r.gvk().kind == gvk.kind
                && (r.name() == name || r.original_name() == name)
                && (r.effective_namespace() == ns || r.original_namespace() == res.namespace())
        })
        .map(|(i, _)| i)
        .collect();
    match (behavior, found.as_slice()) {
        (Behavior::Create, []) => {
            resources.push(res);
            Ok(())
        }
        (Behavior::Create, _) => Err(format!(
            "may not add resource with an already registered id: {}; behavior must be merge or replace",
            res.id_string()
        )),
        (_, [i]) => {
            if let Some(existing) = resources.get_mut(*i) {
                merge(existing, &res);
            }
            Ok(())
        }
        (_, []) => Err(format!(
            "id {} does not exist; cannot merge or replace",
            res.id_string()
        )),
        (_, _) => Err(format!(
            "found multiple objects {} that could accept merge of {}",
            found.len(),
            res.id_string()
        )),
    }
}

fn kind_rank(kind: &str) -> i32 {
    const FIRST: [&str; 22] = [
        "Namespace",
        "ResourceQuota",
        "StorageClass",
        "CustomResourceDefinition",
        "ServiceAccount",
        "PodSecurityPolicy",
        "Role",
        "ClusterRole",
        "RoleBinding",
        "ClusterRoleBinding",
        "ConfigMap",
        "Secret",
        "Endpoints",
        "Service",
        "LimitRange",
        "PriorityClass",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "Deployment",
        "StatefulSet",
        "CronJob",
        "PodDisruptionBudget",
    ];
    const LAST: [&str; 2] = [
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ];
    if let Some(i) = FIRST.iter().position(|k| *k == kind) {
        return i as i32 - 100;
    }
    if let Some(i) = LAST.iter().position(|k| *k == kind) {
        return 100 + i as i32;
    }
    0
}

fn or_tilde(ns: &str) -> &str {
    if ns.is_empty() {
        "~X"
    } else {
        ns
    }
}

/// kustomize's legacy order: kind rank, then the group/version/kind string, then namespace and
/// name.
pub(crate) fn legacy_sort(resources: &mut [Res], order: Option<&(Vec<String>, Vec<String>)>) {
    // kustomize ranks the kinds of `orderFirst` below zero and those of `orderLast` above it
    let rank = |kind: &str| match order {
        None => kind_rank(kind),
        Some((first, last)) => {
            if let Some(i) = first.iter().position(|k| k == kind) {
                i as i32 - first.len() as i32
            } else if let Some(i) = last.iter().position(|k| k == kind) {
                1 + i as i32
            } else {
                0
            }
        }
    };
    let gvk_key = |g: &Gvk| {
        let group = if g.group.is_empty() { "~G" } else { &g.group };
        let version = if g.version.is_empty() {
            "~V"
        } else {
            &g.version
        };
        format!("{group}_{version}_{}", g.kind)
    };
    resources.sort_by(|a, b| {
        let (ga, gb) = (a.gvk(), b.gvk());
        rank(&ga.kind)
            .cmp(&rank(&gb.kind))
            .then_with(|| gvk_key(&ga).cmp(&gvk_key(&gb)))
            // an unset namespace spells `~X` in kustomize's id string, after any real namespace
            .then_with(|| or_tilde(a.namespace()).cmp(or_tilde(b.namespace())))
            .then_with(|| a.name().cmp(b.name()))
    });
}
