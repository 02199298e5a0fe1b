//! Seeded random values of any type of the IR, inside every IDL range: for differential tests
//! of generated code against the interpreter, and for crossing versions.

use indexmap::IndexMap;

use super::Value;
use crate::ir::{Ir, Type};

/// A small, deterministic random number generator (SplitMix64): the same seed gives the same
/// values on every platform.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    /// A real in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
}

/// How deep a random value nests before sequences come out empty and optionals absent.
const MAX_DEPTH: u32 = 3;

/// A random value of the struct `name` (every field, each inside its IDL range; fields widened
/// by EXTEND in their newest type). `None` if there is no such struct.
pub fn random_struct(ir: &Ir, name: &str, rng: &mut Rng) -> Option<Value> {
    ir.schema.structs.get(name)?;
    Some(random_value(ir, &Type::Struct(name.to_string()), rng))
}

/// A random value of the IDL type `ty`.
pub fn random_value(ir: &Ir, ty: &Type, rng: &mut Rng) -> Value {
    random_at(ir, ty, rng, 0)
}

fn random_int(rng: &mut Rng, min: i128, max: i128) -> i128 {
    if max <= min {
        return min;
    }
    match rng.below(6) {
        0 => min,
        1 => max,
        2 => {
            // A small value, where most real values are.
            let span = (max - min).min(100);
            min + i128::from(rng.below(u64::try_from(span).unwrap_or(100) + 1))
        }
        _ => {
            let span = u128::try_from(max - min).unwrap_or(u128::MAX);
            let r = (u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()))
                % span.saturating_add(1).max(1);
            min + i128::try_from(r).unwrap_or(0)
        }
    }
}

fn random_real(rng: &mut Rng, min: f64, max: f64, min_inclusive: bool, max_inclusive: bool) -> f64 {
    let (lo, hi) = (min.max(-1e9), max.min(1e9));
    let admits = |v: f64| {
        (if min_inclusive { v >= min } else { v > min })
            && (if max_inclusive { v <= max } else { v < max })
    };
    for _ in 0..8 {
        let v = match rng.below(8) {
            0 => lo,
            1 => hi,
            _ => lo + rng.unit() * (hi - lo),
        };
        if admits(v) {
            return v;
        }
    }
    lo + (hi - lo) / 2.0
}

const CHARS: &[char] = &['a', 'z', 'Q', '0', ' ', '_', 'é', '€', '😀', 'ß'];

fn random_at(ir: &Ir, ty: &Type, rng: &mut Rng, depth: u32) -> Value {
    match ty {
        Type::Bool => Value::Bool(rng.one_in(2)),
        Type::Uint(_) | Type::Int(_) | Type::IntRange { .. } => {
            let (min, max) = ty.int_range().unwrap_or((0, 0));
            Value::Int(random_int(rng, min, max))
        }
        Type::Float32 => {
            let v = match rng.below(10) {
                0 => -0.0,
                1 => f32::MAX,
                2 => f32::MIN_POSITIVE / 2.0,
                _ => (rng.unit() as f32 - 0.5) * 2000.0,
            };
            Value::Float(f64::from(v))
        }
        Type::Quaternion => {
            // A rotation about a random axis by a random angle: a unit quaternion.
            let axis = [rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5];
            let length = axis.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-9);
            let half = rng.unit() * std::f64::consts::PI;
            let [x, y, z] = axis.map(|v| (v / length * half.sin()) as f32);
            let q = idlc_runtime::Quaternion::new(x, y, z, half.cos() as f32);
            super::quat::value_of(&q)
        }
        Type::Float64 => Value::Float(match rng.below(10) {
            0 => -0.0,
            1 => f64::MAX,
            _ => (rng.unit() - 0.5) * 1e6,
        }),
        Type::Numeric {
            min,
            max,
            min_inclusive,
            max_inclusive,
        } => Value::Float(random_real(rng, *min, *max, *min_inclusive, *max_inclusive)),
        Type::String { max } => {
            let limit = max.unwrap_or(40).min(24);
            let target = rng.below(limit + 1);
            let mut text = String::new();
            for _ in 0..target {
                let pick = usize::try_from(rng.below(CHARS.len() as u64)).unwrap_or(0);
                let c = CHARS.get(pick).copied().unwrap_or('a');
                if (text.len() + c.len_utf8()) as u64 > limit {
                    break;
                }
                text.push(c);
            }
            Value::Str(text)
        }
        Type::Bytes { max } => {
            let len = rng.below(max.unwrap_or(40).min(24) + 1);
            Value::Bytes((0..len).map(|_| rng.next_u64() as u8).collect())
        }
        Type::Sequence { element, max } => {
            let limit = if depth >= MAX_DEPTH {
                0
            } else {
                max.unwrap_or(6).min(6)
            };
            let len = rng.below(limit + 1);
            Value::List(
                (0..len)
                    .map(|_| random_at(ir, element, rng, depth + 1))
                    .collect(),
            )
        }
        Type::Array { element, len } => Value::List(
            (0..*len)
                .map(|_| random_at(ir, element, rng, depth + 1))
                .collect(),
        ),
        Type::Optional(inner) => {
            if depth >= MAX_DEPTH || rng.one_in(2) {
                Value::Null
            } else if matches!(inner.as_ref(), Type::Optional(_)) {
                // The JSON form of a present OPTIONAL<OPTIONAL<T>>.
                Value::List(vec![random_at(ir, inner, rng, depth + 1)])
            } else {
                random_at(ir, inner, rng, depth + 1)
            }
        }
        Type::Enum(name) => {
            let names: Vec<&str> = ir
                .schema
                .enums
                .get(name)
                .map(|e| e.enumerators.iter().map(|e| e.name.as_str()).collect())
                .unwrap_or_default();
            let pick = usize::try_from(rng.below(names.len() as u64)).unwrap_or(0);
            Value::Enum(names.get(pick).copied().unwrap_or_default().to_string())
        }
        Type::Struct(name) => {
            let mut fields = IndexMap::new();
            if let Some(def) = ir.schema.structs.get(name) {
                for field in def.fields() {
                    let ty = def.current_type(&field.name).unwrap_or(&field.ty);
                    fields.insert(field.name.clone(), random_at(ir, ty, rng, depth + 1));
                }
            }
            Value::Struct(fields)
        }
    }
}
