//! Fixed-point quantization of real numbers in a range (`FIXED_POINT(r)` on `NUMERIC[a,b]`).
//!
//! `q = round((v - a) / r)`, `q` in `0..=round((b - a) / r)`, sent in `bits_required(0, steps)`
//! bits; the receiver's value is `a + q * r`. The round-trip error is at most `r / 2` (plus the
//! rounding error of one f64 subtraction, division and multiply-add, a few ulps of the values
//! involved).

use crate::error::EncodeErrorKind;
use crate::int::bits_required;

/// Largest number of steps a fixed-point range may have: 2^53, so that every step index and every
/// product `q * r` is computed from an exactly represented integer.
///
/// ```
/// use idlc_runtime::{fixed_point_steps, MAX_FIXED_POINT_STEPS};
/// assert_eq!(fixed_point_steps(0.0, MAX_FIXED_POINT_STEPS as f64, 1.0), Some(MAX_FIXED_POINT_STEPS));
/// assert_eq!(fixed_point_steps(0.0, 1e300, 1e-300), None);
/// ```
pub const MAX_FIXED_POINT_STEPS: u64 = 1 << 53;

/// The largest step index of `FIXED_POINT(resolution)` on `NUMERIC[min,max]`:
/// `round((max - min) / resolution)`. `None` when the parameters are unusable (a non-finite
/// value, `min > max`, `resolution <= 0`, or more than [`MAX_FIXED_POINT_STEPS`] steps).
///
/// ```
/// use idlc_runtime::{bits_required, fixed_point_steps};
/// let steps = fixed_point_steps(-10000.0, 10000.0, 0.01).unwrap();
/// assert_eq!(steps, 2_000_000);
/// assert_eq!(bits_required(0, steps), 21);
/// assert_eq!(fixed_point_steps(1.0, 1.0, 0.5), Some(0));
/// assert_eq!(fixed_point_steps(0.0, 1.0, 0.0), None);
/// ```
#[must_use]
pub const fn fixed_point_steps(min: f64, max: f64, resolution: f64) -> Option<u64> {
    if !(min.is_finite() && max.is_finite() && resolution.is_finite()) {
        return None;
    }
    if min > max || resolution <= 0.0 {
        return None;
    }
    let steps = (max - min) / resolution;
    // Not NaN (finite operands, positive divisor); may be +inf, which this rejects.
    if steps.is_nan() || steps > MAX_FIXED_POINT_STEPS as f64 {
        return None;
    }
    Some(round_non_negative(steps))
}

/// The real an `f32` field's value stands for, for its quantizer: the `f32` nearest to an end of
/// the range stands for that end (no `f32` equals 0.1: the nearest, 0.100000001, lies above
/// `NUMERIC[0,0.1]`), any other value for itself. So an `f32` field can hold either end of its
/// range, and the top step, decoded to its nearest `f32`, re-encodes to the same step. An open
/// end stays excluded: its nearest `f32` stands for the end, which the quantizer rejects. An
/// infinity stands for itself (the `f32` "nearest" to an end beyond `f32::MAX`), so it stays out
/// of range.
///
/// ```
/// use idlc_runtime::{FixedPoint, real_of_f32};
/// assert_eq!(real_of_f32(0.1, 0.0, 0.1), 0.1);
/// assert_eq!(real_of_f32(0.05, 0.0, 0.1), f64::from(0.05f32));
/// assert_eq!(real_of_f32(f32::NEG_INFINITY, -1e300, 1e300), f64::NEG_INFINITY);
/// assert!(real_of_f32(-0.0, 0.0, 0.1).is_sign_negative());
/// let fp = FixedPoint::new(0.0, 0.1, 0.01).unwrap();
/// assert_eq!(fp.quantize(real_of_f32(0.1, 0.0, 0.1)), Ok(10));
/// assert!(fp.quantize(f64::from(0.1f32)).is_err());
/// ```
#[inline]
#[must_use]
pub fn real_of_f32(value: f32, min: f64, max: f64) -> f64 {
    let real = f64::from(value);
    // Ends that are f32s stand for themselves (with generated code's constant ends this folds
    // away, and the function is a conversion); an f32 equal to an end is that end already,
    // keeping its sign (-0.0 at an end of 0); an infinity stands for itself.
    let exact = |end: f64| f64::from(end as f32) == end;
    if (exact(min) && exact(max)) || value.is_infinite() || real == min || real == max {
        real
    } else if value == min as f32 {
        min
    } else if value == max as f32 {
        max
    } else {
        real
    }
}

/// 2^-48: a step's value `min + q * resolution`, two roundings of values at most twice the
/// larger magnitude of the range's ends, lies within 2^-51 of that magnitude of its real; the
/// rest is margin.
const SLACK_PER_MAGNITUDE: f64 = 1.0 / 281_474_976_710_656.0;

/// The most steps [`FixedPoint::rounded_quotient`] takes: 2^40.
const FAST_STEPS: f64 = 1_099_511_627_776.0;

/// 2^52, which [`FixedPoint::rounded_quotient`] adds to round a quotient below it.
const ROUNDER: f64 = 4_503_599_627_370_496.0;

/// How near a half step [`FixedPoint::rounded_quotient`] leaves the rounding to the division:
/// 2^-10 of a step, twice the largest difference of product and quotient below 2^40 steps.
const FAST_MARGIN: f64 = 1.0 / 1024.0;

/// `x.round()` (half away from zero) for `0 <= x <= 2^53 + 0.5`, usable in `const fn` and
/// without a libm call: `x as i64` truncates exactly, and the fraction `x - t` is exact because
/// `t` and `x` are within the same binade or `t` is smaller.
#[inline]
const fn round_non_negative(x: f64) -> u64 {
    // Through i64 (exact below 2^63): one instruction each way on x86-64, where u64 <-> f64
    // takes a sequence.
    let t = x as i64;
    (if x - t as f64 >= 0.5 { t + 1 } else { t }) as u64
}

/// A fixed-point quantizer for one `NUMERIC` field with `FIXED_POINT(resolution)`: the one
/// place that decides which steps a range has. The compiler (for `idlc report` and the IR's
/// bit widths), the generated encoders and decoders, and dead reckoning all use it.
///
/// Step `q` stands for `min + q * resolution`, except that a closed upper end caps the top
/// step at `max` (so `[0,1]` at 0.4 has steps 0, 0.4, 0.8 and 1.0). The valid steps are
/// `first..=last`: the steps whose value lies inside the range, open ends excluded, so a decoder
/// never returns a value outside it (`[0,360)` at 0.5 ends at step 719, 359.5; `(0,1]` at 0.25
/// begins at step 1, 0.25). On the wire, q is sent in `bits_required(0, last)` bits.
///
/// A value quantizes to the nearest step, clamped into `first..=last`: the error is at most
/// `resolution / 2`, except within `resolution` of an open end, where it is below `resolution`.
///
/// ```
/// use idlc_runtime::FixedPoint;
/// let fp = FixedPoint::new(-10.0, 10.0, 0.01).unwrap();
/// let q = fp.quantize(1.234).unwrap();
/// assert_eq!(q, 1123);
/// assert!((fp.dequantize(q) - 1.234).abs() <= 0.005 + 1e-12);
/// assert_eq!(fp.bits(), 11);
/// // An open upper end: the last step lies below it.
/// let heading = FixedPoint::with_ends(0.0, 360.0, 0.5, true, false).unwrap();
/// assert_eq!(heading.steps(), 719);
/// assert_eq!(heading.quantize(359.9), Ok(719));
/// assert_eq!(heading.dequantize(719), 359.5);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedPoint {
    min: f64,
    max: f64,
    resolution: f64,
    /// `1 / resolution`, for the quotient's fast path ([`FixedPoint::rounded_quotient`]).
    inverse: f64,
    /// How far from a step's value (as computed) a value rounded to that step can lie: one step,
    /// half another, and the rounding of `min + q * resolution` ([`FixedPoint::sends_as`]).
    slack: f64,
    min_inclusive: bool,
    max_inclusive: bool,
    first: u64,
    last: u64,
    bits: u32,
}

impl FixedPoint {
    /// A quantizer of the closed range `[min, max]`, or `None` when [`fixed_point_steps`]
    /// rejects the parameters.
    ///
    /// ```
    /// use idlc_runtime::FixedPoint;
    /// assert!(FixedPoint::new(0.0, 360.0, 0.01).is_some());
    /// assert!(FixedPoint::new(1.0, 0.0, 0.01).is_none());
    /// ```
    ///
    /// `const`, so generated code can build its quantizers at compile time:
    ///
    /// ```
    /// use idlc_runtime::FixedPoint;
    /// const X: FixedPoint = match FixedPoint::new(-10000.0, 10000.0, 0.01) {
    ///     Some(fp) => fp,
    ///     None => panic!("bad fixed point"),
    /// };
    /// assert_eq!(X.bits(), 21);
    /// ```
    #[must_use]
    pub const fn new(min: f64, max: f64, resolution: f64) -> Option<Self> {
        Self::with_ends(min, max, resolution, true, true)
    }

    /// A quantizer of a range with open or closed ends (`[min, max)` is
    /// `with_ends(min, max, r, true, false)`), or `None` when the parameters are unusable
    /// ([`fixed_point_steps`]) or no step lies inside the range (`(0, 0.3)` at 0.5).
    ///
    /// ```
    /// use idlc_runtime::FixedPoint;
    /// let hull = FixedPoint::with_ends(0.0, 1.0, 0.25, false, true).unwrap();
    /// assert_eq!((hull.first(), hull.steps()), (1, 4));
    /// assert!(FixedPoint::with_ends(0.0, 0.3, 0.5, false, false).is_none());
    /// ```
    #[must_use]
    pub const fn with_ends(
        min: f64,
        max: f64,
        resolution: f64,
        min_inclusive: bool,
        max_inclusive: bool,
    ) -> Option<Self> {
        let Some(rounded) = fixed_point_steps(min, max, resolution) else {
            return None;
        };
        let mut fp = Self {
            min,
            max,
            resolution,
            inverse: 1.0 / resolution,
            slack: 1.5 * resolution + min.abs().max(max.abs()) * SLACK_PER_MAGNITUDE,
            min_inclusive,
            max_inclusive,
            first: 0,
            last: rounded,
            bits: 0,
        };
        // At most two steps back: the rounded top step lies at most r / 2 above max.
        while fp.last > 0 && !fp.admits(fp.dequantize(fp.last)) {
            fp.last -= 1;
        }
        while fp.first <= fp.last && !fp.admits(fp.dequantize(fp.first)) {
            fp.first += 1;
        }
        if fp.first > fp.last || !fp.admits(fp.dequantize(fp.last)) {
            return None;
        }
        fp.bits = bits_required(0, fp.last);
        Some(fp)
    }

    /// [`FixedPoint::with_ends`] for a constant of generated code, evaluated at compile time:
    /// `const { FixedPoint::constant(0.0, 360.0, 0.5, true, false) }`. The parameters come from
    /// a range and resolution the compiler has checked; invalid ones fail the build (a panic
    /// during constant evaluation), so never call it with run-time values.
    ///
    /// ```
    /// use idlc_runtime::FixedPoint;
    /// let fp = const { FixedPoint::constant(0.0, 360.0, 0.5, true, false) };
    /// assert_eq!(fp.steps(), 719);
    /// ```
    #[must_use]
    pub const fn constant(
        min: f64,
        max: f64,
        resolution: f64,
        min_inclusive: bool,
        max_inclusive: bool,
    ) -> Self {
        match Self::with_ends(min, max, resolution, min_inclusive, max_inclusive) {
            Some(fp) => fp,
            None => panic!("invalid FIXED_POINT parameters"),
        }
    }

    /// Whether `value` lies inside the range, with its open or closed ends (false for NaN).
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// let fp = FixedPoint::with_ends(0.0, 360.0, 0.5, true, false).unwrap();
    /// assert!(fp.admits(0.0) && fp.admits(359.99) && !fp.admits(360.0));
    /// ```
    #[inline]
    #[must_use]
    pub const fn admits(&self, value: f64) -> bool {
        let above_min = if self.min_inclusive {
            value >= self.min
        } else {
            value > self.min
        };
        let below_max = if self.max_inclusive {
            value <= self.max
        } else {
            value < self.max
        };
        above_min && below_max
    }

    /// The lower end of the range.
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// assert_eq!(FixedPoint::new(-1.0, 1.0, 0.5).unwrap().min(), -1.0);
    /// ```
    #[must_use]
    pub const fn min(&self) -> f64 {
        self.min
    }

    /// The upper end of the range.
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// assert_eq!(FixedPoint::new(-1.0, 1.0, 0.5).unwrap().max(), 1.0);
    /// ```
    #[must_use]
    pub const fn max(&self) -> f64 {
        self.max
    }

    /// The resolution (the size of one step).
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// assert_eq!(FixedPoint::new(-1.0, 1.0, 0.5).unwrap().resolution(), 0.5);
    /// ```
    #[must_use]
    pub const fn resolution(&self) -> f64 {
        self.resolution
    }

    /// The smallest valid step index: 0, or 1 (rarely more) when the lower end is open.
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// assert_eq!(FixedPoint::new(-1.0, 1.0, 0.5).unwrap().first(), 0);
    /// assert_eq!(FixedPoint::with_ends(-1.0, 1.0, 0.5, false, true).unwrap().first(), 1);
    /// ```
    #[must_use]
    pub const fn first(&self) -> u64 {
        self.first
    }

    /// The largest valid step index.
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// assert_eq!(FixedPoint::new(-1.0, 1.0, 0.5).unwrap().steps(), 4);
    /// assert_eq!(FixedPoint::with_ends(-1.0, 1.0, 0.5, true, false).unwrap().steps(), 3);
    /// ```
    #[must_use]
    pub const fn steps(&self) -> u64 {
        self.last
    }

    /// Bits a step index takes in a BITSTREAM: `bits_required(0, steps)`.
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// assert_eq!(FixedPoint::new(-1.0, 1.0, 0.5).unwrap().bits(), 3);
    /// ```
    #[must_use]
    pub const fn bits(&self) -> u32 {
        self.bits
    }

    /// Whether `q` is a valid step index (what a decoder accepts).
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// let fp = FixedPoint::with_ends(0.0, 360.0, 0.5, true, false).unwrap();
    /// assert!(fp.is_step(719) && !fp.is_step(720));
    /// ```
    #[inline]
    #[must_use]
    pub const fn is_step(&self, q: u64) -> bool {
        self.first <= q && q <= self.last
    }

    /// Whether `value` can be sent: the error [`FixedPoint::quantize`] gives, without the step.
    ///
    /// ```
    /// use idlc_runtime::{EncodeErrorKind, FixedPoint};
    /// let fp = FixedPoint::new(0.0, 1.0, 0.25).unwrap();
    /// assert_eq!(fp.check(0.6), Ok(()));
    /// assert_eq!(fp.check(-0.1), Err(EncodeErrorKind::ValueOutOfRange));
    /// assert_eq!(fp.check(f64::NAN), Err(EncodeErrorKind::NotANumber));
    /// ```
    #[inline]
    pub fn check(&self, value: f64) -> Result<(), EncodeErrorKind> {
        if value.is_nan() {
            Err(EncodeErrorKind::NotANumber)
        } else if !self.admits(value) {
            Err(EncodeErrorKind::ValueOutOfRange)
        } else {
            Ok(())
        }
    }

    /// The step index of `value`: the nearest step, `round((value - min) / resolution)`, clamped
    /// into the valid steps. A NaN is [`EncodeErrorKind::NotANumber`], a value outside the
    /// range (an open end included) is [`EncodeErrorKind::ValueOutOfRange`]; nothing outside
    /// the range is clamped.
    ///
    /// ```
    /// use idlc_runtime::{EncodeErrorKind, FixedPoint};
    /// let fp = FixedPoint::new(0.0, 1.0, 0.25).unwrap();
    /// assert_eq!(fp.quantize(0.6), Ok(2));
    /// assert_eq!(fp.quantize(1.5), Err(EncodeErrorKind::ValueOutOfRange));
    /// assert_eq!(fp.quantize(f64::NAN), Err(EncodeErrorKind::NotANumber));
    /// ```
    #[inline]
    pub fn quantize(&self, value: f64) -> Result<u64, EncodeErrorKind> {
        self.check(value)?;
        // In [0, steps + 0.5]: min <= value <= max and the operations are monotonic.
        let q = match self.rounded_quotient(value, FAST_STEPS) {
            Some(q) => q,
            None => round_non_negative((value - self.min) / self.resolution),
        };
        Ok(q.clamp(self.first, self.last))
    }

    /// `round_non_negative((value - min) / resolution)` without the division, when the
    /// quotient lies in `[1, below]` (`below` at most [`FAST_STEPS`]) and is not within
    /// [`FAST_MARGIN`] of a half step; `None` otherwise (and for a NaN). The product by
    /// `1 / resolution` differs from the quotient by less than 1.5 * 2^-52 of it, under 2^-11.5
    /// below 2^40 steps: away from a half step both round to the same step, so every caller
    /// gives what the division gives (and what the C++ runtime computes with it).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn rounded_quotient(&self, value: f64, below: f64) -> Option<u64> {
        let guess = (value - self.min) * self.inverse;
        if !(guess >= 1.0 && guess <= below) {
            return None;
        }
        // Below 2^52 the sum's last mantissa bit is worth 1: adding 2^52 rounds the quotient to
        // its nearest integer, which the sum's mantissa then holds (no float-to-int conversion).
        let shifted = guess + ROUNDER;
        let nearest = shifted - ROUNDER;
        if (guess - nearest).abs() >= 0.5 - FAST_MARGIN {
            return None;
        }
        Some(shifted.to_bits() - ROUNDER.to_bits())
    }

    /// The valid step nearest to any `value`, NaN and values outside the range included (a
    /// total function, for dead reckoning from a baseline both sides hold).
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// let fp = FixedPoint::with_ends(0.0, 10.0, 0.5, true, false).unwrap();
    /// assert_eq!((fp.nearest_step(3.3), fp.nearest_step(99.0), fp.nearest_step(f64::NAN)), (7, 19, 0));
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn nearest_step(&self, value: f64) -> u64 {
        // Inside (0, last) by a whole step: the branches below round the quotient.
        let below = (self.last as f64 - 1.0).min(FAST_STEPS);
        if let Some(q) = self.rounded_quotient(value, below) {
            return q.clamp(self.first, self.last);
        }
        let x = (value - self.min) / self.resolution;
        if x.is_nan() || x <= 0.0 {
            self.first
        } else if x >= self.last as f64 {
            self.last
        } else {
            round_non_negative(x).clamp(self.first, self.last)
        }
    }

    /// The value of step `q`: `min + q * resolution`, capped at `max` (q is not checked; a
    /// decoder checks it with [`FixedPoint::is_step`] first).
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// let fp = FixedPoint::new(-1.0, 1.0, 0.5).unwrap();
    /// assert_eq!(fp.dequantize(3), 0.5);
    /// assert_eq!(FixedPoint::new(0.0, 1.0, 0.4).unwrap().dequantize(3), 1.0);
    /// ```
    #[inline]
    #[must_use]
    pub const fn dequantize(&self, q: u64) -> f64 {
        // Through i64 (one instruction, exact for every step up to 2^53); a q beyond 2^62 is no
        // step of any quantizer and is taken as 2^62, whose value lies above max.
        let q = if q > 1 << 62 { 1 << 62 } else { q };
        let value = self.min + (q as i64) as f64 * self.resolution;
        if value > self.max { self.max } else { value }
    }

    /// The value the receiver will hold after `value` is sent: `dequantize(quantize(value))`.
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// let fp = FixedPoint::new(0.0, 10.0, 0.5).unwrap();
    /// assert_eq!(fp.round_trip(3.3), Ok(3.5));
    /// ```
    #[inline]
    pub fn round_trip(&self, value: f64) -> Result<f64, EncodeErrorKind> {
        self.quantize(value).map(|q| self.dequantize(q))
    }

    /// Whether `baseline` is sent as step `q`: `quantize(baseline) == Ok(q)`, false for a
    /// baseline that cannot be sent (NaN, out of range). A delta encoder asks it when the value
    /// it sends (step `q`) differs from the baseline as held: a baseline off the steps (a
    /// `Default`, a value of the game's own) that rounds to the same step is no change.
    ///
    /// Cheap for a value that moved: a baseline further from step `q`'s value than one step (and
    /// the rounding of that value) is answered by one subtraction, without rounding it (a value
    /// the quantizer rounds to a step lies within one step of it: half a step, or a clamp to
    /// the first or last step).
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// let fp = FixedPoint::new(-100.0, 100.0, 0.01).unwrap();
    /// let q = fp.quantize(2.34).unwrap();
    /// assert_ne!(fp.dequantize(q), 2.34); // 2.34 is no f64 on the steps
    /// assert!(fp.sends_as(2.34, q) && fp.sends_as(2.3449, q));
    /// assert!(!fp.sends_as(2.3451, q) && !fp.sends_as(f64::NAN, q) && !fp.sends_as(300.0, q));
    /// ```
    #[inline]
    #[must_use]
    pub fn sends_as(&self, baseline: f64, q: u64) -> bool {
        (baseline - self.dequantize(q)).abs() <= self.slack && self.quantize(baseline) == Ok(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What `quantize` and `nearest_step` computed before their fast path: the division.
    fn divided(fp: &FixedPoint, value: f64) -> (Option<u64>, u64) {
        let x = (value - fp.min) / fp.resolution;
        let quantized = fp
            .check(value)
            .ok()
            .map(|()| round_non_negative(x).clamp(fp.first, fp.last));
        let nearest = if x.is_nan() || x <= 0.0 {
            fp.first
        } else if x >= fp.last as f64 {
            fp.last
        } else {
            round_non_negative(x).clamp(fp.first, fp.last)
        };
        (quantized, nearest)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// The product by `1 / resolution` rounds as the quotient does: on steps, beside half
        /// steps, anywhere, with up to 2^45 steps (past the fast path's 2^40).
        #[test]
        fn the_fast_path_rounds_as_the_division(
            min in -1e6..1e6f64,
            steps in 1u64..(1 << 45),
            resolution in prop::sample::select(vec![1e-6, 0.001, 0.01, 0.02, 0.1, 0.25, 0.3, 1.0, 7.0]),
            at in 0.0..1.0f64,
            nudge in prop::sample::select(vec![0.0, 0.5, 0.4999999, 0.5000001, 0.4990234375, 1e-12, -1e-12]),
            open in any::<bool>(),
        ) {
            let max = min + steps as f64 * resolution;
            let Some(fp) = FixedPoint::with_ends(min, max, resolution, true, !open) else {
                return Ok(());
            };
            let q = (at * fp.last as f64) as u64;
            for value in [
                fp.dequantize(q),
                fp.min + (q as f64 + nudge) * resolution,
                min + at * (max - min),
            ] {
                let (quantized, nearest) = divided(&fp, value);
                prop_assert_eq!(fp.quantize(value).ok(), quantized, "quantize({})", value);
                prop_assert_eq!(fp.nearest_step(value), nearest, "nearest_step({})", value);
            }
        }

        /// `sends_as` answers what quantizing the baseline answers, for baselines on, beside,
        /// half a step from and a few steps from the step, and outside the range.
        #[test]
        fn sends_as_is_the_same_step(
            min in -1e6..1e6f64,
            steps in 1u64..(1 << 45),
            resolution in prop::sample::select(vec![1e-6, 0.001, 0.01, 0.3, 1.0, 7.0]),
            at in 0.0..1.0f64,
            away in prop::sample::select(vec![0.0, 0.4999999, 0.5, 0.5000001, 0.9, 1.0, 1.5, 2.9, 3.0, 3.1, 1e9]),
            below in any::<bool>(),
            open in (any::<bool>(), any::<bool>()),
        ) {
            let max = min + steps as f64 * resolution;
            let Some(fp) = FixedPoint::with_ends(min, max, resolution, !open.0, !open.1) else {
                return Ok(());
            };
            let q = fp.first + ((at * (fp.last - fp.first) as f64) as u64);
            let away = if below { -away } else { away };
            for baseline in [fp.dequantize(q) + away * resolution, fp.min + (q as f64 + away) * resolution] {
                for step in [q, q.saturating_sub(1), q + 1] {
                    let expected = fp.quantize(baseline) == Ok(step);
                    prop_assert_eq!(fp.sends_as(baseline, step), expected, "sends_as({}, {})", baseline, step);
                }
            }
        }
    }

    /// Steps finer than an f64 resolves at the range's magnitude (1e-12 where the spacing of f64s
    /// is 1.2e-10): a value is still sent as the step it rounds to, and no other.
    #[test]
    fn sends_as_where_steps_are_finer_than_the_floats() {
        let fp = FixedPoint::new(1e6, 1e6 + 1e-3, 1e-12).unwrap();
        let mut value = 1e6;
        while value <= 1e6 + 1e-3 {
            let q = fp.quantize(value).unwrap();
            assert!(fp.sends_as(value, q), "{value}");
            assert!(!fp.sends_as(value, q + 1000), "{value}");
            value += 3.7e-6;
        }
    }

    #[test]
    fn steps_reject_bad_parameters() {
        assert_eq!(fixed_point_steps(f64::NAN, 1.0, 0.1), None);
        assert_eq!(fixed_point_steps(0.0, f64::INFINITY, 0.1), None);
        assert_eq!(fixed_point_steps(0.0, 1.0, f64::NAN), None);
        assert_eq!(fixed_point_steps(0.0, 1.0, -0.1), None);
        assert_eq!(fixed_point_steps(0.0, 1.0, 0.0), None);
        assert_eq!(fixed_point_steps(0.0, 1.0, f64::MIN_POSITIVE * 0.5), None);
        assert_eq!(fixed_point_steps(-f64::MAX, f64::MAX, 1.0), None);
        assert_eq!(fixed_point_steps(2.0, 1.0, 0.1), None);
        assert_eq!(fixed_point_steps(0.0, 1.0, 0.3), Some(3));
        assert_eq!(fixed_point_steps(0.0, 1.0, 2.0), Some(1)); // round(0.5) = 1
        assert_eq!(fixed_point_steps(0.0, 1.0, 3.0), Some(0));
        assert_eq!(fixed_point_steps(-0.0, 0.0, 1.0), Some(0));
    }

    #[test]
    fn quantize_edges() {
        let fp = FixedPoint::new(-1.0, 1.0, 0.1).unwrap();
        assert_eq!(fp.steps(), 20);
        assert_eq!(fp.quantize(-1.0), Ok(0));
        assert_eq!(fp.quantize(1.0), Ok(20));
        assert_eq!(fp.quantize(-0.0), Ok(10));
        assert_eq!(fp.quantize(0.0), Ok(10));
        assert_eq!(fp.quantize(f64::MIN_POSITIVE), Ok(10));
        assert_eq!(fp.quantize(5e-324), Ok(10)); // subnormal
        assert_eq!(
            fp.quantize(f64::INFINITY),
            Err(EncodeErrorKind::ValueOutOfRange)
        );
        assert_eq!(
            fp.quantize(f64::NEG_INFINITY),
            Err(EncodeErrorKind::ValueOutOfRange)
        );
        assert_eq!(
            fp.quantize(1.0 + 1e-15),
            Err(EncodeErrorKind::ValueOutOfRange)
        );
        // min == max: zero steps, zero bits.
        let one = FixedPoint::new(3.0, 3.0, 0.1).unwrap();
        assert_eq!((one.steps(), one.bits()), (0, 0));
        assert_eq!(one.quantize(3.0), Ok(0));
        assert_eq!(one.dequantize(0), 3.0);
        // (b - a) / r not an integer: the top step is capped at b.
        let odd = FixedPoint::new(0.0, 1.0, 0.4).unwrap();
        assert_eq!(odd.steps(), 3); // round(2.5)
        assert_eq!(odd.quantize(1.0), Ok(3));
        assert_eq!(odd.dequantize(3), 1.0);
        assert_eq!(odd.quantize(0.8), Ok(2));
        let odd = FixedPoint::new(0.0, 1.0, 0.3).unwrap();
        assert_eq!(odd.quantize(1.0), Ok(3));
        assert_eq!(odd.dequantize(3), 0.8999999999999999);
    }

    #[test]
    fn rounding_matches_std() {
        let mut x = 0.0f64;
        for _ in 0..20_000 {
            assert_eq!(round_non_negative(x), x.round() as u64, "{x}");
            x = x * 1.37 + 0.123;
            if x > 9e15 {
                x = x.fract() + 0.49999999999999994;
            }
        }
        for x in [
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            4503599627370495.5,
            9007199254740992.0,
            5e-324,
        ] {
            assert_eq!(round_non_negative(x), x.round() as u64, "{x}");
        }
    }

    /// Every valid step of every range (closed or open ends, resolutions on and off the grid)
    /// dequantizes inside the range and quantizes back to itself; the steps just outside the
    /// valid ones lie outside the range.
    #[test]
    fn every_step_lies_inside_its_range() {
        let bounds = [
            -10000.0, -360.0, -1.0, -0.3, 0.0, 0.25, 1.0, 90.0, 360.0, 5000.0,
        ];
        let resolutions = [0.001, 0.01, 0.05, 0.1, 0.25, 0.3, 0.4, 0.5, 1.0, 7.0];
        for (i, &min) in bounds.iter().enumerate() {
            for &max in &bounds[i..] {
                for &r in &resolutions {
                    for (lo, hi) in [(true, true), (true, false), (false, true), (false, false)] {
                        let Some(fp) = FixedPoint::with_ends(min, max, r, lo, hi) else {
                            continue;
                        };
                        let probe = [fp.first(), fp.first() + 1, fp.steps() / 2, fp.steps()];
                        for q in probe.into_iter().filter(|&q| fp.is_step(q)) {
                            let v = fp.dequantize(q);
                            assert!(fp.admits(v), "{min} {max} {r} {lo} {hi}: step {q} = {v}");
                            assert_eq!(fp.quantize(v), Ok(q), "{min} {max} {r} {lo} {hi}");
                        }
                        if fp.first() > 0 {
                            assert!(!fp.admits(fp.dequantize(fp.first() - 1)));
                        }
                        let above = fp.min() + (fp.steps() + 1) as f64 * fp.resolution();
                        assert!(!fp.admits(above), "{min} {max} {r} {lo} {hi}");
                        // The ends quantize to the nearest valid step, within r of the value.
                        for v in [min, max, min + r * 0.3, max - r * 0.3] {
                            if let Ok(q) = fp.quantize(v) {
                                assert!((fp.dequantize(q) - v).abs() < r * (1.0 + 1e-9));
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn open_ends() {
        let heading = FixedPoint::with_ends(0.0, 360.0, 0.5, true, false).unwrap();
        assert_eq!(
            (heading.first(), heading.steps(), heading.bits()),
            (0, 719, 10)
        );
        assert_eq!(heading.quantize(359.996), Ok(719));
        assert_eq!(
            heading.quantize(360.0),
            Err(EncodeErrorKind::ValueOutOfRange)
        );
        assert!(!heading.is_step(720));
        let fine = FixedPoint::with_ends(0.0, 360.0, 0.01, true, false).unwrap();
        assert_eq!(fine.quantize(359.996), Ok(35999));
        assert!(fine.dequantize(35999) < 360.0);
        let hull = FixedPoint::with_ends(0.0, 1.0, 0.01, false, true).unwrap();
        assert_eq!((hull.first(), hull.steps()), (1, 100));
        assert_eq!(hull.quantize(0.001), Ok(1));
        assert_eq!(hull.quantize(0.0), Err(EncodeErrorKind::ValueOutOfRange));
        assert!(FixedPoint::with_ends(0.0, 0.3, 0.5, false, false).is_none());
        assert!(FixedPoint::with_ends(1.0, 1.0, 0.5, true, false).is_none());
    }

    #[test]
    fn requantize_is_identity() {
        let fp = FixedPoint::new(-10000.0, 10000.0, 0.01).unwrap();
        for q in (0..=fp.steps()).step_by(997).chain([fp.steps()]) {
            assert_eq!(
                fp.quantize(fp.dequantize(q).clamp(fp.min(), fp.max())),
                Ok(q)
            );
        }
    }
}
