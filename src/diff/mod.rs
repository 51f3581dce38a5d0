//! What a change does to the cluster: two reconciled sides (base and head) compared object by
//! object, grouped by the Kustomization or HelmRelease that produces each object.
//!
//! Objects are matched on (API group, kind, namespace, name), so a version bump is a change, not
//! a removal and an addition. An object is added, removed, changed (its canonical form, as
//! `render` prints it, differs) or moved (another producer applies it now). Each Flux object's
//! status is compared too. Objects of a producer that failed on one side are unknown there: they
//! are counted, not reported as added or removed (Flux keeps what it last applied), and the
//! producers that did not render on a side are listed apart ([`NotRendered`]), with why and
//! whether the change touches them, so no output reports their objects as known.
//!
//! Secrets: values under `data` and `stringData` never reach a diff; the diff is taken on a copy
//! with every value replaced, and the keys whose values changed are listed by name.
//!
//! Not for: running the reconciles, reading git, or printing (see `cli::diff`).

pub mod fields;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

use crate::model::Object;
use crate::parallel;
use crate::yaml::{emit_canonical_kyaml, Node};

/// What a Secret's values are replaced with in a diff.
pub(crate) const REDACTED: &str = "<redacted>";

/// A Flux object on either side: Kustomization, HelmRelease, source...
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProducerKey {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl std::fmt::Display for ProducerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.namespace.is_empty() {
            write!(f, "{} {}", self.kind, self.name)
        } else {
            write!(f, "{} {}/{}", self.kind, self.namespace, self.name)
        }
    }
}

/// An applied object's identity across versions of its API: which cluster it is applied to, then
/// (API group, kind, namespace, name). The API server identifies an object within its cluster;
/// a producer with `spec.kubeConfig` applies to another cluster (kustomize-controller's
/// `KustomizationReconciler.reconcile` and helm-controller's `getClientGetter` build their client
/// from the kubeconfig that `runtime/client.KubeConfig` reads), so two same-named objects
/// applied through different kubeconfigs are two objects.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub group: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// The cluster it is applied to when not offlux's own: the kubeConfig targets from the
    /// outermost in (`controllers::cluster::target_clusters`); empty for offlux's own.
    pub cluster: String,
}

impl std::fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.namespace.is_empty() {
            write!(f, "{} {}", self.kind, self.name)?;
        } else {
            write!(f, "{} {}/{}", self.kind, self.namespace, self.name)?;
        }
        if !self.cluster.is_empty() {
            write!(f, " on cluster {}", self.cluster)?;
        }
        Ok(())
    }
}

impl ObjectKey {
    fn of(object: &Object, cluster: &str) -> Self {
        ObjectKey {
            group: object.id.group.to_string(),
            kind: object.id.kind.to_string(),
            namespace: object.id.namespace.to_string(),
            name: object.id.name.to_string(),
            cluster: cluster.to_owned(),
        }
    }
}

/// How a Flux object ended on one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed,
    Blocked,
    Skipped,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::Blocked => "blocked",
            Verdict::Skipped => "skipped",
        }
    }
}

/// A Flux object's outcome on one side. Displayed as the roster says it (`PASS`,
/// `FAIL: message`...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub verdict: Verdict,
    /// Why it did not pass (empty when it passed).
    pub cause: String,
}

impl Outcome {
    pub fn passed() -> Self {
        Outcome {
            verdict: Verdict::Passed,
            cause: String::new(),
        }
    }

    /// Failed, blocked or skipped: its objects on this side are unknown.
    pub fn failed(&self) -> bool {
        self.verdict != Verdict::Passed
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let word = match self.verdict {
            Verdict::Passed => return f.write_str("PASS"),
            Verdict::Failed => "FAIL",
            Verdict::Blocked => "BLOCKED",
            Verdict::Skipped => "SKIPPED",
        };
        write!(f, "{word}: {}", self.cause)
    }
}

/// The kinds whose objects apply others: the producers [`NotRendered`] lists.
const PRODUCER_KINDS: [&str; 4] = [
    "Kustomization",
    "HelmRelease",
    "ResourceSet",
    "FluxInstance",
];

/// Why what a producer applies is unknown on one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Withheld {
    /// It did not pass there: failed, blocked or skipped.
    Outcome(Outcome),
    /// It is not there at all: the producer named, which applies it, did not render there.
    NotApplied(ProducerKey),
}

/// A producer that did not render on one side or both: what it applies there is unknown, so it
/// is not compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotRendered {
    pub producer: ProducerKey,
    /// Why, on each side where it did not render (`None`: it rendered there, or is absent).
    pub base: Option<Withheld>,
    pub head: Option<Withheld>,
    /// Its own Flux object differs between the sides (changed, moved, added or removed).
    pub changed: bool,
    /// Its outcome differs between the sides.
    pub status_changed: bool,
}

impl NotRendered {
    /// The change touches it: its definition or its outcome differs.
    pub fn touched(&self) -> bool {
        self.changed || self.status_changed
    }
}

/// One side of the comparison.
pub struct Side<'a> {
    /// The objects each producer applies.
    pub rendered: Vec<(ProducerKey, Vec<&'a Object>)>,
    pub statuses: BTreeMap<ProducerKey, Outcome>,
    /// The cluster each producer applies its objects to, when not offlux's own
    /// (`spec.kubeConfig`, its own or a producer's; see [`ObjectKey::cluster`]).
    pub clusters: BTreeMap<ProducerKey, String>,
}

#[derive(Clone, Debug)]
pub struct Options {
    /// Unchanged lines shown around each change.
    pub context: usize,
    /// Label and annotation keys left out of the comparison (globs: `checksum/*`), wherever a
    /// `metadata` holds them (the object's, a pod template's): what a chart bump changes on
    /// every object without changing what runs.
    pub strip: Vec<String>,
}

/// The matcher of [`Options::strip`]; `None` when nothing is stripped or a glob is invalid
/// (then nothing is, rather than something unasked).
fn strip_matcher(patterns: &[String]) -> Option<globset::GlobSet> {
    if patterns.is_empty() {
        return None;
    }
    let mut set = globset::GlobSetBuilder::new();
    for pattern in patterns {
        set.add(globset::Glob::new(pattern).ok()?);
    }
    set.build().ok()
}

/// `node` without the label and annotation keys `strip` matches, under every `metadata`.
fn stripped(node: &Node, strip: &globset::GlobSet) -> Node {
    let mut copy = node.clone();
    strip_in(&mut copy, strip);
    copy
}

fn strip_in(node: &mut Node, strip: &globset::GlobSet) {
    match node {
        Node::Mapping(mapping) => {
            for entry in &mut mapping.entries {
                if entry.key.value == "metadata" {
                    if let Node::Mapping(metadata) = &mut entry.value {
                        for field in ["labels", "annotations"] {
                            let Some(Node::Mapping(keys)) = metadata.get_mut(field) else {
                                continue;
                            };
                            let had = keys.entries.len();
                            keys.entries
                                .retain(|e| !strip.is_match(e.key.value.as_str()));
                            // A map left empty by the strip goes too: one side's `{}` against
                            // the other's absent map is no difference.
                            if had > 0 && keys.entries.is_empty() {
                                metadata.remove(field);
                            }
                        }
                    }
                }
                strip_in(&mut entry.value, strip);
            }
        }
        Node::Sequence(sequence) => {
            for item in &mut sequence.items {
                strip_in(item, strip);
            }
        }
        Node::Scalar(_) => {}
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    Added,
    Removed,
    Changed,
    Moved,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
            Change::Moved => "moved",
        }
    }
}

/// Which keys of a Secret changed (names only).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SecretKeys {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
}

impl SecretKeys {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

#[derive(Clone, Debug)]
pub struct ObjectChange {
    pub object: ObjectKey,
    /// The `apiVersion` on the head side (the base side's for a removed object).
    pub api_version: String,
    pub change: Change,
    /// For a moved object, the producer that applied it before.
    pub from: Option<ProducerKey>,
    /// A unified diff of the canonical forms (empty for a move alone or a Secret whose values
    /// alone changed).
    pub diff: String,
    /// For a Secret, the keys whose values changed.
    pub secret_keys: Option<SecretKeys>,
    /// For a changed object, the fields that differ (see `fields`), and how many more were left
    /// out of that list.
    pub fields: Vec<fields::FieldChange>,
    pub more_fields: usize,
    /// The file the object comes from (relative to the repository root), and its line.
    pub file: Option<(PathBuf, u32)>,
}

/// A Flux object whose outcome differs between the sides (`None`: absent on that side).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusChange {
    pub before: Option<Outcome>,
    pub after: Option<Outcome>,
}

#[derive(Clone, Debug, Default)]
pub struct ProducerReport {
    pub status: Option<StatusChange>,
    pub objects: Vec<ObjectChange>,
    /// Objects not compared because this producer was not rendered on one side.
    pub unknown: usize,
}

/// The differences, by producer (in kind, namespace, name order).
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub producers: BTreeMap<ProducerKey, ProducerReport>,
    /// The producers that did not render on one side or both: those the change touches first,
    /// then the others, each group in kind, namespace, name order.
    pub not_rendered: Vec<NotRendered>,
}

impl Report {
    /// No difference among the objects compared (producers that did not render may still be
    /// listed in [`Report::not_rendered`]).
    pub fn is_empty(&self) -> bool {
        self.producers
            .values()
            .all(|p| p.status.is_none() && p.objects.is_empty())
    }

    /// How many object changes of each kind.
    pub fn counts(&self) -> BTreeMap<Change, usize> {
        let mut counts = BTreeMap::new();
        for change in self.producers.values().flat_map(|p| &p.objects) {
            *counts.entry(change.change).or_insert(0) += 1;
        }
        counts
    }

    pub(crate) fn status_changes(&self) -> usize {
        self.producers
            .values()
            .filter(|p| p.status.is_some())
            .count()
    }
}

/// An object as compared: its canonical text, and for a Secret the redacted text and values.
struct Prepared<'a> {
    producer: &'a ProducerKey,
    object: &'a Object,
    text: String,
    redacted: Option<(String, BTreeMap<String, String>)>,
}

impl Prepared<'_> {
    fn shown(&self) -> &str {
        match &self.redacted {
            Some((text, _)) => text,
            None => &self.text,
        }
    }
}

fn prepare<'a>(
    side: &'a Side<'a>,
    strip: Option<&globset::GlobSet>,
) -> BTreeMap<ObjectKey, Prepared<'a>> {
    let items: Vec<(&ProducerKey, &Object)> = side
        .rendered
        .iter()
        .flat_map(|(producer, objects)| objects.iter().map(move |o| (producer, *o)))
        .collect();
    let prepared = parallel::map(&items, |&(producer, object)| {
        let kept;
        let node = match strip {
            Some(strip) => {
                kept = stripped(&object.node, strip);
                &kept
            }
            None => &object.node,
        };
        let redacted = is_secret(object).then(|| redact(node));
        Prepared {
            producer,
            object,
            text: emit_canonical_kyaml(node),
            redacted,
        }
    });
    let mut by_key = BTreeMap::new();
    for item in prepared {
        // One producer per object (the runtime gives a contested object to one); should two
        // claim it, the first in producer order is compared.
        let cluster = side.clusters.get(item.producer).map_or("", String::as_str);
        by_key
            .entry(ObjectKey::of(item.object, cluster))
            .or_insert(item);
    }
    by_key
}

fn is_secret(object: &Object) -> bool {
    object.id.group.is_empty() && object.id.kind == "Secret"
}

/// The Secret's canonical text with every `data`/`stringData` value replaced, and its values by
/// key (`stringData` keys marked as such).
fn redact(node: &Node) -> (String, BTreeMap<String, String>) {
    let mut copy = node.clone();
    let mut values = BTreeMap::new();
    if let Some(mapping) = copy.as_mapping_mut() {
        for field in ["data", "stringData"] {
            let Some(Node::Mapping(data)) = mapping.get_mut(field) else {
                continue;
            };
            for entry in &mut data.entries {
                let value = match &entry.value {
                    Node::Scalar(s) => s.value.to_string(),
                    other => crate::yaml::emit_canonical_kyaml(other),
                };
                let name = match field {
                    "data" => entry.key.value.to_string(),
                    _ => format!("{} (stringData)", entry.key.value),
                };
                values.insert(name, value);
                entry.value = Node::Scalar(crate::yaml::Scalar::plain(REDACTED));
            }
        }
    }
    (emit_canonical_kyaml(&copy), values)
}

fn secret_keys(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> SecretKeys {
    let mut keys = SecretKeys::default();
    for (key, value) in after {
        match before.get(key) {
            None => keys.added.push(key.clone()),
            Some(old) if old != value => keys.changed.push(key.clone()),
            Some(_) => {}
        }
    }
    keys.removed = before
        .keys()
        .filter(|k| !after.contains_key(*k))
        .cloned()
        .collect();
    keys
}

/// A unified diff of two texts, with `base/`…`head/` headers naming the object.
pub(crate) fn unified(before: &str, after: &str, label: &str, context: usize) -> String {
    if before == after {
        return String::new();
    }
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(context)
        .header(&format!("base/{label}"), &format!("head/{label}"))
        .to_string()
}

fn location(object: &Object) -> Option<(PathBuf, u32)> {
    (!object.file.as_os_str().is_empty()).then(|| (object.file.clone(), object.pos.line))
}

fn api_version(object: &Object) -> String {
    if object.id.group.is_empty() {
        object.id.version.to_string()
    } else {
        format!("{}/{}", object.id.group, object.id.version)
    }
}

fn label(key: &ObjectKey) -> String {
    let group = if key.group.is_empty() {
        String::new()
    } else {
        format!(".{}", key.group)
    };
    let mut label = if key.namespace.is_empty() {
        format!("{}{group}/{}", key.kind, key.name)
    } else {
        format!("{}{group}/{}/{}", key.kind, key.namespace, key.name)
    };
    if !key.cluster.is_empty() {
        label.push_str(&format!(" (cluster {})", key.cluster));
    }
    label
}

/// Producers whose output a side cannot tell, each with the producer whose failure kept it from
/// being applied there (`None`: it did not render itself).
type Unknown = HashMap<ProducerKey, Option<ProducerKey>>;

/// The producers whose objects `side` cannot tell: those that failed there (`None`), and,
/// transitively, those missing from it because the producer that applies them is one of these
/// (a HelmRelease under a Kustomization that failed), with that producer. `present` are the
/// objects of the other side, `seen` this side's.
fn unknown(
    present: &BTreeMap<ObjectKey, Prepared<'_>>,
    seen: &BTreeMap<ObjectKey, Prepared<'_>>,
    side: &Side<'_>,
) -> Unknown {
    let mut unknown: Unknown = side
        .statuses
        .iter()
        .filter(|(_, outcome)| outcome.failed())
        .map(|(producer, _)| (producer.clone(), None))
        .collect();
    loop {
        let before = unknown.len();
        for (key, object) in present {
            if !seen.contains_key(key) && unknown.contains_key(object.producer) {
                unknown
                    .entry(ProducerKey {
                        kind: key.kind.clone(),
                        namespace: key.namespace.clone(),
                        name: key.name.clone(),
                    })
                    .or_insert_with(|| Some(object.producer.clone()));
            }
        }
        if unknown.len() == before {
            return unknown;
        }
    }
}

/// The producers whose output is unknown on a side (`unknown_in_base`, `unknown_in_head`), each
/// with why and whether `report`'s object changes include its own object.
fn not_rendered(
    (base, head): (&Side<'_>, &Side<'_>),
    (unknown_in_base, unknown_in_head): (&Unknown, &Unknown),
    report: &Report,
) -> Vec<NotRendered> {
    let keys: BTreeSet<&ProducerKey> = unknown_in_base
        .keys()
        .chain(unknown_in_head.keys())
        .filter(|key| PRODUCER_KINDS.contains(&key.kind.as_str()))
        .collect();
    let changed_objects: HashSet<(&str, &str, &str)> = report
        .producers
        .values()
        .flat_map(|p| &p.objects)
        .map(|c| {
            (
                c.object.kind.as_str(),
                c.object.namespace.as_str(),
                c.object.name.as_str(),
            )
        })
        .collect();
    let withheld = |key: &ProducerKey, unknown: &Unknown, side: &Side<'_>| match unknown.get(key)? {
        Some(parent) => Some(Withheld::NotApplied(parent.clone())),
        None => side.statuses.get(key).cloned().map(Withheld::Outcome),
    };
    let mut list: Vec<NotRendered> = keys
        .into_iter()
        .map(|key| NotRendered {
            producer: key.clone(),
            base: withheld(key, unknown_in_base, base),
            head: withheld(key, unknown_in_head, head),
            changed: changed_objects.contains(&(
                key.kind.as_str(),
                key.namespace.as_str(),
                key.name.as_str(),
            )),
            status_changed: base.statuses.get(key) != head.statuses.get(key),
        })
        .collect();
    // A producer before those it did not apply (a Kustomization before its releases), so the
    // root cause reads first; stable, so each group stays in key order.
    let parents: HashMap<ProducerKey, ProducerKey> = list
        .iter()
        .filter_map(|entry| {
            let parent = [&entry.head, &entry.base]
                .into_iter()
                .find_map(|side| match side {
                    Some(Withheld::NotApplied(parent)) => Some(parent.clone()),
                    _ => None,
                })?;
            Some((entry.producer.clone(), parent))
        })
        .collect();
    let depth = |key: &ProducerKey| {
        let mut depth = 0;
        let mut at = key;
        // Bounded: a cycle of producers cannot be, but the walk need not trust that.
        while let Some(parent) = parents.get(at).filter(|_| depth < parents.len()) {
            depth += 1;
            at = parent;
        }
        depth
    };
    list.sort_by_cached_key(|entry| (!entry.touched(), depth(&entry.producer)));
    list
}

/// The field changes between two canonical forms of an object (as shown: a Secret's values
/// replaced), read back as trees.
fn fields_of(before: &str, after: &str) -> (Vec<fields::FieldChange>, usize) {
    let read = |text: &str| {
        crate::yaml::parse_stream(text, &crate::yaml::ParseOptions::default())
            .ok()
            .and_then(|documents| documents.into_iter().next())
            .map(|document| document.root)
    };
    match (read(before), read(after)) {
        (Some(before), Some(after)) => fields::compare(&before, &after),
        _ => (Vec::new(), 0),
    }
}

/// Compares the sides.
pub fn compare(base: &Side<'_>, head: &Side<'_>, options: &Options) -> Report {
    let strip = strip_matcher(&options.strip);
    let before = prepare(base, strip.as_ref());
    let after = prepare(head, strip.as_ref());
    let unknown_in_head = unknown(&before, &after, head);
    let unknown_in_base = unknown(&after, &before, base);
    let mut report = Report::default();
    for (key, old) in &before {
        if after.contains_key(key) {
            continue;
        }
        let entry = report.producers.entry(old.producer.clone()).or_default();
        if unknown_in_head.contains_key(old.producer) {
            entry.unknown += 1;
            continue;
        }
        entry.objects.push(ObjectChange {
            object: key.clone(),
            api_version: api_version(old.object),
            change: Change::Removed,
            from: None,
            diff: unified(old.shown(), "", &label(key), options.context),
            secret_keys: None,
            fields: Vec::new(),
            more_fields: 0,
            file: location(old.object),
        });
    }
    for (key, new) in &after {
        let change = match before.get(key) {
            None if unknown_in_base.contains_key(new.producer) => {
                report
                    .producers
                    .entry(new.producer.clone())
                    .or_default()
                    .unknown += 1;
                continue;
            }
            None => ObjectChange {
                object: key.clone(),
                api_version: api_version(new.object),
                change: Change::Added,
                from: None,
                diff: unified("", new.shown(), &label(key), options.context),
                secret_keys: None,
                fields: Vec::new(),
                more_fields: 0,
                file: location(new.object),
            },
            Some(old) => {
                let moved = old.producer != new.producer;
                if !moved && old.text == new.text {
                    continue;
                }
                let secret_keys = match (&old.redacted, &new.redacted) {
                    (Some((_, a)), Some((_, b))) => Some(secret_keys(a, b)),
                    _ => None,
                };
                let fields = fields_of(old.shown(), new.shown());
                ObjectChange {
                    object: key.clone(),
                    api_version: api_version(new.object),
                    change: if moved {
                        Change::Moved
                    } else {
                        Change::Changed
                    },
                    from: moved.then(|| old.producer.clone()),
                    diff: unified(old.shown(), new.shown(), &label(key), options.context),
                    secret_keys,
                    fields: fields.0,
                    more_fields: fields.1,
                    file: location(new.object),
                }
            }
        };
        report
            .producers
            .entry(new.producer.clone())
            .or_default()
            .objects
            .push(change);
    }
    for producer in base.statuses.keys().chain(head.statuses.keys()) {
        let old = base.statuses.get(producer);
        let new = head.statuses.get(producer);
        let differs = match (old, new) {
            (Some(a), Some(b)) => a != b,
            // A Flux object only one side has is told by its objects; its outcome only if it
            // did not pass.
            (Some(only), None) | (None, Some(only)) => only.failed(),
            (None, None) => false,
        };
        if differs {
            report.producers.entry(producer.clone()).or_default().status = Some(StatusChange {
                before: old.cloned(),
                after: new.cloned(),
            });
        }
    }
    report
        .producers
        .retain(|_, p| p.status.is_some() || !p.objects.is_empty() || p.unknown > 0);
    for producer in report.producers.values_mut() {
        producer.objects.sort_by(|a, b| {
            let order = |k: &ObjectKey| {
                (
                    k.kind.clone(),
                    k.namespace.clone(),
                    k.name.clone(),
                    k.group.clone(),
                    k.cluster.clone(),
                )
            };
            order(&a.object).cmp(&order(&b.object))
        });
    }
    report.not_rendered = not_rendered((base, head), (&unknown_in_base, &unknown_in_head), &report);
    report
}

#[cfg(test)]
mod tests;
