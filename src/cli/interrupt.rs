//! SIGINT and SIGTERM for the whole process: the first signal cancels every run under way and
//! every run started afterwards (a `diff` reconciles two sides, one after the other, and must not
//! finish the second as if nothing had happened), and the command ends with the shell's status
//! for the signal (`CliError::Interrupted`: 130, 143).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex};

use offlux_sync::MutexExt as _;

use crate::budget::RunBudget;
use crate::controllers::runtime::CancelToken;
use crate::platform::signals;

/// The first signal's number; 0 before any.
static RECEIVED: AtomicI32 = AtomicI32::new(0);
static WATCHED: Mutex<Vec<CancelToken>> = Mutex::new(Vec::new());
static BUDGETS: Mutex<Vec<Arc<RunBudget>>> = Mutex::new(Vec::new());
/// Set by a command that checks for a signal itself after its work ([`listen_to_the_end`]).
static COMMAND_ENDS_ITSELF: AtomicBool = AtomicBool::new(false);

/// Starts listening for SIGINT and SIGTERM (once per process; later calls do nothing). Before
/// any run has started (discovery, fetching sources) a signal ends the process as it would have
/// without the listener, once the `ssh` processes of Git fetches are stopped and their keys
/// removed (unless the command listens to the end: [`listen_to_the_end`]); from the first run
/// on, it cancels the runs and the command ends with its status.
pub(super) fn listen() {
    signals::on_interrupt(|signal| {
        let _ = RECEIVED.compare_exchange(0, signal, Ordering::AcqRel, Ordering::Acquire);
        let mut running = false;
        {
            let tokens = WATCHED.locked();
            for token in tokens.iter() {
                token.cancel();
                running = true;
            }
        }
        {
            let budgets = BUDGETS.locked();
            for budget in budgets.iter() {
                budget.cancel();
                running = true;
            }
        }
        // An `ssh` fetching a Git source is a process of its own: stopped here, with its keys
        // removed, or it would outlive the command.
        #[cfg(feature = "network")]
        offlux_git::ssh::stop_all();
        if !running && !COMMAND_ENDS_ITSELF.load(Ordering::Acquire) {
            signals::end_as_by_default(signal);
        }
    });
}

/// [`listen`] for a command that asks [`error`] once its work is done and ends with the
/// signal's status (`diff`: a signal while either side is discovered, before any run has
/// started, must still end it with 130 or 143 and nothing compared, not kill it outright).
/// Runs started afterwards are cancelled at once.
pub(super) fn listen_to_the_end() {
    COMMAND_ENDS_ITSELF.store(true, Ordering::Release);
    listen();
}

/// Cancels `token` when a signal arrives, or at once if one has.
pub(super) fn watch(token: &CancelToken) {
    listen();
    {
        let mut tokens = WATCHED.locked();
        tokens.push(token.clone());
    }
    if received().is_some() {
        token.cancel();
    }
}

/// Cancels `budget` (engines' work in flight) when a signal arrives, or at once if one has.
pub(super) fn watch_budget(budget: &Arc<RunBudget>) {
    listen();
    {
        let mut budgets = BUDGETS.locked();
        budgets.push(budget.clone());
    }
    if received().is_some() {
        budget.cancel();
    }
}

/// The signal that asked the process to stop, if one did.
pub(super) fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::Acquire) {
        0 => None,
        signal => Some(signal),
    }
}

/// The error a command ends with when a signal arrived.
pub(super) fn error() -> Option<super::exit::CliError> {
    received().map(|signal| super::exit::CliError::Interrupted { signal })
}
