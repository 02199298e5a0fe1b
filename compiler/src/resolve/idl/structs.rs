//! Structs and RPC parameter lists: fields, FENCEs, EXTENDs and DEFAULTs.

use codespan_reporting::diagnostic::Diagnostic as CodespanDiagnostic;
use indexmap::IndexMap;

use super::Resolver;
use super::declarations::DeclKind;
use crate::diagnostics::suggest::did_you_mean;
use crate::diagnostics::{FileId, codes, primary, secondary};
use crate::front::idl::ast;
use crate::front::span::Span;
use crate::ir::{self, Loc, Segment, StructDef, StructKind, Type};

/// A field seen so far in a struct: its segment, current type and where it was declared.
struct Seen {
    segment: usize,
    ty: Option<Type>,
    span: Span,
    extended_in: Option<usize>,
}

impl Resolver<'_> {
    pub(super) fn resolve_struct(
        &mut self,
        file: FileId,
        decl: &ast::StructDecl,
        protocol: Option<&str>,
    ) -> StructDef {
        let kind = match decl.kind {
            ast::StructKind::Struct => StructKind::Struct,
            ast::StructKind::Publishable => StructKind::Publishable,
            ast::StructKind::Message => StructKind::Message,
        };
        let members: Vec<&ast::Member> = decl.members.iter().collect();
        self.struct_def(file, &decl.name, kind, &members, protocol)
    }

    pub(super) fn resolve_rpc_params(
        &mut self,
        file: FileId,
        rpc: &ast::Rpc,
        protocol: &str,
    ) -> StructDef {
        let members: Vec<ast::Member> = rpc
            .params
            .iter()
            .map(|param| match param {
                ast::Param::Field(field) => ast::Member::Field((**field).clone()),
                ast::Param::Fence(span) => ast::Member::Fence(*span),
            })
            .collect();
        let members: Vec<&ast::Member> = members.iter().collect();
        self.struct_def(
            file,
            &rpc.name,
            StructKind::RpcParams,
            &members,
            Some(protocol),
        )
    }

    fn struct_def(
        &mut self,
        file: FileId,
        name: &crate::front::span::Ident,
        kind: StructKind,
        members: &[&ast::Member],
        protocol: Option<&str>,
    ) -> StructDef {
        let mut segments = vec![Segment::default()];
        let mut seen: IndexMap<String, Seen> = IndexMap::new();
        let mut last_fence: Option<Span> = None;
        let mut fence_locs = Vec::new();
        let mut unresolved = Vec::new();
        let mut segment_has_members = false;
        for member in members {
            let current = segments.len() - 1;
            match member {
                ast::Member::Field(field) => {
                    segment_has_members = true;
                    if let Some(first) = seen.get(&field.name.name) {
                        let first_span = first.span;
                        self.error(
                            CodespanDiagnostic::error()
                                .with_code(codes::DUPLICATE_FIELD)
                                .with_message(format!(
                                    "field `{}` is declared twice in `{}`",
                                    field.name.name, name.name
                                ))
                                .with_labels(vec![
                                    primary(file, field.name.span).with_message("declared again"),
                                    secondary(file, first_span).with_message("first declared here"),
                                ]),
                        );
                        continue;
                    }
                    let ty = match &field.ty {
                        ast::FieldType::Type(ty) => self.resolve_type(file, ty),
                        ast::FieldType::InlineEnum(e) => Some(Type::Enum(e.name.name.clone())),
                    };
                    let default = match (&ty, &field.default) {
                        (Some(ty), Some(literal)) => self.check_default(file, ty, literal),
                        _ => None,
                    };
                    if let (Some(ty), None, Some(fence)) = (&ty, &field.default, last_fence) {
                        if needs_default(ty) {
                            self.missing_default(file, field, ty, fence);
                        }
                    }
                    seen.insert(
                        field.name.name.clone(),
                        Seen {
                            segment: current,
                            ty: ty.clone(),
                            span: field.name.span,
                            extended_in: None,
                        },
                    );
                    match (ty, segments.last_mut()) {
                        (Some(ty), Some(segment)) => segment.fields.push(ir::Field {
                            name: field.name.name.clone(),
                            ty,
                            default,
                            loc: Loc::new(file, field.name.span),
                        }),
                        (None, _) => unresolved.push(field.name.name.clone()),
                        (Some(_), None) => {}
                    }
                }
                ast::Member::Fence(span) => {
                    if !segment_has_members {
                        let message = if last_fence.is_some() {
                            "two FENCEs with nothing between them"
                        } else {
                            "a FENCE before any field"
                        };
                        self.error(
                            CodespanDiagnostic::error()
                                .with_code(codes::MISPLACED_FENCE)
                                .with_message(message)
                                .with_labels(vec![primary(file, *span)])
                                .with_notes(vec![
                                    "a FENCE separates one version's fields from the next".into(),
                                ]),
                        );
                        continue;
                    }
                    segments.push(Segment::default());
                    fence_locs.push(Loc::new(file, *span));
                    last_fence = Some(*span);
                    segment_has_members = false;
                }
                ast::Member::Extend(extend) => {
                    segment_has_members = true;
                    if let Some(extend) = self.extend(file, extend, current, &mut seen) {
                        if let Some(segment) = segments.last_mut() {
                            segment.extends.push(extend);
                        }
                    }
                }
            }
        }
        let open_end = matches!(members.last(), Some(ast::Member::Fence(_))) && segments.len() > 1;
        if open_end {
            segments.pop();
        }
        StructDef {
            name: name.name.clone(),
            kind,
            segments,
            open_end,
            protocol: protocol.map(str::to_string),
            loc: Loc::new(file, name.span),
            fence_locs,
            unresolved,
        }
    }

    fn missing_default(&mut self, file: FileId, field: &ast::Field, ty: &Type, fence: Span) {
        let example = match ty {
            Type::Bool => "false".to_string(),
            Type::String { .. } | Type::Bytes { .. } => "\"\"".to_string(),
            Type::Enum(_) => "<an enumerator>".to_string(),
            _ => ty
                .int_range()
                .map(|(min, max)| 0i128.clamp(min, max).to_string())
                .unwrap_or_else(|| "0".to_string()),
        };
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::MISSING_DEFAULT)
                .with_message(format!("field `{}` after a FENCE needs a DEFAULT", field.name.name))
                .with_labels(vec![
                    primary(file, field.span).with_message("no DEFAULT"),
                    secondary(file, fence).with_message("the FENCE it follows"),
                ])
                .with_notes(vec![format!(
                    "a reader of an older sender's data fills the field with its DEFAULT: write `{} {} DEFAULT = {example};`",
                    ty.describe(),
                    field.name.name
                )]),
        );
    }

    fn extend(
        &mut self,
        file: FileId,
        extend: &ast::Extend,
        current: usize,
        seen: &mut IndexMap<String, Seen>,
    ) -> Option<ir::Extend> {
        let Some(field) = seen.get_mut(&extend.field.name) else {
            let note = did_you_mean(&extend.field.name, seen.keys().map(String::as_str));
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::EXTEND_UNKNOWN_FIELD)
                    .with_message(format!("EXTEND of unknown field `{}`", extend.field.name))
                    .with_labels(vec![
                        primary(file, extend.field.span)
                            .with_message("no such field before this EXTEND"),
                    ])
                    .with_notes(note.into_iter().collect()),
            );
            return None;
        };
        let field_span = field.span;
        if field.segment == current {
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::EXTEND_UNKNOWN_FIELD)
                    .with_message(format!(
                        "EXTEND of `{}` in the version that declares it",
                        extend.field.name
                    ))
                    .with_labels(vec![
                        primary(file, extend.span).with_message("needs a FENCE before it"),
                        secondary(file, field_span).with_message("declared in the same version"),
                    ])
                    .with_notes(vec![
                        "change the field's type instead, or put a FENCE before the EXTEND".into(),
                    ]),
            );
            return None;
        }
        if field.extended_in == Some(current) {
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::EXTEND_NOT_WIDER)
                    .with_message(format!(
                        "`{}` is extended twice in one version",
                        extend.field.name
                    ))
                    .with_labels(vec![primary(file, extend.span)])
                    .with_notes(vec!["one EXTEND per field per FENCE".into()]),
            );
            return None;
        }
        let from = field.ty.clone()?;
        let to = self.resolve_type(file, &extend.ty)?;
        if !self.widens(&from, &to) {
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::EXTEND_NOT_WIDER)
                    .with_message(format!(
                        "EXTEND `{}` TO {} is not a widening of {}",
                        extend.field.name,
                        to.describe(),
                        from.describe()
                    ))
                    .with_labels(vec![
                        primary(file, extend.ty.span).with_message("not wider"),
                        secondary(file, field_span).with_message(format!("`{}` is {} here", extend.field.name, from.describe())),
                    ])
                    .with_notes(vec![
                        "EXTEND may widen an integer range, a NUMERIC range, FLOAT32 to FLOAT64, a STRING/BYTES/SEQUENCE bound, or an enum to one that begins with all its enumerators".into(),
                    ]),
            );
            return None;
        }
        if let Some(field) = seen.get_mut(&extend.field.name) {
            field.ty = Some(to.clone());
            field.extended_in = Some(current);
        }
        Some(ir::Extend {
            field: extend.field.name.clone(),
            from,
            to,
            loc: Loc::new(file, extend.span),
        })
    }

    /// Whether `to` holds every value of `from` and more.
    fn widens(&self, from: &Type, to: &Type) -> bool {
        if from == to {
            return false;
        }
        if let (Some((a, b)), Some((c, d))) = (from.int_range(), to.int_range()) {
            return c <= a && b <= d;
        }
        let wider_bound = |old: &Option<u64>, new: &Option<u64>| match (old, new) {
            (_, None) => true,
            (Some(old), Some(new)) => new >= old,
            (None, Some(_)) => false,
        };
        match (from, to) {
            (Type::Float32, Type::Float64) => true,
            (Type::Numeric { min: a, max: b, .. }, Type::Numeric { min: c, max: d, .. }) => {
                c <= a && b <= d
            }
            (Type::String { max: old }, Type::String { max: new })
            | (Type::Bytes { max: old }, Type::Bytes { max: new }) => wider_bound(old, new),
            (
                Type::Sequence {
                    element: e1,
                    max: old,
                },
                Type::Sequence {
                    element: e2,
                    max: new,
                },
            ) => e1 == e2 && wider_bound(old, new),
            (Type::Enum(old), Type::Enum(new)) => self.enum_extends(old, new),
            _ => false,
        }
    }

    /// Whether enum `new` begins with all of `old`'s enumerators (names and values) and adds more.
    fn enum_extends(&self, old: &str, new: &str) -> bool {
        let (Some(old), Some(new)) = (enumerator_values(self, old), enumerator_values(self, new))
        else {
            return false;
        };
        new.len() > old.len() && new.iter().zip(&old).all(|(n, o)| n == o)
    }
}

fn enumerator_values(resolver: &Resolver<'_>, name: &str) -> Option<Vec<(String, i128)>> {
    let DeclKind::Enum(decl) = resolver.decls.get(name)?.kind else {
        return None;
    };
    let mut next = 0i128;
    let mut out = Vec::new();
    for e in &decl.enumerators {
        let value = match e.value.map(|n| n.value) {
            Some(crate::front::common::NumberValue::Int(v)) => v,
            Some(_) => return None,
            None => next,
        };
        next = value + 1;
        out.push((e.name.name.clone(), value));
    }
    Some(out)
}

/// Whether a field of this type after a FENCE must say its DEFAULT. Sequences, arrays,
/// optionals and structs default to empty, None and their fields' defaults.
fn needs_default(ty: &Type) -> bool {
    !matches!(
        ty,
        Type::Sequence { .. } | Type::Array { .. } | Type::Optional(_) | Type::Struct(_)
    )
}
