//! Every `offlux` command the README shows is one offlux accepts (its verb and flags parse), and
//! the first screen's example runs and passes: a renamed flag or verb breaks this test, not a
//! reader's first hour.

use std::path::Path;

/// The words of a shell command line: quotes removed, up to a comment, a pipe or a redirection.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, '#' | '|' | '>') if !started => break,
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

/// Each `offlux …` command in the README's code blocks, with its line: a line of a shell block,
/// or a YAML list item (`- offlux …`) of a CI example.
fn commands(readme: &str) -> Vec<(usize, Vec<String>)> {
    let mut found = Vec::new();
    let mut in_block = false;
    for (i, line) in readme.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            continue;
        }
        let text = line.trim_start();
        let text = text.strip_prefix("- ").unwrap_or(text);
        if text.starts_with("offlux ") {
            found.push((i + 1, words(text)));
        }
    }
    found
}

#[test]
fn every_command_the_readme_shows_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    let found = commands(&readme);
    assert!(found.len() >= 10, "the README shows commands: {found:?}");
    let mut refused = Vec::new();
    for (line, args) in &found {
        if let Err(error) = offlux::cli::command().try_get_matches_from(args) {
            refused.push(format!(
                "README.md:{line}: `{}`: {}",
                args.join(" "),
                error.kind()
            ));
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

#[test]
fn the_first_screens_example_runs_and_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    let line = readme
        .lines()
        .take(20)
        .find_map(|l| l.strip_prefix("cargo run --release -- "))
        .expect("the first screen builds and runs offlux");
    let output = crate::common::offlux_cli::offlux()
        .current_dir(root)
        .args(words(line))
        .output()
        .expect("runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The Quick start shows this output as it is.
    assert!(
        readme.contains(stdout.trim_end()),
        "the README's Quick start no longer shows what the example prints:\n{stdout}"
    );
}

#[test]
fn words_are_split_as_a_shell_would() {
    assert_eq!(
        words(r#"offlux diff --base "origin/$X" -o markdown > out.md"#),
        ["offlux", "diff", "--base", "origin/$X", "-o", "markdown"]
    );
    assert_eq!(
        words("offlux test --path a   # a comment"),
        ["offlux", "test", "--path", "a"]
    );
}
