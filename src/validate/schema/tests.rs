use serde_json::json;

use super::*;

fn deployment(spec: Value) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "apps", "labels": {"app": "web"}},
        "spec": spec,
    })
}

fn apps_v1(kind: &str) -> GroupVersionKind {
    GroupVersionKind::new("apps", "v1", kind)
}

const POD_TEMPLATE: &str = r#"{"metadata": {"labels": {"app": "web"}},
  "spec": {"containers": [{"name": "web", "image": "nginx", "ports": [{"containerPort": 80}],
    "resources": {"limits": {"cpu": "100m", "memory": 1048576}}}]}}"#;

fn template() -> Value {
    serde_json::from_str(POD_TEMPLATE).unwrap()
}

#[test]
fn a_well_formed_deployment_is_valid_in_every_supported_version() {
    let object = deployment(json!({
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
        "template": template(),
    }));
    for minor in supported_minors() {
        let schemas = Schemas::new(*minor, []);
        assert_eq!(
            schemas.check(&apps_v1("Deployment"), &object),
            Verdict::Valid,
            "1.{minor}"
        );
    }
}

#[test]
fn a_misspelled_field_and_a_wrong_type_are_violations_with_their_paths() {
    let mut template = template();
    template["spec"]["containers"][0]["imagePullPolicey"] = json!("Always");
    let object = deployment(json!({
        "replicas": "two",
        "selector": {"matchLabels": {"app": "web"}},
        "template": template,
    }));
    let schemas = Schemas::new(33, []);
    let Verdict::Invalid(violations) = schemas.check(&apps_v1("Deployment"), &object) else {
        panic!("expected violations");
    };
    let paths: Vec<&str> = violations.iter().map(|v| v.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "$.spec.replicas",
            "$.spec.template.spec.containers[0].imagePullPolicey"
        ]
    );
    assert!(violations[0].message.contains("\"two\""), "{violations:?}");
    assert_eq!(
        violations[1].message,
        "field `imagePullPolicey` is not declared in the schema"
    );
}

/// A value postBuild left as `${VAR}` (its variable comes from what only the cluster holds)
/// is not judged by the schema: `replicas: ${REPLICAS}` is an integer once Flux substitutes it.
/// The same field with a plain wrong string still is.
#[test]
fn unsubstituted_placeholders_are_not_judged_but_wrong_values_are() {
    let object = |replicas: &str| {
        deployment(json!({
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": template(),
        }))
    };
    let schemas = Schemas::new(33, []);
    assert_eq!(
        schemas.check(&apps_v1("Deployment"), &object("${REPLICAS}")),
        Verdict::Valid
    );
    let Verdict::Invalid(violations) = schemas.check(&apps_v1("Deployment"), &object("two")) else {
        panic!("expected a violation");
    };
    assert_eq!(violations[0].path, "$.spec.replicas");
}

#[test]
fn kinds_without_a_schema_are_unknown_with_the_reason() {
    let schemas = Schemas::new(33, []);
    let object =
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
    let Verdict::Unknown(reason) = schemas.check(
        &GroupVersionKind::new("example.com", "v1", "Widget"),
        &object,
    ) else {
        panic!("expected unknown");
    };
    assert!(
        reason.contains("no CustomResourceDefinition for example.com/v1 Widget"),
        "{reason}"
    );
    let Verdict::Unknown(reason) = schemas.check(&apps_v1("Deploymint"), &object) else {
        panic!("expected unknown");
    };
    assert_eq!(reason, "Kubernetes 1.33 has no apps/v1 Deploymint");
    // One of Flux's own kinds whose CRD offlux does not carry says so.
    let alert = GroupVersionKind::new("notification.toolkit.fluxcd.io", "v1beta3", "Alert");
    let Verdict::Unknown(reason) = schemas.check(&alert, &object) else {
        panic!("expected unknown");
    };
    assert!(
        reason.contains("offlux does not carry this one of Flux's"),
        "{reason}"
    );
}

fn widget_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [
                {"name": "v1alpha1", "served": false, "storage": false},
                {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": {
                            "type": "object",
                            "required": ["size"],
                            "properties": {
                                "size": {"type": "integer", "minimum": 1},
                                "port": {"x-kubernetes-int-or-string": true},
                                "mode": {"type": "string", "enum": ["fast", "slow"]},
                                "min": {"type": "integer"},
                                "max": {"type": "integer"},
                                "values": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                            },
                            "x-kubernetes-validations": [
                                {"rule": "!has(self.min) || !has(self.max) || self.min <= self.max",
                                 "message": "min must not exceed max"},
                                {"rule": "self.mode == oldSelf.mode"},
                                {"rule": "quantity(self.port).isGreaterThan(quantity('1'))"},
                            ],
                        },
                    },
                }}},
            ],
        },
    })
}

fn widget(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget",
           "metadata": {"name": "w", "namespace": "apps", "labels": {"x": "y"}}, "spec": spec})
}

#[test]
fn custom_resources_are_checked_against_their_crd() {
    let crd = widget_crd();
    let schemas = Schemas::new(33, [&crd]);
    let gvk = GroupVersionKind::new("example.com", "v1", "Widget");
    let good = widget(
        json!({"size": 3, "port": "http", "mode": "fast", "min": 1, "max": 2,
                             "values": {"anything": {"goes": true}}}),
    );
    assert_eq!(schemas.check(&gvk, &good), Verdict::Valid);
    let bad = widget(json!({"size": 0, "port": 8080, "mode": "quick", "colour": "red"}));
    let Verdict::Invalid(violations) = schemas.check(&gvk, &bad) else {
        panic!("expected violations");
    };
    let paths: Vec<&str> = violations.iter().map(|v| v.path.as_str()).collect();
    assert_eq!(paths, ["$.spec.colour", "$.spec.mode", "$.spec.size"]);
    let missing = widget(json!({"port": 1}));
    let Verdict::Invalid(violations) = schemas.check(&gvk, &missing) else {
        panic!("expected violations");
    };
    assert!(
        violations[0]
            .message
            .contains("\"size\" is a required property"),
        "{violations:?}"
    );
    let Verdict::Unknown(reason) = schemas.check(
        &GroupVersionKind::new("example.com", "v1alpha1", "Widget"),
        &good,
    ) else {
        panic!("expected unknown");
    };
    assert!(
        reason.contains("not served by its CustomResourceDefinition (versions: v1)"),
        "{reason}"
    );
}

#[test]
fn cel_rules_that_evaluate_to_false_are_violations_and_others_are_passed_over() {
    let crd = widget_crd();
    let schemas = Schemas::new(33, [&crd]);
    let gvk = GroupVersionKind::new("example.com", "v1", "Widget");
    let Verdict::Invalid(violations) =
        schemas.check(&gvk, &widget(json!({"size": 1, "min": 5, "max": 2})))
    else {
        panic!("expected a violation");
    };
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].path, "$.spec");
    assert!(violations[0].message.starts_with("min must not exceed max"));
}

#[test]
fn json_paths_quote_what_is_not_an_identifier() {
    assert_eq!(json_path(""), "$");
    assert_eq!(
        json_path("/spec/containers/0/env"),
        "$.spec.containers[0].env"
    );
    assert_eq!(
        json_path("/metadata/annotations/example.com~1key"),
        "$.metadata.annotations[\"example.com/key\"]"
    );
}

#[test]
fn schemas_and_objects_as_deep_as_yaml_allows_are_checked_on_worker_threads() {
    // The YAML reader bounds nesting at 512: a CRD schema nests two levels per field.
    let levels = 256;
    let mut schema = json!({"type": "string"});
    let mut instance = json!("leaf");
    for _ in 0..levels {
        schema = json!({"type": "object", "properties": {"a": schema}});
        instance = json!({"a": instance});
    }
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "deeps.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Deep"},
                 "versions": [{"name": "v1", "served": true,
                               "schema": {"openAPIV3Schema": {"type": "object",
                                   "properties": {"spec": schema}}}}]},
    });
    let mut schemas = Schemas::new(33, [&crd]);
    let gvk = GroupVersionKind::new("example.com", "v1", "Deep");
    schemas.prepare(&[gvk.clone()].into_iter().collect());
    let object = json!({"apiVersion": "example.com/v1", "kind": "Deep",
                        "metadata": {"name": "d"}, "spec": instance});
    let verdicts = crate::parallel::map(&[0; 64], |_| schemas.check(&gvk, &object));
    assert!(
        verdicts.iter().all(|v| *v == Verdict::Valid),
        "{:?}",
        verdicts[0]
    );
}
