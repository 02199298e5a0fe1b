//! The links of a side (`crate::ir::protocol::links`): per direction with more than one
//! protocol, a union protocol whose message and response enums wrap the members' and whose
//! versions are the product of theirs, so that one `idlc::Endpoint` per peer speaks every
//! protocol of the side; an alias for a direction of one protocol; `<Side>Endpoint`. Which ids
//! the link has and which item id names which member's entry is the IR's.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::session::{session_message_impl, session_response_impl, snapshot_methods_impl};
use super::{
    CodegenError, UNIT_DERIVES, VALUE_DERIVES, messages_impl, responses_impl, version_accessors,
};
use crate::codegen::idents::{Prelude, checked_ident, doc, u64_lit};
use crate::ir::protocol::{Link, link_prefix, link_version_ids, links};
use crate::ir::{EntryKind, Ir, ProtocolDef, ProtocolRole, protocol_type_names};

/// One member of a union link, with the Rust names of its protocol's items.
struct Member {
    /// Its index among the link's members.
    index: Literal,
    /// Its protocol's unit struct, also the variant of the link's enums.
    protocol: Ident,
    message: Ident,
    response: Ident,
    handler: Ident,
    /// Whether it has RPCs with a response.
    answers: bool,
    /// Its versions, and how far apart link versions one member version apart are.
    count: usize,
    stride: usize,
}

impl Member {
    /// The member's version in the link's `version`: `version / stride % count`, without the
    /// steps that change nothing.
    fn version_of(&self, version: &TokenStream) -> TokenStream {
        let (stride, count) = (
            Literal::usize_unsuffixed(self.stride),
            Literal::usize_unsuffixed(self.count),
        );
        match (self.stride, self.count) {
            (_, 1) => quote!(0),
            (1, _) => quote!(#version % #count),
            _ => quote!(#version / #stride % #count),
        }
    }

    /// `Member::since(entry)` as the first link version whose version of this member has the
    /// entry (the other members' oldest).
    fn since(&self) -> TokenStream {
        let protocol = &self.protocol;
        let stride = Literal::usize_unsuffixed(self.stride);
        if self.stride == 1 {
            quote!(#protocol::since(entry))
        } else {
            quote!(#protocol::since(entry).map(|since| since * #stride))
        }
    }
}

/// The Rust names of a link's items.
struct LinkNames {
    unit: Ident,
    message: Ident,
    response: Ident,
}

/// Everything generated for the links of the side: nothing for a side that speaks at most one
/// protocol each way.
pub fn link_items(ir: &Ir) -> Result<TokenStream, CodegenError> {
    let links = links(ir);
    if links.is_empty() {
        return Ok(TokenStream::new());
    }
    let endpoint = format!("{}Endpoint", link_prefix(ir));
    let ours = links.iter().flat_map(|l| link_names(&l.name));
    check_link_clashes(ir, ours.chain([endpoint.clone()]), &["Endpoint"], "Rust")?;
    let mut items = Vec::new();
    for link in &links {
        items.push(match link.members.as_slice() {
            [only] => alias(link, only)?,
            _ => union(ir, link)?,
        });
    }
    if let [sends, receives] = links.as_slice() {
        let (endpoint, sends, receives) = (
            checked_ident(&endpoint)?,
            checked_ident(&sends.name)?,
            checked_ident(&receives.name)?,
        );
        let text = doc(&format!(
            "A session endpoint over every protocol of this side: it sends `{sends}` and \
             receives `{receives}` (one per peer; see [`idlc::Endpoint`])."
        ));
        items.push(quote! {
            #text
            pub type #endpoint<E = DefaultEncoding> = idlc::Endpoint<E, #sends, #receives>;
        });
    }
    Ok(quote!(#(#items)*))
}

/// Refuses the names `ours` that the side's links take (in `language`, "Rust" or "C++") where a
/// type of the schema or an item of a protocol has them: the protocol's own names and
/// `<Protocol><suffix>` for each of `suffixes` (its endpoint alias, ...).
pub(crate) fn check_link_clashes(
    ir: &Ir,
    ours: impl IntoIterator<Item = String>,
    suffixes: &[&str],
    language: &str,
) -> Result<(), CodegenError> {
    for name in ours {
        let protocol_item = ir.schema.protocols.keys().find(|p| {
            let names = protocol_type_names(p);
            names.contains(&name) || suffixes.iter().any(|s| name == format!("{}{s}", names[0]))
        });
        if let Some(protocol) = protocol_item {
            return Err(CodegenError(format!(
                "the link of this side needs the {language} name `{name}`, which the protocol `{protocol}` has: rename the side or the protocol"
            )));
        }
        if ir.mapping.names_type(&name) {
            return Err(CodegenError(format!(
                "the link of this side needs the {language} name `{name}`, which a type of the schema has: rename the side or the type"
            )));
        }
    }
    Ok(())
}

/// A link's unit struct (C++: its ids struct), message enum and response enum.
pub(crate) fn link_names(name: &str) -> [String; 3] {
    [
        name.to_string(),
        format!("{name}Message"),
        format!("{name}Response"),
    ]
}

/// A direction of one protocol: the link is that protocol.
fn alias(link: &Link<'_>, only: &ProtocolDef) -> Result<TokenStream, CodegenError> {
    let name = checked_ident(&link.name)?;
    let [unit, ..] = protocol_type_names(&only.name);
    let unit = checked_ident(&unit)?;
    let text = doc(&format!(
        "What this side {} its peer ({:?}): the one protocol `{}`, its ids and item ids.",
        link.direction.phrase(),
        link.direction,
        only.name
    ));
    Ok(quote!(#text pub type #name = #unit;))
}

fn members(link: &Link<'_>) -> Result<Vec<Member>, CodegenError> {
    link.members
        .iter()
        .enumerate()
        .map(|(index, protocol)| {
            let [unit, message, response, handler, ..] = protocol_type_names(&protocol.name);
            let answers = protocol.entries.iter().any(|e| {
                matches!(
                    e.kind,
                    EntryKind::Rpc {
                        returns: Some(_),
                        ..
                    }
                )
            });
            Ok(Member {
                index: Literal::usize_unsuffixed(index),
                protocol: checked_ident(&unit)?,
                message: format_ident!("{message}"),
                response: format_ident!("{response}"),
                handler: format_ident!("{handler}"),
                answers,
                count: protocol.fences + 1,
                stride: link.stride(index),
            })
        })
        .collect()
}

/// A direction of several protocols: the union protocol.
fn union(ir: &Ir, link: &Link<'_>) -> Result<TokenStream, CodegenError> {
    let [unit, message, response] = link_names(&link.name);
    let names = LinkNames {
        unit: checked_ident(&unit)?,
        message: format_ident!("{message}"),
        response: format_ident!("{response}"),
    };
    let members = members(link)?;
    let answering: Vec<&Member> = members.iter().filter(|m| m.answers).collect();
    let response = if answering.is_empty() {
        quote!(idlc::NoResponse)
    } else {
        let response = &names.response;
        quote!(#response)
    };
    let mut items = vec![unit_struct(ir, link, &names, &members, &response)?];
    items.push(message_enum(ir, link, &names, &members)?);
    if !answering.is_empty() {
        items.push(response_enum(ir, link, &names, &answering)?);
    }
    // Every member received on this side has a handler: the link's messages have `handle`.
    let received = link
        .members
        .iter()
        .all(|p| ir.mapping.role(&p.name) != ProtocolRole::Send);
    if received {
        items.push(handle(ir, &names, &members, &response));
    }
    Ok(quote!(#(#items)*))
}

fn unit_struct(
    ir: &Ir,
    link: &Link<'_>,
    names: &LinkNames,
    members: &[Member],
    response: &TokenStream,
) -> Result<TokenStream, CodegenError> {
    let (unit, message) = (&names.unit, &names.message);
    let name = &link.name;
    let derives = crate::codegen::types::derives(ir, &UNIT_DERIVES)?;
    let width = Literal::u32_unsuffixed(link.width());
    let count = Literal::usize_unsuffixed(link.version_count());
    let n = Literal::usize_unsuffixed(members.len());
    let (index, protocol) = (
        members.iter().map(|m| &m.index).collect::<Vec<_>>(),
        members.iter().map(|m| &m.protocol).collect::<Vec<_>>(),
    );
    let of_version = members.iter().map(|m| m.version_of(&quote!(version)));
    let since_arms = members.iter().map(|m| {
        let (index, since) = (&m.index, m.since());
        quote!(#index => #since,)
    });
    let mut impls = Vec::new();
    for encoding in ir.encodings.values() {
        let marker = checked_ident(&crate::codegen::marker_name(ir, &encoding.name))?;
        let versions = link_version_ids(ir, link, &encoding.name)
            .into_iter()
            .map(u64_lit);
        impls.push(quote! {
            impl idlc::Protocol<#marker> for #unit {
                const NAME: &'static str = #name;
                const VERSIONS: &'static [u64] = &[#(#versions),*];
            }

            impl idlc::SessionProtocol<#marker> for #unit {
                type Message = #message;
                type Response = #response;

                fn since(id: u32) -> ::core::option::Option<usize> {
                    #unit::since(id)
                }

                fn supports(version: usize, id: u32) -> bool {
                    #unit::supports(version, id)
                }
            }
        });
    }
    let member_list = link
        .members
        .iter()
        .map(|p| format!("`{}`", p.name))
        .collect::<Vec<_>>()
        .join(", ");
    let text = doc(&format!(
        "What this side {} its peer, as one session protocol (a link): {member_list}. An \
         item id is `entry id * {} + member`; a version is one version of each member (per \
         encoding its id, [`idlc::Protocol`]).",
        link.direction.phrase(),
        link.width()
    ));
    let accessors = version_accessors("link");
    Ok(quote! {
        #text
        #derives
        pub struct #unit;

        impl #unit {
            /// How many protocols the link has: an item id is `entry id * MEMBERS + member`.
            pub const MEMBERS: u32 = #width;

            #accessors

            /// The version of each member (in order) that the link's version `version` is; the
            /// first member counts slowest. `None` past the newest.
            pub fn member_versions(version: usize) -> ::core::option::Option<[usize; #n]> {
                if version >= #count {
                    return ::core::option::Option::None;
                }
                ::core::option::Option::Some([#(#of_version),*])
            }

            /// The first version of the link that has the item `id` (the version of its member
            /// that added it, the other members' oldest), or `None` for an id the link does not
            /// have.
            pub fn since(id: u32) -> ::core::option::Option<usize> {
                let (member, entry) = idlc::link_member(id, Self::MEMBERS);
                match member {
                    #(#since_arms)*
                    _ => ::core::option::Option::None,
                }
            }

            /// Whether the version `version` of the link has the item `id`: whether the version of
            /// its member in it does.
            pub fn supports(version: usize, id: u32) -> bool {
                let (member, entry) = idlc::link_member(id, Self::MEMBERS);
                let ::core::option::Option::Some(versions) = Self::member_versions(version) else {
                    return false;
                };
                match member {
                    #(#index => #protocol::since(entry)
                        .is_some_and(|since| since <= versions[#index]),)*
                    _ => false,
                }
            }
        }

        #(#impls)*
    })
}

/// `match self { Self::A(m) => arm(A), ... }` over the members.
fn each<'m>(
    members: impl IntoIterator<Item = &'m Member>,
    arm: impl Fn(&Member) -> TokenStream,
) -> TokenStream {
    each_of(quote!(self), members, arm)
}

/// `match on { Self::A(m) => arm(A), ... }` over the members.
fn each_of<'m>(
    on: TokenStream,
    members: impl IntoIterator<Item = &'m Member>,
    arm: impl Fn(&Member) -> TokenStream,
) -> TokenStream {
    let arms = members.into_iter().map(|m| {
        let (variant, body) = (&m.protocol, arm(m));
        quote!(Self::#variant(m) => #body,)
    });
    quote!(match #on { #(#arms)* })
}

fn message_enum(
    ir: &Ir,
    link: &Link<'_>,
    names: &LinkNames,
    members: &[Member],
) -> Result<TokenStream, CodegenError> {
    let (unit, message) = (&names.unit, &names.message);
    let derives = crate::codegen::types::derives(ir, &VALUE_DERIVES)?;
    let variants = members.iter().map(|m| {
        let (variant, inner) = (&m.protocol, &m.message);
        let text = doc(&format!("A message or call of `{variant}`."));
        quote!(#text #variant(#inner))
    });
    let bounds = members.iter().map(|m| {
        let inner = &m.message;
        quote!(#inner: idlc::SessionMessage<E>,)
    });
    let bounds = quote!(#(#bounds)*);
    let id = each(members, |m| {
        let index = &m.index;
        quote!(idlc::link_item_id(m.id(), #index, #unit::MEMBERS))
    });
    let decode_arms = members.iter().map(|m| {
        let (index, variant, inner) = (&m.index, &m.protocol, &m.message);
        quote!(#index => <#inner as idlc::Messages<E>>::decode_item(inner, r)?.map(Self::#variant),)
    });
    let request = each(members, |_| quote!(idlc::SessionMessage::<E>::request(m)));
    let set_request = each(members, |_| {
        quote!(idlc::SessionMessage::<E>::set_request(m, request))
    });
    let body = each(members, |_| {
        quote!(idlc::SessionMessage::<E>::encode_body(m, w))
    });
    let is_snapshot = each(members, |_| {
        quote!(idlc::SessionMessage::<E>::is_snapshot(m))
    });
    let sent_state = each(members, |m| {
        let variant = &m.protocol;
        quote!(Self::#variant(idlc::SessionMessage::<E>::sent_state(m)?))
    });
    let delta_arms = members.iter().map(|m| {
        let variant = &m.protocol;
        quote! {
            (Self::#variant(m), Self::#variant(baseline)) => Ok(Self::#variant(
                idlc::SessionMessage::<E>::encode_delta_body(m, baseline, ctx, w)?,
            )),
        }
    });
    let baseline = each_of(quote!(baseline), members, |m| {
        let (variant, inner) = (&m.protocol, &m.message);
        quote! {
            Self::#variant(<#inner as idlc::SessionMessage<E>>::decode_delta_body(m, ctx, r)?)
        }
    });
    let messages = messages_impl(
        message,
        &bounds,
        &quote! {
            let (member, entry) = idlc::link_member(header.id, #unit::MEMBERS);
            let inner = idlc::ItemHeader { id: entry, kind: header.kind };
            let incoming = match member {
                #(#decode_arms)*
                _ => return Ok(idlc::Incoming::Unknown(header)),
            };
            // An entry its member does not know is unknown by the link's id.
            Ok(match incoming {
                idlc::Incoming::Unknown(_) => idlc::Incoming::Unknown(header),
                known => known,
            })
        },
        &quote! {
            let kind = match idlc::SessionMessage::<E>::request(self) {
                ::core::option::Option::Some(request) => idlc::ItemKind::Request(request),
                ::core::option::Option::None => idlc::ItemKind::Message,
            };
            packet.push(#message::id(self), kind, |w| {
                idlc::SessionMessage::<E>::encode_body(self, w)
            })
        },
    );
    let more = snapshot_methods_impl(
        &is_snapshot,
        &quote!(Ok(#sent_state)),
        &quote! {
            match (self, baseline) {
                #(#delta_arms)*
                _ => Err(idlc::EncodeError::new(idlc::EncodeErrorKind::InvalidArgument, 0)),
            }
        },
        &quote!(Ok(#baseline)),
    );
    let session = session_message_impl(message, &bounds, &request, &set_request, &body, &more);
    let text = doc(&format!(
        "A message or call of the link `{}`, of one of its protocols.",
        link.name
    ));
    Ok(quote! {
        #text
        #derives
        #[allow(clippy::large_enum_variant)]
        pub enum #message {
            #(#variants,)*
        }

        impl #message {
            /// Its item id in the link: `entry id * MEMBERS + member`.
            pub fn id(&self) -> u32 {
                #id
            }
        }

        #messages

        #session
    })
}

fn response_enum(
    ir: &Ir,
    link: &Link<'_>,
    names: &LinkNames,
    answering: &[&Member],
) -> Result<TokenStream, CodegenError> {
    let (unit, response) = (&names.unit, &names.response);
    let derives = crate::codegen::types::derives(ir, &VALUE_DERIVES)?;
    let variants = answering.iter().map(|m| {
        let (variant, inner) = (&m.protocol, &m.response);
        let text = doc(&format!("A response to a call of `{variant}`."));
        quote!(#text #variant(#inner))
    });
    let bounds = answering.iter().map(|m| {
        let inner = &m.response;
        quote!(#inner: idlc::SessionResponse<E>,)
    });
    let bounds = quote!(#(#bounds)*);
    let decode_arms = answering.iter().map(|m| {
        let (index, variant, inner) = (&m.index, &m.protocol, &m.response);
        quote! {
            #index => <#inner as idlc::Responses<E>>::decode_response(entry, request, r)?
                .map(Self::#variant),
        }
    });
    let members = answering.iter().copied();
    let id = each(members.clone(), |m| {
        let index = &m.index;
        quote!(idlc::link_item_id(idlc::SessionResponse::<E>::id(m), #index, #unit::MEMBERS))
    });
    let request = each(members.clone(), |_| {
        quote!(idlc::SessionResponse::<E>::request(m))
    });
    let body = each(members, |_| {
        quote!(idlc::SessionResponse::<E>::encode_body(m, w))
    });
    let responses = responses_impl(
        response,
        &bounds,
        &quote! {
            let (member, entry) = idlc::link_member(id, #unit::MEMBERS);
            Ok(match member {
                #(#decode_arms)*
                _ => ::core::option::Option::None,
            })
        },
    );
    let session = session_response_impl(response, &bounds, &id, &request, &body);
    let text = doc(&format!(
        "A response to a call of the link `{}`, paired with its request.",
        link.name
    ));
    Ok(quote! {
        #text
        #derives
        #[allow(clippy::large_enum_variant)]
        pub enum #response {
            #(#variants,)*
        }

        #responses

        #session
    })
}

/// `handle` of a link whose members this side all receives: each message to its member's
/// handler.
fn handle(ir: &Ir, names: &LinkNames, members: &[Member], response: &TokenStream) -> TokenStream {
    let message = &names.message;
    let sized = Prelude::of(ir).path("Sized");
    let handlers = members.iter().map(|m| &m.handler);
    let any_answers = members.iter().any(|m| m.answers);
    let arms = each(members, |m| {
        let variant = &m.protocol;
        match (m.answers, any_answers) {
            (true, _) => quote!(m.handle(handler).map(#response::#variant)),
            (false, true) => quote!(m.handle(handler).map(|never| match never {})),
            (false, false) => quote!(m.handle(handler)),
        }
    });
    quote! {
        impl #message {
            /// Hands the message or call to the handler of its protocol; returns the response
            /// of a call that expects one (what an `idlc::Endpoint` delivery closure returns).
            pub fn handle<H: #(#handlers)+* + ?#sized>(
                self,
                handler: &mut H,
            ) -> ::core::option::Option<#response> {
                #arms
            }
        }
    }
}
