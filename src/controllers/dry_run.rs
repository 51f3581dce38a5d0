//! What the API server refuses when a controller applies objects server-side, judged offline.
//!
//! kustomize-controller and the Flux Operator apply a build through fluxcd/pkg's `ssa`
//! `ResourceManager.ApplyAll`: every object of a stage is dry-run applied before any is applied,
//! and the first refusal (`ssa/errors.DryRunErr`) fails the whole reconciliation, so nothing of
//! that stage reaches the cluster. The refusal offlux can know without a cluster is a Flux kind in
//! an `apiVersion` no Flux CRD ever served (`model::served_version`): the API server answers
//! `no matches for kind …`. Versions only older Flux releases serve are not refused here (the
//! cluster may run one; `validate` warns about them).

use crate::model::{no_kind_match, served_version, Object, Served};

/// The reconciliation error of applying `objects`, as `DryRunErr.Error()` spells it
/// (`Kind/namespace/name dry-run failed: <API server error>`; no reason for a `NoKindMatchError`,
/// which carries no API status), with where the object is written. The controller reports whichever
/// dry-run fails first (they run concurrently); offlux names the first refused object by kind,
/// namespace and name, so the row is the same every run, and counts the others.
pub(crate) fn refusal(objects: &[Object]) -> Option<String> {
    let mut refused: Vec<(&Object, &'static [&'static str])> = objects
        .iter()
        .filter_map(|object| {
            let id = &object.id;
            match served_version(&id.group, &id.kind, &id.version) {
                Some(Served::Unknown { served }) => Some((object, served)),
                _ => None,
            }
        })
        .collect();
    refused.sort_by(|(a, _), (b, _)| {
        (&a.id.kind, &a.id.namespace, &a.id.name).cmp(&(&b.id.kind, &b.id.namespace, &b.id.name))
    });
    let (first, served) = refused.first()?;
    let id = &first.id;
    let mut name = format!("{}/", id.kind);
    if !id.namespace.is_empty() {
        name.push_str(&id.namespace);
        name.push('/');
    }
    name.push_str(&id.name);
    let mut message = format!(
        "{name} dry-run failed: {}",
        no_kind_match(&id.kind, &id.group, &id.version)
    );
    let served: Vec<String> = served
        .iter()
        .map(|v| format!("`{}/{v}`", id.group))
        .collect();
    message.push_str(&format!(" (the CRD serves {}", served.join(", ")));
    if !first.file.as_os_str().is_empty() {
        message.push_str(&format!("; written at {}", first.file.display()));
        if first.pos.line > 0 {
            message.push_str(&format!(":{}", first.pos.line));
        }
    }
    message.push(')');
    match refused.len() - 1 {
        0 => {}
        1 => message.push_str("; one more object is refused for its apiVersion"),
        more => message.push_str(&format!(
            "; {more} more objects are refused for their apiVersion"
        )),
    }
    message.push_str("; nothing of the stage is applied");
    Some(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(text: &str, file: &str) -> Object {
        let document = crate::yaml::parse_stream(text, &Default::default())
            .expect("yaml")
            .into_iter()
            .next()
            .expect("a document");
        let pos = crate::yaml::Pos {
            line: 3,
            ..Default::default()
        };
        Object::from_shared(document.root, file.into(), pos)
            .expect("object")
            .expect("an object")
    }

    #[test]
    fn an_unserved_flux_version_refuses_the_apply_naming_the_object_and_its_file() {
        let objects = [
            object(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: apps}\n",
                "apps/cm.yaml",
            ),
            object(
                "apiVersion: helm.toolkit.fluxcd.io/v2beta9\nkind: HelmRelease\nmetadata: {name: web, namespace: apps}\n",
                "apps/hr.yaml",
            ),
        ];
        let message = refusal(&objects).expect("refused");
        assert_eq!(
            message,
            "HelmRelease/apps/web dry-run failed: no matches for kind \"HelmRelease\" in version \"helm.toolkit.fluxcd.io/v2beta9\" (the CRD serves `helm.toolkit.fluxcd.io/v2`; written at apps/hr.yaml:3); nothing of the stage is applied"
        );
    }

    #[test]
    fn served_retired_and_foreign_versions_are_not_refused() {
        let objects = [
            object(
                "apiVersion: helm.toolkit.fluxcd.io/v2beta2\nkind: HelmRelease\nmetadata: {name: old}\n",
                "a.yaml",
            ),
            object(
                "apiVersion: example.com/v9\nkind: Widget\nmetadata: {name: w}\n",
                "a.yaml",
            ),
            object(
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: k}\n",
                "a.yaml",
            ),
        ];
        assert_eq!(refusal(&objects), None);
    }

    #[test]
    fn several_refusals_name_the_first_in_kind_order_and_count_the_rest() {
        let objects = [
            object(
                "apiVersion: source.toolkit.fluxcd.io/v9\nkind: OCIRepository\nmetadata: {name: b, namespace: x}\n",
                "a.yaml",
            ),
            object(
                "apiVersion: source.toolkit.fluxcd.io/v9\nkind: GitRepository\nmetadata: {name: z, namespace: x}\n",
                "a.yaml",
            ),
            object(
                "apiVersion: source.toolkit.fluxcd.io/v9\nkind: GitRepository\nmetadata: {name: a, namespace: x}\n",
                "a.yaml",
            ),
        ];
        let message = refusal(&objects).expect("refused");
        assert!(
            message.starts_with("GitRepository/x/a dry-run failed"),
            "{message}"
        );
        assert!(
            message.contains("2 more objects are refused for their apiVersion"),
            "{message}"
        );
    }
}
