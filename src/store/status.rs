//! Statuses of stored objects.

use std::fmt;

/// Where an object stands. `Ready` and `Failed` are terminal: nothing changes them but a re-run.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Not decided yet: waiting for a dependency, or not reconciled yet.
    Pending,
    /// Reconciled, possibly without rendering anything (suspended, skipped).
    Ready(Ready),
    /// Reconciling failed; the message is what Flux would show in the Ready condition.
    Failed(String),
}

/// The ways an object can be Ready. Suspended and skipped objects are Ready so that nothing waits on
/// them forever; outputs show them apart.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ready {
    /// Reconciled and rendered.
    Reconciled,
    /// `spec.suspend: true`: Flux leaves it alone.
    Suspended,
    /// Deliberately not rendered, with the reason (e.g. "skipped: remote source").
    Skipped(String),
}

impl Status {
    /// Plain `Ready(Reconciled)`, the common case.
    pub fn ready() -> Self {
        Status::Ready(Ready::Reconciled)
    }

    /// A failure with its message.
    pub fn failed(message: impl Into<String>) -> Self {
        Status::Failed(message.into())
    }

    /// Ready or Failed: only a re-run changes it.
    pub(crate) fn is_terminal(&self) -> bool {
        !matches!(self, Status::Pending)
    }

    /// Any Ready variant, including suspended and skipped.
    pub fn is_ready(&self) -> bool {
        matches!(self, Status::Ready(_))
    }

    /// The failure message, if failed.
    pub fn failure(&self) -> Option<&str> {
        match self {
            Status::Failed(message) => Some(message),
            _ => None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Pending => f.write_str("pending"),
            Status::Ready(Ready::Reconciled) => f.write_str("ready"),
            Status::Ready(Ready::Suspended) => f.write_str("suspended"),
            Status::Ready(Ready::Skipped(reason)) => write!(f, "skipped: {reason}"),
            Status::Failed(message) => write!(f, "failed: {message}"),
        }
    }
}

/// A status with the root causes behind it: for a failure passed up a chain of dependencies,
/// `blocked_by` names the leaves (the missing or failed objects), sorted and without duplicates.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StatusRecord<Id> {
    pub status: Status,
    pub blocked_by: Vec<Id>,
}

impl<Id: Ord> StatusRecord<Id> {
    /// A record whose `blocked_by` is sorted and deduplicated, so that equal causes compare equal.
    pub fn new(status: Status, mut blocked_by: Vec<Id>) -> Self {
        blocked_by.sort();
        blocked_by.dedup();
        StatusRecord { status, blocked_by }
    }
}
