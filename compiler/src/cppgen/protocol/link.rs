//! The links of a C++ side (codegen/protocol/link.rs's twin, the same bytes): per direction with
//! more than one protocol, an ids struct of the link's versions, its messages and responses as
//! `std::variant`s of its members' (`<Link>Message`, `<Link>Response`), and `<Link>Session<E>`,
//! what an `idlc::Endpoint` calls, delegating to the members' session structs; an alias for a
//! direction of one protocol; `<Side>Endpoint`. The ids and item ids are the IR's
//! (`crate::ir::protocol`).

use std::fmt::Write as _;

use crate::codegen::CodegenError;
use crate::codegen::protocol::{check_link_clashes, link_names};
use crate::ir::protocol::{Link, link_prefix, link_version_ids, links};
use crate::ir::{EntryKind, Ir, ProtocolRole, protocol_type_names};

/// One member of a union link, with the C++ names of its protocol's items.
struct Member {
    ids: String,
    session: String,
    message: String,
    response: String,
    /// Its index among the responses' alternatives, when its RPCs have responses.
    answer: Option<usize>,
    /// Its versions, and how far apart link versions one member version apart are.
    count: usize,
    stride: usize,
}

/// Writes the links of the side (after every protocol): nothing for a side that speaks at most
/// one protocol each way, or when a member has no session code (a message that holds itself).
pub(crate) fn links_items(out: &mut String, ir: &Ir) -> Result<(), CodegenError> {
    let links = links(ir);
    if links.is_empty() {
        return Ok(());
    }
    let without_session = links.iter().flat_map(|l| &l.members).find(|p| {
        super::entries(ir, p).map_or(true, |entries| {
            entries.is_empty()
                || !entries
                    .iter()
                    .all(|e| super::session::copied(ir, &e.ty, &mut Vec::new()))
        })
    });
    if let Some(protocol) = without_session {
        writeln!(
            out,
            "// This side has no links: the protocol `{}` has no session code.\n",
            protocol.name
        )
        .unwrap();
        return Ok(());
    }
    let endpoint = format!("{}Endpoint", link_prefix(ir));
    let ours = links.iter().flat_map(|l| {
        let [unit, message, response] = link_names(&l.name);
        [format!("{unit}Session"), unit, message, response]
    });
    check_link_clashes(
        ir,
        ours.chain([endpoint.clone()]),
        &["Endpoint", "Session"],
        "C++",
    )?;
    for link in &links {
        match link.members.as_slice() {
            [only] => {
                let [ids, ..] = protocol_type_names(&only.name);
                let name = &link.name;
                writeln!(
                    out,
                    "/// What this side {verb} its peer ({name}): the one protocol `{idl}`, its ids and \
                     item ids.\nusing {name} = {ids};\n\
                     template <class E = DefaultEncoding>\nusing {name}Session = {ids}Session<E>;\n",
                    verb = link.direction.phrase(),
                    idl = only.name
                )
                .unwrap();
            }
            _ => union(out, ir, link),
        }
    }
    if let [sends, receives] = links.as_slice() {
        let (sends, receives) = (&sends.name, &receives.name);
        writeln!(
            out,
            "/// A session endpoint over every protocol of this side: it sends `{sends}` and \
             receives `{receives}`\n/// (one per peer; see `idlc::Endpoint`).\n\
             template <class E = DefaultEncoding>\n\
             using {endpoint} = idlc::Endpoint<E, {sends}Session<E>, {receives}Session<E>>;\n"
        )
        .unwrap();
    }
    Ok(())
}

fn members(link: &Link<'_>) -> Vec<Member> {
    let mut answers = 0;
    link.members
        .iter()
        .enumerate()
        .map(|(index, protocol)| {
            let [ids, message, response, ..] = protocol_type_names(&protocol.name);
            let answered = protocol.entries.iter().any(|e| {
                matches!(
                    e.kind,
                    EntryKind::Rpc {
                        returns: Some(_),
                        ..
                    }
                )
            });
            let answer = answered.then(|| {
                answers += 1;
                answers - 1
            });
            Member {
                session: format!("{ids}Session<E>"),
                ids,
                message,
                response,
                answer,
                count: protocol.fences + 1,
                stride: link.stride(index),
            }
        })
        .collect()
}

fn union(out: &mut String, ir: &Ir, link: &Link<'_>) {
    let members = members(link);
    let [name, message, response] = link_names(&link.name);
    let n = members.len();
    ids_struct(out, ir, link, &members);
    let alternatives: Vec<&str> = members.iter().map(|m| m.message.as_str()).collect();
    writeln!(
        out,
        "/// A message or call of the link `{name}`: one alternative per member protocol, its \
         message.\nusing {message} = std::variant<{}>;",
        alternatives.join(", ")
    )
    .unwrap();
    let answering: Vec<&Member> = members.iter().filter(|m| m.answer.is_some()).collect();
    if answering.is_empty() {
        writeln!(
            out,
            "/// The responses of the link `{name}`, which has no call that expects one.\n\
             using {response} = idlc::NoResponse;\n"
        )
        .unwrap();
    } else {
        let alternatives: Vec<&str> = answering.iter().map(|m| m.response.as_str()).collect();
        writeln!(
            out,
            "/// A response to a call of the link `{name}`: one alternative per member whose \
             RPCs have responses.\nusing {response} = std::variant<{}>;\n",
            alternatives.join(", ")
        )
        .unwrap();
    }
    let first = &members[0].session;
    writeln!(
        out,
        "/// What an `idlc::Endpoint` needs of the link `{name}` in the encoding `E`: each \
         message, call and\n/// response to its member's session struct, its id `entry id * \
         {n} + member`.\n\
         template <class E = DefaultEncoding>\nstruct {name}Session {{\n\
         /// The encoding's writer.\nusing Writer = typename {first}::Writer;\n\
         /// The encoding's reader.\nusing Reader = typename {first}::Reader;\n\
         /// A message or call.\nusing Message = {message};\n\
         /// A response to a call.\nusing Response = {response};\n\
         /// The link's name.\nstatic constexpr const char* NAME = \"{name}\";\n\n\
         /// The ids of every version in the encoding `E`, oldest first.\n\
         static idlc::Versions versions() noexcept {{ return {name}::versions_with<E>(); }}\n\n\
         /// The first version that has the item `id`.\n\
         static std::optional<std::size_t> since(std::uint32_t id) noexcept {{ return {name}::since(id); }}\n\n\
         /// Whether the version `version` has the item `id`.\n\
         static bool supports(std::size_t version, std::uint32_t id) noexcept {{\n\
         return {name}::supports(version, id);\n}}\n"
    )
    .unwrap();
    let each =
        |out: &mut String, header: &str, arm: &dyn Fn(usize, &Member) -> String, end: &str| {
            out.push_str(header);
            for (k, m) in members.iter().enumerate() {
                out.push_str(&arm(k, m));
            }
            out.push_str(end);
        };
    each(
        out,
        "/// The item id of the message or call.\n\
         static std::uint32_t id(const Message& message) noexcept {\n",
        &|k, m| {
            format!(
                "if (const auto* value = std::get_if<{k}>(&message)) {{\n\
                 return idlc::link_item_id({}::id(*value), {k}, {name}::MEMBERS);\n}}\n",
                m.session
            )
        },
        "return 0;\n}\n\n",
    );
    for (function, text) in [
        (
            "expects_response",
            "Whether it is a call that expects a response (a request).",
        ),
        ("is_snapshot", "Whether it is a snapshot."),
    ] {
        each(
            out,
            &format!("/// {text}\nstatic bool {function}(const Message& message) noexcept {{\n"),
            &|k, m| {
                format!(
                    "if (const auto* value = std::get_if<{k}>(&message)) {{\n\
                     return {}::{function}(*value);\n}}\n",
                    m.session
                )
            },
            "return false;\n}\n\n",
        );
    }
    each(
        out,
        "/// Writes the message or the call's parameters alone (an item's body).\n\
         static idlc::Status encode_body(const Message& message, Writer& w) {\n",
        &|k, m| {
            format!(
                "if (const auto* value = std::get_if<{k}>(&message)) {{\n\
                 return {}::encode_body(*value, w);\n}}\n",
                m.session
            )
        },
        "return idlc::Status::error(idlc::ErrorKind::InvalidArgument, w.bits_written());\n}\n\n",
    );
    each(
        out,
        "/// The state the receiver holds once it decoded the message sent in full.\n\
         static idlc::Status sent_state(const Message& message, Message& state) {\n",
        &|k, m| {
            format!(
                "if (const auto* value = std::get_if<{k}>(&message)) {{\n{} sent;\n\
                 IDLC_TRY({}::sent_state(*value, sent));\n\
                 state.emplace<{k}>(std::move(sent));\nreturn idlc::Status{{}};\n}}\n",
                m.message, m.session
            )
        },
        "state = message;\nreturn idlc::Status{};\n}\n\n",
    );
    each(
        out,
        "/// Writes a snapshot as a delta against `baseline` (the same message) and sets \
         `mirror`.\n\
         static idlc::Status encode_delta_body(const Message& message, const Message& baseline, \
         const idlc::DeltaContext& ctx, Writer& w, Message& mirror) {\n",
        &|k, m| {
            format!(
                "{{\nconst auto* value = std::get_if<{k}>(&message);\n\
                 const auto* base = std::get_if<{k}>(&baseline);\n\
                 if (value != nullptr && base != nullptr) {{\n{} sent;\n\
                 IDLC_TRY({}::encode_delta_body(*value, *base, ctx, w, sent));\n\
                 mirror.emplace<{k}>(std::move(sent));\nreturn idlc::Status{{}};\n}}\n}}\n",
                m.message, m.session
            )
        },
        "return idlc::Status::error(idlc::ErrorKind::InvalidArgument, 0);\n}\n\n",
    );
    each(
        out,
        "/// Reads the message or call of an item into `message`; `known` false (nothing read) \
         for an item\n/// no member knows.\n\
         static idlc::Status decode_item(const idlc::ItemHeader& header, Reader& r, Message& \
         message, bool& known) {\n\
         const std::pair<std::uint32_t, std::uint32_t> split = \
         idlc::link_member(header.id, {name}::MEMBERS);\n\
         idlc::ItemHeader inner = header;\ninner.id = split.second;\n"
            .replace("{name}", &name)
            .as_str(),
        &|k, m| {
            format!(
                "if (split.first == {k}) {{\n{} decoded;\n\
                 IDLC_TRY({}::decode_item(inner, r, decoded, known));\n\
                 if (known) {{\nmessage.emplace<{k}>(std::move(decoded));\n}}\n\
                 return idlc::Status{{}};\n}}\n",
                m.message, m.session
            )
        },
        "known = false;\nreturn idlc::Status{};\n}\n\n",
    );
    each(
        out,
        "/// Reads a snapshot delta against `baseline`, a snapshot of the same message, into \
         `state`.\n\
         static idlc::Status decode_delta_body(const Message& baseline, const \
         idlc::DeltaContext& ctx, Reader& r, Message& state) {\n",
        &|k, m| {
            format!(
                "if (const auto* base = std::get_if<{k}>(&baseline)) {{\n{} decoded;\n\
                 IDLC_TRY({}::decode_delta_body(*base, ctx, r, decoded));\n\
                 state.emplace<{k}>(std::move(decoded));\nreturn idlc::Status{{}};\n}}\n",
                m.message, m.session
            )
        },
        "return idlc::Status::error(idlc::ErrorKind::InvalidArgument, r.bits_read());\n}\n\n",
    );
    response_functions(out, &name, &members, &answering);
    let received = link
        .members
        .iter()
        .all(|p| ir.mapping.role(&p.name) != ProtocolRole::Send);
    if received {
        each(
            out,
            "/// Hands the message or call to the handler of its protocol (`H` derives from \
             every member's\n/// handler class); returns the response of a call that expects \
             one.\ntemplate <class H>\n\
             static std::optional<Response> handle(Message message, H& handler) {\n",
            &|k, m| match m.answer {
                Some(j) => format!(
                    "if (auto* value = std::get_if<{k}>(&message)) {{\n\
                     std::optional<{}> answer = {}::handle(std::move(*value), handler);\n\
                     if (answer) {{\nreturn Response(std::in_place_index<{j}>, std::move(*answer));\n}}\n\
                     return std::nullopt;\n}}\n",
                    m.response, m.session
                ),
                None => format!(
                    "if (auto* value = std::get_if<{k}>(&message)) {{\n\
                     (void){}::handle(std::move(*value), handler);\nreturn std::nullopt;\n}}\n",
                    m.session
                ),
            },
            "return std::nullopt;\n}\n",
        );
    }
    out.push_str("};\n\n");
}

/// The link's struct of ids: its versions per encoding, `MEMBERS`, `member_versions`, `since`
/// and `supports`.
fn ids_struct(out: &mut String, ir: &Ir, link: &Link<'_>, members: &[Member]) {
    let name = &link.name;
    let (n, count) = (members.len(), link.version_count());
    let member_list: Vec<String> = link
        .members
        .iter()
        .map(|p| format!("`{}`", p.name))
        .collect();
    let of_version: Vec<String> = members
        .iter()
        .map(|m| match (m.stride, m.count) {
            (_, 1) => "0".to_string(),
            (1, c) => format!("version % {c}"),
            (s, c) => format!("version / {s} % {c}"),
        })
        .collect();
    writeln!(
        out,
        "/// What this side {verb} its peer, as one session protocol (a link): {members}. An \
         item id is\n/// `entry id * {n} + member`; a version is one version of each member.\n\
         struct {name} {{\n\
         /// The link's name.\nstatic constexpr const char* NAME = \"{name}\";\n\
         /// How many protocols the link has.\nstatic constexpr std::uint32_t MEMBERS = {n};\n\n\
         /// The ids of every version in the encoding `E`, oldest first.\n\
         template <class E>\nstatic idlc::Versions versions_with() noexcept;\n\
         /// The ids of every version in the default encoding, oldest first.\n\
         static idlc::Versions versions() noexcept;\n\
         /// The id of the newest version in the default encoding.\n\
         static std::uint64_t newest() noexcept;\n\n\
         /// The version of each member that the link's version `version` is (the first member \
         counts\n/// slowest); none past the newest.\n\
         static std::optional<std::array<std::size_t, {n}>> member_versions(std::size_t version) \
         noexcept {{\nif (version >= {count}) {{\nreturn std::nullopt;\n}}\n\
         return std::array<std::size_t, {n}>{{{{{}}}}};\n}}\n",
        of_version.join(", "),
        verb = link.direction.phrase(),
        members = member_list.join(", "),
    )
    .unwrap();
    out.push_str(
        "/// The first version of the link that has the item `id`; none for an id it does \
         not have.\nstatic std::optional<std::size_t> since(std::uint32_t id) noexcept {\n\
         const std::pair<std::uint32_t, std::uint32_t> split = idlc::link_member(id, MEMBERS);\n",
    );
    for (k, m) in members.iter().enumerate() {
        let scaled = if m.stride == 1 {
            "*since".to_string()
        } else {
            format!("*since * {}", m.stride)
        };
        writeln!(
            out,
            "if (split.first == {k}) {{\nstd::optional<std::size_t> since = {}::since(split.second);\n\
             return since ? std::optional<std::size_t>({scaled}) : std::nullopt;\n}}",
            m.ids
        )
        .unwrap();
    }
    out.push_str(
        "return std::nullopt;\n}\n\n\
         /// Whether the version `version` of the link has the item `id`: whether the version \
         of its member in\n/// it does.\n\
         static bool supports(std::size_t version, std::uint32_t id) noexcept {\n\
         const auto versions = member_versions(version);\nif (!versions) {\nreturn false;\n}\n\
         const std::pair<std::uint32_t, std::uint32_t> split = idlc::link_member(id, MEMBERS);\n",
    );
    for (k, m) in members.iter().enumerate() {
        writeln!(
            out,
            "if (split.first == {k}) {{\nstd::optional<std::size_t> since = {}::since(split.second);\n\
             return since && *since <= (*versions)[{k}];\n}}",
            m.ids
        )
        .unwrap();
    }
    out.push_str("return false;\n}\n};\n\n");
    super::version_definitions(out, ir, name, name, |encoding| {
        link_version_ids(ir, link, encoding)
    });
}

/// `response_id`, `encode_response` and `decode_response`, each to the member of the response.
fn response_functions(out: &mut String, name: &str, members: &[Member], answering: &[&Member]) {
    if answering.is_empty() {
        out.push_str(
            "/// The id of the RPC a response answers.\n\
             static std::uint32_t response_id(const Response& response) noexcept {\n\
             (void)response;\nreturn 0;\n}\n\n\
             /// Writes the response struct (`f.response`, one field `value`).\n\
             static idlc::Status encode_response(const Response& response, Writer& w) {\n\
             (void)response;\n\
             return idlc::Status::error(idlc::ErrorKind::InvalidArgument, w.bits_written());\n}\n\n\
             /// Reads the response of the RPC `id` into `response`; `known` false: no member \
             has one.\n\
             static idlc::Status decode_response(std::uint32_t id, Reader& r, Response& \
             response, bool& known) {\n(void)id;\n(void)r;\n(void)response;\n\
             known = false;\nreturn idlc::Status{};\n}\n\n",
        );
        return;
    }
    out.push_str(
        "/// The item id of the RPC a response answers.\n\
         static std::uint32_t response_id(const Response& response) noexcept {\n",
    );
    let indexed = members
        .iter()
        .enumerate()
        .filter_map(|(k, m)| Some((k, m.answer?, m)));
    for (k, j, m) in indexed.clone() {
        writeln!(
            out,
            "if (const auto* answer = std::get_if<{j}>(&response)) {{\n\
             return idlc::link_item_id({}::response_id(*answer), {k}, {name}::MEMBERS);\n}}",
            m.session
        )
        .unwrap();
    }
    out.push_str(
        "return 0;\n}\n\n\
         /// Writes the response struct (`f.response`, one field `value`).\n\
         static idlc::Status encode_response(const Response& response, Writer& w) {\n",
    );
    for (_, j, m) in indexed.clone() {
        writeln!(
            out,
            "if (const auto* answer = std::get_if<{j}>(&response)) {{\n\
             return {}::encode_response(*answer, w);\n}}",
            m.session
        )
        .unwrap();
    }
    writeln!(
        out,
        "return idlc::Status::error(idlc::ErrorKind::InvalidArgument, w.bits_written());\n}}\n\n\
         /// Reads the response of the item id `id` into `response`; `known` false (nothing \
         read) for an RPC\n/// without one.\n\
         static idlc::Status decode_response(std::uint32_t id, Reader& r, Response& response, \
         bool& known) {{\n\
         const std::pair<std::uint32_t, std::uint32_t> split = idlc::link_member(id, {name}::MEMBERS);"
    )
    .unwrap();
    for (k, j, m) in indexed {
        writeln!(
            out,
            "if (split.first == {k}) {{\n{} decoded;\n\
             IDLC_TRY({}::decode_response(split.second, r, decoded, known));\n\
             if (known) {{\nresponse.emplace<{j}>(std::move(decoded));\n}}\n\
             return idlc::Status{{}};\n}}",
            m.response, m.session
        )
        .unwrap();
    }
    out.push_str("known = false;\nreturn idlc::Status{};\n}\n\n");
}
