//! A `DERIVE` that a generated struct cannot satisfy: `Copy` for a struct holding a `Vec`,
//! `Eq` or `Hash` for one holding an `f64`, serde's `Serialize` or `Deserialize` for one holding
//! an array of more than 32 elements. Every generated type of the side derives what a
//! DERIVE lists, so the generated code would not compile; the error points at the DERIVE and
//! names the first field in the way.

use std::collections::HashSet;

use super::error;
use crate::diagnostics::{Diagnostic, FileId, codes, primary};
use crate::front::span::Span;
use crate::ir::{RustType, SideMapping};

/// What a derived trait needs of every field.
#[derive(Clone, Copy, PartialEq)]
enum Need {
    /// `Copy`: no heap types.
    Copy,
    /// `Eq`, `Hash`, `Ord`: no floats.
    Total,
    /// serde's `Serialize`, `Deserialize`: no array of more than 32 elements (serde implements
    /// arrays up to 32).
    Serde,
}

impl Need {
    fn of(derive: &str) -> Option<Need> {
        match derive.rsplit("::").next().unwrap_or(derive) {
            "Copy" => Some(Need::Copy),
            "Eq" | "Hash" | "Ord" => Some(Need::Total),
            "Serialize" | "Deserialize" => Some(Need::Serde),
            _ => None,
        }
    }
}

/// One error per DERIVE (of the side's) that some generated struct cannot satisfy.
pub(super) fn check(mapping: &SideMapping, derives: &[(String, FileId, Span)]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (derive, file, span) in derives {
        let Some(need) = Need::of(derive) else {
            continue;
        };
        let blocker = mapping
            .structs
            .iter()
            .filter(|(_, s)| !s.existing)
            .find_map(|(name, s)| {
                s.fields.iter().find_map(|(field, f)| {
                    let mut seen = HashSet::new();
                    (!satisfies(mapping, &f.ty, need, &mut seen)).then(|| {
                        let quaternion = holds_quaternion(&f.ty);
                        (name.clone(), field.clone(), f.ty.to_string(), quaternion)
                    })
                })
            });
        if let Some((name, field, ty, quaternion)) = blocker {
            let why = match need {
                Need::Serde if quaternion => {
                    ": idlc_runtime::Quaternion does not implement serde's traits"
                }
                Need::Copy => ", which holds heap data",
                Need::Total => ": a float has no total equality or order",
                Need::Serde => ": serde implements arrays of at most 32 elements",
            };
            out.push(
                error(
                    codes::MAP_DERIVE_UNSATISFIABLE,
                    format!("`{derive}` cannot be derived for every generated type of the side"),
                )
                .with_labels(vec![
                    primary(*file, *span).with_message(format!("`{name}.{field}` is `{ty}`{why}")),
                ])
                .with_notes(vec![
                    "a DERIVE applies to every struct and enum the side generates; remove it, or \
                     map the structs that need it to types of your own"
                        .into(),
                ]),
            );
        }
    }
    out
}

/// Whether `ty` is or holds a QUATERNION.
fn holds_quaternion(ty: &RustType) -> bool {
    match ty {
        RustType::Quaternion => true,
        RustType::Vec(inner)
        | RustType::Collection { element: inner, .. }
        | RustType::Boxed(inner)
        | RustType::Array(inner, _)
        | RustType::Option(inner) => holds_quaternion(inner),
        _ => false,
    }
}

/// Whether a field of type `ty` allows the derive.
fn satisfies<'m>(
    mapping: &'m SideMapping,
    ty: &'m RustType,
    need: Need,
    seen: &mut HashSet<&'m str>,
) -> bool {
    match ty {
        RustType::Bool | RustType::Int(_) => true,
        RustType::F32 | RustType::F64 => need != Need::Total,
        RustType::Quaternion => need != Need::Total && need != Need::Serde,
        // A game's rotation type: its floats are never `Eq`; the rest is its owner's business.
        RustType::QuaternionAs(_) => need != Need::Total,
        RustType::Array(_, len) if need == Need::Serde && *len > 32 => false,
        RustType::String
        | RustType::Bytes
        | RustType::Vec(_)
        | RustType::Collection { .. }
        | RustType::Boxed(_)
            if need == Need::Copy =>
        {
            false
        }
        RustType::String | RustType::Bytes => true,
        RustType::Vec(inner)
        | RustType::Collection { element: inner, .. }
        | RustType::Boxed(inner)
        | RustType::Array(inner, _)
        | RustType::Option(inner) => satisfies(mapping, inner, need, seen),
        RustType::Named(name) => {
            // A generated struct: its fields; a generated enum derives Copy, Eq and Hash; an
            // existing type is its owner's business.
            let Some(def) = mapping
                .structs
                .values()
                .find(|s| !s.existing && &s.rust_name == name)
            else {
                return true;
            };
            if !seen.insert(name) {
                return true;
            }
            def.fields
                .values()
                .all(|f| satisfies(mapping, &f.ty, need, seen))
        }
    }
}
