//! `prefetch_owned`: the hint an encoder gives a batch of sequence elements ahead, so that the
//! cache misses on the memory they own overlap (the runtime's `iter_prefetching`). Generated for
//! the structs that are elements of a SEQUENCE and own memory, and for the memory-owning structs
//! those hold; the others keep the runtime's default (nothing).

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::quote;

use super::Ctx;
use super::fields::RustField;
use super::idents::ident;
use super::rules::rt;
use crate::ir::{Ir, RustType, Type};

/// The structs whose `prefetch_owned` does something: every struct of `owners` (see
/// `in_place::memory_owners`) that is the element of a SEQUENCE somewhere in the schema, and
/// every struct of `owners` held in a field of one of those, however deep.
pub(super) fn prefetched_structs<'a>(ir: &'a Ir, owners: &HashSet<&'a str>) -> HashSet<&'a str> {
    let mut out: HashSet<&str> = HashSet::new();
    for def in ir.schema.structs.values() {
        for field in def.fields() {
            sequence_elements(&field.ty, &mut |name| {
                if let Some(&owner) = owners.get(name) {
                    out.insert(owner);
                }
            });
        }
    }
    let mut pending: Vec<&str> = out.iter().copied().collect();
    while let Some(name) = pending.pop() {
        let Some(def) = ir.schema.structs.get(name) else {
            continue;
        };
        for field in def.fields() {
            if let Type::Struct(inner) = &field.ty
                && let Some(&owner) = owners.get(inner.as_str())
                && out.insert(owner)
            {
                pending.push(owner);
            }
        }
    }
    out
}

/// Calls `found` with the name of every struct that is the element of a SEQUENCE within `ty`.
fn sequence_elements<'t>(ty: &'t Type, found: &mut impl FnMut(&'t str)) {
    match ty {
        Type::Sequence { element, .. } => {
            if let Type::Struct(name) = element.as_ref() {
                found(name);
            }
            sequence_elements(element, found);
        }
        Type::Array { element, .. } | Type::Optional(element) => sequence_elements(element, found),
        _ => {}
    }
}

/// The `prefetch_owned` method of a struct of [`prefetched_structs`]: a prefetch of every `Vec`,
/// collection, `String` and BYTES field, and the `prefetch_owned` of every struct field that is
/// itself prefetched. Empty for the other structs.
pub(super) fn prefetch_owned_fn(
    ctx: &Ctx<'_>,
    name: &str,
    fields: &[RustField<'_>],
) -> TokenStream {
    if !ctx.prefetched.contains(name) {
        return TokenStream::new();
    }
    let rt = rt();
    let marker = &ctx.marker;
    let body = fields.iter().filter_map(|view| {
        let name = ident(&view.rust.rust_name);
        Some(match (&view.field.ty, &view.rust.ty) {
            (_, RustType::Vec(_) | RustType::Collection { .. }) => {
                quote!(#rt::Collection::prefetch(&self.#name);)
            }
            (_, RustType::Bytes) => quote!(#rt::prefetch(self.#name.as_slice());),
            (_, RustType::String) => quote!(#rt::prefetch(self.#name.as_bytes());),
            (Type::Struct(inner), RustType::Named(_))
                if ctx.prefetched.contains(inner.as_str()) =>
            {
                quote!(#rt::Codec::<#marker>::prefetch_owned(&self.#name);)
            }
            _ => return None,
        })
    });
    quote! {
        #[inline]
        fn prefetch_owned(&self) {
            #(#body)*
        }
    }
}
