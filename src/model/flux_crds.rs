//! The CustomResourceDefinitions of Flux's own APIs, embedded (`scripts/gen-flux-crds`) so Flux
//! objects can be checked against their schemas where the repository does not carry the CRDs.

use std::io::Read;
use std::sync::OnceLock;

use serde_json::Value;

const EMBEDDED: &[u8] = include_bytes!("flux-crds.json.gz");

/// Flux's CRDs, as JSON objects of kind `CustomResourceDefinition` (versions with their
/// `openAPIV3Schema`, without descriptions).
pub fn flux_crds() -> &'static [Value] {
    static CRDS: OnceLock<Vec<Value>> = OnceLock::new();
    CRDS.get_or_init(|| {
        let mut text = Vec::new();
        let parsed = flate2::read::GzDecoder::new(EMBEDDED)
            .read_to_end(&mut text)
            .ok()
            .and_then(|_| serde_json::from_slice::<Vec<Value>>(&text).ok());
        parsed.unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_crds_cover_flux_kinds() {
        let kinds: Vec<&str> = super::flux_crds()
            .iter()
            .filter_map(|crd| crd.pointer("/spec/names/kind")?.as_str())
            .collect();
        for kind in [
            "Kustomization",
            "HelmRelease",
            "GitRepository",
            "OCIRepository",
            "Bucket",
            "HelmRepository",
            "HelmChart",
            "ExternalArtifact",
            "Provider",
            "Receiver",
        ] {
            assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
        }
        // A cluster the Flux Operator installs accepts Alert event sources (FluxInstance...) that
        // `flux install`'s CRD refuses: no one copy of Alert's CRD is right for both.
        assert!(!kinds.contains(&"Alert"), "{kinds:?}");
    }
}
