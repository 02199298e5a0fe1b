//! Runs of consecutive fixed-width fields of a BITSTREAM (ranged and fixed-width integers, enum
//! indices, fixed-point steps, FLOAT32s of a NUMERIC range, bools; `ir::packable_bits` says
//! which) written as one `write_bits` and read as one `read_bits`. Bits are LSB-first, so the
//! packed word puts the same bits on the wire as field-by-field writes; only the number of
//! stream operations changes.
//!
//! Errors stay those of field-by-field code: each field is checked on its own, and its error
//! names the field and gives the field's own bit offset (the run's start plus the bits of the
//! fields before it; the reader has already read the whole word, so a read error moves back;
//! a FLOAT32, read whole, is refused where its bits end).
//! A word that does not fit the bits left is an error of the run's first field, at its start.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::idents::{f64_lit, int_lit, u32_lit, u64_lit};
use super::rules::{
    Site, Val, as_f64, fixed_point_const, fixed_point_input, from_f64, int_arguments,
};
use super::{CodegenError, Ctx};
use crate::ir::{RustType, Type, WireRule, packable_bits};

/// One field of a packed run: its path, rule, IDL type, Rust type, value and decoded local.
pub struct Packed<'a> {
    /// What its errors name: `Struct.field`.
    pub path: String,
    /// The field's wire rule (one of the packable ones).
    pub rule: &'a WireRule,
    /// The field's IDL type.
    pub idl: &'a Type,
    /// The field's Rust type.
    pub rust: &'a RustType,
    /// The value to write.
    pub value: Val,
    /// The local the decoder binds.
    pub local: proc_macro2::Ident,
}

fn width(field: &Packed<'_>) -> u32 {
    packable_bits(field.rule, field.idl, field.rust).unwrap_or(0)
}

/// The statements that check every field of the run and write them as one word.
pub fn encode_run(ctx: &Ctx<'_>, run: &[Packed<'_>]) -> Result<TokenStream, CodegenError> {
    let mut parts = Vec::new();
    let mut shift = 0u32;
    for field in run {
        // Nothing of the run is written before the word: the writer is at the run's start.
        let site = if shift == 0 {
            Site::named(&field.path)
        } else {
            Site::named(&field.path).at_bit_ahead(shift)
        };
        let bits = field_bits_encode(ctx, field, &site.q())?;
        parts.push(if shift == 0 {
            bits
        } else {
            let shift = u32_lit(shift);
            quote!(#bits << #shift)
        });
        shift += width(field);
    }
    let total = u32_lit(shift);
    let q = first_site(run).q();
    Ok(quote! {
        let packed = #(#parts)|*;
        w.write_bits(packed, #total)#q;
    })
}

/// The site of the run's first field: the whole word's read or write.
fn first_site(run: &[Packed<'_>]) -> Site {
    run.first()
        .map_or_else(Site::bare, |field| Site::named(&field.path))
}

fn field_bits_encode(
    ctx: &Ctx<'_>,
    field: &Packed<'_>,
    q: &TokenStream,
) -> Result<TokenStream, CodegenError> {
    let c = field.value.by_val();
    Ok(match field.rule {
        WireRule::Bool { .. } => quote!(u64::from(#c)),
        WireRule::Ranged { min, max, .. } => {
            let (min, max) = (int_lit(*min), int_lit(*max));
            quote!(idlc::ranged_offset(w, #c, #min, #max)#q)
        }
        WireRule::EnumIndex { count, .. } => {
            let count = u64_lit(u64::from(*count));
            let recv = field.value.receiver();
            quote!(idlc::enum_offset(w, #recv.index(), #count)#q)
        }
        WireRule::FixedPoint { .. } => {
            let value = fixed_point_input(field.rule, field.rust, &c);
            let fp = fixed_point_const(ctx, field.rule);
            quote!(idlc::fixed_point_offset(w, #value, &#fp)#q)
        }
        WireRule::Fixed { bits, signed } => {
            let (min, max) = int_bounds(field)?;
            let bits = u32_lit(*bits);
            quote!(idlc::fixed_bits(w, #c, #min, #max, #bits, #signed)#q)
        }
        WireRule::Float32 => {
            let (min, max, min_inclusive, max_inclusive) = numeric_bounds(field)?;
            if matches!(field.rust, RustType::F32) {
                quote!(idlc::f32_in_range_bits(w, #c, #min, #max, #min_inclusive, #max_inclusive)#q)
            } else {
                let value = as_f64(field.rust, &c);
                quote!(idlc::float32_bits(w, #value, #min, #max, #min_inclusive, #max_inclusive)#q)
            }
        }
        other => return Err(CodegenError(format!("internal: {other:?} in a packed run"))),
    })
}

/// The statements that read the run's word and bind every field's local.
pub fn decode_run(
    ctx: &Ctx<'_>,
    run: &[Packed<'_>],
    index: usize,
) -> Result<TokenStream, CodegenError> {
    let word = format_ident!("packed_{index}");
    let total: u32 = run.iter().map(width).sum();
    let q = first_site(run).q();
    let total_lit = u32_lit(total);
    let mut statements = vec![quote!(let #word = r.read_bits(#total_lit)#q;)];
    let mut shift = 0u32;
    for field in run {
        let bits = width(field);
        let raw = extract(&word, shift, bits);
        // The reader is past the word: the field began `total - shift` bits back. A FLOAT32
        // is read whole, and a value read whole is refused where its read ended, as field by
        // field (`numeric_in_range`).
        let back = match field.rule {
            WireRule::Float32 => total - shift - bits,
            _ => total - shift,
        };
        let q = Site::named(&field.path).at_bit_back(back).q();
        shift += bits;
        let local = &field.local;
        let ty = ctx.prelude.rust_type(field.rust)?;
        let value = match field.rule {
            WireRule::Bool { .. } => quote!(#raw != 0),
            WireRule::Ranged { min, max, .. } => {
                let (min, max) = (int_lit(*min), int_lit(*max));
                let int = int_arguments(field.rust)?;
                quote!(idlc::ranged_from_offset #int(r, #raw, #min, #max)#q)
            }
            WireRule::EnumIndex { .. } => {
                quote!(idlc::enumerator(r, <#ty>::from_index(#raw))#q)
            }
            WireRule::FixedPoint { .. } => {
                let fp = fixed_point_const(ctx, field.rule);
                from_f64(
                    field.rust,
                    quote!(idlc::fixed_point_from_offset(r, #raw, &#fp)#q),
                )
            }
            WireRule::Fixed { bits, signed } => {
                let (min, max) = int_bounds(field)?;
                let bits = u32_lit(*bits);
                let int = int_arguments(field.rust)?;
                quote!(idlc::fixed_from_bits #int(r, #raw, #min, #max, #bits, #signed)#q)
            }
            WireRule::Float32 => {
                let (min, max, min_inclusive, max_inclusive) = numeric_bounds(field)?;
                from_f64(
                    field.rust,
                    quote!(idlc::float32_from_bits(r, #raw, #min, #max, #min_inclusive, #max_inclusive)#q),
                )
            }
            other => return Err(CodegenError(format!("internal: {other:?} in a packed run"))),
        };
        statements.push(quote!(let #local: #ty = #value;));
    }
    Ok(quote!(#(#statements)*))
}

/// The IDL range of a packed fixed-width integer, as literals.
fn int_bounds(field: &Packed<'_>) -> Result<(TokenStream, TokenStream), CodegenError> {
    let (min, max) = field
        .idl
        .int_range()
        .ok_or_else(|| CodegenError(format!("internal: {} packed without a range", field.path)))?;
    Ok((int_lit(min), int_lit(max)))
}

/// The IDL range of a packed FLOAT32: both ends as literals and whether each is included.
fn numeric_bounds(
    field: &Packed<'_>,
) -> Result<(TokenStream, TokenStream, bool, bool), CodegenError> {
    match field.idl {
        Type::Numeric {
            min,
            max,
            min_inclusive,
            max_inclusive,
        } => Ok((f64_lit(*min), f64_lit(*max), *min_inclusive, *max_inclusive)),
        _ => Err(CodegenError(format!(
            "internal: {} packed as a FLOAT32 without a NUMERIC range",
            field.path
        ))),
    }
}

/// `(word >> shift) & mask`, without the no-op parts.
fn extract(word: &proc_macro2::Ident, shift: u32, bits: u32) -> TokenStream {
    if bits == 0 {
        return quote!(0);
    }
    let shift_lit = u32_lit(shift);
    if shift + bits >= 64 {
        return if shift == 0 {
            quote!(#word)
        } else {
            quote!(#word >> #shift_lit)
        };
    }
    let mask = super::idents::mask_lit((1u64 << bits) - 1);
    if shift == 0 {
        quote!(#word & #mask)
    } else {
        quote!((#word >> #shift_lit) & #mask)
    }
}
