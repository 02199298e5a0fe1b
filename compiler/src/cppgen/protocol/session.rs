//! What a PROTOCOL gives a C++ session endpoint (`idlc::Endpoint`, runtime-cpp's
//! idlc/session/endpoint.hpp; codegen/protocol/session.rs's twin): its messages and responses as
//! `std::variant`s (`<Protocol>Message`, `<Protocol>Response`), the struct template
//! `<Protocol>Session<E>` that encodes and decodes them as a session sends and reads them, with
//! `handle` on the receiving side, and the alias `<Protocol>Endpoint` on the sending side. Which
//! messages are snapshots is the IR's ([`crate::ir::protocol::EntryView::snapshot`]).

use std::fmt::Write as _;

use super::{Entry, Names};
use crate::ir::{Ir, ProtocolDef, ProtocolRole, RustType};

/// Writes the session items of `protocol` (with entries) on a side of role `role`. A protocol
/// with a message that is not copied (it holds a struct that holds itself, a `std::unique_ptr`)
/// has none yet: an endpoint keeps copies of what it sends.
pub(super) fn session_items(
    out: &mut String,
    ir: &Ir,
    protocol: &ProtocolDef,
    names: &Names,
    entries: &[Entry],
    role: ProtocolRole,
) {
    if let Some(held) = entries.iter().find(|e| !copied(ir, &e.ty, &mut Vec::new())) {
        writeln!(
            out,
            "// The protocol `{}` has no session code: `{}` holds a `std::unique_ptr` (a struct \
             that holds itself),\n// which an endpoint cannot copy.\n",
            protocol.name, held.ty
        )
        .unwrap();
        return;
    }
    let Names {
        ids,
        message,
        response,
        session,
        ..
    } = names;
    let idl = &protocol.name;
    let types: Vec<&str> = entries.iter().map(|e| e.ty.as_str()).collect();
    let answered: Vec<&Entry> = entries.iter().filter(|e| e.response.is_some()).collect();
    writeln!(
        out,
        "/// A message or call of the protocol `{idl}` as a session holds it (Rust's `{message}`): \
         one alternative\n/// per entry, in the order of their ids.\n\
         using {message} = std::variant<{}>;",
        types.join(", ")
    )
    .unwrap();
    if answered.is_empty() {
        writeln!(
            out,
            "/// The responses of the protocol `{idl}`, which has no call that expects one.\n\
             using {response} = idlc::NoResponse;\n"
        )
        .unwrap();
    } else {
        let structs: Vec<&str> = answered
            .iter()
            .filter_map(|e| e.response.as_ref().map(|(s, _)| s.as_str()))
            .collect();
        writeln!(
            out,
            "/// A response to a call of the protocol `{idl}` (Rust's `{response}`): one \
             alternative per RPC\n/// with a response, its response struct.\n\
             using {response} = std::variant<{}>;\n",
            structs.join(", ")
        )
        .unwrap();
    }
    writeln!(
        out,
        "/// What an `idlc::Endpoint` needs of the protocol `{idl}` in the encoding `E`: its \
         versions, and its\n/// messages and responses encoded and decoded as a session sends \
         and reads them (Rust's\n/// `SessionProtocol`, `SessionMessage` and `SessionResponse`).\n\
         template <class E = DefaultEncoding>\nstruct {session} {{\n\
         /// The encoding's writer.\nusing Writer = typename Codec<{first}, E>::Writer;\n\
         /// The encoding's reader.\nusing Reader = typename Codec<{first}, E>::Reader;\n\
         /// A message or call.\nusing Message = {message};\n\
         /// A response to a call.\nusing Response = {response};\n\
         /// The IDL name.\nstatic constexpr const char* NAME = \"{idl}\";\n\n\
         /// The ids of every version in the encoding `E`, oldest first.\n\
         static idlc::Versions versions() noexcept {{ return {ids}::versions_with<E>(); }}\n\n\
         /// The version that added the message or RPC `id`.\n\
         static std::optional<std::size_t> since(std::uint32_t id) noexcept {{ return {ids}::since(id); }}\n",
        first = types[0],
    )
    .unwrap();
    let id_list: Vec<String> = entries
        .iter()
        .map(|e| format!("{ids}::{}", e.id_const))
        .collect();
    writeln!(
        out,
        "/// The id of the message or call.\n\
         static std::uint32_t id(const Message& message) noexcept {{\n\
         static constexpr std::uint32_t IDS[] = {{{}}};\n\
         return message.index() < {} ? IDS[message.index()] : 0;\n}}\n",
        id_list.join(", "),
        entries.len()
    )
    .unwrap();
    predicate(
        out,
        "expects_response",
        "Whether it is a call that expects a response (a request).",
        entries,
        |e| e.response.is_some(),
    );
    predicate(
        out,
        "is_snapshot",
        "Whether it is a snapshot: a message whose struct is a PUBLISHABLE_STRUCT.",
        entries,
        |e| e.snapshot.is_some(),
    );
    encode_body(out, entries);
    snapshot_functions(out, entries);
    decode_item(out, ids, entries);
    response_functions(out, ids, &answered);
    if matches!(role, ProtocolRole::Receive | ProtocolRole::Both) {
        handle(out, names, entries);
    }
    out.push_str("};\n\n");
    if matches!(role, ProtocolRole::Send | ProtocolRole::Both) {
        let endpoint = &names.endpoint;
        writeln!(
            out,
            "/// A session endpoint that sends `{idl}` and receives the protocol of the \
             `<Protocol>Session` template\n/// `In` (one per peer; see `idlc::Endpoint`).\n\
             template <template <class> class In, class E = DefaultEncoding>\n\
             using {endpoint} = idlc::Endpoint<E, {session}<E>, In<E>>;\n"
        )
        .unwrap();
    }
}

/// Whether the C++ struct `name` is copied by value: neither it nor a struct it holds has a
/// `std::unique_ptr` (`seen`: the structs on the way, for structs that hold each other).
pub(super) fn copied(ir: &Ir, name: &str, seen: &mut Vec<String>) -> bool {
    if seen.iter().any(|s| s == name) {
        return true;
    }
    seen.push(name.to_string());
    let Some(mapping) = ir.mapping.structs.values().find(|m| m.rust_name == name) else {
        return true;
    };
    mapping.fields.values().all(|field| {
        let mut ty = &field.ty;
        loop {
            match ty {
                RustType::Boxed(_) => return false,
                RustType::Vec(e)
                | RustType::Collection { element: e, .. }
                | RustType::Array(e, _)
                | RustType::Option(e) => ty = e,
                RustType::Named(held) => return copied(ir, held, seen),
                _ => return true,
            }
        }
    })
}

/// A static predicate on a message: whether its alternative is one of those `holds` says.
fn predicate(
    out: &mut String,
    name: &str,
    doc: &str,
    entries: &[Entry],
    holds: fn(&Entry) -> bool,
) {
    let tests: Vec<String> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| holds(e))
        .map(|(i, _)| format!("message.index() == {i}"))
        .collect();
    let body = if tests.is_empty() {
        "(void)message;\nreturn false;".to_string()
    } else {
        format!("return {};", tests.join(" || "))
    };
    writeln!(
        out,
        "/// {doc}\nstatic bool {name}(const Message& message) noexcept {{\n{body}\n}}\n"
    )
    .unwrap();
}

/// `encode_body`: the message or the call's parameters alone (an item's body).
fn encode_body(out: &mut String, entries: &[Entry]) {
    out.push_str(
        "/// Writes the message or the call's parameters alone (an item's body).\n\
         static idlc::Status encode_body(const Message& message, Writer& w) {\n",
    );
    for (i, e) in entries.iter().enumerate() {
        writeln!(
            out,
            "if (const {ty}* value = std::get_if<{i}>(&message)) {{\n\
             return Codec<{ty}, E>::encode(*value, w);\n}}",
            ty = e.ty
        )
        .unwrap();
    }
    out.push_str(
        "return idlc::Status::error(idlc::ErrorKind::InvalidArgument, w.bits_written());\n}\n\n",
    );
}

/// `sent_state`, `encode_delta_body` and `decode_delta_body`: a snapshot's states and deltas.
fn snapshot_functions(out: &mut String, entries: &[Entry]) {
    let snapshots: Vec<(usize, &Entry, &(String, String))> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((i, e, e.snapshot.as_ref()?)))
        .collect();
    out.push_str(
        "/// The state the receiver holds once it decoded the message sent in full (a \
         snapshot's first mirror).\n\
         static idlc::Status sent_state(const Message& message, Message& state) {\n",
    );
    for (i, e, _) in &snapshots {
        writeln!(
            out,
            "if (const {ty}* value = std::get_if<{i}>(&message)) {{\n\
             {ty} sent;\nIDLC_TRY((idlc::codec_sent<Codec<{ty}, E>>(*value, sent)));\n\
             state.emplace<{i}>(std::move(sent));\nreturn idlc::Status{{}};\n}}",
            ty = e.ty
        )
        .unwrap();
    }
    out.push_str(
        "state = message;\nreturn idlc::Status{};\n}\n\n\
         /// Writes a snapshot as a delta against `baseline` (the same message) and sets \
         `mirror`; InvalidArgument\n/// when it is no snapshot or `baseline` is another message.\n\
         static idlc::Status encode_delta_body(const Message& message, const Message& baseline, \
         const idlc::DeltaContext& ctx, Writer& w, Message& mirror) {\n",
    );
    for (i, e, (field, state)) in &snapshots {
        writeln!(
            out,
            "{{\nconst {ty}* value = std::get_if<{i}>(&message);\n\
             const {ty}* base = std::get_if<{i}>(&baseline);\n\
             if (value != nullptr && base != nullptr) {{\n{ty} sent;\n\
             IDLC_TRY((DeltaCodec<{state}, E>::encode_delta(value->{field}, base->{field}, ctx, w, sent.{field})));\n\
             mirror.emplace<{i}>(std::move(sent));\nreturn idlc::Status{{}};\n}}\n}}",
            ty = e.ty
        )
        .unwrap();
    }
    if snapshots.is_empty() {
        out.push_str("(void)message;\n(void)baseline;\n(void)ctx;\n(void)w;\n(void)mirror;\n");
    }
    out.push_str(
        "return idlc::Status::error(idlc::ErrorKind::InvalidArgument, 0);\n}\n\n\
         /// Reads a snapshot delta against `baseline`, a snapshot of the same message, into \
         `state`.\n\
         static idlc::Status decode_delta_body(const Message& baseline, const idlc::DeltaContext& ctx, \
         Reader& r, Message& state) {\n",
    );
    for (i, e, (field, struct_name)) in &snapshots {
        writeln!(
            out,
            "if (const {ty}* base = std::get_if<{i}>(&baseline)) {{\n{ty} decoded;\n\
             IDLC_TRY((DeltaCodec<{struct_name}, E>::decode_delta(base->{field}, ctx, r, decoded.{field})));\n\
             state.emplace<{i}>(std::move(decoded));\nreturn idlc::Status{{}};\n}}",
            ty = e.ty
        )
        .unwrap();
    }
    if snapshots.is_empty() {
        out.push_str("(void)baseline;\n(void)ctx;\n(void)state;\n");
    }
    out.push_str(
        "return idlc::Status::error(idlc::ErrorKind::InvalidArgument, r.bits_read());\n}\n\n",
    );
}

/// `decode_item`: a message or call by its item header (Rust's `Messages::decode_item`).
fn decode_item(out: &mut String, ids: &str, entries: &[Entry]) {
    out.push_str(
        "/// Reads the message or call of an item into `message`; `known` false (nothing read) \
         for an id or kind\n/// this version does not know.\n\
         static idlc::Status decode_item(const idlc::ItemHeader& header, Reader& r, Message& \
         message, bool& known) {\nknown = true;\n",
    );
    for (i, e) in entries.iter().enumerate() {
        let tag = if e.response.is_some() {
            "Request"
        } else {
            "Message"
        };
        writeln!(
            out,
            "if (header.id == {ids}::{id} && header.kind.tag == idlc::ItemTag::{tag}) {{\n\
             {ty} decoded;\nIDLC_TRY((Codec<{ty}, E>::decode(decoded, r)));\n\
             message.emplace<{i}>(std::move(decoded));\nreturn idlc::Status{{}};\n}}",
            id = e.id_const,
            ty = e.ty
        )
        .unwrap();
    }
    out.push_str("known = false;\nreturn idlc::Status{};\n}\n\n");
}

/// `response_id`, `encode_response` and `decode_response`.
fn response_functions(out: &mut String, ids: &str, answered: &[&Entry]) {
    let structs: Vec<&str> = answered
        .iter()
        .filter_map(|e| e.response.as_ref().map(|(s, _)| s.as_str()))
        .collect();
    let id_list: Vec<String> = answered
        .iter()
        .map(|e| format!("{ids}::{}", e.id_const))
        .collect();
    out.push_str("/// The id of the RPC a response answers.\n");
    if answered.is_empty() {
        out.push_str(
            "static std::uint32_t response_id(const Response& response) noexcept {\n\
             (void)response;\nreturn 0;\n}\n\n",
        );
    } else {
        writeln!(
            out,
            "static std::uint32_t response_id(const Response& response) noexcept {{\n\
             static constexpr std::uint32_t IDS[] = {{{}}};\n\
             return response.index() < {} ? IDS[response.index()] : 0;\n}}\n",
            id_list.join(", "),
            answered.len()
        )
        .unwrap();
    }
    out.push_str(
        "/// Writes the response struct (`f.response`, one field `value`).\n\
         static idlc::Status encode_response(const Response& response, Writer& w) {\n",
    );
    for (i, ty) in structs.iter().enumerate() {
        writeln!(
            out,
            "if (const {ty}* value = std::get_if<{i}>(&response)) {{\n\
             return Codec<{ty}, E>::encode(*value, w);\n}}"
        )
        .unwrap();
    }
    if answered.is_empty() {
        out.push_str("(void)response;\n");
    }
    out.push_str(
        "return idlc::Status::error(idlc::ErrorKind::InvalidArgument, w.bits_written());\n}\n\n\
         /// Reads the response of the RPC `id` into `response`; `known` false (nothing read) \
         for an RPC without one.\n\
         static idlc::Status decode_response(std::uint32_t id, Reader& r, Response& response, \
         bool& known) {\nknown = true;\n",
    );
    for ((i, ty), e) in structs.iter().enumerate().zip(answered) {
        writeln!(
            out,
            "if (id == {ids}::{id}) {{\n{ty} decoded;\n\
             IDLC_TRY((Codec<{ty}, E>::decode(decoded, r)));\n\
             response.emplace<{i}>(std::move(decoded));\nreturn idlc::Status{{}};\n}}",
            id = e.id_const
        )
        .unwrap();
    }
    if answered.is_empty() {
        out.push_str("(void)id;\n(void)r;\n(void)response;\n");
    }
    out.push_str("known = false;\nreturn idlc::Status{};\n}\n\n");
}

/// `handle`: the message or call to the handler's method of its entry (Rust's `handle`).
fn handle(out: &mut String, names: &Names, entries: &[Entry]) {
    let handler = &names.handler;
    writeln!(
        out,
        "/// Hands the message or call to the `{handler}` method of its entry; returns the \
         response of a\n/// call that expects one (what an endpoint's delivery callable returns).\n\
         static std::optional<Response> handle(Message message, {handler}& handler) {{"
    )
    .unwrap();
    let mut answer = 0;
    for (i, e) in entries.iter().enumerate() {
        let method = &e.method;
        match &e.response {
            Some((ty, _)) => {
                writeln!(
                    out,
                    "if ({t}* call = std::get_if<{i}>(&message)) {{\n{ty} response;\n\
                     response.value = handler.{method}(std::move(*call));\n\
                     return Response(std::in_place_index<{answer}>, std::move(response));\n}}",
                    t = e.ty
                )
                .unwrap();
                answer += 1;
            }
            None => writeln!(
                out,
                "if ({t}* value = std::get_if<{i}>(&message)) {{\n\
                 handler.{method}(std::move(*value));\nreturn std::nullopt;\n}}",
                t = e.ty
            )
            .unwrap(),
        }
    }
    out.push_str("return std::nullopt;\n}\n");
}
