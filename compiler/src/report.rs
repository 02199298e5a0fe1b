//! `idlc report`: what every field of every struct costs on the wire, per encoding.
//!
//! [`report`] computes the tables as data (tests check the numbers); [`render`] prints them.
//! The rows are the full (non-delta) form that `to_bytes` sends: DELTA blocks and
//! DEAD_RECKONING fields with their rules and no changed-bits, a present bit before every
//! segment after a FENCE, one more for an open end (a struct whose IDL ends with a FENCE). A
//! PUBLISHABLE_STRUCT also gets its delta form's cost (`encode_delta`): nothing changed, each
//! unit of a changed-bit alone, everything.

use std::fmt::Write as _;

use serde::Serialize;

pub use crate::ir::cost::Cost;
use crate::ir::cost::{self, CHECK_BITS};
pub use crate::ir::delta_cost::{DeltaCost, DeltaUnit, UnitKind};
use crate::ir::plan::{DeltaStep, ExtensionStep, FieldStep, Step};
use crate::ir::{Encoding, Ir, StructDef, StructKind, Style, WireRule};

/// The cost table of one struct in one encoding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructReport {
    /// The struct's IDL name.
    pub name: String,
    /// What kind of struct.
    pub kind: StructKind,
    /// The encoding's name.
    pub encoding: String,
    /// The encoding's style.
    pub style: Style,
    /// One row per thing on the wire, in wire order.
    pub rows: Vec<Row>,
    /// The whole struct.
    pub total: Cost,
    /// A PUBLISHABLE_STRUCT's delta form: nothing changed, one unit changed, the worst case.
    pub delta: Option<DeltaCost>,
}

impl StructReport {
    /// The row of the field `name` (its old slot, not an EXTEND's extension).
    pub fn field(&self, name: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.kind == RowKind::Field && r.name == name)
    }
}

/// What a row stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RowKind {
    /// A field.
    Field,
    /// The extension of an `EXTEND f TO T` (the row's name is the field's).
    Extend,
    /// The present bit before a segment after a FENCE.
    Present,
    /// The present bit of an open end (the struct's IDL ends with a FENCE).
    OpenEnd,
    /// An ALIGN.
    Align,
    /// A CHECK marker.
    Check,
}

/// One line of a table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The field's name, or what the row is (`(FENCE 1)`, `(open end)`, `(ALIGN)`, `(CHECK)`).
    pub name: String,
    /// What the row stands for.
    pub kind: RowKind,
    /// The segment (0 before the first FENCE).
    pub segment: usize,
    /// The IDL type (for an EXTEND, the type it widens to); empty for markers.
    pub ty: String,
    /// The wire rule, written as in an Encoding file: `FIXED_POINT(0.01)`, `VLQ(7)`, `BIT(2)`.
    pub rule: String,
    /// The bits it takes.
    pub cost: Cost,
    /// `DELTA` (in a DELTA block or with its own changed-bit, which the full form does not
    /// send), `DEAD_RECKONING position` / `velocity`, or empty.
    pub note: String,
}

/// Every struct of `ir` in every encoding, encodings in order, structs in schema order.
pub fn report(ir: &Ir) -> Vec<StructReport> {
    let mut out = Vec::new();
    for encoding in ir.encodings.values() {
        for def in ir.schema.structs.values() {
            out.extend(struct_report(ir, encoding, def));
        }
    }
    out
}

/// The table of `def` in `encoding`; `None` when the encoding does not lay it out.
pub fn struct_report(ir: &Ir, encoding: &Encoding, def: &StructDef) -> Option<StructReport> {
    let plan = ir.plan(&encoding.name)?.structs.get(&def.name)?;
    let presence = Cost::fixed(cost::presence_bits(encoding.style));
    let mut rows = Vec::new();
    for segment in 0..plan.segments.len() {
        if segment > 0 {
            rows.push(marker(
                format!("(FENCE {segment})"),
                RowKind::Present,
                segment,
                "present bit",
                presence,
            ));
        }
        let mut builder = Rows {
            ir,
            encoding,
            def,
            segment,
            rows: &mut rows,
        };
        // The delta form's steps say which fields are grouped how (the notes); the full form
        // sends the same fields in the same order.
        match plan.delta.as_ref().and_then(|delta| delta.get(segment)) {
            Some(steps) => steps.iter().for_each(|step| builder.delta_step(step, "")),
            None => plan.segments[segment]
                .iter()
                .for_each(|step| builder.step(step)),
        }
    }
    if plan.open_end {
        let segment = plan.segments.len().saturating_sub(1);
        rows.push(marker(
            "(open end)".into(),
            RowKind::OpenEnd,
            segment,
            "present bit",
            presence,
        ));
    }
    let total = cost::struct_cost(ir, encoding, &def.name)?;
    Some(StructReport {
        name: def.name.clone(),
        kind: def.kind,
        encoding: encoding.name.clone(),
        style: encoding.style,
        rows,
        total,
        delta: crate::ir::delta_cost::delta_cost(ir, encoding, &def.name),
    })
}

fn marker(name: String, kind: RowKind, segment: usize, rule: &str, cost: Cost) -> Row {
    Row {
        name,
        kind,
        segment,
        ty: String::new(),
        rule: rule.into(),
        cost,
        note: String::new(),
    }
}

struct Rows<'a, 'r> {
    ir: &'a Ir,
    encoding: &'a Encoding,
    def: &'a StructDef,
    segment: usize,
    rows: &'r mut Vec<Row>,
}

impl Rows<'_, '_> {
    fn step(&mut self, step: &Step) {
        match step {
            Step::Field(f) => self.field(f, ""),
            Step::Packed { fields, .. } => fields.iter().for_each(|f| self.field(f, "")),
            Step::Extension(e) => self.extension(e, ""),
            Step::Align => self.align(),
            Step::Check => self.check(),
        }
    }

    fn delta_step(&mut self, step: &DeltaStep, note: &str) {
        match step {
            DeltaStep::Field(f) => self.field(f, note),
            DeltaStep::Changed(f) | DeltaStep::Sequence { field: f, .. } => {
                let note = if note.contains("DELTA") {
                    note.to_string()
                } else {
                    join_note(note, "DELTA")
                };
                self.field(f, &note);
            }
            DeltaStep::Block(steps) => {
                for inner in steps {
                    self.delta_step(inner, &join_note(note, "DELTA"));
                }
            }
            DeltaStep::DeadReckoning { axes, .. } => {
                for (position, _) in axes {
                    self.field(position, &join_note(note, "DEAD_RECKONING position"));
                }
                for (_, velocity) in axes {
                    self.field(velocity, &join_note(note, "DEAD_RECKONING velocity"));
                }
            }
            DeltaStep::Extension(e) => self.extension(e, note),
            DeltaStep::Align => self.align(),
            DeltaStep::Check => self.check(),
        }
    }

    fn extension(&mut self, e: &ExtensionStep, note: &str) {
        let rule = e.rule();
        self.rows.push(Row {
            name: e.field.clone(),
            kind: RowKind::Extend,
            segment: self.segment,
            ty: e.to.describe(),
            rule: describe_rule(&rule),
            cost: cost::cost(self.ir, self.encoding, &rule),
            note: join_note(note, "EXTEND"),
        });
    }

    fn align(&mut self) {
        self.rows.push(marker(
            "(ALIGN)".into(),
            RowKind::Align,
            self.segment,
            "ALIGN",
            cost::align_cost(self.encoding.style),
        ));
    }

    fn check(&mut self) {
        self.rows.push(marker(
            "(CHECK)".into(),
            RowKind::Check,
            self.segment,
            "CHECK",
            Cost::fixed(CHECK_BITS),
        ));
    }

    fn field(&mut self, f: &FieldStep, note: &str) {
        let note = match &f.diff {
            Some(diff) => {
                let tiers: Vec<String> = diff.tiers.iter().map(u32::to_string).collect();
                join_note(note, &format!("DIFF({})", tiers.join(", ")))
            }
            None => note.to_string(),
        };
        self.rows.push(Row {
            name: f.field.clone(),
            kind: RowKind::Field,
            segment: self.segment,
            ty: self
                .def
                .field(&f.field)
                .map(|(_, field)| field.ty.describe())
                .unwrap_or_default(),
            rule: describe_rule(&f.rule),
            cost: cost::cost(self.ir, self.encoding, &f.rule),
            note,
        });
    }
}

fn join_note(outer: &str, inner: &str) -> String {
    if outer.is_empty() {
        inner.to_string()
    } else {
        format!("{outer}, {inner}")
    }
}

/// A wire rule as an Encoding file would write it: `BIT(2)`, `VLQ(7)`, `FIXED_POINT(0.01)`,
/// `UINT16`, `FLOAT64`, `SEQUENCE count VLQ(7) of Item`.
pub fn describe_rule(rule: &WireRule) -> String {
    match rule {
        WireRule::Bool { bits: 1 } => "BOOL".into(),
        WireRule::Bool { bits }
        | WireRule::Ranged { bits, .. }
        | WireRule::EnumIndex { bits, .. } => format!("BIT({bits})"),
        WireRule::Fixed { bits, signed } => match (signed, bits) {
            (false, 8 | 16 | 32 | 64) => format!("UINT{bits}"),
            (true, 8 | 16 | 32 | 64) => format!("INT{bits}"),
            (false, _) => format!("BIT({bits})"),
            (true, _) => format!("BIT({bits}) signed"),
        },
        WireRule::Vlq { group_bits, .. } => format!("VLQ({group_bits})"),
        WireRule::Huffman { .. } => "HUFFMAN".into(),
        WireRule::FixedPoint { resolution, .. } => {
            format!("FIXED_POINT({})", crate::ir::real_text(*resolution))
        }
        WireRule::Float32 => "FLOAT32".into(),
        WireRule::Float64 => "FLOAT64".into(),
        WireRule::Quaternion => "4 x FLOAT32".into(),
        WireRule::SmallestThree { bits } => format!("SMALLEST_THREE({bits})"),
        WireRule::Bytes { length, utf8, .. } => format!(
            "{} length {}",
            if *utf8 { "STRING" } else { "BYTES" },
            describe_rule(length)
        ),
        WireRule::Sequence { count, element, .. } => format!(
            "SEQUENCE count {} of {}",
            describe_rule(count),
            describe_rule(element)
        ),
        WireRule::Array { len, element } => format!("ARRAY {len} of {}", describe_rule(element)),
        WireRule::Optional(inner) => format!("OPTIONAL {}", describe_rule(inner)),
        WireRule::Struct(name) => name.clone(),
    }
}

/// The tables as text: per struct and encoding a heading, one line per row (field, type, rule,
/// bits, note), and the total in bits and whole bytes.
pub fn render(reports: &[StructReport]) -> String {
    let mut out = String::new();
    for (index, report) in reports.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        render_one(&mut out, report);
    }
    out
}

fn render_one(out: &mut String, report: &StructReport) {
    let style = match report.style {
        Style::Bitstream => "BITSTREAM",
        Style::Bytestream => "BYTESTREAM",
    };
    let _ = writeln!(
        out,
        "{} (encoding {}, {style})",
        report.name, report.encoding
    );
    let header = ["field", "type", "rule", "bits", "note"];
    let mut lines: Vec<[String; 5]> = vec![header.map(String::from)];
    for row in &report.rows {
        lines.push([
            row.name.clone(),
            row.ty.clone(),
            row.rule.clone(),
            row.cost.to_string(),
            row.note.clone(),
        ]);
    }
    lines.push([
        "total".into(),
        String::new(),
        String::new(),
        report.total.to_string(),
        bytes(report.total),
    ]);

    let mut widths = [0usize; 5];
    for line in &lines {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for line in &lines {
        let mut text = String::from("  ");
        for (i, (cell, width)) in line.iter().zip(widths).enumerate() {
            if i + 1 == line.len() {
                text.push_str(cell);
            } else {
                let _ = write!(text, "{cell:<width$}  ");
            }
        }
        let _ = writeln!(out, "{}", text.trim_end());
    }
    if let Some(delta) = &report.delta {
        render_delta(out, delta);
    }
}

/// `1 byte`, `14 bytes`, `2..4 bytes`: `cost` in whole bytes.
fn bytes(cost: Cost) -> String {
    let bytes = cost.bytes();
    if bytes == Cost::fixed(1) {
        "1 byte".into()
    } else {
        format!("{bytes} bytes")
    }
}

/// The delta part of a PUBLISHABLE_STRUCT's table: one line per case, bits and bytes.
fn render_delta(out: &mut String, delta: &DeltaCost) {
    let _ = writeln!(out, "  delta against a baseline (encode_delta):");
    let mut lines = vec![("nothing changed".to_string(), delta.unchanged)];
    for unit in &delta.units {
        let what = match unit.kind {
            UnitKind::Field => "DELTA",
            UnitKind::Block => "DELTA block",
            UnitKind::DeadReckoning => "DEAD_RECKONING",
            UnitKind::Sequence => "DELTA SEQUENCE, one element",
        };
        lines.push((
            format!("only {} ({what})", unit.fields.join(", ")),
            unit.cost,
        ));
    }
    lines.push(("everything".to_string(), delta.worst));
    let width = lines.iter().map(|(what, _)| what.chars().count()).max();
    let bits = lines.iter().map(|(_, c)| c.to_string().len()).max();
    let (width, bits) = (width.unwrap_or(0), bits.unwrap_or(0));
    for (what, cost) in lines {
        let _ = writeln!(
            out,
            "    {what:<width$}  {:>bits$} bits  {}",
            cost.to_string(),
            bytes(cost)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::MemoryFs;
    use crate::{Inputs, compile_with};

    /// Compiles `idl` (and `enc`, if any) from memory; panics on errors.
    fn build(idl: &str, enc: Option<&str>) -> Ir {
        let mut fs = MemoryFs::new().with("t.idl", idl);
        let mut inputs = Inputs {
            idl: vec!["t.idl".into()],
            ..Inputs::default()
        };
        if let Some(enc) = enc {
            fs.insert("t.enc", enc);
            inputs.encodings.push("t.enc".into());
        }
        let compilation = compile_with(&inputs, &fs).expect("the files are in memory");
        assert!(
            !compilation.has_errors(),
            "{}",
            compilation.sources.render_plain(&compilation.diagnostics)
        );
        compilation.ir
    }

    fn find<'a>(reports: &'a [StructReport], name: &str) -> &'a StructReport {
        reports
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no report of {name}"))
    }

    fn field_cost(report: &StructReport, name: &str) -> Cost {
        report
            .field(name)
            .unwrap_or_else(|| panic!("no field {name}"))
            .cost
    }

    #[test]
    fn cost_display() {
        assert_eq!(Cost::fixed(21).to_string(), "21");
        assert_eq!(Cost::range(8, 24).to_string(), "8..24");
        assert_eq!(Cost::unbounded(8).to_string(), "8..");
        assert_eq!(Cost::range(9, 17).bytes(), Cost::range(2, 3));
        assert_eq!(Cost::unbounded(9).bytes(), Cost::unbounded(2));
        assert_eq!(Cost::fixed(3) + Cost::unbounded(1), Cost::unbounded(4));
        assert_eq!(Cost::unbounded(5).times(0), Cost::ZERO);
        assert_eq!(Cost::range(1, 2).times(3), Cost::range(3, 6));
    }

    #[test]
    fn vlq_ranges() {
        let ir = build(
            "STRUCT A { UINT16 a; INT[0,119] b; INT[0,100] c; INT32 d; UINT64 e; }",
            Some("ENCODING(E) STRUCT A { VLQ a; VLQ b; VLQ(3) c; VLQ d; VLQ e; }"),
        );
        let reports = report(&ir);
        let a = find(&reports, "A");
        assert_eq!(a.encoding, "E");
        assert_eq!(field_cost(a, "a"), Cost::range(8, 24));
        assert_eq!(field_cost(a, "b"), Cost::fixed(8));
        assert_eq!(field_cost(a, "c"), Cost::range(4, 12));
        assert_eq!(field_cost(a, "d"), Cost::range(8, 40));
        assert_eq!(field_cost(a, "e"), Cost::range(8, 80));
        assert_eq!(a.field("a").unwrap().rule, "VLQ(7)");
        assert_eq!(a.field("c").unwrap().rule, "VLQ(3)");
        assert_eq!(a.total, Cost::range(36, 164));
    }

    #[test]
    fn built_in_widths() {
        let ir = build(
            "ENUM E { A, B, C } STRUCT S { BOOL b; UINT16 u; INT8 i; FLOAT32 f; NUMERIC[0,1] n; \
             E e; INT[-5,5] r; ARRAY<UINT8,3> arr; }",
            None,
        );
        let reports = report(&ir);
        let s = find(&reports, "S");
        assert_eq!(s.encoding, "Default");
        let rules: Vec<(&str, &str, Cost)> = s
            .rows
            .iter()
            .map(|r| (r.name.as_str(), r.rule.as_str(), r.cost))
            .collect();
        assert_eq!(
            rules,
            [
                ("b", "BOOL", Cost::fixed(1)),
                ("u", "UINT16", Cost::fixed(16)),
                ("i", "INT8", Cost::fixed(8)),
                ("f", "FLOAT32", Cost::fixed(32)),
                ("n", "FLOAT64", Cost::fixed(64)),
                ("e", "BIT(2)", Cost::fixed(2)),
                ("r", "BIT(4)", Cost::fixed(4)),
                ("arr", "ARRAY 3 of UINT8", Cost::fixed(24)),
            ]
        );
        assert_eq!(s.total, Cost::fixed(151));
        assert_eq!(s.total.bytes(), Cost::fixed(19));
    }

    #[test]
    fn sequences_bounded_and_unbounded() {
        let ir = build(
            "STRUCT S { SEQUENCE<UINT8,10> bounded; SEQUENCE<UINT8> unbounded; \
             SEQUENCE<STRING,2> strings; }",
            None,
        );
        let reports = report(&ir);
        let s = find(&reports, "S");
        // count in bits_required(0, 10) = 4 bits, then up to 10 bytes.
        assert_eq!(field_cost(s, "bounded"), Cost::range(4, 84));
        assert_eq!(
            s.field("bounded").unwrap().rule,
            "SEQUENCE count BIT(4) of UINT8"
        );
        assert_eq!(field_cost(s, "unbounded"), Cost::unbounded(8));
        assert_eq!(
            s.field("unbounded").unwrap().rule,
            "SEQUENCE count VLQ(7) of UINT8"
        );
        // Bounded count, unbounded elements: no most.
        assert_eq!(field_cost(s, "strings"), Cost::unbounded(2));
        assert_eq!(s.total, Cost::unbounded(14));
        assert_eq!(s.total.to_string(), "14..");
    }

    #[test]
    fn strings_and_bytes_carry_alignment() {
        let ir = build(
            "STRUCT S { STRING<4> s; BYTES b; }",
            Some("ENCODING(B) BYTESTREAM;"),
        );
        let reports = report(&ir);
        let s = find(&reports, "S");
        assert_eq!(s.style, Style::Bytestream);
        // BYTESTREAM: a one-byte length, no padding, up to 4 bytes.
        assert_eq!(field_cost(s, "s"), Cost::range(8, 40));
        assert_eq!(s.field("s").unwrap().rule, "STRING length BIT(8)");
        assert_eq!(field_cost(s, "b"), Cost::unbounded(8));

        let ir = build("STRUCT S { STRING<4> s; }", None);
        let s = find(&report(&ir), "S").clone();
        // BITSTREAM: 3-bit length, 0..7 bits of ALIGN, up to 32 bits.
        assert_eq!(field_cost(&s, "s"), Cost::range(3, 42));
    }

    #[test]
    fn optional_costs_its_presence_bit() {
        let ir = build("STRUCT S { OPTIONAL<UINT16> o; OPTIONAL<STRING> t; }", None);
        let reports = report(&ir);
        let s = find(&reports, "S");
        assert_eq!(field_cost(s, "o"), Cost::range(1, 17));
        assert_eq!(s.field("o").unwrap().rule, "OPTIONAL UINT16");
        assert_eq!(field_cost(s, "t"), Cost::unbounded(1));

        let ir = build(
            "STRUCT S { OPTIONAL<UINT16> o; BOOL b; }",
            Some("ENCODING(B) BYTESTREAM;"),
        );
        let s = find(&report(&ir), "S").clone();
        assert_eq!(field_cost(&s, "o"), Cost::range(8, 24));
        assert_eq!(field_cost(&s, "b"), Cost::fixed(8));
    }

    #[test]
    fn present_bits_of_segments_and_open_end() {
        let ir = build(
            "STRUCT A { UINT8 a; FENCE UINT8 b DEFAULT = 1; FENCE }\n\
             STRUCT B { A inner; UINT16 c; }",
            None,
        );
        let reports = report(&ir);
        let a = find(&reports, "A");
        let rows: Vec<(&str, RowKind, usize, Cost)> = a
            .rows
            .iter()
            .map(|r| (r.name.as_str(), r.kind, r.segment, r.cost))
            .collect();
        assert_eq!(
            rows,
            [
                ("a", RowKind::Field, 0, Cost::fixed(8)),
                ("(FENCE 1)", RowKind::Present, 1, Cost::fixed(1)),
                ("b", RowKind::Field, 1, Cost::fixed(8)),
                ("(open end)", RowKind::OpenEnd, 1, Cost::fixed(1)),
            ]
        );
        assert_eq!(a.total, Cost::fixed(18));
        let b = find(&reports, "B");
        assert_eq!(field_cost(b, "inner"), Cost::fixed(18));
        assert_eq!(b.field("inner").unwrap().rule, "A");
        assert_eq!(b.total, Cost::fixed(34));
    }

    #[test]
    fn extend_rows_carry_the_extension() {
        let ir = build("STRUCT A { UINT16 id; FENCE EXTEND id TO UINT32; }", None);
        let reports = report(&ir);
        let a = find(&reports, "A");
        let extend = a.rows.iter().find(|r| r.kind == RowKind::Extend).unwrap();
        assert_eq!(extend.name, "id");
        assert_eq!(extend.ty, "UINT32");
        assert_eq!(extend.cost, Cost::fixed(16));
        assert_eq!(a.total, Cost::fixed(33));
    }

    #[test]
    fn recursion_is_unbounded_not_infinite() {
        let ir = build(
            "STRUCT Node { UINT8 v; OPTIONAL<Node> next; SEQUENCE<Node,4> children; }\n\
             STRUCT Tree { Node root; }",
            None,
        );
        let reports = report(&ir);
        let node = find(&reports, "Node");
        assert_eq!(field_cost(node, "next"), Cost::unbounded(1));
        assert_eq!(field_cost(node, "children"), Cost::unbounded(3));
        assert_eq!(node.total, Cost::unbounded(12));
        assert_eq!(find(&reports, "Tree").total, Cost::unbounded(12));
    }

    #[test]
    fn diff_costs_its_tiers_up_to_the_escape() {
        let ir = build(
            "PUBLISHABLE_STRUCT P { NUMERIC[0,10] x; NUMERIC[-1,1] vx; INT[0,1000] hp; }",
            Some(
                "ENCODING(E) PUBLISHABLE_STRUCT P {\n\
                 DEAD_RECKONING(0.5) { DIFF(2, 5) FIXED_POINT(0.01) x; DIFF(1) FIXED_POINT(0.01) vx; }\n\
                 DELTA DIFF(4) hp;\n}\n\
                 ENCODING(B) BYTESTREAM;\n\
                 ENCODING(B) PUBLISHABLE_STRUCT P { DELTA DIFF(4, 9) hp; }",
            ),
        );
        let reports = report(&ir);
        let p = reports
            .iter()
            .find(|r| r.name == "P" && r.encoding == "E")
            .unwrap();
        assert_eq!(
            p.field("x").unwrap().note,
            "DEAD_RECKONING position, DIFF(2, 5)"
        );
        assert_eq!(p.field("hp").unwrap().note, "DELTA, DIFF(4)");
        let delta = p.delta.as_ref().unwrap();
        // x: "0" + 2 bits .. the escape "11" + 10 bits; vx: "0" + 1 .. "1" + 8 bits.
        assert_eq!(delta.units[0].cost, Cost::range(2 + 3 + 2, 2 + 12 + 9));
        // hp: "0" + 4 bits .. "1" + 10 bits.
        assert_eq!(delta.units[1].cost, Cost::range(2 + 5, 2 + 11));
        // A BYTESTREAM: x and vx in full (two FLOAT64s), hp's changed byte, a selector byte,
        // then 1 or 2 bytes, or the escape and 2 bytes.
        let b = reports
            .iter()
            .find(|r| r.name == "P" && r.encoding == "B")
            .unwrap();
        let delta = b.delta.as_ref().unwrap();
        assert_eq!(
            delta.units[0].cost,
            Cost::range(128 + 8 + 8 + 8, 128 + 8 + 8 + 16)
        );
    }

    #[test]
    fn delta_and_dead_reckoning_cost_no_changed_bits() {
        let ir = build(
            "PUBLISHABLE_STRUCT P { NUMERIC[0,10] x; NUMERIC[-1,1] vx; UINT8 hp; BOOL on; }",
            Some(
                "ENCODING(E) PUBLISHABLE_STRUCT P {\n\
                 DEAD_RECKONING(0.5) { FIXED_POINT(0.01) x; FIXED_POINT(0.01) vx; }\n\
                 DELTA { UINT8 hp; }\n\
                 DELTA on;\n}",
            ),
        );
        let reports = report(&ir);
        let p = find(&reports, "P");
        assert_eq!(field_cost(p, "x"), Cost::fixed(10));
        assert_eq!(field_cost(p, "vx"), Cost::fixed(8));
        assert_eq!(p.field("x").unwrap().note, "DEAD_RECKONING position");
        assert_eq!(p.field("vx").unwrap().note, "DEAD_RECKONING velocity");
        assert_eq!(p.field("hp").unwrap().note, "DELTA");
        assert_eq!(p.field("on").unwrap().note, "DELTA");
        assert_eq!(p.total, Cost::fixed(27));

        // Three changed-bits (dead reckoning, the block, `on`) when nothing changed.
        let delta = p
            .delta
            .as_ref()
            .expect("a publishable struct has a delta form");
        assert_eq!(delta.unchanged, Cost::fixed(3));
        let units: Vec<(Vec<&str>, UnitKind, Cost)> = delta
            .units
            .iter()
            .map(|u| {
                let fields = u.fields.iter().map(String::as_str).collect();
                (fields, u.kind, u.cost)
            })
            .collect();
        assert_eq!(
            units,
            [
                (
                    vec!["x", "vx"],
                    UnitKind::DeadReckoning,
                    Cost::fixed(3 + 18)
                ),
                (vec!["hp"], UnitKind::Block, Cost::fixed(3 + 8)),
                (vec!["on"], UnitKind::Field, Cost::fixed(3 + 1)),
            ]
        );
        assert_eq!(delta.worst, Cost::fixed(3 + 18 + 8 + 1));
        let text = render(&reports);
        assert!(
            text.contains("    nothing changed               3 bits  1 byte\n"),
            "{text}"
        );
        assert!(
            text.contains("    only x, vx (DEAD_RECKONING)  21 bits  3 bytes\n"),
            "{text}"
        );
    }

    #[test]
    fn delta_units_nest_and_bytestreams_send_changed_bytes() {
        let idl = "PUBLISHABLE_STRUCT P { UINT16 id; UINT8 a; UINT8 b; BOOL c; }\n\
                   STRUCT Q { UINT8 a; }";
        let enc = "ENCODING(E) PUBLISHABLE_STRUCT P { UINT16 id; DELTA { a; DELTA b; } DELTA c; }";
        let ir = build(idl, Some(enc));
        let reports = report(&ir);
        let p = find(&reports, "P");
        let delta = p.delta.as_ref().unwrap();
        // id in full, the block's bit, `c`'s bit.
        assert_eq!(delta.unchanged, Cost::fixed(16 + 1 + 1));
        let costs: Vec<Cost> = delta.units.iter().map(|u| u.cost).collect();
        // The block alone: its bit, `a`, `b`'s bit; `b` alone sends its block too.
        assert_eq!(
            costs,
            [
                Cost::fixed(16 + 1 + 8 + 1 + 1),
                Cost::fixed(16 + 1 + 8 + 1 + 8 + 1),
                Cost::fixed(16 + 1 + 1 + 1),
            ]
        );
        assert_eq!(delta.worst, Cost::fixed(16 + 1 + 8 + 1 + 8 + 1 + 1));
        assert_eq!(find(&reports, "Q").delta, None);

        let enc = format!("ENCODING(E) BYTESTREAM;\n{enc}");
        let ir = build(idl, Some(&enc));
        let reports = report(&ir);
        let delta = find(&reports, "P").delta.clone().unwrap();
        // A changed-bit is a byte, BOOL too.
        assert_eq!(delta.unchanged, Cost::fixed(16 + 8 + 8));
        assert_eq!(delta.worst, Cost::fixed(16 + 8 + 8 + 8 + 8 + 8 + 8));
    }

    #[test]
    fn delta_sequence_lists_elements() {
        let ir = build(
            "STRUCT E { UINT8 v; } PUBLISHABLE_STRUCT S { SEQUENCE<E,15> s; }",
            Some("ENCODING(E) PUBLISHABLE_STRUCT S { DELTA SEQUENCE<E> s; }"),
        );
        let reports = report(&ir);
        let delta = find(&reports, "S").delta.clone().unwrap();
        assert_eq!(delta.unchanged, Cost::fixed(1));
        let one = &delta.units[0];
        assert_eq!(one.kind, UnitKind::Sequence);
        // The bit, the count (4 bits), K (1..4 bits), one gap (1..9 bits: gap 14 is a 0 bit
        // and 13 in VLQ(3)), one element.
        assert_eq!(one.cost, Cost::range(1 + 4 + 1 + 1 + 8, 1 + 4 + 4 + 9 + 8));
        // WIRE_FORMAT.md's example (34 bits) lies within the worst case.
        assert_eq!(delta.worst, Cost::range(1 + 4, 1 + 4 + 4 + 15 * (9 + 8)));
    }

    #[test]
    fn seed_character_in_myencoding1() {
        let seeds = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/seed-examples/");
        let inputs = Inputs {
            idl: vec![
                format!("{seeds}character.idl").into(),
                concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/item.idl").into(),
            ],
            encodings: vec![format!("{seeds}myencoding1.enc").into()],
            ..Inputs::default()
        };
        let compilation = crate::compile(&inputs).expect("the seed examples are readable");
        assert!(!compilation.has_errors());
        let reports = report(&compilation.ir);
        let character = find(&reports, "Character");
        assert_eq!(character.encoding, "MYENCODING1");
        assert_eq!(field_cost(character, "x"), Cost::fixed(21));
        assert_eq!(field_cost(character, "angle"), Cost::fixed(16));
        assert_eq!(field_cost(character, "vx"), Cost::fixed(11));
        assert_eq!(field_cost(character, "anim"), Cost::fixed(2));
        assert_eq!(field_cost(character, "character_id"), Cost::range(8, 24));
        assert_eq!(field_cost(character, "inventory"), Cost::unbounded(8));
        assert_eq!(character.field("x").unwrap().rule, "FIXED_POINT(0.01)");
        assert_eq!(character.total.max, None);
        let item = find(&reports, "Item");
        assert_eq!(item.total, Cost::fixed(107));
        // Idle: the VLQ id (16 bits below 16,384) and five changed-bits.
        let delta = character.delta.as_ref().unwrap();
        assert_eq!(delta.unchanged, Cost::range(8 + 5, 24 + 5));
        assert_eq!(delta.units[0].fields, ["x", "y", "z", "vx", "vy", "vz"]);
        assert_eq!(delta.units[0].cost, Cost::range(13 + 90, 29 + 90));
        let text = render(&reports);
        assert!(text.starts_with("Character (encoding MYENCODING1, BITSTREAM)\n"));
        assert!(text.contains("delta against a baseline"), "{text}");
        assert!(text.contains("  total "), "{text}");
        assert!(text.contains("14 bytes"), "{text}");
    }
}
