//! `.offlux.yaml` applied to a command: the settings the command line and the environment left
//! unset are taken from the file (`crate::config_file` reads and checks it), and `config show`
//! says where each came from.

use std::path::Path;

use crate::config_file::{flag, is_null, read, schema, strings, FILE};
use crate::yaml::Node;

/// Where a run setting came from, for `offlux config show`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    CommandLine,
    Environment,
    /// The file, at this line.
    File(u32),
    Default,
}

/// One run setting as the run takes it: its key, its value as shown, and where it came from.
#[derive(Clone, Debug)]
pub(crate) struct Setting {
    pub key: &'static str,
    pub value: String,
    pub origin: Origin,
}

/// Where the verb's flag `id` got its value: `None` when neither the command line nor the
/// environment gave it.
fn origin_of(matches: &clap::ArgMatches, id: &str) -> Option<Origin> {
    match matches.value_source(id) {
        Some(clap::parser::ValueSource::CommandLine) => Some(Origin::CommandLine),
        Some(clap::parser::ValueSource::EnvVariable) => Some(Origin::Environment),
        _ => None,
    }
}

/// Fills the settings of `run` that the command line and the environment left unset from the
/// repository's `.offlux.yaml` (flags and `OFFLUX_*` win), and says where each came from.
/// `matches` are the verb's (where `run`'s flags were parsed). A path the file gives is relative
/// to the repository root and must stay inside it. Without a repository at `--path`, nothing is
/// read: the verb reports that.
pub(crate) fn apply(
    run: &mut super::run_args::RunArgs,
    matches: &clap::ArgMatches,
) -> Result<Vec<Setting>, String> {
    let mut options = crate::discovery::Options::new(&run.repo.path);
    options.root = run.repo.root.clone();
    let Ok(root) = crate::discovery::repository_root(&options) else {
        return Ok(Vec::new());
    };
    let config = read(&root)?;
    let file = root.join(FILE);
    let given = |id: &str| origin_of(matches, id);
    let entry = |name: &str| {
        config
            .as_ref()
            .and_then(Node::as_mapping)
            .and_then(|m| m.entry(name))
            .filter(|e| !is_null(&e.value))
    };
    let inside = |name: &str, value: &str, line: u32| -> Result<std::path::PathBuf, String> {
        crate::config_file::path_inside(&root, value)
            .map_err(|refused| format!("{}:{line}: `{name}` {refused}", file.display()))
    };
    let mut settings = Vec::new();
    let mut record = |key: &'static str, value: String, origin: Origin| {
        settings.push(Setting { key, value, origin })
    };

    // path: the file is found from where the command starts, so a path it gives also fixes the
    // root (the file's own directory).
    match (given("path"), entry("path")) {
        (Some(origin), _) => record("path", run.repo.path.display().to_string(), origin),
        (None, Some(e)) => {
            let text = e.value.as_str().unwrap_or_default();
            run.repo.path = inside("path", text, e.key.pos.line)?;
            run.repo.root = Some(root.clone());
            record("path", text.to_owned(), Origin::File(e.key.pos.line));
        }
        (None, None) => record("path", run.repo.path.display().to_string(), Origin::Default),
    }
    match (given("chart_cache"), entry("chart-cache")) {
        (Some(origin), _) => record(
            "chart-cache",
            shown_path(run.chart_cache.as_deref()),
            origin,
        ),
        (None, Some(e)) => {
            let text = e.value.as_str().unwrap_or_default();
            run.chart_cache = Some(inside("chart-cache", text, e.key.pos.line)?);
            record("chart-cache", text.to_owned(), Origin::File(e.key.pos.line));
        }
        (None, None) => record("chart-cache", "none".into(), Origin::Default),
    }
    for (key, id, slot) in [
        ("offline", "offline", &mut run.offline),
        (
            "allow-missing-sources",
            "allow_missing_sources",
            &mut run.allow_missing_sources,
        ),
        (
            "strict-substitutions",
            "strict_substitutions",
            &mut run.strict_substitutions,
        ),
    ] {
        match (given(id), entry(key)) {
            (Some(origin), _) => record(key, slot.to_string(), origin),
            (None, Some(e)) => {
                *slot = flag(&e.value).unwrap_or(false);
                record(key, slot.to_string(), Origin::File(e.key.pos.line));
            }
            (None, None) => record(key, slot.to_string(), Origin::Default),
        }
    }
    match (given("kube_version"), entry("kube-version")) {
        (Some(origin), _) => record(
            "kube-version",
            run.kube_version.clone().unwrap_or_default(),
            origin,
        ),
        (None, Some(e)) => {
            let text = e.value.as_str().unwrap_or_default().to_owned();
            run.kube_version = Some(text.clone());
            record("kube-version", text, Origin::File(e.key.pos.line));
        }
        (None, None) => record(
            "kube-version",
            format!(
                "{} (Helm's default)",
                crate::helm::KubeVersion::default().version
            ),
            Origin::Default,
        ),
    }
    match (given("secret_producers"), entry("secret-producers")) {
        (Some(origin), _) => record("secret-producers", run.secret_producers.join(","), origin),
        (None, Some(e)) => {
            run.secret_producers = strings(&e.value);
            record(
                "secret-producers",
                run.secret_producers.join(","),
                Origin::File(e.key.pos.line),
            );
        }
        (None, None) => record("secret-producers", "none".into(), Origin::Default),
    }
    if let Some(e) = entry("sources") {
        let names: Vec<&str> = e
            .value
            .as_mapping()
            .map(|m| m.entries.iter().map(|x| x.key.value.as_str()).collect())
            .unwrap_or_default();
        // `--sources` are taken first and win for the same name (`RunArgs::source_dirs`).
        record("sources", names.join(","), Origin::File(e.key.pos.line));
    }
    Ok(settings)
}

/// Fills `offlux diff`'s comparison settings (`--strip-attr`, `--no-default-strip`) that the
/// command line and the environment left unset from the file's `diff` section. `given` says where
/// a flag's value came from (`None`: not given), by its clap id.
pub(crate) fn apply_diff(
    repo: &super::repo_args::RepoArgs,
    given: &dyn Fn(&str) -> Option<Origin>,
    strip_attributes: &mut Vec<String>,
    no_default_strip: &mut bool,
) -> Result<Vec<Setting>, String> {
    let mut options = crate::discovery::Options::new(&repo.path);
    options.root = repo.root.clone();
    let Ok(root) = crate::discovery::repository_root(&options) else {
        return Ok(Vec::new());
    };
    let config = read(&root)?;
    let entry = |name: &str| {
        config
            .as_ref()
            .and_then(Node::as_mapping)
            .and_then(|m| m.entry("diff"))
            .and_then(|e| e.value.as_mapping())
            .and_then(|m| m.entry(name))
            .filter(|e| !is_null(&e.value))
    };
    let mut settings = Vec::new();
    match (given("strip_attr"), entry("strip-attributes")) {
        (Some(origin), _) => settings.push(Setting {
            key: "diff.strip-attributes",
            value: strip_attributes.join(","),
            origin,
        }),
        (None, Some(e)) => {
            *strip_attributes = strings(&e.value);
            settings.push(Setting {
                key: "diff.strip-attributes",
                value: strip_attributes.join(","),
                origin: Origin::File(e.key.pos.line),
            });
        }
        (None, None) => settings.push(Setting {
            key: "diff.strip-attributes",
            value: "none".into(),
            origin: Origin::Default,
        }),
    }
    match (given("no_default_strip"), entry("default-strip")) {
        (Some(origin), _) => settings.push(Setting {
            key: "diff.default-strip",
            value: (!*no_default_strip).to_string(),
            origin,
        }),
        (None, Some(e)) => {
            *no_default_strip = !flag(&e.value).unwrap_or(true);
            settings.push(Setting {
                key: "diff.default-strip",
                value: (!*no_default_strip).to_string(),
                origin: Origin::File(e.key.pos.line),
            });
        }
        (None, None) => settings.push(Setting {
            key: "diff.default-strip",
            value: "true".into(),
            origin: Origin::Default,
        }),
    }
    Ok(settings)
}

fn shown_path(path: Option<&Path>) -> String {
    path.map_or_else(|| "none".into(), |p| p.display().to_string())
}

/// `offlux config show`: each run setting, its value and where it came from.
pub(crate) fn show(settings: &[Setting], root_file: &Path) -> String {
    let rows: Vec<Vec<String>> = settings
        .iter()
        .map(|s| {
            let origin = match &s.origin {
                Origin::CommandLine => "command line".to_string(),
                Origin::Environment => "environment (OFFLUX_*)".to_string(),
                Origin::File(line) => format!("{}:{line}", root_file.display()),
                Origin::Default => "default".to_string(),
            };
            vec![s.key.to_string(), s.value.clone(), origin]
        })
        .collect();
    crate::reporting::table::render(&["SETTING", "VALUE", "FROM"], &rows)
}

#[derive(clap::Args, Debug)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub what: ConfigCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum ConfigCommand {
    /// Each run setting, its value and where it came from (command line, environment,
    /// `.offlux.yaml` with its line, or the default).
    Show {
        #[command(flatten)]
        run: Box<super::run_args::RunArgs>,
    },
    /// The JSON Schema of `.offlux.yaml` (for the YAML language server: `# yaml-language-server:
    /// $schema=...`).
    Schema,
}

/// The verb's run settings (`RunArgs`), completed by [`apply`]; nothing for a verb without them.
pub(super) fn apply_to(
    command: &mut super::Command,
    matches: &clap::ArgMatches,
) -> Result<Vec<Setting>, String> {
    use super::Command;
    let Some((_, mut verb)) = matches.subcommand() else {
        return Ok(Vec::new());
    };
    let run = match command {
        Command::Get(args) => &mut args.run,
        Command::Test(args) => &mut args.run,
        Command::Validate(args) => &mut args.run,
        Command::Build(args) => &mut args.run,
        Command::Render(args) => &mut args.run,
        Command::Diff(args) => {
            let mut settings = apply(&mut args.run, verb)?;
            let given = |id: &str| origin_of(verb, id);
            settings.extend(apply_diff(
                &args.run.repo,
                &given,
                &mut args.strip_attr,
                &mut args.no_default_strip,
            )?);
            return Ok(settings);
        }
        Command::Config(ConfigArgs {
            what: ConfigCommand::Show { run },
        }) => {
            if let Some((_, show)) = verb.subcommand() {
                verb = show;
            }
            let mut settings = apply(run, verb)?;
            // What `diff` would take from the file (`show` has no diff flags to win over it).
            settings.extend(apply_diff(
                &run.repo,
                &|_| None,
                &mut Vec::new(),
                &mut false,
            )?);
            return Ok(settings);
        }
        Command::Config(_)
        | Command::Init(_)
        | Command::Graph(_)
        | Command::Kustomize(_)
        | Command::Helm(_)
        | Command::Explain(_)
        | Command::Completions(_)
        | Command::Cache(_) => return Ok(Vec::new()),
    };
    apply(run, verb)
}

pub(super) fn run(
    args: &ConfigArgs,
    settings: &[Setting],
    out: &mut super::stdout::Output,
) -> Result<super::exit::ExitStatus, super::exit::CliError> {
    let text = match &args.what {
        ConfigCommand::Show { run } => {
            let mut options = crate::discovery::Options::new(&run.repo.path);
            options.root = run.repo.root.clone();
            let root = crate::discovery::repository_root(&options)
                .map_err(|e| super::exit::CliError::usage(e.to_string(), None))?;
            show(settings, &root.join(FILE))
        }
        ConfigCommand::Schema => serde_json::to_string_pretty(&schema()).unwrap_or_default() + "\n",
    };
    out.write(&text)?;
    Ok(super::exit::ExitStatus::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Result<Option<Node>, String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), text).unwrap();
        read(dir.path()).map_err(|e| e.replace(&dir.path().display().to_string(), "ROOT"))
    }

    #[test]
    fn a_valid_file_is_read_whole() {
        let text = "sources:\n  flux-system: .\nvalidate:\n  severities:\n    OFX106: off\n  \
                    orphans:\n    ignore: [examples/**]\n    entry-points: [clusters/a]\n";
        let node = read_text(text).unwrap().unwrap();
        assert!(node.get_path(&["validate", "orphans", "ignore"]).is_some());
    }

    #[test]
    fn an_absent_file_or_an_empty_one_is_no_setting() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()).unwrap(), None);
        assert!(read_text("").unwrap().is_none_or(|n| is_null(&n)));
        assert!(read_text("validate:\n").is_ok());
    }

    #[test]
    fn a_misspelt_key_names_its_line_and_the_key_meant() {
        assert_eq!(
            read_text("validate:\n  severites:\n    OFX106: off\n").unwrap_err(),
            "ROOT/.offlux.yaml:2: unknown key `validate.severites` (did you mean `severities`?)"
        );
        assert_eq!(
            read_text("sorces:\n  a: b\n").unwrap_err(),
            "ROOT/.offlux.yaml:1: unknown key `sorces` (did you mean `sources`?)"
        );
        assert_eq!(
            read_text("validate:\n  orphans:\n    entrypoints: [a]\n").unwrap_err(),
            "ROOT/.offlux.yaml:3: unknown key `validate.orphans.entrypoints` (did you mean `entry-points`?)"
        );
    }

    #[test]
    fn a_key_nothing_resembles_lists_the_keys_there_are() {
        assert_eq!(
            read_text("x: 1\n").unwrap_err(),
            "ROOT/.offlux.yaml:1: unknown key `x` (offlux knows: path, chart-cache, offline, \
             allow-missing-sources, strict-substitutions, kube-version, secret-producers, sources, \
             diff, validate)"
        );
    }

    #[test]
    fn a_value_of_the_wrong_shape_names_its_line() {
        assert_eq!(
            read_text("validate:\n  severities:\n    OFX106: of\n").unwrap_err(),
            "ROOT/.offlux.yaml:3: `validate.severities.OFX106`: expected error, warning, off, found `of`"
        );
        assert_eq!(
            read_text("validate:\n  orphans:\n    ignore: examples\n").unwrap_err(),
            "ROOT/.offlux.yaml:3: `validate.orphans.ignore` must be a list of paths"
        );
        assert_eq!(
            read_text("sources:\n  a: {dir: x}\n").unwrap_err(),
            "ROOT/.offlux.yaml:2: `sources.a` must be a string"
        );
        assert_eq!(
            read_text("- a\n").unwrap_err(),
            "ROOT/.offlux.yaml:1: the file must be a mapping"
        );
    }

    #[test]
    fn codes_are_checked_where_they_are_written() {
        assert_eq!(
            read_text("validate:\n  severities:\n    OFX999: off\n").unwrap_err(),
            "ROOT/.offlux.yaml:3: `validate.severities.OFX999`: unknown code `OFX999` (`offlux explain` lists them)"
        );
        assert!(read_text("validate:\n  severities:\n    OFX100: off\n")
            .unwrap_err()
            .contains("a producer that fails is always an error"));
    }

    #[test]
    fn one_document_only() {
        assert_eq!(
            read_text("sources: {}\n---\nvalidate: {}\n").unwrap_err(),
            "ROOT/.offlux.yaml:3: a second YAML document: offlux reads one"
        );
    }
}
