//! The Flux Operator's ResourceSet and ResourceSetInputProvider controllers, on the runtime's
//! Store: a ResourceSet waits for its dependencies, the providers its `inputsFrom` names and
//! the ConfigMaps and Secrets its copy annotations read, renders through the `resourceset`
//! engine, and publishes what it generated so that generated Kustomizations, HelmReleases and
//! sources reconcile like any other. Each generated object points at the ResourceSet's file
//! and line.
//!
//! Offline rules: a `Static` provider exports `defaultValues` plus the id of its name (the
//! operator's CLI does the same; in a cluster the id comes from the provider's UID). Other
//! provider types query Git forges, registries or services: their inputs come from
//! `--resourceset-inputs PROVIDER=FILE` (with `defaultValues` merged in, as the operator does),
//! otherwise the provider and the ResourceSets reading it are skipped with the reason. A
//! `dependsOn` entry on a kind the run cannot hold (a CRD, a Deployment) is assumed to exist,
//! with a note.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use offlux_sync::MutexExt as _;
use serde_json::{Map, Value as Json};

use super::{Reconcile, Runtime};
use crate::controllers::depend::{self, Dependency};
use crate::diagnostic::Diagnostic;
use crate::model::{FluxKind, FluxObject, Object, ResourceId};
use crate::resourceset::{
    self, ArtifactFacts, InputSource, Mode, ProviderReference, ProviderSpec, Request,
    ResourceSetSpec, RECONCILE_ANNOTATION,
};
use crate::schedule::{DrainLevel, Outcome};
use crate::store::{Ready, Status, StatusRecord};
use crate::yaml::Node;

/// The inputs of providers that cannot be queried offline, by `namespace/name` (or `name`, for
/// any namespace), as read from `--resourceset-inputs` files. Supplied inputs replace what a
/// provider would export.
pub type SuppliedInputs = BTreeMap<String, Vec<Map<String, Json>>>;

fn spec_json(object: &Object) -> Json {
    object
        .node
        .get("spec")
        .map(resourceset::yaml_to_json)
        .unwrap_or(Json::Object(Map::new()))
}

fn annotation<'a>(object: &'a Object, key: &str) -> Option<&'a str> {
    object
        .node
        .get_path(&["metadata", "annotations", key])
        .and_then(Node::as_str)
}

fn labels(object: &Object) -> BTreeMap<String, String> {
    object
        .node
        .get_path(&["metadata", "labels"])
        .and_then(Node::as_mapping)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.to_owned(), v.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

/// What a provider exports offline.
enum Exported {
    Inputs(Vec<Map<String, Json>>),
    /// The inputs cannot be had offline, for this reason.
    Unavailable(String),
    /// ExternalArtifacts may still arrive.
    Wait(ResourceId),
}

fn provider_key(id: &ResourceId) -> String {
    format!("{}/{}", id.namespace, id.name)
}

impl Runtime<'_> {
    /// What `provider` exports: a Static provider its `defaultValues` and the id of its name; an
    /// ExternalArtifact provider the matching ExternalArtifacts the run holds (once nothing more
    /// can arrive); any provider the inputs supplied for it, with `defaultValues` merged in.
    fn exported(
        &self,
        provider: &Object,
        drain: DrainLevel,
    ) -> Result<Exported, resourceset::Error> {
        let spec = ProviderSpec::from_json(&spec_json(provider))?;
        let id = &provider.id;
        let supplied = &self.options.resourceset_inputs;
        let key = provider_key(id);
        if let Some(sets) = supplied
            .get(&key)
            .or_else(|| supplied.get(id.name.as_str()))
        {
            return Ok(Exported::Inputs(
                sets.iter()
                    .map(|set| {
                        resourceset::with_defaults(set.clone(), spec.default_values.as_ref())
                    })
                    .collect(),
            ));
        }
        match spec.provider_type.as_str() {
            "Static" => Ok(Exported::Inputs(resourceset::static_inputs(
                &id.name,
                spec.default_values.as_ref(),
            ))),
            "ExternalArtifact" if drain == DrainLevel::None => Ok(Exported::Wait(ResourceId::new(
                "source.toolkit.fluxcd.io/v1",
                "ExternalArtifact",
                &id.namespace,
                "*",
            ))),
            "ExternalArtifact" => {
                let kind = FluxKind::ExternalArtifact;
                let artifacts: Vec<ArtifactFacts> = self
                    .store
                    .objects_where(|a| a.kind == kind.as_str() && a.group == kind.group())
                    .into_iter()
                    .map(|(artifact, object)| ArtifactFacts {
                        name: artifact.name.to_string(),
                        namespace: artifact.namespace.to_string(),
                        labels: labels(&object),
                        revision: None,
                    })
                    .collect();
                let inputs = resourceset::external_artifact_inputs(&spec, &id.namespace, &artifacts);
                Ok(Exported::Inputs(
                    inputs
                        .into_iter()
                        .map(|set| resourceset::with_defaults(set, spec.default_values.as_ref()))
                        .collect(),
                ))
            }
            other => Ok(Exported::Unavailable(format!(
                "ResourceSetInputProvider type `{other}` cannot be queried offline; supply its inputs with `--resourceset-inputs {key}=FILE`"
            ))),
        }
    }
}

fn provider_id(namespace: &str, name: &str) -> ResourceId {
    ResourceId::new(
        "fluxcd.controlplane.io/v1",
        "ResourceSetInputProvider",
        namespace,
        name,
    )
}

fn is_data_kind(id: &ResourceId) -> bool {
    id.group.is_empty() && matches!(id.kind.as_str(), "ConfigMap" | "Secret")
}

pub(super) struct ResourceSetBody;

pub(super) struct InputProviderBody;

impl Reconcile for ResourceSetBody {
    fn reconcile(
        &self,
        run: &Runtime<'_>,
        flux: &FluxObject,
        drain: DrainLevel,
    ) -> Outcome<ResourceId> {
        run.reconcile_resource_set(flux, drain)
    }
}

impl Reconcile for InputProviderBody {
    fn reconcile(
        &self,
        run: &Runtime<'_>,
        flux: &FluxObject,
        _: DrainLevel,
    ) -> Outcome<ResourceId> {
        run.reconcile_input_provider(flux)
    }
}

impl Runtime<'_> {
    fn reconcile_input_provider(&self, flux: &FluxObject) -> Outcome<ResourceId> {
        let id = &flux.object.id;
        let status = match self.exported(&flux.object, DrainLevel::None) {
            Err(error) => Status::failed(error.to_string()),
            Ok(Exported::Inputs(_) | Exported::Wait(_)) => Status::ready(),
            Ok(Exported::Unavailable(why)) => Status::Ready(Ready::Skipped(why)),
        };
        self.store.set(id.clone(), status);
        Outcome::Terminal
    }

    fn reconcile_resource_set(&self, flux: &FluxObject, drain: DrainLevel) -> Outcome<ResourceId> {
        let id = &flux.object.id;
        let paused = annotation(&flux.object, RECONCILE_ANNOTATION)
            .is_some_and(|v| v.eq_ignore_ascii_case("disabled"));
        if paused {
            self.withdraw_output(id);
            self.store.set(id.clone(), Status::Ready(Ready::Suspended));
            return Outcome::Terminal;
        }
        let spec_json = spec_json(&flux.object);
        let spec = match resourceset::admit_resource_set(&spec_json)
            .and_then(|()| ResourceSetSpec::from_json(&spec_json))
        {
            Ok(spec) => spec,
            Err(error) => return self.fail(id, error.to_string()),
        };
        if let Some(error) = self.ready_expr_error(&flux.object) {
            return self.fail(id, error);
        }
        let (checked, data, assumed) = split_dependencies(depend::dependencies(flux));
        for dependency in &assumed {
            self.note(
                flux,
                format!(
                    "dependency `{}/{}/{}` is not an object offlux reconciles; it is assumed to exist",
                    dependency.kind, dependency.namespace, dependency.name
                ),
            );
        }
        if let Some(outcome) = self.gate_on(flux, checked, drain) {
            return outcome;
        }
        // flux-operator's `ResourceSetReconciler.checkDependencies` gets each dependency from the
        // cluster (and, with `ready`, a ConfigMap or Secret is Current as soon as it exists).
        // One no Kustomization produces is read where the cluster holds it: the bootstrap's
        // (a repository file no Kustomization applies), or one a known operator makes from a
        // rendered object (Cluster API's kubeconfig Secret, an ExternalSecret's target), assumed
        // with a note on the row.
        let mut assumed_data = Vec::new();
        for dependency in data {
            if !self.store.contains(&dependency) {
                if drain == DrainLevel::None {
                    return Outcome::Blocked(vec![dependency]);
                }
                if self.held_outside_the_run(flux, &dependency).is_some() {
                    continue;
                }
                if let Some(producer) = self.cluster_producer(&dependency) {
                    assumed_data.push(format!(
                        "dependency '{}/{}/{}': {producer} makes it in the cluster; assumed to exist",
                        dependency.kind, dependency.namespace, dependency.name
                    ));
                    continue;
                }
                let message = format!(
                    "dependency '{}/{}/{}' not found",
                    dependency.kind, dependency.namespace, dependency.name
                );
                self.withdraw_output(id);
                self.store.set_status(
                    id.clone(),
                    StatusRecord::new(Status::failed(message), vec![dependency]),
                );
                return Outcome::Terminal;
            }
        }
        self.assumed(flux, assumed_data);
        let providers = match self.providers_of(flux, &spec, drain) {
            Ok(providers) => providers,
            Err(outcome) => return outcome,
        };
        let missed: Mutex<BTreeSet<ResourceId>> = Mutex::new(BTreeSet::new());
        let lookup = |kind: &str, namespace: &str, name: &str| -> Option<Map<String, Json>> {
            let wanted = ResourceId::new("v1", kind, namespace, name);
            match self.store.get(&wanted) {
                Some(object) => match resourceset::yaml_to_json(&object.node) {
                    Json::Object(map) => Some(map),
                    _ => None,
                },
                None => {
                    // Once nothing more can arrive, the repository's own definition of an
                    // object no Kustomization applies (the bootstrap applies it).
                    let written = (drain != DrainLevel::None)
                        .then(|| self.held_outside_the_run(flux, &wanted))
                        .flatten();
                    if let Some(object) = written {
                        return match resourceset::yaml_to_json(&object.node) {
                            Json::Object(map) => Some(map),
                            _ => None,
                        };
                    }
                    {
                        let mut missed = missed.locked();
                        missed.insert(wanted);
                    }
                    None
                }
            }
        };
        let request = Request {
            name: flux.name(),
            namespace: flux.namespace(),
            spec: &spec,
            providers,
            mode: Mode::Controller,
            run: self.options.budget.clone(),
            // Once nothing more can arrive, a copy source no Kustomization or file provides is
            // one only the cluster holds (flux-operator copies it from the cluster); before
            // that, the set waits for it.
            assume_cluster_held: drain != DrainLevel::None,
        };
        let rendered = match resourceset::render(&request, &lookup) {
            Ok(rendered) => rendered,
            Err(error) => {
                let missed: Vec<ResourceId> = missed.into_recovered().into_iter().collect();
                if drain == DrainLevel::None && !missed.is_empty() {
                    return Outcome::Blocked(missed);
                }
                return self.fail(id, error.to_string());
            }
        };
        let mut children = Vec::new();
        for generated in rendered.objects() {
            let mut node = crate::yaml::from_json(&Json::Object(generated.clone()));
            super::postbuild::mask_sops(&mut node);
            match Object::from_node(node, flux.object.file.clone(), flux.object.pos) {
                Ok(Some(object)) if !object.id.name.is_empty() => children.push(object),
                _ => {
                    return self.fail(
                        id,
                        format!(
                            "generated object {} has no apiVersion, kind or name",
                            resourceset::object_key(generated)
                        ),
                    )
                }
            }
        }
        self.assumed(flux, rendered.assumed.clone());
        self.apply_server_side(&flux.object, children)
    }

    /// The operator compiles each `readyExpr` of a `ready: true` entry before anything else.
    fn ready_expr_error(&self, object: &Object) -> Option<String> {
        let entries = object
            .node
            .get_path(&["spec", "dependsOn"])?
            .as_sequence()?;
        for entry in &entries.items {
            let ready = entry.get("ready").and_then(Node::as_str) == Some("true");
            let expr = entry.get("readyExpr").and_then(Node::as_str);
            if let (true, Some(expr)) = (ready, expr) {
                if let Err(error) = depend::check_ready_expr(expr) {
                    return Some(format!("failed to parse expression `{expr}`: {error}"));
                }
            }
        }
        None
    }

    fn note(&self, flux: &FluxObject, message: String) {
        {
            let mut diagnostics = self.diagnostics.locked();
            diagnostics.insert(
                Diagnostic::note(message)
                    .at(flux.object.location())
                    .object(flux.object.id.to_string()),
            );
        }
    }

    /// The providers `inputsFrom` selects, with their inputs. A provider named but not (yet) in
    /// the Store is waited for, then fails the ResourceSet; selectors are evaluated once nothing
    /// more can arrive. A provider whose inputs cannot be had offline skips the ResourceSet.
    fn providers_of(
        &self,
        flux: &FluxObject,
        spec: &ResourceSetSpec,
        drain: DrainLevel,
    ) -> Result<Vec<InputSource>, Outcome<ResourceId>> {
        let id = &flux.object.id;
        let namespace = flux.namespace();
        let mut waiting = Vec::new();
        for reference in &spec.inputs_from {
            if let ProviderReference::Name(name) = reference {
                let wanted = provider_id(namespace, name);
                if !self.store.contains(&wanted) {
                    waiting.push(wanted);
                }
            }
        }
        let has_selector = spec
            .inputs_from
            .iter()
            .any(|r| matches!(r, ProviderReference::Selector(_)));
        if drain == DrainLevel::None {
            if has_selector {
                // Any provider of the namespace may still arrive: wait until nothing can.
                waiting.push(provider_id(namespace, "*"));
            }
            if !waiting.is_empty() {
                return Err(Outcome::Blocked(waiting));
            }
        } else if let Some(missing) = waiting.into_iter().next() {
            let message = format!(
                "failed to get provider ResourceSetInputProvider/{namespace}/{}: not found",
                missing.name
            );
            self.withdraw_output(id);
            self.store.set_status(
                id.clone(),
                StatusRecord::new(self.unavailable_for(id, message), vec![missing]),
            );
            return Err(Outcome::Terminal);
        }
        let kind = FluxKind::ResourceSetInputProvider;
        let candidates: Vec<(ResourceId, std::sync::Arc<Object>)> =
            self.store.objects_where(|candidate| {
                candidate.kind == kind.as_str()
                    && candidate.group == kind.group()
                    && candidate.namespace == namespace
            });
        let candidate_labels: Vec<BTreeMap<String, String>> =
            candidates.iter().map(|(_, o)| labels(o)).collect();
        let named: Vec<(&str, &BTreeMap<String, String>)> = candidates
            .iter()
            .zip(&candidate_labels)
            .map(|((cid, _), l)| (cid.name.as_str(), l))
            .collect();
        let mut sources = Vec::new();
        for index in resourceset::select_providers(&spec.inputs_from, &named) {
            let Some((provider_id, provider)) = candidates.get(index) else {
                continue;
            };
            match self.exported(provider, drain) {
                Err(error) => {
                    return Err(self.fail(
                        id,
                        format!(
                            "ResourceSetInputProvider/{}/{}: {error}",
                            provider_id.namespace, provider_id.name
                        ),
                    ))
                }
                Ok(Exported::Wait(wanted)) => return Err(Outcome::Blocked(vec![wanted])),
                Ok(Exported::Unavailable(why)) => {
                    self.withdraw_output(id);
                    self.store.set_status(
                        id.clone(),
                        StatusRecord::new(
                            Status::Ready(Ready::Skipped(format!(
                                "inputs of ResourceSetInputProvider/{}/{} are not available offline: {why}",
                                provider_id.namespace, provider_id.name
                            ))),
                            vec![provider_id.clone()],
                        ),
                    );
                    return Err(Outcome::Terminal);
                }
                Ok(Exported::Inputs(inputs)) => sources.push(InputSource {
                    api_version: resourceset::API_VERSION.into(),
                    kind: kind.as_str().into(),
                    name: provider_id.name.to_string(),
                    namespace: provider_id.namespace.to_string(),
                    inputs,
                }),
            }
        }
        Ok(sources)
    }
}

/// Splits `dependsOn` into what the run reconciles (Flux objects, gated as usual), ConfigMaps and
/// Secrets (which must exist) and everything else (assumed).
fn split_dependencies(
    dependencies: Vec<Dependency>,
) -> (Vec<Dependency>, Vec<ResourceId>, Vec<ResourceId>) {
    let mut checked = Vec::new();
    let mut data = Vec::new();
    let mut assumed = Vec::new();
    for mut dependency in dependencies {
        let id = &dependency.id;
        if FluxKind::from_group_kind(&id.group, &id.kind).is_some() {
            // The operator's `readyExpr` reads the dependency itself, not Flux's `dep`/`self`
            // projection: offline, a Flux dependency is ready when its status is.
            dependency.ready_expr = None;
            checked.push(dependency);
        } else if is_data_kind(id) {
            data.push(dependency.id);
        } else {
            assumed.push(dependency.id);
        }
    }
    (checked, data, assumed)
}
