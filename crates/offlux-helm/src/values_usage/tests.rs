use super::*;
use crate::{ChartFile, Dependency, Metadata};

fn yaml(text: &str) -> Value {
    crate::values::from_yaml(text, "test").unwrap_or_else(|e| panic!("{e}"))
}

fn chart(name: &str, values: &str, templates: &[(&str, &str)], dependencies: Vec<Chart>) -> Chart {
    Chart {
        metadata: Metadata {
            api_version: "v2".into(),
            name: name.into(),
            version: "1.0.0".into(),
            ..Metadata::default()
        },
        values: yaml(values),
        templates: templates
            .iter()
            .map(|(n, t)| ChartFile {
                name: format!("templates/{n}"),
                data: t.as_bytes().to_vec().into(),
            })
            .collect(),
        dependencies,
        ..Chart::default()
    }
}

/// The unread keys of `user` for a chart of one template and no defaults, as dotted paths.
fn unread_in(template: &str, user: &str) -> Vec<String> {
    let c = chart("c", "", &[("t.yaml", template)], vec![]);
    dotted(unread_keys(&c, &yaml(user)))
}

fn dotted(paths: Vec<ValuesPath>) -> Vec<String> {
    paths.into_iter().map(|p| p.join(".")).collect()
}

#[test]
fn field_chains_read_their_path_and_everything_below() {
    let t = "{{ .Values.image.repository }} {{ .Values.replicas }}";
    assert_eq!(
        unread_in(
            t,
            "replicas: 2\nreplicaCount: 3\nimage: {repository: x, tag: y, pullPolicy: z}\n"
        ),
        ["image.pullPolicy", "image.tag", "replicaCount"]
    );
    assert!(unread_in(
        "{{ toYaml .Values.resources }}",
        "resources: {limits: {cpu: 1}}\n"
    )
    .is_empty());
}

#[test]
fn dollar_and_root_context_variables_reach_values() {
    let t = "{{ with .Values.other }}{{ $.Values.a.b }}{{ end }}{{ $root := . }}{{ $root.Values.c }}{{ include \"x\" (dict \"ctx\" $) }}";
    assert_eq!(
        unread_in(t, "a: {b: 1, z: 2}\nc: 1\nother: {q: 1}\nd: 1\n"),
        ["a.z", "d"]
    );
    let t = r#"{{ define "x" }}{{ .ctx.Values.d }}{{ end }}"#;
    assert_eq!(unread_in(t, "d: 1\ne: 1\n"), ["e"]);
}

#[test]
fn index_get_dig_and_has_key_with_literals() {
    let t = r#"{{ index .Values "a" "b" }}{{ get .Values.c "d" }}{{ dig "e" "f" "" .Values }}{{ if hasKey .Values "g" }}{{ end }}"#;
    assert_eq!(
        unread_in(
            t,
            "a: {b: 1, x: 1}\nc: {d: 1, x: 1}\ne: {f: 1, x: 1}\ng: 1\nh: 1\n"
        ),
        ["a.x", "c.x", "e.x", "h"]
    );
    // A key that is no literal reads the whole prefix.
    assert!(unread_in(r#"{{ index .Values.a $.Values.k }}"#, "a: {any: 1}\nk: x\n").is_empty());
    assert!(unread_in(r#"{{ index .Values (printf "%s" "a") }}"#, "anything: 1\n").is_empty());
}

#[test]
fn with_and_range_read_their_subtree() {
    let t = "{{ with .Values.ingress }}{{ .host }}{{ end }}{{ range $k, $v := .Values.envs }}{{ $k }}{{ end }}{{ range .Values.list }}{{ . }}{{ end }}";
    assert_eq!(
        unread_in(
            t,
            "ingress: {host: a, tls: b}\nenvs: {A: 1}\nlist: [1]\nlisst: [1]\n"
        ),
        ["lisst"]
    );
}

#[test]
fn variables_hold_their_values_path() {
    let t = "{{ $svc := .Values.service }}{{ $svc.port }}{{ $img := .Values.image | default dict }}{{ toYaml $img }}";
    assert_eq!(
        unread_in(t, "service: {port: 1, prot: 2}\nimage: {a: 1}\n"),
        ["service.prot"]
    );
    // A copy of all values, used whole, reads everything.
    assert!(unread_in("{{ $v := .Values }}{{ include \"x\" $v }}", "a: 1\n").is_empty());
    // A merge re-seated as `.Values` reads nothing by itself; what is read afterwards counts.
    let t = r#"{{ $m := mustMergeOverwrite (deepCopy .Values.common) (omit .Values "common") }}{{ $_ := set . "Values" $m }}{{ .Values.app }}{{ $m.other }}"#;
    assert_eq!(
        unread_in(t, "app: 1\nother: 1\napp2: 1\ncommon: {x: 1}\n"),
        ["app2", "common.x"]
    );
}

#[test]
fn values_passed_whole_read_everything() {
    for t in [
        "{{ toYaml .Values }}",
        "{{ include \"x\" .Values }}",
        "{{ template \"x\" .Values }}",
        "{{ tpl \"a\" (dict \"Values\" .Values) }}",
        "{{ $x := merge (dict) .Values }}{{ $x | toJson }}",
        "{{ .Values | toYaml }}",
    ] {
        assert!(unread_in(t, "anything: 1\n").is_empty(), "{t}");
        let c = chart("c", "", &[("t.yaml", t)], vec![]);
        assert!(ValuesUsage::of(&c).reads_everything(), "{t}");
    }
}

#[test]
fn nested_unread_keys_are_reported_at_the_topmost_unread_level() {
    let t = "{{ .Values.ingress.enabled }}{{ .Values.ingress.hosts }}";
    assert_eq!(
        unread_in(
            t,
            "ingress: {enabled: true, hostss: [a], tls: {secret: x, more: {deep: 1}}}\ntypo: {a: {b: 1}}\n"
        ),
        ["ingress.hostss", "ingress.tls", "typo"]
    );
    // Null values only delete keys.
    assert!(unread_in(t, "gone: null\n").is_empty());
}

#[test]
fn keys_of_the_chart_defaults_are_not_reported() {
    let c = chart(
        "c",
        "ingress: {enabled: false, className: ''}\nextra: {}\n",
        &[("t.yaml", "{{ .Values.ingress.enabled }}")],
        vec![],
    );
    let user = yaml("ingress: {className: nginx, clasName: typo}\nextra: {a: 1}\nextr: 1\n");
    assert_eq!(dotted(unread_keys(&c, &user)), ["extr", "ingress.clasName"]);
}

#[test]
fn subcharts_read_their_scope_and_global_is_always_read() {
    let sub = chart("redis", "", &[("r.yaml", "{{ .Values.port }}")], vec![]);
    let mut parent = chart("app", "", &[("a.yaml", "{{ .Values.name }}")], vec![sub]);
    parent.metadata.dependencies = vec![Dependency {
        name: "redis".into(),
        alias: "cache".into(),
        condition: "cache.enabled".into(),
        ..Dependency::default()
    }];
    let user = yaml(
        "name: x\nglobal: {anything: 1}\nredis: {port: 1, prt: 2}\ncache: {enabled: true, port: 1, prot: 2}\ntags: {x: true}\nport: 3\n",
    );
    assert_eq!(
        dotted(unread_keys(&parent, &user)),
        ["cache.prot", "port", "redis.prt"]
    );
}

#[test]
fn defines_count_in_every_scope() {
    // A library's named template, called with the parent's context, reads the parent's values.
    let mut library = chart(
        "common",
        "",
        &[(
            "_lib.tpl",
            r#"{{ define "lib.all" }}{{ .Values.controllers }}{{ end }}"#,
        )],
        vec![],
    );
    library.metadata.chart_type = "library".into();
    let parent = chart(
        "app",
        "",
        &[("a.yaml", r#"{{ include "lib.all" . }}"#)],
        vec![library],
    );
    let user = yaml("controllers: {main: {}}\ncontrolers: {}\n");
    assert_eq!(dotted(unread_keys(&parent, &user)), ["controlers"]);
}

#[test]
fn template_strings_in_values_and_files_read_values() {
    let mut c = chart("c", "", &[("t.yaml", "{{ tpl .Values.host . }}")], vec![]);
    c.files.push(ChartFile {
        name: "files/config.yaml".into(),
        data: b"domain: {{ .Values.fromFile }}\nbroken: {{ .Values.fromBroken "
            .to_vec()
            .into(),
    });
    let user = yaml(
        "host: \"app.{{ .Values.domain }}\"\ndomain: x\nfromFile: 1\nfromBroken: 1\nunused: 1\n",
    );
    assert_eq!(dotted(unread_keys(&c, &user)), ["unused"]);
}

#[test]
fn a_partial_file_body_reads_nothing_but_its_defines_do() {
    let t = r#"{{ .Values.inBody }}{{ define "d" }}{{ .Values.inDefine }}{{ end }}"#;
    let c = chart("c", "", &[("_h.tpl", t)], vec![]);
    let user = yaml("inBody: 1\ninDefine: 1\n");
    assert_eq!(dotted(unread_keys(&c, &user)), ["inBody"]);
}
