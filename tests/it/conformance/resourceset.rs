//! Conformance: the `resourceset` suite, the Flux Operator's own ResourceSet and
//! ResourceSetInputProvider tests as data (see the suite's README.md for the case format).
//!
//! Every case directory and every function-level case of `unit_cases.json` is run through the
//! `resourceset` engine the way its `mode` says: the builder, steps, the offline CLI pipeline,
//! `inputs.Combine`, a controller reconciliation with `cluster.yaml` as the objects the renderer
//! knows, Static provider exports and the admission rules. Assertions that only a live cluster
//! can check (events, conditions' reasons, history, timing relations) are not checked; the rest
//! of a case must hold for it to pass. FluxInstance cases run through the FluxInstance
//! controller's sync generation and admission (`fluxinstance.rs`); the one case about the
//! upstream CLI wrapper's own flags is reported as skipped.

use std::collections::BTreeMap;
use std::path::Path;

use offlux::resourceset::{
    self, build, build_steps, combine, id, normalize_key, to_yaml_text, yaml_to_json, InputSet,
    InputSource, Mode, Permuter, ProviderReference, ProviderSpec, Request, ResourceSetSpec,
};
use offlux::yaml;
use serde_json::{Map, Value as Json};

use crate::conformance::common::{suite_dir, suite_present, Tally};

mod fluxinstance;

type Object = Map<String, Json>;

/// Runs one case; `Ok(Some(reason))` means skipped.
type Outcome = Result<Option<String>, String>;

fn read(dir: &Path, file: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(file)).ok()
}

fn documents(text: &str) -> Result<Vec<Json>, String> {
    let docs = yaml::parse_stream(text, &yaml::ParseOptions::default())
        .map_err(|e| format!("bad YAML: {e}"))?;
    Ok(docs
        .iter()
        .map(|d| yaml_to_json(&d.root))
        .filter(|d| !d.is_null())
        .collect())
}

fn meta<'a>(object: &'a Json, key: &str) -> &'a str {
    object
        .get("metadata")
        .and_then(|m| m.get(key))
        .and_then(Json::as_str)
        .unwrap_or_default()
}

fn labels_of(object: &Json) -> BTreeMap<String, String> {
    object
        .get("metadata")
        .and_then(|m| m.get("labels"))
        .and_then(Json::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

/// Placeholders of the suite: `${rsip_id:<name>}` (a Static provider's id, offline from its
/// name) and `${adler32:<text>}`.
fn expand(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let body = &after[..end];
        match body
            .strip_prefix("rsip_id:")
            .or_else(|| body.strip_prefix("adler32:"))
        {
            Some(arg) => out.push_str(&id(arg)),
            None => out.push_str(&rest[start..start + 3 + end]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

fn case_json(dir: &Path) -> Result<Json, String> {
    let text = read(dir, "case.json").ok_or("no case.json")?;
    serde_json::from_str(&text).map_err(|e| format!("bad case.json: {e}"))
}

fn expected_error(dir: &Path, case: &Json) -> Option<(String, bool)> {
    let text = read(dir, "expected_error.txt")
        .or_else(|| {
            case.get("error_equals")
                .and_then(Json::as_str)
                .map(str::to_owned)
        })
        .or_else(|| {
            case.get("error_contains")
                .and_then(Json::as_array)
                .and_then(|a| a.first())
                .and_then(Json::as_str)
                .map(str::to_owned)
        })?;
    let equals = case.get("error_match").and_then(Json::as_str) == Some("equals");
    Some((text.trim_end_matches('\n').to_owned(), equals))
}

fn check_error(got: &str, want: &str, equals: bool) -> Outcome {
    let ok = if equals {
        got == want
    } else {
        got.contains(want)
    };
    if ok {
        Ok(None)
    } else {
        Err(format!("expected error {want:?}, got {got:?}"))
    }
}

fn spec_of(rset: &Json) -> Result<ResourceSetSpec, resourceset::Error> {
    let mut spec = rset
        .get("spec")
        .filter(|s| s.is_object())
        .cloned()
        .unwrap_or(Json::Object(Map::new()));
    // Some inputs cases hold the inline inputs beside `spec`.
    if let (Some(inputs), Json::Object(map)) = (rset.get("inputs"), &mut spec) {
        map.entry("inputs").or_insert(inputs.clone());
    }
    ResourceSetSpec::from_json(&spec)
}

fn objects_text(objects: &[Object]) -> String {
    objects
        .iter()
        .map(|o| format!("{}---\n", to_yaml_text(o)))
        .collect()
}

fn compare_output(dir: &Path, case: &Json, got: &str) -> Outcome {
    let want = read(dir, "expected.yaml").ok_or("no expected.yaml")?;
    let yaml_compare = case.get("compare").and_then(Json::as_str) == Some("yaml");
    if yaml_compare {
        let strip = |t: &str| -> Result<Vec<Json>, String> {
            let cleaned: String = t
                .lines()
                .filter(|l| !l.starts_with("# step:"))
                .map(|l| format!("{l}\n"))
                .collect();
            documents(&cleaned)
        };
        if strip(got)? == strip(&want)? {
            return Ok(None);
        }
    } else if got == want {
        return Ok(None);
    }
    Err(format!("output differs:\n--- want\n{want}--- got\n{got}"))
}

fn run_builder(dir: &Path, case: &Json, steps: bool) -> Outcome {
    let docs = documents(&read(dir, "resourceset.yaml").ok_or("no resourceset.yaml")?)?;
    let rset = docs.first().ok_or("no ResourceSet")?;
    let expected = expected_error(dir, case);
    let result = spec_of(rset).and_then(|spec| {
        if steps {
            build_steps(&spec.steps, &spec.inputs, &Default::default()).map(|steps| {
                let mut text = String::new();
                let counts: Vec<(String, usize)> = steps
                    .iter()
                    .map(|s| (s.name.clone(), s.objects.len()))
                    .collect();
                for step in &steps {
                    text.push_str(&format!("# step: {}\n", step.name));
                    text.push_str(&objects_text(&step.objects));
                }
                (text, counts)
            })
        } else {
            build(&spec.templates, &spec.inputs, &Default::default())
                .map(|o| (objects_text(&o), Vec::new()))
        }
    });
    match (case.get("expect").and_then(Json::as_str), result) {
        (Some("error"), Err(e)) => {
            let (want, equals) = expected.ok_or("no expected error")?;
            check_error(&e.to_string(), &want, equals)
        }
        (Some("error"), Ok((text, _))) => Err(format!("expected an error, got:\n{text}")),
        (_, Err(e)) => Err(format!("unexpected error: {e}")),
        (Some("assertions"), Ok((_, counts))) => {
            let assertions = assertions(dir)?;
            for step in assertions
                .get("steps")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
            {
                let name = step.get("name").and_then(Json::as_str).unwrap_or_default();
                let want = step.get("object_count").and_then(Json::as_u64).unwrap_or(0);
                let got = counts.iter().find(|(n, _)| n == name).map(|(_, c)| *c);
                if got != Some(want as usize) {
                    return Err(format!("step {name}: expected {want} objects, got {got:?}"));
                }
            }
            Ok(None)
        }
        (_, Ok((text, _))) => compare_output(dir, case, &text),
    }
}

fn assertions(dir: &Path) -> Result<Json, String> {
    let text = read(dir, "assertions.yaml").ok_or("no assertions.yaml")?;
    let text = expand(&text);
    documents(&text)?
        .into_iter()
        .next()
        .ok_or_else(|| "empty assertions.yaml".into())
}

/// A provider's exported inputs, offline: Static gives `defaultValues` plus the id of its name;
/// a given `status.exportedInputs` is taken as it is.
fn provider_source(provider: &Json) -> Result<Option<InputSource>, String> {
    let inputs: Vec<InputSet> = if let Some(Json::Array(exported)) =
        provider.get("status").and_then(|s| s.get("exportedInputs"))
    {
        exported
            .iter()
            .filter_map(|e| e.as_object().cloned())
            .collect()
    } else {
        let spec = ProviderSpec::from_json(provider.get("spec").unwrap_or(&Json::Null))
            .map_err(|e| e.to_string())?;
        if spec.provider_type != "Static" {
            return Ok(None);
        }
        resourceset::static_inputs(meta(provider, "name"), spec.default_values.as_ref())
    };
    Ok(Some(InputSource {
        api_version: provider
            .get("apiVersion")
            .and_then(Json::as_str)
            .unwrap_or(resourceset::API_VERSION)
            .to_owned(),
        kind: provider
            .get("kind")
            .and_then(Json::as_str)
            .unwrap_or("ResourceSetInputProvider")
            .to_owned(),
        name: meta(provider, "name").to_owned(),
        namespace: meta(provider, "namespace").to_owned(),
        inputs,
    }))
}

/// The providers `spec.inputsFrom` selects among `docs`, in the ResourceSet's namespace.
fn selected(
    spec: &ResourceSetSpec,
    namespace: &str,
    docs: &[Json],
) -> Result<Vec<InputSource>, String> {
    let candidates: Vec<&Json> = docs
        .iter()
        .filter(|d| {
            d.get("kind").and_then(Json::as_str) == Some("ResourceSetInputProvider")
                && meta(d, "namespace") == namespace
        })
        .collect();
    let labels: Vec<BTreeMap<String, String>> = candidates.iter().map(|d| labels_of(d)).collect();
    let named: Vec<(&str, &BTreeMap<String, String>)> = candidates
        .iter()
        .zip(&labels)
        .map(|(d, l)| (meta(d, "name"), l))
        .collect();
    let mut out = Vec::new();
    for index in resourceset::select_providers(&spec.inputs_from, &named) {
        if let Some(provider) = candidates.get(index) {
            if let Some(source) = provider_source(provider)? {
                out.push(source);
            }
        }
    }
    Ok(out)
}

fn render_text(rendered: &resourceset::Rendered) -> String {
    let mut text = String::new();
    for step in &rendered.steps {
        if !step.name.is_empty() && !step.objects.is_empty() {
            text.push_str(&format!("# step: {}\n", step.name));
        }
        for object in &step.objects {
            text.push_str("---\n");
            text.push_str(&to_yaml_text(object));
        }
    }
    text
}

fn run_cli(dir: &Path, case: &Json) -> Outcome {
    if case.get("offline").and_then(Json::as_str) == Some("cli-only") {
        return Ok(Some(
            "flux-operator CLI wrapper flag handling (`--inputs-from` required)".into(),
        ));
    }
    let docs = documents(&read(dir, "resourceset.yaml").ok_or("no resourceset.yaml")?)?;
    let (rset, providers) = docs.split_first().ok_or("no ResourceSet")?;
    let namespace = meta(rset, "namespace");
    let result = (|| -> Result<String, String> {
        let mut spec = spec_of(rset).map_err(|e| e.to_string())?;
        if let Some(text) = read(dir, "inputs.yaml") {
            let list = documents(&text)?.into_iter().next().unwrap_or(Json::Null);
            spec.inputs = list
                .as_array()
                .map(|a| a.iter().filter_map(|i| i.as_object().cloned()).collect())
                .unwrap_or_default();
        }
        let providers = selected(&spec, namespace, providers)?;
        let request = Request {
            name: meta(rset, "name"),
            namespace,
            spec: &spec,
            providers,
            mode: Mode::Cli,
            run: Default::default(),
            assume_cluster_held: false,
        };
        let rendered = resourceset::render(&request, &|_, _, _| None).map_err(|e| e.to_string())?;
        if rendered.objects().next().is_none() {
            return Err("no objects were generated".into());
        }
        Ok(render_text(&rendered))
    })();
    match (case.get("expect").and_then(Json::as_str), result) {
        (Some("error"), Err(e)) => {
            let (want, equals) = expected_error(dir, case).ok_or("no expected error")?;
            check_error(&e, &want, equals)
        }
        (Some("error"), Ok(text)) => Err(format!("expected an error, got:\n{text}")),
        (_, Err(e)) => Err(format!("unexpected error: {e}")),
        (_, Ok(text)) => compare_output(dir, case, &text),
    }
}

fn run_inputs(dir: &Path, case: &Json) -> Outcome {
    let docs = documents(&read(dir, "resourceset.yaml").ok_or("no resourceset.yaml")?)?;
    let (rset, providers) = docs.split_first().ok_or("no ResourceSet")?;
    let mut spec = spec_of(rset).map_err(|e| e.to_string())?;
    if let Some(generate) = case.get("generate_inline_inputs") {
        let count = generate.get("count").and_then(Json::as_u64).unwrap_or(0);
        let item = generate
            .get("item")
            .and_then(Json::as_object)
            .cloned()
            .unwrap_or_default();
        spec.inputs = vec![item; count as usize];
    }
    let own = InputSource {
        api_version: resourceset::API_VERSION.into(),
        kind: "ResourceSet".into(),
        name: meta(rset, "name").into(),
        namespace: meta(rset, "namespace").into(),
        inputs: spec.inputs.clone(),
    };
    let sources = providers
        .iter()
        .map(provider_source)
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect::<Vec<_>>();
    let result = combine(&own, &sources, &spec.input_strategy);
    match (case.get("expect").and_then(Json::as_str), result) {
        (Some("error"), Err(e)) => {
            let (want, equals) = expected_error(dir, case).ok_or("no expected error")?;
            check_error(&e.to_string(), &want, equals)
        }
        (Some("error"), Ok(sets)) => Err(format!("expected an error, got {} sets", sets.len())),
        (_, Err(e)) => Err(format!("unexpected error: {e}")),
        (Some("inputs"), Ok(sets)) => {
            let want = documents(&read(dir, "expected_inputs.yaml").ok_or("no expected_inputs")?)?
                .into_iter()
                .next()
                .unwrap_or(Json::Null);
            let got = Json::Array(sets.into_iter().map(Json::Object).collect());
            if got == want {
                Ok(None)
            } else {
                Err(format!("expected {want}, got {got}"))
            }
        }
        (_, Ok(sets)) => {
            let assertions = assertions(dir)?;
            if let Some(count) = assertions.get("input_count").and_then(Json::as_u64) {
                if sets.len() as u64 != count {
                    return Err(format!("expected {count} input sets, got {}", sets.len()));
                }
            }
            let again = combine(&own, &sources, &spec.input_strategy).map_err(|e| e.to_string())?;
            if again != sets {
                return Err("combining twice gave different results".into());
            }
            Ok(None)
        }
    }
}

/// The objects the renderer knows besides the set (`cluster.yaml`), as a lookup.
fn cluster_objects(dir: &Path) -> Result<Vec<Json>, String> {
    match read(dir, "cluster.yaml") {
        Some(text) => documents(&text),
        None => Ok(Vec::new()),
    }
}

fn inventory_id(object: &Object) -> String {
    let json = Json::Object(object.clone());
    let api_version = json.get("apiVersion").and_then(Json::as_str).unwrap_or("");
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    format!(
        "{}_{}_{}_{}",
        meta(&json, "namespace"),
        meta(&json, "name"),
        group,
        json.get("kind").and_then(Json::as_str).unwrap_or("")
    )
}

fn find<'a>(objects: &'a [Object], want: &Json) -> Option<&'a Object> {
    let field = |k: &str| want.get(k).and_then(Json::as_str).unwrap_or_default();
    objects.iter().find(|o| {
        let json = Json::Object((*o).clone());
        json.get("apiVersion").and_then(Json::as_str) == Some(field("apiVersion"))
            && json.get("kind").and_then(Json::as_str) == Some(field("kind"))
            && meta(&json, "namespace") == field("namespace")
            && meta(&json, "name") == field("name")
    })
}

fn check_object(object: &Object, want: &Json) -> Result<(), String> {
    let json = Json::Object(object.clone());
    for field in ["labels", "annotations"] {
        if let Some(Json::Object(subset)) = want.get(field) {
            for (key, value) in subset {
                let got = json
                    .get("metadata")
                    .and_then(|m| m.get(field))
                    .and_then(|m| m.get(key));
                if got != Some(value) {
                    return Err(format!("{field}.{key}: expected {value}, got {got:?}"));
                }
            }
        }
    }
    for check in want
        .get("checks")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        let path: Vec<&str> = check
            .get("path")
            .and_then(Json::as_array)
            .map(|p| p.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default();
        let mut got = Some(&json);
        for key in &path {
            got = got.and_then(|g| g.get(*key));
        }
        let text = got.map(|g| match g {
            Json::String(s) => s.clone(),
            other => other.to_string(),
        });
        let fail = |what: &str| Err(format!("{path:?}: {what}, got {got:?}"));
        if check.get("absent").and_then(Json::as_bool) == Some(true) {
            if got.is_some() {
                return fail("expected absent");
            }
            continue;
        }
        let Some(text) = text else {
            return fail("missing");
        };
        if let Some(want) = check.get("equals") {
            let want_text = match want {
                Json::String(s) => s.clone(),
                other => other.to_string(),
            };
            if text != want_text {
                return fail(&format!("expected {want_text:?}"));
            }
        }
        if let Some(prefix) = check.get("prefix").and_then(Json::as_str) {
            if !text.starts_with(prefix) {
                return fail(&format!("expected prefix {prefix:?}"));
            }
        }
        if let Some(part) = check.get("contains").and_then(Json::as_str) {
            if !text.contains(part) {
                return fail(&format!("expected to contain {part:?}"));
            }
        }
        if let Some(raw) = check.get("equals_base64_of").and_then(Json::as_str) {
            use base64::Engine as _;
            let encoded = base64::engine::general_purpose::STANDARD.encode(raw);
            if text != encoded {
                return fail(&format!("expected base64 of {raw:?}"));
            }
        }
    }
    if let Some(Json::Object(data)) = want.get("secret_data") {
        let decoded = resourceset::decoded_data(object);
        for (key, value) in data {
            let got = decoded
                .get(key)
                .map(|v| String::from_utf8_lossy(v).into_owned());
            if got.as_deref() != value.as_str() {
                return Err(format!("secret data {key}: expected {value}, got {got:?}"));
            }
        }
    }
    for key in want
        .get("secret_data_absent_keys")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
    {
        if resourceset::decoded_data(object).contains_key(key) {
            return Err(format!("secret data {key}: expected absent"));
        }
    }
    Ok(())
}

fn run_controller(dir: &Path) -> Outcome {
    let docs = documents(&expand(
        &read(dir, "resourceset.yaml").ok_or("no resourceset.yaml")?,
    ))?;
    let (rset, providers) = docs.split_first().ok_or("no ResourceSet")?;
    let cluster = cluster_objects(dir)?;
    let assertions = assertions(dir)?;
    let lookup = |kind: &str, namespace: &str, name: &str| -> Option<Object> {
        cluster
            .iter()
            .find(|o| {
                o.get("kind").and_then(Json::as_str) == Some(kind)
                    && meta(o, "namespace") == namespace
                    && meta(o, "name") == name
            })
            .and_then(|o| o.as_object().cloned())
    };
    let paused = rset
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(resourceset::RECONCILE_ANNOTATION))
        .and_then(Json::as_str)
        .is_some_and(|v| v.eq_ignore_ascii_case("disabled"));
    let result = (|| -> Result<resourceset::Rendered, String> {
        let spec = spec_of(rset).map_err(|e| e.to_string())?;
        if let Some(error) = ready_expr_error(rset) {
            return Err(error);
        }
        let namespace = meta(rset, "namespace");
        for reference in &spec.inputs_from {
            if let ProviderReference::Name(name) = reference {
                let exists = providers
                    .iter()
                    .any(|p| meta(p, "name") == name.as_str() && meta(p, "namespace") == namespace);
                if !exists {
                    return Err(format!(
                        "failed to get provider ResourceSetInputProvider/{namespace}/{name}"
                    ));
                }
            }
        }
        let selected = selected(&spec, namespace, providers)?;
        if paused {
            return Ok(resourceset::Rendered::default());
        }
        let request = Request {
            name: meta(rset, "name"),
            namespace,
            spec: &spec,
            providers: selected,
            mode: Mode::Controller,
            run: Default::default(),
            assume_cluster_held: false,
        };
        resourceset::render(&request, &lookup).map_err(|e| e.to_string())
    })();
    let want_error = assertions.get("result").and_then(Json::as_str) == Some("error");
    let rendered = match (want_error, result) {
        (true, Err(e)) => {
            for want in assertions
                .get("error_contains")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
                .filter_map(Json::as_str)
            {
                if !e.contains(want) {
                    return Err(format!("expected error containing {want:?}, got {e:?}"));
                }
            }
            if let Some(want) = assertions
                .get("ready_message_contains")
                .and_then(Json::as_str)
            {
                if !e.contains(want) {
                    return Err(format!("expected message containing {want:?}, got {e:?}"));
                }
            }
            return Ok(None);
        }
        (true, Ok(_)) => return Err("expected an error, the ResourceSet rendered".into()),
        (false, Err(e)) => return Err(format!("unexpected error: {e}")),
        (false, Ok(rendered)) => rendered,
    };
    let objects: Vec<Object> = rendered.objects().cloned().collect();
    if let Some(inventory) = assertions.get("inventory") {
        let ids: Vec<String> = objects.iter().map(inventory_id).collect();
        if let Some(count) = inventory.get("count").and_then(Json::as_u64) {
            if ids.len() as u64 != count {
                return Err(format!("inventory: expected {count} entries, got {ids:?}"));
            }
        }
        for entry in inventory
            .get("contains")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            let want = entry.get("id").and_then(Json::as_str).unwrap_or_default();
            if !ids.iter().any(|i| i == want) {
                return Err(format!("inventory: {want} missing from {ids:?}"));
            }
        }
        for entry in inventory
            .get("not_contains")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            let want = entry.get("id").and_then(Json::as_str).unwrap_or_default();
            if ids.iter().any(|i| i == want) {
                return Err(format!("inventory: {want} should be absent"));
            }
        }
    }
    for want in assertions
        .get("objects")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        let object = find(&objects, want).ok_or_else(|| format!("object {want} not generated"))?;
        check_object(object, want)?;
    }
    for want in assertions
        .get("absent_objects")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        if find(&objects, want).is_some() {
            return Err(format!("object {want} should not be generated"));
        }
    }
    if let Some(Json::Array(refs)) = assertions
        .get("status")
        .and_then(|s| s.get("externalChecksumRefs"))
    {
        let mut want: Vec<&str> = refs.iter().filter_map(Json::as_str).collect();
        want.sort_unstable();
        if want != rendered.external_checksum_refs {
            return Err(format!(
                "externalChecksumRefs: expected {want:?}, got {:?}",
                rendered.external_checksum_refs
            ));
        }
    }
    Ok(None)
}

/// The reconciler compiles `readyExpr` (for entries with `ready: true`) before anything else.
fn ready_expr_error(rset: &Json) -> Option<String> {
    let entries = rset.get("spec")?.get("dependsOn")?.as_array()?;
    for entry in entries {
        if entry.get("ready").and_then(Json::as_bool) != Some(true) {
            continue;
        }
        let Some(expr) = entry.get("readyExpr").and_then(Json::as_str) else {
            continue;
        };
        if let Err(e) = offlux::controllers::depend::check_ready_expr(expr) {
            return Some(format!("failed to parse expression: {e}"));
        }
    }
    None
}

fn run_rsip(dir: &Path) -> Outcome {
    let docs = documents(&expand(
        &read(dir, "provider.yaml").ok_or("no provider.yaml")?,
    ))?;
    let provider = docs.first().ok_or("no provider")?;
    let assertions = assertions(dir)?;
    let spec = ProviderSpec::from_json(provider.get("spec").unwrap_or(&Json::Null))
        .map_err(|e| e.to_string())?;
    let exported = match spec.provider_type.as_str() {
        "Static" => {
            resourceset::static_inputs(meta(provider, "name"), spec.default_values.as_ref())
        }
        "ExternalArtifact" => {
            let artifacts: Vec<resourceset::ArtifactFacts> = cluster_objects(dir)?
                .iter()
                .filter(|o| o.get("kind").and_then(Json::as_str) == Some("ExternalArtifact"))
                .map(|o| resourceset::ArtifactFacts {
                    name: meta(o, "name").to_owned(),
                    namespace: meta(o, "namespace").to_owned(),
                    labels: labels_of(o),
                    revision: o
                        .get("status")
                        .and_then(|s| s.get("artifact"))
                        .and_then(|a| a.get("revision"))
                        .and_then(Json::as_str)
                        .map(str::to_owned),
                })
                .collect();
            resourceset::external_artifact_inputs(&spec, meta(provider, "namespace"), &artifacts)
        }
        other => return Err(format!("provider type {other} is not read offline")),
    };
    let got = Json::Array(exported.into_iter().map(Json::Object).collect());
    let want = assertions
        .get("exported_inputs")
        .ok_or("no exported_inputs")?;
    if let Some(value) = want.get("value") {
        if &got != value {
            return Err(format!("expected {value}, got {got}"));
        }
    }
    if let Some(count) = want.get("count").and_then(Json::as_u64) {
        if got.as_array().map(Vec::len) != Some(count as usize) {
            return Err(format!("expected {count} inputs, got {got}"));
        }
    }
    for (name, expected) in want
        .get("by_name")
        .and_then(Json::as_object)
        .into_iter()
        .flatten()
    {
        let entry = got
            .as_array()
            .into_iter()
            .flatten()
            .find(|e| e.get("name").and_then(Json::as_str) == Some(name.as_str()))
            .ok_or_else(|| format!("no exported input named {name}"))?;
        for (key, value) in expected.as_object().into_iter().flatten() {
            let keys = |v: &Json| -> Vec<String> {
                v.as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|k| k.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            match key.as_str() {
                "has_keys" => {
                    if let Some(missing) =
                        keys(value).iter().find(|k| entry.get(k.as_str()).is_none())
                    {
                        return Err(format!("{name}: key {missing} missing"));
                    }
                }
                "absent_keys" => {
                    if let Some(present) =
                        keys(value).iter().find(|k| entry.get(k.as_str()).is_some())
                    {
                        return Err(format!("{name}: key {present} should be absent"));
                    }
                }
                _ => {
                    if entry.get(key) != Some(value) {
                        return Err(format!(
                            "{name}.{key}: expected {value}, got {:?}",
                            entry.get(key)
                        ));
                    }
                }
            }
        }
    }
    Ok(None)
}

fn run_crd(dir: &Path, case: &Json) -> Outcome {
    if let Some(text) = read(dir, "fluxinstance.yaml") {
        return fluxinstance::run_crd(&text, case);
    }
    let (file, provider) = match read(dir, "provider.yaml") {
        Some(text) => (text, true),
        None => (read(dir, "resourceset.yaml").ok_or("no object")?, false),
    };
    let docs = documents(&file)?;
    let object = docs.first().ok_or("no object")?;
    let spec = object.get("spec").cloned().unwrap_or(Json::Null);
    let result = if provider {
        ProviderSpec::from_json(&spec).map(|_| ())
    } else {
        resourceset::admit_resource_set(&spec)
            .and_then(|()| ResourceSetSpec::from_json(&spec).map(|_| ()))
    };
    match (case.get("expect").and_then(Json::as_str), result) {
        (Some("accepted"), Ok(())) => Ok(None),
        (Some("accepted"), Err(e)) => Err(format!("expected to be accepted, got {e}")),
        (_, Ok(())) => Err("expected a rejection, the object was accepted".into()),
        (_, Err(e)) => {
            let want: Vec<&str> = case
                .get("error_contains")
                .and_then(Json::as_array)
                .map(|a| a.iter().filter_map(Json::as_str).collect())
                .unwrap_or_default();
            let text = e.to_string();
            match want.iter().find(|w| !text.contains(**w)) {
                Some(missing) => Err(format!(
                    "expected error containing {missing:?}, got {text:?}"
                )),
                None => Ok(None),
            }
        }
    }
}

fn run_case_dir(dir: &Path, mode: &str) -> Outcome {
    let case = case_json(dir)?;
    match mode {
        "builder" => run_builder(dir, &case, false),
        "builder-steps" => run_builder(dir, &case, true),
        "cli" => run_cli(dir, &case),
        "inputs-combine" => run_inputs(dir, &case),
        "controller" => run_controller(dir),
        "rsip" => run_rsip(dir),
        "crd-validation" => run_crd(dir, &case),
        "fluxinstance-builder" => fluxinstance::run_builder(dir),
        other => Err(format!("unknown mode {other}")),
    }
}

fn sets(value: &Json) -> Vec<InputSet> {
    value
        .as_array()
        .map(|a| a.iter().filter_map(|i| i.as_object().cloned()).collect())
        .unwrap_or_default()
}

fn run_unit(case: &Json) -> Outcome {
    let field = |k: &str| case.get(k).cloned().unwrap_or(Json::Null);
    let text = |k: &str| {
        case.get(k)
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match case.get("fn").and_then(Json::as_str).unwrap_or_default() {
        "normalize_key" => {
            let got = normalize_key(&text("input"));
            (got == text("expected"))
                .then_some(None)
                .ok_or_else(|| format!("expected {:?}, got {got:?}", text("expected")))
        }
        "id" => {
            if let Some(expected) = case.get("expected").and_then(Json::as_str) {
                let got = id(&text("input"));
                return (got == expected)
                    .then_some(None)
                    .ok_or_else(|| format!("expected {expected}, got {got}"));
            }
            let ok = match text("property").as_str() {
                "same input gives the same id" => id(&text("input")) == id(&text("input")),
                "different inputs give different ids" => {
                    let inputs: Vec<String> = field("inputs")
                        .as_array()
                        .map(|a| a.iter().filter_map(|s| s.as_str().map(id)).collect())
                        .unwrap_or_default();
                    inputs.first() != inputs.get(1)
                }
                "the id of the empty string is not empty" => !id("").is_empty(),
                other => return Err(format!("unknown property {other}")),
            };
            ok.then_some(None)
                .ok_or_else(|| "property does not hold".into())
        }
        "permuter" => {
            let include = field("include_empty_providers").as_bool().unwrap_or(false);
            let mut permuter = Permuter::new(include);
            let mut result: Result<Vec<InputSet>, String> = Ok(Vec::new());
            for op in field("ops").as_array().into_iter().flatten() {
                if op.as_str() == Some("combine") {
                    result = Ok(permuter.combine());
                } else if let Some(add) = op.get("add") {
                    let name = add.get("name").and_then(Json::as_str).unwrap_or_default();
                    if let Err(e) =
                        permuter.add(name, sets(add.get("inputs").unwrap_or(&Json::Null)))
                    {
                        result = Err(e.to_string());
                        break;
                    }
                }
            }
            match (result, case.get("expected_error").and_then(Json::as_str)) {
                (Err(e), Some(want)) => check_error(&e, want, true),
                (Ok(got), Some(want)) => Err(format!("expected error {want:?}, got {got:?}")),
                (Err(e), None) => Err(format!("unexpected error {e}")),
                (Ok(got), None) => {
                    if let Some(len) = field("expected_len").as_u64() {
                        if got.len() as u64 != len {
                            return Err(format!("expected {len} sets, got {}", got.len()));
                        }
                    }
                    if let Some(expected) = case.get("expected") {
                        if sets(expected) != got {
                            return Err(format!("expected {expected}, got {got:?}"));
                        }
                    }
                    Ok(None)
                }
            }
        }
        "flattener" => {
            let providers = field("providers");
            let sources: Vec<InputSource> = providers
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| InputSource {
                    api_version: resourceset::API_VERSION.into(),
                    kind: "ResourceSetInputProvider".into(),
                    name: p
                        .get("name")
                        .and_then(Json::as_str)
                        .unwrap_or_default()
                        .into(),
                    namespace: String::new(),
                    inputs: sets(p.get("inputs").unwrap_or(&Json::Null)),
                })
                .collect();
            let own = InputSource {
                api_version: resourceset::API_VERSION.into(),
                kind: "ResourceSet".into(),
                name: "rset".into(),
                namespace: String::new(),
                inputs: Vec::new(),
            };
            let got = combine(&own, &sources, &Default::default()).map_err(|e| e.to_string())?;
            let want = field("expected_len").as_u64().unwrap_or(0);
            (got.len() as u64 == want)
                .then_some(None)
                .ok_or_else(|| format!("expected {want} sets, got {}", got.len()))
        }
        "make_inputs" => {
            let defaults = case.get("defaults").and_then(Json::as_object);
            let got: Vec<InputSet> = sets(&field("results"))
                .into_iter()
                .map(|r| resourceset::with_defaults(r, defaults))
                .collect();
            (got == sets(&field("expected")))
                .then_some(None)
                .ok_or_else(|| format!("got {got:?}"))
        }
        "provider_selection" => {
            let provider = field("provider");
            let provider_ns = provider
                .get("namespace")
                .and_then(Json::as_str)
                .unwrap_or_default();
            let provider_name = provider
                .get("name")
                .and_then(Json::as_str)
                .unwrap_or_default();
            let labels: BTreeMap<String, String> = provider
                .get("labels")
                .and_then(Json::as_object)
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                        .collect()
                })
                .unwrap_or_default();
            let mut got = Vec::new();
            for rset in field("resourcesets").as_array().into_iter().flatten() {
                let namespace = rset
                    .get("namespace")
                    .and_then(Json::as_str)
                    .unwrap_or_default();
                let mut spec = Map::new();
                spec.insert(
                    "inputsFrom".into(),
                    rset.get("inputsFrom").cloned().unwrap_or(Json::Null),
                );
                let spec =
                    ResourceSetSpec::from_json(&Json::Object(spec)).map_err(|e| e.to_string())?;
                let chosen = namespace == provider_ns
                    && !resourceset::select_providers(
                        &spec.inputs_from,
                        &[(provider_name, &labels)],
                    )
                    .is_empty();
                if chosen {
                    got.push(
                        rset.get("name")
                            .and_then(Json::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                    );
                }
            }
            let mut want: Vec<String> = field("expected_selecting_resourcesets")
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            want.sort();
            got.sort();
            (got == want)
                .then_some(None)
                .ok_or_else(|| format!("expected {want:?}, got {got:?}"))
        }
        "validate_sync" => fluxinstance::run_unit(case),
        "checksum_parity" => Ok(Some(
            "prose relations between reconciliations, not checkable".into(),
        )),
        other => Err(format!("unknown function {other}")),
    }
}

#[test]
fn resourceset() {
    if !suite_present("resourceset") {
        return;
    }
    let dir = suite_dir("resourceset");
    let index: Json = serde_json::from_str(
        &std::fs::read_to_string(dir.join("INDEX.json"))
            .expect("INDEX.json of the resourceset suite"),
    )
    .expect("INDEX.json is JSON");
    let mut tally = Tally::default();
    let mut skipped: Vec<String> = Vec::new();
    let mut record = |name: String, outcome: Outcome| match outcome {
        Ok(None) => tally.pass(),
        Ok(Some(reason)) => skipped.push(format!("{name}: {reason}")),
        Err(why) => tally.fail(name, why),
    };
    for entry in index.as_array().into_iter().flatten() {
        let name = entry.get("case").and_then(Json::as_str).unwrap_or_default();
        let mode = entry.get("mode").and_then(Json::as_str).unwrap_or_default();
        record(name.to_owned(), run_case_dir(&dir.join(name), mode));
    }
    let units: Json = serde_json::from_str(
        &std::fs::read_to_string(dir.join("unit_cases.json")).expect("unit_cases.json"),
    )
    .expect("unit_cases.json is JSON");
    for case in units.as_array().into_iter().flatten() {
        let name = case.get("id").and_then(Json::as_str).unwrap_or_default();
        record(format!("unit {name}"), run_unit(case));
    }
    for skip in &skipped {
        eprintln!("  SKIP resourceset: {skip}");
    }
    println!(
        "conformance resourceset: {} skipped (not applicable offline or not a ResourceSet case)",
        skipped.len()
    );
    tally.skipped = skipped.len();
    tally.finish("resourceset");
}
