//! The value the receiver holds after a value is sent: `Codec::sent`, `Codec::sent_equals`
//! (whether that value equals another, without building it), and the expressions delta encoders
//! compare against the baseline (a change smaller than the resolution is no change).
//!
//! Lossless rules (integers, enums, bools, text, raw floats of the mapped width) keep the value;
//! FIXED_POINT rounds it to its step; FLOAT32 of an f64 rounds it to single precision. A value
//! FIXED_POINT cannot hold is an error that names its field ([`Site`]), as the encoder's would.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::quote;

use super::fields::RustField;
use super::idents::f64_lit;
use super::rules::{
    Site, Val, as_f64, closure_result, fixed_point_const, fixed_point_input, from_f64,
};
use super::{CodegenError, Ctx};
use crate::ir::{RustType, Type, WireRule};

/// Whether values of this type are `Copy` (read by value, never cloned).
pub fn is_copy(idl: &Type, rust: &RustType) -> bool {
    !matches!(rust, RustType::Boxed(_))
        && matches!(
            idl,
            Type::Bool
                | Type::Uint(_)
                | Type::Int(_)
                | Type::Float32
                | Type::Float64
                | Type::IntRange { .. }
                | Type::Numeric { .. }
                | Type::Enum(_)
        )
}

fn keep(idl: &Type, rust: &RustType, v: &Val) -> TokenStream {
    if is_copy(idl, rust) {
        v.by_val()
    } else {
        let receiver = v.receiver();
        quote!(#receiver.clone())
    }
}

/// The value a field holds at the receiver once sent with `rule` (an expression that may use
/// `?` with an `EncodeError` that names `site`). A widened field (EXTEND) is an integer or an
/// enum: kept as is.
pub fn sent_value(
    ctx: &Ctx<'_>,
    rule: &WireRule,
    view: &RustField<'_>,
    v: Val,
    site: &Site,
) -> Result<TokenStream, CodegenError> {
    if !view.field.extends.is_empty() {
        return Ok(keep(&view.field.ty, &view.rust.ty, &v));
    }
    sent_element(ctx, rule, &view.field.ty, &view.rust.ty, v, site)
}

/// Whether the value sent of an element of this rule is the element itself (then computing it
/// cannot fail).
pub fn is_lossless_element(ctx: &Ctx<'_>, rule: &WireRule, rust: &RustType) -> bool {
    is_lossless(ctx, rule, rust, &mut HashSet::new())
}

/// [`sent_value`] of a value of any type (a sequence element, an optional's content).
pub fn sent_element(
    ctx: &Ctx<'_>,
    rule: &WireRule,
    idl: &Type,
    rust: &RustType,
    v: Val,
    site: &Site,
) -> Result<TokenStream, CodegenError> {
    if let RustType::Boxed(inner) = rust {
        let reference = v.by_ref();
        let value = sent_element(ctx, rule, idl, inner, Val::Ref(quote!(&**#reference)), site)?;
        let boxed = ctx.prelude.path("Box");
        return Ok(quote!(#boxed::new(#value)));
    }
    if is_lossless(ctx, rule, rust, &mut HashSet::new()) {
        return Ok(keep(idl, rust, &v));
    }
    let rt = quote!(::idlc_runtime);
    let q = site.q();
    Ok(match (rule, idl, rust) {
        (WireRule::FixedPoint { .. }, _, _) => {
            let fp = fixed_point_const(ctx, rule);
            let value = fixed_point_input(rule, rust, &v.by_val());
            from_f64(rust, quote!(#rt::sent_fixed_point(&#fp, #value)#q))
        }
        (
            WireRule::Float32,
            Type::Numeric {
                min,
                max,
                min_inclusive,
                max_inclusive,
            },
            _,
        ) => {
            let value = as_f64(rust, &v.by_val());
            let (min, max) = (f64_lit(*min), f64_lit(*max));
            from_f64(
                rust,
                quote!(#rt::sent_float32(#value, #min, #max, #min_inclusive, #max_inclusive)#q),
            )
        }
        (WireRule::Float32, _, _) => {
            let value = v.by_val();
            quote!(f64::from(#value as f32))
        }
        (WireRule::Sequence { element, .. } | WireRule::Array { element, .. }, _, _) => {
            let (element_idl, element_rust) = match (idl, rust) {
                (Type::Array { element, .. }, RustType::Array(element_rust, _)) => {
                    (&**element, &**element_rust)
                }
                _ => super::rules::sequence_parts(idl, rust)?,
            };
            // The closure counts the elements in `next` to name the one that fails.
            let inner = sent_element(
                ctx,
                element,
                element_idl,
                element_rust,
                Val::Ref(quote!(item)),
                &Site::bare().element(quote!(index)),
            )?;
            let (reference, inner) = (v.by_ref(), closure_result(inner));
            let map = if matches!(rule, WireRule::Array { .. }) {
                quote!(sent_array)
            } else {
                quote!(sent_collection)
            };
            quote!({
                let mut next = 0usize;
                #rt::#map(#reference, |item| {
                    let index = next;
                    next += 1;
                    #inner
                })#q
            })
        }
        (WireRule::Optional(inner), Type::Optional(inner_idl), RustType::Option(inner_rust)) => {
            let value = sent_element(
                ctx,
                inner,
                inner_idl,
                inner_rust,
                Val::Ref(quote!(value)),
                site,
            )?;
            let reference = v.by_ref();
            quote!(match #reference {
                Some(value) => Some(#value),
                None => None,
            })
        }
        (WireRule::Struct(_), _, _) => {
            let marker = &ctx.marker;
            let reference = v.by_ref();
            quote!(#rt::Codec::<#marker>::sent(#reference)#q)
        }
        _ => keep(idl, rust, &v),
    })
}

/// Whether a field is sent as a FIXED_POINT step of its `f32` / `f64` (and not widened): its
/// sent value is its step's, and whether it can be sent is a range check.
pub fn is_quantized_float(view: &RustField<'_>, rule: &WireRule) -> bool {
    matches!(rule, WireRule::FixedPoint { .. })
        && matches!(view.rust.ty, RustType::F32 | RustType::F64)
        && view.field.extends.is_empty()
}

/// Whether every value survives `rule` exactly (then the mirror is the value itself).
fn is_lossless<'a>(
    ctx: &Ctx<'a>,
    rule: &'a WireRule,
    rust: &RustType,
    seen: &mut HashSet<&'a str>,
) -> bool {
    let rust = match rust {
        RustType::Boxed(inner) => inner,
        other => other,
    };
    match rule {
        WireRule::FixedPoint { .. } => false,
        WireRule::Float32 => matches!(rust, RustType::F32),
        WireRule::Sequence { element, .. } | WireRule::Array { element, .. } => {
            is_lossless(ctx, element, element_of(rust), seen)
        }
        WireRule::Optional(inner) => is_lossless(ctx, inner, element_of(rust), seen),
        WireRule::Struct(name) => struct_is_lossless(ctx, name, seen),
        _ => true,
    }
}

fn element_of(rust: &RustType) -> &RustType {
    match rust {
        RustType::Vec(e)
        | RustType::Collection { element: e, .. }
        | RustType::Array(e, _)
        | RustType::Option(e)
        | RustType::Boxed(e) => e,
        other => other,
    }
}

/// Whether every field of a struct survives its rules in this encoding exactly.
pub fn struct_is_lossless<'a>(ctx: &Ctx<'a>, name: &'a str, seen: &mut HashSet<&'a str>) -> bool {
    if !seen.insert(name) {
        return true;
    }
    let (Some(plan), Some(mapping)) =
        (ctx.plan.structs.get(name), ctx.ir.mapping.structs.get(name))
    else {
        return false;
    };
    plan.rules().all(|(field, rule)| {
        mapping
            .fields
            .get(field)
            .is_some_and(|f| is_lossless(ctx, rule, &f.ty, seen))
    })
}

/// The body of `Codec::sent` for a struct: every field as the receiver will hold it.
pub fn sent_body(
    ctx: &Ctx<'_>,
    fields: &[RustField<'_>],
    ty: &TokenStream,
) -> Result<TokenStream, CodegenError> {
    let mut inits = Vec::new();
    for view in fields {
        let rule = view.rule()?;
        let name = super::idents::ident(&view.rust.rust_name);
        let value = sent_value(
            ctx,
            rule,
            view,
            Val::Place(quote!(self.#name)),
            &view.site(),
        )?;
        inits.push(quote!(#name: #value));
    }
    Ok(quote!(Ok(#ty { #(#inits),* })))
}

/// Whether `a` as sent with `rule` equals `b` (a `bool` expression that may use `?`, failing
/// where [`sent_element`] of `a` fails, with the same error): lossless values compare as they
/// are, structs through `Codec::sent_equals`, sequences and arrays element by element, without
/// building the sent value (an OPTIONAL still does).
pub fn sent_equal(
    ctx: &Ctx<'_>,
    rule: &WireRule,
    idl: &Type,
    rust: &RustType,
    (a, b): (Val, Val),
    site: &Site,
) -> Result<TokenStream, CodegenError> {
    if let RustType::Boxed(inner) = rust {
        let (a, b) = (a.by_ref(), b.by_ref());
        let pair = (Val::Ref(quote!(&**#a)), Val::Ref(quote!(&**#b)));
        return sent_equal(ctx, rule, idl, inner, pair, site);
    }
    if is_lossless(ctx, rule, rust, &mut HashSet::new()) {
        return Ok(match (&a, &b) {
            (Val::Place(a), Val::Place(b)) => quote!(#a == #b),
            _ => {
                let (a, b) = (a.by_ref(), b.by_ref());
                quote!(#a == #b)
            }
        });
    }
    let rt = quote!(::idlc_runtime);
    let q = site.q();
    Ok(match (rule, idl, rust) {
        (WireRule::Sequence { element, .. } | WireRule::Array { element, .. }, _, _) => {
            let (element_idl, element_rust) = match (idl, rust) {
                (Type::Array { element, .. }, RustType::Array(element_rust, _)) => {
                    (&**element, &**element_rust)
                }
                _ => super::rules::sequence_parts(idl, rust)?,
            };
            let inner = sent_equal(
                ctx,
                element,
                element_idl,
                element_rust,
                (Val::Ref(quote!(item)), Val::Ref(quote!(other))),
                &Site::bare().element(quote!(index)),
            )?;
            let inner = closure_result(inner);
            let iter = |v: &Val| {
                if matches!(rule, WireRule::Array { .. }) {
                    let receiver = v.receiver();
                    quote!(#receiver.iter())
                } else {
                    let reference = v.by_ref();
                    quote!(#rt::Collection::iter(#reference))
                }
            };
            let (items, others) = (iter(&a), iter(&b));
            // The closure counts the elements in `next` to name the one that fails.
            quote!({
                let mut next = 0usize;
                #rt::sent_elements_eq(#items, #others, |item, other| {
                    let index = next;
                    next += 1;
                    #inner
                })#q
            })
        }
        (WireRule::Struct(_), _, _) => {
            let marker = &ctx.marker;
            let (a, b) = (a.by_ref(), b.by_ref());
            quote!(#rt::Codec::<#marker>::sent_equals(#a, #b)#q)
        }
        _ => {
            let sent = sent_element(ctx, rule, idl, rust, a, site)?;
            match b {
                Val::Place(b) => quote!((#sent) == #b),
                b => {
                    let b = b.by_ref();
                    quote!(&(#sent) == #b)
                }
            }
        }
    })
}

/// The body of `Codec::sent_equals` for a struct: every field compared as sent, in field order
/// and without stopping at a difference, so that it fails where `sent` fails (a FIXED_POINT
/// field after a difference is only range-checked).
pub fn sent_equals_body(
    ctx: &Ctx<'_>,
    fields: &[RustField<'_>],
) -> Result<TokenStream, CodegenError> {
    let mut checks = Vec::new();
    for view in fields {
        let rule = view.rule()?;
        let name = super::idents::ident(&view.rust.rust_name);
        let pair = (
            Val::Place(quote!(self.#name)),
            Val::Place(quote!(other.#name)),
        );
        if !view.field.extends.is_empty() {
            checks.push(quote!(equal &= self.#name == other.#name;));
            continue;
        }
        let site = view.site();
        let equal = sent_equal(ctx, rule, &view.field.ty, &view.rust.ty, pair, &site)?;
        if is_quantized_float(view, rule) {
            // After a difference only the error is left to find: the range check, not the step.
            let fp = fixed_point_const(ctx, rule);
            let value = fixed_point_input(rule, &view.rust.ty, &quote!(self.#name));
            let q = site.q();
            checks.push(quote! {
                if equal {
                    equal = #equal;
                } else {
                    ::idlc_runtime::check_fixed_point(&#fp, #value)#q;
                }
            });
        } else {
            checks.push(quote!(equal &= #equal;));
        }
    }
    if checks.is_empty() {
        // No fields: equal (as the derived PartialEq says).
        return Ok(quote!(Ok(self == other)));
    }
    Ok(quote! {
        let mut equal = true;
        #(#checks)*
        Ok(equal)
    })
}
