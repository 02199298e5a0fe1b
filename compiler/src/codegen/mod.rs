//! Rust code generation from the IR: one module per IDL set, for one side, speaking every
//! encoding of the build. Reads only the IR.
//!
//! The code is built as tokens (`quote!`) and formatted with `prettyplease`, so it is always
//! syntactically valid and byte-identical for the same IR.

mod codec;
mod delta;
mod fields;
mod idents;
mod in_place;
mod mirror;
mod pack;
mod prefetch;
pub(crate) mod protocol;
mod rules;

pub(crate) use rules::quantizer_name;
mod types;
mod values;

use std::fmt;

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{Encoding, Ir, Style};
use idents::{checked_ident, doc, is_ident};

/// The revision of the runtime API this generator writes against
/// (`idlc_runtime::__private::API_VERSION`); generated code fails to compile against another.
pub const RUNTIME_API_VERSION: u32 = 1;

/// Code generation failed: the IR holds something the generator cannot express.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodegenError(pub String);

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CodegenError {}

/// How to generate: what the header says, and the optimizations to apply.
#[derive(Debug, Clone)]
pub struct GenOptions {
    /// The input files, as the header lists them.
    pub inputs: Vec<String>,
    /// Pack runs of consecutive fixed-width fields of a BITSTREAM into one write and one read
    /// (the same bits on the wire). On by default.
    pub merge_fixed_width: bool,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            inputs: Vec::new(),
            merge_fixed_width: true,
        }
    }
}

/// What the code of one struct in one encoding needs to know.
pub(crate) struct Ctx<'a> {
    ir: &'a Ir,
    encoding: &'a Encoding,
    /// The wire plan of the encoding: what every consumer walks.
    plan: &'a crate::ir::plan::EncodingPlan,
    marker: TokenStream,
    prelude: &'a idents::Prelude,
    /// [`in_place::memory_owners`]: the structs that get their own `decode_in_place_from`.
    memory_owners: &'a std::collections::HashSet<&'a str>,
    /// [`prefetch::prefetched_structs`]: the structs that get their own `prefetch_owned`, and
    /// the sequence elements that an encoder prefetches a batch ahead.
    prefetched: &'a std::collections::HashSet<&'a str>,
    /// The FIXED_POINT quantizers the module's code names (see [`Quantizers`]).
    quantizers: &'a Quantizers,
}

/// The FIXED_POINT quantizers of a module, each a module-level `const` built at compile time
/// and named after its parameters (`FIXED_POINT_0_01_ON_MINUS_10000_TO_10000`); the code that
/// quantizes refers to it by name. Filled while the impls are generated, sorted by name.
#[derive(Default)]
pub(crate) struct Quantizers(std::cell::RefCell<std::collections::BTreeMap<String, TokenStream>>);

impl Quantizers {
    /// Registers the const `name` (defined by `item`) if it is new.
    fn register(&self, name: &str, item: impl FnOnce() -> TokenStream) {
        self.0
            .borrow_mut()
            .entry(name.to_string())
            .or_insert_with(item);
    }

    /// The const items, in name order.
    fn items(&self) -> Vec<TokenStream> {
        self.0.borrow().values().cloned().collect()
    }
}

impl Ctx<'_> {
    fn stream_types(&self) -> (TokenStream, TokenStream) {
        stream_types(self.encoding.style)
    }

    /// The plan of the struct `name` in this encoding.
    fn plan_of(&self, name: &str) -> Result<&'_ crate::ir::plan::StructPlan, CodegenError> {
        self.plan
            .structs
            .get(name)
            .ok_or_else(|| CodegenError(format!("internal: no plan of {name}")))
    }

    /// Whether the struct `name`, held by another value, travels in its nested form.
    fn is_nested(&self, name: &str) -> bool {
        self.plan.structs.get(name).is_some_and(|p| p.nested_form)
    }

    /// The `Codec` method that reads the struct `name` held by another value.
    fn struct_reader(&self, name: &str) -> proc_macro2::Ident {
        if self.is_nested(name) {
            quote::format_ident!("decode_nested_from")
        } else {
            quote::format_ident!("decode_from")
        }
    }
}

/// The writer and reader types of a stream style.
fn stream_types(style: Style) -> (TokenStream, TokenStream) {
    match style {
        Style::Bitstream => (
            quote!(::idlc_runtime::BitWriter),
            quote!(::idlc_runtime::BitReader<'_>),
        ),
        Style::Bytestream => (
            quote!(::idlc_runtime::ByteWriter),
            quote!(::idlc_runtime::ByteReader<'_>),
        ),
    }
}

/// The writer and reader types of [`DefaultEncoding`] (the first encoding given).
fn default_stream_types(ir: &Ir) -> Result<(TokenStream, TokenStream), CodegenError> {
    let first = ir
        .encodings
        .values()
        .next()
        .ok_or_else(|| CodegenError("internal: no encoding".into()))?;
    Ok(stream_types(first.style))
}

/// Names of Rust's prelude (types, traits and the variants a unit struct would shadow) that an
/// encoding marker never takes.
const PRELUDE_NAMES: &[&str] = &[
    "Default",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "Vec",
    "String",
    "Box",
    "Clone",
    "Copy",
    "Debug",
    "PartialEq",
    "Eq",
    "Hash",
    "Send",
    "Sync",
    "Sized",
    "Drop",
    "Fn",
];

/// The Rust name of the marker type of an encoding: its own name when that is a usable type
/// name, else `<Name>Encoding` (`<Name>Encoding2`, ... while that is taken too); the built-in
/// encoding is `BuiltinEncoding`. Taken: the prelude's names, `DefaultEncoding`, the schema's
/// types and the types its protocols generate.
pub fn marker_name(ir: &Ir, encoding: &str) -> String {
    let taken = |name: &str| {
        PRELUDE_NAMES.contains(&name)
            || name == crate::ir::DEFAULT_ENCODING_ALIAS
            || ir.mapping.structs.values().any(|s| s.rust_name == name)
            || ir.mapping.enums.values().any(|e| e.rust_name == name)
            || ir.mapping.typedefs.values().any(|t| t.rust_name == name)
            || ir.schema.protocols.keys().any(|p| {
                crate::ir::protocol_type_names(p)
                    .iter()
                    .any(|generated| generated == name)
            })
    };
    if encoding == "Default" {
        return "BuiltinEncoding".to_string();
    }
    if is_ident(encoding) && !taken(encoding) && !encoding.starts_with("r#") {
        return encoding.to_string();
    }
    let base = format!("{}Encoding", heck::AsUpperCamelCase(encoding));
    let mut name = base.clone();
    let mut suffix = 2;
    while taken(&name) {
        name = format!("{base}{suffix}");
        suffix += 1;
    }
    name
}

/// Generates the module for `ir`: formatted Rust source with a do-not-edit header. A side
/// mapped in C++ is refused: its header comes from the C++ backend (`crate::cppgen`).
pub fn generate(ir: &Ir, options: &GenOptions) -> Result<String, CodegenError> {
    if ir.mapping.language != crate::ir::Language::Rust {
        return Err(CodegenError(format!(
            "side {} is mapped in \"{}\": a Rust module of it is not generated yet (`idlc gen` \
             writes its C++ header: docs/CPP.md)",
            ir.mapping
                .side
                .as_deref()
                .map_or_else(|| "(none)".to_string(), |s| format!("\"{s}\"")),
            ir.mapping.language.name()
        )));
    }
    let prelude = idents::Prelude::of(ir);
    let mut items = Vec::new();
    items.push(formatted(quote! {
        #[allow(unused_imports)]
        use ::idlc_runtime::{WireRead as _, WireWrite as _, WithField as _};

        const _: () = ::idlc_runtime::__private::check_api_version(#RUNTIME_API_VERSION);
    })?);
    for def in ir.schema.enums.values() {
        items.push(formatted(types::enum_def(ir, &prelude, def)?)?);
    }
    for (name, mapping) in &ir.mapping.typedefs {
        items.push(formatted(types::typedef_alias(&prelude, name, mapping)?)?);
    }
    for (name, def) in &ir.schema.structs {
        let mapping = ir
            .mapping
            .structs
            .get(name)
            .ok_or_else(|| CodegenError(format!("internal: no mapping of struct {name}")))?;
        if !mapping.existing {
            items.push(formatted(types::struct_def(ir, &prelude, def, mapping)?)?);
        }
    }
    items.push(formatted(encoding_markers(ir)?)?);
    let quantizers_at = items.len();
    let quantizers = Quantizers::default();
    let memory_owners = in_place::memory_owners(ir);
    let prefetched = prefetch::prefetched_structs(ir, &memory_owners);
    let plans = crate::ir::plan::plan(
        ir,
        crate::ir::plan::PlanOptions {
            pack_runs: options.merge_fixed_width,
        },
    );
    for (encoding, plan) in ir.encodings.values().zip(plans.values()) {
        let marker = checked_ident(&marker_name(ir, &encoding.name))?;
        let ctx = Ctx {
            ir,
            encoding,
            plan,
            marker: quote!(#marker),
            prelude: &prelude,
            memory_owners: &memory_owners,
            prefetched: &prefetched,
            quantizers: &quantizers,
        };
        for (name, def) in &ir.schema.structs {
            let (Some(mapping), true) = (
                ir.mapping.structs.get(name),
                plan.structs.contains_key(name),
            ) else {
                continue;
            };
            items.push(formatted(codec::codec_impl(&ctx, def, mapping)?)?);
            items.push(formatted(delta::delta_impl(&ctx, def, mapping)?)?);
        }
    }
    for (name, mapping) in &ir.mapping.structs {
        if !mapping.existing && ir.schema.structs.contains_key(name) {
            items.push(formatted(api_impl(ir, &prelude, mapping)?)?);
            if ir.schema.structs[name].kind == crate::ir::StructKind::Publishable {
                items.push(formatted(delta_api_impl(ir, &prelude, mapping)?)?);
            }
        }
    }
    for def in ir.schema.protocols.values() {
        items.push(formatted(protocol::protocol_items(ir, def)?)?);
    }
    let quantizers = quantizers
        .items()
        .into_iter()
        .map(formatted)
        .collect::<Result<Vec<_>, _>>()?;
    items.splice(quantizers_at..quantizers_at, quantizers);
    Ok(format!(
        "{}{}",
        header(ir, options),
        separate_items(&items.concat())
    ))
}

/// One or more items, formatted. Each item is formatted as soon as it is built, so that only
/// one item's tokens and syntax tree are alive at a time (the whole module's took 3.3 GB for
/// 5,000 structs); prettyplease formats a file item by item, so the text is the same.
fn formatted(tokens: TokenStream) -> Result<String, CodegenError> {
    let mut file: syn::File = syn::parse2(tokens)
        .map_err(|e| CodegenError(format!("internal: generated code does not parse: {e}")))?;
    for item in &mut file.items {
        if let Some(attrs) = dead_code_attrs(item) {
            attrs.push(syn::parse_quote!(#[allow(dead_code)]));
        }
    }
    Ok(prettyplease::unparse(&file))
}

/// The attributes of an item that a crate may leave unused: a module included privately (`mod
/// net { include_generated!("game"); }` in a binary) uses what the game uses, and
/// `#![deny(warnings)]` must still hold (DESIGN.md). `use` and `const _` items are not such.
fn dead_code_attrs(item: &mut syn::Item) -> Option<&mut Vec<syn::Attribute>> {
    match item {
        syn::Item::Struct(i) => Some(&mut i.attrs),
        syn::Item::Enum(i) => Some(&mut i.attrs),
        syn::Item::Impl(i) => Some(&mut i.attrs),
        syn::Item::Trait(i) => Some(&mut i.attrs),
        syn::Item::Type(i) => Some(&mut i.attrs),
        syn::Item::Fn(i) => Some(&mut i.attrs),
        syn::Item::Const(i) if i.ident != "_" => Some(&mut i.attrs),
        _ => None,
    }
}

/// A blank line after every top-level item, as rustfmt'd code has them.
fn separate_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len() + code.len() / 16);
    let mut lines = code.lines().peekable();
    while let Some(line) = lines.next() {
        out.push_str(line);
        out.push('\n');
        let item_ends = line == "}"
            || (!line.starts_with(' ') && (line.ends_with(';') || line.ends_with("{}")));
        if item_ends && lines.peek().is_some() {
            out.push('\n');
        }
    }
    out
}

fn header(ir: &Ir, options: &GenOptions) -> String {
    let mut text =
        String::from("// @generated by idlc. Do not edit: edit the inputs and regenerate.\n");
    if !options.inputs.is_empty() {
        text.push_str(&format!("// Inputs: {}\n", options.inputs.join(", ")));
    }
    if let Some(side) = &ir.mapping.side {
        text.push_str(&format!("// Side: {side}\n"));
    }
    let encodings: Vec<&str> = ir.encodings.keys().map(String::as_str).collect();
    text.push_str(&format!("// Encodings: {}\n\n", encodings.join(", ")));
    text
}

fn encoding_markers(ir: &Ir) -> Result<TokenStream, CodegenError> {
    let mut items = Vec::new();
    for encoding in ir.encodings.values() {
        let marker = checked_ident(&marker_name(ir, &encoding.name))?;
        let name = &encoding.name;
        let (style, style_name) = match encoding.style {
            Style::Bitstream => (quote!(::idlc_runtime::BitStream), "BITSTREAM"),
            Style::Bytestream => (quote!(::idlc_runtime::ByteStream), "BYTESTREAM"),
        };
        let marker_doc = doc(&format!(
            "The encoding `{name}` ({style_name}): pick it with `to_bytes_with::<{marker}>()`."
        ));
        items.push(quote! {
            #marker_doc
            #[allow(clippy::upper_case_acronyms, non_camel_case_types)]
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
            pub struct #marker;

            impl ::idlc_runtime::Encoding for #marker {
                const NAME: &'static str = #name;
                type Style = #style;
            }
        });
    }
    let first = ir
        .encodings
        .values()
        .next()
        .ok_or_else(|| CodegenError("internal: no encoding".into()))?;
    let first = checked_ident(&marker_name(ir, &first.name))?;
    Ok(quote! {
        #(#items)*
        /// The encoding of `to_bytes`, `from_bytes`, `encode` and `decode`: the first given.
        pub type DefaultEncoding = #first;
    })
}

/// `#[allow(clippy::wrong_self_convention)]` for the `to_*(&self)` methods when the side's
/// DERIVE makes every generated struct `Copy` (clippy wants `to_*` of a `Copy` type to take
/// `self`; the API is the same for every side), else nothing.
fn to_method_allow(ir: &Ir) -> TokenStream {
    let copy = ir
        .mapping
        .derives
        .iter()
        .any(|path| path.rsplit("::").next() == Some("Copy"));
    if copy {
        quote!(#[allow(clippy::wrong_self_convention)])
    } else {
        TokenStream::new()
    }
}

fn api_impl(
    ir: &Ir,
    prelude: &idents::Prelude,
    mapping: &crate::ir::StructMapping,
) -> Result<TokenStream, CodegenError> {
    let (result, vec) = (prelude.path("Result"), prelude.path("Vec"));
    let name = checked_ident(&mapping.rust_name)?;
    let (writer, reader) = default_stream_types(ir)?;
    let allow = to_method_allow(ir);
    Ok(quote! {
        impl #name {
            /// Encodes `self` in [`DefaultEncoding`]: the full form, every field.
            #[inline]
            #allow
            pub fn to_bytes(&self) -> #result<#vec<u8>, ::idlc_runtime::EncodeError> {
                ::idlc_runtime::to_bytes::<DefaultEncoding, Self>(self)
            }

            /// Decodes a value written by [`Self::to_bytes`]; any malformed input is an error.
            #[inline]
            pub fn from_bytes(bytes: &[u8]) -> #result<Self, ::idlc_runtime::DecodeError> {
                ::idlc_runtime::from_bytes::<DefaultEncoding, Self>(bytes)
            }

            /// Decodes a value written by [`Self::to_bytes`] into `self`, reusing the memory it
            /// owns (its `Vec`s and `String`s): a receiver that decodes every packet into one
            /// value allocates only when a collection grows. On an error `self` holds a mix of
            /// its old fields and the ones read, each a valid value.
            #[inline]
            #[allow(clippy::wrong_self_convention)]
            pub fn from_bytes_in_place(&mut self, bytes: &[u8]) -> #result<(), ::idlc_runtime::DecodeError> {
                ::idlc_runtime::from_bytes_in_place::<DefaultEncoding, Self>(bytes, self)
            }

            /// Encodes `self` in the encoding `E`.
            #allow
            pub fn to_bytes_with<E: ::idlc_runtime::Encoding>(&self) -> #result<#vec<u8>, ::idlc_runtime::EncodeError>
            where
                Self: ::idlc_runtime::Codec<E>,
            {
                ::idlc_runtime::to_bytes::<E, Self>(self)
            }

            /// Decodes a value written in the encoding `E`.
            pub fn from_bytes_with<E: ::idlc_runtime::Encoding>(bytes: &[u8]) -> #result<Self, ::idlc_runtime::DecodeError>
            where
                Self: ::idlc_runtime::Codec<E>,
            {
                ::idlc_runtime::from_bytes::<E, Self>(bytes)
            }

            /// [`Self::from_bytes_in_place`] in the encoding `E`.
            #[allow(clippy::wrong_self_convention)]
            pub fn from_bytes_in_place_with<E: ::idlc_runtime::Encoding>(&mut self, bytes: &[u8]) -> #result<(), ::idlc_runtime::DecodeError>
            where
                Self: ::idlc_runtime::Codec<E>,
            {
                ::idlc_runtime::from_bytes_in_place::<E, Self>(bytes, self)
            }

            /// Appends `self` in [`DefaultEncoding`] to a writer you reuse.
            #[inline]
            pub fn encode(&self, w: &mut #writer) -> #result<(), ::idlc_runtime::EncodeError> {
                ::idlc_runtime::Codec::<DefaultEncoding>::encode_to(self, w)
            }

            /// Reads one value in [`DefaultEncoding`] from a reader.
            #[inline]
            pub fn decode(r: &mut #reader) -> #result<Self, ::idlc_runtime::DecodeError> {
                <Self as ::idlc_runtime::Codec<DefaultEncoding>>::decode_from(r)
            }

            /// Reads one value in [`DefaultEncoding`] from a reader into `self`, as
            /// [`Self::from_bytes_in_place`] does.
            #[inline]
            pub fn decode_in_place(&mut self, r: &mut #reader) -> #result<(), ::idlc_runtime::DecodeError> {
                ::idlc_runtime::Codec::<DefaultEncoding>::decode_in_place_from(self, r)
            }

            /// The value the receiver gets when `self` is sent in the encoding `E`: quantized
            /// fields on their steps, as `from_bytes_with::<E>(&to_bytes_with::<E>()?)` would
            /// give, computed without decoding; the error `to_bytes_with` would give for a
            /// value it cannot send.
            pub fn quantized_with<E: ::idlc_runtime::Encoding>(&self) -> #result<Self, ::idlc_runtime::EncodeError>
            where
                Self: ::idlc_runtime::Codec<E>,
            {
                let mut checked = ::idlc_runtime::WriterOf::<E>::default();
                ::idlc_runtime::Codec::<E>::encode_to(self, &mut checked)?;
                ::idlc_runtime::Codec::<E>::sent(self)
            }
        }
    })
}

/// The delta entry points of a PUBLISHABLE_STRUCT (DESIGN.md "Generated Rust API").
fn delta_api_impl(
    ir: &Ir,
    prelude: &idents::Prelude,
    mapping: &crate::ir::StructMapping,
) -> Result<TokenStream, CodegenError> {
    let (result, vec) = (prelude.path("Result"), prelude.path("Vec"));
    let name = checked_ident(&mapping.rust_name)?;
    let (writer, reader) = default_stream_types(ir)?;
    let allow = to_method_allow(ir);
    Ok(quote! {
        impl #name {
            /// Appends what changed since `baseline` (the state the receiver holds) in
            /// [`DefaultEncoding`], and returns the mirror: exactly the state the receiver will
            /// reconstruct, the baseline of the next delta once the receiver has it.
            #[inline]
            pub fn encode_delta(
                &self,
                baseline: &Self,
                ctx: &::idlc_runtime::DeltaContext,
                w: &mut #writer,
            ) -> #result<Self, ::idlc_runtime::EncodeError> {
                ::idlc_runtime::DeltaCodec::<DefaultEncoding>::encode_delta_to(self, baseline, ctx, w)
            }

            /// [`Self::encode_delta`] with the mirror written into `mirror`, reusing the memory
            /// its `Vec`s hold (keep two mirrors and swap them). `baseline` is never touched;
            /// after an error `mirror` holds no meaningful state.
            #[inline]
            pub fn encode_delta_into(
                &self,
                baseline: &Self,
                ctx: &::idlc_runtime::DeltaContext,
                w: &mut #writer,
                mirror: &mut Self,
            ) -> #result<(), ::idlc_runtime::EncodeError> {
                ::idlc_runtime::DeltaCodec::<DefaultEncoding>::encode_delta_into(self, baseline, ctx, w, mirror)
            }

            /// Reads a delta written by [`Self::encode_delta`] against the same baseline.
            #[inline]
            pub fn decode_delta(
                baseline: &Self,
                ctx: &::idlc_runtime::DeltaContext,
                r: &mut #reader,
            ) -> #result<Self, ::idlc_runtime::DecodeError> {
                <Self as ::idlc_runtime::DeltaCodec<DefaultEncoding>>::decode_delta_from(baseline, ctx, r)
            }

            /// [`Self::decode_delta`] into `state`, reusing the memory its `Vec`s hold (keep two
            /// states and swap them). `baseline` is never touched; after an error `state` holds
            /// no meaningful state.
            #[inline]
            pub fn decode_delta_into(
                baseline: &Self,
                ctx: &::idlc_runtime::DeltaContext,
                r: &mut #reader,
                state: &mut Self,
            ) -> #result<(), ::idlc_runtime::DecodeError> {
                <Self as ::idlc_runtime::DeltaCodec<DefaultEncoding>>::decode_delta_into(baseline, ctx, r, state)
            }

            /// [`Self::encode_delta`] into a new buffer (the mirror is dropped).
            #[inline]
            #allow
            pub fn to_delta_bytes(
                &self,
                baseline: &Self,
                ctx: &::idlc_runtime::DeltaContext,
            ) -> #result<#vec<u8>, ::idlc_runtime::EncodeError> {
                ::idlc_runtime::to_delta_bytes::<DefaultEncoding, Self>(self, baseline, ctx)
            }

            /// Decodes a buffer written by [`Self::to_delta_bytes`] against the same baseline.
            #[inline]
            pub fn from_delta_bytes(
                baseline: &Self,
                ctx: &::idlc_runtime::DeltaContext,
                bytes: &[u8],
            ) -> #result<Self, ::idlc_runtime::DecodeError> {
                ::idlc_runtime::from_delta_bytes::<DefaultEncoding, Self>(baseline, ctx, bytes)
            }

            /// [`Self::to_delta_bytes`] in the encoding `E`.
            #allow
            pub fn to_delta_bytes_with<E: ::idlc_runtime::Encoding>(
                &self,
                baseline: &Self,
                ctx: &::idlc_runtime::DeltaContext,
            ) -> #result<#vec<u8>, ::idlc_runtime::EncodeError>
            where
                Self: ::idlc_runtime::DeltaCodec<E>,
            {
                ::idlc_runtime::to_delta_bytes::<E, Self>(self, baseline, ctx)
            }

            /// [`Self::from_delta_bytes`] in the encoding `E`.
            pub fn from_delta_bytes_with<E: ::idlc_runtime::Encoding>(
                baseline: &Self,
                ctx: &::idlc_runtime::DeltaContext,
                bytes: &[u8],
            ) -> #result<Self, ::idlc_runtime::DecodeError>
            where
                Self: ::idlc_runtime::DeltaCodec<E>,
            {
                ::idlc_runtime::from_delta_bytes::<E, Self>(baseline, ctx, bytes)
            }
        }
    })
}
