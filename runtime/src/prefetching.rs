//! [`iter_prefetching`]: a sequence's elements with the memory each owns prefetched a batch
//! ahead of the encoder ([`crate::prefetch`] has why and the measurements).

use core::marker::PhantomData;

use crate::codec::{Codec, Encoding};
use crate::collection::Collection;
use crate::prefetch::PREFETCH_BATCH;

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
