//! The run's budget: the limits that hold for a whole run rather than for one piece (one chart,
//! one template run, one document), what the run has used of each, and the flag that stops work
//! in flight (Ctrl-C).
//!
//! It holds the step cap of template executions (per execution), the run-wide totals (objects
//! the run's producers hold, bytes templates rendered, nodes YAML aliases expanded to, bytes
//! extracted from archives and git objects, bytes of loaded charts held) and the cancellation
//! flag.
//!
//! One [`RunBudget`] is made per run (by `cli`, from its flags) and handed to the engines through
//! their options as an `Arc`; it is never a global, so two runs in one process (the two sides of
//! a `diff`, tests) keep their own. An engine charges what it produces with [`RunBudget::charge`]
//! and stops with [`Exceeded`], whose message names what went over which limit and the flag that
//! raises it. Per-piece limits stay where they were (the engines' own options); these add up the
//! pieces, so that many small pieces cannot add up to minutes or gigabytes.
//!
//! Knows nothing of Flux, Helm or kustomize: a leaf every layer may use.

#![deny(unreachable_pub)]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// What a run may use. The defaults are generous: over the corpus and incoming repositories the
/// largest template execution takes 10 563 steps, the largest run renders 1 627 objects and
/// 3.7 MB of templates, expands 2 598 alias nodes and holds 19 MB of chart files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Steps of one template execution (actions, branches, range iterations, function calls;
    /// expensive functions count more): `--max-template-steps`.
    pub template_steps: u64,
    /// Objects the run's producers hold at once (Kustomizations, HelmReleases, ResourceSets,
    /// FluxInstances; an object two producers render counts twice): `--max-rendered-objects`.
    pub rendered_objects: u64,
    /// Bytes chart and ResourceSet templates rendered, over the whole run:
    /// `--max-rendered-bytes`.
    pub rendered_bytes: u64,
    /// Nodes YAML aliases and merge keys expanded to, over the whole run (every file, every
    /// document): `--max-alias-nodes`.
    pub alias_nodes: u64,
    /// Bytes of file data extracted from archives (charts, artifacts) and inflated from git
    /// objects, over the whole run: `--max-extracted-bytes`.
    pub extracted_bytes: u64,
    /// Bytes of the charts loaded and held at once (their files, subcharts included):
    /// `--max-loaded-chart-bytes`.
    pub loaded_chart_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            template_steps: 20_000_000,
            rendered_objects: 50_000,
            rendered_bytes: 256 << 20,
            alias_nodes: 2_000_000,
            extracted_bytes: 1 << 30,
            loaded_chart_bytes: 512 << 20,
        }
    }
}

/// One limit of [`Limits`]: what it counts and the flag that raises it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    TemplateSteps,
    RenderedObjects,
    RenderedBytes,
    AliasNodes,
    ExtractedBytes,
    LoadedChartBytes,
}

impl Resource {
    pub const ALL: [Resource; 6] = [
        Resource::TemplateSteps,
        Resource::RenderedObjects,
        Resource::RenderedBytes,
        Resource::AliasNodes,
        Resource::ExtractedBytes,
        Resource::LoadedChartBytes,
    ];

    fn index(self) -> usize {
        self as usize
    }

    /// What is counted, in words.
    pub fn what(self) -> &'static str {
        match self {
            Resource::TemplateSteps => "template execution steps",
            Resource::RenderedObjects => "rendered objects",
            Resource::RenderedBytes => "bytes rendered by templates over the run",
            Resource::AliasNodes => "YAML nodes expanded from aliases over the run",
            Resource::ExtractedBytes => {
                "bytes extracted from archives and git objects over the run"
            }
            Resource::LoadedChartBytes => "bytes of loaded charts held at once",
        }
    }

    /// The command-line flag that raises the limit.
    pub fn flag(self) -> &'static str {
        match self {
            Resource::TemplateSteps => "--max-template-steps",
            Resource::RenderedObjects => "--max-rendered-objects",
            Resource::RenderedBytes => "--max-rendered-bytes",
            Resource::AliasNodes => "--max-alias-nodes",
            Resource::ExtractedBytes => "--max-extracted-bytes",
            Resource::LoadedChartBytes => "--max-loaded-chart-bytes",
        }
    }

    /// This resource's limit in `limits`.
    pub fn limit(self, limits: &Limits) -> u64 {
        match self {
            Resource::TemplateSteps => limits.template_steps,
            Resource::RenderedObjects => limits.rendered_objects,
            Resource::RenderedBytes => limits.rendered_bytes,
            Resource::AliasNodes => limits.alias_nodes,
            Resource::ExtractedBytes => limits.extracted_bytes,
            Resource::LoadedChartBytes => limits.loaded_chart_bytes,
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
    /// For a tally ([`RunBudget::tally_of`]): the budget every charge goes to.
    run: Option<Arc<RunBudget>>,
    /// For a tally: the most [`RunBudget::check`] was asked for, per resource.
    checked: [AtomicU64; Resource::ALL.len()],
}

impl RunBudget {
    pub fn new(limits: Limits) -> Self {
        RunBudget {
            limits,
            ..RunBudget::default()
        }
    }

    /// A budget that charges `run` and counts what one piece of work charged it: what that
    /// work costs, to charge again when its result is reused instead of redone (a render read
    /// back from a cache then uses the run's budget as rendering it would have).
    pub fn tally_of(run: Arc<RunBudget>) -> Self {
        RunBudget {
            limits: run.limits,
            run: Some(run),
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
        if let Some(run) = &self.run {
            return run.charge(resource, amount);
        }
        if before.saturating_add(amount) > resource.limit(&self.limits) {
            return Err(Exceeded::new(resource, &self.limits));
        }
        Ok(())
    }

    /// An error when `amount` more of `resource` would pass its limit; nothing is charged (what
    /// is checked is charged later, elsewhere). A tally remembers the most it was asked.
    pub fn check(&self, resource: Resource, amount: u64) -> Result<(), Exceeded> {
        if let Some(run) = &self.run {
            self.checked[resource.index()].fetch_max(amount, Ordering::Relaxed);
            return run.check(resource, amount);
        }
        if self.used(resource).saturating_add(amount) > resource.limit(&self.limits) {
            return Err(Exceeded::new(resource, &self.limits));
        }
        Ok(())
    }

    /// The most a tally was asked to [`RunBudget::check`] of `resource`.
    pub fn checked(&self, resource: Resource) -> u64 {
        self.checked[resource.index()].load(Ordering::Relaxed)
    }

    /// Charges every one of `amounts`, or none: when one would pass its limit (another piece of
    /// work took the room since [`RunBudget::can_take`] said yes), what was charged is given
    /// back and the answer is false.
    pub fn charge_all(&self, amounts: &[(Resource, u64)]) -> bool {
        for (taken, &(resource, amount)) in amounts.iter().enumerate() {
            if self.charge(resource, amount).is_err() {
                for &(resource, amount) in &amounts[..=taken] {
                    self.release(resource, amount);
                }
                return false;
            }
        }
        true
    }

    /// Whether charging `amounts` would keep every total within its limit.
    pub fn can_take(&self, amounts: &[(Resource, u64)]) -> bool {
        if let Some(run) = &self.run {
            return run.can_take(amounts);
        }
        amounts.iter().all(|&(resource, amount)| {
            self.used(resource).saturating_add(amount) <= resource.limit(&self.limits)
        })
    }

    /// Gives back `amount` of `resource` (memory held that is no longer held).
    pub fn release(&self, resource: Resource, amount: u64) {
        let slot = &self.used[resource.index()];
        let _ = slot.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
            Some(used.saturating_sub(amount))
        });
        if let Some(run) = &self.run {
            run.release(resource, amount);
        }
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
            || self.run.as_ref().is_some_and(|r| r.is_cancelled())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_charge_past_the_limit_names_the_limit_and_its_flag() {
        let budget = RunBudget::new(Limits {
            template_steps: 10,
            ..Limits::default()
        });
        assert!(budget.charge(Resource::TemplateSteps, 10).is_ok());
        let error = budget.charge(Resource::TemplateSteps, 1).unwrap_err();
        assert_eq!(
            error.to_string(),
            "template execution steps exceed the limit of 10 (raise it with `--max-template-steps`)"
        );
        // Once over, it stays over.
        assert!(budget.charge(Resource::TemplateSteps, 0).is_err());
        budget.release(Resource::TemplateSteps, 5);
        assert_eq!(budget.used(Resource::TemplateSteps), 6);
    }

    #[test]
    fn a_tally_charges_the_run_and_counts_its_own_charges() {
        let run = Arc::new(RunBudget::new(Limits {
            template_steps: 10,
            ..Limits::default()
        }));
        run.charge(Resource::TemplateSteps, 4).unwrap();
        let tally = RunBudget::tally_of(run.clone());
        assert!(tally.charge(Resource::TemplateSteps, 5).is_ok());
        assert_eq!(tally.used(Resource::TemplateSteps), 5);
        assert_eq!(run.used(Resource::TemplateSteps), 9);
        // The run's limit decides, whoever charges.
        assert!(tally.check(Resource::TemplateSteps, 1).is_ok());
        assert!(tally.check(Resource::TemplateSteps, 2).is_err());
        assert_eq!(tally.checked(Resource::TemplateSteps), 2);
        assert_eq!(
            run.used(Resource::TemplateSteps),
            9,
            "a check charges nothing"
        );
        assert!(tally.can_take(&[(Resource::TemplateSteps, 1)]));
        assert!(!tally.can_take(&[(Resource::TemplateSteps, 2)]));
        assert!(!run.can_take(&[(Resource::RenderedObjects, 0), (Resource::TemplateSteps, 2)]));
        assert!(tally.charge(Resource::TemplateSteps, 2).is_err());
        assert!(run.charge(Resource::TemplateSteps, 0).is_err());
        tally.release(Resource::TemplateSteps, 3);
        assert_eq!(
            (
                tally.used(Resource::TemplateSteps),
                run.used(Resource::TemplateSteps)
            ),
            (4, 8)
        );
        // The run's cancellation reaches the work charging through the tally.
        run.cancel();
        assert!(tally.is_cancelled());
    }

    #[test]
    fn charging_several_amounts_is_all_or_nothing() {
        let budget = RunBudget::new(Limits {
            template_steps: 10,
            rendered_objects: 5,
            ..Limits::default()
        });
        let both = [(Resource::TemplateSteps, 4), (Resource::RenderedObjects, 6)];
        assert!(!budget.charge_all(&both));
        assert_eq!(budget.used(Resource::TemplateSteps), 0);
        assert_eq!(budget.used(Resource::RenderedObjects), 0);
        // Given back, the budget is not left over its limit: a later charge within it passes.
        assert!(budget.charge(Resource::RenderedObjects, 5).is_ok());
        assert!(budget.charge_all(&[(Resource::TemplateSteps, 4)]));
        assert_eq!(budget.used(Resource::TemplateSteps), 4);
    }

    #[test]
    fn cancelling_is_seen() {
        let budget = RunBudget::default();
        assert!(!budget.is_cancelled());
        budget.cancel();
        assert!(budget.is_cancelled());
    }
}
