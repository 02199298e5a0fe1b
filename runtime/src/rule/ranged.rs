//! Integers: a ranged `INT[min,max]` as its offset from `min` in `bits_required` bits (or
//! `BIT(n)`), and a fixed width (`UINT8` ... `INT64`, two's complement when signed). IDL ranges
//! are passed as `i128` so that every range of `INT64` and `UINT64` is exact.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::int::{WireInt, mask};
use crate::wire::{WireRead, WireWrite};

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
    let pattern = fixed_bits(w, value, min, max, bits, signed)?;
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
    fixed_value(raw, min, max, bits, signed)
        .ok_or_else(|| DecodeError::new(DecodeErrorKind::ValueOutOfRange, start))
}

/// The bits of a fixed-width integer (`UINT16`, `INT8`, ...: `bits` wide, two's complement
/// when `signed`) in a packed word, after checking `min..=max` and the width, as
/// [`write_fixed`](crate::write_fixed) writes it.
///
/// ```
/// use idlc_runtime::{BitWriter, fixed_bits};
/// let w = BitWriter::new();
/// assert_eq!(fixed_bits(&w, -2i16, -32768, 32767, 16, true), Ok(0xfffe));
/// assert!(fixed_bits(&w, 300u16, 0, 255, 8, false).is_err());
/// ```
#[inline]
pub fn fixed_bits<W: WireWrite, T: WireInt>(
    w: &W,
    value: T,
    min: i128,
    max: i128,
    bits: u32,
    signed: bool,
) -> Result<u64, EncodeError> {
    if bits > 64 {
        return Err(w.error(EncodeErrorKind::InvalidArgument));
    }
    let v = value.to_i128();
    let fits = if signed {
        bits > 0 && v >= -(1i128 << (bits - 1)) && v < (1i128 << (bits - 1)) || bits == 0 && v == 0
    } else {
        v >= 0 && v <= i128::from(mask(bits))
    };
    if v < min || v > max || !fits {
        return Err(w.error(EncodeErrorKind::ValueOutOfRange));
    }
    // v fits `bits` (<= 64) bits: its low 64 bits are its pattern.
    Ok((v as u64) & mask(bits))
}

/// The fixed-width integer whose `bits` a packed word carried (sign-extended when `signed`),
/// checked against `min..=max` and the Rust type.
///
/// ```
/// use idlc_runtime::{BitReader, fixed_from_bits};
/// let r = BitReader::new(&[]);
/// assert_eq!(fixed_from_bits::<_, i16>(&r, 0xfffe, -32768, 32767, 16, true), Ok(-2));
/// assert!(fixed_from_bits::<_, u8>(&r, 0xff, 0, 200, 8, false).is_err());
/// ```
#[inline]
pub fn fixed_from_bits<'a, R: WireRead<'a>, T: WireInt>(
    r: &R,
    raw: u64,
    min: i128,
    max: i128,
    bits: u32,
    signed: bool,
) -> Result<T, DecodeError> {
    fixed_value(raw, min, max, bits, signed)
        .ok_or_else(|| r.error(DecodeErrorKind::ValueOutOfRange))
}

/// `raw` (`bits` wide) as an integer of `min..=max` and of `T`, or `None`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn fixed_value<T: WireInt>(
    raw: u64,
    min: i128,
    max: i128,
    bits: u32,
    signed: bool,
) -> Option<T> {
    let v = if signed && bits > 0 && bits <= 64 {
        let shift = 64 - bits;
        i128::from(((raw << shift) as i64) >> shift)
    } else {
        i128::from(raw)
    };
    if v < min || v > max {
        return None;
    }
    T::from_i128(v)
}

#[cfg(test)]
mod tests {
    use crate::*;

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
}
