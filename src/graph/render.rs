//! Text forms of the graph: Graphviz dot, Mermaid flowchart, JSON.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{EdgeKind, Graph};
use crate::model::ResourceId;

fn label(id: &ResourceId) -> String {
    crate::controllers::depend::label(id)
}

fn edge_label(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::DependsOn => "dependsOn",
        EdgeKind::Source => "source",
        EdgeKind::Applies => "applies",
        EdgeKind::SubstituteFrom => "substituteFrom",
        EdgeKind::ValuesFrom => "valuesFrom",
    }
}

fn shape(id: &ResourceId) -> &'static str {
    match id.kind.as_str() {
        "Kustomization" => "box",
        "HelmRelease" => "component",
        "ConfigMap" | "Secret" => "note",
        _ => "cylinder",
    }
}

fn dot_escape(text: &str) -> String {
    crate::escape::dot_string(text)
}

pub fn to_dot(graph: &Graph) -> String {
    let mut out = String::from("digraph flux {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n");
    for node in &graph.nodes {
        let mut attributes = format!("shape={}", shape(&node.id));
        if node.defined_at.is_none() {
            attributes.push_str(", style=dashed, tooltip=\"not found in the repository\"");
        }
        if node.in_cycle {
            attributes.push_str(", color=red, penwidth=2");
        }
        let _ = writeln!(
            out,
            "  \"{}\" [{attributes}];",
            dot_escape(&label(&node.id))
        );
    }
    for edge in &graph.edges {
        let mut attributes = format!("label=\"{}\"", edge_label(edge.kind));
        if edge.kind == EdgeKind::Applies {
            attributes.push_str(", style=dotted");
        }
        if edge.in_cycle {
            attributes.push_str(", color=red, penwidth=2");
        }
        let _ = writeln!(
            out,
            "  \"{}\" -> \"{}\" [{attributes}];",
            dot_escape(&label(&edge.from)),
            dot_escape(&label(&edge.to))
        );
    }
    out.push_str("}\n");
    out
}

pub fn to_mermaid(graph: &Graph) -> String {
    let mut out = String::from("flowchart LR\n");
    let index: BTreeMap<&ResourceId, usize> = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (&n.id, i))
        .collect();
    for (i, node) in graph.nodes.iter().enumerate() {
        let text = crate::escape::mermaid_label(&label(&node.id));
        let _ = match node.id.kind.as_str() {
            "ConfigMap" | "Secret" => writeln!(out, "  n{i}[/\"{text}\"/]"),
            "Kustomization" | "HelmRelease" => writeln!(out, "  n{i}[\"{text}\"]"),
            _ => writeln!(out, "  n{i}[(\"{text}\")]"),
        };
    }
    let mut cycle_links = Vec::new();
    for (link, edge) in graph.edges.iter().enumerate() {
        let (Some(from), Some(to)) = (index.get(&edge.from), index.get(&edge.to)) else {
            continue;
        };
        let arrow = if edge.kind == EdgeKind::Applies {
            "-.->"
        } else {
            "-->"
        };
        let _ = writeln!(out, "  n{from} {arrow}|{}| n{to}", edge_label(edge.kind));
        if edge.in_cycle {
            cycle_links.push(link.to_string());
        }
    }
    for (i, node) in graph.nodes.iter().enumerate() {
        if node.defined_at.is_none() {
            let _ = writeln!(out, "  style n{i} stroke-dasharray: 5 5");
        }
        if node.in_cycle {
            let _ = writeln!(out, "  style n{i} stroke:#d00,stroke-width:2px");
        }
    }
    if !cycle_links.is_empty() {
        let _ = writeln!(
            out,
            "  linkStyle {} stroke:#d00,stroke-width:2px",
            cycle_links.join(",")
        );
    }
    out
}

pub fn to_json(graph: &Graph) -> serde_json::Value {
    let node = |id: &ResourceId| serde_json::json!({"kind": id.kind, "namespace": id.namespace, "name": id.name});
    serde_json::json!({
        "nodes": graph.nodes.iter().map(|n| {
            let mut value = node(&n.id);
            value["definedAt"] = n.defined_at.clone().map_or(serde_json::Value::Null, serde_json::Value::String);
            value["inCycle"] = serde_json::Value::Bool(n.in_cycle);
            value
        }).collect::<Vec<_>>(),
        "edges": graph.edges.iter().map(|e| serde_json::json!({
            "from": node(&e.from),
            "to": node(&e.to),
            "kind": e.kind,
            "inCycle": e.in_cycle,
        })).collect::<Vec<_>>(),
        "cycles": graph.cycles.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
    })
}
