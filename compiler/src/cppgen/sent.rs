//! Values "as sent" (codegen/mirror.rs): which rules keep every value exactly, and how two
//! values compare once sent: a raw float by the bits it is sent as (−0.0 is not +0.0, a NaN is
//! the NaN of the same bits), a FIXED_POINT float as the baseline's value or the same step as
//! it (a baseline off the steps), containers and structs part by part, anything else with `==`.

use std::collections::HashSet;

use super::rules::{quantizer, real_input};
use super::unsupported;
use crate::codegen::CodegenError;
use crate::ir::plan::{Carries, EncodingPlan, FieldPlan, Step, StructPlan};
use crate::ir::{Ir, RustType, Type, WireRule};

/// What the comparisons of one encoding need: its plan and the C++ names.
pub(super) struct Sent<'a> {
    /// The IR.
    pub ir: &'a Ir,
    /// The encoding's plan.
    pub plan: &'a EncodingPlan,
    /// The encoding's tag struct.
    pub tag: &'a str,
}

impl Sent<'_> {
    /// Whether every value of C++ type `ty` survives `rule` exactly (then the value as sent is
    /// the value itself).
    pub fn is_lossless(&self, rule: &WireRule, ty: &RustType) -> bool {
        self.lossless(rule, ty, &mut HashSet::new())
    }

    fn lossless<'r>(
        &'r self,
        rule: &'r WireRule,
        ty: &RustType,
        seen: &mut HashSet<&'r str>,
    ) -> bool {
        let ty = match ty {
            RustType::Boxed(inner) => inner,
            other => other,
        };
        match rule {
            WireRule::FixedPoint { .. } | WireRule::SmallestThree { .. } => false,
            WireRule::Float32 => matches!(ty, RustType::F32),
            WireRule::Sequence { element, .. } | WireRule::Array { element, .. } => {
                self.lossless(element, element_of(ty), seen)
            }
            WireRule::Optional(inner) => self.lossless(inner, element_of(ty), seen),
            WireRule::Struct(name) => self.struct_lossless(name, seen),
            _ => true,
        }
    }

    fn struct_lossless<'r>(&'r self, name: &'r str, seen: &mut HashSet<&'r str>) -> bool {
        if !seen.insert(name) {
            return true;
        }
        let (Some(plan), Some(mapping)) = (
            self.plan.structs.get(name),
            self.ir.mapping.structs.get(name),
        ) else {
            return false;
        };
        plan.rules().all(|(field, rule)| {
            mapping
                .fields
                .get(field)
                .is_some_and(|f| self.lossless(rule, &f.ty, seen))
        })
    }

    /// A C++ `bool` expression: whether `a` and `b` (values of C++ type `ty`, IDL type `idl`,
    /// both as the receiver holds them) are the same once sent with `rule`.
    pub fn same(
        &self,
        rule: &WireRule,
        idl: &Type,
        ty: &RustType,
        a: &str,
        b: &str,
    ) -> Result<String, CodegenError> {
        Ok(match (rule, idl) {
            (WireRule::Float32, _) => format!(
                "idlc::f32_to_bits(static_cast<float>({a})) == idlc::f32_to_bits(static_cast<float>({b}))"
            ),
            (WireRule::Float64, _) => format!(
                "idlc::f64_to_bits(static_cast<double>({a})) == idlc::f64_to_bits(static_cast<double>({b}))"
            ),
            (WireRule::Quaternion, _) => format!("({a}).same_bits({b})"),
            // The baseline's value, or one off the steps that is sent as the same step.
            (WireRule::FixedPoint { min, max, .. }, _)
                if matches!(ty, RustType::F32 | RustType::F64) =>
            {
                let fp = quantizer(rule)?;
                format!(
                    "({a} == {b} || {fp}.sends_as({}, {fp}.nearest_step({})))",
                    real_input(*min, *max, ty, b),
                    real_input(*min, *max, ty, a)
                )
            }
            // The baseline's rotation, or one not as sent that is sent with the same code.
            (WireRule::SmallestThree { bits }, _) => {
                format!("({a} == {b} || idlc::SmallestThree{{{bits}}}.sends_as({b}, {a}))")
            }
            (
                WireRule::Sequence { element, .. } | WireRule::Array { element, .. },
                Type::Sequence {
                    element: element_idl,
                    ..
                }
                | Type::Array {
                    element: element_idl,
                    ..
                },
            ) => {
                let element_ty = element_of(ty);
                let inner = self.same(element, element_idl, element_ty, "x", "y")?;
                let plain = inner == "x == y";
                match ty {
                    RustType::Collection { .. } => format!(
                        "idlc::same_collections({a}, {b}, [&](const auto& x, const auto& y) {{ return {inner}; }})"
                    ),
                    _ if plain => format!("{a} == {b}"),
                    _ => format!(
                        "idlc::same_elements({a}, {b}, [&](const auto& x, const auto& y) {{ return {inner}; }})"
                    ),
                }
            }
            (WireRule::Optional(inner), Type::Optional(inner_idl)) => {
                let held = match element_of(ty) {
                    RustType::Boxed(held) => &**held,
                    other => other,
                };
                let inner = self.same(inner, inner_idl, held, "x", "y")?;
                format!(
                    "idlc::same_present({a}, {b}, [&](const auto& x, const auto& y) {{ return {inner}; }})"
                )
            }
            (WireRule::Struct(name), _) => {
                let cpp = self
                    .ir
                    .mapping
                    .structs
                    .get(name)
                    .map(|m| m.rust_name.as_str())
                    .ok_or_else(|| unsupported("a struct without a mapping"))?;
                format!("Codec<{cpp}, {}>::same_sent({a}, {b})", self.tag)
            }
            _ => format!("{a} == {b}"),
        })
    }

    /// [`Sent::same`] of a field's values: sent with its slot's rule, or, widened (EXTEND), as
    /// they are: a real by its bits, anything else as its last extension sends it whole.
    pub fn same_field(
        &self,
        plan: &StructPlan,
        field: &FieldPlan,
        ty: &RustType,
        a: &str,
        b: &str,
    ) -> Result<String, CodegenError> {
        if field.extends.is_empty() {
            let rule = field
                .rule
                .as_ref()
                .ok_or_else(|| CodegenError(format!("internal: no rule of {}", field.name)))?;
            return self.same(rule, &field.ty, ty, a, b);
        }
        if let Type::Float32 | Type::Float64 | Type::Numeric { .. } = field.current() {
            return Ok(format!(
                "idlc::f64_to_bits(static_cast<double>({a})) == idlc::f64_to_bits(static_cast<double>({b}))"
            ));
        }
        let whole = plan
            .rules()
            .filter(|(name, _)| *name == field.name)
            .last()
            .map(|(_, rule)| rule);
        match whole {
            Some(rule) if plan.segments.iter().flatten().any(|step| {
                matches!(step, Step::Extension(e) if e.field == field.name && matches!(e.carries, Carries::Whole { .. }))
            }) => self.same(rule, field.current(), ty, a, b),
            _ => Ok(format!("{a} == {b}")),
        }
    }
}

/// The element type of a container or OPTIONAL (the type itself for any other).
pub(super) fn element_of(ty: &RustType) -> &RustType {
    match ty {
        RustType::Vec(e)
        | RustType::Collection { element: e, .. }
        | RustType::Array(e, _)
        | RustType::Option(e) => e,
        other => other,
    }
}

/// Whether a C++ type holds a `std::unique_ptr` anywhere (a struct that holds itself through
/// an OPTIONAL): such a value is not copied, so it has no delta form yet.
pub(super) fn holds_boxed(ty: &RustType) -> bool {
    match ty {
        RustType::Boxed(_) => true,
        RustType::Vec(e)
        | RustType::Collection { element: e, .. }
        | RustType::Array(e, _)
        | RustType::Option(e) => holds_boxed(e),
        _ => false,
    }
}
