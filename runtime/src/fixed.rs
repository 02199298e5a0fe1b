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

/// `x.round()` (half away from zero) for `0 <= x <= 2^53 + 0.5`, usable in `const fn` and
/// without a libm call: `x as u64` truncates exactly, and the fraction `x - t` is exact because
/// `t` and `x` are within the same binade or `t` is smaller.
#[inline]
const fn round_non_negative(x: f64) -> u64 {
    let t = x as u64;
    if x - t as f64 >= 0.5 { t + 1 } else { t }
}

/// A fixed-point quantizer for one `NUMERIC[min,max]` field with `FIXED_POINT(resolution)`.
///
/// Both sides use the same arithmetic, so a value quantized, sent and dequantized is exactly the
/// value the sender's [`FixedPoint::dequantize`] computes for the same step.
///
/// ```
/// use idlc_runtime::FixedPoint;
/// let fp = FixedPoint::new(-10.0, 10.0, 0.01).unwrap();
/// let q = fp.quantize(1.234).unwrap();
/// assert_eq!(q, 1123);
/// assert!((fp.dequantize(q) - 1.234).abs() <= 0.005 + 1e-12);
/// assert_eq!(fp.bits(), 11);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedPoint {
    min: f64,
    max: f64,
    resolution: f64,
    steps: u64,
    bits: u32,
}

impl FixedPoint {
    /// A quantizer, or `None` when [`fixed_point_steps`] rejects the parameters.
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
        let Some(steps) = fixed_point_steps(min, max, resolution) else {
            return None;
        };
        Some(Self {
            min,
            max,
            resolution,
            steps,
            bits: bits_required(0, steps),
        })
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

    /// The largest step index.
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// assert_eq!(FixedPoint::new(-1.0, 1.0, 0.5).unwrap().steps(), 4);
    /// ```
    #[must_use]
    pub const fn steps(&self) -> u64 {
        self.steps
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

    /// The step index of `value`: `round((value - min) / resolution)`. A NaN is
    /// [`EncodeErrorKind::NotANumber`], a value outside `[min, max]` is
    /// [`EncodeErrorKind::ValueOutOfRange`]; nothing is clamped.
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
        if value.is_nan() {
            return Err(EncodeErrorKind::NotANumber);
        }
        if !(self.min <= value && value <= self.max) {
            return Err(EncodeErrorKind::ValueOutOfRange);
        }
        // In [0, steps + 0.5]: min <= value <= max and the operations are monotonic.
        let x = (value - self.min) / self.resolution;
        Ok(round_non_negative(x).min(self.steps))
    }

    /// The value of step `q`: `min + q * resolution` (q is not checked against `steps`).
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// let fp = FixedPoint::new(-1.0, 1.0, 0.5).unwrap();
    /// assert_eq!(fp.dequantize(3), 0.5);
    /// ```
    #[inline]
    #[must_use]
    pub fn dequantize(&self, q: u64) -> f64 {
        self.min + q as f64 * self.resolution
    }

    /// The value the receiver will hold after `value` is sent: `dequantize(quantize(value))`.
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// let fp = FixedPoint::new(0.0, 10.0, 0.5).unwrap();
    /// assert_eq!(fp.round_trip(3.3), Ok(3.5));
    /// ```
    pub fn round_trip(&self, value: f64) -> Result<f64, EncodeErrorKind> {
        self.quantize(value).map(|q| self.dequantize(q))
    }

    /// Whether two values are sent identically (same step). Used for delta changed-bits: a change
    /// smaller than the resolution is not a change. Values that cannot be sent compare unequal.
    ///
    /// ```
    /// # use idlc_runtime::FixedPoint;
    /// let fp = FixedPoint::new(0.0, 10.0, 0.1).unwrap();
    /// assert!(fp.same_when_sent(1.0, 1.04));
    /// assert!(!fp.same_when_sent(1.0, 1.06));
    /// ```
    #[must_use]
    pub fn same_when_sent(&self, a: f64, b: f64) -> bool {
        matches!((self.quantize(a), self.quantize(b)), (Ok(x), Ok(y)) if x == y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // (b - a) / r not an integer: the top step may lie above b, still within r / 2.
        let odd = FixedPoint::new(0.0, 1.0, 0.4).unwrap();
        assert_eq!(odd.steps(), 3); // round(2.5)
        assert_eq!(odd.quantize(1.0), Ok(3)); // 1.2: exactly r / 2 above
        assert_eq!(odd.quantize(0.8), Ok(2));
        let odd = FixedPoint::new(0.0, 1.0, 0.3).unwrap();
        assert_eq!(odd.quantize(1.0), Ok(3));
        assert!((odd.dequantize(3) - 1.0).abs() <= 0.15);
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
