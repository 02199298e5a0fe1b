//! `Codec<T, E>`: the encoder and decoder of one struct in one encoding, segment by segment (a
//! present bit before every segment after a FENCE at the top level, an extension in the nested
//! form), with the old slots and extensions of EXTENDed fields; and the struct's members that
//! call it.

use std::fmt::Write as _;

use super::literals::{double, int_literal};
use super::rules::{Body, Val};
use super::types::{cpp_type, default_value};
use super::unsupported;
use crate::codegen::CodegenError;
use crate::ir::plan::{Carries, ExtensionStep, FieldPlan, FieldStep, Narrowing, Step, StructPlan};
use crate::ir::{Ir, RustType, StructMapping};

/// One segment's code.
#[derive(Default)]
pub(super) struct Segment {
    /// Its writes.
    pub writes: String,
    /// Its reads.
    pub reads: String,
    /// What the reader does when the segment was not sent: the full form assigns its fields'
    /// defaults, the delta form keeps the baseline's values.
    pub otherwise: String,
}

/// The declaration of `Codec<T, E>` for one struct.
pub(super) fn declaration(out: &mut String, cpp: &str, encoding: &str, streams: (&str, &str)) {
    let (writer, reader) = streams;
    writeln!(
        out,
        "/// `{cpp}` in the encoding `{encoding}`.\n\
         template <>\nstruct Codec<{cpp}, {encoding}> {{\n\
         \x20   using Writer = {writer};\n    using Reader = {reader};\n\n\
         \x20   /// Writes `v` (the top-level form).\n\
         \x20   static idlc::Status encode(const {cpp}& v, Writer& w);\n\
         \x20   /// Reads into `v` (the top-level form).\n\
         \x20   static idlc::Status decode({cpp}& v, Reader& r);\n\
         \x20   /// Writes `v` inside another value.\n\
         \x20   static idlc::Status encode_nested(const {cpp}& v, Writer& w);\n\
         \x20   /// Reads into `v` inside another value (what a newer writer appended is skipped).\n\
         \x20   static idlc::Status decode_nested({cpp}& v, Reader& r);\n\
         \x20   /// Whether `a` and `b` are the same once sent (a raw float by the bits it is sent as).\n\
         \x20   static bool same_sent(const {cpp}& a, const {cpp}& b);\n}};\n"
    )
    .unwrap();
}

/// The definitions of `Codec<T, E>`'s four functions for one struct.
pub(super) fn definitions(
    out: &mut String,
    ir: &Ir,
    tag: &str,
    encoding: &str,
    plan: &StructPlan,
) -> Result<(), CodegenError> {
    let mapping = &ir.mapping.structs[&plan.name];
    let cpp = &mapping.rust_name;
    let mut body = Body::new(ir, encoding, tag);
    let segments = plan
        .segments
        .iter()
        .enumerate()
        .map(|(index, steps)| segment(&mut body, plan, mapping, index, steps))
        .collect::<Result<Vec<_>, _>>()?;
    let named = format!("\"{}\"", plan.name);
    let (enter, leave) = enter_leave(plan, &named);
    let encode = top_level_writes(plan.open_end, &segments);
    let decode = format!(
        "{enter}{}{leave}",
        top_level_reads(&mut body, &named, &segments)
    );
    // A parameter the code does not use is left unnamed; code that returns another function's
    // result has no `return` of its own.
    let function = |name: &str, value: &str, (stream, s): (&str, &str), code: &str| {
        let v = if code.contains("v.") || code.contains("(v,") || code.contains("[&v]") {
            " v"
        } else {
            ""
        };
        let s = if code.is_empty() { "" } else { s };
        let end = if code.starts_with("return ") {
            ""
        } else {
            "return idlc::Status{};\n"
        };
        format!(
            "inline idlc::Status Codec<{cpp}, {tag}>::{name}({value}{v}, {stream}{s}) {{\n\
             {code}{end}}}\n\n"
        )
    };
    let const_value = format!("const {cpp}&");
    let value = format!("{cpp}&");
    let (writer, reader) = (("Writer&", " w"), ("Reader&", " r"));
    out.push_str(&function("encode", &const_value, writer, &encode));
    out.push_str(&function("decode", &value, reader, &decode));
    let (encode_nested, decode_nested) = if !plan.nested_form {
        (
            "return encode(v, w);\n".to_string(),
            "return decode(v, r);\n".to_string(),
        )
    } else if segments.len() == 1 {
        (
            "return encode(v, w);\n".to_string(),
            format!("IDLC_TRY(decode(v, r));\n{}", skip_extension(&named)),
        )
    } else {
        let reads = nested_reads(&mut body, plan.open_end, &named, &segments);
        (
            nested_writes(plan.open_end, &segments, "[&v]"),
            format!("{enter}{reads}{leave}"),
        )
    };
    out.push_str(&function(
        "encode_nested",
        &const_value,
        writer,
        &encode_nested,
    ));
    out.push_str(&function("decode_nested", &value, reader, &decode_nested));
    out.push_str(&same_sent(ir, tag, encoding, plan, mapping)?);
    Ok(())
}

/// `Codec<T, E>::same_sent`: every field compared as sent.
fn same_sent(
    ir: &Ir,
    tag: &str,
    encoding: &str,
    plan: &StructPlan,
    mapping: &StructMapping,
) -> Result<String, CodegenError> {
    let encoding_plan = ir
        .plan(encoding)
        .ok_or_else(|| CodegenError(format!("internal: no plan of {encoding}")))?;
    let sent = super::sent::Sent {
        ir,
        plan: encoding_plan,
        tag,
    };
    let cpp = &mapping.rust_name;
    let mut parts = Vec::new();
    for field in &plan.fields {
        let rust = rust_field(mapping, &field.name)?;
        let (a, b) = (
            format!("a.{}", rust.rust_name),
            format!("b.{}", rust.rust_name),
        );
        parts.push(format!(
            "({})",
            sent.same_field(plan, field, &rust.ty, &a, &b)?
        ));
    }
    let (params, body) = if parts.is_empty() {
        (format!("const {cpp}&, const {cpp}&"), "true".to_string())
    } else {
        (
            format!("const {cpp}& a, const {cpp}& b"),
            parts.join("\n    && "),
        )
    };
    Ok(format!(
        "inline bool Codec<{cpp}, {tag}>::same_sent({params}) {{\n    return {body};\n}}\n\n"
    ))
}

/// What a reader does with an extension it does not know: skips it.
fn skip_extension(named: &str) -> String {
    format!("IDLC_TRY((idlc::skip_extension(r).in_field({named})));\n")
}

/// `r.enter()` and `r.leave()` around the decoder of a struct that can contain itself (its
/// nesting counts against the runtime's depth limit), else nothing.
pub(super) fn enter_leave(plan: &StructPlan, named: &str) -> (String, String) {
    if plan.recursive {
        (
            format!("IDLC_TRY((r.enter().in_field({named})));\n"),
            "r.leave();\n".to_string(),
        )
    } else {
        (String::new(), String::new())
    }
}

/// The top-level form's writes: each segment after a FENCE behind a present bit 1, and the open
/// end's present bit 0.
pub(super) fn top_level_writes(open_end: bool, segments: &[Segment]) -> String {
    let mut code = String::new();
    for (index, segment) in segments.iter().enumerate() {
        if index > 0 {
            code.push_str("IDLC_TRY(idlc::write_presence(w, true));\n");
        }
        code.push_str(&segment.writes);
    }
    if open_end {
        code.push_str("IDLC_TRY(idlc::write_presence(w, false));\n");
    }
    code
}

/// The top-level form's reads: a segment after a FENCE is read when its present bit is set (an
/// older writer's message just ends), else its fields take their defaults.
pub(super) fn top_level_reads(body: &mut Body<'_>, named: &str, segments: &[Segment]) -> String {
    let mut code = String::new();
    let mut previous: Option<String> = None;
    for (index, segment) in segments.iter().enumerate() {
        if index == 0 {
            code.push_str(&segment.reads);
            continue;
        }
        let present = body.local("present");
        let read = format!("IDLC_TRY((r.read_fence_present({present}).in_field({named})));\n");
        let read = match &previous {
            None => read,
            Some(previous) => format!("if ({previous}) {{\n{read}}}\n"),
        };
        write!(
            code,
            "bool {present} = false;\n{read}if ({present}) {{\n{}}} else {{\n{}}}\n",
            segment.reads, segment.otherwise
        )
        .unwrap();
        previous = Some(present);
    }
    code
}

/// The nested form's writes: segment 0, then each later segment in an open extension inside
/// the previous one's (a lambda with the captures `capture`), the open end's 0 bit in the last.
pub(super) fn nested_writes(open_end: bool, segments: &[Segment], capture: &str) -> String {
    let mut code = if open_end {
        "IDLC_TRY(idlc::write_presence(w, false));\n".to_string()
    } else {
        String::new()
    };
    for (index, segment) in segments.iter().enumerate().rev() {
        code = if index == 0 {
            format!("{}{code}", segment.writes)
        } else {
            format!(
                "IDLC_TRY(w.write_extension({capture}(Writer& w) -> idlc::Status {{\n{}{code}\
                 return idlc::Status{{}};\n}}));\n",
                segment.writes
            )
        };
    }
    code
}

/// The nested form's reads: each later segment inside the previous one's extension, what is
/// left of an extension skipped when it is left, defaults for segments not sent.
pub(super) fn nested_reads(
    body: &mut Body<'_>,
    open_end: bool,
    named: &str,
    segments: &[Segment],
) -> String {
    let mut code = String::new();
    let mut leaves = Vec::new();
    let mut previous: Option<String> = None;
    for (index, segment) in segments.iter().enumerate() {
        if index == 0 {
            code.push_str(&segment.reads);
            continue;
        }
        let (present, outer) = (body.local("present"), body.local("outer"));
        let enter =
            format!("IDLC_TRY((r.enter_extension({present}, {outer}).in_field({named})));\n");
        let enter = match &previous {
            None => enter,
            Some(previous) => format!("if ({previous}) {{\n{enter}}}\n"),
        };
        write!(
            code,
            "bool {present} = false;\nstd::uint64_t {outer} = 0;\n{enter}\
             if ({present}) {{\n{}}} else {{\n{}}}\n",
            segment.reads, segment.otherwise
        )
        .unwrap();
        leaves.push(format!(
            "if ({present}) {{\nr.leave_extension({outer});\n}}\n"
        ));
        previous = Some(present);
    }
    if open_end {
        if let Some(last) = &previous {
            write!(code, "if ({last}) {{\n{}}}\n", skip_extension(named)).unwrap();
        }
    }
    leaves.reverse();
    code + &leaves.concat()
}

/// The writes, reads and defaults of one segment's steps.
fn segment(
    body: &mut Body<'_>,
    plan: &StructPlan,
    mapping: &StructMapping,
    index: usize,
    steps: &[Step],
) -> Result<Segment, CodegenError> {
    let mut segment = Segment::default();
    for step in steps {
        match step {
            Step::Field(field) => slot(body, plan, mapping, field, &mut segment)?,
            // The run's bits are its fields' bits, one after the other; a reader needs them all
            // before it checks any of its fields.
            Step::Packed { fields, bits } => {
                let first = fields
                    .first()
                    .map_or(plan.name.as_str(), |f| f.field.as_str());
                writeln!(
                    segment.reads,
                    "IDLC_TRY((idlc::check_run(r, {bits}).in_field(\"{}.{first}\")));",
                    plan.name
                )
                .unwrap();
                for field in fields {
                    slot(body, plan, mapping, field, &mut segment)?;
                }
            }
            Step::Extension(extension_step) => {
                extension(body, plan, mapping, extension_step, &mut segment)?
            }
            Step::Align => {
                let named = format!(".in_field(\"{} (ALIGN)\")", plan.name);
                segment
                    .writes
                    .push_str(&format!("IDLC_TRY((w.align(){named}));\n"));
                segment
                    .reads
                    .push_str(&format!("IDLC_TRY((r.align(){named}));\n"));
            }
            Step::Check => {
                let named = format!(".in_field(\"{} (CHECK)\")", plan.name);
                segment
                    .writes
                    .push_str(&format!("IDLC_TRY((idlc::write_check(w){named}));\n"));
                segment
                    .reads
                    .push_str(&format!("IDLC_TRY((idlc::read_check(r){named}));\n"));
            }
        }
    }
    if index > 0 {
        for field in plan.fields.iter().filter(|f| f.segment == index) {
            let rust = rust_field(mapping, &field.name)?;
            let value = default_value(body.ir, &field.ty, &rust.ty, field.default.as_ref())?
                .expr(&rust.ty)?;
            writeln!(segment.otherwise, "v.{} = {value};", rust.rust_name).unwrap();
        }
    }
    Ok(segment)
}

fn rust_field<'m>(
    mapping: &'m StructMapping,
    name: &str,
) -> Result<&'m crate::ir::FieldMapping, CodegenError> {
    mapping
        .fields
        .get(name)
        .ok_or_else(|| CodegenError(format!("internal: no mapping of {name}")))
}

fn field_plan<'p>(plan: &'p StructPlan, name: &str) -> Result<&'p FieldPlan, CodegenError> {
    plan.field(name)
        .ok_or_else(|| CodegenError(format!("internal: {} has no field {name}", plan.name)))
}

/// A field's slot: the value (narrowed when a later EXTEND widened the field) in its declared
/// type's rule.
fn slot(
    body: &mut Body<'_>,
    plan: &StructPlan,
    mapping: &StructMapping,
    step: &FieldStep,
    segment: &mut Segment,
) -> Result<(), CodegenError> {
    let field = field_plan(plan, &step.field)?;
    let rust = rust_field(mapping, &step.field)?;
    let site = format!("{}.{}", plan.name, step.field);
    let named = |op: &str| format!("{op}.in_field(\"{site}\")");
    let access = format!("v.{}", rust.rust_name);
    let write = narrowed_write(
        body,
        &step.rule,
        &field.ty,
        &rust.ty,
        &access,
        step.narrowing.as_ref(),
        &named,
    )?;
    segment.writes.push_str(&write);
    let read = body.read(&step.rule, &field.ty, &rust.ty, &access, &named)?;
    segment.reads.push_str(&read);
    Ok(())
}

/// The writes of `access` narrowed as `narrowing` says, with `rule` of the type `idl`.
pub(super) fn narrowed_write(
    body: &mut Body<'_>,
    rule: &crate::ir::WireRule,
    idl: &crate::ir::Type,
    ty: &RustType,
    access: &str,
    narrowing: Option<&Narrowing>,
    named: &dyn Fn(&str) -> String,
) -> Result<String, CodegenError> {
    let bound = |body: &mut Body<'_>, expr: String| -> Result<String, CodegenError> {
        let local = body.local("slot");
        let write = body.write(rule, idl, ty, &Val::Expr(local.clone()), named)?;
        Ok(format!("{{\nconst auto {local} = {expr};\n{write}}}\n"))
    };
    let Some(narrowing) = narrowing else {
        return body.write(rule, idl, ty, &Val::Expr(access.to_string()), named);
    };
    match narrowing {
        Narrowing::LowBits { bits } => bound(body, format!("idlc::low_bits({access}, {bits})")),
        Narrowing::SaturateInt { min, max } => bound(
            body,
            format!(
                "idlc::saturate<{}>({access}, {}, {})",
                cpp_type(ty)?,
                int_literal(*min),
                int_literal(*max)
            ),
        ),
        Narrowing::SaturateEnum { count, .. } => bound(
            body,
            format!("idlc::saturate_enum({access}, {})", count.saturating_sub(1)),
        ),
        Narrowing::SaturateReal {
            min,
            max,
            min_inclusive,
            max_inclusive,
        } => {
            let saturate = if matches!(ty, RustType::F32) {
                "idlc::saturate_real_f32"
            } else {
                "idlc::saturate_real"
            };
            bound(
                body,
                format!(
                    "{saturate}({access}, {}, {}, {min_inclusive}, {max_inclusive})",
                    double(*min),
                    double(*max)
                ),
            )
        }
        Narrowing::RoundToF32 => body.write(rule, idl, ty, &Val::Expr(access.to_string()), named),
        Narrowing::TruncateString { max } => {
            bound(body, format!("idlc::truncate_utf8({access}, {max}u)"))
        }
        Narrowing::TruncateBytes { max } | Narrowing::TruncateSequence { max } => {
            body.write(rule, idl, ty, &Val::Prefix(access.to_string(), *max), named)
        }
        Narrowing::Unsupported { from } => {
            Err(unsupported(&format!("EXTEND from {}", from.describe())))
        }
    }
}

/// The write and the read of a field's EXTEND: the high bits above the old slot's, or the whole
/// value in the new type's rule (which replaces what the old slot gave).
fn extension(
    body: &mut Body<'_>,
    plan: &StructPlan,
    mapping: &StructMapping,
    step: &ExtensionStep,
    segment: &mut Segment,
) -> Result<(), CodegenError> {
    let rust = rust_field(mapping, &step.field)?;
    let site = format!("{}.{}", plan.name, step.field);
    let named = |op: &str| format!("{op}.in_field(\"{site}\")");
    let access = format!("v.{}", rust.rust_name);
    match &step.carries {
        Carries::HighBits { low, width } => {
            let high = body.local("high");
            writeln!(
                segment.writes,
                "IDLC_TRY(({}));",
                named(&format!(
                    "w.write_bits(idlc::bit_slice({access}, {low}, {width}), {width})"
                ))
            )
            .unwrap();
            write!(
                segment.reads,
                "std::uint64_t {high} = 0;\nIDLC_TRY(({}));\nIDLC_TRY(({}));\n",
                named(&format!("r.read_bits({width}, {high})")),
                named(&format!(
                    "idlc::with_bit_slice(r, {access}, {high}, {low}, {access})"
                ))
            )
            .unwrap();
        }
        Carries::Whole { rule, narrowing } => {
            let write = narrowed_write(
                body,
                rule,
                &step.to,
                &rust.ty,
                &access,
                narrowing.as_ref(),
                &named,
            )?;
            segment.writes.push_str(&write);
            let read = body.read(rule, &step.to, &rust.ty, &access, &named)?;
            segment.reads.push_str(&read);
        }
    }
    Ok(())
}

/// The members of a generated struct, which call its codecs.
pub(super) fn members(out: &mut String, cpp: &str, streams: (&str, &str)) {
    let (writer, reader) = streams;
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
         \x20   *this = std::move(value);\n\
         \x20   return idlc::Status{{}};\n}}\n\n\
         inline idlc::Status {cpp}::encode({writer}& w) const {{\n\
         \x20   return Codec<{cpp}, DefaultEncoding>::encode(*this, w);\n}}\n\n\
         inline idlc::Status {cpp}::decode({reader}& r) {{\n\
         \x20   return Codec<{cpp}, DefaultEncoding>::decode(*this, r);\n}}\n"
    )
    .unwrap();
}
