//! The reference kustomize (`../shared/oracle/kustomize-build`, `kubectl kustomize`'s own code).

use std::path::Path;
use std::process::Command;

/// `kustomize build DIR` by the reference, with loading outside `dir` allowed (as offlux's tests
/// build), in kustomize's legacy order or, with `reorder_none`, in input order: its output, or its
/// error text.
pub fn kustomize_build(shared: &Path, dir: &Path, reorder_none: bool) -> Result<String, String> {
    let script = shared.join("oracle/kustomize-build");
    let mut command = Command::new(&script);
    command
        .arg(dir)
        .args(["--load-restrictor", "LoadRestrictionsNone"]);
    if reorder_none {
        command.args(["--reorder", "none"]);
    }
    let output = command.output().unwrap_or_else(|e| {
        panic!(
            "the reference kustomize (`{}`) cannot run: {e}",
            script.display()
        )
    });
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}
