//! What kustomize's JSON round trip makes of a resource: kustomize decodes each resource with
//! go-yaml v3 into Go values, marshals them to JSON and prints that JSON with go-yaml v2. Numbers
//! are retyped and respelled on the way (`0644` → `420`, `1.0` → `1`, `1234567.5` →
//! `1.2345675e+06`), booleans and nulls take their canonical spelling, timestamps become RFC 3339
//! strings, tags and flow style are dropped and keys are sorted in go-yaml v2's order.
//!
//! `respell` and `kyaml_entries` are the per-scalar and per-mapping steps, which the emitter also
//! applies on the fly (`emit_canonical_kyaml`) instead of building the tree.
//!
//! Not for: printing (that is `emit`); callers print the result with the canonical emitter.

use std::borrow::Cow;

use serde_json::Value;

use super::node::{Entry, Mapping, Node, Scalar, ScalarStyle, Sequence};
use super::order::{go_yaml_v2_key_order, sort_keys};
use super::resolve::{kyaml_timestamp, resolve_kyaml, Resolved};

/// The node as `kustomize build` would print it, ready for `emit`. Non-finite floats (which make
/// kustomize fail with a JSON error) are kept as written.
pub fn canonical_kyaml(node: &Node) -> Node {
    let mut out = canonical(node);
    sort_keys(&mut out);
    out
}

/// A node for JSON data, typed and spelled as go-yaml v2 prints it after Go's JSON encoder (the path
/// of `kustomize build` output and of Helm's `toYaml`): strings stay strings whatever they look
/// like, and float64 numbers take Go's spelling (`1e+06` → `1000000`, `0.5`, `1.2345675e+06`).
/// Object keys come out sorted in go-yaml v2's order.
pub fn from_json(value: &Value) -> Node {
    let mut node = from_json_unsorted(value);
    sort_keys(&mut node);
    node
}

fn from_json_unsorted(value: &Value) -> Node {
    match value {
        Value::Null => Node::null(),
        Value::Bool(b) => Node::Scalar(Scalar::plain(b.to_string())),
        Value::Number(n) => {
            let text = if let Some(i) = n.as_i64() {
                i.to_string()
            } else if let Some(u) = n.as_u64() {
                u.to_string()
            } else {
                go_json_then_yaml_float(n.as_f64().unwrap_or_default())
            };
            Node::Scalar(Scalar::plain(text))
        }
        Value::String(s) => Node::string(s.clone()),
        Value::Array(items) => Node::Sequence(Sequence {
            items: items.iter().map(from_json_unsorted).collect(),
            ..Sequence::default()
        }),
        Value::Object(map) => {
            let mut out = Mapping::new();
            for (k, v) in map {
                out.entries.push(Entry {
                    key: Scalar::string(k.clone()),
                    value: from_json_unsorted(v),
                });
            }
            Node::Mapping(out)
        }
    }
}

fn canonical(node: &Node) -> Node {
    match node {
        Node::Scalar(s) => Node::Scalar(canonical_scalar(s)),
        Node::Sequence(seq) => Node::Sequence(Sequence {
            items: seq.items.iter().map(canonical).collect(),
            pos: seq.pos,
            ..Sequence::default()
        }),
        Node::Mapping(m) => {
            let mut out = Mapping {
                pos: m.pos,
                ..Mapping::default()
            };
            out.entries.reserve(m.entries.len());
            // Large mappings (a generator's thousands of keys) find duplicates by hash, not by
            // scanning what came before.
            const SCAN: usize = 32;
            let mut index: foldhash::HashMap<&str, usize> = foldhash::HashMap::default();
            for entry in &m.entries {
                let mut key = Scalar::string(entry.key.value.clone());
                key.pos = entry.key.pos;
                // Later duplicates (only possible after merges or edits) win, as in a Go map.
                let existing = if m.entries.len() <= SCAN {
                    out.entries.iter().position(|e| e.key.value == key.value)
                } else {
                    index.get(entry.key.value.as_str()).copied()
                };
                match existing.and_then(|i| out.entries.get_mut(i)) {
                    Some(existing) => existing.value = canonical(&entry.value),
                    None => {
                        if m.entries.len() > SCAN {
                            index.insert(entry.key.value.as_str(), out.entries.len());
                        }
                        out.entries.push(Entry {
                            key,
                            value: canonical(&entry.value),
                        });
                    }
                }
            }
            Node::Mapping(out)
        }
    }
}

fn canonical_scalar(s: &Scalar) -> Scalar {
    let respelled = respell(s);
    Scalar {
        value: respelled.text.into(),
        style: if respelled.is_string {
            ScalarStyle::DoubleQuoted
        } else {
            ScalarStyle::Plain
        },
        tag: None,
        pos: s.pos,
    }
}

/// A scalar as `canonical_kyaml` spells it: a string (double-quoted in the canonical tree), or
/// the plain text of a null, boolean or number.
pub(super) struct Respelled<'a> {
    pub text: Cow<'a, str>,
    pub is_string: bool,
}

pub(super) fn respell(s: &Scalar) -> Respelled<'_> {
    fn plain(text: Cow<'_, str>) -> Respelled<'_> {
        Respelled {
            text,
            is_string: false,
        }
    }
    fn string(text: Cow<'_, str>) -> Respelled<'_> {
        Respelled {
            text,
            is_string: true,
        }
    }
    // Most numbers are small decimals that keep their spelling; this skips the resolver's
    // allocations for them.
    if s.tag.is_none() && s.style == ScalarStyle::Plain && is_short_canonical_decimal(&s.value) {
        return plain(Cow::Borrowed(&s.value));
    }
    match resolve_kyaml(s) {
        Resolved::Null => plain(Cow::Borrowed("null")),
        Resolved::Bool(b) => plain(Cow::Borrowed(if b { "true" } else { "false" })),
        Resolved::Int(i) => plain(Cow::Owned(i.to_string())),
        Resolved::Uint(u) => plain(Cow::Owned(u.to_string())),
        Resolved::Float(f) if !f.is_finite() => plain(Cow::Borrowed(&s.value)),
        Resolved::Float(f) => plain(Cow::Owned(go_json_then_yaml_float(f))),
        Resolved::Str => match kyaml_timestamp(s) {
            Some(t) => string(Cow::Owned(t.rfc3339())),
            None if s.style == ScalarStyle::Folded => {
                string(Cow::Owned(go_v3_folded_reread(&s.value)))
            }
            None => string(Cow::Borrowed(&s.value)),
        },
    }
}

/// An int64 in the form Go prints it: optional `-`, no leading zeros, and few enough digits that
/// it cannot overflow.
fn is_short_canonical_decimal(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.starts_with('0') {
        return text == "0";
    }
    !digits.is_empty() && digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A mapping's entries as the JSON round trip leaves them: a later duplicate key wins, as in a Go
/// map, and keys are in go-yaml v2's order.
pub(super) fn kyaml_entries(m: &Mapping) -> Vec<&Entry> {
    let mut entries: Vec<&Entry> = m.entries.iter().collect();
    // Stable, so duplicates stay in source order and the last of each run is the one kept.
    entries.sort_by(|a, b| go_yaml_v2_key_order(&a.key.value, &b.key.value));
    entries.dedup_by(|later, earlier| {
        let duplicate = later.key.value == earlier.key.value;
        if duplicate {
            *earlier = *later;
        }
        duplicate
    });
    entries
}

/// Gives every folded scalar under `node` the text kustomize's round trip leaves it
/// ([`go_v3_folded_reread`]), as a literal: what reads the built objects (post-build
/// substitution, JSON output, validation) sees the value kustomize prints.
pub fn reread_folded(node: &mut Node) {
    match node {
        Node::Scalar(s) => {
            if s.style == ScalarStyle::Folded {
                s.value = go_v3_folded_reread(&s.value).into();
                s.style = ScalarStyle::Literal;
            }
        }
        Node::Sequence(seq) => seq.items.iter_mut().for_each(reread_folded),
        Node::Mapping(m) => m
            .entries
            .iter_mut()
            .for_each(|e| reread_folded(&mut e.value)),
    }
}

/// What a folded (`>`) scalar's text becomes after kustomize writes it with go-yaml v3 and reads it
/// back. go-yaml v3's folded writer decides whether to double a line break by looking at the start
/// of the value instead of the line after the break (go-yaml issue #827), so a break before a
/// more-indented line gains a blank line, and when the value starts with a space, breaks between
/// ordinary lines fold into spaces. `kubectl kustomize` output shows both; this replays the
/// writer and reads the result with our parser.
fn go_v3_folded_reread(value: &str) -> String {
    let is_break = |c: char| matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
    let is_blank = |c: char| c == ' ' || c == '\t';
    let chars: Vec<char> = value.chars().collect();
    let mut out = String::from("k: >");
    if chars.first().is_some_and(|&c| is_blank(c) || is_break(c)) {
        out.push('2');
    }
    let mut rev = chars.iter().rev();
    match (rev.next(), rev.next()) {
        (None, _) => out.push('-'),
        (Some(&last), _) if !is_break(last) => out.push('-'),
        (Some(_), None) => out.push('+'),
        (Some(_), Some(&prev)) if is_break(prev) => out.push('+'),
        _ => {}
    }
    out.push('\n');
    let run = chars.iter().take_while(|&&c| is_break(c)).count();
    let start_blank = chars
        .get(run)
        .is_none_or(|&c| is_blank(c) || is_break(c) || c == '\0');
    let mut breaks = true;
    let mut leading_spaces = true;
    for &c in &chars {
        if is_break(c) {
            if !breaks && !leading_spaces && c == '\n' && !start_blank {
                out.push('\n');
            }
            out.push(c);
            breaks = true;
        } else {
            if breaks {
                out.push_str("  ");
                leading_spaces = is_blank(c);
            }
            out.push(c);
            breaks = false;
        }
    }
    let reread = super::parse_stream(&out, &super::ParseOptions::default());
    match reread
        .ok()
        .as_ref()
        .and_then(|d| d.first())
        .and_then(|d| d.root.get("k"))
    {
        Some(Node::Scalar(k)) => k.value.to_string(),
        _ => value.to_string(),
    }
}

/// A float64 as Go's JSON encoder writes it and go-yaml v2 then reads and prints it: JSON text
/// without a fraction or exponent reads back as an integer; anything else is printed with
/// `strconv.FormatFloat(f, 'g', -1, 64)`.
fn go_json_then_yaml_float(f: f64) -> String {
    let (digits, exp) = offlux_go::shortest_digits(f);
    let negative = f.is_sign_negative() && f != 0.0;
    let abs = f.abs();
    let json_uses_exponent = abs != 0.0 && !(1e-6..1e21).contains(&abs);
    // Go's JSON 'f' form of an integral value is its shortest digits padded with zeros, without a
    // '.', so go-yaml v2 reads it back as an integer when it fits 64 bits.
    if !json_uses_exponent && f.fract() == 0.0 {
        let zeros = usize::try_from(exp + 1)
            .unwrap_or(0)
            .saturating_sub(digits.len());
        let text = if abs == 0.0 {
            "0".to_string()
        } else {
            format!("{digits}{}", "0".repeat(zeros))
        };
        let fits = text.parse::<u128>().is_ok_and(|v| {
            v <= u128::from(if negative {
                i64::MAX as u64 + 1
            } else {
                u64::MAX
            })
        });
        if fits {
            return if negative && text != "0" {
                format!("-{text}")
            } else {
                text
            };
        }
    }
    offlux_go::format_float_g(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printing_on_the_fly_matches_printing_the_canonical_tree() {
        let text = "z: 0644\nb: [1.0, 1e6, yes, ~, 2001-12-14t21:59:43.10-05:00, '12']\na10: x\n\
                    a9:\n  \"k\": >\n    folded\n    text\n  \u{e9}: 2\n  e: 1\n\
                    c: {q: -.inf, p: \"\"}\nd: !!str 10\n";
        let mut root =
            Node::clone(&super::super::parse_stream(text, &Default::default()).unwrap()[0].root);
        // A duplicate key, as a merge or an edit can leave: the later one wins.
        if let Node::Mapping(m) = &mut root {
            m.entries.push(Entry {
                key: Scalar::plain("z"),
                value: Node::Scalar(Scalar::plain("-0")),
            });
        }
        assert_eq!(
            super::super::emit_canonical_kyaml(&root),
            super::super::emit(&canonical_kyaml(&root))
        );
    }

    #[test]
    fn json_values_print_as_helm_to_yaml_prints_them() {
        let value = serde_json::json!({
            "b": 1_000_000.0, "a": "yes", "c": [0.5, 12, true, null], "d": {}, "e": "0644"
        });
        assert_eq!(
            super::super::emit(&from_json(&value)),
            "a: \"yes\"\nb: 1000000\nc:\n- 0.5\n- 12\n- true\n- null\nd: {}\ne: \"0644\"\n"
        );
    }

    #[test]
    fn folded_text_changes_as_go_yaml_v3_rewrites_it() {
        // Each expectation is what `kubectl kustomize` printed for the folded source value.
        assert_eq!(go_v3_folded_reread("[\n  x\n]\n"), "[\n\n  x\n]\n");
        assert_eq!(go_v3_folded_reread(" lead\np\nq\n"), " lead\np q\n");
        assert_eq!(
            go_v3_folded_reread("plain lines\nmore\n"),
            "plain lines\nmore\n"
        );
    }

    #[test]
    fn floats_print_as_kustomize_prints_them() {
        let cases = [
            (1234567.5, "1.2345675e+06"),
            (0.0000001, "1e-07"),
            (1e21, "1e+21"),
            (1.5, "1.5"),
            (100000.5, "100000.5"),
            (-0.0, "0"),
            (1.0, "1"),
            (1e6, "1000000"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5, "-2.5"),
            (1e20, "1e+20"),
            (12345678901234567890.0, "12345678901234567000"),
            (-9.3e18, "-9.3e+18"),
        ];
        for (f, want) in cases {
            assert_eq!(go_json_then_yaml_float(f), want, "{f}");
        }
    }
}
