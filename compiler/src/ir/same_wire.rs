//! Which structs travel the same way in two encodings: the same plan in the same stream style,
//! and the same for every struct they hold, however deep. A consumer that writes code per
//! encoding writes it once and lets the later encodings use it (docs/ARCHITECTURE.md).

use std::collections::{HashMap, HashSet};

use indexmap::IndexMap;

use super::Ir;
use super::nesting::held_by;
use super::plan::EncodingPlan;

/// For each encoding and struct whose wire an earlier encoding already has: that encoding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SameWire {
    first: HashMap<(String, String), String>,
}

impl SameWire {
    /// Compares the plans of every pair of encodings (in the order given) struct by struct.
    pub fn of(ir: &Ir, plans: &IndexMap<String, EncodingPlan>) -> Self {
        let mut first = HashMap::new();
        let encodings: Vec<&EncodingPlan> = plans.values().collect();
        for (later_at, later) in encodings.iter().enumerate() {
            for earlier in &encodings[..later_at] {
                for name in same_in(ir, earlier, later) {
                    first
                        .entry((later.name.clone(), name.to_string()))
                        .or_insert_with(|| earlier.name.clone());
                }
            }
        }
        SameWire { first }
    }

    /// The first encoding before `encoding` in which `name` travels as in `encoding`, if any.
    /// Equality of wires is transitive, so that encoding has no earlier one of its own.
    pub fn first(&self, encoding: &str, name: &str) -> Option<&str> {
        self.first
            .get(&(encoding.to_string(), name.to_string()))
            .map(String::as_str)
    }
}

/// The structs whose wire is the same in `a` and `b`. A struct that holds itself is the same
/// when nothing it holds differs (the largest set closed under "holds only the same").
fn same_in<'i>(ir: &'i Ir, a: &EncodingPlan, b: &EncodingPlan) -> HashSet<&'i str> {
    if a.style != b.style {
        return HashSet::new();
    }
    let mut same: HashSet<&str> = ir
        .schema
        .structs
        .keys()
        .map(String::as_str)
        .filter(|name| matches!((a.structs.get(*name), b.structs.get(*name)), (Some(x), Some(y)) if x == y))
        .collect();
    loop {
        let differs: Vec<&str> = same
            .iter()
            .copied()
            .filter(|name| {
                held_by(&ir.schema.structs[*name]).into_iter().any(|held| {
                    !same.contains(held)
                        && (a.structs.contains_key(held) || b.structs.contains_key(held))
                })
            })
            .collect();
        if differs.is_empty() {
            return same;
        }
        for name in differs {
            same.remove(name);
        }
    }
}
