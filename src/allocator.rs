//! The global allocator: mimalloc through its C API. Not for: choosing when to allocate.
//!
//! The plain entry points (`mi_malloc`, `mi_zalloc`, `mi_realloc`) are used only for layouts whose
//! alignment every mimalloc block has; the others go through the aligned entry points, whose checks
//! are a measurable part of each allocation (the `mimalloc` crate sends every block through them).
//!
//! What "every block has" is derived, not assumed: mimalloc's size classes are multiples of the
//! machine word (`MI_INTPTR_SIZE`) and its pages start word-aligned, so a block from the plain
//! entry points is aligned to `size_of::<usize>()` and no more is promised for the smallest
//! classes (4 bytes on a 32-bit target, 8 on a 64-bit one). `MI_MAX_ALIGN_SIZE` (16) holds only for
//! blocks of at least that size, so it is not used here.
//!
//! Blocks of [`HUGE`] bytes or more (a chart's file of hundreds of megabytes, its copy in
//! `.Files`) come from the system allocator instead, which maps each on its own and unmaps it when
//! freed, from any thread. mimalloc frees a huge block from a thread other than the one that
//! allocated it by `MADV_FREE` (`_mi_segment_huge_page_reset`), which leaves the pages counted in
//! the process's resident memory until the kernel wants them: with two workers, a chart loaded by
//! one and let go by the other stayed resident beside the next one (measurements:
//! docs/measurements.md).

use std::alloc::{GlobalAlloc, Layout, System};

/// The alignment every block from mimalloc's plain entry points has, on this target.
pub(crate) const PLAIN_ALIGN: usize = std::mem::size_of::<usize>();

/// Blocks of this many bytes or more are the system allocator's. Above glibc's largest
/// dynamic mmap threshold (32 MiB on 64-bit targets), so each is mapped on its own.
pub(crate) const HUGE: usize = 64 << 20;

fn huge(size: usize) -> bool {
    size >= HUGE
}

/// mimalloc as a [`GlobalAlloc`]; the binary installs it with `#[global_allocator]`.
pub struct Mimalloc;

/// Whether `layout` may take the plain entry points.
fn plain(layout: &Layout) -> bool {
    layout.align() <= PLAIN_ALIGN
}

// SAFETY: the functions forward to mimalloc, which returns blocks of at least the requested size
// with at least the requested alignment (plain entry points only for alignments of `PLAIN_ALIGN`
// or less, which every block has, see the module header), or null on failure, and frees only what
// it allocated (`mi_free` takes blocks from either kind of entry point).
unsafe impl GlobalAlloc for Mimalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if huge(layout.size()) {
            // SAFETY: as the impl's; freed by `System` too (`dealloc` sees the same size).
            return unsafe { System.alloc(layout) };
        }
        // SAFETY: as the impl's.
        let block: *mut u8 = unsafe {
            if plain(&layout) {
                libmimalloc_sys::mi_malloc(layout.size()).cast()
            } else {
                libmimalloc_sys::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        };
        debug_assert!(block.is_null() || block.align_offset(layout.align()) == 0);
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if huge(layout.size()) {
            // SAFETY: as `alloc`'s.
            return unsafe { System.alloc_zeroed(layout) };
        }
        // SAFETY: as the impl's.
        unsafe {
            if plain(&layout) {
                libmimalloc_sys::mi_zalloc(layout.size()).cast()
            } else {
                libmimalloc_sys::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if huge(layout.size()) {
            // SAFETY: a block of this size came from `System` (`alloc`, `realloc`).
            return unsafe { System.dealloc(ptr, layout) };
        }
        // SAFETY: as the impl's; `ptr` came from this allocator (GlobalAlloc's contract).
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match (huge(layout.size()), huge(new_size)) {
            // SAFETY: the block is `System`'s and stays so.
            (true, true) => return unsafe { System.realloc(ptr, layout, new_size) },
            (false, false) => {}
            // From one allocator to the other: a new block, the contents copied.
            _ => {
                // SAFETY: `new_size` with `layout`'s alignment is a valid layout (realloc's
                // contract); the old block is valid for `layout.size()` bytes, the new one for
                // `new_size`, and they are distinct.
                unsafe {
                    let grown = Layout::from_size_align_unchecked(new_size, layout.align());
                    let block = self.alloc(grown);
                    if !block.is_null() {
                        let kept = layout.size().min(new_size);
                        std::ptr::copy_nonoverlapping(ptr, block, kept);
                        self.dealloc(ptr, layout);
                    }
                    return block;
                }
            }
        }
        // SAFETY: as the impl's; `ptr` came from this allocator with `layout`.
        unsafe {
            if plain(&layout) {
                libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast()
            } else {
                libmimalloc_sys::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_alignment_is_the_word_size() {
        // 4 on a 32-bit target, where a constant 8 sent 4-aligned blocks to 8-aligned layouts.
        assert_eq!(PLAIN_ALIGN, std::mem::size_of::<usize>());
        assert!(plain(&Layout::from_size_align(1, PLAIN_ALIGN).unwrap()));
        assert!(!plain(
            &Layout::from_size_align(1, PLAIN_ALIGN * 2).unwrap()
        ));
    }

    /// Blocks cross between mimalloc and the system allocator as they grow past [`HUGE`] and
    /// shrink below it, keeping their contents; each is freed by the allocator that made it.
    #[test]
    fn huge_blocks_are_the_system_allocators_and_keep_their_contents_across() {
        let allocator = Mimalloc;
        let small = Layout::from_size_align(HUGE - 1, 8).unwrap();
        // SAFETY: non-zero sizes; each block is freed once, with its layout; only bytes within
        // each block are touched.
        unsafe {
            let block = allocator.alloc(small);
            assert!(!block.is_null());
            block.write(1);
            block.add(HUGE - 2).write(2);
            let grown = allocator.realloc(block, small, HUGE + 1);
            assert!(!grown.is_null());
            assert_eq!((*grown, *grown.add(HUGE - 2)), (1, 2));
            grown.add(HUGE).write(3);
            let huge_layout = Layout::from_size_align(HUGE + 1, 8).unwrap();
            let bigger = allocator.realloc(grown, huge_layout, HUGE * 2);
            assert_eq!((*bigger, *bigger.add(HUGE)), (1, 3));
            let bigger_layout = Layout::from_size_align(HUGE * 2, 8).unwrap();
            let shrunk = allocator.realloc(bigger, bigger_layout, 16);
            assert!(!shrunk.is_null());
            assert_eq!(*shrunk, 1);
            allocator.dealloc(shrunk, Layout::from_size_align(16, 8).unwrap());
            let zeroed = allocator.alloc_zeroed(huge_layout);
            assert!(!zeroed.is_null());
            assert_eq!((*zeroed, *zeroed.add(HUGE)), (0, 0));
            allocator.dealloc(zeroed, huge_layout);
        }
    }

    /// Every size class a program uses, every alignment up to a page: each block is aligned as
    /// asked, through `alloc`, `alloc_zeroed` and `realloc`.
    #[test]
    fn blocks_have_the_alignment_asked_for() {
        let allocator = Mimalloc;
        for align in [1, 2, 4, 8, 16, 32, 64, 128, 4096] {
            for size in (1..=96).chain([127, 128, 129, 1000, 4097, 70_000]) {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: the layouts have non-zero sizes; each block is freed once, with its layout.
                unsafe {
                    let block = allocator.alloc(layout);
                    assert!(!block.is_null());
                    assert_eq!(block.align_offset(align), 0, "alloc {size}/{align}");
                    block.write_bytes(0xA5, size);
                    let grown = allocator.realloc(block, layout, size * 3);
                    assert!(!grown.is_null());
                    assert_eq!(grown.align_offset(align), 0, "realloc {size}/{align}");
                    assert_eq!(*grown.add(size - 1), 0xA5, "realloc keeps the contents");
                    allocator.dealloc(grown, Layout::from_size_align(size * 3, align).unwrap());
                    let zeroed = allocator.alloc_zeroed(layout);
                    assert!(!zeroed.is_null());
                    assert_eq!(zeroed.align_offset(align), 0, "alloc_zeroed {size}/{align}");
                    assert!(std::slice::from_raw_parts(zeroed, size)
                        .iter()
                        .all(|b| *b == 0));
                    allocator.dealloc(zeroed, layout);
                }
            }
        }
    }
}
