//! Tree objects: their entries parsed, and which entry names a revision's view takes.

use super::objects::ObjectId;
use super::GitError;

pub(super) struct TreeEntry {
    pub mode: u32,
    pub name: String,
    pub id: ObjectId,
}

/// A tree object's entries, as gix's decoder reads them.
pub(super) fn parse_tree(id: ObjectId, data: &[u8]) -> Result<Vec<TreeEntry>, GitError> {
    let tree = gix_object::TreeRef::from_bytes(data, gix_hash::Kind::Sha1).map_err(|e| {
        GitError::Corrupt {
            id: id.to_string(),
            message: format!("malformed tree: {e}"),
        }
    })?;
    Ok(tree
        .entries
        .iter()
        .map(|entry| TreeEntry {
            mode: u32::from(entry.mode.value()),
            name: String::from_utf8_lossy(entry.filename).into_owned(),
            id: entry.oid.to_owned(),
        })
        .collect())
}

/// A name that is one ordinary path component, and not git's own directory.
pub(super) fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && !name.eq_ignore_ascii_case(".git")
        && !name.contains(char::REPLACEMENT_CHARACTER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_names_are_refused() {
        for name in ["", ".", "..", ".git", ".GIT", "a/b", "a\\b"] {
            assert!(!safe_name(name), "{name:?}");
        }
        assert!(safe_name(".gitignore"));
    }
}
