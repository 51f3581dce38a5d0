//! The FluxInstance body on the runtime's Store: `spec.sync` becomes the source and the
//! Kustomization the operator generates (see `controllers::flux_instance`), patched with
//! `spec.kustomize.patches` and published with the instance's file and line, so they reconcile
//! like any other. The synced source is the working tree when it is this repository: its path
//! exists in the working tree, or its URL is the working tree's git remote (a `--sources`
//! mapping is honoured before either).

use offlux_sync::MutexExt as _;

use super::{Reconcile, Runtime};
use crate::controllers::flux_instance::{
    generate, go_duration, source_api_version, sync_name, validate_sync, Generate,
};
use crate::controllers::source::{same_repository, SourceResolution};
use crate::discovery::{apply_variable_defaults, secure_join};
use crate::model::{FluxObject, FluxSync, Object, ResourceId};
use crate::resourceset::RECONCILE_ANNOTATION;
use crate::schedule::{DrainLevel, Outcome};
use crate::store::{Ready, Status};
use crate::yaml::Node;

pub(super) struct Body;

impl Reconcile for Body {
    fn reconcile(
        &self,
        run: &Runtime<'_>,
        flux: &FluxObject,
        _: DrainLevel,
    ) -> Outcome<ResourceId> {
        run.reconcile_flux_instance(flux)
    }
}

impl Runtime<'_> {
    fn reconcile_flux_instance(&self, flux: &FluxObject) -> Outcome<ResourceId> {
        let id = &flux.object.id;
        let Some(instance) = flux.as_flux_instance() else {
            return Outcome::Terminal;
        };
        let paused = flux
            .object
            .node
            .get_path(&["metadata", "annotations", RECONCILE_ANNOTATION])
            .and_then(Node::as_str)
            .is_some_and(|v| v.eq_ignore_ascii_case("disabled"));
        if paused {
            self.withdraw_output(id);
            self.store.set(id.clone(), Status::Ready(Ready::Suspended));
            return Outcome::Terminal;
        }
        let Some(sync) = &instance.sync else {
            if self.publish(id, &flux.object, &[]) {
                self.store.set(id.clone(), Status::ready());
            }
            return Outcome::Terminal;
        };
        let version = instance.version.as_deref();
        if let Err(message) = validate_sync(version, &sync.kind, sync.provider.as_deref()) {
            return self.fail(id, message);
        }
        let namespace = match flux.namespace() {
            "" => crate::discovery::BOOTSTRAP_NAMESPACE,
            namespace => namespace,
        };
        let interval = go_duration(sync.interval.as_deref().unwrap_or("1m"));
        let generated = generate(&Generate {
            instance: flux.name(),
            namespace,
            sync,
            version,
            interval: &interval,
            patches: instance.patches.as_ref(),
            common_metadata: instance.common_metadata.as_ref(),
        });
        let objects = match generated {
            Ok(objects) => objects,
            Err(message) => return self.fail(id, message),
        };
        let mut children = Vec::with_capacity(objects.len());
        for node in objects {
            match Object::from_node(node, flux.object.file.clone(), flux.object.pos) {
                Ok(Some(object)) if !object.id.name.is_empty() => children.push(object),
                _ => return self.fail(id, "a patch left a generated object without a name"),
            }
        }
        let source = ResourceId::new(
            source_api_version(&sync.kind, version),
            &sync.kind,
            namespace,
            sync_name(sync, namespace),
        );
        let resolution = self.synced_resolution(flux, sync, &source);
        {
            let mut synced = self.synced.locked();
            synced.insert(source, resolution);
        }
        if self.publish(id, &flux.object, &children) {
            self.store.set(id.clone(), Status::ready());
        }
        Outcome::Terminal
    }

    /// Where the files of the source an instance syncs from come from: the working tree when
    /// the sync path exists in it or the URL is its remote, else nowhere offline.
    fn synced_resolution(
        &self,
        flux: &FluxObject,
        sync: &FluxSync,
        source: &ResourceId,
    ) -> SourceResolution {
        let label = format!("{}/{}/{}", source.kind, source.namespace, source.name);
        let instance = format!("FluxInstance/{}/{}", flux.namespace(), flux.name());
        let remote = self
            .git_remote
            .as_deref()
            .is_some_and(|remote| same_repository(remote, &sync.url));
        if remote {
            return SourceResolution::WorkingTree {
                note: Some(format!(
                    "{label} of {instance} points at this repository (`{}`); using the working tree",
                    sync.url
                )),
            };
        }
        let path = apply_variable_defaults(&sync.path).unwrap_or_else(|_| sync.path.clone());
        let dir = secure_join(&self.repository.root, &path);
        let inside =
            crate::fsio::locate(&self.repository.fs_facts, &dir, Some(&self.repository.root))
                .is_ok();
        if inside && self.repository.fs_facts.is_dir(&dir) {
            return SourceResolution::WorkingTree {
                note: Some(format!(
                    "{label} of {instance} syncs `{path}`, which is in this repository; using the working tree"
                )),
            };
        }
        SourceResolution::Unavailable(format!("{label} (`{}`) is not available offline", sync.url))
    }

    /// How a source a FluxInstance generated resolves, if one did.
    pub(super) fn synced_source(&self, id: &ResourceId) -> Option<SourceResolution> {
        self.synced.locked().get(id).cloned()
    }
}
