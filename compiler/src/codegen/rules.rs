//! One wire rule as Rust code: the statements that write a value, the expression that reads one.
//!
//! Values to write are always given as an expression of type `&T` (a field `&self.x`, a
//! sequence element `item`); reads are expressions of type `T` that use `?`. Every `?` carries
//! the [`Site`] of the value: what its error adds to the field path on the error path only.

use proc_macro2::TokenStream;
use quote::quote;

use super::idents::{f64_lit, int_lit, u32_lit, u64_lit};
use super::{CodegenError, Ctx};
use crate::ir::cost::min_bits;
use crate::ir::{RustType, Style, Type, VlqMapping, WireRule, is_default_length, length_type};

/// A value to write: a place (`self.x`) or a reference (`item`), so that both `&value` and
/// `value` (for `Copy` types) can be written without `&*` or `*&`.
#[derive(Clone)]
pub enum Val {
    /// A place expression of type `T`.
    Place(TokenStream),
    /// An expression of type `&T`.
    Ref(TokenStream),
    /// A computed value of type `T` (`len as u64`), parenthesized when borrowed.
    Expr(TokenStream),
}

impl Val {
    /// The value as `&T`.
    pub fn by_ref(&self) -> TokenStream {
        match self {
            Val::Place(place) => quote!(&#place),
            Val::Ref(reference) => reference.clone(),
            Val::Expr(expr) => quote!(&(#expr)),
        }
    }

    /// The value as the receiver of a method call (auto-deref does the rest).
    pub fn receiver(&self) -> TokenStream {
        match self {
            Val::Place(place) => place.clone(),
            // `&**boxed` binds looser than a method call.
            Val::Ref(reference) if reference.to_string().starts_with('&') => quote!((#reference)),
            Val::Ref(reference) => reference.clone(),
            Val::Expr(expr) => quote!((#expr)),
        }
    }

    /// The value as `T` (for `Copy` types).
    pub fn by_val(&self) -> TokenStream {
        match self {
            Val::Place(place) => place.clone(),
            Val::Ref(reference) => quote!(*#reference),
            Val::Expr(expr) => expr.clone(),
        }
    }
}

/// Where a read or write sits, for its error: the calls that name the place on the way out,
/// innermost first (`at_index(index)`, then `in_field("Player.buffs")`). Every `?` of the code
/// of a value becomes `.at_index(index).in_field("Player.buffs")?` (the runtime's `WithField`
/// on the `Result`; a packed field's place counted from the stream is
/// `.in_field_ahead("Player.x", w, 21)`), or
/// `.map_err(|e| e.at_item(..).in_field(..))?` when a call's arguments must be computed on the
/// error path only and the runtime has no method that does it: either way only the error path
/// runs them (the text is built `#[cold]` in the runtime), the success path is a plain `?`.
/// A closure is the costly form for a user's build (each one is its own function and its own
/// `map_err`), so it is kept for what has no other.
///
/// Paths are those of the IR interpreter: the codec of a struct names its own fields
/// (`Struct.field`); the struct that holds it replaces that name by its own field, so that the
/// top-level struct's name begins the path. An element adds `[index]`; an OPTIONAL's value adds
/// nothing.
#[derive(Clone, Default)]
pub struct Site {
    /// Calls on the error, innermost first.
    calls: Vec<Call>,
    /// How many element loops of an encoder enclose the value (names their index variables).
    loops: usize,
}

/// One call of a [`Site`] on the error.
#[derive(Clone)]
enum Call {
    /// `in_field(name)`: a method both the error and `WithField` have.
    Field(String),
    /// A method both the error and `WithField` have, with the same arguments.
    Plain(TokenStream),
    /// The bit `offset` bits ahead of where the writer `w` is (`ahead`), or back from where the
    /// reader `r` is.
    Bit { ahead: bool, offset: u32 },
    /// A call on the error whose arguments are computed on the error path only.
    Lazy(TokenStream),
}

impl Call {
    /// The call on the error itself (inside `map_err`).
    fn on_error(&self) -> TokenStream {
        match self {
            Call::Field(field) => quote!(in_field(#field)),
            Call::Plain(call) | Call::Lazy(call) => call.clone(),
            Call::Bit { ahead, offset } => {
                let position = if *ahead {
                    quote!(w.bits_written())
                } else {
                    quote!(r.bits_read())
                };
                let literal = u32_lit(*offset);
                match (*offset, *ahead) {
                    (0, _) => quote!(at_bit(#position)),
                    (_, true) => quote!(at_bit(#position + #literal)),
                    (_, false) => quote!(at_bit(#position - #literal)),
                }
            }
        }
    }

    /// The call on the `Result` (`WithField`), if there is one. A bit alone has none: it is
    /// named together with its field ([`Site::map`]) or on the error, in the closure.
    fn on_result(&self) -> Option<TokenStream> {
        match self {
            Call::Field(field) => Some(quote!(in_field(#field))),
            Call::Plain(call) => Some(call.clone()),
            Call::Bit { .. } | Call::Lazy(_) => None,
        }
    }
}

impl Site {
    /// Errors leave as they are: the code of a closure whose result the caller names.
    pub fn bare() -> Site {
        Site::default()
    }

    /// The field `field` of the IDL struct `owner`: `in_field("Owner.field")`.
    pub fn field(owner: &str, field: &str) -> Site {
        Site::named(&format!("{owner}.{field}"))
    }

    /// An item of the struct itself (`Owner`, `Owner (ALIGN)`): `in_field(at)`.
    pub fn named(at: &str) -> Site {
        Site {
            calls: vec![Call::Field(at.to_owned())],
            loops: 0,
        }
    }

    /// The element `item` of the sequence `collection` (expressions): its index is found on the
    /// error path (`at_item`), for the elements of a DELTA SEQUENCE that the runtime visits.
    pub fn item_of(collection: TokenStream, item: TokenStream) -> Site {
        Site {
            calls: vec![Call::Lazy(quote!(at_item(#collection, #item)))],
            loops: 0,
        }
    }

    /// The element at `index` (an expression) of a sequence or array held at this site.
    pub fn element(&self, index: TokenStream) -> Site {
        let mut calls = vec![Call::Plain(quote!(at_index(#index)))];
        calls.extend(self.calls.iter().cloned());
        Site {
            calls,
            loops: self.loops,
        }
    }

    /// Then moves the error to the bit `offset` (an expression).
    pub fn at_bit(mut self, offset: TokenStream) -> Site {
        self.calls.push(Call::Lazy(quote!(at_bit(#offset))));
        self
    }

    /// Then moves the error to the bit `ahead` bits past where the writer `w` is.
    pub fn at_bit_ahead(mut self, ahead: u32) -> Site {
        self.calls.push(Call::Bit {
            ahead: true,
            offset: ahead,
        });
        self
    }

    /// Then moves the error to the bit `back` bits before where the reader `r` is.
    pub fn at_bit_back(mut self, back: u32) -> Site {
        self.calls.push(Call::Bit {
            ahead: false,
            offset: back,
        });
        self
    }

    /// The name of the index of the next element loop of an encoder, and the site of its
    /// elements (`index`, then `index_1`, ... when loops nest).
    fn next_loop(&self) -> (proc_macro2::Ident, Site) {
        let index = match self.loops {
            0 => quote::format_ident!("index"),
            n => quote::format_ident!("index_{n}"),
        };
        let mut inner = self.element(quote!(#index));
        inner.loops = self.loops + 1;
        (index, inner)
    }

    /// `.in_field(..)` / `.at_index(..)` / `.at_bit_ahead(..)` on the `Result` itself (the
    /// runtime's `WithField`), or `.map_err(|e| e...)` when a call must run on the error path
    /// only and has no such method, or nothing: for an expression of type `Result` that is
    /// returned.
    pub fn map(&self) -> TokenStream {
        if self.calls.is_empty() {
            return quote!();
        }
        // A packed field's own place, counted from the stream: one `WithField` call.
        if let [Call::Field(field), Call::Bit { ahead, offset }] = self.calls.as_slice() {
            let offset = u32_lit(*offset);
            return if *ahead {
                quote!(.in_field_ahead(#field, w, #offset))
            } else {
                quote!(.in_field_back(#field, r, #offset))
            };
        }
        match self
            .calls
            .iter()
            .map(Call::on_result)
            .collect::<Option<Vec<_>>>()
        {
            Some(calls) => quote!(#(.#calls)*),
            None => {
                let calls = self.calls.iter().map(Call::on_error);
                quote!(.map_err(|e| e #(.#calls)*))
            }
        }
    }

    /// What follows a fallible call: `?`, `.in_field(..)?` (see [`Site::map`]), or
    /// `.map_err(|e| e...)?`.
    pub fn q(&self) -> TokenStream {
        let map = self.map();
        quote!(#map?)
    }
}

/// `::<_, u16>` after a runtime read generic over the stream and the integer it returns, when
/// the value is a Rust integer: named, not inferred from the `let` it lands in, which costs a
/// user's build more type checking per call; nothing for any other type.
pub(super) fn int_arguments(rust: &RustType) -> Result<TokenStream, CodegenError> {
    Ok(match rust {
        RustType::Int(name) => {
            let int = super::idents::rust_type(name)?;
            quote!(::<_, #int>)
        }
        _ => TokenStream::new(),
    })
}

pub(super) fn rt() -> TokenStream {
    quote!(idlc)
}

pub(super) fn opt_u64(value: Option<u64>) -> TokenStream {
    match value {
        Some(n) => {
            let n = u64_lit(n);
            quote!(Some(#n))
        }
        None => quote!(None),
    }
}

/// `U32`, `I16`, ...: the Rust integer type whose range is exactly `[min, max]`.
fn whole_type_range(min: i128, max: i128) -> Option<&'static str> {
    let types: [(&str, i128, i128); 8] = [
        ("U8", 0, u8::MAX.into()),
        ("U16", 0, u16::MAX.into()),
        ("U32", 0, u32::MAX.into()),
        ("U64", 0, u64::MAX.into()),
        ("I8", i8::MIN.into(), i8::MAX.into()),
        ("I16", i16::MIN.into(), i16::MAX.into()),
        ("I32", i32::MIN.into(), i32::MAX.into()),
        ("I64", i64::MIN.into(), i64::MAX.into()),
    ];
    types
        .iter()
        .find(|(_, lo, hi)| (*lo, *hi) == (min, max))
        .map(|(name, ..)| *name)
}

/// The name of the module-level const that holds a VLQ rule's parameters (an `idlc::Vlq`,
/// registered in `ctx.quantizers` on first use): `VLQ_<group bits>_BY_<max groups>_<MODE>_ON_
/// <min>_TO_<max>` (`_ON_U32` for a whole type's range), or `VLQ_<hash>` when that would be long.
fn vlq_const(
    ctx: &Ctx<'_>,
    mapping: VlqMapping,
    min: i128,
    max: i128,
    group_bits: u32,
    max_groups: u32,
) -> TokenStream {
    let (mode, mode_name) = match mapping {
        VlqMapping::Plain => (quote!(idlc::VlqMode::Plain), "PLAIN"),
        VlqMapping::ZigZag => (quote!(idlc::VlqMode::ZigZag), "ZIGZAG"),
        VlqMapping::Offset => (quote!(idlc::VlqMode::Offset), "OFFSET"),
    };
    let number = |v: i128| v.to_string().replace('-', "MINUS_");
    let range = whole_type_range(min, max).map_or_else(
        || format!("{}_TO_{}", number(min), number(max)),
        str::to_string,
    );
    let mut name = format!("VLQ_{group_bits}_BY_{max_groups}_{mode_name}_ON_{range}");
    if name.len() > 80 {
        let mut key = Vec::with_capacity(41);
        key.extend_from_slice(&min.to_le_bytes());
        key.extend_from_slice(&max.to_le_bytes());
        key.extend_from_slice(&group_bits.to_le_bytes());
        key.extend_from_slice(&max_groups.to_le_bytes());
        key.push(mode_name.as_bytes()[0]);
        name = format!("VLQ_{:016X}", idlc_runtime::protocol_hash(&key));
    }
    let ident = proc_macro2::Ident::new(&name, proc_macro2::Span::call_site());
    ctx.quantizers.register(&name, || {
        let doc = format!(
            " VLQ({group_bits}) of [{min}, {max}], {}, at most {max_groups} groups.",
            match mapping {
                VlqMapping::Plain => "the value itself",
                VlqMapping::ZigZag => "zigzagged",
                VlqMapping::Offset => "as its offset from the minimum",
            }
        );
        let (min, max) = (int_lit(min), int_lit(max));
        let (group, groups) = (u32_lit(group_bits), u32_lit(max_groups));
        quote! {
            #[doc = #doc]
            const #ident: idlc::Vlq = idlc::Vlq::new(#mode, #min, #max, #group, #groups);
        }
    });
    quote!(#ident)
}

/// The statements that write `*v` (`v: &T`, T the field's Rust type) with `rule`; their errors
/// name `site`.
pub fn encode(
    ctx: &Ctx<'_>,
    rule: &WireRule,
    idl: &Type,
    rust: &RustType,
    v: Val,
    site: &Site,
) -> Result<TokenStream, CodegenError> {
    let rt = rt();
    if let RustType::Boxed(inner) = rust {
        let inner_ref = v.by_ref();
        return encode(ctx, rule, idl, inner, Val::Ref(quote!(&**#inner_ref)), site);
    }
    if let RustType::QuaternionAs(_) = rust {
        return encode(
            ctx,
            rule,
            idl,
            &RustType::Quaternion,
            to_quaternion(&v),
            site,
        );
    }
    let (r, c, recv) = (v.by_ref(), v.by_val(), v.receiver());
    let q = site.q();
    Ok(match rule {
        WireRule::Bool { bits } if !is_native_bool(ctx, *bits) => {
            let bits = u32_lit(*bits);
            quote!(#rt::write_wide_bool(w, #c, #bits)#q;)
        }
        WireRule::Bool { .. } => quote!(w.write_bool(#c)#q;),
        WireRule::Ranged { min, max, bits } => {
            let (min, max, bits) = (int_lit(*min), int_lit(*max), u32_lit(*bits));
            match idl {
                Type::Enum(_) => quote!(#rt::write_ranged(w, #recv.index(), #min, #max, #bits)#q;),
                _ => quote!(#rt::write_ranged(w, #c, #min, #max, #bits)#q;),
            }
        }
        WireRule::Fixed { bits, signed } => {
            let (min, max) = idl.int_range().unwrap_or((0, 0));
            let (min, max, bits) = (int_lit(min), int_lit(max), u32_lit(*bits));
            quote!(#rt::write_fixed(w, #c, #min, #max, #bits, #signed)#q;)
        }
        WireRule::Vlq {
            group_bits,
            mapping,
            min,
            max,
            max_groups,
            ..
        } => {
            let vlq = vlq_const(ctx, *mapping, *min, *max, *group_bits, *max_groups);
            let value = match idl {
                Type::Enum(_) => quote!(#recv.index()),
                _ => c.clone(),
            };
            quote!(#vlq.write(w, #value)#q;)
        }
        WireRule::EnumIndex { count, bits } => {
            let (count, bits) = (u64_lit(u64::from(*count)), u32_lit(*bits));
            quote!(#rt::write_enum(w, #recv.index(), #count, #bits)#q;)
        }
        WireRule::Huffman { codes } => {
            let codes = huffman_table(codes);
            quote!(#rt::write_huffman(w, #recv.index(), #codes)#q;)
        }
        WireRule::FixedPoint { .. } => {
            let value = fixed_point_input(rule, rust, &c);
            let fp = fixed_point_const(ctx, rule);
            quote!(w.write_quantized(&#fp, #value)#q;)
        }
        WireRule::Float32 | WireRule::Float64 => encode_float(rule, idl, rust, &c, &q),
        WireRule::Quaternion => quote!(#rt::write_quaternion_f32(w, #r)#q;),
        WireRule::SmallestThree { bits } => {
            let bits = u32_lit(*bits);
            quote!(#rt::SmallestThree::new(#bits).write(w, #r)#q;)
        }
        WireRule::Bytes { length, utf8, max } => {
            encode_bytes(ctx, length, *utf8, *max, &v.receiver(), site)?
        }
        WireRule::Sequence {
            count,
            max,
            element,
            ..
        } => {
            let (element_idl, element_rust) = sequence_parts(idl, rust)?;
            // A computed collection (an EXTENDed field's old slot) is computed once.
            let (bind, r) = match &v {
                Val::Expr(expr) => (quote!(let items = #expr;), quote!(&items)),
                _ => (quote!(), r),
            };
            let count_code = encode_length(
                ctx,
                count,
                *max,
                Val::Expr(quote!(#rt::Collection::len(#r) as u64)),
                site,
            )?;
            if is_plain_bool(ctx, element, element_rust) {
                let write = if matches!(rust, RustType::Vec(_)) {
                    quote!(w.write_bool_slice(#r)#q;)
                } else {
                    quote!(w.write_bools(#rt::Collection::iter(#r).copied())#q;)
                };
                return Ok(quote! {
                    #bind
                    #count_code
                    #write
                });
            }
            if let (WireRule::Struct(name), RustType::Named(_)) = (element.as_ref(), element_rust) {
                // Elements that own memory: their blocks are prefetched a batch ahead.
                let marker = &ctx.marker;
                let nested = ctx.is_nested(name);
                let prefetch = ctx.prefetched.contains(name.as_str());
                return Ok(quote! {
                    #bind
                    #count_code
                    #rt::write_struct_elements::<#marker, _, #nested, #prefetch>(w, #r)#q;
                });
            }
            let (index, item_site) = site.next_loop();
            let item = encode(
                ctx,
                element,
                element_idl,
                element_rust,
                Val::Ref(quote!(item)),
                &item_site,
            )?;
            let items = quote!(#rt::Collection::iter(#r));
            quote! {
                #bind
                #count_code
                for (#index, item) in #items.enumerate() {
                    #item
                }
            }
        }
        WireRule::Array { element, .. } => {
            let (
                Type::Array {
                    element: element_idl,
                    ..
                },
                RustType::Array(element_rust, _),
            ) = (idl, rust)
            else {
                return Err(mismatch(rule, idl, rust));
            };
            let (index, item_site) = site.next_loop();
            let item = encode(
                ctx,
                element,
                element_idl,
                element_rust,
                Val::Ref(quote!(item)),
                &item_site,
            )?;
            quote! {
                for (#index, item) in #recv.iter().enumerate() {
                    #item
                }
            }
        }
        WireRule::Optional(inner) => {
            let (Type::Optional(inner_idl), RustType::Option(inner_rust)) = (idl, rust) else {
                return Err(mismatch(rule, idl, rust));
            };
            let present = encode(
                ctx,
                inner,
                inner_idl,
                inner_rust,
                Val::Ref(quote!(value)),
                site,
            )?;
            quote! {
                match #r {
                    Some(value) => {
                        w.write_presence(true)#q;
                        #present
                    }
                    None => w.write_presence(false)#q,
                }
            }
        }
        WireRule::Struct(name) => {
            let marker = &ctx.marker;
            if ctx.is_nested(name) {
                quote!(#rt::Codec::<#marker>::encode_nested_to(#r, w)#q;)
            } else {
                quote!(#rt::Codec::<#marker>::encode_to(#r, w)#q;)
            }
        }
    })
}

/// The expression (of the field's Rust type) that reads a value written with `rule`; its errors
/// name `site`.
pub fn decode(
    ctx: &Ctx<'_>,
    rule: &WireRule,
    idl: &Type,
    rust: &RustType,
    site: &Site,
) -> Result<TokenStream, CodegenError> {
    let rt = rt();
    if let RustType::Boxed(inner) = rust {
        let inner = decode(ctx, rule, idl, inner, site)?;
        let boxed = ctx.prelude.path("Box");
        return Ok(quote!(#boxed::new(#inner)));
    }
    if let RustType::QuaternionAs(_) = rust {
        let inner = decode(ctx, rule, idl, &RustType::Quaternion, site)?;
        return from_quaternion(rust, inner);
    }
    let q = site.q();
    Ok(match rule {
        WireRule::Bool { bits } if !is_native_bool(ctx, *bits) => {
            let bits = u32_lit(*bits);
            quote!(#rt::read_wide_bool(r, #bits)#q)
        }
        WireRule::Bool { .. } => quote!(r.read_bool()#q),
        WireRule::Ranged { min, max, bits } => {
            let (min, max, bits) = (int_lit(*min), int_lit(*max), u32_lit(*bits));
            match idl {
                Type::Enum(_) => enum_from_index(
                    ctx,
                    idl,
                    rust,
                    quote!(#rt::read_ranged::<_, u64>(r, #min, #max, #bits)#q),
                    &q,
                )?,
                _ => {
                    let int = int_arguments(rust)?;
                    quote!(#rt::read_ranged #int(r, #min, #max, #bits)#q)
                }
            }
        }
        WireRule::Fixed { bits, signed } => {
            let (min, max) = idl.int_range().unwrap_or((0, 0));
            let (min, max, bits) = (int_lit(min), int_lit(max), u32_lit(*bits));
            let int = int_arguments(rust)?;
            quote!(#rt::read_fixed #int(r, #min, #max, #bits, #signed)#q)
        }
        WireRule::Vlq {
            group_bits,
            mapping,
            max_groups,
            min,
            max,
        } => {
            let vlq = vlq_const(ctx, *mapping, *min, *max, *group_bits, *max_groups);
            match idl {
                Type::Enum(_) => {
                    enum_from_index(ctx, idl, rust, quote!(#vlq.read::<_, u64>(r)#q), &q)?
                }
                _ => {
                    let int = int_arguments(rust)?;
                    quote!(#vlq.read #int(r)#q)
                }
            }
        }
        WireRule::EnumIndex { count, bits } => {
            let (count, bits) = (u64_lit(u64::from(*count)), u32_lit(*bits));
            enum_from_index(
                ctx,
                idl,
                rust,
                quote!(#rt::read_enum(r, #count, #bits)#q),
                &q,
            )?
        }
        WireRule::Huffman { codes } => {
            let codes = huffman_table(codes);
            enum_from_index(ctx, idl, rust, quote!(#rt::read_huffman(r, #codes)#q), &q)?
        }
        WireRule::FixedPoint { .. } => {
            let fp = fixed_point_const(ctx, rule);
            from_f64(rust, quote!(r.read_dequantized(&#fp)#q))
        }
        WireRule::Float32 | WireRule::Float64 => decode_float(rule, idl, rust, &q),
        WireRule::Quaternion => quote!(#rt::read_quaternion_f32(r)#q),
        WireRule::SmallestThree { bits } => {
            let bits = u32_lit(*bits);
            quote!(#rt::SmallestThree::new(#bits).read(r)#q)
        }
        WireRule::Bytes { length, utf8, max } => decode_bytes(ctx, length, *utf8, *max, site)?,
        WireRule::Sequence {
            count,
            max,
            element,
            ..
        } => {
            let (element_idl, element_rust) = sequence_parts(idl, rust)?;
            let count_code = decode_length(ctx, count, *max, site)?;
            let min = u64_lit(min_bits(ctx.ir, ctx.encoding, element));
            let collection = ctx.prelude.rust_type(rust)?;
            if is_plain_bool(ctx, element, element_rust) {
                return Ok(quote!({
                    let count = #count_code;
                    #rt::read_bool_elements::<_, #collection>(r, count, #min)#q
                }));
            }
            let bound = opt_u64(*max);
            if let (WireRule::Struct(name), RustType::Named(_)) = (element.as_ref(), element_rust) {
                let marker = &ctx.marker;
                let nested = ctx.is_nested(name);
                return Ok(quote!({
                    let count = #count_code;
                    #rt::read_struct_elements::<#marker, #collection, #nested>(r, count, #bound, #min)#q
                }));
            }
            let item = element_reader(ctx, element, element_idl, element_rust)?;
            quote!({
                let count = #count_code;
                let mut next = 0usize;
                #rt::read_elements::<_, #collection, _>(r, count, #bound, #min, #item)#q
            })
        }
        WireRule::Array { element, len } => {
            let (
                Type::Array {
                    element: element_idl,
                    ..
                },
                RustType::Array(element_rust, _),
            ) = (idl, rust)
            else {
                return Err(mismatch(rule, idl, rust));
            };
            let item = element_reader(ctx, element, element_idl, element_rust)?;
            let min = u64_lit(min_bits(ctx.ir, ctx.encoding, element));
            let len =
                proc_macro2::Literal::usize_unsuffixed(usize::try_from(*len).unwrap_or(usize::MAX));
            quote!({
                let mut next = 0usize;
                #rt::read_array::<_, _, _, #len>(r, #min, #item)#q
            })
        }
        WireRule::Optional(inner) => {
            let (Type::Optional(inner_idl), RustType::Option(inner_rust)) = (idl, rust) else {
                return Err(mismatch(rule, idl, rust));
            };
            let value = decode(ctx, inner, inner_idl, inner_rust, site)?;
            quote!(if r.read_presence()#q { Some(#value) } else { None })
        }
        WireRule::Struct(name) => {
            let marker = &ctx.marker;
            let ty = ctx.prelude.rust_type(rust)?;
            let read = ctx.struct_reader(name);
            quote!(<#ty as #rt::Codec<#marker>>::#read(r)#q)
        }
    })
}

/// The closure that reads one element and names its index (counted in `next`, which the
/// caller declares) on the error path.
fn element_reader(
    ctx: &Ctx<'_>,
    rule: &WireRule,
    idl: &Type,
    rust: &RustType,
) -> Result<TokenStream, CodegenError> {
    let site = Site::bare().element(quote!(index));
    let body = closure_result(decode(ctx, rule, idl, rust, &site)?);
    Ok(quote!(|r| {
        let index = next;
        next += 1;
        #body
    }))
}

/// A closure body returning `Result<T, _>` from a read expression of type `T`: `read(r)?`
/// becomes `read(r)` rather than the needless `Ok(read(r)?)`.
pub(super) fn closure_result(read: TokenStream) -> TokenStream {
    let is_question_mark = |t: &proc_macro2::TokenTree| matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == '?');
    let mut tokens: Vec<proc_macro2::TokenTree> = read.clone().into_iter().collect();
    let question_marks = tokens.iter().filter(|t| is_question_mark(t)).count();
    if question_marks == 1 && tokens.last().is_some_and(is_question_mark) {
        tokens.pop();
        tokens.into_iter().collect()
    } else {
        quote!(Ok(#read))
    }
}

fn mismatch(rule: &WireRule, idl: &Type, rust: &RustType) -> CodegenError {
    CodegenError(format!(
        "internal: rule {rule:?} does not fit IDL type {} mapped to {rust}",
        idl.describe()
    ))
}

/// The element types (IDL, Rust) of a SEQUENCE field.
/// Whether a BOOL of `bits` bits is what `write_bool` and `read_bool` send in the encoding's
/// stream (1 bit, or 1 byte in a BYTESTREAM); `BIT(n)` of another width is a ranged integer.
fn is_native_bool(ctx: &Ctx<'_>, bits: u32) -> bool {
    let native = match ctx.encoding.style {
        Style::Bitstream => 1,
        Style::Bytestream => 8,
    };
    bits == native
}

/// Whether a sequence's elements are native BOOLs held as `bool`, which the runtime reads and
/// writes as one run (`write_bools`, `read_bool_elements`).
pub(super) fn is_plain_bool(ctx: &Ctx<'_>, element: &WireRule, element_rust: &RustType) -> bool {
    matches!(element, WireRule::Bool { bits } if is_native_bool(ctx, *bits))
        && *element_rust == RustType::Bool
}

pub(super) fn sequence_parts<'t>(
    idl: &'t Type,
    rust: &'t RustType,
) -> Result<(&'t Type, &'t RustType), CodegenError> {
    let Type::Sequence { element, .. } = idl else {
        return Err(CodegenError(format!(
            "internal: {} is not a SEQUENCE",
            idl.describe()
        )));
    };
    match rust {
        RustType::Vec(e) | RustType::Collection { element: e, .. } => Ok((element, e)),
        other => Err(CodegenError(format!(
            "internal: SEQUENCE mapped to {other}"
        ))),
    }
}

fn enum_from_index(
    ctx: &Ctx<'_>,
    idl: &Type,
    rust: &RustType,
    index: TokenStream,
    q: &TokenStream,
) -> Result<TokenStream, CodegenError> {
    let rt = rt();
    if !matches!(idl, Type::Enum(_)) {
        return Err(CodegenError(format!(
            "internal: enum rule on {}",
            idl.describe()
        )));
    }
    let ty = ctx.prelude.rust_type(rust)?;
    Ok(quote!({
        let ordinal = #index;
        #rt::enumerator(r, <#ty>::from_index(ordinal))#q
    }))
}

fn huffman_table(codes: &[(u64, u32)]) -> TokenStream {
    let entries = codes.iter().map(|(code, len)| {
        let (code, len) = (u64_lit(*code), u32_lit(*len));
        quote!((#code, #len))
    });
    quote!(&[#(#entries),*])
}

/// A float value as `f64` (widened from `f32`).
pub fn as_f64(rust: &RustType, c: &TokenStream) -> TokenStream {
    match rust {
        RustType::F32 => quote!(f64::from(#c)),
        _ => c.clone(),
    }
}

/// A FIXED_POINT field's value as the `f64` its quantizer takes: [`as_f64`], except for an `f32`
/// in a range with an end no `f32` equals, which goes through `idlc_runtime::real_of_f32` (the
/// `f32` nearest to an end stands for the end, so the field can hold both ends and a decoded end
/// re-encodes).
pub fn fixed_point_input(rule: &WireRule, rust: &RustType, c: &TokenStream) -> TokenStream {
    match rule {
        WireRule::FixedPoint { min, max, .. } => real_input(*min, *max, rust, c),
        _ => as_f64(rust, c),
    }
}

/// A real of `NUMERIC[min,max]` as the `f64` its rule takes: [`as_f64`], except for an `f32` when
/// an end is not an `f32`, which goes through `idlc_runtime::real_of_f32` (the `f32` nearest to an
/// end stands for the end: FIXED_POINT and FLOAT32 alike).
fn real_input(min: f64, max: f64, rust: &RustType, c: &TokenStream) -> TokenStream {
    if matches!(rust, RustType::F32) && !crate::ir::ends_are_f32(min, max) {
        let (min, max) = (f64_lit(min), f64_lit(max));
        return quote!(idlc::real_of_f32(#c, #min, #max));
    }
    as_f64(rust, c)
}

/// An `f64` as the field's float type.
pub fn from_f64(rust: &RustType, value: TokenStream) -> TokenStream {
    match rust {
        RustType::F32 => quote!(#value as f32),
        _ => value,
    }
}

/// A game's QUATERNION value (of a [`RustType::QuaternionAs`], which is `Copy`) as the
/// runtime's: `idlc::Quaternion::from(self.orientation)`.
pub fn to_quaternion(v: &Val) -> Val {
    let value = v.by_val();
    Val::Expr(quote!(idlc::Quaternion::from(#value)))
}

/// A runtime quaternion (an expression) as the game's type `rust` holding a QUATERNION
/// ([`RustType::QuaternionAs`]): `glam::Quat::from(..)`.
pub fn from_quaternion(
    rust: &RustType,
    quaternion: TokenStream,
) -> Result<TokenStream, CodegenError> {
    let RustType::QuaternionAs(path) = rust else {
        return Ok(quaternion);
    };
    // A path without arguments (the mapping's resolution took no other).
    let ty = super::idents::rust_type(path)?;
    Ok(quote!(#ty::from(#quaternion)))
}

/// The name of the module-level const that holds `rule`'s quantizer, built at compile time
/// (registered in `ctx.quantizers` on first use): a `FixedPoint` value, used as `&NAME` or
/// `NAME.dequantize(q)`.
pub fn fixed_point_const(ctx: &Ctx<'_>, rule: &WireRule) -> TokenStream {
    let WireRule::FixedPoint {
        min,
        max,
        min_inclusive,
        max_inclusive,
        resolution,
        ..
    } = rule
    else {
        return quote!(compile_error!("internal: not a FIXED_POINT rule"));
    };
    let name = quantizer_name(*min, *max, *resolution, *min_inclusive, *max_inclusive);
    let ident = proc_macro2::Ident::new(&name, proc_macro2::Span::call_site());
    ctx.quantizers.register(&name, || {
        let (lo, hi, res) = (f64_lit(*min), f64_lit(*max), f64_lit(*resolution));
        let doc = format!(
            " FIXED_POINT({resolution}) on NUMERIC{}{min}, {max}{}: the quantizer, built at compile time.",
            if *min_inclusive { '[' } else { '(' },
            if *max_inclusive { ']' } else { ')' },
        );
        quote! {
            #[doc = #doc]
            const #ident: idlc::FixedPoint =
                idlc::FixedPoint::constant(#lo, #hi, #res, #min_inclusive, #max_inclusive);
        }
    });
    quote!(#ident)
}

/// The name of the module-level const that holds the dead-reckoning axis of a position and its
/// velocity (an `idlc::DeadReckoningAxis` of their quantizers, registered in `ctx.quantizers`):
/// `DEAD_RECKONING_<position>_BY_<velocity>` from their quantizers' names, or
/// `DEAD_RECKONING_<hash>` when that would be long.
pub fn dead_reckoning_const(
    ctx: &Ctx<'_>,
    position: &WireRule,
    velocity: &WireRule,
) -> TokenStream {
    let (p_fp, v_fp) = (
        fixed_point_const(ctx, position),
        fixed_point_const(ctx, velocity),
    );
    let (p_name, v_name) = (p_fp.to_string(), v_fp.to_string());
    let short = |name: &str| name.trim_start_matches("FIXED_POINT_").to_string();
    let mut name = format!("DEAD_RECKONING_{}_BY_{}", short(&p_name), short(&v_name));
    if name.len() > 100 {
        let key = format!("{p_name} {v_name}");
        name = format!(
            "DEAD_RECKONING_{:016X}",
            idlc_runtime::protocol_hash(key.as_bytes())
        );
    }
    let ident = proc_macro2::Ident::new(&name, proc_macro2::Span::call_site());
    ctx.quantizers.register(&name, || {
        let doc = format!(
            " The dead-reckoning axis of a position quantized by `{p_name}` moving at a velocity \
             quantized by `{v_name}`."
        );
        quote! {
            #[doc = #doc]
            const #ident: idlc::DeadReckoningAxis = idlc::DeadReckoningAxis::new(#p_fp, #v_fp);
        }
    });
    quote!(#ident)
}

/// `FIXED_POINT_<resolution>_ON_<min>_TO_<max>` (`-` as `MINUS_`, `.` as `_`; `_OPEN_MIN` /
/// `_OPEN_MAX` for an excluded end), or `FIXED_POINT_<hash>` when that would be long.
pub(crate) fn quantizer_name(
    min: f64,
    max: f64,
    resolution: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> String {
    let number = |v: f64| {
        format!("{v}")
            .replace('-', "MINUS_")
            .replace('.', "_")
            .to_uppercase()
    };
    let mut name = format!(
        "FIXED_POINT_{}_ON_{}_TO_{}",
        number(resolution),
        number(min),
        number(max)
    );
    if !min_inclusive {
        name.push_str("_OPEN_MIN");
    }
    if !max_inclusive {
        name.push_str("_OPEN_MAX");
    }
    if name.len() > 64 {
        let mut key = Vec::with_capacity(26);
        for v in [min, max, resolution] {
            key.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        key.extend([u8::from(min_inclusive), u8::from(max_inclusive)]);
        name = format!("FIXED_POINT_{:016X}", idlc_runtime::protocol_hash(&key));
    }
    name
}

fn encode_float(
    rule: &WireRule,
    idl: &Type,
    rust: &RustType,
    c: &TokenStream,
    q: &TokenStream,
) -> TokenStream {
    let rt = rt();
    let single = matches!(rule, WireRule::Float32);
    if let Type::Numeric {
        min,
        max,
        min_inclusive,
        max_inclusive,
    } = idl
    {
        // An f32 field stands for a real of the range (`real_of_f32`), also under FLOAT64.
        let value = real_input(*min, *max, rust, c);
        let (min, max) = (f64_lit(*min), f64_lit(*max));
        return if single && matches!(rust, RustType::F32) {
            quote! {
                let single = #rt::check_f32_in_range(w, #c, #min, #max, #min_inclusive, #max_inclusive)#q;
                w.write_f32(single)#q;
            }
        } else if single {
            quote! {
                let single = #rt::check_numeric_f32(w, #value, #min, #max, #min_inclusive, #max_inclusive)#q;
                w.write_f32(single)#q;
            }
        } else {
            quote! {
                let checked = #rt::check_numeric(w, #value, #min, #max, #min_inclusive, #max_inclusive)#q;
                w.write_f64(checked)#q;
            }
        };
    }
    match (single, rust) {
        (true, RustType::F32) => quote!(w.write_f32(#c)#q;),
        (true, _) => quote!(w.write_f32(#c as f32)#q;),
        (false, RustType::F32) => quote!(w.write_f64(f64::from(#c))#q;),
        (false, _) => quote!(w.write_f64(#c)#q;),
    }
}

fn decode_float(rule: &WireRule, idl: &Type, rust: &RustType, q: &TokenStream) -> TokenStream {
    let rt = rt();
    let single = matches!(rule, WireRule::Float32);
    let Type::Numeric {
        min,
        max,
        min_inclusive,
        max_inclusive,
    } = idl
    else {
        return match (single, rust) {
            (true, RustType::F32) => quote!(r.read_f32()#q),
            (true, _) => quote!(f64::from(r.read_f32()#q)),
            (false, RustType::F32) => quote!(r.read_f64()#q as f32),
            (false, _) => quote!(r.read_f64()#q),
        };
    };
    let (min, max) = (f64_lit(*min), f64_lit(*max));
    let ends = quote!(#min, #max, #min_inclusive, #max_inclusive);
    match (single, rust) {
        (true, RustType::F32) => quote!(#rt::read_f32_in_range(r, #ends)#q),
        (true, _) => quote!(#rt::read_f32_real_in_range(r, #ends)#q),
        // A FLOAT64 held as an f32 (W0402 warns of it): the nearest f32 inside the range, which
        // the encoder takes back.
        (false, RustType::F32) => {
            quote!(#rt::nearest_f32_inside(#rt::read_f64_in_range(r, #ends)#q, #ends))
        }
        (false, _) => quote!(#rt::read_f64_in_range(r, #ends)#q),
    }
}

/// The statements that write a length or count `v` with `length` (bounded by `max`).
pub fn encode_length(
    ctx: &Ctx<'_>,
    length: &WireRule,
    max: Option<u64>,
    v: Val,
    site: &Site,
) -> Result<TokenStream, CodegenError> {
    let q = site.q();
    if is_default_length(length, max) {
        let max = opt_u64(max);
        let count = v.by_val();
        return Ok(quote!(w.write_count(#count, #max)#q;));
    }
    if let (WireRule::Ranged { min: 0, bits, .. }, Some(bound)) = (length, max) {
        let (count, bound, bits) = (v.by_val(), u64_lit(bound), u32_lit(*bits));
        return Ok(quote!(idlc::write_bounded_length(w, #count, #bound, #bits)#q;));
    }
    encode(
        ctx,
        length,
        &length_type(max),
        &RustType::Int("u64".into()),
        v,
        site,
    )
}

/// The expression that reads a length or count written by [`encode_length`].
pub fn decode_length(
    ctx: &Ctx<'_>,
    length: &WireRule,
    max: Option<u64>,
    site: &Site,
) -> Result<TokenStream, CodegenError> {
    let q = site.q();
    if is_default_length(length, max) {
        let max = opt_u64(max);
        return Ok(quote!(r.read_length(#max)#q));
    }
    if let (WireRule::Ranged { min: 0, bits, .. }, Some(bound)) = (length, max) {
        let (bound, bits) = (u64_lit(bound), u32_lit(*bits));
        return Ok(quote!(idlc::read_bounded_length(r, #bound, #bits)#q));
    }
    decode(
        ctx,
        length,
        &length_type(max),
        &RustType::Int("u64".into()),
        site,
    )
}

fn encode_bytes(
    ctx: &Ctx<'_>,
    length: &WireRule,
    utf8: bool,
    max: Option<u64>,
    v: &TokenStream,
    site: &Site,
) -> Result<TokenStream, CodegenError> {
    let bytes = if utf8 {
        quote!(#v.as_bytes())
    } else {
        quote!(#v.as_slice())
    };
    let q = site.q();
    if is_default_length(length, max) {
        let max = opt_u64(max);
        return Ok(quote!(w.write_bytes(#bytes, #max)#q;));
    }
    let rt = rt();
    let length_code = encode_length(ctx, length, max, Val::Expr(quote!(#v.len() as u64)), site)?;
    Ok(quote! {
        #length_code
        #rt::write_aligned_bytes(w, #bytes)#q;
    })
}

/// The expression that reads a BYTES or STRING field's bytes as a slice of the input.
pub(super) fn raw_bytes(
    ctx: &Ctx<'_>,
    length: &WireRule,
    max: Option<u64>,
    site: &Site,
) -> Result<TokenStream, CodegenError> {
    let q = site.q();
    Ok(if is_default_length(length, max) {
        let max = opt_u64(max);
        quote!(r.read_bytes(#max)#q)
    } else {
        let rt = rt();
        let length_code = decode_length(ctx, length, max, site)?;
        quote!({
            let len = #length_code;
            #rt::read_aligned_bytes(r, len)#q
        })
    })
}

fn decode_bytes(
    ctx: &Ctx<'_>,
    length: &WireRule,
    utf8: bool,
    max: Option<u64>,
    site: &Site,
) -> Result<TokenStream, CodegenError> {
    let rt = rt();
    let q = site.q();
    let raw = raw_bytes(ctx, length, max, site)?;
    Ok(if utf8 {
        quote!({
            let bytes = #raw;
            #rt::utf8(r, bytes)#q.to_owned()
        })
    } else {
        quote!(#raw.to_vec())
    })
}

#[cfg(test)]
mod tests {
    use super::quantizer_name;

    #[test]
    fn quantizers_are_named_after_their_parameters() {
        assert_eq!(
            quantizer_name(-10000.0, 10000.0, 0.01, true, true),
            "FIXED_POINT_0_01_ON_MINUS_10000_TO_10000"
        );
        assert_eq!(
            quantizer_name(0.0, 1.0, 0.5, false, false),
            "FIXED_POINT_0_5_ON_0_TO_1_OPEN_MIN_OPEN_MAX"
        );
        // The separators keep (1.5, 2) and (1, 5.2) apart.
        assert_ne!(
            quantizer_name(1.5, 2.0, 0.1, true, true),
            quantizer_name(1.0, 5.2, 0.1, true, true)
        );
        // A long name becomes a hash of the parameters: still an identifier, still distinct.
        let long = quantizer_name(0.0, 1e300, 0.1 + 0.2, true, true);
        assert!(
            long.starts_with("FIXED_POINT_") && long.len() == 28,
            "{long}"
        );
        assert!(long.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        assert_ne!(long, quantizer_name(0.0, 1e300, 0.1 + 0.2, true, false));
    }
}
