//! Which structs are held by others: queries on the IR that codegen and check-compat share.

use std::collections::HashSet;

use super::{Ir, Schema, StructDef, Type, WireItem, WireRule};

/// The structs a value of `ty` holds directly (itself a struct, or inside a SEQUENCE, ARRAY or
/// OPTIONAL of one).
fn held<'s>(ty: &'s Type, out: &mut impl Extend<&'s str>) {
    match ty {
        Type::Struct(name) => out.extend([name.as_str()]),
        Type::Sequence { element, .. } | Type::Array { element, .. } => held(element, out),
        Type::Optional(inner) => held(inner, out),
        _ => {}
    }
}

/// The structs `def` holds directly (as a field or an EXTEND's type, or inside a SEQUENCE, ARRAY
/// or OPTIONAL of one): those whose codecs its codec calls.
pub fn held_by(def: &StructDef) -> HashSet<&str> {
    let mut out = HashSet::new();
    for segment in &def.segments {
        for field in &segment.fields {
            held(&field.ty, &mut out);
        }
        for extend in &segment.extends {
            held(&extend.to, &mut out);
        }
    }
    out
}

/// The structs held by another struct (as a field or an EXTEND's type, or inside a SEQUENCE,
/// ARRAY or OPTIONAL of one).
pub fn nested_structs(schema: &Schema) -> HashSet<&str> {
    schema.structs.values().flat_map(held_by).collect()
}

/// The nested structs (see [`nested_structs`]) that have a FENCE (segments after one, or an
/// open end): nested, their later segments travel in length-prefixed open extensions, so that
/// an older reader can skip them (WIRE.md, "Fences and versions").
pub fn nested_fenced_structs(schema: &Schema) -> HashSet<&str> {
    let mut out = nested_structs(schema);
    out.retain(|name| {
        schema
            .structs
            .get(*name)
            .is_some_and(|d| d.segments.len() > 1 || d.open_end)
    });
    out
}

/// The structs a `DELTA SEQUENCE` compares as sent to decide which elements changed: its
/// element structs in any encoding, and every struct they hold, however deep.
pub fn compared_as_sent(ir: &Ir) -> HashSet<&str> {
    fn elements<'i>(items: &'i [WireItem], out: &mut Vec<&'i str>) {
        for item in items {
            match item {
                WireItem::Field(field) => {
                    if let WireRule::Sequence {
                        element_delta: true,
                        element,
                        ..
                    } = &field.rule
                        && let WireRule::Struct(name) = &**element
                    {
                        out.push(name);
                    }
                }
                WireItem::DeltaBlock(inner) => elements(inner, out),
                _ => {}
            }
        }
    }
    let mut pending = Vec::new();
    for layout in ir.encodings.values().flat_map(|e| e.structs.values()) {
        for segment in &layout.segments {
            elements(&segment.items, &mut pending);
        }
    }
    let mut found = HashSet::new();
    while let Some(name) = pending.pop() {
        if found.insert(name)
            && let Some(def) = ir.schema.structs.get(name)
        {
            for field in def.fields() {
                held(&field.ty, &mut pending);
            }
        }
    }
    found
}
