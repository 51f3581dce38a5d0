//! Conformance: the `envsubst` suite. `cases.jsonl` holds fluxcd/pkg envsubst's own cases and
//! `cases_drone_envsubst.jsonl` upstream drone/envsubst's; both must pass in full.
//!
//! The `flux-postbuild/` scenarios (fluxcd/pkg's varsub tests) build their tree with the kustomize
//! engine, load variables the way the kustomization controller does (`substituteFrom` objects, then
//! inline `substitute`), and substitute every built object.

use std::collections::BTreeMap;
use std::path::Path;

use offlux::substitute::envsubst;
use serde_json::Value;

use crate::conformance::common::{suite_dir, suite_present, Tally};

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
                Err(why) => tally.fail(case.id.clone(), format!("{:?}: {why}", case.input)),
            },
            Err(why) => tally.fail(format!("line {}", n + 1), why),
        }
    }
    tally.finish(suite);
}

#[test]
fn flux_envsubst_cases() {
    if !suite_present("envsubst") {
        return;
    }
    run_file(&suite_dir("envsubst").join("cases.jsonl"), "envsubst-flux");
}

#[test]
fn drone_envsubst_cases() {
    if !suite_present("envsubst") {
        return;
    }
    run_file(
        &suite_dir("envsubst").join("cases_drone_envsubst.jsonl"),
        "envsubst-drone",
    );
}

mod flux_postbuild {
    use std::collections::BTreeMap;
    use std::path::Path;

    use offlux::controllers::postbuild::{self, Variables};
    use offlux::kustomize;
    use offlux::model::{FluxObject, Object, ResourceId};
    use offlux::substitute::{substitute_document, Options};
    use offlux::yaml::{canonical_kyaml, emit_stream, parse_stream, to_json_kyaml, ParseOptions};
    use serde_json::Value;

    use crate::conformance::common::{suite_dir, suite_present, Tally};

    fn objects(path: &Path) -> Vec<Object> {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        parse_stream(&text, &ParseOptions::default())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|d| {
                Object::from_shared(d.root, path.to_path_buf(), d.pos)
                    .ok()
                    .flatten()
            })
            .collect()
    }

    /// Builds and substitutes one scenario: the printed output, or the error.
    fn run(dir: &Path, case: &Value) -> Result<String, String> {
        let flux = objects(&dir.join("flux-kustomization.yaml"))
            .into_iter()
            .next()
            .ok_or("no Flux Kustomization")?;
        let flux = FluxObject::from_object(&flux)
            .map_err(|e| e.to_string())?
            .ok_or("not a Flux object")?;
        let spec = flux.as_kustomization().ok_or("not a Kustomization")?;
        let data = objects(&dir.join("objects.yaml"));
        let lookup = |id: &ResourceId| {
            data.iter()
                .find(|o| o.id.kind == id.kind && o.id.name == id.name)
        };
        let variables = match &spec.post_build {
            Some(post_build) => match postbuild::collect(
                flux.namespace(),
                post_build,
                &BTreeMap::new(),
                postbuild::Lookups {
                    find: lookup,
                    declared: |_: &ResourceId| None,
                },
                true,
                &mut Vec::new(),
            ) {
                Variables::Ready(collected) => collected.values,
                Variables::NotFound(message) => return Err(message),
                Variables::Wait(ids) => return Err(format!("waiting on {ids:?}")),
            },
            None => BTreeMap::new(),
        };
        let options = kustomize::Options {
            load_restrictor: kustomize::LoadRestrictor::None,
            reorder: kustomize::Reorder::None,
            ..kustomize::Options::default()
        };
        let build =
            kustomize::build(&dir.join("kustomize"), &options).map_err(|e| e.to_string())?;
        let substitute = Options {
            strict: case["strict"].as_bool().unwrap_or(false),
            always: case["always"].as_bool().unwrap_or(false),
            ..Options::default()
        };
        let mut out = Vec::new();
        for node in &build.objects {
            out.push(canonical_kyaml(
                &substitute_document(node.clone(), &variables, &substitute)
                    .map_err(|e| e.to_string())?,
            ));
        }
        Ok(emit_stream(&out))
    }

    fn as_data(text: &str) -> Vec<Value> {
        parse_stream(text, &ParseOptions::default())
            .unwrap_or_default()
            .iter()
            .filter(|d| !d.root.is_null())
            .map(|d| to_json_kyaml(&d.root))
            .collect()
    }

    fn check(
        dir: &Path,
        case: &Value,
        outputs: &BTreeMap<String, Result<String, String>>,
    ) -> Result<(), String> {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let result = outputs
            .get(&name)
            .cloned()
            .unwrap_or_else(|| Err("not run".into()));
        match case["expect"].as_str() {
            Some("error") => {
                let wanted = case["error_contains"].as_str().unwrap_or_default();
                match result {
                    Err(error) if error.contains(wanted) => Ok(()),
                    Err(error) => Err(format!("error `{error}` lacks `{wanted}`")),
                    Ok(_) => Err(format!("expected an error containing `{wanted}`")),
                }
            }
            Some("output") => {
                let output = result?;
                let expected = std::fs::read_to_string(dir.join("expected.yaml"))
                    .map_err(|e| e.to_string())?;
                if as_data(&output) == as_data(&expected) {
                    Ok(())
                } else {
                    Err(format!("output differs:\n{output}"))
                }
            }
            _ => {
                let output = result?;
                for wanted in case["contains"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !output.contains(wanted) {
                        return Err(format!("output lacks `{wanted}`:\n{output}"));
                    }
                }
                for unwanted in case["not_contains"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if output.contains(unwanted) {
                        return Err(format!("output contains `{unwanted}`:\n{output}"));
                    }
                }
                if let Some(other) = case["same_output_as"].as_str() {
                    if outputs.get(other).and_then(|r| r.as_ref().ok()) != Some(&output) {
                        return Err(format!("output differs from `{other}`"));
                    }
                }
                Ok(())
            }
        }
    }

    #[test]
    fn flux_postbuild_scenarios() {
        if !suite_present("envsubst") {
            return;
        }
        let base = suite_dir("envsubst").join("flux-postbuild");
        let mut dirs: Vec<_> = std::fs::read_dir(&base)
            .expect("read suite")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        let cases: Vec<(std::path::PathBuf, Value)> = dirs
            .into_iter()
            .map(|dir| {
                let case = std::fs::read_to_string(dir.join("case.json"))
                    .ok()
                    .and_then(|t| serde_json::from_str(&t).ok())
                    .unwrap_or(Value::Null);
                (dir, case)
            })
            .collect();
        let outputs: BTreeMap<String, Result<String, String>> = cases
            .iter()
            .map(|(dir, case)| {
                (
                    dir.file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    run(dir, case),
                )
            })
            .collect();
        let mut tally = Tally::default();
        for (dir, case) in &cases {
            match check(dir, case, &outputs) {
                Ok(()) => tally.pass(),
                Err(reason) => tally.fail(
                    dir.file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    reason,
                ),
            }
        }
        tally.finish("envsubst-flux-postbuild");
    }
}
