//! The C++ code of a PROTOCOL (codegen/protocol.rs's twin, with C++ idioms; docs/CPP.md,
//! "Protocols"): a struct of its ids and per-encoding version ids, and per the side's role an
//! abstract handler class with one virtual method per entry and a receiver whose `dispatch`
//! calls it (receiving), a sender with one stub per entry and a response handler class for the
//! answers of its requests (sending). The packet layer is the runtime's `idlc/packet.hpp`; what a
//! session endpoint needs of the protocol is session.rs's.

mod link;
mod session;

pub(crate) use link::links_items;

use std::fmt::Write as _;

use heck::{ToShoutySnakeCase, ToSnakeCase};

use super::types::cpp_type;
use crate::codegen::CodegenError;
use crate::codegen::protocol::MAX_STUB_PARAMETERS;
use crate::ir::naming::cpp_escape;
use crate::ir::{EntryKind, Ir, ProtocolDef, ProtocolRole, RustType};

/// One message or RPC of a protocol, with its C++ names.
struct Entry {
    id: u32,
    idl_name: String,
    /// "a MESSAGE", "an RPC answered with `T`", ... for comments.
    what: String,
    is_message: bool,
    /// The struct sent: the message, or the RPC's parameters.
    ty: String,
    /// The handler's and the response handler's method, and the sender's stub.
    method: String,
    /// The sender's stub that takes the whole struct: `call_<rpc>` for an RPC.
    struct_method: String,
    /// The id constant.
    id_const: String,
    /// For an RPC with a response: the response struct and the C++ type of its value.
    response: Option<(String, String)>,
    /// The version it came in.
    segment: usize,
    /// An RPC's parameters when its one-by-one stub exists.
    params: Option<Vec<Param>>,
    /// A snapshot (a MESSAGE whose one field is of a PUBLISHABLE_STRUCT type): the field's C++
    /// name and its struct's.
    snapshot: Option<(String, String)>,
}

/// A parameter of an RPC's one-by-one stub: the member's name, its C++ type, and whether it is
/// a scalar (copied into the struct rather than moved).
type Param = (String, String, bool);

/// Member names of the generated classes that an entry's method must not take.
const RESERVED_METHODS: [&str; 17] = [
    "unknown",
    "error",
    "version",
    "set_version",
    "supports",
    "size",
    "empty",
    "packet_bytes",
    "finish",
    "read_responses",
    "pending",
    "forget",
    "dispatch",
    "replies",
    "item",
    "check_version",
    "operator",
];

/// The C++ names of a protocol's classes.
struct Names {
    ids: String,
    handler: String,
    sender: String,
    receiver: String,
    responses: String,
    /// The session's names: the message and response variants, the session struct and the
    /// endpoint alias.
    message: String,
    response: String,
    session: String,
    endpoint: String,
}

/// Writes everything generated for `protocol` on this side to `out` (after every codec).
pub(super) fn protocol(
    out: &mut String,
    ir: &Ir,
    protocol: &ProtocolDef,
) -> Result<(), CodegenError> {
    let role = ir.mapping.role(&protocol.name);
    let [ids, message, response, handler, sender, receiver] =
        crate::ir::protocol_type_names(&protocol.name);
    let names = Names {
        session: format!("{ids}Session"),
        endpoint: format!("{ids}Endpoint"),
        ids,
        handler,
        sender,
        receiver,
        responses: format!("{response}Handler"),
        message,
        response,
    };
    check_clashes(ir, protocol, &names)?;
    let entries = entries(ir, protocol)?;
    ids_struct(out, ir, protocol, &names, &entries);
    // A protocol without entries sends nothing: its ids are all there is.
    let Some(first) = entries.first() else {
        return Ok(());
    };
    let streams = format!(
        "    /// The encoding's writer.\n    using Writer = typename Codec<{0}, E>::Writer;\n    \
         /// The encoding's reader.\n    using Reader = typename Codec<{0}, E>::Reader;\n",
        first.ty
    );
    if matches!(role, ProtocolRole::Receive | ProtocolRole::Both) {
        handler_class(out, protocol, &names, &entries);
        receiver_class(out, protocol, &names, &entries, &streams);
    }
    if matches!(role, ProtocolRole::Send | ProtocolRole::Both) {
        let answered = entries.iter().any(|e| e.response.is_some());
        if answered {
            response_handler_class(out, protocol, &names, &entries);
        }
        sender_class(out, protocol, &names, &entries, &streams);
    }
    session::session_items(out, ir, protocol, &names, &entries, role);
    Ok(())
}

fn check_clashes(ir: &Ir, protocol: &ProtocolDef, names: &Names) -> Result<(), CodegenError> {
    let ours = [
        &names.ids,
        &names.handler,
        &names.sender,
        &names.receiver,
        &names.responses,
        &names.message,
        &names.response,
        &names.session,
        &names.endpoint,
    ];
    let taken = ir
        .mapping
        .structs
        .values()
        .map(|s| s.rust_name.clone())
        .chain(ir.mapping.enums.values().map(|e| e.rust_name.clone()))
        .chain(ir.mapping.typedefs.values().map(|t| t.rust_name.clone()))
        .chain(["Codec", "DeltaCodec", "DefaultEncoding"].map(String::from));
    for name in taken {
        if let Some(clash) = ours.iter().find(|ours| ***ours == name) {
            return Err(CodegenError(format!(
                "the protocol `{}` needs the C++ name `{clash}`, which a type of the schema has: rename one of them",
                protocol.name
            )));
        }
    }
    Ok(())
}

fn entries(ir: &Ir, protocol: &ProtocolDef) -> Result<Vec<Entry>, CodegenError> {
    let mut out: Vec<Entry> = Vec::new();
    for entry in &protocol.entries {
        let view = crate::ir::protocol::entry_view(ir, entry).map_err(CodegenError)?;
        let response = match view.response {
            Some((response, value)) => Some((response.rust_name.clone(), cpp_type(&value.ty)?)),
            None => None,
        };
        let snapshot = view
            .snapshot
            .map(|(field, state)| (field.rust_name.clone(), state.rust_name.clone()));
        let (idl_name, what, mapping) = (view.name.to_string(), view.what, view.sent);
        let is_message = matches!(entry.kind, EntryKind::Message(_));
        let snake = idl_name.to_snake_case();
        let method = cpp_escape(&snake);
        let struct_method = if is_message {
            method.clone()
        } else {
            format!("call_{snake}")
        };
        for m in [&method, &struct_method] {
            let taken = RESERVED_METHODS.contains(&m.as_str())
                || out.iter().any(|e| e.method == *m || e.struct_method == *m);
            if taken {
                return Err(CodegenError(format!(
                    "the entry `{idl_name}` of the protocol `{}` needs the C++ method name `{m}`, which another entry or the generated classes have: rename the entry",
                    protocol.name
                )));
            }
        }
        let id_const = idl_name.to_shouty_snake_case();
        if id_const == "NAME" || out.iter().any(|e| e.id_const == id_const) {
            return Err(CodegenError(format!(
                "the entry `{idl_name}` of the protocol `{}` needs the C++ constant `{id_const}`, which another entry or the protocol's struct has: rename the entry",
                protocol.name
            )));
        }
        let params = if is_message {
            None
        } else {
            stub_params(ir, &idl_name, mapping)?
        };
        out.push(Entry {
            id: entry.id,
            idl_name,
            what,
            is_message,
            ty: mapping.rust_name.clone(),
            method,
            struct_method,
            id_const,
            response,
            segment: entry.segment,
            params,
            snapshot,
        });
    }
    Ok(out)
}

/// The parameters of the RPC `name` as its one-by-one stub takes them (member name, C++ type,
/// whether it is a scalar copied rather than moved), or `None` past [`MAX_STUB_PARAMETERS`].
fn stub_params(
    ir: &Ir,
    name: &str,
    mapping: &crate::ir::StructMapping,
) -> Result<Option<Vec<Param>>, CodegenError> {
    let def = ir
        .schema
        .structs
        .get(name)
        .ok_or_else(|| CodegenError(format!("internal: no parameters of `{name}`")))?;
    if def.fields().count() > MAX_STUB_PARAMETERS {
        return Ok(None);
    }
    def.fields()
        .map(|field| {
            let cpp = mapping.fields.get(&field.name).ok_or_else(|| {
                CodegenError(format!("internal: no mapping of {name}.{}", field.name))
            })?;
            let scalar = matches!(
                cpp.ty,
                RustType::Bool | RustType::Int(_) | RustType::F32 | RustType::F64
            );
            Ok((cpp.rust_name.clone(), cpp_type(&cpp.ty)?, scalar))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The struct of the ids: one constant per entry, `versions_with<E>()` per encoding,
/// `versions()`, `newest()` and `since(id)`.
fn ids_struct(out: &mut String, ir: &Ir, protocol: &ProtocolDef, names: &Names, entries: &[Entry]) {
    let (idl, ids) = (&protocol.name, &names.ids);
    writeln!(
        out,
        "/// The protocol `{idl}`: its message ids, and per encoding its version ids (one per \
         FENCE of its list,\n/// plus one), for `idlc::negotiate`.\nstruct {ids} {{\n    \
         /// The IDL name.\n    static constexpr const char* NAME = \"{idl}\";"
    )
    .unwrap();
    for e in entries {
        writeln!(
            out,
            "    /// The id of `{}`, {} (version {}).\n    static constexpr std::uint32_t {} = {};",
            e.idl_name, e.what, e.segment, e.id_const, e.id
        )
        .unwrap();
    }
    out.push_str(
        "\n    /// The ids of every version in the encoding `E`, oldest first.\n    \
         template <class E>\n    static idlc::Versions versions_with() noexcept;\n    \
         /// The ids of every version in the default encoding, oldest first.\n    \
         static idlc::Versions versions() noexcept;\n    \
         /// The id of the newest version in the default encoding.\n    \
         static std::uint64_t newest() noexcept;\n\n    \
         /// The version that added the message or RPC `id` (its index in the list of \
         versions); none\n    /// for an id this protocol does not have.\n    \
         static std::optional<std::size_t> since(std::uint32_t id) noexcept {\n",
    );
    let mut by_version: std::collections::BTreeMap<usize, Vec<&str>> = Default::default();
    for e in entries {
        by_version.entry(e.segment).or_default().push(&e.id_const);
    }
    for (segment, consts) in &by_version {
        let test: Vec<String> = consts.iter().map(|c| format!("id == {c}")).collect();
        writeln!(
            out,
            "        if ({}) {{\n            return {segment};\n        }}",
            test.join(" || ")
        )
        .unwrap();
    }
    out.push_str("        return std::nullopt;\n    }\n};\n\n");
    version_definitions(out, ir, idl, ids, |encoding| {
        crate::ir::protocol::version_ids(ir, protocol, encoding)
    });
}

/// The definitions of `versions_with<E>()` per encoding (`version_ids` gives the ids), of
/// `versions()` and of `newest()` of the struct `ids` (of the protocol or link `idl`).
fn version_definitions(
    out: &mut String,
    ir: &Ir,
    idl: &str,
    ids: &str,
    version_ids: impl Fn(&str) -> Vec<u64>,
) {
    for encoding in ir.encodings.values() {
        let tag = super::tag_name(ir, &encoding.name);
        let versions: Vec<String> = version_ids(&encoding.name)
            .into_iter()
            .map(|id| format!("0x{id:016x}ull"))
            .collect();
        writeln!(
            out,
            "/// The versions of `{idl}` in the encoding `{}`.\ntemplate <>\n\
             inline idlc::Versions {ids}::versions_with<{tag}>() noexcept {{\n    \
             static constexpr std::uint64_t ids[] = {{{}}};\n    \
             return idlc::Versions{{ids, {}}};\n}}\n",
            encoding.name,
            versions.join(", "),
            versions.len()
        )
        .unwrap();
    }
    writeln!(
        out,
        "inline idlc::Versions {ids}::versions() noexcept {{\n    \
         return versions_with<DefaultEncoding>();\n}}\n\n\
         inline std::uint64_t {ids}::newest() noexcept {{\n    return versions().newest();\n}}\n"
    )
    .unwrap();
}

fn handler_class(out: &mut String, protocol: &ProtocolDef, names: &Names, entries: &[Entry]) {
    let handler = &names.handler;
    writeln!(
        out,
        "/// What a receiver of the protocol `{}` does with each message and call: one method \
         each, given its\n/// decoded arguments.\nclass {handler} {{\npublic:\n    \
         virtual ~{handler}() = default;\n",
        protocol.name
    )
    .unwrap();
    for e in entries {
        let (method, ty) = (&e.method, &e.ty);
        match &e.response {
            Some((_, value)) => writeln!(
                out,
                "    /// `{}`, {}: its response is what this returns.\n    \
                 virtual {value} {method}({ty} call) = 0;",
                e.idl_name, e.what
            ),
            None if e.is_message => writeln!(
                out,
                "    /// The message `{}`.\n    virtual void {method}({ty} message) = 0;",
                e.idl_name
            ),
            None => writeln!(
                out,
                "    /// `{}`, {}.\n    virtual void {method}({ty} call) = 0;",
                e.idl_name, e.what
            ),
        }
        .unwrap();
    }
    out.push_str(
        "    /// An item this version does not know (a newer peer's message), skipped. Does \
         nothing unless\n    /// overridden.\n    \
         virtual void unknown(const idlc::ItemHeader& header) { (void)header; }\n};\n\n",
    );
}

fn receiver_class(
    out: &mut String,
    protocol: &ProtocolDef,
    names: &Names,
    entries: &[Entry],
    streams: &str,
) {
    let Names {
        ids,
        handler,
        receiver,
        ..
    } = names;
    let answers = entries.iter().any(|e| e.response.is_some());
    writeln!(
        out,
        "/// The receiving end of the protocol `{}` in the encoding `E`: `dispatch` hands each \
         message of a packet\n/// to a `{handler}`{}.\ntemplate <class E = DefaultEncoding>\n\
         class {receiver} {{\npublic:\n{streams}",
        protocol.name,
        if answers {
            " and collects the responses of its requests in reply packets (`replies`)"
        } else {
            ""
        }
    )
    .unwrap();
    if answers {
        writeln!(
            out,
            "    /// A receiver of the protocol version `version` (an id of \
             `{ids}::versions_with<E>()`), its reply\n    /// packets never over `mtu` bytes.\n    \
             explicit {receiver}(std::uint64_t version, std::size_t mtu = idlc::NO_MTU) \
             : version_(version), replies_(version, mtu) {{}}\n"
        )
        .unwrap();
    } else {
        writeln!(
            out,
            "    /// A receiver of the protocol version `version` (an id of \
             `{ids}::versions_with<E>()`).\n    \
             explicit {receiver}(std::uint64_t version) : version_(version) {{}}\n"
        )
        .unwrap();
    }
    out.push_str(
        "    /// The protocol version it reads in.\n    \
         std::uint64_t version() const noexcept { return version_; }\n\n    \
         /// Reads in another protocol version (after a negotiation).\n    \
         void set_version(std::uint64_t version) noexcept {\n        version_ = version;\n",
    );
    if answers {
        out.push_str(
            "        replies_.set_protocol_id(version);\n    }\n\n    \
             /// The next reply packet (framed) of the requests answered so far, oldest first; \
             null when every\n    /// one was handed out (valid until the next call). Call it \
             until null after a dispatch.\n    \
             const std::vector<std::uint8_t>* replies() { return replies_.next_packet(); }\n\n",
        );
    } else {
        out.push_str("    }\n\n");
    }
    let (unsent_param, unsent_arg) = if answers {
        (", idlc::SendStatus& unsent", ", unsent")
    } else {
        ("", "")
    };
    writeln!(
        out,
        "    /// Decodes every item of `packet` and calls the handler's method of each, in order; \
         `dispatched`\n    /// counts them. An id this version does not know goes to \
         `{handler}::unknown` and is\n    /// skipped; a malformed packet is a Decode error (the \
         items before it were handled){}.\n    \
         idlc::DispatchStatus dispatch(const std::uint8_t* packet, std::size_t size, {handler}& handler, \
         idlc::Dispatched& dispatched) {{\n        \
         dispatched = idlc::Dispatched{{}};\n        \
         idlc::PacketReader<Reader> reader;\n        \
         idlc::Status opened = reader.open(version_, packet, size);\n        \
         if (!opened.ok()) {{\n            \
         return idlc::DispatchStatus::decode_error(std::move(opened));\n        }}\n{}        \
         for (;;) {{\n            bool got = false;\n            \
         idlc::Status s = reader.next_item(got, [&](const idlc::ItemHeader& header, Reader& r) {{\n                \
         return item(header, r, handler, dispatched{unsent_arg});\n            }});\n            \
         if (!s.ok()) {{\n                \
         return idlc::DispatchStatus::decode_error(std::move(s));\n            }}\n            \
         if (!got) {{\n                break;\n            }}\n        }}\n{}        \
         return idlc::DispatchStatus{{}};\n    }}\n\n    \
         /// `dispatch` without the counts.\n    \
         idlc::DispatchStatus dispatch(const std::uint8_t* packet, std::size_t size, {handler}& handler) {{\n        \
         idlc::Dispatched dispatched;\n        return dispatch(packet, size, handler, dispatched);\n    }}\n\n\
         private:\n    \
         idlc::Status item(const idlc::ItemHeader& header, Reader& r, {handler}& handler, \
         idlc::Dispatched& dispatched{unsent_param}) {{",
        if answers {
            ". A response that cannot be sent at all (its value cannot be encoded, or\n    /// \
             it alone exceeds the MTU) is a Reply error after every item was handled"
        } else {
            ""
        },
        if answers {
            "        idlc::SendStatus unsent;\n"
        } else {
            ""
        },
        if answers {
            "        if (!unsent.ok()) {\n            \
             return idlc::DispatchStatus::reply_error(std::move(unsent));\n        }\n"
        } else {
            ""
        },
    )
    .unwrap();
    for e in entries {
        let (method, ty, id) = (&e.method, &e.ty, &e.id_const);
        match &e.response {
            Some((response, _)) => writeln!(
                out,
                "        if (header.id == {ids}::{id} && header.kind.tag == idlc::ItemTag::Request) {{\n            \
                 {ty} call;\n            IDLC_TRY((Codec<{ty}, E>::decode(call, r)));\n            \
                 ++dispatched.handled;\n            {response} answer;\n            \
                 answer.value = handler.{method}(std::move(call));\n            \
                 idlc::SendStatus sent = replies_.push({ids}::{id}, header.kind.request, [&](Writer& w) {{\n                \
                 return Codec<{response}, E>::encode(answer, w);\n            }});\n            \
                 if (sent.ok()) {{\n                ++dispatched.responses;\n            \
                 }} else if (unsent.ok()) {{\n                unsent = std::move(sent);\n            }}\n            \
                 return idlc::Status{{}};\n        }}"
            ),
            None => {
                let arg = if e.is_message { "message" } else { "call" };
                writeln!(
                    out,
                    "        if (header.id == {ids}::{id} && header.kind.tag == idlc::ItemTag::Message) {{\n            \
                     {ty} {arg};\n            IDLC_TRY((Codec<{ty}, E>::decode({arg}, r)));\n            \
                     ++dispatched.handled;\n            handler.{method}(std::move({arg}));\n            \
                     return idlc::Status{{}};\n        }}"
                )
            }
        }
        .unwrap();
    }
    out.push_str(
        "        handler.unknown(header);\n        ++dispatched.unknown;\n        \
         return idlc::Status{};\n    }\n\n    std::uint64_t version_;\n",
    );
    if answers {
        out.push_str("    idlc::Replies<Writer> replies_;\n");
    }
    out.push_str("};\n\n");
}

fn response_handler_class(
    out: &mut String,
    protocol: &ProtocolDef,
    names: &Names,
    entries: &[Entry],
) {
    let responses = &names.responses;
    writeln!(
        out,
        "/// What a sender of the protocol `{}` does with the responses to its requests \
         (`read_responses`):\n/// one method per RPC with a response, given the request id and \
         the value.\nclass {responses} {{\npublic:\n    virtual ~{responses}() = default;\n",
        protocol.name
    )
    .unwrap();
    for e in entries {
        if let Some((_, value)) = &e.response {
            writeln!(
                out,
                "    /// The response to `{}`.\n    \
                 virtual void {}(idlc::RequestId request, {value} value) = 0;",
                e.idl_name, e.method
            )
            .unwrap();
        }
    }
    out.push_str(
        "    /// A response that could not be paired with its request, or whose body is \
         malformed (its request\n    /// stays pending). Does nothing unless overridden.\n    \
         virtual void error(const idlc::ResponseError& failure) { (void)failure; }\n};\n\n",
    );
}

fn sender_class(
    out: &mut String,
    protocol: &ProtocolDef,
    names: &Names,
    entries: &[Entry],
    streams: &str,
) {
    let Names { ids, sender, .. } = names;
    let answered = entries.iter().any(|e| e.response.is_some());
    writeln!(
        out,
        "/// The calling end of the protocol `{}` in the encoding `E`: one method per message \
         and RPC adds it to\n/// the packet being built; `finish` returns the packet to send.\n\
         template <class E = DefaultEncoding>\nclass {sender} {{\npublic:\n{streams}\n    \
         /// A sender of packets of the protocol version `version` (an id of \
         `{ids}::versions_with<E>()`),\n    /// never over `mtu` bytes: a message that would \
         cross it is refused with PacketFull.\n    \
         explicit {sender}(std::uint64_t version, std::size_t mtu = idlc::NO_MTU) \
         : packet_(version, mtu), version_index_({ids}::versions_with<E>().index_of(version)) {{}}\n\n    \
         /// The protocol version it sends in.\n    \
         std::uint64_t version() const noexcept {{ return packet_.protocol_id(); }}\n\n    \
         /// Sends in another protocol version from the next packet on (after a negotiation).\n    \
         void set_version(std::uint64_t version) noexcept {{\n        \
         packet_.set_protocol_id(version);\n        \
         version_index_ = {ids}::versions_with<E>().index_of(version);\n    }}\n\n    \
         /// Whether the protocol version in use has the message or RPC `id`: a stub of one it \
         lacks is\n    /// refused with NotInVersion, as the peer would skip it.\n    \
         bool supports(std::uint32_t id) const noexcept {{\n        \
         std::optional<std::size_t> since = {ids}::since(id);\n        \
         return since.has_value() && version_index_.has_value() && *since <= *version_index_;\n    }}\n\n    \
         /// Items in the packet being built.\n    \
         std::size_t size() const noexcept {{ return packet_.size(); }}\n    \
         /// Whether the packet being built is empty.\n    \
         bool empty() const noexcept {{ return packet_.empty(); }}\n    \
         /// The bytes the packet would take if finished now.\n    \
         std::size_t packet_bytes() const noexcept {{ return packet_.packet_bytes(); }}\n    \
         /// The packet (framed), ready to send; the next calls start another.\n    \
         const std::vector<std::uint8_t>& finish() {{ return packet_.finish(); }}\n",
        protocol.name
    )
    .unwrap();
    if answered {
        writeln!(
            out,
            "    /// The requests awaiting their response.\n    \
             const idlc::Pending& pending() const noexcept {{ return pending_; }}\n    \
             /// Gives up on a request (a timeout): its response, if it comes, is then an error.\n    \
             void forget(idlc::RequestId request) {{ pending_.forget(request); }}\n\n    \
             /// Reads the responses in `packet` (a receiver's reply packet) and hands each to \
             `handler`, paired\n    /// with its request; one that cannot be paired or is \
             malformed goes to its `error`, and the\n    /// rest of the packet is still read. \
             `count` is how many responses there were; a packet whose\n    /// framing is \
             malformed is an error.\n    \
             idlc::Status read_responses(const std::uint8_t* packet, std::size_t size, {}& handler, \
             std::size_t& count) {{\n        \
             auto decode = [&](const idlc::ItemHeader& header, Reader& r, bool& known) -> idlc::Status {{",
            names.responses
        )
        .unwrap();
        for e in entries {
            if let Some((response, _)) = &e.response {
                writeln!(
                    out,
                    "            if (header.id == {ids}::{}) {{\n                \
                     {response} response;\n                \
                     IDLC_TRY((Codec<{response}, E>::decode(response, r)));\n                \
                     (void)pending_.complete(header.kind.request, header.id);\n                \
                     handler.{}(header.kind.request, std::move(response.value));\n                \
                     return idlc::Status{{}};\n            }}",
                    e.id_const, e.method
                )
                .unwrap();
            }
        }
        writeln!(
            out,
            "            known = false;\n            return idlc::Status{{}};\n        }};\n        \
             auto failed = [&](const idlc::ResponseError& failure) {{ handler.error(failure); }};\n        \
             return idlc::read_responses<Reader>(packet_.protocol_id(), packet, size, pending_, decode, failed, \
             count);\n    }}\n"
        )
        .unwrap();
    }
    for e in entries {
        sender_stubs(out, ids, e);
    }
    out.push_str(
        "private:\n    idlc::PacketWriter<Writer> packet_;\n    \
         std::optional<std::size_t> version_index_;\n",
    );
    if answered {
        out.push_str("    idlc::Pending pending_;\n");
    }
    out.push_str("};\n\n");
}

/// A sender's stubs of one entry: the struct form, and for an RPC the one that takes its
/// parameters one by one.
fn sender_stubs(out: &mut String, ids: &str, e: &Entry) {
    let (ty, id, struct_method) = (&e.ty, &e.id_const, &e.struct_method);
    let not_in_version = format!(
        "        if (!supports({ids}::{id})) {{\n            \
         return idlc::SendStatus::not_in_version({ids}::{id}, packet_.protocol_id());\n        }}\n"
    );
    if e.response.is_some() {
        writeln!(
            out,
            "    /// Calls `{}`, {}: adds the call to the packet and sets `request` to its \
             request id;\n    /// the response comes back through `read_responses`.\n    \
             idlc::SendStatus {struct_method}(const {ty}& call, idlc::RequestId& request) {{\n\
             {not_in_version}        \
             idlc::RequestId started = pending_.start({ids}::{id});\n        \
             idlc::SendStatus pushed = packet_.push({ids}::{id}, idlc::ItemKind::request_of(started), [&](Writer& w) {{\n            \
             return Codec<{ty}, E>::encode(call, w);\n        }});\n        \
             if (!pushed.ok()) {{\n            pending_.forget(started);\n            return pushed;\n        }}\n        \
             request = started;\n        return pushed;\n    }}\n",
            e.idl_name, e.what
        )
        .unwrap();
    } else {
        let (arg, what) = if e.is_message {
            ("message", "Sends the message")
        } else {
            ("call", "Calls")
        };
        writeln!(
            out,
            "    /// {what} `{}`, {}: adds it to the packet.\n    \
             idlc::SendStatus {struct_method}(const {ty}& {arg}) {{\n{not_in_version}        \
             return packet_.push({ids}::{id}, idlc::ItemKind::message(), [&](Writer& w) {{\n            \
             return Codec<{ty}, E>::encode({arg}, w);\n        }});\n    }}\n",
            e.idl_name, e.what
        )
        .unwrap();
    }
    let Some(params) = &e.params else {
        return;
    };
    // The local struct and the request out-parameter take names no parameter has.
    let free = |base: &str| {
        let mut name = base.to_string();
        while params.iter().any(|(p, _, _)| *p == name) {
            name.push('_');
        }
        name
    };
    let (call, request) = (free("call"), free("request"));
    let mut list: Vec<String> = params
        .iter()
        .map(|(name, ty, _)| format!("{ty} {name}"))
        .collect();
    if e.response.is_some() {
        list.push(format!("idlc::RequestId& {request}"));
    }
    writeln!(
        out,
        "    /// Calls `{}` with its parameters: `{struct_method}` of a `{ty}`.\n    \
         idlc::SendStatus {}({}) {{\n        {ty} {call};",
        e.idl_name,
        e.method,
        list.join(", ")
    )
    .unwrap();
    for (name, _, scalar) in params {
        if *scalar {
            writeln!(out, "        {call}.{name} = {name};").unwrap();
        } else {
            writeln!(out, "        {call}.{name} = std::move({name});").unwrap();
        }
    }
    let request = if e.response.is_some() {
        format!(", {request}")
    } else {
        String::new()
    };
    writeln!(
        out,
        "        return {struct_method}({call}{request});\n    }}\n"
    )
    .unwrap();
}
