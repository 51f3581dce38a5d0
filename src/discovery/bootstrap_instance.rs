//! The FluxInstance a bootstrap installs from the Flux Operator's `flux-instance` chart. Home-ops
//! repositories keep that chart's HelmRelease in the tree and have their bootstrap (helmfile)
//! install the chart with the HelmRelease's values before Flux runs, so the instance, and the
//! root Kustomization its `spec.sync` generates, exist before anything in the repository is
//! applied. The chart renders `instance` as the FluxInstance's spec (a sync only with a `url`),
//! named `fullnameOverride` (`flux`) in the release namespace.
//!
//! Not for: rendering the chart itself, which its HelmRelease still does when the chart is there.

use crate::model::{ChartSource, FluxObject, Object};
use crate::yaml::{Mapping, Node, Scalar};

const CHART: &str = "flux-instance";

/// The FluxInstance a HelmRelease of the `flux-instance` chart stands for, when its values
/// hold an `instance` with a sync URL. The values are those the bootstrap passes: each
/// `valuesFrom` ConfigMap that `generated` finds (by name and key: a generator input beside the
/// HelmRelease), then the inline `values`; each `instance` key is taken from the last that sets it.
pub(super) fn from_helm_release(
    flux: &FluxObject,
    generated: &dyn Fn(&str, &str) -> Option<Node>,
) -> Option<FluxObject> {
    let release = flux.as_helm_release()?;
    let named = match &release.chart {
        ChartSource::Template(template) => template.chart.rsplit('/').next() == Some(CHART),
        ChartSource::Ref(reference) => reference.name == CHART,
    };
    if !named {
        return None;
    }
    let mut sources: Vec<Node> = release
        .values_from
        .iter()
        .filter(|r| r.kind == "ConfigMap")
        .filter_map(|r| generated(&r.name, r.values_key.as_deref().unwrap_or("values.yaml")))
        .collect();
    sources.extend(flux.helm_values().cloned());
    let mut instance = Mapping::new();
    let mut full_name = None;
    for values in &sources {
        if let Some(set) = values.get("instance").and_then(Node::as_mapping) {
            for (key, value) in set.iter() {
                instance.insert(key, value.clone());
            }
        }
        if let Some(name) = values.get("fullnameOverride").and_then(Node::as_str) {
            full_name = Some(name.to_string());
        }
    }
    let sync = instance.get("sync")?.as_mapping()?;
    if sync
        .get("url")
        .and_then(Node::as_str)
        .is_none_or(str::is_empty)
    {
        return None;
    }
    let mut spec = instance.clone();
    if let Some(sync) = spec.get_mut("sync").and_then(Node::as_mapping_mut) {
        let empty: Vec<String> = sync
            .iter()
            .filter(|(_, value)| value.as_str() == Some("") || value.is_null())
            .map(|(key, _)| key.to_string())
            .collect();
        for key in empty {
            sync.remove(&key);
        }
    }
    let name = full_name
        .as_deref()
        .filter(|n| !n.is_empty())
        .unwrap_or("flux");
    let namespace = release
        .target_namespace
        .as_deref()
        .filter(|n| !n.is_empty())
        .or(Some(flux.namespace()).filter(|n| !n.is_empty()))
        .unwrap_or(super::BOOTSTRAP_NAMESPACE);
    let text = |s: &str| Node::Scalar(Scalar::string(s));
    let mut metadata = Mapping::new();
    metadata.insert("name", text(name));
    metadata.insert("namespace", text(namespace));
    let mut root = Mapping::new();
    root.insert(
        "apiVersion",
        text(crate::controllers::flux_instance::GROUP_VERSION),
    );
    root.insert("kind", text("FluxInstance"));
    root.insert("metadata", Node::Mapping(metadata));
    root.insert("spec", Node::Mapping(spec));
    let object = Object::from_node(
        Node::Mapping(root),
        flux.object.file.clone(),
        flux.object.pos,
    )
    .ok()??;
    FluxObject::from_object(&object).ok()?
}
