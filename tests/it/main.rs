//! The integration tests, one crate (as ripgrep and uv keep theirs), so a library change links
//! once. Each module is named after the behaviour it checks; `common` holds what they share.
//!
//! Run one area with `cargo test --release --test it MODULE::`.

// A test states what it expects by unwrapping; its helpers in `common` too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod action;
mod architecture;
mod changed_only;
mod cli;
mod cli_run;
mod cli_snapshots;
mod cluster_held_objects;
mod clusters;
mod config_file;
mod conformance;
mod corpus;
mod corpus_incoming;
mod corpus_kustomize;
mod corpus_render;
mod corpus_validate;
mod corpus_yaml;
mod depend_graph;
mod diff;
mod differential;
mod discovery;
mod external_artifacts;
mod fidelity;
mod flux_instance;
mod get_matches_test;
mod health_checks;
mod helm_charts;
mod helm_releases;
mod helm_repo;
mod hostile;
mod hostile_archives;
mod hostile_budget;
mod hostile_network;
mod hostile_output;
mod hostile_reads;
mod hostile_writes;
mod kube_config;
mod kustomize_engine;
mod orphans;
mod pre_commit;
mod readable_results;
mod readme_commands;
mod remote_sources;
mod render_cache;
mod resourceset;
mod runtime;
mod schedule_outcomes;
mod scoped_commands;
mod self_applied_reads;
mod source_mapping;
mod spec_ignore;
mod substitute_documents;
mod unreachable_and_typos;
mod verdict_rules;
mod verdicts;
