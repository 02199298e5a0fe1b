//! Protocol ids: one 64-bit id per version prefix of a protocol in one encoding (WIRE.md,
//! "Packets"), so that two peers find the newest version they share.
//!
//! Version `k` of a protocol is its list cut at its k-th FENCE. Its id is the FNV-1a hash
//! ([`idlc_runtime::protocol_hash`]) of a canonical text: the encoding's style, the entries of
//! segments `0..=k` (id, kind, name, response type), then every struct and enum their first
//! segments reach, by name, with the fields and wire items of that first segment. What later
//! segments of a struct add is not part of the id: a struct extends itself on the wire (its
//! FENCE segments are skipped or defaulted by the other version) without a new protocol version.
//!
//! A link ([`Link`]) is every protocol a side sends, or receives, as one session protocol: its
//! versions are the product of its members' (each id [`idlc_runtime::link_id`] of the members'
//! version ids), and an item names its member: `entry id * members + member`
//! ([`idlc_runtime::link_item_id`]).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{
    EntryKind, FieldMapping, Ir, ProtocolDef, ProtocolEntry, ProtocolRole, StructMapping, Style,
    Type, response_struct_name,
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

/// Which way the protocols of a [`Link`] go, seen from its side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum LinkDirection {
    /// The protocols the side sends: SEND and BOTH.
    Sends,
    /// The protocols the side receives: RECEIVE and BOTH.
    Receives,
}

impl LinkDirection {
    /// What the side does with its peer, for docs: "sends to", "receives from".
    pub fn phrase(self) -> &'static str {
        match self {
            LinkDirection::Sends => "sends to",
            LinkDirection::Receives => "receives from",
        }
    }
}

/// Every protocol a side sends (or receives) to its peer, as one session protocol: what one
/// endpoint per peer speaks (WIRE_FORMAT.md, "Session packets").
#[derive(Debug, Clone)]
pub struct Link<'a> {
    /// Its name: the side's name in UpperCamelCase (`Link` without a side), then `Sends` or
    /// `Receives`.
    pub name: String,
    /// Which way it goes.
    pub direction: LinkDirection,
    /// Its protocols, in the IR's order. With one member the link is that protocol (its ids,
    /// its item ids): generated code names it with an alias.
    pub members: Vec<&'a ProtocolDef>,
}

/// What the name of a side's links and endpoint begin with: the side's name in UpperCamelCase,
/// or `Link` for a module without a side.
pub fn link_prefix(ir: &Ir) -> String {
    ir.mapping.side.as_deref().map_or_else(
        || "Link".to_string(),
        |side| heck::AsUpperCamelCase(side).to_string(),
    )
}

/// The links of the side: one per direction it has a protocol in, when it sends or receives
/// more than one protocol (a side with at most one each way holds `Endpoint<E, Out, In>` of its
/// protocols, and gets no link).
pub fn links(ir: &Ir) -> Vec<Link<'_>> {
    let members = |direction: LinkDirection| -> Vec<&ProtocolDef> {
        ir.schema
            .protocols
            .values()
            .filter(|p| {
                matches!(
                    (direction, ir.mapping.role(&p.name)),
                    (_, ProtocolRole::Both)
                        | (LinkDirection::Sends, ProtocolRole::Send)
                        | (LinkDirection::Receives, ProtocolRole::Receive)
                )
            })
            .collect()
    };
    let both = [LinkDirection::Sends, LinkDirection::Receives].map(|d| (d, members(d)));
    if both.iter().all(|(_, members)| members.len() <= 1) {
        return Vec::new();
    }
    let prefix = link_prefix(ir);
    both.into_iter()
        .filter(|(_, members)| !members.is_empty())
        .map(|(direction, members)| Link {
            name: format!("{prefix}{direction:?}"),
            direction,
            members,
        })
        .collect()
}

/// Whether `name` names packets rather than a struct: a PROTOCOL, or a link of the side, that no
/// struct takes the name of (what `idlc decode --type` reads as a framed packet).
pub fn names_packets(ir: &Ir, name: &str) -> bool {
    (ir.schema.protocols.contains_key(name) || link(ir, name).is_some())
        && !ir.schema.structs.contains_key(name)
}

/// The link of the side named `name`, if any.
pub fn link<'a>(ir: &'a Ir, name: &str) -> Option<Link<'a>> {
    links(ir).into_iter().find(|l| l.name == name)
}

impl Link<'_> {
    /// How many versions each member has, in order.
    pub fn member_counts(&self) -> Vec<usize> {
        self.members.iter().map(|p| p.fences + 1).collect()
    }

    /// How many versions the link has: the product of its members'.
    pub fn version_count(&self) -> usize {
        self.member_counts().iter().product()
    }

    /// The version of each member that the link's version `version` is, or `None` past the
    /// last. The first member counts slowest (link version `v` is the mixed-radix number of its
    /// members' versions), so the newest link version is every member's newest.
    pub fn member_versions(&self, version: usize) -> Option<Vec<usize>> {
        let counts = self.member_counts();
        if version >= counts.iter().product() {
            return None;
        }
        let mut rest = version;
        let mut out = vec![0; counts.len()];
        for (slot, count) in out.iter_mut().zip(&counts).rev() {
            *slot = rest % count;
            rest /= count;
        }
        Some(out)
    }

    /// How far apart two link versions are whose member `member` differs by one version (the
    /// product of the later members' counts).
    pub fn stride(&self, member: usize) -> usize {
        self.member_counts().iter().skip(member + 1).product()
    }

    /// The number of members, as item ids count them.
    pub fn width(&self) -> u32 {
        u32::try_from(self.members.len()).unwrap_or(u32::MAX)
    }

    /// The item id of the entry `entry` of the member `member` in the link's packets.
    pub fn item_id(&self, member: usize, entry: u32) -> u32 {
        let member = u32::try_from(member).unwrap_or(u32::MAX);
        idlc_runtime::link_item_id(entry, member, self.width())
    }

    /// The member and the entry that the item id `id` names, if the member has that entry.
    pub fn entry(&self, id: u32) -> Option<(&ProtocolDef, &ProtocolEntry)> {
        let (member, entry) = idlc_runtime::link_member(id, self.width());
        let protocol = *self.members.get(member as usize)?;
        let found = protocol.entries.iter().find(|e| e.id == entry)?;
        Some((protocol, found))
    }
}

/// The ids of every version of `link` in the encoding `encoding`, in the order of
/// [`Link::member_versions`]; a link of one member has that protocol's.
pub fn link_version_ids(ir: &Ir, link: &Link<'_>, encoding: &str) -> Vec<u64> {
    let members: Vec<Vec<u64>> = link
        .members
        .iter()
        .map(|p| version_ids(ir, p, encoding))
        .collect();
    if let [only] = members.as_slice() {
        return only.clone();
    }
    (0..link.version_count())
        .filter_map(|version| {
            let versions = link.member_versions(version)?;
            let ids: Vec<u64> = versions
                .iter()
                .zip(&members)
                .map(|(&v, ids)| ids.get(v).copied().unwrap_or_default())
                .collect();
            Some(idlc_runtime::link_id(&ids))
        })
        .collect()
}

/// A link as `idlc ir` shows it: its members and, per encoding, each version's id and the
/// member versions it is.
#[derive(Debug, serde::Serialize)]
pub struct LinkSummary {
    /// The link's name.
    pub name: String,
    /// Which way it goes.
    pub direction: LinkDirection,
    /// Its protocols, in order (an item's member is its id modulo their number).
    pub members: Vec<String>,
    /// Per encoding, its versions, oldest first.
    pub versions: indexmap::IndexMap<String, Vec<LinkVersion>>,
}

/// One version of a link in one encoding.
#[derive(Debug, serde::Serialize)]
pub struct LinkVersion {
    /// Its id (a session packet is framed with its `session_id`).
    pub id: u64,
    /// The version of each member.
    pub members: Vec<usize>,
}

/// The links of the side as `idlc ir` shows them.
pub fn link_summaries(ir: &Ir) -> Vec<LinkSummary> {
    links(ir)
        .iter()
        .map(|link| LinkSummary {
            name: link.name.clone(),
            direction: link.direction,
            members: link.members.iter().map(|p| p.name.clone()).collect(),
            versions: ir
                .encodings
                .keys()
                .map(|encoding| {
                    let ids = link_version_ids(ir, link, encoding);
                    let versions = ids
                        .into_iter()
                        .enumerate()
                        .map(|(v, id)| LinkVersion {
                            id,
                            members: link.member_versions(v).unwrap_or_default(),
                        })
                        .collect();
                    (encoding.clone(), versions)
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protocol(name: &str, fences: usize) -> ProtocolDef {
        ProtocolDef {
            name: name.to_string(),
            entries: Vec::new(),
            fences,
            loc: Default::default(),
            fence_locs: Vec::new(),
        }
    }

    #[test]
    fn link_versions_count_in_mixed_radix_first_member_slowest() {
        let (a, b, c) = (protocol("A", 1), protocol("B", 0), protocol("C", 2));
        let link = Link {
            name: "SideSends".into(),
            direction: LinkDirection::Sends,
            members: vec![&a, &b, &c],
        };
        assert_eq!(link.member_counts(), [2, 1, 3]);
        assert_eq!(link.version_count(), 6);
        assert_eq!((link.stride(0), link.stride(1), link.stride(2)), (3, 3, 1));
        let all: Vec<Vec<usize>> = (0..6).filter_map(|v| link.member_versions(v)).collect();
        assert_eq!(
            all,
            [
                [0, 0, 0],
                [0, 0, 1],
                [0, 0, 2],
                [1, 0, 0],
                [1, 0, 1],
                [1, 0, 2]
            ]
        );
        assert_eq!(link.member_versions(6), None);
        // Every version is the sum of its members' versions times their strides.
        for (v, versions) in all.iter().enumerate() {
            let back: usize = versions
                .iter()
                .enumerate()
                .map(|(m, x)| x * link.stride(m))
                .sum();
            assert_eq!(back, v);
        }
        assert_eq!(link.item_id(2, 5), 17);
        assert_eq!(link.width(), 3);
    }
}
