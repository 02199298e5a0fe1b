//! Syntax nodes that more than one language uses: literals and IDL types.
//!
//! The Encoding language restates IDL types (`EXTEND character_id TO UINT32;`), so the type
//! syntax lives here rather than in the IDL's AST.

use super::span::{Ident, Span};
use serde::Serialize;

/// A numeric literal as written.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum NumberValue {
    /// `42`, `-7`, `0x2A`, `1_000`.
    Int(i128),
    /// `0.01`, `100.`, `1e-3`.
    Real(f64),
}

/// A numeric literal with its span.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Number {
    /// The value.
    pub value: NumberValue,
    /// Where it stands.
    pub span: Span,
}

/// `-NAME`: the value of a numeric CONST, negated (`NUMERIC[-MAX_SPEED, MAX_SPEED]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Negated {
    /// The CONST's name.
    pub name: Ident,
    /// From the `-` to the end of the name.
    pub span: Span,
}

/// A place where a number is expected: a literal, or the name of a CONST, maybe negated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum NumberRef {
    /// A literal number.
    Literal(Number),
    /// The name of a CONST.
    Const(Ident),
    /// `-NAME`.
    Negated(Negated),
}

impl NumberRef {
    /// Where it stands.
    pub fn span(&self) -> Span {
        match self {
            NumberRef::Literal(number) => number.span,
            NumberRef::Const(ident) => ident.span,
            NumberRef::Negated(negated) => negated.span,
        }
    }
}

/// A string literal, unescaped, with its span (quotes included).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StrLit {
    /// The text between the quotes, escapes resolved.
    pub value: String,
    /// Where it stands, quotes included.
    pub span: Span,
}

/// A literal of a DEFAULT or a CONST.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Literal {
    /// An integer or real.
    Number(Number),
    /// `true` or `false`.
    Bool(bool, Span),
    /// A string.
    Str(StrLit),
    /// An enumerator name or a CONST name.
    Name(Ident),
    /// `-NAME`: a numeric CONST, negated.
    Negated(Negated),
}

impl Literal {
    /// Where it stands.
    pub fn span(&self) -> Span {
        match self {
            Literal::Number(number) => number.span,
            Literal::Bool(_, span) => *span,
            Literal::Str(text) => text.span,
            Literal::Name(ident) => ident.span,
            Literal::Negated(negated) => negated.span,
        }
    }
}

/// A range `[a,b]`, `[a,b)`, `(a,b]` or `(a,b)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Range {
    /// The lower bound.
    pub min: NumberRef,
    /// Whether the lower bound belongs to the range (`[`).
    pub min_inclusive: bool,
    /// The upper bound.
    pub max: NumberRef,
    /// Whether the upper bound belongs to the range (`]`).
    pub max_inclusive: bool,
    /// From the opening to the closing bracket.
    pub span: Span,
}

/// A fixed-width primitive type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Primitive {
    /// `BOOL`.
    Bool,
    /// `UINT8`.
    Uint8,
    /// `UINT16`.
    Uint16,
    /// `UINT32`.
    Uint32,
    /// `UINT64`.
    Uint64,
    /// `INT8`.
    Int8,
    /// `INT16`.
    Int16,
    /// `INT32`.
    Int32,
    /// `INT64`.
    Int64,
    /// `FLOAT32`.
    Float32,
    /// `FLOAT64`.
    Float64,
}

/// A type as written in an IDL (or restated in an Encoding's EXTEND).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeExpr {
    /// What kind of type.
    pub kind: TypeKind,
    /// The whole type expression.
    pub span: Span,
}

/// The kinds of type expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum TypeKind {
    /// `BOOL`, `UINT8` .. `INT64`, `FLOAT32`, `FLOAT64`.
    Primitive(Primitive),
    /// `INT[a,b]`: an integer in a range.
    IntRange(Range),
    /// `NUMERIC[a,b]`: a real number in a range.
    Numeric(Range),
    /// `STRING` or `STRING<max bytes>`.
    String(Option<NumberRef>),
    /// `BYTES` or `BYTES<max bytes>`.
    Bytes(Option<NumberRef>),
    /// `SEQUENCE<T>` or `SEQUENCE<T, max count>`.
    Sequence(Box<TypeExpr>, Option<NumberRef>),
    /// `ARRAY<T, count>`.
    Array(Box<TypeExpr>, NumberRef),
    /// `OPTIONAL<T>`.
    Optional(Box<TypeExpr>),
    /// `QUATERNION`: a unit quaternion, a rotation.
    Quaternion,
    /// A struct, enum or typedef, by name.
    Named(Ident),
}
