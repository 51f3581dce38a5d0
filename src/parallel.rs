//! An order-keeping parallel map for work that is independent per item (objects to check or
//! print, files to parse).

use std::sync::atomic::{AtomicUsize, Ordering};

/// As deep as the main thread's: objects may nest as deep as the YAML reader allows, and schema
/// compilation and validation recurse through them.
const STACK_SIZE: usize = 8 << 20;

/// How many threads parallel work uses: the cores this process may run on. Asked once; the
/// answer costs several system calls (affinity, cgroup quota files).
pub fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// Starts a worker thread in `scope` with the stack every worker of ours gets; `None` when the
/// system refuses a thread, and then the caller does the work itself.
pub fn spawn_scoped<'scope, 'env, R: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    work: impl FnOnce() -> R + Send + 'scope,
) -> Option<std::thread::ScopedJoinHandle<'scope, R>> {
    std::thread::Builder::new()
        .stack_size(STACK_SIZE)
        .spawn_scoped(scope, work)
        .ok()
}

/// The result of a worker from `spawn_scoped`; a panic in it goes on in the caller.
pub fn join<R>(worker: std::thread::ScopedJoinHandle<'_, R>) -> R {
    worker
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// `items.iter().map(f).collect()`, on up to `available_parallelism` threads, results in the
/// order of `items` whatever the threads' timing. Items are handed out eight at a time.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_chunked(items, 8, f)
}

/// `map` handing out `chunk` items at a time: 1 where single items can take long.
pub fn map_chunked<T: Sync, R: Send>(
    items: &[T],
    chunk: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let chunk = chunk.max(1);
    let threads = threads().min(items.len().div_ceil(chunk)).max(1);
    // Even one thread is a worker of ours: its stack size does not depend on the caller's.
    if items.is_empty() {
        return Vec::new();
    }
    // Work is handed out in small chunks from a shared counter: object sizes vary by orders of
    // magnitude (a CRD against a ConfigMap), so fixed shares would leave one thread idle.
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, Vec<R>)> = std::thread::scope(|scope| {
        let work = || {
            let mut out = Vec::new();
            loop {
                let start = next.fetch_add(chunk, Ordering::Relaxed);
                if start >= items.len() {
                    break out;
                }
                let end = (start + chunk).min(items.len());
                out.push((start, items[start..end].iter().map(&f).collect()));
            }
        };
        let workers: Option<Vec<_>> = (0..threads).map(|_| spawn_scoped(scope, work)).collect();
        // Without threads, the work is done here, all of it: a worker that did start has taken
        // items from the counter, and its results are dropped with it.
        let Some(workers) = workers else {
            return vec![(0, items.iter().map(&f).collect())];
        };
        workers.into_iter().flat_map(join).collect()
    });
    done.sort_by_key(|(start, _)| *start);
    done.into_iter().flat_map(|(_, results)| results).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_order_of_the_items() {
        let items: Vec<u64> = (0..1000).collect();
        let squares = super::map(&items, |n| n * n);
        assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>());
        assert!(super::map(&[] as &[u64], |n| *n).is_empty());
    }
}
