//! Writing a [`Value`] with the runtime calls generated encoders make (codegen/rules.rs and
//! codegen/codec.rs), rule by rule, from the IR.

use std::borrow::Cow;

use idlc_runtime::{self as rt, EncodeErrorKind as RtKind, FixedPoint, VlqMode, WireWrite};

use super::{
    Context, EncodeError, EncodeErrorKind, FieldView, Value, shape_offset, split_widening,
};
use crate::ir::{
    StructDef, StructEncoding, Type, VlqMapping, WireItem, WireRule, is_default_length,
};

/// How deep a value may nest before the encoder refuses it (the decoder's limit is the
/// runtime's, for recursive structs only; a value given to the encoder is bounded here).
const MAX_ENCODE_DEPTH: u32 = 256;

/// Evaluates `$body` with `$x` bound to `$v` as the Rust integer the runtime helpers take
/// (`i64`, or `u64` above `i64::MAX`): the helpers only look at the value, so the choice changes
/// nothing on the wire. A value neither holds is out of every IDL range.
macro_rules! by_int {
    ($w:expr, $v:expr, $x:ident => $body:expr) => {
        match i64::try_from($v) {
            Ok($x) => $body,
            Err(_) => match u64::try_from($v) {
                Ok($x) => $body,
                Err(_) => Err($w.error(RtKind::ValueOutOfRange)),
            },
        }
    };
}

type Step = Result<(), rt::EncodeError>;

const NESTED_OPTIONAL: &str = "expected null or a one-element array (an OPTIONAL of an OPTIONAL)";

/// One encoding run: the context, the path of the field being written, the first failure.
pub(super) struct Encoder<'c, 'a> {
    pub(super) ctx: &'c Context<'a>,
    /// The path of the field being written, one part per level (`Character`, `.x`, `[2]`).
    pub(super) path: Vec<String>,
    /// The first failure recorded (the innermost): its path and kind.
    pub(super) failure: Option<(String, EncodeErrorKind)>,
    /// How deep the struct being written nests.
    pub(super) depth: u32,
}

impl<'c, 'a> Encoder<'c, 'a> {
    pub(super) fn new(ctx: &'c Context<'a>) -> Self {
        Encoder {
            ctx,
            path: Vec::new(),
            failure: None,
            depth: 0,
        }
    }

    /// Writes `value` as the struct `name` in its top-level form (`encode_to`).
    pub(super) fn top<W: WireWrite>(
        mut self,
        w: &mut W,
        name: &str,
        value: &Value,
    ) -> Result<(), EncodeError> {
        self.path.push(name.to_string());
        match self.struct_value(w, name, value, false) {
            Ok(()) => Ok(()),
            Err(error) => Err(self.into_error(error)),
        }
    }

    /// The error to report for `error`: the first failure recorded, else `error` at the
    /// current path.
    pub(super) fn into_error(self, error: rt::EncodeError) -> EncodeError {
        let (path, kind) = self
            .failure
            .unwrap_or_else(|| (self.path.concat(), EncodeErrorKind::Wire(error)));
        let kind = match kind {
            // The runtime's error names the field too, as generated code's does.
            EncodeErrorKind::Wire(mut error) => {
                error.field = error.field.or_else(|| Some(path.as_str().into()));
                EncodeErrorKind::Wire(error)
            }
            other => other,
        };
        EncodeError { path, kind }
    }

    /// Records the runtime's error (the first one wins: it is the innermost).
    pub(super) fn wire<T>(
        &mut self,
        result: Result<T, rt::EncodeError>,
    ) -> Result<T, rt::EncodeError> {
        if let Err(error) = &result {
            if self.failure.is_none() {
                self.failure = Some((self.path.concat(), EncodeErrorKind::Wire(error.clone())));
            }
        }
        result
    }

    /// Records a value that does not fit its type.
    pub(super) fn shape<T, W: WireWrite>(
        &mut self,
        w: &W,
        message: String,
    ) -> Result<T, rt::EncodeError> {
        if self.failure.is_none() {
            self.failure = Some((self.path.concat(), EncodeErrorKind::Shape(message)));
        }
        Err(rt::EncodeError::new(
            RtKind::InvalidArgument,
            shape_offset(w),
        ))
    }

    fn struct_value<W: WireWrite>(
        &mut self,
        w: &mut W,
        name: &str,
        value: &Value,
        nested: bool,
    ) -> Step {
        let Some((def, layout)) = self.ctx.layout(name) else {
            return self.shape(w, format!("internal: no layout of `{name}`"));
        };
        if self.depth >= MAX_ENCODE_DEPTH {
            return self.shape(w, format!("nested deeper than {MAX_ENCODE_DEPTH} levels"));
        }
        self.fields_of(w, def, value)?;
        self.depth += 1;
        let result = if nested && self.ctx.nested_fenced.contains(name) {
            self.nested_form(w, def, layout, value)
        } else {
            self.top_level_form(w, def, layout, value)
        };
        self.depth -= 1;
        result
    }

    /// The fields of `value`, a value of the struct `def`: exactly its fields, or a shape error.
    pub(super) fn fields_of<'v, W: WireWrite>(
        &mut self,
        w: &W,
        def: &StructDef,
        value: &'v Value,
    ) -> Result<&'v indexmap::IndexMap<String, Value>, rt::EncodeError> {
        let name = &def.name;
        let Value::Struct(fields) = value else {
            return self.shape(w, format!("expected an object (struct `{name}`)"));
        };
        for field in def.fields() {
            if !fields.contains_key(&field.name) {
                return self.shape(w, format!("missing field `{}`", field.name));
            }
        }
        for key in fields.keys() {
            if def.field(key).is_none() {
                return self.shape(w, format!("`{name}` has no field `{key}`"));
            }
        }
        Ok(fields)
    }

    /// Every segment after a FENCE behind a present bit; the open end's 0 bit.
    fn top_level_form<W: WireWrite>(
        &mut self,
        w: &mut W,
        def: &StructDef,
        layout: &StructEncoding,
        value: &Value,
    ) -> Step {
        for index in 0..layout.segments.len() {
            if index > 0 {
                let written = w.write_presence(true);
                self.wire(written)?;
            }
            self.segment(w, def, layout, index, value)?;
        }
        if def.open_end {
            let written = w.write_presence(false);
            self.wire(written)?;
        }
        Ok(())
    }

    /// Segment 0, then each later segment in an open extension nested in the previous one's.
    fn nested_form<W: WireWrite>(
        &mut self,
        w: &mut W,
        def: &StructDef,
        layout: &StructEncoding,
        value: &Value,
    ) -> Step {
        if layout.segments.len() <= 1 {
            return self.top_level_form(w, def, layout, value);
        }
        self.segment(w, def, layout, 0, value)?;
        self.extension(w, def, layout, 1, value)
    }

    fn extension<W: WireWrite>(
        &mut self,
        w: &mut W,
        def: &StructDef,
        layout: &StructEncoding,
        index: usize,
        value: &Value,
    ) -> Step {
        let written = w.write_extension(|w| {
            self.segment(w, def, layout, index, value)?;
            if index + 1 < layout.segments.len() {
                self.extension(w, def, layout, index + 1, value)
            } else if def.open_end {
                let written = w.write_presence(false);
                self.wire(written)
            } else {
                Ok(())
            }
        });
        self.wire(written)
    }

    /// The items of one segment, DELTA and DEAD_RECKONING blocks opened (the full form).
    fn segment<W: WireWrite>(
        &mut self,
        w: &mut W,
        def: &StructDef,
        layout: &StructEncoding,
        index: usize,
        value: &Value,
    ) -> Step {
        let Some(segment) = layout.segments.get(index) else {
            return Ok(());
        };
        self.items(w, def, index, &segment.items, value)
    }

    fn items<W: WireWrite>(
        &mut self,
        w: &mut W,
        def: &StructDef,
        segment: usize,
        items: &[WireItem],
        value: &Value,
    ) -> Step {
        let Value::Struct(fields) = value else {
            return self.shape(w, "expected an object".to_string());
        };
        for item in items {
            match item {
                WireItem::Field(encoded) => self.field(
                    w,
                    def,
                    &encoded.field,
                    &encoded.rule,
                    fields.get(&encoded.field),
                )?,
                WireItem::Extend(extend) => self.extend(
                    w,
                    def,
                    segment,
                    &extend.field,
                    &extend.rule,
                    fields.get(&extend.field),
                )?,
                WireItem::DeltaBlock(inner) => self.items(w, def, segment, inner, value)?,
                WireItem::DeadReckoning(dr) => {
                    for encoded in dr.positions.iter().chain(&dr.velocities) {
                        self.field(
                            w,
                            def,
                            &encoded.field,
                            &encoded.rule,
                            fields.get(&encoded.field),
                        )?;
                    }
                }
                WireItem::Align => {
                    let written = w.align();
                    self.wire(written)?;
                }
                WireItem::Check => {
                    let written = w.write_check();
                    self.wire(written)?;
                }
            }
        }
        Ok(())
    }

    /// A field's old slot: the value narrowed to the declared type when it was widened since.
    pub(super) fn field<W: WireWrite>(
        &mut self,
        w: &mut W,
        def: &StructDef,
        name: &str,
        rule: &WireRule,
        value: Option<&Value>,
    ) -> Step {
        self.path.push(format!(".{name}"));
        let result = match (FieldView::of(def, name), value) {
            (Some(view), Some(value)) => {
                let types = view.types();
                let slot = types.first().copied().unwrap_or(&view.field.ty);
                match self.narrowed(w, &view, value, slot, types.get(1).copied()) {
                    Ok(narrowed) => self.rule(w, rule, slot, &narrowed),
                    Err(e) => Err(e),
                }
            }
            _ => self.shape(w, format!("missing field `{name}`")),
        };
        if result.is_ok() {
            self.path.pop();
        }
        result
    }

    /// The extension of an EXTENDed field in segment `segment`.
    pub(super) fn extend<W: WireWrite>(
        &mut self,
        w: &mut W,
        def: &StructDef,
        segment: usize,
        name: &str,
        rule: &WireRule,
        value: Option<&Value>,
    ) -> Step {
        self.path.push(format!(".{name}"));
        let (Some(view), Some(value)) = (FieldView::of(def, name), value) else {
            return self.shape(w, format!("missing field `{name}`"));
        };
        let found = view
            .extends
            .iter()
            .enumerate()
            .find(|(_, (s, _))| *s == segment)
            .map(|(position, (_, extend))| (position, *extend));
        let Some((position, extend)) = found else {
            return self.shape(w, format!("internal: no EXTEND of `{name}` here"));
        };
        let types = view.types();
        if let Some((old, new)) = split_widening(&extend.from, &extend.to) {
            let v = match value {
                Value::Int(v) => u64::try_from(*v).ok().filter(|v| {
                    // The value must fit the widest type it has.
                    view.current()
                        .int_range()
                        .is_some_and(|(min, max)| (min..=max).contains(&i128::from(*v)))
                }),
                _ => None,
            };
            let Some(v) = v else {
                let error = rt::EncodeError::new(RtKind::ValueOutOfRange, w.bits_written());
                return self.wire(Err(error));
            };
            let width = u32::from(new - old);
            let written = w.write_bits(rt::bit_slice(v, u32::from(old), width), width);
            self.wire(written)?;
        } else {
            let next = types.get(position + 2).copied();
            let narrowed = self.narrowed(w, &view, value, &extend.to, next)?;
            self.rule(w, rule, &extend.to, &narrowed)?;
        }
        self.path.pop();
        Ok(())
    }

    /// The value the slot of type `slot` carries when the field has been widened to `next`
    /// since (WIRE.md "EXTEND"): the low bits of an unsigned widening, else the value saturated
    /// into the old range (past an open end, the nearest value inside), an enumerator's index
    /// saturated into the old count, a text, byte string or sequence cut to the old bound.
    fn narrowed<'v, W: WireWrite>(
        &mut self,
        w: &W,
        view: &FieldView<'_>,
        value: &'v Value,
        slot: &Type,
        next: Option<&Type>,
    ) -> Result<Cow<'v, Value>, rt::EncodeError> {
        let Some(next) = next else {
            return Ok(Cow::Borrowed(value));
        };
        if let Some((bits, _)) = split_widening(slot, next) {
            return match value {
                Value::Int(v) => match u64::try_from(*v) {
                    Ok(v) => Ok(Cow::Owned(Value::Int(
                        rt::low_bits(v, u32::from(bits)).into(),
                    ))),
                    Err(_) => self.wire(Err(rt::EncodeError::new(
                        RtKind::ValueOutOfRange,
                        w.bits_written(),
                    ))),
                },
                _ => self.shape(w, "expected an integer".to_string()),
            };
        }
        if let Some((min, max)) = slot.int_range() {
            return match value {
                Value::Int(v) => Ok(Cow::Owned(Value::Int(rt::saturate(*v, min, max)))),
                _ => Ok(Cow::Borrowed(value)),
            };
        }
        Ok(match (slot, value) {
            (Type::Enum(old), Value::Enum(name) | Value::Str(name)) => {
                let current = view.current();
                let index = self.enum_index(w, current, name)?;
                let old_count = self
                    .ctx
                    .ir
                    .schema
                    .enums
                    .get(old)
                    .map_or(1, |e| e.enumerators.len().max(1));
                let index = usize::try_from(index)
                    .unwrap_or(usize::MAX)
                    .min(old_count - 1);
                let Type::Enum(current) = current else {
                    return self.shape(w, "internal: an enum widened to a non-enum".to_string());
                };
                let name = self
                    .ctx
                    .ir
                    .schema
                    .enums
                    .get(current)
                    .and_then(|e| e.enumerators.get(index))
                    .map(|e| e.name.clone())
                    .unwrap_or_default();
                Cow::Owned(Value::Enum(name))
            }
            (
                Type::Numeric {
                    min,
                    max,
                    min_inclusive,
                    max_inclusive,
                },
                _,
            ) => {
                let v = self.real(w, value)?;
                let (min, max, low, high) = (*min, *max, *min_inclusive, *max_inclusive);
                Cow::Owned(Value::Float(rt::saturate_real(v, min, max, low, high)))
            }
            (Type::String { max: Some(max) }, Value::Str(s)) => {
                Cow::Owned(Value::Str(rt::truncate_utf8(s, *max).to_string()))
            }
            (Type::Bytes { max: Some(max) }, Value::Bytes(_) | Value::List(_)) => {
                let bytes = self.bytes(w, value)?;
                Cow::Owned(Value::Bytes(rt::truncated_bytes(&bytes, *max)))
            }
            (Type::Sequence { max: Some(max), .. }, Value::List(items)) => {
                let keep = usize::try_from(*max).unwrap_or(usize::MAX);
                Cow::Owned(Value::List(items.iter().take(keep).cloned().collect()))
            }
            // FLOAT32 to FLOAT64: the old slot rounds to the nearest f32 as it writes; a value
            // of the wrong shape is reported by the rule.
            _ => Cow::Borrowed(value),
        })
    }

    fn enum_index<W: WireWrite>(
        &mut self,
        w: &W,
        ty: &Type,
        name: &str,
    ) -> Result<u64, rt::EncodeError> {
        let Type::Enum(enum_name) = ty else {
            return self.shape(w, format!("an enumerator for {}", ty.describe()));
        };
        let Some(def) = self.ctx.ir.schema.enums.get(enum_name) else {
            return self.shape(w, format!("internal: no enum `{enum_name}`"));
        };
        match def.enumerators.iter().position(|e| e.name == name) {
            Some(index) => Ok(index as u64),
            None => {
                let names: Vec<&str> = def.enumerators.iter().map(|e| e.name.as_str()).collect();
                self.shape(
                    w,
                    format!(
                        "`{name}` is not an enumerator of `{enum_name}` ({})",
                        names.join(", ")
                    ),
                )
            }
        }
    }

    /// The enumerator index of `value` (an enum field's value).
    fn index_of<W: WireWrite>(
        &mut self,
        w: &W,
        ty: &Type,
        value: &Value,
    ) -> Result<u64, rt::EncodeError> {
        match value {
            Value::Enum(name) | Value::Str(name) => self.enum_index(w, ty, name),
            _ => self.shape(w, format!("expected an enumerator of {}", ty.describe())),
        }
    }

    fn int<W: WireWrite>(&mut self, w: &W, value: &Value) -> Result<i128, rt::EncodeError> {
        match value {
            Value::Int(v) => Ok(*v),
            // 3.0 from a JSON writer that prints every number as a real.
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 => {
                Ok(*f as i128)
            }
            _ => self.shape(w, "expected an integer".to_string()),
        }
    }

    fn real<W: WireWrite>(&mut self, w: &W, value: &Value) -> Result<f64, rt::EncodeError> {
        match value {
            Value::Float(f) => Ok(*f),
            Value::Float32(f) => Ok(f64::from(*f)),
            Value::Int(v) => Ok(*v as f64),
            Value::Str(s) if s == "NaN" => Ok(f64::NAN),
            Value::Str(s) if s == "inf" => Ok(f64::INFINITY),
            Value::Str(s) if s == "-inf" => Ok(f64::NEG_INFINITY),
            _ => self.shape(w, "expected a number".to_string()),
        }
    }

    fn bytes<W: WireWrite>(&mut self, w: &W, value: &Value) -> Result<Vec<u8>, rt::EncodeError> {
        match value {
            Value::Bytes(bytes) => Ok(bytes.clone()),
            Value::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        Value::Int(b) => match u8::try_from(*b) {
                            Ok(b) => out.push(b),
                            Err(_) => return self.shape(w, format!("{b} is not a byte")),
                        },
                        _ => return self.shape(w, "expected an array of bytes".to_string()),
                    }
                }
                Ok(out)
            }
            _ => self.shape(w, "expected an array of bytes".to_string()),
        }
    }

    /// Writes `value` of IDL type `ty` with `rule`, as codegen/rules.rs `encode` does.
    pub(super) fn rule<W: WireWrite>(
        &mut self,
        w: &mut W,
        rule: &WireRule,
        ty: &Type,
        value: &Value,
    ) -> Step {
        match rule {
            WireRule::Bool { bits } => match value {
                Value::Bool(b) => {
                    // `BIT(n)` of another width than the stream's own BOOL is a ranged 0..=1.
                    let written = if *bits == native_bool_bits(self.ctx.encoding.style) {
                        w.write_bool(*b)
                    } else {
                        rt::write_wide_bool(w, *b, *bits)
                    };
                    self.wire(written)
                }
                _ => self.shape(w, "expected true or false".to_string()),
            },
            WireRule::Ranged { min, max, bits } => {
                let written = if matches!(ty, Type::Enum(_)) {
                    let index = self.index_of(w, ty, value)?;
                    rt::write_ranged(w, index, *min, *max, *bits)
                } else {
                    let v = self.int(w, value)?;
                    by_int!(w, v, x => rt::write_ranged(w, x, *min, *max, *bits))
                };
                self.wire(written)
            }
            WireRule::Fixed { bits, signed } => {
                let (min, max) = ty.int_range().unwrap_or((0, 0));
                let v = self.int(w, value)?;
                let written = by_int!(w, v, x => rt::write_fixed(w, x, min, max, *bits, *signed));
                self.wire(written)
            }
            WireRule::Vlq {
                group_bits,
                mapping,
                min,
                max,
                ..
            } => {
                let mode = vlq_mode(*mapping);
                let written = if matches!(ty, Type::Enum(_)) {
                    let index = self.index_of(w, ty, value)?;
                    rt::write_vlq_int(w, index, mode, *min, *max, *group_bits)
                } else {
                    let v = self.int(w, value)?;
                    by_int!(w, v, x => rt::write_vlq_int(w, x, mode, *min, *max, *group_bits))
                };
                self.wire(written)
            }
            WireRule::EnumIndex { count, bits } => {
                let index = self.index_of(w, ty, value)?;
                let written = rt::write_enum(w, index, u64::from(*count), *bits);
                self.wire(written)
            }
            WireRule::Huffman { codes } => {
                let index = self.index_of(w, ty, value)?;
                let written = rt::write_huffman(w, index, codes);
                self.wire(written)
            }
            WireRule::FixedPoint {
                min,
                max,
                min_inclusive,
                max_inclusive,
                resolution,
                ..
            } => {
                let v = self.real(w, value)?;
                let Some(fp) =
                    FixedPoint::with_ends(*min, *max, *resolution, *min_inclusive, *max_inclusive)
                else {
                    return self.shape(w, "internal: invalid FIXED_POINT parameters".to_string());
                };
                let written = w.write_quantized(&fp, v);
                self.wire(written)
            }
            WireRule::Float32 | WireRule::Float64 => {
                if let (WireRule::Float32, Value::Float32(raw)) = (rule, value) {
                    if !matches!(ty, Type::Numeric { .. }) {
                        // Every bit pattern as read, NaN payloads included.
                        let written = w.write_f32(*raw);
                        return self.wire(written);
                    }
                }
                let v = self.real(w, value)?;
                let single = matches!(rule, WireRule::Float32);
                let written = match ty {
                    Type::Numeric {
                        min,
                        max,
                        min_inclusive,
                        max_inclusive,
                    } => {
                        let (min, max, lo, hi) = (*min, *max, *min_inclusive, *max_inclusive);
                        if single {
                            let checked = rt::check_numeric_f32(w, v, min, max, lo, hi);
                            let checked = self.wire(checked)?;
                            w.write_f32(checked)
                        } else {
                            let checked = rt::check_numeric(w, v, min, max, lo, hi);
                            let checked = self.wire(checked)?;
                            w.write_f64(checked)
                        }
                    }
                    _ if single => w.write_f32(v as f32),
                    _ => w.write_f64(v),
                };
                self.wire(written)
            }
            WireRule::Bytes { length, utf8, max } => {
                let bytes: Cow<'_, [u8]> = if *utf8 {
                    match value {
                        Value::Str(s) => Cow::Borrowed(s.as_bytes()),
                        _ => return self.shape(w, "expected a string".to_string()),
                    }
                } else {
                    Cow::Owned(self.bytes(w, value)?)
                };
                if is_default_length(length, *max) {
                    let written = w.write_bytes(&bytes, *max);
                    return self.wire(written);
                }
                self.length(w, length, *max, bytes.len() as u64)?;
                let written = rt::write_aligned_bytes(w, &bytes);
                self.wire(written)
            }
            WireRule::Sequence {
                count,
                max,
                element,
                ..
            } => {
                let Value::List(items) = value else {
                    return self.shape(w, "expected an array".to_string());
                };
                let Type::Sequence {
                    element: element_ty,
                    ..
                } = ty
                else {
                    return self.shape(w, format!("internal: SEQUENCE rule on {}", ty.describe()));
                };
                self.length(w, count, *max, items.len() as u64)?;
                self.elements(w, element, element_ty, items)
            }
            WireRule::Array { element, len } => {
                let Value::List(items) = value else {
                    return self.shape(w, "expected an array".to_string());
                };
                let Type::Array {
                    element: element_ty,
                    ..
                } = ty
                else {
                    return self.shape(w, format!("internal: ARRAY rule on {}", ty.describe()));
                };
                if items.len() as u64 != *len {
                    return self.shape(w, format!("expected {len} elements, got {}", items.len()));
                }
                self.elements(w, element, element_ty, items)
            }
            WireRule::Optional(inner) => {
                let Type::Optional(inner_ty) = ty else {
                    return self.shape(w, format!("internal: OPTIONAL rule on {}", ty.describe()));
                };
                if *value == Value::Null {
                    let written = w.write_presence(false);
                    return self.wire(written);
                }
                // OPTIONAL<OPTIONAL<T>>: a present outer value is `[inner]`, so that
                // `Some(None)` (`[null]`) differs from `None` (`null`).
                let value = match (inner_ty.as_ref(), value) {
                    (Type::Optional(_), Value::List(items)) => match items.as_slice() {
                        [only] => only,
                        _ => return self.shape(w, NESTED_OPTIONAL.to_string()),
                    },
                    (Type::Optional(_), _) => return self.shape(w, NESTED_OPTIONAL.to_string()),
                    _ => value,
                };
                let written = w.write_presence(true);
                self.wire(written)?;
                self.rule(w, inner, inner_ty, value)
            }
            WireRule::Struct(name) => self.struct_value(w, name, value, true),
        }
    }

    fn elements<W: WireWrite>(
        &mut self,
        w: &mut W,
        rule: &WireRule,
        ty: &Type,
        items: &[Value],
    ) -> Step {
        for (index, item) in items.iter().enumerate() {
            self.path.push(format!("[{index}]"));
            self.rule(w, rule, ty, item)?;
            self.path.pop();
        }
        Ok(())
    }

    /// A length or count, as codegen/rules.rs `encode_length` writes it.
    pub(super) fn length<W: WireWrite>(
        &mut self,
        w: &mut W,
        rule: &WireRule,
        max: Option<u64>,
        count: u64,
    ) -> Step {
        if is_default_length(rule, max) {
            let written = w.write_count(count, max);
            return self.wire(written);
        }
        if let (WireRule::Ranged { min: 0, bits, .. }, Some(bound)) = (rule, max) {
            let written = rt::write_bounded_length(w, count, bound, *bits);
            return self.wire(written);
        }
        self.rule(w, rule, &length_type(max), &Value::Int(count.into()))
    }
}

/// The bits of a BOOL as `write_bool` / `read_bool` send it: 1, or a byte in a BYTESTREAM.
pub(super) fn native_bool_bits(style: crate::ir::Style) -> u32 {
    match style {
        crate::ir::Style::Bitstream => 1,
        crate::ir::Style::Bytestream => 8,
    }
}

pub(super) fn vlq_mode(mapping: VlqMapping) -> VlqMode {
    match mapping {
        VlqMapping::Plain => VlqMode::Plain,
        VlqMapping::ZigZag => VlqMode::ZigZag,
        VlqMapping::Offset => VlqMode::Offset,
    }
}

/// The IDL type of a length or count bounded by `max`.
pub(super) fn length_type(max: Option<u64>) -> Type {
    Type::IntRange {
        min: 0,
        max: max.map_or(i128::from(u64::MAX), i128::from),
    }
}
