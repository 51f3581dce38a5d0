use super::*;
use crate::yaml::{parse_stream, ParseOptions, Pos};

/// The objects of a YAML stream, as read from `file`.
pub(super) fn objects(text: &str, file: &str) -> Vec<Object> {
    parse_stream(text, &ParseOptions::default())
        .expect("yaml")
        .into_iter()
        .filter_map(|d| {
            let pos = Pos {
                line: d.pos.line,
                ..Pos::default()
            };
            Object::from_node(d.into_root(), PathBuf::from(file), pos)
                .ok()
                .flatten()
        })
        .collect()
}

/// The findings of every check but the schemas' (their fixtures are kept short).
fn run(sets: &[(&str, &[Object])], kube_minor: u64) -> Vec<Finding> {
    let severities = [(Code::SchemaViolation, None), (Code::SchemaUnknown, None)];
    run_with(
        sets,
        &Options {
            kube_minor,
            severities: severities.into_iter().collect(),
            ..Options::default()
        },
    )
}

fn run_with(sets: &[(&str, &[Object])], options: &Options) -> Vec<Finding> {
    let produced: Vec<Produced<'_>> = sets
        .iter()
        .flat_map(|(producer, objects)| {
            objects.iter().map(move |object| Produced {
                producer,
                object,
                from_chart: producer.starts_with("HelmRelease/"),
                namespace_known: !producer.contains("//"),
            })
        })
        .collect();
    validate(&produced, options)
}

fn codes(findings: &[Finding]) -> Vec<(&'static str, String)> {
    findings
        .iter()
        .map(|f| (f.code.as_str(), f.object.clone()))
        .collect()
}

const NAMESPACE: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n";

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: apps
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: nginx:1.27
          ports:
            - containerPort: 80
";

#[test]
fn a_clean_set_has_no_findings() {
    let ok = objects(
        &format!("{NAMESPACE}---\n{DEPLOYMENT}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n"),
        "apps/web.yaml",
    );
    let options = Options {
        kube_minor: 33,
        ..Options::default()
    };
    assert_eq!(
        run_with(&[("Kustomization/flux-system/apps", &ok)], &options),
        vec![]
    );
}

#[test]
fn the_same_object_from_two_producers_is_an_error_for_each() {
    let a = objects(&format!("{NAMESPACE}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: apps\n"), "a.yaml");
    let b = objects("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: apps\ndata:\n  k: v\n", "b.yaml");
    let findings = run(
        &[
            ("Kustomization/flux-system/a", &a),
            ("Kustomization/flux-system/b", &b),
        ],
        33,
    );
    assert_eq!(
        codes(&findings),
        vec![
            ("OFX101", "ConfigMap/apps/cfg".to_string()),
            ("OFX101", "ConfigMap/apps/cfg".to_string())
        ]
    );
    assert!(findings.iter().all(|f| f.severity == Severity::Error));
    assert!(findings[0]
        .message
        .contains("Kustomization/flux-system/a, Kustomization/flux-system/b"));
    // Identical copies, owner labels apart, are a warning.
    let c = objects("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: apps\n  labels:\n    kustomize.toolkit.fluxcd.io/name: c\ndata:\n  k: v\n", "c.yaml");
    let findings = run(
        &[
            ("Kustomization/flux-system/b", &b),
            ("Kustomization/flux-system/c", &c),
        ],
        33,
    );
    let duplicates: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.code == Code::DuplicateObject)
        .collect();
    assert_eq!(duplicates.len(), 2);
    assert!(
        duplicates.iter().all(|f| f.severity == Severity::Warning),
        "{findings:?}"
    );
}

#[test]
fn a_namespaced_object_without_namespace_is_an_error_unless_its_scope_is_unknown() {
    let set = objects(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n---\napiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names:\n    kind: Gadget\n",
        "x.yaml",
    );
    let findings = run(&[("HelmRelease/apps/web", &set)], 33);
    assert_eq!(
        codes(&findings),
        vec![
            ("OFX102", "Service//web".to_string()),
            ("OFX102", "Gadget//g".to_string())
        ]
    );
    assert_eq!(findings[0].path.as_deref(), Some("$.metadata.namespace"));
    assert_eq!(findings[0].line, 1);
    assert_eq!(findings[1].line, 11);
    // A producer without a namespace of its own (a loose file) is applied somewhere that decides.
    assert!(run(&[("HelmRelease//web", &set)], 33).is_empty());
}

#[test]
fn unsubstituted_variables_are_warned_with_their_path_and_escapes_are_not() {
    let set = objects(
        &format!("{NAMESPACE}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: apps\ndata:\n  ok: \"$${{LITERAL}} and $HOME\"\n  script: |\n    echo ${{HOME}}\n    exit 0\n  host: \"web.${{DOMAIN}}\"\n"),
        "cfg.yaml",
    );
    let findings = run(&[("Kustomization/flux-system/apps", &set)], 33);
    assert_eq!(
        codes(&findings),
        vec![("OFX103", "ConfigMap/apps/cfg".to_string())]
    );
    assert_eq!(findings[0].path.as_deref(), Some("$.data.host"));
    assert!(
        findings[0].message.contains("${DOMAIN}"),
        "{}",
        findings[0].message
    );
    assert_eq!(findings[0].severity, Severity::Warning);
}

#[test]
fn removed_and_deprecated_api_versions_depend_on_the_target_version() {
    let set = objects(
        &format!("{NAMESPACE}---\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: job\n  namespace: apps\n"),
        "job.yaml",
    );
    let at = |minor| codes(&run(&[("Kustomization/flux-system/apps", &set)], minor));
    assert_eq!(at(20), vec![]);
    assert_eq!(at(22), vec![("OFX105", "CronJob/apps/job".to_string())]);
    assert_eq!(at(25), vec![("OFX104", "CronJob/apps/job".to_string())]);
    // From a chart, whose choice may follow the offline capabilities: a warning.
    let findings = run(&[("HelmRelease/apps/job", &set)], 25);
    assert_eq!(findings[0].severity, Severity::Warning);
    assert!(findings[0].message.contains("offline .Capabilities"));
}

#[test]
fn namespaces_used_but_not_created_are_warned_once_and_annotations_opt_out() {
    let set = objects(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: team\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: team\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: kube-system\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n  namespace: other\n  annotations:\n    offlux.io/ignore: OFX106\n",
        "cm.yaml",
    );
    let findings = run(&[("Kustomization/flux-system/apps", &set)], 33);
    assert_eq!(
        codes(&findings),
        vec![("OFX106", "ConfigMap/team/a".to_string())]
    );
}

#[test]
fn severities_can_be_changed_or_turned_off() {
    let set = objects(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n",
        "s.yaml",
    );
    let object = &set[0];
    let produced = [Produced {
        producer: "HelmRelease/apps/web",
        object,
        from_chart: true,
        namespace_known: true,
    }];
    let mut options = Options {
        kube_minor: 33,
        ..Options::default()
    };
    options
        .severities
        .insert(Code::MissingNamespace, Some(Severity::Warning));
    assert_eq!(validate(&produced, &options)[0].severity, Severity::Warning);
    options.severities.insert(Code::MissingNamespace, None);
    assert!(validate(&produced, &options).is_empty());
}

fn set_text_with_ignore(deployment: &str) -> String {
    format!("{NAMESPACE}---\n{deployment}---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: a\n  namespace: apps\n  annotations:\n    offlux.io/ignore: OFX108\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: b\n  namespace: apps\n")
}

#[test]
fn schema_violations_name_the_field_and_unknown_kinds_are_warned_once_per_kind() {
    let broken = DEPLOYMENT
        .replace("  replicas: 1", "  replicas: one")
        .replace(
            "image: nginx:1.27",
            "imagePullPolicey: Always\n          image: nginx:1.27",
        );
    let set = objects(
        &format!("{NAMESPACE}---\n{broken}---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: a\n  namespace: apps\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: b\n  namespace: apps\n"),
        "apps/web.yaml",
    );
    let mut options = Options {
        kube_minor: 33,
        ..Options::default()
    };
    let findings = run_with(&[("Kustomization/flux-system/apps", &set)], &options);
    let summary: Vec<(&str, Severity, Option<&str>)> = findings
        .iter()
        .map(|f| (f.code.as_str(), f.severity, f.path.as_deref()))
        .collect();
    assert_eq!(
        summary,
        [
            ("OFX107", Severity::Error, Some("$.spec.replicas")),
            (
                "OFX107",
                Severity::Error,
                Some("$.spec.template.spec.containers[0].imagePullPolicey")
            ),
            ("OFX108", Severity::Warning, None),
        ]
    );
    assert_eq!(findings[0].object, "Deployment/apps/web");
    assert!(findings[1]
        .message
        .contains("`imagePullPolicey` is not declared"));
    assert!(
        findings[2]
            .message
            .contains("no CustomResourceDefinition for example.com/v1 Widget")
            && findings[2]
                .message
                .contains("2 objects of this kind are not checked"),
        "{}",
        findings[2].message
    );
    options.strict_schemas = true;
    let findings = run_with(&[("Kustomization/flux-system/apps", &set)], &options);
    assert_eq!(findings[2].severity, Severity::Error);
    // An object that opts out is not counted; the finding moves to the next one.
    let opted = set_text_with_ignore(&broken);
    let set = objects(&opted, "apps/web.yaml");
    let findings = run_with(&[("Kustomization/flux-system/apps", &set)], &options);
    let unknown = findings
        .iter()
        .find(|f| f.code == Code::SchemaUnknown)
        .expect("OFX108");
    assert_eq!(unknown.object, "Widget/apps/b");
    assert!(
        !unknown.message.contains("objects of this kind"),
        "{}",
        unknown.message
    );
}

#[test]
fn undeclared_fields_from_a_chart_are_warnings_and_wrong_values_stay_errors() {
    let broken = DEPLOYMENT
        .replace("  replicas: 1", "  replicas: one")
        .replace(
            "image: nginx:1.27",
            "imagePullPolicey: Always\n          image: nginx:1.27",
        );
    let set = objects(&format!("{NAMESPACE}---\n{broken}"), "apps/web.yaml");
    let options = Options {
        kube_minor: 33,
        ..Options::default()
    };
    let findings = run_with(&[("HelmRelease/apps/web", &set)], &options);
    let severities: Vec<(Option<&str>, Severity)> = findings
        .iter()
        .map(|f| (f.path.as_deref(), f.severity))
        .collect();
    assert_eq!(
        severities,
        [
            (Some("$.spec.replicas"), Severity::Error),
            (
                Some("$.spec.template.spec.containers[0].imagePullPolicey"),
                Severity::Warning
            ),
        ]
    );
    assert!(findings[1]
        .message
        .ends_with("(Helm's apply drops it with a warning)"));
}
