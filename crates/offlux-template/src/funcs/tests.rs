//! Direct tests of the function maps: registration, and Go-faithful results for a sample of
//! functions per area.

use super::gofmt::format_v as go_sprint;
use super::*;

fn env() -> FuncEnv {
    FuncEnv {
        rng_state: 42,
        now_unix: 1_700_000_000,
        lookups: 0,
        run: None,
    }
}

fn call(name: &str, args: &[Value]) -> Result<Value, FuncError> {
    let f = helm_functions()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| f)
        .unwrap_or_else(|| panic!("no function {name}"));
    f(&mut env(), args)
}

fn s(v: &str) -> Value {
    Value::String(v.into())
}

fn text(name: &str, args: &[Value]) -> String {
    go_sprint(&call(name, args).unwrap())
}

#[test]
fn maps_have_no_duplicates_and_omit_env() {
    let names: Vec<&str> = sprig_functions().iter().map(|(n, _)| *n).collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len());
    assert!(!names.contains(&"env") && !names.contains(&"expandenv"));
    let helm: Vec<&str> = helm_functions().iter().map(|(n, _)| *n).collect();
    for n in ["toYaml", "fromYaml", "lookup", "durationSeconds", "trunc"] {
        assert!(helm.contains(&n), "{n}");
    }
    // The executor provides these; registering them here would shadow its versions.
    assert!(!helm.contains(&"required") && !helm.contains(&"include"));
}

#[test]
fn strings_follow_sprig() {
    assert_eq!(
        text(
            "abbrevboth",
            &[Value::Int(5), Value::Int(10), s("1234 5678 9123")]
        ),
        "...5678..."
    );
    assert_eq!(text("trunc", &[Value::Int(-3), s("baaaaaar")]), "aar");
    assert_eq!(text("snakecase", &[s("HTTPServer")]), "http_server");
    assert_eq!(text("snakecase", &[s("NoHTTPS")]), "no_https");
    assert_eq!(text("camelcase", &[s("_camel_case")]), "_CamelCase");
    assert_eq!(
        text("wrap", &[Value::Int(5), s("Hello World")]),
        "Hello\nWorld"
    );
    assert_eq!(
        text("quote", &[s("\"a\""), Value::Int(1), Value::Nil]),
        "\"\\\"a\\\"\" \"1\""
    );
    assert_eq!(text("nindent", &[Value::Int(2), s("a\nb")]), "\n  a\n  b");
    assert_eq!(text("splitList", &[s("$"), s("a$b")]), "[a b]");
    assert_eq!(
        text(
            "sortAlpha",
            &[Value::List(vec![Value::Int(2), Value::Int(1)])]
        ),
        "[1 2]"
    );
    assert_eq!(
        call("substr", &[s("0"), Value::Int(1), s("x")])
            .unwrap_err()
            .0,
        "wrong type for value; expected int; got string"
    );
    assert_eq!(
        call("upper", &[]).unwrap_err().0,
        "wrong number of args for upper: want 1 got 0"
    );
}

#[test]
fn math_and_lists_follow_sprig() {
    assert_eq!(text("seq", &[Value::Int(-5)]), "1 0 -1 -2 -3 -4 -5");
    assert_eq!(
        text("seq", &[Value::Int(0), Value::Int(3), Value::Int(10)]),
        "0 3 6 9"
    );
    assert_eq!(text("add1f", &[Value::Float(3.4)]), "4.4");
    assert_eq!(text("toDecimal", &[Value::Int(770)]), "504");
    assert_eq!(text("round", &[Value::Float(3.746), Value::Int(2)]), "3.75");
    assert_eq!(
        text(
            "untilStep",
            &[Value::Int(0), Value::Int(-10), Value::Int(-2)]
        ),
        "[0 -2 -4 -6 -8]"
    );
    let l = Value::List(vec![Value::Int(1), s("foo"), Value::Int(1), s("")]);
    assert_eq!(text("uniq", std::slice::from_ref(&l)), "[1 foo ]");
    assert_eq!(text("compact", std::slice::from_ref(&l)), "[1 foo 1]");
    assert_eq!(text("chunk", &[Value::Int(3), l.clone()]), "[[1 foo 1] []]");
    assert_eq!(text("slice", &[l, Value::Int(1), Value::Int(2)]), "[foo]");
    assert!(call("first", &[s("x")]).is_err());
}

#[test]
fn dicts_merge_like_mergo() {
    let inner = |v: &str| Value::map([("bar".to_string(), s(v))].into());
    let one = Value::map(
        [
            ("foo".to_string(), inner("baz")),
            ("qux".to_string(), Value::Bool(true)),
        ]
        .into(),
    );
    let two = Value::map(
        [
            ("foo".to_string(), inner("baz2")),
            ("qux".to_string(), Value::Bool(false)),
        ]
        .into(),
    );
    let target = Value::Map(Default::default());
    assert_eq!(
        text("merge", &[target.clone(), one.clone(), two.clone()]),
        "map[foo:map[bar:baz] qux:true]"
    );
    assert_eq!(
        text("mergeOverwrite", &[target, one, two.clone()]),
        "map[foo:map[bar:baz2] qux:false]"
    );
    assert_eq!(
        text("dig", &[s("foo"), s("bar"), s("d"), two.clone()]),
        "baz2"
    );
    assert_eq!(text("dig", &[s("x"), s("d"), two]), "d");
    assert!(mutates_first_arg("set"));
}

#[test]
fn json_and_reflection_follow_go() {
    let m = Value::map(
        [
            ("a".to_string(), s("<&>")),
            ("n".to_string(), Value::Float(1e21)),
        ]
        .into(),
    );
    assert_eq!(
        text("toJson", std::slice::from_ref(&m)),
        r#"{"a":"\u003c\u0026\u003e","n":1e+21}"#
    );
    assert_eq!(
        text("toRawJson", std::slice::from_ref(&m)),
        r#"{"a":"<&>","n":1e+21}"#
    );
    assert_eq!(text("fromJson", &[s(r#"{"foo": 55}"#)]), "map[foo:55]");
    assert_eq!(
        text("fromJson", &[s("[1]")]),
        "map[Error:json: cannot unmarshal array into Go value of type map[string]interface {}]"
    );
    assert_eq!(text("typeOf", &[Value::Float(1.0)]), "float64");
    assert_eq!(text("kindOf", &[Value::List(vec![])]), "slice");
    assert_eq!(go_sprint(&Value::Float(1_234_567.0)), "1.234567e+06");
}

#[test]
fn regex_semver_and_encoding() {
    assert_eq!(
        text(
            "regexReplaceAll",
            &[s("a(x*)b"), s("-ab-axxb-"), s("${1}W")]
        ),
        "-W-xxW-"
    );
    assert_eq!(
        text("regexReplaceAll", &[s("a(x*)b"), s("-ab-axxb-"), s("$1W")]),
        "---"
    );
    assert_eq!(
        text("regexSplit", &[s("/"), s("foo//bar"), Value::Int(-1)]),
        "[foo  bar]"
    );
    assert_eq!(text("semverCompare", &[s("^1.2.0"), s("1.2.3")]), "true");
    assert!(call("semverCompare", &[s("badConstraint"), s("1.2.3")]).is_err());
    assert_eq!(text("b32enc", &[s("abc")]), "MFRGG===");
    assert_eq!(text("b32dec", &[s("MFRGG===")]), "abc");
    assert_eq!(
        text("sha1sum", &[s("abc")]),
        "a9993e364706816aba3e25717850c26c9cd0d89d"
    );
    assert_eq!(text("adler32sum", &[s("abc")]), "38600999");
}

#[test]
fn helm_conversions_and_durations() {
    assert_eq!(
        text(
            "toYaml",
            &[Value::map([("foo".to_string(), s("bar"))].into())]
        ),
        "foo: bar"
    );
    assert_eq!(
        text("fromYamlArray", &[s("- one\n- 2\n- name: helm\n")]),
        "[one 2 map[name:helm]]"
    );
    assert_eq!(
        text("fromYaml", &[s("- one\n")]),
        "map[Error:error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}]"
    );
    assert_eq!(
        text(
            "toToml",
            &[Value::map([("foo".to_string(), s("bar"))].into())]
        ),
        "foo = \"bar\"\n"
    );
    assert_eq!(text("durationSeconds", &[s("1m30s")]), "90");
    // Helm's asDuration reads a string that is no Go duration as a number of seconds.
    assert_eq!(text("durationSeconds", &[s("2.5")]), "2.5");
    assert_eq!(text("durationSeconds", &[s("  2.5  ")]), "2.5");
    assert_eq!(text("durationMilliseconds", &[s("1e-3")]), "1");
    assert_eq!(text("mustToDuration", &[s("90")]), "1m30s");
    assert_eq!(text("durationSeconds", &[s("2.5x")]), "0");
    assert_eq!(text("durationNanoseconds", &[Value::Int(2)]), "2000000000");
    assert_eq!(text("durationWeeks", &[s("252h")]), "1.5");
    assert_eq!(
        text("durationRoundTo", &[Value::Int(93), Value::Int(60)]),
        "2m0s"
    );
    assert_eq!(text("durationTruncateTo", &[s("93s"), s("nope")]), "1m33s");
    assert!(call("mustToDuration", &[s("   ")]).is_err());
    assert_eq!(
        text("lookup", &[s("v1"), s("Namespace"), s(""), s("x")]),
        "map[]"
    );
}

#[test]
fn random_functions_are_deterministic() {
    let a = text("randAlphaNum", &[Value::Int(12)]);
    assert_eq!(a.len(), 12);
    assert_eq!(a, text("randAlphaNum", &[Value::Int(12)]));
    let u = text("uuidv4", &[]);
    assert_eq!(u.len(), 36);
    assert_eq!(&u[14..15], "4");
}

/// Expected texts printed by real Helm v4 (`shared/oracle/helm-template`) for `toYaml`,
/// `toYamlPretty` and `toToml` over these values.
const ORACLE_VALUES: &str = r#"a:
  long: "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua."
  longnospace: "LoremipsumdolorsitametconsecteturadipiscingelitseddoeiusmodtemporincididuntutlaboreetdoloremagnaaliquaLoremipsum"
  tab: "a\tb"
  multi: "line1\nline2\n"
  multinotrail: "line1\n  line2"
  trailspace: "line1 \nline2"
  leading: " lead"
  colon: "a: b"
  hash: "a #b"
  star: "*x"
  dash: "- x"
  on: "on"
  yes: "yes"
  num: "123"
  float: "1.5"
  octal: "0777"
  date: "2001-12-14"
  empty: ""
  tilde: "~"
  bignum: 12345678
  flt: 1.5
  sci: 1e+21
  bool: true
  list: []
  map: {}
  nested:
  - name: x
    ports:
    - 80
    - 443
  - - a
    - b
  item10: 1
  item9: 2
  _under: 3
  Upper: 4
  "key with space": 5
  "123": 6
  unicode: "héllo wörld ✓"
  quote: "it's"
  dq: 'say "hi"'
  brackets: "[a, b]"
  brace: "{a}"
  comma: "a, b"
  pct: "%x"
  at: "@x"
  bang: "!x"
  amp: "&x"
  q: "? x"
  longwords: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb cccccccccccccccccccccccccccccc dddd"
  longquoted: "true aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb: ccccccccccccccccccccccccccccc dddd"
  crlf: "a\r\nb"
"#;
const ORACLE_TO_YAML: &str = r#"a:
  _under: 3
  "123": 6
  Upper: 4
  amp: '&x'
  at: '@x'
  bang: '!x'
  bignum: 12345678
  bool: true
  brace: '{a}'
  brackets: '[a, b]'
  colon: 'a: b'
  comma: a, b
  crlf: "a\r\nb"
  dash: '- x'
  date: "2001-12-14"
  dq: say "hi"
  empty: ""
  float: "1.5"
  flt: 1.5
  hash: 'a #b'
  item9: 2
  item10: 1
  key with space: 5
  leading: ' lead'
  list: []
  long: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor
    incididunt ut labore et dolore magna aliqua.
  longnospace: LoremipsumdolorsitametconsecteturadipiscingelitseddoeiusmodtemporincididuntutlaboreetdoloremagnaaliquaLoremipsum
  longquoted: 'true aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb:
    ccccccccccccccccccccccccccccc dddd'
  longwords: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
    cccccccccccccccccccccccccccccc dddd
  map: {}
  multi: |
    line1
    line2
  multinotrail: |-
    line1
      line2
  nested:
  - name: x
    ports:
    - 80
    - 443
  - - a
    - b
  num: "123"
  octal: "0777"
  pct: '%x'
  q: '? x'
  quote: it's
  sci: 1e+21
  star: '*x'
  tab: "a\tb"
  tilde: "~"
  trailspace: "line1 \nline2"
  "true": "yes"
  unicode: héllo wörld ✓"#;
const ORACLE_TO_YAML_PRETTY: &str = r#"a:
  _under: 3
  "123": 6
  Upper: 4
  amp: '&x'
  at: '@x'
  bang: '!x'
  bignum: 1.2345678e+07
  bool: true
  brace: '{a}'
  brackets: '[a, b]'
  colon: 'a: b'
  comma: a, b
  crlf: "a\r\nb"
  dash: '- x'
  date: "2001-12-14"
  dq: say "hi"
  empty: ""
  float: "1.5"
  flt: 1.5
  hash: 'a #b'
  item9: 2
  item10: 1
  key with space: 5
  leading: ' lead'
  list: []
  long: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.
  longnospace: LoremipsumdolorsitametconsecteturadipiscingelitseddoeiusmodtemporincididuntutlaboreetdoloremagnaaliquaLoremipsum
  longquoted: 'true aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb: ccccccccccccccccccccccccccccc dddd'
  longwords: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb cccccccccccccccccccccccccccccc dddd
  map: {}
  multi: |
    line1
    line2
  multinotrail: |-
    line1
      line2
  nested:
    - name: x
      ports:
        - 80
        - 443
    - - a
      - b
  num: "123"
  octal: "0777"
  pct: '%x'
  q: '? x'
  quote: it's
  sci: 1e+21
  star: '*x'
  tab: "a\tb"
  tilde: "~"
  trailspace: "line1 \nline2"
  "true": "yes"
  unicode: héllo wörld ✓"#;
const ORACLE_TO_TOML: &str = r#"[{name = "x", ports = [80.0, 443.0]}, ["a", "b"]]"#;

#[test]
fn yaml_and_toml_match_helm() {
    let values = call("fromYaml", &[s(ORACLE_VALUES)]).unwrap();
    assert_eq!(
        text("toYaml", std::slice::from_ref(&values)),
        ORACLE_TO_YAML
    );
    assert_eq!(
        text("toYamlPretty", std::slice::from_ref(&values)),
        ORACLE_TO_YAML_PRETTY
    );
    let nested = match &values {
        Value::Map(m) => match m.get("a") {
            Some(Value::Map(a)) => a.get("nested").cloned().unwrap_or_default(),
            _ => Value::Nil,
        },
        _ => Value::Nil,
    };
    assert_eq!(text("toToml", &[nested]), ORACLE_TO_TOML);
}

#[test]
fn hostile_nesting_is_an_error_not_a_crash() {
    let deep_yaml = "[".repeat(5000);
    let v = call("fromYaml", &[s(&deep_yaml)]).unwrap();
    assert!(
        matches!(&v, Value::Map(m) if m.contains_key("Error")),
        "{v:?}"
    );
    let deep_toml = format!("a = {}", "[".repeat(5000));
    let v = call("fromToml", &[s(&deep_toml)]).unwrap();
    assert!(
        matches!(&v, Value::Map(m) if m.contains_key("Error")),
        "{v:?}"
    );
    let deep_json = "[".repeat(5000);
    let v = call("fromJson", &[s(&deep_json)]).unwrap();
    assert!(
        matches!(&v, Value::Map(m) if m.contains_key("Error")),
        "{v:?}"
    );
    assert!(call("repeat", &[Value::Int(1 << 40), s("ab")]).is_err());
    assert!(call("until", &[Value::Int(1 << 40)]).is_err());
}

#[test]
fn case_conversions_match_helm_v4() {
    // (function, input, what Helm v4's Sprig printed)
    let cases = [
        ("snakecase", "FirstName", "first_name"),
        ("snakecase", "HTTPServer", "http_server"),
        ("snakecase", "NoHTTPS", "no_https"),
        ("snakecase", "GO PATH", "go_path"),
        ("snakecase", "GO-PATH", "go_path"),
        ("snakecase", "a1B2c", "a1_b_2c"),
        ("snakecase", "ab2c", "ab_2c"),
        ("snakecase", "AB2c", "ab_2c"),
        ("snakecase", "a2B", "a2_b"),
        ("snakecase", "x.y", "x.y"),
        ("snakecase", "already_snake", "already_snake"),
        ("snakecase", "Title Case Words", "title_case_words"),
        ("snakecase", "camelCase123Abc", "camel_case123_abc"),
        ("snakecase", "__x__", "__x__"),
        ("snakecase", "a  b", "a__b"),
        ("snakecase", "ÉtéCool", "été_cool"),
        ("snakecase", "a_B", "a_b"),
        ("snakecase", "ID", "id"),
        ("snakecase", "v1.2", "v1.2"),
        ("camelcase", "_camel_case", "_CamelCase"),
        ("camelcase", "http_server", "HttpServer"),
        ("camelcase", "all", "All"),
        ("camelcase", "hello world", "HelloWorld"),
        ("camelcase", "foo-bar_baz", "FooBarBaz"),
        ("camelcase", "fooBar", "FooBar"),
        ("camelcase", "FOO_BAR", "FooBar"),
        ("camelcase", "a__b", "A_B"),
        ("camelcase", "x.y", "X.y"),
        ("camelcase", "hello  world", "Hello World"),
        ("camelcase", "123abc", "123abc"),
        ("camelcase", "a_1b", "A1b"),
        ("camelcase", "snake_case_ID", "SnakeCaseId"),
        ("kebabcase", "GO_PATH", "go-path"),
        ("kebabcase", "a1B2c", "a1-b-2c"),
        ("kebabcase", "FirstName", "first-name"),
        ("kebabcase", "HTTPServer", "http-server"),
        ("kebabcase", "x y-z", "x-y-z"),
    ];
    for (f, input, want) in cases {
        assert_eq!(text(f, &[s(input)]), want, "{f} {input:?}");
    }
}

#[test]
fn semver_results_have_version_methods() {
    let a = call("semver", &[s("1.2.3")]).unwrap();
    let b = call("semver", &[s("v1.3.0-rc.1")]).unwrap();
    let cmp =
        |x: &Value, m: &str, y: &Value| sprig_methods(&mut env(), x, m, std::slice::from_ref(y));
    assert_eq!(cmp(&a, "Compare", &b), Some(Ok(Value::Int(-1))));
    assert_eq!(cmp(&b, "GreaterThan", &a), Some(Ok(Value::Bool(true))));
    assert_eq!(
        sprig_methods(&mut env(), &b, "String", &[]),
        Some(Ok(s("1.3.0-rc.1")))
    );
    assert_eq!(sprig_methods(&mut env(), &a, "Nope", &[]), None);
    assert_eq!(sprig_methods(&mut env(), &s("x"), "Compare", &[]), None);
    assert!(matches!(cmp(&a, "Compare", &s("1.0.0")), Some(Err(_))));
}
