//! The abstract syntax tree of an IDL file: what is sent.

use crate::front::common::{Literal, StrLit, TypeExpr};
use crate::front::span::{Ident, Span};
use serde::Serialize;

/// A parsed `.idl` file.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct IdlFile {
    /// The top-level items in source order.
    pub items: Vec<Item>,
}

/// A top-level item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Item {
    /// `IMPORT "other.idl";`
    Import(Import),
    /// `CONST NAME = literal;`
    Const(Const),
    /// `TYPEDEF type NAME;`
    Typedef(Typedef),
    /// `ENUM Name { ... }`
    Enum(EnumDecl),
    /// `STRUCT`, `PUBLISHABLE_STRUCT` or `MESSAGE`.
    Struct(StructDecl),
    /// `PROTOCOL Name { ... }`
    Protocol(Protocol),
}

/// `IMPORT "path";`, relative to the importing file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Import {
    /// The path as written.
    pub path: StrLit,
    /// The whole item.
    pub span: Span,
}

/// `CONST NAME = literal;`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Const {
    /// The constant's name.
    pub name: Ident,
    /// Its value.
    pub value: Literal,
    /// The whole item.
    pub span: Span,
}

/// `TYPEDEF type NAME;`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Typedef {
    /// The aliased type.
    pub ty: TypeExpr,
    /// The new name.
    pub name: Ident,
    /// The whole item.
    pub span: Span,
}

/// An enum, top level or inline in a field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnumDecl {
    /// The enum's name.
    pub name: Ident,
    /// Its enumerators in declaration order.
    pub enumerators: Vec<Enumerator>,
    /// From `enum` to `}`.
    pub span: Span,
}

/// `NAME` or `NAME = value` inside an enum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Enumerator {
    /// The enumerator's name.
    pub name: Ident,
    /// The explicit value, if written.
    pub value: Option<crate::front::common::Number>,
    /// The whole enumerator.
    pub span: Span,
}

/// Which keyword introduced a struct.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum StructKind {
    /// `STRUCT`: plain data.
    Struct,
    /// `PUBLISHABLE_STRUCT`: replicated state, may use DELTA and DEAD_RECKONING.
    Publishable,
    /// `MESSAGE`: sent on its own inside a PROTOCOL.
    Message,
}

/// `STRUCT Name { members }` (or PUBLISHABLE_STRUCT / MESSAGE).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructDecl {
    /// Which keyword introduced it.
    pub kind: StructKind,
    /// The keyword's span.
    pub kind_span: Span,
    /// The struct's name.
    pub name: Ident,
    /// Fields, fences and extends in source order.
    pub members: Vec<Member>,
    /// From the keyword to `}`.
    pub span: Span,
}

/// A member of a struct.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Member {
    /// A field.
    Field(Field),
    /// `FENCE`: everything after it is a later version.
    Fence(Span),
    /// `EXTEND f TO T;`
    Extend(Extend),
}

/// `type name DEFAULT = literal;`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// The field's type.
    pub ty: FieldType,
    /// The field's name.
    pub name: Ident,
    /// The DEFAULT, if written.
    pub default: Option<Literal>,
    /// The whole field.
    pub span: Span,
}

/// A field's type: a type expression, or an enum declared in place.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum FieldType {
    /// A type expression.
    Type(TypeExpr),
    /// `enum Animation { ... } anim;`
    InlineEnum(EnumDecl),
}

/// `EXTEND field TO type;`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extend {
    /// The widened field, declared before a FENCE.
    pub field: Ident,
    /// The wider type.
    pub ty: TypeExpr,
    /// The whole member.
    pub span: Span,
}

/// `PROTOCOL Name { messages, RPCs and fences }`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Protocol {
    /// The protocol's name.
    pub name: Ident,
    /// Its items in declaration order (ids follow this order).
    pub items: Vec<ProtocolItem>,
    /// The whole protocol.
    pub span: Span,
}

/// An item of a protocol.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ProtocolItem {
    /// A struct or message declared inside the protocol.
    Struct(StructDecl),
    /// An RPC.
    Rpc(Rpc),
    /// `FENCE`: what follows is a later version of the protocol.
    Fence(Span),
}

/// `RPC name(params) -> T;`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rpc {
    /// The RPC's name.
    pub name: Ident,
    /// Parameters and fences in order.
    pub params: Vec<Param>,
    /// The response type of a request, if any.
    pub returns: Option<TypeExpr>,
    /// The whole RPC.
    pub span: Span,
}

/// A parameter of an RPC.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Param {
    /// `type name DEFAULT = literal`
    Field(Box<Field>),
    /// `FENCE`
    Fence(Span),
}
