//! Cases from Helm's own tests (coalesce_test.go, dependencies_test.go, parser_test.go,
//! jsonschema_test.go), rebuilt as in-memory charts; the facts are Helm's.

use super::*;
use crate::{Chart, Dependency, Metadata};

fn yaml(text: &str) -> Value {
    match from_yaml(text, "test.yaml") {
        Ok(value) => value,
        Err(e) => panic!("bad test YAML: {e}"),
    }
}

/// The value at a dotted path, `None` when a segment is missing.
fn get<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    let mut current = value;
    for segment in path.split('.') {
        match current {
            Value::Map(map) => current = map.get(segment)?,
            _ => return None,
        }
    }
    Some(current)
}

fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

fn chart(name: &str, values: &str, dependencies: Vec<Chart>) -> Chart {
    Chart {
        metadata: Metadata {
            api_version: "v2".into(),
            name: name.into(),
            version: "0.1.0".into(),
            ..Metadata::default()
        },
        values: yaml(values),
        dependencies,
        ..Chart::default()
    }
}

fn dependency(name: &str, condition: &str, tags: &[&str]) -> Dependency {
    Dependency {
        name: name.into(),
        version: "0.1.0".into(),
        repository: "http://localhost:10191".into(),
        condition: condition.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        enabled: true,
        ..Dependency::default()
    }
}

// ---------------------------------------------------------------------------------------------
// from_yaml, merge_maps

#[test]
fn from_yaml_types_as_helm_reads_values() {
    let values = yaml("a: 1\nb: yes\nc: 0644\nd: 1e3\ne: ~\nf: \"1\"\n");
    assert_eq!(get(&values, "a"), Some(&Value::Float(1.0)));
    assert_eq!(get(&values, "b"), Some(&Value::Bool(true)));
    assert_eq!(get(&values, "c"), Some(&Value::Float(420.0)));
    assert_eq!(get(&values, "d"), Some(&Value::Float(1000.0)));
    assert_eq!(get(&values, "e"), Some(&Value::Nil));
    assert_eq!(get(&values, "f"), Some(&s("1")));
}

#[test]
fn from_yaml_empty_documents_are_empty_maps() {
    for text in ["", "\n", "# only a comment\n", "---\n", "~\n"] {
        assert_eq!(yaml(text), Value::map(Map::new()), "{text:?}");
    }
}

#[test]
fn from_yaml_reads_the_first_document_only() {
    assert_eq!(yaml("a: 1\n---\nb: 2\n"), yaml("a: 1\n"));
}

#[test]
fn from_yaml_rejects_documents_that_are_not_maps() {
    let cases = [
        ("- a\n", "array"),
        ("just text\n", "string"),
        ("3\n", "number"),
    ];
    for (text, kind) in cases {
        let error = from_yaml(text, "values.yaml").unwrap_err();
        assert_eq!(
            error,
            Error::Values(format!(
                "failed to parse values.yaml: error unmarshaling JSON: while decoding JSON: json: \
                 cannot unmarshal {kind} into Go value of type map[string]interface {{}}"
            ))
        );
    }
}

#[test]
fn from_yaml_parse_errors_name_the_file_and_line() {
    let Err(Error::Values(message)) = from_yaml("a: 1\nb: [\n", "my-values.yaml") else {
        panic!("expected a values error");
    };
    assert!(
        message.starts_with(
            "failed to parse my-values.yaml: error converting YAML to JSON: yaml: line "
        ),
        "{message}"
    );
    // Helm v4.2.3 (oracle): `error converting YAML to JSON: yaml: line 2: mapping values are not
    // allowed in this context`.
    assert_eq!(
        from_yaml("a: 1\n  b: 2\n", "v.yaml"),
        Err(Error::Values(
            "failed to parse v.yaml: error converting YAML to JSON: yaml: line 2: mapping values \
             are not allowed in this context"
                .into()
        ))
    );
}

#[test]
fn merge_maps_later_wins_and_maps_merge() {
    let base = yaml("a: {b: 1, c: 2}\nl: [1, 2]\nkeep: x\nscalar: 1\n");
    let over = yaml("a: {b: 3, d: {e: 4}}\nl: [9]\nscalar: {now: map}\nnull: ~\n");
    let merged = merge_maps(base, over);
    assert_eq!(
        merged,
        yaml("a: {b: 3, c: 2, d: {e: 4}}\nl: [9]\nkeep: x\nscalar: {now: map}\nnull: ~\n")
    );
    // A map over a non-map wins; a non-map over a map changes nothing.
    assert_eq!(merge_maps(Value::Nil, yaml("a: 1")), yaml("a: 1"));
    assert_eq!(merge_maps(yaml("a: 1"), Value::Nil), yaml("a: 1"));
}

// ---------------------------------------------------------------------------------------------
// coalesce_values: TestCoalesceValues

const MOBY_USER: &str = "
top: yup
bottom: null
right: Null
left: NULL
front: ~
back: \"\"
nested:
  boat: null

global:
  name: Ishmael
  subject: Queequeg
  nested:
    boat: true

pequod:
  boat: null
  global:
    name: Stinky
    harpooner: Tashtego
    nested:
      boat: false
      sail: true
      foo2: null
  ahab:
    scope: whale
    boat: null
    nested:
      foo: true
      boat: null
    object: null
";

fn moby() -> Chart {
    let ahab = chart(
        "ahab",
        "global: {nested: {foo: bar, foo2: bar2}, nested2: {l2: ahab}}\nscope: ahab\nname: ahab\n\
         boat: true\nnested: {foo: false, boat: true}\nobject: {foo: bar}\n",
        vec![],
    );
    let pequod = chart(
        "pequod",
        "name: pequod\nscope: pequod\nglobal: {nested2: {l1: pequod}}\nboat: false\n\
         ahab: {boat: false, nested: {boat: false}}\n",
        vec![ahab],
    );
    let spouter = chart(
        "spouter",
        "scope: spouter\nglobal: {nested2: {l1: spouter}}\n",
        vec![],
    );
    chart(
        "moby",
        "back: exists\nbottom: exists\nfront: exists\nleft: exists\nname: moby\n\
         nested: {boat: true}\noverride: bad\nright: exists\nscope: moby\ntop: nope\n\
         global: {nested2: {l0: moby}}\n\
         pequod: {boat: maybe, ahab: {boat: maybe, nested: {boat: maybe}}}\n",
        vec![pequod, spouter],
    )
}

#[test]
fn coalesce_values_matches_helms_moby_dick() {
    let user = yaml(MOBY_USER);
    let values = coalesce_values(&moby(), &user);
    let expect_string = [
        ("top", "yup"),
        ("back", ""),
        ("name", "moby"),
        ("global.name", "Ishmael"),
        ("global.subject", "Queequeg"),
        ("pequod.name", "pequod"),
        ("pequod.ahab.name", "ahab"),
        ("pequod.ahab.scope", "whale"),
        ("pequod.ahab.global.name", "Ishmael"),
        ("pequod.ahab.global.nested.foo", "bar"),
        ("pequod.ahab.global.subject", "Queequeg"),
        ("pequod.ahab.global.harpooner", "Tashtego"),
        ("pequod.global.name", "Ishmael"),
        ("pequod.global.subject", "Queequeg"),
        ("spouter.global.name", "Ishmael"),
        ("global.nested2.l0", "moby"),
        ("pequod.global.nested2.l0", "moby"),
        ("pequod.global.nested2.l1", "pequod"),
        ("pequod.ahab.global.nested2.l0", "moby"),
        ("pequod.ahab.global.nested2.l1", "pequod"),
        ("pequod.ahab.global.nested2.l2", "ahab"),
        ("spouter.global.nested2.l0", "moby"),
        ("spouter.global.nested2.l1", "spouter"),
    ];
    for (path, want) in expect_string {
        assert_eq!(get(&values, path), Some(&s(want)), "{path}");
    }
    let expect_true = [
        "pequod.ahab.nested.foo",
        "global.nested.boat",
        "pequod.global.nested.boat",
        "spouter.global.nested.boat",
        "pequod.global.nested.sail",
    ];
    for path in expect_true {
        assert_eq!(get(&values, path), Some(&Value::Bool(true)), "{path}");
    }
    // Go's template prints `<no value>` for these: absent (or nil).
    let no_value = [
        "global.harpooner",
        "pequod.ahab.global.nested.foo2",
        "pequod.global.nested.foo",
        "spouter.global.harpooner",
        "spouter.global.nested.sail",
        "global.nested2.l1",
        "global.nested2.l2",
        "pequod.global.nested2.l2",
        "spouter.global.nested2.l2",
    ];
    for path in no_value {
        assert!(
            matches!(get(&values, path), None | Some(Value::Nil)),
            "{path}: {:?}",
            get(&values, path)
        );
    }
    // Nulls delete the keys they meet.
    let removed = [
        "bottom",
        "right",
        "left",
        "front",
        "nested.boat",
        "pequod.boat",
        "pequod.ahab.boat",
        "pequod.ahab.nested.boat",
        "pequod.ahab.object",
    ];
    for path in removed {
        assert_eq!(get(&values, path), None, "{path}");
    }
    // The user's values are not changed.
    assert_eq!(user, yaml(MOBY_USER));
}

/// What Helm v4.2.3 gives templates for the same charts and user values (`toJson .Values`
/// through the oracle).
const MOBY_HELM_RESULT: &str = r#"{"back": "", "global": {"name": "Ishmael", "nested": {"boat": true}, "nested2": {"l0": "moby"}, "subject": "Queequeg"}, "name": "moby", "nested": {}, "override": "bad", "pequod": {"ahab": {"global": {"harpooner": "Tashtego", "name": "Ishmael", "nested": {"boat": true, "foo": "bar", "sail": true}, "nested2": {"l0": "moby", "l1": "pequod", "l2": "ahab"}, "subject": "Queequeg"}, "name": "ahab", "nested": {"foo": true}, "scope": "whale"}, "global": {"harpooner": "Tashtego", "name": "Ishmael", "nested": {"boat": true, "foo2": null, "sail": true}, "nested2": {"l0": "moby", "l1": "pequod"}, "subject": "Queequeg"}, "name": "pequod", "scope": "pequod"}, "scope": "moby", "spouter": {"global": {"name": "Ishmael", "nested": {"boat": true}, "nested2": {"l0": "moby", "l1": "spouter"}, "subject": "Queequeg"}, "scope": "spouter"}, "top": "yup"}"#;

#[test]
fn coalesce_values_equals_helms_whole_result() {
    let values = coalesce_values(&moby(), &yaml(MOBY_USER));
    let helm = match serde_json::from_str(MOBY_HELM_RESULT) {
        Ok(json) => offlux_template::from_serde(json),
        Err(e) => panic!("bad test JSON: {e}"),
    };
    assert_eq!(values, helm);
}

#[test]
fn coalesce_drops_default_nulls_at_every_level() {
    // Helm v4.2.3 through the oracle: `{sub: {b: {d: 1}, global: {}}, t: {x: 1}}` without user
    // values, and `{other: null, sub: ..., t: {}}` with `{other: null, t: {x: null}}`.
    let sub = chart("sub", "a: null\nb: {c: null, d: 1}\n", vec![]);
    let top = chart(
        "top",
        "keep: null\nt: {n: null, x: 1}\nsub: {fromparent: null}\n",
        vec![sub],
    );
    assert_eq!(
        coalesce_values(&top, &Value::Nil),
        yaml("sub: {b: {d: 1}, global: {}}\nt: {x: 1}\n")
    );
    // A user null deletes a default, and is kept for a key the chart does not have.
    assert_eq!(
        coalesce_values(&top, &yaml("other: null\nt: {x: null}")),
        yaml("other: null\nsub: {b: {d: 1}, global: {}}\nt: {}\n")
    );
}

#[test]
fn coalesce_scopes_subchart_values_and_copies_globals_down_two_levels() {
    let grandchild = chart("grand", "x: grand-default\n", vec![]);
    let child = chart("child", "x: child-default\nsize: 1\n", vec![grandchild]);
    let parent = chart(
        "parent",
        "global: {region: eu, table: {a: 1}}\nchild: {size: 2}\n",
        vec![child],
    );
    let user = yaml("global: {table: {b: 2}}\nchild: {grand: {x: user}}\n");
    let values = coalesce_values(&parent, &user);
    assert_eq!(get(&values, "child.x"), Some(&s("child-default")));
    // The parent's values for a subchart beat the subchart's defaults.
    assert_eq!(get(&values, "child.size"), Some(&Value::Float(2.0)));
    assert_eq!(get(&values, "child.grand.x"), Some(&s("user")));
    for level in ["", "child.", "child.grand."] {
        assert_eq!(
            get(&values, &format!("{level}global.region")),
            Some(&s("eu"))
        );
        assert_eq!(
            get(&values, &format!("{level}global.table")),
            Some(&yaml("{a: 1, b: 2}")),
            "{level}"
        );
    }
    // Subchart values do not leak into the parent's scope.
    assert_eq!(get(&values, "x"), None);
    // Every subchart gets a global table, even an empty one.
    let bare = chart("bare", "", vec![chart("leaf", "", vec![])]);
    assert_eq!(
        get(&coalesce_values(&bare, &Value::Nil), "leaf.global"),
        Some(&Value::map(Map::new()))
    );
}

#[test]
fn coalesce_type_mismatch_on_a_subchart_key() {
    let parent = chart("parent", "", vec![chart("sub", "a: 1", vec![])]);
    assert_eq!(
        try_coalesce_values(&parent, &yaml("sub: text")),
        Err(Error::Values(
            "type mismatch on sub: %!t(string=text)".into()
        ))
    );
    assert_eq!(
        try_coalesce_values(&parent, &yaml("sub: null")),
        Err(Error::Values("type mismatch on sub: %!t(<nil>)".into()))
    );
    assert_eq!(
        try_coalesce_values(&parent, &yaml("sub: true")),
        Err(Error::Values("type mismatch on sub: true".into()))
    );
    // Go's %t goes into lists (Helm v4.2.3, through the oracle).
    assert_eq!(
        try_coalesce_values(&parent, &yaml("sub: [1, a]")),
        Err(Error::Values(
            "type mismatch on sub: [%!t(float64=1) %!t(string=a)]".into()
        ))
    );
    // coalesce_values returns what it coalesced instead.
    assert_eq!(
        get(&coalesce_values(&parent, &yaml("sub: text")), "sub"),
        Some(&s("text"))
    );
}

// TestCoalesceTables
#[test]
fn coalesce_tables_dst_wins_and_null_deletes() {
    let Value::Map(mut dst) = yaml(
        "name: Ishmael\naddress: {street: 123 Spouter Inn Ct., city: Nantucket, country: null}\n\
         details: {friends: [Tashtego]}\nboat: pequod\nhole: null\n",
    ) else {
        panic!("map")
    };
    let Value::Map(src) = yaml(
        "occupation: whaler\naddress: {state: MA, street: 234 Spouter Inn Ct., country: US}\n\
         details: empty\nboat: {mast: true}\nhole: black\n",
    ) else {
        panic!("map")
    };
    coalesce::coalesce_tables(std::sync::Arc::make_mut(&mut dst), Map::clone(&src), false);
    assert_eq!(
        Value::Map(dst),
        yaml(
            "name: Ishmael\noccupation: whaler\n\
             address: {street: 123 Spouter Inn Ct., city: Nantucket, state: MA}\n\
             details: {friends: [Tashtego]}\nboat: pequod\n"
        )
    );
}

// TestMergeTables: merging keeps the nulls.
#[test]
fn merge_tables_keep_nulls() {
    let Value::Map(mut dst) = yaml("address: {country: null}\nhole: null\n") else {
        panic!("map")
    };
    let Value::Map(src) = yaml("address: {country: US}\nhole: black\n") else {
        panic!("map")
    };
    coalesce::coalesce_tables(std::sync::Arc::make_mut(&mut dst), Map::clone(&src), true);
    assert_eq!(
        Value::Map(dst),
        yaml("address: {country: null}\nhole: null\n")
    );
}

// ---------------------------------------------------------------------------------------------
// process_dependencies: TestDependencyEnabled on a rebuilt `subpop`

fn subpop() -> Chart {
    let subcharta = chart(
        "subcharta",
        "SCAdata: {SCAbool: false, SCAfloat: 3.1, SCAint: 55, SCAstring: jabba}\n",
        vec![],
    );
    let subchartb = chart(
        "subchartb",
        "SCBdata: {SCBbool: true, SCBint: 33}\n",
        vec![],
    );
    let subchartc = chart("subchartc", "", vec![]);

    let mut subchart1 = chart(
        "subchart1",
        "SC1data: {SC1bool: true, SC1float: 3.14, SC1int: 100, SC1string: dollywood, SC1extra1: 11}\n\
         imported-chartA: {SC1extra2: 1.337}\n\
         exports: {SC1exported1: {global: {SC1exported2: {all: {SC1exported3: SC1expstr}}}}}\n",
        vec![subcharta, subchartb.clone()],
    );
    let mut a = dependency(
        "subcharta",
        "subcharta.enabled,subchart1.subcharta.enabled",
        &["front-end", "subcharta"],
    );
    a.import_values = vec![yaml("{child: SCAdata, parent: imported-chartA}")];
    subchart1.metadata.dependencies = vec![
        a,
        dependency(
            "subchartb",
            "subchartb.enabled",
            &["front-end", "subchartb"],
        ),
    ];

    let mut subchart2 = chart("subchart2", "", vec![subchartb, subchartc]);
    subchart2.metadata.dependencies = vec![
        dependency("subchartb", "subchartb.enabled", &["back-end", "subchartb"]),
        dependency("subchartc", "subchartc.enabled", &["back-end", "subchartc"]),
    ];

    let mut parent = chart(
        "parentchart",
        "tags: {front-end: true, back-end: false}\nsubchart2alias: {enabled: false}\n\
         imported-chart1: {SPextra1: helm rocks}\n\
         overridden-chart1: {SC1bool: false, SC1float: 3.141592, SC1int: 99, SC1string: pollywog, SPextra2: 42}\n\
         ensurenull: null\n",
        vec![subchart1, subchart2],
    );
    let mut one = dependency(
        "subchart1",
        "subchart1.enabled",
        &["front-end", "subchart1"],
    );
    one.import_values = vec![
        yaml("{child: SC1data, parent: imported-chart1}"),
        yaml("{child: SC1data, parent: overridden-chart1}"),
        yaml("{child: imported-chartA, parent: imported-chartA}"),
        s("SC1exported1"),
    ];
    let mut alias = dependency("subchart2", "subchart2alias.enabled", &[]);
    alias.alias = "subchart2alias".into();
    parent.metadata.dependencies = vec![
        one,
        dependency("subchart2", "subchart2.enabled", &["back-end", "subchart2"]),
        alias,
    ];
    parent
}

/// Every chart's dotted path (Helm's `ChartPath`), sorted.
fn chart_paths(chart: &Chart) -> Vec<String> {
    fn walk(chart: &Chart, prefix: &str, out: &mut Vec<String>) {
        let path = if prefix.is_empty() {
            chart.name().to_string()
        } else {
            format!("{prefix}.{}", chart.name())
        };
        for sub in &chart.dependencies {
            walk(sub, &path, out);
        }
        out.push(path);
    }
    let mut out = Vec::new();
    walk(chart, "", &mut out);
    out.sort();
    out
}

/// TestDependencyEnabled's cases; each list is also what Helm v4.2.3 renders for the same
/// charts on disk (checked through the oracle).
#[test]
fn dependency_enabled_by_tags_and_conditions() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "tags with no effect",
            "tags: {nothinguseful: false}",
            &["parentchart", "parentchart.subchart1", "parentchart.subchart1.subcharta", "parentchart.subchart1.subchartb"],
        ),
        ("tags disabling a group", "tags: {front-end: false}", &["parentchart"]),
        (
            "tags disabling a group and enabling a different group",
            "tags: {front-end: false, back-end: true}",
            &["parentchart", "parentchart.subchart2", "parentchart.subchart2.subchartb", "parentchart.subchart2.subchartc"],
        ),
        (
            "tags disabling only children, children still enabled since tag front-end=true in values.yaml",
            "tags: {subcharta: false, subchartb: false}",
            &["parentchart", "parentchart.subchart1", "parentchart.subchart1.subcharta", "parentchart.subchart1.subchartb"],
        ),
        (
            "tags disabling all parents/children with additional tag re-enabling a parent",
            "tags: {front-end: false, subchart1: true, back-end: false}",
            &["parentchart", "parentchart.subchart1"],
        ),
        (
            "conditions enabling the parent charts, but back-end (b, c) is still disabled via values.yaml",
            "subchart1: {enabled: true}\nsubchart2: {enabled: true}",
            &["parentchart", "parentchart.subchart1", "parentchart.subchart1.subcharta", "parentchart.subchart1.subchartb", "parentchart.subchart2"],
        ),
        (
            "conditions disabling the parent charts, effectively disabling children",
            "subchart1: {enabled: false}\nsubchart2: {enabled: false}",
            &["parentchart"],
        ),
        (
            "conditions a child using the second condition path of child's condition",
            "subchart1: {subcharta: {enabled: false}}",
            &["parentchart", "parentchart.subchart1", "parentchart.subchart1.subchartb"],
        ),
        (
            "tags enabling a parent/child group with condition disabling one child",
            "subchart2: {subchartc: {enabled: false}}\ntags: {back-end: true}",
            &["parentchart", "parentchart.subchart1", "parentchart.subchart1.subcharta", "parentchart.subchart1.subchartb", "parentchart.subchart2", "parentchart.subchart2.subchartb"],
        ),
        (
            "tags will not enable a child if parent is explicitly disabled with condition",
            "subchart1: {enabled: false}\ntags: {front-end: true}",
            &["parentchart"],
        ),
        (
            "subcharts with alias also respect conditions",
            "subchart1: {enabled: false}\nsubchart2alias: {enabled: true, subchartb: {enabled: true}}",
            &["parentchart", "parentchart.subchart2alias", "parentchart.subchart2alias.subchartb"],
        ),
    ];
    for (name, user, want) in cases {
        let mut chart = subpop();
        let result = process_dependencies(&mut chart, &yaml(user));
        assert_eq!(result, Ok(()), "{name}");
        assert_eq!(chart_paths(&chart), *want, "{name}");
        // Chart.yaml's list shrinks with the subcharts.
        let declared: Vec<&str> = chart
            .metadata
            .dependencies
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        let loaded: Vec<&str> = chart.dependencies.iter().map(Chart::name).collect();
        assert_eq!(declared, loaded, "{name}");
    }
}

#[test]
fn alias_makes_renamed_copies() {
    // TestDependentChartAliases: two subcharts, one declared twice (once with an alias).
    let mut parent = chart(
        "parent",
        "",
        vec![
            chart("mariner", "who: mariner", vec![]),
            chart("alpine", "", vec![]),
        ],
    );
    let mut aliased = dependency("mariner", "", &[]);
    aliased.alias = "mariners2".into();
    aliased.version = ">= 0.1.0".into();
    parent.metadata.dependencies = vec![
        dependency("alpine", "", &[]),
        dependency("mariner", "", &[]),
        aliased,
    ];
    assert_eq!(process_dependencies(&mut parent, &Value::Nil), Ok(()));
    let names: Vec<&str> = parent.dependencies.iter().map(Chart::name).collect();
    assert_eq!(names, ["alpine", "mariner", "mariners2"]);
    let declared: Vec<&str> = parent
        .metadata
        .dependencies
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(declared, ["alpine", "mariner", "mariners2"]);
    // The copy keeps the subchart's defaults, under its new name.
    let values = coalesce_values(&parent, &Value::Nil);
    assert_eq!(get(&values, "mariners2.who"), Some(&s("mariner")));
    assert_eq!(get(&values, "mariner.who"), Some(&s("mariner")));
}

#[test]
fn aliases_nested_with_conditions_as_helm_v4_2_3() {
    // Helm's alias-condition-nested test chart. Helm v4.2.3 (oracle) enables `util` although
    // `leaf`'s values disable it: at that level the condition is looked up under the aliased
    // path `midchart.leafchart.`, where the parent's pass put no values. Later Helm changed
    // this; we follow the oracle.
    let build = || {
        let mut leaf = chart(
            "leaf",
            "util:\n  enabled: false\n",
            vec![chart("util", "", vec![])],
        );
        leaf.metadata.dependencies = vec![dependency("util", "util.enabled", &[])];
        let mut mid = chart("mid", "", vec![leaf]);
        let mut leaf_dep = dependency("leaf", "leafchart.enabled", &[]);
        leaf_dep.alias = "leafchart".into();
        mid.metadata.dependencies = vec![leaf_dep];
        let mut parent = chart("parentchart", "midchart:\n  enabled: true\n", vec![mid]);
        let mut mid_dep = dependency("mid", "midchart.enabled", &[]);
        mid_dep.alias = "midchart".into();
        parent.metadata.dependencies = vec![mid_dep];
        parent
    };
    let cases: &[(&str, &[&str])] = &[
        (
            "{}",
            &[
                "parentchart",
                "parentchart.midchart",
                "parentchart.midchart.leafchart",
                "parentchart.midchart.leafchart.util",
            ],
        ),
        (
            "midchart: {leafchart: {enabled: false}}",
            &["parentchart", "parentchart.midchart"],
        ),
        (
            "midchart: {leafchart: {util: {enabled: true}}}",
            &[
                "parentchart",
                "parentchart.midchart",
                "parentchart.midchart.leafchart",
                "parentchart.midchart.leafchart.util",
            ],
        ),
        ("midchart: {enabled: false}", &["parentchart"]),
    ];
    for (user, want) in cases {
        let mut parent = build();
        assert_eq!(
            process_dependencies(&mut parent, &yaml(user)),
            Ok(()),
            "{user}"
        );
        assert_eq!(chart_paths(&parent), *want, "{user}");
    }
}

#[test]
fn alias_needs_a_matching_version() {
    let mut parent = chart("parent", "", vec![chart("mariner", "", vec![])]);
    let mut aliased = dependency("mariner", "", &[]);
    aliased.alias = "other".into();
    aliased.version = "^2.0.0".into();
    parent.metadata.dependencies = vec![aliased];
    assert_eq!(process_dependencies(&mut parent, &Value::Nil), Ok(()));
    // No copy: the subchart stays as an undeclared one under its own name.
    let names: Vec<&str> = parent.dependencies.iter().map(Chart::name).collect();
    assert_eq!(names, ["mariner"]);
}

#[test]
fn alias_without_a_version_is_not_applied() {
    // Helm v4.2.3 (oracle): `dependencies: [{name: sub, alias: other}]` renders `sub` as `sub`.
    let mut parent = chart("parent", "", vec![chart("sub", "", vec![])]);
    let mut aliased = dependency("sub", "", &[]);
    aliased.alias = "other".into();
    aliased.version = String::new();
    parent.metadata.dependencies = vec![aliased];
    assert_eq!(process_dependencies(&mut parent, &Value::Nil), Ok(()));
    let names: Vec<&str> = parent.dependencies.iter().map(Chart::name).collect();
    assert_eq!(names, ["sub"]);
}

#[test]
fn undeclared_subcharts_stay_enabled() {
    // TestDependentChartWithSubChartsAbsentInDependency: a subchart in charts/ that Chart.yaml
    // does not list is kept whatever the conditions say.
    let mut parent = chart(
        "parent",
        "declared: {enabled: false}\nextra: {enabled: false}",
        vec![chart("declared", "", vec![]), chart("extra", "", vec![])],
    );
    parent.metadata.dependencies = vec![dependency("declared", "declared.enabled", &[])];
    assert_eq!(process_dependencies(&mut parent, &Value::Nil), Ok(()));
    let names: Vec<&str> = parent.dependencies.iter().map(Chart::name).collect();
    assert_eq!(names, ["extra"]);
    assert!(parent.metadata.dependencies.is_empty());
}

#[test]
fn conditions_take_the_first_boolean() {
    let build = |user: &str| {
        let mut parent = chart("parent", "", vec![chart("sub", "", vec![])]);
        parent.metadata.dependencies = vec![dependency(
            "sub",
            "missing.path,sub.notbool,sub.enabled,sub.other",
            &[],
        )];
        assert_eq!(process_dependencies(&mut parent, &yaml(user)), Ok(()));
        parent.dependencies.len()
    };
    assert_eq!(
        build("sub: {notbool: text, enabled: false, other: true}"),
        0
    );
    assert_eq!(
        build("sub: {notbool: text, enabled: true, other: false}"),
        1
    );
    // No path holds a boolean: the subchart stays enabled.
    assert_eq!(build("sub: {notbool: text}"), 1);
    // A table is not a value.
    assert_eq!(build("sub: {enabled: {x: false}, other: false}"), 0);
}

#[test]
// Helm's data has 3.14 and 3.141592 in it: they are values, not approximations of pi.
#[allow(clippy::approx_constant)]
fn import_values_both_forms_with_helms_precedence() {
    // TestProcessDependencyImportValues (merge mode, as ProcessDependencies runs it).
    let mut chart = subpop();
    assert_eq!(process_dependencies(&mut chart, &Value::Nil), Ok(()));
    let values = &chart.values;
    let expect = [
        ("imported-chart1.SC1bool", Value::Bool(true)),
        ("imported-chart1.SC1float", Value::Float(3.14)),
        ("imported-chart1.SC1int", Value::Float(100.0)),
        ("imported-chart1.SC1string", s("dollywood")),
        ("imported-chart1.SC1extra1", Value::Float(11.0)),
        ("imported-chart1.SPextra1", s("helm rocks")),
        // Imported through subchart1 from its own subchart.
        ("imported-chartA.SCAbool", Value::Bool(false)),
        ("imported-chartA.SCAfloat", Value::Float(3.1)),
        ("imported-chartA.SCAint", Value::Float(55.0)),
        ("imported-chartA.SCAstring", s("jabba")),
        ("imported-chartA.SC1extra2", Value::Float(1.337)),
        // The parent's own values win over imported ones.
        ("overridden-chart1.SC1bool", Value::Bool(false)),
        ("overridden-chart1.SC1float", Value::Float(3.141592)),
        ("overridden-chart1.SC1int", Value::Float(99.0)),
        ("overridden-chart1.SC1string", s("pollywog")),
        ("overridden-chart1.SPextra2", Value::Float(42.0)),
        // `exports` style.
        ("global.SC1exported2.all.SC1exported3", s("SC1expstr")),
        // Merge mode keeps nulls.
        ("ensurenull", Value::Nil),
    ];
    for (path, want) in expect {
        assert_eq!(get(values, path), Some(&want), "{path}");
    }
    // The import list is normalised to {child, parent} maps.
    let Some(one) = chart.metadata.dependencies.first() else {
        panic!("subchart1 is declared");
    };
    assert_eq!(
        one.import_values.last(),
        Some(&yaml("{child: exports.SC1exported1, parent: .}"))
    );
}

/// What Helm v4.2.3 gives the top chart's templates for the rebuilt `subpop` without user
/// values (`toJson .Values` through the oracle, with the same charts on disk).
const SUBPOP_HELM_RESULT: &str = r#"{"global": {"SC1exported2": {"all": {"SC1exported3": "SC1expstr"}}}, "imported-chart1": {"SC1bool": true, "SC1extra1": 11, "SC1float": 3.14, "SC1int": 100, "SC1string": "dollywood", "SPextra1": "helm rocks"}, "imported-chartA": {"SC1extra2": 1.337, "SCAbool": false, "SCAfloat": 3.1, "SCAint": 55, "SCAstring": "jabba"}, "overridden-chart1": {"SC1bool": false, "SC1extra1": 11, "SC1float": 3.141592, "SC1int": 99, "SC1string": "pollywog", "SPextra2": 42}, "subchart1": {"SC1data": {"SC1bool": true, "SC1extra1": 11, "SC1float": 3.14, "SC1int": 100, "SC1string": "dollywood"}, "exports": {"SC1exported1": {"global": {"SC1exported2": {"all": {"SC1exported3": "SC1expstr"}}}}}, "global": {"SC1exported2": {"all": {"SC1exported3": "SC1expstr"}}}, "imported-chartA": {"SC1extra2": 1.337, "SCAbool": false, "SCAfloat": 3.1, "SCAint": 55, "SCAstring": "jabba"}, "subcharta": {"SCAdata": {"SCAbool": false, "SCAfloat": 3.1, "SCAint": 55, "SCAstring": "jabba"}, "global": {"SC1exported2": {"all": {"SC1exported3": "SC1expstr"}}}}, "subchartb": {"SCBdata": {"SCBbool": true, "SCBint": 33}, "global": {"SC1exported2": {"all": {"SC1exported3": "SC1expstr"}}}}}, "subchart2alias": {"enabled": false}, "tags": {"back-end": false, "front-end": true}}"#;

#[test]
fn dependencies_then_coalesce_equal_helms_whole_result() {
    let mut chart = subpop();
    assert_eq!(process_dependencies(&mut chart, &Value::Nil), Ok(()));
    let helm = match serde_json::from_str(SUBPOP_HELM_RESULT) {
        Ok(json) => offlux_template::from_serde(json),
        Err(e) => panic!("bad test JSON: {e}"),
    };
    assert_eq!(coalesce_values(&chart, &Value::Nil), helm);
}

#[test]
fn import_values_multi_level_precedence() {
    // TestProcessDependencyImportValuesMultiLevelPrecedence: user > parent > imported > subchart.
    let library = || {
        chart(
            "library",
            "exports: {defaults: {service: {port: 9090}}}",
            vec![],
        )
    };
    let app = |name: &str, values: &str, import: bool| {
        let mut app = chart(name, values, vec![library()]);
        let mut dep = dependency("library", "", &[]);
        if import {
            dep.import_values = vec![s("defaults")];
        }
        app.metadata.dependencies = vec![dep];
        app
    };
    let mut umbrella = chart(
        "umbrella",
        "app1: {service: {port: 3456}}",
        vec![
            app("app1", "service: {port: 1111}", false),
            app("app2", "service: {port: 8080}", true),
            app("app3", "", true),
            app("app4", "service: {port: 1234}", false),
        ],
    );
    umbrella.metadata.dependencies = ["app1", "app2", "app3", "app4"]
        .iter()
        .map(|name| dependency(name, "", &[]))
        .collect();
    assert_eq!(process_dependencies(&mut umbrella, &Value::Nil), Ok(()));
    let values = coalesce_values(&umbrella, &Value::Nil);
    for (path, port) in [
        ("app1.service.port", 3456.0),
        ("app2.service.port", 8080.0),
        ("app3.service.port", 9090.0),
        ("app4.service.port", 1234.0),
    ] {
        assert_eq!(get(&values, path), Some(&Value::Float(port)), "{path}");
    }
}

#[test]
fn import_values_from_a_disabled_subchart_are_not_imported() {
    let mut parent = chart(
        "parent",
        "sub: {enabled: false}",
        vec![chart("sub", "exports: {data: {x: 1}}", vec![])],
    );
    let mut dep = dependency("sub", "sub.enabled", &[]);
    dep.import_values = vec![s("data")];
    parent.metadata.dependencies = vec![dep];
    assert_eq!(process_dependencies(&mut parent, &Value::Nil), Ok(()));
    assert_eq!(get(&parent.values, "x"), None);
    assert!(parent.dependencies.is_empty());
}

// ---------------------------------------------------------------------------------------------
// apply_set: TestParseSet, TestParseInto, TestParseIntoString

/// Expected `--set` results: YAML with every integral number an int64, as the parser types them.
fn ints(value: Value) -> Value {
    match value {
        Value::Float(f) if f.fract() == 0.0 => Value::Int(f as i64),
        Value::List(items) => Value::List(items.into_iter().map(ints).collect()),
        Value::Map(map) => Value::map(
            std::sync::Arc::unwrap_or_clone(map)
                .into_iter()
                .map(|(k, v)| (k, ints(v)))
                .collect(),
        ),
        other => other,
    }
}

fn parse(expression: &str, as_string: bool) -> Result<Value, String> {
    let mut map = Map::new();
    strvals::parse_into(expression, &mut map, as_string).map(|()| Value::map(map))
}

#[test]
fn set_valid_expressions() {
    let cases = [
        (
            "name1=null,f=false,t=true",
            "{name1: null, f: false, t: true}",
        ),
        ("name1=value1", "{name1: value1}"),
        (
            "name1=value1,name2=value2",
            "{name1: value1, name2: value2}",
        ),
        (
            "name1=value1,name2=value2,",
            "{name1: value1, name2: value2}",
        ),
        ("name1=,name2=value2", "{name1: '', name2: value2}"),
        ("leading_zeros=00009", "{leading_zeros: '00009'}"),
        ("zero_int=0", "{zero_int: 0}"),
        ("long_int=1234567890", "{long_int: 1234567890}"),
        ("boolean=true", "{boolean: true}"),
        ("is_null=null", "{is_null: null}"),
        (
            "name1=one\\,two,name2=three\\,four",
            "{name1: 'one,two', name2: 'three,four'}",
        ),
        (
            "name1=one\\=two,name2=three\\=four",
            "{name1: 'one=two', name2: 'three=four'}",
        ),
        (
            "name1=one two three,name2=three two one",
            "{name1: one two three, name2: three two one}",
        ),
        ("outer.inner=value", "{outer: {inner: value}}"),
        (
            "outer.middle.inner=value",
            "{outer: {middle: {inner: value}}}",
        ),
        (
            "outer.inner1=value,outer.inner2=value2",
            "{outer: {inner1: value, inner2: value2}}",
        ),
        (
            "outer.inner1=value,outer.middle.inner=value",
            "{outer: {inner1: value, middle: {inner: value}}}",
        ),
        ("name1.name2=", "{name1: {name2: ''}}"),
        ("name1={value1,value2}", "{name1: [value1, value2]}"),
        (
            "name1={value1,value2},name2={value1,value2}",
            "{name1: [value1, value2], name2: [value1, value2]}",
        ),
        ("name1={1021,902}", "{name1: [1021, 902]}"),
        (
            "name1.name2={value1,value2}",
            "{name1: {name2: [value1, value2]}}",
        ),
        ("list[0]=foo", "{list: [foo]}"),
        ("list[0].foo=bar", "{list: [{foo: bar}]}"),
        (
            "list[0].foo=bar,list[0].hello=world",
            "{list: [{foo: bar, hello: world}]}",
        ),
        ("list[0]=foo,list[1]=bar", "{list: [foo, bar]}"),
        ("list[0]=foo,list[1]=bar,", "{list: [foo, bar]}"),
        ("list[0]=foo,list[3]=bar", "{list: [foo, null, null, bar]}"),
        ("noval[0]", "{noval: []}"),
        ("noval[0]=", "{noval: ['']}"),
        ("nested[0][0]=1", "{nested: [[1]]}"),
        ("nested[1][1]=1", "{nested: [null, [null, 1]]}"),
        (
            "name1.name2[0].foo=bar,name1.name2[1].foo=bar",
            "{name1: {name2: [{foo: bar}, {foo: bar}]}}",
        ),
        (
            "name1.name2[1].foo=bar,name1.name2[0].foo=bar",
            "{name1: {name2: [{foo: bar}, {foo: bar}]}}",
        ),
        (
            "name1.name2[1].foo=bar",
            "{name1: {name2: [null, {foo: bar}]}}",
        ),
        // Beyond Helm's table: cases whose behaviour the parser's code fixes.
        ("a={}", "{a: ['']}"),
        ("a=TRUE,b=False,c=NULL", "{a: true, b: false, c: null}"),
        ("a=+5,b=-7,c=-0,d=0x1", "{a: 5, b: -7, c: 0, d: '0x1'}"),
        ("a=99999999999999999999", "{a: '99999999999999999999'}"),
        ("a\\.b=c", "{a.b: c}"),
        ("a=1.5", "{a: '1.5'}"),
        ("a[0", "{}"),
        (".a=b", "{}"),
        ("name1.", "{}"),
    ];
    for (expression, want) in cases {
        assert_eq!(
            parse(expression, false),
            Ok(ints(yaml(want))),
            "{expression}"
        );
    }
}

#[test]
fn set_string_keeps_strings() {
    let cases = [
        (
            "long_int_string=1234567890",
            "{long_int_string: '1234567890'}",
        ),
        ("boolean=true", "{boolean: 'true'}"),
        ("is_null=null", "{is_null: 'null'}"),
        ("zero=0", "{zero: '0'}"),
        ("list={1,true}", "{list: ['1', 'true']}"),
    ];
    for (expression, want) in cases {
        assert_eq!(parse(expression, true), Ok(yaml(want)), "{expression}");
    }
}

#[test]
fn set_invalid_expressions_fail_with_helms_messages() {
    let cases = [
        ("name1=value1,,,,name2=value2,", "key \"\" has no value (cannot end with ,)"),
        ("name1,name2=", "key \"name1\" has no value (cannot end with ,)"),
        ("name1,name2=value2", "key \"name1\" has no value (cannot end with ,)"),
        ("name1,name2=value2\\", "key \"name1\" has no value (cannot end with ,)"),
        ("name1,name2", "key \"name1\" has no value (cannot end with ,)"),
        ("name1.name2", "key \"name2\" has no value"),
        ("name1.name2,name1.name3", "key \"name2\" has no value (cannot end with ,)"),
        ("name1.=name2", "key map \"name1\" has no value"),
        ("name1.,name2", "key \"\" has no value (cannot end with ,)"),
        ("name1={1021,902", "list must terminate with '}'"),
        ("list[0].foo=bar,list[-30].hello=world", "negative -30 index not allowed"),
        ("list[0]=foo,list[-20]=bar", "negative -20 index not allowed"),
        ("illegal[0]name.foo=bar", "unexpected data at end of array index: ['n' 'a' 'm' 'e']"),
        ("a[0]'=1", "unexpected data at end of array index: ['\\'']"),
        ("x={a,b}c", "key \"c\" has no value"),
        (
            "a[99999999999999999999]=1",
            "error parsing index: strconv.Atoi: parsing \"99999999999999999999\": value out of range",
        ),
        (
            "]={}].",
            "unable to parse key: interface conversion: interface {} is []interface {}, not map[string]interface {}",
        ),
        ("a=1,a.b=2", "unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}"),
        ("a=x,a[0]=2", "unable to parse key: interface conversion: interface {} is string, not []interface {}"),
        ("a=null,a[0]=2", "unable to parse key: interface conversion: interface {} is nil, not []interface {}"),
        ("a[0]=x,a[0][1]=2", "unable to parse key: interface conversion: interface {} is string, not []interface {}"),
        ("a[65537]=1", "index of 65537 is greater than maximum supported index of 65536"),
        ("a[x]=1", "error parsing index: strconv.Atoi: parsing \"x\": invalid syntax"),
        ("a[]=1", "error parsing index: strconv.Atoi: parsing \"\": invalid syntax"),
        ("a", "key \"a\" has no value"),
        ("a\\", "key \"a\" has no value"),
    ];
    for (expression, want) in cases {
        assert_eq!(
            parse(expression, false),
            Err(want.to_string()),
            "{expression}"
        );
    }
}

#[test]
fn set_limits_nesting_and_index_depth() {
    let deep_names = format!("{}=x", vec!["a"; 32].join("."));
    assert_eq!(
        parse(&deep_names, false),
        Err("value name nested level is greater than maximum supported nested level of 30".into())
    );
    let ok_names = format!("{}=x", vec!["a"; 31].join("."));
    assert!(parse(&ok_names, false).is_ok());
    let deep_indexes = format!("a{}=1", "[0]".repeat(10_000));
    assert!(parse(&deep_indexes, false).is_err());
}

#[test]
fn set_into_existing_values() {
    // TestParseInto
    let mut values = yaml("outer: {inner1: overwrite, inner2: value2}");
    let expression = "outer.inner1=value1,outer.inner3=value3,outer.inner4=4";
    assert_eq!(apply_set(expression, &mut values, false), Ok(()));
    assert_eq!(
        values,
        ints(yaml(
            "outer: {inner1: value1, inner2: value2, inner3: value3, inner4: 4}"
        ))
    );

    let two_steps = [
        (
            "listOuter[0][0].type=listValue",
            "listOuter[0][0].status=alive",
            "{}",
            "listOuter: [[{type: listValue, status: alive}]]",
        ),
        (
            "listOuter[0][0].type=listValue",
            "listOuter[1][0].status=alive",
            "{}",
            "listOuter: [[{type: listValue}], [{status: alive}]]",
        ),
        (
            "listOuter[0][1][0].type=listValue",
            "listOuter[0][0][1].status=alive",
            "listOuter: [[[{exited: old}]]]",
            "listOuter: [[[{exited: old}, {status: alive}], [{type: listValue}]]]",
        ),
    ];
    for (first, second, start, want) in two_steps {
        let mut values = yaml(start);
        assert_eq!(apply_set(first, &mut values, false), Ok(()), "{first}");
        assert_eq!(apply_set(second, &mut values, false), Ok(()), "{second}");
        assert_eq!(values, yaml(want), "{first} then {second}");
    }

    // TestParseIntoString
    let mut values = yaml("outer: {inner1: overwrite, inner2: value2}");
    assert_eq!(
        apply_set("outer.inner1=1,outer.inner3=3", &mut values, true),
        Ok(())
    );
    assert_eq!(
        values,
        yaml("outer: {inner1: '1', inner2: value2, inner3: '3'}")
    );

    // A Nil starts an empty map; errors name the flag.
    let mut values = Value::Nil;
    assert_eq!(apply_set("a.b=1", &mut values, false), Ok(()));
    assert_eq!(values, ints(yaml("a: {b: 1}")));
    assert_eq!(
        apply_set("a", &mut values, true),
        Err(Error::Values(
            "failed parsing --set-string data: key \"a\" has no value".into()
        ))
    );
}

// ---------------------------------------------------------------------------------------------
// validate_schema: jsonschema_test.go

const SUBCHART_SCHEMA: &str = r#"{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "title": "Values",
  "type": "object",
  "properties": {
    "age": {
      "description": "Age",
      "minimum": 0,
      "type": "integer"
    }
  },
  "required": [
    "age"
  ]
}"#;

const SUBCHART_SCHEMA_2020: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "Values",
  "type": "object",
  "properties": {
    "data": {
      "type": "array",
      "contains": { "type": "string" },
      "unevaluatedItems": { "type": "number" }
    }
  },
  "required": ["data"]
}"#;

fn with_schema(mut chart: Chart, schema: &str) -> Chart {
    chart.schema = Some(schema.as_bytes().to_vec());
    chart
}

fn schema_parent(sub_schema: &str) -> Chart {
    chart(
        "chrt",
        "",
        vec![with_schema(chart("subchart", "", vec![]), sub_schema)],
    )
}

fn schema_error(chart: &Chart, values: &str) -> String {
    match validate_schema(chart, &yaml(values)) {
        Err(Error::Schema(message)) => message,
        other => panic!("expected a schema error, got {other:?}"),
    }
}

#[test]
fn schema_subchart_values_pass() {
    let parent = schema_parent(SUBCHART_SCHEMA);
    assert_eq!(
        validate_schema(&parent, &yaml("name: John\nsubchart: {age: 25}")),
        Ok(())
    );
    // Missing or null subchart values are not validated (helm#31202).
    assert_eq!(validate_schema(&parent, &yaml("name: John")), Ok(()));
    assert_eq!(
        validate_schema(&parent, &yaml("name: John\nsubchart: null")),
        Ok(())
    );
    let parent = schema_parent(SUBCHART_SCHEMA_2020);
    assert_eq!(
        validate_schema(&parent, &yaml("subchart: {data: [hello, 12]}")),
        Ok(())
    );
}

#[test]
fn schema_subchart_values_fail_with_helms_text() {
    let parent = schema_parent(SUBCHART_SCHEMA);
    assert_eq!(
        schema_error(&parent, "name: John\nsubchart: {}"),
        "subchart:\n- at '': missing property 'age'\n"
    );
    assert_eq!(
        schema_error(&parent, "subchart: oops"),
        "subchart:\ninvalid type for values: expected object (map), got string\n"
    );
    let parent = schema_parent(SUBCHART_SCHEMA_2020);
    let message = schema_error(&parent, "subchart: {data: [12]}");
    assert!(message.starts_with("subchart:\n"), "{message}");
    assert!(
        message.contains("- at '/data': no items match contains schema\n"),
        "{message}"
    );
}

#[test]
fn schema_violations_one_line_each() {
    // TestValidateAgainstSingleSchemaNegative's expectations on a schema of the same shape.
    let schema = r#"{
      "$schema": "http://json-schema.org/draft-07/schema#",
      "type": "object",
      "properties": {
        "age": {"type": "integer", "minimum": 0},
        "replicaCount": {"type": "integer"},
        "image": {"type": "object", "additionalProperties": false,
                  "properties": {"tag": {"type": "string", "pattern": "^v"}}},
        "mode": {"enum": ["a", "b"]},
        "name": {"type": ["string", "null"], "minLength": 2}
      },
      "required": ["employmentInfo"]
    }"#;
    let top = with_schema(chart("top", "", vec![]), schema);
    assert_eq!(
        schema_error(&top, "age: -5"),
        "top:\n- at '': missing property 'employmentInfo'\n- at '/age': minimum: got -5, want 0\n"
    );
    let message = schema_error(
        &top,
        "employmentInfo: {}\nreplicaCount: three\nimage: {tag: '1.0', extra: 1}\nmode: c\nname: 5",
    );
    for line in [
        "- at '/replicaCount': got string, want integer\n",
        "- at '/image': additional properties 'extra' not allowed\n",
        "- at '/image/tag': '1.0' does not match pattern '^v'\n",
        "- at '/mode': value must be one of 'a', 'b'\n",
        "- at '/name': got number, want null or string\n",
    ] {
        assert!(message.contains(line), "{line:?} not in {message:?}");
    }
    // Numbers read from YAML are floats; integral ones are integers to the schema, as in Helm.
    assert_eq!(
        validate_schema(&top, &yaml("employmentInfo: {}\nage: 3\n")),
        Ok(())
    );
}

#[test]
fn schema_error_display_has_helms_heading() {
    let top = with_schema(chart("top", "", vec![]), r#"{"required": ["x"]}"#);
    let error = validate_schema(&top, &Value::map(Map::new())).unwrap_err();
    assert_eq!(
        error.to_string(),
        "values don't meet the specifications of the schema(s) in the following chart(s):\n\
         top:\n- at '': missing property 'x'\n"
    );
}

#[test]
fn schema_draft4_and_anyof_nesting() {
    let schema = r#"{
      "$schema": "http://json-schema.org/draft-04/schema#",
      "properties": {"port": {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 2}]}}
    }"#;
    let top = with_schema(chart("top", "", vec![]), schema);
    assert_eq!(validate_schema(&top, &yaml("port: 80")), Ok(()));
    assert_eq!(
        schema_error(&top, "port: abcd"),
        "top:\n- at '/port': 'anyOf' failed\n  - at '/port': got string, want integer\n  \
         - at '/port': maxLength: got 4, want 2\n"
    );
}

#[test]
fn schema_that_is_not_json() {
    let top = with_schema(chart("top", "", vec![]), "{not json");
    assert!(schema_error(&top, "a: 1").starts_with("top:\nkey must be a string"));
}

#[test]
fn schema_remote_refs_are_not_fetched() {
    let top = with_schema(
        chart("top", "", vec![]),
        r#"{"properties": {"a": {"$ref": "https://example.invalid/schema.json"}}}"#,
    );
    let message = schema_error(&top, "a: 1");
    assert!(
        message.contains("https://example.invalid/schema.json"),
        "{message}"
    );
    // Local references resolve.
    let top = with_schema(
        chart("top", "", vec![]),
        r##"{"$defs": {"port": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/port"}}}"##,
    );
    assert_eq!(validate_schema(&top, &yaml("a: 1")), Ok(()));
    assert_eq!(
        schema_error(&top, "a: x"),
        "top:\n- at '/a': got string, want integer\n"
    );
}

/// Schemas, values and the report Helm v4.2.3 gives for them (its `ValidateAgainstSchema`,
/// run through the oracle), for violations whose order Helm does not leave to Go's map order.
const HELM_SCHEMA_REPORTS: &[(&str, &str, Option<&str>)] = &[
    (
        r##"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"age": {"type": "integer", "minimum": 0}, "replicaCount": {"type": "integer"}, "image": {"type": "object", "additionalProperties": false, "properties": {"tag": {"type": "string", "pattern": "^v"}}}, "mode": {"enum": ["a", "b"]}, "name": {"type": ["string", "null"], "minLength": 2}}, "required": ["employmentInfo"]}"##,
        r##"{"age": -5}"##,
        Some("top:\n- at '': missing property 'employmentInfo'\n- at '/age': minimum: got -5, want 0\n"),
    ),
    (
        r##"{"$schema": "http://json-schema.org/draft-04/schema#", "properties": {"port": {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 2}]}}}"##,
        r##"{"port": "abcd"}"##,
        Some("top:\n- at '/port': 'anyOf' failed\n  - at '/port': got string, want integer\n  - at '/port': maxLength: got 4, want 2\n"),
    ),
    (
        r##"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"data": {"type": "array", "contains": {"type": "string"}, "unevaluatedItems": {"type": "number"}}}, "required": ["data"]}"##,
        r##"{"data": [12]}"##,
        Some("top:\n- at '/data': no items match contains schema\n  - at '/data/0': got number, want string\n"),
    ),
    (
        r##"{"type": 5}"##,
        r##"{"a": 1}"##,
        Some("top:\n\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n- at '': 'allOf' failed\n  - at '/type': 'anyOf' failed\n    - at '/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'\n    - at '/type': got number, want array"),
    ),
    (
        r##"{"required": ["x", "y"]}"##,
        r##"{}"##,
        Some("top:\n- at '': missing properties 'x', 'y'\n"),
    ),
    (
        r##"{"properties": {"a": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}}}"##,
        r##"{"a": 3}"##,
        Some("top:\n- at '/a': 'oneOf' failed, subschemas 0, 1 matched\n"),
    ),
    (
        r##"{"properties": {"a": {"uniqueItems": true, "maxItems": 2}}}"##,
        r##"{"a": [1, 2, 1]}"##,
        Some("top:\n- at '/a': maxItems: got 3, want 2\n- at '/a': items at 0 and 2 are equal\n"),
    ),
    (
        r##"{"properties": {"a": {"allOf": [{"type": "string"}, {"minLength": 3}]}}}"##,
        r##"{"a": 5}"##,
        Some("top:\n- at '/a': 'allOf' failed\n  - at '/a': got number, want string\n"),
    ),
    (
        r##"{"propertyNames": {"pattern": "^[a-z]+$"}, "properties": {"e": {"format": "email"}}}"##,
        r##"{"Bad": 1, "e": "nope"}"##,
        Some("top:\n- at '': invalid propertyName 'Bad'\n  - at '': 'Bad' does not match pattern '^[a-z]+$'\n"),
    ),
    (
        r##"{"$defs": {"p": {"type": "integer", "minimum": 5}}, "properties": {"a": {"$ref": "#/$defs/p"}, "b": {"$ref": "#/$defs/p"}}}"##,
        r##"{"a": "x", "b": 1}"##,
        Some("top:\n- at '/a': got string, want integer\n- at '/b': minimum: got 1, want 5\n"),
    ),
    (
        r##"{"$defs": {"p": {"type": "string", "minLength": 5, "pattern": "^z"}}, "properties": {"a": {"$ref": "#/$defs/p"}}}"##,
        r##"{"a": "xy"}"##,
        Some("top:\n- at '/a': validation failed\n  - at '/a': minLength: got 2, want 5\n  - at '/a': 'xy' does not match pattern '^z'\n"),
    ),
    (
        r##"{"properties": {"l": {"items": {"type": "integer"}}}}"##,
        r##"{"l": [1, "a", "b"]}"##,
        Some("top:\n- at '/l/1': got string, want integer\n- at '/l/2': got string, want integer\n"),
    ),
    (
        r##"{"properties": {"l": {"items": {"type": "object", "required": ["x", "y"], "properties": {"z": {"type": "string"}}}}}}"##,
        r##"{"l": [{"z": 1}]}"##,
        Some("top:\n- at '/l/0': missing properties 'x', 'y'\n- at '/l/0/z': got number, want string\n"),
    ),
    (
        r##"{"properties": {"a": {"allOf": [{"type": "string", "minLength": 3}, {"pattern": "^x"}]}}}"##,
        r##"{"a": "ab"}"##,
        Some("top:\n- at '/a': 'allOf' failed\n  - at '/a': minLength: got 2, want 3\n  - at '/a': 'ab' does not match pattern '^x'\n"),
    ),
    (
        r##"{"properties": {"o": {"properties": {"p": {"properties": {"q": {"type": "string"}}}}}}}"##,
        r##"{"o": {"p": {"q": 1}}}"##,
        Some("top:\n- at '/o/p/q': got number, want string\n"),
    ),
    (
        r##"{"additionalProperties": {"type": "string"}}"##,
        r##"{"a": 1, "b": "x", "c": 2}"##,
        Some("top:\n- at '/a': got number, want string\n- at '/c': got number, want string\n"),
    ),
    (
        r##"{"properties": {"a": {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 5, "pattern": "^z"}]}}}"##,
        r##"{"a": "xy"}"##,
        Some("top:\n- at '/a': 'anyOf' failed\n  - at '/a': got string, want integer\n  - at '/a': validation failed\n    - at '/a': minLength: got 2, want 5\n    - at '/a': 'xy' does not match pattern '^z'\n"),
    ),
    (
        r##"{"properties": {"a": {"if": {"type": "string"}, "then": {"minLength": 3}, "else": {"minimum": 5}}}}"##,
        r##"{"a": "x"}"##,
        Some("top:\n- at '/a': minLength: got 1, want 3\n"),
    ),
    (
        r##"{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"], "additionalProperties": false}"##,
        r##"{"a": 1, "c": 1}"##,
        Some("top:\n- at '': missing property 'b'\n- at '/a': got number, want string\n- at '': additional properties 'c' not allowed\n"),
    ),
    (
        r##"{"properties": {"o": {"properties": {"p": {"type": "object", "additionalProperties": false, "properties": {"q": {"type": "string"}}}}}}}"##,
        r##"{"o": {"p": {"q": 1, "r": 2}}}"##,
        Some("top:\n- at '/o/p/q': got number, want string\n- at '/o/p': additional properties 'r' not allowed\n"),
    ),
    (
        r##"{"properties": {"l": {"items": {"$ref": "#/$defs/x"}}}, "$defs": {"x": {"type": "string", "minLength": 3}}}"##,
        r##"{"l": ["a", 1]}"##,
        Some("top:\n- at '/l/0': minLength: got 1, want 3\n- at '/l/1': got number, want string\n"),
    ),
    (
        r##"{"properties": {"a": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}}}"##,
        r##"{"a": 1}"##,
        Some("top:\n- at '/a': 'oneOf' failed, none matched\n  - at '/a': got number, want string\n  - at '/a': got number, want boolean\n"),
    ),
];

#[test]
fn schema_reports_match_helm_v4() {
    for (schema, values, want) in HELM_SCHEMA_REPORTS {
        let top = with_schema(chart("top", "", vec![]), schema);
        let values = match serde_json::from_str(values) {
            Ok(json) => offlux_template::from_serde(json),
            Err(e) => panic!("bad test JSON: {e}"),
        };
        let got = match validate_schema(&top, &values) {
            Ok(()) => None,
            Err(Error::Schema(report)) => Some(report),
            Err(other) => panic!("{schema}: unexpected {other:?}"),
        };
        assert_eq!(got.as_deref(), *want, "{schema} with {values:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// No input panics.

proptest::proptest! {
    #[test]
    fn set_never_panics(expression in r"[a-c0-9=,.\[\]{}\\ -]{0,40}", as_string in proptest::bool::ANY) {
        let mut values = yaml("a: {b: [1, {c: x}]}\nc: text\n");
        let _ = apply_set(&expression, &mut values, as_string);
    }

    #[test]
    fn from_yaml_never_panics(text in r"[a-c0-9:\-\[\]{}#&*!|>'\x22 \n]{0,60}") {
        let _ = from_yaml(&text, "fuzz.yaml");
    }

    #[test]
    fn coalesce_and_dependencies_never_panic(user in r"[a-c0-9:\[\]{},~ \n]{0,60}") {
        let Ok(user) = from_yaml(&user, "fuzz.yaml") else { return Ok(()) };
        let mut chart = subpop();
        let _ = coalesce_values(&chart, &user);
        let _ = process_dependencies(&mut chart, &user);
        let _ = validate_schema(&chart, &user);
    }
}

/// The compiled schema is shared by copies of a chart, and used only for the bytes it was
/// compiled from: a copy whose schema changed is checked against its own.
#[test]
fn a_compiled_schema_is_reused_only_for_the_same_schema() {
    let strict = r#"{"type": "object", "properties": {"age": {"type": "integer"}}}"#;
    let top = with_schema(chart("top", "", vec![]), strict);
    assert!(validate_schema(&top, &yaml("age: old")).is_err());
    assert_eq!(validate_schema(&top, &yaml("age: 3")), Ok(()));
    let mut copy = top.clone();
    copy.schema = Some(br#"{"type": "object"}"#.to_vec());
    assert_eq!(validate_schema(&copy, &yaml("age: old")), Ok(()));
    assert!(validate_schema(&top, &yaml("age: old")).is_err());
}
