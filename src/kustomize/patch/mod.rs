//! Patching engines on YAML trees: strategic merge patch (driven by the Kubernetes OpenAPI patch
//! metadata), JSON 6902 patches, and kyaml field paths. Pure functions; no resource selection.
