//! Differential test of the header-only C++ runtime (`runtime-cpp/include/idlc/`) against this
//! crate: the same operations must write the same bytes, and reading the same bytes (as
//! written, mutated or truncated) must give the same values, error kinds and bit offsets.
//!
//! The test compiles `runtime-cpp/tests/driver.cpp` four times under `-std=c++17 -Wall -Wextra
//! -Wpedantic -Werror`: with g++ at `-O2 -march=native -ffp-contract=fast` (FMA contraction
//! allowed: the float arithmetic must not change) and with `-fno-exceptions`, with clang++ (g++
//! when it is missing) plain and with `-fsanitize=address,undefined`. It then generates seeded random
//! cases, computes each case's answer with the Rust runtime, and compares it with what every
//! driver prints for it (the line protocol is described at the top of driver.cpp). Without g++
//! the test says why on stderr and passes. Binaries are cached under `CARGO_TARGET_TMPDIR`,
//! keyed by the sources and flags. `IDLC_CPP_RUNTIME_DUMP=FILE` writes the driver's input to
//! FILE, to replay a mismatch by hand. `cpp_diff_matches_rust_diff` does the same for `Diff`
//! (`DIFF(b1, ..., bk)`) with the same drivers, its input to FILE.diff;
//! `cpp_smallest_three_matches_rust` for QUATERNION's `SmallestThree` (its full and DIFF forms,
//! hostile bytes included), its input to FILE.quat.

use std::collections::hash_map::DefaultHasher;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use idlc_runtime::{
    BitReader, BitWriter, ByteReader, ByteWriter, DeadReckoningAxis, DecodeError, DecodeErrorKind,
    DeltaContext, Diff, EncodeError, EncodeErrorKind, FixedPoint, VlqMode, WireInt, WireRead,
    WireWrite, bit_slice, check_numeric, check_numeric_f32, low_bits, nearest_f32_inside,
    read_aligned_str, read_bounded_length, read_f32_real_in_range, read_f64_in_range, read_fixed,
    read_huffman, read_index_gap, read_ranged, read_vlq_int, read_wide_bool, saturate_real,
    saturate_real_f32, with_bit_slice, write_aligned_bytes, write_bounded_length, write_fixed,
    write_huffman, write_index_gap, write_ranged, write_vlq_int, write_wide_bool,
};
use idlc_runtime::{Quaternion, SmallestThree};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One operation of a case, or an extension holding operations.
#[derive(Clone, Debug)]
enum Op {
    /// A wire operation: its name and arguments, as the driver spells them.
    Leaf(&'static str, Vec<String>),
    /// An extension (`{` read with `read_extension`, `[` with `enter_extension`) whose reader
    /// reads only its first `read_k` operations.
    Ext(char, usize, Vec<Op>),
}

/// The text of operations in the driver's protocol.
fn render(ops: &[Op], out: &mut String) {
    for op in ops {
        match op {
            Op::Leaf(name, args) if args.is_empty() => write!(out, " {name}").unwrap(),
            Op::Leaf(name, args) => write!(out, " {name}:{}", args.join(",")).unwrap(),
            Op::Ext(kind, k, inner) => {
                write!(out, " {kind}{k}").unwrap();
                render(inner, out);
                out.push_str(if *kind == '{' { " }" } else { " ]" });
            }
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".into();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn u(s: &str) -> u64 {
    s.parse().unwrap()
}

fn i(s: &str) -> i64 {
    s.parse().unwrap()
}

fn n32(s: &str) -> u32 {
    s.parse().unwrap()
}

fn f(s: &str) -> f64 {
    f64::from_bits(u64::from_str_radix(s, 16).unwrap())
}

fn fx(v: f64) -> String {
    format!("{:016x}", v.to_bits())
}

fn wide(s: &str) -> i128 {
    s.parse().unwrap()
}

fn bound(s: &str) -> Option<u64> {
    (s != "-").then(|| u(s))
}

fn flag(s: &str) -> bool {
    s == "1"
}

fn mode(s: &str) -> VlqMode {
    match s {
        "p" => VlqMode::Plain,
        "z" => VlqMode::ZigZag,
        _ => VlqMode::Offset,
    }
}

fn codes(s: &str) -> Vec<(u64, u32)> {
    s.split('/')
        .map(|pair| {
            let (c, l) = pair.split_once('.').unwrap();
            (u(c), n32(l))
        })
        .collect()
}

fn quantizer(a: &[String]) -> Option<FixedPoint> {
    FixedPoint::with_ends(f(&a[0]), f(&a[1]), f(&a[2]), flag(&a[3]), flag(&a[4]))
}

/// Runs `$body` with `$t` the Rust type the driver's type name stands for.
macro_rules! with_type {
    ($name:expr, $t:ident => $body:expr) => {
        match $name {
            "u8" => {
                type $t = u8;
                $body
            }
            "i16" => {
                type $t = i16;
                $body
            }
            "u32" => {
                type $t = u32;
                $body
            }
            "i64" => {
                type $t = i64;
                $body
            }
            _ => {
                type $t = u64;
                $body
            }
        }
    };
}

fn write_ops<W: WireWrite>(w: &mut W, ops: &[Op]) -> Result<(), EncodeError> {
    ops.iter().try_for_each(|op| write_op(w, op))
}

fn write_op<W: WireWrite>(w: &mut W, op: &Op) -> Result<(), EncodeError> {
    let (name, a) = match op {
        Op::Ext(_, _, inner) => return w.write_extension(|w| write_ops(w, inner)),
        Op::Leaf(name, a) => (*name, a),
    };
    match name {
        "bits" => w.write_bits(u(&a[1]), n32(&a[0])),
        "bool" => w.write_bool(flag(&a[0])),
        "noext" => w.write_bool(false),
        "fence" => w.write_bool(flag(&a[0])),
        "vlq" => w.write_vlq(u(&a[2]), n32(&a[0])),
        "vlqs" => w.write_vlq_signed(i(&a[1]), n32(&a[0])),
        "ur" => w.write_uint_ranged(u(&a[2]), u(&a[0]), u(&a[1])),
        "ir" => w.write_int_ranged(i(&a[2]), i(&a[0]), i(&a[1])),
        "vr" => w.write_vlq_ranged(i(&a[3]), i(&a[0]), i(&a[1]), n32(&a[2])),
        "f32" => w.write_f32(f32::from_bits(u32::from_str_radix(&a[0], 16).unwrap())),
        "f64" => w.write_f64(f(&a[0])),
        "fp" => match quantizer(a) {
            Some(fp) => w.write_quantized(&fp, f(&a[5])),
            None => Err(w.error(EncodeErrorKind::InvalidArgument)),
        },
        "fpr" => w.write_fixed_point(f(&a[3]), f(&a[0]), f(&a[1]), f(&a[2])),
        "en" => w.write_enum_index(u(&a[1]), u(&a[0])),
        "hf" => write_huffman(w, i(&a[0]), &codes(&a[1])),
        "cnt" => w.write_count(u(&a[2]), bound(&a[0])),
        "by" => w.write_bytes(&unhex(&a[1]), bound(&a[0])),
        "st" => w.write_str(&String::from_utf8(unhex(&a[1])).unwrap(), bound(&a[0])),
        "as" => write_aligned_bytes(w, &unhex(&a[0])),
        "al" => w.align(),
        "ck" => w.write_check(),
        "rg" => with_type!(a[0].as_str(), T => write_ranged(
            w, a[4].parse::<T>().unwrap(), wide(&a[1]), wide(&a[2]), n32(&a[3]))),
        "fx" => with_type!(a[0].as_str(), T => write_fixed(
            w, a[5].parse::<T>().unwrap(), wide(&a[1]), wide(&a[2]), n32(&a[3]), flag(&a[4]))),
        "vi" => with_type!(a[0].as_str(), T => write_vlq_int(
            w, a[6].parse::<T>().unwrap(), mode(&a[1]), wide(&a[2]), wide(&a[3]), n32(&a[4]))),
        "wb" => write_wide_bool(w, flag(&a[1]), n32(&a[0])),
        "gap" => write_index_gap(w, u(&a[0])),
        "bl" => write_bounded_length(w, u(&a[2]), u(&a[0]), n32(&a[1])),
        "f32r" => {
            let single =
                check_numeric_f32(w, f(&a[4]), f(&a[0]), f(&a[1]), flag(&a[2]), flag(&a[3]))?;
            w.write_f32(single)
        }
        "f64r" => {
            check_numeric(w, f(&a[4]), f(&a[0]), f(&a[1]), flag(&a[2]), flag(&a[3]))?;
            w.write_f64(f(&a[4]))
        }
        "bb" => {
            let word = u(&a[1]);
            (0..n32(&a[0]))
                .try_for_each(|k| w.write_bool(word.checked_shr(k).unwrap_or(0) & 1 == 1))
        }
        "fin" => {
            let _ = w.finish();
            Ok(())
        }
        "end" => Ok(()),
        other => panic!("unknown op {other}"),
    }
}

fn read_ops<'a, R: WireRead<'a>>(
    r: &mut R,
    ops: &[Op],
    limit: usize,
    out: &mut String,
) -> Result<(), DecodeError> {
    ops.iter()
        .take(limit)
        .try_for_each(|op| read_op(r, op, out))
}

fn read_op<'a, R: WireRead<'a>>(r: &mut R, op: &Op, out: &mut String) -> Result<(), DecodeError> {
    let (name, a) = match op {
        Op::Ext('{', k, inner) => {
            let mut inner_out = String::new();
            let got = r.read_extension(|r| read_ops(r, inner, *k, &mut inner_out))?;
            match got {
                Some(()) => write!(out, " {{{inner_out} }}").unwrap(),
                None => out.push_str(" N"),
            }
            return Ok(());
        }
        Op::Ext(_, k, inner) => {
            let Some(outer) = r.enter_extension()? else {
                out.push_str(" N");
                return Ok(());
            };
            out.push_str(" [");
            read_ops(r, inner, *k, out)?;
            r.leave_extension(outer);
            out.push_str(" ]");
            return Ok(());
        }
        Op::Leaf(name, a) => (*name, a),
    };
    let text = match name {
        "bits" => r.read_bits(n32(&a[0]))?.to_string(),
        "bool" => u8::from(r.read_bool()?).to_string(),
        "noext" => match r.read_extension(|_| Ok(()))? {
            Some(()) => "{ }".into(),
            None => "N".into(),
        },
        "fence" => u8::from(r.read_fence_present()?).to_string(),
        "vlq" => r.read_vlq_width(n32(&a[0]), n32(&a[1]))?.to_string(),
        "vlqs" => r.read_vlq_signed(n32(&a[0]))?.to_string(),
        "ur" => r.read_uint_ranged(u(&a[0]), u(&a[1]))?.to_string(),
        "ir" => r.read_int_ranged(i(&a[0]), i(&a[1]))?.to_string(),
        "vr" => r
            .read_vlq_ranged(i(&a[0]), i(&a[1]), n32(&a[2]))?
            .to_string(),
        "f32" => format!("{:016x}", r.read_f32()?.to_bits()),
        "f64" => fx(r.read_f64()?),
        "fp" => match quantizer(a) {
            Some(fp) => fx(r.read_dequantized(&fp)?),
            None => return Err(r.error(DecodeErrorKind::InvalidArgument)),
        },
        "fpr" => fx(r.read_fixed_point(f(&a[0]), f(&a[1]), f(&a[2]))?),
        "en" => r.read_enum_index(u(&a[0]))?.to_string(),
        "hf" => read_huffman(r, &codes(&a[1]))?.to_string(),
        "cnt" => r.read_count(bound(&a[0]), u(&a[1]))?.to_string(),
        "by" => hex(r.read_bytes(bound(&a[0]))?),
        "st" => hex(r.read_str(bound(&a[0]))?.as_bytes()),
        "as" => hex(read_aligned_str(r, unhex(&a[0]).len() as u64)?.as_bytes()),
        "al" => {
            r.align()?;
            ".".into()
        }
        "ck" => {
            r.read_check()?;
            ".".into()
        }
        "rg" => with_type!(a[0].as_str(), T => read_ranged::<R, T>(
            r, wide(&a[1]), wide(&a[2]), n32(&a[3]))?.to_string()),
        "fx" => with_type!(a[0].as_str(), T => read_fixed::<R, T>(
            r, wide(&a[1]), wide(&a[2]), n32(&a[3]), flag(&a[4]))?.to_string()),
        "vi" => with_type!(a[0].as_str(), T => read_vlq_int::<R, T>(
            r, mode(&a[1]), wide(&a[2]), wide(&a[3]), n32(&a[4]), n32(&a[5]))?.to_string()),
        "wb" => u8::from(read_wide_bool(r, n32(&a[0]))?).to_string(),
        "gap" => read_index_gap(r)?.to_string(),
        "bl" => read_bounded_length(r, u(&a[0]), n32(&a[1]))?.to_string(),
        "f32r" => fx(read_f32_real_in_range(
            r,
            f(&a[0]),
            f(&a[1]),
            flag(&a[2]),
            flag(&a[3]),
        )?),
        "f64r" => fx(read_f64_in_range(
            r,
            f(&a[0]),
            f(&a[1]),
            flag(&a[2]),
            flag(&a[3]),
        )?),
        "bb" => r.read_bool_bits(n32(&a[0]))?.to_string(),
        "fin" => {
            r.finish()?;
            ".".into()
        }
        "end" => {
            r.expect_end()?;
            ".".into()
        }
        other => panic!("unknown op {other}"),
    };
    write!(out, " {text}").unwrap();
    Ok(())
}

/// What the driver prints for a `W` case.
fn expect_write<W: WireWrite>(ops: &[Op]) -> (String, Option<Vec<u8>>) {
    let mut w = W::default();
    let result = write_ops(&mut w, ops);
    let bytes = w.finish().to_vec();
    match result {
        Ok(()) => (format!("OK {}", hex(&bytes)), Some(bytes)),
        Err(e) => (
            format!("ERR {:?} {} {}", e.kind, e.bit_offset, hex(&bytes)),
            None,
        ),
    }
}

/// What the driver prints for an `R` case.
fn expect_read<'a, R: WireRead<'a>>(bytes: &'a [u8], ops: &[Op]) -> String {
    let mut r = R::from_bytes(bytes);
    let mut values = String::new();
    match read_ops(&mut r, ops, ops.len(), &mut values) {
        Ok(()) => format!("OK{values}"),
        Err(e) => format!("ERR {:?} {}{values}", e.kind, e.bit_offset),
    }
}

/// The integers the generator draws ranges of: ordered, sampled uniformly, with neighbours.
trait Int: Copy + Ord + rand::distr::uniform::SampleUniform {
    /// The value below (wrapping).
    fn prev(self) -> Self;
    /// The value above (wrapping).
    fn next(self) -> Self;
}

macro_rules! int {
    ($($t:ty),*) => {$(
        impl Int for $t {
            fn prev(self) -> Self {
                self.wrapping_sub(1)
            }
            fn next(self) -> Self {
                self.wrapping_add(1)
            }
        }
    )*};
}

int!(u64, i64, i128);

/// Seeded generator of cases.
struct Gen {
    rng: ChaCha8Rng,
}

impl Gen {
    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.rng.random_range(0..n)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.rng.random_range(0..items.len())]
    }

    /// A u64 of a random magnitude (small values as likely as large ones), or an edge.
    fn any_u64(&mut self) -> u64 {
        if self.chance(0.15) {
            return self.pick(&[
                0,
                1,
                2,
                127,
                128,
                u64::MAX,
                u64::MAX - 1,
                1 << 63,
                (1 << 63) - 1,
            ]);
        }
        self.rng.random::<u64>() >> self.below(64)
    }

    fn any_i64(&mut self) -> i64 {
        if self.chance(0.15) {
            return self.pick(&[0, -1, 1, i64::MIN, i64::MAX, i64::MIN + 1, -64, 63]);
        }
        let magnitude = (self.rng.random::<u64>() >> self.below(64)) as i64;
        if self.chance(0.5) {
            magnitude.wrapping_neg()
        } else {
            magnitude
        }
    }

    /// `min..=max` of values `any` gives: usually ordered, sometimes one value, rarely reversed.
    fn range<T: Int>(&mut self, any: fn(&mut Self) -> T) -> (T, T) {
        let (a, b) = (any(self), any(self));
        match self.below(20) {
            0 => (a, a),
            1 => (a.max(b), a.min(b)),
            _ => (a.min(b), a.max(b)),
        }
    }

    /// A value of `min..=max`, an end, just outside (wrapping), or (when the range is
    /// reversed) whatever `any` gives.
    fn within<T: Int>(&mut self, min: T, max: T, any: fn(&mut Self) -> T) -> T {
        match self.below(10) {
            0 => min,
            1 => max,
            2 => min.prev(),
            3 => max.next(),
            _ if min <= max => self.rng.random_range(min..=max),
            _ => any(self),
        }
    }

    fn group_bits(&mut self) -> u32 {
        match self.below(30) {
            0 => 0,
            1 => 33,
            2..=12 => 7,
            _ => self.rng.random_range(1..=32),
        }
    }

    fn bits(&mut self) -> u32 {
        if self.chance(0.4) {
            self.pick(&[0, 1, 7, 8, 9, 16, 17, 31, 32, 33, 55, 56, 57, 63, 64])
        } else {
            self.rng.random_range(0..=64)
        }
    }

    /// A float64 bit pattern: ordinary values, edges, NaNs with payloads, infinities, -0.0.
    fn any_f64(&mut self) -> f64 {
        match self.below(12) {
            0 => f64::from_bits(0x7ff0_0000_0000_0000 | (self.rng.random::<u64>() >> 12) | 1),
            1 => self.pick(&[
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::MAX,
                f64::MIN,
            ]),
            2 => self.pick(&[f64::MIN_POSITIVE, 5e-324, -5e-324, f64::EPSILON]),
            3 => f64::from_bits(self.rng.random()),
            _ => (self.rng.random::<f64>() - 0.5) * 10f64.powi(self.rng.random_range(-3..7)),
        }
    }

    /// `FIXED_POINT` parameters: (min, max, resolution).
    fn fixed_params(&mut self) -> (f64, f64, f64) {
        let nice = [
            -10000.0, -360.0, -100.0, -1.0, -0.3, 0.0, 0.25, 1.0, 90.0, 360.0, 5000.0,
        ];
        let min = if self.chance(0.7) {
            self.pick(&nice)
        } else {
            self.any_f64()
        };
        let max = match self.below(10) {
            0 => min,
            1 => min - 1.0,
            2 => self.any_f64(),
            _ => min + self.pick(&[0.1, 0.3, 1.0, 2.5, 100.0, 359.99, 720.0, 20000.0, 1e6]),
        };
        let res = match self.below(20) {
            0 => self.pick(&[0.0, -0.1, f64::NAN, f64::INFINITY, 1e-300]),
            1..=12 => self.pick(&[0.001, 0.01, 0.05, 0.1, 0.25, 0.3, 0.4, 0.5, 1.0, 7.0]),
            _ => self.rng.random::<f64>() * 10f64.powi(self.rng.random_range(-4..2)),
        };
        (min, max, res)
    }

    /// A value for a quantizer of `min..=max` at `res`: inside, at or next to an end, or odd.
    fn fixed_value(&mut self, min: f64, max: f64, res: f64) -> f64 {
        match self.below(14) {
            0 => min,
            1 => max,
            2 => max.next_up(),
            3 => min.next_down(),
            4 => self.pick(&[f64::NAN, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY]),
            5 => f64::from_bits(0xfff8_0000_0000_1234),
            6 => min + res * (self.below(1000) as f64 + 0.5),
            7 => max - res * 0.5,
            _ => min + (max - min) * self.rng.random::<f64>(),
        }
    }

    /// Random valid UTF-8 of up to `len` characters (ASCII and multi-byte).
    fn utf8(&mut self, len: u64) -> Vec<u8> {
        let mut s = String::new();
        for _ in 0..self.below(len + 1) {
            s.push(self.pick(&[
                'a',
                'Z',
                '0',
                ' ',
                'é',
                'ß',
                '€',
                '中',
                '😀',
                '\u{10FFFF}',
                '\0',
            ]));
        }
        s.into_bytes()
    }

    fn bytes(&mut self, len: u64) -> Vec<u8> {
        (0..self.below(len + 1))
            .map(|_| self.rng.random())
            .collect()
    }

    /// A type name for the integer helpers, and its range.
    fn int_type(&mut self) -> (&'static str, i128, i128) {
        self.pick(&[
            ("u8", 0, i128::from(u8::MAX)),
            ("i16", i128::from(i16::MIN), i128::from(i16::MAX)),
            ("u32", 0, i128::from(u32::MAX)),
            ("i64", i128::from(i64::MIN), i128::from(i64::MAX)),
            ("u64", 0, i128::from(u64::MAX)),
        ])
    }

    /// A sub-range of `lo..=hi` (sometimes wider than the type: `u8` with max 300).
    fn sub_range(&mut self, lo: i128, hi: i128) -> (i128, i128) {
        match self.below(12) {
            0 => (lo, hi),
            1 => (lo, (hi + 45).min(i128::from(u64::MAX))),
            2 => {
                let a = self.rng.random_range(lo..=hi);
                (a, a)
            }
            _ => {
                let a = self.rng.random_range(lo..=hi);
                let b = self.rng.random_range(lo..=hi);
                (a.min(b), a.max(b))
            }
        }
    }

    /// A random prefix code of `count` codes: unary (`1..10`, long enough for the bit-by-bit
    /// path when count > 57), fixed-width, or with a broken code.
    fn huffman(&mut self) -> Vec<(u64, u32)> {
        let count = if self.chance(0.1) {
            self.rng.random_range(58..=64)
        } else {
            self.rng.random_range(1..=12)
        };
        let mut codes: Vec<(u64, u32)> = match self.below(3) {
            0 => {
                let width = idlc_runtime::bits_required(0, count - 1);
                (0..count).map(|i| (i, width)).collect()
            }
            _ if count == 1 => vec![(0, 0)],
            // Unary: code i is i ones then a zero; the last is count - 1 ones.
            _ => (0..count)
                .map(|i| {
                    let ones = i as u32;
                    if i + 1 == count {
                        ((1u64 << ones) - 1, ones)
                    } else {
                        ((1u64 << ones) - 1, ones + 1)
                    }
                })
                .collect(),
        };
        if self.chance(0.05) {
            let k = self.below(codes.len() as u64) as usize;
            codes[k].0 |= 1 << 63;
        }
        codes
    }

    fn leaf(&mut self, byte_stream: bool) -> Op {
        let s = |v: &dyn ToString| v.to_string();
        let kind = self.below(31);
        let (name, args): (&'static str, Vec<String>) = match kind {
            0 => {
                let n = if self.chance(0.02) { 65 } else { self.bits() };
                let mut v = self.any_u64();
                if !self.chance(0.05) && n < 64 {
                    v &= (1u64 << n) - 1;
                }
                ("bits", vec![s(&n), s(&v)])
            }
            1 => ("bool", vec![s(&u8::from(self.chance(0.5)))]),
            2 => ("noext", vec![]),
            3 => ("fence", vec![s(&u8::from(self.chance(0.5)))]),
            4 => {
                let t = if self.chance(0.1) {
                    self.pick(&[0, 65])
                } else {
                    self.rng.random_range(1..=64)
                };
                (
                    "vlq",
                    vec![s(&self.group_bits()), s(&t), s(&self.any_u64())],
                )
            }
            5 => ("vlqs", vec![s(&self.group_bits()), s(&self.any_i64())]),
            6 => {
                let (min, max) = self.range(Self::any_u64);
                (
                    "ur",
                    vec![s(&min), s(&max), s(&self.within(min, max, Self::any_u64))],
                )
            }
            7 => {
                let (min, max) = self.range(Self::any_i64);
                (
                    "ir",
                    vec![s(&min), s(&max), s(&self.within(min, max, Self::any_i64))],
                )
            }
            8 => {
                let (min, max) = self.range(Self::any_i64);
                let g = self.group_bits();
                (
                    "vr",
                    vec![
                        s(&min),
                        s(&max),
                        s(&g),
                        s(&self.within(min, max, Self::any_i64)),
                    ],
                )
            }
            9 => {
                let bits = match self.below(4) {
                    0 => 0x7f80_0000 | (self.rng.random::<u32>() >> 9) | 1,
                    1 => self.pick(&[0x8000_0000u32, 0, 0x7f80_0000, 0xff80_0000, 0xffc0_0001]),
                    _ => self.rng.random(),
                };
                ("f32", vec![format!("{bits:08x}")])
            }
            10 => ("f64", vec![fx(self.any_f64())]),
            11 | 12 => {
                let (min, max, res) = self.fixed_params();
                let (lo, hi) = (self.chance(0.8), self.chance(0.7));
                let v = self.fixed_value(min, max, res);
                let lo_hi = [s(&u8::from(lo)), s(&u8::from(hi))];
                (
                    "fp",
                    vec![
                        fx(min),
                        fx(max),
                        fx(res),
                        lo_hi[0].clone(),
                        lo_hi[1].clone(),
                        fx(v),
                    ],
                )
            }
            13 => {
                let (min, max, res) = self.fixed_params();
                let v = self.fixed_value(min, max, res);
                ("fpr", vec![fx(min), fx(max), fx(res), fx(v)])
            }
            14 => {
                let count = self.pick(&[0, 1, 2, 3, 5, 8, 9, 200, 1 << 40]);
                let v = if self.chance(0.85) && count > 0 {
                    self.below(count)
                } else {
                    count + self.below(3)
                };
                ("en", vec![s(&count), s(&v)])
            }
            15 => {
                let codes = self.huffman();
                let v: i64 = match self.below(12) {
                    0 => -1,
                    1 => codes.len() as i64,
                    _ => self.below(codes.len() as u64) as i64,
                };
                let text: Vec<String> = codes.iter().map(|(c, l)| format!("{c}.{l}")).collect();
                ("hf", vec![s(&v), text.join("/")])
            }
            16 => {
                let max = self.pick(&[None, Some(0), Some(1), Some(7), Some(300), Some(u64::MAX)]);
                let v = match max {
                    Some(m) if self.chance(0.85) => self.rng.random_range(0..=m.min(1 << 20)),
                    _ => self.below(70) + self.pick(&[0, 1 << 30]),
                };
                let minbits = self.pick(&[0u64, 1, 8, 64, 1 << 62]);
                let m = max.map_or("-".to_string(), |m| m.to_string());
                ("cnt", vec![m, s(&minbits), s(&v)])
            }
            17 | 18 => {
                let text = kind == 18;
                let data = if text { self.utf8(8) } else { self.bytes(12) };
                let max = if self.chance(0.3) {
                    "-".to_string()
                } else {
                    (data.len() as u64 + self.below(4))
                        .saturating_sub(self.below(2))
                        .to_string()
                };
                (if text { "st" } else { "by" }, vec![max, hex(&data)])
            }
            19 => {
                let data = if self.chance(0.9) {
                    self.utf8(6)
                } else {
                    self.bytes(6)
                };
                ("as", vec![hex(&data)])
            }
            20 => ("al", vec![]),
            21 => ("ck", vec![]),
            22 | 23 => {
                let (t, lo, hi) = self.int_type();
                let (min, max) = self.sub_range(lo, hi);
                let span = (max - min).clamp(0, i128::from(u64::MAX)) as u64;
                let bits = if byte_stream || self.chance(0.9) {
                    idlc_runtime::bits_required(0, span)
                } else {
                    self.bits()
                };
                let v = self.within(min, max, |_| 0).clamp(lo, hi);
                ("rg", vec![t.into(), s(&min), s(&max), s(&bits), s(&v)])
            }
            24 => {
                let (t, lo, hi) = self.int_type();
                let signed = lo < 0;
                let width = if hi > i128::from(u32::MAX) {
                    64
                } else if hi > i128::from(u16::MAX) {
                    32
                } else if hi > 255 {
                    16
                } else {
                    8
                };
                let bits = if self.chance(0.8) {
                    width
                } else {
                    self.rng.random_range(0..=width)
                };
                let (min, max) = self.sub_range(lo, hi);
                let v = self.within(min, max, |_| 0).clamp(lo, hi);
                let sg = u8::from(if self.chance(0.9) { signed } else { !signed });
                (
                    "fx",
                    vec![t.into(), s(&min), s(&max), s(&bits), s(&sg), s(&v)],
                )
            }
            25 => {
                let (t, lo, hi) = self.int_type();
                let m = self.pick(&["p", "z", "o"]);
                let (min, max) = self.sub_range(lo, hi);
                let g = self.group_bits().clamp(1, 32);
                let width = if hi > i128::from(u32::MAX) { 64 } else { 32 };
                let groups = if self.chance(0.8) {
                    idlc_runtime::vlq_max_groups(g, width)
                } else {
                    self.rng.random_range(0..=10)
                };
                let v = self.within(min, max, |_| 0).clamp(lo, hi);
                (
                    "vi",
                    vec![
                        t.into(),
                        m.into(),
                        s(&min),
                        s(&max),
                        s(&g),
                        s(&groups),
                        s(&v),
                    ],
                )
            }
            26 => (
                "wb",
                vec![
                    s(&self.rng.random_range(0..=9u32)),
                    s(&u8::from(self.chance(0.5))),
                ],
            ),
            27 => ("gap", vec![s(&self.any_u64())]),
            28 => {
                let max = self.any_u64() >> self.below(64);
                let bits = if self.chance(0.9) {
                    idlc_runtime::bits_required(0, max)
                } else {
                    self.bits()
                };
                (
                    "bl",
                    vec![s(&max), s(&bits), s(&self.within(0, max, Self::any_u64))],
                )
            }
            29 => {
                let (min, max, _) = self.fixed_params();
                let (lo, hi) = (self.chance(0.7), self.chance(0.7));
                let v = match self.below(6) {
                    0 => min,
                    1 => max,
                    2 => f64::from(min as f32),
                    3 => f64::from(max as f32),
                    _ => self.fixed_value(min, max, 0.1),
                };
                let name = if self.chance(0.5) { "f32r" } else { "f64r" };
                (
                    name,
                    vec![fx(min), fx(max), s(&u8::from(lo)), s(&u8::from(hi)), fx(v)],
                )
            }
            _ => {
                let count = if self.chance(0.03) {
                    65
                } else {
                    self.rng.random_range(0..=64u32)
                };
                (
                    "bb",
                    vec![
                        s(&count),
                        s(&(self.rng.random::<u64>()
                            & u64::MAX.checked_shr(64 - count.min(64)).unwrap_or(0))),
                    ],
                )
            }
        };
        Op::Leaf(name, args)
    }

    fn ops(&mut self, byte_stream: bool, depth: u32) -> Vec<Op> {
        let count = self.rng.random_range(1..=if depth == 0 { 8 } else { 4 });
        let mut ops: Vec<Op> = (0..count)
            .map(|_| {
                if depth < 2 && self.chance(0.08) {
                    let inner = self.ops(byte_stream, depth + 1);
                    let k = if self.chance(0.7) {
                        inner.len()
                    } else {
                        self.below(inner.len() as u64 + 1) as usize
                    };
                    Op::Ext(if self.chance(0.5) { '{' } else { '[' }, k, inner)
                } else if self.chance(0.04) {
                    Op::Leaf("fin", vec![])
                } else {
                    self.leaf(byte_stream)
                }
            })
            .collect();
        if depth == 0 && self.chance(0.3) {
            ops.push(Op::Leaf("end", vec![]));
        }
        ops
    }

    /// A corrupted copy of `bytes`: a flipped bit, a cut, an extra byte or a random byte.
    fn mutate(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        match self.below(4) {
            0 if !out.is_empty() => {
                let k = self.below(out.len() as u64) as usize;
                out[k] ^= 1 << self.below(8);
            }
            1 if !out.is_empty() => out.truncate(self.below(out.len() as u64) as usize),
            2 => out.push(self.rng.random()),
            _ => {
                if !out.is_empty() {
                    let k = self.below(out.len() as u64) as usize;
                    out[k] = self.rng.random();
                }
            }
        }
        out
    }
}

/// Adds a `W` case and its `R` cases (as written, then corrupted) to `cases`.
fn stream_cases(g: &mut Gen, cases: &mut Vec<(String, String)>) {
    let byte_stream = g.chance(0.35);
    let ops = g.ops(byte_stream, 0);
    let mut text = String::new();
    render(&ops, &mut text);
    let stream = if byte_stream { "byte" } else { "bit" };
    let (expected, bytes) = if byte_stream {
        expect_write::<ByteWriter>(&ops)
    } else {
        expect_write::<BitWriter>(&ops)
    };
    cases.push((format!("W {stream}{text}"), expected));
    let written = bytes.unwrap_or_else(|| g.bytes(16));
    let mut inputs = vec![written.clone()];
    for _ in 0..2 {
        inputs.push(g.mutate(&written));
    }
    for input in inputs {
        let expected = if byte_stream {
            expect_read::<ByteReader>(&input, &ops)
        } else {
            expect_read::<BitReader>(&input, &ops)
        };
        cases.push((format!("R {stream} {}{text}", hex(&input)), expected));
    }
}

/// A `Q` case: a quantizer's steps and what it makes of values.
fn quantizer_case(g: &mut Gen) -> (String, String) {
    let (min, max, res) = g.fixed_params();
    let (lo, hi) = (g.chance(0.8), g.chance(0.7));
    let values: Vec<f64> = (0..6).map(|_| g.fixed_value(min, max, res)).collect();
    let mut line = format!(
        "Q {} {} {} {} {}",
        fx(min),
        fx(max),
        fx(res),
        u8::from(lo),
        u8::from(hi)
    );
    for v in &values {
        write!(line, " {}", fx(*v)).unwrap();
    }
    let expected = match FixedPoint::with_ends(min, max, res, lo, hi) {
        None => "N".to_string(),
        Some(fp) => {
            let mut out = format!("V {} {} {}", fp.first(), fp.steps(), fp.bits());
            for &v in &values {
                let near = fp.nearest_step(v);
                let (text, q) = match fp.quantize(v) {
                    Ok(q) => (q.to_string(), q),
                    Err(kind) => (format!("{kind:?}"), near),
                };
                write!(out, " {text}/{near}/{}", fx(fp.dequantize(q))).unwrap();
            }
            out
        }
    };
    (line, expected)
}

/// A `D` case: one dead-reckoning axis.
fn dead_reckoning_case(g: &mut Gen) -> (String, String) {
    let (pmin, pmax, pres) = g.fixed_params();
    let (vmin, vmax, vres) = g.fixed_params();
    let pstep = if g.chance(0.1) {
        g.any_u64()
    } else {
        g.below(1 << 20)
    };
    let vstep = if g.chance(0.1) {
        g.any_u64()
    } else {
        g.below(1 << 16)
    };
    let elapsed = match g.below(8) {
        0 => g.any_f64(),
        _ => f64::from(g.rng.random_range(0..600u32)) / 60.0,
    };
    let truth = g.fixed_value(pmin, pmax, pres);
    let dev = g.pick(&[0.0, 0.01, 0.5, 2.0, f64::NAN]);
    let line = format!(
        "D {} {} {} {} {} {} {pstep} {vstep} {} {} {}",
        fx(pmin),
        fx(pmax),
        fx(pres),
        fx(vmin),
        fx(vmax),
        fx(vres),
        fx(elapsed),
        fx(truth),
        fx(dev)
    );
    let expected = match (
        FixedPoint::new(pmin, pmax, pres),
        FixedPoint::new(vmin, vmax, vres),
    ) {
        (Some(p), Some(v)) => {
            let axis = DeadReckoningAxis::new(p, v);
            let ctx = DeltaContext::new(elapsed);
            format!(
                "{} {} {} {} {}",
                axis.extrapolate(pstep, vstep, &ctx),
                fx(axis.predict(pstep, vstep, &ctx)),
                u8::from(axis.needs_update(truth, pstep, vstep, &ctx, dev)),
                fx(axis.predict_from(truth, truth, &ctx)),
                axis.extrapolate_from(truth, truth, &ctx)
            )
        }
        _ => "N".into(),
    };
    (line, expected)
}

/// A `P` case: an error's field path built from the inside out.
fn path_case(g: &mut Gen) -> (String, String) {
    let kinds = [
        DecodeErrorKind::UnexpectedEnd,
        DecodeErrorKind::BadEnumerator,
        DecodeErrorKind::OverlongVlq,
        DecodeErrorKind::BadUtf8,
        DecodeErrorKind::TooDeep,
    ];
    let kind = g.pick(&kinds);
    let offset = g.below(1000);
    let names = [
        "Buff.kind",
        "Player.buffs",
        "Top.outer",
        "Inner (ALIGN)",
        "P.grid",
        "x",
    ];
    let mut line = format!("P {kind:?} {offset}");
    let mut e = DecodeError::new(kind, offset);
    for _ in 0..g.below(5) {
        if g.chance(0.5) {
            let name = g.pick(&names);
            write!(line, " f={}", name.replace(' ', "~")).unwrap();
            e = e.in_field(name);
        } else {
            let index = g.below(20) as usize;
            write!(line, " i={index}").unwrap();
            e = e.at_index(index);
        }
    }
    let expected = format!("{}|{e}", e.field.as_deref().unwrap_or(""));
    (line, expected)
}

/// An `X` case: the helpers of EXTEND.
fn extend_case(g: &mut Gen) -> (String, String) {
    let (min, max, _) = g.fixed_params();
    let v = loop {
        let v = match g.below(4) {
            0 => min,
            1 => max,
            _ => g.fixed_value(min, max, 0.5),
        };
        if !v.is_nan() {
            break v;
        }
    };
    let (lo, hi) = (g.chance(0.5), g.chance(0.5));
    let value = g.any_i64() as i32;
    let low = g.rng.random_range(0..=70u32);
    let width = g.rng.random_range(0..=40u32);
    let line = format!(
        "X {} {} {} {} {} {value} {low} {width}",
        fx(v),
        fx(min),
        fx(max),
        u8::from(lo),
        u8::from(hi)
    );
    let r = BitReader::new(&[]);
    let joined = match with_bit_slice(&r, value, bit_slice(value, low, width) + 1, low) {
        Ok(j) => j.to_string(),
        Err(e) => format!("{:?}", e.kind),
    };
    let expected = format!(
        "{} {:016x} {:016x} {} {} {joined}",
        fx(saturate_real(v, min, max, lo, hi)),
        saturate_real_f32(v as f32, min, max, lo, hi).to_bits(),
        nearest_f32_inside(v, min, max, lo, hi).to_bits(),
        low_bits(value, width),
        bit_slice(value, low, width),
    );
    (line, expected)
}

/// The `DIFF(...)` rule of a Diff case, and the stream.
struct DiffRule {
    diff: Diff<'static>,
    first: u64,
    last: u64,
    wraps: bool,
    byte_stream: bool,
    /// Bits written and read before the selector, so that offsets are not all 0.
    skip: u32,
}

impl DiffRule {
    /// `<bit|byte> <tiers> <first> <last> <wraps> <skip>`, as the driver reads them.
    fn text(&self) -> String {
        let tiers: Vec<String> = self.diff.tiers().iter().map(u32::to_string).collect();
        format!(
            "{} {} {} {} {} {}",
            if self.byte_stream { "byte" } else { "bit" },
            if tiers.is_empty() {
                "-".into()
            } else {
                tiers.join("/")
            },
            self.first,
            self.last,
            u8::from(self.wraps),
            self.skip
        )
    }

    /// `reference + delta` (around the range when it wraps), as a u64.
    fn shift(&self, reference: u64, delta: i128) -> u64 {
        let mut x = i128::from(reference) + delta;
        if self.wraps && self.first <= self.last {
            let n = i128::from(self.last) - i128::from(self.first) + 1;
            x = i128::from(self.first) + (x - i128::from(self.first)).rem_euclid(n);
        }
        x.rem_euclid(1 << 64) as u64
    }

    /// A `G` case: the read of `bytes` against `reference`.
    fn read_case(&self, reference: u64, bytes: &[u8]) -> (String, String) {
        let expected = if self.byte_stream {
            diff_read::<ByteReader>(self.diff, bytes, self.skip, reference)
        } else {
            diff_read::<BitReader>(self.diff, bytes, self.skip, reference)
        };
        (
            format!("G {} {reference} {}", self.text(), hex(bytes)),
            expected,
        )
    }
}

impl Gen {
    /// A tier's width: usually small, sometimes up to 64.
    fn tier_bits(&mut self) -> u32 {
        if self.chance(0.7) {
            self.rng.random_range(1..=16)
        } else {
            self.rng.random_range(1..=64)
        }
    }

    /// Tiers: usually increasing, sometimes not (`DIFF(8, 4)`: its second tier never holds a
    /// difference first), rarely none or widths the compiler refuses (0, 65).
    fn diff_tiers(&mut self) -> Vec<u32> {
        let count = self.rng.random_range(1..=4);
        let mut tiers: Vec<u32> = (0..count).map(|_| self.tier_bits()).collect();
        match self.below(16) {
            0 => self
                .pick(&[
                    &[4, 8][..],
                    &[2, 5, 9],
                    &[8, 4],
                    &[64],
                    &[8, 64],
                    &[1],
                    &[63, 64],
                    &[4, 4],
                    &[16, 8, 32],
                    &[1, 2, 3, 4, 5, 6, 7, 8],
                    &[],
                ])
                .to_vec(),
            1 => {
                let k = self.below(tiers.len() as u64 + 1) as usize;
                tiers.insert(k, self.pick(&[0, 65]));
                tiers
            }
            2..=4 => tiers,
            _ => {
                tiers.sort_unstable();
                tiers.dedup();
                tiers
            }
        }
    }

    /// A rule: tiers over a range of steps (small, at the top of u64, all of u64, random, one
    /// step, rarely reversed) that may wrap, with even and odd numbers of steps.
    fn diff_rule(&mut self) -> DiffRule {
        let tiers: &'static [u32] = Box::leak(self.diff_tiers().into_boxed_slice());
        let (first, last) = match self.below(8) {
            0 => (0, u64::MAX),
            1 => {
                let span = self.pick(&[0, 1, 2, 3, 35_999, 1 << 20, 1 << 63, u64::MAX - 1]);
                (u64::MAX - span, u64::MAX)
            }
            2 => self.range(Self::any_u64),
            _ => {
                let first = self.below(1000);
                let span = if self.chance(0.7) {
                    self.pick(&[0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 100, 255, 256, 35_999])
                } else {
                    self.below(1 << 20)
                };
                (first, first + span)
            }
        };
        let wraps = self.chance(0.5);
        DiffRule {
            diff: Diff::new(tiers, first, last, wraps),
            first,
            last,
            wraps,
            byte_stream: self.chance(0.4),
            skip: self.pick(&[0, 0, 0, 0, 1, 3, 7, 8, 13, 64]),
        }
    }

    /// A step of the rule's range, an end, or any u64.
    fn diff_step(&mut self, rule: &DiffRule) -> u64 {
        match self.below(8) {
            0 => rule.first,
            1 => rule.last,
            _ if rule.first <= rule.last && self.chance(0.85) => {
                self.rng.random_range(rule.first..=rule.last)
            }
            _ => self.any_u64(),
        }
    }

    /// A difference worth trying: at a tier's edges, half the steps of a wrapping range and its
    /// neighbours, small, or any.
    fn diff_delta(&mut self, rule: &DiffRule) -> i128 {
        let n = i128::from(rule.last) - i128::from(rule.first) + 1;
        match self.below(6) {
            0 | 1 => {
                let bits = match rule.diff.tiers() {
                    [] => self.tier_bits(),
                    tiers => self.pick(tiers).clamp(1, 64),
                };
                let edge = 1i128 << (bits - 1);
                self.pick(&[edge - 1, edge, -edge, -edge - 1])
            }
            2 => self.pick(&[
                n / 2,
                n / 2 + 1,
                n / 2 - 1,
                -(n / 2),
                -(n / 2) - 1,
                -(n / 2) + 1,
            ]),
            3 => i128::from(self.any_i64()),
            _ => i128::from(self.below(200)) - 100,
        }
    }

    /// Bytes a Diff reader may meet: a selector (past the escape, in a BYTESTREAM), then a
    /// tier's bits at its edges or random (with bits above the tier, in a BYTESTREAM), or an
    /// escaped value near the reference or random; sometimes cut or followed by more.
    fn diff_bytes<W: WireWrite>(&mut self, rule: &DiffRule, reference: u64) -> Vec<u8> {
        let tiers = rule.diff.tiers();
        let count = tiers.len() as u64;
        let mut w = W::default();
        w.write_bits(0, rule.skip).unwrap();
        let index = if W::BYTE_STREAM {
            let index = if self.chance(0.05) {
                255
            } else {
                self.below(count + 3)
            };
            w.write_bits(index, 8).unwrap();
            index
        } else {
            let index = self.below(count + 1);
            for _ in 0..index {
                w.write_bool(true).unwrap();
            }
            if index < count {
                w.write_bool(false).unwrap();
            }
            index
        };
        if let Some(&bits) = tiers.get(index as usize) {
            let zz = if self.chance(0.6) {
                let d = self.diff_delta(rule);
                ((d << 1) ^ (d >> 127)) as u64
            } else {
                self.any_u64()
            };
            let width = if W::BYTE_STREAM && self.chance(0.3) {
                8 * idlc_runtime::byte_width(bits) as u32
            } else {
                bits
            };
            if width <= 64 {
                w.write_bits(zz & u64::MAX.checked_shr(64 - width).unwrap_or(0), width)
                    .unwrap();
            }
        } else if index == count {
            let value = if self.chance(0.6) {
                let delta = self.diff_delta(rule);
                rule.shift(reference, delta)
            } else {
                self.any_u64()
            };
            w.write_bits(value, 64).unwrap();
        }
        let mut bytes = w.finish().to_vec();
        match self.below(6) {
            0 => bytes.truncate(self.below(bytes.len() as u64 + 1) as usize),
            1 => bytes.push(self.rng.random()),
            _ => {}
        }
        bytes
    }
}

/// What the driver prints for a Diff's read of `bytes` after `skip` bits (on the escape, the
/// value in 64 bits, checked).
fn diff_read<'a, R: WireRead<'a>>(
    diff: Diff,
    bytes: &'a [u8],
    skip: u32,
    reference: u64,
) -> String {
    let mut r = R::from_bytes(bytes);
    let verdict = (|| -> Result<String, DecodeError> {
        r.read_bits(skip)?;
        let start = r.bits_read();
        if let Some(step) = diff.read(&mut r, reference)? {
            return Ok(format!("S {step}"));
        }
        let value = r.read_bits(64)?;
        diff.check_escaped(value, reference, start)?;
        Ok(format!("E {value}"))
    })();
    match verdict {
        Ok(v) => format!("{v} {}", r.bits_read()),
        Err(e) => format!("ERR {:?} {}", e.kind, e.bit_offset),
    }
}

/// A Diff's write after `skip` zero bits (on the escape, `now` in 64 bits): the driver's text
/// and the bytes.
fn diff_write<W: WireWrite>(diff: Diff, skip: u32, now: u64, reference: u64) -> (String, Vec<u8>) {
    let mut w = W::default();
    let result = (|| -> Result<bool, EncodeError> {
        w.write_bits(0, skip)?;
        let carried = diff.write(&mut w, now, reference)?;
        if !carried {
            w.write_bits(now, 64)?;
        }
        Ok(carried)
    })();
    let bytes = w.finish().to_vec();
    let text = match result {
        Ok(carried) => format!("OK {} {}", u8::from(carried), hex(&bytes)),
        Err(e) => format!("ERR {:?} {} {}", e.kind, e.bit_offset, hex(&bytes)),
    };
    (text, bytes)
}

/// What the driver prints for an integer Diff's `read_int::<_, T>` of `bytes` after `skip`
/// bits (on the escape, the step in 64 bits, checked with `check_escaped_int`).
fn int_read<'a, R: WireRead<'a>, T: WireInt + std::fmt::Display>(
    diff: Diff<'_>,
    bytes: &'a [u8],
    skip: u32,
    reference: i128,
) -> String {
    let mut r = R::from_bytes(bytes);
    let verdict = (|| -> Result<String, DecodeError> {
        r.read_bits(skip)?;
        let start = r.bits_read();
        if let Some(value) = diff.read_int::<R, T>(&mut r, reference)? {
            return Ok(format!("S {value}"));
        }
        let step = r.read_bits(64)?;
        diff.check_escaped_int(diff.value(step), reference, start)?;
        Ok(format!("E {}", diff.value(step)))
    })();
    match verdict {
        Ok(v) => format!("{v} {}", r.bits_read()),
        Err(e) => format!("ERR {:?} {}", e.kind, e.bit_offset),
    }
}

/// `int_read` with the reader of the stream and the type the driver's name stands for.
fn int_read_as(rule: &DiffRule, diff: Diff<'_>, ty: &str, bytes: &[u8], reference: i128) -> String {
    with_type!(ty, T => if rule.byte_stream {
        int_read::<ByteReader, T>(diff, bytes, rule.skip, reference)
    } else {
        int_read::<BitReader, T>(diff, bytes, rule.skip, reference)
    })
}

/// `write_int` of `now` after `skip` zero bits (on the escape, its step in 64 bits): the
/// driver's text and the bytes.
fn int_write<W: WireWrite>(
    diff: Diff<'_>,
    skip: u32,
    now: i128,
    reference: i128,
) -> (String, Vec<u8>) {
    let mut w = W::default();
    let result = (|| -> Result<bool, EncodeError> {
        w.write_bits(0, skip)?;
        let carried = diff.write_int(&mut w, now, reference)?;
        if !carried {
            w.write_bits(diff.step(now).unwrap_or(0), 64)?;
        }
        Ok(carried)
    })();
    let bytes = w.finish().to_vec();
    let text = match result {
        Ok(carried) => format!("OK {} {}", u8::from(carried), hex(&bytes)),
        Err(e) => format!("ERR {:?} {} {}", e.kind, e.bit_offset, hex(&bytes)),
    };
    (text, bytes)
}

impl Gen {
    /// An integer rule's origin: 0, a small or an extreme one, or any, kept where the rule's
    /// steps have values the driver reads (within i64 or u64) when the rule allows it.
    fn diff_origin(&mut self, rule: &DiffRule) -> i128 {
        let origin = match self.below(6) {
            0 => 0,
            1 => self.pick(&[-100, 5, i128::from(i64::MIN), i128::from(u64::MAX)]),
            2 => i128::from(self.any_u64()),
            _ => i128::from(self.any_i64()),
        };
        let lowest = i128::from(i64::MIN);
        let highest = i128::from(u64::MAX) - i128::from(rule.last);
        origin.min(highest).max(lowest)
    }

    /// An integer for a rule with `origin`: a step's value (an end, near the reference), just
    /// outside the steps, or any; always one the driver reads (within i64 or u64).
    fn diff_int(&mut self, rule: &DiffRule, origin: i128, near: Option<i128>) -> i128 {
        let v = match (self.below(10), near) {
            (0, _) => origin + i128::from(rule.first) - 1,
            (1, _) => origin + i128::from(rule.last) + 1,
            (2, _) => i128::from(self.any_i64()),
            (3..=5, Some(near)) => near + self.diff_delta(rule),
            _ => origin + i128::from(self.diff_step(rule)),
        };
        if (i128::from(i64::MIN)..=i128::from(u64::MAX)).contains(&v) {
            v
        } else {
            i128::from(self.any_i64())
        }
    }
}

/// Integer Diff cases (`with_origin`, `step`, `reference`, `value`, `write_int`, `read_int`,
/// `check_escaped_int`): `I` cases, each with `J` cases of its bytes mutated and of random
/// bytes.
fn int_diff_cases(g: &mut Gen, cases: &mut Vec<(String, String)>) {
    let rule = g.diff_rule();
    let origin = g.diff_origin(&rule);
    let diff = rule.diff.with_origin(origin);
    let ty = g.pick(&["u8", "i16", "u32", "i64", "u64"]);
    let reference = g.diff_int(&rule, origin, None);
    let now = g.diff_int(&rule, origin, Some(reference));
    let head = format!("{} {origin} {ty}", rule.text());
    let base = diff.reference(reference);
    let check = match diff.check_escaped_int(now, reference, u64::from(rule.skip)) {
        Ok(()) => ".".into(),
        Err(e) => format!("ERR {:?} {}", e.kind, e.bit_offset),
    };
    let (written, bytes) = if rule.byte_stream {
        int_write::<ByteWriter>(diff, rule.skip, now, reference)
    } else {
        int_write::<BitWriter>(diff, rule.skip, now, reference)
    };
    let step = diff.step(now).map_or("-".into(), |s| s.to_string());
    cases.push((
        format!("I {head} {now} {reference}"),
        format!(
            "{step} {base} {} {check} W {written} R {}",
            diff.value(base),
            int_read_as(&rule, diff, ty, &bytes, reference)
        ),
    ));
    let mut inputs = vec![g.mutate(&bytes), g.mutate(&bytes)];
    if g.chance(0.5) {
        inputs.push(g.bytes(12));
    }
    for input in inputs {
        cases.push((
            format!("J {head} {reference} {}", hex(&input)),
            int_read_as(&rule, diff, ty, &input, reference),
        ));
    }
}

/// Diff cases: `F` cases (difference, tier, check, write and read back), each with `G` cases
/// of its bytes mutated, of bytes made to meet each check, and of random bytes; then the
/// integer forms' cases.
fn diff_cases() -> Vec<(String, String)> {
    let mut g = Gen {
        rng: ChaCha8Rng::seed_from_u64(0xd1ff),
    };
    let mut cases = Vec::new();
    for _ in 0..2000 {
        let rule = g.diff_rule();
        let diff = rule.diff;
        let reference = g.diff_step(&rule);
        let now = if g.chance(0.2) {
            g.diff_step(&rule)
        } else {
            let delta = g.diff_delta(&rule);
            rule.shift(reference, delta)
        };
        let d = diff.difference(now, reference);
        let tier = diff.tier_of(d).map_or("-".into(), |t| t.to_string());
        let check = match diff.check_escaped(now, reference, u64::from(rule.skip)) {
            Ok(()) => ".".into(),
            Err(e) => format!("ERR {:?} {}", e.kind, e.bit_offset),
        };
        let (written, bytes) = if rule.byte_stream {
            diff_write::<ByteWriter>(diff, rule.skip, now, reference)
        } else {
            diff_write::<BitWriter>(diff, rule.skip, now, reference)
        };
        let (_, read_back) = rule.read_case(reference, &bytes);
        cases.push((
            format!("F {} {now} {reference}", rule.text()),
            format!("{d} {tier} {check} W {written} R {read_back}"),
        ));
        for _ in 0..2 {
            let mutated = g.mutate(&bytes);
            cases.push(rule.read_case(reference, &mutated));
        }
        let made = if rule.byte_stream {
            g.diff_bytes::<ByteWriter>(&rule, reference)
        } else {
            g.diff_bytes::<BitWriter>(&rule, reference)
        };
        cases.push(rule.read_case(reference, &made));
        if g.chance(0.5) {
            let random = g.bytes(12);
            cases.push(rule.read_case(reference, &random));
        }
    }
    for _ in 0..1000 {
        int_diff_cases(&mut g, &mut cases);
    }
    cases
}

/// Every case: (input line, the line the driver must print).
fn cases() -> Vec<(String, String)> {
    let mut g = Gen {
        rng: ChaCha8Rng::seed_from_u64(0x1d1c_c0de),
    };
    let mut cases = vec![("V".to_string(), env!("CARGO_PKG_VERSION").to_string())];
    for _ in 0..1500 {
        stream_cases(&mut g, &mut cases);
    }
    for _ in 0..600 {
        cases.push(quantizer_case(&mut g));
        cases.push(dead_reckoning_case(&mut g));
    }
    for _ in 0..200 {
        cases.push(path_case(&mut g));
        cases.push(extend_case(&mut g));
    }
    cases
}

/// `runtime-cpp/` of this workspace.
fn cpp_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("runtime-cpp")
}

/// Whether `program --version` runs.
fn available(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The files under `dir`, its subdirectories' (idlc/session/) included.
fn headers(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            files.extend(headers(&path)?);
        } else {
            files.push(path);
        }
    }
    Ok(files)
}

/// Compiles the driver with `compiler` and `flags` (cached by the sources and flags), or says
/// why it could not.
fn build(compiler: &str, flags: &[&str]) -> Result<PathBuf, String> {
    let root = cpp_root();
    let mut hasher = DefaultHasher::new();
    (compiler, flags).hash(&mut hasher);
    let mut sources = headers(&root.join("include/idlc")).map_err(|e| e.to_string())?;
    sources.push(root.join("tests/driver.cpp"));
    sources.sort();
    for source in &sources {
        std::fs::read(source)
            .map_err(|e| e.to_string())?
            .hash(&mut hasher);
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cpp_runtime");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let binary = dir.join(format!("driver-{:016x}", hasher.finish()));
    if binary.exists() {
        return Ok(binary);
    }
    let partial = binary.with_extension("partial");
    let output = Command::new(compiler)
        .args(["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror"])
        .args(flags)
        .arg("-I")
        .arg(root.join("include"))
        .arg(root.join("tests/driver.cpp"))
        .arg("-o")
        .arg(&partial)
        .output()
        .map_err(|e| format!("{compiler}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{compiler} {flags:?} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    std::fs::rename(&partial, &binary).map_err(|e| e.to_string())?;
    Ok(binary)
}

/// Runs the driver on every case's input; its output lines.
fn run(binary: &Path, input: &str) -> Vec<String> {
    let mut child = Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the driver starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_owned();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("the driver runs");
    feeder.join().expect("feeder").expect("stdin written");
    assert!(
        output.status.success(),
        "{} failed: {}",
        binary.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("UTF-8 output")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The four builds of the driver (compiler and flags) and their binaries, built once for every
/// test of this file; `Ok(None)` without g++.
type Drivers = Result<Option<Vec<(String, Vec<&'static str>, PathBuf)>>, String>;

fn drivers() -> &'static Drivers {
    static DRIVERS: OnceLock<Drivers> = OnceLock::new();
    DRIVERS.get_or_init(|| {
        if !available("g++") {
            eprintln!("cpp_runtime: g++ is not on PATH; the C++ runtime is not tested");
            return Ok(None);
        }
        // Four builds, each flag set once and each compiler twice (a second compiler stands in
        // for a missing one): g++ with floating-point contraction (it contracts most) and
        // without exceptions, clang++ plain and under the sanitizers. Eight (every set by both)
        // cost CI twice the time and found nothing the four do not.
        let clang = if available("clang++") {
            "clang++"
        } else {
            eprintln!("cpp_runtime: clang++ is not on PATH; testing with g++ only");
            "g++"
        };
        let builds: Vec<(String, Vec<&'static str>)> = vec![
            (
                "g++".into(),
                vec!["-O2", "-march=native", "-ffp-contract=fast"],
            ),
            ("g++".into(), vec!["-O1", "-fno-exceptions"]),
            (clang.into(), vec![]),
            (
                clang.into(),
                vec![
                    "-O1",
                    "-fsanitize=address,undefined",
                    "-fno-sanitize-recover=all",
                ],
            ),
        ];
        let binaries: Vec<Result<PathBuf, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = builds
                .iter()
                .map(|(compiler, flags)| scope.spawn(move || build(compiler, flags)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        builds
            .into_iter()
            .zip(binaries)
            .map(|((compiler, flags), binary)| Ok((compiler, flags, binary?)))
            .collect::<Result<_, String>>()
            .map(Some)
    })
}

/// Runs every driver on the cases and requires the line Rust computed for each;
/// `IDLC_CPP_RUNTIME_DUMP=FILE` writes their input to FILE (with `suffix`).
fn check_cases(cases: &[(String, String)], suffix: &str) {
    let drivers = match drivers() {
        Ok(Some(drivers)) => drivers,
        Ok(None) => return,
        Err(e) => panic!("{e}"),
    };
    let mut input = String::new();
    for (line, _) in cases {
        input.push_str(line);
        input.push('\n');
    }
    if let Some(path) = std::env::var_os("IDLC_CPP_RUNTIME_DUMP") {
        // For debugging a mismatch by hand: `driver < $IDLC_CPP_RUNTIME_DUMP`.
        let mut path = path;
        path.push(suffix);
        std::fs::write(path, &input).expect("dump written");
    }
    for (compiler, flags, binary) in drivers {
        let got = run(binary, &input);
        assert_eq!(
            got.len(),
            cases.len(),
            "{compiler} {flags:?}: one line per case"
        );
        let mismatches: Vec<String> = cases
            .iter()
            .zip(&got)
            .filter(|((_, expected), got)| expected != *got)
            .take(8)
            .map(|((line, expected), got)| {
                format!("  in:   {line}\n  rust: {expected}\n  c++:  {got}")
            })
            .collect();
        assert!(
            mismatches.is_empty(),
            "{compiler} {flags:?}: the C++ runtime differs from the Rust runtime:\n{}",
            mismatches.join("\n")
        );
    }
}

#[test]
fn cpp_runtime_matches_rust_runtime() {
    check_cases(&cases(), "");
}

#[test]
fn cpp_diff_matches_rust_diff() {
    check_cases(&diff_cases(), ".diff");
}

/// `x/y/z/w`: a quaternion's f32 bit patterns in hex, as the driver reads and prints them.
fn quaternion_text(q: &Quaternion) -> String {
    let [x, y, z, w] = q.to_array().map(f32::to_bits);
    format!("{x:08x}/{y:08x}/{z:08x}/{w:08x}")
}

/// What the driver prints for a read (`with_diff` false) or a read_diff of `bytes`.
fn quaternion_read<'a, R: WireRead<'a>>(
    rule: SmallestThree,
    tiers: &[u32],
    reference: Option<&idlc_runtime::SmallestThreeCode>,
    bytes: &'a [u8],
    with_diff: bool,
) -> String {
    let mut r = R::from_bytes(bytes);
    let read = if with_diff {
        rule.read_diff(&mut r, tiers, reference)
    } else {
        rule.read(&mut r)
    };
    match read {
        Ok(q) => format!("OK {} {}", quaternion_text(&q), r.bits_read()),
        Err(e) => format!("ERR {:?} {}", e.kind, e.bit_offset),
    }
}

/// A `K` case's answer and the bytes of its two writes.
fn quaternion_write<'a, W: WireWrite, R: WireRead<'a>>(
    rule: SmallestThree,
    tiers: &[u32],
    q: &Quaternion,
    reference: Option<&idlc_runtime::SmallestThreeCode>,
    store: &'a mut [Vec<u8>; 2],
) -> String {
    let mut out = match rule.encode(q) {
        Ok(c) => format!("{}/{}/{}/{}", c.index, c.steps[0], c.steps[1], c.steps[2]),
        Err(kind) => format!("ERR {kind:?}"),
    };
    let text = |result: Result<(), EncodeError>, bytes: &[u8]| match result {
        Ok(()) => format!("OK {}", hex(bytes)),
        Err(e) => format!("ERR {:?} {}", e.kind, e.bit_offset),
    };
    let mut w = W::default();
    let full = rule.write(&mut w, q);
    store[0] = w.finish().to_vec();
    write!(out, " W {}", text(full, &store[0])).unwrap();
    let mut w = W::default();
    let delta = rule.write_diff(&mut w, tiers, q, reference);
    store[1] = w.finish().to_vec();
    write!(out, " D {}", text(delta, &store[1])).unwrap();
    let [full, delta] = &*store;
    write!(
        out,
        " R {} RD {}",
        quaternion_read::<R>(rule, tiers, reference, full, false),
        quaternion_read::<R>(rule, tiers, reference, delta, true)
    )
    .unwrap();
    out
}

impl Gen {
    /// A quaternion: usually a unit one, sometimes two or four components of one size, near
    /// unit length or far from it, a NaN or an infinity; near `near` when given.
    fn quaternion(&mut self, near: Option<&Quaternion>) -> Quaternion {
        let unit = |c: [f64; 4]| {
            let length = c.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-12);
            Quaternion::from_array(c.map(|v| (v / length) as f32))
        };
        if let Some(near) = near.filter(|_| self.chance(0.6)) {
            let scale = [1e-4, 1e-3, 1e-2][self.rng.random_range(0..3)];
            let c = near
                .to_array()
                .map(|v| f64::from(v) + self.rng.random_range(-scale..scale));
            return unit(c);
        }
        match self.below(10) {
            0 => {
                let h = self.rng.random_range(0.3..0.7072f64);
                let i = self.rng.random_range(0..4usize);
                let j = (i + self.rng.random_range(1..4usize)) % 4;
                let mut c = [0.0; 4].map(|_: f64| self.rng.random_range(-0.3..0.3));
                c[i] = h;
                c[j] = if self.chance(0.5) { h } else { -h };
                unit(c)
            }
            1 => Quaternion::new(0.5, -0.5, 0.5, 0.5),
            2 => {
                let mut q = unit([0.0; 4].map(|_: f64| self.rng.random_range(-1.0..1.0)));
                let s = [1.0004f32, 1.01, 0.0, 0.9996][self.rng.random_range(0..4)];
                q = Quaternion::from_array(q.to_array().map(|v| v * s));
                q
            }
            3 => Quaternion::new(f32::NAN, 0.0, 0.0, 1.0),
            4 => Quaternion::new(0.0, f32::INFINITY, 0.0, 0.0),
            _ => unit([0.0; 4].map(|_: f64| self.rng.random_range(-1.0..1.0))),
        }
    }
}

fn smallest_three_cases() -> Vec<(String, String)> {
    let mut g = Gen {
        rng: ChaCha8Rng::seed_from_u64(0x5e3),
    };
    let mut cases = Vec::new();
    for _ in 0..3000 {
        let bits = if g.chance(0.02) {
            [1, 25][g.rng.random_range(0..2)]
        } else if g.chance(0.5) {
            9
        } else {
            g.rng.random_range(2..=24)
        };
        let rule = SmallestThree::new(bits);
        let tiers: Vec<u32> = (0..g.rng.random_range(1..=3))
            .map(|_| g.rng.random_range(1..=bits.clamp(1, 24)))
            .collect();
        let tiers_text = tiers
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("/");
        let base = g.quaternion(None);
        let with_base = g.chance(0.9);
        let reference = rule.reference(&base).filter(|_| with_base);
        let base_text = if with_base {
            quaternion_text(&base)
        } else {
            "-".into()
        };
        let q = g.quaternion(Some(&base));
        let stream = if g.chance(0.5) { "bit" } else { "byte" };
        let mut store = [Vec::new(), Vec::new()];
        let answer = if stream == "bit" {
            quaternion_write::<BitWriter, BitReader>(
                rule,
                &tiers,
                &q,
                reference.as_ref(),
                &mut store,
            )
        } else {
            quaternion_write::<ByteWriter, ByteReader>(
                rule,
                &tiers,
                &q,
                reference.as_ref(),
                &mut store,
            )
        };
        let head = format!("{stream} {bits} {tiers_text}");
        cases.push((
            format!("K {head} {} {base_text}", quaternion_text(&q)),
            answer,
        ));
        let [full, delta] = store;
        for bytes in [g.mutate(&full), g.mutate(&delta), g.bytes(12), full, delta] {
            let read = |with_diff| {
                if stream == "bit" {
                    quaternion_read::<BitReader>(
                        rule,
                        &tiers,
                        reference.as_ref(),
                        &bytes,
                        with_diff,
                    )
                } else {
                    quaternion_read::<ByteReader>(
                        rule,
                        &tiers,
                        reference.as_ref(),
                        &bytes,
                        with_diff,
                    )
                }
            };
            cases.push((
                format!("L {head} {base_text} {}", hex(&bytes)),
                format!("{} {}", read(false), read(true)),
            ));
        }
    }
    cases
}

#[test]
fn cpp_smallest_three_matches_rust() {
    check_cases(&smallest_three_cases(), ".quat");
}
