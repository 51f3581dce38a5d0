//! Hostile repositories against offlux's outputs (issue 35, "forged CI output"): names,
//! namespaces, values and a chart's `fail` message carrying GitHub workflow commands, terminal
//! control bytes and markdown must reach no consumer as anything but text. Every fixture is built
//! at run time in a temporary directory.

#![allow(clippy::print_stderr, reason = "a skipped test says why")]

use std::path::Path;
use std::process::{Command as Process, Output};
use std::time::Duration;

use assert_cmd::Command;

fn offlux() -> Command {
    let mut command = Command::cargo_bin("offlux").expect("binary is built");
    command
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .timeout(Duration::from_secs(60));
    command
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

const KUSTOMIZATION: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n";

/// A ConfigMap whose name and namespace hold ESC, BEL and a forged workflow command (YAML
/// escapes), with a field no ConfigMap has (so validation names it in a finding) and a value
/// holding another command.
const HOSTILE_CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"cm\\e[31mred\\a\\n::error file=x::cm-forged\"\n  namespace: \"ns\\e]0;title\\a\"\ndata:\n  value: \"line\\n::warning::data-forged\\n##[error]legacy-forged\"\nspec: not-a-configmap-field\n";

/// A HelmRelease whose chart's template fails with a message forging commands and colouring
/// the terminal.
const RELEASE: &str = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: evil\n  namespace: flux-system\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: ./charts/evil\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n";
const FAILING_TEMPLATE: &str = "{{ fail \"boom\\n::error file=x::fail-forged\\n  ::notice::indented-forged\\nsee ##[warning]legacy-forged \\x1b[2J\\x07\" }}\n";

fn hostile_repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".git")).expect("mkdir");
    write(
        dir.path(),
        &[
            ("clusters/dev/apps.yaml", KUSTOMIZATION),
            (
                "apps/kustomization.yaml",
                "resources: [cm.yaml, release.yaml]\n",
            ),
            ("apps/cm.yaml", HOSTILE_CONFIG_MAP),
            ("apps/release.yaml", RELEASE),
            (
                "charts/evil/Chart.yaml",
                "apiVersion: v2\nname: evil\nversion: 1.0.0\n",
            ),
            ("charts/evil/templates/cm.yaml", FAILING_TEMPLATE),
        ],
    );
    dir
}

fn run(args: &[&str], root: &Path) -> Output {
    offlux()
        .args(args)
        .arg("--path")
        .arg(root)
        .output()
        .expect("runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// No raw control byte but line breaks and tabs.
fn assert_no_control_bytes(what: &str, text: &str) {
    if let Some(c) = text
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\n' | '\t'))
    {
        panic!("{what}: raw {c:?} in:\n{text}");
    }
}

/// Every line the GitHub runner would read as a workflow command is one of offlux's own: at the
/// start of the line, with a `title` property (each of offlux's commands has one, no forged one
/// does). No other line holds the legacy `##[` prefix (the runner tries it only on a line that
/// is not a `::` command).
fn assert_no_forged_command(what: &str, text: &str) {
    for line in text.split(['\n', '\r']) {
        let trimmed = line.trim_start();
        let Some(rest) = trimmed.strip_prefix("::") else {
            assert!(!line.contains("##["), "{what}: legacy command in {line:?}");
            continue;
        };
        let info = rest.split("::").next().unwrap_or_default();
        assert!(
            trimmed.len() == line.len() && info.contains("title="),
            "{what}: forged workflow command {line:?} in:\n{text}"
        );
    }
}

#[test]
fn github_mode_prints_no_forged_command_on_stdout_or_stderr() {
    let repo = hostile_repository();
    for verb in ["test", "validate"] {
        let output = run(&[verb, "-o", "github"], repo.path());
        assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        // The payloads arrived (escaped), so the test is about them.
        assert!(stdout.contains("fail-forged"), "{verb}: {stdout}");
        for (stream, content) in [("stdout", &stdout), ("stderr", &stderr)] {
            assert_no_forged_command(&format!("{verb} {stream}"), content);
            assert_no_control_bytes(&format!("{verb} {stream}"), content);
        }
    }
    // In a GitHub Actions job every format's stderr is a log line too.
    let output = offlux()
        .env("GITHUB_ACTIONS", "true")
        .args(["validate", "-o", "sarif", "--path"])
        .arg(repo.path())
        .output()
        .expect("runs");
    assert!(text(&output.stderr).contains("fail-forged"));
    assert_no_forged_command("validate -o sarif stderr", &text(&output.stderr));
}

#[test]
fn terminal_output_shows_control_characters() {
    let repo = hostile_repository();
    for args in [
        &["test"][..],
        &["validate"],
        &["get", "all", "-A"],
        &["render"],
        &["build", "ks", "apps", "-n", "flux-system"],
    ] {
        let output = run(args, repo.path());
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert_no_control_bytes(&format!("{args:?} stdout"), &stdout);
        assert_no_control_bytes(&format!("{args:?} stderr"), &stderr);
        if args[0] != "get" {
            // One visible form: `\u{1b}`.
            assert!(
                stderr.contains("\\u{1b}") || stdout.contains("\\u{1b}") || stdout.contains("\\e"),
                "{args:?}: {stdout}{stderr}"
            );
        }
    }
    let output = run(&["test"], repo.path());
    let stdout = text(&output.stdout);
    // The message stays on its row: no line of the table starts with the forged text.
    assert!(
        stdout
            .lines()
            .all(|line| !line.trim_start().starts_with("::")),
        "{stdout}"
    );
}

#[test]
fn junit_is_well_formed_xml_and_sarif_holds_no_control_character() {
    let repo = hostile_repository();
    for verb in ["test", "validate"] {
        let output = run(&[verb, "-o", "junit"], repo.path());
        let xml = text(&output.stdout);
        assert!(xml.contains("fail-forged"), "{xml}");
        if let Err(error) = xml_check::well_formed(&xml) {
            panic!("{verb} -o junit: {error}:\n{xml}");
        }
    }
    let output = run(&["validate", "-o", "sarif"], repo.path());
    let sarif: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let mut strings = Vec::new();
    collect_strings(&sarif, &mut strings);
    assert!(strings.iter().any(|s| s.contains("fail-forged")), "{sarif}");
    for s in strings {
        assert_no_control_bytes("sarif string", &s);
    }
}

fn collect_strings(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

/// A minimal XML 1.0 well-formedness check: one root element, tags nested and matched, attribute
/// values quoted without `<`, only the predefined and numeric entities, and only characters XML
/// 1.0 allows.
mod xml_check {
    pub(super) fn well_formed(text: &str) -> Result<(), String> {
        if let Some(c) = text.chars().find(|&c| !allowed(c)) {
            return Err(format!("character {c:?} is not allowed in XML 1.0"));
        }
        let mut rest = text;
        if let Some(after) = rest.strip_prefix("<?xml") {
            rest = after.split_once("?>").ok_or("unclosed declaration")?.1;
        }
        let mut stack: Vec<String> = Vec::new();
        let mut roots = 0;
        loop {
            let Some(open) = rest.find('<') else {
                check_text(rest)?;
                if !rest.trim().is_empty() && stack.is_empty() {
                    return Err("text after the root element".into());
                }
                break;
            };
            let (before, after) = rest.split_at(open);
            check_text(before)?;
            if stack.is_empty() && !before.trim().is_empty() {
                return Err(format!("text outside the root element: {before:?}"));
            }
            let close = after.find('>').ok_or("unclosed tag")?;
            let tag = &after[1..close];
            rest = &after[close + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                match stack.pop() {
                    Some(open) if open == name.trim() => {}
                    other => return Err(format!("</{name}> closes {other:?}")),
                }
                continue;
            }
            let self_closing = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let name_end = tag.find(char::is_whitespace).unwrap_or(tag.len());
            let name = &tag[..name_end];
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_alphanumeric() || "-_:.".contains(c))
            {
                return Err(format!("bad element name {name:?}"));
            }
            check_attributes(&tag[name_end..])?;
            if stack.is_empty() {
                roots += 1;
            }
            if !self_closing {
                stack.push(name.to_owned());
            }
        }
        if !stack.is_empty() {
            return Err(format!("unclosed elements {stack:?}"));
        }
        if roots != 1 {
            return Err(format!("{roots} root elements"));
        }
        Ok(())
    }

    fn allowed(c: char) -> bool {
        matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
    }

    fn check_attributes(mut text: &str) -> Result<(), String> {
        loop {
            text = text.trim_start();
            if text.is_empty() {
                return Ok(());
            }
            let (name, after) = text.split_once('=').ok_or("attribute without a value")?;
            if name.trim().is_empty() || name.trim().contains(char::is_whitespace) {
                return Err(format!("bad attribute name {name:?}"));
            }
            let quote = after.chars().next().ok_or("attribute without a value")?;
            if quote != '"' && quote != '\'' {
                return Err(format!("unquoted attribute {name}"));
            }
            let (value, after) = after[1..]
                .split_once(quote)
                .ok_or("unclosed attribute value")?;
            if value.contains('<') {
                return Err(format!("`<` in attribute {name}"));
            }
            check_text(value)?;
            text = after;
        }
    }

    /// Character data: every `&` starts a known entity; no `>` needs checking.
    fn check_text(text: &str) -> Result<(), String> {
        let mut rest = text;
        while let Some(at) = rest.find('&') {
            let after = &rest[at + 1..];
            let end = after.find(';').ok_or("`&` without `;`")?;
            let entity = &after[..end];
            let known = matches!(entity, "amp" | "lt" | "gt" | "quot" | "apos")
                || entity
                    .strip_prefix("#x")
                    .map(|hex| u32::from_str_radix(hex, 16).is_ok())
                    .or_else(|| entity.strip_prefix('#').map(|d| d.parse::<u32>().is_ok()))
                    .unwrap_or(false);
            if !known {
                return Err(format!("unknown entity &{entity};"));
            }
            rest = &after[end + 1..];
        }
        Ok(())
    }

    #[test]
    fn the_checker_tells_broken_xml_apart() {
        assert!(well_formed("<?xml version=\"1.0\"?>\n<a x=\"1\"><b/>t &amp; &#10;</a>\n").is_ok());
        assert!(well_formed("<a x=\"\u{1b}\"/>").is_err());
        assert!(well_formed("<a><b></a></b>").is_err());
        assert!(well_formed("<a x=\"<\"/>").is_err());
        assert!(well_formed("<a>&nbsp;</a>").is_err());
        assert!(well_formed("<a/><b/>").is_err());
    }
}

// The pull request comment.

fn git(dir: &Path, args: &[&str]) -> bool {
    Process::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.com",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Markdown with its code (fenced blocks, code spans, `<code>` elements) taken out: what GitHub
/// would read as markup.
fn outside_code(markdown: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<String> = None;
    for line in markdown.lines() {
        let ticks: String = line.chars().take_while(|&c| c == '`').collect();
        match &fence {
            Some(open) if ticks.len() >= open.len() && line.trim_end() == ticks => fence = None,
            Some(_) => {}
            None if ticks.len() >= 3 => fence = Some(ticks),
            None => {
                out.push_str(&without_spans(line));
                out.push('\n');
            }
        }
    }
    out
}

fn without_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find(['`', '<']) {
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        if let Some(inner) = after.strip_prefix("<code>") {
            rest = inner.split_once("</code>").map_or("", |(_, r)| r);
            continue;
        }
        if let Some(inner) = after.strip_prefix('<') {
            out.push('<');
            rest = inner;
            continue;
        }
        let ticks: String = after.chars().take_while(|&c| c == '`').collect();
        let body = &after[ticks.len()..];
        // The closing run is exactly as long as the opening one.
        let mut search = 0;
        let mut close = None;
        while let Some(at) = body[search..].find(&ticks) {
            let at = search + at;
            let run = body[at..].chars().take_while(|&c| c == '`').count();
            if run == ticks.len() {
                close = Some(at);
                break;
            }
            search = at + run;
        }
        match close {
            Some(at) => rest = &body[at + ticks.len()..],
            None => {
                out.push_str(&ticks);
                rest = body;
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn the_pull_request_comment_holds_names_as_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path();
    write(
        repo,
        &[
            ("clusters/dev/apps.yaml", KUSTOMIZATION),
            ("apps/kustomization.yaml", "resources: [cm.yaml]\n"),
            (
                "apps/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n  namespace: default\ndata:\n  a: b\n",
            ),
        ],
    );
    if !git(repo, &["init", "-q"]) || !git(repo, &["add", "."]) {
        eprintln!("skipped: no usable `git` to make the repository with");
        return;
    }
    assert!(git(repo, &["commit", "-q", "-m", "base"]));
    let hostile = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"# Heading @octocat [link](https://evil.example) ![img](https://evil.example/i.png) <img src=x onerror=alert(1)> | cell `tick` \\e[31m\"\n  namespace: \"@team\"\ndata:\n  a: \"b @octocat\"\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n  namespace: default\ndata:\n  a: \"</summary>``` @octocat\"\n";
    write(repo, &[("apps/cm.yaml", hostile)]);
    let output = offlux()
        .args(["diff", "--base", "main", "-o", "markdown", "--path"])
        .arg(repo)
        .output()
        .expect("runs");
    let markdown = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(markdown.contains("octocat"), "{markdown}");
    assert_no_control_bytes("markdown", &markdown);
    let markup = outside_code(&markdown);
    // offlux's own `<details><summary>` tags are the only HTML.
    assert_eq!(
        markup.matches("</summary>").count(),
        markup.matches("<details><summary>").count(),
        "{markup}"
    );
    for active in ["@", "](", "<img", "evil.example"] {
        assert!(
            !markup.contains(active),
            "{active:?} outside code:\n{markup}\nfrom:\n{markdown}"
        );
    }
    for line in markup.lines() {
        assert!(
            !line.starts_with('#') || line.starts_with("### offlux diff") || line == "#### ",
            "a heading offlux did not write: {line:?}"
        );
        if line.starts_with('|') {
            // Four cells (no row has a note, so there is no note column): a `|` of a name never
            // opens a fifth.
            assert_eq!(line.replace("\\|", "").matches('|').count(), 5, "{line:?}");
        }
    }
    // The annotations of the same diff forge nothing either.
    let output = offlux()
        .args(["diff", "--base", "main", "-o", "github", "--path"])
        .arg(repo)
        .output()
        .expect("runs");
    assert_no_forged_command("diff -o github stdout", &text(&output.stdout));
    assert_no_forged_command("diff -o github stderr", &text(&output.stderr));
}

// Values from Secrets (`--redact-secret-values`).

const SECRET_TOKEN: &str = "s3cr3t-Token-42";

/// A Kustomization substituting from a Secret only the cluster holds (`--substitute-from`) into
/// a ConfigMap through every kind of operator, and a HelmRelease whose values come from Secrets
/// (a whole values document, and one value by `targetPath`).
fn secret_repository() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
    let kustomization = KUSTOMIZATION.replace(
        "  prune: true\n",
        "  prune: true\n  postBuild:\n    substitute:\n      PUBLIC: visible-value\n    substituteFrom:\n      - kind: Secret\n        name: creds\n",
    );
    let release = RELEASE.replace("evil", "vals")
        + "  valuesFrom:\n    - kind: Secret\n      name: chart-values\n    - kind: Secret\n      name: creds\n      valuesKey: TOKEN\n      targetPath: token\n";
    write(
        &repo,
        &[
            ("clusters/dev/apps.yaml", &kustomization),
            ("apps/kustomization.yaml", "resources: [cm.yaml, release.yaml]\n"),
            (
                "apps/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  plain: ${TOKEN}\n  prefix: ${TOKEN:0:6}\n  upper: ${TOKEN^^}\n  lower: 'x ${TOKEN,,} y'\n  suffix: ${TOKEN#s3cr3t-}\n  replaced: ${TOKEN//-/_}\n  fallback: ${UNSET:-${TOKEN}}\n  public: ${PUBLIC}\n",
            ),
            ("apps/release.yaml", &release),
            (
                "charts/vals/Chart.yaml",
                "apiVersion: v2\nname: vals\nversion: 1.0.0\n",
            ),
            (
                "charts/vals/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-chart\n  namespace: default\ndata:\n  password: {{ .Values.password | quote }}\n  upper: {{ .Values.password | upper | quote }}\n  item: {{ index .Values.nested.list 0 | quote }}\n  token: {{ .Values.token | quote }}\n",
            ),
        ],
    );
    let secrets = dir.path().join("secrets.yaml");
    std::fs::write(
        &secrets,
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  TOKEN: {SECRET_TOKEN}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: chart-values\nstringData:\n  values.yaml: |\n    password: hunter2-{SECRET_TOKEN}\n    nested:\n      list: [item-{SECRET_TOKEN}]\n"
        ),
    )
    .expect("write");
    (dir, secrets)
}

fn shows_the_secret(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.contains("s3cr3t") || lower.contains("token-42") || lower.contains("token_42")
}

#[test]
fn redacted_secret_values_appear_nowhere_and_flux_behaviour_is_the_default() {
    let (dir, secrets) = secret_repository();
    let repo = dir.path().join("repo");
    let with = |extra: &[&str]| {
        offlux()
            .args(extra)
            .arg("--path")
            .arg(&repo)
            .arg("--substitute-from")
            .arg(&secrets)
            .output()
            .expect("runs")
    };
    // As Flux does: the values land in the objects, through every operator.
    let output = with(&["render"]);
    let plain = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    for expected in [
        "plain: s3cr3t-Token-42",
        "prefix: s3cr3t",
        "upper: S3CR3T-TOKEN-42",
        "lower: x s3cr3t-token-42 y",
        "suffix: Token-42",
        "replaced: s3cr3t_Token_42",
        "fallback: s3cr3t-Token-42",
        "public: visible-value",
        "password: hunter2-s3cr3t-Token-42",
        "upper: HUNTER2-S3CR3T-TOKEN-42",
        "item: item-s3cr3t-Token-42",
        "token: s3cr3t-Token-42",
    ] {
        assert!(
            plain.contains(expected),
            "{expected:?} missing from:\n{plain}"
        );
    }
    // Redacted: every value from a Secret, whatever became of it, is the marker.
    let output = with(&["render", "--redact-secret-values"]);
    let redacted = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(!shows_the_secret(&redacted), "{redacted}");
    for expected in [
        "plain: offlux-redacted",
        "prefix: offlux-redacted",
        "upper: offlux-redacted",
        "lower: x offlux-redacted y",
        "fallback: offlux-redacted",
        "public: visible-value",
        "password: offlux-redacted",
        "upper: OFFLUX-REDACTED",
        "item: offlux-redacted",
        "token: offlux-redacted",
    ] {
        assert!(
            redacted.contains(expected),
            "{expected:?} missing from:\n{redacted}"
        );
    }
    for verb in [&["validate", "-o", "github"][..], &["test", "-o", "json"]] {
        let args: Vec<&str> = verb
            .iter()
            .copied()
            .chain(["--redact-secret-values"])
            .collect();
        let output = with(&args);
        assert!(
            !shows_the_secret(&text(&output.stdout)) && !shows_the_secret(&text(&output.stderr)),
            "{verb:?}: {}{}",
            text(&output.stdout),
            text(&output.stderr)
        );
    }
}

/// Objects whose validation findings would quote a Secret's value: a name built from it, a label
/// holding it with spaces, a replica count and an image made of it.
const LEAKING_OBJECTS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: leak-${TOKEN,,}\n  namespace: default\n  labels:\n    bad: \"${TOKEN} with spaces\"\nspec: ${TOKEN}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: dep\n  namespace: default\nspec:\n  replicas: ${TOKEN}\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: c, image: \"${TOKEN^^}\"}]\n";

#[test]
fn redacted_secret_values_reach_no_finding_in_any_format_and_no_diff() {
    let (dir, secrets) = secret_repository();
    let repo = dir.path().join("repo");
    std::fs::remove_dir_all(repo.join(".git")).expect("rmdir");
    write(
        &repo,
        &[("apps/kustomization.yaml", "resources: [cm.yaml]\n")],
    );
    if !git(&repo, &["init", "-q"]) || !git(&repo, &["add", "."]) {
        eprintln!("skipped: no usable `git` to make the repository with");
        return;
    }
    assert!(git(&repo, &["commit", "-q", "-m", "base"]));
    write(
        &repo,
        &[
            (
                "apps/kustomization.yaml",
                "resources: [cm.yaml, leak.yaml]\n",
            ),
            ("apps/leak.yaml", LEAKING_OBJECTS),
        ],
    );
    let run = |args: &[&str], redact: bool| {
        let mut command = offlux();
        command
            .args(args)
            .arg("--path")
            .arg(&repo)
            .arg("--substitute-from")
            .arg(&secrets);
        if redact {
            command.arg("--redact-secret-values");
        }
        let output = command.output().expect("runs");
        format!("{}{}", text(&output.stdout), text(&output.stderr))
    };
    let mut verbs: Vec<Vec<&str>> = ["human", "json", "junit", "github", "sarif"]
        .into_iter()
        .map(|format| vec!["validate", "-o", format])
        .collect();
    verbs.extend(
        ["human", "markdown", "json", "github"]
            .into_iter()
            .map(|format| vec!["diff", "--base", "main", "-o", format]),
    );
    for verb in &verbs {
        // Without the flag the findings and the diff quote the value (as Flux would apply it), so
        // the redacted run below is a real test.
        let plain = run(verb, false);
        assert!(
            shows_the_secret(&plain),
            "{verb:?} without redaction:\n{plain}"
        );
        let redacted = run(verb, true);
        assert!(!shows_the_secret(&redacted), "{verb:?}:\n{redacted}");
        assert!(
            redacted.contains("offlux-redacted"),
            "{verb:?}:\n{redacted}"
        );
    }
}
