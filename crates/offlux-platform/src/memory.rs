//! Keeping the process's memory on ordinary pages. mimalloc asks the kernel for transparent huge
//! pages, and each is zeroed whole on its first touch though a run uses only part of most of them;
//! a short process that allocates much pays for pages it never uses. Elsewhere than Linux: nothing
//! to do.

/// Asks the kernel not to back this process's memory with transparent huge pages. A failure (an
/// old kernel) changes nothing, and is not reported.
pub fn keep_off_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integer arguments and touches no memory of ours; it
    // only sets a flag the kernel reads at page faults.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}
