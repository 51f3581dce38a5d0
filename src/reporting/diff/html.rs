//! `offlux diff -o html` / `--report-html FILE`: the comparison as one self-contained page (no
//! network, no external script, style or font). A tree producer → kind → object to navigate, a
//! filter, the producers that did not render first, each changed object's diff in a unified and a
//! side-by-side view with the changed words marked, and light and dark themes.
//!
//! Everything is laid out here, in Rust: the page's script only filters, switches views and
//! themes, and reads `#filter=TEXT` from the address (so a link can open the page filtered).
//! When it has run it sets `data-ready` on `<body>`; an error in it counts in `data-errors`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{
    causes, counts_sentence, not_rendered, outcome_text, reading_order, slash_name, touch_text,
    unknown_sentences, ClusterReport, LeftOut,
};
use crate::diff::fields::FieldChangeKind;
use crate::diff::ObjectChange;
use crate::escape;

const STYLE: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// The page. `stripped` names the labels and annotations left out of the comparison.
pub(super) fn html(
    reports: &[ClusterReport],
    (base, head): (&str, &str),
    left_out: &[(Option<&str>, &LeftOut)],
    stripped: Option<&[String]>,
) -> String {
    let text = |s: &str| escape::html_text(s);
    let code = |s: &str| format!("<code>{}</code>", escape::html_text(s));
    let mut out = String::with_capacity(64 * 1024);
    // The labels quote revision names for markdown (`main`); a page shows them in code already.
    let (base, head) = (base.replace('`', ""), head.replace('`', ""));
    let (base, head) = (base.as_str(), head.as_str());
    let title = format!("offlux diff: {base} → {head}");
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body data-view=\"unified\">\n",
        text(&title)
    );
    let _ = write!(
        out,
        "<header>\n<h1>offlux diff <span class=\"sides\">{} → {}</span></h1>\n\
         <div class=\"controls\">\
         <input id=\"filter\" type=\"search\" placeholder=\"Filter by kind, namespace or name\" aria-label=\"Filter\">\
         <select id=\"view\" aria-label=\"View\">\
         <option value=\"unified\">Unified view</option>\
         <option value=\"split\">Side by side</option>\
         <option value=\"fields\">Fields</option></select>\
         <button id=\"theme\" type=\"button\">Dark theme</button>\
         </div>\n",
        code(base),
        code(head)
    );
    let empty = reports.iter().all(ClusterReport::is_empty);
    let unknown = unknown_sentences(reports, &|s| code(s));
    let mut summary = Vec::new();
    if !unknown.is_empty() {
        summary.push(unknown.join("; "));
    }
    summary.push(if empty {
        if unknown.is_empty() {
            "No differences".to_owned()
        } else {
            "No differences among what rendered".to_owned()
        }
    } else {
        text(&counts_sentence(reports))
    });
    let _ = writeln!(out, "<p class=\"summary\">{}.</p>", summary.join(". "));
    for (cluster, left_out) in left_out {
        let sentence = match cluster {
            Some(cluster) => format!("{cluster}: {}", left_out.sentence()),
            None => left_out.sentence(),
        };
        let _ = writeln!(out, "<p class=\"note\">{}</p>", text(&sentence));
    }
    if let Some(set) = stripped {
        let keys: Vec<String> = set.iter().map(|k| code(k)).collect();
        let _ = writeln!(
            out,
            "<p class=\"note\">Left out of the comparison: labels and annotations {} \
             (<code>--no-default-strip</code> compares the default ones).</p>",
            keys.join(", ")
        );
    }
    out.push_str("</header>\n<div class=\"layout\">\n");
    tree(&mut out, reports);
    out.push_str("<main id=\"report\">\n");
    not_rendered_section(&mut out, reports);
    for (index, report) in reports.iter().enumerate().filter(|(_, r)| !r.is_empty()) {
        if let Some(cluster) = report.cluster {
            let _ = writeln!(out, "<h2 class=\"cluster\">Cluster {}</h2>", code(cluster));
            if let Some(only) = report.only {
                let _ = writeln!(out, "<p class=\"note\">{}.</p>", text(only.sentence()));
            }
        }
        for (position, (producer, changes)) in reading_order(&report.report).into_iter().enumerate()
        {
            let label = producer.to_string();
            let _ = writeln!(
                out,
                "<section class=\"producer\" id=\"p{index}-{position}\" data-name=\"{}\">\n<h3>{}</h3>",
                escape::html_text(&label.to_lowercase()),
                text(&label)
            );
            if let Some(status) = &changes.status {
                let _ = writeln!(
                    out,
                    "<p class=\"status\">Status: {} → <strong>{}</strong></p>",
                    code(&outcome_text(&status.before)),
                    code(&outcome_text(&status.after))
                );
            }
            if changes.unknown > 0 {
                let _ = writeln!(
                    out,
                    "<p class=\"note\">{} not compared: this producer, or the one that applies it, \
                     was not rendered on one side.</p>",
                    changes.unknown
                );
            }
            for (number, change) in changes.objects.iter().enumerate() {
                object(
                    &mut out,
                    change,
                    &format!("o{index}-{position}-{number}"),
                    &label,
                );
            }
            out.push_str("</section>\n");
        }
    }
    if empty {
        out.push_str("<p class=\"empty\">Nothing changed.</p>\n");
    }
    let _ = write!(
        out,
        "</main>\n</div>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n"
    );
    out
}

/// The navigation tree: cluster → producer → kind → object, each object a link to its diff.
fn tree(out: &mut String, reports: &[ClusterReport]) {
    let text = |s: &str| escape::html_text(s);
    out.push_str("<nav id=\"tree\" aria-label=\"Changed objects\">\n<ul>\n");
    for (index, report) in reports.iter().enumerate().filter(|(_, r)| !r.is_empty()) {
        if let Some(cluster) = report.cluster {
            let _ = writeln!(out, "<li class=\"cluster\">{}</li>", text(cluster));
        }
        for (position, (producer, changes)) in reading_order(&report.report).into_iter().enumerate()
        {
            let label = producer.to_string();
            let _ = write!(
                out,
                "<li class=\"producer\" data-name=\"{}\"><a href=\"#p{index}-{position}\">{}</a>",
                text(&label.to_lowercase()),
                text(&label)
            );
            let mut kinds: BTreeMap<&str, Vec<(usize, &ObjectChange)>> = BTreeMap::new();
            for (number, change) in changes.objects.iter().enumerate() {
                kinds
                    .entry(change.object.kind.as_str())
                    .or_default()
                    .push((number, change));
            }
            if !kinds.is_empty() {
                out.push_str("<ul>");
                for (kind, objects) in kinds {
                    let _ = write!(out, "<li class=\"kind\">{}<ul>", text(kind));
                    for (number, change) in objects {
                        let _ = write!(
                            out,
                            "<li class=\"object {}\" data-name=\"{}\"><a href=\"#o{index}-{position}-{number}\">{}</a></li>",
                            change.change.as_str(),
                            text(&object_name(change, &label)),
                            text(&short_name(change))
                        );
                    }
                    out.push_str("</ul></li>");
                }
                out.push_str("</ul>");
            }
            out.push_str("</li>\n");
        }
    }
    out.push_str("</ul>\n</nav>\n");
}

/// What the filter matches an object against: its kind, namespace and name, and its producer's.
fn object_name(change: &ObjectChange, producer: &str) -> String {
    format!("{} {producer}", change.object).to_lowercase()
}

/// `namespace/name` (or `name`), as the tree lists an object under its kind.
fn short_name(change: &ObjectChange) -> String {
    let object = &change.object;
    let mut name = if object.namespace.is_empty() {
        object.name.clone()
    } else {
        format!("{}/{}", object.namespace, object.name)
    };
    if !object.cluster.is_empty() {
        let _ = write!(name, " (cluster {})", object.cluster);
    }
    name
}

/// The producers that did not render on a side, ahead of any diff: those the change touches
/// listed, the others folded (with hundreds of charts not at hand they would bury the diffs).
fn not_rendered_section(out: &mut String, reports: &[ClusterReport]) {
    let code = |s: &str| format!("<code>{}</code>", escape::html_text(s));
    let entries: Vec<_> = not_rendered(reports).collect();
    if entries.is_empty() {
        return;
    }
    let item = |(cluster, entry): &(Option<&str>, &crate::diff::NotRendered)| {
        let name = slash_name(&entry.producer);
        let shown = match cluster {
            Some(cluster) => format!("{} (cluster {})", code(&name), code(cluster)),
            None => code(&name),
        };
        format!(
            "<li data-name=\"{}\">{shown}: {}; {}.</li>\n",
            escape::html_text(&format!("{} {name}", entry.producer.kind).to_lowercase()),
            causes(entry, &|s| code(s)),
            touch_text(entry)
        )
    };
    let (touched, untouched): (Vec<_>, Vec<_>) = entries.iter().partition(|(_, e)| e.touched());
    let _ = writeln!(
        out,
        "<section id=\"not-rendered\">\n<h2>Not rendered ({})</h2>\n\
         <p>What these producers render is unknown where they did not render: their objects are \
         not compared there.</p>",
        entries.len()
    );
    if !touched.is_empty() {
        out.push_str("<ul class=\"touched\">\n");
        for entry in &touched {
            out.push_str(&item(entry));
        }
        out.push_str("</ul>\n");
    }
    if !untouched.is_empty() {
        let _ = writeln!(
            out,
            "<details><summary>{} not rendered, the change touches none of them</summary>\n\
             <ul class=\"untouched\">",
            untouched.len()
        );
        for entry in &untouched {
            out.push_str(&item(entry));
        }
        out.push_str("</ul>\n</details>\n");
    }
    out.push_str("</section>\n");
}

/// One changed object: its heading, then its diff in both views.
fn object(out: &mut String, change: &ObjectChange, id: &str, producer: &str) {
    let text = |s: &str| escape::html_text(s);
    let _ = writeln!(
        out,
        "<article class=\"object {}\" id=\"{id}\" data-name=\"{}\">\n<h4><span class=\"change\">{}</span> {}</h4>",
        change.change.as_str(),
        text(&object_name(change, producer)),
        change.change.as_str(),
        text(&change.object.to_string())
    );
    if let Some(keys) = &change.secret_keys {
        let mut parts = Vec::new();
        for (what, list) in [
            ("added", &keys.added),
            ("removed", &keys.removed),
            ("changed", &keys.changed),
        ] {
            if !list.is_empty() {
                parts.push(format!("{what}: {}", text(&list.join(", "))));
            }
        }
        if !parts.is_empty() {
            let _ = writeln!(
                out,
                "<p class=\"note\">Secret values are not shown; keys {}.</p>",
                parts.join("; ")
            );
        }
    }
    if !change.diff.is_empty() {
        let lines = parse_unified(&change.diff);
        unified(out, &lines);
        split(out, &lines);
    }
    fields(out, change);
    out.push_str("</article>\n");
}

/// The fields view: one row per field that differs, `path: before → after`; a moved list item
/// with its positions; a multi-line string's own line diff.
fn fields(out: &mut String, change: &ObjectChange) {
    if change.fields.is_empty() {
        return;
    }
    let text = |s: &str| escape::html_text(s);
    out.push_str("<table class=\"diff fields\">\n");
    // A string's own lines, in this view whichever the page's other tables are in.
    let lines = |diff: &str| {
        let mut inner = String::new();
        unified(&mut inner, &parse_unified(diff));
        inner.replacen("class=\"diff unified\"", "class=\"diff inner\"", 1)
    };
    for field in &change.fields {
        let kind = match field.change {
            FieldChangeKind::Added => "added",
            FieldChangeKind::Removed => "removed",
            FieldChangeKind::Moved => "moved",
            FieldChangeKind::Changed => "changed",
        };
        let value = match (&field.change, &field.diff) {
            (FieldChangeKind::Moved, _) => match field.positions {
                Some((from, to)) => format!("moved from position {from} to {to}"),
                None => "moved".to_owned(),
            },
            (_, Some(diff)) => lines(diff),
            (FieldChangeKind::Added, None) => {
                format!("<ins>{}</ins>", text(field.after.as_deref().unwrap_or("")))
            }
            (FieldChangeKind::Removed, None) => {
                format!("<del>{}</del>", text(field.before.as_deref().unwrap_or("")))
            }
            (FieldChangeKind::Changed, None) => {
                let (before, after) = marked(
                    field.before.as_deref().unwrap_or(""),
                    field.after.as_deref().unwrap_or(""),
                );
                format!("{before} → {after}")
            }
        };
        let _ = writeln!(
            out,
            "<tr class=\"{kind}\"><td class=\"path\">{}</td><td>{value}</td></tr>",
            // A long path wraps at its `.` and `[`, not inside a name.
            text(&field.path)
                .replace('.', ".<wbr>")
                .replace('[', "<wbr>[")
        );
    }
    if change.more_fields > 0 {
        let _ = writeln!(
            out,
            "<tr><td colspan=\"2\" class=\"note\">and {} more fields (the unified view has them all)</td></tr>",
            change.more_fields
        );
    }
    out.push_str("</table>\n");
}

/// A line of a unified diff.
#[derive(Debug, PartialEq)]
enum Line<'a> {
    /// `@@ -a,b +c,d @@`.
    Hunk(&'a str),
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

fn parse_unified(diff: &str) -> Vec<Line<'_>> {
    diff.lines()
        .filter(|line| !line.starts_with("--- ") && !line.starts_with("+++ "))
        .filter_map(|line| {
            Some(if line.starts_with("@@") {
                Line::Hunk(line)
            } else if let Some(rest) = line.strip_prefix('-') {
                Line::Removed(rest)
            } else if let Some(rest) = line.strip_prefix('+') {
                Line::Added(rest)
            } else if let Some(rest) = line.strip_prefix(' ') {
                Line::Same(rest)
            } else if line.starts_with('\\') {
                return None;
            } else {
                Line::Same(line)
            })
        })
        .collect()
}

/// The runs of a diff: context lines one by one, and each block of removed lines with the added
/// lines that follow it, paired line by line for the changed words.
enum Run<'a> {
    Hunk(&'a str),
    Same(&'a str),
    Change(Vec<&'a str>, Vec<&'a str>),
}

fn runs<'a>(lines: &[Line<'a>]) -> Vec<Run<'a>> {
    let mut runs = Vec::new();
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        match line {
            Line::Hunk(h) => {
                runs.push(Run::Hunk(h));
                i += 1;
            }
            Line::Same(s) => {
                runs.push(Run::Same(s));
                i += 1;
            }
            Line::Removed(_) | Line::Added(_) => {
                let mut removed = Vec::new();
                let mut added = Vec::new();
                while let Some(Line::Removed(r)) = lines.get(i) {
                    removed.push(*r);
                    i += 1;
                }
                while let Some(Line::Added(a)) = lines.get(i) {
                    added.push(*a);
                    i += 1;
                }
                runs.push(Run::Change(removed, added));
            }
        }
    }
    runs
}

/// `old` and `new` with the words that differ marked (`<del>` in the old, `<ins>` in the new).
fn marked(old: &str, new: &str) -> (String, String) {
    let diff = similar::TextDiff::configure()
        .timeout(std::time::Duration::from_millis(50))
        .diff_words(old, new);
    let (mut before, mut after) = (String::new(), String::new());
    for change in diff.iter_all_changes() {
        let value = escape::html_text(change.value());
        match change.tag() {
            similar::ChangeTag::Equal => {
                before.push_str(&value);
                after.push_str(&value);
            }
            similar::ChangeTag::Delete => {
                let _ = write!(before, "<del>{value}</del>");
            }
            similar::ChangeTag::Insert => {
                let _ = write!(after, "<ins>{value}</ins>");
            }
        }
    }
    (before, after)
}

/// The removed and added lines of a change block, marked where a line pairs with one on the
/// other side.
fn marked_block(removed: &[&str], added: &[&str]) -> (Vec<String>, Vec<String>) {
    let mut before: Vec<String> = removed.iter().map(|l| escape::html_text(l)).collect();
    let mut after: Vec<String> = added.iter().map(|l| escape::html_text(l)).collect();
    for (i, (old, new)) in removed.iter().zip(added).enumerate() {
        let (b, a) = marked(old, new);
        if let (Some(slot_b), Some(slot_a)) = (before.get_mut(i), after.get_mut(i)) {
            *slot_b = b;
            *slot_a = a;
        }
    }
    (before, after)
}

fn unified(out: &mut String, lines: &[Line]) {
    out.push_str("<table class=\"diff unified\">\n");
    for run in runs(lines) {
        match run {
            Run::Hunk(h) => {
                let _ = writeln!(
                    out,
                    "<tr class=\"hunk\"><td colspan=\"2\">{}</td></tr>",
                    escape::html_text(h)
                );
            }
            Run::Same(s) => {
                let _ = writeln!(
                    out,
                    "<tr><td class=\"sign\"> </td><td>{}</td></tr>",
                    escape::html_text(s)
                );
            }
            Run::Change(removed, added) => {
                let (before, after) = marked_block(&removed, &added);
                for line in before {
                    let _ = writeln!(
                        out,
                        "<tr class=\"removed\"><td class=\"sign\">-</td><td>{line}</td></tr>"
                    );
                }
                for line in after {
                    let _ = writeln!(
                        out,
                        "<tr class=\"added\"><td class=\"sign\">+</td><td>{line}</td></tr>"
                    );
                }
            }
        }
    }
    out.push_str("</table>\n");
}

fn split(out: &mut String, lines: &[Line]) {
    out.push_str("<table class=\"diff split\">\n");
    for run in runs(lines) {
        match run {
            Run::Hunk(h) => {
                let _ = writeln!(
                    out,
                    "<tr class=\"hunk\"><td colspan=\"2\">{}</td></tr>",
                    escape::html_text(h)
                );
            }
            Run::Same(s) => {
                let s = escape::html_text(s);
                let _ = writeln!(out, "<tr><td>{s}</td><td>{s}</td></tr>");
            }
            Run::Change(removed, added) => {
                let (before, after) = marked_block(&removed, &added);
                for i in 0..before.len().max(after.len()) {
                    let cell = |side: &[String], class: &str| match side.get(i) {
                        Some(line) => format!("<td class=\"{class}\">{line}</td>"),
                        None => "<td class=\"blank\"></td>".to_owned(),
                    };
                    let _ = writeln!(
                        out,
                        "<tr>{}{}</tr>",
                        cell(&before, "removed"),
                        cell(&after, "added")
                    );
                }
            }
        }
    }
    out.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_marks_only_the_words_that_changed() {
        let (before, after) = marked("image: app:1.0 # <pin>", "image: app:1.1 # <pin>");
        assert!(before.contains("<del>app:1.0</del>"), "{before}");
        assert!(after.contains("<ins>app:1.1</ins>"), "{after}");
        assert!(after.contains("&lt;pin&gt;"), "{after}");
        assert!(!after.contains("<pin>"), "{after}");
    }

    #[test]
    fn removed_and_added_runs_pair_up_side_by_side() {
        let diff = "--- a\n+++ b\n@@ -1,3 +1,3 @@\n a: 1\n-b: 2\n-c: 3\n+b: 4\n d: 5\n";
        let lines = parse_unified(diff);
        assert_eq!(lines.len(), 6);
        let mut out = String::new();
        split(&mut out, &lines);
        assert!(out.contains("<td class=\"removed\">b: <del>2</del></td><td class=\"added\">b: <ins>4</ins></td>"), "{out}");
        assert!(
            out.contains("<td class=\"removed\">c: 3</td><td class=\"blank\"></td>"),
            "{out}"
        );
    }
}
