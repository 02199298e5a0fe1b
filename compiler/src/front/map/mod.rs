//! The Mapping front end: which Rust types each side uses.

pub mod ast;

/// lalrpop's parser of grammar.lalrpop, checked in (tests/parsers.rs checks it is up to date).
#[rustfmt::skip]
#[allow(
    clippy::all,
    missing_docs,
    unused_qualifications,
    unused_parens,
    unused_imports
)]
mod grammar;

use crate::diagnostics::{Diagnostic, FileId};
use crate::front::idl::ast::EnumDecl;
use crate::front::lexer::Language;
use crate::front::parse_error;
use crate::front::span::{Ident, Span};
use ast::{MapMember, RustPath, RustType};

/// Parses a Mapping file. Returns what could be parsed (broken items and members are left
/// out) and a diagnostic for every syntax error.
pub fn parse(file: FileId, source: &str) -> (ast::MapFile, Vec<Diagnostic>) {
    parse_error::parse_with(file, source, Language::Mapping, |recovered, tokens| {
        grammar::FileParser::new().parse(recovered, tokens)
    })
}

/// Builds `qualifiers path::tail<args> name;` from the words the grammar read before the path's
/// `::` or `<`: the last of them is the path's first segment, the others are qualifiers.
/// `type_end` is where the type ends.
fn field_member(
    mut words: Vec<Ident>,
    tail: Vec<Ident>,
    args: Vec<RustType>,
    type_end: usize,
    name: Ident,
    span: Span,
) -> MapMember {
    // The grammar reads one or more words; an empty list would give an empty path.
    let first = words
        .pop()
        .unwrap_or_else(|| Ident::new("", Span::new(type_end, type_end)));
    let start = first.span.start;
    let path_end = tail
        .last()
        .map_or(first.span.end, |segment| segment.span.end);
    let mut segments = vec![first];
    segments.extend(tail);
    let path = RustPath {
        segments,
        span: Span::new(start, path_end),
    };
    let ty = RustType {
        path,
        args,
        array_len: None,
        span: Span::new(start, type_end),
    };
    MapMember::Field {
        qualifiers: words,
        ty,
        name,
        span,
    }
}

/// `rest` (the members after `member`, last first) followed by `member`: the grammar's member
/// list is right-recursive, so it is built from the end.
fn append(mut rest: Vec<MapMember>, member: MapMember) -> Vec<MapMember> {
    rest.push(member);
    rest
}

/// A restated enum with its field name (if any), then the members after it (last first). The
/// member's span runs from `enum` to the field name, or to `}` without one.
fn enum_member(decl: EnumDecl, after: (Option<Ident>, Vec<MapMember>)) -> Vec<MapMember> {
    let (field, rest) = after;
    let end = field.as_ref().map_or(decl.span.end, |field| field.span.end);
    let span = Span::new(decl.span.start, end);
    append(rest, MapMember::Enum { decl, field, span })
}
