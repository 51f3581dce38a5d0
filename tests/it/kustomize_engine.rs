//! The kustomize engine's options used by the Flux controller: a file-system root no build may
//! leave, and a kustomization given in memory in place of the file on disk.

use offlux::kustomize::{build, LoadRestrictor, Options, Reorder};
use offlux::yaml::{parse_stream, ParseOptions};

fn write(root: &std::path::Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n";

#[test]
fn no_file_outside_the_fs_root_is_read_even_without_load_restrictions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repo");
    write(dir.path(), "outside.yaml", CM);
    write(
        &root,
        "app/kustomization.yaml",
        "resources:\n- ../../outside.yaml\n",
    );
    let mut options = Options {
        load_restrictor: LoadRestrictor::None,
        reorder: Reorder::None,
        ..Options::default()
    };
    assert!(
        build(&root.join("app"), &options).is_ok(),
        "without a root, LoadRestrictionsNone reads it"
    );
    options.fs_root = Some(root.clone());
    let error = build(&root.join("app"), &options).expect_err("outside the root");
    assert!(
        error.to_string().contains("outside the repository root"),
        "{error}"
    );
}

#[test]
fn an_in_memory_kustomization_stands_in_for_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = dir.path().join("app");
    write(&app, "cm.yaml", CM);
    let kustomization = parse_stream(
        "resources:\n- cm.yaml\nnamespace: flux-target\n",
        &ParseOptions::default(),
    )
    .expect("yaml")
    .remove(0)
    .into_root();
    let options = Options {
        kustomization_override: Some((app.clone(), kustomization)),
        ..Options::default()
    };
    let built = build(&app, &options).expect("builds without a kustomization file");
    assert_eq!(built.objects.len(), 1);
    assert_eq!(
        built.objects[0]
            .get_path(&["metadata", "namespace"])
            .and_then(|n| n.as_str()),
        Some("flux-target")
    );
}
