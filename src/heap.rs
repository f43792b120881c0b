//! The wasm build's global allocator: power-of-two size classes, each with
//! a free list, carved from a bump region that grows the linear memory.
//!
//! Why not a general-purpose allocator: this library's allocations are a few
//! shapes repeated per message (table entries, queued messages, small
//! vectors), so exact-class reuse keeps memory flat in a steady state, and
//! the whole allocator is a few hundred bytes of wasm where talc or dlmalloc
//! are several kilobytes. What it gives up: freed blocks are never merged or
//! returned, so memory is bounded by the largest number of blocks of each
//! class alive at once (up to twice the bytes asked for, from rounding).
//!
//! The bookkeeping (`SizeClasses`) is plain Rust over a `grow` callback, so
//! it is tested natively against a buffer; only `Wasm` touches `memory.grow`.

use core::alloc::Layout;
use core::cell::Cell;
use core::ptr::null_mut;

/// The smallest block: room for the free list's link and any alignment up to 8.
const MIN_CLASS: u32 = 3;
/// Blocks are aligned to 16 at most (what Rust's primitives need on wasm32);
/// a larger alignment is refused (a null pointer: the allocation fails).
const MAX_ALIGN: usize = 16;
const CLASSES: usize = usize::BITS as usize;

/// Free lists by size class and the bump region new blocks come from.
pub struct SizeClasses {
    free: [Cell<usize>; CLASSES],
    bump: Cell<usize>,
    end: Cell<usize>,
}

impl SizeClasses {
    pub const fn new() -> SizeClasses {
        SizeClasses { free: [const { Cell::new(0) }; CLASSES], bump: Cell::new(0), end: Cell::new(0) }
    }

    /// The class of a layout: log2 of its block size.
    fn class(layout: Layout) -> Option<u32> {
        if layout.align() > MAX_ALIGN {
            return None;
        }
        let size = layout.size().max(layout.align()).max(1 << MIN_CLASS);
        let class = usize::BITS - (size - 1).leading_zeros();
        (class < usize::BITS - 1).then_some(class)
    }

    /// The class of a layout and its free list. `get`, not an index: every
    /// class has a list, and this way no bound check and panic site are built.
    fn list(&self, layout: Layout) -> Option<(u32, &Cell<usize>)> {
        let class = Self::class(layout)?;
        Some((class, self.free.get(class as usize)?))
    }

    /// A block for `layout`, or null. `grow(bytes)` extends the memory by
    /// at least `bytes` and returns the new region's start and end.
    ///
    /// # Safety
    /// Addresses from `grow` must be valid, writable and unused.
    pub unsafe fn alloc(&self, layout: Layout, grow: impl FnOnce(usize) -> Option<(usize, usize)>) -> *mut u8 {
        let Some((class, list)) = self.list(layout) else { return null_mut() };
        let head = list.get();
        if head != 0 {
            // SAFETY: a freed block of this class holds the next link.
            list.set(unsafe { *(head as *const usize) });
            return head as *mut u8;
        }
        let size = 1usize << class;
        let align = size.min(MAX_ALIGN);
        // The next block's start in the bump region, if it fits there.
        let carve = || {
            let start = (self.bump.get() + align - 1) & !(align - 1);
            (start + size <= self.end.get()).then_some(start)
        };
        let start = match carve() {
            Some(start) => start,
            None => {
                let Some((region, region_end)) = grow(size + align) else { return null_mut() };
                // Growth is contiguous unless someone else grew the memory.
                if region != self.end.get() {
                    self.bump.set(region);
                }
                self.end.set(region_end);
                let Some(start) = carve() else { return null_mut() };
                start
            }
        };
        self.bump.set(start + size);
        start as *mut u8
    }

    /// # Safety
    /// `block` came from `alloc` with this `layout` and is not used again.
    pub unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        let Some((_, list)) = self.list(layout) else { return };
        // SAFETY: the block is at least 8 bytes, aligned for a usize, and ours.
        unsafe { *(block as *mut usize) = list.get() };
        list.set(block as usize);
    }

    /// Whether a block for `old` also serves `new` (the same class).
    pub fn fits(old: Layout, new: Layout) -> bool {
        Self::class(old).is_some() && Self::class(old) == Self::class(new)
    }
}

impl Default for SizeClasses {
    fn default() -> SizeClasses {
        SizeClasses::new()
    }
}

#[cfg(target_arch = "wasm32")]
pub use wasm::Wasm;

#[cfg(target_arch = "wasm32")]
mod wasm {
    use core::alloc::{GlobalAlloc, Layout};
    use core::arch::wasm32::memory_grow;
    use core::ptr::copy_nonoverlapping;

    use super::SizeClasses;

    #[cfg(target_feature = "atomics")]
    compile_error!("the size-class allocator is single-threaded: build without the atomics target feature");

    const PAGE: usize = 64 * 1024;
    /// Memory grows by at least this much at a time (fewer, larger grows).
    const GROW_AT_LEAST: usize = 4 * PAGE;

    /// `SizeClasses` over the module's memory, as a `#[global_allocator]`.
    pub struct Wasm(SizeClasses);

    // SAFETY: wasm without the atomics feature has one thread.
    unsafe impl Sync for Wasm {}

    impl Wasm {
        pub const fn new() -> Wasm {
            Wasm(SizeClasses::new())
        }
    }

    impl Default for Wasm {
        fn default() -> Wasm {
            Wasm::new()
        }
    }

    fn grow(bytes: usize) -> Option<(usize, usize)> {
        let pages = bytes.max(GROW_AT_LEAST).div_ceil(PAGE);
        let previous = memory_grow(0, pages);
        (previous != usize::MAX).then(|| (previous * PAGE, (previous + pages) * PAGE))
    }

    unsafe impl GlobalAlloc for Wasm {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: memory.grow hands out fresh pages.
            unsafe { self.0.alloc(layout, grow) }
        }

        unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
            unsafe { self.0.dealloc(block, layout) }
        }

        unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: the caller guarantees a valid layout for `new_size`.
            let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
            if SizeClasses::fits(layout, new) {
                return block;
            }
            let moved = unsafe { self.alloc(new) };
            if !moved.is_null() {
                unsafe {
                    copy_nonoverlapping(block, moved, layout.size().min(new_size));
                    self.dealloc(block, layout);
                }
            }
            moved
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// A heap over a buffer that "grows" by handing out its next chunk.
    struct Arena {
        buffer: Vec<u128>,
        used: usize,
    }

    impl Arena {
        fn new(bytes: usize) -> Arena {
            Arena { buffer: vec![0; bytes / 16], used: 0 }
        }

        fn grow(&mut self, bytes: usize) -> Option<(usize, usize)> {
            let start = self.buffer.as_mut_ptr() as usize + self.used;
            let bytes = bytes.max(4096);
            (self.used + bytes <= self.buffer.len() * 16).then(|| {
                self.used += bytes;
                (start, start + bytes)
            })
        }
    }

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    #[test]
    fn blocks_are_aligned_disjoint_and_reused_by_class() {
        let mut arena = Arena::new(1 << 20);
        let heap = SizeClasses::new();
        let mut live: Vec<(usize, Layout, u8)> = Vec::new();
        let mut seed = 7u32;
        for step in 0..20_000u32 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            if live.len() > 64 || (seed >> 16) % 3 == 0 && !live.is_empty() {
                let (block, layout, tag) = live.swap_remove((seed as usize >> 8) % live.len());
                // Nothing else wrote into this block while it was live.
                let bytes = unsafe { core::slice::from_raw_parts(block as *const u8, layout.size()) };
                assert!(bytes.iter().all(|&b| b == tag), "block overwritten");
                unsafe { heap.dealloc(block as *mut u8, layout) };
            } else {
                let size = 1 + (seed as usize >> 4) % 300;
                let align = 1 << ((seed >> 12) % 5);
                let layout = layout(size, align);
                let block = unsafe { heap.alloc(layout, |n| arena.grow(n)) } as usize;
                assert_ne!(block, 0);
                assert_eq!(block % align, 0, "misaligned");
                let tag = step as u8;
                unsafe { core::ptr::write_bytes(block as *mut u8, tag, size) };
                live.push((block, layout, tag));
            }
        }
        // A steady mix reuses freed blocks: far less than 20,000 allocations' worth.
        assert!(arena.used < 64 * 1024, "used {} bytes", arena.used);
    }

    #[test]
    fn a_freed_block_is_the_next_of_its_class() {
        let mut arena = Arena::new(1 << 16);
        let heap = SizeClasses::new();
        let a = unsafe { heap.alloc(layout(24, 8), |n| arena.grow(n)) };
        let b = unsafe { heap.alloc(layout(100, 4), |n| arena.grow(n)) };
        unsafe { heap.dealloc(a, layout(24, 8)) };
        assert_eq!(unsafe { heap.alloc(layout(32, 8), |n| arena.grow(n)) }, a);
        assert_ne!(unsafe { heap.alloc(layout(24, 8), |n| arena.grow(n)) }, a);
        assert!(SizeClasses::fits(layout(100, 4), layout(128, 4)));
        assert!(!SizeClasses::fits(layout(100, 4), layout(129, 4)));
        unsafe { heap.dealloc(b, layout(100, 4)) };
    }

    #[test]
    fn refuses_what_it_cannot_serve() {
        let mut arena = Arena::new(1 << 16);
        let heap = SizeClasses::new();
        assert!(unsafe { heap.alloc(layout(8, 32), |n| arena.grow(n)) }.is_null());
        assert!(unsafe { heap.alloc(layout(1 << 20, 8), |n| arena.grow(n)) }.is_null());
        // Out of memory once is not the end: smaller blocks still come.
        assert!(!unsafe { heap.alloc(layout(64, 8), |n| arena.grow(n)) }.is_null());
    }

    #[test]
    fn a_region_that_does_not_follow_the_last_starts_a_new_bump() {
        let mut first = Arena::new(8192);
        let mut second = Arena::new(1 << 16);
        let heap = SizeClasses::new();
        let a = unsafe { heap.alloc(layout(4096, 8), |n| first.grow(n)) } as usize;
        let b = unsafe { heap.alloc(layout(4096, 8), |n| second.grow(n)) } as usize;
        let base = second.buffer.as_ptr() as usize;
        assert!(a != 0 && b >= base && b + 4096 <= base + second.buffer.len() * 16);
    }
}
