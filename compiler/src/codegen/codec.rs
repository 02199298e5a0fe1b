//! `impl Codec<Encoding> for Struct`: the straight-line encoder and decoder of one struct in one
//! encoding, segment by segment (a present bit before every segment after a FENCE).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::fields::{RustField, views};
use super::idents::{ident, int_lit, rust_type, u32_lit};
use super::in_place;
use super::pack;
use super::rules::{Site, Val, decode, encode};
use super::values::default_value;
use super::{CodegenError, Ctx};
use crate::ir::plan::{Carries, ExtensionStep, FieldStep, Narrowing, Step, StructPlan};
use crate::ir::{RustType, StructDef, StructMapping, WireRule};

/// A field of a packed run, for codegen/pack.rs.
fn packed<'a>(view: &RustField<'a>, step: &'a FieldStep) -> pack::Packed<'a> {
    pack::Packed {
        path: format!("{}.{}", view.owner, view.field.name),
        rule: &step.rule,
        idl: &view.field.ty,
        rust: &view.rust.ty,
        value: view.access(),
        local: view.local(),
    }
}

/// The codecs of a struct whose wire is the same in an earlier encoding, `first` (ir's
/// [`SameWire`](crate::ir::same_wire::SameWire)): the runtime's forwarding macros, so that the
/// module holds one body per wire instead of one per encoding.
pub fn same_codec(
    ctx: &Ctx<'_>,
    def: &StructDef,
    mapping: &StructMapping,
    first: &proc_macro2::Ident,
) -> Result<TokenStream, CodegenError> {
    let ty = rust_type(&mapping.rust_name)?;
    let marker = &ctx.marker;
    let delta = if ctx.plan_of(&def.name)?.delta.is_some() {
        quote!(idlc::same_delta_codec!(#ty, #marker => #first);)
    } else {
        TokenStream::new()
    };
    Ok(quote! {
        idlc::same_codec!(#ty, #marker => #first);
        #delta
    })
}

/// The `impl Codec<M> for T` of one struct.
pub fn codec_impl(
    ctx: &Ctx<'_>,
    def: &StructDef,
    mapping: &StructMapping,
) -> Result<TokenStream, CodegenError> {
    let plan = ctx.plan_of(&def.name)?;
    let fields = views(plan, mapping)?;
    let find = |name: &str| {
        fields
            .iter()
            .find(|f| f.field.name == name)
            .ok_or_else(|| CodegenError(format!("internal: {} has no field {name}", def.name)))
    };
    // Per segment: its writes and its reads (each gated by `present_k` from segment 1 on).
    let mut segment_writes = Vec::new();
    let mut segment_reads = Vec::new();
    // The reads of `decode_in_place_from`: the same, but some fields straight into `self`.
    let mut segment_in_place_reads = Vec::new();
    let mut read_in_place = Vec::new();
    let mut runs = 0;
    for (index, steps) in plan.segments.iter().enumerate() {
        let mut writes = Vec::new();
        // Each read, and what `decode_in_place_from` reads instead (when it differs).
        let mut reads: Vec<(TokenStream, Option<TokenStream>)> = Vec::new();
        for step in steps {
            match step {
                Step::Packed { fields: run, .. } => {
                    let run = run
                        .iter()
                        .map(|step| Ok(packed(find(&step.field)?, step)))
                        .collect::<Result<Vec<_>, CodegenError>>()?;
                    writes.push(pack::encode_run(ctx, &run)?);
                    reads.push((pack::decode_run(ctx, &run, runs)?, None));
                    runs += 1;
                }
                Step::Field(encoded) => {
                    let view = find(&encoded.field)?;
                    writes.push(encode_field(ctx, view, encoded)?);
                    let read = decode_field(ctx, view, &encoded.rule, index)?;
                    let in_place = in_place::read_field_in_place(ctx, view, &encoded.rule, index)?;
                    if in_place.is_some() {
                        read_in_place.push(view.field.name.as_str());
                    }
                    reads.push((read, in_place));
                }
                Step::Extension(extension_step) => {
                    let view = find(&extension_step.field)?;
                    let (e, d) = extension(ctx, view, extension_step)?;
                    writes.push(e);
                    reads.push((in_segment(index, d), None));
                }
                Step::Align => {
                    let q = Site::named(&format!("{} (ALIGN)", def.name)).q();
                    writes.push(quote!(w.align()?;));
                    reads.push((in_segment(index, quote!(r.align()#q;)), None));
                }
                Step::Check => {
                    let q = Site::named(&format!("{} (CHECK)", def.name)).q();
                    writes.push(quote!(w.write_check()?;));
                    reads.push((in_segment(index, quote!(r.read_check()#q;)), None));
                }
            }
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
    let nested = if plan.nested_form {
        nested_form(ctx, plan, &ty, &fields, &segment_writes, &segment_reads)
    } else {
        TokenStream::new()
    };
    let (enter, leave) = enter_leave(plan);
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
            fn decode_in_place_from(&mut self, r: &mut #reader) -> #result<(), idlc::DecodeError> {
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
    let sent = super::mirror::sent_body(ctx, (&def.name, !mapping.existing), &fields, &ty)?;
    let sent_equals = if ctx.compared.contains(def.name.as_str()) {
        let body = super::mirror::sent_equals_body(ctx, &fields)?;
        quote! {
            fn sent_equals(&self, other: &Self) -> #result<bool, idlc::EncodeError> {
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
        impl idlc::Codec<#marker> for #ty {
            #[inline]
            fn encode_to(&self, #w: &mut #writer) -> #result<(), idlc::EncodeError> {
                #(#encode_body)*
                Ok(())
            }

            #[inline]
            fn decode_from(#r: &mut #reader) -> #result<Self, idlc::DecodeError> {
                #enter
                #(#decode_body)*
                #leave
                Ok(#constructor)
            }

            #decode_in_place

            #prefetch_owned

            #nested

            #[allow(clippy::clone_on_copy, clippy::redundant_closure)]
            fn sent(&self) -> #result<Self, idlc::EncodeError> {
                #sent
            }

            #sent_equals
        }
    })
}

/// `r.enter()` and `r.leave()` around the decoder of a struct that can contain itself (its
/// nesting counts against the runtime's depth limit), else nothing.
pub(super) fn enter_leave(plan: &StructPlan) -> (TokenStream, TokenStream) {
    if plan.recursive {
        let q = Site::named(&plan.name).q();
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
    def: &StructPlan,
    ty: &TokenStream,
    fields: &[RustField<'_>],
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
            fn encode_nested_to(&self, w: &mut #writer) -> #result<(), idlc::EncodeError> {
                idlc::Codec::<#marker>::encode_to(self, w)
            }

            #[inline]
            fn decode_nested_from(r: &mut #reader) -> #result<Self, idlc::DecodeError> {
                let value = <Self as idlc::Codec<#marker>>::decode_from(r)?;
                idlc::skip_extension(r)#q;
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
        decode.push(quote!(if #last { idlc::skip_extension(r)#q; }));
    }
    leave_extensions.reverse();
    let (enter, leave) = enter_leave(def);
    let constructor = constructor(ty, fields);
    quote! {
        fn encode_nested_to(&self, w: &mut #writer) -> #result<(), idlc::EncodeError> {
            #encode
            Ok(())
        }

        fn decode_nested_from(r: &mut #reader) -> #result<Self, idlc::DecodeError> {
            #enter
            #(#decode)*
            #(#leave_extensions)*
            #leave
            Ok(#constructor)
        }
    }
}

pub(super) fn constructor(ty: &TokenStream, fields: &[RustField<'_>]) -> TokenStream {
    let inits = fields.iter().map(|f| {
        let name = ident(&f.rust.rust_name);
        let local = f.local();
        quote!(#name: #local)
    });
    quote!(#ty { #(#inits),* })
}

/// The value a slot carries: the field's, narrowed as the plan says when the field has since
/// been widened.
fn narrowed(view: &RustField<'_>, narrowing: Option<&Narrowing>) -> Result<Val, CodegenError> {
    let field = view.access();
    let Some(narrowing) = narrowing else {
        return Ok(field);
    };
    let access = field.by_val();
    Ok(match narrowing {
        Narrowing::LowBits { bits } => {
            let bits = u32_lit(*bits);
            Val::Place(quote!(idlc::low_bits(#access, #bits)))
        }
        Narrowing::SaturateInt { min, max } => {
            let (min, max) = (int_lit(*min), int_lit(*max));
            Val::Place(quote!(idlc::saturate(#access, #min, #max)))
        }
        Narrowing::SaturateEnum { count, .. } => {
            let RustType::Named(rust) = &view.rust.ty else {
                return Err(CodegenError(format!(
                    "internal: the enum `{}` is not a named Rust type",
                    view.field.name
                )));
            };
            let last = super::idents::u64_lit(count - 1);
            let ty = rust_type(rust)?;
            Val::Place(quote!(<#ty>::from_index(#access.index().min(#last)).unwrap_or_default()))
        }
        Narrowing::SaturateReal {
            min,
            max,
            min_inclusive,
            max_inclusive,
        } => {
            let (min, max) = (super::idents::f64_lit(*min), super::idents::f64_lit(*max));
            let saturate = if matches!(view.rust.ty, RustType::F32) {
                quote!(idlc::saturate_real_f32)
            } else {
                quote!(idlc::saturate_real)
            };
            Val::Place(quote!(#saturate(#access, #min, #max, #min_inclusive, #max_inclusive)))
        }
        Narrowing::RoundToF32 => field,
        Narrowing::TruncateString { max } => {
            let (value, max) = (field.by_ref(), super::idents::u64_lit(*max));
            Val::Expr(quote!(idlc::truncate_utf8(#value, #max)))
        }
        Narrowing::TruncateBytes { max } => {
            let (value, max) = (field.by_ref(), super::idents::u64_lit(*max));
            Val::Expr(quote!(idlc::truncated_bytes(#value, #max)))
        }
        Narrowing::TruncateSequence { max } => {
            let (value, max) = (field.by_ref(), super::idents::u64_lit(*max));
            Val::Expr(quote!(idlc::truncated(#value, #max)))
        }
        Narrowing::Unsupported { from } => {
            return Err(CodegenError(format!(
                "EXTEND of `{}` from {} is not generated yet",
                view.field.name,
                from.describe()
            )));
        }
    })
}

pub(super) fn encode_field(
    ctx: &Ctx<'_>,
    view: &RustField<'_>,
    step: &FieldStep,
) -> Result<TokenStream, CodegenError> {
    let value = narrowed(view, step.narrowing.as_ref())?;
    encode(
        ctx,
        &step.rule,
        &view.field.ty,
        &view.rust.ty,
        value,
        &view.site(),
    )
}

fn decode_field(
    ctx: &Ctx<'_>,
    view: &RustField<'_>,
    rule: &WireRule,
    segment: usize,
) -> Result<TokenStream, CodegenError> {
    let local = view.local();
    let ty = ctx.prelude.rust_type(&view.rust.ty)?;
    let read = decode(ctx, rule, &view.field.ty, &view.rust.ty, &view.site())?;
    let mutable = if view.field.extends.is_empty() {
        quote!()
    } else {
        quote!(mut)
    };
    if segment == 0 || view.field.segment == 0 {
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

/// The write and the read of a field's EXTEND. The read joins the extension into the field's
/// local; the caller runs it only when the segment is present.
pub(super) fn extension(
    ctx: &Ctx<'_>,
    view: &RustField<'_>,
    step: &ExtensionStep,
) -> Result<(TokenStream, TokenStream), CodegenError> {
    let local = view.local();
    let access = view.access().by_val();
    let site = view.site();
    match &step.carries {
        Carries::HighBits { low, width } => {
            let (low, width) = (u32_lit(*low), u32_lit(*width));
            let q = site.q();
            let encode = quote!(w.write_bits(idlc::bit_slice(#access, #low, #width), #width)#q;);
            let decode = quote! {
                let high = r.read_bits(#width)#q;
                #local = idlc::with_bit_slice(r, #local, high, #low)#q;
            };
            Ok((encode, decode))
        }
        Carries::Whole { rule, narrowing } => {
            let value = narrowed(view, narrowing.as_ref())?;
            let encode = encode(ctx, rule, &step.to, &view.rust.ty, value, &site)?;
            let read = decode(ctx, rule, &step.to, &view.rust.ty, &site)?;
            Ok((encode, quote!(#local = #read;)))
        }
    }
}
