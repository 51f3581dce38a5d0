pub mod canned_build;
pub mod fleet;
pub mod git;
pub mod git_server;
pub mod helm_oracle;
pub mod kustomize_oracle;
pub mod measured;
pub mod moto;
pub mod offlux_cli;
pub mod produced;
pub mod registry;
pub mod ssh_server;
pub mod tools;
pub use offlux_test_data as test_data;

/// A copy of the directory tree `from` at `to`: directories and regular files (symbolic links are
/// left out, as a corpus repository may hold links that point outside it).
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        let kind = entry.file_type().expect("type");
        if kind.is_dir() {
            copy_dir(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
