//! Delta and dead-reckoning support: the baseline context, extrapolation on quantized steps,
//! and the `DELTA SEQUENCE` coding.
//!
//! Delta encodings are relative to a *baseline*, the state the receiver holds. The sender keeps
//! a mirror of it, built only from what was sent (quantized steps, never its exact values), so
//! that after any number of ticks the mirror equals the receiver's state bit for bit. Everything
//! here is a pure function of such sent values, computed identically on both sides.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::fixed::FixedPoint;
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
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn extrapolate(&self, pos_step: u64, vel_step: u64, ctx: &DeltaContext) -> u64 {
        let (first, steps) = (self.position.first(), self.position.steps());
        let base = pos_step.clamp(first, steps);
        let v = self.velocity.dequantize(vel_step);
        if v == 0.0 {
            // What the arithmetic below gives (a zero or NaN displacement), without its division:
            // a resting entity costs no more than its two steps.
            return base;
        }
        let displacement = round_half_away(v * ctx.elapsed / self.position.resolution());
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
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn predict(&self, pos_step: u64, vel_step: u64, ctx: &DeltaContext) -> f64 {
        self.position
            .dequantize(self.extrapolate(pos_step, vel_step, ctx))
    }

    /// [`DeadReckoningAxis::predict`] from a baseline's values rather than its steps: each is
    /// taken to its nearest valid step first (a baseline built by decoding or by a mirror is on
    /// its steps already), so any baseline gives the same prediction on both sides.
    ///
    /// ```
    /// use idlc_runtime::{DeadReckoningAxis, DeltaContext, FixedPoint};
    /// let axis = DeadReckoningAxis::new(
    ///     FixedPoint::new(0.0, 100.0, 0.01).unwrap(),
    ///     FixedPoint::new(-10.0, 10.0, 0.01).unwrap(),
    /// );
    /// assert_eq!(axis.predict_from(50.0, 2.0, &DeltaContext::new(0.5)), 51.0);
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn predict_from(&self, position: f64, velocity: f64, ctx: &DeltaContext) -> f64 {
        self.predict(
            self.position.nearest_step(position),
            self.velocity.nearest_step(velocity),
            ctx,
        )
    }

    /// [`DeadReckoningAxis::extrapolate`] from a baseline's values rather than its steps (each
    /// taken to its nearest valid step first, as [`DeadReckoningAxis::predict_from`] does): the
    /// reference of a position's `DIFF` in a dead-reckoning block.
    ///
    /// ```
    /// use idlc_runtime::{DeadReckoningAxis, DeltaContext, FixedPoint};
    /// let axis = DeadReckoningAxis::new(
    ///     FixedPoint::new(0.0, 100.0, 0.01).unwrap(),
    ///     FixedPoint::new(-10.0, 10.0, 0.01).unwrap(),
    /// );
    /// assert_eq!(axis.extrapolate_from(50.0, 2.0, &DeltaContext::new(0.5)), 5100);
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn extrapolate_from(&self, position: f64, velocity: f64, ctx: &DeltaContext) -> u64 {
        self.extrapolate(
            self.position.nearest_step(position),
            self.velocity.nearest_step(velocity),
            ctx,
        )
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
    #[inline]
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
        .ok_or_else(|| DecodeError::new(DecodeErrorKind::ValueOutOfRange, start))
}

/// `x.round()` (half away from zero) without the library call `f64::round` compiles to on
/// x86-64 without SSE4.1: through i64 below 2^52, where every f64 with a fraction lies; NaN and
/// infinities pass through.
#[inline]
fn round_half_away(x: f64) -> f64 {
    if x.abs() < 4_503_599_627_370_496.0 {
        let t = x as i64;
        let frac = x - t as f64;
        // Flags, not branches: the fraction of an extrapolated position is as random as the
        // position, so a branch on it is mispredicted about half the time.
        let r = t + i64::from(frac >= 0.5) - i64::from(frac <= -0.5);
        // The sign of a zero result as `f64::round` gives it (-0.4 rounds to -0.0).
        (r as f64).copysign(x)
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_half_away_is_f64_round() {
        let cases = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            0.499_999_999_999_999_94,
            -2.4999,
            1e15 + 0.5,
            4_503_599_627_370_495.5,
            4_503_599_627_370_497.0,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for x in cases {
            assert_eq!(
                super::round_half_away(x).to_bits(),
                x.round().to_bits(),
                "{x}"
            );
        }
        assert!(super::round_half_away(f64::NAN).is_nan());
        let mut x = -1000.0;
        while x < 1000.0 {
            assert_eq!(super::round_half_away(x), x.round(), "{x}");
            x += 0.0625 + 1e-9;
        }
    }

    use super::*;
    use crate::{BitReader, BitWriter, ByteReader, ByteWriter};

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
        for elapsed in [f64::NAN, f64::INFINITY, -1.0] {
            assert_eq!(
                axis.extrapolate(100, v_zero, &DeltaContext::new(elapsed)),
                100
            );
        }
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
