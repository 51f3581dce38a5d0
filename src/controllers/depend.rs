//! Dependency gating: `dependsOn` with namespace defaulting and `${VAR:=default}` names, Flux's
//! `readyExpr` in CEL over `self` and `dep` projections (apiVersion, kind, metadata, spec and
//! status), and cycle detection before a run.

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
/// means the dependant's own; an entry without a kind means the dependant's own kind.
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
            let namespace = if entry.namespace.is_empty() {
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
    Open,
    /// Wait for these objects to arrive or finish.
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
                return Gate::Wait(vec![id.clone()])
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
            DependencyState::Ready { object } => {
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
            }
        }
    }
    Gate::Open
}

/// `namespace/name`, as Flux names dependencies in its messages.
fn short(id: &ResourceId) -> String {
    format!("{}/{}", id.namespace, id.name)
}

/// The view of an object a readyExpr sees. A Ready dependency offline carries the status Flux
/// would report: a `Ready` condition set to `True`.
pub fn projection(object: &Object, ready: bool) -> serde_json::Value {
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

/// Evaluates a Flux `readyExpr`: a CEL expression over `self` (the dependant) and `dep` (the
/// dependency) that must yield a boolean.
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
    for (name, object, ready) in [("self", dependant, false), ("dep", dependency, true)] {
        let value = cel::to_value(projection(object, ready)).map_err(|e| e.to_string())?;
        context.add_variable_from_value(name, value);
    }
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
        write!(f, "dependency cycle detected: {}", names.join(" → "))
    }
}

/// `ks/namespace/name` style labels, compact enough for one-line messages.
pub fn label(id: &ResourceId) -> String {
    let kind = match id.kind.as_str() {
        "Kustomization" => "ks",
        "HelmRelease" => "hr",
        "ResourceSet" => "rs",
        other => other,
    };
    format!("{kind}/{}/{}", id.namespace, id.name)
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
            path: cycle.into_iter().map(|i| ids[i].clone()).collect(),
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
