//! `impl Codec<Encoding> for Struct`: the straight-line encoder and decoder of one struct in one
//! encoding, segment by segment (a present bit before every segment after a FENCE).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::idents::{ident, int_lit, rust_type, u32_lit};
use super::in_place;
use super::pack;
use super::rules::{Site, Val, decode, encode};
use super::values::default_value;
use super::{CodegenError, Ctx};
use crate::ir::{
    Extend, FieldEncoding, FieldMapping, RustType, StructDef, StructEncoding, StructMapping, Type,
    WireItem, WireRule,
};

/// A field as codegen sees it: IDL declaration, Rust form, and its EXTENDs.
pub(super) struct FieldView<'a> {
    /// The IDL name of the struct that declares it.
    pub(super) owner: &'a str,
    pub(super) segment: usize,
    pub(super) field: &'a crate::ir::Field,
    pub(super) rust: &'a FieldMapping,
    pub(super) extends: Vec<(usize, &'a Extend)>,
}

impl FieldView<'_> {
    pub(super) fn local(&self) -> proc_macro2::Ident {
        format_ident!("f_{}", self.rust.rust_name.trim_start_matches("r#"))
    }

    pub(super) fn access(&self) -> Val {
        let name = ident(&self.rust.rust_name);
        Val::Place(quote!(self.#name))
    }

    /// What its errors name: `Struct.field`.
    pub(super) fn site(&self) -> Site {
        Site::field(self.owner, &self.field.name)
    }
}

pub(super) fn views<'a>(
    def: &'a StructDef,
    mapping: &'a StructMapping,
) -> Result<Vec<FieldView<'a>>, CodegenError> {
    let mut out = Vec::new();
    for (segment, seg) in def.segments.iter().enumerate() {
        for field in &seg.fields {
            let rust = mapping.fields.get(&field.name).ok_or_else(|| {
                CodegenError(format!(
                    "internal: no mapping of {}.{}",
                    def.name, field.name
                ))
            })?;
            let extends = def
                .segments
                .iter()
                .enumerate()
                .flat_map(|(i, s)| s.extends.iter().map(move |e| (i, e)))
                .filter(|(_, e)| e.field == field.name)
                .collect();
            out.push(FieldView {
                owner: &def.name,
                segment,
                field,
                rust,
                extends,
            });
        }
    }
    Ok(out)
}

/// The `impl Codec<M> for T` of one struct.
pub fn codec_impl(
    ctx: &Ctx<'_>,
    def: &StructDef,
    mapping: &StructMapping,
    encoding: &StructEncoding,
) -> Result<TokenStream, CodegenError> {
    let fields = views(def, mapping)?;
    let find = |name: &str| fields.iter().find(|f| f.field.name == name);
    // Per segment: its writes and its reads (each gated by `present_k` from segment 1 on).
    let mut segment_writes = Vec::new();
    let mut segment_reads = Vec::new();
    // The reads of `decode_in_place_from`: the same, but some fields straight into `self`.
    let mut segment_in_place_reads = Vec::new();
    let mut read_in_place = Vec::new();
    let mut runs = 0;
    for (index, segment) in encoding.segments.iter().enumerate() {
        let mut writes = Vec::new();
        // Each read, and what `decode_in_place_from` reads instead (when it differs).
        let mut reads: Vec<(TokenStream, Option<TokenStream>)> = Vec::new();
        let steps = flatten(&segment.items);
        let mut position = 0;
        while position < steps.len() {
            let run = packable_run(ctx, &steps[position..], index, &find);
            if run.len() >= 2 {
                writes.push(pack::encode_run(ctx, &run)?);
                reads.push((pack::decode_run(ctx, &run, runs)?, None));
                runs += 1;
                position += run.len();
                continue;
            }
            match &steps[position] {
                Flat::Field(encoded) => {
                    let view = find(&encoded.field).ok_or_else(|| {
                        CodegenError(format!(
                            "internal: {} has no field {}",
                            def.name, encoded.field
                        ))
                    })?;
                    writes.push(encode_field(ctx, view, &encoded.rule)?);
                    let read = decode_field(ctx, view, &encoded.rule, index)?;
                    let in_place = in_place::read_field_in_place(ctx, view, &encoded.rule, index)?;
                    if in_place.is_some() {
                        read_in_place.push(view.field.name.as_str());
                    }
                    reads.push((read, in_place));
                }
                Flat::Extend(name, rule) => {
                    let view = find(name).ok_or_else(|| {
                        CodegenError(format!("internal: {} has no field {name}", def.name))
                    })?;
                    let (e, d) = extension(ctx, view, index, rule)?;
                    writes.push(e);
                    reads.push((in_segment(index, d), None));
                }
                Flat::Align => {
                    let q = Site::named(&format!("{} (ALIGN)", def.name)).q();
                    writes.push(quote!(w.align()?;));
                    reads.push((in_segment(index, quote!(r.align()#q;)), None));
                }
                Flat::Check => {
                    let q = Site::named(&format!("{} (CHECK)", def.name)).q();
                    writes.push(quote!(w.write_check()?;));
                    reads.push((in_segment(index, quote!(r.read_check()#q;)), None));
                }
            }
            position += 1;
        }
        segment_writes.push(writes);
        let (fresh, in_place): (Vec<_>, Vec<_>) = reads
            .into_iter()
            .map(|(read, in_place)| (read.clone(), in_place.unwrap_or(read)))
            .unzip();
        segment_reads.push(fresh);
        segment_in_place_reads.push(in_place);
    }
    let (encode_body, decode_body) = top_level_form(def, &segment_writes, &segment_reads);
    let ty = rust_type(&mapping.rust_name)?;
    let nested = if ctx.nested_fenced.contains(def.name.as_str()) {
        nested_form(ctx, def, &ty, &fields, &segment_writes, &segment_reads)
    } else {
        TokenStream::new()
    };
    let (enter, leave) = enter_leave(ctx, def);
    // A struct with nothing on the wire leaves the stream untouched.
    let w = if encode_body.is_empty() {
        quote!(_w)
    } else {
        quote!(w)
    };
    let r = if decode_body.is_empty() && enter.is_empty() {
        quote!(_r)
    } else {
        quote!(r)
    };
    let result = ctx.prelude.path("Result");
    let marker = &ctx.marker;
    let (writer, reader) = ctx.stream_types();
    let constructor = constructor(&ty, &fields);
    let decode_in_place = if ctx.memory_owners.contains(def.name.as_str()) {
        let (_, body) = top_level_form(def, &segment_writes, &segment_in_place_reads);
        let assignments = fields
            .iter()
            .filter(|f| !read_in_place.contains(&f.field.name.as_str()))
            .map(|f| {
                let (name, local) = (ident(&f.rust.rust_name), f.local());
                quote!(self.#name = #local;)
            });
        quote! {
            #[inline]
            fn decode_in_place_from(&mut self, r: &mut #reader) -> #result<(), ::idlc_runtime::DecodeError> {
                #enter
                #(#body)*
                #leave
                #(#assignments)*
                Ok(())
            }
        }
    } else {
        TokenStream::new()
    };
    let prefetch_owned = super::prefetch::prefetch_owned_fn(ctx, &def.name, &fields);
    let sent = super::mirror::sent_body(ctx, &fields, encoding, &ty)?;
    let sent_equals = if ctx.compared_as_sent.contains(def.name.as_str()) {
        let body = super::mirror::sent_equals_body(ctx, &fields, encoding)?;
        quote! {
            fn sent_equals(&self, other: &Self) -> #result<bool, ::idlc_runtime::EncodeError> {
                #body
            }
        }
    } else {
        TokenStream::new()
    };
    let style = match ctx.encoding.style {
        crate::ir::Style::Bitstream => "BITSTREAM",
        crate::ir::Style::Bytestream => "BYTESTREAM",
    };
    let doc = format!(
        " `{}` in the encoding `{}` ({style}).",
        def.name, ctx.encoding.name
    );
    Ok(quote! {
        #[doc = #doc]
        impl ::idlc_runtime::Codec<#marker> for #ty {
            #[inline]
            fn encode_to(&self, #w: &mut #writer) -> #result<(), ::idlc_runtime::EncodeError> {
                #(#encode_body)*
                Ok(())
            }

            #[inline]
            fn decode_from(#r: &mut #reader) -> #result<Self, ::idlc_runtime::DecodeError> {
                #enter
                #(#decode_body)*
                #leave
                Ok(#constructor)
            }

            #decode_in_place

            #prefetch_owned

            #nested

            #[allow(clippy::clone_on_copy, clippy::redundant_closure)]
            fn sent(&self) -> #result<Self, ::idlc_runtime::EncodeError> {
                #sent
            }

            #sent_equals
        }
    })
}

/// `r.enter()` and `r.leave()` around the decoder of a struct that can contain itself (its
/// nesting counts against the runtime's depth limit), else nothing.
pub(super) fn enter_leave(ctx: &Ctx<'_>, def: &StructDef) -> (TokenStream, TokenStream) {
    if is_recursive(ctx.ir, &def.name) {
        let q = Site::named(&def.name).q();
        (quote!(r.enter()#q;), quote!(r.leave();))
    } else {
        (quote!(), quote!())
    }
}

/// A read of segment `index`'s ALIGN or CHECK: from segment 1 on, only when the segment is
/// present (an older writer sent neither the segment nor its padding and check word).
fn in_segment(index: usize, read: TokenStream) -> TokenStream {
    if index == 0 {
        read
    } else {
        let present = format_ident!("present_{index}");
        quote!(if #present { #read })
    }
}

/// The form `encode_to` / `decode_from` write and read, the top-level one: each segment after a
/// FENCE behind a present bit, and the open end's present bit (0). A top-level message is framed
/// by its transport: an older reader just stops after what it knows.
fn top_level_form(
    def: &StructDef,
    writes: &[Vec<TokenStream>],
    reads: &[Vec<TokenStream>],
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut encode_body = Vec::new();
    let mut decode_body = Vec::new();
    let q = Site::named(&def.name).q();
    for (index, (segment_writes, segment_reads)) in writes.iter().zip(reads).enumerate() {
        if index > 0 {
            let present = format_ident!("present_{index}");
            let previous = format_ident!("present_{}", index - 1);
            let read = if index == 1 {
                quote!(r.read_fence_present()#q)
            } else {
                quote!(#previous && r.read_fence_present()#q)
            };
            encode_body.push(quote!(w.write_presence(true)?;));
            decode_body.push(quote!(let #present = #read;));
        }
        encode_body.extend(segment_writes.iter().cloned());
        decode_body.extend(segment_reads.iter().cloned());
    }
    if def.open_end {
        // The open end: a 0 present bit, which a newer reader takes for its next segment's. A
        // newer writer sets it and writes that segment; this reader ignores the tail.
        encode_body.push(quote!(w.write_presence(false)?;));
    }
    (encode_body, decode_body)
}

/// The writes of the nested form, shared by the full and the delta encoders: segment 0, then
/// each later segment in an open extension inside the previous one's, the open end's 0 bit in
/// the last.
pub(super) fn nested_writes(open_end: bool, segments: &[TokenStream]) -> TokenStream {
    let mut write = if open_end {
        quote!(w.write_presence(false)?;)
    } else {
        quote!()
    };
    for (index, segment) in segments.iter().enumerate().rev() {
        write = if index == 0 {
            quote!(#segment #write)
        } else {
            quote!(w.write_extension(|w| { #segment #write Ok(()) })?;)
        };
    }
    write
}

/// `encode_nested_to` / `decode_nested_from` of a struct with FENCE segments that another struct
/// holds: segment k+1 goes in an open extension (present bit, length) nested inside segment k's,
/// so an older reader skips what it does not know and the value after it stays in place
/// (WIRE.md, "Fences and versions").
fn nested_form(
    ctx: &Ctx<'_>,
    def: &StructDef,
    ty: &TokenStream,
    fields: &[FieldView<'_>],
    writes: &[Vec<TokenStream>],
    reads: &[Vec<TokenStream>],
) -> TokenStream {
    let result = ctx.prelude.path("Result");
    let (writer, reader) = ctx.stream_types();
    let q = Site::named(&def.name).q();
    if writes.len() == 1 {
        // One segment and an open end: the top-level form, whose tail a newer writer's
        // extension follows; skip it.
        let marker = &ctx.marker;
        return quote! {
            #[inline]
            fn encode_nested_to(&self, w: &mut #writer) -> #result<(), ::idlc_runtime::EncodeError> {
                ::idlc_runtime::Codec::<#marker>::encode_to(self, w)
            }

            #[inline]
            fn decode_nested_from(r: &mut #reader) -> #result<Self, ::idlc_runtime::DecodeError> {
                let value = <Self as ::idlc_runtime::Codec<#marker>>::decode_from(r)?;
                ::idlc_runtime::skip_extension(r)#q;
                Ok(value)
            }
        };
    }
    let segments: Vec<TokenStream> = writes.iter().map(|s| quote!(#(#s)*)).collect();
    let encode = nested_writes(def.open_end, &segments);
    let mut decode = Vec::new();
    let mut leave_extensions = Vec::new();
    for (index, segment_reads) in reads.iter().enumerate() {
        if index > 0 {
            let present = format_ident!("present_{index}");
            let extension = format_ident!("extension_{index}");
            let enter = if index == 1 {
                quote!(r.enter_extension()#q)
            } else {
                let previous = format_ident!("present_{}", index - 1);
                quote!(if #previous { r.enter_extension()#q } else { None })
            };
            decode.push(quote! {
                let #extension = #enter;
                let #present = #extension.is_some();
            });
            leave_extensions.push(quote! {
                if let Some(outer) = #extension {
                    r.leave_extension(outer);
                }
            });
        }
        decode.extend(segment_reads.iter().cloned());
    }
    if def.open_end {
        let last = format_ident!("present_{}", reads.len() - 1);
        decode.push(quote!(if #last { ::idlc_runtime::skip_extension(r)#q; }));
    }
    leave_extensions.reverse();
    let (enter, leave) = enter_leave(ctx, def);
    let constructor = constructor(ty, fields);
    quote! {
        fn encode_nested_to(&self, w: &mut #writer) -> #result<(), ::idlc_runtime::EncodeError> {
            #encode
            Ok(())
        }

        fn decode_nested_from(r: &mut #reader) -> #result<Self, ::idlc_runtime::DecodeError> {
            #enter
            #(#decode)*
            #(#leave_extensions)*
            #leave
            Ok(#constructor)
        }
    }
}

/// The longest run of fields at the start of `steps` that can be packed into one word (a
/// BITSTREAM's first segment, fields not widened by an EXTEND, at most 64 bits in all).
fn packable_run<'a>(
    ctx: &Ctx<'_>,
    steps: &[Flat<'a>],
    segment: usize,
    find: &dyn Fn(&str) -> Option<&'a FieldView<'a>>,
) -> Vec<pack::Packed<'a>> {
    let mut run = Vec::new();
    if !ctx.merge || segment != 0 || ctx.encoding.style != crate::ir::Style::Bitstream {
        return run;
    }
    let mut total = 0u32;
    for step in steps {
        let Flat::Field(encoded) = *step else { break };
        let Some(view) = find(&encoded.field).filter(|v| v.extends.is_empty()) else {
            break;
        };
        let Some(bits) = crate::ir::packable_bits(&encoded.rule, &view.field.ty, &view.rust.ty)
        else {
            break;
        };
        if total + bits > 64 {
            break;
        }
        total += bits;
        run.push(pack::Packed {
            path: format!("{}.{}", view.owner, view.field.name),
            rule: &encoded.rule,
            idl: &view.field.ty,
            rust: &view.rust.ty,
            value: view.access(),
            local: view.local(),
        });
    }
    run
}

/// Whether a struct can contain itself (through OPTIONAL or SEQUENCE): its decoder then counts
/// its nesting, so that a hostile packet cannot exhaust the stack.
pub(super) fn is_recursive(ir: &crate::ir::Ir, name: &str) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<&str> = vec![name];
    while let Some(current) = stack.pop() {
        let Some(def) = ir.schema.structs.get(current) else {
            continue;
        };
        for field in def.fields() {
            for inner in struct_names(&field.ty) {
                if inner == name {
                    return true;
                }
                if seen.insert(inner) {
                    stack.push(inner);
                }
            }
        }
    }
    false
}

fn struct_names(ty: &Type) -> Vec<&str> {
    match ty {
        Type::Struct(name) => vec![name.as_str()],
        Type::Sequence { element, .. } | Type::Array { element, .. } | Type::Optional(element) => {
            struct_names(element)
        }
        _ => Vec::new(),
    }
}

pub(super) fn constructor(ty: &TokenStream, fields: &[FieldView<'_>]) -> TokenStream {
    let inits = fields.iter().map(|f| {
        let name = ident(&f.rust.rust_name);
        let local = f.local();
        quote!(#name: #local)
    });
    quote!(#ty { #(#inits),* })
}

/// Wire items with blocks opened: a full (non-delta) encoding sends every field of a DELTA or
/// DEAD_RECKONING block in order, without changed-bits.
enum Flat<'a> {
    Field(&'a FieldEncoding),
    Extend(&'a str, &'a WireRule),
    Align,
    Check,
}

fn flatten(items: &[WireItem]) -> Vec<Flat<'_>> {
    let mut out = Vec::new();
    for item in items {
        match item {
            WireItem::Field(f) => out.push(Flat::Field(f)),
            WireItem::Extend(e) => out.push(Flat::Extend(&e.field, &e.rule)),
            WireItem::DeltaBlock(inner) => out.extend(flatten(inner)),
            WireItem::DeadReckoning(dr) => {
                out.extend(dr.positions.iter().chain(&dr.velocities).map(Flat::Field))
            }
            WireItem::Align => out.push(Flat::Align),
            WireItem::Check => out.push(Flat::Check),
        }
    }
    out
}

/// The type a field has in the old slot, and the types of its later extensions.
fn types_over_time<'a>(view: &'a FieldView<'_>) -> Vec<&'a Type> {
    let mut types = vec![&view.field.ty];
    types.extend(view.extends.iter().map(|(_, e)| &e.to));
    types
}

/// Whether an EXTEND from `from` to `to` is an unsigned widening whose extension carries the
/// high bits (WIRE.md: "the old slot holds the low bytes and the extension the high bytes").
fn split_widening(from: &Type, to: &Type) -> Option<(u8, u8)> {
    match (from, to) {
        (Type::Uint(a), Type::Uint(b)) if a < b => Some((*a, *b)),
        _ => None,
    }
}

/// The value the slot of type `slot` carries, when the field has since been widened.
fn narrowed(
    ctx: &Ctx<'_>,
    view: &FieldView<'_>,
    slot: &Type,
    next: Option<&Type>,
) -> Result<Val, CodegenError> {
    let field = view.access();
    let Some(next) = next else {
        return Ok(field);
    };
    let access = field.by_val();
    if let Some((bits, _)) = split_widening(slot, next) {
        let bits = u32_lit(u32::from(bits));
        return Ok(Val::Place(quote!(::idlc_runtime::low_bits(#access, #bits))));
    }
    if let Some((min, max)) = slot.int_range() {
        let (min, max) = (int_lit(min), int_lit(max));
        return Ok(Val::Place(
            quote!(::idlc_runtime::saturate(#access, #min, #max)),
        ));
    }
    match (slot, &view.rust.ty) {
        (Type::Enum(old), RustType::Named(rust)) => {
            let count = ctx
                .ir
                .schema
                .enums
                .get(old)
                .map_or(1, |e| e.enumerators.len().max(1)) as u64;
            let last = super::idents::u64_lit(count - 1);
            let ty = rust_type(rust)?;
            Ok(Val::Place(
                quote!(<#ty>::from_index(#access.index().min(#last)).unwrap_or_default()),
            ))
        }
        (
            Type::Numeric {
                min,
                max,
                min_inclusive,
                max_inclusive,
            },
            rust,
        ) => {
            let (min, max) = (super::idents::f64_lit(*min), super::idents::f64_lit(*max));
            let saturate = if matches!(rust, RustType::F32) {
                quote!(::idlc_runtime::saturate_real_f32)
            } else {
                quote!(::idlc_runtime::saturate_real)
            };
            Ok(Val::Place(
                quote!(#saturate(#access, #min, #max, #min_inclusive, #max_inclusive)),
            ))
        }
        // FLOAT32 to FLOAT64: the old slot rounds to the nearest f32 as it writes.
        (Type::Float32, _) => Ok(field),
        // A longer text, byte string or sequence: the old slot holds its start.
        (Type::String { max: Some(max) }, _) => {
            let (value, max) = (field.by_ref(), super::idents::u64_lit(*max));
            Ok(Val::Expr(
                quote!(::idlc_runtime::truncate_utf8(#value, #max)),
            ))
        }
        (Type::Bytes { max: Some(max) }, _) => {
            let (value, max) = (field.by_ref(), super::idents::u64_lit(*max));
            Ok(Val::Expr(
                quote!(::idlc_runtime::truncated_bytes(#value, #max)),
            ))
        }
        (Type::Sequence { max: Some(max), .. }, _) => {
            let (value, max) = (field.by_ref(), super::idents::u64_lit(*max));
            Ok(Val::Expr(quote!(::idlc_runtime::truncated(#value, #max))))
        }
        _ => Err(CodegenError(format!(
            "EXTEND of `{}` from {} is not generated yet",
            view.field.name,
            slot.describe()
        ))),
    }
}

pub(super) fn encode_field(
    ctx: &Ctx<'_>,
    view: &FieldView<'_>,
    rule: &WireRule,
) -> Result<TokenStream, CodegenError> {
    let types = types_over_time(view);
    let value = narrowed(ctx, view, types[0], types.get(1).copied())?;
    encode(
        ctx,
        rule,
        &view.field.ty,
        &view.rust.ty,
        value,
        &view.site(),
    )
}

fn decode_field(
    ctx: &Ctx<'_>,
    view: &FieldView<'_>,
    rule: &WireRule,
    segment: usize,
) -> Result<TokenStream, CodegenError> {
    let local = view.local();
    let ty = ctx.prelude.rust_type(&view.rust.ty)?;
    let read = decode(ctx, rule, &view.field.ty, &view.rust.ty, &view.site())?;
    let mutable = if view.extends.is_empty() {
        quote!()
    } else {
        quote!(mut)
    };
    if segment == 0 || view.segment == 0 {
        return Ok(quote!(let #mutable #local: #ty = #read;));
    }
    let present = format_ident!("present_{segment}");
    let default = default_value(
        ctx.ir,
        ctx.prelude,
        &view.field.ty,
        &view.rust.ty,
        view.field.default.as_ref(),
    )?;
    Ok(quote!(let #mutable #local: #ty = if #present { #read } else { #default };))
}

/// The write and the read of a field's EXTEND in `segment`. The read joins the extension into
/// the field's local; the caller runs it only when the segment is present.
pub(super) fn extension(
    ctx: &Ctx<'_>,
    view: &FieldView<'_>,
    segment: usize,
    rule: &WireRule,
) -> Result<(TokenStream, TokenStream), CodegenError> {
    let position = view
        .extends
        .iter()
        .position(|(s, _)| *s == segment)
        .ok_or_else(|| {
            CodegenError(format!(
                "internal: no EXTEND of {} in segment {segment}",
                view.field.name
            ))
        })?;
    let (_, extend) = view.extends[position];
    let types = types_over_time(view);
    let next = types.get(position + 2).copied();
    let local = view.local();
    let access = view.access().by_val();
    let site = view.site();
    if let Some((old, new)) = split_widening(&extend.from, &extend.to) {
        let (low, width) = (u32_lit(u32::from(old)), u32_lit(u32::from(new - old)));
        let q = site.q();
        let encode =
            quote!(w.write_bits(::idlc_runtime::bit_slice(#access, #low, #width), #width)#q;);
        let decode = quote! {
            let high = r.read_bits(#width)#q;
            #local = ::idlc_runtime::with_bit_slice(r, #local, high, #low)#q;
        };
        return Ok((encode, decode));
    }
    let value = narrowed(ctx, view, &extend.to, next)?;
    let encode = encode(ctx, rule, &extend.to, &view.rust.ty, value, &site)?;
    let read = decode(ctx, rule, &extend.to, &view.rust.ty, &site)?;
    Ok((encode, quote!(#local = #read;)))
}
