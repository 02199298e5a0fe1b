//! The fields of a struct's wire plan with their Rust form: what every generator of codegen/
//! names, reads and writes them as.

use proc_macro2::Ident;
use quote::{format_ident, quote};

use super::CodegenError;
use super::idents::ident;
use super::rules::{Site, Val};
use crate::ir::plan::{FieldPlan, StructPlan};
use crate::ir::{FieldMapping, StructMapping, WireRule};

/// A field of the plan with its Rust form: what codegen names and reads it as.
pub(super) struct RustField<'a> {
    /// The IDL name of the struct that declares it.
    pub(super) owner: &'a str,
    /// The field in the wire plan: its IDL type and its EXTENDs.
    pub(super) field: &'a FieldPlan,
    /// Its Rust name and type.
    pub(super) rust: &'a FieldMapping,
}

impl<'a> RustField<'a> {
    pub(super) fn local(&self) -> Ident {
        format_ident!("f_{}", self.rust.rust_name.trim_start_matches("r#"))
    }

    pub(super) fn access(&self) -> Val {
        let name = ident(&self.rust.rust_name);
        Val::Place(quote!(self.#name))
    }

    /// What its errors name: `Struct.field`.
    pub(super) fn site(&self) -> Site {
        Site::field(self.owner, &self.field.name)
    }

    /// The rule of its old slot.
    pub(super) fn rule(&self) -> Result<&'a WireRule, CodegenError> {
        self.field
            .rule
            .as_ref()
            .ok_or_else(|| CodegenError(format!("internal: no rule for {}", self.field.name)))
    }
}

/// Every field of a struct's plan, with its Rust form.
pub(super) fn views<'a>(
    plan: &'a StructPlan,
    mapping: &'a StructMapping,
) -> Result<Vec<RustField<'a>>, CodegenError> {
    plan.fields
        .iter()
        .map(|field| {
            let rust = mapping.fields.get(&field.name).ok_or_else(|| {
                CodegenError(format!(
                    "internal: no mapping of {}.{}",
                    plan.name, field.name
                ))
            })?;
            Ok(RustField {
                owner: &plan.name,
                field,
                rust,
            })
        })
        .collect()
}
