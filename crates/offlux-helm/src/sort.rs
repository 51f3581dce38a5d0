//! Helm's `releaseutil`: splitting rendered files into manifests, telling hooks apart, and
//! sorting by install order (known kinds by `InstallOrder`, unknown kinds after them by name,
//! the original order kept within a kind).

use std::collections::BTreeMap;

/// Helm's `releaseutil.InstallOrder`.
pub const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

const HOOK_ANNOTATION: &str = "helm.sh/hook";

const HOOK_EVENTS: &[&str] = &[
    "pre-install",
    "post-install",
    "pre-delete",
    "post-delete",
    "pre-upgrade",
    "post-upgrade",
    "pre-rollback",
    "post-rollback",
    "test",
    "test-success",
];

/// Helm's `releaseutil.SplitManifests` (v4): the stream left-trimmed, split on `---` separator
/// lines, empty pieces dropped, each piece left-trimmed.
pub fn split_manifests(text: &str) -> Vec<&str> {
    let text = text.trim_start();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let bytes = text.as_bytes();
    // The separator is `(?:^|\s*\n)---\s*`: `---` at the very start or right after a newline
    // (whitespace before that newline is part of the separator), then any whitespace.
    while i < bytes.len() {
        // The newline must be one the previous separator did not consume: `---\n---\nx` is one
        // separator and the piece `---\nx`, as with Go's non-overlapping regexp matches.
        let at_line_start = i == 0 || (i > start && bytes[i - 1] == b'\n');
        if at_line_start && text[i..].starts_with("---") {
            let mut piece_end = i;
            if i > 0 {
                // Back over the newline and the whitespace before it.
                piece_end = i - 1;
                while piece_end > start && bytes[piece_end - 1].is_ascii_whitespace() {
                    piece_end -= 1;
                }
            }
            let piece = &text[start..piece_end.max(start)];
            if !piece.is_empty() {
                out.push(piece.trim_start());
            }
            let mut j = i + 3;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            start = j;
            i = j;
            continue;
        }
        i += 1;
    }
    let last = &text[start.min(text.len())..];
    if !last.is_empty() {
        out.push(last.trim_start());
    }
    out
}

/// One manifest of the rendered chart: its template path and text, with what sorting needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// The template it came from (`chart/templates/deployment.yaml`), as `# Source:` shows it.
    pub source: String,
    pub content: String,
    pub kind: String,
    /// The hook events (`pre-install`, ...) when this manifest is a hook.
    pub hook_events: Vec<String>,
}

impl Manifest {
    pub fn is_hook(&self) -> bool {
        !self.hook_events.is_empty()
    }

    pub(crate) fn is_test_hook(&self) -> bool {
        self.hook_events
            .iter()
            .any(|e| e == "test" || e == "test-success")
    }
}

/// The head Helm reads of each manifest (`SimpleHead`): kind and annotations.
struct Head {
    kind: String,
    hook: Option<String>,
}

fn read_head(document: &str) -> Result<Head, String> {
    let documents = offlux_yaml::parse_stream(document, &offlux_yaml::ParseOptions::default())
        .map_err(|e| e.to_string())?;
    let value = documents
        .first()
        .map(|d| offlux_yaml::to_json_helm(&d.root))
        .unwrap_or(serde_json::Value::Null);
    let text = |v: Option<&serde_json::Value>| match v {
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(serde_json::Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    Ok(Head {
        kind: text(value.get("kind")).unwrap_or_default(),
        hook: text(
            value
                .get("metadata")
                .and_then(|m| m.get("annotations"))
                .and_then(|a| a.get(HOOK_ANNOTATION)),
        ),
    })
}

/// Helm's `SortManifests`: partials and blank files skipped, each file split into manifests,
/// hooks with unknown events dropped, then both lists sorted by install order. Returns
/// `(manifests, hooks)`.
pub(crate) fn sort_manifests(
    files: &BTreeMap<String, String>,
) -> Result<(Vec<Manifest>, Vec<Manifest>), super::Error> {
    let mut generic = Vec::new();
    let mut hooks = Vec::new();
    for (path, content) in files {
        let base = path.rsplit('/').next().unwrap_or(path);
        if base.starts_with('_') || content.trim().is_empty() {
            continue;
        }
        for document in split_manifests(content) {
            let head = read_head(document).map_err(|message| super::Error::Manifest {
                template: path.clone(),
                message,
            })?;
            let mut manifest = Manifest {
                source: path.clone(),
                content: document.to_string(),
                kind: head.kind,
                hook_events: Vec::new(),
            };
            let Some(hook) = head.hook else {
                generic.push(manifest);
                continue;
            };
            let events: Vec<String> = hook
                .split(',')
                .map(|e| e.trim().to_ascii_lowercase())
                .collect();
            if events.iter().any(|e| !HOOK_EVENTS.contains(&e.as_str())) {
                continue;
            }
            manifest.hook_events = events;
            hooks.push(manifest);
        }
    }
    sort_by_kind(&mut generic);
    sort_by_kind(&mut hooks);
    Ok((generic, hooks))
}

/// Install order: known kinds by their rank, unknown kinds after them alphabetically; stable.
fn sort_by_kind(manifests: &mut [Manifest]) {
    let rank = |kind: &str| INSTALL_ORDER.iter().position(|k| *k == kind);
    manifests.sort_by(|a, b| match (rank(&a.kind), rank(&b.kind)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.kind.cmp(&b.kind),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_follows_helms_separator() {
        assert_eq!(split_manifests("a: 1\n---\nb: 2\n"), vec!["a: 1", "b: 2\n"]);
        // Matches never overlap: a separator's trailing whitespace takes the newline the next
        // `---` would need, so that `---` stays in the piece (as Helm prints it).
        assert_eq!(
            split_manifests("---\na: 1\n---   \n\n---\nb: 2"),
            vec!["a: 1", "---\nb: 2"]
        );
        assert_eq!(split_manifests("---\n---\nkind: A"), vec!["---\nkind: A"]);
        assert_eq!(split_manifests("  \n---\n# c\na: 1"), vec!["# c\na: 1"]);
        // `---` inside a line is no separator.
        assert_eq!(split_manifests("a: x---y\n"), vec!["a: x---y\n"]);
        assert!(split_manifests("   \n").is_empty());
    }

    #[test]
    fn sorts_by_install_order_and_keeps_unknown_kinds_last() {
        let mut files = BTreeMap::new();
        files.insert(
            "c/templates/a.yaml".to_string(),
            "kind: Deployment\n---\nkind: Zeta\n---\nkind: Alpha\n---\nkind: Service\n".to_string(),
        );
        files.insert("c/templates/_h.tpl".to_string(), "kind: Secret".to_string());
        files.insert(
            "c/templates/b.yaml".to_string(),
            "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: pre-install, post-upgrade\n---\nkind: Pod\nmetadata:\n  annotations:\n    helm.sh/hook: bogus\n".to_string(),
        );
        let (generic, hooks) = sort_manifests(&files).unwrap();
        let kinds: Vec<&str> = generic.iter().map(|m| m.kind.as_str()).collect();
        assert_eq!(kinds, ["Service", "Deployment", "Alpha", "Zeta"]);
        assert_eq!(hooks.len(), 1);
        assert_eq!(hooks[0].hook_events, ["pre-install", "post-upgrade"]);
    }
}
