//! Protocol ids: one 64-bit id per version prefix of a protocol in one encoding (WIRE.md,
//! "Packets"), so that two peers find the newest version they share.
//!
//! Version `k` of a protocol is its list cut at its k-th FENCE. Its id is the FNV-1a hash
//! ([`idlc_runtime::protocol_hash`]) of a canonical text: the encoding's style, the entries of
//! segments `0..=k` (id, kind, name, response type), then every struct and enum their first
//! segments reach, by name, with the fields and wire items of that first segment. What later
//! segments of a struct add is not part of the id: a struct extends itself on the wire (its
//! FENCE segments are skipped or defaulted by the other version) without a new protocol version.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{
    EntryKind, FieldMapping, Ir, ProtocolDef, ProtocolEntry, StructMapping, Style, Type,
    response_struct_name,
};

/// One entry of a protocol as the backends name and document it.
#[derive(Debug)]
pub struct EntryView<'a> {
    /// The IDL name of the struct sent: the message, or the RPC (its parameters).
    pub name: &'a str,
    /// What it is, for comments: "a MESSAGE", "an RPC answered with `T`", "an RPC without a
    /// response".
    pub what: String,
    /// The mapping of the struct sent.
    pub sent: &'a StructMapping,
    /// For an RPC with a response: the response struct's mapping and its one field's.
    pub response: Option<(&'a StructMapping, &'a FieldMapping)>,
    /// A snapshot: a MESSAGE whose one field is of a PUBLISHABLE_STRUCT type, which a session
    /// sends as a delta of that field against the state the peer acknowledged (WIRE_FORMAT.md,
    /// "Session packets"): the field's mapping and the mapping of its struct.
    pub snapshot: Option<(&'a FieldMapping, &'a StructMapping)>,
}

/// The [`EntryView`] of `entry`; the error names what the mapping lacks (an internal error).
pub fn entry_view<'a>(ir: &'a Ir, entry: &'a ProtocolEntry) -> Result<EntryView<'a>, String> {
    let mapping = |name: &str| {
        ir.mapping
            .structs
            .get(name)
            .ok_or_else(|| format!("internal: no mapping of struct {name}"))
    };
    let (name, what, response) = match &entry.kind {
        EntryKind::Message(name) => (name, "a MESSAGE".to_string(), None),
        EntryKind::Rpc {
            name,
            returns: Some(ty),
        } => {
            let response = mapping(&response_struct_name(name))?;
            let value = response
                .fields
                .get(super::RESPONSE_FIELD)
                .ok_or_else(|| format!("internal: the response of `{name}`"))?;
            let what = format!("an RPC answered with `{}`", ty.describe());
            (name, what, Some((response, value)))
        }
        EntryKind::Rpc {
            name,
            returns: None,
        } => (name, "an RPC without a response".to_string(), None),
    };
    let snapshot = match &entry.kind {
        EntryKind::Message(_) => snapshot_field(ir, name),
        EntryKind::Rpc { .. } => None,
    };
    Ok(EntryView {
        name,
        what,
        sent: mapping(name)?,
        response,
        snapshot,
    })
}

/// The one field of the MESSAGE `name` and its struct's mapping, when the message has exactly
/// one field and that field is of a PUBLISHABLE_STRUCT type.
fn snapshot_field<'a>(ir: &'a Ir, name: &str) -> Option<(&'a FieldMapping, &'a StructMapping)> {
    let def = ir.schema.structs.get(name)?;
    let mut fields = def.fields();
    let (Some(field), None) = (fields.next(), fields.next()) else {
        return None;
    };
    let Type::Struct(ty) = &field.ty else {
        return None;
    };
    if ir.schema.structs.get(ty)?.kind != super::StructKind::Publishable {
        return None;
    }
    let field_mapping = ir.mapping.structs.get(name)?.fields.get(&field.name)?;
    Some((field_mapping, ir.mapping.structs.get(ty)?))
}

/// The ids of every version of `protocol` in the encoding `encoding`, oldest first (one more
/// than the protocol has FENCEs). Empty when the encoding is unknown.
pub fn version_ids(ir: &Ir, protocol: &ProtocolDef, encoding: &str) -> Vec<u64> {
    (0..=protocol.fences)
        .map(|version| {
            idlc_runtime::protocol_hash(canonical_text(ir, protocol, encoding, version).as_bytes())
        })
        .collect()
}

/// The text whose hash is the id of `version` of `protocol` in `encoding`.
pub fn canonical_text(ir: &Ir, protocol: &ProtocolDef, encoding: &str, version: usize) -> String {
    let mut out = String::from("idlc protocol 1\n");
    let style = ir.encodings.get(encoding).map(|e| match e.style {
        Style::Bitstream => "BITSTREAM",
        Style::Bytestream => "BYTESTREAM",
    });
    let _ = writeln!(
        out,
        "PROTOCOL {} {}",
        protocol.name,
        style.unwrap_or("unknown")
    );
    let mut structs = BTreeSet::new();
    for entry in protocol.entries.iter().filter(|e| e.segment <= version) {
        match &entry.kind {
            EntryKind::Message(name) => {
                let _ = writeln!(out, "{} MESSAGE {name}", entry.id);
                structs.insert(name.clone());
            }
            EntryKind::Rpc { name, returns } => {
                let returns = returns.as_ref().map(Type::describe).unwrap_or_default();
                let _ = writeln!(out, "{} RPC {name} -> {returns}", entry.id);
                structs.insert(name.clone());
                if returns.is_empty() {
                    continue;
                }
                structs.insert(response_struct_name(name));
            }
        }
    }
    let (structs, enums) = reachable(ir, structs);
    for name in &structs {
        let Some(def) = ir.schema.structs.get(name) else {
            continue;
        };
        let _ = writeln!(out, "STRUCT {name} {:?}", def.kind);
        if let Some(segment) = def.segments.first() {
            for field in &segment.fields {
                let _ = writeln!(out, "  {} {}", field.name, json(&field.ty));
            }
        }
        let items = ir
            .encodings
            .get(encoding)
            .and_then(|e| e.structs.get(name))
            .and_then(|layout| layout.segments.first());
        if let Some(items) = items {
            let _ = writeln!(out, "  wire {}", json(&items.items));
        }
    }
    for name in &enums {
        if let Some(def) = ir.schema.enums.get(name) {
            let _ = writeln!(out, "ENUM {name} {}", json(&def.enumerators));
        }
    }
    out
}

/// The structs and enums the first segments of `roots` reach, by name.
fn reachable(ir: &Ir, roots: BTreeSet<String>) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut structs = BTreeSet::new();
    let mut enums = BTreeSet::new();
    let mut todo: Vec<String> = roots.into_iter().collect();
    while let Some(name) = todo.pop() {
        if !structs.insert(name.clone()) {
            continue;
        }
        let Some(segment) = ir
            .schema
            .structs
            .get(&name)
            .and_then(|d| d.segments.first())
        else {
            continue;
        };
        for field in &segment.fields {
            named_types(&field.ty, &mut todo, &mut enums);
        }
    }
    (structs, enums)
}

fn named_types(ty: &Type, structs: &mut Vec<String>, enums: &mut BTreeSet<String>) {
    match ty {
        Type::Struct(name) => structs.push(name.clone()),
        Type::Enum(name) => {
            enums.insert(name.clone());
        }
        Type::Sequence { element, .. } | Type::Array { element, .. } | Type::Optional(element) => {
            named_types(element, structs, enums);
        }
        _ => {}
    }
}

/// The IR's own JSON of a value: every detail the wire depends on, in a fixed order.
fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
