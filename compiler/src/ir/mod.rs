//! The intermediate representation: plain, language-neutral data that codegen, check-compat and
//! report read. Nothing here refers to a syntax tree; every name is resolved, every number
//! computed.
//!
//! Maps are [`IndexMap`](indexmap::IndexMap)s in declaration order, so everything that
//! iterates the IR (and so the generated code) is deterministic.

pub mod cost;
pub mod delta_cost;
mod encoding;
mod mapping;
pub mod naming;
pub mod nesting;
pub mod plan;
pub mod protocol;
pub mod same_wire;
mod schema;

pub use encoding::*;
pub use mapping::*;
pub use schema::*;

use serde::Serialize;

use crate::diagnostics::FileId;
use crate::front::span::Span;

/// Where an IR item was declared, for diagnostics of later stages (check-compat). Not serialized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Loc {
    /// The file.
    pub file: FileId,
    /// The span inside it.
    pub span: Span,
}

impl Loc {
    /// A location in `file` at `span`.
    pub fn new(file: FileId, span: Span) -> Self {
        Loc { file, span }
    }
}

/// A whole compilation: the schema, its encodings, and the types of one side.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Ir {
    /// What is sent: types and protocols from the IDL files.
    pub schema: Schema,
    /// How it is sent: one entry per encoding name, in the order first given. Without an
    /// Encoding file there is one, named `Default`, with the built-in defaults.
    pub encodings: indexmap::IndexMap<String, Encoding>,
    /// Which Rust types the requested side uses.
    pub mapping: SideMapping,
    /// The wire plan of every encoding with the default options, made on first use
    /// ([`Ir::plans`]). The IR is not changed once built, so it stays true.
    #[serde(skip)]
    pub plan_cache: std::sync::OnceLock<indexmap::IndexMap<String, plan::EncodingPlan>>,
}

impl Ir {
    /// The wire plan of every encoding, by name ([`plan::plan`] with the default options), made
    /// once on first use.
    pub fn plans(&self) -> &indexmap::IndexMap<String, plan::EncodingPlan> {
        self.plan_cache
            .get_or_init(|| plan::plan(self, plan::PlanOptions::default()))
    }

    /// The wire plan of the encoding `name`.
    pub fn plan(&self, name: &str) -> Option<&plan::EncodingPlan> {
        self.plans().get(name)
    }
}

/// The number of bits needed to send any offset in `0..=max - min` (0 when min == max).
pub fn bits_required(min: i128, max: i128) -> u32 {
    match max.checked_sub(min) {
        Some(span) if span > 0 => 128 - span.leading_zeros(),
        Some(_) => 0,
        None => 129,
    }
}

#[cfg(test)]
mod tests {
    use super::bits_required;

    #[test]
    fn bits_required_edges() {
        assert_eq!(bits_required(5, 5), 0);
        assert_eq!(bits_required(0, 1), 1);
        assert_eq!(bits_required(0, 119), 7);
        assert_eq!(bits_required(0, 255), 8);
        assert_eq!(bits_required(0, 256), 9);
        assert_eq!(bits_required(i64::MIN.into(), i64::MAX.into()), 64);
        assert_eq!(bits_required(0, u64::MAX.into()), 64);
        assert_eq!(bits_required(-1, u64::MAX.into()), 65);
    }
}
