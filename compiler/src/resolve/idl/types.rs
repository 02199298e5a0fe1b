//! Type expressions, numbers, CONSTs and TYPEDEFs.

use std::collections::HashMap;

use codespan_reporting::diagnostic::Diagnostic as CodespanDiagnostic;

use super::Resolver;
use super::declarations::DeclKind;
use crate::diagnostics::suggest::did_you_mean;
use crate::diagnostics::{FileId, codes, primary, secondary};
use crate::front::common::{Literal, Negated, NumberRef, NumberValue, Range, TypeExpr, TypeKind};
use crate::front::span::{Ident, Span};
use crate::ir::{Type, Value, bits_required};
use crate::resolve::number_of;

/// The most elements an `ARRAY<T, n>` may have: they are held inside the generated struct
/// (docs/LANGUAGES.md, "Types").
pub const MAX_ARRAY_LEN: u64 = 65_536;

/// How many CONSTs or TYPEDEFs one definition may go through: resolution recurses once per link.
const MAX_CHAIN: usize = 128;

/// Results of CONSTs and TYPEDEFs already resolved (None: resolution failed and was reported),
/// and the ones being resolved right now (to find cycles).
#[derive(Default)]
pub(super) struct Memo<'a> {
    consts: HashMap<&'a str, Option<Value>>,
    typedefs: HashMap<&'a str, Option<Type>>,
    in_progress: Vec<&'a str>,
}

impl<'a> Resolver<'a> {
    /// The value of CONST `name`, resolving the CONSTs it refers to first.
    pub(super) fn const_value(&mut self, name: &str) -> Option<Value> {
        if let Some(done) = self.memo.consts.get(name) {
            return done.clone();
        }
        let decl = self.decls.get(name)?;
        let DeclKind::Const(c) = decl.kind else {
            return None;
        };
        if self.entered_cycle(decl.file, decl.name) {
            return None;
        }
        let value = match &c.value {
            Literal::Number(n) => Some(match n.value {
                NumberValue::Int(v) => Value::Int(v),
                NumberValue::Real(v) => Value::Real(v),
            }),
            Literal::Bool(b, _) => Some(Value::Bool(*b)),
            Literal::Str(s) => Some(Value::Str(s.value.clone())),
            Literal::Name(other) => self.named_value(decl.file, other),
            Literal::Negated(other) => self.negated_value(decl.file, other),
        };
        self.memo.in_progress.pop();
        self.memo
            .consts
            .insert(decl.name.name.as_str(), value.clone());
        value
    }

    /// A name used as a value: a CONST, or an enumerator of exactly one enum.
    pub(super) fn named_value(&mut self, file: FileId, name: &Ident) -> Option<Value> {
        match self.decls.get(&name.name).map(|d| d.kind) {
            Some(DeclKind::Const(_)) => return self.const_value(&name.name),
            Some(other) => {
                self.wrong_kind(file, name, other.describe(), "a value");
                return None;
            }
            None => {}
        }
        let owners = self.decls.names_where(|kind| {
            matches!(kind, DeclKind::Enum(e) if e.enumerators.iter().any(|x| x.name.name == name.name))
        });
        if owners.len() == 1 {
            return Some(Value::Enumerator(name.name.clone()));
        }
        let consts = self.decls.names_where(|k| matches!(k, DeclKind::Const(_)));
        let mut diagnostic = CodespanDiagnostic::error()
            .with_code(codes::UNKNOWN_CONST)
            .with_message(format!("cannot find CONST `{}`", name.name))
            .with_labels(vec![primary(file, name.span).with_message("not declared")]);
        if owners.len() > 1 {
            diagnostic = diagnostic.with_notes(vec![format!(
                "`{}` is an enumerator of {}: ambiguous here",
                name.name,
                owners.join(" and ")
            )]);
        } else if let Some(note) = did_you_mean(&name.name, consts) {
            diagnostic = diagnostic.with_notes(vec![note]);
        }
        self.error(diagnostic);
        None
    }

    /// Pushes `name` on the resolution stack; reports and returns true when it is already
    /// there (a CONST or TYPEDEF that refers to itself).
    fn entered_cycle(&mut self, file: FileId, name: &'a Ident) -> bool {
        if let Some(start) = self.memo.in_progress.iter().position(|n| *n == name.name) {
            let cycle: Vec<&str> = self.memo.in_progress[start..].to_vec();
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::DEFINITION_CYCLE)
                    .with_message(format!("`{}` is defined in terms of itself", name.name))
                    .with_labels(vec![primary(file, name.span)])
                    .with_notes(vec![format!(
                        "the cycle: {} -> {}",
                        cycle.join(" -> "),
                        name.name
                    )]),
            );
            return true;
        }
        if self.memo.in_progress.len() >= MAX_CHAIN {
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::DEFINITION_CYCLE)
                    .with_message(format!(
                        "`{}` is defined through more than {MAX_CHAIN} other definitions",
                        name.name
                    ))
                    .with_labels(vec![primary(file, name.span)])
                    .with_notes(vec!["define it more directly".into()]),
            );
            return true;
        }
        self.memo.in_progress.push(&name.name);
        false
    }

    /// The type TYPEDEF `name` stands for.
    pub(super) fn typedef_type(&mut self, name: &str) -> Option<Type> {
        if let Some(done) = self.memo.typedefs.get(name) {
            return done.clone();
        }
        let decl = self.decls.get(name)?;
        let DeclKind::Typedef(t) = decl.kind else {
            return None;
        };
        if self.entered_cycle(decl.file, decl.name) {
            return None;
        }
        let ty = self.resolve_type(decl.file, &t.ty);
        self.memo.in_progress.pop();
        self.memo
            .typedefs
            .insert(decl.name.name.as_str(), ty.clone());
        ty
    }

    /// Resolves a type expression; reports and returns None when it does not resolve.
    pub(super) fn resolve_type(&mut self, file: FileId, ty: &TypeExpr) -> Option<Type> {
        Some(match &ty.kind {
            TypeKind::Primitive(p) => crate::resolve::primitive_type(*p),
            TypeKind::IntRange(range) => self.int_range(file, range)?,
            TypeKind::Numeric(range) => self.numeric_range(file, range)?,
            TypeKind::String(bound) => Type::String {
                max: self.optional_bound(file, bound.as_ref(), "a STRING's length")?,
            },
            TypeKind::Bytes(bound) => Type::Bytes {
                max: self.optional_bound(file, bound.as_ref(), "a BYTES length")?,
            },
            TypeKind::Sequence(element, bound) => {
                let element = self.resolve_type(file, element);
                let max = self.optional_bound(file, bound.as_ref(), "a SEQUENCE's count");
                Type::Sequence {
                    element: Box::new(element?),
                    max: max?,
                }
            }
            TypeKind::Array(element, bound) => {
                let element = self.resolve_type(file, element);
                let len = self
                    .bound(file, bound, "an ARRAY's count")
                    .and_then(|len| self.array_len(file, bound, len));
                Type::Array {
                    element: Box::new(element?),
                    len: len?,
                }
            }
            TypeKind::Optional(inner) => Type::Optional(Box::new(self.resolve_type(file, inner)?)),
            TypeKind::Quaternion => Type::Quaternion,
            TypeKind::Named(name) => self.named_type(file, name)?,
        })
    }

    fn named_type(&mut self, file: FileId, name: &Ident) -> Option<Type> {
        match self.decls.get(&name.name) {
            Some(decl) => match decl.kind {
                DeclKind::Struct(..) => Some(Type::Struct(name.name.clone())),
                DeclKind::Enum(_) => Some(Type::Enum(name.name.clone())),
                DeclKind::Typedef(_) => self.typedef_type(&name.name),
                other => {
                    let (decl_file, decl_span) = (decl.file, decl.name.span);
                    self.wrong_kind(file, name, other.describe(), "a type");
                    if let Some(last) = self.diagnostics.last_mut() {
                        last.labels
                            .push(secondary(decl_file, decl_span).with_message("declared here"));
                    }
                    None
                }
            },
            None => {
                let types = self.decls.names_where(|k| {
                    matches!(
                        k,
                        DeclKind::Struct(..) | DeclKind::Enum(_) | DeclKind::Typedef(_)
                    )
                });
                // The built-in types are keywords, so a misspelt one (`UNIT32`) lands here.
                const BUILT_IN: &[&str] = &[
                    "BOOL", "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32",
                    "INT64", "FLOAT32", "FLOAT64", "NUMERIC", "STRING", "BYTES", "SEQUENCE",
                    "ARRAY", "OPTIONAL",
                ];
                let mut notes = vec![];
                if let Some(note) = did_you_mean(
                    &name.name,
                    types.into_iter().chain(BUILT_IN.iter().copied()),
                ) {
                    notes.push(note);
                }
                notes.push(
                    "declare it in this file or in a file that is IMPORTed or given to idlc".into(),
                );
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::UNKNOWN_TYPE)
                        .with_message(format!("cannot find type `{}`", name.name))
                        .with_labels(vec![primary(file, name.span).with_message("not declared")])
                        .with_notes(notes),
                );
                None
            }
        }
    }

    fn wrong_kind(&mut self, file: FileId, name: &Ident, is: &str, wanted: &str) {
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::WRONG_KIND_OF_NAME)
                .with_message(format!("`{}` is {is}, not {wanted}", name.name))
                .with_labels(vec![
                    primary(file, name.span).with_message(format!("expected {wanted}")),
                ]),
        );
    }

    /// A number, literal or CONST (maybe negated).
    pub(super) fn number(&mut self, file: FileId, number: &NumberRef) -> Option<NumberValue> {
        match number {
            NumberRef::Literal(n) => Some(n.value),
            NumberRef::Const(name) => {
                let value = number_of(&self.named_value(file, name)?);
                if value.is_none() {
                    self.literal_error(
                        file,
                        name.span,
                        &format!("CONST `{}` is not a number", name.name),
                    );
                }
                value
            }
            // A value that is not a number is reported there.
            NumberRef::Negated(negated) => number_of(&self.negated_value(file, negated)?),
        }
    }

    /// `-NAME`: the value of a numeric CONST, negated; an integer stays within INT64.
    pub(super) fn negated_value(&mut self, file: FileId, negated: &Negated) -> Option<Value> {
        let name = &negated.name.name;
        let value = self.named_value(file, &negated.name)?;
        match value.negated() {
            Some(Value::Int(v)) if v < i128::from(i64::MIN) => {
                self.literal_error(
                    file,
                    negated.span,
                    &format!("`-{name}` is {v}, below INT64's minimum"),
                );
                None
            }
            Some(value) => Some(value),
            None => {
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::WRONG_LITERAL)
                        .with_message(format!("`{name}` is not a number: it cannot be negated"))
                        .with_labels(vec![primary(file, negated.span)])
                        .with_notes(vec![
                            "only a CONST holding a number can be negated (`-MAX_SPEED`)".into(),
                        ]),
                );
                None
            }
        }
    }

    fn integer(&mut self, file: FileId, number: &NumberRef, what: &str) -> Option<i128> {
        match self.number(file, number)? {
            NumberValue::Int(v) => Some(v),
            NumberValue::Real(_) => {
                self.literal_error(file, number.span(), &format!("{what} must be an integer"));
                None
            }
        }
    }

    fn real(&mut self, file: FileId, number: &NumberRef) -> Option<f64> {
        Some(match self.number(file, number)? {
            NumberValue::Int(v) => v as f64,
            NumberValue::Real(v) => v,
        })
    }

    fn literal_error(&mut self, file: FileId, span: Span, message: &str) {
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::WRONG_LITERAL)
                .with_message(message.to_string())
                .with_labels(vec![primary(file, span)]),
        );
    }

    fn bound(&mut self, file: FileId, number: &NumberRef, what: &str) -> Option<u64> {
        let value = self.integer(file, number, what)?;
        match u64::try_from(value) {
            Ok(v) if v > 0 => Some(v),
            _ => {
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::BAD_BOUND)
                        .with_message(format!("{what} must be a positive integer, not {value}"))
                        .with_labels(vec![primary(file, number.span())]),
                );
                None
            }
        }
    }

    /// An ARRAY's count, when it is at most [`MAX_ARRAY_LEN`].
    fn array_len(&mut self, file: FileId, number: &NumberRef, len: u64) -> Option<u64> {
        if len <= MAX_ARRAY_LEN {
            return Some(len);
        }
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::BAD_BOUND)
                .with_message(format!(
                    "an ARRAY's count must be at most {MAX_ARRAY_LEN}, not {len}"
                ))
                .with_labels(vec![
                    primary(file, number.span())
                        .with_message("its elements would be held inside the struct"),
                ])
                .with_notes(vec![format!(
                    "help: for more elements write SEQUENCE<T, {len}>: held on the heap, its count sent in {} bits",
                    bits_required(0, len.into())
                )]),
        );
        None
    }

    /// `Some(None)` when there is no bound, `None` when the bound is wrong.
    fn optional_bound(
        &mut self,
        file: FileId,
        number: Option<&NumberRef>,
        what: &str,
    ) -> Option<Option<u64>> {
        match number {
            None => Some(None),
            Some(number) => self.bound(file, number, what).map(Some),
        }
    }

    fn int_range(&mut self, file: FileId, range: &Range) -> Option<Type> {
        let min = self.integer(file, &range.min, "an INT range's bound");
        let max = self.integer(file, &range.max, "an INT range's bound");
        let (mut min, mut max) = (min?, max?);
        if !range.min_inclusive {
            min += 1;
        }
        if !range.max_inclusive {
            max -= 1;
        }
        if min > max {
            self.range_error(
                file,
                range,
                "this range holds no integer",
                "write the smaller bound first; `[a,b)` excludes b",
            );
            return None;
        }
        if bits_required(min, max) > 64 {
            self.range_error(
                file,
                range,
                "this range is wider than 64 bits",
                "an INT range may span at most 2^64 values",
            );
            return None;
        }
        Some(Type::IntRange { min, max })
    }

    fn numeric_range(&mut self, file: FileId, range: &Range) -> Option<Type> {
        let min = self.real(file, &range.min);
        let max = self.real(file, &range.max);
        let (min, max) = (min?, max?);
        let empty = min > max || (min == max && !(range.min_inclusive && range.max_inclusive));
        if empty {
            self.range_error(
                file,
                range,
                "this range holds no number",
                "write the smaller bound first",
            );
            return None;
        }
        Some(Type::Numeric {
            min,
            max,
            min_inclusive: range.min_inclusive,
            max_inclusive: range.max_inclusive,
        })
    }

    fn range_error(&mut self, file: FileId, range: &Range, label: &str, note: &str) {
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::BAD_RANGE)
                .with_message("invalid range")
                .with_labels(vec![
                    primary(file, range.span).with_message(label.to_string()),
                ])
                .with_notes(vec![note.to_string()]),
        );
    }
}
