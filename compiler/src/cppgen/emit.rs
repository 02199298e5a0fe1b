//! The text of the C++ header: enums, structs, codecs and the struct members that call them.

use std::fmt::Write as _;

use super::{one_segment, streams};
use crate::codegen::CodegenError;
use crate::ir::plan::{FieldStep, Step, StructPlan};
use crate::ir::{EnumDef, Ir, RustType, Style, Type, VlqMapping, WireRule};

fn unsupported(what: &str) -> CodegenError {
    CodegenError(format!("C++: {what} is not generated yet"))
}

/// The C++ spelling of a field type.
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
        RustType::Option(inner) => format!("std::optional<{}>", cpp_type(inner)?),
        RustType::Boxed(inner) => format!("std::unique_ptr<{}>", cpp_type(inner)?),
        RustType::Named(name) => name.clone(),
    })
}

/// An integer bound as an `idlc::Int128`.
fn int128(v: i128) -> Result<String, CodegenError> {
    if let Ok(u) = u64::try_from(v) {
        Ok(format!("idlc::Int128(std::uint64_t{{{u}u}})"))
    } else if v == i128::from(i64::MIN) {
        Ok("idlc::Int128(std::int64_t{-9223372036854775807 - 1})".into())
    } else if let Ok(i) = i64::try_from(v) {
        Ok(format!("idlc::Int128(std::int64_t{{{i}}})"))
    } else {
        Err(unsupported("a range beyond 64 bits"))
    }
}

/// A double literal that reads back as the same double.
fn double(v: f64) -> String {
    let text = format!("{v:?}");
    if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    }
}

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
         inline bool from_index(std::uint64_t index, {cpp}& out) {{\n    switch (index) {{"
    )
    .unwrap();
    for (index, e) in def.enumerators.iter().enumerate() {
        writeln!(
            out,
            "    case {index}: out = {cpp}::{}; return true;",
            variant(&e.name)
        )
        .unwrap();
    }
    writeln!(out, "    default: return false;\n    }}\n}}\n").unwrap();
    Ok(())
}

pub(super) fn struct_def(out: &mut String, ir: &Ir, name: &str) -> Result<(), CodegenError> {
    let mapping = ir
        .mapping
        .structs
        .get(name)
        .ok_or_else(|| CodegenError(format!("internal: no mapping of struct {name}")))?;
    if mapping.existing {
        return Err(unsupported(&format!(
            "`{name}` mapped to an existing C++ type"
        )));
    }
    let cpp = &mapping.rust_name;
    writeln!(out, "/// The struct `{name}`.\nstruct {cpp} {{").unwrap();
    for field in mapping.fields.values() {
        let ty = cpp_type(&field.ty)?;
        let init = match &field.ty {
            RustType::Named(enum_name) => ir
                .mapping
                .enums
                .values()
                .find(|e| &e.rust_name == enum_name)
                .and_then(|e| e.variants.values().next())
                .map_or("{}".to_string(), |first| format!(" = {enum_name}::{first}")),
            _ => "{}".into(),
        };
        writeln!(out, "    {ty} {}{init};", field.rust_name).unwrap();
    }
    let (writer, reader) = streams(
        ir.encodings
            .values()
            .next()
            .map_or(Style::Bitstream, |e| e.style),
    );
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
         \x20   idlc::Status decode({reader}& r);\n}};\n"
    )
    .unwrap();
    Ok(())
}

pub(super) fn members(
    out: &mut String,
    ir: &Ir,
    name: &str,
    style: Style,
) -> Result<(), CodegenError> {
    let cpp = &ir.mapping.structs[name].rust_name;
    let (writer, reader) = streams(style);
    writeln!(
        out,
        "inline idlc::Status {cpp}::to_bytes(std::vector<std::uint8_t>& out) const {{\n\
         \x20   return to_bytes_with<DefaultEncoding>(out);\n}}\n\n\
         template <class E>\n\
         inline idlc::Status {cpp}::to_bytes_with(std::vector<std::uint8_t>& out) const {{\n\
         \x20   typename Codec<{cpp}, E>::Writer w;\n\
         \x20   IDLC_TRY((Codec<{cpp}, E>::encode(*this, w)));\n\
         \x20   out = w.finish();\n\
         \x20   return idlc::Status{{}};\n}}\n\n\
         inline idlc::Status {cpp}::from_bytes(const std::uint8_t* data, std::size_t size) {{\n\
         \x20   return from_bytes_with<DefaultEncoding>(data, size);\n}}\n\n\
         template <class E>\n\
         inline idlc::Status {cpp}::from_bytes_with(const std::uint8_t* data, std::size_t size) {{\n\
         \x20   typename Codec<{cpp}, E>::Reader r(data, size);\n\
         \x20   {cpp} value;\n\
         \x20   IDLC_TRY((Codec<{cpp}, E>::decode(value, r)));\n\
         \x20   IDLC_TRY(r.finish());\n\
         \x20   *this = std::move(value);\n\
         \x20   return idlc::Status{{}};\n}}\n\n\
         inline idlc::Status {cpp}::encode({writer}& w) const {{\n\
         \x20   return Codec<{cpp}, DefaultEncoding>::encode(*this, w);\n}}\n\n\
         inline idlc::Status {cpp}::decode({reader}& r) {{\n\
         \x20   return Codec<{cpp}, DefaultEncoding>::decode(*this, r);\n}}\n"
    )
    .unwrap();
    Ok(())
}

/// One codec being written: its encoding and a counter for local names.
struct Body<'a> {
    ir: &'a Ir,
    encoding: &'a str,
    next: usize,
}

impl Body<'_> {
    fn local(&mut self, stem: &str) -> String {
        self.next += 1;
        format!("{stem}_{}", self.next)
    }

    /// Statements writing `val` (a C++ expression of type `ty`, IDL type `idl`) with `rule`;
    /// `named` wraps a Status expression with the error's field path.
    fn write(
        &mut self,
        rule: &WireRule,
        idl: &Type,
        ty: &RustType,
        val: &str,
        named: &dyn Fn(&str) -> String,
    ) -> Result<String, CodegenError> {
        let try_ = |op: String| format!("IDLC_TRY(({}));\n", named(&op));
        Ok(match rule {
            WireRule::Vlq {
                group_bits,
                mapping,
                min,
                max,
                ..
            } => try_(format!(
                "idlc::write_vlq_int(w, {val}, {}, {}, {}, {group_bits})",
                vlq_mode(*mapping),
                int128(*min)?,
                int128(*max)?
            )),
            WireRule::Ranged { min, max, bits } => try_(format!(
                "idlc::write_ranged(w, {val}, {}, {}, {bits})",
                int128(*min)?,
                int128(*max)?
            )),
            WireRule::Fixed { bits, signed } => {
                let (min, max) = idl
                    .int_range()
                    .ok_or_else(|| unsupported("a fixed-width non-integer"))?;
                try_(format!(
                    "idlc::write_fixed(w, {val}, {}, {}, {bits}, {signed})",
                    int128(min)?,
                    int128(max)?
                ))
            }
            WireRule::EnumIndex { count, bits } => try_(format!(
                "idlc::write_enum(w, index_of({val}), {count}, {bits})"
            )),
            WireRule::Bool { bits } => try_(format!("idlc::write_wide_bool(w, {val}, {bits})")),
            WireRule::FixedPoint { .. } => {
                let fp = self.quantizer(rule)?;
                format!(
                    "{{\n{fp}{}}}\n",
                    try_(format!(
                        "idlc::write_quantized(w, fp, {})",
                        fixed_point_input(rule, ty, val)
                    ))
                )
            }
            WireRule::Float64 => match (idl, ty) {
                (Type::Numeric { min, max, .. }, RustType::F64 | RustType::F32) => {
                    let range = numeric_range(idl)?;
                    let value = self.local("value");
                    let check = try_(format!("idlc::check_numeric(w, {value}, {range})"));
                    format!(
                        "{{\nconst double {value} = {};\n{check}{}}}\n",
                        real_input(*min, *max, ty, val),
                        try_(format!("idlc::write_f64(w, {value})"))
                    )
                }
                (_, RustType::F64) => try_(format!("idlc::write_f64(w, {val})")),
                (_, RustType::F32) => {
                    try_(format!("idlc::write_f64(w, static_cast<double>({val}))"))
                }
                _ => return Err(unsupported("this FLOAT64 field")),
            },
            WireRule::Float32 => match (idl, ty) {
                (Type::Numeric { .. }, RustType::F32) => {
                    let range = numeric_range(idl)?;
                    format!(
                        "{}{}",
                        try_(format!("idlc::check_f32_in_range(w, {val}, {range})")),
                        try_(format!("idlc::write_f32(w, {val})"))
                    )
                }
                (Type::Numeric { min, max, .. }, RustType::F64) => {
                    let range = numeric_range(idl)?;
                    let single = self.local("single");
                    format!(
                        "float {single} = 0.0f;\n{}{}",
                        try_(format!(
                            "idlc::check_numeric_f32(w, {}, {range}, {single})",
                            real_input(*min, *max, ty, val)
                        )),
                        try_(format!("idlc::write_f32(w, {single})"))
                    )
                }
                (_, RustType::F32) => try_(format!("idlc::write_f32(w, {val})")),
                (_, RustType::F64) => {
                    try_(format!("idlc::write_f32(w, static_cast<float>({val}))"))
                }
                _ => return Err(unsupported("this FLOAT32 field")),
            },
            WireRule::Sequence {
                count,
                max,
                element,
                ..
            } => {
                let bound = bound(count, *max)?;
                let (idl_element, element_ty) = sequence_parts(idl, ty)?;
                let (size, item) = match ty {
                    RustType::Collection { .. } => (
                        format!("{val}.idl_serialize_collection_get_size()"),
                        format!("{val}.idl_serialize_collection_get_item(i)"),
                    ),
                    _ => (format!("{val}.size()"), format!("{val}[i]")),
                };
                let count_write = try_(format!(
                    "idlc::write_count(w, static_cast<std::uint64_t>({size}), {bound})"
                ));
                let indexed = |op: &str| named(&format!("{op}.at_index(i)"));
                let inner = self.write(element, idl_element, element_ty, "item", &indexed)?;
                format!(
                    "{count_write}for (std::size_t i = 0; i < {size}; ++i) {{\n\
                     const auto& item = {item};\n{inner}}}\n"
                )
            }
            WireRule::Huffman { codes } => {
                let table = huffman_table(codes);
                format!(
                    "{{\nstatic const idlc::HuffmanCode codes[] = {table};\n{}}}\n",
                    try_(format!("idlc::write_huffman(w, index_of({val}), codes)"))
                )
            }
            WireRule::Bytes { length, utf8, max } => {
                let bound = bound(length, *max)?;
                match (utf8, ty) {
                    (true, RustType::String) => try_(format!("idlc::write_str(w, {val}, {bound})")),
                    (false, RustType::Bytes) => try_(format!(
                        "idlc::write_bytes(w, {val}.data(), {val}.size(), {bound})"
                    )),
                    _ => return Err(unsupported("this STRING or BYTES field")),
                }
            }
            WireRule::Optional(inner) => {
                let (inner_idl, inner_ty) = optional_parts(idl, ty)?;
                let held = self.write(inner, inner_idl, inner_ty, &format!("(*{val})"), named)?;
                format!(
                    "if ({val}.has_value()) {{\n{}{held}}} else {{\n{}}}\n",
                    try_("idlc::write_presence(w, true)".into()),
                    try_("idlc::write_presence(w, false)".into())
                )
            }
            WireRule::Struct(name) => {
                let cpp = self.struct_name(name)?;
                try_(format!(
                    "Codec<{cpp}, {}>::encode_nested({val}, w)",
                    self.encoding
                ))
            }
            other => return Err(unsupported(&format!("the rule {other:?}"))),
        })
    }

    /// Statements reading a value into `target` (an lvalue of type `ty`).
    fn read(
        &mut self,
        rule: &WireRule,
        idl: &Type,
        ty: &RustType,
        target: &str,
        named: &dyn Fn(&str) -> String,
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
                let fp = self.quantizer(rule)?;
                let cast = cpp_type(ty)?;
                format!(
                    "{{\n{fp}double value = 0.0;\n{}{target} = static_cast<{cast}>(value);\n}}\n",
                    try_("idlc::read_dequantized(r, fp, value)".into())
                )
            }
            WireRule::Float64 => match (idl, ty) {
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
            },
            WireRule::Float32 => match (idl, ty) {
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
            },
            WireRule::Sequence {
                count,
                max,
                element,
                ..
            } => {
                let bound = bound(count, *max)?;
                let (idl_element, element_ty) = sequence_parts(idl, ty)?;
                let encoding = &self.ir.encodings[self.encoding];
                let min_bits = crate::ir::cost::min_bits(self.ir, encoding, element);
                let n = self.local("count");
                let element_cpp = cpp_type(element_ty)?;
                let indexed = |op: &str| named(&format!("{op}.at_index(i)"));
                let inner = self.read(element, idl_element, element_ty, "item", &indexed)?;
                let (start, add) = match ty {
                    RustType::Collection { path, .. } => (
                        format!(
                            "{target} = {path}{{}};\n\
                             {target}.idl_deserialize_collection_reserve_size({n});\n"
                        ),
                        format!("{target}.idl_deserialize_collection_add_item(item);\n"),
                    ),
                    _ => (
                        format!("{target}.clear();\n{target}.reserve({n});\n"),
                        format!("{target}.push_back(std::move(item));\n"),
                    ),
                };
                format!(
                    "std::size_t {n} = 0;\n{}{start}for (std::size_t i = 0; i < {n}; ++i) {{\n\
                     {element_cpp} item{{}};\n{inner}{add}}}\n",
                    try_(format!("idlc::read_count(r, {bound}, {min_bits}, {n})"))
                )
            }
            WireRule::Huffman { codes } => {
                let (table, index) = (huffman_table(codes), self.local("index"));
                format!(
                    "std::uint64_t {index} = 0;\n{{\nstatic const idlc::HuffmanCode codes[] = {table};\n{}}}\n\
                     (void)from_index({index}, {target});\n",
                    try_(format!("idlc::read_huffman(r, codes, {index})"))
                )
            }
            WireRule::Bytes { length, utf8, max } => {
                let bound = bound(length, *max)?;
                match (utf8, ty) {
                    (true, RustType::String) => {
                        let text = self.local("text");
                        format!(
                            "std::string_view {text};\n{}{target}.assign({text}.data(), {text}.size());\n",
                            try_(format!("idlc::read_str(r, {bound}, {text})"))
                        )
                    }
                    (false, RustType::Bytes) => {
                        let (data, size) = (self.local("data"), self.local("size"));
                        format!(
                            "const std::uint8_t* {data} = nullptr;\nstd::size_t {size} = 0;\n{}\
                             {target}.assign({data}, {data} + {size});\n",
                            try_(format!("idlc::read_bytes(r, {bound}, {data}, {size})"))
                        )
                    }
                    _ => return Err(unsupported("this STRING or BYTES field")),
                }
            }
            WireRule::Optional(inner) => {
                let (inner_idl, inner_ty) = optional_parts(idl, ty)?;
                let (present, held) = (self.local("present"), self.local("held"));
                let read = self.read(inner, inner_idl, inner_ty, &held, named)?;
                format!(
                    "bool {present} = false;\n{}if ({present}) {{\n{} {held}{{}};\n{read}\
                     {target} = std::move({held});\n}} else {{\n{target}.reset();\n}}\n",
                    try_(format!("idlc::read_presence(r, {present})")),
                    cpp_type(inner_ty)?
                )
            }
            WireRule::Struct(name) => {
                let cpp = self.struct_name(name)?;
                try_(format!(
                    "Codec<{cpp}, {}>::decode_nested({target}, r)",
                    self.encoding
                ))
            }
            other => return Err(unsupported(&format!("the rule {other:?}"))),
        })
    }

    /// `static const idlc::FixedPoint fp = ...;` of a FIXED_POINT rule.
    fn quantizer(&self, rule: &WireRule) -> Result<String, CodegenError> {
        let WireRule::FixedPoint {
            min,
            max,
            min_inclusive,
            max_inclusive,
            resolution,
            ..
        } = rule
        else {
            return Err(CodegenError("internal: not a FIXED_POINT".into()));
        };
        Ok(format!(
            "static const idlc::FixedPoint fp = idlc::FixedPoint::make_with_ends({}, {}, {}, \
             {min_inclusive}, {max_inclusive});\n",
            double(*min),
            double(*max),
            double(*resolution)
        ))
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

fn vlq_mode(mapping: VlqMapping) -> &'static str {
    match mapping {
        VlqMapping::Plain => "idlc::VlqMode::Plain",
        VlqMapping::ZigZag => "idlc::VlqMode::ZigZag",
        VlqMapping::Offset => "idlc::VlqMode::Offset",
    }
}

/// The `idlc::Bound` of a SEQUENCE's count rule: what `write_count` / `read_count` send.
fn bound(count: &WireRule, max: Option<u64>) -> Result<String, CodegenError> {
    match (count, max) {
        (
            WireRule::Vlq {
                group_bits: 7,
                mapping: VlqMapping::Plain,
                ..
            },
            None,
        ) => Ok("idlc::Bound{}".into()),
        (WireRule::Ranged { min: 0, max: m, .. }, Some(max)) if *m == i128::from(max) => {
            Ok(format!("idlc::Bound{{{max}u}}"))
        }
        _ => Err(unsupported("this SEQUENCE count")),
    }
}

/// A real of `NUMERIC[min,max]` as the `double` its rule takes (Rust's codegen `real_input`): a
/// `float` whose range has an end that is no `float` goes through `idlc::real_of_f32` (the
/// float nearest to an end stands for the end).
fn real_input(min: f64, max: f64, ty: &RustType, val: &str) -> String {
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

/// The `double` a FIXED_POINT rule quantizes of `val`.
fn fixed_point_input(rule: &WireRule, ty: &RustType, val: &str) -> String {
    match rule {
        WireRule::FixedPoint { min, max, .. } => real_input(*min, *max, ty, val),
        _ => format!("static_cast<double>({val})"),
    }
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

/// The IDL and C++ types an OPTIONAL holds (a boxed one is not generated yet).
fn optional_parts<'t>(
    idl: &'t Type,
    ty: &'t RustType,
) -> Result<(&'t Type, &'t RustType), CodegenError> {
    match (idl, ty) {
        (Type::Optional(_), RustType::Option(inner)) if matches!(**inner, RustType::Boxed(_)) => {
            Err(unsupported("a boxed OPTIONAL"))
        }
        (Type::Optional(inner_idl), RustType::Option(inner)) => Ok((inner_idl, inner)),
        _ => Err(unsupported("this OPTIONAL")),
    }
}

/// The IDL and C++ element types of a SEQUENCE field.
fn sequence_parts<'t>(
    idl: &'t Type,
    ty: &'t RustType,
) -> Result<(&'t Type, &'t RustType), CodegenError> {
    match (idl, element_of(ty)) {
        (Type::Sequence { element, .. }, Some(element_ty)) => Ok((element, element_ty)),
        _ => Err(unsupported("this SEQUENCE")),
    }
}

fn element_of(ty: &RustType) -> Option<&RustType> {
    match ty {
        RustType::Vec(inner) | RustType::Collection { element: inner, .. } => Some(inner),
        _ => None,
    }
}

pub(super) fn codec(
    out: &mut String,
    ir: &Ir,
    encoding: &str,
    style: Style,
    plan: &StructPlan,
) -> Result<(), CodegenError> {
    one_segment(plan)?;
    let mapping = &ir.mapping.structs[&plan.name];
    let cpp = &mapping.rust_name;
    let (writer, reader) = streams(style);
    let mut body = Body {
        ir,
        encoding,
        next: 0,
    };
    let mut encode = String::new();
    let mut decode = String::new();
    let steps = plan.segments.first().map_or(&[][..], Vec::as_slice);
    let mut fields: Vec<&FieldStep> = Vec::new();
    for step in steps {
        match step {
            Step::Field(field) => fields.push(field),
            // The run's bits are its fields' bits, one after the other.
            Step::Packed { fields: run, .. } => fields.extend(run),
            Step::Align => {
                flush(
                    &mut body,
                    plan,
                    mapping,
                    &mut fields,
                    &mut encode,
                    &mut decode,
                )?;
                encode.push_str("IDLC_TRY(w.align());\n");
                decode.push_str("IDLC_TRY(r.align());\n");
            }
            other => return Err(unsupported(&format!("the step {other:?}"))),
        }
    }
    flush(
        &mut body,
        plan,
        mapping,
        &mut fields,
        &mut encode,
        &mut decode,
    )?;
    if plan.open_end {
        encode.push_str("IDLC_TRY(idlc::write_presence(w, false));\n");
    }
    let skip = if plan.open_end {
        "    bool present = false;\n    IDLC_TRY(r.read_extension(present, [](Reader&) { return idlc::Status{}; }));\n"
    } else {
        ""
    };
    writeln!(
        out,
        "/// `{cpp}` in the encoding `{encoding}`.\n\
         template <>\nstruct Codec<{cpp}, {encoding}> {{\n\
         \x20   using Writer = {writer};\n    using Reader = {reader};\n\n\
         \x20   /// Writes `v` (the top-level form).\n\
         \x20   static idlc::Status encode(const {cpp}& v, Writer& w) {{\n\
         \x20       (void)v;\n        (void)w;\n{encode}\
         \x20       return idlc::Status{{}};\n    }}\n\n\
         \x20   /// Reads into `v` (the top-level form).\n\
         \x20   static idlc::Status decode({cpp}& v, Reader& r) {{\n\
         \x20       (void)v;\n        (void)r;\n{decode}\
         \x20       return idlc::Status{{}};\n    }}\n\n\
         \x20   /// Writes `v` inside another value.\n\
         \x20   static idlc::Status encode_nested(const {cpp}& v, Writer& w) {{ return encode(v, w); }}\n\n\
         \x20   /// Reads into `v` inside another value (what a newer writer appended is skipped).\n\
         \x20   static idlc::Status decode_nested({cpp}& v, Reader& r) {{\n\
         \x20       IDLC_TRY(decode(v, r));\n{skip}\
         \x20       return idlc::Status{{}};\n    }}\n}};\n"
    )
    .unwrap();
    Ok(())
}

/// The writes and reads of the fields collected so far.
fn flush(
    body: &mut Body<'_>,
    plan: &StructPlan,
    mapping: &crate::ir::StructMapping,
    fields: &mut Vec<&FieldStep>,
    encode: &mut String,
    decode: &mut String,
) -> Result<(), CodegenError> {
    for step in fields.drain(..) {
        if step.narrowing.is_some() {
            return Err(unsupported("a narrowed field"));
        }
        let field = plan
            .fields
            .iter()
            .find(|f| f.name == step.field)
            .ok_or_else(|| CodegenError(format!("internal: no field {}", step.field)))?;
        if !field.extends.is_empty() {
            return Err(unsupported("an EXTENDed field"));
        }
        let rust = mapping
            .fields
            .get(&step.field)
            .ok_or_else(|| CodegenError(format!("internal: no mapping of {}", step.field)))?;
        let site = format!("{}.{}", plan.name, step.field);
        let named = |op: &str| format!("{op}.in_field(\"{site}\")");
        let value = format!("v.{}", rust.rust_name);
        encode.push_str(&body.write(&step.rule, &field.ty, &rust.ty, &value, &named)?);
        decode.push_str(&body.read(&step.rule, &field.ty, &rust.ty, &value, &named)?);
    }
    Ok(())
}
