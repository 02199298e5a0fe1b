//! The abstract syntax tree of an Encoding file: how it is sent.

use crate::front::common::{Literal, Number, TypeExpr};
use crate::front::span::{Ident, Span};
use serde::Serialize;

/// A parsed `.enc` file.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct EncFile {
    /// The `ENCODING(...)` items in source order.
    pub items: Vec<EncItem>,
}

/// One `ENCODING(NAME) ...` item; items with the same name form one encoding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EncItem {
    /// The encoding's name.
    pub encoding: Ident,
    /// What the item says.
    pub body: EncBody,
    /// The whole item.
    pub span: Span,
}

/// What an `ENCODING(NAME)` item says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum EncBody {
    /// `ENCODING(X) BITSTREAM;` or `BYTESTREAM;`
    Style(Style, Span),
    /// `ENCODING(X) DEFAULTS { category: rule; ... }`
    Defaults(Vec<DefaultRule>),
    /// `ENCODING(X) STRUCT Name { ... }` and the other targets.
    Target(Target, Vec<EncMember>),
}

/// The stream style of an encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Style {
    /// Bits packed LSB-first: bandwidth-lean, for clients.
    Bitstream,
    /// Every field rounded up to whole bytes: CPU-lean, for servers.
    Bytestream,
}

/// `category: rule;` inside DEFAULTS.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DefaultRule {
    /// The category as written: `INT`, `NUMERIC`, `ENUM`, `BOOL`, `SEQUENCE`, `STRING`, `UINT8`...
    pub category: Ident,
    /// The rule for fields of that category.
    pub rule: Rule,
    /// The whole line.
    pub span: Span,
}

/// What kind of IDL item an encoding item describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TargetKind {
    /// `STRUCT`.
    Struct,
    /// `PUBLISHABLE_STRUCT`.
    Publishable,
    /// `MESSAGE`.
    Message,
    /// `PROTOCOL`.
    Protocol,
    /// `RPC`.
    Rpc,
}

/// `STRUCT Name` after `ENCODING(X)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Target {
    /// Which keyword.
    pub kind: TargetKind,
    /// The IDL item's name.
    pub name: Ident,
    /// Keyword and name.
    pub span: Span,
}

/// A member of an encoding's target block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum EncMember {
    /// `DELTA? rule? name default?;`
    Field(EncField),
    /// `DELTA { ... }`: one changed-bit for the block.
    Delta(DeltaBlock),
    /// `DEAD_RECKONING(dev) { ... }`
    DeadReckoning(DeadReckoningBlock),
    /// `FENCE`
    Fence(Span),
    /// `EXTEND name TO type;`
    Extend(EncExtend),
    /// `ALIGN;`
    Align(Span),
    /// `CHECK;`
    Check(Span),
}

/// The encoding of one field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EncField {
    /// The span of `DELTA`, if the field is delta-coded on its own.
    pub delta: Option<Span>,
    /// `DIFF(b1, ..., bk)`, if a changed value is sent as its difference to a reference.
    pub diff: Option<DiffTiers>,
    /// The wire rule, if given.
    pub rule: Option<Rule>,
    /// A field name of the target, or (with a warning) the type name of exactly one field.
    pub name: Ident,
    /// `DEFAULT = literal`, restating or adding a field after a FENCE.
    pub default: Option<Literal>,
    /// The whole member.
    pub span: Span,
}

/// `DIFF(b1, ..., bk)`: the tiers, in bits, as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffTiers {
    /// The tiers' widths.
    pub tiers: Vec<Number>,
    /// From `DIFF` to the closing parenthesis.
    pub span: Span,
}

/// `DELTA { ... }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeltaBlock {
    /// The members of the block.
    pub members: Vec<EncMember>,
    /// The whole block.
    pub span: Span,
}

/// `DEAD_RECKONING(dev) { positions; velocities; }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeadReckoningBlock {
    /// The deviation limit, if given.
    pub limit: Option<Number>,
    /// N position fields then N velocity fields.
    pub members: Vec<EncMember>,
    /// The whole block.
    pub span: Span,
}

/// `EXTEND name TO type;`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EncExtend {
    /// The widened field.
    pub field: Ident,
    /// The wider type.
    pub ty: TypeExpr,
    /// The whole member.
    pub span: Span,
}

/// A wire rule with its span.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rule {
    /// Which rule.
    pub kind: RuleKind,
    /// The whole rule.
    pub span: Span,
}

/// The wire rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum RuleKind {
    /// `VLQ` or `VLQ(n)`: n payload bits per group (7 when not given).
    Vlq(Option<Number>),
    /// `BIT(n)`: exactly n bits.
    Bit(Number),
    /// `FIXED_POINT(r)`: quantize a NUMERIC to resolution r.
    FixedPoint(Number),
    /// `BOOL`, `UINT8` .. `INT64`, `FLOAT32`, `FLOAT64`: a fixed width.
    Primitive(crate::front::common::Primitive),
    /// `SEQUENCE<Name>`: restates a sequence; with DELTA, element-wise delta.
    Sequence(Ident),
    /// `HUFFMAN(name = weight, ...)`: a static code from enumerator weights.
    Huffman(Vec<(Ident, Number)>),
    /// `SMALLEST_THREE(n)`: a QUATERNION as the index of its largest component and the other
    /// three in n bits each.
    SmallestThree(Number),
}
