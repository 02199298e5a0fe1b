//! What a PROTOCOL gives a session (`idlc::Endpoint`): its message enum and response enum as
//! a session sends and reads them (`idlc::SessionMessage`, `idlc::SessionResponse`), the
//! protocol per encoding (`idlc::SessionProtocol`), `handle` on the receiving side and an
//! endpoint alias on the sending side. Which messages are snapshots is the IR's
//! ([`crate::ir::protocol::EntryView::snapshot`]).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{CodegenError, Entry, Names, codec_bounds};
use crate::codegen::idents::{checked_ident, doc};
use crate::ir::{Ir, ProtocolRole};

/// The session items of a protocol on a side of role `role`.
pub(super) fn session_items(
    ir: &Ir,
    names: &Names,
    entries: &[Entry],
    role: ProtocolRole,
) -> Result<TokenStream, CodegenError> {
    let mut items = vec![session_message(names, entries)];
    let answers = entries.iter().any(|e| e.response.is_some());
    if answers {
        items.push(session_response(names, entries));
    }
    let (protocol, message) = (&names.protocol, &names.message);
    let response = if answers {
        let response = &names.response;
        quote!(#response)
    } else {
        quote!(idlc::NoResponse)
    };
    for encoding in ir.encodings.values() {
        let marker = checked_ident(&crate::codegen::marker_name(ir, &encoding.name))?;
        items.push(quote! {
            impl idlc::SessionProtocol<#marker> for #protocol {
                type Message = #message;
                type Response = #response;

                fn since(id: u32) -> ::core::option::Option<usize> {
                    #protocol::since(id)
                }
            }
        });
    }
    if matches!(role, ProtocolRole::Receive | ProtocolRole::Both) {
        let sized = crate::codegen::idents::Prelude::of(ir).path("Sized");
        items.push(handle(names, entries, &response, &sized));
    }
    if matches!(role, ProtocolRole::Send | ProtocolRole::Both) {
        let alias = format_ident!("{protocol}Endpoint");
        let text = doc(&format!(
            "A session endpoint that sends `{protocol}` and receives the protocol `In` (one per \
             peer; see [`idlc::Endpoint`])."
        ));
        items.push(quote! {
            #text
            pub type #alias<In, E = DefaultEncoding> = idlc::Endpoint<E, #protocol, In>;
        });
    }
    Ok(quote!(#(#items)*))
}

fn session_message(names: &Names, entries: &[Entry]) -> TokenStream {
    let message = &names.message;
    let bounds = codec_bounds(entries);
    let snapshots: Vec<(&Entry, &(proc_macro2::Ident, TokenStream))> = entries
        .iter()
        .filter_map(|e| Some((e, e.snapshot.as_ref()?)))
        .collect();
    let delta_bounds = snapshots
        .iter()
        .map(|(_, (_, state))| quote!(#state: idlc::DeltaCodec<E>,));
    let requests: Vec<_> = entries
        .iter()
        .filter(|e| e.response.is_some())
        .map(|e| &e.variant)
        .collect();
    // A `_` arm only where some variant is left for it (an unreachable one is a warning).
    let others =
        |matched: usize| -> Option<TokenStream> { (matched < entries.len()).then(|| quote!(_)) };
    let request_rest = others(requests.len()).map(|_| quote!(_ => ::core::option::Option::None,));
    let set_rest = others(requests.len()).map(|_| quote!(_ => {}));
    let sent_rest =
        others(snapshots.len()).map(|_| quote!(_ => ::core::clone::Clone::clone(self),));
    let pair_rest = (entries.len() > 1 || snapshots.len() < entries.len()).then(
        || quote!(_ => Err(idlc::EncodeError::new(idlc::EncodeErrorKind::InvalidArgument, 0)),),
    );
    let baseline_rest = others(snapshots.len()).map(|_| {
        quote! {
            _ => {
                let at = idlc::WireRead::bits_read(r);
                Err(idlc::DecodeError::new(idlc::DecodeErrorKind::InvalidArgument, at))
            }
        }
    });
    let request = if requests.is_empty() {
        quote!(::core::option::Option::None)
    } else {
        quote! {
            match self {
                #(Self::#requests { request, .. } => ::core::option::Option::Some(*request),)*
                #request_rest
            }
        }
    };
    let set_request = if requests.is_empty() {
        quote!(let _ = request;)
    } else if let ([only], Some(_)) = (requests.as_slice(), &set_rest) {
        quote! {
            if let Self::#only { request: id, .. } = self {
                *id = request;
            }
        }
    } else {
        quote! {
            match self {
                #(Self::#requests { request: id, .. } => *id = request,)*
                #set_rest
            }
        }
    };
    let body_arms = entries.iter().map(|e| {
        let variant = &e.variant;
        if e.response.is_some() {
            quote!(Self::#variant { call, .. } => idlc::Codec::<E>::encode_to(call, w),)
        } else {
            quote!(Self::#variant(value) => idlc::Codec::<E>::encode_to(value, w),)
        }
    });
    let variants: Vec<_> = snapshots.iter().map(|(e, _)| &e.variant).collect();
    let types: Vec<_> = snapshots.iter().map(|(e, _)| &e.ty).collect();
    let fields: Vec<_> = snapshots.iter().map(|(_, (field, _))| field).collect();
    let states: Vec<_> = snapshots.iter().map(|(_, (_, state))| state).collect();
    // A protocol without snapshots keeps the trait's provided methods.
    let snapshot_methods = if snapshots.is_empty() {
        TokenStream::new()
    } else {
        snapshot_methods_impl(
            &quote!(matches!(self, #(Self::#variants(_))|*)),
            &quote! {
                Ok(match self {
                    #(Self::#variants(value) => Self::#variants(idlc::Codec::<E>::sent(value)?),)*
                    #sent_rest
                })
            },
            &quote! {
                match (self, baseline) {
                    #((Self::#variants(value), Self::#variants(baseline)) => {
                        Ok(Self::#variants(#types {
                            #fields: idlc::DeltaCodec::<E>::encode_delta_to(
                                &value.#fields,
                                &baseline.#fields,
                                ctx,
                                w,
                            )?,
                        }))
                    })*
                    #pair_rest
                }
            },
            &quote! {
                match baseline {
                    #(Self::#variants(baseline) => Ok(Self::#variants(#types {
                        #fields: <#states as idlc::DeltaCodec<E>>::decode_delta_from(
                            &baseline.#fields,
                            ctx,
                            r,
                        )?,
                    })),)*
                    #baseline_rest
                }
            },
        )
    };
    session_message_impl(
        message,
        &quote!(#bounds #(#delta_bounds)*),
        &request,
        &set_request,
        &quote!(match self { #(#body_arms)* }),
        &snapshot_methods,
    )
}

/// The snapshot methods of a `SessionMessage` impl, their bodies given (`self`, `baseline`,
/// `ctx`, `w` and `r` are their parameters).
pub(super) fn snapshot_methods_impl(
    is_snapshot: &TokenStream,
    sent_state: &TokenStream,
    encode_delta_body: &TokenStream,
    decode_delta_body: &TokenStream,
) -> TokenStream {
    quote! {
        fn is_snapshot(&self) -> bool {
            #is_snapshot
        }

        fn sent_state(&self) -> ::core::result::Result<Self, idlc::EncodeError> {
            #sent_state
        }

        fn encode_delta_body(
            &self,
            baseline: &Self,
            ctx: &idlc::DeltaContext,
            w: &mut idlc::WriterOf<E>,
        ) -> ::core::result::Result<Self, idlc::EncodeError> {
            #encode_delta_body
        }

        fn decode_delta_body(
            baseline: &Self,
            ctx: &idlc::DeltaContext,
            r: &mut idlc::ReaderOf<'_, E>,
        ) -> ::core::result::Result<Self, idlc::DecodeError> {
            #decode_delta_body
        }
    }
}

/// `impl SessionMessage<E> for #message where #bounds`: its `id` is the enum's; `request`,
/// `set_request` and `encode_body` have the bodies given; `more` is the rest of its methods.
pub(super) fn session_message_impl(
    message: &Ident,
    bounds: &TokenStream,
    request: &TokenStream,
    set_request: &TokenStream,
    encode_body: &TokenStream,
    more: &TokenStream,
) -> TokenStream {
    quote! {
        impl<E: idlc::Encoding> idlc::SessionMessage<E> for #message
        where
            #bounds
        {
            fn id(&self) -> u32 {
                #message::id(self)
            }

            fn request(&self) -> ::core::option::Option<idlc::RequestId> {
                #request
            }

            fn set_request(&mut self, request: idlc::RequestId) {
                #set_request
            }

            fn encode_body(
                &self,
                w: &mut idlc::WriterOf<E>,
            ) -> ::core::result::Result<(), idlc::EncodeError> {
                #encode_body
            }

            #more
        }
    }
}

fn session_response(names: &Names, entries: &[Entry]) -> TokenStream {
    let (ids, response) = (&names.protocol, &names.response);
    let bounds = codec_bounds(entries);
    let answered: Vec<&Entry> = entries.iter().filter(|e| e.response.is_some()).collect();
    let variants: Vec<_> = answered.iter().map(|e| &e.variant).collect();
    let id_consts = answered.iter().map(|e| &e.id_const);
    let structs = answered
        .iter()
        .filter_map(|e| e.response.as_ref().map(|(ty, _)| ty));
    session_response_impl(
        response,
        &bounds,
        &quote!(match self { #(Self::#variants { .. } => #ids::#id_consts,)* }),
        &quote!(match self { #(Self::#variants { request, .. } => *request,)* }),
        &quote! {
            match self {
                #(Self::#variants { value, .. } => idlc::Codec::<E>::encode_to(
                    &#structs { value: ::core::clone::Clone::clone(value) },
                    w,
                ),)*
            }
        },
    )
}

/// `impl SessionResponse<E> for #response where #bounds`, its methods' bodies given.
pub(super) fn session_response_impl(
    response: &Ident,
    bounds: &TokenStream,
    id: &TokenStream,
    request: &TokenStream,
    encode_body: &TokenStream,
) -> TokenStream {
    quote! {
        impl<E: idlc::Encoding> idlc::SessionResponse<E> for #response
        where
            #bounds
        {
            fn id(&self) -> u32 {
                #id
            }

            fn request(&self) -> idlc::RequestId {
                #request
            }

            fn encode_body(
                &self,
                w: &mut idlc::WriterOf<E>,
            ) -> ::core::result::Result<(), idlc::EncodeError> {
                #encode_body
            }
        }
    }
}

fn handle(
    names: &Names,
    entries: &[Entry],
    response: &TokenStream,
    sized: &TokenStream,
) -> TokenStream {
    let (message, handler) = (&names.message, &names.handler);
    let arms = entries.iter().map(|e| {
        let (variant, method) = (&e.variant, &e.method);
        if e.response.is_some() {
            quote! {
                Self::#variant { request, call } => ::core::option::Option::Some(
                    #response::#variant { request, value: handler.#method(call) },
                ),
            }
        } else {
            quote! {
                Self::#variant(value) => {
                    handler.#method(value);
                    ::core::option::Option::None
                }
            }
        }
    });
    let text = doc(&format!(
        "Hands the message or call to the [`{handler}`] method of its entry; returns the \
         response of a call that expects one (what an `idlc::Endpoint` delivery closure \
         returns)."
    ));
    quote! {
        impl #message {
            #text
            pub fn handle<H: #handler + ?#sized>(
                self,
                handler: &mut H,
            ) -> ::core::option::Option<#response> {
                match self {
                    #(#arms)*
                }
            }
        }
    }
}
