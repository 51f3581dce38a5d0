//! Conformance: the `artifactgenerator` suite, fluxcd/source-watcher's builder tests as data. Each
//! `kind: copy` case builds its source trees in memory and applies the artifact's copy operations
//! with `offlux::artifact`; the other kinds (pathPattern expansion, digests, the envtest controller,
//! admission) are not part of the offline build and are counted apart, not run.

use std::collections::BTreeMap;

use offlux::artifact::{self, Artifact, Copy, Entry, EntryKind, SourceError, SourceTree, Strategy};
use offlux::yaml::{parse_stream, to_json_kyaml, ParseOptions};
use serde_json::Value;

use crate::conformance::common::{suite_dir, suite_present, Tally};

/// A source tree held in memory: files with their bytes, and directories.
#[derive(Default)]
struct MemoryTree {
    files: BTreeMap<String, Vec<u8>>,
    dirs: std::collections::BTreeSet<String>,
    absent: bool,
}

impl MemoryTree {
    fn add_dirs_of(&mut self, path: &str) {
        let mut current = String::new();
        let segments: Vec<&str> = path.split('/').collect();
        for segment in segments.iter().take(segments.len().saturating_sub(1)) {
            if !current.is_empty() {
                current.push('/');
            }
            current.push_str(segment);
            self.dirs.insert(current.clone());
        }
    }

    fn add_file(&mut self, path: &str, bytes: Vec<u8>) {
        self.add_dirs_of(path);
        self.files.insert(path.to_string(), bytes);
    }

    fn add_dir(&mut self, path: &str) {
        let path = path.trim_end_matches('/');
        self.add_dirs_of(&format!("{path}/x"));
    }
}

impl SourceTree for MemoryTree {
    fn kind(&self, path: &str) -> Option<EntryKind> {
        if self.absent {
            return None;
        }
        if path.is_empty() || self.dirs.contains(path) {
            Some(EntryKind::Dir)
        } else if self.files.contains_key(path) {
            Some(EntryKind::File)
        } else {
            None
        }
    }

    fn list(&self, path: &str) -> Result<Vec<String>, SourceError> {
        let prefix = if path.is_empty() {
            String::new()
        } else {
            format!("{path}/")
        };
        let mut names: Vec<String> = self
            .files
            .keys()
            .chain(&self.dirs)
            .filter_map(|p| p.strip_prefix(prefix.as_str()))
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
            .map(str::to_string)
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        self.files.get(path).cloned().ok_or_else(|| SourceError {
            path: path.to_string(),
            message: format!("`{path}` is not a file"),
        })
    }
}

fn tarball(members: &[Value]) -> Vec<u8> {
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(encoder);
    for member in members {
        let name = member["name"].as_str().unwrap_or_default();
        let mode =
            u32::from_str_radix(member["mode"].as_str().unwrap_or("0644"), 8).unwrap_or(0o644);
        let mut header = tar::Header::new_gnu();
        header.set_mode(mode);
        if member["type"].as_str() == Some("dir") {
            header.set_entry_type(tar::EntryType::Directory);
            header.set_size(0);
            builder
                .append_data(&mut header, name, std::io::empty())
                .expect("tar directory");
        } else {
            let content = member["content"].as_str().unwrap_or_default().as_bytes();
            header.set_entry_type(tar::EntryType::Regular);
            header.set_size(content.len() as u64);
            builder
                .append_data(&mut header, name, content)
                .expect("tar file");
        }
    }
    builder
        .into_inner()
        .and_then(|encoder| encoder.finish())
        .expect("tarball")
}

fn trees(sources: &Value) -> BTreeMap<String, MemoryTree> {
    let mut out = BTreeMap::new();
    for (alias, spec) in sources.as_object().into_iter().flatten() {
        let mut tree = MemoryTree {
            absent: spec["absent"].as_bool().unwrap_or(false),
            ..MemoryTree::default()
        };
        for (path, content) in spec["files"].as_object().into_iter().flatten() {
            tree.add_file(
                path,
                content.as_str().unwrap_or_default().as_bytes().to_vec(),
            );
        }
        for dir in spec["dirs"].as_array().into_iter().flatten() {
            tree.add_dir(dir.as_str().unwrap_or_default());
        }
        for (path, members) in spec["tarballs"].as_object().into_iter().flatten() {
            tree.add_file(path, tarball(members.as_array().map_or(&[][..], |m| m)));
        }
        out.insert(alias.clone(), tree);
    }
    out
}

fn copies(artifact: &Value) -> Result<Vec<Copy>, String> {
    artifact["copy"]
        .as_array()
        .ok_or("no `artifact.copy`")?
        .iter()
        .map(|copy| {
            Ok(Copy {
                from: copy["from"].as_str().unwrap_or_default().to_string(),
                to: copy["to"].as_str().unwrap_or_default().to_string(),
                exclude: copy["exclude"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|p| p.as_str().map(str::to_string))
                    .collect(),
                strategy: Strategy::parse(copy["strategy"].as_str().unwrap_or_default())
                    .ok_or("unknown strategy")?,
            })
        })
        .collect()
}

fn as_data(text: &str) -> Value {
    parse_stream(text, &ParseOptions::default())
        .ok()
        .and_then(|docs| docs.first().map(|d| to_json_kyaml(&d.root)))
        .unwrap_or(Value::Null)
}

fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

fn check(
    expect: &Value,
    built: Result<Artifact, artifact::Error>,
    sources: &artifact::Sources,
) -> Result<(), String> {
    let artifact = match (expect["ok"].as_bool().unwrap_or(true), built) {
        (true, Ok(artifact)) => artifact,
        (true, Err(e)) => return Err(format!("expected success, got `{e}`")),
        (false, Ok(_)) => return Err("expected an error, got success".into()),
        (false, Err(e)) => {
            let text = e.to_string();
            return match strings(&expect["error_contains"])
                .iter()
                .find(|want| !text.contains(want.as_str()))
            {
                Some(want) => Err(format!("error `{text}` lacks {want:?}")),
                None => Ok(()),
            };
        }
    };
    let content = |path: &str| -> Result<String, String> {
        match artifact.entries.get(path) {
            Some(Entry::File(origin)) => artifact::read_origin(origin, sources)
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .map_err(|e| e.to_string()),
            _ => Err(format!("`{path}` is not a file of the artifact")),
        }
    };
    for (path, want) in expect["files"].as_object().into_iter().flatten() {
        let got = content(path)?;
        if Some(got.as_str()) != want.as_str() {
            return Err(format!("`{path}`: expected {want}, got {got:?}"));
        }
    }
    for (path, want) in expect["files_yaml"].as_object().into_iter().flatten() {
        let got = content(path)?;
        if as_data(&got) != as_data(want.as_str().unwrap_or_default()) {
            return Err(format!("`{path}`: expected YAML {want}, got {got:?}"));
        }
    }
    for (path, wants) in expect["files_contain"].as_object().into_iter().flatten() {
        let got = content(path)?;
        if let Some(want) = strings(wants).iter().find(|w| !got.contains(w.as_str())) {
            return Err(format!("`{path}` lacks {want:?}: {got:?}"));
        }
    }
    for (path, wants) in expect["files_not_contain"]
        .as_object()
        .into_iter()
        .flatten()
    {
        let got = content(path)?;
        if let Some(want) = strings(wants).iter().find(|w| got.contains(w.as_str())) {
            return Err(format!("`{path}` holds {want:?}: {got:?}"));
        }
    }
    let is_file = |p: &str| matches!(artifact.entries.get(p), Some(Entry::File(_)));
    let is_dir = |p: &str| matches!(artifact.entries.get(p), Some(Entry::Dir));
    for path in strings(&expect["present"]) {
        if !is_file(&path) {
            return Err(format!("`{path}` is missing"));
        }
    }
    for path in strings(&expect["absent"]) {
        if is_file(&path) {
            return Err(format!("`{path}` should be absent"));
        }
    }
    for path in strings(&expect["dirs"]) {
        if !is_dir(path.trim_end_matches('/')) {
            return Err(format!("directory `{path}` is missing"));
        }
    }
    for path in strings(&expect["absent_dirs"]) {
        if is_dir(path.trim_end_matches('/')) {
            return Err(format!("directory `{path}` should be absent"));
        }
    }
    if let Some(want) = expect["root_entries"].as_u64() {
        let got = artifact.entries.keys().filter(|p| !p.contains('/')).count() as u64;
        if got != want {
            return Err(format!("expected {want} root entries, got {got}"));
        }
    }
    Ok(())
}

fn run_case(case: &Value) -> Result<(), String> {
    let trees = trees(&case["sources"]);
    let sources: artifact::Sources = trees
        .iter()
        .map(|(alias, tree)| (alias.clone(), tree as &dyn SourceTree))
        .collect();
    let copies = copies(&case["artifact"])?;
    check(
        &case["expect"],
        artifact::build(&copies, &sources, None),
        &sources,
    )
}

#[test]
fn artifactgenerator_copy_cases() {
    if !suite_present("artifactgenerator") {
        return;
    }
    let dir = suite_dir("artifactgenerator");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("suite directory")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("case.yaml").is_file())
        .collect();
    entries.sort();
    let mut tally = Tally::default();
    let mut not_run: BTreeMap<String, usize> = BTreeMap::new();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(path.join("case.yaml")).unwrap_or_default();
        let case = as_data(&text);
        let kind = case["kind"].as_str().unwrap_or_default().to_string();
        if kind != "copy" {
            *not_run.entry(kind).or_default() += 1;
            continue;
        }
        match run_case(&case) {
            Ok(()) => tally.pass(),
            Err(why) => tally.fail(name, why),
        }
    }
    for (kind, count) in &not_run {
        eprintln!("  not run: {count} `{kind}` cases (not part of the offline copy build)");
    }
    tally.finish("artifactgenerator");
}
