//! Conformance: the `envsubst` suite. `cases.jsonl` holds fluxcd/pkg envsubst's own cases and
//! `cases_drone_envsubst.jsonl` upstream drone/envsubst's; both must pass in full.
//!
//! The `flux-postbuild/` scenarios need a kustomize build first and are run by the kustomization
//! controller's tests, not here.

use std::collections::BTreeMap;
use std::path::Path;

use offlux::substitute::envsubst;
use serde_json::Value;

use crate::common::{suite_dir, Tally};

/// One line of a cases file:
/// `{id, input, env: {name: value}, strict, expected, error_contains}`.
struct Case {
    id: String,
    input: String,
    env: BTreeMap<String, String>,
    strict: bool,
    expected: String,
    error_contains: Option<String>,
}

fn parse_case(line: &str) -> Result<Case, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("bad JSON: {e}"))?;
    let text = |key: &str| -> Result<String, String> {
        v.get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("missing string field `{key}`"))
    };
    let env = v
        .get("env")
        .and_then(Value::as_object)
        .ok_or("missing object field `env`")?
        .iter()
        .map(|(k, val)| {
            val.as_str()
                .map(|s| (k.clone(), s.to_owned()))
                .ok_or_else(|| format!("env value of `{k}` is not a string"))
        })
        .collect::<Result<_, _>>()?;
    Ok(Case {
        id: text("id")?,
        input: text("input")?,
        env,
        strict: v
            .get("strict")
            .and_then(Value::as_bool)
            .ok_or("missing boolean field `strict`")?,
        expected: text("expected")?,
        error_contains: v
            .get("error_contains")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// Runs one case; `Err` carries what differed.
fn run_case(case: &Case) -> Result<(), String> {
    let got = envsubst(&case.input, |name| case.env.get(name).cloned(), case.strict);
    match (&case.error_contains, got) {
        (None, Ok(out)) if out == case.expected => Ok(()),
        (None, Ok(out)) => Err(format!("expected {:?}, got {out:?}", case.expected)),
        (None, Err(e)) => Err(format!("expected {:?}, got error `{e}`", case.expected)),
        (Some(want), Err(e)) if e.to_string().contains(want.as_str()) => Ok(()),
        (Some(want), Err(e)) => Err(format!("expected an error containing {want:?}, got `{e}`")),
        (Some(want), Ok(out)) => Err(format!(
            "expected an error containing {want:?}, got {out:?}"
        )),
    }
}

fn run_file(path: &Path, suite: &str) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read `{}`: {e}", path.display()));
    let mut tally = Tally::default();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_case(line) {
            Ok(case) => match run_case(&case) {
                Ok(()) => tally.pass(),
                Err(why) => tally.fail(format!("{} {:?}: {why}", case.id, case.input)),
            },
            Err(why) => tally.fail(format!("line {}: {why}", n + 1)),
        }
    }
    tally.finish(suite, 1.0);
}

#[test]
fn flux_envsubst_cases() {
    run_file(&suite_dir("envsubst").join("cases.jsonl"), "envsubst-flux");
}

#[test]
fn drone_envsubst_cases() {
    run_file(
        &suite_dir("envsubst").join("cases_drone_envsubst.jsonl"),
        "envsubst-drone",
    );
}
