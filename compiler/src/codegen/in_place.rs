//! `decode_in_place_from`: the decoder that reads into an existing value, reusing the memory its
//! `Vec`s, `String`s and nested structs own. Generated for the structs that own such memory;
//! the others keep the runtime's default (decode a new value and assign it).
//!
//! A field is read in place when it lies in the first segment and has no EXTEND: a nested struct
//! that owns memory (its own `decode_in_place_from`), a `Vec` (elements kept are read in place,
//! the rest appended), BYTES or STRING (the buffer is refilled). Every other field is read as
//! `decode_from` reads it and assigned at the end.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::quote;

use super::fields::RustField;
use super::idents::{ident, u64_lit};
use super::rules::{
    Site, closure_result, decode, decode_length, is_plain_bool, opt_u64, raw_bytes, rt,
    sequence_parts,
};
use super::{CodegenError, Ctx};
use crate::ir::cost::min_bits;
use crate::ir::{Ir, RustType, Type, WireRule};

/// The structs that hold a `Vec`, `String` or BYTES, themselves or in a struct field however
/// deep: what `decode_in_place_from` can reuse. Computed once per module (a fixpoint: a struct
/// joins when one of its fields is such a struct).
pub(super) fn memory_owners(ir: &Ir) -> HashSet<&str> {
    let fields_of = |name: &str| {
        let mapping = ir.mapping.structs.get(name);
        ir.schema.structs[name]
            .fields()
            .filter_map(move |field| Some((&field.ty, &mapping?.fields.get(&field.name)?.ty)))
    };
    let mut owners: HashSet<&str> = HashSet::new();
    loop {
        let joined: Vec<&str> = ir
            .schema
            .structs
            .keys()
            .map(String::as_str)
            .filter(|name| !owners.contains(name))
            .filter(|name| {
                fields_of(name).any(|(idl, rust)| match (idl, rust) {
                    (_, RustType::Vec(_) | RustType::String | RustType::Bytes) => true,
                    (Type::Struct(inner), RustType::Named(_)) => owners.contains(inner.as_str()),
                    _ => false,
                })
            })
            .collect();
        if joined.is_empty() {
            return owners;
        }
        owners.extend(joined);
    }
}

/// The statement that reads `view` (under `rule`) into `self.field`, or `None` when the field is
/// read as `decode_from` reads it (nothing to reuse, or a fenced or extended field).
pub(super) fn read_field_in_place(
    ctx: &Ctx<'_>,
    view: &RustField<'_>,
    rule: &WireRule,
    segment: usize,
) -> Result<Option<TokenStream>, CodegenError> {
    if segment != 0 || view.field.segment != 0 || !view.field.extends.is_empty() {
        return Ok(None);
    }
    let name = ident(&view.rust.rust_name);
    let place = quote!(&mut self.#name);
    read_in_place(
        ctx,
        rule,
        &view.field.ty,
        &view.rust.ty,
        &view.site(),
        place,
    )
}

/// The statement that reads a value of `rule` into `place` (a `&mut` expression), or `None`.
fn read_in_place(
    ctx: &Ctx<'_>,
    rule: &WireRule,
    idl: &Type,
    rust: &RustType,
    site: &Site,
    place: TokenStream,
) -> Result<Option<TokenStream>, CodegenError> {
    let rt = rt();
    let q = site.q();
    Ok(Some(match (rule, idl, rust) {
        (WireRule::Struct(name), _, RustType::Named(_))
            if ctx.memory_owners.contains(name.as_str()) =>
        {
            let marker = &ctx.marker;
            let ty = ctx.prelude.rust_type(rust)?;
            let read = if ctx.is_nested(name) {
                quote!(decode_nested_in_place_from)
            } else {
                quote!(decode_in_place_from)
            };
            quote!(<#ty as #rt::Codec<#marker>>::#read(#place, r)#q;)
        }
        (WireRule::Bytes { length, utf8, max }, _, RustType::Bytes | RustType::String) => {
            let raw = raw_bytes(ctx, length, *max, site)?;
            if *utf8 {
                quote!({
                    let bytes = #raw;
                    #rt::assign_text(#place, #rt::utf8(r, bytes)#q);
                })
            } else {
                quote!(#rt::assign_bytes(#place, #raw);)
            }
        }
        (
            WireRule::Sequence {
                count,
                max,
                element,
                ..
            },
            _,
            RustType::Vec(_),
        ) => {
            let (element_idl, element_rust) = sequence_parts(idl, rust)?;
            let count_code = decode_length(ctx, count, *max, site)?;
            let min = u64_lit(min_bits(ctx.ir, ctx.encoding, element));
            if is_plain_bool(ctx, element, element_rust) {
                return Ok(Some(quote!({
                    let count = #count_code;
                    #rt::read_bool_elements_in_place(r, #place, count, #min)#q;
                })));
            }
            let bound = opt_u64(*max);
            if let (WireRule::Struct(name), RustType::Named(_)) = (element.as_ref(), element_rust) {
                let marker = &ctx.marker;
                let nested = ctx.is_nested(name);
                return Ok(Some(quote!({
                    let count = #count_code;
                    #rt::read_struct_elements_in_place::<#marker, _, #nested>(r, #place, count, #bound, #min)#q;
                })));
            }
            let element_site = Site::bare().element(quote!(index));
            let slot_read = read_in_place(
                ctx,
                element,
                element_idl,
                element_rust,
                &element_site,
                quote!(slot),
            )?;
            let fresh = decode(ctx, element, element_idl, element_rust, &element_site)?;
            let read_slot = match slot_read {
                Some(read) => quote!(|r, index, slot| {
                    #read
                    Ok(())
                }),
                None => quote!(|r, index, slot| {
                    *slot = #fresh;
                    Ok(())
                }),
            };
            let read_new = closure_result(fresh);
            quote!({
                let count = #count_code;
                #rt::read_elements_in_place(r, #place, count, #bound, #min, #read_slot, |r, index| #read_new)#q;
            })
        }
        _ => return Ok(None),
    }))
}
