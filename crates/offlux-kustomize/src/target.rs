//! The target: accumulates one kustomization (and, through it, its resources, components and
//! generator or transformer directories) as kustomize's `KustTarget` does, one handler per field
//! in kustomize's order, and at the top finishes the build (content hashes, name references,
//! vars, ordering).
//!
//! Not for: reading files (the loader), the fields' work on resources (the transformers:
//! `transform`, `generate`, `patch_wiring`, `nameref`), the rules of the resource list
//! (`resmap`).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::error::Error;
use super::fieldspec::Config;
use super::kustomization::{strings, Kustomization};
use super::loader::{absolutize, is_remote, parse_resources, KustomizationError, Loader};
use super::options::{Build, EnvKeyLeftOut, Options, Reorder, MAX_DEPTH};
use super::patch::PatchSchema;
use super::resmap::{legacy_sort, Appender};
use super::resource::{Origin, Res};
use super::transform::Var;
use super::{generate, nameref, patch_wiring, transform, FileKind};
use offlux_yaml::{parse_stream, Node, ParseOptions};

/// What a kustomization accumulated: its resources and what its parents inherit from it.
#[derive(Clone, Default)]
pub(super) struct Target {
    pub resources: Vec<Res>,
    /// `sortOptions.order` of the top kustomization.
    pub sort: Option<String>,
    /// `sortOptions.legacySortOptions` of the top kustomization: the kinds put first and last,
    /// in place of the default lists.
    pub legacy_order: Option<(Vec<String>, Vec<String>)>,
    pub config: Config,
    pub vars: Vec<Var>,
}

/// One build's state across the kustomizations it accumulates.
struct Builder<'a> {
    loader: Loader<'a>,
    /// Patch metadata from an `openapi` field; the outermost kustomization declaring one wins.
    schema: Option<Rc<PatchSchema>>,
    schema_decided: bool,
    /// The directories being accumulated, outermost first (cycles and depth).
    stack: Vec<PathBuf>,
    diagnostics: Vec<String>,
    env_keys_left_out: Vec<EnvKeyLeftOut>,
    /// Every directory accumulated so far, in order, a reused one with all it accumulated: the
    /// directories behind one result are a slice of it.
    accumulated: Vec<PathBuf>,
    /// Directories under `resources` already built in this build, by directory and the patch
    /// schema in force: `None` once seen, the result from the second use on (see [`Reused`]).
    reused: HashMap<(PathBuf, Option<usize>, bool), Option<Rc<Reused>>>,
    /// The first remote resource or component met (the kustomization file listing it, and its
    /// URL): the build stops there, and its error says the build needed the network.
    remote: Option<(PathBuf, String)>,
}

/// A directory's accumulated result, kept for its later uses within one build. kustomize
/// accumulates a directory anew each time a `resources` list names it, so a chain of
/// kustomizations each naming the next two costs 2^n builds; the result of the same directory
/// under the same schema is the same, so it is built at most twice (the second time to keep it)
/// and copied after that. What building it said (deprecations, left-out env keys) is said on a
/// use unless the build said it already.
struct Reused {
    target: Target,
    /// The directories building it accumulated: a use while one of them is being accumulated
    /// is a cycle, which only a new build reports as kustomize does.
    dirs: BTreeSet<PathBuf>,
    diagnostics: Vec<String>,
    env_keys_left_out: Vec<EnvKeyLeftOut>,
}

type Fail<'f> = &'f dyn Fn(Option<String>, String) -> Error;

/// kustomize's `konfig.IgnoredByKustomizeAnnotation`.
const LOCAL_CONFIG: &str = "config.kubernetes.io/local-config";

pub(super) fn build(dir: &Path, options: &Options) -> Result<Build, Error> {
    let mut builder = Builder {
        loader: Loader::new(options),
        schema: None,
        schema_decided: false,
        stack: Vec::new(),
        diagnostics: Vec::new(),
        env_keys_left_out: Vec::new(),
        accumulated: Vec::new(),
        reused: HashMap::new(),
        remote: None,
    };
    if !options.fs_facts.exists(dir) {
        let shown = builder.loader.show(dir);
        // kustomize names the missing root as it was given, relative to where it runs
        let shown = shown.strip_prefix('/').unwrap_or(&shown).to_string();
        return Err(Error::MissingRoot { dir: shown });
    }
    let target = builder.accumulate(dir, None, false).map_err(|error| {
        // A remote entry is recorded only as its own error is made, and an accumulation stops at
        // its first error, which passes up through every including kustomization: so a recorded
        // remote entry is what the build failed on.
        match builder.remote.take() {
            Some((kustomization, url)) => Error::Remote {
                kustomization,
                url,
                message: error.to_string(),
            },
            None => error,
        }
    })?;
    let mut resources = target.resources;
    generate::add_hashes(&mut resources);
    nameref::fix(&mut resources, &target.config)?;
    transform::resolve_vars(&mut resources, &target.vars, &target.config)?;
    // kustomize's `KustTarget.IgnoreLocal` (`DropLocalNodes`): an object annotated
    // `config.kubernetes.io/local-config` (whatever the value) takes part in the build, as a
    // name-reference or var source, and is left out of its output.
    // It then rebuilds the resource map from what is left (`FromResourceSlice`), which refuses
    // two objects that a rename or patch has given the same id.
    let mut kept = Vec::with_capacity(resources.len());
    let mut appender = Appender::new(&kept);
    for r in resources {
        if r.node
            .get_path(&["metadata", "annotations", LOCAL_CONFIG])
            .is_some()
        {
            continue;
        }
        appender
            .append(&mut kept, r)
            .map_err(|message| Error::Finish { message })?;
    }
    let mut resources = kept;
    if options.add_managed_by_label {
        for r in &mut resources {
            transform::set_map_field(
                &mut r.node,
                &["metadata", "labels"],
                "app.kubernetes.io/managed-by",
                &options.managed_by,
            );
        }
    }
    for r in &mut resources {
        stringify_metadata_maps(&mut r.node);
    }
    let legacy = match target.sort.as_deref() {
        Some(order) => order == "legacy",
        None => options.reorder == Reorder::Legacy,
    };
    if legacy {
        legacy_sort(&mut resources, target.legacy_order.as_ref());
    }
    let origins = resources
        .iter()
        .map(|r| match &r.origin {
            Some(Origin::File(file)) => Some(file.clone()),
            Some(Origin::Generator { configured_in, .. }) => Some(configured_in.clone()),
            Some(Origin::Transformer { .. }) | None => None,
        })
        .collect();
    Ok(Build {
        objects: resources.into_iter().map(|r| r.node).collect(),
        origins,
        diagnostics: builder.diagnostics,
        env_keys_left_out: builder.env_keys_left_out,
    })
}

/// The builtin transformers a kustomization's fields stand for, in the order kustomize records
/// them in `alpha.config.kubernetes.io/transformations` (a field set to null or `""` runs none).
fn builtin_transformer_kinds(k: &Kustomization) -> Vec<&'static str> {
    let fields = [
        (&k.patches_strategic_merge, "PatchStrategicMergeTransformer"),
        (&k.patches, "PatchTransformer"),
        (&k.namespace, "NamespaceTransformer"),
        (&k.name_prefix, "PrefixTransformer"),
        (&k.name_suffix, "SuffixTransformer"),
        (&k.labels, "LabelTransformer"),
        (&k.common_labels, "LabelTransformer"),
        (&k.common_annotations, "AnnotationsTransformer"),
        (&k.patches_json6902, "PatchJson6902Transformer"),
        (&k.replicas, "ReplicaCountTransformer"),
        (&k.images, "ImageTagTransformer"),
        (&k.replacements, "ReplacementTransformer"),
    ];
    let mut kinds: Vec<&str> = Vec::new();
    for (value, kind) in fields {
        let set = value
            .as_ref()
            .is_some_and(|v| !v.is_null() && v.as_str() != Some(""));
        if set && !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    kinds
}

/// Where a `generators`/`transformers` entry's configs were configured: the file it names, or
/// the kustomization itself for inline configs.
fn configured_in(loader: &Loader, dir: &Path, entry: &Node, kfile: &Path) -> PathBuf {
    match entry.as_str() {
        Some(name) if !name.contains('\n') && loader.options.fs_facts.is_file(&dir.join(name)) => {
            absolutize(&dir.join(name))
        }
        _ => kfile.to_path_buf(),
    }
}

impl Builder<'_> {
    /// Builds the kustomization in `dir`. A component receives the resources accumulated so far
    /// by its parent in `input` and returns them transformed along with its own.
    fn accumulate(
        &mut self,
        dir: &Path,
        input: Option<Vec<Res>>,
        component: bool,
    ) -> Result<Target, Error> {
        let dir = absolutize(dir);
        if self.stack.contains(&dir) {
            return Err(Error::Cycle {
                dir: self.loader.show(&dir),
            });
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(Error::TooDeep {
                dir: self.loader.show(&dir),
                parent: self
                    .stack
                    .last()
                    .map(|parent| self.loader.show(parent))
                    .unwrap_or_default(),
            });
        }
        self.loader
            .check_fs_root(&dir)
            .map_err(|message| Error::Outside {
                dir: dir.clone(),
                message,
            })?;
        let (kfile, root) = match self.loader.read_kustomization(&dir) {
            Ok(found) => found,
            Err(KustomizationError::Missing(message)) => {
                return Err(Error::NoKustomization { dir, message })
            }
            Err(KustomizationError::Unreadable { file, message }) => {
                return Err(Error::Kustomization {
                    file: PathBuf::from(self.loader.show(&file)),
                    entry: None,
                    message,
                })
            }
        };
        let shown = PathBuf::from(self.loader.show(&kfile));
        let fail = |entry: Option<String>, message: String| Error::Kustomization {
            file: shown.clone(),
            entry,
            message,
        };
        let k = Kustomization::from_node(&root).map_err(|m| fail(None, m))?;
        for (field, instead) in k.deprecated() {
            // Said once per build, however often the directory is named (kustomize says it on
            // every accumulation, which in a DAG of bases is exponential).
            let message = format!(
                "{}: '{field}' is deprecated. Please use '{instead}' instead.",
                shown.display()
            );
            if !self.diagnostics.contains(&message) {
                self.diagnostics.push(message);
            }
        }
        // kustomize's `KustTarget.Load`: `CheckEmpty`, then `EnforceFields`.
        if k.is_empty() {
            return Err(fail(None, "kustomization.yaml is empty".into()));
        }
        let kind = k.kind();
        let required_api = match kind {
            "Kustomization" => "kustomize.config.k8s.io/v1beta1",
            "Component" => "kustomize.config.k8s.io/v1alpha1",
            _ => {
                return Err(fail(
                    None,
                    format!(
                        "Failed to read kustomization file under {}:\nkind should be Kustomization or Component",
                        self.loader.show(&dir)
                    ),
                ))
            }
        };
        // An unset apiVersion takes the kind's own (`FixKustomization`).
        let api = k.api_version.as_ref().and_then(Node::as_str).unwrap_or("");
        if !api.is_empty() && api != required_api {
            return Err(fail(
                None,
                format!(
                    "Failed to read kustomization file under {}:\napiVersion for {kind} should be {required_api}",
                    self.loader.show(&dir)
                ),
            ));
        }
        // `accumulateDirectory`: a directory under `resources` must not be a Component (the
        // directory being built may be one).
        if !component && kind == "Component" && !self.stack.is_empty() {
            return Err(fail(
                None,
                format!(
                    "expected kind != 'Component' for path '{}'",
                    self.loader.show(&dir)
                ),
            ));
        }
        if component && kind != "Component" {
            return Err(fail(
                None,
                format!(
                    "accumulating components: accumulateDirectory: \"expected kind 'Component' for path '{}' but got '{}'\"",
                    self.loader.show(&dir),
                    kind
                ),
            ));
        }
        for (field, value) in [
            ("helmCharts", &k.helm_charts),
            (
                "helmChartInflationGenerator",
                &k.helm_chart_inflation_generator,
            ),
            ("helmGlobals", &k.helm_globals),
        ] {
            if value.is_some() {
                return Err(fail(
                    Some(field.into()),
                    "Helm chart inflation is not supported (kustomize --enable-helm)".into(),
                ));
            }
        }
        if let Some(openapi) = &k.openapi {
            if !self.schema_decided {
                let schema = self
                    .load_openapi(&dir, openapi)
                    .map_err(|m| fail(Some("openapi".into()), m))?;
                self.schema = schema.map(Rc::new);
                self.schema_decided = true;
            }
        }
        self.accumulated.push(dir.clone());
        self.stack.push(dir.clone());
        let result = self.accumulate_fields(&dir, &k, input, &fail);
        self.stack.pop();
        result
    }

    /// The fields of a kustomization, in kustomize's order.
    fn accumulate_fields(
        &mut self,
        dir: &Path,
        k: &Kustomization,
        input: Option<Vec<Res>>,
        fail: Fail,
    ) -> Result<Target, Error> {
        let mut target = Target {
            resources: input.unwrap_or_default(),
            ..Target::default()
        };
        let kfile = self
            .loader
            .find_kustomization(dir)
            .unwrap_or_else(|_| dir.join("kustomization.yaml"));
        self.resources(dir, k, &mut target, fail)?;
        self.configurations(dir, k, &mut target.config, fail)?;
        self.generators(dir, k, &kfile, &mut target.resources, fail)?;
        // components run after the generators and before the transformers (kustomize v5.1+)
        self.components(dir, k, &mut target, fail)?;
        self.builtin_transformers(dir, k, &mut target, fail)?;
        for kind in builtin_transformer_kinds(k) {
            for r in &mut target.resources {
                r.transformations.push(Origin::Transformer {
                    configured_in: kfile.clone(),
                    kind: kind.to_string(),
                    name: None,
                    namespace: None,
                });
            }
        }
        self.transformers(dir, k, &kfile, &mut target, fail)?;
        if let Some(validators) = k.validators.as_ref().and_then(Node::as_sequence) {
            if !validators.items.is_empty() {
                return Err(fail(
                    Some("validators".into()),
                    "validator plugins are not supported".into(),
                ));
            }
        }
        vars(k.vars.as_ref(), &mut target, fail)?;
        if let Some(sort) = &k.sort_options {
            transform::check_sort_options(sort).map_err(|m| fail(Some("sortOptions".into()), m))?;
            // Only the kustomization being built decides the output order.
            if self.stack.len() == 1 {
                target.sort = sort.get("order").and_then(Node::as_str).map(str::to_string);
                target.legacy_order = sort
                    .get("legacySortOptions")
                    .filter(|o| !o.is_null())
                    .map(|o| (strings(o.get("orderFirst")), strings(o.get("orderLast"))));
            }
        }
        if let Some(bm) = k.build_metadata.as_ref().and_then(Node::as_sequence) {
            let wants = |s: &str| bm.items.iter().any(|i| i.as_str() == Some(s));
            build_metadata(
                &mut target.resources,
                dir,
                BuildMetadata {
                    origin: wants("originAnnotations"),
                    transformations: wants("transformerAnnotations"),
                    managed_by: wants("managedByLabel")
                        .then_some(self.loader.options.managed_by.as_str()),
                },
            );
        }
        Ok(target)
    }

    /// `resources` (and the legacy `bases`): files and kustomization directories.
    fn resources(
        &mut self,
        dir: &Path,
        k: &Kustomization,
        target: &mut Target,
        fail: Fail,
    ) -> Result<(), Error> {
        let mut entries = strings(k.resources.as_ref());
        entries.extend(strings(k.bases.as_ref()));
        let mut appender = Appender::new(&target.resources);
        for (i, entry) in entries.iter().enumerate() {
            let label = Some(format!("resources[{i}] `{entry}`"));
            let sub = self
                .load_resource(dir, entry)
                .map_err(|m| fail(label.clone(), format!("accumulating resources: {m}")))?;
            match sub {
                Loaded::Files(nodes) => {
                    let file = absolutize(&self.loader.resolve(dir, entry));
                    for node in nodes {
                        let mut res = Res::new(node);
                        res.origin = Some(Origin::File(file.clone()));
                        appender
                            .append(&mut target.resources, res)
                            .map_err(|m| fail(label.clone(), m))?;
                    }
                }
                Loaded::Target(t) => {
                    let t = *t;
                    for r in t.resources {
                        appender
                            .append(&mut target.resources, r)
                            .map_err(|m| fail(label.clone(), m))?;
                    }
                    target.config.merge(&t.config);
                    for v in t.vars {
                        if target.vars.iter().any(|x| x.name == v.name) {
                            return Err(fail(
                                label.clone(),
                                format!("var '{}' already encountered", v.name),
                            ));
                        }
                        target.vars.push(v);
                    }
                }
            }
        }
        Ok(())
    }

    /// `configurations` and `crds`: custom field specs.
    fn configurations(
        &self,
        dir: &Path,
        k: &Kustomization,
        config: &mut Config,
        fail: Fail,
    ) -> Result<(), Error> {
        for (i, entry) in strings(k.configurations.as_ref()).iter().enumerate() {
            let label = Some(format!("configurations[{i}] `{entry}`"));
            let (_, text) = self
                .loader
                .read_file(dir, entry)
                .map_err(|m| fail(label.clone(), m))?;
            let parsed = transform::parse_config(&text, self.loader.options.budget.as_ref())
                .map_err(|m| fail(label.clone(), m))?;
            config.merge(&parsed);
        }
        if let Some(crds) = k.crds.as_ref().and_then(Node::as_sequence) {
            for (i, c) in crds.items.iter().enumerate() {
                let Some(entry) = c.as_str() else { continue };
                let label = Some(format!("crds[{i}] `{entry}`"));
                let (_, text) = self
                    .loader
                    .read_file(dir, entry)
                    .map_err(|m| fail(label.clone(), m))?;
                let parsed =
                    transform::parse_crd_config(&text).map_err(|m| fail(label.clone(), m))?;
                config.merge(&parsed);
            }
        }
        Ok(())
    }

    /// `configMapGenerator`, `secretGenerator`, then the `generators` plugin configs.
    fn generators(
        &mut self,
        dir: &Path,
        k: &Kustomization,
        kfile: &Path,
        resources: &mut Vec<Res>,
        fail: Fail,
    ) -> Result<(), Error> {
        let gen_options = k.generator_options.as_ref();
        for (field, list) in [
            (("configMapGenerator", "ConfigMap"), &k.config_map_generator),
            (("secretGenerator", "Secret"), &k.secret_generator),
        ] {
            let mut remote = None;
            let generated = generate::generator_field(
                &self.loader,
                &mut self.env_keys_left_out,
                dir,
                field,
                list.as_ref(),
                gen_options,
                kfile,
                resources,
                fail,
                &mut remote,
            );
            if let Some(url) = remote {
                self.met_remote(dir, &url);
            }
            generated?;
        }
        let generators = k.generators.as_ref();
        self.for_each_plugin(
            ("generators", generators),
            dir,
            kfile,
            fail,
            |this, cfg, at| {
                generate::run_plugin(
                    &this.loader,
                    &mut this.env_keys_left_out,
                    dir,
                    cfg,
                    at,
                    resources,
                    fail,
                )
            },
        )
    }

    /// `components`: each transforms the resources accumulated so far and adds its own.
    fn components(
        &mut self,
        dir: &Path,
        k: &Kustomization,
        target: &mut Target,
        fail: Fail,
    ) -> Result<(), Error> {
        for (i, entry) in strings(k.components.as_ref()).iter().enumerate() {
            let label = Some(format!("components[{i}] `{entry}`"));
            if is_remote(entry) {
                self.met_remote(dir, entry);
                return Err(fail(label, "remote components are not supported".into()));
            }
            let path = self.loader.resolve(dir, entry);
            if !self.loader.options.fs_facts.is_dir(&path) {
                return Err(fail(
                    label,
                    format!(
                        "accumulating components: '{}' must be a directory holding a Component",
                        self.loader.show(&path)
                    ),
                ));
            }
            let resources = std::mem::take(&mut target.resources);
            let t = self.accumulate(&path, Some(resources), true)?;
            target.resources = t.resources;
            target.config.merge(&t.config);
            target.vars.extend(t.vars);
        }
        Ok(())
    }

    /// The builtin transformers' fields, in kustomize's order.
    fn builtin_transformers(
        &self,
        dir: &Path,
        k: &Kustomization,
        target: &mut Target,
        fail: Fail,
    ) -> Result<(), Error> {
        let loader = &self.loader;
        let schema = self.schema.as_deref();
        let (resources, config) = (&mut target.resources, &target.config);
        let psm = k.patches_strategic_merge.as_ref();
        patch_wiring::strategic_merge_field(loader, schema, dir, psm, resources, fail)?;
        patch_wiring::patches_field(loader, schema, dir, k.patches.as_ref(), resources, fail)?;
        transform::namespace_field(k.namespace.as_ref(), resources, config, fail)?;
        transform::name_prefix_suffix_fields(
            k.name_prefix.as_ref(),
            k.name_suffix.as_ref(),
            resources,
            config,
        );
        transform::labels_field(k.labels.as_ref(), resources, config);
        transform::common_labels_field(k.common_labels.as_ref(), resources, config);
        transform::common_annotations_field(k.common_annotations.as_ref(), resources, config);
        let json6902 = k.patches_json6902.as_ref();
        patch_wiring::json6902_field(loader, dir, json6902, resources, fail)?;
        transform::replicas_field(k.replicas.as_ref(), resources, config);
        transform::images_fields(k.images.as_ref(), k.image_tags.as_ref(), resources, config);
        let replacements = k.replacements.as_ref();
        patch_wiring::replacements_field(loader, dir, replacements, resources, fail)
    }

    /// `transformers`: builtin transformers' plugin configs, each recorded on every resource.
    fn transformers(
        &mut self,
        dir: &Path,
        k: &Kustomization,
        kfile: &Path,
        target: &mut Target,
        fail: Fail,
    ) -> Result<(), Error> {
        let transformers = k.transformers.as_ref();
        self.for_each_plugin(
            ("transformers", transformers),
            dir,
            kfile,
            fail,
            |this, cfg, at| {
                transform::run_plugin(
                    &this.loader,
                    this.schema.as_deref(),
                    dir,
                    cfg,
                    &mut target.resources,
                    &target.config,
                    fail,
                )?;
                let meta = |key: &str| {
                    cfg.get_path(&["metadata", key])
                        .and_then(Node::as_str)
                        .map(str::to_string)
                };
                for r in &mut target.resources {
                    r.transformations.push(Origin::Transformer {
                        configured_in: at.to_path_buf(),
                        kind: cfg
                            .get("kind")
                            .and_then(Node::as_str)
                            .unwrap_or("")
                            .to_string(),
                        name: meta("name"),
                        namespace: meta("namespace"),
                    });
                }
                Ok(())
            },
        )
    }

    fn load_openapi(&self, dir: &Path, openapi: &Node) -> Result<Option<PatchSchema>, String> {
        let path = openapi.get("path").and_then(Node::as_str);
        let version = openapi.get("version").and_then(Node::as_str);
        if path.is_some() && version.is_some() {
            return Err("builtin version and custom schema provided, cannot use both".into());
        }
        if let Some(v) = version {
            if v != "v1.21.2" {
                return Err(format!(
                    "the specified OpenAPI version is not built in: {v}"
                ));
            }
            return Ok(None);
        }
        let Some(path) = path else { return Ok(None) };
        let (_, text) = self.loader.read_file(dir, path)?;
        let doc = if path.ends_with(".json") {
            let value: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
            offlux_yaml::from_json(&value)
        } else {
            let options = ParseOptions {
                run: self.loader.options.budget.clone(),
                ..ParseOptions::default()
            };
            parse_stream(&text, &options)
                .map_err(|e| format!("{path}: {e}"))?
                .into_iter()
                .next()
                .map(|d| d.into_root())
                .unwrap_or_else(Node::null)
        };
        PatchSchema::from_openapi(&doc)
            .map(Some)
            .map_err(|e| e.to_string())
    }

    /// Runs `run` on each plugin config of the `generators` or `transformers` field (`name`,
    /// `field`), with where it was configured; an entry's configs run before the next entry
    /// is read.
    fn for_each_plugin(
        &mut self,
        (name, field): (&str, Option<&Node>),
        dir: &Path,
        kfile: &Path,
        fail: Fail,
        mut run: impl FnMut(&mut Self, &Node, &Path) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let Some(entries) = field.and_then(Node::as_sequence) else {
            return Ok(());
        };
        for (i, entry) in entries.items.iter().enumerate() {
            let configs = self
                .plugin_configs(dir, entry)
                .map_err(|m| fail(Some(format!("{name}[{i}]")), m))?;
            let configured_in = configured_in(&self.loader, dir, entry, kfile);
            for cfg in &configs {
                run(self, cfg, &configured_in)?;
            }
        }
        Ok(())
    }

    /// The plugin configurations of a `generators`/`transformers` entry: a file (one or more
    /// documents), a directory holding a kustomization whose output are the configs, or inline.
    fn plugin_configs(&mut self, dir: &Path, entry: &Node) -> Result<Vec<Node>, String> {
        if let Some(name) = entry.as_str() {
            if name.contains('\n') || name.contains(": ") {
                return parse_resources(name);
            }
            let path = dir.join(name);
            if self.loader.options.fs_facts.is_dir(&path) {
                let t = self
                    .accumulate(&path, None, false)
                    .map_err(|e| e.to_string())?;
                return Ok(t.resources.into_iter().map(|r| r.node).collect());
            }
            let (_, text) = self.loader.read_file(dir, name)?;
            return parse_resources(&text);
        }
        Ok(vec![entry.clone()])
    }

    /// Records the first remote entry met, with the kustomization file in `dir` listing it.
    fn met_remote(&mut self, dir: &Path, entry: &str) {
        if self.remote.is_none() {
            let kfile = self
                .loader
                .find_kustomization(dir)
                .unwrap_or_else(|_| dir.join("kustomization.yaml"));
            self.remote = Some((absolutize(&kfile), entry.to_owned()));
        }
    }

    fn load_resource(&mut self, dir: &Path, entry: &str) -> Result<Loaded, String> {
        if is_remote(entry) {
            self.met_remote(dir, entry);
            return Err(format!(
                "accumulation err='accumulating resources from '{entry}': remote resources are not supported offline'"
            ));
        }
        let path = self.loader.resolve(dir, entry);
        match self.loader.kind(&path) {
            Some(FileKind::Directory) => self
                .accumulate_base(&path)
                .map(|t| Loaded::Target(Box::new(t)))
                // the inner error keeps its own file and entry
                .map_err(|e| {
                    format!("accumulation err='accumulating resources from '{entry}': {e}'")
                }),
            Some(FileKind::File) => self.loader.load_file(dir, entry, &path).map(Loaded::Files),
            _ => {
                let shown = self.loader.show(&absolutize(&path));
                Err(format!(
                    "accumulation err='accumulating resources from '{entry}': evalsymlink failure on '{shown}' : lstat {shown}: no such file or directory': must build at directory: not a valid directory: evalsymlink failure on '{shown}' : lstat {shown}: no such file or directory"
                ))
            }
        }
    }
}

impl Builder<'_> {
    /// A directory under `resources`: its result from earlier in this build when there is one
    /// (see [`Reused`]), else accumulated.
    fn accumulate_base(&mut self, path: &Path) -> Result<Target, Error> {
        let key = (
            absolutize(path),
            self.schema.as_ref().map(|s| Rc::as_ptr(s) as usize),
            self.schema_decided,
        );
        match self.reused.get(&key) {
            Some(Some(kept)) if !self.stack.iter().any(|dir| kept.dirs.contains(dir)) => {
                let kept = Rc::clone(kept);
                self.accumulated.extend(kept.dirs.iter().cloned());
                for message in &kept.diagnostics {
                    if !self.diagnostics.contains(message) {
                        self.diagnostics.push(message.clone());
                    }
                }
                for left_out in &kept.env_keys_left_out {
                    if !self.env_keys_left_out.contains(left_out) {
                        self.env_keys_left_out.push(left_out.clone());
                    }
                }
                return Ok(kept.target.clone());
            }
            Some(Some(_)) => return self.accumulate(path, None, false),
            Some(None) => {}
            None => {
                self.reused.insert(key, None);
                return self.accumulate(path, None, false);
            }
        }
        let marks = (
            self.accumulated.len(),
            self.diagnostics.len(),
            self.env_keys_left_out.len(),
        );
        let target = self.accumulate(path, None, false)?;
        let kept = Reused {
            target: target.clone(),
            dirs: self.accumulated[marks.0..].iter().cloned().collect(),
            diagnostics: self.diagnostics[marks.1..].to_vec(),
            env_keys_left_out: self.env_keys_left_out[marks.2..].to_vec(),
        };
        self.reused.insert(key, Some(Rc::new(kept)));
        Ok(target)
    }
}

enum Loaded {
    Files(Vec<Node>),
    Target(Box<Target>),
}

/// `vars`: each legacy var, pinned to the one object it names here.
fn vars(field: Option<&Node>, target: &mut Target, fail: Fail) -> Result<(), Error> {
    let Some(vars) = field.and_then(Node::as_sequence) else {
        return Ok(());
    };
    for v in &vars.items {
        let name = v
            .get("name")
            .and_then(Node::as_str)
            .unwrap_or("")
            .to_string();
        if target.vars.iter().any(|x| x.name == name) {
            return Err(fail(
                Some("vars".into()),
                format!("var '{name}' already encountered"),
            ));
        }
        let objref = v.get("objref");
        let get = |k: &str| objref.and_then(|o| o.get(k)).and_then(Node::as_str);
        let var = Var {
            name,
            kind: get("kind").unwrap_or("").to_string(),
            api_version: get("apiVersion").map(str::to_string),
            obj_name: get("name").unwrap_or("").to_string(),
            namespace: get("namespace").map(str::to_string),
            field_path: v
                .get_path(&["fieldref", "fieldpath"])
                .and_then(Node::as_str)
                .unwrap_or("metadata.name")
                .to_string(),
        };
        // kustomize's `ResAccumulator.MergeVars`: the var is bound here, in the kustomization
        // that declares it, to the one object it names; resolving looks for the bound object
        // only, so two bases may each declare a var naming their own `elasticsearch`.
        let here: Vec<usize> = target
            .resources
            .iter()
            .enumerate()
            .filter(|(_, r)| transform::var_matches(&var, r))
            .map(|(i, _)| i)
            .collect();
        match here.as_slice() {
            [] => {}
            [one] => {
                if let Some(r) = target.resources.get_mut(*one) {
                    r.ref_var_names.push(var.name.clone());
                }
            }
            several => {
                return Err(fail(
                    Some("vars".into()),
                    format!(
                        "found {} resId matches for var '{}' (unable to disambiguate)",
                        several.len(),
                        var.name
                    ),
                ))
            }
        }
        target.vars.push(var);
    }
    Ok(())
}

/// What `buildMetadata` asks for.
struct BuildMetadata<'a> {
    origin: bool,
    transformations: bool,
    managed_by: Option<&'a str>,
}

/// `buildMetadata`: origin and transformation annotations, the managed-by label.
fn build_metadata(resources: &mut [Res], dir: &Path, wants: BuildMetadata) {
    if wants.origin {
        for r in resources.iter_mut() {
            let already = r
                .node
                .get_path(&["metadata", "annotations", ORIGIN])
                .is_some();
            if let (false, Some(origin)) = (already, &r.origin) {
                let text = origin_text(origin, dir);
                transform::set_map_field(&mut r.node, &["metadata", "annotations"], ORIGIN, &text);
            }
        }
    }
    if wants.transformations {
        for r in resources.iter_mut() {
            if r.transformations.is_empty() {
                continue;
            }
            let mut text = String::new();
            for t in &r.transformations {
                let entry = origin_text(t, dir);
                for (i, line) in entry.lines().enumerate() {
                    text.push_str(if i == 0 { "- " } else { "  " });
                    text.push_str(line);
                    text.push('\n');
                }
            }
            transform::set_map_field(
                &mut r.node,
                &["metadata", "annotations"],
                "alpha.config.kubernetes.io/transformations",
                &text,
            );
        }
    }
    if let Some(managed_by) = wants.managed_by {
        for r in resources.iter_mut() {
            transform::set_map_field(
                &mut r.node,
                &["metadata", "labels"],
                "app.kubernetes.io/managed-by",
                managed_by,
            );
        }
    }
}

const ORIGIN: &str = "config.kubernetes.io/origin";

/// `to` relative to the directory `from`, with `..` steps.
fn relative(to: &Path, from: &Path) -> String {
    let to: Vec<_> = to.components().collect();
    let from: Vec<_> = from.components().collect();
    let common = to.iter().zip(&from).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); from.len().saturating_sub(common)];
    parts.extend(
        to.iter()
            .skip(common)
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

fn origin_text(origin: &Origin, dir: &Path) -> String {
    match origin {
        Origin::File(path) => format!("path: {}\n", relative(path, dir)),
        Origin::Generator {
            configured_in,
            kind,
            name,
        }
        | Origin::Transformer {
            configured_in,
            kind,
            name,
            ..
        } => {
            let mut out = format!(
                "configuredIn: {}\nconfiguredBy:\n  apiVersion: builtin\n  kind: {kind}\n",
                relative(configured_in, dir)
            );
            if let Some(n) = name {
                out.push_str(&format!("  name: {n}\n"));
            }
            if let Origin::Transformer {
                namespace: Some(ns),
                ..
            } = origin
            {
                out.push_str(&format!("  namespace: {ns}\n"));
            }
            out
        }
    }
}

/// Labels and annotations are string maps in kustomize's typed object metadata: values that
/// read as numbers or booleans come out quoted.
fn stringify_metadata_maps(node: &mut Node) {
    let Some(meta) = node
        .as_mapping_mut()
        .and_then(|m| m.get_mut("metadata"))
        .and_then(Node::as_mapping_mut)
    else {
        return;
    };
    for key in ["labels", "annotations"] {
        if let Some(Node::Mapping(m)) = meta.get_mut(key) {
            for e in &mut m.entries {
                if let Node::Scalar(s) = &mut e.value {
                    if s.is_null() {
                        *s = offlux_yaml::Scalar::string("");
                    } else if !s.style.is_quoted() {
                        s.style = offlux_yaml::ScalarStyle::DoubleQuoted;
                        s.tag = None;
                    }
                }
            }
        }
    }
}
