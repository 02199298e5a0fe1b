//! `DELTA DIFF(b1, ..., bk) SMALLEST_THREE(n)` in the C++ delta form, the twin of
//! codegen/delta/quat.rs: the same-index bit, then the three components as tiered differences
//! to the baseline's code (the header's `idlc::Diff` of one component's steps), or the whole
//! code (`idlc::SmallestThree::write_diff` and `read_diff`).

use super::Gen;
use super::diff::diff_name;
use crate::codegen::CodegenError;
use crate::ir::plan::{DiffPlan, FieldStep};

/// Which side of the DIFF form.
#[derive(Clone, Copy)]
pub(super) enum Side {
    /// The encoder: writes the candidate `c_f`.
    Write,
    /// The decoder: reads into `state.f`.
    Read,
}

impl Gen<'_> {
    /// The encoder's write of the field's candidate, or the decoder's read into `state`,
    /// against the baseline's code.
    pub(super) fn quaternion_diff(
        &self,
        step: &FieldStep,
        plan: &DiffPlan,
        bits: u32,
        side: Side,
    ) -> Result<String, CodegenError> {
        let (_, rust) = self.field(&step.field)?;
        let name = &rust.rust_name;
        let diff = diff_name(plan);
        let call = match side {
            Side::Write => {
                format!("rule.write_diff(w, {diff}, c_{name}, has_reference, reference)")
            }
            Side::Read => {
                format!("rule.read_diff(r, {diff}, has_reference, reference, state.{name})")
            }
        };
        Ok(format!(
            "{{\nconst idlc::SmallestThree rule{{{bits}u}};\nidlc::SmallestThreeCode reference;\n\
             const bool has_reference = rule.reference(baseline.{name}, reference);\n\
             IDLC_TRY(({call}.in_field(\"{}\")));\n}}\n",
            self.site(&step.field)
        ))
    }
}
