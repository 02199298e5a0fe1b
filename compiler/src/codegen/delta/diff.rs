//! `DIFF(b1, ..., bk)` in the delta form: a changed field's step sent as its tiered difference
//! to a reference (the runtime's `Diff`), else the escape and the field in full (WIRE.md).
//!
//! The reference is the baseline's value; for a position in a DEAD_RECKONING block, the
//! extrapolation from the baseline, rounded to its step. A FIXED_POINT field's step is its
//! `q_f` local; an integer's or enumerator's is computed by the runtime from the value.

use proc_macro2::TokenStream;
use quote::quote;

use super::super::fields::RustField;
use super::super::idents::{int_lit, u32_lit, u64_lit};
use super::super::mirror::is_quantized_float;
use super::super::rules::{
    dead_reckoning_const, decode, fixed_point_const, fixed_point_input, from_f64,
};
use super::{CodegenError, Gen, Target};
use crate::ir::Type;
use crate::ir::plan::{DiffPlan, FieldStep};

/// The `const` of a field's DIFF: `const { Diff::new(&[..], first, last, wraps) }`, with its
/// origin when it is not 0.
fn diff_const(plan: &DiffPlan) -> TokenStream {
    let tiers = plan.tiers.iter().map(|&b| u32_lit(b));
    let steps = &plan.steps;
    let (first, last, wraps) = (u64_lit(steps.first), u64_lit(steps.last), steps.wraps);
    let origin = (steps.origin != 0).then(|| {
        let origin = int_lit(steps.origin);
        quote!(.with_origin(#origin))
    });
    quote!(const { idlc::Diff::new(&[#(#tiers),*], #first, #last, #wraps)#origin })
}

/// What a DIFF field's reference and steps are taken from.
enum Steps {
    /// A FIXED_POINT float: its step `q_f`, and the reference step.
    Quantized(TokenStream),
    /// An integer or an enumerator: the baseline's value as an `i128`.
    Integer(TokenStream),
}

impl<'a> Gen<'a, '_> {
    /// How the DIFF field `field` takes its steps; `velocity` is the velocity of a
    /// dead-reckoning position, whose reference is the extrapolation.
    fn diff_steps(
        &self,
        view: &RustField<'_>,
        field: &FieldStep,
        velocity: Option<&FieldStep>,
    ) -> Result<Steps, CodegenError> {
        let name = super::super::idents::ident(&view.rust.rust_name);
        if is_quantized_float(view, &field.rule) {
            let fp = fixed_point_const(self.ctx, &field.rule);
            let base = fixed_point_input(&field.rule, &view.rust.ty, &quote!(baseline.#name));
            let reference = match velocity {
                Some(velocity) => {
                    let v = self.view(&velocity.field)?;
                    let v_name = super::super::idents::ident(&v.rust.rust_name);
                    let axis = dead_reckoning_const(self.ctx, &field.rule, &velocity.rule);
                    let v_base =
                        fixed_point_input(&velocity.rule, &v.rust.ty, &quote!(baseline.#v_name));
                    quote!(#axis.extrapolate_from(#base, #v_base, ctx))
                }
                None => quote!(#fp.nearest_step(#base)),
            };
            return Ok(Steps::Quantized(reference));
        }
        match &view.field.ty {
            Type::Enum(_) => Ok(Steps::Integer(quote!(i128::from(baseline.#name.index())))),
            ty if ty.int_range().is_some() => Ok(Steps::Integer(
                quote!(idlc::WireInt::to_i128(baseline.#name)),
            )),
            ty => Err(CodegenError(format!(
                "internal: DIFF on `{}`, {}",
                view.field.name,
                ty.describe()
            ))),
        }
    }

    /// The encoder's write of a DIFF field whose full write is `full`: the difference when a
    /// tier holds it, else the escape and `full`.
    pub(super) fn write_diff(
        &self,
        view: &RustField<'_>,
        field: &FieldStep,
        plan: &DiffPlan,
        velocity: Option<&FieldStep>,
        full: TokenStream,
    ) -> Result<TokenStream, CodegenError> {
        let diff = diff_const(plan);
        let q = view.site().q();
        let candidate = Self::candidate(view);
        let carried = match self.diff_steps(view, field, velocity)? {
            Steps::Quantized(reference) => {
                let step = Self::step(view, &field.rule).ok_or_else(|| {
                    CodegenError(format!("internal: no step of `{}`", view.field.name))
                })?;
                quote!(#diff.write(w, #step, #reference)#q)
            }
            Steps::Integer(reference) => {
                let now = match &view.field.ty {
                    Type::Enum(_) => quote!(i128::from(#candidate.index())),
                    _ => quote!(idlc::WireInt::to_i128(#candidate)),
                };
                quote!(#diff.write_int(w, #now, #reference)#q)
            }
        };
        Ok(quote! {
            if !#carried {
                #full
            }
        })
    }

    /// The decoder's read of a DIFF field into `target`'s place: a tier's difference from the
    /// reference, or after the escape the field in full, which no tier may hold.
    pub(super) fn read_diff(
        &self,
        view: &RustField<'_>,
        field: &FieldStep,
        plan: &DiffPlan,
        velocity: Option<&FieldStep>,
    ) -> Result<TokenStream, CodegenError> {
        let diff = diff_const(plan);
        let q = view.site().q();
        let place = Self::place(view, Target::State);
        let rust = &view.rust.ty;
        Ok(match self.diff_steps(view, field, velocity)? {
            Steps::Quantized(reference) => {
                let fp = fixed_point_const(self.ctx, &field.rule);
                let value = from_f64(rust, quote!(#fp.dequantize(step)));
                quote! {{
                    let start = r.bits_read();
                    let reference = #reference;
                    let step = match #diff.read(r, reference)#q {
                        Some(step) => step,
                        None => {
                            let step = r.read_quantized(&#fp)#q;
                            #diff.check_escaped(step, reference, start)#q;
                            step
                        }
                    };
                    #place = #value;
                }}
            }
            Steps::Integer(reference) => {
                let full = decode(self.ctx, &field.rule, &view.field.ty, rust, &view.site())?;
                let ty = self.ctx.prelude.rust_type(rust)?;
                // The escaped value's integer (an enumerator: its index).
                let (read, escaped) = match &view.field.ty {
                    Type::Enum(_) => (
                        quote! {
                            match #diff.read_int::<_, u64>(r, reference)#q {
                                Some(index) => Some(idlc::enumerator(r, <#ty>::from_index(index))#q),
                                None => None,
                            }
                        },
                        quote!(i128::from(value.index())),
                    ),
                    _ => (
                        quote!(#diff.read_int::<_, #ty>(r, reference)#q),
                        quote!(idlc::WireInt::to_i128(value)),
                    ),
                };
                quote! {{
                    let start = r.bits_read();
                    let reference = #reference;
                    #place = match #read {
                        Some(value) => value,
                        None => {
                            let value = #full;
                            #diff.check_escaped_int(#escaped, reference, start)#q;
                            value
                        }
                    };
                }}
            }
        })
    }
}
