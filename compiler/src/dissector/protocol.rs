//! A PROTOCOL's part of the script: the ids whose CRCs name its versions (plain and session,
//! WIRE_FORMAT.md section 6) and what each item id decodes as.

use std::fmt::Write as _;

use super::{Generator, lua};
use crate::ir::protocol::version_ids;
use crate::ir::{EntryKind, ProtocolDef, response_struct_name};

/// The 8 little-endian bytes of `id` as a Lua list (0-based).
fn id_bytes(id: u64) -> String {
    let bytes: Vec<String> = id.to_le_bytes().iter().map(u8::to_string).collect();
    format!("{{ [0] = {} }}", bytes.join(", "))
}

impl Generator<'_> {
    /// `VERSIONS`: per version, oldest first, the ids a frame's CRC is computed with.
    pub(super) fn versions(&self, protocol: &ProtocolDef) -> String {
        let mut out = String::from(
            "-- Per version, oldest first: the 8 bytes of its id and of its session id (the CRC\n\
             -- of a frame covers them, then the payload).\nlocal VERSIONS = {\n",
        );
        for (version, id) in version_ids(self.ir, protocol, &self.encoding.name)
            .into_iter()
            .enumerate()
        {
            let _ = writeln!(
                out,
                "  {{ id = {:?}, plain = {}, session = {} }}, -- version {}",
                format!("{id:#018x}"),
                id_bytes(id),
                id_bytes(idlc_runtime::session_id(id)),
                version + 1
            );
        }
        out.push_str("}\n");
        out
    }

    /// `ENTRIES`: per item id of `protocol`, its name and the decoders of its message (or
    /// call) and request; `RESPONSES`: per RPC id of `answered`, the decoder of its response.
    pub(super) fn entries(&self, protocol: &ProtocolDef, answered: &ProtocolDef) -> String {
        let decoder =
            |name: &str| format!("{{ name = {0}, decode = DECODE[{0}] }}", lua::string(name));
        let mut out = String::from(
            "-- Per item id: what a message and a request of it carry.\nlocal ENTRIES = {\n",
        );
        for entry in &protocol.entries {
            let (name, key) = match &entry.kind {
                EntryKind::Message(name)
                | EntryKind::Rpc {
                    name,
                    returns: None,
                } => (name, "message"),
                EntryKind::Rpc { name, .. } => (name, "request"),
            };
            let mut parts = vec![
                format!("name = {}", lua::string(name)),
                format!("{key} = {}", decoder(name)),
            ];
            if let Some(delta) = self.snapshot_delta(entry) {
                parts.push(format!("delta = {delta}"));
            }
            let _ = writeln!(out, "  [{}] = {{ {} }},", entry.id, parts.join(", "));
        }
        let _ = write!(
            out,
            "}}\n\n-- Per RPC id of {} (whose requests this protocol's responses answer): what a\n\
             -- response to it carries.\nlocal RESPONSES = {{\n",
            answered.name
        );
        for (id, name) in responses(answered) {
            let response = decoder(&response_struct_name(name));
            let _ = writeln!(
                out,
                "  [{id}] = {{ name = {}, response = {response} }},",
                lua::string(name)
            );
        }
        out.push_str("}\n");
        out
    }

    /// The structs the items carry: `protocol`'s messages and calls, and the responses to
    /// `answered`'s calls.
    pub(super) fn roots(protocol: &ProtocolDef, answered: &ProtocolDef) -> Vec<String> {
        let sent = protocol.entries.iter().map(|entry| match &entry.kind {
            EntryKind::Message(name) | EntryKind::Rpc { name, .. } => name.clone(),
        });
        let answers = responses(answered).map(|(_, name)| response_struct_name(name));
        sent.chain(answers).collect()
    }
}

/// The RPCs of `protocol` that expect a response: their ids and names.
fn responses(protocol: &ProtocolDef) -> impl Iterator<Item = (u32, &String)> {
    protocol
        .entries
        .iter()
        .filter_map(|entry| match &entry.kind {
            EntryKind::Rpc {
                name,
                returns: Some(_),
            } => Some((entry.id, name)),
            _ => None,
        })
}
