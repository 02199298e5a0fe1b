//! The abstract syntax tree of a Mapping file: which Rust types each side uses.

use crate::front::common::StrLit;
use crate::front::idl::ast::EnumDecl;
use crate::front::span::{Ident, Span};
use serde::Serialize;

/// A parsed `.map` file.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct MapFile {
    /// The `MAPPING(...)` items in source order.
    pub items: Vec<MapItem>,
}

/// `MAPPING("Rust", "Client") ...`
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapItem {
    /// The target language (only `"Rust"` is generated).
    pub language: StrLit,
    /// The side (`"Client"`, `"Server"`, any name).
    pub side: StrLit,
    /// What the item says.
    pub body: MapBody,
    /// The whole item.
    pub span: Span,
}

/// What a mapping item says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum MapBody {
    /// `STRUCT Name (= rust::Path)? { members }`
    Target {
        /// Which IDL item.
        target: MapTarget,
        /// `= path`: an existing Rust type that stands for the IDL type.
        existing: Option<RustPath>,
        /// The members.
        members: Vec<MapMember>,
    },
    /// `DERIVE(path, ...);`
    Derive(Vec<RustPath>),
    /// `INCLUDE "header.hpp";` (C++): a header the generated one includes.
    Include(StrLit),
    /// `PROTOCOL P SEND;` (or RECEIVE, BOTH)
    Protocol {
        /// The protocol's name.
        name: Ident,
        /// Which half of the protocol this side gets.
        direction: Direction,
        /// The direction keyword's span.
        direction_span: Span,
    },
}

/// What kind of IDL item a mapping describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum MapTargetKind {
    /// `STRUCT`.
    Struct,
    /// `PUBLISHABLE_STRUCT`.
    Publishable,
    /// `MESSAGE`.
    Message,
    /// `ENUM` or `enum`.
    Enum,
}

/// `STRUCT Name` after `MAPPING(...)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapTarget {
    /// Which keyword.
    pub kind: MapTargetKind,
    /// The IDL item's name.
    pub name: Ident,
    /// Keyword and name.
    pub span: Span,
}

/// Which half of a protocol a side gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Direction {
    /// Caller stubs.
    Send,
    /// Handler trait and dispatch.
    Receive,
    /// Both.
    Both,
}

/// A member of a mapping block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum MapMember {
    /// `rust_type name;`: the Rust type of a field on this side.
    Field {
        /// Words before the type (`class MyInventory inventory;` in a C++ mapping); a Rust
        /// mapping must have none.
        qualifiers: Vec<Ident>,
        /// The Rust type.
        ty: RustType,
        /// The IDL field.
        name: Ident,
        /// The whole member.
        span: Span,
    },
    /// `name => rust_field;`: which field of the existing type holds an IDL field.
    Rename {
        /// The IDL field.
        field: Ident,
        /// The field of the existing Rust type.
        rust_field: Ident,
        /// The whole member.
        span: Span,
    },
    /// A restated IDL enum, optionally followed by the field name: `enum Animation {..} anim;`
    Enum {
        /// The restated enum; it must match the IDL's.
        decl: EnumDecl,
        /// The field, when restated inline.
        field: Option<Ident>,
        /// The whole member.
        span: Span,
    },
}

/// A path such as `glam::Vec3` or `f32`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RustPath {
    /// The `::`-separated segments.
    pub segments: Vec<Ident>,
    /// The whole path.
    pub span: Span,
}

/// A type such as `Vec<Item>`, `MyInventory` or `[f32; 3]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RustType {
    /// The path (no segment for an array).
    pub path: RustPath,
    /// Generic arguments, if any; an array's element type.
    pub args: Vec<RustType>,
    /// `[T; n]`: the length as written (`T` is the one argument).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array_len: Option<i128>,
    /// The whole type.
    pub span: Span,
}
