//! Architecture invariants, checked on the source text (in the manner of rust-analyzer's tidy
//! tests): engines stay free of Flux, store, scheduler and CLI concerns; the scheduler imports
//! nothing of ours; only `cli` prints or exits.

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
