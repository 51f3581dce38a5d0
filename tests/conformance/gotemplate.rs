//! Conformance: the `gotemplate` suite (filled in by its engine's work).
