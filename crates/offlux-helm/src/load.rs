//! Helm's `pkg/chart/loader`: a chart's files (from a directory walk or a `.tgz` read in memory)
//! become a [`Chart`], as `LoadFiles` sorts them: `Chart.yaml` into metadata, `values.yaml` into
//! values, `templates/` into templates, `charts/` into subcharts, everything else into files.
//!
//! Not for: dependency processing (`condition`, `tags`, `import-values` live in `values`), nor
//! fetching charts. Never unpacks to disk; never follows a symlink out of the chart directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::chart::{Chart, ChartFile, Dependency, Metadata};
use super::helmignore::{Rules, HELMIGNORE};
use super::{Error, LoadError};
use offlux_fs::archive;
use offlux_fs::{self as fsio, FileKind, FsFacts};
use offlux_template::Value;
use offlux_yaml::{self as yaml, Node, Resolved, Scalar};

/// What a chart and its subcharts have used of the caps in [`LoadOptions`].
/// Limits that keep a hostile chart from exhausting memory.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// The largest archive accepted, compressed.
    pub max_archive_bytes: u64,
    /// The most bytes a chart (with its subcharts) may hold once decompressed.
    pub max_total_bytes: u64,
    /// The most files a chart (with its subcharts) may hold.
    pub max_entries: usize,
    /// How deep subcharts may nest.
    pub max_depth: usize,
    /// The run whose budget of extracted bytes (`Resource::ExtractedBytes`) the chart archives'
    /// files are charged to.
    pub run: Option<std::sync::Arc<offlux_budget::RunBudget>>,
    /// Charged with each file's bytes as the load takes them: an archive member's before it is
    /// inflated, a directory's file once read. A refusal stops the load.
    pub hold: Option<std::sync::Arc<dyn ChargeLoad>>,
}

/// Memory a chart load takes, charged as it is taken ([`LoadOptions::hold`]): the caller's
/// budget of loaded charts, which may wait for room or refuse.
pub trait ChargeLoad: std::fmt::Debug + Send + Sync {
    fn charge(&self, bytes: u64) -> Result<(), offlux_budget::Exceeded>;
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            max_archive_bytes: 64 << 20,
            max_total_bytes: 256 << 20,
            max_entries: 20_000,
            max_depth: 16,
            run: None,
            hold: None,
        }
    }
}

/// The run a chart's YAML is charged to, when there is one.
type Run<'a> = Option<&'a std::sync::Arc<offlux_budget::RunBudget>>;

#[derive(Debug, Default)]
struct Budget {
    bytes: u64,
    entries: usize,
}

struct Ctx<'a> {
    options: &'a LoadOptions,
    budget: Budget,
    facts: FsFacts,
}

impl Ctx<'_> {
    fn take(&mut self, chart: &str, name: &str, size: u64) -> Result<(), Error> {
        self.budget.entries += 1;
        if self.budget.entries > self.options.max_entries {
            return Err(load_error(
                chart,
                LoadError::TooManyFiles {
                    file: name.to_string(),
                    max: self.options.max_entries,
                },
            ));
        }
        self.budget.bytes = self.budget.bytes.saturating_add(size);
        if self.budget.bytes > self.options.max_total_bytes {
            return Err(load_error(
                chart,
                LoadError::TooLarge {
                    file: name.to_string(),
                    max: self.options.max_total_bytes,
                },
            ));
        }
        Ok(())
    }
}

impl LoadOptions {
    /// Charges `size` bytes of `file` to the run's budgets: the bytes extracted (when they are
    /// inflated from an archive) and the memory the load holds.
    fn charge(&self, chart: &str, file: &str, size: u64, extracted: bool) -> Result<(), Error> {
        let over = |exceeded| {
            let file = file.to_string();
            load_error(chart, LoadError::Budget { file, exceeded })
        };
        if let Some(run) = self.run.as_ref().filter(|_| extracted) {
            run.charge(offlux_budget::Resource::ExtractedBytes, size)
                .map_err(over)?;
        }
        if let Some(hold) = &self.hold {
            hold.charge(size).map_err(over)?;
        }
        Ok(())
    }
}

fn load_error(chart: &str, kind: LoadError) -> Error {
    Error::Load {
        chart: chart.to_string(),
        kind,
    }
}

/// Prefixes a subchart's error with where it sits, keeping the innermost chart's name.
fn in_subchart(error: Error, sub: &str, parent: &str) -> Error {
    match error {
        Error::Load { chart, kind } => Error::Load {
            chart,
            kind: LoadError::Subchart {
                subchart: sub.to_string(),
                parent: parent.to_string(),
                kind: Box::new(kind),
            },
        },
        other => other,
    }
}

/// Loads a chart from a directory (Helm's `loader.LoadDir`): `.helmignore` applies, files are
/// read in name order, symlinks leading outside the directory are refused.
pub fn load_dir(dir: &Path, options: &LoadOptions) -> Result<Chart, Error> {
    let mut ctx = Ctx {
        options,
        budget: Budget::default(),
        facts: FsFacts::default(),
    };
    let label = dir.display().to_string();
    let root = ctx
        .facts
        .resolve(dir)
        .ok_or_else(|| load_error(&label, LoadError::NoDirectory))?;
    if !ctx.facts.is_dir(&root) {
        return Err(load_error(&label, LoadError::NotADirectory));
    }
    let mut rules = Rules::default();
    let ignore_path = root.join(HELMIGNORE);
    if ctx.facts.is_file(&ignore_path) {
        let text = read_limited(&ctx.facts, &root, &ignore_path, &label, HELMIGNORE, options)?;
        rules = Rules::parse(&String::from_utf8_lossy(&text))
            .map_err(|rule| load_error(&label, LoadError::Helmignore { rule }))?;
    }
    rules.add_defaults();
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    walk(
        &root, &root, "", &rules, &label, &mut ctx, &mut stack, &mut files,
    )?;
    load_files(files, &label, 0, &mut ctx)
}

/// A chart file, through the guarded door: inside the chart's `root`, a regular file, within the
/// chart's size limit.
fn read_limited(
    facts: &FsFacts,
    root: &Path,
    path: &Path,
    chart: &str,
    name: &str,
    options: &LoadOptions,
) -> Result<Vec<u8>, Error> {
    let confine = fsio::Confine {
        root: Some(root),
        max_bytes: options.max_total_bytes,
    };
    fsio::read(facts, path, confine).map_err(|e| match e.kind {
        fsio::ReadErrorKind::TooLarge { .. } => load_error(
            chart,
            LoadError::TooLarge {
                file: name.to_string(),
                max: options.max_total_bytes,
            },
        ),
        kind => load_error(
            chart,
            LoadError::Read {
                file: name.to_string(),
                message: kind.to_string(),
            },
        ),
    })
}

/// Walks `dir` (canonical, inside `root`) in name order, as Go's `filepath.Walk` does.
#[allow(clippy::too_many_arguments)]
fn walk(
    root: &Path,
    dir: &Path,
    prefix: &str,
    rules: &Rules,
    chart: &str,
    ctx: &mut Ctx<'_>,
    stack: &mut Vec<PathBuf>,
    files: &mut Vec<ChartFile>,
) -> Result<(), Error> {
    let entries = fsio::read_dir(&ctx.facts, dir, Some(root)).map_err(|e| {
        load_error(
            chart,
            LoadError::Read {
                file: display_rel(prefix).to_string(),
                message: e.kind.to_string(),
            },
        )
    })?;
    for entry in entries {
        let Some(file_name) = entry.name.to_str() else {
            return Err(load_error(
                chart,
                LoadError::NameNotUtf8(entry.path.display().to_string()),
            ));
        };
        let rel = if prefix.is_empty() {
            file_name.to_string()
        } else {
            format!("{prefix}/{file_name}")
        };
        let mut path = entry.path;
        let kind = match entry.kind {
            fsio::EntryKind::File => FileKind::File,
            fsio::EntryKind::Directory => FileKind::Directory,
            fsio::EntryKind::Other => FileKind::Other,
            fsio::EntryKind::Symlink => {
                let target = match fsio::locate(&ctx.facts, &path, Some(root)) {
                    Ok(target) => target,
                    Err(fsio::ReadError {
                        kind: fsio::ReadErrorKind::Outside { real, .. },
                        ..
                    }) => {
                        return Err(load_error(
                            chart,
                            LoadError::SymlinkOutside {
                                file: rel,
                                target: real,
                            },
                        ))
                    }
                    Err(e) => {
                        return Err(load_error(
                            chart,
                            LoadError::SymlinkUnreadable {
                                file: rel,
                                message: e.kind.to_string(),
                            },
                        ))
                    }
                };
                let kind = ctx
                    .facts
                    .kind(&target)
                    .ok_or_else(|| load_error(chart, LoadError::BrokenSymlink(rel.clone())))?;
                path = target;
                kind
            }
        };
        if kind == FileKind::Directory {
            if rules.ignore(&rel, true) {
                continue;
            }
            let canonical = ctx
                .facts
                .resolve(&path)
                .ok_or_else(|| load_error(chart, LoadError::NoSuchDirectory(rel.clone())))?;
            if stack.contains(&canonical) {
                return Err(load_error(chart, LoadError::SymlinkLoop(rel)));
            }
            // Helm's sympath.Walk goes into a directory again through each symlink to it; each
            // directory walked counts as an entry, so a chain of directories each holding two
            // symlinks to the next ends at the entry cap instead of after 2^depth walks.
            ctx.take(chart, &rel, 0)?;
            stack.push(canonical.clone());
            walk(root, &canonical, &rel, rules, chart, ctx, stack, files)?;
            stack.pop();
            continue;
        }
        if rules.ignore(&rel, false) {
            continue;
        }
        if kind != FileKind::File {
            return Err(load_error(chart, LoadError::IrregularFile(rel)));
        }
        let data = read_limited(&ctx.facts, root, &path, chart, &rel, ctx.options)?;
        ctx.take(chart, &rel, data.len() as u64)?;
        ctx.options.charge(chart, &rel, data.len() as u64, false)?;
        files.push(ChartFile {
            name: rel,
            data: strip_bom(data).into(),
        });
    }
    Ok(())
}

fn display_rel(prefix: &str) -> &str {
    if prefix.is_empty() {
        "."
    } else {
        prefix
    }
}

fn strip_bom(mut data: Vec<u8>) -> Vec<u8> {
    if data.starts_with(&[0xEF, 0xBB, 0xBF]) {
        data.drain(..3);
    }
    data
}

/// Loads a chart from a `.tgz` held in memory (Helm's `loader.LoadArchive`). `name` is what
/// errors call it (a file name or URL).
pub fn load_archive(name: &str, bytes: &[u8], options: &LoadOptions) -> Result<Chart, Error> {
    let mut ctx = Ctx {
        options,
        budget: Budget::default(),
        facts: FsFacts::default(),
    };
    archive(name, bytes, 0, &mut ctx)
}

fn archive(name: &str, bytes: &[u8], depth: usize, ctx: &mut Ctx<'_>) -> Result<Chart, Error> {
    let options = ctx.options;
    if bytes.len() as u64 > options.max_archive_bytes {
        return Err(load_error(
            name,
            LoadError::ArchiveTooLarge {
                size: bytes.len(),
                max: options.max_archive_bytes,
            },
        ));
    }
    let limits = archive::Limits {
        members: archive::MAX_MEMBERS,
        entries: options.max_entries,
        data_bytes: options.max_total_bytes.saturating_sub(ctx.budget.bytes),
    };
    let mut files = Vec::new();
    // Charged before each file is inflated, so a bomb stops at the budget, not after it.
    let reserve = |path: &str, size: u64| {
        let file = archive_entry_name(path).unwrap_or_else(|_| path.to_string());
        options.charge(name, &file, size, true)
    };
    let read = archive::read_tar_gz(bytes, &limits, reserve, |member| {
        if member.kind == archive::Kind::Dir {
            return Ok(());
        }
        let file_name = archive_entry_name(&member.path).map_err(|kind| load_error(name, kind))?;
        if member.kind == archive::Kind::Other {
            // Links, devices and FIFOs carry no data; Helm would load them as empty files.
            return Ok(());
        }
        ctx.take(name, &file_name, member.data.len() as u64)?;
        files.push(ChartFile {
            name: file_name,
            data: strip_bom(member.data).into(),
        });
        Ok(())
    });
    match read {
        Ok(()) => {}
        Err(archive::Failure::Visitor(error)) => return Err(error),
        Err(archive::Failure::Archive(error)) => {
            let kind = match error {
                archive::Error::NotGzip => LoadError::NotGzip,
                archive::Error::TooManyEntries(max) => LoadError::TooManyEntries(max),
                archive::Error::FileTooLarge { path, .. } => LoadError::TooLarge {
                    file: archive_entry_name(&path).unwrap_or(path),
                    max: options.max_total_bytes,
                },
                other => LoadError::Archive(other.to_string()),
            };
            return Err(load_error(name, kind));
        }
    }
    if files.is_empty() {
        return Err(load_error(name, LoadError::EmptyArchive));
    }
    load_files(files, name, depth, ctx)
}

/// An archive entry's path inside the chart: the top directory stripped, `\` taken as a separator,
/// cleaned; anything that could reach outside the chart is refused.
fn archive_entry_name(raw: &str) -> Result<String, LoadError> {
    let outside = || LoadError::OutsideBase(raw.to_string());
    let normalized = raw.replace('\\', "/");
    if normalized.starts_with('/') || has_drive(&normalized) {
        return Err(LoadError::AbsolutePath(raw.to_string()));
    }
    let mut parts = normalized.splitn(2, '/');
    let top = parts.next().unwrap_or("");
    let rest = parts.next().unwrap_or("");
    if top == "Chart.yaml" {
        return Err(LoadError::ChartYamlNotInBase);
    }
    if top == ".." {
        return Err(outside());
    }
    let mut clean: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(outside()),
            p => clean.push(p),
        }
    }
    if clean.is_empty() {
        return Err(outside());
    }
    let joined = clean.join("/");
    if has_drive(&joined) {
        return Err(LoadError::IllegalName);
    }
    Ok(joined)
}

fn has_drive(path: &str) -> bool {
    let b = path.as_bytes();
    matches!(b, [l, b':', ..] if l.is_ascii_alphabetic())
}

/// Helm's `LoadFiles`.
fn load_files(
    files: Vec<ChartFile>,
    label: &str,
    depth: usize,
    ctx: &mut Ctx<'_>,
) -> Result<Chart, Error> {
    if depth > ctx.options.max_depth {
        return Err(load_error(label, LoadError::TooDeep(ctx.options.max_depth)));
    }
    let mut chart_yaml: Option<std::sync::Arc<Vec<u8>>> = None;
    let mut requirements: Option<std::sync::Arc<Vec<u8>>> = None;
    let mut requirements_lock: Option<std::sync::Arc<Vec<u8>>> = None;
    let mut values: Option<std::sync::Arc<Vec<u8>>> = None;
    let mut chart = Chart::default();
    let mut subcharts: BTreeMap<String, Vec<ChartFile>> = BTreeMap::new();
    for file in files {
        match file.name.as_str() {
            "Chart.yaml" => chart_yaml = Some(file.data),
            "Chart.lock" => {}
            "values.yaml" => values = Some(file.data),
            "values.schema.json" => chart.schema = Some(file.data.to_vec()),
            "requirements.yaml" => requirements = Some(file.data),
            "requirements.lock" => requirements_lock = Some(file.data),
            name if name.starts_with("templates/") => chart.templates.push(file),
            name if name.starts_with("charts/") => {
                if name.ends_with(".prov") {
                    chart.files.push(file);
                    continue;
                }
                let inner = &name["charts/".len()..];
                let (sub, rest) = inner.split_once('/').unwrap_or((inner, ""));
                subcharts
                    .entry(sub.to_string())
                    .or_default()
                    .push(ChartFile {
                        name: rest.to_string(),
                        data: file.data,
                    });
            }
            _ => chart.files.push(file),
        }
    }
    let Some(chart_yaml) = chart_yaml else {
        return Err(load_error(label, LoadError::NoChartYaml));
    };
    let run = ctx.options.run.as_ref();
    let mut metadata = parse_metadata(&chart_yaml, label, run)?;
    let v1 = metadata.api_version == "v1";
    if let Some(data) = requirements {
        let deps = parse_requirements(&data, label, run)?;
        if let Some(deps) = deps {
            metadata.dependencies = deps;
        }
        if v1 {
            chart.files.push(ChartFile {
                name: "requirements.yaml".into(),
                data,
            });
        }
    }
    if let Some(data) = requirements_lock {
        if v1 {
            chart.files.push(ChartFile {
                name: "requirements.lock".into(),
                data,
            });
        }
    }
    validate(&mut metadata).map_err(|m| load_error(label, LoadError::Validation(m)))?;
    metadata.template_data = template_data(&chart_yaml, &metadata, label, run)?;
    let name = metadata.name.clone();
    chart.metadata = metadata;
    chart.values = match values {
        Some(data) => parse_values(&data, &name, run)?,
        None => Value::map(BTreeMap::new()),
    };
    for (sub, files) in subcharts {
        if sub.starts_with('_') || sub.starts_with('.') {
            continue;
        }
        let loaded = if sub.ends_with(".tgz") {
            let Some(file) = files.into_iter().next().filter(|f| f.name.is_empty()) else {
                return Err(load_error(
                    &name,
                    LoadError::SubchartNotAFile {
                        parent: name.clone(),
                        subchart: sub,
                    },
                ));
            };
            archive(&sub, &file.data, depth + 1, ctx)
        } else {
            let files: Vec<ChartFile> = files.into_iter().filter(|f| !f.name.is_empty()).collect();
            load_files(files, &format!("{name}/charts/{sub}"), depth + 1, ctx)
        };
        chart
            .dependencies
            .push(loaded.map_err(|e| in_subchart(e, &sub, &name))?);
    }
    chart
        .dependencies
        .sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    Ok(chart)
}

/// The first document of a chart's YAML file, its alias expansion charged to `run`'s budget.
fn parse_yaml_root(data: &[u8], label: &str, file: &str, run: Run<'_>) -> Result<Node, Error> {
    let syntax = |message: String| {
        load_error(
            label,
            LoadError::Syntax {
                file: file.to_string(),
                message,
            },
        )
    };
    let text = std::str::from_utf8(data).map_err(|e| syntax(e.to_string()))?;
    let options = yaml::ParseOptions {
        run: run.cloned(),
        ..yaml::ParseOptions::default()
    };
    let docs = yaml::parse_stream(text, &options).map_err(|e| syntax(e.to_string()))?;
    Ok(docs
        .into_iter()
        .next()
        .map(|d| d.into_root())
        .unwrap_or_default())
}

fn parse_values(data: &[u8], label: &str, run: Run<'_>) -> Result<Value, Error> {
    let root = parse_yaml_root(data, label, "values.yaml", run)?;
    match offlux_template::from_serde(yaml::to_json_helm(&root)) {
        Value::Nil => Ok(Value::map(BTreeMap::new())),
        map @ Value::Map(_) => Ok(map),
        _ => Err(load_error(label, LoadError::ValuesNotAMap)),
    }
}

// ---- Chart.yaml ----

fn type_error(file: &str, field: &str, want: &'static str) -> LoadError {
    LoadError::FieldType {
        file: file.to_string(),
        field: field.to_string(),
        want,
    }
}

fn mapping<'a>(
    node: &'a Node,
    file: &str,
    field: &str,
) -> Result<Option<&'a yaml::Mapping>, LoadError> {
    match node {
        Node::Mapping(m) => Ok(Some(m)),
        Node::Scalar(s) if s.is_null() => Ok(None),
        _ => Err(type_error(file, field, "a map")),
    }
}

/// A string field as `sigs.k8s.io/yaml` fills a Go string: the scalar's text, null as empty.
fn string_field(node: Option<&Node>, file: &str, field: &str) -> Result<String, LoadError> {
    match node {
        None => Ok(String::new()),
        Some(Node::Scalar(s)) if s.is_null() => Ok(String::new()),
        Some(Node::Scalar(s)) => Ok(s.value.to_string()),
        Some(_) => Err(type_error(file, field, "a string")),
    }
}

fn string_list(node: Option<&Node>, file: &str, field: &str) -> Result<Vec<String>, LoadError> {
    match node {
        None => Ok(Vec::new()),
        Some(Node::Scalar(s)) if s.is_null() => Ok(Vec::new()),
        Some(Node::Sequence(seq)) => seq
            .items
            .iter()
            .map(|item| string_field(Some(item), file, field))
            .collect(),
        Some(_) => Err(type_error(file, field, "a list of strings")),
    }
}

fn bool_field(node: Option<&Node>, file: &str, field: &str) -> Result<Option<bool>, LoadError> {
    match node {
        None => Ok(None),
        Some(Node::Scalar(s)) if s.is_null() => Ok(None),
        Some(Node::Scalar(s)) => match resolve_bool(s) {
            Some(b) => Ok(Some(b)),
            None => Err(type_error(file, field, "a boolean")),
        },
        Some(_) => Err(type_error(file, field, "a boolean")),
    }
}

fn resolve_bool(s: &Scalar) -> Option<bool> {
    match yaml::resolve_helm(s) {
        Resolved::Bool(b) => Some(b),
        _ => None,
    }
}

fn parse_dependencies(node: Option<&Node>, file: &str) -> Result<Vec<Dependency>, LoadError> {
    let items = match node {
        None => return Ok(Vec::new()),
        Some(Node::Scalar(s)) if s.is_null() => return Ok(Vec::new()),
        Some(Node::Sequence(seq)) => &seq.items,
        Some(_) => return Err(type_error(file, "dependencies", "a list")),
    };
    let mut out = Vec::new();
    for item in items {
        let Some(m) = mapping(item, file, "dependencies")? else {
            return Err(LoadError::NullDependency {
                file: file.to_string(),
            });
        };
        let import_values = match m.get("import-values") {
            None => Vec::new(),
            Some(Node::Scalar(s)) if s.is_null() => Vec::new(),
            Some(Node::Sequence(seq)) => seq
                .items
                .iter()
                .map(|v| offlux_template::from_serde(yaml::to_json_helm(v)))
                .collect(),
            Some(_) => return Err(type_error(file, "import-values", "a list")),
        };
        out.push(Dependency {
            name: string_field(m.get("name"), file, "name")?,
            version: string_field(m.get("version"), file, "version")?,
            repository: string_field(m.get("repository"), file, "repository")?,
            condition: string_field(m.get("condition"), file, "condition")?,
            tags: string_list(m.get("tags"), file, "tags")?,
            // Decided later by dependency processing, whatever the file says.
            enabled: {
                bool_field(m.get("enabled"), file, "enabled")?;
                true
            },
            import_values,
            alias: string_field(m.get("alias"), file, "alias")?,
        });
    }
    Ok(out)
}

fn parse_metadata(data: &[u8], label: &str, run: Run<'_>) -> Result<Metadata, Error> {
    let root = parse_yaml_root(data, label, "Chart.yaml", run)?;
    let file = "Chart.yaml";
    let wrap = |kind: LoadError| load_error(label, kind);
    let empty = yaml::Mapping::new();
    let m = mapping(&root, file, "Chart.yaml")
        .map_err(wrap)?
        .unwrap_or(&empty);
    let mut api_version = string_field(m.get("apiVersion"), file, "apiVersion").map_err(wrap)?;
    if api_version.is_empty() {
        // Helm 2 accepted charts without apiVersion; Helm reads them as v1.
        api_version = "v1".into();
    }
    Ok(Metadata {
        api_version,
        name: string_field(m.get("name"), file, "name").map_err(wrap)?,
        version: string_field(m.get("version"), file, "version").map_err(wrap)?,
        app_version: string_field(m.get("appVersion"), file, "appVersion").map_err(wrap)?,
        description: string_field(m.get("description"), file, "description").map_err(wrap)?,
        kube_version: string_field(m.get("kubeVersion"), file, "kubeVersion").map_err(wrap)?,
        chart_type: string_field(m.get("type"), file, "type").map_err(wrap)?,
        dependencies: parse_dependencies(m.get("dependencies"), file).map_err(wrap)?,
        template_data: Value::Nil,
    })
}

/// `requirements.yaml`: only its `dependencies` matter (Helm unmarshals it over the metadata).
fn parse_requirements(
    data: &[u8],
    label: &str,
    run: Run<'_>,
) -> Result<Option<Vec<Dependency>>, Error> {
    let file = "requirements.yaml";
    let root = parse_yaml_root(data, label, file, run)?;
    let wrap = |kind: LoadError| load_error(label, kind);
    let Some(m) = mapping(&root, file, file).map_err(wrap)? else {
        return Ok(None);
    };
    if !m.contains_key("dependencies") {
        return Ok(None);
    }
    parse_dependencies(m.get("dependencies"), file)
        .map(Some)
        .map_err(wrap)
}

/// Helm's `Metadata.Validate` (the messages follow it; the caller adds `validation: `).
fn validate(md: &mut Metadata) -> Result<(), String> {
    md.name = sanitize(&md.name);
    md.description = sanitize(&md.description);
    md.app_version = sanitize(&md.app_version);
    md.kube_version = sanitize(&md.kube_version);
    if md.api_version.is_empty() {
        return Err("chart.metadata.apiVersion is required".into());
    }
    if md.name.is_empty() {
        return Err("chart.metadata.name is required".into());
    }
    if md.name.contains('/') || md.name == "." || md.name == ".." {
        return Err(format!("chart.metadata.name {:?} is invalid", md.name));
    }
    if md.version.is_empty() {
        return Err("chart.metadata.version is required".into());
    }
    if !is_semver(&md.version) {
        return Err(format!(
            "chart.metadata.version {:?} is invalid",
            md.version
        ));
    }
    if !matches!(md.chart_type.as_str(), "" | "application" | "library") {
        return Err("chart.metadata.type must be application or library".into());
    }
    let mut seen = std::collections::BTreeSet::new();
    for dep in &mut md.dependencies {
        dep.name = sanitize(&dep.name);
        dep.version = sanitize(&dep.version);
        dep.repository = sanitize(&dep.repository);
        dep.condition = sanitize(&dep.condition);
        dep.alias = sanitize(&dep.alias);
        if !dep.alias.is_empty()
            && !dep
                .alias
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!(
                "dependency {:?} has disallowed characters in the alias",
                dep.name
            ));
        }
        let key = if dep.alias.is_empty() {
            &dep.name
        } else {
            &dep.alias
        };
        if !seen.insert(key.clone()) {
            return Err(format!(
                "more than one dependency with name or alias {key:?}"
            ));
        }
    }
    Ok(())
}

/// Helm's `sanitizeString`: whitespace becomes a space, other unprintable characters go.
fn sanitize(s: &str) -> String {
    s.chars()
        .filter_map(|c| {
            if c.is_whitespace() {
                Some(' ')
            } else if c.is_control() {
                None
            } else {
                Some(c)
            }
        })
        .collect()
}

/// Masterminds `semver.NewVersion`'s loose form: `v` prefix, missing minor or patch allowed.
fn is_semver(version: &str) -> bool {
    let v = version.strip_prefix('v').unwrap_or(version);
    let (v, build) = match v.split_once('+') {
        Some((v, b)) => (v, Some(b)),
        None => (v, None),
    };
    let (core, pre) = match v.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (v, None),
    };
    let ident_ok = |s: &str| {
        !s.is_empty()
            && s.split('.').all(|part| {
                !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            })
    };
    let nums: Vec<&str> = core.split('.').collect();
    (1..=3).contains(&nums.len())
        && nums.iter().all(|n| {
            !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) && n.parse::<u64>().is_ok()
        })
        && pre.is_none_or(ident_ok)
        && build.is_none_or(ident_ok)
}

/// `.Chart` as templates see it: Go's field names with zero values for absent fields.
fn template_data(data: &[u8], md: &Metadata, label: &str, run: Run<'_>) -> Result<Value, Error> {
    let file = "Chart.yaml";
    let root = parse_yaml_root(data, label, file, run)?;
    let wrap = |kind: LoadError| load_error(label, kind);
    let empty = yaml::Mapping::new();
    let m = mapping(&root, file, file).map_err(wrap)?.unwrap_or(&empty);
    let s = |v: &str| Value::String(v.to_string());
    let strings = |field: &str| -> Result<Value, Error> {
        Ok(Value::List(
            string_list(m.get(field), file, field)
                .map_err(wrap)?
                .into_iter()
                .map(Value::String)
                .collect(),
        ))
    };
    let field = |name: &str| -> Result<Value, Error> {
        string_field(m.get(name), file, name)
            .map(|v| Value::String(sanitize(&v)))
            .map_err(wrap)
    };
    let mut maintainers = Vec::new();
    match m.get("maintainers") {
        None => {}
        Some(Node::Scalar(sc)) if sc.is_null() => {}
        Some(Node::Sequence(seq)) => {
            for item in &seq.items {
                let mm = mapping(item, file, "maintainers")
                    .map_err(wrap)?
                    .unwrap_or(&empty);
                let mut out = BTreeMap::new();
                for (go, key) in [("Name", "name"), ("Email", "email"), ("URL", "url")] {
                    out.insert(
                        go.to_string(),
                        Value::String(string_field(mm.get(key), file, key).map_err(wrap)?),
                    );
                }
                maintainers.push(Value::map(out));
            }
        }
        Some(_) => return Err(wrap(type_error(file, "maintainers", "a list"))),
    }
    let mut annotations = BTreeMap::new();
    if let Some(node) = m.get("annotations") {
        if let Some(am) = mapping(node, file, "annotations").map_err(wrap)? {
            for entry in &am.entries {
                annotations.insert(
                    entry.key.value.to_string(),
                    Value::String(
                        string_field(Some(&entry.value), file, "annotations").map_err(wrap)?,
                    ),
                );
            }
        }
    }
    let dependencies = md
        .dependencies
        .iter()
        .map(|d| {
            let mut out = BTreeMap::new();
            out.insert("Name".to_string(), s(&d.name));
            out.insert("Version".to_string(), s(&d.version));
            out.insert("Repository".to_string(), s(&d.repository));
            out.insert("Condition".to_string(), s(&d.condition));
            out.insert(
                "Tags".to_string(),
                Value::List(d.tags.iter().map(|t| s(t)).collect()),
            );
            out.insert("Enabled".to_string(), Value::Bool(d.enabled));
            out.insert(
                "ImportValues".to_string(),
                Value::List(d.import_values.clone()),
            );
            out.insert("Alias".to_string(), s(&d.alias));
            Value::map(out)
        })
        .collect();
    let deprecated = bool_field(m.get("deprecated"), file, "deprecated")
        .map_err(wrap)?
        .unwrap_or(false);
    let mut out = BTreeMap::new();
    out.insert("Name".to_string(), s(&md.name));
    out.insert("Home".to_string(), field("home")?);
    out.insert("Sources".to_string(), strings("sources")?);
    out.insert("Version".to_string(), s(&md.version));
    out.insert("Description".to_string(), s(&md.description));
    out.insert("Keywords".to_string(), strings("keywords")?);
    out.insert("Maintainers".to_string(), Value::List(maintainers));
    out.insert("Icon".to_string(), field("icon")?);
    out.insert("APIVersion".to_string(), s(&md.api_version));
    out.insert("Condition".to_string(), field("condition")?);
    out.insert("Tags".to_string(), field("tags")?);
    out.insert("AppVersion".to_string(), s(&md.app_version));
    out.insert("Deprecated".to_string(), Value::Bool(deprecated));
    out.insert("Annotations".to_string(), Value::map(annotations));
    out.insert("KubeVersion".to_string(), s(&md.kube_version));
    out.insert("Dependencies".to_string(), Value::List(dependencies));
    out.insert("Type".to_string(), s(&md.chart_type));
    Ok(Value::map(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A `.tgz` built in memory; names are written raw into the header, so hostile ones survive.
    fn tgz(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (name, data) in entries {
            let mut header = tar::Header::new_old();
            let field = &mut header.as_old_mut().name;
            field[..name.len()].copy_from_slice(name.as_bytes());
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            header.set_entry_type(tar::EntryType::Regular);
            header.set_cksum();
            builder.append(&header, *data).expect("tar entry");
        }
        let tar = builder.into_inner().expect("tar");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&tar).expect("gzip");
        gz.finish().expect("gzip")
    }

    fn message(result: Result<Chart, Error>) -> String {
        match result {
            Ok(chart) => panic!("expected an error, loaded {}", chart.name()),
            Err(e) => e.to_string(),
        }
    }

    const SUB_CHART: &[u8] = b"apiVersion: v2\nname: sub\nversion: 0.1.0\n";

    fn parent_archive() -> Vec<u8> {
        let sub = tgz(&[
            ("sub/Chart.yaml", SUB_CHART),
            ("sub/values.yaml", b"port: 80\n"),
            ("sub/templates/svc.yaml", b"kind: Service\n"),
        ]);
        tgz(&[
            (
                "app/Chart.yaml",
                b"apiVersion: v2\nname: app\nversion: 1.10\nappVersion: 1.0\nmaintainers:\n- name: me\nannotations:\n  a: 1\ndependencies:\n- name: sub\n  version: 0.1.0\n  import-values:\n  - data\n  - child: a\n    parent: b\n",
            ),
            ("app/values.yaml", b"replicas: 2\nname: x\n"),
            ("app/values.schema.json", b"{}"),
            ("app/Chart.lock", b"x"),
            ("app/templates/deploy.yaml", b"kind: Deployment\n"),
            ("app/templates/_helpers.tpl", b"{{/* */}}"),
            ("app/crds/crd.yaml", b"kind: CustomResourceDefinition\n"),
            ("app/charts/sub-0.1.0.tgz", &sub),
            ("app/charts/other/Chart.yaml", b"apiVersion: v2\nname: aaa\nversion: 1.0.0\n"),
            ("app/charts/sub-0.1.0.tgz.prov", b"sig"),
            ("app/.helmignore", b"*.md\n"),
            ("app/README.md", b"kept: archives are loaded as packaged"),
        ])
    }

    #[test]
    fn archive_loads_with_subcharts() {
        let chart =
            load_archive("app.tgz", &parent_archive(), &LoadOptions::default()).expect("loads");
        assert_eq!(chart.name(), "app");
        assert_eq!(chart.metadata.version, "1.10");
        assert_eq!(chart.metadata.app_version, "1.0");
        assert_eq!(chart.schema.as_deref(), Some(&b"{}"[..]));
        let names = |files: &[ChartFile]| files.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(&chart.templates),
            ["templates/deploy.yaml", "templates/_helpers.tpl"]
        );
        assert_eq!(
            names(&chart.files),
            [
                "crds/crd.yaml",
                "charts/sub-0.1.0.tgz.prov",
                ".helmignore",
                "README.md"
            ]
        );
        let mut values = BTreeMap::new();
        values.insert("replicas".to_string(), Value::Float(2.0));
        values.insert("name".to_string(), Value::String("x".into()));
        assert_eq!(chart.values, Value::map(values));
        let subs: Vec<&str> = chart.dependencies.iter().map(|c| c.name()).collect();
        assert_eq!(subs, ["aaa", "sub"]);
        let sub = &chart.dependencies[1];
        assert_eq!(sub.templates.len(), 1);
        assert_eq!(chart.dependencies[0].values, Value::map(BTreeMap::new()));
        let dep = &chart.metadata.dependencies[0];
        assert!(dep.enabled);
        assert_eq!(dep.import_values.len(), 2);
        assert_eq!(chart.crd_files().len(), 1);
    }

    #[test]
    fn chart_template_data_uses_go_names_and_zero_values() {
        let chart =
            load_archive("app.tgz", &parent_archive(), &LoadOptions::default()).expect("loads");
        let Value::Map(data) = &chart.metadata.template_data else {
            panic!("template data is a map");
        };
        let get = |k: &str| {
            data.get(k)
                .cloned()
                .unwrap_or_else(|| panic!("missing {k}"))
        };
        assert_eq!(get("Version"), Value::String("1.10".into()));
        assert_eq!(get("AppVersion"), Value::String("1.0".into()));
        assert_eq!(get("Home"), Value::String(String::new()));
        assert_eq!(get("Keywords"), Value::List(vec![]));
        assert_eq!(get("Deprecated"), Value::Bool(false));
        assert_eq!(get("Type"), Value::String(String::new()));
        let Value::Map(ann) = get("Annotations") else {
            panic!("annotations")
        };
        assert_eq!(ann.get("a"), Some(&Value::String("1".into())));
        let Value::List(m) = get("Maintainers") else {
            panic!("maintainers")
        };
        let Some(Value::Map(m)) = m.first() else {
            panic!("one maintainer")
        };
        assert_eq!(m.get("Name"), Some(&Value::String("me".into())));
        assert_eq!(m.get("URL"), Some(&Value::String(String::new())));
        let Value::List(deps) = get("Dependencies") else {
            panic!("deps")
        };
        let Some(Value::Map(d)) = deps.first() else {
            panic!("one dep")
        };
        assert_eq!(d.get("Enabled"), Some(&Value::Bool(true)));
        assert_eq!(data.len(), 17);
    }

    #[test]
    fn archive_rejects_paths_outside_the_chart() {
        let o = LoadOptions::default();
        let m = message(load_archive("x.tgz", &tgz(&[("app/../../x", b"a")]), &o));
        assert!(m.contains("outside the base directory"), "{m}");
        let m = message(load_archive("x.tgz", &tgz(&[("../x", b"a")]), &o));
        assert!(m.contains("outside the base directory"), "{m}");
        let m = message(load_archive("x.tgz", &tgz(&[("/etc/passwd", b"a")]), &o));
        assert!(m.contains("absolute paths"), "{m}");
        let m = message(load_archive("x.tgz", &tgz(&[("app/C:/x", b"a")]), &o));
        assert!(m.contains("illegally named"), "{m}");
        let m = message(load_archive(
            "x.tgz",
            &tgz(&[("Chart.yaml", SUB_CHART)]),
            &o,
        ));
        assert!(m.contains("not in base directory"), "{m}");
        let m = message(load_archive("x.tgz", b"not gzip", &o));
        assert!(m.contains("gzipped"), "{m}");
        let m = message(load_archive("x.tgz", &tgz(&[]), &o));
        assert!(m.contains("no files"), "{m}");
        let m = message(load_archive("x.tgz", &[0x1f, 0x8b, 0, 1, 2], &o));
        assert!(m.starts_with("loading chart x.tgz"), "{m}");
    }

    #[test]
    fn archive_caps_are_enforced() {
        let many: Vec<(String, Vec<u8>)> = (0..50)
            .map(|i| (format!("app/f{i}"), vec![b'a'; 10]))
            .collect();
        let mut entries: Vec<(&str, &[u8])> = vec![("app/Chart.yaml", SUB_CHART)];
        entries.extend(many.iter().map(|(n, d)| (n.as_str(), d.as_slice())));
        let archive = tgz(&entries);
        let o = LoadOptions {
            max_entries: 20,
            ..LoadOptions::default()
        };
        let m = message(load_archive("x.tgz", &archive, &o));
        assert!(m.contains("entry limit"), "{m}");

        let big = vec![b'a'; 1 << 20];
        let archive = tgz(&[("app/Chart.yaml", SUB_CHART), ("app/big", &big)]);
        let o = LoadOptions {
            max_total_bytes: 100_000,
            ..LoadOptions::default()
        };
        let m = message(load_archive("x.tgz", &archive, &o));
        assert!(m.contains("size limit"), "{m}");
        let o = LoadOptions {
            max_archive_bytes: 100,
            ..LoadOptions::default()
        };
        let m = message(load_archive("x.tgz", &archive, &o));
        assert!(m.contains("bytes allowed"), "{m}");

        // Subcharts three deep, with a depth limit of one.
        let c = tgz(&[("c/Chart.yaml", b"apiVersion: v2\nname: c\nversion: 1.0.0\n")]);
        let b = tgz(&[
            ("b/Chart.yaml", b"apiVersion: v2\nname: b\nversion: 1.0.0\n"),
            ("b/charts/c.tgz", &c),
        ]);
        let a = tgz(&[
            ("a/Chart.yaml", b"apiVersion: v2\nname: a\nversion: 1.0.0\n"),
            ("a/charts/b.tgz", &b),
        ]);
        let o = LoadOptions {
            max_depth: 1,
            ..LoadOptions::default()
        };
        let m = message(load_archive("a.tgz", &a, &o));
        assert!(m.contains("deeper than 1"), "{m}");
        assert!(load_archive("a.tgz", &a, &LoadOptions::default()).is_ok());
    }

    #[test]
    fn load_errors_are_kinds_nested_by_subchart() {
        let o = LoadOptions::default();
        let Err(Error::Load { chart, kind }) = load_archive("x.tgz", b"not gzip", &o) else {
            panic!("expected a load error");
        };
        assert_eq!((chart.as_str(), kind), ("x.tgz", LoadError::NotGzip));

        let b = tgz(&[("b/values.yaml", b"a: 1\n")]);
        let a = tgz(&[
            ("a/Chart.yaml", b"apiVersion: v2\nname: a\nversion: 1.0.0\n"),
            ("a/charts/b.tgz", &b),
        ]);
        let error = load_archive("a.tgz", &a, &o).err();
        let want = Error::Load {
            chart: "b.tgz".into(),
            kind: LoadError::Subchart {
                subchart: "b.tgz".into(),
                parent: "a".into(),
                kind: Box::new(LoadError::NoChartYaml),
            },
        };
        assert_eq!(error, Some(want));
        assert_eq!(
            error.map(|e| e.to_string()).as_deref(),
            Some("loading chart b.tgz: error unpacking subchart b.tgz in a: Chart.yaml file is missing")
        );
    }

    fn chart_yaml_error(yaml: &str) -> String {
        message(load_archive(
            "x.tgz",
            &tgz(&[("x/Chart.yaml", yaml.as_bytes())]),
            &LoadOptions::default(),
        ))
    }

    #[test]
    fn chart_yaml_validation_messages() {
        let m = message(load_archive(
            "x.tgz",
            &tgz(&[("x/values.yaml", b"a: 1")]),
            &LoadOptions::default(),
        ));
        assert!(m.ends_with("Chart.yaml file is missing"), "{m}");
        assert!(chart_yaml_error("apiVersion: v2\nversion: 1.0.0\n")
            .ends_with("validation: chart.metadata.name is required"));
        assert!(chart_yaml_error("apiVersion: v2\nname: a\n")
            .ends_with("validation: chart.metadata.version is required"));
        assert!(chart_yaml_error("apiVersion: v2\nname: a\nversion: x\n")
            .ends_with("validation: chart.metadata.version \"x\" is invalid"));
        assert!(
            chart_yaml_error("apiVersion: v2\nname: a\nversion: 1.0.0\ntype: foo\n")
                .ends_with("validation: chart.metadata.type must be application or library")
        );
        assert!(chart_yaml_error(
            "apiVersion: v2\nname: a\nversion: 1.0.0\ndependencies:\n- name: b\n- name: b\n"
        )
        .ends_with("more than one dependency with name or alias \"b\""));
        assert!(chart_yaml_error(
            "apiVersion: v2\nname: a\nversion: 1.0.0\ndependencies:\n- name: b\n  alias: b.c\n"
        )
        .contains("disallowed characters in the alias"));
        assert!(chart_yaml_error("apiVersion: v2\nname: [a]\nversion: 1\n").contains("name"));
        // No apiVersion reads as v1, as in Helm.
        let ok = load_archive(
            "x.tgz",
            &tgz(&[("x/Chart.yaml", b"name: a\nversion: v1.2\n")]),
            &LoadOptions::default(),
        )
        .expect("loads");
        assert_eq!(ok.metadata.api_version, "v1");
    }

    #[test]
    fn semver_follows_masterminds_loose_form() {
        for v in ["1", "1.2", "v1.2.3", "1.2.3-rc.1+build.5", "0.0.0-0"] {
            assert!(is_semver(v), "{v}");
        }
        for v in ["", "x", "1.2.3.4", "1..2", "1.2.3-", "1.2.3+", "1.a"] {
            assert!(!is_semver(v), "{v}");
        }
    }

    #[test]
    fn requirements_yaml_gives_v1_dependencies() {
        let archive = tgz(&[
            ("x/Chart.yaml", b"apiVersion: v1\nname: x\nversion: 1.0.0\n"),
            (
                "x/requirements.yaml",
                b"dependencies:\n- name: d\n  version: 1.0.0\n  tags: [t]\n",
            ),
            ("x/requirements.lock", b"lock"),
        ]);
        let chart = load_archive("x.tgz", &archive, &LoadOptions::default()).expect("loads");
        assert_eq!(chart.metadata.dependencies.len(), 1);
        assert_eq!(chart.metadata.dependencies[0].tags, ["t"]);
        // Helm keeps both in `.Files` for v1 charts.
        assert_eq!(chart.files.len(), 2);
    }

    #[test]
    fn directory_applies_helmignore_and_refuses_escaping_symlinks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("app");
        std::fs::create_dir_all(root.join("templates")).expect("mkdir");
        std::fs::create_dir_all(root.join("ci")).expect("mkdir");
        std::fs::create_dir_all(root.join("charts/sub/templates")).expect("mkdir");
        std::fs::write(
            root.join("Chart.yaml"),
            "apiVersion: v2\nname: app\nversion: 1.0.0\n",
        )
        .expect("write");
        std::fs::write(root.join(".helmignore"), "ci/\n*.md\n").expect("write");
        std::fs::write(root.join("README.md"), "x").expect("write");
        std::fs::write(root.join("ci/values.yaml"), "x").expect("write");
        std::fs::write(root.join("templates/b.yaml"), "b").expect("write");
        std::fs::write(root.join("templates/a.yaml"), "a").expect("write");
        std::fs::write(root.join("templates/.hidden"), "h").expect("write");
        std::fs::write(root.join("charts/sub/Chart.yaml"), SUB_CHART).expect("write");
        std::fs::write(root.join("charts/sub/templates/x.yaml"), "x").expect("write");
        std::fs::write(root.join("charts/sub/NOTES.md"), "x").expect("write");
        std::fs::write(
            root.join("charts/sub-2.tgz"),
            tgz(&[(
                "sub2/Chart.yaml",
                b"apiVersion: v2\nname: sub2\nversion: 1.0.0\n",
            )]),
        )
        .expect("write");
        let chart = load_dir(&root, &LoadOptions::default()).expect("loads");
        let names: Vec<&str> = chart.templates.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["templates/a.yaml", "templates/b.yaml"]);
        let files: Vec<&str> = chart.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(files, [".helmignore"]);
        let subs: Vec<&str> = chart.dependencies.iter().map(|c| c.name()).collect();
        assert_eq!(subs, ["sub", "sub2"]);
        assert!(
            chart.dependencies[0].files.is_empty(),
            "the top .helmignore reaches subcharts"
        );

        #[cfg(unix)]
        {
            std::fs::write(dir.path().join("secret"), "s").expect("write");
            std::os::unix::fs::symlink(dir.path().join("secret"), root.join("templates/leak.yaml"))
                .expect("symlink");
            let m = message(load_dir(&root, &LoadOptions::default()));
            assert!(
                m.contains("templates/leak.yaml") && m.contains("outside the chart"),
                "{m}"
            );
            std::fs::remove_file(root.join("templates/leak.yaml")).expect("rm");
            std::os::unix::fs::symlink(
                root.join("templates/a.yaml"),
                root.join("templates/c.yaml"),
            )
            .expect("symlink");
            let chart =
                load_dir(&root, &LoadOptions::default()).expect("inner symlinks are followed");
            assert_eq!(chart.templates.len(), 3);
            std::os::unix::fs::symlink(&root, root.join("templates/loop")).expect("symlink");
            let m = message(load_dir(&root, &LoadOptions::default()));
            assert!(m.contains("loop"), "{m}");
        }
    }

    #[test]
    fn damaged_archives_give_errors_not_panics() {
        let good = parent_archive();
        let o = LoadOptions::default();
        for len in (0..good.len()).step_by(7) {
            let _ = load_archive("cut.tgz", good.get(..len).unwrap_or_default(), &o);
        }
        let raw = {
            use std::io::Read;
            let mut d = flate2::read::MultiGzDecoder::new(good.as_slice());
            let mut v = Vec::new();
            d.read_to_end(&mut v).expect("gunzip");
            v
        };
        for at in (0..raw.len().min(4096)).step_by(13) {
            let mut bad = raw.clone();
            if let Some(b) = bad.get_mut(at) {
                *b ^= 0x5a;
            }
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(&bad).expect("gzip");
            let _ = load_archive("flip.tgz", &gz.finish().expect("gzip"), &o);
        }
    }

    /// The corpus's chart directories, sorted; `None` when the corpus is absent (the test skips).
    fn corpus_dirs(what: &str) -> Option<Vec<PathBuf>> {
        let corpus = offlux_test_data::dir("corpus/charts", what)?;
        let entries = std::fs::read_dir(&corpus).expect("the chart corpus is readable");
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        assert!(!dirs.is_empty(), "the chart corpus holds no charts");
        Some(dirs)
    }

    fn files_on_disk(dir: &Path) -> usize {
        let Ok(read) = std::fs::read_dir(dir) else {
            return 0;
        };
        read.filter_map(|e| e.ok())
            .map(|e| {
                let p = e.path();
                if p.is_dir() {
                    files_on_disk(&p)
                } else {
                    usize::from(!e.file_name().to_string_lossy().starts_with('.'))
                }
            })
            .sum()
    }

    #[test]
    fn corpus_charts_all_load() {
        let Some(dirs) = corpus_dirs("loading every corpus chart") else {
            return;
        };
        let mut failures = Vec::new();
        for dir in dirs {
            match load_dir(&dir, &LoadOptions::default()) {
                Ok(chart) => assert!(
                    !chart.templates.is_empty()
                        || chart.metadata.is_library()
                        || !chart.dependencies.is_empty(),
                    "{}",
                    dir.display()
                ),
                Err(e) => failures.push(format!("{}: {e}", dir.display())),
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn corpus_kube_prometheus_stack_subcharts_match_disk() {
        let Some(corpus) =
            offlux_test_data::dir("corpus/charts", "kube-prometheus-stack subcharts")
        else {
            return;
        };
        for name in [
            "kube-prometheus-stack-75.4.0",
            "kube-prometheus-stack-39.4.0",
        ] {
            let root = corpus.join(name);
            assert!(root.is_dir(), "corpus chart {} is missing", root.display());
            let chart = load_dir(&root, &LoadOptions::default()).expect("loads");
            assert_eq!(
                chart.templates.len(),
                files_on_disk(&root.join("templates")),
                "{name}"
            );
            let mut on_disk: Vec<String> = std::fs::read_dir(root.join("charts"))
                .expect("charts/")
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            on_disk.sort();
            assert!(!on_disk.is_empty());
            assert_eq!(chart.dependencies.len(), on_disk.len(), "{name}");
            for sub in &chart.dependencies {
                let sub_dir = root.join("charts").join(sub.name());
                assert!(sub_dir.is_dir(), "{}", sub_dir.display());
                assert_eq!(
                    sub.templates.len(),
                    files_on_disk(&sub_dir.join("templates")),
                    "{name}/{}",
                    sub.name()
                );
            }
        }
    }
}
