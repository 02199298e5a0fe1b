//! DELTA and DEAD_RECKONING: a PUBLISHABLE_STRUCT written and read against a baseline, as the
//! generated `encode_delta` / `decode_delta` do (codegen/delta.rs and codegen/mirror.rs;
//! WIRE_FORMAT.md section 5; docs/REPLICATION.md).
//!
//! The encoder walks the wire items of each segment in order. Before an item it decides what the
//! item's changed-bits will say, writing nothing (the plan): every field's value *as sent* (the
//! candidate, what the receiver will hold), compared with the baseline's; a dead-reckoning block
//! compares the true positions with the extrapolation. Then it writes the item and builds the
//! mirror, the state the receiver reconstructs. The decoder reads the same bits and builds the
//! same state. Both share the "not sent" branch ([`unsent`]): a field keeps the baseline's
//! value, a dead-reckoning position is extrapolated from the baseline's steps with the runtime's
//! `DeadReckoningAxis`. A `DELTA SEQUENCE` goes through the runtime's `write_delta_sequence` /
//! `read_delta_sequence` (count, index gaps, listed elements), a PUBLISHABLE_STRUCT element
//! delta-coded against the baseline's element at its index.
//!
//! "As sent" is computed by writing the value with the full-form encoder into a scratch buffer
//! and reading it back: exactly what the receiver gets, in the form the decoder gives it.
//! Values as sent are compared as generated code compares them ([`same_sent`]): a raw float
//! (FLOAT32, FLOAT64) by the bits it is sent as (-0.0 is not +0.0, a NaN is the NaN of the same
//! bits), anything else by value whatever its JSON form ([`same`]).

use std::collections::HashMap;

use idlc_runtime::{
    self as rt, BitReader, BitWriter, ByteReader, ByteWriter, DeadReckoningAxis, DeltaContext,
    WireRead, WireWrite,
};
use indexmap::IndexMap;

use super::decode::Decoder;
use super::diff::{diff_of, reference, step_of, value_of};
use super::encode::Encoder;
use super::explain::Entry;
use super::quat;
use super::value::number;
use super::{
    Context, DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, MAX_DEPTH, Value,
};
use crate::ir::cost::min_bits;
use crate::ir::plan::{DeltaStep, FieldPlan, FieldStep, StructPlan, dead_reckoning_fields};
use crate::ir::{Ir, StructDef, StructKind, Style, Type, WireRule};

/// Encodes `value`, a PUBLISHABLE_STRUCT `type_name`, as a delta against `baseline` (the state
/// the receiver holds) in the encoding `encoding`, `elapsed` seconds after the baseline (for
/// dead reckoning): what generated `to_delta_bytes_with` / `encode_delta` write. Returns the
/// bytes and the **mirror**, the state the receiver reconstructs from them: the next baseline.
///
/// The baseline must be a valid value of the type (it is checked by encoding it in full);
/// an error there has a path ending in ` (baseline)`.
pub fn encode_delta(
    ir: &Ir,
    encoding: &str,
    type_name: &str,
    value: &Value,
    baseline: &Value,
    elapsed: f64,
) -> Result<(Vec<u8>, Value), EncodeError> {
    encode_delta_with(ir, encoding, type_name, value, baseline, elapsed, None)
}

/// A field with DIFF as [`encode_delta_sampled`] saw it: the difference of steps it sent (or
/// escaped) and what the value costs in full, the two things its tiers' cost depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffSample {
    /// The struct the field is of (a `DELTA SEQUENCE` element's own type for its fields).
    pub structure: String,
    /// The field's IDL name.
    pub field: String,
    /// The difference of steps to the reference (the shortest way around on a range that
    /// wraps), as the encoder computes it.
    pub difference: i128,
    /// The bits of the value written by its own rule (what the escape's selector precedes).
    pub full_bits: u64,
}

/// [`encode_delta`], also returning a [`DiffSample`] for every field with DIFF the delta sends:
/// what `idlc measure --delta --suggest` searches tiers with.
///
/// # Errors
/// As [`encode_delta`].
pub fn encode_delta_sampled(
    ir: &Ir,
    encoding: &str,
    type_name: &str,
    value: &Value,
    baseline: &Value,
    elapsed: f64,
) -> Result<(Vec<u8>, Value, Vec<DiffSample>), EncodeError> {
    let mut samples = Vec::new();
    let (bytes, mirror) = encode_delta_with(
        ir,
        encoding,
        type_name,
        value,
        baseline,
        elapsed,
        Some(&mut samples),
    )?;
    Ok((bytes, mirror, samples))
}

fn encode_delta_with(
    ir: &Ir,
    encoding: &str,
    type_name: &str,
    value: &Value,
    baseline: &Value,
    elapsed: f64,
    samples: Option<&mut Vec<DiffSample>>,
) -> Result<(Vec<u8>, Value), EncodeError> {
    let ctx = delta_context(ir, encoding, type_name).map_err(|message| EncodeError {
        path: type_name.to_string(),
        kind: EncodeErrorKind::Schema(message),
    })?;
    super::encode(ir, encoding, type_name, baseline).map_err(|e| EncodeError {
        path: format!("{} (baseline)", e.path),
        kind: e.kind,
    })?;
    let dctx = DeltaContext::new(elapsed);
    match ctx.encoding.style {
        Style::Bitstream => {
            let mut w = BitWriter::new();
            let mirror =
                DeltaEncoder::new(&ctx, dctx, samples).top(&mut w, type_name, value, baseline)?;
            Ok((w.into_bytes(), mirror))
        }
        Style::Bytestream => {
            let mut w = ByteWriter::new();
            let mirror =
                DeltaEncoder::new(&ctx, dctx, samples).top(&mut w, type_name, value, baseline)?;
            Ok((w.into_bytes(), mirror))
        }
    }
}

/// Decodes a delta of the PUBLISHABLE_STRUCT `type_name` against `baseline`, `elapsed` seconds
/// after it: what generated `from_delta_bytes_with` / `decode_delta` read. Returns the state
/// the receiver reconstructs (equal to the sender's mirror).
pub fn decode_delta(
    ir: &Ir,
    encoding: &str,
    type_name: &str,
    bytes: &[u8],
    baseline: &Value,
    elapsed: f64,
) -> Result<Value, DecodeError> {
    decode_delta_traced(ir, encoding, type_name, bytes, baseline, elapsed, None)
}

/// [`decode_delta`], recording every field and changed-bit read into `trace` (for
/// `idlc decode --baseline --format explain` and `idlc measure --delta`).
pub fn decode_delta_traced(
    ir: &Ir,
    encoding: &str,
    type_name: &str,
    bytes: &[u8],
    baseline: &Value,
    elapsed: f64,
    trace: Option<&mut Vec<Entry>>,
) -> Result<Value, DecodeError> {
    let schema_error = |message: String| DecodeError {
        path: type_name.to_string(),
        kind: DecodeErrorKind::Schema(message),
    };
    let ctx = delta_context(ir, encoding, type_name).map_err(schema_error)?;
    if let Err(e) = super::encode(ir, encoding, type_name, baseline) {
        return Err(schema_error(format!(
            "the baseline is not a valid `{type_name}` in `{encoding}`: {e}"
        )));
    }
    let dctx = DeltaContext::new(elapsed);
    match ctx.encoding.style {
        Style::Bitstream => {
            let mut r = BitReader::new(bytes);
            DeltaDecoder::new(&ctx, dctx, trace).top(&mut r, type_name, baseline)
        }
        Style::Bytestream => {
            let mut r = ByteReader::new(bytes);
            DeltaDecoder::new(&ctx, dctx, trace).top(&mut r, type_name, baseline)
        }
    }
}

/// The context of an encoding, for a type that has a delta form.
fn delta_context<'a>(ir: &'a Ir, encoding: &str, type_name: &str) -> Result<Context<'a>, String> {
    let ctx = Context::new(ir, encoding, type_name)?;
    match ir.schema.structs.get(type_name).map(|s| s.kind) {
        Some(StructKind::Publishable) => Ok(ctx),
        _ => Err(format!(
            "`{type_name}` is not a PUBLISHABLE_STRUCT: it has no delta form"
        )),
    }
}

/// Whether two values of one type are equal as generated code compares Rust values that hold
/// no raw float (`==`): numbers by value whatever their form (`3` and `3.0`, an f32 and its
/// f64), a NaN equal to nothing; enumerators by name; byte strings by content; lists and
/// structs element by element. Values as sent compare through [`same_sent`].
pub(super) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float32(x), Value::Float32(y)) => x == y,
        (Value::Str(x) | Value::Enum(x), Value::Str(y) | Value::Enum(y)) => x == y,
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::Bytes(x), Value::List(y)) | (Value::List(y), Value::Bytes(x)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(x, y)| matches!(y, Value::Int(y) if *y == i128::from(*x)))
        }
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Struct(x), Value::Struct(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(name, x)| y.get(name).is_some_and(|y| same(x, y)))
        }
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// The bits a number is sent as in a FLOAT32 (those of its `f32`), whatever its form.
fn f32_bits(value: &Value) -> Option<u32> {
    match value {
        Value::Float32(v) => Some(v.to_bits()),
        other => number(other).map(|v| (v as f32).to_bits()),
    }
}

/// Whether `a`, as the receiver holds it once sent with `rule` (a value of type `ty`), is the
/// same as `b` (a baseline's value, or another sent one), as generated code compares them
/// (codegen/mirror.rs
/// `same_sent`): a raw float by the bits it is sent as, so -0.0 is not +0.0 and a NaN is the NaN
/// of the same bits; a FIXED_POINT step `a` equal to `b` or to the step `b` is sent as (`b` is
/// the baseline's, which may lie off the steps); a SMALLEST_THREE rotation equal to `b` or to
/// what `b` is sent as; lists, OPTIONALs and structs part by part; anything else with
/// [`same`].
fn same_sent(ctx: &Context<'_>, rule: &WireRule, ty: &Type, a: &Value, b: &Value) -> bool {
    let parts = |element: &Type| match (a, b) {
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(x, y)| same_sent(ctx, inner_rule(rule), element, x, y))
        }
        _ => same(a, b),
    };
    match (rule, ty) {
        // The baseline's value as held, or off the steps and sent as the same step.
        (WireRule::FixedPoint { .. }, _) => {
            same(a, b)
                || match (rule.fixed_point(), number(a), number(b)) {
                    (Some(fp), Some(x), Some(y)) => {
                        fp.quantize(x).is_ok_and(|step| fp.sends_as(y, step))
                    }
                    _ => false,
                }
        }
        // The baseline's rotation as held, or one not as sent that is sent with the same code.
        (WireRule::SmallestThree { bits }, _) => {
            same(a, b)
                || match (quat::quaternion_of(a), quat::quaternion_of(b)) {
                    (Ok(x), Ok(y)) => rt::SmallestThree::new(*bits).sends_as(&y, &x),
                    _ => false,
                }
        }
        (WireRule::Float32, _) => match (f32_bits(a), f32_bits(b)) {
            (Some(x), Some(y)) => x == y,
            _ => same(a, b),
        },
        (WireRule::Float64, _) => match (number(a), number(b)) {
            (Some(x), Some(y)) => x.to_bits() == y.to_bits(),
            _ => same(a, b),
        },
        // Four raw FLOAT32s: by their bits, as generated code compares `to_array`'s.
        (WireRule::Quaternion, _) => match (a, b) {
            (Value::Struct(x), Value::Struct(y)) => {
                x.len() == y.len()
                    && x.iter().all(|(axis, x)| {
                        y.get(axis)
                            .is_some_and(|y| f32_bits(x).is_some() && f32_bits(x) == f32_bits(y))
                    })
            }
            _ => same(a, b),
        },
        (WireRule::Sequence { .. }, Type::Sequence { element, .. })
        | (WireRule::Array { .. }, Type::Array { element, .. }) => parts(element),
        (WireRule::Optional(inner), Type::Optional(inner_ty)) => match (a, b) {
            (Value::Null, Value::Null) => true,
            (Value::Null, _) | (_, Value::Null) => false,
            _ => same_sent(ctx, inner, inner_ty, a, b),
        },
        (WireRule::Struct(name), _) => match (a, b, ctx.plan.structs.get(name)) {
            (Value::Struct(x), Value::Struct(y), Some(plan)) => {
                x.len() == y.len()
                    && x.iter().all(|(name, x)| {
                        let field = plan.fields.iter().find(|f| f.name == *name);
                        match (y.get(name), field) {
                            (Some(y), Some(field)) => same_field(ctx, field, x, y),
                            (Some(y), None) => same(x, y),
                            (None, _) => false,
                        }
                    })
            }
            _ => same(a, b),
        },
        _ => same(a, b),
    }
}

/// The element rule of a SEQUENCE or ARRAY rule (the rule itself for any other).
fn inner_rule(rule: &WireRule) -> &WireRule {
    match rule {
        WireRule::Sequence { element, .. } | WireRule::Array { element, .. } => element,
        other => other,
    }
}

/// [`same_sent`] of a field's values: one sent with the rule of its slot, or a widened one
/// (EXTEND), which holds its value as it is, a real compared by its bits (its extension sends
/// it whole).
fn same_field(ctx: &Context<'_>, field: &FieldPlan, a: &Value, b: &Value) -> bool {
    if field.extends.is_empty() {
        return match &field.rule {
            Some(rule) => same_sent(ctx, rule, &field.ty, a, b),
            None => same(a, b),
        };
    }
    match (field.current(), number(a), number(b)) {
        (Type::Float32 | Type::Float64 | Type::Numeric { .. }, Some(x), Some(y)) => {
            x.to_bits() == y.to_bits()
        }
        _ => same(a, b),
    }
}

/// A sequence element (the runtime's delta-sequence code takes a collection of them).
#[derive(Debug, Clone)]
struct Item(Value);

/// The index of `item` in `items` (by address, as generated code's `at_item` finds it).
fn index_of(items: &[Item], item: &Item) -> usize {
    items
        .iter()
        .position(|candidate| std::ptr::eq(candidate, item))
        .unwrap_or(0)
}

/// Why a value cannot be sent: the path below the value, and the kind.
type SentError = (String, EncodeErrorKind);

/// The value the receiver holds once `value` is sent with `rule` (generated `Codec::sent` and
/// `sent_value`): the value written into a scratch buffer and read back. A rule that keeps
/// every value (no FIXED_POINT, no FLOAT32 inside) keeps `value` as it is when it cannot be
/// written, as generated code does (the write reports it, when the field is written).
fn sent_value(
    ctx: &Context<'_>,
    rule: &WireRule,
    ty: &Type,
    value: &Value,
) -> Result<Value, SentError> {
    let result = match ctx.encoding.style {
        Style::Bitstream => {
            let mut w = BitWriter::new();
            written(ctx, &mut w, rule, ty, value)
                .and_then(|()| read_back(ctx, &mut BitReader::new(&w.into_bytes()), rule, ty))
        }
        Style::Bytestream => {
            let mut w = ByteWriter::new();
            written(ctx, &mut w, rule, ty, value)
                .and_then(|()| read_back(ctx, &mut ByteReader::new(&w.into_bytes()), rule, ty))
        }
    };
    match result {
        Err(_) if keeps_every_value(ctx, rule, &mut Vec::new()) => Ok(value.clone()),
        other => other,
    }
}

fn written<W: WireWrite>(
    ctx: &Context<'_>,
    w: &mut W,
    rule: &WireRule,
    ty: &Type,
    value: &Value,
) -> Result<(), SentError> {
    let mut encoder = Encoder::new(ctx);
    match encoder.rule(w, rule, ty, value) {
        Ok(()) => Ok(()),
        Err(error) => {
            let error = encoder.into_error(error);
            Err((error.path, error.kind))
        }
    }
}

fn read_back<'d, R: WireRead<'d>>(
    ctx: &Context<'_>,
    r: &mut R,
    rule: &WireRule,
    ty: &Type,
) -> Result<Value, SentError> {
    Decoder::new(ctx, None).rule(r, rule, ty).map_err(|e| {
        let message = format!("internal: the value does not read back ({})", e.kind);
        (String::new(), EncodeErrorKind::Shape(message))
    })
}

/// Whether every value survives `rule` exactly (codegen/mirror.rs `is_lossless`, on the IDL:
/// FLOAT32 counts as lossy).
fn keeps_every_value<'a>(ctx: &Context<'a>, rule: &'a WireRule, seen: &mut Vec<&'a str>) -> bool {
    match rule {
        WireRule::FixedPoint { .. }
        | WireRule::Float32
        | WireRule::Quaternion
        | WireRule::SmallestThree { .. } => false,
        WireRule::Sequence { element, .. } | WireRule::Array { element, .. } => {
            keeps_every_value(ctx, element, seen)
        }
        WireRule::Optional(inner) => keeps_every_value(ctx, inner, seen),
        WireRule::Struct(name) => {
            if seen.contains(&name.as_str()) {
                return true;
            }
            seen.push(name);
            let Some(plan) = ctx.plan.structs.get(name) else {
                return false;
            };
            plan.rules()
                .map(|(_, rule)| rule)
                .all(|rule| keeps_every_value(ctx, rule, seen))
        }
        _ => true,
    }
}

/// The fields of one struct as the receiver holds them, while they are written or read.
#[derive(Default)]
struct Fields<'a> {
    /// Each field's value: sent, read, kept from the baseline or extrapolated.
    values: HashMap<&'a str, Value>,
    /// Whether a field's old slot was sent (then its EXTEND's extension follows).
    sent: HashMap<&'a str, bool>,
}

impl<'a> Fields<'a> {
    /// A field that was not sent: the baseline's value.
    fn keep(&mut self, name: &'a str, baseline: &IndexMap<String, Value>) {
        let value = baseline.get(name).cloned().unwrap_or(Value::Null);
        self.values.insert(name, value);
        self.sent.insert(name, false);
    }

    /// A field that was sent (or read), with the value the receiver holds.
    fn sent(&mut self, name: &'a str, value: Value) {
        self.values.insert(name, value);
        self.sent.insert(name, true);
    }

    fn was_sent(&self, name: &str) -> bool {
        self.sent.get(name).copied().unwrap_or(false)
    }

    /// The struct's value, its fields in declaration order (any not assigned: the baseline's).
    fn into_value(mut self, def: &StructDef, baseline: &IndexMap<String, Value>) -> Value {
        let mut out = IndexMap::new();
        for field in def.fields() {
            let value = self
                .values
                .remove(field.name.as_str())
                .or_else(|| baseline.get(&field.name).cloned())
                .unwrap_or(Value::Null);
            out.insert(field.name.clone(), value);
        }
        Value::Struct(out)
    }
}

/// The items that were not sent, on both sides: fields keep the baseline's values, positions
/// of a dead-reckoning block are extrapolated (velocities kept).
fn unsent<'a>(
    items: &'a [DeltaStep],
    baseline: &IndexMap<String, Value>,
    dctx: &DeltaContext,
    fields: &mut Fields<'a>,
) -> Result<(), String> {
    for item in items {
        match item {
            DeltaStep::Field(encoded)
            | DeltaStep::Changed(encoded)
            | DeltaStep::Sequence { field: encoded, .. } => fields.keep(&encoded.field, baseline),
            DeltaStep::Block(inner) => unsent(inner, baseline, dctx, fields)?,
            DeltaStep::DeadReckoning { axes, .. } => {
                for (position, velocity) in axes {
                    let predicted = predict(position, velocity, baseline, dctx)?;
                    fields
                        .values
                        .insert(&position.field, Value::Float(predicted));
                }
                for (_, velocity) in axes {
                    fields.keep(&velocity.field, baseline);
                }
            }
            DeltaStep::Extension(_) | DeltaStep::Align | DeltaStep::Check => {}
        }
    }
    Ok(())
}

/// A dead-reckoned field without a (valid) FIXED_POINT: resolve refuses it.
const NOT_FIXED_POINT: &str = "internal: a dead-reckoned field without FIXED_POINT";

/// The extrapolated position of one axis, from the baseline's position and velocity
/// (`DeadReckoningAxis::predict_from`, as generated code calls it).
fn predict(
    position: &FieldStep,
    velocity: &FieldStep,
    baseline: &IndexMap<String, Value>,
    dctx: &DeltaContext,
) -> Result<f64, String> {
    let axis = DeadReckoningAxis::new(
        position.rule.fixed_point().ok_or(NOT_FIXED_POINT)?,
        velocity.rule.fixed_point().ok_or(NOT_FIXED_POINT)?,
    );
    let base = |name: &str| {
        baseline
            .get(name)
            .and_then(number)
            .ok_or_else(|| format!("the baseline's `{name}` is not a number"))
    };
    Ok(axis.predict_from(base(&position.field)?, base(&velocity.field)?, dctx))
}

/// What the encoder decided for one step: what its changed-bits say.
enum Decision {
    /// Written in full whenever its block is (a field without DELTA, an EXTEND, ALIGN, CHECK).
    Plain,
    /// A DELTA field or a dead-reckoning block, with what its changed-bit says.
    Bit(bool),
    /// A `DELTA { ... }` block: its changed-bit and the plans of its items.
    Block(bool, Vec<Decision>),
    /// A `DELTA SEQUENCE`: the runtime decides and writes its changed-bit.
    Sequence,
}

type Step<T> = Result<T, rt::EncodeError>;

/// One delta encoding run: the full-form encoder (for the writes, the path, the first failure)
/// and the context.
struct DeltaEncoder<'c, 'a, 's> {
    enc: Encoder<'c, 'a>,
    dctx: DeltaContext,
    samples: Option<&'s mut Vec<DiffSample>>,
}

/// The encoder's state of one struct: the candidates (values as sent) and the mirror.
#[derive(Default)]
struct Written<'a> {
    candidates: HashMap<&'a str, Value>,
    mirror: Fields<'a>,
}

/// A struct's value and its baseline's, by field.
struct Pair<'v> {
    now: &'v IndexMap<String, Value>,
    base: &'v IndexMap<String, Value>,
}

impl<'c, 'a, 's> DeltaEncoder<'c, 'a, 's> {
    fn new(
        ctx: &'c Context<'a>,
        dctx: DeltaContext,
        samples: Option<&'s mut Vec<DiffSample>>,
    ) -> Self {
        DeltaEncoder {
            enc: Encoder::new(ctx),
            dctx,
            samples,
        }
    }

    fn top<W: WireWrite>(
        mut self,
        w: &mut W,
        name: &str,
        value: &Value,
        baseline: &Value,
    ) -> Result<Value, EncodeError> {
        self.enc.path.push(name.to_string());
        match self.delta_struct(w, name, value, baseline, false) {
            Ok(mirror) => Ok(mirror),
            Err(error) => Err(self.enc.into_error(error)),
        }
    }

    /// Records a failure at `offset` (path: the current one + `suffix`); the runtime's error.
    fn fail_at(&mut self, offset: u64, suffix: &str, kind: EncodeErrorKind) -> rt::EncodeError {
        let (kind, error) = match kind {
            EncodeErrorKind::Wire(e) => {
                let e = e.at_bit(offset);
                (EncodeErrorKind::Wire(e.clone()), e)
            }
            other => (
                other,
                rt::EncodeError::new(rt::EncodeErrorKind::InvalidArgument, offset),
            ),
        };
        if self.enc.failure.is_none() {
            self.enc.failure = Some((format!("{}{suffix}", self.enc.path.concat()), kind));
        }
        error
    }

    /// `encode_delta_to` of the struct `name` (`encode_delta_nested_to` when `nested`, an element
    /// of a `DELTA SEQUENCE`): every segment, each item planned then written; the open end's 0
    /// bit. Returns the mirror.
    fn delta_struct<W: WireWrite>(
        &mut self,
        w: &mut W,
        name: &str,
        value: &Value,
        baseline: &Value,
        nested: bool,
    ) -> Step<Value> {
        let ctx = self.enc.ctx;
        let Some((def, plan)) = ctx.layout(name) else {
            return self
                .enc
                .shape(w, format!("internal: no layout of `{name}`"));
        };
        if self.enc.depth >= MAX_DEPTH {
            return self
                .enc
                .shape(w, format!("nested deeper than {MAX_DEPTH} levels"));
        }
        let now = self.enc.fields_of(w, def, value)?;
        let base = self.enc.fields_of(w, def, baseline)?;
        let pair = Pair { now, base };
        self.enc.depth += 1;
        let mut state = Written::default();
        self.segments(w, plan, 0, &pair, &mut state, nested)?;
        self.enc.depth -= 1;
        Ok(state.mirror.into_value(def, pair.base))
    }

    /// Segment `index`, then each later one: behind a present bit (the top-level form) or in
    /// an extension nested in the previous one's (the nested form); then the open end's 0 bit.
    fn segments<W: WireWrite>(
        &mut self,
        w: &mut W,
        plan: &'a StructPlan,
        index: usize,
        pair: &Pair<'_>,
        state: &mut Written<'a>,
        nested: bool,
    ) -> Step<()> {
        let delta = plan.delta.as_deref().unwrap_or_default();
        for item in delta.get(index).map_or(&[][..], Vec::as_slice) {
            let (decision, _) = self.decide(w, plan, item, pair, &mut state.candidates, false)?;
            self.write_item(w, plan, item, &decision, pair, state)?;
        }
        let next = index + 1;
        if next < delta.len() {
            if nested {
                let written =
                    w.write_extension(|w| self.segments(w, plan, next, pair, state, nested));
                return self.enc.wire(written);
            }
            let written = w.write_presence(true);
            self.enc.wire(written)?;
            return self.segments(w, plan, next, pair, state, nested);
        }
        if plan.open_end {
            let written = w.write_presence(false);
            self.enc.wire(written)?;
        }
        Ok(())
    }

    /// The decision of one step, and whether it differs from the baseline (for a block around
    /// it). Computes every field's candidate; a value that cannot be sent fails here, at the
    /// bit before the step.
    fn decide<W: WireWrite>(
        &mut self,
        w: &W,
        plan: &'a StructPlan,
        item: &'a DeltaStep,
        pair: &Pair<'_>,
        candidates: &mut HashMap<&'a str, Value>,
        in_block: bool,
    ) -> Step<(Decision, bool)> {
        Ok(match item {
            DeltaStep::Sequence { field: encoded, .. } => {
                // Only a block around it needs to know whether it changed.
                let differs = in_block && {
                    let sent = self.sent_field(w, plan, encoded, pair.now)?;
                    self.differs(plan, encoded, &sent, pair.base)
                };
                (Decision::Sequence, differs)
            }
            DeltaStep::Changed(encoded) | DeltaStep::Field(encoded) => {
                let sent = self.sent_field(w, plan, encoded, pair.now)?;
                let differs = self.differs(plan, encoded, &sent, pair.base);
                candidates.insert(&encoded.field, sent);
                if matches!(item, DeltaStep::Changed(_)) {
                    (Decision::Bit(differs), differs)
                } else {
                    (Decision::Plain, differs)
                }
            }
            DeltaStep::Block(inner) => {
                let mut decisions = Vec::with_capacity(inner.len());
                let mut any = false;
                for item in inner {
                    let (decision, differs) = self.decide(w, plan, item, pair, candidates, true)?;
                    any |= differs;
                    decisions.push(decision);
                }
                (Decision::Block(any, decisions), any)
            }
            DeltaStep::DeadReckoning { limit, axes } => {
                let send = self.decide_dead_reckoning(w, plan, *limit, axes, pair, candidates)?;
                (Decision::Bit(send), send)
            }
            DeltaStep::Extension(_) | DeltaStep::Align | DeltaStep::Check => {
                (Decision::Plain, false)
            }
        })
    }

    /// Whether a field's value as sent differs from the baseline's, compared as sent
    /// ([`same_field`]).
    fn differs(
        &self,
        plan: &StructPlan,
        encoded: &FieldStep,
        sent: &Value,
        base: &IndexMap<String, Value>,
    ) -> bool {
        let name = &encoded.field;
        let Some(b) = base.get(name) else {
            return true;
        };
        match plan.fields.iter().find(|f| f.name == *name) {
            Some(field) => !same_field(self.enc.ctx, field, sent, b),
            None => !same(sent, b),
        }
    }

    /// The candidates of a dead-reckoning block's fields, and whether some true position is
    /// more than the limit from the extrapolation.
    fn decide_dead_reckoning<W: WireWrite>(
        &mut self,
        w: &W,
        plan: &'a StructPlan,
        limit: f64,
        axes: &'a [(FieldStep, FieldStep)],
        pair: &Pair<'_>,
        candidates: &mut HashMap<&'a str, Value>,
    ) -> Step<bool> {
        for encoded in dead_reckoning_fields(axes).map(|(field, _)| field) {
            let sent = self.sent_field(w, plan, encoded, pair.now)?;
            candidates.insert(&encoded.field, sent);
        }
        let mut send = false;
        for (position, velocity) in axes {
            let actual = pair.now.get(&position.field).and_then(number);
            let predicted = predict(position, velocity, pair.base, &self.dctx);
            let (Some(actual), Ok(predicted)) = (actual, predicted) else {
                let message = format!("`{}`: expected a number", position.field);
                return self.enc.shape(w, message);
            };
            send |= rt::exceeds_deviation(actual, predicted, limit);
        }
        Ok(send)
    }

    /// The candidate of a field: its value as sent (a widened field's as it is). Its error is
    /// at the bit before the item.
    fn sent_field<W: WireWrite>(
        &mut self,
        w: &W,
        plan: &StructPlan,
        encoded: &FieldStep,
        now: &IndexMap<String, Value>,
    ) -> Step<Value> {
        let name = &encoded.field;
        let (Some(value), Some(field)) = (now.get(name), plan.field(name)) else {
            return self.enc.shape(w, format!("missing field `{name}`"));
        };
        if !field.extends.is_empty() {
            return Ok(value.clone());
        }
        sent_value(self.enc.ctx, &encoded.rule, &field.ty, value)
            .map_err(|(path, kind)| self.fail_at(w.bits_written(), &format!(".{name}{path}"), kind))
    }

    /// The writes of one item as planned, building the mirror.
    fn write_item<W: WireWrite>(
        &mut self,
        w: &mut W,
        plan: &'a StructPlan,
        item: &'a DeltaStep,
        decision: &Decision,
        pair: &Pair<'_>,
        state: &mut Written<'a>,
    ) -> Step<()> {
        match (item, decision) {
            (DeltaStep::Sequence { field, element }, Decision::Sequence) => {
                let mirror = self.delta_sequence(w, plan, field, element.as_deref(), pair)?;
                state.mirror.sent(&field.field, mirror);
            }
            (DeltaStep::Changed(encoded), Decision::Bit(send)) => {
                self.changed_bit(w, *send)?;
                if *send {
                    self.send(w, plan, encoded, None, pair, state)?;
                } else {
                    state.mirror.keep(&encoded.field, pair.base);
                }
            }
            (DeltaStep::Field(encoded), _) => self.send(w, plan, encoded, None, pair, state)?,
            (DeltaStep::Block(inner), Decision::Block(send, decisions)) => {
                self.changed_bit(w, *send)?;
                if *send {
                    for (item, decision) in inner.iter().zip(decisions) {
                        self.write_item(w, plan, item, decision, pair, state)?;
                    }
                } else {
                    self.unsent(w, inner, pair, &mut state.mirror)?;
                }
            }
            (DeltaStep::DeadReckoning { axes, .. }, Decision::Bit(send)) => {
                self.changed_bit(w, *send)?;
                if *send {
                    for (encoded, velocity) in dead_reckoning_fields(axes) {
                        self.send(w, plan, encoded, velocity, pair, state)?;
                    }
                } else {
                    self.unsent(w, std::slice::from_ref(item), pair, &mut state.mirror)?;
                }
            }
            (DeltaStep::Extension(extension), _) => {
                if state.mirror.was_sent(&extension.field) {
                    let value = pair.now.get(&extension.field);
                    self.enc.extend(w, plan, extension, value)?;
                }
            }
            (DeltaStep::Align, _) => {
                let written = w.align();
                self.enc.wire(written)?;
            }
            (DeltaStep::Check, _) => {
                let written = w.write_check();
                self.enc.wire(written)?;
            }
            _ => {
                return self
                    .enc
                    .shape(w, "internal: delta plan out of step".to_string());
            }
        }
        Ok(())
    }

    fn changed_bit<W: WireWrite>(&mut self, w: &mut W, send: bool) -> Step<()> {
        let written = w.write_bool(send);
        self.enc.wire(written)
    }

    /// Writes a field (with its DIFF, else in full; `velocity` is a dead-reckoning position's);
    /// its candidate becomes the mirror's.
    fn send<W: WireWrite>(
        &mut self,
        w: &mut W,
        plan: &StructPlan,
        encoded: &'a FieldStep,
        velocity: Option<&FieldStep>,
        pair: &Pair<'_>,
        state: &mut Written<'a>,
    ) -> Step<()> {
        let name = encoded.field.as_str();
        let value = pair.now.get(name);
        let candidate = state.candidates.remove(name);
        if !self.send_diff(w, plan, encoded, velocity, pair, candidate.as_ref())? {
            self.enc.field(w, plan, encoded, value)?;
        }
        let mirror = match candidate {
            Some(candidate) => candidate,
            None => value.cloned().unwrap_or(Value::Null),
        };
        state.mirror.sent(name, mirror);
        Ok(())
    }

    /// A DIFF field's tier and difference to its reference (`true`), or its escape (`false`:
    /// the full write follows). A field without DIFF, or whose value is not one of its steps
    /// (its full write gives the error), writes nothing here.
    fn send_diff<W: WireWrite>(
        &mut self,
        w: &mut W,
        plan: &StructPlan,
        encoded: &FieldStep,
        velocity: Option<&FieldStep>,
        pair: &Pair<'_>,
        candidate: Option<&Value>,
    ) -> Step<bool> {
        let Some(diff) = &encoded.diff else {
            return Ok(false);
        };
        if let WireRule::SmallestThree { bits } = encoded.rule {
            let now = candidate.or_else(|| pair.now.get(&encoded.field));
            let base = pair.base.get(&encoded.field);
            let Some(now) = now else {
                return self
                    .enc
                    .shape(w, format!("no value of `{}`", encoded.field));
            };
            self.enc.path.push(format!(".{}", encoded.field));
            let written = match super::quat::write_diff(w, bits, &diff.tiers, now, base) {
                Ok(written) => written,
                Err(message) => return self.enc.shape(w, message),
            };
            self.enc.wire(written)?;
            self.enc.path.pop();
            return Ok(true);
        }
        let (Some(field), Some(candidate)) = (plan.field(&encoded.field), candidate) else {
            let message = format!("internal: no candidate of `{}`", encoded.field);
            return self.enc.shape(w, message);
        };
        let ctx = self.enc.ctx;
        let now = match step_of(ctx, encoded, &field.ty, candidate) {
            Ok(Some(now)) => now,
            Ok(None) => return Ok(false),
            Err(message) => return self.enc.shape(w, message),
        };
        let Some(reference) = reference(ctx, encoded, &field.ty, velocity, pair.base, &self.dctx)
        else {
            let message = format!("the baseline's `{}`: not a value for DIFF", encoded.field);
            return self.enc.shape(w, message);
        };
        if self.samples.is_some() {
            let difference = diff_of(diff).difference(now, reference);
            let value = pair.now.get(&encoded.field);
            let full_bits = self.full_bits(W::BYTE_STREAM, plan, encoded, value);
            if let Some(samples) = self.samples.as_deref_mut() {
                samples.push(DiffSample {
                    structure: plan.name.clone(),
                    field: encoded.field.clone(),
                    difference,
                    full_bits,
                });
            }
        }
        self.enc.path.push(format!(".{}", encoded.field));
        let written = diff_of(diff).write(w, now, reference);
        let carried = self.enc.wire(written)?;
        self.enc.path.pop();
        Ok(carried)
    }

    /// The bits of a field's value written by its own rule, in a scratch writer of the stream's
    /// kind (the value was written as its candidate already: it cannot fail here).
    fn full_bits(
        &mut self,
        byte_stream: bool,
        plan: &StructPlan,
        encoded: &FieldStep,
        value: Option<&Value>,
    ) -> u64 {
        if byte_stream {
            let mut scratch = ByteWriter::new();
            let _ = self.enc.field(&mut scratch, plan, encoded, value);
            scratch.bits_written()
        } else {
            let mut scratch = BitWriter::new();
            let _ = self.enc.field(&mut scratch, plan, encoded, value);
            scratch.bits_written()
        }
    }

    fn unsent<W: WireWrite>(
        &mut self,
        w: &W,
        items: &'a [DeltaStep],
        pair: &Pair<'_>,
        mirror: &mut Fields<'a>,
    ) -> Step<()> {
        match unsent(items, pair.base, &self.dctx, mirror) {
            Ok(()) => Ok(()),
            Err(message) => self.enc.shape(w, message),
        }
    }

    /// A `DELTA SEQUENCE` through the runtime's `write_delta_sequence`: its count with the
    /// field's length rule, a listed element delta-coded against the baseline's element when
    /// it is a PUBLISHABLE_STRUCT, else in full. Returns the receiver's sequence.
    fn delta_sequence<W: WireWrite>(
        &mut self,
        w: &mut W,
        plan: &StructPlan,
        encoded: &FieldStep,
        publishable: Option<&str>,
        pair: &Pair<'_>,
    ) -> Step<Value> {
        let ctx = self.enc.ctx;
        let name = &encoded.field;
        let (
            WireRule::Sequence {
                count,
                max,
                element,
                ..
            },
            Some(Type::Sequence {
                element: element_ty,
                ..
            }),
        ) = (&encoded.rule, plan.field(name).map(|f| &f.ty))
        else {
            return self
                .enc
                .shape(w, format!("internal: `{name}` is no sequence"));
        };
        self.enc.path.push(format!(".{name}"));
        let (Some(Value::List(now)), Some(Value::List(base))) =
            (pair.now.get(name), pair.base.get(name))
        else {
            return self.enc.shape(w, "expected an array".to_string());
        };
        let now: Vec<Item> = now.iter().cloned().map(Item).collect();
        let base: Vec<Item> = base.iter().cloned().map(Item).collect();
        let start = w.bits_written();
        let mut sent_failure = None;
        let mut sent_index = 0usize;
        let result = rt::write_delta_sequence(
            w,
            &base,
            &now,
            |w, n| Encoder::new(ctx).length(w, count, *max, n),
            |item, base_item| {
                let index = sent_index;
                sent_index += 1;
                sent_value(ctx, element, element_ty, &item.0)
                    .map(|sent| same_sent(ctx, element, element_ty, &sent, &base_item.0))
                    .map_err(|(path, kind)| {
                        let error = match &kind {
                            EncodeErrorKind::Wire(e) => e.clone().at_bit(start),
                            _ => rt::EncodeError::new(rt::EncodeErrorKind::InvalidArgument, start),
                        };
                        sent_failure = Some((format!("[{index}]{path}"), kind));
                        error
                    })
            },
            |w, item, base_item| {
                let index = index_of(&now, item);
                self.element(w, index, element, element_ty, publishable, item, base_item)
            },
        );
        match result {
            Ok(mirror) => {
                self.enc.path.pop();
                Ok(Value::List(mirror.into_iter().map(|item| item.0).collect()))
            }
            Err(error) => Err(match sent_failure {
                Some((path, kind)) => self.fail_at(start, &path, kind),
                None => match self.enc.wire(Err(error)) {
                    Err(error) => error,
                    Ok(()) => rt::EncodeError::new(rt::EncodeErrorKind::InvalidArgument, start),
                },
            }),
        }
    }

    /// One listed element of a `DELTA SEQUENCE`: its delta against `base` when it is a
    /// PUBLISHABLE_STRUCT with one, else in full; returns what the receiver holds.
    #[allow(clippy::too_many_arguments)]
    fn element<W: WireWrite>(
        &mut self,
        w: &mut W,
        index: usize,
        rule: &WireRule,
        ty: &Type,
        publishable: Option<&str>,
        item: &Item,
        base: Option<&Item>,
    ) -> Step<Item> {
        self.enc.path.push(format!("[{index}]"));
        let mirror = match (publishable, base) {
            (Some(name), Some(base)) => self.delta_struct(w, name, &item.0, &base.0, true)?,
            _ => {
                self.enc.rule(w, rule, ty, &item.0)?;
                let at = w.bits_written();
                sent_value(self.enc.ctx, rule, ty, &item.0)
                    .map_err(|(path, kind)| self.fail_at(at, &path, kind))?
            }
        };
        self.enc.path.pop();
        Ok(Item(mirror))
    }
}

type Read<T> = Result<T, rt::DecodeError>;

/// One delta decoding run: the full-form decoder (for the reads, the path, the trace) and the
/// context.
struct DeltaDecoder<'c, 'a, 't> {
    dec: Decoder<'c, 'a, 't>,
    dctx: DeltaContext,
}

impl<'c, 'a, 't> DeltaDecoder<'c, 'a, 't> {
    fn new(ctx: &'c Context<'a>, dctx: DeltaContext, trace: Option<&'t mut Vec<Entry>>) -> Self {
        DeltaDecoder {
            dec: Decoder::new(ctx, trace),
            dctx,
        }
    }

    fn top<'d, R: WireRead<'d>>(
        mut self,
        r: &mut R,
        name: &str,
        baseline: &Value,
    ) -> Result<Value, DecodeError> {
        self.dec.path.push(name.to_string());
        match self.delta_struct(r, name, baseline, false) {
            Ok(value) => Ok(value),
            Err(error) => Err(self.dec.into_error(error)),
        }
    }

    /// An error of the interpreter itself (a baseline of the wrong shape: never, once checked).
    fn invalid<'d, T, R: WireRead<'d>>(&mut self, r: &R) -> Read<T> {
        let error = r.error(rt::DecodeErrorKind::InvalidArgument);
        self.dec.wire(Err(error))
    }

    /// `decode_delta_from` of the struct `name` (`decode_delta_nested_from` when `nested`):
    /// segment by segment (a later segment an older writer did not send keeps the baseline's
    /// values); in the nested form each later segment in an extension, and the open end's
    /// extension skipped. A top-level message ignores what follows what it knows.
    fn delta_struct<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        name: &str,
        baseline: &Value,
        nested: bool,
    ) -> Read<Value> {
        let ctx = self.dec.ctx;
        let (Some((def, plan)), Value::Struct(base)) = (ctx.layout(name), baseline) else {
            return self.invalid(r);
        };
        let recursive = plan.recursive;
        if recursive {
            let entered = r.enter();
            self.dec.wire(entered)?;
        }
        let mut fields = Fields::default();
        let mut present = true;
        let mut outers = Vec::new();
        for (index, steps) in plan.delta.iter().flatten().enumerate() {
            if index > 0 && present {
                let start = r.bits_read();
                let label = if nested {
                    let entered = r.enter_extension();
                    let extension = self.dec.wire(entered)?;
                    present = extension.is_some();
                    outers.push(extension);
                    if present {
                        format!("extension of {} bits", r.bits_remaining())
                    } else {
                        "absent".to_string()
                    }
                } else {
                    let read = r.read_fence_present();
                    present = self.dec.wire(read)?;
                    if present { "present" } else { "absent" }.to_string()
                };
                let end = r.bits_read();
                self.dec
                    .note(&format!(" (segment {index})"), start, end, label);
            }
            if index == 0 || present {
                self.read_items(r, plan, steps, base, &mut fields)?;
            } else if unsent(steps, base, &self.dctx, &mut fields).is_err() {
                return self.invalid(r);
            }
        }
        if plan.open_end && nested && present {
            let start = r.bits_read();
            let skipped = rt::skip_extension(r);
            self.dec.wire(skipped)?;
            let end = r.bits_read();
            let presence = u64::from(super::encode::native_bool_bits(ctx.encoding.style));
            let label = if end.saturating_sub(start) > presence {
                "extension skipped"
            } else {
                "absent"
            };
            self.dec.note(" (open end)", start, end, label.to_string());
        }
        for outer in outers.into_iter().rev().flatten() {
            r.leave_extension(outer);
        }
        if recursive {
            r.leave();
        }
        Ok(fields.into_value(def, base))
    }

    /// Reads a changed-bit (its path: the current one + `suffix`).
    fn changed<'d, R: WireRead<'d>>(&mut self, r: &mut R, suffix: &str, label: &str) -> Read<bool> {
        self.dec.path.push(suffix.to_string());
        let start = r.bits_read();
        let read = r.read_bool();
        let changed = self.dec.wire(read)?;
        self.dec.path.pop();
        let what = if changed { "changed" } else { "unchanged" };
        let end = r.bits_read();
        self.dec
            .note(&format!("{suffix} ({label})"), start, end, what.to_string());
        Ok(changed)
    }

    fn read_items<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        plan: &'a StructPlan,
        items: &'a [DeltaStep],
        base: &IndexMap<String, Value>,
        fields: &mut Fields<'a>,
    ) -> Read<()> {
        for item in items {
            match item {
                DeltaStep::Sequence { field, element } => {
                    let value = self.delta_sequence(r, plan, field, element.as_deref(), base)?;
                    fields.sent(&field.field, value);
                }
                DeltaStep::Changed(encoded) | DeltaStep::Field(encoded) => {
                    let suffix = format!(".{}", encoded.field);
                    if matches!(item, DeltaStep::Field(_))
                        || self.changed(r, &suffix, "changed-bit")?
                    {
                        let value = self.field(r, plan, encoded, None, base)?;
                        fields.sent(&encoded.field, value);
                    } else {
                        fields.keep(&encoded.field, base);
                    }
                }
                DeltaStep::Block(inner) => {
                    if self.changed(r, "", "DELTA block")? {
                        self.read_items(r, plan, inner, base, fields)?;
                    } else if unsent(inner, base, &self.dctx, fields).is_err() {
                        return self.invalid(r);
                    }
                }
                DeltaStep::DeadReckoning { axes, .. } => {
                    if self.changed(r, "", "DEAD_RECKONING block")? {
                        for (encoded, velocity) in dead_reckoning_fields(axes) {
                            let value = self.field(r, plan, encoded, velocity, base)?;
                            fields.sent(&encoded.field, value);
                        }
                    } else if unsent(std::slice::from_ref(item), base, &self.dctx, fields).is_err()
                    {
                        return self.invalid(r);
                    }
                }
                DeltaStep::Extension(extension) => {
                    if fields.was_sent(&extension.field) {
                        self.dec.extend(r, plan, extension, &mut fields.values)?;
                    }
                }
                DeltaStep::Align => {
                    let start = r.bits_read();
                    self.dec.path.push(" (ALIGN)".to_string());
                    let read = r.align();
                    self.dec.wire(read)?;
                    self.dec.path.pop();
                    let end = r.bits_read();
                    if end > start {
                        self.dec.note(" (ALIGN)", start, end, "padding".to_string());
                    }
                }
                DeltaStep::Check => {
                    let start = r.bits_read();
                    self.dec.path.push(" (CHECK)".to_string());
                    let read = r.read_check();
                    self.dec.wire(read)?;
                    self.dec.path.pop();
                    let end = r.bits_read();
                    self.dec
                        .note(" (CHECK)", start, end, "0x1D1CC0DE".to_string());
                }
            }
        }
        Ok(())
    }

    /// Reads a field: with its DIFF, a tier's difference to the reference (`velocity` is a
    /// dead-reckoning position's), or after the escape the field in full, which no tier may
    /// hold; without, in full.
    fn field<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        plan: &StructPlan,
        encoded: &FieldStep,
        velocity: Option<&FieldStep>,
        base: &IndexMap<String, Value>,
    ) -> Read<Value> {
        let Some(diff) = &encoded.diff else {
            return self.dec.field(r, plan, &encoded.field, &encoded.rule);
        };
        if let WireRule::SmallestThree { bits } = encoded.rule {
            let reference = super::quat::reference(bits, base.get(&encoded.field));
            let suffix = format!(".{}", encoded.field);
            self.dec.path.push(suffix.clone());
            let start = r.bits_read();
            let read = rt::SmallestThree::new(bits).read_diff(r, &diff.tiers, reference.as_ref());
            let q = self.dec.wire(read)?;
            self.dec.path.pop();
            let value = super::quat::value_of(&q);
            self.dec.note(&suffix, start, r.bits_read(), value.brief());
            return Ok(value);
        }
        let ctx = self.dec.ctx;
        let Some(field) = plan.field(&encoded.field) else {
            return self.invalid(r);
        };
        let ty = &field.ty;
        let Some(reference) = reference(ctx, encoded, ty, velocity, base, &self.dctx) else {
            return self.invalid(r);
        };
        let diff = diff_of(diff);
        let suffix = format!(".{}", encoded.field);
        self.dec.path.push(suffix.clone());
        let start = r.bits_read();
        let read = diff.read(r, reference);
        let carried = self.dec.wire(read)?;
        if let Some(step) = carried {
            let Some(value) = value_of(ctx, encoded, ty, step) else {
                let error = rt::DecodeError::new(rt::DecodeErrorKind::BadEnumerator, start);
                return self.dec.wire(Err(error));
            };
            self.dec.path.pop();
            let d = diff.difference(step, reference);
            let text = format!("{} (DIFF {d:+} steps)", value.brief());
            self.dec.note(&suffix, start, r.bits_read(), text);
            return Ok(value);
        }
        self.dec.path.pop();
        self.dec.note(
            &format!("{suffix} (DIFF)"),
            start,
            r.bits_read(),
            "escape".into(),
        );
        let value = self.dec.field(r, plan, &encoded.field, &encoded.rule)?;
        if let Ok(Some(now)) = step_of(ctx, encoded, ty, &value) {
            self.dec.path.push(suffix);
            let checked = diff.check_escaped(now, reference, start);
            self.dec.wire(checked)?;
            self.dec.path.pop();
        }
        Ok(value)
    }

    /// A `DELTA SEQUENCE` through the runtime's `read_delta_sequence`; its changed-bit, count
    /// and index gaps appear in the trace as one entry.
    fn delta_sequence<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        plan: &StructPlan,
        encoded: &FieldStep,
        publishable: Option<&str>,
        base: &IndexMap<String, Value>,
    ) -> Read<Value> {
        let ctx = self.dec.ctx;
        let name = &encoded.field;
        let (
            WireRule::Sequence {
                count,
                max,
                element,
                ..
            },
            Some(Type::Sequence {
                element: element_ty,
                ..
            }),
            Some(Value::List(base)),
        ) = (
            &encoded.rule,
            plan.field(name).map(|f| &f.ty),
            base.get(name),
        )
        else {
            return self.invalid(r);
        };
        self.dec.path.push(format!(".{name}"));
        let then: Vec<Item> = base.iter().cloned().map(Item).collect();
        // A listed element delta-coded against the baseline's may cost nothing but its
        // changed-bits: bound it by its index gap's bit alone (the runtime adds that bit).
        let min = match publishable {
            Some(_) => 0,
            None => min_bits(ctx.ir, ctx.encoding, element),
        };
        let (start, at) = (r.bits_read(), self.dec.trace_len());
        let mut first_element = None;
        let mut next = then.len();
        let result = rt::read_delta_sequence(
            r,
            &then,
            |r| Decoder::new(ctx, None).length(r, count, *max),
            min,
            |r, base_item: Option<&Item>| {
                first_element.get_or_insert(r.bits_read());
                let index = match base_item {
                    Some(item) => index_of(&then, item),
                    None => {
                        next += 1;
                        next - 1
                    }
                };
                self.element(r, index, element, element_ty, publishable, base_item)
            },
        );
        let (changed, label) = match self.dec.wire(result)? {
            Some(items) => {
                let label = format!("changed: {} elements", items.len());
                (items.into_iter().map(|item| item.0).collect(), label)
            }
            None => (base.clone(), "unchanged".to_string()),
        };
        let header_end = first_element.unwrap_or_else(|| r.bits_read());
        self.dec.note_at(
            at,
            " (changed-bit, count, indices)",
            start,
            header_end,
            label,
            false,
        );
        self.dec.path.pop();
        Ok(Value::List(changed))
    }

    fn element<'d, R: WireRead<'d>>(
        &mut self,
        r: &mut R,
        index: usize,
        rule: &WireRule,
        ty: &Type,
        publishable: Option<&str>,
        base: Option<&Item>,
    ) -> Read<Item> {
        self.dec.path.push(format!("[{index}]"));
        let value = match (publishable, base) {
            (Some(name), Some(base)) => self.delta_struct(r, name, &base.0, true)?,
            _ => self.dec.rule(r, rule, ty)?,
        };
        self.dec.path.pop();
        Ok(Item(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_compare_as_generated_code_compares_them() {
        assert!(same(&Value::Int(3), &Value::Float(3.0)));
        assert!(same(&Value::Float32(0.5), &Value::Float(0.5)));
        assert!(!same(&Value::Float(f64::NAN), &Value::Float(f64::NAN)));
        assert!(!same(&Value::Str("NaN".into()), &Value::Float(f64::NAN)));
        assert!(same(&Value::Enum("A".into()), &Value::Str("A".into())));
        assert!(same(
            &Value::Bytes(vec![1, 2]),
            &Value::List(vec![Value::Int(1), Value::Int(2)])
        ));
        assert!(!same(&Value::Int(1), &Value::Bool(true)));
        assert!(same(&Value::Float(-0.0), &Value::Float(0.0)));
    }
}
