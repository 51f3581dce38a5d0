//! Work that is independent per item (objects to check or print, files to parse) on one pool of
//! threads for the whole run.

/// As deep as the main thread's: objects may nest as deep as the YAML reader allows, and schema
/// compilation and validation recurse through them.
const STACK_SIZE: usize = 8 << 20;

/// How many threads parallel work uses: the cores this process may run on. Asked once; the
/// answer costs several system calls (affinity, cgroup quota files).
pub fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// `items.iter().map(f).collect()` on the pool, results in the order of `items` whatever the
/// threads' timing. Items are handed out eight at a time.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_chunked(items, 8, f)
}

/// `map` handing out `chunk` items at a time: 1 where single items can take long. Work is taken
/// in small chunks by whichever thread is free: object sizes vary by orders of magnitude (a CRD
/// against a ConfigMap), so fixed shares would leave one thread idle.
pub(crate) fn map_chunked<T: Sync, R: Send>(
    items: &[T],
    chunk: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    use rayon::prelude::*;
    let chunk = chunk.max(1);
    // One chunk is done on the calling thread: not worth waking the pool for, or starting it.
    // Callers are on the main thread, whose stack is as deep as the pool's.
    if items.len() <= chunk {
        return items.iter().map(f).collect();
    }
    start_pool();
    let parts: Vec<Vec<R>> = items
        .par_chunks(chunk)
        .map(|part| part.iter().map(&f).collect())
        .collect();
    parts.into_iter().flatten().collect()
}

/// `rayon::scope` on the pool: work spawned in it may borrow from the caller, and the call returns
/// once all of it is done.
pub fn scope<'scope, R: Send>(work: impl FnOnce(&rayon::Scope<'scope>) -> R + Send) -> R {
    start_pool();
    rayon::scope(work)
}

/// Starts the pool, one thread per core, each with the stack every worker of ours gets; once per
/// process, on first use or earlier. Without it rayon would start its default pool, with smaller
/// stacks.
pub(crate) fn start_pool() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        // An error means a pool exists already: a test harness or an embedding program made it.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads())
            .stack_size(STACK_SIZE)
            .build_global();
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_order_of_the_items() {
        let items: Vec<u64> = (0..1000).collect();
        let squares = super::map(&items, |n| n * n);
        assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>());
        assert!(super::map(&[] as &[u64], |n| *n).is_empty());
        // One chunk's worth, done on the calling thread.
        assert_eq!(super::map(&[3u64, 1, 2], |n| n + 1), vec![4, 2, 3]);
    }
}
