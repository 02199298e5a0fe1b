//! Checking an enum restated in a mapping against the IDL's: same enumerators, order and values.

use super::{Resolver, error};
use crate::diagnostics::{FileId, codes, primary, secondary};
use crate::front::common::NumberValue;
use crate::front::idl::ast::EnumDecl;
use crate::front::span::Span;
use crate::ir::EnumDef;

impl Resolver<'_> {
    /// Reports the first difference between the restated `decl` and the IDL's `def`, if any.
    /// Implicit values count up from the previous enumerator (from 0 for the first).
    pub(super) fn compare_enum(&mut self, file: FileId, decl: &EnumDecl, def: &EnumDef) {
        let mut next: i128 = 0;
        let mut difference: Option<(Span, String, &'static str)> = None;
        for (index, enumerator) in decl.enumerators.iter().enumerate() {
            let name = &enumerator.name.name;
            let value = match enumerator.value.map(|n| n.value) {
                None => next,
                Some(NumberValue::Int(value)) => value,
                Some(NumberValue::Real(value)) => {
                    difference = Some((
                        enumerator.span,
                        format!("`{name}` = {value} is not an integer"),
                        "not an integer",
                    ));
                    break;
                }
            };
            next = value.saturating_add(1);
            match def.enumerators.get(index) {
                None => {
                    difference = Some((
                        enumerator.span,
                        format!("`{}` has no enumerator `{name}` in the IDL", def.name),
                        "not in the IDL",
                    ));
                    break;
                }
                Some(idl) if idl.name != *name => {
                    difference = Some((
                        enumerator.span,
                        format!("`{name}` stands where the IDL has `{}`", idl.name),
                        "differs from the IDL",
                    ));
                    break;
                }
                Some(idl) if i128::from(idl.value) != value => {
                    difference = Some((
                        enumerator.span,
                        format!("`{name}` is {value} here but {} in the IDL", idl.value),
                        "another value",
                    ));
                    break;
                }
                Some(_) => {}
            }
        }
        if difference.is_none() && decl.enumerators.len() < def.enumerators.len() {
            let missing: Vec<String> = def
                .enumerators
                .iter()
                .skip(decl.enumerators.len())
                .map(|e| format!("`{}`", e.name))
                .collect();
            let end = decl.span.end;
            let at = if end > decl.span.start {
                Span::new(end - 1, end)
            } else {
                decl.span
            };
            difference = Some((
                at,
                format!("the restated enum lacks {}", missing.join(", ")),
                "missing enumerators",
            ));
        }
        let Some((span, what, label)) = difference else {
            return;
        };
        let idl: Vec<String> = def
            .enumerators
            .iter()
            .map(|e| format!("{}={}", e.name, e.value))
            .collect();
        self.push(
            error(
                codes::MAP_ENUM_MISMATCH,
                format!(
                    "the restated enum `{}` does not match the IDL: {what}",
                    def.name
                ),
            )
            .with_labels(vec![
                primary(file, span).with_message(label),
                secondary(def.loc.file, def.loc.span)
                    .with_message(format!("`{}` declared here", def.name)),
            ])
            .with_notes(vec![format!(
                "a restated enum must repeat the IDL's exactly ({}), or be left out: the mapping does not need it",
                idl.join(", ")
            )]),
        );
    }
}
