//! The FluxInstance cases of the `resourceset` suite: `spec.sync` admission (the CRD's rules and
//! the operator's version gate) and the sync objects of the operator's builder tests. The
//! builder tests also build the Flux distribution from manifests the suite does not carry; the
//! assertions about it (the generated kustomization.yaml, the Namespace, the build revision) are
//! not checked, and a case with nothing else to check is skipped.

use std::path::Path;

use offlux::controllers::flux_instance::{generate, validate_sync, Generate};
use offlux::model::FluxSync;
use offlux::resourceset::yaml_to_json;
use serde_json::Value as Json;

use super::{documents, read, Outcome};

/// The kinds the sync generates; anything else an assertion names belongs to the distribution.
const SYNC_KINDS: [&str; 4] = ["GitRepository", "OCIRepository", "Bucket", "Kustomization"];

fn text(value: &Json, key: &str) -> Option<String> {
    value.get(key).and_then(Json::as_str).map(str::to_owned)
}

/// `validate_sync` over a FluxInstance's spec: `Ok(())` when admitted.
fn admit(spec: &Json, version: Option<&str>) -> Result<(), String> {
    let Some(sync) = spec.get("sync").filter(|s| !s.is_null()) else {
        return Ok(());
    };
    let kind = text(sync, "kind").unwrap_or_else(|| "GitRepository".into());
    validate_sync(version, &kind, text(sync, "provider").as_deref())
}

/// A `crd` case with a `fluxinstance.yaml`.
pub fn run_crd(object_text: &str, case: &Json) -> Outcome {
    let docs = documents(object_text)?;
    let object = docs.first().ok_or("no object")?;
    let spec = object.get("spec").cloned().unwrap_or(Json::Null);
    let version = spec.get("distribution").and_then(|d| text(d, "version"));
    let result = admit(&spec, version.as_deref());
    expect(case, result)
}

fn expect(case: &Json, result: Result<(), String>) -> Outcome {
    let accepted = matches!(
        case.get("expect").and_then(Json::as_str),
        Some("accepted" | "valid")
    ) || case.get("expected").and_then(Json::as_str) == Some("valid");
    let want: Vec<String> = match case
        .get("error_contains")
        .or_else(|| case.get("expected_error_contains"))
    {
        Some(Json::Array(items)) => items
            .iter()
            .filter_map(Json::as_str)
            .map(str::to_owned)
            .collect(),
        Some(Json::String(one)) => vec![one.clone()],
        _ => Vec::new(),
    };
    match (accepted, result) {
        (true, Ok(())) => Ok(None),
        (true, Err(e)) => Err(format!("expected to be accepted, got {e}")),
        (false, Ok(())) => Err("expected a rejection, the sync was accepted".into()),
        (false, Err(e)) => match want.iter().find(|w| !e.contains(w.as_str())) {
            Some(missing) => Err(format!("expected error containing {missing:?}, got {e:?}")),
            None => Ok(None),
        },
    }
}

/// A `validate_sync` function-level case.
pub fn run_unit(case: &Json) -> Outcome {
    let version = text(case, "flux_version");
    let sync = case.get("sync").cloned().unwrap_or(Json::Null);
    let spec = serde_json::json!({ "sync": sync });
    expect(case, admit(&spec, version.as_deref()))
}

/// A `fluxinstance-builder` case.
pub fn run_builder(dir: &Path) -> Outcome {
    let options = documents(&read(dir, "builder_options.yaml").ok_or("no builder_options.yaml")?)?
        .into_iter()
        .next()
        .ok_or("empty builder_options.yaml")?;
    let assertions = documents(&read(dir, "assertions.yaml").ok_or("no assertions.yaml")?)?
        .into_iter()
        .next()
        .ok_or("empty assertions.yaml")?;
    let namespace = text(&options, "namespace").unwrap_or_else(|| "flux-system".into());
    let version = text(&options, "version");
    let checks: Vec<&Json> = assertions
        .get("objects_of_kind")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter(|entry| {
            entry
                .get("kinds")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
                .filter_map(Json::as_str)
                .all(|kind| kind == "*" || SYNC_KINDS.contains(&kind))
        })
        .collect();
    let Some(sync) = options.get("sync") else {
        return Ok(Some(
            "asserts only on the Flux distribution, which is not rendered offline".into(),
        ));
    };
    if checks.is_empty() {
        return Ok(Some(
            "asserts only on the Flux distribution, which is not rendered offline".into(),
        ));
    }
    let sync = FluxSync {
        kind: text(sync, "kind").unwrap_or_else(|| "GitRepository".into()),
        url: text(sync, "url").unwrap_or_default(),
        reference: text(sync, "ref").unwrap_or_default(),
        path: text(sync, "path").unwrap_or_default(),
        name: text(sync, "name"),
        interval: text(sync, "interval"),
        pull_secret: text(sync, "pullSecret"),
        provider: text(sync, "provider"),
    };
    // The builder takes the interval as the test wrote it.
    let interval = sync.interval.clone().unwrap_or_else(|| "1m0s".into());
    let objects = generate(&Generate {
        instance: "flux",
        namespace: &namespace,
        sync: &sync,
        version: version.as_deref(),
        interval: &interval,
        patches: None,
        common_metadata: None,
    })?;
    let objects: Vec<Json> = objects.iter().map(yaml_to_json).collect();
    for check in checks {
        check_kind(&objects, check)?;
    }
    Ok(None)
}

fn at<'a>(object: &'a Json, path: &[Json]) -> Option<&'a Json> {
    path.iter()
        .try_fold(object, |value, key| value.get(key.as_str()?))
}

fn check_kind(objects: &[Json], check: &Json) -> Result<(), String> {
    let kinds: Vec<&str> = check
        .get("kinds")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .collect();
    let name = text(check, "name");
    let selected: Vec<&Json> = objects
        .iter()
        .filter(|o| {
            let kind = o.get("kind").and_then(Json::as_str).unwrap_or_default();
            kinds.iter().any(|k| *k == "*" || *k == kind)
        })
        .filter(|o| {
            name.as_deref().is_none_or(|n| {
                at(o, &[Json::from("metadata"), Json::from("name")]).and_then(Json::as_str)
                    == Some(n)
            })
        })
        .collect();
    if check.get("at_least_one").and_then(Json::as_bool) == Some(true) && selected.is_empty() {
        return Err(format!("no object of kinds {kinds:?}"));
    }
    for object in selected {
        let annotations = at(object, &[Json::from("metadata"), Json::from("annotations")]);
        for (key, value) in check
            .get("annotations")
            .and_then(Json::as_object)
            .into_iter()
            .flatten()
        {
            if annotations.and_then(|a| a.get(key)) != Some(value) {
                return Err(format!("annotation {key} is not {value} on {object}"));
            }
        }
        for entry in check
            .get("checks")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            let path = entry
                .get("path")
                .and_then(Json::as_array)
                .cloned()
                .unwrap_or_default();
            let got = at(object, &path);
            if let Some(want) = entry.get("equals") {
                if got != Some(want) {
                    return Err(format!("{path:?} is {got:?}, expected {want}"));
                }
            }
        }
    }
    Ok(())
}
