use crate::model::Object;
use crate::validate::{validate, Code, Finding, Options, Produced, Severity};

const NAMESPACE: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n---\n";

fn objects(text: &str) -> Vec<Object> {
    crate::validate::tests::objects(&format!("{NAMESPACE}{text}"), "apps.yaml")
}

/// The OFX109 findings on `text`, rendered by one Kustomization.
fn missing(text: &str) -> Vec<Finding> {
    let set = objects(text);
    let produced: Vec<Produced<'_>> = set
        .iter()
        .map(|object| Produced {
            producer: "Kustomization/flux-system/apps",
            object,
            from_chart: false,
            namespace_known: true,
        })
        .collect();
    validate(
        &produced,
        &Options {
            kube_minor: 33,
            ..Options::default()
        },
    )
    .into_iter()
    .filter(|f| f.code == Code::MissingReference)
    .collect()
}

/// `(path, message)` of each finding.
fn paths(findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .map(|f| f.path.clone().unwrap_or_default())
        .collect()
}

/// A Deployment in `apps` whose pod spec is `pod` (indented for `spec.template.spec`).
fn deployment(pod: &str) -> String {
    let pod: String = pod.lines().map(|l| format!("      {l}\n")).collect();
    format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  template:\n    spec:\n{pod}")
}

fn provider(kind: &str, name: &str, namespace: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
    )
}

const EVERY_KIND: &str = "serviceAccountName: runner
imagePullSecrets:
- name: registry
volumes:
- name: a
  configMap:
    name: settings
- name: b
  secret:
    secretName: tls
- name: c
  persistentVolumeClaim:
    claimName: data
- name: d
  projected:
    sources:
    - configMap:
        name: projected-cm
    - secret:
        name: projected-secret
initContainers:
- name: init
  envFrom:
  - configMapRef:
      name: init-env
containers:
- name: app
  envFrom:
  - secretRef:
      name: app-env
  env:
  - name: A
    valueFrom:
      configMapKeyRef:
        name: key-cm
        key: a
  - name: B
    valueFrom:
      secretKeyRef:
        name: key-secret
        key: b
ephemeralContainers:
- name: debug
  envFrom:
  - secretRef:
      name: debug-env
";

#[test]
fn every_kind_of_reference_is_missing_when_nothing_provides_it() {
    let findings = missing(&deployment(EVERY_KIND));
    let base = "$.spec.template.spec";
    assert_eq!(
        paths(&findings),
        [
            ".serviceAccountName",
            ".imagePullSecrets[0].name",
            ".volumes[0].configMap.name",
            ".volumes[1].secret.secretName",
            ".volumes[2].persistentVolumeClaim.claimName",
            ".volumes[3].projected.sources[0].configMap.name",
            ".volumes[3].projected.sources[1].secret.name",
            ".initContainers[0].envFrom[0].configMapRef.name",
            ".containers[0].envFrom[0].secretRef.name",
            ".containers[0].env[0].valueFrom.configMapKeyRef.name",
            ".containers[0].env[1].valueFrom.secretKeyRef.name",
            ".ephemeralContainers[0].envFrom[0].secretRef.name",
        ]
        .map(|p| format!("{base}{p}"))
    );
    assert!(findings.iter().all(|f| f.severity == Severity::Warning));
    assert_eq!(findings[0].object, "Deployment/apps/web");
    assert_eq!(findings[0].line, 6);
    assert_eq!(
        findings[1].message,
        "Deployment apps/web pulls images with Secret apps/registry, which nothing in the repository provides (the cluster may hold it)"
    );
    assert_eq!(
        findings[3].message,
        "Deployment apps/web mounts Secret apps/tls, which nothing in the repository provides (the cluster may hold it)"
    );
}

#[test]
fn every_kind_of_reference_is_provided_by_a_rendered_object_in_its_namespace() {
    let providers: String = [
        ("ServiceAccount", "runner"),
        ("Secret", "registry"),
        ("ConfigMap", "settings"),
        ("Secret", "tls"),
        ("PersistentVolumeClaim", "data"),
        ("ConfigMap", "projected-cm"),
        ("Secret", "projected-secret"),
        ("ConfigMap", "init-env"),
        ("Secret", "app-env"),
        ("ConfigMap", "key-cm"),
        ("Secret", "key-secret"),
        ("Secret", "debug-env"),
    ]
    .iter()
    .map(|(kind, name)| provider(kind, name, "apps"))
    .collect();
    let findings = missing(&format!("{}{providers}", deployment(EVERY_KIND)));
    assert_eq!(paths(&findings), Vec::<String>::new());
}

#[test]
fn a_provider_in_another_namespace_or_of_another_kind_does_not_count() {
    let pod = "volumes:\n- name: a\n  secret:\n    secretName: tls\n";
    let elsewhere = format!("{}{}", deployment(pod), provider("Secret", "tls", "other"));
    assert_eq!(missing(&elsewhere).len(), 1);
    let other_kind = format!(
        "{}{}",
        deployment(pod),
        provider("ConfigMap", "tls", "apps")
    );
    assert_eq!(missing(&other_kind).len(), 1);
}

#[test]
fn optional_references_are_not_required() {
    let pod = "volumes:
- name: a
  configMap:
    name: settings
    optional: true
- name: b
  secret:
    secretName: tls
    optional: true
- name: c
  projected:
    sources:
    - secret:
        name: projected
        optional: true
containers:
- name: app
  envFrom:
  - secretRef:
      name: env
      optional: true
  env:
  - name: A
    valueFrom:
      configMapKeyRef:
        name: key-cm
        key: a
        optional: true
";
    assert_eq!(paths(&missing(&deployment(pod))), Vec::<String>::new());
}

#[test]
fn templated_and_empty_names_and_the_builtin_objects_are_skipped() {
    let pod = "serviceAccountName: default
volumes:
- name: a
  configMap:
    name: kube-root-ca.crt
- name: b
  secret:
    secretName: '{{ .Values.secret }}'
- name: c
  secret:
    secretName: ''
- name: d
  persistentVolumeClaim:
    claimName: ${APP}-data
";
    assert_eq!(paths(&missing(&deployment(pod))), Vec::<String>::new());
}

#[test]
fn a_reference_made_twice_is_reported_once_and_the_deprecated_service_account_counts() {
    let pod = "serviceAccount: runner
containers:
- name: a
  envFrom:
  - secretRef:
      name: env
- name: b
  envFrom:
  - secretRef:
      name: env
";
    assert_eq!(
        paths(&missing(&deployment(pod))),
        [
            "$.spec.template.spec.serviceAccount",
            "$.spec.template.spec.containers[0].envFrom[0].secretRef.name",
        ]
    );
}

#[test]
fn every_workload_kind_is_checked_at_its_pod_spec() {
    let text = "apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: apps
spec:
  serviceAccountName: missing
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: c
  namespace: apps
spec:
  jobTemplate:
    spec:
      template:
        spec:
          serviceAccountName: missing
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: d
  namespace: apps
spec:
  template:
    spec:
      serviceAccountName: missing
---
apiVersion: example.com/v1
kind: Deployment
metadata:
  name: foreign
  namespace: apps
spec:
  template:
    spec:
      serviceAccountName: missing
";
    assert_eq!(
        paths(&missing(text)),
        [
            "$.spec.serviceAccountName",
            "$.spec.jobTemplate.spec.template.spec.serviceAccountName",
            "$.spec.template.spec.serviceAccountName",
        ]
    );
}

#[test]
fn a_stateful_sets_own_volume_claim_templates_are_provided() {
    let text = "apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: apps
spec:
  template:
    spec:
      volumes:
      - name: data
        persistentVolumeClaim:
          claimName: data
      - name: other
        persistentVolumeClaim:
          claimName: other
  volumeClaimTemplates:
  - metadata:
      name: data
";
    assert_eq!(
        paths(&missing(text)),
        ["$.spec.template.spec.volumes[1].persistentVolumeClaim.claimName"]
    );
}

#[test]
fn secrets_made_by_well_known_custom_resources_are_provided() {
    let pod = "volumes:
- name: a
  secret:
    secretName: from-external-secret
- name: b
  secret:
    secretName: named-external-secret
- name: c
  secret:
    secretName: web-tls
- name: d
  secret:
    secretName: sealed
- name: e
  secret:
    secretName: everywhere
- name: f
  secret:
    secretName: db-app
- name: g
  configMap:
    name: bucket
- name: h
  secret:
    secretName: elsewhere
";
    let generators = "---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: es
  namespace: apps
spec:
  target:
    name: from-external-secret
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: named-external-secret
  namespace: apps
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: web
  namespace: apps
spec:
  secretName: web-tls
---
apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata:
  name: sealed
  namespace: apps
---
apiVersion: external-secrets.io/v1
kind: ClusterExternalSecret
metadata:
  name: everywhere
---
apiVersion: postgresql.cnpg.io/v1
kind: Cluster
metadata:
  name: db
  namespace: apps
---
apiVersion: objectbucket.io/v1alpha1
kind: ObjectBucketClaim
metadata:
  name: bucket
  namespace: apps
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: elsewhere
  namespace: other
";
    assert_eq!(
        paths(&missing(&format!("{}{generators}", deployment(pod)))),
        ["$.spec.template.spec.volumes[7].secret.secretName"]
    );
}

#[test]
fn objects_without_a_namespace_and_opted_out_objects_are_not_judged() {
    let text = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: loose
spec:
  template:
    spec:
      serviceAccountName: missing
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: quiet
  namespace: apps
  annotations:
    offlux.io/ignore: OFX109
spec:
  template:
    spec:
      serviceAccountName: missing
";
    assert_eq!(paths(&missing(text)), Vec::<String>::new());
}

#[test]
fn secrets_made_by_certificate_jobs_and_the_rook_operator_are_provided() {
    let text = "apiVersion: batch/v1
kind: Job
metadata:
  name: admission-create
  namespace: apps
spec:
  template:
    spec:
      containers:
      - name: create
        image: registry.k8s.io/ingress-nginx/kube-webhook-certgen:v1.5.0
        args:
        - create
        - --namespace=$(POD_NAMESPACE)
        - --secret-name=web-admission
---
apiVersion: batch/v1
kind: Job
metadata:
  name: certgen
  namespace: apps
spec:
  template:
    spec:
      containers:
      - name: certgen
        image: mirror.gcr.io/envoyproxy/gateway:v1.9.0
        command: [envoy-gateway, certgen]
---
apiVersion: ceph.rook.io/v1
kind: CephCluster
metadata:
  name: ceph
  namespace: apps
---
";
    let pod = "volumes:
- name: a
  secret:
    secretName: web-admission
- name: b
  secret:
    secretName: envoy-gateway
- name: c
  secret:
    secretName: rook-ceph-mon
- name: d
  configMap:
    name: rook-ceph-mon-endpoints
- name: e
  secret:
    secretName: other-admission
";
    assert_eq!(
        paths(&missing(&format!("{text}{}", deployment(pod)))),
        ["$.spec.template.spec.volumes[4].secret.secretName"]
    );
}
