//! Hostile repositories against the run's budget (issue 35, "One budget for the whole run" and
//! "Work that does not end"): inputs of a few kilobytes that used to cost minutes or gigabytes.
//! Each case must end by itself within 10 s of CPU time and 1 GB (measured on the child process
//! with `wait4`; CPU time rather than wall time, because the machines that run these tests are
//! shared, and a wall-clock bound three times as wide) with an error naming what exceeded which
//! limit and the flag that raises it. Every fixture is built at
//! run time in a temporary directory.

use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::measured;
use measured::{offlux, Measured, TEN_SECONDS};

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

/// A repository whose bootstrap Kustomization applies `apps/`.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".git")).expect("mkdir");
    write(
        dir.path(),
        &[(
            "clusters/dev/apps.yaml",
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
        )],
    );
    dir
}

fn test_run(root: &Path) -> Measured {
    offlux(&["test".as_ref(), "--path".as_ref(), root.as_os_str()])
}

/// `apps/` holds a HelmRelease of the local chart `charts/bomb` with `template` as its one
/// template.
fn chart_release(repo: &Path, template: &str) {
    write(
        repo,
        &[
            ("apps/kustomization.yaml", "resources: [release.yaml]\n"),
            ("apps/release.yaml", "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: bomb\n  namespace: flux-system\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: ./charts/bomb\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n"),
            ("charts/bomb/Chart.yaml", "apiVersion: v2\nname: bomb\nversion: 1.0.0\n"),
            ("charts/bomb/templates/cm.yaml", template),
        ],
    );
}

/// `apps/` holds a ResourceSet whose `resourcesTemplate` is `template` (in `<< >>`).
fn resource_set(repo: &Path, inputs: &str, template: &str) {
    let indented: String = template.lines().map(|l| format!("    {l}\n")).collect();
    write(
        repo,
        &[
            ("apps/kustomization.yaml", "resources: [set.yaml]\n"),
            (
                "apps/set.yaml",
                &format!("apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata:\n  name: bomb\n  namespace: flux-system\nspec:\n  inputs: {inputs}\n  resourcesTemplate: |\n{indented}"),
            ),
        ],
    );
}

// Template execution: a step budget, expensive functions charged.

const STEP_LIMIT: &str =
    "template execution steps exceed the limit of 20000000 (raise it with `--max-template-steps`)";

#[test]
fn nested_ranges_in_a_chart_stop_at_the_step_budget() {
    let repo = repository();
    chart_release(
        repo.path(),
        "{{- range until 100000 }}{{- range until 100000 }}{{ end }}{{ end }}\n",
    );
    let run = test_run(repo.path());
    run.assert_bounded_failure(STEP_LIMIT);
    assert!(run.stdout.contains("cm.yaml:1:"), "located: {}", run.stdout);
}

#[test]
fn a_range_over_a_huge_int_neither_allocates_nor_runs_on() {
    let repo = repository();
    chart_release(repo.path(), "{{- range 100000000000 }}{{ end }}\n");
    test_run(repo.path()).assert_bounded_failure(STEP_LIMIT);
}

#[test]
fn key_generation_in_a_loop_is_charged_by_its_cost() {
    let repo = repository();
    chart_release(
        repo.path(),
        "{{- range until 2000 }}{{ genPrivateKey \"rsa\" | len }}{{ end }}\n",
    );
    test_run(repo.path()).assert_bounded_failure(STEP_LIMIT);
}

#[test]
fn the_step_budget_is_raised_by_its_flag() {
    let repo = repository();
    // 30 000 iterations of three steps: over a budget of 50 000, under the default.
    chart_release(
        repo.path(),
        "{{- range $i := until 30000 }}{{ if eq $i -1 }}x{{ end }}{{ end }}\n",
    );
    let root = repo.path().as_os_str();
    let low = offlux(&[
        "test".as_ref(),
        "--path".as_ref(),
        root,
        "--max-template-steps".as_ref(),
        "50000".as_ref(),
    ]);
    low.assert_bounded_failure("exceed the limit of 50000 (raise it with `--max-template-steps`)");
    let default = test_run(repo.path());
    assert_eq!(default.code, Some(0), "{}", default.all());
}

#[test]
fn nested_ranges_in_a_resource_set_stop_at_the_step_budget() {
    let repo = repository();
    resource_set(
        repo.path(),
        "[{id: a}]",
        "<<- range until 100000 >><<- range until 100000 >><< end >><< end >>\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n",
    );
    test_run(repo.path()).assert_bounded_failure(STEP_LIMIT);
}

/// Ctrl-C stops a template in the middle of its work: the executor checks the run's flag as it
/// counts steps, so the run ends with "interrupted" instead of running its loop out.
#[test]
fn an_interrupt_stops_a_running_template() {
    let repo = repository();
    chart_release(
        repo.path(),
        "{{- range until 100000 }}{{- range until 100000 }}{{ end }}{{ end }}\n",
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_offlux"))
        .args([
            "render",
            "--max-template-steps",
            "100000000000000",
            "--path",
        ])
        .arg(repo.path())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("offlux starts");
    // Long enough for the render to be inside the loop.
    std::thread::sleep(Duration::from_secs(2));
    let signalled = Instant::now();
    // SAFETY: the child is ours and running.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr);
    }
    let status = child.wait().expect("waits");
    assert!(
        signalled.elapsed() < Duration::from_secs(5),
        "took {:?} after the interrupt",
        signalled.elapsed()
    );
    // The shell's status for SIGINT (`CliError::Interrupted`), as every verb ends on a signal.
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
}

/// `.helmignore` patterns match as Go's `filepath.Match` does, chunk by chunk, so a pattern of
/// many stars against a long file name costs the product of their lengths, not an exponential.
#[test]
fn a_helmignore_of_many_stars_matches_in_time() {
    let repo = repository();
    chart_release(
        repo.path(),
        "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: ok\n",
    );
    let stars = format!("{}b\n", "*a".repeat(30));
    let long_name = format!("charts/bomb/files/{}", "a".repeat(200));
    write(
        repo.path(),
        &[
            ("charts/bomb/.helmignore", &stars),
            (&long_name, "x"),
            (&format!("{long_name}c"), "x"),
        ],
    );
    let run = test_run(repo.path());
    assert_eq!(run.code, Some(0), "{}", run.all());
    assert!(run.cpu < TEN_SECONDS, "took {:?} of CPU", run.cpu);
}

// Kustomize: a DAG of bases.

/// 46 one-line kustomizations, each naming the next two: kustomize accumulates 2^n directories;
/// offlux reuses a directory's result within the build, so it ends at once with the same output.
#[test]
fn a_dag_of_kustomize_bases_builds_each_directory_once() {
    let repo = repository();
    let mut files = vec![
        (
            "apps/kustomization.yaml".to_owned(),
            "resources: [cm.yaml, dag/k0]\n".to_owned(),
        ),
        (
            "apps/cm.yaml".to_owned(),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n  namespace: default\n"
                .to_owned(),
        ),
    ];
    for i in 0..46 {
        let text = if i < 44 {
            format!("resources: [../k{}, ../k{}]\n", i + 1, i + 2)
        } else {
            "resources: []\n".to_owned()
        };
        files.push((format!("apps/dag/k{i}/kustomization.yaml"), text));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write(repo.path(), &files);
    let run = offlux(&[
        "build".as_ref(),
        "ks".as_ref(),
        "apps".as_ref(),
        "-n".as_ref(),
        "flux-system".as_ref(),
        "--path".as_ref(),
        repo.path().as_os_str(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.all());
    assert!(run.stdout.contains("name: plain"), "{}", run.all());
    run.assert_cpu_and_memory();
}

// Symlink DAGs.

/// Under `base`, directories `d0`..`d{depth}`, each but the last holding two symlinks (`a`, `b`)
/// to the next: 2^depth paths to the last.
#[cfg(unix)]
fn symlink_dag(base: &Path, depth: usize) {
    for i in 0..=depth {
        std::fs::create_dir_all(base.join(format!("d{i}"))).expect("mkdir");
    }
    for i in 0..depth {
        for name in ["a", "b"] {
            let next = format!("../d{}", i + 1);
            std::os::unix::fs::symlink(next, base.join(format!("d{i}/{name}"))).expect("symlink");
        }
    }
}

/// The repository walk remembers the real directories it walked, so 32 levels of doubled
/// symlinks cost a bounded number of walks (with a warning), and the chart loader counts each
/// directory it walks against the chart's entry cap.
#[cfg(unix)]
#[test]
fn symlink_dags_in_the_repository_and_a_chart_end_in_time() {
    let repo = repository();
    chart_release(
        repo.path(),
        "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: ok\n",
    );
    symlink_dag(&repo.path().join("dag"), 32);
    let run = test_run(repo.path());
    assert_eq!(run.code, Some(0), "{}", run.all());
    assert!(run.all().contains("not walked again"), "{}", run.all());
    run.assert_cpu_and_memory();
    symlink_dag(&repo.path().join("charts/bomb/dag"), 32);
    let run = test_run(repo.path());
    run.assert_bounded_failure("chart holds more than 20000 files (the entry limit)");
}

// Objects the run's producers hold.

/// Two ResourceSets of 600 objects each: under a budget of 1 000 objects held, the second to
/// publish fails, naming the limit and its flag; with the budget raised both pass.
#[test]
fn objects_held_over_the_run_stop_at_their_budget() {
    let repo = repository();
    let set = |name: &str| {
        format!("apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  inputs: [{{id: a}}]\n  resourcesTemplate: |\n    <<- range $i := until 600 >>\n    ---\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: {name}-<< $i >>\n      namespace: default\n    <<- end >>\n")
    };
    write(
        repo.path(),
        &[
            (
                "apps/kustomization.yaml",
                "resources: [one.yaml, two.yaml]\n",
            ),
            ("apps/one.yaml", &set("one")),
            ("apps/two.yaml", &set("two")),
        ],
    );
    let run = |limit: &str| {
        offlux(&[
            "test".as_ref(),
            "--max-rendered-objects".as_ref(),
            limit.as_ref(),
            "--path".as_ref(),
            repo.path().as_os_str(),
        ])
    };
    run("1000").assert_bounded_failure(
        "rendered objects exceed the limit of 1000 (raise it with `--max-rendered-objects`)",
    );
    let raised = run("2000");
    assert_eq!(raised.code, Some(0), "{}", raised.all());
}

const OBJECT_LIMIT: &str =
    "rendered objects exceed the limit of 50000 (raise it with `--max-rendered-objects`)";

/// The examples under the default budget: a few hundred bytes of ResourceSet yielding
/// 200 000 objects, and four six-line chart templates yielding 100 000 each, stop before the
/// objects are parsed (the documents are counted on the rendered text).
#[test]
fn object_bombs_stop_at_the_default_budget_before_parsing() {
    let repo = repository();
    resource_set(
        repo.path(),
        "[{id: a}]",
        "<<- range $i := until 200000 >>\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-<< $i >>\n  namespace: default\n<<- end >>",
    );
    test_run(repo.path()).assert_bounded_failure(OBJECT_LIMIT);
    let repo = repository();
    chart_release(repo.path(), "");
    for name in ["a", "b", "c", "d"] {
        write(
            repo.path(),
            &[(
                &format!("charts/bomb/templates/{name}.yaml"),
                &format!("{{{{- range $i := until 100000 }}}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}-{{{{ $i }}}}\n{{{{- end }}}}\n"),
            )],
        );
    }
    test_run(repo.path()).assert_bounded_failure(OBJECT_LIMIT);
}

// Bytes templates render over the run.

/// Ten chart templates of 30 MiB each, every one under the per-execution output cap (64 MiB):
/// together they pass the run's budget of rendered bytes, which names the template it stopped
/// at and the flag.
#[test]
fn many_large_templates_stop_at_the_rendered_bytes_budget() {
    let repo = repository();
    chart_release(repo.path(), "");
    for n in 0..10 {
        write(
            repo.path(),
            &[(
                &format!("charts/bomb/templates/t{n}.yaml"),
                "{{- $s := repeat 1024 \"x\" }}# {{ range until 30720 }}{{ $s }}{{ end }}\n",
            )],
        );
    }
    let run = test_run(repo.path());
    run.assert_bounded_failure(
        "bytes rendered by templates over the run exceed the limit of 268435456 (raise it with `--max-rendered-bytes`)",
    );
    assert!(run.all().contains("templates/t"), "{}", run.all());
}

/// Two ResourceSets of about 48 KB of text each: under a budget of 60 000 bytes the second
/// fails; raised, both pass.
#[test]
fn rendered_bytes_add_up_over_resource_sets_and_the_flag_raises_the_limit() {
    let repo = repository();
    let set = |name: &str| {
        format!("apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  inputs: [{{id: a}}]\n  resourcesTemplate: |\n    <<- range $i := until 600 >>\n    ---\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: {name}-<< $i >>\n      namespace: default\n    <<- end >>\n")
    };
    write(
        repo.path(),
        &[
            (
                "apps/kustomization.yaml",
                "resources: [one.yaml, two.yaml]\n",
            ),
            ("apps/one.yaml", &set("one")),
            ("apps/two.yaml", &set("two")),
        ],
    );
    let run = |limit: &str| {
        offlux(&[
            "test".as_ref(),
            "--max-rendered-bytes".as_ref(),
            limit.as_ref(),
            "--path".as_ref(),
            repo.path().as_os_str(),
        ])
    };
    run("60000").assert_bounded_failure(
        "bytes rendered by templates over the run exceed the limit of 60000 (raise it with `--max-rendered-bytes`)",
    );
    let raised = run("200000");
    assert_eq!(raised.code, Some(0), "{}", raised.all());
}

// Alias expansion over the run.

/// One document expanding to 900 010 nodes from six lines of aliases: under the per-document
/// limit (1 000 000).
fn alias_document() -> String {
    let mut text = String::from(
        "apiVersion: example.com/v1\nkind: Bomb\nmetadata:\n  name: bomb\nspec:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n",
    );
    for (name, from) in [("b", "a"), ("c", "b"), ("d", "c"), ("e", "d")] {
        let items = vec![format!("*{from}"); 10].join(", ");
        text.push_str(&format!("  {name}: &{name} [{items}]\n"));
    }
    text.push_str(&format!("  f: [{}]\n", ["*e"; 9].join(", ")));
    text
}

/// The example: a file of a few kilobytes whose documents each stay under the
/// per-document limit, and a second file like it, add up past the run's budget, with the file
/// and line named; the Kustomization that applies them (Flux generates its kustomization.yaml)
/// fails.
#[test]
fn alias_documents_add_up_to_the_run_budget() {
    let repo = repository();
    let document = alias_document();
    let many = [document.as_str(); 10].join("---\n");
    assert!(many.len() < 10_000, "{} bytes", many.len());
    write(
        repo.path(),
        &[
            ("apps/aliases.yaml", &many),
            ("apps/more-aliases.yaml", &many),
        ],
    );
    let run = test_run(repo.path());
    run.assert_bounded_failure(
        "YAML nodes expanded from aliases over the run exceed the limit of 2000000 (raise it with `--max-alias-nodes`)",
    );
    assert!(run.all().contains("aliases.yaml"), "{}", run.all());
}

/// Two files of one document each (1 110 alias nodes each): a budget of 2 000 stops the
/// second, a raised one lets both through.
#[test]
fn alias_files_add_up_and_the_flag_raises_the_limit() {
    let repo = repository();
    let document = |name: &str| {
        format!("apiVersion: example.com/v1\nkind: Bomb\nmetadata:\n  name: {name}\nspec:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n  c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n")
    };
    write(
        repo.path(),
        &[
            ("apps/one.yaml", &document("one")),
            ("apps/two.yaml", &document("two")),
        ],
    );
    let run = |limit: &str| {
        offlux(&[
            "test".as_ref(),
            "--max-alias-nodes".as_ref(),
            limit.as_ref(),
            "--path".as_ref(),
            repo.path().as_os_str(),
        ])
    };
    run("2000").assert_bounded_failure(
        "YAML nodes expanded from aliases over the run exceed the limit of 2000 (raise it with `--max-alias-nodes`)",
    );
    let raised = run("3000");
    assert_eq!(raised.code, Some(0), "{}", raised.all());
}

/// Three lines whose aliases expand to 1 110 nodes.
const SMALL_ALIASES: [&str; 3] = [
    "a: &a [x, x, x, x, x, x, x, x, x, x]",
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
    "c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
];

/// `test` on `repo` fails at an alias budget of 2 000, naming the budget and `producer` (what
/// applies the aliases), within the time and memory bounds; at 10 000 it passes. `what` is
/// printed with the cost.
#[allow(
    clippy::print_stderr,
    reason = "a test's helper prints the cost it measured, as the tests do"
)]
fn stops_at_2000_alias_nodes_and_passes_at_10000(repo: &Path, what: &str, producer: &str) {
    let stopped = with_alias_limit(repo, "2000");
    eprintln!("{what}: {}", stopped.cost());
    stopped.assert_bounded_failure(
        "YAML nodes expanded from aliases over the run exceed the limit of 2000 (raise it with `--max-alias-nodes`)",
    );
    assert!(stopped.all().contains(producer), "{}", stopped.all());
    let raised = with_alias_limit(repo, "10000");
    assert_eq!(raised.code, Some(0), "{}", raised.all());
}

/// Runs `test` on `repo` with `--max-alias-nodes LIMIT`.
fn with_alias_limit(repo: &Path, limit: &str) -> Measured {
    offlux(&[
        "test".as_ref(),
        "--max-alias-nodes".as_ref(),
        limit.as_ref(),
        "--path".as_ref(),
        repo.as_os_str(),
    ])
}

/// What a ResourceSet renders is parsed under the run's alias budget too: three input sets,
/// each rendering a document of 1 110 alias nodes, pass a budget of 2 000; raised, they build.
#[test]
fn resource_set_output_is_charged_to_the_alias_budget() {
    let repo = repository();
    let template = format!(
        "apiVersion: example.com/v1\nkind: Bomb\nmetadata:\n  name: bomb-<< inputs.n >>\n  namespace: default\nspec:\n  {}\n",
        SMALL_ALIASES.join("\n  ")
    );
    resource_set(
        repo.path(),
        "[{n: \"1\"}, {n: \"2\"}, {n: \"3\"}]",
        &template,
    );
    stops_at_2000_alias_nodes_and_passes_at_10000(
        repo.path(),
        "ResourceSet output over the alias budget",
        "ResourceSet",
    );
}

/// postBuild substitution reads each substituted document back as YAML (as kustomize-controller's
/// envsubst round trip does), so a variable can bring anchors and aliases into every document it
/// lands in: three documents of 1 110 alias nodes from one variable pass a budget of 2 000 and
/// the Kustomization fails; raised, it builds.
#[test]
fn substituted_documents_are_charged_to_the_alias_budget() {
    let repo = repository();
    let bomb = "{a: &a [x, x, x, x, x, x, x, x, x, x], b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a], c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]}";
    let documents: Vec<String> = (1..=3)
        .map(|n| {
            format!("apiVersion: example.com/v1\nkind: Bomb\nmetadata:\n  name: bomb-{n}\n  namespace: default\nspec: ${{BOMB}}\n")
        })
        .collect();
    write(
        repo.path(),
        &[
            (
                "clusters/dev/apps.yaml",
                &format!(
                    "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  postBuild:\n    substitute:\n      BOMB: '{bomb}'\n"
                ),
            ),
            ("apps/bombs.yaml", &documents.join("---\n")),
        ],
    );
    stops_at_2000_alias_nodes_and_passes_at_10000(
        repo.path(),
        "substituted documents over the alias budget",
        "Kustomization",
    );
}

/// A chart's own YAML (values.yaml here) is read under the run's alias budget: three groups of
/// 1 110 alias nodes in one values file pass a budget of 2 000 and the release fails; raised,
/// it renders.
#[test]
fn chart_values_files_are_charged_to_the_alias_budget() {
    let repo = repository();
    chart_release(
        repo.path(),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
    );
    let values: String = (1..=3)
        .flat_map(|n| {
            SMALL_ALIASES.iter().map(move |line| {
                line.replace("&a", &format!("&a{n}"))
                    .replace("*a", &format!("*a{n}"))
                    .replace("&b", &format!("&b{n}"))
                    .replace("*b", &format!("*b{n}"))
                    .replacen(':', &format!("{n}:"), 1)
            })
        })
        .map(|line| line + "\n")
        .collect();
    write(repo.path(), &[("charts/bomb/values.yaml", &values)]);
    stops_at_2000_alias_nodes_and_passes_at_10000(
        repo.path(),
        "a chart's values over the alias budget",
        "HelmRelease",
    );
}

/// A kustomization's inline patches are read under the run's alias budget: three patches of
/// 1 110 alias nodes each pass a budget of 2 000 and the Kustomization fails; raised, it builds.
#[test]
fn inline_patches_are_charged_to_the_alias_budget() {
    let repo = repository();
    let patches: String = (1..=3)
        .map(|n| {
            let body: String = SMALL_ALIASES
                .iter()
                .map(|line| format!("          {}\n", line.replacen(':', &format!("{n}:"), 1)))
                .collect();
            format!("  - patch: |-\n      apiVersion: example.com/v1\n      kind: Bomb\n      metadata:\n        name: bomb\n      spec:\n        p{n}:\n{body}")
        })
        .collect();
    write(
        repo.path(),
        &[
            (
                "apps/kustomization.yaml",
                &format!("resources: [bomb.yaml]\npatches:\n{patches}"),
            ),
            (
                "apps/bomb.yaml",
                "apiVersion: example.com/v1\nkind: Bomb\nmetadata:\n  name: bomb\n  namespace: default\n",
            ),
        ],
    );
    stops_at_2000_alias_nodes_and_passes_at_10000(
        repo.path(),
        "inline patches over the alias budget",
        "Kustomization",
    );
}

/// `fromYaml` (and `fromYamlArray`) parse under the run's alias budget: three calls of 1 110
/// alias nodes each pass a budget of 2 000, and the template fails (a YAML error would give
/// an `Error` value instead); raised, the chart renders.
#[test]
fn from_yaml_is_charged_to_the_alias_budget() {
    let repo = repository();
    let text = SMALL_ALIASES.join("\\n");
    chart_release(
        repo.path(),
        &format!(
            "{{{{- range until 3 }}}}{{{{- $x := fromYaml \"{text}\" }}}}{{{{- $y := fromYamlArray \"[{{{{}}}}]\" }}}}{{{{- end }}}}\nkind: ConfigMap\napiVersion: v1\nmetadata:\n  name: ok\n"
        ),
    );
    let stopped = with_alias_limit(repo.path(), "2000");
    eprintln!("fromYaml over the alias budget: {}", stopped.cost());
    stopped.assert_bounded_failure(
        "YAML nodes expanded from aliases over the run exceed the limit of 2000 (raise it with `--max-alias-nodes`)",
    );
    assert!(
        stopped
            .all()
            .contains("error calling fromYaml: yaml: line "),
        "{}",
        stopped.all()
    );
    let raised = with_alias_limit(repo.path(), "10000");
    assert_eq!(raised.code, Some(0), "{}", raised.all());
}

// Bytes extracted from archives and git objects; charts held.

/// A chart archive `big` 1.0.0 whose one `files/zeros` holds `zeros` zero bytes.
fn zeros_chart(zeros: usize) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    {
        let mut tar = tar::Builder::new(&mut gz);
        let mut add = |name: &str, data: &mut dyn std::io::Read, size: usize| {
            let mut header = tar::Header::new_gnu();
            header.set_size(size as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, name, data).expect("append");
        };
        let chart = b"apiVersion: v2\nname: big\nversion: 1.0.0\n";
        add("big/Chart.yaml", &mut &chart[..], chart.len());
        let template = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n";
        add("big/templates/cm.yaml", &mut &template[..], template.len());
        add(
            "big/files/zeros",
            &mut std::io::repeat(0).take(zeros as u64),
            zeros,
        );
        tar.finish().expect("tar");
    }
    gz.finish().expect("gzip")
}

/// `apps/` holds `count` HelmReleases, each of its own copy of `archive` (`charts/cN.tgz`).
fn chart_releases(repo: &Path, archive: &[u8], count: usize) {
    let mut names = Vec::new();
    for n in 0..count {
        std::fs::create_dir_all(repo.join("charts")).expect("mkdir");
        std::fs::write(repo.join(format!("charts/c{n}.tgz")), archive).expect("write");
        names.push(format!("r{n}.yaml"));
        write(
            repo,
            &[(
                &format!("apps/r{n}.yaml"),
                &format!("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: r{n}\n  namespace: flux-system\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: ./charts/c{n}.tgz\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n"),
            )],
        );
    }
    write(
        repo,
        &[(
            "apps/kustomization.yaml",
            &format!("resources: [{}]\n", names.join(", ")),
        )],
    );
}

/// The ten 255 KB charts, each unpacking to 250 MiB (under the per-chart 256 MiB):
/// at the defaults the run stops at the budget of bytes extracted; with it raised, every
/// release renders while the loaded charts stay within their budget (a chart no render holds is
/// let go), so the run ends within 1 GB (it took 3.7 GB when every chart stayed loaded). Two
/// workers: a load is charged as it inflates, before each file's data, so a second load waits
/// for room instead of inflating beside a held chart (charged only once loaded, two workers
/// peaked at 0.79 to 1.07 GB).
#[test]
fn ten_chart_archives_stop_at_the_extracted_bytes_budget_and_are_not_all_held() {
    let repo = repository();
    let archive = zeros_chart(250 << 20);
    assert!(archive.len() < 300_000, "{} bytes", archive.len());
    chart_releases(repo.path(), &archive, 10);
    let run = offlux(&[
        "test".as_ref(),
        "--concurrency".as_ref(),
        "2".as_ref(),
        "--path".as_ref(),
        repo.path().as_os_str(),
    ]);
    eprintln!("ten charts, the defaults: {}", run.cost());
    run.assert_bounded_failure(
        "bytes extracted from archives and git objects over the run exceed the limit of 1073741824 (raise it with `--max-extracted-bytes`)",
    );
    assert!(run.all().contains("files/zeros"), "{}", run.all());

    let raised = offlux(&[
        "test".as_ref(),
        "--concurrency".as_ref(),
        "2".as_ref(),
        "--max-extracted-bytes".as_ref(),
        "4294967296".as_ref(),
        "--path".as_ref(),
        repo.path().as_os_str(),
    ]);
    eprintln!("ten charts, extracted bytes raised: {}", raised.cost());
    assert_eq!(raised.code, Some(0), "{}", raised.all());
    raised.assert_cpu_and_memory();
}

/// A chart alone bigger than the budget of loaded charts fails, naming the chart and the flag;
/// two charts that fit one at a time both render, whatever the concurrency.
#[test]
fn a_chart_over_the_loaded_chart_budget_fails_and_others_wait_their_turn() {
    let repo = repository();
    chart_releases(repo.path(), &zeros_chart(4 << 20), 2);
    let run = |limit: &str, concurrency: &str| {
        offlux(&[
            "test".as_ref(),
            "--max-loaded-chart-bytes".as_ref(),
            limit.as_ref(),
            "--concurrency".as_ref(),
            concurrency.as_ref(),
            "--path".as_ref(),
            repo.path().as_os_str(),
        ])
    };
    // Held twice while rendered (loaded, and copied into `.Files`): 8 MiB each.
    run("6000000", "2").assert_bounded_failure(
        "bytes of loaded charts held at once exceed the limit of 6000000 (raise it with `--max-loaded-chart-bytes`)",
    );
    for concurrency in ["1", "2"] {
        let fits = run("10000000", concurrency);
        assert_eq!(fits.code, Some(0), "{}", fits.all());
    }
}

/// Bytes extracted from archives add up over charts: a budget of 6 MB stops the second of two
/// 4 MiB charts; raised, both load.
#[test]
fn extracted_bytes_add_up_over_charts_and_the_flag_raises_the_limit() {
    let repo = repository();
    chart_releases(repo.path(), &zeros_chart(4 << 20), 2);
    let run = |limit: &str| {
        offlux(&[
            "test".as_ref(),
            "--max-extracted-bytes".as_ref(),
            limit.as_ref(),
            "--path".as_ref(),
            repo.path().as_os_str(),
        ])
    };
    run("6000000").assert_bounded_failure(
        "bytes extracted from archives and git objects over the run exceed the limit of 6000000 (raise it with `--max-extracted-bytes`)",
    );
    let raised = run("10000000");
    assert_eq!(raised.code, Some(0), "{}", raised.all());
}

/// A git repository whose one commit (`HEAD`) holds `apps/big.yaml`, a 2 MB ConfigMap applied
/// by the bootstrap Kustomization; `None` without a `git` binary to make it with.
fn git_repository_with_a_big_file() -> Option<tempfile::TempDir> {
    let git_found = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok();
    if !git_found {
        return None;
    }
    let repo = tempfile::tempdir().expect("tempdir");
    write(
        repo.path(),
        &[
            ("clusters/dev/apps.yaml", "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"),
            ("apps/big.yaml", &format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: default\ndata:\n  big: {}\n", "x".repeat(2_000_000))),
        ],
    );
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .current_dir(repo.path())
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
            .expect("git runs");
        assert!(status.status.success(), "{status:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "base"]);
    Some(repo)
}

/// The short id of `HEAD` in `repo`, as offlux names a revision (12 hex digits).
fn short_head(repo: &Path) -> String {
    let out = std::process::Command::new("git")
        .current_dir(repo)
        .args(["rev-parse", "HEAD"])
        .output()
        .expect("git runs");
    String::from_utf8_lossy(&out.stdout).trim()[..12].to_string()
}

const GIT_LIMIT: &str = "bytes extracted from archives and git objects over the run exceed the limit of 1000000 (raise it with `--max-extracted-bytes`)";

/// `diff` reads the base revision's objects under the same budget: a 2 MB blob in the base
/// stops a budget of 1 MB, naming the file, the revision and the flag.
#[test]
fn git_objects_diff_reads_are_charged_to_the_extracted_bytes_budget() {
    let Some(repo) = git_repository_with_a_big_file() else {
        eprintln!("skipped: no `git` binary to make test repositories with");
        return;
    };
    let run = offlux(&[
        "diff".as_ref(),
        "--base".as_ref(),
        "HEAD".as_ref(),
        "--max-extracted-bytes".as_ref(),
        "1000000".as_ref(),
        "--path".as_ref(),
        repo.path().as_os_str(),
    ]);
    eprintln!("diff over the git budget: {}", run.cost());
    let all = run.all();
    assert_ne!(run.code, Some(0), "{all}");
    let named = format!("`apps/big.yaml` at revision {}", short_head(repo.path()));
    assert!(all.contains(&named), "expected `{named}` in:\n{all}");
    assert!(all.contains(GIT_LIMIT), "{all}");
    run.assert_cpu_and_memory();
}

/// `--changed-only` reads the base revision to find what changed, under the same budget as
/// `diff`: the 2 MB blob stops a budget of 1 MB, naming the file and the revision; raised, the
/// run goes on (nothing changed: nothing is reconciled).
#[test]
fn git_objects_changed_only_reads_are_charged_to_the_extracted_bytes_budget() {
    let Some(repo) = git_repository_with_a_big_file() else {
        eprintln!("skipped: no `git` binary to make test repositories with");
        return;
    };
    // An unchanged working file is known by its hash, with no object read; an edited one's
    // base content is read from git, and that is what the budget counts.
    let big = repo.path().join("apps/big.yaml");
    let text = std::fs::read_to_string(&big).expect("big.yaml");
    std::fs::write(&big, text.replace("name: big", "name: bigger")).expect("edit");
    let run = |limit: &str| {
        offlux(&[
            "test".as_ref(),
            "--changed-only".as_ref(),
            "--base".as_ref(),
            "HEAD".as_ref(),
            "--max-extracted-bytes".as_ref(),
            limit.as_ref(),
            "--path".as_ref(),
            repo.path().as_os_str(),
        ])
    };
    let stopped = run("1000000");
    eprintln!("--changed-only over the git budget: {}", stopped.cost());
    let all = stopped.all();
    assert_ne!(stopped.code, Some(0), "{all}");
    let named = format!("`apps/big.yaml` at revision {}", short_head(repo.path()));
    assert!(all.contains(&named), "expected `{named}` in:\n{all}");
    assert!(all.contains(GIT_LIMIT), "{all}");
    stopped.assert_cpu_and_memory();
    let raised = run("10000000");
    assert_eq!(raised.code, Some(0), "{}", raised.all());
}
