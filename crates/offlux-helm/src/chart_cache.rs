//! What a chart's releases share once computed: its parsed template sets and its compiled
//! values schema. Caches, not part of what the chart is: two charts compare equal whatever their
//! caches hold, and every entry is used only for the very texts or bytes it came from.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use offlux_sync::MutexExt as _;
use serde_json::Value as Json;

use super::{ChartFile, Error};
use offlux_template::Set;
use offlux_template::Value;

/// A chart's parsed template sets, made once and shared by every release of the chart (and every
/// copy of it). Keyed by the templates a render includes, which depend on the subcharts that the
/// release's values enable; a set is used only for the very texts it was parsed from, so a copy
/// of the chart whose templates were changed parses its own.
#[derive(Clone, Default)]
pub struct ParsedTemplates(Arc<Mutex<HashMap<Vec<String>, ParsedSet>>>);

type ParsedSet = (Vec<Box<str>>, Result<Arc<Set>, Error>);

impl ParsedTemplates {
    pub(crate) fn get_or_parse(
        &self,
        order: &[String],
        texts: &[&str],
        parse: impl FnOnce() -> Result<Set, Error>,
    ) -> Result<Arc<Set>, Error> {
        let same_texts = |known: &[Box<str>]| known.iter().map(|t| &**t).eq(texts.iter().copied());
        let known = (self.0.locked().get(order))
            .filter(|(known, _)| same_texts(known))
            .map(|(_, set)| set.clone());
        if let Some(known) = known {
            return known;
        }
        // Parsed outside the lock: two releases of one chart may both parse it, never wait.
        let parsed = parse().map(Arc::new);
        {
            let mut known = self.0.locked();
            let texts = texts.iter().map(|t| Box::from(*t)).collect();
            known.insert(order.to_vec(), (texts, parsed.clone()));
        }
        parsed
    }
}

impl std::fmt::Debug for ParsedTemplates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ParsedTemplates")
    }
}

/// A cache of what the chart's templates say, not part of what the chart is.
impl PartialEq for ParsedTemplates {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// A chart's `values.schema.json`, parsed and compiled at its first use and then shared by every
/// copy of the chart: a chart that many releases use (app-template) has one large schema, and
/// compiling it for each release would cost more than most of its templates. It is used only for
/// the very bytes it was compiled from, so a copy of the chart whose schema was changed compiles
/// its own.
/// A chart's `.Files` as templates see them, made once: every release of the chart (and every
/// render of it) would otherwise copy all its files, up to megabytes of dashboards, into strings.
/// Used only for the very files it was made from (the same names and the same shared bytes), so
/// a copy of the chart whose files were changed makes its own.
#[derive(Clone, Default)]
pub struct FilesValue(Arc<OnceLock<FilesFrom>>);

/// The files (by name and shared bytes) and the value made of them.
type FilesFrom = (Vec<(String, Arc<Vec<u8>>)>, Value);

impl FilesValue {
    pub(crate) fn get_or_make(&self, files: &[ChartFile], make: impl Fn() -> Value) -> Value {
        let (known, value) = self.0.get_or_init(|| {
            let known = files
                .iter()
                .map(|f| (f.name.clone(), f.data.clone()))
                .collect();
            (known, make())
        });
        let same = known.len() == files.len()
            && known
                .iter()
                .zip(files)
                .all(|((name, data), file)| *name == file.name && Arc::ptr_eq(data, &file.data));
        if same {
            value.clone()
        } else {
            make()
        }
    }
}

impl std::fmt::Debug for FilesValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FilesValue")
    }
}

/// What was made of the files is not part of what a chart is.
impl PartialEq for FilesValue {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[derive(Clone, Default)]
pub struct CompiledSchema(Arc<OnceLock<SchemaFromBytes>>);

/// The schema's bytes, and what compiling them gave.
type SchemaFromBytes = (Vec<u8>, Result<Arc<Compiled>, String>);

/// A compiled schema and what its reports need of the source.
pub(crate) struct Compiled {
    pub(crate) schema: Json,
    pub(crate) draft: jsonschema::Draft,
    pub(crate) validator: jsonschema::Validator,
}

impl CompiledSchema {
    /// The schema compiled from `bytes`: the cached one when it came from the same bytes, else
    /// compiled now (and kept, if nothing is cached yet).
    pub(crate) fn get_or_compile(
        &self,
        bytes: &[u8],
        compile: impl Fn(&[u8]) -> Result<Compiled, String>,
    ) -> Result<Arc<Compiled>, String> {
        let cached = self
            .0
            .get_or_init(|| (bytes.to_vec(), compile(bytes).map(Arc::new)));
        if cached.0 == bytes {
            cached.1.clone()
        } else {
            compile(bytes).map(Arc::new)
        }
    }
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CompiledSchema")
    }
}

/// A cache of what the chart's bytes say, not part of what the chart is.
impl PartialEq for CompiledSchema {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> ChartFile {
        ChartFile {
            name: name.to_owned(),
            data: Arc::new(text.as_bytes().to_vec()),
        }
    }

    fn text_of(value: &Value, name: &str) -> Option<String> {
        match value {
            Value::Map(map) => match map.get(name) {
                Some(Value::String(text)) => Some(text.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// `.Files` is made once for copies of a chart that share its files, and made again for a
    /// copy whose files changed (another name, or other bytes under the same name).
    #[test]
    fn the_files_value_is_reused_only_for_the_same_files() {
        let made = std::sync::atomic::AtomicUsize::new(0);
        let make = |files: &[ChartFile]| {
            made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            crate::files::files_value(files)
        };
        let files = vec![file("a.txt", "one")];
        let cache = FilesValue::default();
        let first = cache.get_or_make(&files, || make(&files));
        let again = cache.clone().get_or_make(&files.clone(), || make(&files));
        assert_eq!(made.load(std::sync::atomic::Ordering::Relaxed), 1);
        assert_eq!(text_of(&first, "a.txt").as_deref(), Some("one"));
        assert_eq!(text_of(&again, "a.txt").as_deref(), Some("one"));
        for changed in [
            vec![file("a.txt", "two")],
            vec![file("b.txt", "one")],
            vec![],
        ] {
            let value = cache.get_or_make(&changed, || make(&changed));
            assert_eq!(value, make(&changed));
        }
    }
}
