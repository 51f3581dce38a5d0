//! Flux post-build substitution of whole objects (`substitute::substitute_document`), which needs the
//! YAML parser and emitter. The objects below are what `kustomize build` prints for the fluxcd/pkg
//! post-build scenarios (`kustomize/testdata/...`), so each test is one of those scenarios minus the
//! build step.

use std::collections::BTreeMap;

use offlux::substitute::{substitute_document, ErrorKind, Options};
use offlux::yaml::{self, Node};

fn parse_one(text: &str) -> Node {
    let docs = yaml::parse_stream(text, &yaml::ParseOptions::default()).expect("valid YAML");
    assert_eq!(docs.len(), 1, "one document expected in {text}");
    docs.into_iter()
        .next()
        .map(|d| d.into_root())
        .unwrap_or_default()
}

fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn substituted(text: &str, vars: &BTreeMap<String, String>, options: &Options) -> String {
    let doc = parse_one(text);
    let out = substitute_document(doc.clone(), vars, options).expect("substitution succeeds");
    yaml::emit(&out)
}

const DEPLOYMENT: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    environment: ${cluster_env:=dev}
    region: ${cluster_region}
  name: app
  namespace: apps
spec:
  selector:
    matchLabels:
      app: app
  template:
    metadata:
      annotations:
        prometheus.io/port: ${prometheus_port}
        prometheus.io/scrape: ${prometheus_scrape:=false}
      labels:
        app: app
    spec:
      containers:
      - image: ${image}
        imagePullPolicy: IfNotPresent
        name: nginx
        resources:
          limits:
            cpu: 2000m
            memory: 512Mi
          requests:
            cpu: 100m
            memory: 64Mi
"#;

const DEPLOYMENT_EXPECTED: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    environment: prod
    region: eu-central-1
  name: app
  namespace: apps
spec:
  selector:
    matchLabels:
      app: app
  template:
    metadata:
      annotations:
        prometheus.io/port: "9797"
        prometheus.io/scrape: "true"
      labels:
        app: app
    spec:
      containers:
      - image: nginx:1.21.4
        imagePullPolicy: IfNotPresent
        name: nginx
        resources:
          limits:
            cpu: 2000m
            memory: 512Mi
          requests:
            cpu: 100m
            memory: 64Mi
"#;

/// The variables of TestKustomization_Varsub: the ConfigMap `app-vars` overridden by the inline
/// `postBuild.substitute` (the ConfigMap values carry their own quotes).
fn varsub_vars() -> BTreeMap<String, String> {
    vars(&[
        ("cluster_env", "prod"),
        ("cluster_region", "eu-central-1"),
        ("image", "nginx:1.21.4"),
        ("prometheus_port", "\"9797\""),
        ("prometheus_scrape", "\"true\""),
    ])
}

#[test]
fn varsub_scenario_substitutes_the_deployment() {
    let got = substituted(DEPLOYMENT, &varsub_vars(), &Options::default());
    assert_eq!(got, yaml::emit(&parse_one(DEPLOYMENT_EXPECTED)));
}

#[test]
fn varsub_scenario_leaves_a_disabled_config_map_alone() {
    let config = r#"apiVersion: v1
data:
  image: ${image}
  prometheus_port: ${prometheus_port}
  prometheus_scrape: ${prometheus_scrape:=false}
kind: ConfigMap
metadata:
  labels:
    environment: ${cluster_env:=dev}
    kustomize.toolkit.fluxcd.io/substitute: disabled
    region: ${cluster_region}
  name: app-vars
  namespace: apps
"#;
    let doc = parse_one(config);
    let out =
        substitute_document(doc.clone(), &varsub_vars(), &Options::default()).expect("no error");
    assert_eq!(out, doc);
}

const ALWAYS: &str = r#"apiVersion: v1
data:
  region: ${cluster_region:=eu-central-1}
kind: ConfigMap
metadata:
  labels:
    environment: ${cluster_env:=dev}
  name: app-vars-always
  namespace: apps
"#;

#[test]
fn without_vars_defaults_apply_only_when_always_is_set() {
    let off = substituted(ALWAYS, &BTreeMap::new(), &Options::default());
    assert!(off.contains("${cluster_env:=dev}"), "{off}");
    assert!(off.contains("${cluster_region:=eu-central-1}"), "{off}");

    let on = substituted(
        ALWAYS,
        &BTreeMap::new(),
        &Options {
            always: true,
            ..Options::default()
        },
    );
    assert!(on.contains("environment: dev"), "{on}");
    assert!(on.contains("region: eu-central-1"), "{on}");
    assert!(!on.contains("${"), "{on}");
}

/// `"${empty_inline}"` in the source prints unquoted after a build, so an empty value leaves an
/// empty plain scalar: a null.
const STRICT_EMPTY: &str = r#"apiVersion: v1
kind: ConfigMap
metadata:
  labels:
    from-configmap: ${empty_cm}
    from-inline: ${empty_inline}
    from-secret: ${empty_secret}
  name: app-vars-strict-empty
  namespace: apps
"#;

#[test]
fn strict_mode_accepts_variables_set_to_empty() {
    let strict = substituted(
        STRICT_EMPTY,
        &vars(&[("empty_inline", ""), ("empty_cm", ""), ("empty_secret", "")]),
        &Options {
            strict: true,
            ..Options::default()
        },
    );
    for line in [
        "from-inline: null",
        "from-configmap: null",
        "from-secret: null",
    ] {
        assert!(strict.contains(line), "{line} in {strict}");
    }
    assert!(!strict.contains("${"), "{strict}");

    // Omitting the variables outside strict mode gives the same object.
    let omitted = substituted(
        STRICT_EMPTY,
        &vars(&[("dummy", "unused")]),
        &Options::default(),
    );
    assert_eq!(omitted, strict);
}

const STRICT_MISSING: &str = r#"apiVersion: v1
data:
  missing: ${missing}
kind: ConfigMap
metadata:
  labels:
    environment: ${cluster_env:=dev}
    region: ${cluster_region}
  name: app-vars-strict
  namespace: apps
"#;

#[test]
fn strict_mode_fails_on_a_missing_variable_and_lax_mode_does_not() {
    let doc = parse_one(STRICT_MISSING);
    let vars = varsub_vars();
    let err = substitute_document(
        doc.clone(),
        &vars,
        &Options {
            strict: true,
            ..Options::default()
        },
    )
    .expect_err("strict mode fails");
    assert_eq!(
        err.kind,
        ErrorKind::VariableNotSet {
            name: "missing".into()
        }
    );
    assert!(err.to_string().contains("variable not set"), "{err}");

    let out =
        substitute_document(doc.clone(), &vars, &Options::default()).expect("lax mode succeeds");
    let text = yaml::emit(&out);
    assert!(text.contains("missing: null"), "{text}");
    assert!(text.contains("region: eu-central-1"), "{text}");
}

#[test]
fn keys_are_substituted_and_values_take_yaml_1_1_types() {
    let text = r#"apiVersion: v1
kind: Thing
metadata:
  name: x
spec:
  ${key}: kept
  enabled: ${flag}
  mode: ${mode}
  replicas: ${replicas}
  big: ${big}
  quoted: "${replicas}"
  kept_string: ${string}
"#;
    let vars = vars(&[
        ("key", "renamed"),
        ("flag", "on"),
        ("mode", "0644"),
        ("replicas", "3"),
        ("big", "1000000"),
        ("string", "\"3\""),
    ]);
    let out = substitute_document(parse_one(text), &vars, &Options::default()).expect("ok");
    let spec = out.get("spec").expect("spec");
    assert_eq!(spec.get("renamed").and_then(Node::as_str), Some("kept"));
    assert_eq!(spec.get("enabled").and_then(Node::as_str), Some("true"));
    assert_eq!(spec.get("mode").and_then(Node::as_str), Some("420"));
    assert_eq!(spec.get("replicas").and_then(Node::as_str), Some("3"));
    assert_eq!(spec.get("big").and_then(Node::as_str), Some("1000000"));
    // Quotes around an expression in the source do not survive: the object is printed before
    // substitution, and `${replicas}` needs no quotes there, so the result is the number 3.
    let quoted = spec
        .get("quoted")
        .and_then(Node::as_scalar)
        .expect("quoted scalar");
    assert_eq!(quoted.value, "3");
    assert!(!quoted.style.is_quoted(), "{quoted:?}");
    // Flux's documented way to keep a string: quotes inside the value.
    let kept = spec
        .get("kept_string")
        .and_then(Node::as_scalar)
        .expect("kept_string scalar");
    assert_eq!(kept.value, "3");
    assert!(kept.style.is_quoted(), "{kept:?}");
}

#[test]
fn substitution_that_breaks_the_yaml_is_an_error() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n";
    let err = substitute_document(
        parse_one(text),
        &vars(&[("name", "a: b: c")]),
        &Options::default(),
    )
    .expect_err("invalid YAML after substitution");
    assert!(matches!(err.kind, ErrorKind::Yaml(_)), "{err:?}");
}
