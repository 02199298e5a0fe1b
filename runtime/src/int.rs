//! Integer helpers: `bits_required`, widths, masks, zigzag.

/// Number of bits needed to send any value of `min..=max` as `v - min`: the bit length of
/// `max - min`, so 0 when `min == max` (nothing is sent) and 64 for the whole `u64` range.
/// Returns 0 when `min > max`.
///
/// ```
/// use idlc_runtime::bits_required;
/// assert_eq!(bits_required(5, 5), 0);
/// assert_eq!(bits_required(0, 1), 1);
/// assert_eq!(bits_required(0, 119), 7);
/// assert_eq!(bits_required(0, u64::MAX), 64);
/// ```
#[inline]
#[must_use]
pub const fn bits_required(min: u64, max: u64) -> u32 {
    if max <= min {
        0
    } else {
        64 - (max - min).leading_zeros()
    }
}

/// [`bits_required`] for a signed range: the bit length of `max - min` (computed without
/// overflow). Returns 0 when `min >= max`.
///
/// ```
/// use idlc_runtime::bits_required_signed;
/// assert_eq!(bits_required_signed(-10, 10), 5);
/// assert_eq!(bits_required_signed(i64::MIN, i64::MAX), 64);
/// assert_eq!(bits_required_signed(-3, -3), 0);
/// ```
#[inline]
#[must_use]
pub const fn bits_required_signed(min: i64, max: i64) -> u32 {
    if max <= min {
        0
    } else {
        bits_required(0, range_span(min, max))
    }
}

/// [`bits_required`] for any integer range that fits `i128` (convenient for code generators that
/// keep IDL ranges as `i128`). Returns `None` when the span needs more than 64 bits; 0 when
/// `min >= max`.
///
/// ```
/// use idlc_runtime::bits_required_i128;
/// assert_eq!(bits_required_i128(-1, u64::MAX as i128 - 1), Some(64));
/// assert_eq!(bits_required_i128(-1, u64::MAX as i128), None);
/// assert_eq!(bits_required_i128(0, 119), Some(7));
/// ```
#[must_use]
pub const fn bits_required_i128(min: i128, max: i128) -> Option<u32> {
    if max <= min {
        return Some(0);
    }
    let span = max.abs_diff(min);
    if span > u64::MAX as u128 {
        None
    } else {
        Some(bits_required(0, span as u64))
    }
}

/// `max - min` of a signed range as an unsigned offset (exact for every `min <= max`).
#[inline]
pub(crate) const fn range_span(min: i64, max: i64) -> u64 {
    max.wrapping_sub(min) as u64
}

/// Mask of the low `bits` bits (`bits` in 0..=64).
#[inline]
pub(crate) const fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Bytes a BYTESTREAM uses for a value of `bits` bits: the smallest of 1, 2, 4, 8 that holds it,
/// and 0 for 0 bits (nothing is sent). `bits` above 64 give 8.
///
/// ```
/// use idlc_runtime::byte_width;
/// assert_eq!(byte_width(0), 0);
/// assert_eq!(byte_width(1), 1);
/// assert_eq!(byte_width(9), 2);
/// assert_eq!(byte_width(17), 4);
/// assert_eq!(byte_width(33), 8);
/// ```
#[inline]
#[must_use]
pub const fn byte_width(bits: u32) -> usize {
    match bits {
        0 => 0,
        1..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        _ => 8,
    }
}

/// Zigzag maps signed to unsigned so that small magnitudes stay small:
/// 0, -1, 1, -2, 2, ... become 0, 1, 2, 3, 4, ...
///
/// ```
/// use idlc_runtime::{zigzag_encode, zigzag_decode};
/// assert_eq!(zigzag_encode(-1), 1);
/// assert_eq!(zigzag_encode(1), 2);
/// assert_eq!(zigzag_encode(i64::MIN), u64::MAX);
/// assert_eq!(zigzag_decode(zigzag_encode(-12345)), -12345);
/// ```
#[inline]
#[must_use]
pub const fn zigzag_encode(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

/// Inverse of [`zigzag_encode`].
///
/// ```
/// use idlc_runtime::zigzag_decode;
/// assert_eq!(zigzag_decode(3), -2);
/// assert_eq!(zigzag_decode(u64::MAX), i64::MIN);
/// ```
#[inline]
#[must_use]
pub const fn zigzag_decode(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// `count` as a `usize` when `count * min_element_bits` fits in `bits_remaining` (zero-size
/// elements of an unbounded sequence counting one bit each, so that no count makes a reader loop
/// past the input); `None` is [`DecodeErrorKind::LengthOverBound`] at the caller's offset.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
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

/// The Rust integer types generated code maps IDL integers to: `u8`..`u64`, `i8`..`i64`,
/// `usize`, `isize`. Gives their value as `i128` (exact) and their bit pattern (the type's own
/// width in two's complement: `-1i16` is `0xffff`).
///
/// ```
/// use idlc_runtime::WireInt;
/// assert_eq!((-1i16).to_bit_pattern(), 0xffff);
/// assert_eq!(i16::from_bit_pattern(0xffff), Some(-1));
/// assert_eq!(u8::from_bit_pattern(0x100), None);
/// assert_eq!(u64::MAX.to_i128(), u64::MAX as i128);
/// assert_eq!(i8::from_i128(128), None);
/// ```
pub trait WireInt: Copy {
    /// Width of the type in bits.
    const BITS: u32;
    /// The type's bits, zero-extended to 64.
    fn to_bit_pattern(self) -> u64;
    /// The value with bit pattern `bits`, or `None` if `bits` is wider than the type.
    fn from_bit_pattern(bits: u64) -> Option<Self>;
    /// The value, exactly.
    fn to_i128(self) -> i128;
    /// The value `v`, or `None` if the type cannot hold it.
    fn from_i128(v: i128) -> Option<Self>;
}

macro_rules! wire_int {
    ($($t:ty => $u:ty),*) => {$(
        impl WireInt for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline]
            fn to_bit_pattern(self) -> u64 {
                // Reinterpret as the unsigned type of the same width, then widen.
                self as $u as u64
            }
            #[inline]
            fn from_bit_pattern(bits: u64) -> Option<Self> {
                <$u>::try_from(bits).ok().map(|u| u as $t)
            }
            #[inline]
            fn to_i128(self) -> i128 {
                // Every listed type fits i128 exactly.
                self as i128
            }
            #[inline]
            fn from_i128(v: i128) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
        }
    )*};
}

wire_int!(u8 => u8, u16 => u16, u32 => u32, u64 => u64, usize => usize,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => usize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_required_boundaries() {
        assert_eq!(bits_required(0, 0), 0);
        assert_eq!(bits_required(u64::MAX, u64::MAX), 0);
        assert_eq!(bits_required(7, 3), 0);
        assert_eq!(bits_required(0, 2), 2);
        assert_eq!(bits_required(0, 3), 2);
        assert_eq!(bits_required(0, 4), 3);
        assert_eq!(bits_required(1, u64::MAX), 64);
        assert_eq!(bits_required(2, u64::MAX), 64);
        assert_eq!(bits_required(0, 1 << 63), 64);
        assert_eq!(bits_required(0, (1 << 63) - 1), 63);
        for b in 1..64u32 {
            assert_eq!(bits_required(0, (1u64 << b) - 1), b);
            assert_eq!(bits_required(0, 1u64 << b), b + 1);
        }
        assert_eq!(bits_required_signed(i64::MIN, i64::MIN), 0);
        assert_eq!(bits_required_signed(i64::MAX, i64::MAX), 0);
        assert_eq!(bits_required_signed(i64::MIN, 0), 64);
        assert_eq!(bits_required_signed(-1, 0), 1);
        assert_eq!(bits_required_signed(-1, i64::MAX), 64);
        assert_eq!(bits_required_signed(0, i64::MAX), 63);
        assert_eq!(bits_required_signed(3, -3), 0);
        assert_eq!(bits_required_i128(i128::MIN, i128::MAX), None);
        assert_eq!(bits_required_i128(5, 4), Some(0));
        assert_eq!(
            bits_required_i128(i64::MIN as i128, i64::MAX as i128),
            Some(64)
        );
    }

    #[test]
    fn masks_and_widths() {
        assert_eq!(mask(0), 0);
        assert_eq!(mask(1), 1);
        assert_eq!(mask(63), u64::MAX >> 1);
        assert_eq!(mask(64), u64::MAX);
        assert_eq!(byte_width(8), 1);
        assert_eq!(byte_width(16), 2);
        assert_eq!(byte_width(32), 4);
        assert_eq!(byte_width(64), 8);
        assert_eq!(byte_width(65), 8);
    }

    #[test]
    fn zigzag_ends() {
        for v in [
            0,
            1,
            -1,
            2,
            -2,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
            i64::MAX - 1,
        ] {
            assert_eq!(zigzag_decode(zigzag_encode(v)), v);
        }
        assert_eq!(zigzag_encode(0), 0);
        assert_eq!(zigzag_encode(i64::MAX), u64::MAX - 1);
        for u in [0, 1, 2, u64::MAX, u64::MAX - 1] {
            assert_eq!(zigzag_encode(zigzag_decode(u)), u);
        }
    }
}
