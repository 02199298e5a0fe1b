//! Rust identifiers, paths and literals as tokens.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{ToTokens, quote};

use super::CodegenError;

/// An identifier; `r#name` becomes a raw identifier.
pub fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

/// Whether `name` can be an identifier without panicking `Ident::new`.
pub fn is_ident(name: &str) -> bool {
    let bare = name.strip_prefix("r#").unwrap_or(name);
    let mut chars = bare.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && bare != "_"
}

/// A checked identifier: an error instead of a panic on a name that is not one.
pub fn checked_ident(name: &str) -> Result<Ident, CodegenError> {
    if is_ident(name) {
        Ok(ident(name))
    } else {
        Err(CodegenError(format!("`{name}` is not a Rust identifier")))
    }
}

/// A Rust type written as source text (`Vec<Item>`, `glam::Vec3`), parsed.
pub fn rust_type(source: &str) -> Result<TokenStream, CodegenError> {
    syn::parse_str::<syn::Type>(source)
        .map(ToTokens::into_token_stream)
        .map_err(|e| CodegenError(format!("`{source}` is not a Rust type: {e}")))
}

/// A `#[doc = "..."]` attribute.
pub fn doc(text: &str) -> TokenStream {
    let text = format!(" {text}");
    quote!(#[doc = #text])
}

/// An unsuffixed integer literal.
pub fn int_lit(value: i128) -> TokenStream {
    let literal = proc_macro2::Literal::i128_unsuffixed(value.unsigned_abs() as i128);
    if value < 0 {
        if value == i128::MIN {
            return quote!(i128::MIN);
        }
        quote!(-#literal)
    } else {
        literal.into_token_stream()
    }
}

/// A `u32` literal.
pub fn u32_lit(value: u32) -> TokenStream {
    proc_macro2::Literal::u32_unsuffixed(value).into_token_stream()
}

/// A `u64` literal.
pub fn u64_lit(value: u64) -> TokenStream {
    proc_macro2::Literal::u64_unsuffixed(value).into_token_stream()
}

/// A bit mask as a hex literal (`0x7fff`): its width reads at a glance, as in hand-written code.
pub fn mask_lit(value: u64) -> TokenStream {
    format!("{value:#x}")
        .parse()
        .unwrap_or_else(|_| u64_lit(value))
}

/// An `f64` literal that always reads back as the same value.
pub fn f64_lit(value: f64) -> TokenStream {
    if value.is_infinite() {
        return if value > 0.0 {
            quote!(f64::INFINITY)
        } else {
            quote!(f64::NEG_INFINITY)
        };
    }
    let literal = proc_macro2::Literal::f64_unsuffixed(value.abs());
    if value.is_sign_negative() {
        quote!(-#literal)
    } else {
        literal.into_token_stream()
    }
}

/// An `f32` literal, with its suffix (`0.1f32`), that always reads back as the same value.
pub fn f32_lit(value: f32) -> TokenStream {
    if value.is_infinite() {
        return if value > 0.0 {
            quote!(f32::INFINITY)
        } else {
            quote!(f32::NEG_INFINITY)
        };
    }
    let literal = proc_macro2::Literal::f32_suffixed(value.abs());
    if value.is_sign_negative() {
        quote!(-#literal)
    } else {
        literal.into_token_stream()
    }
}

/// The names of Rust's prelude that generated code writes, qualified when a generated type of
/// the module shadows them (an IDL `MESSAGE Result` becomes `pub struct Result`, after which
/// `Result<(), EncodeError>` must be written `::core::result::Result<..>`).
#[derive(Debug, Default)]
pub struct Prelude {
    shadowed: std::collections::HashSet<&'static str>,
}

const PRELUDE_TYPES: &[(&str, &str)] = &[
    ("Option", "::core::option::Option"),
    ("Result", "::core::result::Result"),
    ("Vec", "::std::vec::Vec"),
    ("String", "::std::string::String"),
    ("Box", "::std::boxed::Box"),
    ("Default", "::core::default::Default"),
    ("Sized", "::core::marker::Sized"),
];

impl Prelude {
    /// The prelude names that the module's own type names shadow: its structs, enums, type
    /// aliases and the unit struct of each protocol.
    pub fn of(ir: &crate::ir::Ir) -> Prelude {
        let protocols: Vec<String> = ir
            .schema
            .protocols
            .keys()
            .map(|name| heck::ToUpperCamelCase::to_upper_camel_case(name.as_str()))
            .collect();
        let generated = ir
            .mapping
            .structs
            .values()
            .filter(|s| !s.existing)
            .map(|s| s.rust_name.as_str())
            .chain(ir.mapping.enums.values().map(|e| e.rust_name.as_str()))
            .chain(ir.mapping.typedefs.values().map(|t| t.rust_name.as_str()))
            .chain(protocols.iter().map(String::as_str));
        let mut shadowed = std::collections::HashSet::new();
        for name in generated {
            if let Some((short, _)) = PRELUDE_TYPES.iter().find(|(short, _)| *short == name) {
                shadowed.insert(*short);
            }
        }
        Prelude { shadowed }
    }

    /// `name` (a prelude type or trait) as generated code must write it here.
    pub fn path(&self, name: &str) -> TokenStream {
        let full = PRELUDE_TYPES
            .iter()
            .find(|(short, _)| *short == name && self.shadowed.contains(short))
            .map_or(name, |(_, full)| full);
        full.parse().unwrap_or_else(|_| quote!(#name))
    }

    /// A field's Rust type as tokens, prelude names qualified where shadowed.
    pub fn rust_type(&self, ty: &crate::ir::RustType) -> Result<TokenStream, CodegenError> {
        use crate::ir::RustType;
        Ok(match ty {
            RustType::Bool => quote!(bool),
            RustType::Int(name) => rust_type(name)?,
            RustType::F32 => quote!(f32),
            RustType::F64 => quote!(f64),
            RustType::String => self.path("String"),
            RustType::Bytes => {
                let vec = self.path("Vec");
                quote!(#vec<u8>)
            }
            RustType::Vec(element) => {
                let (vec, element) = (self.path("Vec"), self.rust_type(element)?);
                quote!(#vec<#element>)
            }
            RustType::Collection { path, .. } => rust_type(path)?,
            RustType::Array(element, len) => {
                let element = self.rust_type(element)?;
                let len = proc_macro2::Literal::u64_unsuffixed(*len);
                quote!([#element; #len])
            }
            RustType::Option(inner) => {
                let (option, inner) = (self.path("Option"), self.rust_type(inner)?);
                quote!(#option<#inner>)
            }
            RustType::Boxed(inner) => {
                let (boxed, inner) = (self.path("Box"), self.rust_type(inner)?);
                quote!(#boxed<#inner>)
            }
            RustType::Named(path) | RustType::QuaternionAs(path) => rust_type(path)?,
            RustType::Quaternion => quote!(idlc::Quaternion),
        })
    }
}
