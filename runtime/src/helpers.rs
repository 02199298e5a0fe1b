//! Free functions the code generator emits calls to, generic over the stream and over the Rust
//! integer type of a field ([`WireInt`]). IDL ranges are passed as `i128` so that every range
//! of `INT64` and `UINT64` is exact.

use crate::collection::Collection;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::extend::WireInt;
use crate::fixed::real_of_f32;
use crate::int::{bits_required, mask, zigzag_decode, zigzag_encode};
use crate::wire::{WireRead, WireWrite, as_bad_enumerator};

#[inline]
fn span_u64(min: i128, max: i128) -> Option<u64> {
    if min > max {
        return None;
    }
    u64::try_from(max.checked_sub(min)?).ok()
}

/// Writes a ranged integer `INT[min,max]` as `value - min` in `bits` bits (`bits` is
/// `bits_required(min, max)`, or more with a `BIT(n)` rule). A value outside the range is
/// [`EncodeErrorKind::ValueOutOfRange`]; a span over 64 bits [`EncodeErrorKind::InvalidArgument`].
///
/// ```
/// use idlc_runtime::{read_ranged, write_ranged, BitReader, BitWriter, WireWrite};
/// let mut w = BitWriter::new();
/// write_ranged(&mut w, 17u8, 0, 119, 7).unwrap();
/// assert!(write_ranged(&mut w, 120u8, 0, 119, 7).is_err());
/// let bytes = w.into_bytes();
/// assert_eq!(read_ranged::<_, u8>(&mut BitReader::new(&bytes), 0, 119, 7), Ok(17));
/// ```
#[inline]
pub fn write_ranged<W: WireWrite, T: WireInt>(
    w: &mut W,
    value: T,
    min: i128,
    max: i128,
    bits: u32,
) -> Result<(), EncodeError> {
    let Some(_) = span_u64(min, max) else {
        return Err(w.error(EncodeErrorKind::InvalidArgument));
    };
    let v = value.to_i128();
    if v < min || v > max {
        return Err(w.error(EncodeErrorKind::ValueOutOfRange));
    }
    // 0 <= v - min <= max - min <= u64::MAX.
    w.write_bits((v - min) as u64, bits)
}

/// Reads a ranged integer written by [`write_ranged`]: an offset that puts the value above
/// `max`, or a value the Rust type `T` cannot hold, is [`DecodeErrorKind::ValueOutOfRange`].
///
/// ```
/// use idlc_runtime::{read_ranged, BitReader, DecodeErrorKind};
/// let mut r = BitReader::new(&[0x7f]);
/// assert_eq!(read_ranged::<_, i8>(&mut r, -10, 10, 7).unwrap_err().kind, DecodeErrorKind::ValueOutOfRange);
/// ```
#[inline]
pub fn read_ranged<'a, R: WireRead<'a>, T: WireInt>(
    r: &mut R,
    min: i128,
    max: i128,
    bits: u32,
) -> Result<T, DecodeError> {
    let start = r.bits_read();
    let Some(span) = span_u64(min, max) else {
        return Err(r.error(DecodeErrorKind::InvalidArgument));
    };
    let offset = r.read_bits(bits)?;
    if offset > span {
        return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start));
    }
    T::from_i128(min + i128::from(offset))
        .ok_or_else(|| DecodeError::new(DecodeErrorKind::ValueOutOfRange, start))
}

/// Writes a fixed-width integer (`UINTn`, `INTn`, a `UINT16` rule, ...): its `bits`-bit two's
/// complement pattern when `signed`, else its unsigned value, after checking the IDL range
/// `[min, max]` and that it fits `bits` ([`EncodeErrorKind::ValueOutOfRange`]).
///
/// ```
/// use idlc_runtime::{read_fixed, write_fixed, BitReader, BitWriter, WireWrite};
/// let mut w = BitWriter::new();
/// write_fixed(&mut w, -2i16, -32768, 32767, 16, true).unwrap();
/// assert_eq!(w.finish(), &[0xfe, 0xff]);
/// let bytes = w.into_bytes();
/// assert_eq!(read_fixed::<_, i16>(&mut BitReader::new(&bytes), -32768, 32767, 16, true), Ok(-2));
/// ```
#[inline]
pub fn write_fixed<W: WireWrite, T: WireInt>(
    w: &mut W,
    value: T,
    min: i128,
    max: i128,
    bits: u32,
    signed: bool,
) -> Result<(), EncodeError> {
    let pattern = crate::packed::fixed_bits(w, value, min, max, bits, signed)?;
    w.write_bits(pattern, bits)
}

/// Reads a fixed-width integer written by [`write_fixed`] (sign-extending when `signed`) and
/// checks it against `[min, max]` and the Rust type ([`DecodeErrorKind::ValueOutOfRange`]).
///
/// ```
/// use idlc_runtime::{read_fixed, BitReader};
/// let mut r = BitReader::new(&[0xff]);
/// assert_eq!(read_fixed::<_, i8>(&mut r, -128, 127, 8, true), Ok(-1));
/// ```
#[inline]
pub fn read_fixed<'a, R: WireRead<'a>, T: WireInt>(
    r: &mut R,
    min: i128,
    max: i128,
    bits: u32,
    signed: bool,
) -> Result<T, DecodeError> {
    let start = r.bits_read();
    let raw = r.read_bits(bits)?;
    crate::packed::fixed_value(raw, min, max, bits, signed)
        .ok_or_else(|| DecodeError::new(DecodeErrorKind::ValueOutOfRange, start))
}

/// How an integer is mapped to the unsigned value a `VLQ` rule sends.
///
/// ```
/// use idlc_runtime::VlqMode;
/// assert_ne!(VlqMode::Plain, VlqMode::ZigZag);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VlqMode {
    /// The value itself (it must not be negative).
    Plain,
    /// Zigzag: 0, -1, 1, -2, ... as 0, 1, 2, 3, ... (for signed types).
    ZigZag,
    /// `value - min` (for ranges that do not start at 0).
    Offset,
}

#[inline]
fn vlq_map(v: i128, mode: VlqMode, min: i128) -> Option<u64> {
    match mode {
        VlqMode::Plain => u64::try_from(v).ok(),
        VlqMode::ZigZag => i64::try_from(v).ok().map(zigzag_encode),
        VlqMode::Offset => u64::try_from(v.checked_sub(min)?).ok(),
    }
}

/// Writes an integer of `[min, max]` as a `VLQ(group_bits)` of its [`VlqMode`] mapping.
///
/// ```
/// use idlc_runtime::{read_vlq_int, write_vlq_int, BitReader, BitWriter, VlqMode, WireWrite};
/// let mut w = BitWriter::new();
/// write_vlq_int(&mut w, -3i32, VlqMode::ZigZag, i32::MIN.into(), i32::MAX.into(), 7).unwrap();
/// let bytes = w.into_bytes();
/// assert_eq!(bytes, [5]);
/// let v: i32 = read_vlq_int(&mut BitReader::new(&bytes), VlqMode::ZigZag, i32::MIN.into(), i32::MAX.into(), 7, 5).unwrap();
/// assert_eq!(v, -3);
/// ```
#[inline(always)]
pub fn write_vlq_int<W: WireWrite, T: WireInt>(
    w: &mut W,
    value: T,
    mode: VlqMode,
    min: i128,
    max: i128,
    group_bits: u32,
) -> Result<(), EncodeError> {
    let v = value.to_i128();
    if v < min || v > max {
        return Err(w.error(EncodeErrorKind::ValueOutOfRange));
    }
    match vlq_map(v, mode, min) {
        Some(mapped) => w.write_vlq(mapped, group_bits),
        None => Err(w.error(EncodeErrorKind::ValueOutOfRange)),
    }
}

/// Reads an integer written by [`write_vlq_int`]. More than `max_groups` groups (what the type
/// needs) is [`DecodeErrorKind::OverlongVlq`]; a value outside `[min, max]` or the Rust type
/// [`DecodeErrorKind::ValueOutOfRange`].
///
/// ```
/// use idlc_runtime::{read_vlq_int, BitReader, DecodeErrorKind, VlqMode};
/// // 3 groups where the type needs at most 2.
/// let mut r = BitReader::new(&[0x80, 0x80, 0x01]);
/// let e = read_vlq_int::<_, u16>(&mut r, VlqMode::Plain, 0, 1000, 7, 2).unwrap_err();
/// assert_eq!(e.kind, DecodeErrorKind::OverlongVlq);
/// ```
#[inline(always)]
pub fn read_vlq_int<'a, R: WireRead<'a>, T: WireInt>(
    r: &mut R,
    mode: VlqMode,
    min: i128,
    max: i128,
    group_bits: u32,
    max_groups: u32,
) -> Result<T, DecodeError> {
    let start = r.bits_read();
    if max_groups == 0 {
        return Err(r.error(DecodeErrorKind::InvalidArgument));
    }
    let type_bits = max_groups.saturating_mul(group_bits).min(64);
    let raw = r.read_vlq_width(group_bits, type_bits)?;
    let v = match mode {
        VlqMode::Plain => i128::from(raw),
        VlqMode::ZigZag => i128::from(zigzag_decode(raw)),
        VlqMode::Offset => min.saturating_add(i128::from(raw)),
    };
    if v < min || v > max {
        return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start));
    }
    T::from_i128(v).ok_or_else(|| DecodeError::new(DecodeErrorKind::ValueOutOfRange, start))
}

/// Writes an enumerator index among `count` in `bits` bits (`bits_required(0, count - 1)`, or
/// the width of a `BIT(n)` rule). `index >= count` is [`EncodeErrorKind::BadEnumerator`].
///
/// ```
/// use idlc_runtime::{read_enum, write_enum, BitReader, BitWriter, WireWrite};
/// let mut w = BitWriter::new();
/// write_enum(&mut w, 2u32, 3, 2).unwrap();
/// let bytes = w.into_bytes();
/// assert_eq!(read_enum(&mut BitReader::new(&bytes), 3, 2), Ok(2));
/// ```
#[inline]
pub fn write_enum<W: WireWrite, T: WireInt>(
    w: &mut W,
    index: T,
    count: u64,
    bits: u32,
) -> Result<(), EncodeError> {
    match u64::try_from(index.to_i128()) {
        Ok(i) if i < count => w.write_bits(i, bits),
        _ => Err(w.error(EncodeErrorKind::BadEnumerator)),
    }
}

/// Reads an enumerator index written by [`write_enum`]; `>= count` is
/// [`DecodeErrorKind::BadEnumerator`].
///
/// ```
/// use idlc_runtime::{read_enum, BitReader, DecodeErrorKind};
/// let e = read_enum(&mut BitReader::new(&[3]), 3, 2).unwrap_err();
/// assert_eq!(e.kind, DecodeErrorKind::BadEnumerator);
/// ```
#[inline]
pub fn read_enum<'a, R: WireRead<'a>>(
    r: &mut R,
    count: u64,
    bits: u32,
) -> Result<u64, DecodeError> {
    let start = r.bits_read();
    let index = r.read_bits(bits).map_err(as_bad_enumerator)?;
    if index >= count {
        return Err(DecodeError::new(DecodeErrorKind::BadEnumerator, start));
    }
    Ok(index)
}

/// Turns the result of a generated `from_index` into the enumerator, or
/// [`DecodeErrorKind::BadEnumerator`] at `r`'s position. (Read the index into a local first:
/// `r` cannot be borrowed here and by the read in the same call.)
///
/// ```
/// use idlc_runtime::{enumerator, read_enum, BitReader};
/// let mut r = BitReader::new(&[1]);
/// let index = read_enum(&mut r, 2, 1).unwrap();
/// let mood = enumerator(&r, ["calm", "angry"].get(index as usize).copied()).unwrap();
/// assert_eq!(mood, "angry");
/// assert!(enumerator::<_, u8>(&r, None).is_err());
/// ```
#[inline]
pub fn enumerator<'a, R: WireRead<'a>, E>(r: &R, value: Option<E>) -> Result<E, DecodeError> {
    value.ok_or_else(|| r.error(DecodeErrorKind::BadEnumerator))
}

/// Writes an enumerator with a static prefix code, `codes[index] = (code, len)`: the `len` bits
/// of `code`, most significant first (BITSTREAM). A BYTESTREAM sends the index as
/// [`write_enum`] does, in `byte_width(bits_required(0, count - 1))` bytes.
///
/// ```
/// use idlc_runtime::{read_huffman, write_huffman, BitReader, BitWriter, WireWrite};
/// // Bit 0 of a code is sent first: enumerator 1 is the stream bits 1, 0.
/// let codes = [(0b0, 1), (0b01, 2), (0b11, 2)];
/// let mut w = BitWriter::new();
/// for i in [0u8, 2, 1, 0] {
///     write_huffman(&mut w, i, &codes).unwrap();
/// }
/// assert_eq!(w.bits_written(), 6);
/// let bytes = w.into_bytes();
/// let mut r = BitReader::new(&bytes);
/// let got: Vec<u64> = (0..4).map(|_| read_huffman(&mut r, &codes).unwrap()).collect();
/// assert_eq!(got, [0, 2, 1, 0]);
/// ```
pub fn write_huffman<W: WireWrite, T: WireInt>(
    w: &mut W,
    index: T,
    codes: &[(u64, u32)],
) -> Result<(), EncodeError> {
    let count = codes.len() as u64;
    let Ok(i) = u64::try_from(index.to_i128()) else {
        return Err(w.error(EncodeErrorKind::BadEnumerator));
    };
    let Some(&(code, len)) = usize::try_from(i).ok().and_then(|i| codes.get(i)) else {
        return Err(w.error(EncodeErrorKind::BadEnumerator));
    };
    if W::BYTE_STREAM {
        return w.write_bits(i, bits_required(0, count.saturating_sub(1)));
    }
    if len > 64 || code & !mask(len) != 0 {
        return Err(w.error(EncodeErrorKind::InvalidArgument));
    }
    w.write_bits(code, len)
}

/// Reads an enumerator written by [`write_huffman`] with the same table; a bit string that is
/// no code is [`DecodeErrorKind::BadEnumerator`].
///
/// ```
/// use idlc_runtime::{read_huffman, BitReader, DecodeErrorKind};
/// let codes = [(0b0, 1), (0b01, 2)]; // the stream bits 1, 1 are no code
/// let e = read_huffman(&mut BitReader::new(&[0b11]), &codes).unwrap_err();
/// assert_eq!(e.kind, DecodeErrorKind::BadEnumerator);
/// ```
#[inline]
pub fn read_huffman<'a, R: WireRead<'a>>(
    r: &mut R,
    codes: &[(u64, u32)],
) -> Result<u64, DecodeError> {
    let start = r.bits_read();
    let count = codes.len() as u64;
    if R::BYTE_STREAM {
        let index = r
            .read_bits(bits_required(0, count.saturating_sub(1)))
            .map_err(as_bad_enumerator)?;
        if index >= count {
            return Err(DecodeError::new(DecodeErrorKind::BadEnumerator, start));
        }
        return Ok(index);
    }
    let longest = codes.iter().map(|&(_, len)| len).max().unwrap_or(0).min(64);
    if longest <= 56 {
        // A prefix code: at most one code is a prefix of what follows, and one look-ahead holds
        // the longest.
        let ahead = r.peek_bits(longest);
        let left = r.bits_remaining();
        for (i, &(code, len)) in codes.iter().enumerate() {
            if u64::from(len) <= left && ahead & mask(len) == code {
                r.skip_bits(u64::from(len))?;
                return Ok(i as u64);
            }
        }
        let kind = if u64::from(longest) > left {
            DecodeErrorKind::UnexpectedEnd
        } else {
            DecodeErrorKind::BadEnumerator
        };
        return Err(DecodeError::new(kind, start));
    }
    let mut acc = 0u64;
    for len in 0..=longest {
        if len > 0 {
            acc |= u64::from(r.read_bool()?) << (len - 1);
        }
        if let Some(i) = codes.iter().position(|&(c, l)| l == len && c == acc) {
            return Ok(i as u64);
        }
    }
    Err(DecodeError::new(DecodeErrorKind::BadEnumerator, start))
}

#[inline]
fn in_numeric_range(v: f64, min: f64, max: f64, min_inclusive: bool, max_inclusive: bool) -> bool {
    let above = if min_inclusive { v >= min } else { v > min };
    let below = if max_inclusive { v <= max } else { v < max };
    above && below
}

/// Checks a real before it is sent raw: NaN is [`EncodeErrorKind::NotANumber`], a value outside
/// the range (each end inclusive or not) [`EncodeErrorKind::ValueOutOfRange`].
///
/// ```
/// use idlc_runtime::{check_numeric, BitWriter};
/// let w = BitWriter::new();
/// assert_eq!(check_numeric(&w, 1.0, 0.0, 1.0, true, true), Ok(1.0));
/// assert!(check_numeric(&w, 1.0, 0.0, 1.0, true, false).is_err());
/// assert!(check_numeric(&w, f64::NAN, 0.0, 1.0, true, true).is_err());
/// ```
#[inline]
pub fn check_numeric<W: WireWrite>(
    w: &W,
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, EncodeError> {
    numeric_kind(value, min, max, min_inclusive, max_inclusive).map_err(|kind| w.error(kind))
}

/// [`check_numeric`] without a writer: the value, or the kind of error.
#[inline]
fn numeric_kind(
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, EncodeErrorKind> {
    if value.is_nan() {
        return Err(EncodeErrorKind::NotANumber);
    }
    if !in_numeric_range(value, min, max, min_inclusive, max_inclusive) {
        return Err(EncodeErrorKind::ValueOutOfRange);
    }
    Ok(value)
}

/// The FLOAT32 a real of a `NUMERIC` range is sent as: [`check_numeric`], then the nearest
/// `f32`. The `f32` nearest to an end stands for the end ([`float32_real`]: `0.1` in
/// `NUMERIC[0,0.1]` is sent as the `f32` 0.100000001, which a reader takes as 0.1), so it is sent
/// for a closed end; the `f32` of an open end is not a value of the range (`1 - 1e-12` in
/// `NUMERIC[0,1)` rounds to 1), and the value goes as its neighbour towards the inside.
/// [`EncodeErrorKind::ValueOutOfRange`] when no `f32` stands for a value of the range there.
///
/// ```
/// use idlc_runtime::{check_numeric_f32, BitWriter};
/// let w = BitWriter::new();
/// assert_eq!(check_numeric_f32(&w, 0.5, 0.0, 1.0, true, false), Ok(0.5));
/// assert_eq!(check_numeric_f32(&w, 0.1, 0.0, 0.1, true, true), Ok(0.1f32));
/// assert_eq!(check_numeric_f32(&w, 1.0 - 1e-12, 0.0, 1.0, true, false), Ok(1.0f32.next_down()));
/// assert_eq!(check_numeric_f32(&w, 0.7 - 1e-9, 0.0, 0.7, true, false), Ok(0.7f32.next_down()));
/// assert!(check_numeric_f32(&w, 1.0, 0.0, 1.0, true, false).is_err());
/// assert_eq!(check_numeric_f32(&w, 1e300, 0.0, 1e300, true, true), Ok(f32::MAX));
/// ```
#[inline]
pub fn check_numeric_f32<W: WireWrite>(
    w: &W,
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f32, EncodeError> {
    numeric_as_f32(value, min, max, min_inclusive, max_inclusive).map_err(|kind| w.error(kind))
}

/// The `f32` a real of a `NUMERIC` range (inside it) is held as: [`check_numeric_f32`]'s, the
/// nearest `f32` (that of a closed end stands for the end), or the nearest `f32` when no `f32`
/// stands for a value of the range there. For a FLOAT64 read into an `f32` field, and an `f32`
/// DEFAULT: the value re-encodes.
///
/// ```
/// use idlc_runtime::nearest_f32_inside;
/// assert_eq!(nearest_f32_inside(0.1, 0.0, 0.1, true, true), 0.1f32);
/// assert_eq!(nearest_f32_inside(1.0 - 1e-12, 0.0, 1.0, true, false), 1.0f32.next_down());
/// assert_eq!(nearest_f32_inside(0.25, 0.0, 1.0, true, true), 0.25);
/// ```
#[inline]
#[must_use]
pub fn nearest_f32_inside(
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> f32 {
    numeric_as_f32(value, min, max, min_inclusive, max_inclusive).unwrap_or(value as f32)
}

/// [`check_numeric_f32`] of a real an `f32` field holds: the `f32` itself, if it stands for a
/// value of the range ([`float32_real`]; NaN is [`EncodeErrorKind::NotANumber`]). The same as
/// `check_numeric_f32(w, real_of_f32(value, min, max), ..)`, without the round trip through `f64`.
///
/// ```
/// use idlc_runtime::{check_f32_in_range, BitWriter};
/// let w = BitWriter::new();
/// assert_eq!(check_f32_in_range(&w, 0.1, 0.0, 0.1, true, true), Ok(0.1));
/// assert!(check_f32_in_range(&w, 1.0, 0.0, 1.0, true, false).is_err());
/// assert!(check_f32_in_range(&w, f32::NAN, 0.0, 1.0, true, true).is_err());
/// ```
#[inline]
pub fn check_f32_in_range<W: WireWrite>(
    w: &W,
    value: f32,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f32, EncodeError> {
    if value.is_nan() {
        return Err(w.error(EncodeErrorKind::NotANumber));
    }
    match f32_stands_for(value, min, max, min_inclusive, max_inclusive) {
        Some(_) => Ok(value),
        None => Err(w.error(EncodeErrorKind::ValueOutOfRange)),
    }
}

/// [`check_numeric_f32`] without a writer: the `f32`, or the kind of error.
#[inline]
pub(crate) fn numeric_as_f32(
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f32, EncodeErrorKind> {
    let single = numeric_kind(value, min, max, min_inclusive, max_inclusive)? as f32;
    if f32_stands_for(single, min, max, min_inclusive, max_inclusive).is_some() {
        return Ok(single);
    }
    // `single` is the f32 of an open end (or past an end, beyond f32::MAX): the f32 next to
    // it towards the inside is the nearest f32 that stands for a value of the range, if any.
    let inward = if single == max as f32 || f64::from(single) > max {
        single.next_down()
    } else {
        single.next_up()
    };
    if f32_stands_for(inward, min, max, min_inclusive, max_inclusive).is_some() {
        Ok(inward)
    } else {
        Err(EncodeErrorKind::ValueOutOfRange)
    }
}

/// The real of a `NUMERIC` range an `f32` stands for ([`real_of_f32`]: the `f32` nearest to an
/// end stands for the end), if that real lies in the range (an open end is not).
#[inline]
fn f32_stands_for(
    single: f32,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Option<f64> {
    let real = real_of_f32(single, min, max);
    in_numeric_range(real, min, max, min_inclusive, max_inclusive).then_some(real)
}

/// The real a FLOAT32 of a `NUMERIC` range stands for, once read: the `f32` nearest to an end
/// stands for the end ([`real_of_f32`]: `0.1` in `NUMERIC[0,0.1]` is sent as the `f32`
/// 0.100000001 and read as 0.1), any other `f32` for itself. [`DecodeErrorKind::ValueOutOfRange`]
/// for NaN, a value outside the range, or the `f32` of an open end.
///
/// ```
/// use idlc_runtime::{float32_real, BitReader};
/// let r = BitReader::new(&[]);
/// assert_eq!(float32_real(&r, 0.1, 0.0, 0.1, true, true), Ok(0.1));
/// assert_eq!(float32_real(&r, 0.5, 0.0, 1.0, true, false), Ok(0.5));
/// assert!(float32_real(&r, 1.0, 0.0, 1.0, true, false).is_err());
/// assert!(float32_real(&r, 0.2, 0.0, 0.1, true, true).is_err());
/// ```
#[inline]
pub fn float32_real<'a, R: WireRead<'a>>(
    r: &R,
    single: f32,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, DecodeError> {
    f32_stands_for(single, min, max, min_inclusive, max_inclusive)
        .ok_or_else(|| r.error(DecodeErrorKind::ValueOutOfRange))
}

/// Checks a real just read raw against its IDL range ([`DecodeErrorKind::ValueOutOfRange`],
/// also for NaN).
///
/// ```
/// use idlc_runtime::{numeric_in_range, BitReader};
/// let r = BitReader::new(&[]);
/// assert_eq!(numeric_in_range(&r, 0.5, 0.0, 1.0, true, true), Ok(0.5));
/// assert!(numeric_in_range(&r, f64::NAN, 0.0, 1.0, true, true).is_err());
/// ```
#[inline]
pub fn numeric_in_range<'a, R: WireRead<'a>>(
    r: &R,
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, DecodeError> {
    if in_numeric_range(value, min, max, min_inclusive, max_inclusive) {
        Ok(value)
    } else {
        Err(r.error(DecodeErrorKind::ValueOutOfRange))
    }
}

/// Reads a FLOAT32 of a `NUMERIC` range: the `f32`, checked against the range
/// ([`float32_real`]: NaN, values outside and the `f32` of an open end are
/// [`DecodeErrorKind::ValueOutOfRange`]), for an `f32` field.
///
/// ```
/// use idlc_runtime::{read_f32_in_range, BitReader};
/// let bytes = 0.5f32.to_le_bytes();
/// assert_eq!(read_f32_in_range(&mut BitReader::new(&bytes), 0.0, 1.0, true, true), Ok(0.5));
/// assert!(read_f32_in_range(&mut BitReader::new(&bytes), 0.0, 0.4, true, true).is_err());
/// ```
#[inline]
pub fn read_f32_in_range<'a, R: WireRead<'a>>(
    r: &mut R,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f32, DecodeError> {
    let raw = r.read_f32()?;
    float32_real(r, raw, min, max, min_inclusive, max_inclusive)?;
    Ok(raw)
}

/// Reads a FLOAT32 of a `NUMERIC` range as the real it stands for ([`float32_real`]), for an
/// `f64` field.
///
/// ```
/// use idlc_runtime::{read_f32_real_in_range, BitReader};
/// let bytes = 0.1f32.to_le_bytes();
/// assert_eq!(read_f32_real_in_range(&mut BitReader::new(&bytes), 0.0, 0.1, true, true), Ok(0.1));
/// ```
#[inline]
pub fn read_f32_real_in_range<'a, R: WireRead<'a>>(
    r: &mut R,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, DecodeError> {
    let raw = r.read_f32()?;
    float32_real(r, raw, min, max, min_inclusive, max_inclusive)
}

/// Reads a FLOAT64 of a `NUMERIC` range: the `f64`, checked against the range
/// ([`numeric_in_range`]).
///
/// ```
/// use idlc_runtime::{read_f64_in_range, BitReader};
/// let bytes = 0.5f64.to_le_bytes();
/// assert_eq!(read_f64_in_range(&mut BitReader::new(&bytes), 0.0, 1.0, true, true), Ok(0.5));
/// assert!(read_f64_in_range(&mut BitReader::new(&bytes), 0.0, 0.5, true, false).is_err());
/// ```
#[inline]
pub fn read_f64_in_range<'a, R: WireRead<'a>>(
    r: &mut R,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, DecodeError> {
    let raw = r.read_f64()?;
    numeric_in_range(r, raw, min, max, min_inclusive, max_inclusive)
}

/// ALIGN, then the bytes (no length): for a STRING / BYTES whose length has its own rule.
///
/// ```
/// use idlc_runtime::{write_aligned_bytes, BitWriter, WireWrite};
/// let mut w = BitWriter::new();
/// w.write_bool(true).unwrap();
/// write_aligned_bytes(&mut w, b"ab").unwrap();
/// assert_eq!(w.finish(), &[1, b'a', b'b']);
/// ```
#[inline]
pub fn write_aligned_bytes<W: WireWrite>(w: &mut W, bytes: &[u8]) -> Result<(), EncodeError> {
    w.write_raw_bytes(bytes)
}

/// ALIGN (verifying the padding), then borrows `len` bytes; `len` beyond the bytes left is
/// [`DecodeErrorKind::UnexpectedEnd`].
///
/// ```
/// use idlc_runtime::{read_aligned_bytes, BitReader};
/// let mut r = BitReader::new(&[b'a', b'b']);
/// assert_eq!(read_aligned_bytes(&mut r, 2).unwrap(), b"ab");
/// assert!(read_aligned_bytes(&mut r, 1).is_err());
/// ```
#[inline]
pub fn read_aligned_bytes<'a, R: WireRead<'a>>(
    r: &mut R,
    len: u64,
) -> Result<&'a [u8], DecodeError> {
    r.read_raw_bytes(len)
}

/// [`read_aligned_bytes`] as UTF-8 ([`DecodeErrorKind::BadUtf8`]): a STRING whose length has
/// its own rule.
///
/// ```
/// use idlc_runtime::{read_aligned_str, BitReader};
/// let mut r = BitReader::new(&[b'h', b'i', 0xff]);
/// assert_eq!(read_aligned_str(&mut r, 2).unwrap(), "hi");
/// assert!(read_aligned_str(&mut r, 1).is_err());
/// ```
#[inline]
pub fn read_aligned_str<'a, R: WireRead<'a>>(r: &mut R, len: u64) -> Result<&'a str, DecodeError> {
    let start = r.bits_read();
    let bytes = r.read_raw_bytes(len)?;
    core::str::from_utf8(bytes).map_err(|_| DecodeError::new(DecodeErrorKind::BadUtf8, start))
}

/// `bytes` as UTF-8, or [`DecodeErrorKind::BadUtf8`] at `r`'s position. (Read the bytes into a
/// local first: `r` cannot be borrowed here and by the read in the same call; or use
/// [`read_aligned_str`] / [`WireRead::read_str`].)
///
/// ```
/// use idlc_runtime::{utf8, BitReader};
/// let r = BitReader::new(&[]);
/// assert_eq!(utf8(&r, b"ok"), Ok("ok"));
/// assert!(utf8(&r, &[0xff]).is_err());
/// ```
#[inline]
pub fn utf8<'a, 'b, R: WireRead<'a>>(r: &R, bytes: &'b [u8]) -> Result<&'b str, DecodeError> {
    core::str::from_utf8(bytes).map_err(|_| r.error(DecodeErrorKind::BadUtf8))
}

/// Reads `count` elements (a count already read and checked against `max`, its declared bound)
/// into a new collection, after checking `count * min_element_bits <= bits left`
/// ([`DecodeErrorKind::LengthOverBound`]) so that the reservation is bounded by the input. As in
/// [`WireRead::read_count`], zero-size elements of an unbounded sequence count as one bit each,
/// so that no count makes the reader loop past the input.
///
/// ```
/// use idlc_runtime::{read_elements, BitReader, DecodeErrorKind, WireRead};
/// let mut r = BitReader::new(&[1, 2, 3]);
/// let v: Vec<u64> = read_elements(&mut r, 3, None, 8, |r| r.read_bits(8)).unwrap();
/// assert_eq!(v, [1, 2, 3]);
/// let e = read_elements::<_, Vec<u64>, _>(&mut BitReader::new(&[1]), 1 << 40, None, 8, |r| r.read_bits(8));
/// assert_eq!(e.unwrap_err().kind, DecodeErrorKind::LengthOverBound);
/// // An unbounded sequence of zero-size elements: 2^60 of them do not fit in one byte.
/// let e = read_elements::<_, Vec<()>, _>(&mut BitReader::new(&[0]), 1 << 60, None, 0, |_| Ok(()));
/// assert_eq!(e.unwrap_err().kind, DecodeErrorKind::LengthOverBound);
/// ```
#[inline(always)]
pub fn read_elements<'a, R, C, F>(
    r: &mut R,
    count: u64,
    max: Option<u64>,
    min_element_bits: u64,
    read_item: F,
) -> Result<C, DecodeError>
where
    R: WireRead<'a>,
    C: Collection + Default,
    F: FnMut(&mut R) -> Result<C::Item, DecodeError>,
{
    let count = fitting_count(count, max, min_element_bits, r.bits_remaining())
        .ok_or_else(|| r.error(DecodeErrorKind::LengthOverBound))?;
    crate::collection::collect(r, count, min_element_bits, read_item)
}

/// `count` as a `usize` when `count * min_element_bits` fits in `bits_remaining` (zero-size
/// elements of an unbounded sequence counting one bit each, so that no count makes a reader loop
/// past the input); `None` is [`DecodeErrorKind::LengthOverBound`] at the caller's offset.
#[inline(always)]
pub(crate) fn fitting_count(
    count: u64,
    max: Option<u64>,
    min_element_bits: u64,
    bits_remaining: u64,
) -> Option<usize> {
    let per = if max.is_none() {
        min_element_bits.max(1)
    } else {
        min_element_bits
    };
    let fits = count
        .checked_mul(per)
        .is_some_and(|need| need <= bits_remaining);
    usize::try_from(count).ok().filter(|_| fits)
}

/// Writes a BOOL in `bits` bits (`BIT(n)` of a width the stream does not use for BOOLs), as
/// 0 or 1.
///
/// ```
/// use idlc_runtime::{write_wide_bool, BitWriter, WireWrite};
/// let mut w = BitWriter::new();
/// write_wide_bool(&mut w, true, 3).unwrap();
/// assert_eq!((w.bits_written(), w.finish()), (3, &[1][..]));
/// ```
#[inline]
pub fn write_wide_bool<W: WireWrite>(w: &mut W, value: bool, bits: u32) -> Result<(), EncodeError> {
    write_ranged(w, u8::from(value), 0, 1, bits)
}

/// Reads a BOOL written by [`write_wide_bool`]; any value but 0 and 1 is
/// [`DecodeErrorKind::ValueOutOfRange`].
///
/// ```
/// use idlc_runtime::{read_wide_bool, BitReader};
/// assert_eq!(read_wide_bool(&mut BitReader::new(&[1]), 3), Ok(true));
/// assert!(read_wide_bool(&mut BitReader::new(&[2]), 3).is_err());
/// ```
#[inline]
pub fn read_wide_bool<'a, R: WireRead<'a>>(r: &mut R, bits: u32) -> Result<bool, DecodeError> {
    Ok(read_ranged::<R, u8>(r, 0, 1, bits)? == 1)
}

/// Reads `count` BOOLs (a count already read and checked against its bound) into a new
/// collection, as [`read_elements`] with [`WireRead::read_bool`] would, up to 64 at a time:
/// `count * min_element_bits` must fit in the bits left ([`DecodeErrorKind::LengthOverBound`]).
///
/// ```
/// use idlc_runtime::{read_bool_elements, BitReader, DecodeErrorKind};
/// let v: Vec<bool> = read_bool_elements(&mut BitReader::new(&[0b110]), 3, 1).unwrap();
/// assert_eq!(v, [false, true, true]);
/// let e = read_bool_elements::<_, Vec<bool>>(&mut BitReader::new(&[0]), 9, 1);
/// assert_eq!(e.unwrap_err().kind, DecodeErrorKind::LengthOverBound);
/// ```
// Inlined into every decoder: out of line, mk48's new-value decode was 2.5% slower (criterion,
// docs/PERFORMANCE.md "Session 11").
#[inline(always)]
pub fn read_bool_elements<'a, R, C>(
    r: &mut R,
    count: u64,
    min_element_bits: u64,
) -> Result<C, DecodeError>
where
    R: WireRead<'a>,
    C: Collection<Item = bool> + Default,
{
    let count = bool_count(r, count, min_element_bits)?;
    let mut out = C::with_capacity(count);
    push_checked_bools(r, &mut out, count)?;
    Ok(out)
}

/// Appends `count` BOOLs to `out` after the check of [`read_bool_elements`].
#[inline]
pub(crate) fn push_bools<'a, R, C>(
    r: &mut R,
    out: &mut C,
    count: u64,
    min_element_bits: u64,
) -> Result<(), DecodeError>
where
    R: WireRead<'a>,
    C: Collection<Item = bool>,
{
    let count = bool_count(r, count, min_element_bits)?;
    out.reserve(count);
    push_checked_bools(r, out, count)
}

/// `count` as a `usize` when that many BOOLs fit in the bits left, counted as an unbounded
/// sequence's: at least one bit per BOOL.
#[inline(always)]
fn bool_count<'a, R: WireRead<'a>>(
    r: &R,
    count: u64,
    min_element_bits: u64,
) -> Result<usize, DecodeError> {
    fitting_count(count, None, min_element_bits, r.bits_remaining())
        .ok_or_else(|| r.error(DecodeErrorKind::LengthOverBound))
}

/// Appends `count` BOOLs (already checked against the bits left), up to 64 from one read.
#[inline(always)]
fn push_checked_bools<'a, R, C>(r: &mut R, out: &mut C, count: usize) -> Result<(), DecodeError>
where
    R: WireRead<'a>,
    C: Collection<Item = bool>,
{
    let mut left = count;
    while left > 0 {
        let run = left.min(64);
        let word = r.read_bool_bits(run as u32)?;
        out.extend_from((0..run).map(|i| word >> i & 1 != 0));
        left -= run;
    }
    Ok(())
}

/// Writes a bounded length or count in `bits` bits; one over `max` is
/// [`EncodeErrorKind::LengthOverBound`].
///
/// ```
/// use idlc_runtime::{BitWriter, EncodeErrorKind, write_bounded_length};
/// let mut w = BitWriter::new();
/// write_bounded_length(&mut w, 4, 4, 8).unwrap();
/// assert_eq!(write_bounded_length(&mut w, 5, 4, 8).unwrap_err().kind, EncodeErrorKind::LengthOverBound);
/// ```
#[inline]
pub fn write_bounded_length<W: WireWrite>(
    w: &mut W,
    len: u64,
    max: u64,
    bits: u32,
) -> Result<(), EncodeError> {
    if len > max {
        return Err(w.error(EncodeErrorKind::LengthOverBound));
    }
    w.write_bits(len, bits)
}

/// Reads a length or count written by [`write_bounded_length`]; one over `max` is
/// [`DecodeErrorKind::LengthOverBound`].
///
/// ```
/// use idlc_runtime::{BitReader, DecodeErrorKind, read_bounded_length};
/// let mut r = BitReader::new(&[5]);
/// assert_eq!(read_bounded_length(&mut r, 4, 8).unwrap_err().kind, DecodeErrorKind::LengthOverBound);
/// ```
#[inline]
pub fn read_bounded_length<'a, R: WireRead<'a>>(
    r: &mut R,
    max: u64,
    bits: u32,
) -> Result<u64, DecodeError> {
    let start = r.bits_read();
    let len = r.read_bits(bits)?;
    if len > max {
        return Err(DecodeError::new(DecodeErrorKind::LengthOverBound, start));
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BitReader, BitWriter, ByteReader, ByteWriter};

    #[test]
    fn ranged_ends() {
        for (min, max, v) in [
            (i128::from(i64::MIN), i128::from(i64::MAX), i64::MIN),
            (i128::from(i64::MIN), i128::from(i64::MAX), i64::MAX),
            (5, 5, 5),
        ] {
            let mut w = BitWriter::new();
            let bits = if min == max { 0 } else { 64 };
            write_ranged(&mut w, v, min, max, bits).unwrap();
            assert_eq!(w.bits_written(), u64::from(bits));
            let bytes = w.into_bytes();
            assert_eq!(
                read_ranged::<_, i64>(&mut BitReader::new(&bytes), min, max, bits),
                Ok(v)
            );
        }
        let mut w = BitWriter::new();
        write_ranged(&mut w, u64::MAX, 0, i128::from(u64::MAX), 64).unwrap();
        assert_eq!(
            write_ranged(&mut w, 0u8, 0, i128::from(u64::MAX) + 1, 64)
                .unwrap_err()
                .kind,
            EncodeErrorKind::InvalidArgument
        );
        // A value the Rust type cannot hold.
        let mut r = BitReader::new(&[0xff]);
        assert_eq!(read_ranged::<_, u8>(&mut r, 0, 300, 8), Ok(255));
        let mut r = ByteReader::new(&[0x2c, 0x01]);
        assert_eq!(
            read_ranged::<_, u8>(&mut r, 0, 300, 9).unwrap_err().kind,
            DecodeErrorKind::ValueOutOfRange
        );
    }

    #[test]
    fn fixed_widths() {
        for (v, bits) in [
            (i64::MIN, 64u32),
            (i64::MAX, 64),
            (-1, 1),
            (0, 1),
            (-128, 8),
            (127, 8),
        ] {
            let mut w = ByteWriter::new();
            write_fixed(
                &mut w,
                v,
                i128::from(i64::MIN),
                i128::from(i64::MAX),
                bits,
                true,
            )
            .unwrap();
            let bytes = w.into_bytes();
            assert_eq!(
                read_fixed::<_, i64>(
                    &mut ByteReader::new(&bytes),
                    i128::from(i64::MIN),
                    i128::from(i64::MAX),
                    bits,
                    true
                ),
                Ok(v)
            );
        }
        let mut w = BitWriter::new();
        assert!(write_fixed(&mut w, 128i32, -1000, 1000, 8, true).is_err());
        assert!(write_fixed(&mut w, -1i32, -1000, 1000, 8, false).is_err());
        assert!(write_fixed(&mut w, 1i32, 0, 0, 8, false).is_err());
        assert!(write_fixed(&mut w, 0i32, 0, 0, 65, false).is_err());
        write_fixed(&mut w, u64::MAX, 0, i128::from(u64::MAX), 64, false).unwrap();
        write_fixed(&mut w, 0u8, 0, 0, 0, true).unwrap();
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        assert_eq!(
            read_fixed::<_, u64>(&mut r, 0, i128::from(u64::MAX), 64, false),
            Ok(u64::MAX)
        );
        assert_eq!(read_fixed::<_, u8>(&mut r, 0, 0, 0, true), Ok(0));
        // Range checked on read.
        let mut r = BitReader::new(&[200]);
        assert_eq!(
            read_fixed::<_, u8>(&mut r, 0, 100, 8, false)
                .unwrap_err()
                .kind,
            DecodeErrorKind::ValueOutOfRange
        );
    }

    #[test]
    fn vlq_modes() {
        for mode in [VlqMode::Plain, VlqMode::ZigZag, VlqMode::Offset] {
            for v in [-5i64, 0, 7, 1000] {
                let (min, max) = (-5, 1000);
                let mut w = BitWriter::new();
                let res = write_vlq_int(&mut w, v, mode, min, max, 3);
                if mode == VlqMode::Plain && v < 0 {
                    assert!(res.is_err());
                    continue;
                }
                res.unwrap();
                let bytes = w.into_bytes();
                assert_eq!(
                    read_vlq_int::<_, i64>(&mut BitReader::new(&bytes), mode, min, max, 3, 4),
                    Ok(v)
                );
            }
        }
        let mut w = BitWriter::new();
        assert!(write_vlq_int(&mut w, 2000i64, VlqMode::Plain, 0, 1000, 7).is_err());
        w.write_vlq(2000, 7).unwrap();
        let bytes = w.into_bytes();
        assert_eq!(
            read_vlq_int::<_, u16>(&mut BitReader::new(&bytes), VlqMode::Plain, 0, 1000, 7, 2)
                .unwrap_err()
                .kind,
            DecodeErrorKind::ValueOutOfRange
        );
        assert_eq!(
            read_vlq_int::<_, u16>(&mut BitReader::new(&bytes), VlqMode::Plain, 0, 1000, 7, 0)
                .unwrap_err()
                .kind,
            DecodeErrorKind::InvalidArgument
        );
    }

    #[test]
    fn enums_and_huffman() {
        let mut w = BitWriter::new();
        assert_eq!(
            write_enum(&mut w, 3u8, 3, 2).unwrap_err().kind,
            EncodeErrorKind::BadEnumerator
        );
        assert_eq!(
            write_enum(&mut w, -1i8, 3, 2).unwrap_err().kind,
            EncodeErrorKind::BadEnumerator
        );
        let codes = [(0b0, 1), (0b01, 2), (0b011, 3), (0b111, 3)];
        assert_eq!(
            write_huffman(&mut w, 4u8, &codes).unwrap_err().kind,
            EncodeErrorKind::BadEnumerator
        );
        assert_eq!(
            write_huffman(&mut w, 0u8, &[(2, 1)]).unwrap_err().kind,
            EncodeErrorKind::InvalidArgument
        );
        for i in 0..4u8 {
            write_huffman(&mut w, i, &codes).unwrap();
        }
        assert_eq!(w.bits_written(), 1 + 2 + 3 + 3);
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        for i in 0..4 {
            assert_eq!(read_huffman(&mut r, &codes), Ok(i));
        }
        // Single-enumerator code of length 0: nothing sent.
        let mut w = BitWriter::new();
        write_huffman(&mut w, 0u8, &[(0, 0)]).unwrap();
        assert_eq!(w.bits_written(), 0);
        assert_eq!(read_huffman(&mut BitReader::new(&[]), &[(0, 0)]), Ok(0));
        // Byte stream: the index.
        let mut w = ByteWriter::new();
        write_huffman(&mut w, 3u8, &codes).unwrap();
        let bytes = w.into_bytes();
        assert_eq!(bytes, [3]);
        assert_eq!(read_huffman(&mut ByteReader::new(&bytes), &codes), Ok(3));
        assert_eq!(
            read_huffman(&mut ByteReader::new(&[4]), &codes)
                .unwrap_err()
                .kind,
            DecodeErrorKind::BadEnumerator
        );
        assert_eq!(
            read_huffman(&mut BitReader::new(&[]), &codes)
                .unwrap_err()
                .kind,
            DecodeErrorKind::UnexpectedEnd
        );
    }

    #[test]
    fn numeric_ranges() {
        let w = BitWriter::new();
        assert!(check_numeric(&w, 0.0, 0.0, 1.0, false, true).is_err());
        assert_eq!(check_numeric(&w, -0.0, 0.0, 1.0, true, true), Ok(-0.0));
        assert!(check_numeric(&w, f64::INFINITY, 0.0, f64::INFINITY, true, false).is_err());
        let r = BitReader::new(&[]);
        assert!(numeric_in_range(&r, 1.0, 0.0, 1.0, true, false).is_err());
    }
}

#[cfg(test)]
mod bool_run_tests {
    use crate::{BitReader, BitWriter, WireRead, WireWrite, read_bool_elements};

    #[test]
    fn bool_runs_read_as_single_bools() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for len in 0..140u64 {
            let mut w = BitWriter::new();
            w.write_bits(0, 5).unwrap();
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                w.write_bool(state & 1 == 1).unwrap();
            }
            let bytes = w.finish().to_vec();
            let mut one = BitReader::new(&bytes);
            one.read_bits(5).unwrap();
            let single: Vec<bool> = (0..len).map(|_| one.read_bool().unwrap()).collect();
            let mut run = BitReader::new(&bytes);
            run.read_bits(5).unwrap();
            let read: Vec<bool> = read_bool_elements(&mut run, len, 1).unwrap();
            assert_eq!(read, single, "len {len}");
        }
    }
}
