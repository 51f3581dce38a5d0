//! Discovery on small trees written by each test, and on the example repository.

use std::path::{Path, PathBuf};

use offlux::diagnostic::Severity;
use offlux::discovery::{discover, BootstrapSource, Options, Repository};
use offlux::model::FluxKind;

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create test directory");
    }
    std::fs::write(path, text).expect("write test file");
}

fn discover_at(path: &Path, root: &Path) -> Repository {
    let mut options = Options::new(path);
    options.root = Some(root.to_path_buf());
    discover(&options).expect("discovery succeeds")
}

fn names(repo: &Repository, kind: FluxKind) -> Vec<String> {
    repo.flux_objects
        .iter()
        .filter(|f| f.kind == kind)
        .map(|f| format!("{}/{}", f.namespace(), f.name()))
        .collect()
}

fn kustomization(name: &str, path: &str) -> String {
    format!(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  path: {path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
    )
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example")
}

#[test]
fn example_from_a_narrow_entry_follows_spec_paths_and_kustomization_resources() {
    let root = example();
    let repo = discover_at(&root.join("clusters/dev"), &root);
    assert_eq!(
        names(&repo, FluxKind::Kustomization),
        [
            "flux-system/apps",
            "flux-system/flux-system",
            "flux-system/infrastructure"
        ]
    );
    // The HelmRelease lives in apps/base/hello, reached through apps/dev's kustomization; the
    // values patch in apps/dev is a fragment, not a second HelmRelease.
    assert_eq!(names(&repo, FluxKind::HelmRelease), ["hello/hello"]);
    assert_eq!(repo.stats.patch_files, 1);
    assert_eq!(repo.data_objects.len(), 1);
    assert_eq!(repo.data_objects[0].id.name, "cluster-vars");
    assert_eq!(
        repo.bootstrap,
        BootstrapSource::Defined(PathBuf::from("clusters/dev/flux-system/gotk-sync.yaml"))
    );
    let errors: Vec<_> = repo
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "unexpected errors: {errors:?}");
}

#[test]
fn malformed_spec_is_an_error_with_file_line_and_object() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "clusters/bad.yaml",
        "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: broken\n  namespace: flux-system\nspec:\n  path: ./apps\n  sourceRef:\n    kind: GitRepository\n",
    );
    let repo = discover_at(dir.path(), dir.path());
    let error = repo
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
        .expect("an error diagnostic");
    assert_eq!(
        error.object.as_deref(),
        Some("Kustomization/flux-system/broken")
    );
    assert!(
        error.message.contains("`spec.sourceRef.name` is required"),
        "{}",
        error.message
    );
    let location = error.location.as_ref().expect("a location");
    assert_eq!(location.file, Path::new("clusters/bad.yaml"));
    assert_eq!(
        location.pos.map(|p| p.line),
        Some(14),
        "points at the sourceRef mapping"
    );
    assert!(names(&repo, FluxKind::Kustomization).is_empty());
}

#[test]
fn foreign_kind_with_a_flux_name_is_not_a_flux_object() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "x.yaml",
        "apiVersion: example.com/v1\nkind: HelmRelease\nmetadata:\n  name: impostor\nspec: {}\n---\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata:\n  name: also-not-flux\n",
    );
    let repo = discover_at(dir.path(), dir.path());
    assert!(repo.flux_objects.is_empty());
    assert!(repo
        .diagnostics
        .iter()
        .all(|d| d.severity != Severity::Error));
}

#[test]
fn ignore_files_exclude_and_reinclude() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        ".krmignore",
        "drafts/\n*.skip.yaml\n!keep.skip.yaml\n",
    );
    write(root, ".sourceignore", "docs/\n");
    write(root, "a.yaml", &kustomization("a", "./nowhere-a"));
    write(root, "drafts/b.yaml", &kustomization("b", "./x"));
    write(root, "c.skip.yaml", &kustomization("c", "./x"));
    write(root, "keep.skip.yaml", &kustomization("keep", "./x"));
    write(root, "docs/d.yaml", &kustomization("d", "./x"));
    write(root, ".github/workflows/e.yaml", &kustomization("e", "./x"));
    let repo = discover_at(root, root);
    // A `.sourceignore` with patterns replaces Flux's default exclusions (source-controller's
    // `SourceIgnoreFilter`: only the VCS patterns and the file's own), so `.github/` is in the
    // artifact.
    assert_eq!(
        names(&repo, FluxKind::Kustomization),
        ["flux-system/a", "flux-system/e", "flux-system/keep"]
    );
    assert_eq!(repo.bootstrap, BootstrapSource::Assumed);
}

#[test]
fn a_bad_ignore_line_is_reported_with_its_file_and_line_and_the_rest_still_applies() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "apps/.gitignore", "drafts/\n{a,b\n# fine\nx{c\n");
    write(root, "apps/a.yaml", &kustomization("a", "./x"));
    write(root, "apps/drafts/b.yaml", &kustomization("b", "./x"));
    let repo = discover_at(root, root);
    assert_eq!(names(&repo, FluxKind::Kustomization), ["flux-system/a"]);
    let joined: String = repo.diagnostics.iter().map(|d| format!("{d}\n")).collect();
    assert!(
        joined.contains("apps/.gitignore:2:1: ignore rule not used: error parsing glob '{a,b'"),
        "{joined}"
    );
    assert!(
        joined.contains("apps/.gitignore:4:1: ignore rule not used: error parsing glob 'x{c'"),
        "{joined}"
    );
}

#[test]
fn spec_path_is_followed_with_defaults_and_clamped_at_the_root() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/main/entry.yaml",
        &kustomization("entry", "./apps/${ENV:=prod}"),
    );
    write(
        root,
        "apps/prod/app.yaml",
        &kustomization("app", "../../../../infra"),
    );
    write(
        root,
        "infra/infra.yaml",
        &kustomization("infra", "./apps/${UNSET}"),
    );
    write(root, "unreached/x.yaml", &kustomization("unreached", "./x"));
    let repo = discover_at(&root.join("clusters/main"), root);
    assert_eq!(
        names(&repo, FluxKind::Kustomization),
        ["flux-system/app", "flux-system/entry", "flux-system/infra"]
    );
    assert!(repo
        .diagnostics
        .iter()
        .any(|d| d.message.contains("`${UNSET}`") && d.severity == Severity::Note));
}

#[test]
fn unreadable_inputs_are_reported_and_do_not_stop_the_walk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "good.yaml", &kustomization("good", "./x"));
    std::fs::write(root.join("latin1.yaml"), b"kind: \xe9t\xe9\n").expect("write");
    write(root, "broken.yaml", "a: [unclosed\n");
    write(root, "big.yaml", &"# padding\n".repeat(200));
    let mut options = Options::new(root);
    options.max_file_size = 1000;
    let repo = discover(&options).expect("discovery succeeds");
    assert_eq!(names(&repo, FluxKind::Kustomization), ["flux-system/good"]);
    let messages: Vec<String> = repo.diagnostics.iter().map(|d| d.to_string()).collect();
    let joined = messages.join("\n");
    assert!(
        joined.contains("latin1.yaml: file is not valid UTF-8"),
        "{joined}"
    );
    assert!(joined.contains("broken.yaml:"), "{joined}");
    assert!(joined.contains("big.yaml: file is 2000 bytes"), "{joined}");
}

#[cfg(unix)]
#[test]
fn symlinks_cannot_escape_the_root_or_loop() {
    let outside = tempfile::tempdir().expect("tempdir");
    write(
        outside.path(),
        "secret.yaml",
        &kustomization("outside", "./x"),
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "inside.yaml", &kustomization("inside", "./x"));
    std::os::unix::fs::symlink(outside.path().join("secret.yaml"), root.join("link.yaml"))
        .expect("symlink");
    std::os::unix::fs::symlink(outside.path(), root.join("linked-dir")).expect("symlink");
    std::os::unix::fs::symlink(outside.path().join("secret.yaml"), root.join("notes.txt"))
        .expect("symlink");
    std::fs::create_dir(root.join("loop")).expect("mkdir");
    std::os::unix::fs::symlink(root, root.join("loop/back")).expect("symlink");
    let repo = discover_at(root, root);
    assert_eq!(
        names(&repo, FluxKind::Kustomization),
        ["flux-system/inside"]
    );
    let joined: String = repo.diagnostics.iter().map(|d| format!("{d}\n")).collect();
    assert!(
        joined.contains("link.yaml: symlink points outside the repository root"),
        "{joined}"
    );
    assert!(
        joined.contains("linked-dir: symlink points outside the repository root"),
        "{joined}"
    );
    assert!(joined.contains("loop/back: symlink loop"), "{joined}");
    // A link to a file the walk would not read anyway is passed over in silence.
    assert!(!joined.contains("notes.txt"), "{joined}");
}

#[test]
fn sops_documents_are_recognised() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "secret.sops.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  key: ENC[AES256_GCM,data:abc,type:str]\nsops:\n  mac: ENC[AES256_GCM,data:xyz]\n  lastmodified: \"2024-01-01T00:00:00Z\"\n",
    );
    let repo = discover_at(dir.path(), dir.path());
    assert_eq!(repo.stats.sops_documents, 1);
    assert!(repo.data_objects[0].is_sops_encrypted());
}

#[test]
fn missing_path_is_an_input_error() {
    let error = discover(&Options::new("/definitely/not/here")).expect_err("fails");
    assert!(error.to_string().contains("/definitely/not/here"));
}

#[test]
fn a_kustomization_namespaced_by_its_kustomization_file_is_the_parent_of_what_it_applies() {
    // `ks.yaml` names no namespace; the kustomization.yaml listing it gives one. The HelmRelease
    // under its `spec.path` is applied by it, not a loose object of its own.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "cluster/flux.yaml", &kustomization("apps", "./apps"));
    write(
        root,
        "apps/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: web\nresources:\n  - ./ks.yaml\n",
    );
    write(
        root,
        "apps/ks.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: site\nspec:\n  path: ./apps/site\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n",
    );
    write(
        root,
        "apps/site/helmrelease.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: site\nspec:\n  chart:\n    spec:\n      chart: site\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n",
    );
    let repo = discover_at(&root.join("cluster"), root);
    let parent = repo
        .parents
        .iter()
        .find(|((file, _), _)| file.ends_with("helmrelease.yaml"))
        .map(|(_, parent)| parent.to_string());
    assert_eq!(
        parent.as_deref(),
        Some("Kustomization/web/site"),
        "{:?}",
        repo.parents
    );
}

#[test]
fn files_under_a_charts_templates_are_not_read_as_objects() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "charts/site/Chart.yaml",
        "apiVersion: v2\nname: site\nversion: 1.0.0\n",
    );
    // Go template syntax that is not YAML: read as a file it would be an invalid-YAML warning.
    write(
        dir.path(),
        "charts/site/templates/cm.yaml",
        "{{- if .Values.on }}\napiVersion: v1\nkind: ConfigMap\n{{- end }}\n",
    );
    // A `templates` directory outside a chart holds ordinary manifests.
    write(
        dir.path(),
        "apps/templates/ks.yaml",
        &kustomization("apps", "./apps"),
    );
    let repo = discover_at(dir.path(), dir.path());
    assert_eq!(names(&repo, FluxKind::Kustomization), ["flux-system/apps"]);
    assert!(
        repo.diagnostics
            .iter()
            .all(|d| !d.to_string().contains("cm.yaml")),
        "{:?}",
        repo.diagnostics
    );
    // Chart.yaml and ks.yaml; not the template.
    assert_eq!(repo.stats.yaml_files, 2);
}

#[test]
fn a_kustomization_defined_twice_covers_what_its_first_definition_names() {
    // Two clusters define flux-system/apps with different paths; the run uses the first
    // definition by file (clusters/a), so what its path holds has it as parent, not a loose seed.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/a/apps.yaml",
        &kustomization("apps", "./apps/a"),
    );
    write(
        root,
        "clusters/b/apps.yaml",
        &kustomization("apps", "./apps/b"),
    );
    for cluster in ["a", "b"] {
        write(
            root,
            &format!("apps/{cluster}/ks.yaml"),
            &format!(
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: site-{cluster}\n  namespace: flux-system\nspec:\n  path: ./site\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
            ),
        );
    }
    let repo = discover_at(root, root);
    let parent_of = |file: &str| {
        repo.parents
            .iter()
            .find(|((f, _), _)| f.ends_with(file))
            .map(|(_, parent)| parent.to_string())
    };
    assert_eq!(
        parent_of("apps/a/ks.yaml").as_deref(),
        Some("Kustomization/flux-system/apps"),
        "{:?}",
        repo.parents
    );
    assert_eq!(parent_of("apps/b/ks.yaml"), None, "{:?}", repo.parents);
}

#[test]
fn the_listing_is_in_path_order_and_chart_templates_are_not_read_as_yaml() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let config_map = |name: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: x\n")
    };
    // Byte order and path order differ where a name continues past a directory's name.
    for file in [
        "apps/a/x.yaml",
        "apps/a-b.yaml",
        "apps/a.yaml",
        "apps/ab/y.yaml",
        "apps/a/b/z.yml",
        "apps/a0.yaml",
    ] {
        write(root, file, &config_map(&file.replace(['/', '.'], "-")));
    }
    write(
        root,
        "apps/chart/Chart.yaml",
        "apiVersion: v2\nname: chart\nversion: 1.0.0\n",
    );
    write(
        root,
        "apps/chart/templates/cm.yaml",
        "{{- if .Values.x }}: [\n",
    );
    let repo = discover_at(root, root);
    let mut sorted = repo.yaml_files.clone();
    sorted.sort();
    assert_eq!(repo.yaml_files, sorted);
    assert_eq!(repo.yaml_files.len(), 8, "{:?}", repo.yaml_files);
    assert_eq!(repo.data_objects.len(), 6);
    assert!(
        repo.diagnostics
            .iter()
            .all(|d| !d.message.contains("invalid YAML")),
        "{:?}",
        repo.diagnostics
    );
}

#[test]
fn a_patch_file_keeps_every_partial_object_as_a_fragment_though_it_was_read_before_it_was_known() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    // The patch file sorts (and is read) before the kustomization that names it as a patch.
    write(
        root,
        "app/a-patch.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n",
    );
    write(
        root,
        "app/deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n",
    );
    write(
        root,
        "app/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [deployment.yaml]\npatches:\n  - path: a-patch.yaml\n",
    );
    let repo = discover_at(root, root);
    assert_eq!(repo.stats.patch_files, 1);
    let fragments: Vec<String> = repo
        .patch_fragments
        .iter()
        .map(|o| format!("{} {}", o.id, o.file.display()))
        .collect();
    assert_eq!(fragments.len(), 1, "{fragments:?}");
    assert!(fragments[0].contains("Deployment") && fragments[0].ends_with("app/a-patch.yaml"));
}

#[test]
fn a_source_reference_finds_its_definition_by_kind_namespace_and_name() {
    use offlux::controllers::source::{resolve, SourceResolution};
    use offlux::model::ResourceId;
    let dir = tempfile::tempdir().expect("tempdir");
    let git = |namespace: &str, name: &str| {
        format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: {name}\n  namespace: {namespace}\nspec:\n  url: https://example.com/{namespace}/{name}\n")
    };
    let mut text = String::new();
    for (namespace, name) in [("zeta", "a"), ("apps", "b"), ("apps", "a"), ("alpha", "c")] {
        text.push_str(&git(namespace, name));
        text.push_str("---\n");
    }
    text.push_str("apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: a\n  namespace: apps\nspec:\n  url: oci://example.com/charts/a\n");
    write(dir.path(), "sources.yaml", &text);
    let repo = discover_at(dir.path(), dir.path());
    let resolved = |kind: &str, namespace: &str, name: &str| {
        let reference = ResourceId::new("source.toolkit.fluxcd.io/v1", kind, namespace, name);
        resolve(&reference, &repo, None)
    };
    let unavailable_naming = |resolution: SourceResolution, url: &str| match resolution {
        SourceResolution::Unavailable(message) => assert!(message.contains(url), "{message}"),
        other => panic!("expected unavailable for {url}, got {other:?}"),
    };
    unavailable_naming(
        resolved("GitRepository", "apps", "a"),
        "https://example.com/apps/a",
    );
    unavailable_naming(
        resolved("GitRepository", "zeta", "a"),
        "https://example.com/zeta/a",
    );
    unavailable_naming(
        resolved("GitRepository", "alpha", "c"),
        "https://example.com/alpha/c",
    );
    unavailable_naming(
        resolved("OCIRepository", "apps", "a"),
        "oci://example.com/charts/a",
    );
    for (kind, namespace, name) in [
        ("GitRepository", "apps", "c"),
        ("GitRepository", "other", "a"),
        ("OCIRepository", "zeta", "a"),
    ] {
        // Defined nowhere: not found (issue 21), no longer taken to be the working tree.
        match resolved(kind, namespace, name) {
            SourceResolution::NotFound(message) => assert_eq!(
                message,
                format!("source {kind}/{namespace}/{name} not found")
            ),
            other => panic!("{kind}/{namespace}/{name}: {other:?}"),
        }
    }
}

/// Drops `file`'s pages from the page cache; false where the system does not (another OS, or a
/// file system that keeps everything in memory).
fn evict_from_page_cache(file: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let Ok(handle) = std::fs::File::open(file) else {
            return false;
        };
        if handle.sync_all().is_err() {
            return false;
        }
        // SAFETY: plain integer arguments on a descriptor this function owns.
        let advised =
            unsafe { libc::posix_fadvise(handle.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        let mut probe = [0u8; 1];
        let vector = libc::iovec {
            iov_base: probe.as_mut_ptr().cast(),
            iov_len: probe.len(),
        };
        // SAFETY: one iovec over `probe`; the kernel writes at most one byte into it.
        let read = unsafe { libc::preadv2(handle.as_raw_fd(), &vector, 1, 0, libc::RWF_NOWAIT) };
        advised == 0 && read < 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        false
    }
}

#[test]
fn files_evicted_from_memory_give_the_same_repository_as_cached_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let mut resources = Vec::new();
    for i in 0..40 {
        let file = format!("clusters/ks-{i:02}.yaml");
        write(
            root,
            &file,
            &kustomization(&format!("app-{i:02}"), &format!("./apps/{i:02}")),
        );
        resources.push(format!("  - ks-{i:02}.yaml"));
    }
    write(
        root,
        "clusters/kustomization.yaml",
        &format!("resources:\n{}\n", resources.join("\n")),
    );
    write(
        root,
        "clusters/vars.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vars\n  namespace: flux-system\n",
    );
    write(root, "clusters/broken.yaml", "a: [\n");
    let entry = root.join("clusters");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&entry)
        .expect("list")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();

    let evicted = files.iter().filter(|f| evict_from_page_cache(f)).count();
    let cold = discover_at(&entry, root);
    let warm = discover_at(&entry, root);
    if cfg!(target_os = "linux") && evicted == 0 {
        eprintln!("note: this file system kept the files in memory; the late path went untested");
    }
    // The forty written, and the bootstrap's for the entry, whose kustomization file lists them.
    assert_eq!(names(&cold, FluxKind::Kustomization).len(), 41);
    assert_eq!(
        names(&cold, FluxKind::Kustomization),
        names(&warm, FluxKind::Kustomization)
    );
    assert_eq!(cold.data_objects.len(), 1);
    assert_eq!(cold.stats, warm.stats);
    assert_eq!(cold.stats.unparsable_files, 1);
    let messages = |repo: &Repository| -> Vec<String> {
        repo.diagnostics.iter().map(|d| d.to_string()).collect()
    };
    assert_eq!(messages(&cold), messages(&warm));
}

/// Issue 23, item 9: a file a `configMapGenerator` reads is data, under an ExternalArtifact's
/// path as anywhere: a values file with a `kind` key but no `apiVersion`, a template that is not
/// YAML, or a manifest shipped as data, is neither a finding nor an object of the repository
/// (`graph` and `validate` show what discovery found).
#[test]
fn generator_inputs_are_data_not_loose_objects() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/dev/apps.yaml",
        "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata:\n  name: gen\n  namespace: flux-system\nspec:\n  sources:\n    - alias: repo\n      kind: GitRepository\n      name: flux-system\n  artifacts:\n    - name: apps\n      copy:\n        - from: \"@repo/apps/**\"\n          to: \"@artifact/\"\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ./podinfo\n  sourceRef:\n    kind: ExternalArtifact\n    name: apps\n",
    );
    write(
        root,
        "apps/podinfo/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: default\nconfigMapGenerator:\n  - name: podinfo-values\n    files:\n      - values.yaml=helm-values.yaml\n      - template.yaml\n      - manifest.yaml\n",
    );
    write(
        root,
        "apps/podinfo/helm-values.yaml",
        "replicaCount: 2\nkind: Deployment\n",
    );
    write(root, "apps/podinfo/template.yaml", "{{ .Values.x }}: [\n");
    write(
        root,
        "apps/podinfo/manifest.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shipped\ndata:\n  a: b\n",
    );
    let repo = discover_at(root, root);
    let about_inputs: Vec<String> = repo
        .diagnostics
        .iter()
        .filter(|d| {
            d.location
                .as_ref()
                .is_some_and(|l| l.file.to_string_lossy().contains("apps/podinfo"))
        })
        .map(|d| d.to_string())
        .collect();
    assert!(about_inputs.is_empty(), "{about_inputs:#?}");
    assert!(
        !repo.data_objects.iter().any(|o| o.id.name == "shipped"),
        "a manifest read by a generator is not applied by itself"
    );
    let graph = offlux::graph::build(&repo);
    assert!(!graph.nodes.iter().any(|n| n.id.name == "shipped"));
}
