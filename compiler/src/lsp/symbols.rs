//! Document symbols: the items of a file and their members, from its own front end.

use lsp_types::{DocumentSymbol, SymbolKind};

use super::text::LineIndex;
use crate::front::enc::ast::{EncBody, EncMember};
use crate::front::idl::ast::{EnumDecl, FieldType, Item, Member, Param, ProtocolItem, StructDecl};
use crate::front::lexer::Language;
use crate::front::map::ast::{MapBody, MapMember};
use crate::front::span::{Ident, Span};

/// The symbols of `text`, a file of `language` (what parses of it, when it has errors).
pub fn symbols(text: &str, language: Language) -> Vec<DocumentSymbol> {
    let index = LineIndex::new(text);
    let symbol = Builder { index: &index };
    match language {
        Language::Idl => {
            let (file, _) = crate::front::idl::parse(0, text);
            file.items
                .iter()
                .filter_map(|item| symbol.idl_item(item))
                .collect()
        }
        Language::Encoding => {
            let (file, _) = crate::front::enc::parse(0, text);
            file.items
                .iter()
                .map(|item| {
                    let (name, children) = match &item.body {
                        EncBody::Style(..) => (format!("ENCODING({})", item.encoding.name), vec![]),
                        EncBody::Defaults(rules) => (
                            format!("ENCODING({}) DEFAULTS", item.encoding.name),
                            rules
                                .iter()
                                .map(|rule| {
                                    symbol.leaf(
                                        &rule.category.name,
                                        rule.span,
                                        rule.category.span,
                                        SymbolKind::PROPERTY,
                                    )
                                })
                                .collect(),
                        ),
                        EncBody::Target(target, members) => (
                            format!("ENCODING({}) {}", item.encoding.name, target.name.name),
                            symbol.enc_members(members),
                        ),
                    };
                    symbol.node(
                        name,
                        item.span,
                        item.encoding.span,
                        SymbolKind::NAMESPACE,
                        children,
                    )
                })
                .collect()
        }
        Language::Mapping => {
            let (file, _) = crate::front::map::parse(0, text);
            file.items
                .iter()
                .map(|item| {
                    let head = format!("MAPPING({}, {})", item.language.value, item.side.value);
                    let (name, selection, children) = match &item.body {
                        MapBody::Target {
                            target, members, ..
                        } => (
                            format!("{head} {}", target.name.name),
                            target.name.span,
                            members
                                .iter()
                                .map(|member| symbol.map_member(member))
                                .collect(),
                        ),
                        MapBody::Protocol { name, .. } => {
                            (format!("{head} PROTOCOL {}", name.name), name.span, vec![])
                        }
                        MapBody::Derive(_) => (format!("{head} DERIVE"), item.span, vec![]),
                        MapBody::Include(header) => (
                            format!("{head} INCLUDE {}", header.value),
                            header.span,
                            vec![],
                        ),
                    };
                    symbol.node(name, item.span, selection, SymbolKind::NAMESPACE, children)
                })
                .collect()
        }
    }
}

struct Builder<'a> {
    index: &'a LineIndex<'a>,
}

impl Builder<'_> {
    #[allow(deprecated)] // `deprecated` is a field LSP keeps for compatibility.
    fn node(
        &self,
        name: String,
        span: Span,
        selection: Span,
        kind: SymbolKind,
        children: Vec<DocumentSymbol>,
    ) -> DocumentSymbol {
        DocumentSymbol {
            name: if name.is_empty() {
                "?".to_string()
            } else {
                name
            },
            detail: None,
            kind,
            tags: None,
            deprecated: None,
            range: self.index.range(span.start, span.end),
            selection_range: self.index.range(selection.start, selection.end),
            children: (!children.is_empty()).then_some(children),
        }
    }

    fn leaf(&self, name: &str, span: Span, selection: Span, kind: SymbolKind) -> DocumentSymbol {
        self.node(name.to_string(), span, selection, kind, Vec::new())
    }

    fn named(
        &self,
        ident: &Ident,
        span: Span,
        kind: SymbolKind,
        children: Vec<DocumentSymbol>,
    ) -> DocumentSymbol {
        self.node(ident.name.clone(), span, ident.span, kind, children)
    }

    fn idl_item(&self, item: &Item) -> Option<DocumentSymbol> {
        Some(match item {
            Item::Import(import) => self.leaf(
                &import.path.value,
                import.span,
                import.path.span,
                SymbolKind::FILE,
            ),
            Item::Const(constant) => {
                self.named(&constant.name, constant.span, SymbolKind::CONSTANT, vec![])
            }
            Item::Typedef(typedef) => self.named(
                &typedef.name,
                typedef.span,
                SymbolKind::TYPE_PARAMETER,
                vec![],
            ),
            Item::Enum(decl) => self.enumeration(decl),
            Item::Struct(decl) => self.structure(decl),
            Item::Protocol(protocol) => {
                let children = protocol
                    .items
                    .iter()
                    .filter_map(|item| match item {
                        ProtocolItem::Struct(decl) => Some(self.structure(decl)),
                        ProtocolItem::Rpc(rpc) => {
                            let params = rpc
                                .params
                                .iter()
                                .filter_map(|param| match param {
                                    Param::Field(field) => Some(self.named(
                                        &field.name,
                                        field.span,
                                        SymbolKind::VARIABLE,
                                        vec![],
                                    )),
                                    Param::Fence(_) => None,
                                })
                                .collect();
                            Some(self.named(&rpc.name, rpc.span, SymbolKind::METHOD, params))
                        }
                        ProtocolItem::Fence(_) => None,
                    })
                    .collect();
                self.named(
                    &protocol.name,
                    protocol.span,
                    SymbolKind::INTERFACE,
                    children,
                )
            }
        })
    }

    fn enumeration(&self, decl: &EnumDecl) -> DocumentSymbol {
        let children = decl
            .enumerators
            .iter()
            .map(|e| self.named(&e.name, e.span, SymbolKind::ENUM_MEMBER, vec![]))
            .collect();
        self.named(&decl.name, decl.span, SymbolKind::ENUM, children)
    }

    fn structure(&self, decl: &StructDecl) -> DocumentSymbol {
        let children = decl
            .members
            .iter()
            .filter_map(|member| match member {
                Member::Field(field) => {
                    let inline = match &field.ty {
                        FieldType::InlineEnum(decl) => vec![self.enumeration(decl)],
                        FieldType::Type(_) => vec![],
                    };
                    Some(self.named(&field.name, field.span, SymbolKind::FIELD, inline))
                }
                Member::Fence(_) | Member::Extend(_) => None,
            })
            .collect();
        self.named(&decl.name, decl.span, SymbolKind::STRUCT, children)
    }

    fn enc_members(&self, members: &[EncMember]) -> Vec<DocumentSymbol> {
        let mut symbols = Vec::new();
        for member in members {
            match member {
                EncMember::Field(field) => {
                    symbols.push(self.named(&field.name, field.span, SymbolKind::FIELD, vec![]))
                }
                EncMember::Delta(block) => symbols.extend(self.enc_members(&block.members)),
                EncMember::DeadReckoning(block) => symbols.extend(self.enc_members(&block.members)),
                EncMember::Extend(extend) => {
                    symbols.push(self.named(&extend.field, extend.span, SymbolKind::FIELD, vec![]))
                }
                EncMember::Fence(_) | EncMember::Align(_) | EncMember::Check(_) => {}
            }
        }
        symbols
    }

    fn map_member(&self, member: &MapMember) -> DocumentSymbol {
        match member {
            MapMember::Field { name, span, .. } => {
                self.named(name, *span, SymbolKind::FIELD, vec![])
            }
            MapMember::Rename { field, span, .. } => {
                self.named(field, *span, SymbolKind::FIELD, vec![])
            }
            MapMember::Enum { decl, field, span } => match field {
                Some(field) => self.named(
                    field,
                    *span,
                    SymbolKind::FIELD,
                    vec![self.enumeration(decl)],
                ),
                None => self.enumeration(decl),
            },
        }
    }
}
