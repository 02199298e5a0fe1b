//! The hand-written bitpacker against the generated code: the same bytes for every value, the
//! same decoded values, and the same verdict (accept with the same value, or reject) on
//! thousands of damaged messages and on every out-of-range step.

use idlc_runtime::FixedPoint;
use idlc_tests::character_client::{Character, Item, ItemKind, MYENCODING1};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::formats::{Generated, HandWritten};
use super::handwritten::{ANGLE, HEIGHT, POSITION, Quantizer, VELOCITY};
use crate::BenchError;
use crate::format::{Encoded, Format, encode_all, verify};

/// What the check saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Equivalence {
    /// Damaged messages both decoders judged.
    pub damaged: usize,
    /// How many of them both rejected.
    pub rejected: usize,
}

/// Runs every check on `values`; an error names the first difference.
pub fn check(values: &[Character]) -> Result<Equivalence, BenchError> {
    for q in [POSITION, HEIGHT, VELOCITY, ANGLE] {
        check_quantizer(&q)?;
    }
    edges()?;
    let generated = encode_all::<Generated>(values)?;
    let hand = encode_all::<HandWritten>(values)?;
    if let Some(i) = (0..generated.len()).find(|&i| message(&generated, i) != message(&hand, i)) {
        return Err(BenchError::new(format!(
            "value {i}: the hand-written bytes differ from the generated ones"
        )));
    }
    let quantized = values
        .iter()
        .map(Character::quantized_with::<MYENCODING1>)
        .collect::<Result<Vec<_>, _>>()
        .map_err(BenchError::with("quantized_with"))?;
    verify::<Generated>(&generated, &quantized)?;
    verify::<HandWritten>(&generated, &quantized)?;
    out_of_range_steps(values)?;
    extension_skipped()?;
    damaged(&generated)
}

/// Ids of one, two and three VLQ groups, every range's ends, a long inventory: the same bytes.
fn edges() -> Result<(), BenchError> {
    let item = Item {
        item_id: u32::MAX,
        kind: ItemKind::Key,
        count: 99,
        durability: 1.0,
    };
    let values: Vec<Character> = [0, 127, 128, 16_383, 16_384, 65_535]
        .into_iter()
        .map(|id| Character {
            character_id: id,
            x: if id % 2 == 0 { -10000.0 } else { 10000.0 },
            y: 9999.995,
            z: 100.0,
            vx: -10.0,
            vy: 10.0,
            vz: 0.005,
            angle: 360.0,
            animation_frame: 119,
            inventory: vec![item.clone(); usize::from(id % 200)],
            ..Default::default()
        })
        .collect();
    let generated = encode_all::<Generated>(&values)?;
    if generated != encode_all::<HandWritten>(&values)? {
        return Err(BenchError::new("the edge values encode differently"));
    }
    for message in generated.messages() {
        if same_verdict(message)? {
            return Err(BenchError::new("an edge value was rejected"));
        }
    }
    Ok(())
}

fn message(encoded: &Encoded, i: usize) -> Option<&[u8]> {
    encoded.messages().nth(i)
}

/// The hand-written constants are the runtime's.
fn check_quantizer(q: &Quantizer) -> Result<(), BenchError> {
    let fp = FixedPoint::new(q.min, q.max, q.resolution)
        .ok_or_else(|| BenchError::new("a quantizer the runtime refuses"))?;
    if (fp.steps(), fp.bits()) != (q.steps, q.bits) {
        return Err(BenchError::new(format!("{q:?}: the runtime says {fp:?}")));
    }
    Ok(())
}

/// Both decoders on `bytes`: the same verdict and, when they accept, the same value.
fn same_verdict(bytes: &[u8]) -> Result<bool, BenchError> {
    let generated = Generated::decode(&mut (), bytes).ok();
    let hand = HandWritten::decode(&mut (), bytes).ok();
    if generated != hand {
        return Err(BenchError::new(format!(
            "the decoders disagree on {bytes:02x?}: generated {generated:?}, hand-written {hand:?}"
        )));
    }
    Ok(generated.is_none())
}

/// Sets the `len` bits at `pos` of an LSB-first stream to `value`, growing it as needed.
fn set_bits(bytes: &mut Vec<u8>, pos: usize, len: usize, value: u64) {
    for k in 0..len {
        let bit = pos + k;
        if bytes.len() <= bit / 8 {
            bytes.resize(bit / 8 + 1, 0);
        }
        let mask = 1u8 << (bit % 8);
        if value >> k & 1 == 1 {
            bytes[bit / 8] |= mask;
        } else {
            bytes[bit / 8] &= !mask;
        }
    }
}

/// Every packed field set to a step (or index, or frame) beyond its range: both reject.
fn out_of_range_steps(values: &[Character]) -> Result<(), BenchError> {
    let Some(base) = values.iter().find(|c| c.character_id < 128) else {
        return Err(BenchError::new("no Character with a one-byte id"));
    };
    let mut w = idlc_runtime::BitWriter::new();
    let bytes = Generated::encode(&mut w, base)?.to_vec();
    // (bit offset, width, a value beyond the range): x, y, z, vx, vy, vz, angle, anim, frame.
    let fields: [(usize, usize, u64); 9] = [
        (8, 21, POSITION.steps + 1),
        (29, 21, (1 << 21) - 1),
        (50, 15, HEIGHT.steps + 1),
        (65, 11, VELOCITY.steps + 1),
        (76, 11, (1 << 11) - 1),
        (87, 11, VELOCITY.steps + 1),
        (98, 16, ANGLE.steps + 1),
        (114, 2, 3),
        (116, 8, 120),
    ];
    for (pos, len, value) in fields {
        let mut damaged = bytes.clone();
        set_bits(&mut damaged, pos, len, value);
        if !same_verdict(&damaged)? {
            return Err(BenchError::new(format!(
                "{value} in the {len} bits at {pos} was accepted"
            )));
        }
    }
    Ok(())
}

/// An Item extension a newer writer set (present bit, VLQ length, 5 bits): both skip it.
fn extension_skipped() -> Result<(), BenchError> {
    let c = Character {
        character_id: 5,
        inventory: vec![Item {
            item_id: 77,
            kind: ItemKind::Key,
            count: 3,
            durability: 0.5,
        }],
        ..Default::default()
    };
    let mut bytes = c.to_bytes().map_err(BenchError::with("to_bytes"))?;
    // id 8 + 57 + 51 + frame 8 + count 8 + item 106 bits: the extension bit is bit 238.
    set_bits(&mut bytes, 238, 1, 1);
    set_bits(&mut bytes, 239, 8, 5);
    set_bits(&mut bytes, 247, 5, 0b10101);
    if same_verdict(&bytes)? {
        return Err(BenchError::new("an Item extension was rejected"));
    }
    Ok(())
}

/// Damaged copies of the first 2,000 messages (bits flipped, a byte replaced, truncated,
/// bytes appended): both decoders give the same verdict.
fn damaged(encoded: &Encoded) -> Result<Equivalence, BenchError> {
    let mut rng = ChaCha8Rng::seed_from_u64(0xbad);
    let mut seen = Equivalence {
        damaged: 0,
        rejected: 0,
    };
    for message in encoded.messages().take(2_000) {
        for kind in 0..6 {
            let mut bytes = message.to_vec();
            match kind {
                0..=2 => {
                    for _ in 0..=kind {
                        let bit = rng.random_range(0..bytes.len() * 8);
                        bytes[bit / 8] ^= 1 << (bit % 8);
                    }
                }
                3 => {
                    let at = rng.random_range(0..bytes.len());
                    bytes[at] = rng.random();
                }
                4 => bytes.truncate(rng.random_range(0..bytes.len())),
                _ => bytes.extend((0..rng.random_range(1..8)).map(|_| rng.random::<u8>())),
            }
            seen.damaged += 1;
            if same_verdict(&bytes)? {
                seen.rejected += 1;
            }
        }
    }
    Ok(seen)
}
