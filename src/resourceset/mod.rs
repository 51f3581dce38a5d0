//! The Flux Operator's ResourceSet engine: input sets combined from inline inputs and providers
//! (Flatten, Permute), templates rendered with `<< >>` delimiters and the operator's functions
//! (slim-sprig's hermetic set, `slugify`, `toYaml`, `inputs`), deduplication and exclusion,
//! steps, owner labels, `commonMetadata` and the data-copy annotations.
//!
//! Pure: it takes a spec (as JSON), the providers' exported inputs and a lookup for objects
//! outside the set, and returns objects as JSON. It knows nothing of the Store, the scheduler or
//! the CLI; the controller (`controllers::resourceset`) does the waiting and publishing.
//!
//! Supported: everything the operator's builder does, and the reconciler's stages that need no
//! cluster (pause, empty-provider rule, owner labels, commonMetadata, copyFrom,
//! convertKubeConfigFrom, checksumFrom). Not here: applying, health checks, garbage
//! collection, dependency readiness (the controller gates on the Store), querying Git or OCI
//! providers (the controller reads their inputs from files).

mod annotations;
mod build;
mod inputs;
mod slug;
mod spec;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use annotations::{
    decoded_data, ChecksumError, Lookup, CHECKSUM, COPY_FROM, OWNER_NAME, OWNER_NAMESPACE,
};
pub use build::{
    build, build_steps, object_key, to_yaml_text, yaml_to_json, BuiltStep, Templates,
    RECONCILE_ANNOTATION,
};
pub use inputs::{
    combine, id, normalize_key, static_inputs, with_defaults, InputSet, InputSource, InputStrategy,
    PermuteError, Permuter, MAX_PERMUTATIONS,
};
pub use slug::make as slugify;
pub use spec::{
    admit_resource_set, external_artifact_inputs, ArtifactFacts, ArtifactSelector, LabelSelector,
    ProviderReference, ProviderSpec, ResourceSetSpec,
};

use serde_json::{Map, Value as Json};

use crate::budget::RunBudget;

pub const API_VERSION: &str = "fluxcd.controlplane.io/v1";

/// Why a ResourceSet could not be rendered, with the operator's message text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The spec breaks an admission or validation rule.
    #[error("{0}")]
    Spec(String),
    /// Combining the input sets failed.
    #[error("{0}")]
    Inputs(String),
    /// The `Permute` strategy could not take a provider's input sets.
    #[error("failed to get inputs from {provider_kind}/{provider}: {kind}")]
    Permute {
        provider_kind: String,
        provider: String,
        #[source]
        kind: PermuteError,
    },
    /// A template failed to render or to read back.
    #[error("{0}")]
    Build(String),
    /// A data-copy annotation could not be honoured.
    #[error("{0}")]
    Copy(String),
    /// The `checksumFrom` annotation of `object` (`Kind/namespace/name`) could not be honoured.
    #[error("{object}: {kind}")]
    Checksum {
        object: String,
        #[source]
        kind: ChecksumError,
    },
}

/// Whose rules to follow where the reconciler and the offline CLI (`flux-operator build
/// resourceset`) differ: the reconciler renders nothing when `inputsFrom` yields no inputs and
/// lets `commonMetadata` win over the owner labels; the CLI renders once with an empty input
/// set and lets the owner labels win.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Controller,
    Cli,
}

/// What to render: the ResourceSet and the providers its `inputsFrom` selected, with their
/// exported inputs.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
    pub spec: &'a ResourceSetSpec,
    pub providers: Vec<InputSource>,
    pub mode: Mode,
    /// The run's budget: the step cap of each template execution, the cancellation flag.
    pub run: Arc<RunBudget>,
    /// A `copyFrom` or `convertKubeConfigFrom` source the lookup lacks is one the cluster holds
    /// (created when it was provisioned, outside Git): the object keeps no copied data and
    /// `Rendered::assumed` says so. Otherwise such a source fails the set, as the operator fails
    /// when the source is not in the cluster.
    pub assume_cluster_held: bool,
}

/// The rendered ResourceSet: its steps (one unnamed step without `spec.steps`) and the
/// `checksumFrom` references resolved outside the set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rendered {
    pub steps: Vec<BuiltStep>,
    pub external_checksum_refs: Vec<String>,
    /// What was taken to be in the cluster (see `Request::assume_cluster_held`), one note each.
    pub assumed: Vec<String>,
}

impl Rendered {
    pub fn objects(&self) -> impl Iterator<Item = &Map<String, Json>> {
        self.steps.iter().flat_map(|s| &s.objects)
    }
}

/// The reconciler's stages that need no cluster, from inputs to the data-copy annotations.
pub fn render(request: &Request<'_>, lookup: &Lookup<'_>) -> Result<Rendered, Error> {
    let spec = request.spec;
    let own = InputSource {
        api_version: API_VERSION.into(),
        kind: "ResourceSet".into(),
        name: request.name.into(),
        namespace: request.namespace.into(),
        inputs: spec.inputs.clone(),
    };
    let inputs = combine(&own, &request.providers, &spec.input_strategy)?;
    if request.mode == Mode::Controller && !spec.inputs_from.is_empty() && inputs.is_empty() {
        return Ok(Rendered::default());
    }
    let mut steps = if spec.steps.is_empty() {
        vec![BuiltStep {
            name: String::new(),
            objects: build(&spec.templates, &inputs, &request.run)?,
        }]
    } else {
        build_steps(&spec.steps, &inputs, &request.run)?
    };
    let owners = annotations::owner_labels(request.name, request.namespace);
    let mut assumed = Vec::new();
    for object in steps.iter_mut().flat_map(|s| &mut s.objects) {
        match request.mode {
            Mode::Controller => {
                annotations::set_metadata(object, "labels", &owners);
                annotations::set_metadata(object, "labels", &spec.common_labels);
            }
            Mode::Cli => {
                annotations::set_metadata(object, "labels", &spec.common_labels);
                annotations::set_metadata(object, "labels", &owners);
            }
        }
        annotations::set_metadata(object, "annotations", &spec.common_annotations);
        let notes = request.assume_cluster_held.then_some(&mut assumed);
        annotations::copy_from(object, lookup, notes)?;
        let notes = request.assume_cluster_held.then_some(&mut assumed);
        annotations::convert_kubeconfig_from(object, lookup, notes)?;
    }
    let counts: Vec<usize> = steps.iter().map(|s| s.objects.len()).collect();
    let mut all: Vec<Map<String, Json>> = steps
        .iter_mut()
        .flat_map(|s| std::mem::take(&mut s.objects))
        .collect();
    let external_checksum_refs = annotations::checksum_from(&mut all, lookup)?;
    let mut all = all.into_iter();
    for (step, count) in steps.iter_mut().zip(counts) {
        step.objects = all.by_ref().take(count).collect();
    }
    Ok(Rendered {
        steps,
        external_checksum_refs,
        assumed,
    })
}

/// The providers `references` select among `candidates` (name and labels), by index, each once,
/// in candidate order. A name that matches nothing selects nothing.
pub fn select_providers(
    references: &[ProviderReference],
    candidates: &[(&str, &BTreeMap<String, String>)],
) -> Vec<usize> {
    let mut selected = Vec::new();
    for (index, (name, labels)) in candidates.iter().enumerate() {
        let chosen = references.iter().any(|r| match r {
            ProviderReference::Name(wanted) => wanted == name,
            ProviderReference::Selector(selector) => selector.matches(labels),
        });
        if chosen {
            selected.push(index);
        }
    }
    selected
}
