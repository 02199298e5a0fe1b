//! `DIFF(b1, ..., bk)`: a changed value sent as its difference to a reference, in tiers
//! (WIRE.md, "Delta and dead reckoning").
//!
//! Values are taken as *steps*: a FIXED_POINT value's step `q`, an integer's `v - min`, an
//! enumerator's index. The difference `d = now - reference` travels after a tier selector in the
//! first tier whose `b_i` bits hold `zigzag(d)`; when none does, the selector's escape, and the
//! value by its own rule follows. On a range that wraps around (an open upper end, such as an
//! angle in `[0, 360)`) the difference is taken the shortest way around.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::int::{WireInt, zigzag_decode, zigzag_encode};
use crate::wire::{WireRead, WireWrite};

/// The tiers of a `DIFF(b1, ..., bk)` rule and the steps of the range it applies to.
///
/// ```
/// use idlc_runtime::{BitReader, BitWriter, Diff, WireWrite};
/// // DIFF(4, 8) on a FIXED_POINT with steps 0..=2_000_000.
/// const X: Diff = Diff::new(&[4, 8], 0, 2_000_000, false);
/// let mut w = BitWriter::new();
/// assert!(X.write(&mut w, 1_000_007, 1_000_000).unwrap()); // +7: tier 1
/// assert_eq!(w.bits_written(), 1 + 4);
/// let bytes = w.into_bytes();
/// let mut r = BitReader::new(&bytes);
/// assert_eq!(X.read(&mut r, 1_000_000).unwrap(), Some(1_000_007));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Diff<'t> {
    tiers: &'t [u32],
    origin: i128,
    first: u64,
    last: u64,
    wraps: bool,
    /// What a BITSTREAM decoder reads the codes with, when they are short enough.
    codes: Option<Codes>,
}

/// The tiers' codes as a bit-stream decoder takes them from one look at the input (for at most
/// [`FAST_TIERS`] tiers whose codes fit [`PEEK_BITS`]): byte `i` of each word is tier `i`'s.
/// Words rather than a table, so that a `const` rule's codes are immediates in the decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Codes {
    /// The bits of the tier's selector and difference; 0 past the last tier.
    lengths: u64,
    /// The widest earlier tier's bits, plus one (0 for the first tier): the least zigzag the
    /// tier may carry is `(1 << byte) >> 1`.
    floors: u64,
}

impl Codes {
    /// Tier `tier`'s byte of `word` (`tier < FAST_TIERS`).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn byte(word: u64, tier: u32) -> u64 {
        (word >> (tier * 8)) & 0xff
    }
}

/// The codes of `tiers`, when the one-look decoder can read them.
const fn codes_of(tiers: &[u32]) -> Option<Codes> {
    if tiers.len() > FAST_TIERS {
        return None;
    }
    let (mut lengths, mut floors) = (0u64, 0u64);
    let mut widest = 0;
    let mut tier = 0;
    while tier < tiers.len() {
        let bits = tiers[tier];
        let length = tier as u32 + 1 + bits;
        if bits == 0 || length > PEEK_BITS {
            return None;
        }
        lengths |= (length as u64) << (tier * 8);
        // A tier's bits are below PEEK_BITS here, so the floor's byte is at most PEEK_BITS.
        if tier > 0 {
            floors |= (widest as u64 + 1) << (tier * 8);
        }
        if bits > widest {
            widest = bits;
        }
        tier += 1;
    }
    Some(Codes { lengths, floors })
}

impl<'t> Diff<'t> {
    /// The rule with `tiers` (each 1..=64 bits; the compiler checks them) over the steps
    /// `first..=last`; `wraps` when the range has an open upper end, so that the difference
    /// is taken modulo the number of steps.
    #[must_use]
    #[inline]
    pub const fn new(tiers: &'t [u32], first: u64, last: u64, wraps: bool) -> Self {
        Self {
            tiers,
            origin: 0,
            first,
            last,
            wraps,
            codes: codes_of(tiers),
        }
    }

    /// The rule with `origin`, the integer value of step 0 (an integer rule's `min`: its
    /// steps are `v - origin`).
    #[must_use]
    #[inline]
    pub const fn with_origin(self, origin: i128) -> Self {
        Self { origin, ..self }
    }

    /// The step of the integer `v` (`v - origin`), when it is one of `first..=last`: what the
    /// encoder sends. A value outside is the error a full write of it gives.
    ///
    /// ```
    /// use idlc_runtime::Diff;
    /// let hp = Diff::new(&[4], 0, 200, false).with_origin(-100); // INT[-100, 100]
    /// assert_eq!(hp.step(-99), Some(1));
    /// assert_eq!(hp.step(101), None);
    /// ```
    #[must_use]
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn step(&self, v: i128) -> Option<u64> {
        v.checked_sub(self.origin)
            .and_then(|s| u64::try_from(s).ok())
            .filter(|s| (self.first..=self.last).contains(s))
    }

    /// The step nearest the integer `v`: a reference taken from a baseline, which a game may
    /// have built with any value (both sides compute the same).
    #[must_use]
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn reference(&self, v: i128) -> u64 {
        let s = v.saturating_sub(self.origin);
        if s <= i128::from(self.first) {
            self.first
        } else if s >= i128::from(self.last) {
            self.last
        } else {
            // first < s < last <= u64::MAX
            s as u64
        }
    }

    /// The integer value of `step`: `origin + step`.
    #[must_use]
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn value(&self, step: u64) -> i128 {
        self.origin + i128::from(step)
    }

    /// The tiers, in bits.
    #[must_use]
    #[inline]
    pub const fn tiers(&self) -> &'t [u32] {
        self.tiers
    }

    /// The number of steps, when the range wraps around.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn modulus(&self) -> Option<i128> {
        let count = i128::from(self.last) - i128::from(self.first) + 1;
        (self.wraps && count > 0).then_some(count)
    }

    /// The difference the encoder sends for `now` against `reference`: `now - reference`, or
    /// on a range that wraps around the shortest way, in `(-n/2, n/2]` for `n` steps.
    ///
    /// ```
    /// use idlc_runtime::Diff;
    /// let angle = Diff::new(&[6], 0, 35_999, true); // FIXED_POINT(0.01) on NUMERIC[0, 360)
    /// assert_eq!(angle.difference(1, 35_999), 2); // 359.99 -> 0.01
    /// assert_eq!(angle.difference(35_999, 1), -2);
    /// ```
    #[must_use]
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn difference(&self, now: u64, reference: u64) -> i128 {
        let d = i128::from(now) - i128::from(reference);
        match self.modulus() {
            Some(n) => {
                let d = d.rem_euclid(n);
                if d > n / 2 { d - n } else { d }
            }
            None => d,
        }
    }

    /// The tier (its index) that holds the difference `d`: the first whose bits hold
    /// `zigzag(d)`; `None` for the escape.
    ///
    /// ```
    /// use idlc_runtime::Diff;
    /// let x = Diff::new(&[4, 8], 0, 1000, false);
    /// assert_eq!(x.tier_of(-8), Some(0));
    /// assert_eq!(x.tier_of(8), Some(1));
    /// assert_eq!(x.tier_of(200), None);
    /// ```
    #[must_use]
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn tier_of(&self, d: i128) -> Option<usize> {
        let zz = zigzag(d);
        self.tiers.iter().position(|&bits| fits(zz, bits))
    }

    /// Writes `now` against `reference`: the selector and the difference when a tier holds it
    /// (`Ok(true)`), else the escape alone (`Ok(false)`: the caller writes the value by its
    /// rule).
    ///
    /// # Errors
    /// What the writer returns.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn write<W: WireWrite>(
        &self,
        w: &mut W,
        now: u64,
        reference: u64,
    ) -> Result<bool, EncodeError> {
        let (tier, zz) = self.code(now, reference);
        if !W::BYTE_STREAM {
            // The selector and the difference in one write when they fit a word: the same bits.
            let count = self.tiers.len();
            match tier {
                Some(i) => {
                    let bits = self.tiers.get(i).copied().unwrap_or(0);
                    let width = i as u32 + 1 + bits;
                    if width <= 64 {
                        let selector = (1u64 << i) - 1;
                        w.write_bits(selector | (zz << (i + 1)), width)?;
                        return Ok(true);
                    }
                }
                None if count < 64 => {
                    w.write_bits((1u64 << count) - 1, count as u32)?;
                    return Ok(false);
                }
                None => {}
            }
        }
        self.write_selector(w, tier)?;
        let Some(tier) = tier else {
            return Ok(false);
        };
        let bits = self.tiers.get(tier).copied().unwrap_or(0);
        w.write_bits(zz, bits)?;
        Ok(true)
    }

    /// The tier that carries `now` against `reference` (`None` for the escape) and the
    /// difference's zigzag, which has at most the tier's bits (meaningless on the escape). In
    /// 64-bit arithmetic on a range that does not wrap when both steps are below 2^62 (a caller
    /// may pass any step), as every step of a rule narrower than 62 bits is; else as
    /// [`Diff::difference`] takes it, in 128 bits.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn code(&self, now: u64, reference: u64) -> (Option<usize>, u64) {
        if !self.wraps && (now | reference) < 1 << 62 {
            // Both below 2^62: the difference fits an i64, its zigzag a u64.
            let zz = zigzag_encode(now as i64 - reference as i64);
            let tier = self
                .tiers
                .iter()
                .position(|&bits| bits >= 64 || zz >> bits == 0);
            return (tier, zz);
        }
        let d = self.difference(now, reference);
        let tier = self.tier_of(d);
        // `fits` said that the zigzag has at most the tier's bits, at most 64.
        (tier, zigzag(d) as u64)
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn write_selector<W: WireWrite>(
        &self,
        w: &mut W,
        tier: Option<usize>,
    ) -> Result<(), EncodeError> {
        let index = tier.unwrap_or(self.tiers.len());
        if W::BYTE_STREAM {
            return w.write_bits(index as u64, 8);
        }
        for _ in 0..index {
            w.write_bool(true)?;
        }
        if tier.is_some() {
            w.write_bool(false)?;
        }
        Ok(())
    }

    /// Reads what [`Diff::write`] wrote against `reference`: `Some(step)` when a tier carried
    /// the difference, `None` on the escape (the caller reads the value by its rule and checks
    /// it with [`Diff::check_escaped`]). A difference another tier should have carried, or one
    /// that leads outside `first..=last`, is an error: only what re-encodes to the same bits
    /// is accepted.
    ///
    /// # Errors
    /// `ValueOutOfRange` as above; what the reader returns.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn read<'a, R: WireRead<'a>>(
        &self,
        r: &mut R,
        reference: u64,
    ) -> Result<Option<u64>, DecodeError> {
        let start = r.bits_read();
        if let Some(codes) = &self.codes
            && !R::BYTE_STREAM
        {
            // The selector and the difference from one look at the input: the selector's ones
            // are the word's trailing ones. Bits past the end read as 0, so a code that runs
            // past it shows as longer than what is left, and the bit-by-bit path reports it.
            let word = r.peek_bits(PEEK_BITS);
            let tier = (!word).trailing_zeros();
            let remaining = r.bits_remaining();
            if tier < FAST_TIERS as u32 {
                let length = Codes::byte(codes.lengths, tier);
                // A length of 0 (no such tier) wraps to the largest u64: never within reach.
                if length.wrapping_sub(1) < remaining {
                    r.skip_bits(length)?;
                    // The code's bits shifted to the top (dropping what follows it), then the
                    // difference down past the selector's `tier + 1` bits: 0 < length <= 56.
                    let top = 64 - length as u32;
                    let zz = (word << top) >> (top + tier + 1);
                    if zz < (1 << Codes::byte(codes.floors, tier)) >> 1 {
                        return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start));
                    }
                    return self.step_at(start, reference, zz);
                }
            }
            if tier as usize >= self.tiers.len() && self.tiers.len() as u64 <= remaining {
                r.skip_bits(self.tiers.len() as u64)?;
                return Ok(None);
            }
        }
        let Some(tier) = self.read_selector(r)? else {
            return Ok(None);
        };
        let bits = self.tiers.get(tier).copied().unwrap_or(0);
        let zz = r.read_bits(bits)?;
        // The encoder takes the first tier that holds the difference.
        let earlier = self.tiers.get(..tier).unwrap_or_default();
        if earlier.iter().any(|&b| fits(u128::from(zz), b)) {
            return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start));
        }
        self.step_at(start, reference, zz)
    }

    /// The step the difference `zigzag_decode(zz)` leads to from `reference`, checked as the
    /// encoder would have sent it.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn step_at(&self, start: u64, reference: u64, zz: u64) -> Result<Option<u64>, DecodeError> {
        let d = zigzag_decode(zz);
        match self.apply(reference, d) {
            // Around a range that wraps, only the shortest way is the encoder's.
            Some(step) if !self.wraps || self.difference(step, reference) == i128::from(d) => {
                Ok(Some(step))
            }
            _ => Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start)),
        }
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn read_selector<'a, R: WireRead<'a>>(&self, r: &mut R) -> Result<Option<usize>, DecodeError> {
        let count = self.tiers.len();
        if R::BYTE_STREAM {
            let start = r.bits_read();
            let index = r.read_bits(8)?;
            return match usize::try_from(index) {
                Ok(index) if index < count => Ok(Some(index)),
                Ok(index) if index == count => Ok(None),
                _ => Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start)),
            };
        }
        for index in 0..count {
            if !r.read_bool()? {
                return Ok(Some(index));
            }
        }
        Ok(None)
    }

    /// The step `d` leads to from `reference` (around the range when it wraps), when it is
    /// one of `first..=last`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn apply(&self, reference: u64, d: i64) -> Option<u64> {
        // In i128, so that neither the sum nor its checks branch on the sign of `d`.
        let first = i128::from(self.first);
        let sum = i128::from(reference) + i128::from(d);
        let step = match self.modulus() {
            Some(n) => first + (sum - first).rem_euclid(n),
            None => sum,
        };
        (first <= step && step <= i128::from(self.last)).then_some(step as u64)
    }

    /// [`Diff::write`] of the integer `now` (an enumerator: its index) against the baseline's
    /// `reference` ([`Diff::reference`]). A value outside the steps is the error its full write
    /// gives, before anything is written.
    ///
    /// # Errors
    /// `ValueOutOfRange` as above; what the writer returns.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn write_int<W: WireWrite>(
        &self,
        w: &mut W,
        now: i128,
        reference: i128,
    ) -> Result<bool, EncodeError> {
        match self.step(now) {
            Some(now) => self.write(w, now, self.reference(reference)),
            None => Err(w.error(EncodeErrorKind::ValueOutOfRange)),
        }
    }

    /// [`Diff::read`] of an integer against the baseline's `reference`: `Some(value)` when a
    /// tier carried it, `None` on the escape ([`Diff::check_escaped_int`] checks what follows).
    ///
    /// # Errors
    /// As [`Diff::read`]; `ValueOutOfRange` when `T` cannot hold the value.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn read_int<'a, R: WireRead<'a>, T: WireInt>(
        &self,
        r: &mut R,
        reference: i128,
    ) -> Result<Option<T>, DecodeError> {
        let start = r.bits_read();
        match self.read(r, self.reference(reference))? {
            Some(step) => T::from_i128(self.value(step))
                .map(Some)
                .ok_or(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start)),
            None => Ok(None),
        }
    }

    /// [`Diff::check_escaped`] of an integer read after the escape, against the baseline's
    /// `reference`.
    ///
    /// # Errors
    /// `ValueOutOfRange` when a tier holds the difference.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn check_escaped_int(
        &self,
        now: i128,
        reference: i128,
        start: u64,
    ) -> Result<(), DecodeError> {
        self.check_escaped(self.reference(now), self.reference(reference), start)
    }

    /// Checks a value read after the escape (its step `now`): the encoder escapes only what no
    /// tier holds. `start` is the bit where the selector began, for the error.
    ///
    /// # Errors
    /// `ValueOutOfRange` when a tier holds the difference.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn check_escaped(&self, now: u64, reference: u64, start: u64) -> Result<(), DecodeError> {
        match self.tier_of(self.difference(now, reference)) {
            None => Ok(()),
            Some(_) => Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start)),
        }
    }
}

/// The bits a reader can look at at once ([`WireRead::peek_bits`]).
const PEEK_BITS: u32 = 56;

/// The most tiers a bit-stream decoder reads with one look at the input.
const FAST_TIERS: usize = 8;

/// `zigzag(d)` over 128 bits: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn zigzag(d: i128) -> u128 {
    ((d << 1) ^ (d >> 127)) as u128
}

/// Whether `zz` has at most `bits` significant bits.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn fits(zz: u128, bits: u32) -> bool {
    bits < 128 && zz >> bits == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BitReader, BitWriter, ByteReader, ByteWriter};

    const TIERS: &[u32] = &[2, 5, 9];

    fn bit_roundtrip(diff: Diff<'_>, now: u64, reference: u64) -> (Vec<u8>, u64, Option<u64>) {
        let mut w = BitWriter::new();
        let carried = diff.write(&mut w, now, reference).unwrap();
        if !carried {
            w.write_bits(now, 64).unwrap();
        }
        let bits = w.bits_written();
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        let read = diff.read(&mut r, reference).unwrap();
        assert_eq!(read.is_some(), carried);
        (bytes, bits, read)
    }

    #[test]
    fn tiers_and_selectors_cost_what_wire_md_says() {
        let diff = Diff::new(TIERS, 0, 1 << 20, false);
        // Tier 1: "0" + 2 bits; tier 2: "10" + 5; tier 3: "110" + 9; escape: "111".
        for (now, bits) in [
            (101, 3),
            (99, 3),
            (102, 2 + 5),
            (120, 3 + 9),
            (1000, 3 + 64),
        ] {
            let (_, written, read) = bit_roundtrip(diff, now, 100);
            assert_eq!(written, bits, "{now}");
            if bits != 67 {
                assert_eq!(read, Some(now));
            }
        }
    }

    #[test]
    fn every_difference_roundtrips_in_both_streams() {
        let diff = Diff::new(TIERS, 3, 700, false);
        for reference in [3, 4, 350, 699, 700] {
            for now in 3..=700 {
                let d = diff.difference(now, reference);
                let mut w = ByteWriter::new();
                if diff.write(&mut w, now, reference).unwrap() {
                    let bytes = w.into_bytes();
                    assert_eq!(
                        diff.read(&mut ByteReader::new(&bytes), reference).unwrap(),
                        Some(now)
                    );
                    let (_, _, read) = bit_roundtrip(diff, now, reference);
                    assert_eq!(read, Some(now));
                } else {
                    assert_eq!(diff.tier_of(d), None);
                    assert!(diff.check_escaped(now, reference, 0).is_ok());
                }
            }
        }
    }

    #[test]
    fn wrapping_takes_the_shortest_way() {
        let angle = Diff::new(&[4], 0, 35_999, true);
        assert_eq!(angle.difference(0, 35_999), 1);
        assert_eq!(angle.difference(18_000, 0), 18_000);
        assert_eq!(angle.difference(18_001, 0), -17_999);
        let (_, _, read) = bit_roundtrip(angle, 2, 35_998);
        assert_eq!(read, Some(2));
        let (_, _, read) = bit_roundtrip(angle, 35_998, 3);
        assert_eq!(read, Some(35_998));
    }

    #[test]
    fn non_canonical_and_out_of_range_differences_are_refused() {
        let diff = Diff::new(&[2, 5], 0, 100, false);
        // Tier 2 carrying +1, which tier 1 holds.
        let mut w = BitWriter::new();
        w.write_bits(0b01, 2).unwrap(); // selector "10"
        w.write_bits(2, 5).unwrap(); // zigzag(+1)
        let bytes = w.into_bytes();
        assert_eq!(
            diff.read(&mut BitReader::new(&bytes), 50).unwrap_err().kind,
            DecodeErrorKind::ValueOutOfRange
        );
        // +1 from the last step.
        let mut w = BitWriter::new();
        w.write_bool(false).unwrap();
        w.write_bits(2, 2).unwrap();
        let bytes = w.into_bytes();
        assert!(diff.read(&mut BitReader::new(&bytes), 100).is_err());
        // An escaped value a tier holds.
        assert!(diff.check_escaped(51, 50, 0).is_err());
        // A selector byte past the escape.
        assert!(diff.read(&mut ByteReader::new(&[3, 0]), 50).is_err());
        // A tier's bytes holding more bits than the tier.
        assert!(diff.read(&mut ByteReader::new(&[0, 4]), 50).is_err());
    }

    #[test]
    fn one_look_reads_as_bit_by_bit_on_every_input() {
        for tiers in [&[2, 5, 9][..], &[1, 5], &[3], &[4, 2, 6]] {
            let fast = Diff::new(tiers, 3, 700, false);
            let slow = Diff {
                codes: None,
                ..fast
            };
            assert!(fast.codes.is_some());
            for input in 0..=u16::MAX {
                let bytes = input.to_le_bytes();
                for (len, skip, reference) in [(2, 0, 3), (2, 5, 350), (1, 1, 700), (2, 9, 20)] {
                    let read = |diff: Diff<'_>| {
                        let mut r = BitReader::new(&bytes[..len]);
                        r.skip_bits(skip).unwrap();
                        (diff.read(&mut r, reference), r.bits_read())
                    };
                    assert_eq!(
                        read(fast),
                        read(slow),
                        "{tiers:?} {input:#06x} {len} {skip}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_64_bit_code_is_the_128_bit_one() {
        for (last, wraps) in [
            (700, false),
            ((1 << 62) - 1, false),
            (u64::MAX, false),
            (35_999, true),
        ] {
            for tiers in [TIERS, &[8, 64]] {
                let diff = Diff::new(tiers, 3, last, wraps);
                let steps = [
                    0,
                    3,
                    4,
                    5,
                    350,
                    last / 2,
                    last / 2 + 1,
                    last - 1,
                    last,
                    u64::MAX,
                ];
                for now in steps {
                    for reference in steps {
                        let d = diff.difference(now, reference);
                        let (tier, zz) = diff.code(now, reference);
                        assert_eq!(tier, diff.tier_of(d), "{last} {now} {reference}");
                        if tier.is_some() {
                            assert_eq!(u128::from(zz), zigzag(d), "{last} {now} {reference}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn sixty_four_bit_steps() {
        let diff = Diff::new(&[8, 64], 0, u64::MAX, false);
        let (_, _, read) = bit_roundtrip(diff, u64::MAX, 0);
        assert_eq!(read, None); // zigzag(2^64 - 1) needs 65 bits
        let (_, _, read) = bit_roundtrip(diff, u64::MAX, 1 << 63);
        assert_eq!(read, Some(u64::MAX));
    }
}
