//! A mapping type that cannot hold what an encoding sends: `f32 x;` for a NUMERIC that an
//! encoding sends as FLOAT64, or quantizes finer than an `f32` resolves. The generated code
//! compiles and runs, but a decoded value is rounded to the `f32`, so decoding and re-encoding
//! changes the bytes, and two sides with different mappings disagree. A warning, not an error:
//! a renderer may want `f32` on purpose.

use codespan_reporting::diagnostic::Diagnostic as CodespanDiagnostic;

use super::sizes::field_rules;
use crate::diagnostics::{Diagnostic, codes, primary, secondary};
use crate::ir::{Ir, RustType, WireRule};

/// One warning per mapped field whose Rust type loses values that some encoding sends, naming
/// every such encoding.
pub fn check_lossy_mappings(ir: &Ir) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for (name, def) in &ir.schema.structs {
        let Some(mapping) = ir.mapping.structs.get(name) else {
            continue;
        };
        for field in def.fields() {
            let Some(rust) = mapping.fields.get(&field.name) else {
                continue;
            };
            let Some(written) = rust.loc else {
                continue;
            };
            let mut reasons = Vec::new();
            for encoding in ir.encodings.values() {
                let lost = field_rules(encoding, name, &field.name)
                    .into_iter()
                    .find_map(|rule| loses(&rust.ty, rule));
                if let Some(reason) = lost {
                    reasons.push(format!("the encoding `{}` {reason}", encoding.name));
                }
            }
            if reasons.is_empty() {
                continue;
            }
            let side = ir.mapping.side.as_deref().unwrap_or_default();
            let mut notes = reasons;
            notes.push(
                "a decoded value is rounded to the Rust type, so re-encoding it sends other \
                 bytes; map the field to `f64`, or send it as FLOAT32 or a coarser FIXED_POINT"
                    .into(),
            );
            diagnostics.push(
                CodespanDiagnostic::warning()
                    .with_code(codes::MAP_LOSSY_FOR_ENCODING)
                    .with_message(format!(
                        "`{}.{}` is `{}` on side `{side}`, which cannot hold every value an encoding sends",
                        def.name, field.name, rust.ty
                    ))
                    .with_labels(vec![
                        primary(written.file, written.span).with_message("mapped here"),
                        secondary(field.loc.file, field.loc.span)
                            .with_message(format!("the IDL declares `{}` here", field.name)),
                    ])
                    .with_notes(notes),
            );
        }
    }
    diagnostics
}

/// Why `rust` cannot hold every value sent with `rule`, if it cannot.
fn loses(rust: &RustType, rule: &WireRule) -> Option<String> {
    match (rust, rule) {
        (RustType::F32, WireRule::Float64) => Some("sends it as FLOAT64".into()),
        (
            RustType::F32,
            WireRule::FixedPoint {
                min,
                max,
                resolution,
                ..
            },
        ) => {
            let largest = min.abs().max(max.abs());
            let gap = f32_gap(largest);
            (gap > resolution / 2.0).then(|| {
                format!(
                    "sends it as FIXED_POINT({resolution}): near {largest} two `f32`s are {gap} \
                     apart, more than half a step"
                )
            })
        }
        (RustType::Vec(inner) | RustType::Collection { element: inner, .. }, rule) => match rule {
            WireRule::Sequence { element, .. } => loses(inner, element),
            _ => None,
        },
        (RustType::Array(inner, _), WireRule::Array { element, .. })
        | (RustType::Option(inner), WireRule::Optional(element)) => loses(inner, element),
        (RustType::Boxed(inner), rule) => loses(inner, rule),
        _ => None,
    }
}

/// The distance from the `f32` nearest `x` (`x >= 0`) to the next one up; infinite beyond the
/// `f32` range.
fn f32_gap(x: f64) -> f64 {
    let near = x as f32;
    if !near.is_finite() || near == f32::MAX {
        return f64::INFINITY;
    }
    f64::from(f32::from_bits(near.to_bits() + 1)) - f64::from(near)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_gaps() {
        assert_eq!(f32_gap(1.0), f64::from(f32::EPSILON));
        assert_eq!(f32_gap(10_000.0), 1.0 / 1024.0);
        assert_eq!(f32_gap(1e39), f64::INFINITY);
    }

    fn fixed(min: f64, max: f64, resolution: f64) -> WireRule {
        WireRule::FixedPoint {
            min,
            max,
            min_inclusive: true,
            max_inclusive: true,
            resolution,
            first: 0,
            steps: 0,
            bits: 0,
        }
    }

    #[test]
    fn what_an_f32_loses() {
        assert!(loses(&RustType::F32, &WireRule::Float64).is_some());
        assert!(loses(&RustType::F32, &WireRule::Float32).is_none());
        assert!(loses(&RustType::F64, &WireRule::Float64).is_none());
        // 1 cm over 10 km: f32s are about 1 mm apart there.
        assert!(loses(&RustType::F32, &fixed(-10_000.0, 10_000.0, 0.01)).is_none());
        // 1 mm over 100 km: they are 8 mm apart.
        assert!(loses(&RustType::F32, &fixed(-100_000.0, 100_000.0, 0.001)).is_some());
        let vec = RustType::Vec(Box::new(RustType::F32));
        let sequence = WireRule::Sequence {
            count: Box::new(WireRule::Float32),
            max: None,
            element: Box::new(WireRule::Float64),
            element_delta: false,
        };
        assert!(loses(&vec, &sequence).is_some());
    }
}
