//! `DIFF(b1, ..., bk)` in the interpreter's delta form: a field's value as a step of its rule,
//! the reference it is sent against, and back (as generated code computes them,
//! codegen/delta/diff.rs; WIRE.md "Delta and dead reckoning").

use idlc_runtime::{DeadReckoningAxis, DeltaContext, Diff};
use indexmap::IndexMap;

use super::value::number;
use super::{Context, Value};
use crate::ir::Type;
use crate::ir::plan::{DiffPlan, FieldStep};

/// The runtime's `Diff` of a plan's DIFF.
pub(super) fn diff_of(plan: &DiffPlan) -> Diff<'_> {
    let steps = &plan.steps;
    Diff::new(&plan.tiers, steps.first, steps.last, steps.wraps).with_origin(steps.origin)
}

/// What a DIFF field's value is as an integer of its rule: an enumerator's index, an
/// integer's value; `None` for a FIXED_POINT field (its steps are its quantizer's) or a value
/// of the wrong shape.
fn integer(ctx: &Context<'_>, ty: &Type, value: &Value) -> Option<i128> {
    match (ty, value) {
        (Type::Enum(name), Value::Enum(enumerator) | Value::Str(enumerator)) => ctx
            .ir
            .schema
            .enums
            .get(name)?
            .enumerators
            .iter()
            .position(|e| e.name == *enumerator)
            .map(|i| i as i128),
        (_, Value::Int(v)) => Some(*v),
        _ => None,
    }
}

/// The step the encoder sends for `value` (a value as sent): `Ok(None)` when it is none of
/// the rule's steps (the field's full write gives the error), `Err` when the value has the
/// wrong shape.
pub(super) fn step_of(
    ctx: &Context<'_>,
    field: &FieldStep,
    ty: &Type,
    value: &Value,
) -> Result<Option<u64>, String> {
    let Some(plan) = field.diff.as_ref() else {
        return Ok(None);
    };
    let shape = || format!("`{}`: {} for DIFF", field.field, expected(ty));
    match field.rule.fixed_point() {
        Some(fp) => Ok(fp.quantize(number(value).ok_or_else(shape)?).ok()),
        None => Ok(diff_of(plan).step(integer(ctx, ty, value).ok_or_else(shape)?)),
    }
}

/// What a DIFF field's value must be, for a message.
fn expected(ty: &Type) -> &'static str {
    match ty {
        Type::Enum(_) => "expected an enumerator",
        Type::Numeric { .. } => "expected a number",
        _ => "expected an integer",
    }
}

/// The reference of a DIFF field: the baseline's value as a step (the nearest one), or for a
/// dead-reckoning position (`velocity` given) the extrapolation from the baseline.
pub(super) fn reference(
    ctx: &Context<'_>,
    field: &FieldStep,
    ty: &Type,
    velocity: Option<&FieldStep>,
    base: &IndexMap<String, Value>,
    dctx: &DeltaContext,
) -> Option<u64> {
    let plan = field.diff.as_ref()?;
    let value = base.get(&field.field)?;
    match (field.rule.fixed_point(), velocity) {
        (Some(fp), Some(velocity)) => {
            let v_fp = velocity.rule.fixed_point()?;
            let v = number(base.get(&velocity.field)?)?;
            Some(DeadReckoningAxis::new(fp, v_fp).extrapolate_from(number(value)?, v, dctx))
        }
        (Some(fp), None) => number(value).map(|v| fp.nearest_step(v)),
        (None, _) => integer(ctx, ty, value).map(|v| diff_of(plan).reference(v)),
    }
}

/// The value a step stands for, as the decoder gives it: a FIXED_POINT's dequantized real, an
/// integer, an enumerator (`None` past the last).
pub(super) fn value_of(
    ctx: &Context<'_>,
    field: &FieldStep,
    ty: &Type,
    step: u64,
) -> Option<Value> {
    let plan = field.diff.as_ref()?;
    if let Some(fp) = field.rule.fixed_point() {
        return Some(Value::Float(fp.dequantize(step)));
    }
    let v = diff_of(plan).value(step);
    match ty {
        Type::Enum(name) => {
            let index = usize::try_from(v).ok()?;
            let e = ctx.ir.schema.enums.get(name)?.enumerators.get(index)?;
            Some(Value::Enum(e.name.clone()))
        }
        _ => Some(Value::Int(v)),
    }
}
