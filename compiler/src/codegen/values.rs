//! IDL values (DEFAULTs) as Rust expressions of the field's Rust type.

use proc_macro2::TokenStream;
use quote::quote;

use super::CodegenError;
use super::idents::{f32_lit, f64_lit, ident, int_lit, rust_type};
use crate::ir::{Ir, RustType, Type, Value};

/// The value a field takes when it was not sent (its DEFAULT) or when a struct is made with
/// `Default::default()`: the DEFAULT if the IDL gives one, else the zero value if the field's
/// range holds it, else the range's lower end (its middle when the lower end is open).
pub fn default_value(
    ir: &Ir,
    prelude: &super::idents::Prelude,
    idl: &Type,
    rust: &RustType,
    value: Option<&Value>,
) -> Result<TokenStream, CodegenError> {
    if let Some(value) = value {
        return literal(ir, prelude, idl, rust, value);
    }
    // Zero outside the range: its lower end, or its middle (an open lower end is no value).
    if let Some(substitute) = idl.zero_substitute() {
        return literal(ir, prelude, idl, rust, &substitute);
    }
    Ok(match (idl, rust) {
        // Every element its own default (`[T; n]` derives `Default` only up to 32 elements).
        (Type::Array { element, .. }, RustType::Array(element_rust, _))
            if !derived_default_fits(idl, rust) =>
        {
            let element = default_value(ir, prelude, element, element_rust, None)?;
            quote!(::core::array::from_fn(|_| #element))
        }
        // The identity, whatever the game's type takes for its `Default`.
        (Type::Quaternion, RustType::QuaternionAs(_)) => {
            super::rules::from_quaternion(rust, quote!(idlc::Quaternion::IDENTITY))?
        }
        _ => {
            let default = prelude.path("Default");
            quote!(#default::default())
        }
    })
}

/// Whether `#[derive(Default)]` gives the value a field of IDL type `idl` held in `rust` takes
/// by default: its zero lies in its IDL range, it is no game's type holding a QUATERNION (whose
/// `Default` need not be the identity), and an array has at most 32 elements (the arrays the
/// standard library's `Default` covers), each such a value.
pub fn derived_default_fits(idl: &Type, rust: &RustType) -> bool {
    match (idl, rust) {
        (Type::IntRange { .. } | Type::Numeric { .. }, _) => idl.zero_substitute().is_none(),
        (Type::Quaternion, RustType::QuaternionAs(_)) => false,
        (Type::Array { element, len }, RustType::Array(element_rust, _)) => {
            *len <= 32 && derived_default_fits(element, element_rust)
        }
        (Type::Array { element, len }, _) => *len <= 32 && derived_default_fits(element, rust),
        _ => true,
    }
}

/// A real as a literal of the field's float type. An `f32` is the nearest `f32` that stands for a
/// value of the field's range (`idlc_runtime::nearest_f32_inside`: 0.1 in `NUMERIC[0,0.1]` is
/// `0.1f32`, which stands for the end; a value rounding onto an open end takes the `f32` below),
/// written with its suffix.
fn float(value: f64, idl: &Type, rust: &RustType) -> TokenStream {
    if !matches!(rust, RustType::F32) {
        return f64_lit(value);
    }
    let single = match idl {
        Type::Numeric {
            min,
            max,
            min_inclusive,
            max_inclusive,
        } => idlc_runtime::nearest_f32_inside(value, *min, *max, *min_inclusive, *max_inclusive),
        _ => value as f32,
    };
    f32_lit(single)
}

fn literal(
    ir: &Ir,
    prelude: &super::idents::Prelude,
    idl: &Type,
    rust: &RustType,
    value: &Value,
) -> Result<TokenStream, CodegenError> {
    Ok(match (value, rust) {
        (Value::Int(v), RustType::F32 | RustType::F64) => float(*v as f64, idl, rust),
        (Value::Int(v), _) => int_lit(*v),
        (Value::Real(v), _) => float(*v, idl, rust),
        (Value::Bool(b), _) => quote!(#b),
        (Value::Str(s), RustType::Bytes) => {
            let bytes = proc_macro2::Literal::byte_string(s.as_bytes());
            quote!(#bytes.to_vec())
        }
        (Value::Str(s), _) => {
            let string = prelude.path("String");
            quote!(#string::from(#s))
        }
        (Value::Enumerator(name), RustType::Named(path)) => {
            let Type::Enum(enum_name) = idl else {
                return Err(CodegenError(format!(
                    "internal: enumerator DEFAULT on {}",
                    idl.describe()
                )));
            };
            let variant = ir
                .mapping
                .enums
                .get(enum_name)
                .and_then(|e| e.variants.get(name))
                .ok_or_else(|| {
                    CodegenError(format!("internal: no variant {name} of {enum_name}"))
                })?;
            let ty = rust_type(path)?;
            let variant = ident(variant);
            quote!(<#ty>::#variant)
        }
        (value, rust) => {
            return Err(CodegenError(format!(
                "internal: DEFAULT {value:?} for a field of Rust type {rust}"
            )));
        }
    })
}
