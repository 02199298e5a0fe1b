//! Checks on the finished IR that need the widths of both the schema and an encoding.

use codespan_reporting::diagnostic::Diagnostic as CodespanDiagnostic;

use crate::diagnostics::{Diagnostic, codes, primary};
use crate::ir::cost::min_bits;
use crate::ir::{Encoding, Ir, WireItem, WireRule};

/// An unbounded SEQUENCE whose elements take no bits in some encoding (`SEQUENCE<INT[5,5]>`,
/// a sequence of empty structs) cannot be read safely: no count is too large for the bytes
/// left, so a hostile count would make the reader loop forever. It needs a bound.
pub fn check_zero_size_sequences(ir: &Ir) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for (name, def) in &ir.schema.structs {
        for field in def.fields() {
            let found = ir.encodings.values().find(|encoding| {
                field_rules(encoding, name, &field.name)
                    .iter()
                    .any(|rule| has_zero_size_sequence(ir, encoding, rule))
            });
            if let Some(encoding) = found {
                diagnostics.push(
                    CodespanDiagnostic::error()
                        .with_code(codes::ZERO_SIZE_SEQUENCE)
                        .with_message(format!(
                            "`{}.{}` is an unbounded SEQUENCE of values that take no bits in the encoding `{}`",
                            def.name, field.name, encoding.name
                        ))
                        .with_labels(vec![
                            primary(field.loc.file, field.loc.span)
                                .with_message("a reader cannot tell a hostile count from a real one"),
                        ])
                        .with_notes(vec![
                            "give the SEQUENCE a maximum count: SEQUENCE<T, N>".into(),
                        ]),
                );
            }
        }
    }
    diagnostics
}

/// Every rule `encoding` sends the field `owner.field` with (its slot and any extension).
pub(super) fn field_rules<'e>(
    encoding: &'e Encoding,
    owner: &str,
    field: &str,
) -> Vec<&'e WireRule> {
    let mut rules = Vec::new();
    if let Some(layout) = encoding.structs.get(owner) {
        for segment in &layout.segments {
            collect(&segment.items, field, &mut rules);
        }
    }
    rules
}

fn collect<'e>(items: &'e [WireItem], field: &str, rules: &mut Vec<&'e WireRule>) {
    for item in items {
        match item {
            WireItem::Field(f) if f.field == field => rules.push(&f.rule),
            WireItem::Extend(e) if e.field == field => rules.push(&e.rule),
            WireItem::DeltaBlock(inner) => collect(inner, field, rules),
            WireItem::DeadReckoning(dr) => rules.extend(
                dr.positions
                    .iter()
                    .chain(&dr.velocities)
                    .filter(|f| f.field == field)
                    .map(|f| &f.rule),
            ),
            _ => {}
        }
    }
}

fn has_zero_size_sequence(ir: &Ir, encoding: &Encoding, rule: &WireRule) -> bool {
    match rule {
        WireRule::Sequence {
            max: None, element, ..
        } if min_bits(ir, encoding, element) == 0 => true,
        WireRule::Sequence { element, .. }
        | WireRule::Array { element, .. }
        | WireRule::Optional(element) => has_zero_size_sequence(ir, encoding, element),
        _ => false,
    }
}
