//! Seeded random values, encodings and mutations for the bounded fuzz-style tests.

use rand::Rng;
use std::collections::VecDeque;

use super::harness::{Composite, Item, pos_fp};
use super::ops::Op;

fn ascii(rng: &mut impl Rng, max_len: usize) -> String {
    let len = rng.random_range(0..=max_len);
    (0..len)
        .map(|_| {
            if rng.random_bool(0.1) {
                'é'
            } else {
                char::from(rng.random_range(b'a'..=b'z'))
            }
        })
        .collect::<String>()
        .chars()
        .scan(0, |bytes, c| {
            *bytes += c.len_utf8();
            (*bytes <= max_len).then_some(c)
        })
        .collect()
}

/// A random valid `Composite` (positions already on the fixed-point grid).
pub fn composite(rng: &mut impl Rng) -> Composite {
    let fp = pos_fp();
    let pos = [0; 3].map(|_| {
        let q = rng.random_range(0..=fp.steps());
        fp.dequantize(q).clamp(fp.min(), fp.max())
    });
    Composite {
        id: rng.random(),
        hp: rng.random_range(-100..=100),
        pos,
        vel: f32::from_bits(rng.random()),
        mood: rng.random_range(0..5),
        name: ascii(rng, 32),
        blob: rng
            .random_bool(0.5)
            .then(|| (0..rng.random_range(0..40)).map(|_| rng.random()).collect()),
        items: (0..rng.random_range(0..5))
            .map(|_| Item {
                kind: rng.random_range(0..3),
                count: rng.random_range(0..=1000),
                tags: (0..rng.random_range(0..=4))
                    .map(|_| ascii(rng, 16))
                    .collect(),
            })
            .collect(),
        history: (0..rng.random_range(0..10))
            .map(|_| rng.random::<i64>() >> rng.random_range(0..64))
            .collect::<VecDeque<_>>(),
        ext: rng.random_bool(0.5).then(|| (rng.random(), ascii(rng, 8))),
        score: f64::from_bits(rng.random()),
        level: rng.random_range(0..=3),
    }
}

fn edge_u64(rng: &mut impl Rng) -> u64 {
    match rng.random_range(0..6) {
        0 => 0,
        1 => u64::MAX,
        2 => rng.random_range(0..300),
        3 => 1 << rng.random_range(0..64),
        _ => rng.random::<u64>() >> rng.random_range(0..64),
    }
}

/// A random valid primitive write.
pub fn op(rng: &mut impl Rng) -> Op {
    match rng.random_range(0..18) {
        0 => {
            let n = rng.random_range(0..=64);
            Op::Bits(
                edge_u64(rng) & if n == 64 { u64::MAX } else { (1 << n) - 1 },
                n,
            )
        }
        1 => Op::Bool(rng.random()),
        2 => {
            let (a, b) = (edge_u64(rng), edge_u64(rng));
            let (lo, hi) = (a.min(b), a.max(b));
            let v = if rng.random() { lo } else { hi };
            Op::UintRanged(v, lo, hi)
        }
        3 => {
            let (a, b) = (edge_u64(rng) as i64, edge_u64(rng) as i64);
            let (lo, hi) = (a.min(b), a.max(b));
            Op::IntRanged(if rng.random() { lo } else { hi }, lo, hi)
        }
        4 => Op::Vlq(edge_u64(rng), rng.random_range(1..=32)),
        5 => Op::VlqSigned(edge_u64(rng) as i64, rng.random_range(1..=32)),
        6 => {
            let t = rng.random_range(1..=64);
            let v = edge_u64(rng) & if t == 64 { u64::MAX } else { (1 << t) - 1 };
            Op::VlqWidth(v, rng.random_range(1..=32), t)
        }
        7 => Op::VlqRanged(rng.random_range(-10..=10), -10, 10, rng.random_range(1..=8)),
        8 => Op::F32(rng.random()),
        9 => Op::F64(rng.random()),
        10 => {
            let min = rng.random_range(-1e4..0.0);
            let max = rng.random_range(0.0..1e4);
            let res = 10f64.powi(rng.random_range(-3..=1));
            Op::Fixed(rng.random_range(min..=max), min, max, res)
        }
        11 => {
            let c = rng.random_range(1..300);
            Op::Enum(rng.random_range(0..c), c)
        }
        12 => Op::Presence(rng.random()),
        13 => Op::Align,
        14 => {
            let len = rng.random_range(0..24);
            Op::Bytes(
                (0..len).map(|_| rng.random()).collect(),
                rng.random_bool(0.5).then_some(64),
            )
        }
        15 => Op::Str(ascii(rng, 20), rng.random_bool(0.5).then_some(20)),
        16 => Op::Check,
        _ => Op::Extension(rng.random_bool(0.7).then(|| {
            let n = rng.random_range(0..=64);
            (
                edge_u64(rng) & if n == 64 { u64::MAX } else { (1 << n) - 1 },
                n,
            )
        })),
    }
}

/// Fills `buf` with random bytes of a random flavour.
pub fn random_buffer(rng: &mut impl Rng, buf: &mut Vec<u8>) {
    buf.clear();
    let len = match rng.random_range(0..8) {
        0 => rng.random_range(0..4),
        1..=5 => rng.random_range(0..48),
        _ => rng.random_range(0..300),
    };
    let flavour = rng.random_range(0..5);
    buf.extend((0..len).map(|_| match flavour {
        0 => 0xff,
        1 => 0,
        2 => [0x00, 0xff, 0x80, 0x7f, 0x01][rng.random_range(0..5)],
        _ => rng.random(),
    }));
}

/// Replaces `buf` by a copy of `base` with 1 to 4 random mutations.
pub fn mutate(rng: &mut impl Rng, base: &[u8], other: &[u8], buf: &mut Vec<u8>) {
    buf.clear();
    buf.extend_from_slice(base);
    for _ in 0..rng.random_range(1..=4) {
        let len = buf.len();
        match rng.random_range(0..8) {
            0 | 1 if len > 0 => {
                let i = rng.random_range(0..len);
                buf[i] ^= 1 << rng.random_range(0..8);
            }
            2 if len > 0 => {
                let i = rng.random_range(0..len);
                buf[i] = [0x00, 0xff, 0x80, 0x7f, rng.random()][rng.random_range(0..5)];
            }
            3 if len > 0 => buf.truncate(rng.random_range(0..len)),
            4 => {
                let i = rng.random_range(0..=len);
                let n = rng.random_range(1..8);
                for _ in 0..n {
                    buf.insert(i, rng.random());
                }
            }
            5 if len > 1 => {
                let i = rng.random_range(0..len);
                let n = rng.random_range(1..=(len - i).min(16));
                buf.drain(i..i + n);
            }
            6 if !other.is_empty() => {
                // Splice: keep a prefix, append a suffix of another encoding.
                let cut = rng.random_range(0..=len);
                buf.truncate(cut);
                let from = rng.random_range(0..other.len());
                buf.extend_from_slice(&other[from..]);
            }
            _ if len > 0 => {
                let i = rng.random_range(0..len);
                buf[i] = buf[i].wrapping_add(rng.random_range(1..4));
            }
            _ => buf.push(rng.random()),
        }
    }
}
