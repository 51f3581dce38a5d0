//! Helm's engine and `helm template`'s assembly: every template of the chart tree parsed into one
//! set (deepest charts first, so a parent's `define` wins), each non-partial template run with its
//! chart's scope of the values, then the output split, sorted and printed with `# Source:` lines.

use std::collections::{BTreeMap, HashMap};

use sha2::{Digest, Sha256};

pub use super::sort::Manifest;
use super::{capabilities, files, sort, values, Chart, Error, KubeVersion, LoadError};
use offlux_template::funcs::{helm_functions, FuncEnv};
use std::sync::Arc;

use offlux_budget::RunBudget;
use offlux_template::{ExecOptions, MissingKey, Set, Value};

/// The release a chart is rendered as (`.Release`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Release {
    pub name: String,
    pub namespace: String,
    pub is_upgrade: bool,
    pub revision: i64,
}

/// What `helm template` is asked to do.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    pub release: Release,
    pub kube_version: KubeVersion,
    /// Extra API versions for `.Capabilities.APIVersions` (`--api-versions`).
    pub api_versions: Vec<String>,
    pub include_crds: bool,
    pub skip_tests: bool,
    pub no_hooks: bool,
    /// Validate values against `values.schema.json` (Helm does unless told not to).
    pub validate_schema: bool,
    /// The fixed "now" of date functions, in seconds since the Unix epoch.
    pub now_unix: i64,
    /// The run's budget: the step cap of each template execution and the cancellation flag.
    pub run: Arc<RunBudget>,
}

impl RenderOptions {
    /// `helm template`'s defaults for a release.
    pub fn new(name: &str, namespace: &str) -> RenderOptions {
        RenderOptions {
            release: Release {
                name: name.to_string(),
                namespace: namespace.to_string(),
                is_upgrade: false,
                revision: 1,
            },
            kube_version: KubeVersion::default(),
            api_versions: Vec::new(),
            include_crds: false,
            skip_tests: true,
            no_hooks: false,
            validate_schema: true,
            now_unix: FIXED_NOW,
            run: Arc::default(),
        }
    }
}

/// 2024-01-01T00:00:00Z: the clock of every render, so output never depends on the day.
pub const FIXED_NOW: i64 = 1_704_067_200;

/// A rendered chart: CRDs from `crds/`, manifests in install order, hooks, and the root chart's notes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rendered {
    pub crds: Vec<Manifest>,
    pub manifests: Vec<Manifest>,
    pub hooks: Vec<Manifest>,
    pub notes: Option<String>,
}

impl Rendered {
    /// The documents a release applies, in `helm template`'s order: CRDs when asked for, the
    /// manifests, then hooks (test hooks only when not skipped).
    pub fn applied(&self, options: &RenderOptions) -> Vec<&Manifest> {
        let crds = self.crds.iter().filter(|_| options.include_crds);
        let hooks = self
            .hooks
            .iter()
            .filter(|h| !(options.no_hooks || options.skip_tests && h.is_test_hook()));
        crds.chain(&self.manifests).chain(hooks).collect()
    }

    /// `helm template`'s output text.
    pub fn to_text(&self, options: &RenderOptions) -> String {
        let mut release = String::new();
        let crds = self.crds.iter().filter(|_| options.include_crds);
        for m in crds.chain(&self.manifests) {
            release.push_str(&format!("---\n# Source: {}\n{}\n", m.source, m.content));
        }
        let mut out = format!("{}\n", release.trim());
        if !options.no_hooks {
            for h in &self.hooks {
                if options.skip_tests && h.is_test_hook() {
                    continue;
                }
                out.push_str(&format!("---\n# Source: {}\n{}\n", h.source, h.content));
            }
        }
        out
    }
}

/// `helm template --show-only`: the documents of `text` whose template path (without the chart
/// name) matches each pattern, in pattern order.
pub fn show_only(text: &str, patterns: &[String]) -> Result<String, Error> {
    let documents = sort::split_manifests(text);
    let mut out = String::new();
    for pattern in patterns {
        let matcher = globset::GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| Error::Values(format!("invalid --show-only pattern {pattern:?}: {e}")))?
            .compile_matcher();
        let mut found = false;
        for document in &documents {
            let Some(path) = source_path(document) else {
                continue;
            };
            if matcher.is_match(path) {
                out.push_str(&format!("---\n{document}\n"));
                found = true;
            }
        }
        if !found {
            return Err(Error::render(format!(
                "could not find template {pattern} in chart"
            )));
        }
    }
    Ok(out)
}

/// The template path after the chart name in a document's `# Source: chart/path` line.
fn source_path(document: &str) -> Option<&str> {
    let at = document.find("# Source: ")?;
    let rest = &document[at + "# Source: ".len()..];
    let line = rest.lines().next()?;
    let (chart, path) = line.split_once('/')?;
    (!chart.is_empty() && !path.is_empty()).then_some(path)
}

/// One template to run: its text and (an index into the contexts) the chart it belongs to.
struct Renderable<'a> {
    text: &'a str,
    context: usize,
    base_path: String,
}

/// Walks the chart tree as Helm's `recAllTpls` does, collecting each template under its full path
/// and returning the chart's context (for its parent's `.Subcharts`).
fn collect_templates<'a>(
    chart: &'a Chart,
    full_path: &str,
    parent: &BTreeMap<String, Value>,
    is_root: bool,
    out: &mut BTreeMap<String, Renderable<'a>>,
    contexts: &mut Vec<BTreeMap<String, Value>>,
) -> Value {
    let mut chart_data = match &chart.metadata.template_data {
        Value::Map(m) => BTreeMap::clone(m),
        _ => BTreeMap::new(),
    };
    chart_data.insert("IsRoot".into(), Value::Bool(is_root));
    let scoped_values = if is_root {
        parent
            .get("Values")
            .cloned()
            .unwrap_or(Value::map(BTreeMap::new()))
    } else {
        match parent.get("Values") {
            Some(Value::Map(m)) => match m.get(chart.name()) {
                Some(Value::Map(sub)) => Value::Map(sub.clone()),
                _ => Value::map(BTreeMap::new()),
            },
            _ => Value::map(BTreeMap::new()),
        }
    };
    let mut context: BTreeMap<String, Value> = BTreeMap::new();
    context.insert("Chart".into(), Value::map(chart_data));
    context.insert(
        "Files".into(),
        chart
            .files_value
            .get_or_make(&chart.files, || files::files_value(&chart.files)),
    );
    for key in ["Release", "Capabilities"] {
        context.insert(key.into(), parent.get(key).cloned().unwrap_or_default());
    }
    context.insert("Values".into(), scoped_values);
    let mut subcharts = BTreeMap::new();
    for dependency in &chart.dependencies {
        let child_path = format!("{full_path}/charts/{}", dependency.name());
        let child = collect_templates(dependency, &child_path, &context, false, out, contexts);
        subcharts.insert(dependency.name().to_string(), child);
    }
    context.insert("Subcharts".into(), Value::map(subcharts));
    // One context per chart, shared by its templates (copied only by a template that changes it).
    let index = contexts.len();
    contexts.push(context.clone());
    for template in &chart.templates {
        let base = template.name.rsplit('/').next().unwrap_or(&template.name);
        // A library chart's templates are only its partials.
        if chart.metadata.is_library() && !base.starts_with('_') {
            continue;
        }
        let Ok(text) = std::str::from_utf8(&template.data) else {
            continue;
        };
        out.insert(
            format!("{full_path}/{}", template.name),
            Renderable {
                text,
                context: index,
                base_path: format!("{full_path}/templates"),
            },
        );
    }
    Value::map(context)
}

/// Helm's parse order: deeper paths first, then reverse lexical order, so that the templates of a
/// parent chart are parsed last and its `define`s win.
fn parse_order(names: impl Iterator<Item = String>) -> Vec<String> {
    let mut names: Vec<String> = names.collect();
    names.sort_by(|a, b| {
        let depth = |s: &str| s.matches('/').count();
        depth(b).cmp(&depth(a)).then_with(|| b.cmp(a))
    });
    names
}

/// The seed of the render's random functions: the same release renders the same bytes.
fn seed(release: &Release) -> u64 {
    let digest = Sha256::digest(format!("{}/{}", release.namespace, release.name).as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(bytes)
}

fn release_data(release: &Release) -> Value {
    Value::map(BTreeMap::from([
        ("IsInstall".into(), Value::Bool(!release.is_upgrade)),
        ("IsUpgrade".into(), Value::Bool(release.is_upgrade)),
        ("Name".into(), Value::String(release.name.clone())),
        ("Namespace".into(), Value::String(release.namespace.clone())),
        ("Revision".into(), Value::Int(release.revision)),
        ("Service".into(), Value::String("Helm".into())),
    ]))
}

/// Helm's `engine.Render`: each template file of the chart tree to its output, by full path
/// (`chart/templates/x.yaml`, `chart/charts/sub/templates/y.yaml`). `values` are the coalesced
/// top-level values.
pub fn render_chart(
    chart: &Chart,
    values: &Value,
    options: &RenderOptions,
) -> Result<BTreeMap<String, String>, Error> {
    let top = BTreeMap::from([
        ("Values".to_string(), values.clone()),
        ("Release".to_string(), release_data(&options.release)),
        (
            "Capabilities".to_string(),
            capabilities::template_data(&options.kube_version, &options.api_versions),
        ),
    ]);
    let mut renderables = BTreeMap::new();
    let mut contexts = Vec::new();
    collect_templates(
        chart,
        chart.name(),
        &top,
        true,
        &mut renderables,
        &mut contexts,
    );

    // One thread with a large stack parses and runs every template of the chart.
    let rendered = offlux_template::on_big_stack(chart.name(), || {
        Ok(parse_and_execute(
            chart,
            &renderables,
            &mut contexts,
            options,
        ))
    });
    rendered.map_err(|e| Error::template(&e))?
}

/// Parses the chart's templates into one set and executes each that is not a partial, in Helm's
/// order, each with its chart's context.
fn parse_and_execute(
    chart: &Chart,
    renderables: &BTreeMap<String, Renderable<'_>>,
    contexts: &mut [BTreeMap<String, Value>],
    options: &RenderOptions,
) -> Result<BTreeMap<String, String>, Error> {
    let order = parse_order(renderables.keys().cloned());
    let texts: Vec<&str> = order
        .iter()
        .filter_map(|name| renderables.get(name).map(|r| r.text))
        .collect();
    let set = chart.parsed_templates.get_or_parse(&order, &texts, || {
        parse_templates(chart, renderables, &order)
    })?;
    let exec = ExecOptions {
        missing_key: MissingKey::Zero,
        max_steps: options.run.limits().template_steps,
        run: Some(options.run.clone()),
        ..ExecOptions::default()
    };
    let mut env = FuncEnv {
        rng_state: seed(&options.release),
        now_unix: options.now_unix,
        lookups: 0,
        run: None,
    };
    let mut rendered = BTreeMap::new();
    let mut documents = 0usize;
    for name in &order {
        let base = name.rsplit('/').next().unwrap_or(name);
        if base.starts_with('_') {
            continue;
        }
        let Some(r) = renderables.get(name) else {
            continue;
        };
        let Some(slot) = contexts.get_mut(r.context) else {
            continue;
        };
        let mut context = std::mem::take(slot);
        context.insert(
            "Template".into(),
            Value::map(BTreeMap::from([
                ("Name".into(), Value::String(name.clone())),
                ("BasePath".into(), Value::String(r.base_path.clone())),
            ])),
        );
        let (result, context) = set.execute_owned(name, Value::map(context), &exec, &mut env);
        if let (Value::Map(context), Some(slot)) = (context, contexts.get_mut(r.context)) {
            *slot = std::sync::Arc::unwrap_or_clone(context);
        }
        let text = result.map_err(|e| match env.lookups {
            0 => Error::template(&e),
            _ => Error::TemplateAfterLookup(e.to_string()),
        })?;
        // The run's budget of rendered bytes: each execution is capped on its own, many add up.
        (options.run)
            .charge(offlux_budget::Resource::RenderedBytes, text.len() as u64)
            .map_err(|exceeded| Error::render(format!("{name}: {exceeded}")))?;
        // The run's budget of objects held (charged when the release publishes): counted on
        // the text, before the manifests are parsed, which is what costs the memory.
        documents += text.matches("\n---").count() + 1;
        (options.run)
            .check(offlux_budget::Resource::RenderedObjects, documents as u64)
            .map_err(|exceeded| Error::render(format!("{name}: {exceeded}")))?;
        rendered.insert(name.clone(), text.replace("<no value>", ""));
    }
    Ok(rendered)
}

/// The chart's templates named in `order`, parsed into one set.
fn parse_templates(
    chart: &Chart,
    renderables: &BTreeMap<String, Renderable<'_>>,
    order: &[String],
) -> Result<Set, Error> {
    let funcs: HashMap<String, _> = helm_functions()
        .into_iter()
        .map(|(name, f)| (name.to_string(), f))
        .collect();
    let mut set = Set::new(chart.name(), funcs)
        .with_helm_builtins()
        .with_methods(files::helm_methods);
    for name in order {
        if let Some(r) = renderables.get(name) {
            set.add(name, r.text).map_err(|e| parse_error(name, &e))?;
        }
    }
    Ok(set)
}

/// Where a template failed to parse.
fn parse_site(error: &offlux_template::Error) -> Option<crate::error::TemplateSite> {
    error.location().map(|location| crate::error::TemplateSite {
        template: location.template.clone(),
        line: location.line,
        chain: Vec::new(),
    })
}

/// Helm's `cleanupParseError`: `parse error at (file:line): message`.
fn parse_error(name: &str, error: &offlux_template::Error) -> Error {
    let message = error.to_string();
    let tokens: Vec<&str> = message.split(": ").collect();
    match (tokens.get(1), tokens.last()) {
        (Some(location), Some(last)) if tokens.len() > 1 => Error::Template {
            message: format!("parse error at ({location}): {last}"),
            site: parse_site(error),
        },
        _ => Error::Template {
            message: format!("parse error in ({name}): {message}"),
            site: parse_site(error),
        },
    }
}

/// Helm's `CheckDependencies` (pkg/action/dependency.go): every dependency `Chart.yaml` declares
/// must be in `charts/`, even one its condition or tags disable; rendering without it would
/// silently leave its objects out. `helm template` and `helm install` run it on the loaded chart
/// before anything else (`runInstall` in Helm's pkg/cmd/install.go), so it comes before
/// dependencies are processed (which drops the disabled ones) and before any template error.
fn check_dependencies(chart: &Chart) -> Result<(), Error> {
    let missing: Vec<&str> = chart
        .metadata
        .dependencies
        .iter()
        .filter(|wanted| {
            !chart
                .dependencies
                .iter()
                .any(|had| had.name() == wanted.name)
        })
        .map(|wanted| wanted.name.as_str())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::Load {
        chart: chart.name().to_string(),
        kind: LoadError::MissingDependencies(missing.into_iter().map(str::to_string).collect()),
    })
}

/// Helm's `ValidateReleaseName`: at most 53 characters, dot-separated labels of lowercase letters,
/// digits and `-` that start and end with a letter or digit.
fn valid_release_name(name: &str) -> bool {
    let label_ok = |label: &str| {
        let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
        label.starts_with(alnum)
            && label.ends_with(alnum)
            && label.chars().all(|c| alnum(c) || c == '-')
    };
    !name.is_empty() && name.len() <= 53 && name.split('.').all(label_ok)
}

/// `helm template` on a loaded chart: dependencies processed, `user_values` coalesced over the
/// defaults, the schema and `kubeVersion` checked, the chart rendered and its output sorted.
pub fn template(
    mut chart: Chart,
    user_values: &Value,
    options: &RenderOptions,
) -> Result<Rendered, Error> {
    if chart.metadata.is_library() {
        return Err(Error::NotInstallable {
            chart: chart.name().to_string(),
            chart_type: chart.metadata.chart_type.clone(),
        });
    }
    if !valid_release_name(&options.release.name) {
        return Err(Error::InvalidReleaseName {
            name: options.release.name.clone(),
        });
    }
    check_dependencies(&chart)?;
    values::process_dependencies(&mut chart, user_values)?;
    let values = values::try_coalesce_values(&chart, user_values)?;
    if options.validate_schema {
        values::validate_schema(&chart, &values)?;
    }
    let required = chart.metadata.kube_version.trim();
    if !required.is_empty() && !options.kube_version.satisfies(required).unwrap_or(false) {
        return Err(Error::KubeVersion {
            required: required.to_string(),
            actual: options.kube_version.version.clone(),
        });
    }
    let mut files = render_chart(&chart, &values, options)?;
    let notes_path = format!("{}/templates/NOTES.txt", chart.name());
    let notes = files.get(&notes_path).cloned();
    files.retain(|path, _| !path.ends_with("NOTES.txt"));
    let (manifests, hooks) = sort::sort_manifests(&files)?;
    let crds = chart
        .crd_files()
        .into_iter()
        .map(|(source, file)| Manifest {
            source,
            content: crate::files::text_of(&file.data),
            kind: "CustomResourceDefinition".into(),
            hook_events: Vec::new(),
        })
        .collect();
    Ok(Rendered {
        crds,
        manifests,
        hooks,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ChartFile, Metadata};

    fn chart(name: &str, templates: &[(&str, &str)], dependencies: Vec<Chart>) -> Chart {
        let data = Value::map(BTreeMap::from([(
            "Name".to_string(),
            Value::String(name.to_string()),
        )]));
        Chart {
            metadata: Metadata {
                api_version: "v2".into(),
                name: name.into(),
                version: "1.0.0".into(),
                template_data: data,
                ..Metadata::default()
            },
            values: Value::map(BTreeMap::new()),
            templates: templates
                .iter()
                .map(|(n, t)| ChartFile {
                    name: format!("templates/{n}"),
                    data: t.as_bytes().to_vec().into(),
                })
                .collect(),
            dependencies,
            ..Chart::default()
        }
    }

    fn values(entries: &[(&str, Value)]) -> Value {
        Value::map(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn a_declared_dependency_missing_from_charts_fails_before_a_render() {
        let mut parent = chart("parent", &[("a.yaml", "kind: A")], vec![]);
        parent.metadata.dependencies = vec![crate::chart::Dependency {
            name: "db".into(),
            condition: "db.enabled".into(),
            ..Default::default()
        }];
        let options = RenderOptions::new("r", "ns");
        let error = template(parent.clone(), &values(&[]), &options).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("found in Chart.yaml, but missing in charts/ directory: db"),
            "{error}"
        );
        // Helm's CLI checks before rendering: the missing dependency is named, not the template
        // error that its absence (or anything else) causes.
        parent.templates[0].data = b"{{ fail \"boom\" }}".to_vec().into();
        let error = template(parent.clone(), &values(&[]), &options).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("missing in charts/ directory: db"),
            "{error}"
        );
        // Disabled by its condition, it is still required.
        let disabled = values(&[("db", values(&[("enabled", Value::Bool(false))]))]);
        let error = template(parent, &disabled, &options).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("missing in charts/ directory: db"),
            "{error}"
        );
    }

    #[test]
    fn parent_defines_win_and_subcharts_see_their_scope() {
        let child = chart(
            "child",
            &[
                ("_helpers.tpl", r#"{{ define "name" }}child{{ end }}"#),
                (
                    "c.yaml",
                    "{{ .Values.x }} {{ .Chart.IsRoot }} {{ .Template.BasePath }}",
                ),
            ],
            vec![],
        );
        let parent = chart(
            "parent",
            &[
                ("_helpers.tpl", r#"{{ define "name" }}parent{{ end }}"#),
                (
                    "p.yaml",
                    r#"{{ include "name" . }} {{ .Values.child.x }} {{ .Values.missing }}"#,
                ),
            ],
            vec![child],
        );
        let vals = values(&[("child", values(&[("x", Value::Float(1e6))]))]);
        let out = render_chart(&parent, &vals, &RenderOptions::new("r", "ns")).unwrap();
        assert_eq!(out["parent/templates/p.yaml"], "parent 1e+06 ");
        assert_eq!(
            out["parent/charts/child/templates/c.yaml"],
            "1e+06 false parent/charts/child/templates"
        );
        assert!(!out.contains_key("parent/templates/_helpers.tpl"));
    }

    #[test]
    fn template_sorts_splits_and_prints_like_helm_template() {
        let c = chart(
            "c",
            &[
                ("a.yaml", "kind: Deployment\nmetadata:\n  name: d\n---\nkind: Service\nmetadata:\n  name: s\n"),
                ("hook.yaml", "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: test\n"),
                ("NOTES.txt", "thanks {{ .Release.Name }}"),
            ],
            vec![],
        );
        let options = RenderOptions::new("r", "ns");
        let rendered = template(c, &values(&[]), &options).unwrap();
        assert_eq!(rendered.notes.as_deref(), Some("thanks r"));
        assert_eq!(
            rendered.to_text(&options),
            "---\n# Source: c/templates/a.yaml\nkind: Service\nmetadata:\n  name: s\n\n---\n# Source: c/templates/a.yaml\nkind: Deployment\nmetadata:\n  name: d\n"
        );
        let shown = show_only(&rendered.to_text(&options), &["templates/a.yaml".into()]).unwrap();
        assert!(shown.starts_with("---\n# Source: c/templates/a.yaml\nkind: Service"));
        assert!(show_only("", &["templates/x.yaml".into()]).is_err());
    }

    #[test]
    fn parse_errors_name_the_template() {
        let c = chart("c", &[("bad.yaml", "{{ if }}")], vec![]);
        let err = render_chart(&c, &values(&[]), &RenderOptions::new("r", "ns")).unwrap_err();
        assert!(err.to_string().contains("c/templates/bad.yaml"), "{err}");
    }

    #[test]
    fn library_charts_are_not_installable() {
        let mut c = chart("lib", &[("_x.tpl", "")], vec![]);
        c.metadata.chart_type = "library".into();
        let err = template(c, &values(&[]), &RenderOptions::new("r", "ns")).unwrap_err();
        assert_eq!(err.to_string(), "lib: library charts are not installable");
    }

    #[test]
    fn release_names_are_checked_as_helm_install_does() {
        for bad in [
            "",
            "Upper",
            "under_score",
            "-lead",
            "trail-",
            "a..b",
            &"x".repeat(54),
        ] {
            let err = template(
                chart("c", &[], vec![]),
                &values(&[]),
                &RenderOptions::new(bad, "ns"),
            )
            .unwrap_err();
            assert!(
                matches!(err, Error::InvalidReleaseName { .. }),
                "{bad:?}: {err}"
            );
        }
        for good in ["r", "a-1", "a.b-c", &"x".repeat(53)] {
            let out = template(
                chart("c", &[], vec![]),
                &values(&[]),
                &RenderOptions::new(good, "ns"),
            );
            assert!(out.is_ok(), "{good:?}: {out:?}");
        }
    }

    #[test]
    fn kube_version_constraint_is_checked() {
        let mut c = chart("c", &[], vec![]);
        c.metadata.kube_version = ">=1.40.0-0".into();
        let err = template(c, &values(&[]), &RenderOptions::new("r", "ns")).unwrap_err();
        assert!(matches!(err, Error::KubeVersion { .. }), "{err}");
    }
}
