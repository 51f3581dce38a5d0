//! Flux post-build variable substitution (fluxcd/pkg/envsubst semantics). Knows nothing of Kustomizations.
