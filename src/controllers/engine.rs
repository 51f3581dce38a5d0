//! The kustomize engine behind the reconcile loop's builder interface, with Flux's settings:
//! `LoadRestrictionsNone` inside the source root, input order kept (no legacy kind sort).

use std::path::Path;

use super::runtime::KustomizationBuilder;
use crate::kustomize;
use crate::yaml::Node;

pub struct KustomizeEngine;

impl KustomizationBuilder for KustomizeEngine {
    fn build(&self, root: &Path, dir: &Path, kustomization: &Node) -> Result<Vec<Node>, String> {
        let options = kustomize::Options {
            load_restrictor: kustomize::LoadRestrictor::None,
            reorder: kustomize::Reorder::None,
            display_root: Some(root.to_path_buf()),
            fs_root: Some(root.to_path_buf()),
            kustomization_override: Some((dir.to_path_buf(), kustomization.clone())),
            ..kustomize::Options::default()
        };
        kustomize::build(dir, &options)
            .map(|build| build.objects)
            .map_err(|e| e.to_string())
    }
}
