//! Everything offlux says on stderr: diagnostics for people (the message, the object, and a
//! snippet of the file with the position marked), filtered by `--log-level`, and the error a
//! command ended with. Colour only on a terminal and never when NO_COLOR is set. Every write to
//! stderr goes through `eprint` (or, for diagnostics rendered from escaped parts, `emit`), which
//! shows hidden characters (`escape::terminal`) and, where a GitHub runner reads the log, keeps
//! any line from reading as a workflow command (`escape::github_log`).

use std::path::Path;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};

use super::exit::CliError;
use super::{Context, LogLevel};
use crate::diagnostic::{Diagnostic, Severity};
use crate::escape;

/// Largest file quoted in a snippet; bigger files get the location line only.
const MAX_SNIPPET_SOURCE: u64 = 4 * 1024 * 1024;

pub(super) fn shown(diagnostic: &Diagnostic, level: LogLevel) -> bool {
    match diagnostic.severity {
        Severity::Error => true,
        Severity::Warning => level >= LogLevel::Warn,
        Severity::Note => level >= LogLevel::Info,
    }
}

/// Diagnostics of one cause shown in full; the rest of the group is listed one line each.
const SHOWN_IN_FULL: usize = 3;
/// Warnings and notes of one cause listed after those; errors are always all listed.
const LISTED_MORE: usize = 20;

/// Prints the diagnostics the log level asks for to stderr, each once, grouped by cause: the
/// first few of a cause with a snippet of their file, the rest one line each (a repository with
/// a hundred SOPS files gets three snippets and a list, not a hundred snippets).
pub(crate) fn print_diagnostics(diagnostics: &[Diagnostic], root: &Path, context: &Context) {
    let mut seen = std::collections::HashSet::new();
    let mut groups: Vec<(String, Vec<&Diagnostic>)> = Vec::new();
    let mut group_of = std::collections::HashMap::new();
    for diagnostic in diagnostics {
        if !shown(diagnostic, context.log_level) || !seen.insert(diagnostic) {
            continue;
        }
        let cause = format!("{} {}", diagnostic.severity, cause_of(&diagnostic.message));
        let index = *group_of.entry(cause.clone()).or_insert_with(|| {
            groups.push((cause, Vec::new()));
            groups.len() - 1
        });
        groups[index].1.push(diagnostic);
    }
    let full: Vec<&Diagnostic> = groups
        .iter()
        .flat_map(|(_, members)| members.iter().take(SHOWN_IN_FULL).copied())
        .collect();
    // Each quotes its file: rendered on every core, and written at once.
    let mut rendered = crate::parallel::map(&full, |d| render(d, root, context.color)).into_iter();
    // Repository text reaches `text` only through `render` and `one_line`, which escape it.
    let mut text = String::new();
    for (_, members) in &groups {
        for _ in members.iter().take(SHOWN_IN_FULL) {
            text.push_str(&rendered.next().unwrap_or_default());
        }
        let rest = &members[members.len().min(SHOWN_IN_FULL)..];
        if rest.is_empty() {
            continue;
        }
        let listed = if rest[0].severity == Severity::Error {
            rest.len()
        } else {
            rest.len().min(LISTED_MORE)
        };
        text.push_str(&format!(
            "{}: {} more like this:\n",
            rest[0].severity,
            rest.len()
        ));
        for diagnostic in &rest[..listed] {
            text.push_str(&format!("  {}\n", one_line(diagnostic)));
        }
        if listed < rest.len() {
            text.push_str(&format!("  ... and {} more\n", rest.len() - listed));
        }
    }
    emit(context, &text);
}

/// Writes `text` to stderr: hidden characters shown, and in a GitHub log no line a command.
pub(crate) fn eprint(context: &Context, text: &str) {
    if context.github_log {
        eprint!("{}", escape::github_log(text));
    } else {
        eprint!("{}", escape::terminal(text));
    }
}

/// Writes text whose repository-supplied parts are escaped already and which may hold offlux's
/// own colours.
fn emit(context: &Context, text: &str) {
    if context.github_log {
        // Never coloured: `Context::color` is off for a GitHub log.
        eprint!("{}", escape::github_log(text));
    } else {
        eprint!("{text}");
    }
}

/// Says on stderr why a command ended early: `error: MESSAGE`, and `hint: HINT` when there is
/// one. A reader of stdout that went away is not reported.
/// `error:` lines for objects that failed, one per cause: an object alone with its cause says
/// `error: Kind/ns/name: cause`; the objects one cause stops (63 releases whose chart is not in
/// the cache) are one line with their number and the first names. Causes keep the order in
/// which `failures` (object, cause) first names them.
pub(crate) fn grouped_errors(failures: &[(String, String)]) -> String {
    let mut causes: Vec<(&str, Vec<&str>)> = Vec::new();
    for (object, cause) in failures {
        match causes.iter_mut().find(|(c, _)| *c == cause.as_str()) {
            Some((_, objects)) => objects.push(object),
            None => causes.push((cause, vec![object])),
        }
    }
    let mut out = String::new();
    for (cause, objects) in causes {
        match objects.as_slice() {
            [object] => out.push_str(&format!("error: {object}: {cause}\n")),
            objects => {
                let mut names: Vec<String> =
                    objects.iter().take(3).map(|o| (*o).to_owned()).collect();
                if objects.len() > 3 {
                    names.push(format!("and {} more", objects.len() - 3));
                }
                let joint = if cause.starts_with("blocked by ") {
                    " "
                } else {
                    ": "
                };
                out.push_str(&format!(
                    "error: {} Flux objects{joint}{cause} ({})\n",
                    objects.len(),
                    names.join(", ")
                ));
            }
        }
    }
    out
}

pub(crate) fn print_error(error: &CliError, context: &Context) {
    if error.is_closed_stdout() {
        return;
    }
    let mut text = format!("error: {error}\n");
    if let CliError::Usage {
        hint: Some(hint), ..
    } = error
    {
        text.push_str(&format!("hint: {hint}\n"));
    }
    eprint(context, &text);
}

/// A message with its quoted values (file names, object names, paths in backticks) left out:
/// diagnostics with the same cause read the same once they are.
fn cause_of(message: &str) -> String {
    let mut cause = String::with_capacity(message.len());
    for (i, part) in message.split('`').enumerate() {
        cause.push_str(if i % 2 == 0 { part } else { "…" });
    }
    cause
}

/// `file:line: object: message`, for the members of a group not shown in full, on one line.
fn one_line(diagnostic: &Diagnostic) -> String {
    let mut line = String::new();
    if let Some(location) = &diagnostic.location {
        line.push_str(&format!("{location}: "));
    }
    if let Some(object) = &diagnostic.object {
        line.push_str(&format!("{object}: "));
    }
    line.push_str(&diagnostic.message);
    escape::terminal_line(&line).into_owned()
}

/// A diagnostic for a person, its repository-supplied parts escaped for a terminal.
pub(super) fn render(diagnostic: &Diagnostic, root: &Path, color: bool) -> String {
    let mut message = String::new();
    if let Some(object) = &diagnostic.object {
        message.push_str(object);
        message.push_str(": ");
    }
    message.push_str(&diagnostic.message);
    let message = escape::terminal(&message).into_owned();
    let hint = diagnostic
        .hint
        .as_deref()
        .map(|hint| escape::terminal(hint).into_owned());
    let severity = match diagnostic.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Note => miette::Severity::Advice,
    };
    let mut report = MietteDiagnostic::new(message.clone()).with_severity(severity);
    if let Some(hint) = &hint {
        report = report.with_help(hint.clone());
    }
    let snippet = diagnostic.location.as_ref().and_then(|location| {
        let pos = location.pos?;
        let path = root.join(&location.file);
        let size = std::fs::metadata(&path).ok()?.len();
        if size > MAX_SNIPPET_SOURCE {
            return None;
        }
        let text = std::fs::read_to_string(&path).ok()?;
        let offset = byte_offset(&text, pos.line, pos.column)?;
        // The file is quoted with its hidden characters shown; the offset moves with them.
        let offset = escape::terminal(&text[..offset]).len();
        let text = escape::terminal(&text).into_owned();
        let name = escape::terminal_line(&location.file.display().to_string()).into_owned();
        Some((name, text, offset))
    });
    let Some((name, text, offset)) = snippet else {
        let prefix = match &diagnostic.location {
            Some(location) => format!("{}: ", escape::terminal_line(&location.to_string())),
            None => String::new(),
        };
        let mut out = format!("{}: {prefix}{message}\n", diagnostic.severity);
        if let Some(hint) = &hint {
            out.push_str(&format!("hint: {hint}\n"));
        }
        return out;
    };
    report = report.with_label(LabeledSpan::at_offset(offset, "here"));
    let report = WithSource {
        diagnostic: report,
        source: NamedSource::new(name, text),
    };
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let mut out = String::new();
    let handler = GraphicalReportHandler::new_themed(theme).with_context_lines(1);
    if handler.render_report(&mut out, &report).is_err() {
        out = format!("{}: {message}\n", diagnostic.severity);
    }
    out
}

/// A diagnostic with the text its label points into. `miette::Report::with_source_code` does the
/// same, but building a `Report` asks the terminal for its size each time (two system calls per
/// diagnostic, and runs report hundreds).
#[derive(Debug)]
struct WithSource {
    diagnostic: MietteDiagnostic,
    source: NamedSource<String>,
}

impl std::fmt::Display for WithSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.diagnostic.fmt(f)
    }
}

impl std::error::Error for WithSource {}

impl miette::Diagnostic for WithSource {
    fn severity(&self) -> Option<miette::Severity> {
        self.diagnostic.severity()
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.diagnostic.help()
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.diagnostic.labels()
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }
}

/// The byte offset of a 1-based line and column (in characters).
fn byte_offset(text: &str, line: u32, column: u32) -> Option<usize> {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(line as usize - 2)?.0 + 1
    };
    let line_text = text[line_start..].split('\n').next().unwrap_or("");
    let within = line_text
        .char_indices()
        .nth(column.saturating_sub(1) as usize)
        .map_or(line_text.len(), |(i, _)| i);
    Some(line_start + within)
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_cause_is_one_line() {
        let failures: Vec<(String, String)> = [
            ("HelmRelease/a/x", "chart c 1.0 is not in the chart cache"),
            ("HelmRelease/a/y", "chart c 1.0 is not in the chart cache"),
            ("Kustomization/f/k", "kustomization path not found: ./gone"),
            ("HelmRelease/b/z", "chart c 1.0 is not in the chart cache"),
            ("HelmRelease/b/w", "chart c 1.0 is not in the chart cache"),
            (
                "HelmRelease/b/v",
                "blocked by Kustomization/f/k: kustomization path not found: ./gone",
            ),
            (
                "HelmRelease/b/u",
                "blocked by Kustomization/f/k: kustomization path not found: ./gone",
            ),
        ]
        .iter()
        .map(|(o, c)| ((*o).to_owned(), (*c).to_owned()))
        .collect();
        assert_eq!(
            super::grouped_errors(&failures),
            "error: 4 Flux objects: chart c 1.0 is not in the chart cache (HelmRelease/a/x, \
             HelmRelease/a/y, HelmRelease/b/z, and 1 more)\n\
             error: Kustomization/f/k: kustomization path not found: ./gone\n\
             error: 2 Flux objects blocked by Kustomization/f/k: kustomization path not found: \
             ./gone (HelmRelease/b/v, HelmRelease/b/u)\n"
        );
    }

    use super::byte_offset;

    #[test]
    fn offsets_of_lines_and_columns() {
        let text = "a: 1\nbé: 2\n";
        assert_eq!(byte_offset(text, 1, 1), Some(0));
        assert_eq!(byte_offset(text, 2, 1), Some(5));
        assert_eq!(byte_offset(text, 2, 3), Some(8));
        assert_eq!(byte_offset(text, 9, 1), None);
    }

    #[test]
    fn a_diagnostic_with_a_position_quotes_its_line_with_the_message_and_hint() {
        use crate::diagnostic::{Diagnostic, Location};
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            dir.path().join("ks.yaml"),
            "kind: A\nspec:\n  path: ./nowhere\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let diagnostic = Diagnostic::warning("path not found")
            .at(Location::at(
                "ks.yaml",
                crate::yaml::Pos { line: 3, column: 9 },
            ))
            .object("Kustomization/x")
            .hint("check spec.path");
        let text = super::render(&diagnostic, dir.path(), false);
        for expected in [
            "Kustomization/x: path not found",
            "ks.yaml:3:9",
            "3 │   path: ./nowhere",
            "here",
            "check spec.path",
        ] {
            assert!(
                text.contains(expected),
                "{expected:?} missing from:\n{text}"
            );
        }
    }
}
