//! Prefetching the memory that the elements of a sequence own, a batch ahead of the encoder.
//!
//! A sequence of structs that hold `Vec`s (mk48's Contacts, each with its reloads and turret
//! angles) sends the encoder to a new heap block for every element. Encoded one by one, each
//! block is a cache miss that the encoder waits for: the work between two elements fills the
//! CPU's reorder window before the next miss starts. [`crate::iter_prefetching`] (in
//! prefetching.rs) first walks a batch of elements asking the CPU to load their blocks
//! ([`crate::Codec::prefetch_owned`]), so that the misses of a whole batch overlap; then the
//! encoder meets them in cache. This module holds the hint itself, the runtime's one `unsafe`
//! block. docs/PERFORMANCE.md has the measurements: mk48 encodes about a fifth faster when its
//! data is not in cache, and 3 to 10% slower when it is (the pass over each batch).

/// Elements announced at a time by [`crate::iter_prefetching`]: 64 elements of two blocks each
/// are 128 cache lines (8 KiB), a sixth of a 48 KiB L1 data cache. On mk48 (20 to 40 Contacts per
/// update) 64 encoded faster than 32, 16 or 8 (docs/PERFORMANCE.md).
pub const PREFETCH_BATCH: usize = 64;

/// Asks the CPU to start loading the cache line that holds the start of `value` (a hint: nothing
/// is read, and nothing happens on targets other than x86_64).
///
/// ```
/// let items = vec![1u16, 2, 3];
/// idlc_runtime::prefetch(items.as_slice());
/// ```
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn prefetch<T: ?Sized>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` is `unsafe` only because it needs SSE, which every x86_64 CPU has
    // (it is in the target's baseline). PREFETCHT0 is a hint: it never faults and does not
    // change memory or registers, and `value` is a live reference anyway.
    #[allow(unsafe_code)]
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (value as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
