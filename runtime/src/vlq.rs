//! Variable-length quantities: `VLQ(n)`.
//!
//! A VLQ splits a value into groups of `n` payload bits, least significant group first; every
//! group is followed by one continuation bit (1: another group follows). The writer always emits
//! the minimal encoding (the last group is non-zero unless it is the only one), and the reader
//! rejects anything else as [`DecodeErrorKind::OverlongVlq`]: more groups than the type needs,
//! payload bits beyond the type's width, or a redundant zero group at the end. So every value has
//! exactly one encoding. In a BYTESTREAM a VLQ is LEB128 whatever `n` (see `docs/WIRE_FORMAT.md`).

use crate::error::{DecodeError, DecodeErrorKind};
use crate::int::mask;

/// The group size used when an encoding says just `VLQ`, and for unbounded lengths and counts.
///
/// ```
/// assert_eq!(idlc_runtime::DEFAULT_VLQ_GROUP_BITS, 7);
/// ```
pub const DEFAULT_VLQ_GROUP_BITS: u32 = 7;

/// Largest group size `VLQ(n)` accepts (the smallest is 1).
///
/// ```
/// assert_eq!(idlc_runtime::MAX_VLQ_GROUP_BITS, 32);
/// ```
pub const MAX_VLQ_GROUP_BITS: u32 = 32;

/// Whether `group_bits` is a valid `VLQ(n)` group size (1..=32).
///
/// ```
/// use idlc_runtime::valid_vlq_group_bits;
/// assert!(valid_vlq_group_bits(7));
/// assert!(!valid_vlq_group_bits(0));
/// assert!(!valid_vlq_group_bits(33));
/// ```
#[inline]
#[must_use]
pub const fn valid_vlq_group_bits(group_bits: u32) -> bool {
    group_bits >= 1 && group_bits <= MAX_VLQ_GROUP_BITS
}

/// Number of groups of the minimal `VLQ(group_bits)` encoding of `value` (at least 1).
/// `group_bits` must be valid (see [`valid_vlq_group_bits`]); 0 is treated as 1.
///
/// ```
/// use idlc_runtime::vlq_groups;
/// assert_eq!(vlq_groups(0, 7), 1);
/// assert_eq!(vlq_groups(127, 7), 1);
/// assert_eq!(vlq_groups(128, 7), 2);
/// assert_eq!(vlq_groups(u64::MAX, 7), 10);
/// assert_eq!(vlq_groups(u64::MAX, 1), 64);
/// ```
#[inline]
#[must_use]
pub const fn vlq_groups(value: u64, group_bits: u32) -> u32 {
    let n = if group_bits == 0 { 1 } else { group_bits };
    let used = 64 - value.leading_zeros();
    if used == 0 { 1 } else { used.div_ceil(n) }
}

/// Bits the minimal `VLQ(group_bits)` encoding of `value` takes in a BITSTREAM:
/// `groups * (group_bits + 1)`.
///
/// ```
/// use idlc_runtime::vlq_bits;
/// assert_eq!(vlq_bits(5, 7), 8);
/// assert_eq!(vlq_bits(300, 7), 16);
/// assert_eq!(vlq_bits(3, 1), 4);
/// ```
#[inline]
#[must_use]
pub const fn vlq_bits(value: u64, group_bits: u32) -> u64 {
    let n = if group_bits == 0 { 1 } else { group_bits };
    vlq_groups(value, n) as u64 * (n as u64 + 1)
}

/// Most groups a reader accepts for a type of `type_bits` bits: `ceil(type_bits / group_bits)`.
///
/// ```
/// use idlc_runtime::vlq_max_groups;
/// assert_eq!(vlq_max_groups(7, 64), 10);
/// assert_eq!(vlq_max_groups(7, 16), 3);
/// assert_eq!(vlq_max_groups(32, 64), 2);
/// ```
#[inline]
#[must_use]
pub const fn vlq_max_groups(group_bits: u32, type_bits: u32) -> u32 {
    let n = if group_bits == 0 { 1 } else { group_bits };
    type_bits.div_ceil(n)
}

/// Checks the arguments of a VLQ read.
#[inline]
pub(crate) fn check_vlq_args(group_bits: u32, type_bits: u32, at: u64) -> Result<(), DecodeError> {
    if valid_vlq_group_bits(group_bits) && (1..=64).contains(&type_bits) {
        Ok(())
    } else {
        Err(DecodeError::new(DecodeErrorKind::InvalidArgument, at))
    }
}

/// Decodes one VLQ from a source of groups. `next_group` returns `(payload, more)` for the next
/// group; errors it returns are passed on. Validates minimality and the type's width; errors
/// other than those of `next_group` carry the offset `start`.
#[inline]
pub(crate) fn decode_vlq(
    group_bits: u32,
    type_bits: u32,
    start: u64,
    mut next_group: impl FnMut() -> Result<(u64, bool), DecodeError>,
) -> Result<u64, DecodeError> {
    let max_groups = vlq_max_groups(group_bits, type_bits);
    let mut value = 0u64;
    let mut shift = 0u32;
    for i in 0..max_groups {
        let (payload, more) = next_group()?;
        // shift < type_bits <= 64 here.
        let room = type_bits - shift;
        if room < group_bits && payload & !mask(room) != 0 {
            return Err(DecodeError::new(DecodeErrorKind::OverlongVlq, start));
        }
        if !more {
            if i > 0 && payload == 0 {
                return Err(DecodeError::new(DecodeErrorKind::OverlongVlq, start));
            }
            return Ok(value | payload << shift);
        }
        value |= payload << shift;
        shift += group_bits;
    }
    Err(DecodeError::new(DecodeErrorKind::OverlongVlq, start))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups_of(value: u64, n: u32) -> Vec<(u64, bool)> {
        let mut out = Vec::new();
        let mut v = value;
        loop {
            let g = v & mask(n);
            v >>= n;
            out.push((g, v != 0));
            if v == 0 {
                return out;
            }
        }
    }

    fn decode(groups: &[(u64, bool)], n: u32, t: u32) -> Result<u64, DecodeErrorKind> {
        let mut it = groups.iter().copied();
        decode_vlq(n, t, 0, || {
            it.next()
                .ok_or_else(|| DecodeError::new(DecodeErrorKind::UnexpectedEnd, 0))
        })
        .map_err(|e| e.kind)
    }

    #[test]
    fn decode_accepts_minimal_and_rejects_the_rest() {
        for n in 1..=32 {
            for v in [0, 1, 2, 127, 128, 1 << 40, u64::MAX, u64::MAX - 1, 1 << 63] {
                let g = groups_of(v, n);
                assert_eq!(g.len() as u32, vlq_groups(v, n));
                assert_eq!(decode(&g, n, 64), Ok(v), "n={n} v={v}");
            }
            // A redundant zero group.
            let mut g = groups_of(5 & mask(n), n);
            if let Some(last) = g.last_mut() {
                last.1 = true;
            }
            g.push((0, false));
            assert_eq!(decode(&g, n, 64), Err(DecodeErrorKind::OverlongVlq));
            // Too many groups.
            let g = vec![(1, true); vlq_max_groups(n, 64) as usize + 1];
            assert_eq!(decode(&g, n, 64), Err(DecodeErrorKind::OverlongVlq));
        }
        // Bits beyond the type's width in the last allowed group.
        assert_eq!(
            decode(&[(0x7f, true), (0x7f, true), (0x04, false)], 7, 16),
            Err(DecodeErrorKind::OverlongVlq)
        );
        assert_eq!(
            decode(&[(0x7f, true), (0x7f, true), (0x03, false)], 7, 16),
            Ok(0xffff)
        );
        // u64 with 7-bit groups: the 10th group may hold only 1 bit.
        let mut g = groups_of(u64::MAX, 7);
        assert_eq!(g.len(), 10);
        if let Some(last) = g.last_mut() {
            last.0 = 2;
        }
        assert_eq!(decode(&g, 7, 64), Err(DecodeErrorKind::OverlongVlq));
        assert_eq!(decode(&[], 7, 64), Err(DecodeErrorKind::UnexpectedEnd));
    }

    #[test]
    fn sizes() {
        assert_eq!(vlq_groups(0, 0), 1);
        assert_eq!(vlq_bits(u64::MAX, 32), 66);
        assert_eq!(vlq_bits(u64::MAX, 0), 128);
        assert_eq!(vlq_max_groups(0, 64), 64);
        assert_eq!(vlq_max_groups(1, 1), 1);
    }
}
