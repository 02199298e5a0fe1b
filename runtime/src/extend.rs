//! Helpers for `EXTEND f TO T` (WIRE.md): the old slot keeps the old encoding, holding the low
//! bits of an unsigned widening or the value saturated into the old range; the extension carries
//! the rest.

use crate::collection::Collection;
use crate::error::{DecodeError, DecodeErrorKind};
use crate::int::{WireInt, mask};
use crate::rule::float::nearest_f32_inside;
use crate::wire::WireRead;

/// The value made of the low `bits` bits of `value` (the old slot of an unsigned widening
/// `UINT16 TO UINT32` holds `low_bits(v, 16)`).
///
/// ```
/// use idlc_runtime::low_bits;
/// assert_eq!(low_bits(0x1234_5678u32, 16), 0x5678);
/// assert_eq!(low_bits(7u8, 64), 7);
/// ```
#[inline]
#[must_use]
pub fn low_bits<T: WireInt>(value: T, bits: u32) -> T {
    let low = value.to_bit_pattern() & mask(bits);
    // `low` has no more bits than `value`, so it always fits back.
    T::from_bit_pattern(low).unwrap_or(value)
}

/// `value` clamped into `min..=max` (the old slot of a non-splittable widening). Never panics,
/// even if `min > max` (then `min` wins).
///
/// ```
/// use idlc_runtime::saturate;
/// assert_eq!(saturate(300i32, 0, 255), 255);
/// assert_eq!(saturate(-5i32, 0, 255), 0);
/// assert_eq!(saturate(17i32, 0, 255), 17);
/// ```
#[inline]
#[must_use]
pub fn saturate<T: PartialOrd>(value: T, min: T, max: T) -> T {
    if value < min {
        min
    } else if value > max {
        max
    } else {
        value
    }
}

/// A real clamped into the range of the old slot it is sent in (the old slot of a widened
/// `NUMERIC`), each end inclusive or not: past an open end, the `f64` next to it inside, which
/// the old slot's rule then takes (a FIXED_POINT rounds it to its last step inside, a FLOAT32
/// to the nearest `f32` inside). NaN stays NaN, for the rule to reject.
///
/// ```
/// use idlc_runtime::saturate_real;
/// assert_eq!(saturate_real(1.0, 0.0, 1.0, true, false), 1.0f64.next_down());
/// assert_eq!(saturate_real(5.0, 0.0, 1.0, true, true), 1.0);
/// assert_eq!(saturate_real(-1.0, 0.0, 1.0, false, true), 0.0f64.next_up());
/// assert_eq!(saturate_real(0.5, 0.0, 1.0, false, false), 0.5);
/// ```
#[inline]
#[must_use]
pub fn saturate_real(
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> f64 {
    let low = if min_inclusive { min } else { min.next_up() };
    let high = if max_inclusive { max } else { max.next_down() };
    saturate(value, low, high)
}

/// [`saturate_real`] of a real held as an `f32`: the nearest `f32` inside the old range (an
/// `f32` next to an open end can round onto it).
///
/// ```
/// use idlc_runtime::saturate_real_f32;
/// assert_eq!(saturate_real_f32(1.0, 0.0, 1.0, true, false), 1.0f32.next_down());
/// assert_eq!(saturate_real_f32(0.25, 0.0, 1.0, true, false), 0.25);
/// ```
#[inline]
#[must_use]
pub fn saturate_real_f32(
    value: f32,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> f32 {
    let real = saturate_real(f64::from(value), min, max, min_inclusive, max_inclusive);
    nearest_f32_inside(real, min, max, min_inclusive, max_inclusive)
}

/// Bits `low..low + width` of `value`'s bit pattern, for writing with
/// `write_bits(_, width)` (the extension of an unsigned widening holds the high bits).
///
/// ```
/// use idlc_runtime::bit_slice;
/// assert_eq!(bit_slice(0x1234_5678u32, 16, 16), 0x1234);
/// assert_eq!(bit_slice(u64::MAX, 60, 8), 0xf);
/// ```
#[inline]
#[must_use]
pub fn bit_slice<T: WireInt>(value: T, low: u32, width: u32) -> u64 {
    value.to_bit_pattern().checked_shr(low).unwrap_or(0) & mask(width)
}

/// `base` with `slice` placed at bit `low` (the decoder of an unsigned widening joins the old
/// slot's low bits and the extension's high bits). A result that does not fit `T` is
/// [`DecodeErrorKind::ValueOutOfRange`] at `r`'s position.
///
/// ```
/// use idlc_runtime::{with_bit_slice, BitReader};
/// let r = BitReader::new(&[]);
/// assert_eq!(with_bit_slice(&r, 0x5678u32, 0x1234, 16), Ok(0x1234_5678));
/// assert!(with_bit_slice(&r, 0u16, 0x1, 16).is_err());
/// ```
#[inline]
pub fn with_bit_slice<'a, R: WireRead<'a>, T: WireInt>(
    r: &R,
    base: T,
    slice: u64,
    low: u32,
) -> Result<T, DecodeError> {
    let high = match slice.checked_shl(low) {
        Some(h) if h.checked_shr(low) == Some(slice) => h,
        _ if slice == 0 => 0,
        _ => {
            return Err(DecodeError::new(
                DecodeErrorKind::ValueOutOfRange,
                r.bits_read(),
            ));
        }
    };
    T::from_bit_pattern(base.to_bit_pattern() | high)
        .ok_or_else(|| DecodeError::new(DecodeErrorKind::ValueOutOfRange, r.bits_read()))
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary: the
/// old slot of `EXTEND name TO STRING<n>` (an older reader sees the text cut there).
///
/// ```
/// use idlc_runtime::truncate_utf8;
/// assert_eq!(truncate_utf8("hello", 4), "hell");
/// assert_eq!(truncate_utf8("héllo", 2), "h"); // é is two bytes
/// assert_eq!(truncate_utf8("hi", 8), "hi");
/// ```
#[must_use]
pub fn truncate_utf8(text: &str, max: u64) -> &str {
    let mut end = usize::try_from(max).unwrap_or(usize::MAX).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The first `max` bytes of `bytes`, owned: the old slot of `EXTEND blob TO BYTES<n>`.
///
/// ```
/// use idlc_runtime::truncated_bytes;
/// assert_eq!(truncated_bytes(&[1, 2, 3], 2), vec![1, 2]);
/// ```
#[must_use]
pub fn truncated_bytes(bytes: &[u8], max: u64) -> Vec<u8> {
    let end = usize::try_from(max).unwrap_or(usize::MAX).min(bytes.len());
    bytes[..end].to_vec()
}

/// The first `max` elements of `collection`, cloned into a new one: the old slot of
/// `EXTEND items TO SEQUENCE<T, n>`.
///
/// ```
/// use idlc_runtime::truncated;
/// assert_eq!(truncated(&vec![1, 2, 3], 2), vec![1, 2]);
/// ```
#[must_use]
pub fn truncated<C>(collection: &C, max: u64) -> C
where
    C: Collection + Default,
    C::Item: Clone,
{
    let end = usize::try_from(max)
        .unwrap_or(usize::MAX)
        .min(collection.len());
    let mut out = C::with_capacity(end);
    for item in collection.iter().take(end) {
        out.push(item.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BitReader;

    #[test]
    fn patterns() {
        assert_eq!(i64::MIN.to_bit_pattern(), 1 << 63);
        assert_eq!(i64::from_bit_pattern(1 << 63), Some(i64::MIN));
        assert_eq!(i8::from_bit_pattern(0x80), Some(-128));
        assert_eq!(u64::from_bit_pattern(u64::MAX), Some(u64::MAX));
        assert_eq!(low_bits(-1i32, 8), 0xff);
        assert_eq!(low_bits(-1i32, 0), 0);
        assert_eq!(bit_slice(1u8, 64, 8), 0);
        assert!(saturate(f64::NAN, 0.0, 1.0).is_nan());
        assert_eq!(saturate(5, 10, 0), 10);
        let r = BitReader::new(&[]);
        assert!(with_bit_slice(&r, 0u64, 2, 63).is_err());
        assert_eq!(with_bit_slice(&r, 0u64, 1, 63), Ok(1 << 63));
        assert_eq!(with_bit_slice(&r, 3u8, 0, 200), Ok(3));
        assert!(with_bit_slice(&r, 0u64, 1, 64).is_err());
        assert_eq!(with_bit_slice(&r, 0xffi16, 0xff, 8), Ok(-1));
    }
}
