//! The Kustomization body: its source resolved, its kustomization generated or read, built,
//! post-build substituted, and its objects applied (a server-side dry run) and published.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use offlux_sync::MutexExt as _;

use super::{health, label_of, BuildError, BuiltObject, Reconcile, Runtime};
use crate::controllers::external_artifact::ArtifactRoot;
use crate::controllers::generate;
use crate::controllers::postbuild::{self, Variables};
use crate::controllers::source::{self, SourceResolution};
use crate::discovery::{apply_variable_defaults, secure_join};
use crate::model::{DataRef, FluxKind, FluxObject, Kustomization, Object, ResourceId};
use crate::schedule::{DrainLevel, Outcome};
use crate::store::StatusRecord;
use crate::yaml::Node;

pub(super) struct Body;

impl Reconcile for Body {
    fn reconcile(
        &self,
        run: &Runtime<'_>,
        flux: &FluxObject,
        drain: DrainLevel,
    ) -> Outcome<ResourceId> {
        run.reconcile_kustomization(flux, drain)
    }
}

impl Runtime<'_> {
    fn reconcile_kustomization(&self, flux: &FluxObject, drain: DrainLevel) -> Outcome<ResourceId> {
        let id = &flux.object.id;
        let Some(spec) = flux.as_kustomization() else {
            return Outcome::Terminal;
        };
        // Applied already from this very object (its gate passed then, and the notes of its
        // build stay on its row): only its health checks are left.
        if let Some(checked) = self.waiting_for_health(flux) {
            return self.check_health(id, &checked, drain);
        }
        self.stop_health_checks(id);
        if let Some(outcome) = self.suspend_or_gate(flux, spec.suspend, drain) {
            return outcome;
        }
        let namespace = flux.namespace();
        let source_id = {
            let r = &spec.source_ref;
            let ns = if r.namespace.is_empty() {
                namespace
            } else {
                &r.namespace
            };
            let group = FluxKind::from_kind(&r.kind).map_or("", |k| k.group());
            ResourceId::new(&format!("{group}/v1"), &r.kind, ns, &r.name)
        };
        let path = self.spec_path(flux, &spec.path);
        let mut artifact = None;
        if let Some(mapped) = self.mapped_source(&source_id) {
            match mapped {
                Ok(root) => artifact = Some(root),
                Err(message) => return self.fail(id, message),
            }
        } else if source_id.kind == FluxKind::ExternalArtifact.as_str() {
            match self.external_artifact(&source_id, drain) {
                None => return Outcome::Blocked(vec![source_id]),
                Some(Ok(root)) => artifact = Some(root),
                Some(Err(message)) => {
                    self.withdraw_output(id);
                    self.store.set_status(
                        id.clone(),
                        StatusRecord::new(self.unavailable_for(id, message), vec![source_id]),
                    );
                    return Outcome::Terminal;
                }
            }
        } else {
            // A source this Kustomization applies itself (the self-managing bootstrap: the root
            // Kustomization applies the GitRepository it reads) is in the cluster from the
            // bootstrap or the previous apply: kustomize-controller reads it there
            // (`KustomizationReconciler.reconcile` gets the source object before building), so
            // it is no gate; offline it is read as the repository defines it.
            let resolution = if self.applies(id, &source_id) {
                let resolution = match self.store.get(&source_id) {
                    Some(_) => self.resolve_source(&source_id, drain).unwrap_or_else(|| {
                        source::resolve(&source_id, self.repository, self.git_remote.as_deref())
                    }),
                    None => {
                        source::resolve(&source_id, self.repository, self.git_remote.as_deref())
                    }
                };
                // The standard bootstrap (the bootstrap source, read from this working tree,
                // applied by the Kustomization that reads it, as `flux bootstrap` lays it out)
                // is what every repository does: said on every row it would only be noise. The
                // note stays where it explains something: another source mapped here, or one
                // read from elsewhere.
                let standard = resolution == SourceResolution::WorkingTree { note: None };
                if !standard {
                    self.note_row(
                        id,
                        format!(
                            "{} is applied by this Kustomization (or one it applies); the cluster holds it from the bootstrap or the previous apply, so it is read as the repository defines it",
                            label_of(&source_id)
                        ),
                    );
                }
                Some(resolution)
            } else {
                self.resolve_source(&source_id, drain)
            };
            // A self-managing Kustomization reads its GitRepository from the repository that
            // defines both; offline, that is this one when the checkout's remote says so.
            // Without a remote (an archive, a copy) the user can say it.
            let resolution = match resolution {
                Some(SourceResolution::Unavailable(message))
                    if self.defines_itself_under_its_path(flux, &source_id, &path) =>
                {
                    Some(SourceResolution::Unavailable(format!(
                        "{message}; this Kustomization and its GitRepository are defined under its own path here (a self-managing bootstrap): if that GitRepository is this repository, `--sources {}` reads it from the working tree",
                        source_id.name
                    )))
                }
                other => other,
            };
            // A source defined nowhere fails its consumer itself; one that exists blocks it.
            let (message, blockers) = match resolution {
                None => return Outcome::Blocked(vec![source_id]),
                Some(SourceResolution::WorkingTree { .. }) => {
                    artifact = self.working_tree_ignoring(&source_id);
                    (None, Vec::new())
                }
                Some(SourceResolution::Unavailable(message)) => (Some(message), vec![source_id]),
                Some(SourceResolution::NotFound(message)) => {
                    self.withdraw_output(id);
                    self.store
                        .set(id.clone(), self.source_not_found(id, message));
                    return Outcome::Terminal;
                }
            };
            if let Some(message) = message {
                self.withdraw_output(id);
                self.store.set_status(
                    id.clone(),
                    StatusRecord::new(self.unavailable_for(id, message), blockers),
                );
                return Outcome::Terminal;
            }
        }
        // `substituteFrom` objects this Kustomization applies itself are read from the cluster by
        // kustomize-controller (`SubstituteVariables` loads them when the build is done), where
        // the previous apply left them: they are no gate. Offline they are read as the repository
        // defines them, or, when only the build makes them (a generator), from this build.
        let mut data = Vec::new();
        let mut from_build = Vec::new();
        let variables = match &spec.post_build {
            None => None,
            Some(post_build) => {
                (data, from_build) =
                    self.substitution_data(flux, &post_build.substitute_from, drain);
                // Stands for what the build will render, so that only the others gate.
                let empty = Object {
                    id: ResourceId::new("v1", "ConfigMap", namespace, ""),
                    node: Arc::new(Node::Mapping(crate::yaml::Mapping::new())),
                    file: PathBuf::new(),
                    pos: Default::default(),
                };
                let lookup = |wanted: &ResourceId| {
                    data.iter()
                        .find(|o| &o.id == wanted)
                        .map(|o| o.as_ref())
                        .or_else(|| from_build.contains(wanted).then_some(&empty))
                };
                match self.post_build_variables(flux, post_build, lookup, drain != DrainLevel::None)
                {
                    Ok(variables) => Some(variables),
                    Err(outcome) => return outcome,
                }
            }
        };
        let (root, visible) = match &artifact {
            Some(artifact) => (artifact.root.as_path(), &artifact.files),
            None => (self.repository.root.as_path(), &self.repository.yaml_files),
        };
        let dir = secure_join(root, &path);
        if !self.repository.fs_facts.is_dir(&dir) {
            return self.fail(id, format!("kustomization path not found: {path}"));
        }
        if let Err(e) = crate::fsio::locate(&self.repository.fs_facts, &dir, Some(root)) {
            return self.fail(id, format!("kustomization path `{path}`: {}", e.kind));
        }
        let kustomization = match self.kustomization_for(root, &dir, spec, visible) {
            Ok(kustomization) => kustomization,
            Err(message) => return self.fail(id, message),
        };
        let built = match self.builder.build_with_warnings(root, &dir, &kustomization) {
            Ok((built, warnings)) => {
                if !warnings.is_empty() {
                    let mut diagnostics = self.diagnostics.locked();
                    for warning in warnings {
                        diagnostics.insert(warning.object(id.to_string()));
                    }
                }
                built
            }
            Err(BuildError::Failed(message)) => {
                return self.fail(id, format!("kustomize build failed: {message}"))
            }
            // kustomize-controller builds with kustomize's default file system and fetches
            // remote bases over the network (`KustomizationReconciler.build` →
            // `generator.Build`); offline that is an unavailable input, as an unfetchable source
            // is: SKIPPED with --allow-missing-sources, else failed, and dependants go on with
            // a note through the gate.
            Err(BuildError::Remote { kustomization, url }) => {
                let file = crate::fs_facts::strip_root(&kustomization, root)
                    .unwrap_or(&kustomization)
                    .display()
                    .to_string();
                let message = format!(
                    "kustomize build needs the remote resource `{url}` (listed in `{file}`), which is not available offline"
                );
                self.withdraw_output(id);
                self.store.set_status(
                    id.clone(),
                    StatusRecord::new(self.unavailable_for(id, message), Vec::new()),
                );
                return Outcome::Terminal;
            }
        };
        let variables = match (&spec.post_build, from_build.is_empty()) {
            (Some(post_build), false) => {
                let built_data = self.built_data(id, &built, &from_build);
                let lookup = |wanted: &ResourceId| {
                    data.iter()
                        .chain(&built_data)
                        .find(|o| &o.id == wanted)
                        .map(|o| o.as_ref())
                };
                match self.post_build_variables(flux, post_build, lookup, true) {
                    Ok(variables) => Some(variables),
                    Err(outcome) => return outcome,
                }
            }
            _ => variables,
        };
        let mut children = Vec::with_capacity(built.len());
        for mut object in built {
            // A written artifact's file stands for the source file it was copied from.
            if let Some(artifact) = &artifact {
                object.file = object
                    .file
                    .and_then(|file| artifact.origins.get(&file).cloned().or(Some(file)));
            }
            match self.post_process(flux, spec, object, variables.as_ref(), &path) {
                Ok(object) => children.push(object),
                Err(message) => return self.fail(id, message),
            }
        }
        let checked = health::checked_ids(flux, spec, &children);
        if checked.is_empty() {
            return self.apply_server_side(&flux.object, children);
        }
        match self.apply_objects(&flux.object, children) {
            Err(refused) => refused,
            Ok(false) => Outcome::Terminal,
            Ok(true) => {
                if self
                    .store
                    .status(id)
                    .is_some_and(|r| r.status.is_terminal())
                {
                    self.store.set(id.clone(), crate::store::Status::Pending);
                }
                self.start_health_checks(flux, checked, drain)
            }
        }
    }

    /// `spec.path` as kustomize-controller reads it: as the object holds it (`reconcile`:
    /// `securejoin.SecureJoin(tmpDir, obj.Spec.Path)`, then "kustomization path not found").
    /// A `${VAR:=default}` there is resolved only by the post-build of the producer that applied
    /// this one in the run (`KustomizationReconciler.build` substitutes only
    /// `if obj.Spec.PostBuild != nil`), which the object already reflects where it ran. When that
    /// producer has no variables to substitute (no `postBuild`, an empty one, or it is no
    /// Kustomization), the text is read as it is. When its variables come from objects offlux
    /// could not read (what only the cluster holds), or nothing in the run applies this one (an
    /// entry point, which a bootstrap or the cluster applies), offline cannot tell: the default is
    /// taken, with a note saying so.
    fn spec_path(&self, flux: &FluxObject, written: &str) -> String {
        // An object that opts out of substitution keeps its text whoever applies it
        // (fluxcd/pkg's `SubstituteVariables` returns it untouched).
        if !written.contains('$') || crate::substitute::is_substitution_disabled(&flux.object.node)
        {
            return written.to_owned();
        }
        // The producer whose build the run took this object from, not a static guess: a
        // Kustomization whose `spec.path` covers the file but that nothing applies substitutes
        // nothing.
        let parent_substitutes = self.applier_of(&flux.object.id).map(|parent| {
            let parent = self
                .store
                .get(&parent)
                .and_then(|object| FluxObject::from_object(&object).ok().flatten());
            // fluxcd/pkg's `SubstituteVariables` substitutes only when it has variables.
            parent.is_some_and(|parent| {
                parent.as_kustomization().is_some_and(|k| {
                    k.post_build
                        .as_ref()
                        .is_some_and(|p| !p.substitute.is_empty() || !p.substitute_from.is_empty())
                })
            })
        });
        if parent_substitutes == Some(false) {
            return written.to_owned();
        }
        match apply_variable_defaults(written) {
            Ok(resolved) if resolved != written => {
                self.note_row(
                    &flux.object.id,
                    format!(
                        "`spec.path` `{written}` holds a variable no post-build substituted here \
                         (its values may come from the cluster); built `{resolved}`, its default"
                    ),
                );
                resolved
            }
            _ => written.to_owned(),
        }
    }

    /// The post-build variables of a Kustomization from the ConfigMaps and Secrets `find` gives
    /// (`postbuild::collect`), a Secret an in-repository producer makes assumed with a note on the
    /// row; or the outcome when one is still awaited or missing.
    fn post_build_variables<'a>(
        &self,
        flux: &FluxObject,
        post_build: &crate::model::PostBuild,
        find: impl Fn(&ResourceId) -> Option<&'a Object>,
        absent_is_final: bool,
    ) -> Result<postbuild::Collected, Outcome<ResourceId>> {
        let declared = |wanted: &ResourceId| self.cluster_producer(wanted);
        let mut notes = Vec::new();
        match postbuild::collect(
            flux.namespace(),
            post_build,
            &self.options.user_values,
            postbuild::Lookups { find, declared },
            absent_is_final,
            &mut notes,
        ) {
            Variables::Ready(variables) => {
                self.assumed(flux, notes);
                Ok(variables)
            }
            Variables::Wait(ids) => Err(Outcome::Blocked(ids)),
            // fluxcd/pkg `kustomize.LoadVariables` gets each non-optional object from the
            // cluster and fails when it is not there. Nothing in the repository accounts for this
            // one; whether the cluster holds it (made by hand, or by something the repository
            // does not show) is unknowable offline: with `--allow-missing-sources` the row says
            // so instead of failing.
            Variables::NotFound(message) if self.options.allow_missing_sources => Err(self
                .depends_on_cluster(
                    &flux.object.id,
                    format!(
                        "{message}; nothing in the repository makes it, so whether the cluster \
                         holds it cannot be told offline"
                    ),
                )),
            Variables::NotFound(message) => Err(self.fail(&flux.object.id, message)),
        }
    }

    /// The working tree as the artifact of a GitRepository with `spec.ignore` holds it (its
    /// patterns judged after `.sourceignore`'s, as source-controller's `reconcileArtifact` does);
    /// `None` for a source without one, whose artifact is the working tree as discovery listed it.
    fn working_tree_ignoring(&self, source: &ResourceId) -> Option<Arc<ArtifactRoot>> {
        let ignore = self.spec_ignore(source)?;
        let known = self.artifacts.locked().get(source).cloned();
        if let Some(Ok(known)) = known {
            return Some(known);
        }
        let files = crate::discovery::yaml_files_ignoring(
            &self.repository.root,
            &self.repository.fs_facts,
            &ignore,
        );
        let root = Arc::new(ArtifactRoot {
            root: self.repository.root.clone(),
            files,
            origins: BTreeMap::new(),
            _mount: None,
        });
        {
            let mut artifacts = self.artifacts.locked();
            artifacts.insert(source.clone(), Ok(root.clone()));
        }
        Some(root)
    }

    /// Whether `flux` (a Kustomization) and its GitRepository `source` are both written in this
    /// working tree under `path`, the directory it applies from that source: the layout of a
    /// self-managing bootstrap, whose source is, in all likelihood, this repository.
    fn defines_itself_under_its_path(
        &self,
        flux: &FluxObject,
        source: &ResourceId,
        path: &str,
    ) -> bool {
        // A checkout's remote says which repository this is (and it is not this source's, or
        // the source would have been read from here); a path at the root holds everything.
        let relative = path.trim_start_matches("./").trim_matches('/');
        if source.kind != FluxKind::GitRepository.as_str()
            || self.git_remote.is_some()
            || relative.is_empty()
            || relative == "."
        {
            return false;
        }
        let root = &self.repository.root;
        let dir = root.join(relative);
        let under = |file: &Path| {
            let file = if file.is_absolute() {
                file.to_path_buf()
            } else {
                root.join(file)
            };
            file.starts_with(&dir)
        };
        under(&flux.object.file)
            && self
                .repository
                .flux_objects
                .iter()
                .any(|f| f.object.id == *source && under(&f.object.file))
    }

    /// The `substituteFrom` objects of `flux`: those it applies itself (see [`Runtime::applies`])
    /// as `--substitute-from` supplies them or the repository defines them, each with a note;
    /// the rest as the Store holds them now ([`Runtime::data_objects`]). The second list holds
    /// the ids it applies itself that no file defines: they come from its own build.
    fn substitution_data(
        &self,
        flux: &FluxObject,
        references: &[DataRef],
        drain: DrainLevel,
    ) -> (Vec<Arc<Object>>, Vec<ResourceId>) {
        let id = &flux.object.id;
        let namespace = flux.namespace();
        let (own, others): (Vec<DataRef>, Vec<DataRef>) =
            references.iter().cloned().partition(|r| {
                matches!(r.kind.as_str(), "ConfigMap" | "Secret")
                    && self.applies(id, &ResourceId::new("v1", &r.kind, namespace, &r.name))
            });
        let mut data = self.data_objects(flux, &others, drain);
        let mut from_build = Vec::new();
        for reference in own {
            let wanted = ResourceId::new("v1", &reference.kind, namespace, &reference.name);
            let supplied = self
                .options
                .extra_objects
                .iter()
                .find(|o| {
                    o.id.kind == wanted.kind
                        && o.id.name == wanted.name
                        && (o.id.namespace.is_empty() || o.id.namespace == wanted.namespace)
                })
                .map(|o| {
                    let mut object = o.clone();
                    object.id.namespace = wanted.namespace.clone();
                    (object, "as `--substitute-from` supplies it".to_owned())
                });
            let written = || {
                let first = self
                    .repository
                    .data_objects
                    .partition_point(|o| o.id < wanted);
                self.repository
                    .data_objects
                    .get(first)
                    .filter(|o| o.id == wanted)
                    .map(|o| {
                        (
                            o.clone(),
                            format!("as the repository defines it in `{}`", o.file.display()),
                        )
                    })
            };
            let how = match supplied.or_else(written) {
                Some((object, how)) => {
                    data.push(Arc::new(object));
                    how
                }
                None => {
                    from_build.push(wanted.clone());
                    "as this build renders it".to_owned()
                }
            };
            self.note_row(
                id,
                format!(
                    "substituteFrom {} is applied by this Kustomization (or one it applies); the cluster holds it from the previous apply, so it is read {how}",
                    label_of(&wanted)
                ),
            );
        }
        (data, from_build)
    }

    /// The objects among `built` that stand for the `substituteFrom` ids in `wanted`, as they are
    /// before substitution; an object the build leaves without a namespace is in the reader's.
    fn built_data(
        &self,
        reader: &ResourceId,
        built: &[BuiltObject],
        wanted: &[ResourceId],
    ) -> Vec<Arc<Object>> {
        let mut found = Vec::new();
        for object in built {
            let Ok(Some(mut object)) = Object::from_node(
                object.node.clone(),
                object.file.clone().unwrap_or_default(),
                Default::default(),
            ) else {
                continue;
            };
            if object.id.namespace.is_empty() {
                object.id.namespace = reader.namespace.clone();
            }
            if wanted.iter().any(|w| {
                w.kind == object.id.kind
                    && w.name == object.id.name
                    && w.namespace == object.id.namespace
                    && object.id.group.is_empty()
            }) {
                found.push(Arc::new(object));
            }
        }
        found
    }

    fn kustomization_for(
        &self,
        root: &Path,
        dir: &Path,
        spec: &Kustomization,
        visible: &[PathBuf],
    ) -> Result<Node, String> {
        match generate::existing_kustomization_file(dir, &self.repository.fs_facts) {
            Some(file) => {
                let existing = match self.repository.parsed_files.get(&file) {
                    Some(documents) => documents.first().map(|d| Node::clone(&d.root)),
                    None => {
                        let text = crate::fsio::read_to_string(
                            &self.repository.fs_facts,
                            &file,
                            crate::fsio::Confine::within(root),
                        )
                        .map_err(|e| format!("reading {e}"))?;
                        let options = crate::yaml::ParseOptions {
                            run: Some(self.options.budget.clone()),
                            ..crate::yaml::ParseOptions::default()
                        };
                        let documents = crate::yaml::parse_stream(&text, &options)
                            .map_err(|e| format!("{}:{e}", file.display()))?;
                        documents.into_iter().next().map(|d| d.into_root())
                    }
                };
                generate::merge(existing, Vec::new(), spec)
            }
            None => generate::merge(
                None,
                generate::generated_resources(dir, visible, &self.repository.fs_facts),
                spec,
            ),
        }
    }
}
