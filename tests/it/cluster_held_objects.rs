//! ConfigMaps and Secrets the bootstrap or the cluster holds: a `substituteFrom` object that no
//! Kustomization produces is taken from the one repository file defining it (with a note naming
//! the file); otherwise the failure says what was looked for and how to supply it, and
//! `--substitute-from` objects without a namespace, or `--substitute` values, stand in for it.
//! Issue 23, item 5.

use std::path::Path;

use assert_cmd::Command;

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// `clusters/prod` holds the root Kustomization (applying `apps/`, whose ConfigMap uses
/// `${CLUSTER}` from `cluster-settings`); with `settings` the ConfigMap is in
/// `clusters/prod/bootstrap/settings.yaml`, beside but outside what the root applies.
fn fixture(root: &Path, settings: bool) {
    write(
        root,
        "clusters/prod/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [apps.yaml]\n",
    );
    write(
        root,
        "clusters/prod/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  path: ./apps\n  sourceRef: {kind: GitRepository, name: flux-system}\n  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: cluster-settings}\n",
    );
    write(
        root,
        "apps/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: default}\ndata: {cluster: '${CLUSTER}'}\n",
    );
    write(
        root,
        "flux.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\nspec:\n  path: ./clusters/prod\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    if settings {
        write(
            root,
            "clusters/prod/bootstrap/settings.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-settings, namespace: flux-system}\ndata: {CLUSTER: prod}\n",
        );
    }
}

fn build(root: &Path, extra: &[&str]) -> std::process::Output {
    offlux(&["build", "all"], root, extra)
}

fn offlux(command: &[&str], root: &Path, extra: &[&str]) -> std::process::Output {
    Command::cargo_bin("offlux")
        .expect("binary")
        .env("NO_COLOR", "1")
        .args(command)
        .args(["--log-level", "info", "--path"])
        .arg(root)
        .arg("--root")
        .arg(root)
        .args(extra)
        .output()
        .expect("runs")
}

#[test]
fn an_object_only_the_bootstrap_applies_is_used_and_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path(), true);
    let output = build(dir.path(), &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("cluster: prod"), "{stdout}");
    // The test report says where the object came from.
    let output = offlux(&["test"], dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("is produced by no Kustomization; using its definition in `clusters/prod/bootstrap/settings.yaml`"),
        "{stderr}"
    );
}

#[test]
fn a_missing_object_says_how_to_supply_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path(), false);
    let output = build(dir.path(), &[]);
    assert_ne!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stderr).replace('\n', " ");
    assert!(
        text.contains("ConfigMap flux-system/cluster-settings")
            && text.contains("--substitute-from"),
        "{text}"
    );
}

#[test]
fn supplied_objects_without_a_namespace_and_substitute_values_stand_in() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path(), false);
    let supplied = dir.path().join("supplied.yaml");
    std::fs::write(
        &supplied,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-settings}\ndata: {CLUSTER: given}\n",
    )
    .expect("write");
    let output = build(
        dir.path(),
        &["--substitute-from", supplied.to_str().expect("utf-8")],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("cluster: given"), "{stdout}");

    let output = build(dir.path(), &["--substitute", "CLUSTER=flag"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("cluster: flag"), "{stdout}");
}

/// A HelmRelease whose `valuesFrom` Secret an ExternalSecret makes in the cluster: offline its
/// values are left out, and when the chart then fails for want of them, what Flux would do is
/// unknowable here. With `--allow-missing-sources` the row is SKIPPED naming both causes; without
/// it, it fails with the same words; a release that left nothing out fails as the chart says.
fn release_fixture(root: &Path, values_from_secret: bool) {
    release_fixture_with(
        root,
        values_from_secret,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: demo}\ndata: {token: {{ required \"a token is required\" .Values.token | quote }}}\n",
    );
}

fn release_fixture_with(root: &Path, values_from_secret: bool, template: &str) {
    write(
        root,
        "flux.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\nspec:\n  path: ./apps\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    write(
        root,
        "charts/demo/Chart.yaml",
        "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
    );
    write(root, "charts/demo/templates/cm.yaml", template);
    let values_from = if values_from_secret {
        "  valuesFrom:\n    - {kind: Secret, name: demo-secret, valuesKey: token, targetPath: token}\n"
    } else {
        ""
    };
    write(
        root,
        "apps/release.yaml",
        &format!(
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: demo, namespace: default}}\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: ./charts/demo\n      sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}\n{values_from}"
        ),
    );
    write(
        root,
        "apps/external-secret.yaml",
        "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: demo-secret, namespace: default}\nspec:\n  secretStoreRef: {kind: ClusterSecretStore, name: vault}\n  target: {name: demo-secret}\n  data:\n    - {secretKey: token, remoteRef: {key: demo}}\n",
    );
}

fn release_row(root: &Path, extra: &[&str]) -> serde_json::Value {
    let output = offlux(&["test", "-o", "json"], root, extra);
    let rows: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("`test -o json` prints JSON");
    rows.as_array()
        .expect("rows")
        .iter()
        .find(|r| r["kind"] == "HelmRelease" && r["name"] == "demo")
        .cloned()
        .expect("the release has a row")
}

#[test]
fn a_release_failing_for_want_of_cluster_held_values_is_not_judged_offline() {
    let dir = tempfile::tempdir().expect("tempdir");
    release_fixture(dir.path(), true);

    let row = release_row(dir.path(), &["--allow-missing-sources"]);
    let message = row["message"].as_str().unwrap_or_default();
    assert_eq!(row["result"], "SKIPPED", "{row}");
    assert!(
        message.contains("values from Secret 'default/demo-secret' are left out")
            && message.contains("ExternalSecret/default/demo-secret")
            && message.contains("a token is required"),
        "{message}"
    );

    let row = release_row(dir.path(), &[]);
    assert_eq!(row["result"], "FAIL", "{row}");
    assert!(
        row["message"]
            .as_str()
            .is_some_and(|m| m.contains("are left out") && m.contains("a token is required")),
        "{row}"
    );

    let plain = tempfile::tempdir().expect("tempdir");
    release_fixture(plain.path(), false);
    let row = release_row(plain.path(), &["--allow-missing-sources"]);
    assert_eq!(row["result"], "FAIL", "{row}");
    let message = row["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("a token is required") && !message.contains("left out"),
        "{message}"
    );
}

/// A chart that asks the cluster for an object (`lookup`) and fails on the empty answer offline:
/// helm-controller's render would see the cluster's object, so the row is SKIPPED (with
/// `--allow-missing-sources`) naming `lookup` and the chart's error. A failure before any
/// `lookup` is the chart's own and FAILs.
#[test]
fn a_release_failing_after_a_cluster_lookup_is_not_judged_offline() {
    let after = "{{- $port := (index (lookup \"v1\" \"Service\" \"default\" \"kubernetes\").spec.ports 0).port }}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: demo}\ndata: {port: {{ $port | quote }}}\n";
    let dir = tempfile::tempdir().expect("tempdir");
    release_fixture_with(dir.path(), false, after);
    let row = release_row(dir.path(), &["--allow-missing-sources"]);
    assert_eq!(row["result"], "SKIPPED", "{row}");
    let message = row["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("(`lookup`)")
            && message.contains("nil pointer evaluating interface {}.ports"),
        "{message}"
    );

    let before = "{{- $token := required \"a token is required\" .Values.token }}\n{{- $svc := lookup \"v1\" \"Service\" \"default\" \"kubernetes\" }}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: demo}\ndata: {token: {{ $token | quote }}}\n";
    let dir = tempfile::tempdir().expect("tempdir");
    release_fixture_with(dir.path(), false, before);
    let row = release_row(dir.path(), &["--allow-missing-sources"]);
    assert_eq!(row["result"], "FAIL", "{row}");
    assert!(
        row["message"]
            .as_str()
            .is_some_and(|m| m.contains("a token is required") && !m.contains("lookup")),
        "{row}"
    );
}

/// Rows of `offlux test -o json`, by `Kind/namespace/name`: result and message.
fn rows(root: &Path, extra: &[&str]) -> std::collections::BTreeMap<String, (String, String)> {
    let output = offlux(&["test", "-o", "json"], root, extra);
    let rows: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&output.stderr));
    });
    rows.as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            let text = |key: &str| row[key].as_str().unwrap_or_default().to_owned();
            (
                format!("{}/{}/{}", text("kind"), text("namespace"), text("name")),
                (text("result"), text("message")),
            )
        })
        .collect()
}

/// An ObjectBucketClaim makes a ConfigMap (the bucket's endpoint) and a Secret (its credentials)
/// named after itself in its namespace (lib-bucket-provisioner `newBucketConfigMap`,
/// `newCredentialsSecret`): a HelmRelease taking values from them goes on without those values,
/// with a note naming the claim. A ConfigMap of another name is still not found.
#[test]
fn an_object_bucket_claim_makes_its_config_map_and_secret_in_the_cluster() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    release_fixture_with(
        root,
        false,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: demo}\ndata: {bucket: {{ .Values.bucket | default \"none\" | quote }}}\n",
    );
    write(
        root,
        "apps/bucket.yaml",
        "apiVersion: objectbucket.io/v1alpha1\nkind: ObjectBucketClaim\nmetadata: {name: loki-bucket, namespace: default}\nspec: {bucketName: loki, storageClassName: ceph-bucket}\n",
    );
    let release = |config_map: &str| {
        format!(
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: demo, namespace: default}}\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: ./charts/demo\n      sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}\n  valuesFrom:\n    - {{kind: ConfigMap, name: {config_map}, valuesKey: BUCKET_NAME, targetPath: bucket}}\n    - {{kind: Secret, name: loki-bucket, valuesKey: AWS_ACCESS_KEY_ID, targetPath: key}}\n"
        )
    };
    write(root, "apps/release.yaml", &release("loki-bucket"));
    let found = rows(root, &[]);
    let (result, message) = &found["HelmRelease/default/demo"];
    assert_eq!(result, "PASS", "{found:#?}");
    assert!(
        message.contains("values from ConfigMap 'default/loki-bucket' are left out: ObjectBucketClaim/default/loki-bucket produces it in the cluster")
            && message.contains("values from Secret 'default/loki-bucket' are left out"),
        "{message}"
    );

    write(root, "apps/release.yaml", &release("other-bucket"));
    let found = rows(root, &[]);
    let (result, message) = &found["HelmRelease/default/demo"];
    assert_eq!(result, "FAIL", "{found:#?}");
    assert!(
        message.contains("configmaps \"other-bucket\" not found"),
        "{message}"
    );
}

/// flux-operator's `checkDependencies` gets a ResourceSet's `dependsOn` objects from the cluster.
/// A Secret Cluster API makes for a `Cluster` in the run (`<cluster>-kubeconfig`) is assumed to
/// exist, with a note, and the set renders; a Secret nothing accounts for still stops it.
#[test]
fn a_resource_set_depending_on_a_cluster_api_kubeconfig_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "flux.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\nspec:\n  path: ./apps\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    write(
        root,
        "apps/cluster.yaml",
        "apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata: {name: spoke, namespace: spokes}\nspec: {topology: {classRef: {name: quick-start}}}\n",
    );
    let set = |secret: &str| {
        format!(
            "apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata: {{name: addons, namespace: spokes}}\nspec:\n  dependsOn:\n    - {{apiVersion: v1, kind: Secret, name: {secret}, namespace: spokes, ready: true}}\n  resources:\n    - apiVersion: v1\n      kind: ConfigMap\n      metadata: {{name: addons, namespace: spokes}}\n      data: {{cluster: spoke}}\n"
        )
    };
    write(root, "apps/set.yaml", &set("spoke-kubeconfig"));
    let found = rows(root, &[]);
    let (result, message) = &found["ResourceSet/spokes/addons"];
    assert_eq!(result, "PASS", "{found:#?}");
    assert!(
        message.contains(
            "dependency 'Secret/spokes/spoke-kubeconfig': Cluster/spokes/spoke makes it in the cluster; assumed to exist"
        ),
        "{message}"
    );
    let output = offlux(&["build", "all"], root, &[]);
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("cluster: spoke"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    write(root, "apps/set.yaml", &set("other-kubeconfig"));
    let found = rows(root, &[]);
    let (result, message) = &found["ResourceSet/spokes/addons"];
    assert_ne!(result, "PASS", "{found:#?}");
    assert!(message.contains("not found"), "{message}");
}

/// A Kustomization substituting from `tunnel-id` in `network`, applied by the bootstrap
/// Kustomization; `template` is written as `bootstrap/secrets.yaml.tpl` when given.
fn tunnel_fixture(root: &Path, template: Option<&str>) {
    write(
        root,
        "flux.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\nspec:\n  path: ./apps\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    write(
        root,
        "apps/tunnel.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: tunnel, namespace: network}\nspec:\n  path: ./tunnel\n  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n  postBuild:\n    substituteFrom:\n      - {kind: Secret, name: tunnel-id}\n",
    );
    write(
        root,
        "tunnel/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tunnel, namespace: network}\ndata: {id: '${TUNNEL_ID:=none}'}\n",
    );
    if let Some(template) = template {
        write(root, "bootstrap/secrets.yaml.tpl", template);
    }
}

/// A `substituteFrom` Secret that a bootstrap template defines (rendered with `op inject` or
/// Jinja and applied before Flux starts) is held by the cluster: the Kustomization goes on with
/// a note naming the template. One defined nowhere fails as kustomize-controller's
/// `LoadVariables` does, unless `--allow-missing-sources` says offline cannot know: SKIPPED.
#[test]
fn a_substitute_from_secret_of_a_bootstrap_template_is_held_by_the_cluster() {
    let dir = tempfile::tempdir().expect("tempdir");
    tunnel_fixture(
        dir.path(),
        Some(
            "{% for namespace in [\"network\"] %}\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ namespace }}\n{% endfor %}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: tunnel-id\n  namespace: network\nstringData:\n  TUNNEL_ID: op://kubernetes/cloudflare/TUNNEL_ID\n",
        ),
    );
    let found = rows(dir.path(), &[]);
    let (result, message) = &found["Kustomization/network/tunnel"];
    assert_eq!(result, "PASS", "{found:#?}");
    assert!(
        message.contains("substitute from 'Secret/tunnel-id': the bootstrap template `bootstrap/secrets.yaml.tpl`")
            && message.contains("its variables are unknown offline"),
        "{message}"
    );

    let nowhere = tempfile::tempdir().expect("tempdir");
    tunnel_fixture(nowhere.path(), None);
    let found = rows(nowhere.path(), &[]);
    let (result, message) = &found["Kustomization/network/tunnel"];
    assert_eq!(result, "FAIL", "{found:#?}");
    assert!(
        message.contains("secret \"tunnel-id\" not found") && message.contains("--substitute-from"),
        "{message}"
    );
    let found = rows(nowhere.path(), &["--allow-missing-sources"]);
    let (result, message) = &found["Kustomization/network/tunnel"];
    assert_eq!(result, "SKIPPED", "{found:#?}");
    assert!(
        message.contains("secret \"tunnel-id\" not found")
            && message.contains("whether the cluster holds it cannot be told offline"),
        "{message}"
    );
}

/// joryirving__home-ops `self-hosted/acars`, at its cluster's entry point: the ExternalSecret's
/// target names the Secret through a YAML anchor, the store is a ClusterSecretStore, and both
/// objects take their namespace from the kustomization's `namespace:`. The Secret is the
/// ExternalSecret's target in that namespace, so the Kustomization goes on with a note.
#[test]
fn a_substitute_from_secret_of_an_external_secret_in_a_kustomize_namespace_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/utility/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: cluster-apps, namespace: flux-system}\nspec:\n  path: ./apps/self-hosted\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    write(
        root,
        "apps/self-hosted/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: self-hosted\nresources: [./externalsecret.yaml, ./acars.yaml]\n",
    );
    write(
        root,
        "apps/self-hosted/externalsecret.yaml",
        "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: &name acarsdrama\nspec:\n  secretStoreRef: {kind: ClusterSecretStore, name: onepassword}\n  target:\n    name: *name\n    template:\n      data: {ACARS: '{{ .ACARS }}'}\n  dataFrom:\n    - extract: {key: acars}\n",
    );
    write(
        root,
        "apps/self-hosted/acars.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: &app acars\nspec:\n  path: ./apps/acars\n  postBuild:\n    substitute: {APP: *app}\n    substituteFrom:\n      - {kind: Secret, name: acarsdrama, optional: false}\n  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n",
    );
    write(
        root,
        "apps/acars/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: acars, namespace: self-hosted}\ndata: {app: '${APP}'}\n",
    );
    let output = Command::cargo_bin("offlux")
        .expect("binary")
        .env("NO_COLOR", "1")
        .args(["test", "-o", "json", "--path"])
        .arg(root.join("clusters/utility"))
        .arg("--root")
        .arg(root)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let rows: serde_json::Value = serde_json::from_str(&text).expect("JSON rows");
    let row = rows
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["name"] == "acars" && r["kind"] == "Kustomization")
        .cloned()
        .unwrap_or_else(|| panic!("no acars row: {text}"));
    assert_eq!(row["result"], "PASS", "{row}");
    assert!(
        row["message"].as_str().is_some_and(|m| m.contains(
            "substitute from 'Secret/acarsdrama': ExternalSecret/self-hosted/acarsdrama makes it in the cluster"
        )),
        "{row}"
    );
}
