//! Dependency gating: `dependsOn` with namespace defaulting and `${VAR:=default}` names, Flux's
//! `readyExpr` in CEL over `self` and `dep` projections (apiVersion, kind, metadata, spec and
//! status), the static cycle search `offlux graph` shows, and the words for a cycle the scheduler
//! found. Not for: finding cycles during a run (the scheduler's drain does, across kinds).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::discovery::apply_variable_defaults;
use crate::model::{FluxKind, FluxObject, Object, ResourceId};

/// One resolved `dependsOn` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependency {
    pub id: ResourceId,
    pub ready_expr: Option<String>,
}

/// The dependencies of a Kustomization, HelmRelease or ResourceSet. An entry without a namespace
/// means the dependant's own, unless its kind is cluster-scoped (a CustomResourceDefinition never
/// has one); an entry without a kind means the dependant's own kind.
pub fn dependencies(flux: &FluxObject) -> Vec<Dependency> {
    let resolve = |text: &str| apply_variable_defaults(text).unwrap_or_else(|_| text.to_owned());
    flux.depends_on()
        .iter()
        .map(|entry| {
            let kind = entry
                .kind
                .clone()
                .unwrap_or_else(|| flux.kind.as_str().to_owned());
            let group = match &entry.api_version {
                Some(api_version) => crate::model::split_api_version(api_version).0.to_owned(),
                None => FluxKind::from_kind(&kind).map_or_else(
                    || flux.object.id.group.to_string(),
                    |k| k.group().to_owned(),
                ),
            };
            let namespace = if super::helmrelease::is_cluster_scoped(&kind) {
                String::new()
            } else if entry.namespace.is_empty() {
                flux.namespace().to_owned()
            } else {
                resolve(&entry.namespace)
            };
            Dependency {
                id: ResourceId {
                    group: group.into(),
                    version: Default::default(),
                    kind: kind.into(),
                    namespace: namespace.into(),
                    name: resolve(&entry.name).into(),
                },
                ready_expr: entry.ready_expr.clone(),
            }
        })
        .collect()
}

/// What is known of a dependency while its dependant decides whether it may proceed.
#[derive(Clone, Debug)]
pub enum DependencyState<'a> {
    /// No such object exists (yet).
    Absent,
    /// It exists and has not finished.
    Pending,
    Ready {
        object: &'a Object,
        /// Why it is only assumed Ready: it could not be had offline and was skipped.
        offline: Option<String>,
        /// It is suspended: it applies no new revision.
        suspended: bool,
    },
    /// It failed; `message` is its own root cause, `blocked_by` the chain below it.
    Failed {
        message: String,
        blocked_by: Vec<ResourceId>,
    },
}

/// The verdict of the gate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gate {
    /// Go on; each note says which dependency was only assumed Ready offline.
    Open { notes: Vec<String> },
    /// Wait for these objects to arrive or finish: every dependency, so that a change of any of
    /// them runs the dependant again, and the scheduler sees every edge a cycle could close.
    Wait(Vec<ResourceId>),
    /// The dependant fails: `message` is the root cause; `blocked_by` the chain of dependencies
    /// that led to it, nearest first.
    Closed {
        message: String,
        blocked_by: Vec<ResourceId>,
    },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GateOptions {
    /// Nothing more can arrive: an absent dependency is final ("dependency not found").
    pub absent_is_final: bool,
    /// Nothing more can finish: a pending dependency is final ("not ready"), as in a cycle.
    pub pending_is_final: bool,
}

/// Decides whether `dependant` may reconcile. `lookup` tells each dependency's state.
pub fn gate<'a>(
    dependant: &Object,
    dependencies: &[Dependency],
    lookup: impl Fn(&ResourceId) -> DependencyState<'a>,
    options: GateOptions,
) -> Gate {
    // Only the first dependency (in `dependsOn` order) that is not Ready decides, so the verdict
    // and its message never depend on which dependency happened to finish first.
    let mut notes = Vec::new();
    for dependency in dependencies {
        let id = &dependency.id;
        match lookup(id) {
            DependencyState::Absent if options.absent_is_final => {
                return Gate::Closed {
                    message: format!("dependency '{}' not found", short(id)),
                    blocked_by: vec![id.clone()],
                }
            }
            DependencyState::Pending if options.pending_is_final => {
                return Gate::Closed {
                    message: format!("dependency '{}' is not ready", short(id)),
                    blocked_by: vec![id.clone()],
                }
            }
            DependencyState::Absent | DependencyState::Pending => {
                return Gate::Wait(dependencies.iter().map(|d| d.id.clone()).collect())
            }
            DependencyState::Failed {
                message,
                blocked_by,
            } => {
                let mut chain = vec![id.clone()];
                chain.extend(blocked_by);
                return Gate::Closed {
                    message,
                    blocked_by: chain,
                };
            }
            DependencyState::Ready {
                object,
                offline,
                suspended,
            } => {
                // With a `readyExpr`, the expression alone decides (`checkDependencies`
                // skips both the Ready and the revision check unless the additive CEL check
                // is switched on).
                if suspended
                    && dependency.ready_expr.is_none()
                    && reads_the_same_source(dependant, object)
                {
                    return Gate::Closed {
                        message: format!(
                            "dependency '{}' revision is not up to date: it is suspended, so it does not apply the revision its source has now",
                            short(id)
                        ),
                        blocked_by: vec![id.clone()],
                    };
                }
                if let Some(expr) = &dependency.ready_expr {
                    match evaluate_ready_expr(expr, dependant, object) {
                        Ok(true) => {}
                        Ok(false) => {
                            return Gate::Closed {
                                message: format!(
                                    "dependency '{}' is not ready according to readyExpr `{expr}`",
                                    short(id)
                                ),
                                blocked_by: vec![id.clone()],
                            }
                        }
                        Err(error) => {
                            return Gate::Closed {
                                message: format!(
                                    "readyExpr of dependency '{}': {error}",
                                    short(id)
                                ),
                                blocked_by: vec![id.clone()],
                            }
                        }
                    }
                }
                if let Some(reason) = offline {
                    notes.push(format!(
                        "dependency {} was assumed ready offline ({reason})",
                        label(id)
                    ));
                }
            }
        }
    }
    Gate::Open { notes }
}

/// Whether `dependant` and `dependency` are Kustomizations of one source: then
/// kustomize-controller (`KustomizationReconciler.checkDependencies`) also wants the dependency
/// to have applied the source's current revision ("dependency '…' revision is not up to date"),
/// which a suspended one never does.
fn reads_the_same_source(dependant: &Object, dependency: &Object) -> bool {
    let source = |object: &Object| {
        let flux = FluxObject::from_object(object).ok().flatten()?;
        let spec = flux.as_kustomization()?;
        let reference = &spec.source_ref;
        let namespace = if reference.namespace.is_empty() {
            flux.namespace().to_owned()
        } else {
            reference.namespace.clone()
        };
        Some((reference.kind.clone(), reference.name.clone(), namespace))
    };
    source(dependant).is_some_and(|own| source(dependency) == Some(own))
}

/// `namespace/name`, as Flux names dependencies in its messages; `Kind/name` for a cluster-scoped
/// object, which has no namespace.
fn short(id: &ResourceId) -> String {
    if id.namespace.is_empty() {
        format!("{}/{}", id.kind, id.name)
    } else {
        format!("{}/{}", id.namespace, id.name)
    }
}

/// The view of an object a readyExpr sees. A Ready dependency offline carries the status Flux
/// would report: a `Ready` condition set to `True`.
pub(crate) fn projection(object: &Object, ready: bool) -> serde_json::Value {
    let json = crate::yaml::to_json_kyaml(&object.node);
    let mut projected = serde_json::Map::new();
    projected.insert(
        "apiVersion".into(),
        serde_json::Value::String(object.id.api_version()),
    );
    projected.insert(
        "kind".into(),
        serde_json::Value::String(object.id.kind.to_string()),
    );
    for key in ["metadata", "spec"] {
        projected.insert(
            key.into(),
            json.get(key)
                .cloned()
                .unwrap_or_else(|| serde_json::json!({})),
        );
    }
    let status = if ready {
        serde_json::json!({
            "conditions": [{"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded"}],
            "observedGeneration": 1
        })
    } else {
        json.get("status")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({}))
    };
    projected.insert("status".into(), status);
    serde_json::Value::Object(projected)
}

/// Compiles a `readyExpr` without evaluating it (the Flux Operator refuses one that does not
/// compile before it looks at any dependency).
pub fn check_ready_expr(expr: &str) -> Result<(), String> {
    cel::Env::stdlib()
        .compile(expr)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Evaluates a `readyExpr`: a CEL expression that must yield a boolean. Flux's controllers give it
/// `self` (the dependant) and `dep` (the dependency); Flux Operator's ResourceSet gives it the
/// dependency's own fields (`status.conditions...`), so those are declared as well.
pub fn evaluate_ready_expr(
    expr: &str,
    dependant: &Object,
    dependency: &Object,
) -> Result<bool, String> {
    let env = Arc::new(cel::Env::stdlib());
    let program = env
        .compile(expr)
        .map_err(|e| format!("invalid CEL expression `{expr}`: {e}"))?;
    let mut context = cel::Context::with_env(env);
    let dep = projection(dependency, true);
    let this = projection(dependant, false);
    crate::cel_cost::check(program.expression(), &[&dep, &this])
        .map_err(|why| format!("`{expr}` is not evaluated: {why}"))?;
    if let serde_json::Value::Object(fields) = &dep {
        for (name, value) in fields {
            let value = cel::to_value(value.clone()).map_err(|e| e.to_string())?;
            context.add_variable_from_value(name.as_str(), value);
        }
    }
    let this = cel::to_value(this).map_err(|e| e.to_string())?;
    context.add_variable_from_value("self", this);
    let dep = cel::to_value(dep).map_err(|e| e.to_string())?;
    context.add_variable_from_value("dep", dep);
    match program.execute(&context) {
        Ok(cel::Value::Bool(result)) => Ok(result),
        Ok(other) => Err(format!(
            "`{expr}` must yield a boolean, not {:?}",
            other.type_of()
        )),
        Err(error) => Err(format!("evaluating `{expr}`: {error}")),
    }
}

/// A dependency cycle, as a closed path: the first id is repeated at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    pub path: Vec<ResourceId>,
}

impl std::fmt::Display for Cycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self.path.iter().map(label).collect();
        write!(f, "dependency cycle: {}", names.join(" → "))
    }
}

/// An object as every message names it: `Kind/namespace/name`, `Kind/name` for a cluster-scoped
/// one (`ResourceId`'s `Display`).
pub fn label(id: &ResourceId) -> String {
    id.to_string()
}

/// Ids a cycle message names in full; a longer cycle names its first ones and how many it leaves
/// out, so that every member's message stays one line whatever the cycle's length.
const CYCLE_NAMED: usize = 10;

/// The failure of every member of a dependency cycle: `dependency cycle: a → b → c → a`, the path
/// as the scheduler found it (from its smallest id, the first id repeated at the end).
pub(crate) fn cycle_message(path: &[ResourceId]) -> String {
    let distinct = path.len().saturating_sub(1);
    let names: Vec<String> = if distinct > CYCLE_NAMED {
        let mut names: Vec<String> = path.iter().take(CYCLE_NAMED).map(label).collect();
        names.push(format!("… {} more", distinct - CYCLE_NAMED));
        names.extend(path.first().map(label));
        names
    } else {
        path.iter().map(label).collect()
    };
    format!("dependency cycle: {}", names.join(" → "))
}

/// Finds the `dependsOn` cycles among `objects`, across kinds, each reported once, starting at
/// its smallest id so the report is the same whatever the input order.
pub fn find_cycles(objects: &[FluxObject]) -> Vec<Cycle> {
    // A node per id, numbered in id order.
    let mut ids: Vec<&ResourceId> = objects.iter().map(|f| &f.object.id).collect();
    ids.sort();
    ids.dedup();
    let index = |id: &ResourceId| ids.binary_search(&id).ok();
    let mut graph = petgraph::graphmap::DiGraphMap::<usize, ()>::with_capacity(ids.len(), 0);
    for flux in objects {
        let Some(from) = index(&flux.object.id) else {
            continue;
        };
        graph.add_node(from);
        for dependency in dependencies(flux) {
            if let Some(to) = index(&dependency.id) {
                graph.add_edge(from, to, ());
            }
        }
    }
    let mut cycles = Vec::new();
    for component in petgraph::algo::tarjan_scc(&graph) {
        let self_loop =
            component.len() == 1 && component.iter().all(|&n| graph.contains_edge(n, n));
        if component.len() < 2 && !self_loop {
            continue;
        }
        let members: BTreeSet<usize> = component.iter().copied().collect();
        let Some(&start) = members.first() else {
            continue;
        };
        // The shortest cycle through the smallest member, found breadth first.
        let Some(cycle) = shortest_cycle_through(&graph, start, &members) else {
            continue;
        };
        cycles.push(Cycle {
            path: cycle
                .into_iter()
                .filter_map(|i| ids.get(i).map(|id| (*id).clone()))
                .collect(),
        });
    }
    cycles.sort_by(|a, b| a.path.cmp(&b.path));
    cycles
}

fn shortest_cycle_through(
    graph: &petgraph::graphmap::DiGraphMap<usize, ()>,
    start: usize,
    members: &BTreeSet<usize>,
) -> Option<Vec<usize>> {
    let mut parent: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(current) = queue.pop_front() {
        let mut next: Vec<usize> = graph
            .neighbors(current)
            .filter(|n| members.contains(n))
            .collect();
        next.sort_unstable();
        for n in next {
            if n == start {
                let mut path = vec![current];
                let mut at = current;
                while at != start {
                    at = *parent.get(&at)?;
                    path.push(at);
                }
                path.reverse();
                path.push(start);
                return Some(path);
            }
            if n != start && !parent.contains_key(&n) {
                parent.insert(n, current);
                queue.push_back(n);
            }
        }
    }
    None
}

/// The Kustomizations that would publish each object written in the repository: those whose
/// `spec.path` holds its file. An object written without a namespace is found under any namespace
/// a build may give it.
#[derive(Debug, Default)]
pub(crate) struct Producers {
    by_id: BTreeMap<ResourceId, BTreeSet<ResourceId>>,
}

impl Producers {
    /// From `(object, parent)` pairs, such as discovery's parents.
    pub(crate) fn new<'a>(
        parents: impl IntoIterator<Item = (&'a ResourceId, &'a ResourceId)>,
    ) -> Self {
        let mut by_id: BTreeMap<ResourceId, BTreeSet<ResourceId>> = BTreeMap::new();
        for (id, parent) in parents {
            by_id.entry(id.clone()).or_default().insert(parent.clone());
        }
        Producers { by_id }
    }

    /// The producers of `id`, sorted: of the object with that id, or else of the one with its
    /// group, kind and name written without a namespace.
    pub(crate) fn of(&self, id: &ResourceId) -> Vec<ResourceId> {
        if let Some(by) = self.by_id.get(id) {
            return by.iter().cloned().collect();
        }
        if id.namespace.is_empty() {
            return Vec::new();
        }
        let unnamespaced = ResourceId {
            namespace: Default::default(),
            ..id.clone()
        };
        self.by_id
            .get(&unnamespaced)
            .map(|by| by.iter().cloned().collect())
            .unwrap_or_default()
    }
}
