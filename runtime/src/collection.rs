//! The collection trait behind SEQUENCE fields, and sequence / array helpers.
//!
//! A Mapping file may map a SEQUENCE to any type implementing [`Collection`] (length, iterate,
//! reserve, push); `Vec` and `VecDeque` implement it here.

use std::collections::VecDeque;

use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::wire::{WireRead, WireWrite};

/// What generated code needs of a SEQUENCE's Rust type: length, iteration in order, reserve and
/// push. Implement it (with `Default`) to use your own container.
///
/// ```
/// use idlc_runtime::Collection;
///
/// /// A container that keeps at most 4 items inline (a toy small-vector).
/// #[derive(Default)]
/// struct Small { items: Vec<u16> }
///
/// impl Collection for Small {
///     type Item = u16;
///     type Iter<'a> = std::slice::Iter<'a, u16>;
///     fn len(&self) -> usize { self.items.len() }
///     fn iter(&self) -> Self::Iter<'_> { self.items.iter() }
///     fn reserve(&mut self, additional: usize) { self.items.reserve(additional.min(4)) }
///     fn push(&mut self, item: u16) { self.items.push(item) }
/// }
///
/// let mut s = Small::default();
/// Collection::push(&mut s, 3);
/// assert_eq!(Collection::len(&s), 1);
/// ```
pub trait Collection {
    /// The element type.
    type Item;
    /// Iterator over the elements, in order.
    type Iter<'a>: Iterator<Item = &'a Self::Item>
    where
        Self: 'a;

    /// Number of elements.
    ///
    /// ```
    /// use idlc_runtime::Collection;
    /// assert_eq!(Collection::len(&vec![1, 2]), 2);
    /// ```
    fn len(&self) -> usize;

    /// Whether there is no element.
    ///
    /// ```
    /// use idlc_runtime::Collection;
    /// assert!(Collection::is_empty(&Vec::<u8>::new()));
    /// ```
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements, in order.
    ///
    /// ```
    /// use idlc_runtime::Collection;
    /// let v = vec![1, 2];
    /// assert_eq!(Collection::iter(&v).sum::<i32>(), 3);
    /// ```
    fn iter(&self) -> Self::Iter<'_>;

    /// Makes room for `additional` more elements (a hint; called once, after the count has been
    /// checked against the input).
    ///
    /// ```
    /// use idlc_runtime::Collection;
    /// let mut v: Vec<u8> = Vec::new();
    /// Collection::reserve(&mut v, 10);
    /// assert!(v.capacity() >= 10);
    /// ```
    fn reserve(&mut self, additional: usize);

    /// An empty collection with room for `capacity` elements (by default [`Default`] then
    /// [`Collection::reserve`]; `Vec` allocates once, without the growth path). Called once per
    /// sequence read, after the count has been checked against the input.
    ///
    /// ```
    /// use idlc_runtime::Collection;
    /// let v: Vec<u8> = Collection::with_capacity(10);
    /// assert!(v.is_empty() && v.capacity() >= 10);
    /// ```
    #[inline]
    fn with_capacity(capacity: usize) -> Self
    where
        Self: Default + Sized,
    {
        let mut out = Self::default();
        out.reserve(capacity);
        out
    }

    /// Appends an element.
    ///
    /// ```
    /// use idlc_runtime::Collection;
    /// let mut v = std::collections::VecDeque::new();
    /// Collection::push(&mut v, 'x');
    /// assert_eq!(v.back(), Some(&'x'));
    /// ```
    fn push(&mut self, item: Self::Item);

    /// Appends every element of `items` (by default one [`Collection::push`] each; `Vec`
    /// extends in one go).
    ///
    /// ```
    /// use idlc_runtime::Collection;
    /// let mut v = vec![1];
    /// Collection::extend_from(&mut v, [2, 3]);
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    #[inline]
    fn extend_from<I: IntoIterator<Item = Self::Item>>(&mut self, items: I)
    where
        Self: Sized,
    {
        for item in items {
            self.push(item);
        }
    }

    /// Asks the CPU to start loading the elements' memory ([`crate::prefetch`] of the first
    /// ones), a hint that an encoder gives a batch of elements ahead (see
    /// [`crate::iter_prefetching`]). By default nothing; `Vec` and `VecDeque` prefetch.
    ///
    /// ```
    /// use idlc_runtime::Collection;
    /// Collection::prefetch(&vec![1u8, 2]);
    /// ```
    #[inline]
    fn prefetch(&self) {}
}

impl<T> Collection for Vec<T> {
    type Item = T;
    type Iter<'a>
        = core::slice::Iter<'a, T>
    where
        T: 'a;

    #[inline]
    fn len(&self) -> usize {
        Vec::len(self)
    }

    #[inline]
    fn iter(&self) -> Self::Iter<'_> {
        self.as_slice().iter()
    }

    #[inline]
    fn reserve(&mut self, additional: usize) {
        Vec::reserve(self, additional);
    }

    #[inline]
    fn with_capacity(capacity: usize) -> Self {
        Vec::with_capacity(capacity)
    }

    #[inline]
    fn push(&mut self, item: T) {
        Vec::push(self, item);
    }

    #[inline]
    fn extend_from<I: IntoIterator<Item = T>>(&mut self, items: I) {
        Extend::extend(self, items);
    }

    #[inline]
    fn prefetch(&self) {
        crate::prefetch(self.as_slice());
    }
}

impl<T> Collection for VecDeque<T> {
    type Item = T;
    type Iter<'a>
        = std::collections::vec_deque::Iter<'a, T>
    where
        T: 'a;

    #[inline]
    fn len(&self) -> usize {
        VecDeque::len(self)
    }

    #[inline]
    fn iter(&self) -> Self::Iter<'_> {
        VecDeque::iter(self)
    }

    #[inline]
    fn reserve(&mut self, additional: usize) {
        VecDeque::reserve(self, additional);
    }

    #[inline]
    fn push(&mut self, item: T) {
        self.push_back(item);
    }

    #[inline]
    fn prefetch(&self) {
        crate::prefetch(self.as_slices().0);
    }
}

/// Writes a SEQUENCE: the count (see [`WireWrite::write_count`]), then every element with
/// `write_item`.
///
/// ```
/// use idlc_runtime::{write_sequence, BitWriter, WireWrite};
/// let mut w = BitWriter::new();
/// write_sequence(&mut w, &vec![1u64, 2, 3], Some(7), |w, &x| w.write_bits(x, 2)).unwrap();
/// assert_eq!(w.bits_written(), 3 + 3 * 2);
/// ```
pub fn write_sequence<W, C, F>(
    w: &mut W,
    items: &C,
    max: Option<u64>,
    mut write_item: F,
) -> Result<(), EncodeError>
where
    W: WireWrite,
    C: Collection + ?Sized,
    F: FnMut(&mut W, &C::Item) -> Result<(), EncodeError>,
{
    w.write_count(items.len() as u64, max)?;
    for item in items.iter() {
        write_item(w, item)?;
    }
    Ok(())
}

/// Reads a SEQUENCE into a new collection: the count is checked by [`WireRead::read_count`]
/// (bound, and `count * min_element_bits <= bits left`) before anything is reserved, so the
/// allocation is bounded by the input's length.
///
/// ```
/// use idlc_runtime::{read_sequence, BitReader, DecodeErrorKind, WireRead};
/// let mut r = BitReader::new(&[0b0_01_11_011, 0b1]);
/// let v: Vec<u64> = read_sequence(&mut r, Some(7), 2, |r| r.read_bits(2)).unwrap();
/// assert_eq!(v, [3, 1, 2]);
/// // A count larger than the input could hold is rejected before allocating.
/// let mut r = BitReader::new(&[0xff, 0xff, 0xff, 0x7f]);
/// let e = read_sequence::<_, Vec<u64>, _>(&mut r, None, 8, |r| r.read_bits(8)).unwrap_err();
/// assert_eq!(e.kind, DecodeErrorKind::LengthOverBound);
/// ```
pub fn read_sequence<'a, R, C, F>(
    r: &mut R,
    max: Option<u64>,
    min_element_bits: u64,
    read_item: F,
) -> Result<C, DecodeError>
where
    R: WireRead<'a>,
    C: Collection + Default,
    F: FnMut(&mut R) -> Result<C::Item, DecodeError>,
{
    let count = r.read_count(max, min_element_bits)?;
    collect(r, count, min_element_bits, read_item)
}

/// Reads `count` elements whose count was already checked against the bits left.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn collect<'a, R, C, F>(
    r: &mut R,
    count: usize,
    min_element_bits: u64,
    mut read_item: F,
) -> Result<C, DecodeError>
where
    R: WireRead<'a>,
    C: Collection + Default,
    F: FnMut(&mut R) -> Result<C::Item, DecodeError>,
{
    let mut out = C::with_capacity(reservation(count, min_element_bits, r.bits_remaining()));
    for _ in 0..count {
        out.push(read_item(r)?);
    }
    Ok(out)
}

/// The elements to reserve room for before reading `count` elements (a count already checked
/// against the bits left) of at least `min_element_bits` each, with `bits_remaining` left: with
/// zero-size elements the count is bounded only by `max`, so reserve no more than the bits left
/// and let pushes grow the rest.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn reservation(count: usize, min_element_bits: u64, bits_remaining: u64) -> usize {
    if min_element_bits == 0 {
        count.min(usize::try_from(bits_remaining).unwrap_or(usize::MAX))
    } else {
        count
    }
}

/// Writes an `ARRAY<T, N>`: the elements only (the count is fixed by the schema).
///
/// ```
/// use idlc_runtime::{write_array, BitWriter, WireWrite};
/// let mut w = BitWriter::new();
/// write_array(&mut w, &[true, false, true], |w, &b| w.write_bool(b)).unwrap();
/// assert_eq!(w.finish(), &[0b101]);
/// ```
pub fn write_array<W, T, F>(w: &mut W, items: &[T], mut write_item: F) -> Result<(), EncodeError>
where
    W: WireWrite,
    F: FnMut(&mut W, &T) -> Result<(), EncodeError>,
{
    for item in items {
        write_item(w, item)?;
    }
    Ok(())
}

/// Reads an `ARRAY<T, N>` of `N` elements into `[T; N]` (no `Default` or `Copy` needed). When
/// the bits left cannot hold `N * min_element_bits`, it fails with
/// [`DecodeErrorKind::UnexpectedEnd`] before allocating anything.
///
/// ```
/// use idlc_runtime::{read_array, BitReader, DecodeErrorKind, WireRead};
/// let mut r = BitReader::new(&[0b101]);
/// let a: [bool; 3] = read_array(&mut r, 1, |r| r.read_bool()).unwrap();
/// assert_eq!(a, [true, false, true]);
/// let e = read_array::<_, u64, _, 100_000>(&mut r, 8, |r| r.read_bits(8)).unwrap_err();
/// assert_eq!(e.kind, DecodeErrorKind::UnexpectedEnd);
/// ```
pub fn read_array<'a, R, T, F, const N: usize>(
    r: &mut R,
    min_element_bits: u64,
    mut read_item: F,
) -> Result<[T; N], DecodeError>
where
    R: WireRead<'a>,
    F: FnMut(&mut R) -> Result<T, DecodeError>,
{
    let start = r.bits_read();
    let fits = (N as u64)
        .checked_mul(min_element_bits)
        .is_some_and(|need| need <= r.bits_remaining());
    if !fits {
        return Err(DecodeError::new(DecodeErrorKind::UnexpectedEnd, start));
    }
    let mut items = Vec::with_capacity(N);
    for _ in 0..N {
        items.push(read_item(r)?);
    }
    <[T; N]>::try_from(items).map_err(|_| DecodeError::new(DecodeErrorKind::InvalidArgument, start))
}

impl DecodeError {
    /// Adds the index of `item`, an element of `collection` found by its address (on the error
    /// path only): the elements of a DELTA SEQUENCE, which the runtime visits in its own order.
    /// An `item` that is not in `collection` adds nothing.
    ///
    /// ```
    /// use idlc_runtime::{DecodeError, DecodeErrorKind};
    /// let baseline = vec![10u8, 20, 30];
    /// let e = DecodeError::new(DecodeErrorKind::ValueOutOfRange, 5)
    ///     .at_item(&baseline, &baseline[2])
    ///     .in_field("Squad.members");
    /// assert_eq!(e.field.as_deref(), Some("Squad.members[2]"));
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn at_item<C: Collection>(self, collection: &C, item: &C::Item) -> Self {
        match position(collection, item) {
            Some(index) => self.at_index(index),
            None => self,
        }
    }
}

impl EncodeError {
    /// Adds the index of `item`, an element of `collection`: see [`DecodeError::at_item`].
    ///
    /// ```
    /// use idlc_runtime::{EncodeError, EncodeErrorKind};
    /// let members = vec![1u8, 2, 3];
    /// let e = EncodeError::new(EncodeErrorKind::ValueOutOfRange, 5).at_item(&members, &members[1]);
    /// assert_eq!(e.field.as_deref(), Some("[1]"));
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn at_item<C: Collection>(self, collection: &C, item: &C::Item) -> Self {
        match position(collection, item) {
            Some(index) => self.at_index(index),
            None => self,
        }
    }
}

/// The index of `item` in `collection`, by address (built on the error path only).
#[cold]
#[inline(never)]
fn position<C: Collection>(collection: &C, item: &C::Item) -> Option<usize> {
    collection.iter().position(|x| core::ptr::eq(x, item))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BitReader, BitWriter, ByteReader, ByteWriter};

    #[test]
    fn vec_and_deque_round_trip() {
        let v: Vec<u64> = (0..100).collect();
        let d: VecDeque<u64> = v.iter().copied().collect();
        let mut w = BitWriter::new();
        write_sequence(&mut w, &v, None, |w, &x| w.write_vlq(x, 7)).unwrap();
        write_sequence(&mut w, &d, Some(100), |w, &x| w.write_bits(x, 7)).unwrap();
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        let v2: Vec<u64> = read_sequence(&mut r, None, 8, |r| r.read_vlq(7)).unwrap();
        let d2: VecDeque<u64> = read_sequence(&mut r, Some(100), 7, |r| r.read_bits(7)).unwrap();
        assert!(!Collection::is_empty(&d2));
        assert_eq!((v2, d2), (v, d));
    }

    #[test]
    fn count_checks() {
        // Bounded count over its bound.
        let mut w = ByteWriter::new();
        w.write_bits(9, 4).unwrap();
        let bytes = w.into_bytes();
        let e = read_sequence::<_, Vec<u64>, _>(&mut ByteReader::new(&bytes), Some(8), 0, |r| {
            r.read_bits(8)
        })
        .unwrap_err();
        assert_eq!(e, DecodeError::new(DecodeErrorKind::LengthOverBound, 0));
        // Exactly enough bits: accepted; one element more: rejected.
        let mut r = BitReader::new(&[3, 0, 0, 0]);
        assert_eq!(r.read_count(None, 8), Ok(3));
        let mut r = BitReader::new(&[4, 0, 0, 0]);
        assert_eq!(
            r.read_count(None, 8).unwrap_err().kind,
            DecodeErrorKind::LengthOverBound
        );
        // Overflow of count * min_element_bits.
        let mut w = BitWriter::new();
        w.write_vlq(u64::MAX, 7).unwrap();
        let bytes = w.into_bytes();
        assert_eq!(
            BitReader::new(&bytes).read_count(None, 2).unwrap_err().kind,
            DecodeErrorKind::LengthOverBound
        );
        // Zero-size elements: bounded count is fine, unbounded is held to the bits left.
        let mut r = BitReader::new(&[0xff]);
        assert_eq!(r.read_count(Some(255), 0), Ok(255));
        let mut r = BitReader::new(&[100]);
        assert_eq!(
            r.read_count(None, 0).unwrap_err().kind,
            DecodeErrorKind::LengthOverBound
        );
        let mut r = BitReader::new(&[0]);
        let v: Vec<()> = read_sequence(&mut r, None, 0, |_| Ok(())).unwrap();
        assert!(v.is_empty());
    }

    #[test]
    fn arrays() {
        let mut w = ByteWriter::new();
        write_array(&mut w, &[1u64, 2, 3, 4], |w, &x| w.write_bits(x, 16)).unwrap();
        let bytes = w.into_bytes();
        assert_eq!(bytes.len(), 8);
        let mut r = ByteReader::new(&bytes);
        let a: [u64; 4] = read_array(&mut r, 16, |r| r.read_bits(16)).unwrap();
        assert_eq!(a, [1, 2, 3, 4]);
        let mut r = ByteReader::new(&bytes);
        let e = read_array::<_, u64, _, 5>(&mut r, 0, |r| r.read_bits(16)).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::UnexpectedEnd);
        let e = read_array::<_, u64, _, 5>(&mut ByteReader::new(&bytes), 16, |r| r.read_bits(16));
        assert_eq!(
            e.unwrap_err(),
            DecodeError::new(DecodeErrorKind::UnexpectedEnd, 0)
        );
        let empty: [String; 0] = read_array(&mut r, 0, |_| Ok(String::new())).unwrap();
        assert!(empty.is_empty());
    }
}
