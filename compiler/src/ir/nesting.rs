//! Which structs are held by others: a query on the IR that codegen and check-compat share.

use std::collections::HashSet;

use super::{Schema, Type};

/// The structs held by another struct (as a field or an EXTEND's type, or inside a SEQUENCE,
/// ARRAY or OPTIONAL of one).
pub fn nested_structs(schema: &Schema) -> HashSet<&str> {
    fn held<'s>(ty: &'s Type, out: &mut HashSet<&'s str>) {
        match ty {
            Type::Struct(name) => {
                out.insert(name);
            }
            Type::Sequence { element, .. } | Type::Array { element, .. } => held(element, out),
            Type::Optional(inner) => held(inner, out),
            _ => {}
        }
    }
    let mut out = HashSet::new();
    for def in schema.structs.values() {
        for segment in &def.segments {
            for field in &segment.fields {
                held(&field.ty, &mut out);
            }
            for extend in &segment.extends {
                held(&extend.to, &mut out);
            }
        }
    }
    out
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
