//! The dependency graph of a repository: Kustomizations, HelmReleases, sources, the data they read
//! (`substituteFrom`, `valuesFrom`), `dependsOn`, and which Kustomization applies which object.
//! Rendered as Graphviz dot, Mermaid or JSON, with dependency cycles highlighted.
//!
//! Not for: deciding anything. This is the picture for "why is X blocked?".

mod render;

use std::collections::{BTreeMap, BTreeSet};

use crate::controllers::depend::{self, Cycle};
use crate::discovery::{BootstrapSource, Repository, BOOTSTRAP_NAME, BOOTSTRAP_NAMESPACE};
use crate::model::{ChartSource, CrossRef, FluxKind, FluxObject, FluxSpec, ResourceId};

pub use render::{to_dot, to_json, to_mermaid};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EdgeKind {
    /// The dependant waits for the dependency (`dependsOn`).
    DependsOn,
    /// The object reads its artifact from this source (`sourceRef`, `chartRef`).
    Source,
    /// The Kustomization applies the object.
    Applies,
    /// `postBuild.substituteFrom`.
    SubstituteFrom,
    /// `valuesFrom`.
    ValuesFrom,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub from: ResourceId,
    pub to: ResourceId,
    pub kind: EdgeKind,
    /// The edge lies on a `dependsOn` cycle.
    pub in_cycle: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct GraphNode {
    pub id: ResourceId,
    /// Where it is defined (`file:line`), or None for an object referenced but found nowhere.
    pub defined_at: Option<String>,
    pub in_cycle: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<Edge>,
    pub cycles: Vec<Cycle>,
}

fn id(kind: &str, namespace: &str, name: &str) -> ResourceId {
    let group = FluxKind::from_kind(kind).map_or("", |k| k.group());
    ResourceId {
        group: group.into(),
        version: Default::default(),
        kind: kind.into(),
        namespace: namespace.into(),
        name: name.into(),
    }
}

fn reference(r: &CrossRef, default_namespace: &str) -> ResourceId {
    let namespace = if r.namespace.is_empty() {
        default_namespace
    } else {
        &r.namespace
    };
    id(&r.kind, namespace, &r.name)
}

pub fn build(repository: &Repository) -> Graph {
    let mut defined: BTreeMap<ResourceId, String> = BTreeMap::new();
    for flux in &repository.flux_objects {
        defined
            .entry(flux.object.id.clone())
            .or_insert_with(|| format!("{}:{}", flux.object.file.display(), flux.object.pos.line));
    }
    for data in &repository.data_objects {
        defined
            .entry(data.id.clone())
            .or_insert_with(|| format!("{}:{}", data.file.display(), data.pos.line));
    }
    let bootstrap = id(
        FluxKind::GitRepository.as_str(),
        BOOTSTRAP_NAMESPACE,
        BOOTSTRAP_NAME,
    );
    if repository.bootstrap == BootstrapSource::Assumed {
        defined.insert(bootstrap.clone(), "(working tree)".to_owned());
    }

    let mut edges: BTreeSet<(ResourceId, ResourceId, EdgeKind)> = BTreeSet::new();
    for flux in &repository.flux_objects {
        add_edges(flux, &mut edges);
        // A Kustomization applying its own definition (flux-system does) is implied, not drawn.
        let parent = repository
            .parents
            .get(&(flux.object.file.clone(), flux.object.id.clone()));
        if let Some(parent) = parent.filter(|p| **p != flux.object.id) {
            edges.insert((parent.clone(), flux.object.id.clone(), EdgeKind::Applies));
        }
    }
    let cycles = depend::find_cycles(&repository.flux_objects);
    let cycle_edges: BTreeSet<(ResourceId, ResourceId)> = cycles
        .iter()
        .flat_map(|c| c.path.windows(2).map(|w| (w[0].clone(), w[1].clone())))
        .collect();
    let cycle_nodes: BTreeSet<&ResourceId> = cycles.iter().flat_map(|c| &c.path).collect();

    let mut node_ids: BTreeSet<ResourceId> = defined.keys().cloned().collect();
    for (from, to, _) in &edges {
        node_ids.insert(from.clone());
        node_ids.insert(to.clone());
    }
    let nodes = node_ids
        .into_iter()
        .map(|id| GraphNode {
            defined_at: defined.get(&id).cloned(),
            in_cycle: cycle_nodes.contains(&id),
            id,
        })
        .collect();
    let edges = edges
        .into_iter()
        .map(|(from, to, kind)| Edge {
            in_cycle: kind == EdgeKind::DependsOn
                && cycle_edges.contains(&(from.clone(), to.clone())),
            from,
            to,
            kind,
        })
        .collect();
    Graph {
        nodes,
        edges,
        cycles,
    }
}

fn add_edges(flux: &FluxObject, edges: &mut BTreeSet<(ResourceId, ResourceId, EdgeKind)>) {
    let me = flux.object.id.clone();
    let namespace = flux.namespace();
    for dependency in depend::dependencies(flux) {
        edges.insert((me.clone(), dependency.id, EdgeKind::DependsOn));
    }
    let data = |kind: &str, name: &str| ResourceId::new("v1", kind, namespace, name);
    match &flux.spec {
        FluxSpec::Kustomization(k) => {
            edges.insert((
                me.clone(),
                reference(&k.source_ref, namespace),
                EdgeKind::Source,
            ));
            for from in k.post_build.iter().flat_map(|p| &p.substitute_from) {
                edges.insert((
                    me.clone(),
                    data(&from.kind, &from.name),
                    EdgeKind::SubstituteFrom,
                ));
            }
        }
        FluxSpec::HelmRelease(h) => {
            let source = match &h.chart {
                ChartSource::Template(t) => reference(&t.source_ref, namespace),
                ChartSource::Ref(r) => reference(r, namespace),
            };
            edges.insert((me.clone(), source, EdgeKind::Source));
            for from in &h.values_from {
                edges.insert((
                    me.clone(),
                    data(&from.kind, &from.name),
                    EdgeKind::ValuesFrom,
                ));
            }
        }
        FluxSpec::Source(s) => {
            if let Some(chart) = &s.chart {
                edges.insert((
                    me.clone(),
                    reference(&chart.source_ref, namespace),
                    EdgeKind::Source,
                ));
            }
        }
        FluxSpec::ArtifactGenerator(generator) => {
            for (_, source) in &generator.sources {
                edges.insert((me.clone(), reference(source, namespace), EdgeKind::Source));
            }
        }
        FluxSpec::ResourceSet(_)
        | FluxSpec::ResourceSetInputProvider
        | FluxSpec::FluxInstance(_) => {}
    }
}
