//! The run's budget: the limits that hold for a whole run rather than for one piece (one chart,
//! one template run, one document), what the run has used of each, and the flag that stops work
//! in flight (Ctrl-C).
//!
//! One [`RunBudget`] is made per run (by `cli`, from its flags) and handed to the engines through
//! their options as an `Arc`; it is never a global, so two runs in one process (the two sides of
//! a `diff`, tests) keep their own. An engine charges what it produces with [`RunBudget::charge`]
//! and stops with [`Exceeded`], whose message names what went over which limit and the flag that
//! raises it. Per-piece limits stay where they were (the engines' own options); these add up the
//! pieces, so that many small pieces cannot add up to minutes or gigabytes.
//!
//! Knows nothing of Flux, Helm or kustomize: a leaf every layer may use.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What a run may use in all. The defaults are generous: every corpus repository uses a small
/// fraction of each (see the README's security model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Steps of one template execution (actions, range iterations, function calls; expensive
    /// functions count more): `--max-template-steps`.
    pub template_steps: u64,
    /// Objects rendered in the whole run (kustomize builds, charts, ResourceSets):
    /// `--max-objects`.
    pub objects: u64,
    /// Bytes of rendered manifests in the whole run (chart output, ResourceSet templates):
    /// `--max-rendered-bytes`.
    pub rendered_bytes: u64,
    /// Nodes produced by expanding YAML aliases in the whole run: `--max-alias-expansion`.
    pub alias_nodes: u64,
    /// Bytes of chart files loaded in the whole run: `--max-chart-bytes`.
    pub chart_bytes: u64,
    /// Bytes extracted from archives or read from git objects in the whole run:
    /// `--max-extracted-bytes`.
    pub extracted_bytes: u64,
    /// Kustomizations accumulated in one kustomize build (a base reached twice counts twice):
    /// `--max-kustomize-accumulations`.
    pub kustomize_accumulations: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            template_steps: 20_000_000,
            objects: 1_000_000,
            rendered_bytes: 4 << 30,
            alias_nodes: 50_000_000,
            chart_bytes: 2 << 30,
            extracted_bytes: 4 << 30,
            kustomize_accumulations: 20_000,
        }
    }
}

/// One limit of [`Limits`]: what it counts and the flag that raises it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    TemplateSteps,
    Objects,
    RenderedBytes,
    AliasNodes,
    ChartBytes,
    ExtractedBytes,
    KustomizeAccumulations,
}

impl Resource {
    const ALL: [Resource; 7] = [
        Resource::TemplateSteps,
        Resource::Objects,
        Resource::RenderedBytes,
        Resource::AliasNodes,
        Resource::ChartBytes,
        Resource::ExtractedBytes,
        Resource::KustomizeAccumulations,
    ];

    fn index(self) -> usize {
        self as usize
    }

    /// What is counted, in words.
    pub fn what(self) -> &'static str {
        match self {
            Resource::TemplateSteps => "template execution steps",
            Resource::Objects => "rendered objects in this run",
            Resource::RenderedBytes => "rendered bytes in this run",
            Resource::AliasNodes => "YAML alias expansion nodes in this run",
            Resource::ChartBytes => "bytes of loaded charts in this run",
            Resource::ExtractedBytes => "bytes extracted from archives or git in this run",
            Resource::KustomizeAccumulations => "kustomizations accumulated in one build",
        }
    }

    /// The command-line flag that raises the limit.
    pub fn flag(self) -> &'static str {
        match self {
            Resource::TemplateSteps => "--max-template-steps",
            Resource::Objects => "--max-objects",
            Resource::RenderedBytes => "--max-rendered-bytes",
            Resource::AliasNodes => "--max-alias-expansion",
            Resource::ChartBytes => "--max-chart-bytes",
            Resource::ExtractedBytes => "--max-extracted-bytes",
            Resource::KustomizeAccumulations => "--max-kustomize-accumulations",
        }
    }

    /// This resource's limit in `limits`.
    pub fn limit(self, limits: &Limits) -> u64 {
        match self {
            Resource::TemplateSteps => limits.template_steps,
            Resource::Objects => limits.objects,
            Resource::RenderedBytes => limits.rendered_bytes,
            Resource::AliasNodes => limits.alias_nodes,
            Resource::ChartBytes => limits.chart_bytes,
            Resource::ExtractedBytes => limits.extracted_bytes,
            Resource::KustomizeAccumulations => limits.kustomize_accumulations,
        }
    }
}

/// A limit was passed: its message names what, the limit and the flag that raises it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} exceed the limit of {limit} (raise it with `{}`)", .resource.what(), .resource.flag())]
pub struct Exceeded {
    pub resource: Resource,
    pub limit: u64,
}

impl Exceeded {
    pub fn new(resource: Resource, limits: &Limits) -> Self {
        Exceeded {
            resource,
            limit: resource.limit(limits),
        }
    }
}

/// The run's limits, what has been used of each, and the cancellation flag. Shared as an `Arc`.
#[derive(Debug, Default)]
pub struct RunBudget {
    limits: Limits,
    used: [AtomicU64; Resource::ALL.len()],
    cancelled: AtomicBool,
}

impl RunBudget {
    pub fn new(limits: Limits) -> Self {
        RunBudget {
            limits,
            ..RunBudget::default()
        }
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Adds `amount` to what the run has used of `resource`; an error once the total passes the
    /// limit (and every later charge fails too, so the run stops wherever it charges).
    pub fn charge(&self, resource: Resource, amount: u64) -> Result<(), Exceeded> {
        let slot = &self.used[resource.index()];
        let before = slot.fetch_add(amount, Ordering::Relaxed);
        if before.saturating_add(amount) > resource.limit(&self.limits) {
            return Err(Exceeded::new(resource, &self.limits));
        }
        Ok(())
    }

    /// Gives back `amount` of `resource` (memory held that is no longer held).
    pub fn release(&self, resource: Resource, amount: u64) {
        let slot = &self.used[resource.index()];
        let _ = slot.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
            Some(used.saturating_sub(amount))
        });
    }

    /// What the run has used of `resource` so far.
    pub fn used(&self, resource: Resource) -> u64 {
        self.used[resource.index()].load(Ordering::Relaxed)
    }

    /// Stops work in flight: engines that check [`RunBudget::is_cancelled`] end with an error.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_charge_past_the_limit_names_the_limit_and_its_flag() {
        let budget = RunBudget::new(Limits {
            objects: 10,
            ..Limits::default()
        });
        assert!(budget.charge(Resource::Objects, 10).is_ok());
        let error = budget.charge(Resource::Objects, 1).unwrap_err();
        assert_eq!(
            error.to_string(),
            "rendered objects in this run exceed the limit of 10 (raise it with `--max-objects`)"
        );
        // Once over, it stays over.
        assert!(budget.charge(Resource::Objects, 0).is_err());
        budget.release(Resource::Objects, 5);
        assert_eq!(budget.used(Resource::Objects), 6);
    }

    #[test]
    fn cancelling_is_seen() {
        let budget = RunBudget::default();
        assert!(!budget.is_cancelled());
        budget.cancel();
        assert!(budget.is_cancelled());
    }
}
