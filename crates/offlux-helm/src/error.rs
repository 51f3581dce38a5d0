//! The helm engine's errors: what went wrong, and in which chart, file or template.

use std::path::PathBuf;

use super::helmignore::{RuleError, HELMIGNORE};

/// Why a chart could not be loaded or rendered. Messages follow Helm's wording where users know it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Error {
    /// The chart (or one of its subcharts) could not be loaded: which chart, and why.
    #[error("loading chart {chart}: {kind}")]
    Load {
        chart: String,
        #[source]
        kind: LoadError,
    },
    /// Values could not be read, parsed or merged (a `--set` expression, a values file).
    #[error("values: {0}")]
    Values(String),
    /// `values.schema.json` rejected the values; one line per violation.
    #[error(
        "values don't meet the specifications of the schema(s) in the following chart(s):\n{0}"
    )]
    Schema(String),
    /// The chart's `kubeVersion` constraint excludes the target Kubernetes version.
    #[error(
        "chart requires kubeVersion: {required} which is incompatible with Kubernetes {actual}"
    )]
    KubeVersion { required: String, actual: String },
    /// A template failed to parse or execute: Go's message, which names the template and line,
    /// and that place as data when the template engine knew it.
    #[error("{message}")]
    Template {
        message: String,
        site: Option<TemplateSite>,
    },
    /// A template failed to execute after the render called `lookup`, which answers nothing
    /// without a cluster (as in `helm template`): the failure may be the want of the objects it
    /// asked for, which a cluster may hold. Go's message, as for `Template`.
    #[error("{0}")]
    TemplateAfterLookup(String),
    /// The chart cannot be installed on its own (a library chart).
    #[error("{chart}: {chart_type} charts are not installable")]
    NotInstallable { chart: String, chart_type: String },
    /// The release name is not one Helm installs: a DNS subdomain of at most 53 characters.
    #[error(
        "release name check failed: release name {name:?}: invalid release name, must match regex \
         ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must \
         not be longer than 53"
    )]
    InvalidReleaseName { name: String },
    /// A rendered manifest is not valid YAML.
    #[error("YAML parse error on {template}: {message}")]
    Manifest { template: String, message: String },
}

/// Where a template failed: the template's name in the chart as Helm names it
/// (`demo/templates/_helpers.tpl`; a subchart's `demo/charts/sub/templates/x.yaml`), the line,
/// and the templates being run when it failed, outermost first (`include` and `template` calls).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateSite {
    pub template: String,
    pub line: usize,
    pub chain: Vec<String>,
}

impl Error {
    /// A template's failure, in Go's words, with its site when the engine knew it.
    pub(crate) fn template(error: &offlux_template::Error) -> Error {
        let site = error.location().map(|location| TemplateSite {
            template: location.template.clone(),
            line: location.line,
            chain: error.template_chain().to_vec(),
        });
        Error::Template {
            message: error.to_string(),
            site,
        }
    }

    /// A failure of the render that no one template's line explains (a limit, a refused file).
    pub(crate) fn render(message: String) -> Error {
        Error::Template {
            message,
            site: None,
        }
    }

    /// Where a template failed, when this is a template's failure whose place is known.
    pub fn template_site(&self) -> Option<&TemplateSite> {
        match self {
            Error::Template { site, .. } => site.as_ref(),
            _ => None,
        }
    }
}

/// Why a chart could not be loaded, in Helm's loader's words where it has them; `file` is the
/// path inside the chart.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LoadError {
    #[error("{file}: chart holds more than {max} files (the entry limit)")]
    TooManyFiles { file: String, max: usize },
    #[error("{file}: chart is larger than {max} bytes decompressed (the size limit)")]
    TooLarge { file: String, max: u64 },
    /// A run-wide budget (bytes extracted from archives, bytes of loaded charts) went over at
    /// `file`.
    #[error("{file}: {exceeded}")]
    Budget {
        file: String,
        exceeded: offlux_budget::Exceeded,
    },
    #[error("cannot read chart directory: no such file or directory")]
    NoDirectory,
    #[error("not a directory")]
    NotADirectory,
    #[error("{file}: {rule}", file = HELMIGNORE)]
    Helmignore { rule: RuleError },
    /// A file or directory of the chart could not be read (the file system's message).
    #[error("{file}: {message}")]
    Read { file: String, message: String },
    /// The chart archive itself could not be read (the file system's message).
    #[error("{0}")]
    Unreadable(String),
    #[error("{0}: file name is not UTF-8")]
    NameNotUtf8(String),
    #[error("{file}: symbolic link leads outside the chart directory (to {})", target.display())]
    SymlinkOutside { file: String, target: PathBuf },
    #[error("{file}: broken symbolic link: {message}")]
    SymlinkUnreadable { file: String, message: String },
    #[error("{0}: broken symbolic link")]
    BrokenSymlink(String),
    #[error("{0}: no such directory")]
    NoSuchDirectory(String),
    #[error("{0}: symbolic link loop")]
    SymlinkLoop(String),
    #[error("cannot load irregular file {0} as it has file mode type bits set")]
    IrregularFile(String),
    #[error("archive is {size} bytes, more than the {max} bytes allowed")]
    ArchiveTooLarge { size: usize, max: u64 },
    #[error("file does not appear to be a gzipped archive")]
    NotGzip,
    /// The gzip or tar stream is broken (the decoder's message).
    #[error("reading archive: {0}")]
    Archive(String),
    #[error("archive holds more than {0} entries (the entry limit)")]
    TooManyEntries(usize),
    #[error("chart illegally contains absolute paths: {0:?}")]
    AbsolutePath(String),
    #[error("chart yaml not in base directory")]
    ChartYamlNotInBase,
    #[error("chart illegally contains content outside the base directory: {0:?}")]
    OutsideBase(String),
    #[error("chart contains illegally named files")]
    IllegalName,
    #[error("no files in chart archive")]
    EmptyArchive,
    #[error("subcharts nest deeper than {0} levels")]
    TooDeep(usize),
    #[error("Chart.yaml file is missing")]
    NoChartYaml,
    /// `file` is not YAML (or not UTF-8): the parser's message.
    #[error("cannot load {file}: {message}")]
    Syntax { file: String, message: String },
    #[error("cannot load values.yaml: error converting YAML to JSON: values are not a map")]
    ValuesNotAMap,
    #[error("cannot load {file}: field {field} must be {want}")]
    FieldType {
        file: String,
        field: String,
        want: &'static str,
    },
    #[error("cannot load {file}: dependencies must not be null")]
    NullDependency { file: String },
    /// `Chart.yaml` breaks one of Helm's metadata rules (Helm's message).
    #[error("validation: {0}")]
    Validation(String),
    #[error("error unpacking subchart tar in {parent}: expected {subchart} to be a file")]
    SubchartNotAFile { parent: String, subchart: String },
    /// A subchart failed to load; `kind` says why.
    #[error("error unpacking subchart {subchart} in {parent}: {kind}")]
    Subchart {
        subchart: String,
        parent: String,
        kind: Box<LoadError>,
    },
    #[error("found in Chart.yaml, but missing in charts/ directory: {} (the chart must be packaged or vendored with its dependencies)", .0.join(", "))]
    MissingDependencies(Vec<String>),
}
