//! A hand-written encoder and decoder of Character in MYENCODING1, the wire layout the
//! generated code writes (docs/WIRE_FORMAT.md), bit for bit:
//!
//! | bits | field |
//! |---|---|
//! | 8, 16 or 24 | `character_id`, VLQ(7) |
//! | 57 | `x`, `y` (21-bit steps of [-10000, 10000] at 0.01), `z` (15-bit steps of [-100, 100]) |
//! | 51 | `vx`, `vy`, `vz` (11-bit steps of [-10, 10]), `angle` (16-bit steps of [0, 360]), `anim` (2 bits) |
//! | 8 | `animation_frame`, VLQ(7) (one group: 0..=119) |
//! | 8+ | inventory count, VLQ(7) |
//! | 107 per Item | `item_id` (32), `kind` (3), `count - 1` (7), `durability` (raw f64), an extension bit (0) |
//!
//! A step is `round((v - min) / r)` (half away from zero) capped at the top step, and stands for
//! `min + q * r` capped at `max`. The decoder rejects what the generated one rejects: steps above
//! the top, unknown enumerators, out-of-range integers and reals, over-long VLQs, counts whose
//! items cannot fit in the bits left, truncated input; it skips an Item extension a newer writer
//! set.

use idlc_tests::character_client::{Animation, Character, Item, ItemKind};

use super::bits::{BitPacker, BitUnpacker, ReadError};

/// A value the encoder refuses (out of its range, NaN, or an enumerator beyond the enum).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfRange;

/// `FIXED_POINT(r)` on a closed `NUMERIC[min, max]`: steps `0..=steps`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantizer {
    /// The lower end.
    pub min: f64,
    /// The upper end.
    pub max: f64,
    /// The resolution.
    pub resolution: f64,
    /// The top step, `round((max - min) / resolution)`.
    pub steps: u64,
    /// The bits of a step.
    pub bits: u32,
}

/// `x`, `y`: [-10000, 10000] at 0.01.
pub const POSITION: Quantizer = Quantizer {
    min: -10000.0,
    max: 10000.0,
    resolution: 0.01,
    steps: 2_000_000,
    bits: 21,
};
/// `z`: [-100, 100] at 0.01.
pub const HEIGHT: Quantizer = Quantizer {
    min: -100.0,
    max: 100.0,
    resolution: 0.01,
    steps: 20_000,
    bits: 15,
};
/// `vx`, `vy`, `vz`: [-10, 10] at 0.01.
pub const VELOCITY: Quantizer = Quantizer {
    min: -10.0,
    max: 10.0,
    resolution: 0.01,
    steps: 2_000,
    bits: 11,
};
/// `angle`: [0, 360] at 0.01.
pub const ANGLE: Quantizer = Quantizer {
    min: 0.0,
    max: 360.0,
    resolution: 0.01,
    steps: 36_000,
    bits: 16,
};

/// The least bits an Item takes, for the count check (as the generated decoder counts them).
const ITEM_MIN_BITS: usize = 106;

impl Quantizer {
    /// The step of `value`; NaN and values outside the range are refused.
    #[inline]
    pub fn quantize(&self, value: f64) -> Result<u64, OutOfRange> {
        if !(value >= self.min && value <= self.max) {
            return Err(OutOfRange);
        }
        let x = (value - self.min) / self.resolution;
        // 0 <= x <= steps + 0.5 < 2^53: truncation (exact in i64), then half away from zero.
        let t = x as i64;
        let q = if x - t as f64 >= 0.5 { t + 1 } else { t };
        Ok((q as u64).min(self.steps))
    }

    /// The value of step `q`; a step above the top is refused.
    #[inline]
    pub fn dequantize(&self, q: u64) -> Result<f64, ReadError> {
        if q > self.steps {
            return Err(ReadError::OutOfRange);
        }
        // q <= steps < 2^53: exact through i64 (a cheaper conversion than from u64).
        let value = self.min + q as i64 as f64 * self.resolution;
        Ok(if value > self.max { self.max } else { value })
    }
}

/// Appends `c` to `w`.
#[inline]
pub fn encode(c: &Character, w: &mut BitPacker) -> Result<(), OutOfRange> {
    w.put_vlq7(u64::from(c.character_id));
    let place =
        POSITION.quantize(c.x)? | POSITION.quantize(c.y)? << 21 | HEIGHT.quantize(c.z)? << 42;
    w.put(place, 57);
    let motion = VELOCITY.quantize(c.vx)?
        | VELOCITY.quantize(c.vy)? << 11
        | VELOCITY.quantize(c.vz)? << 22
        | ANGLE.quantize(f64::from(c.angle))? << 33
        | c.anim.index() << 49;
    w.put(motion, 51);
    if c.animation_frame > 119 {
        return Err(OutOfRange);
    }
    w.put(u64::from(c.animation_frame), 8);
    w.put_vlq7(c.inventory.len() as u64);
    for item in &c.inventory {
        if !(1..=99).contains(&item.count) || !(0.0..=1.0).contains(&item.durability) {
            return Err(OutOfRange);
        }
        let head =
            u64::from(item.item_id) | item.kind.index() << 32 | u64::from(item.count - 1) << 35;
        w.put(head, 42);
        w.put(item.durability.to_bits(), 64);
        w.put(0, 1);
    }
    Ok(())
}

/// Reads one Character from the start of `r`.
#[inline]
pub fn decode(r: &mut BitUnpacker<'_>) -> Result<Character, ReadError> {
    let character_id = r.get_vlq7(3, 21)?;
    let character_id = u16::try_from(character_id).map_err(|_| ReadError::OutOfRange)?;
    let place = r.get(57)?;
    let x = POSITION.dequantize(place & 0x1f_ffff)?;
    let y = POSITION.dequantize(place >> 21 & 0x1f_ffff)?;
    let z = HEIGHT.dequantize(place >> 42)?;
    let motion = r.get(51)?;
    let vx = VELOCITY.dequantize(motion & 0x7ff)?;
    let vy = VELOCITY.dequantize(motion >> 11 & 0x7ff)?;
    let vz = VELOCITY.dequantize(motion >> 22 & 0x7ff)?;
    let angle = ANGLE.dequantize(motion >> 33 & 0xffff)? as f32;
    let anim = Animation::from_index(motion >> 49).ok_or(ReadError::BadEnumerator)?;
    let frame = r.get_vlq7(1, 7)?;
    if frame > 119 {
        return Err(ReadError::OutOfRange);
    }
    let count = r.get_vlq7(10, 64)?;
    let count = usize::try_from(count)
        .ok()
        .filter(|&n| {
            n.checked_mul(ITEM_MIN_BITS)
                .is_some_and(|b| b <= r.remaining())
        })
        .ok_or(ReadError::LengthOverBound)?;
    let mut inventory = Vec::with_capacity(count);
    for _ in 0..count {
        inventory.push(decode_item(r)?);
    }
    Ok(Character {
        character_id,
        x,
        y,
        z,
        vx,
        vy,
        vz,
        angle,
        anim,
        animation_frame: frame as u8,
        inventory,
    })
}

/// Reads one Item, then skips its extension if a newer writer set one.
#[inline]
fn decode_item(r: &mut BitUnpacker<'_>) -> Result<Item, ReadError> {
    let head = r.get(42)?;
    let kind = ItemKind::from_index(head >> 32 & 7).ok_or(ReadError::BadEnumerator)?;
    let count = (head >> 35) + 1;
    if count > 99 {
        return Err(ReadError::OutOfRange);
    }
    let durability = f64::from_bits(r.get64()?);
    if !(0.0..=1.0).contains(&durability) {
        return Err(ReadError::OutOfRange);
    }
    // The end of the message reads as no extension.
    if r.remaining() > 0 && r.get(1)? == 1 {
        let len = r.get_vlq7(10, 64)?;
        r.skip(usize::try_from(len).map_err(|_| ReadError::End)?)?;
    }
    Ok(Item {
        item_id: head as u32,
        kind,
        count: count as u8,
        durability,
    })
}
