//! The IDL's layout: items and members one per line, enum bodies as lists.

use super::hints::Hints;
use crate::front::idl::ast::{FieldType, IdlFile, Item, Member, Param, ProtocolItem, StructDecl};
use crate::front::span::Span;

/// The layout facts of an IDL file.
pub fn hints(file: &IdlFile) -> Hints {
    let mut hints = Hints::default();
    for item in &file.items {
        match item {
            Item::Import(import) => hints.line(import.span),
            Item::Const(constant) => hints.line(constant.span),
            Item::Typedef(typedef) => hints.line(typedef.span),
            Item::Enum(decl) => {
                hints.line(decl.span);
                hints.enum_list(decl);
            }
            Item::Struct(decl) => structure(&mut hints, decl),
            Item::Protocol(protocol) => {
                hints.line(protocol.span);
                for item in &protocol.items {
                    match item {
                        ProtocolItem::Struct(decl) => structure(&mut hints, decl),
                        ProtocolItem::Rpc(rpc) => {
                            hints.line(rpc.span);
                            hints.list(rpc.name.span, rpc.params.iter().map(param_span));
                        }
                        ProtocolItem::Fence(span) => hints.fence(*span),
                    }
                }
            }
        }
    }
    hints
}

fn structure(hints: &mut Hints, decl: &StructDecl) {
    hints.line(decl.span);
    for member in &decl.members {
        match member {
            Member::Field(field) => {
                hints.line(field.span);
                if let FieldType::InlineEnum(decl) = &field.ty {
                    hints.enum_list(decl);
                }
            }
            Member::Fence(span) => hints.fence(*span),
            Member::Extend(extend) => hints.line(extend.span),
        }
    }
}

fn param_span(param: &Param) -> Span {
    match param {
        Param::Field(field) => field.span,
        Param::Fence(span) => *span,
    }
}
