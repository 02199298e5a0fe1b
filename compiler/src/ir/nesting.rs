//! Which structs are held by others: queries on the IR that codegen and check-compat share.

use std::collections::{HashMap, HashSet};

use super::{Ir, Schema, StructDef, Type, WireItem, WireRule};

/// The structs a value of `ty` holds directly (itself a struct, or inside a SEQUENCE, ARRAY or
/// OPTIONAL of one).
fn held<'s>(ty: &'s Type, out: &mut impl Extend<&'s str>) {
    match ty {
        Type::Struct(name) => out.extend([name.as_str()]),
        Type::Sequence { element, .. } | Type::Array { element, .. } => held(element, out),
        Type::Optional(inner) => held(inner, out),
        _ => {}
    }
}

/// The structs `def` holds directly (as a field or an EXTEND's type, or inside a SEQUENCE, ARRAY
/// or OPTIONAL of one): those whose codecs its codec calls.
pub fn held_by(def: &StructDef) -> HashSet<&str> {
    let mut out = HashSet::new();
    for segment in &def.segments {
        for field in &segment.fields {
            held(&field.ty, &mut out);
        }
        for extend in &segment.extends {
            held(&extend.to, &mut out);
        }
    }
    out
}

/// The structs that hold themselves through their fields, however deep (inside SEQUENCEs, ARRAYs
/// and OPTIONALs too): those on a cycle of the "holds" graph. Tarjan's strongly connected
/// components, once for the whole schema (linear in it; a walk from every struct would be
/// quadratic on a long chain of structs).
pub fn recursive_structs(schema: &Schema) -> HashSet<&str> {
    let names: Vec<&str> = schema.structs.keys().map(String::as_str).collect();
    let index_of: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let edges: Vec<Vec<usize>> = schema
        .structs
        .values()
        .map(|def| {
            let mut out = Vec::new();
            for field in def.fields() {
                held(&field.ty, &mut out);
            }
            out.iter()
                .filter_map(|name| index_of.get(name).copied())
                .collect()
        })
        .collect();
    let mut tarjan = Tarjan::new(names.len());
    let mut recursive = HashSet::new();
    for root in 0..names.len() {
        for component in tarjan.components_from(root, &edges) {
            let cyclic = component.len() > 1 || component.iter().any(|&v| edges[v].contains(&v));
            if cyclic {
                recursive.extend(component.iter().map(|&v| names[v]));
            }
        }
    }
    recursive
}

/// Tarjan's strongly connected components over nodes `0..n`, without recursion (a chain of
/// thousands of structs must not exhaust the stack).
struct Tarjan {
    /// Each node's visit order, once visited.
    order: Vec<Option<usize>>,
    /// The lowest visit order reachable from each node's subtree.
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    visited: usize,
}

impl Tarjan {
    fn new(n: usize) -> Self {
        Tarjan {
            order: vec![None; n],
            low: vec![0; n],
            on_stack: vec![false; n],
            stack: Vec::new(),
            visited: 0,
        }
    }

    fn visit(&mut self, v: usize) {
        self.order[v] = Some(self.visited);
        self.low[v] = self.visited;
        self.visited += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
    }

    /// The components completed by a depth-first walk from `root` (none if it was visited).
    fn components_from(&mut self, root: usize, edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
        let mut components = Vec::new();
        if self.order[root].is_some() {
            return components;
        }
        self.visit(root);
        // The walk's path: each node with the index of its next edge.
        let mut path = vec![(root, 0usize)];
        while let Some(&(v, next)) = path.last() {
            if let Some(&w) = edges[v].get(next) {
                if let Some(top) = path.last_mut() {
                    top.1 += 1;
                }
                match self.order[w] {
                    None => {
                        self.visit(w);
                        path.push((w, 0));
                    }
                    Some(order) if self.on_stack[w] => self.low[v] = self.low[v].min(order),
                    Some(_) => {}
                }
                continue;
            }
            path.pop();
            if let Some(&(parent, _)) = path.last() {
                self.low[parent] = self.low[parent].min(self.low[v]);
            }
            if Some(self.low[v]) == self.order[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                components.push(component);
            }
        }
        components
    }
}

/// The structs held by another struct (as a field or an EXTEND's type, or inside a SEQUENCE,
/// ARRAY or OPTIONAL of one).
pub fn nested_structs(schema: &Schema) -> HashSet<&str> {
    schema.structs.values().flat_map(held_by).collect()
}

/// The nested structs (see [`nested_structs`]) that have a FENCE (segments after one, or an
/// open end): nested, their later segments travel in length-prefixed open extensions, so that
/// an older reader can skip them (WIRE.md, "Fences and versions").
pub fn nested_fenced_structs(schema: &Schema) -> HashSet<&str> {
    let mut out = nested_structs(schema);
    out.retain(|name| {
        schema
            .structs
            .get(*name)
            .is_some_and(|d| d.segments.len() > 1 || d.open_end)
    });
    out
}

/// The structs a rule sends, however it holds them (a SEQUENCE's, an ARRAY's, an OPTIONAL's).
fn structs_of<'r>(rule: &'r WireRule, out: &mut Vec<&'r str>) {
    match rule {
        WireRule::Struct(name) => out.push(name),
        WireRule::Sequence { element, .. } | WireRule::Array { element, .. } => {
            structs_of(element, out);
        }
        WireRule::Optional(inner) => structs_of(inner, out),
        _ => {}
    }
}

/// The structs a `DELTA SEQUENCE` compares as sent to decide which elements changed: its
/// element structs in any encoding, and every struct they hold, however deep.
pub fn compared_as_sent(ir: &Ir) -> HashSet<&str> {
    closed(ir, |items, out| delta_sequence_elements(items, out))
}

/// The structs a delta encoder compares part by part as sent with the baseline's: those of
/// [`compared_as_sent`], and those a field behind a changed-bit holds (a `DELTA` field or one in
/// a `DELTA` block, the struct itself or inside a SEQUENCE, ARRAY or OPTIONAL), in any encoding,
/// and every struct they hold, however deep.
pub fn compared_part_by_part(ir: &Ir) -> HashSet<&str> {
    closed(ir, |items, out| {
        delta_sequence_elements(items, out);
        behind_changed_bits(items, false, out);
    })
}

/// The element structs of the `DELTA SEQUENCE`s among `items` (in DELTA blocks too).
fn delta_sequence_elements<'i>(items: &'i [WireItem], out: &mut Vec<&'i str>) {
    for item in items {
        match item {
            WireItem::Field(field) => {
                if let WireRule::Sequence {
                    element_delta: true,
                    element,
                    ..
                } = &field.rule
                    && let WireRule::Struct(name) = &**element
                {
                    out.push(name);
                }
            }
            WireItem::DeltaBlock(inner) => delta_sequence_elements(inner, out),
            _ => {}
        }
    }
}

/// The structs the fields behind a changed-bit among `items` hold (`in_block`: inside a
/// `DELTA` block).
fn behind_changed_bits<'i>(items: &'i [WireItem], in_block: bool, out: &mut Vec<&'i str>) {
    for item in items {
        match item {
            WireItem::Field(field) if field.delta || in_block => structs_of(&field.rule, out),
            WireItem::DeltaBlock(inner) => behind_changed_bits(inner, true, out),
            _ => {}
        }
    }
}

/// The structs `roots` finds in the items of every encoding's structs, and every struct they
/// hold, however deep.
fn closed<'i>(ir: &'i Ir, roots: impl Fn(&'i [WireItem], &mut Vec<&'i str>)) -> HashSet<&'i str> {
    let mut pending = Vec::new();
    for layout in ir.encodings.values().flat_map(|e| e.structs.values()) {
        for segment in &layout.segments {
            roots(&segment.items, &mut pending);
        }
    }
    let mut found = HashSet::new();
    while let Some(name) = pending.pop() {
        if found.insert(name)
            && let Some(def) = ir.schema.structs.get(name)
        {
            for field in def.fields() {
                held(&field.ty, &mut pending);
            }
        }
    }
    found
}
