//! The code of a PROTOCOL: its ids, and per the side's role the caller half (a sender of
//! messages and calls that pairs responses with their requests) and the receiver half (an enum
//! of its messages, a handler trait, a dispatcher that answers requests).

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::CodegenError;
use super::idents::{checked_ident, doc, ident, rust_type, u32_lit, u64_lit};
use crate::ir::{EntryKind, Ir, ProtocolDef, ProtocolRole};

mod link;
mod session;

pub use link::link_items;
pub(crate) use link::{check_link_clashes, link_names};

/// One message or RPC of a protocol, with its Rust names.
struct Entry {
    id: u32,
    idl_name: String,
    /// `MESSAGE`, `RPC` or `RPC .. ->`, for docs.
    what: String,
    /// A MESSAGE (not an RPC).
    is_message: bool,
    /// The struct sent: the message, or the RPC's parameters.
    ty: TokenStream,
    /// A snapshot (a MESSAGE whose one field is a PUBLISHABLE_STRUCT, delta-coded in a
    /// session): that field's Rust name and type.
    snapshot: Option<(Ident, TokenStream)>,
    /// The variant of the message enum (the struct's Rust name).
    variant: Ident,
    /// The handler and sender method.
    method: Ident,
    /// The id constant.
    id_const: Ident,
    /// For an RPC with a response: the response struct and the Rust type of its value.
    response: Option<(TokenStream, TokenStream)>,
    /// The version (segment of the protocol's list) it came in.
    segment: usize,
    /// An RPC's parameters (Rust name and type, in order) when its sender stub takes them one by
    /// one: at most [`MAX_STUB_PARAMETERS`]. `None` for a message or a longer list.
    params: Option<Vec<(Ident, TokenStream)>>,
    /// The sender's method that takes the whole struct: `call_<rpc>` for an RPC, the entry's
    /// method for a message.
    struct_method: Ident,
}

/// The most parameters a sender's RPC stub takes one by one (`fire(turret, bearing)`); an RPC
/// with more is called with its parameter struct only (`call_fire(&Fire { .. })`).
pub const MAX_STUB_PARAMETERS: usize = 6;

/// Method names of a sender (and the handler's `unknown`) that an entry's stub must not take.
const RESERVED_METHODS: [&str; 15] = [
    "unknown",
    "new",
    "with_mtu",
    "with_encoding",
    "with_encoding_and_mtu",
    "set_version",
    "supports",
    "send",
    "len",
    "is_empty",
    "packet_bytes",
    "finish",
    "read_responses",
    "pending",
    "forget",
];

/// What a protocol's (or a link's) unit struct derives, before the side's DERIVEs.
const UNIT_DERIVES: [&str; 7] = [
    "Debug",
    "Clone",
    "Copy",
    "Default",
    "PartialEq",
    "Eq",
    "Hash",
];

/// What a protocol's (or a link's) message and response enums derive, before the side's
/// DERIVEs: they are data, like the structs.
const VALUE_DERIVES: [&str; 3] = ["Debug", "Clone", "PartialEq"];

/// The Rust names of a protocol's items.
struct Names {
    protocol: Ident,
    message: Ident,
    response: Ident,
    handler: Ident,
    sender: Ident,
    receiver: Ident,
}

/// Everything generated for `protocol` on this side.
pub fn protocol_items(ir: &Ir, protocol: &ProtocolDef) -> Result<TokenStream, CodegenError> {
    let role = ir.mapping.role(&protocol.name);
    let [
        unit,
        message,
        response,
        handler_trait,
        sender_struct,
        receiver_struct,
    ] = crate::ir::protocol_type_names(&protocol.name);
    let names = Names {
        protocol: checked_ident(&unit)?,
        message: format_ident!("{message}"),
        response: format_ident!("{response}"),
        handler: format_ident!("{handler_trait}"),
        sender: format_ident!("{sender_struct}"),
        receiver: format_ident!("{receiver_struct}"),
    };
    // A SEND side also gets `<Protocol>Endpoint` (session.rs).
    let endpoint = matches!(role, ProtocolRole::Send | ProtocolRole::Both)
        .then(|| format_ident!("{}Endpoint", names.protocol));
    check_clashes(ir, protocol, &names, endpoint.as_ref())?;
    let entries = entries(ir, protocol)?;
    let bounds = codec_bounds(&entries);
    // The message and response enums are data, like the structs: the side's DERIVEs apply.
    let derives = super::types::derives(ir, &VALUE_DERIVES)?;
    let mut items = vec![ids(ir, protocol, &names, &entries)?];
    // Both sides hold messages as values: a receiver gets them, a sender sends them.
    items.push(message_enum(protocol, &names, &entries, &bounds, &derives));
    // Both sides hold responses as values too: a caller gets them, a session answers with them.
    if entries.iter().any(|e| e.response.is_some()) {
        items.push(response_enum(protocol, &names, &entries, &bounds, &derives));
    }
    items.push(session::session_items(ir, &names, &entries, role)?);
    if matches!(role, ProtocolRole::Send | ProtocolRole::Both) {
        items.push(sender(protocol, &names, &entries, &bounds));
    }
    if matches!(role, ProtocolRole::Receive | ProtocolRole::Both) {
        items.push(handler(protocol, &names, &entries));
        // `Sized`, qualified when a type of the schema takes its name.
        let sized = super::idents::Prelude::of(ir).path("Sized");
        items.push(receiver(protocol, &names, &entries, &bounds, &sized));
    }
    Ok(quote!(#(#items)*))
}

fn check_clashes(
    ir: &Ir,
    protocol: &ProtocolDef,
    names: &Names,
    endpoint: Option<&Ident>,
) -> Result<(), CodegenError> {
    let ours: Vec<&Ident> = [
        &names.protocol,
        &names.message,
        &names.response,
        &names.handler,
        &names.sender,
        &names.receiver,
    ]
    .into_iter()
    .chain(endpoint)
    .collect();
    let taken = ir
        .mapping
        .structs
        .values()
        .map(|s| s.rust_name.as_str())
        .chain(ir.mapping.enums.values().map(|e| e.rust_name.as_str()))
        .chain(ir.mapping.typedefs.values().map(|t| t.rust_name.as_str()));
    // The protocol's unit struct is a value too: it would shadow the prelude's.
    if ["Some", "None", "Ok", "Err"].contains(&names.protocol.to_string().as_str()) {
        return Err(CodegenError(format!(
            "the protocol `{}` would be the Rust unit struct `{}`, which shadows the prelude's `{}` in the generated module: rename the protocol",
            protocol.name, names.protocol, names.protocol
        )));
    }
    for name in taken {
        if let Some(clash) = ours.iter().find(|ident| **ident == name) {
            return Err(CodegenError(format!(
                "the protocol `{}` needs the Rust name `{clash}`, which a type of the schema has: rename one of them",
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
            Some((response, value)) => Some((
                rust_type(&response.rust_name)?,
                super::idents::Prelude::of(ir).rust_type(&value.ty)?,
            )),
            None => None,
        };
        let (idl_name, what, mapping) = (view.name.to_string(), view.what, view.sent);
        let snapshot = match view.snapshot {
            Some((field, ty)) => {
                Some((checked_ident(&field.rust_name)?, rust_type(&ty.rust_name)?))
            }
            None => None,
        };
        let variant = mapping
            .rust_name
            .rsplit("::")
            .next()
            .unwrap_or(&mapping.rust_name)
            .to_upper_camel_case();
        let method = method_ident(&idl_name.to_snake_case());
        let is_message = matches!(entry.kind, EntryKind::Message(_));
        let struct_method = if is_message {
            method.clone()
        } else {
            method_ident(&format!("call_{}", idl_name.to_snake_case()))
        };
        let taken = |m: &Ident| {
            let text = m.to_string();
            RESERVED_METHODS.contains(&text.trim_start_matches("r#"))
                || out.iter().any(|e| e.method == *m || e.struct_method == *m)
        };
        for m in [&method, &struct_method] {
            if taken(m) {
                return Err(CodegenError(format!(
                    "the entry `{idl_name}` of the protocol `{}` needs the method name `{m}`, which another entry or the generated sender or receiver has: rename the entry",
                    protocol.name
                )));
            }
        }
        let params = if is_message {
            None
        } else {
            stub_params(ir, &idl_name, mapping)?
        };
        out.push(Entry {
            id: entry.id,
            is_message,
            what,
            snapshot,
            ty: rust_type(&mapping.rust_name)?,
            variant: checked_ident(&variant)?,
            method,
            id_const: format_ident!("{}", idl_name.to_shouty_snake_case()),
            response,
            segment: entry.segment,
            params,
            struct_method,
            idl_name,
        });
    }
    Ok(out)
}

/// The parameters of the RPC `name` as its one-by-one stub takes them, or `None` past
/// [`MAX_STUB_PARAMETERS`].
fn stub_params(
    ir: &Ir,
    name: &str,
    mapping: &crate::ir::StructMapping,
) -> Result<Option<Vec<(Ident, TokenStream)>>, CodegenError> {
    let def = ir
        .schema
        .structs
        .get(name)
        .ok_or_else(|| CodegenError(format!("internal: no parameters of `{name}`")))?;
    if def.fields().count() > MAX_STUB_PARAMETERS {
        return Ok(None);
    }
    let prelude = super::idents::Prelude::of(ir);
    def.fields()
        .map(|field| {
            let rust = mapping.fields.get(&field.name).ok_or_else(|| {
                CodegenError(format!("internal: no mapping of {name}.{}", field.name))
            })?;
            Ok((ident(&rust.rust_name), prelude.rust_type(&rust.ty)?))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// A method name: a raw identifier where the name is a keyword, `name_` where not even that
/// is allowed.
fn method_ident(name: &str) -> Ident {
    if syn::parse_str::<Ident>(name).is_ok() {
        ident(name)
    } else if matches!(name, "self" | "super" | "crate" | "Self" | "_") {
        format_ident!("{name}_")
    } else {
        ident(&format!("r#{name}"))
    }
}

/// `Welcome: Codec<E>, ...` for every struct the protocol sends.
fn codec_bounds(entries: &[Entry]) -> TokenStream {
    let types = entries.iter().flat_map(|e| {
        std::iter::once(e.ty.clone()).chain(e.response.as_ref().map(|(ty, _)| ty.clone()))
    });
    quote!(#(#types: idlc::Codec<E>,)*)
}

fn ids(
    ir: &Ir,
    protocol: &ProtocolDef,
    names: &Names,
    entries: &[Entry],
) -> Result<TokenStream, CodegenError> {
    let Names { protocol: name, .. } = names;
    let idl_name = &protocol.name;
    let derives = super::types::derives(ir, &UNIT_DERIVES)?;
    let consts = entries.iter().map(|e| {
        let (id_const, id) = (&e.id_const, u32_lit(e.id));
        let text = doc(&format!(
            "The id of `{}`, {} (version {}).",
            e.idl_name, e.what, e.segment
        ));
        quote!(#text pub const #id_const: u32 = #id;)
    });
    // One arm per version: the ids of the entries it added.
    let mut by_version: std::collections::BTreeMap<usize, Vec<&Ident>> = Default::default();
    for e in entries {
        by_version.entry(e.segment).or_default().push(&e.id_const);
    }
    let since_arms = by_version.iter().map(|(segment, ids)| {
        let segment = proc_macro2::Literal::usize_unsuffixed(*segment);
        quote!(#(Self::#ids)|* => Some(#segment),)
    });
    let mut impls = Vec::new();
    for encoding in ir.encodings.values() {
        let marker = checked_ident(&super::marker_name(ir, &encoding.name))?;
        let versions = crate::ir::protocol::version_ids(ir, protocol, &encoding.name)
            .into_iter()
            .map(u64_lit);
        impls.push(quote! {
            impl idlc::Protocol<#marker> for #name {
                const NAME: &'static str = #idl_name;
                const VERSIONS: &'static [u64] = &[#(#versions),*];
            }
        });
    }
    let accessors = version_accessors("protocol");
    let text = doc(&format!(
        "The protocol `{idl_name}`: its message ids, and per encoding its version ids \
         ([`idlc::Protocol`]: one per FENCE of its list, plus one), for \
         [`idlc::negotiate`]."
    ));
    Ok(quote! {
        #text
        #derives
        pub struct #name;

        impl #name {
            #(#consts)*

            #accessors

            /// The version that added the message or RPC `id` (its index in the list of
            /// versions), or `None` for an id this protocol does not have.
            pub fn since(id: u32) -> ::core::option::Option<usize> {
                match id {
                    #(#since_arms)*
                    _ => None,
                }
            }
        }

        #(#impls)*
    })
}

/// `versions()`, `newest()`, `versions_with::<E>()` and `newest_with::<E>()` of a protocol's or
/// a link's unit struct (`what` names it in their docs).
fn version_accessors(what: &str) -> TokenStream {
    let all = doc(&format!(
        "The ids of every version of this {what} in the default encoding, oldest first."
    ));
    let all_with = doc(&format!(
        "The ids of every version of this {what} in the encoding `E`, oldest first."
    ));
    quote! {
        #all
        pub fn versions() -> &'static [u64] {
            Self::versions_with::<DefaultEncoding>()
        }

        /// The id of the newest version in the default encoding.
        pub fn newest() -> u64 {
            Self::newest_with::<DefaultEncoding>()
        }

        #all_with
        pub fn versions_with<E: idlc::Encoding>() -> &'static [u64]
        where
            Self: idlc::Protocol<E>,
        {
            <Self as idlc::Protocol<E>>::VERSIONS
        }

        /// The id of the newest version in the encoding `E`.
        pub fn newest_with<E: idlc::Encoding>() -> u64
        where
            Self: idlc::Protocol<E>,
        {
            Self::versions_with::<E>().last().copied().unwrap_or_default()
        }
    }
}

fn message_enum(
    protocol: &ProtocolDef,
    names: &Names,
    entries: &[Entry],
    bounds: &TokenStream,
    derives: &TokenStream,
) -> TokenStream {
    let Names {
        protocol: ids,
        message,
        ..
    } = names;
    let variants = entries.iter().map(|e| {
        let (variant, ty) = (&e.variant, &e.ty);
        let text = doc(&format!("`{}`, {}.", e.idl_name, e.what));
        if e.response.is_some() {
            quote! {
                #text
                #variant {
                    /// The request id its response must carry.
                    request: idlc::RequestId,
                    /// The call's arguments.
                    call: #ty,
                }
            }
        } else {
            quote!(#text #variant(#ty))
        }
    });
    let id_arms = entries.iter().map(|e| {
        let (variant, id_const) = (&e.variant, &e.id_const);
        if e.response.is_some() {
            quote!(Self::#variant { .. } => #ids::#id_const)
        } else {
            quote!(Self::#variant(_) => #ids::#id_const)
        }
    });
    let decode_arms = entries.iter().map(|e| {
        let (variant, ty, id_const) = (&e.variant, &e.ty, &e.id_const);
        if e.response.is_some() {
            quote! {
                (#ids::#id_const, idlc::ItemKind::Request(request)) => Self::#variant {
                    request,
                    call: <#ty as idlc::Codec<E>>::decode_from(r)?,
                }
            }
        } else {
            quote! {
                (#ids::#id_const, idlc::ItemKind::Message) => {
                    Self::#variant(<#ty as idlc::Codec<E>>::decode_from(r)?)
                }
            }
        }
    });
    let encode_arms = entries.iter().map(|e| {
        let (variant, id_const) = (&e.variant, &e.id_const);
        if e.response.is_some() {
            quote! {
                Self::#variant { request, call } => packet.push(
                    #ids::#id_const,
                    idlc::ItemKind::Request(*request),
                    |w| idlc::Codec::<E>::encode_to(call, w),
                ),
            }
        } else {
            quote! {
                Self::#variant(value) => packet.push(
                    #ids::#id_const,
                    idlc::ItemKind::Message,
                    |w| idlc::Codec::<E>::encode_to(value, w),
                ),
            }
        }
    });
    let messages = messages_impl(
        message,
        bounds,
        &quote! {
            Ok(idlc::Incoming::Known(match (header.id, header.kind) {
                #(#decode_arms,)*
                _ => return Ok(idlc::Incoming::Unknown(header)),
            }))
        },
        &quote!(match self { #(#encode_arms)* }),
    );
    let text = doc(&format!(
        "A message or call of the protocol `{}` as a value: as a receiver gets it, as a \
         sender sends it (its `send`), as a relay re-sends it \
         ([`idlc::Messages::encode_item`]).",
        protocol.name
    ));
    quote! {
        #text
        #derives
        // One variant per message of the IDL, named by it, each as large as its message.
        #[allow(clippy::enum_variant_names, clippy::large_enum_variant)]
        pub enum #message {
            #(#variants,)*
        }

        impl #message {
            /// Its id in the protocol.
            pub fn id(&self) -> u32 {
                match self {
                    #(#id_arms,)*
                }
            }

            /// Reads every item of `packet` (framed for the protocol version `version`) and
            /// hands each to `each`: a message or call, or an item this version does not know
            /// (skipped). Returns how many items there were.
            pub fn read_packet<E: idlc::Encoding>(
                version: u64,
                packet: &[u8],
                each: impl FnMut(idlc::Incoming<Self>),
            ) -> ::core::result::Result<usize, idlc::DecodeError>
            where
                #bounds
            {
                idlc::read_packet::<E, Self>(version, packet, each)
            }
        }

        #messages
    }
}

/// `impl Messages<E> for #message where #bounds`, its methods' bodies given.
fn messages_impl(
    message: &Ident,
    bounds: &TokenStream,
    decode_item: &TokenStream,
    encode_item: &TokenStream,
) -> TokenStream {
    quote! {
        impl<E: idlc::Encoding> idlc::Messages<E> for #message
        where
            #bounds
        {
            fn decode_item(
                header: idlc::ItemHeader,
                r: &mut <E::Style as idlc::Style>::Reader<'_>,
            ) -> ::core::result::Result<idlc::Incoming<Self>, idlc::DecodeError> {
                #decode_item
            }

            fn encode_item(
                &self,
                packet: &mut idlc::PacketWriter<E>,
            ) -> ::core::result::Result<(), idlc::SendError> {
                #encode_item
            }
        }
    }
}

/// `impl Responses<E> for #response where #bounds`, the body of `decode_response` given.
fn responses_impl(
    response: &Ident,
    bounds: &TokenStream,
    decode_response: &TokenStream,
) -> TokenStream {
    quote! {
        impl<E: idlc::Encoding> idlc::Responses<E> for #response
        where
            #bounds
        {
            fn decode_response(
                id: u32,
                request: idlc::RequestId,
                r: &mut <E::Style as idlc::Style>::Reader<'_>,
            ) -> ::core::result::Result<::core::option::Option<Self>, idlc::DecodeError> {
                #decode_response
            }
        }
    }
}

fn handler(protocol: &ProtocolDef, names: &Names, entries: &[Entry]) -> TokenStream {
    let Names { handler, .. } = names;
    let methods = entries.iter().map(|e| {
        let (method, ty) = (&e.method, &e.ty);
        match &e.response {
            Some((_, value)) => {
                let text = doc(&format!(
                    "`{}`, {}: its response is what this returns.",
                    e.idl_name, e.what
                ));
                quote!(#text fn #method(&mut self, call: #ty) -> #value;)
            }
            None if e.is_message => {
                let text = doc(&format!("The message `{}`.", e.idl_name));
                quote!(#text fn #method(&mut self, message: #ty);)
            }
            None => {
                let text = doc(&format!("`{}`, {}.", e.idl_name, e.what));
                quote!(#text fn #method(&mut self, call: #ty);)
            }
        }
    });
    let text = doc(&format!(
        "What a receiver of the protocol `{}` does with each message and call: one method \
         each, given its decoded arguments.",
        protocol.name
    ));
    quote! {
        #text
        pub trait #handler {
            #(#methods)*

            /// An item this version does not know (a newer peer's message), skipped. Does
            /// nothing unless overridden.
            fn unknown(&mut self, header: idlc::ItemHeader) {
                let _ = header;
            }
        }
    }
}

fn receiver(
    protocol: &ProtocolDef,
    names: &Names,
    entries: &[Entry],
    bounds: &TokenStream,
    sized: &TokenStream,
) -> TokenStream {
    let Names {
        protocol: ids,
        message,
        handler,
        receiver,
        ..
    } = names;
    let arms = entries.iter().map(|e| {
        let (variant, method, id_const) = (&e.variant, &e.method, &e.id_const);
        match &e.response {
            Some((response, _)) => quote! {
                #message::#variant { request, call } => {
                    let answer = #response { value: handler.#method(call) };
                    let pushed = self.replies.push(
                        #ids::#id_const,
                        request,
                        |w| idlc::Codec::<E>::encode_to(&answer, w),
                    );
                    match pushed {
                        Ok(()) => dispatched.responses += 1,
                        Err(error) => {
                            unsent.get_or_insert(error);
                        }
                    }
                }
            },
            None => quote!(#message::#variant(value) => handler.#method(value),),
        }
    });
    let answers = entries.iter().any(|e| e.response.is_some());
    let text = if answers {
        doc(&format!(
            "The receiving end of the protocol `{}` in the encoding `E`: [`Self::dispatch`] hands \
             each message of a packet to a [`{handler}`] and collects the responses of its \
             requests in a reply packet ([`Self::replies`]).",
            protocol.name
        ))
    } else {
        doc(&format!(
            "The receiving end of the protocol `{}` in the encoding `E`: [`Self::dispatch`] hands \
             each message of a packet to a [`{handler}`].",
            protocol.name
        ))
    };
    let dispatch_doc = doc(&format!(
        "Decodes every item of `packet` and calls the handler's method of each, in order{}. An \
         id this version does not know goes to [`{handler}::unknown`] and is skipped; a \
         malformed packet is an error (the items before it were handled), never a panic{}.",
        if answers {
            "; the responses of requests go to the reply packets"
        } else {
            ""
        },
        if answers {
            ". A response that cannot be sent at all (its value cannot be encoded, or it alone \
             exceeds the MTU) is reported after every item was handled"
        } else {
            ""
        }
    ));
    // Only a protocol with requests has replies to write.
    let (replies_field, set_replies, replies_fn) = if answers {
        (
            quote!(replies: idlc::Replies<E>,),
            quote!(self.replies.set_protocol_id(version);),
            quote! {
                /// The next reply packet (framed) of the requests answered so far, oldest
                /// first; `None` when every one was handed out. Call it until `None` after a
                /// dispatch: answers that do not fit in one packet spill into more.
                pub fn replies(&mut self) -> ::core::option::Option<&[u8]> {
                    self.replies.next_packet()
                }
            },
        )
    } else {
        (
            quote!(encoding: ::core::marker::PhantomData<fn() -> E>,),
            TokenStream::new(),
            TokenStream::new(),
        )
    };
    let (unsent_init, unsent_check) = if answers {
        (
            quote!(let mut unsent = None;),
            quote! {
                if let Some(error) = unsent {
                    return Err(idlc::DispatchError::Reply(error));
                }
            },
        )
    } else {
        (TokenStream::new(), TokenStream::new())
    };
    let new_doc = doc(&format!(
        "A receiver of the protocol version `version` (an id of [`{ids}::versions`]) in the \
         default encoding{}.",
        if answers {
            ", its reply packets unbounded"
        } else {
            ""
        }
    ));
    let with_encoding_doc = doc(&format!(
        "A receiver of the protocol version `version` (an id of [`{ids}::versions_with`]) in \
         the encoding `E`{}.",
        if answers {
            ", its reply packets unbounded"
        } else {
            ""
        }
    ));
    let (with_encoding_body, default_mtu_constructor, mtu_constructor) = if answers {
        (
            quote!(Self::with_encoding_and_mtu(version, usize::MAX)),
            quote! {
                /// A receiver in the default encoding whose reply packets never exceed `mtu`
                /// bytes.
                pub fn with_mtu(version: u64, mtu: usize) -> Self {
                    Self::with_encoding_and_mtu(version, mtu)
                }
            },
            quote! {
                /// A receiver in the encoding `E` whose reply packets never exceed `mtu` bytes.
                pub fn with_encoding_and_mtu(version: u64, mtu: usize) -> Self {
                    #receiver {
                        version,
                        replies: idlc::Replies::with_mtu(version, mtu),
                    }
                }
            },
        )
    } else {
        (
            quote! {
                #receiver {
                    version,
                    encoding: ::core::marker::PhantomData,
                }
            },
            TokenStream::new(),
            TokenStream::new(),
        )
    };
    quote! {
        #text
        #[derive(Debug)]
        pub struct #receiver<E: idlc::Encoding = DefaultEncoding> {
            version: u64,
            #replies_field
        }

        impl #receiver {
            #new_doc
            pub fn new(version: u64) -> Self {
                Self::with_encoding(version)
            }

            #default_mtu_constructor
        }

        impl<E: idlc::Encoding> #receiver<E> {
            #with_encoding_doc
            pub fn with_encoding(version: u64) -> Self {
                #with_encoding_body
            }

            #mtu_constructor

            /// The protocol version it reads in.
            pub fn version(&self) -> u64 {
                self.version
            }

            /// Reads in another protocol version (after a negotiation).
            pub fn set_version(&mut self, version: u64) {
                self.version = version;
                #set_replies
            }

            #replies_fn
        }

        impl<E: idlc::Encoding> #receiver<E>
        where
            #bounds
        {
            #dispatch_doc
            pub fn dispatch<H: #handler + ?#sized>(
                &mut self,
                packet: &[u8],
                handler: &mut H,
            ) -> ::core::result::Result<idlc::Dispatched, idlc::DispatchError> {
                let mut dispatched = idlc::Dispatched::default();
                #unsent_init
                let mut reader = idlc::PacketReader::<E>::new(self.version, packet)?;
                while let Some(item) =
                    reader.next_item(<#message as idlc::Messages<E>>::decode_item)?
                {
                    let message = match item {
                        idlc::Incoming::Known(message) => message,
                        idlc::Incoming::Unknown(header) => {
                            handler.unknown(header);
                            dispatched.unknown += 1;
                            continue;
                        }
                    };
                    dispatched.handled += 1;
                    match message {
                        #(#arms)*
                    }
                }
                #unsent_check
                Ok(dispatched)
            }
        }
    }
}

fn response_enum(
    protocol: &ProtocolDef,
    names: &Names,
    entries: &[Entry],
    bounds: &TokenStream,
    derives: &TokenStream,
) -> TokenStream {
    let Names {
        protocol: ids,
        response,
        ..
    } = names;
    let arms = entries.iter().filter_map(|e| {
        let (variant, id_const) = (&e.variant, &e.id_const);
        let (ty, _) = e.response.as_ref()?;
        Some(quote! {
            #ids::#id_const => Self::#variant {
                request,
                value: <#ty as idlc::Codec<E>>::decode_from(r)?.value,
            },
        })
    });
    let variants = entries.iter().filter_map(|e| {
        let (variant, (_, value)) = (&e.variant, e.response.as_ref()?);
        let text = doc(&format!("The response to `{}`.", e.idl_name));
        Some(quote! {
            #text
            #variant {
                /// The request id the call returned.
                request: idlc::RequestId,
                /// What the callee returned.
                value: #value,
            }
        })
    });
    let responses = responses_impl(
        response,
        bounds,
        &quote! {
            Ok(Some(match id {
                #(#arms)*
                _ => return Ok(None),
            }))
        },
    );
    let text = doc(&format!(
        "A response to a request of the protocol `{}`, paired with its request.",
        protocol.name
    ));
    quote! {
        #text
        #derives
        // One variant per message of the IDL, named by it, each as large as its message.
        #[allow(clippy::enum_variant_names, clippy::large_enum_variant)]
        pub enum #response {
            #(#variants,)*
        }

        #responses
    }
}

fn sender(
    protocol: &ProtocolDef,
    names: &Names,
    entries: &[Entry],
    bounds: &TokenStream,
) -> TokenStream {
    let Names {
        protocol: ids,
        message,
        response,
        sender,
        ..
    } = names;
    let stubs = entries.iter().map(|e| sender_stubs(ids, e));
    let send_arms = entries.iter().map(|e| {
        let (variant, method) = (&e.variant, &e.struct_method);
        if e.response.is_some() {
            quote!(#message::#variant { call, .. } => self.#method(call).map(Some),)
        } else {
            quote!(#message::#variant(value) => self.#method(value).map(|()| None),)
        }
    });
    let has_responses = entries.iter().any(|e| e.response.is_some());
    let read_responses = if has_responses {
        quote! {
            /// Reads the responses in `packet` (a receiver's reply packet) and hands each to
            /// `each`, paired with its request: a response to a request that is not pending, of
            /// another RPC than the request's, or whose body is malformed
            /// ([`idlc::ResponseError::Decode`]: the request stays pending) is an
            /// error value for that response, and the rest of the packet is still read. Returns
            /// how many responses were read; a packet whose framing is malformed is an error.
            pub fn read_responses(
                &mut self,
                packet: &[u8],
                each: impl FnMut(::core::result::Result<#response, idlc::ResponseError>),
            ) -> ::core::result::Result<usize, idlc::DecodeError> {
                idlc::read_responses::<E, #response>(
                    self.packet.protocol_id(),
                    packet,
                    &mut self.pending,
                    each,
                )
            }
        }
    } else {
        TokenStream::new()
    };
    let pending_methods = if has_responses {
        quote! {
            /// The requests awaiting their response.
            pub fn pending(&self) -> &idlc::Pending {
                &self.pending
            }

            /// Gives up on a request (a timeout): its response, if it comes, is then an error.
            pub fn forget(&mut self, request: idlc::RequestId) {
                self.pending.forget(request);
            }
        }
    } else {
        TokenStream::new()
    };
    let pending_field = if has_responses {
        quote!(pending: idlc::Pending,)
    } else {
        TokenStream::new()
    };
    let pending_init = if has_responses {
        quote!(pending: idlc::Pending::default(),)
    } else {
        TokenStream::new()
    };
    let sender_new_doc = doc(&format!(
        "A sender of packets of the protocol version `version` (an id of [`{ids}::versions`]) \
         in the default encoding, unbounded."
    ));
    let sender_with_encoding_doc = doc(&format!(
        "A sender of packets of the protocol version `version` (an id of \
         [`{ids}::versions_with`]) in the encoding `E`, unbounded."
    ));
    let supports_doc = doc(&format!(
        "Whether the protocol version in use has the message or RPC `id` (one of [`{ids}`]'s \
         constants): a stub of one it lacks is refused with \
         [`idlc::SendError::NotInVersion`], as the peer would skip it."
    ));
    let text = doc(&format!(
        "The calling end of the protocol `{}` in the encoding `E`: one method per message and \
         RPC adds it to the packet being built; [`Self::finish`] returns the packet to send. \
         `new` and `with_mtu` make one of the default encoding, `with_encoding` and \
         `with_encoding_and_mtu` of any.",
        protocol.name
    ));
    quote! {
        #text
        #[derive(Debug)]
        pub struct #sender<E: idlc::Encoding = DefaultEncoding> {
            packet: idlc::PacketWriter<E>,
            /// The index of its protocol version in the list of versions (`None`: not one of
            /// them, so that it sends nothing).
            version_index: ::core::option::Option<usize>,
            #pending_field
        }

        impl #sender {
            #sender_new_doc
            pub fn new(version: u64) -> Self {
                Self::with_encoding(version)
            }

            /// A sender in the default encoding whose packets never exceed `mtu` bytes: a
            /// message that would cross it is refused with
            /// [`idlc::SendError::PacketFull`].
            pub fn with_mtu(version: u64, mtu: usize) -> Self {
                Self::with_encoding_and_mtu(version, mtu)
            }
        }

        impl<E: idlc::Encoding> #sender<E>
        where
            #ids: idlc::Protocol<E>,
        {
            #sender_with_encoding_doc
            pub fn with_encoding(version: u64) -> Self {
                Self::with_encoding_and_mtu(version, usize::MAX)
            }

            /// A sender in the encoding `E` whose packets never exceed `mtu` bytes.
            pub fn with_encoding_and_mtu(version: u64, mtu: usize) -> Self {
                #sender {
                    packet: idlc::PacketWriter::with_mtu(version, mtu),
                    version_index: Self::index_of(version),
                    #pending_init
                }
            }

            fn index_of(version: u64) -> ::core::option::Option<usize> {
                <#ids as idlc::Protocol<E>>::VERSIONS
                    .iter()
                    .position(|known| *known == version)
            }

            /// Sends in another protocol version from the next packet on (after a negotiation).
            pub fn set_version(&mut self, version: u64) {
                self.packet.set_protocol_id(version);
                self.version_index = Self::index_of(version);
            }

            #supports_doc
            pub fn supports(&self, id: u32) -> bool {
                match (#ids::since(id), self.version_index) {
                    (Some(since), Some(index)) => since <= index,
                    _ => false,
                }
            }

            fn check_version(&self, id: u32) -> ::core::result::Result<(), idlc::SendError> {
                if self.supports(id) {
                    Ok(())
                } else {
                    Err(idlc::SendError::NotInVersion {
                        id,
                        protocol_id: self.packet.protocol_id(),
                    })
                }
            }

            /// Items in the packet being built.
            pub fn len(&self) -> usize {
                self.packet.len()
            }

            /// Whether the packet being built is empty.
            pub fn is_empty(&self) -> bool {
                self.packet.is_empty()
            }

            /// The bytes the packet would take if finished now.
            pub fn packet_bytes(&self) -> usize {
                self.packet.packet_bytes()
            }

            /// The packet (framed), ready to send; the next calls start another.
            pub fn finish(&mut self) -> &[u8] {
                self.packet.finish()
            }

            #pending_methods
        }

        impl<E: idlc::Encoding> #sender<E>
        where
            #ids: idlc::Protocol<E>,
            #bounds
        {
            #(#stubs)*

            /// Sends a message or call held as a value (a relay, a queue): as its stub does.
            /// Returns the request id of an RPC with a response (a new one: the `request` the
            /// value holds is not sent), `None` for any other.
            pub fn send(
                &mut self,
                message: &#message,
            ) -> ::core::result::Result<::core::option::Option<idlc::RequestId>, idlc::SendError> {
                match message {
                    #(#send_arms)*
                }
            }

            #read_responses
        }
    }
}

/// A sender's stubs of one entry: the struct form, and for an RPC the one that takes its
/// parameters one by one.
fn sender_stubs(ids: &Ident, e: &Entry) -> TokenStream {
    let (method, struct_method, ty, id_const) = (&e.method, &e.struct_method, &e.ty, &e.id_const);
    let by_struct = if e.response.is_some() {
        let text = doc(&format!(
            "Calls `{}`, {}: adds the call to the packet and returns its request id; the \
             response comes back through [`Self::read_responses`].",
            e.idl_name, e.what
        ));
        quote! {
            #text
            pub fn #struct_method(&mut self, call: &#ty) -> ::core::result::Result<idlc::RequestId, idlc::SendError> {
                self.check_version(#ids::#id_const)?;
                let request = self.pending.start(#ids::#id_const);
                let pushed = self.packet.push(
                    #ids::#id_const,
                    idlc::ItemKind::Request(request),
                    |w| idlc::Codec::<E>::encode_to(call, w),
                );
                if let Err(error) = pushed {
                    self.pending.forget(request);
                    return Err(error);
                }
                Ok(request)
            }
        }
    } else {
        let (arg, what) = if e.is_message {
            (quote!(message), "Sends the message")
        } else {
            (quote!(call), "Calls")
        };
        let text = doc(&format!(
            "{what} `{}`, {}: adds it to the packet.",
            e.idl_name, e.what
        ));
        quote! {
            #text
            pub fn #struct_method(&mut self, #arg: &#ty) -> ::core::result::Result<(), idlc::SendError> {
                self.check_version(#ids::#id_const)?;
                self.packet.push(
                    #ids::#id_const,
                    idlc::ItemKind::Message,
                    |w| idlc::Codec::<E>::encode_to(#arg, w),
                )
            }
        }
    };
    let Some(params) = &e.params else {
        return by_struct;
    };
    let returns = if e.response.is_some() {
        quote!(idlc::RequestId)
    } else {
        quote!(())
    };
    let (names, types): (Vec<_>, Vec<_>) = params.iter().cloned().unzip();
    let text = doc(&format!(
        "Calls `{}` with its parameters: [`Self::{struct_method}`] of `{}`.",
        e.idl_name,
        ty.to_string().replace(' ', "")
    ));
    quote! {
        #by_struct

        #text
        pub fn #method(&mut self, #(#names: #types),*) -> ::core::result::Result<#returns, idlc::SendError> {
            self.#struct_method(&#ty { #(#names),* })
        }
    }
}
