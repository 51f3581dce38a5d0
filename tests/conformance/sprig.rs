//! Conformance: the `sprig` suite (filled in by its engine's work).
