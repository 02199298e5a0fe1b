//! Reading a [`Value`] with the runtime calls generated decoders make (codegen/rules.rs and
//! codegen/codec.rs), rule by rule, from the IR: same checks, same errors, same allocation
//! bounds (every count is checked against the bits left by the runtime before anything is
//! reserved).

use std::collections::HashMap;

use idlc_runtime::{self as rt, DecodeErrorKind as RtKind, WireRead};
use indexmap::IndexMap;

use super::encode::{native_bool_bits, vlq_mode};
use super::explain::Entry;
use super::value::brief_as_read;
use super::{Context, DecodeError, DecodeErrorKind, MAX_DEPTH, Value, default_value};
use crate::ir::cost::min_bits;
use crate::ir::plan::{Carries, ExtensionStep, Step, StructPlan};
use crate::ir::{Type, WireRule, is_default_length, length_type};

type Read<T> = Result<T, rt::DecodeError>;

/// Reads an integer with `$read` (a runtime helper generic over the Rust integer type `$t`):
/// as `u64` when the range reaches above `i64::MAX`, else as `i64`, which holds every other IDL
/// integer. The helpers check the IDL range themselves; the choice changes nothing else.
macro_rules! read_int {
    ($max:expr, $t:ident => $read:expr) => {
        if $max > i128::from(i64::MAX) {
            #[allow(dead_code)]
            type $t = u64;
            $read.map(|v: $t| Value::Int(v.into()))
        } else {
            #[allow(dead_code)]
            type $t = i64;
            $read.map(|v: $t| Value::Int(v.into()))
        }
    };
}

/// One decoding run: the context, the path of the field being read, the trace for `explain`.
pub(super) struct Decoder<'c, 'a, 't> {
    pub(super) ctx: &'c Context<'a>,
    /// Where every read is recorded, for `explain`.
    pub(super) trace: Option<&'t mut Vec<Entry>>,
    /// The path of the field being read, one part per level (`Character`, `.x`, `[2]`).
    pub(super) path: Vec<String>,
    /// How many structs are being read, one inside the other: a chain of structs deeper than
    /// [`MAX_DEPTH`] is refused, as the encoder refuses it, before it exhausts the stack.
    depth: u32,
    failure: Option<String>,
}

impl<'c, 'a, 't> Decoder<'c, 'a, 't> {
    pub(super) fn new(ctx: &'c Context<'a>, trace: Option<&'t mut Vec<Entry>>) -> Self {
        Decoder {
            ctx,
            trace,
            path: Vec::new(),
            depth: 0,
            failure: None,
        }
    }

    /// Reads the struct `name` in its top-level form (`decode_from`).
    pub(super) fn top<'d, R: WireRead<'d>>(
        mut self,
        r: &mut R,
        name: &str,
    ) -> Result<Value, DecodeError> {
        self.path.push(name.to_string());
        match self.struct_value(r, name, false) {
            Ok(value) => Ok(value),
            Err(error) => Err(self.into_error(error)),
        }
    }

    /// The error to report for `error`, at the first failure's path (recorded in the trace).
    pub(super) fn into_error(mut self, mut error: rt::DecodeError) -> DecodeError {
        let path = self.failure.take().unwrap_or_else(|| self.path.concat());
        // The runtime's error names the field too, as generated code's does.
        error.field = error.field.or_else(|| Some(path.as_str().into()));
        if let Some(trace) = self.trace.as_deref_mut() {
            trace.push(Entry::failure(&path, error.clone()));
        }
        DecodeError {
            path,
            kind: DecodeErrorKind::Wire(error),
        }
    }

    /// Records where the first (innermost) error happened.
    pub(super) fn wire<T>(&mut self, result: Read<T>) -> Read<T> {
        if result.is_err() && self.failure.is_none() {
            self.failure = Some(self.path.concat());
        }
        result
    }

    /// Records a read of the bits `start..end` in the trace, at the current path + `suffix`.
    pub(super) fn note(&mut self, suffix: &str, start: u64, end: u64, value: String) {
        self.note_raw(suffix, start, end, value, false);
    }

    fn note_raw(&mut self, suffix: &str, start: u64, end: u64, value: String, bytes: bool) {
        let at = self.trace_len();
        self.note_at(at, suffix, start, end, value, bytes);
    }

    /// How many entries the trace holds (0 without a trace).
    pub(super) fn trace_len(&self) -> usize {
        self.trace.as_deref().map_or(0, Vec::len)
    }

    /// Records a read in the trace at position `at` (before what was read after it).
    pub(super) fn note_at(
        &mut self,
        at: usize,
        suffix: &str,
        start: u64,
        end: u64,
        value: String,
        bytes: bool,
    ) {
        if let Some(trace) = self.trace.as_deref_mut() {
            trace.insert(
                at.min(trace.len()),
                Entry {
                    path: format!("{}{suffix}", self.path.concat()),
                    start,
                    end,
                    value,
                    error: None,
                    bytes,
                },
            );
        }
    }

    fn struct_value<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        name: &str,
        nested: bool,
    ) -> Read<Value> {
        let Some((def, plan)) = self.ctx.layout(name) else {
            return self.wire(Err(r.error(RtKind::InvalidArgument)));
        };
        if self.depth >= MAX_DEPTH {
            return self.wire(Err(r.error(RtKind::TooDeep)));
        }
        let recursive = plan.recursive;
        if recursive {
            let entered = r.enter();
            self.wire(entered)?;
        }
        let mut fields = HashMap::new();
        self.depth += 1;
        let read = if nested && plan.nested_form {
            self.nested_form(r, plan, &mut fields)
        } else {
            self.top_level_form(r, plan, &mut fields)
        };
        self.depth -= 1;
        read?;
        if recursive {
            r.leave();
        }
        // Declaration order; what was not sent takes its DEFAULT.
        let mut out = IndexMap::new();
        for field in def.fields() {
            let value = fields
                .remove(field.name.as_str())
                .unwrap_or_else(|| default_value(self.ctx.ir, &field.ty, field.default.as_ref()));
            out.insert(field.name.clone(), value);
        }
        Ok(Value::Struct(out))
    }

    fn top_level_form<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        plan: &'a StructPlan,
        fields: &mut HashMap<&'a str, Value>,
    ) -> Read<()> {
        let mut present = true;
        for index in 0..plan.segments.len() {
            if index > 0 && present {
                let start = r.bits_read();
                let read = r.read_fence_present();
                present = self.wire(read)?;
                let end = r.bits_read();
                self.note(
                    &format!(" (segment {index})"),
                    start,
                    end,
                    present_label(present, start == end),
                );
            }
            self.segment(r, plan, index, present, fields)?;
        }
        Ok(())
    }

    fn nested_form<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        plan: &'a StructPlan,
        fields: &mut HashMap<&'a str, Value>,
    ) -> Read<()> {
        if plan.segments.len() <= 1 {
            self.top_level_form(r, plan, fields)?;
            return self.skip_extension(r, " (open end)");
        }
        self.segment(r, plan, 0, true, fields)?;
        let mut present = true;
        let mut outers = Vec::new();
        for index in 1..plan.segments.len() {
            let extension = if present {
                let start = r.bits_read();
                let entered = r.enter_extension();
                let extension = self.wire(entered)?;
                let end = r.bits_read();
                let label = match extension {
                    Some(_) => format!("extension of {} bits", r.bits_remaining()),
                    None => present_label(false, start == end),
                };
                self.note(&format!(" (segment {index})"), start, end, label);
                extension
            } else {
                None
            };
            present = extension.is_some();
            outers.push(extension);
            self.segment(r, plan, index, present, fields)?;
        }
        if plan.open_end && present {
            self.skip_extension(r, " (open end)")?;
        }
        for outer in outers.into_iter().rev().flatten() {
            r.leave_extension(outer);
        }
        Ok(())
    }

    fn skip_extension<'d, R: WireRead<'d>>(&mut self, r: &mut R, suffix: &str) -> Read<()> {
        let start = r.bits_read();
        let skipped = rt::skip_extension(r);
        self.wire(skipped)?;
        let end = r.bits_read();
        let presence = u64::from(native_bool_bits(self.ctx.encoding.style));
        let label = if end.saturating_sub(start) > presence {
            "extension skipped".to_string()
        } else {
            present_label(false, start == end)
        };
        self.note(suffix, start, end, label);
        Ok(())
    }

    /// Reads the steps of segment `index`'s full form. Generated code reads a field of segment 0
    /// unconditionally, a later one (and an ALIGN, CHECK or extension) only when its segment is
    /// present.
    fn segment<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        plan: &'a StructPlan,
        index: usize,
        present: bool,
        fields: &mut HashMap<&'a str, Value>,
    ) -> Read<()> {
        let sent = index == 0 || present;
        for step in plan.segments.get(index).map_or(&[][..], Vec::as_slice) {
            match step {
                Step::Field(field) if sent => {
                    let value = self.field(r, plan, &field.field, &field.rule)?;
                    fields.insert(&field.field, value);
                }
                Step::Packed { bits, fields: run } if sent => {
                    if let Some(first) = run.first() {
                        self.run_check(r, *bits, &first.field)?;
                    }
                    for field in run {
                        let value = self.field(r, plan, &field.field, &field.rule)?;
                        fields.insert(&field.field, value);
                    }
                }
                Step::Extension(extension) if present => self.extend(r, plan, extension, fields)?,
                Step::Align if sent => {
                    let start = r.bits_read();
                    self.path.push(" (ALIGN)".to_string());
                    let read = r.align();
                    self.wire(read)?;
                    self.path.pop();
                    let end = r.bits_read();
                    if end > start {
                        self.note(" (ALIGN)", start, end, "padding".to_string());
                    }
                }
                Step::Check if sent => {
                    let start = r.bits_read();
                    self.path.push(" (CHECK)".to_string());
                    let read = r.read_check();
                    self.wire(read)?;
                    self.path.pop();
                    self.note(" (CHECK)", start, r.bits_read(), "0x1D1CC0DE".to_string());
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Generated code reads a packed run of fixed-width fields as one word: too few bits for
    /// the whole run is UnexpectedEnd before any of its fields is checked.
    fn run_check<'d, R: WireRead<'d>>(&mut self, r: &R, bits: u32, first: &str) -> Read<()> {
        if r.bits_remaining() < u64::from(bits) {
            self.path.push(format!(".{first}"));
            return self.wire(Err(r.error(RtKind::UnexpectedEnd)));
        }
        Ok(())
    }

    /// Reads a field's old slot (the type it was declared with).
    pub(super) fn field<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        plan: &StructPlan,
        name: &str,
        rule: &WireRule,
    ) -> Read<Value> {
        self.path.push(format!(".{name}"));
        let Some(field) = plan.field(name) else {
            return self.wire(Err(r.error(RtKind::InvalidArgument)));
        };
        // The old slot's type; an enum's enumerators are looked up in the type the field has
        // now (it begins with the old one's), as generated code's `from_index` does.
        let value = self.rule(r, rule, field.read_as())?;
        self.path.pop();
        Ok(value)
    }

    /// Reads the extension of a widened field in segment `segment`, joining it to the old slot
    /// read into `fields`.
    pub(super) fn extend<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        plan: &StructPlan,
        step: &ExtensionStep,
        fields: &mut HashMap<&'a str, Value>,
    ) -> Read<()> {
        let name = &step.field;
        self.path.push(format!(".{name}"));
        let (Some(field), Some((key, _))) = (plan.field(name), fields.get_key_value(name.as_str()))
        else {
            return self.wire(Err(r.error(RtKind::InvalidArgument)));
        };
        let key: &'a str = key;
        match &step.carries {
            Carries::HighBits { low, width } => {
                let start = r.bits_read();
                let read = r.read_bits(*width);
                let high = self.wire(read)?;
                let base = match fields.get(key) {
                    Some(Value::Int(v)) => u64::try_from(*v).unwrap_or(0),
                    _ => 0,
                };
                let joined = rt::with_bit_slice(r, base, high, *low);
                let joined = self.wire(joined)?;
                self.note(
                    " (extension, high bits)",
                    start,
                    r.bits_read(),
                    format!("{high} → {joined}"),
                );
                fields.insert(key, Value::Int(joined.into()));
            }
            Carries::Whole { rule, .. } => {
                let ty = match (&step.to, field.current()) {
                    (Type::Enum(_), current @ Type::Enum(_)) => current,
                    (to, _) => to,
                };
                let value = self.rule(r, rule, ty)?;
                fields.insert(key, value);
            }
        }
        self.path.pop();
        Ok(())
    }

    /// Reads a value of IDL type `ty` written with `rule`, as codegen/rules.rs `decode` does.
    pub(super) fn rule<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        rule: &WireRule,
        ty: &Type,
    ) -> Read<Value> {
        let start = r.bits_read();
        let value = match rule {
            WireRule::Bool { bits } if *bits != native_bool_bits(self.ctx.encoding.style) => {
                rt::read_wide_bool(r, *bits).map(Value::Bool)
            }
            WireRule::Bool { .. } => r.read_bool().map(Value::Bool),
            WireRule::Ranged { min, max, bits } => {
                if matches!(ty, Type::Enum(_)) {
                    match rt::read_ranged::<_, u64>(r, *min, *max, *bits) {
                        Ok(index) => self.enumerator(r, ty, index),
                        Err(e) => Err(e),
                    }
                } else {
                    read_int!(*max, T => rt::read_ranged::<_, T>(r, *min, *max, *bits))
                }
            }
            WireRule::Fixed { bits, signed } => {
                let (min, max) = ty.int_range().unwrap_or((0, 0));
                read_int!(max, T => rt::read_fixed::<_, T>(r, min, max, *bits, *signed))
            }
            WireRule::Vlq {
                group_bits,
                mapping,
                max_groups,
                min,
                max,
            } => {
                let mode = vlq_mode(*mapping);
                if matches!(ty, Type::Enum(_)) {
                    match rt::read_vlq_int::<_, u64>(r, mode, *min, *max, *group_bits, *max_groups)
                    {
                        Ok(index) => self.enumerator(r, ty, index),
                        Err(e) => Err(e),
                    }
                } else {
                    read_int!(*max, T => rt::read_vlq_int::<_, T>(
                        r, mode, *min, *max, *group_bits, *max_groups
                    ))
                }
            }
            WireRule::EnumIndex { count, bits } => match rt::read_enum(r, u64::from(*count), *bits)
            {
                Ok(index) => self.enumerator(r, ty, index),
                Err(e) => Err(e),
            },
            WireRule::Huffman { codes } => match rt::read_huffman(r, codes) {
                Ok(index) => self.enumerator(r, ty, index),
                Err(e) => Err(e),
            },
            WireRule::FixedPoint { .. } => match rule.fixed_point() {
                Some(fp) => r.read_dequantized(&fp).map(Value::Float),
                None => Err(r.error(RtKind::InvalidArgument)),
            },
            WireRule::Quaternion => rt::read_quaternion_f32(r).map(|q| super::quat::value_of(&q)),
            WireRule::SmallestThree { bits } => rt::SmallestThree::new(*bits)
                .read(r)
                .map(|q| super::quat::value_of(&q)),
            WireRule::Float32 | WireRule::Float64 => {
                let raw = if matches!(rule, WireRule::Float32) {
                    r.read_f32().map(Value::Float32)
                } else {
                    r.read_f64().map(Value::Float)
                };
                match (raw, ty) {
                    (
                        Ok(Value::Float32(raw)),
                        Type::Numeric {
                            min,
                            max,
                            min_inclusive,
                            max_inclusive,
                        },
                    ) => rt::float32_real(r, raw, *min, *max, *min_inclusive, *max_inclusive)
                        .map(Value::Float),
                    (
                        Ok(Value::Float(raw)),
                        Type::Numeric {
                            min,
                            max,
                            min_inclusive,
                            max_inclusive,
                        },
                    ) => rt::numeric_in_range(r, raw, *min, *max, *min_inclusive, *max_inclusive)
                        .map(Value::Float),
                    (raw, _) => raw,
                }
            }
            WireRule::Bytes { length, utf8, max } => {
                let raw = if is_default_length(length, *max) {
                    r.read_bytes(*max)
                } else {
                    match self.length(r, length, *max) {
                        Ok(len) => rt::read_aligned_bytes(r, len),
                        Err(e) => return Err(e),
                    }
                };
                match raw {
                    Ok(bytes) if *utf8 => rt::utf8(r, bytes).map(|s| Value::Str(s.to_string())),
                    Ok(bytes) => Ok(Value::Bytes(bytes.to_vec())),
                    Err(e) => Err(e),
                }
            }
            WireRule::Sequence {
                count,
                max,
                element,
                ..
            } => {
                let Type::Sequence {
                    element: element_ty,
                    ..
                } = ty
                else {
                    return self.wire(Err(r.error(RtKind::InvalidArgument)));
                };
                let n = self.length(r, count, *max)?;
                self.note(" (count)", start, r.bits_read(), n.to_string());
                let min = min_bits(self.ctx.ir, self.ctx.encoding, element);
                if let WireRule::Bool { bits } = element.as_ref() {
                    if *bits == native_bool_bits(self.ctx.encoding.style) {
                        // Generated code reads a SEQUENCE of plain BOOLs as one run.
                        let bools = rt::read_bool_elements::<_, Vec<bool>>(r, n, min);
                        let bools = self.wire(bools)?;
                        return Ok(Value::List(bools.into_iter().map(Value::Bool).collect()));
                    }
                }
                let mut index = 0u64;
                let items = rt::read_elements::<_, Vec<Value>, _>(r, n, *max, min, |r| {
                    self.path.push(format!("[{index}]"));
                    index += 1;
                    let item = self.rule(r, element, element_ty)?;
                    self.path.pop();
                    Ok(item)
                });
                return self.wire(items).map(Value::List);
            }
            WireRule::Array { element, len } => {
                let Type::Array {
                    element: element_ty,
                    ..
                } = ty
                else {
                    return self.wire(Err(r.error(RtKind::InvalidArgument)));
                };
                let min = min_bits(self.ctx.ir, self.ctx.encoding, element);
                // As `read_array`: every element must fit the bits left before any is read.
                let fits = len
                    .checked_mul(min)
                    .is_some_and(|need| need <= r.bits_remaining());
                let capacity = usize::try_from(*len).ok().filter(|_| fits);
                let Some(capacity) = capacity else {
                    let error = rt::DecodeError::new(RtKind::UnexpectedEnd, start);
                    return self.wire(Err(error));
                };
                // Zero-size elements: their number is the schema's, not the input's.
                let mut items = Vec::with_capacity(capacity.min(1 << 16));
                for index in 0..*len {
                    self.path.push(format!("[{index}]"));
                    items.push(self.rule(r, element, element_ty)?);
                    self.path.pop();
                }
                return Ok(Value::List(items));
            }
            WireRule::Optional(inner) => {
                let Type::Optional(inner_ty) = ty else {
                    return self.wire(Err(r.error(RtKind::InvalidArgument)));
                };
                let read = r.read_presence();
                let present = self.wire(read)?;
                self.note(" (present)", start, r.bits_read(), present.to_string());
                return match (present, inner_ty.as_ref()) {
                    (false, _) => Ok(Value::Null),
                    // `Some(None)` of an OPTIONAL<OPTIONAL<T>> is `[null]`, not `null`.
                    (true, Type::Optional(_)) => {
                        Ok(Value::List(vec![self.rule(r, inner, inner_ty)?]))
                    }
                    (true, _) => self.rule(r, inner, inner_ty),
                };
            }
            WireRule::Struct(name) => return self.struct_value(r, name, true),
        };
        let value = self.wire(value)?;
        let end = r.bits_read();
        let bytes = matches!(value, Value::Str(_) | Value::Bytes(_));
        self.note_raw("", start, end, brief_as_read(rule, &value), bytes);
        Ok(value)
    }

    /// The enumerator at `index` of the enum `ty`, or BadEnumerator (`enumerator(r, None)`).
    fn enumerator<'d, R: WireRead<'d>>(&self, r: &R, ty: &Type, index: u64) -> Read<Value> {
        let name = match ty {
            Type::Enum(name) => self
                .ctx
                .ir
                .schema
                .enums
                .get(name)
                .and_then(|e| e.enumerators.get(usize::try_from(index).ok()?))
                .map(|e| e.name.clone()),
            _ => None,
        };
        rt::enumerator(r, name).map(Value::Enum)
    }

    /// A length or count, as codegen/rules.rs `decode_length` reads it.
    pub(super) fn length<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        rule: &WireRule,
        max: Option<u64>,
    ) -> Read<u64> {
        if is_default_length(rule, max) {
            return r.read_length(max);
        }
        if let (WireRule::Ranged { min: 0, bits, .. }, Some(bound)) = (rule, max) {
            return rt::read_bounded_length(r, bound, *bits);
        }
        let start = r.bits_read();
        // The length is part of its string's, bytes' or sequence's line, not a line of its own.
        let lines = self.trace_len();
        let length = self.rule(r, rule, &length_type(max));
        if let (Ok(_), Some(trace)) = (&length, self.trace.as_deref_mut()) {
            trace.truncate(lines);
        }
        match length? {
            Value::Int(v) => {
                u64::try_from(v).map_err(|_| rt::DecodeError::new(RtKind::ValueOutOfRange, start))
            }
            _ => Err(rt::DecodeError::new(RtKind::InvalidArgument, start)),
        }
    }
}

fn present_label(present: bool, at_end: bool) -> String {
    match (present, at_end) {
        (true, _) => "present".to_string(),
        (false, true) => "absent (end of input)".to_string(),
        (false, false) => "absent".to_string(),
    }
}
