//! Unit tests for the YAML layer's traps: anchors and merges, duplicate keys, limits, positions,
//! both resolvers and the emitter's quoting, block scalars and folding. Expected outputs were
//! checked against `kubectl kustomize` (kustomize v5.5.0).

use serde_json::json;

use super::*;

fn parse(text: &str) -> Result<Vec<Document>, Error> {
    parse_stream(text, &ParseOptions::default())
}

fn parse_one(text: &str) -> Node {
    match parse(text) {
        Ok(mut docs) if docs.len() == 1 => docs.remove(0).into_root(),
        other => panic!("expected one document, got {other:?}"),
    }
}

fn scalar<'a>(node: &'a Node, path: &[&str]) -> &'a Scalar {
    match node.get_path(path) {
        Some(Node::Scalar(s)) => s,
        other => panic!("no scalar at {path:?}: {other:?}"),
    }
}

#[test]
fn positions_are_one_based_lines_and_columns() {
    let docs = parse("a: 1\nb:\n  c: 'x'\n---\n- z\n").unwrap_or_default();
    assert_eq!(docs.len(), 2);
    let first = &docs[0].root;
    let c = scalar(first, &["b", "c"]);
    assert_eq!(c.pos, Pos { line: 3, column: 6 });
    assert_eq!(c.style, ScalarStyle::SingleQuoted);
    let key = &first
        .as_mapping()
        .map(|m| m.entries[1].key.clone())
        .unwrap_or_default();
    assert_eq!(key.pos, Pos { line: 2, column: 1 });
    assert_eq!(docs[1].pos, Pos { line: 5, column: 1 });
}

#[test]
fn scalars_keep_value_style_and_tag() {
    let root =
        parse_one("a: 'it''s'\nb: \"x\\ty\"\nc: !!str 12\nd: |\n  l1\n  l2\ne: >-\n  f1\n  f2\n");
    assert_eq!(scalar(&root, &["a"]).value, "it's");
    assert_eq!(scalar(&root, &["b"]).value, "x\ty");
    assert_eq!(scalar(&root, &["b"]).style, ScalarStyle::DoubleQuoted);
    assert_eq!(scalar(&root, &["c"]).tag.as_deref(), Some("!!str"));
    assert_eq!(scalar(&root, &["d"]).value, "l1\nl2\n");
    assert_eq!(scalar(&root, &["d"]).style, ScalarStyle::Literal);
    assert_eq!(scalar(&root, &["e"]).value, "f1 f2");
    assert_eq!(scalar(&root, &["e"]).style, ScalarStyle::Folded);
}

#[test]
fn flow_collections_are_marked() {
    let root = parse_one("a: [1, 2]\nb: {c: d}\ne:\n- 1\n");
    let style = |k: &str| match root.get(k) {
        Some(Node::Sequence(s)) => s.style,
        Some(Node::Mapping(m)) => m.style,
        _ => panic!("no collection at {k}"),
    };
    assert_eq!(style("a"), CollectionStyle::Flow);
    assert_eq!(style("b"), CollectionStyle::Flow);
    assert_eq!(style("e"), CollectionStyle::Block);
}

#[test]
fn an_indentless_sequence_starting_with_a_flow_item_is_block() {
    let root = parse_one("a:\n- {}\n- x\nb:\n- [1]\n- [2, 3]\nc:\n  - [4]\n");
    for key in ["a", "b", "c"] {
        let Some(Node::Sequence(seq)) = root.get(key) else {
            panic!("no sequence at {key}");
        };
        assert_eq!(seq.style, CollectionStyle::Block, "{key}");
        let Some(first) = seq.items.first() else {
            panic!("{key} is empty");
        };
        let first_style = match first {
            Node::Sequence(s) => s.style,
            Node::Mapping(m) => m.style,
            Node::Scalar(_) => panic!("{key}[0] is a scalar"),
        };
        assert_eq!(first_style, CollectionStyle::Flow, "{key}[0]");
    }
}

#[test]
fn empty_documents_are_kept_as_null_and_empty_text_has_none() {
    assert_eq!(parse("").map(|d| d.len()), Ok(0));
    assert_eq!(parse("# only a comment\n").map(|d| d.len()), Ok(0));
    let docs = parse("---\n---\na: 1\n").unwrap_or_default();
    assert_eq!(docs.len(), 2);
    assert!(docs[0].root.is_null());
    assert!(docs[1].root.get("a").is_some());
}

#[test]
fn aliases_are_expanded() {
    let root = parse_one("a: &x {k: v}\nb: *x\nc: &s text\nd: *s\n");
    assert_eq!(root.get("b"), root.get("a"));
    assert_eq!(scalar(&root, &["d"]).value, "text");
}

#[test]
fn a_repeated_anchor_name_uses_the_latest_definition() {
    let root = parse_one("a: &x one\nb: *x\nc: &x two\nd: *x\n");
    assert_eq!(scalar(&root, &["b"]).value, "one");
    assert_eq!(scalar(&root, &["d"]).value, "two");
}

#[test]
fn merge_keys_take_a_map_or_a_list_and_explicit_keys_win() {
    let root = parse_one(
        "base: &b {x: 1, y: 2}\nother: &o {y: 3, z: 4}\n\
         one: {<<: *b, x: 9}\nlist:\n  x: 0\n  <<: [*o, *b]\n",
    );
    let one = root.get("one").and_then(Node::as_mapping).map(|m| {
        m.iter()
            .map(|(k, v)| (k.to_string(), v.as_str().unwrap_or_default().to_string()))
            .collect::<Vec<_>>()
    });
    assert_eq!(
        one,
        Some(vec![("y".into(), "2".into()), ("x".into(), "9".into())])
    );
    // Explicit `x` wins even though it comes first; `y` comes from the first map of the list.
    assert_eq!(scalar(&root, &["list", "x"]).value, "0");
    assert_eq!(scalar(&root, &["list", "y"]).value, "3");
    assert_eq!(scalar(&root, &["list", "z"]).value, "4");
    assert!(root.get("list").is_some_and(|l| l.get("<<").is_none()));
}

#[test]
fn a_quoted_merge_key_is_an_ordinary_key() {
    let root = parse_one("a: {'<<': {x: 1}}\n");
    assert!(root.get_path(&["a", "<<", "x"]).is_some());
}

#[test]
fn merging_a_scalar_is_an_error_with_its_location() {
    let err = parse("a:\n  <<: 5\n").err();
    assert_eq!(err.map(|e| e.pos), Some(Pos { line: 2, column: 7 }));
}

#[test]
fn duplicate_keys_are_an_error_naming_both_locations() {
    let err = parse("a: 1\nb: 2\na: 3\n").err();
    let err = err.unwrap_or_else(|| panic!("duplicate key accepted"));
    assert_eq!(err.pos, Pos { line: 3, column: 1 });
    assert_eq!(err.related, Some(Pos { line: 1, column: 1 }));
    assert!(
        err.message.contains("duplicate mapping key `a`"),
        "{}",
        err.message
    );
    assert!(err.to_string().starts_with("3:1: "));
}

#[test]
fn a_duplicate_key_is_its_own_kind_or_with_last_key_wins_the_later_entry() {
    let err = parse("a:\n  x: 1\n  x: 2\n").err();
    assert_eq!(
        err.map(|e| e.kind),
        Some(ErrorKind::DuplicateKey { key: "x".into() })
    );
    let options = ParseOptions {
        last_key_wins: true,
        ..ParseOptions::default()
    };
    // the earlier entry (with what is nested under it) goes, the later one stays where it stands
    let docs = parse_stream("a:\n  x: 1\nb: 2\na:\n  - y\nc: 3\n", &options);
    let root = docs
        .ok()
        .and_then(|d| d.into_iter().next())
        .map(|d| d.into_root());
    let keys: Vec<String> = root
        .as_ref()
        .and_then(Node::as_mapping)
        .map(|m| m.entries.iter().map(|e| e.key.value.to_string()).collect())
        .unwrap_or_default();
    assert_eq!(keys, ["b", "a", "c"]);
    let a = root.as_ref().and_then(|r| r.get("a"));
    assert!(a.is_some_and(|a| a.as_sequence().is_some()), "{a:?}");
    // large mappings (indexed keys) too
    let mut text: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
    text.push_str("k3: last\nk41: after\n");
    let docs = parse_stream(&text, &options).ok();
    let root = docs
        .and_then(|d| d.into_iter().next())
        .map(|d| d.into_root());
    let m = root.as_ref().and_then(Node::as_mapping);
    assert_eq!(m.map(|m| m.entries.len()), Some(41));
    assert_eq!(
        root.as_ref()
            .and_then(|r| r.get("k3"))
            .and_then(Node::as_str),
        Some("last")
    );
    assert_eq!(
        root.as_ref()
            .and_then(|r| r.get("k41"))
            .and_then(Node::as_str),
        Some("after")
    );
}

#[test]
fn with_last_key_wins_a_repeated_key_replaces_the_earlier_value() {
    let options = ParseOptions {
        last_key_wins: true,
        ..ParseOptions::default()
    };
    // Short mappings look keys up by scanning, long ones through an index.
    let long: String = (0..20).map(|i| format!("k{i}: {i}\n")).collect();
    for text in ["a: 1\nb: 2\na: 3\n".to_string(), format!("{long}k3: x\n")] {
        let docs = parse_stream(&text, &options).unwrap_or_else(|e| panic!("{e}"));
        let root: &Node = &docs[0].root;
        let Node::Mapping(m) = root else {
            panic!("not a mapping: {root:?}")
        };
        let keys: Vec<&str> = m.entries.iter().map(|e| e.key.value.as_str()).collect();
        let mut unique = keys.clone();
        unique.dedup();
        assert_eq!(keys.len(), unique.len(), "{keys:?}");
    }
    let docs = parse_stream("a: 1\nb: 2\na: 3\n", &options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scalar(&docs[0].root, &["a"]).value, "3");
    assert!(parse("a: 1\na: 3\n").is_err());
}

#[test]
fn complex_keys_are_rejected_with_their_location() {
    let err = parse("? [a, b]\n: c\n").err();
    assert_eq!(
        err.as_ref().map(|e| e.pos),
        Some(Pos { line: 1, column: 3 })
    );
    let err = parse("{a: 1}: x\n").err();
    assert!(err.is_some_and(|e| e.message.contains("cannot be a mapping key")));
}

#[test]
fn an_alias_bomb_is_an_error_not_an_allocation() {
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let prev = i - 1;
        bomb.push_str(&format!(
            "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
        ));
    }
    let err = parse(&bomb).err();
    assert!(
        err.as_ref()
            .is_some_and(|e| e.message.contains("alias bomb")),
        "{err:?}"
    );
    // A small limit trips on a small document.
    let options = ParseOptions {
        max_expanded_nodes: 10,
        ..ParseOptions::default()
    };
    assert!(parse_stream("a: &a [1, 2, 3]\nb: *a\nc: *a\n", &options).is_err());
}

/// The run's budget adds up what aliases and merges copy over documents and parses, each under
/// the per-document limit; plain nodes cost it nothing, also once it is spent.
#[test]
fn alias_expansion_adds_up_over_the_run() {
    use offlux_budget::{Limits, Resource, RunBudget};
    let run = std::sync::Arc::new(RunBudget::new(Limits {
        alias_nodes: 10,
        ..Limits::default()
    }));
    let options = ParseOptions {
        run: Some(run.clone()),
        ..ParseOptions::default()
    };
    // Each document copies 4 nodes: the sequence and its three items.
    let document = "a: &a [1, 2, 3]\nb: *a\n";
    assert!(parse_stream(&format!("{document}---\n{document}"), &options).is_ok());
    assert_eq!(run.used(Resource::AliasNodes), 8);
    let merge = "base: &base {x: 1}\nc:\n  <<: *base\n";
    let err = parse_stream(merge, &options).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Budget);
    assert!(
        err.message.contains("raise it with `--max-alias-nodes`"),
        "{}",
        err.message
    );
    assert!(parse_stream("plain: [1, 2, 3]\n", &options).is_ok());
}

#[test]
fn nesting_is_bounded() {
    let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
    // saphyr stops flow nesting at 256 levels itself; either limit gives a located error.
    let err = parse(&deep).err();
    assert!(err.is_some_and(|e| e.pos.line == 1 && e.pos.column > 1));
    let block: String = (0..600).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
    let err = parse(&block).err();
    assert!(err.is_some_and(|e| e.message.contains("nesting deeper than 512")));
    let options = ParseOptions {
        max_depth: 3,
        ..ParseOptions::default()
    };
    assert!(parse_stream("a: {b: {c: 1}}\n", &options).is_err());
    assert!(parse_stream("a: {b: 1}\n", &options).is_ok());
}

/// go-yaml ends an alias name at `:` (go-yaml v3 `yaml_parser_scan_anchor`), so `*app:` is an
/// alias used as a key, as in app-template's `controllers: {*app: ...}`.
#[test]
fn an_alias_used_as_a_key_ends_at_the_colon_as_in_go_yaml() {
    let node = parse_one("name: &app demo\ndata:\n  *app: value\n  other: [*app]\nf: {*app: 1}\n");
    assert_eq!(scalar(&node, &["data", "demo"]).value, "value");
    assert_eq!(scalar(&node, &["f", "demo"]).value, "1");
    assert!(parse("name: &app demo\ndata:\n  *app-x: value\n").is_err());
    let unknown = parse("a: b\nc:\n  *nope: value\n").unwrap_err();
    assert_eq!((unknown.pos.line, unknown.pos.column), (3, 3));
}

/// saphyr's span of an anchored or tagged collection starts at the anchor; the collection is
/// still in flow style when it is written in brackets.
#[test]
fn an_anchored_flow_collection_is_flow_style() {
    let text = "x: &mc { c: [m] }\ny: !!seq &s\n  [a]\nz: &b\n  k: v\n";
    let Ok(mut docs) = parse::parse_saphyr(text, &ParseOptions::default()) else {
        panic!("saphyr refuses {text:?}");
    };
    let node = docs.remove(0).into_root();
    let style = |key: &str| match node.get(key) {
        Some(Node::Mapping(m)) => Some(m.style),
        Some(Node::Sequence(s)) => Some(s.style),
        _ => None,
    };
    assert_eq!(style("x"), Some(CollectionStyle::Flow));
    assert_eq!(style("y"), Some(CollectionStyle::Flow));
    assert_eq!(style("z"), Some(CollectionStyle::Block));
}

#[test]
fn recursive_and_unknown_aliases_are_errors() {
    assert!(parse("a: &x [*x]\n").is_err());
    let err = parse("a: 1\nb: *nope\n").err();
    assert_eq!(err.map(|e| e.pos.line), Some(2));
}

#[test]
fn scanner_errors_carry_positions() {
    let err = parse("a: 1\nb: [1, 2\n").err();
    assert!(err.is_some_and(|e| e.pos.line >= 2));
    let err = parse("a:\n\tb: 1\n").err();
    assert!(err.is_some_and(|e| e.pos.line == 2));
}

#[test]
fn a_flow_sequence_closed_at_the_key_column_is_accepted() {
    let root = parse_one("spec:\n  args: [\n    \"a\",\n    \"b\"\n  ]\n  next: 1\n");
    assert_eq!(
        root.get_path(&["spec", "args"])
            .and_then(Node::as_sequence)
            .map(|s| s.items.len()),
        Some(2)
    );
    assert!(parse("a: 1\n b: 2\n").is_err());
}

#[test]
fn garbage_never_panics() {
    let pieces = [
        "a",
        ":",
        " ",
        "\n",
        "-",
        "[",
        "]",
        "{",
        "}",
        ",",
        "&a",
        "*a",
        "!!str",
        "'",
        "\"",
        "|",
        ">",
        "?",
        "<<",
        "#",
        "\t",
        "---",
        "...",
        "%YAML 1.2",
        "\\",
        "\u{feff}",
        "é",
        "0x",
        "~",
    ];
    // A deterministic pseudo-random walk over the pieces.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..3000 {
        let mut text = String::new();
        for _ in 0..(state % 24) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            text.push_str(pieces[(state % pieces.len() as u64) as usize]);
        }
        state = state.wrapping_add(1);
        if let Ok(docs) = parse(&text) {
            for doc in &docs {
                let printed = emit(&doc.root);
                let _ = to_json_kyaml(&doc.root);
                let _ = to_json_helm(&doc.root);
                let _ = canonical_kyaml(&doc.root);
                // What we print must parse.
                assert!(parse(&printed).is_ok(), "{text:?} printed as {printed:?}");
            }
        }
    }
}

mod proptests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            "[ -~\n\t]{0,30}|\\PC{0,10}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::btree_map("[ -~]{0,12}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
            let _ = parse(&text);
        }

        #[test]
        fn json_data_survives_from_json_emit_and_parse(value in json_value()) {
            let printed = emit(&from_json(&value));
            let root = parse(&printed).ok().and_then(|mut d| d.pop()).map(|d| d.into_root());
            prop_assert_eq!(root.as_ref().map(to_json_kyaml), Some(value), "{}", printed);
        }

        #[test]
        fn any_string_value_round_trips(value in "\\PC{0,120}") {
            let mut m = Mapping::new();
            m.insert("k", Node::string(value.clone()));
            let printed = emit(&Node::Mapping(m));
            let root = parse(&printed).ok().and_then(|mut d| d.pop()).map(|d| d.into_root());
            let back = root.as_ref().and_then(|r| r.get("k")).map(to_json_kyaml);
            prop_assert_eq!(back, Some(serde_json::Value::String(value)), "{}", printed);
        }

        #[test]
        fn any_string_in_any_style_round_trips_when_preserving(
            value in "[ a-c\n\t'\"#:-]{0,40}|\\PC{0,60}",
            style in 0usize..5,
        ) {
            let style = [
                ScalarStyle::Plain,
                ScalarStyle::SingleQuoted,
                ScalarStyle::DoubleQuoted,
                ScalarStyle::Literal,
                ScalarStyle::Folded,
            ][style];
            let scalar = Scalar { value: value.as_str().into(), style, ..Scalar::default() };
            let mut m = Mapping::new();
            m.insert("k", Node::Scalar(scalar.clone()));
            m.insert("s", Node::Sequence(Sequence {
                items: vec![Node::Scalar(scalar)],
                style: CollectionStyle::Flow,
                ..Sequence::default()
            }));
            let options = EmitOptions { preserve_style: true, ..EmitOptions::default() };
            let node = Node::Mapping(m);
            let printed = emit_with(&node, &options);
            let root = parse(&printed).ok().and_then(|mut d| d.pop()).map(|d| d.into_root());
            prop_assert_eq!(root.as_ref().map(to_json_kyaml), Some(to_json_kyaml(&node)), "{}", printed);
        }
    }
}

#[test]
fn kyaml_resolver_types_like_go_yaml_v3() {
    let root = parse_one(
        "a: yes\nb: \"on\"\nc: 0644\nd: 0x1F\ne: 1_000\nf: '1.0'\ng: 1.0\nh: ~\ni: True\n\
         j: 0o17\nk: 08\nl: .inf\nm: 1:20\nn: +12\no: y\np: 2020-01-01\nq: !!str 5\nr: \n",
    );
    assert_eq!(
        to_json_kyaml(&root),
        json!({
            "a": "yes", "b": "on", "c": 420, "d": 31, "e": 1000, "f": "1.0", "g": 1.0,
            "h": null, "i": true, "j": 15, "k": 8.0, "l": null, "m": "1:20", "n": 12, "o": "y",
            "p": "2020-01-01T00:00:00Z", "q": "5", "r": null
        })
    );
    assert_eq!(
        resolve_kyaml(scalar(&root, &["l"])),
        Resolved::Float(f64::INFINITY)
    );
}

#[test]
fn helm_resolver_types_like_go_yaml_v2_through_json() {
    let root = parse_one(
        "a: yes\nb: \"on\"\nc: 0644\nd: 0x1F\ne: 1_000\nf: Off\ng: 1000000\nh: ~\ni: n\n\
         j: Y\nk: 1:20\nl: 2020-01-01\nm: 0b101\nyes: key\nno: NO\n",
    );
    assert_eq!(
        to_json_helm(&root),
        json!({
            "a": true, "b": "on", "c": 420.0, "d": 31.0, "e": 1000.0, "f": false,
            "g": 1_000_000.0, "h": null, "i": false, "j": true, "k": "1:20",
            "l": "2020-01-01", "m": 5.0, "true": "key", "false": false
        })
    );
    assert!(matches!(to_json_helm(&root).get("g"), Some(v) if v.is_f64()));
}

#[test]
fn quoting_helper_flags_what_yaml_1_1_would_mistype() {
    for s in [
        "yes",
        "on",
        "Off",
        "y",
        "N",
        "1.0",
        "0644",
        "null",
        "~",
        "",
        "12",
        "1e3",
        "0x1F",
        "1_000",
        ".inf",
        "190:20:30",
        "2020-01-01",
        "true",
    ] {
        assert!(scalar_needs_quoting(s), "{s}");
    }
    for s in [
        "hello",
        "1.2.3",
        "v1",
        "yess",
        "<<",
        "0x",
        "1:2:x",
        "2020-13-01",
        "-",
    ] {
        assert!(!scalar_needs_quoting(s), "{s}");
    }
}

#[test]
fn design_example_prints_as_kustomize_does() {
    let root = parse_one(
        "{metadata: {name: x}, kind: ConfigMap, apiVersion: v1, data: {b: \"on\", a: yes, c: 0644}}",
    );
    assert_eq!(
        emit(&canonical_kyaml(&root)),
        "apiVersion: v1\ndata:\n  a: \"yes\"\n  b: \"on\"\n  c: 420\nkind: ConfigMap\nmetadata:\n  name: x\n"
    );
}

#[test]
fn emitter_layout_and_quoting_match_kustomize() {
    let input = "\
a: [x, y]
b: []
c: {}
d:
- k: 1
  l: [[p, q], []]
- ''
- null
e: \"it's\"
f: \"*\"
g: \": x\"
h: \"a #b\"
i: a#b
j: \" lead\"
k: \"tab\\tx\"
l: \"smile 😀\"
m: '1.0'
n: 0644
o: \"---\"
\"y\": yes
";
    let want = "\
a:
- x
- \"y\"
b: []
c: {}
d:
- k: 1
  l:
  - - p
    - q
  - []
- \"\"
- null
e: it's
f: '*'
g: ': x'
h: 'a #b'
i: a#b
j: ' lead'
k: \"tab\\tx\"
l: \"smile \\U0001F600\"
m: \"1.0\"
\"n\": 0644
o: '---'
\"y\": \"yes\"
";
    assert_eq!(emit(&parse_one(input)), want);
}

#[test]
fn multi_line_strings_use_literal_blocks_with_the_right_header() {
    let input =
        "a: \"x\\ny\"\nb: \"x\\n\"\nc: \"x\\n\\n\"\nd: \"  lead\\n\"\ne: \"trail \\nx\"\n- \n";
    let input = input.trim_end_matches("- \n");
    let want = "a: |-\n  x\n  y\nb: |\n  x\nc: |+\n  x\n\nd: |2\n    lead\ne: \"trail \\nx\"\n";
    assert_eq!(emit(&parse_one(input)), want);
}

#[test]
fn long_lines_fold_after_column_80() {
    let words = "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp";
    // The break happens at the first space once the column is past 80.
    let root = parse_one(&format!(
        "long1: {words}\nqqq: \"x{words}\\t\"\nfits: {words}\n"
    ));
    assert_eq!(
        emit(&root),
        "long1: aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo\n  pppp\n\
         qqq: \"xaaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo\n  pppp\\t\"\n\
         fits: aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp\n"
    );
}

#[test]
fn keys_sort_in_go_yaml_v2_order_and_streams_join_with_dashes() {
    let root = parse_one("a10: 1\na9: 1\nA_: 1\n_A: 1\nab: 1\na-b: 1\n");
    let printed = emit_with(
        &root,
        &EmitOptions {
            sort_keys: true,
            ..EmitOptions::default()
        },
    );
    assert_eq!(printed, "_A: 1\nA_: 1\na-b: 1\na9: 1\na10: 1\nab: 1\n");
    // Checked against `kubectl kustomize`.
    let mut root = parse_one(
        "a1: x\na01: x\na001: x\na10: x\na2: x\na0b: x\na100: x\n'10': x\n'9': x\n'09': x\n\
         x-1: x\nx_1: x\nx.1: x\nX1: x\né: x\ne: x\na10b: x\na10a: x\na010: x\n",
    );
    sort_keys(&mut root);
    let keys: Vec<&str> = root
        .as_mapping()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "9", "09", "10", "X1", "a1", "a01", "a001", "a0b", "a2", "a10", "a100", "a10a", "a10b",
            "a010", "e", "x-1", "x.1", "x_1", "é"
        ]
    );
    let docs = [parse_one("a: 1\n"), parse_one("b: 2\n")];
    assert_eq!(emit_stream(&docs), "a: 1\n---\nb: 2\n");
}

#[test]
fn style_preserving_mode_prints_as_kyaml() {
    let input = "\
a: [\"printenv\", x]
b: {c: 'd', e: ~}
f: \"tomcat.svc\"
g: 'single'
h: yes
i: 0644
j: !!python/name:mod.fn
k: >
  folded text
  here
l: |
  kept
m:
n: {o: }
";
    let want = "\
a: [\"printenv\", x]
b: {c: 'd', e: ~}
f: \"tomcat.svc\"
g: 'single'
h: yes
i: 0644
j: !!python/name:mod.fn
k: >
  folded text here
l: |
  kept
m:
n: {o: null}
";
    let options = EmitOptions {
        preserve_style: true,
        ..EmitOptions::default()
    };
    let root = parse_one(input);
    let printed = emit_with(&root, &options);
    assert_eq!(printed, want);
    assert_eq!(to_json_kyaml(&parse_one(&printed)), to_json_kyaml(&root));
}

#[test]
fn canonical_kyaml_respells_numbers_as_kustomize_does() {
    let root = parse_one(
        "r2: -.5\nr3: 1.\nr4: 0x_1F\nr5: 1e400\nr6: 0.0\nr7: -0\nr8: 0B101\nr10: 00\n\
         r11: 0.1e1\nr12: 9223372036854775808\nr13: -9223372036854775809\nf: Off\n\
         ac: 2001-12-14t21:59:43.10-05:00\nu: 12345678901234567890\n",
    );
    // Expected text is `kubectl kustomize` output for the same fields.
    assert_eq!(
        emit(&canonical_kyaml(&root)),
        "ac: \"2001-12-14T21:59:43.1-05:00\"\nf: \"Off\"\nr2: -0.5\nr3: 1\nr4: 31\nr5: 1e400\n\
         r6: 0\nr7: 0\nr8: 5\nr10: 0\nr11: 1\nr12: 9223372036854775808\n\
         r13: -9.223372036854776e+18\nu: 12345678901234567890\n"
    );
}

#[test]
fn crlf_line_ends_and_a_leading_bom_are_read_like_lf() {
    let root = parse_one("\u{feff}a: 1\r\nb: |\r\n  x\r\n  y\r\nc: \"p\r\n  q\"\r\n");
    assert_eq!(scalar(&root, &["a"]).value, "1");
    assert_eq!(scalar(&root, &["b"]).value, "x\ny\n");
    assert_eq!(scalar(&root, &["c"]).value, "p q");
    assert_eq!(scalar(&root, &["b"]).pos, Pos { line: 2, column: 4 });
    let root = parse_one("a:\n  - >-  # folded\n\n    text\n");
    let item = root
        .get("a")
        .and_then(Node::as_sequence)
        .map(|s| s.items[0].pos());
    assert_eq!(item, Some(Pos { line: 2, column: 5 }));
}

#[test]
fn block_scalar_at_the_end_without_a_line_break_keeps_no_final_break() {
    // As libyaml (Go, PyYAML) reads it; Helm's `toYaml` trims the last line break, so a string
    // ending a document loses its final newline on the round trip.
    assert_eq!(scalar(&parse_one("k: |\n  a\n  b"), &["k"]).value, "a\nb");
    assert_eq!(scalar(&parse_one("k: |+\n  a\n  b"), &["k"]).value, "a\nb");
    assert_eq!(scalar(&parse_one("k: >\n  a\n  b"), &["k"]).value, "a b");
    assert_eq!(
        scalar(&parse_one("k: |\n  a\n  b\n"), &["k"]).value,
        "a\nb\n"
    );
    assert_eq!(scalar(&parse_one("k: |\n  a\nj: 1"), &["k"]).value, "a\n");
}

#[test]
fn an_anchor_name_go_yaml_refuses_is_an_error_where_its_scanner_stops() {
    // go-yaml's yaml_parser_scan_anchor takes only letters, digits, `_` and `-`, and fails when
    // the name is followed by anything but a blank or one of `?:,]}%@` and the backquote.
    for text in [
        "a: &x.y value\nb: *x.y\n",
        "a: !!str &x/y value\n",
        "- &é one\n",
    ] {
        let error = parse_stream(text, &ParseOptions::default()).expect_err(text);
        assert!(
            error
                .message
                .contains("did not find expected alphabetic or numeric character"),
            "{text}: {}",
            error.message
        );
        assert_eq!(error.pos.line, 1, "{text}");
    }
    let error = parse_stream("a: &x.y value\n", &ParseOptions::default()).expect_err("dot");
    assert_eq!(error.pos.column, 6, "the column of the `.`");
}

#[test]
fn an_anchor_name_go_yaml_ends_at_an_indicator_reads_as_go_yaml_reads_it() {
    // `&app:` is the anchor `app` followed by a value indicator go-yaml does not allow there.
    assert!(parse_stream("a: &app: value\n", &ParseOptions::default()).is_err());
    // Names go-yaml accepts are untouched, in block and flow style, before and after a tag.
    let root = parse_one("a: &x_y-1 {k: v}\nb: *x_y-1\nc: !!str &t 5\nd: [&f one, *f]\n");
    assert_eq!(root.get("b"), root.get("a"));
    assert_eq!(scalar(&root, &["c"]).value, "5");
}
