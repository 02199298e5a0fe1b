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

    /// `ENTRIES`: per item id, its name and the decoders of its message (or call), request
    /// and response.
    pub(super) fn entries(&self, protocol: &ProtocolDef) -> String {
        let decoder =
            |name: &str| format!("{{ name = {0}, decode = DECODE[{0}] }}", lua::string(name));
        let mut out = String::from(
            "-- Per item id: what a message, a request and a response of it carry.\nlocal ENTRIES = {\n",
        );
        for entry in &protocol.entries {
            let (name, message, request, response) = match &entry.kind {
                EntryKind::Message(name) => (name, Some(decoder(name)), None, None),
                EntryKind::Rpc {
                    name,
                    returns: None,
                } => (name, Some(decoder(name)), None, None),
                EntryKind::Rpc {
                    name,
                    returns: Some(_),
                } => (
                    name,
                    None,
                    Some(decoder(name)),
                    Some(decoder(&response_struct_name(name))),
                ),
            };
            let mut parts = vec![format!("name = {}", lua::string(name))];
            for (key, value) in [
                ("message", message),
                ("request", request),
                ("response", response),
            ] {
                if let Some(value) = value {
                    parts.push(format!("{key} = {value}"));
                }
            }
            if let Some(delta) = self.snapshot_delta(entry) {
                parts.push(format!("delta = {delta}"));
            }
            let _ = writeln!(out, "  [{}] = {{ {} }},", entry.id, parts.join(", "));
        }
        out.push_str("}\n");
        out
    }

    /// The structs a protocol's items carry: messages, calls, responses.
    pub(super) fn roots(protocol: &ProtocolDef) -> Vec<String> {
        let mut out = Vec::new();
        for entry in &protocol.entries {
            match &entry.kind {
                EntryKind::Message(name)
                | EntryKind::Rpc {
                    name,
                    returns: None,
                } => out.push(name.clone()),
                EntryKind::Rpc {
                    name,
                    returns: Some(_),
                } => {
                    out.push(name.clone());
                    out.push(response_struct_name(name));
                }
            }
        }
        out
    }
}
