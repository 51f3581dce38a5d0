//! What a stand-in kustomize builder returns for a canned YAML text: its documents as built
//! objects with no file, or the parse error as the build's.

use offlux::controllers::runtime::BuiltObject;
use offlux::yaml::{parse_stream, ParseOptions};

pub fn built_objects(text: &str) -> Result<Vec<BuiltObject>, String> {
    let documents = parse_stream(text, &ParseOptions::default()).map_err(|e| e.to_string())?;
    Ok(documents
        .into_iter()
        .map(|d| BuiltObject {
            node: d.into_root(),
            file: None,
        })
        .collect())
}
