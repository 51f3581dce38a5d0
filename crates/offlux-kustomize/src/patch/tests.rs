//! Cases checked against `kubectl kustomize` v5.5.0 (the oracle) or taken from kustomize's own tests.
//! The data-driven ones live in `testdata/<engine>/<case>/`, with the oracle's `expected.yaml`.

use super::*;
use offlux_yaml::{emit_with, parse_stream, sort_keys, EmitOptions, Node};
use std::path::{Path, PathBuf};

fn yaml(text: &str) -> Node {
    let docs = parse_stream(text, &Default::default()).expect("test yaml parses");
    docs.into_iter()
        .next()
        .map(|d| d.into_root())
        .unwrap_or_default()
}

fn show(node: &Node) -> String {
    let mut node = node.clone();
    sort_keys(&mut node);
    emit_with(&node, &EmitOptions::default())
}

fn smp(target: &str, patch: &str) -> Result<String, PatchError> {
    smp_with(None, target, patch)
}

fn smp_with(custom: Option<&PatchSchema>, target: &str, patch: &str) -> Result<String, PatchError> {
    let target = yaml(target);
    let group_version = target
        .get("apiVersion")
        .and_then(Node::as_str)
        .unwrap_or("");
    let (group, version) = group_version
        .rsplit_once('/')
        .unwrap_or(("", group_version));
    let kind = target.get("kind").and_then(Node::as_str).unwrap_or("");
    let meta = patch_meta(custom, group, version, kind);
    Ok(match strategic_merge(target, &yaml(patch), meta)? {
        MergeOutcome::Merged(node) => show(&node),
        MergeOutcome::Deleted => "DELETED\n".to_owned(),
    })
}

/// Runs `apply` on every case directory under `testdata/<engine>`; `expected.yaml` holds the
/// oracle's output, or `ERROR` when the oracle refused the patch.
fn check_cases(engine: &str, apply: impl Fn(&Path) -> Result<String, PatchError>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/patch/testdata")
        .join(engine);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("testdata exists")
        .map(|e| e.expect("dir entry").path())
        .collect();
    dirs.sort();
    let mut failures = Vec::new();
    for dir in &dirs {
        let want = std::fs::read_to_string(dir.join("expected.yaml")).expect("expected.yaml");
        let got = match apply(dir) {
            Ok(text) => text,
            Err(e) if want.trim_end() == "ERROR" => {
                assert!(!e.to_string().is_empty());
                "ERROR".to_owned()
            }
            Err(e) => format!("error: {e}"),
        };
        if got.trim_end() != want.trim_end() {
            failures.push(format!(
                "{}:\n--- want\n{want}\n--- got\n{got}",
                dir.display()
            ));
        }
    }
    assert!(!dirs.is_empty());
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).expect("case file")
}

#[test]
fn strategic_merge_matches_kustomize() {
    check_cases("smp", |dir| {
        smp(&read(dir, "target.yaml"), &read(dir, "patch.yaml"))
    });
}

/// A kustomization's `openapi:` schema (`schema.json`) in place of the built-in metadata.
#[test]
fn custom_openapi_schema_matches_kustomize() {
    check_cases("openapi", |dir| {
        let schema = PatchSchema::from_openapi(&yaml(&read(dir, "schema.json")))?;
        smp_with(
            Some(&schema),
            &read(dir, "target.yaml"),
            &read(dir, "patch.yaml"),
        )
    });
}

/// Patches applied in turn: `patch-N.yaml` (strategic merge) and `ops-N.yaml` (JSON 6902).
#[test]
fn patch_sequences_match_kustomize() {
    check_cases("sequence", |dir| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("case dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("patch") || n.starts_with("ops"))
            .collect();
        names.sort_by_key(|n| n.rsplit('-').next().map(str::to_owned));
        let mut current = read(dir, "target.yaml");
        for name in names {
            if current == "DELETED\n" {
                break;
            }
            current = if name.starts_with("ops") {
                show(&apply_json6902(&yaml(&current), &yaml(&read(dir, &name)))?)
            } else {
                smp(&current, &read(dir, &name))?
            };
        }
        Ok(current)
    });
}

#[test]
fn json6902_matches_kustomize() {
    check_cases("json6902", |dir| {
        let out = apply_json6902(
            &yaml(&read(dir, "target.yaml")),
            &yaml(&read(dir, "ops.yaml")),
        )?;
        Ok(show(&out))
    });
}

#[test]
fn top_level_delete_deletes_the_object() {
    let got = smp(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n$patch: delete\n",
    );
    assert_eq!(got.as_deref(), Ok("DELETED\n"));
}

#[test]
fn smp_errors_name_the_path() {
    let err = smp("kind: X\nspec: {a: 1}\n", "spec: {a: {b: 1}}\n").unwrap_err();
    assert!(err.to_string().contains("`spec.a`"), "{err}");
    let err = smp("kind: X\n", "spec: {$patch: remove}\n").unwrap_err();
    assert!(
        err.to_string().contains("unknown `$patch` directive"),
        "{err}"
    );
    assert!(smp("kind: X\n", "- a\n").is_err());
}

#[test]
fn json6902_errors_name_index_and_path() {
    let target = yaml("a: {b: [1, 2]}\n");
    let cases = [
        ("- {op: remove, path: /a/b/5}", 0, "/a/b/5", "out of bounds"),
        (
            "- {op: add, path: /a/c, value: 1}\n- {op: remove, path: /x}",
            1,
            "/x",
            "missing key",
        ),
        ("- {op: frob, path: /a}", 0, "/a", "unknown operation"),
        (
            "- {op: add, path: a, value: 1}",
            0,
            "a",
            "does not start with",
        ),
        (
            "- {op: add, path: /a/b/x, value: 1}",
            0,
            "/a/b/x",
            "not a list index",
        ),
        (
            "- {op: add, path: /a/b/3, value: 1}",
            0,
            "/a/b/3",
            "out of bounds",
        ),
        (
            "- {op: move, from: /a, path: /a/z}",
            0,
            "/a/z",
            "into itself",
        ),
        ("- {op: add, path: /a/q}", 0, "/a/q", "no `value`"),
        ("- {op: remove, path: ''}", 0, "", "whole document"),
    ];
    for (ops, index, path, message) in cases {
        match apply_json6902(&target, &yaml(ops)) {
            Err(PatchError::Json6902 {
                index: i,
                path: p,
                message: m,
                ..
            }) => {
                assert_eq!((i, p.as_str()), (index, path), "{ops}");
                assert!(m.contains(message), "{ops}: {m}");
            }
            other => panic!("{ops}: expected an error, got {other:?}"),
        }
    }
}

#[test]
fn json6902_whole_document_and_append() {
    let out = apply_json6902(&yaml("a: 1\n"), &yaml("- {op: add, path: '', value: {b: [x]}}\n- {op: add, path: /b/-, value: y}\n- {op: add, path: /b/1, value: m}\n")).unwrap();
    assert_eq!(show(&out), "b:\n- x\n- m\n- \"y\"\n");
}

fn get_texts(doc: &Node, path: &str) -> Vec<String> {
    let path = FieldPath::parse(path).expect("path parses");
    field_path_get(doc, &path)
        .expect("path applies")
        .into_iter()
        .map(|n| n.as_str().map(str::to_owned).unwrap_or_else(|| show(n)))
        .collect()
}

const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    config.kubernetes.io/local-config: \"true\"
spec:
  containers:
  - name: nginx
    image: nginx:1
    env:
    - {name: A, value: a}
  - name: sidecar
    image: busybox
    args: [x, y]
  ports:
  - port: 80
";

#[test]
fn field_path_get_selects() {
    let doc = yaml(POD);
    assert_eq!(
        get_texts(&doc, "spec.containers.[name=nginx].image"),
        ["nginx:1"]
    );
    assert_eq!(get_texts(&doc, "spec.containers.1.args.0"), ["x"]);
    assert_eq!(
        get_texts(&doc, "spec.containers.*.image"),
        ["nginx:1", "busybox"]
    );
    let through_list = FieldPath::parse("spec.containers.image").unwrap();
    let err = field_path_get(&doc, &through_list).unwrap_err();
    assert!(
        err.to_string()
            .contains("names a field, but here is a list"),
        "{err}"
    );
    assert_eq!(
        get_texts(&doc, "spec.containers.[name=sidecar].args.[=y]"),
        ["y"]
    );
    assert_eq!(
        get_texts(
            &doc,
            "metadata.annotations.[config.kubernetes.io/local-config]"
        ),
        ["true"]
    );
    assert_eq!(
        get_texts(&doc, "spec.containers.[image=nginx:1].env.[name=A].value"),
        ["a"]
    );
    assert!(get_texts(&doc, "spec.containers.5.image").is_empty());
    assert!(get_texts(&doc, "spec.nothing.here").is_empty());
    let slashed = FieldPath::parse_slashed("spec/containers/image").unwrap();
    assert_eq!(field_path_get(&doc, &slashed).map(|v| v.len()), Ok(2));
    let escaped =
        FieldPath::parse_slashed("metadata/annotations/config.kubernetes.io\\/local-config")
            .unwrap();
    assert_eq!(field_path_get(&doc, &escaped).map(|v| v.len()), Ok(1));
}

#[test]
fn list_fields_in_field_specs_are_never_created() {
    let mut doc = yaml("spec: {template: {spec: {containers: []}}}\n");
    let labels = FieldPath::parse_slashed("spec/volumeClaimTemplates[]/metadata/labels").unwrap();
    let create = SetOptions { create: true };
    assert_eq!(
        field_path_set(&mut doc, &labels, &yaml("{a: b}"), create),
        Ok(0)
    );
    assert!(doc.get_path(&["spec", "volumeClaimTemplates"]).is_none());
    let mut doc = yaml("spec: {volumeClaimTemplates: [{metadata: {name: x}}, {}]}\n");
    assert_eq!(
        field_path_set(&mut doc, &labels, &yaml("{a: b}"), create),
        Ok(2)
    );
    assert_eq!(field_path_get(&doc, &labels).map(|v| v.len()), Ok(2));
}

#[test]
fn field_path_parse_errors() {
    for bad in ["a..b", "a.[b", "a.[b]c", ""] {
        assert!(FieldPath::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn field_path_set_and_create() {
    let mut doc = yaml(POD);
    let set = |doc: &mut Node, path: &str, value: &str, create: bool| {
        let path = FieldPath::parse(path).unwrap();
        field_path_set(doc, &path, &yaml(value), SetOptions { create })
    };
    assert_eq!(
        set(
            &mut doc,
            "spec.containers.*.imagePullPolicy",
            "Always",
            false
        ),
        Ok(0)
    );
    assert_eq!(
        set(
            &mut doc,
            "spec.containers.*.imagePullPolicy",
            "Always",
            true
        ),
        Ok(2)
    );
    assert_eq!(
        get_texts(&doc, "spec.containers.*.imagePullPolicy"),
        ["Always", "Always"]
    );
    // As `kubectl kustomize` replacements with `create: true` do: a new list, then its element 0.
    assert_eq!(
        set(
            &mut doc,
            "spec.containers.[name=nginx].ports.0.containerPort",
            "8080",
            true
        ),
        Ok(1)
    );
    assert_eq!(
        get_texts(&doc, "spec.containers.0.ports.0.containerPort"),
        ["8080"]
    );
    let through_list = FieldPath::parse("spec.containers.image").unwrap();
    let create = SetOptions { create: true };
    assert!(field_path_set(&mut doc, &through_list, &yaml("x"), create).is_err());
    assert_eq!(
        set(
            &mut doc,
            "spec.containers.[name=nginx].image",
            "nginx:2",
            false
        ),
        Ok(1)
    );
    assert_eq!(get_texts(&doc, "spec.containers.0.image"), ["nginx:2"]);
    assert_eq!(set(&mut doc, "spec.tls.0.hosts.0", "h", true), Ok(1));
    assert_eq!(get_texts(&doc, "spec.tls.0.hosts"), ["- h\n"]);
    assert_eq!(
        set(&mut doc, "spec.containers.[name=third].image", "i", true),
        Ok(1)
    );
    assert_eq!(get_texts(&doc, "spec.containers.2.name"), ["third"]);
    assert_eq!(
        set(
            &mut doc,
            "metadata.labels.[app.kubernetes.io/name]",
            "x",
            true
        ),
        Ok(1)
    );
    assert_eq!(
        get_texts(&doc, "metadata.labels.[app.kubernetes.io/name]"),
        ["x"]
    );
    let err = set(&mut doc, "spec.tls.5.hosts.5", "h", true).unwrap_err();
    assert!(err.to_string().contains("spec.tls.5.hosts.5"), "{err}");
    assert!(set(&mut doc, "metadata.name.deeper", "x", true).is_err());
}

#[test]
fn field_path_update_sees_created_places_as_null() {
    let mut doc = yaml("metadata: {name: a}\n");
    let path = FieldPath::parse_slashed("metadata/labels").unwrap();
    let n = field_path_update(&mut doc, &path, SetOptions { create: true }, |slot| {
        if !slot.is_null() {
            return Err("expected a new place".into());
        }
        *slot = yaml("{app: x}");
        Ok(())
    });
    assert_eq!(n, Ok(1));
    assert_eq!(get_texts(&doc, "metadata.labels.app"), ["x"]);
    let failing = field_path_update(&mut doc, &path, SetOptions::default(), |_| {
        Err("nope".into())
    });
    assert!(matches!(failing, Err(PatchError::FieldPath { .. })));
}

mod no_panics {
    //! Random trees and paths: every engine returns, with a result or an error, and never panics.
    use super::*;
    use offlux_yaml::{Mapping, Scalar, Sequence};
    use proptest::prelude::*;

    const KEYS: &[&str] = &[
        "a",
        "name",
        "$patch",
        "spec",
        "template",
        "containers",
        "ports",
        "port",
        "protocol",
        "containerPort",
        "metadata",
        "finalizers",
        "env",
        "value",
        "op",
        "path",
        "from",
        "-",
        "0",
    ];
    const SCALARS: &[&str] = &[
        "null",
        "1",
        "x",
        "delete",
        "replace",
        "merge",
        "TCP",
        "add",
        "remove",
        "move",
        "copy",
        "test",
        "/a",
        "/spec/containers/0",
        "/-",
        "-1",
        "",
    ];

    fn node() -> impl Strategy<Value = Node> {
        let leaf = prop::sample::select(SCALARS).prop_map(|s| Node::Scalar(Scalar::plain(s)));
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(|items| {
                    Node::Sequence(Sequence {
                        items,
                        ..Sequence::default()
                    })
                }),
                prop::collection::vec((prop::sample::select(KEYS), inner), 0..5).prop_map(
                    |entries| {
                        let mut m = Mapping::new();
                        for (k, v) in entries {
                            m.insert(k, v);
                        }
                        Node::Mapping(m)
                    }
                ),
            ]
        })
    }

    proptest! {
        #[test]
        fn strategic_merge_never_panics(target in node(), patch in node()) {
            let meta = patch_meta(None, "apps", "v1", "Deployment");
            let _ = strategic_merge(target.clone(), &patch, meta);
            let _ = strategic_merge(target, &patch, PatchMetaFor::none());
        }

        #[test]
        fn json6902_never_panics(target in node(), ops in node()) {
            let _ = apply_json6902(&target, &ops);
        }

        #[test]
        fn field_paths_never_panic(mut target in node(), path in "[a-z0-9.*=\\[\\]/-]{0,24}") {
            for parsed in [FieldPath::parse(&path), FieldPath::parse_slashed(&path)].into_iter().flatten() {
                let _ = field_path_get(&target, &parsed);
                let _ = field_path_set(&mut target, &parsed, &Node::null(), SetOptions { create: true });
            }
        }
    }
}
