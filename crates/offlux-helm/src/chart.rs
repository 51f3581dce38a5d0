//! The chart model, as Helm's loader builds it: `Chart.yaml` metadata, default values, the schema,
//! templates, other files (what `.Files` sees, `crds/` included) and subcharts from `charts/`.
//!
//! Only the model: loading it from a directory or an archive is `load`'s job.

use offlux_template::Value;

/// One file of a chart, named by its path inside the chart with `/` separators
/// (`templates/deployment.yaml`, `crds/crd.yaml`, `files/config.ini`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartFile {
    pub name: String,
    /// Shared: every release renders its own copy of the chart (values differ), and the files,
    /// up to hundreds of megabytes, are the same in all.
    pub data: std::sync::Arc<Vec<u8>>,
}

/// A dependency declared in `Chart.yaml` (or `requirements.yaml` for apiVersion v1 charts).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dependency {
    pub name: String,
    pub version: String,
    pub repository: String,
    /// Comma-separated value paths; the first that resolves to a boolean decides.
    pub condition: String,
    pub tags: Vec<String>,
    /// Decided by `condition` and `tags` during dependency processing; true until then.
    pub enabled: bool,
    /// `import-values` entries as written: strings or `{child, parent}` maps.
    pub import_values: Vec<Value>,
    pub alias: String,
}

/// `Chart.yaml`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    pub api_version: String,
    pub name: String,
    pub version: String,
    pub app_version: String,
    pub description: String,
    pub kube_version: String,
    /// `application` (also when empty) or `library`.
    pub chart_type: String,
    pub dependencies: Vec<Dependency>,
    /// The whole of `Chart.yaml` as template data with Go's field names (`Name`, `Version`,
    /// `AppVersion`, `Annotations`, ...), which is what `.Chart` shows to templates.
    pub template_data: Value,
}

impl Metadata {
    pub fn is_library(&self) -> bool {
        self.chart_type == "library"
    }
}

/// A loaded chart with its subcharts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Chart {
    pub metadata: Metadata,
    /// `values.yaml` typed as Helm types it (YAML 1.1, numbers as float64); an empty map when absent.
    pub values: Value,
    /// `values.schema.json`, when present.
    pub schema: Option<Vec<u8>>,
    /// `schema` compiled, once, at its first use.
    pub compiled_schema: super::chart_cache::CompiledSchema,
    /// Files under `templates/`.
    pub templates: Vec<ChartFile>,
    /// Every other file that `.helmignore` keeps, except `Chart.yaml`, `values.yaml`,
    /// `values.schema.json`, lock and requirements files and `charts/` (`.prov` files under
    /// `charts/` stay). As in Helm, an apiVersion v1 chart keeps `requirements.yaml` and
    /// `requirements.lock` here too.
    pub files: Vec<ChartFile>,
    /// Subcharts from `charts/` (directories or archives), in name order.
    pub dependencies: Vec<Chart>,
    /// The templates, parsed once per set of subcharts a render includes.
    pub parsed_templates: super::chart_cache::ParsedTemplates,
    /// `files` as `.Files`, made once.
    pub files_value: super::chart_cache::FilesValue,
}

impl Chart {
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// The bytes of the chart's files (templates, other files, the schema), subcharts included:
    /// what holding it costs.
    pub fn bytes(&self) -> u64 {
        let files = self.templates.iter().chain(&self.files);
        let own = files.map(|f| f.data.len() as u64).sum::<u64>();
        let schema = self.schema.as_ref().map_or(0, |s| s.len() as u64);
        let subcharts = self.dependencies.iter().map(Chart::bytes).sum::<u64>();
        own + schema + subcharts
    }

    /// The CRD files of this chart and its subcharts (`crds/*.yaml|yml|json`), as
    /// `(path shown in "# Source:", contents)`, parents before children.
    pub fn crd_files(&self) -> Vec<(String, &ChartFile)> {
        let mut out = Vec::new();
        self.collect_crds(self.name(), &mut out);
        out
    }

    fn collect_crds<'a>(&'a self, prefix: &str, out: &mut Vec<(String, &'a ChartFile)>) {
        for file in &self.files {
            let is_manifest = [".yaml", ".yml", ".json"]
                .iter()
                .any(|ext| file.name.ends_with(ext));
            if file.name.starts_with("crds/") && is_manifest {
                out.push((format!("{prefix}/{}", file.name), file));
            }
        }
        for dependency in &self.dependencies {
            dependency.collect_crds(&format!("{prefix}/charts/{}", dependency.name()), out);
        }
    }
}
