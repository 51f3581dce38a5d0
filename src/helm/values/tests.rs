//! Cases from Helm's own tests (coalesce_test.go, dependencies_test.go, parser_test.go,
//! jsonschema_test.go), rebuilt as in-memory charts; the facts are Helm's.

use super::*;
use crate::helm::{Chart, Dependency, Metadata};

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
        assert_eq!(yaml(text), Value::Map(Map::new()), "{text:?}");
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

#[test]
fn coalesce_keeps_the_top_charts_nulls_and_drops_subchart_default_nulls() {
    // helm#32530: a null in the chart's own values.yaml stays; a subchart default null goes.
    let sub = chart("sub", "a: null\nb: {c: null, d: 1}\n", vec![]);
    let top = chart("top", "keep: null\n", vec![sub]);
    let values = coalesce_values(&top, &Value::Nil);
    assert_eq!(get(&values, "keep"), Some(&Value::Nil));
    assert_eq!(get(&values, "sub.a"), None);
    assert_eq!(get(&values, "sub.b.c"), None);
    assert_eq!(get(&values, "sub.b.d"), Some(&Value::Float(1.0)));
    // A user null for a key the chart does not have is kept as a null.
    let values = coalesce_values(&top, &yaml("other: null"));
    assert_eq!(get(&values, "other"), Some(&Value::Nil));
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
        Some(&Value::Map(Map::new()))
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
    coalesce::coalesce_tables(&mut dst, src, false);
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
    coalesce::coalesce_tables(&mut dst, src, true);
    assert_eq!(
        Value::Map(dst),
        yaml("address: {country: null}\nhole: null\n")
    );
}
