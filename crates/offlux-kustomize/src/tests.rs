//! Unit tests of the kustomize engine on small file trees (checked against kubectl kustomize
//! v5.5.0 where output is compared).

use std::fs;
use std::path::Path;

use super::generate::content_hash;
use super::resource::label_selector_matches;
use super::{build, to_yaml, LoadRestrictor, Options, Reorder};
use offlux_yaml::{parse_stream, ParseOptions};

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = root.join(path);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(p, text).unwrap();
    }
}

fn options() -> Options {
    Options {
        reorder: Reorder::None,
        ..Options::default()
    }
}

fn node(text: &str) -> offlux_yaml::Node {
    parse_stream(text, &ParseOptions::default())
        .unwrap()
        .remove(0)
        .into_root()
}

#[test]
fn hash_matches_kustomize() {
    // kubectl kustomize: configMapGenerator literal TEST=' gives test-m8t7bmb6g2
    let cm =
        node("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: test\ndata:\n  TEST: \"'\"\n");
    assert_eq!(content_hash(&cm), "m8t7bmb6g2");
}

#[test]
fn generator_names_get_the_hash_and_references_follow() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "kustomization.yaml",
                "namePrefix: p-\nresources:\n- pod.yaml\nconfigMapGenerator:\n- name: test\n  literals:\n  - TEST='\n",
            ),
            (
                "pod.yaml",
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pod\nspec:\n  volumes:\n  - name: v\n    configMap:\n      name: test\n",
            ),
        ],
    );
    let out = to_yaml(&build(dir.path(), &options()).unwrap());
    let hashed = "name: p-test-";
    assert!(out.contains(hashed), "{out}");
    let names: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("name: p-test-"))
        .collect();
    assert_eq!(names.len(), 2, "{out}");
    assert_eq!(names[0].trim(), names[1].trim());
}

#[test]
fn missing_resource_names_file_and_entry() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "app/kustomization.yaml",
                "resources:\n- ok.yaml\n- missing.yaml\n",
            ),
            (
                "app/ok.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
            ),
        ],
    );
    let opts = Options {
        display_root: Some(dir.path().to_path_buf()),
        ..options()
    };
    let err = build(&dir.path().join("app"), &opts).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("in kustomization /app/kustomization.yaml: resources[1] `missing.yaml`"),
        "{text}"
    );
    assert!(text.contains("no such file or directory"), "{text}");
}

#[test]
fn root_only_refuses_files_outside_and_symlinks_out() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "outside.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
            ),
            ("app/kustomization.yaml", "resources:\n- ../outside.yaml\n"),
            ("link/kustomization.yaml", "resources:\n- escape.yaml\n"),
        ],
    );
    let err = build(&dir.path().join("app"), &options()).unwrap_err();
    assert!(err.to_string().contains("is not in or below"), "{err}");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(
            dir.path().join("outside.yaml"),
            dir.path().join("link/escape.yaml"),
        )
        .unwrap();
        let err = build(&dir.path().join("link"), &options()).unwrap_err();
        assert!(err.to_string().contains("is not in or below"), "{err}");
    }
    let none = Options {
        load_restrictor: LoadRestrictor::None,
        ..options()
    };
    assert_eq!(
        build(&dir.path().join("app"), &none).unwrap().objects.len(),
        1
    );
}

/// A base named three times (by intermediates with their own prefixes) gives the same objects
/// each time, whether accumulated or reused from earlier in the build, and its deprecation is
/// said once; a chain of kustomizations each naming the next two builds in linear time.
#[test]
fn a_directory_named_again_is_reused_with_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![
        (
            "base/kustomization.yaml".to_owned(),
            "commonLabels: {a: b}\nresources: [cm.yaml]\n".to_owned(),
        ),
        (
            "base/cm.yaml".to_owned(),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n".to_owned(),
        ),
        (
            "top/kustomization.yaml".to_owned(),
            "resources: [../m1, ../m2, ../m3, ../dag/k0]\n".to_owned(),
        ),
    ];
    for m in ["m1", "m2", "m3"] {
        files.push((
            format!("{m}/kustomization.yaml"),
            format!("namePrefix: {m}-\nresources: [../base]\n"),
        ));
    }
    for i in 0..46 {
        let text = if i < 44 {
            format!("resources: [../k{}, ../k{}]\n", i + 1, i + 2)
        } else {
            "resources: []\n".to_owned()
        };
        files.push((format!("dag/k{i}/kustomization.yaml"), text));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write(dir.path(), &files);
    let started = std::time::Instant::now();
    let built = build(&dir.path().join("top"), &options()).unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(
        super::to_yaml(&built),
        ["m1", "m2", "m3"]
            .map(|m| format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels:\n    a: b\n  name: {m}-cm\n"
            ))
            .join("---\n")
    );
    assert_eq!(built.diagnostics.len(), 1, "{:?}", built.diagnostics);
}

#[test]
fn cycles_and_remote_resources_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("a/kustomization.yaml", "resources:\n- ../b\n"),
            ("b/kustomization.yaml", "resources:\n- ../a\n"),
            (
                "r/kustomization.yaml",
                "resources:\n- https://github.com/x/y//base?ref=v1\n",
            ),
        ],
    );
    let err = build(&dir.path().join("a"), &options()).unwrap_err();
    assert!(err.to_string().contains("cycle detected"), "{err}");
    let err = build(&dir.path().join("r"), &options()).unwrap_err();
    assert!(
        err.to_string()
            .contains("remote resources are not supported"),
        "{err}"
    );
    // The error says which file lists which URL, so that a caller can tell "needs the network"
    // from a broken kustomization.
    let (file, url) = err.remote().expect("a remote error");
    assert_eq!(url, "https://github.com/x/y//base?ref=v1");
    assert!(file.ends_with("r/kustomization.yaml"), "{}", file.display());
}

#[test]
fn a_remote_component_is_a_remote_error_and_a_broken_file_is_not() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("top/kustomization.yaml", "resources:\n- ../mid\n"),
            (
                "mid/kustomization.yaml",
                "components:\n- github.com/x/y/component?ref=v1\n",
            ),
            ("broken/kustomization.yaml", "resources:\n- missing.yaml\n"),
        ],
    );
    let err = build(&dir.path().join("top"), &options()).unwrap_err();
    let (file, url) = err.remote().expect("a remote error");
    assert_eq!(url, "github.com/x/y/component?ref=v1");
    assert!(
        file.ends_with("mid/kustomization.yaml"),
        "{}",
        file.display()
    );
    let err = build(&dir.path().join("broken"), &options()).unwrap_err();
    assert!(err.remote().is_none(), "{err}");
}

#[test]
fn a_generator_file_over_http_is_a_remote_error_only_when_the_build_fails_on_it() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "remote/kustomization.yaml",
                "configMapGenerator:\n- name: a\n  files:\n  - https://example.com/a.conf\n",
            ),
            (
                "local-first/kustomization.yaml",
                "configMapGenerator:\n- name: a\n  files:\n  - missing.conf\n- name: b\n  files:\n  - https://example.com/b.conf\n",
            ),
        ],
    );
    let err = build(&dir.path().join("remote"), &options()).unwrap_err();
    let (file, url) = err.remote().expect("a remote error");
    assert_eq!(url, "https://example.com/a.conf");
    assert!(
        file.ends_with("remote/kustomization.yaml"),
        "{}",
        file.display()
    );
    // The build stops at the missing local file, before it reaches the URL.
    let err = build(&dir.path().join("local-first"), &options()).unwrap_err();
    assert!(err.remote().is_none(), "{err}");
    assert!(err.to_string().contains("missing.conf"), "{err}");
}

#[test]
fn helm_charts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[("kustomization.yaml", "helmCharts:\n- name: x\n")],
    );
    let err = build(dir.path(), &options()).unwrap_err();
    assert!(
        err.to_string()
            .contains("Helm chart inflation is not supported"),
        "{err}"
    );
}

#[test]
fn legacy_order_puts_namespaces_first_and_webhooks_last() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("kustomization.yaml", "resources:\n- all.yaml\n"),
            (
                "all.yaml",
                "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: w\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: n\n",
            ),
        ],
    );
    let opts = Options {
        reorder: Reorder::Legacy,
        ..Options::default()
    };
    let kinds: Vec<String> = build(dir.path(), &opts)
        .unwrap()
        .objects
        .iter()
        .map(|o| {
            o.get("kind")
                .and_then(|k| k.as_str())
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds,
        ["Namespace", "Deployment", "ValidatingWebhookConfiguration"]
    );
}

#[test]
fn label_selectors() {
    let labels = node("app: web\ntier: front\n");
    assert!(label_selector_matches("app=web,tier", Some(&labels)));
    assert!(label_selector_matches(
        "app in (web, api),!missing",
        Some(&labels)
    ));
    assert!(!label_selector_matches("app!=web", Some(&labels)));
    assert!(!label_selector_matches("tier notin (front)", Some(&labels)));
}

#[test]
fn deprecated_fields_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "kustomization.yaml",
                "commonLabels:\n  a: b\nresources:\n- cm.yaml\n",
            ),
            (
                "cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
            ),
        ],
    );
    let b = build(dir.path(), &options()).unwrap();
    assert_eq!(b.diagnostics.len(), 1);
    assert!(b.diagnostics[0].contains("'commonLabels' is deprecated. Please use 'labels' instead."));
    assert!(to_yaml(&b).contains("a: b"));
}

#[test]
fn nested_errors_keep_the_inner_file_and_entry() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("overlay/kustomization.yaml", "resources:\n- ../base\n"),
            ("base/kustomization.yaml", "resources:\n- gone.yaml\n"),
        ],
    );
    let opts = Options {
        display_root: Some(dir.path().to_path_buf()),
        ..options()
    };
    let text = build(&dir.path().join("overlay"), &opts)
        .unwrap_err()
        .to_string();
    assert!(
        text.starts_with("in kustomization /overlay/kustomization.yaml: resources[0] `../base`"),
        "{text}"
    );
    assert!(
        text.contains("in kustomization /base/kustomization.yaml: resources[0] `gone.yaml`"),
        "{text}"
    );
}

const SA_BINDING: &str = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: runner\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: runner\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: admin\nsubjects:\n- kind: ServiceAccount\n  name: runner\n  namespace: ns1\n";

#[test]
fn b1_sa_referral_name_references_select_by_version() {
    // kubectl kustomize: a custom `ServiceAccount` of another version is not a referral target of
    // a subject, so the referral is not ambiguous; a custom one of version v1 is one.
    let dir = tempfile::tempdir().unwrap();
    let custom =
        "---\napiVersion: talos.dev/v1alpha1\nkind: ServiceAccount\nmetadata:\n  name: runner\n";
    write(
        dir.path(),
        &[
            (
                "kustomization.yaml",
                "namespace: ns1\nnamePrefix: p-\nresources:\n- res.yaml\n",
            ),
            ("res.yaml", &format!("{SA_BINDING}{custom}")),
        ],
    );
    let out = to_yaml(&build(dir.path(), &options()).unwrap());
    assert!(
        out.contains("subjects:\n- kind: ServiceAccount\n  name: p-runner\n  namespace: ns1\n"),
        "{out}"
    );
    // only the custom kind, of another version: the subject is left alone
    let only_custom = SA_BINDING.split("---\n").nth(1).unwrap_or_default();
    write(
        dir.path(),
        &[("res.yaml", &format!("{only_custom}{custom}"))],
    );
    let out = to_yaml(&build(dir.path(), &options()).unwrap());
    assert!(out.contains("  name: runner\n  namespace: ns1\n"), "{out}");
}

#[test]
fn b2_crb_subject_ns_is_added_only_when_the_object_moved_or_was_renamed() {
    // kubectl kustomize: a subject without a namespace stays without one unless the service
    // account was renamed or moved by a namespace transformer
    let dir = tempfile::tempdir().unwrap();
    let rbac = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  namespace: ns1\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: crb\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: view\nsubjects:\n- kind: ServiceAccount\n  name: sa\n";
    let cases = [
        ("", "subjects:\n- kind: ServiceAccount\n  name: sa\n"),
        (
            "namePrefix: p-\n",
            "subjects:\n- kind: ServiceAccount\n  name: p-sa\n  namespace: ns1\n",
        ),
        (
            "namespace: ns2\n",
            "subjects:\n- kind: ServiceAccount\n  name: sa\n  namespace: ns2\n",
        ),
    ];
    for (extra, want) in cases {
        write(
            dir.path(),
            &[
                (
                    "kustomization.yaml",
                    &format!("resources:\n- rbac.yaml\n{extra}"),
                ),
                ("rbac.yaml", rbac),
            ],
        );
        let out = to_yaml(&build(dir.path(), &options()).unwrap());
        assert!(out.ends_with(want), "{extra}: {out}");
    }
}

#[test]
fn b6_folded_scalar_postbuild_built_objects_hold_the_printed_text() {
    // kubectl kustomize prints `|-\n  [\n\n    {"a": 1}\n  ]` for this folded value: every reader
    // of the built objects (JSON output, post-build substitution) must see that text.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("kustomization.yaml", "resources:\n- cm.yaml\n"),
            (
                "cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  rules: >-\n    [\n      {\"a\": 1}\n    ]\n  plain: >\n    a\n    b\n",
            ),
        ],
    );
    let built = build(dir.path(), &options()).unwrap();
    let data = built.objects[0].get("data").unwrap();
    assert_eq!(
        data.get("rules").and_then(|n| n.as_str()),
        Some("[\n\n  {\"a\": 1}\n]")
    );
    assert_eq!(data.get("plain").and_then(|n| n.as_str()), Some("a b\n"));
    let out = to_yaml(&built);
    assert!(
        out.contains("  plain: |\n    a b\n  rules: |-\n    [\n\n      {\"a\": 1}\n    ]\n"),
        "{out}"
    );
}

/// Transformers take the resource list, their field and (where they read files) the loader:
/// no kustomization, target or file is needed to run one.
mod in_memory {
    use std::path::Path;

    use super::super::error::Error;
    use super::super::fieldspec::Config;
    use super::super::loader::Loader;
    use super::super::resmap::{absorb, append};
    use super::super::resource::{Behavior, Res};
    use super::super::{patch_wiring, transform, Options};
    use offlux_yaml::{parse_stream, Node, ParseOptions};

    fn nodes(text: &str) -> Vec<Node> {
        parse_stream(text, &ParseOptions::default())
            .map(|docs| docs.into_iter().map(|d| d.into_root()).collect())
            .unwrap_or_default()
    }

    fn resources(text: &str) -> Vec<Res> {
        nodes(text).into_iter().map(Res::new).collect()
    }

    fn field(text: &str) -> Node {
        nodes(text).into_iter().next().unwrap_or_else(Node::null)
    }

    fn get<'r>(r: &'r Res, path: &[&str]) -> Option<&'r str> {
        r.node.get_path(path).and_then(Node::as_str)
    }

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: old\n";

    fn fail(entry: Option<String>, message: String) -> Error {
        Error::Kustomization {
            file: "kustomization.yaml".into(),
            entry,
            message,
        }
    }

    #[test]
    fn namespace_and_common_labels_fields_on_a_list() -> Result<(), Error> {
        let mut list = resources(DEPLOYMENT);
        let config = Config::default();
        transform::namespace_field(Some(&field("prod")), &mut list, &config, &fail)?;
        transform::common_labels_field(Some(&field("team: a")), &mut list, &config);
        let [web, ns] = list.as_slice() else {
            panic!("two resources expected, got {}", list.len());
        };
        assert_eq!(get(web, &["metadata", "namespace"]), Some("prod"));
        assert_eq!(get(ns, &["metadata", "name"]), Some("prod"));
        for path in [
            &["metadata", "labels", "team"][..],
            &["spec", "selector", "matchLabels", "team"],
            &["spec", "template", "metadata", "labels", "team"],
        ] {
            assert_eq!(get(web, path), Some("a"), "{path:?}");
        }
        Ok(())
    }

    #[test]
    fn an_inline_patch_needs_no_file() -> Result<(), Error> {
        let options = Options::default();
        let loader = Loader::new(&options);
        let mut list = resources(DEPLOYMENT);
        let patches = field(
            "- target:\n    kind: Deployment\n  patch: |-\n    - op: add\n      path: /spec/replicas\n      value: 3\n",
        );
        let dir = Path::new("/nowhere");
        patch_wiring::patches_field(&loader, None, dir, Some(&patches), &mut list, &fail)?;
        assert_eq!(
            list.first().and_then(|r| get(r, &["spec", "replicas"])),
            Some("3")
        );
        // a patch file that is not there is the loader's error, with the entry
        let missing = field("- path: absent.yaml\n");
        let err = patch_wiring::patches_field(&loader, None, dir, Some(&missing), &mut list, &fail);
        let err = err.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            err.starts_with("in kustomization kustomization.yaml: patches[0]: "),
            "{err}"
        );
        assert!(err.contains("absent.yaml' doesn't exist"), "{err}");
        Ok(())
    }

    #[test]
    fn the_resource_map_refuses_a_second_id_and_absorbs_by_behaviour() {
        let mut list = resources(DEPLOYMENT);
        let again = resources(DEPLOYMENT).into_iter().next();
        let err = again.map(|r| append(&mut list, r));
        assert!(
            matches!(&err, Some(Err(m)) if m.starts_with("may not add resource with an already registered id")),
            "{err:?}"
        );
        let mut merged = Res::new(field(
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: old\n  labels:\n    x: y\n",
        ));
        merged.behavior = Some(Behavior::Replace);
        let replace = |existing: &mut Res, new: &Res| existing.node = new.node.clone();
        assert!(absorb(&mut list, merged, &replace).is_ok());
        assert_eq!(list.len(), 2);
        assert_eq!(
            list.get(1)
                .and_then(|r| get(r, &["metadata", "labels", "x"])),
            Some("y")
        );
    }
}
