//! Writing a [`Value`] with the runtime calls generated encoders make (codegen/rules.rs and
//! codegen/codec.rs), rule by rule, from the IR.

use std::borrow::Cow;

use idlc_runtime::{self as rt, EncodeErrorKind as RtKind, VlqMode, WireWrite};

use super::{Context, EncodeError, EncodeErrorKind, MAX_DEPTH, Value, shape_offset};
use crate::ir::plan::{Carries, ExtensionStep, FieldPlan, FieldStep, Narrowing, Step, StructPlan};
use crate::ir::{StructDef, Type, VlqMapping, WireRule, is_default_length, length_type};

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

type Done = Result<(), rt::EncodeError>;

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
    ) -> Done {
        let Some((def, plan)) = self.ctx.layout(name) else {
            return self.shape(w, format!("internal: no layout of `{name}`"));
        };
        if self.depth >= MAX_DEPTH {
            return self.shape(w, format!("nested deeper than {MAX_DEPTH} levels"));
        }
        self.fields_of(w, def, value)?;
        self.depth += 1;
        let result = if nested && plan.nested_form {
            self.nested_form(w, plan, value)
        } else {
            self.top_level_form(w, plan, value)
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
        plan: &StructPlan,
        value: &Value,
    ) -> Done {
        for index in 0..plan.segments.len() {
            if index > 0 {
                let written = w.write_presence(true);
                self.wire(written)?;
            }
            self.segment(w, plan, index, value)?;
        }
        if plan.open_end {
            let written = w.write_presence(false);
            self.wire(written)?;
        }
        Ok(())
    }

    /// Segment 0, then each later segment in an open extension nested in the previous one's.
    fn nested_form<W: WireWrite>(&mut self, w: &mut W, plan: &StructPlan, value: &Value) -> Done {
        if plan.segments.len() <= 1 {
            return self.top_level_form(w, plan, value);
        }
        self.segment(w, plan, 0, value)?;
        self.extension(w, plan, 1, value)
    }

    fn extension<W: WireWrite>(
        &mut self,
        w: &mut W,
        plan: &StructPlan,
        index: usize,
        value: &Value,
    ) -> Done {
        let written = w.write_extension(|w| {
            self.segment(w, plan, index, value)?;
            if index + 1 < plan.segments.len() {
                self.extension(w, plan, index + 1, value)
            } else if plan.open_end {
                let written = w.write_presence(false);
                self.wire(written)
            } else {
                Ok(())
            }
        });
        self.wire(written)
    }

    /// The steps of one segment's full form.
    fn segment<W: WireWrite>(
        &mut self,
        w: &mut W,
        plan: &StructPlan,
        index: usize,
        value: &Value,
    ) -> Done {
        let Value::Struct(fields) = value else {
            return self.shape(w, "expected an object".to_string());
        };
        for step in plan.segments.get(index).map_or(&[][..], Vec::as_slice) {
            match step {
                Step::Field(field) => self.field(w, plan, field, fields.get(&field.field))?,
                Step::Packed { fields: run, .. } => {
                    for field in run {
                        self.field(w, plan, field, fields.get(&field.field))?;
                    }
                }
                Step::Extension(extension) => {
                    self.extend(w, plan, extension, fields.get(&extension.field))?
                }
                Step::Align => {
                    let written = w.align();
                    self.wire(written)?;
                }
                Step::Check => {
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
        plan: &StructPlan,
        step: &FieldStep,
        value: Option<&Value>,
    ) -> Done {
        let name = &step.field;
        self.path.push(format!(".{name}"));
        let result = match (plan.field(name), value) {
            (Some(field), Some(value)) => {
                match self.narrowed(w, field, value, step.narrowing.as_ref()) {
                    Ok(narrowed) => self.rule(w, &step.rule, &field.ty, &narrowed),
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

    /// The extension of an EXTENDed field.
    pub(super) fn extend<W: WireWrite>(
        &mut self,
        w: &mut W,
        plan: &StructPlan,
        step: &ExtensionStep,
        value: Option<&Value>,
    ) -> Done {
        let name = &step.field;
        self.path.push(format!(".{name}"));
        let (Some(field), Some(value)) = (plan.field(name), value) else {
            return self.shape(w, format!("missing field `{name}`"));
        };
        match &step.carries {
            Carries::HighBits { low, width } => {
                let v = match value {
                    Value::Int(v) => u64::try_from(*v).ok().filter(|v| {
                        // The value must fit the widest type it has.
                        field
                            .current()
                            .int_range()
                            .is_some_and(|(min, max)| (min..=max).contains(&i128::from(*v)))
                    }),
                    _ => None,
                };
                let Some(v) = v else {
                    let error = rt::EncodeError::new(RtKind::ValueOutOfRange, w.bits_written());
                    return self.wire(Err(error));
                };
                let written = w.write_bits(rt::bit_slice(v, *low, *width), *width);
                self.wire(written)?;
            }
            Carries::Whole { rule, narrowing } => {
                let narrowed = self.narrowed(w, field, value, narrowing.as_ref())?;
                self.rule(w, rule, &step.to, &narrowed)?;
            }
        }
        self.path.pop();
        Ok(())
    }

    /// The value a slot carries when the field has been widened since, as the plan's
    /// `narrowing` says (WIRE.md "EXTEND"): the low bits of an unsigned widening, else the
    /// value saturated into the old range (past an open end, the nearest value inside), an
    /// enumerator's index saturated into the old count, a text, byte string or sequence cut to
    /// the old bound.
    fn narrowed<'v, W: WireWrite>(
        &mut self,
        w: &W,
        field: &FieldPlan,
        value: &'v Value,
        narrowing: Option<&Narrowing>,
    ) -> Result<Cow<'v, Value>, rt::EncodeError> {
        let Some(narrowing) = narrowing else {
            return Ok(Cow::Borrowed(value));
        };
        Ok(match (narrowing, value) {
            (Narrowing::LowBits { bits }, Value::Int(v)) => match u64::try_from(*v) {
                Ok(v) => Cow::Owned(Value::Int(rt::low_bits(v, *bits).into())),
                Err(_) => {
                    let error = rt::EncodeError::new(RtKind::ValueOutOfRange, w.bits_written());
                    return self.wire(Err(error));
                }
            },
            (Narrowing::LowBits { .. }, _) => {
                return self.shape(w, "expected an integer".to_string());
            }
            (Narrowing::SaturateInt { min, max }, Value::Int(v)) => {
                Cow::Owned(Value::Int(rt::saturate(*v, *min, *max)))
            }
            (Narrowing::SaturateEnum { count, .. }, Value::Enum(name) | Value::Str(name)) => {
                let current = field.current();
                let index = self.enum_index(w, current, name)?;
                let last = usize::try_from(*count).unwrap_or(usize::MAX).max(1) - 1;
                let index = usize::try_from(index).unwrap_or(usize::MAX).min(last);
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
                Narrowing::SaturateReal {
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
            (Narrowing::TruncateString { max }, Value::Str(s)) => {
                Cow::Owned(Value::Str(rt::truncate_utf8(s, *max).to_string()))
            }
            (Narrowing::TruncateBytes { max }, Value::Bytes(_) | Value::List(_)) => {
                let bytes = self.bytes(w, value)?;
                Cow::Owned(Value::Bytes(rt::truncated_bytes(&bytes, *max)))
            }
            (Narrowing::TruncateSequence { max }, Value::List(items)) => {
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
    ) -> Done {
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
            WireRule::FixedPoint { .. } => {
                let v = self.real(w, value)?;
                let Some(fp) = rule.fixed_point() else {
                    return self.shape(w, "internal: invalid FIXED_POINT parameters".to_string());
                };
                let written = w.write_quantized(&fp, v);
                self.wire(written)
            }
            WireRule::Quaternion | WireRule::SmallestThree { .. } => {
                let q = match super::quat::quaternion_of(value) {
                    Ok(q) => q,
                    Err(message) => return self.shape(w, message),
                };
                let written = match rule {
                    WireRule::SmallestThree { bits } => rt::SmallestThree::new(*bits).write(w, &q),
                    _ => rt::write_quaternion_f32(w, &q),
                };
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
    ) -> Done {
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
    ) -> Done {
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
