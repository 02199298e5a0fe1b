//! Resolution: joins the ASTs of the three languages into the IR, checking everything that
//! parsing cannot: names, ranges, CONSTs, fences, encodings against types, mappings against
//! fields. Errors are collected, never fatal; the IR is built from what resolves.

pub mod encoding;
pub mod idl;
pub mod mapping;
pub mod names;
pub mod suggest;

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
    (ir, diagnostics)
}
