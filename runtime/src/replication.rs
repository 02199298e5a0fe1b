//! Delta replication of PUBLISHABLE_STRUCTs: the [`DeltaCodec`] trait that generated code
//! implements, the byte-buffer entry points, the `DELTA SEQUENCE` coding, and the helpers that
//! compute what the receiver holds after a value is sent (the sender's mirror).

use crate::codec::{Codec, Encoding};
use crate::collection::Collection;
use crate::delta::{DeltaContext, read_index_gap, write_index_gap};
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::fixed::{FixedPoint, real_of_f32};
use crate::int::bits_required;
use crate::rule::float::numeric_as_f32;
use crate::wire::{Style, WireRead, WireWrite};

/// The writer of encoding `E`.
pub type WriterOf<E> = <<E as Encoding>::Style as Style>::Writer;
/// The reader of encoding `E`.
pub type ReaderOf<'a, E> = <<E as Encoding>::Style as Style>::Reader<'a>;

/// A PUBLISHABLE_STRUCT's delta form in encoding `E`, against a baseline (the state the
/// receiver holds). Generated code implements it; game code calls the generated inherent
/// methods `encode_delta`, `decode_delta`, `to_delta_bytes`, `from_delta_bytes`.
pub trait DeltaCodec<E: Encoding>: Codec<E> {
    /// Writes what changed since `baseline` and returns the mirror: exactly the state the
    /// receiver reconstructs from these bits, which is the sender's next baseline.
    fn encode_delta_to(
        &self,
        baseline: &Self,
        ctx: &DeltaContext,
        w: &mut WriterOf<E>,
    ) -> Result<Self, EncodeError>;

    /// Writes what changed since `baseline` and stores the mirror in `mirror`, reusing the
    /// memory its `Vec`s hold (a sender that keeps two mirrors and swaps them allocates nothing
    /// per tick for elements that stay). `baseline` is never touched; after an error `mirror`
    /// holds some valid value of no meaning, so keep sending against `baseline`.
    ///
    /// The default encodes a new mirror and assigns it; generated code overrides it.
    fn encode_delta_into(
        &self,
        baseline: &Self,
        ctx: &DeltaContext,
        w: &mut WriterOf<E>,
        mirror: &mut Self,
    ) -> Result<(), EncodeError> {
        *mirror = self.encode_delta_to(baseline, ctx, w)?;
        Ok(())
    }

    /// Reads a delta against `baseline` and returns the reconstructed state.
    fn decode_delta_from(
        baseline: &Self,
        ctx: &DeltaContext,
        r: &mut ReaderOf<'_, E>,
    ) -> Result<Self, DecodeError>;

    /// Reads a delta against `baseline` into `state`, reusing the memory its `Vec`s hold (a
    /// receiver that keeps two states and swaps them allocates nothing per tick for elements
    /// that stay). `baseline` is never touched; after an error `state` holds some valid value of
    /// no meaning, so keep `baseline` as the receiver's state.
    ///
    /// The default decodes a new state and assigns it; generated code overrides it.
    fn decode_delta_into(
        baseline: &Self,
        ctx: &DeltaContext,
        r: &mut ReaderOf<'_, E>,
        state: &mut Self,
    ) -> Result<(), DecodeError> {
        *state = Self::decode_delta_from(baseline, ctx, r)?;
        Ok(())
    }

    /// [`DeltaCodec::encode_delta_into`] in the form of a value that another holds (an element
    /// of a `DELTA SEQUENCE`): each segment after a FENCE in an extension with its length, so
    /// that an older reader skips what it does not know and the next element stays in place
    /// (WIRE.md, "Fences and versions"). A struct with no FENCE has one form: the default.
    fn encode_delta_nested_into(
        &self,
        baseline: &Self,
        ctx: &DeltaContext,
        w: &mut WriterOf<E>,
        mirror: &mut Self,
    ) -> Result<(), EncodeError> {
        self.encode_delta_into(baseline, ctx, w, mirror)
    }

    /// [`DeltaCodec::encode_delta_nested_into`] into a new mirror.
    fn encode_delta_nested_to(
        &self,
        baseline: &Self,
        ctx: &DeltaContext,
        w: &mut WriterOf<E>,
    ) -> Result<Self, EncodeError>
    where
        Self: Clone,
    {
        let mut mirror = baseline.clone();
        self.encode_delta_nested_into(baseline, ctx, w, &mut mirror)?;
        Ok(mirror)
    }

    /// Reads what [`DeltaCodec::encode_delta_nested_into`] writes into `state`, skipping the
    /// extensions of a newer writer.
    fn decode_delta_nested_into(
        baseline: &Self,
        ctx: &DeltaContext,
        r: &mut ReaderOf<'_, E>,
        state: &mut Self,
    ) -> Result<(), DecodeError> {
        Self::decode_delta_into(baseline, ctx, r, state)
    }

    /// [`DeltaCodec::decode_delta_nested_into`] into a new state.
    fn decode_delta_nested_from(
        baseline: &Self,
        ctx: &DeltaContext,
        r: &mut ReaderOf<'_, E>,
    ) -> Result<Self, DecodeError>
    where
        Self: Clone,
    {
        let mut state = baseline.clone();
        Self::decode_delta_nested_into(baseline, ctx, r, &mut state)?;
        Ok(state)
    }
}

/// Implements [`DeltaCodec<$to>`](DeltaCodec) for `$ty` by forwarding every method to its
/// `DeltaCodec<$from>`, as [`same_codec!`](crate::same_codec) does for [`Codec`] (which it
/// needs too). Adding a method to [`DeltaCodec`] means adding it here.
#[macro_export]
macro_rules! same_delta_codec {
    ($ty:ty, $to:ty => $from:ty) => {
        #[allow(dead_code)]
        impl $crate::DeltaCodec<$to> for $ty {
            #[inline]
            fn encode_delta_to(
                &self,
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                w: &mut $crate::WriterOf<$to>,
            ) -> ::core::result::Result<Self, $crate::EncodeError> {
                <Self as $crate::DeltaCodec<$from>>::encode_delta_to(self, baseline, ctx, w)
            }
            #[inline]
            fn encode_delta_into(
                &self,
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                w: &mut $crate::WriterOf<$to>,
                mirror: &mut Self,
            ) -> ::core::result::Result<(), $crate::EncodeError> {
                <Self as $crate::DeltaCodec<$from>>::encode_delta_into(
                    self, baseline, ctx, w, mirror,
                )
            }
            #[inline]
            fn decode_delta_from(
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                r: &mut $crate::ReaderOf<'_, $to>,
            ) -> ::core::result::Result<Self, $crate::DecodeError> {
                <Self as $crate::DeltaCodec<$from>>::decode_delta_from(baseline, ctx, r)
            }
            #[inline]
            fn decode_delta_into(
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                r: &mut $crate::ReaderOf<'_, $to>,
                state: &mut Self,
            ) -> ::core::result::Result<(), $crate::DecodeError> {
                <Self as $crate::DeltaCodec<$from>>::decode_delta_into(baseline, ctx, r, state)
            }
            #[inline]
            fn encode_delta_nested_into(
                &self,
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                w: &mut $crate::WriterOf<$to>,
                mirror: &mut Self,
            ) -> ::core::result::Result<(), $crate::EncodeError> {
                <Self as $crate::DeltaCodec<$from>>::encode_delta_nested_into(
                    self, baseline, ctx, w, mirror,
                )
            }
            #[inline]
            fn encode_delta_nested_to(
                &self,
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                w: &mut $crate::WriterOf<$to>,
            ) -> ::core::result::Result<Self, $crate::EncodeError>
            where
                Self: ::core::clone::Clone,
            {
                <Self as $crate::DeltaCodec<$from>>::encode_delta_nested_to(self, baseline, ctx, w)
            }
            #[inline]
            fn decode_delta_nested_into(
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                r: &mut $crate::ReaderOf<'_, $to>,
                state: &mut Self,
            ) -> ::core::result::Result<(), $crate::DecodeError> {
                <Self as $crate::DeltaCodec<$from>>::decode_delta_nested_into(
                    baseline, ctx, r, state,
                )
            }
            #[inline]
            fn decode_delta_nested_from(
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                r: &mut $crate::ReaderOf<'_, $to>,
            ) -> ::core::result::Result<Self, $crate::DecodeError>
            where
                Self: ::core::clone::Clone,
            {
                <Self as $crate::DeltaCodec<$from>>::decode_delta_nested_from(baseline, ctx, r)
            }
        }
    };
}

/// Encodes `value` against `baseline` in encoding `E` into a new buffer (padded to a byte).
/// The mirror is dropped: use [`DeltaCodec::encode_delta_to`] to keep it.
pub fn to_delta_bytes<E: Encoding, T: DeltaCodec<E>>(
    value: &T,
    baseline: &T,
    ctx: &DeltaContext,
) -> Result<Vec<u8>, EncodeError> {
    let mut w = WriterOf::<E>::default();
    value.encode_delta_to(baseline, ctx, &mut w)?;
    Ok(w.into_bytes())
}

/// Decodes a delta of encoding `E` against `baseline` from `bytes`.
pub fn from_delta_bytes<E: Encoding, T: DeltaCodec<E>>(
    baseline: &T,
    ctx: &DeltaContext,
    bytes: &[u8],
) -> Result<T, DecodeError> {
    let mut r = ReaderOf::<'_, E>::from_bytes(bytes);
    T::decode_delta_from(baseline, ctx, &mut r)
}

/// The value the receiver holds after `value` is sent with `fp`: its step's value.
///
/// ```
/// use idlc_runtime::{FixedPoint, sent_fixed_point};
/// let fp = FixedPoint::new(0.0, 10.0, 0.5).unwrap();
/// assert_eq!(sent_fixed_point(&fp, 3.3), Ok(3.5));
/// assert!(sent_fixed_point(&fp, 11.0).is_err());
/// ```
#[inline]
pub fn sent_fixed_point(fp: &FixedPoint, value: f64) -> Result<f64, EncodeError> {
    fp.round_trip(value)
        .map_err(|kind| EncodeError::new(kind, 0))
}

/// The value an `f64` receiver holds after a real of a `NUMERIC` range is sent as FLOAT32: the
/// real that the `f32` [`check_numeric_f32`](crate::check_numeric_f32) writes stands for.
///
/// ```
/// use idlc_runtime::sent_float32;
/// assert_eq!(sent_float32(0.1, 0.0, 0.1, true, true), Ok(0.1));
/// assert_eq!(sent_float32(0.3, 0.0, 1.0, true, true), Ok(f64::from(0.3f32)));
/// assert!(sent_float32(2.0, 0.0, 1.0, true, true).is_err());
/// ```
#[inline]
pub fn sent_float32(
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, EncodeError> {
    numeric_as_f32(value, min, max, min_inclusive, max_inclusive)
        .map(|single| real_of_f32(single, min, max))
        .map_err(|kind| EncodeError::new(kind, 0))
}

/// The step `value` is sent as, or the error [`sent_fixed_point`] gives: what a delta encoder
/// computes once, for its comparison with the baseline (`fp.dequantize(q)`) and for the write.
///
/// ```
/// use idlc_runtime::{FixedPoint, quantize_fixed_point};
/// let fp = FixedPoint::new(0.0, 10.0, 0.5).unwrap();
/// assert_eq!(quantize_fixed_point(&fp, 3.3), Ok(7));
/// assert!(quantize_fixed_point(&fp, 11.0).is_err());
/// ```
#[inline]
pub fn quantize_fixed_point(fp: &FixedPoint, value: f64) -> Result<u64, EncodeError> {
    fp.quantize(value).map_err(|kind| EncodeError::new(kind, 0))
}

/// The error [`sent_fixed_point`] gives for `value`, without computing its step: what
/// `Codec::sent_equals` checks of the fields after the first difference.
///
/// ```
/// use idlc_runtime::{FixedPoint, check_fixed_point};
/// let fp = FixedPoint::new(0.0, 10.0, 0.5).unwrap();
/// assert_eq!(check_fixed_point(&fp, 3.3), Ok(()));
/// assert!(check_fixed_point(&fp, 11.0).is_err());
/// ```
#[inline]
pub fn check_fixed_point(fp: &FixedPoint, value: f64) -> Result<(), EncodeError> {
    fp.check(value).map_err(|kind| EncodeError::new(kind, 0))
}

/// A collection with `sent` applied to every element.
///
/// ```
/// use idlc_runtime::sent_collection;
/// let doubled: Vec<u32> = sent_collection(&vec![1u32, 2], |x| Ok(x * 2)).unwrap();
/// assert_eq!(doubled, vec![2, 4]);
/// ```
pub fn sent_collection<C, F>(collection: &C, mut sent: F) -> Result<C, EncodeError>
where
    C: Collection + Default,
    F: FnMut(&C::Item) -> Result<C::Item, EncodeError>,
{
    let mut out = C::with_capacity(collection.len());
    for item in collection.iter() {
        out.push(sent(item)?);
    }
    Ok(out)
}

/// An array with `sent` applied to every element.
///
/// ```
/// use idlc_runtime::sent_array;
/// assert_eq!(sent_array(&[1u8, 2, 3], |x| Ok(x + 1)), Ok([2, 3, 4]));
/// ```
pub fn sent_array<T: Clone, const N: usize, F>(
    array: &[T; N],
    mut sent: F,
) -> Result<[T; N], EncodeError>
where
    F: FnMut(&T) -> Result<T, EncodeError>,
{
    let mut error = None;
    let out = core::array::from_fn(|i| match sent(&array[i]) {
        Ok(value) => value,
        Err(e) => {
            error.get_or_insert(e);
            array[i].clone()
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Whether a collection as sent equals `others`, element by element with `same(item, other)`
/// (an element's "as sent equals"), without building the sent collection. Like
/// [`sent_collection`] it fails on the first element that cannot be sent, so every element is
/// checked even after a difference: one past the end of `others` is checked against itself.
///
/// ```
/// use idlc_runtime::{EncodeError, EncodeErrorKind, sent_elements_eq};
/// let halves = |x: &u32, y: &u32| if *x > 9 {
///     Err(EncodeError::new(EncodeErrorKind::ValueOutOfRange, 0))
/// } else {
///     Ok(x / 2 == *y)
/// };
/// assert_eq!(sent_elements_eq([4u32, 6].iter(), [2u32, 3].iter(), halves), Ok(true));
/// assert_eq!(sent_elements_eq([4u32].iter(), [2u32, 3].iter(), halves), Ok(false));
/// assert!(sent_elements_eq([4u32, 10].iter(), [0u32].iter(), halves).is_err());
/// ```
pub fn sent_elements_eq<'a, T, F>(
    items: impl Iterator<Item = &'a T>,
    mut others: impl Iterator<Item = &'a T>,
    mut same: F,
) -> Result<bool, EncodeError>
where
    T: 'a,
    F: FnMut(&T, &T) -> Result<bool, EncodeError>,
{
    let mut equal = true;
    for item in items {
        match others.next() {
            Some(other) => equal &= same(item, other)?,
            None => {
                same(item, item)?;
                equal = false;
            }
        }
    }
    Ok(equal && others.next().is_none())
}

/// Writes a `DELTA SEQUENCE` (WIRE_FORMAT.md section 5) and returns the receiver's sequence.
///
/// An element is listed when it is new or when `same(element, baseline's element)` says that
/// what the receiver would hold after it is sent differs from the baseline's element; `write_item` writes a listed element
/// (against the baseline's element when there is one) and returns what the receiver holds.
///
/// ```
/// use idlc_runtime::{BitReader, BitWriter, WireRead, WireWrite, read_delta_sequence, write_delta_sequence};
/// let (base, now) = (vec![10u64, 20, 30, 40], vec![10u64, 21, 30, 40, 50]);
/// let mut w = BitWriter::new();
/// let mirror = write_delta_sequence(
///     &mut w, &base, &now,
///     |w, n| w.write_count(n, Some(15)),
///     |x, base| Ok(x == base),
///     |w, &x, _| w.write_bits(x, 8).map(|()| x),
/// ).unwrap();
/// assert_eq!(mirror, now);
/// let bytes = w.into_bytes();
/// assert_eq!(bytes, [0x4B, 0x40, 0x54, 0xC8, 0x00]);
/// let back: Option<Vec<u64>> = read_delta_sequence(
///     &mut BitReader::new(&bytes), &base, |r| r.read_length(Some(15)), 8, |r, _| r.read_bits(8),
/// ).unwrap();
/// assert_eq!(back, Some(now));
/// ```
pub fn write_delta_sequence<W, C, N, S, F>(
    w: &mut W,
    baseline: &C,
    current: &C,
    write_count: N,
    same: S,
    mut write_item: F,
) -> Result<C, EncodeError>
where
    W: WireWrite,
    C: Collection + Default,
    C::Item: Clone,
    N: FnOnce(&mut W, u64) -> Result<(), EncodeError>,
    S: FnMut(&C::Item, &C::Item) -> Result<bool, EncodeError>,
    F: FnMut(&mut W, &C::Item, Option<&C::Item>) -> Result<C::Item, EncodeError>,
{
    let listed = write_listed(w, baseline.iter(), current.iter(), write_count, same)?;
    let Some(listed) = listed else {
        let mut mirror = C::with_capacity(baseline.len());
        for item in baseline.iter() {
            mirror.push(item.clone());
        }
        return Ok(mirror);
    };
    let mut mirror = C::with_capacity(current.len());
    let mut base_iter = baseline.iter();
    let mut listed_iter = listed.iter().peekable();
    for (i, item) in current.iter().enumerate() {
        let base = base_iter.next();
        if listed_iter.next_if(|&&index| index == i as u64).is_some() {
            mirror.push(write_item(w, item, base)?);
        } else if let Some(base) = base {
            mirror.push(base.clone());
        }
    }
    Ok(mirror)
}

/// [`write_delta_sequence`] of a `Vec` into the `Vec` `mirror` holds, reusing its memory: the
/// elements not listed are `clone_from` the baseline's (all of them, by `clone_into`, when
/// nothing changed); a listed one is written by `write_item(w, element, baseline's element,
/// slot)` into its slot of the mirror (a slot past the mirror's end is first a clone of the
/// element). After an error `mirror` holds some valid sequence of no meaning.
///
/// ```
/// use idlc_runtime::{BitWriter, WireWrite, write_delta_sequence_into};
/// let (base, now) = (vec![10u64, 20, 30, 40], vec![10u64, 21, 30, 40, 50]);
/// let mut w = BitWriter::new();
/// let mut mirror = vec![7u64; 9]; // whatever an earlier tick left
/// write_delta_sequence_into(
///     &mut w, &base, &now, &mut mirror,
///     |w, n| w.write_count(n, Some(15)),
///     |x, base| Ok(x == base),
///     |w, &x, _, slot| { *slot = x; w.write_bits(x, 8) },
/// ).unwrap();
/// assert_eq!(mirror, now);
/// assert_eq!(w.into_bytes(), [0x4B, 0x40, 0x54, 0xC8, 0x00]); // as write_delta_sequence
/// ```
pub fn write_delta_sequence_into<W, T, N, S, F>(
    w: &mut W,
    baseline: &[T],
    current: &[T],
    mirror: &mut Vec<T>,
    write_count: N,
    same: S,
    mut write_item: F,
) -> Result<(), EncodeError>
where
    W: WireWrite,
    T: Clone,
    N: FnOnce(&mut W, u64) -> Result<(), EncodeError>,
    S: FnMut(&T, &T) -> Result<bool, EncodeError>,
    F: FnMut(&mut W, &T, Option<&T>, &mut T) -> Result<(), EncodeError>,
{
    let listed = write_listed(w, baseline.iter(), current.iter(), write_count, same)?;
    let Some(listed) = listed else {
        baseline.clone_into(mirror);
        return Ok(());
    };
    mirror.truncate(current.len());
    let mut listed_iter = listed.iter().peekable();
    for (i, item) in current.iter().enumerate() {
        let base = baseline.get(i);
        if listed_iter.next_if(|&&index| index == i as u64).is_some() {
            if i == mirror.len() {
                mirror.push(item.clone());
            }
            write_item(w, item, base, &mut mirror[i])?;
        } else if let Some(base) = base {
            // Not listed: kept from the baseline (write_listed lists every new element).
            match mirror.get_mut(i) {
                Some(slot) => slot.clone_from(base),
                None => mirror.push(base.clone()),
            }
        }
    }
    Ok(())
}

/// The head of a `DELTA SEQUENCE`: its changed-bit, and when set the count, the number of listed
/// elements and their index gaps. Returns the listed indices, or `None` when the sequence equals
/// the baseline (as sent) and only the changed-bit 0 was written.
fn write_listed<'a, W, T, N, S>(
    w: &mut W,
    mut baseline: impl Iterator<Item = &'a T>,
    current: impl Iterator<Item = &'a T>,
    write_count: N,
    mut same: S,
) -> Result<Option<Vec<u64>>, EncodeError>
where
    W: WireWrite,
    T: 'a,
    N: FnOnce(&mut W, u64) -> Result<(), EncodeError>,
    S: FnMut(&T, &T) -> Result<bool, EncodeError>,
{
    let mut listed: Vec<u64> = Vec::new();
    let mut current_len = 0;
    for (i, item) in current.enumerate() {
        current_len = i + 1;
        let unchanged = match baseline.next() {
            Some(base) => same(item, base)?,
            None => false,
        };
        if !unchanged {
            listed.push(i as u64);
        }
    }
    let count = current_len as u64;
    // The baseline's elements past the current ones are removed: none left means none removed.
    if listed.is_empty() && baseline.next().is_none() {
        w.write_bool(false)?;
        return Ok(None);
    }
    w.write_bool(true)?;
    write_count(w, count)?;
    w.write_bits(listed.len() as u64, bits_required(0, count))?;
    let mut next = 0u64;
    for &index in &listed {
        write_index_gap(w, index - next)?;
        next = index + 1;
    }
    Ok(Some(listed))
}

/// Reads a `DELTA SEQUENCE` against `baseline`: `None` when its changed-bit is 0 (the sequence
/// equals the baseline), else the new sequence. `read_count` reads the count with the field's
/// length rule; `read_item` reads a listed element, given the baseline's element at its index
/// when there is one. Everything is checked before anything is reserved (WIRE_FORMAT.md).
pub fn read_delta_sequence<'a, R, C, N, F>(
    r: &mut R,
    baseline: &C,
    read_count: N,
    min_element_bits: u64,
    mut read_item: F,
) -> Result<Option<C>, DecodeError>
where
    R: WireRead<'a>,
    C: Collection + Default,
    C::Item: Clone,
    N: FnOnce(&mut R) -> Result<u64, DecodeError>,
    F: FnMut(&mut R, Option<&C::Item>) -> Result<C::Item, DecodeError>,
{
    let Some(head) = read_listed(r, baseline.len(), read_count, min_element_bits)? else {
        return Ok(None);
    };
    let (start, count, listed) = (head.start, head.count, head.listed);
    let mut out = C::with_capacity(count);
    let mut base_iter = baseline.iter();
    let mut listed_iter = listed.iter().peekable();
    for i in 0..count {
        let base = base_iter.next();
        let item = if listed_iter.next_if(|&&index| index == i as u64).is_some() {
            read_item(r, base)?
        } else {
            match base {
                Some(b) => b.clone(),
                // read_listed lists every element past the baseline: not reached.
                None => return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start)),
            }
        };
        out.push(item);
    }
    Ok(Some(out))
}

/// [`read_delta_sequence`] of a `Vec` into the `Vec` `state` holds, reusing its memory: an
/// element not listed (or every element, when the changed-bit is 0) is `clone_from` the
/// baseline's; a listed one with a baseline element is read by `read_item(r, baseline's
/// element, slot)` into its slot (a slot past the end of `state` is first a clone of the
/// baseline's element); a new one, past the baseline, is read by `read_new` and appended. The
/// same checks as [`read_delta_sequence`], before anything is reserved; after an error `state`
/// holds some valid sequence of no meaning.
///
/// ```
/// use idlc_runtime::{BitReader, WireRead, read_delta_sequence_into};
/// let base = vec![10u64, 20, 30, 40];
/// let bytes = [0x4B, 0x40, 0x54, 0xC8, 0x00]; // 20 became 21, 50 appended
/// let mut state = vec![7u64; 9]; // whatever an earlier tick left
/// read_delta_sequence_into(
///     &mut BitReader::new(&bytes), &base, &mut state, |r| r.read_length(Some(15)), 8,
///     |r, _, slot| { *slot = r.read_bits(8)?; Ok(()) },
///     |r| r.read_bits(8),
/// ).unwrap();
/// assert_eq!(state, [10, 21, 30, 40, 50]);
/// ```
pub fn read_delta_sequence_into<'a, R, T, N, F, G>(
    r: &mut R,
    baseline: &[T],
    state: &mut Vec<T>,
    read_count: N,
    min_element_bits: u64,
    mut read_item: F,
    mut read_new: G,
) -> Result<(), DecodeError>
where
    R: WireRead<'a>,
    T: Clone,
    N: FnOnce(&mut R) -> Result<u64, DecodeError>,
    F: FnMut(&mut R, &T, &mut T) -> Result<(), DecodeError>,
    G: FnMut(&mut R) -> Result<T, DecodeError>,
{
    let Some(head) = read_listed(r, baseline.len(), read_count, min_element_bits)? else {
        baseline.clone_into(state);
        return Ok(());
    };
    let (start, count, listed) = (head.start, head.count, head.listed);
    state.truncate(count);
    state.reserve(count - state.len());
    let mut listed_iter = listed.iter().peekable();
    for i in 0..count {
        let is_listed = listed_iter.next_if(|&&index| index == i as u64).is_some();
        let Some(base) = baseline.get(i) else {
            if !is_listed {
                // read_listed lists every element past the baseline: not reached.
                return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start));
            }
            let item = read_new(r)?;
            if i < state.len() {
                state[i] = item;
            } else {
                state.push(item);
            }
            continue;
        };
        if i == state.len() {
            state.push(base.clone());
        } else if !is_listed {
            state[i].clone_from(base);
        }
        if is_listed {
            read_item(r, base, &mut state[i])?;
        }
    }
    Ok(())
}

/// The head of a `DELTA SEQUENCE` read and checked: the count and the listed indices.
struct Listed {
    /// The bit after the changed-bit, where errors of the head are reported.
    start: u64,
    count: usize,
    listed: Vec<u64>,
}

/// Reads the head of a `DELTA SEQUENCE` against a baseline of `base_len` elements: `None` when
/// its changed-bit is 0. The listed indices are in range and increasing, exactly the elements
/// past the baseline are among them, and their count fits in the bits left.
fn read_listed<'a, R, N>(
    r: &mut R,
    base_len: usize,
    read_count: N,
    min_element_bits: u64,
) -> Result<Option<Listed>, DecodeError>
where
    R: WireRead<'a>,
    N: FnOnce(&mut R) -> Result<u64, DecodeError>,
{
    if !r.read_bool()? {
        return Ok(None);
    }
    let start = r.bits_read();
    let count = read_count(r)?;
    let listed_count = r.read_uint_ranged(0, count)?;
    let base_len = base_len as u64;
    let new_elements = count.saturating_sub(base_len);
    let fits = listed_count
        .checked_mul(min_element_bits.saturating_add(1))
        .is_some_and(|need| need <= r.bits_remaining());
    if !fits || new_elements > listed_count {
        return Err(DecodeError::new(DecodeErrorKind::LengthOverBound, start));
    }
    let Ok(listed_len) = usize::try_from(listed_count) else {
        return Err(DecodeError::new(DecodeErrorKind::LengthOverBound, start));
    };
    let mut listed: Vec<u64> = Vec::with_capacity(listed_len);
    let mut next = 0u64;
    let mut listed_new = 0u64;
    for _ in 0..listed_len {
        let at = r.bits_read();
        let gap = read_index_gap(r)?;
        let index = match next.checked_add(gap) {
            Some(index) if index < count => index,
            _ => return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, at)),
        };
        if index >= base_len {
            listed_new += 1;
        }
        listed.push(index);
        next = index + 1;
    }
    if listed_new != new_elements {
        return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start));
    }
    // Every element kept from the baseline exists, and every new one is listed: the count is
    // at most the baseline's length plus the listed elements, both bounded by the input.
    let Ok(count) = usize::try_from(count) else {
        return Err(DecodeError::new(DecodeErrorKind::LengthOverBound, start));
    };
    Ok(Some(Listed {
        start,
        count,
        listed,
    }))
}
