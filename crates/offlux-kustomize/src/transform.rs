//! The builtin transformers, one function per kustomization field (namespace, prefix/suffix,
//! labels, annotations, replicas, images; the target calls them in kustomize's order), their
//! plugin-config forms for the `transformers` field, custom field spec configurations, and
//! legacy vars. Each takes the resources, its field and what else it needs (custom field specs,
//! the loader), nothing of the target.
//!
//! Legacy vars are substituted in every string field of the final objects, a superset of
//! kustomize's varReference fields.
//!
//! Not for: name references (see `nameref`), generators, or the merge logic of patches (the
//! `patch` module).

use std::collections::{hash_map, HashMap};
use std::path::Path;

use super::error::Error;
use super::fieldspec::{self, apply_specs, merge_string_map, walk, Config, FieldSpec, NameRef};
use super::loader::Loader;
use super::patch::PatchSchema;
use super::patch_wiring;
use super::resource::{is_cluster_scoped, Gvk, Res};
use offlux_yaml::{
    parse_stream, resolve_kyaml, Mapping, Node, ParseOptions, Resolved, Scalar, ScalarStyle,
};

/// A legacy `vars` entry.
#[derive(Clone, Debug)]
pub(crate) struct Var {
    pub name: String,
    pub kind: String,
    pub api_version: Option<String>,
    pub obj_name: String,
    pub namespace: Option<String>,
    pub field_path: String,
}

type Fail<'a> = &'a dyn Fn(Option<String>, String) -> Error;

fn pairs(node: Option<&Node>) -> Vec<(String, String)> {
    node.and_then(Node::as_mapping)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let value = match v {
                        Node::Scalar(s) if s.is_null() => String::new(),
                        Node::Scalar(s) => s.value.to_string(),
                        _ => String::new(),
                    };
                    (k.to_string(), value)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Sets `key: value` in the string map at `path`, creating the maps.
pub(crate) fn set_map_field(node: &mut Node, path: &[&str], key: &str, value: &str) {
    walk(node, path, true, &mut |n| {
        merge_string_map(n, &[(key.to_string(), value.to_string())])
    });
}

/// `namespace`: sets the namespace of the namespaced objects.
pub(crate) fn namespace_field(
    field: Option<&Node>,
    resources: &mut [Res],
    config: &Config,
    fail: Fail,
) -> Result<(), Error> {
    match field.and_then(Node::as_str) {
        Some(ns) if !ns.is_empty() => namespace(resources, ns, &config.namespace, false)
            .map_err(|m| fail(Some("namespace".into()), m)),
        _ => Ok(()),
    }
}

/// `namePrefix` and `nameSuffix`, applied together as kustomize's PrefixSuffixTransformer.
pub(crate) fn name_prefix_suffix_fields(
    prefix: Option<&Node>,
    suffix: Option<&Node>,
    resources: &mut [Res],
    config: &Config,
) {
    let prefix = prefix.and_then(Node::as_str).unwrap_or("");
    let suffix = suffix.and_then(Node::as_str).unwrap_or("");
    prefix_suffix(resources, prefix, suffix, &config.name_prefix, true);
}

/// `labels`: each entry's pairs, on metadata only or, as asked, on templates and selectors.
pub(crate) fn labels_field(field: Option<&Node>, resources: &mut [Res], config: &Config) {
    let Some(labels) = field.and_then(Node::as_sequence) else {
        return;
    };
    for l in &labels.items {
        let values = pairs(l.get("pairs"));
        let flag = |key: &str| l.get(key).and_then(Node::as_str) == Some("true");
        let mut specs = Vec::new();
        if flag("includeSelectors") {
            specs.extend(fieldspec::common_labels());
            specs.extend(config.common_labels.iter().cloned());
        } else {
            if flag("includeVolumeClaimTemplates") {
                specs.push(FieldSpec::new(
                    "StatefulSet",
                    "apps",
                    "spec/volumeClaimTemplates[]/metadata/labels",
                    true,
                ));
            }
            if flag("includeTemplates") {
                specs.extend(fieldspec::template_labels("labels"));
            }
            specs.push(FieldSpec::new("", "", "metadata/labels", true));
            specs.extend(config.common_labels.iter().cloned());
        }
        if let Some(fs) = l.get("fields").and_then(Node::as_sequence) {
            specs.extend(fs.items.iter().map(FieldSpec::from_node));
        }
        set_pairs(resources, &values, &specs);
    }
}

/// `commonLabels`: labels on metadata, templates and selectors.
pub(crate) fn common_labels_field(field: Option<&Node>, resources: &mut [Res], config: &Config) {
    let common = pairs(field);
    if !common.is_empty() {
        let mut specs = fieldspec::common_labels();
        specs.extend(config.common_labels.iter().cloned());
        set_pairs(resources, &common, &specs);
    }
}

/// `commonAnnotations`.
pub(crate) fn common_annotations_field(
    field: Option<&Node>,
    resources: &mut [Res],
    config: &Config,
) {
    let annotations = pairs(field);
    if !annotations.is_empty() {
        let mut specs = fieldspec::common_annotations();
        specs.extend(config.common_annotations.iter().cloned());
        set_pairs(resources, &annotations, &specs);
    }
}

/// `replicas`.
pub(crate) fn replicas_field(field: Option<&Node>, resources: &mut [Res], config: &Config) {
    if let Some(reps) = field.and_then(Node::as_sequence) {
        let mut specs = fieldspec::replicas();
        specs.extend(config.replicas.iter().cloned());
        for r in &reps.items {
            replicas(resources, r, &specs);
        }
    }
}

/// `images` and the legacy `imageTags`, in that order.
pub(crate) fn images_fields(
    images_field: Option<&Node>,
    image_tags: Option<&Node>,
    resources: &mut [Res],
    config: &Config,
) {
    for field in [images_field, image_tags] {
        if let Some(list) = field.and_then(Node::as_sequence) {
            for img in &list.items {
                images(resources, img, &config.images);
            }
        }
    }
}

/// A `transformers` entry that is a builtin transformer's config.
pub(crate) fn run_plugin(
    loader: &Loader,
    schema: Option<&PatchSchema>,
    dir: &Path,
    cfg: &Node,
    resources: &mut Vec<Res>,
    config: &Config,
    fail: Fail,
) -> Result<(), Error> {
    let kind = cfg.get("kind").and_then(Node::as_str).unwrap_or("");
    let specs_of = |key: &str| -> Vec<FieldSpec> {
        cfg.get(key)
            .and_then(Node::as_sequence)
            .map(|s| s.items.iter().map(FieldSpec::from_node).collect())
            .unwrap_or_default()
    };
    let label = Some("transformers".to_string());
    match kind {
        "NamespaceTransformer" => {
            let ns = cfg
                .get_path(&["metadata", "namespace"])
                .and_then(Node::as_str)
                .unwrap_or("");
            let mut specs = specs_of("fieldSpecs");
            if specs.is_empty() {
                specs = config.namespace.clone();
            }
            let unset_only = cfg.get("unsetOnly").and_then(Node::as_str) == Some("true");
            namespace(resources, ns, &specs, unset_only).map_err(|m| fail(label.clone(), m))?;
        }
        "PrefixSuffixTransformer" | "PrefixTransformer" | "SuffixTransformer" => {
            let prefix = cfg.get("prefix").and_then(Node::as_str).unwrap_or("");
            let suffix = cfg.get("suffix").and_then(Node::as_str).unwrap_or("");
            let specs = specs_of("fieldSpecs");
            let all = specs.is_empty();
            prefix_suffix(resources, prefix, suffix, &specs, all);
        }
        "LabelTransformer" => {
            set_pairs(
                resources,
                &pairs(cfg.get("labels")),
                &specs_of("fieldSpecs"),
            );
        }
        "AnnotationsTransformer" => {
            set_pairs(
                resources,
                &pairs(cfg.get("annotations")),
                &specs_of("fieldSpecs"),
            );
        }
        "ImageTagTransformer" => {
            if let Some(img) = cfg.get("imageTag") {
                images(resources, img, &specs_of("fieldSpecs"));
            }
        }
        "ReplicaCountTransformer" => {
            if let Some(r) = cfg.get("replica") {
                let mut specs = specs_of("fieldSpecs");
                if specs.is_empty() {
                    specs = fieldspec::replicas();
                }
                replicas(resources, r, &specs);
            }
        }
        "PatchTransformer"
        | "PatchStrategicMergeTransformer"
        | "PatchJson6902Transformer"
        | "ReplacementTransformer" => {
            patch_wiring::plugin(loader, schema, dir, cfg, resources, fail)?;
        }
        "SortOrderTransformer" => {
            return Err(fail(
                label,
                "unable to load builtin SortOrderTransformer.builtin.[noGrp]".into(),
            ))
        }
        other => {
            return Err(fail(
                label,
                format!(
                "unable to load builtin {other}: exec and KRM function plugins are not supported"
            ),
            ))
        }
    }
    Ok(())
}

fn set_pairs(resources: &mut [Res], values: &[(String, String)], specs: &[FieldSpec]) {
    if values.is_empty() {
        return;
    }
    for r in resources.iter_mut() {
        apply_specs(&mut r.node, specs, &mut |n| merge_string_map(n, values));
    }
}

/// Sets the namespace of namespaced objects; a Namespace object takes the namespace as its name.
pub(super) fn namespace(
    resources: &mut [Res],
    ns: &str,
    extra: &[FieldSpec],
    unset_only: bool,
) -> Result<(), String> {
    let specs: Vec<&FieldSpec> = extra
        .iter()
        .filter(|s| s.path != ["metadata", "namespace"])
        .collect();
    for r in resources.iter_mut() {
        let gvk = r.gvk();
        if !is_cluster_scoped(&gvk) && (!unset_only || r.namespace().is_empty()) {
            r.set_namespace(ns);
        }
        if gvk.kind == "Namespace" && gvk.group.is_empty() && !unset_only {
            r.set_name(ns);
        }
        if matches!(gvk.kind.as_str(), "RoleBinding" | "ClusterRoleBinding") {
            if let Some(Node::Sequence(subjects)) =
                r.node.as_mapping_mut().and_then(|m| m.get_mut("subjects"))
            {
                for s in &mut subjects.items {
                    let is_default = s.get("name").and_then(Node::as_str) == Some("default");
                    if is_default {
                        if let Some(m) = s.as_mapping_mut() {
                            m.insert("namespace", Node::Scalar(Scalar::plain(ns)));
                        }
                    }
                }
            }
        }
        if gvk.kind == "CustomResourceDefinition" {
            let path = [
                "spec",
                "conversion",
                "webhook",
                "clientConfig",
                "service",
                "namespace",
            ];
            walk(&mut r.node, &path, false, &mut |n| {
                *n = Node::Scalar(Scalar::plain(ns));
            });
        }
        apply_specs(&mut r.node, specs.iter().copied(), &mut |n| {
            if matches!(n, Node::Scalar(_)) {
                *n = Node::Scalar(Scalar::plain(ns));
            }
        });
    }
    if let Some((a, b)) = first_id_conflict(resources) {
        return Err(format!(
            "namespace transformation produces ID conflict: {} and {}",
            a.id_string(),
            b.id_string()
        ));
    }
    Ok(())
}

/// The first resource that shares its id ([`Res::same_id`]) with a later one, and the first such
/// later one.
fn first_id_conflict(resources: &[Res]) -> Option<(&Res, &Res)> {
    let mut first_with_id = HashMap::new();
    let mut conflict: Option<(usize, usize)> = None;
    for (j, r) in resources.iter().enumerate() {
        let Gvk {
            group,
            version,
            kind,
        } = r.gvk();
        let id = (group, version, kind, r.name(), r.effective_namespace());
        match first_with_id.entry(id) {
            hash_map::Entry::Vacant(slot) => {
                slot.insert(j);
            }
            hash_map::Entry::Occupied(first) => {
                let i = *first.get();
                if conflict.is_none_or(|(earliest, _)| i < earliest) {
                    conflict = Some((i, j));
                }
            }
        }
    }
    let (i, j) = conflict?;
    Some((resources.get(i)?, resources.get(j)?))
}

/// With `all_names`, every resource's `metadata/name` changes (the kustomization fields);
/// otherwise only where a `metadata/name` spec applies (a plugin config with its own specs).
fn prefix_suffix(
    resources: &mut [Res],
    prefix: &str,
    suffix: &str,
    extra: &[FieldSpec],
    all_names: bool,
) {
    if prefix.is_empty() && suffix.is_empty() {
        return;
    }
    let specs: Vec<&FieldSpec> = extra
        .iter()
        .filter(|s| s.path != ["metadata", "name"])
        .collect();
    for r in resources.iter_mut() {
        let gvk = r.gvk();
        if gvk.kind == "CustomResourceDefinition"
            || (gvk.kind == "Namespace" && gvk.group.is_empty())
        {
            continue;
        }
        let renames = all_names
            || extra
                .iter()
                .any(|s| s.path == ["metadata", "name"] && s.applies_to(&gvk));
        if !renames {
            continue;
        }
        let name = format!("{prefix}{}{suffix}", r.name());
        r.set_name(&name);
        if !prefix.is_empty() {
            r.prefixes.push(prefix.to_string());
        }
        if !suffix.is_empty() {
            r.suffixes.push(suffix.to_string());
        }
        apply_specs(&mut r.node, specs.iter().copied(), &mut |n| {
            if let Node::Scalar(s) = n {
                s.value = compact_str::format_compact!("{prefix}{}{suffix}", s.value);
            }
        });
    }
}

fn replicas(resources: &mut [Res], entry: &Node, specs: &[FieldSpec]) {
    let name = entry.get("name").and_then(Node::as_str).unwrap_or("");
    let Some(count) = entry.get("count").and_then(Node::as_str) else {
        return;
    };
    for r in resources.iter_mut() {
        if r.name() != name && r.original_name() != name {
            continue;
        }
        apply_specs(&mut r.node, specs, &mut |n| {
            *n = Node::Scalar(Scalar::plain(count));
        });
    }
}

/// Splits an image reference into name, tag (with `:`) and digest (with `@`).
fn split_image(image: &str) -> (String, String, String) {
    let (rest, digest) = match image.split_once('@') {
        Some((r, d)) => (r, format!("@{d}")),
        None => (image, String::new()),
    };
    let slash = rest.rfind('/').map(|i| i + 1).unwrap_or(0);
    match rest.get(slash..).and_then(|t| t.rfind(':')) {
        Some(i) => (
            rest[..slash + i].to_string(),
            rest[slash + i..].to_string(),
            digest,
        ),
        None => (rest.to_string(), String::new(), digest),
    }
}

fn images(resources: &mut [Res], entry: &Node, extra: &[FieldSpec]) {
    let get = |k: &str| entry.get(k).and_then(Node::as_str).map(str::to_string);
    let Some(name) = get("name") else { return };
    let new_name = get("newName");
    let new_tag = get("newTag");
    let digest = get("digest");
    let tag_suffix = get("tagSuffix");
    let update = |value: &str| -> Option<String> {
        let (n, tag, dig) = split_image(value);
        if n != name {
            return None;
        }
        let n = new_name.clone().unwrap_or(n);
        let suffix = if let Some(d) = &digest {
            format!("@{d}")
        } else if let Some(t) = &new_tag {
            format!(":{t}")
        } else if let Some(s) = &tag_suffix {
            format!("{tag}{s}{dig}")
        } else {
            format!("{tag}{dig}")
        };
        Some(format!("{n}{suffix}"))
    };
    for r in resources.iter_mut() {
        visit_containers(&mut r.node, &update);
        apply_specs(&mut r.node, extra, &mut |n| match n {
            Node::Scalar(s) => {
                if let Some(v) = update(&s.value) {
                    s.value = v.into();
                }
            }
            Node::Sequence(seq) => {
                for c in &mut seq.items {
                    set_image(c, &update);
                }
            }
            Node::Mapping(_) => set_image(n, &update),
        });
    }
}

fn set_image(container: &mut Node, update: &dyn Fn(&str) -> Option<String>) {
    if let Some(Node::Scalar(s)) = container.as_mapping_mut().and_then(|m| m.get_mut("image")) {
        if let Some(v) = update(&s.value) {
            s.value = v.into();
        }
    }
}

fn visit_containers(node: &mut Node, update: &dyn Fn(&str) -> Option<String>) {
    match node {
        Node::Mapping(m) => {
            for e in &mut m.entries {
                if matches!(e.key.value.as_str(), "containers" | "initContainers") {
                    if let Node::Sequence(seq) = &mut e.value {
                        for c in &mut seq.items {
                            set_image(c, update);
                        }
                        continue;
                    }
                }
                visit_containers(&mut e.value, update);
            }
        }
        Node::Sequence(s) => s.items.iter_mut().for_each(|i| visit_containers(i, update)),
        Node::Scalar(_) => {}
    }
}

/// Reads a `configurations` file: custom field specs per transformer.
pub(crate) fn parse_config(
    text: &str,
    run: Option<&std::sync::Arc<offlux_budget::RunBudget>>,
) -> Result<Config, String> {
    let options = ParseOptions {
        run: run.cloned(),
        ..ParseOptions::default()
    };
    let docs = parse_stream(text, &options).map_err(|e| e.to_string())?;
    let mut config = Config::default();
    for doc in docs {
        let root = doc.root;
        let specs = |key: &str| -> Vec<FieldSpec> {
            root.get(key)
                .and_then(Node::as_sequence)
                .map(|s| s.items.iter().map(FieldSpec::from_node).collect())
                .unwrap_or_default()
        };
        config.common_labels.extend(specs("commonLabels"));
        config.common_labels.extend(specs("labels"));
        config.common_annotations.extend(specs("commonAnnotations"));
        config.name_prefix.extend(specs("namePrefix"));
        config.namespace.extend(specs("namespace"));
        config.images.extend(specs("images"));
        config.replicas.extend(specs("replicas"));
        config.var_reference.extend(specs("varReference"));
        if let Some(refs) = root.get("nameReference").and_then(Node::as_sequence) {
            for r in &refs.items {
                let get = |k: &str| r.get(k).and_then(Node::as_str).unwrap_or("").to_string();
                config.name_reference.push(NameRef {
                    kind: get("kind"),
                    group: get("group"),
                    version: get("version"),
                    specs: r
                        .get("fieldSpecs")
                        .and_then(Node::as_sequence)
                        .map(|s| s.items.iter().map(FieldSpec::from_node).collect())
                        .unwrap_or_default(),
                });
            }
        }
    }
    Ok(config)
}

/// The `crds` field: OpenAPI definitions (Go type name → `Schema`) whose
/// `x-kubernetes-object-ref-kind` extensions declare name references from the custom kind's
/// fields. Only that part is read.
pub(crate) fn parse_crd_config(text: &str) -> Result<Config, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let doc = offlux_yaml::from_json(&value);
    let mut config = Config::default();
    let Some(defs) = doc.as_mapping() else {
        return Ok(config);
    };
    for (type_name, def) in defs.iter() {
        let schema = def.get("Schema").unwrap_or(def);
        let props = schema.get("properties");
        // a root type is one with object metadata; its kind is the type name's last segment
        if props.and_then(|p| p.get("metadata")).is_none()
            || props.and_then(|p| p.get("items")).is_some()
        {
            continue;
        }
        let kind = type_name.rsplit('.').next().unwrap_or(type_name);
        crd_refs(&doc, schema, kind, &mut Vec::new(), &mut config, 0);
    }
    Ok(config)
}

fn crd_refs(
    doc: &Node,
    schema: &Node,
    kind: &str,
    path: &mut Vec<String>,
    config: &mut Config,
    depth: usize,
) {
    if depth > 32 {
        return;
    }
    let Some(props) = schema.get("properties").and_then(Node::as_mapping) else {
        return;
    };
    for (name, prop) in props.iter() {
        if name == "metadata" || name == "status" {
            continue;
        }
        path.push(name.to_string());
        if let Some(target) = prop
            .get("x-kubernetes-object-ref-kind")
            .and_then(Node::as_str)
        {
            let mut spec_path = path.clone();
            spec_path.push("name".into());
            config.name_reference.push(NameRef {
                kind: target.to_string(),
                group: String::new(),
                version: String::new(),
                specs: vec![FieldSpec {
                    kind: kind.to_string(),
                    path: spec_path,
                    ..FieldSpec::default()
                }],
            });
        } else if let Some(r) = prop.get("$ref").and_then(Node::as_str) {
            if let Some(def) = doc.get(r) {
                let schema = def.get("Schema").unwrap_or(def);
                crd_refs(doc, schema, kind, path, config, depth + 1);
            }
        }
        path.pop();
    }
}

pub(crate) fn check_sort_options(sort: &Node) -> Result<(), String> {
    let legacy_options = sort.get("legacySortOptions").is_some_and(|o| !o.is_null());
    match sort.get("order").and_then(Node::as_str) {
        Some("legacy") => Ok(()),
        // A set `legacySortOptions`, even `{}`, belongs to the legacy order only (kustomize's
        // api/krusty TestInvalidLegacySortOptionsWithFIFOOrder).
        Some("fifo") if legacy_options => Err(
            "the field 'sortOptions.legacySortOptions' is set but the selected sort order is 'fifo', not 'legacy'"
                .into(),
        ),
        Some("fifo") => Ok(()),
        _ => Err("the field 'sortOptions.order' must be one of [fifo, legacy]".into()),
    }
}

/// Looks up a dotted field path (`spec.ports[0].port`, `metadata.name`) for vars.
fn lookup_dotted<'a>(node: &'a Node, path: &str) -> Option<&'a Node> {
    let mut cur = node;
    for part in path.split('.') {
        let (key, index) = match part.split_once('[') {
            Some((k, rest)) => (k, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        if !key.is_empty() {
            cur = cur.get(key)?;
        }
        if let Some(i) = index {
            cur = cur.as_sequence()?.items.get(i)?;
        }
    }
    Some(cur)
}

/// Whether a resource is the object a var refers to (by any of its names and namespaces).
pub(crate) fn var_matches(v: &Var, r: &Res) -> bool {
    let gvk = r.gvk();
    gvk.kind == v.kind
        && r.all_names().any(|n| n == v.obj_name)
        && v.namespace
            .as_deref()
            .is_none_or(|ns| r.namespace() == ns || r.prev.iter().any(|p| p.1 == ns))
        && v.api_version.as_deref().is_none_or(|a| {
            let want = Gvk::of(&api_node(a));
            (want.group.is_empty() || want.group == gvk.group)
                && (want.version.is_empty() || want.version == gvk.version)
        })
}

/// Replaces `$(VAR)` in string fields with the values of legacy vars.
pub(crate) fn resolve_vars(
    resources: &mut [Res],
    vars: &[Var],
    config: &Config,
) -> Result<(), Error> {
    if vars.is_empty() {
        return Ok(());
    }
    let mut values: Vec<(String, Scalar)> = Vec::new();
    for v in vars {
        // kustomize's `findVarValueFromResources`: the object the var was bound to.
        let Some(res) = resources.iter().find(|r| r.ref_var_names.contains(&v.name)) else {
            return Err(Error::Finish {
                message: format!(
                    "var '{}' cannot be mapped to a field in the set of known resources",
                    v.name
                ),
            });
        };
        let value = lookup_dotted(&res.node, &v.field_path)
            .and_then(|n| n.as_scalar().cloned())
            .unwrap_or_default();
        values.push((v.name.clone(), value));
    }
    let _ = &config.var_reference;
    for r in resources.iter_mut() {
        replace_vars(&mut r.node, &values);
    }
    Ok(())
}

fn api_node(api: &str) -> Node {
    let mut m = Mapping::new();
    m.insert("apiVersion", Node::Scalar(Scalar::plain(api)));
    Node::Mapping(m)
}

fn replace_vars(node: &mut Node, values: &[(String, Scalar)]) {
    match node {
        Node::Scalar(s) if s.value.contains("$(") => {
            // a field that is exactly one variable takes the variable's value and type
            if let Some((_, v)) = values.iter().find(|(n, _)| s.value == format!("$({n})")) {
                s.value = v.value.clone();
                s.tag = None;
                s.style = if matches!(resolve_kyaml(v), Resolved::Str) {
                    ScalarStyle::DoubleQuoted
                } else {
                    ScalarStyle::Plain
                };
                return;
            }
            let mut out = s.value.to_string();
            for (name, value) in values {
                out = out.replace(&format!("$({name})"), &value.value);
            }
            if out != s.value {
                s.value = out.into();
                s.style = ScalarStyle::DoubleQuoted;
                s.tag = None;
            }
        }
        Node::Scalar(_) => {}
        Node::Sequence(seq) => seq.items.iter_mut().for_each(|i| replace_vars(i, values)),
        Node::Mapping(m) => {
            for e in &mut m.entries {
                replace_vars(&mut e.value, values);
            }
        }
    }
}
