//! One resource in a build and its identity: group/version/kind, name and namespace, the names it
//! had before transformers renamed it (for name references), and the generator facts kept until the
//! end of the build (content hash, merge behaviour).
//!
//! Not for: loading or transforming (see `load` and `transform`).

use offlux_yaml::{Mapping, Node, Scalar};

/// Group, version and kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl Gvk {
    pub(super) fn of(node: &Node) -> Gvk {
        let (group, version, kind) = Gvk::parts_of(node);
        Gvk {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
        }
    }

    /// Group, version and kind as borrowed text, for comparisons that need no `Gvk`.
    pub(crate) fn parts_of(node: &Node) -> (&str, &str, &str) {
        let api = node.get("apiVersion").and_then(Node::as_str).unwrap_or("");
        let (group, version) = api.rsplit_once('/').unwrap_or(("", api));
        let kind = node.get("kind").and_then(Node::as_str).unwrap_or("");
        (group, version, kind)
    }

    /// kustomize's spelling: `Deployment.v1.apps`, with `[noVer]`/`[noGrp]` for empty parts.
    pub(crate) fn id_string(&self) -> String {
        format!(
            "{}.{}.{}",
            self.kind,
            or(&self.version, "[noVer]"),
            or(&self.group, "[noGrp]")
        )
    }
}

fn or<'a>(s: &'a str, default: &'a str) -> &'a str {
    if s.is_empty() {
        default
    } else {
        s
    }
}

/// Kinds that are not namespaced (the builtin list kustomize consults).
pub(crate) fn is_cluster_scoped(gvk: &Gvk) -> bool {
    let kind = gvk.kind.as_str();
    if matches!(
        kind,
        "Namespace" | "Node" | "PersistentVolume" | "ComponentStatus"
    ) && !gvk.group.is_empty()
    {
        return false;
    }
    matches!(
        kind,
        "APIService"
            | "CSIDriver"
            | "CSINode"
            | "CertificateSigningRequest"
            | "ClusterRole"
            | "ClusterRoleBinding"
            | "ComponentStatus"
            | "CustomResourceDefinition"
            | "MutatingWebhookConfiguration"
            | "Namespace"
            | "Node"
            | "PersistentVolume"
            | "PodSecurityPolicy"
            | "PriorityClass"
            | "RuntimeClass"
            | "SelfSubjectAccessReview"
            | "SelfSubjectRulesReview"
            | "StorageClass"
            | "SubjectAccessReview"
            | "TokenReview"
            | "ValidatingWebhookConfiguration"
            | "VolumeAttachment"
            | "IngressClass"
            | "ValidatingAdmissionPolicy"
            | "ValidatingAdmissionPolicyBinding"
            | "FlowSchema"
            | "PriorityLevelConfiguration"
    )
}

/// How a generated resource meets an existing one of the same id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Behavior {
    Create,
    Merge,
    Replace,
}

#[derive(Clone, Debug)]
pub(crate) struct Res {
    pub node: Node,
    /// (name, namespace) ids held before each rename, oldest first; the original is first.
    pub prev: Vec<(String, String)>,
    /// The kind this resource had when loaded (patches may change it).
    pub orig_gvk: Gvk,
    pub prefixes: Vec<String>,
    pub suffixes: Vec<String>,
    /// A generated ConfigMap/Secret whose name gets a content hash at the end of the build.
    pub needs_hash: bool,
    pub behavior: Option<Behavior>,
    pub origin: Option<Origin>,
    /// Transformers that ran over the resource, for `buildMetadata: [transformerAnnotations]`.
    pub transformations: Vec<Origin>,
    /// The vars bound to this object where they were declared (kustomize's `refVarNames`).
    pub ref_var_names: Vec<String>,
}

/// Where a resource came from, for `buildMetadata: [originAnnotations]`.
#[derive(Clone, Debug)]
pub(crate) enum Origin {
    File(std::path::PathBuf),
    /// A builtin generator configured in a file (a kustomization or a plugin config).
    Generator {
        configured_in: std::path::PathBuf,
        kind: String,
        name: Option<String>,
    },
    /// A builtin transformer (the same facts as a generator, plus the config's namespace).
    Transformer {
        configured_in: std::path::PathBuf,
        kind: String,
        name: Option<String>,
        namespace: Option<String>,
    },
}

impl Res {
    pub(super) fn new(node: Node) -> Res {
        let orig_gvk = Gvk::of(&node);
        Res {
            node,
            prev: Vec::new(),
            orig_gvk,
            prefixes: Vec::new(),
            suffixes: Vec::new(),
            needs_hash: false,
            behavior: None,
            origin: None,
            transformations: Vec::new(),
            ref_var_names: Vec::new(),
        }
    }

    pub(crate) fn gvk(&self) -> Gvk {
        Gvk::of(&self.node)
    }

    pub(super) fn name(&self) -> &str {
        self.node
            .get_path(&["metadata", "name"])
            .and_then(Node::as_str)
            .unwrap_or("")
    }

    pub(super) fn namespace(&self) -> &str {
        self.node
            .get_path(&["metadata", "namespace"])
            .and_then(Node::as_str)
            .unwrap_or("")
    }

    /// The namespace for comparisons: an unset namespace of a namespaced kind is `default`.
    pub(crate) fn effective_namespace(&self) -> &str {
        let ns = self.namespace();
        if ns.is_empty() && !is_cluster_scoped(&self.gvk()) {
            "default"
        } else {
            ns
        }
    }

    /// The name it was loaded or generated with.
    pub(crate) fn original_name(&self) -> &str {
        self.prev
            .first()
            .map(|p| p.0.as_str())
            .unwrap_or(self.name())
    }

    pub(crate) fn original_namespace(&self) -> &str {
        self.prev
            .first()
            .map(|p| p.1.as_str())
            .unwrap_or(self.namespace())
    }

    /// Every name the resource has had, current last.
    pub(crate) fn all_names(&self) -> impl Iterator<Item = &str> {
        self.prev
            .iter()
            .map(|p| p.0.as_str())
            .chain(std::iter::once(self.name()))
    }

    /// kustomize's current id string, as used in messages: `Deployment.v1.apps/name.[noNs]`.
    pub(crate) fn id_string(&self) -> String {
        format!(
            "{}/{}.{}",
            self.gvk().id_string(),
            self.name(),
            or(self.namespace(), "[noNs]")
        )
    }

    /// Same current id (gvk, name, namespace with `default` equal to unset).
    pub(crate) fn same_id(&self, other: &Res) -> bool {
        // Names differ most often and cost least to compare, so they go first; the namespace
        // last, as telling an unset one from `default` needs the kind's scope.
        self.name() == other.name()
            && Gvk::parts_of(&self.node) == Gvk::parts_of(&other.node)
            && self.effective_namespace() == other.effective_namespace()
    }

    fn remember(&mut self) {
        let id = (self.name().to_string(), self.namespace().to_string());
        self.prev.push(id);
    }

    pub(super) fn set_name(&mut self, name: &str) {
        if name == self.name() {
            return;
        }
        self.remember();
        set_meta(&mut self.node, "name", name);
    }

    pub(crate) fn set_namespace(&mut self, ns: &str) {
        if ns == self.namespace() {
            return;
        }
        self.remember();
        set_meta(&mut self.node, "namespace", ns);
    }
}

fn set_meta(node: &mut Node, key: &str, value: &str) {
    if let Some(m) = node.as_mapping_mut() {
        if !matches!(m.get("metadata"), Some(Node::Mapping(_))) {
            m.insert("metadata", Node::Mapping(Mapping::new()));
        }
        if let Some(meta) = m.get_mut("metadata").and_then(Node::as_mapping_mut) {
            meta.insert(key, Node::Scalar(Scalar::plain(value)));
        }
    }
}

/// A `target`/`select` of patches and replacements.
#[derive(Clone, Debug, Default)]
pub(crate) struct Selector {
    pub group: Option<String>,
    pub version: Option<String>,
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub label_selector: Option<String>,
    pub annotation_selector: Option<String>,
}

impl Selector {
    pub(crate) fn from_node(node: &Node) -> Selector {
        let get = |k: &str| node.get(k).and_then(Node::as_str).map(str::to_string);
        Selector {
            group: get("group"),
            version: get("version"),
            kind: get("kind"),
            name: get("name"),
            namespace: get("namespace"),
            label_selector: get("labelSelector"),
            annotation_selector: get("annotationSelector"),
        }
    }

    /// Like `matches`, but a name also matches any earlier name of the resource.
    pub(crate) fn matches_any_name(&self, res: &Res) -> bool {
        if self.matches(res) {
            return true;
        }
        let Some(want) = &self.name else { return false };
        res.all_names().any(|n| regex_full(want, n))
            && Selector {
                name: None,
                ..self.clone()
            }
            .matches(res)
    }

    /// kustomize's `resmap.Select`, which patch targets use: the name matches the original name
    /// or the current one, and so does the namespace (not the names held in between).
    pub(crate) fn matches_original_or_current(&self, res: &Res) -> bool {
        let either = |want: &Option<String>, original: &str, current: &str| match want {
            None => true,
            Some(w) if w.is_empty() => true,
            Some(w) => regex_full(w, original) || regex_full(w, current),
        };
        either(&self.name, res.original_name(), res.name())
            && either(&self.namespace, res.original_namespace(), res.namespace())
            && Selector {
                name: None,
                namespace: None,
                ..self.clone()
            }
            .matches(res)
    }

    pub(super) fn matches(&self, res: &Res) -> bool {
        let gvk = res.gvk();
        let field = |want: &Option<String>, have: &str| match want {
            None => true,
            Some(w) if w.is_empty() => true,
            Some(w) => regex_full(w, have),
        };
        field(&self.group, &gvk.group)
            && field(&self.version, &gvk.version)
            && field(&self.kind, &gvk.kind)
            && field(&self.name, res.name())
            && field(&self.namespace, res.namespace())
            && self.label_selector.as_deref().is_none_or(|s| {
                label_selector_matches(s, res.node.get_path(&["metadata", "labels"]))
            })
            && self.annotation_selector.as_deref().is_none_or(|s| {
                label_selector_matches(s, res.node.get_path(&["metadata", "annotations"]))
            })
    }
}

/// Matches `value` against a whole-string regular expression (kustomize anchors selector
/// patterns); an invalid pattern matches only itself literally.
pub(crate) fn regex_full(pattern: &str, value: &str) -> bool {
    if pattern == value {
        return true;
    }
    // Most selectors are plain names: without a metacharacter, inequality settles it.
    if !pattern.contains(|c: char| ".^$*+?()[]{}|\\".contains(c)) {
        return false;
    }
    thread_local! {
        // Compiled once per pattern and thread; selectors come from kustomization files, so the
        // set is bounded by the input, and the cap keeps a hostile one from growing it forever.
        static COMPILED: std::cell::RefCell<std::collections::HashMap<String, Option<regex::Regex>>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    COMPILED.with(|compiled| {
        let mut compiled = compiled.borrow_mut();
        if compiled.len() > 4096 {
            compiled.clear();
        }
        compiled
            .entry(pattern.to_owned())
            .or_insert_with(|| regex::Regex::new(&format!("^(?:{pattern})$")).ok())
            .as_ref()
            .is_some_and(|re| re.is_match(value))
    })
}

/// Kubernetes label selector syntax (`crate::labels`), read as kustomize reads a target's.
pub(crate) fn label_selector_matches(selector: &str, labels: Option<&Node>) -> bool {
    crate::labels::Selector::parse_lenient(selector)
        .matches(|k| labels.and_then(|l| l.get(k)).and_then(Node::as_str))
}
