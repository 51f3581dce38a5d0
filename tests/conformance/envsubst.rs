//! Conformance: the `envsubst` suite (filled in by its engine's work).
