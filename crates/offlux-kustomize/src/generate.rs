//! configMapGenerator and secretGenerator (also as `generators` plugin configs): builds the
//! objects from files, literals and env files, merges them into earlier ones by behaviour, and
//! computes kustomize's content-hash name suffix at the end of the build.
//!
//! Not for: any other generator (Helm and exec plugins are refused by the loader).

use std::path::Path;

use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::error::Error;
use super::loader::Loader;
use super::options::EnvKeyLeftOut;
use super::resmap::{absorb, append};
use super::resource::{Behavior, Origin, Res};
use offlux_yaml::{to_json_kyaml, Mapping, Node, Scalar};

type Fail<'a> = &'a dyn Fn(Option<String>, String) -> Error;

/// `configMapGenerator` or `secretGenerator` (`field`, making objects of `kind`): each entry's
/// object, absorbed into `resources` by its behaviour. Env file keys that would come from the
/// process environment, when none was given, go to `left_out`. When an entry fails for a file
/// kustomize would fetch over HTTP, `remote` is that file's URL.
#[allow(clippy::too_many_arguments)]
pub(crate) fn generator_field(
    loader: &Loader,
    left_out: &mut Vec<EnvKeyLeftOut>,
    dir: &Path,
    (field, kind): (&str, &str),
    list: Option<&Node>,
    gen_options: Option<&Node>,
    kfile: &Path,
    resources: &mut Vec<Res>,
    fail: Fail,
    remote: &mut Option<String>,
) -> Result<(), Error> {
    let Some(list) = list.and_then(Node::as_sequence) else {
        return Ok(());
    };
    for (i, args) in list.items.iter().enumerate() {
        let label = Some(format!("{field}[{i}]"));
        let mut res =
            generate(loader, left_out, dir, kind, args, gen_options).map_err(|error| {
                if let GenerateError::Remote { url, .. } = &error {
                    *remote = Some(url.clone());
                }
                fail(label.clone(), error.into_message())
            })?;
        res.origin = Some(Origin::Generator {
            configured_in: kfile.to_path_buf(),
            kind: format!("{kind}Generator"),
            name: None,
        });
        absorb(resources, res, &merge_generated).map_err(|m| fail(label.clone(), m))?;
    }
    Ok(())
}

/// Whether kustomize's loader fetches `source` over HTTP instead of reading a file
/// (`loader.IsRemoteFile`: a URL whose scheme is http or https, which Go's `url.Parse` lowercases).
pub(crate) fn is_remote_file(source: &str) -> bool {
    source.split_once("://").is_some_and(|(scheme, _)| {
        scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")
    })
}

/// Why a generator entry made no object.
pub(crate) enum GenerateError {
    /// A `files` or `envs` source kustomize would fetch over HTTP (`url`): not fetched offline.
    Remote { url: String, message: String },
    /// Anything else, in kustomize's words.
    Other(String),
}

impl From<String> for GenerateError {
    fn from(message: String) -> Self {
        GenerateError::Other(message)
    }
}

impl GenerateError {
    fn into_message(self) -> String {
        match self {
            GenerateError::Remote { message, .. } | GenerateError::Other(message) => message,
        }
    }
}

fn refuse_remote_file(source: &str) -> Result<(), GenerateError> {
    if is_remote_file(source) {
        return Err(GenerateError::Remote {
            url: source.to_owned(),
            message: format!("'{source}': remote files are not supported offline"),
        });
    }
    Ok(())
}

/// A `generators` entry that is a builtin generator's config.
pub(crate) fn run_plugin(
    loader: &Loader,
    left_out: &mut Vec<EnvKeyLeftOut>,
    dir: &Path,
    cfg: &Node,
    configured_in: &Path,
    resources: &mut Vec<Res>,
    fail: Fail,
) -> Result<(), Error> {
    let kind = cfg.get("kind").and_then(Node::as_str).unwrap_or("");
    let out_kind = match kind {
        "ConfigMapGenerator" => "ConfigMap",
        "SecretGenerator" => "Secret",
        "IAMPolicyGenerator" => {
            let res = iam_policy(cfg).map_err(|m| fail(Some("generators".into()), m))?;
            return append(resources, res)
                .map_err(|m| fail(Some("generators".into()), m));
        }
        _ => {
            return Err(fail(
                Some("generators".into()),
                format!("unable to load builtin {kind}: only ConfigMapGenerator and SecretGenerator generators are supported (exec and KRM plugins are not)"),
            ))
        }
    };
    let mut args = cfg.clone();
    if let (Some(m), Some(meta)) = (args.as_mapping_mut(), cfg.get("metadata")) {
        for key in ["name", "namespace"] {
            if !m.contains_key(key) {
                if let Some(v) = meta.get(key) {
                    m.insert(key, v.clone());
                }
            }
        }
    }
    let mut res = generate(loader, left_out, dir, out_kind, &args, None)
        .map_err(|error| fail(Some("generators".into()), error.into_message()))?;
    res.origin = Some(Origin::Generator {
        configured_in: configured_in.to_path_buf(),
        kind: kind.to_string(),
        name: cfg
            .get_path(&["metadata", "name"])
            .and_then(Node::as_str)
            .map(str::to_string),
    });
    absorb(resources, res, &merge_generated).map_err(|m| fail(Some("generators".into()), m))
}

/// The builtin IAMPolicyGenerator (GKE workload identity): a ServiceAccount annotated with its
/// Google service account.
fn iam_policy(cfg: &Node) -> Result<Res, String> {
    let cloud = cfg.get("cloud").and_then(Node::as_str).unwrap_or("");
    if cloud != "gke" {
        return Err(format!(
            "IAMPolicyGenerator: cloud {cloud:?} is not supported, only gke"
        ));
    }
    let get = |path: &[&str]| {
        cfg.get_path(path)
            .and_then(Node::as_str)
            .unwrap_or("")
            .to_string()
    };
    let name = get(&["kubernetesService", "name"]);
    let ns = get(&["kubernetesService", "namespace"]);
    let account = format!(
        "{}@{}.iam.gserviceaccount.com",
        get(&["serviceAccount", "name"]),
        get(&["serviceAccount", "projectId"])
    );
    let mut meta = Mapping::new();
    let mut annotations = Mapping::new();
    annotations.insert("iam.gke.io/gcp-service-account", Node::string(account));
    meta.insert("annotations", Node::Mapping(annotations));
    meta.insert("name", Node::string(name));
    if !ns.is_empty() {
        meta.insert("namespace", Node::string(ns));
    }
    let mut obj = Mapping::new();
    obj.insert("apiVersion", Node::Scalar(Scalar::plain("v1")));
    obj.insert("kind", Node::Scalar(Scalar::plain("ServiceAccount")));
    obj.insert("metadata", Node::Mapping(meta));
    Ok(Res::new(Node::Mapping(obj)))
}

fn strings(node: Option<&Node>) -> Vec<String> {
    match node {
        Some(Node::Sequence(s)) => s
            .items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect(),
        Some(n) => n.as_str().map(|s| vec![s.to_string()]).unwrap_or_default(),
        None => Vec::new(),
    }
}

fn string_map(node: Option<&Node>) -> Vec<(String, String)> {
    node.and_then(Node::as_mapping)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.to_string(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn parse_literal(lit: &str) -> Result<(String, String), String> {
    let Some((k, v)) = lit.split_once('=') else {
        return Err(format!("invalid literal source {lit}, expected key=value"));
    };
    let v = if v.len() >= 2
        && ((v.starts_with('"') && v.ends_with('"')) || (v.starts_with('\'') && v.ends_with('\'')))
    {
        &v[1..v.len() - 1]
    } else {
        v
    };
    Ok((k.to_string(), v.to_string()))
}

/// One line of an env file that says something.
enum EnvLine {
    Pair(String, String),
    /// `KEY` alone: kustomize takes its value from its own process environment.
    Bare {
        key: String,
        line: usize,
    },
}

fn parse_env(text: &str) -> Result<Vec<EnvLine>, String> {
    let mut out = Vec::new();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match line.split_once('=') {
            Some((k, v)) => {
                if k.contains(char::is_whitespace) {
                    return Err(format!("invalid key name {k:?} on line {}", n + 1));
                }
                out.push(EnvLine::Pair(k.to_string(), v.to_string()));
            }
            None => out.push(EnvLine::Bare {
                key: line.trim().to_string(),
                line: n + 1,
            }),
        }
    }
    Ok(out)
}

/// The generated keys and values in order, each key once.
struct Pairs<'a> {
    name: &'a str,
    pairs: Vec<(String, Vec<u8>)>,
    seen: foldhash::HashSet<String>,
}

impl Pairs<'_> {
    fn add(&mut self, key: String, value: Vec<u8>) -> Result<(), String> {
        if !self.seen.insert(key.clone()) {
            return Err(format!(
                "configmap {} illegally repeats the key `{key}`",
                self.name
            ));
        }
        self.pairs.push((key, value));
        Ok(())
    }
}

/// Builds one ConfigMap or Secret from generator arguments.
fn generate(
    loader: &Loader,
    left_out: &mut Vec<EnvKeyLeftOut>,
    dir: &Path,
    kind: &str,
    args: &Node,
    gen_options: Option<&Node>,
) -> Result<Res, GenerateError> {
    let name = args
        .get("name")
        .and_then(Node::as_str)
        .unwrap_or("")
        .to_string();
    let namespace = args
        .get("namespace")
        .and_then(Node::as_str)
        .map(str::to_string);
    let behavior = match args
        .get("behavior")
        .and_then(Node::as_str)
        .unwrap_or("create")
    {
        "" | "create" => Behavior::Create,
        "merge" => Behavior::Merge,
        "replace" => Behavior::Replace,
        other => return Err(format!("unknown generator behavior {other:?}").into()),
    };
    let mut pairs = Pairs {
        name: &name,
        pairs: Vec::new(),
        seen: foldhash::HashSet::default(),
    };
    let mut envs = strings(args.get("envs"));
    envs.extend(strings(args.get("env")));
    for env in envs {
        refuse_remote_file(&env)?;
        let (file, text) = loader.read_file(dir, &env)?;
        for line in parse_env(&text)? {
            match line {
                EnvLine::Pair(k, v) => pairs.add(k, v.into_bytes())?,
                EnvLine::Bare { key, line } => {
                    let given = loader.options.process_env.as_ref().map(|env| env.get(&key));
                    match given {
                        Some(Some(value)) => pairs.add(key, value.clone().into_bytes())?,
                        // kustomize leaves out a key its environment does not hold.
                        Some(None) => {}
                        None => {
                            let entry = EnvKeyLeftOut {
                                file: file.clone(),
                                line,
                                key,
                            };
                            // Once per build, however often the generator's directory is named.
                            if !left_out.contains(&entry) {
                                left_out.push(entry);
                            }
                        }
                    }
                }
            }
        }
    }
    for lit in strings(args.get("literals")) {
        let (k, v) = parse_literal(&lit)?;
        pairs.add(k, v.into_bytes())?;
    }
    for file in strings(args.get("files")) {
        let (key, path) = match file.split_once('=') {
            Some((k, p)) => (k.to_string(), p.to_string()),
            None => (
                Path::new(&file)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| file.clone()),
                file.clone(),
            ),
        };
        refuse_remote_file(&path)?;
        let (_, bytes) = loader.read_bytes(dir, &path)?;
        pairs.add(key, bytes)?;
    }
    let pairs = pairs.pairs;
    let mut meta = Mapping::new();
    meta.insert("name", Node::Scalar(Scalar::plain(name.clone())));
    if let Some(ns) = &namespace {
        meta.insert("namespace", Node::Scalar(Scalar::plain(ns.clone())));
    }
    let mut labels = string_map(gen_options.and_then(|o| o.get("labels")));
    let mut annotations = string_map(gen_options.and_then(|o| o.get("annotations")));
    let opts = args.get("options");
    for (k, v) in string_map(opts.and_then(|o| o.get("labels"))) {
        labels.retain(|(x, _)| *x != k);
        labels.push((k, v));
    }
    for (k, v) in string_map(opts.and_then(|o| o.get("annotations"))) {
        annotations.retain(|(x, _)| *x != k);
        annotations.push((k, v));
    }
    if !labels.is_empty() {
        meta.insert("labels", to_map(&labels));
    }
    if !annotations.is_empty() {
        meta.insert("annotations", to_map(&annotations));
    }
    let flag = |o: Option<&Node>, key: &str| {
        o.and_then(|o| o.get(key))
            .and_then(Node::as_str)
            .map(|s| s == "true")
    };
    let disable_hash = flag(opts, "disableNameSuffixHash")
        .or(flag(gen_options, "disableNameSuffixHash"))
        .unwrap_or(false);
    let immutable = flag(opts, "immutable")
        .or(flag(gen_options, "immutable"))
        .unwrap_or(false);
    let mut obj = Mapping::new();
    obj.insert("apiVersion", Node::Scalar(Scalar::plain("v1")));
    obj.insert("kind", Node::Scalar(Scalar::plain(kind)));
    obj.insert("metadata", Node::Mapping(meta));
    let b64 = base64::engine::general_purpose::STANDARD;
    if kind == "Secret" {
        let ty = args.get("type").and_then(Node::as_str).unwrap_or("Opaque");
        obj.insert("type", Node::Scalar(Scalar::plain(ty)));
        if !pairs.is_empty() {
            let mut data = Mapping::new();
            for (k, v) in &pairs {
                data.entries.push(offlux_yaml::Entry {
                    key: Scalar::plain(k.clone()),
                    value: Node::Scalar(wrapped_base64(&b64.encode(v))),
                });
            }
            obj.insert("data", Node::Mapping(data));
        }
    } else {
        let mut data = Vec::new();
        let mut binary = Vec::new();
        for (k, v) in pairs {
            match String::from_utf8(v) {
                Ok(s) => data.push((k, s)),
                Err(e) => binary.push((k, b64.encode(e.as_bytes()))),
            }
        }
        if !data.is_empty() {
            obj.insert("data", to_map(&data));
        }
        if !binary.is_empty() {
            let mut m = Mapping::new();
            for (k, v) in &binary {
                m.entries.push(offlux_yaml::Entry {
                    key: Scalar::plain(k.clone()),
                    value: Node::Scalar(wrapped_base64(v)),
                });
            }
            obj.insert("binaryData", Node::Mapping(m));
        }
    }
    if immutable {
        obj.insert("immutable", Node::Scalar(Scalar::plain("true")));
    }
    let mut res = Res::new(Node::Mapping(obj));
    res.needs_hash = !disable_hash;
    res.behavior = Some(behavior);
    Ok(res)
}

/// kustomize writes long base64 values as a literal block of 70-character lines.
fn wrapped_base64(encoded: &str) -> Scalar {
    const LINE: usize = 70;
    if encoded.len() <= LINE {
        return Scalar::string(encoded);
    }
    let mut value = String::new();
    let bytes = encoded.as_bytes();
    for chunk in bytes.chunks(LINE) {
        value.push_str(&String::from_utf8_lossy(chunk));
        value.push('\n');
    }
    Scalar {
        value: value.into(),
        style: offlux_yaml::ScalarStyle::Literal,
        ..Scalar::default()
    }
}

/// A mapping of `pairs`, whose keys are distinct.
fn to_map(pairs: &[(String, String)]) -> Node {
    let mut m = Mapping::new();
    m.entries.reserve(pairs.len());
    for (k, v) in pairs {
        m.entries.push(offlux_yaml::Entry {
            key: Scalar::plain(k.clone()),
            value: Node::Scalar(Scalar::string(v.clone())),
        });
    }
    Node::Mapping(m)
}

/// Merges (or replaces) a generated object into an existing one, keeping the existing name and
/// namespace.
fn merge_generated(existing: &mut Res, new: &Res) {
    let behavior = new.behavior.unwrap_or(Behavior::Merge);
    // replace swaps the data but, like merge, keeps and extends the labels and annotations
    if behavior == Behavior::Replace {
        existing.origin = new.origin.clone();
        if let Some(m) = existing.node.as_mapping_mut() {
            m.remove("data");
            m.remove("binaryData");
        }
    }
    {
        for field in ["data", "binaryData"] {
            if let Some(Node::Mapping(add)) = new.node.get(field) {
                if let Some(m) = existing.node.as_mapping_mut() {
                    if !matches!(m.get(field), Some(Node::Mapping(_))) {
                        m.insert(field, Node::Mapping(Mapping::new()));
                    }
                    if let Some(Node::Mapping(target)) = m.get_mut(field) {
                        merge_entries(target, add);
                    }
                }
            }
        }
        for field in ["labels", "annotations"] {
            if let Some(Node::Mapping(add)) = new.node.get_path(&["metadata", field]) {
                for e in &add.entries {
                    super::transform::set_map_field(
                        &mut existing.node,
                        &["metadata", field],
                        &e.key.value,
                        e.value.as_str().unwrap_or(""),
                    );
                }
            }
        }
        if new.node.get("immutable").is_some() {
            if let (Some(m), Some(v)) = (existing.node.as_mapping_mut(), new.node.get("immutable"))
            {
                m.insert("immutable", v.clone());
            }
        }
    }
    existing.needs_hash = existing.needs_hash && new.needs_hash;
    existing.behavior = Some(Behavior::Create);
}

/// `target.insert` of each of `add`'s entries in order, finding keys by hash: a merging generator
/// may bring thousands of keys.
fn merge_entries(target: &mut Mapping, add: &Mapping) {
    let mut index: foldhash::HashMap<String, usize> = foldhash::HashMap::default();
    for (i, e) in target.entries.iter().enumerate() {
        index.entry(e.key.value.to_string()).or_insert(i);
    }
    for e in &add.entries {
        match index.get(e.key.value.as_str()).copied() {
            Some(i) => {
                if let Some(slot) = target.entries.get_mut(i) {
                    slot.value = e.value.clone();
                }
            }
            None => {
                index.insert(e.key.value.to_string(), target.entries.len());
                target.entries.push(offlux_yaml::Entry {
                    key: Scalar::plain(e.key.value.clone()),
                    value: e.value.clone(),
                });
            }
        }
    }
}

/// Appends the content hash to the names of generated objects that want one.
pub(crate) fn add_hashes(resources: &mut [Res]) {
    for r in resources.iter_mut() {
        if !r.needs_hash {
            continue;
        }
        let hash = content_hash(&r.node);
        let name = format!("{}-{}", r.name(), hash);
        r.set_name(&name);
        r.needs_hash = false;
    }
}

/// kustomize's hash of a ConfigMap or Secret (`api/hasher`): sha256 of the Go JSON encoding of a
/// map of kind, name, data (and binaryData/type/stringData), as 10 characters with some digits
/// and letters substituted.
pub(crate) fn content_hash(node: &Node) -> String {
    let kind = node.get("kind").and_then(Node::as_str).unwrap_or("");
    // Upstream looks the name up with the single key `metadata/name`, which never exists, so
    // the name always hashes as the empty string.
    let name = "";
    let field = |k: &str| -> Option<Value> {
        match node.get(k) {
            None => None,
            Some(Node::Scalar(s)) => Some(Value::String(s.value.to_string())),
            Some(n) => Some(to_json_kyaml(n)),
        }
    };
    let mut m = serde_json::Map::new();
    m.insert("kind".into(), Value::String(kind.into()));
    m.insert("name".into(), Value::String(name.into()));
    m.insert(
        "data".into(),
        field("data").unwrap_or(Value::String(String::new())),
    );
    if kind == "Secret" {
        m.insert(
            "type".into(),
            field("type").unwrap_or(Value::String(String::new())),
        );
        if let Some(v @ Value::Object(_)) = field("stringData") {
            m.insert("stringData".into(), v);
        }
    } else if let Some(v @ Value::Object(_)) = field("binaryData") {
        m.insert("binaryData".into(), v);
    }
    let mut encoded = String::new();
    go_json(&Value::Object(m), &mut encoded);
    let digest = hex::encode(Sha256::digest(encoded.as_bytes()));
    digest
        .chars()
        .take(10)
        .map(|c| match c {
            '0' => 'g',
            '1' => 'h',
            '3' => 'k',
            'a' => 'm',
            'e' => 't',
            other => other,
        })
        .collect()
}

/// Go's `encoding/json` output: sorted object keys, HTML-safe escaping.
fn go_json(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => offlux_go::json_string(out, s, true),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                offlux_go::json_string(out, k, true);
                out.push(':');
                if let Some(v) = map.get(*k) {
                    go_json(v, out);
                }
            }
            out.push('}');
        }
    }
}
