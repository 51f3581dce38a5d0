//! Choosing and printing rendered objects: the skip flags shared by `build` and `render`, and the
//! canonical YAML or JSON form.

use super::exit::CliError;
use super::stdout::Output;
use crate::model::Object;
use crate::parallel;
use crate::yaml::{emit_canonical_kyaml, emit_canonical_kyaml_onto, to_json_kyaml};

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

/// The objects as one YAML stream or JSON array.
pub(super) fn format(objects: &[&Object], format: ObjectFormat) -> String {
    join(&documents(objects, format), format)
}

/// How many objects one formatting job prints into one buffer.
const PRINT_RUN: usize = 16;

/// Prints `format(objects, format)` on stdout. YAML is formatted in runs of objects on all cores
/// and written run by run, so the stream is never held whole, nor each object in a buffer of its
/// own (a render's largest allocations were these).
pub(super) fn print(
    objects: &[&Object],
    format: ObjectFormat,
    out: &mut Output,
) -> Result<(), CliError> {
    if format == ObjectFormat::Json {
        return out.write(&self::format(objects, format));
    }
    let runs: Vec<&[&Object]> = objects.chunks(PRINT_RUN).collect();
    let texts = parallel::map_chunked(&runs, 1, |run| {
        run.iter().fold(String::new(), |mut text, object| {
            if !text.is_empty() {
                text.push_str("---\n");
            }
            emit_canonical_kyaml_onto(&object.node, text)
        })
    });
    for (i, text) in texts.iter().enumerate() {
        if i > 0 {
            out.write_part(b"---\n")?;
        }
        out.write_part(text.as_bytes())?;
    }
    out.flush()
}

/// Each object printed on its own, formatted on all cores; `join` makes the output of a run of them.
pub(super) fn documents(objects: &[&Object], format: ObjectFormat) -> Vec<String> {
    parallel::map(objects, |object| match format {
        ObjectFormat::Yaml => emit_canonical_kyaml(&object.node),
        // Pretty JSON at the top level; `join` indents it as an array item.
        ObjectFormat::Json => format!("{:#}", to_json_kyaml(&object.node)),
    })
}

/// Documents from `documents` as one YAML stream or JSON array, as printing all their objects at
/// once would.
pub(super) fn join(documents: &[String], format: ObjectFormat) -> String {
    match format {
        ObjectFormat::Yaml => documents.join("---\n"),
        ObjectFormat::Json if documents.is_empty() => "[]\n".to_owned(),
        ObjectFormat::Json => {
            let mut text = String::with_capacity(documents.iter().map(String::len).sum());
            text.push('[');
            for (i, document) in documents.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                // JSON strings hold no raw line breaks, so every line is indented one level.
                for line in document.split('\n') {
                    text.push_str("\n  ");
                    text.push_str(line);
                }
            }
            text.push_str("\n]\n");
            text
        }
    }
}
