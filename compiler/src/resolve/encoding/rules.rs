//! Wire rules: what a rule written in an Encoding means for a type, the built-in defaults,
//! BYTESTREAM widths, fixed points, VLQs and Huffman codes. Pure computations: problems come
//! back as [`Problem`]s that the caller turns into diagnostics.

use crate::diagnostics::codes;
use crate::diagnostics::suggest::did_you_mean;
use crate::front::common::{NumberValue, Primitive};
use crate::front::enc::ast::{Rule, RuleKind};
use crate::front::span::{Ident, Span};
use crate::ir::{EnumDef, Style, Type, VlqMapping, WireRule, bits_required};

/// Payload bits per VLQ group when `VLQ` has no `(n)`, and always in a BYTESTREAM.
pub const VLQ_DEFAULT_GROUP: u32 = 7;

/// A rule whose parameters were checked on their own (before knowing the field).
#[derive(Debug, Clone, PartialEq)]
pub enum Params {
    /// `VLQ(n)`.
    Vlq {
        /// Payload bits per group, 1..=32.
        group_bits: u32,
    },
    /// `BIT(n)`, n in 1..=64.
    Bit(u32),
    /// `FIXED_POINT(r)`, r finite and > 0.
    FixedPoint(f64),
    /// `BOOL`, `UINT8` .. `INT64`, `FLOAT32`, `FLOAT64`.
    Primitive(Primitive),
    /// `SEQUENCE<Name>`.
    Sequence(Ident),
    /// `HUFFMAN(name = weight, ...)`: names distinct, weights finite and > 0.
    Huffman(Vec<(Ident, f64)>),
    /// `SMALLEST_THREE(n)`, n in 2..=24.
    SmallestThree(u32),
}

/// Something wrong with a rule (boxed: it travels in `Err`s).
pub type Problem = Box<ProblemInfo>;

/// Something wrong with a rule, reported at the rule (or at `at`, a span inside the same file).
#[derive(Debug, Clone, PartialEq)]
pub struct ProblemInfo {
    /// The diagnostic code.
    pub code: &'static str,
    /// The headline.
    pub message: String,
    /// The primary label's text.
    pub label: String,
    /// A more precise primary span than the rule's, in the same file.
    pub at: Option<Span>,
    /// Secondary labels in the same file.
    pub others: Vec<(Span, String)>,
    /// How to fix it.
    pub notes: Vec<String>,
}

impl ProblemInfo {
    /// A problem with one note.
    pub fn new(code: &'static str, message: String, label: String, note: String) -> Problem {
        Box::new(ProblemInfo {
            code,
            message,
            label,
            at: None,
            others: Vec::new(),
            notes: vec![note],
        })
    }
}

/// A DEFAULTS category: the kind of value a default rule applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// `INT`: ranged integers `INT[a,b]`.
    Int,
    /// `UINT8` .. `UINT64`.
    Uint(u8),
    /// `INT8` .. `INT64`.
    IntN(u8),
    /// `FLOAT32`.
    Float32,
    /// `FLOAT64`.
    Float64,
    /// `NUMERIC`.
    Numeric,
    /// `ENUM`: every enum.
    Enum,
    /// `BOOL`.
    Bool,
    /// `SEQUENCE`: the count rule.
    Sequence,
    /// `STRING`: the length rule.
    String,
    /// `BYTES`: the length rule.
    Bytes,
    /// `QUATERNION`.
    Quaternion,
}

/// How the categories are written, in the order the notes list them.
#[rustfmt::skip]
pub const CATEGORY_NAMES: &[&str] = &[
    "INT", "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32", "INT64", "FLOAT32",
    "FLOAT64", "NUMERIC", "ENUM", "BOOL", "SEQUENCE", "STRING", "BYTES", "QUATERNION",
];

impl Category {
    /// The category written `name`.
    pub fn parse(name: &str) -> Option<Category> {
        Some(match name {
            "INT" => Category::Int,
            "UINT8" => Category::Uint(8),
            "UINT16" => Category::Uint(16),
            "UINT32" => Category::Uint(32),
            "UINT64" => Category::Uint(64),
            "INT8" => Category::IntN(8),
            "INT16" => Category::IntN(16),
            "INT32" => Category::IntN(32),
            "INT64" => Category::IntN(64),
            "FLOAT32" => Category::Float32,
            "FLOAT64" => Category::Float64,
            "NUMERIC" => Category::Numeric,
            "ENUM" => Category::Enum,
            "BOOL" => Category::Bool,
            "SEQUENCE" => Category::Sequence,
            "STRING" => Category::String,
            "BYTES" => Category::Bytes,
            "QUATERNION" => Category::Quaternion,
            _ => return None,
        })
    }

    /// The category of a value of type `ty`; none for ARRAY, OPTIONAL and structs, whose parts
    /// have categories of their own.
    pub fn of(ty: &Type) -> Option<Category> {
        Some(match ty {
            Type::Bool => Category::Bool,
            Type::Uint(bits) => Category::Uint(*bits),
            Type::Int(bits) => Category::IntN(*bits),
            Type::Float32 => Category::Float32,
            Type::Float64 => Category::Float64,
            Type::IntRange { .. } => Category::Int,
            Type::Numeric { .. } => Category::Numeric,
            Type::String { .. } => Category::String,
            Type::Bytes { .. } => Category::Bytes,
            Type::Sequence { .. } => Category::Sequence,
            Type::Enum(_) => Category::Enum,
            Type::Quaternion => Category::Quaternion,
            Type::Array { .. } | Type::Optional(_) | Type::Struct(_) => return None,
        })
    }

    /// Whether a rule may be this category's default (the field-independent part of the check).
    pub fn accepts(self, params: &Params) -> bool {
        let integer = |p: &Primitive| int_primitive(*p).is_some();
        let unsigned = |p: &Primitive| matches!(int_primitive(*p), Some((_, false)));
        match (self, params) {
            (Category::Int | Category::Uint(_) | Category::IntN(_), Params::Primitive(p)) => {
                integer(p)
            }
            (Category::Int | Category::Uint(_) | Category::IntN(_), p) => {
                matches!(p, Params::Vlq { .. } | Params::Bit(_))
            }
            (Category::Numeric, p) => matches!(
                p,
                Params::FixedPoint(_) | Params::Primitive(Primitive::Float32 | Primitive::Float64)
            ),
            (Category::Float32 | Category::Float64, p) => matches!(
                p,
                Params::Primitive(Primitive::Float32 | Primitive::Float64)
            ),
            (Category::Enum, Params::Primitive(p)) => unsigned(p),
            (Category::Enum, p) => {
                matches!(p, Params::Vlq { .. } | Params::Bit(_) | Params::Huffman(_))
            }
            (Category::Bool, p) => matches!(p, Params::Bit(_) | Params::Primitive(Primitive::Bool)),
            (Category::Sequence | Category::String | Category::Bytes, Params::Primitive(p)) => {
                unsigned(p)
            }
            (Category::Sequence | Category::String | Category::Bytes, p) => {
                matches!(p, Params::Vlq { .. } | Params::Bit(_))
            }
            (Category::Quaternion, p) => matches!(p, Params::SmallestThree(_)),
        }
    }

    /// The rules this category takes, for notes.
    pub fn allowed(self) -> &'static str {
        match self {
            Category::Int | Category::Uint(_) | Category::IntN(_) => INTEGER_RULES,
            Category::Numeric => NUMERIC_RULES,
            Category::Float32 | Category::Float64 => FLOAT_RULES,
            Category::Enum => ENUM_RULES,
            Category::Bool => BOOL_RULES,
            Category::Sequence | Category::String | Category::Bytes => LENGTH_RULES,
            Category::Quaternion => QUATERNION_RULES,
        }
    }
}

const INTEGER_RULES: &str =
    "an integer takes BIT(n), VLQ, VLQ(n) or UINT8..INT64 (if its range fits)";
const NUMERIC_RULES: &str = "a NUMERIC takes FIXED_POINT(resolution), FLOAT32 or FLOAT64";
const FLOAT_RULES: &str = "a FLOAT32 or FLOAT64 takes FLOAT32 or FLOAT64";
const ENUM_RULES: &str =
    "an enum takes BIT(n), VLQ, UINT8..UINT64 or HUFFMAN(enumerator = weight, ...)";
const BOOL_RULES: &str = "a BOOL takes BIT(n) or BOOL";
const LENGTH_RULES: &str = "the count of a SEQUENCE and the length of a STRING or BYTES take BIT(n), VLQ, VLQ(n) or UINT8..UINT64";
const QUATERNION_RULES: &str =
    "a QUATERNION takes SMALLEST_THREE(n), n from 2 to 24 (without a rule: four FLOAT32s)";
const STRUCT_RULES: &str = "a struct field takes no rule (DELTA alone is fine): the struct's fields are encoded by its own block, `ENCODING(E) STRUCT Name { ... }`";

/// `(bits, signed)` of an integer primitive.
pub fn int_primitive(p: Primitive) -> Option<(u32, bool)> {
    Some(match p {
        Primitive::Uint8 => (8, false),
        Primitive::Uint16 => (16, false),
        Primitive::Uint32 => (32, false),
        Primitive::Uint64 => (64, false),
        Primitive::Int8 => (8, true),
        Primitive::Int16 => (16, true),
        Primitive::Int32 => (32, true),
        Primitive::Int64 => (64, true),
        Primitive::Bool | Primitive::Float32 | Primitive::Float64 => return None,
    })
}

/// The inclusive range of an integer of `bits` bits.
pub fn int_bounds(bits: u32, signed: bool) -> (i128, i128) {
    let bits = bits.clamp(1, 64);
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn primitive_name(p: Primitive) -> &'static str {
    match p {
        Primitive::Bool => "BOOL",
        Primitive::Uint8 => "UINT8",
        Primitive::Uint16 => "UINT16",
        Primitive::Uint32 => "UINT32",
        Primitive::Uint64 => "UINT64",
        Primitive::Int8 => "INT8",
        Primitive::Int16 => "INT16",
        Primitive::Int32 => "INT32",
        Primitive::Int64 => "INT64",
        Primitive::Float32 => "FLOAT32",
        Primitive::Float64 => "FLOAT64",
    }
}

/// How a rule is written, for messages.
pub fn describe(params: &Params) -> String {
    match params {
        Params::Vlq { group_bits } => format!("VLQ({group_bits})"),
        Params::Bit(n) => format!("BIT({n})"),
        Params::FixedPoint(r) => format!("FIXED_POINT({})", crate::ir::real_text(*r)),
        Params::Primitive(p) => primitive_name(*p).to_string(),
        Params::Sequence(name) => format!("SEQUENCE<{}>", name.name),
        Params::Huffman(_) => "HUFFMAN".to_string(),
        Params::SmallestThree(n) => format!("SMALLEST_THREE({n})"),
    }
}

fn number_f64(value: NumberValue) -> f64 {
    match value {
        NumberValue::Int(v) => v as f64,
        NumberValue::Real(v) => v,
    }
}

/// Checks the parameters of a rule on their own: `VLQ(n)` n in 1..=32, `BIT(n)` n in 1..=64,
/// `FIXED_POINT(r)` r > 0, HUFFMAN names distinct and weights > 0.
pub fn params(rule: &Rule) -> Result<Params, Problem> {
    let bad = |span: Span, message: String, label: &str, note: &str| {
        let mut problem = ProblemInfo::new(
            codes::ENC_BAD_PARAMETER,
            message,
            label.to_string(),
            note.to_string(),
        );
        problem.at = Some(span);
        problem
    };
    match &rule.kind {
        RuleKind::Vlq(None) => Ok(Params::Vlq {
            group_bits: VLQ_DEFAULT_GROUP,
        }),
        RuleKind::Vlq(Some(n)) => match n.value {
            NumberValue::Int(v @ 1..=32) => Ok(Params::Vlq {
                group_bits: v as u32,
            }),
            _ => Err(bad(
                n.span,
                "VLQ(n) needs 1 to 32 payload bits per group".into(),
                "not in 1..=32",
                "write VLQ for 7-bit groups, or VLQ(n) with n from 1 to 32",
            )),
        },
        RuleKind::Bit(n) => match n.value {
            NumberValue::Int(v @ 1..=64) => Ok(Params::Bit(v as u32)),
            _ => Err(bad(
                n.span,
                "BIT(n) needs 1 to 64 bits".into(),
                "not in 1..=64",
                "the wire holds values of 1 to 64 bits",
            )),
        },
        RuleKind::FixedPoint(r) => {
            let value = number_f64(r.value);
            if value.is_finite() && value > 0.0 {
                Ok(Params::FixedPoint(value))
            } else {
                Err(bad(
                    r.span,
                    "FIXED_POINT needs a resolution greater than 0".into(),
                    "not a positive resolution",
                    "the resolution is the step between two values on the wire, e.g. FIXED_POINT(0.01)",
                ))
            }
        }
        RuleKind::SmallestThree(n) => match n.value {
            NumberValue::Int(v @ 2..=24) => Ok(Params::SmallestThree(v as u32)),
            _ => Err(bad(
                n.span,
                "SMALLEST_THREE(n) needs 2 to 24 bits per component".into(),
                "not in 2..=24",
                "SMALLEST_THREE(9) sends a rotation in 29 bits, within 1.1 degrees; each bit more halves the error",
            )),
        },
        RuleKind::Primitive(p) => Ok(Params::Primitive(*p)),
        RuleKind::Sequence(name) => Ok(Params::Sequence(name.clone())),
        RuleKind::Huffman(weights) => {
            let mut out: Vec<(Ident, f64)> = Vec::with_capacity(weights.len());
            for (name, weight) in weights {
                if let Some((first, _)) = out.iter().find(|(n, _)| n.name == name.name) {
                    let mut problem = ProblemInfo::new(
                        codes::ENC_HUFFMAN_DUPLICATE,
                        format!("HUFFMAN gives `{}` two weights", name.name),
                        "given again".into(),
                        "give every enumerator exactly one weight".into(),
                    );
                    problem.at = Some(name.span);
                    problem.others.push((first.span, "first given here".into()));
                    return Err(problem);
                }
                let value = number_f64(weight.value);
                if !(value.is_finite() && value > 0.0) {
                    return Err(bad(
                        weight.span,
                        format!(
                            "the HUFFMAN weight of `{}` must be greater than 0",
                            name.name
                        ),
                        "not a positive weight",
                        "weights are relative frequencies: a rarer enumerator gets a smaller (but positive) weight and a longer code",
                    ));
                }
                out.push((name.clone(), value));
            }
            Ok(Params::Huffman(out))
        }
    }
}

/// The kind of integer a slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntKind {
    /// `INT[a,b]`.
    Ranged,
    /// `UINTn`.
    Unsigned(u32),
    /// `INTn`.
    Signed(u32),
}

/// One value a rule applies to: the scalar part of a type.
#[derive(Debug, Clone, Copy)]
pub enum Slot<'a> {
    /// An integer in `min..=max`.
    Int {
        /// The smallest value.
        min: i128,
        /// The largest value.
        max: i128,
        /// What kind of integer.
        kind: IntKind,
    },
    /// A NUMERIC in `[min, max]`, `(min, max)` or a half-open range.
    Numeric {
        /// The lower bound.
        min: f64,
        /// The upper bound.
        max: f64,
        /// Whether `min` is in the range.
        min_inclusive: bool,
        /// Whether `max` is in the range.
        max_inclusive: bool,
    },
    /// FLOAT32 (`false`) or FLOAT64 (`true`).
    Float(bool),
    /// An enum; `def` is None if the schema lacks it (already reported by the IDL).
    Enum(Option<&'a EnumDef>),
    /// A BOOL.
    Bool,
    /// The count of a SEQUENCE or the length of a STRING / BYTES, at most `max`.
    Length(Option<u64>),
    /// A QUATERNION.
    Quaternion,
    /// A nested struct.
    Struct(&'a str),
}

impl Slot<'_> {
    /// The rules this slot takes, for notes.
    pub fn allowed(&self) -> &'static str {
        match self {
            Slot::Int { .. } => INTEGER_RULES,
            Slot::Numeric { .. } => NUMERIC_RULES,
            Slot::Float(_) => FLOAT_RULES,
            Slot::Enum(_) => ENUM_RULES,
            Slot::Bool => BOOL_RULES,
            Slot::Length(_) => LENGTH_RULES,
            Slot::Quaternion => QUATERNION_RULES,
            Slot::Struct(_) => STRUCT_RULES,
        }
    }
}

/// The number of enumerators of an enum (0 when unknown).
pub fn enum_count(def: Option<&EnumDef>) -> u32 {
    def.map_or(0, |d| {
        u32::try_from(d.enumerators.len()).unwrap_or(u32::MAX)
    })
}

/// The built-in default rule of a slot (DESIGN.md, "Built-in defaults"), in a bitstream.
pub fn builtin(slot: &Slot<'_>) -> WireRule {
    match *slot {
        Slot::Int { min, max, kind } => match kind {
            IntKind::Ranged => WireRule::Ranged {
                min,
                max,
                bits: bits_required(min, max),
            },
            IntKind::Unsigned(bits) => WireRule::Fixed {
                bits,
                signed: false,
            },
            IntKind::Signed(bits) => WireRule::Fixed { bits, signed: true },
        },
        Slot::Numeric { .. } => WireRule::Float64,
        Slot::Float(false) => WireRule::Float32,
        Slot::Float(true) => WireRule::Float64,
        Slot::Enum(def) => {
            let count = enum_count(def);
            WireRule::EnumIndex {
                count,
                bits: bits_required(0, i128::from(count) - 1),
            }
        }
        Slot::Bool => WireRule::Bool { bits: 1 },
        Slot::Length(Some(max)) => WireRule::Ranged {
            min: 0,
            max: i128::from(max),
            bits: bits_required(0, i128::from(max)),
        },
        Slot::Length(None) => vlq(
            VLQ_DEFAULT_GROUP,
            VlqMapping::Plain,
            0,
            i128::from(u64::MAX),
        ),
        Slot::Quaternion => WireRule::Quaternion,
        Slot::Struct(name) => WireRule::Struct(name.to_string()),
    }
}

/// zigzag(v): 0, -1, 1, -2, ... to 0, 1, 2, 3, ...
fn zigzag(v: i128) -> u128 {
    if v >= 0 {
        (v as u128).saturating_mul(2)
    } else {
        // -(v + 1) is >= 0 and never overflows.
        ((-(v + 1)) as u128).saturating_mul(2).saturating_add(1)
    }
}

/// The largest code a VLQ of `mapping` sends for values in `min..=max`.
pub fn vlq_max_code(mapping: VlqMapping, min: i128, max: i128) -> u128 {
    match mapping {
        VlqMapping::Plain => u128::try_from(max).unwrap_or(0),
        VlqMapping::ZigZag => zigzag(min).max(zigzag(max)),
        VlqMapping::Offset => (max as u128).wrapping_sub(min as u128),
    }
}

/// A VLQ rule with its `max_groups`: enough groups of `group_bits` for the largest code, and
/// at least one (a VLQ always sends one group).
pub fn vlq(group_bits: u32, mapping: VlqMapping, min: i128, max: i128) -> WireRule {
    let group_bits = group_bits.max(1);
    let code = vlq_max_code(mapping, min, max);
    let bits = 128 - code.leading_zeros();
    WireRule::Vlq {
        group_bits,
        mapping,
        max_groups: bits.div_ceil(group_bits).max(1),
        min,
        max,
    }
}

/// Why a FIXED_POINT cannot be computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FixedPointError {
    /// More than [`idlc_runtime::MAX_FIXED_POINT_STEPS`] steps (the number is given).
    TooManySteps(f64),
    /// No step lies inside the range (an open range narrower than the resolution).
    NoStepInside,
}

/// The steps of FIXED_POINT(`resolution`) on a NUMERIC range, decided by the runtime's
/// [`idlc_runtime::FixedPoint`]: the one place the encoder, the decoder and `report` share.
pub fn fixed_point(
    min: f64,
    max: f64,
    resolution: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<idlc_runtime::FixedPoint, FixedPointError> {
    if idlc_runtime::fixed_point_steps(min, max, resolution).is_none() {
        return Err(FixedPointError::TooManySteps((max - min) / resolution));
    }
    idlc_runtime::FixedPoint::with_ends(min, max, resolution, min_inclusive, max_inclusive)
        .ok_or(FixedPointError::NoStepInside)
}

/// The finest power of ten that quantizes `[min, max]` in at most
/// [`idlc_runtime::MAX_FIXED_POINT_STEPS`] steps, written as a literal (`1e-6`).
fn coarsest_power_of_ten(min: f64, max: f64) -> String {
    let finest = (max - min) / idlc_runtime::MAX_FIXED_POINT_STEPS as f64;
    let mut exponent = finest.log10().ceil();
    if !exponent.is_finite() {
        return "1".to_string();
    }
    // Rounding may leave the boundary case one step over.
    if idlc_runtime::fixed_point_steps(min, max, 10f64.powf(exponent)).is_none() {
        exponent += 1.0;
    }
    format!("1e{exponent}")
}

/// Code lengths of a Huffman code for `weights` (deterministic: of two subtrees of equal
/// weight, the one holding the smaller index merges first). One symbol gets length 0.
pub fn huffman_lengths(weights: &[f64]) -> Vec<u32> {
    let mut lengths = vec![0u32; weights.len()];
    // (weight, smallest index in the subtree, the subtree's indices)
    let mut nodes: Vec<(f64, usize, Vec<usize>)> = weights
        .iter()
        .enumerate()
        .map(|(i, w)| (*w, i, vec![i]))
        .collect();
    let smallest = |nodes: &[(f64, usize, Vec<usize>)]| {
        nodes
            .iter()
            .enumerate()
            .min_by(|(_, a), (_, b)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(i, _)| i)
    };
    while nodes.len() > 1 {
        let Some(first) = smallest(&nodes) else { break };
        let a = nodes.swap_remove(first);
        let Some(second) = smallest(&nodes) else {
            break;
        };
        let b = nodes.swap_remove(second);
        for &leaf in a.2.iter().chain(b.2.iter()) {
            if let Some(length) = lengths.get_mut(leaf) {
                *length += 1;
            }
        }
        let mut leaves = a.2;
        leaves.extend(b.2);
        nodes.push((a.0 + b.0, a.1.min(b.1), leaves));
    }
    lengths
}

/// Canonical codes for code `lengths` (shorter first, ties by index), each as (bits, length)
/// with the first bit to write in bit 0. None if a code is longer than 64 bits.
pub fn canonical_codes(lengths: &[u32]) -> Option<Vec<(u64, u32)>> {
    if lengths.iter().any(|&l| l > 64) {
        return None;
    }
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&i| (lengths.get(i).copied().unwrap_or(0), i));
    let mut codes = vec![(0u64, 0u32); lengths.len()];
    let mut code: u128 = 0;
    let mut previous: Option<u32> = None;
    for &i in &order {
        let length = lengths.get(i).copied().unwrap_or(0);
        if let Some(previous) = previous {
            code = (code + 1) << (length - previous);
        }
        previous = Some(length);
        // The canonical code is read most significant bit first; the wire writes bit 0 first.
        let bits = if length == 0 {
            0
        } else {
            (code as u64).reverse_bits() >> (64 - length)
        };
        if let Some(slot) = codes.get_mut(i) {
            *slot = (bits, length);
        }
    }
    Some(codes)
}

/// Applies a checked rule to one slot. `what` names the field for messages (`` `hp` ``), `ty`
/// is the slot's IDL type.
pub fn apply(
    params: &Params,
    slot: &Slot<'_>,
    ty: &Type,
    what: &str,
    style: Style,
) -> Result<WireRule, Problem> {
    let rule = describe(params);
    let desc = ty.describe();
    let mismatch = || {
        ProblemInfo::new(
            codes::ENC_RULE_TYPE_MISMATCH,
            format!("{rule} cannot encode {what}, which is {desc}"),
            format!("not a rule for {desc}"),
            slot.allowed().to_string(),
        )
    };
    let too_narrow = |holds: String, needs: String, fix: String| {
        ProblemInfo::new(
            codes::ENC_RULE_TOO_NARROW,
            format!("{rule} is too narrow for {what}, which is {desc}"),
            format!("{holds}, but {needs}"),
            fix,
        )
    };
    let group = |group_bits: u32| match style {
        Style::Bitstream => group_bits,
        Style::Bytestream => VLQ_DEFAULT_GROUP,
    };
    // BIT(n) and UINTn on an integer range min..=max.
    let bit = |n: u32, min: i128, max: i128| {
        let need = bits_required(min, max);
        if need > n {
            Err(too_narrow(
                format!("{rule} holds {n} bits"),
                format!("{desc} needs {need}"),
                format!("write BIT({need}) or more, or VLQ"),
            ))
        } else {
            Ok(n)
        }
    };
    let fixed = |p: Primitive, min: i128, max: i128| {
        let (bits, signed) = int_primitive(p).ok_or_else(mismatch)?;
        let (lo, hi) = int_bounds(bits, signed);
        if min < lo || max > hi {
            Err(too_narrow(
                format!("{rule} holds {lo}..={hi}"),
                format!("{desc} holds {min}..={max}"),
                format!(
                    "write BIT({}) or VLQ, or a wider integer rule",
                    bits_required(min, max)
                ),
            ))
        } else {
            Ok(WireRule::Fixed { bits, signed })
        }
    };
    match (*slot, params) {
        (Slot::Int { min, max, kind }, Params::Vlq { group_bits }) => {
            let mapping = match kind {
                IntKind::Ranged if min < 0 && max <= i128::from(i64::MAX) => VlqMapping::ZigZag,
                IntKind::Ranged => VlqMapping::Offset,
                IntKind::Unsigned(_) => VlqMapping::Plain,
                IntKind::Signed(_) => VlqMapping::ZigZag,
            };
            Ok(vlq(group(*group_bits), mapping, min, max))
        }
        (Slot::Int { min, max, .. }, Params::Bit(n)) => {
            bit(*n, min, max).map(|bits| WireRule::Ranged { min, max, bits })
        }
        (Slot::Int { min, max, .. }, Params::Primitive(p)) => fixed(*p, min, max),
        (
            Slot::Numeric {
                min,
                max,
                min_inclusive,
                max_inclusive,
            },
            Params::FixedPoint(resolution),
        ) => match fixed_point(min, max, *resolution, min_inclusive, max_inclusive) {
            Ok(fp) => Ok(WireRule::FixedPoint {
                min,
                max,
                min_inclusive,
                max_inclusive,
                resolution: *resolution,
                first: fp.first(),
                steps: fp.steps(),
                bits: fp.bits(),
            }),
            Err(FixedPointError::TooManySteps(_)) if !(max - min).is_finite() => {
                Err(ProblemInfo::new(
                    codes::ENC_FIXED_POINT_TOO_FINE,
                    format!("{rule} cannot step through {what}, which is {desc}"),
                    "the range is wider than an f64 holds: its width overflows to infinity"
                        .to_string(),
                    "narrow the range, or send it as FLOAT64".to_string(),
                ))
            }
            Err(FixedPointError::TooManySteps(steps)) => Err(ProblemInfo::new(
                codes::ENC_FIXED_POINT_TOO_FINE,
                format!("{rule} is too fine for {what}, which is {desc}"),
                format!(
                    "{steps:e} steps: more than 2^53 (an f64 holds every step exactly only up to there)"
                ),
                format!(
                    "choose FIXED_POINT({}) or coarser",
                    coarsest_power_of_ten(min, max)
                ),
            )),
            Err(FixedPointError::NoStepInside) => Err(ProblemInfo::new(
                codes::ENC_BAD_PARAMETER,
                format!("{rule} has no step inside {what}, which is {desc}"),
                "every step of this resolution lies outside the range".to_string(),
                "choose a finer FIXED_POINT".to_string(),
            )),
        },
        (Slot::Numeric { .. } | Slot::Float(_), Params::Primitive(Primitive::Float32)) => {
            Ok(WireRule::Float32)
        }
        (Slot::Numeric { .. } | Slot::Float(_), Params::Primitive(Primitive::Float64)) => {
            Ok(WireRule::Float64)
        }
        (Slot::Enum(def), Params::Vlq { group_bits }) => {
            let last = i128::from(enum_count(def)) - 1;
            Ok(vlq(group(*group_bits), VlqMapping::Plain, 0, last.max(0)))
        }
        (Slot::Enum(def), Params::Bit(n)) => {
            let count = enum_count(def);
            bit(*n, 0, i128::from(count) - 1).map(|bits| WireRule::EnumIndex { count, bits })
        }
        (Slot::Enum(def), Params::Primitive(p))
            if matches!(int_primitive(*p), Some((_, false))) =>
        {
            let count = enum_count(def);
            match fixed(*p, 0, i128::from(count) - 1)? {
                WireRule::Fixed { bits, .. } => Ok(WireRule::EnumIndex { count, bits }),
                _ => Err(mismatch()),
            }
        }
        (Slot::Enum(def), Params::Huffman(weights)) => {
            if style == Style::Bytestream {
                return Err(ProblemInfo::new(
                    codes::ENC_HUFFMAN_BYTESTREAM,
                    format!("HUFFMAN cannot encode {what} in a BYTESTREAM"),
                    "a bit-level code".into(),
                    "a BYTESTREAM sends whole bytes: use UINT8 or BIT(n) here, or make the encoding a BITSTREAM".into(),
                ));
            }
            huffman(def, weights, what)
        }
        (Slot::Quaternion, Params::SmallestThree(bits)) => {
            Ok(WireRule::SmallestThree { bits: *bits })
        }
        (Slot::Bool, Params::Bit(n)) => Ok(WireRule::Bool { bits: *n }),
        (Slot::Bool, Params::Primitive(Primitive::Bool)) => Ok(WireRule::Bool { bits: 1 }),
        (Slot::Length(max), Params::Vlq { group_bits }) => Ok(vlq(
            group(*group_bits),
            VlqMapping::Plain,
            0,
            i128::from(max.unwrap_or(u64::MAX)),
        )),
        (Slot::Length(max), Params::Bit(n)) => {
            let max = i128::from(max.unwrap_or(u64::MAX));
            bit(*n, 0, max).map(|bits| WireRule::Ranged { min: 0, max, bits })
        }
        (Slot::Length(max), Params::Primitive(p))
            if matches!(int_primitive(*p), Some((_, false))) =>
        {
            fixed(*p, 0, i128::from(max.unwrap_or(u64::MAX)))
        }
        _ => Err(mismatch()),
    }
}

/// The Huffman code of an enum from HUFFMAN weights: every enumerator needs exactly one weight.
fn huffman(
    def: Option<&EnumDef>,
    weights: &[(Ident, f64)],
    what: &str,
) -> Result<WireRule, Problem> {
    let Some(def) = def else {
        // The enum itself failed to resolve (reported by the IDL); nothing to check against.
        return Ok(WireRule::Huffman { codes: Vec::new() });
    };
    let mut by_index: Vec<Option<f64>> = vec![None; def.enumerators.len()];
    for (name, weight) in weights {
        match def.enumerators.iter().position(|e| e.name == name.name) {
            Some(index) => {
                if let Some(slot) = by_index.get_mut(index) {
                    *slot = Some(*weight);
                }
            }
            None => {
                let mut problem = ProblemInfo::new(
                    codes::ENC_HUFFMAN_UNKNOWN_ENUMERATOR,
                    format!("`{}` is not an enumerator of `{}`", name.name, def.name),
                    format!("not in `{}`", def.name),
                    format!(
                        "the enumerators of `{}` are {}",
                        def.name,
                        list(def.enumerators.iter().map(|e| e.name.as_str()))
                    ),
                );
                problem.at = Some(name.span);
                if let Some(note) =
                    did_you_mean(&name.name, def.enumerators.iter().map(|e| e.name.as_str()))
                {
                    problem.notes.insert(0, note);
                }
                return Err(problem);
            }
        }
    }
    let missing: Vec<&str> = def
        .enumerators
        .iter()
        .zip(&by_index)
        .filter(|(_, w)| w.is_none())
        .map(|(e, _)| e.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(ProblemInfo::new(
            codes::ENC_HUFFMAN_MISSING_WEIGHT,
            format!(
                "HUFFMAN for {what} gives no weight to {}",
                list(missing.iter().copied())
            ),
            "every enumerator needs a weight".into(),
            format!(
                "add {} to the HUFFMAN list; an enumerator that is rarely sent gets a small weight",
                missing
                    .iter()
                    .map(|m| format!("`{m} = 1`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    let weights: Vec<f64> = by_index.into_iter().map(|w| w.unwrap_or(1.0)).collect();
    match canonical_codes(&huffman_lengths(&weights)) {
        Some(codes) => Ok(WireRule::Huffman { codes }),
        None => Err(ProblemInfo::new(
            codes::ENC_HUFFMAN_CODE_TOO_LONG,
            format!("HUFFMAN for {what} gives a code longer than 64 bits"),
            "weights too skewed".into(),
            "make the smallest weights larger: no code may exceed 64 bits".into(),
        )),
    }
}

/// `` `a`, `b` and `c` ``.
pub fn list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The smallest of 8, 16, 32, 64 bits that holds `bits` (0 stays 0: nothing is sent).
pub fn round_to_bytes(bits: u32) -> u32 {
    match bits {
        0 => 0,
        1..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        33..=64 => 64,
        more => more.div_ceil(8) * 8,
    }
}

/// A rule with every width rounded up to whole bytes, as a BYTESTREAM sends it.
pub fn to_bytestream(rule: WireRule) -> WireRule {
    match rule {
        WireRule::Bool { bits } => WireRule::Bool {
            bits: round_to_bytes(bits.max(1)),
        },
        WireRule::Ranged { min, max, bits } => WireRule::Ranged {
            min,
            max,
            bits: round_to_bytes(bits),
        },
        WireRule::Fixed { bits, signed } => WireRule::Fixed {
            bits: bits.div_ceil(8) * 8,
            signed,
        },
        WireRule::Vlq {
            mapping, min, max, ..
        } => vlq(VLQ_DEFAULT_GROUP, mapping, min, max),
        WireRule::EnumIndex { count, bits } => WireRule::EnumIndex {
            count,
            bits: round_to_bytes(bits),
        },
        WireRule::FixedPoint {
            bits,
            min,
            max,
            min_inclusive,
            max_inclusive,
            resolution,
            first,
            steps,
        } => WireRule::FixedPoint {
            min,
            max,
            min_inclusive,
            max_inclusive,
            resolution,
            first,
            steps,
            bits: round_to_bytes(bits),
        },
        WireRule::Bytes { length, utf8, max } => WireRule::Bytes {
            length: Box::new(to_bytestream(*length)),
            utf8,
            max,
        },
        WireRule::Sequence {
            count,
            max,
            element,
            element_delta,
        } => WireRule::Sequence {
            count: Box::new(to_bytestream(*count)),
            max,
            element: Box::new(to_bytestream(*element)),
            element_delta,
        },
        WireRule::Array { len, element } => WireRule::Array {
            len,
            element: Box::new(to_bytestream(*element)),
        },
        WireRule::Optional(inner) => WireRule::Optional(Box::new(to_bytestream(*inner))),
        other @ (WireRule::Huffman { .. }
        | WireRule::Float32
        | WireRule::Float64
        | WireRule::Quaternion
        | WireRule::SmallestThree { .. }
        | WireRule::Struct(_)) => other,
    }
}

/// The slot of the scalar part of `ty` (OPTIONAL and ARRAY: their element's; SEQUENCE, STRING,
/// BYTES: their count or length).
pub fn slot_of<'a>(ty: &'a Type, schema: &'a crate::ir::Schema) -> Slot<'a> {
    match ty {
        Type::Bool => Slot::Bool,
        Type::Uint(bits) => {
            let (min, max) = int_bounds(u32::from(*bits), false);
            Slot::Int {
                min,
                max,
                kind: IntKind::Unsigned(u32::from(*bits)),
            }
        }
        Type::Int(bits) => {
            let (min, max) = int_bounds(u32::from(*bits), true);
            Slot::Int {
                min,
                max,
                kind: IntKind::Signed(u32::from(*bits)),
            }
        }
        Type::Float32 => Slot::Float(false),
        Type::Float64 => Slot::Float(true),
        Type::IntRange { min, max } => Slot::Int {
            min: *min,
            max: *max,
            kind: IntKind::Ranged,
        },
        Type::Numeric {
            min,
            max,
            min_inclusive,
            max_inclusive,
        } => Slot::Numeric {
            min: *min,
            max: *max,
            min_inclusive: *min_inclusive,
            max_inclusive: *max_inclusive,
        },
        Type::String { max } | Type::Bytes { max } | Type::Sequence { max, .. } => {
            Slot::Length(*max)
        }
        Type::Array { element, .. } => slot_of(element, schema),
        Type::Optional(inner) => slot_of(inner, schema),
        Type::Struct(name) => Slot::Struct(name),
        Type::Enum(name) => Slot::Enum(schema.enums.get(name)),
        Type::Quaternion => Slot::Quaternion,
    }
}
