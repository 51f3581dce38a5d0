//! Conformance: the `helmfuncs` suite (filled in by its engine's work).
