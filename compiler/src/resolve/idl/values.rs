//! DEFAULT values checked against the field's type.

use codespan_reporting::diagnostic::Diagnostic as CodespanDiagnostic;

use super::Resolver;
use super::declarations::DeclKind;
use crate::diagnostics::{FileId, codes, primary};
use crate::front::common::{Literal, NumberValue};
use crate::front::span::Span;
use crate::ir::{Type, Value};

impl Resolver<'_> {
    /// The value of `literal` as a DEFAULT of a field of type `ty`, or None (reported).
    pub(super) fn check_default(
        &mut self,
        file: FileId,
        ty: &Type,
        literal: &Literal,
    ) -> Option<Value> {
        let span = literal.span();
        let value = match literal {
            Literal::Number(n) => match n.value {
                NumberValue::Int(v) => Value::Int(v),
                NumberValue::Real(v) => Value::Real(v),
            },
            Literal::Bool(b, _) => Value::Bool(*b),
            Literal::Str(s) => Value::Str(s.value.clone()),
            Literal::Name(name) => {
                if let Type::Enum(e) = ty {
                    if self.enumerators(e).contains(&name.name) {
                        return Some(Value::Enumerator(name.name.clone()));
                    }
                    if !matches!(
                        self.decls.get(&name.name).map(|d| d.kind),
                        Some(DeclKind::Const(_))
                    ) {
                        let names = self.enumerators(e).join(", ");
                        self.bad_default(
                            file,
                            span,
                            format!("`{}` is not an enumerator of `{e}`", name.name),
                            format!("`{e}` has {names}"),
                        );
                        return None;
                    }
                }
                self.named_value(file, name)?
            }
            Literal::Negated(negated) => self.negated_value(file, negated)?,
        };
        self.check_value(file, span, ty, value)
    }

    fn enumerators(&self, name: &str) -> Vec<String> {
        match self.decls.get(name).map(|d| d.kind) {
            Some(DeclKind::Enum(e)) => e.enumerators.iter().map(|x| x.name.name.clone()).collect(),
            _ => Vec::new(),
        }
    }

    fn check_value(&mut self, file: FileId, span: Span, ty: &Type, value: Value) -> Option<Value> {
        let fits = match (ty, &value) {
            (Type::Bool, Value::Bool(_)) => true,
            (_, Value::Int(v)) if ty.int_range().is_some() => {
                let (min, max) = ty.int_range().unwrap_or_default();
                (min..=max).contains(v)
            }
            (Type::Float32 | Type::Float64, Value::Int(_) | Value::Real(_)) => true,
            (
                Type::Numeric {
                    min,
                    max,
                    min_inclusive,
                    max_inclusive,
                },
                Value::Int(_) | Value::Real(_),
            ) => {
                let v = match value {
                    Value::Int(v) => v as f64,
                    Value::Real(v) => v,
                    _ => f64::NAN,
                };
                let above_min = if *min_inclusive { v >= *min } else { v > *min };
                let below_max = if *max_inclusive { v <= *max } else { v < *max };
                above_min && below_max
            }
            (Type::String { max }, Value::Str(s)) | (Type::Bytes { max }, Value::Str(s)) => {
                max.is_none_or(|max| s.len() as u64 <= max)
            }
            (Type::Enum(e), Value::Enumerator(name)) => self.enumerators(e).contains(name),
            (
                Type::Sequence { .. } | Type::Array { .. } | Type::Optional(_) | Type::Struct(_),
                _,
            ) => {
                self.bad_default(
                    file,
                    span,
                    format!("a {} field takes no DEFAULT", ty.describe()),
                    "sequences and arrays default to empty, OPTIONAL to absent, structs to their fields' defaults".into(),
                );
                return None;
            }
            _ => {
                self.bad_default(
                    file,
                    span,
                    format!("this DEFAULT is not a value of {}", ty.describe()),
                    "a DEFAULT is a literal of the field's type, an enumerator of its enum, or a CONST".into(),
                );
                return None;
            }
        };
        if fits {
            Some(value)
        } else {
            self.bad_default(
                file,
                span,
                format!("this DEFAULT is outside {}", ty.describe()),
                "a DEFAULT must be a value the field can hold".into(),
            );
            None
        }
    }

    fn bad_default(&mut self, file: FileId, span: Span, message: String, note: String) {
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::BAD_DEFAULT)
                .with_message(message)
                .with_labels(vec![primary(file, span)])
                .with_notes(vec![note]),
        );
    }
}
