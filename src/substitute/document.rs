//! Flux's post-build substitution of one object, as kustomize-controller does it (through
//! fluxcd/pkg `kustomize.SubstituteVariables`): the object is printed as YAML, the whole text goes
//! through envsubst (so keys and values alike can be substituted), and the result is read back.
//! Upstream reads it back through JSON (`sigs.k8s.io/yaml.YAMLToJSON`, a YAML 1.1 reader), so
//! plain scalars are retyped the YAML 1.1 way (`on` is a boolean, `0644` is 420) and numbers become
//! float64s; `normalise` gives the result the types and spellings that survive that trip.
//!
//! Not here: collecting the variables (`substitute` and `substituteFrom` data with newlines
//! removed) and deciding whether a Kustomization substitutes at all; the controller does that.

use std::collections::{BTreeMap, BTreeSet};

use crate::yaml::{self, Node, Scalar, ScalarStyle};

use super::error::{Error, ErrorKind};
use super::eval::Eval;
use super::parse::parse;

/// The label or annotation that opts an object out of substitution, and its value.
pub const DISABLE_KEY: &str = "kustomize.toolkit.fluxcd.io/substitute";
pub const DISABLED_VALUE: &str = "disabled";

/// How `substitute_document` behaves.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// An unset variable read without a default operator is an error (Flux's
    /// `--feature-gates=StrictPostBuildSubstitutions`).
    pub strict: bool,
    /// Substitute even when there are no variables, so that defaults such as `${x:=dev}` apply
    /// (upstream `SubstituteWithAlways`); without it an empty variable set leaves objects untouched.
    pub always: bool,
    /// Variables whose values are hidden (`--redact-secret-values`: those from a Secret): every
    /// expression that reads one, whatever its operator, yields `REDACTED` instead.
    pub redacted: BTreeSet<String>,
    /// The run whose alias-node budget the substituted text's re-read is charged to (a value
    /// may bring anchors and aliases of its own into every document it lands in).
    pub run: Option<std::sync::Arc<crate::budget::RunBudget>>,
}

/// What an expression reading a redacted variable yields: a plain word, so the substituted
/// object still reads back as YAML.
pub const REDACTED: &str = super::eval::REDACTED;

/// Expands `${...}` expressions in `text`. `lookup` gives a variable's value, `None` when it is not
/// set; outside strict mode an unset variable reads as empty.
pub fn envsubst<F>(text: &str, lookup: F, strict: bool) -> Result<String, Error>
where
    F: Fn(&str) -> Option<String>,
{
    envsubst_redacting(text, &lookup, strict, &|_| false)
}

/// `envsubst`, with every expression that reads a variable `redacted` names yielding `REDACTED`.
fn envsubst_redacting<F>(
    text: &str,
    lookup: &F,
    strict: bool,
    redacted: &dyn Fn(&str) -> bool,
) -> Result<String, Error>
where
    F: Fn(&str) -> Option<String>,
{
    let exprs = parse(text)?;
    let mut out = String::with_capacity(text.len());
    Eval {
        src: text,
        lookup,
        strict,
        redacted,
    }
    .exprs(&exprs, &mut out)?;
    Ok(out)
}

/// Whether Flux accepts `name` as a variable name: an ASCII letter or `_`, then ASCII letters,
/// digits or `_`.
pub fn is_valid_var_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b == b'_' || b.is_ascii_alphabetic())
        && bytes.all(|b| b == b'_' || b.is_ascii_alphanumeric())
}

/// Whether the object carries `kustomize.toolkit.fluxcd.io/substitute: disabled` as a label or an
/// annotation.
pub fn is_substitution_disabled(doc: &Node) -> bool {
    ["labels", "annotations"].iter().any(|field| {
        doc.get_path(&["metadata", field, DISABLE_KEY])
            .and_then(Node::as_scalar)
            .is_some_and(|s| s.value == DISABLED_VALUE)
    })
}

/// Substitutes `vars` into one object. Returns the object unchanged when it opts out, or when
/// `vars` is empty and `options.always` is off.
pub fn substitute_document(
    doc: Node,
    vars: &BTreeMap<String, String>,
    options: &Options,
) -> Result<Node, Error> {
    if is_substitution_disabled(&doc) || (vars.is_empty() && !options.always) {
        return Ok(doc);
    }
    // Upstream checks the names in map order, which is random; sorted order makes the report stable.
    if let Some(name) = vars.keys().find(|name| !is_valid_var_name(name)) {
        return Err(Error::new(ErrorKind::InvalidVariableName {
            name: name.clone(),
        }));
    }
    let lookup = |name: &str| vars.get(name).cloned();
    let redacted = |name: &str| options.redacted.contains(name);
    let expand = |text: &str| envsubst_redacting(text, &lookup, options.strict, &redacted);
    // envsubst leaves text without a `$` as it is; where every `$` can be substituted scalar by
    // scalar, the YAML round trip is worked out on the tree.
    let mut values = Vec::new();
    if plain_value_substitutions(&doc, &expand, &mut values) {
        return substitute_on_tree(doc, values);
    }
    substitute_text_charged(&doc, expand, options.run.clone())
}

/// What printing, substituting and reading back gives, worked out on the tree in one walk: each
/// scalar reread, the ones holding a `$` given their substituted `values` (from
/// `plain_value_substitutions`, in tree order), then normalised.
fn substitute_on_tree(mut doc: Node, values: Vec<String>) -> Result<Node, Error> {
    let mut values = values.into_iter();
    yaml::reread_then(&mut doc, &mut |scalar, is_key, plain_word| {
        if plain_word {
            // A string to every reader, with no `$`: what `normalise_*` make of it.
            scalar.style = ScalarStyle::DoubleQuoted;
            return Ok(());
        }
        if is_key {
            normalise_key(scalar);
            return Ok(());
        }
        if scalar.value.contains('$') {
            if let Some(value) = values.next() {
                scalar.value = value.into();
            }
        }
        normalise_scalar(scalar)
    })?;
    Ok(doc)
}

/// Substitutes each scalar on its own, where that is what substituting the object's printed text
/// does: every `$` sits either in a value with no expression or escape in it (left as it is), or in
/// a value that `reread` leaves plain on one line (no space in it, so the emitter cannot fold it),
/// whose expressions expand without error and whose result reads back as one plain scalar. Pushes the new values in tree order and returns true when every `$` qualifies;
/// false when any does not, and then only the whole text round trip gives upstream's answer.
fn plain_value_substitutions<F>(node: &Node, expand: &F, out: &mut Vec<String>) -> bool
where
    F: Fn(&str) -> Result<String, Error>,
{
    match node {
        Node::Scalar(s) => {
            // Reading back respells only nulls and booleans, which hold no `$`.
            if !has_dollar(&s.value) {
                return true;
            }
            let (text, style) = yaml::reread_value(s);
            if !text.contains('$') {
                return true;
            }
            // Without `${` or `$$` envsubst leaves the printed scalar as it is, whatever its
            // style (a `$` cannot meet a `{` or `$` of the text printed around it).
            if !text.contains("${") && !text.contains("$$") {
                out.push(text.to_owned());
                return true;
            }
            if style != ScalarStyle::Plain || text.contains(' ') {
                return false;
            }
            match expand(text) {
                Ok(value) if yaml::reads_back_as_plain(&value) => {
                    out.push(value);
                    true
                }
                _ => false,
            }
        }
        Node::Sequence(seq) => seq
            .items
            .iter()
            .all(|item| plain_value_substitutions(item, expand, out)),
        Node::Mapping(map) => map.entries.iter().all(|entry| {
            !has_dollar(&entry.key.value) && plain_value_substitutions(&entry.value, expand, out)
        }),
    }
}

/// `text.contains('$')`: without a call into `memchr` for the short keys and values most are, and
/// with it for the long texts that hold most of the bytes.
fn has_dollar(text: &str) -> bool {
    if text.len() < 32 {
        text.bytes().any(|b| b == b'$')
    } else {
        text.as_bytes().contains(&b'$')
    }
}

/// Upstream's way: print, substitute the text, read back.
#[cfg(test)]
fn substitute_text<F>(doc: &Node, expand: F) -> Result<Node, Error>
where
    F: Fn(&str) -> Result<String, Error>,
{
    substitute_text_charged(doc, expand, None)
}

/// [`substitute_text`], the re-read charged to `run`'s alias-node budget.
fn substitute_text_charged<F>(
    doc: &Node,
    expand: F,
    run: Option<std::sync::Arc<crate::budget::RunBudget>>,
) -> Result<Node, Error>
where
    F: Fn(&str) -> Result<String, Error>,
{
    let text = yaml::emit(doc);
    let out = expand(&text)?;
    let options = yaml::ParseOptions {
        run,
        ..yaml::ParseOptions::default()
    };
    let docs = yaml::parse_stream(&out, &options).map_err(|e| Error::new(ErrorKind::Yaml(e)))?;
    // Upstream's YAML-to-JSON step reads the first document and ignores the rest.
    let root = docs
        .into_iter()
        .next()
        .map(|d| d.into_root())
        .filter(|root| matches!(root, Node::Mapping(_)))
        .ok_or_else(|| Error::new(ErrorKind::NotAnObject))?;
    normalise(root)
}

/// Whether any key or scalar holds a `$`: only then can the printed object hold an expression.
#[cfg(test)]
fn mentions_dollar(node: &Node) -> bool {
    match node {
        Node::Scalar(s) => s.value.contains('$'),
        Node::Sequence(seq) => seq.items.iter().any(mentions_dollar),
        Node::Mapping(map) => map
            .entries
            .iter()
            .any(|e| e.key.value.contains('$') || mentions_dollar(&e.value)),
    }
}

/// Gives every scalar the type and spelling the upstream round trip leaves it with. Plain scalars
/// are read the YAML 1.1 way: booleans (`yes`, `on`, `y`, ...) become `true`/`false`, nulls
/// `null`, numbers the spelling of their float64 value as `flux build` prints it (`0644` → `420`,
/// `1.0` → `1`, `1e3` → `1000`); every other scalar is a string and is marked quoted so that no
/// later reader retypes it (a timestamp stays text, as it does upstream). Keys all become strings.
pub(crate) fn normalise(mut node: Node) -> Result<Node, Error> {
    normalise_in_place(&mut node)?;
    Ok(node)
}

fn normalise_in_place(node: &mut Node) -> Result<(), Error> {
    match node {
        Node::Scalar(s) => normalise_scalar(s),
        Node::Sequence(seq) => seq.items.iter_mut().try_for_each(normalise_in_place),
        Node::Mapping(map) => map.entries.iter_mut().try_for_each(|entry| {
            normalise_key(&mut entry.key);
            normalise_in_place(&mut entry.value)
        }),
    }
}

fn normalise_scalar(s: &mut Scalar) -> Result<(), Error> {
    if s.tag.is_some() || s.style != ScalarStyle::Plain {
        return Ok(());
    }
    if yaml::is_plain_word(&s.value) {
        s.style = ScalarStyle::DoubleQuoted;
        return Ok(());
    }
    if let Some(value) = yaml11_non_finite(&s.value) {
        // JSON has no infinities or NaN, so upstream's JSON step fails on them.
        return Err(Error {
            kind: ErrorKind::UnsupportedValue(value),
            pos: Some(s.pos),
        });
    }
    match resolve_yaml11(&s.value) {
        Some(text) => s.value = text.into(),
        None => s.style = ScalarStyle::DoubleQuoted,
    }
    Ok(())
}

/// The Go spelling of a YAML 1.1 infinity or NaN, which JSON cannot hold.
fn yaml11_non_finite(text: &str) -> Option<&'static str> {
    match text {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Some("+Inf"),
        "-.inf" | "-.Inf" | "-.INF" => Some("-Inf"),
        ".nan" | ".NaN" | ".NAN" => Some("NaN"),
        _ => None,
    }
}

fn normalise_key(key: &mut Scalar) {
    if key.tag.is_none() && key.style == ScalarStyle::Plain {
        if !yaml::is_plain_word(&key.value) {
            if let Some(text) = resolve_yaml11_key(&key.value) {
                key.value = text.into();
            }
        }
        key.style = ScalarStyle::DoubleQuoted;
    }
}

/// The canonical text of a plain scalar that YAML 1.1 reads as null, a boolean or a number;
/// `None` for a string.
fn resolve_yaml11(text: &str) -> Option<String> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Some("null".to_owned()),
        _ => {}
    }
    if let Some(b) = yaml11_bool(text) {
        return Some(b.to_string());
    }
    yaml11_number(text).map(json_number_text)
}

/// How a float64 prints once upstream has turned it into JSON and read that back with a YAML 1.1
/// reader: integral values that fit 64 bits as integers, everything else in Go's `%g` form.
fn json_number_text(f: f64) -> String {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.fract() == 0.0 && (-TWO_63..TWO_63).contains(&f) {
        // In range and integral, so the conversion is exact.
        #[allow(clippy::cast_possible_truncation)]
        return (f as i64).to_string();
    }
    if f.fract() == 0.0 && (TWO_63..2.0 * TWO_63).contains(&f) {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        return (f as u64).to_string();
    }
    crate::golang::format_float_g(f)
}

/// A key becomes a JSON object key: booleans and integers print as Go formats them; other scalars
/// keep their text (as strings).
fn resolve_yaml11_key(text: &str) -> Option<String> {
    if let Some(b) = yaml11_bool(text) {
        return Some(b.to_string());
    }
    match yaml11_int(text) {
        Some(Int::Signed(i)) => Some(i.to_string()),
        Some(Int::Unsigned(u)) => Some(u.to_string()),
        None => None,
    }
}

fn yaml11_bool(text: &str) -> Option<bool> {
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            Some(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            Some(false)
        }
        _ => None,
    }
}

enum Int {
    Signed(i64),
    Unsigned(u64),
}

/// Go's `strconv.ParseInt(s, 0, 64)` (then `ParseUint`) on the text with underscores removed, as
/// the YAML 1.1 decoder upstream does it.
fn yaml11_int(text: &str) -> Option<Int> {
    if !text.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-') {
        return None;
    }
    let plain = crate::yaml::without_underscores(text);
    let (negative, unsigned) = match plain.as_bytes().first() {
        Some(b'-') => (true, plain.get(1..)?),
        Some(b'+') => (false, plain.get(1..)?),
        _ => (false, &*plain),
    };
    let lower = unsigned.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, lower.get(1..)?)
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if negative {
        // i64::MIN has no positive counterpart, so negate through i128.
        i64::try_from(-i128::from(magnitude)).ok().map(Int::Signed)
    } else {
        Some(match i64::try_from(magnitude) {
            Ok(i) => Int::Signed(i),
            Err(_) => Int::Unsigned(magnitude),
        })
    }
}

/// A YAML 1.1 number as the float64 JSON decoding makes of it.
fn yaml11_number(text: &str) -> Option<f64> {
    match yaml11_int(text) {
        // The conversions are the point: JSON decoding upstream makes every number a float64.
        #[allow(clippy::cast_precision_loss)]
        Some(Int::Signed(i)) => return Some(i as f64),
        #[allow(clippy::cast_precision_loss)]
        Some(Int::Unsigned(u)) => return Some(u as f64),
        None => {}
    }
    let plain = crate::yaml::without_underscores(text);
    if !(text.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.'))
        && is_yaml_style_float(&plain))
    {
        return None;
    }
    // Go's parser reports out-of-range values as errors, and the text then stays a string.
    plain.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_style_float(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (s.get(..i).unwrap_or(""), s.get(i + 1..)),
        None => (s, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => digits(frac),
        Some((int, frac)) => digits(int) && (frac.is_empty() || digits(frac)),
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn without_positions(node: &Node) -> Node {
        let mut node = node.clone();
        clear_positions(&mut node);
        node
    }

    fn clear_positions(node: &mut Node) {
        match node {
            Node::Scalar(s) => s.pos = Default::default(),
            Node::Sequence(seq) => {
                seq.pos = Default::default();
                seq.items.iter_mut().for_each(clear_positions);
            }
            Node::Mapping(map) => {
                map.pos = Default::default();
                for entry in &mut map.entries {
                    entry.key.pos = Default::default();
                    clear_positions(&mut entry.value);
                }
            }
        }
    }

    /// The shortcut for objects without a `$` gives what printing and reading back gives.
    fn assert_shortcut_matches(doc: &Node, context: &str) {
        let by_text = substitute_text(doc, |t: &str| envsubst(t, |_| None, false))
            .map(|n| without_positions(&n));
        let shortcut = substitute_on_tree(doc.clone(), Vec::new()).map(|n| without_positions(&n));
        if shortcut != by_text {
            let (a, b) = (format!("{shortcut:#?}"), format!("{by_text:#?}"));
            let at = a
                .lines()
                .zip(b.lines())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            let window = |t: &str| {
                t.lines()
                    .skip(at.saturating_sub(8))
                    .take(12)
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            panic!(
                "{context}: the shortcut gives\n{}\nthe round trip gives\n{}",
                window(&a),
                window(&b)
            );
        }
    }

    #[test]
    fn objects_without_dollars_skip_the_text_round_trip_with_the_same_result() {
        let text = r#"
apiVersion: v1
kind: ConfigMap
metadata: {name: x, labels: {"on": "n", 'y': yes, "0644": '0644'}}
data:
  plain: n
  quoted: "n"
  single: 'off'
  octal: 0644
  quoted_octal: "0644"
  float: 1.50
  exp: 1e3
  hex: 0x1F
  sexagesimal: 1:20
  stamp: 2001-12-14t21:59:43.10-05:00
  quoted_stamp: "2001-12-14"
  empty: ""
  tilde: ~
  nothing:
  text: |
    line one
      indented
  folded: >-
    folded
    text
  trailing: "spaces  "
  leading: "  spaces"
  colon: "a: b"
  hash: "a #b"
  dash: "- x"
  tagged: !!str 123
  tagged_bool: !!bool true
  unicode: "caf\u00e9 \u2028 sep"
  control: "bell\a"
  long: "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua"
  merge_like: "<<"
  list: [1, "2", three, {a: b}, [], {}]
  multi: "one\ntwo\n\n"
  inf: .inf_not
  ? "a key that is much longer than one hundred and twenty eight characters, so that go-yaml writes it as a complex key with a question mark"
  : v
"#;
        let docs = yaml::parse_stream(text, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
        for doc in &docs {
            assert_shortcut_matches(&doc.root, "fixture");
        }
    }

    /// Values of every shape that matters to the YAML round trip, `None` for an unset variable.
    const VALUE_SHAPES: [Option<&str>; 16] = [
        Some("value"),
        Some(""),
        Some("3"),
        Some("yes"),
        Some("a b"),
        Some("x: y"),
        Some("#c"),
        Some("- d"),
        Some("multi\nline"),
        Some("1.0"),
        Some("null"),
        Some("{a}"),
        Some("'q'"),
        Some("trailing "),
        Some("http://x:80/y"),
        None,
    ];

    /// Every mapping document of the corpus's YAML files, with its file.
    /// `None` when the corpus is absent (the test skips).
    fn corpus_objects(what: &str) -> Option<Vec<(std::path::PathBuf, Node)>> {
        let mut objects = Vec::new();
        for (path, text) in offlux_test_data::yaml_texts_under("corpus/repos", what)? {
            let Ok(docs) = yaml::parse_stream(&text, &Default::default()) else {
                continue;
            };
            objects.extend(
                docs.into_iter()
                    .filter(|d| matches!(*d.root, Node::Mapping(_)))
                    .map(|d| (path.to_path_buf(), d.into_root())),
            );
        }
        Some(objects)
    }

    #[test]
    fn scalar_by_scalar_substitution_matches_the_text_round_trip_on_every_corpus_object() {
        let Some(objects) = corpus_objects("scalar-by-scalar substitution on the corpus") else {
            return;
        };
        let (mut checked, mut by_scalar) = (0usize, 0usize);
        for (path, doc) in objects.iter().filter(|(_, d)| mentions_dollar(d)) {
            for (rotation, strict) in (0..VALUE_SHAPES.len()).zip([false, true].into_iter().cycle())
            {
                let lookup = |name: &str| {
                    let hash = name.bytes().fold(rotation, |h, b| {
                        h.wrapping_mul(31).wrapping_add(usize::from(b))
                    });
                    VALUE_SHAPES[hash % VALUE_SHAPES.len()].map(str::to_owned)
                };
                let by_text = substitute_text(doc, |t: &str| envsubst(t, lookup, strict))
                    .map(|n| without_positions(&n));
                let mut values = Vec::new();
                if plain_value_substitutions(
                    doc,
                    &|t: &str| envsubst(t, lookup, strict),
                    &mut values,
                ) {
                    let shortcut =
                        substitute_on_tree(doc.clone(), values).map(|n| without_positions(&n));
                    assert_eq!(
                        shortcut.as_ref().ok(),
                        by_text.as_ref().ok(),
                        "{} (rotation {rotation}, strict {strict})",
                        path.display()
                    );
                    by_scalar += 1;
                }
                checked += 1;
            }
        }
        assert!(checked > 1000, "only {checked} substitutions were checked");
        assert!(
            by_scalar > checked / 4,
            "only {by_scalar} of {checked} took the scalar path"
        );
    }

    #[test]
    fn a_dollar_without_an_expression_stays_on_the_tree_in_any_style() {
        let text = "kind: PrometheusRule\nmetadata:\n  name: ${CLUSTER}-rules\nspec:\n  summary: 'UPS {{ $labels.ups }} is on battery'\n  script: |\n    echo $HOME\n    cost: 5$\n  plain: a $b c\n";
        let doc = yaml::parse_stream(text, &Default::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .remove(0)
            .into_root();
        let lookup = |name: &str| (name == "CLUSTER").then(|| "main".to_owned());
        let mut values = Vec::new();
        assert!(plain_value_substitutions(
            &doc,
            &|t: &str| envsubst(t, lookup, false),
            &mut values
        ));
        let by_tree = substitute_on_tree(doc.clone(), values).map(|n| without_positions(&n));
        let by_text = substitute_text(&doc, |t: &str| envsubst(t, lookup, false))
            .map(|n| without_positions(&n));
        assert!(by_text.is_ok(), "{by_text:?}");
        assert_eq!(by_tree.ok(), by_text.ok());
        // `$$` is an escape, which only the text round trip applies.
        let escaped = yaml::parse_stream("a: 'x $$y z'\n", &Default::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .remove(0)
            .root;
        assert!(!plain_value_substitutions(
            &escaped,
            &|t: &str| envsubst(t, lookup, false),
            &mut Vec::new()
        ));
    }

    #[test]
    fn the_shortcut_matches_the_round_trip_on_every_corpus_object() {
        let Some(objects) = corpus_objects("the substitution shortcut on the corpus") else {
            return;
        };
        let mut checked = 0usize;
        for (path, doc) in objects.iter().filter(|(_, d)| !mentions_dollar(d)) {
            assert_shortcut_matches(doc, &path.display().to_string());
            checked += 1;
        }
        assert!(checked > 1000, "only {checked} corpus objects were checked");
    }

    fn expand(text: &str, vars: &[(&str, &str)], strict: bool) -> Result<String, Error> {
        let vars: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        envsubst(text, |n| vars.get(n).cloned(), strict)
    }

    #[test]
    fn upstream_examples_beyond_the_suite() {
        let z = [("stringZ", "abcABC123ABCabc")];
        assert_eq!(
            expand("${stringZ/#abc/XYZ}", &z, false).unwrap(),
            "XYZABC123ABCabc"
        );
        assert_eq!(
            expand("${stringZ//abc/xyz}", &z, false).unwrap(),
            "xyzABC123ABCxyz"
        );
        assert_eq!(
            expand("foo: ${var=${d}-suffix}", &[("d", "foo1")], false).unwrap(),
            "foo: foo1-suffix"
        );
        assert_eq!(expand("${a:1:-1}", &[("a", "[x]")], false).unwrap(), "x");
    }

    #[test]
    fn strict_mode_lets_default_operators_through_but_not_their_words() {
        assert_eq!(expand("${missing:+x}", &[], true).unwrap(), "x");
        assert_eq!(expand("${missing:?}", &[], true).unwrap(), "");
        assert_eq!(expand("${set:-x}", &[("set", "")], true).unwrap(), "x");
        // Arguments are evaluated first, so an unset variable in an unused word still fails.
        let err = expand("${set:-${missing}}", &[("set", "v")], true).unwrap_err();
        assert_eq!(
            err.kind,
            ErrorKind::VariableNotSet {
                name: "missing".into()
            }
        );
        // Outside strict mode an unset variable is empty.
        assert_eq!(expand("<${missing}>", &[], false).unwrap(), "<>");
    }

    #[test]
    fn errors_point_at_the_expression() {
        let err = expand("a: 1\nb: x ${missing}", &[], true).unwrap_err();
        assert_eq!(
            err.to_string(),
            "2:6: variable not set (strict mode): \"missing\""
        );
        let err = expand("a: 1\nb: ${x:-${y}", &[], false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "2:4: unable to parse substitution within function"
        );
    }

    proptest::proptest! {
        /// Arbitrary text never panics, and text without `${` or `$$` comes back unchanged.
        #[test]
        fn envsubst_is_total(text in "[a-z$\\{}:=#%/^,.*?\\[\\]\\- \n]{0,40}") {
            let _ = expand(&text, &[("a", "xyz")], true);
            let _ = expand(&text, &[("a", "xyz")], false);
            if !text.contains("${") && !text.contains("$$") {
                proptest::prop_assert_eq!(expand(&text, &[], false).ok(), Some(text.clone()));
            }
        }
    }

    #[test]
    fn var_names_follow_flux() {
        for ok in ["a", "_", "A_1", "cluster_env"] {
            assert!(is_valid_var_name(ok), "{ok}");
        }
        for bad in ["", "1a", "a-b", "a.b", "é", "a b"] {
            assert!(!is_valid_var_name(bad), "{bad}");
        }
    }

    #[test]
    fn go_g_formatting() {
        let cases = [
            (3.0, "3"),
            (420.0, "420"),
            (123456.0, "123456"),
            (1_000_000.0, "1e+06"),
            (1_234_567.0, "1.234567e+06"),
            (0.5, "0.5"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (-2.25, "-2.25"),
            (1e21, "1e+21"),
            (1e100, "1e+100"),
        ];
        for (f, want) in cases {
            assert_eq!(crate::golang::format_float_g(f), want, "{f}");
        }
    }

    #[test]
    fn yaml11_resolution_of_plain_scalars() {
        let cases = [
            ("yes", Some("true")),
            ("Off", Some("false")),
            ("~", Some("null")),
            ("", Some("null")),
            ("0644", Some("420")),
            ("0x1F", Some("31")),
            ("1_000", Some("1000")),
            ("+12", Some("12")),
            ("1.0", Some("1")),
            ("1.50", Some("1.5")),
            ("1e3", Some("1000")),
            ("1000000", Some("1000000")),
            ("1234567.5", Some("1.2345675e+06")),
            ("0.00001", Some("1e-05")),
            ("-0", Some("0")),
            ("1e21", Some("1e+21")),
            ("100000000000000000000", Some("1e+20")),
            ("10000000000000000000", Some("10000000000000000000")),
            // u64::MAX is 2^64 as a float64, past what the last YAML 1.1 reader takes as an integer.
            ("18446744073709551615", Some("1.8446744073709552e+19")),
            ("9007199254740993", Some("9007199254740992")),
            (".5", Some("0.5")),
            ("08", Some("8")),
            ("1e400", None),
            ("nginx:1.21.4", None),
            ("2000m", None),
            ("2001-12-14", None),
            ("1.2.3", None),
            ("-", None),
            (".inf", None),
        ];
        for (text, want) in cases {
            assert_eq!(resolve_yaml11(text).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn infinities_fail_as_they_do_in_json() {
        let mut map = yaml::Mapping::new();
        map.insert("a", Node::Scalar(Scalar::plain("-.inf")));
        let err = normalise(Node::Mapping(map)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::UnsupportedValue("-Inf"));
        assert!(err
            .to_string()
            .ends_with("YAMLToJSON: json: unsupported value: -Inf"));
        // Quoted, it is a string and fine.
        assert!(normalise(Node::string(".inf")).is_ok());
    }

    #[test]
    fn keys_that_resolve_to_booleans_or_integers_become_strings() {
        assert_eq!(resolve_yaml11_key("on").as_deref(), Some("true"));
        assert_eq!(resolve_yaml11_key("0x10").as_deref(), Some("16"));
        assert_eq!(resolve_yaml11_key("name"), None);
    }

    #[test]
    fn normalise_retypes_plain_scalars_and_marks_strings() {
        let mut map = yaml::Mapping::new();
        map.insert("a", Node::Scalar(Scalar::plain("yes")));
        map.insert("b", Node::string("yes"));
        map.insert("c", Node::Scalar(Scalar::plain("0644")));
        map.insert("d", Node::Scalar(Scalar::plain("2001-12-14")));
        let out = normalise(Node::Mapping(map)).unwrap();
        let scalar = |k: &str| {
            out.get(k)
                .and_then(Node::as_scalar)
                .cloned()
                .unwrap_or_default()
        };
        assert_eq!(scalar("a"), Scalar::plain("true"));
        assert_eq!(scalar("b"), Scalar::string("yes"));
        assert_eq!(scalar("c"), Scalar::plain("420"));
        // A timestamp is text to the YAML 1.1 reader upstream, so it stays a string.
        assert_eq!(scalar("d"), Scalar::string("2001-12-14"));
    }

    #[test]
    fn disabled_objects_are_recognised_by_label_or_annotation() {
        let mut labels = yaml::Mapping::new();
        labels.insert(DISABLE_KEY, Node::Scalar(Scalar::plain("disabled")));
        let mut meta = yaml::Mapping::new();
        meta.insert("annotations", Node::Mapping(labels));
        let mut doc = yaml::Mapping::new();
        doc.insert("metadata", Node::Mapping(meta));
        let doc = Node::Mapping(doc);
        assert!(is_substitution_disabled(&doc));
        // A disabled object comes back as it was, without touching the YAML layer.
        let vars = BTreeMap::from([("x".to_owned(), "1".to_owned())]);
        assert_eq!(
            substitute_document(doc.clone(), &vars, &Options::default()).unwrap(),
            doc
        );
    }

    #[test]
    fn invalid_names_are_rejected_before_any_yaml_work() {
        let vars = BTreeMap::from([
            ("ok".to_owned(), "1".to_owned()),
            ("not-ok".to_owned(), "2".to_owned()),
        ]);
        let doc = Node::Mapping(yaml::Mapping::new());
        let err = substitute_document(doc.clone(), &vars, &Options::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "'not-ok' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$'"
        );
    }

    #[test]
    fn no_vars_and_not_always_is_a_no_op() {
        let doc = Node::Mapping(yaml::Mapping::new());
        assert_eq!(
            substitute_document(doc.clone(), &BTreeMap::new(), &Options::default()).unwrap(),
            doc
        );
    }

    /// `--redact-secret-values` (issue 35): every expression that reads a redacted variable, by
    /// any operator or inside another's argument, yields the marker, on the scalar path and the
    /// text path alike; without redaction the value is printed, as Flux does.
    #[test]
    fn redacted_variables_yield_the_marker_through_every_operator() {
        let vars = BTreeMap::from([
            ("TOKEN".to_owned(), "s3cr3t-Value".to_owned()),
            ("EMPTY".to_owned(), String::new()),
            ("NAME".to_owned(), "app".to_owned()),
        ]);
        let redacting = Options {
            redacted: BTreeSet::from(["TOKEN".to_owned(), "EMPTY".to_owned()]),
            ..Default::default()
        };
        let value = |expr: &str, quoted: bool, options: &Options| -> String {
            let text = if quoted {
                format!("kind: ConfigMap\ndata:\n  v: 'x y {expr}'\n")
            } else {
                format!("kind: ConfigMap\ndata:\n  v: {expr}\n")
            };
            let doc = yaml::parse_stream(&text, &Default::default())
                .unwrap_or_else(|e| panic!("{e}"))
                .remove(0)
                .into_root();
            let out = substitute_document(doc, &vars, options).unwrap_or_else(|e| panic!("{e}"));
            out.get_path(&["data", "v"])
                .and_then(Node::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        for expr in [
            "${TOKEN}",
            "${TOKEN:0:6}",
            "${TOKEN:-1}",
            "${TOKEN^^}",
            "${TOKEN^}",
            "${TOKEN,,}",
            "${TOKEN,}",
            "${#TOKEN}",
            "${TOKEN#s3}",
            "${TOKEN##*-}",
            "${TOKEN%-*}",
            "${TOKEN%%V*}",
            "${TOKEN/s3/x}",
            "${TOKEN//e/E}",
            "${TOKEN/#s/S}",
            "${TOKEN/%e/E}",
            "${TOKEN:=d}",
            "${TOKEN:+w}",
            "${EMPTY:-fallback}",
            "${UNSET:-${TOKEN:0:3}}",
            "${NAME:+${TOKEN^^}}",
        ] {
            assert_eq!(value(expr, false, &redacting), REDACTED, "{expr}");
            assert_eq!(
                value(expr, true, &redacting),
                format!("x y {REDACTED}"),
                "{expr}"
            );
        }
        // Other variables are substituted as before; without the flag, so is the Secret's.
        assert_eq!(value("${NAME^^}", false, &redacting), "APP");
        assert_eq!(value("${TOKEN:0:6}", false, &Options::default()), "s3cr3t");
        assert_eq!(
            value("${TOKEN^^}", true, &Options::default()),
            "x y S3CR3T-VALUE"
        );
    }
}
