//! ExternalArtifacts an ArtifactGenerator assembles from the working tree, built with the real
//! kustomize engine: every copy form (files, directories, globs, `exclude`, Merge, Extract), and
//! the Kustomization's `spec.path` taken relative to the artifact's root. Issue 23, item 4.

use std::path::Path;

use offlux::controllers::runtime::RunReport;
use offlux::orchestrator::{Config, Orchestrator};
use offlux::store::Status;

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn config_map(name: &str, data: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: default\ndata:\n{data}")
}

fn generator(copies: &str) -> String {
    format!(
        "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {{name: gen, namespace: flux-system}}\nspec:\n  sources:\n    - {{alias: repo, kind: GitRepository, name: flux-system}}\n  artifacts:\n    - name: bundle\n      copy:\n{copies}"
    )
}

fn consumer(path: &str) -> String {
    format!("---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: bundle, namespace: flux-system}}\nspec:\n  path: {path}\n  sourceRef: {{kind: ExternalArtifact, name: bundle}}\n")
}

fn render(root: &Path) -> RunReport {
    let offlux = Orchestrator::new(Config {
        root: Some(root.to_path_buf()),
        offline: true,
        ..Config::new(root.join("entry"))
    });
    offlux.run(Vec::new()).expect("a repository").1
}

/// The ConfigMaps the consumer rendered, as `name: data-keys`, and its status.
fn rendered(report: &RunReport) -> (String, Vec<String>) {
    let (id, record) = report
        .statuses
        .iter()
        .find(|(id, _)| id.kind == "Kustomization" && id.name == "bundle")
        .expect("the consumer has a status");
    let status = match &record.status {
        Status::Failed(message) => format!("failed: {message}"),
        other => other.to_string(),
    };
    let mut objects: Vec<String> = report
        .rendered
        .get(id)
        .into_iter()
        .flatten()
        .map(|o| {
            let keys: Vec<String> = o
                .node
                .get_path(&["data"])
                .and_then(|d| d.as_mapping())
                .map(|m| m.keys().map(|k| k.to_string()).collect())
                .unwrap_or_default();
            format!("{}: {}", o.id.name, keys.join(","))
        })
        .collect();
    objects.sort();
    (status, objects)
}

#[test]
fn files_globs_and_excludes_are_copied_and_the_path_is_the_artifacts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let copies = "        - {from: \"@repo/base/one.yaml\", to: \"@artifact/app/\"}\n        - {from: \"@repo/configs/*.yaml\", to: \"@artifact/app/\", exclude: [\"*-test.yaml\"]}\n        - {from: \"@repo/single/two.yaml\", to: \"@artifact/app/renamed.yaml\"}\n";
    write(
        root,
        "entry/gen.yaml",
        &(generator(copies) + &consumer("./app")),
    );
    write(root, "base/one.yaml", &config_map("one", "  a: '1'\n"));
    write(
        root,
        "base/unrelated.yaml",
        &config_map("unrelated", "  a: '1'\n"),
    );
    write(
        root,
        "configs/three.yaml",
        &config_map("three", "  a: '1'\n"),
    );
    write(
        root,
        "configs/three-test.yaml",
        &config_map("excluded", "  a: '1'\n"),
    );
    write(root, "single/two.yaml", &config_map("two", "  a: '1'\n"));
    let (status, objects) = rendered(&render(root));
    assert_eq!(status, "ready", "{objects:?}");
    assert_eq!(objects, ["one: a", "three: a", "two: a"]);
}

#[test]
fn a_directory_copy_keeps_its_name_and_merge_folds_yaml() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let copies = "        - {from: \"@repo/apps/prod\", to: \"@artifact/deploy\"}\n        - {from: \"@repo/patches/extra.yaml\", to: \"@artifact/deploy/prod/cm.yaml\", strategy: Merge}\n";
    write(
        root,
        "entry/gen.yaml",
        &(generator(copies) + &consumer("./deploy/prod")),
    );
    write(root, "apps/prod/cm.yaml", &config_map("cm", "  a: '1'\n"));
    write(root, "patches/extra.yaml", "data:\n  b: '2'\n");
    let (status, objects) = rendered(&render(root));
    assert_eq!(status, "ready", "{objects:?}");
    assert_eq!(objects, ["cm: a,b"]);
}

#[test]
fn a_tarball_is_extracted_into_the_artifact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let copies =
        "        - {from: \"@repo/bundles/*.tgz\", to: \"@artifact/unpacked/\", strategy: Extract}\n";
    write(
        root,
        "entry/gen.yaml",
        &(generator(copies) + &consumer("unpacked")),
    );
    let content = config_map("packed", "  z: '9'\n");
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(encoder);
    let mut header = tar::Header::new_gnu();
    header.set_size(content.len() as u64);
    header.set_mode(0o644);
    tar.append_data(&mut header, "cm.yaml", content.as_bytes())
        .expect("tar");
    let bytes = tar.into_inner().and_then(|e| e.finish()).expect("tgz");
    std::fs::create_dir_all(root.join("bundles")).expect("mkdir");
    std::fs::write(root.join("bundles/b.tgz"), bytes).expect("write");
    let (status, objects) = rendered(&render(root));
    assert_eq!(status, "ready", "{objects:?}");
    assert_eq!(objects, ["packed: z"]);
}

#[test]
fn a_copy_error_fails_the_consumer_with_the_generators_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let copies = "        - {from: \"@repo/nothing/*.yaml\", to: \"@artifact/\"}\n";
    write(
        root,
        "entry/gen.yaml",
        &(generator(copies) + &consumer("./")),
    );
    let (status, _) = rendered(&render(root));
    assert!(
        status.contains("ArtifactGenerator/flux-system/gen artifact `bundle`")
            && status.contains("no files match pattern 'nothing/*.yaml' in source 'repo'"),
        "{status}"
    );
}

#[test]
fn objects_of_a_mirrored_artifact_point_at_their_working_tree_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let copies = "        - {from: \"@repo/apps/**\", to: \"@artifact/\"}\n";
    write(
        root,
        "entry/gen.yaml",
        &(generator(copies) + &consumer("./prod")),
    );
    write(root, "apps/prod/cm.yaml", &config_map("cm", "  a: '1'\n"));
    let report = render(root);
    let (status, _) = rendered(&report);
    assert_eq!(status, "ready");
    let files: Vec<String> = report
        .rendered
        .values()
        .flatten()
        .map(|o| o.file.display().to_string())
        .collect();
    assert_eq!(files, ["apps/prod/cm.yaml"]);
}
