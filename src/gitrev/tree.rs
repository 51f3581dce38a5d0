//! Tree objects: their entries parsed, and which entry names a revision's view takes.

use super::objects::ObjectId;
use super::GitError;

pub(super) struct TreeEntry {
    pub mode: u32,
    pub name: String,
    pub id: ObjectId,
}

/// A tree object's entries: `<octal mode> <name>\0<20-byte id>`, repeated.
pub(super) fn parse_tree(id: ObjectId, data: &[u8]) -> Result<Vec<TreeEntry>, GitError> {
    let corrupt = || GitError::Corrupt {
        id: id.to_string(),
        message: "malformed tree entry".to_owned(),
    };
    let mut entries = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let space = rest.iter().position(|&b| b == b' ').ok_or_else(corrupt)?;
        let mode = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|m| u32::from_str_radix(m, 8).ok())
            .ok_or_else(corrupt)?;
        rest = &rest[space + 1..];
        let nul = rest.iter().position(|&b| b == 0).ok_or_else(corrupt)?;
        let name = String::from_utf8_lossy(&rest[..nul]).into_owned();
        let raw = rest.get(nul + 1..nul + 21).ok_or_else(corrupt)?;
        let entry_id = ObjectId(raw.try_into().map_err(|_| corrupt())?);
        rest = &rest[nul + 21..];
        entries.push(TreeEntry {
            mode,
            name,
            id: entry_id,
        });
    }
    Ok(entries)
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
