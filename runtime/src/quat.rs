//! QUATERNION: the rotation type ([`Quaternion`]), its default encoding (four raw FLOAT32s)
//! and `SMALLEST_THREE(n)` ([`SmallestThree`], Glenn Fiedler's "smallest three": the index of
//! the largest component in 2 bits, the other three in n bits each; WIRE.md).
//!
//! The decoder accepts only what re-encodes to the same bits: a code is valid when the
//! quaternion it decodes to is encoded to that code again. The encoder sends the nearest code
//! when it is valid; when it is not (two components of nearly equal size, so that the rebuilt
//! largest is no longer the largest), the valid code nearest the rotation among the codes of
//! every index with each component rounded down or up.

use std::f64::consts::FRAC_1_SQRT_2;

use crate::diff::Diff;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::wire::{WireRead, WireWrite};

/// A rotation as a unit quaternion `(x, y, z, w)`: the Rust type of the IDL's `QUATERNION`.
/// The default is the identity. A Mapping may name any type convertible to and from it (with
/// the feature `glam`, `glam::Quat` is).
///
/// ```
/// use idlc_runtime::Quaternion;
/// assert_eq!(Quaternion::default(), Quaternion::new(0.0, 0.0, 0.0, 1.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quaternion {
    /// The x component (the rotation axis's x times the sine of half the angle).
    pub x: f32,
    /// The y component.
    pub y: f32,
    /// The z component.
    pub z: f32,
    /// The w component (the cosine of half the angle).
    pub w: f32,
}

impl Quaternion {
    /// The identity: no rotation.
    pub const IDENTITY: Self = Self::new(0.0, 0.0, 0.0, 1.0);

    /// The quaternion `(x, y, z, w)`.
    #[must_use]
    pub const fn new(x: f32, y: f32, z: f32, w: f32) -> Self {
        Self { x, y, z, w }
    }

    /// The components in wire order: x, y, z, w.
    #[must_use]
    pub const fn to_array(self) -> [f32; 4] {
        [self.x, self.y, self.z, self.w]
    }

    /// The quaternion of components in wire order: x, y, z, w.
    #[must_use]
    pub const fn from_array([x, y, z, w]: [f32; 4]) -> Self {
        Self::new(x, y, z, w)
    }

    /// Whether every component has the same bits as `other`'s (what a changed-bit of the raw
    /// FLOAT32 encoding compares: -0.0 and NaNs are kept).
    #[must_use]
    pub fn same_bits(&self, other: &Self) -> bool {
        self.to_array()
            .iter()
            .zip(other.to_array())
            .all(|(a, b)| a.to_bits() == b.to_bits())
    }

    /// The rotation angle between `self` and `other` in radians (0 to pi): `q` and `-q` are
    /// one rotation. Both should be unit quaternions.
    ///
    /// ```
    /// use idlc_runtime::Quaternion;
    /// let q = Quaternion::new(0.0, 0.0, 0.0, -1.0);
    /// assert_eq!(q.angle_to(&Quaternion::IDENTITY), 0.0);
    /// ```
    #[must_use]
    pub fn angle_to(&self, other: &Self) -> f64 {
        // 2 atan2(|a - b|, |a + b|) of the normalized pair, b on a's side: accurate for small
        // angles, where acos of the dot product is not.
        let unit = |q: &Self| {
            let c = q.to_array().map(f64::from);
            let length = c.iter().map(|v| v * v).sum::<f64>().sqrt();
            c.map(|v| v / length)
        };
        let (a, mut b) = (unit(self), unit(other));
        if a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>() < 0.0 {
            b = b.map(|v| -v);
        }
        let norm = |f: &dyn Fn(f64, f64) -> f64| {
            a.iter()
                .zip(b)
                .map(|(&x, y)| f(x, y).powi(2))
                .sum::<f64>()
                .sqrt()
        };
        2.0 * norm(&|x, y| x - y).atan2(norm(&|x, y| x + y))
    }
}

impl Default for Quaternion {
    fn default() -> Self {
        Self::IDENTITY
    }
}

#[cfg(feature = "glam")]
impl From<glam::Quat> for Quaternion {
    fn from(q: glam::Quat) -> Self {
        Self::new(q.x, q.y, q.z, q.w)
    }
}

#[cfg(feature = "glam")]
impl From<Quaternion> for glam::Quat {
    fn from(q: Quaternion) -> Self {
        glam::Quat::from_xyzw(q.x, q.y, q.z, q.w)
    }
}

/// Writes a QUATERNION without a rule: four raw FLOAT32s, x, y, z, w (every bit pattern kept).
///
/// # Errors
/// What the writer returns.
///
/// ```
/// use idlc_runtime::{BitReader, BitWriter, Quaternion, WireWrite, read_quaternion_f32, write_quaternion_f32};
/// let mut w = BitWriter::new();
/// write_quaternion_f32(&mut w, &Quaternion::IDENTITY).unwrap();
/// assert_eq!(w.bits_written(), 128);
/// let bytes = w.into_bytes();
/// assert_eq!(read_quaternion_f32(&mut BitReader::new(&bytes)), Ok(Quaternion::IDENTITY));
/// ```
#[inline]
pub fn write_quaternion_f32<W: WireWrite>(w: &mut W, q: &Quaternion) -> Result<(), EncodeError> {
    for c in q.to_array() {
        w.write_f32(c)?;
    }
    Ok(())
}

/// Reads what [`write_quaternion_f32`] wrote.
///
/// # Errors
/// What the reader returns.
#[inline]
pub fn read_quaternion_f32<'a, R: WireRead<'a>>(r: &mut R) -> Result<Quaternion, DecodeError> {
    Ok(Quaternion::new(
        r.read_f32()?,
        r.read_f32()?,
        r.read_f32()?,
        r.read_f32()?,
    ))
}

/// How far from unit length a quaternion the encoder takes may be: `|x² + y² + z² + w² - 1|`
/// at most this (the length within about 0.05% of 1). The encoder normalizes what it takes; a
/// quaternion farther from unit length (or of zero length) is `ValueOutOfRange`, one with a
/// NaN or an infinity `NotANumber`.
pub const UNIT_TOLERANCE: f64 = 1e-3;

/// Below this `|length² - 1|` the encoder takes the components as they are, unnormalized: an
/// `f32` quaternion decoded from a code is this close to unit length (its components rounded
/// to `f32`), and re-encoding it must give the code's steps even at 24 bits.
const NORMALIZE_ABOVE: f64 = 1.0 / (1u64 << 20) as f64;

/// `v0² + v1² + ...` as fused multiply-adds in order: the C++ runtime computes the same bits
/// whether or not its compiler contracts `a * b + c` (a decoder's verdict depends on them).
fn sum_squares(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |acc, x| x.mul_add(*x, acc))
}

/// The widest code whose rebuilt quaternion re-encodes to its own steps whenever it re-encodes
/// to its own index ([`SmallestThree::accepts`]): an `f32` component moves its position by at
/// most `2^-24 * last / 2`, 2^-5 of a step at 20 bits.
const SAME_STEPS_BITS: u32 = 20;

/// What rounding a decoded quaternion's components to `f32` may add to its angle, in radians.
const F32_ROUNDING: f64 = 1.0 / (1u64 << 21) as f64;

/// The fewest and most bits per component of `SMALLEST_THREE(n)`.
pub const SMALLEST_THREE_BITS: std::ops::RangeInclusive<u32> = 2..=24;

/// What `SMALLEST_THREE(n)` sends of a quaternion: the index (0..=3 for x, y, z, w) of its
/// largest component, and the steps (`0..=2^n - 1`) of the other three, in x, y, z, w order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SmallestThreeCode {
    /// The index of the largest component.
    pub index: u8,
    /// The steps of the other three components, in order.
    pub steps: [u64; 3],
}

/// `SMALLEST_THREE(n)`: a unit quaternion as the index of its largest component (made
/// positive: `q` and `-q` are one rotation) in 2 bits, then the other three, each in
/// `[-1/sqrt(2), 1/sqrt(2)]`, as one of `2^n` steps (WIRE.md).
///
/// The rotation a decoder returns is within [`SmallestThree::max_angle`] of the one encoded.
///
/// ```
/// use idlc_runtime::{BitReader, BitWriter, Quaternion, SmallestThree, WireWrite};
/// const ORIENTATION: SmallestThree = SmallestThree::new(9);
/// let q = Quaternion::new(0.0, 0.38268343, 0.0, 0.9238795); // 45 degrees about y
/// let mut w = BitWriter::new();
/// ORIENTATION.write(&mut w, &q).unwrap();
/// assert_eq!(w.bits_written(), 29);
/// let bytes = w.into_bytes();
/// let back = ORIENTATION.read(&mut BitReader::new(&bytes)).unwrap();
/// assert!(back.angle_to(&q) <= ORIENTATION.max_angle());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmallestThree {
    bits: u32,
}

impl SmallestThree {
    /// The rule with `bits` per component (the compiler checks 2..=24; other widths make every
    /// write and read an `InvalidArgument` error).
    #[must_use]
    pub const fn new(bits: u32) -> Self {
        Self { bits }
    }

    /// Bits per component.
    #[must_use]
    pub const fn bits(&self) -> u32 {
        self.bits
    }

    /// Bits of the whole code in a BITSTREAM: `2 + 3n`.
    #[must_use]
    pub const fn code_bits(&self) -> u32 {
        2 + 3 * self.bits
    }

    /// The largest step of a component: `2^n - 1`.
    #[must_use]
    pub const fn last_step(&self) -> u64 {
        (1u64 << self.bits) - 1
    }

    const fn valid(&self) -> bool {
        self.bits >= *SMALLEST_THREE_BITS.start() && self.bits <= *SMALLEST_THREE_BITS.end()
    }

    /// The largest rotation angle, in radians, between a unit quaternion and what its code
    /// decodes to: `4 * sqrt(3) * r` for the step `r = sqrt(2) / (2^n - 1)` (each sent
    /// component off by at most one step, the rebuilt one by at most `sqrt(3)` of that since
    /// it is at least 1/2; the rotation angle is twice the angle between the quaternions),
    /// plus 2^-21 for the components' rounding to `f32`, which the widest rules reach.
    /// For n = 9: 0.0192 rad, 1.10 degrees (the nearest code, sent unless two components are
    /// nearly equal, is within half of that: 0.55 degrees).
    #[must_use]
    pub fn max_angle(&self) -> f64 {
        4.0 * 3f64.sqrt() * self.step_size() + F32_ROUNDING
    }

    fn step_size(&self) -> f64 {
        2.0 * FRAC_1_SQRT_2 / self.last_step() as f64
    }

    /// Where `v` (in `[-1/sqrt(2), 1/sqrt(2)]`) lies on the steps, unrounded and clamped.
    fn position(&self, v: f64) -> f64 {
        let last = self.last_step() as f64;
        ((v / FRAC_1_SQRT_2 + 1.0) * last / 2.0).clamp(0.0, last)
    }

    /// A step near the position `p` (in `0..=last`): its floor, its ceiling, the step below
    /// the floor, the step above the ceiling, for `choice` 0 to 3; clamped to the steps.
    fn around(&self, p: f64, choice: u32) -> u64 {
        // `p` is in 0..=last: `position` clamps.
        let (floor, ceil) = (p.floor() as u64, p.ceil() as u64);
        let step = match choice {
            0 => floor,
            1 => ceil,
            2 => floor.saturating_sub(1),
            _ => ceil.saturating_add(1),
        };
        step.min(self.last_step())
    }

    /// The component of `step` (at most `last`, below 2^24): antisymmetric,
    /// `component(last - s) == -component(s)`.
    fn component(&self, step: u64) -> f64 {
        let last = self.last_step() as i64;
        // Exact in i64 and in f64: both below 2^25.
        let twice = 2 * (step as i64) - last;
        twice as f64 / last as f64 * FRAC_1_SQRT_2
    }

    /// The step nearest the position `p` (in `0..=last`), halves away from zero: what `f64::round`
    /// gives (and the C++ runtime's `std::round`), without its call into libm.
    fn nearest_step(p: f64) -> u64 {
        // `p` is in 0..=2^24: the truncation is exact, and so is the fraction left.
        let floor = p as u64;
        floor + u64::from(p - floor as f64 >= 0.5)
    }

    /// The components taken (normalized unless already unit to within 2^-20), or the error.
    fn unit(q: &Quaternion) -> Result<[f64; 4], EncodeErrorKind> {
        let c = q.to_array().map(f64::from);
        if c.iter().any(|v| !v.is_finite()) {
            return Err(EncodeErrorKind::NotANumber);
        }
        let length2 = sum_squares(&c);
        let off = (length2 - 1.0).abs();
        if off > UNIT_TOLERANCE {
            return Err(EncodeErrorKind::ValueOutOfRange);
        }
        if off <= NORMALIZE_ABOVE {
            return Ok(c);
        }
        let scale = 1.0 / length2.sqrt();
        Ok(c.map(|v| v * scale))
    }

    /// The index of the largest component (the first of equals) and the sign that makes it
    /// positive.
    fn largest(c: &[f64; 4]) -> (usize, f64) {
        // Selects rather than branches: which component is largest is as random as the
        // rotation, so a branch on it is mispredicted about half the time.
        let (mut index, mut largest) = (0, c[0]);
        for (i, &v) in c.iter().enumerate().skip(1) {
            let larger = v.abs() > largest.abs();
            index = if larger { i } else { index };
            largest = if larger { v } else { largest };
        }
        let sign = if largest < 0.0 { -1.0 } else { 1.0 };
        (index, sign)
    }

    /// The three components other than `index`, in order, times `sign`.
    fn others(c: &[f64; 4], index: usize, sign: f64) -> [f64; 3] {
        // The k-th of the others is c[k] below `index` and c[k + 1] from it on: an index
        // computed, not a branch per component.
        std::array::from_fn(|k| c.get(k + usize::from(k >= index)).copied().unwrap_or(0.0) * sign)
    }

    /// The nearest code of `q`, valid or not.
    fn nearest(&self, q: &Quaternion) -> Result<SmallestThreeCode, EncodeErrorKind> {
        if !self.valid() {
            return Err(EncodeErrorKind::InvalidArgument);
        }
        let c = Self::unit(q)?;
        let (index, sign) = Self::largest(&c);
        let others = Self::others(&c, index, sign);
        Ok(SmallestThreeCode {
            index: index as u8,
            // In 0..=last after the clamp.
            steps: others.map(|v| Self::nearest_step(self.position(v))),
        })
    }

    /// The quaternion `code` stands for, unchecked: `None` when the three components alone are
    /// longer than 1 (or the code is out of range).
    fn rebuild(&self, code: &SmallestThreeCode) -> Option<Quaternion> {
        if !self.valid() || code.index > 3 || code.steps.iter().any(|&s| s > self.last_step()) {
            return None;
        }
        let others = code.steps.map(|s| self.component(s));
        let sum = sum_squares(&others);
        if sum > 1.0 {
            return None;
        }
        // The largest component everywhere, then the others over it in order around `index`
        // (stores to computed places rather than a branch, or a jump, on the index).
        let index = usize::from(code.index);
        let mut out = [(1.0 - sum).sqrt() as f32; 4];
        for (k, &v) in others.iter().enumerate() {
            if let Some(slot) = out.get_mut(k + usize::from(k >= index)) {
                *slot = v as f32;
            }
        }
        Some(Quaternion::from_array(out))
    }

    /// Whether `code` decodes to a quaternion whose nearest code is `code` again: what a
    /// decoder accepts and an encoder may send.
    fn accepts(&self, code: &SmallestThreeCode) -> Option<Quaternion> {
        let q = self.rebuild(code)?;
        if self.bits > SAME_STEPS_BITS {
            return self.reencodes_to(&q, code).then_some(q);
        }
        // At most SAME_STEPS_BITS bits, `nearest(q)` can differ from `code` only in its index,
        // so only the index is recomputed (the same `largest` as `nearest`'s), without the
        // length, the positions and their rounding:
        // - `q`'s components are f32 roundings of a vector unit to within f64 rounding, so
        //   `|length² - 1|` is about 2^-23 at most, below NORMALIZE_ABOVE: `nearest` takes them
        //   as they are, unnormalized;
        // - the largest component is `sqrt(1 - sum) >= 0`, so when it is still the largest the
        //   sign is +1;
        // - each other component `v` is `component(s)` rounded to f32, off by at most
        //   2^-24 |v| <= 2^-24 / sqrt(2), so its position lies within 2^-24 * last / 2 <= 2^-5
        //   of `s` (plus f64 rounding): `nearest_step` gives `s` back.
        // The test `accepts_is_the_full_check` compares this with the full check.
        let c = q.to_array().map(f64::from);
        (Self::largest(&c).0 == usize::from(code.index)).then_some(q)
    }

    /// Whether `q` (a code's rebuilt quaternion) has `code` as its nearest code: the whole
    /// check that [`SmallestThree::accepts`] shortens up to [`SAME_STEPS_BITS`].
    fn reencodes_to(&self, q: &Quaternion, code: &SmallestThreeCode) -> bool {
        self.nearest(q).is_ok_and(|again| again == *code)
    }

    /// The code sent for `q`: the nearest when it is valid, else the valid code of the least
    /// rotation from `q` (any index, each component at its floor, its ceiling or one step
    /// beyond either; the first of equals).
    ///
    /// # Errors
    /// `NotANumber` for a NaN or infinite component; `ValueOutOfRange` for a quaternion
    /// farther from unit length than [`UNIT_TOLERANCE`]; `InvalidArgument` for a width outside
    /// 2..=24.
    pub fn encode(&self, q: &Quaternion) -> Result<SmallestThreeCode, EncodeErrorKind> {
        self.encode_rebuilt(q).map(|(code, _)| code)
    }

    /// [`SmallestThree::encode`] and the quaternion its code rebuilds to, which the check of
    /// the code has made (so `sent` does not rebuild it again).
    fn encode_rebuilt(
        &self,
        q: &Quaternion,
    ) -> Result<(SmallestThreeCode, Quaternion), EncodeErrorKind> {
        self.settle(q, self.nearest(q)?)
    }

    /// [`SmallestThree::encode_rebuilt`] of `q`, whose nearest code is `nearest`.
    fn settle(
        &self,
        q: &Quaternion,
        nearest: SmallestThreeCode,
    ) -> Result<(SmallestThreeCode, Quaternion), EncodeErrorKind> {
        if let Some(back) = self.accepts(&nearest) {
            return Ok((nearest, back));
        }
        let c = Self::unit(q)?;
        let mut best: Option<(f64, SmallestThreeCode, Quaternion)> = None;
        for index in 0..4 {
            let sign = if c[index] < 0.0 { -1.0 } else { 1.0 };
            let at = Self::others(&c, index, sign).map(|v| self.position(v));
            for choice in 0..64u32 {
                let mut steps = [0u64; 3];
                for (k, (slot, p)) in steps.iter_mut().zip(at).enumerate() {
                    *slot = self.around(p, (choice >> (2 * k)) & 3);
                }
                let code = SmallestThreeCode {
                    index: index as u8,
                    steps,
                };
                let Some(back) = self.accepts(&code) else {
                    continue;
                };
                let dot = c
                    .iter()
                    .zip(back.to_array())
                    .fold(0.0, |acc: f64, (a, b)| a.mul_add(f64::from(b), acc))
                    .abs();
                if best.is_none_or(|(d, _, _)| dot > d) {
                    best = Some((dot, code, back));
                }
            }
        }
        best.map(|(_, code, back)| (code, back))
            .ok_or(EncodeErrorKind::ValueOutOfRange)
    }

    /// The unit quaternion `code` stands for, when it is valid (what re-encodes to it).
    ///
    /// # Errors
    /// `ValueOutOfRange` for a code no encoder sends.
    pub fn decode(&self, code: &SmallestThreeCode) -> Result<Quaternion, DecodeErrorKind> {
        self.accepts(code).ok_or(DecodeErrorKind::ValueOutOfRange)
    }

    /// The quaternion a receiver holds after `q` is sent: what [`SmallestThree::decode`] gives
    /// of its code.
    ///
    /// # Errors
    /// As [`SmallestThree::encode`].
    pub fn sent(&self, q: &Quaternion) -> Result<Quaternion, EncodeError> {
        self.sent_code(q).map(|(_, sent)| sent)
    }

    /// The code `q` is sent with and the quaternion a receiver holds after it: a delta encoder
    /// compares the second, then writes the first ([`SmallestThree::write_code`]) without
    /// encoding again.
    ///
    /// # Errors
    /// As [`SmallestThree::encode`].
    pub fn sent_code(
        &self,
        q: &Quaternion,
    ) -> Result<(SmallestThreeCode, Quaternion), EncodeError> {
        self.encode_rebuilt(q).map_err(|k| EncodeError::new(k, 0))
    }

    /// Whether `baseline` is sent with `code` (a code [`SmallestThree::encode`] gave): what
    /// [`SmallestThree::sends_as`] asks, of the code. A baseline whose nearest code is `code`
    /// is; one whose nearest code has the same index and a step more than 2 from `code`'s is
    /// not (the encoder sends the nearest code or, when that one is not valid, one of the same
    /// index within 2 steps of it, or of another index), answered without the encoder's check.
    #[must_use]
    pub fn sends_code(&self, baseline: &Quaternion, code: &SmallestThreeCode) -> bool {
        let Ok(nearest) = self.nearest(baseline) else {
            return false;
        };
        if nearest == *code {
            // `code` is valid, so the encoder sends its nearest code.
            return true;
        }
        let far = nearest.index == code.index
            && nearest
                .steps
                .iter()
                .zip(code.steps)
                .any(|(a, b)| a.abs_diff(b) > 2);
        !far && self
            .settle(baseline, nearest)
            .is_ok_and(|(sent, _)| sent == *code)
    }

    /// Whether `baseline` is sent as `sent` (a quaternion as the receiver holds it, the
    /// [`SmallestThree::sent`] of some value): its code rebuilds to the same bits. False when
    /// `baseline` cannot be sent. What a delta encoder asks of a baseline that is not a value
    /// as sent (a `Default` identity, a game's own rotation) when the value it sends differs
    /// from it: a changed-bit compares both as they would be sent (WIRE.md).
    ///
    /// ```
    /// use idlc_runtime::{Quaternion, SmallestThree};
    /// const ORIENTATION: SmallestThree = SmallestThree::new(9);
    /// let sent = ORIENTATION.sent(&Quaternion::IDENTITY).unwrap();
    /// assert_ne!(sent, Quaternion::IDENTITY); // 0 is no step of 2^9 - 1 steps
    /// assert!(ORIENTATION.sends_as(&Quaternion::IDENTITY, &sent));
    /// ```
    #[must_use]
    pub fn sends_as(&self, baseline: &Quaternion, sent: &Quaternion) -> bool {
        self.encode_rebuilt(baseline)
            .is_ok_and(|(_, held)| held.same_bits(sent))
    }

    /// The code of a baseline's quaternion, the reference of `DELTA DIFF(..)
    /// SMALLEST_THREE(n)`: `None` when it has none (NaN, far from unit length); both sides
    /// compute the same.
    #[must_use]
    pub fn reference(&self, baseline: &Quaternion) -> Option<SmallestThreeCode> {
        self.encode(baseline).ok()
    }

    /// Writes `q`: the index in 2 bits, then the three steps in n bits each, in one word when
    /// they fit 64 bits (n up to 20; a BYTESTREAM rounds it to 1, 2, 4 or 8 bytes), else the
    /// index and the first step in one, the other two in another.
    ///
    /// # Errors
    /// As [`SmallestThree::encode`]; what the writer returns.
    pub fn write<W: WireWrite>(&self, w: &mut W, q: &Quaternion) -> Result<(), EncodeError> {
        let code = self.encode(q).map_err(|k| w.error(k))?;
        self.write_code(w, &code)
    }

    /// Writes a code (valid, from [`SmallestThree::encode`]) as [`SmallestThree::write`] does.
    ///
    /// # Errors
    /// What the writer returns.
    pub fn write_code<W: WireWrite>(
        &self,
        w: &mut W,
        code: &SmallestThreeCode,
    ) -> Result<(), EncodeError> {
        let n = self.bits;
        let [a, b, c] = code.steps;
        let index = u64::from(code.index);
        if self.code_bits() <= 64 {
            w.write_bits(
                index | (a << 2) | (b << (2 + n)) | (c << (2 + 2 * n)),
                self.code_bits(),
            )
        } else {
            w.write_bits(index | (a << 2), 2 + n)?;
            w.write_bits(b | c << n, 2 * n)
        }
    }

    /// Reads a code as [`SmallestThree::write_code`] wrote it, unchecked but for its steps'
    /// range.
    ///
    /// # Errors
    /// What the reader returns; `InvalidArgument` for a width outside 2..=24.
    pub fn read_code<'a, R: WireRead<'a>>(
        &self,
        r: &mut R,
    ) -> Result<SmallestThreeCode, DecodeError> {
        if !self.valid() {
            return Err(r.error(DecodeErrorKind::InvalidArgument));
        }
        let n = self.bits;
        let mask = self.last_step();
        let (index, a, bc) = if self.code_bits() <= 64 {
            let v = r.read_bits(self.code_bits())?;
            (v & 3, (v >> 2) & mask, v >> (2 + n))
        } else {
            let v = r.read_bits(2 + n)?;
            (v & 3, v >> 2, r.read_bits(2 * n)?)
        };
        Ok(SmallestThreeCode {
            index: index as u8,
            steps: [a, bc & mask, (bc >> n) & mask],
        })
    }

    /// Reads what [`SmallestThree::write`] wrote: a unit quaternion.
    ///
    /// # Errors
    /// What the reader returns; `ValueOutOfRange` for a code no encoder sends (at the bit
    /// where it began).
    pub fn read<'a, R: WireRead<'a>>(&self, r: &mut R) -> Result<Quaternion, DecodeError> {
        let start = r.bits_read();
        let code = self.read_code(r)?;
        self.decode(&code).map_err(|k| DecodeError::new(k, start))
    }

    /// The DIFF of one component's steps.
    fn diff<'t>(&self, tiers: &'t [u32]) -> Diff<'t> {
        Diff::new(tiers, 0, self.last_step(), false)
    }

    /// Writes `q` against the baseline's code `reference` (`DELTA DIFF(tiers)
    /// SMALLEST_THREE(n)`, WIRE.md): a bit that says whether the largest index is the
    /// reference's; if it is, each of the three steps as its tiered difference to the
    /// reference's (after the escape, the step in n bits), else the whole code.
    ///
    /// # Errors
    /// As [`SmallestThree::encode`]; what the writer returns.
    pub fn write_diff<W: WireWrite>(
        &self,
        w: &mut W,
        tiers: &[u32],
        q: &Quaternion,
        reference: Option<&SmallestThreeCode>,
    ) -> Result<(), EncodeError> {
        let code = self.encode(q).map_err(|k| w.error(k))?;
        self.write_diff_code(w, tiers, &code, reference)
    }

    /// Writes a code (valid, from [`SmallestThree::encode`]) as [`SmallestThree::write_diff`]
    /// does.
    ///
    /// # Errors
    /// What the writer returns.
    pub fn write_diff_code<W: WireWrite>(
        &self,
        w: &mut W,
        tiers: &[u32],
        code: &SmallestThreeCode,
        reference: Option<&SmallestThreeCode>,
    ) -> Result<(), EncodeError> {
        let same = reference.filter(|r| r.index == code.index);
        w.write_bool(same.is_some())?;
        let Some(reference) = same else {
            return self.write_code(w, code);
        };
        let diff = self.diff(tiers);
        for (now, was) in code.steps.iter().zip(reference.steps) {
            if !diff.write(w, *now, was)? {
                w.write_bits(*now, self.bits)?;
            }
        }
        Ok(())
    }

    /// Reads what [`SmallestThree::write_diff`] wrote against the same `reference`.
    ///
    /// # Errors
    /// What the reader returns; `ValueOutOfRange` for what no encoder sends: the same-index
    /// bit without a reference, a difference another tier (or no escape) should have carried,
    /// a code that is not valid.
    pub fn read_diff<'a, R: WireRead<'a>>(
        &self,
        r: &mut R,
        tiers: &[u32],
        reference: Option<&SmallestThreeCode>,
    ) -> Result<Quaternion, DecodeError> {
        let start = r.bits_read();
        if !r.read_bool()? {
            let q = self.read(r)?;
            // The encoder sends the whole code only when the index changed.
            return match reference {
                Some(was) if self.encode(&q).is_ok_and(|c| c.index == was.index) => {
                    Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start))
                }
                _ => Ok(q),
            };
        }
        let Some(reference) = reference else {
            return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start));
        };
        if !self.valid() {
            return Err(r.error(DecodeErrorKind::InvalidArgument));
        }
        let diff = self.diff(tiers);
        let mut steps = [0u64; 3];
        for (slot, was) in steps.iter_mut().zip(reference.steps) {
            let at = r.bits_read();
            *slot = match diff.read(r, was)? {
                Some(step) => step,
                None => {
                    let step = r.read_bits(self.bits)?;
                    diff.check_escaped(step, was, at)?;
                    step
                }
            };
        }
        let code = SmallestThreeCode {
            index: reference.index,
            steps,
        };
        self.decode(&code).map_err(|k| DecodeError::new(k, start))
    }
}

#[cfg(all(test, feature = "glam"))]
mod glam_tests {
    use super::Quaternion;

    #[test]
    fn glam_quat_round_trips() {
        let q = glam::Quat::from_rotation_y(0.5);
        let ours = Quaternion::from(q);
        assert_eq!(glam::Quat::from(ours), q);
        assert_eq!(
            glam::Quat::from(Quaternion::default()),
            glam::Quat::IDENTITY
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{Quaternion, SAME_STEPS_BITS, SmallestThree, SmallestThreeCode};
    use proptest::prelude::*;

    /// `f64::round` where the steps are decided: halves, the floats either side of them, the
    /// ends.
    #[test]
    fn nearest_step_rounds_as_f64_round_at_the_halves() {
        let last = f64::from((1u32 << 24) - 1);
        for k in [0.0, 1.0, 2.0, 255.0, 511.0, 65_535.0, last - 1.0, last] {
            for p in [k, k + 0.5, k - 0.5, k + 0.25] {
                for q in [p, p.next_up(), p.next_down()] {
                    if (0.0..=last).contains(&q) {
                        assert_eq!(SmallestThree::nearest_step(q), q.round() as u64, "{q}");
                    }
                }
            }
        }
    }

    /// What [`SmallestThree::accepts`] checked before its shortcut: the whole re-encode.
    fn accepts_in_full(st: &SmallestThree, code: &SmallestThreeCode) -> Option<Quaternion> {
        let q = st.rebuild(code)?;
        st.reencodes_to(&q, code).then_some(q)
    }

    /// Every code of the narrow widths, each index: the shortcut and the full check agree.
    #[test]
    fn accepts_is_the_full_check_on_every_narrow_code() {
        for bits in 2..=4u32 {
            let st = SmallestThree::new(bits);
            let last = st.last_step();
            let mut accepted = 0;
            for index in 0..4u8 {
                for a in 0..=last {
                    for b in 0..=last {
                        for c in 0..=last {
                            let code = SmallestThreeCode {
                                index,
                                steps: [a, b, c],
                            };
                            let full = accepts_in_full(&st, &code);
                            assert_eq!(st.accepts(&code), full, "{bits} {code:?}");
                            accepted += usize::from(full.is_some());
                        }
                    }
                }
            }
            assert!(accepted > 0, "{bits}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        #[test]
        fn nearest_step_is_f64_round(p in 0.0..=f64::from((1u32 << 24) - 1)) {
            prop_assert_eq!(SmallestThree::nearest_step(p), p.round() as u64);
        }

        /// Random codes of every width the shortcut takes, and the codes of random rotations
        /// with a step or two added (the codes a decoder meets, near the edge of the largest
        /// component's lead).
        #[test]
        fn accepts_is_the_full_check(
            bits in 2..=SAME_STEPS_BITS,
            index in 0..4u8,
            steps in proptest::array::uniform3(0u64..(1 << 24)),
            q in proptest::array::uniform4(-1.0f32..1.0),
            nudge in proptest::array::uniform3(-2i64..=2),
        ) {
            let st = SmallestThree::new(bits);
            let last = st.last_step();
            let code = SmallestThreeCode { index, steps: steps.map(|s| s % (last + 1)) };
            prop_assert_eq!(st.accepts(&code), accepts_in_full(&st, &code));
            let length = q.iter().map(|v| v * v).sum::<f32>().sqrt();
            if length > 0.1 {
                let q = Quaternion::from_array(q.map(|v| v / length));
                if let Ok(near) = st.nearest(&q) {
                    let mut code = near;
                    for (s, d) in code.steps.iter_mut().zip(nudge) {
                        *s = s.saturating_add_signed(d).min(last);
                    }
                    prop_assert_eq!(st.accepts(&code), accepts_in_full(&st, &code));
                    prop_assert_eq!(st.accepts(&near), accepts_in_full(&st, &near));
                }
            }
        }
    }
}
