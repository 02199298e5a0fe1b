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
pub const RUNTIME_API_VERSION: u32 = 4;

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
    /// [`crate::ir::nesting::compared_part_by_part`]: the structs that get their own
    /// `Codec::sent_equals`.
    compared: &'a std::collections::HashSet<&'a str>,
    /// Which structs' every value survives this encoding exactly, as found so far
    /// ([`mirror::struct_is_lossless`]).
    lossless: mirror::Lossless,
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
        Style::Bitstream => (quote!(idlc::BitWriter), quote!(idlc::BitReader<'_>)),
        Style::Bytestream => (quote!(idlc::ByteWriter), quote!(idlc::ByteReader<'_>)),
    }
}

/// The writer and reader types of [`DefaultEncoding`] (the first encoding given).
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

/// The name generated code gives the runtime crate (`use ::idlc_runtime as idlc;`): no encoding
/// marker takes it (the schema's own type names are UpperCamelCase, so never this).
const RUNTIME_ALIAS: &str = "idlc";

/// The Rust name of the marker type of an encoding: its own name when that is a usable type
/// name (an identifier and no keyword: `ENCODING(type)` is `TypeEncoding`), else `<Name>Encoding` (`<Name>Encoding2`, ... while that is taken too); the built-in
/// encoding is `BuiltinEncoding`. Taken: the prelude's names, `DefaultEncoding`, the schema's
/// types and the types its protocols generate.
pub fn marker_name(ir: &Ir, encoding: &str) -> String {
    let taken = |name: &str| {
        PRELUDE_NAMES.contains(&name)
            || name == RUNTIME_ALIAS
            || name == crate::ir::DEFAULT_ENCODING_ALIAS
            || ir.mapping.names_type(name)
            || ir.schema.protocols.keys().any(|p| {
                crate::ir::protocol_type_names(p)
                    .iter()
                    .any(|generated| generated == name)
            })
    };
    crate::ir::naming::encoding_type_name(encoding, |name| {
        !is_ident(name)
            || name.starts_with("r#")
            || crate::ir::naming::is_keyword(name)
            || taken(name)
    })
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
    let api_version = idents::u32_lit(RUNTIME_API_VERSION);
    items.push(formatted(quote! {
        use ::idlc_runtime as idlc;
        #[allow(unused_imports)]
        use idlc::{WireRead as _, WireWrite as _, WithField as _};

        const _: () = idlc::__private::check_api_version(#api_version);
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
    let compared = crate::ir::nesting::compared_part_by_part(ir);
    let plans = crate::ir::plan::plan(
        ir,
        crate::ir::plan::PlanOptions {
            pack_runs: options.merge_fixed_width,
        },
    );
    let same_wire = crate::ir::same_wire::SameWire::of(ir, &plans);
    // A struct another holds keeps a body per encoding: held, its codec is inlined into its
    // holder's, which LLVM stops doing once one body has callers in two encodings (mk48's
    // Guidance: an out-of-line call per Contact). Top-level structs share theirs.
    let held = crate::ir::nesting::nested_structs(&ir.schema);
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
            compared: &compared,
            lossless: mirror::Lossless::default(),
        };
        for (name, def) in &ir.schema.structs {
            let (Some(mapping), true) = (
                ir.mapping.structs.get(name),
                plan.structs.contains_key(name),
            ) else {
                continue;
            };
            if let Some(first) = same_wire
                .first(&encoding.name, name)
                .filter(|_| !held.contains(name.as_str()))
            {
                let first = checked_ident(&marker_name(ir, first))?;
                items.push(formatted(codec::same_codec(&ctx, def, mapping, &first)?)?);
                continue;
            }
            items.push(formatted(codec::codec_impl(&ctx, def, mapping)?)?);
            items.push(formatted(delta::delta_impl(&ctx, def, mapping)?)?);
        }
    }
    for (name, mapping) in &ir.mapping.structs {
        if !mapping.existing && ir.schema.structs.contains_key(name) {
            items.push(formatted(api_impl(mapping)?)?);
            if ir.schema.structs[name].kind == crate::ir::StructKind::Publishable {
                items.push(formatted(delta_api_impl(mapping)?)?);
            }
        }
    }
    for def in ir.schema.protocols.values() {
        items.push(formatted(protocol::protocol_items(ir, def)?)?);
    }
    items.push(formatted(protocol::link_items(ir)?)?);
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
            Style::Bitstream => (quote!(idlc::BitStream), "BITSTREAM"),
            Style::Bytestream => (quote!(idlc::ByteStream), "BYTESTREAM"),
        };
        let marker_doc = doc(&format!(
            "The encoding `{name}` ({style_name}): pick it with `to_bytes_with::<{marker}>()`."
        ));
        items.push(quote! {
            #marker_doc
            #[allow(clippy::upper_case_acronyms, non_camel_case_types)]
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
            pub struct #marker;

            impl idlc::Encoding for #marker {
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

/// The full-form entry points of a struct (DESIGN.md "Generated Rust API"): the runtime's
/// `codec_methods!`, which forwards to its `Codec` in `DefaultEncoding` or another encoding.
fn api_impl(mapping: &crate::ir::StructMapping) -> Result<TokenStream, CodegenError> {
    let name = checked_ident(&mapping.rust_name)?;
    Ok(quote!(idlc::codec_methods!(#name);))
}

/// The delta entry points of a PUBLISHABLE_STRUCT: the runtime's `delta_methods!`.
fn delta_api_impl(mapping: &crate::ir::StructMapping) -> Result<TokenStream, CodegenError> {
    let name = checked_ident(&mapping.rust_name)?;
    Ok(quote!(idlc::delta_methods!(#name);))
}
