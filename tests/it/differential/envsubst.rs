//! Generated Flux post-build substitutions, in two comparisons:
//!
//! - strings with random `${...}` forms (defaults, case operators, length, substrings, trims,
//!   replacements, `$$` escapes, bare `$NAME`), expanded by offlux's `envsubst` and by a small
//!   model of fluxcd/pkg/envsubst written here from the `envsubst` suite's cases (no code of the
//!   engine), in lenient and strict mode;
//! - objects with expressions in random YAML positions (plain, quoted and block values, keys,
//!   list items), substituted by `substitute_document` and by upstream's own recipe (print the
//!   object, substitute the text, read it back the YAML 1.1 way), compared as data.
//!
//! There is no envsubst binary among the reference tools: the model stands for it, so its scope is
//! what the suite pins down (ASCII values, literal trim and replace patterns, `*` only as the
//! suite uses it).

use std::collections::BTreeMap;

use offlux::substitute::{envsubst, substitute_document, Options};
use offlux::yaml::{emit, parse_stream, to_json_helm, ParseOptions};
use serde_json::{json, Map, Value as Json};

use crate::differential::gen::{self, yaml, Gen};

const CI_STRINGS: usize = 3000;
const CI_DOCUMENTS: usize = 600;

const NAMES: &[&str] = &["A", "name", "path_1", "EMPTY", "unset", "_u"];

fn env(g: &mut Gen) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    for name in ["A", "name", "path_1"] {
        if g.chance(0.85) {
            let value = g
                .pick(&[
                    "abc",
                    "Hello.World",
                    "path/to/file.txt",
                    "x",
                    "1.5",
                    "true",
                    "AbC-dEf",
                    "a.b.c",
                ])
                .to_string();
            env.insert(name.to_string(), value);
        }
    }
    env.insert("EMPTY".into(), String::new());
    env
}

/// One `${...}` expression (or escape), as text.
fn expression(g: &mut Gen, depth: usize) -> String {
    let name = *g.pick(NAMES);
    match g.below(16) {
        0 | 1 => format!("${{{name}}}"),
        2 => format!("${{{name}:-{}}}", default(g, depth)),
        3 => format!("${{{name}-{}}}", default(g, depth)),
        4 => format!("${{{name}:={}}}", default(g, depth)),
        5 => format!("${{{name}={}}}", default(g, depth)),
        6 => format!("${{{name}{}}}", g.pick(&["^", "^^", ",", ",,"])),
        7 => format!("${{#{name}}}"),
        8 => format!("${{{name}:{}}}", g.below(4)),
        9 => format!("${{{name}:{}:{}}}", g.below(4), g.below(4)),
        10 => format!(
            "${{{name}{}{}}}",
            g.pick(&["#", "##", "%", "%%"]),
            g.pick(&["*.", "*/", ".*", "/*", "a", "abc", "x"])
        ),
        11 => format!(
            "${{{name}{}{}/{}}}",
            g.pick(&["/", "//"]),
            g.pick(&["a", ".", "b", "\\/"]),
            g.pick(&["", "-", "XY"])
        ),
        12 => format!("$${{{name}}}"),
        13 => format!("${name}"),
        14 => "$$".into(),
        _ => "$".into(),
    }
}

fn default(g: &mut Gen, depth: usize) -> String {
    if depth > 0 && g.chance(0.3) {
        format!("pre{}", expression(g, depth - 1))
    } else {
        g.pick(&["", "dflt", "a-b", "x.y"]).to_string()
    }
}

fn text(g: &mut Gen) -> String {
    let mut out = String::new();
    for _ in 0..1 + g.below(4) {
        if g.chance(0.5) {
            const PIECES: &[&str] = &["plain ", "x", "-", ": ", "{", "}", "a.b", " "];
            let piece: &&str = g.pick(PIECES);
            out.push_str(piece);
        } else {
            out.push_str(&expression(g, 2));
        }
    }
    out
}

/// The model: fluxcd/pkg/envsubst as its test cases describe it.
mod model {
    use std::collections::BTreeMap;

    pub struct Env<'a> {
        pub vars: &'a BTreeMap<String, String>,
        pub strict: bool,
    }

    fn is_name_start(c: char) -> bool {
        c == '_' || c.is_ascii_alphabetic()
    }

    fn is_name(c: char) -> bool {
        c == '_' || c.is_ascii_alphanumeric()
    }

    /// Expands `text`; `None` where the engine must fail (an unset variable in strict mode, an
    /// unclosed or bad expression).
    pub fn expand(text: &str, env: &Env) -> Option<String> {
        expand_in(text, env, true)
    }

    /// `escapes`: whether `$$` is an escaped `$` (at the top level; inside a default it is text).
    fn expand_in(text: &str, env: &Env, escapes: bool) -> Option<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            // `$$` is an escaped `$`, whatever follows
            if escapes && c == '$' && chars.get(i + 1) == Some(&'$') {
                out.push('$');
                i += 2;
                continue;
            }
            if c == '$' && chars.get(i + 1) == Some(&'{') {
                let end = closing(&chars, i + 2)?;
                let body: String = chars[i + 2..end].iter().collect();
                out.push_str(&braced(&body, env)?);
                i = end + 1;
                continue;
            }
            out.push(c);
            i += 1;
        }
        Some(out)
    }

    /// The index of the `}` closing a `${` whose body starts at `from`, nested `${` counted.
    fn closing(chars: &[char], from: usize) -> Option<usize> {
        let mut depth = 0;
        let mut i = from;
        while i < chars.len() {
            match chars[i] {
                '$' if chars.get(i + 1) == Some(&'{') => {
                    depth += 1;
                    i += 2;
                    continue;
                }
                '}' if depth == 0 => return Some(i),
                '}' => depth -= 1,
                _ => {}
            }
            i += 1;
        }
        None
    }

    fn lookup(name: &str, env: &Env, has_default: bool) -> Option<String> {
        match env.vars.get(name) {
            Some(v) => Some(v.clone()),
            None if env.strict && !has_default => None,
            None => Some(String::new()),
        }
    }

    fn braced(body: &str, env: &Env) -> Option<String> {
        if let Some(name) = body.strip_prefix('#') {
            if !name.is_empty() && name.chars().all(is_name) && name.starts_with(is_name_start) {
                return Some(lookup(name, env, false)?.chars().count().to_string());
            }
        }
        let name_len = body.chars().take_while(|c| is_name(*c)).count();
        let name: String = body.chars().take(name_len).collect();
        if name.is_empty() || !name.starts_with(is_name_start) {
            return None;
        }
        let op = &body[name.len()..];
        // drone/envsubst knows `=`, `:=` and `:-`, not a bare `-`
        for prefix in [":-", ":=", "="] {
            if let Some(dflt) = op.strip_prefix(prefix) {
                // the default is expanded first, used or not
                let dflt = expand_in(dflt, env, false)?;
                let value = lookup(&name, env, true)?;
                return Some(if value.is_empty() { dflt } else { value });
            }
        }
        let value = lookup(&name, env, false)?;
        match op {
            "" => Some(value),
            "^^" => Some(value.to_uppercase()),
            ",," => Some(value.to_lowercase()),
            "^" => Some(first(&value, char::to_ascii_uppercase)),
            "," => Some(first(&value, char::to_ascii_lowercase)),
            _ => operator(&value, op),
        }
    }

    /// The operators with an argument: substring, trims and replacements.
    fn operator(value: &str, op: &str) -> Option<String> {
        if let Some(args) = op.strip_prefix(':') {
            let mut parts = args.splitn(2, ':');
            let offset: usize = parts.next().unwrap_or("").parse().ok()?;
            let rest: String = value.chars().skip(offset).collect();
            return match parts.next() {
                Some(len) => Some(rest.chars().take(len.parse().ok()?).collect()),
                None => Some(rest),
            };
        }
        type Operator = fn(&str, &str) -> String;
        let trims: [(&str, Operator); 6] = [
            ("##", |v, p| trim_prefix(v, p, true)),
            ("#", |v, p| trim_prefix(v, p, false)),
            ("%%", |v, p| trim_suffix(v, p, true)),
            ("%", |v, p| trim_suffix(v, p, false)),
            ("//", |v, p| replace(v, p, true)),
            ("/", |v, p| replace(v, p, false)),
        ];
        trims
            .iter()
            .find_map(|(prefix, f)| op.strip_prefix(prefix).map(|arg| f(value, arg)))
    }

    fn first(s: &str, f: fn(&char) -> char) -> String {
        let mut chars = s.chars();
        match chars.next() {
            Some(c) => std::iter::once(f(&c)).chain(chars).collect(),
            None => String::new(),
        }
    }

    /// Whether `s` matches `pattern`, where `*` is any run of characters.
    fn glob(pattern: &str, s: &str) -> bool {
        match pattern.split_once('*') {
            None => pattern == s,
            Some((head, tail)) => {
                s.starts_with(head)
                    && (head.len()..=s.len()).any(|i| s.is_char_boundary(i) && glob(tail, &s[i..]))
            }
        }
    }

    fn trim_prefix(s: &str, pattern: &str, longest: bool) -> String {
        let mut cuts: Vec<usize> = (0..=s.len()).filter(|i| s.is_char_boundary(*i)).collect();
        if longest {
            cuts.reverse();
        }
        cuts.into_iter()
            .find(|i| glob(pattern, &s[..*i]))
            .map(|i| s[i..].to_string())
            .unwrap_or_else(|| s.to_string())
    }

    fn trim_suffix(s: &str, pattern: &str, longest: bool) -> String {
        let mut cuts: Vec<usize> = (0..=s.len()).filter(|i| s.is_char_boundary(*i)).collect();
        if !longest {
            cuts.reverse();
        }
        cuts.into_iter()
            .find(|i| glob(pattern, &s[*i..]))
            .map(|i| s[..i].to_string())
            .unwrap_or_else(|| s.to_string())
    }

    fn replace(s: &str, args: &str, all: bool) -> String {
        // `\/` is a `/` in the pattern
        let args = args.replace("\\/", "\u{0}");
        let (pattern, with) = args.split_once('/').unwrap_or((&args, ""));
        let pattern = pattern.replace('\u{0}', "/");
        let with = with.replace('\u{0}', "/");
        if pattern.is_empty() {
            return s.to_string();
        }
        if all {
            s.replace(&pattern, &with)
        } else {
            s.replacen(&pattern, &with, 1)
        }
    }
}

#[test]
fn envsubst_strings_expand_as_the_model_does() {
    let seed = gen::seed();
    let count = gen::cases(CI_STRINGS);
    let (mut same, mut both_fail, mut differ) = (0, 0, Vec::new());
    for case in 0..count as u64 {
        let mut g = Gen::new(seed, "envsubst", case);
        let vars = env(&mut g);
        let strict = g.chance(0.3);
        let input = text(&mut g);
        let want = model::expand(
            &input,
            &model::Env {
                vars: &vars,
                strict,
            },
        );
        let got = envsubst(&input, |n| vars.get(n).cloned(), strict);
        match (&want, &got) {
            (Some(w), Ok(o)) if w == o => same += 1,
            (None, Err(_)) => both_fail += 1,
            _ => {
                eprintln!(
                    "  DIFF envsubst seed {seed} case {case}: {input:?} (strict {strict}, env {vars:?}): model {want:?}, offlux {got:?}"
                );
                differ.push(case);
            }
        }
    }
    println!(
        "differential envsubst-strings: {count} generated strings (seed {seed}): {same} identical, {both_fail} refused by both, {} differ",
        differ.len()
    );
    assert!(
        differ.is_empty(),
        "envsubst differs from the model (seed {seed}): cases {differ:?}"
    );
}

/// A scalar for a YAML position: text with expressions, or a plain value.
fn position_value(g: &mut Gen) -> String {
    match g.below(5) {
        0 => format!("${{{}}}", g.pick(&["A", "N", "B", "EMPTY", "ML"])),
        1 => format!("pre-${{{}}}-post", g.pick(&["A", "N"])),
        2 => format!(
            "${{{}:={}}}",
            g.pick(&["unset", "EMPTY"]),
            g.pick(&["1", "on", "x y", "0644", "a: b"])
        ),
        3 => format!("{} ${{A}}", g.pick(&["a", "#", "-"])),
        _ => gen::string(g),
    }
}

fn document(g: &mut Gen) -> Json {
    let mut data = Map::new();
    for _ in 0..1 + g.below(4) {
        let key = if g.chance(0.15) {
            "key-${A}".to_string()
        } else {
            format!("k{}", g.below(100))
        };
        let value = match g.below(4) {
            0 => json!([position_value(g), position_value(g)]),
            1 => json!({"inner": position_value(g)}),
            _ => json!(position_value(g)),
        };
        data.insert(key, value);
    }
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "labels": {"l": position_value(g)}}, "data": data})
}

#[test]
fn substituted_documents_read_back_as_upstream_does() {
    let seed = gen::seed();
    let count = gen::cases(CI_DOCUMENTS);
    let vars: BTreeMap<String, String> = [
        ("A", "abc"),
        ("N", "42"),
        ("B", "yes"),
        ("EMPTY", ""),
        ("ML", "line1\nline2"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let (mut same, mut both_fail, mut differ) = (0, 0, Vec::new());
    for case in 0..count as u64 {
        let mut g = Gen::new(seed, "postbuild", case);
        let object = document(&mut g);
        let text = yaml(&mut g, &object);
        let Ok(docs) = parse_stream(&text, &ParseOptions::default()) else {
            continue;
        };
        let Some(doc) = docs.into_iter().next().map(|d| d.into_root()) else {
            continue;
        };
        let strict = g.chance(0.3);
        let options = Options {
            strict,
            always: true,
            ..Default::default()
        };
        let ours = substitute_document(doc.clone(), &vars, &options).map(|n| to_json_helm(&n));
        // upstream: print, substitute the text, read back the first document
        let theirs = envsubst(&emit(&doc), |n| vars.get(n).cloned(), strict)
            .map_err(|e| e.to_string())
            .and_then(|out| parse_stream(&out, &ParseOptions::default()).map_err(|e| e.to_string()))
            .map(|docs| {
                docs.into_iter()
                    .next()
                    .map(|d| to_json_helm(&d.into_root()))
                    .unwrap_or(Json::Null)
            });
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) if a == b => same += 1,
            (Err(_), Err(_)) => both_fail += 1,
            // a number that JSON cannot hold (`.inf`) is refused by upstream's JSON step only
            (Err(_), Ok(_)) if text.contains("inf") || text.contains("nan") => both_fail += 1,
            _ => {
                eprintln!(
                    "  DIFF postbuild seed {seed} case {case} (strict {strict}):\n{text}\n  offlux {ours:?}\n  upstream recipe {theirs:?}"
                );
                differ.push(case);
            }
        }
    }
    println!(
        "differential postbuild-documents: {count} generated objects (seed {seed}): {same} identical, {both_fail} refused by both, {} differ",
        differ.len()
    );
    assert!(
        differ.is_empty(),
        "post-build substitution differs from upstream's recipe (seed {seed}): cases {differ:?}"
    );
}
