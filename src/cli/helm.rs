//! `offlux helm template CHART [RELEASE]`: a drop-in for `helm template` on local charts
//! (a directory or a `.tgz`), rendered by the native Helm engine.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::exit::{CliError, ExitStatus};
use super::stdout::Output;
use crate::helm::{self, KubeVersion, LoadOptions, RenderOptions};
use crate::template::Value;

#[derive(clap::Args, Debug)]
pub struct HelmArgs {
    #[command(subcommand)]
    pub command: HelmCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum HelmCommand {
    /// Render a local chart and print the manifests, as `helm template` does.
    Template(HelmTemplateArgs),
}

#[derive(clap::Args, Debug)]
pub struct HelmTemplateArgs {
    /// The chart: a directory or a packaged `.tgz`.
    pub chart: PathBuf,
    /// The release name.
    #[arg(default_value = "release-name")]
    pub release: String,
    /// The release namespace.
    #[arg(short = 'n', long, default_value = "default")]
    pub namespace: String,
    /// Values files, merged in order (later files win).
    #[arg(short = 'f', long = "values", value_name = "FILE")]
    pub values: Vec<PathBuf>,
    /// Set values (`a.b=c,d[0]=e`), after the values files.
    #[arg(long = "set", value_name = "EXPR")]
    pub set: Vec<String>,
    /// Set string values, after `--set`.
    #[arg(long = "set-string", value_name = "EXPR")]
    pub set_string: Vec<String>,
    /// Print the chart's CRDs (`crds/`) before the manifests.
    #[arg(long)]
    pub include_crds: bool,
    /// Leave hooks out.
    #[arg(long)]
    pub no_hooks: bool,
    /// Leave test hooks out.
    #[arg(long)]
    pub skip_tests: bool,
    /// Do not validate values against `values.schema.json`.
    #[arg(long)]
    pub skip_schema_validation: bool,
    /// The Kubernetes version templates see (default: v1.36.0, as Helm v4.2 assumes).
    #[arg(long, value_name = "VERSION")]
    pub kube_version: Option<String>,
    /// API versions added to `.Capabilities.APIVersions` (comma-separated or repeated).
    #[arg(
        short = 'a',
        long = "api-versions",
        value_name = "VERSION",
        value_delimiter = ','
    )]
    pub api_versions: Vec<String>,
    /// Render as an upgrade (`.Release.IsUpgrade`).
    #[arg(long)]
    pub is_upgrade: bool,
    /// Print only the documents of these templates (paths inside the chart, globs allowed).
    #[arg(short = 's', long = "show-only", value_name = "TEMPLATE")]
    pub show_only: Vec<String>,
    /// Render this many times and print once (for benchmarks: start-up left out).
    #[arg(long, hide = true, default_value_t = 1)]
    pub repeat: u32,
}

pub(super) fn run(args: &HelmArgs, out: &mut Output) -> Result<ExitStatus, CliError> {
    let HelmCommand::Template(args) = &args.command;
    let mut options = RenderOptions::new(&args.release, &args.namespace);
    options.include_crds = args.include_crds;
    options.no_hooks = args.no_hooks;
    options.skip_tests = args.skip_tests;
    options.validate_schema = !args.skip_schema_validation;
    options.release.is_upgrade = args.is_upgrade;
    options.api_versions = args
        .api_versions
        .iter()
        .filter(|v| !v.is_empty())
        .cloned()
        .collect();
    if let Some(version) = &args.kube_version {
        match KubeVersion::parse(version) {
            Ok(v) => options.kube_version = v,
            Err(error) => return Err(CliError::usage(error.to_string(), None)),
        }
    }
    if !args.chart.exists() {
        return Err(CliError::usage(
            format!("chart `{}` does not exist", args.chart.display()),
            Some("give a chart directory or a packaged `.tgz`"),
        ));
    }
    // Values files and `--set` expressions are the command's input: one it cannot use is an
    // input error, as a chart that does not exist is.
    let values = user_values(args).map_err(|message| CliError::usage(message, None))?;
    let chart = load(&args.chart).map_err(|e| CliError::failed(e.to_string()))?;
    for _ in 1..args.repeat {
        // Results are discarded: only the last render is printed.
        let _ = helm::template(chart.clone(), &values, &options);
    }
    let text = helm::template(chart, &values, &options)
        .map(|rendered| rendered.to_text(&options))
        .map_err(|e| CliError::failed(e.to_string()))?;
    let text = if args.show_only.is_empty() {
        text
    } else {
        helm::show_only(&text, &args.show_only).map_err(|e| CliError::failed(e.to_string()))?
    };
    out.write(&text)?;
    Ok(ExitStatus::Success)
}

fn load(path: &std::path::Path) -> Result<helm::Chart, helm::Error> {
    let options = LoadOptions::default();
    if path.is_dir() {
        return helm::load_dir(path, &options);
    }
    let name = path.display().to_string();
    let confine = crate::fsio::Confine {
        root: None,
        max_bytes: options.max_archive_bytes,
    };
    let bytes =
        crate::fsio::read(&crate::fsio::FsFacts::default(), path, confine).map_err(|e| {
            helm::Error::Load {
                chart: name.clone(),
                kind: helm::LoadError::Unreadable(e.to_string()),
            }
        })?;
    helm::load_archive(&name, &bytes, &options)
}

/// Values files in order, then `--set`, then `--set-string`, as Helm merges them.
fn user_values(args: &HelmTemplateArgs) -> Result<Value, String> {
    let mut values = Value::map(BTreeMap::new());
    for file in &args.values {
        let facts = crate::fsio::FsFacts::default();
        let text = crate::fsio::read_to_string(&facts, file, crate::fsio::Confine::anywhere())
            .map_err(|e| format!("reading {e}"))?;
        let name = file.display().to_string();
        let read = helm::values::from_yaml(&text, &name).map_err(|e| e.to_string())?;
        values = helm::values::merge_maps(values, read);
    }
    for expression in &args.set {
        helm::values::apply_set(expression, &mut values, false)
            .map_err(|e| format!("failed parsing --set data: {e}"))?;
    }
    for expression in &args.set_string {
        helm::values::apply_set(expression, &mut values, true)
            .map_err(|e| format!("failed parsing --set-string data: {e}"))?;
    }
    Ok(values)
}
