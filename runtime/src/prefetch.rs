//! Prefetching the memory that the elements of a sequence own, a batch ahead of the encoder.
//!
//! A sequence of structs that hold `Vec`s (mk48's Contacts, each with its reloads and turret
//! angles) sends the encoder to a new heap block for every element. Encoded one by one, each
//! block is a cache miss that the encoder waits for: the work between two elements fills the
//! CPU's reorder window before the next miss starts. [`iter_prefetching`] first walks a batch of
//! elements asking the CPU to load their blocks ([`Codec::prefetch_owned`]), so that the misses
//! of a whole batch overlap; then the encoder meets them in cache. docs/PERFORMANCE.md has the
//! measurements: mk48 encodes about a fifth faster when its data is not in cache, and 3 to 10%
//! slower when it is (the pass over each batch).

use core::marker::PhantomData;

use crate::codec::{Codec, Encoding};
use crate::collection::Collection;

/// Elements announced at a time by [`iter_prefetching`]: 64 elements of two blocks each are 128
/// cache lines (8 KiB), a sixth of a 48 KiB L1 data cache. On mk48 (20 to 40 Contacts per
/// update) 64 encoded faster than 32, 16 or 8 (docs/PERFORMANCE.md).
pub const PREFETCH_BATCH: usize = 64;

/// Asks the CPU to start loading the cache line that holds the start of `value` (a hint: nothing
/// is read, and nothing happens on targets other than x86_64).
///
/// ```
/// let items = vec![1u16, 2, 3];
/// idlc_runtime::prefetch(items.as_slice());
/// ```
#[inline(always)]
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

/// The elements of `items` in order, like [`Collection::iter`]; before yielding each batch of
/// [`PREFETCH_BATCH`] elements it calls [`Codec::prefetch_owned`] on every one of them. Generated
/// encoders iterate this way over a sequence of structs that own memory.
///
/// ```
/// use idlc_runtime::{iter_prefetching, BitStream, BitReader, BitWriter, Codec, DecodeError, EncodeError, Encoding};
/// # #[derive(Debug, Clone, Copy, Default)] struct E;
/// # impl Encoding for E { const NAME: &'static str = "E"; type Style = BitStream; }
/// struct Tags(Vec<u8>);
/// impl Codec<E> for Tags {
///     # fn encode_to(&self, _: &mut BitWriter) -> Result<(), EncodeError> { Ok(()) }
///     # fn decode_from(_: &mut BitReader<'_>) -> Result<Self, DecodeError> { Ok(Tags(Vec::new())) }
///     fn prefetch_owned(&self) {
///         idlc_runtime::Collection::prefetch(&self.0);
///     }
/// }
/// let all: Vec<Tags> = (0..40).map(|i| Tags(vec![i])).collect();
/// let firsts: Vec<u8> = iter_prefetching::<E, _>(&all).map(|t| t.0[0]).collect();
/// assert_eq!(firsts, (0..40).collect::<Vec<u8>>());
/// ```
#[inline]
pub fn iter_prefetching<E, C>(items: &C) -> Prefetching<'_, E, C>
where
    E: Encoding,
    C: Collection,
    C::Item: Codec<E>,
{
    Prefetching {
        items: items.iter(),
        ahead: items.iter(),
        left_in_batch: 0,
        encoding: PhantomData,
    }
}

/// The iterator of [`iter_prefetching`].
pub struct Prefetching<'a, E, C: Collection + 'a> {
    items: C::Iter<'a>,
    /// The elements not yet prefetched (at most one batch ahead of `items`).
    ahead: C::Iter<'a>,
    /// Elements `items` yields before the next batch is prefetched.
    left_in_batch: usize,
    encoding: PhantomData<E>,
}

impl<'a, E, C> Iterator for Prefetching<'a, E, C>
where
    E: Encoding,
    C: Collection + 'a,
    C::Item: Codec<E>,
{
    type Item = &'a C::Item;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left_in_batch == 0 {
            for next in self.ahead.by_ref().take(PREFETCH_BATCH) {
                Codec::<E>::prefetch_owned(next);
            }
            self.left_in_batch = PREFETCH_BATCH;
        }
        self.left_in_batch -= 1;
        self.items.next()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::{BitReader, BitStream, BitWriter, DecodeError, EncodeError};

    #[derive(Debug, Clone, Copy, Default)]
    struct E;
    impl Encoding for E {
        const NAME: &'static str = "E";
        type Style = BitStream;
    }

    thread_local! {
        /// One past the highest element index prefetched so far.
        static SEEN: Cell<usize> = const { Cell::new(0) };
    }

    struct Counted(usize);
    impl Codec<E> for Counted {
        fn encode_to(&self, _: &mut BitWriter) -> Result<(), EncodeError> {
            Ok(())
        }
        fn decode_from(_: &mut BitReader<'_>) -> Result<Self, DecodeError> {
            Ok(Counted(0))
        }
        fn prefetch_owned(&self) {
            SEEN.set(SEEN.get().max(self.0 + 1));
        }
    }

    #[test]
    fn every_element_is_yielded_in_order_after_its_batch_was_prefetched() {
        for len in [
            0,
            1,
            PREFETCH_BATCH - 1,
            PREFETCH_BATCH,
            2 * PREFETCH_BATCH + 5,
        ] {
            SEEN.set(0);
            let items: Vec<Counted> = (0..len).map(Counted).collect();
            let mut yielded = 0;
            for item in iter_prefetching::<E, _>(&items) {
                assert_eq!(item.0, yielded);
                let batch_end = (yielded / PREFETCH_BATCH + 1) * PREFETCH_BATCH;
                assert_eq!(
                    SEEN.get(),
                    batch_end.min(len),
                    "at element {yielded} of {len}"
                );
                yielded += 1;
            }
            assert_eq!(yielded, len);
            assert_eq!(SEEN.get(), len);
        }
    }
}
