//! Checking a Rust type written in a mapping (`f32 angle;`) against the field's IDL type.

use std::collections::HashSet;

use super::{Resolver, error, latest_type};
use crate::diagnostics::{FileId, codes, primary, secondary};
use crate::front::map::ast;
use crate::ir::{Language, Loc, RustType, Type};

/// The Rust integer types a field may be mapped to: name, signed, bits.
const INTS: &[(&str, bool, u32)] = &[
    ("u8", false, 8),
    ("u16", false, 16),
    ("u32", false, 32),
    ("u64", false, 64),
    ("u128", false, 128),
    ("i8", true, 8),
    ("i16", true, 16),
    ("i32", true, 32),
    ("i64", true, 64),
    ("i128", true, 128),
];

/// Whether the Rust integer type (`signed`, `bits`) holds every value of `min..=max`.
fn fits(signed: bool, bits: u32, min: i128, max: i128) -> bool {
    match (signed, bits) {
        (true, 128) => true,
        (false, 128) => min >= 0,
        (true, _) => {
            let half = 1i128 << (bits - 1);
            min >= -half && max < half
        }
        (false, _) => min >= 0 && max < (1i128 << bits),
    }
}

/// The range of a Rust integer type, as `lo..=hi`.
fn range_text(signed: bool, bits: u32) -> String {
    match (signed, bits) {
        (true, 128) => format!("{}..={}", i128::MIN, i128::MAX),
        (false, 128) => format!("0..={}", u128::MAX),
        (true, _) => format!("{}..={}", -(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
        (false, _) => format!("0..={}", (1i128 << bits) - 1),
    }
}

/// The smallest Rust integer of the given signedness that holds `min..=max`, if any.
fn smallest_of(signed: bool, min: i128, max: i128) -> Option<&'static str> {
    INTS.iter()
        .find(|&&(_, s, bits)| s == signed && fits(s, bits, min, max))
        .map(|&(name, _, _)| name)
}

/// The built-in Rust type of `INT[min,max]`: the smallest integer that holds the range, unsigned
/// when `min >= 0` (`u8`, `u16`, `u32`, `u64`), else signed (`i8` .. `i64`). Ranges beyond 64 bits
/// cannot come from a valid IDL; they get `u128` / `i128`.
pub(crate) fn smallest_int(min: i128, max: i128) -> &'static str {
    smallest_of(min < 0, min, max).unwrap_or("i128")
}

/// A type as written in the mapping: `std::collections::VecDeque<Item>`, `[f32; 3]`.
pub(super) fn written_text(ty: &ast::RustType) -> String {
    if let (Some(len), [element]) = (ty.array_len, ty.args.as_slice()) {
        return format!("[{}; {len}]", written_text(element));
    }
    let mut text = super::path_text(&ty.path);
    if !ty.args.is_empty() {
        let args: Vec<String> = ty.args.iter().map(written_text).collect();
        text.push('<');
        text.push_str(&args.join(", "));
        text.push('>');
    }
    text
}

/// The field whose mapping is checked, for the label pointing into the IDL.
pub(super) struct Subject<'f> {
    /// The IDL field's name.
    pub name: &'f str,
    /// Its latest IDL type.
    pub ty: &'f Type,
    /// Where the IDL declares it.
    pub loc: Loc,
}

impl Subject<'_> {
    /// A secondary label at the IDL field: "`angle` is NUMERIC[0,360]".
    fn label(&self) -> codespan_reporting::diagnostic::Label<FileId> {
        secondary(self.loc.file, self.loc.span).with_message(format!(
            "`{}` is {}",
            self.name,
            describe(self.ty)
        ))
    }
}

/// An IDL type for messages: `INT[0,1000]`, `the struct `Vec3``.
fn describe(ty: &Type) -> String {
    match ty {
        Type::Struct(name) => format!("the struct `{name}`"),
        Type::Enum(name) => format!("the enum `{name}`"),
        _ => ty.describe(),
    }
}

/// What a written type is, as far as the checks care.
#[derive(Debug, Clone, Copy)]
enum Written<'t> {
    /// `u8` .. `i128`.
    Int(&'static str, bool, u32),
    /// `usize`, `isize`.
    Platform(&'static str),
    F32,
    F64,
    Bool,
    String,
    /// Another primitive (`char`, `str`): never a field type here.
    Primitive,
    /// `Vec<...>` with its arguments.
    Vec(&'t [ast::RustType]),
    /// `Option<...>` with its arguments.
    Option(&'t [ast::RustType]),
    /// `Box<...>` with its arguments.
    Boxed(&'t [ast::RustType]),
    /// `[T; n]`: the element type and the length as written.
    Array(&'t ast::RustType, i128),
    /// Any other path: a user type.
    Path,
}

impl Written<'_> {
    /// Whether it looks like a collection: `Vec` or a user type.
    /// Written as a collection: `Vec<..>`, or a path with a type argument (a bare path such as
    /// `f16` is more likely a scalar type than a collection).
    fn collection_like(self, written: &ast::RustType) -> bool {
        matches!(self, Written::Vec(_)) || matches!(self, Written::Path) && !written.args.is_empty()
    }
}

/// What a C++ type is, in the terms of Rust's: `double` is `f64`, `uint16_t` (or the IDL's
/// `UINT16`) is `u16`, `std::vector<T>` is `Vec<T>`, `std::optional<T>` is `Option<T>`,
/// `std::unique_ptr<T>` is `Box<T>`, `std::string` is `String`; any other name is a user type.
fn classify_cpp(ty: &ast::RustType) -> Written<'_> {
    let segments: Vec<&str> = ty.path.segments.iter().map(|s| s.name.as_str()).collect();
    let args = ty.args.as_slice();
    let name = match segments.as_slice() {
        ["std", name] | [name] => *name,
        _ => return Written::Path,
    };
    if !args.is_empty() {
        return match name {
            "vector" => Written::Vec(args),
            "optional" => Written::Option(args),
            "unique_ptr" => Written::Boxed(args),
            _ => Written::Path,
        };
    }
    let int = |rust: &str| {
        INTS.iter()
            .find(|(n, _, _)| *n == rust)
            .map_or(Written::Path, |&(n, signed, bits)| {
                Written::Int(n, signed, bits)
            })
    };
    match name {
        "string" => Written::String,
        "bool" | "BOOL" => Written::Bool,
        "float" | "FLOAT32" => Written::F32,
        "double" | "FLOAT64" => Written::F64,
        "size_t" | "ptrdiff_t" | "intptr_t" | "uintptr_t" => Written::Platform("size_t"),
        "int" | "long" | "short" | "char" | "unsigned" => Written::Primitive,
        _ => {
            let (signed, bits) = match name.strip_suffix("_t") {
                Some(t) => (
                    !t.starts_with('u'),
                    t.trim_start_matches("uint").trim_start_matches("int"),
                ),
                None => (
                    !name.starts_with("UINT"),
                    name.trim_start_matches("UINT").trim_start_matches("INT"),
                ),
            };
            match (bits, name.len() > bits.len()) {
                ("8" | "16" | "32" | "64", true) => {
                    int(&format!("{}{bits}", if signed { 'i' } else { 'u' }))
                }
                _ => Written::Path,
            }
        }
    }
}

fn classify(ty: &ast::RustType) -> Written<'_> {
    let segments: Vec<&str> = ty.path.segments.iter().map(|s| s.name.as_str()).collect();
    let args = ty.args.as_slice();
    if let (Some(len), [element]) = (ty.array_len, args) {
        return Written::Array(element, len);
    }
    if !args.is_empty() {
        return match segments.as_slice() {
            ["Vec"] | ["std" | "alloc", "vec", "Vec"] => Written::Vec(args),
            ["Option"] | ["std" | "core", "option", "Option"] => Written::Option(args),
            ["Box"] | ["std" | "alloc", "boxed", "Box"] => Written::Boxed(args),
            _ => Written::Path,
        };
    }
    // Without arguments, `Box`, `Vec` and `Option` are paths like any other: a type of the
    // schema that shadows the prelude's (edge.idl's `STRUCT Box`, `ENUM Option`).

    match segments.as_slice() {
        ["String"] | ["std" | "alloc", "string", "String"] => Written::String,
        ["bool"] => Written::Bool,
        ["f32"] => Written::F32,
        ["f64"] => Written::F64,
        ["usize"] => Written::Platform("usize"),
        ["isize"] => Written::Platform("isize"),
        ["char"] | ["str"] => Written::Primitive,
        [one] => INTS
            .iter()
            .find(|(name, _, _)| name == one)
            .map_or(Written::Path, |&(name, signed, bits)| {
                Written::Int(name, signed, bits)
            }),
        _ => Written::Path,
    }
}

impl Resolver<'_> {
    /// The built-in Rust type of `ty` on `side`.
    pub(super) fn default_type(&self, side: Option<&str>, ty: &Type) -> RustType {
        match ty {
            Type::Bool => RustType::Bool,
            Type::Uint(bits) => RustType::Int(format!("u{bits}")),
            Type::Int(bits) => RustType::Int(format!("i{bits}")),
            Type::Float32 => RustType::F32,
            Type::Float64 | Type::Numeric { .. } => RustType::F64,
            Type::IntRange { min, max } => RustType::Int(smallest_int(*min, *max).to_owned()),
            Type::String { .. } => RustType::String,
            Type::Bytes { .. } => RustType::Bytes,
            Type::Sequence { element, .. } => {
                RustType::Vec(Box::new(self.default_type(side, element)))
            }
            Type::Array { element, len } => {
                RustType::Array(Box::new(self.default_type(side, element)), *len)
            }
            Type::Optional(inner) => RustType::Option(Box::new(self.default_type(side, inner))),
            Type::Struct(name) => RustType::Named(self.struct_rust_name(side, name)),
            Type::Enum(name) => RustType::Named(self.type_name(name)),
            Type::Quaternion => RustType::Quaternion,
        }
    }

    /// `rust`, the Rust type of a value of `idl` inside struct `owner`, with `Box` around what an
    /// OPTIONAL holds when it leads back to `owner` by value (else the Rust type has no size).
    pub(super) fn box_cycles(&self, owner: &str, idl: &Type, rust: RustType) -> RustType {
        match (idl, rust) {
            (Type::Optional(inner), RustType::Option(held)) => {
                let held = self.box_cycles(owner, inner, *held);
                let held = if !matches!(held, RustType::Boxed(_)) && self.leads_back(owner, inner) {
                    RustType::Boxed(Box::new(held))
                } else {
                    held
                };
                RustType::Option(Box::new(held))
            }
            (Type::Array { element, .. }, RustType::Array(held, len)) => {
                RustType::Array(Box::new(self.box_cycles(owner, element, *held)), len)
            }
            (_, rust) => rust,
        }
    }

    /// Whether a value of `ty` holds a struct `owner` by value: through struct fields, ARRAYs
    /// and OPTIONALs, not through SEQUENCEs (which are on the heap).
    pub(super) fn leads_back(&self, owner: &str, ty: &Type) -> bool {
        let mut stack = vec![ty];
        let mut seen: HashSet<&str> = HashSet::new();
        while let Some(ty) = stack.pop() {
            match ty {
                Type::Struct(name) if name == owner => return true,
                Type::Struct(name) => {
                    let first_visit = seen.insert(name);
                    if let (true, Some(def)) = (first_visit, self.schema.structs.get(name)) {
                        stack.extend(def.fields().map(|f| latest_type(def, f)));
                    }
                }
                Type::Array { element, .. } => stack.push(element),
                Type::Optional(inner) => stack.push(inner),
                _ => {}
            }
        }
        false
    }

    /// Checks the Rust type `written` for a value of IDL type `idl` (the whole field, or an
    /// element of it) on `side`; returns the Rust type, or reports why it does not fit.
    pub(super) fn check_type(
        &mut self,
        file: FileId,
        side: &str,
        idl: &Type,
        written: &ast::RustType,
        field: &Subject<'_>,
    ) -> Option<RustType> {
        let kind = match self.item_language {
            Language::Rust => classify(written),
            Language::Cpp => classify_cpp(written),
        };
        match (idl, kind) {
            (Type::Bool, Written::Bool) => Some(RustType::Bool),
            (
                Type::Uint(_) | Type::Int(_) | Type::IntRange { .. },
                Written::Int(name, signed, bits),
            ) => {
                let (min, max) = idl.int_range()?;
                if fits(signed, bits, min, max) {
                    return Some(RustType::Int(name.to_owned()));
                }
                let suggestion = smallest_of(signed, min, max).unwrap_or(smallest_int(min, max));
                // A C++ mapping's messages spell the types as it wrote them (`uint8_t`).
                let (name, suggestion) = match self.item_language {
                    Language::Rust => (name.to_owned(), suggestion.to_owned()),
                    Language::Cpp => (written_text(written), cpp_int(suggestion)),
                };
                self.push(
                    error(
                        codes::MAP_INT_RANGE,
                        format!("`{name}` cannot hold every value of {}", idl.describe()),
                    )
                    .with_labels(vec![
                        primary(file, written.span)
                            .with_message(format!("`{name}` holds {}", range_text(signed, bits))),
                        field.label(),
                    ])
                    .with_notes(vec![format!(
                        "the smallest type that holds {min}..={max} is `{suggestion}`"
                    )]),
                );
                None
            }
            (Type::Uint(_) | Type::Int(_) | Type::IntRange { .. }, Written::Platform(name)) => {
                let (min, max) = idl.int_range()?;
                self.push(
                    error(
                        codes::MAP_PLATFORM_INT,
                        format!("`{name}` is not allowed for {}: its width depends on the platform", idl.describe()),
                    )
                    .with_labels(vec![
                        primary(file, written.span).with_message("platform-dependent width"),
                        field.label(),
                    ])
                    .with_notes(vec![format!(
                        "use a fixed-width integer type; the smallest that holds {min}..={max} is `{}`",
                        smallest_int(min, max)
                    )]),
                );
                None
            }
            (Type::Float32, Written::F32) => Some(RustType::F32),
            (Type::Float32 | Type::Float64 | Type::Numeric { .. }, Written::F64) => {
                Some(RustType::F64)
            }
            (Type::Numeric { .. }, Written::F32) => Some(RustType::F32),
            (Type::Float64, Written::F32) => {
                self.push(
                    error(
                        codes::MAP_LOSSY_FLOAT,
                        "`f32` cannot hold every FLOAT64 value: the mapping would lose precision",
                    )
                    .with_labels(vec![
                        primary(file, written.span).with_message("32-bit float"),
                        field.label(),
                    ])
                    .with_notes(vec![
                        "map it to `f64` (the default), or declare it FLOAT32 or NUMERIC in the IDL"
                            .into(),
                    ]),
                );
                None
            }
            (Type::String { .. }, Written::String) => Some(RustType::String),
            (Type::Bytes { .. }, Written::Vec([arg]))
                if matches!(classify(arg), Written::Int("u8", _, _)) =>
            {
                Some(RustType::Bytes)
            }
            (Type::Sequence { element, .. }, Written::Vec(args)) => match args {
                [arg] => self
                    .check_type(file, side, element, arg, field)
                    .map(|t| RustType::Vec(Box::new(t))),
                _ => self.mismatch(file, side, idl, written, field, false),
            },
            (Type::Sequence { element, .. }, Written::Path) => {
                let element = match written.args.as_slice() {
                    [arg] => self.check_type(file, side, element, arg, field)?,
                    [] => self.default_type(Some(side), element),
                    // A collection takes one type argument, the element's (LANGUAGES.md).
                    _ => return self.mismatch(file, side, idl, written, field, false),
                };
                Some(RustType::Collection {
                    path: written_text(written),
                    element: Box::new(element),
                })
            }
            (Type::Array { element, len }, Written::Array(arg, written_len)) => {
                if i128::from(*len) != written_len {
                    return self.mismatch(file, side, idl, written, field, false);
                }
                self.check_type(file, side, element, arg, field)
                    .map(|t| RustType::Array(Box::new(t), *len))
            }
            (Type::Optional(inner), Written::Option([arg])) => self
                .check_type(file, side, inner, arg, field)
                .map(|t| RustType::Option(Box::new(t))),
            (Type::Struct(_), Written::Boxed([arg])) => self
                .check_type(file, side, idl, arg, field)
                .map(|t| RustType::Boxed(Box::new(t))),
            (Type::Struct(_) | Type::Enum(_), Written::Path) => {
                let expected = self.default_type(Some(side), idl);
                if written_text(written) == expected.to_string() {
                    Some(expected)
                } else {
                    self.mismatch(file, side, idl, written, field, false)
                }
            }
            (Type::Quaternion, Written::Path) if written.args.is_empty() => {
                self.quaternion_type(file, written, field)
            }
            (Type::Sequence { .. } | Type::Struct(_) | Type::Enum(_), _) => {
                self.mismatch(file, side, idl, written, field, false)
            }
            (_, kind) => {
                let collection = kind.collection_like(written);
                self.mismatch(file, side, idl, written, field, collection)
            }
        }
    }

    /// The Rust type of a QUATERNION written as a path: the runtime's own, or a game's type
    /// that generated code converts (Rust); a C++ side takes only `idlc::Quaternion`.
    fn quaternion_type(
        &mut self,
        file: FileId,
        written: &ast::RustType,
        field: &Subject<'_>,
    ) -> Option<RustType> {
        let text = written_text(written);
        match self.item_language {
            Language::Rust => Some(match text.as_str() {
                "idlc_runtime::Quaternion" | "::idlc_runtime::Quaternion" => RustType::Quaternion,
                _ => RustType::QuaternionAs(text),
            }),
            Language::Cpp if text == "idlc::Quaternion" => Some(RustType::Quaternion),
            Language::Cpp => {
                self.push(
                    error(
                        codes::MAP_TYPE_MISMATCH,
                        format!("`{text}` is not a C++ type for QUATERNION: a C++ side holds `idlc::Quaternion`"),
                    )
                    .with_labels(vec![
                        primary(file, written.span)
                            .with_message("a game's rotation type is not converted in C++"),
                        field.label(),
                    ])
                    .with_notes(vec![
                        "the C++ backend converts no QUATERNION: map it to `idlc::Quaternion` (the default) and convert where the game reads and writes it (a Rust side may name a game's type: docs/LANGUAGES.md)".into(),
                    ]),
                );
                None
            }
        }
    }

    /// Reports that `written` is no Rust type for `idl`: a collection for a non-sequence
    /// (`collection`), or any other mismatch.
    fn mismatch(
        &mut self,
        file: FileId,
        side: &str,
        idl: &Type,
        written: &ast::RustType,
        field: &Subject<'_>,
        collection: bool,
    ) -> Option<RustType> {
        let text = written_text(written);
        let described = describe(idl);
        let rust = |r: &Self, ty: &Type| r.default_type(Some(side), ty).to_string();
        let accepted = match idl {
            Type::Bool => "a BOOL is `bool`".to_owned(),
            Type::Uint(_) | Type::Int(_) | Type::IntRange { .. } => match idl.int_range() {
                Some((min, max)) => format!(
                    "an integer takes a Rust integer type (`u8`..`u128`, `i8`..`i128`) that holds its range; the smallest that holds {min}..={max} is `{}`",
                    smallest_int(min, max)
                ),
                None => "an integer takes a Rust integer type".to_owned(),
            },
            Type::Float32 => "a FLOAT32 is `f32` (the default) or `f64`".to_owned(),
            Type::Quaternion => format!(
                "a QUATERNION is `idlc_runtime::Quaternion` (the default) or a type path without arguments convertible to and from it, {QUATERNION_BOUND} (`glam::Quat` with the runtime's feature `glam`)"
            ),
            Type::Float64 => "a FLOAT64 is `f64`".to_owned(),
            Type::Numeric { .. } => "a NUMERIC is `f64` (the default) or `f32`".to_owned(),
            Type::String { .. } => "a STRING is `String`".to_owned(),
            Type::Bytes { .. } => "a BYTES is `Vec<u8>`".to_owned(),
            Type::Sequence { element, .. } => {
                let element = rust(self, element);
                format!(
                    "a SEQUENCE is `Vec<{element}>` (the default) or a collection type implementing the runtime's collection trait (`MyInventory`, `VecDeque<{element}>`)"
                )
            }
            Type::Array { len, .. } => format!(
                "an ARRAY<T,{len}> is an array of {len} (`{}` by default), whose element type may be mapped as a field of type T: `[f32; {len}]` for NUMERIC elements",
                rust(self, idl)
            ),
            Type::Optional(_) => format!("an OPTIONAL is `{}`", rust(self, idl)),
            Type::Struct(name) => format!(
                "a field of type `{name}` has the Rust type of `{name}` on this side, `{}`; to use another type, map the struct itself: `STRUCT {name} = path::Type {{ ... }}`",
                rust(self, idl)
            ),
            Type::Enum(name) => format!(
                "a field of enum type `{name}` is the generated enum `{}`",
                rust(self, idl)
            ),
        };
        let diagnostic = if collection {
            error(
                codes::MAP_NOT_A_SEQUENCE,
                format!("`{text}` cannot stand for {described}: only a SEQUENCE maps to a collection type"),
            )
            .with_labels(vec![
                primary(file, written.span)
                    .with_message("only a SEQUENCE maps to a collection type"),
                field.label(),
            ])
        } else {
            error(
                codes::MAP_TYPE_MISMATCH,
                format!(
                    "`{text}` is not a {} type for {described}",
                    match self.item_language {
                        Language::Rust => "Rust",
                        Language::Cpp => "C++",
                    }
                ),
            )
            .with_labels(vec![
                primary(file, written.span).with_message(format!("cannot hold {described}")),
                field.label(),
            ])
        };
        let accepted = match self.item_language {
            Language::Rust => accepted,
            Language::Cpp => cpp_accepted(idl),
        };
        self.push(diagnostic.with_notes(vec![accepted]));
        None
    }
}

/// What a game's type mapping a QUATERNION must implement (`T` the type).
const QUATERNION_BOUND: &str =
    "`T: Copy`, `idlc_runtime::Quaternion: From<T>` and `T: From<idlc_runtime::Quaternion>`";

/// The `<cstdint>` spelling of a Rust integer type: `u16` is `uint16_t`.
fn cpp_int(rust: &str) -> String {
    let (sign, bits) = rust.split_at(1);
    format!("{}int{bits}_t", if sign == "u" { "u" } else { "" })
}

/// What a C++ mapping may write for a value of `idl` (docs/CPP.md, "Mappings").
fn cpp_accepted(idl: &Type) -> String {
    match idl {
        Type::Bool => "a BOOL is `bool`".to_owned(),
        Type::Uint(_) | Type::Int(_) | Type::IntRange { .. } => match idl.int_range() {
            Some((min, max)) => format!(
                "an integer takes a fixed-width type (`uint8_t`..`int64_t`, or `UINT8`..`INT64`) that holds its range; the smallest that holds {min}..={max} is `{}`",
                cpp_int(smallest_int(min, max))
            ),
            None => "an integer takes a fixed-width type (`uint8_t`..`int64_t`)".to_owned(),
        },
        Type::Float32 => "a FLOAT32 is `float` (the default) or `double`".to_owned(),
        Type::Quaternion => "a QUATERNION is `idlc::Quaternion`".to_owned(),
        Type::Float64 => "a FLOAT64 is `double`".to_owned(),
        Type::Numeric { .. } => "a NUMERIC is `double` (the default) or `float`".to_owned(),
        Type::String { .. } => "a STRING is `std::string`".to_owned(),
        Type::Bytes { .. } => "a BYTES is `std::vector<uint8_t>`".to_owned(),
        Type::Sequence { .. } => "a SEQUENCE is `std::vector<T>` (the default) or a collection class (`class MyInventory`)".to_owned(),
        Type::Array { len, .. } => format!("an ARRAY<T,{len}> is `std::array<T, {len}>`"),
        Type::Optional(_) => "an OPTIONAL is `std::optional<T>`".to_owned(),
        Type::Struct(name) => format!(
            "a field of type `{name}` has the C++ type of `{name}` on this side; to use another type, map the struct itself: `STRUCT {name} = ns::Type {{ ... }}`"
        ),
        Type::Enum(name) => format!("a field of enum type `{name}` is the generated enum class"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_integer_types() {
        assert_eq!(smallest_int(0, 255), "u8");
        assert_eq!(smallest_int(0, 256), "u16");
        assert_eq!(smallest_int(0, 119), "u8");
        assert_eq!(smallest_int(-1, 127), "i8");
        assert_eq!(smallest_int(-128, 127), "i8");
        assert_eq!(smallest_int(-129, 0), "i16");
        assert_eq!(smallest_int(0, 65_535), "u16");
        assert_eq!(smallest_int(0, 65_536), "u32");
        assert_eq!(smallest_int(0, i128::from(u64::MAX)), "u64");
        assert_eq!(
            smallest_int(i128::from(i64::MIN), i128::from(i64::MAX)),
            "i64"
        );
        assert_eq!(smallest_int(0, i128::from(u64::MAX) + 1), "u128");
        assert_eq!(smallest_int(i128::from(i64::MIN) - 1, 0), "i128");
    }

    #[test]
    fn integer_fit() {
        assert!(fits(false, 8, 0, 255));
        assert!(!fits(false, 8, 0, 256));
        assert!(!fits(false, 64, -1, 0));
        assert!(fits(true, 8, -128, 127));
        assert!(!fits(true, 8, -129, 0));
        assert!(fits(false, 128, 0, i128::MAX));
        assert!(fits(true, 128, i128::MIN, i128::MAX));
        assert_eq!(range_text(false, 8), "0..=255");
        assert_eq!(range_text(true, 16), "-32768..=32767");
        assert_eq!(smallest_of(true, 0, 1000), Some("i16"));
        assert_eq!(smallest_of(false, -1, 5), None);
    }
}
