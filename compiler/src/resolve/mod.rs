//! Resolution: joins the ASTs of the three languages into the IR, checking everything that
//! parsing cannot: names, ranges, CONSTs, fences, encodings against types, mappings against
//! fields. Errors are collected, never fatal; the IR is built from what resolves.

pub mod encoding;
pub mod idl;
pub mod lossy;
pub mod mapping;
pub mod names;
pub mod sizes;

use codespan_reporting::diagnostic::Severity;

use crate::diagnostics::Diagnostic;
use crate::ir::Ir;
use crate::load::Parsed;

/// Resolves the parsed files into the IR for `side` (no side: built-in Rust types only).
pub fn resolve(parsed: &Parsed, side: Option<&str>) -> (Ir, Vec<Diagnostic>) {
    resolve_sides(parsed, &[side])
}

/// [`resolve`] for every side the Rust mapping items name (for `idlc check` without a side):
/// the IR of the first side (by name), and the diagnostics of all sides, each once. Without
/// Rust mapping items it is [`resolve`] with no side.
pub fn resolve_every_side(parsed: &Parsed) -> (Ir, Vec<Diagnostic>) {
    let sides: Vec<Option<&str>> = mapping::sides(&parsed.mappings)
        .into_iter()
        .map(Some)
        .collect();
    if sides.is_empty() {
        return resolve(parsed, None);
    }
    resolve_sides(parsed, &sides)
}

/// The schema and the encodings resolved once, the mapping for each of `sides`: the IR of the
/// first side, and every diagnostic once (each side's resolution validates the items of all
/// sides, so those errors would repeat).
fn resolve_sides(parsed: &Parsed, sides: &[Option<&str>]) -> (Ir, Vec<Diagnostic>) {
    let (schema, mut diagnostics) = idl::resolve_schema(&parsed.idl);
    let mut mappings = Vec::with_capacity(sides.len());
    for side in sides {
        let (mapping, found) = mapping::resolve_mapping(&schema, &parsed.mappings, *side);
        extend_new(&mut diagnostics, found);
        mappings.push(mapping);
    }
    let (encodings, encoding_diagnostics) = encoding::resolve_encodings(&schema, &parsed.encodings);
    diagnostics.extend(encoding_diagnostics);
    let mut mappings = mappings.into_iter();
    let mut ir = Ir {
        schema,
        encodings,
        mapping: mappings.next().unwrap_or_default(),
        plan_cache: Default::default(),
    };
    diagnostics.extend(sizes::check_zero_size_sequences(&ir));
    // A warning about values lost is noise next to errors (and the IR may be partial then).
    if !diagnostics.iter().any(|d| d.severity >= Severity::Error) {
        diagnostics.extend(lossy::check_lossy_mappings(&ir));
        for mapping in mappings {
            let first = std::mem::replace(&mut ir.mapping, mapping);
            extend_new(&mut diagnostics, lossy::check_lossy_mappings(&ir));
            ir.mapping = first;
        }
    }
    (ir, diagnostics)
}

/// Appends the diagnostics of `found` that `diagnostics` does not hold yet.
fn extend_new(diagnostics: &mut Vec<Diagnostic>, found: Vec<Diagnostic>) {
    for diagnostic in found {
        if !diagnostics.contains(&diagnostic) {
            diagnostics.push(diagnostic);
        }
    }
}

/// The IR type of a fixed-width primitive (both the IDL and an Encoding's EXTEND write them).
pub(crate) fn primitive_type(primitive: crate::front::common::Primitive) -> crate::ir::Type {
    use crate::front::common::Primitive;
    use crate::ir::Type;
    match primitive {
        Primitive::Bool => Type::Bool,
        Primitive::Uint8 => Type::Uint(8),
        Primitive::Uint16 => Type::Uint(16),
        Primitive::Uint32 => Type::Uint(32),
        Primitive::Uint64 => Type::Uint(64),
        Primitive::Int8 => Type::Int(8),
        Primitive::Int16 => Type::Int(16),
        Primitive::Int32 => Type::Int(32),
        Primitive::Int64 => Type::Int(64),
        Primitive::Float32 => Type::Float32,
        Primitive::Float64 => Type::Float64,
    }
}

/// The number a CONST's value is, if it is one.
fn number_of(value: &crate::ir::Value) -> Option<crate::front::common::NumberValue> {
    use crate::front::common::NumberValue;
    use crate::ir::Value;
    match value {
        Value::Int(v) => Some(NumberValue::Int(*v)),
        Value::Real(v) => Some(NumberValue::Real(*v)),
        _ => None,
    }
}
