//! The value the receiver holds after a value is sent: `Codec::sent`, `Codec::sent_equals`
//! (whether that value equals another, without building it), and the expressions delta encoders
//! compare against the baseline (a change smaller than the resolution is no change).
//!
//! Lossless rules (integers, enums, bools, text, raw floats of the mapped width) keep the value;
//! FIXED_POINT rounds it to its step; FLOAT32 of an f64 rounds it to single precision. A value
//! FIXED_POINT cannot hold is an error that names its field ([`Site`]), as the encoder's would.
//!
//! Values as sent compare by what would be sent: a FIXED_POINT value by its step (its value on
//! the step), a raw float (FLOAT32, FLOAT64) by its bits in the rule's width, not with `==`:
//! -0.0 is not +0.0, and a NaN is the NaN with the same bits ([`same_sent`]).

use std::collections::HashSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::fields::{RustField, views};
use super::idents::{f64_lit, u32_lit};
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
                | Type::Quaternion
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

/// Whether a value sent with `rule` holds a raw float (FLOAT32, FLOAT64), however deep: then its
/// values as sent compare by their bits ([`same_sent`]) rather than with `==`.
fn holds_raw_float<'a>(ctx: &Ctx<'a>, rule: &'a WireRule, seen: &mut HashSet<&'a str>) -> bool {
    match rule {
        WireRule::Float32 | WireRule::Float64 | WireRule::Quaternion => true,
        WireRule::Sequence { element, .. } | WireRule::Array { element, .. } => {
            holds_raw_float(ctx, element, seen)
        }
        WireRule::Optional(inner) => holds_raw_float(ctx, inner, seen),
        WireRule::Struct(name) => {
            if !seen.insert(name) {
                return false;
            }
            ctx.plan.structs.get(name).is_some_and(|plan| {
                plan.rules()
                    .any(|(_, rule)| holds_raw_float(ctx, rule, seen))
            })
        }
        _ => false,
    }
}

/// The bits a raw float held in `rust` is sent as with `rule` (`FLOAT32`: those of its `f32`,
/// `FLOAT64`: of its `f64`), or `None` for any other rule or type.
fn sent_bits(rule: &WireRule, rust: &RustType, v: &Val) -> Option<TokenStream> {
    let value = match v {
        Val::Expr(expr) => quote!((#expr)),
        other => other.by_val(),
    };
    Some(match (rule, rust) {
        (WireRule::Float32, RustType::F32) | (WireRule::Float64, RustType::F64) => {
            let receiver = v.receiver();
            quote!(#receiver.to_bits())
        }
        (WireRule::Float32, RustType::F64) => quote!((#value as f32).to_bits()),
        (WireRule::Float64, RustType::F32) => quote!(f64::from(#value).to_bits()),
        (WireRule::Quaternion, RustType::Quaternion) => {
            let receiver = v.receiver();
            quote!(#receiver.to_array().map(f32::to_bits))
        }
        (WireRule::Quaternion, RustType::QuaternionAs(_)) => {
            let quaternion = super::rules::to_quaternion(v).receiver();
            quote!(#quaternion.to_array().map(f32::to_bits))
        }
        _ => return None,
    })
}

/// `a == b` of two values of a type compared with `==`.
fn equal(a: &Val, b: &Val) -> TokenStream {
    match (a, b) {
        (Val::Place(a), Val::Place(b)) => quote!(#a == #b),
        _ => {
            let (a, b) = (a.by_ref(), b.by_ref());
            quote!(#a == #b)
        }
    }
}

/// Whether the values `a` and `b`, both as the receiver holds them after they are sent with
/// `rule`, are the same (a `bool` expression): what would be sent for each is compared. A raw
/// float compares its bits as sent (-0.0 and +0.0 differ, a NaN equals the NaN of the same
/// bits); a value holding one compares part by part (a struct that a `DELTA SEQUENCE` compares
/// through its `Codec::sent_equals`, any other field by field); anything else with `==`.
pub fn same_sent(
    ctx: &Ctx<'_>,
    rule: &WireRule,
    idl: &Type,
    rust: &RustType,
    (a, b): (Val, Val),
) -> Result<TokenStream, CodegenError> {
    same_sent_in(ctx, rule, idl, rust, (a, b), &mut HashSet::new())
}

fn same_sent_in<'a>(
    ctx: &Ctx<'a>,
    rule: &'a WireRule,
    idl: &Type,
    rust: &RustType,
    (a, b): (Val, Val),
    walked: &mut HashSet<&'a str>,
) -> Result<TokenStream, CodegenError> {
    if let RustType::Boxed(inner) = rust {
        let (a, b) = (a.by_ref(), b.by_ref());
        let pair = (Val::Ref(quote!(&**#a)), Val::Ref(quote!(&**#b)));
        return same_sent_in(ctx, rule, idl, inner, pair, walked);
    }
    if !holds_raw_float(ctx, rule, &mut HashSet::new()) {
        return Ok(equal(&a, &b));
    }
    if let (Some(a), Some(b)) = (sent_bits(rule, rust, &a), sent_bits(rule, rust, &b)) {
        return Ok(quote!(#a == #b));
    }
    let rt = quote!(idlc);
    Ok(match (rule, idl, rust) {
        (WireRule::Sequence { element, .. } | WireRule::Array { element, .. }, _, _) => {
            let (element_idl, element_rust) = element_parts(idl, rust)?;
            let pair = (Val::Ref(quote!(item)), Val::Ref(quote!(other)));
            let inner = same_sent_in(ctx, element, element_idl, element_rust, pair, walked)?;
            let (a, b) = (a.by_ref(), b.by_ref());
            if matches!(rule, WireRule::Array { .. }) {
                quote!(#a.iter().zip(#b.iter()).all(|(item, other)| #inner))
            } else {
                quote!({
                    let (lhs, rhs) = (#a, #b);
                    #rt::Collection::len(lhs) == #rt::Collection::len(rhs)
                        && #rt::Collection::iter(lhs)
                            .zip(#rt::Collection::iter(rhs))
                            .all(|(item, other)| #inner)
                })
            }
        }
        (WireRule::Optional(inner), Type::Optional(inner_idl), RustType::Option(inner_rust)) => {
            let pair = (Val::Ref(quote!(item)), Val::Ref(quote!(other)));
            let inner = same_sent_in(ctx, inner, inner_idl, inner_rust, pair, walked)?;
            let (a, b) = (a.by_ref(), b.by_ref());
            quote!(match (#a, #b) {
                (Some(item), Some(other)) => #inner,
                (None, None) => true,
                _ => false,
            })
        }
        (WireRule::Struct(name), _, _)
            if ctx.plan.structs.get(name).is_some_and(|p| p.delta_element) =>
        {
            // A value as sent sends as itself: its `sent_equals` cannot fail.
            let marker = &ctx.marker;
            let (a, b) = (a.by_ref(), b.by_ref());
            quote!(#rt::Codec::<#marker>::sent_equals(#a, #b).unwrap_or(false))
        }
        (WireRule::Struct(name), _, _) if walked.insert(name) => {
            let (Some(plan), Some(mapping)) =
                (ctx.plan.structs.get(name), ctx.ir.mapping.structs.get(name))
            else {
                return Err(CodegenError(format!("internal: no struct {name}")));
            };
            let mut checks = Vec::new();
            for view in views(plan, mapping)? {
                let field = super::idents::ident(&view.rust.rust_name);
                let pair = (
                    Val::Place(quote!(lhs.#field)),
                    Val::Place(quote!(rhs.#field)),
                );
                checks.push(if view.field.extends.is_empty() {
                    let rule = view.rule()?;
                    same_sent_in(ctx, rule, &view.field.ty, &view.rust.ty, pair, walked)?
                } else {
                    same_held(&view, &pair.0, &pair.1)
                });
            }
            walked.remove(name.as_str());
            let (a, b) = (a.by_ref(), b.by_ref());
            // Not empty: the struct holds a raw float.
            quote!({
                let (lhs, rhs) = (#a, #b);
                #(#checks)&&*
            })
        }
        // A struct that holds itself, met again inside its own comparison.
        _ => equal(&a, &b),
    })
}

/// The bits of a widened float field (EXTEND ... TO FLOAT64): its extension sends its Rust
/// value whole. `None` for a widened integer or enum.
fn held_bits(view: &RustField<'_>, v: &Val) -> Option<TokenStream> {
    matches!(view.rust.ty, RustType::F32 | RustType::F64).then(|| {
        let receiver = v.receiver();
        quote!(#receiver.to_bits())
    })
}

/// Whether a widened field (EXTEND: an integer, an enum or a float) holds the same in `a` and
/// `b`: a float by its bits ([`held_bits`]).
fn same_held(view: &RustField<'_>, a: &Val, b: &Val) -> TokenStream {
    match held_bits(view, a).zip(held_bits(view, b)) {
        Some((a, b)) => quote!(#a == #b),
        None => equal(a, b),
    }
}

/// Whether a field's value as sent, `a`, differs from `b`, the baseline's (a `bool`
/// expression): `!=`, or by what would be sent for a value that holds a raw float
/// ([`same_sent`]; a widened float by its bits).
pub fn differs_sent(
    ctx: &Ctx<'_>,
    view: &RustField<'_>,
    rule: &WireRule,
    a: Val,
    b: Val,
) -> Result<TokenStream, CodegenError> {
    let bits = if view.field.extends.is_empty() {
        if !holds_raw_float(ctx, rule, &mut HashSet::new()) {
            None
        } else if let (Some(a), Some(b)) = (
            sent_bits(rule, &view.rust.ty, &a),
            sent_bits(rule, &view.rust.ty, &b),
        ) {
            Some((a, b))
        } else {
            let same = same_sent(ctx, rule, &view.field.ty, &view.rust.ty, (a, b))?;
            return Ok(quote!(!(#same)));
        }
    } else {
        held_bits(view, &a).zip(held_bits(view, &b))
    };
    Ok(match bits {
        Some((a, b)) => quote!(#a != #b),
        None => {
            let (a, b) = (a.by_val(), b.by_val());
            quote!(#a != #b)
        }
    })
}

/// Whether a field's value `a`, once sent, differs from `b`, the baseline's (a `bool`
/// expression that may use `?`, failing where [`sent_value`] fails): `sent != b`, or for a
/// value that holds a raw float the negation of [`sent_equal`] (element by element, without
/// building the sent value).
pub fn differs_once_sent(
    ctx: &Ctx<'_>,
    view: &RustField<'_>,
    rule: &WireRule,
    (a, b): (Val, Val),
    site: &Site,
) -> Result<TokenStream, CodegenError> {
    if view.field.extends.is_empty() && !is_lossless(ctx, rule, &view.rust.ty, &mut HashSet::new())
    {
        let same = sent_equal(ctx, rule, &view.field.ty, &view.rust.ty, (a, b), site)?;
        return Ok(quote!(!(#same)));
    }
    let sent = sent_value(ctx, rule, view, a, site)?;
    differs_sent(ctx, view, rule, Val::Expr(sent), b)
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
    if let RustType::QuaternionAs(_) = rust {
        let quaternion = super::rules::to_quaternion(&v);
        let sent = sent_element(ctx, rule, idl, &RustType::Quaternion, quaternion, site)?;
        return super::rules::from_quaternion(rust, sent);
    }
    let rt = quote!(idlc);
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
        (WireRule::SmallestThree { bits }, _, _) => {
            let (bits, reference) = (u32_lit(*bits), v.by_ref());
            quote!(#rt::SmallestThree::new(#bits).sent(#reference)#q)
        }
        (WireRule::Sequence { element, .. } | WireRule::Array { element, .. }, _, _) => {
            let (element_idl, element_rust) = element_parts(idl, rust)?;
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
        WireRule::FixedPoint { .. } | WireRule::SmallestThree { .. } => false,
        WireRule::Float32 => matches!(rust, RustType::F32),
        WireRule::Sequence { element, .. } | WireRule::Array { element, .. } => {
            is_lossless(ctx, element, element_of(rust), seen)
        }
        WireRule::Optional(inner) => is_lossless(ctx, inner, element_of(rust), seen),
        WireRule::Struct(name) => struct_is_lossless(ctx, name, seen),
        _ => true,
    }
}

/// The IDL and Rust types of the elements of an ARRAY or SEQUENCE.
fn element_parts<'t>(
    idl: &'t Type,
    rust: &'t RustType,
) -> Result<(&'t Type, &'t RustType), CodegenError> {
    match (idl, rust) {
        (Type::Array { element, .. }, RustType::Array(element_rust, _)) => {
            Ok((&**element, &**element_rust))
        }
        _ => super::rules::sequence_parts(idl, rust),
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

/// What [`struct_is_lossless`] has found of an encoding's structs, so that each is walked once:
/// a walk from every struct of a long chain would be quadratic.
#[derive(Default)]
pub(crate) struct Lossless {
    known: std::cell::RefCell<std::collections::HashMap<String, bool>>,
    /// How many times a walk took a struct it was already inside for lossless (a cycle).
    assumed: std::cell::Cell<usize>,
}

/// Whether every field of a struct survives its rules in this encoding exactly. A struct met
/// again in the same walk counts as lossless (a struct that holds itself is lossless when the
/// rest of it is); an answer is kept when it is exact: false, the walk's first struct, or found
/// without that assumption.
pub fn struct_is_lossless<'a>(ctx: &Ctx<'a>, name: &'a str, seen: &mut HashSet<&'a str>) -> bool {
    let cache = &ctx.lossless;
    if let Some(&known) = cache.known.borrow().get(name) {
        return known;
    }
    if !seen.insert(name) {
        cache.assumed.set(cache.assumed.get() + 1);
        return true;
    }
    let (first, assumed) = (seen.len() == 1, cache.assumed.get());
    let (Some(plan), Some(mapping)) =
        (ctx.plan.structs.get(name), ctx.ir.mapping.structs.get(name))
    else {
        return false;
    };
    let lossless = plan.rules().all(|(field, rule)| {
        mapping
            .fields
            .get(field)
            .is_some_and(|f| is_lossless(ctx, rule, &f.ty, seen))
    });
    if !lossless || first || cache.assumed.get() == assumed {
        cache.known.borrow_mut().insert(name.to_string(), lossless);
    }
    lossless
}

/// The body of `Codec::sent` for the struct `name`: every field as the receiver will hold it;
/// a clone when the struct is generated (so `Clone`; an existing type need not be) and every
/// field survives its rule exactly.
pub fn sent_body(
    ctx: &Ctx<'_>,
    (name, generated): (&str, bool),
    fields: &[RustField<'_>],
    ty: &TokenStream,
) -> Result<TokenStream, CodegenError> {
    if generated && struct_is_lossless(ctx, name, &mut HashSet::new()) {
        return Ok(quote!(Ok(self.clone())));
    }
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
        // `a` as sent is `a`.
        return same_sent(ctx, rule, idl, rust, (a, b));
    }
    let rt = quote!(idlc);
    let q = site.q();
    Ok(match (rule, idl, rust) {
        (WireRule::Sequence { element, .. } | WireRule::Array { element, .. }, _, _) => {
            let (element_idl, element_rust) = element_parts(idl, rust)?;
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
        (WireRule::Optional(inner), Type::Optional(inner_idl), RustType::Option(inner_rust)) => {
            let pair = (Val::Ref(quote!(value)), Val::Ref(quote!(other)));
            let inner = sent_equal(ctx, inner, inner_idl, inner_rust, pair, site)?;
            let (a, b) = (a.by_ref(), b.by_ref());
            // Against an absent value, the value against itself: only its error counts.
            quote!(match (#a, #b) {
                (Some(value), held) => {
                    let other = held.as_ref().unwrap_or(value);
                    let equal = #inner;
                    equal && held.is_some()
                }
                (None, held) => held.is_none(),
            })
        }
        (WireRule::FixedPoint { .. }, _, RustType::F32 | RustType::F64) => {
            let sent_local = format_ident!("sent");
            let sent = sent_element(ctx, rule, idl, rust, a, site)?;
            let equal = same_step(ctx, rule, rust, &sent_local, &b);
            quote!({
                let #sent_local = #sent;
                #equal
            })
        }
        (WireRule::SmallestThree { bits }, _, RustType::Quaternion | RustType::QuaternionAs(_)) => {
            same_rotation(*bits, rust, &a, &b, site)
        }
        _ => {
            let sent = sent_element(ctx, rule, idl, rust, a, site)?;
            if holds_raw_float(ctx, rule, &mut HashSet::new()) {
                return same_sent(ctx, rule, idl, rust, (Val::Expr(sent), b));
            }
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

/// Whether a FIXED_POINT float `sent` (a value as the receiver would hold it) equals `b` as
/// sent (a `bool` expression): `b` is that value, or `b` (off the steps: a `Default`, a game's
/// own value) is sent as the same step. A `b` that cannot be sent equals only itself.
fn same_step(
    ctx: &Ctx<'_>,
    rule: &WireRule,
    rust: &RustType,
    sent: &Ident,
    b: &Val,
) -> TokenStream {
    let fp = fixed_point_const(ctx, rule);
    let held = b.by_val();
    let (real_sent, real_held) = (
        fixed_point_input(rule, rust, &quote!(#sent)),
        fixed_point_input(rule, rust, &held),
    );
    quote!(#sent == #held || #fp.sends_as(#real_held, #fp.nearest_step(#real_sent)))
}

/// Whether the SMALLEST_THREE rotation `a`, once sent, equals `b` as sent (a `bool` expression
/// that may use `?`, failing where `sent` fails): `b` is the rotation `a` is sent as, or `b`
/// (not a rotation as sent: an identity, a game's own value) is sent with the same code
/// (`sends_code`, which answers most baselines from their nearest code). Compared as the
/// runtime's `Quaternion`, a game's own rotation type converted.
fn same_rotation(bits: u32, rust: &RustType, a: &Val, b: &Val, site: &Site) -> TokenStream {
    let (bits, q) = (u32_lit(bits), site.q());
    let (value, held) = (runtime_quaternion(rust, a), runtime_quaternion(rust, b));
    let held_value = match rust {
        RustType::QuaternionAs(_) => super::rules::to_quaternion(b).by_val(),
        _ => b.by_val(),
    };
    quote!({
        let (code, sent) = idlc::SmallestThree::new(#bits).sent_code(#value)#q;
        sent == #held_value || idlc::SmallestThree::new(#bits).sends_code(#held, &code)
    })
}

/// A reference to a rotation as the runtime's `Quaternion` (a game's own rotation type,
/// [`RustType::QuaternionAs`], converted).
pub fn runtime_quaternion(rust: &RustType, v: &Val) -> TokenStream {
    match rust {
        RustType::QuaternionAs(_) => super::rules::to_quaternion(v).by_ref(),
        _ => v.by_ref(),
    }
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
            let same = same_held(view, &pair.0, &pair.1);
            checks.push(quote!(equal &= #same;));
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
                    idlc::check_fixed_point(&#fp, #value)#q;
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
