//! Patch texts parsed once per run. A component that many Kustomizations include brings the same
//! inline patches into every build, and reading them again in each was a visible part of a render.

use std::sync::{Arc, Mutex, MutexGuard};

use offlux_budget::RunBudget;
use offlux_sync::MutexExt as _;
use offlux_yaml::{parse_stream, Node, ParseOptions};

/// A patch text's documents, or why it does not parse.
type Parsed = Result<Arc<[Node]>, String>;

/// The documents of each patch text met so far, or why it does not parse; shared by the builds
/// that share an [`super::Options`]. Holds no more text than the repository's own files do.
#[derive(Debug, Default)]
pub struct PatchTexts {
    by_text: Mutex<foldhash::HashMap<String, Parsed>>,
}

impl PatchTexts {
    /// The non-empty documents of `text`, its alias expansion charged to `run`'s budget the
    /// first time it is read.
    pub(crate) fn parse(&self, text: &str, run: Option<&Arc<RunBudget>>) -> Parsed {
        if let Some(known) = self.lock().get(text) {
            return known.clone();
        }
        let parsed = parse_documents(text, run);
        self.lock().insert(text.to_owned(), parsed.clone());
        parsed
    }

    fn lock(&self) -> MutexGuard<'_, foldhash::HashMap<String, Parsed>> {
        // A panic elsewhere cannot leave the table half-written: each insert is one whole entry.
        self.by_text.locked()
    }
}

fn parse_documents(text: &str, run: Option<&Arc<RunBudget>>) -> Parsed {
    let options = ParseOptions {
        run: run.cloned(),
        ..ParseOptions::default()
    };
    let documents =
        parse_stream(text, &options).map_err(|e| format!("{}: {}", e.pos, e.message))?;
    Ok(documents
        .into_iter()
        .map(|d| d.into_root())
        .filter(|n| !n.is_null())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_parsed_once_and_its_error_remembered() {
        let texts = PatchTexts::default();
        let first = texts
            .parse("---\na: 1\n---\n---\nb: 2\n", None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(first.len(), 2);
        let again = texts
            .parse("---\na: 1\n---\n---\nb: 2\n", None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(Arc::ptr_eq(&first, &again));
        let error = texts.parse("a: [", None).err();
        assert!(
            error
                .as_deref()
                .is_some_and(|e| e.contains("expected node content")),
            "{error:?}"
        );
        assert_eq!(texts.parse("a: [", None).err(), error);
        assert_eq!(texts.lock().len(), 2);
    }
}
