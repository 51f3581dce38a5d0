//! Input sets: the operator's `inputs.Combine` (Flatten and Permute), the input-set id
//! (`ID`, decimal Adler-32), `NormalizeKeyForTemplate`, and what a provider exports
//! (`defaultValues` merged shallowly under the provider's own data).

use serde_json::{Map, Value};

use super::Error;

/// One input set: a map of values.
pub type InputSet = Map<String, Value>;

/// The most permutations `Permute` may produce.
pub const MAX_PERMUTATIONS: usize = 10_000;

/// Where input sets come from: the ResourceSet itself (inline inputs) or a provider.
#[derive(Clone, Debug, PartialEq)]
pub struct InputSource {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
    pub inputs: Vec<InputSet>,
}

impl InputSource {
    /// The ordering key of providers in `Combine`: GVK string, then namespace, then name.
    fn sort_key(&self) -> (String, &str, &str) {
        let (group, version) = match self.api_version.split_once('/') {
            Some((g, v)) => (g, v),
            None => ("", self.api_version.as_str()),
        };
        // Go's `schema.GroupVersionKind.String()`: `group/version, Kind=kind`.
        let gvk = format!("{group}/{version}, Kind={}", self.kind);
        (gvk, &self.namespace, &self.name)
    }
}

/// `spec.inputStrategy`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputStrategy {
    /// `Flatten` (also when empty) or `Permute`; anything else is an error at combine time.
    pub name: String,
    pub include_empty_providers: bool,
}

/// The operator's input id: the decimal Adler-32 checksum of `text`'s bytes.
pub fn id(text: &str) -> String {
    adler2::adler32_slice(text.as_bytes()).to_string()
}

/// `NormalizeKeyForTemplate`: lower-case; spaces and ASCII punctuation separate words; any other
/// character outside `[a-z0-9_]` is dropped; the non-empty words are joined with `_`.
pub fn normalize_key(name: &str) -> String {
    let mut mapped = String::with_capacity(name.len());
    for c in name.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' {
            mapped.push(c);
        } else if c.is_whitespace() || c.is_ascii_punctuation() {
            mapped.push('_');
        }
    }
    mapped
        .split('_')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("_")
}

/// A provider's data with `defaults` filling the top-level keys it lacks.
pub fn with_defaults(mut data: InputSet, defaults: Option<&InputSet>) -> InputSet {
    for (key, value) in defaults.into_iter().flatten() {
        if !data.contains_key(key) {
            data.insert(key.clone(), value.clone());
        }
    }
    data
}

/// What a `Static` provider exports: one input set, `defaultValues` plus `id` (which wins).
pub fn static_inputs(id_source: &str, defaults: Option<&InputSet>) -> Vec<InputSet> {
    let mut set = defaults.cloned().unwrap_or_default();
    set.insert("id".into(), Value::String(id(id_source)));
    vec![set]
}

/// `inputs.Combine`: each set gets its `provider` key; the ResourceSet's own sets come first,
/// then the providers' sorted by GVK, namespace and name; then Flatten or Permute.
pub fn combine(
    resource_set: &InputSource,
    providers: &[InputSource],
    strategy: &InputStrategy,
) -> Result<Vec<InputSet>, Error> {
    let mut sorted: Vec<&InputSource> = providers.iter().collect();
    sorted.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    sorted.dedup_by(|a, b| a.sort_key() == b.sort_key());
    let sources: Vec<&InputSource> = std::iter::once(resource_set).chain(sorted).collect();
    let labelled: Vec<(&InputSource, Vec<InputSet>)> = sources
        .iter()
        .map(|source| {
            let provider = provider_value(source);
            let sets = source
                .inputs
                .iter()
                .map(|set| {
                    let mut set = set.clone();
                    set.insert("provider".into(), provider.clone());
                    set
                })
                .collect();
            (*source, sets)
        })
        .collect();
    match strategy.name.as_str() {
        "" | "Flatten" => Ok(labelled.into_iter().flat_map(|(_, sets)| sets).collect()),
        "Permute" => {
            let mut permuter = Permuter::new(strategy.include_empty_providers);
            for (source, sets) in labelled {
                permuter
                    .add(&source.name, sets)
                    .map_err(|kind| Error::Permute {
                        provider_kind: source.kind.clone(),
                        provider: source.name.clone(),
                        kind,
                    })?;
            }
            Ok(permuter.combine())
        }
        other => Err(Error::Inputs(format!("unknown input strategy: '{other}'"))),
    }
}

fn provider_value(source: &InputSource) -> Value {
    let mut provider = Map::new();
    provider.insert("apiVersion".into(), source.api_version.clone().into());
    provider.insert("kind".into(), source.kind.clone().into());
    provider.insert("name".into(), source.name.clone().into());
    provider.insert("namespace".into(), source.namespace.clone().into());
    Value::Object(provider)
}

/// Why the `Permute` strategy refused a provider's input sets, in the operator's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PermuteError {
    #[error("permutations have already been generated, cannot add more inputs")]
    AlreadyCombined,
    #[error("normalized provider name is empty: '{0}'")]
    EmptyName(String),
    #[error("adding provider '{provider}' with {inputs} inputs would exceed the maximum allowed permutations. max: {max}, got: {total}", max = MAX_PERMUTATIONS)]
    TooMany {
        provider: String,
        inputs: usize,
        total: usize,
    },
}

/// The operator's permuter: the Cartesian product of the sources' sets, each wrapped under its
/// source's normalised name, in odometer order (the first source varies slowest).
#[derive(Debug)]
pub struct Permuter {
    include_empty: bool,
    sources: Vec<(String, Vec<InputSet>)>,
    saw_empty: bool,
    combined: bool,
}

impl Permuter {
    pub fn new(include_empty_providers: bool) -> Permuter {
        Permuter {
            include_empty: include_empty_providers,
            sources: Vec::new(),
            saw_empty: false,
            combined: false,
        }
    }

    pub fn add(&mut self, name: &str, sets: Vec<InputSet>) -> Result<(), PermuteError> {
        if self.combined {
            return Err(PermuteError::AlreadyCombined);
        }
        let key = normalize_key(name);
        if key.is_empty() {
            return Err(PermuteError::EmptyName(name.to_string()));
        }
        if sets.is_empty() {
            self.saw_empty = true;
            return Ok(());
        }
        let so_far: usize = self.sources.iter().map(|(_, s)| s.len()).product();
        let total = so_far.saturating_mul(sets.len());
        if total > MAX_PERMUTATIONS {
            return Err(PermuteError::TooMany {
                provider: name.to_string(),
                inputs: sets.len(),
                total,
            });
        }
        self.sources.push((key, sets));
        Ok(())
    }

    pub fn combine(&mut self) -> Vec<InputSet> {
        self.combined = true;
        if self.sources.is_empty() || (self.include_empty && self.saw_empty) {
            return Vec::new();
        }
        let total: usize = self.sources.iter().map(|(_, s)| s.len()).product();
        let mut out = Vec::with_capacity(total);
        let mut index = vec![0usize; self.sources.len()];
        for _ in 0..total {
            let mut set = InputSet::new();
            let mut id_parts = Vec::with_capacity(index.len());
            for ((key, sets), &i) in self.sources.iter().zip(&index) {
                if let Some(chosen) = sets.get(i) {
                    set.insert(key.clone(), Value::Object(chosen.clone()));
                }
                id_parts.push(format!("{key}={i}"));
            }
            set.insert("id".into(), Value::String(id(&id_parts.join("/"))));
            out.push(set);
            for (slot, (_, sets)) in index.iter_mut().zip(&self.sources).rev() {
                *slot += 1;
                if *slot < sets.len() {
                    break;
                }
                *slot = 0;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_decimal_adler32() {
        assert_eq!(id("foo"), "42074437");
        assert_eq!(id("tenants=0/app_0=0"), "964888023");
        assert_eq!(id("6.0.4"), "48955639");
    }

    #[test]
    fn keys_are_normalised_for_templates() {
        assert_eq!(normalize_key("color-environments"), "color_environments");
        assert_eq!(normalize_key("-£%^$%&$%$£%$"), "");
        assert_eq!(normalize_key("My  App.v2"), "my_app_v2");
    }
}
