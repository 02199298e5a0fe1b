//! `DeltaCodec<T, E>`: the delta and dead-reckoning encoder and decoder of one
//! PUBLISHABLE_STRUCT in one encoding, the C++ twin of codegen/delta.rs (WIRE.md, the delta
//! form). Before each wire item the encoder decides, writing nothing, what its changed-bits will
//! say: every field's value as the receiver will hold it (`c_f`), compared with the baseline's
//! as sent; a dead-reckoning block compares the true positions with their extrapolation. Then it
//! writes the item and sets the mirror, the state the receiver reconstructs. The decoder reads
//! the same bits and builds the same state. Both share the "not sent" branch: a field keeps the
//! baseline's value, a dead-reckoned position is extrapolated.

mod diff;
mod quat;

use std::fmt::Write as _;

pub(super) use diff::diffs;

use super::codec::{
    Segment, enter_leave, narrowed_write, nested_reads, nested_writes, top_level_reads,
    top_level_writes,
};
use super::literals::double;
use super::rules::{Body, Val, quantizer, real_input};
use super::sent::Sent;
use super::types::cpp_type;
use super::unsupported;
use crate::codegen::CodegenError;
use crate::ir::plan::{
    Carries, DeltaStep, FieldPlan, FieldStep, StructPlan, dead_reckoning_fields,
};
use crate::ir::{FieldMapping, Ir, RustType, StructMapping, Type, WireRule};

/// The declaration of `DeltaCodec<T, E>` for one PUBLISHABLE_STRUCT.
pub(super) fn declaration(out: &mut String, cpp: &str, tag: &str, streams: (&str, &str)) {
    let (writer, reader) = streams;
    writeln!(
        out,
        "/// `{cpp}` against a baseline in the encoding `{tag}`.\n\
         template <>\nstruct DeltaCodec<{cpp}, {tag}> {{\n\
         \x20   using Writer = {writer};\n    using Reader = {reader};\n\n\
         \x20   /// Writes `v` against `baseline` (the top-level form); `mirror` becomes what the\n\
         \x20   /// receiver holds. `mirror` is none of the others.\n\
         \x20   static idlc::Status encode_delta(const {cpp}& v, const {cpp}& baseline, \
         const idlc::DeltaContext& ctx, Writer& w, {cpp}& mirror);\n\
         \x20   /// Reads a delta against `baseline` into `state` (which is not `baseline`).\n\
         \x20   static idlc::Status decode_delta(const {cpp}& baseline, const idlc::DeltaContext& ctx, \
         Reader& r, {cpp}& state);\n\
         \x20   /// `encode_delta` inside a DELTA SEQUENCE.\n\
         \x20   static idlc::Status encode_delta_nested(const {cpp}& v, const {cpp}& baseline, \
         const idlc::DeltaContext& ctx, Writer& w, {cpp}& mirror);\n\
         \x20   /// `decode_delta` inside a DELTA SEQUENCE.\n\
         \x20   static idlc::Status decode_delta_nested(const {cpp}& baseline, \
         const idlc::DeltaContext& ctx, Reader& r, {cpp}& state);\n}};\n"
    )
    .unwrap();
}

/// Whether the C++ backend writes the delta form of `plan`: a PUBLISHABLE_STRUCT whose fields
/// are all copied by value (no `std::unique_ptr`).
pub(super) fn has_delta_form(ir: &Ir, plan: &StructPlan) -> bool {
    plan.delta.is_some()
        && ir.mapping.structs.get(&plan.name).is_some_and(|m| {
            !m.existing && m.fields.values().all(|f| !super::sent::holds_boxed(&f.ty))
        })
}

/// What the encoder decided for one step.
enum Decision {
    /// A field written whenever its block is (or ALIGN, CHECK, an extension).
    Plain,
    /// A field or dead-reckoning block with its own changed-bit, in this local.
    Bit(String),
    /// A `DELTA { ... }` block: its changed-bit's local and the decisions of its items.
    Block(String, Vec<Decision>),
    /// A `DELTA SEQUENCE`: the runtime writes its changed-bit.
    Sequence,
}

/// The generator's state while it walks one struct.
struct Gen<'a> {
    body: Body<'a>,
    sent: Sent<'a>,
    plan: &'a StructPlan,
    mapping: &'a StructMapping,
    tag: &'a str,
}

/// The definitions of `DeltaCodec<T, E>`'s four functions.
pub(super) fn definitions(
    out: &mut String,
    ir: &Ir,
    tag: &str,
    encoding: &str,
    plan: &StructPlan,
) -> Result<(), CodegenError> {
    let Some(delta) = &plan.delta else {
        return Ok(());
    };
    let encoding_plan = ir
        .plan(encoding)
        .ok_or_else(|| CodegenError(format!("internal: no plan of {encoding}")))?;
    let mapping = &ir.mapping.structs[&plan.name];
    let cpp = &mapping.rust_name;
    let mut generator = Gen {
        body: Body::new(ir, encoding, tag),
        sent: Sent {
            ir,
            plan: encoding_plan,
            tag,
        },
        plan,
        mapping,
        tag,
    };
    let mut segments = Vec::new();
    for steps in delta {
        let writes = generator.encode_items(steps)?;
        let reads = generator.decode_items(steps)?;
        let unsent = generator.unsent_items(steps, "state")?;
        segments.push(Segment {
            writes,
            reads,
            otherwise: unsent,
        });
    }
    let flags = generator.sent_flags();
    let named = format!("\"{}\"", plan.name);
    let (enter, leave) = enter_leave(plan, &named);
    let top_writes = top_level_writes(plan.open_end, &segments);
    let top_reads = format!(
        "{enter}{flags}{}{leave}",
        top_level_reads(&mut generator.body, &named, &segments)
    );
    let encode_head = format!(
        "(const {cpp}& v, const {cpp}& baseline, const idlc::DeltaContext& ctx, Writer& w, {cpp}& mirror)"
    );
    let decode_head =
        format!("(const {cpp}& baseline, const idlc::DeltaContext& ctx, Reader& r, {cpp}& state)");
    let function = |name: &str, head: &str, code: &str| {
        let end = if code.starts_with("return ") {
            ""
        } else {
            "return idlc::Status{};\n"
        };
        format!(
            "inline idlc::Status DeltaCodec<{cpp}, {tag}>::{name}{} {{\n{code}{end}}}\n\n",
            unused_named(head, code)
        )
    };
    out.push_str(&function(
        "encode_delta",
        &encode_head,
        &format!("{flags}{top_writes}"),
    ));
    out.push_str(&function("decode_delta", &decode_head, &top_reads));
    let (nested_write, nested_read) = if !plan.delta_element || segments.len() == 1 {
        let read = if plan.delta_element && plan.open_end {
            format!(
                "IDLC_TRY(decode_delta(baseline, ctx, r, state));\n\
                 IDLC_TRY((idlc::skip_extension(r).in_field({named})));\n"
            )
        } else {
            "return decode_delta(baseline, ctx, r, state);\n".to_string()
        };
        (
            "return encode_delta(v, baseline, ctx, w, mirror);\n".to_string(),
            read,
        )
    } else {
        (
            format!("{flags}{}", nested_writes(plan.open_end, &segments, "[&]")),
            format!(
                "{enter}{flags}{}{leave}",
                nested_reads(&mut generator.body, plan.open_end, &named, &segments)
            ),
        )
    };
    out.push_str(&function(
        "encode_delta_nested",
        &encode_head,
        &nested_write,
    ));
    out.push_str(&function("decode_delta_nested", &decode_head, &nested_read));
    Ok(())
}

/// The parameter list `head` with the parameters `code` does not use left unnamed.
fn unused_named(head: &str, code: &str) -> String {
    let mut out = head.to_string();
    for name in ["v", "baseline", "ctx", "w", "r", "mirror", "state"] {
        if !uses(code, name) {
            out = out.replace(&format!("& {name},"), "&,");
            out = out.replace(&format!("& {name})"), "&)");
        }
    }
    out
}

/// Whether `code` mentions the identifier `name`.
fn uses(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + name.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

impl<'a> Gen<'a> {
    fn field(&self, name: &str) -> Result<(&'a FieldPlan, &'a FieldMapping), CodegenError> {
        let plan: &'a StructPlan = self.plan;
        let mapping: &'a StructMapping = self.mapping;
        let field = plan
            .field(name)
            .ok_or_else(|| CodegenError(format!("internal: no field {name}")))?;
        let rust = mapping
            .fields
            .get(name)
            .ok_or_else(|| CodegenError(format!("internal: no mapping of {name}")))?;
        Ok((field, rust))
    }

    fn site(&self, field: &str) -> String {
        format!("{}.{field}", self.plan.name)
    }

    /// `bool sent_f = false;` per widened field: whether its old slot was sent (its extension
    /// follows).
    fn sent_flags(&self) -> String {
        let mut out = String::new();
        for field in self.plan.fields.iter().filter(|f| !f.extends.is_empty()) {
            if let Some(rust) = self.mapping.fields.get(&field.name) {
                writeln!(out, "bool sent_{} = false;", rust.rust_name).unwrap();
            }
        }
        out
    }

    fn sent_flag(field: &FieldPlan, rust: &FieldMapping, value: bool) -> String {
        if field.extends.is_empty() {
            String::new()
        } else {
            format!("sent_{} = {value};\n", rust.rust_name)
        }
    }

    /// Whether a field is sent as a FIXED_POINT step of its float (and not widened).
    fn quantized(field: &FieldPlan, rust: &FieldMapping, rule: &WireRule) -> bool {
        matches!(rule, WireRule::FixedPoint { .. })
            && matches!(rust.ty, RustType::F32 | RustType::F64)
            && field.extends.is_empty()
    }

    /// The encoder of `items`: before each item what its changed-bits say, then its writes.
    fn encode_items(&mut self, items: &[DeltaStep]) -> Result<String, CodegenError> {
        let mut out = String::new();
        for item in items {
            let (decision, _) = self.decide(item, &mut out, false)?;
            let write = self.write_item(item, &decision)?;
            out.push_str(&write);
        }
        Ok(out)
    }

    /// Declares the candidates of `item` (a failure names the field, at the bit before the
    /// item) and its changed-bits into `out`; returns the decision and the expression that says
    /// whether it differs from the baseline (for a block around it).
    fn decide(
        &mut self,
        item: &DeltaStep,
        out: &mut String,
        in_block: bool,
    ) -> Result<(Decision, String), CodegenError> {
        Ok(match item {
            DeltaStep::Sequence { field: step, .. } => {
                if !in_block {
                    return Ok((Decision::Sequence, "false".into()));
                }
                let (field, rust) = self.field(&step.field)?;
                let candidate = self.candidate(step, out)?;
                let same = self.sent.same_field(
                    self.plan,
                    field,
                    &rust.ty,
                    &candidate,
                    &format!("baseline.{}", rust.rust_name),
                )?;
                (Decision::Sequence, format!("!({same})"))
            }
            DeltaStep::Changed(step) | DeltaStep::Field(step) => {
                let (field, rust) = self.field(&step.field)?;
                let candidate = self.candidate(step, out)?;
                let held = format!("baseline.{}", rust.rust_name);
                let same = if Self::quantized(field, rust, &step.rule) {
                    // The step sent, against the step the baseline (maybe off the steps) is sent as.
                    format!(
                        "{candidate} == {held} || {}.sends_as({}, q_{})",
                        quantizer(&step.rule)?,
                        self.real(step, &held)?,
                        rust.rust_name
                    )
                } else {
                    self.sent
                        .same_field(self.plan, field, &rust.ty, &candidate, &held)?
                };
                let differs = format!("!({same})");
                if matches!(item, DeltaStep::Changed(_)) {
                    let flag = self.body.local("send");
                    writeln!(out, "const bool {flag} = {differs};").unwrap();
                    (Decision::Bit(flag.clone()), flag)
                } else {
                    (Decision::Plain, differs)
                }
            }
            DeltaStep::Block(inner) => {
                let mut decisions = Vec::new();
                let mut differs = Vec::new();
                for item in inner {
                    let (decision, differ) = self.decide(item, out, true)?;
                    decisions.push(decision);
                    differs.push(differ);
                }
                let flag = self.body.local("send");
                let any = if differs.is_empty() {
                    "false".to_string()
                } else {
                    differs.join(" || ")
                };
                writeln!(out, "const bool {flag} = {any};").unwrap();
                (Decision::Block(flag.clone(), decisions), flag)
            }
            DeltaStep::DeadReckoning { limit, axes } => {
                for step in dead_reckoning_fields(axes).map(|(field, _)| field) {
                    self.candidate(step, out)?;
                }
                let mut checks = Vec::new();
                for (axis, (position, velocity)) in axes.iter().enumerate() {
                    let (_, rust) = self.field(&position.field)?;
                    let predicted = self.predicted(position, velocity)?;
                    let kept = format!("predicted_{}", rust.rust_name);
                    let actual = self.real(position, &format!("v.{}", rust.rust_name))?;
                    let check = format!(
                        "idlc::exceeds_deviation({actual}, {kept}, {})",
                        double(*limit)
                    );
                    if axis == 0 {
                        writeln!(out, "double {kept} = {predicted};").unwrap();
                        checks.push(check);
                    } else {
                        // Made only while no axis before it exceeded: kept for the mirror of an
                        // unsent block, where every check ran.
                        writeln!(out, "double {kept} = 0.0;").unwrap();
                        checks.push(format!(
                            "[&] {{\n{kept} = {predicted};\nreturn {check};\n}}()"
                        ));
                    }
                }
                let flag = self.body.local("send");
                writeln!(out, "const bool {flag} = {};", checks.join(" || ")).unwrap();
                (Decision::Bit(flag.clone()), flag)
            }
            DeltaStep::Extension(_) | DeltaStep::Align | DeltaStep::Check => {
                (Decision::Plain, "false".into())
            }
        })
    }

    /// Declares `c_f`, the field's value as the receiver will hold it once sent (after `q_f`,
    /// its step, for a FIXED_POINT float); returns its name.
    fn candidate(&mut self, step: &FieldStep, out: &mut String) -> Result<String, CodegenError> {
        let (field, rust) = self.field(&step.field)?;
        let name = format!("c_{}", rust.rust_name);
        let access = format!("v.{}", rust.rust_name);
        let site = self.site(&step.field);
        let ty = cpp_type(&rust.ty)?;
        if Self::quantized(field, rust, &step.rule) {
            let step_local = format!("q_{}", rust.rust_name);
            writeln!(
                out,
                "std::uint64_t {step_local} = 0;\n\
                 IDLC_TRY((idlc::quantize_at(w, {fp}, {input}, {step_local}).in_field(\"{site}\")));\n\
                 const {ty} {name} = static_cast<{ty}>({fp}.dequantize({step_local}));",
                fp = quantizer(&step.rule)?,
                input = self.real(step, &access)?,
            )
            .unwrap();
            return Ok(name);
        }
        if !field.extends.is_empty() || self.sent.is_lossless(&step.rule, &rust.ty) {
            writeln!(out, "const {ty}& {name} = {access};").unwrap();
            return Ok(name);
        }
        let named = |op: &str| format!("{op}.in_field(\"{site}\")");
        let write = self
            .body
            .write(&step.rule, &field.ty, &rust.ty, &Val::Expr(access), &named)?;
        let read = self
            .body
            .read(&step.rule, &field.ty, &rust.ty, &name, &named)?;
        writeln!(
            out,
            "{ty} {name}{{}};\n\
             IDLC_TRY((idlc::sent_value<Writer, Reader>(w, [&](Writer& w) -> idlc::Status {{\n\
             {write}return idlc::Status{{}};\n}}, [&](Reader& r) -> idlc::Status {{\n\
             {read}return idlc::Status{{}};\n}})));"
        )
        .unwrap();
        Ok(name)
    }

    /// The `double` a FIXED_POINT field's rule takes of `value`.
    fn real(&self, step: &FieldStep, value: &str) -> Result<String, CodegenError> {
        let (_, rust) = self.field(&step.field)?;
        match &step.rule {
            WireRule::FixedPoint { min, max, .. } => Ok(real_input(*min, *max, &rust.ty, value)),
            _ => Err(CodegenError(
                "internal: a dead-reckoned field without FIXED_POINT".into(),
            )),
        }
    }

    /// The extrapolated position (a `double`) of one axis, from the baseline.
    fn predicted(
        &self,
        position: &FieldStep,
        velocity: &FieldStep,
    ) -> Result<String, CodegenError> {
        let (_, p) = self.field(&position.field)?;
        let (_, v) = self.field(&velocity.field)?;
        Ok(format!(
            "idlc::DeadReckoningAxis{{{}, {}}}.predict_from({}, {}, ctx)",
            quantizer(&position.rule)?,
            quantizer(&velocity.rule)?,
            self.real(position, &format!("baseline.{}", p.rust_name))?,
            self.real(velocity, &format!("baseline.{}", v.rust_name))?
        ))
    }

    /// The writes of one item as decided, setting the mirror.
    fn write_item(
        &mut self,
        item: &DeltaStep,
        decision: &Decision,
    ) -> Result<String, CodegenError> {
        Ok(match (item, decision) {
            (DeltaStep::Sequence { field, element }, Decision::Sequence) => {
                self.write_sequence(field, element.is_some())?
            }
            (DeltaStep::Changed(step) | DeltaStep::Field(step), _) => {
                let write = self.write_field(step, None)?;
                match decision {
                    Decision::Bit(flag) => {
                        let keep = self.keep(&step.field, "mirror")?;
                        format!(
                            "IDLC_TRY(w.write_bool({flag}));\nif ({flag}) {{\n{write}}} else {{\n{keep}}}\n"
                        )
                    }
                    _ => write,
                }
            }
            (DeltaStep::Block(inner), Decision::Block(flag, decisions)) => {
                let mut writes = String::new();
                for (item, decision) in inner.iter().zip(decisions) {
                    writes.push_str(&self.write_item(item, decision)?);
                }
                let unsent = self.unsent_items(inner, "mirror")?;
                format!(
                    "IDLC_TRY(w.write_bool({flag}));\nif ({flag}) {{\n{writes}}} else {{\n{unsent}}}\n"
                )
            }
            (DeltaStep::DeadReckoning { axes, .. }, Decision::Bit(flag)) => {
                let mut writes = String::new();
                for (step, velocity) in dead_reckoning_fields(axes) {
                    writes.push_str(&self.write_field(step, velocity)?);
                }
                let unsent = self.unsent_dead_reckoning(axes, "mirror")?;
                format!(
                    "IDLC_TRY(w.write_bool({flag}));\nif ({flag}) {{\n{writes}}} else {{\n{unsent}}}\n"
                )
            }
            (DeltaStep::Extension(extension), _) => {
                let (_, rust) = self.field(&extension.field)?;
                let (write, _) = self.extension(extension, "v", "state")?;
                format!("if (sent_{}) {{\n{write}}}\n", rust.rust_name)
            }
            (DeltaStep::Align, _) => "IDLC_TRY(w.align());\n".into(),
            (DeltaStep::Check, _) => "IDLC_TRY(idlc::write_check(w));\n".into(),
            _ => return Err(CodegenError("internal: delta plan out of step".into())),
        })
    }

    /// Writes a field (in full, or with its DIFF; `velocity` is a dead-reckoning position's)
    /// and makes its candidate the mirror's.
    fn write_field(
        &mut self,
        step: &FieldStep,
        velocity: Option<&FieldStep>,
    ) -> Result<String, CodegenError> {
        let (field, rust) = self.field(&step.field)?;
        let site = self.site(&step.field);
        let named = |op: &str| format!("{op}.in_field(\"{site}\")");
        let write = if Self::quantized(field, rust, &step.rule) {
            let fp = quantizer(&step.rule)?;
            format!(
                "IDLC_TRY(({}));\n",
                named(&format!("w.write_bits(q_{}, {fp}.bits())", rust.rust_name))
            )
        } else {
            narrowed_write(
                &mut self.body,
                &step.rule,
                &field.ty,
                &rust.ty,
                &format!("v.{}", rust.rust_name),
                step.narrowing.as_ref(),
                &named,
            )?
        };
        let write = match (&step.diff, &step.rule) {
            (Some(plan), WireRule::SmallestThree { bits }) => {
                self.quaternion_diff(step, plan, *bits, quat::Side::Write)?
            }
            (Some(plan), _) => self.write_diff(step, plan, velocity, &write)?,
            (None, _) => write,
        };
        Ok(format!(
            "{write}mirror.{0} = c_{0};\n{1}",
            rust.rust_name,
            Self::sent_flag(field, rust, true)
        ))
    }

    /// A field not sent: the baseline's value, in `target` (`mirror` or `state`).
    fn keep(&self, name: &str, target: &str) -> Result<String, CodegenError> {
        let (field, rust) = self.field(name)?;
        Ok(format!(
            "{target}.{0} = baseline.{0};\n{1}",
            rust.rust_name,
            Self::sent_flag(field, rust, false)
        ))
    }

    /// The state of items not sent, in `target`: fields keep the baseline's values, positions
    /// are extrapolated.
    fn unsent_items(&self, items: &[DeltaStep], target: &str) -> Result<String, CodegenError> {
        let mut out = String::new();
        for item in items {
            match item {
                DeltaStep::Field(step)
                | DeltaStep::Changed(step)
                | DeltaStep::Sequence { field: step, .. } => {
                    out.push_str(&self.keep(&step.field, target)?)
                }
                DeltaStep::Block(inner) => out.push_str(&self.unsent_items(inner, target)?),
                DeltaStep::DeadReckoning { axes, .. } => {
                    out.push_str(&self.unsent_dead_reckoning(axes, target)?)
                }
                DeltaStep::Extension(_) | DeltaStep::Align | DeltaStep::Check => {}
            }
        }
        Ok(out)
    }

    /// A dead-reckoning block not sent: positions extrapolated (the encoder takes the
    /// predictions its checks made; the decoder makes them), velocities kept.
    fn unsent_dead_reckoning(
        &self,
        axes: &[(FieldStep, FieldStep)],
        target: &str,
    ) -> Result<String, CodegenError> {
        let mut out = String::new();
        for (position, velocity) in axes {
            let (field, rust) = self.field(&position.field)?;
            let prediction = if target == "mirror" {
                format!("predicted_{}", rust.rust_name)
            } else {
                self.predicted(position, velocity)?
            };
            let value = match rust.ty {
                RustType::F32 => format!("static_cast<float>({prediction})"),
                _ => prediction,
            };
            write!(
                out,
                "{target}.{} = {value};\n{}",
                rust.rust_name,
                Self::sent_flag(field, rust, false)
            )
            .unwrap();
        }
        for (_, velocity) in axes {
            out.push_str(&self.keep(&velocity.field, target)?);
        }
        Ok(out)
    }

    /// The write and the read of a field's EXTEND (the read into `state`).
    fn extension(
        &mut self,
        step: &crate::ir::plan::ExtensionStep,
        value: &str,
        target: &str,
    ) -> Result<(String, String), CodegenError> {
        let (_, rust) = self.field(&step.field)?;
        let site = self.site(&step.field);
        let named = |op: &str| format!("{op}.in_field(\"{site}\")");
        let access = format!("{value}.{}", rust.rust_name);
        let place = format!("{target}.{}", rust.rust_name);
        match &step.carries {
            Carries::HighBits { low, width } => {
                let high = self.body.local("high");
                Ok((
                    format!(
                        "IDLC_TRY(({}));\n",
                        named(&format!(
                            "w.write_bits(idlc::bit_slice({access}, {low}, {width}), {width})"
                        ))
                    ),
                    format!(
                        "std::uint64_t {high} = 0;\nIDLC_TRY(({}));\nIDLC_TRY(({}));\n",
                        named(&format!("r.read_bits({width}, {high})")),
                        named(&format!(
                            "idlc::with_bit_slice(r, {place}, {high}, {low}, {place})"
                        ))
                    ),
                ))
            }
            Carries::Whole { rule, narrowing } => {
                let write = narrowed_write(
                    &mut self.body,
                    rule,
                    &step.to,
                    &rust.ty,
                    &access,
                    narrowing.as_ref(),
                    &named,
                )?;
                let read = self.body.read(rule, &step.to, &rust.ty, &place, &named)?;
                Ok((write, read))
            }
        }
    }

    /// The decoder of `items`, into `state`.
    fn decode_items(&mut self, items: &[DeltaStep]) -> Result<String, CodegenError> {
        let mut out = String::new();
        let struct_named = format!(".in_field(\"{}\")", self.plan.name);
        for item in items {
            match item {
                DeltaStep::Sequence { field, element } => {
                    out.push_str(&self.read_sequence(field, element.is_some())?)
                }
                DeltaStep::Changed(step) | DeltaStep::Field(step) => {
                    let read = self.read_field(step, None)?;
                    if matches!(item, DeltaStep::Changed(_)) {
                        let keep = self.keep(&step.field, "state")?;
                        let changed = self.body.local("changed");
                        write!(
                            out,
                            "bool {changed} = false;\nIDLC_TRY((r.read_bool({changed}).in_field(\"{}\")));\n\
                             if ({changed}) {{\n{read}}} else {{\n{keep}}}\n",
                            self.site(&step.field)
                        )
                        .unwrap();
                    } else {
                        out.push_str(&read);
                    }
                }
                DeltaStep::Block(inner) => {
                    let reads = self.decode_items(inner)?;
                    let unsent = self.unsent_items(inner, "state")?;
                    let changed = self.body.local("changed");
                    write!(
                        out,
                        "bool {changed} = false;\nIDLC_TRY((r.read_bool({changed}){struct_named}));\n\
                         if ({changed}) {{\n{reads}}} else {{\n{unsent}}}\n"
                    )
                    .unwrap();
                }
                DeltaStep::DeadReckoning { axes, .. } => {
                    let mut reads = String::new();
                    for (step, velocity) in dead_reckoning_fields(axes) {
                        reads.push_str(&self.read_field(step, velocity)?);
                    }
                    let unsent = self.unsent_dead_reckoning(axes, "state")?;
                    let changed = self.body.local("changed");
                    write!(
                        out,
                        "bool {changed} = false;\nIDLC_TRY((r.read_bool({changed}){struct_named}));\n\
                         if ({changed}) {{\n{reads}}} else {{\n{unsent}}}\n"
                    )
                    .unwrap();
                }
                DeltaStep::Extension(extension) => {
                    let (_, rust) = self.field(&extension.field)?;
                    let (_, read) = self.extension(extension, "v", "state")?;
                    write!(out, "if (sent_{}) {{\n{read}}}\n", rust.rust_name).unwrap();
                }
                DeltaStep::Align => writeln!(
                    out,
                    "IDLC_TRY((r.align().in_field(\"{} (ALIGN)\")));",
                    self.plan.name
                )
                .unwrap(),
                DeltaStep::Check => writeln!(
                    out,
                    "IDLC_TRY((idlc::read_check(r).in_field(\"{} (CHECK)\")));",
                    self.plan.name
                )
                .unwrap(),
            }
        }
        Ok(out)
    }

    /// Reads a field (in full, or with its DIFF; `velocity` is a dead-reckoning position's)
    /// into `state`.
    fn read_field(
        &mut self,
        step: &FieldStep,
        velocity: Option<&FieldStep>,
    ) -> Result<String, CodegenError> {
        let (field, rust) = self.field(&step.field)?;
        let site = self.site(&step.field);
        let named = |op: &str| format!("{op}.in_field(\"{site}\")");
        let read = self.body.read(
            &step.rule,
            &field.ty,
            &rust.ty,
            &format!("state.{}", rust.rust_name),
            &named,
        )?;
        let read = match (&step.diff, &step.rule) {
            (Some(plan), WireRule::SmallestThree { bits }) => {
                self.quaternion_diff(step, plan, *bits, quat::Side::Read)?
            }
            (Some(plan), _) => self.read_diff(step, plan, velocity, &read)?,
            (None, _) => read,
        };
        Ok(format!("{read}{}", Self::sent_flag(field, rust, true)))
    }

    /// What the writer and the reader of a DELTA SEQUENCE field both need.
    fn sequence_parts(&self, step: &FieldStep) -> Result<SequenceParts, CodegenError> {
        let (field, rust) = self.field(&step.field)?;
        match (&step.rule, &field.ty, &rust.ty) {
            (
                WireRule::Sequence {
                    count,
                    max,
                    element,
                    ..
                },
                Type::Sequence {
                    element: element_idl,
                    ..
                },
                RustType::Vec(element_ty)
                | RustType::Collection {
                    element: element_ty,
                    ..
                },
            ) => Ok(SequenceParts {
                count: (**count).clone(),
                max: *max,
                element: (**element).clone(),
                element_idl: (**element_idl).clone(),
                element_ty: (**element_ty).clone(),
                name: rust.rust_name.clone(),
                collection: rust.ty.clone(),
                site: self.site(&step.field),
                elem: cpp_type(element_ty)?,
            }),
            _ => Err(unsupported("this DELTA SEQUENCE")),
        }
    }

    /// The element struct's C++ name when the elements are delta-coded.
    fn element_struct(&self, element: &WireRule) -> Result<String, CodegenError> {
        match element {
            WireRule::Struct(name) => self
                .body
                .ir
                .mapping
                .structs
                .get(name)
                .map(|m| m.rust_name.clone())
                .ok_or_else(|| CodegenError(format!("internal: no mapping of {name}"))),
            _ => Err(CodegenError(
                "internal: a delta-coded element is no struct".into(),
            )),
        }
    }

    /// `idlc::write_delta_sequence` of a DELTA SEQUENCE field, into `mirror`.
    fn write_sequence(
        &mut self,
        step: &FieldStep,
        publishable: bool,
    ) -> Result<String, CodegenError> {
        let SequenceParts {
            count,
            max,
            element,
            element_idl,
            element_ty,
            name,
            collection,
            site,
            elem,
        } = self.sequence_parts(step)?;
        let bare = |op: &str| op.to_string();
        let write_count = self.body.write_length_of(&count, max, "n", &bare)?;
        let indexed = |op: &str| format!("{op}.at_index(index)");
        let lossless = self.sent.is_lossless(&element, &element_ty);
        let same = if lossless {
            format!(
                "unchanged = {};\nreturn idlc::Status{{}};\n",
                self.sent
                    .same(&element, &element_idl, &element_ty, "element", "base")?
            )
        } else {
            let sent = self.sent_element(
                &element,
                &element_idl,
                &element_ty,
                "element",
                "sent",
                &bare,
            )?;
            format!(
                "{elem} sent{{}};\n{sent}unchanged = {};\nreturn idlc::Status{{}};\n",
                self.sent
                    .same(&element, &element_idl, &element_ty, "sent", "base")?
            )
        };
        let full = self.body.write(
            &element,
            &element_idl,
            &element_ty,
            &Val::Expr("element".into()),
            &indexed,
        )?;
        let slot = if lossless {
            "slot = element;\n".to_string()
        } else {
            self.sent_element(
                &element,
                &element_idl,
                &element_ty,
                "element",
                "slot",
                &indexed,
            )?
        };
        let delta = if publishable {
            format!(
                "if (base != nullptr) {{\nreturn DeltaCodec<{}, {}>::encode_delta_nested(element, *base, ctx, w, slot).at_index(index);\n}}\n",
                self.element_struct(&element)?,
                self.tag
            )
        } else {
            "(void)base;\n".to_string()
        };
        let (current, baseline, mirror, assign) = match &collection {
            RustType::Collection { path, .. } => (
                format!("idlc::collection_elements<{elem}>(v.{name})"),
                format!("idlc::collection_elements<{elem}>(baseline.{name})"),
                "listed".to_string(),
                format!("mirror.{name} = idlc::collection_of<{path}>(listed);\n"),
            ),
            _ => (
                format!("v.{name}"),
                format!("baseline.{name}"),
                format!("mirror.{name}"),
                String::new(),
            ),
        };
        let declare = if assign.is_empty() {
            String::new()
        } else {
            format!("std::vector<{elem}> listed;\n")
        };
        Ok(format!(
            "{{\n{declare}IDLC_TRY((idlc::write_delta_sequence(w, {baseline}, {current}, {mirror},\n\
             [&](Writer& w, std::uint64_t n) -> idlc::Status {{\n{write_count}return idlc::Status{{}};\n}},\n\
             [&](const {elem}& element, const {elem}& base, bool& unchanged) -> idlc::Status {{\n{same}}},\n\
             [&](Writer& w, const {elem}& element, const {elem}* base, std::size_t index, {elem}& slot) -> idlc::Status {{\n\
             {delta}{full}{slot}return idlc::Status{{}};\n}}).in_field(\"{site}\")));\n{assign}}}\n"
        ))
    }

    /// Statements setting `target` to `value` (an element) as the receiver holds it once sent.
    fn sent_element(
        &mut self,
        rule: &WireRule,
        idl: &Type,
        ty: &RustType,
        value: &str,
        target: &str,
        named: &dyn Fn(&str) -> String,
    ) -> Result<String, CodegenError> {
        let write = self
            .body
            .write(rule, idl, ty, &Val::Expr(value.into()), named)?;
        let read = self.body.read(rule, idl, ty, target, named)?;
        Ok(format!(
            "IDLC_TRY((idlc::sent_value<Writer, Reader>(w, [&](Writer& w) -> idlc::Status {{\n\
             {write}return idlc::Status{{}};\n}}, [&](Reader& r) -> idlc::Status {{\n\
             {read}return idlc::Status{{}};\n}})));\n"
        ))
    }

    /// `idlc::read_delta_sequence` of a DELTA SEQUENCE field, into `state`.
    fn read_sequence(
        &mut self,
        step: &FieldStep,
        publishable: bool,
    ) -> Result<String, CodegenError> {
        let SequenceParts {
            count,
            max,
            element,
            element_idl,
            element_ty,
            name,
            collection,
            site,
            elem,
        } = self.sequence_parts(step)?;
        let bare = |op: &str| op.to_string();
        let read_count = self.body.read_length_of(&count, max, "length", &bare)?;
        let indexed = |op: &str| format!("{op}.at_index(index)");
        let read_new = self
            .body
            .read(&element, &element_idl, &element_ty, "slot", &indexed)?;
        let (read_old, min) = if publishable {
            (
                format!(
                    "return DeltaCodec<{}, {}>::decode_delta_nested(base, ctx, r, slot).at_index(index);\n",
                    self.element_struct(&element)?,
                    self.tag
                ),
                0,
            )
        } else {
            let encoding = &self.body.ir.encodings[self.body.encoding];
            (
                format!(
                    "(void)base;\n{}return idlc::Status{{}};\n",
                    self.body
                        .read(&element, &element_idl, &element_ty, "slot", &indexed)?
                ),
                crate::ir::cost::min_bits(self.body.ir, encoding, &element),
            )
        };
        let (baseline, state, assign) = match &collection {
            RustType::Collection { path, .. } => (
                format!("idlc::collection_elements<{elem}>(baseline.{name})"),
                "listed".to_string(),
                format!("state.{name} = idlc::collection_of<{path}>(listed);\n"),
            ),
            _ => (
                format!("baseline.{name}"),
                format!("state.{name}"),
                String::new(),
            ),
        };
        let declare = if assign.is_empty() {
            String::new()
        } else {
            format!("std::vector<{elem}> listed;\n")
        };
        Ok(format!(
            "{{\n{declare}IDLC_TRY((idlc::read_delta_sequence(r, {baseline}, {state},\n\
             [&](Reader& r, std::uint64_t& n) -> idlc::Status {{\n{read_count}n = length;\nreturn idlc::Status{{}};\n}},\n\
             {min}u,\n\
             [&](Reader& r, const {elem}& base, std::size_t index, {elem}& slot) -> idlc::Status {{\n{read_old}}},\n\
             [&](Reader& r, std::size_t index, {elem}& slot) -> idlc::Status {{\n{read_new}return idlc::Status{{}};\n}}).in_field(\"{site}\")));\n{assign}}}\n"
        ))
    }
}

/// A DELTA SEQUENCE field: its count rule and bound, its element's rule and types, its C++
/// name and collection type, its error path, the element's C++ spelling.
struct SequenceParts {
    count: WireRule,
    max: Option<u64>,
    element: WireRule,
    element_idl: Type,
    element_ty: RustType,
    name: String,
    collection: RustType,
    site: String,
    elem: String,
}

/// The members of a PUBLISHABLE_STRUCT that call its delta codecs, declared in its struct.
pub(super) fn member_declarations(cpp: &str, streams: (&str, &str)) -> String {
    let (writer, reader) = streams;
    format!(
        "\x20   /// Writes it against `baseline` in the default encoding; `mirror` becomes what the\n\
         \x20   /// receiver holds (the next baseline; it may be `baseline`).\n\
         \x20   idlc::Status encode_delta(const {cpp}& baseline, const idlc::DeltaContext& ctx, {writer}& w, {cpp}& mirror) const;\n\
         \x20   /// `encode_delta` in the encoding `E`.\n\
         \x20   template <class E>\n\
         \x20   idlc::Status encode_delta_with(const {cpp}& baseline, const idlc::DeltaContext& ctx, \
         typename DeltaCodec<{cpp}, E>::Writer& w, {cpp}& mirror) const;\n\
         \x20   /// Reads a delta against `baseline` (which may be `*this`) into `*this`, which keeps its\n\
         \x20   /// value on an error.\n\
         \x20   idlc::Status decode_delta(const {cpp}& baseline, const idlc::DeltaContext& ctx, {reader}& r);\n\
         \x20   /// `decode_delta` in the encoding `E`.\n\
         \x20   template <class E>\n\
         \x20   idlc::Status decode_delta_with(const {cpp}& baseline, const idlc::DeltaContext& ctx, \
         typename DeltaCodec<{cpp}, E>::Reader& r);\n"
    )
}

/// The definitions of the delta members.
pub(super) fn members(out: &mut String, cpp: &str, streams: (&str, &str)) {
    let (writer, reader) = streams;
    writeln!(
        out,
        "inline idlc::Status {cpp}::encode_delta(const {cpp}& baseline, const idlc::DeltaContext& ctx, \
         {writer}& w, {cpp}& mirror) const {{\n\
         \x20   return encode_delta_with<DefaultEncoding>(baseline, ctx, w, mirror);\n}}\n\n\
         template <class E>\n\
         inline idlc::Status {cpp}::encode_delta_with(const {cpp}& baseline, const idlc::DeltaContext& ctx, \
         typename DeltaCodec<{cpp}, E>::Writer& w, {cpp}& mirror) const {{\n\
         \x20   {cpp} next;\n\
         \x20   IDLC_TRY((DeltaCodec<{cpp}, E>::encode_delta(*this, baseline, ctx, w, next)));\n\
         \x20   mirror = std::move(next);\n\
         \x20   return idlc::Status{{}};\n}}\n\n\
         inline idlc::Status {cpp}::decode_delta(const {cpp}& baseline, const idlc::DeltaContext& ctx, \
         {reader}& r) {{\n\
         \x20   return decode_delta_with<DefaultEncoding>(baseline, ctx, r);\n}}\n\n\
         template <class E>\n\
         inline idlc::Status {cpp}::decode_delta_with(const {cpp}& baseline, const idlc::DeltaContext& ctx, \
         typename DeltaCodec<{cpp}, E>::Reader& r) {{\n\
         \x20   {cpp} state;\n\
         \x20   IDLC_TRY((DeltaCodec<{cpp}, E>::decode_delta(baseline, ctx, r, state)));\n\
         \x20   *this = std::move(state);\n\
         \x20   return idlc::Status{{}};\n}}\n"
    )
    .unwrap();
}
