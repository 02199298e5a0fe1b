//! The encoding part of the IR: the wire layout of every struct in every encoding.

use indexmap::IndexMap;
use serde::Serialize;

use super::Loc;

/// How a stream packs its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Style {
    /// Bits packed LSB-first (WIRE.md "Bits").
    Bitstream,
    /// Every field rounded up to whole bytes: the resolver has already rounded every width in
    /// the [`WireRule`]s of a BYTESTREAM encoding (ranged integers, enum indexes and fixed
    /// points to 8/16/32/64 bits, BOOL to 8 bits, VLQ groups to 7 payload bits).
    Bytestream,
}

/// One named encoding: the wire layout of every struct of the schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Encoding {
    /// The name from `ENCODING(NAME)`, or `Default`.
    pub name: String,
    /// Bit or byte stream.
    pub style: Style,
    /// Every struct of the schema (explicitly encoded or by defaults), in schema order.
    pub structs: IndexMap<String, StructEncoding>,
    /// Where the encoding is first named (`ENCODING(NAME)`), for diagnostics of later stages;
    /// `None` for the built-in `Default`.
    #[serde(skip)]
    pub loc: Option<Loc>,
}

/// The wire layout of one struct in one encoding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructEncoding {
    /// One entry per segment of the struct, in order.
    pub segments: Vec<SegmentEncoding>,
}

/// The items of one segment in wire order.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct SegmentEncoding {
    /// Items in wire order.
    pub items: Vec<WireItem>,
}

/// One item on the wire.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum WireItem {
    /// A field.
    Field(FieldEncoding),
    /// The extension part of an `EXTEND f TO T` (the old slot stays where f is).
    Extend(ExtendEncoding),
    /// `DELTA { ... }`: one changed-bit, then the items if changed.
    DeltaBlock(Vec<WireItem>),
    /// `DEAD_RECKONING(limit) { positions; velocities; }`
    DeadReckoning(DeadReckoning),
    /// Zero bits to the next byte boundary.
    Align,
    /// A 32-bit known value the reader verifies.
    Check,
}

/// How one field is sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldEncoding {
    /// The field's IDL name.
    pub field: String,
    /// Whether a changed-bit precedes the field (DELTA on the field itself).
    pub delta: bool,
    /// `DIFF(b1, ..., bk)`: the tiers, in bits, when a changed value travels as its difference
    /// of steps to a reference (the resolver sets it only on a field with a baseline and a rule
    /// with steps, [`WireRule::diff_steps`]). Full forms ignore it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<Vec<u32>>,
    /// The wire rule.
    pub rule: WireRule,
    /// Where a block of the Encoding files names the field (the whole member); `None` when no
    /// block names it. For diagnostics of later stages (check-compat).
    #[serde(skip)]
    pub loc: Option<Loc>,
    /// Where the Encoding files give its rule: the rule the member writes, else the DEFAULTS
    /// entry of its category (for a container without one, of its element); `None` for a
    /// built-in rule. For diagnostics of later stages (check-compat).
    #[serde(skip)]
    pub rule_loc: Option<Loc>,
}

impl FieldEncoding {
    /// Whether the field is an element-wise `DELTA SEQUENCE`: against a baseline, its count and
    /// only its changed or new elements (the resolver sets `element_delta` only on a field with
    /// its own changed-bit).
    pub fn is_delta_sequence(&self) -> bool {
        self.delta
            && matches!(
                self.rule,
                WireRule::Sequence {
                    element_delta: true,
                    ..
                }
            )
    }
}

/// The extension of a widened field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExtendEncoding {
    /// The widened field.
    pub field: String,
    /// What the extension carries, and so what the old slot holds.
    pub part: ExtensionPart,
    /// The rule of what the extension carries.
    pub rule: WireRule,
}

/// What the extension of a widened field carries (WIRE.md, "Fences and versions").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ExtensionPart {
    /// An unsigned fixed-width widening (`UINT16` to `UINT32`): the old slot holds the low
    /// `low_bits` bits of the value, the extension the bits above them, as an unsigned integer
    /// in `rule` (`WireRule::Fixed` of the difference in width).
    HighBits {
        /// The width of the old type: the bits the old slot holds.
        low_bits: u32,
    },
    /// Any other widening: the old slot holds the value saturated into the old type (an enum:
    /// the index saturated into the old count); the extension carries the whole new value in
    /// `rule`, the encoding's rule for the new type (its DEFAULTS, else the built-in default).
    Whole,
}

/// A dead-reckoning block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeadReckoning {
    /// The largest deviation of the extrapolation before the block is sent.
    pub limit: f64,
    /// Position fields.
    pub positions: Vec<FieldEncoding>,
    /// Velocity fields, one per position, in the same order.
    pub velocities: Vec<FieldEncoding>,
}

/// How a value is represented on the wire, with every width computed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum WireRule {
    /// A BOOL as 0 or 1 in `bits` bits (1 by default, 8 in a BYTESTREAM, n with `BIT(n)`); the
    /// reader rejects any other value.
    Bool {
        /// Bits on the wire.
        bits: u32,
    },
    /// An integer sent as `v - min` in `bits` bits; the reader rejects values above `max - min`.
    Ranged {
        /// The smallest value.
        min: i128,
        /// The largest value.
        max: i128,
        /// Bits on the wire.
        bits: u32,
    },
    /// An integer sent raw in `bits` bits, two's complement when signed (UINT8..INT64 rules).
    Fixed {
        /// Bits on the wire.
        bits: u32,
        /// Whether the value is signed.
        signed: bool,
    },
    /// A variable-length quantity.
    Vlq {
        /// Payload bits per group.
        group_bits: u32,
        /// What is coded: `v - min` of a range, zigzag(v), or v.
        mapping: VlqMapping,
        /// The largest number of groups a valid value needs; a longer VLQ is rejected.
        max_groups: u32,
        /// The inclusive range the decoded value must fall in.
        min: i128,
        /// The inclusive range the decoded value must fall in.
        max: i128,
    },
    /// An enumerator index in `bits` bits.
    EnumIndex {
        /// Number of enumerators.
        count: u32,
        /// Bits on the wire.
        bits: u32,
    },
    /// A static Huffman code for an enum: code of enumerator i is `codes[i]`. The code is
    /// canonical (shorter codes first, ties by enumerator index) and prefix-free.
    Huffman {
        /// Per enumerator index: (code bits, length in bits). Bit 0 of the code is written
        /// first, then bit 1, and so on: write it with one `write_bits(code, length)`.
        codes: Vec<(u64, u32)>,
    },
    /// A NUMERIC quantized to `resolution`: `q = round((v - min) / resolution)`, clamped into
    /// `first..=steps`, in `bits` bits; the steps are those of [`idlc_runtime::FixedPoint`]
    /// (the value of every valid step lies inside the range, open ends excluded).
    FixedPoint {
        /// The lower bound of the range.
        min: f64,
        /// The upper bound of the range.
        max: f64,
        /// Whether `min` is in the range.
        min_inclusive: bool,
        /// Whether `max` is in the range.
        max_inclusive: bool,
        /// The resolution.
        resolution: f64,
        /// The smallest valid q (0 unless the lower end is open).
        first: u64,
        /// The largest valid q.
        steps: u64,
        /// Bits on the wire.
        bits: u32,
    },
    /// IEEE-754 single precision.
    Float32,
    /// IEEE-754 double precision.
    Float64,
    /// Text or bytes: a length, alignment, raw bytes.
    Bytes {
        /// How the length is sent.
        length: Box<WireRule>,
        /// Whether the bytes must be valid UTF-8.
        utf8: bool,
        /// The most bytes allowed.
        max: Option<u64>,
    },
    /// A sequence: a count, then the elements.
    Sequence {
        /// How the count is sent.
        count: Box<WireRule>,
        /// The most elements allowed.
        max: Option<u64>,
        /// How each element is sent.
        element: Box<WireRule>,
        /// `DELTA SEQUENCE<T> f`: against a baseline, the changed-bit is followed by the count and
        /// only the changed or new elements with their index gaps (WIRE.md). Only ever set on
        /// a field that carries its own changed-bit (`FieldEncoding::delta`).
        element_delta: bool,
    },
    /// A fixed number of elements.
    Array {
        /// The element count.
        len: u64,
        /// How each element is sent.
        element: Box<WireRule>,
    },
    /// A presence bit, then the value.
    Optional(Box<WireRule>),
    /// A QUATERNION without a rule: four raw FLOAT32s, x, y, z, w.
    Quaternion,
    /// `SMALLEST_THREE(n)` of a QUATERNION ([`idlc_runtime::SmallestThree`]): the index of
    /// the largest component in 2 bits, the other three in `bits` bits each (WIRE.md).
    SmallestThree {
        /// Bits per component, 2..=24.
        bits: u32,
    },
    /// A nested struct, in the same encoding.
    Struct(String),
}

/// The bits `SMALLEST_THREE(bits)` takes in a stream of `style`: `2 + 3 * bits` in a
/// BITSTREAM; in a BYTESTREAM that rounded to 1, 2, 4 or 8 bytes when it fits 64 bits, else the
/// index with the first component and the other two, each so rounded
/// ([`idlc_runtime::SmallestThree::write`]).
pub fn smallest_three_bits(bits: u32, style: Style) -> u64 {
    let whole = 2 + 3 * bits;
    let rounded = |b: u32| idlc_runtime::byte_width(b) as u64 * 8;
    match style {
        Style::Bitstream => u64::from(whole),
        Style::Bytestream if whole <= 64 => rounded(whole),
        Style::Bytestream => rounded(2 + bits) + rounded(2 * bits),
    }
}

/// Whether both ends of `NUMERIC[min,max]` are `f32` values. When one is not, an `f32` field
/// stands for the real its value is nearest to an end (the runtime's `real_of_f32`) before a
/// FIXED_POINT or FLOAT rule takes it: every backend converts it so.
pub fn ends_are_f32(min: f64, max: f64) -> bool {
    let exact = |end: f64| f64::from(end as f32) == end;
    exact(min) && exact(max)
}

/// The steps a DIFF rule takes differences of (WIRE.md): a FIXED_POINT value's step `q`, an
/// integer's `v - origin`, an enumerator's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DiffSteps {
    /// The integer value of step 0 (an integer rule's `min`; 0 for FIXED_POINT and enums).
    pub origin: i128,
    /// The smallest valid step.
    pub first: u64,
    /// The largest valid step.
    pub last: u64,
    /// Whether the range has an open upper end (an angle in `[0, 360)`): the difference is
    /// taken the shortest way around, modulo the number of steps.
    pub wraps: bool,
}

impl DiffSteps {
    /// The bits a step takes: the width "wider than the field" compares a tier with.
    pub fn bits(&self) -> u32 {
        idlc_runtime::bits_required(0, self.last - self.first).max(1)
    }
}

impl WireRule {
    /// The steps of a rule DIFF can take differences of, for a field of type `ty`: ranged,
    /// fixed-width (over `ty`'s range) and VLQ integers (and enums under them), enum indexes,
    /// FIXED_POINT; SMALLEST_THREE's components. `None` for a rule without integer steps:
    /// BOOL, HUFFMAN, floats, text, bytes, containers, structs.
    pub fn diff_steps(&self, ty: &super::Type) -> Option<DiffSteps> {
        let integer = |min: i128, max: i128| {
            Some(DiffSteps {
                origin: min,
                first: 0,
                last: u64::try_from(max.checked_sub(min)?).ok()?,
                wraps: false,
            })
        };
        match self {
            WireRule::Ranged { min, max, .. } | WireRule::Vlq { min, max, .. } => {
                integer(*min, *max)
            }
            WireRule::Fixed { bits, .. } if (1..=64).contains(bits) => match ty {
                super::Type::Enum(_) => None,
                ty => ty.int_range().and_then(|(min, max)| integer(min, max)),
            },
            WireRule::EnumIndex { count, .. } if *count > 0 => integer(0, i128::from(*count) - 1),
            WireRule::FixedPoint {
                first,
                steps,
                max_inclusive,
                ..
            } => Some(DiffSteps {
                origin: 0,
                first: *first,
                last: *steps,
                wraps: !max_inclusive,
            }),
            // Each of the three components sent: `DELTA DIFF(..) SMALLEST_THREE(n)` takes their
            // differences while the largest component's index stays the same.
            WireRule::SmallestThree { bits } => Some(DiffSteps {
                origin: 0,
                first: 0,
                last: idlc_runtime::SmallestThree::new(*bits).last_step(),
                wraps: false,
            }),
            _ => None,
        }
    }

    /// The quantizer of a FIXED_POINT rule (the steps [`idlc_runtime::FixedPoint`] computes,
    /// as resolve and generated code do); `None` for any other rule.
    pub fn fixed_point(&self) -> Option<idlc_runtime::FixedPoint> {
        match self {
            WireRule::FixedPoint {
                min,
                max,
                min_inclusive,
                max_inclusive,
                resolution,
                ..
            } => idlc_runtime::FixedPoint::with_ends(
                *min,
                *max,
                *resolution,
                *min_inclusive,
                *max_inclusive,
            ),
            _ => None,
        }
    }
}

/// What a VLQ codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum VlqMapping {
    /// The value itself (unsigned types).
    Plain,
    /// zigzag(v) (signed types).
    ZigZag,
    /// `v - min` (ranged integers).
    Offset,
}

/// Whether a length rule is the built-in one (`bits_required(0, max)` bits, else VLQ(7)), which
/// the runtime's string, byte and count helpers write themselves (generated code and the
/// interpreter both call them for it).
pub fn is_default_length(length: &WireRule, max: Option<u64>) -> bool {
    match (length, max) {
        (
            WireRule::Ranged {
                min: 0,
                max: m,
                bits,
            },
            Some(max),
        ) => *m == i128::from(max) && *bits == super::bits_required(0, i128::from(max)),
        (
            WireRule::Vlq {
                group_bits: 7,
                mapping: VlqMapping::Plain | VlqMapping::Offset,
                ..
            },
            None,
        ) => true,
        _ => false,
    }
}

/// The IDL type a length or count bounded by `max` is read and written as, when its rule is
/// not the built-in one ([`is_default_length`]).
pub fn length_type(max: Option<u64>) -> super::Type {
    super::Type::IntRange {
        min: 0,
        max: max.map_or(i128::from(u64::MAX), i128::from),
    }
}

/// The width of a field that generated code may pack with its neighbours into one
/// `write_bits` / `read_bits` word (codegen/pack.rs), or `None`: a bool, a ranged or
/// fixed-width integer, an enum index, a fixed-point step or a FLOAT32 of a NUMERIC range, not
/// boxed, at least one bit wide. The interpreter asks the same question to give a short input
/// the error generated code gives.
pub fn packable_bits(rule: &WireRule, idl: &super::Type, rust: &super::RustType) -> Option<u32> {
    use super::Type;
    if matches!(rust, super::RustType::Boxed(_)) {
        return None;
    }
    // A zero-bit field (min = max) puts nothing in the word; it keeps its own range check.
    let bits = match (rule, idl) {
        (WireRule::Bool { bits: 1 }, Type::Bool) => Some(1),
        (WireRule::Ranged { bits, .. }, _) if idl.int_range().is_some() => Some(*bits),
        (WireRule::EnumIndex { bits, .. }, Type::Enum(_)) => Some(*bits),
        (WireRule::FixedPoint { bits, .. }, Type::Numeric { .. }) => Some(*bits),
        (WireRule::Fixed { bits, .. }, _) if idl.int_range().is_some() => Some(*bits),
        (WireRule::Float32, Type::Numeric { .. }) => Some(32),
        _ => None,
    };
    bits.filter(|&bits| bits > 0)
}
