//! Resolution of the IDL files into the schema part of the IR: names across files, CONSTs,
//! TYPEDEFs, ranges, enums, structs with their fences, EXTENDs and DEFAULTs, protocols.

mod declarations;
mod recursion;
mod structs;
mod types;
mod values;

use codespan_reporting::diagnostic::Diagnostic as CodespanDiagnostic;
use indexmap::IndexMap;

use crate::diagnostics::{Diagnostic, FileId, codes, primary, secondary};
use crate::front::idl::ast::{self, IdlFile};
use crate::front::span::Ident;
use crate::ir::{self, EntryKind, Loc, ProtocolDef, ProtocolEntry, Schema};

use declarations::{DeclKind, Declarations};

/// Resolves the IDL files (all of them, imported ones included) into the schema.
pub fn resolve_schema(files: &[(FileId, IdlFile)]) -> (Schema, Vec<Diagnostic>) {
    let mut resolver = Resolver::new(files);
    let schema = resolver.run();
    (schema, resolver.diagnostics)
}

/// The state of one resolution: the declarations and what has been found wrong.
pub(super) struct Resolver<'a> {
    decls: Declarations<'a>,
    diagnostics: Vec<Diagnostic>,
    memo: types::Memo<'a>,
}

impl<'a> Resolver<'a> {
    fn new(files: &'a [(FileId, IdlFile)]) -> Self {
        let mut diagnostics = Vec::new();
        let decls = Declarations::collect(files, &mut diagnostics);
        Resolver {
            decls,
            diagnostics,
            memo: types::Memo::default(),
        }
    }

    fn error(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    fn run(&mut self) -> Schema {
        let mut schema = Schema::default();
        let decls: Vec<_> = self.decls.iter().collect();
        for (name, decl) in &decls {
            match decl.kind {
                DeclKind::Const(_) => {
                    if let Some(value) = self.const_value(name) {
                        schema.consts.insert(
                            name.to_string(),
                            ir::ConstDef {
                                name: name.to_string(),
                                value,
                                loc: Loc::new(decl.file, decl.name.span),
                            },
                        );
                    }
                }
                DeclKind::Typedef(_) => {
                    if let Some(ty) = self.typedef_type(name) {
                        schema.typedefs.insert(
                            name.to_string(),
                            ir::TypedefDef {
                                name: name.to_string(),
                                ty,
                                loc: Loc::new(decl.file, decl.name.span),
                            },
                        );
                    }
                }
                DeclKind::Enum(e) => {
                    let def = self.resolve_enum(decl.file, e);
                    schema.enums.insert(name.to_string(), def);
                }
                DeclKind::Struct(s, protocol) => {
                    let def = self.resolve_struct(decl.file, s, protocol);
                    schema.structs.insert(name.to_string(), def);
                }
                DeclKind::Rpc(rpc, protocol) => {
                    let def = self.resolve_rpc_params(decl.file, rpc, protocol);
                    schema.structs.insert(name.to_string(), def);
                }
                DeclKind::Protocol(p) => {
                    let def = self.resolve_protocol(decl.file, p);
                    schema.protocols.insert(name.to_string(), def);
                }
            }
        }
        add_response_structs(&mut schema);
        recursion::check(&schema, &mut self.diagnostics);
        schema
    }

    fn resolve_enum(&mut self, file: FileId, decl: &ast::EnumDecl) -> ir::EnumDef {
        let mut enumerators: Vec<ir::Enumerator> = Vec::new();
        let mut seen: IndexMap<&str, (&Ident, i64)> = IndexMap::new();
        let mut next: Option<i64> = Some(0);
        if decl.enumerators.is_empty() {
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::BAD_ENUMERATOR)
                    .with_message(format!("enum `{}` has no enumerators", decl.name.name))
                    .with_labels(vec![primary(file, decl.span)])
                    .with_notes(vec!["an enum needs at least one enumerator".into()]),
            );
        }
        for enumerator in &decl.enumerators {
            let value = match &enumerator.value {
                Some(number) => self.enumerator_value(file, number),
                None => next,
            };
            let Some(value) = value else {
                if enumerator.value.is_none() {
                    self.error(
                        CodespanDiagnostic::error()
                            .with_code(codes::VALUE_OUT_OF_BOUNDS)
                            .with_message(format!(
                                "the value of `{}` would exceed INT64",
                                enumerator.name.name
                            ))
                            .with_labels(vec![primary(file, enumerator.span)]),
                    );
                }
                next = None;
                continue;
            };
            next = value.checked_add(1);
            if let Some((first, _)) = seen.get(enumerator.name.name.as_str()) {
                let first_span = first.span;
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::BAD_ENUMERATOR)
                        .with_message(format!(
                            "enumerator `{}` is declared twice in `{}`",
                            enumerator.name.name, decl.name.name
                        ))
                        .with_labels(vec![
                            primary(file, enumerator.name.span).with_message("declared again here"),
                            secondary(file, first_span).with_message("first declared here"),
                        ]),
                );
                continue;
            }
            if let Some((first, _)) = seen.values().find(|(_, v)| *v == value) {
                let first_span = first.span;
                let first_name = first.name.clone();
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::BAD_ENUMERATOR)
                        .with_message(format!(
                            "enumerators `{first_name}` and `{}` both have the value {value}",
                            enumerator.name.name
                        ))
                        .with_labels(vec![
                            primary(file, enumerator.span).with_message(format!("value {value}")),
                            secondary(file, first_span)
                                .with_message(format!("`{first_name}` has it already")),
                        ])
                        .with_notes(vec![
                            "implicit values count up from the previous enumerator".into(),
                        ]),
                );
            }
            seen.insert(&enumerator.name.name, (&enumerator.name, value));
            enumerators.push(ir::Enumerator {
                name: enumerator.name.name.clone(),
                value,
            });
        }
        ir::EnumDef {
            name: decl.name.name.clone(),
            enumerators,
            loc: Loc::new(file, decl.name.span),
        }
    }

    fn enumerator_value(
        &mut self,
        file: FileId,
        number: &crate::front::common::Number,
    ) -> Option<i64> {
        use crate::front::common::NumberValue;
        match number.value {
            NumberValue::Int(v) => match i64::try_from(v) {
                Ok(v) => Some(v),
                Err(_) => {
                    self.error(
                        CodespanDiagnostic::error()
                            .with_code(codes::VALUE_OUT_OF_BOUNDS)
                            .with_message("enumerator value does not fit in INT64")
                            .with_labels(vec![primary(file, number.span)]),
                    );
                    None
                }
            },
            NumberValue::Real(_) => {
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::WRONG_LITERAL)
                        .with_message("an enumerator value must be an integer")
                        .with_labels(vec![primary(file, number.span)]),
                );
                None
            }
        }
    }

    fn resolve_protocol(&mut self, file: FileId, decl: &ast::Protocol) -> ProtocolDef {
        let mut entries = Vec::new();
        let mut segment = 0;
        let mut id: u32 = 0;
        let mut fence_locs = Vec::new();
        for item in &decl.items {
            let kind = match item {
                ast::ProtocolItem::Fence(span) => {
                    segment += 1;
                    fence_locs.push(Loc::new(file, *span));
                    continue;
                }
                ast::ProtocolItem::Struct(s) if s.kind == ast::StructKind::Message => {
                    EntryKind::Message(s.name.name.clone())
                }
                ast::ProtocolItem::Struct(_) => continue,
                ast::ProtocolItem::Rpc(rpc) => EntryKind::Rpc {
                    name: rpc.name.name.clone(),
                    returns: rpc
                        .returns
                        .as_ref()
                        .and_then(|ty| self.resolve_type(file, ty)),
                },
            };
            entries.push(ProtocolEntry { id, segment, kind });
            id = id.saturating_add(1);
        }
        ProtocolDef {
            name: decl.name.name.clone(),
            entries,
            fences: segment,
            loc: Loc::new(file, decl.name.span),
            fence_locs,
        }
    }
}

/// One [`ir::StructKind::RpcResponse`] struct per RPC with a response type, after the RPC's
/// parameter struct.
fn add_response_structs(schema: &mut ir::Schema) {
    let mut responses = Vec::new();
    for protocol in schema.protocols.values() {
        for entry in &protocol.entries {
            let EntryKind::Rpc {
                name,
                returns: Some(ty),
            } = &entry.kind
            else {
                continue;
            };
            let Some(params) = schema.structs.get(name) else {
                continue;
            };
            let field = ir::Field {
                name: ir::RESPONSE_FIELD.to_string(),
                ty: ty.clone(),
                default: None,
                loc: params.loc,
            };
            responses.push(ir::StructDef {
                name: ir::response_struct_name(name),
                kind: ir::StructKind::RpcResponse,
                segments: vec![ir::Segment {
                    extends: Vec::new(),
                    fields: vec![field],
                }],
                open_end: false,
                protocol: Some(protocol.name.clone()),
                loc: params.loc,
                fence_locs: Vec::new(),
                unresolved: Vec::new(),
            });
        }
    }
    for def in responses {
        schema.structs.insert(def.name.clone(), def);
    }
}
