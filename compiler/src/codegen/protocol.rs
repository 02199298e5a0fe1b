//! The code of a PROTOCOL: its ids, and per the side's role the caller half (a sender of
//! messages and calls that pairs responses with their requests) and the receiver half (an enum
//! of its messages, a handler trait, a dispatcher that answers requests).

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::CodegenError;
use super::idents::{checked_ident, doc, ident, rust_type, u32_lit, u64_lit};
use crate::ir::{EntryKind, Ir, ProtocolDef, ProtocolRole, response_struct_name};

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
}

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
    let role = ir
        .mapping
        .protocols
        .get(&protocol.name)
        .copied()
        .unwrap_or(ProtocolRole::Both);
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
    check_clashes(ir, protocol, &names)?;
    let entries = entries(ir, protocol)?;
    let bounds = codec_bounds(&entries);
    // The message and response enums are data, like the structs: the side's DERIVEs apply.
    let derives = super::types::derives(ir, &["Debug", "Clone", "PartialEq"])?;
    let mut items = vec![ids(ir, protocol, &names, &entries)?];
    if matches!(role, ProtocolRole::Send | ProtocolRole::Both) {
        if entries.iter().any(|e| e.response.is_some()) {
            items.push(response_enum(protocol, &names, &entries, &bounds, &derives));
        }
        items.push(sender(protocol, &names, &entries, &bounds));
    }
    if matches!(role, ProtocolRole::Receive | ProtocolRole::Both) {
        items.push(message_enum(protocol, &names, &entries, &bounds, &derives));
        items.push(handler(protocol, &names, &entries));
        // `Sized`, qualified when a type of the schema takes its name.
        let sized = super::idents::Prelude::of(ir).path("Sized");
        items.push(receiver(protocol, &names, &entries, &bounds, &sized));
    }
    Ok(quote!(#(#items)*))
}

fn check_clashes(ir: &Ir, protocol: &ProtocolDef, names: &Names) -> Result<(), CodegenError> {
    let ours = [
        &names.protocol,
        &names.message,
        &names.response,
        &names.handler,
        &names.sender,
        &names.receiver,
    ];
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
        let (idl_name, what, response) = match &entry.kind {
            EntryKind::Message(name) => (name.clone(), "a MESSAGE".to_string(), None),
            EntryKind::Rpc { name, returns } => {
                let response = match returns {
                    Some(ty) => {
                        let mapping = struct_mapping(ir, &response_struct_name(name))?;
                        let value =
                            mapping
                                .fields
                                .get(crate::ir::RESPONSE_FIELD)
                                .ok_or_else(|| {
                                    CodegenError(format!("internal: the response of `{name}`"))
                                })?;
                        let prelude = super::idents::Prelude::of(ir);
                        Some((
                            (
                                rust_type(&mapping.rust_name)?,
                                prelude.rust_type(&value.ty)?,
                            ),
                            ty.describe(),
                        ))
                    }
                    None => None,
                };
                let what = match &response {
                    Some((_, returns)) => format!("an RPC answered with `{returns}`"),
                    None => "an RPC without a response".to_string(),
                };
                (name.clone(), what, response.map(|(types, _)| types))
            }
        };
        let mapping = struct_mapping(ir, &idl_name)?;
        let variant = mapping
            .rust_name
            .rsplit("::")
            .next()
            .unwrap_or(&mapping.rust_name)
            .to_upper_camel_case();
        let method = method_ident(&idl_name.to_snake_case());
        if out.iter().any(|e| e.method == method) || method == "unknown" {
            return Err(CodegenError(format!(
                "two entries of the protocol `{}` take the method name `{method}`: rename one of them",
                protocol.name
            )));
        }
        out.push(Entry {
            id: entry.id,
            is_message: matches!(entry.kind, EntryKind::Message(_)),
            what,
            ty: rust_type(&mapping.rust_name)?,
            variant: checked_ident(&variant)?,
            method,
            id_const: format_ident!("{}", idl_name.to_shouty_snake_case()),
            response,
            segment: entry.segment,
            idl_name,
        });
    }
    Ok(out)
}

fn struct_mapping<'a>(
    ir: &'a Ir,
    name: &str,
) -> Result<&'a crate::ir::StructMapping, CodegenError> {
    ir.mapping
        .structs
        .get(name)
        .ok_or_else(|| CodegenError(format!("internal: no mapping of struct {name}")))
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
    quote!(#(#types: ::idlc_runtime::Codec<E>,)*)
}

fn ids(
    ir: &Ir,
    protocol: &ProtocolDef,
    names: &Names,
    entries: &[Entry],
) -> Result<TokenStream, CodegenError> {
    let Names { protocol: name, .. } = names;
    let idl_name = &protocol.name;
    let derives = super::types::derives(
        ir,
        &[
            "Debug",
            "Clone",
            "Copy",
            "Default",
            "PartialEq",
            "Eq",
            "Hash",
        ],
    )?;
    let consts = entries.iter().map(|e| {
        let (id_const, id) = (&e.id_const, u32_lit(e.id));
        let text = doc(&format!(
            "The id of `{}`, {} (version {}).",
            e.idl_name, e.what, e.segment
        ));
        quote!(#text pub const #id_const: u32 = #id;)
    });
    let mut impls = Vec::new();
    for encoding in ir.encodings.values() {
        let marker = checked_ident(&super::marker_name(ir, &encoding.name))?;
        let versions = crate::ir::protocol::version_ids(ir, protocol, &encoding.name)
            .into_iter()
            .map(u64_lit);
        impls.push(quote! {
            impl ::idlc_runtime::Protocol<#marker> for #name {
                const NAME: &'static str = #idl_name;
                const VERSIONS: &'static [u64] = &[#(#versions),*];
            }
        });
    }
    let text = doc(&format!(
        "The protocol `{idl_name}`: its message ids, and per encoding its version ids \
         ([`::idlc_runtime::Protocol`]: one per FENCE of its list, plus one), for \
         [`::idlc_runtime::negotiate`]."
    ));
    Ok(quote! {
        #text
        #derives
        pub struct #name;

        impl #name {
            #(#consts)*

            /// The ids of every version of this protocol in the encoding `E`, oldest first.
            pub fn versions<E: ::idlc_runtime::Encoding>() -> &'static [u64]
            where
                Self: ::idlc_runtime::Protocol<E>,
            {
                <Self as ::idlc_runtime::Protocol<E>>::VERSIONS
            }

            /// The id of the newest version in the encoding `E`.
            pub fn newest<E: ::idlc_runtime::Encoding>() -> u64
            where
                Self: ::idlc_runtime::Protocol<E>,
            {
                Self::versions::<E>().last().copied().unwrap_or_default()
            }
        }

        #(#impls)*
    })
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
                    request: ::idlc_runtime::RequestId,
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
                (#ids::#id_const, ::idlc_runtime::ItemKind::Request(request)) => Self::#variant {
                    request,
                    call: <#ty as ::idlc_runtime::Codec<E>>::decode_from(r)?,
                }
            }
        } else {
            quote! {
                (#ids::#id_const, ::idlc_runtime::ItemKind::Message) => {
                    Self::#variant(<#ty as ::idlc_runtime::Codec<E>>::decode_from(r)?)
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
                    ::idlc_runtime::ItemKind::Request(*request),
                    |w| ::idlc_runtime::Codec::<E>::encode_to(call, w),
                ),
            }
        } else {
            quote! {
                Self::#variant(value) => packet.push(
                    #ids::#id_const,
                    ::idlc_runtime::ItemKind::Message,
                    |w| ::idlc_runtime::Codec::<E>::encode_to(value, w),
                ),
            }
        }
    });
    let text = doc(&format!(
        "A message or call of the protocol `{}`, as a receiver gets it (and a relay re-sends \
         it: [`::idlc_runtime::Messages::encode_item`]).",
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
            pub fn read_packet<E: ::idlc_runtime::Encoding>(
                version: u64,
                packet: &[u8],
                each: impl FnMut(::idlc_runtime::Incoming<Self>),
            ) -> ::core::result::Result<usize, ::idlc_runtime::DecodeError>
            where
                #bounds
            {
                ::idlc_runtime::read_packet::<E, Self>(version, packet, each)
            }
        }

        impl<E: ::idlc_runtime::Encoding> ::idlc_runtime::Messages<E> for #message
        where
            #bounds
        {
            fn decode_item(
                header: ::idlc_runtime::ItemHeader,
                r: &mut <E::Style as ::idlc_runtime::Style>::Reader<'_>,
            ) -> ::core::result::Result<::idlc_runtime::Incoming<Self>, ::idlc_runtime::DecodeError> {
                Ok(::idlc_runtime::Incoming::Known(match (header.id, header.kind) {
                    #(#decode_arms,)*
                    _ => return Ok(::idlc_runtime::Incoming::Unknown(header)),
                }))
            }

            fn encode_item(
                &self,
                packet: &mut ::idlc_runtime::PacketWriter<E>,
            ) -> ::core::result::Result<(), ::idlc_runtime::SendError> {
                match self {
                    #(#encode_arms)*
                }
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
            fn unknown(&mut self, header: ::idlc_runtime::ItemHeader) {
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
                    let value = handler.#method(call);
                    self.replies.push(
                        #ids::#id_const,
                        ::idlc_runtime::ItemKind::Response(request),
                        |w| ::idlc_runtime::Codec::<E>::encode_to(&#response { value }, w),
                    )?;
                    dispatched.responses += 1;
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
         malformed packet is an error (the items before it were handled), never a panic.",
        if answers {
            "; the responses of requests go to the reply packet"
        } else {
            ""
        }
    ));
    // Only a protocol with requests has replies to write.
    let (replies_field, constructors, set_replies, replies_fn) = if answers {
        (
            quote!(replies: ::idlc_runtime::PacketWriter<E>,),
            quote! {
                /// A receiver of the protocol version `version` (an id of
                /// [`::idlc_runtime::Protocol::VERSIONS`]), its reply packets unbounded.
                pub fn new(version: u64) -> Self {
                    Self::with_mtu(version, usize::MAX)
                }

                /// A receiver whose reply packets never exceed `mtu` bytes.
                pub fn with_mtu(version: u64, mtu: usize) -> Self {
                    #receiver {
                        version,
                        replies: ::idlc_runtime::PacketWriter::with_mtu(version, mtu),
                    }
                }
            },
            quote!(self.replies.set_protocol_id(version);),
            quote! {
                /// The reply packet (framed) when requests were answered since the last call,
                /// and starts the next one; `None` when there is nothing to send.
                pub fn replies(&mut self) -> ::core::option::Option<&[u8]> {
                    if self.replies.is_empty() {
                        return None;
                    }
                    Some(self.replies.finish())
                }
            },
        )
    } else {
        (
            quote!(encoding: ::core::marker::PhantomData<fn() -> E>,),
            quote! {
                /// A receiver of the protocol version `version` (an id of
                /// [`::idlc_runtime::Protocol::VERSIONS`]).
                pub fn new(version: u64) -> Self {
                    #receiver {
                        version,
                        encoding: ::core::marker::PhantomData,
                    }
                }
            },
            TokenStream::new(),
            TokenStream::new(),
        )
    };
    quote! {
        #text
        #[derive(Debug)]
        pub struct #receiver<E: ::idlc_runtime::Encoding = DefaultEncoding> {
            version: u64,
            #replies_field
        }

        impl<E: ::idlc_runtime::Encoding> #receiver<E>
        where
            #bounds
        {
            #constructors

            /// The protocol version it reads in.
            pub fn version(&self) -> u64 {
                self.version
            }

            /// Reads in another protocol version (after a negotiation).
            pub fn set_version(&mut self, version: u64) {
                self.version = version;
                #set_replies
            }

            #dispatch_doc
            pub fn dispatch<H: #handler + ?#sized>(
                &mut self,
                packet: &[u8],
                handler: &mut H,
            ) -> ::core::result::Result<::idlc_runtime::Dispatched, ::idlc_runtime::DispatchError> {
                let mut dispatched = ::idlc_runtime::Dispatched::default();
                let mut reader = ::idlc_runtime::PacketReader::<E>::new(self.version, packet)?;
                while let Some(item) =
                    reader.next_item(<#message as ::idlc_runtime::Messages<E>>::decode_item)?
                {
                    let message = match item {
                        ::idlc_runtime::Incoming::Known(message) => message,
                        ::idlc_runtime::Incoming::Unknown(header) => {
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
                Ok(dispatched)
            }

            #replies_fn
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
                value: <#ty as ::idlc_runtime::Codec<E>>::decode_from(r)?.value,
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
                request: ::idlc_runtime::RequestId,
                /// What the callee returned.
                value: #value,
            }
        })
    });
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

        impl<E: ::idlc_runtime::Encoding> ::idlc_runtime::Responses<E> for #response
        where
            #bounds
        {
            fn decode_response(
                id: u32,
                request: ::idlc_runtime::RequestId,
                r: &mut <E::Style as ::idlc_runtime::Style>::Reader<'_>,
            ) -> ::core::result::Result<::core::option::Option<Self>, ::idlc_runtime::DecodeError> {
                Ok(Some(match id {
                    #(#arms)*
                    _ => return Ok(None),
                }))
            }
        }
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
        response,
        sender,
        ..
    } = names;
    let stubs = entries.iter().map(|e| {
        let (method, ty, id_const) = (&e.method, &e.ty, &e.id_const);
        if e.response.is_some() {
            let text = doc(&format!(
                "Calls `{}`, {}: adds the call to the packet and returns its request id; the \
                 response comes back through [`Self::read_responses`].",
                e.idl_name, e.what
            ));
            quote! {
                #text
                pub fn #method(&mut self, call: &#ty) -> ::core::result::Result<::idlc_runtime::RequestId, ::idlc_runtime::SendError> {
                    let request = self.pending.start(#ids::#id_const);
                    let pushed = self.packet.push(
                        #ids::#id_const,
                        ::idlc_runtime::ItemKind::Request(request),
                        |w| ::idlc_runtime::Codec::<E>::encode_to(call, w),
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
                pub fn #method(&mut self, #arg: &#ty) -> ::core::result::Result<(), ::idlc_runtime::SendError> {
                    self.packet.push(
                        #ids::#id_const,
                        ::idlc_runtime::ItemKind::Message,
                        |w| ::idlc_runtime::Codec::<E>::encode_to(#arg, w),
                    )
                }
            }
        }
    });
    let has_responses = entries.iter().any(|e| e.response.is_some());
    let read_responses = if has_responses {
        quote! {
            /// Reads the responses in `packet` (a receiver's reply packet) and hands each to
            /// `each`, paired with its request: a response to a request that is not pending, or
            /// of another RPC than the request's, is an error value for that response, and the
            /// rest of the packet is still read. Returns how many responses were read; a
            /// malformed packet is an error.
            pub fn read_responses(
                &mut self,
                packet: &[u8],
                each: impl FnMut(::core::result::Result<#response, ::idlc_runtime::ResponseError>),
            ) -> ::core::result::Result<usize, ::idlc_runtime::DecodeError> {
                ::idlc_runtime::read_responses::<E, #response>(
                    self.packet.protocol_id(),
                    packet,
                    &mut self.pending,
                    each,
                )
            }

            /// The requests awaiting their response.
            pub fn pending(&self) -> &::idlc_runtime::Pending {
                &self.pending
            }

            /// Gives up on a request (a timeout): its response, if it comes, is then an error.
            pub fn forget(&mut self, request: ::idlc_runtime::RequestId) {
                self.pending.forget(request);
            }
        }
    } else {
        TokenStream::new()
    };
    let pending_field = if has_responses {
        quote!(pending: ::idlc_runtime::Pending,)
    } else {
        TokenStream::new()
    };
    let pending_init = if has_responses {
        quote!(pending: ::idlc_runtime::Pending::default(),)
    } else {
        TokenStream::new()
    };
    let text = doc(&format!(
        "The calling end of the protocol `{}` in the encoding `E`: one method per message and \
         RPC adds it to the packet being built; [`Self::finish`] returns the packet to send.",
        protocol.name
    ));
    quote! {
        #text
        #[derive(Debug)]
        pub struct #sender<E: ::idlc_runtime::Encoding = DefaultEncoding> {
            packet: ::idlc_runtime::PacketWriter<E>,
            #pending_field
        }

        impl<E: ::idlc_runtime::Encoding> #sender<E>
        where
            #bounds
        {
            /// A sender of packets of the protocol version `version` (an id of
            /// [`::idlc_runtime::Protocol::VERSIONS`]), unbounded.
            pub fn new(version: u64) -> Self {
                Self::with_mtu(version, usize::MAX)
            }

            /// A sender whose packets never exceed `mtu` bytes: a message that would cross it
            /// is refused with [`::idlc_runtime::SendError::PacketFull`].
            pub fn with_mtu(version: u64, mtu: usize) -> Self {
                #sender {
                    packet: ::idlc_runtime::PacketWriter::with_mtu(version, mtu),
                    #pending_init
                }
            }

            /// Sends in another protocol version from the next packet on (after a negotiation).
            pub fn set_version(&mut self, version: u64) {
                self.packet.set_protocol_id(version);
            }

            #(#stubs)*

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

            #read_responses
        }
    }
}
