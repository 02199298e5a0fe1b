//! The statements that write and read one value with its rule: the C++ twin of
//! codegen/rules.rs, calling the runtime's free functions of the same names.

use super::literals::{double, int128};
use super::types::cpp_type;
use super::unsupported;
use crate::codegen::CodegenError;
use crate::ir::{Ir, RustType, Type, VlqMapping, WireRule, is_default_length, length_type};

/// A value to write.
pub(super) enum Val {
    /// A C++ expression of the field's type.
    Expr(String),
    /// The first `max` elements (bytes) of a sequence (byte string): an EXTENDed field's old slot.
    Prefix(String, u64),
}

impl Val {
    fn expr(&self) -> &str {
        match self {
            Val::Expr(e) | Val::Prefix(e, _) => e,
        }
    }

    /// The number of elements sent of a container whose size is `size`.
    fn count(&self, size: String) -> String {
        match self {
            Val::Expr(_) => size,
            Val::Prefix(_, max) => format!("std::min<std::size_t>({size}, {max}u)"),
        }
    }
}

/// Wraps a `Status` expression with the error's field path (`.in_field(..)`, `.at_index(i)`).
pub(super) type Named<'n> = &'n dyn Fn(&str) -> String;

/// The codec being written: its IR, its encoding and a counter for local names.
pub(super) struct Body<'a> {
    /// The IR.
    pub ir: &'a Ir,
    /// The encoding's name in the IR.
    pub encoding: &'a str,
    /// Its tag struct.
    tag: &'a str,
    next: usize,
}

impl<'a> Body<'a> {
    /// A codec of `encoding`.
    pub fn new(ir: &'a Ir, encoding: &'a str, tag: &'a str) -> Self {
        Body {
            ir,
            encoding,
            tag,
            next: 0,
        }
    }

    /// A fresh local name.
    pub fn local(&mut self, stem: &str) -> String {
        self.next += 1;
        format!("{stem}_{}", self.next)
    }

    /// Statements writing `val` (C++ type `ty`, IDL type `idl`) with `rule`.
    pub fn write(
        &mut self,
        rule: &WireRule,
        idl: &Type,
        ty: &RustType,
        val: &Val,
        named: Named<'_>,
    ) -> Result<String, CodegenError> {
        let try_ = |op: String| format!("IDLC_TRY(({}));\n", named(&op));
        let v = val.expr();
        Ok(match rule {
            WireRule::Vlq {
                group_bits,
                mapping,
                min,
                max,
                ..
            } => try_(format!(
                "idlc::write_vlq_int(w, {v}, {}, {}, {}, {group_bits})",
                vlq_mode(*mapping),
                int128(*min)?,
                int128(*max)?
            )),
            WireRule::Ranged { min, max, bits } => try_(format!(
                "idlc::write_ranged(w, {v}, {}, {}, {bits})",
                int128(*min)?,
                int128(*max)?
            )),
            WireRule::Fixed { bits, signed } => {
                let (min, max) = idl
                    .int_range()
                    .ok_or_else(|| unsupported("a fixed-width non-integer"))?;
                try_(format!(
                    "idlc::write_fixed(w, {v}, {}, {}, {bits}, {signed})",
                    int128(min)?,
                    int128(max)?
                ))
            }
            WireRule::EnumIndex { count, bits } => try_(format!(
                "idlc::write_enum(w, index_of({v}), {count}, {bits})"
            )),
            WireRule::Bool { bits } => try_(format!("idlc::write_wide_bool(w, {v}, {bits})")),
            WireRule::FixedPoint { min, max, .. } => try_(format!(
                "idlc::write_quantized(w, {}, {})",
                quantizer(rule)?,
                real_input(*min, *max, ty, v)
            )),
            WireRule::Float64 => self.write_f64(idl, ty, v, &try_)?,
            WireRule::Float32 => self.write_f32(idl, ty, v, &try_)?,
            WireRule::Quaternion => try_(format!("idlc::write_quaternion_f32(w, {v})")),
            WireRule::SmallestThree { bits } => {
                try_(format!("idlc::SmallestThree{{{bits}}}.write(w, {v})"))
            }
            WireRule::Sequence {
                count,
                max,
                element,
                ..
            } => {
                let (idl_element, element_ty) = sequence_parts(idl, ty)?;
                let (size, item) = match ty {
                    RustType::Collection { .. } => (
                        format!("{v}.idl_serialize_collection_get_size()"),
                        format!("{v}.idl_serialize_collection_get_item"),
                    ),
                    _ => (format!("{v}.size()"), v.to_string()),
                };
                let n = self.local("count");
                let length = self.write_length_of(count, *max, &n, named)?;
                let i = self.local("i");
                let indexed = |op: &str| named(&format!("{op}.at_index({i})"));
                let name = self.local("item");
                let item_val = Val::Expr(name.clone());
                let inner = self.write(element, idl_element, element_ty, &item_val, &indexed)?;
                let item = if matches!(ty, RustType::Collection { .. }) {
                    format!("{item}({i})")
                } else {
                    format!("{item}[{i}]")
                };
                format!(
                    "{{\nconst std::size_t {n} = {};\n{length}\
                     for (std::size_t {i} = 0; {i} < {n}; ++{i}) {{\n\
                     const auto& {name} = {item};\n{inner}}}\n}}\n",
                    val.count(size)
                )
            }
            WireRule::Array { element, len } => {
                let (
                    Type::Array {
                        element: idl_element,
                        ..
                    },
                    RustType::Array(element_ty, _),
                ) = (idl, ty)
                else {
                    return Err(unsupported("this ARRAY"));
                };
                let i = self.local("i");
                let indexed = |op: &str| named(&format!("{op}.at_index({i})"));
                let inner = self.write(
                    element,
                    idl_element,
                    element_ty,
                    &Val::Expr(format!("{v}[{i}]")),
                    &indexed,
                )?;
                format!("for (std::size_t {i} = 0; {i} < {len}u; ++{i}) {{\n{inner}}}\n")
            }
            WireRule::Huffman { codes } => format!(
                "{{\nstatic const idlc::HuffmanCode codes[] = {};\n{}}}\n",
                huffman_table(codes),
                try_(format!("idlc::write_huffman(w, index_of({v}), codes)"))
            ),
            WireRule::Bytes { length, utf8, max } => {
                let (data, size) = match (utf8, ty) {
                    (true, RustType::String) => (
                        format!("reinterpret_cast<const std::uint8_t*>({v}.data())"),
                        format!("{v}.size()"),
                    ),
                    (false, RustType::Bytes) => (format!("{v}.data()"), format!("{v}.size()")),
                    _ => return Err(unsupported("this STRING or BYTES field")),
                };
                if let (true, true, Val::Expr(_)) = (*utf8, is_default_length(length, *max), val) {
                    return Ok(try_(format!("idlc::write_str(w, {v}, {})", bound(*max))));
                }
                let n = self.local("size");
                let write = if is_default_length(length, *max) {
                    try_(format!(
                        "idlc::write_bytes(w, {data}, {n}, {})",
                        bound(*max)
                    ))
                } else {
                    format!(
                        "{}{}",
                        self.write_length_of(length, *max, &n, named)?,
                        try_(format!("idlc::write_aligned_bytes(w, {data}, {n})"))
                    )
                };
                format!(
                    "{{\nconst std::size_t {n} = {};\n{write}}}\n",
                    val.count(size)
                )
            }
            WireRule::Optional(inner) => {
                let (inner_idl, inner_ty) = optional_parts(idl, ty)?;
                let held = Val::Expr(format!("(*{v})"));
                let held = self.write(inner, inner_idl, inner_ty, &held, named)?;
                let present = match ty {
                    RustType::Option(boxed) if matches!(**boxed, RustType::Boxed(_)) => {
                        format!("{v} != nullptr")
                    }
                    _ => format!("{v}.has_value()"),
                };
                format!(
                    "if ({present}) {{\n{}{held}}} else {{\n{}}}\n",
                    try_("idlc::write_presence(w, true)".into()),
                    try_("idlc::write_presence(w, false)".into())
                )
            }
            WireRule::Struct(name) => {
                let cpp = self.struct_name(name)?;
                try_(format!("Codec<{cpp}, {}>::encode_nested({v}, w)", self.tag))
            }
        })
    }

    fn write_f64(
        &mut self,
        idl: &Type,
        ty: &RustType,
        v: &str,
        try_: &dyn Fn(String) -> String,
    ) -> Result<String, CodegenError> {
        Ok(match (idl, ty) {
            (Type::Numeric { min, max, .. }, RustType::F64 | RustType::F32) => {
                let range = numeric_range(idl)?;
                let value = self.local("value");
                format!(
                    "{{\nconst double {value} = {};\n{}{}}}\n",
                    real_input(*min, *max, ty, v),
                    try_(format!("idlc::check_numeric(w, {value}, {range})")),
                    try_(format!("idlc::write_f64(w, {value})"))
                )
            }
            (_, RustType::F64) => try_(format!("idlc::write_f64(w, {v})")),
            (_, RustType::F32) => try_(format!("idlc::write_f64(w, static_cast<double>({v}))")),
            _ => return Err(unsupported("this FLOAT64 field")),
        })
    }

    fn write_f32(
        &mut self,
        idl: &Type,
        ty: &RustType,
        v: &str,
        try_: &dyn Fn(String) -> String,
    ) -> Result<String, CodegenError> {
        Ok(match (idl, ty) {
            (Type::Numeric { .. }, RustType::F32) => format!(
                "{}{}",
                try_(format!(
                    "idlc::check_f32_in_range(w, {v}, {})",
                    numeric_range(idl)?
                )),
                try_(format!("idlc::write_f32(w, {v})"))
            ),
            (Type::Numeric { min, max, .. }, RustType::F64) => {
                let single = self.local("single");
                format!(
                    "{{\nfloat {single} = 0.0f;\n{}{}}}\n",
                    try_(format!(
                        "idlc::check_numeric_f32(w, {}, {}, {single})",
                        real_input(*min, *max, ty, v),
                        numeric_range(idl)?
                    )),
                    try_(format!("idlc::write_f32(w, {single})"))
                )
            }
            (_, RustType::F32) => try_(format!("idlc::write_f32(w, {v})")),
            (_, RustType::F64) => try_(format!("idlc::write_f32(w, static_cast<float>({v}))")),
            _ => return Err(unsupported("this FLOAT32 field")),
        })
    }

    /// Statements writing the length or count `n` (an integer local) with its rule.
    pub fn write_length_of(
        &mut self,
        length: &WireRule,
        max: Option<u64>,
        n: &str,
        named: Named<'_>,
    ) -> Result<String, CodegenError> {
        let try_ = |op: String| format!("IDLC_TRY(({}));\n", named(&op));
        if is_default_length(length, max) {
            return Ok(try_(format!(
                "idlc::write_count(w, static_cast<std::uint64_t>({n}), {})",
                bound(max)
            )));
        }
        if let (WireRule::Ranged { min: 0, bits, .. }, Some(max)) = (length, max) {
            return Ok(try_(format!(
                "idlc::write_bounded_length(w, static_cast<std::uint64_t>({n}), {max}u, {bits})"
            )));
        }
        let count = Val::Expr(format!("static_cast<std::uint64_t>({n})"));
        self.write(
            length,
            &length_type(max),
            &RustType::Int("u64".into()),
            &count,
            named,
        )
    }

    /// Statements reading a value into `target` (an lvalue of type `ty`).
    pub fn read(
        &mut self,
        rule: &WireRule,
        idl: &Type,
        ty: &RustType,
        target: &str,
        named: Named<'_>,
    ) -> Result<String, CodegenError> {
        let try_ = |op: String| format!("IDLC_TRY(({}));\n", named(&op));
        Ok(match rule {
            WireRule::Vlq {
                group_bits,
                mapping,
                max_groups,
                min,
                max,
            } => try_(format!(
                "idlc::read_vlq_int(r, {}, {}, {}, {group_bits}, {max_groups}, {target})",
                vlq_mode(*mapping),
                int128(*min)?,
                int128(*max)?
            )),
            WireRule::Ranged { min, max, bits } => try_(format!(
                "idlc::read_ranged(r, {}, {}, {bits}, {target})",
                int128(*min)?,
                int128(*max)?
            )),
            WireRule::Fixed { bits, signed } => {
                let (min, max) = idl
                    .int_range()
                    .ok_or_else(|| unsupported("a fixed-width non-integer"))?;
                try_(format!(
                    "idlc::read_fixed(r, {}, {}, {bits}, {signed}, {target})",
                    int128(min)?,
                    int128(max)?
                ))
            }
            WireRule::EnumIndex { count, bits } => {
                let index = self.local("index");
                format!(
                    "std::uint64_t {index} = 0;\n{}(void)from_index({index}, {target});\n",
                    try_(format!("idlc::read_enum(r, {count}, {bits}, {index})"))
                )
            }
            WireRule::Bool { bits } => try_(format!("idlc::read_wide_bool(r, {bits}, {target})")),
            WireRule::FixedPoint { .. } => {
                let value = self.local("value");
                format!(
                    "double {value} = 0.0;\n{}{target} = static_cast<{}>({value});\n",
                    try_(format!(
                        "idlc::read_dequantized(r, {}, {value})",
                        quantizer(rule)?
                    )),
                    cpp_type(ty)?
                )
            }
            WireRule::Float64 => self.read_f64(idl, ty, target, &try_)?,
            WireRule::Float32 => self.read_f32(idl, ty, target, &try_)?,
            WireRule::Quaternion => try_(format!("idlc::read_quaternion_f32(r, {target})")),
            WireRule::SmallestThree { bits } => {
                try_(format!("idlc::SmallestThree{{{bits}}}.read(r, {target})"))
            }
            WireRule::Sequence {
                count,
                max,
                element,
                ..
            } => self.read_sequence(count, *max, element, idl, ty, target, named)?,
            WireRule::Array { element, len } => {
                let (
                    Type::Array {
                        element: idl_element,
                        ..
                    },
                    RustType::Array(element_ty, _),
                ) = (idl, ty)
                else {
                    return Err(unsupported("this ARRAY"));
                };
                let encoding = &self.ir.encodings[self.encoding];
                let min_bits = crate::ir::cost::min_bits(self.ir, encoding, element);
                let i = self.local("i");
                let indexed = |op: &str| named(&format!("{op}.at_index({i})"));
                let item = format!("{target}[{i}]");
                let inner = self.read(element, idl_element, element_ty, &item, &indexed)?;
                format!(
                    "{}for (std::size_t {i} = 0; {i} < {len}u; ++{i}) {{\n{inner}}}\n",
                    try_(format!("idlc::check_array(r, {len}u, {min_bits}u)"))
                )
            }
            WireRule::Huffman { codes } => {
                let index = self.local("index");
                format!(
                    "std::uint64_t {index} = 0;\n{{\nstatic const idlc::HuffmanCode codes[] = {};\n{}}}\n\
                     (void)from_index({index}, {target});\n",
                    huffman_table(codes),
                    try_(format!("idlc::read_huffman(r, codes, {index})"))
                )
            }
            WireRule::Bytes { length, utf8, max } => {
                self.read_bytes(length, *utf8, *max, ty, target, named)?
            }
            WireRule::Optional(inner) => {
                let (inner_idl, inner_ty) = optional_parts(idl, ty)?;
                let present = self.local("present");
                let boxed = matches!(ty, RustType::Option(b) if matches!(**b, RustType::Boxed(_)));
                let (make, held) = if boxed {
                    let held = self.local("held");
                    (
                        format!(
                            "auto {held} = std::make_unique<{}>();\n",
                            cpp_type(inner_ty)?
                        ),
                        held,
                    )
                } else {
                    let held = self.local("held");
                    (format!("{} {held}{{}};\n", cpp_type(inner_ty)?), held)
                };
                let place = if boxed {
                    format!("(*{held})")
                } else {
                    held.clone()
                };
                let read = self.read(inner, inner_idl, inner_ty, &place, named)?;
                format!(
                    "bool {present} = false;\n{}if ({present}) {{\n{make}{read}\
                     {target} = std::move({held});\n}} else {{\n{target}.reset();\n}}\n",
                    try_(format!("idlc::read_presence(r, {present})")),
                )
            }
            WireRule::Struct(name) => {
                let cpp = self.struct_name(name)?;
                try_(format!(
                    "Codec<{cpp}, {}>::decode_nested({target}, r)",
                    self.tag
                ))
            }
        })
    }

    fn read_f64(
        &mut self,
        idl: &Type,
        ty: &RustType,
        target: &str,
        try_: &dyn Fn(String) -> String,
    ) -> Result<String, CodegenError> {
        Ok(match (idl, ty) {
            (Type::Numeric { .. }, RustType::F64) => try_(format!(
                "idlc::read_f64_in_range(r, {}, {target})",
                numeric_range(idl)?
            )),
            (Type::Numeric { .. }, RustType::F32) => {
                // A FLOAT64 held as a float (W0402): the nearest float inside the range.
                let range = numeric_range(idl)?;
                let value = self.local("value");
                format!(
                    "double {value} = 0.0;\n{}{target} = idlc::nearest_f32_inside({value}, {range});\n",
                    try_(format!("idlc::read_f64_in_range(r, {range}, {value})"))
                )
            }
            (_, RustType::F64) => try_(format!("idlc::read_f64(r, {target})")),
            (_, RustType::F32) => {
                let wide = self.local("wide");
                format!(
                    "double {wide} = 0.0;\n{}{target} = static_cast<float>({wide});\n",
                    try_(format!("idlc::read_f64(r, {wide})"))
                )
            }
            _ => return Err(unsupported("this FLOAT64 field")),
        })
    }

    fn read_f32(
        &mut self,
        idl: &Type,
        ty: &RustType,
        target: &str,
        try_: &dyn Fn(String) -> String,
    ) -> Result<String, CodegenError> {
        Ok(match (idl, ty) {
            (Type::Numeric { .. }, RustType::F32) => try_(format!(
                "idlc::read_f32_in_range(r, {}, {target})",
                numeric_range(idl)?
            )),
            (Type::Numeric { .. }, RustType::F64) => try_(format!(
                "idlc::read_f32_real_in_range(r, {}, {target})",
                numeric_range(idl)?
            )),
            (_, RustType::F32) => try_(format!("idlc::read_f32(r, {target})")),
            (_, RustType::F64) => {
                let single = self.local("single");
                format!(
                    "float {single} = 0.0f;\n{}{target} = static_cast<double>({single});\n",
                    try_(format!("idlc::read_f32(r, {single})"))
                )
            }
            _ => return Err(unsupported("this FLOAT32 field")),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn read_sequence(
        &mut self,
        count: &WireRule,
        max: Option<u64>,
        element: &WireRule,
        idl: &Type,
        ty: &RustType,
        target: &str,
        named: Named<'_>,
    ) -> Result<String, CodegenError> {
        let try_ = |op: String| format!("IDLC_TRY(({}));\n", named(&op));
        let (idl_element, element_ty) = sequence_parts(idl, ty)?;
        let encoding = &self.ir.encodings[self.encoding];
        let min_bits = crate::ir::cost::min_bits(self.ir, encoding, element);
        let n = self.local("count");
        let wire = self.local("length");
        let counted = format!(
            "{}{}",
            self.read_length_of(count, max, &wire, named)?,
            try_(format!(
                "idlc::fitting_elements(r, {wire}, {}, {min_bits}u, {n})",
                bound(max)
            ))
        );
        let (i, item) = (self.local("i"), self.local("item"));
        let indexed = |op: &str| named(&format!("{op}.at_index({i})"));
        let inner = self.read(element, idl_element, element_ty, &item, &indexed)?;
        let (start, add) = match ty {
            RustType::Collection { path, .. } => (
                format!(
                    "{target} = {path}{{}};\n\
                     {target}.idl_deserialize_collection_reserve_size({n});\n"
                ),
                format!("{target}.idl_deserialize_collection_add_item({item});\n"),
            ),
            _ => (
                format!("{target}.clear();\n{target}.reserve({n});\n"),
                format!("{target}.push_back(std::move({item}));\n"),
            ),
        };
        Ok(format!(
            "std::size_t {n} = 0;\n{counted}{start}for (std::size_t {i} = 0; {i} < {n}; ++{i}) {{\n\
             {} {item}{{}};\n{inner}{add}}}\n",
            cpp_type(element_ty)?
        ))
    }

    fn read_bytes(
        &mut self,
        length: &WireRule,
        utf8: bool,
        max: Option<u64>,
        ty: &RustType,
        target: &str,
        named: Named<'_>,
    ) -> Result<String, CodegenError> {
        let try_ = |op: String| format!("IDLC_TRY(({}));\n", named(&op));
        let (data, size) = (self.local("data"), self.local("size"));
        let read = if is_default_length(length, max) {
            try_(format!(
                "idlc::read_bytes(r, {}, {data}, {size})",
                bound(max)
            ))
        } else {
            let wire = self.local("length");
            format!(
                "{}{}{size} = static_cast<std::size_t>({wire});\n",
                self.read_length_of(length, max, &wire, named)?,
                try_(format!("idlc::read_aligned_bytes(r, {wire}, {data})"))
            )
        };
        let assign = match (utf8, ty) {
            (true, RustType::String) => {
                let text = self.local("text");
                format!(
                    "std::string_view {text};\n{}{target}.assign({text}.data(), {text}.size());\n",
                    try_(format!("idlc::utf8(r, {data}, {size}, {text})"))
                )
            }
            (false, RustType::Bytes) => format!("{target}.assign({data}, {data} + {size});\n"),
            _ => return Err(unsupported("this STRING or BYTES field")),
        };
        Ok(format!(
            "const std::uint8_t* {data} = nullptr;\nstd::size_t {size} = 0;\n{read}{assign}"
        ))
    }

    /// Statements reading a length or count into a new `std::uint64_t` local `wire`.
    pub fn read_length_of(
        &mut self,
        length: &WireRule,
        max: Option<u64>,
        wire: &str,
        named: Named<'_>,
    ) -> Result<String, CodegenError> {
        let try_ = |op: String| format!("IDLC_TRY(({}));\n", named(&op));
        let read = if is_default_length(length, max) {
            try_(format!("idlc::read_length(r, {}, {wire})", bound(max)))
        } else if let (WireRule::Ranged { min: 0, bits, .. }, Some(max)) = (length, max) {
            try_(format!(
                "idlc::read_bounded_length(r, {max}u, {bits}, {wire})"
            ))
        } else {
            self.read(
                length,
                &length_type(max),
                &RustType::Int("u64".into()),
                wire,
                named,
            )?
        };
        Ok(format!("std::uint64_t {wire} = 0;\n{read}"))
    }

    fn struct_name(&self, name: &str) -> Result<String, CodegenError> {
        self.ir
            .mapping
            .structs
            .get(name)
            .map(|m| m.rust_name.clone())
            .ok_or_else(|| CodegenError(format!("internal: no mapping of struct {name}")))
    }
}

/// The name of a FIXED_POINT rule's quantizer, an `inline const` of the header
/// ([`quantizers`]): the Rust backend's name of the same quantizer.
pub(super) fn quantizer(rule: &WireRule) -> Result<String, CodegenError> {
    match rule {
        WireRule::FixedPoint {
            min,
            max,
            min_inclusive,
            max_inclusive,
            resolution,
            ..
        } => Ok(crate::codegen::quantizer_name(
            *min,
            *max,
            *resolution,
            *min_inclusive,
            *max_inclusive,
        )),
        _ => Err(CodegenError("internal: not a FIXED_POINT".into())),
    }
}

/// The definition of every quantizer `rule` uses (inside sequences, arrays and OPTIONALs
/// too), by name.
pub(super) fn quantizers(rule: &WireRule, out: &mut std::collections::BTreeMap<String, String>) {
    match rule {
        WireRule::FixedPoint {
            min,
            max,
            min_inclusive,
            max_inclusive,
            resolution,
            ..
        } => {
            if let Ok(name) = quantizer(rule) {
                out.entry(name).or_insert_with(|| {
                    format!(
                        "idlc::FixedPoint::make_with_ends({}, {}, {}, {min_inclusive}, {max_inclusive})",
                        double(*min),
                        double(*max),
                        double(*resolution)
                    )
                });
            }
        }
        WireRule::Sequence { count, element, .. } => {
            quantizers(count, out);
            quantizers(element, out);
        }
        WireRule::Array { element, .. } => quantizers(element, out),
        WireRule::Optional(inner) => quantizers(inner, out),
        WireRule::Bytes { length, .. } => quantizers(length, out),
        _ => {}
    }
}

fn vlq_mode(mapping: VlqMapping) -> &'static str {
    match mapping {
        VlqMapping::Plain => "idlc::VlqMode::Plain",
        VlqMapping::ZigZag => "idlc::VlqMode::ZigZag",
        VlqMapping::Offset => "idlc::VlqMode::Offset",
    }
}

/// The `idlc::Bound` of a default length rule: a SEQUENCE's, a STRING's or a BYTES's bound.
fn bound(max: Option<u64>) -> String {
    match max {
        None => "idlc::Bound{}".into(),
        Some(max) => format!("idlc::Bound{{{max}u}}"),
    }
}

/// A real of `NUMERIC[min,max]` as the `double` its rule takes (Rust's codegen `real_input`): a
/// `float` whose range has an end that is no `float` goes through `idlc::real_of_f32` (the
/// float nearest to an end stands for the end).
pub(super) fn real_input(min: f64, max: f64, ty: &RustType, val: &str) -> String {
    match ty {
        RustType::F32 if !crate::ir::ends_are_f32(min, max) => {
            format!("idlc::real_of_f32({val}, {}, {})", double(min), double(max))
        }
        RustType::F32 => format!("static_cast<double>({val})"),
        _ => val.to_string(),
    }
}

/// A HUFFMAN rule's codes as a C++ array initializer: `{{3u, 4u}, ...}`.
fn huffman_table(codes: &[(u64, u32)]) -> String {
    let entries: Vec<String> = codes
        .iter()
        .map(|(code, len)| format!("{{{code}u, {len}u}}"))
        .collect();
    format!("{{{}}}", entries.join(", "))
}

/// `min, max, min_inclusive, max_inclusive` of a NUMERIC, as the runtime's range checks take them.
fn numeric_range(idl: &Type) -> Result<String, CodegenError> {
    match idl {
        Type::Numeric {
            min,
            max,
            min_inclusive,
            max_inclusive,
        } => Ok(format!(
            "{}, {}, {min_inclusive}, {max_inclusive}",
            double(*min),
            double(*max)
        )),
        _ => Err(unsupported("a range check of a non-NUMERIC")),
    }
}

/// The IDL and C++ types an OPTIONAL holds (the struct itself when it is boxed).
fn optional_parts<'t>(
    idl: &'t Type,
    ty: &'t RustType,
) -> Result<(&'t Type, &'t RustType), CodegenError> {
    match (idl, ty) {
        (Type::Optional(inner_idl), RustType::Option(inner)) => match &**inner {
            RustType::Boxed(held) => Ok((inner_idl, held)),
            _ => Ok((inner_idl, inner)),
        },
        _ => Err(unsupported("this OPTIONAL")),
    }
}

/// The IDL and C++ element types of a SEQUENCE field.
fn sequence_parts<'t>(
    idl: &'t Type,
    ty: &'t RustType,
) -> Result<(&'t Type, &'t RustType), CodegenError> {
    match (idl, ty) {
        (
            Type::Sequence { element, .. },
            RustType::Vec(element_ty)
            | RustType::Collection {
                element: element_ty,
                ..
            },
        ) => Ok((element, element_ty)),
        _ => Err(unsupported("this SEQUENCE")),
    }
}
