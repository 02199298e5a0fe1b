//! Decoding harness shared by `tests/fuzz_decode.rs` (bounded, seeded, in `cargo test`) and the
//! cargo-fuzz target `fuzz/fuzz_targets/decode_primitives.rs` (unbounded runs).
//!
//! [`decode_everything`] runs every primitive reader of both streams over a buffer, then the
//! composite struct-like decoder, and checks the invariants that must hold on *any* input: no
//! panic (by running at all), positions consistent, error offsets inside the input, and the
//! heap memory of a decoded value bounded by a small multiple of the input's length.
#![allow(dead_code)]

use std::collections::VecDeque;

use idlc_runtime::{
    BitReader, BitStream, ByteReader, ByteStream, DecodeError, EncodeError, FixedPoint, Style,
    VlqMode, WireRead, WireWrite, WithField, read_aligned_bytes, read_aligned_str, read_array,
    read_delta_sequence, read_elements, read_enum, read_fixed, read_huffman, read_index_gap,
    read_ranged, read_sequence, read_vlq_int, unframe, utf8, write_array, write_sequence,
};

/// The allocation bound asserted for the composite decoder: heap bytes of the decoded value
/// `<= HEAP_FACTOR * input length + HEAP_SLACK`. Derivation (BITSTREAM, the worse stream): an
/// `Item` (32 bytes in memory) needs at least 15 bits, so items cost at most 32 * 8 / 15 < 18
/// bytes per input byte; a tag (a 24-byte `String`) needs at least 5 bits: < 39 bytes per
/// input byte; string and byte contents are copied 1:1. The parts share the same input bits.
pub const HEAP_FACTOR: usize = 40;
/// See [`HEAP_FACTOR`]: room for the fixed-size parts and one reservation that fails midway.
pub const HEAP_SLACK: usize = 1024;

/// Quantizer of `Composite::pos`.
pub const POS: FixedPoint = match FixedPoint::new(-1000.0, 1000.0, 0.01) {
    Some(fp) => fp,
    None => panic!("bad fixed point"),
};

/// [`POS`].
pub fn pos_fp() -> FixedPoint {
    POS
}

/// A SEQUENCE element struct.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Item {
    /// enum of 3.
    pub kind: u8,
    /// INT[0,1000].
    pub count: u16,
    /// SEQUENCE<STRING<16>, 4>.
    pub tags: Vec<String>,
}

impl Item {
    fn min_bits(width: fn(u32) -> u64) -> u64 {
        width(2) + width(10) + width(3)
    }

    pub fn encode<W: WireWrite>(&self, w: &mut W) -> Result<(), EncodeError> {
        w.write_enum_index(self.kind.into(), 3).in_field("kind")?;
        w.write_uint_ranged(self.count.into(), 0, 1000)
            .in_field("count")?;
        write_sequence(w, &self.tags, Some(4), |w, t| w.write_str(t, Some(16))).in_field("tags")
    }

    pub fn decode<'a, R: WireRead<'a>>(r: &mut R) -> Result<Self, DecodeError> {
        Ok(Item {
            kind: r.read_enum_index(3).in_field("kind")? as u8,
            count: r.read_uint_ranged(0, 1000).in_field("count")? as u16,
            tags: read_sequence(r, Some(4), R::width_bits(5), |r| {
                r.read_str(Some(16)).map(str::to_owned)
            })
            .in_field("tags")?,
        })
    }

    fn heap_bytes(&self) -> usize {
        self.tags.capacity() * size_of::<String>()
            + self.tags.iter().map(String::capacity).sum::<usize>()
    }
}

/// A struct like generated code would handle, using every kind of field.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Composite {
    /// UINT16 with VLQ.
    pub id: u16,
    /// INT[-100,100].
    pub hp: i8,
    /// ARRAY<NUMERIC[-1000,1000], 3> with FIXED_POINT(0.01).
    pub pos: [f64; 3],
    /// FLOAT32.
    pub vel: f32,
    /// enum of 5.
    pub mood: u8,
    /// STRING<32>.
    pub name: String,
    /// OPTIONAL<BYTES>.
    pub blob: Option<Vec<u8>>,
    /// SEQUENCE<Item>.
    pub items: Vec<Item>,
    /// SEQUENCE<INT64, 64> with VLQ(5), as a VecDeque.
    pub history: VecDeque<i64>,
    /// An open extension (after a CHECK): UINT32 and STRING.
    pub ext: Option<(u32, String)>,
    /// After a FENCE: FLOAT64 DEFAULT 0.
    pub score: f64,
    /// After the FENCE: INT[0,3] DEFAULT 0.
    pub level: u8,
}

impl Composite {
    pub fn encode<W: WireWrite>(&self, w: &mut W) -> Result<(), EncodeError> {
        let fp = pos_fp();
        w.write_vlq(self.id.into(), 7).in_field("id")?;
        w.write_int_ranged(self.hp.into(), -100, 100)
            .in_field("hp")?;
        write_array(w, &self.pos, |w, &p| w.write_quantized(&fp, p)).in_field("pos")?;
        w.write_f32(self.vel).in_field("vel")?;
        w.write_enum_index(self.mood.into(), 5).in_field("mood")?;
        w.write_str(&self.name, Some(32)).in_field("name")?;
        w.write_presence(self.blob.is_some()).in_field("blob")?;
        if let Some(blob) = &self.blob {
            w.write_bytes(blob, None).in_field("blob")?;
        }
        write_sequence(w, &self.items, None, |w, item| item.encode(w)).in_field("items")?;
        write_sequence(w, &self.history, Some(64), |w, &h| w.write_vlq_signed(h, 5))
            .in_field("history")?;
        w.write_check()?;
        match &self.ext {
            Some((a, s)) => w.write_extension(|w| {
                w.write_bits((*a).into(), 32)?;
                w.write_str(s, None)
            })?,
            None => w.write_bool(false)?,
        }
        // FENCE: segment 2.
        w.write_bool(true)?;
        w.write_f64(self.score).in_field("score")?;
        w.write_uint_ranged(self.level.into(), 0, 3)
            .in_field("level")
    }

    pub fn decode<'a, R: WireRead<'a>>(r: &mut R) -> Result<Self, DecodeError> {
        let fp = pos_fp();
        let mut c = Composite {
            id: r.read_vlq_width(7, 16).in_field("id")? as u16,
            hp: r.read_int_ranged(-100, 100).in_field("hp")? as i8,
            pos: read_array(r, R::width_bits(fp.bits()), |r| {
                r.read_quantized(&fp).map(|q| fp.dequantize(q))
            })
            .in_field("pos")?,
            vel: r.read_f32().in_field("vel")?,
            mood: r.read_enum_index(5).in_field("mood")? as u8,
            name: r.read_str(Some(32)).in_field("name")?.to_owned(),
            blob: if r.read_presence().in_field("blob")? {
                Some(r.read_bytes(None).in_field("blob")?.to_vec())
            } else {
                None
            },
            items: read_sequence(r, None, Item::min_bits(R::width_bits), Item::decode)
                .in_field("items")?,
            history: read_sequence(r, Some(64), R::width_bits(6), |r| r.read_vlq_signed(5))
                .in_field("history")?,
            ext: None,
            score: 0.0,
            level: 0,
        };
        r.read_check()?;
        c.ext = r.read_extension(|r| {
            let a = r.read_bits(32)? as u32;
            let s = r.read_str(None)?.to_owned();
            Ok((a, s))
        })?;
        if r.read_fence_present()? {
            c.score = r.read_f64().in_field("score")?;
            c.level = r.read_uint_ranged(0, 3).in_field("level")? as u8;
        }
        Ok(c)
    }

    /// Heap bytes owned by the value (capacities, so over-reservation counts).
    pub fn heap_bytes(&self) -> usize {
        self.name.capacity()
            + self.blob.as_ref().map_or(0, Vec::capacity)
            + self.items.capacity() * size_of::<Item>()
            + self.items.iter().map(Item::heap_bytes).sum::<usize>()
            + self.history.capacity() * size_of::<i64>()
            + self.ext.as_ref().map_or(0, |(_, s)| s.capacity())
    }
}

/// Encodes with writer `W`.
pub fn encode_with<W: WireWrite>(c: &Composite) -> Result<Vec<u8>, EncodeError> {
    let mut w = W::default();
    c.encode(&mut w)?;
    Ok(w.into_bytes())
}

/// What one call of [`decode_everything`] did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Outcome {
    /// Successful primitive reads.
    pub reads: u64,
    /// Composite decodes that succeeded (of 2: bit and byte stream).
    pub composites: u32,
    /// Largest heap size of a decoded composite.
    pub heap: usize,
}

const PRIMITIVES: u32 = 46;
/// How often each primitive is applied in a row (stopping at the first error).
const REPEAT: u32 = 2;

fn check_error(e: &DecodeError, total_bits: u64) {
    assert!(
        e.bit_offset <= total_bits,
        "error offset {e:?} beyond {total_bits} bits"
    );
}

/// Applies primitive number `which` to `r` once.
fn primitive<'a, R: WireRead<'a>>(r: &mut R, which: u32) -> Result<u64, DecodeError> {
    let fp = POS;
    Ok(match which {
        0 => r.read_bits(1)?,
        1 => r.read_bits(7)?,
        2 => r.read_bits(33)?,
        3 => r.read_bits(64)?,
        4 => r.read_bool()?.into(),
        5 => r.read_vlq(7)?,
        6 => r.read_vlq(1)?,
        7 => r.read_vlq(32)?,
        8 => r.read_vlq_width(5, 16)?,
        9 => r.read_vlq_signed(7)? as u64,
        10 => r.read_vlq_signed_width(3, 8)? as u64,
        11 => r.read_vlq_ranged(-5, 1000, 4)? as u64,
        12 => r.read_uint_ranged(3, 1000)?,
        13 => r.read_int_ranged(i64::MIN, i64::MAX)? as u64,
        14 => r.read_int_ranged(-7, -7)? as u64,
        15 => r.read_f32()?.to_bits().into(),
        16 => r.read_f64()?.to_bits(),
        17 => r.read_fixed_point(-10.0, 10.0, 0.01)?.to_bits(),
        18 => r.read_quantized(&fp)?,
        19 => r.read_enum_index(5)?,
        20 => r.read_presence()?.into(),
        21 => r.read_fence_present()?.into(),
        22 => r.align().map(|()| 0)?,
        23 => r.read_bytes(None)?.len() as u64,
        24 => r.read_bytes(Some(16))?.len() as u64,
        25 => r.read_str(None)?.len() as u64,
        26 => r.read_str(Some(5))?.len() as u64,
        27 => r.read_count(None, 1)? as u64,
        28 => r.read_check().map(|()| 0)?,
        29 => r.skip_bits(R::width_bits(8) + 8).map(|()| 0)?,
        30 => r.read_extension(|r| r.read_vlq(7))?.unwrap_or(0),
        31 => r.finish().map(|()| 0)?,
        32 => r.expect_end().map(|()| 0)?,
        33 => read_index_gap(r)?,
        34 => {
            const BASE: [u64; 20] = [7; 20];
            let got: Option<Vec<u64>> = read_delta_sequence(
                r,
                &BASE.to_vec(),
                |r| r.read_length(Some(300)),
                3,
                |r, _| r.read_bits(3),
            )?;
            got.map_or(0, |v| v.len() as u64)
        }
        35 => read_sequence::<_, Vec<u64>, _>(r, None, 8, |r| r.read_vlq(7))?.len() as u64,
        36 => read_array::<_, u64, _, 3>(r, R::width_bits(16), |r| r.read_bits(16))?[2],
        37 => {
            read_sequence::<_, VecDeque<u64>, _>(r, Some(40), 0, |r| r.read_bits(0))?.len() as u64
        }
        38 => read_ranged::<_, i16>(r, -1000, 30000, 15)? as u64,
        39 => read_fixed::<_, i32>(r, -5000, 5000, 16, true)? as u64,
        40 => read_vlq_int::<_, i64>(r, VlqMode::ZigZag, i64::MIN.into(), i64::MAX.into(), 5, 13)?
            as u64,
        41 => read_vlq_int::<_, u8>(r, VlqMode::Offset, -3, 200, 3, 3)?.into(),
        42 => read_enum(r, 5, 3)?,
        43 => read_huffman(r, &[(0b0, 1), (0b01, 2), (0b011, 3)])?,
        44 => {
            let count = r.read_length(None)?;
            read_elements::<_, Vec<u32>, _>(r, count, None, R::width_bits(17), |r| {
                read_ranged(r, 0, 100_000, 17)
            })?
            .len() as u64
        }
        _ => {
            let len = r.read_length(Some(64))?;
            if len % 2 == 0 {
                read_aligned_str(r, len)?.len() as u64
            } else {
                let bytes = read_aligned_bytes(r, len)?;
                utf8(r, bytes)?.len() as u64
            }
        }
    })
}

fn run_primitives<'a, R: WireRead<'a> + Copy>(fresh: R, total_bits: u64) -> u64 {
    let mut reads = 0;
    for which in 0..PRIMITIVES {
        let mut r = fresh;
        for _ in 0..REPEAT {
            let before = r.bits_read();
            match primitive(&mut r, which) {
                Ok(_) => {
                    reads += 1;
                    assert!(r.bits_read() >= before);
                    assert_eq!(r.bits_read() + r.bits_remaining(), total_bits);
                }
                Err(e) => {
                    check_error(&e, total_bits);
                    break;
                }
            }
        }
    }
    reads
}

fn run_composite<S: Style>(data: &[u8], out: &mut Outcome) {
    let mut r = S::Reader::from_bytes(data);
    let total = r.bits_remaining();
    match Composite::decode(&mut r) {
        Ok(c) => {
            out.composites += 1;
            let heap = c.heap_bytes();
            assert!(
                heap <= HEAP_FACTOR * data.len() + HEAP_SLACK,
                "decoding {} bytes kept {heap} heap bytes",
                data.len()
            );
            out.heap = out.heap.max(heap);
            // Whatever decodes re-encodes, and decoding the re-encoding is a fixed point.
            let bytes = encode_with::<S::Writer>(&c).unwrap_or_else(|e| panic!("re-encode: {e}"));
            let again = Composite::decode(&mut S::Reader::from_bytes(&bytes))
                .unwrap_or_else(|e| panic!("decode of re-encoding: {e}"));
            assert_eq!(
                encode_with::<S::Writer>(&again).ok().as_deref(),
                Some(&bytes[..])
            );
        }
        Err(e) => check_error(&e, total),
    }
}

/// Runs every primitive of both streams over `data` (each applied up to 2 times in a row from
/// the start), the composite decoder of both streams, and framing. Panics if an invariant fails.
pub fn decode_everything(data: &[u8]) -> Outcome {
    let total_bits = data.len() as u64 * 8;
    let mut out = Outcome {
        reads: run_primitives(BitReader::new(data), total_bits)
            + run_primitives(ByteReader::new(data), total_bits),
        ..Outcome::default()
    };
    run_composite::<BitStream>(data, &mut out);
    run_composite::<ByteStream>(data, &mut out);
    if let Ok(payload) = unframe(0x5eed, data) {
        assert_eq!(payload.len() + 4, data.len());
    }
    out
}
