//! The generator's plumbing: a seeded random source, the run's settings (seed and case counts,
//! from `OFFLUX_DIFF_SEED` and `OFFLUX_DIFF_CASES`), and a YAML writer that prints generated data
//! in varied but valid styles so the engines' readers are exercised too.

use rand_chacha::ChaCha8Rng;
use rand_core06::{RngCore, SeedableRng};
use serde_json::Value;

/// The seed CI runs with; any other seed is a different (and equally valid) campaign.
pub const DEFAULT_SEED: u64 = 24;

/// The seed of this run: `OFFLUX_DIFF_SEED`, or [`DEFAULT_SEED`].
pub fn seed() -> u64 {
    std::env::var("OFFLUX_DIFF_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(DEFAULT_SEED)
}

/// How many cases an area compares: `OFFLUX_DIFF_CASES` (a long campaign), or the area's bounded
/// CI count.
pub fn cases(ci_default: usize) -> usize {
    std::env::var("OFFLUX_DIFF_CASES")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(ci_default)
}

/// A random source seeded from the run's seed, an area's name and a case number, so that one
/// case can be regenerated alone.
pub struct Gen(ChaCha8Rng);

impl Gen {
    pub fn new(seed: u64, area: &str, case: u64) -> Gen {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        key[8..16].copy_from_slice(&case.to_le_bytes());
        for (i, b) in area.bytes().take(16).enumerate() {
            key[16 + i] = b;
        }
        Gen(ChaCha8Rng::from_seed(key))
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n.max(1) as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.0.next_u64() as f64 / u64::MAX as f64) < p
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        let i = self.below(items.len());
        &items[i]
    }
}

/// Plain scalars a reader must not mistype: numbers, booleans and nulls of YAML 1.1 and 1.2.
const AMBIGUOUS: &[&str] = &[
    "true",
    "yes",
    "on",
    "no",
    "off",
    "y",
    "n",
    "null",
    "~",
    "0644",
    "1e3",
    "1.0",
    "12",
    "0x1F",
    ".inf",
    "-1",
    "+1",
    "1_000",
    "0o17",
    "2024-01-01",
    "",
];

/// Strings for values: words, ambiguous scalars, punctuation and unicode.
pub fn string(g: &mut Gen) -> String {
    match g.below(8) {
        0 | 1 => g.pick(&["alpha", "beta", "gamma", "web", "db", "x"]).to_string(),
        2 => g.pick(AMBIGUOUS).to_string(),
        3 => g
            .pick(&["a b", "a: b", "#x", "- x", "a,b", "[x]", "{y}", "*z", "&a", "!t", "%p", "@a", "`b"])
            .to_string(),
        4 => g
            .pick(&["héllo", "日本語", "emoji 🚀", "tab\tsep", "quote\"d", "back\\slash", "it's"])
            .to_string(),
        5 => g.pick(&["line1\nline2\n", "line1\nline2", "trailing \n", "  lead", "x\n\n"]).to_string(),
        6 => format!("{}-{}", g.pick(&["v", "rel", "id"]), g.below(1000)),
        _ => g
            .pick(&[
                "a very long value that goes on and on beyond eighty characters so that an emitter would consider folding it somewhere",
                "http://example.com/path?q=1&r=2",
                "${VAR}",
                "{{ .Values.x }}",
            ])
            .to_string(),
    }
}

/// YAML text for `value`, a document's root mapping, in block style with varied scalar styles.
pub fn yaml(g: &mut Gen, value: &Value) -> String {
    let mut out = String::new();
    write_block(g, value, 0, &mut out);
    out
}

fn write_block(g: &mut Gen, value: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                out.push_str(&pad);
                out.push_str(&key(k));
                out.push(':');
                write_value(g, v, indent, out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for v in items {
                out.push_str(&pad);
                out.push('-');
                match v {
                    Value::Object(m) if !m.is_empty() => {
                        // the first key on the dash line, the rest under it
                        let mut first = true;
                        for (k, item) in m {
                            if first {
                                out.push(' ');
                                first = false;
                            } else {
                                out.push_str(&" ".repeat(indent + 2));
                            }
                            out.push_str(&key(k));
                            out.push(':');
                            write_value(g, item, indent + 2, out);
                        }
                    }
                    Value::Array(a) if !a.is_empty() => {
                        out.push('\n');
                        write_block(g, v, indent + 2, out);
                    }
                    other => write_value(g, other, indent, out),
                }
            }
        }
        other => {
            out.push_str(&pad);
            out.push_str(&flow(other));
            out.push('\n');
        }
    }
}

fn write_value(g: &mut Gen, v: &Value, indent: usize, out: &mut String) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_block(g, v, indent + 2, out);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            // both sequence indentations are common in the wild
            let inner = if g.chance(0.5) { indent } else { indent + 2 };
            write_block(g, v, inner, out);
        }
        Value::String(s) => {
            out.push(' ');
            out.push_str(&scalar(g, s, indent));
            out.push('\n');
        }
        other => {
            out.push(' ');
            out.push_str(&flow(other));
            out.push('\n');
        }
    }
}

fn key(k: &str) -> String {
    if plain_safe(k) {
        k.to_string()
    } else {
        json_quote(k)
    }
}

/// A string as a plain, single-quoted, double-quoted or literal block scalar, whichever keeps it
/// a string with the same text.
fn scalar(g: &mut Gen, s: &str, indent: usize) -> String {
    let lines_ok = s.ends_with('\n')
        && !s.ends_with("\n\n")
        && s.lines()
            .all(|l| !l.is_empty() && !l.starts_with(' ') && !l.contains('\t'));
    match g.below(4) {
        0 if lines_ok => {
            let pad = " ".repeat(indent + 2);
            let body: Vec<String> = s.lines().map(|l| format!("{pad}{l}")).collect();
            format!("|\n{}", body.join("\n"))
        }
        1 if !s.contains('\n') && !s.contains('\t') => format!("'{}'", s.replace('\'', "''")),
        2 if plain_safe(s) && !AMBIGUOUS.contains(&s) => s.to_string(),
        _ => json_quote(s),
    }
}

fn plain_safe(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && !s.starts_with(['-', '.', '/'])
        && s.chars().any(|c| c.is_alphabetic())
        && !AMBIGUOUS.contains(&s)
}

fn json_quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn flow(v: &Value) -> String {
    match v {
        Value::String(s) => json_quote(s),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        other => other.to_string(),
    }
}

/// The first line where two texts differ (1-based), for reports.
pub fn first_difference(expected: &str, actual: &str) -> usize {
    let mut e = expected.lines();
    let mut a = actual.lines();
    let mut line = 1;
    loop {
        match (e.next(), a.next()) {
            (None, None) => return line,
            (x, y) if x != y => return line,
            _ => line += 1,
        }
    }
}

/// offlux's answer `got` against the reference's recorded one in `case` (`expected.yaml`, or
/// `expected_error.txt`, which offlux's error must contain): `None` when they agree, else how
/// they differ.
pub fn recorded_verdict(case: &std::path::Path, got: &Result<String, String>) -> Option<String> {
    match (
        std::fs::read_to_string(case.join("expected.yaml")),
        std::fs::read_to_string(case.join("expected_error.txt")),
    ) {
        (Ok(want), _) => match got {
            Ok(out) if *out == want => None,
            Ok(out) => Some(format!("differs at line {}", first_difference(&want, out))),
            Err(e) => Some(format!("fails: {e}")),
        },
        (_, Ok(want)) => match got {
            Err(e) if e.contains(want.trim()) => None,
            other => Some(format!(
                "want an error containing {:?}, got {other:?}",
                want.trim()
            )),
        },
        _ => Some("has neither expected.yaml nor expected_error.txt".into()),
    }
}

/// Fails unless every regression case (name, verdict) agrees with the reference's answer.
pub fn assert_regressions_agree(verdicts: Vec<(String, Option<String>)>) {
    let failures: Vec<String> = verdicts
        .into_iter()
        .filter_map(|(name, verdict)| verdict.map(|why| format!("{name}: {why}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Fails unless every known disagreement under `root` has its `CAUSE` and still differs: one that
/// agrees now is to be moved to the regressions.
pub fn assert_known_still_differ(root: &str, verdicts: Vec<(String, Option<String>)>) {
    let agree: Vec<String> = verdicts
        .into_iter()
        .filter(|(name, verdict)| {
            let cause = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(root)
                .join(name)
                .join("CAUSE");
            assert!(cause.is_file(), "{root}/{name} needs a CAUSE");
            verdict.is_none()
        })
        .map(|(name, _)| name)
        .collect();
    assert!(
        agree.is_empty(),
        "these known disagreements agree with the reference now: move them to the regressions: {agree:?}"
    );
}
