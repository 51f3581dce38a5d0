//! Choosing and printing rendered objects: the skip flags shared by `build` and `render`, and the
//! canonical YAML or JSON form.

use crate::model::Object;
use crate::yaml::{canonical_kyaml, emit_stream, to_json_kyaml};

#[derive(clap::Args, Debug, Clone)]
pub struct SkipArgs {
    /// Leave Secrets out of the output.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub skip_secrets: bool,
    /// Leave CustomResourceDefinitions out of the output.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub skip_crds: bool,
    /// Leave these kinds out (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub skip_kinds: Vec<String>,
}

impl SkipArgs {
    pub fn keeps(&self, object: &Object) -> bool {
        let kind = object.id.kind.as_str();
        !(self.skip_secrets && kind == "Secret"
            || self.skip_crds && kind == "CustomResourceDefinition"
            || self.skip_kinds.iter().any(|k| k == kind))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ObjectFormat {
    Yaml,
    Json,
}

pub fn format(objects: &[&Object], format: ObjectFormat) -> String {
    match format {
        ObjectFormat::Yaml => {
            let nodes: Vec<_> = objects.iter().map(|o| canonical_kyaml(&o.node)).collect();
            emit_stream(&nodes)
        }
        ObjectFormat::Json => {
            let values: Vec<_> = objects.iter().map(|o| to_json_kyaml(&o.node)).collect();
            let mut text = serde_json::to_string_pretty(&values).unwrap_or_default();
            text.push('\n');
            text
        }
    }
}
