//! The working tree's git remote, and whether a Git URL names the same repository.

/// The `origin` remote URL in the repository's `.git/config`, if the working tree is a git
/// checkout. Only the file inside the root is read.
pub fn git_remote(root: &std::path::Path) -> Option<String> {
    let config = crate::fsio::read_to_string(
        &crate::fsio::FsFacts::default(),
        &root.join(".git/config"),
        crate::fsio::Confine::within(root),
    )
    .ok()?;
    let mut in_origin = false;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            in_origin = line == "[remote \"origin\"]";
        } else if in_origin {
            if let Some(url) = line
                .strip_prefix("url")
                .map(str::trim_start)
                .and_then(|l| l.strip_prefix('='))
            {
                return Some(url.trim().to_owned());
            }
        }
    }
    None
}

/// Compares two Git URLs by host and path, whatever the scheme: `ssh://git@github.com/o/r.git`,
/// `git@github.com:o/r` and `https://github.com/o/r` are the same repository.
pub fn same_repository(a: &str, b: &str) -> bool {
    let normalize = |url: &str| {
        let url = url.trim().trim_end_matches('/');
        let url = url.strip_suffix(".git").unwrap_or(url);
        let without_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
        let without_user = without_scheme
            .split_once('@')
            .map_or(without_scheme, |(_, rest)| rest);
        without_user.replacen(':', "/", 1).to_lowercase()
    };
    !a.is_empty() && normalize(a) == normalize(b)
}

#[cfg(test)]
mod tests {
    use super::same_repository;

    #[test]
    fn git_urls_compare_by_host_and_path() {
        assert!(same_repository(
            "git@github.com:Org/Repo.git",
            "https://github.com/org/repo"
        ));
        assert!(same_repository(
            "ssh://git@github.com/org/repo",
            "https://github.com/org/repo.git/"
        ));
        assert!(!same_repository(
            "https://github.com/org/other",
            "https://github.com/org/repo"
        ));
        assert!(!same_repository("", ""));
    }
}
