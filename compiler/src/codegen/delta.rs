//! `impl DeltaCodec<Encoding> for PublishableStruct`: the delta and dead-reckoning encoder and
//! decoder of one PUBLISHABLE_STRUCT in one encoding (WIRE_FORMAT.md section 5).
//!
//! Before each wire item the encoder decides, without writing anything, what its changed-bits
//! will say (a pure function of the value, the baseline and the context); then it writes the
//! item, and builds the mirror: the state the receiver reconstructs. A value that cannot be sent
//! is found while deciding: its error names the field and is at the bit before the item (the
//! field's changed-bit, or the DELTA block's). The decoder reads the same bits in the same order
//! and builds the same state. Both sides share one "not sent" branch: a field keeps the
//! baseline's value; a dead-reckoning position is extrapolated from the baseline's steps. Errors
//! name fields as those of the full form do (codegen/rules.rs `Site`); a changed-bit of a DELTA
//! or DEAD_RECKONING block names the struct.

mod diff;
mod quat;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::codec::{encode_field, enter_leave, extension, nested_writes};
use super::fields::{RustField, views};
use super::idents::{f64_lit, u32_lit, u64_lit};
use super::mirror::{
    differs_once_sent, differs_sent, is_copy, is_lossless_element, is_quantized_float,
    runtime_quaternion, sent_equal, sent_value,
};
use super::rules::{
    Site, Val, closure_result, dead_reckoning_const, decode, encode, fixed_point_const,
    fixed_point_input, from_f64, from_quaternion, sequence_parts,
};
use super::{CodegenError, Ctx};
use crate::ir::cost::min_bits;
use crate::ir::plan::{DeltaStep, FieldStep, dead_reckoning_fields};
use crate::ir::{RustType, StructDef, StructMapping, Type, WireRule};

/// The generator's state while it walks one struct's wire items.
struct Gen<'a, 'b> {
    ctx: &'a Ctx<'b>,
    /// The IDL name of the struct.
    name: &'a str,
    fields: &'a [RustField<'a>],
    /// Counter for the names of changed-bits (`send_0`, `send_1`, ...).
    next_unit: usize,
}

impl<'a> Gen<'a, '_> {
    fn view(&self, name: &str) -> Result<&'a RustField<'a>, CodegenError> {
        self.fields
            .iter()
            .find(|f| f.field.name == name)
            .ok_or_else(|| CodegenError(format!("internal: no field {name}")))
    }

    fn unit(&mut self) -> Ident {
        let id = format_ident!("send_{}", self.next_unit);
        self.next_unit += 1;
        id
    }

    fn candidate(view: &RustField<'_>) -> Ident {
        format_ident!("c_{}", view.rust.rust_name.trim_start_matches("r#"))
    }

    fn sent_flag(view: &RustField<'_>) -> Ident {
        format_ident!("sent_{}", view.rust.rust_name.trim_start_matches("r#"))
    }
}

/// What the encoder decided for one step: the local holding the changed-bit it writes, if any.
enum Decision {
    /// A field written in full whenever its block is (or ALIGN, CHECK, an extension).
    Plain,
    /// A field or a dead-reckoning block with its own changed-bit.
    Bit(Ident),
    /// A `DELTA { ... }` block: its changed-bit and the plans of its items.
    Block(Ident, Vec<Decision>),
    /// A `DELTA SEQUENCE`: the runtime writes its changed-bit.
    Sequence,
}

/// Where the state a field gets on the receiver is put.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The encoder: `mirror.f` of `encode_delta_into`'s `&mut Self`, whose memory is reused.
    Mirror,
    /// The decoder: a `Copy` field in its local `f_f` (where an EXTEND joins its parts),
    /// assigned to `state.f` at the end; any other field straight into `state.f`, whose memory
    /// is reused.
    State,
}

/// The `impl DeltaCodec<M> for T` of one PUBLISHABLE_STRUCT, or nothing for other kinds.
pub fn delta_impl(
    ctx: &Ctx<'_>,
    def: &StructDef,
    mapping: &StructMapping,
) -> Result<TokenStream, CodegenError> {
    let plan = ctx.plan_of(&def.name)?;
    let Some(delta) = &plan.delta else {
        return Ok(TokenStream::new());
    };
    let fields = views(plan, mapping)?;
    let mut generator = Gen {
        ctx,
        name: &def.name,
        fields: &fields,
        next_unit: 0,
    };
    let q = Site::named(&def.name).q();
    let mut segment_writes = Vec::new();
    let mut segment_reads = Vec::new();
    for steps in delta {
        let writes = generator.plan_and_write_items(steps)?;
        let reads = generator.read_items(steps)?;
        // A segment an older writer did not send keeps the baseline's values.
        let unsent = generator.unsent_items(steps, Target::State)?;
        segment_writes.push(writes);
        segment_reads.push((reads, unsent));
    }
    let (write_code, read_code) = top_level_delta(def, &segment_writes, &segment_reads, &q);
    // The nested form, for a struct with FENCE segments that a DELTA SEQUENCE holds (any other
    // keeps the trait's default, which nothing calls on it).
    let element = plan.delta_element;
    let nested = if element && segment_writes.len() > 1 {
        Some(nested_delta(def, &segment_writes, &segment_reads, &q))
    } else {
        None
    };
    // The encoder assigns the mirror's fields; it declares only the flags that say whether a
    // widened field's old slot was sent (its extension follows). In the nested form a flag set
    // inside a segment's extension (a closure) starts false.
    let encoder_declarations = |nested: bool| -> Vec<TokenStream> {
        fields
            .iter()
            .filter(|view| !view.field.extends.is_empty())
            .map(|view| {
                let flag = Gen::sent_flag(view);
                if nested && view.field.segment > 0 {
                    quote!(let mut #flag = false;)
                } else {
                    quote!(let #flag: bool;)
                }
            })
            .collect()
    };
    let copied: Vec<&RustField<'_>> = fields
        .iter()
        .filter(|view| is_copy(&view.field.ty, &view.rust.ty))
        .collect();
    let decoder_declarations = copied
        .iter()
        .map(|view| {
            let local = view.local();
            let ty = ctx.prelude.rust_type(&view.rust.ty)?;
            if view.field.extends.is_empty() {
                return Ok(quote!(let #local: #ty;));
            }
            // The decoder joins a widened field's extension into the local.
            let flag = Gen::sent_flag(view);
            Ok(quote!(let mut #local: #ty; let #flag: bool;))
        })
        .collect::<Result<Vec<_>, CodegenError>>()?;
    let (enter, leave) = enter_leave(plan);
    let encoder = &write_code;
    let named = |code: &[TokenStream], name: &str| {
        let used = code.iter().any(|tokens| mentions(tokens, name));
        let ident = if used {
            format_ident!("{name}")
        } else {
            format_ident!("_{name}")
        };
        quote!(#ident)
    };
    let (encode_baseline, encode_ctx) = (named(encoder, "baseline"), named(encoder, "ctx"));
    let (decode_baseline, decode_ctx) = (named(&read_code, "baseline"), named(&read_code, "ctx"));
    let state = if copied.is_empty() {
        named(&read_code, "state")
    } else {
        quote!(state)
    };
    let (w, r) = (named(encoder, "w"), named(&read_code, "r"));
    let mirror = named(encoder, "mirror");
    let result = ctx.prelude.path("Result");
    let marker = &ctx.marker;
    let (writer, reader) = ctx.stream_types();
    let ty = super::idents::rust_type(&mapping.rust_name)?;
    let assign_copied: Vec<TokenStream> = copied
        .iter()
        .map(|view| {
            let (name, local) = (super::idents::ident(&view.rust.rust_name), view.local());
            quote!(state.#name = #local;)
        })
        .collect();
    let top_level_declarations = encoder_declarations(false);
    let nested_methods = match nested {
        // One segment and an open end: the top-level form, whose tail a newer writer's
        // extension follows; skip it.
        None if element && def.open_end => quote! {
            fn decode_delta_nested_into(
                baseline: &Self,
                ctx: &idlc::DeltaContext,
                r: &mut #reader,
                state: &mut Self,
            ) -> #result<(), idlc::DecodeError> {
                <Self as idlc::DeltaCodec<#marker>>::decode_delta_into(
                    baseline, ctx, r, state,
                )?;
                idlc::skip_extension(r)#q;
                Ok(())
            }
        },
        None => quote!(),
        Some((nested_write, nested_read)) => {
            let declarations = encoder_declarations(true);
            quote! {
                fn encode_delta_nested_into(
                    &self,
                    #encode_baseline: &Self,
                    #encode_ctx: &idlc::DeltaContext,
                    w: &mut #writer,
                    #mirror: &mut Self,
                ) -> #result<(), idlc::EncodeError> {
                    #(#declarations)*
                    #nested_write
                    Ok(())
                }

                fn decode_delta_nested_into(
                    #decode_baseline: &Self,
                    #decode_ctx: &idlc::DeltaContext,
                    r: &mut #reader,
                    #state: &mut Self,
                ) -> #result<(), idlc::DecodeError> {
                    #enter
                    #(#decoder_declarations)*
                    #nested_read
                    #leave
                    #(#assign_copied)*
                    Ok(())
                }
            }
        }
    };
    let doc = format!(
        " `{}` against a baseline in the encoding `{}`.",
        def.name, ctx.encoding.name
    );
    Ok(quote! {
        #[doc = #doc]
        // Every field is assigned in the branch that sends it or keeps the baseline's.
        #[allow(
            clippy::needless_late_init,
            clippy::clone_on_copy,
            clippy::redundant_closure,
            clippy::collapsible_if
        )]
        impl idlc::DeltaCodec<#marker> for #ty {
            fn encode_delta_to(
                &self,
                baseline: &Self,
                ctx: &idlc::DeltaContext,
                w: &mut #writer,
            ) -> #result<Self, idlc::EncodeError> {
                let mut mirror = baseline.clone();
                idlc::DeltaCodec::<#marker>::encode_delta_into(
                    self, baseline, ctx, w, &mut mirror,
                )?;
                Ok(mirror)
            }

            fn encode_delta_into(
                &self,
                #encode_baseline: &Self,
                #encode_ctx: &idlc::DeltaContext,
                #w: &mut #writer,
                #mirror: &mut Self,
            ) -> #result<(), idlc::EncodeError> {
                #(#top_level_declarations)*
                #(#write_code)*
                Ok(())
            }

            fn decode_delta_from(
                baseline: &Self,
                ctx: &idlc::DeltaContext,
                r: &mut #reader,
            ) -> #result<Self, idlc::DecodeError> {
                let mut state = baseline.clone();
                <Self as idlc::DeltaCodec<#marker>>::decode_delta_into(
                    baseline, ctx, r, &mut state,
                )?;
                Ok(state)
            }

            fn decode_delta_into(
                #decode_baseline: &Self,
                #decode_ctx: &idlc::DeltaContext,
                #r: &mut #reader,
                #state: &mut Self,
            ) -> #result<(), idlc::DecodeError> {
                #enter
                #(#decoder_declarations)*
                #(#read_code)*
                #leave
                #(#assign_copied)*
                Ok(())
            }

            #nested_methods
        }
    })
}

/// The top-level delta form (`encode_delta_into` / `decode_delta_into`): each segment after a
/// FENCE behind a present bit, and the open end's present bit (0). A top-level message is framed
/// by its transport: an older reader stops after what it knows and ignores the tail.
fn top_level_delta(
    def: &StructDef,
    writes: &[TokenStream],
    reads: &[(TokenStream, TokenStream)],
    q: &TokenStream,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut write_code = Vec::new();
    let mut read_code = Vec::new();
    for (index, (segment_writes, (segment_reads, unsent))) in writes.iter().zip(reads).enumerate() {
        if index == 0 {
            write_code.push(segment_writes.clone());
            read_code.push(segment_reads.clone());
            continue;
        }
        let present = format_ident!("present_{index}");
        let previous = format_ident!("present_{}", index - 1);
        let read_present = if index == 1 {
            quote!(r.read_fence_present()#q)
        } else {
            quote!(#previous && r.read_fence_present()#q)
        };
        write_code.push(quote! {
            w.write_presence(true)?;
            #segment_writes
        });
        let otherwise = otherwise(unsent);
        read_code.push(quote! {
            let #present = #read_present;
            if #present {
                #segment_reads
            } #otherwise
        });
    }
    if def.open_end {
        write_code.push(quote!(w.write_presence(false)?;));
    }
    (write_code, read_code)
}

/// The nested delta form (`encode_delta_nested_into` / `decode_delta_nested_into`, an element of
/// a `DELTA SEQUENCE`) of a struct with FENCE segments: the writes of the full nested form
/// ([`nested_writes`]); the reads enter each later segment's extension, keep the baseline's
/// values of a segment an older writer did not send, and skip a newer writer's open end.
fn nested_delta(
    def: &StructDef,
    writes: &[TokenStream],
    reads: &[(TokenStream, TokenStream)],
    q: &TokenStream,
) -> (TokenStream, TokenStream) {
    let write = nested_writes(def.open_end, writes);
    let mut read = Vec::new();
    let mut leave_extensions = Vec::new();
    for (index, (segment_reads, unsent)) in reads.iter().enumerate() {
        if index == 0 {
            read.push(segment_reads.clone());
            continue;
        }
        let present = format_ident!("present_{index}");
        let extension = format_ident!("extension_{index}");
        let enter = if index == 1 {
            quote!(r.enter_extension()#q)
        } else {
            let previous = format_ident!("present_{}", index - 1);
            quote!(if #previous { r.enter_extension()#q } else { None })
        };
        let otherwise = otherwise(unsent);
        read.push(quote! {
            let #extension = #enter;
            let #present = #extension.is_some();
            if #present {
                #segment_reads
            } #otherwise
        });
        leave_extensions.push(quote! {
            if let Some(outer) = #extension {
                r.leave_extension(outer);
            }
        });
    }
    if def.open_end {
        let last = format_ident!("present_{}", reads.len() - 1);
        read.push(quote!(if #last { idlc::skip_extension(r)#q; }));
    }
    leave_extensions.reverse();
    (write, quote!(#(#read)* #(#leave_extensions)*))
}

/// `else { unsent }`, or nothing when a segment has nothing to keep.
fn otherwise(unsent: &TokenStream) -> TokenStream {
    if unsent.is_empty() {
        quote!()
    } else {
        quote!(else { #unsent })
    }
}

impl<'a> Gen<'a, '_> {
    /// The encoder of `items`: before each item, its plan (what its changed-bits will say),
    /// then its writes. A value that cannot be sent fails in the plan, before anything of its
    /// item is written.
    fn plan_and_write_items(&mut self, items: &[DeltaStep]) -> Result<TokenStream, CodegenError> {
        let mut out = Vec::new();
        for item in items {
            let item = std::slice::from_ref(item);
            let mut plan_code = Vec::new();
            let (plan, _) = self.plan_items(item, &mut plan_code, false)?;
            out.extend(plan_code);
            out.push(self.write_items(item, &plan)?);
        }
        Ok(quote!(#(#out)*))
    }

    /// What an error found while deciding names: the field, at the bit where its item begins.
    fn plan_site(view: &RustField<'_>) -> Site {
        view.site().at_bit_ahead(0)
    }

    /// The pure part of the encoder: every field's value as it would be sent (`c_f`), and what
    /// every changed-bit will say (`send_n`). Returns the plan of each item and whether any of
    /// them differs from the baseline (an expression).
    fn plan_items(
        &mut self,
        items: &[DeltaStep],
        out: &mut Vec<TokenStream>,
        in_block: bool,
    ) -> Result<(Vec<Decision>, Vec<TokenStream>), CodegenError> {
        let mut plans = Vec::new();
        let mut differs = Vec::new();
        for item in items {
            match item {
                DeltaStep::Sequence { field: encoded, .. } => {
                    let view = self.view(&encoded.field)?;
                    let name = super::idents::ident(&view.rust.rust_name);
                    {
                        let flag = self.unit();
                        // Only a block around it needs to know whether it changed.
                        if in_block {
                            let changed = differs_once_sent(
                                self.ctx,
                                view,
                                &encoded.rule,
                                (
                                    Val::Place(quote!(self.#name)),
                                    Val::Place(quote!(baseline.#name)),
                                ),
                                &Self::plan_site(view),
                            )?;
                            out.push(quote!(let #flag = #changed;));
                            differs.push(quote!(#flag));
                        }
                        plans.push(Decision::Sequence);
                    }
                }
                DeltaStep::Changed(encoded) | DeltaStep::Field(encoded) => {
                    let view = self.view(&encoded.field)?;
                    let name = super::idents::ident(&view.rust.rust_name);
                    let candidate = Self::candidate(view);
                    out.push(self.candidate_of(view, &encoded.rule)?);
                    // Compared as sent: a raw float by its bits, a step with the baseline's.
                    let rotation = Self::rotation(&encoded.rule);
                    let changed = match (Self::step(view, &encoded.rule), rotation) {
                        // A rotation as sent, against the code the baseline is sent with.
                        (_, Some(bits)) => {
                            let (bits, code) = (u32_lit(bits), Self::code(view));
                            let held = runtime_quaternion(
                                &view.rust.ty,
                                &Val::Place(quote!(baseline.#name)),
                            );
                            quote!(#candidate != baseline.#name
                                && !idlc::SmallestThree::new(#bits).sends_code(#held, &#code))
                        }
                        (Some(step), None) => {
                            let fp = fixed_point_const(self.ctx, &encoded.rule);
                            let held = fixed_point_input(
                                &encoded.rule,
                                &view.rust.ty,
                                &quote!(baseline.#name),
                            );
                            quote!(#candidate != baseline.#name && !#fp.sends_as(#held, #step))
                        }
                        // A struct or container of lossy values: each part as sent against
                        // the baseline's (a FIXED_POINT part by its step, as above).
                        (None, None)
                            if view.field.extends.is_empty()
                                && matches!(
                                    encoded.rule,
                                    WireRule::Struct(_)
                                        | WireRule::Sequence { .. }
                                        | WireRule::Array { .. }
                                        | WireRule::Optional(_)
                                )
                                && !is_lossless_element(self.ctx, &encoded.rule, &view.rust.ty) =>
                        {
                            let same = sent_equal(
                                self.ctx,
                                &encoded.rule,
                                &view.field.ty,
                                &view.rust.ty,
                                (
                                    Val::Place(quote!(self.#name)),
                                    Val::Place(quote!(baseline.#name)),
                                ),
                                &Self::plan_site(view),
                            )?;
                            quote!(!(#same))
                        }
                        (None, None) => differs_sent(
                            self.ctx,
                            view,
                            &encoded.rule,
                            Val::Place(quote!(#candidate)),
                            Val::Place(quote!(baseline.#name)),
                        )?,
                    };
                    if matches!(item, DeltaStep::Changed(_)) {
                        let flag = self.unit();
                        out.push(quote!(let #flag = #changed;));
                        differs.push(quote!(#flag));
                        plans.push(Decision::Bit(flag));
                    } else {
                        differs.push(changed);
                        plans.push(Decision::Plain);
                    }
                }
                DeltaStep::Block(inner) => {
                    let flag = self.unit();
                    let (inner_plans, inner_differs) = self.plan_items(inner, out, true)?;
                    let any = if inner_differs.is_empty() {
                        quote!(false)
                    } else {
                        quote!(#(#inner_differs)||*)
                    };
                    out.push(quote!(let #flag = #any;));
                    differs.push(quote!(#flag));
                    plans.push(Decision::Block(flag, inner_plans));
                }
                DeltaStep::DeadReckoning { limit, axes } => {
                    let flag = self.unit();
                    let mut checks = Vec::new();
                    for field in dead_reckoning_fields(axes).map(|(field, _)| field) {
                        out.push(self.candidate_of(self.view(&field.field)?, &field.rule)?);
                    }
                    let limit = f64_lit(*limit);
                    // Each prediction is kept for the mirror of an unsent block (every check
                    // ran then, so every prediction was made).
                    // The first check always runs; the others only while none exceeded.
                    for (axis, (position, velocity)) in axes.iter().enumerate() {
                        let view = self.view(&position.field)?;
                        let name = super::idents::ident(&view.rust.rust_name);
                        let predicted = self.predicted(position, velocity)?;
                        let kept = Self::prediction(view);
                        let actual =
                            fixed_point_input(&position.rule, &view.rust.ty, &quote!(self.#name));
                        let check = quote!(idlc::exceeds_deviation(#actual, #kept, #limit));
                        if axis == 0 {
                            out.push(quote!(let #kept = #predicted;));
                            checks.push(check);
                        } else {
                            out.push(quote!(let mut #kept = 0.0f64;));
                            checks.push(quote!({
                                #kept = #predicted;
                                #check
                            }));
                        }
                    }
                    out.push(quote!(let #flag = #(#checks)||*;));
                    differs.push(quote!(#flag));
                    plans.push(Decision::Bit(flag));
                }
                DeltaStep::Extension(_) | DeltaStep::Align | DeltaStep::Check => {
                    plans.push(Decision::Plain)
                }
            }
        }
        Ok((plans, differs))
    }

    /// The local holding the step of a FIXED_POINT field (`q_f`), computed once for the
    /// comparison and the write; `None` for other fields.
    fn step(view: &RustField<'_>, rule: &WireRule) -> Option<Ident> {
        is_quantized_float(view, rule)
            .then(|| format_ident!("q_{}", view.rust.rust_name.trim_start_matches("r#")))
    }

    /// The bits per component of a SMALLEST_THREE field (a QUATERNION, which no EXTEND
    /// widens): its changed-bit compares rotations by the codes they are sent with, computed
    /// once for the comparison and the write; `None` for other fields.
    fn rotation(rule: &WireRule) -> Option<u32> {
        match rule {
            WireRule::SmallestThree { bits } => Some(*bits),
            _ => None,
        }
    }

    /// The local holding the SMALLEST_THREE code of a field (`code_f`), computed once for the
    /// comparison and the write.
    fn code(view: &RustField<'_>) -> Ident {
        format_ident!("code_{}", view.rust.rust_name.trim_start_matches("r#"))
    }

    /// `let c_f = <f as the receiver will hold it once sent>;` (after `let q_f = <its step>;`
    /// for a FIXED_POINT field; with `code_f`, its code, for a SMALLEST_THREE one).
    fn candidate_of(
        &self,
        view: &RustField<'_>,
        rule: &WireRule,
    ) -> Result<TokenStream, CodegenError> {
        let name = super::idents::ident(&view.rust.rust_name);
        let candidate = Self::candidate(view);
        if let Some(bits) = Self::rotation(rule) {
            // The code once, for the comparison and the write.
            let (code, bits, q) = (Self::code(view), u32_lit(bits), Self::plan_site(view).q());
            let value = runtime_quaternion(&view.rust.ty, &Val::Place(quote!(self.#name)));
            let game = match view.rust.ty {
                RustType::QuaternionAs(_) => {
                    let back = from_quaternion(&view.rust.ty, quote!(#candidate))?;
                    quote!(let #candidate = #back;)
                }
                _ => quote!(),
            };
            return Ok(quote! {
                let (#code, #candidate) = idlc::SmallestThree::new(#bits).sent_code(#value)#q;
                #game
            });
        }
        if let Some(step) = Self::step(view, rule) {
            let fp = fixed_point_const(self.ctx, rule);
            let value = fixed_point_input(rule, &view.rust.ty, &quote!(self.#name));
            let q = Self::plan_site(view).q();
            let sent = from_f64(&view.rust.ty, quote!(#fp.dequantize(#step)));
            return Ok(quote! {
                let #step = idlc::quantize_fixed_point(&#fp, #value)#q;
                let #candidate = #sent;
            });
        }
        let mirror = sent_value(
            self.ctx,
            rule,
            view,
            Val::Place(quote!(self.#name)),
            &Self::plan_site(view),
        )?;
        Ok(quote!(let #candidate = #mirror;))
    }

    /// `sent_f = true;` for a widened field (its extension follows the old slot), else nothing.
    fn mark_sent(view: &RustField<'_>) -> TokenStream {
        if view.field.extends.is_empty() {
            return quote!();
        }
        let flag = Self::sent_flag(view);
        quote!(#flag = true;)
    }

    /// The local holding a dead-reckoning position's prediction: `predicted_x`.
    fn prediction(view: &RustField<'_>) -> proc_macro2::Ident {
        format_ident!("predicted_{}", view.rust.rust_name.trim_start_matches("r#"))
    }

    /// The extrapolated position (as f64) of one dead-reckoning axis, from the baseline.
    fn predicted(
        &self,
        position: &FieldStep,
        velocity: &FieldStep,
    ) -> Result<TokenStream, CodegenError> {
        let p = self.view(&position.field)?;
        let v = self.view(&velocity.field)?;
        let (p_name, v_name) = (
            super::idents::ident(&p.rust.rust_name),
            super::idents::ident(&v.rust.rust_name),
        );
        let axis = dead_reckoning_const(self.ctx, &position.rule, &velocity.rule);
        let (p_base, v_base) = (
            fixed_point_input(&position.rule, &p.rust.ty, &quote!(baseline.#p_name)),
            fixed_point_input(&velocity.rule, &v.rust.ty, &quote!(baseline.#v_name)),
        );
        Ok(quote!(#axis.predict_from(#p_base, #v_base, ctx)))
    }

    /// The writes of `items` (their changed-bits decided by `plan`), assigning every field's
    /// mirror local.
    fn write_items(
        &self,
        items: &[DeltaStep],
        plan: &[Decision],
    ) -> Result<TokenStream, CodegenError> {
        let mut out = Vec::new();
        for (item, plan) in items.iter().zip(plan) {
            match (item, plan) {
                (DeltaStep::Sequence { field, element }, Decision::Sequence) => {
                    out.push(self.write_delta_sequence(field, element.is_some())?);
                }
                (DeltaStep::Changed(encoded) | DeltaStep::Field(encoded), _) => {
                    let view = self.view(&encoded.field)?;
                    let write = self.write_field(view, encoded, None)?;
                    match plan {
                        Decision::Bit(flag) => {
                            let keep = self.keep(view, Target::Mirror);
                            out.push(quote! {
                                w.write_bool(#flag)?;
                                if #flag {
                                    #write
                                } else {
                                    #keep
                                }
                            });
                        }
                        _ => out.push(write),
                    }
                }
                (DeltaStep::Block(inner), Decision::Block(flag, inner_plan)) => {
                    let writes = self.write_items(inner, inner_plan)?;
                    let unsent = self.unsent_items(inner, Target::Mirror)?;
                    out.push(quote! {
                        w.write_bool(#flag)?;
                        if #flag {
                            #writes
                        } else {
                            #unsent
                        }
                    });
                }
                (DeltaStep::DeadReckoning { axes, .. }, Decision::Bit(flag)) => {
                    let mut writes = Vec::new();
                    for (field, velocity) in dead_reckoning_fields(axes) {
                        let view = self.view(&field.field)?;
                        writes.push(self.write_field(view, field, velocity)?);
                    }
                    let unsent = self.unsent_dead_reckoning(axes, Target::Mirror)?;
                    out.push(quote! {
                        w.write_bool(#flag)?;
                        if #flag {
                            #(#writes)*
                        } else {
                            #unsent
                        }
                    });
                }
                (DeltaStep::Extension(extend), _) => {
                    let view = self.view(&extend.field)?;
                    let (write, _) = extension(self.ctx, view, extend)?;
                    let flag = Self::sent_flag(view);
                    out.push(quote!(if #flag { #write }));
                }
                (DeltaStep::Align, _) => out.push(quote!(w.align()?;)),
                (DeltaStep::Check, _) => out.push(quote!(w.write_check()?;)),
                _ => return Err(CodegenError("internal: delta plan out of step".into())),
            }
        }
        Ok(quote!(#(#out)*))
    }

    /// Writes one field (in full, or with its DIFF; `velocity` is a dead-reckoning position's)
    /// and makes its candidate the mirror's.
    fn write_field(
        &self,
        view: &RustField<'_>,
        field: &FieldStep,
        velocity: Option<&FieldStep>,
    ) -> Result<TokenStream, CodegenError> {
        let rule = &field.rule;
        let rotation = Self::rotation(rule);
        let mut write = match (Self::step(view, rule), rotation) {
            // The step of the comparison: the bits `write_quantized` would write.
            (Some(step), _) => {
                let fp = fixed_point_const(self.ctx, rule);
                let q = view.site().q();
                quote!(w.write_bits(#step, #fp.bits())#q;)
            }
            // The code of the comparison.
            (None, Some(bits)) => {
                let (bits, code, q) = (u32_lit(bits), Self::code(view), view.site().q());
                quote!(idlc::SmallestThree::new(#bits).write_code(w, &#code)#q;)
            }
            (None, None) => encode_field(self.ctx, view, field)?,
        };
        if let (Some(plan), WireRule::SmallestThree { bits }) = (&field.diff, rule) {
            write = Self::quaternion_diff(view, plan, *bits, Some(&Self::code(view)))?;
        } else if let Some(plan) = &field.diff {
            write = self.write_diff(view, field, plan, velocity, write)?;
        }
        let (place, candidate) = (Self::place(view, Target::Mirror), Self::candidate(view));
        let flag = Self::mark_sent(view);
        Ok(quote! {
            #write
            #place = #candidate;
            #flag
        })
    }

    /// Where `target` puts a field: `mirror.f`, the local `f_f` or `state.f`.
    fn place(view: &RustField<'_>, target: Target) -> TokenStream {
        match target {
            Target::Mirror => {
                let name = super::idents::ident(&view.rust.rust_name);
                quote!(mirror.#name)
            }
            Target::State if is_copy(&view.field.ty, &view.rust.ty) => {
                let local = view.local();
                quote!(#local)
            }
            Target::State => {
                let name = super::idents::ident(&view.rust.rust_name);
                quote!(state.#name)
            }
        }
    }

    /// A field that was not sent: the baseline's value (a `Copy` one assigned, any other
    /// `clone_from` the baseline's, into the memory the field has).
    fn keep(&self, view: &RustField<'_>, target: Target) -> TokenStream {
        let (place, name) = (
            Self::place(view, target),
            super::idents::ident(&view.rust.rust_name),
        );
        let assign = if is_copy(&view.field.ty, &view.rust.ty) {
            quote!(#place = baseline.#name;)
        } else {
            quote!(#place.clone_from(&baseline.#name);)
        };
        if view.field.extends.is_empty() {
            assign
        } else {
            let flag = Self::sent_flag(view);
            quote!(#assign #flag = false;)
        }
    }

    /// The state of items that were not sent (shared by encoder and decoder).
    fn unsent_items(
        &self,
        items: &[DeltaStep],
        target: Target,
    ) -> Result<TokenStream, CodegenError> {
        let mut out = Vec::new();
        for item in items {
            match item {
                DeltaStep::Field(encoded)
                | DeltaStep::Changed(encoded)
                | DeltaStep::Sequence { field: encoded, .. } => {
                    out.push(self.keep(self.view(&encoded.field)?, target))
                }
                DeltaStep::Block(inner) => out.push(self.unsent_items(inner, target)?),
                DeltaStep::DeadReckoning { axes, .. } => {
                    out.push(self.unsent_dead_reckoning(axes, target)?)
                }
                DeltaStep::Extension(_) | DeltaStep::Align | DeltaStep::Check => {}
            }
        }
        Ok(quote!(#(#out)*))
    }

    /// A dead-reckoning block that was not sent: positions extrapolated, velocities kept. The
    /// encoder takes the predictions its checks made; the decoder makes them.
    fn unsent_dead_reckoning(
        &self,
        axes: &[(FieldStep, FieldStep)],
        target: Target,
    ) -> Result<TokenStream, CodegenError> {
        let mut out = Vec::new();
        for (position, velocity) in axes {
            let view = self.view(&position.field)?;
            let place = Self::place(view, target);
            let prediction = match target {
                Target::Mirror => {
                    let kept = Self::prediction(view);
                    quote!(#kept)
                }
                Target::State => self.predicted(position, velocity)?,
            };
            let predicted = from_f64(&view.rust.ty, prediction);
            out.push(quote!(#place = #predicted;));
            if !view.field.extends.is_empty() {
                // A widened position's extension follows only when its old slot was sent.
                let flag = Self::sent_flag(view);
                out.push(quote!(#flag = false;));
            }
        }
        for (_, velocity) in axes {
            out.push(self.keep(self.view(&velocity.field)?, target));
        }
        Ok(quote!(#(#out)*))
    }

    /// `write_delta_sequence_into(.., &mut mirror.f, ..)` (or `mirror.f = write_delta_sequence(..)`
    /// for a collection other than `Vec`): listed elements delta-coded against the baseline's
    /// element when they are PUBLISHABLE_STRUCTs, else in full. An element's error names its
    /// index (found from the element's address, on the error path); one found while deciding
    /// which elements changed (before the runtime writes anything of the field) is at the
    /// field's first bit.
    fn write_delta_sequence(
        &self,
        encoded: &FieldStep,
        publishable: bool,
    ) -> Result<TokenStream, CodegenError> {
        let DeltaSequence {
            name,
            count,
            max,
            element,
            element_idl,
            element_rust,
        } = self.delta_sequence(encoded)?;
        let field_site = self.view(&encoded.field)?.site();
        let write_count =
            super::rules::encode_length(self.ctx, count, max, Val::Expr(quote!(n)), &Site::bare())?;
        let element_site = Site::item_of(quote!(&self.#name), quote!(element));
        let element_mirror = super::mirror::sent_element(
            self.ctx,
            element,
            element_idl,
            element_rust,
            Val::Ref(quote!(element)),
            &element_site,
        )?;
        let write_full = encode(
            self.ctx,
            element,
            element_idl,
            element_rust,
            Val::Ref(quote!(element)),
            &element_site,
        )?;
        // A lossless element compares without an error path, so without `start`.
        let start = if is_lossless_element(self.ctx, element, element_rust) {
            quote!()
        } else {
            quote!(let start = w.bits_written();)
        };
        let pair = (Val::Ref(quote!(element)), Val::Ref(quote!(base)));
        let site = element_site.clone().at_bit(quote!(start));
        let same_item = closure_result(sent_equal(
            self.ctx,
            element,
            element_idl,
            element_rust,
            pair,
            &site,
        )?);
        let marker = &self.ctx.marker;
        let map = element_site.map();
        let q = field_site.q();
        if !matches!(self.view(&encoded.field)?.rust.ty, RustType::Vec(_)) {
            // Another collection is built anew and assigned.
            let write_element = if publishable {
                quote!(|w, element, base| match base {
                    Some(base) => idlc::DeltaCodec::<#marker>::encode_delta_nested_to(element, base, ctx, w)#map,
                    None => {
                        #write_full
                        Ok(#element_mirror)
                    }
                })
            } else {
                // Not a PUBLISHABLE_STRUCT: written in full, baseline or not.
                quote!(|w, element, _base| {
                    #write_full
                    Ok(#element_mirror)
                })
            };
            return Ok(quote! {
                #start
                mirror.#name = idlc::write_delta_sequence(
                    w,
                    &baseline.#name,
                    &self.#name,
                    |w, n| {
                        #write_count
                        Ok(())
                    },
                    |element, base| #same_item,
                    #write_element,
                )#q;
            });
        }
        let write_element = if publishable {
            quote!(|w, element, base, slot| match base {
                Some(base) => idlc::DeltaCodec::<#marker>::encode_delta_nested_into(element, base, ctx, w, slot)#map,
                None => {
                    #write_full
                    *slot = #element_mirror;
                    Ok(())
                }
            })
        } else {
            quote!(|w, element, _base, slot| {
                #write_full
                *slot = #element_mirror;
                Ok(())
            })
        };
        Ok(quote! {
            #start
            idlc::write_delta_sequence_into(
                w,
                &baseline.#name,
                &self.#name,
                &mut mirror.#name,
                |w, n| {
                    #write_count
                    Ok(())
                },
                |element, base| #same_item,
                #write_element,
            )#q;
        })
    }

    /// What the writer and the reader of a `DELTA SEQUENCE` field both need.
    fn delta_sequence<'r>(
        &self,
        encoded: &'r FieldStep,
    ) -> Result<DeltaSequence<'r, 'a>, CodegenError> {
        let view = self.view(&encoded.field)?;
        let WireRule::Sequence {
            count,
            max,
            element,
            ..
        } = &encoded.rule
        else {
            return Err(CodegenError(
                "internal: DELTA SEQUENCE without a sequence rule".into(),
            ));
        };
        let (element_idl, element_rust) = sequence_parts(&view.field.ty, &view.rust.ty)?;
        Ok(DeltaSequence {
            name: super::idents::ident(&view.rust.rust_name),
            count,
            max: *max,
            element,
            element_idl,
            element_rust,
        })
    }

    /// The reads of `items`, assigning every field's local.
    fn read_items(&self, items: &[DeltaStep]) -> Result<TokenStream, CodegenError> {
        let mut out = Vec::new();
        for item in items {
            match item {
                DeltaStep::Sequence { field, element } => {
                    out.push(self.read_delta_sequence(field, element.is_some())?);
                }
                DeltaStep::Changed(encoded) | DeltaStep::Field(encoded) => {
                    let view = self.view(&encoded.field)?;
                    let read = self.read_field(view, encoded, None)?;
                    if matches!(item, DeltaStep::Changed(_)) {
                        let keep = self.keep(view, Target::State);
                        let q = view.site().q();
                        out.push(quote! {
                            if r.read_bool()#q {
                                #read
                            } else {
                                #keep
                            }
                        });
                    } else {
                        out.push(read);
                    }
                }
                DeltaStep::Block(inner) => {
                    let reads = self.read_items(inner)?;
                    let unsent = self.unsent_items(inner, Target::State)?;
                    let q = Site::named(self.name).q();
                    out.push(quote! {
                        if r.read_bool()#q {
                            #reads
                        } else {
                            #unsent
                        }
                    });
                }
                DeltaStep::DeadReckoning { axes, .. } => {
                    let mut reads = Vec::new();
                    for (field, velocity) in dead_reckoning_fields(axes) {
                        reads.push(self.read_field(self.view(&field.field)?, field, velocity)?);
                    }
                    let unsent = self.unsent_dead_reckoning(axes, Target::State)?;
                    let q = Site::named(self.name).q();
                    out.push(quote! {
                        if r.read_bool()#q {
                            #(#reads)*
                        } else {
                            #unsent
                        }
                    });
                }
                DeltaStep::Extension(extend) => {
                    let view = self.view(&extend.field)?;
                    let (_, read) = extension(self.ctx, view, extend)?;
                    let flag = Self::sent_flag(view);
                    out.push(quote!(if #flag { #read }));
                }
                DeltaStep::Align => {
                    let q = Site::named(&format!("{} (ALIGN)", self.name)).q();
                    out.push(quote!(r.align()#q;));
                }
                DeltaStep::Check => {
                    let q = Site::named(&format!("{} (CHECK)", self.name)).q();
                    out.push(quote!(r.read_check()#q;));
                }
            }
        }
        Ok(quote!(#(#out)*))
    }

    /// Reads one field (in full, or with its DIFF; `velocity` is a dead-reckoning position's)
    /// into its place.
    fn read_field(
        &self,
        view: &RustField<'_>,
        field: &FieldStep,
        velocity: Option<&FieldStep>,
    ) -> Result<TokenStream, CodegenError> {
        if let (Some(plan), WireRule::SmallestThree { bits }) = (&field.diff, &field.rule) {
            return Self::quaternion_diff(view, plan, *bits, None);
        }
        if let Some(plan) = &field.diff {
            return self.read_diff(view, field, plan, velocity);
        }
        let place = Self::place(view, Target::State);
        let read = decode(
            self.ctx,
            &field.rule,
            &view.field.ty,
            &view.rust.ty,
            &view.site(),
        )?;
        let flag = Self::mark_sent(view);
        Ok(quote! {
            #place = #read;
            #flag
        })
    }

    /// `read_delta_sequence_into(.., &mut state.f, ..)` (or `state.f = read_delta_sequence(..)`
    /// for a collection other than `Vec`): listed elements read against the baseline's.
    fn read_delta_sequence(
        &self,
        encoded: &FieldStep,
        publishable: bool,
    ) -> Result<TokenStream, CodegenError> {
        let DeltaSequence {
            name,
            count,
            max,
            element,
            element_idl,
            element_rust,
        } = self.delta_sequence(encoded)?;
        let field_site = self.view(&encoded.field)?.site();
        let read_count = closure_result(super::rules::decode_length(
            self.ctx,
            count,
            max,
            &Site::bare(),
        )?);
        // An element with a baseline element names the baseline's index (found from its
        // address, on the error path); a new one, past the baseline, is counted in `next`.
        let old_site = Site::item_of(quote!(&baseline.#name), quote!(base));
        let new_site = Site::bare().element(quote!(index));
        let read_new = closure_result(decode(
            self.ctx,
            element,
            element_idl,
            element_rust,
            &new_site,
        )?);
        let marker = &self.ctx.marker;
        let read_full_old = decode(self.ctx, element, element_idl, element_rust, &old_site)?;
        let map = old_site.map();
        // A listed element delta-coded against the baseline's may be far smaller than a full
        // one: bound it by its index gap's bit alone (the runtime adds that bit).
        let min = if publishable {
            u64_lit(0)
        } else {
            u64_lit(min_bits(self.ctx.ir, self.ctx.encoding, element))
        };
        let q = field_site.q();
        if matches!(self.view(&encoded.field)?.rust.ty, RustType::Vec(_)) {
            let read_old = if publishable {
                quote!(idlc::DeltaCodec::<#marker>::decode_delta_nested_into(base, ctx, r, slot)#map)
            } else {
                quote!({
                    *slot = #read_full_old;
                    Ok(())
                })
            };
            return Ok(quote! {
                let mut next = baseline.#name.len();
                idlc::read_delta_sequence_into(
                    r,
                    &baseline.#name,
                    &mut state.#name,
                    |r| #read_count,
                    #min,
                    |r, base, slot| #read_old,
                    |r| {
                        let index = next;
                        next += 1;
                        #read_new
                    },
                )#q;
            });
        }
        // Another collection is built anew and assigned.
        let read_old = if publishable {
            quote!(idlc::DeltaCodec::<#marker>::decode_delta_nested_from(base, ctx, r)#map)
        } else {
            closure_result(read_full_old)
        };
        Ok(quote! {
            let mut next = idlc::Collection::len(&baseline.#name);
            state.#name = match idlc::read_delta_sequence(
                r,
                &baseline.#name,
                |r| #read_count,
                #min,
                |r, base| match base {
                    Some(base) => #read_old,
                    None => {
                        let index = next;
                        next += 1;
                        #read_new
                    }
                },
            )#q {
                Some(changed) => changed,
                None => baseline.#name.clone(),
            };
        })
    }
}

/// A `DELTA SEQUENCE` field: its names, its rules, its element's types.
struct DeltaSequence<'r, 'v> {
    name: Ident,
    count: &'r WireRule,
    max: Option<u64>,
    element: &'r WireRule,
    element_idl: &'v Type,
    element_rust: &'v crate::ir::RustType,
}

/// Whether `tokens` use the identifier `name`.
fn mentions(tokens: &TokenStream, name: &str) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => ident == name,
        proc_macro2::TokenTree::Group(group) => mentions(&group.stream(), name),
        _ => false,
    })
}
