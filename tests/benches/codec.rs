//! Generated encoders and decoders, packed runs of fixed-width fields against field-by-field
//! (the same bytes): `cargo bench -p idlc-tests --bench codec`.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use idlc_runtime::{BitReader, BitWriter};
use idlc_tests::{character_client as packed, character_unmerged as unpacked};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const COUNT: usize = 10_000;

macro_rules! characters {
    ($module:ident, $rng:expr) => {{
        let rng: &mut ChaCha8Rng = $rng;
        (0..COUNT)
            .map(|_| $module::Character {
                character_id: rng.random_range(0..2000),
                x: rng.random_range(-10000.0..10000.0),
                y: rng.random_range(-10000.0..10000.0),
                z: rng.random_range(-100.0..100.0),
                vx: rng.random_range(-10.0..10.0),
                vy: rng.random_range(-10.0..10.0),
                vz: rng.random_range(-10.0..10.0),
                angle: rng.random_range(0.0..360.0),
                anim: $module::Animation::from_index(rng.random_range(0..3)).unwrap_or_default(),
                animation_frame: rng.random_range(0..120),
                inventory: Vec::new(),
            })
            .collect::<Vec<_>>()
    }};
}

fn bench(c: &mut Criterion) {
    let packed_values = characters!(packed, &mut ChaCha8Rng::seed_from_u64(7));
    let unpacked_values = characters!(unpacked, &mut ChaCha8Rng::seed_from_u64(7));
    let mut group = c.benchmark_group("Character MYENCODING1 x10000");
    group.bench_function("encode packed", |b| {
        let mut w = BitWriter::with_capacity(COUNT * 20);
        b.iter(|| {
            w.clear();
            for v in &packed_values {
                v.encode(&mut w).expect("valid");
            }
            w.bits_written()
        })
    });
    group.bench_function("encode field by field", |b| {
        let mut w = BitWriter::with_capacity(COUNT * 20);
        b.iter(|| {
            w.clear();
            for v in &unpacked_values {
                v.encode(&mut w).expect("valid");
            }
            w.bits_written()
        })
    });
    let mut w = BitWriter::new();
    for v in &packed_values {
        v.encode(&mut w).expect("valid");
    }
    let bytes = w.into_bytes();
    let mut check = BitWriter::new();
    for v in &unpacked_values {
        v.encode(&mut check).expect("valid");
    }
    assert_eq!(bytes, check.into_bytes(), "packing never changes the bytes");
    group.bench_function("decode packed", |b| {
        b.iter_batched(
            || BitReader::new(&bytes),
            |mut r| {
                for _ in 0..COUNT {
                    packed::Character::decode(&mut r).expect("valid");
                }
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("decode field by field", |b| {
        b.iter_batched(
            || BitReader::new(&bytes),
            |mut r| {
                for _ in 0..COUNT {
                    unpacked::Character::decode(&mut r).expect("valid");
                }
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
