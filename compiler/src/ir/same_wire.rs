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
    /// By encoding, then by struct: the earlier encoding.
    first: HashMap<String, HashMap<String, String>>,
}

impl SameWire {
    /// Compares the plans of every pair of encodings (in the order given) struct by struct.
    pub fn of(ir: &Ir, plans: &IndexMap<String, EncodingPlan>) -> Self {
        let mut first: HashMap<String, HashMap<String, String>> = HashMap::new();
        let encodings: Vec<&EncodingPlan> = plans.values().collect();
        for (later_at, later) in encodings.iter().enumerate() {
            for earlier in &encodings[..later_at] {
                for name in same_in(ir, earlier, later) {
                    first
                        .entry(later.name.clone())
                        .or_default()
                        .entry(name.to_string())
                        .or_insert_with(|| earlier.name.clone());
                }
            }
        }
        SameWire { first }
    }

    /// The first encoding before `encoding` in which `name` travels as in `encoding`, if any.
    /// Equality of wires is transitive, so that encoding has no earlier one of its own.
    pub fn first(&self, encoding: &str, name: &str) -> Option<&str> {
        self.first.get(encoding)?.get(name).map(String::as_str)
    }
}

/// The structs whose wire is the same in `a` and `b`: the largest set of structs with equal
/// plans none of which holds a struct that differs (so a struct that holds itself is the same
/// when nothing else it holds differs). A difference climbs to every holder, once each.
fn same_in<'i>(ir: &'i Ir, a: &EncodingPlan, b: &EncodingPlan) -> HashSet<&'i str> {
    if a.style != b.style {
        return HashSet::new();
    }
    let mut holders: HashMap<&str, Vec<&str>> = HashMap::new();
    for (name, def) in &ir.schema.structs {
        for held in held_by(def) {
            holders.entry(held).or_default().push(name);
        }
    }
    let mut same = HashSet::new();
    let mut differ = Vec::new();
    for name in ir.schema.structs.keys() {
        match (a.structs.get(name), b.structs.get(name)) {
            (Some(x), Some(y)) if x == y => {
                same.insert(name.as_str());
            }
            (None, None) => {}
            _ => differ.push(name.as_str()),
        }
    }
    while let Some(name) = differ.pop() {
        for holder in holders.get(name).into_iter().flatten() {
            if same.remove(holder) {
                differ.push(holder);
            }
        }
    }
    same
}
