//! The kustomization file, typed: one member per field kustomize v5 knows. Read from the YAML
//! tree as kustomize reads it (through Go's JSON decoder): a field name matches without regard to
//! case (`nameprefix` is `namePrefix`), a repeated field's last value wins, and an unknown field
//! is an error.
//!
//! Not for: what the fields mean (the target's handlers and the transformers say that). A field's
//! value is kept as the tree gives it; its handler reads it.

use offlux_yaml::Node;

/// A kustomization (or component) file.
#[derive(Clone, Debug, Default)]
pub(super) struct Kustomization {
    pub api_version: Option<Node>,
    pub kind: Option<Node>,
    pub metadata: Option<Node>,
    pub resources: Option<Node>,
    pub bases: Option<Node>,
    pub components: Option<Node>,
    pub namespace: Option<Node>,
    pub name_prefix: Option<Node>,
    pub name_suffix: Option<Node>,
    pub common_labels: Option<Node>,
    pub labels: Option<Node>,
    pub common_annotations: Option<Node>,
    pub images: Option<Node>,
    pub image_tags: Option<Node>,
    pub replicas: Option<Node>,
    pub patches: Option<Node>,
    pub patches_strategic_merge: Option<Node>,
    pub patches_json6902: Option<Node>,
    pub replacements: Option<Node>,
    pub vars: Option<Node>,
    pub config_map_generator: Option<Node>,
    pub secret_generator: Option<Node>,
    pub generator_options: Option<Node>,
    pub generators: Option<Node>,
    pub transformers: Option<Node>,
    pub validators: Option<Node>,
    pub configurations: Option<Node>,
    pub crds: Option<Node>,
    pub openapi: Option<Node>,
    pub build_metadata: Option<Node>,
    pub sort_options: Option<Node>,
    pub helm_charts: Option<Node>,
    pub helm_globals: Option<Node>,
    pub helm_chart_inflation_generator: Option<Node>,
}

type Member = fn(&mut Kustomization) -> &mut Option<Node>;

/// The fields as kustomize spells them, each with its member.
const FIELDS: &[(&str, Member)] = &[
    ("apiVersion", |k| &mut k.api_version),
    ("kind", |k| &mut k.kind),
    ("metadata", |k| &mut k.metadata),
    ("resources", |k| &mut k.resources),
    ("bases", |k| &mut k.bases),
    ("components", |k| &mut k.components),
    ("namespace", |k| &mut k.namespace),
    ("namePrefix", |k| &mut k.name_prefix),
    ("nameSuffix", |k| &mut k.name_suffix),
    ("commonLabels", |k| &mut k.common_labels),
    ("labels", |k| &mut k.labels),
    ("commonAnnotations", |k| &mut k.common_annotations),
    ("images", |k| &mut k.images),
    ("imageTags", |k| &mut k.image_tags),
    ("replicas", |k| &mut k.replicas),
    ("patches", |k| &mut k.patches),
    ("patchesStrategicMerge", |k| &mut k.patches_strategic_merge),
    ("patchesJson6902", |k| &mut k.patches_json6902),
    ("replacements", |k| &mut k.replacements),
    ("vars", |k| &mut k.vars),
    ("configMapGenerator", |k| &mut k.config_map_generator),
    ("secretGenerator", |k| &mut k.secret_generator),
    ("generatorOptions", |k| &mut k.generator_options),
    ("generators", |k| &mut k.generators),
    ("transformers", |k| &mut k.transformers),
    ("validators", |k| &mut k.validators),
    ("configurations", |k| &mut k.configurations),
    ("crds", |k| &mut k.crds),
    ("openapi", |k| &mut k.openapi),
    ("buildMetadata", |k| &mut k.build_metadata),
    ("sortOptions", |k| &mut k.sort_options),
    ("helmCharts", |k| &mut k.helm_charts),
    ("helmGlobals", |k| &mut k.helm_globals),
    ("helmChartInflationGenerator", |k| {
        &mut k.helm_chart_inflation_generator
    }),
];

/// Fields kustomize v5 warns about, with their replacements, in the order it warns.
const DEPRECATED: &[(&str, &str)] = &[
    ("bases", "resources"),
    ("commonLabels", "labels"),
    ("imageTags", "images"),
    ("patchesJson6902", "patches"),
    ("patchesStrategicMerge", "patches"),
    ("vars", "replacements"),
];

impl Kustomization {
    /// The kustomization a file's root node holds (an empty file is an empty kustomization).
    /// Errors in kustomize's words.
    pub(crate) fn from_node(root: &Node) -> Result<Kustomization, String> {
        let mut k = Kustomization::default();
        let Some(mapping) = root.as_mapping() else {
            return Ok(k);
        };
        for entry in &mapping.entries {
            let key = entry.key.value.as_str();
            let member = FIELDS
                .iter()
                .find(|(name, _)| *name == key)
                .or_else(|| {
                    FIELDS
                        .iter()
                        .find(|(name, _)| name.eq_ignore_ascii_case(key))
                })
                .map(|(_, member)| member)
                .ok_or_else(|| format!("invalid Kustomization: json: unknown field \"{key}\""))?;
            *member(&mut k) = Some(entry.value.clone());
        }
        Ok(k)
    }

    /// The deprecated fields this kustomization sets, each with its replacement.
    pub(super) fn deprecated(&self) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        let set = [
            &self.bases,
            &self.common_labels,
            &self.image_tags,
            &self.patches_json6902,
            &self.patches_strategic_merge,
            &self.vars,
        ];
        DEPRECATED
            .iter()
            .zip(set)
            .filter(|(_, value)| value.is_some())
            .map(|(pair, _)| *pair)
    }

    /// kustomize's `CheckEmpty`: nothing but `apiVersion` and `kind` is set. As kustomize decodes
    /// through Go's JSON, a null field is unset and so is an empty string; an empty list or map
    /// is set.
    pub(super) fn is_empty(&self) -> bool {
        // Destructured in full, so that a new field cannot be forgotten here.
        let Kustomization {
            api_version: _,
            kind: _,
            namespace,
            name_prefix,
            name_suffix,
            metadata,
            resources,
            bases,
            components,
            common_labels,
            labels,
            common_annotations,
            images,
            image_tags,
            replicas,
            patches,
            patches_strategic_merge,
            patches_json6902,
            replacements,
            vars,
            config_map_generator,
            secret_generator,
            generator_options,
            generators,
            transformers,
            validators,
            configurations,
            crds,
            openapi,
            build_metadata,
            sort_options,
            helm_charts,
            helm_globals,
            helm_chart_inflation_generator,
        } = self;
        let strings_unset = [namespace, name_prefix, name_suffix]
            .into_iter()
            .all(|field| {
                field
                    .as_ref()
                    .is_none_or(|n| n.is_null() || n.as_str() == Some(""))
            });
        let others_unset = [
            metadata,
            resources,
            bases,
            components,
            common_labels,
            labels,
            common_annotations,
            images,
            image_tags,
            replicas,
            patches,
            patches_strategic_merge,
            patches_json6902,
            replacements,
            vars,
            config_map_generator,
            secret_generator,
            generator_options,
            generators,
            transformers,
            validators,
            configurations,
            crds,
            openapi,
            build_metadata,
            sort_options,
            helm_charts,
            helm_globals,
            helm_chart_inflation_generator,
        ]
        .into_iter()
        .all(|field| field.as_ref().is_none_or(Node::is_null));
        strings_unset && others_unset
    }

    /// `kind`, `Kustomization` when unset.
    pub(super) fn kind(&self) -> &str {
        self.kind
            .as_ref()
            .and_then(Node::as_str)
            .unwrap_or("Kustomization")
    }
}

/// The strings of a list field (other items are skipped).
pub(super) fn strings(field: Option<&Node>) -> Vec<String> {
    field
        .and_then(Node::as_sequence)
        .map(|s| {
            s.items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::Kustomization;
    use offlux_yaml::{parse_stream, ParseOptions};

    fn read(text: &str) -> Result<Kustomization, String> {
        let docs = parse_stream(text, &ParseOptions::default()).map_err(|e| e.message)?;
        let root = docs.into_iter().next().map(|d| d.into_root());
        Kustomization::from_node(&root.unwrap_or_else(offlux_yaml::Node::null))
    }

    #[test]
    fn field_names_match_without_case_and_unknown_fields_are_refused() {
        let k = read("nameprefix: p-\nNAMESUFFIX: -s\n").unwrap_or_default();
        assert_eq!(k.name_prefix.as_ref().and_then(|n| n.as_str()), Some("p-"));
        assert_eq!(k.name_suffix.as_ref().and_then(|n| n.as_str()), Some("-s"));
        assert_eq!(
            read("resources: []\nfoo: bar\n").err().as_deref(),
            Some("invalid Kustomization: json: unknown field \"foo\"")
        );
    }

    #[test]
    fn deprecated_fields_are_listed_in_kustomize_order() {
        let k = read("vars: []\nbases: []\nimageTags: []\n").unwrap_or_default();
        let listed: Vec<_> = k.deprecated().map(|(field, _)| field).collect();
        assert_eq!(listed, ["bases", "imageTags", "vars"]);
        assert_eq!(k.kind(), "Kustomization");
    }
}
