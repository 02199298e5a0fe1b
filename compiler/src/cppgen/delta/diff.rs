//! `DIFF(b1, ..., bk)` in the C++ delta form, the twin of codegen/delta/diff.rs: a changed
//! field's step sent as its tiered difference to a reference (the runtime's `idlc::Diff`), else
//! the escape and the field in full (WIRE.md, "Delta and dead reckoning").
//!
//! The reference is the baseline's value; for a position in a DEAD_RECKONING block, the
//! extrapolation from the baseline, rounded to its step. A FIXED_POINT field's step is its
//! `q_f` local; an integer's or enumerator's is taken by the runtime from the value (an
//! enumerator's: its index).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::super::literals::int_literal;
use super::super::rules::quantizer;
use super::Gen;
use crate::codegen::CodegenError;
use crate::ir::Type;
use crate::ir::plan::{DeltaStep, DiffPlan, FieldStep, StructPlan};

/// The name of a DIFF rule's `idlc::Diff`, an `inline constexpr` of the header ([`diffs`]),
/// after its tiers and steps: `DIFF_2_5_9_ON_0_TO_2000000`, `..._WRAPPING` when the range
/// wraps, `..._FROM_MINUS_100` for an integer's origin.
pub(super) fn diff_name(plan: &DiffPlan) -> String {
    let steps = &plan.steps;
    let mut name = format!("{}_ON_{}_TO_{}", tiers_stem(plan), steps.first, steps.last);
    if steps.wraps {
        name.push_str("_WRAPPING");
    }
    if steps.origin != 0 {
        let origin = steps.origin.unsigned_abs();
        let sign = if steps.origin < 0 { "MINUS_" } else { "" };
        write!(name, "_FROM_{sign}{origin}").unwrap();
    }
    name
}

/// `DIFF_2_5_9`: the stem of a rule's names, after its tiers.
fn tiers_stem(plan: &DiffPlan) -> String {
    let tiers: Vec<String> = plan.tiers.iter().map(u32::to_string).collect();
    format!("DIFF_{}", tiers.join("_"))
}

/// The definitions of the DIFF rules of `plan`'s delta form (DELTA SEQUENCE elements have
/// their own plans): each tiers array by name in `tiers`, each `idlc::Diff` by name in `rules`.
pub(in crate::cppgen) fn diffs(
    plan: &StructPlan,
    tiers: &mut BTreeMap<String, String>,
    rules: &mut BTreeMap<String, String>,
) {
    let mut pending: Vec<&DeltaStep> = plan.delta.iter().flatten().flatten().collect();
    while let Some(step) = pending.pop() {
        let fields: Vec<&FieldStep> = match step {
            DeltaStep::Field(field) | DeltaStep::Changed(field) => vec![field],
            DeltaStep::DeadReckoning { axes, .. } => {
                axes.iter().flat_map(|(p, v)| [p, v]).collect()
            }
            DeltaStep::Block(inner) => {
                pending.extend(inner);
                continue;
            }
            DeltaStep::Sequence { .. }
            | DeltaStep::Extension(_)
            | DeltaStep::Align
            | DeltaStep::Check => continue,
        };
        for diff in fields.into_iter().filter_map(|f| f.diff.as_ref()) {
            let array = format!("{}_TIERS", tiers_stem(diff));
            let values: Vec<String> = diff.tiers.iter().map(|b| format!("{b}u")).collect();
            tiers
                .entry(array.clone())
                .or_insert_with(|| format!("{{{}}}", values.join(", ")));
            let steps = &diff.steps;
            let rule = format!(
                "idlc::Diff{{{array}, {}u, {}u, {}}}",
                steps.first, steps.last, steps.wraps
            );
            rules.entry(diff_name(diff)).or_insert_with(|| {
                if steps.origin == 0 {
                    rule
                } else {
                    format!("{rule}.with_origin({})", int_literal(steps.origin))
                }
            });
        }
    }
}

/// How a DIFF field takes its steps, in C++.
enum Steps {
    /// A FIXED_POINT float: the reference step (a `std::uint64_t` expression).
    Quantized(String),
    /// An integer: the baseline's value.
    Integer(String),
    /// An enumerator: the baseline's value, and the enum's number of enumerators.
    Enum(String, u64),
}

impl Gen<'_> {
    /// How the DIFF field `step` takes its steps; `velocity` is the velocity of a dead-reckoning
    /// position, whose reference is the extrapolation.
    fn diff_steps(
        &self,
        step: &FieldStep,
        velocity: Option<&FieldStep>,
    ) -> Result<Steps, CodegenError> {
        let (field, rust) = self.field(&step.field)?;
        let base = format!("baseline.{}", rust.rust_name);
        if Self::quantized(field, rust, &step.rule) {
            let fp = quantizer(&step.rule)?;
            let position = self.real(step, &base)?;
            return Ok(Steps::Quantized(match velocity {
                Some(velocity) => {
                    let (_, v) = self.field(&velocity.field)?;
                    format!(
                        "idlc::DeadReckoningAxis{{{fp}, {}}}.extrapolate_from({position}, {}, ctx)",
                        quantizer(&velocity.rule)?,
                        self.real(velocity, &format!("baseline.{}", v.rust_name))?
                    )
                }
                None => format!("{fp}.nearest_step({position})"),
            }));
        }
        match &field.ty {
            Type::Enum(name) => {
                let count = self
                    .body
                    .ir
                    .schema
                    .enums
                    .get(name)
                    .map(|e| e.enumerators.len() as u64)
                    .ok_or_else(|| CodegenError(format!("internal: no enum {name}")))?;
                Ok(Steps::Enum(base, count))
            }
            ty if ty.int_range().is_some() => Ok(Steps::Integer(base)),
            ty => Err(CodegenError(format!(
                "internal: DIFF on `{}`, {}",
                field.name,
                ty.describe()
            ))),
        }
    }

    /// The encoder's write of a DIFF field whose full write is `full`: the difference when a
    /// tier holds it, else the escape and `full`.
    pub(super) fn write_diff(
        &mut self,
        step: &FieldStep,
        plan: &DiffPlan,
        velocity: Option<&FieldStep>,
        full: &str,
    ) -> Result<String, CodegenError> {
        let (_, rust) = self.field(&step.field)?;
        let name = &rust.rust_name;
        let site = self.site(&step.field);
        let diff = diff_name(plan);
        let carried = self.body.local("carried");
        let mut out = String::new();
        let write = match self.diff_steps(step, velocity)? {
            Steps::Quantized(reference) => {
                format!("{diff}.write(w, q_{name}, {reference}, {carried})")
            }
            Steps::Integer(base) => format!(
                "{diff}.write_int(w, idlc::Int128(c_{name}), idlc::Int128({base}), {carried})"
            ),
            Steps::Enum(base, count) => {
                // What the full write refuses first: a value that is no enumerator.
                writeln!(
                    out,
                    "if (index_of(c_{name}) >= {count}u) {{\n\
                     return w.error(idlc::ErrorKind::BadEnumerator).in_field(\"{site}\");\n}}"
                )
                .unwrap();
                format!(
                    "{diff}.write_int(w, idlc::Int128(index_of(c_{name})), \
                     idlc::Int128(index_of({base})), {carried})"
                )
            }
        };
        Ok(format!(
            "{{\n{out}bool {carried} = false;\nIDLC_TRY(({write}.in_field(\"{site}\")));\n\
             if (!{carried}) {{\n{full}}}\n}}\n"
        ))
    }

    /// The decoder's read of a DIFF field into `state`: a tier's difference from the
    /// reference, or after the escape the field in full (`full`, into its place), which no tier
    /// may hold.
    pub(super) fn read_diff(
        &mut self,
        step: &FieldStep,
        plan: &DiffPlan,
        velocity: Option<&FieldStep>,
        full: &str,
    ) -> Result<String, CodegenError> {
        let (_, rust) = self.field(&step.field)?;
        let place = format!("state.{}", rust.rust_name);
        let site = self.site(&step.field);
        let named = |op: &str| format!("IDLC_TRY(({op}.in_field(\"{site}\")));\n");
        let diff = diff_name(plan);
        let start = self.body.local("start");
        let carried = self.body.local("carried");
        let head =
            format!("const std::uint64_t {start} = r.bits_read();\nbool {carried} = false;\n");
        let body = match self.diff_steps(step, velocity)? {
            Steps::Quantized(reference) => {
                let fp = quantizer(&step.rule)?;
                let (reference_local, step_local) =
                    (self.body.local("reference"), self.body.local("step"));
                format!(
                    "const std::uint64_t {reference_local} = {reference};\n\
                     std::uint64_t {step_local} = 0;\n{}if (!{carried}) {{\n{}{}}}\n\
                     {place} = static_cast<{}>({fp}.dequantize({step_local}));\n",
                    named(&format!(
                        "{diff}.read(r, {reference_local}, {carried}, {step_local})"
                    )),
                    named(&format!("idlc::read_quantized(r, {fp}, {step_local})")),
                    named(&format!(
                        "{diff}.check_escaped({step_local}, {reference_local}, {start})"
                    )),
                    super::super::types::cpp_type(&rust.ty)?,
                )
            }
            Steps::Integer(base) => format!(
                "{}if (!{carried}) {{\n{full}{}}}\n",
                named(&format!(
                    "{diff}.read_int(r, idlc::Int128({base}), {carried}, {place})"
                )),
                named(&format!(
                    "{diff}.check_escaped_int(idlc::Int128({place}), idlc::Int128({base}), {start})"
                )),
            ),
            Steps::Enum(base, _) => {
                let index = self.body.local("index");
                format!(
                    "std::uint64_t {index} = 0;\n{}if ({carried}) {{\n\
                     if (!from_index({index}, {place})) {{\n\
                     return r.error(idlc::ErrorKind::BadEnumerator).in_field(\"{site}\");\n}}\n\
                     }} else {{\n{full}{}}}\n",
                    named(&format!(
                        "{diff}.read_int(r, idlc::Int128(index_of({base})), {carried}, {index})"
                    )),
                    named(&format!(
                        "{diff}.check_escaped_int(idlc::Int128(index_of({place})), \
                         idlc::Int128(index_of({base})), {start})"
                    )),
                )
            }
        };
        Ok(format!("{{\n{head}{body}}}\n"))
    }
}
