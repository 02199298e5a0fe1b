//! A canonical text of one version, from its IR, for `idlc check-compat --diff`: what the wire
//! depends on and nothing else (comments, CONSTs and TYPEDEFs are gone, typedefs expanded,
//! ranges inclusive where INT allows), in a fixed order (items by name, members in order), so
//! that a diff of two versions shows what changed.

use std::fmt::Write as _;

use super::types::{describe_value, kind_name};
use super::wire::{describe_rule, with_diff};
use crate::diagnostics::text_diff::unified_diff;
use crate::ir::{
    EntryKind, ExtensionPart, Ir, ProtocolDef, Schema, StructDef, StructKind, Style, WireItem,
};

/// The canonical text of `ir`: enums, structs, protocols (with their RPCs), then encodings.
pub fn normalize(ir: &Ir) -> String {
    let mut out = String::new();
    let schema = &ir.schema;
    let mut enums: Vec<_> = schema.enums.values().collect();
    enums.sort_by(|a, b| a.name.cmp(&b.name));
    for def in enums {
        let enumerators: Vec<String> = def
            .enumerators
            .iter()
            .map(|e| format!("{} = {}", e.name, e.value))
            .collect();
        let _ = writeln!(out, "ENUM {} {{ {} }}", def.name, enumerators.join(", "));
    }
    let mut structs: Vec<_> = schema
        .structs
        .values()
        .filter(|def| def.kind != StructKind::RpcParams)
        .collect();
    structs.sort_by(|a, b| a.name.cmp(&b.name));
    for def in structs {
        let _ = writeln!(out, "{} {} {{", kind_name(def.kind), def.name);
        for line in member_lines(def) {
            let _ = writeln!(out, "  {line}");
        }
        out.push_str("}\n");
    }
    let mut protocols: Vec<_> = schema.protocols.values().collect();
    protocols.sort_by(|a, b| a.name.cmp(&b.name));
    for protocol in protocols {
        write_protocol(&mut out, schema, protocol);
    }
    for encoding in ir.encodings.values() {
        let style = match encoding.style {
            Style::Bitstream => "BITSTREAM",
            Style::Bytestream => "BYTESTREAM",
        };
        let _ = writeln!(out, "ENCODING({}) {style} {{", encoding.name);
        let mut names: Vec<&String> = encoding.structs.keys().collect();
        names.sort();
        for name in names {
            let Some(layout) = encoding.structs.get(name) else {
                continue;
            };
            let _ = writeln!(out, "  {name} {{");
            for (k, segment) in layout.segments.iter().enumerate() {
                if k > 0 {
                    out.push_str("    FENCE\n");
                }
                write_items(&mut out, &segment.items, 2);
            }
            out.push_str("  }\n");
        }
        out.push_str("}\n");
    }
    out
}

/// A struct's members, one per line: fields, EXTENDs, FENCEs.
fn member_lines(def: &StructDef) -> Vec<String> {
    let mut lines = Vec::new();
    for (k, segment) in def.segments.iter().enumerate() {
        if k > 0 {
            lines.push("FENCE".to_string());
        }
        for extend in &segment.extends {
            lines.push(format!(
                "EXTEND {} TO {};",
                extend.field,
                extend.to.describe()
            ));
        }
        for field in &segment.fields {
            let default = field
                .default
                .as_ref()
                .map(|d| format!(" DEFAULT = {}", describe_value(d)))
                .unwrap_or_default();
            lines.push(format!("{} {}{default};", field.ty.describe(), field.name));
        }
    }
    if def.open_end {
        lines.push("FENCE".to_string());
    }
    lines
}

fn write_protocol(out: &mut String, schema: &Schema, protocol: &ProtocolDef) {
    let _ = writeln!(out, "PROTOCOL {} {{", protocol.name);
    let mut segment = 0;
    for entry in &protocol.entries {
        while segment < entry.segment {
            out.push_str("  FENCE\n");
            segment += 1;
        }
        match &entry.kind {
            EntryKind::Message(name) => {
                let _ = writeln!(out, "  MESSAGE {name}; // id {}", entry.id);
            }
            EntryKind::Rpc { name, returns } => {
                let params = schema
                    .structs
                    .get(name)
                    .map(|def| {
                        member_lines(def)
                            .iter()
                            .map(|line| line.trim_end_matches(';').to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default();
                let returns = returns
                    .as_ref()
                    .map(|ty| format!(" -> {}", ty.describe()))
                    .unwrap_or_default();
                let _ = writeln!(out, "  RPC {name}({params}){returns}; // id {}", entry.id);
            }
        }
    }
    while segment < protocol.fences {
        out.push_str("  FENCE\n");
        segment += 1;
    }
    out.push_str("}\n");
}

fn write_items(out: &mut String, items: &[WireItem], depth: usize) {
    let indent = "  ".repeat(depth);
    for item in items {
        match item {
            WireItem::Field(f) => {
                let delta = if f.delta { "DELTA " } else { "" };
                let _ = writeln!(out, "{indent}{delta}{}: {}", f.field, with_diff(f));
            }
            WireItem::Extend(e) => {
                let part = match e.part {
                    ExtensionPart::HighBits { low_bits } => format!("the bits above {low_bits} as"),
                    ExtensionPart::Whole => "the whole value as".to_string(),
                };
                let _ = writeln!(
                    out,
                    "{indent}EXTEND {}: {part} {}",
                    e.field,
                    describe_rule(&e.rule)
                );
            }
            WireItem::DeltaBlock(inner) => {
                let _ = writeln!(out, "{indent}DELTA {{");
                // The front ends refuse blocks nested this deep long before.
                if depth < 64 {
                    write_items(out, inner, depth + 1);
                }
                let _ = writeln!(out, "{indent}}}");
            }
            WireItem::DeadReckoning(dr) => {
                let _ = writeln!(out, "{indent}DEAD_RECKONING({}) {{", dr.limit);
                for f in dr.positions.iter().chain(&dr.velocities) {
                    let _ = writeln!(out, "{indent}  {}: {}", f.field, with_diff(f));
                }
                let _ = writeln!(out, "{indent}}}");
            }
            WireItem::Align => {
                let _ = writeln!(out, "{indent}ALIGN");
            }
            WireItem::Check => {
                let _ = writeln!(out, "{indent}CHECK");
            }
        }
    }
}

/// A unified diff (`--- OLD` / `+++ NEW`) of the canonical texts of two versions; empty when
/// they are the same.
pub fn diff(old: &Ir, new: &Ir, old_name: &str, new_name: &str) -> String {
    let (old_text, new_text) = (normalize(old), normalize(new));
    if old_text == new_text {
        return String::new();
    }
    unified_diff(&old_text, &new_text, old_name, new_name)
}
