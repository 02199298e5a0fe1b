//! `DIFF(b1, ..., bk)` on a field: where it may stand and which tiers it may have.

use codespan_reporting::diagnostic::Diagnostic as CodespanDiagnostic;

use super::{EncodingResolver, FieldRef};
use crate::diagnostics::{FileId, codes, primary};
use crate::front::common::NumberValue;
use crate::front::enc::ast::{DiffTiers, EncField};
use crate::ir::{Field, StructDef, WireRule};

/// Where a field with DIFF stands: what gives it a baseline to take differences from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Baseline {
    /// At the top level of a block: only its own `DELTA` gives one.
    OwnDelta,
    /// Inside a `DELTA { }` or `DEAD_RECKONING` block.
    Block,
}

impl EncodingResolver<'_> {
    /// The tiers of the field's `DIFF`, when it has one that applies: a baseline, a rule with
    /// steps (`rule`, as the stream rounds it), a field no later version EXTENDs, and tiers of
    /// 1 to the field's width in bits. Anything else is reported, with its fix.
    pub(super) fn diff_tiers(
        &mut self,
        file: FileId,
        def: &StructDef,
        f: &EncField,
        field: &Field,
        rule: &WireRule,
        baseline: Baseline,
    ) -> Option<Vec<u32>> {
        let diff = f.diff.as_ref()?;
        let fref = FieldRef::of(field);
        if baseline == Baseline::OwnDelta && f.delta.is_none() {
            self.diff_error(
                codes::ENC_DIFF_NO_BASELINE,
                file,
                diff,
                format!("DIFF on {}, which has no baseline", fref.what()),
                "no baseline to take a difference from".into(),
                format!(
                    "DIFF sends a changed value as its difference to the state the receiver holds: write `DELTA DIFF(..) {0}`, or put `{0}` in a DELTA or DEAD_RECKONING block",
                    field.name
                ),
            );
            return None;
        }
        let Some(steps) = rule.diff_steps(&field.ty) else {
            self.diff_error(
                codes::ENC_DIFF_NO_STEPS,
                file,
                diff,
                format!(
                    "DIFF on {}, whose rule ({}) has no steps",
                    fref.what(),
                    describe(rule)
                ),
                "no steps to take a difference of".into(),
                "DIFF sends a difference of steps: give the field FIXED_POINT(r) (a NUMERIC), or BIT(n), VLQ or a fixed width (an integer or enum)".into(),
            );
            return None;
        };
        let extended = def
            .segments
            .iter()
            .flat_map(|s| &s.extends)
            .any(|e| e.field == field.name);
        if extended {
            self.diff_error(
                codes::ENC_DIFF_NO_STEPS,
                file,
                diff,
                format!("DIFF on {}, which a later version EXTENDs", fref.what()),
                "the old slot holds a narrowed value".into(),
                "the slot of a widened field holds its value narrowed to the old type: send it whole (remove DIFF), or DIFF a field that is not EXTENDed".into(),
            );
            return None;
        }
        let width = steps.bits();
        if diff.tiers.is_empty() {
            self.diff_error(
                codes::ENC_DIFF_TIERS,
                file,
                diff,
                "DIFF without tiers".into(),
                "no tiers".into(),
                format!(
                    "list the widths of the differences in bits, smallest first, each from 1 to {width} (the field's width): e.g. DIFF(4, 8)"
                ),
            );
            return None;
        }
        let mut tiers = Vec::new();
        for number in &diff.tiers {
            let bits = match number.value {
                NumberValue::Int(v) => u32::try_from(v).ok().filter(|&b| (1..=width).contains(&b)),
                NumberValue::Real(_) => None,
            };
            match bits {
                Some(bits) => tiers.push(bits),
                None => {
                    self.error(
                        CodespanDiagnostic::error()
                            .with_code(codes::ENC_DIFF_TIERS)
                            .with_message(format!(
                                "a DIFF tier of {} bits on {}, whose steps take {width} bits",
                                number_text(&number.value),
                                fref.what()
                            ))
                            .with_labels(vec![
                                primary(file, number.span)
                                    .with_message(format!("not from 1 to {width}")),
                                fref.label(),
                            ])
                            .with_notes(vec![format!(
                                "a tier holds differences of up to its width in bits (zigzag-coded): 1 to {width} for this field; a difference no tier holds is sent whole"
                            )]),
                    );
                    return None;
                }
            }
        }
        let mut widest = 0;
        for (number, &bits) in diff.tiers.iter().zip(&tiers) {
            if bits <= widest {
                self.diagnostics.push(
                    CodespanDiagnostic::warning()
                        .with_code(codes::ENC_DIFF_TIER_UNUSED)
                        .with_message(format!(
                            "this DIFF tier of {bits} bits on {} is never used",
                            fref.what()
                        ))
                        .with_labels(vec![
                            primary(file, number.span)
                                .with_message(format!("an earlier tier holds {widest} bits")),
                        ])
                        .with_notes(vec![
                            "a difference goes in the first tier that holds it: list the tiers from the narrowest to the widest".into(),
                        ]),
                );
            }
            widest = widest.max(bits);
        }
        Some(tiers)
    }

    fn diff_error(
        &mut self,
        code: &str,
        file: FileId,
        diff: &DiffTiers,
        message: String,
        label: String,
        note: String,
    ) {
        self.error(
            CodespanDiagnostic::error()
                .with_code(code)
                .with_message(message)
                .with_labels(vec![primary(file, diff.span).with_message(label)])
                .with_notes(vec![note]),
        );
    }
}

/// A rule without steps, as the diagnostic names it.
fn describe(rule: &WireRule) -> &'static str {
    match rule {
        WireRule::Bool { .. } => "BOOL",
        WireRule::Huffman { .. } => "HUFFMAN",
        WireRule::Float32 => "FLOAT32",
        WireRule::Float64 => "FLOAT64",
        WireRule::Bytes { utf8: true, .. } => "a string",
        WireRule::Bytes { .. } => "bytes",
        WireRule::Sequence { .. } => "a sequence",
        WireRule::Array { .. } => "an array",
        WireRule::Optional(_) => "an OPTIONAL",
        WireRule::Struct(_) => "a struct",
        _ => "a rule of one value",
    }
}

fn number_text(value: &NumberValue) -> String {
    match value {
        NumberValue::Int(v) => v.to_string(),
        NumberValue::Real(v) => v.to_string(),
    }
}
