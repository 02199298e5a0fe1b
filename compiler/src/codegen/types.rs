//! The generated Rust types: one struct per IDL struct (unless mapped to an existing type),
//! one enum per IDL enum.

use proc_macro2::TokenStream;
use quote::quote;

use super::CodegenError;
use super::idents::{Prelude, checked_ident, doc, ident, rust_type, u64_lit};
use super::values::{default_value, derived_default_fits};
use crate::ir::{EnumDef, Ir, StructDef, StructKind, StructMapping};

/// `#[derive(...)]`: `base`, then the mapping's DERIVEs that `base` does not hold already (an
/// enum derives `Copy` itself: `DERIVE(Copy)` must not repeat it).
pub(super) fn derives(ir: &Ir, base: &[&str]) -> Result<TokenStream, CodegenError> {
    let mut paths = Vec::new();
    let user = ir.mapping.derives.iter().filter(|path| {
        let last = path.rsplit("::").next().unwrap_or(path);
        let std_path =
            !path.contains("::") || path.starts_with("std::") || path.starts_with("core::");
        !(std_path && base.contains(&last))
    });
    for name in base.iter().map(|s| s.to_string()).chain(user.cloned()) {
        paths.push(rust_type(&name)?);
    }
    Ok(quote!(#[derive(#(#paths),*)]))
}

fn kind_name(kind: StructKind) -> &'static str {
    match kind {
        StructKind::Struct => "STRUCT",
        StructKind::Publishable => "PUBLISHABLE_STRUCT",
        StructKind::Message => "MESSAGE",
        StructKind::RpcParams => "RPC parameters",
        StructKind::RpcResponse => "RPC response",
    }
}

/// The struct definition (and a `Default` impl when the derived one would be out of range, or
/// cannot be derived: an array of more than 32 elements).
pub fn struct_def(
    ir: &Ir,
    prelude: &Prelude,
    def: &StructDef,
    mapping: &StructMapping,
) -> Result<TokenStream, CodegenError> {
    let name = checked_ident(&mapping.rust_name)?;
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    let mut needs_manual_default = false;
    for field in def.fields() {
        let rust = mapping.fields.get(&field.name).ok_or_else(|| {
            CodegenError(format!(
                "internal: no mapping of {}.{}",
                def.name, field.name
            ))
        })?;
        let field_name = ident(&rust.rust_name);
        let ty = prelude.rust_type(&rust.ty)?;
        let current = def.current_type(&field.name).unwrap_or(&field.ty);
        let field_doc = doc(&format!("`{}`: `{}`.", field.name, current.describe()));
        fields.push(quote!(#field_doc pub #field_name: #ty));
        needs_manual_default |=
            field.default.is_some() || !derived_default_fits(&field.ty, &rust.ty);
        let value = default_value(ir, prelude, &field.ty, &rust.ty, field.default.as_ref())?;
        defaults.push(quote!(#field_name: #value));
    }
    let struct_doc = doc(&format!(
        "`{}`: {} of the IDL.",
        def.name,
        kind_name(def.kind)
    ));
    let (derive, default_impl) = if needs_manual_default {
        let default = prelude.path("Default");
        let default_doc = doc(
            "The IDL's DEFAULTs; fields without one take the value nearest zero in their range.",
        );
        (
            derives(ir, &["Debug", "Clone", "PartialEq"])?,
            quote! {
                impl #default for #name {
                    #default_doc
                    fn default() -> Self {
                        Self { #(#defaults),* }
                    }
                }
            },
        )
    } else {
        (
            derives(ir, &["Debug", "Clone", "PartialEq", "Default"])?,
            quote!(),
        )
    };
    Ok(quote! {
        #struct_doc
        #derive
        pub struct #name {
            #(#fields),*
        }
        #default_impl
    })
}

/// The enum definition with its index conversions.
pub fn enum_def(ir: &Ir, prelude: &Prelude, def: &EnumDef) -> Result<TokenStream, CodegenError> {
    let option = prelude.path("Option");
    let mapping = ir
        .mapping
        .enums
        .get(&def.name)
        .ok_or_else(|| CodegenError(format!("internal: no mapping of enum {}", def.name)))?;
    let name = checked_ident(&mapping.rust_name)?;
    let mut variants = Vec::new();
    let mut to_index = Vec::new();
    let mut by_index = Vec::new();
    let mut values = Vec::new();
    for (index, enumerator) in def.enumerators.iter().enumerate() {
        let variant = mapping
            .variants
            .get(&enumerator.name)
            .ok_or_else(|| CodegenError(format!("internal: no variant {}", enumerator.name)))?;
        let variant = checked_ident(variant)?;
        let index = u64_lit(index as u64);
        let value = super::idents::int_lit(i128::from(enumerator.value));
        let variant_doc = doc(&format!("`{}` = {}.", enumerator.name, enumerator.value));
        let default = if variants.is_empty() {
            quote!(#[default])
        } else {
            quote!()
        };
        variants.push(quote!(#variant_doc #default #variant));
        to_index.push(quote!(Self::#variant => #index));
        // `from_index` reads a table: its `match` compiled to a jump table in the Character's
        // decoder, one indirect jump per decoded value (docs/PERFORMANCE.md, session 26).
        by_index.push(quote!(#name::#variant));
        values.push(quote!(Self::#variant => #value));
    }
    let derive = derives(
        ir,
        &[
            "Debug",
            "Clone",
            "Copy",
            "PartialEq",
            "Eq",
            "Hash",
            "Default",
        ],
    )?;
    let enum_doc = doc(&format!(
        "`{}`: enum of the IDL. On the wire: the enumerator's index.",
        def.name
    ));
    let count = u64_lit(def.enumerators.len() as u64);
    let count_usize = proc_macro2::Literal::usize_unsuffixed(def.enumerators.len());
    Ok(quote! {
        #enum_doc
        #derive
        // The enumerators are named by the IDL.
        #[allow(clippy::enum_variant_names)]
        pub enum #name {
            #(#variants),*
        }

        impl #name {
            /// Number of enumerators.
            pub const COUNT: u64 = #count;

            /// The enumerator's index among the declared ones: what goes on the wire.
            pub const fn index(self) -> u64 {
                match self {
                    #(#to_index),*
                }
            }

            /// The enumerator at `index`, if there is one.
            pub const fn from_index(index: u64) -> #option<Self> {
                const BY_INDEX: [#name; #count_usize] = [#(#by_index),*];
                if index < Self::COUNT {
                    Some(BY_INDEX[index as usize])
                } else {
                    None
                }
            }

            /// The enumerator's value as the IDL declares it.
            pub const fn value(self) -> i64 {
                match self {
                    #(#values),*
                }
            }
        }
    })
}

/// `pub type Name = T;` for a TYPEDEF (fields use the type it stands for).
pub fn typedef_alias(
    prelude: &Prelude,
    name: &str,
    mapping: &crate::ir::TypedefMapping,
) -> Result<TokenStream, CodegenError> {
    let alias = checked_ident(&mapping.rust_name)?;
    let ty = prelude.rust_type(&mapping.ty)?;
    let alias_doc = doc(&format!("`{name}`: TYPEDEF of the IDL."));
    Ok(quote! {
        #alias_doc
        pub type #alias = #ty;
    })
}
