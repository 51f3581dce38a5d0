use super::*;
use std::path::Path;

fn objects(text: &str) -> Vec<Object> {
    crate::model::parse_objects(text, Path::new("apps/x.yaml")).unwrap_or_else(|e| panic!("{e:?}"))
}

fn producer(name: &str) -> ProducerKey {
    ProducerKey {
        kind: "Kustomization".to_owned(),
        namespace: "flux-system".to_owned(),
        name: name.to_owned(),
    }
}

fn pass() -> Outcome {
    Outcome::passed()
}

fn side<'a>(rendered: &[(&str, &'a [Object])], failed: &[&str]) -> Side<'a> {
    let mut statuses = BTreeMap::new();
    for (name, _) in rendered {
        statuses.insert(producer(name), pass());
    }
    for name in failed {
        statuses.insert(
            producer(name),
            Outcome {
                verdict: Verdict::Failed,
                cause: "kustomize build failed".to_owned(),
            },
        );
    }
    Side {
        rendered: rendered
            .iter()
            .map(|(name, objects)| (producer(name), objects.iter().collect()))
            .collect(),
        statuses,
        clusters: BTreeMap::new(),
    }
}

/// `side`, with each producer named in `clusters` applying to that cluster (`spec.kubeConfig`).
fn side_in<'a>(rendered: &[(&str, &'a [Object])], clusters: &[(&str, &str)]) -> Side<'a> {
    let mut side = side(rendered, &[]);
    side.clusters = clusters
        .iter()
        .map(|(name, cluster)| (producer(name), (*cluster).to_owned()))
        .collect();
    side
}

#[test]
fn same_named_objects_in_two_kube_config_clusters_are_two_objects() {
    let same = objects(&cm("app", "one"));
    let edited = objects(&cm("app", "two"));
    let clusters = [
        ("staging", "Secret/staging/kubeconfig"),
        ("production", "Secret/production/kubeconfig"),
    ];
    let report = compare(
        &side_in(&[("staging", &same), ("production", &same)], &clusters),
        &side_in(&[("staging", &edited), ("production", &same)], &clusters),
        &OPTIONS,
    );
    let changes: Vec<(String, String)> = report
        .producers
        .iter()
        .flat_map(|(p, r)| {
            r.objects
                .iter()
                .map(move |c| (p.name.clone(), c.object.to_string()))
        })
        .collect();
    assert_eq!(
        changes,
        vec![(
            "staging".to_owned(),
            "ConfigMap default/app on cluster Secret/staging/kubeconfig".to_owned()
        )]
    );
    // Production's change is found too, and neither is a move between the producers.
    let report = compare(
        &side_in(&[("staging", &same), ("production", &same)], &clusters),
        &side_in(&[("staging", &same), ("production", &edited)], &clusters),
        &OPTIONS,
    );
    let changed: Vec<(&str, Change)> = report
        .producers
        .iter()
        .flat_map(|(p, r)| r.objects.iter().map(move |c| (p.name.as_str(), c.change)))
        .collect();
    assert_eq!(changed, vec![("production", Change::Changed)]);
}

const OPTIONS: Options = Options {
    context: 3,
    strip: Vec::new(),
};

fn cm(name: &str, value: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: default\ndata:\n  key: {value}\n---\n")
}

#[test]
fn added_removed_changed_and_unchanged() {
    let base = objects(&(cm("same", "one") + &cm("edited", "one") + &cm("gone", "one")));
    let head = objects(&(cm("same", "one") + &cm("edited", "two") + &cm("new", "one")));
    let report = compare(
        &side(&[("apps", &base)], &[]),
        &side(&[("apps", &head)], &[]),
        &OPTIONS,
    );
    let apps = &report.producers[&producer("apps")];
    let summary: Vec<(&str, Change)> = apps
        .objects
        .iter()
        .map(|c| (c.object.name.as_str(), c.change))
        .collect();
    assert_eq!(
        summary,
        [
            ("edited", Change::Changed),
            ("gone", Change::Removed),
            ("new", Change::Added)
        ]
    );
    let edited = &apps.objects[0];
    assert!(
        edited.diff.contains("-  key: one\n+  key: two\n"),
        "{}",
        edited.diff
    );
    assert!(edited
        .diff
        .starts_with("--- base/ConfigMap/default/edited\n"));
    assert_eq!(report.status_changes(), 0);
}

#[test]
fn a_move_names_the_old_producer_and_a_version_bump_is_a_change() {
    let base = objects(&cm("moving", "1"));
    let head = objects(&cm("moving", "1"));
    let report = compare(
        &side(&[("infra", &base), ("apps", &[])], &[]),
        &side(&[("apps", &head), ("infra", &[])], &[]),
        &OPTIONS,
    );
    let change = &report.producers[&producer("apps")].objects[0];
    assert_eq!(change.change, Change::Moved);
    assert_eq!(change.from, Some(producer("infra")));
    assert!(change.diff.is_empty());
    assert!(!report.producers.contains_key(&producer("infra")));

    let v1 = objects(
        "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\n",
    );
    let v2 = objects(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\n",
    );
    let report = compare(
        &side(&[("apps", &v1)], &[]),
        &side(&[("apps", &v2)], &[]),
        &OPTIONS,
    );
    let change = &report.producers[&producer("apps")].objects[0];
    assert_eq!(change.change, Change::Changed);
    assert_eq!(change.api_version, "autoscaling/v2");
}

#[test]
fn secret_values_never_reach_the_diff() {
    let secret = |data: &str| {
        objects(&format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: default\n{data}"
        ))
    };
    let base = secret(
        "data:\n  password: aHVudGVyMg==\n  gone: b2xk\nstringData:\n  token: plain-old-token\n",
    );
    let head = secret(
        "data:\n  password: c3dvcmRmaXNo\n  fresh: bmV3\nstringData:\n  token: plain-new-token\n",
    );
    let report = compare(
        &side(&[("apps", &base)], &[]),
        &side(&[("apps", &head)], &[]),
        &OPTIONS,
    );
    let change = &report.producers[&producer("apps")].objects[0];
    assert_eq!(change.change, Change::Changed);
    let keys = change.secret_keys.clone().unwrap_or_default();
    assert_eq!(keys.added, ["fresh"]);
    assert_eq!(keys.removed, ["gone"]);
    assert_eq!(keys.changed, ["password", "token (stringData)"]);
    for value in [
        "aHVudGVyMg",
        "c3dvcmRmaXNo",
        "b2xk",
        "bmV3",
        "plain-old",
        "plain-new",
    ] {
        assert!(!change.diff.contains(value), "{value} in {}", change.diff);
    }
    assert!(
        change.diff.contains("+  fresh: <redacted>"),
        "{}",
        change.diff
    );

    // A Secret that is new, or gone, shows its keys and no value either.
    let report = compare(
        &side(&[("apps", &[])], &[]),
        &side(&[("apps", &head)], &[]),
        &OPTIONS,
    );
    let change = &report.producers[&producer("apps")].objects[0];
    assert_eq!(change.change, Change::Added);
    assert!(!change.diff.contains("c3dvcmRmaXNo"));
    assert!(change.diff.contains("password: <redacted>"));
}

#[test]
fn a_failed_producer_hides_nothing_and_invents_no_removals() {
    let base = objects(&cm("a", "1"));
    let report = compare(
        &side(&[("apps", &base)], &[]),
        &side(&[], &["apps"]),
        &OPTIONS,
    );
    let apps = &report.producers[&producer("apps")];
    assert!(apps.objects.is_empty());
    assert_eq!(apps.unknown, 1);
    let status = apps
        .status
        .clone()
        .unwrap_or_else(|| panic!("no status change"));
    assert_eq!(status.before, Some(pass()));
    assert!(status.after.is_some_and(|o| o.failed()));
    assert!(!report.is_empty());
}

/// A Kustomization applying a HelmRelease named `hello` with `replicas`.
fn release(replicas: u32) -> Vec<Object> {
    objects(&format!(
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: hello\n  namespace: apps\nspec:\n  values:\n    replicas: {replicas}\n"
    ))
}

fn hello() -> ProducerKey {
    ProducerKey {
        kind: "HelmRelease".to_owned(),
        namespace: "apps".to_owned(),
        name: "hello".to_owned(),
    }
}

fn skipped(cause: &str) -> Outcome {
    Outcome {
        verdict: Verdict::Skipped,
        cause: cause.to_owned(),
    }
}

#[test]
fn a_release_not_rendered_on_either_side_is_listed_with_its_edit() {
    let (before, after) = (release(1), release(2));
    let mut base = side(&[("apps", &before)], &[]);
    let mut head = side(&[("apps", &after)], &[]);
    base.statuses
        .insert(hello(), skipped("chart not in the cache"));
    head.statuses
        .insert(hello(), skipped("chart not in the cache"));
    let report = compare(&base, &head, &OPTIONS);
    assert_eq!(
        report.not_rendered,
        [NotRendered {
            producer: hello(),
            base: Some(Withheld::Outcome(skipped("chart not in the cache"))),
            head: Some(Withheld::Outcome(skipped("chart not in the cache"))),
            changed: true,
            status_changed: false,
        }]
    );
    // Unedited, it is still listed, as untouched.
    let report = compare(&base, &base, &OPTIONS);
    assert!(report.is_empty());
    assert_eq!(report.not_rendered.len(), 1);
    assert!(!report.not_rendered[0].touched());
}

#[test]
fn a_release_under_a_failed_kustomization_is_not_applied_there() {
    let hello_objects = objects(&cm("hello", "1"));
    let apps_objects = release(1);
    let mut base = side(&[("apps", &apps_objects)], &[]);
    base.rendered
        .push((hello(), hello_objects.iter().collect()));
    base.statuses.insert(hello(), pass());
    // A source's failure is not a producer's: it is not listed.
    let mut head = side(&[], &["apps"]);
    head.statuses.insert(
        ProducerKey {
            kind: "GitRepository".to_owned(),
            namespace: "flux-system".to_owned(),
            name: "repo".to_owned(),
        },
        skipped("not fetched"),
    );
    let report = compare(&base, &head, &OPTIONS);
    let listed: Vec<(String, Option<Withheld>)> = report
        .not_rendered
        .iter()
        .map(|n| (n.producer.to_string(), n.head.clone()))
        .collect();
    // The Kustomization first: the release is not there because of it.
    assert_eq!(
        listed,
        [
            (
                "Kustomization flux-system/apps".to_owned(),
                Some(Withheld::Outcome(Outcome {
                    verdict: Verdict::Failed,
                    cause: "kustomize build failed".to_owned(),
                }))
            ),
            (
                "HelmRelease apps/hello".to_owned(),
                Some(Withheld::NotApplied(producer("apps")))
            ),
        ]
    );
    assert!(report.not_rendered.iter().all(|n| n.base.is_none()));
    assert!(report.not_rendered.iter().all(NotRendered::touched));
}

#[test]
fn stripped_labels_and_annotations_are_not_compared_anywhere_under_metadata() {
    let deployment = |chart: &str, checksum: &str, image: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\n  labels:\n    app: web\n    helm.sh/chart: web-{chart}\nspec:\n  template:\n    metadata:\n      annotations:\n        checksum/config: {checksum}\n    spec:\n      containers:\n      - name: web\n        image: {image}\n"
        )
    };
    let strip = Options {
        context: 3,
        strip: vec!["helm.sh/chart".into(), "checksum/*".into()],
    };
    // A chart bump alone: nothing left to compare.
    let base = objects(&deployment("1.0.0", "aaa", "web:1"));
    let head = objects(&deployment("1.1.0", "bbb", "web:1"));
    let bump = compare(
        &side(&[("apps", &base)], &[]),
        &side(&[("apps", &head)], &[]),
        &strip,
    );
    assert!(bump.is_empty(), "{:?}", bump.producers);
    // Without the strip set the same bump is a change.
    let unstripped = compare(
        &side(&[("apps", &base)], &[]),
        &side(&[("apps", &head)], &[]),
        &OPTIONS,
    );
    assert!(!unstripped.is_empty());
    // A bump that changes what runs is still a change, shown without the stripped keys.
    let image = objects(&deployment("1.1.0", "ccc", "web:2"));
    let report = compare(
        &side(&[("apps", &base)], &[]),
        &side(&[("apps", &image)], &[]),
        &strip,
    );
    let diff = &report.producers[&producer("apps")].objects[0].diff;
    assert!(
        diff.contains("-      - image: web:1\n+      - image: web:2\n"),
        "{diff}"
    );
    assert!(
        !diff.contains("annotations: {}"),
        "an emptied map goes: {diff}"
    );
    assert!(
        !diff.contains("helm.sh/chart") && !diff.contains("checksum/config"),
        "{diff}"
    );
}
