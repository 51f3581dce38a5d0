//! ResourceSets end to end through the runtime with the real kustomize and Helm engines, on
//! `testdata/resourceset`: Static providers selected by label feed a ResourceSet whose generated
//! ConfigMap (copyFrom), Kustomization and HelmRelease reconcile like any other object; a
//! provider that needs GitHub is skipped offline, and reconciles from supplied inputs.

use std::path::PathBuf;

use offlux::controllers::engine::{HelmEngine, KustomizeEngine};
use offlux::controllers::runtime::{run, RunOptions, RunReport};
use offlux::discovery::{discover, Options, Repository};
use offlux::model::ResourceId;
use offlux::store::{Ready, Status};
use offlux::yaml::Node;
use serde_json::{json, Map, Value};

fn fixture() -> Repository {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/resourceset");
    let mut options = Options::new(root.join("clusters/dev"));
    options.root = Some(root);
    discover(&options).expect("discovery of testdata/resourceset")
}

fn reconcile(repository: &Repository, options: &RunOptions) -> RunReport {
    let helm = HelmEngine {
        offline: true,
        ..HelmEngine::default()
    };
    run(
        repository,
        &KustomizeEngine::for_repository(repository),
        &helm,
        options,
    )
}

fn status<'a>(report: &'a RunReport, kind: &str, name: &str) -> &'a Status {
    report
        .statuses
        .iter()
        .find(|(id, _)| id.kind == kind && id.name == name)
        .map(|(_, record)| &record.status)
        .unwrap_or_else(|| panic!("{kind}/{name} was not reconciled: {:?}", report.statuses))
}

fn rendered<'a>(report: &'a RunReport, kind: &str, name: &str) -> &'a [offlux::model::Object] {
    report
        .rendered
        .iter()
        .find(|(id, _)| id.kind == kind && id.name == name)
        .map(|(_, objects)| objects.as_slice())
        .unwrap_or_else(|| panic!("{kind}/{name} rendered nothing"))
}

fn text_at<'a>(node: &'a Node, path: &[&str]) -> Option<&'a str> {
    node.get_path(path).and_then(Node::as_str)
}

#[test]
fn generated_objects_reconcile_through_the_runtime() {
    let repository = fixture();
    let report = reconcile(
        &repository,
        &RunOptions {
            concurrency: Some(2),
            ..Default::default()
        },
    );
    assert_eq!(
        status(&report, "ResourceSet", "tenants"),
        &Status::Ready(Ready::Reconciled)
    );
    for tenant in ["team-a", "team-b"] {
        let kustomization = format!("apps-{tenant}");
        assert_eq!(
            status(&report, "Kustomization", &kustomization),
            &Status::Ready(Ready::Reconciled),
            "{kustomization}"
        );
        let built = rendered(&report, "Kustomization", &kustomization);
        assert!(
            built.iter().any(|o| o.id.name == format!("{tenant}-app")),
            "{kustomization} built {built:?}"
        );
        let release = format!("hello-{tenant}");
        assert_eq!(
            status(&report, "HelmRelease", &release),
            &Status::Ready(Ready::Reconciled),
            "{release}"
        );
        let chart_output = rendered(&report, "HelmRelease", &release);
        let configmap = chart_output
            .iter()
            .find(|o| o.id.kind == "ConfigMap")
            .expect("the chart's ConfigMap");
        // The provider's id is the Adler-32 of its name, as the operator's offline build has it.
        let id = offlux::resourceset::id(tenant);
        assert_eq!(text_at(&configmap.node, &["data", "id"]), Some(id.as_str()));
    }
    let generated = rendered(&report, "ResourceSet", "tenants");
    assert_eq!(generated.len(), 6, "{generated:?}");
    let settings = generated
        .iter()
        .find(|o| o.id.name == "team-b-settings")
        .expect("the copied ConfigMap");
    assert_eq!(
        text_at(&settings.node, &["data", "region"]),
        Some("eu-west-1")
    );
    assert_eq!(
        text_at(
            &settings.node,
            &[
                "metadata",
                "labels",
                "resourceset.fluxcd.controlplane.io/name"
            ]
        ),
        Some("tenants")
    );
    assert_eq!(
        text_at(
            &settings.node,
            &["metadata", "labels", "toolkit.fluxcd.io/tenant"]
        ),
        Some("tenants")
    );
    let kustomization_id = ResourceId::new(
        "kustomize.toolkit.fluxcd.io/v1",
        "Kustomization",
        "flux-system",
        "apps-team-a",
    );
    let origin = report
        .origins
        .get(&kustomization_id)
        .expect("an origin for the generated Kustomization");
    assert_eq!(origin.file, PathBuf::from("clusters/dev/tenants.yaml"));
    assert_eq!(origin.pos.map(|p| p.line), Some(1));
}

#[test]
fn providers_that_need_a_forge_are_skipped_unless_their_inputs_are_supplied() {
    let repository = fixture();
    let report = reconcile(&repository, &RunOptions::default());
    match status(&report, "ResourceSet", "previews") {
        Status::Ready(Ready::Skipped(message)) => assert!(
            message.contains("--resourceset-inputs flux-system/pull-requests=FILE"),
            "{message}"
        ),
        other => panic!("previews: {other:?}"),
    }
    assert!(matches!(
        status(&report, "ResourceSetInputProvider", "pull-requests"),
        Status::Ready(Ready::Skipped(_))
    ));

    let mut set = Map::new();
    set.insert("id".into(), json!("42"));
    set.insert("branch".into(), json!("Feature/Login Page"));
    let mut options = RunOptions::default();
    options
        .resourceset_inputs
        .insert("flux-system/pull-requests".into(), vec![set]);
    let report = reconcile(&repository, &options);
    assert_eq!(
        status(&report, "ResourceSet", "previews"),
        &Status::Ready(Ready::Reconciled)
    );
    assert_eq!(
        status(&report, "Kustomization", "preview-42"),
        &Status::Ready(Ready::Reconciled)
    );
    let built = rendered(&report, "Kustomization", "preview-42");
    let configmap = built.first().expect("the preview ConfigMap");
    // The branch went through `slugify`; `env` came from the provider's defaultValues.
    assert_eq!(
        text_at(&configmap.node, &["data", "branch"]),
        Some("feature-login-page")
    );
    assert_eq!(text_at(&configmap.node, &["data", "env"]), Some("preview"));
    let _: Value = Value::Null;
}
