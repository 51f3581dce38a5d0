//! The object model: ResourceId and typed views of Flux objects.
