//! Executor tests beyond Go's own suite: Helm's executor functions, limits and error details.

use std::collections::{BTreeMap, HashMap};

use super::funcs::FuncEnv;
use super::{ExecOptions, MissingKey, Set, Value};

fn env() -> FuncEnv {
    FuncEnv {
        rng_state: 7,
        now_unix: 0,
        lookups: 0,
        run: None,
    }
}

fn helm_set(templates: &[(&str, &str)]) -> Set {
    let mut set = Set::new("gotpl", HashMap::new()).with_helm_builtins();
    for (name, text) in templates {
        set.add(name, text)
            .unwrap_or_else(|e| panic!("parse {name}: {e}"));
    }
    set
}

fn values(pairs: &[(&str, Value)]) -> Value {
    Value::map(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect::<BTreeMap<_, _>>(),
    )
}

fn run(set: &Set, name: &str, data: &Value, opts: &ExecOptions) -> Result<String, String> {
    set.execute(name, data, opts, &mut env())
        .map_err(|e| e.to_string())
}

fn zero() -> ExecOptions {
    ExecOptions {
        missing_key: MissingKey::Zero,
        ..ExecOptions::default()
    }
}

#[test]
fn include_renders_named_templates_to_strings() {
    let mut set = Set::new("gotpl", HashMap::new()).with_helm_builtins();
    let err = set.add("x", "\n{{ quote 1 }}").unwrap_err();
    assert_eq!(
        err.to_string(),
        "template: x:2: function \"quote\" not defined"
    );
    assert_eq!(err.location().map(|l| (l.line, l.column)), Some((2, None)));
    set.add("main", r#"{{- define "name" -}}{{ printf "%s-app" .n }}{{- end -}}name: {{ include "name" . | len }} {{ include "name" . }}"#)
        .unwrap();
    let data = values(&[("n", Value::String("web".into()))]);
    assert_eq!(
        run(&set, "main", &data, &zero()).unwrap(),
        "name: 7 web-app"
    );
}

#[test]
fn missing_key_zero_gives_helms_nil_pointer_error() {
    let set = helm_set(&[("t", "a: {{ .Values.missing.key }}")]);
    let data = values(&[("Values", values(&[]))]);
    assert_eq!(
        run(&set, "t", &data, &zero()).unwrap_err(),
        "template: t:1:13: executing \"t\" at <.Values.missing.key>: nil pointer evaluating interface {}.key"
    );
    // Go's default prints `<no value>` instead.
    assert_eq!(
        run(&set, "t", &data, &ExecOptions::default()).unwrap(),
        "a: <no value>"
    );
    let err = run(
        &set,
        "t",
        &data,
        &ExecOptions {
            missing_key: MissingKey::Error,
            ..ExecOptions::default()
        },
    );
    assert!(err
        .unwrap_err()
        .ends_with("map has no entry for key \"missing\""));
}

#[test]
fn tpl_parses_into_the_current_set_and_strips_no_value() {
    let set = helm_set(&[(
        "t",
        r#"{{- define "greet" }}hi {{ . }}{{ end -}}{{ tpl .Values.text . }}"#,
    )]);
    let data = values(&[(
        "Values",
        values(&[(
            "text",
            Value::String("{{ include \"greet\" .Values.who }}|{{ .nothing }}|".into()),
        )]),
    )]);
    let with_who = match data {
        Value::Map(mut m) => {
            if let Some(Value::Map(v)) = std::sync::Arc::make_mut(&mut m).get_mut("Values") {
                std::sync::Arc::make_mut(v).insert("who".into(), Value::String("bob".into()));
            }
            Value::Map(m)
        }
        other => other,
    };
    assert_eq!(
        run(&set, "t", &with_who, &ExecOptions::default()).unwrap(),
        "hi bob||"
    );
    let bad = helm_set(&[("t", "{{ tpl \"{{ .x\" . }}")]);
    let err = run(&bad, "t", &values(&[]), &ExecOptions::default()).unwrap_err();
    assert!(err.contains("error calling tpl: cannot parse template \"{{ .x\": template: gotpl:1: unclosed action"), "{err}");
}

#[test]
fn tpl_refuses_a_text_that_is_not_a_string() {
    let set = helm_set(&[("t", "{{ tpl .Values.missing . }}"), ("n", "{{ tpl 1 . }}")]);
    let data = values(&[("Values", values(&[]))]);
    let err = run(&set, "t", &data, &zero()).unwrap_err();
    assert!(
        err.contains("wrong type for value; expected string; got interface {}"),
        "{err}"
    );
    let err = run(&set, "n", &data, &zero()).unwrap_err();
    assert!(err.contains("expected string; got int"), "{err}");
}

#[test]
fn required_fails_on_nil_and_empty_strings() {
    let set = helm_set(&[("t", "{{ required \"x is required\" .x }}")]);
    let err = run(&set, "t", &values(&[]), &ExecOptions::default()).unwrap_err();
    assert_eq!(err, "template: t:1:3: executing \"t\" at <required \"x is required\" .x>: error calling required: x is required");
    assert!(run(
        &set,
        "t",
        &values(&[("x", Value::String(String::new()))]),
        &ExecOptions::default()
    )
    .is_err());
    assert_eq!(
        run(
            &set,
            "t",
            &values(&[("x", Value::Int(0))]),
            &ExecOptions::default()
        )
        .unwrap(),
        "0"
    );
}

#[test]
fn runaway_recursion_ends_with_clear_errors() {
    let set = helm_set(&[(
        "t",
        r#"{{ define "loop" }}{{ include "loop" . }}{{ end }}{{ include "loop" . }}"#,
    )]);
    let err = run(&set, "t", &values(&[]), &ExecOptions::default()).unwrap_err();
    assert!(
        err.contains(
            "rendering template has a nested reference name: loop: unable to execute template"
        ),
        "{}",
        &err[..300.min(err.len())]
    );
    let set = helm_set(&[(
        "t",
        r#"{{ define "loop" }}{{ template "loop" . }}{{ end }}{{ template "loop" . }}"#,
    )]);
    let err = run(&set, "t", &values(&[]), &ExecOptions::default()).unwrap_err();
    assert!(
        err.ends_with("exceeded maximum template depth (3000)"),
        "{err}"
    );
}

#[test]
fn output_is_capped() {
    let set = helm_set(&[("t", "{{ range 100 }}0123456789{{ end }}")]);
    let opts = ExecOptions {
        max_output: 500,
        ..ExecOptions::default()
    };
    assert_eq!(
        run(&set, "t", &Value::Nil, &opts).unwrap_err(),
        "template: t: output exceeds the limit of 500 bytes"
    );
    assert_eq!(
        run(&set, "t", &Value::Nil, &ExecOptions::default())
            .unwrap()
            .len(),
        1000
    );
}

#[test]
fn errors_record_the_template_chain() {
    let set = helm_set(&[(
        "t",
        "{{ define \"a\" }}{{ include \"b\" . }}{{ end }}{{ define \"b\" }}{{ index . 5 }}{{ end }}{{ template \"a\" .x }}",
    )]);
    let data = values(&[("x", Value::List(vec![Value::Int(1)]))]);
    let err = set
        .execute("t", &data, &ExecOptions::default(), &mut env())
        .unwrap_err();
    assert_eq!(err.template_chain(), ["t", "a", "b"]);
    let loc = err.location().expect("an execution error has a location");
    assert_eq!(
        (loc.template.as_str(), loc.line, loc.column),
        ("t", 1, Some(63))
    );
    assert_eq!(
        err.to_string(),
        "template: t:1:19: executing \"a\" at <include \"b\" .>: error calling include: template: t:1:63: executing \"b\" at <index . 5>: error calling index: index out of range: 5"
    );
}

#[test]
fn range_variants_follow_go() {
    let set = helm_set(&[(
        "t",
        "{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}|{{ range $i, $e := .l }}{{ if eq $i 2 }}{{ break }}{{ end }}{{ if eq $i 0 }}{{ continue }}{{ end }}{{ $i }}:{{ $e }}{{ end }}|{{ range $n := 3 }}{{ $n }}{{ end }}|{{ range .none }}x{{ else }}empty{{ end }}",
    )]);
    let m = values(&[("b", Value::Float(1e6)), ("a", Value::Float(2.5))]);
    let l = Value::List(vec![Value::Int(10), Value::Int(11), Value::Int(12)]);
    let data = values(&[("m", m), ("l", l)]);
    assert_eq!(
        run(&set, "t", &data, &ExecOptions::default()).unwrap(),
        "a=2.5;b=1e+06;|1:11|012|empty"
    );
}

#[test]
fn comparisons_and_printf_follow_go_types() {
    let set = helm_set(&[("t", "{{ printf \"%d|%s|%5.1f|%v\" .i .i .f .l }}")]);
    let data = values(&[
        ("i", Value::Int(3)),
        ("f", Value::Float(2.25)),
        (
            "l",
            Value::List(vec![Value::String("a".into()), Value::Nil]),
        ),
    ]);
    assert_eq!(
        run(&set, "t", &data, &ExecOptions::default()).unwrap(),
        "3|%!s(int=3)|  2.2|[a <nil>]"
    );
    let set = helm_set(&[("t", "{{ eq .f 1 }}")]);
    let err = run(
        &set,
        "t",
        &values(&[("f", Value::Float(1.0))]),
        &ExecOptions::default(),
    )
    .unwrap_err();
    assert!(
        err.ends_with("error calling eq: incompatible types for comparison"),
        "{err}"
    );
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let mut set = Set::new("x", HashMap::new());
    for text in [
        "{{",
        "{{ (",
        "{{ .a.b.c.",
        "{{ 'ab' }}",
        "{{ \"\\z\" }}",
        "{{ 0x }}",
        "{{ 1e }}",
        "}}{{end}}",
        "{{ else if }}",
    ] {
        assert!(
            set.add("t", text).is_err(),
            "{text} {:?}",
            set.tree_string("t")
        );
    }
    set.add("t", "{{ slice . 1 9 }}{{ index . -1 }}").unwrap();
    assert!(set
        .execute(
            "t",
            &Value::String("héllo".into()),
            &ExecOptions::default(),
            &mut env()
        )
        .is_err());
}

fn sprig_set(templates: &[(&str, &str)]) -> Set {
    let funcs = super::funcs::sprig_functions()
        .into_iter()
        .map(|(n, f)| (n.to_string(), f))
        .collect();
    let mut set = Set::new("gotpl", funcs).with_helm_builtins();
    for (name, text) in templates {
        set.add(name, text)
            .unwrap_or_else(|e| panic!("parse {name}: {e}"));
    }
    set
}

#[test]
fn map_mutations_reach_variables_and_dot_as_in_go() {
    let set = sprig_set(&[(
        "t",
        "{{- $d := dict \"a\" 1 -}}{{- $_ := set $d \"b\" 2 -}}{{- $_ := unset $d \"a\" -}}{{ $d }}|\
         {{- $_ := set . \"x\" 1 -}}{{ .x }}{{ $.x }}|\
         {{- $_ := set $.Values \"y\" 2 -}}{{ .Values.y }}|\
         {{- $_ := merge .Values (dict \"z\" 3 \"y\" 9) -}}{{ .Values }}",
    )]);
    let data = values(&[("Values", values(&[]))]);
    assert_eq!(
        run(&set, "t", &data, &ExecOptions::default()).unwrap(),
        "map[b:2]|11|2|map[y:2 z:3]"
    );
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]
        #[test]
        fn arbitrary_templates_never_panic(text in "[{}()\\.$a-e|\\- \"'`0-9:=,%ixp\n]{0,40}") {
            let funcs = super::super::funcs::sprig_functions().into_iter().map(|(n, f)| (n.to_string(), f)).collect();
            let mut set = Set::new("f", funcs).with_helm_builtins();
            let _ = set.add("f", &format!("{{{{{text}}}}}"));
            let _ = set.add("g", &text);
            let data = values(&[("a", Value::List(vec![Value::Int(1), Value::Nil])), ("b", values(&[("c", Value::Float(1.5))]))]);
            for name in ["f", "g"] {
                if let Err(e) = set.execute(name, &data, &ExecOptions::default(), &mut env()) {
                    prop_assert!(!e.to_string().contains("internal error"), "{text:?}: {e}");
                }
            }
        }
    }
}

fn methods(
    _: &mut FuncEnv,
    recv: &Value,
    name: &str,
    args: &[Value],
) -> Option<Result<Value, super::funcs::FuncError>> {
    match (recv, name, args) {
        (Value::List(l), "Has", [v]) => Some(Ok(Value::Bool(l.contains(v)))),
        (Value::Map(m), "Get", [Value::String(k)]) => Some(Ok(m
            .get(k)
            .cloned()
            .unwrap_or(Value::String(String::new())))),
        (Value::Map(m), "Names", []) => Some(Ok(Value::List(
            m.keys().map(|k| Value::String(k.clone())).collect(),
        ))),
        (_, "Fail", _) => Some(Err(super::funcs::FuncError("boom".into()))),
        _ => None,
    }
}

#[test]
fn methods_resolve_where_go_finds_no_field() {
    let mut set = Set::new("gotpl", HashMap::new()).with_methods(methods);
    set.add(
        "t",
        "{{ .Caps.APIVersions.Has \"v1\" }} {{ .Caps.APIVersions.Has \"v2\" }} {{ .Files.Get \"a.txt\" }} {{ .Files.Names | len }} {{ with .Files }}{{ .Get \"a.txt\" }}{{ end }} {{ .Files.Fail }}",
    )
    .unwrap();
    let data = values(&[
        (
            "Caps",
            values(&[("APIVersions", Value::List(vec![Value::String("v1".into())]))]),
        ),
        ("Files", values(&[("a.txt", Value::String("hello".into()))])),
    ]);
    let err = run(&set, "t", &data, &ExecOptions::default()).unwrap_err();
    assert!(
        err.ends_with("at <.Files.Fail>: error calling Fail: boom"),
        "{err}"
    );
    set.add("u", "{{ .Caps.APIVersions.Has \"v1\" }} {{ .Caps.APIVersions.Has \"v2\" }} {{ .Files.Get \"a.txt\" }} {{ .Files.Names | len }} {{ with .Files }}{{ .Get \"a.txt\" }}{{ end }}").unwrap();
    assert_eq!(
        run(&set, "u", &data, &ExecOptions::default()).unwrap(),
        "true false hello 1 hello"
    );
}

#[test]
fn explicit_nil_compares_as_in_go() {
    let set = helm_set(&[(
        "t",
        "{{ if ne .x nil }}a{{ end }}{{ eq .missing nil }}{{ eq .x nil }}{{ and nil 1 }}",
    )]);
    let out = run(
        &set,
        "t",
        &values(&[("x", Value::Int(1))]),
        &ExecOptions::default(),
    )
    .unwrap();
    assert_eq!(out, "atruefalse<no value>");
    let set = helm_set(&[("t", "{{ index .m nil }}")]);
    assert!(run(
        &set,
        "t",
        &values(&[("m", values(&[]))]),
        &ExecOptions::default()
    )
    .is_err());
}

#[test]
fn maps_changed_by_called_templates_reach_the_caller() {
    let set = sprig_set(&[(
        "t",
        r#"{{- define "init" }}{{ $_ := set . "Values" (dict "a" 2) }}{{ end -}}
{{- define "ret" }}{{ $_ := set . "out" (list 1 2) }}{{ end -}}
{{- define "nested" }}{{ $_ := set $ "k" "v" }}{{ end -}}
{{- include "init" . }}{{ .Values.a }} {{ $.Values.a }}
{{- $args := dict "in" 1 }}{{ include "ret" $args }} {{ $args.out }}
{{- $d := dict }}{{ template "nested" $d }} {{ $d.k }}"#,
    )]);
    let data = values(&[("Values", values(&[("a", Value::Int(1))]))]);
    assert_eq!(
        run(&set, "t", &data, &ExecOptions::default()).unwrap(),
        "2 2 [1 2] v"
    );
}

#[test]
fn variables_aliasing_a_map_change_it_there_too() {
    let set = sprig_set(&[(
        "t",
        r#"{{- define "sa" }}{{ $root := $ }}{{ $_ := set $root.Values.secrets "tok" 1 }}{{ end -}}
{{- include "sa" . }}{{ .Values.secrets }}
{{- $v := .Values }}{{ $s := $v.secrets }}{{ $_ := set $s "b" 2 }} {{ .Values.secrets }}
{{- $x := dict "a" (dict) }}{{ $x := $x.a }}{{ $_ := set $x "k" 1 }} {{ $x }}"#,
    )]);
    let data = values(&[("Values", values(&[("secrets", values(&[]))]))]);
    assert_eq!(
        run(&set, "t", &data, &ExecOptions::default()).unwrap(),
        "map[tok:1] map[b:2 tok:1] map[k:1]"
    );
}

#[test]
fn range_elements_alias_map_entries_and_list_elements() {
    // As Helm v4 prints it (checked with the reference): maps in a list are shared too.
    let set = sprig_set(&[(
        "t",
        r#"{{- range $k, $v := .m }}{{ $_ := set $v "seen" true }}{{ end }}{{ .m }}
{{- range $i, $e := .l }}{{ $_ := set $e "x" 1 }}{{ end }} {{ .l }}"#,
    )]);
    let data = values(&[
        ("m", values(&[("a", values(&[])), ("b", values(&[]))])),
        ("l", Value::List(vec![values(&[])])),
    ]);
    assert_eq!(
        run(&set, "t", &data, &ExecOptions::default()).unwrap(),
        "map[a:map[seen:true] b:map[seen:true]] [map[x:1]]"
    );
}

#[test]
fn dot_of_nested_ranges_and_with_aliases_where_it_came_from() {
    // app-template's route defaulting: `set` on a map reached through range dots and a variable
    // declared from dot changes the map inside `$obj` (checked with the reference).
    let set = sprig_set(&[(
        "t",
        r#"{{- $obj := .o }}{{- range $obj.rules }}{{ range .refs }}{{ $r := . }}{{ $_ := set $r "id" "svc" }}{{ end }}{{ end }}
{{- with $obj.meta }}{{ $_ := set . "seen" true }}{{ end }}{{ $obj }}"#,
    )]);
    let data = values(&[(
        "o",
        values(&[
            (
                "rules",
                Value::List(vec![values(&[("refs", Value::List(vec![values(&[])]))])]),
            ),
            ("meta", values(&[("a", Value::Int(1))])),
        ]),
    )]);
    assert_eq!(
        run(&set, "t", &data, &ExecOptions::default()).unwrap(),
        "map[meta:map[a:1 seen:true] rules:[map[refs:[map[id:svc]]]]]"
    );
}

#[test]
fn deep_nesting_is_parsed_and_run_or_refused_without_overflow() {
    let mut set = Set::new("d", HashMap::new());
    let n = 1999;
    let text = format!("{}x{}", "{{if 1}}".repeat(n), "{{end}}".repeat(n));
    set.add("ifs", &text).unwrap();
    assert_eq!(
        set.execute("ifs", &Value::Nil, &ExecOptions::default(), &mut env())
            .unwrap(),
        "x"
    );
    let text = format!("{{{{ {}1{} }}}}", "(".repeat(n), ")".repeat(n));
    set.add("parens", &text).unwrap();
    assert_eq!(
        set.execute("parens", &Value::Nil, &ExecOptions::default(), &mut env())
            .unwrap(),
        "1"
    );
    let text = "{{with 1}}".repeat(2001);
    assert!(set
        .add("deep", &text)
        .unwrap_err()
        .to_string()
        .ends_with("max nesting depth exceeded"));
}

/// coredns's `containerPorts`: `$m := set $m k v` declares a shadow that, as in Go, is the same
/// map, so a `set` on the shadow inside a nested range is seen through the outer variable; so is
/// a map reached with `index $m k`.
#[test]
fn variables_declared_from_set_or_index_share_the_map() {
    let funcs: HashMap<_, _> = super::funcs::helm_functions()
        .into_iter()
        .map(|(n, f)| (n.to_string(), f))
        .collect();
    let mut set = Set::new("gotpl", funcs);
    let text = r#"{{- $m := dict -}}
{{- range list 1 -}}
  {{- $m := set $m "a" (dict "n" 1) -}}
  {{- range list 2 -}}{{- $m := set $m "b" 2 -}}{{- end -}}
  {{- $inner := index $m "a" -}}
  {{- $_ := set $inner "n" 3 -}}
{{- end -}}
{{ $m }}"#;
    set.add("t", text).unwrap();
    let out = run(&set, "t", &Value::Nil, &zero()).unwrap();
    assert_eq!(out, "map[a:map[n:3] b:2]");
}

#[test]
fn bound_values_are_zero_argument_functions_rebound_per_run() {
    let mut set = Set::new("rs", HashMap::new());
    set.delims("<<", ">>");
    set.bind("inputs", Value::map(BTreeMap::new()));
    set.add("rs", "<< inputs.tenant >>/<< (inputs).tenant >>")
        .expect("parse");
    let strict = ExecOptions {
        missing_key: MissingKey::Error,
        ..ExecOptions::default()
    };
    for tenant in ["a", "b"] {
        let mut run_set = set.clone();
        run_set.bind(
            "inputs",
            values(&[("tenant", Value::String(tenant.into()))]),
        );
        assert_eq!(
            run(&run_set, "rs", &Value::Nil, &strict),
            Ok(format!("{tenant}/{tenant}"))
        );
    }
    // Go reports a missing key of a function's result at the function, not the whole chain.
    let error = run(&set, "rs", &Value::Nil, &strict).expect_err("missing key");
    assert!(
        error.ends_with("at <inputs>: map has no entry for key \"tenant\""),
        "{error}"
    );
    let mut with_args = Set::new("rs", HashMap::new());
    with_args.bind("inputs", Value::Nil);
    with_args.add("rs", "{{ inputs 1 }}").expect("parse");
    let error = run(&with_args, "rs", &Value::Nil, &strict).expect_err("arguments");
    assert!(
        error.contains("wrong number of args for inputs: want 0 got 1"),
        "{error}"
    );
}

/// Go's `evalArgs` (text/template funcs.go) prints a missing value as `<no value>`, a string to
/// `fmt.Sprint`, before escaping; Helm prints these texts.
#[test]
fn escapers_print_a_missing_value_as_no_value() {
    let set = helm_set(&[(
        "t",
        "{{ html .missing }}|{{ js .missing }}|{{ urlquery .missing }}|{{ html .missing 1 }}",
    )]);
    let got = run(&set, "t", &values(&[]), &ExecOptions::default());
    assert_eq!(
        got.as_deref(),
        Ok("&lt;no value&gt;|\\u003Cno value\\u003E|%3Cno+value%3E|&lt;no value&gt;1")
    );
}

/// Go's `parseControl` counts the range depth for the range's own list only, so `break` and
/// `continue` in its `else` list are a parse error (outside an enclosing range).
#[test]
fn break_in_the_else_of_a_range_is_a_parse_error() {
    for word in ["break", "continue"] {
        let mut set = Set::new("gotpl", HashMap::new()).with_helm_builtins();
        let text =
            format!("{{{{ range .x }}}}{{{{ . }}}}{{{{ else }}}}{{{{ {word} }}}}{{{{ end }}}}");
        let err = set.add("t", &text).err().map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains(&format!("{{{{{word}}}}} outside {{{{range}}}}"))),
            "{word}: {err:?}"
        );
        let mut nested = Set::new("gotpl", HashMap::new()).with_helm_builtins();
        let inside = format!(
            "{{{{ range .y }}}}{{{{ range .x }}}}{{{{ . }}}}{{{{ else }}}}{{{{ {word} }}}}{{{{ end }}}}{{{{ end }}}}"
        );
        assert!(nested.add("t", &inside).is_ok(), "{word} in an outer range");
    }
}

/// On a thread declared to have the big stack, a template runs in place, and a panic in it is
/// the same error as on a thread of its own.
#[test]
fn a_panic_on_a_declared_big_stack_thread_is_an_internal_error() {
    let outcome = std::thread::Builder::new()
        .stack_size(super::BIG_STACK_SIZE)
        .spawn(|| {
            super::declare_big_stack();
            let here = std::thread::current().id();
            let ran_here = super::on_big_stack("t", || Ok(std::thread::current().id() == here));
            let panicked = super::on_big_stack::<()>("t", || panic!("boom"));
            (ran_here, panicked.map_err(|e| e.to_string()))
        })
        .expect("thread")
        .join()
        .expect("joined");
    assert!(matches!(outcome.0, Ok(true)), "{:?}", outcome.0.is_ok());
    let message = outcome.1.expect_err("a panic is an error");
    assert!(message.contains("internal error (panic)"), "{message}");
}
