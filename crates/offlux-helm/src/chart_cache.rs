//! What a chart's releases share once computed: its parsed template sets and its compiled
//! values schema. Caches, not part of what the chart is: two charts compare equal whatever their
//! caches hold, and every entry is used only for the very texts or bytes it came from.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use offlux_sync::MutexExt as _;
use serde_json::Value as Json;

use super::Error;
use offlux_template::Set;

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
