//! Delta and dead-reckoning support: the baseline context, extrapolation on quantized steps,
//! and the `DELTA SEQUENCE` coding.
//!
//! Delta encodings are relative to a *baseline*, the state the receiver holds. The sender keeps
//! a mirror of it, built only from what was sent (quantized steps, never its exact values), so
//! that after any number of ticks the mirror equals the receiver's state bit for bit. Everything
//! here is a pure function of such sent values, computed identically on both sides.

use crate::collection::Collection;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::fixed::FixedPoint;
use crate::int::bits_required;
use crate::wire::{WireRead, WireWrite};

/// What a delta or dead-reckoning encode / decode needs besides the two states.
///
/// `elapsed` is the time in seconds since the baseline was captured. Both sides must use the
/// *same* value (derive it from tick numbers, e.g. `ticks as f64 * TICK`, not from local clocks),
/// since dead-reckoning extrapolates with it.
///
/// ```
/// use idlc_runtime::DeltaContext;
/// let ctx = DeltaContext::from_ticks(3, 1.0 / 30.0);
/// assert_eq!(ctx.elapsed, 3.0 / 30.0);
/// assert_eq!(DeltaContext::default().elapsed, 0.0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DeltaContext {
    /// Seconds since the baseline.
    pub elapsed: f64,
}

impl DeltaContext {
    /// A context `elapsed` seconds after the baseline.
    ///
    /// ```
    /// use idlc_runtime::DeltaContext;
    /// assert_eq!(DeltaContext::new(0.5).elapsed, 0.5);
    /// ```
    #[must_use]
    pub const fn new(elapsed: f64) -> Self {
        Self { elapsed }
    }

    /// A context `ticks` ticks of `tick_seconds` after the baseline (`ticks as f64 *
    /// tick_seconds`, the same on both sides).
    ///
    /// ```
    /// use idlc_runtime::DeltaContext;
    /// assert_eq!(DeltaContext::from_ticks(2, 0.25).elapsed, 0.5);
    /// ```
    #[must_use]
    pub fn from_ticks(ticks: u64, tick_seconds: f64) -> Self {
        Self {
            elapsed: ticks as f64 * tick_seconds,
        }
    }
}

/// One axis of a `DEAD_RECKONING` block: a quantized position and its quantized velocity.
///
/// Extrapolation works on step indices: the displacement `v * elapsed` is rounded to a whole
/// number of position steps and added to the baseline's step, then clamped into the position's
/// range. Every operation is one IEEE-754 operation with round-to-nearest (Rust never fuses or
/// reorders them), on inputs both sides hold bit for bit — the baseline's steps and the shared
/// `elapsed` — so the receiver's extrapolation and the sender's mirror agree exactly.
///
/// ```
/// use idlc_runtime::{DeadReckoningAxis, DeltaContext, FixedPoint};
/// let axis = DeadReckoningAxis::new(
///     FixedPoint::new(-100.0, 100.0, 0.01).unwrap(),
///     FixedPoint::new(-10.0, 10.0, 0.01).unwrap(),
/// );
/// let p = axis.position.quantize(1.0).unwrap();
/// let v = axis.velocity.quantize(2.0).unwrap();
/// let ctx = DeltaContext::new(0.5);
/// assert!((axis.predict(p, v, &ctx) - 2.0).abs() < 1e-9);
/// assert!(!axis.needs_update(2.015, p, v, &ctx, 0.02));
/// assert!(axis.needs_update(2.05, p, v, &ctx, 0.02));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeadReckoningAxis {
    /// The position field's quantizer.
    pub position: FixedPoint,
    /// The velocity field's quantizer (units of position per second).
    pub velocity: FixedPoint,
}

impl DeadReckoningAxis {
    /// An axis from its two quantizers.
    ///
    /// ```
    /// use idlc_runtime::{DeadReckoningAxis, FixedPoint};
    /// let fp = FixedPoint::new(0.0, 1.0, 0.5).unwrap();
    /// assert_eq!(DeadReckoningAxis::new(fp, fp).position, fp);
    /// ```
    #[must_use]
    pub const fn new(position: FixedPoint, velocity: FixedPoint) -> Self {
        Self { position, velocity }
    }

    /// The position step both sides hold `ctx.elapsed` seconds after a baseline of
    /// (`pos_step`, `vel_step`): `clamp(pos_step + round(v * elapsed / r), 0, steps)`. A
    /// non-finite displacement (e.g. a NaN elapsed) counts as 0.
    ///
    /// ```
    /// use idlc_runtime::{DeadReckoningAxis, DeltaContext, FixedPoint};
    /// let axis = DeadReckoningAxis::new(
    ///     FixedPoint::new(0.0, 10.0, 0.5).unwrap(),
    ///     FixedPoint::new(-1.0, 1.0, 0.5).unwrap(),
    /// );
    /// let v = axis.velocity.quantize(1.0).unwrap();
    /// assert_eq!(axis.extrapolate(4, v, &DeltaContext::new(1.0)), 6);
    /// assert_eq!(axis.extrapolate(4, v, &DeltaContext::new(100.0)), 20); // clamped
    /// ```
    #[must_use]
    pub fn extrapolate(&self, pos_step: u64, vel_step: u64, ctx: &DeltaContext) -> u64 {
        let (first, steps) = (self.position.first(), self.position.steps());
        let base = pos_step.clamp(first, steps);
        let v = self.velocity.dequantize(vel_step);
        let displacement = (v * ctx.elapsed / self.position.resolution()).round();
        if !displacement.is_finite() {
            return base;
        }
        // base <= 2^53 is exact; the sum is exact unless it is far outside the range anyway.
        let q = base as f64 + displacement;
        if q <= first as f64 {
            first
        } else if q >= steps as f64 {
            steps
        } else {
            q as u64
        }
    }

    /// The extrapolated position value: `position.dequantize(extrapolate(..))`.
    ///
    /// ```
    /// use idlc_runtime::{DeadReckoningAxis, DeltaContext, FixedPoint};
    /// let fp = FixedPoint::new(0.0, 10.0, 0.5).unwrap();
    /// let axis = DeadReckoningAxis::new(fp, FixedPoint::new(-1.0, 1.0, 0.5).unwrap());
    /// assert_eq!(axis.predict(4, 2, &DeltaContext::new(3.0)), 2.0); // v = 0
    /// ```
    #[must_use]
    pub fn predict(&self, pos_step: u64, vel_step: u64, ctx: &DeltaContext) -> f64 {
        self.position
            .dequantize(self.extrapolate(pos_step, vel_step, ctx))
    }

    /// Whether the sender must send the block because the receiver's extrapolation is off by
    /// more than `deviation` from the true position (a NaN true position always needs an update,
    /// which then fails to encode).
    ///
    /// ```
    /// use idlc_runtime::{DeadReckoningAxis, DeltaContext, FixedPoint};
    /// let fp = FixedPoint::new(0.0, 10.0, 0.5).unwrap();
    /// let axis = DeadReckoningAxis::new(fp, FixedPoint::new(-1.0, 1.0, 0.5).unwrap());
    /// let ctx = DeltaContext::new(0.0);
    /// assert!(!axis.needs_update(2.2, 4, 2, &ctx, 0.25));
    /// assert!(axis.needs_update(2.3, 4, 2, &ctx, 0.25));
    /// ```
    #[must_use]
    pub fn needs_update(
        &self,
        true_position: f64,
        pos_step: u64,
        vel_step: u64,
        ctx: &DeltaContext,
        deviation: f64,
    ) -> bool {
        exceeds_deviation(
            true_position,
            self.predict(pos_step, vel_step, ctx),
            deviation,
        )
    }
}

/// `true` when `predicted` is more than `deviation` away from `actual` (or either is NaN).
///
/// ```
/// use idlc_runtime::exceeds_deviation;
/// assert!(!exceeds_deviation(1.0, 1.01, 0.02));
/// assert!(exceeds_deviation(1.0, 1.03, 0.02));
/// assert!(exceeds_deviation(f64::NAN, 1.0, 0.02));
/// ```
#[inline]
#[must_use]
pub fn exceeds_deviation(actual: f64, predicted: f64, deviation: f64) -> bool {
    // Anything but "less or equal" (including a NaN on either side) exceeds.
    !matches!(
        (actual - predicted).abs().partial_cmp(&deviation),
        Some(core::cmp::Ordering::Less | core::cmp::Ordering::Equal)
    )
}

/// Group size of the VLQ in an index gap of a `DELTA SEQUENCE` (BITSTREAM).
///
/// ```
/// assert_eq!(idlc_runtime::INDEX_GAP_GROUP_BITS, 3);
/// ```
pub const INDEX_GAP_GROUP_BITS: u32 = 3;

/// Writes the gap between two changed indices of a `DELTA SEQUENCE`:
/// `gap = index - previous - 1` (the first index is its own gap). BITSTREAM: a 1 bit for gap 0
/// (consecutive), else a 0 bit and `gap - 1` as `VLQ(3)` (5 bits for gaps 1..=8, 9 bits up to
/// 72, ...). BYTESTREAM: `gap` as LEB128.
///
/// ```
/// use idlc_runtime::{write_index_gap, BitWriter, WireWrite};
/// let mut w = BitWriter::new();
/// write_index_gap(&mut w, 0).unwrap();
/// write_index_gap(&mut w, 5).unwrap();
/// assert_eq!(w.bits_written(), 1 + 5);
/// ```
#[inline]
pub fn write_index_gap<W: WireWrite>(w: &mut W, gap: u64) -> Result<(), EncodeError> {
    if W::BYTE_STREAM {
        return w.write_vlq(gap, 7);
    }
    if gap == 0 {
        w.write_bool(true)
    } else {
        w.write_bool(false)?;
        w.write_vlq(gap - 1, INDEX_GAP_GROUP_BITS)
    }
}

/// Reads an index gap written by [`write_index_gap`].
///
/// ```
/// use idlc_runtime::{read_index_gap, BitReader};
/// let mut r = BitReader::new(&[0b0_100_0_1]); // 1 | 0, 4 in VLQ(3)
/// assert_eq!(read_index_gap(&mut r).unwrap(), 0);
/// assert_eq!(read_index_gap(&mut r).unwrap(), 5);
/// ```
#[inline]
pub fn read_index_gap<'a, R: WireRead<'a>>(r: &mut R) -> Result<u64, DecodeError> {
    if R::BYTE_STREAM {
        return r.read_vlq(7);
    }
    if r.read_bool()? {
        return Ok(0);
    }
    let start = r.bits_read();
    let gap = r.read_vlq(INDEX_GAP_GROUP_BITS)?;
    gap.checked_add(1)
        .ok_or(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start))
}

/// Writes a `DELTA SEQUENCE` of `current` against `baseline`; returns whether anything changed.
///
/// Layout: a changed-bit; if 1: the new count (as [`WireWrite::write_count`] with `max`), the
/// number of listed elements in `bits_required(0, count)` bits, the listed indices as gaps
/// ([`write_index_gap`]), then the listed elements in index order. An element is listed when it
/// is new (index at or past the baseline's length) or when `same(baseline, current)` is false;
/// `same` must compare the values *as sent* (after quantization). `write_item` gets the
/// baseline element when there is one, for element-wise delta.
///
/// ```
/// use idlc_runtime::{read_delta_sequence, write_delta_sequence, BitReader, BitWriter, WireRead, WireWrite};
/// let base = vec![10u64, 20, 30, 40];
/// let cur = vec![10u64, 21, 30, 40, 50];
/// let mut w = BitWriter::new();
/// let changed = write_delta_sequence(&mut w, &base, &cur, None, |a, b| a == b,
///     |w, &x, _| w.write_bits(x, 8)).unwrap();
/// assert!(changed);
/// let bytes = w.into_bytes();
/// let got: Option<Vec<u64>> = read_delta_sequence(&mut BitReader::new(&bytes), &base, None, 8,
///     |r, _| r.read_bits(8)).unwrap();
/// assert_eq!(got, Some(cur));
/// ```
pub fn write_delta_sequence<W, C, E, F>(
    w: &mut W,
    baseline: &C,
    current: &C,
    max: Option<u64>,
    mut same: E,
    mut write_item: F,
) -> Result<bool, EncodeError>
where
    W: WireWrite,
    C: Collection + ?Sized,
    E: FnMut(&C::Item, &C::Item) -> bool,
    F: FnMut(&mut W, &C::Item, Option<&C::Item>) -> Result<(), EncodeError>,
{
    let mut base_iter = baseline.iter();
    let mut listed: Vec<u64> = Vec::new();
    for (i, item) in current.iter().enumerate() {
        let unchanged = base_iter.next().is_some_and(|b| same(b, item));
        if !unchanged {
            listed.push(i as u64);
        }
    }
    let count = current.len() as u64;
    if listed.is_empty() && current.len() == baseline.len() {
        w.write_bool(false)?;
        return Ok(false);
    }
    w.write_bool(true)?;
    w.write_count(count, max)?;
    w.write_bits(listed.len() as u64, bits_required(0, count))?;
    let mut next = 0u64;
    for &index in &listed {
        write_index_gap(w, index - next)?;
        next = index + 1;
    }
    let mut base_iter = baseline.iter();
    let mut listed_iter = listed.iter().peekable();
    for (i, item) in current.iter().enumerate() {
        let base = base_iter.next();
        if listed_iter.next_if(|&&index| index == i as u64).is_some() {
            write_item(w, item, base)?;
        }
    }
    Ok(true)
}

/// Reads a `DELTA SEQUENCE` written by [`write_delta_sequence`] against the same `baseline`.
/// Returns `None` when nothing changed (keep the baseline).
///
/// Checks before allocating: the count against `max`; each listed element needs at least
/// `1 + min_element_bits` bits; every new element (index at or past the baseline's length) must
/// be listed, so the result is at most the baseline's length plus what the input can hold;
/// listed indices must be below the count ([`DecodeErrorKind::ValueOutOfRange`]).
///
/// ```
/// use idlc_runtime::{read_delta_sequence, BitReader, WireRead};
/// let base = vec![1u64, 2, 3];
/// // changed-bit 0: unchanged.
/// let got: Option<Vec<u64>> = read_delta_sequence(&mut BitReader::new(&[0]), &base, None, 8,
///     |r, _| r.read_bits(8)).unwrap();
/// assert_eq!(got, None);
/// ```
pub fn read_delta_sequence<'a, R, C, F>(
    r: &mut R,
    baseline: &C,
    max: Option<u64>,
    min_element_bits: u64,
    mut read_item: F,
) -> Result<Option<C>, DecodeError>
where
    R: WireRead<'a>,
    C: Collection + Default,
    C::Item: Clone,
    F: FnMut(&mut R, Option<&C::Item>) -> Result<C::Item, DecodeError>,
{
    if !r.read_bool()? {
        return Ok(None);
    }
    let start = r.bits_read();
    let count = r.read_length(max)?;
    let listed_count = r.read_uint_ranged(0, count)?;
    let base_len = baseline.len() as u64;
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
    let Ok(count) = usize::try_from(count) else {
        return Err(DecodeError::new(DecodeErrorKind::LengthOverBound, start));
    };
    let mut out = C::default();
    out.reserve(count);
    let mut base_iter = baseline.iter();
    let mut listed_iter = listed.iter().peekable();
    for i in 0..count {
        let base = base_iter.next();
        let item = if listed_iter.next_if(|&&index| index == i as u64).is_some() {
            read_item(r, base)?
        } else {
            match base {
                Some(b) => b.clone(),
                // Unreachable: every index past the baseline is listed (checked above).
                None => return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start)),
            }
        };
        out.push(item);
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BitReader, BitWriter, ByteReader, ByteWriter};
    use std::collections::VecDeque;

    fn round_trip_bit(base: &[u64], cur: &[u64]) -> (bool, usize, Option<Vec<u64>>) {
        let (base, cur) = (base.to_vec(), cur.to_vec());
        let mut w = BitWriter::new();
        let changed = write_delta_sequence(
            &mut w,
            &base,
            &cur,
            Some(1000),
            |a, b| a == b,
            |w, &x, _| w.write_vlq(x, 7),
        )
        .unwrap();
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        let got: Option<Vec<u64>> =
            read_delta_sequence(&mut r, &base, Some(1000), 8, |r, _| r.read_vlq(7)).unwrap();
        r.expect_end().unwrap();
        (changed, bytes.len(), got)
    }

    #[test]
    fn delta_sequence_cases() {
        assert_eq!(round_trip_bit(&[], &[]), (false, 1, None));
        assert_eq!(round_trip_bit(&[1, 2], &[1, 2]), (false, 1, None));
        assert_eq!(round_trip_bit(&[1, 2], &[1]).2, Some(vec![1]));
        assert_eq!(round_trip_bit(&[1, 2], &[]).2, Some(vec![]));
        assert_eq!(round_trip_bit(&[], &[5, 6, 7]).2, Some(vec![5, 6, 7]));
        assert_eq!(
            round_trip_bit(&[1, 2, 3], &[1, 9, 3, 4]).2,
            Some(vec![1, 9, 3, 4])
        );
        let base: Vec<u64> = (0..500).collect();
        let mut cur = base.clone();
        cur[3] = 1000;
        cur[400] = 7;
        let (changed, len, got) = round_trip_bit(&base, &cur);
        assert!(changed);
        assert!(len < 12, "two changes in 500 elements took {len} bytes");
        assert_eq!(got, Some(cur));
    }

    #[test]
    fn delta_sequence_byte_stream_and_deque() {
        let base: VecDeque<u64> = (0..10).collect();
        let mut cur = base.clone();
        cur[9] = 99;
        cur.push_back(100);
        let mut w = ByteWriter::new();
        write_delta_sequence(
            &mut w,
            &base,
            &cur,
            None,
            |a, b| a == b,
            |w, &x, b| {
                assert_eq!(b.is_some(), x == 99);
                w.write_bits(x, 8)
            },
        )
        .unwrap();
        let bytes = w.into_bytes();
        let got: Option<VecDeque<u64>> =
            read_delta_sequence(&mut ByteReader::new(&bytes), &base, None, 8, |r, _| {
                r.read_bits(8)
            })
            .unwrap();
        assert_eq!(got, Some(cur));
    }

    #[test]
    fn delta_sequence_rejections() {
        let base = vec![1u64, 2];
        let read = |bytes: &[u8]| {
            read_delta_sequence::<_, Vec<u64>, _>(
                &mut BitReader::new(bytes),
                &base,
                Some(100),
                8,
                |r, _| r.read_bits(8),
            )
            .map_err(|e| e.kind)
        };
        // count 3 (7 bits), listed 0 (2 bits): the new element is not listed.
        let mut w = BitWriter::new();
        w.write_bool(true).unwrap();
        w.write_count(3, Some(100)).unwrap();
        w.write_bits(0, 2).unwrap();
        assert_eq!(read(&w.into_bytes()), Err(DecodeErrorKind::LengthOverBound));
        // count 3, listed 1, index 0: still misses the new element.
        let mut w = BitWriter::new();
        w.write_bool(true).unwrap();
        w.write_count(3, Some(100)).unwrap();
        w.write_bits(1, 2).unwrap();
        write_index_gap(&mut w, 0).unwrap();
        w.write_bits(9, 8).unwrap();
        assert_eq!(read(&w.into_bytes()), Err(DecodeErrorKind::ValueOutOfRange));
        // An index beyond the count.
        let mut w = BitWriter::new();
        w.write_bool(true).unwrap();
        w.write_count(2, Some(100)).unwrap();
        w.write_bits(1, 2).unwrap();
        write_index_gap(&mut w, 5).unwrap();
        w.write_bits(9, 8).unwrap();
        assert_eq!(read(&w.into_bytes()), Err(DecodeErrorKind::ValueOutOfRange));
        // Count over max.
        let mut w = BitWriter::new();
        w.write_bool(true).unwrap();
        w.write_bits(101, 7).unwrap();
        assert_eq!(read(&w.into_bytes()), Err(DecodeErrorKind::LengthOverBound));
        // More listed elements than bits.
        let mut w = BitWriter::new();
        w.write_bool(true).unwrap();
        w.write_count(100, Some(100)).unwrap();
        w.write_bits(100, 7).unwrap();
        assert_eq!(read(&w.into_bytes()), Err(DecodeErrorKind::LengthOverBound));
        // A gap VLQ that overflows.
        let mut w = BitWriter::new();
        w.write_bool(false).unwrap();
        w.write_vlq(u64::MAX, INDEX_GAP_GROUP_BITS).unwrap();
        let bytes = w.into_bytes();
        assert_eq!(
            read_index_gap(&mut BitReader::new(&bytes))
                .unwrap_err()
                .kind,
            DecodeErrorKind::ValueOutOfRange
        );
    }

    #[test]
    fn gaps() {
        for gap in [0, 1, 2, 8, 9, 72, 73, 1 << 40, u64::MAX - 1] {
            let mut w = BitWriter::new();
            write_index_gap(&mut w, gap).unwrap();
            let bytes = w.into_bytes();
            assert_eq!(read_index_gap(&mut BitReader::new(&bytes)).unwrap(), gap);
            let mut w = ByteWriter::new();
            write_index_gap(&mut w, gap).unwrap();
            let bytes = w.into_bytes();
            assert_eq!(read_index_gap(&mut ByteReader::new(&bytes)).unwrap(), gap);
        }
    }

    #[test]
    fn extrapolation_edges() {
        let axis = DeadReckoningAxis::new(
            FixedPoint::new(-10.0, 10.0, 0.1).unwrap(),
            FixedPoint::new(-5.0, 5.0, 0.5).unwrap(),
        );
        let v_neg = axis.velocity.quantize(-5.0).unwrap();
        let v_zero = axis.velocity.quantize(0.0).unwrap();
        assert_eq!(axis.extrapolate(100, v_zero, &DeltaContext::new(1e9)), 100);
        assert_eq!(axis.extrapolate(100, v_neg, &DeltaContext::new(1e9)), 0);
        assert_eq!(
            axis.extrapolate(100, v_neg, &DeltaContext::new(f64::NAN)),
            100
        );
        assert_eq!(
            axis.extrapolate(100, v_neg, &DeltaContext::new(f64::INFINITY)),
            100
        );
        assert_eq!(axis.extrapolate(100, v_neg, &DeltaContext::new(-1.0)), 150);
        assert_eq!(
            axis.extrapolate(u64::MAX, v_zero, &DeltaContext::new(0.0)),
            200
        );
        assert!(axis.needs_update(f64::NAN, 100, v_zero, &DeltaContext::new(0.0), 1.0));
    }
}
