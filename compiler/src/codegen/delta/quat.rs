//! `DELTA DIFF(b1, ..., bk) SMALLEST_THREE(n)` in the delta form: a bit that says whether the
//! largest component's index is the baseline's; if it is, the three components as tiered
//! differences to the baseline's, else the whole code (the runtime's
//! `SmallestThree::write_diff` and `read_diff`; WIRE.md).

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::super::fields::RustField;
use super::super::idents::{ident, u32_lit};
use super::super::mirror::runtime_quaternion;
use super::super::rules::{Val, from_quaternion};
use super::{CodegenError, Gen, Target};
use crate::ir::plan::DiffPlan;

impl Gen<'_, '_> {
    /// The encoder's write of the field's code (`write`: the local holding it), or the
    /// decoder's read into its place (`None`), against the baseline's code.
    pub(super) fn quaternion_diff(
        view: &RustField<'_>,
        plan: &DiffPlan,
        bits: u32,
        write: Option<&Ident>,
    ) -> Result<TokenStream, CodegenError> {
        let tiers = plan.tiers.iter().map(|&b| u32_lit(b));
        let (bits, name, q) = (u32_lit(bits), ident(&view.rust.rust_name), view.site().q());
        let tiers = quote!(&[#(#tiers),*]);
        // A game's rotation type goes through the runtime's `Quaternion` (`QuaternionAs`).
        let baseline = runtime_quaternion(&view.rust.ty, &Val::Place(quote!(baseline.#name)));
        let reference = quote!(rule.reference(#baseline).as_ref());
        let call = if let Some(code) = write {
            quote!(rule.write_diff_code(w, #tiers, &#code, #reference)#q;)
        } else {
            let place = Self::place(view, Target::State);
            let read = from_quaternion(
                &view.rust.ty,
                quote!(rule.read_diff(r, #tiers, #reference)#q),
            )?;
            quote!(#place = #read;)
        };
        Ok(quote! {{
            let rule = idlc::SmallestThree::new(#bits);
            #call
        }})
    }
}
