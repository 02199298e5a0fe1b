//! `VLQ(n)` of an integer: the value, its zigzag, or its offset from `min` in groups of `n`
//! bits (the groups themselves are the stream's: [`WireWrite::write_vlq`]).

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::int::WireInt;
use crate::int::{zigzag_decode, zigzag_encode};
use crate::wire::{WireRead, WireWrite};

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

/// A `VLQ(n)` rule of one integer range, built at compile time: generated code names each as a
/// module-level const (`VLQ_7_PLAIN_ON_0_TO_65535`) and calls [`Vlq::write`] / [`Vlq::read`],
/// which are [`write_vlq_int`] / [`read_vlq_int`] with these arguments.
///
/// ```
/// use idlc_runtime::{BitReader, BitWriter, Vlq, VlqMode};
/// const VLQ_3_OFFSET_ON_10_TO_100: Vlq = Vlq::new(VlqMode::Offset, 10, 100, 3, 3);
/// let mut w = BitWriter::new();
/// VLQ_3_OFFSET_ON_10_TO_100.write(&mut w, 12u8).unwrap();
/// let bytes = w.into_bytes();
/// assert_eq!(VLQ_3_OFFSET_ON_10_TO_100.read::<_, u8>(&mut BitReader::new(&bytes)), Ok(12));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Vlq {
    /// How the value is mapped to what is sent.
    pub mode: VlqMode,
    /// The range's lower end.
    pub min: i128,
    /// The range's upper end.
    pub max: i128,
    /// The bits of a group (`n` of `VLQ(n)`).
    pub group_bits: u32,
    /// The most groups a value of the range takes; a reader refuses more.
    pub max_groups: u32,
}

impl Vlq {
    /// The rule `VLQ(group_bits)` of `[min, max]` mapped by `mode`.
    pub const fn new(
        mode: VlqMode,
        min: i128,
        max: i128,
        group_bits: u32,
        max_groups: u32,
    ) -> Self {
        Vlq {
            mode,
            min,
            max,
            group_bits,
            max_groups,
        }
    }

    /// Writes `value` ([`write_vlq_int`]).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn write<W: WireWrite, T: WireInt>(&self, w: &mut W, value: T) -> Result<(), EncodeError> {
        write_vlq_int(w, value, self.mode, self.min, self.max, self.group_bits)
    }

    /// Reads a value ([`read_vlq_int`]).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn read<'a, R: WireRead<'a>, T: WireInt>(&self, r: &mut R) -> Result<T, DecodeError> {
        read_vlq_int(
            r,
            self.mode,
            self.min,
            self.max,
            self.group_bits,
            self.max_groups,
        )
    }
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
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
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
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
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

#[cfg(test)]
mod tests {
    use crate::*;

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
}
