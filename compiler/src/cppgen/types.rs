//! The C++ types: how a mapped type is spelled, enum classes, struct definitions and the values
//! a field takes by default (the same as the Rust structs', codegen/values.rs).

use std::fmt::Write as _;

use super::literals::{double, int_literal, single, string_literal};
use super::unsupported;
use crate::codegen::CodegenError;
use crate::ir::{EnumDef, Ir, RustType, Type, Value};

/// The C++ spelling of a field type. An OPTIONAL that holds its own struct is a
/// `std::unique_ptr` (null when absent).
pub(super) fn cpp_type(ty: &RustType) -> Result<String, CodegenError> {
    Ok(match ty {
        RustType::Bool => "bool".into(),
        RustType::Int(name) => {
            let (sign, bits) = name.split_at(1);
            if bits == "128" {
                return Err(unsupported("a 128-bit integer"));
            }
            format!("std::{}int{bits}_t", if sign == "u" { "u" } else { "" })
        }
        RustType::F32 => "float".into(),
        RustType::F64 => "double".into(),
        RustType::String => "std::string".into(),
        RustType::Bytes => "std::vector<std::uint8_t>".into(),
        RustType::Vec(inner) => format!("std::vector<{}>", cpp_type(inner)?),
        RustType::Collection { path, .. } => path.clone(),
        RustType::Array(inner, len) => format!("std::array<{}, {len}>", cpp_type(inner)?),
        RustType::Option(inner) => match &**inner {
            RustType::Boxed(held) => format!("std::unique_ptr<{}>", cpp_type(held)?),
            _ => format!("std::optional<{}>", cpp_type(inner)?),
        },
        RustType::Boxed(inner) => format!("std::unique_ptr<{}>", cpp_type(inner)?),
        RustType::Named(name) => name.clone(),
        RustType::Quaternion => "idlc::Quaternion".into(),
        // A C++ mapping's resolution refuses it (E0407).
        RustType::QuaternionAs(_) => return Err(unsupported("a game's type holding a QUATERNION")),
    })
}

/// `enum class` with `index_of` and `from_index` (the wire sends the enumerator's index).
pub(super) fn enum_def(
    out: &mut String,
    ir: &Ir,
    name: &str,
    def: &EnumDef,
) -> Result<(), CodegenError> {
    let mapping = ir
        .mapping
        .enums
        .get(name)
        .ok_or_else(|| CodegenError(format!("internal: no mapping of enum {name}")))?;
    let cpp = &mapping.rust_name;
    let variant = |idl: &str| mapping.variants.get(idl).cloned().unwrap_or_default();
    writeln!(
        out,
        "/// The enum `{name}`.\nenum class {cpp} : std::int64_t {{"
    )
    .unwrap();
    for e in &def.enumerators {
        writeln!(out, "    {} = {},", variant(&e.name), e.value).unwrap();
    }
    writeln!(out, "}};\n").unwrap();
    let count = def.enumerators.len();
    writeln!(
        out,
        "/// The index of an enumerator of `{cpp}` ({count} for a value that is none).\n\
         inline std::uint64_t index_of({cpp} value) {{\n    switch (value) {{"
    )
    .unwrap();
    for (index, e) in def.enumerators.iter().enumerate() {
        writeln!(out, "    case {cpp}::{}: return {index};", variant(&e.name)).unwrap();
    }
    writeln!(
        out,
        "    }}\n    return {count};\n}}\n\n\
         /// The enumerator of `{cpp}` at `index`; false when there is none.\n\
         inline bool from_index(std::uint64_t index, {cpp}& out) {{"
    )
    .unwrap();
    // A table, not a `switch`: g++ compiles the switch to an indirect jump.
    writeln!(out, "    static constexpr {cpp} by_index[{count}] = {{").unwrap();
    for e in &def.enumerators {
        writeln!(out, "        {cpp}::{},", variant(&e.name)).unwrap();
    }
    writeln!(
        out,
        "    }};\n    if (index >= {count}) {{\n        return false;\n    }}\n    \
         out = by_index[index];\n    return true;\n}}\n"
    )
    .unwrap();
    Ok(())
}

/// The definition of a generated struct: public members with their default initializers, and
/// the declarations of its members that encode and decode it.
pub(super) fn struct_def(
    out: &mut String,
    ir: &Ir,
    name: &str,
    streams: (&str, &str),
    delta_members: Option<&str>,
) -> Result<(), CodegenError> {
    let mapping = &ir.mapping.structs[name];
    let def = &ir.schema.structs[name];
    let cpp = &mapping.rust_name;
    writeln!(out, "/// The struct `{name}`.\nstruct {cpp} {{").unwrap();
    for field in def.fields() {
        let rust = mapping.fields.get(&field.name).ok_or_else(|| {
            CodegenError(format!("internal: no mapping of {name}.{}", field.name))
        })?;
        let ty = cpp_type(&rust.ty)?;
        let current = def.current_type(&field.name).unwrap_or(&field.ty);
        writeln!(out, "    /// `{}`: `{}`.", field.name, current.describe()).unwrap();
        match default_value(ir, &field.ty, &rust.ty, field.default.as_ref())? {
            Default::Zero => writeln!(out, "    {ty} {}{{}};", rust.rust_name),
            Default::Expr(value) => writeln!(out, "    {ty} {} = {value};", rust.rust_name),
        }
        .unwrap();
    }
    let (writer, reader) = streams;
    writeln!(
        out,
        "\n    /// Its bytes in the default encoding, into `out` (replacing its content).\n\
         \x20   idlc::Status to_bytes(std::vector<std::uint8_t>& out) const;\n\
         \x20   /// Its bytes in the encoding `E`.\n\
         \x20   template <class E>\n\
         \x20   idlc::Status to_bytes_with(std::vector<std::uint8_t>& out) const;\n\
         \x20   /// Decodes the default encoding's bytes into `*this`.\n\
         \x20   idlc::Status from_bytes(const std::uint8_t* data, std::size_t size);\n\
         \x20   /// Decodes the bytes of the encoding `E` into `*this`.\n\
         \x20   template <class E>\n\
         \x20   idlc::Status from_bytes_with(const std::uint8_t* data, std::size_t size);\n\
         \x20   /// Writes it in the default encoding.\n\
         \x20   idlc::Status encode({writer}& w) const;\n\
         \x20   /// Reads it in the default encoding into `*this`.\n\
         \x20   idlc::Status decode({reader}& r);\n{}}};\n",
        delta_members.unwrap_or_default()
    )
    .unwrap();
    Ok(())
}

/// A field's default in C++.
pub(super) enum Default {
    /// The value-initialized value (`T{}`): zero, empty, absent, a struct's own defaults.
    Zero,
    /// An expression of the field's type.
    Expr(String),
}

impl Default {
    /// The default as an expression of type `ty`.
    pub(super) fn expr(self, ty: &RustType) -> Result<String, CodegenError> {
        Ok(match self {
            Default::Zero => format!("{}{{}}", cpp_type(ty)?),
            Default::Expr(value) => value,
        })
    }
}

/// The value a field takes when it was not sent or when its struct is made: its DEFAULT, else
/// the zero value if its range holds it, else the range's lower end (its middle when that end is
/// open); an enum's first enumerator; an array of elements that are each their default.
pub(super) fn default_value(
    ir: &Ir,
    idl: &Type,
    ty: &RustType,
    value: Option<&Value>,
) -> Result<Default, CodegenError> {
    if let Some(value) = value {
        return literal(ir, idl, ty, value).map(Default::Expr);
    }
    // Zero outside the range: its lower end, or its middle (an open lower end is no value).
    if let Some(substitute) = idl.zero_substitute() {
        return literal(ir, idl, ty, &substitute).map(Default::Expr);
    }
    Ok(match (idl, ty) {
        (Type::Enum(name), RustType::Named(cpp)) => {
            let first = ir
                .mapping
                .enums
                .get(name)
                .and_then(|e| e.variants.values().next())
                .ok_or_else(|| CodegenError(format!("internal: no enumerator of {name}")))?;
            Default::Expr(format!("{cpp}::{first}"))
        }
        (Type::Array { element, len }, RustType::Array(element_ty, _)) => {
            match default_value(ir, element, element_ty, None)? {
                Default::Zero => Default::Zero,
                Default::Expr(item) => Default::Expr(format!(
                    "idlc::filled<{}, {len}>({item})",
                    cpp_type(element_ty)?
                )),
            }
        }
        _ => Default::Zero,
    })
}

/// A real as a literal of the field's type: a `float` is the nearest one that stands for a value
/// of the field's range, as Rust's generated defaults are.
fn real(value: f64, idl: &Type, ty: &RustType) -> String {
    if !matches!(ty, RustType::F32) {
        return double(value);
    }
    let nearest = match idl {
        Type::Numeric {
            min,
            max,
            min_inclusive,
            max_inclusive,
        } => idlc_runtime::nearest_f32_inside(value, *min, *max, *min_inclusive, *max_inclusive),
        _ => value as f32,
    };
    single(nearest)
}

/// A DEFAULT as a C++ expression of the field's type.
fn literal(ir: &Ir, idl: &Type, ty: &RustType, value: &Value) -> Result<String, CodegenError> {
    Ok(match (value, ty) {
        (Value::Int(v), RustType::F32 | RustType::F64) => real(*v as f64, idl, ty),
        (Value::Int(v), _) => int_literal(*v),
        (Value::Real(v), _) => real(*v, idl, ty),
        (Value::Bool(b), _) => b.to_string(),
        (Value::Str(s), RustType::Bytes) => {
            let bytes: Vec<String> = s.bytes().map(|b| format!("0x{b:02x}")).collect();
            format!("std::vector<std::uint8_t>{{{}}}", bytes.join(", "))
        }
        (Value::Str(s), _) => format!("std::string({})", string_literal(s)),
        (Value::Enumerator(name), RustType::Named(cpp)) => {
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
                    CodegenError(format!("internal: no enumerator {name} of {enum_name}"))
                })?;
            format!("{cpp}::{variant}")
        }
        (value, ty) => {
            return Err(CodegenError(format!(
                "internal: DEFAULT {value:?} for a field of C++ type {}",
                cpp_type(ty)?
            )));
        }
    })
}
