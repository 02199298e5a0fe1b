//! The tuner: the `DIFF` tiers that send a recorded trace in the fewest bits
//! (`idlc measure --delta --suggest`, docs/INTERPRETER.md).
//!
//! A consumer of the IR and of the interpreter. Every field of an encoding that can take DIFF
//! ([`tunable`]: a field with a baseline and a rule with steps) is measured once through a
//! *probe* IR in which each has DIFF ([`probe`]): the interpreter's delta encoder reports the
//! difference each sent value had to its reference and the bits of its full write
//! ([`crate::interpret::DiffSample`]). Tiers change neither which fields a delta sends nor the
//! state the receiver holds, so each field's bits are a function of its own samples and tiers:
//! [`search`] finds the best tiers of each field exactly. [`tuned`] is the IR with them, and
//! [`rewrite`] the Encoding file that says so.

pub mod link;
pub mod rewrite;
pub mod search;

use indexmap::IndexMap;

use crate::ir::{FieldEncoding, Ir, Loc, StructDef, StructKind, WireItem, WireRule};

/// A field of an encoding that can take DIFF.
#[derive(Debug, Clone, PartialEq)]
pub struct Tunable {
    /// The struct (a PUBLISHABLE_STRUCT).
    pub structure: String,
    /// The field's IDL name.
    pub field: String,
    /// Its steps' width in bits: the widest tier it may have.
    pub width: u32,
    /// Its tiers in the encoding as given; `None` without DIFF.
    pub tiers: Option<Vec<u32>>,
    /// Where a block of the Encoding files names it.
    pub loc: Option<Loc>,
}

impl Tunable {
    /// `Struct.field`.
    pub fn name(&self) -> String {
        format!("{}.{}", self.structure, self.field)
    }
}

/// Every field of `encoding` that can take DIFF, in schema and wire order: a field of a
/// PUBLISHABLE_STRUCT with its own `DELTA` (not an element-wise `DELTA SEQUENCE`), in a `DELTA`
/// block or in a `DEAD_RECKONING` block, whose rule has steps and which no later version
/// EXTENDs (what the resolver accepts DIFF on); not a `SMALLEST_THREE` quaternion, whose DIFF
/// is three components behind a same-index bit.
pub fn tunable(ir: &Ir, encoding: &str) -> Vec<Tunable> {
    let Some(encoding) = ir.encodings.get(encoding) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, layout) in &encoding.structs {
        let Some(def) = ir.schema.structs.get(name) else {
            continue;
        };
        if def.kind != StructKind::Publishable {
            continue;
        }
        for segment in &layout.segments {
            collect(def, &segment.items, false, &mut out);
        }
    }
    out
}

fn collect(def: &StructDef, items: &[WireItem], in_block: bool, out: &mut Vec<Tunable>) {
    for item in items {
        match item {
            WireItem::Field(f) if (in_block || f.delta) && !f.is_delta_sequence() => {
                out.extend(tunable_field(def, f));
            }
            WireItem::DeltaBlock(inner) => collect(def, inner, true, out),
            WireItem::DeadReckoning(dr) => {
                for f in dr.positions.iter().chain(&dr.velocities) {
                    out.extend(tunable_field(def, f));
                }
            }
            _ => {}
        }
    }
}

fn tunable_field(def: &StructDef, f: &FieldEncoding) -> Option<Tunable> {
    let field = def.fields().find(|field| field.name == f.field)?;
    let extended = def
        .segments
        .iter()
        .flat_map(|s| &s.extends)
        .any(|e| e.field == f.field);
    // A SMALLEST_THREE quaternion's DIFF is three components and a same-index bit, not one
    // difference: the search's model does not fit it, and its tiers stay as given.
    let quaternion = matches!(f.rule, WireRule::SmallestThree { .. });
    let steps = f
        .rule
        .diff_steps(&field.ty)
        .filter(|_| !extended && !quaternion)?;
    Some(Tunable {
        structure: def.name.clone(),
        field: f.field.clone(),
        width: steps.bits(),
        tiers: f.diff.clone(),
        loc: f.loc,
    })
}

/// `ir` with the tiers of `choices` (by struct, then field; `None`: no DIFF) in `encoding`;
/// every other field as it was. Its wire plan is made afresh.
pub fn tuned(
    ir: &Ir,
    encoding: &str,
    choices: &IndexMap<(String, String), Option<Vec<u32>>>,
) -> Ir {
    let mut out = Ir {
        schema: ir.schema.clone(),
        encodings: ir.encodings.clone(),
        mapping: ir.mapping.clone(),
        plan_cache: Default::default(),
    };
    if let Some(encoding) = out.encodings.get_mut(encoding) {
        for (name, layout) in &mut encoding.structs {
            for segment in &mut layout.segments {
                set_tiers(name, &mut segment.items, choices);
            }
        }
    }
    out
}

fn set_tiers(
    structure: &str,
    items: &mut [WireItem],
    choices: &IndexMap<(String, String), Option<Vec<u32>>>,
) {
    let mut set = |f: &mut FieldEncoding| {
        if let Some(tiers) = choices.get(&(structure.to_string(), f.field.clone())) {
            f.diff = tiers.clone();
        }
    };
    for item in items {
        match item {
            WireItem::Field(f) => set(f),
            WireItem::DeltaBlock(inner) => set_tiers(structure, inner, choices),
            WireItem::DeadReckoning(dr) => {
                dr.positions.iter_mut().for_each(&mut set);
                dr.velocities.iter_mut().for_each(&mut set);
            }
            _ => {}
        }
    }
}

/// The probe of `fields`: `ir` with DIFF on each of them (one tier of 1 bit; its samples do not
/// depend on the tiers), so that the interpreter reports their differences.
pub fn probe(ir: &Ir, encoding: &str, fields: &[Tunable]) -> Ir {
    let choices = fields
        .iter()
        .map(|t| ((t.structure.clone(), t.field.clone()), Some(vec![1])))
        .collect();
    tuned(ir, encoding, &choices)
}
