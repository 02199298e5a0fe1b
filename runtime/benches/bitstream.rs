//! Write and read of 1M mixed-width fields and of 1M VLQs with `BitWriter` / `BitReader`,
//! against a straightforward bit-at-a-time implementation defined here.
//!
//! `cargo bench -p idlc-runtime` runs the criterion groups, then prints the speed-up of the
//! runtime over bit-at-a-time for each case (best of a few timed runs each).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use idlc_runtime::{BitReader, BitWriter, WireRead, WireWrite};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const FIELDS: usize = 1_000_000;

/// The straightforward bit packer: one bit per loop iteration, every bit bounds-checked.
#[derive(Default)]
struct NaiveWriter {
    buf: Vec<u8>,
    bits: usize,
}

impl NaiveWriter {
    fn clear(&mut self) {
        self.buf.clear();
        self.bits = 0;
    }

    fn write_bits(&mut self, value: u64, bits: u32) {
        for i in 0..bits {
            if self.bits % 8 == 0 {
                self.buf.push(0);
            }
            if (value >> i) & 1 == 1 {
                if let Some(byte) = self.buf.last_mut() {
                    *byte |= 1 << (self.bits % 8);
                }
            }
            self.bits += 1;
        }
    }

    fn write_vlq(&mut self, value: u64, group_bits: u32) {
        let mut rest = value;
        loop {
            self.write_bits(rest & ((1 << group_bits) - 1), group_bits);
            rest >>= group_bits;
            self.write_bits(u64::from(rest != 0), 1);
            if rest == 0 {
                return;
            }
        }
    }
}

struct NaiveReader<'a> {
    data: &'a [u8],
    bits: usize,
}

impl NaiveReader<'_> {
    fn read_bits(&mut self, bits: u32) -> Option<u64> {
        let mut value = 0;
        for i in 0..bits {
            let byte = self.data.get(self.bits / 8)?;
            value |= u64::from((byte >> (self.bits % 8)) & 1) << i;
            self.bits += 1;
        }
        Some(value)
    }

    fn read_vlq(&mut self, group_bits: u32) -> Option<u64> {
        let mut value = 0;
        let mut shift = 0;
        loop {
            let group = self.read_bits(group_bits)?;
            value |= group.checked_shl(shift)?;
            shift += group_bits;
            if self.read_bits(1)? == 0 {
                return Some(value);
            }
            if shift >= 64 {
                return None;
            }
        }
    }
}

struct Data {
    /// (value, width) with widths 1..=64.
    mixed: Vec<(u64, u32)>,
    /// Values of mixed magnitudes (1 to 10 groups of 7 bits).
    vlqs: Vec<u64>,
}

fn data() -> Data {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let mixed = (0..FIELDS)
        .map(|_| {
            let bits = rng.random_range(1..=64u32);
            let value = rng.random::<u64>() >> (64 - bits);
            (value, bits)
        })
        .collect();
    let vlqs = (0..FIELDS)
        .map(|_| rng.random::<u64>() >> rng.random_range(0..64))
        .collect();
    Data { mixed, vlqs }
}

fn write_mixed(w: &mut BitWriter, d: &Data) -> usize {
    w.clear();
    for &(v, n) in &d.mixed {
        if w.write_bits(v, n).is_err() {
            return 0;
        }
    }
    w.finish().len()
}

fn write_mixed_naive(w: &mut NaiveWriter, d: &Data) -> usize {
    w.clear();
    for &(v, n) in &d.mixed {
        w.write_bits(v, n);
    }
    w.buf.len()
}

fn read_mixed(bytes: &[u8], d: &Data) -> u64 {
    let mut r = BitReader::new(bytes);
    let mut sum = 0u64;
    for &(_, n) in &d.mixed {
        match r.read_bits(n) {
            Ok(v) => sum = sum.wrapping_add(v),
            Err(_) => return 0,
        }
    }
    sum
}

fn read_mixed_naive(bytes: &[u8], d: &Data) -> u64 {
    let mut r = NaiveReader {
        data: bytes,
        bits: 0,
    };
    let mut sum = 0u64;
    for &(_, n) in &d.mixed {
        match r.read_bits(n) {
            Some(v) => sum = sum.wrapping_add(v),
            None => return 0,
        }
    }
    sum
}

fn write_vlqs(w: &mut BitWriter, d: &Data) -> usize {
    w.clear();
    for &v in &d.vlqs {
        if w.write_vlq(v, 7).is_err() {
            return 0;
        }
    }
    w.finish().len()
}

fn write_vlqs_naive(w: &mut NaiveWriter, d: &Data) -> usize {
    w.clear();
    for &v in &d.vlqs {
        w.write_vlq(v, 7);
    }
    w.buf.len()
}

fn read_vlqs(bytes: &[u8]) -> u64 {
    let mut r = BitReader::new(bytes);
    let mut sum = 0u64;
    for _ in 0..FIELDS {
        match r.read_vlq(7) {
            Ok(v) => sum = sum.wrapping_add(v),
            Err(_) => return 0,
        }
    }
    sum
}

fn read_vlqs_naive(bytes: &[u8]) -> u64 {
    let mut r = NaiveReader {
        data: bytes,
        bits: 0,
    };
    let mut sum = 0u64;
    for _ in 0..FIELDS {
        match r.read_vlq(7) {
            Some(v) => sum = sum.wrapping_add(v),
            None => return 0,
        }
    }
    sum
}

struct Prepared {
    d: Data,
    mixed_bytes: Vec<u8>,
    vlq_bytes: Vec<u8>,
}

fn prepare() -> Prepared {
    let d = data();
    let mut w = BitWriter::with_capacity(8 * FIELDS + 64);
    write_mixed(&mut w, &d);
    let mixed_bytes = w.finish().to_vec();
    let mut naive = NaiveWriter::default();
    write_mixed_naive(&mut naive, &d);
    assert_eq!(naive.buf, mixed_bytes, "the two implementations disagree");
    write_vlqs(&mut w, &d);
    let vlq_bytes = w.finish().to_vec();
    write_vlqs_naive(&mut naive, &d);
    assert_eq!(naive.buf, vlq_bytes, "the two VLQ implementations disagree");
    assert_eq!(
        read_mixed(&mixed_bytes, &d),
        read_mixed_naive(&mixed_bytes, &d)
    );
    assert_eq!(read_vlqs(&vlq_bytes), read_vlqs_naive(&vlq_bytes));
    assert_eq!(
        read_vlqs(&vlq_bytes),
        d.vlqs.iter().fold(0u64, |a, &v| a.wrapping_add(v))
    );
    Prepared {
        d,
        mixed_bytes,
        vlq_bytes,
    }
}

fn benches(c: &mut Criterion, p: &Prepared) {
    let mut ours = BitWriter::with_capacity(8 * FIELDS + 64);
    let mut naive = NaiveWriter::default();

    let mut g = c.benchmark_group("mixed_width_1M");
    g.throughput(Throughput::Elements(FIELDS as u64));
    g.bench_function(BenchmarkId::new("write", "runtime"), |b| {
        b.iter(|| write_mixed(&mut ours, black_box(&p.d)))
    });
    g.bench_function(BenchmarkId::new("write", "bit_at_a_time"), |b| {
        b.iter(|| write_mixed_naive(&mut naive, black_box(&p.d)))
    });
    g.bench_function(BenchmarkId::new("read", "runtime"), |b| {
        b.iter(|| read_mixed(black_box(&p.mixed_bytes), &p.d))
    });
    g.bench_function(BenchmarkId::new("read", "bit_at_a_time"), |b| {
        b.iter(|| read_mixed_naive(black_box(&p.mixed_bytes), &p.d))
    });
    g.finish();

    let mut g = c.benchmark_group("vlq7_1M");
    g.throughput(Throughput::Elements(FIELDS as u64));
    g.bench_function(BenchmarkId::new("write", "runtime"), |b| {
        b.iter(|| write_vlqs(&mut ours, black_box(&p.d)))
    });
    g.bench_function(BenchmarkId::new("write", "bit_at_a_time"), |b| {
        b.iter(|| write_vlqs_naive(&mut naive, black_box(&p.d)))
    });
    g.bench_function(BenchmarkId::new("read", "runtime"), |b| {
        b.iter(|| read_vlqs(black_box(&p.vlq_bytes)))
    });
    g.bench_function(BenchmarkId::new("read", "bit_at_a_time"), |b| {
        b.iter(|| read_vlqs_naive(black_box(&p.vlq_bytes)))
    });
    g.finish();
}

/// CPU time this thread has run, from `/proc/thread-self/schedstat` (Linux); `None` elsewhere.
/// On a busy machine it is far steadier than wall time, which counts time spent preempted.
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Time per call of `f`: the best of 3 batches, each calling `f` until it has used 200 ms of
/// this thread's CPU time (the kernel updates that counter only every few ms, hence batches).
/// Without `/proc/thread-self/schedstat`, the best of 15 wall-time calls.
fn best(mut f: impl FnMut() -> u64) -> Duration {
    if thread_cpu_time().is_none() {
        return (0..15)
            .map(|_| {
                let start = Instant::now();
                black_box(f());
                start.elapsed()
            })
            .min()
            .unwrap_or_default();
    }
    let batch = || {
        let start = thread_cpu_time().unwrap_or_default();
        let mut calls = 0u32;
        loop {
            black_box(f());
            calls += 1;
            let used = thread_cpu_time().unwrap_or_default().saturating_sub(start);
            if used >= Duration::from_millis(200) {
                return used / calls;
            }
        }
    };
    let mut batch = batch;
    (0..3).map(|_| batch()).min().unwrap_or_default()
}

fn report_ratios(p: &Prepared) {
    let mut ours = BitWriter::with_capacity(8 * FIELDS + 64);
    let mut naive = NaiveWriter::default();
    let cases: [(&str, Duration, Duration); 4] = [
        (
            "write 1M mixed-width fields",
            best(|| write_mixed(&mut ours, &p.d) as u64),
            best(|| write_mixed_naive(&mut naive, &p.d) as u64),
        ),
        (
            "read 1M mixed-width fields",
            best(|| read_mixed(&p.mixed_bytes, &p.d)),
            best(|| read_mixed_naive(&p.mixed_bytes, &p.d)),
        ),
        (
            "write 1M VLQ(7)",
            best(|| write_vlqs(&mut ours, &p.d) as u64),
            best(|| write_vlqs_naive(&mut naive, &p.d) as u64),
        ),
        (
            "read 1M VLQ(7)",
            best(|| read_vlqs(&p.vlq_bytes)),
            best(|| read_vlqs_naive(&p.vlq_bytes)),
        ),
    ];
    let clock = if thread_cpu_time().is_some() {
        "thread CPU time per call, best of 3 batches of 200 ms"
    } else {
        "wall time, best of 15 calls"
    };
    println!("\nspeed-up over bit-at-a-time ({clock}; target >= 5x):");
    for (name, fast, slow) in cases {
        let ratio = slow.as_secs_f64() / fast.as_secs_f64().max(1e-12);
        println!(
            "  {name:<30} runtime {fast:>10.2?}  bit-at-a-time {slow:>10.2?}  ratio {ratio:>5.1}x"
        );
    }
}

fn main() {
    let prepared = prepare();
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    benches(&mut c, &prepared);
    c.final_summary();
    // Only when benchmarking (`cargo bench` passes `--bench`), not in `cargo test --benches`.
    if std::env::args().any(|a| a == "--bench") {
        report_ratios(&prepared);
    }
}
