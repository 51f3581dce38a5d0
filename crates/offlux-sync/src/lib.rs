//! Locks that stay usable after a panic elsewhere: the one way offlux's crates take a lock.
//!
//! A `Mutex` or `RwLock` is poisoned when a thread panics while holding it. Every critical section
//! in offlux writes whole entries (a table's insert, a list's push, a counter), so the guarded
//! value is consistent whatever the panic interrupted; the panic itself reaches the caller through
//! the thread that had it. So a poisoned lock is taken as it is, never skipped (which would drop a
//! diagnostic or a result without a word) and never unwrapped (which would turn one panic into many).

#![deny(unreachable_pub)]

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// [`Mutex::lock`] and [`Mutex::into_inner`], recovering what a poisoned lock holds.
pub trait MutexExt<T> {
    fn locked(&self) -> MutexGuard<'_, T>;
    fn into_recovered(self) -> T;
}

impl<T> MutexExt<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn into_recovered(self) -> T {
        self.into_inner().unwrap_or_else(PoisonError::into_inner)
    }
}

/// [`RwLock::read`] and [`RwLock::write`], recovering the guard of a poisoned lock.
pub trait RwLockExt<T: ?Sized> {
    fn read_locked(&self) -> RwLockReadGuard<'_, T>;
    fn write_locked(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T: ?Sized> RwLockExt<T> for RwLock<T> {
    fn read_locked(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_locked(&self) -> RwLockWriteGuard<'_, T> {
        self.write().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_poisoned_by_a_panic_is_still_taken() {
        let shared = std::sync::Arc::new(Mutex::new(vec![1]));
        let held = std::sync::Arc::clone(&shared);
        let panicked = std::thread::spawn(move || {
            let mut guard = held.locked();
            guard.push(2);
            panic!("while holding the lock");
        })
        .join();
        assert!(panicked.is_err());
        assert!(shared.is_poisoned());
        assert_eq!(*shared.locked(), [1, 2]);
        let shared = std::sync::Arc::into_inner(shared).expect("the one owner left");
        assert_eq!(shared.into_recovered(), [1, 2]);

        let table = std::sync::Arc::new(RwLock::new(0));
        let held = std::sync::Arc::clone(&table);
        let _ = std::thread::spawn(move || {
            *held.write_locked() = 7;
            panic!("while writing");
        })
        .join();
        assert_eq!(*table.read_locked(), 7);
        *table.write_locked() += 1;
        assert_eq!(*table.read_locked(), 8);
    }
}
