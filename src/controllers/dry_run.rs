//! What the API server refuses when a controller applies objects server-side, judged offline.
//!
//! kustomize-controller and the Flux Operator apply a build through fluxcd/pkg's `ssa`
//! `ResourceManager.ApplyAll`: every object of a stage is dry-run applied before any is applied,
//! and the first refusal (`ssa/errors.DryRunErr`) fails the whole reconciliation, so nothing of
//! that stage reaches the cluster. The refusals offlux can know without a cluster: a Flux kind in
//! an `apiVersion` no Flux CRD ever served (`model::served_version`): the API server answers
//! `no matches for kind …`; and a Flux object whose name is no RFC 1123 subdomain (which also
//! ends a chain of Kustomizations applying ever longer names of themselves). Versions only older
//! Flux releases serve are not refused here (the cluster may run one; `validate` warns about
//! them).

use crate::model::{no_kind_match, served_version, Object, Served};

/// The reconciliation error of applying `objects`, as `DryRunErr.Error()` spells it
/// (`Kind/namespace/name dry-run failed: <API server error>`; no reason for a `NoKindMatchError`,
/// which carries no API status), with where the object is written. The controller reports whichever
/// dry-run fails first (they run concurrently); offlux names the first refused object by kind,
/// namespace and name, so the row is the same every run, and counts the others.
pub(crate) fn refusal(objects: &[Object]) -> Option<String> {
    let mut refused: Vec<(&Object, Refused)> = objects
        .iter()
        .filter_map(|object| {
            let id = &object.id;
            match served_version(&id.group, &id.kind, &id.version) {
                Some(Served::Unknown { served }) => Some((object, Refused::Unserved(served))),
                _ => invalid_name(object).map(|why| (object, Refused::Invalid(why))),
            }
        })
        .collect();
    refused.sort_by(|(a, _), (b, _)| {
        (&a.id.kind, &a.id.namespace, &a.id.name).cmp(&(&b.id.kind, &b.id.namespace, &b.id.name))
    });
    let (first, why) = refused.first()?;
    let id = &first.id;
    let mut name = format!("{}/", id.kind);
    if !id.namespace.is_empty() {
        name.push_str(&id.namespace);
        name.push('/');
    }
    name.push_str(&id.name);
    let (mut message, mut details) = match why {
        Refused::Unserved(served) => {
            let served: Vec<String> = served
                .iter()
                .map(|v| format!("`{}/{v}`", id.group))
                .collect();
            (
                format!(
                    "{name} dry-run failed: {}",
                    no_kind_match(&id.kind, &id.group, &id.version)
                ),
                vec![format!("the CRD serves {}", served.join(", "))],
            )
        }
        Refused::Invalid(why) => (
            format!(
                "{name} dry-run failed (Invalid): {}.{} {:?} is invalid: {why}",
                id.kind, id.group, id.name
            ),
            Vec::new(),
        ),
    };
    if !first.file.as_os_str().is_empty() {
        let mut at = format!("written at {}", first.file.display());
        if first.pos.line > 0 {
            at.push_str(&format!(":{}", first.pos.line));
        }
        details.push(at);
    }
    if !details.is_empty() {
        message.push_str(&format!(" ({})", details.join("; ")));
    }
    match refused.len() - 1 {
        0 => {}
        1 => message.push_str("; one more object is refused"),
        more => message.push_str(&format!("; {more} more objects are refused")),
    }
    message.push_str("; nothing of the stage is applied");
    Some(message)
}

/// Why the API server refuses an object offline can tell.
enum Refused {
    /// A Flux kind in an `apiVersion` its CRD never served; the versions it serves.
    Unserved(&'static [&'static str]),
    /// A Flux object whose name the API server's validation refuses (`metadata.name: …`).
    Invalid(String),
}

/// The API server's refusal of a Flux object's name: a custom resource's name must be an RFC 1123
/// subdomain (`ValidateObjectMetaAccessor` with `NameIsDNSSubdomain`), at most 253 characters of
/// lower-case letters, digits, `-` and `.`. A name holding a `${VAR}` post-build left (its value
/// is what only the cluster has) is not judged.
fn invalid_name(object: &Object) -> Option<String> {
    let id = &object.id;
    if crate::model::FluxKind::from_group_kind(&id.group, &id.kind).is_none()
        || id.name.contains("${")
    {
        return None;
    }
    let name: &str = &id.name;
    let mut problems = Vec::new();
    if name.len() > 253 {
        problems.push("must be no more than 253 characters");
    }
    let label_ok = |label: &str| {
        let bytes = label.as_bytes();
        !bytes.is_empty()
            && bytes
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
            && bytes[0] != b'-'
            && bytes[bytes.len() - 1] != b'-'
    };
    if !name.split('.').all(label_ok) {
        problems.push(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        );
    }
    if problems.is_empty() {
        return None;
    }
    let shown: String = if name.len() > 64 {
        format!("{}…", name.chars().take(64).collect::<String>())
    } else {
        name.to_owned()
    };
    Some(format!(
        "metadata.name: Invalid value: {shown:?}: {}",
        problems.join(", ")
    ))
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
    fn a_flux_object_whose_name_the_api_server_refuses_fails_the_apply() {
        let long = "k".repeat(254);
        for (name, why) in [
            (long.as_str(), "must be no more than 253 characters"),
            ("Apps", "a lowercase RFC 1123 subdomain"),
            ("x\\nvalues", "a lowercase RFC 1123 subdomain"),
            ("-a", "a lowercase RFC 1123 subdomain"),
        ] {
            let objects = [object(
                &format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: \"{name}\", namespace: flux-system}}\n"),
                "loop/k.yaml",
            )];
            let message = refusal(&objects).unwrap_or_else(|| panic!("{name} refused"));
            assert!(
                message.contains(
                    "dry-run failed (Invalid): Kustomization.kustomize.toolkit.fluxcd.io"
                ),
                "{message}"
            );
            assert!(message.contains(why), "{message}");
            assert!(message.contains("(written at loop/k.yaml:3)"), "{message}");
        }
        // Valid names, a variable only the cluster can fill, and names of other kinds pass.
        let objects = [
            object(
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps.v2-x, namespace: a}\n",
                "a.yaml",
            ),
            object(
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: 'app-${CLUSTER}', namespace: a}\n",
                "a.yaml",
            ),
            object(
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: 'system:Reader'}\n",
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
        assert!(message.contains("2 more objects are refused;"), "{message}");
    }
}
