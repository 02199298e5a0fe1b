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
    let (schema, mut diagnostics) = idl::resolve_schema(&parsed.idl);
    let (mapping, mapping_diagnostics) = mapping::resolve_mapping(&schema, &parsed.mappings, side);
    diagnostics.extend(mapping_diagnostics);
    let (encodings, encoding_diagnostics) = encoding::resolve_encodings(&schema, &parsed.encodings);
    diagnostics.extend(encoding_diagnostics);
    let ir = Ir {
        schema,
        encodings,
        mapping,
    };
    diagnostics.extend(sizes::check_zero_size_sequences(&ir));
    // A warning about values lost is noise next to errors (and the IR may be partial then).
    if !diagnostics.iter().any(|d| d.severity >= Severity::Error) {
        diagnostics.extend(lossy::check_lossy_mappings(&ir));
    }
    (ir, diagnostics)
}

/// [`resolve`] for every side the Rust mapping items name (for `idlc check` without a side):
/// the IR of the first side (by name), and the diagnostics of all sides, each once. Without
/// Rust mapping items it is [`resolve`] with no side.
pub fn resolve_every_side(parsed: &Parsed) -> (Ir, Vec<Diagnostic>) {
    let sides = mapping::sides(&parsed.mappings);
    let Some((first, rest)) = sides.split_first() else {
        return resolve(parsed, None);
    };
    let (ir, mut diagnostics) = resolve(parsed, Some(first));
    for side in rest {
        for diagnostic in resolve(parsed, Some(side)).1 {
            if !diagnostics.contains(&diagnostic) {
                diagnostics.push(diagnostic);
            }
        }
    }
    (ir, diagnostics)
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
