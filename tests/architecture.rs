//! Architecture invariants, checked on the source text (in the manner of rust-analyzer's tidy
//! tests): engines stay free of Flux, store, scheduler and CLI concerns; the scheduler imports
//! nothing of ours; only `cli` prints, reads the environment or exits (and the lints that check
//! it are on); platform-specific code stays in `platform/`; every verb ends through one type.

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

fn src(module: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(module)
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

const ENGINES: &[&str] = &[
    "yaml",
    "template",
    "substitute",
    "kustomize",
    "helm",
    "resourceset",
    "artifact",
];

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
fn scheduler_imports_nothing_of_ours() {
    let hits = offending_lines("schedule", &["crate::", "super::super"]);
    assert!(
        hits.is_empty(),
        "the scheduler imports project code:\n{}",
        hits.join("\n")
    );
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

/// Engines, controllers and validation reach files only through `fsio`, the guarded door (which
/// checks containment, file kinds and sizes), and never read the environment: only `cli` does,
/// and it passes values in.
#[test]
fn files_and_environment_only_through_the_door() {
    let needles = [
        "std::fs",
        "std::env",
        "use std::{fs",
        "fs::read",
        "env::var",
    ];
    for module in ["kustomize", "helm", "controllers", "validate"] {
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

/// Every `.rs` file under `src/`, with its path relative to `src/`.
fn all_sources() -> Vec<(String, String)> {
    let root = src("");
    rust_files(&root)
        .into_iter()
        .map(|file| {
            let relative = file
                .strip_prefix(&root)
                .unwrap_or(&file)
                .to_string_lossy()
                .replace('\\', "/");
            (relative, std::fs::read_to_string(&file).unwrap_or_default())
        })
        .collect()
}

/// `src/FILE:LINE: text` of each line of the files `wanted` (by path relative to `src/`) that
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
                hits.push(format!("src/{file}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    hits
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
        |file| !(file.starts_with("cli/") || file == "test_data.rs"),
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
    let hits = lines_containing(&needles, |file| !file.starts_with("platform/"), true);
    assert!(
        hits.is_empty(),
        "platform-specific code outside `platform/`:\n{}",
        hits.join("\n")
    );
}

/// `template` holds Helm's template functions but not Helm: no chart, values or release model.
#[test]
fn template_does_not_import_helm() {
    let hits = offending_lines("template", &["crate::helm"]);
    assert!(
        hits.is_empty(),
        "`template` imports `helm`:\n{}",
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
