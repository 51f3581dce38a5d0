//! The comparison of two runs (`offlux diff`) as text: for a person (`human`, coloured on a
//! terminal), a pull-request comment (`markdown`, cut to a size), a program (`json`), GitHub's
//! workflow annotations (`github`) and one self-contained page (`html`). Every format puts the
//! producers that did not render first, and names the cluster of each part when the sides hold
//! several.
//!
//! The sides come from `Orchestrator::diff`; [`compare`] turns them into one [`ClusterReport`]
//! per cluster, and [`Compared`] is what every format reads.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use super::named_opt;
use super::paint::{BOLD, CYAN, GREEN, RED, RESET};
use super::verdicts::{rows, Verdict};
use crate::diff::{
    self, Change, NotRendered, ObjectChange, Outcome, ProducerKey, Report, Side, Withheld,
};
use crate::escape;
use crate::model::Object;
use crate::orchestrator::diff::{ClusterSides, Reconciled};
use crate::orchestrator::LeftOut;
use crate::selection::scope::Target;

mod html;

/// The formats of a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Markdown,
    Json,
    Github,
    /// One self-contained page: a tree to navigate, a filter, unified and side-by-side views.
    Html,
}

/// One cluster compared, as the outputs print it.
pub struct ClusterReport<'a> {
    pub cluster: Option<&'a str>,
    /// Which side alone holds the cluster, when one does.
    pub only: Option<Only>,
    pub report: Report,
}

impl ClusterReport<'_> {
    /// No difference, the cluster is on both sides, and no producer that did not render was
    /// changed (its definition or its outcome).
    pub fn is_empty(&self) -> bool {
        self.report.is_empty()
            && self.only.is_none()
            && !self.report.not_rendered.iter().any(NotRendered::touched)
    }
}

/// The side that alone holds a cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Only {
    Base,
    Head,
}

impl Only {
    /// What the outputs say of a cluster one side alone holds.
    fn sentence(self) -> &'static str {
        match self {
            Only::Base => "cluster removed: only the base holds it, so all its objects are removed",
            Only::Head => "cluster added: only the head holds it, so all its objects are added",
        }
    }

    fn json(self) -> &'static str {
        match self {
            Only::Base => "clusterRemoved",
            Only::Head => "clusterAdded",
        }
    }
}

/// How the sides are compared.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// Context lines and the labels and annotations left out.
    pub diff: diff::Options,
    /// Secrets left out (otherwise compared with their values hidden).
    pub skip_secrets: bool,
    /// CustomResourceDefinitions left out.
    pub skip_crds: bool,
    /// Other kinds left out.
    pub skip_kinds: Vec<String>,
    /// The producers compared (`diff ks NAME`, or every Kustomization with `-l`).
    pub scope: Option<Target>,
    /// Of those, only the ones whose labels match, on either side (`diff ks -l app=web`).
    pub selector: Option<crate::labels::Selector>,
}

/// Each cluster's sides compared (`crate::diff::compare`), in the clusters' order.
pub fn compare<'a>(
    clusters: &'a [ClusterSides],
    options: &CompareOptions,
) -> Vec<ClusterReport<'a>> {
    let keeps = |object: &Object| {
        let kind = object.id.kind.as_str();
        !(options.skip_secrets && kind == "Secret"
            || options.skip_crds && kind == "CustomResourceDefinition"
            || options.skip_kinds.iter().any(|k| k == kind))
    };
    clusters
        .iter()
        .map(|c| {
            let labelled = (options.selector.as_ref()).map(|selector| {
                let kinds = options.scope.as_ref().map_or(&[][..], |s| &s.kinds[..]);
                labelled_producers(c, kinds, selector)
            });
            let empty = || Side {
                rendered: Vec::new(),
                statuses: BTreeMap::new(),
                clusters: BTreeMap::new(),
            };
            let base_side = c.base.as_ref().map_or_else(empty, |b| side(b, &keeps));
            let head_side = c.head.as_ref().map_or_else(empty, |h| side(h, &keeps));
            let only = match (&c.base, &c.head) {
                (None, Some(_)) => Some(Only::Head),
                (Some(_), None) => Some(Only::Base),
                _ => None,
            };
            let mut report = only_scoped(
                diff::compare(&base_side, &head_side, &options.diff),
                options.scope.as_ref(),
            );
            if let Some(labelled) = &labelled {
                report
                    .producers
                    .retain(|producer, _| labelled.contains(producer));
                report
                    .not_rendered
                    .retain(|entry| labelled.contains(&entry.producer));
            }
            ClusterReport {
                cluster: c.cluster.as_deref(),
                only,
                report,
            }
        })
        .collect()
}

/// The producers of `kinds` whose labels `selector` matches on either side of `cluster`: those a
/// producer applies (a Kustomization's Kustomizations, a ResourceSet's releases) and those written
/// in the repository.
pub fn labelled_producers(
    cluster: &ClusterSides,
    kinds: &[String],
    selector: &crate::labels::Selector,
) -> std::collections::BTreeSet<ProducerKey> {
    let mut found = std::collections::BTreeSet::new();
    let mut consider = |object: &Object| {
        if !kinds.iter().any(|k| *k == object.id.kind.as_str()) {
            return;
        }
        let labels = object.labels();
        if selector.matches(|key| labels.get(key).map(String::as_str)) {
            let key = producer_key(&object.id);
            // The rows name an object without a namespace by the one it lands in.
            if key.namespace.is_empty() {
                found.insert(ProducerKey {
                    namespace: "default".to_owned(),
                    ..key.clone()
                });
            }
            found.insert(key);
        }
    };
    for side in cluster.sides().into_iter().flatten() {
        for object in side.report.rendered.values().flatten() {
            consider(object);
        }
        for flux in &side.repository.flux_objects {
            consider(&flux.object);
        }
    }
    found
}

/// `report` narrowed to the producer `scope` names (`diff ks NAME`): its objects and its status,
/// or it among the producers not rendered.
fn only_scoped(mut report: Report, scope: Option<&Target>) -> Report {
    let Some(target) = scope else {
        return report;
    };
    let named = |producer: &ProducerKey| {
        target.matches_parts(&producer.kind, &producer.namespace, &producer.name)
    };
    // Its own definition changed where its parent applies it: that change is kept, alone, from
    // the parent's part.
    for (producer, part) in report.producers.iter_mut() {
        if !named(producer) {
            part.status = None;
            part.unknown = 0;
            part.objects.retain(|change| {
                let object = &change.object;
                target.matches_parts(&object.kind, &object.namespace, &object.name)
            });
        }
    }
    report
        .producers
        .retain(|producer, part| named(producer) || !part.objects.is_empty());
    report.not_rendered.retain(|entry| named(&entry.producer));
    report
}

/// One comparison's results, which every format reads a part of.
pub struct Compared<'a> {
    pub reports: &'a [ClusterReport<'a>],
    /// The sides' names: ``base `main` (abc1234)``, `working tree`.
    pub labels: (&'a str, &'a str),
    /// The labels and annotations left out, when differences are shown.
    pub stripped: Option<&'a [String]>,
    pub clusters: &'a [ClusterSides],
    /// The most bytes of the markdown report.
    pub max_size: usize,
    /// Where the whole comparison can be read, for the markdown report's cut note.
    pub full_report: Option<&'a str>,
    /// Changed objects field by field in the human and markdown reports.
    pub fields: bool,
}

impl Compared<'_> {
    /// The comparison in one format (`color` only for the human one on a terminal).
    pub fn formatted(&self, format: Format, color: bool) -> String {
        let Compared {
            reports,
            labels,
            stripped,
            clusters,
            max_size,
            full_report,
            fields,
        } = *self;
        let left_out: Vec<(Option<&str>, &LeftOut)> = clusters
            .iter()
            .filter_map(|c| Some((c.cluster.as_deref(), c.left_out.as_ref()?)))
            .collect();
        match format {
            Format::Human => {
                let mut text = human(reports, labels, color, fields);
                if let Some(set) = stripped {
                    let _ = writeln!(
                        text,
                        "\nLeft out of the comparison: labels and annotations {} (--no-default-strip compares the default ones)",
                        escape::terminal_line(&set.join(", "))
                    );
                }
                text
            }
            Format::Markdown => {
                let mut text = markdown(reports, labels, max_size, full_report, fields);
                for (cluster, left_out) in &left_out {
                    let _ = writeln!(text, "\n_{}_", named_opt(*cluster, &left_out.sentence()));
                }
                if let Some(set) = stripped {
                    let keys: Vec<String> = set.iter().map(|k| escape::markdown_code(k)).collect();
                    let _ = writeln!(
                        text,
                        "\n_Left out of the comparison: labels and annotations {} (`--no-default-strip` compares the default ones)._",
                        keys.join(", ")
                    );
                }
                text
            }
            Format::Json => json(reports, &left_out),
            Format::Html => html::html(reports, labels, &left_out, stripped),
            Format::Github => {
                let files: Vec<BTreeMap<ProducerKey, (String, u32)>> = clusters
                    .iter()
                    .map(|cluster| {
                        let sides: Vec<&Reconciled> =
                            [cluster.head.as_ref(), cluster.base.as_ref()]
                                .into_iter()
                                .flatten()
                                .collect();
                        producer_files(&sides)
                    })
                    .collect();
                // What did not render first, every cluster's, then the changes.
                let mut text = String::new();
                for (report, files) in reports.iter().zip(&files) {
                    text.push_str(&github_not_rendered(report, files));
                }
                for (report, files) in reports.iter().zip(&files) {
                    text.push_str(&github(report, files));
                }
                text
            }
        }
    }
}

/// One warning per Flux object that failed or was blocked on a side, except the producers the
/// report lists as not rendered (the report says why, and the summary line counts them) and,
/// when the comparison is narrowed (`diff ks NAME`, `-l`), those outside it.
pub fn warnings(
    clusters: &[ClusterSides],
    reports: &[ClusterReport],
    options: &CompareOptions,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for (cluster, compared) in clusters.iter().zip(reports) {
        let listed = |row: &super::verdicts::Row, head: bool| {
            compared.report.not_rendered.iter().any(|n| {
                n.producer.kind == row.kind
                    && n.producer.namespace == row.namespace
                    && n.producer.name == row.name
                    && if head {
                        n.head.is_some()
                    } else {
                        n.base.is_some()
                    }
            })
        };
        let labelled = (options.selector.as_ref()).map(|selector| {
            let kinds = options.scope.as_ref().map_or(&[][..], |s| &s.kinds[..]);
            labelled_producers(cluster, kinds, selector)
        });
        let compared_here = |row: &super::verdicts::Row| {
            let scoped = (options.scope.as_ref())
                .is_none_or(|target| target.matches_parts(&row.kind, &row.namespace, &row.name));
            let key = ProducerKey {
                kind: row.kind.clone(),
                namespace: row.namespace.clone(),
                name: row.name.clone(),
            };
            scoped && labelled.as_ref().is_none_or(|set| set.contains(&key))
        };
        for (side, head) in [(&cluster.base, false), (&cluster.head, true)] {
            let Some(side) = side else { continue };
            for row in rows(&side.report) {
                if !matches!(row.result, Verdict::Fail | Verdict::Blocked)
                    || listed(&row, head)
                    || !compared_here(&row)
                {
                    continue;
                }
                // A BLOCKED row's message says by what.
                let verb = if row.result == Verdict::Fail {
                    "failed: "
                } else {
                    ""
                };
                let text = format!(
                    "{}: {}/{}/{}: {verb}{}",
                    side.name,
                    row.kind,
                    row.namespace,
                    row.name,
                    scrub(&row.message, &side.root)
                );
                warnings.push(named_opt(cluster.cluster.as_deref(), &text));
            }
        }
    }
    warnings
}

/// The images each side's clusters render, compared: added, removed and changed containers.
pub fn image_changes(clusters: &[ClusterSides]) -> Vec<super::images::ImageChange> {
    let side = |pick: fn(&ClusterSides) -> Option<&Reconciled>| {
        let reports: Vec<(Option<&str>, &crate::controllers::runtime::RunReport)> = clusters
            .iter()
            .filter_map(|c| Some((c.cluster.as_deref(), &pick(c)?.report)))
            .collect();
        super::images::of_reports(&reports, None, None)
    };
    super::images::changes(&side(|c| c.base.as_ref()), &side(|c| c.head.as_ref()))
}

/// What `diff images` says of the producers whose images are unknown on a side because they did
/// not render there, when there are any.
pub fn unknown_images(reports: &[ClusterReport]) -> Option<String> {
    let unrendered: Vec<String> = not_rendered(reports)
        .map(|(cluster, entry)| {
            let name = named_opt(cluster, &slash_name(&entry.producer));
            if entry.touched() {
                format!("{name} ({})", touch_text(entry))
            } else {
                name
            }
        })
        .collect();
    if unrendered.is_empty() {
        return None;
    }
    let touched = not_rendered(reports).filter(|(_, e)| e.touched()).count();
    let shown: Vec<&str> = unrendered.iter().take(10).map(String::as_str).collect();
    let more = unrendered.len().saturating_sub(shown.len());
    Some(format!(
        "the images of {} are unknown on the side where they did not render \
         ({touched} touched by the change): {}{}",
        count(unrendered.len(), "producer", "producers"),
        shown.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ))
}

/// `1 object`, `2 objects`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `1 object differs (1 changed) in 1 producer; 2 status changes` for every cluster together,
/// with ` of 1 of 2 clusters` when the sides hold several.
fn counts_sentence(reports: &[ClusterReport]) -> String {
    let mut counts: BTreeMap<Change, usize> = BTreeMap::new();
    for report in reports {
        for (change, n) in report.report.counts() {
            *counts.entry(change).or_default() += n;
        }
    }
    let objects: usize = counts.values().sum();
    let mut text = count(objects, "object differs", "objects differ");
    if objects > 0 {
        let _ = write!(
            text,
            " ({})",
            counts
                .iter()
                .map(|(change, n)| format!("{n} {}", change.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let producers = reports.iter().map(|r| r.report.producers.len()).sum();
    let _ = write!(text, " in {}", count(producers, "producer", "producers"));
    if reports.iter().any(|r| r.cluster.is_some()) {
        let differing = reports.iter().filter(|r| !r.is_empty()).count();
        let _ = write!(text, " of {differing} of {} clusters", reports.len());
    }
    let status_changes = reports.iter().map(|r| r.report.status_changes()).sum();
    let _ = write!(
        text,
        "; {}",
        count(status_changes, "status change", "status changes")
    );
    text
}

/// The producers not rendered on one side or both, with their clusters' names.
fn not_rendered<'a>(
    reports: &'a [ClusterReport<'a>],
) -> impl Iterator<Item = (Option<&'a str>, &'a NotRendered)> + 'a {
    reports
        .iter()
        .flat_map(|r| r.report.not_rendered.iter().map(move |n| (r.cluster, n)))
}

/// The producers of `report` in the order a reader follows them: what applies others before what
/// it applies (a FluxInstance, then Kustomizations, ResourceSets, HelmReleases, the rest), each
/// kind by namespace and name.
fn reading_order(report: &Report) -> Vec<(&ProducerKey, &crate::diff::ProducerReport)> {
    let rank = |kind: &str| match kind {
        "FluxInstance" => 0,
        "Kustomization" => 1,
        "ResourceSet" => 2,
        "HelmRelease" => 3,
        _ => 4,
    };
    let mut producers: Vec<_> = report.producers.iter().collect();
    // The map is in kind, namespace, name order; a stable sort by rank keeps it within a rank.
    producers.sort_by_key(|(producer, _)| rank(&producer.kind));
    producers
}

/// A producer not rendered, with its cluster's name when the sides hold several clusters.
type Unrendered<'a> = (Option<&'a str>, &'a NotRendered);

/// The producers not rendered that the change does not touch, grouped by their cause (the same
/// words on the same sides), largest group first: one line says a cause once, with the producers
/// it holds back, instead of a line per producer.
fn untouched_by_cause<'a>(reports: &'a [ClusterReport<'a>]) -> Vec<Vec<Unrendered<'a>>> {
    let plain = |text: &str| text.to_owned();
    let mut groups: Vec<(String, Vec<Unrendered>)> = Vec::new();
    for (cluster, entry) in not_rendered(reports).filter(|(_, n)| !n.touched()) {
        let cause = shared_causes(entry, &plain);
        match groups.iter_mut().find(|(known, _)| *known == cause) {
            Some((_, members)) => members.push((cluster, entry)),
            None => groups.push((cause, vec![(cluster, entry)])),
        }
    }
    // Stable: groups of one size keep the order of their first producer.
    groups.sort_by_key(|(_, members)| std::cmp::Reverse(members.len()));
    groups.into_iter().map(|(_, members)| members).collect()
}

/// How many producers a grouped line names before it counts the rest (the markdown report, folded,
/// names them all).
const NAMED_IN_GROUP: usize = 6;

/// `HelmRelease/a/x, HelmRelease/b/y and 3 more`: the first `named` of `members` through `quote`.
fn group_names(members: &[Unrendered], named: usize, quote: &dyn Fn(&str) -> String) -> String {
    let names: Vec<String> = members
        .iter()
        .take(named)
        .map(|(cluster, entry)| quote(&named_opt(*cluster, &slash_name(&entry.producer))))
        .collect();
    match members.len().saturating_sub(named) {
        0 => names.join(", "),
        more => format!("{} and {more} more", names.join(", ")),
    }
}

/// How many producer sentences a summary names before it counts the rest.
const NAMED_IN_SUMMARY: usize = 3;

/// What a summary says of the producers not rendered: a clause for each of the first the change
/// touches, then how many more; each repository string passed through `quote`.
fn unknown_sentences(reports: &[ClusterReport], quote: &dyn Fn(&str) -> String) -> Vec<String> {
    let (touched, untouched): (Vec<_>, Vec<_>) =
        not_rendered(reports).partition(|(_, n)| n.touched());
    let mut sentences: Vec<String> = touched
        .iter()
        .take(NAMED_IN_SUMMARY)
        .map(|(cluster, n)| match cluster {
            Some(cluster) => format!(
                "{} {}",
                quote(&format!("[{cluster}]")),
                unknown_sentence(n, quote)
            ),
            None => unknown_sentence(n, quote),
        })
        .collect();
    if touched.len() > NAMED_IN_SUMMARY {
        sentences.push(format!(
            "{} the change touches did not render",
            count(
                touched.len() - NAMED_IN_SUMMARY,
                "more producer",
                "more producers"
            )
        ));
    }
    if !untouched.is_empty() {
        let (one, many) = if touched.is_empty() {
            ("producer", "producers")
        } else {
            ("more producer", "more producers")
        };
        sentences.push(format!(
            "{} did not render, {}",
            count(untouched.len(), one, many),
            if untouched.len() == 1 {
                "its definition and outcome unchanged"
            } else {
                "their definitions and outcomes unchanged"
            }
        ));
    }
    sentences
}

/// `HelmRelease/ns/app changed; what it renders is unknown: skipped: chart … (head)`.
fn unknown_sentence(entry: &NotRendered, quote: &dyn Fn(&str) -> String) -> String {
    let name = quote(&slash_name(&entry.producer));
    if entry.changed {
        format!(
            "{name} changed; what it renders is unknown: {}",
            causes(entry, quote)
        )
    } else {
        format!("what {name} renders is unknown: {}", causes(entry, quote))
    }
}

/// The line `offlux diff` ends with on stderr: what is unknown, then the counts or that nothing
/// differs.
pub fn stderr_summary(
    reports: &[ClusterReport],
    (base, head): (&str, &str),
    stripped: &[String],
) -> String {
    let unknown = unknown_sentences(reports, &|text| text.to_owned());
    let mut text = String::new();
    if !unknown.is_empty() {
        let _ = write!(text, "{}. ", capitalized(&unknown.join("; ")));
    }
    if reports.iter().all(ClusterReport::is_empty) {
        let _ = write!(text, "No differences between {base} and {head}");
        if !unknown.is_empty() {
            text.push_str(" among what rendered");
        }
        // A chart bump whose objects differ only in the labels left out reads as no change: say
        // what was not compared.
        if !stripped.is_empty() {
            let _ = write!(
                text,
                " (labels and annotations {} left out)",
                escape::terminal_line(&stripped.join(", "))
            );
        }
    } else {
        text.push_str(&capitalized(&counts_sentence(reports)));
    }
    text.push_str(".\n");
    text
}

/// `Kind/namespace/name` (`Kind/name` without a namespace).
fn slash_name(producer: &ProducerKey) -> String {
    if producer.namespace.is_empty() {
        format!("{}/{}", producer.kind, producer.name)
    } else {
        format!("{}/{}/{}", producer.kind, producer.namespace, producer.name)
    }
}

/// Why a side's output is unknown, the repository's words passed through `quote`:
/// `skipped: …`, `blocked by …: …`, `not applied: Kustomization/ns/apps did not render`.
fn withheld_text(withheld: &Withheld, quote: &dyn Fn(&str) -> String) -> String {
    match withheld {
        Withheld::Outcome(outcome) => {
            let cause = outcome.cause.as_str();
            // The roster's `blocked by X: …` says its verdict itself.
            if outcome.verdict == diff::Verdict::Blocked && cause.starts_with("blocked by ") {
                quote(cause)
            } else {
                format!("{}: {}", outcome.verdict.as_str(), quote(cause))
            }
        }
        Withheld::NotApplied(parent) => {
            format!("not applied: {} did not render", quote(&slash_name(parent)))
        }
    }
}

/// Why, side by side: `skipped: … (base and head)`, or `failed: … (base); skipped: … (head)`.
fn causes(entry: &NotRendered, quote: &dyn Fn(&str) -> String) -> String {
    match (&entry.base, &entry.head) {
        (Some(base), Some(head)) if base == head => {
            format!("{} (base and head)", withheld_text(head, quote))
        }
        (base, head) => [(base, "base"), (head, "head")]
            .into_iter()
            .filter_map(|(withheld, side)| {
                Some(format!(
                    "{} ({side})",
                    withheld_text(withheld.as_ref()?, quote)
                ))
            })
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// [`causes`] as producers held back alike share them: a BLOCKED outcome without the objects that
/// block it (`blocked: chart app-template 5.1.0 … is not in the chart cache`), so the releases
/// each blocked by their own OCIRepository of one missing chart are one group.
fn shared_causes(entry: &NotRendered, quote: &dyn Fn(&str) -> String) -> String {
    let shared = |withheld: &Withheld| match withheld {
        Withheld::Outcome(outcome) if outcome.verdict == diff::Verdict::Blocked => {
            match (outcome.cause.strip_prefix("blocked by ")).and_then(|rest| rest.split_once(": "))
            {
                Some((_, root)) => Withheld::Outcome(Outcome {
                    verdict: outcome.verdict,
                    cause: root.to_owned(),
                }),
                None => withheld.clone(),
            }
        }
        _ => withheld.clone(),
    };
    causes(
        &NotRendered {
            base: entry.base.as_ref().map(shared),
            head: entry.head.as_ref().map(shared),
            ..entry.clone()
        },
        quote,
    )
}

/// Whether the change touches a producer not rendered, as the section says it.
fn touch_text(entry: &NotRendered) -> &'static str {
    match (entry.changed, entry.status_changed) {
        (true, true) => "its definition and outcome changed",
        (true, false) => "its definition changed",
        (false, true) => "its outcome changed",
        (false, false) => "its definition and outcome unchanged",
    }
}

/// Which sides: `base`, `head`, `base and head`.
fn sides_text(entry: &NotRendered) -> &'static str {
    match (&entry.base, &entry.head) {
        (Some(_), Some(_)) => "base and head",
        (Some(_), None) => "base",
        _ => "head",
    }
}

/// A message without the mount point a revision was read under.
fn scrub(message: &str, root: &Path) -> String {
    let root = root.display().to_string();
    message.replace(&format!("{root}/"), "").replace(&root, ".")
}

fn producer_key(id: &crate::model::ResourceId) -> ProducerKey {
    ProducerKey {
        kind: id.kind.to_string(),
        namespace: id.namespace.to_string(),
        name: id.name.to_string(),
    }
}

fn side<'a>(reconciled: &'a Reconciled, keeps: &dyn Fn(&Object) -> bool) -> Side<'a> {
    let statuses = rows(&reconciled.report)
        .into_iter()
        .map(|row| {
            // What it would apply is unknown on this side unless it passed: a SKIPPED producer
            // (a source or chart offline cannot have) rendered nothing, which is not "removed".
            let verdict = match row.result {
                Verdict::Pass => diff::Verdict::Passed,
                Verdict::Fail => diff::Verdict::Failed,
                Verdict::Blocked => diff::Verdict::Blocked,
                Verdict::Skipped => diff::Verdict::Skipped,
            };
            let cause = match row.result {
                // A pass's notes are no difference.
                Verdict::Pass => String::new(),
                _ => scrub(&row.message, &reconciled.root),
            };
            (
                ProducerKey {
                    kind: row.kind,
                    namespace: row.namespace,
                    name: row.name,
                },
                Outcome { verdict, cause },
            )
        })
        .collect();
    Side {
        rendered: reconciled
            .report
            .rendered
            .iter()
            .map(|(id, objects)| {
                (
                    producer_key(id),
                    objects.iter().filter(|o| keeps(o)).collect(),
                )
            })
            .collect(),
        statuses,
        clusters: reconciled
            .report
            .clusters
            .iter()
            .map(|(id, cluster)| (producer_key(id), cluster.clone()))
            .collect(),
    }
}

/// Where each Flux object is defined, the head's definition first.
fn producer_files(sides: &[&Reconciled]) -> BTreeMap<ProducerKey, (String, u32)> {
    let mut files = BTreeMap::new();
    for side in sides {
        for row in rows(&side.report) {
            if let Some(file) = row.file {
                files
                    .entry(ProducerKey {
                        kind: row.kind,
                        namespace: row.namespace,
                        name: row.name,
                    })
                    .or_insert((scrub(&file, &side.root), row.line.unwrap_or(0)));
            }
        }
    }
    files
}

fn outcome_text(outcome: &Option<Outcome>) -> String {
    match outcome {
        Some(outcome) => outcome.to_string(),
        None => "absent".to_owned(),
    }
}

fn secret_note(change: &ObjectChange) -> Option<String> {
    let keys = change.secret_keys.as_ref().filter(|k| !k.is_empty())?;
    let mut parts = Vec::new();
    for (words, list) in [
        ("values changed", &keys.changed),
        ("added", &keys.added),
        ("removed", &keys.removed),
    ] {
        if !list.is_empty() {
            parts.push(format!("{words}: {}", list.join(", ")));
        }
    }
    Some(format!("keys {}", parts.join("; ")))
}

fn change_line(change: &ObjectChange) -> String {
    let mut line = format!("{} {}", change.object, change.change.as_str());
    if let Some(from) = &change.from {
        let _ = write!(line, " from {from}");
    }
    if let Some(note) = secret_note(change) {
        let _ = write!(line, " ({note})");
    }
    if let Some(note) = reordered_note(change) {
        let _ = write!(line, " ({note})");
    }
    line
}

/// `only reordered: 2 list items moved` for a changed object whose every difference is a list
/// item found at another position by its key: the text diff of such a change reads as churn.
fn reordered_note(change: &ObjectChange) -> Option<String> {
    let all_moves = !change.fields.is_empty()
        && change.more_fields == 0
        && (change.fields.iter()).all(|f| f.change == crate::diff::fields::FieldChangeKind::Moved);
    all_moves.then(|| {
        format!(
            "only reordered: {} moved",
            count(change.fields.len(), "list item", "list items")
        )
    })
}

/// `3 objects not compared`.
fn not_compared(n: usize) -> String {
    format!("{} not compared", count(n, "object", "objects"))
}

/// The producer not rendered that `change`'s object is, if it is one: a changed HelmRelease
/// whose chart did not render.
fn unrendered_object<'a>(report: &'a Report, change: &ObjectChange) -> Option<&'a NotRendered> {
    report.not_rendered.iter().find(|n| {
        n.producer.kind == change.object.kind
            && n.producer.namespace == change.object.namespace
            && n.producer.name == change.object.name
    })
}

/// The report for a terminal: every repository-supplied part escaped (`escape::terminal_line`)
/// before offlux's own colours are added.
fn human(
    reports: &[ClusterReport],
    (base, head): (&str, &str),
    color: bool,
    fields: bool,
) -> String {
    let line = escape::terminal_line;
    let paint = |code: &str, text: &str| {
        if color {
            format!("{code}{text}{RESET}")
        } else {
            text.to_owned()
        }
    };
    let mut out = String::new();
    let unrendered: Vec<_> = not_rendered(reports).collect();
    if reports.iter().all(ClusterReport::is_empty) && unrendered.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "{}",
        paint(
            BOLD,
            &format!("offlux diff: {} → {}", line(base), line(head))
        )
    );
    if !unrendered.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            paint(
                BOLD,
                &format!(
                    "Not rendered ({}): what they apply is unknown where they did not render, so it is not compared",
                    unrendered.len()
                )
            )
        );
        let plain = |text: &str| text.to_owned();
        for (cluster, entry) in unrendered.iter().filter(|(_, n)| n.touched()) {
            let text = format!(
                "{}: {}; {}",
                slash_name(&entry.producer),
                causes(entry, &plain),
                touch_text(entry)
            );
            let _ = writeln!(
                out,
                "  {} {}",
                paint(RED, "!"),
                line(&named_opt(*cluster, &text))
            );
        }
        for members in untouched_by_cause(reports) {
            let Some((cluster, first)) = members.first() else {
                continue;
            };
            let text = match members.len() {
                1 => named_opt(
                    *cluster,
                    &format!(
                        "{}: {}; {}",
                        slash_name(&first.producer),
                        causes(first, &plain),
                        touch_text(first)
                    ),
                ),
                n => format!(
                    "{n} producers, definitions and outcomes unchanged: {}: {}",
                    shared_causes(first, &plain),
                    group_names(&members, NAMED_IN_GROUP, &plain)
                ),
            };
            let _ = writeln!(out, "  {} {}", paint(RED, "!"), line(&text));
        }
    }
    for cluster in reports {
        human_cluster(&mut out, cluster, &paint, fields);
    }
    out
}

/// One cluster's part of [`human`]: each producer's heading names the cluster when there are
/// several.
fn human_cluster(
    out: &mut String,
    cluster: &ClusterReport,
    paint: &dyn Fn(&str, &str) -> String,
    fields: bool,
) {
    let line = escape::terminal_line;
    let report = &cluster.report;
    if let Some(only) = cluster.only {
        let _ = writeln!(
            out,
            "\n{}",
            paint(BOLD, &line(&named_opt(cluster.cluster, only.sentence())))
        );
    }
    for (producer, changes) in reading_order(report) {
        let heading = named_opt(cluster.cluster, &producer.to_string());
        let _ = writeln!(out, "\n{}", paint(BOLD, &line(&heading)));
        if let Some(status) = &changes.status {
            let _ = writeln!(
                out,
                "  status: {} → {}",
                line(&outcome_text(&status.before)),
                line(&outcome_text(&status.after))
            );
        }
        if changes.unknown > 0 {
            let _ = writeln!(
                out,
                "  {}: this producer, or the one that applies it, was not rendered on one side (failed, blocked or skipped)",
                not_compared(changes.unknown)
            );
        }
        for change in &changes.objects {
            let (mark, code) = match change.change {
                Change::Added => ("+", GREEN),
                Change::Removed => ("-", RED),
                Change::Changed => ("~", CYAN),
                Change::Moved => (">", CYAN),
            };
            let mut text = change_line(change);
            if let Some(entry) = unrendered_object(report, change) {
                let _ = write!(
                    text,
                    "; what it renders is unknown: not rendered on {}",
                    sides_text(entry)
                );
            }
            let _ = writeln!(out, "  {} {}", paint(code, mark), line(&text));
            if change.change == Change::Added || change.change == Change::Removed {
                continue;
            }
            if fields && !change.fields.is_empty() {
                for field in field_lines(change, false) {
                    let code = match field.chars().next() {
                        Some('+') => GREEN,
                        Some('-') => RED,
                        Some('>') => CYAN,
                        _ => "",
                    };
                    let field = line(&field);
                    let field = if code.is_empty() {
                        field.into_owned()
                    } else {
                        paint(code, &field)
                    };
                    let _ = writeln!(out, "    {field}");
                }
                continue;
            }
            for diff_line in change.diff.lines() {
                let line = line(diff_line);
                let code = if line.starts_with("+++") || line.starts_with("---") {
                    BOLD
                } else if line.starts_with('+') {
                    GREEN
                } else if line.starts_with('-') {
                    RED
                } else if line.starts_with("@@") {
                    CYAN
                } else {
                    ""
                };
                let line = if code.is_empty() {
                    line.into_owned()
                } else {
                    paint(code, &line)
                };
                let _ = writeln!(out, "    {line}");
            }
        }
    }
}

/// A changed object field by field, one line each as `diff` blocks colour them: `+ path: value`,
/// `- path: value`, `> path moved (position 0 → 1)`, a changed value as `  path: before → after`
/// (with `as_pairs`, as a `- path: before` and `+ path: after` pair, which markdown colours); a
/// multi-line string's own lines under its path, indented under it with their signs kept first.
fn field_lines(change: &ObjectChange, as_pairs: bool) -> Vec<String> {
    use crate::diff::fields::FieldChangeKind;
    let nested = |diff: &str, lines: &mut Vec<String>| {
        for line in diff
            .lines()
            .filter(|l| !l.starts_with("--- ") && !l.starts_with("+++ "))
        {
            match line.split_at_checked(1) {
                Some((sign @ ("+" | "-" | " "), rest)) => lines.push(format!("{sign}     {rest}")),
                _ => lines.push(format!("      {line}")),
            }
        }
    };
    let mut lines = Vec::new();
    for field in &change.fields {
        let value = |v: &Option<String>| v.clone().unwrap_or_default();
        let path = &field.path;
        match (&field.change, &field.diff) {
            (FieldChangeKind::Added, Some(diff)) => {
                lines.push(format!("+ {path}:"));
                nested(diff, &mut lines);
            }
            (FieldChangeKind::Removed, Some(diff)) => {
                lines.push(format!("- {path}:"));
                nested(diff, &mut lines);
            }
            (FieldChangeKind::Changed, Some(diff)) => {
                lines.push(format!("  {path}:"));
                nested(diff, &mut lines);
            }
            (FieldChangeKind::Added, None) => {
                lines.push(format!("+ {path}: {}", value(&field.after)));
            }
            (FieldChangeKind::Removed, None) => {
                lines.push(format!("- {path}: {}", value(&field.before)));
            }
            (FieldChangeKind::Moved, _) => lines.push(match field.positions {
                Some((from, to)) => format!("> {path} moved (position {from} → {to})"),
                None => format!("> {path} moved"),
            }),
            (FieldChangeKind::Changed, None) if as_pairs => {
                lines.push(format!("- {path}: {}", value(&field.before)));
                lines.push(format!("+ {path}: {}", value(&field.after)));
            }
            (FieldChangeKind::Changed, None) => lines.push(format!(
                "  {path}: {} → {}",
                value(&field.before),
                value(&field.after)
            )),
        }
    }
    if change.more_fields > 0 {
        lines.push(format!("  … and {} more fields", change.more_fields));
    }
    lines
}

/// The report as a pull request comment (GitHub markdown). Every repository-supplied string is
/// in code (`escape::markdown_code`, `markdown_cell`, `html_code`, `markdown_block`): nothing in a
/// name, namespace, message or diff can mention, link, embed, head or break a table.
fn markdown(
    reports: &[ClusterReport],
    (base, head): (&str, &str),
    max: usize,
    full_report: Option<&str>,
    fields: bool,
) -> String {
    let code = escape::markdown_code;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### offlux diff: {} → {}\n",
        markdown_label(base),
        markdown_label(head)
    );
    let empty = reports.iter().all(ClusterReport::is_empty);
    let unknown = unknown_sentences(reports, &|text| code(text));
    if empty && unknown.is_empty() {
        out.push_str("No differences.\n");
        return out;
    }
    let mut summary = String::new();
    if !unknown.is_empty() {
        let _ = write!(summary, "{}. ", capitalized(&unknown.join("; ")));
    }
    if empty {
        summary.push_str("No differences among what rendered.");
    } else {
        let _ = write!(summary, "{}.", capitalized(&counts_sentence(reports)));
    }
    let _ = writeln!(out, "{summary}\n");
    let mut cut = Cut::default();
    // Room kept for the closing note (and the address it may link to).
    let budget = max.saturating_sub(400 + full_report.map_or(0, str::len));
    markdown_not_rendered(&mut out, reports, budget, &mut cut);
    // The producers' tables and diffs come after the producers not rendered that the change does
    // not touch, but have the room first: those are folded, and in a repository whose charts
    // are not at hand they can be hundreds.
    let mut body = String::new();
    let folded = if not_rendered(reports).any(|(_, n)| !n.touched()) {
        UNTOUCHED_ROOM
    } else {
        0
    };
    let body_budget = budget.saturating_sub(out.len() + folded);
    for report in reports.iter().filter(|r| !r.is_empty()) {
        // With several clusters, a section per cluster and its producers a level below.
        let level = match report.cluster {
            Some(cluster) => {
                let _ = writeln!(body, "#### Cluster {}\n", code(cluster));
                if let Some(only) = report.only {
                    let _ = writeln!(body, "_{}._\n", only.sentence());
                }
                "#####"
            }
            None => "####",
        };
        markdown_producers(
            &mut body,
            &report.report,
            (level, fields),
            body_budget,
            &mut cut,
        );
    }
    markdown_untouched(
        &mut out,
        reports,
        budget.saturating_sub(body.len()),
        &mut cut,
    );
    out.push_str(&body);
    if cut.diffs > 0 || cut.producers > 0 || cut.not_rendered > 0 {
        let mut parts = Vec::new();
        if cut.not_rendered > 0 {
            parts.push(format!(
                "{} of the not-rendered list",
                count(cut.not_rendered, "entry", "entries")
            ));
        }
        if cut.diffs > 0 {
            parts.push(count(cut.diffs, "diff", "diffs"));
        }
        if cut.producers > 0 {
            parts.push(count(
                cut.producers,
                "producer's table",
                "producers' tables",
            ));
        }
        let everything = match full_report {
            Some(url) => format!("the whole comparison is in [the full report]({url})"),
            None => "run `offlux diff` (or `offlux diff --out DIR`) to see everything".to_owned(),
        };
        let _ = writeln!(
            out,
            "_Cut to stay under {max} bytes: {} not shown; {everything}._",
            parts.join(", ")
        );
    }
    out
}

/// `--full-report-url`: an `http(s)` address a markdown link can hold as it is (no space, no
/// parenthesis, no angle bracket, no control character), so the link cannot end early or
/// carry markup.
pub fn full_report_url(text: &str) -> Result<String, String> {
    let plain = text
        .chars()
        .all(|c| c.is_ascii_graphic() && !matches!(c, '(' | ')' | '<' | '>' | '[' | ']' | '`'));
    if (text.starts_with("https://") || text.starts_with("http://")) && plain {
        Ok(text.to_owned())
    } else {
        Err("an http(s) URL without spaces, brackets or parentheses".to_owned())
    }
}

/// `text` with its first letter in upper case.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A side's label (`base `main` (1a2b3c4d5e6f)`) in markdown: the parts in backticks as code,
/// the words around them as plain text, so the heading shows no backtick of its own.
fn markdown_label(label: &str) -> String {
    label
        .split('`')
        .enumerate()
        .map(|(at, part)| match (at % 2, part.is_empty()) {
            (_, true) => String::new(),
            (0, _) => escape::markdown_text(part),
            _ => escape::markdown_code(part),
        })
        .collect()
}

/// The room [`markdown`] keeps for the `<details>` around the producers not rendered that the
/// change does not touch, and its first entries.
const UNTOUCHED_ROOM: usize = 600;

/// What [`markdown`] left out to stay under its size.
#[derive(Default)]
struct Cut {
    diffs: usize,
    producers: usize,
    not_rendered: usize,
}

/// The section of [`markdown`] that lists the producers not rendered, ahead of every producer's
/// table: its heading and the producers the change touches, as long as `out` stays within
/// `budget` (those it does not touch follow, folded: [`markdown_untouched`]).
fn markdown_not_rendered(
    out: &mut String,
    reports: &[ClusterReport],
    budget: usize,
    cut: &mut Cut,
) {
    let entries: Vec<_> = not_rendered(reports).collect();
    if entries.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "#### Not rendered ({})\n\n\
         What these producers apply is unknown where they did not render, so it is not compared \
         there.\n",
        entries.len()
    );
    let touched: Vec<_> = entries.iter().filter(|(_, n)| n.touched()).collect();
    for entry in &touched {
        let text = markdown_entry(entry);
        if out.len() + text.len() > budget {
            cut.not_rendered += 1;
        } else {
            out.push_str(&text);
        }
    }
    if !touched.is_empty() {
        out.push('\n');
    }
}

/// The producers not rendered that the change does not touch, folded in a `<details>`, as long
/// as `out` stays within `budget`: [`markdown`] gives them what the diffs leave.
fn markdown_untouched(out: &mut String, reports: &[ClusterReport], budget: usize, cut: &mut Cut) {
    let entries: Vec<_> = not_rendered(reports).collect();
    let untouched: Vec<_> = entries.iter().filter(|(_, n)| !n.touched()).collect();
    if untouched.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<details><summary>{}{} not rendered, {}</summary>\n",
        untouched.len(),
        if untouched.len() == entries.len() {
            ""
        } else {
            " more"
        },
        if untouched.len() == 1 {
            "its definition and outcome unchanged"
        } else {
            "their definitions and outcomes unchanged"
        }
    );
    let mut left_out = 0;
    for members in untouched_by_cause(reports) {
        let text = match members.as_slice() {
            [single] => markdown_entry(single),
            [(_, first), ..] => format!(
                "- {}: {} ({}).\n",
                shared_causes(first, &|text| escape::markdown_code(text)),
                group_names(&members, members.len(), &|text| escape::markdown_code(text)),
                members.len()
            ),
            [] => continue,
        };
        if out.len() + text.len() > budget {
            left_out += members.len();
        } else {
            out.push_str(&text);
        }
    }
    if left_out > 0 {
        cut.not_rendered += left_out;
        let _ = writeln!(out, "- … and {left_out} more.");
    }
    out.push_str("\n</details>\n\n");
}

/// A producer not rendered, as an item of [`markdown`]'s list.
fn markdown_entry((cluster, entry): &(Option<&str>, &NotRendered)) -> String {
    let code = escape::markdown_code;
    let name = match cluster {
        Some(cluster) => format!(
            "{} (cluster {})",
            code(&slash_name(&entry.producer)),
            code(cluster)
        ),
        None => code(&slash_name(&entry.producer)),
    };
    format!(
        "- {name}: {}; {}.\n",
        causes(entry, &|text| code(text)),
        touch_text(entry)
    )
}

/// One cluster's producers in [`markdown`], each under a `level` heading: a table of its
/// objects' changes and each diff folded, as long as `out` stays within `budget`.
fn markdown_producers(
    out: &mut String,
    report: &Report,
    (level, fields): (&str, bool),
    budget: usize,
    cut: &mut Cut,
) {
    let code = escape::markdown_code;
    for (producer, changes) in reading_order(report) {
        let mut section = String::new();
        let _ = writeln!(section, "{level} {}\n", code(&producer.to_string()));
        if let Some(status) = &changes.status {
            let _ = writeln!(
                section,
                "Status: {} → **{}**\n",
                code(&outcome_text(&status.before)),
                code(&outcome_text(&status.after))
            );
        }
        if changes.unknown > 0 {
            let _ = writeln!(
                section,
                "{}: this producer, or the one that applies it, was not rendered on one side (failed, blocked or skipped).\n",
                not_compared(changes.unknown)
            );
        }
        if !changes.objects.is_empty() {
            markdown_table(&mut section, report, &changes.objects);
        }
        if out.len() + section.len() > budget {
            cut.producers += 1;
            cut.diffs += changes
                .objects
                .iter()
                .filter(|c| !c.diff.is_empty())
                .count();
            continue;
        }
        out.push_str(&section);
        for change in changes.objects.iter().filter(|c| !c.diff.is_empty()) {
            let shown = if fields && !change.fields.is_empty() {
                let mut text = field_lines(change, true).join("\n");
                text.push('\n');
                escape::markdown_block("diff", &text)
            } else {
                escape::markdown_block("diff", &change.diff)
            };
            let block = format!(
                "<details><summary>{} {}</summary>\n\n{shown}\n</details>\n\n",
                change.change.as_str(),
                escape::html_code(&change.object.to_string()),
            );
            if out.len() + block.len() > budget {
                cut.diffs += 1;
                continue;
            }
            out.push_str(&block);
        }
    }
}

/// A producer's object changes as a markdown table, without the columns no row fills.
fn markdown_table(section: &mut String, report: &Report, objects: &[ObjectChange]) {
    let cell = escape::markdown_cell;
    let rows: Vec<[String; 5]> = objects
        .iter()
        .map(|change| {
            let mut notes = Vec::new();
            if !change.object.cluster.is_empty() {
                notes.push(format!("on cluster {}", cell(&change.object.cluster)));
            }
            match (&change.from, secret_note(change)) {
                (Some(from), _) => notes.push(format!("from {}", cell(&from.to_string()))),
                (None, Some(note)) => notes.push(cell(&note)),
                (None, None) => {}
            }
            notes.extend(reordered_note(change));
            if let Some(entry) = unrendered_object(report, change) {
                notes.push(format!(
                    "what it renders is unknown: not rendered on {}",
                    sides_text(entry)
                ));
            }
            [
                change.change.as_str().to_owned(),
                cell(&change.object.kind),
                cell(&change.object.namespace),
                cell(&change.object.name),
                notes.join("; "),
            ]
        })
        .collect();
    let headers = ["Change", "Kind", "Namespace", "Name", "Note"];
    // Change, kind and name are never empty; namespace and note often are for every row.
    let shown: Vec<usize> = (0..headers.len())
        .filter(|&i| i < 2 || i == 3 || rows.iter().any(|row| !row[i].is_empty()))
        .collect();
    let line = |cells: Vec<&str>| format!("| {} |\n", cells.join(" | "));
    section.push_str(&line(shown.iter().map(|&i| headers[i]).collect()));
    section.push_str(&format!("|{}\n", "---|".repeat(shown.len())));
    for row in &rows {
        section.push_str(&line(shown.iter().map(|&i| row[i].as_str()).collect()));
    }
    section.push('\n');
}

/// The changes as JSON: an array of entries, each naming its cluster (`cluster`) when the sides
/// hold several. When some producers did not render on a side, or with `--changed-only`, an
/// object holding them (`changes`) after the producers not rendered (`notRendered`) and what was
/// left out (`changedOnly`: one object, or with several clusters one per cluster, naming it).
fn json(reports: &[ClusterReport], left_out: &[(Option<&str>, &LeftOut)]) -> String {
    let mut items = Vec::new();
    let mut unrendered = Vec::new();
    for report in reports {
        let first = items.len();
        if let Some(only) = report.only {
            items.push(serde_json::json!({
                "producer": null,
                "object": null,
                "change": only.json(),
            }));
        }
        json_items(&report.report, &mut items);
        let first_unrendered = unrendered.len();
        unrendered.extend(report.report.not_rendered.iter().map(json_not_rendered));
        if let Some(cluster) = report.cluster {
            for item in items[first..]
                .iter_mut()
                .chain(&mut unrendered[first_unrendered..])
            {
                item["cluster"] = serde_json::json!(cluster);
            }
        }
    }
    let left_out: Vec<serde_json::Value> = left_out
        .iter()
        .map(|(cluster, left_out)| {
            let mut value = serde_json::to_value(left_out).unwrap_or_default();
            if let Some(cluster) = cluster {
                value["cluster"] = serde_json::json!(cluster);
            }
            value
        })
        .collect();
    let several = reports.iter().any(|r| r.cluster.is_some());
    let changed_only = match left_out.as_slice() {
        [] => None,
        [left_out] if !several => Some(left_out.clone()),
        all => Some(serde_json::Value::Array(all.to_vec())),
    };
    /// The object form, its fields in this order (a struct keeps its order; a JSON map sorts).
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Whole<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        changed_only: Option<serde_json::Value>,
        #[serde(skip_serializing_if = "<[serde_json::Value]>::is_empty")]
        not_rendered: &'a [serde_json::Value],
        changes: &'a [serde_json::Value],
    }
    let mut text = if changed_only.is_none() && unrendered.is_empty() {
        serde_json::to_string_pretty(&items)
    } else {
        serde_json::to_string_pretty(&Whole {
            changed_only,
            not_rendered: &unrendered,
            changes: &items,
        })
    }
    .unwrap_or_default();
    text.push('\n');
    text
}

/// A producer not rendered, as an entry of `notRendered` in [`json`]: `verdict` and `cause` are
/// the head's when it did not render there, else the base's; `base` and `head` each side's.
fn json_not_rendered(entry: &NotRendered) -> serde_json::Value {
    let side = |withheld: &Option<Withheld>| match withheld {
        None => serde_json::Value::Null,
        Some(Withheld::Outcome(outcome)) => serde_json::json!({
            "verdict": outcome.verdict.as_str(),
            "cause": outcome.cause,
        }),
        Some(Withheld::NotApplied(parent)) => serde_json::json!({
            "verdict": "notApplied",
            "cause": format!("{} did not render", slash_name(parent)),
            "appliedBy": {"kind": parent.kind, "namespace": parent.namespace, "name": parent.name},
        }),
    };
    let (base, head) = (side(&entry.base), side(&entry.head));
    let shown = if head.is_null() { &base } else { &head };
    let sides: Vec<&str> = [(&entry.base, "base"), (&entry.head, "head")]
        .into_iter()
        .filter(|(withheld, _)| withheld.is_some())
        .map(|(_, name)| name)
        .collect();
    serde_json::json!({
        "producer": {
            "kind": entry.producer.kind,
            "namespace": entry.producer.namespace,
            "name": entry.producer.name,
        },
        "sides": sides,
        "verdict": shown["verdict"],
        "cause": shown["cause"],
        "changed": entry.changed,
        "statusChanged": entry.status_changed,
        "base": base,
        "head": head,
    })
}

/// One cluster's entries of [`json`].
fn json_items(report: &Report, items: &mut Vec<serde_json::Value>) {
    for (producer, changes) in reading_order(report) {
        let producer_json = serde_json::json!({
            "kind": producer.kind,
            "namespace": producer.namespace,
            "name": producer.name,
        });
        if let Some(status) = &changes.status {
            items.push(serde_json::json!({
                "producer": producer_json,
                "object": null,
                "change": "status",
                "before": status.before.as_ref().map(Outcome::to_string),
                "after": status.after.as_ref().map(Outcome::to_string),
                "unknown": changes.unknown,
            }));
        }
        for change in &changes.objects {
            let mut item = serde_json::json!({
                "producer": producer_json,
                "object": {
                    "apiVersion": change.api_version,
                    "kind": change.object.kind,
                    "namespace": change.object.namespace,
                    "name": change.object.name,
                },
                "change": change.change.as_str(),
                "diff": change.diff,
            });
            if !change.object.cluster.is_empty() {
                // The `spec.kubeConfig` cluster it is applied to (`cluster` is the entry point's).
                item["object"]["kubeConfigCluster"] = serde_json::json!(change.object.cluster);
            }
            if let Some(from) = &change.from {
                item["from"] = serde_json::json!({
                    "kind": from.kind, "namespace": from.namespace, "name": from.name,
                });
            }
            if let Some(keys) = &change.secret_keys {
                item["secretKeys"] = serde_json::json!({
                    "changed": keys.changed, "added": keys.added, "removed": keys.removed,
                });
            }
            if !change.fields.is_empty() {
                item["fields"] = serde_json::json!(change.fields);
                if change.more_fields > 0 {
                    item["moreFields"] = serde_json::json!(change.more_fields);
                }
            }
            if let Some((file, line)) = &change.file {
                item["file"] = serde_json::json!(file.display().to_string());
                if *line > 0 {
                    item["line"] = serde_json::json!(line);
                }
            }
            items.push(item);
        }
    }
}

/// One workflow command: `::level file=F,line=L,title=T::message`.
fn workflow_command(
    level: &str,
    file: Option<(String, u32)>,
    title: &str,
    message: &str,
) -> String {
    let mut properties = Vec::new();
    if let Some((file, line)) = file {
        properties.push(format!("file={}", escape::github_property(&file)));
        if line > 0 {
            properties.push(format!("line={line}"));
        }
    }
    properties.push(format!("title={}", escape::github_property(title)));
    format!(
        "::{level} {}::{}\n",
        properties.join(","),
        escape::github_data(message)
    )
}

/// One cluster's producers not rendered, an annotation each on the file that defines it: a
/// warning when the change touches it, else a notice.
fn github_not_rendered(
    cluster: &ClusterReport,
    files: &BTreeMap<ProducerKey, (String, u32)>,
) -> String {
    let mut out = String::new();
    let plain = |text: &str| text.to_owned();
    // Those the change does not touch: a notice per cause, not one per file.
    let groups = untouched_by_cause(std::slice::from_ref(cluster));
    let mut grouped = std::collections::BTreeSet::new();
    for members in &groups {
        let [(_, first), _, ..] = members.as_slice() else {
            continue;
        };
        grouped.extend(members.iter().map(|(_, entry)| &entry.producer));
        let title = named_opt(
            cluster.cluster,
            &format!("offlux diff: {} producers not rendered", members.len()),
        );
        let message = format!(
            "what they render is unknown, so it is not compared; their definitions and outcomes are unchanged: {}: {}",
            shared_causes(first, &plain),
            group_names(members, NAMED_IN_GROUP, &plain)
        );
        out.push_str(&workflow_command("notice", None, &title, &message));
    }
    for entry in &cluster.report.not_rendered {
        if grouped.contains(&entry.producer) {
            continue;
        }
        let title = named_opt(
            cluster.cluster,
            &format!("offlux diff: {} not rendered", slash_name(&entry.producer)),
        );
        let message = format!(
            "what it renders is unknown, so it is not compared: {}; {}",
            causes(entry, &plain),
            touch_text(entry)
        );
        let level = if entry.touched() { "warning" } else { "notice" };
        out.push_str(&workflow_command(
            level,
            files.get(&entry.producer).cloned(),
            &title,
            &message,
        ));
    }
    out
}

/// One cluster's annotations: each title names the cluster when the sides hold several.
fn github(cluster: &ClusterReport, files: &BTreeMap<ProducerKey, (String, u32)>) -> String {
    let mut out = String::new();
    if let Some(only) = cluster.only {
        out.push_str(&workflow_command(
            "notice",
            None,
            &named_opt(cluster.cluster, "offlux diff"),
            only.sentence(),
        ));
    }
    for (producer, changes) in reading_order(&cluster.report) {
        let producer_file = files.get(producer).cloned();
        let title = named_opt(cluster.cluster, &format!("offlux diff: {producer}"));
        if let Some(status) = &changes.status {
            let level = if status.after.as_ref().is_some_and(Outcome::failed) {
                "error"
            } else {
                "notice"
            };
            let message = format!(
                "status {} → {}",
                outcome_text(&status.before),
                outcome_text(&status.after)
            );
            out.push_str(&workflow_command(
                level,
                producer_file.clone(),
                &title,
                &message,
            ));
        }
        for change in &changes.objects {
            let file = change
                .file
                .as_ref()
                .map(|(f, l)| (f.display().to_string(), *l))
                .or_else(|| producer_file.clone());
            let mut message = change_line(change);
            if !change.diff.is_empty() && change.change != Change::Added {
                message.push('\n');
                message.push_str(&change.diff);
            }
            out.push_str(&workflow_command("notice", file, &title, &message));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_names_are_code() {
        let mut report = Report::default();
        report.producers.insert(
            ProducerKey {
                kind: "Kustomization".into(),
                namespace: "ns".into(),
                name: "# @team [x](http://e) <b>|".into(),
            },
            crate::diff::ProducerReport {
                status: Some(crate::diff::StatusChange {
                    before: None,
                    after: Some(Outcome {
                        verdict: diff::Verdict::Failed,
                        cause: "![i](http://e/x.png) @x".into(),
                    }),
                }),
                ..Default::default()
            },
        );
        let reports = [ClusterReport {
            cluster: None,
            only: None,
            report,
        }];
        let text = markdown(&reports, ("base", "head"), 60_000, None, false);
        assert!(
            text.contains("Status: `absent` → **`FAIL: ![i](http://e/x.png) @x`**"),
            "{text}"
        );
        assert!(
            text.contains("#### `Kustomization ns/# @team [x](http://e) <b>|`"),
            "{text}"
        );
    }

    /// Hundreds of producers not rendered that the change does not touch (a repository whose
    /// charts are not at hand) never push the diffs out of a size-capped comment: they are cut
    /// first, and the note says how many.
    #[test]
    fn releases_blocked_alike_by_their_own_sources_are_one_line() {
        let mut report = Report::default();
        for name in ["a", "b", "c"] {
            let blocked = Withheld::Outcome(Outcome {
                verdict: diff::Verdict::Blocked,
                cause: format!(
                    "blocked by OCIRepository/apps/{name}: chart app-template 5.1.0 is not in the chart cache"
                ),
            });
            report.not_rendered.push(NotRendered {
                producer: ProducerKey {
                    kind: "HelmRelease".into(),
                    namespace: "apps".into(),
                    name: name.into(),
                },
                base: Some(blocked.clone()),
                head: Some(blocked),
                changed: false,
                status_changed: false,
            });
        }
        let reports = [ClusterReport {
            cluster: None,
            only: None,
            report,
        }];
        let text = human(&reports, ("base", "head"), false, false);
        assert!(
            text.contains(
                "! 3 producers, definitions and outcomes unchanged: blocked: chart app-template 5.1.0 is not in the chart cache (base and head): HelmRelease/apps/a, HelmRelease/apps/b, HelmRelease/apps/c"
            ),
            "{text}"
        );
    }

    #[test]
    fn markdown_gives_the_diffs_room_before_the_untouched_list() {
        let mut report = Report::default();
        let apps = ProducerKey {
            kind: "Kustomization".into(),
            namespace: "flux-system".into(),
            name: "apps".into(),
        };
        report.producers.insert(
            apps,
            crate::diff::ProducerReport {
                objects: vec![ObjectChange {
                    object: diff::ObjectKey {
                        group: String::new(),
                        kind: "ConfigMap".into(),
                        namespace: "apps".into(),
                        name: "settings".into(),
                        cluster: String::new(),
                    },
                    api_version: "v1".into(),
                    change: Change::Changed,
                    from: None,
                    diff: "--- base/ConfigMap/apps/settings\n+++ head/ConfigMap/apps/settings\n@@ -1 +1 @@\n-a: 1\n+a: 2\n".into(),
                    secret_keys: None,
                    fields: Vec::new(),
                    more_fields: 0,
                    file: None,
                }],
                ..Default::default()
            },
        );
        for n in 0..300 {
            let skipped = Withheld::Outcome(Outcome {
                verdict: diff::Verdict::Skipped,
                cause: format!("chart chart-{n} 1.0.0 is not in the chart cache"),
            });
            report.not_rendered.push(NotRendered {
                producer: ProducerKey {
                    kind: "HelmRelease".into(),
                    namespace: "apps".into(),
                    name: format!("release-{n}"),
                },
                base: Some(skipped.clone()),
                head: Some(skipped),
                changed: false,
                status_changed: false,
            });
        }
        let reports = [ClusterReport {
            cluster: None,
            only: None,
            report,
        }];
        let text = markdown(&reports, ("base", "head"), 6_000, None, false);
        assert!(text.len() <= 6_000, "{} bytes", text.len());
        assert!(text.contains("+a: 2"), "{text}");
        let folded = text
            .find("<summary>300 not rendered, their definitions and outcomes unchanged</summary>")
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            folded < text.find("#### `Kustomization").unwrap_or(0),
            "{text}"
        );
        let shown = text.matches("- `HelmRelease/apps/release-").count();
        assert!(shown > 0 && shown < 300, "{shown}");
        assert!(
            text.contains(&format!("- … and {} more.", 300 - shown)),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "_Cut to stay under 6000 bytes: {} entries of the not-rendered list not shown;",
                300 - shown
            )),
            "{text}"
        );
        assert!(text.contains("run `offlux diff`"), "{text}");
        // In CI the cut note points at the whole report instead.
        let url = "https://github.com/o/r/actions/runs/1";
        let text = markdown(&reports, ("base", "head"), 6_000, Some(url), false);
        assert!(text.len() <= 6_000, "{} bytes", text.len());
        assert!(
            text.contains(&format!(
                "the whole comparison is in [the full report]({url})._"
            )),
            "{text}"
        );
        assert!(full_report_url(url).is_ok());
        for refused in [
            "javascript:alert(1)",
            "https://e/x) [y](https://z",
            "https://e/ x",
        ] {
            assert!(full_report_url(refused).is_err(), "{refused}");
        }
    }

    /// The section of producers not rendered: names, causes and the cluster in code, ahead of
    /// the producers' tables, and the summary names the release.
    #[test]
    fn markdown_lists_what_did_not_render_first_in_code() {
        let release = ProducerKey {
            kind: "HelmRelease".into(),
            namespace: "apps".into(),
            name: "@team".into(),
        };
        let skipped = Outcome {
            verdict: diff::Verdict::Skipped,
            cause: "chart <b>x</b> not in the cache".into(),
        };
        let mut report = Report::default();
        report.producers.insert(
            release.clone(),
            crate::diff::ProducerReport {
                unknown: 2,
                status: Some(crate::diff::StatusChange {
                    before: Some(Outcome::passed()),
                    after: Some(skipped.clone()),
                }),
                ..Default::default()
            },
        );
        report.not_rendered.push(NotRendered {
            producer: release,
            base: None,
            head: Some(Withheld::Outcome(skipped)),
            changed: true,
            status_changed: true,
        });
        let reports = [ClusterReport {
            cluster: Some("prod|x"),
            only: None,
            report,
        }];
        let text = markdown(&reports, ("base", "head"), 60_000, None, false);
        let summary = text.lines().nth(2).unwrap_or_default();
        assert_eq!(
            summary,
            "`[prod|x]` `HelmRelease/apps/@team` changed; what it renders is unknown: skipped: \
             `chart <b>x</b> not in the cache` (head). 0 objects differ in 1 producer of 1 of 1 \
             clusters; 1 status change."
        );
        let entry = "- `HelmRelease/apps/@team` (cluster `prod|x`): skipped: \
                     `chart <b>x</b> not in the cache` (head); its definition and outcome changed.\n";
        let section = text.find(entry).unwrap_or_else(|| panic!("{text}"));
        let table = text
            .find("#### Cluster")
            .unwrap_or_else(|| panic!("{text}"));
        assert!(section < table, "{text}");
        assert!(text.contains("2 objects not compared"), "{text}");
    }
}
