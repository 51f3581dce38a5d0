//! Discovery: walks a repository, honours ignore files, loads Flux and data objects, follows spec.path.
