//! Conformance: the `yaml_roundtrip` suite (filled in by its engine's work).
