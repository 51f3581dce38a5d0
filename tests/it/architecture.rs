//! Architecture invariants Cargo cannot check, on the manifests and the source text (in the
//! manner of rust-analyzer's tidy tests). Cargo keeps the engines (`crates/`) from naming the Flux
//! layer; these tests keep the engines' dependencies on one another as ARCHITECTURE.md draws them,
//! every crate under the workspace's lints, the Flux layer's own engines (`substitute`,
//! `resourceset`, `artifact`) free of Flux, store, scheduler and CLI concerns; only `cli` prints,
//! reads the environment or exits (and the lints that check it are on); platform-specific code
//! stays in `offlux-platform`; every verb ends through one type.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn project() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The source directory of `module`: a module of the Flux layer (`src/`), or an engine crate
/// (`crates/offlux-NAME/src`) named by its module name in the Flux layer.
fn src(module: &str) -> PathBuf {
    let (first, rest) = module.split_once('/').unwrap_or((module, ""));
    let krate = match first {
        "yaml" | "template" | "kustomize" | "helm" | "schedule" | "platform" | "budget" => {
            Some(format!("offlux-{first}"))
        }
        "fsio" => Some("offlux-fs".to_owned()),
        "golang" => Some("offlux-go".to_owned()),
        _ => None,
    };
    match krate {
        Some(krate) => project().join("crates").join(krate).join("src").join(rest),
        None => project().join("src").join(module),
    }
}

/// Every source root of the workspace: the Flux layer's `src/` and each engine crate's `src/`,
/// with the prefix its files are shown under.
fn source_roots() -> Vec<(String, PathBuf)> {
    let mut roots = vec![("src/".to_owned(), project().join("src"))];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(project().join("crates"))
        .expect("crates/")
        .flatten()
        .map(|entry| entry.path())
        .collect();
    crates.sort();
    for dir in crates {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        roots.push((format!("crates/{name}/src/"), dir.join("src")));
    }
    roots
}

/// Lines of non-test code in `module` that contain any of `needles`.
fn offending_lines(module: &str, needles: &[&str]) -> Vec<String> {
    let dir = src(module);
    assert!(
        dir.is_dir(),
        "module directory `{}` is missing",
        dir.display()
    );
    let mut hits = Vec::new();
    // Test modules kept in their own `tests.rs` files are test code too.
    for file in rust_files(&dir)
        .into_iter()
        .filter(|f| !f.ends_with("tests.rs"))
    {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        // Unit tests may print; they sit after `#[cfg(test)]` by convention.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (number, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            if needles.iter().any(|n| line.contains(n)) {
                hits.push(format!(
                    "{}:{}: {}",
                    file.display(),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    hits
}

/// The engines that live in the Flux layer's crate, where Cargo cannot keep them apart from it.
const ENGINES: &[&str] = &["substitute", "resourceset", "artifact"];

/// Each engine crate's dependencies on the others, as ARCHITECTURE.md draws the layers: a new edge
/// is a design decision, made here and in the drawing together.
#[test]
fn engine_crates_depend_on_one_another_as_drawn() {
    let drawn: &[(&str, &[&str])] = &[
        ("offlux-budget", &[]),
        ("offlux-go", &[]),
        ("offlux-net", &[]),
        ("offlux-git", &["offlux-net"]),
        ("offlux-bucket", &["offlux-net"]),
        ("offlux-platform", &[]),
        ("offlux-sync", &[]),
        ("offlux-test-data", &[]),
        // Not an engine: the benchmarks, which measure the engines through the Flux layer.
        ("offlux-benches", &["offlux"]),
        ("offlux-schedule", &["offlux-sync"]),
        ("offlux-fs", &["offlux-platform", "offlux-sync"]),
        ("offlux-yaml", &["offlux-budget", "offlux-go"]),
        (
            "offlux-template",
            &["offlux-budget", "offlux-go", "offlux-sync", "offlux-yaml"],
        ),
        (
            "offlux-kustomize",
            &[
                "offlux-budget",
                "offlux-fs",
                "offlux-go",
                "offlux-sync",
                "offlux-yaml",
            ],
        ),
        (
            "offlux-helm",
            &[
                "offlux-budget",
                "offlux-fs",
                "offlux-go",
                "offlux-net",
                "offlux-sync",
                "offlux-template",
                "offlux-yaml",
            ],
        ),
    ];

    let mut found = Vec::new();
    for (name, _) in source_roots().iter().skip(1) {
        let name = name.trim_start_matches("crates/").trim_end_matches("/src/");
        let manifest =
            std::fs::read_to_string(project().join("crates").join(name).join("Cargo.toml"))
                .unwrap_or_default();
        let dependencies = manifest
            .split("\n[")
            .find(|section| section.starts_with("dependencies]"))
            .unwrap_or_default();
        let mut ours: Vec<&str> = dependencies
            .lines()
            .filter_map(|line| line.split_once(" = "))
            .map(|(key, _)| key.trim())
            .filter(|key| key.starts_with("offlux"))
            .collect();
        ours.sort_unstable();
        assert!(
            manifest.contains("\n[lints]\nworkspace = true"),
            "crates/{name} does not take the workspace's lints"
        );
        found.push((
            name.to_owned(),
            ours.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        ));
    }
    let drawn: Vec<(String, Vec<String>)> = {
        let mut drawn: Vec<_> = drawn
            .iter()
            .map(|(name, deps)| {
                (
                    name.to_string(),
                    deps.iter().map(|d| d.to_string()).collect(),
                )
            })
            .collect();
        drawn.sort();
        drawn
    };
    assert_eq!(
        found, drawn,
        "the engine crates' dependencies differ from the drawing"
    );
}

#[test]
fn engines_know_nothing_of_flux_store_scheduler_or_cli() {
    let needles = [
        "crate::cli",
        "crate::store",
        "crate::schedule",
        "crate::controllers",
        "crate::discovery",
        "crate::model",
    ];
    for engine in ENGINES {
        let hits = offending_lines(engine, &needles);
        assert!(
            hits.is_empty(),
            "engine `{engine}` reaches outside its layer:\n{}",
            hits.join("\n")
        );
    }
}

#[test]
fn only_cli_prints_or_exits() {
    let needles = [
        "println!",
        "eprintln!",
        "print!(",
        "eprint!(",
        "std::process::exit",
        "std::env::var",
    ];
    for module in [
        "yaml",
        "template",
        "substitute",
        "resourceset",
        "artifact",
        "model",
        "discovery",
        "store",
        "schedule",
        "diff",
        "gitrev",
    ] {
        let hits = offending_lines(module, &needles);
        assert!(
            hits.is_empty(),
            "module `{module}` prints, exits or reads the environment:\n{}",
            hits.join("\n")
        );
    }
}

/// Engines, controllers, validation and discovery reach files only through `fsio`, the guarded
/// door (which checks containment, file kinds and sizes, and serves a revision mounted in memory),
/// and never read the environment: only `cli` does, and it passes values in.
#[test]
fn files_and_environment_only_through_the_door() {
    let needles = [
        "std::fs",
        "std::env",
        "use std::{fs",
        "fs::read",
        "env::var",
    ];
    for module in ["kustomize", "helm", "controllers", "validate", "discovery"] {
        let hits = offending_lines(module, &needles);
        assert!(
            hits.is_empty(),
            "module `{module}` touches the file system or environment directly (use `crate::fsio`):\n{}",
            hits.join("\n")
        );
    }
}

/// The artifact builder reads sources only through the `SourceTree`s it is handed, so a guarded
/// reader is the one place files are opened.
#[test]
fn the_artifact_builder_opens_no_file() {
    let hits = offending_lines("artifact", &["std::fs", "File::open"]);
    assert!(
        hits.is_empty(),
        "`artifact` opens files:\n{}",
        hits.join("\n")
    );
}

/// Every `.rs` file of the workspace's sources, with its path relative to the project
/// (`src/cli/mod.rs`, `crates/offlux-yaml/src/lib.rs`).
fn all_sources() -> Vec<(String, String)> {
    let mut sources = Vec::new();
    for (prefix, root) in source_roots() {
        for file in rust_files(&root) {
            let relative = file
                .strip_prefix(&root)
                .unwrap_or(&file)
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            sources.push((format!("{prefix}{relative}"), text));
        }
    }
    sources
}

/// `FILE:LINE: text` of each line of the files `wanted` (by path relative to the project) that
/// holds one of `needles`; with `code_only`, comments and tests are passed over.
fn lines_containing(
    needles: &[&str],
    wanted: impl Fn(&str) -> bool,
    code_only: bool,
) -> Vec<String> {
    let mut hits = Vec::new();
    for (file, text) in all_sources() {
        if !wanted(&file) || code_only && file.ends_with("tests.rs") {
            continue;
        }
        let code = if code_only {
            text.split("#[cfg(test)]").next().unwrap_or("")
        } else {
            &text
        };
        for (number, line) in code.lines().enumerate() {
            if code_only && line.trim_start().starts_with("//") {
                continue;
            }
            if needles.iter().any(|n| line.contains(n)) {
                hits.push(format!("{file}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    hits
}

/// Within `cli`, stderr is written by `report` alone, which escapes it for its reader
/// (`escape::terminal`, or `escape::github_log` in a GitHub log): a message that quotes a
/// repository cannot reach stderr around it (issue 35).
#[test]
fn only_the_report_writes_stderr() {
    let hits: Vec<String> = offending_lines("cli", &["eprintln!", "eprint!("])
        .into_iter()
        .filter(|hit| !hit.contains("cli/report.rs:"))
        .collect();
    assert!(
        hits.is_empty(),
        "stderr written outside `cli::report`:\n{}",
        hits.join("\n")
    );
}

/// Escaping for an output's consumer lives in `escape`, one function per consumer.
#[test]
fn output_escaping_lives_in_escape() {
    let needles = ["\"%25\"", "\"&amp;\"", "\"&lt;\"", "\"#quot;\""];
    let mut hits = Vec::new();
    for module in ["cli", "graph", "diff", "validate"] {
        hits.extend(offending_lines(module, &needles));
    }
    assert!(
        hits.is_empty(),
        "output escaped outside `escape`:\n{}",
        hits.join("\n")
    );
}

/// The lints that keep printing, the environment and exiting in `cli` are on, and only `cli`
/// (and the tests' data locator) turns them off: the compiler then checks every other line.
#[test]
fn only_cli_may_print_read_the_environment_or_exit_and_the_lints_say_so() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .unwrap_or_default();
    for lint in ["print_stdout", "print_stderr", "exit", "disallowed_methods"] {
        assert!(
            manifest.contains(&format!("\n{lint} = \"deny\"")),
            "Cargo.toml's [lints.clippy] does not deny `{lint}`"
        );
    }
    let config = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("clippy.toml"))
        .unwrap_or_default();
    for method in [
        "std::env::var\"",
        "std::env::var_os\"",
        "std::env::vars\"",
        "std::process::exit\"",
    ] {
        assert!(
            config.contains(method),
            "clippy.toml's disallowed-methods leaves out {method}"
        );
    }
    let lints = [
        "clippy::print_stdout",
        "clippy::print_stderr",
        "clippy::exit",
        "clippy::disallowed_methods",
    ];
    let allowed_outside = lines_containing(
        &lints,
        |file| !(file.starts_with("src/cli/") || file.starts_with("crates/offlux-test-data/")),
        false,
    );
    assert!(
        allowed_outside.is_empty(),
        "only `cli` may allow printing, the environment or exiting:\n{}",
        allowed_outside.join("\n")
    );
    let cli = std::fs::read_to_string(src("cli/mod.rs")).unwrap_or_default();
    assert!(
        lints.iter().all(|lint| cli.contains(lint)),
        "src/cli/mod.rs no longer allows what `cli` does"
    );
}

/// Platform-specific code sits in `platform/`, one module per concern with a portable fallback.
/// (A `cfg(unix)` fast path for comparing paths as bytes is allowed elsewhere: see
/// `platform/mod.rs`.)
#[test]
fn platform_specific_code_lives_in_platform() {
    let needles = ["target_os", "libc::", "/dev/shm", "/proc/"];
    let hits = lines_containing(
        &needles,
        |file| !file.starts_with("crates/offlux-platform/"),
        true,
    );
    assert!(
        hits.is_empty(),
        "platform-specific code outside `platform/`:\n{}",
        hits.join("\n")
    );
}

/// Each verb ends through `Result<ExitStatus, CliError>`: no verb returns a bare exit code or
/// ends the process itself.
#[test]
fn every_verb_returns_a_status_or_an_error() {
    let cli = src("cli");
    let mut wrong = Vec::new();
    for file in rust_files(&cli) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let verbs = text
            .lines()
            .filter(|l| l.trim_start().starts_with("pub fn run(") && !l.contains("&self"));
        for line in verbs {
            let signature: String = text[text.find(line).unwrap_or(0)..]
                .split('{')
                .next()
                .unwrap_or("")
                .to_owned();
            if !signature.contains("-> Result<ExitStatus, CliError>") {
                wrong.push(format!("{}: {}", file.display(), signature.trim()));
            }
        }
        if text.contains("process::exit") {
            wrong.push(format!("{}: ends the process", file.display()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A source file's text with comments, string and character literals blanked and test code
/// (everything after the first `#[cfg(test)]`) dropped, so that only code paths remain.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while chars.get(i).is_some_and(|&c| c != '\n') {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if c == 'r'
            && (next == Some('#') || next == Some('"'))
            && !ident_char_before(&chars, i)
        {
            let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            i += 2 + hashes;
            while i < chars.len()
                && !(chars[i] == '"'
                    && chars[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&c| c == '#')
                        .count()
                        == hashes)
            {
                i += 1;
            }
            i += 1 + hashes;
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while let Some(&c) = chars.get(i) {
                i += if c == '\\' { 2 } else { 1 };
                if c == '"' {
                    break;
                }
            }
            out.push_str("\"\"");
        } else if c == '\'' {
            // a character literal ('x', '\n', '\u{..}'); otherwise a lifetime
            if next == Some('\\') {
                i += 2;
                while chars.get(i).is_some_and(|&c| c != '\'') {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_char_before(chars: &[char], i: usize) -> bool {
    i > 0
        && chars
            .get(i - 1)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// A module of the crate: its path (`["kustomize", "load"]`) and its file's code.
struct Module {
    file: PathBuf,
    code: String,
    /// Child modules declared with `mod name;`.
    children: Vec<String>,
}

fn tokens(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            let mut word = c.to_string();
            while let Some(&n) = chars.peek().filter(|n| n.is_alphanumeric() || **n == '_') {
                word.push(n);
                chars.next();
            }
            out.push(word);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            out.push("::".into());
        } else if !c.is_whitespace() {
            out.push(c.to_string());
        }
    }
    out
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// The paths a use tree starting at `tokens[*at]` names, each with the name it binds (its last
/// segment or its `as` alias; `*` for a glob).
fn use_tree(
    tokens: &[String],
    at: &mut usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, String)>,
) {
    let mut path = prefix.to_vec();
    loop {
        match tokens.get(*at).map(String::as_str) {
            Some("{") => {
                *at += 1;
                while tokens.get(*at).is_some_and(|t| t != "}") {
                    use_tree(tokens, at, &path, out);
                    if tokens.get(*at).is_some_and(|t| t == ",") {
                        *at += 1;
                    }
                }
                *at += 1;
                return;
            }
            Some("*") => {
                *at += 1;
                out.push((path, "*".into()));
                return;
            }
            Some(t) if is_ident(t) => {
                if t == "self" && !path.is_empty() {
                    // `a::{self, b}` binds `a`
                } else {
                    path.push(t.to_string());
                }
                *at += 1;
                if tokens.get(*at).is_some_and(|t| t == "::") {
                    *at += 1;
                    continue;
                }
                let mut name = path.last().cloned().unwrap_or_default();
                if tokens.get(*at).is_some_and(|t| t == "as") {
                    name = tokens.get(*at + 1).cloned().unwrap_or_default();
                    *at += 2;
                }
                out.push((path, name));
                return;
            }
            _ => return,
        }
    }
}

/// The `use` declarations of a module's code.
fn uses(code: &str) -> Vec<(Vec<String>, String)> {
    let tokens = tokens(code);
    let mut out = Vec::new();
    for i in 0..tokens.len() {
        if tokens[i] == "use" && tokens.get(i + 1).is_some_and(|t| t != "::") {
            let mut at = i + 1;
            use_tree(&tokens, &mut at, &[], &mut out);
        }
    }
    out
}

/// The crate's module graph at file granularity: an edge from a file to each file whose items its
/// paths (`use crate::…`, `super::…`, `self::…`, a child module's `child::…`) name, re-exports
/// followed to the file that defines the item. A module's edges to its own submodules are left
/// out (its facade re-exports and calls its parts); a submodule's use of its parent's items
/// counts.
struct Crate {
    modules: std::collections::BTreeMap<Vec<String>, Module>,
}

impl Crate {
    fn load(root: &Path) -> Crate {
        let mut modules = std::collections::BTreeMap::new();
        for file in rust_files(root) {
            let rel = file.strip_prefix(root).unwrap_or(&file);
            let mut path: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if path == ["main"] {
                continue;
            }
            if path.last().is_some_and(|l| l == "mod" || l == "lib") {
                path.pop();
            }
            let code = code_of(&std::fs::read_to_string(&file).unwrap_or_default());
            let tokens = tokens(&code);
            let children = tokens
                .windows(3)
                .filter(|w| w[0] == "mod" && is_ident(&w[1]) && w[2] == ";")
                .map(|w| w[1].clone())
                .collect();
            modules.insert(
                path,
                Module {
                    file,
                    code,
                    children,
                },
            );
        }
        Crate { modules }
    }

    /// `path` (relative to the module `at`) made absolute, or `None` for an external crate.
    fn absolute(&self, at: &[String], path: &[String]) -> Option<Vec<String>> {
        let first = path.first()?;
        let mut base: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "self" => at.to_vec(),
            "super" => at.get(..at.len().checked_sub(1)?)?.to_vec(),
            _ if self
                .modules
                .get(at)
                .is_some_and(|m| m.children.contains(first)) =>
            {
                let mut p = at.to_vec();
                p.push(first.clone());
                p
            }
            _ => return None,
        };
        let mut rest = &path[1..];
        while rest.first().is_some_and(|s| s == "super") {
            base.pop();
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The module whose file defines what the absolute `path` names.
    fn defining(&self, path: &[String], depth: usize) -> Option<Vec<String>> {
        let mut module: Vec<String> = Vec::new();
        for segment in path {
            let mut child = module.clone();
            child.push(segment.clone());
            if self.modules.contains_key(&child) {
                module = child;
                continue;
            }
            // an item of `module`: defined there, or imported there from elsewhere
            if depth > 16 {
                return Some(module);
            }
            let code = &self.modules.get(&module)?.code;
            for (target, name) in uses(code) {
                if name == *segment {
                    if let Some(abs) = self.absolute(&module, &target) {
                        return self.defining(&abs, depth + 1).or(Some(module));
                    }
                    return Some(module);
                }
            }
            let defines = |code: &str| {
                let t = tokens(code);
                t.windows(2).any(|w| {
                    w[1] == *segment
                        && [
                            "fn", "struct", "enum", "const", "static", "type", "trait", "union",
                        ]
                        .contains(&w[0].as_str())
                })
            };
            if !defines(code) {
                for (target, name) in uses(code) {
                    if name != "*" {
                        continue;
                    }
                    let Some(abs) = self.absolute(&module, &target) else {
                        continue;
                    };
                    if self.modules.get(&abs).is_some_and(|m| defines(&m.code)) {
                        let mut item = abs;
                        item.push(segment.clone());
                        return self.defining(&item, depth + 1);
                    }
                }
            }
            return Some(module);
        }
        Some(module)
    }

    /// Each module's imports: the modules it reaches, by file.
    fn edges(
        &self,
    ) -> std::collections::BTreeMap<Vec<String>, std::collections::BTreeSet<Vec<String>>> {
        let mut edges = std::collections::BTreeMap::new();
        for (at, module) in &self.modules {
            let tokens = tokens(&module.code);
            let mut paths: Vec<Vec<String>> =
                uses(&module.code).into_iter().map(|(p, _)| p).collect();
            // paths in code: `super::x::y`, `crate::a::b`, `child::f`
            let mut i = 0;
            while i < tokens.len() {
                let starts = i == 0 || tokens[i - 1] != "::";
                if starts && is_ident(&tokens[i]) && tokens.get(i + 1).is_some_and(|t| t == "::") {
                    let mut path = vec![tokens[i].clone()];
                    let mut j = i + 1;
                    while tokens.get(j).is_some_and(|t| t == "::")
                        && tokens.get(j + 1).is_some_and(|t| is_ident(t))
                    {
                        path.push(tokens[j + 1].clone());
                        j += 2;
                    }
                    paths.push(path);
                    i = j;
                } else {
                    i += 1;
                }
            }
            let set: &mut std::collections::BTreeSet<Vec<String>> =
                edges.entry(at.clone()).or_default();
            for path in paths {
                let Some(abs) = self.absolute(at, &path) else {
                    continue;
                };
                if let Some(target) = self.defining(&abs, 0) {
                    // a module's own parts (its submodules) are no import: the parent declares
                    // them, re-exports and calls them as its facade
                    if !target.starts_with(at) && !target.is_empty() {
                        set.insert(target);
                    }
                }
            }
        }
        edges
    }
}

/// The strongly connected components of `edges` with more than one member (Tarjan).
fn circles(
    edges: &std::collections::BTreeMap<Vec<String>, std::collections::BTreeSet<Vec<String>>>,
) -> Vec<Vec<Vec<String>>> {
    struct State<'a> {
        edges: &'a std::collections::BTreeMap<Vec<String>, std::collections::BTreeSet<Vec<String>>>,
        index: std::collections::HashMap<&'a Vec<String>, (usize, usize)>,
        stack: Vec<&'a Vec<String>>,
        on_stack: std::collections::HashSet<&'a Vec<String>>,
        next: usize,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Vec<String>) {
        s.index.insert(v, (s.next, s.next));
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        let edges = s.edges;
        for w in edges.get(v).into_iter().flatten() {
            let reach = if !s.index.contains_key(w) {
                visit(s, w);
                s.index[w].1
            } else if s.on_stack.contains(w) {
                s.index[w].0
            } else {
                continue;
            };
            if let Some(entry) = s.index.get_mut(v) {
                entry.1 = entry.1.min(reach);
            }
        }
        if s.index[v].0 == s.index[v].1 {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: Default::default(),
        stack: Vec::new(),
        on_stack: Default::default(),
        next: 0,
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// Modules import one another one way: no circle of more than two files (two files that share
/// items both ways are one concern split in two, a larger circle is a knot). The two-file circles
/// are printed (`--nocapture`).
#[test]
fn no_import_circle_larger_than_two_files() {
    let mut report = Vec::new();
    for (_, root) in source_roots() {
        report.extend(circles_in(&root));
    }
    for (_, circle) in report.iter().filter(|(len, _)| *len <= 2) {
        eprintln!("{circle}");
    }
    let large: Vec<&str> = report
        .iter()
        .filter(|(len, _)| *len > 2)
        .map(|(_, r)| r.as_str())
        .collect();
    assert!(
        large.is_empty(),
        "import circles of more than two files:\n{}",
        large.join("\n")
    );
}

/// The import circles among the modules of the crate whose sources are under `root`, each with
/// its size and a description naming its files.
fn circles_in(root: &Path) -> Vec<(usize, String)> {
    let krate = Crate::load(root);
    let edges = krate.edges();
    let show = |m: &Vec<String>| {
        krate
            .modules
            .get(m)
            .map(|m| {
                m.file
                    .strip_prefix(project())
                    .unwrap_or(&m.file)
                    .display()
                    .to_string()
            })
            .unwrap_or_default()
    };
    let mut report = Vec::new();
    for component in circles(&edges) {
        let mut lines = vec![format!("circle of {} files:", component.len())];
        for m in &component {
            let within: Vec<String> = edges
                .get(m)
                .into_iter()
                .flatten()
                .filter(|t| component.contains(t))
                .map(show)
                .collect();
            lines.push(format!("  {} -> {}", show(m), within.join(", ")));
        }
        report.push((component.len(), lines.join("\n")));
    }
    report
}
